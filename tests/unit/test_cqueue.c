/* test_cqueue.c - the console's event queue (console_host/cevent.h): a stream of "committed" events
 * is paced (the consumer is woken for commits at most once per CQUEUE_COMMIT_PACE_MS) and
 * coalesced per run, and nothing is lost: every run's last commit is delivered once its
 * producer stops, every other event wakes the consumer without waiting for the pace, and
 * each run keeps its own order of events. */
#include <criterion/criterion.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/timeutil.h"
#include "console_host/cevent.h"

static int readable(struct cqueue *q, int ms)
{
	struct pollfd p = {.fd = cqueue_fd(q), .events = POLLIN};
	return poll(&p, 1, ms) == 1;
}

static int count_kind(struct cevent *list, enum cevent_kind k, const char *run)
{
	int n = 0;
	for (; list; list = list->next)
		n += list->kind == k && (!run || (list->run && !strcmp(list->run, run)));
	return n;
}

struct producer {
	struct cqueue *q;
	const char *run;
	atomic_int stop;
	atomic_int posted; /* read by the consumer while the producer counts */
};

static void *produce(void *arg)
{
	struct producer *p = arg;
	while (!atomic_load(&p->stop)) {
		cqueue_post(p->q, cevent_new(CE_RUN_COMMITTED, p->run));
		p->posted++;
		usleep(500); /* a store writer committing far more often than any UI needs */
	}
	return NULL;
}

Test(cqueue, a_stream_of_commits_is_paced_and_its_last_commit_is_delivered, .timeout = 60)
{
	struct cqueue *q = cqueue_new();
	struct producer pa = {.q = q, .run = "run-a"}, pb = {.q = q, .run = "run-b"};
	pthread_t ta, tb;
	pthread_create(&ta, NULL, produce, &pa);
	pthread_create(&tb, NULL, produce, &pb);
	/* At least 1.5 s and until both producers have posted many commits (a busy machine may
	 * give them less time: the window grows, bounded by a minute, and the bound on wakes is
	 * computed from the time it really took). */
	uint64_t t0 = time_mono_ns(), took;
	int wakes = 0, got_a = 0, got_b = 0;
	while ((took = time_mono_ns() - t0) < 1500000000u ||
	       ((atomic_load(&pa.posted) <= 100 || atomic_load(&pb.posted) <= 100) && took < 60000000000ull)) {
		if (!readable(q, 100))
			continue;
		struct cevent *l = cqueue_take(q);
		wakes++;
		int a = count_kind(l, CE_RUN_COMMITTED, "run-a"), b = count_kind(l, CE_RUN_COMMITTED, "run-b");
		cr_assert_leq(a, 1, "coalesced: one commit per run per take");
		cr_assert_leq(b, 1);
		got_a += a;
		got_b += b;
		cevent_free(l);
	}
	took = time_mono_ns() - t0;
	atomic_store(&pa.stop, 1);
	atomic_store(&pb.stop, 1);
	pthread_join(ta, NULL);
	pthread_join(tb, NULL);
	cr_assert_gt(atomic_load(&pa.posted), 100, "the producers posted many commits: %d", atomic_load(&pa.posted));
	cr_assert_gt(atomic_load(&pb.posted), 100, "the producers posted many commits: %d", atomic_load(&pb.posted));
	/* at one wake per pace at most over the time it took (a first one at once, and slack for a
	 * late poll) */
	int most = (int)(took / 1000000u) / CQUEUE_COMMIT_PACE_MS + 2;
	cr_assert_leq(wakes, most, "woken %d times for %d + %d commits in %llu ms (at most %d)", wakes, atomic_load(&pa.posted),
		      atomic_load(&pb.posted), (unsigned long long)(took / 1000000u), most);
	cr_assert_gt(got_a, 1);
	cr_assert_gt(got_b, 1);
	/* After the producers stopped, their last commits still wake the consumer. */
	cr_assert(readable(q, 5 * CQUEUE_COMMIT_PACE_MS + 2000), "the last commits are not held back for ever");
	struct cevent *l = cqueue_take(q);
	cr_assert_eq(count_kind(l, CE_RUN_COMMITTED, "run-a"), 1);
	cr_assert_eq(count_kind(l, CE_RUN_COMMITTED, "run-b"), 1);
	cevent_free(l);
	cr_assert_not(readable(q, 0), "nothing more to wake for");
	cqueue_free(q);
}

Test(cqueue, other_events_do_not_wait_for_the_pace_and_keep_their_order, .timeout = 60)
{
	struct cqueue *q = cqueue_new();
	/* a commit taken just now: the next one would wait for the pace */
	cqueue_post(q, cevent_new(CE_RUN_COMMITTED, "r"));
	cr_assert(readable(q, 5000));
	cevent_free(cqueue_take(q));
	cqueue_post(q, cevent_new(CE_RUN_COMMITTED, "r"));
	cr_assert_not(readable(q, 0), "a commit right after one was taken waits");
	struct cevent *ended = cevent_new(CE_RUN_ENDED, "r");
	ended->a = 3;
	cqueue_post(q, ended);
	/* the pace is CQUEUE_COMMIT_PACE_MS; an end of run is there long before it could pass
	 * (a poll of half the pace, from well inside the pace: only an immediate wake fits) */
	cr_assert(readable(q, CQUEUE_COMMIT_PACE_MS / 2), "an end of run wakes the consumer at once");
	struct cevent *l = cqueue_take(q);
	cr_assert_not_null(l);
	cr_assert_eq(l->kind, CE_RUN_COMMITTED, "the waiting commit comes along, first");
	cr_assert_not_null(l->next);
	cr_assert_eq(l->next->kind, CE_RUN_ENDED);
	cr_assert_eq(l->next->a, 3);
	cr_assert_null(l->next->next);
	cevent_free(l);
	/* taken before its wake-up: nothing stays armed */
	cqueue_post(q, cevent_new(CE_RUN_COMMITTED, "s"));
	l = cqueue_take(q);
	cr_assert_eq(count_kind(l, CE_RUN_COMMITTED, "s"), 1);
	cevent_free(l);
	cr_assert_not(readable(q, 2 * CQUEUE_COMMIT_PACE_MS), "no wake-up for what was already taken");
	cqueue_free(q);
}
