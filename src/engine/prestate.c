/* prestate.c - snapshot-backed capture for the turn gate. The capture and warm-up run on
 * libuv worker threads, one at a time (the gate serialises them), so the store connection
 * is only ever used by one thread at a time. */
#include "engine/prestate.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "common/jsonx.h"
#include "common/xalloc.h"
#include "snapshot/snapshot.h"

struct prestate {
	struct snap_store *st;
	struct snapshotter *sn;
	_Atomic(char *) run_id;
};

static cJSON *capture(void *ctx)
{
	struct prestate *p = ctx;
	cJSON *h = snapshotter_capture(p->sn);
	const char *st = jx_str(h, "status"), *handle = jx_str(h, "handle");
	char *run = atomic_load(&p->run_id);
	if (st && !strcmp(st, "present") && handle && run) {
		struct err e = {0};
		if (snap_ref_add(p->st, handle, "run", run, &e) != 0)
			cJSON_AddStringToObject(h, "ref_error", e.msg);
	}
	return h;
}

static void warm(void *ctx)
{
	struct prestate *p = ctx;
	/* The first walk of the workspace, so the first call only pays for its changes. */
	cJSON_Delete(snapshotter_capture(p->sn));
}

static void release(void *ctx)
{
	struct prestate *p = ctx;
	snapshotter_free(p->sn);
	snap_store_close(p->st);
	free(atomic_load(&p->run_id));
	free(p);
}

int prestate_gate_new(const char *state_dir, const char *scope, struct turn_gate **out, struct err *e)
{
	struct prestate *p = xcalloc(1, sizeof *p);
	int rc = snap_store_open(state_dir, scope, &p->st, e);
	if (rc == 0)
		rc = snapshotter_open(p->st, scope, &p->sn, e);
	if (rc) {
		snap_store_close(p->st);
		free(p);
		return rc;
	}
	*out = turn_gate_new(capture, p, release);
	(*out)->warm = warm;
	return 0;
}

void prestate_gate_set_run(struct turn_gate *g, const char *run_id)
{
	struct prestate *p = g->capture_ctx;
	free(atomic_exchange(&p->run_id, xstrdup(run_id)));
}
