/* http_gate.c - approvals on a loop thread of their own, and the hold (http_gate.h). */
#include "http/http_gate.h"

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <uv.h>

#include "common/xalloc.h"
#include "proxy/approvals.h"

/* How often the loop looks whether a held call was approved (approvals.h tells no one). */
#define HOLD_POLL_MS 50

struct job {
	char key[72];
	const char *tool;
	unsigned hold_ms;
	uint64_t until; /* loop time the hold ends */
	int held, done, cancel; /* cancel: its client hung up (under mu) */
	int refuse;		/* a person refused it while held (loop thread) */
	enum http_gate_answer answer;
	char id[48], by[128];
	struct job *next;
};

/* A person's answer to a held call, by its approval id (http_gate_answer). */
struct answer {
	char id[48], by[128];
	int approve;
	struct answer *next;
};

struct http_gate {
	uv_loop_t loop;
	uv_async_t wake;
	uv_timer_t tick;
	pthread_t thread;
	struct approvals *a;
	pthread_mutex_t mu;
	pthread_cond_t answered;
	struct job *jobs; /* new questions (under mu) */
	struct job *held; /* held calls (loop thread) */
	struct answer *answers; /* people's answers not yet applied (under mu) */
	int closing, released;
};

/* Loop thread: j answered. */
static void finish(struct http_gate *g, struct job *j, enum http_gate_answer a)
{
	pthread_mutex_lock(&g->mu);
	j->answer = a;
	j->done = 1;
	pthread_cond_broadcast(&g->answered);
	pthread_mutex_unlock(&g->mu);
}

/* Loop thread: every held call approved since, or past its bound, or released, is answered. */
static void on_tick(uv_timer_t *t)
{
	struct http_gate *g = t->data;
	pthread_mutex_lock(&g->mu);
	int released = g->released || g->closing;
	pthread_mutex_unlock(&g->mu);
	uint64_t now = uv_now(&g->loop);
	for (struct job **pj = &g->held; *pj;) {
		struct job *j = *pj;
		enum http_gate_answer a;
		pthread_mutex_lock(&g->mu);
		int cancel = j->cancel;
		pthread_mutex_unlock(&g->mu);
		/* by its own id: of two identical calls held at once, an approval releases one */
		if (g->a && approvals_take_id(g->a, j->id, j->by))
			a = HTTP_GATE_APPROVED;
		else if (j->refuse)
			a = HTTP_GATE_DENIED;
		else if (cancel)
			a = HTTP_GATE_GONE;
		else if (released)
			a = HTTP_GATE_REFUSED;
		else if (now >= j->until)
			a = HTTP_GATE_EXPIRED;
		else {
			pj = &j->next;
			continue;
		}
		*pj = j->next;
		finish(g, j, a);
	}
	if (!g->held)
		uv_timer_stop(&g->tick);
}

/* Loop thread. */
static void on_wake(uv_async_t *h)
{
	struct http_gate *g = h->data;
	pthread_mutex_lock(&g->mu);
	struct job *j = g->jobs;
	g->jobs = NULL;
	struct answer *ans = g->answers;
	g->answers = NULL;
	int closing = g->closing, released = g->released || closing;
	pthread_mutex_unlock(&g->mu);
	/* people's answers first, and the held calls they release, so that a new identical call
	 * cannot take an approval given to a held one */
	while (ans) {
		struct answer *next = ans->next;
		if (ans->approve) {
			if (g->a)
				approvals_grant(g->a, ans->id, ans->by);
		} else {
			for (struct job *hj = g->held; hj; hj = hj->next)
				if (!strcmp(hj->id, ans->id)) {
					hj->refuse = 1;
					snprintf(hj->by, sizeof hj->by, "%s", ans->by);
				}
		}
		free(ans);
		ans = next;
	}
	if (g->held)
		on_tick(&g->tick);
	while (j) {
		struct job *next = j->next;
		if (approvals_take(g->a, j->key, j->id, j->by)) {
			finish(g, j, HTTP_GATE_APPROVED);
		} else {
			approvals_request(g->a, j->key, j->tool ? j->tool : "", j->id);
			if (!j->hold_ms || released) {
				finish(g, j, HTTP_GATE_REFUSED);
			} else {
				j->until = uv_now(&g->loop) + j->hold_ms;
				j->next = g->held;
				g->held = j;
				pthread_mutex_lock(&g->mu);
				j->held = 1;
				pthread_cond_broadcast(&g->answered);
				pthread_mutex_unlock(&g->mu);
				if (!uv_is_active((uv_handle_t *)&g->tick))
					uv_timer_start(&g->tick, on_tick, HOLD_POLL_MS, HOLD_POLL_MS);
			}
		}
		j = next;
	}
	if (released && g->held)
		on_tick(&g->tick);
	if (closing) {
		uv_timer_stop(&g->tick);
		uv_close((uv_handle_t *)&g->tick, NULL);
		approvals_close(g->a);
		g->a = NULL;
		uv_close((uv_handle_t *)&g->wake, NULL);
	}
}

static void *run(void *arg)
{
	struct http_gate *g = arg;
	uv_run(&g->loop, UV_RUN_DEFAULT);
	return NULL;
}

int http_gate_open(const char *state_dir, struct http_gate **out, struct err *e)
{
	struct http_gate *g = xcalloc(1, sizeof *g);
	uv_loop_init(&g->loop);
	int rc = approvals_open(&g->loop, state_dir, &g->a, e);
	if (rc) {
		approvals_close(g->a);
		uv_run(&g->loop, UV_RUN_DEFAULT);
		uv_loop_close(&g->loop);
		free(g);
		return rc;
	}
	uv_async_init(&g->loop, &g->wake, on_wake);
	g->wake.data = g;
	uv_timer_init(&g->loop, &g->tick);
	g->tick.data = g;
	pthread_mutex_init(&g->mu, NULL);
	pthread_cond_init(&g->answered, NULL);
	pthread_create(&g->thread, NULL, run, g);
	*out = g;
	return 0;
}

enum http_gate_answer http_gate_decide(struct http_gate *g, const char *tool, const cJSON *arguments, unsigned hold_ms,
				       void (*held)(void *ctx, const char *id), int (*gone)(void *ctx), void *ctx,
				       char id[48], char by[128])
{
	struct job j = {.tool = tool, .hold_ms = hold_ms};
	approvals_call_key(tool ? tool : "", arguments, j.key);
	pthread_mutex_lock(&g->mu);
	j.next = g->jobs;
	g->jobs = &j;
	pthread_mutex_unlock(&g->mu);
	uv_async_send(&g->wake);
	pthread_mutex_lock(&g->mu);
	while (!j.done && !j.held)
		pthread_cond_wait(&g->answered, &g->mu);
	if (!j.done && held) {
		char hid[48];
		memcpy(hid, j.id, 48);
		pthread_mutex_unlock(&g->mu);
		held(ctx, hid);
		pthread_mutex_lock(&g->mu);
	}
	while (!j.done) {
		struct timespec until;
		clock_gettime(CLOCK_REALTIME, &until);
		until.tv_nsec += 250 * 1000000L;
		if (until.tv_nsec >= 1000000000L)
			until.tv_sec++, until.tv_nsec -= 1000000000L;
		pthread_cond_timedwait(&g->answered, &g->mu, &until);
		if (!j.done && !j.cancel && gone) {
			pthread_mutex_unlock(&g->mu);
			int hung_up = gone(ctx);
			pthread_mutex_lock(&g->mu);
			if (hung_up)
				j.cancel = 1; /* the loop's next tick answers it */
		}
	}
	pthread_mutex_unlock(&g->mu);
	memcpy(id, j.id, 48);
	memcpy(by, j.by, 128);
	return j.answer;
}

void http_gate_answer(struct http_gate *g, const char *id, int approve, const char *by)
{
	if (!g || !id)
		return;
	struct answer *a = xcalloc(1, sizeof *a);
	snprintf(a->id, sizeof a->id, "%s", id);
	snprintf(a->by, sizeof a->by, "%s", by ? by : "");
	a->approve = approve;
	pthread_mutex_lock(&g->mu);
	a->next = g->answers;
	g->answers = a;
	pthread_mutex_unlock(&g->mu);
	uv_async_send(&g->wake);
}

void http_gate_release(struct http_gate *g)
{
	if (!g)
		return;
	pthread_mutex_lock(&g->mu);
	g->released = 1;
	pthread_mutex_unlock(&g->mu);
	uv_async_send(&g->wake);
}

void http_gate_close(struct http_gate *g)
{
	if (!g)
		return;
	pthread_mutex_lock(&g->mu);
	g->closing = 1;
	pthread_mutex_unlock(&g->mu);
	uv_async_send(&g->wake);
	pthread_join(g->thread, NULL);
	uv_loop_close(&g->loop);
	for (struct answer *a = g->answers, *n; a; a = n) {
		n = a->next;
		free(a);
	}
	pthread_mutex_destroy(&g->mu);
	pthread_cond_destroy(&g->answered);
	free(g);
}
