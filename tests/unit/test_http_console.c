/* test_http_console.c - an HTTP run in the console, live: `belay console --follow DIR` under
 * tmux follows the traces `belay proxy --http` writes there, and the run of the real SDK
 * client driving server-everything (streamableHttp) through belay shows up with its calls
 * while the session is open (the client keeps its session: the run has not ended).
 *
 * Ports are chosen free at run time; every wait is for a condition on the screen or a socket
 * (with a generous deadline that only turns a hang into a failure). */
#include <arpa/inet.h>
#include <criterion/criterion.h>
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

#include "common/fsutil.h"
#include "common/xalloc.h"
#include "ts_tmux.h"
#include "ts_net.h"
#include "tsupport.h"

static char *dir, *peers;

static void setup(void)
{
	peers = ts_peers();
	cr_assert_not_null(peers, "npm test peers missing: run scripts/setup.sh (npm ci in tests/peers)");
	dir = ts_tmpdir("http-console");
}

static void teardown(void)
{
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
