/* tsnode.h - what A1's tree-sitter readers (toml.c, a1_js_facts.c) share: a pre-order search
 * of a subtree and the descent to a tree's first syntax error. Both are loops, never
 * recursion: the tree of a hostile input is as deep as its brackets. Pure; threads: any. */
#ifndef BELAY_ASSERTIONS_TSNODE_H
#define BELAY_ASSERTIONS_TSNODE_H
#include <stddef.h>
#include <tree_sitter/api.h>

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

#endif
