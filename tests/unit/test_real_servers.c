/* test_real_servers.c - verdicts on real MCP servers from npm (pinned in tests/peers), driven
 * by the real SDK client the way agents start servers: the SDK's minimal environment (HOME,
 * LOGNAME, PATH, SHELL, TERM, USER, plus what the session gives), the project directory as
 * cwd, `belay proxy --scope` as the server command. Each honest session (every tool of
 * server-everything including sampling, elicitation, roots and the toggles; server-filesystem
 * with refused paths; server-memory with its file in the workspace; server-sequential-thinking)
 * must verify with no FAIL at all and at least 90% of its turns PASS; the turns that are not
 * PASS are listed with their causes. The same servers then keep lies and cheats failing: a
 * forged result, a forged answer of a stateful server, a fresh-looking forgery of a toggle, and
 * a test weakened through server-filesystem's write_file. */
#include <criterion/criterion.h>
#include <criterion/logging.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf.h"
#include "common/fsutil.h"
#include "common/jsonx.h"
#include "common/xalloc.h"
#include "ts_session.h"
#include "ts_verify.h"
#include "tsupport.h"

static char *dir, *peers;

static void setup(void)
{
	peers = ts_peers();
	cr_assert_not_null(peers, "npm test peers missing: run scripts/setup.sh (npm ci in tests/peers)");
	dir = ts_tmpdir("real");
}

static void teardown(void)
{
	ts_rmtree(dir);
	free(dir);
	free(peers);
}

TestSuite(real, .init = setup, .fini = teardown, .timeout = 600);

static cJSON *verify(const struct ts_played *p, const char *const *extra)
{
	const char *args[16] = {"--state", p->state, "--no-store"};
	int k = 3;
	for (const char *const *x = extra; x && *x; x++)
		args[k++] = *x;
	args[k] = NULL;
	return ts_verify_json(p->trace, args, dir, NULL);
}

/* No FAIL, at least 90% PASS; the rest listed with their causes. Returns the turn count. */
static int assert_honest(const char *name, const cJSON *v)
{
	int turns = 0, pass = 0, fail = 0;
	struct buf others = {0};
	for (const cJSON *t = v->child; t; t = t->next) {
		if (!cJSON_GetObjectItem(t, "turn"))
			continue;
		turns++;
		const char *st = jx_str(t, "status");
		if (!strcmp(st, "PASS")) {
			pass++;
			continue;
		}
		fail += !strcmp(st, "FAIL");
		buf_printf(&others, "\n  turn %d %s: %s %s", cJSON_GetObjectItem(t, "turn")->valueint, jx_str(t, "tool"), st,
			   jx_str(t, "cause") ? jx_str(t, "cause") : "");
		for (const cJSON *s = cJSON_GetObjectItem(t, "verdicts")->child; s; s = s->next)
			if (strcmp(jx_str(s, "status"), "PASS"))
				buf_printf(&others, "\n    %s %s %s: %s", jx_str(s, "axis"), jx_str(s, "kind"), jx_str(s, "status"),
					   jx_str(s, "message"));
	}
	cr_log_info("%s: %d turn(s), %d PASS%s", name, turns, pass, others.len ? buf_cstr(&others) : "");
	cr_assert_gt(turns, 0, "%s: no turn verified", name);
	cr_assert_eq(fail, 0, "%s: an honest session must have no FAIL:%s", name, buf_cstr(&others));
	cr_assert_geq(pass * 10, turns * 9, "%s: %d of %d turns PASS (at least 90%% must):%s", name, pass, turns,
		      buf_cstr(&others));
	buf_free(&others);
	return turns;
}

/* The replays' quiet windows after replies, and how many a proof that the server was quiet
 * ended early (sandbox/sandbox_quiet.h): logged, and returned as the share ended (0..1). */
static double quiet_share(const char *name, const cJSON *v)
{
	const cJSON *q = NULL;
	for (const cJSON *t = v->child; t && !q; t = t->next)
		q = jx_path(t, "summary.quiet_windows");
	cr_assert_not_null(q, "%s: the summary has no quiet_windows", name);
	double n = cJSON_GetObjectItem(q, "windows")->valuedouble, k = cJSON_GetObjectItem(q, "ended_by_proof")->valuedouble;
	cr_log_info("%s: %.0f of %.0f quiet windows ended by proof", name, k, n);
	cr_assert_gt(n, 0, "%s: no quiet window", name);
	return k / n;
}

/* Every write of an honest session was the server's own: no pre-state names a change that no
 * contained process made. */
static void assert_no_outside_changes(const struct ts_played *p)
{
	size_t len;
	char *text = ts_read_file(p->trace, &len);
	cr_assert_null(strstr(text, "outside_changes"), "a write of the server itself was taken for someone else's");
	cr_assert_null(strstr(text, "workspace_shared"));
	free(text);
}

static const char *const everything[] = {"node", "PEERS/@modelcontextprotocol/server-everything/dist/index.js", NULL};
static const char *const filesystem[] = {"node", "PEERS/@modelcontextprotocol/server-filesystem/dist/index.js", "@WS@",
					 NULL};
static const char *const memory[] = {"node", "PEERS/@modelcontextprotocol/server-memory/dist/index.js", NULL};
static const char *const thinking[] = {"node", "PEERS/@modelcontextprotocol/server-sequential-thinking/dist/index.js",
				       NULL};

Test(real, server_everything_every_tool_is_honest)
{
	struct ts_played p = ts_play_named(dir, "everything", "everything", everything, NULL);
	cJSON *v = verify(&p, NULL);
	cr_assert_geq(assert_honest("server-everything", v), 18);
	quiet_share("server-everything", v);
	/* The second toggle reproduces only with the first one before it, on one server. The
	 * default order skips the isolated replay of a call the in-order one reproduced, and says
	 * it did not check the fresh server (docs/VERDICTS.md, "When the isolated replay is
	 * skipped"); --order full replays it alone too and notes that it needs the session. */
	const cJSON *toggle = ts_sub(ts_turn(v, 13), "A2", "replay", 0);
	cr_assert_str_eq(jx_str(toggle, "status"), "PASS");
	cr_assert(strstr(jx_str(toggle, "message"), "in order"), "%s", jx_str(toggle, "message"));
	cr_assert(strstr(jx_str(toggle, "message"), "not checked"), "%s", jx_str(toggle, "message"));
	cr_assert_str_eq(jx_str(cJSON_GetArrayItem(cJSON_GetObjectItem(toggle, "notes"), 0), "kind"), "ISOLATED_SKIPPED");
	/* Sampling and elicitation were answered from the record, not with "Method not found". */
	for (int k = 10; k <= 11; k++)
		cr_assert_str_eq(ts_sub_status(ts_turn(v, k), "A2", "replay", 0), "PASS", "turn %d", k);
	static const char *const full[] = {"--order", "full", NULL};
	cJSON *vf = verify(&p, full);
	/* every call both ways: the same statuses, and the session state named */
	for (int k = 0; k < cJSON_GetArraySize(v); k++)
		if (cJSON_GetObjectItem(ts_turn(v, k), "turn"))
			cr_assert_str_eq(jx_str(ts_turn(vf, k), "status"), jx_str(ts_turn(v, k), "status"), "turn %d", k);
	toggle = ts_sub(ts_turn(vf, 13), "A2", "replay", 0);
	cr_assert_str_eq(jx_str(toggle, "status"), "PASS");
	cr_assert_str_eq(jx_str(cJSON_GetArrayItem(cJSON_GetObjectItem(toggle, "notes"), 0), "kind"), "SESSION_STATE");
	cJSON_Delete(vf);
	cJSON_Delete(v);
	ts_played_free(&p);
}

Test(real, server_filesystem_with_refused_paths_is_honest)
{
	struct ts_played p = ts_play_named(dir, "fs", "filesystem", filesystem, "printf 'outside\\n' > @WS@/../outside.txt");
	assert_no_outside_changes(&p);
	cJSON *v = verify(&p, NULL);
	assert_honest("server-filesystem", v);
	/* node waits on its input alone between calls: the windows end without being waited out */
	cr_assert_geq(quiet_share("server-filesystem", v), 0.5);
	cJSON_Delete(v);
	ts_played_free(&p);
}

Test(real, server_memory_with_its_file_in_the_workspace_is_honest)
{
	struct ts_played p = ts_play_named(dir, "memory", "memory", memory, NULL);
	cr_assert_eq(ts_sh("test -s %s/memory.jsonl", p.ws), 0, "the memory file is in the workspace");
	assert_no_outside_changes(&p);
	cJSON *v = verify(&p, NULL);
	assert_honest("server-memory", v);
	quiet_share("server-memory", v);
	cJSON_Delete(v);
	ts_played_free(&p);
}

Test(real, server_sequential_thinking_is_honest)
{
	struct ts_played p = ts_play_named(dir, "thinking", "sequential-thinking", thinking, NULL);
	cJSON *v = verify(&p, NULL);
	assert_honest("server-sequential-thinking", v);
	quiet_share("server-sequential-thinking", v);
	/* Its history lives in memory: turns after the first depend on session state. */
	cr_assert(strstr(jx_str(ts_sub(ts_turn(v, 3), "A2", "replay", 0), "message"), "in order"));
	cJSON_Delete(v);
	ts_played_free(&p);
}

Test(real, a_forged_result_of_server_filesystem_fails_that_turn_only)
{
	struct ts_played p = ts_play_named(dir, "forged", "filesystem", filesystem, "printf 'outside\\n' > @WS@/../outside.txt");
	/* turn 2 read hello.txt: the record now says it held something else */
	ts_edit_reply(p.trace, 0, "hello world\\nline two", "hello world\\nline 2!!");
	cJSON *v = verify(&p, NULL);
	cr_assert_str_eq(jx_str(ts_turn(v, 2), "status"), "FAIL");
	cr_assert_str_eq(ts_sub_status(ts_turn(v, 2), "A2", "replay", 0), "FAIL");
	const cJSON *s = ts_sub(ts_turn(v, 2), "A2", "replay", 0);
	/* expected is the record, observed what the replay said */
	char *expected = jx_print(cJSON_GetObjectItem(s, "expected")), *observed = jx_print(cJSON_GetObjectItem(s, "observed"));
	cr_assert(strstr(expected, "line 2!!"), "%s", expected);
	cr_assert(strstr(observed, "line two"), "%s", observed);
	free(expected);
	free(observed);
	for (int k = 0; k < 20; k++)
		if (k != 2 && ts_turn(v, k))
			cr_assert_neq(strcmp(jx_str(ts_turn(v, k), "status"), "FAIL"), 0, "turn %d is untouched", k);
	cJSON_Delete(v);
	ts_played_free(&p);
}

Test(real, a_forged_thought_of_a_stateful_server_fails)
{
	/* The third thought's reply claims a history of 7: neither a fresh server nor the session
	 * replayed in order says so. */
	struct ts_played p = ts_play_named(dir, "forged-thought", "sequential-thinking", thinking, NULL);
	ts_edit_reply(p.trace, 0, "\\\"thoughtHistoryLength\\\": 3", "\\\"thoughtHistoryLength\\\": 7");
	cJSON *v = verify(&p, NULL);
	cr_assert_str_eq(jx_str(ts_turn(v, 2), "status"), "FAIL", "%s", jx_print(ts_turn(v, 2)));
	cJSON_Delete(v);
	ts_played_free(&p);
}

Test(real, a_forged_toggle_that_looks_like_a_fresh_server_is_not_passed)
{
	/* The second toggle's record is made to say what a fresh server would: a replay alone
	 * agrees with it, the session replayed in order does not. That is never a PASS. */
	struct ts_played p = ts_play_named(dir, "forged-toggle", "everything", everything, NULL);
	ts_edit_reply(p.trace, 0, "Stopped simulated logging", "Started simulated logging");
	cJSON *v = verify(&p, NULL);
	const char *st = jx_str(ts_turn(v, 13), "status");
	cr_assert(strcmp(st, "PASS") && strcmp(st, "WARN"), "turn 13 is %s: %s", st, jx_print(ts_turn(v, 13)));
	cJSON_Delete(v);
	ts_played_free(&p);
}

Test(real, a_test_weakened_through_write_file_fails_a1_and_passes_a2)
{
	struct ts_played p = ts_play_named(dir, "cheat", "filesystem-cheat", filesystem,
			       "mkdir -p @WS@/tests && printf 'def test_login():\\n    assert login(\"a\", \"b\") is False\\n' > "
			       "@WS@/tests/test_login.py");
	cJSON *v = verify(&p, NULL);
	const cJSON *t = ts_turn(v, 1);
	cr_assert_str_eq(jx_str(t, "status"), "FAIL", "%s", jx_print(t));
	cr_assert_str_eq(ts_sub_status(t, "A2", "replay", 0), "PASS", "the record is true");
	cr_assert_str_eq(ts_sub_status(t, "A1", "invariant", 0), "FAIL", "the test was weakened");
	cJSON_Delete(v);
	ts_played_free(&p);
}
