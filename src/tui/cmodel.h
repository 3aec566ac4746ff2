/* cmodel.h - the console's model: runs, their turns and denials as the store holds them
 * (re-read when the engine says a run's store rows changed), plus what only the UI thread
 * knows: calls held for the operator, provisional verdicts while a verify job runs, labels.
 *
 * Everything shown can be re-queried from the database: the model is a cache of the run
 * view (runs, turns, denials), verdicts and corpus labels, refreshed incrementally (new
 * turns, turns not yet final, new denials) so a run of 100,000 turns costs O(changes).
 *
 * Must not: write to the store, touch curses. Threads: the UI thread only (it has its own
 * store connection). */
#ifndef BELAY_TUI_CMODEL_H
#define BELAY_TUI_CMODEL_H
#include <cjson/cJSON.h>
#include <stddef.h>
#include <stdint.h>

#include "common/buf.h"
#include "common/err.h"

struct store;

/* Verdict status as shown: the verify statuses plus "none yet". */
enum cm_v { CMV_NONE = -1, CMV_PASS = 0, CMV_WARN = 1, CMV_UNVERIFIED = 2, CMV_FAIL = 3, CMV_NOT_COVERED = 4 };

enum cm_call { CMC_PENDING = 0, CMC_ANSWERED, CMC_CANCELLED, CMC_UNTRACKED, CMC_BY_BELAY /* belay answered in the server's place */ };

struct cm_turn {
	int turn;
	int64_t req_seq, resp_seq; /* resp_seq -1 while unanswered */
	char *tool, *args;         /* owned; args is a compact summary */
	char t_req[32];            /* ISO time of the request */
	int64_t latency_us;        /* -1 unknown */
	enum cm_call call;
	char *error;               /* owned: "rpc -32602: ..." / "tool error: ..." / NULL */
	char prestate[16];         /* captured | shared | concurrent | unrestorable | absent */
	char *handle, *handle_cause; /* owned, may be NULL */
	char decision[16];         /* allow | allow_flagged | ask | deny | "" (no gate) */
	char outcome[32];          /* forwarded | held | refused | ... */
	char approval[12];         /* approved | refused | "" */
	int denials;               /* sandbox denials recorded while this call ran */
	/* verdict */
	enum cm_v v, a1, a2;       /* reduced, worst of axis A1, worst of axis A2 */
	int a1_nc, a2_nc;          /* the axis also had NOT_COVERED checks */
	char cause[48];            /* the reduced verdict's cause (UNVERIFIED/WARN) */
	char a1_cause[48], a2_cause[48];
	int provisional;           /* from a running verify job, not yet saved */
	int verifying;             /* queued or running in a job */
	/* a partial re-check made since the verdict (replay-from-here): beside it, never in its
	 * place; CMV_NONE when there is none */
	enum cm_v rc;
	char rc_cause[48];
	int rc_provisional;
	/* operator */
	char label[16];            /* true-positive | false-positive | unverifiable | pending | "" */
	int label_miss;            /* the label declares a recorded miss (true-positive --miss) */
	int marked;                /* marked for a bulk action (ui_corpus.c) */
	uint64_t hold;             /* held for the operator (0: not held) */
	int final;                 /* answered/cancelled/untracked: its row will not change */
};

struct cm_denial {
	int64_t seq;
	char kind[16];  /* denial | network_attempt */
	char *op, *target, *err, *outcome, *comm; /* owned, may be NULL */
	int64_t turn_seq; /* -1 none */
	int turn;         /* -1 none */
};

/* A call held by the gate, known before the store has it (its record waits for the answer). */
struct cm_hold {
	uint64_t id;
	int64_t seq;
	char *tool;
	char *plan; /* compact JSON */
	char *args; /* the call's arguments as the agent sent them (compact JSON; NULL: not known) */
	/* the trial the call had first in a mirror (docs/TRY.md), all NULL when none: its id and
	 * brief when it ran, else the cause it could not */
	char *trial_id, *trial_brief, *trial_error;
};

struct cm_run {
	char *id, *trace;
	char *server, *scope, *network; /* display strings, owned */
	/* the server command as the user typed it, when belay resolved it before running it (a
	 * launcher's `npx -y PACKAGE ...`: the trace's server start record, launch.given); NULL:
	 * the same as server, or not read yet (typed_read: 1 once the record was seen) */
	char *typed;
	int typed_read;
	char *state_dir;                /* where its pre-states are (owned, may be NULL) */
	char started[32], ended[32];
	int live;                       /* a console connection or followed trace still open */
	int has_exit;
	int exit_status;
	char exit_signal[16];
	int64_t frames, denial_count, network_attempts, capture_errors;
	/* Turns in blocks of CM_TURN_BLOCK that never move (cm_turn_at): a run's turns grow
	 * without the doubling copy that would briefly hold them twice. */
	struct cm_turn **turn_blocks;
	size_t nturns, nblocks;
	size_t first_open;              /* no turn before this one can still change */
	struct cm_denial *denials;
	size_t ndenials, capdenials;
	struct cm_hold *holds;
	size_t nholds;
	size_t counts[6];               /* turns by verdict: index cm_v + 1 (0 = none) */
	/* The run-level verdicts of the latest full verification (the success claim's rules, the
	 * census of collected tests), as verdict_store_latest gives them; owned, NULL: none. */
	cJSON *runv;
	unsigned gen;                   /* bumped on every change (views re-filter) */
};

#define CM_TURN_BLOCK 1024

/* Turn i (< r->nturns) of the run. */
static inline struct cm_turn *cm_turn_at(const struct cm_run *r, size_t i)
{
	return &r->turn_blocks[i / CM_TURN_BLOCK][i % CM_TURN_BLOCK];
}

/* A new, zeroed turn at the end of the run (r->nturns grows by one; no verdict yet). */
struct cm_turn *cm_turn_append(struct cm_run *r);

struct cmodel {
	struct store *st;
	struct cm_run **runs;
	size_t nruns;
	unsigned gen;
	unsigned health_checks; /* runs cm_load_runs left out: health checks (index/runq.h) */
};

int cm_open(struct cmodel *m, const char *state_dir, struct err *e);
void cm_close(struct cmodel *m);
/* Loads every run the store knows (the runs pane), oldest first, less the health checks
 * (RUNQ_HEALTH_CHECK_SQL: connections that called nothing, were refused nothing and wrote
 * nothing), which it counts in m->health_checks; their traces stay. */
int cm_load_runs(struct cmodel *m, struct err *e);
struct cm_run *cm_find(struct cmodel *m, const char *id);
/* Adds a run the engine announced (the store may not have its row yet). */
struct cm_run *cm_add(struct cmodel *m, const char *id, const char *trace);
/* Reads, once, the command the user typed for the run's server from its trace (r->typed):
 * the first lines only, at most 1 MiB, until the server's start record has been seen. */
void cm_read_typed(struct cm_run *r);
/* Re-reads what changed in the store for this run: its row, new turns, turns not yet
 * final, new denials. */
int cm_refresh(struct cmodel *m, struct cm_run *r, struct err *e);
/* Re-reads the latest saved verdict of every turn, and the partial re-checks made since
 * (after a verify job saved them). */
int cm_reload_verdicts(struct cmodel *m, struct cm_run *r, struct err *e);
/* A provisional verdict (verdict_json shape) from a running job. */
void cm_apply_verdict(struct cm_run *r, int turn, const cJSON *v, int provisional);
/* A partial re-check (verdict_json shape; NULL clears it): never touches the verdict. */
void cm_apply_recheck(struct cm_run *r, int turn, const cJSON *v, int provisional);
/* Re-reads the latest corpus labels of the run's turns (corpus_turn_labels). */
int cm_reload_labels(struct cmodel *m, struct cm_run *r, struct err *e);
void cm_set_label(struct cm_run *r, int turn, const char *label);
/* plan and trial (the `trial` record's fields, or {"error": ...}) may be NULL; the plan's
 * "arguments" member (the call's arguments, admission.h) becomes the hold's args. */
void cm_hold_add(struct cm_run *r, uint64_t id, int64_t seq, const char *tool, const cJSON *plan, const cJSON *trial);
void cm_hold_drop(struct cm_run *r, uint64_t id); /* also clears the turn's mark */
void cm_holds_clear(struct cm_run *r);
/* The turn whose request has seq (binary search), or NULL. */
struct cm_turn *cm_turn_by_seq(struct cm_run *r, int64_t seq);
/* The recorded bytes of the frame with seq (checked against its hash), appended to out;
 * meta (may be NULL) gets {"dir","bytes","truncated","off","hash_raw","t_in",
 * "state_handle","origin"} (those the record has). */
int cm_frame_bytes(struct cmodel *m, const struct cm_run *r, int64_t seq, struct buf *out, cJSON **meta,
		   struct err *e);
/* The full latest saved verdict of one turn (verdict_json shape + "at"), or NULL. */
cJSON *cm_verdict_full(struct cmodel *m, const struct cm_run *r, int turn);
/* The partial re-check saved since that verdict (same shape), or NULL. */
cJSON *cm_recheck_full(struct cmodel *m, const struct cm_run *r, int turn);

/* Display helpers. */
const char *cm_v_word(enum cm_v v);  /* "PASS", "UNVERIFIED", ..., "-" for none */
enum cm_v cm_v_parse(const char *s); /* CMV_NONE when unknown or NULL */

#endif
