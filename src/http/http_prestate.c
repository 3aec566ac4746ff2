/* http_prestate.c - pre-states for a contained local server's runs (http_prestate.h). */
#include "http/http_prestate.h"

#include <pthread.h>
#include <stdlib.h>

#include "common/xalloc.h"
#include "proxy/admission.h"
#include "proxy/prestate.h"

struct http_prestate {
	struct admission *gate;
	pthread_mutex_t mu; /* one capture at a time, with its run named */
};

int http_prestate_open(const char *state_dir, const char *scope, struct http_prestate **out, struct err *e)
{
	struct admission *g = NULL;
	int rc = prestate_gate_new(state_dir, scope, &g, e);
	if (rc)
		return rc;
	struct http_prestate *p = xcalloc(1, sizeof *p);
	p->gate = g;
	pthread_mutex_init(&p->mu, NULL);
	if (g->warm)
		g->warm(g->capture_ctx);
	*out = p;
	return 0;
}

cJSON *http_prestate_capture(void *ctx, const char *run_id)
{
	struct http_prestate *p = ctx;
	pthread_mutex_lock(&p->mu);
	prestate_gate_set_run(p->gate, run_id);
	cJSON *h = p->gate->capture(p->gate->capture_ctx);
	pthread_mutex_unlock(&p->mu);
	if (!h) {
		h = cJSON_CreateObject();
		cJSON_AddStringToObject(h, "status", "unrestorable");
		cJSON_AddStringToObject(h, "cause", "UNRESTORABLE_SNAPSHOT_FAILED");
		cJSON_AddStringToObject(h, "detail", "the capture returned nothing");
	}
	return h;
}

void http_prestate_close(struct http_prestate *p)
{
	if (!p)
		return;
	admission_free(p->gate);
	pthread_mutex_destroy(&p->mu);
	free(p);
}
