/* ui_corpus.c - the corpus view: the cases newest first with the score at the top, a case's
 * document, and its keys (label by meaning, note, delete, re-run, marks). See ui_corpus.h.
 *
 * Must not: call curses, block, write to the store (every change is an intent, a job). */
#include "tui/ui_corpus.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/jsonx.h"
#include "common/xalloc.h"
#include "corpus/corpus.h"
#include "tui/glyphs.h"
#include "tui/look.h"
#include "tui/ui_internal.h"

enum corpus_meaning ui_meaning_of(enum command which)
{
	return which == C_LABEL_RIGHT ? CORPUS_RIGHT : which == C_LABEL_WRONG ? CORPUS_WRONG : CORPUS_MISSED;
}

int ui_label_meaning(enum cm_v v, enum command which, const char **label, int *miss, char *why, size_t n)
{
	struct err e = {0};
	if (corpus_label_meaning(v == CMV_NONE ? NULL : cm_v_word(v), ui_meaning_of(which), label, miss, &e) != 0) {
		snprintf(why, n, "%s", e.msg);
		return -1;
	}
	return 0;
}

struct ui_corpus *ui_corpus_of(struct ui *u)
{
	if (!u->cv) {
		u->cv = xcalloc(1, sizeof *u->cv);
		ccorpus_init(&u->cv->cc);
	}
	return u->cv;
}

void ui_corpus_free(struct ui *u)
{
	if (!u->cv)
		return;
	ccorpus_free(&u->cv->cc);
	free(u->cv);
	u->cv = NULL;
}

void ui_corpus_reload(struct ui *u)
{
	struct ui_corpus *cv = ui_corpus_of(u);
	if (!u->m->st)
		return;
	struct err e = {0};
	if (ccorpus_load(&cv->cc, u->m->st, &e) != 0)
		ui_message(u, 2, "corpus: %s", e.msg);
	u->dirty++;
}

/* The focused case of the list (or the open one in its document). */
static struct cc_case *focused(struct ui *u)
{
	struct ui_corpus *cv = ui_corpus_of(u);
	struct ccorpus *cc = &cv->cc;
	if (u->view == VIEW_CASE)
		return ccorpus_find(cc, cv->open);
	if (!cc->nvis)
		return NULL;
	if (cv->sel[0]) /* the selection stays on its case when the list is read again */
		for (size_t i = 0; i < cc->nvis; i++)
			if (!strcmp(cc->c[cc->vis[i]].id, cv->sel)) {
				cv->pos.sel = i;
				break;
			}
	if (cv->pos.sel >= cc->nvis)
		cv->pos.sel = cc->nvis - 1;
	struct cc_case *k = &cc->c[cc->vis[cv->pos.sel]];
	snprintf(cv->sel, sizeof cv->sel, "%s", k->id);
	return k;
}

int ui_corpus_move(struct ui *u, long delta, int to_end)
{
	if (u->view != VIEW_CORPUS)
		return 0;
	struct ui_corpus *cv = ui_corpus_of(u);
	size_t n = cv->cc.nvis;
	focused(u);
	long s = to_end ? (to_end > 0 ? (long)n - 1 : 0) : (long)cv->pos.sel + delta;
	cv->pos.sel = s < 0 || !n ? 0 : s >= (long)n ? n - 1 : (size_t)s;
	if (n)
		snprintf(cv->sel, sizeof cv->sel, "%s", cv->cc.c[cv->cc.vis[cv->pos.sel]].id);
	u->dirty++;
	return 1;
}

const char *ui_corpus_filter_text(struct ui *u)
{
	return ui_corpus_of(u)->cc.filter_text;
}

int ui_corpus_set_filter(struct ui *u, const char *expr, int quiet)
{
	struct err e = {0};
	if (ccorpus_filter(&ui_corpus_of(u)->cc, expr, &e) != 0) {
		if (!quiet)
			ui_message(u, 2, "%s", e.msg);
		return -1;
	}
	u->dirty++;
	return 0;
}

/*==== the case document ====*/

/* "40s", "12m", "3h", "2d" since iso (the corpus writes UTC: "...T18:50:00+00:00"). */
static void age_of(time_t now, const char *iso, char *out, size_t n)
{
	struct tm tm;
	memset(&tm, 0, sizeof tm);
	if (!iso || sscanf(iso, "%d-%d-%dT%d:%d:%d", &tm.tm_year, &tm.tm_mon, &tm.tm_mday, &tm.tm_hour, &tm.tm_min,
			   &tm.tm_sec) != 6) {
		snprintf(out, n, "?");
		return;
	}
	tm.tm_year -= 1900;
	tm.tm_mon -= 1;
	long s = (long)(now - timegm(&tm));
	if (s < 0)
		s = 0;
	if (s < 60)
		snprintf(out, n, "%lds", s);
	else if (s < 3600)
		snprintf(out, n, "%ldm", s / 60);
	else if (s < 86400)
		snprintf(out, n, "%ldh", s / 3600);
	else
		snprintf(out, n, "%ldd", s / 86400);
}

static const char *str_or(const cJSON *o, const char *k, const char *dflt)
{
	const char *s = jx_str(o, k);
	return s ? s : dflt;
}

static void section(struct tdoc *d, const char *title)
{
	tdoc_nl(d);
	tdoc_nl(d);
	tdoc_add(d, ROLE_TITLE, title);
}

void ui_corpus_case_doc(struct ui *u, const cJSON *o)
{
	struct tdoc *d = &u->doc;
	struct ui_corpus *cv = ui_corpus_of(u);
	tdoc_clear(d);
	u->doc_top = 0;
	const char *id = str_or(o, "id", cv->open);
	const cJSON *turn = cJSON_GetObjectItemCaseSensitive(o, "turn");
	char age[16];
	age_of(u->now, jx_str(o, "created"), age, sizeof age);
	tdoc_nl(d);
	tdoc_addf(d, ROLE_NORMAL, "  %s", id);
	tdoc_nl(d);
	if (cJSON_IsNumber(turn))
		tdoc_addf(d, ROLE_DIM, "  turn %d of run %s, tool %s", turn->valueint, str_or(o, "run", "?"),
			  str_or(o, "tool", "?"));
	else
		tdoc_addf(d, ROLE_DIM, "  the whole run %s (trajectory: the suite before the success claim)",
			  str_or(o, "run", "?"));
	tdoc_nl(d);
	tdoc_addf(d, ROLE_DIM, "  banked %s (%s ago) by belay %s, %s", str_or(o, "created", "?"), age,
		  str_or(o, "belay_version", "?"),
		  !strcmp(str_or(o, "origin", "add"), "import") ? "imported (labels do not travel)" : "added here");
	tdoc_nl(d);
	tdoc_addf(d, ROLE_DIM, "  workspace %s", str_or(o, "scope", "?"));
	const cJSON *argv = cJSON_GetObjectItemCaseSensitive(o, "server_argv");
	if (cJSON_IsArray(argv)) {
		tdoc_nl(d);
		tdoc_add(d, ROLE_DIM, "  server   ");
		for (const cJSON *a = argv->child; a; a = a->next)
			tdoc_addf(d, ROLE_NORMAL, " %s", cJSON_IsString(a) ? a->valuestring : "(bytes)");
		tdoc_hang(d, 12);
	}

	/* the label, as a person reads it, and its history */
	const cJSON *labels = cJSON_GetObjectItemCaseSensitive(o, "labels");
	const cJSON *last = NULL;
	for (const cJSON *l = labels ? labels->child : NULL; l; l = l->next)
		last = l;
	section(d, "LABEL");
	tdoc_nl(d);
	if (!last) {
		tdoc_add(d, ROLE_LABEL, "  unlabelled");
		tdoc_add(d, ROLE_DIM, "  (pending: not counted in the score until a person labels it)");
	} else {
		int miss = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(last, "miss"));
		const char *lab = str_or(last, "label", "pending");
		tdoc_addf(d, ROLE_LABEL, "  %s", ccorpus_label_word(lab, miss));
		if (miss)
			tdoc_add(d, ROLE_DIM, "  (true-positive --miss: a real failure the engine did not flag)");
		else if (strcmp(lab, "pending"))
			tdoc_addf(d, ROLE_DIM, "  (%s)",
				  !strcmp(lab, "true-positive")    ? "the failure is real"
				  : !strcmp(lab, "false-positive") ? "it is not a failure"
								   : "a person cannot tell");
		if (jx_str(last, "root_cause")) {
			tdoc_nl(d);
			tdoc_addf(d, ROLE_DIM, "  root cause %s", jx_str(last, "root_cause"));
		}
	}
	for (const cJSON *l = labels ? labels->child : NULL; l; l = l->next) {
		tdoc_nl(d);
		tdoc_addf(d, ROLE_DIM, "  %s  %-14s by %s", str_or(l, "at", "?"),
			  ccorpus_label_word(str_or(l, "label", "pending"),
					     cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(l, "miss"))),
			  str_or(l, "by", "?"));
		if (jx_str(l, "note"))
			tdoc_addf(d, ROLE_NORMAL, "  %s", jx_str(l, "note"));
		tdoc_hang(d, 4);
	}

	/* the verdict it banked, every sub-verdict with its message */
	const cJSON *exp = cJSON_GetObjectItemCaseSensitive(o, "expected");
	enum cm_v v = cm_v_parse(jx_str(o, "expected_status"));
	section(d, "VERDICT (banked; a re-run is compared with it)");
	tdoc_nl(d);
	tdoc_addf(d, look_v_role(v), "  %s %s", look_v_glyph(v), look_v_word(v));
	if (jx_str(o, "expected_cause"))
		tdoc_addf(d, look_v_role(v), "  %s", jx_str(o, "expected_cause"));
	const cJSON *subs = cJSON_GetObjectItemCaseSensitive(exp, "verdicts");
	for (const cJSON *s = subs ? subs->child : NULL; s; s = s->next) {
		enum cm_v sv = cm_v_parse(jx_str(s, "status"));
		tdoc_nl(d);
		tdoc_addf(d, ROLE_DIM, "  %s %-10s ", str_or(s, "axis", "?"), str_or(s, "kind", "?"));
		tdoc_addf(d, look_v_role(sv), "%s %-11s", look_v_glyph(sv), look_v_word(sv));
		tdoc_addf(d, ROLE_NORMAL, " %s", str_or(s, "message", ""));
		tdoc_hang(d, 30);
	}
	/* the effect the verdict saw */
	const cJSON *eff = cJSON_GetObjectItemCaseSensitive(exp, "effect");
	if (cJSON_IsArray(eff) && eff->child) {
		section(d, "EFFECT (on the workspace, as the replay saw it)");
		for (const cJSON *x = eff->child; x; x = x->next) {
			tdoc_nl(d);
			tdoc_addf(d, ROLE_NORMAL, "  %-8s %s", str_or(x, "change", "?"), str_or(x, "path", "?"));
		}
	}
	/* the pre-states it bundles */
	section(d, "PRE-STATE (snapshots the case keeps, replayed from)");
	const cJSON *snaps = cJSON_GetObjectItemCaseSensitive(o, "snapshots");
	if (!snaps || !snaps->child) {
		tdoc_nl(d);
		tdoc_add(d, ROLE_DIM, "  none");
	}
	for (const cJSON *x = snaps ? snaps->child : NULL; x; x = x->next) {
		tdoc_nl(d);
		tdoc_addf(d, ROLE_DIM, "  %-7s", str_or(x, "role", "?"));
		tdoc_addf(d, ROLE_NORMAL, " %s", str_or(x, "handle", "?"));
	}
	/* its re-runs */
	section(d, "RE-RUNS (belay corpus run; the last ten)");
	struct cc_case *k = ccorpus_find(&cv->cc, id);
	const cJSON *res = cJSON_GetObjectItemCaseSensitive(o, "results");
	if ((!res || !res->child) && !(k && k->outcome)) {
		tdoc_nl(d);
		tdoc_add(d, ROLE_DIM, "  never re-run (r re-runs it)");
	}
	for (const cJSON *x = res ? res->child : NULL; x; x = x->next) {
		const char *oc = str_or(x, "outcome", "?");
		tdoc_nl(d);
		tdoc_addf(d, ROLE_DIM, "  %s ", str_or(x, "at", "?"));
		tdoc_addf(d, !strcmp(oc, "MATCH") ? ROLE_V_PASS : !strcmp(oc, "REGRESSION") ? ROLE_V_FAIL : ROLE_V_WARN,
			  "%-12s", oc);
		if (jx_str(x, "detail") && *jx_str(x, "detail"))
			tdoc_addf(d, ROLE_NORMAL, " %s", jx_str(x, "detail"));
		tdoc_hang(d, 40);
	}
	tdoc_nl(d);
	tdoc_nl(d);
	if (cJSON_IsNumber(turn) && cm_find(u->m, str_or(o, "run", "")))
		tdoc_addf(d, ROLE_DIM, "Enter opens turn %d in its run (request, response, effect diff, pre-state)",
			  turn->valueint);
	else
		tdoc_add(d, ROLE_DIM, "its run is not in this console: belay corpus show prints the rest");
}

/* Reads case `id` (corpus_show) and shows its document. */
static void open_case(struct ui *u, const char *id)
{
	struct ui_corpus *cv = ui_corpus_of(u);
	snprintf(cv->open, sizeof cv->open, "%s", id);
	cJSON *shown = NULL;
	if (u->m->st) {
		struct corpus *c = corpus_borrow(u->m->st, NULL);
		struct err e = {0};
		if (corpus_show(c, id, &shown, &e) != 0)
			ui_message(u, 2, "corpus: %s", e.msg);
		corpus_close(c);
	}
	if (!shown) {
		struct cc_case *k = ccorpus_find(&cv->cc, id);
		shown = cJSON_CreateObject(); /* what the list knows */
		cJSON_AddStringToObject(shown, "id", id);
		if (k) {
			if (k->run)
				cJSON_AddStringToObject(shown, "run", k->run);
			if (k->turn >= 0)
				cJSON_AddNumberToObject(shown, "turn", k->turn);
			if (k->status)
				cJSON_AddStringToObject(shown, "expected_status", k->status);
		}
	}
	ui_corpus_case_doc(u, shown);
	cJSON_Delete(shown);
	if (u->view != VIEW_CASE)
		ui_view_push(u, VIEW_CASE);
}

/*==== commands ====*/

/* The cases a command acts on: the marked ones (in the list), else the focused one. New
 * array of borrowed case pointers; *bulk when they are the marks. */
static size_t targets(struct ui *u, struct cc_case ***out, int *bulk)
{
	struct ui_corpus *cv = ui_corpus_of(u);
	*out = xcalloc(cv->cc.n + 1, sizeof **out);
	size_t n = 0;
	*bulk = 0;
	if (u->view == VIEW_CORPUS)
		for (size_t i = 0; i < cv->cc.n; i++)
			if (cv->cc.c[i].marked)
				(*out)[n++] = &cv->cc.c[i];
	if (n) {
		*bulk = 1;
		return n;
	}
	struct cc_case *k = focused(u);
	if (k)
		(*out)[n++] = k;
	return n;
}

static int take_now(const char **arg)
{
	if (strncmp(*arg, "now", 3) || ((*arg)[3] && (*arg)[3] != ' '))
		return 0;
	*arg += 3;
	while (**arg == ' ')
		(*arg)++;
	return 1;
}

static void cmd_case_label(struct ui *u, enum command cmd, const char *arg)
{
	if (!u->in.case_label) {
		ui_message(u, 1, "labels: not available here");
		return;
	}
	int now = take_now(&arg), bulk;
	if (cmd == C_LABEL && strcmp(arg, "true-positive") && strcmp(arg, "false-positive") &&
	    strcmp(arg, "unverifiable") && strcmp(arg, "pending")) {
		ui_message(u, 2, "label: one of true-positive, false-positive, unverifiable, pending");
		return;
	}
	if (cmd == C_NOTE && !*arg) {
		ui_message(u, 2, "note: type the note after the command (:note the replay was right)");
		return;
	}
	struct cc_case **t;
	size_t n = targets(u, &t, &bulk);
	if (!n) {
		ui_message(u, 1, "no case is focused");
		free(t);
		return;
	}
	const char *what = cmd == C_LABEL_RIGHT ? "right" : cmd == C_LABEL_WRONG ? "wrong"
						 : cmd == C_LABEL_MISSED ? "missed" : cmd == C_NOTE ? "note" : arg;
	if (bulk && !now) {
		snprintf(u->confirm, sizeof u->confirm, "%s now%s%s", command_name(cmd), *arg ? " " : "", arg);
		if (cmd == C_NOTE)
			ui_message(u, 1, "add this note to the %zu marked cases' labels? [y/N]", n);
		else
			ui_message(u, 1, "label the %zu marked cases %s, each by its own verdict? [y/N]", n, what);
		free(t);
		return;
	}
	size_t done = 0, refused = 0;
	char why[200] = "";
	for (size_t i = 0; i < n; i++) {
		struct cc_case *k = t[i];
		const char *label = NULL, *note = NULL;
		int miss = 0;
		if (cmd == C_LABEL) {
			label = arg;
		} else if (cmd == C_NOTE) {
			label = k->label ? k->label : "pending";
			miss = k->miss;
			note = arg;
		} else if (ui_label_meaning(cm_v_parse(k->status), cmd, &label, &miss, why, sizeof why) != 0) {
			refused++;
			continue;
		}
		u->in.case_label(u->in.ctx, k->id, label, note, miss);
		done++;
		if (n == 1)
			ui_message(u, 0, "case %s: %s%s%s (%s)", k->id, cmd == C_NOTE ? "note on " : "labelling ",
				   ccorpus_label_word(label, miss), miss ? ", true-positive --miss" : "",
				   cmd == C_NOTE || cmd == C_LABEL ? "queued" : what);
	}
	if (n == 1 && refused)
		ui_message(u, 1, "case %s: %s", t[0]->id, why);
	else if (n > 1)
		ui_message(u, refused ? 1 : 0, "labelling %zu case(s) %s%s%s", done, what,
			   refused ? "; refused on the FAILs: " : "", refused ? why : "");
	free(t);
}

static void cmd_delete(struct ui *u, const char *arg)
{
	if (!u->in.case_delete) {
		ui_message(u, 1, "case.delete: not available here");
		return;
	}
	int now = take_now(&arg), bulk;
	struct cc_case **t;
	size_t n = targets(u, &t, &bulk);
	if (!n) {
		ui_message(u, 1, "no case is focused");
	} else if (!now) {
		snprintf(u->confirm, sizeof u->confirm, "case.delete now");
		if (bulk)
			ui_message(u, 1, "delete the %zu marked cases with their labels and results? [y/N]", n);
		else
			ui_message(u, 1, "delete case %s with its labels and results? [y/N]", t[0]->id);
	} else {
		for (size_t i = 0; i < n; i++)
			u->in.case_delete(u->in.ctx, t[i]->id);
		ui_message(u, 0, "deleting %zu case(s)", n);
		if (u->view == VIEW_CASE)
			ui_view_pop(u);
	}
	free(t);
}

static void cmd_run(struct ui *u, const char *arg)
{
	struct ui_corpus *cv = ui_corpus_of(u);
	if (!u->in.corpus_run) {
		ui_message(u, 1, "corpus.run: not available here");
		return;
	}
	int now = take_now(&arg);
	int all = !strcmp(arg, "all");
	if (!all && *arg) {
		ui_message(u, 2, "corpus.run: no argument (the marked cases, else the focused one) or all");
		return;
	}
	int bulk = 0;
	struct cc_case **t = NULL;
	size_t n = all ? cv->cc.n : targets(u, &t, &bulk);
	if (!n) {
		ui_message(u, 1, "%s", all ? "the corpus is empty" : "no case is focused");
		free(t);
		return;
	}
	if ((all || bulk) && !now) {
		snprintf(u->confirm, sizeof u->confirm, "corpus.run now%s", all ? " all" : "");
		ui_message(u, 1, "re-run %s%zu case(s)? each replays from its own pre-state [y/N]",
			   all ? "every one of the " : "the marked ", n);
		free(t);
		return;
	}
	const char **ids = xcalloc(n + 1, sizeof *ids);
	for (size_t i = 0; i < n; i++) {
		struct cc_case *k = all ? &cv->cc.c[i] : t[i];
		ids[i] = k->id;
		ccorpus_outcome(&cv->cc, k->id, NULL, NULL);
	}
	cv->run_total = n;
	cv->run_done = 0;
	memset(cv->run_counts, 0, sizeof cv->run_counts);
	u->in.corpus_run(u->in.ctx, all ? NULL : ids, all ? 0 : n);
	ui_message(u, 0, "re-running %zu case(s): queued; each shows MATCH or MISMATCH as it is judged", n);
	free(ids);
	free(t);
}

static void cmd_mark(struct ui *u, int all)
{
	struct ui_corpus *cv = ui_corpus_of(u);
	if (u->view != VIEW_CORPUS) {
		ui_message(u, 1, "marks are for the corpus list");
		return;
	}
	if (!all) {
		struct cc_case *k = focused(u);
		if (k) {
			k->marked = !k->marked;
			ui_corpus_move(u, 1, 0);
		}
	} else {
		int every = cv->cc.nvis > 0;
		for (size_t i = 0; i < cv->cc.nvis; i++)
			every &= cv->cc.c[cv->cc.vis[i]].marked;
		for (size_t i = 0; i < cv->cc.nvis; i++)
			cv->cc.c[cv->cc.vis[i]].marked = !every;
	}
	const char **ids;
	size_t n = ccorpus_marked(&cv->cc, &ids);
	free(ids);
	ui_message(u, 0, "%zu case(s) marked%s", n, n ? ": labels, r and D act on all of them" : "");
	cv->cc.gen++;
}

/*==== marked turns ====*/

static size_t turns_marked(struct cm_run *r)
{
	size_t n = 0;
	for (size_t i = 0; r && i < r->nturns; i++)
		n += cm_turn_at(r, i)->marked != 0;
	return n;
}

static void cmd_mark_turns(struct ui *u, int all)
{
	struct cm_run *r = ui_run(u);
	if (!r)
		return;
	if (!all) {
		struct cm_turn *t = ui_focused(u, NULL);
		if (!t) {
			ui_message(u, 1, "mark: no turn is focused");
			return;
		}
		t->marked = !t->marked;
		u->follow = 0;
		ui_refilter(u, 0);
		if (u->pos[PANE_TURNS].sel + 1 < u->nvis)
			u->pos[PANE_TURNS].sel++;
	} else {
		ui_refilter(u, 0);
		int every = u->nvis > 0;
		for (size_t i = 0; i < u->nvis; i++)
			if (u->vis[i] < r->nturns)
				every &= cm_turn_at(r, u->vis[i])->marked;
		for (size_t i = 0; i < u->nvis; i++)
			if (u->vis[i] < r->nturns)
				cm_turn_at(r, u->vis[i])->marked = !every;
	}
	r->gen++;
	size_t n = turns_marked(r);
	ui_message(u, 0, "%zu turn(s) marked%s", n, n ? ": c banks, t/f/m/u label, v verifies all of them" : "");
}

/* A bulk action on the marked turns of the current run: asked once, then one intent per
 * turn, then the marks are cleared. 1 when it was one (there were marks). */
static int bulk_turns(struct ui *u, enum command cmd, const char *arg)
{
	struct cm_run *r = ui_run(u);
	size_t n = turns_marked(r);
	if (!n || (u->view != VIEW_HOME && u->view != VIEW_DETAIL))
		return 0;
	int now = take_now(&arg);
	if (cmd == C_LABEL && strcmp(arg, "true-positive") && strcmp(arg, "false-positive") &&
	    strcmp(arg, "unverifiable")) {
		ui_message(u, 2, "label: one of true-positive, false-positive, unverifiable");
		return 1;
	}
	if (cmd == C_NOTE && !*arg) {
		ui_message(u, 2, "note: type the note after the command (:note the replay was right)");
		return 1;
	}
	const char *what = cmd == C_LABEL_RIGHT ? "right" : cmd == C_LABEL_WRONG ? "wrong" : cmd == C_LABEL_MISSED ? "missed"
			  : cmd == C_CORPUS_ADD ? "banked" : cmd == C_VERIFY_TURN ? "verified" : cmd == C_NOTE ? "noted" : arg;
	if (!now) {
		snprintf(u->confirm, sizeof u->confirm, "%s now%s%s", command_name(cmd), *arg ? " " : "", arg);
		ui_message(u, 1, "%zu marked turn(s) %s%s? [y/N]", n, what,
			   cmd == C_LABEL_RIGHT || cmd == C_LABEL_WRONG || cmd == C_LABEL_MISSED
				   ? ", each by its own verdict (banked first)"
				   : "");
		return 1;
	}
	size_t done = 0, skipped = 0;
	for (size_t i = 0; i < r->nturns; i++) {
		struct cm_turn *t = cm_turn_at(r, i);
		if (!t->marked)
			continue;
		t->marked = 0;
		if (t->call == CMC_PENDING) {
			skipped++;
			continue;
		}
		const char *label = NULL;
		int miss = 0, meaning = -1;
		char why[200];
		if (cmd == C_VERIFY_TURN) {
			if (u->in.verify) {
				u->in.verify(u->in.ctx, r, t->turn, t->turn, 0);
				t->verifying = 1;
			}
			done++;
			continue;
		}
		if (cmd == C_LABEL) {
			label = arg;
		} else if (cmd == C_NOTE) {
			if (!t->label[0]) {
				skipped++;
				continue;
			}
			label = t->label;
			miss = t->label_miss;
		} else if (cmd != C_CORPUS_ADD) {
			if (ui_label_meaning(t->v, cmd, &label, &miss, why, sizeof why) != 0) {
				skipped++;
				continue;
			}
			meaning = (int)ui_meaning_of(cmd);
		}
		if (u->in.label)
			u->in.label(u->in.ctx, r, t->turn, label, cmd == C_NOTE ? arg : NULL, miss, meaning);
		done++;
	}
	r->gen++;
	if (skipped)
		ui_message(u, 1, "%zu turn(s) %s: queued; left out %zu (unanswered, a FAIL for missed, or without a label "
				 "for a note)",
			   done, what, skipped);
	else
		ui_message(u, 0, "%zu turn(s) %s: queued", done, what);
	return 1;
}

static void cmd_toggle(struct ui *u)
{
	if (u->view == VIEW_CORPUS || u->view == VIEW_CASE) {
		while (u->view == VIEW_CORPUS || u->view == VIEW_CASE)
			ui_view_pop(u);
		return;
	}
	ui_corpus_reload(u);
	ui_view_push(u, VIEW_CORPUS);
}

int ui_corpus_command(struct ui *u, enum command cmd, const char *arg)
{
	if (cmd == C_CORPUS) {
		cmd_toggle(u);
		return 1;
	}
	if (u->view != VIEW_CORPUS && u->view != VIEW_CASE) {
		int on_turns = u->view == VIEW_HOME && u->focus == PANE_TURNS;
		if ((cmd == C_MARK || cmd == C_MARK_ALL) && on_turns) {
			cmd_mark_turns(u, cmd == C_MARK_ALL);
			return 1;
		}
		if (cmd == C_LABEL_RIGHT || cmd == C_LABEL_WRONG || cmd == C_LABEL_MISSED || cmd == C_LABEL ||
		    cmd == C_NOTE || cmd == C_CORPUS_ADD || cmd == C_VERIFY_TURN)
			return bulk_turns(u, cmd, arg);
		if (cmd == C_CORPUS_RUN || cmd == C_CASE_DELETE || cmd == C_MARK || cmd == C_MARK_ALL) {
			char keys[64];
			keymap_keys_for(u->km, KCTX_GLOBAL, "corpus", keys, sizeof keys);
			ui_message(u, 1, "%s: open the corpus first (%s)", command_name(cmd), keys[0] ? keys : ":corpus");
			return 1;
		}
		return 0;
	}
	struct ui_corpus *cv = ui_corpus_of(u);
	switch (cmd) {
	case C_OPEN: {
		struct cc_case *k = focused(u);
		if (u->view == VIEW_CORPUS) {
			if (k)
				open_case(u, k->id);
			return 1;
		}
		if (!k || k->turn < 0 || !cm_find(u->m, k->run)) {
			ui_message(u, 1, "%s", k && k->turn < 0 ? "a trajectory case is the whole run: open the run (Esc, then Tab)"
							  : "its run is not in this console");
			return 1;
		}
		int turn = k->turn;
		ui_focus_run(u, k->run);
		ui_open_turn(u, turn, -1);
		return 1;
	}
	case C_BACK:
		if (u->view == VIEW_CORPUS && cv->cc.flt) {
			ui_corpus_set_filter(u, "", 0);
			return 1;
		}
		return 0;
	case C_LABEL:
	case C_NOTE:
	case C_LABEL_RIGHT:
	case C_LABEL_WRONG:
	case C_LABEL_MISSED: cmd_case_label(u, cmd, arg); return 1;
	case C_CASE_DELETE: cmd_delete(u, arg); return 1;
	case C_CORPUS_RUN: cmd_run(u, arg); return 1;
	case C_MARK: cmd_mark(u, 0); return 1;
	case C_MARK_ALL: cmd_mark(u, 1); return 1;
	case C_CORPUS_ADD:
	case C_VERIFY_TURN:
	case C_VERIFY_REST:
	case C_VERIFY_RUN:
	case C_REPLAY_FROM:
	case C_RECOVER: ui_message(u, 1, "%s: a turn's, not a case's (Enter on a case, then Enter opens its turn)",
				   command_name(cmd));
		return 1;
	default: return 0;
	}
}

/*==== events ====*/

void ui_corpus_event(struct ui *u, const struct cevent *ev)
{
	struct ui_corpus *cv = ui_corpus_of(u);
	if (ev->kind == CE_CORPUS && ev->text) { /* one case judged */
		const char *oc = jx_str(ev->json, "outcome");
		ccorpus_outcome(&cv->cc, ev->text, oc, jx_str(ev->json, "detail"));
		cv->run_done++;
		for (int i = 0; oc && i < CO_NOUTCOMES; i++)
			if (!strcmp(oc, corpus_outcome_name((enum corpus_outcome)i)))
				cv->run_counts[i]++;
		if (oc && !strcmp(oc, "REGRESSION"))
			ui_message(u, 1, "case %s: MISMATCH (REGRESSION): %.200s", ev->text,
				   jx_str(ev->json, "detail") ? jx_str(ev->json, "detail") : "");
		u->dirty++;
		return;
	}
	const char *what = ev->kind == CE_CORPUS ? jx_str(ev->json, "what") : NULL;
	ui_corpus_reload(u);
	if (what && !strcmp(what, "run") && cv->run_total) {
		size_t *k = cv->run_counts;
		ui_message(u, k[CO_REGRESSION] ? 1 : 0,
			   "re-ran %zu of %zu case(s): %zu MATCH, %zu MISMATCH (REGRESSION), %zu SKIP, %zu STILL_MISSED, %zu "
			   "MISS_CLOSED",
			   cv->run_done, cv->run_total, k[CO_MATCH], k[CO_REGRESSION], k[CO_SKIP], k[CO_STILL_MISSED],
			   k[CO_MISS_CLOSED]);
		cv->run_total = 0;
	}
	if (u->view == VIEW_CASE && cv->open[0]) { /* its document follows */
		size_t top = u->doc_top;
		if (ccorpus_find(&cv->cc, cv->open)) {
			open_case(u, cv->open);
			u->doc_top = top;
		} else if (u->m->st) {
			ui_view_pop(u);
		}
	}
}

/*==== drawing ====*/

static int cellw(struct canvas *c, int y, int x, int w, enum role r, const char *s)
{
	if (w <= 0)
		return x;
	canvas_text_fit(c, y, x, w, r, s, 1);
	return x + w + 1;
}

static enum role outcome_role(const char *oc)
{
	return !oc ? ROLE_DIM : !strcmp(oc, "MATCH") ? ROLE_V_PASS : !strcmp(oc, "REGRESSION") ? ROLE_V_FAIL : ROLE_V_WARN;
}

/* The score as `belay corpus score` gives it (corpus_score), in two lines. */
static void draw_score(struct ui *u, struct canvas *c, int y)
{
	const struct corpus_score *s = &ui_corpus_of(u)->cc.score;
	long judged = s->tp + s->fp + s->fn + s->tn;
	char p[16], r[16], cov[16], line[400];
	corpus_ratio(s->tp, s->tp + s->fp, p);
	corpus_ratio(s->tp, s->tp + s->fn, r);
	corpus_ratio(judged, judged + s->unverified, cov);
	int x = 1;
	const char *names[3] = {"precision ", "recall ", "coverage "};
	const char *vals[3] = {p, r, cov};
	long num[3] = {s->tp, s->tp, judged}, den[3] = {s->tp + s->fp, s->tp + s->fn, judged + s->unverified};
	for (int i = 0; i < 3; i++) {
		x += canvas_text(c, y, x, u->w - x, ROLE_DIM, names[i]);
		x += canvas_text(c, y, x, u->w - x, ROLE_STATUS_KEY, vals[i]);
		snprintf(line, sizeof line, " (%ld/%ld)  ", num[i], den[i]);
		x += canvas_text(c, y, x, u->w - x, ROLE_DIM, line);
	}
	/* what is counted apart first: the TP/FP/FN counts are in the fractions above */
	snprintf(line, sizeof line, " apart: %ld unlabelled, %ld unverifiable, %ld UNVERIFIED   ", s->pending,
		 s->unverifiable, s->unverified);
	x = canvas_text(c, y + 1, 0, u->w, ROLE_DIM, line);
	snprintf(line, sizeof line, "TP %ld  FP %ld  FN %ld (%ld missed)  TN %ld", s->tp, s->fp, s->fn, s->fn_missed,
		 s->tn);
	canvas_text_fit(c, y + 1, x, u->w - x, ROLE_NORMAL, line, 0);
}

/* ui_draw gives the view rows 1 to the status line (h - 3): the title, the score, a blank,
 * the column heads, then the cases (ui_corpus_draw's layout). */
long ui_corpus_row_at(struct ui *u, int y)
{
	struct ui_corpus *cv = ui_corpus_of(u);
	int first = 1 + 3 + 1, rows = (u->h - 4) - 4;
	if (u->view != VIEW_CORPUS || y < first || y >= first + rows)
		return -1;
	size_t k = cv->pos.top + (size_t)(y - first);
	return k < cv->cc.nvis ? (long)k : -1;
}

void ui_corpus_select(struct ui *u, size_t k)
{
	struct ui_corpus *cv = ui_corpus_of(u);
	if (k >= cv->cc.nvis)
		return;
	cv->pos.sel = k;
	snprintf(cv->sel, sizeof cv->sel, "%s", cv->cc.c[cv->cc.vis[k]].id);
	u->dirty++;
}

void ui_corpus_draw(struct ui *u, struct canvas *c, int y, int h)
{
	struct ui_corpus *cv = ui_corpus_of(u);
	struct ccorpus *cc = &cv->cc;
	char s[600];
	int sl = snprintf(s, sizeof s, " CORPUS (%zu case%s)  newest first", cc->n, cc->n == 1 ? "" : "s");
	if (cc->flt)
		sl += snprintf(s + sl, sizeof s - (size_t)sl, "  %zu shown by the filter: %.200s", cc->nvis,
			       cc->filter_text);
	canvas_fill(c, y, 0, 1, u->w, ' ', ROLE_HEADER);
	canvas_text_fit(c, y, 0, u->w, ROLE_TITLE, s, 0);
	draw_score(u, c, y + 1);
	int ly = y + 3, rows = h - 4;
	if (cc->err[0])
		canvas_text_fit(c, ly + 1, 2, u->w - 2, ROLE_ERROR, cc->err, 0);
	if (!cc->nvis) {
		canvas_text_fit(c, ly + 1 + !!cc->err[0], 2, u->w - 2, ROLE_DIM,
				cc->n ? "no case matches the filter (Esc clears it)"
				      : "the corpus is empty: on a turn, c banks it and t/f/m label it (belay corpus add does "
					"the same)",
				0);
		return;
	}
	/* columns: the label, the verdict and the last re-run are never cut; the tool gets up to
	 * 18, the turn and run what is left, then the age */
	int labw = 14, vw = 12, agew = 4, lastw = 12, toolw = 4;
	for (size_t i = 0; i < cc->n; i++) {
		int n = canvas_width(cc->c[i].tool ? cc->c[i].tool : "(whole run)");
		toolw = n > toolw ? n : toolw;
	}
	toolw = toolw > 18 ? 18 : toolw;
	int idw = u->w - 3 - (labw + 1) - (vw + 1) - (toolw + 1) - (agew + 1) - (lastw + 1);
	if (idw < 16) {
		toolw -= 16 - idw;
		toolw = toolw < 6 ? 6 : toolw;
		idw = u->w - 3 - (labw + 1) - (vw + 1) - (toolw + 1) - (agew + 1) - (lastw + 1);
	}
	canvas_fill(c, ly, 0, 1, u->w, ' ', ROLE_HEADER);
	int x = 3;
	x = cellw(c, ly, x, labw, ROLE_HEADER, "label");
	x = cellw(c, ly, x, vw, ROLE_HEADER, "verdict");
	x = cellw(c, ly, x, toolw, ROLE_HEADER, "tool");
	x = cellw(c, ly, x, idw, ROLE_HEADER, "turn, run");
	x = cellw(c, ly, x, agew, ROLE_HEADER, "age");
	cellw(c, ly, x, lastw, ROLE_HEADER, "last run");
	focused(u);
	struct list_pos *p = &cv->pos;
	if (p->sel < p->top)
		p->top = p->sel;
	if (rows > 0 && p->sel >= p->top + (size_t)rows)
		p->top = p->sel - (size_t)rows + 1;
	if (rows > 0 && cc->nvis > (size_t)rows) {
		ui_more_mark(s + sl, sizeof s - (size_t)sl, p->top, (size_t)rows, cc->nvis);
		canvas_text_fit(c, y, 0, u->w, ROLE_TITLE, s, 0);
	}
	for (int i = 0; i < rows; i++) {
		size_t k = p->top + (size_t)i;
		if (k >= cc->nvis)
			break;
		const struct cc_case *cs = &cc->c[cc->vis[k]];
		int ry = ly + 1 + i;
		canvas_text(c, ry, 0, 1, ROLE_NORMAL, k == p->sel ? glyph(G_FOCUS) : " ");
		canvas_text(c, ry, 1, 1, ROLE_LABEL, cs->marked ? glyph(G_MARK) : " ");
		x = cellw(c, ry, 3, labw, ROLE_LABEL, ccorpus_label_word(cs->label, cs->miss));
		int keep_x = x;
		enum cm_v v = cm_v_parse(cs->status);
		snprintf(s, sizeof s, "%s %s", look_v_glyph(v), look_v_word(v));
		x = cellw(c, ry, x, vw, look_v_role(v), s);
		int keep_end = x;
		x = cellw(c, ry, x, toolw, ROLE_NORMAL, cs->tool ? cs->tool : "(whole run)");
		if (cs->turn >= 0) /* the turn first: ids of one run differ only at their end */
			snprintf(s, sizeof s, "#%d %s", cs->turn, cs->run ? cs->run : cs->id);
		else
			snprintf(s, sizeof s, "all %s", cs->run ? cs->run : cs->id);
		x = cellw(c, ry, x, idw, ROLE_DIM, s);
		age_of(u->now, cs->created, s, sizeof s);
		x = cellw(c, ry, x, agew, ROLE_DIM, s);
		const char *oc = cs->outcome ? cs->outcome : cs->last;
		int lx = x;
		cellw(c, ry, x, lastw, outcome_role(oc), oc ? oc : "-");
		if (k == p->sel) {
			canvas_set_role(c, ry, 0, keep_x, ROLE_SELECTED);
			canvas_set_role(c, ry, keep_end - 1, lx - keep_end + 1, ROLE_SELECTED);
		}
	}
}
