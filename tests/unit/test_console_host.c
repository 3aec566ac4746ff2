/* test_console_host.c - the console's engine side without a screen (`belay console
 * --events`): belay connect hands over the agent's stdio and mirrors the server's exit
 * status; runs come and go as events; bad hellos, a missing console, a second console on
 * the same socket and a vanished connect are all handled by name; --follow picks up the
 * traces of headless proxies. */
#include <criterion/criterion.h>
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "common/fsutil.h"
#include "common/xalloc.h"
#include "tsupport.h"

static char *dir;

static void setup(void)
{
	dir = ts_tmpdir("chost");
}

static void teardown(void)
{
	ts_sh("pkill -f 'belay console --events --state %s' 2>/dev/null; true", dir);
	ts_rmtree(dir);
	free(dir);
}

TestSuite(chost, .init = setup, .fini = teardown, .timeout = 120);

/* Starts `belay console --events` in the background (events to EVENTS); waits for SOCK. */
static void console_bg(const char *sock, const char *events, const char *extra)
{
	char *st = fs_join(dir, "state");
	cr_assert_eq(ts_sh("%s console --events --state %s --socket %s %s > %s 2>%s.err &", BELAY_BIN, st, sock, extra,
			   events, events),
		     0);
	for (int i = 0; i < 100 && access(sock, F_OK) != 0; i++)
		usleep(50 * 1000);
	cr_assert_eq(access(sock, F_OK), 0, "the console listens at %s", sock);
	free(st);
}

/* Waits until the events file holds `what`; returns its text. */
static char *wait_event(const char *events, const char *what)
{
	size_t n;
	for (int i = 0; i < 200; i++) {
		char *t = ts_read_file(events, &n);
		if (t && strstr(t, what))
			return t;
		free(t);
		usleep(50 * 1000);
	}
	char *t = ts_read_file(events, &n);
	cr_assert_fail("no %s event in:\n%s", what, t ? t : "");
	return NULL;
}

Test(chost, connect_passes_bytes_both_ways_and_mirrors_the_exit_status)
{
	char *sock = fs_join(dir, "c.sock"), *ev = fs_join(dir, "events");
	console_bg(sock, ev, "-- sh -c 'cat; exit 7'");
	const char *argv[] = {BELAY_BIN, "connect", sock, NULL};
	struct ts_out o;
	const char *in = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\n";
	cr_assert_eq(ts_run(argv, NULL, NULL, in, strlen(in), 30, &o), 0);
	cr_assert_eq(o.status, 7, "connect exits with the server's status: %d (%s)", o.status, o.err);
	cr_assert_str_eq(o.out, in, "the bytes come back verbatim through the console");
	cr_assert(strstr(o.err, "connected to the console"), "%s", o.err);
	char *t = wait_event(ev, "\"run_ended\"");
	cr_assert(strstr(t, "\"run_started\""));
	cr_assert(strstr(t, "\"a\":7"), "the run's end carries the exit status: %s", t);
	free(t);
	ts_out_free(&o);
	free(sock);
	free(ev);
}

Test(chost, no_console_is_a_named_error)
{
	char *sock = fs_join(dir, "none.sock");
	const char *argv[] = {BELAY_BIN, "connect", sock, NULL};
	struct ts_out o;
	cr_assert_eq(ts_run(argv, NULL, NULL, "", 0, 30, &o), 0);
	cr_assert_eq(o.status, 2);
	cr_assert(strstr(o.err, "no console is listening at"), "%s", o.err);
	ts_out_free(&o);
	free(sock);
}

Test(chost, a_second_console_on_the_same_socket_is_refused)
{
	char *sock = fs_join(dir, "c.sock"), *ev = fs_join(dir, "events");
	console_bg(sock, ev, "-- cat");
	char *st = fs_join(dir, "state2");
	const char *argv[] = {BELAY_BIN, "console", "--events", "--state", st, "--socket", sock, "--", "cat", NULL};
	struct ts_out o;
	cr_assert_eq(ts_run(argv, NULL, NULL, NULL, 0, 30, &o), 0);
	cr_assert_eq(o.status, 2);
	cr_assert(strstr(o.err, "another console is listening"), "%s", o.err);
	ts_out_free(&o);
	free(st);
	free(sock);
	free(ev);
}

Test(chost, the_connection_may_name_its_server_and_must_when_the_console_has_none)
{
	char *sock = fs_join(dir, "c.sock"), *ev = fs_join(dir, "events");
	console_bg(sock, ev, "");
	struct ts_out o;
	const char *bare[] = {BELAY_BIN, "connect", sock, NULL};
	cr_assert_eq(ts_run(bare, NULL, NULL, "", 0, 30, &o), 0);
	cr_assert_neq(o.status, 0);
	cr_assert(strstr(o.err, "no server to run"), "%s", o.err);
	ts_out_free(&o);
	const char *named[] = {BELAY_BIN, "connect", sock, "--", "sh", "-c", "cat; exit 3", NULL};
	cr_assert_eq(ts_run(named, NULL, NULL, "x\n", 2, 30, &o), 0);
	cr_assert_eq(o.status, 3, "%s", o.err);
	cr_assert_str_eq(o.out, "x\n");
	ts_out_free(&o);
	free(sock);
	free(ev);
}

Test(chost, a_hello_without_the_agents_stdio_is_refused)
{
	char *sock = fs_join(dir, "c.sock"), *ev = fs_join(dir, "events");
	console_bg(sock, ev, "-- cat");
	int fd = socket(AF_UNIX, SOCK_STREAM, 0);
	struct sockaddr_un a = {.sun_family = AF_UNIX};
	strcpy(a.sun_path, sock);
	cr_assert_eq(connect(fd, (struct sockaddr *)&a, sizeof a), 0);
	const char *hello = "{\"v\":1,\"pid\":1}\n";
	cr_assert_eq(write(fd, hello, strlen(hello)), (ssize_t)strlen(hello));
	char buf[512] = {0};
	ssize_t n = read(fd, buf, sizeof buf - 1);
	cr_assert_gt(n, 0);
	cr_assert(strstr(buf, "\"ok\":false") && strstr(buf, "stdin and stdout"), "%s", buf);
	close(fd);
	fd = socket(AF_UNIX, SOCK_STREAM, 0);
	cr_assert_eq(connect(fd, (struct sockaddr *)&a, sizeof a), 0);
	cr_assert_eq(write(fd, "not json\n", 9), 9);
	memset(buf, 0, sizeof buf);
	cr_assert_gt(read(fd, buf, sizeof buf - 1), 0);
	cr_assert(strstr(buf, "malformed hello"), "%s", buf);
	close(fd);
	size_t len;
	char *t = ts_read_file(ev, &len);
	cr_assert(!t || !strstr(t, "run_started"), "no run started: %s", t ? t : "");
	free(t);
	free(sock);
	free(ev);
}

Test(chost, a_vanished_connect_stops_its_run)
{
	char *sock = fs_join(dir, "c.sock"), *ev = fs_join(dir, "events"), *fifo = fs_join(dir, "in");
	console_bg(sock, ev, "-- sh -c 'cat >/dev/null'");
	cr_assert_eq(ts_sh("mkfifo %s", fifo), 0);
	/* Keep the agent's stdin open (a writer that never writes), then kill connect. */
	cr_assert_eq(ts_sh("(sleep 60 > %s &) ; %s connect %s < %s > /dev/null 2>&1 & echo $! > %s.pid", fifo, BELAY_BIN, sock,
			   fifo, fifo),
		     0);
	free(wait_event(ev, "\"run_started\""));
	cr_assert_eq(ts_sh("kill -9 $(cat %s.pid)", fifo), 0);
	free(wait_event(ev, "\"run_ended\""));
	ts_sh("pkill -f 'sleep 60' 2>/dev/null; true");
	free(fifo);
	free(sock);
	free(ev);
}

Test(chost, follow_shows_the_runs_of_headless_proxies)
{
	char *sock = fs_join(dir, "c.sock"), *ev = fs_join(dir, "events"), *td = fs_join(dir, "traces");
	cr_assert_eq(fs_mkdir_p(td, 0700, NULL), 0);
	char *extra = xasprintf("--follow %s", td);
	console_bg(sock, ev, extra);
	char *st = fs_join(dir, "pstate");
	const char *argv[] = {BELAY_BIN, "proxy", "--state", st, "--trace-dir", td, "--", "cat", NULL};
	struct ts_out o;
	const char *in = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"x\"}}\n";
	cr_assert_eq(ts_run(argv, NULL, NULL, in, strlen(in), 30, &o), 0);
	cr_assert_eq(o.status, 0, "%s", o.err);
	char *t = wait_event(ev, "\"run_ended\"");
	cr_assert(strstr(t, "\"run_started\"") && strstr(t, "\"run_committed\""), "%s", t);
	cr_assert(strstr(t, td), "the followed trace is named: %s", t);
	free(t);
	/* The followed run is in the console's store. */
	char *cst = fs_join(dir, "state");
	const char *runs[] = {BELAY_BIN, "runs", "--state", cst, NULL};
	struct ts_out r;
	cr_assert_eq(ts_run(runs, NULL, NULL, NULL, 0, 30, &r), 0);
	cr_assert(strstr(r.out, "cat"), "%s", r.out);
	ts_out_free(&r);
	ts_out_free(&o);
	free(cst);
	free(st);
	free(extra);
	free(td);
	free(sock);
	free(ev);
}
