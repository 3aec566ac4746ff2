/* test_loop_slice.c - the forwarding thread's short scheduler slice (proxy/loop_slice.h):
 * the thread gets the slice it asks for and keeps its nice value; threads and processes it
 * starts afterwards get the kernel's default; a thread under another policy is left alone;
 * out-of-range slices and bad --slice-us text are refused; and in the real binaries, with
 * --slice-us 100, exactly one thread - the one that forwards - runs with the short slice:
 * the main thread of `belay proxy`, the engine thread of `belay console`, never the server
 * they spawn; without the option (or with 0) none does. On a kernel without per-thread slices (before 6.12) these tests skip,
 * saying so. */
#include <criterion/criterion.h>
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/err.h"
#include "common/fsutil.h"
#include "common/xalloc.h"
#include "proxy/loop_slice.h"
#include "ts_belay.h"

/* Skips unless this kernel keeps a slice per thread (asked in a throw-away thread). */
static void *probe(void *arg)
{
	struct loop_slice s;
	*(int *)arg = loop_slice_set(LOOP_SLICE_MIN_US, &s) == 0 && s.applied;
	return NULL;
}

static void need_slices(void)
{
	int ok = 0;
	pthread_t t;
	cr_assert_eq(pthread_create(&t, NULL, probe, &ok), 0);
	pthread_join(t, NULL);
	if (!ok)
		cr_skip_test("this kernel keeps no scheduler slice per thread (Linux 6.12 and later do)");
}

Test(loop_slice, the_thread_gets_the_slice_it_asks_for)
{
	need_slices();
	unsigned before = loop_slice_of(0);
	cr_assert_gt(before, LOOP_SLICE_MIN_US, "the kernel's default (%u us) is longer than ours", before);
	struct loop_slice s;
	cr_assert_eq(loop_slice_set(LOOP_SLICE_MIN_US, &s), 0, "%s", s.why);
	cr_expect(s.applied);
	cr_expect_eq(s.was_us, before);
	cr_expect_eq(s.now_us, LOOP_SLICE_MIN_US);
	cr_expect_eq(loop_slice_of(0), LOOP_SLICE_MIN_US, "read back from the kernel");
	cr_expect_eq(loop_slice_of(gettid()), LOOP_SLICE_MIN_US, "the same thread by its id");
	cr_assert_eq(loop_slice_set(2000, &s), 0, "%s", s.why);
	cr_expect_eq(loop_slice_of(0), 2000, "any slice in range, not only the shortest");
	char line[200];
	loop_slice_describe(&s, line, sizeof line);
	cr_expect(strstr(line, "2000 us"), "%s", line);
}

Test(loop_slice, the_thread_keeps_its_nice_value)
{
	need_slices();
	cr_assert_eq(setpriority(PRIO_PROCESS, (id_t)gettid(), 7), 0);
	struct loop_slice s;
	cr_assert_eq(loop_slice_set(LOOP_SLICE_MIN_US, &s), 0, "%s", s.why);
	errno = 0;
	int nice_now = getpriority(PRIO_PROCESS, (id_t)gettid());
	cr_expect_eq(nice_now, 7, "`nice belay proxy` stays nice: %d", nice_now);
	cr_expect_eq(loop_slice_of(0), LOOP_SLICE_MIN_US);
}

static void *report_slice(void *arg)
{
	*(unsigned *)arg = loop_slice_of(0);
	return NULL;
}

Test(loop_slice, nothing_it_starts_inherits_it)
{
	need_slices();
	unsigned dflt = loop_slice_of(0);
	struct loop_slice s;
	cr_assert_eq(loop_slice_set(LOOP_SLICE_MIN_US, &s), 0, "%s", s.why);
	/* a thread started afterwards (the trace writer's, the index's) */
	unsigned in_thread = 0;
	pthread_t t;
	cr_assert_eq(pthread_create(&t, NULL, report_slice, &in_thread), 0);
	pthread_join(t, NULL);
	cr_expect_eq(in_thread, dflt, "a new thread runs with the default %u us, not %u", dflt, in_thread);
	/* a process started afterwards (the MCP server) */
	int p[2];
	cr_assert_eq(pipe(p), 0);
	pid_t pid = fork();
	if (pid == 0) {
		unsigned v = loop_slice_of(0);
		_exit(write(p[1], &v, sizeof v) == sizeof v ? 0 : 1);
	}
	unsigned in_child = 0;
	cr_assert_eq(read(p[0], &in_child, sizeof in_child), (ssize_t)sizeof in_child);
	waitpid(pid, NULL, 0);
	close(p[0]);
	close(p[1]);
	cr_expect_eq(in_child, dflt, "a forked server runs with the default %u us, not %u", dflt, in_child);
	cr_expect_eq(loop_slice_of(0), LOOP_SLICE_MIN_US, "the asking thread keeps its slice");
}

Test(loop_slice, a_thread_under_another_policy_is_left_alone)
{
	need_slices();
	struct sched_param sp = {0};
	cr_assert_eq(sched_setscheduler(0, SCHED_BATCH, &sp), 0);
	struct loop_slice s;
	cr_expect_eq(loop_slice_set(LOOP_SLICE_MIN_US, &s), BELAY_EREFUSED);
	cr_expect_not(s.applied);
	cr_expect(strstr(s.why, "policy 3"), "%s", s.why);
	cr_expect_eq(sched_getscheduler(0), SCHED_BATCH, "still SCHED_BATCH");
	cr_expect_eq(s.asked_us, LOOP_SLICE_MIN_US, "what was asked is kept for the stats");
	char line[200];
	loop_slice_describe(&s, line, sizeof line);
	cr_expect(strstr(line, "not applied: the thread runs under scheduling policy 3"), "the stats say why: %s", line);
}

Test(loop_slice, a_thread_at_negative_nice_is_left_alone)
{
	need_slices();
	if (setpriority(PRIO_PROCESS, (id_t)gettid(), -3) != 0)
		cr_skip_test("cannot lower the nice value here (needs CAP_SYS_NICE)");
	unsigned before = loop_slice_of(0);
	struct loop_slice s;
	cr_expect_eq(loop_slice_set(LOOP_SLICE_MIN_US, &s), BELAY_EREFUSED);
	cr_expect(strstr(s.why, "nice -3"), "%s", s.why);
	cr_expect_eq(loop_slice_of(0), before, "the slice is unchanged");
	/* and a process it starts keeps the nice value (reset-on-fork was not set) */
	pid_t pid = fork();
	if (pid == 0)
		_exit(getpriority(PRIO_PROCESS, 0) == -3 ? 0 : 1);
	int st = 0;
	waitpid(pid, &st, 0);
	cr_expect(WIFEXITED(st) && WEXITSTATUS(st) == 0, "the child runs at nice -3");
}

Test(loop_slice, out_of_range_is_refused_and_0_asks_nothing)
{
	unsigned before = loop_slice_of(0);
	struct loop_slice s;
	cr_expect_eq(loop_slice_set(LOOP_SLICE_MIN_US - 1, &s), BELAY_EINVAL);
	cr_expect(strstr(s.why, "outside 100..100000"), "%s", s.why);
	cr_expect_eq(loop_slice_set(LOOP_SLICE_MAX_US + 1, &s), BELAY_EINVAL);
	cr_expect_eq(loop_slice_of(0), before, "nothing changed");
	cr_expect_eq(loop_slice_set(0, &s), 0);
	cr_expect_not(s.applied);
	cr_expect_eq(s.asked_us, 0);
	cr_expect_eq(loop_slice_of(0), before);
	char line[200];
	loop_slice_describe(&s, line, sizeof line);
	cr_expect(strstr(line, "not asked"), "%s", line);
}

Test(loop_slice, the_text_of_slice_us)
{
	static const struct {
		const char *text;
		int ok;
		unsigned us;
	} cases[] = {
		{"0", 1, 0},       {"100", 1, 100}, {"100000", 1, 100000}, {"2500", 1, 2500}, {"99", 0, 0},
		{"100001", 0, 0},  {"", 0, 0},      {"x", 0, 0},           {"-100", 0, 0},    {"1e3", 0, 0},
		{"100us", 0, 0},   {" 100", 0, 0},  {"99999999999", 0, 0},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		unsigned us = 12345;
		int rc = loop_slice_parse(cases[i].text, &us);
		cr_expect_eq(rc == 0, cases[i].ok, "'%s': %d", cases[i].text, rc);
		if (cases[i].ok)
			cr_expect_eq(us, cases[i].us, "'%s': %u", cases[i].text, us);
	}
	struct ts_out o;
	ts_belay(&o, NULL, "proxy", "--no-trace", "--slice-us", "50", "--", "true", NULL);
	cr_expect_eq(o.status, 2);
	cr_expect(strstr(o.err, "--slice-us must be 0 or a whole number of microseconds from 100 to 100000, not '50'"),
		  "%s", o.err);
	ts_out_free(&o);
	ts_belay(&o, NULL, "console", "--events", "--slice-us", "x", "--", "true", NULL);
	cr_expect_eq(o.status, 2);
	cr_expect(strstr(o.err, "console: --slice-us must be 0"), "%s", o.err);
	ts_out_free(&o);
}

/* A server that waits for its first line (the proxy is up and recording by then), writes
 * the slices of its parent's threads (one per line, ns) to PARENT and its own to SELF, and
 * exits. */
static char *slice_server(const char *dir)
{
	return xasprintf("read line; for t in /proc/$PPID/task/*; do sed -n 's/^se.slice *: *//p' $t/sched; done > %s/parent; "
			 "sed -n 's/^se.slice *: *//p' /proc/$$/sched > %s/self",
			 dir, dir);
}

/* Counts the lines of FILE equal to v, and all its lines. */
static int count_slices(const char *file, unsigned long v, int *all)
{
	size_t n;
	char *t = ts_read_file(file, &n);
	cr_assert(t, "%s was not written", file);
	int hits = 0;
	*all = 0;
	for (char *line = strtok(t, "\n"); line; line = strtok(NULL, "\n")) {
		(*all)++;
		hits += strtoul(line, NULL, 10) == v;
	}
	free(t);
	return hits;
}

/* slice NULL: no --slice-us */
static void proxy_threads(const char *slice, int *short_ones, int *threads, int *server_short)
{
	char *dir = ts_tmpdir("loop-slice"), *st = fs_join(dir, "state"), *sh = slice_server(dir);
	const char *argv[] = {BELAY_BIN, "proxy", "--state", st, "--slice-us", slice, "--", "sh", "-c", sh, NULL};
	if (!slice) {
		argv[4] = "--";
		argv[5] = "sh";
		argv[6] = "-c";
		argv[7] = sh;
		argv[8] = NULL;
	}
	const char *lines[] = {"{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}", NULL};
	struct ts_out o;
	cr_assert_eq(ts_mcp_session(argv, NULL, lines, 60, &o), 0, "%s", o.err);
	ts_out_free(&o);
	char *parent = fs_join(dir, "parent"), *self = fs_join(dir, "self");
	*short_ones = count_slices(parent, LOOP_SLICE_MIN_US * 1000ul, threads);
	int one;
	*server_short = count_slices(self, LOOP_SLICE_MIN_US * 1000ul, &one);
	cr_assert_eq(one, 1, "the server read its own slice");
	free(parent);
	free(self);
	free(sh);
	free(st);
	ts_rmtree(dir);
	free(dir);
}

Test(loop_slice, the_proxy_forwards_on_the_one_thread_with_the_short_slice, .timeout = 120)
{
	need_slices();
	int short_ones, threads, server_short;
	proxy_threads("100", &short_ones, &threads, &server_short);
	cr_expect_eq(short_ones, 1, "one thread of %d (the loop) has the short slice: %d", threads, short_ones);
	cr_expect_gt(threads, 1, "the trace writer runs beside it, with the default");
	cr_expect_eq(server_short, 0, "the server keeps the kernel's default");
	proxy_threads("0", &short_ones, &threads, &server_short);
	cr_expect_eq(short_ones, 0, "--slice-us 0: none of %d threads", threads);
	proxy_threads(NULL, &short_ones, &threads, &server_short);
	cr_expect_eq(short_ones, 0, "by default: none of %d threads", threads);
}

/* One run through `belay console --events [extra]`: the short slices among the console's
 * threads, and the server's. */
static int console_threads(const char *extra, int *threads, int *server_short)
{
	char *dir = ts_tmpdir("loop-slice"), *st = fs_join(dir, "state"), *sock = fs_join(dir, "c.sock");
	char *sh = slice_server(dir);
	cr_assert_eq(ts_sh("%s console --events --state %s --socket %s %s > %s/events 2>&1 &", BELAY_BIN, st, sock,
			   extra, dir),
		     0);
	for (int i = 0; i < 100 && access(sock, F_OK) != 0; i++)
		usleep(50 * 1000);
	const char *argv[] = {BELAY_BIN, "connect", sock, "--", "sh", "-c", sh, NULL};
	struct ts_out o;
	cr_assert_eq(ts_run(argv, NULL, NULL, "", 0, 60, &o), 0);
	cr_expect_eq(o.status, 0, "%s", o.err);
	ts_out_free(&o);
	ts_sh("pkill -f 'belay console --events --state %s' 2>/dev/null; true", st);
	char *parent = fs_join(dir, "parent"), *self = fs_join(dir, "self");
	int one;
	int short_ones = count_slices(parent, LOOP_SLICE_MIN_US * 1000ul, threads);
	*server_short = count_slices(self, LOOP_SLICE_MIN_US * 1000ul, &one);
	free(parent);
	free(self);
	free(sh);
	free(sock);
	free(st);
	ts_rmtree(dir);
	free(dir);
	return short_ones;
}

Test(loop_slice, the_console_forwards_on_its_engine_thread_with_the_short_slice, .timeout = 120)
{
	need_slices();
	int threads, server_short;
	int short_ones = console_threads("--slice-us 100", &threads, &server_short);
	cr_expect_eq(short_ones, 1, "one thread of %d (the engine's) has the short slice: %d", threads, short_ones);
	cr_expect_gt(threads, 1, "the UI thread and the others keep the default");
	cr_expect_eq(server_short, 0, "the server keeps the default");
	short_ones = console_threads("", &threads, &server_short);
	cr_expect_eq(short_ones, 0, "by default: none of %d threads", threads);
}
