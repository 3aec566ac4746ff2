/* test_console_start.c - the console never surprises (issue 12 item 4): what an agent would
 * otherwise be the first to hit (a scope that does not exist, a server that is not there, a
 * bad gate policy) is refused at start, by name, before the socket listens; a console whose
 * stdout is not a terminal refuses instead of writing screen codes into the pipe; `q` on the
 * first view asks before leaving, live run or not; the log's times are those of the events,
 * not of the last redraw before an idle spell. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "common/fsutil.h"
#include "common/xalloc.h"
#include "ts_tmux.h"
#include "tsupport.h"

static char *dir;

static void setup(void)
{
	dir = ts_tmpdir("cstart");
}

static void teardown(void)
{
	ts_rmtree(dir);
	free(dir);
}

TestSuite(cstart, .init = setup, .fini = teardown, .timeout = 120);

/* `belay console ARGS` with pipes for stdio (not a terminal); asserts it ends quickly. */
static void console_refused(const char *const *args, const char *want)
{
	char *st = fs_join(dir, "state"), *sock = fs_join(dir, "c.sock");
	const char *argv[24] = {BELAY_BIN, "console", "--state", st, "--socket", sock};
	int n = 6;
	for (int i = 0; args[i] && n < 23; i++)
		argv[n++] = args[i];
	argv[n] = NULL;
	struct ts_out o;
	cr_assert_eq(ts_run(argv, NULL, NULL, NULL, 0, 20, &o), 0);
	cr_assert_eq(o.status, 2, "refused as a usage error (%d): %s", o.status, o.err);
	cr_assert(strstr(o.err, want), "the error names it (%s): %s", want, o.err);
	cr_assert_eq(o.out_len, 0, "nothing on stdout: %s", o.out);
	cr_assert_neq(access(sock, F_OK), 0, "nothing listened");
	ts_out_free(&o);
	free(st);
	free(sock);
}

Test(cstart, a_missing_scope_is_refused_at_start_not_when_an_agent_connects)
{
	const char *a[] = {"--events", "--scope", "/nonexistent/belay-ws", "--", "sh", "-c", "cat", NULL};
	console_refused(a, "--scope /nonexistent/belay-ws: not an existing directory");
	const char *b[] = {"--events", "--scope", "/", "--", "sh", NULL};
	console_refused(b, "refusing / as a scope");
}

Test(cstart, a_server_that_is_not_there_is_refused_at_start)
{
	const char *a[] = {"--events", "--", "no-such-mcp-server-x", "--flag", NULL};
	console_refused(a, "the server command 'no-such-mcp-server-x' is not on PATH");
	const char *b[] = {"--events", "--", "/nonexistent/server", NULL};
	console_refused(b, "/nonexistent/server is not an executable file");
}

Test(cstart, a_bad_gate_policy_is_refused_at_start)
{
	char *pol = fs_join(dir, "policy.json");
	ts_write_file(pol, "{not json", 9);
	const char *a[] = {"--events", "--mode", "enforce", "--policy", pol, "--", "sh", NULL};
	console_refused(a, "--policy");
	free(pol);
}

Test(cstart, stdout_not_a_terminal_is_refused_with_a_message)
{
	const char *a[] = {"--", "sh", "-c", "cat", NULL};
	console_refused(a, "stdout is not a terminal");
}

static char *wait_for(struct ts_tmux *t, const char *const *needles, int timeout)
{
	char *last = NULL;
	char *scr = ts_tmux_wait(t, needles, timeout, &last);
	if (!scr) {
		char *msg = xasprintf("timed out waiting for \"%s\"; the screen:\n%s", needles[0], last ? last : "");
		free(last);
		cr_assert_fail("%s", msg);
	}
	return scr;
}

static void start_console(struct ts_tmux *t)
{
	char *st = fs_join(dir, "state"), *sock = fs_join(dir, "c.sock"), *ws = fs_join(dir, "ws");
	fs_mkdir_p(ws, 0755, NULL);
	char *cmd = xasprintf("env LANG=C.UTF-8 TZ=UTC TERM=xterm-256color %s console --state %s --socket %s -- %s/belay-demo-server "
			      "all %s 2>%s/console.err",
			      BELAY_BIN, st, sock, BELAY_BUILD_DIR, ws, dir);
	cr_assert_eq(ts_tmux_start(t, dir, 100, 30, cmd), 0);
	const char *up[] = {"belay console", "belay connect", NULL};
	free(wait_for(t, up, 30));
	free(cmd);
	free(st);
	free(sock);
	free(ws);
}

Test(cstart, q_on_the_first_view_asks_before_leaving)
{
	struct ts_tmux t;
	start_console(&t);
	ts_tmux_keys(&t, "q");
	const char *ask[] = {"leave the console? [y/N]", NULL};
	free(wait_for(&t, ask, 10));
	ts_tmux_keys(&t, "n");
	const char *cancelled[] = {"cancelled", NULL};
	free(wait_for(&t, cancelled, 10));
	cr_assert(ts_tmux_alive(&t), "n keeps the console");
	/* Esc is back too: the same question. Then y leaves. */
	ts_tmux_keys(&t, "Escape");
	free(wait_for(&t, ask, 10));
	ts_tmux_keys(&t, "y");
	for (int i = 0; i < 100 && ts_tmux_alive(&t); i++)
		usleep(100 * 1000);
	cr_assert(!ts_tmux_alive(&t), "y leaves");
	ts_tmux_kill(&t);
}

Test(cstart, the_log_stamps_events_with_their_own_time_after_an_idle_spell)
{
	struct ts_tmux t;
	start_console(&t);
	sleep(3); /* idle: nothing to redraw */
	time_t before = time(NULL);
	char *sock = fs_join(dir, "c.sock");
	char *cmd = xasprintf("printf '%%s\\n' '{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":"
			      "\"2025-06-18\",\"capabilities\":{},\"clientInfo\":{\"name\":\"t\",\"version\":\"1\"}}}' | %s connect %s "
			      ">/dev/null 2>&1",
			      BELAY_BIN, sock);
	cr_assert_eq(ts_sh("%s", cmd), 0);
	const char *ended[] = {"ended", NULL};
	free(wait_for(&t, ended, 30));
	ts_tmux_keys(&t, "E");
	const char *logv[] = {"LOG", "new run", NULL};
	char *scr = wait_for(&t, logv, 10);
	const char *p = strstr(scr, "new run");
	while (p > scr && p[-1] != '\n')
		p--;
	int hh, mm, ss;
	cr_assert_eq(sscanf(p, " %d:%d:%d", &hh, &mm, &ss), 3, "a time before the message: %.80s", p);
	struct tm tm;
	gmtime_r(&before, &tm);
	long stamp = hh * 3600L + mm * 60 + ss, want = tm.tm_hour * 3600L + tm.tm_min * 60 + tm.tm_sec;
	if (stamp < want - 43200)
		stamp += 86400; /* across midnight */
	cr_assert_geq(stamp, want, "the new run is stamped %02d:%02d:%02d, before it happened (%02d:%02d:%02d):\n%s", hh, mm,
		      ss, tm.tm_hour, tm.tm_min, tm.tm_sec, scr);
	free(scr);
	free(cmd);
	free(sock);
	ts_tmux_keys(&t, "Q");
	ts_tmux_kill(&t);
}
