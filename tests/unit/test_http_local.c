/* test_http_local.c - a local server in an HTTP mode, contained by belay (`belay proxy
 * --http http://127.0.0.1:PORT/mcp --scope DIR -- SERVER...`; docs/HTTP.md, "Contained local
 * servers"): the real server-everything in `streamableHttp` mode runs in belay's sandbox
 * under network deny, listening on its sandbox's own loopback, and the real SDK client
 * (tests/peers/http-client.mjs, StreamableHTTPClientTransport) drives it through belay: the
 * tools listed, every one called (sampling, elicitation, roots answered by the client), the
 * trace holding the sandbox's record and the messages. Before it starts the server, the
 * server's command writes outside the scope and connects to a listener of this test on the
 * host's loopback: both refused and named in the trace (the write's path, the connect's
 * address), the file never written, the listener never reached. Every tools/call was held
 * for its pre-state and planned in the workspace. `belay verify` replays the run over HTTP
 * in a fresh sandbox (belay-http --bridge, src/http/http_bridge.c): every deterministic turn
 * PASSes (without belay-http, none: refused by name); a recorded
 * answer forged afterwards (get-sum says 43) FAILs. The get-sum turn banked as a corpus case
 * replays on its own (MATCH). `--network allow` with a server belay
 * starts is refused by name, and so is a URL not on loopback.
 *
 * Ports are chosen free at run time; every wait is for a condition, never a measured time. */
#include <criterion/criterion.h>
#include <criterion/logging.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "common/buf.h"
#include "common/fsutil.h"
#include "common/hash.h"
#include "common/jsonx.h"
#include "common/xalloc.h"
#include "trace/trace_reader.h"
#include "ts_net.h"
#include "ts_verify.h"
#include "tsupport.h"

static char *dir, *peers;

static void setup(void)
{
	peers = ts_peers();
	cr_assert_not_null(peers, "npm test peers missing: run scripts/setup.sh (npm ci in tests/peers)");
	/* not under /tmp: the sandbox gives the server a private /tmp, where "outside" would not be */
	struct err e = {0};
	const char *b = getenv("BELAY_TEST_VISIBLE_BASE");
	dir = fs_mkdtemp_in(b && *b ? b : "/var/tmp", "belay-test-http-local-", &e);
	cr_assert_not_null(dir, "%s", e.msg);
	chmod(dir, 0755);
}

static void teardown(void)
{
	ts_reap_tracked();
	ts_rmtree(dir);
	free(dir);
	free(peers);
}

TestSuite(http_local, .init = setup, .fini = teardown, .timeout = 600);

struct proc {
	pid_t pid;
	int fds[3];
	struct ts_out o;
};

static const char *wait_stderr(struct proc *p, const char *want)
{
	time_t until = time(NULL) + 120;
	for (;;) {
		const char *hit = p->o.err ? strstr(p->o.err, want) : NULL;
		if (hit)
			return hit;
		cr_assert(time(NULL) < until, "never said '%s'; said:\n%s", want, p->o.err ? p->o.err : "");
		struct pollfd pf = {.fd = p->fds[2], .events = POLLIN};
		if (poll(&pf, 1, 200) > 0 && !ts_read_some(p->fds[2], &p->o.err, &p->o.err_len))
			cr_assert(strstr(p->o.err ? p->o.err : "", want), "ended without saying '%s':\n%s", want,
				  p->o.err ? p->o.err : "");
	}
}

static void stop(struct proc *p)
{
	ts_untrack(p->pid);
	kill(p->pid, SIGTERM);
	for (int i = 0; i < 3; i++)
		if (p->fds[i] >= 0)
			close(p->fds[i]);
	ts_reap(p->pid, &p->o);
}

static int accepted(int fd)
{
	int n = 0, c;
	while ((c = accept(fd, NULL, NULL)) >= 0) {
		n++;
		close(c);
	}
	return n;
}

static const cJSON *denial(const struct trace *t, const char *key, const char *value)
{
	for (size_t i = 0; i < t->n; i++) {
		const char *v = jx_str(t->recs[i].obj, key);
		if (!strcmp(t->recs[i].kind, "denial") && v && !strcmp(v, value))
			return t->recs[i].obj;
	}
	return NULL;
}

Test(http_local, server_everything_contained_over_streamable_http_with_denials_named)
{
	char *ws = fs_join(dir, "ws"), *out = fs_join(dir, "out"), *state = fs_join(dir, "state"),
	     *traces = fs_join(dir, "traces"), *escape = fs_join(out, "escape");
	fs_mkdir_p(ws, 0755, NULL);
	fs_mkdir_p(out, 0755, NULL);
	/* a listener of this test on the host's loopback: "another port" for the server */
	int host = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	cr_assert_eq(bind(host, (void *)&a, sizeof a), 0);
	listen(host, 8);
	socklen_t al = sizeof a;
	getsockname(host, (void *)&a, &al);
	unsigned host_port = ntohs(a.sin_port), inside = 3001;
	/* the probes run at the first start only: the replays start from pre-states that hold
	 * .started (a start-up connect would otherwise be every replayed call's network use) */
	char *cmd = xasprintf(
	    "if [ ! -e .started ]; then : > .started; echo pwned > %s; python3 -c \"import socket\ntry:\n"
	    "    socket.create_connection(('127.0.0.1', %u), 2); print('REACHED')\nexcept OSError: pass\"; fi; "
	    "exec node %s/@modelcontextprotocol/server-everything/dist/index.js streamableHttp",
	    escape, host_port, peers);
	char *upstream = xasprintf("http://127.0.0.1:%u/mcp", inside);
	const char *argv[] = {BELAY_BIN, "proxy", "--http",	 upstream, "--scope",  ws,
			      "--state", state,	  "--trace-dir", traces,   "--listen", "0",
			      "--",	 "sh",	  "-c",		 cmd,	   NULL};
	char *tmpbase = xasprintf("BELAY_SANDBOX_TMP_BASE=%s", dir);
	const char *env[] = {tmpbase, NULL};
	struct proc b = {0};
	b.pid = ts_spawn(argv, env, ws, &b.o, b.fds);
	ts_track(b.pid);
	cr_assert_gt(b.pid, 0);
	const char *at = wait_stderr(&b, "belay: listening on ") + strlen("belay: listening on ");
	char *url = xstrndup(at, strcspn(at, " \n"));

	char *client = xasprintf("%s/tests/peers/http-client.mjs", BELAY_SOURCE_DIR);
	const char *cargv[] = {"node", client, "streamable", url, "", "main", "all", NULL};
	struct ts_out o = {0};
	ts_run(cargv, NULL, dir, NULL, 0, 180, &o);
	cr_assert_eq(o.status, 0, "the client failed (%d):\n%s\nbelay said:\n%s", o.status, o.err, b.o.err);
	cJSON *res = cJSON_Parse(o.out);
	cr_assert_not_null(res, "%s", o.out);
	const char *closed = wait_stderr(&b, "belay: closed ") + strlen("belay: closed ");
	char *trace = xstrndup(closed, strcspn(closed, "\n"));
	stop(&b);
	cr_assert_eq(b.o.status, 0, "belay-http ended with %d:\n%s", b.o.status, b.o.err);

	/* the client saw the contained server: every tool listed and called */
	int has_echo = 0;
	for (const cJSON *t = cJSON_GetObjectItem(res, "tools")->child; t; t = t->next)
		has_echo |= !strcmp(t->valuestring, "echo");
	cr_assert(has_echo, "tools/list through belay lacks echo");
	char *sum = cJSON_PrintUnformatted(cJSON_GetObjectItem(res, "sum"));
	cr_assert(strstr(sum, "The sum of 2 and 40 is 42"), "%s", sum);
	free(sum);
	char *sampling = cJSON_PrintUnformatted(cJSON_GetObjectItem(res, "sampling"));
	cr_assert(strstr(sampling, "echo: 1 message"), "the sampling answer did not reach the server: %s", sampling);
	free(sampling);
	int calls = 0, ok = 0, errors = 0;
	for (const cJSON *c = cJSON_GetObjectItem(res, "all")->child; c; c = c->next, calls++) {
		const char *how = cJSON_GetArrayItem(c, 1)->valuestring;
		ok += !strcmp(how, "ok");
		errors += !strcmp(how, "error");
	}
	cr_log_info("contained: %d calls, %d ok, %d error results", calls, ok, errors);
	cr_assert_geq(calls, 19, "every tool was called (%d)", calls);
	cr_assert_eq(errors, 1, "only get-sum with a bad argument fails (%d errors)", errors);
	cr_assert_geq(ok, 17, "%d of %d calls answered", ok, calls);

	/* the trace: the sandbox as installed, the denials named, the messages */
	struct trace *t = NULL;
	struct err e = {0};
	cr_assert_eq(trace_read(trace, &t, &e), 0, "%s", e.msg);
	cr_assert_eq(trace_validate(t, &e), 0, "%s", e.msg);
	const cJSON *sb = NULL;
	size_t frames = 0;
	for (size_t i = 0; i < t->n; i++) {
		if (!strcmp(t->recs[i].kind, "sandbox") && !sb)
			sb = t->recs[i].obj;
		frames += !strcmp(t->recs[i].kind, "frame");
	}
	cr_assert_not_null(sb, "the run's trace has no sandbox record");
	cr_assert(cJSON_IsTrue(cJSON_GetObjectItem(sb, "ok")));
	cr_assert(cJSON_IsTrue(jx_path(sb, "layers.network_namespace")), "not in a network namespace of its own");
	cr_assert_eq(jx_path(sb, "layers.loopback.port")->valueint, (int)inside);
	cr_assert_eq(jx_path(sb, "layers.landlock.tcp_bind_port")->valueint, (int)inside);
	cr_assert_str_eq(jx_str(sb, "network"), "deny");
	cr_assert_geq(frames, 50, "%zu frames", frames);
	/* each tools/call was held until its pre-state was captured: the request's frame has it */
	int with_prestate = 0, tool_calls = 0, decisions = 0;
	size_t tlen = 0;
	char *text = ts_read_file(trace, &tlen), *save = NULL;
	for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		cJSON *r = cJSON_Parse(line);
		const char *kind = jx_str(r, "kind"), *d = jx_str(r, "dir"), *b64 = jx_str(r, "raw");
		if (kind && !strcmp(kind, "gate_decision")) {
			decisions++;
			cr_assert(cJSON_IsFalse(cJSON_GetObjectItem(r, "remote")),
				  "a contained server's call is planned as a remote one: %s", line);
		}
		if (kind && !strcmp(kind, "frame") && d && !strcmp(d, "c2s") && b64) {
			struct buf raw = {0};
			cr_assert_eq(base64_decode(b64, strlen(b64), &raw), 0);
			cJSON *m = cJSON_ParseWithLength(raw.p ? raw.p : "", raw.len);
			const char *method = jx_str(m, "method");
			if (method && !strcmp(method, "tools/call")) {
				tool_calls++;
				const char *st = jx_str(cJSON_GetObjectItem(r, "state_handle"), "status");
				with_prestate += st && !strcmp(st, "present");
			}
			cJSON_Delete(m);
			buf_free(&raw);
		}
		cJSON_Delete(r);
	}
	free(text);
	cr_log_info("contained: %d tools/call request(s), %d with a captured pre-state", tool_calls, with_prestate);
	cr_assert_geq(tool_calls, 20, "%d tools/call requests in the trace", tool_calls);
	cr_assert_eq(decisions, tool_calls, "%d effect plans for %d calls", decisions, tool_calls);
	cr_assert_eq(with_prestate, tool_calls, "only %d of %d calls have a captured pre-state", with_prestate,
		     tool_calls);
	const cJSON *w = denial(t, "path", escape);
	cr_assert_not_null(w, "the write outside the scope is not named in the trace:\n%s", b.o.err);
	cr_assert_str_eq(jx_str(w, "reason"), "outside_scope");
	char addr[32];
	snprintf(addr, sizeof addr, "127.0.0.1:%u", host_port);
	const cJSON *c = denial(t, "address", addr);
	cr_assert_not_null(c, "the connect to another port is not named in the trace");
	cr_assert_str_eq(jx_str(c, "op"), "connect");
	cr_assert_str_eq(jx_str(c, "reason"), "network_denied");
	struct stat st;
	cr_assert_neq(stat(escape, &st), 0, "the write outside the scope happened");
	cr_assert_eq(accepted(host), 0, "the host's listener was reached from the sandbox");
	cr_assert_null(strstr(b.o.err, "REACHED"), "the server reached the host's listener");

	/* it checks as a trace */
	ts_out_free(&o);
	const char *check[] = {BELAY_BIN, "trace", "check", trace, NULL};
	ts_run(check, NULL, dir, NULL, 0, 60, &o);
	cr_assert_eq(o.status, 0, "belay trace check: %s%s", o.out, o.err);
	ts_out_free(&o);

	/* the index has it as a stdio run: its server command, its denials */
	const char *runs[] = {BELAY_BIN, "runs", "--all", "--json", "--state", state, NULL};
	ts_run(runs, NULL, ws, NULL, 0, 60, &o);
	cr_assert_eq(o.status, 0, "%s", o.err);
	const char *base = strrchr(trace, '/') + 1;
	char *id = xstrndup(base, strlen(base) - strlen(".jsonl"));
	int listed = 0;
	char *rsave = NULL;
	for (char *l = strtok_r(o.out, "\n", &rsave); l; l = strtok_r(NULL, "\n", &rsave)) {
		cJSON *row = cJSON_Parse(l);
		if (row && jx_str(row, "id") && !strcmp(jx_str(row, "id"), id)) {
			listed = 1;
			char *rt = cJSON_PrintUnformatted(row);
			cr_assert_geq(cJSON_GetObjectItem(row, "denials")->valueint, 2, "%s", rt);
			cr_assert(cJSON_IsArray(cJSON_GetObjectItem(row, "server")), "no server for the run: %s", rt);
			free(rt);
		}
		cJSON_Delete(row);
	}
	cr_assert(listed, "belay runs does not list %s", id);
	ts_out_free(&o);
	free(id);

	/* verify replays it over HTTP in a fresh sandbox: every turn re-executed, the
	 * deterministic ones PASS (the two toggles' second answers say a random thing), none FAIL */
	const char *const vextra[] = {"--state", state, NULL};
	int vstatus = 0;
	cJSON *v = ts_verify_json(trace, vextra, ws, &vstatus);
	int turns = 0, pass = 0, random = 0, sum_turn = -1;
	for (const cJSON *j = v->child; j; j = j->next) {
		if (!cJSON_GetObjectItem(j, "turn"))
			continue;
		turns++;
		const char *vs = jx_str(j, "status"), *cause = jx_str(j, "cause");
		char *line = cJSON_PrintUnformatted(j);
		cr_assert_str_neq(vs, "FAIL", "an honest turn failed: %s", line);
		pass += !strcmp(vs, "PASS");
		if (!strcmp(vs, "UNVERIFIED")) {
			cr_assert(cause && !strcmp(cause, "RESULT_NONDETERMINISTIC_RANDOM"), "%s", line);
			random++;
		}
		if (sum_turn < 0 && jx_str(j, "tool") && !strcmp(jx_str(j, "tool"), "get-sum"))
			sum_turn = cJSON_GetObjectItem(j, "turn")->valueint;
		free(line);
	}
	cr_log_info("contained: verify by replay over HTTP: %d turn(s), %d PASS, %d UNVERIFIED (random)", turns, pass,
		    random);
	cr_assert_eq(turns, tool_calls, "verify judged %d of %d calls", turns, tool_calls);
	cr_assert_geq(pass, 20, "%d of %d turns PASS", pass, turns);
	cr_assert_geq(sum_turn, 0);
	cr_assert_eq(vstatus, random ? 3 : 0, "verify's exit status %d: its worst verdict", vstatus);
	cJSON_Delete(v);

	/* banked as a corpus case, it replays over HTTP on its own (a stdio run's case would too) */
	char *turn_arg = xasprintf("%d", sum_turn);
	const char *add[] = {BELAY_BIN, "corpus", "add", trace, "--turn", turn_arg, "--state", state, NULL};
	ts_run(add, NULL, ws, NULL, 0, 300, &o);
	cr_assert_eq(o.status, 0, "belay corpus add: %s%s", o.out, o.err);
	cr_assert(strstr(o.out, "expected PASS") || strstr(o.err, "expected PASS"), "%s%s", o.out, o.err);
	ts_out_free(&o);
	const char *crun[] = {BELAY_BIN, "corpus", "run", "--state", state, NULL};
	ts_run(crun, NULL, ws, NULL, 0, 300, &o);
	cr_assert_eq(o.status, 0, "belay corpus run: %s%s", o.out, o.err);
	cr_assert(strstr(o.out, "MATCH 1"), "the banked case did not replay: %s%s", o.out, o.err);
	ts_out_free(&o);
	free(turn_arg);

	/* without belay-http (which speaks HTTP for the replay: belay links no network client)
	 * the replay is refused by name: nothing PASSes, every turn UNVERIFIED with a cause */
	char *lone = fs_join(dir, "lone");
	fs_mkdir_p(lone, 0755, NULL);
	cr_assert_eq(ts_sh("cp '%s' '%s/belay'", BELAY_BIN, lone), 0);
	char *lone_bin = fs_join(lone, "belay");
	const char *lv[] = {lone_bin, "verify", trace, "--json", "--state", state, NULL};
	const char *const lenv[] = {"PATH=/usr/local/bin:/usr/bin:/bin", NULL};
	ts_run(lv, lenv, ws, NULL, 0, 600, &o);
	int lone_turns = 0;
	cr_assert(strstr(o.out, "belay-http is not installed"), "the refusal does not name belay-http:\n%s%s", o.out,
		  o.err);
	for (char *l = strtok(o.out, "\n"); l; l = strtok(NULL, "\n")) {
		cJSON *j = cJSON_Parse(l);
		if (j && cJSON_GetObjectItem(j, "turn")) {
			if (!lone_turns++)
				cr_log_info("without belay-http: %s", l);
			char *line = cJSON_PrintUnformatted(j);
			cr_assert_str_eq(jx_str(j, "status"), "UNVERIFIED", "a turn judged without belay-http: %s",
					 line);
			cr_assert_not_null(jx_str(j, "cause"), "%s", line);
			free(line);
		}
		cJSON_Delete(j);
	}
	cr_log_info("without belay-http: %d turn(s) UNVERIFIED", lone_turns);
	cr_assert_eq(lone_turns, tool_calls, "verify judged %d of %d calls without belay-http:\n%s", lone_turns,
		     tool_calls, o.err);
	ts_out_free(&o);
	free(lone_bin);
	free(lone);

	/* a lie: the record says get-sum answered 43; the replay says 42 */
	ts_edit_reply(trace, 0, "The sum of 2 and 40 is 42", "The sum of 2 and 40 is 43");
	v = ts_verify_json(trace, vextra, ws, &vstatus);
	const cJSON *lie = ts_turn(v, sum_turn);
	char *lie_text = cJSON_PrintUnformatted(lie);
	cr_assert_str_eq(jx_str(lie, "status"), "FAIL", "the lie was not caught: %s", lie_text);
	cr_assert_eq(vstatus, 4, "verify exits 4 on a FAIL (%d)", vstatus);
	free(lie_text);
	cJSON_Delete(v);

	trace_free(t);
	cJSON_Delete(res);
	close(host);
	free(trace);
	free(client);
	free(url);
	free(tmpbase);
	free(upstream);
	free(cmd);
	ts_out_free(&b.o);
	free(ws);
	free(out);
	free(state);
	free(traces);
	free(escape);
}

Test(http_local, network_allow_with_a_server_belay_starts_is_refused_by_name)
{
	char *ws = fs_join(dir, "ws");
	fs_mkdir_p(ws, 0755, NULL);
	const char *argv[] = {BELAY_BIN, "proxy", "--http",    "http://127.0.0.1:3001/mcp",
			      "--scope", ws,	  "--network", "allow",
			      "--",	 "true",  NULL};
	struct ts_out o = {0};
	ts_run(argv, NULL, dir, NULL, 0, 60, &o);
	cr_assert_neq(o.status, 0);
	cr_assert(strstr(o.err, "--network allow") && strstr(o.err, "host's loopback"), "%s", o.err);
	ts_out_free(&o);
	/* belay-http itself refuses it too (the check does not live only in the command line) */
	char *bin = xstrdup(BELAY_BIN);
	*strrchr(bin, '/') = '\0';
	char *http = xasprintf("%s/belay-http", bin);
	char *state = fs_join(dir, "state");
	const char *argv2[] = {http,	  "--upstream", "http://127.0.0.1:3001/mcp",
			       "--state", state,	"--contain",
			       ws,	  "--network",	"allow",
			       "--",	  "true",	NULL};
	ts_run(argv2, NULL, dir, NULL, 0, 60, &o);
	cr_assert_eq(o.status, 2, "%s", o.err);
	cr_assert(strstr(o.err, "--network allow") && strstr(o.err, "host's loopback"), "%s", o.err);
	ts_out_free(&o);
	/* a URL that is not the sandbox's loopback */
	const char *argv3[] = {BELAY_BIN, "proxy", "--http",  "http://example.com:3001/mcp",
			       "--scope", ws,	   "--state", state,
			       "--",	  "true",  NULL};
	ts_run(argv3, NULL, dir, NULL, 0, 60, &o);
	cr_assert_neq(o.status, 0);
	cr_assert(strstr(o.err, "its sandbox's own loopback"), "%s", o.err);
	ts_out_free(&o);
	free(state);
	free(http);
	free(bin);
	free(ws);
}
