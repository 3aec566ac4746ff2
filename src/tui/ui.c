/* ui.c - the console's state machine: keys and commands, the prompt, the filtered turn
 * list, and engine events applied to the model. Drawing is in ui_draw.c. See ui.h.
 *
 * Must not: call curses, block, read the clock (u->now is given). */
#include "tui/ui.h"

#include <ctype.h>
#include <fcntl.h>
#include <unistd.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/jsonx.h"
#include "common/xalloc.h"
#include "tui/filter.h"
#include "tui/trialdoc.h"
#include "tui/ui_corpus.h"
#include "tui/ui_internal.h"

void ui_init(struct ui *u, struct cmodel *m, const struct keymap *km, const struct ui_intents *in)
{
	memset(u, 0, sizeof *u);
	u->m = m;
	u->km = km;
	if (in)
		u->in = *in;
	u->focus = PANE_TURNS;
	u->follow = 1;
	u->vis_run = (size_t)-1;
	u->w = UI_MIN_W;
	u->h = UI_MIN_H;
	tdoc_init(&u->doc);
}

void ui_free(struct ui *u)
{
	free(u->vis);
	free(u->vis_holds);
	filter_free(u->flt);
	ui_search_free(u);
	if (u->det_loaded)
		detail_free(&u->det);
	tdoc_free(&u->doc);
	ui_corpus_free(u);
	free(u->log);
	memset(u, 0, sizeof *u);
}

void ui_resize(struct ui *u, int w, int h)
{
	u->w = w;
	u->h = h;
	u->dirty++;
}

struct cm_run *ui_run(struct ui *u)
{
	return u->m->nruns ? u->m->runs[u->run < u->m->nruns ? u->run : u->m->nruns - 1] : NULL;
}

void ui_message(struct ui *u, int level, const char *fmt, ...)
{
	char text[sizeof u->msg];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(text, sizeof text, fmt, ap);
	va_end(ap);
	/* An error on the line stays until seen: what comes after it, less grave, is logged. */
	if (!(u->msg_sticky && u->msg[0] && level < 2 && !u->confirm[0])) {
		snprintf(u->msg, sizeof u->msg, "%s", text);
		u->msg_level = level;
		u->msg_sticky = level >= 2;
	}
	if (level >= 2 && !u->in_key)
		u->errors_unseen++;
	if (u->nlog == u->caplog) {
		if (u->caplog >= 1000) { /* keep the last 1000 */
			memmove(u->log, u->log + 1, (u->nlog - 1) * sizeof *u->log);
			u->nlog--;
			if (u->log_seen)
				u->log_seen--;
		} else {
			u->caplog = u->caplog ? u->caplog * 2 : 64;
			u->log = xrealloc(u->log, u->caplog * sizeof *u->log);
		}
	}
	struct log_line *l = &u->log[u->nlog++];
	l->level = level;
	snprintf(l->text, sizeof l->text, "%s", text);
	struct tm tm;
	localtime_r(&u->now, &tm);
	strftime(l->when, sizeof l->when, "%H:%M:%S", &tm);
	u->dirty++;
}

/*==== the visible turns ====*/

static const char *const sort_names[] = {"turn", "verdict", "latency", "tool"};

const char *ui_sort_name(int sort)
{
	return sort >= 0 && sort < 4 ? sort_names[sort] : "turn";
}

/* The run the rows being sorted are of, and the order (the UI thread only). */
static const struct cm_run *sort_run;
static int sort_by;

static int v_rank(enum cm_v v)
{
	switch (v) { /* the worst first; not yet verified last */
	case CMV_FAIL: return 0;
	case CMV_UNVERIFIED: return 1;
	case CMV_WARN: return 2;
	case CMV_NOT_COVERED: return 3;
	case CMV_PASS: return 4;
	default: return 5;
	}
}

static int sort_cmp(const void *pa, const void *pb)
{
	size_t a = *(const size_t *)pa, b = *(const size_t *)pb;
	const struct cm_turn *x = cm_turn_at(sort_run, a), *y = cm_turn_at(sort_run, b);
	int d = 0;
	if (sort_by == 1)
		d = v_rank(x->v) - v_rank(y->v);
	else if (sort_by == 2) /* slowest first; unknown last */
		d = x->latency_us == y->latency_us ? 0 : x->latency_us < 0 ? 1 : y->latency_us < 0 ? -1
			: x->latency_us > y->latency_us ? -1 : 1;
	else if (sort_by == 3)
		d = strcmp(x->tool ? x->tool : "", y->tool ? y->tool : "");
	return d ? d : a < b ? -1 : a > b ? 1 : 0;
}

/* Rows of the turns list: turn indexes (< nturns), then held calls (nturns + i). */
void ui_refilter(struct ui *u, int force)
{
	struct cm_run *r = ui_run(u);
	if (!r) {
		u->nvis = 0;
		return;
	}
	if (!force && u->vis_run == u->run && u->vis_gen == r->gen)
		return;
	size_t keep = u->nvis && u->pos[PANE_TURNS].sel < u->nvis ? u->vis[u->pos[PANE_TURNS].sel] : (size_t)-1;
	/* A held call's own row is kept by the hold's id: once turns arrive its value means
	 * another row (and once its own turn is in the store, that turn is its row). */
	uint64_t keep_hold = 0;
	if (keep != (size_t)-1 && u->vis_run == u->run && keep >= u->vis_nturns && keep - u->vis_nturns < u->vis_nholds)
		keep_hold = u->vis_holds[keep - u->vis_nturns];
	int at_end = u->nvis == 0 || u->pos[PANE_TURNS].sel + 1 >= u->nvis;
	size_t start = 0;
	if (!force && u->vis_run == u->run && !u->flt && !u->sort && u->nvis) {
		/* Unfiltered and only grown: append (O(new turns)). Held rows are rebuilt. */
		while (u->nvis && u->vis[u->nvis - 1] >= r->nturns)
			u->nvis--;
		start = u->nvis ? u->vis[u->nvis - 1] + 1 : 0;
	} else if (force == 2 && u->vis_run == u->run && u->vis_gen == r->gen && !u->sort) {
		/* A filter typed on (filter_narrows): only the rows the last one kept can match. */
		size_t k = 0;
		for (size_t i = 0; i < u->nvis; i++)
			if (u->vis[i] < r->nturns && filter_match(u->flt, cm_turn_at(r, u->vis[i])))
				u->vis[k++] = u->vis[i];
		u->nvis = k;
		start = r->nturns;
	} else {
		u->nvis = 0;
	}
	size_t need = r->nturns + r->nholds;
	if (need > u->capvis) {
		u->capvis = need + 256;
		u->vis = xrealloc(u->vis, u->capvis * sizeof *u->vis);
	}
	for (size_t i = start; i < r->nturns; i++)
		if (filter_match(u->flt, cm_turn_at(r, i)))
			u->vis[u->nvis++] = i;
	if (u->sort) { /* held calls stay at the end */
		sort_run = r;
		sort_by = u->sort;
		qsort(u->vis, u->nvis, sizeof *u->vis, sort_cmp);
	}
	for (size_t i = 0; i < r->nholds; i++)
		if (!cm_turn_by_seq(r, r->holds[i].seq)) /* not in the store yet: its own row */
			u->vis[u->nvis++] = r->nturns + i;
	u->vis_run = u->run;
	u->vis_gen = r->gen;
	u->vis_nturns = r->nturns;
	u->vis_holds = xrealloc(u->vis_holds, (r->nholds ? r->nholds : 1) * sizeof *u->vis_holds);
	u->vis_nholds = r->nholds;
	for (size_t i = 0; i < r->nholds; i++)
		u->vis_holds[i] = r->holds[i].id;
	struct list_pos *p = &u->pos[PANE_TURNS];
	if (keep_hold && !(u->follow && at_end)) {
		keep = (size_t)-1;
		for (size_t i = 0; i < u->nvis && keep == (size_t)-1; i++) {
			size_t k = u->vis[i];
			if (k < r->nturns ? cm_turn_at(r, k)->hold == keep_hold : r->holds[k - r->nturns].id == keep_hold)
				keep = k;
		}
	}
	if (u->follow && at_end && u->nvis) {
		p->sel = u->nvis - 1;
	} else if (keep != (size_t)-1) {
		for (size_t i = 0; i < u->nvis; i++)
			if (u->vis[i] == keep) {
				p->sel = i;
				break;
			}
	}
	if (p->sel >= u->nvis)
		p->sel = u->nvis ? u->nvis - 1 : 0;
}

/* The focused row: a turn (returned) or a held call (*hold set), or neither. */
struct cm_turn *ui_focused(struct ui *u, const struct cm_hold **hold)
{
	if (hold)
		*hold = NULL;
	struct cm_run *r = ui_run(u);
	if (!r)
		return NULL;
	if (u->view == VIEW_DETAIL && u->det_loaded) {
		if (u->det.turn >= 0 && (size_t)u->det.turn < r->nturns)
			return cm_turn_at(r, u->det.turn);
		for (size_t i = 0; hold && i < r->nholds; i++)
			if (r->holds[i].id == u->det.hold)
				*hold = &r->holds[i];
		return NULL;
	}
	if (u->focus == PANE_DENIALS) {
		size_t s = u->pos[PANE_DENIALS].sel;
		if (s < r->ndenials && r->denials[s].turn >= 0)
			return cm_turn_at(r, (size_t)r->denials[s].turn);
		return NULL;
	}
	ui_refilter(u, 0);
	size_t s = u->pos[PANE_TURNS].sel;
	if (s >= u->nvis)
		return NULL;
	size_t k = u->vis[s];
	if (k < r->nturns)
		return cm_turn_at(r, k);
	if (hold && k - r->nturns < r->nholds)
		*hold = &r->holds[k - r->nturns];
	return NULL;
}

/*==== views ====*/

static void push(struct ui *u, enum view v)
{
	if (u->view == v)
		return;
	if (u->depth < (int)(sizeof u->stack / sizeof u->stack[0]))
		u->stack[u->depth++] = u->view;
	u->view = v;
	u->dirty++;
}

static void pop(struct ui *u)
{
	if (u->depth > 0)
		u->view = u->stack[--u->depth];
	else
		u->view = VIEW_HOME;
	u->dirty++;
}

void ui_view_push(struct ui *u, enum view v)
{
	push(u, v);
}

void ui_view_pop(struct ui *u)
{
	pop(u);
}

void ui_open_turn(struct ui *u, int turn, int tab)
{
	struct cm_run *r = ui_run(u);
	if (!r || turn < 0 || (size_t)turn >= r->nturns)
		return;
	ui_refilter(u, 0);
	for (size_t i = 0; i < u->nvis; i++)
		if (u->vis[i] == (size_t)turn)
			u->pos[PANE_TURNS].sel = i;
	if (u->det_loaded)
		detail_free(&u->det);
	detail_load(&u->det, u->m, r, turn);
	u->det_loaded = 1;
	memset(u->det_top, 0, sizeof u->det_top);
	u->head_top = 0;
	for (int i = 0; i < TAB_COUNT; i++)
		u->det_cur[i] = 0;
	if (tab >= 0)
		u->tab = (enum dtab)tab;
	u->focus = PANE_TURNS;
	push(u, VIEW_DETAIL);
}

static void open_hold(struct ui *u, const struct cm_hold *h)
{
	struct cm_run *r = ui_run(u);
	if (u->det_loaded)
		detail_free(&u->det);
	struct tm_trial *tt = NULL;
	if (h->trial_id && u->tm) {
		tmodel_poll(u->tm); /* the gate's trial was written just now */
		tt = tmodel_find(u->tm, h->trial_id);
	}
	detail_load_hold(&u->det, r, h, tt, u->tm ? u->tm->state_dir : NULL);
	u->det_loaded = 1;
	memset(u->det_top, 0, sizeof u->det_top);
	u->head_top = 0;
	u->tab = TAB_REQUEST;
	push(u, VIEW_DETAIL);
}

/* In the detail: the next (dir 1) or previous turn of the list as it is shown (filter and
 * order), on the same tab. */
static void step_turn(struct ui *u, int dir)
{
	struct cm_run *r = ui_run(u);
	if (u->view != VIEW_DETAIL || !u->det_loaded || u->det.turn < 0 || !r)
		return;
	ui_refilter(u, 0);
	size_t at = (size_t)-1;
	for (size_t i = 0; i < u->nvis; i++)
		if (u->vis[i] == (size_t)u->det.turn)
			at = i;
	if (at == (size_t)-1) {
		ui_message(u, 1, "turn %d is not in the list (the filter hides it)", u->det.turn);
		return;
	}
	for (size_t i = at + (size_t)dir; i < u->nvis; i += (size_t)dir) /* wraps below 0 to SIZE_MAX */
		if (u->vis[i] < r->nturns) {
			u->pos[PANE_TURNS].sel = i;
			u->follow = 0;
			int tab = (int)u->tab;
			detail_free(&u->det);
			detail_load(&u->det, u->m, r, (int)u->vis[i]);
			memset(u->det_top, 0, sizeof u->det_top);
			memset(u->det_cur, 0, sizeof u->det_cur);
			u->head_top = 0;
			u->tab = (enum dtab)tab;
			return;
		}
	ui_message(u, 0, "%s turn of the list", dir > 0 ? "this is the last" : "this is the first");
}

void ui_focus_run(struct ui *u, const char *id)
{
	for (size_t i = 0; i < u->m->nruns; i++)
		if (!strcmp(u->m->runs[i]->id, id)) {
			u->run = i;
			cm_read_typed(u->m->runs[i]);
			u->pos[PANE_RUNS].sel = i;
			u->pos[PANE_TURNS] = (struct list_pos){0};
			u->pos[PANE_DENIALS] = (struct list_pos){0};
			u->nvis = 0;
			ui_refilter(u, 1);
			if (u->nvis)
				u->pos[PANE_TURNS].sel = u->nvis - 1;
			u->dirty++;
			return;
		}
}

/*==== navigation ====*/

static size_t list_len(struct ui *u, enum pane p)
{
	struct cm_run *r = ui_run(u);
	switch (p) {
	case PANE_RUNS: return u->m->nruns;
	case PANE_TURNS: ui_refilter(u, 0); return u->nvis;
	default: return r ? r->ndenials : 0;
	}
}

static void move(struct ui *u, long delta, int to_end)
{
	if (ui_corpus_move(u, delta, to_end))
		return;
	if (u->view == VIEW_DETAIL) {
		long *cur = &u->det_cur[u->tab];
		size_t rows = ui_detail_rows(u);
		if (to_end)
			*cur = to_end > 0 ? (long)rows - 1 : 0;
		else
			*cur += delta;
		if (*cur >= (long)rows)
			*cur = (long)rows - 1;
		if (*cur < 0)
			*cur = 0;
		u->dirty++;
		return;
	}
	if (u->view == VIEW_TRIALS) {
		size_t n = u->tm ? u->tm->n : 0;
		long sel = to_end ? (to_end > 0 ? (long)n - 1 : 0) : (long)u->tpos.sel + delta;
		u->tpos.sel = sel < 0 || !n ? 0 : sel >= (long)n ? n - 1 : (size_t)sel;
		if (n)
			snprintf(u->tsel, sizeof u->tsel, "%s", u->tm->t[u->tpos.sel].id);
		u->dirty++;
		return;
	}
	if (u->view == VIEW_HELP || u->view == VIEW_LOG || u->view == VIEW_TRIAL || u->view == VIEW_CASE) {
		long top = (long)u->doc_top + (to_end ? (to_end > 0 ? 1 << 30 : -(1 << 30)) : delta);
		/* In rows, as drawn (long lines wrap), so the end can be reached; it fills the page. */
		long max = (long)tdoc_rows(&u->doc, u->w - 2, 1) - (u->h - 5);
		u->doc_top = top < 0 ? 0 : top > max ? (size_t)(max < 0 ? 0 : max) : (size_t)top;
		u->dirty++;
		return;
	}
	size_t n = list_len(u, u->focus);
	struct list_pos *p = &u->pos[u->focus];
	if (!n)
		return;
	long s = to_end ? (to_end > 0 ? (long)n - 1 : 0) : (long)p->sel + delta;
	if (s < 0)
		s = 0;
	if (s >= (long)n)
		s = (long)n - 1;
	p->sel = (size_t)s;
	if (u->focus == PANE_TURNS)
		u->follow = p->sel + 1 == n; /* moving away from the end stops following */
	if (u->focus == PANE_RUNS && u->run != p->sel)
		ui_focus_run(u, u->m->runs[p->sel]->id);
	u->dirty++;
}

static long page(struct ui *u)
{
	return u->view == VIEW_HOME ? (long)ui_pane_rows(u, u->focus) : (long)(u->h - 8 > 1 ? u->h - 8 : 1);
}

/*==== commands ====*/

static int need_run(struct ui *u, struct cm_run **r)
{
	*r = ui_run(u);
	if (!*r || !(*r)->trace) {
		ui_message(u, 1, "no run to act on");
		return 0;
	}
	return 1;
}

static struct cm_turn *need_turn(struct ui *u, const char *what)
{
	const struct cm_hold *h;
	struct cm_turn *t = ui_focused(u, &h);
	if (!t)
		ui_message(u, 1, "%s: %s", what, h ? "the held call has not run yet" : "no turn is focused");
	return t;
}

static void cmd_verify(struct ui *u, int which)
{
	struct cm_run *r;
	if (!need_run(u, &r) || !u->in.verify)
		return;
	struct cm_turn *t = NULL;
	if (which != 2 && !(t = need_turn(u, which == 3 ? "replay" : "verify")))
		return;
	if (t && t->call == CMC_PENDING) {
		ui_message(u, 1, "turn %d has no response yet: there is nothing to compare a replay with", t->turn);
		return;
	}
	int from = which == 2 ? 0 : t->turn;
	u->in.verify(u->in.ctx, r, which == 0 ? t->turn : -1, from, which == 3);
	for (size_t i = (size_t)from; i < r->nturns; i++)
		if (which != 0 || i == (size_t)t->turn)
			cm_turn_at(r, i)->verifying = 1;
	r->gen++;
	if (which == 0)
		ui_message(u, 0, "verifying turn %d: queued (replay from its pre-state + invariants)", t->turn);
	else if (which == 1)
		ui_message(u, 0, "verifying turn %d and every later one: queued; verdicts fill in as they arrive",
			   t->turn);
	else if (which == 2)
		ui_message(u, 0, "verifying the whole run: queued; verdicts fill in as they arrive");
	else
		ui_message(u, 0, "replaying from turn %d on (results compared, nothing else judged): queued", t->turn);
}

static void cmd_label(struct ui *u, const char *label, const char *note, int miss, int meaning)
{
	struct cm_run *r;
	if (!need_run(u, &r) || !u->in.label)
		return;
	struct cm_turn *t = need_turn(u, "label");
	if (!t)
		return;
	if (t->call == CMC_PENDING) {
		ui_message(u, 1, "turn %d has no response yet: bank it once it is answered", t->turn);
		return;
	}
	if (note && !label) {
		if (!t->label[0]) {
			ui_message(u, 1, "turn %d has no label yet: label it first (t, f or u), then add the note", t->turn);
			return;
		}
		label = t->label;
		miss = t->label_miss;
	}
	u->in.label(u->in.ctx, r, t->turn, label, note, miss, meaning);
	if (meaning >= 0 && t->v == CMV_NONE) {
		static const char *const words[] = {"right", "wrong", "missed"};
		ui_message(u, 0, "turn %d: banking it, then labelling it %s on the verdict the replay banks (not verified "
				 "yet)",
			   t->turn, words[meaning % 3]);
		return;
	}
	ui_message(u, 0, "turn %d: %s%s%s%s (banking replays the turn first; the label is stored when it is done)",
		   t->turn, label ? "labelling " : "banking", label ? label : "", miss ? " --miss (missed)" : "",
		   note ? " with a note" : "");
}

/* label.right, label.wrong, label.missed on a turn: what they mean follows its verdict
 * (ui_label_meaning). */
static void cmd_label_meaning(struct ui *u, enum command which)
{
	struct cm_turn *t = need_turn(u, "label");
	if (!t)
		return;
	const char *label;
	int miss;
	char why[200];
	if (ui_label_meaning(t->v, which, &label, &miss, why, sizeof why) != 0) {
		ui_message(u, 1, "turn %d: %s", t->turn, why);
		return;
	}
	/* the job decides on the verdict the case banks (the one the score reads) */
	cmd_label(u, label, NULL, miss, (int)ui_meaning_of(which));
}

/* The focused held call (NULL, with a message naming `what`, when none). */
static const struct cm_hold *focused_hold(struct ui *u, const char *what)
{
	struct cm_run *r = ui_run(u);
	const struct cm_hold *h = NULL;
	struct cm_turn *t = ui_focused(u, &h);
	uint64_t id = h ? h->id : t ? t->hold : 0;
	for (size_t i = 0; !h && r && id && i < r->nholds; i++)
		if (r->holds[i].id == id)
			h = &r->holds[i];
	if (!r || !h)
		ui_message(u, 1, "%s: the focused call is not held", what);
	return h;
}

static void cmd_resolve(struct ui *u, int approve)
{
	const struct cm_hold *h = focused_hold(u, approve ? "approve" : "refuse");
	if (!h)
		return;
	if (u->instead_hold == h->id) {
		ui_message(u, 1, "its trial's effect is being applied instead: wait for that first");
		return;
	}
	if (u->in.resolve)
		u->in.resolve(u->in.ctx, ui_run(u), h->id, approve);
	ui_message(u, 0, "%s the held call...", approve ? "approving" : "refusing");
}

/* A held call's trial applied instead of the call (docs/TRY.md): asked first; "now" is the
 * confirmed form. The apply runs on the job thread (the trials' apply, conflict-checked, a
 * recover point first); only when it is done is the hold answered ADMISSION_APPLIED, and the
 * agent told (ui_event, CE_TRIAL). A refused apply leaves the call held. */
static void cmd_apply_instead(struct ui *u, const char *arg)
{
	const struct cm_hold *h = focused_hold(u, "apply.instead");
	if (!h)
		return;
	if (!h->trial_id) {
		ui_message(u, 1, "apply.instead: %s was not tried in a mirror%s%s, so there is no effect to apply",
			   h->tool ? h->tool : "the call", h->trial_error ? ": " : "", h->trial_error ? h->trial_error : "");
		return;
	}
	if (!u->in.trial || !u->in.resolve) {
		ui_message(u, 1, "apply.instead: not available here");
		return;
	}
	if (u->instead_hold) {
		ui_message(u, 1, "apply.instead: another trial (%s) is being applied; wait for it", u->instead_trial);
		return;
	}
	if (strcmp(arg, "now") != 0) {
		snprintf(u->confirm, sizeof u->confirm, "apply.instead now");
		ui_message(u, 1, "apply trial %s's effect to the workspace instead of running %s? [y/N] (conflict-checked; "
				 "a recover point first; the agent is told)",
			   h->trial_id, h->tool ? h->tool : "the call");
		return;
	}
	snprintf(u->instead_run, sizeof u->instead_run, "%s", ui_run(u)->id);
	snprintf(u->instead_trial, sizeof u->instead_trial, "%s", h->trial_id);
	u->instead_hold = h->id;
	u->in.trial(u->in.ctx, h->trial_id, 1);
	ui_message(u, 0, "applying %s instead of the call: queued (conflict check, recover point, then the effect)",
		   h->trial_id);
}

/* CE_TRIAL: the apply an apply.instead started ended. Applied: the hold is answered so the
 * agent hears the effect was applied; else the call stays held. Returns 1 when it was one. */
static int instead_done(struct ui *u, const struct cevent *ev)
{
	const char *id = jx_str(ev->json, "trial"), *action = jx_str(ev->json, "action");
	if (!u->instead_hold || !id || strcmp(id, u->instead_trial) || !action || strcmp(action, "apply"))
		return 0;
	uint64_t hold = u->instead_hold;
	u->instead_hold = 0;
	struct cm_run *r = cm_find(u->m, u->instead_run);
	if (ev->a != 0) {
		ui_message(u, 2, "%s; the call is still held (y runs it, x refuses)", ev->text ? ev->text : "the apply failed");
		return 1;
	}
	int held = 0;
	for (size_t i = 0; r && i < r->nholds; i++)
		held |= r->holds[i].id == hold;
	if (!held) {
		ui_message(u, 2, "%s; but the call is no longer held (its run ended), so the agent was not told",
			   ev->text ? ev->text : "applied");
		return 1;
	}
	u->in.resolve(u->in.ctx, r, hold, 2 /* ADMISSION_APPLIED */);
	ui_message(u, 0, "%s; telling the agent the effect was applied instead", ev->text ? ev->text : "applied");
	return 1;
}

/* Apply (1) or discard (0) a trial: the focused one asks first; "now ID" is the confirmed
 * form (the id fixed when the question was asked, whatever the list did since). */
static void cmd_trial(struct ui *u, int apply, const char *arg)
{
	const char *what = apply ? "apply" : "discard";
	if (!u->tm) {
		ui_message(u, 1, "%s: this console shows no trials", what);
		return;
	}
	if (!strncmp(arg, "now ", 4)) {
		if (!u->in.trial)
			ui_message(u, 1, "%s: not available here", what);
		else {
			u->in.trial(u->in.ctx, arg + 4, apply);
			ui_message(u, 0, "%s %s: queued (conflict check%s)", apply ? "applying" : "discarding", arg + 4,
				   apply ? ", recover point, then the effect" : ", then the layers are removed");
		}
		return;
	}
	if (u->view != VIEW_TRIALS && u->view != VIEW_TRIAL) {
		ui_message(u, 1, "%s: open the trials first (T)", what);
		return;
	}
	struct tm_trial *t = ui_trial_focused(u);
	if (!t) {
		ui_message(u, 1, "%s: no trial is focused", what);
		return;
	}
	if (!t->rec) {
		ui_message(u, 2, "%s: trial %s cannot be read: %s", what, t->id, t->err);
		return;
	}
	const char *state = jx_str(t->rec, "state"), *cause = jx_str(t->rec, "cause");
	if (!state || (apply && strcmp(state, "ready")) ||
	    (!apply && (!strcmp(state, "applied") || !strcmp(state, "discarded") || !strcmp(state, "partly_applied")))) {
		if (state && !strcmp(state, "not_appliable"))
			ui_message(u, 1, "trial %s cannot be applied: it %s (%s)", t->id,
				   jx_str(t->rec, "status") && !strcmp(jx_str(t->rec, "status"), "voided") ? "was voided" : "failed",
				   cause ? cause : "no cause recorded");
		else
			ui_message(u, 1, "trial %s cannot be %s: it was %s", t->id, apply ? "applied" : "discarded",
				   state ? state : "(no state)");
		return;
	}
	if (!u->in.trial) {
		ui_message(u, 1, "%s: not available here", what);
		return;
	}
	snprintf(u->confirm, sizeof u->confirm, "trial.%s now %s", what, t->id);
	if (apply) {
		int c[4];
		trialdoc_counts(t->rec, c);
		ui_message(u, 1, "apply trial %s, %d path(s)? [y/N] (into %s; a recover point is taken first)", t->id,
			   c[0] + c[1] + c[2] + c[3], jx_str(t->rec, "scope") ? jx_str(t->rec, "scope") : "its workspace");
	} else {
		ui_message(u, 1, "discard trial %s? [y/N] (its effect is thrown away; the record stays)", t->id);
	}
}

static void open_trial(struct ui *u)
{
	struct tm_trial *t = ui_trial_focused(u);
	if (!t)
		return;
	snprintf(u->trial_id, sizeof u->trial_id, "%s", t->id);
	ui_trial_doc(u);
	u->doc_top = 0;
	push(u, VIEW_TRIAL);
}

/* The filter in force when the / prompt opened: typing applies each good expression at
 * once (so filter_text follows it), and Esc goes back to this one. The UI thread only. */
static char filter_before[sizeof ((struct ui *)0)->filter_text];

static void set_filter(struct ui *u, const char *expr, int quiet)
{
	if (u->view == VIEW_CORPUS) { /* the cases' own filter, in the same language */
		ui_corpus_set_filter(u, expr, quiet);
		return;
	}
	struct err e = {0};
	struct filter *f = NULL;
	if (filter_parse(expr, &f, &e) != 0) {
		if (!quiet)
			ui_message(u, 2, "%s", e.msg);
		return;
	}
	int narrows = u->flt && f && filter_narrows(u->filter_text, expr);
	filter_free(u->flt);
	u->flt = f;
	snprintf(u->filter_text, sizeof u->filter_text, "%s", f ? expr : "");
	ui_refilter(u, narrows ? 2 : 1);
	u->dirty++;
}

static enum kctx context(const struct ui *u);

static void build_doc(struct ui *u, int which)
{
	if (which != 1 && u->view != VIEW_HELP)
		u->help_ctx = context(u); /* help is about the view it is opened from */
	tdoc_clear(&u->doc);
	u->doc_top = 0;
	if (which == 0)
		ui_help_doc(u, &u->doc, 0);
	else if (which == 2)
		ui_help_doc(u, &u->doc, 1);
	else
		ui_log_doc(u, &u->doc);
}

/* Quitting is deliberate: `quit` asks when a run is live, `back` on the first view (a q
 * pressed once too often) always asks. "quit now" is the confirmed form. */
static void cmd_quit(struct ui *u, const char *arg, int always_ask)
{
	int live = 0;
	for (size_t i = 0; i < u->m->nruns; i++)
		live += u->m->runs[i]->live;
	if ((live || always_ask || u->job[0]) && strcmp(arg, "now") != 0) {
		snprintf(u->confirm, sizeof u->confirm, "quit now");
		if (live)
			ui_message(u, 1, "leave the console? %d live run(s) will be stopped%s [y/N]", live,
				   u->job[0] ? ", the running job cancelled" : "");
		else if (u->job[0])
			ui_message(u, 1, "leave the console? the running job is cancelled [y/N]");
		else
			ui_message(u, 1, "leave the console? [y/N]");
		return;
	}
	u->quit = 1;
	if (u->in.quit)
		u->in.quit(u->in.ctx);
}

static void fold_at_cursor(struct ui *u)
{
	if (u->view != VIEW_DETAIL || (u->tab != TAB_REQUEST && u->tab != TAB_RESPONSE))
		return;
	const struct tdoc *d = &u->det.tab[u->tab];
	size_t line = tdoc_line_at_row(d, ui_detail_width(u), 1, (size_t)u->det_cur[u->tab]);
	if (line == (size_t)-1 || d->lines[line].tag < 0)
		return;
	cJSON *root = u->tab == TAB_REQUEST ? u->det.req : u->det.resp;
	if (jsonview_toggle(&u->det.fold[u->tab], root, d->lines[line].tag) == 0) {
		detail_refold(&u->det);
		u->dirty++;
	}
}

void ui_command(struct ui *u, const char *line)
{
	while (*line == ' ')
		line++;
	int c = command_lookup(line);
	const char *arg = line + strcspn(line, " ");
	while (*arg == ' ')
		arg++;
	if (c < 0) {
		char name[64];
		snprintf(name, sizeof name, "%.*s", (int)strcspn(line, " "), line);
		if (*name)
			ui_message(u, 2, "unknown command '%s' (? lists them)", name);
		return;
	}
	struct cm_run *r = ui_run(u);
	u->dirty++;
	if (ui_corpus_command(u, (enum command)c, arg)) /* the corpus view's, or a corpus command */
		return;
	switch ((enum command)c) {
	case C_QUIT: cmd_quit(u, arg, 0); break;
	case C_BACK:
		if (u->flt && u->view == VIEW_HOME)
			set_filter(u, "", 0);
		else if (u->view != VIEW_HOME || u->depth)
			pop(u);
		else
			cmd_quit(u, "", 1);
		break;
	case C_HELP:
		build_doc(u, 0);
		push(u, VIEW_HELP);
		break;
	case C_LOG:
		build_doc(u, 1); /* marks what is new since the last time */
		u->log_seen = u->nlog;
		u->errors_unseen = 0;
		push(u, VIEW_LOG);
		break;
	case C_SNIPPET:
		if (!strncmp(arg, "copy", 4) && (arg[4] == ' ' || !arg[4])) {
			ui_snippet_copy(u, arg + 4);
			break;
		}
		build_doc(u, 2);
		push(u, VIEW_HELP);
		break;
	case C_UP: move(u, -1, 0); break;
	case C_DOWN: move(u, 1, 0); break;
	case C_PAGEUP: move(u, -page(u), 0); break;
	case C_PAGEDOWN: move(u, page(u), 0); break;
	case C_TOP: move(u, 0, -1); break;
	case C_BOTTOM: move(u, 0, 1); break;
	case C_FOCUS_NEXT:
	case C_FOCUS_PREV:
		if (u->view == VIEW_DETAIL) {
			ui_command(u, c == C_FOCUS_NEXT ? "tab.next" : "tab.prev");
			break;
		}
		u->focus = (enum pane)((u->focus + (c == C_FOCUS_NEXT ? 1 : PANE_COUNT - 1)) % PANE_COUNT);
		break;
	case C_OPEN:
		if (u->view == VIEW_TRIALS) {
			open_trial(u);
			break;
		}
		if (u->view != VIEW_HOME)
			break;
		if (u->focus == PANE_RUNS) {
			u->focus = PANE_TURNS;
		} else if (u->focus == PANE_DENIALS) {
			size_t s = u->pos[PANE_DENIALS].sel;
			if (r && s < r->ndenials && r->denials[s].turn >= 0)
				ui_open_turn(u, r->denials[s].turn, TAB_DENIALS);
			else
				ui_message(u, 1, "this denial happened outside any call");
		} else {
			const struct cm_hold *h;
			struct cm_turn *t = ui_focused(u, &h);
			if (t)
				ui_open_turn(u, t->turn, -1);
			else if (h)
				open_hold(u, h);
		}
		break;
	case C_TAB_NEXT:
	case C_TAB_PREV:
		if (u->view == VIEW_DETAIL)
			u->tab = (enum dtab)((u->tab + (c == C_TAB_NEXT ? 1 : TAB_COUNT - 1)) % TAB_COUNT);
		break;
	case C_TAB: {
		int t = dtab_parse(arg);
		if (t < 0)
			ui_message(u, 2, "tab: one of request, response, diff, denials, snapshot, raw");
		else if (u->view == VIEW_DETAIL)
			u->tab = (enum dtab)t;
		else {
			struct cm_turn *ft = ui_focused(u, NULL);
			if (ft)
				ui_open_turn(u, ft->turn, t);
		}
		break;
	}
	case C_PROMPT_FILTER:
		u->prompt = '/';
		snprintf(filter_before, sizeof filter_before, "%s",
			 u->view == VIEW_CORPUS ? ui_corpus_filter_text(u) : u->filter_text);
		snprintf(u->pbuf, sizeof u->pbuf, "%s",
			 u->view == VIEW_CORPUS ? ui_corpus_filter_text(u) : u->filter_text);
		u->plen = strlen(u->pbuf);
		break;
	case C_PROMPT_COMMAND:
		u->prompt = ':';
		snprintf(u->pbuf, sizeof u->pbuf, "%s%s", arg, *arg ? " " : "");
		u->plen = strlen(u->pbuf);
		break;
	case C_FILTER: set_filter(u, arg, 0); break;
	case C_PROMPT_SEARCH: ui_search_open(u); break;
	case C_EXPORT: ui_export(u, arg); break;
	case C_JSON_STRINGS:
		if (u->view != VIEW_DETAIL || (u->tab != TAB_REQUEST && u->tab != TAB_RESPONSE)) {
			ui_message(u, 1, "json.strings: in a turn's request or response tab");
		} else {
			int n = detail_parse_strings(&u->det, u->tab);
			u->det_top[u->tab] = 0;
			u->det_cur[u->tab] = 0;
			if (n > 0)
				ui_message(u, 0, "%d string%s holding JSON shown parsed (not as sent)", n, n == 1 ? "" : "s");
			else if (n < 0)
				ui_message(u, 0, "the %s as sent", dtab_name(u->tab));
			else
				ui_message(u, 1, "no string in the %s holds a JSON object or array", dtab_name(u->tab));
		}
		break;
	case C_COPY: ui_copy(u); break;
	case C_SEARCH: ui_search_command(u, arg); break;
	case C_SEARCH_NEXT:
	case C_SEARCH_PREV: ui_search_step(u, c == C_SEARCH_NEXT ? 1 : -1); break;
	case C_FOLLOW:
		u->follow = !u->follow;
		if (u->follow)
			move(u, 0, 1);
		ui_message(u, 0, "follow %s", u->follow ? "on: the focus moves to new turns" : "off");
		break;
	case C_FOLD: fold_at_cursor(u); break;
	case C_SORT: {
		int to = (u->sort + 1) % 4;
		if (*arg) {
			to = -1;
			for (int i = 0; i < 4; i++)
				if (!strcmp(arg, sort_names[i]))
					to = i;
		}
		if (to < 0) {
			ui_message(u, 2, "sort: one of turn, verdict, latency, tool");
			break;
		}
		u->sort = to;
		ui_refilter(u, 1);
		ui_message(u, 0, "turns by %s%s", sort_names[to],
			   to == 1 ? " (worst first)" : to == 2 ? " (slowest first)" : "");
		break;
	}
	case C_TURN_NEXT:
	case C_TURN_PREV: step_turn(u, c == C_TURN_NEXT ? 1 : -1); break;
	case C_VERDICTS_DOWN:
	case C_VERDICTS_UP:
		if (u->view != VIEW_DETAIL)
			break;
		if (c == C_VERDICTS_UP)
			u->head_top = u->head_top ? u->head_top - 1 : 0;
		else
			u->head_top++;
		ui_detail_head_clamp(u);
		break;
	case C_VERIFY_TURN: cmd_verify(u, 0); break;
	case C_VERIFY_REST: cmd_verify(u, 1); break;
	case C_VERIFY_RUN: cmd_verify(u, 2); break;
	case C_REPLAY_FROM: cmd_verify(u, 3); break;
	case C_CORPUS_ADD: cmd_label(u, NULL, NULL, 0, -1); break;
	case C_LABEL_RIGHT:
	case C_LABEL_WRONG:
	case C_LABEL_MISSED: cmd_label_meaning(u, (enum command)c); break;
	case C_CORPUS: /* ui_corpus_command took these */
	case C_CORPUS_RUN:
	case C_CASE_DELETE:
	case C_MARK:
	case C_MARK_ALL: break;
	case C_LABEL:
		if (strcmp(arg, "true-positive") && strcmp(arg, "false-positive") && strcmp(arg, "unverifiable"))
			ui_message(u, 2, "label: one of true-positive, false-positive, unverifiable");
		else
			cmd_label(u, arg, NULL, 0, -1);
		break;
	case C_NOTE:
		if (!*arg)
			ui_message(u, 2, "note: type the note after the command (:note the replay was right)");
		else
			cmd_label(u, NULL, arg, 0, -1);
		break;
	case C_APPROVE: cmd_resolve(u, 1); break;
	case C_APPLY_INSTEAD: cmd_apply_instead(u, arg); break;
	case C_REFUSE: cmd_resolve(u, 0); break;
	case C_RECOVER: {
		struct cm_turn *t = need_turn(u, "recover");
		if (!t)
			break;
		if (!t->handle) {
			ui_message(u, 1, "turn %d has no restorable pre-state (%s)", t->turn,
				   t->handle_cause ? t->handle_cause : t->prestate);
			break;
		}
		if (!u->in.recover) {
			ui_message(u, 1, "recover is not available here");
			break;
		}
		if (r && r->live) {
			ui_message(u, 1, "the run is still live: recover once it has ended (the agent would fight it)");
			break;
		}
		if (strcmp(arg, "now") != 0) {
			snprintf(u->confirm, sizeof u->confirm, "recover now");
			ui_message(u, 1, "restore %s to turn %d's pre-state? Files changed since are overwritten [y/N]",
				   r && r->scope ? r->scope : "the workspace", t->turn);
			break;
		}
		u->in.recover(u->in.ctx, r, t->turn);
		break;
	}
	case C_HOOK_REARM: {
		if (!r || !r->scope || r->scope[0] != '/') {
			ui_message(u, 1, "hook.rearm: focus a run whose project is known");
			break;
		}
		if (!u->in.rearm) {
			ui_message(u, 1, "hook.rearm is not available here");
			break;
		}
		if (strcmp(arg, "now") != 0) {
			snprintf(u->confirm, sizeof u->confirm, "hook.rearm now");
			ui_message(u, 1, "rearm %s? belay's protected files there are recorded as they are now and its hook "
					 "sessions' calls go on: check them first (belay status) [y/N]",
				   r->scope);
			break;
		}
		u->in.rearm(u->in.ctx, r);
		break;
	}
	case C_JOBS_CANCEL:
		if (!u->in.cancel) {
			ui_message(u, 1, "jobs.cancel: not available here");
			break;
		}
		if (!u->job[0]) {
			ui_message(u, 0, "no job is running");
			break;
		}
		ui_message(u, 1, "cancelling %d job(s): a verify stops within a second; nothing of it is saved",
			   u->in.cancel(u->in.ctx));
		break;
	case C_TRIALS:
		if (!u->tm) {
			ui_message(u, 1, "trials: this console shows none");
			break;
		}
		tmodel_poll(u->tm);
		if (u->view == VIEW_TRIAL)
			pop(u);
		else
			push(u, VIEW_TRIALS);
		break;
	case C_TRIAL_APPLY: cmd_trial(u, 1, arg); break;
	case C_TRIAL_DISCARD: cmd_trial(u, 0, arg); break;
	case C_THEME: {
		struct err e = {0};
		if (!*arg)
			ui_message(u, 2, "theme: name one (dark, light, mono)");
		else if (!u->in.theme || u->in.theme(u->in.ctx, arg, &e) != 0)
			ui_message(u, 2, "theme: %s", e.msg[0] ? e.msg : "cannot switch here");
		else
			ui_message(u, 0, "theme %s", arg);
		break;
	}
	case C_COUNT: break;
	}
}

/*==== keys ====*/

static enum kctx context(const struct ui *u)
{
	switch (u->view) {
	case VIEW_DETAIL: return KCTX_DETAIL;
	case VIEW_HELP: return KCTX_HELP;
	case VIEW_LOG: return KCTX_LOG;
	case VIEW_TRIALS: return KCTX_TRIALS;
	case VIEW_TRIAL: return KCTX_TRIAL;
	case VIEW_CORPUS: return KCTX_CORPUS;
	case VIEW_CASE: return KCTX_CASE;
	default: return u->focus == PANE_RUNS ? KCTX_RUNS : u->focus == PANE_DENIALS ? KCTX_DENIALS : KCTX_TURNS;
	}
}

enum kctx ui_context(const struct ui *u)
{
	return context(u);
}

static void prompt_key(struct ui *u, int key)
{
	if (key == K_ESC || key == K_C('c') || key == K_C('g')) {
		if (u->prompt == '/')
			set_filter(u, filter_before, 1); /* back to the filter before typing */
		else if (u->prompt == UI_PROMPT_SEARCH)
			ui_search_cancel(u);
		u->prompt = 0;
	} else if (key == K_ENTER) {
		char line[sizeof u->pbuf];
		snprintf(line, sizeof line, "%s", u->pbuf);
		int p = u->prompt;
		u->prompt = 0;
		if (p == '/') {
			set_filter(u, line, 0);
		} else if (p == UI_PROMPT_SEARCH) {
			ui_search_enter(u, line);
		} else {
			ui_command(u, line);
		}
	} else if (key == K_BS) {
		while (u->plen && ((unsigned char)u->pbuf[u->plen - 1] & 0xC0) == 0x80)
			u->plen--;
		if (u->plen)
			u->plen--;
		u->pbuf[u->plen] = '\0';
	} else if (key == K_C('r') && u->prompt == UI_PROMPT_SEARCH) {
		ui_search_toggle_regex(u);
	} else if (key == K_C('u')) {
		u->plen = 0;
		u->pbuf[0] = '\0';
	} else if (key == K_SPACE || (key > 0 && key < 0x110000 && !(key < 0x20) && key != 0x7f)) {
		uint32_t cp = key == K_SPACE ? ' ' : (uint32_t)key;
		char enc[4];
		size_t n = canvas_utf8(cp, enc);
		if (u->plen + n < sizeof u->pbuf) {
			memcpy(u->pbuf + u->plen, enc, n);
			u->plen += n;
			u->pbuf[u->plen] = '\0';
		}
	}
	/* The filter follows what is typed (an incomplete expression keeps the last good one). */
	if (u->prompt == '/')
		set_filter(u, u->pbuf, 1);
	else if (u->prompt == UI_PROMPT_SEARCH)
		ui_search_typed(u);
	u->dirty++;
}

static void on_key(struct ui *u, int key);

void ui_key(struct ui *u, int k)
{
	u->in_key = 1;
	on_key(u, k);
	u->in_key = 0;
}

static void on_key(struct ui *u, int key)
{
	u->dirty++;
	if (key == K_RESIZE)
		return;
	if (u->confirm[0]) {
		char cmd[sizeof u->confirm];
		snprintf(cmd, sizeof cmd, "%s", u->confirm);
		u->confirm[0] = '\0';
		if (key == 'y' || key == 'Y') {
			ui_command(u, cmd);
			return;
		}
		ui_message(u, 0, "cancelled");
		/* n, q, Esc, Enter answer no; any other key also does what it does (a second q
		 * pressed too fast, then j, still moves) */
		if (key == 'n' || key == 'N' || key == 'q' || key == K_ESC || key == K_ENTER || key == K_C('c') ||
		    key == K_C('g'))
			return;
	}
	if (u->prompt) {
		prompt_key(u, key);
		return;
	}
	u->msg[0] = '\0'; /* seen */
	u->msg_sticky = 0;
	const struct binding *b = keymap_lookup(u->km, context(u), key);
	if (b && b->cmd != C_COUNT)
		ui_command(u, b->line);
}

/*==== engine events ====*/

/* After a run alert: the last lines the servers wrote to their stderr log (a server that
 * could not start says why there), into the log, each escaped on the way to the screen
 * like every outside string (the canvas draws control characters as U+FFFD). */
static void stderr_tail(struct ui *u)
{
	if (!u->server_log)
		return;
	int fd = open(u->server_log, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
	if (fd < 0)
		return;
	char buf[4096];
	off_t end = lseek(fd, 0, SEEK_END), from = end > (off_t)sizeof buf - 1 ? end - (off_t)sizeof buf + 1 : 0;
	ssize_t n = end > 0 ? pread(fd, buf, sizeof buf - 1, from) : 0;
	close(fd);
	if (n <= 0)
		return;
	buf[n] = '\0';
	/* the last 8 lines (a first partial line dropped) */
	const char *start = buf;
	if (from > 0 && strchr(buf, '\n'))
		start = strchr(buf, '\n') + 1;
	const char *p = buf + n;
	int lines = 0;
	while (p > start && lines < 9)
		if (*--p == '\n')
			lines++;
	if (p > start || *p == '\n')
		p++;
	ui_message(u, 1, "the servers' stderr log (%s) ends with:", u->server_log);
	for (const char *l = p; *l; l += strcspn(l, "\n") + (l[strcspn(l, "\n")] ? 1 : 0))
		if (strcspn(l, "\n"))
			ui_message(u, 1, "  | %.*s", (int)strcspn(l, "\n"), l);
}

static struct cm_run *event_run(struct ui *u, const struct cevent *ev)
{
	return ev->run ? cm_add(u->m, ev->run, ev->trace) : NULL;
}

void ui_event(struct ui *u, const struct cevent *ev)
{
	struct cm_run *r = event_run(u, ev);
	struct err e = {0};
	u->dirty++;
	switch (ev->kind) {
	case CE_RUN_STARTED:
		r->live = 1;
		ui_message(u, 0, "new run %s", ev->run);
		if (u->m->nruns == 1 || u->follow)
			ui_focus_run(u, ev->run);
		break;
	case CE_RUN_COMMITTED: {
		int reload = 0;
		if (u->det_loaded && u->det.run && !strcmp(u->det.run, r->id) && u->det.turn >= 0 &&
		    (size_t)u->det.turn < r->nturns && !cm_turn_at(r, u->det.turn)->final)
			reload = 1;
		if (cm_refresh(u->m, r, &e) != 0)
			ui_message(u, 2, "store: %s", e.msg);
		if (r == ui_run(u))
			cm_read_typed(r); /* its server's start record may be written by now */
		if (reload && cm_turn_at(r, u->det.turn)->final) {
			int turn = u->det.turn;
			detail_free(&u->det);
			detail_load(&u->det, u->m, r, turn);
		}
		break;
	}
	case CE_RUN_ENDED:
		r->live = 0;
		cm_holds_clear(r);
		if (cm_refresh(u->m, r, &e) != 0)
			ui_message(u, 2, "store: %s", e.msg);
		ui_message(u, 0, "run %s ended (server exit %lld)", ev->run, (long long)ev->a);
		break;
	case CE_HOLD: {
		const cJSON *trial = cJSON_GetObjectItemCaseSensitive(ev->json, "trial");
		cm_hold_add(r, (uint64_t)ev->a, ev->b, ev->text, cJSON_GetObjectItemCaseSensitive(ev->json, "plan"), trial);
		if (jx_str(trial, "id"))
			ui_message(u, 1, "HELD: %s waits for you; tried first in a mirror (%s): y lets it run once, A applies "
					 "the trial's effect instead, x refuses",
				   ev->text ? ev->text : "a call", jx_str(trial, "id"));
		else
			ui_message(u, 1, "HELD: %s waits for your approval (y lets it run once, x refuses)",
				   ev->text ? ev->text : "a call");
		if (u->follow && ui_run(u) == r) {
			ui_refilter(u, 1);
			u->pos[PANE_TURNS].sel = u->nvis ? u->nvis - 1 : 0;
		} else if (u->follow && u->view == VIEW_HOME) {
			/* following: the hold is where the action is (an HTTP run's hold comes before
			 * its trace's run does); the y or x pressed on seeing HELD must reach it */
			ui_focus_run(u, r->id);
		}
		break;
	}
	case CE_HOLD_DONE:
		if (ev->b == -2) { /* nothing was tried for it: still held */
			ui_message(u, 2, "that call had no trial: nothing was applied for it; it is still held");
			break;
		}
		cm_hold_drop(r, (uint64_t)ev->a);
		if (ev->b < 0)
			ui_message(u, 1, "that call is no longer held (its run ended, or its time ran out)");
		else
			ui_message(u, 0, "the held call was %s",
				   ev->b == 2 ? "answered: the agent was told its trial's effect was applied instead"
				   : ev->b    ? "approved once"
					      : "refused");
		if (u->view == VIEW_DETAIL && u->det_loaded && u->det.hold == (uint64_t)ev->a)
			pop(u);
		break;
	case CE_VERDICT: {
		long long turn = ev->a;
		cm_apply_verdict(r, (int)turn, ev->json, 1);
		if (u->det_loaded && u->det.run && !strcmp(u->det.run, r->id) && u->det.turn == turn) {
			cJSON_Delete(u->det.verdict);
			u->det.verdict = cJSON_Duplicate(ev->json, 1);
			detail_render_head(&u->det, cm_turn_at(r, turn));
		}
		break;
	}
	case CE_RECHECK: {
		/* Replay-from-here: beside the verdict, never in its place. */
		struct cm_turn *t = ev->a >= 0 && (size_t)ev->a < r->nturns ? cm_turn_at(r, ev->a) : NULL;
		cm_apply_recheck(r, (int)ev->a, ev->json, 1);
		if (t && u->det_loaded && u->det.run && !strcmp(u->det.run, r->id) && u->det.turn == ev->a) {
			cJSON_Delete(u->det.recheck);
			u->det.recheck = cJSON_Duplicate(ev->json, 1);
			detail_render_head(&u->det, t);
		}
		break;
	}
	case CE_VERDICTS:
		if (cm_reload_verdicts(u->m, r, &e) != 0)
			ui_message(u, 2, "store: %s", e.msg);
		if (u->det_loaded && u->det.run && !strcmp(u->det.run, r->id) && u->det.turn >= 0 &&
		    (size_t)u->det.turn < r->nturns) {
			int turn = u->det.turn, tab = (int)u->tab;
			detail_free(&u->det);
			detail_load(&u->det, u->m, r, turn);
			u->tab = (enum dtab)tab;
		}
		break;
	case CE_LABELED: {
		const char *label = jx_str(ev->json, "label");
		struct cm_turn *t = ev->a >= 0 && (size_t)ev->a < r->nturns ? cm_turn_at(r, ev->a) : NULL;
		int miss = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(ev->json, "miss"));
		if (label)
			cm_set_label(r, (int)ev->a, label);
		else if (t && !t->label[0])
			cm_set_label(r, (int)ev->a, "pending");
		if (label && t)
			t->label_miss = miss;
		ui_message(u, 0, "case %s %s%s%s", ev->text ? ev->text : "?", label ? "labelled " : "banked",
			   label ? label : "", miss ? " --miss (missed)" : "");
		if (u->det_loaded && u->det.turn == ev->a && t)
			detail_render_head(&u->det, t);
		if (u->cv)
			ui_corpus_event(u, ev); /* the case list and score follow */
		break;
	}
	case CE_CORPUS: {
		ui_corpus_event(u, ev);
		/* a label or delete by case id: the turns' labels follow */
		for (size_t i = 0; !ev->text && i < u->m->nruns; i++)
			if (u->m->st && cm_reload_labels(u->m, u->m->runs[i], &e) != 0)
				ui_message(u, 2, "store: %s", e.msg);
		break;
	}
	case CE_JOB:
		snprintf(u->job, sizeof u->job, "%s", ev->text ? ev->text : "");
		break;
	case CE_LOG: ui_message(u, (int)ev->a, "%s", ev->text ? ev->text : ""); break;
	case CE_RUN_ALERT: { /* its first line on the message line; every line in the log */
		const char *t = ev->text ? ev->text : "";
		ui_message(u, 2, "run %s: %.*s", ev->run ? ev->run : "?", (int)strcspn(t, "\n"), t);
		for (const char *l = strchr(t, '\n'); l && l[1]; l = strchr(l + 1, '\n'))
			ui_message(u, 1, "  %.*s", (int)strcspn(l + 1, "\n"), l + 1);
		stderr_tail(u);
		break;
	}
	case CE_TRIAL: {
		/* a refusal names its conflicts; a failure says what it knows; both in red */
		if (!instead_done(u, ev))
			ui_message(u, ev->a ? 2 : 0, "%s", ev->text ? ev->text : "trial: ?");
		if (u->tm && tmodel_poll(u->tm))
			ui_trials_changed(u);
		break;
	}
	case CE_KINDS: /* not an event */
		break;
	}
}
