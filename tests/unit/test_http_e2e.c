/* test_http_e2e.c - `belay proxy --http URL` between the real SDK client and the real
 * server-everything over HTTP (both pinned in tests/peers): Streamable HTTP
 * (StreamableHTTPClientTransport, server-everything `streamableHttp`) and the old HTTP+SSE
 * transport (SSEClientTransport, `sse`). The client (tests/peers/http-client.mjs) lists the
 * tools, calls every one (a progress stream, sampling, elicitation and roots answered by the
 * client, the toggles, an error result) and prints every JSON-RPC message it sent and
 * received; the trace must hold exactly those, in
 * the client's order, each request before its response, the run must be in the index, and
 * the Authorization header the client sent must be nowhere in the trace, the store or an
 * export (only its name and hash). The listener refuses a foreign Host or Origin, a wrong
 * secret, an unknown path and other methods, by name. Two agents at once get a run each
 * (one ended by its DELETE, one by the idle timeout); verify judges every turn UNVERIFIED
 * REPLAY_NETWORK_REFUSED; `belay snippet --http` writes the listener's URL, which survives a
 * restart, and so does a session (its next requests in a run of its own); the pinned Claude
 * Code CLI's `claude mcp list` connects through belay, and `claude -p` (its model a local
 * stand-in, tests/fixtures/fake_messages_api.py) calls a tool through it; a server asking for
 * OAuth is refused by name; the operator's --policy shapes the recorded plans; enforce mode
 * holds a refused call until `belay approve` (or refuses it by name at the bound); a stream
 * the server cuts is resumed with Last-Event-ID (the SDK's own server transport and event
 * store, tests/peers/http-resume-server.mjs) and the trace keeps order and pairing; an event
 * stream the server already ended goes to the client whole, with its length.
 *
 * Ports are chosen free at run time; every wait is for a condition (with a generous
 * deadline that only turns a hang into a failure), never a measured time. */
#include <arpa/inet.h>
#include <criterion/criterion.h>
#include <criterion/logging.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "common/buf.h"
#include "common/fsutil.h"
#include "common/hash.h"
#include "common/jsonx.h"
#include "common/xalloc.h"
#include "ts_belay.h"
#include "ts_hook.h"
#include "ts_net.h"
#include "tsupport.h"

#define AUTH "belay-e2e-credential-7f3a9c"

static char *dir, *peers;

static void setup(void)
{
	peers = ts_peers();
	cr_assert_not_null(peers, "npm test peers missing: run scripts/setup.sh (npm ci in tests/peers)");
	dir = ts_tmpdir("http-e2e");
}

static void teardown(void)
{
	ts_reap_tracked(); /* what a failed test left running */
	ts_rmtree(dir);
	free(dir);
	free(peers);
}

TestSuite(http_e2e, .init = setup, .fini = teardown, .timeout = 300);

static time_t deadline(int s)
{
	return time(NULL) + s;
}

struct proc {
	pid_t pid;
	int fds[3];
	struct ts_out o;
};

/* Reads the process's stderr until it holds `want` (a substring); returns a pointer into it. */
static const char *wait_stderr(struct proc *p, const char *want)
{
	time_t until = deadline(120);
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

/* Starts server-everything in `mode` on a free port; returns the port. */
static unsigned start_server(struct proc *srv, const char *mode)
{
	unsigned port = ts_free_port();
	char *cmd = xasprintf("exec node %s/@modelcontextprotocol/server-everything/dist/index.js %s >%s/server-%s.log 2>&1",
			      peers, mode, dir, mode);
	char *env_port = xasprintf("PORT=%u", port);
	const char *argv[] = {"sh", "-c", cmd, NULL};
	const char *env[] = {env_port, NULL};
	srv->pid = ts_spawn(argv, env, dir, &srv->o, srv->fds);
	ts_track(srv->pid);
	cr_assert_gt(srv->pid, 0);
	ts_wait_listening(port, 60);
	free(cmd);
	free(env_port);
	return port;
}

/* Starts `belay proxy --http upstream --listen 0`; returns belay's URL (new string) and its port. */
/* A gate policy file for the next start_belay (NULL: none), and enforce mode. */
static const char *belay_policy;
static int belay_enforce;
static const char *belay_hold; /* --hold SECONDS (NULL: belay's default) */

static char *start_belay(struct proc *b, const char *upstream, const char *state, const char *traces, unsigned *port,
			 const char *idle)
{
	const char *argv[] = {BELAY_BIN, "proxy", "--http", upstream, "--state", state, "--trace-dir", traces,
			      "--idle-timeout", idle ? idle : "600", "--listen", "0", NULL, NULL, NULL, NULL, NULL, NULL, NULL};
	int k = 12;
	if (idle && !strcmp(idle, "stable"))
		argv[k = 8] = NULL; /* the upstream's stable port */
	if (belay_policy)
		argv[k++] = "--policy", argv[k++] = belay_policy;
	if (belay_enforce)
		argv[k++] = "--mode", argv[k++] = "enforce";
	if (belay_hold)
		argv[k++] = "--hold", argv[k++] = belay_hold;
	argv[k] = NULL;
	b->pid = ts_spawn(argv, NULL, dir, &b->o, b->fds);
	ts_track(b->pid);
	cr_assert_gt(b->pid, 0);
	const char *at = wait_stderr(b, "belay: listening on ");
	at += strlen("belay: listening on ");
	size_t n = strcspn(at, " \n");
	char *url = xstrndup(at, n);
	cr_assert_eq(sscanf(url, "http://127.0.0.1:%u/", port), 1, "%s", url);
	return url;
}

/* One frame of the trace: its seq and its message. */
struct frame {
	long long seq;
	int c2s;
	cJSON *msg;
};

static size_t read_frames(const char *trace, struct frame *out, size_t max)
{
	size_t len = 0, n = 0;
	char *text = ts_read_file(trace, &len);
	cr_assert_not_null(text, "%s", trace);
	char *save = NULL;
	for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		cJSON *o = cJSON_Parse(line);
		cr_assert_not_null(o, "a trace line that is not JSON: %s", line);
		if (!strcmp(jx_str(o, "kind"), "frame")) {
			cr_assert_lt(n, max);
			struct buf raw = {0};
			const char *b64 = jx_str(o, "raw");
			cr_assert_eq(base64_decode(b64, strlen(b64), &raw), 0);
			out[n].seq = (long long)cJSON_GetObjectItem(o, "seq")->valuedouble;
			out[n].c2s = !strcmp(jx_str(o, "dir"), "c2s");
			out[n].msg = cJSON_ParseWithLength(raw.p ? raw.p : "", raw.len);
			cr_assert_not_null(out[n].msg, "a frame that is not JSON: %.*s", (int)raw.len, raw.p);
			buf_free(&raw);
			n++;
		}
		cJSON_Delete(o);
	}
	free(text);
	return n;
}

/* Every tools/call has its effect plan, recorded as a remote server's (audit mode). */
static void every_call_planned(const char *trace, const struct frame *f, size_t nf)
{
	size_t len = 0, calls = 0, plans = 0;
	for (size_t i = 0; i < nf; i++) {
		const cJSON *m = cJSON_GetObjectItem(f[i].msg, "method");
		calls += f[i].c2s && cJSON_IsString(m) && !strcmp(m->valuestring, "tools/call");
	}
	char *text = ts_read_file(trace, &len), *save = NULL;
	for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		cJSON *o = cJSON_Parse(line);
		if (!strcmp(jx_str(o, "kind"), "gate_decision")) {
			plans++;
			long long rs = (long long)cJSON_GetObjectItem(o, "request_seq")->valuedouble;
			int found = 0;
			for (size_t i = 0; i < nf; i++)
				found |= f[i].seq == rs && f[i].c2s &&
					 !strcmp(cJSON_GetObjectItem(f[i].msg, "method")->valuestring, "tools/call");
			cr_assert(found, "a gate_decision names seq %lld, which is no tools/call", rs);
			cr_assert(cJSON_IsTrue(cJSON_GetObjectItem(o, "remote")), "%s", line);
			cr_assert_not_null(cJSON_GetObjectItem(o, "plan"), "%s", line);
			if (!strcmp(jx_str(o, "tool"), "get-sum"))
				cr_assert_str_eq(jx_str(o, "decision"), "deny", "the policy's floor was not applied: %s", line);
		}
		cJSON_Delete(o);
	}
	free(text);
	cr_assert_eq(plans, calls, "%zu plan(s) for %zu tools/call(s)", plans, calls);
	cr_assert_gt(calls, 3);
}

/* A tools/call request: the client sends them one after the other. */
static int is_call(const cJSON *m)
{
	const cJSON *method = cJSON_GetObjectItem(m, "method");
	return cJSON_IsString(method) && !strcmp(method->valuestring, "tools/call");
}

/* The frames of one direction must be exactly the client's messages of it: the same
 * messages, each once (a multiset: messages sent concurrently on two connections, such as
 * the answer to the server's roots/list and the next call, have no order of their own), and
 * the client's sequential calls in the client's order (each answer comes after its call:
 * requests_before_responses; the client sends a call only once the last was answered). */
static void same_messages(const struct frame *f, size_t nf, int c2s, const cJSON *want, const char *what)
{
	int nwant = cJSON_GetArraySize(want);
	char *used = xcalloc((size_t)nwant + 1, 1);
	size_t k = 0;
	int last_call = -1;
	for (size_t i = 0; i < nf; i++) {
		if (f[i].c2s != c2s)
			continue;
		char *got = cJSON_PrintUnformatted(f[i].msg);
		int j = 0, hit = -1;
		for (const cJSON *m = want->child; m; m = m->next, j++)
			if (!used[j] && cJSON_Compare(f[i].msg, m, 1)) {
				hit = j;
				break;
			}
		cr_assert_geq(hit, 0, "%s: the trace holds a message the client never %s (or holds it twice): %s", what,
			      c2s ? "sent" : "received", got);
		used[hit] = 1;
		if (c2s && is_call(f[i].msg)) {
			cr_assert_gt(hit, last_call, "%s: the client's calls are out of order in the trace at %s", what, got);
			last_call = hit;
		}
		free(got);
		k++;
	}
	for (int j = 0; j < nwant; j++) {
		char *s = cJSON_PrintUnformatted(cJSON_GetArrayItem(want, j));
		cr_assert(used[j], "%s: the client %s a message the trace lacks: %s", what, c2s ? "sent" : "received", s);
		free(s);
	}
	cr_assert_gt(k, 5, "%s: too few messages to mean anything", what);
	free(used);
}

/* Every response's request was recorded before it (same id, other direction, lower seq). */
static void requests_before_responses(const struct frame *f, size_t nf)
{
	for (size_t i = 0; i < nf; i++) {
		const cJSON *id = cJSON_GetObjectItem(f[i].msg, "id");
		if (!id || cJSON_GetObjectItem(f[i].msg, "method"))
			continue;
		int found = 0;
		for (size_t j = 0; j < nf && !found; j++)
			found = f[j].c2s != f[i].c2s && cJSON_GetObjectItem(f[j].msg, "method") &&
				cJSON_Compare(cJSON_GetObjectItem(f[j].msg, "id"), id, 1) && f[j].seq < f[i].seq;
		char *s = cJSON_PrintUnformatted(f[i].msg);
		cr_assert(found, "no request recorded before the response %s", s);
		free(s);
	}
}

/* The status of one raw HTTP request to belay's listener. */
static int http_status(unsigned port, const char *req)
{
	int fd = ts_try_connect(port);
	cr_assert_geq(fd, 0);
	cr_assert_eq(write(fd, req, strlen(req)), (ssize_t)strlen(req));
	char buf[512] = {0};
	size_t got = 0;
	while (got < sizeof buf - 1 && !memchr(buf, '\n', got)) {
		ssize_t r = read(fd, buf + got, sizeof buf - 1 - got);
		if (r <= 0)
			break;
		got += (size_t)r;
	}
	close(fd);
	int status = 0;
	sscanf(buf, "HTTP/1.%*d %d", &status);
	return status;
}

/* The whole session through belay: returns the trace's path (new string). */
static char *session(const char *mode, const char *upstream_path, const char *state, const char *traces,
		     cJSON **client_out)
{
	struct proc srv = {0}, bel = {0};
	unsigned sport = start_server(&srv, !strcmp(mode, "sse") ? "sse" : "streamableHttp"), bport = 0;
	char *upstream = xasprintf("http://127.0.0.1:%u%s", sport, upstream_path);
	char *url = start_belay(&bel, upstream, state, traces, &bport, NULL);
	char *client = xasprintf("%s/tests/peers/http-client.mjs", BELAY_SOURCE_DIR);
	const char *argv[] = {"node", client, mode, url, AUTH, "main", "all", NULL};
	struct ts_out o = {0};
	ts_run(argv, NULL, dir, NULL, 0, 180, &o);
	cr_assert_eq(o.status, 0, "the client failed (%d):\n%s\nbelay said:\n%s", o.status, o.err, bel.o.err);
	*client_out = cJSON_Parse(o.out);
	cr_assert_not_null(*client_out, "%s", o.out);
	/* the run ends: DELETE (Streamable HTTP) or the stream's connection closing (old transport) */
	const char *closed = wait_stderr(&bel, "belay: closed ");
	char *trace = xstrndup(closed + strlen("belay: closed "), strcspn(closed + strlen("belay: closed "), "\n"));

	/* the listener's own guard, by name, while it runs */
	char *secret_path = xstrndup(strstr(url, "/") ? strchr(url + 7, '/') : "/", strlen(strchr(url + 7, '/')));
	char *req = xasprintf("GET %s HTTP/1.1\r\nHost: evil.example:%u\r\n\r\n", secret_path, bport);
	cr_assert_eq(http_status(bport, req), 403, "a foreign Host (DNS rebinding) must be refused");
	free(req);
	req = xasprintf("GET %s HTTP/1.1\r\nHost: 127.0.0.1:%u\r\nOrigin: https://evil.example\r\n\r\n", secret_path,
			bport);
	cr_assert_eq(http_status(bport, req), 403, "a web page's Origin must be refused");
	free(req);
	req = xasprintf("GET /00000000000000000000000000000000/mcp HTTP/1.1\r\nHost: 127.0.0.1:%u\r\n\r\n", bport);
	cr_assert_eq(http_status(bport, req), 404, "a wrong secret must be refused");
	free(req);
	req = xasprintf("GET %.*s/other HTTP/1.1\r\nHost: localhost:%u\r\n\r\n", (int)(strlen(secret_path) - 4),
			secret_path, bport);
	cr_assert_eq(http_status(bport, req), 404, "a path belay does not serve must be refused");
	free(req);
	req = xasprintf("PUT %s HTTP/1.1\r\nHost: 127.0.0.1:%u\r\nContent-Length: 0\r\n\r\n", secret_path, bport);
	cr_assert_eq(http_status(bport, req), 405, "only POST, GET and DELETE");
	free(req);
	free(secret_path);

	stop(&bel);
	cr_assert_eq(bel.o.status, 0, "belay-http ended with %d:\n%s", bel.o.status, bel.o.err);
	cr_assert_null(strstr(bel.o.err ? bel.o.err : "", AUTH), "belay printed the credential");
	stop(&srv);
	ts_out_free(&bel.o);
	ts_out_free(&srv.o);
	ts_out_free(&o);
	free(client);
	free(url);
	free(upstream);
	return trace;
}

static void check_session(const char *mode, const char *upstream_path)
{
	char *state = fs_join(dir, "state"), *traces = fs_join(dir, "traces");
	/* the operator's policy is read: get-sum is to be refused whatever it does */
	char *policy = fs_join(dir, "policy.json");
	const char *pol = "{\"version\": 1, \"tools\": [{\"name\": \"get-sum\", \"floor\": \"deny\"}]}\n";
	ts_write_file(policy, pol, strlen(pol));
	belay_policy = policy;
	cJSON *out = NULL;
	char *trace = session(mode, upstream_path, state, traces, &out);
	belay_policy = NULL;

	/* what the client saw: the server answered through belay */
	const cJSON *tools = cJSON_GetObjectItem(out, "tools");
	int has_echo = 0;
	for (const cJSON *t = tools ? tools->child : NULL; t; t = t->next)
		has_echo |= !strcmp(t->valuestring, "echo");
	cr_assert(has_echo, "tools/list through belay lacks echo");
	char *sum = cJSON_PrintUnformatted(cJSON_GetObjectItem(out, "sum"));
	cr_assert(strstr(sum, "The sum of 2 and 40 is 42"), "%s", sum);
	free(sum);
	cr_assert_geq(cJSON_GetObjectItem(out, "progress")->valueint, 1, "no progress notification came through");
	char *sampling = cJSON_PrintUnformatted(cJSON_GetObjectItem(out, "sampling"));
	cr_assert(strstr(sampling, "echo: 1 message"), "the sampling answer did not reach the server: %s", sampling);
	free(sampling);
	/* every tool of server-everything (roots, elicitation, the toggles among them): all
	 * answered, the one called with bad arguments as an error result */
	const cJSON *all = cJSON_GetObjectItem(out, "all");
	int calls = 0, errors = 0, ok = 0;
	for (const cJSON *c = all ? all->child : NULL; c; c = c->next, calls++) {
		const char *how = cJSON_GetArrayItem(c, 1)->valuestring;
		errors += !strcmp(how, "error");
		ok += !strcmp(how, "ok");
		if (strcmp(how, "ok") && strcmp(how, "error"))
			cr_log_info("%s: %s %s", mode, cJSON_GetArrayItem(c, 0)->valuestring, how);
	}
	cr_assert_geq(calls, 19, "every tool was called (%d)", calls);
	cr_assert_eq(errors, 1, "only get-sum with a bad argument fails (%d errors)", errors);
	cr_assert_geq(ok, 17, "%d of %d calls answered", ok, calls);

	/* the trace: exactly the client's messages, each direction in order, requests first */
	struct frame f[256];
	size_t nf = read_frames(trace, f, 256);
	same_messages(f, nf, 1, cJSON_GetObjectItem(out, "sent"), mode);
	same_messages(f, nf, 0, cJSON_GetObjectItem(out, "received"), mode);
	requests_before_responses(f, nf);
	every_call_planned(trace, f, nf);
	for (size_t i = 0; i < nf; i++)
		cJSON_Delete(f[i].msg);

	/* it checks as a trace, and the run is in the index like a stdio run */
	struct ts_out o = {0};
	const char *check[] = {BELAY_BIN, "trace", "check", trace, NULL};
	ts_run(check, NULL, dir, NULL, 0, 60, &o);
	cr_assert_eq(o.status, 0, "belay trace check: %s%s", o.out, o.err);
	ts_out_free(&o);
	const char *runs[] = {BELAY_BIN, "runs", "--all", "--json", "--state", state, NULL};
	ts_run(runs, NULL, dir, NULL, 0, 60, &o);
	cr_assert_eq(o.status, 0, "%s", o.err);
	char *base = strrchr(trace, '/') + 1;
	char *id = xstrndup(base, strlen(base) - strlen(".jsonl"));
	cr_assert(strstr(o.out, id), "belay runs does not list %s:\n%s", id, o.out);
	ts_out_free(&o);
	const char *show[] = {BELAY_BIN, "show", id, "--state", state, NULL};
	ts_run(show, NULL, dir, NULL, 0, 60, &o);
	cr_assert_eq(o.status, 0, "belay show %s: %s", id, o.err);
	cr_assert(strstr(o.out, "echo"), "belay show lacks the echo call:\n%s", o.out);
	ts_out_free(&o);

	/* verify: a remote server's turns are UNVERIFIED with the network/external-state cause,
	 * and nothing is re-sent (verify links no network client: test_verify; the upstream
	 * server is already gone here) */
	const char *ver[] = {BELAY_BIN, "verify", trace, "--json", "--state", state, NULL};
	ts_run(ver, NULL, dir, NULL, 0, 120, &o);
	int turns = 0;
	char *vsave = NULL;
	for (char *line = strtok_r(o.out, "\n", &vsave); line; line = strtok_r(NULL, "\n", &vsave)) {
		cJSON *t = cJSON_Parse(line);
		cr_assert_not_null(t, "belay verify --json printed %s", line);
		if (cJSON_GetObjectItem(t, "turn")) {
			turns++;
			cr_assert_str_eq(jx_str(t, "status"), "UNVERIFIED");
			cr_assert_str_eq(jx_str(t, "cause"), "REPLAY_NETWORK_REFUSED", "turn cause %s", jx_str(t, "cause"));
		}
		cJSON_Delete(t);
	}
	cr_assert_geq(turns, 4, "verify judged %d turn(s): %s", turns, o.err);
	ts_out_free(&o);

	/* the credential: its name and hash are in the trace (it did cross), its value nowhere */
	char want_hash[72];
	sha256_tagged("Bearer " AUTH, strlen("Bearer " AUTH), want_hash);
	size_t len = 0;
	char *text = ts_read_file(trace, &len);
	cr_assert(strstr(text, want_hash), "the Authorization header's hash is not in the trace");
	cr_assert_null(memmem(text, len, AUTH, strlen(AUTH)), "the Authorization value reached the trace");
	free(text);
	cr_assert_neq(ts_sh("grep -r -a -q -F '%s' %s %s", AUTH, state, traces), 0,
		      "the Authorization value reached the state directory (the index) or a trace");
	char *export = fs_join(dir, "export.json");
	const char *exp[] = {BELAY_BIN, "export", "otlp", trace, "--out", export, "--state", state, NULL};
	ts_run(exp, NULL, dir, NULL, 0, 120, &o);
	cr_assert_eq(o.status, 0, "belay export otlp: %s", o.err);
	cr_assert_neq(ts_sh("grep -a -q -F '%s' %s", AUTH, export), 0, "the Authorization value reached an export");
	cr_assert_eq(ts_sh("test -s %s", export), 0, "the export is empty");
	ts_out_free(&o);
	free(export);
	free(id);
	free(trace);
	cJSON_Delete(out);
	free(state);
	free(traces);
	free(policy);
}

Test(http_e2e, streamable_http_through_belay)
{
	check_session("streamable", "/mcp");
}

Test(http_e2e, old_sse_transport_through_belay)
{
	/* the endpoint event is rewritten: had the client posted upstream, its messages would be
	 * missing from the trace and same_messages would fail */
	check_session("sse", "/sse");
}

/* The trace of one run: its frames' messages, and its end reason (new string). */
static char *end_reason(const char *trace)
{
	size_t len = 0;
	char *text = ts_read_file(trace, &len);
	char *r = strstr(text, "\"event\":\"end\",\"reason\":\"");
	cr_assert_not_null(r, "%s has no end record", trace);
	r += strlen("\"event\":\"end\",\"reason\":\"");
	char *out = xstrndup(r, strcspn(r, "\""));
	free(text);
	return out;
}

Test(http_e2e, several_clients_one_listener_one_run_each)
{
	/* two agents at once on one listener: one run (trace) per session, each exactly its
	 * client's messages; one ends with its DELETE, the other (no DELETE) when idle */
	char *state = fs_join(dir, "state"), *traces = fs_join(dir, "traces");
	struct proc srv = {0}, bel = {0}, cl[2] = {0};
	unsigned sport = start_server(&srv, "streamableHttp"), bport = 0;
	char *upstream = xasprintf("http://127.0.0.1:%u/mcp", sport);
	char *url = start_belay(&bel, upstream, state, traces, &bport, "1");
	char *client = xasprintf("%s/tests/peers/http-client.mjs", BELAY_SOURCE_DIR);
	const char *tags[2] = {"client-A", "client-B"};
	for (int i = 0; i < 2; i++) {
		const char *argv[] = {"node", client, "streamable", url, AUTH, tags[i], i ? "keep" : "delete", NULL};
		cl[i].pid = ts_spawn(argv, NULL, dir, &cl[i].o, cl[i].fds);
		ts_track(cl[i].pid);
		cr_assert_gt(cl[i].pid, 0);
		close(cl[i].fds[0]);
		cl[i].fds[0] = -1;
	}
	cJSON *out[2];
	for (int i = 0; i < 2; i++) {
		/* read both outputs to their end, then reap */
		struct pollfd pf[2] = {{.fd = cl[i].fds[1], .events = POLLIN}, {.fd = cl[i].fds[2], .events = POLLIN}};
		int open_fds = 2;
		time_t until = deadline(180);
		while (open_fds) {
			cr_assert(time(NULL) < until, "client %d never ended", i);
			if (poll(pf, 2, 200) <= 0)
				continue;
			for (int k = 0; k < 2; k++)
				if (pf[k].fd >= 0 && pf[k].revents) {
					int more = k ? ts_read_some(pf[k].fd, &cl[i].o.err, &cl[i].o.err_len)
						     : ts_read_some(pf[k].fd, &cl[i].o.out, &cl[i].o.out_len);
					if (!more) {
						close(pf[k].fd);
						pf[k].fd = -1;
						open_fds--;
					}
				}
		}
		cl[i].fds[1] = cl[i].fds[2] = -1;
		ts_untrack(cl[i].pid);
		ts_reap(cl[i].pid, &cl[i].o);
		cr_assert_eq(cl[i].o.status, 0, "client %d failed:\n%s", i, cl[i].o.err);
		out[i] = cJSON_Parse(cl[i].o.out);
		cr_assert_not_null(out[i]);
	}
	/* both runs end: one on its DELETE, the other after the idle timeout */
	wait_stderr(&bel, "belay: closed ");
	time_t until = deadline(120);
	while (!strstr(strstr(bel.o.err, "belay: closed ") + 1, "belay: closed ")) {
		cr_assert(time(NULL) < until, "the second run never ended:\n%s", bel.o.err);
		struct pollfd pf = {.fd = bel.fds[2], .events = POLLIN};
		if (poll(&pf, 1, 200) > 0)
			ts_read_some(bel.fds[2], &bel.o.err, &bel.o.err_len);
	}
	stop(&bel);
	stop(&srv);
	/* two traces, one per client, each exactly its messages */
	char *list = NULL;
	struct ts_out o = {0};
	const char *ls[] = {"sh", "-c", "ls traces/*.jsonl", NULL};
	ts_run(ls, NULL, dir, NULL, 0, 30, &o);
	list = o.out;
	int n = 0, seen[2] = {0, 0};
	const char *reasons[2] = {"delete", "idle"};
	char *save = NULL;
	for (char *line = strtok_r(list, "\n", &save); line; line = strtok_r(NULL, "\n", &save), n++) {
		char *trace = fs_join(dir, line);
		struct frame f[256];
		size_t nf = read_frames(trace, f, 256);
		int who = 1;
		for (size_t i = 0; i < nf; i++) {
			char *m = cJSON_PrintUnformatted(f[i].msg);
			if (strstr(m, tags[0]))
				who = 0;
			free(m);
		}
		cr_assert(!seen[who], "two runs for one client");
		seen[who] = 1;
		int has_tag = 0;
		for (size_t i = 0; i < nf; i++) {
			char *m = cJSON_PrintUnformatted(f[i].msg);
			has_tag |= strstr(m, tags[who]) != NULL;
			cr_assert_null(strstr(m, tags[1 - who]), "the run of %s holds a message of the other client", tags[who]);
			free(m);
		}
		cr_assert(has_tag, "the run holds neither client's echo");
		same_messages(f, nf, 1, cJSON_GetObjectItem(out[who], "sent"), tags[who]);
		same_messages(f, nf, 0, cJSON_GetObjectItem(out[who], "received"), tags[who]);
		for (size_t i = 0; i < nf; i++)
			cJSON_Delete(f[i].msg);
		char *why = end_reason(trace);
		cr_assert_str_eq(why, reasons[who], "%s's run ended by %s", tags[who], why);
		free(why);
		free(trace);
	}
	cr_assert_eq(n, 2, "%d trace(s) for two sessions", n);
	ts_out_free(&o);
	for (int i = 0; i < 2; i++) {
		cJSON_Delete(out[i]);
		ts_out_free(&cl[i].o);
	}
	ts_out_free(&bel.o);
	ts_out_free(&srv.o);
	free(client);
	free(url);
	free(upstream);
	free(state);
	free(traces);
}

Test(http_e2e, snippet_url_is_the_listeners_and_stays_across_restarts)
{
	/* `belay snippet CLIENT --http URL` writes the URL belay's listener for URL serves, and
	 * a restarted listener keeps it (port and secret kept in the state directory) */
	char *state = fs_join(dir, "state"), *traces = fs_join(dir, "traces");
	unsigned port = 0;
	const char *upstream = "http://127.0.0.1:9/mcp"; /* never contacted here */
	struct proc b1 = {0}, b2 = {0};
	char *url1 = start_belay(&b1, upstream, state, traces, &port, "stable");
	struct ts_out o = {0};
	const char *snip[] = {BELAY_BIN, "snippet", "claude-code-cli", "--http", upstream, "--state", state, NULL};
	ts_run(snip, NULL, dir, NULL, 0, 60, &o);
	cr_assert_eq(o.status, 0, "%s", o.err);
	char *want = xasprintf("claude mcp add --transport http belay %s\n", url1);
	cr_assert_str_eq(o.out, want);
	cr_assert(strstr(o.err, "belay proxy --http"), "the snippet says how to start the listener: %s", o.err);
	ts_out_free(&o);
	stop(&b1);
	char *url2 = start_belay(&b2, upstream, state, traces, &port, "stable");
	cr_assert_str_eq(url2, url1, "a restarted listener must keep its URL");
	/* nothing listens upstream: the client gets a 502 naming it, and the run records it */
	const char *body = "{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\",\"params\":{}}";
	char *req = xasprintf("POST %s HTTP/1.1\r\nHost: 127.0.0.1:%u\r\nContent-Type: application/json\r\n"
			      "Content-Length: %zu\r\n\r\n%s",
			      strchr(url2 + 7, '/'), port, strlen(body), body);
	cr_assert_eq(http_status(port, req), 502, "an unreachable upstream is a 502");
	free(req);
	const char *closed = wait_stderr(&b2, "belay: recording to ");
	char *trace = xstrndup(closed + strlen("belay: recording to "), strcspn(closed + strlen("belay: recording to "), "\n"));
	stop(&b2);
	size_t tl = 0;
	char *text = ts_read_file(trace, &tl);
	cr_assert(strstr(text, "\"event\":\"upstream_error\""), "%s", text);
	free(text);
	free(trace);
	/* another upstream, another URL */
	const char *snip2[] = {BELAY_BIN, "snippet", "vscode", "--http", "http://127.0.0.1:9/other", "--state", state,
			       NULL};
	ts_run(snip2, NULL, dir, NULL, 0, 60, &o);
	cr_assert_eq(o.status, 0, "%s", o.err);
	cr_assert(strstr(o.out, "\"type\": \"http\""), "%s", o.out);
	cr_assert_null(strstr(o.out, url1), "two upstreams share a URL");
	ts_out_free(&o);
	ts_out_free(&b1.o);
	ts_out_free(&b2.o);
	free(want);
	free(url1);
	free(url2);
	free(state);
	free(traces);
}

Test(http_e2e, claude_code_lists_a_server_over_http_through_belay)
{
	/* the pinned Claude Code CLI, configured by `belay snippet claude-code --http URL`
	 * (.mcp.json, "type": "http"), health-checks the server through belay: it connects, and
	 * its messages are in a run's trace */
	char *claude = fs_join(peers, "@anthropic-ai/claude-code-linux-x64/claude");
	if (access(claude, X_OK) != 0) {
		free(claude);
		cr_skip_test("the pinned Claude Code CLI is not installed (scripts/setup.sh installs it)");
	}
	char *state = fs_join(dir, "state"), *traces = fs_join(dir, "traces");
	char *home = fs_join(dir, "home"), *proj = fs_join(dir, "proj");
	cr_assert_eq(ts_sh("mkdir -p %s/.claude %s", home, proj), 0);
	char *settings = fs_join(home, ".claude/settings.json");
	const char *allow = "{\"enableAllProjectMcpServers\": true}\n";
	ts_write_file(settings, allow, strlen(allow));
	struct proc srv = {0}, bel = {0};
	unsigned sport = start_server(&srv, "streamableHttp"), bport = 0;
	char *upstream = xasprintf("http://127.0.0.1:%u/mcp", sport);
	char *url = start_belay(&bel, upstream, state, traces, &bport, "stable");
	struct ts_out o = {0};
	const char *snip[] = {BELAY_BIN, "snippet", "claude-code", "--http", upstream, "--state", state, NULL};
	ts_run(snip, NULL, dir, NULL, 0, 60, &o);
	cr_assert_eq(o.status, 0, "%s", o.err);
	cr_assert(strstr(o.out, url), "the snippet names the running listener's URL %s:\n%s", url, o.out);
	char *mcp = fs_join(proj, ".mcp.json");
	ts_write_file(mcp, o.out, o.out_len);
	ts_out_free(&o);
	char *h = xasprintf("HOME=%s", home);
	const char *env[] = {h, "LOGNAME=belay-test", "USER=belay-test", "SHELL=/bin/sh", "TERM=dumb",
			     "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1", "PATH=/usr/bin:/bin", NULL};
	const char *argv[] = {claude, "mcp", "list", NULL};
	cr_assert_eq(ts_run(argv, env, proj, NULL, 0, 120, &o), 0);
	const char *line = strstr(o.out, url);
	cr_assert(line, "claude mcp list names belay's URL:\n%s\n%s", o.out, o.err);
	cr_assert(strstr(line, "Connected"), "Claude Code's health check connected through belay:\n%s", o.out);
	ts_out_free(&o);
	/* its initialize and the answer are in a run's trace (Claude Code may probe first, with a
	 * request of a newer protocol: a run of its own) */
	wait_stderr(&bel, "belay: recording to ");
	stop(&bel);
	stop(&srv);
	struct ts_out ls = {0};
	const char *lsv[] = {"sh", "-c", "ls traces/*.jsonl", NULL};
	ts_run(lsv, NULL, dir, NULL, 0, 30, &ls);
	int init = 0, answered = 0;
	char *save = NULL;
	for (char *t = strtok_r(ls.out, "\n", &save); t; t = strtok_r(NULL, "\n", &save)) {
		char *trace = fs_join(dir, t);
		struct frame f[64];
		size_t nf = read_frames(trace, f, 64);
		int has_init = 0;
		for (size_t i = 0; i < nf; i++) {
			const cJSON *m = cJSON_GetObjectItem(f[i].msg, "method");
			has_init |= f[i].c2s && cJSON_IsString(m) && !strcmp(m->valuestring, "initialize");
			if (has_init && !f[i].c2s && cJSON_GetObjectItem(f[i].msg, "result"))
				answered = 1;
			cJSON_Delete(f[i].msg);
		}
		init |= has_init;
		free(trace);
	}
	ts_out_free(&ls);
	cr_assert(init && answered, "no trace holds Claude Code's initialize and its answer");
	ts_out_free(&bel.o);
	ts_out_free(&srv.o);
	free(h), free(mcp), free(url), free(upstream), free(settings), free(home), free(proj);
	free(state), free(traces), free(claude);
}

Test(http_e2e, claude_code_calls_a_tool_of_a_server_over_http_through_belay)
{
	/* the pinned Claude Code CLI, headless (`claude -p`), its model a local stand-in for the
	 * Messages API (tests/fixtures/fake_messages_api.py, as test_hook_claude.c drives it)
	 * that answers with a tool_use of the server's echo tool; the server configured by `belay
	 * snippet claude-code --http URL`: the call goes through belay, the server answers, the
	 * answer goes back to the model, and the trace holds the tools/call and its result */
	char *claude = fs_join(peers, "@anthropic-ai/claude-code-linux-x64/claude");
	if (access(claude, X_OK) != 0) {
		free(claude);
		cr_skip_test("the pinned Claude Code CLI is not installed (scripts/setup.sh installs it)");
	}
	struct ts_world w;
	ts_world_setup(&w, "http-claude");
	char *home = fs_join(w.dir, "home");
	cr_assert_eq(ts_sh("mkdir -p %s/.claude", home), 0);
	char *settings = fs_join(home, ".claude/settings.json");
	const char *allow = "{\"enableAllProjectMcpServers\": true}\n";
	ts_write_file(settings, allow, strlen(allow));
	struct proc srv = {0}, bel = {0};
	unsigned sport = start_server(&srv, "streamableHttp"), bport = 0;
	char *upstream = xasprintf("http://127.0.0.1:%u/mcp", sport);
	char *url = start_belay(&bel, upstream, w.state, w.traces, &bport, "stable");
	struct ts_out o = {0};
	const char *snip[] = {BELAY_BIN, "snippet", "claude-code", "--http", upstream, "--state", w.state, NULL};
	ts_run(snip, NULL, dir, NULL, 0, 60, &o);
	cr_assert_eq(o.status, 0, "%s", o.err);
	char *mcp = fs_join(w.ws, ".mcp.json");
	ts_write_file(mcp, o.out, o.out_len);
	ts_out_free(&o);
	const char *script = "[[{\"type\":\"text\",\"text\":\"Asking the server.\"},{\"type\":\"tool_use\",\"id\":\"toolu_h1\","
			     "\"name\":\"mcp__belay__echo\",\"input\":{\"message\":\"over http through belay\"}}],"
			     "[{\"type\":\"text\",\"text\":\"The server echoed it.\"}]]";
	struct ts_api a;
	ts_api_start(&a, &w, "fake_messages_api.py", script);
	char *h = xasprintf("HOME=%s", home), *api = xasprintf("ANTHROPIC_BASE_URL=http://127.0.0.1:%d", a.port);
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
	char *denials = jx_print(cJSON_GetObjectItemCaseSensitive(r, "permission_denials"));
	cr_expect(!strstr(denials, "toolu_h1"), "the MCP call was refused: %s", denials);
	free(denials);
	cJSON_Delete(r);
	ts_out_free(&o);
	/* the model got the tool's result back */
	char *log = fs_join(w.dir, "api.log");
	size_t len = 0;
	char *api_log = ts_read_file(log, &len);
	cr_assert(api_log && strstr(api_log, "tool_result"), "no tool_result went back to the model:\n%s",
		  api_log ? api_log : "");
	free(api_log), free(log);
	stop(&bel);
	stop(&srv);
	/* one trace holds the tools/call (the echo, its arguments as the model gave them) and, after
	 * it, the server's result for the same id */
	struct ts_out ls = {0};
	char *lscmd = xasprintf("ls %s/*.jsonl", w.traces);
	const char *lsv[] = {"sh", "-c", lscmd, NULL};
	ts_run(lsv, NULL, dir, NULL, 0, 30, &ls);
	int called = 0, result = 0;
	char *save = NULL;
	for (char *t = strtok_r(ls.out, "\n", &save); t; t = strtok_r(NULL, "\n", &save)) {
		struct frame f[128];
		size_t nf = read_frames(t, f, 128);
		const cJSON *id = NULL;
		for (size_t i = 0; i < nf; i++) {
			const cJSON *m = cJSON_GetObjectItem(f[i].msg, "method");
			if (f[i].c2s && cJSON_IsString(m) && !strcmp(m->valuestring, "tools/call")) {
				const cJSON *p = cJSON_GetObjectItem(f[i].msg, "params");
				if (!strcmp(jx_str(p, "name"), "echo") &&
				    !strcmp(jx_str(cJSON_GetObjectItem(p, "arguments"), "message"), "over http through belay")) {
					called++;
					id = cJSON_GetObjectItem(f[i].msg, "id");
				}
			} else if (!f[i].c2s && id && cJSON_Compare(cJSON_GetObjectItem(f[i].msg, "id"), id, 1)) {
				char *res = jx_print(cJSON_GetObjectItem(f[i].msg, "result"));
				result += strstr(res, "Echo: over http through belay") != NULL;
				free(res);
			}
		}
		if (called && !result)
			for (size_t i = 0; i < nf; i++)
				cr_log_error("%s %s", f[i].c2s ? ">" : "<", jx_print(f[i].msg));
		for (size_t i = 0; i < nf; i++)
			cJSON_Delete(f[i].msg);
	}
	ts_out_free(&ls);
	cr_assert_eq(called, 1, "the trace holds Claude Code's tools/call of echo once (%d)", called);
	cr_assert_eq(result, 1, "the trace holds the server's result of that call after it");
	ts_out_free(&bel.o);
	ts_out_free(&srv.o);
	free(lscmd), free(h), free(api), free(rt), free(mcp), free(url), free(upstream), free(settings), free(home);
	free(claude);
	ts_world_teardown(&w);
}

Test(http_e2e, a_server_asking_for_oauth_is_refused_by_name)
{
	/* A server asking for OAuth that nobody logged in to (belay http login, test_http_oauth)
	 * is refused by name, its challenge not relayed (the client would start its flow against
	 * belay's own listener). A few lines of node answer 401 with WWW-Authenticate. */
	char *state = fs_join(dir, "state"), *traces = fs_join(dir, "traces");
	unsigned sport = ts_free_port(), bport = 0;
	char *js = xasprintf("require('http').createServer((q, r) => { r.writeHead(401, {'WWW-Authenticate': "
			     "'Bearer resource_metadata=\"http://127.0.0.1:%u/.well-known/oauth-protected-resource\"', "
			     "'Content-Type': 'application/json'}); r.end('{\"error\":\"invalid_token\"}'); })"
			     ".listen(%u, '127.0.0.1')",
			     sport, sport);
	const char *argv[] = {"node", "-e", js, NULL};
	struct proc srv = {0}, bel = {0};
	srv.pid = ts_spawn(argv, NULL, dir, &srv.o, srv.fds);
	ts_track(srv.pid);
	ts_wait_listening(sport, 60);
	char *upstream = xasprintf("http://127.0.0.1:%u/mcp", sport);
	char *url = start_belay(&bel, upstream, state, traces, &bport, NULL);
	const char *body = "{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\",\"params\":{}}";
	char *req = xasprintf("POST %s HTTP/1.1\r\nHost: 127.0.0.1:%u\r\nContent-Type: application/json\r\n"
			      "Content-Length: %zu\r\nConnection: close\r\n\r\n%s",
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
	cr_assert(strstr(resp, "OAuth"), "the refusal names OAuth: %s", resp);
	cr_assert_null(strcasestr(resp, "\nWWW-Authenticate:"), "the server's challenge is not relayed: %s", resp);
	const char *rec = wait_stderr(&bel, "belay: recording to ");
	char *trace = xstrndup(rec + strlen("belay: recording to "), strcspn(rec + strlen("belay: recording to "), "\n"));
	stop(&bel);
	stop(&srv);
	size_t tl = 0;
	char *text = ts_read_file(trace, &tl);
	cr_assert(strstr(text, "\"status\":401") && strstr(text, "\"refused\":"), "%s", text);
	free(text), free(trace), free(resp), free(req), free(url), free(upstream), free(js), free(state), free(traces);
	ts_out_free(&bel.o);
	ts_out_free(&srv.o);
}

Test(http_e2e, an_event_stream_the_server_already_ended_goes_out_whole_with_its_length)
{
	/* A POST's answer as an event stream that the server ended in the same write as its
	 * headers (server-everything's usual answer to a call: one message, then the end) is
	 * sent to the client whole, with Content-Length, not chunk by chunk: the client wakes once
	 * (docs/HTTP.md, "Where belay-http's time goes"). A few lines of node write the whole
	 * answer, chunked, in one write. */
	char *state = fs_join(dir, "state"), *traces = fs_join(dir, "traces");
	unsigned sport = ts_free_port(), bport = 0;
	const char *ev = "event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":0,\"result\":{\"protocolVersion\":\"2025-06-18\"}}\n\n";
	char *js = xasprintf("const ev = %s;"
			     "require('net').createServer((s) => s.once('data', () => s.end('HTTP/1.1 200 OK\\r\\n"
			     "Content-Type: text/event-stream\\r\\nTransfer-Encoding: chunked\\r\\nConnection: close\\r\\n\\r\\n' + "
			     "Buffer.byteLength(ev).toString(16) + '\\r\\n' + ev + '\\r\\n0\\r\\n\\r\\n')))"
			     ".listen(%u, '127.0.0.1')",
			     "'event: message\\ndata: {\"jsonrpc\":\"2.0\",\"id\":0,\"result\":{\"protocolVersion\":\"2025-06-18\"}}\\n\\n'",
			     sport);
	const char *argv[] = {"node", "-e", js, NULL};
	struct proc srv = {0}, bel = {0};
	srv.pid = ts_spawn(argv, NULL, dir, &srv.o, srv.fds);
	ts_track(srv.pid);
	ts_wait_listening(sport, 60);
	char *upstream = xasprintf("http://127.0.0.1:%u/mcp", sport);
	char *url = start_belay(&bel, upstream, state, traces, &bport, NULL);
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
	cr_assert(resp && !strncmp(resp, "HTTP/1.1 200", 12), "%s", resp ? resp : "(nothing)");
	const char *end = strstr(resp, "\r\n\r\n");
	cr_assert_not_null(end, "%s", resp);
	char *head = xstrndup(resp, (size_t)(end - resp));
	char *cl = xasprintf("\ncontent-length: %zu", strlen(ev));
	cr_assert_not_null(strcasestr(head, cl), "sent with its length (%s): %s", cl + 1, head);
	cr_assert_null(strcasestr(head, "chunked"), "not chunk by chunk: %s", head);
	cr_assert_not_null(strcasestr(head, "\ncontent-type: text/event-stream"), "%s", head);
	cr_assert_str_eq(end + 4, ev, "the stream, whole and unchanged");
	const char *rec = wait_stderr(&bel, "belay: recording to ");
	char *trace = xstrndup(rec + strlen("belay: recording to "), strcspn(rec + strlen("belay: recording to "), "\n"));
	stop(&bel);
	stop(&srv);
	size_t tl = 0;
	char *text = ts_read_file(trace, &tl);
	cr_assert(strstr(text, "\"dir\":\"s2c\"") && strstr(text, "\"event\":\"stream_end\",\"stream\":1,\"messages\":1"),
		  "the message and the stream's end are recorded: %s", text);
	free(text), free(trace), free(resp), free(req), free(url), free(upstream), free(js), free(state), free(traces);
	free(head), free(cl);
	ts_out_free(&bel.o);
	ts_out_free(&srv.o);
}

Test(http_e2e, a_session_outlives_a_restart_of_belay)
{
	/* the agent keeps its URL and its Mcp-Session-Id while belay restarts: the listener comes
	 * back on the same URL, the session's next requests open a run of their own ("session")
	 * and the agent goes on as if nothing happened */
	char *state = fs_join(dir, "state"), *traces = fs_join(dir, "traces");
	struct proc srv = {0}, b1 = {0}, b2 = {0}, cl = {0};
	unsigned sport = start_server(&srv, "streamableHttp"), port = 0;
	char *upstream = xasprintf("http://127.0.0.1:%u/mcp", sport);
	char *url = start_belay(&b1, upstream, state, traces, &port, "stable");
	char *client = xasprintf("%s/tests/peers/http-client.mjs", BELAY_SOURCE_DIR);
	const char *argv[] = {"node", client, "streamable", url, AUTH, "restart", "pause", NULL};
	cl.pid = ts_spawn(argv, NULL, dir, &cl.o, cl.fds);
	ts_track(cl.pid);
	cr_assert_gt(cl.pid, 0);
	time_t until = deadline(120);
	while (!cl.o.out || !strstr(cl.o.out, "PAUSED\n")) {
		cr_assert(time(NULL) < until, "the client never paused: %s", cl.o.err ? cl.o.err : "");
		struct pollfd pf[2] = {{.fd = cl.fds[1], .events = POLLIN}, {.fd = cl.fds[2], .events = POLLIN}};
		if (poll(pf, 2, 200) > 0) {
			if (pf[0].revents)
				cr_assert(ts_read_some(cl.fds[1], &cl.o.out, &cl.o.out_len), "the client ended: %s", cl.o.err);
			if (pf[1].revents)
				ts_read_some(cl.fds[2], &cl.o.err, &cl.o.err_len);
		}
	}
	stop(&b1);
	char *url2 = start_belay(&b2, upstream, state, traces, &port, "stable");
	cr_assert_str_eq(url2, url, "the restarted listener has another URL");
	cr_assert_eq(write(cl.fds[0], "go\n", 3), 3);
	close(cl.fds[0]);
	cl.fds[0] = -1;
	/* the rest of the session, through the new listener */
	struct pollfd pf[2] = {{.fd = cl.fds[1], .events = POLLIN}, {.fd = cl.fds[2], .events = POLLIN}};
	int open_fds = 2;
	until = deadline(180);
	while (open_fds) {
		cr_assert(time(NULL) < until, "the client never ended");
		if (poll(pf, 2, 200) <= 0)
			continue;
		for (int k = 0; k < 2; k++)
			if (pf[k].fd >= 0 && pf[k].revents) {
				int more = k ? ts_read_some(pf[k].fd, &cl.o.err, &cl.o.err_len)
					     : ts_read_some(pf[k].fd, &cl.o.out, &cl.o.out_len);
				if (!more) {
					close(pf[k].fd);
					pf[k].fd = -1;
					open_fds--;
				}
			}
	}
	cl.fds[1] = cl.fds[2] = -1;
	ts_untrack(cl.pid);
	ts_reap(cl.pid, &cl.o);
	cr_assert_eq(cl.o.status, 0, "the client failed after belay restarted:\n%s", cl.o.err);
	cJSON *out = cJSON_Parse(strstr(cl.o.out, "PAUSED\n") + 7);
	cr_assert_not_null(out, "%s", cl.o.out);
	char *sum = cJSON_PrintUnformatted(cJSON_GetObjectItem(out, "sum"));
	cr_assert(strstr(sum, "The sum of 2 and 40 is 42"), "%s", sum);
	free(sum);
	/* the second listener's run: adopted from the session, ended by the DELETE */
	const char *rec = wait_stderr(&b2, "belay: closed ");
	char *trace = xstrndup(rec + strlen("belay: closed "), strcspn(rec + strlen("belay: closed "), "\n"));
	stop(&b2);
	stop(&srv);
	size_t tl = 0;
	char *text = ts_read_file(trace, &tl);
	cr_assert(strstr(text, "\"why\":\"session\""), "the run after the restart was not opened for the session:\n%s",
		  text);
	cr_assert(strstr(text, "\"event\":\"end\",\"reason\":\"delete\""), "%s", text);
	free(text);
	struct frame f[128];
	size_t nf = read_frames(trace, f, 128);
	int sum_call = 0;
	for (size_t i = 0; i < nf; i++) {
		char *m = cJSON_PrintUnformatted(f[i].msg);
		sum_call |= f[i].c2s && strstr(m, "get-sum") != NULL;
		free(m);
		cJSON_Delete(f[i].msg);
	}
	cr_assert(sum_call, "the call made after the restart is not in the new run");
	cJSON_Delete(out);
	ts_out_free(&cl.o);
	ts_out_free(&b1.o);
	ts_out_free(&b2.o);
	ts_out_free(&srv.o);
	free(trace), free(url2), free(url), free(client), free(upstream), free(state), free(traces);
}

Test(http_e2e, enforce_mode_without_a_hold_refuses_a_call_and_belay_approve_lets_it_through_once)
{
	/* --mode enforce --hold 0: a call the gate denies (the operator's floor on get-sum) is not sent to
	 * the server; the agent gets a tool error naming the approval id; `belay approve ID` lets
	 * the next identical call through once */
	char *state = fs_join(dir, "state"), *traces = fs_join(dir, "traces");
	char *policy = fs_join(dir, "policy.json");
	const char *pol = "{\"version\": 1, \"tools\": [{\"name\": \"get-sum\", \"floor\": \"deny\"}]}\n";
	ts_write_file(policy, pol, strlen(pol));
	struct proc srv = {0}, bel = {0}, cl = {0};
	unsigned sport = start_server(&srv, "streamableHttp"), port = 0;
	char *upstream = xasprintf("http://127.0.0.1:%u/mcp", sport);
	belay_policy = policy;
	belay_enforce = 1;
	belay_hold = "0"; /* refused at once */
	char *url = start_belay(&bel, upstream, state, traces, &port, NULL);
	belay_policy = NULL;
	belay_enforce = 0;
	belay_hold = NULL;
	char *client = xasprintf("%s/tests/peers/http-client.mjs", BELAY_SOURCE_DIR);
	const char *argv[] = {"node", client, "streamable", url, AUTH, "enforce", "again", NULL};
	cl.pid = ts_spawn(argv, NULL, dir, &cl.o, cl.fds);
	ts_track(cl.pid);
	time_t until = deadline(120);
	while (!cl.o.out || !strstr(cl.o.out, "SUM ") || !strchr(strstr(cl.o.out, "SUM "), '\n')) {
		cr_assert(time(NULL) < until, "the client never reached get-sum: %s", cl.o.err ? cl.o.err : "");
		struct pollfd pf[2] = {{.fd = cl.fds[1], .events = POLLIN}, {.fd = cl.fds[2], .events = POLLIN}};
		if (poll(pf, 2, 200) > 0) {
			if (pf[0].revents)
				cr_assert(ts_read_some(cl.fds[1], &cl.o.out, &cl.o.out_len), "the client ended: %s", cl.o.err);
			if (pf[1].revents)
				ts_read_some(cl.fds[2], &cl.o.err, &cl.o.err_len);
		}
	}
	const char *sum = strstr(cl.o.out, "SUM ") + 4;
	cr_assert(strstr(sum, "belay refused the call to get-sum") && strstr(sum, "\"isError\":true"),
		  "the agent did not get the refusal: %.300s", sum);
	const char *ap = strstr(sum, "belay approve ");
	cr_assert_not_null(ap, "the refusal names no approval id: %.300s", sum);
	ap += strlen("belay approve ");
	char *id = xstrndup(ap, strspn(ap, "0123456789abcdef-"));
	struct ts_out o = {0};
	const char *approve[] = {BELAY_BIN, "approve", id, "--state", state, NULL};
	ts_run(approve, NULL, dir, NULL, 0, 60, &o);
	cr_assert_eq(o.status, 0, "belay approve %s: %s%s", id, o.out, o.err);
	ts_out_free(&o);
	cr_assert_eq(write(cl.fds[0], "go\n", 3), 3);
	close(cl.fds[0]);
	cl.fds[0] = -1;
	struct pollfd pf[2] = {{.fd = cl.fds[1], .events = POLLIN}, {.fd = cl.fds[2], .events = POLLIN}};
	int open_fds = 2;
	until = deadline(180);
	while (open_fds) {
		cr_assert(time(NULL) < until, "the client never ended");
		if (poll(pf, 2, 200) <= 0)
			continue;
		for (int k = 0; k < 2; k++)
			if (pf[k].fd >= 0 && pf[k].revents) {
				int more = k ? ts_read_some(pf[k].fd, &cl.o.err, &cl.o.err_len)
					     : ts_read_some(pf[k].fd, &cl.o.out, &cl.o.out_len);
				if (!more) {
					close(pf[k].fd);
					pf[k].fd = -1;
					open_fds--;
				}
			}
	}
	cl.fds[1] = cl.fds[2] = -1;
	ts_untrack(cl.pid);
	ts_reap(cl.pid, &cl.o);
	cr_assert_eq(cl.o.status, 0, "the client failed: %s", cl.o.err);
	char *lastl = ts_last_line(cl.o.out);
	cJSON *out = cJSON_Parse(lastl);
	cr_assert_not_null(out, "%s", cl.o.out);
	char *sum2 = cJSON_PrintUnformatted(cJSON_GetObjectItem(out, "sum2"));
	cr_assert(strstr(sum2, "The sum of 2 and 40 is 42"), "the approved call did not go through: %s", sum2);
	free(sum2);
	const char *rec = wait_stderr(&bel, "belay: closed ");
	char *trace = xstrndup(rec + strlen("belay: closed "), strcspn(rec + strlen("belay: closed "), "\n"));
	ts_untrack(bel.pid);
	kill(bel.pid, SIGTERM);
	for (int i = 0; i < 3; i++)
		close(bel.fds[i]);
	ts_reap(bel.pid, &bel.o);
	cr_assert_eq(bel.o.status, 0, "belay-http in enforce mode did not end cleanly (%d)", bel.o.status);
	stop(&srv);
	size_t tl = 0;
	char *text = ts_read_file(trace, &tl);
	cr_assert(strstr(text, "\"outcome\":\"refused\""), "no refused decision recorded");
	cr_assert(strstr(text, "\"outcome\":\"forwarded (approved once)\""), "no approved decision recorded");
	cr_assert(strstr(text, "\"origin\":\"belay\""), "the refusal belay sent is not recorded as its own frame");
	free(text);
	/* the server saw the get-sum call once: the approved one */
	struct frame f[256];
	size_t nf = read_frames(trace, f, 256);
	int answers = 0;
	for (size_t i = 0; i < nf; i++) {
		char *m = cJSON_PrintUnformatted(f[i].msg);
		answers += !f[i].c2s && strstr(m, "The sum of 2 and 40 is 42") != NULL;
		free(m);
		cJSON_Delete(f[i].msg);
	}
	cr_assert_eq(answers, 1, "the server answered get-sum %d time(s)", answers);
	cJSON_Delete(out);
	free(lastl), free(trace), free(id), free(client), free(url), free(upstream), free(policy), free(state);
	free(traces);
	ts_out_free(&cl.o);
	ts_out_free(&bel.o);
	ts_out_free(&srv.o);
}

/* Reads a client's stdout and stderr to their end and reaps it. */
static void drain(struct proc *cl)
{
	struct pollfd pf[2] = {{.fd = cl->fds[1], .events = POLLIN}, {.fd = cl->fds[2], .events = POLLIN}};
	int open_fds = 2;
	time_t until = deadline(180);
	while (open_fds) {
		cr_assert(time(NULL) < until, "the client never ended");
		if (poll(pf, 2, 200) <= 0)
			continue;
		for (int k = 0; k < 2; k++)
			if (pf[k].fd >= 0 && pf[k].revents) {
				int more = k ? ts_read_some(pf[k].fd, &cl->o.err, &cl->o.err_len)
					     : ts_read_some(pf[k].fd, &cl->o.out, &cl->o.out_len);
				if (!more) {
					close(pf[k].fd);
					pf[k].fd = -1;
					open_fds--;
				}
			}
	}
	close(cl->fds[0]);
	cl->fds[0] = cl->fds[1] = cl->fds[2] = -1;
	ts_untrack(cl->pid);
	ts_reap(cl->pid, &cl->o);
}

/* The enforce-mode session of the hold tests: get-sum denied by the operator's floor, held
 * up to `hold` seconds. approve: approve it while it is held (from the id belay prints).
 * Returns the trace; *sum the client's get-sum result (new strings). */
static char *held_session(const char *hold, int approve, char **sum)
{
	char *state = fs_join(dir, "state"), *traces = fs_join(dir, "traces");
	char *policy = fs_join(dir, "policy.json");
	const char *pol = "{\"version\": 1, \"tools\": [{\"name\": \"get-sum\", \"floor\": \"deny\"}]}\n";
	ts_write_file(policy, pol, strlen(pol));
	struct proc srv = {0}, bel = {0}, cl = {0};
	unsigned sport = start_server(&srv, "streamableHttp"), port = 0;
	char *upstream = xasprintf("http://127.0.0.1:%u/mcp", sport);
	belay_policy = policy;
	belay_enforce = 1;
	belay_hold = hold;
	char *url = start_belay(&bel, upstream, state, traces, &port, NULL);
	belay_policy = NULL;
	belay_enforce = 0;
	belay_hold = NULL;
	char *client = xasprintf("%s/tests/peers/http-client.mjs", BELAY_SOURCE_DIR);
	const char *argv[] = {"node", client, "streamable", url, AUTH, "held", "sumonly", NULL};
	cl.pid = ts_spawn(argv, NULL, dir, &cl.o, cl.fds);
	ts_track(cl.pid);
	size_t at = (size_t)(wait_stderr(&bel, "holding the call to get-sum for up to ") - bel.o.err);
	if (approve) {
		time_t until = deadline(60);
		while (!strchr(bel.o.err + at, '\n')) { /* the whole line */
			cr_assert(time(NULL) < until, "%s", bel.o.err + at);
			struct pollfd pf = {.fd = bel.fds[2], .events = POLLIN};
			if (poll(&pf, 1, 200) > 0)
				cr_assert(ts_read_some(bel.fds[2], &bel.o.err, &bel.o.err_len), "belay-http ended");
		}
		const char *ap = strstr(bel.o.err + at, "belay approve ");
		cr_assert_not_null(ap, "%s", bel.o.err + at);
		ap += strlen("belay approve ");
		char *id = xstrndup(ap, strspn(ap, "0123456789abcdef-"));
		struct ts_out o = {0};
		const char *av[] = {BELAY_BIN, "approve", id, "--state", state, NULL};
		ts_run(av, NULL, dir, NULL, 0, 60, &o);
		cr_assert_eq(o.status, 0, "belay approve %s while held: %s%s", id, o.out, o.err);
		ts_out_free(&o);
		free(id);
	}
	drain(&cl);
	cr_assert_eq(cl.o.status, 0, "the client failed: %s", cl.o.err);
	char *lastl = ts_last_line(cl.o.out);
	cJSON *out = cJSON_Parse(lastl);
	cr_assert_not_null(out, "%s", cl.o.out);
	*sum = cJSON_PrintUnformatted(cJSON_GetObjectItem(out, "sum"));
	const char *rec = wait_stderr(&bel, "belay: closed ");
	char *trace = xstrndup(rec + strlen("belay: closed "), strcspn(rec + strlen("belay: closed "), "\n"));
	stop(&bel);
	stop(&srv);
	cJSON_Delete(out);
	free(lastl), free(client), free(url), free(upstream), free(policy), free(state), free(traces);
	ts_out_free(&cl.o);
	ts_out_free(&bel.o);
	ts_out_free(&srv.o);
	return trace;
}

/* How many times the server answered get-sum in the trace. */
static int sums_answered(const char *trace)
{
	struct frame f[256];
	size_t nf = read_frames(trace, f, 256);
	int answers = 0;
	for (size_t i = 0; i < nf; i++) {
		char *m = cJSON_PrintUnformatted(f[i].msg);
		answers += !f[i].c2s && strstr(m, "The sum of 2 and 40 is 42") != NULL;
		free(m);
		cJSON_Delete(f[i].msg);
	}
	return answers;
}

Test(http_e2e, enforce_mode_holds_a_call_until_a_person_approves_it)
{
	/* the call the gate denies is held, its request unanswered, until `belay approve ID`
	 * (the id belay prints and records as it holds it): then it is forwarded, the server sees
	 * it once, and the client gets the server's result of that same request */
	char *sum = NULL;
	char *trace = held_session("120", 1, &sum);
	cr_assert(strstr(sum, "The sum of 2 and 40 is 42") && !strstr(sum, "isError\":true"),
		  "the held call, approved, did not get the server's result: %s", sum);
	size_t tl = 0;
	char *text = ts_read_file(trace, &tl);
	cr_assert(strstr(text, "\"event\":\"hold\""), "the hold is not recorded");
	cr_assert(strstr(text, "\"outcome\":\"forwarded (approved while held)\""), "no approved-while-held decision");
	cr_assert_null(strstr(text, "\"origin\":\"belay\""), "belay answered the held call itself");
	free(text);
	cr_assert_eq(sums_answered(trace), 1, "the server did not answer the held call exactly once");
	free(sum), free(trace);
}

Test(http_e2e, enforce_mode_refuses_a_held_call_nobody_decides_by_name)
{
	/* nobody approves: when the hold's bound passes the call is refused with hold_expired,
	 * never sent to the server */
	char *sum = NULL;
	char *trace = held_session("1", 0, &sum);
	cr_assert(strstr(sum, "hold_expired") && strstr(sum, "\"isError\":true") && strstr(sum, "belay approve "),
		  "the client did not get the named refusal: %s", sum);
	size_t tl = 0;
	char *text = ts_read_file(trace, &tl);
	cr_assert(strstr(text, "\"event\":\"hold\""), "the hold is not recorded");
	cr_assert(strstr(text, "\"outcome\":\"refused (hold expired)\""), "no expired decision recorded");
	free(text);
	cr_assert_eq(sums_answered(trace), 0, "the server saw the refused call");
	free(sum), free(trace);
}

Test(http_e2e, a_dropped_stream_resumed_with_last_event_id_keeps_order_and_pairing)
{
	/* the SDK's server transport and its example in-memory event store (whose replay works;
	 * tests/peers/http-resume-server.mjs) cut a call's event stream after 2 of 6 progress
	 * notifications; the SDK client resumes by itself, a GET with Last-Event-ID through belay:
	 * the client gets 1..6 and the result, and the trace holds them in that order, once each,
	 * the GET carrying the id of the last event recorded before the cut, the call's result
	 * after its request and every progress notification */
	char *state = fs_join(dir, "state"), *traces = fs_join(dir, "traces");
	struct proc srv = {0}, bel = {0}, cl = {0};
	unsigned sport = ts_free_port(), port = 0;
	char *server = xasprintf("%s/tests/peers/http-resume-server.mjs", BELAY_SOURCE_DIR);
	char *sp = xasprintf("%u", sport);
	const char *sv[] = {"node", server, sp, NULL};
	srv.pid = ts_spawn(sv, NULL, dir, &srv.o, srv.fds);
	ts_track(srv.pid);
	ts_wait_listening(sport, 60);
	char *upstream = xasprintf("http://127.0.0.1:%u/mcp", sport);
	char *url = start_belay(&bel, upstream, state, traces, &port, NULL);
	char *client = xasprintf("%s/tests/peers/http-resume.mjs", BELAY_SOURCE_DIR);
	const char *argv[] = {"node", client, url, "6", "2", NULL};
	cl.pid = ts_spawn(argv, NULL, dir, &cl.o, cl.fds);
	ts_track(cl.pid);
	drain(&cl);
	cr_assert_eq(cl.o.status, 0, "the client failed: %s", cl.o.err);
	cJSON *out = cJSON_Parse(cl.o.out);
	cr_assert_not_null(out, "%s", cl.o.out);
	char *progress = jx_print(cJSON_GetObjectItem(out, "progress"));
	cr_assert_str_eq(progress, "[1,2,3,4,5,6]", "the client's progress through the cut");
	char *result = jx_print(cJSON_GetObjectItem(out, "result"));
	cr_assert(strstr(result, "counted to 6"), "%s", result);
	const char *rec = wait_stderr(&bel, "belay: closed ");
	char *trace = xstrndup(rec + strlen("belay: closed "), strcspn(rec + strlen("belay: closed "), "\n"));
	stop(&bel);
	stop(&srv);
	/* the messages: exactly what the client received, each response after its request */
	struct frame f[128];
	size_t nf = read_frames(trace, f, 128);
	same_messages(f, nf, 0, cJSON_GetObjectItem(out, "received"), "resumed");
	requests_before_responses(f, nf);
	long long call_seq = -1, result_seq = -1, last_progress_seq = -1;
	int next = 1;
	const cJSON *call_id = NULL;
	for (size_t i = 0; i < nf; i++) {
		const cJSON *m = cJSON_GetObjectItem(f[i].msg, "method");
		if (f[i].c2s && cJSON_IsString(m) && !strcmp(m->valuestring, "tools/call")) {
			cr_assert_eq(call_seq, -1, "the call was sent twice (a resumption must not re-send it)");
			call_seq = f[i].seq;
			call_id = cJSON_GetObjectItem(f[i].msg, "id");
		} else if (!f[i].c2s && cJSON_IsString(m) && !strcmp(m->valuestring, "notifications/progress")) {
			int v = (int)cJSON_GetObjectItem(cJSON_GetObjectItem(f[i].msg, "params"), "progress")->valuedouble;
			cr_assert_eq(v, next, "progress %d recorded where %d was due (seq %lld)", v, next, f[i].seq);
			cr_assert_gt(f[i].seq, call_seq);
			next++;
			last_progress_seq = f[i].seq;
		} else if (!f[i].c2s && call_id && cJSON_Compare(cJSON_GetObjectItem(f[i].msg, "id"), call_id, 1)) {
			cr_assert_eq(result_seq, -1, "the call was answered twice");
			result_seq = f[i].seq;
		}
	}
	cr_assert_eq(next, 7, "the trace holds %d progress notifications, not 6", next - 1);
	cr_assert_gt(result_seq, last_progress_seq, "the result is not after the last progress");
	for (size_t i = 0; i < nf; i++)
		cJSON_Delete(f[i].msg);
	/* the HTTP: the cut stream's end, then the GET resuming from the last event id recorded
	 * on it before the cut */
	size_t tl = 0;
	char *text = ts_read_file(trace, &tl);
	char *save = NULL, *last_id = NULL;
	int cut_seen = 0, resumed = 0;
	for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		cJSON *o = cJSON_Parse(line);
		if (!strcmp(jx_str(o, "kind"), "http")) {
			const char *ev = jx_str(o, "event");
			double seq = cJSON_GetObjectItem(o, "seq")->valuedouble;
			if (!strcmp(ev, "sse") && seq > call_seq && !cut_seen && *jx_str(o, "id")) {
				free(last_id);
				last_id = xstrdup(jx_str(o, "id"));
			} else if (!strcmp(ev, "stream_end") && seq > call_seq && !cut_seen) {
				cut_seen = 1;
			} else if (!strcmp(ev, "request") && cut_seen && !strcmp(jx_str(o, "method"), "GET") &&
				   *jx_str(o, "last_event_id")) {
				cr_assert_str_eq(jx_str(o, "last_event_id"), last_id ? last_id : "",
						 "the resumption is not from the last event recorded before the cut");
				resumed++;
			}
		}
		cJSON_Delete(o);
	}
	cr_assert(cut_seen, "the cut stream's end is not recorded");
	cr_assert_eq(resumed, 1, "one GET with Last-Event-ID after the cut (%d)", resumed);
	free(text), free(last_id), free(trace), free(progress), free(result);
	cJSON_Delete(out);
	ts_out_free(&cl.o);
	ts_out_free(&bel.o);
	ts_out_free(&srv.o);
	free(client), free(url), free(upstream), free(sp), free(server), free(state), free(traces);
}

/* The approval id of the n-th (from 1) call belay said it holds (new string); waits for it. */
static char *nth_hold(struct proc *bel, int n)
{
	time_t until = deadline(120);
	for (;;) {
		const char *at = bel->o.err;
		int k = 0;
		while (at && (at = strstr(at, "to let it through: belay approve ")) != NULL) {
			at += strlen("to let it through: belay approve ");
			if (++k == n && strchr(at, '\n'))
				return xstrndup(at, strspn(at, "0123456789abcdef-"));
		}
		cr_assert(time(NULL) < until, "belay never held call %d:\n%s", n, bel->o.err ? bel->o.err : "");
		struct pollfd pf = {.fd = bel->fds[2], .events = POLLIN};
		if (poll(&pf, 1, 200) > 0)
			cr_assert(ts_read_some(bel->fds[2], &bel->o.err, &bel->o.err_len), "belay-http ended");
	}
}

Test(http_e2e, two_identical_held_calls_each_wait_for_their_own_approval)
{
	/* two clients send the very same call (get-sum 2 40), both held: approving the first one's
	 * id lets that call through and leaves the other held (before, an approval matched any
	 * identical call: the later one could take it), until its own id is approved */
	char *state = fs_join(dir, "state"), *traces = fs_join(dir, "traces");
	char *policy = fs_join(dir, "policy.json");
	const char *pol = "{\"version\": 1, \"tools\": [{\"name\": \"get-sum\", \"floor\": \"deny\"}]}\n";
	ts_write_file(policy, pol, strlen(pol));
	struct proc srv = {0}, bel = {0}, c1 = {0}, c2 = {0};
	unsigned sport = start_server(&srv, "streamableHttp"), port = 0;
	char *upstream = xasprintf("http://127.0.0.1:%u/mcp", sport);
	belay_policy = policy;
	belay_enforce = 1;
	belay_hold = "600";
	char *url = start_belay(&bel, upstream, state, traces, &port, NULL);
	belay_policy = NULL;
	belay_enforce = 0;
	belay_hold = NULL;
	char *client = xasprintf("%s/tests/peers/http-client.mjs", BELAY_SOURCE_DIR);
	const char *argv1[] = {"node", client, "streamable", url, AUTH, "one", "sumonly", NULL};
	c1.pid = ts_spawn(argv1, NULL, dir, &c1.o, c1.fds);
	ts_track(c1.pid);
	char *id1 = nth_hold(&bel, 1);
	const char *argv2[] = {"node", client, "streamable", url, AUTH, "two", "sumonly", NULL};
	c2.pid = ts_spawn(argv2, NULL, dir, &c2.o, c2.fds);
	ts_track(c2.pid);
	char *id2 = nth_hold(&bel, 2);
	cr_assert_str_neq(id1, id2);
	struct ts_out o = {0};
	const char *av1[] = {BELAY_BIN, "approve", id1, "--state", state, NULL};
	ts_run(av1, NULL, dir, NULL, 0, 60, &o);
	cr_assert_eq(o.status, 0, "belay approve %s: %s%s", id1, o.out, o.err);
	ts_out_free(&o);
	drain(&c1); /* its own approval released it (else this waits out its 600 s hold and fails) */
	cr_assert_eq(c1.o.status, 0, "the first client failed: %s", c1.o.err);
	cr_assert(strstr(c1.o.out, "The sum of 2 and 40 is 42"), "the approved call got no result: %s", c1.o.out);
	cr_assert_eq(waitpid(c2.pid, NULL, WNOHANG), 0, "the second, identical call was released by the first's approval");
	const char *av2[] = {BELAY_BIN, "approve", id2, "--state", state, NULL};
	ts_run(av2, NULL, dir, NULL, 0, 60, &o);
	cr_assert_eq(o.status, 0, "belay approve %s: %s%s", id2, o.out, o.err);
	ts_out_free(&o);
	drain(&c2);
	cr_assert_eq(c2.o.status, 0, "the second client failed: %s", c2.o.err);
	cr_assert(strstr(c2.o.out, "The sum of 2 and 40 is 42"), "the second call got no result: %s", c2.o.out);
	stop(&bel);
	stop(&srv);
	ts_out_free(&c1.o), ts_out_free(&c2.o), ts_out_free(&bel.o), ts_out_free(&srv.o);
	free(id1), free(id2), free(client), free(url), free(upstream), free(policy), free(state), free(traces);
}

Test(http_e2e, enforce_mode_refuses_a_held_call_whose_client_hangs_up)
{
	/* the client gives up while its call is held (curl --max-time, its own timeout): belay
	 * refuses the call then, recorded as such, and never sends it, rather than holding it to
	 * the bound and forwarding an approved call whose answer would go nowhere */
	char *state = fs_join(dir, "state"), *traces = fs_join(dir, "traces");
	char *policy = fs_join(dir, "policy.json");
	const char *pol = "{\"version\": 1, \"tools\": [{\"name\": \"get-sum\", \"floor\": \"deny\"}]}\n";
	ts_write_file(policy, pol, strlen(pol));
	struct proc srv = {0}, bel = {0};
	unsigned sport = start_server(&srv, "streamableHttp"), port = 0;
	char *upstream = xasprintf("http://127.0.0.1:%u/mcp", sport);
	belay_policy = policy;
	belay_enforce = 1;
	belay_hold = "600";
	char *url = start_belay(&bel, upstream, state, traces, &port, NULL);
	belay_policy = NULL;
	belay_enforce = 0;
	belay_hold = NULL;
	int rc = ts_sh("cd '%s' && H=$(mktemp) && A='accept: application/json, text/event-stream' && "
		       "C='content-type: application/json' && "
		       "curl -s -D $H -o /dev/null -H \"$A\" -H \"$C\" --data '{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":"
		       "\"initialize\",\"params\":{\"protocolVersion\":\"2025-06-18\",\"capabilities\":{},\"clientInfo\":"
		       "{\"name\":\"curl\",\"version\":\"1\"}}}' '%s' && "
		       "S=$(grep -i '^mcp-session-id:' $H | tr -d '\\r' | cut -d' ' -f2) && "
		       "curl -s -o /dev/null -H \"$A\" -H \"$C\" -H \"mcp-session-id: $S\" --data "
		       "'{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}' '%s' && "
		       "curl -s --max-time 3 -H \"$A\" -H \"$C\" -H \"mcp-session-id: $S\" --data '{\"jsonrpc\":\"2.0\","
		       "\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"get-sum\",\"arguments\":{\"a\":2,\"b\":40}}}' '%s'",
		       dir, url, url, url);
	cr_assert_eq(rc, 28, "curl's call was not left unanswered until its own timeout (%d)", rc);
	wait_stderr(&bel, "the client of the held call to get-sum hung up");
	const char *rec = wait_stderr(&bel, "belay: recording to ");
	char *trace = xstrndup(rec + strlen("belay: recording to "), strcspn(rec + strlen("belay: recording to "), "\n"));
	stop(&bel);
	stop(&srv);
	size_t tl = 0;
	char *text = ts_read_file(trace, &tl);
	cr_assert(strstr(text, "\"event\":\"hold\""), "the hold is not recorded");
	cr_assert(strstr(text, "\"outcome\":\"refused (client gone)\""), "no client-gone decision recorded:\n%s", text);
	free(text);
	cr_assert_eq(sums_answered(trace), 0, "the server saw the call");
	ts_out_free(&bel.o);
	ts_out_free(&srv.o);
	free(trace), free(url), free(upstream), free(policy), free(state), free(traces);
}

Test(http_e2e, a_batch_with_a_refused_call_gets_an_answer_for_every_request)
{
	/* a batch (the 2025-03-26 revision allows them) holding a call the gate refuses is not
	 * sent, and its answer holds one for each of its requests: the refusal for the call, an
	 * error for the others (a client waits for each of them); the notification gets none */
	char *state = fs_join(dir, "state"), *traces = fs_join(dir, "traces");
	char *policy = fs_join(dir, "policy.json"), *answer = fs_join(dir, "batch.json");
	const char *pol = "{\"version\": 1, \"tools\": [{\"name\": \"get-sum\", \"floor\": \"deny\"}]}\n";
	ts_write_file(policy, pol, strlen(pol));
	struct proc srv = {0}, bel = {0};
	unsigned sport = start_server(&srv, "streamableHttp"), port = 0;
	char *upstream = xasprintf("http://127.0.0.1:%u/mcp", sport);
	belay_policy = policy;
	belay_enforce = 1;
	belay_hold = "0";
	char *url = start_belay(&bel, upstream, state, traces, &port, NULL);
	belay_policy = NULL;
	belay_enforce = 0;
	belay_hold = NULL;
	int rc = ts_sh("cd '%s' && H=$(mktemp) && A='accept: application/json, text/event-stream' && "
		       "C='content-type: application/json' && "
		       "curl -s -D $H -o /dev/null -H \"$A\" -H \"$C\" --data '{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":"
		       "\"initialize\",\"params\":{\"protocolVersion\":\"2025-03-26\",\"capabilities\":{},\"clientInfo\":"
		       "{\"name\":\"curl\",\"version\":\"1\"}}}' '%s' && "
		       "S=$(grep -i '^mcp-session-id:' $H | tr -d '\\r' | cut -d' ' -f2) && "
		       "curl -s -o /dev/null -H \"$A\" -H \"$C\" -H \"mcp-session-id: $S\" --data "
		       "'{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}' '%s' && "
		       "curl -s --max-time 60 -o '%s' -H \"$A\" -H \"$C\" -H \"mcp-session-id: $S\" --data '["
		       "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"},"
		       "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{\"name\":\"get-sum\",\"arguments\":{\"a\":2,\"b\":40}}},"
		       "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{\"progressToken\":9,\"progress\":1}},"
		       "{\"jsonrpc\":\"2.0\",\"id\":\"three\",\"method\":\"tools/list\"}]' '%s'",
		       dir, url, url, answer, url);
	cr_assert_eq(rc, 0, "curl's batch got no answer (%d)", rc);
	size_t n = 0;
	char *text = ts_read_file(answer, &n);
	cJSON *a = cJSON_Parse(text);
	cr_assert(cJSON_IsArray(a), "the batch's answer is not an array: %s", text);
	cr_assert_eq(cJSON_GetArraySize(a), 3, "not one answer per request of the batch: %s", text);
	const cJSON *r1 = cJSON_GetArrayItem(a, 0), *r2 = cJSON_GetArrayItem(a, 1), *r3 = cJSON_GetArrayItem(a, 2);
	cr_assert_eq(cJSON_GetObjectItem(r1, "id")->valuedouble, 1, "%s", text);
	cr_assert_not_null(cJSON_GetObjectItem(r1, "error"), "the ping of a refused batch has no error: %s", text);
	cr_assert_eq(cJSON_GetObjectItem(r2, "id")->valuedouble, 2, "%s", text);
	char *r2s = cJSON_PrintUnformatted(r2);
	cr_assert(strstr(r2s, "belay refused the call to get-sum") && strstr(r2s, "\"isError\":true"), "%s", r2s);
	cr_assert_str_eq(jx_str(r3, "id"), "three", "%s", text);
	cr_assert_not_null(cJSON_GetObjectItem(r3, "error"), "%s", text);
	free(r2s);
	cJSON_Delete(a);
	free(text);
	const char *rec = wait_stderr(&bel, "belay: recording to ");
	char *trace = xstrndup(rec + strlen("belay: recording to "), strcspn(rec + strlen("belay: recording to "), "\n"));
	stop(&bel);
	stop(&srv);
	cr_assert_eq(sums_answered(trace), 0, "the server saw the refused call");
	ts_out_free(&bel.o);
	ts_out_free(&srv.o);
	free(trace), free(url), free(upstream), free(policy), free(answer), free(state), free(traces);
}

Test(http_e2e, proxy_refuses_a_bad_hold_by_name)
{
	/* --hold is a whole number of seconds up to an hour, and goes with --http */
	struct ts_out o = {0};
	const char *bad[] = {BELAY_BIN, "proxy", "--http", "http://127.0.0.1:1/mcp", "--hold", "soon", NULL};
	ts_run(bad, NULL, dir, NULL, 0, 30, &o);
	cr_assert_neq(o.status, 0);
	cr_assert(strstr(o.err, "--hold must be a whole number of seconds"), "%s", o.err);
	ts_out_free(&o);
	const char *stdio[] = {BELAY_BIN, "proxy", "--hold", "5", "--", "true", NULL};
	ts_run(stdio, NULL, dir, NULL, 0, 30, &o);
	cr_assert_neq(o.status, 0);
	cr_assert(strstr(o.err, "--hold go with --http URL"), "%s", o.err);
	ts_out_free(&o);
}
