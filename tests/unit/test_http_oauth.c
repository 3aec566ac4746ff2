/* test_http_oauth.c - an OAuth-protected MCP server through belay, belay being the OAuth
 * client (docs/HTTP.md, docs/THREAT_MODEL.md). The server is tests/peers/http-oauth-server.mjs:
 * the SDK's own authorization server (its examples' provider behind mcpAuthRouter: metadata,
 * dynamic registration, an authorize endpoint that approves at once, tokens with a short life
 * and a refresh token) and server-everything's server behind the SDK's requireBearerAuth,
 * tokens bound to its resource. `belay http login URL` runs the flow (the test's "browser" is
 * curl following the printed URL to belay's loopback redirect); the real SDK client then lists
 * and calls tools through `belay proxy --http URL` without holding any token, and again after
 * belay restarted once the access token expired (the refresh token is used); every secret the
 * server handed out or received (codes, verifiers, access and refresh tokens) is looked for in
 * the traces, the state directory (the index's SQLite file, the flow's log) other than the
 * token file itself, an OTLP export and everything belay printed: found nowhere. Without a
 * login the agent gets a 403 naming `belay http login`, never the server's challenge; the
 * pinned Claude Code CLI connects through belay to the protected server and calls one of its
 * tools (`claude -p`, its model the hook tests' local stand-in for the Messages API). A token
 * lacking the scope the server wants gets the agent a 403 naming the login with that scope; a
 * login refuses metadata naming another resource and endpoints without https; the belay binary
 * links no network client (the flow is in belay-http). A token the server revoked before it
 * expired is refreshed and the request sent again: the agent never sees the 401.
 *
 * Ports are chosen free at run time; every wait is for a condition, never a measured time. */
#include <criterion/criterion.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "common/buf.h"
#include "common/fsutil.h"
#include "common/hash.h"
#include "common/jsonx.h"
#include "common/xalloc.h"
#include "ts_hook.h"
#include "ts_net.h"
#include "tsupport.h"

static char *dir, *peers;

static void setup(void)
{
	peers = ts_peers();
	cr_assert_not_null(peers, "npm test peers missing: run scripts/setup.sh (npm ci in tests/peers)");
	dir = ts_tmpdir("http-oauth");
}

static void teardown(void)
{
	ts_reap_tracked();
	ts_rmtree(dir);
	free(dir);
	free(peers);
}

TestSuite(http_oauth, .init = setup, .fini = teardown, .timeout = 300);

struct proc {
	pid_t pid;
	int fds[3];
	struct ts_out o;
};

/* Reads the process's stdout (fd 1) or stderr (fd 2) until it holds `want`. */
static const char *wait_for(struct proc *p, int fd, const char *want)
{
	char **buf = fd == 1 ? &p->o.out : &p->o.err;
	size_t *len = fd == 1 ? &p->o.out_len : &p->o.err_len;
	time_t until = time(NULL) + 120;
	for (;;) {
		const char *hit = *buf ? strstr(*buf, want) : NULL;
		if (hit)
			return hit;
		cr_assert(time(NULL) < until, "never said '%s'; said:\n%s\n%s", want, p->o.out ? p->o.out : "",
			  p->o.err ? p->o.err : "");
		struct pollfd pf = {.fd = p->fds[fd], .events = POLLIN};
		if (poll(&pf, 1, 200) > 0 && !ts_read_some(p->fds[fd], buf, len))
			cr_assert(strstr(*buf ? *buf : "", want), "ended without saying '%s':\n%s\n%s", want,
				  p->o.out ? p->o.out : "", p->o.err ? p->o.err : "");
	}
}

/* Reads what is left of stdout and stderr, then reaps. */
static void finish(struct proc *p)
{
	for (int fd = 1; fd <= 2; fd++)
		while (ts_read_some(p->fds[fd], fd == 1 ? &p->o.out : &p->o.err, fd == 1 ? &p->o.out_len : &p->o.err_len))
			;
	for (int i = 0; i < 3; i++)
		close(p->fds[i]);
	ts_untrack(p->pid);
	ts_reap(p->pid, &p->o);
}

static void stop(struct proc *p)
{
	kill(p->pid, SIGTERM);
	finish(p);
}

/* The protected server on a free port, its secrets noted in DIR/secrets.jsonl; returns its /mcp URL. */
static char *start_server(struct proc *srv, const char *ttl)
{
	unsigned port = ts_free_port();
	char *script = xasprintf("%s/tests/peers/http-oauth-server.mjs", BELAY_SOURCE_DIR);
	char *ports = xasprintf("%u", port), *secrets = fs_join(dir, "secrets.jsonl");
	const char *argv[] = {"node", script, ports, secrets, ttl, NULL};
	srv->pid = ts_spawn(argv, NULL, dir, &srv->o, srv->fds);
	cr_assert_gt(srv->pid, 0);
	ts_track(srv->pid);
	ts_wait_listening(port, 60);
	free(script), free(ports), free(secrets);
	return xasprintf("http://127.0.0.1:%u/mcp", port);
}

/* `belay http login` (with --scope SCOPE unless NULL), its browser being curl following the
 * printed URL; lg holds its output. */
static void login_scoped(const char *upstream, const char *state, struct proc *lg, const char *scope)
{
	const char *argv[] = {BELAY_BIN, "http", "login", "--no-browser", "--timeout", "120", "--state", state, upstream,
			      NULL, NULL, NULL};
	if (scope)
		argv[9] = "--scope", argv[10] = scope;
	lg->pid = ts_spawn(argv, NULL, dir, &lg->o, lg->fds);
	cr_assert_gt(lg->pid, 0);
	ts_track(lg->pid);
	wait_for(lg, 1, "waiting for the browser");
	const char *at = strstr(lg->o.out, "\nhttp://");
	cr_assert_not_null(at, "belay printed no URL to open:\n%s", lg->o.out);
	char *url = xstrndup(at + 1, strcspn(at + 1, "\n"));
	cr_assert(strstr(url, "code_challenge_method=S256") && strstr(url, "resource=http%3A%2F%2F127.0.0.1"),
		  "the authorization URL asks for PKCE S256 and names the resource: %s", url);
	struct ts_out o = {0};
	const char *curl[] = {"curl", "-sS", "-L", "--max-redirs", "2", url, NULL};
	ts_run(curl, NULL, dir, NULL, 0, 60, &o);
	cr_assert_eq(o.status, 0, "the browser's GET failed: %s", o.err);
	cr_assert(strstr(o.out, "belay is authorized"), "belay's redirect page: %s", o.out);
	ts_out_free(&o);
	finish(lg);
	cr_assert_eq(lg->o.status, 0, "belay http login failed (%d):\n%s\n%s", lg->o.status, lg->o.out, lg->o.err);
	free(url);
}

static void login(const char *upstream, const char *state, struct proc *lg)
{
	login_scoped(upstream, state, lg, NULL);
}

static char *start_belay(struct proc *b, const char *upstream, const char *state, const char *traces)
{
	/* the upstream's stable port: the URL a snippet writes, the same after a restart */
	const char *argv[] = {BELAY_BIN, "proxy", "--http", upstream, "--state", state, "--trace-dir", traces, NULL};
	b->pid = ts_spawn(argv, NULL, dir, &b->o, b->fds);
	cr_assert_gt(b->pid, 0);
	ts_track(b->pid);
	const char *at = wait_for(b, 2, "belay: listening on ") + strlen("belay: listening on ");
	return xstrndup(at, strcspn(at, " \n"));
}

/* The SDK client's whole session through belay, with no token of its own. */
static cJSON *client(const char *url, struct proc *bel)
{
	char *script = xasprintf("%s/tests/peers/http-client.mjs", BELAY_SOURCE_DIR);
	const char *argv[] = {"node", script, "streamable", url, NULL};
	struct ts_out o = {0};
	ts_run(argv, NULL, dir, NULL, 0, 180, &o);
	cr_assert_eq(o.status, 0, "the SDK client failed (%d):\n%s\nbelay said:\n%s", o.status, o.err,
		     bel->o.err ? bel->o.err : "");
	cJSON *out = cJSON_Parse(o.out);
	cr_assert_not_null(out, "%s", o.out);
	cJSON *tools = cJSON_GetObjectItem(out, "tools");
	cr_assert_geq(cJSON_GetArraySize(tools), 10, "server-everything's tools listed through belay");
	char *sum = jx_print(cJSON_GetObjectItem(out, "sum"));
	cr_assert(strstr(sum, "is 42"), "get-sum answered through belay: %s", sum);
	free(sum);
	ts_out_free(&o);
	free(script);
	return out;
}

static long long token_expiry(const char *state)
{
	struct ts_out o = {0};
	char *cmd = xasprintf("cat %s/http/*.oauth", state);
	const char *argv[] = {"sh", "-c", cmd, NULL};
	ts_run(argv, NULL, dir, NULL, 0, 30, &o);
	cJSON *t = cJSON_Parse(o.out);
	cr_assert_not_null(t, "the token file: %s", o.out);
	long long at = 0;
	cr_assert(jx_int(t, "expires_at", 1, (long long)1 << 40, &at), "the token file names its expiry");
	cJSON_Delete(t);
	ts_out_free(&o);
	free(cmd);
	return at;
}

/* Every secret the server handed out or received, one per line, into DIR/secret-values;
 * returns how many; *refreshes counts the refresh grants. */
static int secrets(int *refreshes, struct buf *bearer_hashes)
{
	char *path = fs_join(dir, "secrets.jsonl"), *vals = fs_join(dir, "secret-values");
	size_t len = 0;
	char *text = ts_read_file(path, &len);
	cr_assert_not_null(text);
	struct buf b = {0};
	int n = 0;
	*refreshes = 0;
	char *save = NULL;
	for (char *l = strtok_r(text, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		cJSON *o = cJSON_Parse(l);
		const char *kind = jx_str(o, "kind"), *v = jx_str(o, "value");
		cr_assert(kind && v, "%s", l);
		if (!strcmp(kind, "grant")) {
			*refreshes += !strcmp(v, "refresh_token");
		} else {
			buf_printf(&b, "%s\n", v);
			n++;
			if (!strcmp(kind, "access_token")) {
				char *hv = xasprintf("Bearer %s", v), h[72];
				sha256_tagged(hv, strlen(hv), h);
				buf_printf(bearer_hashes, "%s\n", h);
				free(hv);
			}
		}
		cJSON_Delete(o);
	}
	ts_write_file(vals, b.p, b.len);
	buf_free(&b);
	free(text), free(path), free(vals);
	return n;
}

static void nowhere(const char *what, const char *paths)
{
	cr_assert_neq(ts_sh("grep -r -a -l -F -f %s/secret-values --exclude='*.oauth' %s", dir, paths), 0,
		      "a token, code or verifier reached %s (%s)", what, paths);
}

/* Every frame's message of the traces in traces_dir, decoded (a frame's bytes are base64 in
 * the trace), one per line, into out. */
static void decoded_frames(const char *traces_dir, const char *out)
{
	struct ts_out o = {0};
	char *cmd = xasprintf("cat %s/*.jsonl", traces_dir);
	const char *argv[] = {"sh", "-c", cmd, NULL};
	ts_run(argv, NULL, dir, NULL, 0, 30, &o);
	struct buf all = {0};
	int n = 0;
	char *save = NULL;
	for (char *l = strtok_r(o.out, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		cJSON *r = cJSON_Parse(l);
		const char *kind = jx_str(r, "kind"), *raw = jx_str(r, "raw");
		if (kind && !strcmp(kind, "frame") && raw) {
			struct buf m = {0};
			cr_assert_eq(base64_decode(raw, strlen(raw), &m), 0);
			buf_append(&all, m.p, m.len);
			buf_putc(&all, '\n');
			buf_free(&m);
			n++;
		}
		cJSON_Delete(r);
	}
	cr_assert_gt(n, 0, "no frame in %s", traces_dir);
	ts_write_file(out, all.p ? all.p : "", all.len);
	buf_free(&all);
	ts_out_free(&o);
	free(cmd);
}

Test(http_oauth, the_sdk_client_calls_tools_through_belay_after_login_and_after_a_restart_with_refresh)
{
	char *state = fs_join(dir, "state"), *traces = fs_join(dir, "traces");
	struct proc srv = {0}, lg = {0}, bel = {0}, bel2 = {0};
	char *upstream = start_server(&srv, "10"); /* token lifetime, s: a refresh is due after 7.5 */
	login(upstream, state, &lg);

	/* the tokens are belay's, 0600 */
	struct ts_out o = {0};
	char *cmd = xasprintf("stat -c %%a %s/http/*.oauth", state);
	const char *st[] = {"sh", "-c", cmd, NULL};
	ts_run(st, NULL, dir, NULL, 0, 30, &o);
	cr_assert_str_eq(o.out, "600\n", "the token file's mode");
	ts_out_free(&o);
	free(cmd);

	/* the SDK client through belay: no token of its own, the server requires one */
	char *url = start_belay(&bel, upstream, state, traces);
	cJSON *first = client(url, &bel);
	stop(&bel);
	cr_assert_eq(bel.o.status, 0, "belay-http ended with %d:\n%s", bel.o.status, bel.o.err);

	/* after the access token expired, a restarted belay refreshes it (the refresh token
	 * was kept on disk) and the client goes on */
	long long exp = token_expiry(state);
	time_t until = time(NULL) + 120;
	while ((long long)time(NULL) <= exp) {
		cr_assert(time(NULL) < until);
		usleep(200 * 1000);
	}
	int before = 0, after = 0;
	struct buf hashes = {0};
	secrets(&before, &hashes);
	buf_free(&hashes);
	char *url2 = start_belay(&bel2, upstream, state, traces);
	cr_assert_str_eq(url2, url, "the listener's URL stays across the restart");
	cJSON *second = client(url2, &bel2);
	stop(&bel2);
	cr_assert(strstr(bel2.o.err, "refreshed belay's OAuth token"), "the restarted belay says it refreshed:\n%s", bel2.o.err);
	int n = secrets(&after, &hashes);
	cr_assert_gt(after, before, "the restarted belay used the refresh token (%d refresh grants before, %d after)",
		     before, after);
	cr_assert_geq(n, 5, "the server noted code, verifier and tokens (%d)", n);
	cr_assert_gt(token_expiry(state), exp, "the refreshed token was saved");

	/* the trace says which token went upstream by its hash only, and that it was refreshed */
	struct ts_out ls = {0};
	const char *lsv[] = {"sh", "-c", "cat traces/*.jsonl", NULL};
	ts_run(lsv, NULL, dir, NULL, 0, 30, &ls);
	cr_assert(strstr(ls.out, "\"refreshed\":true"), "a request record says belay refreshed its token");
	int hashed = 0;
	char *save = NULL;
	for (char *h = strtok_r(hashes.p, "\n", &save); h; h = strtok_r(NULL, "\n", &save))
		hashed += strstr(ls.out, h) != NULL;
	cr_assert_geq(hashed, 2, "the request records name the tokens belay sent by their hash (%d found)", hashed);
	ts_out_free(&ls);
	buf_free(&hashes);

	/* the flow's log: each step, the secrets by hash */
	cmd = xasprintf("cat %s/http/*.oauth.log", state);
	const char *lg_cat[] = {"sh", "-c", cmd, NULL};
	ts_run(lg_cat, NULL, dir, NULL, 0, 30, &o);
	const char *steps[] = {"\"probe\"", "\"resource_metadata\"", "\"server_metadata\"", "\"register\"",
			       "\"authorize\"", "\"redirect\"", "\"token\"", "\"refresh\"", "\"code_verifier\":{\"sha256\""};
	for (size_t i = 0; i < sizeof steps / sizeof *steps; i++)
		cr_assert(strstr(o.out, steps[i]), "the flow's log lacks %s:\n%s", steps[i], o.out);
	ts_out_free(&o);
	free(cmd);

	/* no token, code or verifier anywhere but the token file */
	nowhere("a trace", traces);
	char *frames = fs_join(dir, "frames.txt");
	decoded_frames(traces, frames);
	nowhere("a message of a trace", frames);
	free(frames);
	nowhere("the state directory (the index, the flow's log)", state);
	char *export = fs_join(dir, "export.json");
	cmd = xasprintf("for t in %s/*.jsonl; do %s export otlp \"$t\" --out %s.$(basename $t) --state %s || exit 1; done",
			traces, BELAY_BIN, export, state);
	cr_assert_eq(ts_sh("%s", cmd), 0, "belay export otlp");
	cr_assert_eq(ts_sh("ls %s.* >/dev/null", export), 0, "the exports were written");
	cr_assert_neq(ts_sh("cat %s.* | grep -a -q -F -f %s/secret-values", export, dir), 0,
		      "a token, code or verifier reached an OTLP export");
	free(cmd);
	char *printed = fs_join(dir, "printed");
	struct buf all = {0};
	struct proc *ps[] = {&lg, &bel, &bel2};
	for (size_t i = 0; i < 3; i++)
		buf_printf(&all, "%s\n%s\n", ps[i]->o.out ? ps[i]->o.out : "", ps[i]->o.err ? ps[i]->o.err : "");
	ts_write_file(printed, all.p, all.len);
	nowhere("what belay printed", printed);
	/* the agent's side: the client never saw one either */
	char *cl = fs_join(dir, "client.json");
	char *a = jx_print(first), *b2 = jx_print(second);
	buf_reset(&all);
	buf_printf(&all, "%s\n%s\n", a, b2);
	ts_write_file(cl, all.p, all.len);
	nowhere("the agent", cl);

	stop(&srv);
	buf_free(&all);
	free(a), free(b2), free(cl), free(printed), free(export);
	cJSON_Delete(first);
	cJSON_Delete(second);
	free(url), free(url2), free(upstream), free(state), free(traces);
	ts_out_free(&srv.o), ts_out_free(&lg.o), ts_out_free(&bel.o), ts_out_free(&bel2.o);
}

/* The server stops taking belay's token before it expires (revoked, or the authorization
 * server restarted): the request it refused with 401 is sent again once, with a refreshed
 * token, and the agent never sees the refusal. */
Test(http_oauth, a_token_the_server_revoked_is_refreshed_and_the_request_sent_again)
{
	char *state = fs_join(dir, "state"), *traces = fs_join(dir, "traces");
	struct proc srv = {0}, lg = {0}, bel = {0};
	char *upstream = start_server(&srv, "3600");
	login(upstream, state, &lg);
	char *url = start_belay(&bel, upstream, state, traces);
	cJSON *first = client(url, &bel);
	int before = 0, after = 0;
	struct buf hashes = {0};
	secrets(&before, &hashes);
	char *revoke = xasprintf("curl -sS -f -X POST %.*s/test/revoke >/dev/null", (int)(strlen(upstream) - 4), upstream);
	cr_assert_eq(ts_sh("%s", revoke), 0, "the test server's revoke");
	cJSON *second = client(url, &bel);
	stop(&bel);
	secrets(&after, &hashes);
	cr_assert_eq(after, before + 1, "belay refreshed once (%d refresh grants before, %d after)", before, after);
	cr_assert(strstr(bel.o.err, "sent the request again"), "belay says it sent the request again:\n%s", bel.o.err);
	struct ts_out ls = {0};
	const char *lsv[] = {"sh", "-c", "cat traces/*.jsonl", NULL};
	ts_run(lsv, NULL, dir, NULL, 0, 30, &ls);
	cr_assert(strstr(ls.out, "\"retry_of\":"), "a request record says which request it sends again");
	cr_assert(strstr(ls.out, "\"status\":401"), "the refused answer is recorded");
	nowhere("a trace", traces);
	ts_out_free(&ls);
	stop(&srv);
	buf_free(&hashes);
	cJSON_Delete(first);
	cJSON_Delete(second);
	free(revoke), free(url), free(upstream), free(state), free(traces);
	ts_out_free(&srv.o), ts_out_free(&lg.o), ts_out_free(&bel.o);
}

Test(http_oauth, without_a_login_the_agent_gets_a_refusal_naming_belay_http_login)
{
	char *state = fs_join(dir, "state"), *traces = fs_join(dir, "traces");
	struct proc srv = {0}, bel = {0};
	char *upstream = start_server(&srv, "3600");
	char *url = start_belay(&bel, upstream, state, traces);
	unsigned bport = 0;
	cr_assert_eq(sscanf(url, "http://127.0.0.1:%u/", &bport), 1);
	const char *body = "{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\",\"params\":{}}";
	char *req = xasprintf("POST %s HTTP/1.1\r\nHost: 127.0.0.1:%u\r\nContent-Type: application/json\r\n"
			      "Accept: application/json, text/event-stream\r\nContent-Length: %zu\r\nConnection: close\r\n\r\n%s",
			      strchr(url + 7, '/'), bport, strlen(body), body);
	int fd = ts_try_connect(bport);
	cr_assert_geq(fd, 0);
	cr_assert_eq(write(fd, req, strlen(req)), (ssize_t)strlen(req));
	char *resp = NULL;
	size_t rlen = 0;
	while (ts_read_some(fd, &resp, &rlen))
		;
	close(fd);
	cr_assert(resp && !strncmp(resp, "HTTP/1.1 403", 12), "%s", resp ? resp : "(nothing)");
	char *want = xasprintf("belay http login %s", upstream);
	cr_assert(strstr(resp, want), "the refusal names the command to run: %s", resp);
	cr_assert_null(strcasestr(resp, "\nWWW-Authenticate:"), "the server's challenge is not relayed: %s", resp);
	cr_assert_null(strstr(resp, "resource_metadata"), "nor its metadata's address: %s", resp);
	stop(&bel);
	cr_assert(strstr(bel.o.err, want), "belay's own output names the command too:\n%s", bel.o.err);
	cr_assert_eq(ts_sh("grep -q '\"status\":401' %s/*.jsonl && grep -q 'belay http login' %s/*.jsonl", traces, traces),
		     0, "the trace records the 401 and the refusal");
	stop(&srv);
	free(want), free(resp), free(req), free(url), free(upstream), free(state), free(traces);
	ts_out_free(&srv.o), ts_out_free(&bel.o);
}

Test(http_oauth, claude_code_lists_and_calls_a_protected_server_through_belay_after_login)
{
	/* the pinned Claude Code CLI, configured by `belay snippet claude-code --http URL`: its
	 * health check (`claude mcp list`) connects through belay, and headless (`claude -p`, its
	 * model the local stand-in for the Messages API, tests/fixtures/fake_messages_api.py) it
	 * calls the protected server's echo tool through belay; it never held a token */
	char *claude = fs_join(peers, "@anthropic-ai/claude-code-linux-x64/claude");
	if (access(claude, X_OK) != 0) {
		free(claude);
		cr_skip_test("the pinned Claude Code CLI is not installed (scripts/setup.sh installs it)");
	}
	struct ts_world w;
	ts_world_setup(&w, "http-oauth-claude");
	char *home = fs_join(w.dir, "home");
	cr_assert_eq(ts_sh("mkdir -p %s/.claude", home), 0);
	char *settings = fs_join(home, ".claude/settings.json");
	const char *allow = "{\"enableAllProjectMcpServers\": true}\n";
	ts_write_file(settings, allow, strlen(allow));
	struct proc srv = {0}, lg = {0}, bel = {0};
	char *upstream = start_server(&srv, "3600");
	login(upstream, w.state, &lg);
	char *url = start_belay(&bel, upstream, w.state, w.traces);
	struct ts_out o = {0};
	const char *snip[] = {BELAY_BIN, "snippet", "claude-code", "--http", upstream, "--state", w.state, NULL};
	ts_run(snip, NULL, dir, NULL, 0, 60, &o);
	cr_assert_eq(o.status, 0, "%s", o.err);
	char *mcp = fs_join(w.ws, ".mcp.json");
	ts_write_file(mcp, o.out, o.out_len);
	ts_out_free(&o);
	char *h = xasprintf("HOME=%s", home);
	const char *env0[] = {h, "LOGNAME=belay-test", "USER=belay-test", "SHELL=/bin/sh", "TERM=dumb",
			      "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1", "PATH=/usr/bin:/bin", NULL};
	const char *list[] = {claude, "mcp", "list", NULL};
	cr_assert_eq(ts_run(list, env0, w.ws, NULL, 0, 120, &o), 0);
	const char *line = strstr(o.out, url);
	cr_assert(line, "claude mcp list names belay's URL:\n%s\n%s", o.out, o.err);
	cr_assert(strstr(line, "Connected"), "Claude Code connected to the protected server through belay:\n%s", o.out);
	ts_out_free(&o);

	const char *script = "[[{\"type\":\"text\",\"text\":\"Asking the server.\"},{\"type\":\"tool_use\",\"id\":\"toolu_o1\","
			     "\"name\":\"mcp__belay__echo\",\"input\":{\"message\":\"behind oauth through belay\"}}],"
			     "[{\"type\":\"text\",\"text\":\"The server echoed it.\"}]]";
	struct ts_api a;
	ts_api_start(&a, &w, "fake_messages_api.py", script);
	char *api = xasprintf("ANTHROPIC_BASE_URL=http://127.0.0.1:%d", a.port);
	char *rt = xasprintf("XDG_RUNTIME_DIR=%s", w.runtime);
	const char *env[] = {h, "LOGNAME=belay-test", "USER=belay-test", "SHELL=/bin/sh", "TERM=dumb", api, rt,
			     "ANTHROPIC_API_KEY=sk-belay-test", "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1",
			     "PATH=/usr/bin:/bin", NULL};
	const char *argv[] = {claude, "-p", "echo something through the server", "--output-format", "json",
			      "--allowedTools", "mcp__belay__echo", NULL};
	ts_run(argv, env, w.ws, NULL, 0, 180, &o);
	ts_api_stop(&a);
	cr_assert(!o.timed_out, "claude timed out: %s", o.err);
	cJSON *r = cJSON_Parse(o.out);
	cr_assert(r, "claude printed no JSON result (exit %d): %s / %s", o.status, o.out, o.err);
	cr_expect_str_eq(jx_str(r, "result"), "The server echoed it.", "%s", o.out);
	cJSON_Delete(r);
	ts_out_free(&o);
	char *log = fs_join(w.dir, "api.log");
	size_t len = 0;
	char *api_log = ts_read_file(log, &len);
	cr_assert(api_log && strstr(api_log, "tool_result"), "no tool_result went back to the model:\n%s",
		  api_log ? api_log : "");
	free(api_log), free(log);
	stop(&bel);
	char *frames = fs_join(w.dir, "frames.txt");
	decoded_frames(w.traces, frames);
	size_t fl = 0;
	char *ftext = ts_read_file(frames, &fl);
	cr_assert(ftext && strstr(ftext, "Echo: behind oauth through belay"), "the trace holds the protected server's answer");
	free(ftext);
	/* Claude Code holds no token: none in its home (its configuration, its caches) */
	int refreshes = 0;
	struct buf hs = {0};
	secrets(&refreshes, &hs);
	buf_free(&hs);
	nowhere("Claude Code's home", home);
	nowhere("a trace", w.traces);
	nowhere("a message of the trace", frames);
	free(frames);
	stop(&srv);
	free(h), free(api), free(rt), free(mcp), free(url), free(upstream), free(settings), free(home), free(claude);
	ts_out_free(&srv.o), ts_out_free(&lg.o), ts_out_free(&bel.o);
	ts_world_teardown(&w);
}

/* A server of a few lines whose metadata is wrong in one way: `belay http login` must refuse to
 * authorize, naming why, before any browser is involved. */
static void login_refused(const char *resource, const char *auth_endpoint, const char *want)
{
	unsigned port = ts_free_port();
	char *js = xasprintf(
		"const b = 'http://127.0.0.1:%u';"
		"require('http').createServer((q, r) => {"
		" const j = (o) => { r.writeHead(200, {'Content-Type': 'application/json'}); r.end(JSON.stringify(o)); };"
		" if (q.url === '/.well-known/oauth-protected-resource/mcp') return j({resource: '%s' || b + '/mcp', authorization_servers: [b + '/']});"
		" if (q.url === '/.well-known/oauth-authorization-server') return j({issuer: b + '/', authorization_endpoint: '%s' || b + '/authorize',"
		"  token_endpoint: b + '/token', registration_endpoint: b + '/register', code_challenge_methods_supported: ['S256']});"
		" r.writeHead(401, {'WWW-Authenticate': 'Bearer resource_metadata=\"' + b + '/.well-known/oauth-protected-resource/mcp\"'}); r.end();"
		"}).listen(%u, '127.0.0.1')",
		port, resource, auth_endpoint, port);
	const char *argv[] = {"node", "-e", js, NULL};
	struct proc srv = {0};
	srv.pid = ts_spawn(argv, NULL, dir, &srv.o, srv.fds);
	ts_track(srv.pid);
	ts_wait_listening(port, 60);
	char *upstream = xasprintf("http://127.0.0.1:%u/mcp", port), *state = fs_join(dir, "state");
	const char *lg[] = {BELAY_BIN, "http", "login", "--no-browser", "--timeout", "5", "--state", state, upstream, NULL};
	struct ts_out o = {0};
	ts_run(lg, NULL, dir, NULL, 0, 60, &o);
	cr_assert_eq(o.status, 1, "belay http login must fail (%d):\n%s\n%s", o.status, o.out, o.err);
	cr_assert(strstr(o.err, want), "the failure names why (%s):\n%s", want, o.err);
	cr_assert_null(strstr(o.out, "open this URL"), "no authorization was started:\n%s", o.out);
	cr_assert_neq(ts_sh("ls %s/http/*.oauth 2>/dev/null", state), 0, "no token file");
	stop(&srv);
	ts_out_free(&o), ts_out_free(&srv.o);
	free(js), free(upstream), free(state);
}

Test(http_oauth, login_refuses_metadata_naming_another_resource)
{
	login_refused("https://evil.example/mcp", "", "names the resource 'https://evil.example/mcp'");
}

Test(http_oauth, login_refuses_an_authorization_server_without_https)
{
	login_refused("", "http://auth.example.com/authorize", "not https");
}

Test(http_oauth, a_token_without_the_scope_the_server_wants_is_refused_naming_the_login_that_mends_it)
{
	/* the server requires mcp:tools; belay logged in asking for another scope: the server's
	 * 403 insufficient_scope (a step-up challenge) is not passed through either */
	char *state = fs_join(dir, "state"), *traces = fs_join(dir, "traces");
	struct proc srv = {0}, lg = {0}, bel = {0};
	char *upstream = start_server(&srv, "3600");
	login_scoped(upstream, state, &lg, "other");
	char *url = start_belay(&bel, upstream, state, traces);
	char *script = xasprintf("%s/tests/peers/http-client.mjs", BELAY_SOURCE_DIR);
	const char *argv[] = {"node", script, "streamable", url, NULL};
	struct ts_out o = {0};
	ts_run(argv, NULL, dir, NULL, 0, 180, &o);
	cr_assert_neq(o.status, 0, "the client cannot initialize");
	char *want = xasprintf("belay http login --scope 'mcp:tools' %s", upstream);
	cr_assert(strstr(o.err, want), "the client's error names the login with the scope the server wants:\n%s", o.err);
	stop(&bel);
	cr_assert(strstr(bel.o.err, want), "so does belay's own output:\n%s", bel.o.err);
	cr_assert_eq(ts_sh("grep -q '\"status\":403' %s/*.jsonl && grep -q 'wants more scope' %s/*.jsonl", traces, traces), 0,
		     "the trace records the 403 and the refusal");
	stop(&srv);
	ts_out_free(&o);
	free(want), free(script), free(url), free(upstream), free(state), free(traces);
	ts_out_free(&srv.o), ts_out_free(&lg.o), ts_out_free(&bel.o);
}

Test(http_oauth, belay_links_no_network_client_the_login_runs_in_belay_http)
{
	/* `belay http login` executes belay-http: the belay binary itself stays free of network
	 * clients (as tests/unit/test_verify.c checks for the verdict code) */
	cr_assert_neq(ts_sh("ldd %s | grep -E -i 'libcurl|libmicrohttpd|libssl|libgnutls' >/dev/null", BELAY_BIN), 0,
		      "belay links a network library");
	cr_assert_eq(ts_sh("ldd %s/belay-http | grep -q libcurl", BELAY_BUILD_DIR), 0, "belay-http does the network");
	cr_assert_eq(ts_sh("strings -a %s/belay-http | grep -q 'oauth-protected-resource'", BELAY_BUILD_DIR), 0,
		     "the flow is in belay-http");
	cr_assert_neq(ts_sh("strings -a %s | grep -q 'oauth-protected-resource'", BELAY_BIN), 0,
		      "and not in belay");
}
