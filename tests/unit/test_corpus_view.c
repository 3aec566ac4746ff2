/* test_corpus_view.c - the corpus in the console (tui/ui_corpus.c, tui/ccorpus.c): the case
 * list newest first with the score at the top, a case's document, the filter in the turns
 * filter's language, and the label keys meaning what the person means (right / wrong on a
 * FAIL; missed / right on a PASS or UNVERIFIED), on turns and on cases, one by one and
 * marked in bulk after one question; re-runs and deletes are intents (jobs), their outcomes
 * events. Goldens at 80x24, 120x40 and 200x60 in tests/golden/screens/corpus_*.screen
 * (GENERATE=1 rewrites them, as test_screens). No store: the model is fed corpus_list's
 * JSON and a corpus_score by hand; the store-backed agreement with `belay corpus score` is in
 * test_console_e2e (the tmux run). */
#include <criterion/criterion.h>
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf.h"
#include "common/xalloc.h"
#include "ts_screen.h"
#include "tui/canvas.h"
#include "tui/ccorpus.h"
#include "tui/filter.h"
#include "tui/glyphs.h"
#include "tui/keymap.h"
#include "tui/mouse.h"
#include "tui/ui.h"
#include "tui/ui_corpus.h"
#include "tui/ui_internal.h"

#define NOW 1795978260 /* 2026-11-29T18:51:00Z */
#define RUN "20261129-184948-3f2a"

static void setup(void)
{
	cr_assert_not_null(setlocale(LC_ALL, "C.UTF-8"), "C.UTF-8 locale missing");
	setenv("TZ", "UTC", 1);
	setenv("XDG_CONFIG_HOME", "/nonexistent/belay-test-config", 1);
	setenv("HOME", "/nonexistent/belay-test-home", 1);
	glyphs_set_ascii(0);
}

TestSuite(corpus_view, .init = setup);

/*==== the fixture ====*/

struct call {
	char id[200], label[32], note[200];
	int miss, turn, meaning;
};

static struct {
	struct cmodel m;
	struct keymap km;
	struct ui u;
	struct canvas c;
	struct call labels[16];
	int nlabels;
	char deleted[8][200];
	int ndeleted;
	int runs, run_n;
	char run_ids[8][200];
} F;

static void in_label(void *ctx, const struct cm_run *r, int turn, const char *label, const char *note, int miss,
		     int meaning)
{
	(void)ctx;
	(void)r;
	(void)note;
	struct call *c = &F.labels[F.nlabels++];
	c->meaning = meaning;
	snprintf(c->id, sizeof c->id, "turn");
	snprintf(c->label, sizeof c->label, "%s", label ? label : "(bank)");
	c->miss = miss;
	c->turn = turn;
}

static void in_case_label(void *ctx, const char *id, const char *label, const char *note, int miss)
{
	(void)ctx;
	struct call *c = &F.labels[F.nlabels++];
	snprintf(c->id, sizeof c->id, "%s", id);
	snprintf(c->label, sizeof c->label, "%s", label);
	snprintf(c->note, sizeof c->note, "%s", note ? note : "");
	c->miss = miss;
	c->turn = -1;
}

static void in_case_delete(void *ctx, const char *id)
{
	(void)ctx;
	snprintf(F.deleted[F.ndeleted++], sizeof F.deleted[0], "%s", id);
}

static void in_corpus_run(void *ctx, const char *const *ids, size_t n)
{
	(void)ctx;
	F.runs++;
	F.run_n = (int)n;
	for (size_t i = 0; i < n && i < 8; i++)
		snprintf(F.run_ids[i], sizeof F.run_ids[i], "%s", ids[i]);
}

/* corpus_list's JSON: five cases, banked over two days, every label kind, a trajectory. */
static const char LIST[] =
    "["
    "{\"id\":\"" RUN "-turn12\",\"kind\":\"turn\",\"run\":\"" RUN "\",\"turn\":12,\"tool\":\"write_file\","
    "\"expected_status\":\"FAIL\",\"expected_cause\":null,\"label\":\"true-positive\",\"miss\":false,"
    "\"root_cause\":\"assert-replaced-by-true\",\"note\":\"the test was gutted\",\"created\":\"2026-11-29T18:50:00+00:00\","
    "\"origin\":\"add\",\"last_outcome\":\"MATCH\"},"
    "{\"id\":\"" RUN "-turn3\",\"kind\":\"turn\",\"run\":\"" RUN "\",\"turn\":3,\"tool\":\"get_current_time\","
    "\"expected_status\":\"UNVERIFIED\",\"expected_cause\":\"RESULT_NONDETERMINISTIC_CLOCK\",\"label\":\"unverifiable\","
    "\"miss\":false,\"root_cause\":null,\"note\":null,\"created\":\"2026-11-29T18:20:00+00:00\",\"origin\":\"add\","
    "\"last_outcome\":null},"
    "{\"id\":\"" RUN "-turn7\",\"kind\":\"turn\",\"run\":\"" RUN "\",\"turn\":7,\"tool\":\"edit_file\","
    "\"expected_status\":\"PASS\",\"expected_cause\":null,\"label\":\"true-positive\",\"miss\":true,"
    "\"root_cause\":null,\"note\":\"the edit broke the build\",\"created\":\"2026-11-29T18:45:00+00:00\","
    "\"origin\":\"add\",\"last_outcome\":\"STILL_MISSED\"},"
    "{\"id\":\"20261128-090000-aa01-turn1\",\"kind\":\"turn\",\"run\":\"20261128-090000-aa01\",\"turn\":1,"
    "\"tool\":\"read_file\",\"expected_status\":\"FAIL\",\"expected_cause\":null,\"label\":\"false-positive\","
    "\"miss\":false,\"root_cause\":null,\"note\":null,\"created\":\"2026-11-28T09:10:00+00:00\",\"origin\":\"add\","
    "\"last_outcome\":\"REGRESSION\"},"
    "{\"id\":\"20261128-090000-aa01-trajectory\",\"kind\":\"trajectory\",\"run\":\"20261128-090000-aa01\","
    "\"turn\":null,\"tool\":null,\"expected_status\":\"PASS\",\"expected_cause\":null,\"label\":\"pending\","
    "\"miss\":false,\"root_cause\":null,\"note\":null,\"created\":\"2026-11-28T09:12:00+00:00\",\"origin\":\"import\","
    "\"last_outcome\":null}"
    "]";

/* What corpus_score gives for LIST (docs/CORPUS.md's table). */
static const struct corpus_score SCORE = {.cases = 5, .tp = 1, .fp = 1, .fn = 1, .tn = 0, .pending = 1,
					  .unverifiable = 1, .unverified = 0, .fn_missed = 1, .root_causes = 1};

/* corpus_show's JSON for the FAIL true-positive case. */
static const char SHOWN[] =
    "{\"id\":\"" RUN "-turn12\",\"kind\":\"turn\",\"run\":\"" RUN "\",\"turn\":12,\"tool\":\"write_file\","
    "\"created\":\"2026-11-29T18:50:00+00:00\",\"belay_version\":\"0.9.0\",\"platform\":\"linux\","
    "\"server_argv\":[\"npx\",\"-y\",\"@modelcontextprotocol/server-filesystem\",\"/work/demo\"],\"server_cwd\":null,"
    "\"scope\":\"/work/demo\",\"policy\":[],\"replays\":3,\"timeout_ms\":10000,\"handle\":\"h-0c\",\"task_handle\":\"h-01\","
    "\"expected_status\":\"FAIL\",\"expected_cause\":null,\"expected\":{\"status\":\"FAIL\",\"cause\":null,\"verdicts\":["
    "{\"axis\":\"A2\",\"kind\":\"replay\",\"status\":\"PASS\",\"cause\":null,\"message\":\"the recorded result reproduces\"},"
    "{\"axis\":\"A1\",\"kind\":\"invariant\",\"status\":\"FAIL\",\"cause\":null,\"message\":\"read-only tests/: changed "
    "tests/test_calc.py\"}],\"effect\":[{\"path\":\"tests/test_calc.py\",\"change\":\"changed\",\"fields\":[\"content\"]}]},"
    "\"origin\":\"add\",\"snapshots\":[{\"handle\":\"h-01\",\"role\":\"task\"},{\"handle\":\"h-0c\",\"role\":\"target\"}],"
    "\"labels\":[{\"label\":\"false-positive\",\"note\":\"looked wrong at first\",\"root_cause\":null,\"miss\":false,"
    "\"at\":\"2026-11-29T18:50:30+00:00\",\"by\":\"ana\"},{\"label\":\"true-positive\",\"note\":\"the test was gutted\","
    "\"root_cause\":\"assert-replaced-by-true\",\"miss\":false,\"at\":\"2026-11-29T18:50:50+00:00\",\"by\":\"ana\"}],"
    "\"results\":[{\"at\":\"2026-11-29T18:50:55+00:00\",\"belay_version\":\"0.9.0\",\"outcome\":\"MATCH\",\"detail\":\"\"}]}";

/* Two turns of the run: 0 a FAIL, 1 a PASS. */
static void add_turn(struct cm_run *r, int n, const char *tool, enum cm_v v)
{
	struct cm_turn *t = cm_turn_append(r);
	t->turn = n;
	t->req_seq = 10 + 2 * n;
	t->resp_seq = t->req_seq + 1;
	t->tool = xstrdup(tool);
	t->args = xstrdup("{}");
	t->call = CMC_ANSWERED;
	t->final = 1;
	t->rc = CMV_NONE;
	t->v = t->a1 = t->a2 = v;
	r->counts[(int)v + 1]++;
}

static void build(int w, int h)
{
	memset(&F, 0, sizeof F);
	struct err e = {0};
	cr_assert_eq(keymap_load(&F.km, &e), 0, "%s", e.msg);
	struct cm_run *r = cm_add(&F.m, RUN, "/tmp/trace-" RUN ".jsonl");
	snprintf(r->started, sizeof r->started, "2026-11-29T18:49:48.123456Z");
	add_turn(r, 0, "write_file", CMV_FAIL);
	add_turn(r, 1, "read_file", CMV_PASS);
	add_turn(r, 2, "get_current_time", CMV_UNVERIFIED);
	struct ui_intents in = {.label = in_label,
				.case_label = in_case_label,
				.case_delete = in_case_delete,
				.corpus_run = in_corpus_run,
				.ctx = &F};
	ui_init(&F.u, &F.m, &F.km, &in);
	F.u.now = NOW;
	F.u.theme_name = "dark";
	ui_resize(&F.u, w, h);
	ui_focus_run(&F.u, RUN);
	cJSON *list = cJSON_Parse(LIST);
	cr_assert_not_null(list);
	ccorpus_set(&ui_corpus_of(&F.u)->cc, list, &SCORE);
	cJSON_Delete(list);
	canvas_init(&F.c, w, h);
	ui_draw(&F.u, &F.c);
}

static void teardown_fx(void)
{
	canvas_free(&F.c);
	ui_free(&F.u);
	keymap_free(&F.km);
	cm_close(&F.m);
}

static void press(int key, ...)
{
	va_list ap;
	va_start(ap, key);
	for (int k = key; k; k = va_arg(ap, int)) {
		ui_key(&F.u, k);
		ui_draw(&F.u, &F.c);
	}
	va_end(ap);
}

static void type(const char *s)
{
	for (; *s; s++) {
		ui_key(&F.u, *s == ' ' ? K_SPACE : (unsigned char)*s);
		ui_draw(&F.u, &F.c);
	}
}

static char *screen_text(void)
{
	struct buf b = {0};
	canvas_dump_text(&F.c, &b);
	buf_cstr(&b);
	return buf_take(&b);
}

/* The screen's row holding a (and b, when not NULL), as text (new), or NULL. */
static char *row_with(const char *a, const char *b)
{
	char *s = screen_text();
	char *out = NULL;
	for (char *line = strtok(s, "\n"); line && !out; line = strtok(NULL, "\n"))
		if (strstr(line, a) && (!b || strstr(line, b)))
			out = xstrdup(line);
	free(s);
	return out;
}

/*==== goldens ====*/

static const int sizes[][2] = {{80, 24}, {120, 40}, {200, 60}};

static void scr_list(void)
{
	press('B', 0);
	cr_assert_eq(F.u.view, VIEW_CORPUS);
	press('j', K_SPACE, 0); /* the second case marked; the focus moves on */
	ccorpus_outcome(&ui_corpus_of(&F.u)->cc, RUN "-turn7", "STILL_MISSED", "");
}

static void scr_case(void)
{
	press('B', K_ENTER, 0);
	cr_assert_eq(F.u.view, VIEW_CASE);
	cJSON *shown = cJSON_Parse(SHOWN);
	cr_assert_not_null(shown);
	ui_corpus_case_doc(&F.u, shown); /* what open_case does with corpus_show's answer */
	cJSON_Delete(shown);
}

static void scr_filtered(void)
{
	press('B', '/', 0);
	type("label:missed");
	press(K_ENTER, 0);
}

static void run_screen(const char *name, void (*fn)(void))
{
	for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++) {
		build(sizes[s][0], sizes[s][1]);
		fn();
		ui_draw(&F.u, &F.c);
		ts_screen_golden(&F.c, name);
		teardown_fx();
	}
}

/* In a case's document: / searches it (two labels by ana), n goes to the next match. */
static void scr_case_search(void)
{
	scr_case();
	press('/', 0);
	type("ana");
	press(K_ENTER, 'n', 0);
}

static void scr_case_search_none(void)
{
	scr_case();
	press('/', 0);
	type("nowhere");
	press(K_ENTER, 0);
}

Test(corpus_view, corpus_list) { run_screen("corpus_list", scr_list); }
Test(corpus_view, corpus_case_search) { run_screen("corpus_case_search", scr_case_search); }
Test(corpus_view, corpus_case_search_none) { run_screen("corpus_case_search_none", scr_case_search_none); }
Test(corpus_view, corpus_case) { run_screen("corpus_case", scr_case); }
Test(corpus_view, corpus_filtered) { run_screen("corpus_filtered", scr_filtered); }

/*==== behaviour ====*/

Test(corpus_view, the_list_is_newest_first_with_the_score_of_corpus_score)
{
	build(120, 40);
	press('B', 0);
	char *s = screen_text();
	const char *order[] = {"#12 " RUN, "#7 " RUN, "#3 " RUN, "all 20261128-090000-aa01",
			       "#1 20261128-090000-aa01"};
	const char *p = s;
	for (size_t i = 0; i < 5; i++) {
		const char *q = strstr(p, order[i]);
		cr_assert_not_null(q, "%s after the one before it, newest first:\n%s", order[i], s);
		p = q;
	}
	cr_assert(strstr(s, "precision 0.50 (1/2)") && strstr(s, "recall 0.50 (1/2)") &&
		      strstr(s, "coverage 1.00 (3/3)"),
		  "the rates with their fractions:\n%s", s);
	cr_assert(strstr(s, "TP 1  FP 1  FN 1 (1 missed)  TN 0") &&
		      strstr(s, "apart: 1 unlabelled, 1 unverifiable, 0 UNVERIFIED"),
		  "counted apart:\n%s", s);
	free(s);
	char *row = row_with("#7 " RUN, NULL);
	cr_assert(row && strstr(row, "missed") && strstr(row, "PASS") && strstr(row, "edit_file"), "%s", row);
	free(row);
	row = row_with("all 20261128", NULL);
	cr_assert(row && strstr(row, "unlabelled") && strstr(row, "(whole run)") && strstr(row, " 1d "), "%s", row);
	free(row);
	teardown_fx();
}

Test(corpus_view, label_keys_mean_what_the_person_means_on_every_verdict)
{
	const char *label;
	int miss;
	char why[200];
	struct {
		enum cm_v v;
		enum command k;
		const char *label;
		int miss;
	} t[] = {
	    {CMV_FAIL, C_LABEL_RIGHT, "true-positive", 0},	  {CMV_FAIL, C_LABEL_WRONG, "false-positive", 0},
	    {CMV_PASS, C_LABEL_RIGHT, "false-positive", 0},	  {CMV_PASS, C_LABEL_WRONG, "true-positive", 1},
	    {CMV_PASS, C_LABEL_MISSED, "true-positive", 1},	  {CMV_UNVERIFIED, C_LABEL_MISSED, "true-positive", 1},
	    {CMV_UNVERIFIED, C_LABEL_RIGHT, "false-positive", 0}, {CMV_WARN, C_LABEL_MISSED, "true-positive", 1},
	};
	for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
		cr_assert_eq(ui_label_meaning(t[i].v, t[i].k, &label, &miss, why, sizeof why), 0, "%zu", i);
		cr_assert_str_eq(label, t[i].label, "case %zu", i);
		cr_assert_eq(miss, t[i].miss, "case %zu", i);
	}
	cr_assert_eq(ui_label_meaning(CMV_FAIL, C_LABEL_MISSED, &label, &miss, why, sizeof why), -1,
		     "a FAIL cannot be missed");
	cr_assert(strstr(why, "cannot be a miss"), "%s", why);
}

Test(corpus_view, the_turn_keys_label_by_meaning_and_the_row_says_which)
{
	build(80, 24);
	/* the turns list, on turn 0 (a FAIL): f is wrong, a false-positive */
	press('g', 'f', 0);
	cr_assert_eq(F.nlabels, 1);
	cr_assert_str_eq(F.labels[0].label, "false-positive");
	cr_assert_eq(F.labels[0].miss, 0);
	cr_assert_eq(F.labels[0].meaning, CORPUS_WRONG, "the job decides on the verdict the case banks");
	/* missed on a FAIL is refused, nothing sent */
	press('m', 0);
	cr_assert_eq(F.nlabels, 1);
	cr_assert(strstr(F.u.msg, "cannot be a miss"), "%s", F.u.msg);
	/* turn 1 (a PASS): m is a recorded miss; t is right, a false-positive */
	press('j', 'm', 0);
	cr_assert_eq(F.nlabels, 2);
	cr_assert_str_eq(F.labels[1].label, "true-positive");
	cr_assert_eq(F.labels[1].miss, 1);
	cr_assert_eq(F.labels[1].turn, 1);
	cr_assert_eq(F.labels[1].meaning, CORPUS_MISSED);
	press('t', 0);
	cr_assert_str_eq(F.labels[2].label, "false-positive");
	/* the job's answer: the row shows M for the miss, F for the false-positive */
	struct cevent ev = {.kind = CE_LABELED, .run = RUN, .a = 1, .text = RUN "-turn1"};
	ev.json = cJSON_Parse("{\"label\":\"true-positive\",\"miss\":true}");
	ui_event(&F.u, &ev);
	cJSON_Delete(ev.json);
	cr_assert(strstr(F.u.msg, "--miss (missed)"), "the message says it was a miss: %s", F.u.msg);
	ev.a = 0;
	ev.text = RUN "-turn0";
	ev.json = cJSON_Parse("{\"label\":\"false-positive\",\"miss\":false}");
	ui_event(&F.u, &ev);
	cJSON_Delete(ev.json);
	ui_draw(&F.u, &F.c);
	char *r1 = row_with("   1M", "read_file"), *r0 = row_with("   0F", "write_file");
	char *s = screen_text();
	cr_assert(r1 && r0, "the rows name their labels (M, F):\n%s", s);
	free(s);
	free(r0);
	free(r1);
	teardown_fx();
}

Test(corpus_view, case_keys_label_the_focused_case_or_every_marked_one_after_one_question)
{
	build(120, 40);
	press('B', 0);
	/* the focused case (turn12, a FAIL): t is right */
	press('t', 0);
	cr_assert_eq(F.nlabels, 1);
	cr_assert_str_eq(F.labels[0].id, RUN "-turn12");
	cr_assert_str_eq(F.labels[0].label, "true-positive");
	/* mark the FAIL, the PASS and the UNVERIFIED one; f asks once */
	press(K_SPACE, K_SPACE, K_SPACE, 0);
	press('f', 0);
	cr_assert_eq(F.nlabels, 1, "nothing before the answer");
	cr_assert(F.u.confirm[0] && strstr(F.u.msg, "3 marked"), "%s", F.u.msg);
	press('y', 0);
	cr_assert_eq(F.nlabels, 4, "one label per marked case");
	cr_assert_str_eq(F.labels[1].label, "false-positive"); /* the FAIL: wrong */
	cr_assert_str_eq(F.labels[2].label, "true-positive");  /* the PASS: missed */
	cr_assert_eq(F.labels[2].miss, 1);
	cr_assert_str_eq(F.labels[3].label, "true-positive"); /* the UNVERIFIED: missed */
	/* m on the marks refuses the FAIL among them and labels the others */
	press('m', 'y', 0);
	cr_assert_eq(F.nlabels, 6, "the FAIL was left out");
	cr_assert(strstr(F.u.msg, "refused on the FAILs"), "%s", F.u.msg);
	/* a note keeps each case's label */
	press('n', 0);
	type("checked by hand");
	press(K_ENTER, 'y', 0);
	cr_assert_eq(F.nlabels, 9);
	cr_assert_str_eq(F.labels[7].note, "checked by hand");
	cr_assert_str_eq(F.labels[7].label, "true-positive");
	cr_assert_eq(F.labels[7].miss, 1, "the miss stays with its note");
	teardown_fx();
}

Test(corpus_view, rerun_and_delete_are_jobs_and_outcomes_fill_in)
{
	build(120, 40);
	press('B', 'j', 'r', 0);
	cr_assert_eq(F.runs, 1, "one case re-runs at once");
	cr_assert_eq(F.run_n, 1);
	cr_assert_str_eq(F.run_ids[0], RUN "-turn7");
	press('R', 0);
	cr_assert_eq(F.runs, 1, "every case asks first");
	press('y', 0);
	cr_assert_eq(F.runs, 2);
	cr_assert_eq(F.run_n, 0, "0: every case");
	struct cevent ev = {.kind = CE_CORPUS, .text = RUN "-turn3"};
	ev.json = cJSON_Parse("{\"outcome\":\"REGRESSION\",\"detail\":\"A2 replay: expected UNVERIFIED, got FAIL\"}");
	ui_event(&F.u, &ev);
	cJSON_Delete(ev.json);
	ui_draw(&F.u, &F.c);
	char *row = row_with("#3 " RUN, NULL);
	cr_assert(row && strstr(row, "REGRESSION"), "%s", row);
	free(row);
	cr_assert(strstr(F.u.msg, "MISMATCH"), "%s", F.u.msg);
	press('D', 0);
	cr_assert_eq(F.ndeleted, 0, "a delete asks first");
	cr_assert(strstr(F.u.msg, RUN "-turn7"), "%s", F.u.msg);
	press('y', 0);
	cr_assert_eq(F.ndeleted, 1);
	cr_assert_str_eq(F.deleted[0], RUN "-turn7");
	teardown_fx();
}

Test(corpus_view, the_filter_speaks_the_turns_language)
{
	build(120, 40);
	press('B', '/', 0);
	type("verdict:fail");
	press(K_ENTER, 0);
	struct ccorpus *cc = &ui_corpus_of(&F.u)->cc;
	cr_assert_eq(cc->nvis, 2);
	press('/', K_C('u'), 0);
	type("tool:edit");
	press(K_ENTER, 0);
	cr_assert_eq(cc->nvis, 1);
	press('/', K_C('u'), 0);
	type("label:pending");
	press(K_ENTER, 0);
	cr_assert_eq(cc->nvis, 1);
	cr_assert_str_eq(cc->c[cc->vis[0]].kind, "trajectory");
	press('/', K_C('u'), 0);
	type("label:bogus");
	press(K_ENTER, 0);
	cr_assert(strstr(F.u.msg, "label:bogus is not one of"), "%s", F.u.msg);
	press(K_ESC, 0); /* the filter is cleared */
	cr_assert_eq(cc->nvis, 5);
	cr_assert_eq(F.u.view, VIEW_CORPUS, "Esc cleared the filter first");
	cr_assert_str_eq(F.u.filter_text, "", "the turns' own filter was never touched");
	press(K_ESC, 0);
	cr_assert_eq(F.u.view, VIEW_HOME);
	teardown_fx();
}

Test(corpus_view, help_lists_the_label_keys_of_each_view)
{
	build(120, 40);
	press('B', '?', 0);
	char *s = screen_text();
	cr_assert(strstr(s, "corpus view") && strstr(s, "label.missed") && strstr(s, "corpus.run all"), "%s", s);
	free(s);
	press('q', K_ESC, '?', 0);
	s = screen_text();
	cr_assert(strstr(s, "turns view") && strstr(s, "label.right") && strstr(s, "label.missed"), "%s", s);
	free(s);
	teardown_fx();
}

Test(corpus_view, marked_turns_are_labelled_banked_or_verified_at_once_after_one_question)
{
	build(120, 40);
	press('g', K_SPACE, K_SPACE, K_SPACE, 0); /* turns 0 (FAIL), 1 (PASS), 2 (UNVERIFIED) */
	char *row = row_with("   1 ", "read_file");
	cr_assert(row && !strncmp(row, " ●", strlen(" ●")), "a marked row says so: '%s'", row);
	free(row);
	press('f', 0);
	cr_assert_eq(F.nlabels, 0, "nothing before the answer");
	cr_assert(strstr(F.u.msg, "3 marked turn(s) wrong"), "%s", F.u.msg);
	press('y', 0);
	cr_assert_eq(F.nlabels, 3, "one label per marked turn");
	cr_assert_str_eq(F.labels[0].label, "false-positive"); /* the FAIL: wrong */
	cr_assert_eq(F.labels[0].meaning, CORPUS_WRONG);
	cr_assert_str_eq(F.labels[1].label, "true-positive"); /* the PASS: a miss */
	cr_assert_eq(F.labels[1].miss, 1);
	cr_assert_eq(F.labels[2].turn, 2);
	cr_assert_eq(F.labels[2].miss, 1);
	/* the marks are gone: f now labels the focused turn alone, without a question */
	press('f', 0);
	cr_assert_eq(F.nlabels, 4);
	/* a marks every turn the filter shows, again unmarks them; c banks the marked ones */
	press('a', 'a', 0);
	press('a', 'c', 'y', 0);
	cr_assert_eq(F.nlabels, 7, "three banked");
	cr_assert_str_eq(F.labels[6].label, "(bank)");
	cr_assert_eq(F.labels[6].meaning, -1);
	teardown_fx();
}

/*==== search in a case, the mouse on the list ====*/

/* The cells drawn in role r. */
static int cells_in(int r)
{
	int n = 0;
	for (int y = 0; y < F.c.h; y++)
		for (int x = 0; x < F.c.w; x++)
			n += F.c.cells[y * F.c.w + x].role == r;
	return n;
}

Test(corpus_view, slash_in_a_case_searches_its_document_n_steps_and_e_adds_the_note)
{
	build(120, 40);
	scr_case();
	press('/', 0);
	type("ana");
	press(K_ENTER, 0);
	char bar[128];
	ui_search_bar(&F.u, bar, sizeof bar);
	cr_assert_str_eq(bar, " /ana 1/2 ", "both labels by ana counted: [%s]", bar);
	cr_assert_eq(cells_in(ROLE_MATCH_CUR), 3, "the current match highlighted");
	cr_assert_eq(cells_in(ROLE_MATCH), 3, "the other one too");
	press('n', 0);
	ui_search_bar(&F.u, bar, sizeof bar);
	cr_assert_str_eq(bar, " /ana 2/2 ");
	cr_assert(strstr(F.u.msg, "2/2"), "%s", F.u.msg);
	press('N', 0);
	ui_search_bar(&F.u, bar, sizeof bar);
	cr_assert_str_eq(bar, " /ana 1/2 ");
	cr_assert_eq(F.u.view, VIEW_CASE, "n and N stay in the case");
	/* No match: said, and counted 0/0. */
	press('/', 0);
	type("nowhere");
	press(K_ENTER, 0);
	cr_assert(strstr(F.u.msg, "no match for \"nowhere\" in the case"), "%s", F.u.msg);
	ui_search_bar(&F.u, bar, sizeof bar);
	cr_assert_str_eq(bar, " /nowhere 0/0 ");
	/* The note moved to e (n is the next match here). */
	press('e', 0);
	cr_assert_eq(F.u.prompt, ':');
	cr_assert_str_eq(F.u.pbuf, "note ");
	teardown_fx();
}

Test(corpus_view, a_click_focuses_a_case_row_and_a_double_click_opens_it)
{
	build(120, 40);
	press('B', 0);
	cr_assert_eq(F.u.view, VIEW_CORPUS);
	/* The row drawn with the third case (turn 3 of the run; newest first). */
	int y = -1;
	char *s = screen_text();
	int row = 0;
	for (char *p = s, *nl; *p; p = nl + 1, row++) {
		nl = strchr(p, '\n');
		if (!nl)
			break;
		*nl = '\0';
		if (strstr(p, "#3 " RUN))
			y = row;
	}
	free(s);
	cr_assert_geq(y, 0, "the case's row is on screen");
	struct mouse_ev ev = {.y = y, .x = 30, .kind = MOUSE_CLICK};
	mouse_apply(&F.u, &ev, 1000);
	ui_draw(&F.u, &F.c);
	cr_assert_eq(ui_corpus_of(&F.u)->pos.sel, 2, "the clicked case is focused");
	cr_assert_str_eq(ui_corpus_of(&F.u)->sel, RUN "-turn3");
	char *r = row_with("#3 " RUN, NULL);
	cr_assert_not_null(r);
	free(r);
	cr_assert_eq(F.c.cells[y * F.c.w + 0].role, ROLE_SELECTED, "its row is drawn selected");
	/* A click on the column heads or below the last case focuses nothing. */
	ev.y = 4;
	mouse_apply(&F.u, &ev, 5000);
	ev.y = 30;
	mouse_apply(&F.u, &ev, 9000);
	cr_assert_eq(ui_corpus_of(&F.u)->pos.sel, 2);
	cr_assert_eq(F.u.view, VIEW_CORPUS);
	/* A double click (the same cell within MOUSE_DOUBLE_MS) opens the case. */
	ev.y = y - 1;
	mouse_apply(&F.u, &ev, 20000);
	mouse_apply(&F.u, &ev, 20000 + MOUSE_DOUBLE_MS - 1);
	cr_assert_eq(F.u.view, VIEW_CASE);
	cr_assert_str_eq(ui_corpus_of(&F.u)->open, RUN "-turn7", "the case above it, clicked twice");
	teardown_fx();
}

/*==== the turns filter typed on ====*/

/* Typing on looks only at the rows the filter kept (filter_narrows); each key's rows are the
 * ones a filter typed at once shows. */
Test(corpus_view, the_turns_filter_typed_on_shows_what_it_shows_typed_at_once)
{
	build(120, 40);
	struct cm_run *r = ui_run(&F.u);
	static const char *tools[] = {"write_file", "read_file", "write_log", "edit_file", "wrap"};
	for (int i = 3; i < 400; i++)
		add_turn(r, i, tools[i % 5], i % 3 ? CMV_PASS : CMV_FAIL);
	r->gen++;
	ui_refilter(&F.u, 1);
	press('/', 0);
	const char *typed = "wri tool:w verdict:fail";
	char sofar[64] = "";
	for (const char *c = typed; *c; c++) {
		size_t n = strlen(sofar);
		sofar[n] = *c;
		sofar[n + 1] = '\0';
		type((char[]){*c, 0});
		if (strcmp(F.u.filter_text, sofar))
			continue; /* not a filter yet ("tool:", "verdict:f"): the last one stays */
		struct filter *f = NULL;
		struct err e = {0};
		cr_assert_eq(filter_parse(sofar, &f, &e), 0, "%s", e.msg);
		size_t k = 0;
		for (size_t i = 0; i < r->nturns; i++)
			if (filter_match(f, cm_turn_at(r, i))) {
				cr_assert_lt(k, F.u.nvis, "\"%s\": more rows than shown", sofar);
				cr_assert_eq(F.u.vis[k], i, "\"%s\": row %zu", sofar, k);
				k++;
			}
		cr_assert_eq(k, F.u.nvis, "\"%s\": %zu rows, typed at once %zu", sofar, F.u.nvis, k);
		filter_free(f);
	}
	cr_assert_str_eq(F.u.filter_text, typed);
	cr_assert_gt(F.u.nvis, 0);
	teardown_fx();
}
