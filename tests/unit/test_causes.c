/* test_causes.c - every named UNVERIFIED / NOT_COVERED / WARN cause of verify, produced for
 * real: a scripted agent records a run through `belay __script` (the proxy engine, contained
 * and gated), `belay verify --json` re-executes it, and the test finds the cause. A meta-test
 * fails when a cause is added to the closed list (src/verify/verdict.c) or to
 * docs/VERDICTS.md without a scenario here. */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/un.h>
#include <unistd.h>

#include "common/buf.h"
#include "common/fsutil.h"
#include "common/hash.h"
#include "common/jsonx.h"
#include "common/xalloc.h"
#include "ts_session.h"
#include "ts_verify.h"
#include "tsupport.h"
#include "index/verdict_store.h"
#include "verify/verdict.h"

#define DEMO BELAY_BUILD_DIR "/belay-demo-server"

static char *dir, *ws, *state, *traces;
static const char *const *script_extra; /* more options of `belay __script` (one scenario) */

static void setup(void)
{
	dir = ts_tmpdir("causes");
	chmod(dir, 0755);
	ws = fs_join(dir, "ws");
	state = fs_join(dir, "state");
	traces = fs_join(dir, "traces");
	ts_sh("mkdir -p %s/src %s/tests && printf 'def f():\\n    return 1\\n' > %s/src/m.py && "
	      "printf 'from m import f\\n\\ndef test_f():\\n    assert f() == 1\\n' > %s/tests/test_m.py",
	      ws, ws, ws, ws);
}

static void teardown(void)
{
	ts_rmtree(dir);
	free(dir);
	free(ws);
	free(state);
	free(traces);
}

TestSuite(causes, .init = setup, .fini = teardown, .timeout = 120);

/* Records `steps` against `belay-demo-server KIND ws`. Returns the trace path. */
static char *record_with(const char *steps, const char *kind, int scoped, const char *network, const char *const *prefix,
			 int must_succeed)
{
	char *sp = fs_join(dir, "steps.json");
	ts_write_file(sp, steps, strlen(steps));
	char *tmpbase = xasprintf("BELAY_SANDBOX_TMP_BASE=%s", dir);
	const char *env[] = {tmpbase, NULL};
	const char *argv[32];
	int k = 0;
	for (const char *const *p = prefix; p && *p; p++)
		argv[k++] = *p;
	argv[k++] = BELAY_BIN;
	argv[k++] = "__script";
	argv[k++] = sp;
	argv[k++] = "--state";
	argv[k++] = state;
	argv[k++] = "--trace-dir";
	argv[k++] = traces;
	argv[k++] = "--timeout";
	argv[k++] = "3";
	for (const char *const *p = script_extra; p && *p; p++)
		argv[k++] = *p;
	if (scoped) {
		argv[k++] = "--scope";
		argv[k++] = ws;
		argv[k++] = "--network";
		argv[k++] = network ? network : "deny";
	}
	argv[k++] = "--";
	argv[k++] = DEMO;
	argv[k++] = kind;
	if (strcmp(kind, "clock"))
		argv[k++] = ws;
	argv[k] = NULL;
	struct ts_out o;
	ts_run(argv, env, dir, NULL, 0, 60, &o);
	if (must_succeed)
		cr_assert_eq(o.status, 0, "recording failed (%d): %s", o.status, o.err);
	char *nl = strchr(o.out, '\n');
	cr_assert_not_null(nl, "no trace path printed: %s", o.err);
	*nl = '\0';
	char *trace = xstrdup(o.out);
	ts_out_free(&o);
	free(sp);
	free(tmpbase);
	return trace;
}

static char *record(const char *steps, const char *kind)
{
	return record_with(steps, kind, 1, NULL, NULL, 1);
}

struct vout {
	cJSON *turns;   /* array of turn objects */
	cJSON *summary; /* the summary object */
	int status;
	char *err;
};

static void verify_with(const char *trace, const char *const *extra, const char *const *env, const char *const *prefix,
			struct vout *v)
{
	const char *argv[40];
	int k = 0;
	for (const char *const *p = prefix; p && *p; p++)
		argv[k++] = *p;
	argv[k++] = BELAY_BIN;
	argv[k++] = "verify";
	argv[k++] = trace;
	argv[k++] = "--json";
	argv[k++] = "--state";
	argv[k++] = state;
	int after = 0;
	for (const char *const *x = extra; x && *x; x++) {
		if (!strcmp(*x, "--")) {
			after = 1;
			break;
		}
		argv[k++] = *x;
	}
	if (after) {
		const char *const *x = extra;
		while (strcmp(*x, "--"))
			x++;
		for (; *x; x++)
			argv[k++] = *x;
	}
	argv[k] = NULL;
	struct ts_out o;
	ts_run(argv, env, dir, NULL, 0, 90, &o);
	memset(v, 0, sizeof *v);
	v->turns = cJSON_CreateArray();
	v->status = o.status;
	v->err = xstrdup(o.err);
	for (char *line = strtok(o.out, "\n"); line; line = strtok(NULL, "\n")) {
		cJSON *j = cJSON_Parse(line);
		cr_assert_not_null(j, "verify printed a non-JSON line: %s", line);
		if (cJSON_GetObjectItem(j, "summary")) {
			v->summary = j;
		} else {
			cJSON_AddItemToArray(v->turns, j);
		}
	}
	ts_out_free(&o);
}

static void vout_free(struct vout *v)
{
	cJSON_Delete(v->turns);
	cJSON_Delete(v->summary);
	free(v->err);
}

static const cJSON *turn(const struct vout *v, int k)
{
	for (const cJSON *t = v->turns->child; t; t = t->next)
		if (cJSON_GetObjectItem(t, "turn")->valueint == k)
			return t;
	cr_assert_fail("turn %d missing (status %d): %s", k, v->status, v->err);
	return NULL;
}

/* The sub-verdict of turn k with this cause (any axis/kind), asserting it exists. */
static const cJSON *expect_cause(const struct vout *v, int k, const char *status, const char *cause)
{
	const cJSON *t = turn(v, k);
	for (const cJSON *s = cJSON_GetObjectItem(t, "verdicts")->child; s; s = s->next)
		if (jx_str(s, "cause") && !strcmp(jx_str(s, "cause"), cause) && !strcmp(jx_str(s, "status"), status))
			return s;
	char *dump = jx_print(t);
	cr_assert_fail("turn %d has no %s %s: %s", k, status, cause, dump);
	return NULL;
}

static void produce(const char *trace, int k, const char *status, const char *cause)
{
	struct vout v;
	verify_with(trace, NULL, NULL, NULL, &v);
	expect_cause(&v, k, status, cause);
	/* Honesty: a turn with an UNVERIFIED cause never reduces to PASS. */
	if (!strcmp(status, "UNVERIFIED"))
		cr_assert_str_neq(jx_str(turn(&v, k), "status"), "PASS");
	vout_free(&v);
}

#define INIT "{\"initialize\":{}},"
#define LIST "{\"list\":true},"

/* Rewrites the bytes of the frame with sequence `seq` in a trace (and its hash_raw). */
static void edit_frame(const char *trace, int seq, const char *from, const char *to)
{
	size_t len;
	char *text = ts_read_file(trace, &len);
	struct buf out = {0};
	int done = 0;
	for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
		cJSON *j = cJSON_Parse(line);
		cr_assert_not_null(j);
		const cJSON *sq = cJSON_GetObjectItem(j, "seq");
		if (cJSON_IsNumber(sq) && sq->valueint == seq) {
			struct buf raw = {0};
			const char *b64 = jx_str(j, "raw");
			cr_assert_eq(base64_decode(b64, strlen(b64), &raw), 0);
			char *at = strstr(buf_cstr(&raw), from);
			cr_assert_not_null(at, "frame %d lacks '%s'", seq, from);
			struct buf nb = {0};
			buf_append(&nb, raw.p, (size_t)(at - raw.p));
			buf_puts(&nb, to);
			buf_puts(&nb, at + strlen(from));
			struct buf enc = {0};
			base64_encode(nb.p, nb.len, &enc);
			char h[72];
			sha256_tagged(nb.p, nb.len, h);
			cJSON_ReplaceItemInObject(j, "raw", cJSON_CreateString(buf_cstr(&enc)));
			cJSON_ReplaceItemInObject(j, "hash_raw", cJSON_CreateString(h));
			cJSON_ReplaceItemInObject(j, "hash_canonical", cJSON_CreateNull());
			cJSON_ReplaceItemInObject(j, "canonical_form", cJSON_CreateNull());
			cJSON_ReplaceItemInObject(j, "len", cJSON_CreateNumber((double)nb.len));
			buf_free(&raw);
			buf_free(&nb);
			buf_free(&enc);
			done = 1;
		}
		char *o = jx_print(j);
		buf_puts(&out, o);
		buf_putc(&out, '\n');
		cJSON_free(o);
		cJSON_Delete(j);
	}
	cr_assert(done, "no record with seq %d", seq);
	ts_write_file(trace, out.p, out.len);
	buf_free(&out);
	free(text);
}

/* The seq of the n-th client frame whose method is `method` (or the response to it). */
static int frame_seq(const char *trace, const char *needle, int nth)
{
	size_t len;
	char *text = ts_read_file(trace, &len);
	int found = -1;
	for (char *line = strtok(text, "\n"); line && found < 0; line = strtok(NULL, "\n")) {
		cJSON *j = cJSON_Parse(line);
		const char *b64 = jx_str(j, "raw");
		if (b64) {
			struct buf raw = {0};
			base64_decode(b64, strlen(b64), &raw);
			if (strstr(buf_cstr(&raw), needle) && nth-- == 0)
				found = cJSON_GetObjectItem(j, "seq")->valueint;
			buf_free(&raw);
		}
		cJSON_Delete(j);
	}
	free(text);
	cr_assert_geq(found, 0, "no frame containing %s", needle);
	return found;
}

/* Removes every record line containing `needle` (the trace stays readable, not valid). */
/* Drops the records holding needle and renumbers the rest (a valid trace that never had
 * them: verify refuses a seq gap as trace check does). */
static void drop_records(const char *trace, const char *needle)
{
	size_t len;
	char *text = ts_read_file(trace, &len);
	struct buf out = {0};
	int seq = 0;
	for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n"))
		if (!strstr(line, needle)) {
			cJSON *j = cJSON_Parse(line);
			cr_assert_not_null(j);
			if (cJSON_IsNumber(cJSON_GetObjectItem(j, "seq")))
				cJSON_SetNumberValue(cJSON_GetObjectItem(j, "seq"), seq++);
			char *s = jx_print(j);
			buf_puts(&out, s);
			buf_putc(&out, '\n');
			free(s);
			cJSON_Delete(j);
		}
	ts_write_file(trace, out.p, out.len);
	buf_free(&out);
	free(text);
}

#define INIT "{\"initialize\":{}},"
#define LIST "{\"list\":true},"
#define READ "{\"call\":\"read_file\",\"args\":{\"path\":\"src/m.py\"}}"
#define RUN(cmd) "{\"call\":\"run_process\",\"args\":{\"command_line\":\"" cmd "\"}}"

/*==== pre-state ====*/

static void s_prestate_absent(void)
{
	char *t = record_with("[" INIT LIST READ "]", "editor", 0, NULL, NULL, 1);
	produce(t, 0, "UNVERIFIED", "PRESTATE_ABSENT");
	free(t);
}

static void s_concurrent(void)
{
	char *t = record("[" INIT LIST "{\"parallel\":[{\"call\":\"write_file\",\"args\":{\"path\":\"a\",\"content\":\"1\"}},"
			 "{\"call\":\"write_file\",\"args\":{\"path\":\"b\",\"content\":\"2\"}}]}]",
			 "editor");
	produce(t, 1, "UNVERIFIED", "UNRESTORABLE_CONCURRENT_TURN");
	free(t);
}

static void s_network_not_observed(void)
{
	/* A call that is not re-executed leaves its openWorldHint unchecked: NOT_COVERED. */
	char *t = record("[" INIT LIST "{\"parallel\":[{\"call\":\"write_file\",\"args\":{\"path\":\"a\",\"content\":\"1\"}},"
			 "{\"call\":\"write_file\",\"args\":{\"path\":\"b\",\"content\":\"2\"}}]}]",
			 "editor");
	produce(t, 1, "NOT_COVERED", "NETWORK_NOT_OBSERVED");
	free(t);
}

static void s_snapshot_failed(void)
{
	/* As an unprivileged user, a file the user cannot read cannot be captured. */
	if (geteuid() != 0)
		cr_skip_test("drops to nobody: needs root");
	ts_sh("printf secret > %s/locked && chmod 000 %s/locked && chown -R 65534:65534 %s", ws, ws, dir);
	const char *prefix[] = {"setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", NULL};
	char *t = record_with("[" INIT LIST READ "]", "editor", 1, NULL, prefix, 1);
	struct vout v;
	verify_with(t, NULL, NULL, prefix, &v);
	expect_cause(&v, 0, "UNVERIFIED", "UNRESTORABLE_SNAPSHOT_FAILED");
	vout_free(&v);
	free(t);
}

static void special_file(const char *what)
{
	char *p = fs_join(ws, "special");
	if (!strcmp(what, "fifo")) {
		cr_assert_eq(mkfifo(p, 0644), 0);
	} else if (!strcmp(what, "socket")) {
		int fd = socket(AF_UNIX, SOCK_STREAM, 0);
		struct sockaddr_un a = {.sun_family = AF_UNIX};
		snprintf(a.sun_path, sizeof a.sun_path, "%s", p);
		cr_assert_eq(bind(fd, (void *)&a, sizeof a), 0);
		close(fd);
	} else {
		if (geteuid() != 0)
			cr_skip_test("mknod needs root");
		cr_assert_eq(mknod(p, S_IFCHR | 0644, makedev(1, 3)), 0);
	}
	free(p);
}

static void s_fifo(void)
{
	special_file("fifo");
	char *t = record("[" INIT LIST READ "]", "editor");
	produce(t, 0, "UNVERIFIED", "UNRESTORABLE_FIFO");
	free(t);
}

static void s_socket(void)
{
	special_file("socket");
	char *t = record("[" INIT LIST READ "]", "editor");
	produce(t, 0, "UNVERIFIED", "UNRESTORABLE_SOCKET");
	free(t);
}

static void s_device(void)
{
	special_file("device");
	char *t = record("[" INIT LIST READ "]", "editor");
	produce(t, 0, "UNVERIFIED", "UNRESTORABLE_DEVICE_NODE");
	free(t);
}

static void s_ownership(void)
{
	if (geteuid() != 0)
		cr_skip_test("drops to nobody: needs root");
	ts_sh("chown -R 65534:65534 %s && printf x > %s/roots && chown 0:0 %s/roots", dir, ws, ws);
	const char *prefix[] = {"setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", NULL};
	char *t = record_with("[" INIT LIST READ "]", "editor", 1, NULL, prefix, 1);
	struct vout v;
	verify_with(t, NULL, NULL, prefix, &v);
	expect_cause(&v, 0, "UNVERIFIED", "UNRESTORABLE_OWNERSHIP");
	vout_free(&v);
	free(t);
}

static void s_prestate_not_found(void)
{
	char *t = record("[" INIT LIST READ "]", "editor");
	char *other = fs_join(dir, "other-state");
	const char *extra[] = {"--state", other, NULL};
	struct vout v;
	verify_with(t, extra, NULL, NULL, &v);
	expect_cause(&v, 0, "UNVERIFIED", "PRESTATE_NOT_FOUND");
	vout_free(&v);
	free(other);
	free(t);
}

static void s_handle_invalid(void)
{
	char *t = record("[" INIT LIST READ "]", "editor");
	ts_sh("sed -i 's/\"state_handle\":{\"status\":\"present\"/\"state_handle\":{\"status\":\"bogus\"/' %s", t);
	produce(t, 0, "UNVERIFIED", "PRESTATE_HANDLE_INVALID");
	free(t);
}

static void s_dependency_broken(void)
{
	/* summarize declares readOnlyHint: true and writes; read_file overlaps it and so shares
	 * its pre-state - which the write invalidates. */
	char *t = record("[" INIT LIST "{\"parallel\":[{\"call\":\"summarize\",\"args\":{\"path\":\"src/m.py\"}}," READ "]}]",
			 "all");
	produce(t, 1, "UNVERIFIED", "PRESTATE_DEPENDENCY_BROKEN");
	free(t);
}

/*==== replay ====*/

static void s_server_unknown(void)
{
	char *t = record("[" INIT LIST READ "]", "editor");
	drop_records(t, "\"phase\":\"start\"");
	produce(t, 0, "UNVERIFIED", "SERVER_COMMAND_UNKNOWN");
	free(t);
}

static void s_unrootable(void)
{
	/* The clock server gets no workspace argument and runs outside it. */
	char *t = record("[" INIT LIST "{\"call\":\"now\",\"args\":{}}]", "clock");
	produce(t, 0, "UNVERIFIED", "RELOCATION_UNROOTABLE");
	free(t);
}

static void s_sandbox_unavailable(void)
{
	char *t = record("[" INIT LIST READ "]", "editor");
	const char *prefix[] = {"python3", BELAY_SOURCE_DIR "/tests/fixtures/deny_syscall.py", "landlock_create_ruleset", NULL};
	struct vout v;
	verify_with(t, NULL, NULL, prefix, &v);
	expect_cause(&v, 0, "UNVERIFIED", "REPLAY_SANDBOX_UNAVAILABLE");
	vout_free(&v);
	free(t);
}

static void override(const char *cause, const char *const *server, const char *timeout)
{
	char *t = record("[" INIT LIST READ "]", "editor");
	const char *extra[16];
	int k = 0;
	if (timeout) {
		extra[k++] = "--timeout";
		extra[k++] = timeout;
	}
	extra[k++] = "--";
	for (const char *const *s = server; *s; s++)
		extra[k++] = *s;
	extra[k] = NULL;
	struct vout v;
	verify_with(t, extra, NULL, NULL, &v);
	expect_cause(&v, 0, "UNVERIFIED", cause);
	vout_free(&v);
	free(t);
}

static void s_server_failed(void)
{
	const char *srv[] = {"/nonexistent/belay-no-such-server", "{workspace}", NULL};
	override("REPLAY_SERVER_FAILED", srv, NULL);
}

static void s_server_exited(void)
{
	const char *srv[] = {"/bin/sh", "-c", "exit 0", "{workspace}", NULL};
	override("REPLAY_SERVER_EXITED", srv, NULL);
}

static void s_timeout(void)
{
	const char *srv[] = {"/bin/sh", "-c", "sleep 30", "{workspace}", NULL};
	override("REPLAY_TIMEOUT", srv, "1");
}

static void s_network_refused(void)
{
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	bind(fd, (void *)&a, sizeof a);
	listen(fd, 8);
	socklen_t l = sizeof a;
	getsockname(fd, (void *)&a, &l);
	char *steps = xasprintf("[" INIT LIST RUN("%s __probe connect 127.0.0.1 %d") "]", BELAY_BIN, ntohs(a.sin_port));
	char *t = record_with(steps, "shell", 1, "allow", NULL, 1);
	produce(t, 0, "UNVERIFIED", "REPLAY_NETWORK_REFUSED");
	close(fd);
	free(steps);
	free(t);
}

/* A loopback TCP port that accepts (its descriptor in *fd): the recorded call's database. */
static int listen_loopback(int *fd)
{
	*fd = socket(AF_INET, SOCK_STREAM, 0);
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	cr_assert_eq(bind(*fd, (void *)&a, sizeof a), 0);
	cr_assert_eq(listen(*fd, 8), 0);
	socklen_t l = sizeof a;
	getsockname(*fd, (void *)&a, &l);
	return ntohs(a.sin_port);
}

/* Issue 34: a call whose state lives in a network service (Redis, MySQL) cannot be replayed.
 * Its replay is refused the connection the recorded call made: the turn is UNVERIFIED with
 * REPLAY_NETWORK_REFUSED naming the address, at once (the client's retries never end, so
 * today's REPLAY_TIMEOUT came only after the whole time bound). */
static void expect_external(struct vout *v, int port)
{
	const cJSON *s = expect_cause(v, 0, "UNVERIFIED", "REPLAY_NETWORK_REFUSED");
	const char *m = jx_str(s, "message");
	char *addr = xasprintf("127.0.0.1:%d", port);
	cr_assert(strstr(m, addr), "the message names the address %s: %s", addr, m);
	cr_assert(strstr(m, "outside the workspace"), "%s", m);
	cr_assert(strstr(m, "cannot be told"), "%s", m);
	cr_assert_str_neq(jx_str(turn(v, 0), "status"), "PASS");
	for (const cJSON *x = cJSON_GetObjectItem(turn(v, 0), "verdicts")->child; x; x = x->next)
		cr_assert(!jx_str(x, "cause") || (strcmp(jx_str(x, "cause"), "REPLAY_TIMEOUT") &&
						  strcmp(jx_str(x, "cause"), "REPLAY_SERVER_EXITED")),
			  "%s", jx_print(turn(v, 0)));
	free(addr);
}

Test(causes, external_state_retrying_client_is_named_without_waiting_out_the_timeout)
{
	int fd, port = listen_loopback(&fd);
	/* Like Redis's client: refused, it retries forever. */
	char *steps = xasprintf("[" INIT LIST RUN("until %s __probe connect 127.0.0.1 %d; do sleep 0.05; done") "]",
				BELAY_BIN, port);
	char *t = record_with(steps, "shell", 1, "allow", NULL, 1);
	const char *extra[] = {"--timeout", "60", NULL};
	struct vout v;
	verify_with(t, extra, NULL, NULL, &v);
	expect_external(&v, port);
	vout_free(&v);
	close(fd);
	free(steps);
	free(t);
}

Test(causes, external_state_server_that_exits_when_refused_is_named_not_exited)
{
	int fd, port = listen_loopback(&fd);
	char *steps = xasprintf("[" INIT LIST RUN("%s __probe connect 127.0.0.1 %d") "]", BELAY_BIN, port);
	char *t = record_with(steps, "shell", 1, "allow", NULL, 1);
	/* Replayed by a server that connects to the same address at its start and exits when
	 * refused (like MySQL's). */
	char *script = xasprintf("%s __probe connect 127.0.0.1 %d || exit 3; exec %s shell \"$0\"", BELAY_BIN, port, DEMO);
	const char *extra[] = {"--timeout", "60", "--", "/bin/sh", "-c", script, "{workspace}", NULL};
	struct vout v;
	verify_with(t, extra, NULL, NULL, &v);
	expect_external(&v, port);
	vout_free(&v);
	close(fd);
	free(script);
	free(steps);
	free(t);
}

static void s_result_not_recorded(void)
{
	/* The agent gives up before the answer (scripted timeout 3 s): no response recorded. */
	char *t = record_with("[" INIT LIST RUN("sleep 4; echo late") "]", "shell", 1, NULL, NULL, 0);
	produce(t, 0, "UNVERIFIED", "RESULT_NOT_RECORDED");
	free(t);
}

static void s_frame_truncated(void)
{
	/* Recorded with a 4 KiB cap: turn 0's reply (a read of a 9 KiB file) and turn 1's request
	 * (a write of 9 KiB) are over it. Each is named; the turns after them keep their own
	 * pre-states and pass (a truncated reply once left its call open for the rest of the
	 * run: turn 3 then got turn 0's pre-state, without a.txt, and failed). */
	ts_sh("head -c 9000 /dev/zero | tr '\\0' b > %s/big.txt", ws);
	struct buf big = {0};
	for (int i = 0; i < 9000; i++)
		buf_putc(&big, 'w');
	char *steps = xasprintf("[" INIT LIST "{\"call\":\"read_file\",\"args\":{\"path\":\"big.txt\"}},"
				"{\"call\":\"write_file\",\"args\":{\"path\":\"w.txt\",\"content\":\"%s\"}},"
				"{\"call\":\"write_file\",\"args\":{\"path\":\"a.txt\",\"content\":\"a\"}},"
				"{\"call\":\"read_file\",\"args\":{\"path\":\"a.txt\"}}]",
				buf_cstr(&big));
	const char *const extra[] = {"--frame-cap", "4096", NULL};
	script_extra = extra;
	char *t = record_with(steps, "editor", 1, NULL, NULL, 1);
	script_extra = NULL;
	struct vout v;
	verify_with(t, NULL, NULL, NULL, &v);
	const cJSON *s0 = expect_cause(&v, 0, "UNVERIFIED", "FRAME_TRUNCATED");
	cr_assert_str_eq(jx_str(s0, "kind"), "replay", "turn 0 was re-executed; only its result cannot be compared");
	cr_assert(strstr(jx_str(s0, "message"), "response"), "%s", jx_str(s0, "message"));
	const cJSON *s1 = expect_cause(&v, 1, "UNVERIFIED", "FRAME_TRUNCATED");
	cr_assert(strstr(jx_str(s1, "message"), "request"), "%s", jx_str(s1, "message"));
	cr_assert(!cJSON_IsTrue(cJSON_GetObjectItem(turn(&v, 1), "replayed")), "a truncated request is not re-executed");
	for (int k = 2; k < 4; k++)
		cr_assert_str_eq(jx_str(turn(&v, k), "status"), "PASS", "turn %d is not affected: %s", k,
				 jx_print(turn(&v, k)));
	vout_free(&v);
	free(t);
	free(steps);
	buf_free(&big);
}

static void s_clock(void)
{
	char *t = record("[" INIT LIST "{\"call\":\"now\",\"args\":{}}]", "all");
	produce(t, 0, "UNVERIFIED", "RESULT_NONDETERMINISTIC_CLOCK");
	free(t);
}

static void s_random(void)
{
	/* Nothing but ids (beside the tool's "exit 0"): masking them would leave nothing compared. */
	char *t = record("[" INIT LIST RUN("cat /proc/sys/kernel/random/uuid /proc/sys/kernel/random/uuid "
					    "/proc/sys/kernel/random/uuid") "]",
			 "shell");
	produce(t, 0, "UNVERIFIED", "RESULT_NONDETERMINISTIC_RANDOM");
	free(t);
}

static void s_process(void)
{
	/* A number that depends on the process's run and varies across replays even in the
	 * sandbox's own pid namespace (where $$ is the same every time): its pipe's inode. */
	char *t = record("[" INIT LIST RUN("echo pipe $(readlink /proc/self/fd/1 | tr -dc 0-9)") "]", "shell");
	produce(t, 0, "UNVERIFIED", "RESULT_NONDETERMINISTIC_PROCESS");
	free(t);
}

static void s_unknown(void)
{
	char *t = record("[" INIT LIST RUN("head -c 30 /dev/urandom | base64 | tr -dc g-zG-Z") "]", "shell");
	produce(t, 0, "UNVERIFIED", "RESULT_NONDETERMINISTIC_UNKNOWN");
	free(t);
}

/*==== what the record holds of the session: client answers, environment, order ====*/

static const char *const stateful[] = {"python3", BELAY_SOURCE_DIR "/tests/fixtures/stateful_server.py", "@WS@", NULL};

static void produce_played(const struct ts_played *p, int k, const char *status, const char *cause)
{
	char *saved = state;
	state = p->state;
	produce(p->trace, k, status, cause);
	state = saved;
}

static void s_client_answer_missing(void)
{
	/* The server asks the client with a fresh nonce: no recorded answer matches a replay's. */
	struct ts_played p = ts_play(dir, "ask", "{\"cwd\":\"@WS@\",\"calls\":[{\"tool\":\"ask\"}]}", stateful, NULL, NULL);
	produce_played(&p, 0, "UNVERIFIED", "REPLAY_CLIENT_ANSWER_MISSING");
	ts_played_free(&p);
}

static void s_environment_unavailable(void)
{
	/* The server was started with a token (recorded by hash only) that verify does not have. */
	struct ts_played p = ts_play(dir, "env",
				     "{\"cwd\":\"@WS@\",\"env\":{\"FIXTURE_API_TOKEN\":\"tok-12345678\"},"
				     "\"calls\":[{\"tool\":\"secret_echo\"}]}",
				     stateful, NULL, NULL);
	size_t len;
	char *text = ts_read_file(p.trace, &len);
	cr_assert_null(strstr(text, "tok-12345678"), "the trace never holds a secret's value");
	cr_assert_not_null(strstr(text, "FIXTURE_API_TOKEN"), "its name is recorded");
	free(text);
	produce_played(&p, 0, "UNVERIFIED", "REPLAY_ENVIRONMENT_UNAVAILABLE");
	ts_played_free(&p);
}

static void s_env_refused(void)
{
	/* A trace from elsewhere (its seal stripped: this state directory did not vouch for it)
	 * whose server was started with PYTHONPATH: refused by name, nothing started. */
	struct ts_played p = ts_play(dir, "envref", "{\"cwd\":\"@WS@\",\"env\":{\"PYTHONPATH\":\"@WS@\"},"
						   "\"calls\":[{\"tool\":\"count\"}]}",
				     stateful, NULL, NULL);
	size_t len;
	char *text = ts_read_file(p.trace, &len);
	char *seal = strstr(text, "\"env_seal\":\"");
	cr_assert_not_null(seal, "the recording is sealed");
	memcpy(seal, "\"env_nope\":\"", 12);
	ts_write_file(p.trace, text, len);
	free(text);
	produce_played(&p, 0, "UNVERIFIED", "REPLAY_ENV_REFUSED");
	ts_played_free(&p);
}

static void s_session_order_diverged(void)
{
	/* The second count's record says what a fresh server would say. */
	struct ts_played p = ts_play(dir, "order", "{\"cwd\":\"@WS@\",\"calls\":[{\"tool\":\"count\"},{\"tool\":\"count\"}]}",
				     stateful, NULL, NULL);
	ts_edit_reply(p.trace, 0, "count 2", "count 1");
	produce_played(&p, 1, "UNVERIFIED", "SESSION_ORDER_DIVERGED");
	ts_played_free(&p);
}

static void s_session_order_not_replayed(void)
{
	/* An honest second count, verified on fresh servers only: not a lie, not checked. */
	struct ts_played p = ts_play(dir, "noorder", "{\"cwd\":\"@WS@\",\"calls\":[{\"tool\":\"count\"},{\"tool\":\"count\"}]}",
				     stateful, NULL, NULL);
	char *saved = state;
	state = p.state;
	struct vout v;
	const char *const extra[] = {"--order", "isolated", NULL};
	verify_with(p.trace, extra, NULL, NULL, &v);
	expect_cause(&v, 1, "UNVERIFIED", "SESSION_ORDER_NOT_REPLAYED");
	cr_assert_str_eq(jx_str(turn(&v, 0), "status"), "PASS", "the first call had a fresh server too");
	vout_free(&v);
	state = saved;
	ts_played_free(&p);
}

static void s_workspace_changed_outside(void)
{
	/* The user edits the file a call is reading, after its pre-state was taken. */
	struct ts_played p = ts_play_gated(dir, "outside", "[{\"tool\":\"gated_read\"},{\"tool\":\"count\"}]",
					   "printf 'after\\n' > @WS@/notes.txt");
	produce_played(&p, 0, "UNVERIFIED", "WORKSPACE_CHANGED_OUTSIDE");
	ts_played_free(&p);
}

/*==== declarations ====*/

static void s_effect_clock(void)
{
	/* An honest writer that stamps the time: the replay writes a later stamp. */
	char *t = record("[" INIT LIST RUN("date +%Y-%m-%dT%H:%M:%S.%N > stamp.txt; echo wrote") "," READ "]", "all");
	produce(t, 0, "UNVERIFIED", "EFFECT_NONDETERMINISTIC_CLOCK");
	free(t);
}

static void s_effect_nondeterministic(void)
{
	/* An honest writer of random bytes: every replay writes others, none the recording's. */
	char *t = record("[" INIT LIST RUN("head -c 16 /dev/urandom | od -An -tx1 > rand.txt; echo wrote") "," READ "]", "all");
	produce(t, 0, "UNVERIFIED", "EFFECT_NONDETERMINISTIC");
	free(t);
}

static void s_effect_not_declared(void)
{
	char *t = record("[" INIT READ "]", "editor"); /* no tools/list before the call */
	produce(t, 0, "UNVERIFIED", "EFFECT_NOT_DECLARED");
	free(t);
}

static void s_effect_non_boolean(void)
{
	char *t = record("[" INIT LIST READ "]", "editor");
	int seq = frame_seq(t, "\"tools\":[", 0);
	edit_frame(t, seq, "\"readOnlyHint\":true", "\"readOnlyHint\":\"yes\"");
	produce(t, 0, "UNVERIFIED", "EFFECT_DECLARATION_NON_BOOLEAN");
	free(t);
}

/*==== A1 ====*/

#define WRITE_TEST(content) "{\"call\":\"write_file\",\"args\":{\"path\":\"tests/test_m.py\",\"content\":\"" content "\"}}"

static void s_assertion_undecidable(void)
{
	ts_sh("printf 'def test_out(r):\\n    r.stdout.re_match_lines([\"^ok [0-9]+$\"])\\n' > %s/tests/test_re.py", ws);
	char *t = record("[" INIT LIST "{\"call\":\"write_file\",\"args\":{\"path\":\"tests/test_re.py\",\"content\":"
			 "\"def test_out(r):\\n    r.stdout.re_match_lines([\\\"^ok .*$\\\"])\\n\"}}]",
			 "editor");
	produce(t, 0, "UNVERIFIED", "ASSERTION_UNDECIDABLE");
	free(t);
}

static void s_assertion_unreadable(void)
{
	char *t = record("[" INIT LIST WRITE_TEST("def test_f(:\\n") "]", "editor");
	produce(t, 0, "UNVERIFIED", "ASSERTION_FILE_UNREADABLE");
	free(t);
}

/* A test file in a language the rule does not judge: UNVERIFIED, never PASS. */
static void s_language_not_judged(void)
{
	char *t = record("[" INIT LIST "{\"call\":\"write_file\",\"args\":{\"path\":\"spec/calc_spec.rb\",\"content\":"
			 "\"describe Calc do\\nend\\n\"}}]",
			 "editor");
	produce(t, 0, "UNVERIFIED", "ASSERTION_LANGUAGE_NOT_JUDGED");
	free(t);
}

static void s_test_data_changed(void)
{
	char *t = record("[" INIT LIST "{\"call\":\"write_file\",\"args\":{\"path\":\"tests/golden/login.json\",\"content\":"
			 "\"{\\\"ok\\\": true}\\n\"}}]",
			 "editor");
	produce(t, 0, "WARN", "TEST_DATA_CHANGED");
	free(t);
}

/* The test's expected value changed to another (tests/test_m.py asserts f() == 1). */
static void s_expectation_changed(void)
{
	char *t = record("[" INIT LIST WRITE_TEST("from m import f\\n\\ndef test_f():\\n    assert f() == 2\\n") "]", "editor");
	produce(t, 0, "WARN", "ASSERTION_EXPECTATION_CHANGED");
	free(t);
}

static void s_test_config_not_judged(void)
{
	char *t = record("[" INIT LIST "{\"call\":\"write_file\",\"args\":{\"path\":\"pytest.ini\",\"content\":"
			 "\"[pytest]\\naddopts = -v --strict-markers\\n\"}}]",
			 "editor");
	produce(t, 0, "UNVERIFIED", "TEST_CONFIG_NOT_JUDGED");
	free(t);
}

static void s_budget(void)
{
	char *t = record("[" INIT LIST RUN("for i in $(seq 513); do echo 'assert 1' > tests/test_$i.py; done; echo made") "]",
			 "shell");
	produce(t, 0, "UNVERIFIED", "IN_SCOPE_BUDGET_EXCEEDED");
	free(t);
}

static void s_task_prestate(void)
{
	/* Turn 0 cannot be captured (a FIFO), so the task's first pre-state is missing. */
	special_file("fifo");
	char *t = record("[" INIT LIST RUN("rm special; echo gone") "," RUN("echo 'def test_x():\\\\n    assert True' > tests/test_m.py") "]",
			 "shell");
	produce(t, 1, "UNVERIFIED", "TASK_PRESTATE_UNAVAILABLE");
	free(t);
}

static void s_claim_unclassifiable(void)
{
	char *t = record("[" INIT LIST READ ",{\"claim\":\"I rewrote the module.\"}]", "editor");
	struct vout v;
	verify_with(t, NULL, NULL, NULL, &v);
	const cJSON *tr = cJSON_GetObjectItem(cJSON_GetObjectItem(v.summary, "summary"), "trajectory");
	cr_assert_not_null(tr);
	cr_assert_str_eq(jx_str(tr, "cause"), "CLAIM_UNCLASSIFIABLE");
	vout_free(&v);
	free(t);
}

static void s_evidence_unobservable(void)
{
	/* The only suite run overlapped a write: it cannot be replayed. */
	char *t = record("[" INIT LIST "{\"parallel\":[{\"call\":\"write_file\",\"args\":{\"path\":\"a\",\"content\":\"1\"}},"
			 "{\"call\":\"run_tests\",\"args\":{}}]},{\"claim\":\"All tests pass.\"}]",
			 "editor");
	struct vout v;
	verify_with(t, NULL, NULL, NULL, &v);
	const cJSON *tr = cJSON_GetObjectItem(cJSON_GetObjectItem(v.summary, "summary"), "trajectory");
	cr_assert_not_null(tr);
	cr_assert_str_eq(jx_str(tr, "cause"), "EVIDENCE_UNOBSERVABLE");
	vout_free(&v);
	free(t);
}

/*==== WARN ====*/

static void s_replay_denials(void)
{
	char *t = record("[" INIT LIST RUN("echo x > /outside-belay-test 2>/dev/null; echo done") "]", "shell");
	struct vout v;
	verify_with(t, NULL, NULL, NULL, &v);
	expect_cause(&v, 0, "WARN", "REPLAY_DENIALS");
	cr_assert_str_eq(jx_str(turn(&v, 0), "status"), "WARN");
	vout_free(&v);
	free(t);
}

static void s_protocol_drift(void)
{
	char *t = record("[" INIT LIST READ "]", "editor");
	const char *extra[] = {"--", "/usr/bin/env", "BELAY_DEMO_PROTOCOL=2024-11-05", DEMO, "editor", ws, NULL};
	struct vout v;
	verify_with(t, extra, NULL, NULL, &v);
	expect_cause(&v, 0, "WARN", "PROTOCOL_VERSION_DRIFT");
	vout_free(&v);
	free(t);
}

static void s_refused_by_gate(void)
{
	/* __script --mode enforce: a write outside the workspace asks, headless it is refused. */
	char *sp = fs_join(dir, "steps.json");
	const char *steps = "[" INIT LIST RUN("echo x > /tmp/belay-gate-outside") "]";
	ts_write_file(sp, steps, strlen(steps));
	const char *argv[] = {BELAY_BIN, "__script", sp, "--state", state, "--trace-dir", traces, "--scope", ws, "--mode", "enforce",
			      "--", DEMO, "shell", ws, NULL};
	struct ts_out o;
	ts_run(argv, NULL, dir, NULL, 0, 60, &o);
	cr_assert_eq(o.status, 0, "%s", o.err);
	*strchr(o.out, '\n') = '\0';
	produce(o.out, 0, "UNVERIFIED", "CALL_REFUSED_BY_GATE");
	ts_out_free(&o);
	free(sp);
}

static void s_no_subverdict(void)
{
	struct turn_verdict v = {0};
	verdict_reduce(&v);
	cr_assert_eq(v.status, V_UNVERIFIED);
	cr_assert_str_eq(v.cause, "NO_SUBVERDICT");
	verdict_free(&v);
}

/*==== hook runs (docs/HOOKS.md) ====*/

/* One Claude Code hook event through `belay hook` (in-process, no console, no helper). */
static void hook_event(const char *fmt, const char *arg)
{
	char *payload = xasprintf(fmt, arg ? arg : "");
	char *full = xasprintf("{\"session_id\":\"causes\",\"cwd\":\"%s\",%s}", ws, payload);
	char *rt = fs_join(dir, "run");
	fs_mkdir_p(rt, 0700, NULL);
	char *xdg = xasprintf("XDG_RUNTIME_DIR=%s", rt);
	const char *env[] = {xdg, "BELAY_HOOKD=0", NULL};
	const char *argv[] = {BELAY_BIN, "hook", "claude-code", "--local", "--root", ws, "--state", state, "--trace-dir", traces,
			      NULL};
	struct ts_out o;
	ts_run(argv, env, ws, full, strlen(full), 60, &o);
	cr_assert_eq(o.status, 0, "belay hook: %s", o.err);
	ts_out_free(&o);
	free(xdg);
	free(rt);
	free(full);
	free(payload);
}

static char *hook_trace(void)
{
	return xasprintf("%s/hook-claude-code-causes.jsonl", traces);
}

#define HOOK_PRE(tool, input) "\"hook_event_name\":\"PreToolUse\",\"tool_name\":\"" tool "\",\"tool_use_id\":\"t1\",\"tool_input\":" input
#define HOOK_POST(tool, input, response) \
	"\"hook_event_name\":\"PostToolUse\",\"tool_name\":\"" tool "\",\"tool_use_id\":\"t1\",\"tool_input\":" input \
	",\"tool_response\":" response

static void s_tool_not_reexecuted(void)
{
	/* Read: recorded, never re-executed, never PASS */
	hook_event(HOOK_PRE("Read", "{\"file_path\":\"%s/src/m.py\"}"), ws);
	hook_event(HOOK_POST("Read", "{\"file_path\":\"%s/src/m.py\"}", "{\"type\":\"text\"}"), ws);
	char *t = hook_trace();
	produce(t, 0, "UNVERIFIED", "TOOL_NOT_REEXECUTED");
	free(t);
}

static void s_plan_incomplete(void)
{
	/* a command the gate cannot predict (a script it does not read) ran: there is no plan to
	 * check the replay against */
	ts_sh("printf 'echo hi > made.txt\\n' > %s/go.sh", ws);
	hook_event(HOOK_PRE("Bash", "{\"command\":\"sh go.sh%s\"}"), NULL);
	ts_sh("cd %s && sh go.sh", ws);
	hook_event(HOOK_POST("Bash", "{\"command\":\"sh go.sh%s\"}", "{\"stdout\":\"\",\"stderr\":\"\",\"interrupted\":false}"), NULL);
	char *t = hook_trace();
	produce(t, 0, "NOT_COVERED", "PLAN_INCOMPLETE");
	free(t);
}

static void s_post_state_unexplained(void)
{
	/* between the pre and the post event of an Edit, another file changed too */
	hook_event(HOOK_PRE("Edit", "{\"file_path\":\"%s/src/m.py\",\"old_string\":\"return 1\",\"new_string\":\"return 2\"}"), ws);
	ts_sh("cd %s && sed -i 's/return 1/return 2/' src/m.py && echo stray > src/other.py", ws);
	hook_event(HOOK_POST("Edit", "{\"file_path\":\"%s/src/m.py\",\"old_string\":\"return 1\",\"new_string\":\"return 2\"}", "{}"),
		   ws);
	char *t = hook_trace();
	struct vout v;
	verify_with(t, NULL, NULL, NULL, &v);
	const cJSON *s = expect_cause(&v, 0, "WARN", "POST_STATE_UNEXPLAINED");
	cr_assert(strstr(jx_str(s, "message"), "src/other.py"), "%s", jx_str(s, "message"));
	vout_free(&v);
	free(t);
}

/*==== tests-collected (the census, verify --census) ====*/

/* `verify --census`: the census verdict's cause, asserting it is UNVERIFIED (never PASS). */
static void census_cause(const char *trace, const char *cause, const char *needle)
{
	const char *extra[] = {"--census", NULL};
	struct vout v;
	verify_with(trace, extra, NULL, NULL, &v);
	cr_assert_not_null(v.summary, "no summary (%d): %s", v.status, v.err);
	const cJSON *c = cJSON_GetObjectItem(cJSON_GetObjectItem(v.summary, "summary"), "census");
	cr_assert_not_null(c, "no census verdict: %s", v.err);
	cr_assert_str_eq(jx_str(c, "status"), "UNVERIFIED", "%s", jx_print(c));
	cr_assert_str_eq(jx_str(c, "cause"), cause, "%s", jx_print(c));
	const cJSON *sub = cJSON_GetObjectItem(c, "verdicts")->child;
	cr_assert(sub && strstr(jx_str(sub, "message"), needle), "%s", jx_print(c));
	cr_assert_neq(v.status, 0);
	vout_free(&v);
}

static void s_census_no_runner(void)
{
	/* nothing any runner of the census collects: no Python test, no go.mod */
	ts_sh("rm -rf %s/tests", ws);
	char *t = record("[" INIT LIST RUN("echo note > notes.txt") "]", "shell");
	census_cause(t, "CENSUS_NO_RUNNER", "no test runner");
	free(t);
}

static void s_census_failed(void)
{
	/* a conftest.py that breaks the collection in both states */
	ts_sh("printf 'raise RuntimeError(\"broken conftest\")\\n' > %s/conftest.py", ws);
	char *t = record("[" INIT LIST RUN("echo note > notes.txt") "]", "shell");
	census_cause(t, "CENSUS_FAILED", "both states");
	free(t);
}

static void s_census_needs_network(void)
{
	/* a conftest.py that fetches something at collection: the contained discovery has no network */
	ts_sh("printf 'import socket\\nsocket.create_connection((\"192.0.2.1\", 80), timeout=2)\\n' > %s/conftest.py", ws);
	char *t = record("[" INIT LIST RUN("echo note > notes.txt") "]", "shell");
	census_cause(t, "CENSUS_NEEDS_NETWORK", "network");
	free(t);
}

static void s_census_no_final_state(void)
{
	/* the run's final state was not captured: there is no after to count */
	char *t = record("[" INIT LIST RUN("echo note > notes.txt") "]", "shell");
	ts_sh("sed -i '/\"kind\":\"final_state\"/s/\"status\":\"present\"/\"status\":\"unrestorable\"/' %s", t);
	census_cause(t, "CENSUS_NO_FINAL_STATE", "final state");
	free(t);
}

/*==== claim-rederived (verify --rederive) ====*/

#define CLAIM "{\"claim\":\"all tests pass\"}"

/* `verify --rederive`: the trajectory's claim sub-verdict, asserting its cause and that it is
 * UNVERIFIED (never PASS). */
static void claim_cause(const char *trace, const char *cause, const char *needle)
{
	const char *extra[] = {"--rederive", NULL};
	struct vout v;
	verify_with(trace, extra, NULL, NULL, &v);
	cr_assert_not_null(v.summary, "no summary (%d): %s", v.status, v.err);
	const cJSON *tr = cJSON_GetObjectItem(cJSON_GetObjectItem(v.summary, "summary"), "trajectory");
	cr_assert_not_null(tr, "no trajectory verdict: %s", v.err);
	const cJSON *sub = NULL;
	for (const cJSON *x = cJSON_GetObjectItem(tr, "verdicts")->child; x; x = x->next)
		if (!strcmp(jx_str(x, "kind"), "claim"))
			sub = x;
	cr_assert_not_null(sub, "no claim sub-verdict: %s", jx_print(tr));
	cr_assert_str_eq(jx_str(sub, "status"), "UNVERIFIED", "%s", jx_print(sub));
	cr_assert_str_eq(jx_str(sub, "cause"), cause, "%s", jx_print(sub));
	cr_assert(strstr(jx_str(sub, "message"), needle), "%s", jx_print(sub));
	cr_assert_str_neq(jx_str(tr, "status"), "PASS");
	vout_free(&v);
}

/* A suite of its own in the workspace: tests/test_m.py replaced by `body`. */
static void suite_is(const char *body)
{
	char *p = xasprintf("%s/tests/test_m.py", ws);
	ts_write_file(p, body, strlen(body));
	free(p);
}

static void s_claim_no_runner(void)
{
	ts_sh("rm -rf %s/tests", ws);
	char *t = record("[" INIT LIST RUN("echo note > notes.txt") "," CLAIM "]", "shell");
	claim_cause(t, "CLAIM_SUITE_NO_RUNNER", "no suite");
	free(t);
}

static void s_claim_suite_failed(void)
{
	/* a conftest.py that cannot load: pytest ends with a usage error, no test ran */
	ts_sh("printf 'raise RuntimeError(\"broken conftest\")\n' > %s/conftest.py", ws);
	char *t = record("[" INIT LIST RUN("echo note > notes.txt") "," CLAIM "]", "shell");
	claim_cause(t, "CLAIM_SUITE_FAILED", "pytest");
	free(t);
}

static void s_claim_network(void)
{
	suite_is("import socket\n\ndef test_fetch():\n    socket.create_connection((\"192.0.2.1\", 80), timeout=2)\n");
	char *t = record("[" INIT LIST RUN("echo note > notes.txt") "," CLAIM "]", "shell");
	claim_cause(t, "CLAIM_SUITE_NETWORK", "network");
	free(t);
}

static void s_claim_runtime_missing(void)
{
	suite_is("import belay_no_such_module_anywhere\n\ndef test_x():\n    assert belay_no_such_module_anywhere\n");
	char *t = record("[" INIT LIST RUN("echo note > notes.txt") "," CLAIM "]", "shell");
	claim_cause(t, "CLAIM_SUITE_RUNTIME_MISSING", "module");
	free(t);
}

static void s_suite_flaky(void)
{
	/* passes the first time, fails when a run before it left its mark (the two runs share the
	 * contained run's private temp dir, TMPDIR, as two runs on one machine share /tmp) */
	suite_is("import os, tempfile\n\ndef test_once():\n    m = os.path.join(tempfile.gettempdir(), 'belay-flaky-mark')\n"
		 "    seen = os.path.exists(m)\n"
		 "    open(m, 'w').close()\n    assert not seen\n\ndef test_fine():\n    assert True\n");
	char *t = record("[" INIT LIST RUN("echo note > notes.txt") "," CLAIM "]", "shell");
	claim_cause(t, "SUITE_FLAKY", "test_once");
	free(t);
}

static void s_claim_no_final_state(void)
{
	char *t = record("[" INIT LIST RUN("echo note > notes.txt") "," CLAIM "]", "shell");
	ts_sh("sed -i '/\"kind\":\"final_state\"/s/\"status\":\"present\"/\"status\":\"unrestorable\"/' %s", t);
	claim_cause(t, "CLAIM_NO_FINAL_STATE", "final state");
	free(t);
}

/*==== the registry ====*/

static const struct {
	const char *cause;
	void (*fn)(void);
} scenarios[] = {
	{"PRESTATE_ABSENT", s_prestate_absent},
	{"CALL_REFUSED_BY_GATE", s_refused_by_gate},
	{"UNRESTORABLE_CONCURRENT_TURN", s_concurrent},
	{"UNRESTORABLE_SNAPSHOT_FAILED", s_snapshot_failed},
	{"UNRESTORABLE_FIFO", s_fifo},
	{"UNRESTORABLE_SOCKET", s_socket},
	{"UNRESTORABLE_DEVICE_NODE", s_device},
	{"UNRESTORABLE_OWNERSHIP", s_ownership},
	{"PRESTATE_NOT_FOUND", s_prestate_not_found},
	{"PRESTATE_HANDLE_INVALID", s_handle_invalid},
	{"PRESTATE_DEPENDENCY_BROKEN", s_dependency_broken},
	{"SERVER_COMMAND_UNKNOWN", s_server_unknown},
	{"RELOCATION_UNROOTABLE", s_unrootable},
	{"REPLAY_SANDBOX_UNAVAILABLE", s_sandbox_unavailable},
	{"REPLAY_SERVER_FAILED", s_server_failed},
	{"REPLAY_SERVER_EXITED", s_server_exited},
	{"REPLAY_TIMEOUT", s_timeout},
	{"REPLAY_NETWORK_REFUSED", s_network_refused},
	{"REPLAY_CLIENT_ANSWER_MISSING", s_client_answer_missing},
	{"REPLAY_ENVIRONMENT_UNAVAILABLE", s_environment_unavailable},
	{"REPLAY_ENV_REFUSED", s_env_refused},
	{"SESSION_ORDER_DIVERGED", s_session_order_diverged},
	{"WORKSPACE_CHANGED_OUTSIDE", s_workspace_changed_outside},
	{"SESSION_ORDER_NOT_REPLAYED", s_session_order_not_replayed},
	{"RESULT_NOT_RECORDED", s_result_not_recorded},
	{"RESULT_NONDETERMINISTIC_CLOCK", s_clock},
	{"RESULT_NONDETERMINISTIC_RANDOM", s_random},
	{"RESULT_NONDETERMINISTIC_PROCESS", s_process},
	{"RESULT_NONDETERMINISTIC_UNKNOWN", s_unknown},
	{"EFFECT_NONDETERMINISTIC_CLOCK", s_effect_clock},
	{"EFFECT_NONDETERMINISTIC", s_effect_nondeterministic},
	{"EFFECT_NOT_DECLARED", s_effect_not_declared},
	{"EFFECT_DECLARATION_NON_BOOLEAN", s_effect_non_boolean},
	{"ASSERTION_UNDECIDABLE", s_assertion_undecidable},
	{"ASSERTION_FILE_UNREADABLE", s_assertion_unreadable},
	{"IN_SCOPE_BUDGET_EXCEEDED", s_budget},
	{"ASSERTION_LANGUAGE_NOT_JUDGED", s_language_not_judged},
	{"TEST_DATA_CHANGED", s_test_data_changed},
	{"ASSERTION_EXPECTATION_CHANGED", s_expectation_changed},
	{"TEST_CONFIG_NOT_JUDGED", s_test_config_not_judged},
	{"TASK_PRESTATE_UNAVAILABLE", s_task_prestate},
	{"CLAIM_UNCLASSIFIABLE", s_claim_unclassifiable},
	{"EVIDENCE_UNOBSERVABLE", s_evidence_unobservable},
	{"NO_SUBVERDICT", s_no_subverdict},
	{"NETWORK_NOT_OBSERVED", s_network_not_observed},
	{"REPLAY_DENIALS", s_replay_denials},
	{"PROTOCOL_VERSION_DRIFT", s_protocol_drift},
	{"FRAME_TRUNCATED", s_frame_truncated},
	{"TOOL_NOT_REEXECUTED", s_tool_not_reexecuted},
	{"PLAN_INCOMPLETE", s_plan_incomplete},
	{"POST_STATE_UNEXPLAINED", s_post_state_unexplained},
	{"CENSUS_NO_RUNNER", s_census_no_runner},
	{"CENSUS_FAILED", s_census_failed},
	{"CENSUS_NEEDS_NETWORK", s_census_needs_network},
	{"CENSUS_NO_FINAL_STATE", s_census_no_final_state},
	{"CLAIM_SUITE_NO_RUNNER", s_claim_no_runner},
	{"CLAIM_SUITE_FAILED", s_claim_suite_failed},
	{"CLAIM_SUITE_NETWORK", s_claim_network},
	{"CLAIM_SUITE_RUNTIME_MISSING", s_claim_runtime_missing},
	{"SUITE_FLAKY", s_suite_flaky},
	{"CLAIM_NO_FINAL_STATE", s_claim_no_final_state},
};

#define N_SCENARIOS (sizeof scenarios / sizeof scenarios[0])

Test(causes, every_cause_in_the_closed_list_has_a_scenario)
{
	for (const struct vcause *c = vcauses; c->name; c++) {
		int found = 0;
		for (size_t i = 0; i < N_SCENARIOS; i++)
			found |= !strcmp(scenarios[i].cause, c->name);
		if (c->historical)
			cr_assert(!found, "cause %s is historical (no longer produced) but has a scenario", c->name);
		else
			cr_assert(found, "cause %s has no scenario in test_causes.c", c->name);
	}
	for (size_t i = 0; i < N_SCENARIOS; i++)
		cr_assert(vcause_known(scenarios[i].cause), "scenario for unknown cause %s", scenarios[i].cause);
}

/* A historical cause is no longer produced, and says so where it is documented; a verdict
 * stored when it was produced still reads back. */
Test(causes, historical_causes_are_documented_as_such_and_still_read)
{
	size_t len;
	char *doc = ts_read_file(BELAY_SOURCE_DIR "/docs/VERDICTS.md", &len);
	cr_assert_not_null(doc);
	int historical = 0;
	for (const struct vcause *c = vcauses; c->name; c++) {
		if (!c->historical)
			continue;
		historical++;
		cr_assert(strstr(c->meaning, "no longer produced"), "%s: %s", c->name, c->meaning);
		char *row = xasprintf("| `%s` | no longer produced", c->name);
		cr_assert(strstr(doc, row), "docs/VERDICTS.md does not say %s is no longer produced", c->name);
		free(row);
		char *json = xasprintf("{\"turn\":1,\"status\":\"UNVERIFIED\",\"cause\":\"%s\",\"verdicts\":[{\"axis\":"
				       "\"A1\",\"kind\":\"invariant\",\"status\":\"UNVERIFIED\",\"cause\":\"%s\","
				       "\"message\":\"m\"}]}",
				       c->name, c->name);
		cJSON *j = cJSON_Parse(json);
		struct turn_verdict v = {0};
		struct err e = {0};
		cr_assert_eq(verdict_from_json(j, &v, &e), 0, "%s: %s", c->name, e.msg);
		verdict_free(&v);
		cJSON_Delete(j);
		free(json);
	}
	cr_assert_eq(historical, 1, "ASSERTION_CHECK_UNAVAILABLE is the one historical cause");
	free(doc);
}

Test(causes, docs_list_exactly_the_closed_list)
{
	size_t len;
	char *doc = ts_read_file(BELAY_SOURCE_DIR "/docs/VERDICTS.md", &len);
	cr_assert_not_null(doc);
	char *start = strstr(doc, "<!-- causes:begin -->"), *end = strstr(doc, "<!-- causes:end -->");
	cr_assert(start && end && start < end, "docs/VERDICTS.md lacks the causes table markers");
	*end = '\0';
	for (const struct vcause *c = vcauses; c->name; c++) {
		char *tok = xasprintf("`%s`", c->name);
		cr_assert(strstr(start, tok), "docs/VERDICTS.md does not document %s", c->name);
		free(tok);
	}
	/* and nothing undocumented-as-code: every backticked upper-case name in the table is known */
	for (char *p = strchr(start, '`'); p; p = strchr(p + 1, '`')) {
		char *q = strchr(p + 1, '`');
		if (!q)
			break;
		char name[64];
		size_t n = (size_t)(q - p - 1);
		if (n < sizeof name) {
			memcpy(name, p + 1, n);
			name[n] = '\0';
			int upper = n > 3;
			for (size_t i = 0; i < n; i++)
				if (!((name[i] >= 'A' && name[i] <= 'Z') || name[i] == '_' || (name[i] >= '0' && name[i] <= '9')))
					upper = 0;
			if (upper && strcmp(name, "PASS") && strcmp(name, "WARN") && strcmp(name, "FAIL") &&
			    strcmp(name, "UNVERIFIED") && strcmp(name, "NOT_COVERED"))
				cr_assert(vcause_known(name), "docs/VERDICTS.md names %s, which verdict.c does not know", name);
		}
		p = q;
	}
	free(doc);
}

/* Each scenario runs as its own test, found by its cause's name (not by position: a cause
 * inserted into the table must not shift the others onto the wrong tests). */
static void run_scenario(const char *cause)
{
	for (size_t i = 0; i < N_SCENARIOS; i++)
		if (!strcmp(scenarios[i].cause, cause)) {
			scenarios[i].fn();
			return;
		}
	cr_assert_fail("no scenario for %s", cause);
}

#define SCENARIO(name) \
	Test(causes, name) { run_scenario(#name); }
SCENARIO(PRESTATE_ABSENT)
SCENARIO(CALL_REFUSED_BY_GATE)
SCENARIO(UNRESTORABLE_CONCURRENT_TURN)
SCENARIO(UNRESTORABLE_SNAPSHOT_FAILED)
SCENARIO(UNRESTORABLE_FIFO)
SCENARIO(UNRESTORABLE_SOCKET)
SCENARIO(UNRESTORABLE_DEVICE_NODE)
SCENARIO(UNRESTORABLE_OWNERSHIP)
SCENARIO(PRESTATE_NOT_FOUND)
SCENARIO(PRESTATE_HANDLE_INVALID)
SCENARIO(PRESTATE_DEPENDENCY_BROKEN)
SCENARIO(SERVER_COMMAND_UNKNOWN)
SCENARIO(RELOCATION_UNROOTABLE)
SCENARIO(REPLAY_SANDBOX_UNAVAILABLE)
SCENARIO(REPLAY_SERVER_FAILED)
SCENARIO(REPLAY_SERVER_EXITED)
SCENARIO(REPLAY_TIMEOUT)
SCENARIO(REPLAY_NETWORK_REFUSED)
SCENARIO(RESULT_NOT_RECORDED)
SCENARIO(RESULT_NONDETERMINISTIC_CLOCK)
SCENARIO(RESULT_NONDETERMINISTIC_RANDOM)
SCENARIO(RESULT_NONDETERMINISTIC_PROCESS)
SCENARIO(RESULT_NONDETERMINISTIC_UNKNOWN)
SCENARIO(EFFECT_NONDETERMINISTIC_CLOCK)
SCENARIO(EFFECT_NONDETERMINISTIC)
SCENARIO(EFFECT_NOT_DECLARED)
SCENARIO(EFFECT_DECLARATION_NON_BOOLEAN)
SCENARIO(ASSERTION_UNDECIDABLE)
SCENARIO(ASSERTION_FILE_UNREADABLE)
SCENARIO(IN_SCOPE_BUDGET_EXCEEDED)
SCENARIO(ASSERTION_LANGUAGE_NOT_JUDGED)
SCENARIO(TEST_DATA_CHANGED)
SCENARIO(ASSERTION_EXPECTATION_CHANGED)
SCENARIO(TEST_CONFIG_NOT_JUDGED)
SCENARIO(TASK_PRESTATE_UNAVAILABLE)
SCENARIO(CLAIM_UNCLASSIFIABLE)
SCENARIO(EVIDENCE_UNOBSERVABLE)
SCENARIO(NO_SUBVERDICT)
SCENARIO(NETWORK_NOT_OBSERVED)
SCENARIO(REPLAY_DENIALS)
SCENARIO(PROTOCOL_VERSION_DRIFT)
SCENARIO(FRAME_TRUNCATED)
SCENARIO(REPLAY_CLIENT_ANSWER_MISSING)
SCENARIO(REPLAY_ENVIRONMENT_UNAVAILABLE)
SCENARIO(REPLAY_ENV_REFUSED)
SCENARIO(SESSION_ORDER_DIVERGED)
SCENARIO(WORKSPACE_CHANGED_OUTSIDE)
SCENARIO(SESSION_ORDER_NOT_REPLAYED)
SCENARIO(TOOL_NOT_REEXECUTED)
SCENARIO(PLAN_INCOMPLETE)
SCENARIO(POST_STATE_UNEXPLAINED)
SCENARIO(CENSUS_NO_RUNNER)
SCENARIO(CENSUS_FAILED)
SCENARIO(CENSUS_NEEDS_NETWORK)
SCENARIO(CENSUS_NO_FINAL_STATE)
SCENARIO(CLAIM_SUITE_NO_RUNNER)
SCENARIO(CLAIM_SUITE_FAILED)
SCENARIO(CLAIM_SUITE_NETWORK)
SCENARIO(CLAIM_SUITE_RUNTIME_MISSING)
SCENARIO(SUITE_FLAKY)
SCENARIO(CLAIM_NO_FINAL_STATE)
