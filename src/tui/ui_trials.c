/* ui_trials.c - the trials view: the trials of the console's state directory, newest first
 * (id, state, how each ended, denials, effect counts: +added ~changed -deleted m(ode),
 * command), and the open trial's
 * document (trialdoc.h). See ui.h.
 *
 * Must not: call curses, block while drawing (the open trial's document is built when it
 * opens or when the trial changes, not per frame). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/jsonx.h"
#include "tui/glyphs.h"
#include "tui/trialdoc.h"
#include "tui/ui_internal.h"

struct tm_trial *ui_trial_focused(struct ui *u)
{
	if (!u->tm || !u->tm->n)
		return NULL;
	if (u->view == VIEW_TRIAL)
		return tmodel_find(u->tm, u->trial_id);
	if (u->tpos.sel >= u->tm->n)
		u->tpos.sel = u->tm->n - 1;
	return &u->tm->t[u->tpos.sel];
}

void ui_trial_doc(struct ui *u)
{
	struct tm_trial *t = u->tm ? tmodel_find(u->tm, u->trial_id) : NULL;
	tdoc_clear(&u->doc);
	if (t) {
		trialdoc_build(&u->doc, u->tm->state_dir, t);
	} else {
		tdoc_nl(&u->doc);
		tdoc_addf(&u->doc, ROLE_ERROR, "trial %s is gone from %s", u->trial_id, u->tm ? u->tm->state_dir : "?");
	}
	u->trial_gen = u->tm ? u->tm->gen : 0;
}

void ui_trials_changed(struct ui *u)
{
	for (size_t i = 0; u->tm && u->tsel[0] && i < u->tm->n; i++)
		if (!strcmp(u->tm->t[i].id, u->tsel))
			u->tpos.sel = i; /* the selection stays on its trial when a new one comes on top */
	if (u->view == VIEW_TRIAL && u->tm && u->trial_gen != u->tm->gen) {
		size_t top = u->doc_top;
		ui_trial_doc(u);
		u->doc_top = top;
	}
	u->dirty++;
}

static int cellw(struct canvas *c, int y, int x, int w, enum role r, const char *s)
{
	if (w <= 0)
		return x;
	canvas_text_fit(c, y, x, w, r, s, 1);
	return x + w + 1;
}

/* As ui_draw draws the list: its title on row 1, the column headers on row 2, rows from 3
 * to the status line. */
long ui_trials_row_at(const struct ui *u, int y)
{
	int first = 1 + 2, rows = (u->h - 4) - 2;
	if (!u->tm || y < first || y >= first + rows)
		return -1;
	size_t k = u->tpos.top + (size_t)(y - first);
	return k < u->tm->n ? (long)k : -1;
}

void ui_draw_trials(struct ui *u, struct canvas *c, int y, int h)
{
	struct tmodel *tm = u->tm;
	char s[600];
	snprintf(s, sizeof s, " TRIALS (%zu)  newest first", tm ? tm->n : 0);
	canvas_fill(c, y, 0, 1, u->w, ' ', ROLE_HEADER);
	canvas_text_fit(c, y, 0, u->w, ROLE_TITLE, s, 0);
	if (!tm || !tm->n) {
		canvas_text(c, y + 2, 2, u->w - 2, ROLE_DIM,
			    tm && tm->err[0] ? tm->err : "no trial yet: `belay try -- COMMAND` runs one; it appears here");
		return;
	}
	/* Columns by priority: the id, the state and how it ended are never cut; then the
	 * denial count, the effect counts, and the command takes what is left. */
	int idw = 0, stw = 5, ow = 6, effw = 6;
	for (size_t i = 0; i < tm->n; i++) {
		int n = canvas_width(tm->t[i].id);
		idw = n > idw ? n : idw;
		if (!tm->t[i].rec)
			continue;
		const char *word;
		trialdoc_state(tm->t[i].rec, &word);
		n = canvas_width(word);
		stw = n > stw ? n : stw;
		trialdoc_outcome(tm->t[i].rec, s, sizeof s);
		n = canvas_width(s);
		ow = n > ow ? n : ow;
		int k[4];
		trialdoc_counts(tm->t[i].rec, k);
		n = snprintf(s, sizeof s, "+%d ~%d -%d m%d", k[0], k[1], k[2], k[3]);
		effw = n > effw ? n : effw;
	}
	const int denw = 4;
	int x0 = 2 + idw + 1 + stw + 1 + ow + 1;
	int show_den = x0 + denw + 1 <= u->w;
	int show_eff = show_den && x0 + denw + 1 + effw + 1 <= u->w;
	int cmdw = u->w - x0 - (show_den ? denw + 1 : 0) - (show_eff ? effw + 1 : 0);
	if (cmdw < 8)
		cmdw = 0; /* too narrow to say anything: the detail has it */
	int rows = h - 2;
	int hy = y + 1;
	int x = 2;
	canvas_fill(c, hy, 0, 1, u->w, ' ', ROLE_HEADER);
	x = cellw(c, hy, x, idw, ROLE_HEADER, "id");
	x = cellw(c, hy, x, stw, ROLE_HEADER, "state");
	x = cellw(c, hy, x, ow, ROLE_HEADER, "ended");
	if (show_den)
		x = cellw(c, hy, x, denw, ROLE_HEADER, "den");
	if (show_eff)
		x = cellw(c, hy, x, effw, ROLE_HEADER, "effect");
	if (cmdw > 0)
		cellw(c, hy, x, cmdw, ROLE_HEADER, "command");
	struct list_pos *p = &u->tpos;
	if (p->sel >= tm->n)
		p->sel = tm->n - 1;
	snprintf(u->tsel, sizeof u->tsel, "%s", tm->t[p->sel].id);
	if (p->sel < p->top)
		p->top = p->sel;
	if (rows > 0 && p->sel >= p->top + (size_t)rows)
		p->top = p->sel - (size_t)rows + 1;
	if (rows > 0 && tm->n > (size_t)rows) { /* the title says which rows these are */
		size_t sl = (size_t)snprintf(s, sizeof s, " TRIALS (%zu)  newest first", tm->n);
		ui_more_mark(s + sl, sizeof s - sl, p->top, (size_t)rows, tm->n);
		canvas_text_fit(c, y, 0, u->w, ROLE_TITLE, s, 0);
	}
	for (int i = 0; i < rows; i++) {
		size_t k = p->top + (size_t)i;
		if (k >= tm->n)
			break;
		const struct tm_trial *t = &tm->t[k];
		int ry = hy + 1 + i;
		x = 0;
		x += canvas_text(c, ry, x, 2, ROLE_NORMAL, k == p->sel ? glyph(G_FOCUS) : " ");
		x = cellw(c, ry, 2, idw, ROLE_NORMAL, t->id);
		int keep_x = x, keep_end = x; /* the state and how it ended keep their look when selected */
		if (!t->rec) {
			canvas_text_fit(c, ry, x, u->w - x, ROLE_ERROR, t->err, 0);
			keep_end = u->w;
		} else {
			const char *word;
			enum role sr = trialdoc_state(t->rec, &word);
			x = cellw(c, ry, x, stw, sr, word);
			enum role orole = trialdoc_outcome(t->rec, s, sizeof s);
			x = cellw(c, ry, x, ow, orole, s);
			keep_end = x - 1;
			if (show_den) {
				int nd = cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(t->rec, "denials"));
				snprintf(s, sizeof s, "%s%d", glyph(G_DENIAL), nd);
				x = cellw(c, ry, x, denw, nd ? ROLE_DENIAL : ROLE_DIM, s);
			}
			if (show_eff) {
				int n[4];
				trialdoc_counts(t->rec, n);
				snprintf(s, sizeof s, "+%d ~%d -%d m%d", n[0], n[1], n[2], n[3]);
				x = cellw(c, ry, x, effw, n[0] + n[1] + n[2] + n[3] ? ROLE_NORMAL : ROLE_DIM, s);
			}
			if (cmdw > 0) {
				char *cmd = trialdoc_command(t->rec);
				canvas_text_fit(c, ry, x, cmdw, ROLE_NORMAL, cmd, 0);
				free(cmd);
			}
		}
		if (k == p->sel) {
			canvas_set_role(c, ry, 0, keep_x, ROLE_SELECTED);
			canvas_set_role(c, ry, keep_end, u->w - keep_end, ROLE_SELECTED);
		}
	}
}
