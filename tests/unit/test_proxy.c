/* test_proxy.c - `belay proxy` end to end with our own fixtures: byte identity in both
 * directions (and its teeth), exact recording, bad input before any byte moves, exit
 * status, partial frames, truncation, a killed proxy's valid prefix. (A recording that
 * fails stops forwarding: test_record_fail.c.) */
#include <criterion/criterion.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <fcntl.h>
#include <unistd.h>

#include "common/buf.h"
#include "common/fsutil.h"
#include "common/jsonx.h"
#include "common/xalloc.h"
#include "mcp/model.h"
#include "trace/trace_model.h"
#include "trace/trace_reader.h"
#include "tsupport.h"

#define BYTES_FIXTURE BELAY_BUILD_DIR "/tests/fixture_bytes"

static char *dir;

static void setup(void)
{
	dir = ts_tmpdir("proxy");
}

static void teardown(void)
{
	ts_rmtree(dir);
	free(dir);
}

TestSuite(proxy, .init = setup, .fini = teardown, .timeout = 120);

struct diff_run {
	struct ts_out out;
	char *in_seen;
	size_t in_seen_len;
};

static void run_through(const char *const *proxy_argv_prefix, int nprefix, const struct buf *up,
			const struct buf *down, struct diff_run *r)
{
	char *in_path = fs_join(dir, "server-in.bin"), *out_path = fs_join(dir, "server-out.bin");
	ts_write_file(out_path, down->p, down->len);
	const char *argv[32];
	int k = 0;
	for (int i = 0; i < nprefix; i++)
		argv[k++] = proxy_argv_prefix[i];
	argv[k++] = BYTES_FIXTURE;
	argv[k++] = in_path;
	argv[k++] = out_path;
	argv[k] = NULL;
	cr_assert_eq(ts_run(argv, NULL, NULL, up->p, up->len, 60, &r->out), 0);
	r->in_seen = ts_read_file(in_path, &r->in_seen_len);
	cr_assert_not_null(r->in_seen);
	free(in_path);
	free(out_path);
}

Test(proxy, differential_random_streams_are_byte_identical_both_ways)
{
	for (unsigned seed = 1; seed <= 6; seed++) {
		struct buf up = {0}, down = {0};
		ts_random_stream(&up, seed, 3u << 20);
		ts_random_stream(&down, seed * 7919, 3u << 20);
		char *tdir = xasprintf("%s/tr%u", dir, seed);
		const char *prefix[] = {BELAY_BIN, "proxy", "--trace-dir", tdir, "--"};
		struct diff_run r = {0};
		run_through(prefix, 5, &up, &down, &r);
		cr_assert_eq(r.out.status, 0, "proxy failed: %s", r.out.err);
		cr_assert_eq(r.in_seen_len, up.len, "seed %u: client->server length", seed);
		cr_assert_eq(memcmp(r.in_seen, up.p, up.len), 0, "seed %u: client->server bytes differ", seed);
		cr_assert_eq(r.out.out_len, down.len, "seed %u: server->client length", seed);
		cr_assert_eq(memcmp(r.out.out, down.p, down.len), 0, "seed %u: server->client bytes differ", seed);

		/* The trace holds exactly the frames on the wire, in order, per direction. */
		char *trace = ts_find_trace(tdir);
		cr_assert_not_null(trace);
		for (int d = 0; d < 2; d++) {
			struct buf want = {0}, got = {0};
			const struct buf *src = d == 0 ? &up : &down;
			size_t nwant = ts_expected_frames(src->p, src->len, &want), ngot = 0;
			ts_trace_frames(trace, d, &got, &ngot);
			cr_assert_eq(ngot, nwant, "seed %u dir %d: frame count", seed, d);
			cr_assert_eq(got.len, want.len);
			cr_assert_eq(memcmp(got.p, want.p, want.len), 0, "seed %u dir %d: recorded frames differ", seed, d);
			buf_free(&want);
			buf_free(&got);
		}
		free(trace);
		free(tdir);
		free(r.in_seen);
		ts_out_free(&r.out);
		buf_free(&up);
		buf_free(&down);
	}
}

Test(proxy, differential_has_teeth_against_a_reserialising_proxy)
{
	struct buf up = {0}, down = {0};
	buf_puts(&up, "{\"a\":1}\n");
	buf_puts(&down, "{\"b\":2}\n");
	ts_random_stream(&up, 3, 1u << 18);
	ts_random_stream(&down, 5, 1u << 18);
	const char *prefix[] = {"python3", BELAY_SOURCE_DIR "/tests/fixtures/reserialize_proxy.py", "--"};
	struct diff_run r = {0};
	run_through(prefix, 3, &up, &down, &r);
	int same_up = r.in_seen_len == up.len && memcmp(r.in_seen, up.p, up.len) == 0;
	int same_down = r.out.out_len == down.len && memcmp(r.out.out, down.p, down.len) == 0;
	cr_assert(!same_up && !same_down, "the differential check must catch a re-serialising proxy (up %d down %d, "
					  "status %d, stderr %.300s)", same_up, same_down, r.out.status, r.out.err);
	free(r.in_seen);
	ts_out_free(&r.out);
	buf_free(&up);
	buf_free(&down);
}

static void expect_refusal(const char *const *argv, const char *needle)
{
	struct ts_out o;
	ts_run(argv, NULL, dir, "{\"id\":1}\n", 9, 20, &o);
	cr_assert_eq(o.status, 2, "exit 2 expected, got %d (%s)", o.status, o.err);
	cr_assert(strncmp(o.err, "belay: ", 7) == 0, "one 'belay:' line: %s", o.err);
	cr_assert(strchr(o.err, '\n') == o.err + o.err_len - 1, "exactly one line: %s", o.err);
	cr_assert(strstr(o.err, needle), "'%s' should mention '%s'", o.err, needle);
	cr_assert_eq(o.out_len, 0, "no byte may move");
	ts_out_free(&o);
}

Test(proxy, bad_input_is_one_clear_line_and_exit_2_before_any_byte_moves)
{
	char *tdir = fs_join(dir, "traces");
	const char *no_server[] = {BELAY_BIN, "proxy", "--trace-dir", tdir, NULL};
	expect_refusal(no_server, "no server command");
	const char *not_found[] = {BELAY_BIN, "proxy", "--trace-dir", tdir, "--", "no-such-server-xyz", NULL};
	expect_refusal(not_found, "server command not found: no-such-server-xyz");
	const char *unknown[] = {BELAY_BIN, "proxy", "--frobnicate", "--", "cat", NULL};
	expect_refusal(unknown, "unknown or incomplete option '--frobnicate'");
	/* No trace file was left behind by the refusals. */
	char *t = ts_find_trace(tdir);
	cr_assert_null(t, "a refused start leaves no trace");
	/* An unwritable trace directory (a file in the way). */
	char *blocker = fs_join(dir, "blocker");
	ts_write_file(blocker, "x", 1);
	char *bad = fs_join(blocker, "sub");
	const char *unwritable[] = {BELAY_BIN, "proxy", "--trace-dir", bad, "--", "cat", NULL};
	expect_refusal(unwritable, "cannot create directory");
	free(blocker);
	free(bad);
	free(tdir);
}

Test(proxy, exit_status_mirrors_the_server)
{
	struct ts_out o;
	const char *code7[] = {BELAY_BIN, "proxy", "--no-trace", "--", "sh", "-c", "exit 7", NULL};
	ts_run(code7, NULL, NULL, NULL, 0, 20, &o);
	cr_assert_eq(o.status, 7, "%s", o.err);
	ts_out_free(&o);
	const char *killed[] = {BELAY_BIN, "proxy", "--no-trace", "--", "sh", "-c", "kill -9 $$", NULL};
	ts_run(killed, NULL, NULL, NULL, 0, 20, &o);
	cr_assert_eq(o.status, 128 + 9, "%s", o.err);
	ts_out_free(&o);
}

Test(proxy, server_lifecycle_and_partial_frames_are_recorded)
{
	char *tdir = fs_join(dir, "tr");
	const char *argv[] = {BELAY_BIN, "proxy", "--trace-dir", tdir, "--", "sh", "-c",
			      "cat; printf 'tail-without-newline'; echo oops >&2; exit 3", NULL};
	struct ts_out o;
	const char in[] = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\n{\"partial\":";
	ts_run(argv, NULL, NULL, in, sizeof in - 1, 20, &o);
	cr_assert_eq(o.status, 3);
	cr_assert(strstr(o.err, "oops"), "server stderr passes through: %s", o.err);
	char *path = ts_find_trace(tdir);
	struct trace *t = NULL;
	struct err e = {0};
	cr_assert_eq(trace_read(path, &t, &e), 0, "%s", e.msg);
	cr_assert_eq(trace_validate(t, &e), 0, "%s", e.msg);
	int start = 0, exit_ok = 0, partial_c2s = 0, partial_s2c = 0;
	for (size_t i = 0; i < t->n; i++) {
		const cJSON *o2 = t->recs[i].obj;
		if (!strcmp(t->recs[i].kind, "server")) {
			const char *ph = jx_str(o2, "phase");
			if (!strcmp(ph, "start")) {
				start = cJSON_GetArraySize(cJSON_GetObjectItem(o2, "argv")) == 3 &&
					cJSON_IsNumber(cJSON_GetObjectItem(o2, "pid")) && jx_str(o2, "cwd");
			} else {
				exit_ok = cJSON_GetObjectItem(o2, "exit_status")->valueint == 3 &&
					  cJSON_GetObjectItem(o2, "stderr_bytes")->valueint == 5;
			}
		}
		if (!strcmp(t->recs[i].kind, "capture_error")) {
			const char *cause = jx_str(o2, "cause"), *d = jx_str(o2, "dir");
			if (strstr(cause, "StreamEndedMidFrame") && strstr(cause, "11 byte(s)") && !strcmp(d, "c2s"))
				partial_c2s = 1;
			if (strstr(cause, "StreamEndedMidFrame") && strstr(cause, "31 byte(s)") && !strcmp(d, "s2c"))
				partial_s2c = 1;
		}
	}
	cr_assert(start, "server start record with argv, pid, cwd");
	cr_assert(exit_ok, "server exit record with status and stderr byte count");
	cr_assert(partial_c2s && partial_s2c, "partial frames at EOF are named capture_errors");
	/* Forwarded anyway. */
	cr_assert(strstr(o.out, "tail-without-newline"));
	trace_free(t);
	free(path);
	free(tdir);
	ts_out_free(&o);
}

Test(proxy, requests_are_recorded_before_their_responses)
{
	/* An echo server replies immediately; across many round trips the request frame must
	 * always carry the smaller seq (the earlier harness raced here). */
	char *tdir = fs_join(dir, "tr");
	struct buf in = {0};
	for (int i = 0; i < 2000; i++)
		buf_printf(&in, "{\"jsonrpc\":\"2.0\",\"id\":%d,\"result\":{}}\n", i);
	const char *argv[] = {BELAY_BIN, "proxy", "--trace-dir", tdir, "--", "cat", NULL};
	struct ts_out o;
	ts_run(argv, NULL, NULL, in.p, in.len, 60, &o);
	cr_assert_eq(o.status, 0);
	char *path = ts_find_trace(tdir);
	struct trace *t = NULL;
	struct err e = {0};
	cr_assert_eq(trace_read(path, &t, &e), 0, "%s", e.msg);
	int64_t c2s_seq[2000], s2c_seq[2000];
	int nc = 0, ns = 0;
	for (size_t i = 0; i < t->n; i++)
		if (t->recs[i].is_frame && t->recs[i].dir == 0)
			c2s_seq[nc++] = t->recs[i].seq;
		else if (t->recs[i].is_frame)
			s2c_seq[ns++] = t->recs[i].seq;
	cr_assert_eq(nc, 2000);
	cr_assert_eq(ns, 2000);
	for (int i = 0; i < 2000; i++)
		cr_assert_lt(c2s_seq[i], s2c_seq[i], "frame %d echoed before it was recorded", i);
	trace_free(t);
	free(path);
	free(tdir);
	buf_free(&in);
	ts_out_free(&o);
}

Test(proxy, oversized_frames_are_forwarded_whole_and_recorded_truncated)
{
	char *tdir = fs_join(dir, "tr");
	struct buf in = {0};
	buf_puts(&in, "{\"big\":\"");
	for (int i = 0; i < 100000; i++)
		buf_putc(&in, 'a' + i % 26);
	buf_puts(&in, "\"}\n{\"after\":1}\n");
	const char *argv[] = {BELAY_BIN, "proxy", "--frame-cap", "1000", "--trace-dir", tdir, "--", "cat", NULL};
	struct ts_out o;
	ts_run(argv, NULL, NULL, in.p, in.len, 30, &o);
	cr_assert_eq(o.out_len, in.len);
	cr_assert_eq(memcmp(o.out, in.p, in.len), 0);
	char *path = ts_find_trace(tdir);
	struct trace *t = NULL;
	struct err e = {0};
	cr_assert_eq(trace_read(path, &t, &e), 0, "%s", e.msg);
	const struct trace_record *big = NULL, *after = NULL;
	for (size_t i = 0; i < t->n; i++)
		if (t->recs[i].is_frame && t->recs[i].dir == 0) {
			if (big)
				after = &t->recs[i];
			else
				big = &t->recs[i];
		}
	cr_assert(big && after);
	cr_assert(big->truncated);
	cr_assert_eq(big->len, 1000);
	cr_assert_eq(big->total, 100010);
	cr_assert(!after->truncated);
	cr_assert_eq(after->len, 11);
	trace_free(t);
	free(path);
	free(tdir);
	buf_free(&in);
	ts_out_free(&o);
}

Test(proxy, a_killed_proxy_leaves_a_valid_prefix)
{
	char *tdir = fs_join(dir, "tr");
	/* A server that streams frames forever; kill the proxy with SIGKILL mid-stream. */
	pid_t pid = fork();
	if (pid == 0) {
		int devnull = open("/dev/null", O_RDWR);
		dup2(devnull, 1);
		execl(BELAY_BIN, BELAY_BIN, "proxy", "--trace-dir", tdir, "--", "sh", "-c",
		      "while :; do echo '{\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{}}'; done",
		      (char *)NULL);
		_exit(127);
	}
	usleep(700 * 1000);
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	char *path = ts_find_trace(tdir);
	cr_assert_not_null(path);
	size_t len = 0;
	char *data = ts_read_file(path, &len);
	/* Every complete line is a valid record with gapless seq; at most the last line is cut. */
	char *last_nl = memrchr(data, '\n', len);
	cr_assert_not_null(last_nl);
	char *prefix = fs_join(dir, "prefix.jsonl");
	ts_write_file(prefix, data, (size_t)(last_nl - data) + 1);
	struct trace *t = NULL;
	struct err e = {0};
	cr_assert_eq(trace_read(prefix, &t, &e), 0, "%s", e.msg);
	cr_assert_eq(trace_validate(t, &e), 0, "%s", e.msg);
	cr_assert(!t->has_close, "a killed proxy has an open window and no close");
	cr_assert_gt(t->n, 10);
	trace_free(t);
	free(prefix);
	free(data);
	free(path);
	free(tdir);
}

Test(proxy, a_number_id_beyond_the_double_range_is_forwarded_and_recorded)
{
	/* Found by tests/fuzz/fuzz_rpc_model: cJSON parses an id of 1e999 as infinity and the
	 * MCP model's id key (jcs_number) read through a NULL pointer: one frame from either
	 * side crashed the proxy. Now it is forwarded byte for byte and paired by its key. */
	char *tdir = fs_join(dir, "tr");
	const char in[] = "{\"jsonrpc\":\"2.0\",\"id\":1e999,\"method\":\"ping\"}\n"
			  "{\"jsonrpc\":\"2.0\",\"id\":-1e999,\"method\":\"tools/call\",\"params\":{\"name\":\"x\"}}\n"
			  "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{\"requestId\":1e999}}\n";
	const char *argv[] = {BELAY_BIN, "proxy", "--trace-dir", tdir, "--", "cat", NULL};
	struct ts_out o;
	ts_run(argv, NULL, NULL, in, sizeof in - 1, 60, &o);
	cr_assert_eq(o.status, 0, "%s", o.err);
	cr_assert_eq(o.out_len, sizeof in - 1);
	cr_assert_eq(memcmp(o.out, in, sizeof in - 1), 0, "forwarded as it came");
	char *path = ts_find_trace(tdir);
	struct trace *t = NULL;
	struct err e = {0};
	cr_assert_eq(trace_read(path, &t, &e), 0, "%s", e.msg);
	cr_assert_eq(trace_validate(t, &e), 0, "%s", e.msg);
	struct model m;
	model_init(&m);
	trace_build_model(t, &m);
	cr_assert_eq(m.nframes, 6);
	int inf = 0, neg = 0;
	for (size_t i = 0; i < m.nex; i++) {
		inf += strcmp(m.ex[i].id.key, "n:Infinity") == 0;
		neg += strcmp(m.ex[i].id.key, "n:-Infinity") == 0;
	}
	cr_assert(inf >= 1 && neg >= 1, "ids keyed by their value");
	model_free(&m);
	trace_free(t);
	free(path);
	free(tdir);
	ts_out_free(&o);
}
