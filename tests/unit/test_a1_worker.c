/* test_a1_worker.c - src/assertions/a1_worker.c, the long-lived bounded reader: what its serve
 * remembers survives between requests and is forgotten on request; a request that spins is
 * stopped at its CPU bound and one that grows at its memory bound, the worker ended and the
 * next request answered by a new one; a worker whose forking thread ended (PDEATHSIG) is
 * started again and the request answered, even one it had half answered; the worker does not outlive the process that
 * started it even while it is busy; a second thread that finds it busy past
 * A1_WORKER_WAIT_MS is told so. */
#include <criterion/criterion.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "assertions/a1_worker.h"
#include "common/xalloc.h"

static unsigned long counted; /* the worker's own copy: what it remembers */

/* "count": the number of such requests since the last forget; "spin", "grow", "die". */
static void serve(const char *req, size_t n, struct a1_bound_chan *ch)
{
	if (!n) {
		counted = 0;
		return;
	}
	if (n == 5 && !memcmp(req, "count", 5)) {
		char b[32];
		int k = snprintf(b, sizeof b, "%lu", ++counted);
		a1_bound_send(ch, b, (size_t)k);
	} else if (n == 4 && !memcmp(req, "spin", 4)) {
		a1_bound_send(ch, "spinning", 8);
		for (volatile unsigned long i = 0;; i++)
			;
	} else if (n == 4 && !memcmp(req, "grow", 4)) {
		a1_bound_send(ch, "before", 6);
		for (;;) {
			char *p = xmalloc(1 << 20);
			memset(p, 1, 1 << 20); /* resident, not only reserved */
		}
	} else if (n == 3 && !memcmp(req, "die", 3)) {
		_exit(7);
	} else if (n == 4 && !memcmp(req, "slow", 4)) {
		a1_bound_send(ch, "part", 4);
		struct timespec t = {0, 600 * 1000 * 1000};
		nanosleep(&t, NULL);
		a1_bound_send(ch, "rest", 4);
	}
}

static struct a1_worker w = A1_WORKER_INIT(serve);

static struct a1_bound_result call(const char *req, struct buf *out)
{
	struct a1_bound_result r;
	struct err e = {0};
	buf_reset(out);
	cr_assert_eq(a1_worker_call(&w, req, strlen(req), out, &r, &e), 0, "%s", e.msg);
	return r;
}

static void expect_answer(const char *req, const char *want)
{
	struct buf out = {0};
	struct a1_bound_result r = call(req, &out);
	cr_expect_eq(r.end, A1_BOUND_DONE, "%s: end %d signal %d", req, r.end, r.signal);
	cr_expect(out.len == strlen(want) && !memcmp(out.p, want, out.len), "%s: %.*s, not %s", req, (int)out.len,
		  out.p ? out.p : "", want);
	buf_free(&out);
}

/* 1 once pid is gone or a zombie, within about `sec` seconds. */
static int ends_within(pid_t pid, int sec)
{
	for (int i = 0; i <= sec * 50; i++) {
		char path[64], line[256];
		snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
		FILE *f = fopen(path, "r");
		if (!f)
			return 1;
		int got = fgets(line, sizeof line, f) != NULL;
		fclose(f);
		const char *p = got ? strrchr(line, ')') : NULL;
		if (!p || p[2] == 'Z' || p[2] == 'X')
			return 1;
		struct timespec t = {0, 20 * 1000 * 1000};
		if (i < sec * 50)
			nanosleep(&t, NULL);
	}
	return 0;
}

Test(a1_worker, what_it_remembers_survives_until_forgotten)
{
	expect_answer("count", "1");
	unsigned long started;
	pid_t pid = a1_worker_pid(&w, &started);
	cr_assert_gt(pid, 0);
	expect_answer("count", "2");
	expect_answer("count", "3");
	cr_expect_eq(a1_worker_pid(&w, NULL), pid, "one worker served them all");
	a1_worker_forget(&w);
	expect_answer("count", "1");
	a1_worker_stop(&w);
	cr_expect_eq(a1_worker_pid(&w, NULL), 0);
	cr_expect(ends_within(pid, 5));
}

Test(a1_worker, a_request_that_spins_is_stopped_and_the_next_gets_a_new_worker)
{
	setenv("BELAY_A1_PARSE_MS", "200", 1);
	expect_answer("count", "1");
	unsigned long s0;
	pid_t pid = a1_worker_pid(&w, &s0);
	struct buf out = {0};
	struct a1_bound_result r = call("spin", &out);
	cr_expect_eq(r.end, A1_BOUND_TIME, "end %d signal %d", r.end, r.signal);
	cr_expect_eq(r.ms, 200);
	cr_expect(out.len == 8 && !memcmp(out.p, "spinning", 8), "what was sent before the bound arrives");
	cr_expect_eq(a1_worker_pid(&w, NULL), 0, "the worker that spun is ended");
	cr_expect(ends_within(pid, 1), "and reaped");
	expect_answer("count", "1"); /* a new worker: it remembers nothing */
	unsigned long s1;
	cr_expect_neq(a1_worker_pid(&w, &s1), pid);
	cr_expect_eq(s1, s0 + 1);
	buf_free(&out);
	a1_worker_stop(&w);
	unsetenv("BELAY_A1_PARSE_MS");
}

Test(a1_worker, a_request_that_grows_is_stopped_at_its_memory_bound)
{
	setenv("BELAY_A1_PARSE_MIB", "32", 1);
	setenv("BELAY_A1_PARSE_MS", "60000", 1);
	expect_answer("count", "1");
	expect_answer("count", "2"); /* what it holds after a request is not counted against the next */
	struct buf out = {0};
	struct a1_bound_result r = call("grow", &out);
	cr_expect_eq(r.end, A1_BOUND_MEMORY, "end %d signal %d", r.end, r.signal);
	cr_expect_eq(r.mib, 32);
	cr_expect(out.len == 6 && !memcmp(out.p, "before", 6), "what was sent before the bound arrives");
	expect_answer("count", "1");
	buf_free(&out);
	a1_worker_stop(&w);
	unsetenv("BELAY_A1_PARSE_MIB");
	unsetenv("BELAY_A1_PARSE_MS");
}

Test(a1_worker, a_worker_that_dies_on_a_request_is_named_so)
{
	struct buf out = {0};
	struct a1_bound_result r = call("die", &out);
	cr_expect_eq(r.end, A1_BOUND_DIED, "end %d signal %d", r.end, r.signal);
	cr_expect_eq(out.len, 0);
	expect_answer("count", "1");
	buf_free(&out);
	a1_worker_stop(&w);
}

static void *start_and_end(void *arg)
{
	(void)arg;
	expect_answer("count", "1");
	return NULL;
}

/* PR_SET_PDEATHSIG fires when the thread that forked the worker ends: the next request finds
 * it dead and is answered by a new one. */
Test(a1_worker, a_worker_whose_forking_thread_ended_is_started_again)
{
	pthread_t t;
	cr_assert_eq(pthread_create(&t, NULL, start_and_end, NULL), 0);
	pthread_join(t, NULL);
	unsigned long s0;
	pid_t pid = a1_worker_pid(&w, &s0);
	cr_assert_gt(pid, 0);
	cr_assert(ends_within(pid, 5), "the worker ends with its forking thread");
	expect_answer("count", "1");
	unsigned long s1;
	cr_expect_neq(a1_worker_pid(&w, &s1), pid);
	cr_expect_eq(s1, s0 + 1);
	a1_worker_stop(&w);
}

static int counted_once; /* start_and_end_soon's request answered */

static void *start_and_end_soon(void *arg)
{
	(void)arg;
	expect_answer("count", "1");
	__atomic_store_n(&counted_once, 1, __ATOMIC_SEQ_CST);
	struct timespec t = {0, 200 * 1000 * 1000};
	nanosleep(&t, NULL); /* the main thread's "slow" request is half answered then */
	return NULL;
}

/* The forking thread ends while another thread's request is half answered: that request is
 * sent again to a new worker and answered whole. */
Test(a1_worker, a_request_cut_by_the_forking_threads_end_is_sent_again)
{
	pthread_t t;
	cr_assert_eq(pthread_create(&t, NULL, start_and_end_soon, NULL), 0);
	for (int i = 0; i < 5000 && !__atomic_load_n(&counted_once, __ATOMIC_SEQ_CST); i++) {
		struct timespec d = {0, 2 * 1000 * 1000};
		nanosleep(&d, NULL);
	}
	unsigned long s0 = 0;
	pid_t pid = a1_worker_pid(&w, &s0);
	cr_assert_gt(pid, 0);
	expect_answer("slow", "partrest");
	pthread_join(t, NULL);
	unsigned long s1;
	cr_expect_neq(a1_worker_pid(&w, &s1), pid);
	cr_expect_eq(s1, s0 + 1);
	a1_worker_stop(&w);
}

/* The process that started a worker is killed while the worker is busy (a request that spins
 * reads no end of file): the worker ends with it. */
Test(a1_worker, the_worker_does_not_outlive_its_process)
{
	int p[2];
	cr_assert_eq(pipe(p), 0);
	pid_t kid = fork();
	cr_assert_geq(kid, 0);
	if (kid == 0) {
		close(p[0]);
		setenv("BELAY_A1_PARSE_MS", "600000", 1);
		struct buf out = {0};
		struct a1_bound_result r;
		struct err e = {0};
		if (a1_worker_call(&w, "count", 5, &out, &r, &e))
			_exit(1);
		pid_t wp = a1_worker_pid(&w, NULL);
		if (write(p[1], &wp, sizeof wp) != sizeof wp)
			_exit(1);
		a1_worker_call(&w, "spin", 4, &out, &r, &e);
		_exit(0);
	}
	close(p[1]);
	pid_t wp = 0;
	cr_assert_eq(read(p[0], &wp, sizeof wp), (ssize_t)sizeof wp);
	close(p[0]);
	cr_assert_gt(wp, 0);
	struct timespec t = {0, 200 * 1000 * 1000};
	nanosleep(&t, NULL); /* the spin request sent */
	kill(kid, SIGKILL);
	int st;
	waitpid(kid, &st, 0);
	cr_expect(ends_within(wp, 10), "worker %d outlived its process", (int)wp);
	if (!ends_within(wp, 0))
		kill(wp, SIGKILL);
}

struct held {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	int in;
};

static struct held held = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0};

static void *spin_call(void *arg)
{
	(void)arg;
	struct buf out = {0};
	struct a1_bound_result r;
	struct err e = {0};
	pthread_mutex_lock(&held.mu);
	held.in = 1;
	pthread_cond_signal(&held.cv);
	pthread_mutex_unlock(&held.mu);
	a1_worker_call(&w, "spin", 4, &out, &r, &e);
	buf_free(&out);
	return NULL;
}

Test(a1_worker, a_worker_busy_past_the_wait_is_said_busy)
{
	setenv("BELAY_A1_PARSE_MS", "1500", 1);
	expect_answer("count", "1");
	pthread_t t;
	cr_assert_eq(pthread_create(&t, NULL, spin_call, NULL), 0);
	pthread_mutex_lock(&held.mu);
	while (!held.in)
		pthread_cond_wait(&held.cv, &held.mu);
	pthread_mutex_unlock(&held.mu);
	struct timespec s = {0, 300 * 1000 * 1000};
	nanosleep(&s, NULL); /* the other thread holds the worker now */
	struct buf out = {0};
	struct a1_bound_result r;
	struct err e = {0};
	cr_expect_eq(a1_worker_call(&w, "count", 5, &out, &r, &e), A1_WORKER_BUSY);
	pthread_join(t, NULL);
	expect_answer("count", "1");
	buf_free(&out);
	a1_worker_stop(&w);
	unsetenv("BELAY_A1_PARSE_MS");
}
