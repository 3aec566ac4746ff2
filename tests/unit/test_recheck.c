/* test_recheck.c - a partial re-check (the console's replay-from-here, `r`) is its own kind
 * of result: stored as such, shown beside the verdict (belay show, the console), never in
 * its place. A turn that FAILed on A1 still shows FAIL and its A1 column after a re-check
 * that does not judge A1; a clock turn does not go from UNVERIFIED to FAIL; a later full
 * verification supersedes the re-check. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/fsutil.h"
#include "common/jsonx.h"
#include "common/xalloc.h"
#include "index/statedb.h"
#include "index/verdict_store.h"
#include "store/store.h"
#include "ts_belay.h"
#include "ts_tmux.h"
#include "tsupport.h"

static char *dir, *state, *db;

static void setup(void)
{
	ts_state_setup("recheck", &dir, &state, &db);
}

static void teardown(void)
{
	ts_state_teardown(dir, state, db);
}

TestSuite(recheck, .init = setup, .fini = teardown, .timeout = 300);

static void one_turn(struct verify_report *r, enum vstatus a2, enum vstatus a1, const char *cause)
{
	memset(r, 0, sizeof *r);
	r->turns = xcalloc(1, sizeof *r->turns);
	r->n = 1;
	struct turn_verdict *v = &r->turns[0];
	v->turn = 0;
	v->tool = xstrdup("write_file");
	v->denials = cJSON_CreateArray();
	verdict_add(v, "A2", "replay", a2, a2 == V_UNVERIFIED ? cause : NULL, NO_EVIDENCE, "replay");
	if ((int)a1 >= 0)
		verdict_add(v, "A1", "invariant", a1, NULL, NO_EVIDENCE, "weakened");
	verdict_reduce(v);
	r->worst = v->status;
}

static const char *status_of(const cJSON *arr)
{
	const cJSON *v = cJSON_GetArrayItem(arr, 0);
	return v ? jx_str(v, "status") : NULL;
}

Test(recheck, the_store_keeps_a_recheck_beside_the_verdict)
{
	struct store *st = NULL;
	struct err e = {0};
	cr_assert_eq(statedb_open(state, &st, &e), 0, "%s", e.msg);
	struct policy pol = {0};
	struct verify_report full, part;
	one_turn(&full, V_PASS, V_FAIL, NULL);
	struct verdict_save vs = {.run = "r1", .trace_path = "/t/r1.jsonl", .policy = &pol, .turn_filter = -1, .report = &full};
	cr_assert_eq(verdict_store_save(st, &vs, NULL, &e), 0, "%s", e.msg);
	one_turn(&part, V_PASS, (enum vstatus)-1, NULL);
	struct verdict_save ps = {.run = "r1", .trace_path = "/t/r1.jsonl", .policy = &pol, .turn_filter = -1, .report = &part,
				  .recheck = 1};
	cr_assert_eq(verdict_store_save(st, &ps, NULL, &e), 0, "%s", e.msg);
	cJSON *v = NULL, *rc = NULL;
	cr_assert_eq(verdict_store_latest(st, "r1", 0, &v, &e), 0, "%s", e.msg);
	cr_assert_str_eq(status_of(v), "FAIL", "the re-check does not replace the verdict");
	cr_assert_eq(cJSON_GetArraySize(cJSON_GetObjectItem(cJSON_GetArrayItem(v, 0), "verdicts")), 2, "A1 kept");
	cr_assert_eq(verdict_store_rechecks(st, "r1", 0, &rc, &e), 0, "%s", e.msg);
	cr_assert_str_eq(status_of(rc), "PASS", "the re-check is kept beside it");
	cJSON_Delete(v);
	cJSON_Delete(rc);
	cr_assert_eq(ts_sql_int(db, "SELECT count(*) FROM verifications WHERE kind = 'recheck'"), 1);
	/* A later full verification supersedes the re-check. */
	verify_report_free(&full);
	one_turn(&full, V_PASS, V_PASS, NULL);
	cr_assert_eq(verdict_store_save(st, &vs, NULL, &e), 0, "%s", e.msg);
	cr_assert_eq(verdict_store_latest(st, "r1", -1, &v, &e), 0, "%s", e.msg);
	cr_assert_str_eq(status_of(v), "PASS");
	cr_assert_eq(verdict_store_rechecks(st, "r1", -1, &rc, &e), 0, "%s", e.msg);
	cr_assert_eq(cJSON_GetArraySize(rc), 0, "a re-check older than the verdict is not shown");
	cJSON_Delete(v);
	cJSON_Delete(rc);
	verify_report_free(&full);
	verify_report_free(&part);
	store_close(st);
}

/* The demo session plus a clock turn (turn 5, `now`). */
static const char *const lines[] = {
    "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-06-18\","
    "\"capabilities\":{},\"clientInfo\":{\"name\":\"ts\",\"version\":\"1\"}}}",
    "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}",
    "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/list\",\"params\":{}}",
    "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/call\",\"params\":{\"name\":\"read_file\",\"arguments\":{\"path\":"
    "\"tests/test_a.py\"}}}",
    "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"tools/call\",\"params\":{\"name\":\"write_file\",\"arguments\":{\"path\":"
    "\"tests/test_a.py\",\"content\":\"def test_a():\\n    assert True\\n\"}}}",
    "{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"tools/call\",\"params\":{\"name\":\"run_tests\",\"arguments\":{}}}",
    "{\"jsonrpc\":\"2.0\",\"id\":6,\"method\":\"tools/call\",\"params\":{\"name\":\"summarize\",\"arguments\":{\"path\":"
    "\"tests/test_a.py\"}}}",
    "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"tools/call\",\"params\":{\"name\":\"no_such_tool\",\"arguments\":{}}}",
    "{\"jsonrpc\":\"2.0\",\"id\":8,\"method\":\"tools/call\",\"params\":{\"name\":\"now\",\"arguments\":{}}}",
    NULL,
};

static cJSON *show_turn(const char *run, int turn)
{
	char n[16];
	snprintf(n, sizeof n, "%d", turn);
	struct ts_out o;
	ts_belay(&o, NULL, "show", run, "--turn", n, "--state", state, "--json", NULL);
	cr_assert_eq(o.status, 0, "%s", o.err);
	cJSON *j = cJSON_Parse(o.out);
	cr_assert_not_null(j, "%s", o.out);
	ts_out_free(&o);
	return j;
}

static const char *axis_status(const cJSON *v, const char *axis)
{
	for (const cJSON *s = cJSON_GetObjectItem(v, "verdicts")->child; s; s = s->next)
		if (!strcmp(jx_str(s, "axis"), axis))
			return jx_str(s, "status");
	return NULL;
}

static char *wait_for(struct ts_tmux *t, const char *const *needles, int timeout)
{
	char *last = NULL;
	char *scr = ts_tmux_wait(t, needles, timeout, &last);
	if (!scr)
		cr_assert_fail("timed out waiting for \"%s\"; the screen:\n%s", needles[0], last ? last : "");
	free(last);
	return scr;
}

static char *row_of(const char *scr, const char *tool)
{
	const char *p = strstr(scr, tool);
	cr_assert_not_null(p, "%s not on screen:\n%s", tool, scr);
	const char *b = p, *e = p;
	while (b > scr && b[-1] != '\n')
		b--;
	while (*e && *e != '\n')
		e++;
	return xstrndup(b, (size_t)(e - b));
}

Test(recheck, replay_from_here_never_replaces_a_verdict_store_show_console)
{
	cr_assert_eq(ts_sh("command -v tmux >/dev/null"), 0, "tmux is needed (scripts/setup.sh installs it)");
	char *trace = ts_record_demo(dir, lines, NULL);
	char *run = xstrdup(strrchr(trace, '/') + 1);
	*strstr(run, ".jsonl") = '\0';
	sleep(1); /* the clock turn's seconds move on */
	struct ts_out o;
	ts_belay(&o, NULL, "verify", trace, "--state", state, NULL);
	cr_assert_eq(o.status, 4, "the demo has FAILs: %s", o.out);
	ts_out_free(&o);
	cJSON *t1 = show_turn(run, 1), *t5 = show_turn(run, 5);
	cr_assert_str_eq(jx_str(cJSON_GetObjectItem(t1, "verdict"), "status"), "FAIL");
	cr_assert_str_eq(axis_status(cJSON_GetObjectItem(t1, "verdict"), "A1"), "FAIL", "the weakened test fails A1");
	cr_assert_str_eq(jx_str(cJSON_GetObjectItem(t5, "verdict"), "status"), "UNVERIFIED");
	cJSON_Delete(t1);
	cJSON_Delete(t5);

	/* Replay from turn 0 in the console. */
	char *cmd = xasprintf("cd %s && env LANG=C.UTF-8 TERM=xterm-256color BELAY_SANDBOX_TMP_BASE=%s %s console --state %s "
			      "--open %s 2>%s/c.err",
			      dir, dir, BELAY_BIN, state, trace, dir);
	struct ts_tmux t;
	cr_assert_eq(ts_tmux_start(&t, dir, 200, 40, cmd), 0);
	const char *up[] = {"TURNS (6)", "FAIL", NULL};
	free(wait_for(&t, up, 30));
	ts_tmux_keys(&t, "g r"); /* from the first turn on */
	const char *done[] = {"re-checked", NULL};
	char *scr = wait_for(&t, done, 180);
	free(scr);
	sleep(1);
	scr = ts_tmux_capture(&t, 0);
	char *row = row_of(scr, "write_file");
	cr_assert(strstr(row, "FAIL") && strstr(row, "↻"), "turn 1 still shows FAIL, with the re-check beside it: %s", row);
	free(row);
	row = row_of(scr, "no_such_tool");
	cr_assert(strstr(row, "↻"), "every turn from the first on was re-checked: %s", row);
	free(row);
	row = row_of(scr, " now ");
	cr_assert(strstr(row, "UNVERIFIED") && !strstr(row, "FAIL"), "the clock turn stays UNVERIFIED: %s", row);
	free(row);
	free(scr);
	ts_tmux_kill(&t);

	/* belay show: the verdict stands, the re-check is beside it. */
	t1 = show_turn(run, 1);
	const cJSON *v1 = cJSON_GetObjectItem(t1, "verdict"), *r1 = cJSON_GetObjectItem(t1, "recheck");
	cr_assert_str_eq(jx_str(v1, "status"), "FAIL", "replay-from-here did not replace the FAIL");
	cr_assert_str_eq(axis_status(v1, "A1"), "FAIL", "nor blank its A1 column");
	cr_assert(cJSON_IsObject(r1), "the re-check is stored and shown");
	cr_assert_str_eq(jx_str(r1, "status"), "PASS", "its result comparison passed");
	cr_assert_null(axis_status(r1, "A1"), "the re-check judged no A1");
	cJSON_Delete(t1);
	t5 = show_turn(run, 5);
	cr_assert_str_eq(jx_str(cJSON_GetObjectItem(t5, "verdict"), "status"), "UNVERIFIED");
	const cJSON *r5 = cJSON_GetObjectItem(t5, "recheck");
	cr_assert(cJSON_IsObject(r5));
	cr_assert_str_neq(jx_str(r5, "status"), "FAIL", "a clock turn's re-check is not a FAIL either (%s)", jx_str(r5, "cause"));
	cJSON_Delete(t5);
	ts_belay(&o, NULL, "show", run, "--state", state, NULL);
	cr_assert(strstr(o.out, "worst     FAIL"), "the run's worst is the verdicts': %s", o.out);
	cr_assert(strstr(o.out, "RE-CHECK"), "%s", o.out);
	ts_out_free(&o);
	ts_belay(&o, NULL, "show", run, "--turn", "1", "--state", state, NULL);
	cr_assert(strstr(o.out, "verdict   FAIL") && strstr(o.out, "re-check  (replay from here"), "%s", o.out);
	ts_out_free(&o);

	/* A full verification afterwards supersedes the re-check. */
	ts_belay(&o, NULL, "verify", trace, "--state", state, "--turn", "1", NULL);
	ts_out_free(&o);
	t1 = show_turn(run, 1);
	cr_assert(cJSON_IsNull(cJSON_GetObjectItem(t1, "recheck")), "the older re-check is no longer shown");
	cJSON_Delete(t1);
	free(cmd);
	free(run);
	free(trace);
}
