/* ui_internal.h - what ui.c (state) and ui_draw.c (drawing) share. Not for other files. */
#ifndef BELAY_TUI_UI_INTERNAL_H
#define BELAY_TUI_UI_INTERNAL_H
#include "tui/ui.h"

void ui_refilter(struct ui *u, int force);
/* Shows view v (back returns to the one before) / goes back one view. */
void ui_view_push(struct ui *u, enum view v);
void ui_view_pop(struct ui *u);
struct cm_turn *ui_focused(struct ui *u, const struct cm_hold **hold);
enum kctx ui_context(const struct ui *u);
/* Rows of the detail's current tab, its text width, and the list rows of a home pane (from
 * the current layout). */
size_t ui_detail_rows(struct ui *u);
int ui_detail_width(const struct ui *u);
/* Keeps u->head_top (the verdict block's scroll) inside the block. */
void ui_detail_head_clamp(struct ui *u);
int ui_pane_rows(const struct ui *u, enum pane p);
/* What a pane shows of a list or document that does not fit: "  ↑↓ rows 4-9 of 12" (the
 * arrows say which way there is more), into out; "" when all `total` rows are shown. */
void ui_more_mark(char *out, size_t n, size_t top, size_t shown, size_t total);
/* The help document (snippet_first: the MCP configuration first) and the log document. */
void ui_help_doc(struct ui *u, struct tdoc *d, int snippet_first);
void ui_log_doc(struct ui *u, struct tdoc *d);
/* The MCP configuration snippets for connecting an agent to socket (into d). */
void ui_snippets(struct tdoc *d, const char *socket_path);

/* The trials view (ui_trials.c): the list, and the open trial's document into u->doc. */
void ui_draw_trials(struct ui *u, struct canvas *c, int y, int h);
void ui_trial_doc(struct ui *u);
/* The focused trial of the list (NULL when there is none). */
struct tm_trial *ui_trial_focused(struct ui *u);

#endif
