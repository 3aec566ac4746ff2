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

struct jfold {
	unsigned char *state; /* per node: 0 default, 1 folded, 2 unfolded */
	size_t n;
};

void jfold_free(struct jfold *f);
/* Appends the rendering of root to d (indent: spaces per level). */
void jsonview_render(struct tdoc *d, const cJSON *root, struct jfold *f);
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

#endif
