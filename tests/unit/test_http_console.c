/* test_http_console.c - an HTTP run in the console, live: `belay console --follow DIR` under
 * tmux follows the traces `belay proxy --http` writes there, and the run of the real SDK
 * client driving server-everything (streamableHttp) through belay shows up with its calls
 * while the session is open (the client keeps its session: the run has not ended). The console
 * hosts the listener itself (`--http URL`): its URL shown, held calls answered with y and x,
 * gone with the console; and for a local server it starts contained (`--http URL --scope WS
 * -- SERVER`), the run is like a stdio one: scope, denials named, v's verdict by replay over
 * HTTP, r's re-check (replay from here) over HTTP, c's banked case re-run over HTTP to MATCH
 * (in the corpus view and by belay corpus run), nothing left running when the console quits.
 *
 * Ports are chosen free at run time; every wait is for a condition on the screen or a socket
 * (with a generous deadline that only turns a hang into a failure). */
#include <arpa/inet.h>
#include <cjson/cJSON.h>
#include <dirent.h>
#include <criterion/criterion.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "common/fsutil.h"
#include "common/xalloc.h"
#include "ts_tmux.h"
#include "ts_net.h"
#include "tsupport.h"

static char *dir, *peers;
/* a console a failed test leaves running, and its directory outside /tmp (teardown ends both) */
static struct ts_tmux left;
static int left_on;
static char *vis;

static void setup(void)
{
	peers = ts_peers();
	cr_assert_not_null(peers, "npm test peers missing: run scripts/setup.sh (npm ci in tests/peers)");
	dir = ts_tmpdir("http-console");
}

static void teardown(void)
{
	if (left_on)
		ts_tmux_kill(&left);
	left_on = 0;
	ts_rmtree(vis);
	free(vis);
	vis = NULL;
	ts_reap_tracked(); /* what a failed test left running */
	ts_rmtree(dir);
	free(dir);
	free(peers);
}

TestSuite(http_console, .init = setup, .fini = teardown, .timeout = 300);

struct proc {
	pid_t pid;
	int fds[3];
	struct ts_out o;
};

static void stop(struct proc *p)
{
	ts_untrack(p->pid);
	kill(p->pid, SIGTERM);
	for (int i = 0; i < 3; i++)
		close(p->fds[i]);
	ts_reap(p->pid, &p->o);
	ts_out_free(&p->o);
}

Test(http_console, an_http_run_streams_into_the_console)
{
	char *traces = fs_join(dir, "traces"), *pstate = fs_join(dir, "pstate"), *cstate = fs_join(dir, "cstate");
	char *sock = fs_join(dir, "c.sock");
	cr_assert_eq(fs_mkdir_p(traces, 0700, NULL), 0);
	/* the console follows the directory the HTTP proxy writes to */
	char *cmd = xasprintf("cd %s && env LANG=C.UTF-8 TERM=xterm-256color %s console --state %s --socket %s "
			      "--follow %s 2>%s/console.err",
			      dir, BELAY_BIN, cstate, sock, traces, dir);
	struct ts_tmux t;
	cr_assert_eq(ts_tmux_start(&t, dir, 160, 40, cmd), 0);

	/* server-everything over Streamable HTTP, and belay's listener for it */
	struct proc srv = {0}, bel = {0};
	unsigned sport = ts_free_port();
	char *scmd = xasprintf("exec node %s/@modelcontextprotocol/server-everything/dist/index.js streamableHttp "
			       ">%s/server.log 2>&1",
			       peers, dir);
	char *env_port = xasprintf("PORT=%u", sport);
	const char *sargv[] = {"sh", "-c", scmd, NULL};
	const char *senv[] = {env_port, NULL};
	srv.pid = ts_spawn(sargv, senv, dir, &srv.o, srv.fds);
	ts_track(srv.pid);
	ts_wait_listening(sport, 60);
	char *upstream = xasprintf("http://127.0.0.1:%u/mcp", sport);
	const char *bargv[] = {BELAY_BIN, "proxy", "--http", upstream, "--listen", "0", "--state", pstate, "--trace-dir",
			       traces, NULL};
	bel.pid = ts_spawn(bargv, NULL, dir, &bel.o, bel.fds);
	ts_track(bel.pid);
	time_t until = time(NULL) + 60;
	while (!bel.o.err || !strstr(bel.o.err, "belay: listening on ")) {
		cr_assert(time(NULL) < until, "belay-http never listened: %s", bel.o.err ? bel.o.err : "");
		struct pollfd pf = {.fd = bel.fds[2], .events = POLLIN};
		if (poll(&pf, 1, 200) > 0)
			cr_assert(ts_read_some(bel.fds[2], &bel.o.err, &bel.o.err_len), "belay-http ended: %s", bel.o.err);
	}
	const char *at = strstr(bel.o.err, "belay: listening on ") + strlen("belay: listening on ");
	char *url = xstrndup(at, strcspn(at, " \n"));

	/* the client keeps its session open (no DELETE): the run is live in the console */
	char *client = xasprintf("%s/tests/peers/http-client.mjs", BELAY_SOURCE_DIR);
	const char *cargv[] = {"node", client, "streamable", url, "console-token", "console", "keep", NULL};
	struct ts_out o = {0};
	ts_run(cargv, NULL, dir, NULL, 0, 120, &o);
	cr_assert_eq(o.status, 0, "the client failed: %s", o.err);
	ts_out_free(&o);
	const char *want[] = {"echo", "get-sum", "trigger-long-running-operation", NULL};
	char *last = NULL;
	char *screen = ts_tmux_wait(&t, want, 90, &last);
	cr_assert_not_null(screen, "the console never showed the HTTP run's calls:\n%s", last ? last : "");
	free(screen);
	free(last);
	cr_assert(ts_tmux_alive(&t), "the console exited");
	ts_tmux_kill(&t);
	stop(&bel);
	stop(&srv);
	free(client), free(url), free(upstream), free(env_port), free(scmd), free(cmd);
	free(sock), free(cstate), free(pstate), free(traces);
}

/* server-everything (streamableHttp) on a free port; returns the port. */
static unsigned start_everything(struct proc *srv)
{
	unsigned sport = ts_free_port();
	char *scmd = xasprintf("exec node %s/@modelcontextprotocol/server-everything/dist/index.js streamableHttp "
			       ">%s/server.log 2>&1",
			       peers, dir);
	char *env_port = xasprintf("PORT=%u", sport);
	const char *sargv[] = {"sh", "-c", scmd, NULL};
	const char *senv[] = {env_port, NULL};
	srv->pid = ts_spawn(sargv, senv, dir, &srv->o, srv->fds);
	ts_track(srv->pid);
	ts_wait_listening(sport, 60);
	free(scmd);
	free(env_port);
	return sport;
}

/* The SDK client calling get-sum (then ending its session), its output into dir/NAME.out. */
static pid_t start_client(const char *url, const char *name)
{
	char *cmd = xasprintf("exec node %s/tests/peers/http-client.mjs streamable '%s' '' %s sumonly >%s/%s.out 2>&1",
			      BELAY_SOURCE_DIR, url, name, dir, name);
	const char *argv[] = {"sh", "-c", cmd, NULL};
	struct proc c = {0};
	c.pid = ts_spawn(argv, NULL, dir, &c.o, c.fds);
	ts_track(c.pid);
	for (int i = 0; i < 3; i++)
		close(c.fds[i]);
	ts_out_free(&c.o);
	free(cmd);
	return c.pid;
}

/* Waits for the client; its get-sum result (new string). */
static char *client_sum(pid_t pid, const char *name)
{
	struct ts_out o = {0};
	ts_reap(pid, &o);
	ts_untrack(pid);
	char *path = xasprintf("%s/%s.out", dir, name);
	size_t n = 0;
	char *text = ts_read_file(path, &n);
	cr_assert_eq(o.status, 0, "the client %s failed: %s", name, text ? text : "");
	cJSON *out = NULL;
	for (const char *l = text; l && *l && !out; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL)
		if (*l == '{')
			out = cJSON_Parse(l);
	cr_assert_not_null(out, "no result from the client %s: %s", name, text);
	char *sum = cJSON_PrintUnformatted(cJSON_GetObjectItem(out, "sum"));
	cJSON_Delete(out);
	free(text);
	free(path);
	ts_out_free(&o);
	return sum;
}

/* The URL on the console's bottom line: "agents over HTTP use URL" (new string). */
static char *url_on_screen(struct ts_tmux *t)
{
	const char *want[] = {"agents over HTTP use http://127.0.0.1:", NULL};
	char *last = NULL, *screen = ts_tmux_wait(t, want, 90, &last);
	cr_assert_not_null(screen, "the console does not say its HTTP listener's URL:\n%s", last ? last : "");
	const char *at = strstr(screen, "agents over HTTP use ") + strlen("agents over HTTP use ");
	char *url = xstrndup(at, strcspn(at, " \n"));
	free(screen);
	free(last);
	cr_assert(strstr(url, "/mcp"), "%s", url);
	return url;
}

Test(http_console, the_console_hosts_the_listener_and_answers_held_calls_with_y_and_x)
{
	/* belay console --http URL --mode enforce: the console starts belay-http, says its URL,
	 * shows the HTTP run with its server's URL in the title, lists the held call, and its y
	 * lets the call through (the server answers it) while its x refuses the next one at once
	 * (recorded as refused by the person, not as an expired hold: the hold is 50 s) */
	struct proc srv = {0};
	unsigned sport = start_everything(&srv);
	char *upstream = xasprintf("http://127.0.0.1:%u/mcp", sport);
	char *cstate = fs_join(dir, "cstate"), *sock = fs_join(dir, "c.sock"), *policy = fs_join(dir, "policy.json");
	const char *pol = "{\"version\": 1, \"tools\": [{\"name\": \"get-sum\", \"floor\": \"deny\"}]}\n";
	ts_write_file(policy, pol, strlen(pol));
	char *cmd = xasprintf("cd %s && env LANG=C.UTF-8 TERM=xterm-256color %s console --state %s --socket %s "
			      "--http %s --mode enforce --policy %s 2>%s/console.err",
			      dir, BELAY_BIN, cstate, sock, upstream, policy, dir);
	struct ts_tmux t;
	cr_assert_eq(ts_tmux_start(&t, dir, 200, 45, cmd), 0);
	char *url = url_on_screen(&t);

	/* :snippet gives the clients' configurations for the listener too */
	ts_tmux_type(&t, ":snippet");
	ts_tmux_keys(&t, "Enter");
	ts_tmux_type(&t, ":search CONNECT AN AGENT OVER HTTP");
	ts_tmux_keys(&t, "Enter");
	char *addline = xasprintf("claude mcp add --transport http belay %s", url);
	const char *snip[] = {addline, NULL};
	char *last = NULL, *screen = ts_tmux_wait(&t, snip, 30, &last);
	cr_assert_not_null(screen, ":snippet does not give the HTTP listener's configuration:\n%s", last ? last : "");
	free(screen), free(last), last = NULL;
	free(addline);
	ts_tmux_keys(&t, "q");

	/* y: the held call goes on, the client gets the server's answer */
	pid_t c1 = start_client(url, "one");
	char *title = xasprintf("%s via 127.0.0.1:", upstream);
	const char *held[] = {"HELD", "get-sum", title, NULL};
	screen = ts_tmux_wait(&t, held, 90, &last);
	cr_assert_not_null(screen, "the console did not list the held HTTP call with its server's URL:\n%s",
			   last ? last : "");
	free(screen), free(last), last = NULL;
	ts_tmux_keys(&t, "G");
	ts_tmux_keys(&t, "y");
	char *sum = client_sum(c1, "one");
	cr_assert(strstr(sum, "The sum of 2 and 40 is 42") && !strstr(sum, "isError\":true"),
		  "y did not let the held call through: %s", sum);
	free(sum);

	/* x: refused now, the client told by belay, the server never sees it */
	pid_t c2 = start_client(url, "two");
	/* the focus line on the held call ("HELD get-sum: y approves once"): x answers what is
	 * focused. Not the message line: another run's end may replace "HELD: get-sum waits" there
	 * (the first client's run ends when its trace is read, which may be after this hold) */
	const char *held2[] = {"RUNS (2)", "HELD get-sum: y approves once", NULL};
	screen = ts_tmux_wait(&t, held2, 90, &last);
	cr_assert_not_null(screen, "the second call was not listed as held:\n%s", last ? last : "");
	free(screen), free(last), last = NULL;
	ts_tmux_keys(&t, "G");
	ts_tmux_keys(&t, "x");
	sum = client_sum(c2, "two");
	if (!strstr(sum, "belay refused the call to get-sum"))
		last = ts_tmux_capture(&t, 0);
	cr_assert(strstr(sum, "isError\":true") && strstr(sum, "belay refused the call to get-sum"),
		  "x did not refuse the held call: %s\nthe screen then:\n%s", sum, last ? last : "");
	free(sum);

	/* the traces the console's listener wrote: one approved while held, one refused by the person */
	char *traces = fs_join(cstate, "traces/http");
	cr_assert_eq(ts_sh("grep -l 'forwarded (approved while held)' %s/*.jsonl >/dev/null", traces), 0,
		     "no call recorded as approved while held");
	cr_assert_eq(ts_sh("grep -l 'refused (refused while held)' %s/*.jsonl >/dev/null", traces), 0,
		     "the refusal is not recorded as the person's (an expired hold?)");
	cr_assert_neq(ts_sh("grep -l 'refused (hold expired)' %s/*.jsonl >/dev/null", traces), 0,
		     "a hold expired instead of being answered");

	/* belay runs names the run's server by its URL */
	struct ts_out o = {0};
	const char *rargv[] = {BELAY_BIN, "runs", "--state", cstate, NULL};
	ts_run(rargv, NULL, dir, NULL, 0, 60, &o);
	cr_assert_eq(o.status, 0, "%s", o.err);
	cr_assert(strstr(o.out, upstream), "belay runs does not name the HTTP run's URL:\n%s", o.out);
	char *run = xstrndup(strchr(o.out, '\n') + 1, strcspn(strchr(o.out, '\n') + 1, " "));
	ts_out_free(&o);
	const char *sargv[] = {BELAY_BIN, "show", run, "--state", cstate, NULL};
	ts_run(sargv, NULL, dir, NULL, 0, 60, &o);
	cr_assert_eq(o.status, 0, "%s", o.err);
	char *says = xasprintf("server    %s over HTTP, through belay's listener 127.0.0.1:", upstream);
	cr_assert(strstr(o.out, says), "belay show does not name the HTTP run's URL and listener:\n%s", o.out);
	free(says), free(run);
	ts_out_free(&o);

	/* q (and y, when it asks) quits the console, and its listener with it */
	ts_tmux_keys(&t, "q");
	ts_tmux_keys(&t, "y");
	unsigned lport = 0;
	cr_assert_eq(sscanf(url, "http://127.0.0.1:%u/", &lport), 1);
	int fd = -1;
	for (time_t until = time(NULL) + 60; (fd = ts_try_connect(lport)) >= 0; close(fd)) {
		cr_assert(time(NULL) < until, "the console's HTTP listener outlived the console");
		nanosleep(&(struct timespec){0, 100 * 1000000L}, NULL);
	}
	ts_tmux_kill(&t);
	stop(&srv);
	free(traces), free(title), free(url), free(cmd), free(policy), free(sock), free(cstate), free(upstream);
}

Test(http_console, the_consoles_listener_ends_when_the_console_is_killed)
{
	/* no orphan: SIGKILL leaves the console no chance to stop belay-http, whose stdin's end
	 * (the console held its only write end) stops it */
	struct proc srv = {0}, con = {0};
	unsigned sport = start_everything(&srv);
	char *upstream = xasprintf("http://127.0.0.1:%u/mcp", sport);
	char *cstate = fs_join(dir, "cstate"), *sock = fs_join(dir, "k.sock");
	const char *argv[] = {BELAY_BIN, "console", "--events", "--state", cstate, "--socket", sock, "--http", upstream, NULL};
	con.pid = ts_spawn(argv, NULL, dir, &con.o, con.fds);
	ts_track(con.pid);
	time_t until = time(NULL) + 60;
	while (!con.o.err || !strstr(con.o.err, "HTTP listener at ")) {
		cr_assert(time(NULL) < until, "the console never said its HTTP listener: %s", con.o.err ? con.o.err : "");
		struct pollfd pf = {.fd = con.fds[2], .events = POLLIN};
		if (poll(&pf, 1, 200) > 0)
			cr_assert(ts_read_some(con.fds[2], &con.o.err, &con.o.err_len), "the console ended: %s", con.o.err);
	}
	unsigned lport = 0;
	cr_assert_eq(sscanf(strstr(con.o.err, "HTTP listener at ") + strlen("HTTP listener at "), "http://127.0.0.1:%u/",
			    &lport), 1, "%s", con.o.err);
	int fd = ts_try_connect(lport);
	cr_assert_geq(fd, 0, "nothing listens on the console's HTTP port %u", lport);
	close(fd);
	kill(con.pid, SIGKILL);
	ts_untrack(con.pid);
	for (int i = 0; i < 3; i++)
		close(con.fds[i]);
	ts_reap(con.pid, &con.o);
	until = time(NULL) + 60;
	for (; (fd = ts_try_connect(lport)) >= 0; close(fd)) {
		cr_assert(time(NULL) < until, "belay-http outlived the console that was killed");
		nanosleep(&(struct timespec){0, 100 * 1000000L}, NULL);
	}
	ts_out_free(&con.o);
	stop(&srv);
	free(sock), free(cstate), free(upstream);
}

/* The pids of `pid` and of every process under it (at most n; returns how many), from
 * each process's parent in /proc/PID/stat. */
static size_t proc_tree(pid_t pid, pid_t *out, size_t n)
{
	size_t k = 0;
	out[k++] = pid;
	for (int grew = 1; grew && k < n;) {
		grew = 0;
		DIR *d = opendir("/proc");
		for (struct dirent *de; d && (de = readdir(d)) && k < n;) {
			long p = strtol(de->d_name, NULL, 10), pp = 0;
			if (p <= 0)
				continue;
			char *path = xasprintf("/proc/%ld/stat", p);
			size_t len = 0;
			char *st = ts_read_file(path, &len);
			free(path);
			const char *rp = st ? strrchr(st, ')') : NULL;
			if (rp && sscanf(rp + 1, " %*c %ld", &pp) == 1) {
				int have = 0, under = 0;
				for (size_t i = 0; i < k; i++)
					have |= out[i] == (pid_t)p, under |= out[i] == (pid_t)pp;
				if (under && !have)
					out[k++] = (pid_t)p, grew = 1;
			}
			free(st);
		}
		if (d)
			closedir(d);
	}
	return k;
}

/* The pid of the belay-http whose command line names `needle` (0: none). */
static pid_t find_belay_http(const char *needle)
{
	FILE *f = popen("for p in /proc/[0-9]*; do printf '%s ' \"${p#/proc/}\"; tr '\\0' ' ' 2>/dev/null <\"$p/cmdline\" "
			"2>/dev/null; echo; done",
			"r");
	char line[8192];
	pid_t found = 0;
	while (f && fgets(line, sizeof line, f))
		if (strstr(line, "belay-http ") && strstr(line, "--contain") && strstr(line, needle))
			found = (pid_t)strtol(line, NULL, 10);
	if (f)
		pclose(f);
	return found;
}

/* A process is gone: no /proc entry, or a zombie nobody of this test's waits for. */
static int gone(pid_t pid)
{
	char *path = xasprintf("/proc/%d/stat", (int)pid);
	size_t len = 0;
	char *st = ts_read_file(path, &len);
	free(path);
	const char *rp = st ? strrchr(st, ')') : NULL;
	int g = !rp || rp[1] == '\0' || rp[2] == 'Z' || rp[2] == 'X';
	free(st);
	return g;
}

/* The line of `screen` holding `needle` (new string; NULL: none). */
static char *line_with(const char *screen, const char *needle)
{
	const char *at = strstr(screen, needle);
	if (!at)
		return NULL;
	const char *b = at;
	while (b > screen && b[-1] != '\n')
		b--;
	return xstrndup(b, strcspn(b, "\n"));
}

/* Waits up to timeout_s for a screen with every one of `on` (NULL-terminated) whose line
 * holding `row` holds one of `any` too (what a judgement ends in, good or bad, so a wrong one
 * fails at once); that line (new string) or NULL (then *last gets the last screen). */
static char *wait_row(struct ts_tmux *t, const char *const *on, const char *row, const char *const *any, int timeout_s,
		      char **last)
{
	for (time_t until = time(NULL) + timeout_s;;) {
		char *screen = ts_tmux_wait(t, on, 1, NULL);
		char *line = screen ? line_with(screen, row) : NULL;
		for (const char *const *w = any; line && *w; w++)
			if (strstr(line, *w)) {
				free(screen);
				return line;
			}
		free(line);
		if (time(NULL) >= until) {
			*last = screen ? screen : ts_tmux_capture(t, 0);
			return NULL;
		}
		free(screen);
		nanosleep(&(struct timespec){0, 200 * 1000000L}, NULL);
	}
}

/* A console whose listener starts server-everything (streamableHttp) contained: `belay
 * console --http http://127.0.0.1:3001/mcp --scope WS -- sh serve.sh` under tmux, in a
 * directory outside /tmp (vis: the sandbox gives the server a private /tmp, where "outside"
 * would not be). serve.sh tries a write outside the scope and a connect to another port (a
 * listener of this test on the host's loopback) at its first start only, then execs the
 * server. */
struct contained {
	struct ts_tmux t;
	char *ws, *out, *escape, *cstate, *sock, *serve, *script, *cmd;
	char *url;	    /* the console's listener, from its bottom line */
	int host;	    /* the test's listener: "another port" for the server */
	unsigned host_port;
};

static void contained_start(struct contained *cx)
{
	const char *vb = getenv("BELAY_TEST_VISIBLE_BASE");
	struct err e = {0};
	vis = fs_mkdtemp_in(vb && *vb ? vb : "/var/tmp", "belay-test-http-console-", &e);
	cr_assert_not_null(vis, "%s", e.msg);
	chmod(vis, 0755);
	cx->ws = fs_join(vis, "ws"), cx->out = fs_join(vis, "out"), cx->escape = fs_join(cx->out, "escape");
	cx->cstate = fs_join(vis, "cstate"), cx->sock = fs_join(vis, "c.sock"), cx->serve = fs_join(vis, "serve.sh");
	fs_mkdir_p(cx->ws, 0755, NULL);
	fs_mkdir_p(cx->out, 0755, NULL);
	cx->host = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	cr_assert_eq(bind(cx->host, (void *)&a, sizeof a), 0);
	listen(cx->host, 8);
	socklen_t al = sizeof a;
	getsockname(cx->host, (void *)&a, &al);
	cx->host_port = ntohs(a.sin_port);
	/* the probes run at the first start only (a replay starts from a pre-state with .started) */
	cx->script = xasprintf(
	    "if [ ! -e .started ]; then : > .started; echo pwned > %s; python3 -c \"import socket\ntry:\n"
	    "    socket.create_connection(('127.0.0.1', %u), 2); print('REACHED')\nexcept OSError: pass\"; fi\n"
	    "exec node %s/@modelcontextprotocol/server-everything/dist/index.js streamableHttp\n",
	    cx->escape, cx->host_port, peers);
	ts_write_file(cx->serve, cx->script, strlen(cx->script));
	cx->cmd = xasprintf("cd %s && env LANG=C.UTF-8 TERM=xterm-256color BELAY_SANDBOX_TMP_BASE=%s %s console "
			    "--state %s --socket %s --http http://127.0.0.1:3001/mcp --scope %s -- sh %s "
			    "2>%s/console.err",
			    cx->ws, vis, BELAY_BIN, cx->cstate, cx->sock, cx->ws, cx->serve, vis);
	cr_assert_eq(ts_tmux_start(&cx->t, vis, 200, 50, cx->cmd), 0);
	left = cx->t, left_on = 1;
	/* the bottom line says the URL unless a notice covers it (the start-up's denials are
	 * reported there: "the contained server was refused"); a key (j: nothing to move) clears one */
	for (time_t until = time(NULL) + 90; !cx->url;) {
		char *screen = ts_tmux_capture(&cx->t, 0);
		const char *at = strstr(screen, "agents over HTTP use ");
		if (at) {
			at += strlen("agents over HTTP use ");
			cx->url = xstrndup(at, strcspn(at, " \n"));
		} else {
			cr_assert(time(NULL) < until, "the console does not say its HTTP listener's URL:\n%s", screen);
			ts_tmux_keys(&cx->t, "j");
			nanosleep(&(struct timespec){0, 300 * 1000000L}, NULL);
		}
		free(screen);
	}
	cr_assert(strstr(cx->url, "http://127.0.0.1:") && strstr(cx->url, "/mcp"), "%s", cx->url);
}

/* The SDK client through the console's listener (echo and get-sum, then its session ends),
 * and the run's two turns listed, get-sum focused (the console follows the newest turn), the
 * run ended on its row: the console has read every answer (a turn listed before its answer
 * is read refuses v, r and c: "no response yet") */
static void contained_drive(struct contained *cx)
{
	pid_t c1 = start_client(cx->url, "one");
	char *sum = client_sum(c1, "one");
	cr_assert(strstr(sum, "The sum of 2 and 40 is 42"), "the contained server did not answer: %s", sum);
	free(sum);
	const char *focused[] = {"TURNS (2)", "echo", "turn 1 get-sum: not verified", NULL}, *end[] = {"ended", "exit ", NULL};
	char *last = NULL, *row = wait_row(&cx->t, focused, "2 turns ✓", end, 90, &last);
	cr_assert_not_null(row, "the run's turns are not listed with get-sum focused, the run ended:\n%s", last ? last : "");
	free(row);
}

/* Q, y: the console quits (its listener and the server with it). */
static void contained_quit(struct contained *cx)
{
	ts_tmux_keys(&cx->t, "Q");
	ts_tmux_keys(&cx->t, "y");
}

static void contained_free(struct contained *cx)
{
	ts_tmux_kill(&cx->t);
	left_on = 0;
	close(cx->host);
	free(cx->url), free(cx->cmd), free(cx->script), free(cx->serve), free(cx->sock), free(cx->cstate);
	free(cx->escape), free(cx->out), free(cx->ws);
}

Test(http_console, a_contained_local_http_server_is_a_run_like_a_stdio_one)
{
	/* belay console --http http://127.0.0.1:PORT/mcp --scope WS -- SERVER: the console's
	 * listener starts server-everything (streamableHttp) contained, listening on its sandbox's
	 * own loopback; the SDK client drives it through the console's URL; the run shows its
	 * turns, its scope in the title and its denials (a write outside the scope, a connect to
	 * another port: the server's command tries both before it starts); v verifies a turn by
	 * replay over HTTP (PASS); quitting the console ends belay-http and the server */
	struct contained cx = {0};
	contained_start(&cx);
	pid_t bh = find_belay_http(cx.ws);
	cr_assert_gt(bh, 0, "no belay-http --contain %s runs", cx.ws);
	pid_t tree[64];
	size_t ntree = proc_tree(bh, tree, 64);
	cr_log_info("contained local server: belay-http %d with %zu process(es) under it", (int)bh, ntree - 1);
	cr_assert_geq(ntree, 2, "belay-http started nothing");

	contained_drive(&cx);
	char *scope = xasprintf("scope %s", cx.ws), *target = xasprintf("127.0.0.1:%u", cx.host_port);
	const char *shown[] = {"echo", "get-sum", scope, "DENIALS (2)", target, "escape", NULL};
	char *last = NULL, *screen = ts_tmux_wait(&cx.t, shown, 90, &last);
	cr_assert_not_null(screen, "the console does not show the contained HTTP run with its scope and denials:\n%s",
			   last ? last : "");
	free(screen), free(last), last = NULL;
	struct stat sb;
	cr_assert_neq(stat(cx.escape, &sb), 0, "the write outside the scope happened");
	int reached = 0, cfd;
	while ((cfd = accept(cx.host, NULL, NULL)) >= 0)
		reached++, close(cfd);
	cr_assert_eq(reached, 0, "the host's listener was reached from the sandbox");

	/* v on the get-sum turn (focused): replayed over HTTP in a fresh sandbox from its
	 * pre-state, PASS */
	ts_tmux_keys(&cx.t, "v");
	const char *judged[] = {"turn 1 get-sum: ✓ PASS", NULL};
	screen = ts_tmux_wait(&cx.t, judged, 150, &last); /* under the test's 300 s: a failure shows its screen */
	if (!screen) {
		ts_tmux_keys(&cx.t, "E");
		free(last);
		last = ts_tmux_capture(&cx.t, 0);
	}
	cr_assert_not_null(screen, "v gave get-sum no PASS:\n%s", last ? last : "");
	free(screen), free(last), last = NULL;

	/* quitting the console ends belay-http and everything it started */
	contained_quit(&cx);
	for (time_t until = time(NULL) + 60;;) {
		size_t alive = 0;
		for (size_t i = 0; i < ntree; i++)
			alive += !gone(tree[i]);
		if (!alive)
			break;
		cr_assert(time(NULL) < until, "%zu of belay-http's %zu processes outlived the console", alive, ntree);
		nanosleep(&(struct timespec){0, 100 * 1000000L}, NULL);
	}
	free(scope), free(target);
	contained_free(&cx);
}

/* The screen after E (the console's log: a job's outcome and error are there). */
static char *with_log(struct ts_tmux *t)
{
	ts_tmux_keys(t, "E");
	const char *log[] = {"LOG", NULL};
	char *l = NULL, *screen = ts_tmux_wait(t, log, 10, &l);
	return screen ? screen : l;
}

/* A judgement on screen: waits (wait_row) for the line holding `row` to end in one of
 * `any`, then asserts it says `want`; a failure names `what` and shows the log. */
static void judged(struct ts_tmux *t, const char *const *on, const char *row, const char *const *any,
		   const char *want, const char *what)
{
	char *last = NULL, *line = wait_row(t, on, row, any, 150, &last);
	if (!line || !strstr(line, want)) {
		free(last);
		last = with_log(t);
	}
	cr_assert_not_null(line, "%s: nothing came of it:\n%s", what, last);
	cr_assert(strstr(line, want), "%s: not %s but: %s\n%s", what, want, line, last);
	free(line);
	free(last);
}

Test(http_console, replay_from_here_and_banking_on_a_contained_http_run_are_a_stdio_runs, .timeout = 560)
{
	/* on the contained HTTP run, as on a stdio run: r replays from the focused turn on (over
	 * HTTP, in a fresh sandbox) and the focus line shows the re-check beside the verdict; c
	 * banks the turn, the corpus view (B) lists the case with the PASS its replay banked, and
	 * the case re-runs over HTTP, MATCH, in the view (r) and with belay corpus run */
	struct contained cx = {0};
	contained_start(&cx);
	contained_drive(&cx);

	/* r on get-sum: a re-check (result comparison only) beside "not verified" on the focus
	 * line; the row's verdict cell gets the re-check's mark */
	ts_tmux_keys(&cx.t, "r");
	const char *home[] = {"TURNS (2)", NULL}, *rechecked[] = {"re-check ↻", NULL};
	judged(&cx.t, home, "turn 1 get-sum: not verified", rechecked, "re-check ↻ ✓ PASS", "r's re-check of get-sum");
	char *screen = ts_tmux_capture(&cx.t, 0), *row = line_with(screen, "get-sum");
	cr_assert(row && strstr(row, "↻✓"), "the get-sum row has no re-check mark: %s", row ? row : screen);
	free(row), free(screen);

	/* c banks get-sum; the corpus view lists it with the verdict its replay banked */
	ts_tmux_keys(&cx.t, "c");
	ts_tmux_keys(&cx.t, "B");
	const char *view[] = {"CORPUS (1 case)", NULL}, *verdicts[] = {"PASS", "WARN", "UNVERIFIED", "FAIL", NULL};
	judged(&cx.t, view, "get-sum", verdicts, "✓ PASS", "the banked case in the corpus view");

	/* r in the corpus view: the case re-runs over HTTP, MATCH on its row */
	ts_tmux_keys(&cx.t, "r");
	const char *outcomes[] = {"MATCH", "REGRESSION", "SKIP", "STILL_MISSED", "MISS_CLOSED", NULL};
	judged(&cx.t, view, "get-sum", outcomes, "MATCH", "the case's re-run in the corpus view");
	contained_quit(&cx);

	/* outside the console: belay corpus run replays it over HTTP too */
	const char *crun[] = {BELAY_BIN, "corpus", "run", "--state", cx.cstate, NULL};
	struct ts_out o = {0};
	ts_run(crun, NULL, cx.ws, NULL, 0, 300, &o);
	cr_assert_eq(o.status, 0, "belay corpus run: %s%s", o.out, o.err);
	cr_assert(strstr(o.out, "MATCH 1 ") && strstr(o.out, "-turn1"), "the banked case did not replay: %s%s", o.out,
		  o.err);
	ts_out_free(&o);
	contained_free(&cx);
}

Test(http_console, network_allow_or_no_scope_with_a_server_the_console_starts_is_refused_by_name)
{
	/* as belay proxy: the server's port would be on the host's loopback; and a server belay
	 * starts over HTTP is always contained */
	char *ws = fs_join(dir, "ws"), *cstate = fs_join(dir, "cstate"), *sock = fs_join(dir, "n.sock");
	fs_mkdir_p(ws, 0755, NULL);
	const char *argv[] = {BELAY_BIN, "console", "--events", "--state", cstate, "--socket", sock, "--http",
			      "http://127.0.0.1:3001/mcp", "--scope", ws, "--network", "allow", "--", "true", NULL};
	struct ts_out o = {0};
	ts_run(argv, NULL, dir, NULL, 0, 60, &o);
	cr_assert_eq(o.status, 2, "%s", o.err);
	cr_assert(strstr(o.err, "--network allow") && strstr(o.err, "host's loopback"), "%s", o.err);
	ts_out_free(&o);
	const char *argv2[] = {BELAY_BIN, "console", "--events", "--state", cstate, "--socket", sock, "--http",
			       "http://127.0.0.1:3001/mcp", "--", "true", NULL};
	ts_run(argv2, NULL, dir, NULL, 0, 60, &o);
	cr_assert_eq(o.status, 2, "%s", o.err);
	cr_assert(strstr(o.err, "give --scope DIR"), "%s", o.err);
	ts_out_free(&o);
	free(sock), free(cstate), free(ws);
}
