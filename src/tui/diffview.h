/* diffview.h - a workspace diff (snap_diff) shown as text: each added, removed or changed
 * entry with what changed, and a unified diff of regular files up to 1 MiB. Used by the
 * console's effect-diff tab and by `belay recover`. Must not: write anything. */
#ifndef BELAY_TUI_DIFFVIEW_H
#define BELAY_TUI_DIFFVIEW_H
#include "snapshot/snapshot.h"
#include "tui/tdoc.h"

#define DIFFVIEW_FILE_MAX (1u << 20)

/* left is a snapshot handle; the right side is snapshot `right` or, when NULL, the
 * directory right_dir. */
void diffview_render(struct tdoc *d, struct snap_store *st, const char *left, const char *right,
		     const char *right_dir, const struct snap_diff *df);

#endif
