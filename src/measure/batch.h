/* batch.h - `belay measure run`: verify every trace of some directories (or this shard's
 * share of them) and write one ledger line per trace (docs/MEASURE.md).
 *
 * Each trace is verified with verify_trace (the same verdicts as `belay verify`); a trace
 * that cannot be read or verified is an ERRORED instance with its message, and the batch
 * goes on. A trace whose pre-states are not in the store it is verified against is ERRORED
 * with the cause PRESTATE_NOT_FOUND (named, never a silently smaller denominator). A trace
 * already in the ledger is skipped (resume); one whose content hash is already there is a
 * duplicate line. FAIL turns are banked into the corpus as unlabeled cases unless no_ingest.
 *
 * The batch's scratch workspaces are kept across its traces in one scratch pool
 * (verify/scratch_pool.h) shared by the job threads and removed at the end: a trace of the
 * same recorded workspace path as an earlier one starts from the scratch that one left,
 * moved to its pre-state by delta (fully restored when its state is not known exactly or
 * its store does not know what it holds), and keeps the task pre-state when its turn-0
 * pre-state is the same one. The pool keeps at most 2 x jobs idle scratches (the ones used
 * last), so a batch of many workspace paths holds no more than that many copies.
 *
 * Threads: measure_run blocks; `jobs` worker threads verify one trace each at a time (each
 * trace with one verify worker); the progress callback runs on them, serialised. */
#ifndef BELAY_MEASURE_BATCH_H
#define BELAY_MEASURE_BATCH_H
#include <stddef.h>

#include "common/err.h"
#include "measure/shard.h"
#include "verify/policy.h"

struct measure_progress {
	size_t done, total; /* traces of this run (skipped ones are not in total) */
	size_t turns;	    /* turns verified so far */
	double elapsed_s;
	const char *trace_id, *what; /* the trace just finished and its disposition or "duplicate" */
};

struct measure_run_opts {
	char *const *dirs; /* trace directories (files *.jsonl and bundles *.belaytb) */
	size_t ndirs;
	const struct policy *policy;
	int replays, jobs;
	unsigned timeout_ms;
	const char *state;    /* pre-states (and the corpus): NULL = each trace's recorded state dir */
	const char *objects;  /* a shared read-only object store (a state dir), or NULL: each
			       * trace's pre-states are copied from it into `state` first */
	const char *ledger;   /* the ledger file */
	int no_ingest;
	struct shard shard;
	const char *launcher; /* the belay binary */
	int fresh_scratch;    /* benchmarks and tests: no scratch pool (every trace opens, restores
			       * and removes its own scratches, as verify_trace alone does) */
	int settle_wait;      /* benchmarks: never end a replay's quiet window early (verify.h) */
	void (*progress)(void *ctx, const struct measure_progress *p);
	void *ctx;
};

struct measure_run_result {
	size_t population;    /* traces found in the directories */
	size_t selected;      /* this shard's share */
	size_t already;	      /* in the ledger before this run (resumed) */
	size_t verified, duplicates, errored, turns;
	size_t ingested, unaddable;
	double elapsed_s;
	double ms_turns, ms_server; /* summed over the verified turns: their whole time, and the
				     * replay sessions' (sandboxed start, the server, the call) */
	double ms_session, ms_session_server, ms_session_own; /* the in-order session passes: their
			       * wall time, the part spent waiting on the server, and belay's restores
			       * and effects in them */
	/* the verified traces' scratch work, summed: whole pre-state restores, moves by undo +
	 * delta, task pre-state restores, and how many traces' scratches came from the pool */
	unsigned long full_restores, partial_restores, task_restores, scratches_reused;
	unsigned long settles, settles_proven; /* replies' quiet windows; those a proof ended early */
	double ms_settle;                      /* their time, summed */
};

int measure_run(const struct measure_run_opts *o, struct measure_run_result *out, struct err *e);

/* The trace id of a file: its name without the directory and the .jsonl / .belaytb suffix
 * (new string). */
char *measure_trace_id(const char *path);

#endif
