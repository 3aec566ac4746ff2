/* test_outside_writers.c - someone else writes in the workspace while belay records: the user
 * (or the agent's own tools) changing a file while a call runs, and a second belay recording
 * the same workspace. The call that may have seen such a change is UNVERIFIED
 * (WORKSPACE_CHANGED_OUTSIDE), never FAIL; the server's own writes are never taken for
 * someone else's; a second recorder is warned about on stderr and named in the trace. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/fsutil.h"
#include "common/jsonx.h"
#include "common/xalloc.h"
#include "ts_session.h"
#include "ts_verify.h"
#include "tsupport.h"

static char *dir;

static void setup(void)
{
	dir = ts_tmpdir("outside");
}

static void teardown(void)
{
	ts_rmtree(dir);
	free(dir);
}

TestSuite(outside, .init = setup, .fini = teardown, .timeout = 300);

Test(outside, a_file_changed_by_the_user_while_a_call_reads_it_is_unverified_never_fail)
{
	struct ts_played p = ts_play_gated(dir, "edit",
					   "[{\"tool\":\"gated_read\"},{\"tool\":\"count\"},{\"tool\":\"grow\"},"
					   "{\"tool\":\"count\"}]",
					   "printf 'after\\n' > @WS@/notes.txt");
	cr_assert(strstr(p.client_out, "notes: after"), "the call saw the user's edit: %s", p.client_out);
	const char *args[] = {"--state", p.state, "--no-store", "--no-default-invariants", NULL};
	cJSON *v = ts_verify_json(p.trace, args, dir, NULL);
	const cJSON *t0 = ts_turn(v, 0);
	cr_assert_str_eq(jx_str(t0, "status"), "UNVERIFIED", "%s", jx_print(t0));
	cr_assert_str_eq(jx_str(t0, "cause"), "WORKSPACE_CHANGED_OUTSIDE");
	cr_assert(strstr(jx_str(ts_sub(t0, "A2", "replay", 0), "message"), "notes.txt"));
	/* grow wrote log.txt itself: never someone else's change; the calls after are PASS */
	for (int k = 1; k <= 3; k++)
		cr_assert_str_eq(jx_str(ts_turn(v, k), "status"), "PASS", "turn %d: %s", k, jx_print(ts_turn(v, k)));
	size_t len;
	char *text = ts_read_file(p.trace, &len);
	char *first = strstr(text, "outside_changes");
	cr_assert_not_null(first);
	cr_assert_null(strstr(first + 1, "outside_changes"), "the server's own writes are its own");
	free(text);
	cJSON_Delete(v);
	ts_played_free(&p);
}

/* Issue 34 (4): a server that writes through a descriptor it opened on an earlier call (an
 * SQLite database, a log) makes no open the supervisor sees; the capture reads which files
 * the contained processes hold open for writing, so those changes are the server's own. */
Test(outside, writes_through_a_file_the_server_holds_open_are_its_own)
{
	static const char *const server[] = {"python3", BELAY_SOURCE_DIR "/tests/fixtures/stateful_server.py", "@WS@", NULL};
	struct ts_played p = ts_play(dir, "held",
				     "{\"cwd\":\"@WS@\",\"calls\":[{\"tool\":\"held_append\"},{\"tool\":\"held_append\"},"
				     "{\"tool\":\"held_append\"},{\"tool\":\"count\"}]}",
				     server, NULL, NULL);
	size_t len;
	char *text = ts_read_file(p.trace, &len);
	cr_assert_null(strstr(text, "outside_changes"), "held.log written through the held descriptor was taken for "
							"someone else's change: %s", strstr(text, "outside_changes"));
	free(text);
	const char *args[] = {"--state", p.state, "--no-store", "--no-default-invariants", NULL};
	cJSON *v = ts_verify_json(p.trace, args, dir, NULL);
	for (int k = 0; k < 3; k++)
		cr_assert_str_neq(jx_str(ts_turn(v, k), "cause") ? jx_str(ts_turn(v, k), "cause") : "", "WORKSPACE_CHANGED_OUTSIDE",
				  "turn %d: %s", k, jx_print(ts_turn(v, k)));
	cJSON_Delete(v);
	ts_played_free(&p);
}

Test(outside, a_second_belay_on_the_same_workspace_is_warned_about_and_named)
{
	char *ws = fs_join(dir, "project"), *st1 = fs_join(dir, "state1"), *st2 = fs_join(dir, "state2");
	char *t1 = fs_join(dir, "t1"), *t2 = fs_join(dir, "t2");
	cr_assert_eq(ts_sh("mkdir -p %s %s %s %s %s && printf 'x\\n' > %s/notes.txt", ws, st1, st2, t1, t2, ws), 0);
	/* The first recorder holds the workspace (a session that waits on its stdin). */
	char *first = xasprintf("(sleep 30 | %s proxy --scope %s --state %s --trace-dir %s -- python3 %s/tests/fixtures/"
				"stateful_server.py %s) > /dev/null 2>&1 & echo $! > %s/first.pid",
				BELAY_BIN, ws, st1, t1, BELAY_SOURCE_DIR, ws, dir);
	cr_assert_eq(ts_sh("%s", first), 0);
	int up = 0;
	for (int i = 0; i < 500 && !up; i++) {
		up = ts_sh("grep -q '\"kind\":\"sandbox\"' %s/*.jsonl 2>/dev/null", t1) == 0;
		usleep(20 * 1000);
	}
	cr_assert(up, "the first recorder started");
	char *script = fs_join(dir, "s.json");
	const char *sj = "{\"cwd\":\"@WS@\",\"calls\":[{\"tool\":\"count\"},{\"tool\":\"count\"}]}";
	char *text = ts_with_ws(sj, ws);
	ts_write_file(script, text, strlen(text));
	char *client = xasprintf("%s/tests/peers/session-client.mjs", BELAY_SOURCE_DIR);
	const char *argv[] = {"node", client, script, "--", BELAY_BIN, "proxy", "--scope", ws, "--state", st2,
			      "--trace-dir", t2, "--", "python3", BELAY_SOURCE_DIR "/tests/fixtures/stateful_server.py", ws, NULL};
	struct ts_out o;
	cr_assert_eq(ts_run(argv, NULL, NULL, NULL, 0, 120, &o), 0);
	cr_assert_eq(o.status, 0, "%s", o.err);
	cr_assert(strstr(o.err, "another belay is already recording this workspace"), "stderr: %s", o.err);
	char *trace = ts_find_trace(t2);
	size_t len;
	char *tt = ts_read_file(trace, &len);
	const char *ws1 = strstr(tt, "\"kind\":\"workspace_shared\"");
	cr_assert_not_null(ws1, "the second recorder names it in the trace");
	cr_assert_null(strstr(ws1 + 1, "\"kind\":\"workspace_shared\""), "once, not once per call:\n%s", tt);
	ts_sh("kill $(cat %s/first.pid) 2>/dev/null; pkill -f 'proxy --scope %s --state %s' 2>/dev/null; true", dir, ws, st1);
	free(tt);
	free(trace);
	ts_out_free(&o);
	free(client);
	free(text);
	free(script);
	free(first);
	free(ws);
	free(st1);
	free(st2);
	free(t1);
	free(t2);
}
