/* trace_writer.c - JSONL trace with seq at add time, serialisation and group commit on a
 * writer thread. See trace_writer.h for the contract.
 *
 * Large batches (bulk traffic) are serialised in parallel: the writer hands the batch to a
 * small pool of serialiser threads (started on first need, sized from the core count) and
 * serialises the record it must write next itself when no serialiser has taken it yet;
 * it writes the finished lines strictly in batch (= seq) order. A batch of a few small
 * records (the latency path) is serialised inline as before, with no hand-off. */
#include "engine/trace_writer.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/buf.h"
#include "common/fsutil.h"
#include "common/hash.h"
#include "common/jcs.h"
#include "common/jsonx.h"
#include "common/timeutil.h"
#include "common/xalloc.h"

#define POLL_NS 1000000L            /* writer poll period while traffic flows (1 ms) */
#define WAKE_BACKLOG ((size_t)1 << 20) /* wake the writer at once above this backlog */

/* A batch of at least POOL_MIN bytes (and 2 records) is serialised by the pool; the writer
 * takes at most BATCH_MAX bytes from the queue at a time; the pool serialises at most
 * LOOKAHEAD records ahead of the one being written. */
#define POOL_MIN ((size_t)192 << 10)
#define BATCH_MAX ((size_t)8 << 20)
#define POOL_MAX_THREADS 8
#define LOOKAHEAD(p) ((size_t)(p)->nthreads * 4 + 4)
/* Frame copies of at least SPARE_MIN bytes reuse written frames' buffers (SPARE_BYTES kept). */
#define SPARE_MIN ((size_t)16 << 10)
#define SPARE_BYTES ((size_t)16 << 20)

struct trace_rec {
	struct trace_rec *next;
	uint64_t seq;
	int ready;
	int is_frame;
	struct timespec t_in;
	/* frame */
	char dir[4];
	char *data;
	size_t data_cap; /* non-zero: data is a reusable buffer of this size */
	size_t len, total;
	int truncated;
	const char *from_belay; /* a reply belay made: its reason (static), else NULL */
	cJSON *envelope; /* truncated frames: the whole frame's JSON-RPC envelope (may be NULL) */
	cJSON *handle;
	/* other records */
	char *kind;
	cJSON *fields;
	size_t cost; /* bytes accounted in the backlog */
	/* pool batches: the finished line, and whether it is (under pool.mu) */
	struct buf line;
	int claimed, done;
};

/* Serialiser threads for large batches. All fields under mu; `jobs` is the writer's batch. */
struct pool {
	pthread_mutex_t mu;
	pthread_cond_t work;  /* a batch was published, or quit */
	pthread_cond_t ready; /* a line the writer waits for is done */
	pthread_t threads[POOL_MAX_THREADS];
	int nthreads, started;
	struct trace_rec **jobs;
	size_t njobs, next; /* jobs[next..] are unclaimed */
	size_t limit;	    /* and only jobs[..limit) may be claimed: lines wait for the writer */
	int idle;	    /* pool threads waiting for work */
	int writer_waits;
	int quit;
	/* Written lines' buffers, kept for the next ones (fresh pages cost a fault each). */
	struct buf spare[4 * POOL_MAX_THREADS + 6];
	int nspare;
};

struct trace_writer {
	char *path;
	int fd;
	struct trace_writer_opts o;
	pthread_t thread;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	struct trace_rec *head, *tail;
	/* Records written, handed back for the next adder to free: the adding thread allocated
	 * them (and most of what they hold), so it frees them too - frees from the writer thread
	 * took the allocator's lock of the adder's heap, and the forwarding loop waited on it. */
	struct trace_rec *garbage;
	uint64_t ngarbage;
	uint64_t next_seq;
	size_t backlog;
	int was_high;
	int closing, closed_added;
	int idle;   /* the writer sleeps until signalled (else it polls every POLL_NS while busy) */
	int failed; /* atomic: the pool's threads read it */
	uint64_t dropped;
	uint64_t off; /* bytes written so far (writer thread) */
	struct trace_writer_stats stats; /* under mu */
	struct pool pool;
	/* Buffers of written large frames, for the next frames' copies (under spare_mu):
	 * fresh memory for every 64 KiB frame costs the adding thread page faults. */
	pthread_mutex_t spare_mu;
	struct spare_data {
		char *p;
		size_t cap;
	} spare_data[64];
	int nspare_data;
	size_t spare_bytes;
};

/*==== serialisation (writer thread and pool threads) ====*/

/* Appends n in decimal (records are printed without printf: it was a third of the
 * serialising time of a small record). */
static void put_u64(struct buf *b, uint64_t n)
{
	char d[20];
	int i = sizeof d;
	do
		d[--i] = (char)('0' + n % 10);
	while ((n /= 10) != 0);
	buf_append(b, d + i, sizeof d - (size_t)i);
}

static void envelope_tail(struct buf *b, uint64_t seq, const struct timespec *t_in, const char *observation_point)
{
	char ts[ISO_TS_LEN];
	time_iso8601(t_in, ts);
	buf_puts(b, ",\"seq\":");
	put_u64(b, seq);
	buf_puts(b, ",\"t_in\":\"");
	buf_puts(b, ts);
	buf_puts(b, "\",\"observation_point\":\"");
	buf_puts(b, observation_point);
	buf_puts(b, "\"}\n");
}

static void put_envelope_tail(struct trace_writer *w, struct buf *b, const struct trace_rec *r)
{
	envelope_tail(b, r->seq, &r->t_in, w->o.observation_point);
}

/* `canon` is the calling thread's scratch for a canonical form that differs from the raw
 * bytes (a frame already in canonical form is not copied, and its hash is the raw one). */
static void serialize_frame(struct trace_writer *w, struct buf *b, const struct trace_rec *r, struct buf *canon)
{
	char hraw[72];
	sha256_tagged(r->data, r->len, hraw);
	buf_reserve(b, base64_encoded_len(r->len) + 512);
	buf_puts(b, "{\"v\":");
	put_u64(b, TRACE_VERSION);
	buf_puts(b, ",\"kind\":\"frame\",\"dir\":\"");
	buf_puts(b, r->dir);
	buf_puts(b, "\",\"raw\":\"");
	base64_encode(r->data, r->len, b);
	buf_puts(b, "\",\"hash_raw\":\"");
	buf_puts(b, hraw);
	buf_puts(b, "\",");
	buf_reset(canon);
	int rc = r->truncated ? -1 : jcs_canonicalize_same(r->data, r->len, canon);
	if (rc >= 0) {
		char hc[72];
		if (rc == 1)
			memcpy(hc, hraw, sizeof hc);
		else
			sha256_tagged(canon->p, canon->len, hc);
		buf_puts(b, "\"hash_canonical\":\"");
		buf_puts(b, hc);
		buf_puts(b, "\",\"canonical_form\":\"" JCS_FORM_ID "\",");
	} else {
		buf_puts(b, "\"hash_canonical\":null,\"canonical_form\":null,");
	}
	if (canon->cap > ((size_t)1 << 22))
		buf_free(canon);
	if (r->from_belay)
		buf_printf(b, "\"origin\":\"belay\",\"belay_reason\":\"%s\",", r->from_belay);
	buf_puts(b, r->truncated ? "\"truncated\":true,\"len\":" : "\"truncated\":false,\"len\":");
	put_u64(b, r->total);
	buf_putc(b, ',');
	if (r->truncated) {
		buf_puts(b, "\"envelope\":");
		if (r->envelope)
			jx_print_buf(r->envelope, b);
		else
			buf_puts(b, "null");
		buf_putc(b, ',');
	}
	buf_puts(b, "\"state_handle\":");
	if (r->handle)
		jx_print_buf(r->handle, b);
	else
		buf_puts(b, "{\"status\":\"absent\"}");
	put_envelope_tail(w, b, r);
}

void trace_record_line(struct buf *b, const char *kind, const cJSON *fields, uint64_t seq, const struct timespec *t_in,
		       const char *observation_point)
{
	buf_puts(b, "{\"v\":");
	put_u64(b, TRACE_VERSION);
	buf_puts(b, ",\"kind\":");
	jx_write_string(kind, b);
	if (fields) {
		for (const cJSON *c = fields->child; c; c = c->next) {
			buf_putc(b, ',');
			jx_write_string(c->string, b);
			buf_putc(b, ':');
			jx_print_buf(c, b);
		}
	}
	envelope_tail(b, seq, t_in, observation_point);
}

static void serialize_other(struct trace_writer *w, struct buf *b, const struct trace_rec *r)
{
	trace_record_line(b, r->kind, r->fields, r->seq, &r->t_in, w->o.observation_point);
}

static void serialize(struct trace_writer *w, struct buf *b, const struct trace_rec *r, struct buf *canon)
{
	if (r->is_frame)
		serialize_frame(w, b, r, canon);
	else
		serialize_other(w, b, r);
}

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

static void free_recs(struct trace_writer *w, struct trace_rec *r)
{
	while (r) {
		struct trace_rec *next = r->next;
		rec_free(w, r);
		r = next;
	}
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

/*==== the serialiser pool ====*/

static void *pool_main(void *arg)
{
	struct trace_writer *w = arg;
	struct pool *p = &w->pool;
	struct buf canon = {0};
	pthread_setname_np(pthread_self(), "belay-tpool");
	pthread_mutex_lock(&p->mu);
	for (;;) {
		while (!p->quit && (p->next >= p->njobs || p->next >= p->limit)) {
			p->idle++;
			pthread_cond_wait(&p->work, &p->mu);
			p->idle--;
		}
		if (p->quit)
			break;
		struct trace_rec *r = p->jobs[p->next++];
		r->claimed = 1;
		if (p->nspare > 0)
			r->line = p->spare[--p->nspare];
		pthread_mutex_unlock(&p->mu);
		if (!is_failed(w)) /* after a failure the writer only counts the rest */
			serialize(w, &r->line, r, &canon);
		pthread_mutex_lock(&p->mu);
		r->done = 1;
		if (p->writer_waits)
			pthread_cond_signal(&p->ready);
	}
	pthread_mutex_unlock(&p->mu);
	buf_free(&canon);
	return NULL;
}

/* Starts the pool's threads on first use: as many as there are cores (at least 2), so a
 * proxy that only ever sees small messages never has them. Returns how many run. */
static int pool_start(struct trace_writer *w)
{
	struct pool *p = &w->pool;
	if (p->started)
		return p->nthreads;
	p->started = 1;
	long cores = sysconf(_SC_NPROCESSORS_ONLN);
	int want = cores < 2 ? 2 : cores > POOL_MAX_THREADS ? POOL_MAX_THREADS : (int)cores;
	int n = 0;
	while (n < want && pthread_create(&p->threads[n], NULL, pool_main, w) == 0)
		n++;
	pthread_mutex_lock(&p->mu); /* trace_writer_stats reads it from the owner's thread */
	p->nthreads = n;
	pthread_mutex_unlock(&p->mu);
	return n;
}

static void pool_stop(struct trace_writer *w)
{
	struct pool *p = &w->pool;
	pthread_mutex_lock(&p->mu);
	p->quit = 1;
	pthread_cond_broadcast(&p->work);
	pthread_mutex_unlock(&p->mu);
	for (int i = 0; i < p->nthreads; i++)
		pthread_join(p->threads[i], NULL);
	while (p->nspare > 0)
		buf_free(&p->spare[--p->nspare]);
}

/* The line of batch[i], finished by a pool thread or, when none has taken it yet, by the
 * writer itself (it needs this one first). */
static struct buf *pool_line(struct trace_writer *w, struct trace_rec **batch, size_t i, struct buf *canon)
{
	struct pool *p = &w->pool;
	struct trace_rec *r = batch[i];
	pthread_mutex_lock(&p->mu);
	/* Lines are serialised at most a few records ahead of the one written, so their
	 * buffers come back to be reused (and a batch's lines are not all held at once). */
	p->limit = i + 1 + LOOKAHEAD(p);
	if (p->idle > 0 && p->next < p->njobs && (p->limit - p->next >= LOOKAHEAD(p) / 2 || p->limit >= p->njobs))
		pthread_cond_signal(&p->work);
	if (!r->claimed) {
		/* Unclaimed means no later record is claimed either: take this one. */
		r->claimed = 1;
		p->next = i + 1;
		if (p->nspare > 0)
			r->line = p->spare[--p->nspare];
		pthread_mutex_unlock(&p->mu);
		if (!is_failed(w))
			serialize(w, &r->line, r, canon);
		return &r->line;
	}
	while (!r->done) {
		p->writer_waits = 1;
		pthread_cond_wait(&p->ready, &p->mu);
		p->writer_waits = 0;
	}
	pthread_mutex_unlock(&p->mu);
	return &r->line;
}

/* Keeps a written line's buffer for a later line. */
static void pool_recycle(struct trace_writer *w, struct buf *line)
{
	struct pool *p = &w->pool;
	if (line->cap == 0 || line->cap > ((size_t)4 << 20))
		return;
	pthread_mutex_lock(&p->mu);
	if (p->nspare < (int)(sizeof p->spare / sizeof p->spare[0])) {
		buf_reset(line);
		p->spare[p->nspare++] = *line;
		*line = (struct buf){0};
	}
	pthread_mutex_unlock(&p->mu);
}

/*==== the writer thread ====*/

/* Writes one finished line (or counts the record lost after a failure). Returns 1 when
 * the line was written. */
static int put_line(struct trace_writer *w, const struct buf *line)
{
	if (is_failed(w)) {
		w->dropped++;
		return 0;
	}
	int rc = fs_write_all(w->fd, line->p, line->len);
	if (rc) {
		w->dropped++;
		note_failure(w, -rc);
		return 0;
	}
	if (w->o.on_line)
		w->o.on_line(w->o.line_ctx, w->off, line->p, line->len);
	__atomic_store_n(&w->off, w->off + line->len, __ATOMIC_RELAXED);
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
	int rc = fs_write_all(w->fd, b->p, b->len);
	if (rc) {
		if (ftruncate(w->fd, (off_t)w->off) == 0)
			goto one_by_one;
		/* cannot even cut it back: recording stops here, the batch is lost (counted) */
		note_failure(w, -rc);
		w->dropped += k;
		return 0;
	}
	size_t at = 0;
	for (size_t i = 0; i < k; i++) {
		if (w->o.on_line)
			w->o.on_line(w->o.line_ctx, w->off + at, b->p + at, lens[i]);
		at += lens[i];
	}
	__atomic_store_n(&w->off, w->off + b->len, __ATOMIC_RELAXED);
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

/* The unpooled path gathers at most this many bytes of lines per write. */
#define GATHER_MAX ((size_t)1 << 20)

static void *writer_main(void *arg)
{
	struct trace_writer *w = arg;
	struct buf out = {0}, canon = {0};
	struct trace_rec **batch = NULL;
	size_t batch_cap = 0, *lens = NULL, lens_cap = 0;
	struct trace_rec *done = NULL, **done_tail = &done; /* this batch's, for w->garbage */
	uint64_t ndone = 0;
	int unsynced = 0;
	uint64_t first_unsynced_ns = 0;
	const uint64_t window_ns = (uint64_t)w->o.fsync_ms * 1000000u;
	pthread_setname_np(pthread_self(), "belay-trace");
	pthread_mutex_lock(&w->mu);
	for (;;) {
		/* Adding a record does not wake this thread (a futex wake per frame would cost the
		 * forwarding path a cross-CPU wakeup); while traffic flows the writer polls every
		 * POLL_NS instead, and sleeps untimed only after a few empty polls. */
		int empty_polls = 0;
		for (;;) {
			if ((w->head && w->head->ready) || w->closing)
				break;
			uint64_t now = time_mono_ns();
			if (unsynced && now - first_unsynced_ns >= window_ns)
				break;
			if (!unsynced && empty_polls >= 3) {
				w->idle = 1;
				pthread_cond_wait(&w->cv, &w->mu);
				w->idle = 0;
				empty_polls = 0;
				continue;
			}
			uint64_t wait = POLL_NS;
			if (unsynced && window_ns - (now - first_unsynced_ns) < wait)
				wait = window_ns - (now - first_unsynced_ns);
			struct timespec until;
			time_realtime_after(wait, &until);
			pthread_cond_timedwait(&w->cv, &w->mu, &until);
			if (!(w->head && w->head->ready))
				empty_polls++;
		}
		/* Take the ready prefix of the queue (at most BATCH_MAX bytes of it, so that the
		 * backlog shrinks as lines are written, not only after a huge batch). */
		size_t m = 0, cost = 0;
		while (w->head && w->head->ready && (m == 0 || cost < BATCH_MAX)) {
			struct trace_rec *r = w->head;
			w->head = r->next;
			if (!w->head)
				w->tail = NULL;
			r->next = NULL;
			if (m == batch_cap) {
				batch_cap = batch_cap ? 2 * batch_cap : 64;
				batch = xrealloc(batch, batch_cap * sizeof *batch);
			}
			batch[m++] = r;
			cost += r->cost;
		}
		int finish = w->closing && !w->head;
		w->stats.batches += m > 0;
		pthread_mutex_unlock(&w->mu);

		/* A large batch goes to the pool; a small one (the latency path) stays here. */
		int pooled = m >= 2 && cost >= POOL_MIN && !is_failed(w) && pool_start(w) > 0;
		if (pooled) {
			pthread_mutex_lock(&w->pool.mu);
			w->pool.jobs = batch;
			w->pool.njobs = m;
			w->pool.next = 0;
			w->pool.limit = LOOKAHEAD(&w->pool);
			pthread_cond_broadcast(&w->pool.work);
			pthread_mutex_unlock(&w->pool.mu);
		}
		int n = 0;
		size_t k = 0;
		buf_reset(&out);
		for (size_t i = 0; i < m; i++) {
			struct trace_rec *r = batch[i];
			if (pooled) {
				n += put_line(w, pool_line(w, batch, i, &canon));
				pool_recycle(w, &r->line);
			} else {
				size_t before = out.len;
				if (!is_failed(w))
					serialize(w, &out, r, &canon);
				if (k == lens_cap) {
					lens_cap = lens_cap ? 2 * lens_cap : 64;
					lens = xrealloc(lens, lens_cap * sizeof *lens);
				}
				lens[k++] = out.len - before;
				if (out.len >= GATHER_MAX || i + 1 == m) {
					n += put_lines(w, &out, lens, k);
					buf_reset(&out);
					k = 0;
				}
			}
			buf_free(&r->line); /* this thread's (or a serialiser's): freed here */
			r->next = NULL;
			*done_tail = r;
			done_tail = &r->next;
			ndone++;
		}
		if (pooled) {
			/* Every job was claimed (the writer takes what is left) and is done. */
			pthread_mutex_lock(&w->pool.mu);
			w->pool.jobs = NULL;
			w->pool.njobs = w->pool.next = 0;
			pthread_mutex_unlock(&w->pool.mu);
		}
		if (out.cap > (1u << 22))
			buf_free(&out);
		if (n > 0 && unsynced == 0)
			first_unsynced_ns = time_mono_ns();
		unsynced += n;
		if (unsynced > 0 && (is_failed(w) || unsynced >= w->o.fsync_every || finish ||
				     time_mono_ns() - first_unsynced_ns >= window_ns)) {
			if (!is_failed(w) && fdatasync(w->fd) != 0 && errno != EINVAL && errno != EROFS)
				note_failure(w, errno);
			unsynced = 0;
		}

		pthread_mutex_lock(&w->mu);
		*done_tail = w->garbage;
		w->garbage = done;
		w->ngarbage += ndone;
		done = NULL;
		done_tail = &done;
		ndone = 0;
		w->backlog -= cost;
		if (w->was_high && w->backlog <= w->o.backlog_low) {
			w->was_high = 0;
			if (w->o.on_drain)
				w->o.on_drain(w->o.ctx);
		}
		if (finish)
			break;
	}
	pthread_mutex_unlock(&w->mu);
	pool_stop(w);
	buf_free(&out);
	buf_free(&canon);
	free(batch);
	free(lens);
	return NULL;
}

/*==== owner side ====*/

/* Assigns the seq and queues r; r belongs to the writer thread afterwards (it may be freed
 * at once unless it is deferred), so the seq is returned. */
static uint64_t enqueue(struct trace_writer *w, struct trace_rec *r)
{
	pthread_mutex_lock(&w->mu);
	uint64_t seq = w->next_seq;
	if (w->o.test_in_seq)
		w->o.test_in_seq(w->o.test_ctx); /* tests: between reading next_seq and advancing it */
	r->seq = seq;
	w->next_seq = seq + 1;
	if (w->tail)
		w->tail->next = r;
	else
		w->head = r;
	w->tail = r;
	w->backlog += r->cost;
	if (w->backlog > w->stats.max_backlog)
		w->stats.max_backlog = w->backlog;
	if (w->backlog > w->o.backlog_high && !w->was_high) {
		w->was_high = 1;
		w->stats.highs++;
	}
	if (r->ready && (w->idle || w->backlog > WAKE_BACKLOG)) {
		pthread_cond_signal(&w->cv);
		w->stats.wakes++;
	}
	w->stats.records++;
	struct trace_rec *g = w->garbage;
	w->garbage = NULL;
	w->ngarbage = 0;
	pthread_mutex_unlock(&w->mu);
	free_recs(w, g);
	return seq;
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
	pthread_mutex_init(&w->mu, NULL);
	pthread_cond_init(&w->cv, NULL);
	pthread_mutex_init(&w->pool.mu, NULL);
	pthread_cond_init(&w->pool.work, NULL);
	pthread_cond_init(&w->pool.ready, NULL);
	pthread_mutex_init(&w->spare_mu, NULL);
	int rc = pthread_create(&w->thread, NULL, writer_main, w);
	if (rc) {
		close(fd);
		free(path);
		pthread_mutex_destroy(&w->mu);
		pthread_cond_destroy(&w->cv);
		pthread_mutex_destroy(&w->pool.mu);
		pthread_cond_destroy(&w->pool.work);
		pthread_cond_destroy(&w->pool.ready);
		pthread_mutex_destroy(&w->spare_mu);
		free(w);
		return err_set(e, -rc, "cannot start the trace writer thread: %s", strerror(rc));
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

void trace_writer_set_handle(struct trace_writer *w, struct trace_rec *r, cJSON *handle)
{
	pthread_mutex_lock(&w->mu);
	cJSON_Delete(r->handle);
	r->handle = handle;
	r->ready = 1;
	if (w->idle) {
		pthread_cond_signal(&w->cv);
		w->stats.wakes++;
	}
	pthread_mutex_unlock(&w->mu);
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
	pthread_mutex_lock(&w->mu);
	size_t b = w->backlog;
	pthread_mutex_unlock(&w->mu);
	return b;
}

void trace_writer_stats(struct trace_writer *w, struct trace_writer_stats *st)
{
	pthread_mutex_lock(&w->mu);
	*st = w->stats;
	st->held = w->ngarbage;
	pthread_mutex_unlock(&w->mu);
	st->writer_cpu_ns = time_thread_cpu_ns(&w->thread);
	/* pool threads are started (and counted) by the writer thread and live until close */
	pthread_mutex_lock(&w->pool.mu);
	int n = w->pool.nthreads;
	pthread_t t[POOL_MAX_THREADS];
	memcpy(t, w->pool.threads, sizeof t);
	pthread_mutex_unlock(&w->pool.mu);
	st->pool_cpu_ns = 0;
	for (int i = 0; i < n; i++)
		st->pool_cpu_ns += time_thread_cpu_ns(&t[i]);
}

int trace_writer_over_high(struct trace_writer *w)
{
	pthread_mutex_lock(&w->mu);
	int h = w->was_high;
	pthread_mutex_unlock(&w->mu);
	return h;
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
	/* A deferred record still open at close never got its pre-state: say so by name. */
	pthread_mutex_lock(&w->mu);
	for (struct trace_rec *r = w->head; r; r = r->next) {
		if (!r->ready) {
			cJSON *h = cJSON_CreateObject();
			cJSON_AddStringToObject(h, "status", "unrestorable");
			cJSON_AddStringToObject(h, "cause", "UNRESTORABLE_SNAPSHOT_FAILED");
			cJSON_AddStringToObject(h, "detail", "the proxy closed before the snapshot finished");
			cJSON_AddStringToObject(h, "source", "turn-gate");
			r->handle = h;
			r->ready = 1;
		}
	}
	pthread_mutex_unlock(&w->mu);
	cJSON *f = cJSON_CreateObject();
	cJSON_AddStringToObject(f, "phase", "close");
	trace_writer_add(w, "connection_window", f);
	pthread_mutex_lock(&w->mu);
	w->closing = 1;
	pthread_cond_signal(&w->cv);
	pthread_mutex_unlock(&w->mu);
	pthread_join(w->thread, NULL);
	free_recs(w, w->garbage);
	w->garbage = NULL;
	int rc = 0;
	if (w->failed) {
		rc = err_set(e, -w->failed, "trace %s is incomplete: %s (%llu record(s) not written)", w->path,
			     strerror(w->failed), (unsigned long long)w->dropped);
	}
	if (close(w->fd) != 0 && !rc)
		rc = err_set(e, -errno, "closing trace %s: %s", w->path, strerror(errno));
	pthread_mutex_destroy(&w->mu);
	pthread_cond_destroy(&w->cv);
	pthread_mutex_destroy(&w->pool.mu);
	pthread_cond_destroy(&w->pool.work);
	pthread_cond_destroy(&w->pool.ready);
	while (w->nspare_data > 0)
		free(w->spare_data[--w->nspare_data].p);
	pthread_mutex_destroy(&w->spare_mu);
	free(w->path);
	free(w);
	return rc;
}
