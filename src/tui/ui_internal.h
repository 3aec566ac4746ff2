/* ui_internal.h - what ui.c (state) and ui_draw.c (drawing) share. Not for other files. */
#ifndef BELAY_TUI_UI_INTERNAL_H
#define BELAY_TUI_UI_INTERNAL_H
#include "tui/ui.h"

/* The turns the filter shows (u->vis) brought up to date with the run; force: look at every
 * turn again (1), or only at the rows shown, the filter having narrowed (2: filter_narrows). */
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
/* Hit tests for the mouse (mouse.c). The home pane on screen row y (1, with *row the list
 * row from the pane's first shown one, -1 on its title), else 0. In the detail: 1 on the tab
 * bar (*tab the tab under x, or -1), 2 in the tab's text (*row its document row), 3 in the
 * verdict block, else 0. */
int ui_home_pane_at(const struct ui *u, int y, enum pane *p, int *row);
int ui_detail_hit(const struct ui *u, int y, int x, int *tab, size_t *row);
/* The trial of the trials list on screen row y, or -1. */
long ui_trials_row_at(const struct ui *u, int y);
/* What a pane shows of a list or document that does not fit: "  ↑↓ rows 4-9 of 12" (the
 * arrows say which way there is more), into out; "" when all `total` rows are shown. */
void ui_more_mark(char *out, size_t n, size_t top, size_t shown, size_t total);
/* The help document (snippet_first: the MCP configuration first) and the log document. */
void ui_help_doc(struct ui *u, struct tdoc *d, int snippet_first);
void ui_log_doc(struct ui *u, struct tdoc *d);
/* The MCP configuration snippets for connecting an agent to socket (into d). */
void ui_snippets(struct tdoc *d, const char *socket_path, const char *http_url);

/* The trials view (ui_trials.c): the list, and the open trial's document into u->doc. */
void ui_draw_trials(struct ui *u, struct canvas *c, int y, int h);
void ui_trial_doc(struct ui *u);
/* The focused trial of the list (NULL when there is none). */
struct tm_trial *ui_trial_focused(struct ui *u);

/* Search inside what the view shows (ui_search.c; search.h). The document searched (the
 * detail's tab, the log, help, a trial; NULL elsewhere); opening the prompt (0 when this view
 * has nothing to search, said in a message); the prompt's text changed, Enter (line), Esc,
 * Ctrl-R (regular expression or not); `:search [-r] TEXT`; n/N (dir 1/-1); the matches of d
 * to draw (NULL when d is not what is searched); the bar text ("/item 3/17"; 0 when no
 * search); the prompt's label ("/" or "re/"); freeing it all (ui_free). */
struct tdoc *ui_search_doc(struct ui *u);
int ui_search_open(struct ui *u);
void ui_search_typed(struct ui *u);
void ui_search_enter(struct ui *u, const char *line);
void ui_search_cancel(struct ui *u);
void ui_search_toggle_regex(struct ui *u);
void ui_search_command(struct ui *u, const char *arg);
void ui_search_step(struct ui *u, int dir);
const struct tmark *ui_search_marks(struct ui *u, const struct tdoc *d, size_t *n);
int ui_search_bar(struct ui *u, char *out, size_t n);
const char *ui_search_prompt_label(struct ui *u);
void ui_search_free(struct ui *u);

/* Export and copy (ui_export.c): `export [PATH]`, `copy`, `snippet copy [CLIENT]`. */
void ui_export(struct ui *u, const char *path);
void ui_copy(struct ui *u);
void ui_snippet_copy(struct ui *u, const char *client);

#endif
