/* trace_writer.h - the append-only JSONL trace (the record of truth).
 *
 * Threads: the owner (one event loop) calls every function except the drain callback,
 * which runs on a writer thread; adding from several threads at once is allowed too.
 * `seq` is assigned by the adding thread at the moment a record is added, so the order of
 * seq is the order in which the owner observed things; serialisation (base64, SHA-256,
 * JSON), write(2) and group commit (fdatasync every `fsync_every` records or `fsync_ms`)
 * happen off the forwarding path, and lines are written in seq order.
 *
 * Adding a record takes no lock a writer thread holds: the record is pushed on an atomic
 * list (one compare-and-swap) and the writer is woken, when it sleeps, through a semaphore,
 * so the forwarding thread can never wait for a recording thread (only for the backlog to
 * fall, below). That lets the writer run at idle priority (SCHED_IDLE, on its own thread):
 * it takes a CPU only when the agent, the server and forwarding leave one idle, and a CPU
 * that runs nothing else counts as idle when the kernel places the peer belay has just
 * woken. Its lag is bounded by a second thread at normal priority, the rescue: it takes
 * over while the backlog is over TRACE_RESCUE_MARK (bulk traffic; it starts the serialiser pool,
 * whose threads take its priority) or when nothing was written for TRACE_RESCUE_LAG_MS while
 * records waited (the idle writer starved by CPU-bound neighbours), and hands back once the
 * backlog is small again. Lines are written in seq order, one batch at a time, by whichever
 * of the two holds the writer's role; the idle writer serialises its batch outside the role,
 * and a rescue that finds it doing so takes that batch over (one compare-and-swap) rather
 * than wait for a thread that may be off the CPU for long.
 *
 * A record may be added "deferred" (a tools/call frame whose pre-state handle is still
 * being captured): it keeps its seq, and it and every later record wait in memory until
 * trace_writer_set_handle() completes it. Each record is written with one write(2) of
 * whole lines, so a killed proxy leaves a prefix of complete lines.
 *
 * A failed write (disk full, a file-size limit, an I/O error; also a failed fdatasync) stops
 * recording for good: the file is cut back to its last complete line, a `capture_error`
 * (TraceWriteFailed) is appended if it fits whole, every later record is dropped (counted),
 * trace_writer_failed() says so and on_drain is called once to wake the owner, who must stop
 * forwarding what it can no longer record (the session fails closed, session.h). */
#ifndef BELAY_TRACE_TRACE_WRITER_H
#define BELAY_TRACE_TRACE_WRITER_H
#include <cjson/cJSON.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "common/err.h"

#define TRACE_VERSION 1

/* The rescue thread takes over from the idle writer above this backlog (bytes), and when
 * nothing was written for this long while records waited (see the top of this file). */
#define TRACE_RESCUE_MARK ((size_t)192 << 10)
#define TRACE_RESCUE_LAG_MS 50

struct trace_writer;
struct trace_rec;

struct trace_writer_opts {
	int fsync_every;     /* group commit size (default 16 records) */
	unsigned fsync_ms;   /* and latency bound (default 50 ms) */
	size_t backlog_high; /* bytes queued above which trace_writer_over_high() is true */
	size_t backlog_low;  /* the drain callback fires when the backlog falls below this */
	/* Writer thread; must only wake the owner: the backlog fell below backlog_low, or a
	 * write failed (once). */
	void (*on_drain)(void *ctx);
	void *ctx;
	const char *observation_point; /* "proxy" (default) */
	/* Optional tap, writer thread: called after each record line was written, with the
	 * byte offset of the line in the file and the line itself ('\n' included; borrowed for
	 * the call). It must not block: copy and return (the live store writer uses it). */
	void (*on_line)(void *ctx, uint64_t off, const char *line, size_t len);
	void *line_ctx;
	/* The writer keeps the normal priority rather than SCHED_IDLE (an A/B for benchmarks;
	 * the rescue thread then never has lag to take over, only bulk). */
	int normal_priority;
	/* The rescue's lag bound (default TRACE_RESCUE_LAG_MS; tests set it long to see the
	 * backlog mark alone). */
	unsigned rescue_lag_ms;
	/* Tests only: called by the adding thread between taking its seq and publishing the
	 * record, so a test can hold one adder there while another adds: the later seq must
	 * then wait for the earlier one, not be written first. */
	void (*test_before_publish)(void *ctx);
	/* Tests only: called by a writer thread (thread 0: the idle writer, 1: the rescue)
	 * before it takes the writer's role (phase 0) and while it holds it with a batch taken
	 * (phase 1), so a test can hold the idle writer off the CPU or inside its batch. */
	void (*test_writer)(void *ctx, int thread, int phase);
	void *test_ctx;
};

/* Creates DIR (0700, if absent) and a new trace-<UTC>-<rand>.jsonl in it (O_EXCL, 0600)
 * and writes the opening connection_window record. */
int trace_writer_open(const char *dir, const struct trace_writer_opts *o, struct trace_writer **out,
		      struct err *e);
/* Same, at an exact path (which must not exist). */
int trace_writer_open_path(const char *path, const struct trace_writer_opts *o, struct trace_writer **out,
			   struct err *e);
const char *trace_writer_path(const struct trace_writer *w); /* borrowed */

/* Adds a frame record. dir is "c2s" or "s2c"; data[0..len) is the recorded copy (at most the
 * cap), total the frame's real length. With `defer` non-NULL the record waits for
 * trace_writer_set_handle(); otherwise its state_handle is `handle` (taken; NULL means
 * {"status":"absent"}). Returns the record's seq. */
uint64_t trace_writer_frame(struct trace_writer *w, const char *dir, const char *data, size_t len, size_t total,
			    int truncated, const struct timespec *t_in, cJSON *handle, struct trace_rec **defer);
/* Same for a frame over the cap (truncated = 1) with `envelope` (taken; may be NULL), the JSON-RPC
 * envelope of the whole frame (framer_envelope), written as the record's "envelope". */
uint64_t trace_writer_frame_env(struct trace_writer *w, const char *dir, const char *data, size_t len, size_t total,
				int truncated, cJSON *envelope, const struct timespec *t_in, cJSON *handle,
				struct trace_rec **defer);
/* A frame belay itself sent on the server's behalf (session_reply_client): recorded like
 * any other frame, with "origin": "belay" and "belay_reason": reason (a static string). */
uint64_t trace_writer_frame_from_belay(struct trace_writer *w, const char *dir, const char *data, size_t len,
				       const char *reason);
/* Completes a deferred frame record with its state_handle (taken). */
void trace_writer_set_handle(struct trace_writer *w, struct trace_rec *r, cJSON *handle);
/* Adds a record of `kind` whose fields (taken; may be NULL) follow "v" and "kind". */
uint64_t trace_writer_add(struct trace_writer *w, const char *kind, cJSON *fields);
/* Convenience for capture_error {dir (may be NULL), cause}. */
uint64_t trace_writer_capture_error(struct trace_writer *w, const char *dir, const char *cause);

/* One non-frame record as the writer serialises it: {"v":1,"kind":K,<fields...>,"seq":N,
 * "t_in":"...","observation_point":P} and a newline, appended to b. For writers that append
 * to a trace file themselves, one record at a time under a lock (the agent hook runs). */
struct buf;
void trace_record_line(struct buf *b, const char *kind, const cJSON *fields, uint64_t seq, const struct timespec *t_in,
		       const char *observation_point);

/* Back-pressure and wake-up counters, so far. Any thread. */
struct trace_writer_stats {
	uint64_t records;     /* records added */
	uint64_t batches;     /* batches the writer took from the queue (one wake-up each at most) */
	uint64_t wakes;	      /* times an adder signalled the sleeping writer */
	uint64_t highs;	      /* times the backlog rose above backlog_high: the owner stops reading
			       * (forwarding waits for the recorder) until it falls below backlog_low */
	uint64_t max_backlog; /* most bytes queued at once */
	/* CPU time so far of the (idle) writer thread and of the serialiser pool's threads
	 * together (what recording costs the machine, beside what it costs forwarding) */
	uint64_t writer_cpu_ns, pool_cpu_ns;
	/* records written and handed back, not yet freed by the next adder (they are freed on
	 * the thread that added them; see trace_writer.c) */
	uint64_t held;
	/* times the rescue thread wrote for the idle writer (the backlog was over the mark, or
	 * nothing was written for TRACE_RESCUE_LAG_MS while records waited), and its CPU time */
	uint64_t rescues;
	/* batches the idle writer was serialising (outside the writer's role) when the rescue
	 * came, which the rescue took over and wrote itself */
	uint64_t taken_over;
	uint64_t rescue_cpu_ns;
	int idle_priority;  /* the writer ran at SCHED_IDLE */
	int priority_errno; /* else why not (0: normal_priority asked for) */
};
void trace_writer_stats(struct trace_writer *w, struct trace_writer_stats *st);

size_t trace_writer_backlog(struct trace_writer *w);
int trace_writer_over_high(struct trace_writer *w);
/* errno of the first failed write, or 0. */
int trace_writer_failed(struct trace_writer *w);
/* Bytes of complete lines in the file: after a failure, the intact prefix (without the
 * capture_error). Any thread. */
uint64_t trace_writer_kept_bytes(struct trace_writer *w);
/* Writes the closing connection_window (unless already closed), flushes, syncs, joins the
 * thread and frees w. Returns 0, or the write error. */
int trace_writer_close(struct trace_writer *w, struct err *e);

#endif
