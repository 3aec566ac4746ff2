/* jsonview.h - JSON shown as an indented, coloured tree with foldable nodes. Pure.
 *
 * Nodes are numbered in document order (the root is 0). A folded object or array shows as
 * one line ("{…} 12 keys"); a folded long string shows its start and its length. By
 * default containers deeper than 3 levels and strings longer than 240 bytes start folded.
 * Each line's tag is the number of the node it opens (for folding at the cursor). */
#ifndef BELAY_TUI_JSONVIEW_H
#define BELAY_TUI_JSONVIEW_H
#include <cjson/cJSON.h>
#include <stddef.h>

#include "tui/tdoc.h"

struct jindex;

struct jfold {
	unsigned char *state; /* per node: 0 default, 1 folded, 2 unfolded */
	size_t n;
	/* What the last rendering showed, for jsonview_update: per node, 1 when it was drawn
	 * folded; the nodes whose state changed since; each node's size (itself and all below
	 * it) in the root it was computed for. */
	unsigned char *shown;
	size_t nshown;
	int *dirty;
	size_t ndirty, capdirty;
	int *span;
	size_t nspan;
	const cJSON *span_root;
	struct jindex *ix; /* every node's line as shown unfolded, for finding hidden matches */
};

void jfold_free(struct jfold *f);
/* Appends the rendering of root to d (indent: spaces per level), and keeps in f what later
 * calls with the same root use: each node's size (and, once built, the text of every node for
 * searching what folds hide: jsonview_text). Call it again when root changed (another tree). */
void jsonview_render(struct tdoc *d, const cJSON *root, struct jfold *f);
/* Brings d (holding root's rendering, from jsonview_render, after lines of its own) up to
 * date with the folds changed since (jsonview_toggle, jsonview_unfold_*): only the nodes
 * whose fold changed are rendered again and spliced in (tdoc_splice), so opening a fold in a
 * large document costs what it shows. Returns how many nodes it rendered again. */
int jsonview_update(struct tdoc *d, const cJSON *root, struct jfold *f);
/* Toggles node's fold; returns 0, or -1 when the node cannot fold (a scalar). */
int jsonview_toggle(struct jfold *f, const cJSON *root, int node);

/* Replaces, in root (in place), every string whose text is a JSON object or array (an MCP
 * tool's text result often is) by that value parsed, and so on inside it; f (may be NULL)
 * gets each parsed value and the nodes around it unfolded (its own nodes fold as usual).
 * Returns how many strings it replaced. */
int jsonview_parse_strings(cJSON *root, struct jfold *f);
/* Unfolds every folded node whose text holds a match (match(arg, text, n) != 0 for a key or
 * a string as shown, escaped and quoted) and every folded node around one, so a search finds
 * what folding hid. Returns how many nodes it unfolded. */
int jsonview_unfold_where(struct jfold *f, const cJSON *root, int (*match)(void *arg, const char *text, size_t n),
			  void *arg);

/* Every node's line as it shows unfolded (`"key": value`, a container as its opening
 * bracket), one line each in document order, '\n' after each; *lower the same lower-cased
 * (ASCII). Built once per root and kept in f: by the first call (the whole tree), or ahead a
 * step at a time by jsonview_prepare. */
const char *jsonview_text(struct jfold *f, const cJSON *root, size_t *n, const char **lower);
/* Builds up to `nodes` more nodes of jsonview_text's text (as the console does while idle);
 * returns 1 while more remains. */
int jsonview_prepare(struct jfold *f, const cJSON *root, size_t nodes);
/* Unfolds the folded nodes whose line in jsonview_text holds one of the byte offsets
 * (ascending) and every folded node around them. Returns how many nodes it unfolded. */
int jsonview_unfold_at(struct jfold *f, const cJSON *root, const size_t *off, size_t n);

#endif
