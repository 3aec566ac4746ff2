/* test_live_index.c - the live store writer (index/store_writer.h) as the proxy runs it:
 * at idle priority it still indexes every line of the trace, once and in trace order, also
 * when its queue overflows again and again and lines are read back from the file while the
 * CPUs are busy; a priority that cannot be lowered is reported in its counters (and by
 * `belay proxy`) and is not an error; it yields to traffic in time too, indexing a burst
 * once the lines pause and traffic that never pauses at least every batch_ms. */
#include <criterion/criterion.h>
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <seccomp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "common/buf.h"
#include "common/fsutil.h"
#include "common/xalloc.h"
#include "trace/trace_writer.h"
#include "index/store_writer.h"
#include "ts_belay.h"
#include "tsupport.h"

static char *dir, *state, *db;

static void setup(void)
{
	ts_state_setup("live-index", &dir, &state, &db);
}

static void teardown(void)
{
	ts_state_teardown(dir, state, db);
}

TestSuite(live_index, .init = setup, .fini = teardown, .timeout = 120);

/* What the worker's thread ran at when it committed (committed runs on that thread). */
static int committed_policy = -1;

static int commits; /* batches committed so far */

static void on_committed(void *ctx)
{
	(void)ctx;
	committed_policy = sched_getscheduler(0);
	__atomic_add_fetch(&commits, 1, __ATOMIC_SEQ_CST);
}

/* Threads that keep every CPU busy at normal priority while the trace is written, so an
 * idle-priority worker is starved and must catch up afterwards. */
static volatile int hog_stop;

static void *hog(void *arg)
{
	(void)arg;
	volatile unsigned long x = 0;
	while (!hog_stop)
		x++;
	return NULL;
}

/* Waits until the store holds every line the trace writer has written so far. */
static void wait_caught_up(struct trace_writer *tw)
{
	for (int i = 0; i < 4000; i++) {
		usleep(5000);
		uint64_t kept = trace_writer_kept_bytes(tw);
		if (trace_writer_backlog(tw) == 0 && access(db, F_OK) == 0 &&
		    ts_sql_int(db, "SELECT count(*) FROM sqlite_master WHERE name = 'runs'") == 1 &&
		    ts_sql_int(db, "SELECT coalesce(max(indexed_bytes), 0) FROM runs") == (long long)kept)
			return;
	}
	cr_assert_fail("the store writer never caught up");
}

/* Writes `frames` frames of mixed sizes (a request, a response, now and then 64 KiB)
 * through a trace writer whose tap feeds a store writer holding at most queue_max bytes,
 * then checks the run view holds every frame once, in trace order, at its line's offset. */
/* The tap, counted; and the hook that holds the worker's first offers until the tap has
 * spilled one more line (so the offer is withdrawn). */
static int taps, held;

static void counting_tap(void *ctx, uint64_t off, const char *line, size_t len)
{
	store_writer_tap(ctx, off, line, len);
	__atomic_add_fetch(&taps, 1, __ATOMIC_SEQ_CST);
}

static void hold_offer(void *ctx)
{
	(void)ctx;
	if (held >= 3)
		return;
	int t0 = __atomic_load_n(&taps, __ATOMIC_SEQ_CST);
	for (int i = 0; i < 50000 && __atomic_load_n(&taps, __ATOMIC_SEQ_CST) == t0; i++)
		usleep(100);
	__atomic_add_fetch(&held, 1, __ATOMIC_SEQ_CST);
}

/* A trace writer at `trace` whose lines `tap` hands to a store writer made with `so`, both
 * started. */
static struct trace_writer *start_pair(const char *trace, const struct store_writer_opts *so,
				       void (*tap)(void *, uint64_t, const char *, size_t), struct store_writer **sw)
{
	*sw = store_writer_new(state, so);
	struct trace_writer_opts to = {.on_line = tap, .line_ctx = *sw};
	struct trace_writer *tw = NULL;
	struct err e = {0};
	cr_assert_eq(trace_writer_open_path(trace, &to, &tw, &e), 0, "%s", e.msg);
	cr_assert_eq(store_writer_start(*sw, trace, &e), 0, "%s", e.msg);
	return tw;
}

static struct store_writer_stats run(size_t queue_max, int frames, int busy)
{
	char *trace = fs_join(dir, "t.jsonl");
	struct store_writer_opts so = {.queue_max = queue_max, .batch_ms = 5, .committed = on_committed};
	if (busy < 0)
		so.test_before_offer = hold_offer;
	struct store_writer *sw;
	struct trace_writer *tw = start_pair(trace, &so, counting_tap, &sw);
	struct err e = {0};
	long cores = sysconf(_SC_NPROCESSORS_ONLN);
	pthread_t hogs[8];
	int nhogs = busy > 0 ? (cores > 8 ? 8 : (int)cores) : 0;
	hog_stop = 0;
	for (int i = 0; i < nhogs; i++)
		cr_assert_eq(pthread_create(&hogs[i], NULL, hog, NULL), 0);
	struct buf f = {0};
	for (int i = 0; i < frames; i++) {
		buf_reset(&f);
		if (i % 2 == 0)
			buf_printf(&f, "{\"jsonrpc\":\"2.0\",\"id\":%d,\"method\":\"tools/call\",\"params\":{\"name\":\"echo\"}}", i);
		else
			buf_printf(&f, "{\"jsonrpc\":\"2.0\",\"id\":%d,\"result\":{\"content\":[]}}", i - 1);
		if (i % 97 == 0) { /* now and then a large notification */
			buf_reset(&f);
			buf_puts(&f, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/blob\",\"params\":{\"d\":\"");
			while (f.len < 65536 - 4)
				buf_putc(&f, 'a' + (char)(f.len % 26));
			buf_puts(&f, "\"}}");
		}
		trace_writer_frame(tw, i % 2 ? "s2c" : "c2s", f.p, f.len, f.len, 0, NULL, NULL, NULL);
		if (busy == 0 && i % 500 == 499)
			wait_caught_up(tw); /* so that the next large frame overflows the queue again */
		if (busy < 0 && i % 8 == 0)
			usleep((useconds_t)(i * 7919 % 4000)); /* pauses of every length: hand-overs at every point */
		if (busy < 0 && i == frames - 1 && __atomic_load_n(&held, __ATOMIC_SEQ_CST) < 3 && frames < 60000)
			frames++; /* keep the traffic going until three offers were held */
	}
	buf_free(&f);
	cr_assert_eq(trace_writer_close(tw, &e), 0, "%s", e.msg);
	hog_stop = 1;
	for (int i = 0; i < nhogs; i++)
		pthread_join(hogs[i], NULL);
	struct store_writer_stats st;
	cr_assert_eq(store_writer_close(sw, &st), 0, "indexing failed");

	/* Every line of the trace was indexed (the open and close records too), once. */
	size_t len = 0;
	char *text = ts_read_file(trace, &len);
	uint64_t lines = 0;
	struct buf want = {0};
	for (size_t off = 0, start = 0; off < len; off++) {
		if (text[off] != '\n')
			continue;
		if (memmem(text + start, off - start, "\"kind\":\"frame\"", 14))
			buf_printf(&want, "%zu|%zu\n", start, off + 1 - start);
		lines++;
		start = off + 1;
	}
	buf_cstr(&want);
	cr_assert_eq(st.lines, lines, "%llu of %llu line(s) indexed", (unsigned long long)st.lines,
		     (unsigned long long)lines);
	cr_assert_eq(ts_sql_int(db, "SELECT count(*) FROM frames"), frames);
	/* each overflow read back at least its own line (a miscounted spill shows here) */
	cr_assert_leq(st.spills, st.spilled, "%llu overflow(s), %llu line(s) read back", (unsigned long long)st.spills,
		      (unsigned long long)st.spilled);
	cr_assert_eq(ts_sql_int(db, "SELECT indexed_bytes FROM runs"), (long long)len, "the live index stopped early");
	/* In trace order: seq 1.. at ascending offsets, each the offset and length of its line. */
	char *got = ts_sql_dump(db, "SELECT off, len FROM frames ORDER BY seq");
	cr_assert_str_eq(got, want.p, "the frames' offsets are not their lines' in trace order");
	cr_assert_eq(ts_sql_int(db, "SELECT count(DISTINCT seq) FROM frames"), frames);
	free(got);
	buf_free(&want);
	free(text);
	free(trace);
	return st;
}

Test(live_index, every_line_is_indexed_at_idle_priority)
{
	struct store_writer_stats st = run(0, 1000, 0);
	cr_assert(st.idle_priority, "the worker did not lower its priority (errno %d)", st.priority_errno);
	cr_assert_gt(st.cpu_ns, 0, "the worker's CPU time was not read"); /* the proxy's `cpu:` line reports it */
	cr_assert_eq(committed_policy, SCHED_IDLE, "the worker committed at policy %d, not SCHED_IDLE",
		     committed_policy);
}

Test(live_index, a_starved_idle_worker_catches_up_from_the_trace_in_order)
{
	/* Every CPU busy at normal priority while the trace is written: the idle-priority
	 * worker hardly runs, its queue overflows, and it reads the rest back afterwards. */
	struct store_writer_stats st = run(64 << 10, 2000, 1);
	cr_assert(st.idle_priority);
	cr_assert_geq(st.spills, 1, "the queue never overflowed: the test proves nothing");
	cr_assert_gt(st.spilled, 0);
}

Test(live_index, a_queue_that_overflows_again_and_again_keeps_every_line_in_order)
{
	/* A queue of 3,000 bytes with pauses in the traffic: overflow, catch up, queue again,
	 * overflow again (the tap and the idle worker hand over without a shared lock). */
	struct store_writer_stats st = run(3000, 3000, 0);
	cr_assert_gt(st.spills, 1, "the queue never overflowed twice: the test proves nothing (%llu)",
		     (unsigned long long)st.spills);
	cr_assert_gt(st.spilled, 0);
}

/* belay proxy -- cat with BELAY_PROXY_STATS: forwards the frame and prints the trace
 * writer's counters and the index's, whose priority part is `prio`. */
static void proxy_stats_say(const char *prio)
{
	const char *env[] = {"BELAY_PROXY_STATS=1", NULL};
	const char *argv[] = {BELAY_BIN, "proxy", "--state", state, "--", "cat", NULL};
	const char *in = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\n";
	struct ts_out o;
	ts_run(argv, env, dir, in, strlen(in), 30, &o);
	cr_assert_eq(o.status, 0, "%s", o.err);
	cr_assert_str_eq(o.out, in);
	cr_assert(strstr(o.err, "belay: trace: "), "%s", o.err);
	cr_assert(strstr(o.err, "back-pressure 0 time(s)"), "%s", o.err);
	cr_assert(strstr(o.err, "belay: index: "), "%s", o.err);
	cr_assert(strstr(o.err, prio), "%s", o.err);
	cr_assert(strstr(o.err, "waited at most "), "%s", o.err);
	cr_assert(strstr(o.err, "belay: cpu: loop ") && strstr(o.err, ", index "), "%s", o.err);
	ts_out_free(&o);
}

/* A filter making sched_setscheduler fail, as a container's policy may. */
static void refuse_setscheduler(void)
{
	scmp_filter_ctx f = seccomp_init(SCMP_ACT_ALLOW);
	cr_assert(f);
	cr_assert_eq(seccomp_rule_add(f, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(sched_setscheduler), 0), 0);
	cr_assert_eq(seccomp_rule_add(f, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(sched_setattr), 0), 0);
	cr_assert_eq(seccomp_load(f), 0);
	seccomp_release(f);
}

Test(live_index, the_tap_and_the_worker_race_through_many_hand_overs)
{
	/* Irregular pauses in the traffic: offers taken, offers withdrawn because the tap had
	 * already written past them, over and over; still every line once, in order. */
	refuse_setscheduler(); /* at normal priority, so that the worker races the tap however busy the machine */
	struct store_writer_stats st = run(3000, 3000, -1);
	cr_assert_gt(st.spills, 1);
	cr_assert_geq(st.withdrawn, 3, "%llu offer(s) withdrawn: the test proves nothing", (unsigned long long)st.withdrawn);
}

Test(live_index, a_priority_that_cannot_be_lowered_is_reported_not_fatal)
{
	refuse_setscheduler();
	struct store_writer_stats st = run(0, 300, 0);
	cr_assert_eq(st.idle_priority, 0);
	cr_assert_eq(st.priority_errno, EPERM);
	cr_assert_eq(st.failed, 0);
	cr_assert_neq(committed_policy, SCHED_IDLE);

	/* belay proxy forwards, records and indexes all the same, and says so. */
	proxy_stats_say("at normal priority (SCHED_IDLE refused: Operation not permitted)");
}

Test(live_index, belay_proxy_reports_idle_priority_and_back_pressure)
{
	proxy_stats_say(", at idle priority, ");
}

Test(live_index, the_gather_wait_ends_at_a_pause_or_at_the_bound)
{
	const uint64_t ms = 1000000;
	struct {
		uint64_t now, woke, last, quiet, max, want;
	} c[] = {
	    {100 * ms, 100 * ms, 100 * ms, 5 * ms, 1000 * ms, 5 * ms},	     /* a line just came: a whole pause to go */
	    {102 * ms, 100 * ms, 100 * ms, 5 * ms, 1000 * ms, 3 * ms},	     /* part of it */
	    {105 * ms, 100 * ms, 100 * ms, 5 * ms, 1000 * ms, 0},	     /* paused: index now */
	    {300 * ms, 100 * ms, 100 * ms, 5 * ms, 1000 * ms, 0},	     /* long since */
	    {500 * ms, 100 * ms, 499 * ms, 5 * ms, 1000 * ms, 4 * ms},	     /* lines keep coming: wait on */
	    {1099 * ms, 100 * ms, 1099 * ms, 5 * ms, 1000 * ms, 1 * ms},     /* the bound is nearer than the pause */
	    {1100 * ms, 100 * ms, 1100 * ms, 5 * ms, 1000 * ms, 0},	     /* the bound: index however busy */
	    {100 * ms, 100 * ms, 0, 5 * ms, 1000 * ms, 0},		     /* no line at all: nothing to wait for */
	    {100 * ms, 100 * ms, 101 * ms, 5 * ms, 1000 * ms, 5 * ms},	     /* a line stamped after now (another CPU's clock read) */
	};
	for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
		uint64_t got = store_writer_gather_wait(c[i].now, c[i].woke, c[i].last, c[i].quiet, c[i].max);
		cr_expect_eq(got, c[i].want, "case %zu: waits %llu ns, not %llu", i, (unsigned long long)got,
			     (unsigned long long)c[i].want);
	}
}

/* Feeds one small frame every 5 ms for `feed_ms` through a trace writer tapped by a store
 * writer with these bounds; returns how many batches were committed while the frames came,
 * and (after closing) the stats; every frame is indexed in the end. */
static uint64_t mono_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

/* *stalls (when not NULL): how many times the feeding thread itself was held up for half the
 * quiet bound or more between two lines (a loaded machine): a pause the writer may rightly
 * take for one. */
static int feed_steadily(unsigned quiet_ms, unsigned batch_ms, int feed_ms, struct store_writer_stats *st, int *stalls)
{
	char *trace = fs_join(dir, "steady.jsonl");
	struct store_writer_opts so = {.quiet_ms = quiet_ms, .batch_ms = batch_ms, .committed = on_committed};
	struct store_writer *sw;
	struct trace_writer *tw = start_pair(trace, &so, store_writer_tap, &sw);
	struct err e = {0};
	usleep(50 * 1000); /* the open record's batch */
	int before = __atomic_load_n(&commits, __ATOMIC_SEQ_CST), n = 0;
	uint64_t last = mono_ms();
	if (stalls)
		*stalls = 0;
	for (int t = 0; t < feed_ms; t += 5, n++) {
		const char *f = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}";
		uint64_t now = mono_ms();
		if (stalls && n > 0 && now - last >= quiet_ms / 2)
			++*stalls;
		last = now;
		trace_writer_frame(tw, "c2s", f, strlen(f), strlen(f), 0, NULL, NULL, NULL);
		usleep(5000);
	}
	int during = __atomic_load_n(&commits, __ATOMIC_SEQ_CST) - before;
	/* and once they stop, the pause (or the bound) ends the wait: all indexed before closing */
	long long got = 0;
	for (int i = 0; i < 600 && (got = ts_sql_int(db, "SELECT count(*) FROM frames")) < n; i++)
		usleep(5000);
	cr_assert_eq(got, n, "%lld of %d frame(s) indexed 3 s after the lines stopped", got, n);
	cr_assert_eq(trace_writer_close(tw, &e), 0, "%s", e.msg);
	cr_assert_eq(store_writer_close(sw, st), 0);
	cr_assert_eq(ts_sql_int(db, "SELECT count(*) FROM frames"), n, "not every frame was indexed");
	free(trace);
	return during;
}

Test(live_index, a_burst_is_indexed_once_the_lines_pause)
{
	/* Lines every 5 ms, a pause of 400 ms needed: nothing is indexed while they come (one
	 * batch allowed, and one more for each time the feeding thread itself was held up long
	 * enough to look like a pause: it failed once beside two CPU hogs and a build). */
	struct store_writer_stats st;
	int stalls = 0;
	int during = feed_steadily(400, 60000, 1500, &st, &stalls);
	cr_assert_leq(during, 1 + stalls, "%d batch(es) committed while the lines came (the feeder stalled %d time(s))",
		      during, stalls);
	cr_assert_eq(st.lagged, 0);
	cr_assert_geq(st.paused, 1);
}

Test(live_index, traffic_that_never_pauses_is_indexed_at_least_every_batch_ms)
{
	/* Lines every 5 ms, a pause of a minute needed, at most 100 ms of waiting: ~15 batches
	 * in 1.5 s (at least 4 asked, for a busy machine). */
	struct store_writer_stats st;
	int during = feed_steadily(60000, 100, 1500, &st, NULL);
	cr_assert_geq(during, 4, "only %d batch(es) committed while the lines came", during);
	cr_assert_geq(st.lagged, 4);
	cr_assert_geq(st.max_wait_ns, 100 * 1000000ull);
}
