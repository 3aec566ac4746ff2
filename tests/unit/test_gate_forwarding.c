/* test_gate_forwarding.c - the gated proxy (`--mode audit`, which examines every client
 * line before it goes on; and with `--scope`, which also holds each tools/call while its
 * pre-state is captured) forwards byte for byte in both directions, a last line without its
 * newline included, and records exactly the frames on the wire. The ungated proxy has the
 * same differential in test_proxy.c; a gate that drops or re-serialises a line fails here. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf.h"
#include "common/fsutil.h"
#include "common/xalloc.h"
#include "tsupport.h"

#define BYTES_FIXTURE BELAY_BUILD_DIR "/tests/fixture_bytes"

static char *dir;

static void setup(void)
{
	dir = ts_tmpdir("gatefwd");
}

static void teardown(void)
{
	ts_rmtree(dir);
	free(dir);
}

TestSuite(gate_forwarding, .init = setup, .fini = teardown, .timeout = 300);

/* One run of fixture_bytes behind `belay proxy [extra] --mode audit`: the client sends up,
 * the server sends down; both must arrive unchanged, and the trace must hold their frames. */
static void differential(const char *tag, unsigned seed, size_t approx, int scoped)
{
	struct buf up = {0}, down = {0};
	ts_random_stream(&up, seed, approx);
	ts_random_stream(&down, seed * 7919, approx);
	/* Always a last line without its newline, in both directions (the gate holds a partial
	 * line until more comes; at the end of the stream it must still go out). */
	buf_puts(&up, "{\"jsonrpc\":\"2.0\",\"id\":99,\"method\":\"tools/call\",\"params\":{\"name\":\"x\"}}");
	buf_puts(&down, "{\"tail\":true}");
	char *sub = xasprintf("%s/%s%u", dir, tag, seed), *ws = fs_join(sub, "ws");
	fs_mkdir_p(ws, 0755, NULL);
	char *in_path = fs_join(ws, "server-in.bin"), *out_path = fs_join(sub, "server-out.bin");
	char *tdir = fs_join(sub, "traces"), *st = fs_join(sub, "state");
	ts_write_file(out_path, down.p, down.len);
	const char *argv[32];
	int k = 0;
	argv[k++] = BELAY_BIN;
	argv[k++] = "proxy";
	argv[k++] = "--mode";
	argv[k++] = "audit";
	argv[k++] = "--trace-dir";
	argv[k++] = tdir;
	argv[k++] = "--state";
	argv[k++] = st;
	if (scoped) {
		argv[k++] = "--scope";
		argv[k++] = ws;
	}
	argv[k++] = "--";
	argv[k++] = BYTES_FIXTURE;
	argv[k++] = in_path;
	argv[k++] = out_path;
	argv[k] = NULL;
	char *tmpbase = xasprintf("BELAY_SANDBOX_TMP_BASE=%s", sub);
	const char *env[] = {tmpbase, NULL};
	struct ts_out o;
	cr_assert_eq(ts_run(argv, env, NULL, up.p, up.len, 120, &o), 0);
	cr_assert_eq(o.status, 0, "%s seed %u: proxy failed (%d): %s", tag, seed, o.status, o.err);
	size_t seen_len = 0;
	char *seen = ts_read_file(in_path, &seen_len);
	cr_assert_not_null(seen);
	cr_assert_eq(seen_len, up.len, "%s seed %u: client->server length %zu, sent %zu", tag, seed, seen_len, up.len);
	cr_assert_eq(memcmp(seen, up.p, up.len), 0, "%s seed %u: client->server bytes differ", tag, seed);
	cr_assert_eq(o.out_len, down.len, "%s seed %u: server->client length %zu, sent %zu", tag, seed, o.out_len, down.len);
	cr_assert_eq(memcmp(o.out, down.p, down.len), 0, "%s seed %u: server->client bytes differ", tag, seed);
	char *trace = ts_find_trace(tdir);
	cr_assert_not_null(trace);
	for (int d = 0; d < 2; d++) {
		struct buf want = {0}, got = {0};
		const struct buf *src = d == 0 ? &up : &down;
		size_t nwant = ts_expected_frames(src->p, src->len, &want), ngot = 0;
		ts_trace_frames(trace, d, &got, &ngot);
		cr_assert_eq(ngot, nwant, "%s seed %u dir %d: %zu frames on the wire, %zu recorded", tag, seed, d, nwant, ngot);
		cr_assert(got.len == want.len && memcmp(got.p, want.p, want.len) == 0, "%s seed %u dir %d: recorded frames differ",
			  tag, seed, d);
		buf_free(&want);
		buf_free(&got);
	}
	free(trace);
	free(seen);
	ts_out_free(&o);
	free(tmpbase);
	free(in_path);
	free(out_path);
	free(tdir);
	free(st);
	free(ws);
	free(sub);
	buf_free(&up);
	buf_free(&down);
}

Test(gate_forwarding, audit_mode_forwards_byte_for_byte_both_ways)
{
	for (unsigned seed = 1; seed <= 5; seed++)
		differential("audit", seed, 3u << 20, 0);
}

Test(gate_forwarding, a_scoped_gate_that_captures_pre_states_forwards_byte_for_byte)
{
	for (unsigned seed = 11; seed <= 12; seed++)
		differential("scoped", seed, 1u << 20, 1);
}

Test(gate_forwarding, a_lone_unterminated_line_reaches_the_server)
{
	/* Nothing but a partial line: the whole stream is what the gate holds at the end. */
	char *sub = fs_join(dir, "lone"), *in_path = fs_join(sub, "in.bin"), *out_path = fs_join(sub, "out.bin");
	char *tdir = fs_join(sub, "traces");
	fs_mkdir_p(sub, 0755, NULL);
	ts_write_file(out_path, "", 0);
	const char *argv[] = {BELAY_BIN, "proxy", "--mode", "audit", "--trace-dir", tdir, "--", BYTES_FIXTURE, in_path,
			      out_path, NULL};
	const char *line = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"x\"}}";
	struct ts_out o;
	cr_assert_eq(ts_run(argv, NULL, NULL, line, strlen(line), 60, &o), 0);
	cr_assert_eq(o.status, 0, "%s", o.err);
	size_t n = 0;
	char *seen = ts_read_file(in_path, &n);
	cr_assert(seen && n == strlen(line) && !memcmp(seen, line, n), "the server got %zu of %zu bytes", n, strlen(line));
	free(seen);
	ts_out_free(&o);
	free(sub);
	free(in_path);
	free(out_path);
	free(tdir);
}
