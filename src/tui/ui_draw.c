/* ui_draw.c - the home screen: layout, title bar, runs, turns and denials panes, the
 * focused turn's summary line, status line, prompt line and key hints; the "too small"
 * screen. The detail, help and log views are drawn by ui_views.c. See ui.h.
 *
 * Must not: call curses, query the store, read the clock. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tui/glyphs.h"
#include "tui/look.h"
#include "tui/runv.h"
#include "tui/ui_corpus.h"
#include "tui/ui_internal.h"

void ui_draw_detail(struct ui *u, struct canvas *c, int y, int h);
void ui_draw_doc(struct ui *u, struct canvas *c, int y, int h, const char *title);

struct layout {
	int runs_y, runs_rows;
	int turns_y, turns_rows;
	int focus_y;
	int runv_y; /* the run-level verdicts' line (-1: the run has none) */
	int den_y, den_rows;
	int status_y, prompt_y, hints_y;
};

static void layout(const struct ui *u, struct layout *L)
{
	int h = u->h;
	size_t nruns = u->m->nruns;
	int maxruns = h >= 36 ? 5 : 3, maxden = h >= 36 ? 5 : 3;
	L->runs_rows = nruns < 1 ? 1 : nruns > (size_t)maxruns ? maxruns : (int)nruns;
	L->den_rows = maxden;
	L->runs_y = 1;
	L->turns_y = L->runs_y + 1 + L->runs_rows;
	L->hints_y = h - 1;
	L->prompt_y = h - 2;
	L->status_y = h - 3;
	L->den_y = L->status_y - 1 - L->den_rows;
	L->focus_y = L->den_y - 1;
	/* the run's own verdicts (claim, census), when it has any: a line above the focused turn's */
	const struct cm_run *r = ui_run((struct ui *)u);
	L->runv_y = r && r->runv && r->runv->child ? L->focus_y - 1 : -1;
	L->turns_rows = (L->runv_y >= 0 ? L->runv_y : L->focus_y) - (L->turns_y + 1);
}

int ui_home_pane_at(const struct ui *u, int y, enum pane *p, int *row)
{
	struct layout L;
	layout(u, &L);
	const int ys[PANE_COUNT] = {L.runs_y, L.turns_y, L.den_y}, rows[PANE_COUNT] = {L.runs_rows, L.turns_rows, L.den_rows};
	for (int i = 0; i < PANE_COUNT; i++)
		if (y >= ys[i] && y <= ys[i] + rows[i]) {
			*p = (enum pane)i;
			*row = y - ys[i] - 1;
			return 1;
		}
	return 0;
}

int ui_pane_rows(const struct ui *u, enum pane p)
{
	struct layout L;
	layout(u, &L);
	return p == PANE_RUNS ? L.runs_rows : p == PANE_TURNS ? L.turns_rows : L.den_rows;
}

/* Keeps the selection inside the window of `rows` rows. */
static void scroll(struct list_pos *p, size_t n, int rows)
{
	if (p->sel >= n)
		p->sel = n ? n - 1 : 0;
	if (p->sel < p->top)
		p->top = p->sel;
	if (rows > 0 && p->sel >= p->top + (size_t)rows)
		p->top = p->sel - (size_t)rows + 1;
	if (n <= (size_t)rows)
		p->top = 0;
}

static void fmt_latency(int64_t us, char *out, size_t n)
{
	if (us < 0)
		snprintf(out, n, "-");
	else if (us < 1000)
		snprintf(out, n, "%.2fms", (double)us / 1000.0);
	else if (us < 1000000)
		snprintf(out, n, "%.0fms", (double)us / 1000.0);
	else
		snprintf(out, n, "%.1fs", (double)us / 1e6);
}

/* "18:49:48" from "2026-11-29T18:49:48.123456+00:00". */
static void hhmmss(const char *iso, char *out, size_t n)
{
	snprintf(out, n, "%.8s", iso && strlen(iso) >= 19 ? iso + 11 : "");
}

void ui_more_mark(char *out, size_t n, size_t top, size_t shown, size_t total)
{
	if (total <= shown || !shown) {
		if (n)
			out[0] = '\0';
		return;
	}
	if (top > total - shown)
		top = total - shown;
	snprintf(out, n, "  %s%s rows %zu-%zu of %zu", top ? glyph(G_UP) : "", top + shown < total ? glyph(G_DOWN) : "",
		 top + 1, top + shown, total);
}

static void header_row(struct canvas *c, int y, int w, const char *title, int focused)
{
	canvas_fill(c, y, 0, 1, w, ' ', ROLE_HEADER);
	canvas_text(c, y, 0, w, focused ? ROLE_TITLE : ROLE_HEADER, title);
}

/*==== title ====*/

/* The server command and where it runs (scope, network) share the bar; when both do not
 * fit, neither is cut at its end: each keeps its start and its end (the command's last
 * argument, the scope's last directory, the network policy). Where it runs goes first: it
 * stays whole while it takes at most two thirds of the room. */
static void draw_title(struct ui *u, struct canvas *c)
{
	canvas_fill(c, 0, 0, 1, u->w, ' ', ROLE_TITLE);
	int x = canvas_text(c, 0, 0, u->w, ROLE_TITLE, " belay console ");
	struct cm_run *r = ui_run(u);
	if (!r)
		return;
	x += canvas_text(c, 0, x, u->w - x, ROLE_TITLE, glyph(G_VLINE));
	x += canvas_text(c, 0, x, u->w - x, ROLE_TITLE, " ");
	char where[600];
	snprintf(where, sizeof where, "  %s%s%s%s%s", r->scope ? "scope " : "uncontained", r->scope ? r->scope : "",
		 r->network ? " net " : "", r->network ? r->network : "", u->enforce ? "  gate enforce" : "");
	/* the command as typed (npx ...), not the path belay resolved it to */
	const char *server = r->typed ? r->typed : r->server ? r->server : "(server not known yet)";
	int room = u->w - x - 1, sw = canvas_width(server), ww = canvas_width(where);
	if (sw + ww > room) {
		if (ww <= 2 * room / 3)
			sw = room - ww;
		else if (sw <= room / 3)
			ww = room - sw;
		else
			ww = 2 * room / 3, sw = room - ww;
	}
	x += canvas_text_mid(c, 0, x, sw, ROLE_TITLE, server);
	canvas_text_mid(c, 0, x, ww, ROLE_TITLE, where);
}

/*==== runs ====*/

static void run_counts(const struct cm_run *r, char *out, size_t n)
{
	snprintf(out, n, "%s%zu %s%zu %s%zu %s%zu %s%zu", glyph(G_PASS), r->counts[CMV_PASS + 1], glyph(G_WARN),
		 r->counts[CMV_WARN + 1], glyph(G_UNVERIFIED), r->counts[CMV_UNVERIFIED + 1], glyph(G_FAIL),
		 r->counts[CMV_FAIL + 1], glyph(G_PENDING), r->counts[0]);
}

static void draw_runs(struct ui *u, struct canvas *c, const struct layout *L)
{
	char t[128];
	if (u->m->health_checks)
		snprintf(t, sizeof t, " RUNS (%zu; %u health check%s hidden)", u->m->nruns, u->m->health_checks,
			 u->m->health_checks == 1 ? "" : "s");
	else
		snprintf(t, sizeof t, " RUNS (%zu)", u->m->nruns);
	struct list_pos *p = &u->pos[PANE_RUNS];
	scroll(p, u->m->nruns, L->runs_rows);
	size_t tl = strlen(t);
	ui_more_mark(t + tl, sizeof t - tl, p->top, (size_t)L->runs_rows, u->m->nruns);
	header_row(c, L->runs_y, u->w, t, u->focus == PANE_RUNS);
	if (!u->m->nruns) {
		canvas_text(c, L->runs_y + 1, 2, u->w - 2, ROLE_DIM,
			    u->socket_path ? "no run yet: connect an agent (the prompt line says how)" : "no run");
		return;
	}
	int idw = 0; /* as wide as the widest id, so the counts and the live mark have room */
	for (size_t k = 0; k < u->m->nruns; k++) {
		int n = canvas_width(u->m->runs[k]->id);
		idw = n > idw ? n : idw;
	}
	idw = idw > 34 ? 34 : idw;
	for (int i = 0; i < L->runs_rows; i++) {
		size_t k = p->top + (size_t)i;
		if (k >= u->m->nruns)
			break;
		const struct cm_run *r = u->m->runs[k];
		int y = L->runs_y + 1 + i, x = 0;
		int cur = k == u->run;
		x += canvas_text(c, y, x, 2, ROLE_NORMAL, cur ? glyph(G_FOCUS) : " ");
		x += 1;
		x += canvas_text_fit(c, y, x, idw, cur ? ROLE_TITLE : ROLE_NORMAL, r->id, 1) + 1;
		char tm[16];
		hhmmss(r->started, tm, sizeof tm);
		x += canvas_text_fit(c, y, x, 9, ROLE_DIM, tm, 1);
		char cnt[128];
		snprintf(cnt, sizeof cnt, "%4zu turns ", r->nturns);
		x += canvas_text(c, y, x, u->w - x, ROLE_NORMAL, cnt);
		run_counts(r, cnt, sizeof cnt);
		x += canvas_text(c, y, x, u->w - x, ROLE_DIM, cnt) + 1;
		if (r->denial_count) {
			snprintf(cnt, sizeof cnt, "%s%lld ", glyph(G_DENIAL), (long long)r->denial_count);
			x += canvas_text(c, y, x, u->w - x, ROLE_DENIAL, cnt);
		}
		if (r->live)
			snprintf(cnt, sizeof cnt, "%s live", glyph(G_MARK));
		else if (r->has_exit)
			snprintf(cnt, sizeof cnt, "exit %d", r->exit_status);
		else if (r->exit_signal[0])
			snprintf(cnt, sizeof cnt, "%s", r->exit_signal);
		else
			snprintf(cnt, sizeof cnt, "%s", r->ended[0] ? "ended" : "no end recorded");
		canvas_text_fit(c, y, x, u->w - x, r->live ? ROLE_V_PASS : ROLE_DIM, cnt, 0);
		if (u->focus == PANE_RUNS && k == p->sel)
			canvas_set_role(c, y, 0, u->w, ROLE_SELECTED);
	}
}

/*==== turns ====*/

struct tcols {
	int num, time, tool, args, lat, gate, pre, a1, a2, verdict, cause, den;
};

/* The widest tool name and cause of the run's turns and held calls (columns are sized to
 * what they hold, not to a guess). Recomputed when the run changes: tool names (which never
 * change) only for turns appended since, causes (ASCII names) for every turn. */
static void natural_widths(struct ui *u, const struct cm_run *r, int *tool, int *cause)
{
	if (!r) {
		*tool = 4, *cause = 0;
		return;
	}
	if (u->colw_run != u->run || !u->colw_valid || u->colw_scanned > r->nturns)
		u->colw_run = u->run, u->colw_valid = 1, u->colw_scanned = 0, u->colw_turn_tool = 0, u->colw_gen = r->gen - 1;
	if (u->colw_gen != r->gen) {
		for (size_t i = u->colw_scanned; i < r->nturns; i++) {
			const struct cm_turn *t = cm_turn_at(r, i);
			int n = canvas_width(t->tool ? t->tool : "?");
			u->colw_turn_tool = n > u->colw_turn_tool ? n : u->colw_turn_tool;
		}
		u->colw_scanned = r->nturns;
		int tw = u->colw_turn_tool, cw = 0;
		for (size_t i = 0; i < r->nholds; i++) {
			int n = canvas_width(r->holds[i].tool ? r->holds[i].tool : "?");
			tw = n > tw ? n : tw;
		}
		for (size_t i = 0; i < r->nturns; i++) {
			int n = (int)strlen(cm_turn_at(r, i)->cause);
			cw = n > cw ? n : cw;
		}
		u->colw_tool = tw, u->colw_cause = cw, u->colw_gen = r->gen;
	}
	*tool = u->colw_tool;
	*cause = u->colw_cause;
}

/* Adds `want` columns to *col when they fit in what is left of avail. */
static int take(int *used, int avail, int *col, int want)
{
	if (*used + want > avail)
		return 0;
	*col += want;
	*used += want;
	return 1;
}

/* Lays the turn columns out by priority (each width counts its one-column gap): the turn
 * number, the verdict, the gate decision, the denial count and the A1/A2 glyphs always; then
 * the whole tool name, then arguments enough to read, then the whole verdict cause (never a
 * cut one: narrower screens name it on the focus line), then latency, the A1/A2 words,
 * pre-state and time as room allows; arguments take what is left. */
static void columns(struct ui *u, const struct cm_run *r, struct tcols *k)
{
	enum { TOOL_MIN = 12, TOOL_MAX = 40, ARGS_MIN = 12, ARGS_READ = 20, CAUSE_MAX = 40 };
	int tool_nat, cause_nat;
	natural_widths(u, r, &tool_nat, &cause_nat);
	tool_nat = (tool_nat > TOOL_MAX ? TOOL_MAX : tool_nat) + 1;
	cause_nat = cause_nat ? (cause_nat > CAUSE_MAX ? CAUSE_MAX : cause_nat) + 1 : 0;
	memset(k, 0, sizeof *k);
	int avail = u->w - 3; /* the focus mark (2) and the right margin */
	k->num = 5;
	k->verdict = 14; /* "? UNVERIFIED*" */
	k->gate = 9;
	k->den = 4;
	k->a1 = k->a2 = 3; /* the glyph */
	k->tool = tool_nat < TOOL_MIN ? tool_nat : TOOL_MIN;
	k->args = ARGS_MIN;
	int used = k->num + k->verdict + k->gate + k->den + k->a1 + k->a2 + k->tool + k->args;
	if (!take(&used, avail, &k->tool, tool_nat - k->tool))
		take(&used, avail, &k->tool, avail - used > 0 ? avail - used : 0);
	take(&used, avail, &k->args, ARGS_READ - ARGS_MIN);
	take(&used, avail, &k->cause, cause_nat);
	take(&used, avail, &k->lat, 8);
	if (used + 6 <= avail)
		k->a1 += 3, k->a2 += 3, used += 6;
	take(&used, avail, &k->pre, 7);
	take(&used, avail, &k->time, 9);
	if (avail > used)
		k->args += avail - used;
}

static int cell(struct canvas *c, int y, int x, int w, enum role r, const char *s)
{
	if (w <= 0)
		return x;
	canvas_text_fit(c, y, x, w - 1, r, s, 1);
	return x + w;
}

static int axis_cell(struct canvas *c, int y, int x, int w, enum cm_v v, int verifying)
{
	char s[32];
	if (v == CMV_NONE && verifying) {
		snprintf(s, sizeof s, "%s", glyph(G_VERIFYING));
		return cell(c, y, x, w, ROLE_V_PENDING, s);
	}
	snprintf(s, sizeof s, "%s%s", look_v_glyph(v), v == CMV_NONE || w < 6 ? "" : look_v_short(v));
	return cell(c, y, x, w, look_v_role(v), s);
}

static void turn_row(struct ui *u, struct canvas *c, int y, const struct tcols *k, const struct cm_run *r,
		     const struct cm_turn *t, int sel)
{
	int x = 0;
	canvas_text(c, y, 0, 2, ROLE_NORMAL, sel ? glyph(G_FOCUS) : " ");
	if (t->marked) /* marked for a bulk action */
		canvas_text(c, y, 1, 1, ROLE_LABEL, glyph(G_MARK));
	x = 2;
	char s[64];
	snprintf(s, sizeof s, "%4d", t->turn);
	canvas_text(c, y, x, 4, t->error ? ROLE_CALL_ERROR : ROLE_DIM, s);
	canvas_text(c, y, x + 4, 1, ROLE_LABEL, look_label_letter(t->label, t->label_miss));
	x += k->num;
	if (k->time) {
		hhmmss(t->t_req, s, sizeof s);
		x = cell(c, y, x, k->time, ROLE_DIM, s);
	}
	/* A call that failed (a tool error or a JSON-RPC error) has its own look: number, tool
	 * and arguments in the error role, "error" where the latency would be. */
	x = cell(c, y, x, k->tool, t->error ? ROLE_CALL_ERROR : ROLE_NORMAL, t->tool ? t->tool : "?");
	x = cell(c, y, x, k->args, t->error ? ROLE_CALL_ERROR : ROLE_DIM, t->args ? t->args : "");
	if (t->call == CMC_PENDING)
		x = cell(c, y, x, k->lat, ROLE_CALL_PENDING, look_call_word(r, t));
	else if (t->call == CMC_CANCELLED && t->resp_seq < 0)
		x = cell(c, y, x, k->lat, ROLE_CALL_PENDING, "cancel");
	else if (t->error)
		x = cell(c, y, x, k->lat, ROLE_CALL_ERROR, "error");
	else {
		fmt_latency(t->latency_us, s, sizeof s);
		x = cell(c, y, x, k->lat, ROLE_NORMAL, s);
	}
	x = cell(c, y, x, k->gate, look_gate_role(t), look_gate_word(t));
	const char *pre = look_pre_word(t);
	x = cell(c, y, x, k->pre, t->handle ? ROLE_DIM : t->prestate[0] && strcmp(t->prestate, "absent") ? ROLE_V_WARN : ROLE_DIM,
		 pre);
	int vx = x;
	x = axis_cell(c, y, x, k->a1, t->a1, t->verifying);
	x = axis_cell(c, y, x, k->a2, t->a2, t->verifying);
	if (t->v == CMV_NONE)
		snprintf(s, sizeof s, "%s", t->verifying ? glyph(G_VERIFYING) : glyph(G_PENDING));
	else
		snprintf(s, sizeof s, "%s %s%s", look_v_glyph(t->v), look_v_word(t->v), t->provisional ? "*" : "");
	int vcell = x;
	x = cell(c, y, x, k->verdict, t->v == CMV_NONE ? ROLE_V_PENDING : look_v_role(t->v), s);
	/* A partial re-check (replay-from-here): a mark beside the verdict in the re-check's own
	 * look, after the verdict where it fits, else before the cause (the focus line and the
	 * detail always say it in words). */
	int rc_used = canvas_width(s) + 1, rc_in_cause = 0;
	if (t->rc != CMV_NONE && rc_used + 2 <= k->verdict - 1) {
		canvas_text(c, y, vcell + rc_used, 1, ROLE_DIM, glyph(G_RECHECK));
		canvas_text(c, y, vcell + rc_used + 1, 1, look_v_role(t->rc), look_v_glyph(t->rc));
	} else if (t->rc != CMV_NONE && k->cause) {
		canvas_text(c, y, x, 1, ROLE_DIM, glyph(G_RECHECK));
		canvas_text(c, y, x + 1, 1, look_v_role(t->rc), look_v_glyph(t->rc));
		rc_in_cause = 3;
	}
	if (k->cause) {
		canvas_text_fit(c, y, x + rc_in_cause, k->cause - 1 - rc_in_cause, look_v_role(t->v), t->cause, 1);
		x += k->cause;
	}
	int vend = x;
	if (t->denials) {
		snprintf(s, sizeof s, "%s%d", glyph(G_DENIAL), t->denials);
		cell(c, y, x, k->den, ROLE_DENIAL, s);
	}
	if (sel) {
		/* The focus colours the row, but never the verdict cells: they keep their look. */
		canvas_set_role(c, y, 0, vx, ROLE_SELECTED);
		canvas_set_role(c, y, vend, u->w - vend, ROLE_SELECTED);
	}
}

static void hold_row(struct ui *u, struct canvas *c, int y, const struct tcols *k, const struct cm_hold *h, int sel)
{
	canvas_text(c, y, 0, 2, ROLE_NORMAL, sel ? glyph(G_FOCUS) : " ");
	int x = 2;
	char s[64];
	snprintf(s, sizeof s, "   %s", glyph(G_HELD));
	canvas_text(c, y, x, k->num, ROLE_GATE_HELD, s);
	x += k->num + k->time;
	x = cell(c, y, x, k->tool, ROLE_GATE_HELD, h->tool ? h->tool : "?");
	x = cell(c, y, x, k->args, ROLE_DIM, h->args ? h->args : "(arguments not known)");
	x = cell(c, y, x, k->lat, ROLE_CALL_PENDING, "held");
	x = cell(c, y, x, k->gate, ROLE_GATE_HELD, "HELD");
	canvas_text(c, y, x, u->w - x, ROLE_GATE_HELD, "y approves once, x refuses");
	if (sel)
		canvas_set_role(c, y, 0, u->w, ROLE_SELECTED);
}

static void draw_turns(struct ui *u, struct canvas *c, const struct layout *L)
{
	struct cm_run *r = ui_run(u);
	ui_refilter(u, 0);
	struct tcols k;
	columns(u, r, &k);
	char t[640];
	if (u->flt) {
		size_t nt = u->nvis; /* held calls the store does not have yet are rows, not turns */
		while (r && nt && u->vis[nt - 1] >= r->nturns)
			nt--;
		snprintf(t, sizeof t, " TURNS %zu of %zu  filter: %s", nt, r ? r->nturns : 0, u->filter_text);
	} else
		snprintf(t, sizeof t, " TURNS (%zu)", r ? r->nturns : 0);
	if (u->sort) {
		size_t tl0 = strlen(t);
		snprintf(t + tl0, sizeof t - tl0, " by %s", ui_sort_name(u->sort));
	}
	struct list_pos *p = &u->pos[PANE_TURNS];
	scroll(p, u->nvis, L->turns_rows);
	size_t tl = strlen(t);
	ui_more_mark(t + tl, sizeof t - tl, p->top, (size_t)L->turns_rows, u->nvis);
	header_row(c, L->turns_y, u->w, t, u->focus == PANE_TURNS);
	/* Column titles share the header row, right of the pane title. */
	int x = 2 + k.num + k.time + k.tool + k.args;
	if (x > canvas_width(t) + 1) {
		static const char *titles[] = {"latency", "gate", "pre", "A1", "A2", "verdict", "cause", ""};
		int widths[] = {k.lat, k.gate, k.pre, k.a1, k.a2, k.verdict, k.cause, k.den};
		for (int i = 0; i < 8; i++) {
			if (widths[i])
				canvas_text(c, L->turns_y, x, widths[i] - 1, ROLE_HEADER, titles[i]);
			x += widths[i];
		}
	}
	if (!r || !u->nvis) {
		canvas_text(c, L->turns_y + 1, 2, u->w - 2, ROLE_DIM,
			    !r ? "" : u->flt ? "no turn matches the filter (Esc clears it)" : "no tools/call yet");
		return;
	}
	for (int i = 0; i < L->turns_rows; i++) {
		size_t v = p->top + (size_t)i;
		if (v >= u->nvis)
			break;
		size_t idx = u->vis[v];
		int sel = u->focus == PANE_TURNS && v == p->sel;
		if (idx < r->nturns)
			turn_row(u, c, L->turns_y + 1 + i, &k, r, cm_turn_at(r, idx), sel);
		else
			hold_row(u, c, L->turns_y + 1 + i, &k, &r->holds[idx - r->nturns], sel);
	}
}

/* One line about the focused turn: its verdict with the cause, so a narrow screen still
 * says why a turn is UNVERIFIED. */
static void draw_focus_line(struct ui *u, struct canvas *c, int y)
{
	const struct cm_hold *h = NULL;
	struct cm_turn *t = ui_focused(u, &h);
	const struct cm_run *r = ui_run(u);
	for (size_t i = 0; !h && t && t->hold && r && i < r->nholds; i++) /* a held call the store has */
		if (r->holds[i].id == t->hold)
			h = &r->holds[i];
	char s[700];
	if (h) {
		snprintf(s, sizeof s, " %s HELD %s: y approves once, x refuses, Enter shows its arguments", glyph(G_HELD),
			 h->tool ? h->tool : "");
		canvas_text_fit(c, y, 0, u->w, ROLE_GATE_HELD, s, 1);
		return;
	}
	if (!t) {
		canvas_fill(c, y, 0, 1, u->w, ' ', ROLE_NORMAL);
		return;
	}
	int x = 0;
	snprintf(s, sizeof s, " turn %d %s: ", t->turn, t->tool ? t->tool : "?");
	x += canvas_text(c, y, x, u->w - x, ROLE_NORMAL, s);
	if (t->v == CMV_NONE) {
		x += canvas_text(c, y, x, u->w - x, ROLE_V_PENDING,
				 t->verifying ? "verifying..." : "not verified (v verifies it, Enter opens it)");
	} else {
		snprintf(s, sizeof s, "%s %s%s%s", look_v_glyph(t->v), look_v_word(t->v), t->cause[0] ? " " : "", t->cause);
		x += canvas_text_fit(c, y, x, u->w - x, look_v_role(t->v), s, 0);
		/* Each axis whole or not at all (the verdict above already names the worst). */
		snprintf(s, sizeof s, "  A1 %s%s%s%s", look_v_word(t->a1), t->a1_cause[0] ? " " : "", t->a1_cause,
			 t->a1_nc ? " (+not covered)" : "");
		if (canvas_width(s) <= u->w - x)
			x += canvas_text(c, y, x, u->w - x, look_v_role(t->a1), s);
		snprintf(s, sizeof s, "  A2 %s%s%s%s", look_v_word(t->a2), t->a2_cause[0] ? " " : "", t->a2_cause,
			 t->a2_nc ? " (+not covered)" : "");
		if (canvas_width(s) <= u->w - x)
			x += canvas_text(c, y, x, u->w - x, look_v_role(t->a2), s);
	}
	if (t->rc != CMV_NONE) {
		/* A partial re-check beside the verdict, never in its place; whole or not at all. */
		char lab[64];
		snprintf(lab, sizeof lab, "  re-check %s ", glyph(G_RECHECK));
		snprintf(s, sizeof s, "%s %s%s%s", look_v_glyph(t->rc), look_v_word(t->rc), t->rc_cause[0] ? " " : "",
			 t->rc_cause);
		if (canvas_width(lab) + canvas_width(s) <= u->w - x) {
			x += canvas_text(c, y, x, u->w - x, ROLE_DIM, lab);
			x += canvas_text(c, y, x, u->w - x, look_v_role(t->rc), s);
		}
	}
	if (t->denials) {
		snprintf(s, sizeof s, "  %s %d denied", glyph(G_DENIAL), t->denials);
		if (canvas_width(s) <= u->w - x)
			x += canvas_text(c, y, x, u->w - x, ROLE_DENIAL, s);
	}
	if (t->error && x + 3 < u->w)
		canvas_text_fit(c, y, x + 2, u->w - x - 2, ROLE_CALL_ERROR, t->error, 0);
}

/* One line about the run as a whole: its success claim and its census, each whole or not
 * at all after the first. */
static void draw_runv_line(struct ui *u, struct canvas *c, int y)
{
	struct runv_item it[2];
	size_t n = runv_items(ui_run(u)->runv, it, 2);
	int x = canvas_text(c, y, 0, u->w, ROLE_NORMAL, " run: ");
	for (size_t i = 0; i < n; i++) {
		char lab[32];
		snprintf(lab, sizeof lab, "%s%s ", i ? "  " : "", it[i].what);
		if (i && canvas_width(lab) + canvas_width(it[i].text) > u->w - x)
			break;
		x += canvas_text(c, y, x, u->w - x, ROLE_DIM, lab);
		x += canvas_text_fit(c, y, x, u->w - x, look_v_role(it[i].v), it[i].text, 0);
	}
	if (x < u->w)
		canvas_fill(c, y, x, 1, u->w - x, ' ', ROLE_NORMAL);
}

/*==== denials ====*/

static void draw_denials(struct ui *u, struct canvas *c, const struct layout *L)
{
	struct cm_run *r = ui_run(u);
	char t[128];
	snprintf(t, sizeof t, " DENIALS (%zu)", r ? r->ndenials : 0);
	if (!r) {
		header_row(c, L->den_y, u->w, t, u->focus == PANE_DENIALS);
		return;
	}
	struct list_pos *p = &u->pos[PANE_DENIALS];
	/* Without focus the pane shows the newest denials. */
	if (u->focus != PANE_DENIALS && r->ndenials)
		p->sel = r->ndenials - 1;
	scroll(p, r->ndenials, L->den_rows);
	size_t tl = strlen(t);
	ui_more_mark(t + tl, sizeof t - tl, p->top, (size_t)L->den_rows, r->ndenials);
	header_row(c, L->den_y, u->w, t, u->focus == PANE_DENIALS);
	if (!r->ndenials) {
		canvas_text(c, L->den_y + 1, 2, u->w - 2, ROLE_DIM,
			    r->scope ? "none: the sandbox has refused nothing so far" : "the server is not contained (no --scope)");
		return;
	}
	for (int i = 0; i < L->den_rows; i++) {
		size_t k = p->top + (size_t)i;
		if (k >= r->ndenials)
			break;
		const struct cm_denial *d = &r->denials[k];
		int y = L->den_y + 1 + i, x = 0;
		int den = !strcmp(d->kind, "denial");
		char s[400];
		x += canvas_text(c, y, x, 2, ROLE_NORMAL, u->focus == PANE_DENIALS && k == p->sel ? glyph(G_FOCUS) : " ");
		snprintf(s, sizeof s, "%s %-9s", den ? glyph(G_DENIAL) : glyph(G_C2S), den ? (d->err ? d->err : "") : "net");
		x = cell(c, y, x, 12, den ? ROLE_DENIAL : ROLE_DIM, s);
		x = cell(c, y, x, 16, ROLE_NORMAL, d->op ? d->op : "?");
		snprintf(s, sizeof s, "turn %d", d->turn);
		int tw = 9, cw = 14;
		x = cell(c, y, x, u->w - x - tw - cw, ROLE_NORMAL, d->target ? d->target : "");
		x = cell(c, y, x, tw, ROLE_DIM, d->turn >= 0 ? s : "no call");
		snprintf(s, sizeof s, "(%s)", d->comm ? d->comm : "?");
		cell(c, y, x, cw, ROLE_DIM, s);
		if (u->focus == PANE_DENIALS && k == p->sel)
			canvas_set_role(c, y, 0, u->w, ROLE_SELECTED);
	}
}

/*==== bottom lines ====*/

static const char *hint_key(const char *k);

/* The errors logged since the log view was last open, and the key that opens it; the
 * columns used. */
static int unseen_errors(struct ui *u, struct canvas *c, int y, int x)
{
	if (!u->errors_unseen)
		return 0;
	char keys[64], s[128];
	keymap_keys_for(u->km, KCTX_GLOBAL, "log", keys, sizeof keys);
	keys[strcspn(keys, ",")] = '\0';
	snprintf(s, sizeof s, "  %u error%s (%s)", u->errors_unseen, u->errors_unseen == 1 ? "" : "s",
		 keys[0] ? hint_key(keys) : ":log");
	return canvas_text(c, y, x, u->w - x, ROLE_ERROR, s);
}

static void draw_status(struct ui *u, struct canvas *c, int y)
{
	canvas_fill(c, y, 0, 1, u->w, ' ', ROLE_STATUS);
	struct cm_run *r = ui_run(u);
	char s[600];
	int x = 1;
	if (r) {
		size_t idx = u->run < u->m->nruns ? u->run + 1 : u->m->nruns;
		snprintf(s, sizeof s, "run %zu/%zu%s", idx, u->m->nruns, r->live ? " live" : "");
		x += canvas_text(c, y, x, u->w - x, ROLE_STATUS_KEY, s);
		x += unseen_errors(u, c, y, x);
		/* Each verdict counted on its own; UNVERIFIED is never folded into PASS. */
		snprintf(s, sizeof s, "  %zu turns: ", r->nturns);
		x += canvas_text(c, y, x, u->w - x, ROLE_STATUS, s);
		static const enum cm_v order[] = {CMV_PASS, CMV_WARN, CMV_UNVERIFIED, CMV_FAIL};
		for (int i = 0; i < 4; i++) {
			snprintf(s, sizeof s, "%s%zu ", look_v_glyph(order[i]), r->counts[order[i] + 1]);
			x += canvas_text(c, y, x, u->w - x, look_v_role(order[i]), s);
		}
		snprintf(s, sizeof s, "%s%zu to verify", glyph(G_PENDING), r->counts[0]);
		x += canvas_text(c, y, x, u->w - x, ROLE_STATUS, s);
		if (r->denial_count) {
			snprintf(s, sizeof s, "  %s%lld denied", glyph(G_DENIAL), (long long)r->denial_count);
			x += canvas_text(c, y, x, u->w - x, ROLE_DENIAL, s);
		}
		if (r->nholds) {
			snprintf(s, sizeof s, "  %s%zu held", glyph(G_HELD), r->nholds);
			x += canvas_text(c, y, x, u->w - x, ROLE_GATE_HELD, s);
		}
	} else {
		x += canvas_text(c, y, x, u->w - x, ROLE_STATUS, "no run");
		x += unseen_errors(u, c, y, x);
	}

	char right[64];
	snprintf(right, sizeof right, "%s%s ", u->follow ? "follow " : "", u->follow_dir ? "[following dir]" : "");
	char found[128]; /* a search in this view: it and its count ("/item-30 3/11") instead */
	int searching = ui_search_bar(u, found, sizeof found);
	if (canvas_width(searching ? found : right) < u->w - x) /* whole, and apart from the counts, or not at all */
		canvas_text_right(c, y, x, u->w - x, searching ? ROLE_STATUS_KEY : ROLE_STATUS, searching ? found : right);
}

static void draw_prompt(struct ui *u, struct canvas *c, int y)
{
	canvas_fill(c, y, 0, 1, u->w, ' ', ROLE_NORMAL);
	if (u->prompt) {
		char p[2] = {(char)u->prompt, 0};
		const char *label = u->prompt == UI_PROMPT_SEARCH ? ui_search_prompt_label(u) : p;
		int x = canvas_text(c, y, 0, 4, ROLE_PROMPT, label);
		x += canvas_text(c, y, x, u->w - x - 1, ROLE_PROMPT, u->pbuf);
		canvas_fill(c, y, x, 1, 1, ' ', ROLE_SELECTED); /* the cursor */
		return;
	}
	if (u->msg[0]) {
		/* A message too long for its line continues on the hints line below (broken
		 * between words), so a question keeps its [y/N]; longer still, it says where the
		 * whole of it is. */
		enum role r = u->msg_level >= 2 ? ROLE_ERROR : u->msg_level == 1 ? ROLE_V_WARN : ROLE_MESSAGE;
		int w = u->w - 1;
		if (canvas_width(u->msg) <= w) {
			canvas_text(c, y, 1, w, r, u->msg);
			return;
		}
		size_t len = strlen(u->msg), cut = 0, brk = 0;
		while (cut < len) { /* the longest prefix that fits, ending at a blank if it can */
			size_t next = cut + 1;
			while (next < len && ((unsigned char)u->msg[next] & 0xC0) == 0x80)
				next++;
			char save[512];
			snprintf(save, sizeof save, "%.*s", (int)next, u->msg);
			if (canvas_width(save) > w)
				break;
			cut = next;
			if (u->msg[cut] == ' ')
				brk = cut;
		}
		if (brk > len / 4)
			cut = brk;
		canvas_textn(c, y, 1, w, r, u->msg, cut);
		const char *rest = u->msg + cut + (u->msg[cut] == ' ');
		canvas_fill(c, y + 1, 0, 1, u->w, ' ', ROLE_NORMAL);
		if (canvas_width(rest) <= w) {
			canvas_text(c, y + 1, 1, w, r, rest);
			return;
		}
		char tail[64];
		keymap_keys_for(u->km, KCTX_GLOBAL, "log", tail, sizeof tail);
		char say[96];
		snprintf(say, sizeof say, " (%s shows it whole)", tail[0] ? tail : ":log");
		int sw = canvas_width(say);
		canvas_text_fit(c, y + 1, 1, w - sw, r, rest, 0);
		canvas_text(c, y + 1, u->w - sw, sw, ROLE_DIM, say);
		return;
	}
	char s[800];
	if (u->http_url && u->socket_path) /* belay console --http URL: agents over HTTP first */
		snprintf(s, sizeof s, "agents over HTTP use %s   stdio agents: belay connect %s", u->http_url,
			 u->socket_path);
	else if (u->socket_path)
		snprintf(s, sizeof s, "agents connect with: belay connect %s   (:snippet shows the MCP config)", u->socket_path);
	else
		snprintf(s, sizeof s, "browsing recorded runs (no agent can connect to this console)");
	canvas_text_fit(c, y, 1, u->w - 1, ROLE_DIM, s, 0);
}

struct hint {
	const char *line, *label;
};

/* "<enter>" reads as "Enter" in a hint; other key names stay as the keymap writes them. */
static const char *hint_key(const char *k)
{
	static const char *const map[][2] = {{"<enter>", "Enter"}, {"<tab>", "Tab"},     {"<esc>", "Esc"},
					     {"<space>", "Space"}, {"<s-tab>", "S-Tab"}, {"<bs>", "Backspace"}};
	for (size_t i = 0; i < sizeof map / sizeof map[0]; i++)
		if (!strcmp(k, map[i][0]))
			return map[i][1];
	return k;
}

static void draw_hints(struct ui *u, struct canvas *c, int y)
{
	static const struct hint home[] = {{"help", "help"},     {"prompt.filter", "filter"}, {"open", "open"},
					   {"verify.turn", "verify"}, {"label.right", "right"},
					   {"label.wrong", "wrong"}, {"label.missed", "missed"}, {"corpus", "corpus"},
					   {"approve", "approve"}, {"trials", "trials"},
					   {"back", "back"},          {NULL, NULL}};
	static const struct hint detail[] = {{"tab.next", "tab"},      {"fold", "fold"},
					     {"verify.turn", "verify"}, {"label.right", "right"},
					     {"label.wrong", "wrong"}, {"label.missed", "missed"}, {"back", "back"},
					     {"help", "help"},          {"prompt.search", "search"}, {NULL, NULL}};
	static const struct hint corpus[] = {{"open", "open"},	       {"label.right", "right"},
					     {"label.wrong", "wrong"},     {"label.missed", "missed"},
					     {"corpus.run", "re-run"},     {"mark", "mark"},
					     {"prompt.filter", "filter"}, {"help", "help"},
					     {NULL, NULL}};
	static const struct hint kase[] = {{"open", "its turn"},	 {"label.right", "right"},
					   {"label.wrong", "wrong"},	 {"label.missed", "missed"},
					   {"corpus.run", "re-run"},	 {"case.delete", "delete"},
					   {"back", "back"},		 {NULL, NULL}};
	static const struct hint doc[] = {{"nav.down", "down"}, {"nav.up", "up"}, {"back", "back"}, {NULL, NULL}};
	static const struct hint trials[] = {{"open", "open"},         {"trial.apply", "apply"}, {"trial.discard", "discard"},
					     {"nav.down", "down"},     {"back", "back"},         {"help", "help"},
					     {NULL, NULL}};
	static const struct hint trial[] = {{"trial.apply", "apply"}, {"trial.discard", "discard"}, {"nav.down", "down"},
					    {"back", "back"},         {"help", "help"},             {NULL, NULL}};
	/* A held call focused: what can be done about it comes first. */
	static const struct hint held_home[] = {{"approve", "approve"}, {"refuse", "refuse"}, {"open", "see it"},
						{"help", "help"},       {"back", "back"},     {NULL, NULL}};
	static const struct hint held_detail[] = {{"approve", "approve"}, {"refuse", "refuse"}, {"tab.next", "tab"},
						  {"fold", "fold"},       {"back", "back"},     {"help", "help"},
						  {NULL, NULL}};
	static const struct hint held_trial[] = {{"approve", "approve"}, {"apply.instead", "apply trial"},
						 {"refuse", "refuse"},   {"tab.next", "tab"},
						 {"back", "back"},       {"help", "help"},
						 {NULL, NULL}};
	const struct cm_hold *fh = NULL;
	const struct cm_turn *ft = NULL;
	if ((u->view == VIEW_HOME && u->focus == PANE_TURNS) || u->view == VIEW_DETAIL)
		ft = ui_focused(u, &fh);
	struct cm_run *hr = ui_run(u);
	for (size_t i = 0; !fh && ft && ft->hold && hr && i < hr->nholds; i++)
		if (hr->holds[i].id == ft->hold)
			fh = &hr->holds[i];
	const struct hint *hs = fh && fh->trial_id && u->view != VIEW_HOME ? held_trial
				: fh && u->view == VIEW_HOME ? held_home
				: fh			    ? held_detail
				: u->view == VIEW_HOME       ? home
				: u->view == VIEW_DETAIL   ? detail
				: u->view == VIEW_TRIALS ? trials
				: u->view == VIEW_TRIAL    ? trial
				: u->view == VIEW_CORPUS   ? corpus
				: u->view == VIEW_CASE     ? kase
							   : doc;
	canvas_fill(c, y, 0, 1, u->w, ' ', ROLE_HINT);
	int x = 1;
	if (u->job[0]) {
		/* A running job has the line: the key that cancels it, then how far it is. */
		char keys[64], s[600];
		keymap_keys_for(u->km, KCTX_GLOBAL, "jobs.cancel", keys, sizeof keys);
		keys[strcspn(keys, ",")] = '\0';
		if (keys[0]) {
			x += canvas_text(c, y, x, u->w - x, ROLE_HINT_KEY, hint_key(keys));
			x += canvas_text(c, y, x, u->w - x, ROLE_HINT, " cancel  ");
		}
		snprintf(s, sizeof s, "%s %s", glyph(G_VERIFYING), u->job);
		canvas_text_fit(c, y, x, u->w - x, ROLE_STATUS_KEY, s, 0);
		return;
	}
	enum kctx ctx = ui_context(u);
	for (int i = 0; hs[i].line && x < u->w - 4; i++) {
		char keys[64];
		keymap_keys_for(u->km, ctx, hs[i].line, keys, sizeof keys);
		if (!keys[0])
			continue; /* unbound here: no hint */
		keys[strcspn(keys, ",")] = '\0';
		x += canvas_text(c, y, x, u->w - x, ROLE_HINT_KEY, hint_key(keys));
		x += canvas_text(c, y, x, u->w - x, ROLE_HINT, " ");
		x += canvas_text(c, y, x, u->w - x, ROLE_HINT, hs[i].label);
		x += canvas_text(c, y, x, u->w - x, ROLE_HINT, "  ");
	}
}

static void draw_too_small(struct ui *u, struct canvas *c)
{
	canvas_clear(c, ROLE_NORMAL);
	char s[128];
	snprintf(s, sizeof s, "belay console needs at least %dx%d", UI_MIN_W, UI_MIN_H);
	int y = u->h / 2 - 1;
	canvas_text(c, y < 0 ? 0 : y, 0, u->w, ROLE_ERROR, s);
	snprintf(s, sizeof s, "this terminal is %dx%d; enlarge it (q quits)", u->w, u->h);
	canvas_text(c, y + 1 < u->h ? y + 1 : 0, 0, u->w, ROLE_NORMAL, s);
}

void ui_draw(struct ui *u, struct canvas *c)
{
	if (u->w < UI_MIN_W || u->h < UI_MIN_H) {
		draw_too_small(u, c);
		return;
	}
	canvas_clear(c, ROLE_NORMAL);
	draw_title(u, c);
	struct layout L;
	layout(u, &L);
	if (u->view == VIEW_HOME) {
		draw_runs(u, c, &L);
		draw_turns(u, c, &L);
		if (L.runv_y >= 0)
			draw_runv_line(u, c, L.runv_y);
		draw_focus_line(u, c, L.focus_y);
		draw_denials(u, c, &L);
	} else if (u->view == VIEW_DETAIL) {
		ui_draw_detail(u, c, 1, L.status_y - 1);
	} else if (u->view == VIEW_TRIALS) {
		ui_draw_trials(u, c, 1, L.status_y - 1);
	} else if (u->view == VIEW_CORPUS) {
		ui_corpus_draw(u, c, 1, L.status_y - 1);
	} else if (u->view == VIEW_CASE) {
		char t[300];
		snprintf(t, sizeof t, " CASE %s", ui_corpus_of(u)->open);
		ui_draw_doc(u, c, 1, L.status_y - 1, t);
	} else if (u->view == VIEW_TRIAL) {
		char t[120];
		snprintf(t, sizeof t, " TRIAL %s", u->trial_id);
		ui_draw_doc(u, c, 1, L.status_y - 1, t);
	} else {
		ui_draw_doc(u, c, 1, L.status_y - 1, u->view == VIEW_HELP ? " HELP" : " LOG");
	}
	draw_status(u, c, L.status_y);
	draw_hints(u, c, L.hints_y);
	draw_prompt(u, c, L.prompt_y); /* a long message takes the hints line too */
}
