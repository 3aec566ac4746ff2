/* test_trace_threads.c - the trace writer's threads: the idle writer runs at SCHED_IDLE and
 * the rescue and its serialisers at the normal priority; adding never waits for a writer
 * thread, even one held inside its batch; a starved idle writer is rescued by the backlog
 * mark and by the lag bound, each with the other off. */
#include <criterion/criterion.h>
#include <dirent.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

#include "common/buf.h"
#include "common/fsutil.h"
#include "trace/trace_reader.h"
#include "trace/trace_writer.h"
#include "tsupport.h"

static char *dir;

static void setup(void)
{
	dir = ts_tmpdir("trace-threads");
}

static void teardown(void)
{
	ts_rmtree(dir);
	free(dir);
}

TestSuite(trace_threads, .init = setup, .fini = teardown);

static size_t count_lines(const char *path)
{
	size_t n = 0, lines = 0;
	char *text = ts_read_file(path, &n);
	for (size_t i = 0; text && i < n; i++)
		lines += text[i] == '\n';
	free(text);
	return lines;
}

/* Waits up to 10 s for the file to have `want` lines; returns how many it has. */
static size_t wait_lines(const char *path, size_t want)
{
	size_t n = 0;
	for (int i = 0; i < 2000 && (n = count_lines(path)) < want; i++)
		usleep(5 * 1000);
	return n;
}

static void check_trace(const char *path, size_t records)
{
	struct err e = {0};
	struct trace *t = NULL;
	cr_assert_eq(trace_read(path, &t, &e), 0, "%s", e.msg);
	cr_assert_eq(trace_validate(t, &e), 0, "%s", e.msg);
	cr_assert_eq(t->n, records);
	trace_free(t);
}

static void frame_of(struct buf *b, size_t n, int k)
{
	buf_reset(b);
	buf_printf(b, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/blob\",\"params\":{\"k\":%d,\"d\":\"", k);
	while (b->len < n - 3)
		buf_putc(b, (char)('a' + (b->len + (size_t)k) % 26));
	buf_puts(b, "\"}}");
}

/*==== priorities ====*/

/* The scheduling policy of every thread of this process named `name`: how many there are
 * (*n) and how many of them run under `policy`. */
static int threads_under(const char *name, int policy, int *n)
{
	DIR *d = opendir("/proc/self/task");
	cr_assert_not_null(d);
	struct dirent *de;
	int under = 0;
	*n = 0;
	while ((de = readdir(d)) != NULL) {
		if (de->d_name[0] == '.')
			continue;
		char p[300], comm[64] = "";
		snprintf(p, sizeof p, "/proc/self/task/%s/comm", de->d_name);
		FILE *f = fopen(p, "r");
		if (!f)
			continue;
		if (fgets(comm, sizeof comm, f))
			comm[strcspn(comm, "\n")] = 0;
		fclose(f);
		if (strcmp(comm, name) != 0)
			continue;
		(*n)++;
		under += sched_getscheduler((pid_t)atoi(de->d_name)) == policy;
	}
	closedir(d);
	return under;
}

/* Enough large frames at once to cross the rescue's mark: the rescue pools them. */
static void bulk(struct trace_writer *w, int frames)
{
	struct buf b = {0};
	for (int i = 0; i < frames; i++) {
		frame_of(&b, 65536, i);
		trace_writer_frame(w, "c2s", b.p, b.len, b.len, 0, NULL, NULL, NULL);
	}
	buf_free(&b);
}

Test(trace_threads, normal_priority_keeps_the_writer_at_sched_other)
{
	struct err e = {0};
	struct trace_writer *w = NULL;
	char *path = fs_join(dir, "normal.jsonl");
	struct trace_writer_opts o = {.normal_priority = 1};
	cr_assert_eq(trace_writer_open_path(path, &o, &w, &e), 0, "%s", e.msg);
	cr_assert_eq(wait_lines(path, 1), 1);
	int n, under = threads_under("belay-trace", SCHED_OTHER, &n);
	cr_assert_eq(n, 1);
	cr_assert_eq(under, 1);
	struct trace_writer_stats st;
	trace_writer_stats(w, &st);
	cr_assert_eq(st.idle_priority, 0);
	cr_assert_eq(st.priority_errno, 0, "not refused: not asked");
	cr_assert_eq(trace_writer_close(w, &e), 0, "%s", e.msg);
	free(path);
}

/*==== holding the idle writer ====*/

static struct {
	atomic_int starve;   /* the idle writer may not take the role (phase 0) */
	atomic_int in_batch; /* the idle writer is held inside its batch, holding the role (phase 1) */
	atomic_int hold_batch;
	atomic_int in_serial; /* ... or serialising its batch, outside the role (phase 2) */
	atomic_int hold_serial;
	atomic_int release;
} hold;

static void hold_writer(void *ctx, int thread, int phase)
{
	(void)ctx;
	if (thread != 0)
		return;
	if (phase == 0) {
		while (atomic_load(&hold.starve))
			usleep(1000);
	} else if (phase == 1 && atomic_exchange(&hold.hold_batch, 0)) {
		atomic_store(&hold.in_batch, 1);
		while (!atomic_load(&hold.release))
			usleep(1000);
	} else if (phase == 2 && atomic_exchange(&hold.hold_serial, 0)) {
		atomic_store(&hold.in_serial, 1);
		while (!atomic_load(&hold.release))
			usleep(1000);
	}
}

static void hold_reset(void)
{
	atomic_store(&hold.starve, 0);
	atomic_store(&hold.in_batch, 0);
	atomic_store(&hold.hold_batch, 0);
	atomic_store(&hold.in_serial, 0);
	atomic_store(&hold.hold_serial, 0);
	atomic_store(&hold.release, 0);
}

struct adds {
	struct trace_writer *w;
	int n;
	atomic_int done;
};

static void *add_many(void *arg)
{
	struct adds *a = arg;
	struct trace_rec *d = NULL;
	for (int i = 0; i < a->n; i++)
		trace_writer_frame(a->w, "c2s", "{\"id\":1}", 8, 8, 0, NULL, NULL, i == a->n / 2 ? &d : NULL);
	trace_writer_set_handle(a->w, d, NULL);
	struct trace_writer_stats st;
	trace_writer_stats(a->w, &st);
	(void)trace_writer_backlog(a->w);
	(void)trace_writer_over_high(a->w);
	atomic_store(&a->done, 1);
	return NULL;
}

/* The writer is held inside its batch (holding the writer's role) while another thread adds
 * 20,000 records, completes a deferred one and reads the counters: none of it may wait for
 * the held writer. An adder that took a lock the writer holds would hang here. */
Test(trace_threads, adding_never_waits_for_a_writer_held_inside_its_batch)
{
	hold_reset();
	struct err e = {0};
	struct trace_writer *w = NULL;
	char *path = fs_join(dir, "nowait.jsonl");
	struct trace_writer_opts o = {.test_writer = hold_writer};
	atomic_store(&hold.hold_batch, 1);
	cr_assert_eq(trace_writer_open_path(path, &o, &w, &e), 0, "%s", e.msg);
	for (int i = 0; i < 2000 && !atomic_load(&hold.in_batch); i++)
		usleep(5 * 1000);
	cr_assert(atomic_load(&hold.in_batch), "the idle writer took the open record's batch");
	struct adds a = {.w = w, .n = 20000};
	pthread_t t;
	pthread_create(&t, NULL, add_many, &a);
	for (int i = 0; i < 4000 && !atomic_load(&a.done); i++)
		usleep(5 * 1000);
	int done = atomic_load(&a.done);
	cr_assert_eq(count_lines(path), 0, "nothing is written while the role is held");
	atomic_store(&hold.release, 1);
	pthread_join(t, NULL);
	cr_assert(done, "an adder waited for the writer held inside its batch");
	cr_assert_eq(trace_writer_close(w, &e), 0, "%s", e.msg);
	check_trace(path, 20002);
	free(path);
}

/* A writer whose idle thread never gets the CPU (held before it takes the role), with the
 * rescue's lag bound at lag_ms (0: the default). */
static struct trace_writer *open_starved(const char *name, unsigned lag_ms, char **path)
{
	hold_reset();
	atomic_store(&hold.starve, 1);
	struct err e = {0};
	struct trace_writer *w = NULL;
	*path = fs_join(dir, name);
	struct trace_writer_opts o = {.test_writer = hold_writer, .rescue_lag_ms = lag_ms};
	cr_assert_eq(trace_writer_open_path(*path, &o, &w, &e), 0, "%s", e.msg);
	return w;
}

/* The idle writer may run again; close; the file holds `records` valid records. */
static void close_starved(struct trace_writer *w, char *path, size_t records)
{
	struct err e = {0};
	atomic_store(&hold.starve, 0);
	cr_assert_eq(trace_writer_close(w, &e), 0, "%s", e.msg);
	check_trace(path, records);
	free(path);
}

#define LAG_OFF (3600u * 1000u)

/* 32 KiB frames just over the rescue's mark; returns how many. */
static int frames_over_the_mark(struct trace_writer *w)
{
	int frames = (int)(TRACE_RESCUE_MARK / 32768) + 2;
	struct buf b = {0};
	for (int i = 0; i < frames; i++) {
		frame_of(&b, 32768, i);
		trace_writer_frame(w, "s2c", b.p, b.len, b.len, 0, NULL, NULL, NULL);
	}
	buf_free(&b);
	return frames;
}

static uint64_t rescues(struct trace_writer *w)
{
	struct trace_writer_stats st;
	trace_writer_stats(w, &st);
	return st.rescues;
}

/* The bulk is added while the idle writer is kept off the CPU, so that it surely goes over
 * the mark (a fast enough writer could otherwise keep the backlog under it) and the rescue
 * pools it. */
Test(trace_threads, the_idle_writer_is_idle_priority_and_the_rescue_and_serialisers_are_not)
{
	char *path;
	struct trace_writer *w = open_starved("prio.jsonl", 0, &path);
	bulk(w, 64);
	cr_assert_eq(wait_lines(path, 65), 65);
	struct trace_writer_stats st;
	trace_writer_stats(w, &st);
	cr_assert_eq(st.idle_priority, 1, "SCHED_IDLE refused: %d", st.priority_errno);
	cr_assert_geq(st.rescues, 1, "4 MiB at once went over the mark: the rescue wrote them");
	int n, under;
	under = threads_under("belay-trace", SCHED_IDLE, &n);
	cr_assert_eq(n, 1);
	cr_assert_eq(under, 1, "the idle writer runs at SCHED_IDLE");
	under = threads_under("belay-trace-r", SCHED_OTHER, &n);
	cr_assert_eq(n, 1);
	cr_assert_eq(under, 1, "the rescue keeps the normal priority");
	under = threads_under("belay-tpool", SCHED_OTHER, &n);
	cr_assert_geq(n, 2, "the rescue pooled the bulk batch");
	cr_assert_eq(under, n, "the serialisers take the rescue's priority, not the idle writer's");
	close_starved(w, path, 66);
}

/* The idle writer never gets the CPU. With the lag bound off, a backlog over the mark must
 * still be written down - by the rescue, at once - to under the mark (the rescue hands the
 * last few records back to the idle writer: here they wait for close). */
Test(trace_threads, a_starved_idle_writer_is_rescued_when_the_backlog_crosses_the_mark)
{
	char *path;
	struct trace_writer *w = open_starved("mark.jsonl", LAG_OFF, &path);
	usleep(50 * 1000);
	cr_assert_eq(count_lines(path), 0, "the open record waits: the idle writer is starved, the lag bound off");
	int frames = frames_over_the_mark(w);
	size_t backlog = trace_writer_backlog(w);
	for (int i = 0; i < 2000 && (backlog = trace_writer_backlog(w)) > TRACE_RESCUE_MARK; i++)
		usleep(5 * 1000);
	cr_assert_leq(backlog, TRACE_RESCUE_MARK, "the rescue wrote the backlog down under the mark");
	cr_assert_geq(count_lines(path), 2, "the open record and frames after it");
	cr_assert_geq(rescues(w), 1);
	close_starved(w, path, (size_t)frames + 2);
}

/* The starved writer again, the lag bound off: a deferred record holds a backlog over the
 * mark back (the rescue comes, finds nothing it may write, and goes); completing it must
 * bring the rescue back, since no later add crosses the mark again. */
Test(trace_threads, completing_a_record_that_held_a_large_backlog_back_brings_the_rescue)
{
	char *path;
	struct trace_writer *w = open_starved("held.jsonl", LAG_OFF, &path);
	struct trace_rec *d = NULL;
	trace_writer_frame(w, "c2s", "{\"id\":1}", 8, 8, 0, NULL, NULL, &d);
	size_t want = 2 + (size_t)frames_over_the_mark(w);
	cr_assert_eq(wait_lines(path, 1), 1, "the open record, before the deferred one");
	usleep(50 * 1000);
	cr_assert_eq(count_lines(path), 1, "nothing after the deferred record");
	trace_writer_set_handle(w, d, NULL);
	cr_assert_eq(wait_lines(path, want), want, "the rescue came back for the backlog");
	close_starved(w, path, want + 1);
}

/* The same starved writer, a few small records far under the mark: the rescue writes them
 * once nothing has been written for the lag bound. */
Test(trace_threads, a_starved_idle_writer_is_rescued_after_the_lag_bound)
{
	char *path;
	struct trace_writer *w = open_starved("lag.jsonl", 0, &path);
	for (int i = 0; i < 3; i++)
		trace_writer_frame(w, "c2s", "{\"id\":1}", 8, 8, 0, NULL, NULL, NULL);
	cr_assert_eq(wait_lines(path, 4), 4, "the rescue wrote what waited past the lag bound");
	cr_assert_geq(rescues(w), 1);
	/* and it keeps doing so while the idle writer stays starved */
	trace_writer_frame(w, "s2c", "{\"id\":1}", 8, 8, 0, NULL, NULL, NULL);
	cr_assert_eq(wait_lines(path, 5), 5);
	close_starved(w, path, 6);
}

/* The idle writer is preempted while it serialises its batch (outside the role): the rescue
 * takes that batch over and writes it in its place, then the rest; the idle writer, when it
 * runs again, drops its copy. Every record is written once, in seq order. A rescue that
 * waited for the batch would write nothing here; one that ignored it would write later
 * records first. */
Test(trace_threads, a_batch_the_idle_writer_is_preempted_in_is_taken_over_by_the_rescue)
{
	hold_reset();
	atomic_store(&hold.hold_serial, 1);
	struct err e = {0};
	struct trace_writer *w = NULL;
	char *path = fs_join(dir, "takeover.jsonl");
	/* the lag bound on: it writes what the rescue hands back while the idle writer is held */
	struct trace_writer_opts o = {.test_writer = hold_writer};
	cr_assert_eq(trace_writer_open_path(path, &o, &w, &e), 0, "%s", e.msg);
	for (int i = 0; i < 2000 && !atomic_load(&hold.in_serial); i++)
		usleep(5 * 1000);
	cr_assert(atomic_load(&hold.in_serial), "the idle writer is serialising the open record");
	size_t want = 1 + (size_t)frames_over_the_mark(w);
	size_t got = wait_lines(path, want);
	struct trace_writer_stats st;
	trace_writer_stats(w, &st);
	cr_assert_eq(got, want, "the rescue wrote the held batch and the backlog: %zu of %zu lines, %llu rescue(s), "
		     "%llu taken over, backlog %zu", got, want, (unsigned long long)st.rescues,
		     (unsigned long long)st.taken_over, trace_writer_backlog(w));
	cr_assert_eq(st.taken_over, 1);
	atomic_store(&hold.release, 1);
	trace_writer_frame(w, "c2s", "{\"id\":1}", 8, 8, 0, NULL, NULL, NULL);
	cr_assert_eq(trace_writer_close(w, &e), 0, "%s", e.msg);
	check_trace(path, want + 2); /* unique, gapless, in order */
	free(path);
}

/* Close while the idle writer is starved: the rescue writes the rest, the closing record
 * last, without the idle writer's help (close then joins the idle writer, which ends as soon
 * as it runs: everything is written). */
static struct {
	const char *path;
	atomic_int complete_while_starved;
} closing;

static void *release_when_complete(void *arg)
{
	(void)arg;
	if (wait_lines(closing.path, 3) == 3)
		atomic_store(&closing.complete_while_starved, 1);
	atomic_store(&hold.starve, 0);
	return NULL;
}

Test(trace_threads, close_is_completed_by_the_rescue_while_the_idle_writer_starves)
{
	char *path;
	struct trace_writer *w = open_starved("close.jsonl", LAG_OFF, &path);
	trace_writer_frame(w, "c2s", "{\"id\":1}", 8, 8, 0, NULL, NULL, NULL);
	closing.path = path;
	atomic_store(&closing.complete_while_starved, 0);
	pthread_t t;
	pthread_create(&t, NULL, release_when_complete, NULL);
	struct err e = {0};
	cr_assert_eq(trace_writer_close(w, &e), 0, "%s", e.msg);
	pthread_join(t, NULL);
	cr_assert(atomic_load(&closing.complete_while_starved), "the closing record waited for the idle writer");
	check_trace(path, 3);
	free(path);
}
