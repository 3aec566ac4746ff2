/* http_gate.c - approvals on a loop thread of their own (http_gate.h). */
#include "http/http_gate.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <uv.h>

#include "common/xalloc.h"
#include "proxy/approvals.h"

struct job {
	char key[72];
	const char *tool;
	int approved, done;
	char id[48], by[128];
	struct job *next;
};

struct http_gate {
	uv_loop_t loop;
	uv_async_t wake;
	pthread_t thread;
	struct approvals *a;
	pthread_mutex_t mu;
	pthread_cond_t answered;
	struct job *jobs;
	int closing;
};

/* Loop thread. */
static void on_wake(uv_async_t *h)
{
	struct http_gate *g = h->data;
	pthread_mutex_lock(&g->mu);
	struct job *j = g->jobs;
	g->jobs = NULL;
	int closing = g->closing;
	pthread_mutex_unlock(&g->mu);
	while (j) {
		struct job *next = j->next;
		j->approved = approvals_take(g->a, j->key, j->id, j->by);
		if (!j->approved)
			approvals_request(g->a, j->key, j->tool ? j->tool : "", j->id);
		pthread_mutex_lock(&g->mu);
		j->done = 1;
		pthread_cond_broadcast(&g->answered);
		pthread_mutex_unlock(&g->mu);
		j = next;
	}
	if (closing) {
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
	pthread_mutex_init(&g->mu, NULL);
	pthread_cond_init(&g->answered, NULL);
	pthread_create(&g->thread, NULL, run, g);
	*out = g;
	return 0;
}

int http_gate_decide(struct http_gate *g, const char *tool, const cJSON *arguments, char id[48], char by[128])
{
	struct job j = {.tool = tool};
	approvals_call_key(tool ? tool : "", arguments, j.key);
	pthread_mutex_lock(&g->mu);
	j.next = g->jobs;
	g->jobs = &j;
	pthread_mutex_unlock(&g->mu);
	uv_async_send(&g->wake);
	pthread_mutex_lock(&g->mu);
	while (!j.done)
		pthread_cond_wait(&g->answered, &g->mu);
	pthread_mutex_unlock(&g->mu);
	memcpy(id, j.id, 48);
	memcpy(by, j.by, 128);
	return j.approved;
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
	pthread_mutex_destroy(&g->mu);
	pthread_cond_destroy(&g->answered);
	free(g);
}
