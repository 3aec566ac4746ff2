/* trace_rec.h - the trace writer's own: one record on its way from the adding thread to the
 * file, how it becomes a line (trace_line.c), and the pool of threads that make lines of a
 * large batch in parallel (trace_pool.c). Not for use outside trace_writer*.c / trace_line.c /
 * trace_pool.c.
 *
 * Ownership: a record is allocated and filled by the adding thread, belongs to the writer
 * threads from the moment it is published until it is written, and is handed back for the
 * adding thread to free (trace_writer.c). Serialising only reads it; the pool writes only
 * its `line`, `claimed` and `done`. */
#ifndef BELAY_TRACE_TRACE_REC_H
#define BELAY_TRACE_TRACE_REC_H
#include <cjson/cJSON.h>
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "common/buf.h"

struct trace_rec {
	struct trace_rec *next;
	uint64_t seq;
	int ready; /* atomic: 0 while a deferred record waits for its handle */
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
	/* pool batches: the finished line, and whether it is (under trace_pool.mu) */
	struct buf line;
	int claimed, done;
};

/* Appends r's line ('\n' included) to b: {"v":1,"kind":...,"seq":N,"t_in":"...",
 * "observation_point":P}. A frame's bytes go in base64 with their SHA-256, and its canonical
 * form's hash beside it when it has one; `canon` is the calling thread's scratch for that
 * form. */
void trace_line_append(struct buf *b, const struct trace_rec *r, const char *observation_point, struct buf *canon);

#define TRACE_POOL_MAX_THREADS 8

/* Serialiser threads for large batches: the writer publishes a batch, the threads make its
 * lines a few records ahead of the one the writer writes next, and the writer makes a line
 * itself when no thread has taken it yet. All fields under mu. The threads are started by
 * the first thread that pools (trace_pool_start) and take its scheduling policy. */
struct trace_pool {
	pthread_mutex_t mu;
	pthread_cond_t work;  /* a batch was published, or quit */
	pthread_cond_t ready; /* a line the writer waits for is done */
	pthread_t threads[TRACE_POOL_MAX_THREADS];
	int nthreads, started;
	struct trace_rec **jobs;
	size_t njobs, next; /* jobs[next..] are unclaimed */
	size_t limit;	    /* and only jobs[..limit) may be claimed: lines wait for the writer */
	int idle;	    /* pool threads waiting for work */
	int writer_waits;
	int quit;
	/* Written lines' buffers, kept for the next ones (fresh pages cost a fault each). */
	struct buf spare[4 * TRACE_POOL_MAX_THREADS + 6];
	int nspare;
	const char *observation_point;
	const int *failed; /* atomic, the writer's: after a failure lines are only counted */
};

void trace_pool_init(struct trace_pool *p, const char *observation_point, const int *failed);
/* Starts the threads on first use: as many as there are cores (at least 2). Returns how
 * many run. The caller's thread only. */
int trace_pool_start(struct trace_pool *p);
/* Hands recs[0..m) to the threads; trace_pool_line(.., i) for i = 0..m-1 in order, then
 * trace_pool_end. */
void trace_pool_publish(struct trace_pool *p, struct trace_rec **recs, size_t m);
/* The line of recs[i], made by a pool thread or, when none has taken it yet, by the caller
 * (it needs this one first). */
struct buf *trace_pool_line(struct trace_pool *p, struct trace_rec **recs, size_t i, struct buf *canon);
/* Keeps a written line's buffer for a later line. */
void trace_pool_recycle(struct trace_pool *p, struct buf *line);
void trace_pool_end(struct trace_pool *p);
/* CPU time of the pool's threads so far. Any thread. */
uint64_t trace_pool_cpu_ns(struct trace_pool *p);
/* Ends and joins the threads, frees the kept buffers and the pool's locks. */
void trace_pool_destroy(struct trace_pool *p);

#endif
