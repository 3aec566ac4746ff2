/* cevent.c - events from the engine side to the console UI, and their queue (eventfd
 * wake-up, coalesced "committed" events). See cevent.h.
 *
 * Must not: block a producer (one short mutex section), call into the UI. */
#include "host/cevent.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "common/xalloc.h"

struct cqueue {
	pthread_mutex_t mu;
	struct cevent *head, **tail;
	int efd;
	int signalled;
};

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
	q->efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (q->efd < 0)
		FATAL("eventfd: out of file descriptors");
	return q;
}

void cqueue_free(struct cqueue *q)
{
	if (!q)
		return;
	cevent_free(q->head);
	close(q->efd);
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

void cqueue_post(struct cqueue *q, struct cevent *ev)
{
	int wake = 0;
	pthread_mutex_lock(&q->mu);
	if (coalesced(q, ev)) {
		pthread_mutex_unlock(&q->mu);
		cevent_free(ev);
		return;
	}
	ev->next = NULL;
	*q->tail = ev;
	q->tail = &ev->next;
	if (!q->signalled)
		wake = q->signalled = 1;
	pthread_mutex_unlock(&q->mu);
	if (wake) {
		uint64_t one = 1;
		ssize_t n = write(q->efd, &one, sizeof one);
		(void)n; /* a full counter is still readable */
	}
}

struct cevent *cqueue_take(struct cqueue *q)
{
	uint64_t v;
	ssize_t n = read(q->efd, &v, sizeof v);
	(void)n;
	pthread_mutex_lock(&q->mu);
	struct cevent *all = q->head;
	q->head = NULL;
	q->tail = &q->head;
	q->signalled = 0;
	pthread_mutex_unlock(&q->mu);
	return all;
}

int cqueue_fd(const struct cqueue *q)
{
	return q->efd;
}
