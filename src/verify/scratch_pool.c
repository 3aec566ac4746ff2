/* scratch_pool.c - scratch workspaces kept across verify_trace calls. See scratch_pool.h.
 *
 * Must not: hand out a scratch as holding a snapshot whose workspace changed unobserved;
 * print. Threads: every entry point locks the pool's mutex. */
#include "verify/scratch_pool.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "common/xalloc.h"

struct scratch_pool {
	pthread_mutex_t mu;
	struct scratch *v; /* idle scratches, oldest given first */
	size_t n, cap, keep;
	struct scratch_pool_stats stats;
};

static int same_path(const char *a, const char *b)
{
	return a && b ? !strcmp(a, b) : a == b;
}

struct scratch_pool *scratch_pool_new(size_t keep)
{
	struct scratch_pool *p = xcalloc(1, sizeof *p);
	p->keep = keep ? keep : 1;
	pthread_mutex_init(&p->mu, NULL);
	return p;
}

int scratch_pool_take(struct scratch_pool *p, const char *recorded, struct scratch *out, int *reused, struct err *e)
{
	if (reused)
		*reused = 0;
	pthread_mutex_lock(&p->mu);
	for (size_t i = p->n; i-- > 0;) {
		if (!same_path(p->v[i].recorded, recorded))
			continue;
		*out = p->v[i];
		memmove(&p->v[i], &p->v[i + 1], (p->n - i - 1) * sizeof *p->v);
		p->n--;
		p->stats.reused++;
		pthread_mutex_unlock(&p->mu);
		if (reused)
			*reused = 1;
		return 0;
	}
	pthread_mutex_unlock(&p->mu);
	int rc = scratch_open(out, recorded, e);
	if (rc)
		return rc;
	pthread_mutex_lock(&p->mu);
	p->stats.opened++;
	pthread_mutex_unlock(&p->mu);
	return 0;
}

void scratch_pool_give(struct scratch_pool *p, struct scratch *s)
{
	if (!s->root)
		return;
	/* Anything the kernel reports changed in the workspace since the last effect was taken
	 * (a straggler of the last replay), or a workspace it cannot watch, is in nobody's
	 * record: then what it holds is not trusted. */
	struct snap_paths late = {0};
	const char *why = NULL;
	int unobserved = scratch_dirty(s, &late, &why) != 0 || late.n;
	snap_paths_free(&late);
	int dropped = unobserved && s->handle;
	if (unobserved)
		scratch_invalidate(s);
	s->keep_tmp = 0;
	scratch_task_reset_failure(s);
	struct scratch old = {0};
	int evict = 0;
	pthread_mutex_lock(&p->mu);
	if (p->n == p->keep) { /* full: the scratch given back longest ago goes */
		old = p->v[0];
		memmove(&p->v[0], &p->v[1], (p->n - 1) * sizeof *p->v);
		p->n--;
		evict = 1;
		p->stats.evicted++;
	}
	p->v = xgrow_zeroed(p->v, &p->cap, p->n, sizeof *p->v, 8);
	p->v[p->n++] = *s;
	p->stats.given++;
	p->stats.dropped += (unsigned long)dropped;
	pthread_mutex_unlock(&p->mu);
	memset(s, 0, sizeof *s);
	s->ifd = -1;
	if (evict)
		scratch_close(&old); /* outside the lock: removing a tree takes a while */
}

void scratch_pool_stats(struct scratch_pool *p, struct scratch_pool_stats *out)
{
	pthread_mutex_lock(&p->mu);
	*out = p->stats;
	pthread_mutex_unlock(&p->mu);
}

void scratch_pool_close(struct scratch_pool *p)
{
	if (!p)
		return;
	for (size_t i = 0; i < p->n; i++)
		scratch_close(&p->v[i]);
	free(p->v);
	pthread_mutex_destroy(&p->mu);
	free(p);
}
