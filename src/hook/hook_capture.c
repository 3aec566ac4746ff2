/* hook_capture.c - snapshot captures for hook turns. See hook_capture.h. */
#include "hook/hook_capture.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "common/jsonx.h"
#include "common/xalloc.h"
#include "snapshot/snapshot.h"

struct root_snap {
	char *root;
	struct snap_store *st;
	struct snapshotter *sn;
	pthread_mutex_t mu;
	struct root_snap *next;
};

struct hook_captures {
	char *state_dir;
	int keep;
	pthread_mutex_t mu; /* the list */
	struct root_snap *roots;
};

struct hook_captures *hook_captures_new(const char *state_dir, int keep)
{
	struct hook_captures *c = xcalloc(1, sizeof *c);
	c->state_dir = xstrdup(state_dir);
	c->keep = keep;
	pthread_mutex_init(&c->mu, NULL);
	return c;
}

static cJSON *failed(const char *detail)
{
	cJSON *h = cJSON_CreateObject();
	cJSON_AddStringToObject(h, "status", "unrestorable");
	cJSON_AddStringToObject(h, "cause", SNAP_UNRESTORABLE_SNAPSHOT_FAILED);
	cJSON_AddStringToObject(h, "detail", detail);
	cJSON_AddStringToObject(h, "source", "snapshot");
	return h;
}

static void ref(struct snap_store *st, cJSON *h, const char *run_id)
{
	const char *status = jx_str(h, "status"), *handle = jx_str(h, "handle");
	struct err e = {0};
	if (status && !strcmp(status, "present") && handle && run_id && snap_ref_add(st, handle, "run", run_id, &e) != 0)
		cJSON_AddStringToObject(h, "ref_error", e.msg);
}

static int open_snap(const char *state_dir, const char *root, struct snap_store **st, struct snapshotter **sn,
		     struct err *e)
{
	*st = NULL;
	*sn = NULL;
	int rc = snap_store_open(state_dir, root, st, e);
	if (rc == 0)
		rc = snapshotter_open(*st, root, sn, e);
	if (rc) {
		snap_store_close(*st);
		*st = NULL;
	}
	return rc;
}

cJSON *hook_captures_capture(struct hook_captures *c, const char *root, const char *run_id)
{
	struct err e = {0};
	if (!c->keep) {
		struct snap_store *st;
		struct snapshotter *sn;
		if (open_snap(c->state_dir, root, &st, &sn, &e) != 0)
			return failed(e.msg);
		cJSON *h = snapshotter_capture(sn);
		ref(st, h, run_id);
		snapshotter_free(sn);
		snap_store_close(st);
		return h;
	}
	pthread_mutex_lock(&c->mu);
	struct root_snap *r = c->roots;
	while (r && strcmp(r->root, root))
		r = r->next;
	if (!r) {
		r = xcalloc(1, sizeof *r);
		if (open_snap(c->state_dir, root, &r->st, &r->sn, &e) != 0) {
			pthread_mutex_unlock(&c->mu);
			free(r);
			return failed(e.msg);
		}
		r->root = xstrdup(root);
		pthread_mutex_init(&r->mu, NULL);
		r->next = c->roots;
		c->roots = r;
	}
	pthread_mutex_unlock(&c->mu);
	pthread_mutex_lock(&r->mu);
	cJSON *h = snapshotter_capture(r->sn);
	ref(r->st, h, run_id);
	pthread_mutex_unlock(&r->mu);
	return h;
}

void hook_captures_free(struct hook_captures *c)
{
	if (!c)
		return;
	while (c->roots) {
		struct root_snap *r = c->roots;
		c->roots = r->next;
		snapshotter_free(r->sn);
		snap_store_close(r->st);
		pthread_mutex_destroy(&r->mu);
		free(r->root);
		free(r);
	}
	pthread_mutex_destroy(&c->mu);
	free(c->state_dir);
	free(c);
}
