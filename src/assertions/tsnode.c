/* tsnode.c - pre-order search and first-error descent over tree-sitter trees (see tsnode.h).
 * Threads: any; no state. Must not: recurse (hostile trees are deep). */
#include "assertions/tsnode.h"

#include <string.h>

int tsnode_any(TSNode n, tsnode_pred pred, void *ctx, size_t *visited)
{
	size_t count = 0;
	int found = 0;
	if (!ts_node_is_null(n)) {
		TSTreeCursor c = ts_tree_cursor_new(n);
		for (;;) {
			count++;
			if (pred(ts_tree_cursor_current_node(&c), ctx)) {
				found = 1;
				break;
			}
			if (ts_tree_cursor_goto_first_child(&c))
				continue;
			int more = 0;
			while (!(more = ts_tree_cursor_goto_next_sibling(&c)))
				if (!ts_tree_cursor_goto_parent(&c))
					break;
			if (!more)
				break;
		}
		ts_tree_cursor_delete(&c);
	}
	if (visited)
		*visited = count;
	return found;
}

TSNode tsnode_first_error(TSNode root, int *kind)
{
	TSTreeCursor c = ts_tree_cursor_new(root);
	TSNode n = root;
	*kind = 0;
	for (;;) {
		if (ts_node_is_missing(n)) {
			*kind = 'M';
			break;
		}
		if (ts_node_symbol(n) == (TSSymbol)-1 || strcmp(ts_node_type(n), "ERROR") == 0) {
			*kind = 'E';
			break;
		}
		int found = 0;
		if (ts_tree_cursor_goto_first_child(&c)) {
			do {
				TSNode k = ts_tree_cursor_current_node(&c);
				if (ts_node_has_error(k) || ts_node_is_missing(k)) {
					n = k;
					found = 1;
				}
			} while (!found && ts_tree_cursor_goto_next_sibling(&c));
			if (!found)
				ts_tree_cursor_goto_parent(&c);
		}
		if (!found)
			break;
	}
	ts_tree_cursor_delete(&c);
	return n;
}
