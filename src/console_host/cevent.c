/* cevent.c - events from the engine side to the console UI, and their queue (timerfd
 * wake-up, coalesced and paced "committed" events). See cevent.h.
 *
 * Must not: block a producer (one short mutex section), call into the UI. */
#include "console_host/cevent.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#include "common/timeutil.h"
#include "common/xalloc.h"

/* The wake-up is a timerfd: armed to expire at once for any event but a commit, and for a
 * commit at once unless the consumer took one less than CQUEUE_COMMIT_PACE_MS ago - then
 * when that much time has passed (the commit waits, coalesced, and is never lost). */
struct cqueue {
	pthread_mutex_t mu;
	struct cevent *head, **tail;
	int tfd;
	int armed;		  /* 0, ARM_LATER (for a commit) or ARM_NOW */
	uint64_t commit_taken_ns; /* when the consumer last took a commit (0: never) */
};

enum { ARM_LATER = 1, ARM_NOW = 2 };

struct cevent *cevent_new(enum cevent_kind kind, const char *run)
{
	struct cevent *ev = xcalloc(1, sizeof *ev);
	ev->kind = kind;
	ev->run = run ? xstrdup(run) : NULL;
	return ev;
}

void cevent_free(struct cevent *ev)
{
	while (ev) {
		struct cevent *n = ev->next;
		free(ev->run);
		free(ev->trace);
		free(ev->text);
		cJSON_Delete(ev->json);
		free(ev);
		ev = n;
	}
}

struct cevent *cevent_hold(const char *run, uint64_t hold, int64_t seq, const char *tool, const cJSON *plan,
			   const cJSON *trial)
{
	struct cevent *ev = cevent_new(CE_HOLD, run);
	ev->a = (int64_t)hold;
	ev->b = seq;
	ev->text = tool ? xstrdup(tool) : NULL;
	ev->json = cJSON_CreateObject();
	if (plan)
		cJSON_AddItemToObject(ev->json, "plan", cJSON_Duplicate(plan, 1));
	if (trial)
		cJSON_AddItemToObject(ev->json, "trial", cJSON_Duplicate(trial, 1));
	return ev;
}

struct cevent *cevent_log(int level, const char *fmt, ...)
{
	struct cevent *ev = cevent_new(CE_LOG, NULL);
	ev->a = level;
	char buf[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	ev->text = xstrdup(buf);
	return ev;
}

struct cqueue *cqueue_new(void)
{
	struct cqueue *q = xcalloc(1, sizeof *q);
	pthread_mutex_init(&q->mu, NULL);
	q->tail = &q->head;
	q->tfd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
	if (q->tfd < 0)
		FATAL("timerfd: out of file descriptors");
	return q;
}

void cqueue_free(struct cqueue *q)
{
	if (!q)
		return;
	cevent_free(q->head);
	close(q->tfd);
	pthread_mutex_destroy(&q->mu);
	free(q);
}

/* A committed event is dropped when one for the same run is already waiting. */
static int coalesced(struct cqueue *q, const struct cevent *ev)
{
	if (ev->kind != CE_RUN_COMMITTED)
		return 0;
	for (struct cevent *p = q->head; p; p = p->next)
		if (p->kind == CE_RUN_COMMITTED && p->run && ev->run && !strcmp(p->run, ev->run))
			return 1;
	return 0;
}

/* Arms the wake-up to expire in ns (at least 1: 0 would disarm it). Under q->mu. */
static void arm(struct cqueue *q, uint64_t ns)
{
	struct itimerspec it = {.it_value = {.tv_sec = (time_t)(ns / 1000000000u), .tv_nsec = (long)(ns % 1000000000u)}};
	if (ns == 0)
		it.it_value.tv_nsec = 1;
	(void)timerfd_settime(q->tfd, 0, &it, NULL);
}

void cqueue_post(struct cqueue *q, struct cevent *ev)
{
	pthread_mutex_lock(&q->mu);
	int commit = ev->kind == CE_RUN_COMMITTED;
	if (coalesced(q, ev)) {
		pthread_mutex_unlock(&q->mu);
		cevent_free(ev); /* the one waiting is woken for as it was */
		return;
	}
	ev->next = NULL;
	*q->tail = ev;
	q->tail = &ev->next;
	if (!commit) {
		if (q->armed != ARM_NOW) {
			q->armed = ARM_NOW;
			arm(q, 0);
		}
	} else if (!q->armed) {
		uint64_t pace = (uint64_t)CQUEUE_COMMIT_PACE_MS * 1000000u, now = time_mono_ns();
		uint64_t since = q->commit_taken_ns ? now - q->commit_taken_ns : pace;
		q->armed = since >= pace ? ARM_NOW : ARM_LATER;
		arm(q, since >= pace ? 0 : pace - since);
	}
	pthread_mutex_unlock(&q->mu);
}

struct cevent *cqueue_take(struct cqueue *q)
{
	uint64_t v;
	ssize_t n = read(q->tfd, &v, sizeof v);
	(void)n; /* EAGAIN when taken before the wake-up: it is disarmed below */
	pthread_mutex_lock(&q->mu);
	struct cevent *all = q->head;
	q->head = NULL;
	q->tail = &q->head;
	if (q->armed) {
		struct itimerspec off = {0};
		(void)timerfd_settime(q->tfd, 0, &off, NULL);
		q->armed = 0;
	}
	for (struct cevent *e = all; e; e = e->next)
		if (e->kind == CE_RUN_COMMITTED) {
			q->commit_taken_ns = time_mono_ns();
			break;
		}
	pthread_mutex_unlock(&q->mu);
	return all;
}

int cqueue_fd(const struct cqueue *q)
{
	return q->tfd;
}
