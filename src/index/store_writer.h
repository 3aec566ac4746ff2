/* store_writer.h - live indexing while proxying: a thread of its own that turns the trace's
 * lines into the run view (runidx) in batched transactions.
 *
 * Feeding: store_writer_tap is the trace writer's line tap (session_opts.trace_tap). It
 * copies the line into a queue and returns; it never touches SQLite, so neither the
 * forwarding loop nor the trace writer ever waits on the database. If the store writer
 * falls behind by more than queue_max bytes, the tap stops copying and only notes how far
 * the trace has been written: the worker reads those lines back from the trace file (the
 * tap runs after a line's write, so they are there) and returns to the queue once it has
 * caught up. Memory stays bounded however far the database lags; nothing is skipped, and
 * the lines are indexed in trace order either way. If it fails (cannot open the database
 * or the trace, a write fails), it reports once through `report` and drops every later
 * line: forwarding and the trace are unaffected, and `belay index TRACE` rebuilds the view
 * from the trace.
 *
 * Threads: tap from any one thread (the trace writer's); everything else from the owner.
 * The owner's thread never opens the database either: the worker does. The worker runs at
 * idle priority (SCHED_IDLE, set on its own thread; when that is refused it runs at the
 * normal one and the stats say why), so indexing never competes with the agent, the server
 * or forwarding for a CPU; it catches up when they leave one idle (the read-back above when
 * it lags). It also yields to traffic in time: once woken it waits for a pause in the lines
 * (quiet_ms without a new one) before it indexes what has gathered, and waits no longer than
 * batch_ms for one - so a burst of calls is indexed right after the burst, and under traffic
 * that never pauses at least every batch_ms (idle priority still applies then). A line may
 * therefore be in the trace up to batch_ms before the run view shows it; the stats give the
 * longest such wait. The tap takes no lock the worker holds (it pushes with atomics and wakes the
 * worker with a semaphore, at most once per batch): a preempted idle-priority worker can
 * never stall the trace writer. */
#ifndef BELAY_INDEX_STORE_WRITER_H
#define BELAY_INDEX_STORE_WRITER_H
#include <stddef.h>
#include <stdint.h>

#include "common/err.h"

struct store_writer;

struct store_writer_stats {
	uint64_t lines, bytes; /* lines indexed */
	uint64_t batches;      /* transactions committed */
	uint64_t busy_ns;      /* time inside BEGIN ... COMMIT, summed */
	uint64_t max_batch_ns; /* the longest one */
	uint64_t max_queue;    /* most lines waiting at once */
	uint64_t spills;       /* times the queue was full and lines were read back from the trace */
	uint64_t spilled;      /* lines indexed from the trace file rather than the queue */
	uint64_t withdrawn;    /* offers to queue again withdrawn: the tap had spilled past them */
	int failed;	       /* indexing stopped (reported) */
	int idle_priority;     /* the worker ran at SCHED_IDLE */
	int priority_errno;    /* else why it could not lower its priority (not an error) */
	uint64_t cpu_ns;       /* CPU time the worker thread used (read as it ends) */
	uint64_t max_wait_ns;  /* longest the worker waited from a wake-up to indexing what gathered */
	uint64_t paused;       /* gathers ended by a pause in the lines */
	uint64_t lagged;       /* gathers ended by batch_ms (traffic did not pause) */
};

struct store_writer_opts {
	unsigned batch_ms; /* longest a line waits for a pause before it is indexed (default 1000) */
	unsigned quiet_ms; /* the pause in the lines that ends the wait (default 5) */
	size_t queue_max;  /* bytes of lines held in memory at most (default 8 MiB) */
	/* Called once, on the worker thread, when indexing stops on an error. */
	void (*report)(void *ctx, const char *msg);
	/* Called on the worker thread after each committed batch (may be NULL): a reader may
	 * now see more of the run. Must only wake someone (the console's UI). */
	void (*committed)(void *ctx);
	void *ctx;
	/* Tests only: called on the worker when it has read back everything spilled so far,
	 * just before it offers the tap to queue again, so a test can have the tap spill one
	 * more line in that moment (the offer must then be withdrawn, and nothing lost). */
	void (*test_before_offer)(void *ctx);
};

/* How much longer a worker woken at `woke` (ns, monotonic) waits at `now` when the last line
 * came at `last` (0: none since): 0 when the wait is over - the lines paused for quiet_ns, or
 * it has waited max_ns. Pure (unit-tested); the worker's gather loop. */
uint64_t store_writer_gather_wait(uint64_t now, uint64_t woke, uint64_t last, uint64_t quiet_ns, uint64_t max_ns);

/* A writer for the store in state_dir (created 0700 if missing); nothing is opened yet.
 * Lines tapped before store_writer_start wait in the queue. */
struct store_writer *store_writer_new(const char *state_dir, const struct store_writer_opts *o);
/* The tap (ctx = the store_writer). */
void store_writer_tap(void *ctx, uint64_t off, const char *line, size_t len);
/* The run's trace is trace_path: starts the worker thread. On failure the tap drops every
 * line from then on; close w as usual. */
int store_writer_start(struct store_writer *w, const char *trace_path, struct err *e);
/* Indexes what is queued (when started), commits, joins the thread and frees w. Call after
 * the trace writer is closed (so no tap runs any more). stats may be NULL. Returns 0, or
 * BELAY_ESTORE when indexing had stopped. */
int store_writer_close(struct store_writer *w, struct store_writer_stats *stats);

#endif
