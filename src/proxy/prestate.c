/* prestate.c - snapshot-backed capture for the admission step. The capture and warm-up run on
 * libuv worker threads, one at a time (the gate serialises them), so the store connection
 * is only ever used by one thread at a time. */
#include "proxy/prestate.h"

#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "common/fsutil.h"
#include "common/jsonx.h"
#include "common/xalloc.h"
#include "proxy/witness.h"
#include "snapshot/snapshot.h"

struct prestate {
	struct snap_store *st;
	struct snapshotter *sn;
	_Atomic(char *) run_id;
	char *scope;
	int lockfd;             /* the workspace directory, flock'ed shared while the session runs */
	struct witness *witness; /* borrowed (the session's), NULL when uncontained */
	char *prev;             /* the last present handle */
};

/* 1 when another process (another belay on this workspace, whatever its state directory)
 * holds the workspace's lock too: our shared lock cannot become exclusive. */
static int workspace_shared(struct prestate *p)
{
	if (p->lockfd < 0)
		return 0;
	if (flock(p->lockfd, LOCK_EX | LOCK_NB) == 0) {
		flock(p->lockfd, LOCK_SH);
		return 0;
	}
	/* a failed conversion may have dropped ours: take it again (another's probe holds an
	 * exclusive lock for an instant at most) */
	for (int i = 0; i < 50 && flock(p->lockfd, LOCK_SH | LOCK_NB) != 0; i++)
		usleep(1000);
	return 1;
}

/* The changes between the last pre-state and this one that no contained process made. */
static void outside_changes(struct prestate *p, const char *handle, cJSON *h)
{
	struct witnessed ws;
	witness_take(p->witness, &ws);
	if (!p->prev)
		goto out;
	struct snap_paths d = {0};
	struct err e = {0};
	int whole = 0;
	if (snap_delta(p->st, p->prev, handle, &d, &whole, &e) != 0) {
		cJSON_AddStringToObject(h, "outside_detection", "unavailable: the delta could not be read");
		goto out;
	}
	if (ws.overflow)
		cJSON_AddStringToObject(h, "outside_detection", "incomplete: too many writes to remember");
	cJSON *paths = cJSON_CreateArray();
	int n = 0, unknown = 0;
	long long tmin = 0, tmax = 0;
	for (size_t i = 0; i < d.n; i++) {
		char *abs = fs_join(p->scope, d.v[i]);
		struct stat sb;
		int have = lstat(abs, &sb) == 0;
		free(abs);
		if (witnessed_explains(&ws, d.v[i], have && S_ISDIR(sb.st_mode)))
			continue;
		if (n < 16)
			cJSON_AddItemToArray(paths, jx_bytes(d.v[i], strlen(d.v[i])));
		n++;
		if (!have) {
			unknown++;
			continue;
		}
		long long t = (long long)sb.st_ctim.tv_sec * 1000000000LL + sb.st_ctim.tv_nsec;
		if (!tmin || t < tmin)
			tmin = t;
		if (t > tmax)
			tmax = t;
	}
	if (n) {
		cJSON *o = cJSON_AddObjectToObject(h, "outside_changes");
		cJSON_AddNumberToObject(o, "count", n);
		cJSON_AddItemToObject(o, "paths", paths);
		cJSON_AddStringToObject(o, "since", p->prev);
		if (tmax) {
			cJSON_AddNumberToObject(o, "ctime_min_ns", (double)tmin);
			cJSON_AddNumberToObject(o, "ctime_max_ns", (double)tmax);
		}
		cJSON_AddNumberToObject(o, "no_time", unknown);
	} else {
		cJSON_Delete(paths);
	}
	snap_paths_free(&d);
out:
	witnessed_free(&ws);
}

static cJSON *capture(void *ctx)
{
	struct prestate *p = ctx;
	int shared = workspace_shared(p);
	cJSON *h = snapshotter_capture(p->sn);
	const char *st = jx_str(h, "status"), *handle = jx_str(h, "handle");
	char *run = atomic_load(&p->run_id);
	if (st && !strcmp(st, "present") && handle && run) {
		struct err e = {0};
		if (snap_ref_add(p->st, handle, "run", run, &e) != 0)
			cJSON_AddStringToObject(h, "ref_error", e.msg);
	}
	if (shared)
		cJSON_AddBoolToObject(h, "workspace_shared", 1);
	if (st && !strcmp(st, "present") && handle) {
		if (p->witness)
			outside_changes(p, handle, h);
		free(p->prev);
		p->prev = xstrdup(handle);
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
	if (p->lockfd >= 0)
		close(p->lockfd);
	free(p->scope);
	free(p->prev);
	free(p);
}

int prestate_gate_new(const char *state_dir, const char *scope, struct admission **out, struct err *e)
{
	struct prestate *p = xcalloc(1, sizeof *p);
	p->lockfd = -1;
	int rc = snap_store_open(state_dir, scope, &p->st, e);
	if (rc == 0)
		rc = snapshotter_open(p->st, scope, &p->sn, e);
	if (rc) {
		snap_store_close(p->st);
		free(p);
		return rc;
	}
	p->scope = realpath(scope, NULL);
	if (!p->scope)
		p->scope = xstrdup(scope);
	/* Every belay recording this workspace holds a shared lock on the directory itself, so
	 * each sees the others whatever its state directory (workspace_shared). */
	p->lockfd = open(p->scope, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (p->lockfd >= 0 && flock(p->lockfd, LOCK_SH | LOCK_NB) != 0) {
		close(p->lockfd);
		p->lockfd = -1;
	}
	*out = admission_new(capture, p, release);
	(*out)->warm = warm;
	return 0;
}

int prestate_gate_shared(struct admission *g)
{
	return workspace_shared(g->capture_ctx);
}

void prestate_gate_set_witness(struct admission *g, struct witness *w)
{
	((struct prestate *)g->capture_ctx)->witness = w;
}

void prestate_gate_set_run(struct admission *g, const char *run_id)
{
	struct prestate *p = g->capture_ctx;
	free(atomic_exchange(&p->run_id, xstrdup(run_id)));
}
