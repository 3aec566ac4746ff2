/* runrows.h - the run view row by row, for a reader that keeps its own cache (the console):
 * runs, a run's turns from a given turn on, its denials after a given seq, and where one
 * frame lies in the trace. The rows are handed to a callback with borrowed strings; nothing
 * is turned into JSON, so a refresh of 100,000 turns costs the rows it reads.
 *
 * Owns: nothing the caller sees after a callback returns (every const char * of a row is
 * valid only during that call; NULL where the column is NULL). The statements are the
 * store's cached ones (store_stmt): one connection, one thread - the caller's.
 * Must not: write to the store, print. */
#ifndef BELAY_INDEX_RUNROWS_H
#define BELAY_INDEX_RUNROWS_H
#include <stdint.h>

#include "common/err.h"

struct store;

struct runrows_run {
	const char *id, *trace_path, *started, *ended, *server_argv, *scope, *network, *exit_signal, *state_dir;
	const char *http_upstream, *http_listener; /* a run over HTTP: its server's URL, belay's listener */
	int has_exit, exit_status;
	int64_t frames, denials, network_attempts, capture_errors;
	int health_check; /* RUNQ_HEALTH_CHECK_SQL holds for the row */
};

struct runrows_turn {
	int turn;
	int64_t req_seq, resp_seq;  /* resp_seq -1: no answer yet */
	int64_t latency_us;         /* -1: unknown */
	const char *tool, *args, *t_req, *status, *error, *gate, *handle, *handle_cause, *decision, *outcome,
		*approval;
};

struct runrows_denial {
	int64_t seq, turn_seq; /* turn_seq -1: outside any turn */
	const char *kind, *op, *target, *err, *outcome, *comm;
};

/* A callback returns 0 to go on; anything else stops the walk and is returned. */
typedef int (*runrows_run_cb)(void *ctx, const struct runrows_run *row);
typedef int (*runrows_turn_cb)(void *ctx, const struct runrows_turn *row);
typedef int (*runrows_denial_cb)(void *ctx, const struct runrows_denial *row);

/* Every run, oldest first (started, then id). */
int runrows_runs(struct store *st, runrows_run_cb cb, void *ctx, struct err *e);
/* One run: cb called once, or not at all for an unknown run (then 0 is returned). */
int runrows_run(struct store *st, const char *run, runrows_run_cb cb, void *ctx, struct err *e);
/* The turns of run numbered from_turn on, in turn order. */
int runrows_turns(struct store *st, const char *run, int64_t from_turn, runrows_turn_cb cb, void *ctx,
		  struct err *e);
/* The denials of run with seq > after_seq, in seq order. */
int runrows_denials(struct store *st, const char *run, int64_t after_seq, runrows_denial_cb cb, void *ctx,
		    struct err *e);

struct runrows_frame {
	long long off, len, bytes;
	int truncated;
	char dir[16]; /* "?" when unknown */
};
/* Where frame seq of run lies in its trace (read the bytes with runq_frame_record).
 * BELAY_ENOTFOUND when the store has no such frame. */
int runrows_frame(struct store *st, const char *run, int64_t seq, struct runrows_frame *out, struct err *e);

#endif
