/* store_writer.c - the live store writer: queue of trace lines -> runidx in batched
 * transactions on its own thread and its own connection. See store_writer.h.
 *
 * Must not: block the tap (a mutex held for a pointer swap is all it takes), print. */
#include "index/store_writer.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/fsutil.h"
#include "common/paths.h"
#include "common/timeutil.h"
#include "common/xalloc.h"
#include "index/runidx.h"
#include "store/store.h"

#define WAKE_LINES 4096 /* wake the worker at once when this many lines wait */

struct line {
	struct line *next;
	uint64_t off;
	size_t len;
	char data[];
};

struct store_writer {
	char *state_dir;
	char *trace_path;
	char *run;
	struct store_writer_opts o;
	pthread_t thread;
	int started;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	struct line *head, **tail;
	uint64_t queued;
	int idle, closing;
	int stopped; /* failed: drop lines */
	struct store_writer_stats stats;
	/* worker only */
	struct store *st;
	struct runidx *ix;
};

struct store_writer *store_writer_new(const char *state_dir, const struct store_writer_opts *o)
{
	struct store_writer *w = xcalloc(1, sizeof *w);
	w->state_dir = xstrdup(state_dir);
	if (o)
		w->o = *o;
	if (w->o.batch_ms == 0)
		w->o.batch_ms = 50;
	w->tail = &w->head;
	pthread_mutex_init(&w->mu, NULL);
	pthread_cond_init(&w->cv, NULL);
	return w;
}

void store_writer_tap(void *ctx, uint64_t off, const char *line, size_t len)
{
	struct store_writer *w = ctx;
	if (__atomic_load_n(&w->stopped, __ATOMIC_RELAXED))
		return;
	struct line *l = xmalloc(sizeof *l + len);
	l->next = NULL;
	l->off = off;
	l->len = len;
	memcpy(l->data, line, len);
	pthread_mutex_lock(&w->mu);
	*w->tail = l;
	w->tail = &l->next;
	w->queued++;
	if (w->queued > w->stats.max_queue)
		w->stats.max_queue = w->queued;
	if (w->idle || w->queued >= WAKE_LINES)
		pthread_cond_signal(&w->cv);
	pthread_mutex_unlock(&w->mu);
}

static void free_lines(struct line *l)
{
	while (l) {
		struct line *n = l->next;
		free(l);
		l = n;
	}
}

static void stop(struct store_writer *w, const struct err *e)
{
	__atomic_store_n(&w->stopped, 1, __ATOMIC_RELAXED);
	w->stats.failed = 1;
	if (w->o.report) {
		char msg[700];
		snprintf(msg, sizeof msg,
			 "indexing stopped: %s (forwarding and the trace are unaffected; `belay index %s` rebuilds the "
			 "run view)",
			 e->msg, w->trace_path);
		w->o.report(w->o.ctx, msg);
	}
}

/* One transaction for a batch of lines. */
static int index_batch(struct store_writer *w, struct line *batch, struct err *e)
{
	uint64_t t0 = time_mono_ns();
	int rc = store_begin(w->st, e);
	if (rc)
		return rc;
	if (!w->ix && (rc = runidx_begin(w->st, w->run, w->trace_path, &w->ix, e)) != 0)
		goto fail;
	uint64_t n = 0, bytes = 0;
	for (struct line *l = batch; l; l = l->next) {
		if ((rc = runidx_line(w->ix, l->off, l->data, l->len, e)) != 0)
			goto fail;
		n++;
		bytes += l->len;
	}
	if ((rc = runidx_flush(w->ix, e)) != 0)
		goto fail;
	if ((rc = store_commit(w->st, e)) != 0)
		return rc;
	uint64_t dt = time_mono_ns() - t0;
	w->stats.lines += n;
	w->stats.bytes += bytes;
	w->stats.batches++;
	w->stats.busy_ns += dt;
	if (dt > w->stats.max_batch_ns)
		w->stats.max_batch_ns = dt;
	return 0;
fail:
	store_rollback(w->st);
	return rc;
}

static void *worker(void *arg)
{
	struct store_writer *w = arg;
	struct err e = {0};
	char *db = fs_join(w->state_dir, "belay.db");
	int rc = paths_ensure_state_dir(w->state_dir, &e);
	if (rc == 0)
		rc = store_open(db, &w->st, &e);
	free(db);
	if (rc)
		stop(w, &e);
	pthread_mutex_lock(&w->mu);
	for (;;) {
		int polls = 0;
		while (!w->head && !w->closing) {
			if (polls >= 2) {
				w->idle = 1;
				pthread_cond_wait(&w->cv, &w->mu);
				w->idle = 0;
				continue;
			}
			struct timespec until;
			time_realtime_after((uint64_t)w->o.batch_ms * 1000000u, &until);
			pthread_cond_timedwait(&w->cv, &w->mu, &until);
			polls++;
		}
		/* Let a batch gather: a line waits at most batch_ms. */
		if (w->head && !w->closing && w->queued < WAKE_LINES) {
			struct timespec until;
			time_realtime_after((uint64_t)w->o.batch_ms * 1000000u, &until);
			pthread_cond_timedwait(&w->cv, &w->mu, &until);
		}
		struct line *batch = w->head;
		w->head = NULL;
		w->tail = &w->head;
		w->queued = 0;
		int closing = w->closing;
		pthread_mutex_unlock(&w->mu);
		if (batch && !__atomic_load_n(&w->stopped, __ATOMIC_RELAXED)) {
			if ((rc = index_batch(w, batch, &e)) != 0)
				stop(w, &e);
			else if (w->o.committed)
				w->o.committed(w->o.ctx);
		}
		free_lines(batch);
		pthread_mutex_lock(&w->mu);
		if (closing && !w->head)
			break;
	}
	pthread_mutex_unlock(&w->mu);
	runidx_free(w->ix);
	w->ix = NULL;
	store_close(w->st);
	w->st = NULL;
	return NULL;
}

int store_writer_start(struct store_writer *w, const char *trace_path, struct err *e)
{
	char *abs = realpath(trace_path, NULL);
	w->trace_path = abs ? abs : xstrdup(trace_path);
	w->run = runidx_run_id(w->trace_path);
	int rc = pthread_create(&w->thread, NULL, worker, w);
	if (rc) {
		__atomic_store_n(&w->stopped, 1, __ATOMIC_RELAXED); /* the tap drops lines from now on */
		return err_set(e, -rc, "cannot start the store writer thread");
	}
	w->started = 1;
	return 0;
}

int store_writer_close(struct store_writer *w, struct store_writer_stats *stats)
{
	if (!w)
		return 0;
	if (w->started) {
		pthread_mutex_lock(&w->mu);
		w->closing = 1;
		pthread_cond_signal(&w->cv);
		pthread_mutex_unlock(&w->mu);
		pthread_join(w->thread, NULL);
	}
	free_lines(w->head);
	int failed = w->stats.failed;
	if (stats)
		*stats = w->stats;
	pthread_mutex_destroy(&w->mu);
	pthread_cond_destroy(&w->cv);
	free(w->state_dir);
	free(w->trace_path);
	free(w->run);
	free(w);
	return failed ? BELAY_ESTORE : 0;
}
