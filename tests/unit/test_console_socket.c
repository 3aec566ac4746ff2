/* test_console_socket.c - `belay connect` with no argument finds the console when an agent
 * starts it: the SDK client spawns it with the SDK's minimal environment (HOME, LOGNAME,
 * PATH, SHELL, TERM, USER - no XDG_RUNTIME_DIR), while the console was started from a
 * shell that has XDG_RUNTIME_DIR. Both derive the default socket from the uid alone:
 * /run/user/<uid>/belay/console.sock when that runtime dir exists, else
 * /tmp/belay-<uid>/console.sock. When no console listens, connect names every place it
 * looked. Each case runs in a private mount namespace with its own /run and /tmp, so the
 * real default places (and other checkouts' consoles) are never touched. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/fsutil.h"
#include "common/jsonx.h"
#include "common/xalloc.h"
#include "ts_life.h"
#include "tsupport.h"

static char *dir, *peers;

static void setup(void)
{
	peers = ts_peers();
	cr_assert_not_null(peers, "npm test peers missing: run scripts/setup.sh (npm ci in tests/peers)");
	dir = ts_tmpdir("csock");
}

static void teardown(void)
{
	ts_rmtree(dir);
	free(dir);
	free(peers);
}

TestSuite(console_socket, .init = setup, .fini = teardown, .timeout = 180);

/* Runs script (sh) in a new mount namespace whose /run and /tmp are empty tmpfs; with
 * run_user, /run/user/<uid> exists (0700) as a login manager makes it. */
static void in_namespace(int run_user, const char *script, struct ts_out *o)
{
	char *full = xasprintf("set -e; mount -t tmpfs belay-test-run /run; mount -t tmpfs belay-test-tmp /tmp; "
			       "mkdir -p /run/user; %s\n%s",
			       run_user ? "mkdir -m 700 /run/user/$(id -u)" : "true", script);
	const char *argv[] = {"unshare", geteuid() == 0 ? "-m" : "-rm", "sh", "-c", full, NULL};
	cr_assert_eq(ts_run(argv, NULL, NULL, NULL, 0, 150, o), 0);
	cr_assert(!o->timed_out, "%s", o->err);
	free(full);
}

/* The console (started with XDG_RUNTIME_DIR=xdg, as from a user's shell) and the SDK client
 * spawning `belay connect` with no argument. Returns the client's JSON. */
static cJSON *console_and_agent(int run_user, const char *xdg, const char *want_sock, struct ts_out *o)
{
	char *st = fs_join(dir, "st"), *events = fs_join(dir, "events.jsonl");
	char *client = xstrdup(BELAY_SOURCE_DIR "/tests/peers/lifecycle-client.mjs");
	char *ev = xasprintf("%s/@modelcontextprotocol/server-everything/dist/index.js", peers);
	char *script = xasprintf(
		"mkdir -p %s\n"
		"XDG_RUNTIME_DIR=%s %s console --events --state %s -- node %s stdio > %s 2> %s.err &\n"
		"c=$!; i=0; sock=%s\n"
		"while [ ! -S \"$sock\" ] && [ $i -lt 150 ]; do sleep 0.1; i=$((i+1)); done\n"
		"[ -S \"$sock\" ] || { echo \"the console is not at $sock\" >&2; cat %s.err >&2; kill $c; exit 3; }\n"
		"rc=0; node %s calls -- %s connect || rc=$?\n"
		"kill $c; wait $c || true; exit $rc\n",
		xdg, xdg, BELAY_BIN, st, ev, events, events, want_sock, events, client, BELAY_BIN);
	in_namespace(run_user, script, o);
	cr_assert_eq(o->status, 0, "%s\n%s", o->out, o->err);
	cJSON *doc = cJSON_Parse(o->out);
	cr_assert_not_null(doc, "%s\n%s", o->out, o->err);
	free(script);
	free(ev);
	free(client);
	free(st);
	free(events);
	return doc;
}

static void assert_served(const cJSON *doc, const char *err)
{
	char *all = cJSON_PrintUnformatted(doc);
	cr_assert(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(doc, "connected")), "%s\n%s", all, err);
	cr_assert_gt(ts_life_num(doc, "tools"), 0, "%s", all);
	cr_assert(strstr(all, "Echo: hi"), "%s", all);
	cr_assert(strstr(err, "belay: connected to the console at "), "%s", err);
	free(all);
}

Test(console_socket, found_under_run_user_from_an_agents_minimal_environment)
{
	char want[64];
	snprintf(want, sizeof want, "/run/user/%u/belay/console.sock", (unsigned)(geteuid() == 0 ? getuid() : 0));
	char xdg[64];
	snprintf(xdg, sizeof xdg, "/run/user/%u", (unsigned)(geteuid() == 0 ? getuid() : 0));
	struct ts_out o;
	cJSON *doc = console_and_agent(1, xdg, want, &o);
	assert_served(doc, o.err);
	cr_assert(strstr(o.err, want), "%s", o.err);
	cJSON_Delete(doc);
	ts_out_free(&o);
}

Test(console_socket, found_under_tmp_whatever_the_consoles_xdg_runtime_dir)
{
	/* No login manager's runtime dir; the console's shell points XDG_RUNTIME_DIR elsewhere. */
	char want[64];
	snprintf(want, sizeof want, "/tmp/belay-%u/console.sock", (unsigned)(geteuid() == 0 ? getuid() : 0));
	struct ts_out o;
	cJSON *doc = console_and_agent(0, "/tmp/my-runtime", want, &o);
	assert_served(doc, o.err);
	cr_assert(strstr(o.err, want), "%s", o.err);
	cJSON_Delete(doc);
	ts_out_free(&o);
}

Test(console_socket, without_a_console_connect_names_where_it_looked)
{
	char *script = xasprintf("rc=0; env -i HOME=$HOME PATH=$PATH %s connect || rc=$?; echo \"rc=$rc\"", BELAY_BIN);
	struct ts_out o;
	in_namespace(1, script, &o);
	unsigned uid = (unsigned)(geteuid() == 0 ? getuid() : 0);
	char a[96], b[96];
	snprintf(a, sizeof a, "/run/user/%u/belay/console.sock (No such file or directory)", uid);
	snprintf(b, sizeof b, "nor at /tmp/belay-%u/console.sock (No such file or directory)", uid);
	cr_assert(strstr(o.err, "belay: connect: no console is listening at "), "%s", o.err);
	cr_assert(strstr(o.err, a), "%s", o.err);
	cr_assert(strstr(o.err, b), "%s", o.err);
	cr_assert(strstr(o.out, "rc=2"), "%s", o.out);
	free(script);
	ts_out_free(&o);
}

/* The agent that started `belay connect` gets its answer on the MCP wire, not only on stderr
 * (which most agents hide): every request it sent is answered with a JSON-RPC error naming
 * why; a notification gets nothing. */
Test(console_socket, without_a_console_the_agents_requests_are_answered_with_the_cause)
{
	char *tmp = ts_tmpdir("nosock");
	char *sock = xasprintf("%s/none.sock", tmp);
	const char in[] = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{}}\n"
			  "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n"
			  "{\"jsonrpc\":\"2.0\",\"id\":\"two\",\"method\":\"tools/list\"}\n";
	const char *argv[] = {BELAY_BIN, "connect", sock, NULL};
	struct ts_out o;
	ts_run(argv, NULL, NULL, in, sizeof in - 1, 60, &o);
	cr_assert_eq(o.status, 2, "%s%s", o.out, o.err);
	cr_assert(strstr(o.err, "no console is listening"), "%s", o.err);
	cJSON *a = NULL, *b = NULL;
	char *nl = strchr(o.out, '\n');
	cr_assert_not_null(nl, "no answer on the wire: [%s] %s", o.out, o.err);
	a = cJSON_ParseWithLength(o.out, (size_t)(nl - o.out));
	b = cJSON_Parse(nl + 1);
	cr_assert_not_null(a, "%s", o.out);
	cr_assert_not_null(b, "%s", o.out);
	cr_assert_eq(cJSON_GetObjectItem(a, "id")->valueint, 1);
	cr_assert_str_eq(cJSON_GetObjectItem(b, "id")->valuestring, "two");
	const char *msg = jx_str(cJSON_GetObjectItem(a, "error"), "message");
	cr_assert(msg && strstr(msg, "no console is listening") && strstr(msg, sock), "%s", o.out);
	cr_assert_str_eq(ts_life_str(a, "error.data.belay.reason"), "console_unavailable");
	cr_assert_null(strchr(nl + 1, '\n') ? strchr(strchr(nl + 1, '\n') + 1, '{') : NULL, "one answer per request: %s", o.out);
	cJSON_Delete(a);
	cJSON_Delete(b);
	ts_out_free(&o);
	ts_rmtree(tmp);
	free(sock);
	free(tmp);
}
