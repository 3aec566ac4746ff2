/* runidx.h - the run view: runs, turns, the frame index (byte offsets into the trace) and
 * denials, derived from a trace's lines. One incremental indexer serves both `belay index`
 * (a whole file, after a strict read) and the proxy's live store writer (lines as the trace
 * writer writes them), so the two produce the same rows by construction.
 *
 * Must not: write anything the trace does not hold (no indexing time, no history-dependent
 * ids), touch verdicts, cases or labels, or print.
 * Threads: a runidx belongs to one thread and uses one store connection. */
#ifndef BELAY_INDEX_RUNIDX_H
#define BELAY_INDEX_RUNIDX_H
#include <stddef.h>
#include <stdint.h>

#include "common/err.h"

struct store;
struct runidx;

/* The run id of a trace: its file name without ".jsonl" (a new string). */
char *runidx_run_id(const char *trace_path);

/* Starts (re)indexing run `run_id`, whose trace is `trace_path` (stored as given; pass an
 * absolute path): deletes the run's previous view and inserts a fresh run row. Must be
 * called inside a write transaction on st. *out is new (runidx_free). */
int runidx_begin(struct store *st, const char *run_id, const char *trace_path, struct runidx **out, struct err *e);
/* Feeds one complete line (its '\n' included in len) that starts at byte `off` of the
 * trace. Inside a write transaction. A line that is not a JSON object with integer "v" and
 * string "kind" is BELAY_ECORRUPT. */
int runidx_line(struct runidx *ix, uint64_t off, const char *line, size_t len, struct err *e);
/* Writes the run row's totals and fields seen so far (call before each COMMIT). */
int runidx_flush(struct runidx *ix, struct err *e);
void runidx_free(struct runidx *ix);

/* Indexes a whole trace file: reads it strictly first (trace_read + trace_validate: a
 * corrupt or foreign file is a named error and changes nothing), then replaces the run's
 * view in one transaction. A last line cut mid-line is not indexed (the run's
 * indexed_bytes then stops short of the file's size). *run_id (may be NULL) receives the
 * run id (new string). */
int runidx_index_file(struct store *st, const char *trace_path, char **run_id, struct err *e);

/* Brings the run view of a trace that is still growing up to date: a hook run already in
 * the store is continued from the bytes it holds (its records are self-contained), anything
 * else is indexed from the start. A last line without its newline is left for next time.
 * Runs its own transaction. *run_id (may be NULL) receives the run id (new string). */
int runidx_catch_up(struct store *st, const char *trace_path, char **run_id, struct err *e);

#endif
