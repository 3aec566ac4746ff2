/* test_verify_liars.c - verify against servers that break their declarations in the narrowest
 * ways (tests/fixtures/stateful_server.py, recorded through belay proxy with the real SDK
 * client): one file edited in place, only a mode changed, a write on the second call only, a
 * unix connection while declaring a closed world; and the honest stateful counterpart, whose
 * forged record that "looks like a fresh server" is never passed. Each layer on its own: the
 * second-call liar is caught by the in-order pass and missed by the isolated one alone. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
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
	dir = ts_tmpdir("liars");
}

static void teardown(void)
{
	ts_rmtree(dir);
	free(dir);
}

TestSuite(liars, .init = setup, .fini = teardown, .timeout = 300);

static const char *const server[] = {"python3", BELAY_SOURCE_DIR "/tests/fixtures/stateful_server.py", "@WS@", NULL};

/* A session of calls to the fixture, given as a JSON array of {"tool","arguments"}. */
static struct ts_played play(const char *tag, const char *calls)
{
	char *script = xasprintf("{\"cwd\":\"@WS@\",\"calls\":%s}", calls);
	struct ts_played p = ts_play(dir, tag, script, server, "printf 'notes\\n' > @WS@/notes.txt && chmod 644 @WS@/notes.txt",
				     NULL);
	free(script);
	return p;
}

static cJSON *verify(const struct ts_played *p, const char *order)
{
	const char *args[] = {"--state", p->state, "--no-store", "--no-default-invariants", "--order", order, NULL};
	return ts_verify_json(p->trace, args, dir, NULL);
}

static const char *msg_of(const cJSON *v, int k, const char *kind)
{
	const cJSON *s = ts_sub(ts_turn(v, k), "A2", kind, 0);
	return s ? jx_str(s, "message") : "(none)";
}

Test(liars, a_read_only_tool_that_edits_one_existing_file_in_place_fails)
{
	struct ts_played p = play("edit", "[{\"tool\":\"edit_in_place\"}]");
	cJSON *v = verify(&p, "both");
	cr_assert_str_eq(ts_sub_status(ts_turn(v, 0), "A2", "effect", 0), "FAIL", "%s", msg_of(v, 0, "effect"));
	cr_assert(strstr(msg_of(v, 0, "effect"), "notes.txt"), "%s", msg_of(v, 0, "effect"));
	cr_assert(strstr(msg_of(v, 0, "effect"), "changed 1 path"), "%s", msg_of(v, 0, "effect"));
	cJSON_Delete(v);
	ts_played_free(&p);
}

Test(liars, a_read_only_tool_that_only_changes_a_mode_fails)
{
	struct ts_played p = play("chmod", "[{\"tool\":\"chmod_only\"}]");
	cJSON *v = verify(&p, "both");
	cr_assert_str_eq(ts_sub_status(ts_turn(v, 0), "A2", "effect", 0), "FAIL", "%s", msg_of(v, 0, "effect"));
	cr_assert(strstr(msg_of(v, 0, "effect"), "notes.txt"), "%s", msg_of(v, 0, "effect"));
	cJSON_Delete(v);
	ts_played_free(&p);
}

Test(liars, a_tool_that_lies_only_on_its_second_call_is_caught_in_order_and_only_in_order)
{
	struct ts_played p = play("second", "[{\"tool\":\"write_on_second\"},{\"tool\":\"write_on_second\"}]");
	cJSON *v = verify(&p, "both");
	cr_assert_str_eq(jx_str(ts_turn(v, 0), "status"), "PASS", "the first call is honest");
	cr_assert_str_eq(ts_sub_status(ts_turn(v, 1), "A2", "effect", 0), "FAIL", "%s", msg_of(v, 1, "effect"));
	cr_assert(strstr(msg_of(v, 1, "effect"), ".second"), "%s", msg_of(v, 1, "effect"));
	cr_assert(strstr(msg_of(v, 1, "effect"), "in-order"), "names the pass: %s", msg_of(v, 1, "effect"));
	cJSON_Delete(v);
	/* Each pass on its own: only the in-order one sees a second call. */
	v = verify(&p, "session");
	cr_assert_str_eq(ts_sub_status(ts_turn(v, 1), "A2", "effect", 0), "FAIL");
	cJSON_Delete(v);
	v = verify(&p, "isolated");
	cr_assert_str_eq(ts_sub_status(ts_turn(v, 1), "A2", "effect", 0), "PASS",
			 "a fresh server's first call writes nothing: %s", msg_of(v, 1, "effect"));
	cJSON_Delete(v);
	ts_played_free(&p);
}

/* A session of `tool` then count, verified in both orders (the supervisor answering
 * `delay_ms` late in the replays when not NULL): `tool`'s write of .late after its reply is
 * its own effect (A2 FAIL naming it), never the next turn's or nobody's. */
static void late_write_fails_in_both_orders(const char *tag, const char *tool, const char *delay_ms)
{
	char *calls = xasprintf("[{\"tool\":\"%s\"},{\"tool\":\"count\"}]", tool);
	struct ts_played p = play(tag, calls);
	if (delay_ms)
		cr_assert_eq(setenv("BELAY_TEST_SUPERVISOR_DELAY_MS", delay_ms, 1), 0);
	static const char *const orders[] = {"isolated", "session"};
	for (int i = 0; i < 2; i++) {
		cJSON *v = verify(&p, orders[i]);
		cr_assert_str_eq(ts_sub_status(ts_turn(v, 0), "A2", "effect", 0), "FAIL", "%s: %s", orders[i],
				 msg_of(v, 0, "effect"));
		cr_assert(strstr(msg_of(v, 0, "effect"), ".late"), "%s: %s", orders[i], msg_of(v, 0, "effect"));
		cJSON_Delete(v);
	}
	unsetenv("BELAY_TEST_SUPERVISOR_DELAY_MS");
	ts_played_free(&p);
	free(calls);
}

/* The write comes 15 ms after the reply, from a timer thread: the replay's quiet window must
 * not be cut short by the proof that the server is idle (the timer thread sleeps with a
 * timeout), in either pass. */
Test(liars, a_read_only_tool_that_writes_just_after_its_reply_fails_in_both_passes)
{
	late_write_fails_in_both_orders("late", "write_late", NULL);
}

/* The same liar as the thread its timer woke sees it on a loaded machine: runnable, waiting for
 * a CPU, when the quiet window's 30 ms are over. A window that ended by the clock alone read
 * PASS here (seen once beside two CPU hogs with write_late); it must not end while a thread of
 * the server can run. */
Test(liars, a_read_only_tool_whose_writer_is_still_runnable_when_the_window_closes_fails)
{
	late_write_fails_in_both_orders("work", "write_after_work", NULL);
}

/* The same liar when belay's supervisor is slow to decide its open for writing (starved of
 * CPU beside busy neighbours: its thread shares the machine with the replay's): the writer
 * then sleeps in the seccomp notification, neither runnable nor in a wait for input, when the
 * window is over by the clock. Read PASS before the window asked about such threads (seen
 * beside two CPU hogs); the test build's supervisor delay makes it happen every time. */
Test(liars, a_read_only_tool_whose_write_waits_for_the_supervisor_when_the_window_closes_fails)
{
	late_write_fails_in_both_orders("held", "write_after_work", "150");
}

Test(liars, a_closed_world_tool_that_connects_a_unix_socket_fails_on_the_network_axis)
{
	/* on the root disk: the host's /dev/shm (where dir is) is private inside the sandbox */
	char *odir = ts_outside_dir("liars-dial"), *sock = fs_join(odir, "daemon.sock");
	int fd = socket(AF_UNIX, SOCK_STREAM, 0);
	struct sockaddr_un a = {.sun_family = AF_UNIX};
	snprintf(a.sun_path, sizeof a.sun_path, "%s", sock);
	cr_assert_eq(bind(fd, (void *)&a, sizeof a), 0);
	cr_assert_eq(listen(fd, 8), 0);
	char *calls = xasprintf("[{\"tool\":\"dial\",\"arguments\":{\"path\":\"%s\"}}]", sock);
	struct ts_played p = play("dial", calls);
	cJSON *v = verify(&p, "both");
	cr_assert_str_eq(ts_sub_status(ts_turn(v, 0), "A2", "effect:network", 0), "FAIL", "%s",
			 jx_print(ts_turn(v, 0)));
	cr_assert(strstr(msg_of(v, 0, "effect:network"), "daemon.sock"), "%s", msg_of(v, 0, "effect:network"));
	cJSON_Delete(v);
	ts_played_free(&p);
	close(fd);
	free(calls);
	free(sock);
	ts_rmtree(odir);
	free(odir);
}

Test(liars, an_honest_counter_passes_in_order_and_its_fresh_looking_forgery_does_not)
{
	struct ts_played p = play("count", "[{\"tool\":\"count\"},{\"tool\":\"count\"},{\"tool\":\"grow\"}]");
	cJSON *v = verify(&p, "both");
	for (int k = 0; k < 3; k++)
		cr_assert_str_eq(jx_str(ts_turn(v, k), "status"), "PASS", "turn %d: %s", k, jx_print(ts_turn(v, k)));
	const cJSON *s = ts_sub(ts_turn(v, 1), "A2", "replay", 0);
	/* the default skips the fresh server for a call the in-order pass reproduced, and says so;
	 * --order full makes it and names the session state */
	cr_assert_str_eq(jx_str(cJSON_GetArrayItem(cJSON_GetObjectItem(s, "notes"), 0), "kind"), "ISOLATED_SKIPPED");
	/* the last call is a writer whose effect no later pre-state records: the in-order pass
	 * cannot compare it, so it is replayed alone too (both passes, as before) */
	s = ts_sub(ts_turn(v, 2), "A2", "replay", 0);
	cr_assert_str_eq(jx_str(s, "message"), "the recorded result reproduces", "%s", jx_print(ts_turn(v, 2)));
	cr_assert_null(cJSON_GetObjectItem(s, "notes"), "%s", jx_print(s));
	cr_assert(strstr(msg_of(v, 0, "effect"), "not replayed alone"), "%s", msg_of(v, 0, "effect"));
	cJSON_Delete(v);
	v = verify(&p, "full");
	for (int k = 0; k < 3; k++)
		cr_assert_str_eq(jx_str(ts_turn(v, k), "status"), "PASS", "turn %d: %s", k, jx_print(ts_turn(v, k)));
	s = ts_sub(ts_turn(v, 1), "A2", "replay", 0);
	cr_assert_str_eq(jx_str(cJSON_GetArrayItem(cJSON_GetObjectItem(s, "notes"), 0), "kind"), "SESSION_STATE");
	cJSON_Delete(v);
	/* The second reply now says what a fresh server would. */
	ts_edit_reply(p.trace, 0, "count 2", "count 1");
	v = verify(&p, "both");
	cr_assert_str_eq(jx_str(ts_turn(v, 1), "status"), "UNVERIFIED", "%s", jx_print(ts_turn(v, 1)));
	cr_assert_str_eq(jx_str(ts_turn(v, 1), "cause"), "SESSION_ORDER_DIVERGED");
	cJSON_Delete(v);
	/* And a reply neither pass gives is a FAIL. */
	ts_edit_reply(p.trace, 1, "count 1", "count 7");
	v = verify(&p, "both");
	cr_assert_str_eq(jx_str(ts_turn(v, 1), "status"), "FAIL", "%s", jx_print(ts_turn(v, 1)));
	cJSON_Delete(v);
	ts_played_free(&p);
}

/* The proof that ends a quiet window early holds only inside a pid namespace (an orphan
 * outside one leaves the tree): with that layer switched off the windows are waited out,
 * and the honest session still passes. */
#ifdef BELAY_TEST_SWITCHES
static const cJSON *quiet_windows(const cJSON *v)
{
	for (const cJSON *t = v->child; t; t = t->next)
		if (jx_path(t, "summary.quiet_windows"))
			return jx_path(t, "summary.quiet_windows");
	cr_assert_fail("no quiet_windows in the summary");
	return NULL;
}
#endif

Test(liars, the_quiet_proof_is_used_only_inside_a_pid_namespace)
{
#ifdef BELAY_TEST_SWITCHES
	struct ts_played p = play("pidns", "[{\"tool\":\"count\"},{\"tool\":\"count\"}]");
	cJSON *v = verify(&p, "session");
	const cJSON *q = quiet_windows(v);
	cr_assert_gt(cJSON_GetObjectItem(q, "ended_by_proof")->valueint, 0, "the proof ends windows");
	cJSON_Delete(v);
	/* the replay's launcher runs with verify's own environment (never the recorded one, which
	 * reaches only the server, inside: issue 30): the switch goes there */
	setenv("BELAY_TEST_LAYERS_OFF", "pidns", 1);
	v = verify(&p, "session");
	unsetenv("BELAY_TEST_LAYERS_OFF");
	q = quiet_windows(v);
	cr_assert_gt(cJSON_GetObjectItem(q, "windows")->valueint, 0);
	cr_assert_eq(cJSON_GetObjectItem(q, "ended_by_proof")->valueint, 0, "no pid namespace: no proof");
	for (int k = 0; k < 2; k++)
		cr_assert_str_eq(jx_str(ts_turn(v, k), "status"), "PASS", "turn %d", k);
	cJSON_Delete(v);
	ts_played_free(&p);
#else
	cr_skip_test("built without BELAY_TEST_SWITCHES (Debug builds and scripts/test.sh have it)");
#endif
}


/* Issue 34 (3): the order modes reduce the same way. A record that looks like a fresh
 * server's answer, verified with --order session only: the further isolated replays return
 * exactly the record, so it is the same SESSION_ORDER_DIVERGED as with both passes, never a
 * FAIL that says the isolated replays disagree with the record. */
Test(liars, order_session_weighs_the_isolated_replays_like_both_passes_do)
{
	struct ts_played p = play("sessonly", "[{\"tool\":\"count\"},{\"tool\":\"count\"}]");
	ts_edit_reply(p.trace, 0, "count 2", "count 1");
	cJSON *v = verify(&p, "session");
	cr_assert_str_eq(jx_str(ts_turn(v, 0), "status"), "PASS", "%s", jx_print(ts_turn(v, 0)));
	cr_assert_str_eq(jx_str(ts_turn(v, 1), "status"), "UNVERIFIED", "%s", jx_print(ts_turn(v, 1)));
	cr_assert_str_eq(jx_str(ts_turn(v, 1), "cause"), "SESSION_ORDER_DIVERGED");
	cJSON_Delete(v);
	/* a reply no pass gives stays FAIL in session mode too */
	ts_edit_reply(p.trace, 1, "count 1", "count 7");
	v = verify(&p, "session");
	cr_assert_str_eq(jx_str(ts_turn(v, 1), "status"), "FAIL", "%s", jx_print(ts_turn(v, 1)));
	cJSON_Delete(v);
	ts_played_free(&p);
}

/* Issue 34 (1): a tool listed without annotations is judged against the MCP defaults
 * (readOnlyHint false, openWorldHint true), and such a PASS means something: the replay must
 * write what the recording wrote (the next pre-state's delta). A tool never listed stays
 * EFFECT_NOT_DECLARED. */
static char *src_file(const char *odir, const char *content)
{
	char *src = fs_join(odir, "src.txt");
	FILE *f = fopen(src, "w");
	cr_assert(f);
	fputs(content, f);
	fclose(f);
	return src;
}

Test(liars, a_tool_without_annotations_is_judged_against_the_mcp_defaults)
{
	char *odir = ts_outside_dir("bare");
	char *src = src_file(odir, "copy.txt\nhello\n");
	char *calls = xasprintf("[{\"tool\":\"bare_copy\",\"arguments\":{\"from\":\"%s\"}},{\"tool\":\"hidden_write\"},"
				"{\"tool\":\"count\"}]",
				src);
	struct ts_played p = play("bare", calls);
	cJSON *v = verify(&p, "both");
	cr_assert_str_eq(jx_str(ts_turn(v, 0), "status"), "PASS", "%s", jx_print(ts_turn(v, 0)));
	cr_assert(strstr(msg_of(v, 0, "effect"), "readOnlyHint absent (MCP default false)"), "%s", msg_of(v, 0, "effect"));
	cr_assert(strstr(msg_of(v, 0, "effect"), "as the recording did"), "%s", msg_of(v, 0, "effect"));
	cr_assert_str_eq(ts_sub_status(ts_turn(v, 0), "A2", "effect:network", 0), "PASS");
	cr_assert(strstr(msg_of(v, 0, "effect:network"), "openWorldHint absent (MCP default true)"), "%s",
		  msg_of(v, 0, "effect:network"));
	const cJSON *s = ts_sub(ts_turn(v, 0), "A2", "effect", 0);
	cr_assert_str_eq(jx_str(cJSON_GetArrayItem(cJSON_GetObjectItem(s, "notes"), 0), "kind"), "MCP_DEFAULT");
	/* never listed: nothing to judge against */
	cr_assert_str_eq(jx_str(ts_turn(v, 1), "status"), "UNVERIFIED", "%s", jx_print(ts_turn(v, 1)));
	cr_assert_str_eq(jx_str(ts_turn(v, 1), "cause"), "EFFECT_NOT_DECLARED");
	/* the summary counts the defaulted claims apart */
	const cJSON *sum = NULL;
	for (const cJSON *t = v->child; t; t = t->next)
		if (jx_path(t, "summary.claims"))
			sum = jx_path(t, "summary.claims");
	cr_assert(sum, "no claims in the summary");
	cr_assert_eq(jx_path(sum, "effect.mcp_default")->valueint, 1);
	cr_assert_eq(jx_path(sum, "effect.undeclared")->valueint, 1);
	cr_assert_eq(jx_path(sum, "effect.declared")->valueint, 1); /* count */
	cr_assert_eq(jx_path(sum, "network.mcp_default")->valueint, 1);
	cJSON_Delete(v);
	/* the replay now writes other content than the recording did: the result reproduces, the
	 * effect does not */
	free(src_file(odir, "copy.txt\nbye\n"));
	v = verify(&p, "both");
	cr_assert_str_eq(ts_sub_status(ts_turn(v, 0), "A2", "replay", 0), "PASS", "%s", jx_print(ts_turn(v, 0)));
	cr_assert_str_eq(ts_sub_status(ts_turn(v, 0), "A2", "effect", 0), "FAIL", "%s", jx_print(ts_turn(v, 0)));
	cr_assert(strstr(msg_of(v, 0, "effect"), "copy.txt"), "%s", msg_of(v, 0, "effect"));
	cJSON_Delete(v);
	/* and another path */
	free(src_file(odir, "other.txt\nhello\n"));
	for (int i = 0; i < 2; i++) {
		v = verify(&p, i ? "session" : "both");
		cr_assert_str_eq(ts_sub_status(ts_turn(v, 0), "A2", "effect", 0), "FAIL", "%s", jx_print(ts_turn(v, 0)));
		cr_assert(strstr(msg_of(v, 0, "effect"), "other.txt"), "%s", msg_of(v, 0, "effect"));
		cJSON_Delete(v);
	}
	ts_played_free(&p);
	free(calls);
	free(src);
	ts_rmtree(odir);
	free(odir);
}

/* A writer whose output carries the time: the replay's later stamp is the clock, not a lie
 * (UNVERIFIED EFFECT_NONDETERMINISTIC_CLOCK, never FAIL, never PASS); anything else that
 * differs, or a stamp earlier than the recording's, still FAILs. bare_copy writes the
 * source's first line as the file name and the rest as its content. */
struct stamp_case {
	const char *content, *status, *cause;
};

static void stamp_cases(const char *recorded, const struct stamp_case *cases, size_t n)
{
	char *odir = ts_outside_dir("stamp");
	char *src = src_file(odir, recorded);
	char *calls = xasprintf("[{\"tool\":\"bare_copy\",\"arguments\":{\"from\":\"%s\"}},{\"tool\":\"count\"}]", src);
	struct ts_played p = play("bare", calls);
	for (size_t i = 0; i < n; i++) {
		free(src_file(odir, cases[i].content));
		for (int o = 0; o < 2; o++) {
			cJSON *v = verify(&p, o ? "session" : "both");
			const cJSON *t = ts_turn(v, 0);
			cr_expect_str_eq(ts_sub_status(t, "A2", "effect", 0), cases[i].status, "case %zu, %s: %s", i,
					 o ? "session" : "both", jx_print(t));
			if (cases[i].cause)
				cr_expect_str_eq(jx_str(ts_sub(t, "A2", "effect", 0), "cause"), cases[i].cause);
			cr_expect_str_neq(jx_str(t, "status"), "PASS", "case %zu", i);
			cJSON_Delete(v);
		}
	}
	ts_played_free(&p);
	free(calls);
	free(src);
	ts_rmtree(odir);
	free(odir);
}

Test(liars, a_writer_that_stamps_the_time_is_not_a_liar)
{
	static const struct stamp_case cases[] = {
	    {"copy.txt\nbuilt 2026-12-06T05:00:09.654321Z ok\n", "UNVERIFIED", "EFFECT_NONDETERMINISTIC_CLOCK"},
	    {"copy.txt\nbuilt 2026-12-06T05:00:09.654321Z bye\n", "FAIL", NULL},
	    {"copy.txt\nbuilt 2026-12-06T04:00:00.000000Z ok\n", "FAIL", NULL},
	};
	stamp_cases("copy.txt\nbuilt 2026-12-06T05:00:00.123456Z ok\n", cases, sizeof cases / sizeof *cases);
}

Test(liars, a_file_named_by_the_time_is_not_a_liar)
{
	static const struct stamp_case cases[] = {
	    {"log-2026-12-06T05:00:09.txt\nbuilt 2026-12-06T05:00:09.654321Z ok\n", "UNVERIFIED",
	     "EFFECT_NONDETERMINISTIC_CLOCK"},
	    {"log-2026-12-06T05:00:09.txt\nbuilt 2026-12-06T05:00:00.123456Z ok\n", "UNVERIFIED",
	     "EFFECT_NONDETERMINISTIC_CLOCK"},
	    {"log-2026-12-06T05:00:09.txt\nbuilt 2026-12-06T05:00:00.123456Z no\n", "FAIL", NULL},
	    {"log-2026-12-06T04:00:09.txt\nbuilt 2026-12-06T05:00:00.123456Z ok\n", "FAIL", NULL},
	    {"other-2026-12-06T05:00:09.txt\nbuilt 2026-12-06T05:00:00.123456Z ok\n", "FAIL", NULL},
	};
	stamp_cases("log-2026-12-06T05:00:00.txt\nbuilt 2026-12-06T05:00:00.123456Z ok\n", cases,
		    sizeof cases / sizeof *cases);
}
