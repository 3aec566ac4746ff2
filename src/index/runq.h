/* runq.h - read-only queries over the run view and the verdicts, as JSON for the CLI (and
 * later the console): the list of runs, one run, one turn with its frames read back from
 * the trace through the frame index's byte offsets.
 *
 * Must not: write to the store, print. Threads: the caller's, with its own connection. */
#ifndef BELAY_INDEX_RUNQ_H
#define BELAY_INDEX_RUNQ_H
#include <cjson/cJSON.h>

#include "common/buf.h"
#include "common/err.h"

struct store;

/* A health check (an agent's `claude mcp list`: connect, initialize, list the tools, close),
 * as an SQL condition over the runs row `r`: an MCP run (not a hook run) that has ended,
 * made no tools/call, had no denial and no network attempt, and whose contained server
 * wrote nothing in the workspace, start-up included (workspace_writes = 0; unknown - an
 * uncontained run, an older trace - is never a health check). Its trace is kept; only the
 * run lists fold it. */
#define RUNQ_HEALTH_CHECK_SQL                                                                                        \
	"(r.agent IS NULL AND r.ended IS NOT NULL AND r.turns = 0 AND r.denials = 0 AND r.network_attempts = 0 AND " \
	"r.workspace_writes = 0)"
/* [{"id","started","ended","server":[argv],"turns","verified_turns","worst"|null,
 *   "denials","network_attempts","workspace_writes"|null,"health_check","trace_path"}] in
 * start order; without `all`, health checks (RUNQ_HEALTH_CHECK_SQL) are left out and counted
 * in *hidden (may be NULL). Caller owns *out. */
int runq_list(struct store *st, int all, cJSON **out, int *hidden, struct err *e);
/* One run: the run row's fields, "unindexed_bytes" (runq_unindexed_bytes), "turns": [{turn,
 * tool, args, status, latency_us, gate, handle, handle_cause, error, req_seq, resp_seq,
 * verdict|null, recheck (when a partial re-check was made since the verdict)}],
 * "denials": [...].
 * BELAY_ENOTFOUND for an unknown run. Caller owns *out. */
int runq_run(struct store *st, const char *run, cJSON **out, struct err *e);
/* One turn: its row, "request" and "response" (the frames' bytes read from the trace by
 * offset, as JSON when they parse, else as text), "denials" during it, "verdict" (the
 * latest full one, with sub-verdicts and messages) and "recheck" (a partial re-check made
 * since, or null: shown beside the verdict, never in its place). BELAY_ENOTFOUND for an unknown run or turn. */
int runq_turn(struct store *st, const char *run, int turn, cJSON **out, struct err *e);
/* The trace of run (a run id), or with run NULL of the latest contained run (one with a
 * scope): a new string, or NULL with BELAY_ENOTFOUND naming what is missing. */
char *runq_trace_path(struct store *st, const char *run, struct err *e);
/* The contained runs (with a scope), oldest first: [{"id","started","turns","scope"}]. */
int runq_contained_runs(struct store *st, cJSON **out, struct err *e);
/* The turns of run with their pre-states: [{"turn","tool","gate","handle","handle_cause"}]
 * in turn order ([] for an unknown run). */
int runq_turn_states(struct store *st, const char *run, cJSON **out, struct err *e);
/* 1 when the store has run id, 0 when not, < 0 on a store error. */
int runq_run_exists(struct store *st, const char *run, struct err *e);
/* Hook runs still open (an agent's, not ended), oldest first:
 * [{"run","agent","session","started","turns"}]. */
int runq_open_hook_runs(struct store *st, cJSON **out, struct err *e);
/* The run row's counts: turns, frames, denials plus network attempts (-1 each when the run
 * is unknown). */
void runq_counts(struct store *st, const char *run, int *turns, int *frames, int *denials);
/* Bytes of the run's trace after its last indexed line (-1 when unknown): a line being
 * written, or one cut mid-line (a killed writer, a full disk) that no reader indexes. */
long long runq_unindexed_bytes(struct store *st, const char *run);
/* The frame bytes of the record line at [off, off+len) of a trace: the line is re-read,
 * parsed and its hash_raw checked, so a trace changed since indexing is named
 * (BELAY_ECORRUPT), never misread. */
int runq_frame_bytes(const char *trace_path, long long off, long long len, struct buf *out, struct err *e);
/* Same, and *record (may be NULL) gets the whole record without "raw" (caller owns). */
int runq_frame_record(const char *trace_path, long long off, long long len, struct buf *out, cJSON **record,
		      struct err *e);

#endif
