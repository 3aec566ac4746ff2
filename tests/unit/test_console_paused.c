/* test_console_paused.c - "never in the way": a console whose terminal has stopped taking
 * output (Ctrl-S, a frozen ssh link, a pane nobody reads) must not slow the agent. The
 * console runs on a pseudo-terminal whose output is suspended (tcflow TCOOFF, what XOFF
 * does), so its UI thread blocks in its first write to the screen; the agent's calls
 * through `belay connect` must all be answered all the same. */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <pty.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

#include "common/buf.h"
#include "common/fsutil.h"
#include "common/xalloc.h"
#include "tsupport.h"

#define CALLS 3000

static pid_t console_pid = -1;

/* A failed assertion leaves the test early: the console must not outlive it. */
static void teardown(void)
{
	if (console_pid > 0) {
		kill(console_pid, SIGKILL);
		waitpid(console_pid, NULL, 0);
	}
}

TestSuite(console_paused, .fini = teardown);

/* The kernel function the console's main (UI) thread sleeps in. */
static char *main_wchan(pid_t pid)
{
	char path[64];
	snprintf(path, sizeof path, "/proc/%d/wchan", (int)pid);
	size_t n;
	char *t = ts_read_file(path, &n);
	return t ? t : xstrdup("?");
}

Test(console_paused, a_stopped_terminal_does_not_slow_the_agent, .timeout = 120)
{
	char *dir = ts_tmpdir("cpaused");
	char *st = fs_join(dir, "state"), *sock = fs_join(dir, "c.sock");
	struct winsize ws = {.ws_row = 40, .ws_col = 120};
	int master;
	pid_t pid = forkpty(&master, NULL, NULL, &ws);
	cr_assert_geq(pid, 0, "forkpty");
	console_pid = pid;
	if (pid == 0) {
		setenv("TERM", "xterm-256color", 1);
		execl(BELAY_BIN, "belay", "console", "--state", st, "--socket", sock, "--",
		      BELAY_BUILD_DIR "/bench_echo_server", (char *)NULL);
		_exit(127);
	}
	/* Suspend the terminal's output at once: whatever the UI writes first, it waits. */
	int slave = open(ptsname(master), O_RDWR | O_NOCTTY);
	cr_assert_geq(slave, 0);
	cr_assert_eq(tcflow(slave, TCOOFF), 0);
	for (int i = 0; i < 200 && access(sock, F_OK) != 0; i++)
		usleep(50 * 1000);
	cr_assert_eq(access(sock, F_OK), 0, "the console listens at %s", sock);

	struct buf in = {0};
	buf_puts(&in, "{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-06-18\","
		      "\"capabilities\":{},\"clientInfo\":{\"name\":\"t\",\"version\":\"1\"}}}\n"
		      "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n");
	for (int i = 1; i <= CALLS; i++)
		buf_printf(&in, "{\"jsonrpc\":\"2.0\",\"id\":%d,\"method\":\"tools/call\",\"params\":{\"name\":\"echo\","
				"\"arguments\":{\"i\":%d}}}\n",
			   i, i);
	const char *argv[] = {BELAY_BIN, "connect", sock, NULL};
	struct ts_out o;
	cr_assert_eq(ts_run(argv, NULL, NULL, in.p, in.len, 60, &o), 0);
	cr_assert_eq(o.status, 0, "%s", o.err);
	int replies = 0;
	for (const char *p = o.out; (p = strchr(p, '\n')); p++)
		replies++;
	cr_assert_eq(replies, CALLS + 1, "every call answered while the screen was stopped: %d (%s)", replies, o.err);

	/* And the screen really was stopped: the UI thread is still waiting in its write. */
	char *wchan = main_wchan(pid);
	cr_assert(strstr(wchan, "wait_woken") || strstr(wchan, "tty"), "the UI thread sleeps in %s", wchan);
	free(wchan);

	close(slave);
	close(master);
	ts_out_free(&o);
	buf_free(&in);
	ts_rmtree(dir);
	free(dir);
	free(st);
	free(sock);
}
