/* trace_writer.c - JSONL trace with seq at add time, serialisation and group commit on a
 * writer thread. See trace_writer.h for the contract. */
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

struct trace_rec {
	struct trace_rec *next;
	uint64_t seq;
	int ready;
	int is_frame;
	struct timespec t_in;
	/* frame */
	char dir[4];
	char *data;
	size_t len, total;
	int truncated;
	int from_belay;
	cJSON *handle;
	/* other records */
	char *kind;
	cJSON *fields;
	size_t cost; /* bytes accounted in the backlog */
};

struct trace_writer {
	char *path;
	int fd;
	struct trace_writer_opts o;
	pthread_t thread;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	struct trace_rec *head, *tail;
	uint64_t next_seq;
	size_t backlog;
	int was_high;
	int closing, closed_added;
	int idle; /* the writer sleeps until signalled (else it polls every POLL_NS while busy) */
	int failed;
	uint64_t dropped;
	uint64_t off; /* bytes written so far (writer thread) */
};

/*==== serialisation (writer thread) ====*/

static void put_envelope_tail(struct trace_writer *w, struct buf *b, const struct trace_rec *r)
{
	char ts[ISO_TS_LEN];
	time_iso8601(&r->t_in, ts);
	buf_printf(b, ",\"seq\":%llu,\"t_in\":\"%s\",\"observation_point\":\"%s\"}\n", (unsigned long long)r->seq, ts,
		   w->o.observation_point);
}

static void serialize_frame(struct trace_writer *w, struct buf *b, const struct trace_rec *r)
{
	char hraw[72];
	sha256_tagged(r->data, r->len, hraw);
	buf_printf(b, "{\"v\":%d,\"kind\":\"frame\",\"dir\":\"%s\",\"raw\":\"", TRACE_VERSION, r->dir);
	base64_encode(r->data, r->len, b);
	buf_printf(b, "\",\"hash_raw\":\"%s\",", hraw);
	struct buf canon = {0};
	if (!r->truncated && jcs_canonicalize(r->data, r->len, &canon) == 0) {
		char hc[72];
		/* A frame already in canonical form has the same hash: do not compute it twice. */
		if (canon.len == r->len && memcmp(canon.p, r->data, r->len) == 0)
			memcpy(hc, hraw, sizeof hc);
		else
			sha256_tagged(canon.p, canon.len, hc);
		buf_printf(b, "\"hash_canonical\":\"%s\",\"canonical_form\":\"%s\",", hc, JCS_FORM_ID);
	} else {
		buf_puts(b, "\"hash_canonical\":null,\"canonical_form\":null,");
	}
	buf_free(&canon);
	if (r->from_belay)
		buf_puts(b, "\"origin\":\"belay\",");
	buf_printf(b, "\"truncated\":%s,\"len\":%zu,\"state_handle\":", r->truncated ? "true" : "false", r->total);
	if (r->handle)
		jx_print_buf(r->handle, b);
	else
		buf_puts(b, "{\"status\":\"absent\"}");
	put_envelope_tail(w, b, r);
}

static void serialize_other(struct trace_writer *w, struct buf *b, const struct trace_rec *r)
{
	buf_printf(b, "{\"v\":%d,\"kind\":", TRACE_VERSION);
	cJSON *k = cJSON_CreateString(r->kind);
	jx_print_buf(k, b);
	cJSON_Delete(k);
	if (r->fields) {
		for (cJSON *c = r->fields->child; c; c = c->next) {
			cJSON *name = cJSON_CreateString(c->string);
			buf_putc(b, ',');
			jx_print_buf(name, b);
			buf_putc(b, ':');
			jx_print_buf(c, b);
			cJSON_Delete(name);
		}
	}
	put_envelope_tail(w, b, r);
}

static void rec_free(struct trace_rec *r)
{
	free(r->data);
	free(r->kind);
	cJSON_Delete(r->handle);
	cJSON_Delete(r->fields);
	free(r);
}

static void note_failure(struct trace_writer *w, int err)
{
	w->failed = err;
	fprintf(stderr, "belay: recording stopped: cannot write %s: %s (forwarding continues)\n", w->path,
		strerror(err));
	/* Try once to leave a named capture_error behind; the same failure will usually stop it. */
	struct buf b = {0};
	char ts[ISO_TS_LEN];
	time_now_iso8601(ts);
	buf_printf(&b, "{\"v\":%d,\"kind\":\"capture_error\",\"dir\":null,\"cause\":\"TraceWriteFailed: %s\","
		   "\"seq\":null,\"t_in\":\"%s\",\"observation_point\":\"%s\"}\n",
		   TRACE_VERSION, strerror(err), ts, w->o.observation_point);
	(void)!write(w->fd, b.p, b.len);
	buf_free(&b);
}

static void *writer_main(void *arg)
{
	struct trace_writer *w = arg;
	struct buf out = {0};
	int unsynced = 0;
	uint64_t first_unsynced_ns = 0;
	const uint64_t window_ns = (uint64_t)w->o.fsync_ms * 1000000u;
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
		/* Take the ready prefix of the queue. */
		struct trace_rec *batch = NULL, **bt = &batch;
		size_t cost = 0;
		while (w->head && w->head->ready) {
			struct trace_rec *r = w->head;
			w->head = r->next;
			if (!w->head)
				w->tail = NULL;
			r->next = NULL;
			*bt = r;
			bt = &r->next;
			cost += r->cost;
		}
		int finish = w->closing && !w->head;
		pthread_mutex_unlock(&w->mu);

		int n = 0;
		for (struct trace_rec *r = batch; r;) {
			struct trace_rec *next = r->next;
			if (!w->failed) {
				buf_reset(&out);
				if (r->is_frame)
					serialize_frame(w, &out, r);
				else
					serialize_other(w, &out, r);
				int rc = fs_write_all(w->fd, out.p, out.len);
				if (rc) {
					note_failure(w, -rc);
				} else {
					n++;
					if (w->o.on_line)
						w->o.on_line(w->o.line_ctx, w->off, out.p, out.len);
					w->off += out.len;
				}
			} else {
				w->dropped++;
			}
			rec_free(r);
			r = next;
		}
		if (out.cap > (1u << 22))
			buf_free(&out);
		if (n > 0 && unsynced == 0)
			first_unsynced_ns = time_mono_ns();
		unsynced += n;
		if (unsynced > 0 &&
		    (w->failed || unsynced >= w->o.fsync_every || finish || time_mono_ns() - first_unsynced_ns >= window_ns)) {
			if (!w->failed && fdatasync(w->fd) != 0 && errno != EINVAL && errno != EROFS)
				note_failure(w, errno);
			unsynced = 0;
		}

		pthread_mutex_lock(&w->mu);
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
	buf_free(&out);
	return NULL;
}

/*==== owner side ====*/

/* Assigns the seq and queues r; r belongs to the writer thread afterwards (it may be freed
 * at once unless it is deferred), so the seq is returned. */
static uint64_t enqueue(struct trace_writer *w, struct trace_rec *r)
{
	pthread_mutex_lock(&w->mu);
	uint64_t seq = r->seq = w->next_seq++;
	if (w->tail)
		w->tail->next = r;
	else
		w->head = r;
	w->tail = r;
	w->backlog += r->cost;
	if (w->backlog > w->o.backlog_high)
		w->was_high = 1;
	if (r->ready && (w->idle || w->backlog > WAKE_BACKLOG))
		pthread_cond_signal(&w->cv);
	pthread_mutex_unlock(&w->mu);
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
	int rc = pthread_create(&w->thread, NULL, writer_main, w);
	if (rc) {
		close(fd);
		free(path);
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
	struct trace_rec *r = xcalloc(1, sizeof *r);
	r->is_frame = 1;
	snprintf(r->dir, sizeof r->dir, "%s", dir);
	r->data = xmemdup(data, len);
	r->len = len;
	r->total = total;
	r->truncated = truncated;
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

uint64_t trace_writer_frame_from_belay(struct trace_writer *w, const char *dir, const char *data, size_t len)
{
	struct trace_rec *r = xcalloc(1, sizeof *r);
	r->is_frame = 1;
	r->from_belay = 1;
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
	if (w->idle)
		pthread_cond_signal(&w->cv);
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

int trace_writer_over_high(struct trace_writer *w)
{
	pthread_mutex_lock(&w->mu);
	int h = w->was_high;
	pthread_mutex_unlock(&w->mu);
	return h;
}

int trace_writer_failed(struct trace_writer *w)
{
	pthread_mutex_lock(&w->mu);
	int f = w->failed;
	pthread_mutex_unlock(&w->mu);
	return f;
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
	int rc = 0;
	if (w->failed) {
		rc = err_set(e, -w->failed, "trace %s is incomplete: %s (%llu record(s) not written)", w->path,
			     strerror(w->failed), (unsigned long long)w->dropped);
	}
	if (close(w->fd) != 0 && !rc)
		rc = err_set(e, -errno, "closing trace %s: %s", w->path, strerror(errno));
	pthread_mutex_destroy(&w->mu);
	pthread_cond_destroy(&w->cv);
	free(w->path);
	free(w);
	return rc;
}
