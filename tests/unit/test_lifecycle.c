/* test_lifecycle.c - a server that cannot start, or dies in the middle of a call, while the
 * real SDK client (tests/peers/lifecycle-client.mjs) waits on it through `belay proxy` or
 * the console: belay names it on stderr (exit status or signal, the server's last stderr
 * lines, the sandbox's denials before it), answers every waiting request with a JSON-RPC
 * error of its own (never a hang, never the SDK's own timeout), and every reader of the
 * trace - trace show, the model, the index and verify - sees that reply as belay's, not the
 * server's. */
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
#include "ts_belay.h"
#include "ts_life.h"
#include "tsupport.h"

static char *dir, *peers, *fs_server, *ev_server;

static void setup(void)
{
	peers = ts_peers();
	cr_assert_not_null(peers, "npm test peers missing: run scripts/setup.sh (npm ci in tests/peers)");
	dir = ts_tmpdir("life");
	fs_server = xasprintf("%s/@modelcontextprotocol/server-filesystem/dist/index.js", peers);
	ev_server = xasprintf("%s/@modelcontextprotocol/server-everything/dist/index.js", peers);
}

static void teardown(void)
{
	ts_sh("pkill -f 'belay console --events --state %s' 2>/dev/null; true", dir);
	ts_rmtree(dir);
	free(dir);
	free(peers);
	free(fs_server);
	free(ev_server);
}

TestSuite(lifecycle, .init = setup, .fini = teardown, .timeout = 240);

/* The one trace in tdir, read and validated, with its model. */
static struct trace *read_trace(const char *tdir, struct model *m)
{
	char *path = ts_find_trace(tdir);
	cr_assert_not_null(path, "one trace in %s", tdir);
	struct trace *t = NULL;
	struct err e = {0};
	cr_assert_eq(trace_read(path, &t, &e), 0, "%s", e.msg);
	cr_assert_eq(trace_validate(t, &e), 0, "%s", e.msg);
	model_init(m);
	trace_build_model(t, m);
	free(path);
	return t;
}

/* The SDK got belay's error, naming reason: not its own timeout, not a closed pipe. */
static void assert_belay_error(const cJSON *doc, const char *key, const char *reason)
{
	const cJSON *err = cJSON_GetObjectItemCaseSensitive(doc, key);
	cr_assert_not_null(err, "no %s in %s", key, cJSON_PrintUnformatted(doc));
	cr_assert_eq(ts_life_num(err, "code"), -32000, "%s: %s", key, cJSON_PrintUnformatted(err));
	cr_assert_str_eq(ts_life_str(err, "data.belay.reason"), reason, "%s", cJSON_PrintUnformatted(err));
}

static void start_case(int contained)
{
	char *ws = fs_join(dir, "ws"), *st = fs_join(dir, "st"), *tdir = fs_join(dir, "tr");
	char *missing = fs_join(dir, "no-such-dir");
	fs_mkdir_p(ws, 0700, NULL);
	const char *plain[] = {BELAY_BIN, "proxy", "--state", st, "--trace-dir", tdir, "--", "node", fs_server, missing, NULL};
	const char *boxed[] = {BELAY_BIN, "proxy", "--scope", ws, "--state", st, "--trace-dir", tdir, "--", "node", fs_server,
			       missing, NULL};
	struct ts_out o;
	cJSON *doc = ts_life_client(NULL, "start", NULL, contained ? boxed : plain, &o);
	cr_assert(cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(doc, "connected")));
	/* initialize was answered by belay, with the server's own words. */
	assert_belay_error(doc, "connect_error", "server_exited");
	const cJSON *err = cJSON_GetObjectItemCaseSensitive(doc, "connect_error");
	cr_assert_eq(ts_life_num(err, "data.belay.exit_status"), 1);
	cr_assert(strstr(ts_life_str(err, "message"), "exited with status 1"), "%s", ts_life_str(err, "message"));
	cr_assert(strstr(ts_life_str(err, "message"), "None of the specified directories are accessible"));
	/* and on stderr, at once: how it ended and its last lines. */
	cr_assert(strstr(o.err, "belay: the MCP server exited with status 1"), "%s", o.err);
	cr_assert(strstr(o.err, "belay:   | Error: None of the specified directories are accessible"), "%s", o.err);

	/* The trace: the reply is belay's, and no reader takes it for the server's. */
	struct model m;
	struct trace *t = read_trace(tdir, &m);
	int belay_frames = 0;
	for (size_t i = 0; i < t->n; i++)
		if (t->recs[i].belay_reason) {
			cr_assert_str_eq(t->recs[i].belay_reason, "server_exited");
			cr_assert_str_eq(jx_str(t->recs[i].obj, "origin"), "belay");
			belay_frames++;
		}
	cr_assert_eq(belay_frames, 1);
	cr_assert_eq(m.nex, 1);
	cr_assert_str_eq(m.ex[0].method, "initialize");
	cr_assert_eq(m.ex[0].status, EX_ANSWERED_BY_BELAY, "%s", ex_status_name(m.ex[0].status));
	cr_assert_eq(m.ex[0].resp_seq, -1, "the server's response was never recorded");
	cr_assert_str_eq(m.ex[0].belay_reason, "server_exited");
	char *path = ts_find_trace(tdir);
	struct ts_out show;
	ts_belay(&show, NULL, "trace", "show", path, NULL);
	cr_assert_eq(show.status, 0, "%s", show.err);
	cr_assert(strstr(show.out, "by belay: server_exited"), "%s", show.out);
	cr_assert(strstr(show.out, "belay->client 1 in the server's place"), "%s", show.out);
	model_free(&m);
	trace_free(t);
	ts_out_free(&show);
	free(path);
	cJSON_Delete(doc);
	ts_out_free(&o);
	free(ws);
	free(st);
	free(tdir);
	free(missing);
}

Test(lifecycle, a_server_that_cannot_start_is_named_and_initialize_answered)
{
	start_case(0);
}

Test(lifecycle, a_contained_server_that_cannot_start_is_named_and_initialize_answered)
{
	start_case(1);
}

Test(lifecycle, the_denials_before_a_crash_are_named)
{
	/* A server that cannot write its config (the sandbox refuses) and gives up. */
	char *ws = fs_join(dir, "ws"), *st = fs_join(dir, "st"), *tdir = fs_join(dir, "tr");
	fs_mkdir_p(ws, 0700, NULL);
	const char *server[] = {BELAY_BIN, "proxy", "--scope", ws, "--state", st, "--trace-dir", tdir, "--", "sh", "-c",
				"echo '{}' > /etc/belay-test-config.json || { echo 'fatal: cannot save my config' >&2; exit 7; }",
				NULL};
	struct ts_out o;
	cJSON *doc = ts_life_client(NULL, "start", NULL, server, &o);
	assert_belay_error(doc, "connect_error", "server_exited");
	const cJSON *den = jx_path(doc, "connect_error.data.belay.denials");
	cr_assert_eq(cJSON_GetArraySize(den), 1, "%s", o.err);
	cr_assert(strstr(cJSON_GetArrayItem(den, 0)->valuestring, "/etc/belay-test-config.json"));
	cr_assert(strstr(o.err, "belay: the sandbox refused it 1 operation(s) before; the last:"), "%s", o.err);
	cr_assert(strstr(o.err, "/etc/belay-test-config.json (EACCES)"), "%s", o.err);
	cr_assert(strstr(o.err, "fatal: cannot save my config"), "%s", o.err);
	cr_assert_neq(access("/etc/belay-test-config.json", F_OK), 0);
	cJSON_Delete(doc);
	ts_out_free(&o);
	free(ws);
	free(st);
	free(tdir);
}

Test(lifecycle, a_server_killed_mid_call_answers_the_call_and_verify_does_not_judge_belays_reply)
{
	/* Contained, so that the turn has a pre-state and verify re-executes it: the recorded
	 * result it compares with must be the server's (there is none), never belay's error. */
	char *ws = fs_join(dir, "ws"), *st = fs_join(dir, "st"), *tdir = fs_join(dir, "tr");
	fs_mkdir_p(ws, 0700, NULL);
	const char *server[] = {BELAY_BIN, "proxy", "--scope", ws, "--state", st, "--trace-dir", tdir, "--", "node",
				ev_server, "stdio", NULL};
	const char *opts[] = {"--trace-dir", tdir, "--duration", "3", "--cwd", ws, NULL}; /* the workspace is its cwd */
	struct ts_out o;
	cJSON *doc = ts_life_client(NULL, "mid-call", opts, server, &o);
	cr_assert_gt(ts_life_num(doc, "killed_pid"), 0, "the server was killed mid-call: %s", o.out);
	assert_belay_error(doc, "call_error", "server_exited");
	cr_assert_eq(ts_life_num(doc, "call_error.data.belay.signal"), 9);
	cr_assert(strstr(ts_life_str(doc, "call_error.message"), "was killed by signal 9"));
	/* A call after the death is answered the same way (the session is ending). */
	assert_belay_error(doc, "after_error", "server_exited");
	cr_assert(strstr(o.err, "belay: the MCP server was killed by signal 9"), "%s", o.err);
	cr_assert(strstr(o.err, "while its client was still connected"), "%s", o.err);
	cr_assert_eq(ts_life_num(doc, "proxy_exit.code"), 128 + 9, "the proxy mirrors the server's end");

	struct model m;
	struct trace *t = read_trace(tdir, &m);
	cr_assert_geq(m.nturns, 1);
	const struct exchange *x = &m.ex[m.turns[0]];
	cr_assert_str_eq(x->tool, "trigger-long-running-operation");
	cr_assert_eq(x->status, EX_ANSWERED_BY_BELAY);
	cr_assert_eq(x->resp_seq, -1);
	cr_assert(!x->protocol_error, "belay's error is not the server's protocol error");

	/* The index keeps the reply the client got, marked as belay's. */
	char *path = ts_find_trace(tdir), *db = fs_join(st, "belay.db");
	struct ts_out v;
	ts_belay(&v, NULL, "index", "--state", st, path, NULL);
	cr_assert_eq(v.status, 0, "%s", v.err);
	ts_out_free(&v);
	char *row = ts_sql_dump(db, "SELECT status, resp_seq IS NOT NULL, substr(error, 1, 21) FROM turns WHERE turn = 0");
	cr_assert_str_eq(row, "answered-by-belay|1|belay (server_exited)\n", "%s", row);

	/* verify re-executes the call: it has no recorded result of the server's to compare with
	 * (belay's error would have made it a FAIL, "the result differs"). */
	ts_belay(&v, NULL, "verify", "--state", st, "--json", "--turn", "0", path, NULL);
	cJSON *vj = cJSON_Parse(v.out);
	cr_assert_not_null(vj, "%s\n%s", v.out, v.err);
	char *text = cJSON_PrintUnformatted(vj);
	cr_assert(strstr(text, "RESULT_NOT_RECORDED"), "%s", text);
	cr_assert(!strstr(text, "\"FAIL\""), "%s", text);
	free(text);
	cJSON_Delete(vj);
	ts_out_free(&v);
	free(row);
	free(db);
	free(path);
	model_free(&m);
	trace_free(t);
	cJSON_Delete(doc);
	ts_out_free(&o);
	free(ws);
	free(st);
	free(tdir);
}

Test(lifecycle, the_console_shows_a_run_whose_server_died)
{
	char *st = fs_join(dir, "st"), *sock = fs_join(dir, "c.sock"), *events = fs_join(dir, "events.jsonl");
	char *missing = fs_join(dir, "no-such-dir");
	cr_assert_eq(ts_sh("%s console --events --state %s --socket %s -- node %s %s > %s 2>%s.err &", BELAY_BIN, st, sock,
			   fs_server, missing, events, events),
		     0);
	ts_life_wait_socket(sock);
	const char *server[] = {BELAY_BIN, "connect", sock, NULL};
	struct ts_out o;
	cJSON *doc = ts_life_client(NULL, "start", NULL, server, &o);
	assert_belay_error(doc, "connect_error", "server_exited");
	char *ev = ts_life_wait_alert(events);
	cr_assert(strstr(ev, "\"reason\":\"server_exited\""), "%s", ev);
	cr_assert(strstr(ev, "the MCP server exited with status 1"), "%s", ev);
	free(ev);
	cJSON_Delete(doc);
	ts_out_free(&o);
	free(st);
	free(sock);
	free(events);
	free(missing);
}

Test(lifecycle, a_server_whose_containment_fails_never_starts_and_says_why)
{
	/* Landlock made unavailable to belay (the fixture fails its syscall): the launcher refuses
	 * to run the server bare, and the client's initialize - held until containment is up -
	 * is answered with that cause. */
	char *ws = fs_join(dir, "ws"), *st = fs_join(dir, "st"), *tdir = fs_join(dir, "tr");
	fs_mkdir_p(ws, 0700, NULL);
	const char *server[] = {"python3", BELAY_SOURCE_DIR "/tests/fixtures/deny_syscall.py", "landlock_create_ruleset",
				BELAY_BIN, "proxy", "--scope", ws, "--state", st, "--trace-dir", tdir, "--", "node", fs_server,
				ws, NULL};
	struct ts_out o;
	cJSON *doc = ts_life_client(NULL, "start", NULL, server, &o);
	assert_belay_error(doc, "connect_error", "server_not_started");
	cr_assert(strstr(ts_life_str(doc, "connect_error.message"), "could not start: its containment failed (landlock:"),
		  "%s", ts_life_str(doc, "connect_error.message"));
	cr_assert(strstr(o.err, "belay: the MCP server could not start: its containment failed (landlock:"), "%s", o.err);
	struct model m;
	struct trace *t = read_trace(tdir, &m);
	cr_assert_eq(m.nex, 1);
	cr_assert_eq(m.ex[0].status, EX_ANSWERED_BY_BELAY);
	cr_assert_str_eq(m.ex[0].belay_reason, "server_not_started");
	model_free(&m);
	trace_free(t);
	cJSON_Delete(doc);
	ts_out_free(&o);
	free(ws);
	free(st);
	free(tdir);
}

Test(lifecycle, a_server_under_the_hosts_tmp_dies_and_the_agent_reads_why_and_expose)
{
	/* Issue 35: a server installed under /tmp (private inside the sandbox) died at start
	 * with a module-not-found error, and the agent's error quoted its last stderr line
	 * ("Node.js v20..."). Now it quotes the line that says why and names --expose. */
	char tmpl[] = "/tmp/belay-t35-XXXXXX";
	cr_assert_not_null(mkdtemp(tmpl));
	char *script = fs_join(tmpl, "server.mjs");
	/* The script itself stays in view (named on the command line); what it imports beside
	 * it does not. */
	cr_assert_eq(ts_sh("echo 'import \"./lib.mjs\"; process.stdin.resume();' > %s && echo 'export {};' > %s/lib.mjs",
			   script, tmpl),
		     0);
	char *ws = fs_join(dir, "ws"), *st = fs_join(dir, "st"), *tdir = fs_join(dir, "tr");
	fs_mkdir_p(ws, 0700, NULL);
	const char *server[] = {BELAY_BIN, "proxy", "--scope", ws, "--state", st, "--trace-dir", tdir, "--", "node", script,
				NULL};
	struct ts_out o;
	cJSON *doc = ts_life_client(NULL, "start", NULL, server, &o);
	ts_rmtree(tmpl);
	assert_belay_error(doc, "connect_error", "server_exited");
	const char *msg = ts_life_str(doc, "connect_error.message");
	cr_assert(strstr(msg, "Cannot find module"), "the line that says why: %s", msg);
	cr_assert(strstr(msg, "lib.mjs"), "%s", msg);
	cr_assert_null(strstr(msg, "line: Node.js v"), "not the last line: %s", msg);
	cr_assert(strstr(msg, "/tmp"), "%s", msg);
	cr_assert(strstr(msg, "--expose"), "the way out is named: %s", msg);
	/* and the console / stderr say the same */
	cr_assert(strstr(o.err, "belay: the MCP server exited with status 1"), "%s", o.err);
	cr_assert(strstr(o.err, "belay: why: Error [ERR_MODULE_NOT_FOUND]: Cannot find module"), "%s", o.err);
	cr_assert(strstr(o.err, "--expose"), "%s", o.err);
	cJSON_Delete(doc);
	ts_out_free(&o);
	free(script);
	free(ws);
	free(st);
	free(tdir);
}

/* Issue 35 (4): a server whose native addon was never built (its build is an install
 * script: belay's launcher fetch runs none, nor does `npm ci --ignore-scripts`) dies at start
 * with "Could not locate the bindings file". The agent's error says by name that the addon
 * was not built and why, and the way forward. */
static const char bindings_js[] =
	"#!/usr/bin/env node\n"
	"console.error('/w/node_modules/bindings/bindings.js:126');\n"
	"console.error('  err = new Error(');\n"
	"console.error('Error: Could not locate the bindings file. Tried:');\n"
	"console.error(' \u2192 /w/node_modules/sqlite3/build/node_sqlite3.node');\n"
	"console.error(' \u2192 /w/node_modules/sqlite3/build/Release/node_sqlite3.node');\n"
	"process.exit(1);\n";

Test(lifecycle, a_server_without_its_native_addon_says_install_scripts_were_skipped)
{
	char *ws = fs_join(dir, "ws"), *st = fs_join(dir, "st"), *tdir = fs_join(dir, "tr"), *pkg = fs_join(dir, "pkg");
	char *cache = fs_join(dir, "cache"), *cache_env = xasprintf("BELAY_CACHE_DIR=%s", cache);
	fs_mkdir_p(ws, 0700, NULL);
	fs_mkdir_p(pkg, 0700, NULL);
	char *js = fs_join(ws, "server.js");
	ts_write_file(js, bindings_js, strlen(bindings_js));
	/* started directly: the addon was not built, say so */
	const char *direct[] = {BELAY_BIN, "proxy", "--scope", ws, "--state", st, "--trace-dir", tdir, "--", "node", js, NULL};
	struct ts_out o;
	cJSON *doc = ts_life_client(NULL, "start", NULL, direct, &o);
	assert_belay_error(doc, "connect_error", "server_exited");
	const char *msg = ts_life_str(doc, "connect_error.message");
	cr_assert(strstr(msg, "Could not locate the bindings file"), "the line that says why: %s", msg);
	cr_assert(strstr(msg, "native addon") && strstr(msg, "npm rebuild"), "the cause and the way forward: %s", msg);
	cr_assert(strstr(o.err, "native addon"), "%s", o.err);
	cJSON_Delete(doc);
	ts_out_free(&o);
	/* through npx: belay fetched it with install scripts off, by design */
	char *pj = fs_join(pkg, "package.json"), *bin = fs_join(pkg, "bin.js");
	const char *pjs = "{\"name\":\"belay-native-35\",\"version\":\"1.0.0\",\"bin\":{\"belay-native-35\":\"bin.js\"}}";
	ts_write_file(pj, pjs, strlen(pjs));
	ts_write_file(bin, bindings_js, strlen(bindings_js));
	cr_assert_eq(ts_sh("cd '%s' && npm pack --silent --pack-destination '%s' >/dev/null 2>&1", pkg, dir), 0);
	char *tgz = fs_join(dir, "belay-native-35-1.0.0.tgz");
	char *tdir2 = fs_join(dir, "tr2");
	const char *via[] = {BELAY_BIN, "proxy", "--scope", ws, "--state", st, "--trace-dir", tdir2, "--", "npx", "-y", tgz, NULL};
	const char *opts[] = {"--cwd", ws, "--timeout", "150000", "--env", cache_env, "--env", "npm_config_offline=true", NULL};
	doc = ts_life_client(NULL, "start", opts, via, &o);
	assert_belay_error(doc, "connect_error", "server_exited");
	msg = ts_life_str(doc, "connect_error.message");
	cr_assert(strstr(msg, "native addon") && strstr(msg, "install scripts off"), "%s", msg);
	cJSON_Delete(doc);
	ts_out_free(&o);
	free(tgz);
	free(tdir2);
	free(pj);
	free(bin);
	free(js);
	free(cache);
	free(cache_env);
	free(pkg);
	free(ws);
	free(st);
	free(tdir);
}

/* The run id of the one trace in tdir. */
static char *run_of(const char *tdir)
{
	char *path = ts_find_trace(tdir);
	cr_assert_not_null(path, "one trace in %s", tdir);
	const char *base = strrchr(path, '/') + 1;
	char *id = xstrndup(base, strlen(base) - strlen(".jsonl"));
	free(path);
	return id;
}

Test(lifecycle, a_health_check_is_not_a_run)
{
	/* Issue 35: each `claude mcp list` left a 0-turn run in `belay runs`. A connection that
	 * only initializes and lists the tools is folded (its trace kept); one whose server
	 * wrote in the workspace at start-up is not. */
	char *ws = fs_join(dir, "ws"), *st = fs_join(dir, "st"), *ta = fs_join(dir, "tra"), *tb = fs_join(dir, "trb");
	fs_mkdir_p(ws, 0700, NULL);
	const char *quiet[] = {BELAY_BIN, "proxy", "--scope", ws, "--state", st, "--trace-dir", ta, "--", "node", fs_server,
			       ws, NULL};
	char *script = xasprintf("echo up > %s/started.txt && exec node %s %s", ws, fs_server, ws);
	const char *writer[] = {BELAY_BIN, "proxy", "--scope", ws, "--state", st, "--trace-dir", tb, "--", "sh", "-c",
				script, NULL};
	struct ts_out o;
	cJSON *doc = ts_life_client(NULL, "start", NULL, quiet, &o);
	cr_assert(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(doc, "connected")), "%s", o.err);
	cJSON_Delete(doc);
	ts_out_free(&o);
	doc = ts_life_client(NULL, "start", NULL, writer, &o);
	cr_assert(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(doc, "connected")), "%s", o.err);
	cJSON_Delete(doc);
	ts_out_free(&o);
	char *a = run_of(ta), *b = run_of(tb);
	struct ts_out r;
	ts_belay(&r, NULL, "runs", "--state", st, NULL);
	cr_assert_eq(r.status, 0, "%s", r.err);
	cr_assert_null(strstr(r.out, a), "the health check is folded:\n%s", r.out);
	cr_assert(strstr(r.out, b), "a server that wrote at start-up is shown:\n%s", r.out);
	cr_assert(strstr(r.out, "1 health check hidden"), "%s", r.out);
	ts_out_free(&r);
	ts_belay(&r, NULL, "runs", "--all", "--json", "--state", st, NULL);
	cr_assert_eq(r.status, 0, "%s", r.err);
	cr_assert(strstr(r.out, a) && strstr(r.out, b), "--all shows both:\n%s", r.out);
	cr_assert(strstr(r.out, "\"health_check\":true"), "%s", r.out);
	ts_out_free(&r);
	char *path = ts_find_trace(ta);
	cr_assert_not_null(path, "the health check's trace is kept");
	free(path);
	free(a), free(b), free(script), free(ws), free(st), free(ta), free(tb);
}
