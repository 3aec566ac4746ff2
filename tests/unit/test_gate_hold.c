/* test_gate_hold.c - the admission step inside a real session (libuv loop, real server child),
 * with a capture function of the test's own: no byte of a tools/call reaches the server
 * before its capture returns; each call is pinned to its own pre-state; overlapping calls
 * are named (or share the last pre-state when every outstanding call declared
 * readOnlyHint: true); cancellation retires a call; server output flows during a capture. */
#include <criterion/criterion.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include <uv.h>

#include "common/err.h"
#include "common/fsutil.h"
#include "common/jsonx.h"
#include "common/xalloc.h"
#include "mcp/model.h"
#include "proxy/session.h"
#include "trace/trace_model.h"
#include "trace/trace_reader.h"
#include "proxy/admission.h"
#include "tsupport.h"

#define LINES BELAY_BUILD_DIR "/tests/fixture_lines"

struct cap {
	char *log;
	atomic_int captures;
	atomic_int violations; /* a tools/call already at the server when its capture ran */
	atomic_int last_violated; /* the latest capture saw one (the final state always does) */
	int sleep_ms;
	char last_seen[4096];
};

static cJSON *capture(void *ctx)
{
	struct cap *c = ctx;
	int k = atomic_fetch_add(&c->captures, 1);
	usleep((useconds_t)c->sleep_ms * 1000);
	/* The call being captured is the k-th tools/call; the server must not have it yet. */
	size_t len = 0;
	char *seen = ts_read_file(c->log, &len);
	int calls = 0;
	for (char *p = seen; p && (p = strstr(p, "\"tools/call\"")); p++)
		calls++;
	/* A violation counts once a later capture shows this one was for a call (the last
	 * capture is the final state, taken after every call reached the server). */
	if (atomic_exchange(&c->last_violated, calls > k))
		atomic_fetch_add(&c->violations, 1);
	free(seen);
	cJSON *h = cJSON_CreateObject();
	cJSON_AddStringToObject(h, "status", "present");
	char name[16];
	snprintf(name, sizeof name, "h%d", k);
	cJSON_AddStringToObject(h, "handle", name);
	return h;
}

struct harness {
	char *dir, *trace;
	struct cap cap;
	int client; /* the test's end of the client socket */
	pthread_t loop_thread;
	uv_loop_t loop;
	struct session *s;
	int ended;
};

static void ended(void *ctx, struct session *s, int code)
{
	(void)s;
	(void)code;
	((struct harness *)ctx)->ended = 1;
}

static void *run_loop(void *arg)
{
	struct harness *h = arg;
	uv_run(&h->loop, UV_RUN_DEFAULT);
	return NULL;
}

static struct session_observer obs;
/* Set by a test before start(): configures the gate (effect gate, trials, holds). */
static void (*gate_setup)(struct harness *h, struct admission *g);

static void start(struct harness *h, int delay_ms, const char *tools, int capture_ms)
{
	memset(h, 0, sizeof *h);
	h->dir = ts_tmpdir("gate");
	h->cap.log = fs_join(h->dir, "server.log");
	h->cap.sleep_ms = capture_ms;
	ts_write_file(h->cap.log, "", 0);
	h->trace = fs_join(h->dir, "t.jsonl");
	int sv[2];
	cr_assert_eq(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	h->client = sv[0];
	uv_loop_init(&h->loop);
	struct endpoint *ep = NULL;
	cr_assert_eq(endpoint_open_fd(&h->loop, sv[1], 1, &ep), 0);
	char delay[16];
	snprintf(delay, sizeof delay, "%d", delay_ms);
	static char *argv[5];
	argv[0] = LINES;
	argv[1] = h->cap.log;
	argv[2] = xstrdup(delay);
	argv[3] = (char *)(tools ? tools : "[]");
	argv[4] = NULL;
	obs = (struct session_observer){.ended = ended, .ctx = h};
	struct admission *gate = admission_new(capture, &h->cap, NULL);
	if (gate_setup)
		gate_setup(h, gate);
	struct session_opts o = {
		.argv = argv,
		.trace_path = h->trace,
		.obs = &obs,
		.gate = gate,
		.stderr_fd = -1,
	};
	struct err e = {0};
	cr_assert_eq(session_start(&h->loop, &o, ep, ep, &h->s, &e), 0, "%s", e.msg);
	pthread_create(&h->loop_thread, NULL, run_loop, h);
}

static void send_str(struct harness *h, const char *s)
{
	cr_assert_eq(write(h->client, s, strlen(s)), (ssize_t)strlen(s));
}

/* Reads from the client socket until `n` lines arrived. */
static void read_lines(struct harness *h, int n)
{
	char buf[65536];
	int got = 0;
	while (got < n) {
		ssize_t r = read(h->client, buf, sizeof buf);
		cr_assert_gt(r, 0, "the server's replies did not arrive");
		for (ssize_t i = 0; i < r; i++)
			got += buf[i] == '\n';
	}
}

/* Asks for the tool list (the gate learns the tools' annotations from its answer) and waits
 * for the answer. */
static void list_tools(struct harness *h)
{
	send_str(h, "{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"tools/list\"}\n");
	read_lines(h, 1);
}

static struct trace *finish(struct harness *h);

/* Call 1 to tool `a`, `gap_ms` later call 2 to `b`, both answers read; the session's trace. */
static struct trace *two_calls(struct harness *h, const char *a, int gap_ms, const char *b)
{
	char c[256];
	snprintf(c, sizeof c, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"%s\"}}\n", a);
	send_str(h, c);
	usleep((useconds_t)gap_ms * 1000);
	snprintf(c, sizeof c, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{\"name\":\"%s\"}}\n", b);
	send_str(h, c);
	read_lines(h, 2);
	return finish(h);
}

static struct trace *finish(struct harness *h)
{
	shutdown(h->client, SHUT_WR);
	char buf[4096];
	while (read(h->client, buf, sizeof buf) > 0)
		;
	pthread_join(h->loop_thread, NULL);
	uv_loop_close(&h->loop);
	close(h->client);
	cr_assert(h->ended);
	struct trace *t = NULL;
	struct err e = {0};
	cr_assert_eq(trace_read(h->trace, &t, &e), 0, "%s", e.msg);
	cr_assert_eq(trace_validate(t, &e), 0, "%s", e.msg);
	return t;
}

static void cleanup(struct harness *h, struct trace *t)
{
	trace_free(t);
	ts_rmtree(h->dir);
	free(h->dir);
	free(h->trace);
	free(h->cap.log);
}

/* The state_handle of the n-th client tools/call frame. */
static const cJSON *handle_of(const struct trace *t, int n)
{
	struct model m;
	model_init(&m);
	trace_build_model(t, &m);
	cr_assert_lt((size_t)n, m.nturns, "turn %d missing", n);
	size_t rec = m.frames[m.ex[m.turns[n]].req_frame].rec;
	model_free(&m);
	return t->recs[rec].state_handle;
}

#define CALL(id, tool) "{\"jsonrpc\":\"2.0\",\"id\":" #id ",\"method\":\"tools/call\",\"params\":{\"name\":\"" tool "\"}}\n"

Test(gate_hold, no_byte_of_a_call_reaches_the_server_before_its_capture, .timeout = 30)
{
	struct harness h;
	start(&h, 0, NULL, 150);
	/* Split the call across writes: even its first bytes must wait. */
	const char *c = CALL(1, "x");
	char a[20];
	memcpy(a, c, 19);
	a[19] = '\0';
	send_str(&h, a);
	usleep(50 * 1000);
	send_str(&h, c + 19);
	send_str(&h, CALL(2, "y"));
	read_lines(&h, 2);
	struct trace *t = finish(&h);
	/* One pre-state for the call, and the final state when the server exited. */
	cr_assert_eq(atomic_load(&h.cap.captures), 2);
	cr_assert_eq(atomic_load(&h.cap.violations), 0, "a tools/call reached the server before its pre-state");
	cr_assert_str_eq(jx_str(handle_of(t, 0), "handle"), "h0");
	/* Call 2 arrived while call 1 was held: it is concurrent with it. */
	cr_assert_str_eq(jx_str(handle_of(t, 1), "cause"), "UNRESTORABLE_CONCURRENT_TURN");
	cleanup(&h, t);
}

Test(gate_hold, sequential_calls_get_their_own_pre_states, .timeout = 30)
{
	struct harness h;
	start(&h, 0, NULL, 10);
	for (int i = 0; i < 3; i++) {
		char buf[200];
		snprintf(buf, sizeof buf, "{\"jsonrpc\":\"2.0\",\"id\":%d,\"method\":\"tools/call\",\"params\":{\"name\":\"t\"}}\n", i);
		send_str(&h, buf);
		read_lines(&h, 1);
	}
	struct trace *t = finish(&h);
	for (int i = 0; i < 3; i++) {
		char want[8];
		snprintf(want, sizeof want, "h%d", i);
		cr_assert_str_eq(jx_str(handle_of(t, i), "status"), "present");
		cr_assert_str_eq(jx_str(handle_of(t, i), "handle"), want);
	}
	cleanup(&h, t);
}

Test(gate_hold, pipelined_and_batched_calls_are_named_concurrent, .timeout = 30)
{
	struct harness h;
	start(&h, 200, NULL, 10);
	send_str(&h, CALL(1, "w"));
	usleep(50 * 1000);
	send_str(&h, CALL(2, "w"));
	send_str(&h, "[" "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/call\",\"params\":{\"name\":\"w\"}},"
		     "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"tools/call\",\"params\":{\"name\":\"w\"}}]\n");
	read_lines(&h, 2); /* the fixture ignores the batch line */
	struct trace *t = finish(&h);
	cr_assert_str_eq(jx_str(handle_of(t, 0), "status"), "present");
	cr_assert_str_eq(jx_str(handle_of(t, 1), "cause"), "UNRESTORABLE_CONCURRENT_TURN");
	const cJSON *b = handle_of(t, 2);
	cr_assert_str_eq(jx_str(b, "cause"), "UNRESTORABLE_CONCURRENT_TURN");
	cr_assert(strstr(jx_str(b, "detail"), "one frame carried 2"), "%s", jx_str(b, "detail"));
	cleanup(&h, t);
}

Test(gate_hold, overlap_with_read_only_calls_shares_the_last_pre_state, .timeout = 30)
{
	struct harness h;
	start(&h, 300, "[{\"name\":\"look\",\"annotations\":{\"readOnlyHint\":true}},{\"name\":\"write\"}]", 10);
	list_tools(&h);
	send_str(&h, CALL(1, "look"));
	usleep(50 * 1000);
	send_str(&h, CALL(2, "look"));  /* overlaps a read-only call: shares its pre-state */
	usleep(50 * 1000);
	send_str(&h, CALL(3, "write")); /* overlaps only read-only calls too */
	read_lines(&h, 3);
	struct trace *t = finish(&h);
	const cJSON *h0 = handle_of(t, 0), *h1 = handle_of(t, 1), *h2 = handle_of(t, 2);
	cr_assert_str_eq(jx_str(h0, "handle"), "h0");
	cr_assert_str_eq(jx_str(h1, "handle"), "h0", "the last pre-state still holds");
	const cJSON *deps = cJSON_GetObjectItem(h1, "depends_on_read_only");
	cr_assert_eq(cJSON_GetArraySize(deps), 1, "the dependency on call 1 is recorded");
	cr_assert_str_eq(jx_str(h2, "handle"), "h0");
	cr_assert_eq(cJSON_GetArraySize(cJSON_GetObjectItem(h2, "depends_on_read_only")), 2);
	cr_assert_eq(atomic_load(&h.cap.captures), 2, "one shared pre-state, plus the final state");
	cleanup(&h, t);
}

Test(gate_hold, a_write_in_flight_makes_the_next_call_concurrent, .timeout = 30)
{
	struct harness h;
	start(&h, 300, "[{\"name\":\"look\",\"annotations\":{\"readOnlyHint\":true}},{\"name\":\"write\"}]", 10);
	list_tools(&h);
	struct trace *t = two_calls(&h, "write", 50, "look");
	cr_assert_str_eq(jx_str(handle_of(t, 1), "cause"), "UNRESTORABLE_CONCURRENT_TURN");
	cleanup(&h, t);
}

Test(gate_hold, cancellation_retires_and_server_requests_do_not, .timeout = 30)
{
	struct harness h;
	start(&h, 400, NULL, 10);
	send_str(&h, CALL(7, "slow"));
	usleep(50 * 1000);
	send_str(&h, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{\"requestId\":7}}\n");
	send_str(&h, CALL(8, "next"));
	read_lines(&h, 2);
	struct trace *t = finish(&h);
	cr_assert_str_eq(jx_str(handle_of(t, 1), "status"), "present", "a cancelled call no longer overlaps");
	cleanup(&h, t);
}

/*==== a held call tried first (docs/TRY.md): the console's answers ====*/

/* The test's trial (what trial_route_run would return) and the console's answer, given on
 * the loop thread once the hold is reported (as the console host does). */
static struct {
	int tried;
	char command[256];
	char commands[512]; /* every command tried, in order, ';'-separated */
	int no_overlay;                /* the trial could not run: {"error": ...} */
	int answer;                    /* enum admission_answer, given when held */
	int rc, rc2;                   /* session_admission_resolve's return (first, second answer) */
	uint64_t hold;
	int held_with_trial;
	struct session *s;
	uv_timer_t timer;
} T;

static cJSON *fake_trial(void *ctx, const char *command, const char *cwd)
{
	(void)ctx;
	(void)cwd;
	T.tried++;
	snprintf(T.command, sizeof T.command, "%s", command);
	size_t used = strlen(T.commands);
	snprintf(T.commands + used, sizeof T.commands - used, "%s;", command);
	usleep(100 * 1000); /* long enough for the next call to arrive meanwhile */
	cJSON *r = cJSON_CreateObject();
	if (T.no_overlay) {
		cJSON_AddStringToObject(r, "error", "TRIAL_NO_OVERLAY: overlayfs is not available");
		return r;
	}
	cJSON_AddStringToObject(r, "id", "trial-test-1");
	cJSON_AddStringToObject(r, "brief", "BRIEF: it added out/built.txt in the mirror");
	cJSON_AddStringToObject(r, "command", command);
	return r;
}

static void answer_now(uv_timer_t *t)
{
	(void)t;
	T.rc = session_admission_resolve(T.s, T.hold, (enum admission_answer)T.answer, "tester (console)");
	if (T.rc == BELAY_EINVAL) /* still held: refuse it */
		T.rc2 = session_admission_resolve(T.s, T.hold, ADMISSION_REFUSE, "tester (console)");
	uv_close((uv_handle_t *)&T.timer, NULL);
}

static void on_hold_cb(void *ctx, struct session *s, uint64_t hold, int64_t seq, const char *tool, const cJSON *plan,
		       const cJSON *trial)
{
	(void)ctx;
	(void)seq;
	(void)tool;
	(void)plan;
	T.s = s;
	T.hold = hold;
	T.held_with_trial = trial != NULL && (jx_str(trial, "id") || jx_str(trial, "error"));
	uv_timer_init(&((struct harness *)ctx)->loop, &T.timer);
	uv_timer_start(&T.timer, answer_now, 0, 0);
}

static void enforce_with_trials(struct harness *h, struct admission *g)
{
	cr_assert_eq(ts_sh("printf '#!/bin/sh\\nmkdir -p out && echo built > out/built.txt\\n' > %s/build.sh && chmod 755 %s/build.sh",
			   h->dir, h->dir),
		     0);
	admission_set_policy(g, ADMISSION_ENFORCE, NULL, h->dir, h->dir, NULL);
	g->trial = fake_trial;
	g->on_hold = on_hold_cb;
	g->hold_ctx = h;
}

#define BUILD_CALL                                                                                                         \
	"{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"tools/call\",\"params\":{\"name\":\"run_process\",\"arguments\":{"   \
	"\"command_line\":\"./build.sh\"}}}\n"

/* Runs one held, tried call to its answer; returns the client's reply line (new). */
static char *held_trial_session(struct harness *h, int answer, int no_overlay, struct trace **t)
{
	memset(&T, 0, sizeof T);
	T.answer = answer;
	T.no_overlay = no_overlay;
	gate_setup = enforce_with_trials;
	start(h, 0, NULL, 0);
	gate_setup = NULL;
	send_str(h, BUILD_CALL);
	char buf[65536];
	size_t n = 0;
	while (!memchr(buf, '\n', n)) {
		ssize_t r = read(h->client, buf + n, sizeof buf - 1 - n);
		cr_assert_gt(r, 0, "the call was answered");
		n += (size_t)r;
	}
	buf[n] = '\0';
	*t = finish(h);
	return xstrdup(buf);
}

/* The trace's first non-frame record of `kind` (borrowed), or NULL. */
static const cJSON *rec_of(const struct trace *t, const char *kind, int nth)
{
	for (size_t i = 0; i < t->n; i++) {
		const char *k = jx_str(t->recs[i].obj, "kind");
		if (k && !strcmp(k, kind) && nth-- == 0)
			return t->recs[i].obj;
	}
	return NULL;
}

Test(gate_hold, a_held_call_is_tried_first_and_its_trials_effect_applied_instead, .timeout = 30)
{
	struct harness h;
	struct trace *t;
	char *reply = held_trial_session(&h, ADMISSION_APPLIED, 0, &t);
	cr_assert_eq(T.tried, 1, "tried once before it was held");
	cr_assert_str_eq(T.command, "./build.sh");
	cr_assert(T.held_with_trial, "the hold carries the trial's report");
	cr_assert_eq(T.rc, 0);
	/* the agent is told, by belay, that the effect was applied instead: a tool error with the
	 * trial's report, never a result the server did not produce */
	cJSON *r = cJSON_Parse(reply);
	cr_assert_not_null(r, "%s", reply);
	cr_assert(cJSON_IsTrue(jx_path(r, "result.isError")), "%s", reply);
	const char *text = jx_str(cJSON_GetArrayItem(jx_path(r, "result.content"), 0), "text");
	cr_assert(text && strstr(text, "did not run the call to run_process"), "%s", reply);
	cr_assert(strstr(text, "applied to the workspace, instead, the effect"), "%s", text);
	cr_assert(strstr(text, "trial-test-1") && strstr(text, "BRIEF: it added out/built.txt"), "%s", text);
	const cJSON *gate = cJSON_GetObjectItemCaseSensitive(jx_path(r, "result._meta"), "belay/gate");
	cr_assert_str_eq(jx_str(gate, "outcome"), "applied_instead");
	cr_assert_str_eq(jx_str(gate, "trial_id"), "trial-test-1");
	/* the server never saw the call */
	size_t n;
	char *seen = ts_read_file(h.cap.log, &n);
	cr_assert_null(strstr(seen, "tools/call"), "the server got the call: %s", seen);
	free(seen);
	/* the trace: trying, the trial, held, and the answer naming the trial */
	cr_assert_str_eq(jx_str(rec_of(t, "gate_decision", 0), "outcome"), "trying");
	cr_assert_str_eq(jx_str(rec_of(t, "trial", 0), "id"), "trial-test-1");
	cr_assert_str_eq(jx_str(rec_of(t, "gate_decision", 1), "outcome"), "held");
	const cJSON *ap = rec_of(t, "approval", 0);
	cr_assert_not_null(ap);
	cr_assert(cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(ap, "approved")));
	cr_assert_str_eq(jx_str(ap, "applied_trial"), "trial-test-1");
	cJSON_Delete(r);
	free(reply);
	cleanup(&h, t);
}

Test(gate_hold, applied_instead_is_refused_for_a_call_that_could_not_be_tried, .timeout = 30)
{
	struct harness h;
	struct trace *t;
	char *reply = held_trial_session(&h, ADMISSION_APPLIED, 1, &t);
	cr_assert_eq(T.tried, 1);
	cr_assert_eq(T.rc, BELAY_EINVAL, "nothing was tried, so nothing can have been applied");
	cr_assert_eq(T.rc2, 0, "it stayed held and could still be refused");
	cr_assert(strstr(reply, "refused in the console by tester") != NULL, "%s", reply);
	cr_assert(strstr(reply, "TRIAL_NO_OVERLAY") != NULL, "the refusal names why nothing was tried: %s", reply);
	cr_assert_null(strstr(reply, "applied"), "%s", reply);
	const cJSON *ap = rec_of(t, "approval", 0);
	cr_assert_null(cJSON_GetObjectItemCaseSensitive(ap, "applied_trial"));
	cr_assert_null(rec_of(t, "approval", 1), "one answer recorded");
	free(reply);
	cleanup(&h, t);
}

Test(gate_hold, a_held_call_approved_after_its_trial_runs_for_real, .timeout = 30)
{
	struct harness h;
	struct trace *t;
	char *reply = held_trial_session(&h, ADMISSION_APPROVE, 0, &t);
	cr_assert_eq(T.tried, 1);
	cr_assert_null(strstr(reply, "isError"), "the server's own answer: %s", reply);
	size_t n;
	char *seen = ts_read_file(h.cap.log, &n);
	cr_assert(strstr(seen, "./build.sh") != NULL, "the server got the call: %s", seen);
	free(seen);
	free(reply);
	cleanup(&h, t);
}

static void enforce_headless_trials(struct harness *h, struct admission *g)
{
	enforce_with_trials(h, g);
	g->on_hold = NULL; /* nobody to hold for: refused with the trial's report */
}

Test(gate_hold, calls_that_arrive_while_a_trial_runs_are_tried_after_it_in_order, .timeout = 30)
{
	memset(&T, 0, sizeof T);
	struct harness h;
	gate_setup = enforce_headless_trials;
	start(&h, 0, NULL, 0);
	gate_setup = NULL;
	send_str(&h, BUILD_CALL);
	send_str(&h, "{\"jsonrpc\":\"2.0\",\"id\":6,\"method\":\"tools/call\",\"params\":{\"name\":\"run_process\",\"arguments\":{"
		     "\"command_line\":\"./build.sh --again\"}}}\n");
	char buf[65536];
	size_t n = 0;
	int lines = 0;
	while (lines < 2) {
		ssize_t r = read(h.client, buf + n, sizeof buf - 1 - n);
		cr_assert_gt(r, 0, "both calls were answered");
		for (ssize_t i = 0; i < r; i++)
			lines += buf[n + (size_t)i] == '\n';
		n += (size_t)r;
	}
	buf[n] = '\0';
	struct trace *t = finish(&h);
	cr_assert_eq(T.tried, 2, "the second call got its own trial, not a refusal without one");
	cr_assert_str_eq(T.commands, "./build.sh;./build.sh --again;");
	/* both refusals carry a trial's report, the first call's first */
	char *first = strstr(buf, "\"id\":5"), *second = strstr(buf, "\"id\":6");
	cr_assert(first && second && first < second, "answered in order: %s", buf);
	cr_assert(strstr(first, "BRIEF: it added") && strstr(second, "BRIEF: it added"), "%s", buf);
	cr_assert_not_null(rec_of(t, "trial", 1), "two trial records");
	cleanup(&h, t);
}

/* The state_handle of the client tools/call frame whose bytes hold `needle` (borrowed). */
static const cJSON *call_handle(const struct trace *t, const char *needle)
{
	for (size_t i = 0; i < t->n; i++)
		if (t->recs[i].is_frame && t->recs[i].dir == 0 && strstr(t->recs[i].bytes, "tools/call") &&
		    strstr(t->recs[i].bytes, needle))
			return t->recs[i].state_handle;
	cr_assert_fail("no call frame with %s", needle);
	return NULL;
}

Test(gate_hold, a_call_without_a_usable_id_overlaps_every_later_call, .timeout = 30)
{
	/* "id": null is a request whose end is never signalled: every later call overlaps it, also
	 * when exactly as many tracked calls are outstanding beside it */
	struct harness h;
	start(&h, 300, NULL, 10);
	send_str(&h, "{\"jsonrpc\":\"2.0\",\"id\":null,\"method\":\"tools/call\",\"params\":{\"name\":\"w\"}}\n");
	usleep(50 * 1000);
	struct trace *t = two_calls(&h, "w", 50, "w");
	const cJSON *h1 = call_handle(t, "\"id\":1"), *h2 = call_handle(t, "\"id\":2");
	cr_assert_str_eq(jx_str(h1, "cause"), "UNRESTORABLE_CONCURRENT_TURN");
	cr_assert(strstr(jx_str(h1, "detail"), "without an id"), "%s", jx_str(h1, "detail"));
	cr_assert_str_eq(jx_str(h2, "cause"), "UNRESTORABLE_CONCURRENT_TURN", "two calls were unanswered (one untracked)");
	cleanup(&h, t);
}

Test(gate_hold, a_read_only_call_during_a_capture_depends_on_exactly_the_calls_outstanding, .timeout = 30)
{
	/* call 2 arrives while call 1's pre-state is still being captured: it shares that capture,
	 * depending on call 1 alone */
	struct harness h;
	start(&h, 300, "[{\"name\":\"look\",\"annotations\":{\"readOnlyHint\":true}}]", 300);
	list_tools(&h);
	struct trace *t = two_calls(&h, "look", 100, "look");
	const cJSON *h1 = call_handle(t, "\"id\":1"), *h2 = call_handle(t, "\"id\":2");
	cr_assert_str_eq(jx_str(h2, "handle"), jx_str(h1, "handle"), "the same pre-state");
	const cJSON *deps = cJSON_GetObjectItemCaseSensitive(h2, "depends_on_read_only");
	cr_assert_eq(cJSON_GetArraySize(deps), 1, "on call 1 alone");
	const cJSON *seq1 = NULL;
	for (size_t i = 0; i < t->n && !seq1; i++)
		if (t->recs[i].is_frame && t->recs[i].dir == 0 && strstr(t->recs[i].bytes, "\"id\":1,"))
			seq1 = cJSON_GetObjectItemCaseSensitive(t->recs[i].obj, "seq");
	cr_assert_not_null(seq1);
	cr_assert_eq(cJSON_GetArrayItem(deps, 0)->valuedouble, seq1->valuedouble);
	cleanup(&h, t);
}
