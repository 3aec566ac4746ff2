/* mouse.c - mouse events as the console's own commands (see mouse.h).
 *
 * Must not: call curses, read the clock. */
#include "tui/mouse.h"

#include <stdio.h>
#include <string.h>

#include "tui/ui_corpus.h"
#include "tui/ui_internal.h"

static void repeat(struct ui *u, const char *cmd, int n)
{
	for (int i = 0; i < n; i++)
		ui_command(u, cmd);
}

static void wheel(struct ui *u, const struct mouse_ev *ev)
{
	int down = ev->kind == MOUSE_WHEEL_DOWN;
	if (u->view == VIEW_HOME) {
		enum pane p;
		int row;
		if (!ui_home_pane_at(u, ev->y, &p, &row))
			return;
		u->focus = p;
	} else if (u->view == VIEW_DETAIL) {
		int tab;
		size_t row;
		if (ui_detail_hit(u, ev->y, ev->x, &tab, &row) == 3) {
			ui_command(u, down ? "verdicts.down" : "verdicts.up");
			return;
		}
	}
	repeat(u, down ? "nav.down" : "nav.up", 3);
}

/* A press on a home pane's row: the pane and the row focused. 1 when it landed on a row. */
static int home_click(struct ui *u, const struct mouse_ev *ev)
{
	enum pane p;
	int row;
	if (!ui_home_pane_at(u, ev->y, &p, &row))
		return 0;
	u->focus = p;
	u->dirty++;
	if (row < 0)
		return 0; /* the title: the pane only */
	struct cm_run *r = ui_run(u);
	size_t k = u->pos[p].top + (size_t)row;
	if (p == PANE_RUNS) {
		if (k >= u->m->nruns)
			return 0;
		ui_focus_run(u, u->m->runs[k]->id);
		u->focus = PANE_RUNS;
	} else if (p == PANE_TURNS) {
		ui_refilter(u, 0);
		if (k >= u->nvis)
			return 0;
		u->pos[p].sel = k;
		u->follow = k + 1 == u->nvis;
	} else {
		if (!r || k >= r->ndenials)
			return 0;
		u->pos[p].sel = k;
	}
	return 1;
}

/* A press in the detail: a tab, or a row of its text. 1 when it landed on a row. */
static int detail_click(struct ui *u, const struct mouse_ev *ev)
{
	int tab;
	size_t row;
	int hit = ui_detail_hit(u, ev->y, ev->x, &tab, &row);
	if (hit == 1 && tab >= 0) {
		u->tab = (enum dtab)tab;
		u->dirty++;
	} else if (hit == 2 && row < ui_detail_rows(u)) {
		u->det_cur[u->tab] = (long)row;
		u->dirty++;
		return 1;
	}
	return 0;
}

/* A press on the trials list: that trial focused. 1 when it landed on one. */
static int trials_click(struct ui *u, const struct mouse_ev *ev)
{
	long k = ui_trials_row_at(u, ev->y);
	if (k < 0)
		return 0;
	u->tpos.sel = (size_t)k;
	snprintf(u->tsel, sizeof u->tsel, "%s", u->tm->t[k].id);
	u->dirty++;
	return 1;
}

/* A press on the corpus list: that case focused. 1 when it landed on one. */
static int corpus_click(struct ui *u, const struct mouse_ev *ev)
{
	long k = ui_corpus_row_at(u, ev->y);
	if (k < 0)
		return 0;
	ui_corpus_select(u, (size_t)k);
	return 1;
}

void mouse_apply(struct ui *u, const struct mouse_ev *ev, long long now_ms)
{
	if (u->prompt || u->confirm[0] || u->w < UI_MIN_W || u->h < UI_MIN_H)
		return; /* a question or a prompt waits for keys */
	if (ev->kind == MOUSE_WHEEL_UP || ev->kind == MOUSE_WHEEL_DOWN) {
		wheel(u, ev);
		return;
	}
	if (ev->kind != MOUSE_CLICK)
		return;
	int twice = u->click_ms && now_ms - u->click_ms <= MOUSE_DOUBLE_MS && ev->y == u->click_y && ev->x == u->click_x;
	u->click_ms = twice ? 0 : now_ms; /* a third press starts again */
	u->click_y = ev->y;
	u->click_x = ev->x;
	int on_row = 0;
	enum view before = u->view;
	if (u->view == VIEW_HOME)
		on_row = home_click(u, ev);
	else if (u->view == VIEW_DETAIL)
		on_row = detail_click(u, ev);
	else if (u->view == VIEW_TRIALS)
		on_row = trials_click(u, ev);
	else if (u->view == VIEW_CORPUS)
		on_row = corpus_click(u, ev);
	if (twice && on_row && u->view == before)
		ui_command(u, u->view == VIEW_DETAIL ? "fold" : "open");
}
