/* tsnode.c - node text, pre-order search and first-error descent over tree-sitter trees (see
 * tsnode.h). Threads: any; no state. Must not: recurse (hostile trees are deep). */
#include "assertions/tsnode.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/xalloc.h"

int tsnode_is(TSNode n, const char *type)
{
	if (ts_node_is_null(n))
		return 0;
	const char *t = ts_node_type(n);
	return t[0] == type[0] && !strcmp(t, type); /* most calls differ at the first byte: no call then */
}

/* Field names are string literals: each one's id is looked up once per thread and grammar (the
 * runtime compares the name with every field name of the grammar each time). A cache, not
 * state: what it answers never depends on what was asked before. */
TSNode tsnode_field(TSNode n, const char *name)
{
	static _Thread_local struct {
		const TSLanguage *lang;
		const char *name;
		TSFieldId id;
	} memo[128];
	if (ts_node_is_null(n))
		return n;
	const TSLanguage *lang = ts_tree_language(n.tree);
	size_t h = (((uintptr_t)name >> 3) ^ ((uintptr_t)lang >> 7)) & 127;
	if (memo[h].name != name || memo[h].lang != lang) {
		memo[h].lang = lang;
		memo[h].name = name;
		memo[h].id = ts_language_field_id_for_name(lang, name, (uint32_t)strlen(name));
	}
	return memo[h].id ? ts_node_child_by_field_id(n, memo[h].id) : (TSNode){0};
}

size_t tsnode_len(TSNode n)
{
	return ts_node_end_byte(n) - ts_node_start_byte(n);
}

int tsnode_text_is(const char *src, TSNode n, const char *t)
{
	size_t k = strlen(t);
	return !ts_node_is_null(n) && tsnode_len(n) == k && !memcmp(src + ts_node_start_byte(n), t, k);
}

char *tsnode_text(const char *src, TSNode n)
{
	return xstrndup(src + ts_node_start_byte(n), tsnode_len(n));
}

TSNode *tsnode_named_children(TSNode n, size_t *count)
{
	*count = 0;
	if (ts_node_is_null(n))
		return NULL;
	uint32_t m = ts_node_named_child_count(n);
	if (!m)
		return NULL;
	TSNode *v = xmalloc(m * sizeof *v);
	TSTreeCursor c = ts_tree_cursor_new(n);
	for (int more = ts_tree_cursor_goto_first_child(&c); more && *count < m; more = ts_tree_cursor_goto_next_sibling(&c)) {
		TSNode k = ts_tree_cursor_current_node(&c);
		if (ts_node_is_named(k))
			v[(*count)++] = k;
	}
	ts_tree_cursor_delete(&c);
	return v;
}

TSTreeCursor *tsnode_cursor(struct tsnode_cursors *p, size_t level, TSNode n)
{
	p->v = xgrow_zeroed(p->v, &p->cap, level, sizeof *p->v, 16);
	if (!p->v[level]) {
		p->v[level] = xmalloc(sizeof **p->v);
		*p->v[level] = ts_tree_cursor_new(n);
	} else {
		ts_tree_cursor_reset(p->v[level], n);
	}
	return p->v[level];
}

void tsnode_cursors_free(struct tsnode_cursors *p)
{
	for (size_t i = 0; i < p->cap; i++)
		if (p->v[i]) {
			ts_tree_cursor_delete(p->v[i]);
			free(p->v[i]);
		}
	free(p->v);
	p->v = NULL;
	p->cap = 0;
}

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

TSNode tsnode_syntax_error(const char *src, TSNode root, const char *what, char *out, size_t cap, int *kind)
{
	TSNode n = tsnode_first_error(root, kind);
	if (*kind == 'M') {
		snprintf(out, cap, "%s: missing %s", what, ts_node_type(n));
		return n;
	}
	int w = snprintf(out, cap, "%s at \"", what);
	size_t o = w < 0 ? 0 : (size_t)w < cap ? (size_t)w : cap - 1;
	uint32_t a = ts_node_start_byte(n), b = ts_node_end_byte(n);
	size_t k = 0;
	while (a + k < b && k < TSNODE_SNIP && src[a + k] != '\n' && src[a + k] != '\r')
		k++;
	while (k > 0 && a + k < b && ((unsigned char)src[a + k] & 0xc0) == 0x80)
		k--;
	for (size_t i = 0; i < k && o + 6 < cap; i++) {
		unsigned char ch = (unsigned char)src[a + i];
		if (ch < 0x20 || ch == 0x7f)
			o += (size_t)snprintf(out + o, 5, "\\x%02x", ch);
		else
			out[o++] = (char)ch;
	}
	snprintf(out + o, cap - o, "\"");
	return n;
}

/* Row and column of byte offset `off` of `text`, as tree-sitter counts them. */
static TSPoint point_at(const char *text, size_t off)
{
	TSPoint p = {0, 0};
	for (size_t i = 0; i < off; i++) {
		if (text[i] == '\n') {
			p.row++;
			p.column = 0;
		} else {
			p.column++;
		}
	}
	return p;
}

void tsnode_edit_between(const char *a, size_t alen, const char *b, size_t blen, TSInputEdit *e)
{
	size_t pfx = 0, max = alen < blen ? alen : blen;
	while (pfx < max && a[pfx] == b[pfx])
		pfx++;
	size_t sfx = 0;
	while (sfx < max - pfx && a[alen - 1 - sfx] == b[blen - 1 - sfx])
		sfx++;
	*e = (TSInputEdit){.start_byte = (uint32_t)pfx,
			   .old_end_byte = (uint32_t)(alen - sfx),
			   .new_end_byte = (uint32_t)(blen - sfx),
			   .start_point = point_at(a, pfx),
			   .old_end_point = point_at(a, alen - sfx),
			   .new_end_point = point_at(b, blen - sfx)};
}

void tsnode_line_col(const char *s, size_t off, unsigned *line, unsigned *col)
{
	*line = 1;
	*col = 1;
	for (size_t i = 0; i < off; i++) {
		if (s[i] == '\n') {
			++*line;
			*col = 1;
		} else {
			++*col;
		}
	}
}
