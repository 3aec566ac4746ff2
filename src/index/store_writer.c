/* store_writer.c - the live store writer: queue of trace lines -> runidx in batched
 * transactions on its own thread and its own connection. See store_writer.h.
 *
 * Must not: block the tap (it shares no lock with the worker, see struct store_writer),
 * print. */
#include "index/store_writer.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <semaphore.h>
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

#define QUEUE_MAX ((size_t)8 << 20)	 /* default queue_max */
#define READBACK_CHUNK ((size_t)1 << 20) /* bytes of the trace read back per transaction */
#define RESUME_NONE UINT64_MAX		 /* resume: no offer */
#define RESUME_TAKEN (UINT64_MAX - 1)	 /* resume: the tap took the offer and queues again */

struct line {
	struct line *next;
	uint64_t off;
	size_t len;
	char data[];
};

/* The tap and the worker share no lock: the worker runs at idle priority, and a lock it
 * held while preempted would stall the tap, hence the trace writer, hence forwarding. What
 * they share is atomic: the inbox (a stack the tap pushes on, the worker takes whole), the
 * queued byte count, the spill range and the resume offer, the worker's idle flag and a
 * semaphore (sem_post never blocks).
 *
 * Spilling: the tap alone starts a spill (spill_from, spill_to, then spilling = 1) and
 * extends it (spill_to). The worker, having indexed what was queued before, reads back
 * [spill_from, spill_to), then offers the tap to queue again from where it stopped:
 * resume = X. The tap takes the offer only with a line that starts exactly at X
 * (compare-and-swap X -> RESUME_TAKEN); if the tap spilled past X first, the worker
 * withdraws the offer (compare-and-swap X -> RESUME_NONE) and reads back further. Either
 * way exactly one of them owns each line. */
struct store_writer {
	char *state_dir;
	char *trace_path;
	char *run;
	struct store_writer_opts o;
	pthread_t thread;
	int started;
	sem_t wake;
	struct line *inbox;  /* atomic: newest first */
	size_t queued_bytes; /* atomic */
	uint64_t queued;     /* atomic: lines pushed since the worker last took the inbox */
	uint64_t last_tap_ns;	/* atomic: when the tap last queued or spilled a line (monotonic) */
	int spilling;	     /* atomic: set by the tap, cleared by the worker */
	uint64_t spill_from, spill_to; /* atomic */
	uint64_t resume;	       /* atomic */
	int idle;		       /* atomic: the worker sleeps until posted */
	int closing;		       /* atomic */
	int stopped;		       /* atomic: failed: drop lines */
	/* tap only (read by the owner after the join) */
	int tap_spilling;
	uint64_t tap_max_queue, tap_spills;
	/* worker only (read by the owner after the join) */
	struct store_writer_stats stats;
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
		w->o.batch_ms = 1000;
	if (w->o.quiet_ms == 0)
		w->o.quiet_ms = 5;
	if (w->o.queue_max == 0)
		w->o.queue_max = QUEUE_MAX;
	w->trace_fd = -1;
	w->resume = RESUME_NONE;
	sem_init(&w->wake, 0, 0);
	return w;
}

static void wake_worker(struct store_writer *w)
{
	if (__atomic_load_n(&w->idle, __ATOMIC_SEQ_CST) && __atomic_exchange_n(&w->idle, 0, __ATOMIC_SEQ_CST))
		sem_post(&w->wake);
}

void store_writer_tap(void *ctx, uint64_t off, const char *line, size_t len)
{
	struct store_writer *w = ctx;
	if (__atomic_load_n(&w->stopped, __ATOMIC_RELAXED))
		return;
	__atomic_store_n(&w->last_tap_ns, time_mono_ns(), __ATOMIC_RELAXED);
	if (w->tap_spilling) {
		uint64_t at = off;
		if (!__atomic_compare_exchange_n(&w->resume, &at, RESUME_TAKEN, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)) {
			__atomic_store_n(&w->spill_to, off + len, __ATOMIC_SEQ_CST);
			wake_worker(w);
			return;
		}
		w->tap_spilling = 0; /* the worker has read back up to this line: queue again */
	} else if (__atomic_load_n(&w->queued_bytes, __ATOMIC_RELAXED) + len > w->o.queue_max) {
		w->tap_spilling = 1;
		w->tap_spills++;
		__atomic_store_n(&w->spill_from, off, __ATOMIC_RELAXED);
		__atomic_store_n(&w->spill_to, off + len, __ATOMIC_RELAXED);
		__atomic_store_n(&w->spilling, 1, __ATOMIC_SEQ_CST); /* after every push before it */
		wake_worker(w);
		return;
	}
	struct line *l = xmalloc(sizeof *l + len);
	l->off = off;
	l->len = len;
	memcpy(l->data, line, len);
	l->next = __atomic_load_n(&w->inbox, __ATOMIC_RELAXED);
	while (!__atomic_compare_exchange_n(&w->inbox, &l->next, l, 1, __ATOMIC_SEQ_CST, __ATOMIC_RELAXED))
		;
	__atomic_add_fetch(&w->queued_bytes, len, __ATOMIC_RELAXED);
	uint64_t q = __atomic_add_fetch(&w->queued, 1, __ATOMIC_RELAXED);
	if (q > w->tap_max_queue)
		w->tap_max_queue = q;
	wake_worker(w);
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

/*==== the worker ====*/

/* The worker's side of the spill protocol (see struct store_writer). */
enum wmode {
	W_QUEUE, /* indexing what the tap queues */
	W_SPILL, /* reading back [from, spill_to) */
	W_OFFER, /* caught up at `from`, offered the tap to queue again from there */
};

struct wstate {
	enum wmode mode;
	uint64_t from;
	struct err e;
};

/* Indexes a batch (newest first, as the inbox holds it) in trace order. */
static void index_lines(struct store_writer *w, struct line *l, struct wstate *s)
{
	struct line *batch = NULL;
	while (l) { /* reverse */
		struct line *n = l->next;
		l->next = batch;
		batch = l;
		l = n;
	}
	if (batch && !__atomic_load_n(&w->stopped, __ATOMIC_RELAXED)) {
		if (index_batch(w, batch, &s->e) != 0)
			stop(w, &s->e);
		else if (w->o.committed)
			w->o.committed(w->o.ctx);
	}
	free_lines(batch);
}

static void read_back_to(struct store_writer *w, struct wstate *s, uint64_t to)
{
	int rc = 0;
	if (!__atomic_load_n(&w->stopped, __ATOMIC_RELAXED)) {
		if (w->trace_fd < 0 && (w->trace_fd = open(w->trace_path, O_RDONLY | O_CLOEXEC)) < 0)
			rc = err_set(&s->e, BELAY_ESTORE, "cannot open the trace %s to read back lines: %s",
				     w->trace_path, strerror(errno));
		if (rc == 0)
			rc = read_back(w, s->from, to, &s->e);
		if (rc)
			stop(w, &s->e);
	}
	s->from = to;
}

/* One step of work. Returns 1 when it did something (or changed mode), 0 when there is
 * nothing to do until the tap adds more. */
static int step(struct store_writer *w, struct wstate *s)
{
	switch (s->mode) {
	case W_QUEUE: {
		int spill = __atomic_load_n(&w->spilling, __ATOMIC_SEQ_CST);
		struct line *l = __atomic_exchange_n(&w->inbox, NULL, __ATOMIC_SEQ_CST);
		if (!l && !spill)
			return 0;
		size_t bytes = 0;
		for (struct line *x = l; x; x = x->next)
			bytes += x->len;
		__atomic_sub_fetch(&w->queued_bytes, bytes, __ATOMIC_RELAXED);
		__atomic_store_n(&w->queued, 0, __ATOMIC_RELAXED);
		index_lines(w, l, s); /* every line queued before the spill began */
		if (spill) {
			__atomic_store_n(&w->spilling, 0, __ATOMIC_SEQ_CST);
			s->from = __atomic_load_n(&w->spill_from, __ATOMIC_SEQ_CST);
			s->mode = W_SPILL;
		}
		return 1;
	}
	case W_SPILL: {
		uint64_t to = __atomic_load_n(&w->spill_to, __ATOMIC_SEQ_CST);
		if (to > s->from) {
			read_back_to(w, s, to);
			return 1;
		}
		if (w->o.test_before_offer)
			w->o.test_before_offer(w->o.ctx);
		__atomic_store_n(&w->resume, s->from, __ATOMIC_SEQ_CST);
		s->mode = W_OFFER;
		return 1;
	}
	case W_OFFER: {
		if (__atomic_load_n(&w->resume, __ATOMIC_SEQ_CST) == RESUME_TAKEN) {
			__atomic_store_n(&w->resume, RESUME_NONE, __ATOMIC_SEQ_CST);
			s->mode = W_QUEUE;
			return 1;
		}
		if (__atomic_load_n(&w->spill_to, __ATOMIC_SEQ_CST) <= s->from)
			return 0; /* the tap has not written past the offer yet */
		uint64_t at = s->from;
		if (__atomic_compare_exchange_n(&w->resume, &at, RESUME_NONE, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)) {
			s->mode = W_SPILL; /* withdrawn: the tap spilled past it; read further */
			w->stats.withdrawn++;
		} else {
			__atomic_store_n(&w->resume, RESUME_NONE, __ATOMIC_SEQ_CST); /* taken */
			s->mode = W_QUEUE;
		}
		return 1;
	}
	}
	return 0;
}

uint64_t store_writer_gather_wait(uint64_t now, uint64_t woke, uint64_t last, uint64_t quiet_ns, uint64_t max_ns)
{
	uint64_t waited = now > woke ? now - woke : 0;
	if (waited >= max_ns)
		return 0;
	uint64_t since = last && now > last ? now - last : last ? 0 : quiet_ns;
	if (since >= quiet_ns)
		return 0;
	uint64_t a = quiet_ns - since, b = max_ns - waited;
	return a < b ? a : b;
}

/* Lets a batch gather after a wake-up: until the lines pause (quiet_ms), at most batch_ms;
 * closing ends it at once (sem_post). */
static void gather(struct store_writer *w)
{
	const uint64_t quiet = (uint64_t)w->o.quiet_ms * 1000000u, max = (uint64_t)w->o.batch_ms * 1000000u;
	uint64_t woke = time_mono_ns(), now = woke, wait;
	while (!__atomic_load_n(&w->closing, __ATOMIC_SEQ_CST) &&
	       (wait = store_writer_gather_wait(now, woke, __atomic_load_n(&w->last_tap_ns, __ATOMIC_RELAXED), quiet,
						max)) > 0) {
		struct timespec until;
		time_realtime_after(wait, &until);
		while (sem_timedwait(&w->wake, &until) != 0 && errno == EINTR)
			;
		now = time_mono_ns();
	}
	if (now - woke > w->stats.max_wait_ns)
		w->stats.max_wait_ns = now - woke;
	if (__atomic_load_n(&w->closing, __ATOMIC_SEQ_CST))
		return; /* neither: the run ended */
	if (now - woke >= max)
		w->stats.lagged++;
	else
		w->stats.paused++;
}

/* Sleeps until the tap adds work (or close), then lets a batch gather (gather()). */
static void sleep_for_work(struct store_writer *w, const struct wstate *s)
{
	__atomic_store_n(&w->idle, 1, __ATOMIC_SEQ_CST);
	int work = __atomic_load_n(&w->inbox, __ATOMIC_SEQ_CST) || __atomic_load_n(&w->spilling, __ATOMIC_SEQ_CST) ||
		   __atomic_load_n(&w->closing, __ATOMIC_SEQ_CST) ||
		   (s->mode == W_OFFER && (__atomic_load_n(&w->resume, __ATOMIC_SEQ_CST) == RESUME_TAKEN ||
					   __atomic_load_n(&w->spill_to, __ATOMIC_SEQ_CST) > s->from));
	if (work && __atomic_exchange_n(&w->idle, 0, __ATOMIC_SEQ_CST))
		return; /* nobody posted: nothing to consume */
	while (sem_wait(&w->wake) != 0 && errno == EINTR)
		;
	__atomic_store_n(&w->idle, 0, __ATOMIC_SEQ_CST);
	gather(w);
}

/* Work that is not forwarding runs at idle priority (SCHED_IDLE, this thread alone): it
 * gets the CPU only when the agent, the server and the proxy's forwarding and recording
 * threads leave it idle. Not being allowed to is not an error (the stats say so). */
static void lower_priority(struct store_writer *w)
{
	struct sched_param sp = {0};
	if (sched_setscheduler(0, SCHED_IDLE, &sp) == 0)
		w->stats.idle_priority = 1;
	else
		w->stats.priority_errno = errno;
}

static void *worker(void *arg)
{
	struct store_writer *w = arg;
	struct wstate s = {.mode = W_QUEUE};
	pthread_setname_np(pthread_self(), "belay-index");
	lower_priority(w);
	char *db = fs_join(w->state_dir, "belay.db");
	int rc = paths_ensure_state_dir(w->state_dir, &s.e);
	if (rc == 0)
		rc = store_open(db, &w->st, &s.e);
	free(db);
	if (rc)
		stop(w, &s.e);
	for (;;) {
		/* Closing is read before the step: once the trace writer is closed (before
		 * store_writer_close), no tap runs, so a step that then finds nothing is the end. */
		int closing = __atomic_load_n(&w->closing, __ATOMIC_SEQ_CST);
		if (step(w, &s))
			continue;
		if (closing)
			break;
		sleep_for_work(w, &s);
	}
	runidx_free(w->ix);
	w->ix = NULL;
	if (w->trace_fd >= 0)
		close(w->trace_fd);
	w->trace_fd = -1;
	store_close(w->st);
	w->st = NULL;
	w->stats.cpu_ns = time_thread_cpu_ns(NULL); /* read by store_writer_close after the join */
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
		__atomic_store_n(&w->closing, 1, __ATOMIC_SEQ_CST);
		sem_post(&w->wake);
		pthread_join(w->thread, NULL);
	}
	free_lines(__atomic_exchange_n(&w->inbox, NULL, __ATOMIC_SEQ_CST));
	w->stats.max_queue = w->tap_max_queue;
	w->stats.spills = w->tap_spills;
	int failed = w->stats.failed;
	if (stats)
		*stats = w->stats;
	sem_destroy(&w->wake);
	free(w->state_dir);
	free(w->trace_path);
	free(w->run);
	free(w);
	return failed ? BELAY_ESTORE : 0;
}
