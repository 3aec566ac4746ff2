/* tsnode.h - what A1's tree-sitter readers (toml.c, a1_py_facts.c, a1_js_facts.c) share: a
 * node's type, fields and source text, a pre-order search of a subtree, and the descent to a
 * tree's first syntax error and its message. The walks are loops, never recursion: the tree
 * of a hostile input is as deep as its brackets. Pure (nothing allocated but what a function
 * says it returns; tsnode_field keeps a per-thread cache of field ids); threads: any;
 * failure: none (a null node is no match, no text). */
#ifndef BELAY_ASSERTIONS_TSNODE_H
#define BELAY_ASSERTIONS_TSNODE_H
#include <stddef.h>
#include <tree_sitter/api.h>

/* 1 when `n` is not null and of type `type`. */
int tsnode_is(TSNode n, const char *type);
/* `n`'s child in field `name` (a null node when it has none, or when `n` is null). `name` must
 * be a string that outlives the thread (a literal): its id is cached by its address. */
TSNode tsnode_field(TSNode n, const char *name);
/* Bytes of source `n` spans. */
size_t tsnode_len(TSNode n);
/* 1 when `n` is not null and its text in `src` (the parsed source) is exactly `t`. */
int tsnode_text_is(const char *src, TSNode n, const char *t);
/* A new string (the caller frees it): `n`'s text in `src`. */
char *tsnode_text(const char *src, TSNode n);

/* A new array (the caller frees it) of `n`'s named children in order, *count of them (read
 * with a cursor: ts_node_named_child(n, i) starts from the first child every time, quadratic
 * over a module's thousand statements). NULL with *count 0 for a null node or none. */
TSNode *tsnode_named_children(TSNode n, size_t *count);

/* Cursors for a recursive walk, one per recursion level, kept between uses (a new cursor
 * allocates; a reset one does not). Zero-initialise; free with tsnode_cursors_free. A level
 * must not be used again while a cursor of it is still being read up the call chain. */
struct tsnode_cursors {
	TSTreeCursor **v;
	size_t cap;
};
/* The cursor of `level`, at `n`. Valid until tsnode_cursors_free. */
TSTreeCursor *tsnode_cursor(struct tsnode_cursors *p, size_t level, TSNode n);
void tsnode_cursors_free(struct tsnode_cursors *p);

/* 1 stops the search: `n` is what was looked for. */
typedef int (*tsnode_pred)(TSNode n, void *ctx);

/* 1 when `pred` holds for `n` or any node below it, visited in pre-order (stopping at the
 * first); *visited (may be NULL) gets how many nodes were visited. A null node: 0. */
int tsnode_any(TSNode n, tsnode_pred pred, void *ctx, size_t *visited);

/* From the root of a tree that has an error, the node to report: the first ERROR or MISSING
 * node met descending into the first child that carries an error (*kind 'E' or 'M'), or, when
 * no visible child carries it (a hidden token is missing at the node's end), that node
 * (*kind 0). */
TSNode tsnode_first_error(TSNode root, int *kind);

/* The edit that turns text `a` into text `b`: what lies between their common prefix and their
 * common suffix (for ts_tree_edit, so that `b` is parsed incrementally against a copy of
 * `a`'s tree: most edits are local, and only what changed is parsed again). */
void tsnode_edit_between(const char *a, size_t alen, const char *b, size_t blen, TSInputEdit *e);

#define TSNODE_SNIP 60 /* characters of source a syntax error quotes */

/* The first syntax error of a tree that has one, as a message into out[cap] (cap >= 16;
 * truncated to fit): "<what>: missing <type>" for a MISSING node, else "<what> at \"<text>\""
 * quoting the start of the node's first line in `src` (at most TSNODE_SNIP bytes, cut at a
 * character boundary, control bytes as \xNN). Returns the node (tsnode_first_error), *kind as
 * there. */
/* The 1-based line and column (in bytes) of byte offset off of s. */
void tsnode_line_col(const char *s, size_t off, unsigned *line, unsigned *col);
TSNode tsnode_syntax_error(const char *src, TSNode root, const char *what, char *out, size_t cap, int *kind);

#endif
