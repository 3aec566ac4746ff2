/* trace_writer.c - the trace writer: records added with their seq, written in seq order by
 * an idle-priority writer thread or its normal-priority rescue, group commit. See
 * trace_writer.h for the contract; trace_line.c makes the lines, trace_pool.c makes a large
 * batch's lines in parallel.
 *
 * Who touches what:
 * - The adding threads (the owner) take a seq (an atomic counter), push the record on the
 *   inbox (an atomic stack, newest first), account its bytes in the backlog (atomic) and
 *   free the written records the writer handed back (the garbage stack, taken whole with an
 *   exchange). They take no lock a writer thread holds; the only lock they take, spare_mu,
 *   guards the reusable frame buffers, which only adders use.
 * - The writer's role (role_mu) is held by the idle writer or by the rescue: to take a
 *   batch, to write its lines, to sync. Its holder owns `struct wside`: the records taken
 *   from the inbox (sorted by seq), the next seq to write, the group commit's state, the
 *   rescue's batch and buffers, and the pool. The idle writer serialises its batch outside
 *   the role (`struct inflight`), so that the rescue never waits on its serialising.
 * - The pool's threads (started by the rescue, so at normal priority) share a batch with the
 *   rescue under the pool's lock.
 *
 * Large batches (bulk traffic) are the rescue's, serialised by the pool; a batch of a few
 * small records (the latency path) is serialised by the idle writer itself, with no hand-off. */
#include "trace/trace_writer.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <semaphore.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/buf.h"
#include "common/fsutil.h"
#include "common/hash.h"
#include "common/timeutil.h"
#include "common/xalloc.h"
#include "trace/trace_rec.h"

#define POLL_NS 1000000L               /* the idle writer's poll period while traffic flows (1 ms) */
/* The rescue hands back to the idle writer once the backlog is this small. */
#define RESCUE_LOW (TRACE_RESCUE_MARK / 4)

/* A batch of at least POOL_MIN bytes (and 2 records) is serialised by the pool; the idle
 * writer takes at most IDLE_BATCH_MAX bytes from the queue at a time, the rescue at most
 * BATCH_MAX. */
#define POOL_MIN ((size_t)192 << 10)
#define IDLE_BATCH_MAX POOL_MIN
#define BATCH_MAX ((size_t)8 << 20)
/* Frame copies of at least SPARE_MIN bytes reuse written frames' buffers (SPARE_BYTES kept). */
#define SPARE_MIN ((size_t)16 << 10)
#define SPARE_BYTES ((size_t)16 << 20)

enum { T_IDLE, T_RESCUE };

/* Records taken to be written together, in seq order. */
struct batch {
	struct trace_rec **recs;
	size_t m, cap;
	size_t cost; /* their bytes in the backlog */
};

/* The writer's side: only the holder of role_mu touches it. */
struct wside {
	struct trace_rec *head, *tail; /* taken from the inbox, in seq order */
	uint64_t write_seq;	       /* the seq of the next line to write */
	int closing_seen;	       /* every record is in head..tail (or written) */
	int finished;		       /* all written and synced after close */
	int unsynced;
	uint64_t first_unsynced_ns;
	struct batch batch; /* the rescue's */
	struct buf out, canon;
	size_t *lens, lens_cap;
	uint64_t dropped; /* records lost after a failure (read by close after the join) */
};

/* The idle writer's own: its batch and what it serialises outside the role. */
struct idle_side {
	struct batch batch;
	struct buf out, canon;
	size_t *lens, lens_cap;
};

/* The idle writer's batch while it serialises it outside the role. `state` is atomic; the
 * rest is set under the role. The rescue takes the batch over (IF_SERIALISING -> IF_STOLEN,
 * one compare-and-swap decides) and writes it itself; the idle writer then only gives the
 * records back (IF_STOLEN -> IF_NONE). */
enum { IF_NONE, IF_SERIALISING, IF_STOLEN };
struct inflight {
	int state;
	struct batch *b; /* the idle writer's */
};

struct trace_writer {
	char *path;
	int fd;
	struct trace_writer_opts o;
	uint64_t lag_ns; /* the rescue's lag bound */
	pthread_t thread, rescue_thread;

	/* Shared with the adders: atomics only. */
	struct trace_rec *inbox;   /* pushed records, newest first */
	/* Written records handed back for the adders to free: the adding thread allocated them
	 * (and most of what they hold), so it frees them too - frees from a writer thread took
	 * the allocator's lock of the adder's heap, and the forwarding loop waited on it. */
	struct trace_rec *garbage;
	uint64_t next_seq;
	size_t backlog; /* bytes of records added and not yet written */
	int was_high;
	int closing;
	uint64_t readied;  /* deferred records completed so far (a sleeping writer re-checks it) */
	uint64_t written;  /* records written so far (the rescue's measure of progress) */
	uint64_t sync_at;  /* when the written lines' fdatasync falls due (monotonic ns), or 0 */
	int waiting;	   /* the idle writer: 0 running, 1 asleep until posted, 2 polling */
	int rescue_asleep; /* the rescue sleeps until posted */
	int rescue_wanted; /* the backlog crossed the mark: the rescue should take over */
	int rescuing;	   /* the rescue holds (or waits for) the role: the idle writer stands aside */
	int finished;	   /* everything is written: the writer threads end */
	int failed;	   /* errno of the first failed write */
	uint64_t off;	   /* bytes written so far */
	sem_t wake, rescue_wake;
	struct trace_writer_stats stats; /* its counters are updated with atomics */

	pthread_mutex_t role_mu;
	struct wside ws;
	struct inflight inflight;
	struct trace_pool pool;
	/* Buffers of written large frames, for the next frames' copies (under spare_mu; adders
	 * only): fresh memory for every 64 KiB frame costs the adding thread page faults. */
	pthread_mutex_t spare_mu;
	struct spare_data {
		char *p;
		size_t cap;
	} spare_data[64];
	int nspare_data;
	size_t spare_bytes;
};

#define LOAD(p) __atomic_load_n((p), __ATOMIC_SEQ_CST)
#define STORE(p, v) __atomic_store_n((p), (v), __ATOMIC_SEQ_CST)
#define XCHG(p, v) __atomic_exchange_n((p), (v), __ATOMIC_SEQ_CST)
#define ADD(p, v) __atomic_add_fetch((p), (v), __ATOMIC_SEQ_CST)
#define SUB(p, v) __atomic_sub_fetch((p), (v), __ATOMIC_SEQ_CST)
#define COUNT(p, v) ((void)__atomic_add_fetch((p), (v), __ATOMIC_RELAXED))

/* A buffer for a copy of len bytes (len >= SPARE_MIN): a kept one when there is one. */
static char *data_take(struct trace_writer *w, size_t len, size_t *cap)
{
	struct spare_data d = {0};
	pthread_mutex_lock(&w->spare_mu);
	if (w->nspare_data > 0) {
		d = w->spare_data[--w->nspare_data];
		w->spare_bytes -= d.cap;
	}
	pthread_mutex_unlock(&w->spare_mu);
	if (d.cap < len) {
		free(d.p);
		d.cap = len;
		d.p = xmalloc(len);
	}
	*cap = d.cap;
	return d.p;
}

static void data_give(struct trace_writer *w, char *p, size_t cap)
{
	pthread_mutex_lock(&w->spare_mu);
	if (w->nspare_data < (int)(sizeof w->spare_data / sizeof w->spare_data[0]) &&
	    w->spare_bytes + cap <= SPARE_BYTES) {
		w->spare_data[w->nspare_data++] = (struct spare_data){p, cap};
		w->spare_bytes += cap;
		p = NULL;
	}
	pthread_mutex_unlock(&w->spare_mu);
	free(p);
}

static void rec_free(struct trace_writer *w, struct trace_rec *r)
{
	if (r->data_cap)
		data_give(w, r->data, r->data_cap);
	else
		free(r->data);
	free(r->kind);
	cJSON_Delete(r->envelope);
	cJSON_Delete(r->handle);
	cJSON_Delete(r->fields);
	buf_free(&r->line);
	free(r);
}

static int is_failed(struct trace_writer *w)
{
	return __atomic_load_n(&w->failed, __ATOMIC_RELAXED);
}

/* Writer thread, once: recording has become impossible. The file is cut back to its last
 * complete line (a failed write may have left part of one), a named capture_error is tried
 * (kept only if it fits whole), and the owner is woken to fail closed (trace_writer.h). */
static void note_failure(struct trace_writer *w, int err)
{
	if (is_failed(w))
		return;
	__atomic_store_n(&w->failed, err, __ATOMIC_RELAXED);
	uint64_t off = __atomic_load_n(&w->off, __ATOMIC_RELAXED);
	(void)!ftruncate(w->fd, (off_t)off);
	struct buf b = {0};
	char ts[ISO_TS_LEN];
	time_now_iso8601(ts);
	buf_printf(&b, "{\"v\":%d,\"kind\":\"capture_error\",\"dir\":null,\"cause\":\"TraceWriteFailed: %s\","
		   "\"seq\":null,\"t_in\":\"%s\",\"observation_point\":\"%s\"}\n",
		   TRACE_VERSION, strerror(err), ts, w->o.observation_point);
	if (fs_write_all(w->fd, b.p, b.len) != 0)
		(void)!ftruncate(w->fd, (off_t)off);
	else
		(void)!fdatasync(w->fd);
	buf_free(&b);
	if (w->o.on_drain)
		w->o.on_drain(w->o.ctx);
}

/*==== the writer's role: one batch at a time, by the idle writer or the rescue ====*/

/* Writes one finished line (or counts the record lost after a failure). Returns 1 when
 * the line was written. */
static int put_line(struct trace_writer *w, const struct buf *line)
{
	if (is_failed(w)) {
		w->ws.dropped++;
		return 0;
	}
	int rc = fs_write_all(w->fd, line->p, line->len);
	if (rc) {
		w->ws.dropped++;
		note_failure(w, -rc);
		return 0;
	}
	uint64_t off = __atomic_load_n(&w->off, __ATOMIC_RELAXED);
	if (w->o.on_line)
		w->o.on_line(w->o.line_ctx, off, line->p, line->len);
	__atomic_store_n(&w->off, off + line->len, __ATOMIC_RELAXED);
	return 1;
}

/* Writes k finished lines, held end to end in b (lens[i] bytes each), with one write(2):
 * a small batch (the latency path) costs one syscall, not one per record. On a failed
 * write the file is cut back to where the batch began and the lines are written one at a
 * time instead, so what a failure keeps and drops is exactly what put_line alone keeps.
 * Returns the number of lines written. */
static int put_lines(struct trace_writer *w, const struct buf *b, const size_t *lens, size_t k)
{
	if (k == 0)
		return 0;
	if (k == 1 || is_failed(w))
		goto one_by_one;
	uint64_t off0 = __atomic_load_n(&w->off, __ATOMIC_RELAXED);
	int rc = fs_write_all(w->fd, b->p, b->len);
	if (rc) {
		if (ftruncate(w->fd, (off_t)off0) == 0)
			goto one_by_one;
		/* cannot even cut it back: recording stops here, the batch is lost (counted) */
		note_failure(w, -rc);
		w->ws.dropped += k;
		return 0;
	}
	size_t at = 0;
	for (size_t i = 0; i < k; i++) {
		if (w->o.on_line)
			w->o.on_line(w->o.line_ctx, off0 + at, b->p + at, lens[i]);
		at += lens[i];
	}
	__atomic_store_n(&w->off, off0 + b->len, __ATOMIC_RELAXED);
	return (int)k;
one_by_one:;
	int n = 0;
	size_t off = 0;
	for (size_t i = 0; i < k; i++) {
		struct buf one = {.p = b->p + off, .len = lens[i]};
		n += put_line(w, &one);
		off += lens[i];
	}
	return n;
}

/* Moves the inbox into ws's seq-ordered list. The inbox is newest first; reversed, it is in
 * push order, which is seq order unless two adders raced between taking a seq and pushing. */
static void take_inbox(struct trace_writer *w)
{
	struct wside *ws = &w->ws;
	struct trace_rec *r = XCHG(&w->inbox, NULL), *fifo = NULL;
	while (r) {
		struct trace_rec *next = r->next;
		r->next = fifo;
		fifo = r;
		r = next;
	}
	while (fifo) {
		r = fifo;
		fifo = r->next;
		r->next = NULL;
		if (!ws->tail || r->seq > ws->tail->seq) {
			if (ws->tail)
				ws->tail->next = r;
			else
				ws->head = r;
			ws->tail = r;
			continue;
		}
		struct trace_rec **at = &ws->head;
		while (*at && (*at)->seq < r->seq)
			at = &(*at)->next;
		r->next = *at;
		*at = r;
	}
}

/* After close, a deferred record still waiting never got its pre-state: say so by name. */
static void name_unresolved(struct trace_writer *w)
{
	for (struct trace_rec *r = w->ws.head; r; r = r->next) {
		if (__atomic_load_n(&r->ready, __ATOMIC_ACQUIRE))
			continue;
		cJSON *h = cJSON_CreateObject();
		cJSON_AddStringToObject(h, "status", "unrestorable");
		cJSON_AddStringToObject(h, "cause", "UNRESTORABLE_SNAPSHOT_FAILED");
		cJSON_AddStringToObject(h, "detail", "the proxy closed before the snapshot finished");
		cJSON_AddStringToObject(h, "source", "turn-gate");
		cJSON_Delete(r->handle);
		r->handle = h;
		__atomic_store_n(&r->ready, 1, __ATOMIC_RELEASE);
	}
}

/* The unpooled path gathers at most this many bytes of lines per write. */
#define GATHER_MAX ((size_t)1 << 20)

static void batch_push(struct batch *b, struct trace_rec *r)
{
	if (b->m == b->cap) {
		b->cap = b->cap ? 2 * b->cap : 64;
		b->recs = xrealloc(b->recs, b->cap * sizeof *b->recs);
	}
	b->recs[b->m++] = r;
	b->cost += r->cost;
}

/* Serialises the lines of recs[0..m) end to end into `out`, their lengths into *lens (grown
 * as needed), until `out` holds `max` bytes (at least one line). Returns how many were
 * serialised; stops early once *stop (may be NULL) is IF_STOLEN (the idle writer's batch was
 * taken over: its work is wasted, so it ends). */
static size_t serialize_lines(struct trace_writer *w, struct trace_rec **recs, size_t m, size_t max, struct buf *out,
			      struct buf *canon, size_t **lens, size_t *lens_cap, const int *stop)
{
	size_t i;
	buf_reset(out);
	for (i = 0; i < m && (i == 0 || out->len < max); i++) {
		if (stop && LOAD(stop) == IF_STOLEN)
			break;
		size_t before = out->len;
		if (!is_failed(w))
			trace_line_append(out, recs[i], w->o.observation_point, canon);
		if (i == *lens_cap) {
			*lens_cap = *lens_cap ? 2 * *lens_cap : 64;
			*lens = xrealloc(*lens, *lens_cap * sizeof **lens);
		}
		(*lens)[i] = out->len - before;
	}
	return i;
}

/* Under the role: serialises and writes recs[0..m) in order - by the pool when `pooled`,
 * else inline, gathered into writes of at most GATHER_MAX bytes. Returns the lines written. */
static int write_recs(struct trace_writer *w, struct trace_rec **recs, size_t m, int pooled)
{
	struct wside *ws = &w->ws;
	int n = 0;
	if (pooled) {
		trace_pool_publish(&w->pool, recs, m);
		for (size_t i = 0; i < m; i++) {
			n += put_line(w, trace_pool_line(&w->pool, recs, i, &ws->canon));
			trace_pool_recycle(&w->pool, &recs[i]->line);
			buf_free(&recs[i]->line); /* a serialiser's: freed here */
		}
		trace_pool_end(&w->pool);
		return n;
	}
	for (size_t at = 0; at < m;) {
		/* a gathered write of the records from `at` on, at most GATHER_MAX bytes of lines */
		size_t k = serialize_lines(w, recs + at, m - at, GATHER_MAX, &ws->out, &ws->canon, &ws->lens,
					   &ws->lens_cap, NULL);
		n += put_lines(w, &ws->out, ws->lens, k);
		at += k;
	}
	if (ws->out.cap > (1u << 22))
		buf_free(&ws->out);
	return n;
}

/* Hands written records back for the adders to free. */
static void give_back(struct trace_writer *w, struct trace_rec **recs, size_t m)
{
	if (m == 0)
		return;
	for (size_t i = 0; i + 1 < m; i++)
		recs[i]->next = recs[i + 1];
	struct trace_rec *first = recs[0], *last = recs[m - 1];
	last->next = LOAD(&w->garbage);
	while (!__atomic_compare_exchange_n(&w->garbage, &last->next, first, 1, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST))
		;
	ADD(&w->stats.held, m);
}

enum step { STEP_NONE, STEP_WROTE, STEP_DONE };

/* Under the role: takes the inbox into ws's list and the ready prefix of it, in seq order
 * (at most `max` bytes of it, and at least one record) into b. */
static void take_batch(struct trace_writer *w, size_t max, struct batch *b)
{
	struct wside *ws = &w->ws;
	b->m = b->cost = 0;
	if (!ws->closing_seen && LOAD(&w->closing))
		ws->closing_seen = 1; /* every add came before close: the inbox now holds the rest */
	take_inbox(w);
	if (ws->closing_seen)
		name_unresolved(w);
	while (ws->head && ws->head->seq == ws->write_seq && __atomic_load_n(&ws->head->ready, __ATOMIC_ACQUIRE) &&
	       (b->m == 0 || b->cost < max)) {
		struct trace_rec *r = ws->head;
		ws->head = r->next;
		if (!ws->head)
			ws->tail = NULL;
		r->next = NULL;
		batch_push(b, r);
		ws->write_seq++;
	}
	if (b->m > 0)
		COUNT(&w->stats.batches, 1);
}

/* Under the role, after n lines of a batch of m records (cost bytes) were written: the group
 * commit, the hand-back (`give`: the records are the writer's to give; a stolen batch's are
 * given back by the idle writer, who may still read them), the progress and the backlog, and
 * the end of the trace. *sync_at: when an fdatasync falls due (0: none pending). */
static enum step after_write(struct trace_writer *w, struct trace_rec **recs, size_t m, size_t cost, int n, int give,
			     uint64_t *sync_at)
{
	struct wside *ws = &w->ws;
	/* (no batch of the idle writer's is in flight here: the rescue takes one over before it
	 * takes anything, and only the idle writer starts one, under the role) */
	int finish = ws->closing_seen && !ws->head;
	uint64_t now = time_mono_ns(), window_ns = (uint64_t)w->o.fsync_ms * 1000000u;
	if (n > 0 && ws->unsynced == 0)
		ws->first_unsynced_ns = now;
	ws->unsynced += n;
	if (ws->unsynced > 0 && (is_failed(w) || ws->unsynced >= w->o.fsync_every || finish ||
				 now - ws->first_unsynced_ns >= window_ns)) {
		if (!is_failed(w) && fdatasync(w->fd) != 0 && errno != EINVAL && errno != EROFS)
			note_failure(w, errno);
		ws->unsynced = 0;
	}
	*sync_at = ws->unsynced > 0 ? ws->first_unsynced_ns + window_ns : 0;
	STORE(&w->sync_at, *sync_at);
	if (give)
		give_back(w, recs, m);
	if (m > 0)
		ADD(&w->written, m);
	/* The drain: SUB, then the flag; the adder sets the flag, then reads the backlog (enqueue),
	 * so one of the two always sees the other. */
	if (cost > 0 && SUB(&w->backlog, cost) <= w->o.backlog_low && LOAD(&w->was_high) && XCHG(&w->was_high, 0)) {
		if (w->o.on_drain)
			w->o.on_drain(w->o.ctx);
	}
	if (finish) {
		ws->finished = 1;
		return STEP_DONE;
	}
	return m > 0 ? STEP_WROTE : STEP_NONE;
}

/* A rescue is counted once per pass, before its first line is written (so that whoever sees
 * the line sees the count). */
static void count_rescue(struct trace_writer *w, int *counted)
{
	if (!*counted) {
		*counted = 1;
		COUNT(&w->stats.rescues, 1);
	}
}

/* The rescue's batch: first the idle writer's batch in flight, if it has one (it is taken
 * over: written here, in its place in seq order, and the idle writer drops its copy), then
 * the ready prefix of the queue, pooled when large. *counted: this pass was counted. */
static enum step rescue_step(struct trace_writer *w, uint64_t *sync_at, int *counted)
{
	struct wside *ws = &w->ws;
	struct inflight *f = &w->inflight;
	if (w->o.test_writer)
		w->o.test_writer(w->o.test_ctx, T_RESCUE, 0);
	pthread_mutex_lock(&w->role_mu);
	enum step r = STEP_DONE;
	int took = 0;
	if (!ws->finished) {
		int st = IF_SERIALISING;
		if (__atomic_compare_exchange_n(&f->state, &st, IF_STOLEN, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)) {
			COUNT(&w->stats.taken_over, 1);
			count_rescue(w, counted);
			int n = write_recs(w, f->b->recs, f->b->m, 0);
			r = after_write(w, f->b->recs, f->b->m, f->b->cost, n, 0, sync_at);
			took = 1;
		}
	}
	if (!ws->finished) {
		take_batch(w, BATCH_MAX, &ws->batch);
		if (w->o.test_writer)
			w->o.test_writer(w->o.test_ctx, T_RESCUE, 1);
		struct batch *b = &ws->batch;
		if (b->m > 0)
			count_rescue(w, counted);
		/* the pool's threads take the rescue's normal priority (a thread leaves SCHED_IDLE
		 * only with CAP_SYS_NICE or an RLIMIT_NICE that allows it) */
		int pooled = b->m >= 2 && b->cost >= POOL_MIN && !is_failed(w) && trace_pool_start(&w->pool) > 0;
		int n = b->m ? write_recs(w, b->recs, b->m, pooled) : 0;
		r = after_write(w, b->recs, b->m, b->cost, n, 1, sync_at);
		if (took && r == STEP_NONE)
			r = STEP_WROTE;
	}
	pthread_mutex_unlock(&w->role_mu);
	return r;
}

/* The idle writer's batch: taken under the role, serialised outside it (so that the rescue
 * never waits for an idle-priority thread preempted while serialising: it takes the batch
 * over), written under the role again unless it was taken over meanwhile. */
static enum step idle_step(struct trace_writer *w, struct idle_side *iw, uint64_t *sync_at)
{
	struct wside *ws = &w->ws;
	struct inflight *f = &w->inflight;
	if (w->o.test_writer)
		w->o.test_writer(w->o.test_ctx, T_IDLE, 0);
	pthread_mutex_lock(&w->role_mu);
	if (ws->finished) {
		pthread_mutex_unlock(&w->role_mu);
		return STEP_DONE;
	}
	take_batch(w, IDLE_BATCH_MAX, &iw->batch);
	if (w->o.test_writer)
		w->o.test_writer(w->o.test_ctx, T_IDLE, 1);
	struct batch *b = &iw->batch;
	if (b->m == 0) {
		enum step r = after_write(w, NULL, 0, 0, 0, 0, sync_at);
		pthread_mutex_unlock(&w->role_mu);
		return r;
	}
	f->b = b;
	STORE(&f->state, IF_SERIALISING);
	pthread_mutex_unlock(&w->role_mu);

	size_t done =
	    serialize_lines(w, b->recs, b->m, SIZE_MAX, &iw->out, &iw->canon, &iw->lens, &iw->lens_cap, &f->state);
	if (w->o.test_writer)
		w->o.test_writer(w->o.test_ctx, T_IDLE, 2);

	pthread_mutex_lock(&w->role_mu);
	enum step r;
	int st = IF_SERIALISING;
	if (done == b->m &&
	    __atomic_compare_exchange_n(&f->state, &st, IF_NONE, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)) {
		int n = put_lines(w, &iw->out, iw->lens, b->m);
		r = after_write(w, b->recs, b->m, b->cost, n, 1, sync_at);
	} else {
		/* taken over: the rescue wrote these records and left them for this thread to give
		 * back, since it may have been reading them until now */
		give_back(w, b->recs, b->m);
		STORE(&f->state, IF_NONE);
		r = ws->finished ? STEP_DONE : STEP_WROTE;
		*sync_at = LOAD(&w->sync_at);
	}
	pthread_mutex_unlock(&w->role_mu);
	if (iw->out.cap > (1u << 22))
		buf_free(&iw->out);
	return r;
}

/* Both writer threads end once everything is written (close). */
static void end_all(struct trace_writer *w)
{
	STORE(&w->finished, 1);
	sem_post(&w->wake);
	sem_post(&w->rescue_wake);
}

static void sem_wait_until(sem_t *s, uint64_t ns_from_now)
{
	struct timespec until;
	time_realtime_after(ns_from_now, &until);
	while (sem_timedwait(s, &until) != 0 && errno == EINTR)
		;
}

static void sem_wait_untimed(sem_t *s)
{
	while (sem_wait(s) != 0 && errno == EINTR)
		;
}

/* Wakes the idle writer if it sleeps until posted (a polling one finds the work itself). */
static void post_writer(struct trace_writer *w)
{
	if (LOAD(&w->waiting) == 1 && XCHG(&w->waiting, 0) == 1) {
		sem_post(&w->wake);
		COUNT(&w->stats.wakes, 1);
	}
}

/*==== the idle writer ====*/

static void lower_priority(struct trace_writer *w)
{
	struct sched_param sp = {0};
	if (w->o.normal_priority)
		return;
	if (sched_setscheduler(0, SCHED_IDLE, &sp) == 0)
		STORE(&w->stats.idle_priority, 1);
	else
		STORE(&w->stats.priority_errno, errno);
}

/* Adding a record does not wake this thread (a wake-up per frame would cost the forwarding
 * path a cross-CPU wake-up); while traffic flows it polls every POLL_NS instead, and sleeps
 * until posted only after a few empty polls. It stands aside while the rescue works. */
static void *writer_main(void *arg)
{
	struct trace_writer *w = arg;
	pthread_setname_np(pthread_self(), "belay-trace");
	lower_priority(w);
	struct idle_side iw = {0};
	int empty_polls = 0;
	while (!LOAD(&w->finished)) {
		uint64_t seen = LOAD(&w->readied), sync_at = 0;
		enum step r = STEP_NONE;
		if (!LOAD(&w->rescuing) && LOAD(&w->backlog) <= TRACE_RESCUE_MARK)
			r = idle_step(w, &iw, &sync_at);
		if (r == STEP_DONE) {
			end_all(w);
			break;
		}
		if (r == STEP_WROTE) {
			empty_polls = 0;
			continue;
		}
		if (empty_polls >= 3 && !sync_at && !LOAD(&w->rescuing)) {
			STORE(&w->waiting, 1);
			/* re-check after saying so: an adder that came before it did not post */
			if (!LOAD(&w->inbox) && !LOAD(&w->closing) && LOAD(&w->readied) == seen && !LOAD(&w->finished))
				sem_wait_untimed(&w->wake);
			STORE(&w->waiting, 0);
			empty_polls = 0;
			continue;
		}
		uint64_t wait = POLL_NS, now = time_mono_ns();
		if (sync_at && sync_at > now && sync_at - now < wait)
			wait = sync_at - now;
		STORE(&w->waiting, 2);
		if (!(sync_at && sync_at <= now))
			sem_wait_until(&w->wake, wait);
		STORE(&w->waiting, 0);
		if (!LOAD(&w->inbox) && LOAD(&w->readied) == seen)
			empty_polls++;
	}
	buf_free(&iw.out);
	buf_free(&iw.canon);
	free(iw.batch.recs);
	free(iw.lens);
	return NULL;
}

/*==== the rescue ====*/

/* Normal priority, asleep while the idle writer keeps up. It works while the backlog is
 * over the mark (posted by the adder whose record crossed it, or by trace_writer_set_handle
 * completing a record that held a large backlog back), when the records written have not
 * moved for the lag bound (rescue_lag_ms) while bytes waited (it checks at that period while
 * there is a backlog, and sleeps until posted when there is none), and at close. */
static void *rescue_main(void *arg)
{
	struct trace_writer *w = arg;
	pthread_setname_np(pthread_self(), "belay-trace-r");
	while (!LOAD(&w->finished)) {
		if (!XCHG(&w->rescue_wanted, 0)) {
			uint64_t before = LOAD(&w->written), since = time_mono_ns();
			if (LOAD(&w->backlog) == 0 && !LOAD(&w->sync_at) && !LOAD(&w->closing)) {
				STORE(&w->rescue_asleep, 1);
				if (LOAD(&w->backlog) == 0 && !LOAD(&w->sync_at) && !LOAD(&w->closing) &&
				    !LOAD(&w->rescue_wanted) && !LOAD(&w->finished))
					sem_wait_untimed(&w->rescue_wake);
				STORE(&w->rescue_asleep, 0);
				continue;
			}
			sem_wait_until(&w->rescue_wake, w->lag_ns);
			/* lag: nothing written for the whole bound while bytes waited, or the group
			 * commit's sync overdue by it (a post that woke it early is not lag) */
			uint64_t due = LOAD(&w->sync_at), now = time_mono_ns();
			int lag = (now - since >= w->lag_ns && LOAD(&w->written) == before && LOAD(&w->backlog) > 0) ||
				  (due && now > due + w->lag_ns);
			if (!lag && !LOAD(&w->closing) && !XCHG(&w->rescue_wanted, 0))
				continue;
		}
		STORE(&w->rescuing, 1);
		enum step r;
		int counted = 0; /* a pass that writes counts as one rescue, however long it lasts */
		do {
			uint64_t sync_at;
			r = rescue_step(w, &sync_at, &counted);
		} while (r == STEP_WROTE && (LOAD(&w->backlog) > RESCUE_LOW || LOAD(&w->closing)));
		STORE(&w->rescuing, 0);
		if (counted)
			post_writer(w); /* the idle writer keeps the group commit's window from here */
		if (r == STEP_DONE) {
			end_all(w);
			break;
		}
		if (LOAD(&w->closing) && r == STEP_NONE) /* the rest waits for the idle writer's batch */
			sem_wait_until(&w->rescue_wake, POLL_NS);
	}
	return NULL;
}

/*==== owner side ====*/

static void post_rescue(struct trace_writer *w)
{
	if (!LOAD(&w->rescue_wanted) && !XCHG(&w->rescue_wanted, 1))
		sem_post(&w->rescue_wake);
}

static void free_garbage(struct trace_writer *w)
{
	struct trace_rec *g = LOAD(&w->garbage) ? XCHG(&w->garbage, NULL) : NULL;
	uint64_t n = 0;
	while (g) {
		struct trace_rec *next = g->next;
		rec_free(w, g);
		g = next;
		n++;
	}
	if (n)
		SUB(&w->stats.held, n);
}

/* Assigns the seq and publishes r; r belongs to the writer afterwards (it may be written and
 * handed back at once unless it is deferred), so the seq is returned. */
static uint64_t enqueue(struct trace_writer *w, struct trace_rec *r)
{
	uint64_t seq = __atomic_fetch_add(&w->next_seq, 1, __ATOMIC_SEQ_CST);
	r->seq = seq;
	if (w->o.test_before_publish)
		w->o.test_before_publish(w->o.test_ctx);
	size_t cost = r->cost, b = ADD(&w->backlog, cost);
	uint64_t most = __atomic_load_n(&w->stats.max_backlog, __ATOMIC_RELAXED);
	while (b > most && !__atomic_compare_exchange_n(&w->stats.max_backlog, &most, (uint64_t)b, 1, __ATOMIC_RELAXED,
							__ATOMIC_RELAXED))
		;
	if (b > w->o.backlog_high && !LOAD(&w->was_high) && !XCHG(&w->was_high, 1)) {
		COUNT(&w->stats.highs, 1);
		/* the writer may have drained it before the flag was up: then nobody else clears it */
		if (LOAD(&w->backlog) <= w->o.backlog_low)
			STORE(&w->was_high, 0);
	}
	int ready = r->ready;
	r->next = LOAD(&w->inbox);
	while (!__atomic_compare_exchange_n(&w->inbox, &r->next, r, 1, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST))
		;
	/* r may be gone from here on */
	COUNT(&w->stats.records, 1);
	if (ready)
		post_writer(w);
	if (b > TRACE_RESCUE_MARK && b - cost <= TRACE_RESCUE_MARK)
		post_rescue(w); /* the crossing */
	else if (b == cost && LOAD(&w->rescue_asleep) && XCHG(&w->rescue_asleep, 0))
		sem_post(&w->rescue_wake); /* records wait again: the rescue watches the lag */
	free_garbage(w);
	return seq;
}

static void init_sync(struct trace_writer *w)
{
	pthread_mutex_init(&w->role_mu, NULL);
	trace_pool_init(&w->pool, w->o.observation_point, &w->failed);
	pthread_mutex_init(&w->spare_mu, NULL);
	sem_init(&w->wake, 0, 0);
	sem_init(&w->rescue_wake, 0, 0);
}

static void destroy_sync(struct trace_writer *w)
{
	pthread_mutex_destroy(&w->role_mu);
	pthread_mutex_destroy(&w->spare_mu);
	sem_destroy(&w->wake);
	sem_destroy(&w->rescue_wake);
}

static int start(char *path, int fd, const struct trace_writer_opts *o, struct trace_writer **out, struct err *e)
{
	struct trace_writer *w = xcalloc(1, sizeof *w);
	w->path = path;
	w->fd = fd;
	if (o)
		w->o = *o;
	if (w->o.fsync_every <= 0)
		w->o.fsync_every = 16;
	if (w->o.fsync_ms == 0)
		w->o.fsync_ms = 50;
	if (w->o.backlog_high == 0)
		w->o.backlog_high = (size_t)64 << 20;
	if (w->o.backlog_low == 0 || w->o.backlog_low > w->o.backlog_high)
		w->o.backlog_low = w->o.backlog_high / 2;
	if (!w->o.observation_point)
		w->o.observation_point = "proxy";
	w->lag_ns = (uint64_t)(w->o.rescue_lag_ms ? w->o.rescue_lag_ms : TRACE_RESCUE_LAG_MS) * 1000000u;
	init_sync(w);
	/* The rescue first, from this thread: it keeps the caller's (normal) priority, and so do
	 * the serialisers it starts. */
	int rc = pthread_create(&w->rescue_thread, NULL, rescue_main, w);
	if (rc == 0) {
		rc = pthread_create(&w->thread, NULL, writer_main, w);
		if (rc) {
			end_all(w);
			pthread_join(w->rescue_thread, NULL);
		}
	}
	if (rc) {
		close(fd);
		free(path);
		trace_pool_destroy(&w->pool);
		destroy_sync(w);
		free(w);
		return err_set(e, -rc, "cannot start the trace writer's threads: %s", strerror(rc));
	}
	cJSON *f = cJSON_CreateObject();
	cJSON_AddStringToObject(f, "phase", "open");
	cJSON_AddStringToObject(f, "writer", "belay " BELAY_VERSION_STRING);
	trace_writer_add(w, "connection_window", f);
	*out = w;
	return 0;
}

int trace_writer_open_path(const char *path, const struct trace_writer_opts *o, struct trace_writer **out,
			   struct err *e)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_APPEND | O_CLOEXEC, 0600);
	if (fd < 0)
		return err_set(e, -errno, "cannot create trace %s: %s", path, strerror(errno));
	return start(xstrdup(path), fd, o, out, e);
}

int trace_writer_open(const char *dir, const struct trace_writer_opts *o, struct trace_writer **out, struct err *e)
{
	int rc = fs_mkdir_p(dir, 0700, e);
	if (rc)
		return rc;
	for (int attempt = 0; attempt < 8; attempt++) {
		uint8_t rnd[4];
		if (getrandom(rnd, sizeof rnd, 0) != (ssize_t)sizeof rnd)
			return err_set(e, -errno, "getrandom failed: %s", strerror(errno));
		char ts[24], hex[9];
		time_compact_utc(ts);
		hex_encode(rnd, sizeof rnd, hex);
		char *path = xasprintf("%s/trace-%s-%s.jsonl", dir, ts, hex);
		int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_APPEND | O_CLOEXEC, 0600);
		if (fd >= 0)
			return start(path, fd, o, out, e);
		int saved = errno;
		free(path);
		if (saved != EEXIST)
			return err_set(e, -saved, "cannot create a trace in %s: %s", dir, strerror(saved));
	}
	return err_set(e, BELAY_EEXIST, "cannot create a unique trace name in %s", dir);
}

const char *trace_writer_path(const struct trace_writer *w)
{
	return w->path;
}

uint64_t trace_writer_frame(struct trace_writer *w, const char *dir, const char *data, size_t len, size_t total,
			    int truncated, const struct timespec *t_in, cJSON *handle, struct trace_rec **defer)
{
	return trace_writer_frame_env(w, dir, data, len, total, truncated, NULL, t_in, handle, defer);
}

uint64_t trace_writer_frame_env(struct trace_writer *w, const char *dir, const char *data, size_t len, size_t total,
				int truncated, cJSON *envelope, const struct timespec *t_in, cJSON *handle,
				struct trace_rec **defer)
{
	struct trace_rec *r = xcalloc(1, sizeof *r);
	r->is_frame = 1;
	snprintf(r->dir, sizeof r->dir, "%s", dir);
	if (len >= SPARE_MIN) {
		r->data = data_take(w, len, &r->data_cap);
		memcpy(r->data, data, len);
	} else {
		r->data = xmemdup(data, len);
	}
	r->len = len;
	r->total = total;
	r->truncated = truncated;
	if (truncated)
		r->envelope = envelope;
	else
		cJSON_Delete(envelope);
	if (t_in)
		r->t_in = *t_in;
	else
		clock_gettime(CLOCK_REALTIME, &r->t_in);
	r->handle = handle;
	r->ready = defer == NULL;
	r->cost = len + 256;
	if (defer)
		*defer = r;
	return enqueue(w, r);
}

uint64_t trace_writer_frame_from_belay(struct trace_writer *w, const char *dir, const char *data, size_t len,
				       const char *reason)
{
	struct trace_rec *r = xcalloc(1, sizeof *r);
	r->is_frame = 1;
	r->from_belay = reason ? reason : "unknown";
	snprintf(r->dir, sizeof r->dir, "%s", dir);
	r->data = xmemdup(data, len);
	r->len = r->total = len;
	clock_gettime(CLOCK_REALTIME, &r->t_in);
	r->ready = 1;
	r->cost = len + 256;
	return enqueue(w, r);
}

/* A deferred record is not written before it is ready, so r is alive here; the writer reads
 * its handle only after it has seen `ready` (release / acquire). */
void trace_writer_set_handle(struct trace_writer *w, struct trace_rec *r, cJSON *handle)
{
	cJSON_Delete(r->handle);
	r->handle = handle;
	__atomic_store_n(&r->ready, 1, __ATOMIC_RELEASE);
	ADD(&w->readied, 1);
	post_writer(w);
	if (LOAD(&w->backlog) > TRACE_RESCUE_MARK)
		post_rescue(w); /* it held a large backlog back */
}

uint64_t trace_writer_add(struct trace_writer *w, const char *kind, cJSON *fields)
{
	struct trace_rec *r = xcalloc(1, sizeof *r);
	r->kind = xstrdup(kind);
	r->fields = fields;
	r->ready = 1;
	r->cost = 256;
	clock_gettime(CLOCK_REALTIME, &r->t_in);
	return enqueue(w, r);
}

uint64_t trace_writer_capture_error(struct trace_writer *w, const char *dir, const char *cause)
{
	cJSON *f = cJSON_CreateObject();
	if (dir)
		cJSON_AddStringToObject(f, "dir", dir);
	else
		cJSON_AddNullToObject(f, "dir");
	cJSON_AddStringToObject(f, "cause", cause);
	return trace_writer_add(w, "capture_error", f);
}

size_t trace_writer_backlog(struct trace_writer *w)
{
	return LOAD(&w->backlog);
}

void trace_writer_stats(struct trace_writer *w, struct trace_writer_stats *st)
{
	const struct trace_writer_stats *s = &w->stats;
	*st = (struct trace_writer_stats){
	    .records = LOAD(&s->records),
	    .batches = LOAD(&s->batches),
	    .wakes = LOAD(&s->wakes),
	    .highs = LOAD(&s->highs),
	    .max_backlog = LOAD(&s->max_backlog),
	    .held = LOAD(&s->held),
	    .rescues = LOAD(&s->rescues),
	    .taken_over = LOAD(&s->taken_over),
	    .idle_priority = LOAD(&s->idle_priority),
	    .priority_errno = LOAD(&s->priority_errno),
	};
	st->writer_cpu_ns = time_thread_cpu_ns(&w->thread);
	st->rescue_cpu_ns = time_thread_cpu_ns(&w->rescue_thread);
	st->pool_cpu_ns = trace_pool_cpu_ns(&w->pool); /* started by the rescue, live until close */
}

int trace_writer_over_high(struct trace_writer *w)
{
	return LOAD(&w->was_high);
}

int trace_writer_failed(struct trace_writer *w)
{
	return is_failed(w);
}

uint64_t trace_writer_kept_bytes(struct trace_writer *w)
{
	return __atomic_load_n(&w->off, __ATOMIC_RELAXED);
}

int trace_writer_close(struct trace_writer *w, struct err *e)
{
	if (!w)
		return 0;
	/* Every add is done: after the closing record, the writer threads write the rest (a
	 * deferred record still waiting is named unrestorable), sync and end. */
	cJSON *f = cJSON_CreateObject();
	cJSON_AddStringToObject(f, "phase", "close");
	trace_writer_add(w, "connection_window", f);
	STORE(&w->closing, 1);
	sem_post(&w->wake);
	sem_post(&w->rescue_wake);
	pthread_join(w->thread, NULL);
	pthread_join(w->rescue_thread, NULL);
	trace_pool_destroy(&w->pool);
	free_garbage(w);
	struct wside *ws = &w->ws;
	int rc = 0;
	if (w->failed) {
		rc = err_set(e, -w->failed, "trace %s is incomplete: %s (%llu record(s) not written)", w->path,
			     strerror(w->failed), (unsigned long long)ws->dropped);
	}
	if (close(w->fd) != 0 && !rc)
		rc = err_set(e, -errno, "closing trace %s: %s", w->path, strerror(errno));
	buf_free(&ws->out);
	buf_free(&ws->canon);
	free(ws->batch.recs);
	free(ws->lens);
	destroy_sync(w);
	while (w->nspare_data > 0)
		free(w->spare_data[--w->nspare_data].p);
	free(w->path);
	free(w);
	return rc;
}
