/* test_peers.c - belay proxy between real MCP peers from npm (pinned in tests/peers):
 * the SDK Client against server-filesystem and server-everything, and the inspector CLI.
 * The client's results must be identical with and without belay, and the trace must hold
 * every frame that crossed the wire (checked against an independent relay), in order,
 * with every request recorded before its reply. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/fsutil.h"
#include "common/jsonx.h"
#include "common/xalloc.h"
#include "mcp/model.h"
#include "trace/trace_model.h"
#include "trace/trace_reader.h"
#include "tsupport.h"

static char *dir, *peers;

static void setup(void)
{
	peers = ts_peers();
	cr_assert_not_null(peers, "npm test peers missing: run scripts/setup.sh (npm ci in tests/peers)");
	dir = ts_tmpdir("peers");
}

static void teardown(void)
{
	ts_rmtree(dir);
	free(dir);
	free(peers);
}

TestSuite(peers, .init = setup, .fini = teardown, .timeout = 180);

/* Checks a trace against the relay's witness files and returns its model (caller frees). */
static struct trace *check_trace(const char *tdir, const char *witness, struct model *m)
{
	char *path = ts_find_trace(tdir);
	cr_assert_not_null(path, "exactly one trace in %s", tdir);
	for (int d = 0; d < 2; d++) {
		char *wf = xasprintf("%s/%s.bin", witness, d == 0 ? "c2s" : "s2c");
		size_t wlen = 0;
		char *wire = ts_read_file(wf, &wlen);
		cr_assert_not_null(wire);
		struct buf want = {0}, got = {0};
		size_t nwant = ts_expected_frames(wire, wlen, &want), ngot = 0;
		ts_trace_frames(path, d, &got, &ngot);
		cr_assert_gt(nwant, 0);
		cr_assert_eq(ngot, nwant, "dir %d: %zu frames on the wire, %zu recorded", d, nwant, ngot);
		cr_assert(got.len == want.len && memcmp(got.p, want.p, want.len) == 0, "dir %d: recorded bytes differ", d);
		buf_free(&want);
		buf_free(&got);
		free(wire);
		free(wf);
	}
	struct trace *t = NULL;
	struct err e = {0};
	cr_assert_eq(trace_read(path, &t, &e), 0, "%s", e.msg);
	model_init(m);
	trace_build_model(t, m);
	for (size_t i = 0; i < m->nex; i++) {
		const struct exchange *x = &m->ex[i];
		cr_assert_neq(x->status, EX_ORPHAN, "a response was recorded without (before) its request");
		if (x->status == EX_ANSWERED)
			cr_assert_lt(x->req_seq, x->resp_seq);
	}
	free(path);
	return t;
}

static char *run_client(const char *script, const char *ws, const char *const *server, struct ts_out *o)
{
	const char *argv[32];
	int k = 0;
	char *sp = xasprintf("%s/tests/peers/%s", BELAY_SOURCE_DIR, script);
	argv[k++] = "node";
	argv[k++] = sp;
	if (ws)
		argv[k++] = ws;
	argv[k++] = "--";
	for (const char *const *a = server; *a; a++)
		argv[k++] = *a;
	argv[k] = NULL;
	cr_assert_eq(ts_run(argv, NULL, NULL, NULL, 0, 120, o), 0);
	cr_assert_eq(o->status, 0, "%s failed (%d): %s", script, o->status, o->err);
	return sp;
}

Test(peers, sdk_client_and_server_filesystem)
{
	char *ws = fs_join(dir, "ws"), *tdir = fs_join(dir, "traces"), *wit = fs_join(dir, "wit");
	char *fs_server = xasprintf("%s/@modelcontextprotocol/server-filesystem/dist/index.js", peers);
	char *relay = xasprintf("%s/tests/peers/relay.mjs", BELAY_SOURCE_DIR);
	fs_mkdir_p(wit, 0700, NULL);

	fs_mkdir_p(ws, 0755, NULL);
	const char *direct[] = {"node", fs_server, ws, NULL};
	struct ts_out a, b;
	free(run_client("fs-client.mjs", ws, direct, &a));

	fs_remove_tree(ws);
	fs_mkdir_p(ws, 0755, NULL);
	const char *proxied[] = {BELAY_BIN, "proxy", "--trace-dir", tdir, "--", "node", relay, wit, "--", "node", fs_server,
				 ws, NULL};
	free(run_client("fs-client.mjs", ws, proxied, &b));
	cr_assert_str_eq(b.out, a.out, "the client's results differ through belay");

	struct model m;
	struct trace *t = check_trace(tdir, wit, &m);
	cr_assert_eq(m.nturns, 13, "every tools/call is a turn (%zu)", m.nturns);
	/* The pipelined calls are turns 8..10, all answered, whatever the reply order. */
	for (int i = 8; i <= 10; i++)
		cr_assert_eq(m.ex[m.turns[i]].status, EX_ANSWERED);
	/* The read outside the root is a tool error, not a protocol error. */
	const struct exchange *outside = &m.ex[m.turns[7]];
	cr_assert_str_eq(outside->tool, "read_text_file");
	cr_assert(outside->tool_error && !outside->protocol_error);
	/* The server asked the client for roots (a server-to-client request), and got them. */
	int roots = 0;
	for (size_t i = 0; i < m.nex; i++)
		if (m.ex[i].origin == DIR_S2C && !strcmp(m.ex[i].method, "roots/list") && m.ex[i].status == EX_ANSWERED)
			roots++;
	cr_assert_geq(roots, 1);
	model_free(&m);
	trace_free(t);
	ts_out_free(&a);
	ts_out_free(&b);
	free(ws);
	free(tdir);
	free(wit);
	free(fs_server);
	free(relay);
}

Test(peers, sdk_client_and_server_everything)
{
	char *tdir = fs_join(dir, "traces"), *wit = fs_join(dir, "wit");
	char *ev = xasprintf("%s/@modelcontextprotocol/server-everything/dist/index.js", peers);
	char *relay = xasprintf("%s/tests/peers/relay.mjs", BELAY_SOURCE_DIR);
	fs_mkdir_p(wit, 0700, NULL);
	const char *direct[] = {"node", ev, "stdio", NULL};
	const char *proxied[] = {BELAY_BIN, "proxy", "--trace-dir", tdir, "--", "node", relay, wit, "--", "node", ev, "stdio", NULL};
	struct ts_out a, b;
	free(run_client("everything-client.mjs", NULL, direct, &a));
	free(run_client("everything-client.mjs", NULL, proxied, &b));
	cr_assert_str_eq(b.out, a.out, "the client's results differ through belay:\n%s\n---\n%s", a.out, b.out);

	struct model m;
	struct trace *t = check_trace(tdir, wit, &m);
	int progress = 0, cancel_notes = 0, sampling = 0;
	for (size_t i = 0; i < m.nframes; i++) {
		const char *meth = m.frames[i].method;
		if (meth && !strcmp(meth, "notifications/progress"))
			progress++;
		if (meth && !strcmp(meth, "notifications/cancelled") && m.frames[i].dir == DIR_C2S)
			cancel_notes++;
	}
	for (size_t i = 0; i < m.nex; i++)
		if (m.ex[i].origin == DIR_S2C && !strcmp(m.ex[i].method, "sampling/createMessage"))
			sampling += m.ex[i].status == EX_ANSWERED;
	cr_assert_geq(progress, 3, "progress notifications are recorded");
	cr_assert_eq(cancel_notes, 1);
	cr_assert_eq(sampling, 1, "the server-to-client sampling request is paired with the client's answer");
	const struct exchange *c = &m.ex[m.turns[5]];
	cr_assert_str_eq(c->tool, "trigger-long-running-operation");
	cr_assert_eq(c->status, EX_CANCELLED, "notifications/cancelled retires the call (%s)", ex_status_name(c->status));
	cr_assert(m.ex[m.turns[4]].tool_error, "bad arguments come back as an isError result");
	model_free(&m);
	trace_free(t);
	ts_out_free(&a);
	ts_out_free(&b);
	free(tdir);
	free(wit);
	free(ev);
	free(relay);
}

Test(peers, inspector_cli_through_belay_with_trace_context)
{
	char *tdir = fs_join(dir, "traces"), *ev = xasprintf("%s/@modelcontextprotocol/server-everything/dist/index.js", peers);
	char *cli = xasprintf("%s/@modelcontextprotocol/inspector-cli/build/index.js", peers);
	char *run = xasprintf("%s/../run", peers); /* inspector-cli needs a parent dir with package.json */
	fs_mkdir_p(run, 0755, NULL);
	const char *tp = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
	char *meta = xasprintf("traceparent=%s", tp);
	const char *direct[] = {"node", cli, "--tool-arg", "message=hello", "--tool-metadata", meta, "--tool-name", "echo",
				"--method", "tools/call", "node", ev, "stdio", NULL};
	const char *proxied[] = {"node", cli, "--tool-arg", "message=hello", "--tool-metadata", meta, "--tool-name", "echo",
				 "--method", "tools/call", BELAY_BIN, "proxy", "node", ev, "stdio", NULL};
	char *env_trace = xasprintf("BELAY_TRACE_DIR=%s", tdir);
	const char *env[] = {env_trace, NULL};
	struct ts_out a, b;
	ts_run(direct, NULL, run, NULL, 0, 60, &a);
	ts_run(proxied, env, run, NULL, 0, 60, &b);
	cr_assert_eq(a.status, 0, "%s", a.err);
	cr_assert_eq(b.status, 0, "%s", b.err);
	cr_assert_str_eq(b.out, a.out);
	cr_assert(strstr(b.out, "Echo: hello"));
	char *path = ts_find_trace(tdir);
	cr_assert_not_null(path, "BELAY_TRACE_DIR is honoured");
	struct trace *t = NULL;
	struct err e = {0};
	cr_assert_eq(trace_read(path, &t, &e), 0, "%s", e.msg);
	struct model m;
	model_init(&m);
	trace_build_model(t, &m);
	cr_assert_eq(m.nturns, 1);
	cr_assert_not_null(m.ex[m.turns[0]].traceparent, "_meta.traceparent is captured");
	cr_assert_str_eq(m.ex[m.turns[0]].traceparent, tp);
	model_free(&m);
	trace_free(t);
	free(path);
	free(env_trace);
	free(meta);
	free(run);
	free(cli);
	free(ev);
	free(tdir);
	ts_out_free(&a);
	ts_out_free(&b);
}

Test(peers, a_contained_server_filesystem_session_verifies)
{
	/* The SDK client drives server-filesystem through belay proxy --scope; every turn is
	 * then re-executed: the deterministic ones PASS, and nothing FAILs. */
	char *ws = fs_join(dir, "ws"), *tdir = fs_join(dir, "traces"), *st = fs_join(dir, "state");
	char *fs_server = xasprintf("%s/@modelcontextprotocol/server-filesystem/dist/index.js", peers);
	fs_mkdir_p(ws, 0755, NULL);
	char *tmpenv = xasprintf("BELAY_SANDBOX_TMP_BASE=%s", dir);
	const char *proxied[] = {BELAY_BIN, "proxy", "--scope", ws, "--state", st, "--trace-dir", tdir, "--", "node", fs_server, ws, NULL};
	struct ts_out a;
	putenv(tmpenv);
	free(run_client("fs-client.mjs", ws, proxied, &a));
	char *trace = ts_find_trace(tdir);
	cr_assert_not_null(trace);
	const char *argv[] = {BELAY_BIN, "verify", trace, "--json", "-j", "2", NULL};
	struct ts_out v;
	ts_run(argv, NULL, NULL, NULL, 0, 180, &v);
	int turns = 0, pass = 0;
	for (char *l = strtok(v.out, "\n"); l; l = strtok(NULL, "\n")) {
		cJSON *j = cJSON_Parse(l);
		if (cJSON_GetObjectItem(j, "turn")) {
			turns++;
			const char *s = jx_str(j, "status");
			cr_assert_str_neq(s, "FAIL", "%s", l);
			pass += !strcmp(s, "PASS");
		}
		cJSON_Delete(j);
	}
	cr_assert_eq(turns, 13);
	cr_assert_eq(pass, 13, "every deterministic turn reproduces (%d of %d PASS)", pass, turns);
	ts_out_free(&a);
	ts_out_free(&v);
	free(trace);
	free(ws);
	free(tdir);
	free(st);
	free(fs_server);
}

Test(peers, timestamps_are_masked_by_name_never_silently)
{
	/* get_file_info reports birth and access times, which differ on every restore while the
	 * rest reproduces: PASS, with every masked value named in a MASKED_FIELDS note (clock). */
	char *ws = fs_join(dir, "ws"), *tdir = fs_join(dir, "traces"), *st = fs_join(dir, "state");
	char *fs_server = xasprintf("%s/@modelcontextprotocol/server-filesystem/dist/index.js", peers);
	ts_sh("mkdir -p %s && echo hello > %s/a.txt", ws, ws);
	char *steps = fs_join(dir, "steps.json");
	char *s = xasprintf("[{\"initialize\":{}},{\"list\":true},{\"call\":\"get_file_info\",\"args\":{\"path\":\"%s/a.txt\"}}]", ws);
	ts_write_file(steps, s, strlen(s));
	char *tmpenv = xasprintf("BELAY_SANDBOX_TMP_BASE=%s", dir);
	const char *env[] = {tmpenv, NULL};
	const char *rec[] = {BELAY_BIN, "__script", steps, "--scope", ws, "--state", st, "--trace-dir", tdir, "--", "node", fs_server, ws, NULL};
	struct ts_out o;
	ts_run(rec, env, NULL, NULL, 0, 60, &o);
	cr_assert_eq(o.status, 0, "%s", o.err);
	*strchr(o.out, '\n') = '\0';
	sleep(2); /* the file times are printed to the second: let the clock move */
	const char *argv[] = {BELAY_BIN, "verify", o.out, "--json", NULL};
	struct ts_out v;
	ts_run(argv, NULL, NULL, NULL, 0, 120, &v);
	cJSON *t0 = cJSON_Parse(strtok(v.out, "\n"));
	cr_assert_str_eq(jx_str(t0, "status"), "PASS", "%s", v.out);
	const cJSON *rp = NULL;
	for (const cJSON *x = cJSON_GetObjectItem(t0, "verdicts")->child; x; x = x->next)
		if (!strcmp(jx_str(x, "kind"), "replay"))
			rp = x;
	cr_assert_not_null(rp);
	const cJSON *note = cJSON_GetArrayItem(cJSON_GetObjectItem(rp, "notes"), 0);
	cr_assert_str_eq(jx_str(note, "kind"), "MASKED_FIELDS", "a masked PASS is never silent: %s", v.out);
	const cJSON *fields = cJSON_GetObjectItem(note, "fields");
	cr_assert_gt(cJSON_GetArraySize(fields), 0);
	for (const cJSON *f = fields->child; f; f = f->next)
		cr_assert_str_eq(jx_str(f, "class"), "clock");
	cr_assert(strstr(jx_str(rp, "message"), "left out"), "%s", jx_str(rp, "message"));
	cJSON_Delete(t0);
	ts_out_free(&o);
	ts_out_free(&v);
	free(s);
	free(steps);
	free(tmpenv);
	free(ws);
	free(tdir);
	free(st);
	free(fs_server);
}
