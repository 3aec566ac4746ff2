/* store_writer.c - the live store writer: queue of trace lines -> runidx in batched
 * transactions on its own thread and its own connection. See store_writer.h.
 *
 * Must not: block the tap (a mutex held for a pointer swap is all it takes), print. */
#include "index/store_writer.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "common/buf.h"
#include "common/err.h"
#include "common/fsutil.h"
#include "common/paths.h"
#include "common/timeutil.h"
#include "common/xalloc.h"
#include "index/runidx.h"
#include "store/store.h"

#define WAKE_LINES 4096		 /* wake the worker at once when this many lines wait */
#define QUEUE_MAX ((size_t)8 << 20)	 /* default queue_max */
#define READBACK_CHUNK ((size_t)1 << 20) /* bytes of the trace read back per transaction */

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
	size_t queued_bytes;
	/* Spilling: the queue was full, so lines [spill_from, spill_to) of the trace are read
	 * back from the file; the queue stays empty until the worker has caught up. */
	int spilling;
	uint64_t spill_from, spill_to;
	int idle, closing;
	int stopped; /* failed: drop lines */
	struct store_writer_stats stats;
	/* worker only */
	struct store *st;
	struct runidx *ix;
	int trace_fd; /* the trace, opened for reading back spilled lines */
};

struct store_writer *store_writer_new(const char *state_dir, const struct store_writer_opts *o)
{
	struct store_writer *w = xcalloc(1, sizeof *w);
	w->state_dir = xstrdup(state_dir);
	if (o)
		w->o = *o;
	if (w->o.batch_ms == 0)
		w->o.batch_ms = 50;
	if (w->o.queue_max == 0)
		w->o.queue_max = QUEUE_MAX;
	w->trace_fd = -1;
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
	/* One lock per line. While spilling, the copy is skipped (a hint read without the lock;
	 * the decision is taken under it). */
	struct line *l = NULL;
	if (!__atomic_load_n(&w->spilling, __ATOMIC_RELAXED)) {
		l = xmalloc(sizeof *l + len);
		l->next = NULL;
		l->off = off;
		l->len = len;
		memcpy(l->data, line, len);
	}
	pthread_mutex_lock(&w->mu);
	if (!l || w->spilling || w->queued_bytes + len > w->o.queue_max) {
		if (!w->spilling) {
			__atomic_store_n(&w->spilling, 1, __ATOMIC_RELAXED);
			w->spill_from = off;
			w->stats.spills++;
		}
		w->spill_to = off + len;
		if (w->idle)
			pthread_cond_signal(&w->cv);
		pthread_mutex_unlock(&w->mu);
		free(l);
		return;
	}
	*w->tail = l;
	w->tail = &l->next;
	w->queued++;
	w->queued_bytes += len;
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

/* Indexes trace lines [from, to) read back from the file, one transaction per chunk.
 * The range ends at a line's end (the tap saw the whole line written). */
static int read_back(struct store_writer *w, uint64_t from, uint64_t to, struct err *e)
{
	struct buf b = {0};
	uint64_t pos = from; /* file offset of b's first byte */
	int rc = 0;
	while (pos < to && rc == 0) {
		/* Fill b with at least one whole line, or READBACK_CHUNK bytes of them. */
		uint64_t want = to - pos - b.len < READBACK_CHUNK ? to - pos - b.len : READBACK_CHUNK;
		buf_reserve(&b, (size_t)want);
		ssize_t n = pread(w->trace_fd, b.p + b.len, (size_t)want, (off_t)(pos + b.len));
		if (n <= 0) {
			rc = err_set(e, BELAY_ESTORE, "cannot read back the trace %s at byte %llu: %s", w->trace_path,
				     (unsigned long long)(pos + b.len), n < 0 ? strerror(errno) : "it ends early");
			break;
		}
		b.len += (size_t)n;
		struct line *head = NULL, **tail = &head;
		size_t start = 0, lines = 0;
		for (size_t i = 0; i < b.len; i++) {
			if (b.p[i] != '\n')
				continue;
			size_t len = i + 1 - start;
			struct line *l = xmalloc(sizeof *l + len);
			l->next = NULL;
			l->off = pos + start;
			l->len = len;
			memcpy(l->data, b.p + start, len);
			*tail = l;
			tail = &l->next;
			start = i + 1;
			lines++;
		}
		if (head) {
			rc = index_batch(w, head, e);
			free_lines(head);
			w->stats.spilled += lines;
			if (rc == 0 && w->o.committed)
				w->o.committed(w->o.ctx);
		}
		/* Keep the unfinished tail of the chunk for the next read. */
		memmove(b.p, b.p + start, b.len - start);
		b.len -= start;
		pos += start;
	}
	buf_free(&b);
	return rc;
}

/* Worker, mutex held: reads back what was spilled until it has caught up, then lets the
 * tap queue again. Returns with the mutex held. */
static void catch_up(struct store_writer *w, struct err *e)
{
	while (w->spilling) {
		uint64_t from = w->spill_from, to = w->spill_to;
		if (from == to) {
			__atomic_store_n(&w->spilling, 0, __ATOMIC_RELAXED);
			break;
		}
		w->spill_from = to;
		pthread_mutex_unlock(&w->mu);
		int stopped = __atomic_load_n(&w->stopped, __ATOMIC_RELAXED), rc = 0;
		if (!stopped && w->trace_fd < 0 && (w->trace_fd = open(w->trace_path, O_RDONLY | O_CLOEXEC)) < 0)
			rc = err_set(e, BELAY_ESTORE, "cannot open the trace %s to read back lines: %s", w->trace_path,
				     strerror(errno));
		if (!stopped && rc == 0)
			rc = read_back(w, from, to, e);
		if (rc)
			stop(w, e);
		pthread_mutex_lock(&w->mu);
		if (stopped || rc)
			__atomic_store_n(&w->spilling, 0, __ATOMIC_RELAXED); /* the tap drops lines from now on */
	}
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
		while (!w->head && !w->spilling && !w->closing) {
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
		w->queued_bytes = 0;
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
		/* The queue held only lines before the spill: now read the spilled ones. */
		catch_up(w, &e);
		if (closing && !w->head && !w->spilling)
			break;
	}
	pthread_mutex_unlock(&w->mu);
	runidx_free(w->ix);
	w->ix = NULL;
	if (w->trace_fd >= 0)
		close(w->trace_fd);
	w->trace_fd = -1;
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
