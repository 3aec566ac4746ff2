/* verify.h - verification of a recorded run by re-execution (axis A2) and invariants
 * (axis A1). For each tools/call turn: bring a scratch directory to its pre-state,
 * re-run the call on a fresh contained server, compare the reply and observe the effect;
 * then judge the tool's declarations and the operator's invariants. No model is consulted.
 *
 * Turns are verified by `jobs` worker threads, each with its own loop, store connection and
 * persistent scratch workspace (scratch.h: moved from pre-state to pre-state by undoing the
 * last replay and applying the delta, fully restored when its state is not known exactly;
 * removed at the end, or given back to the caller's pool, scratch_pool.h). Threads:
 * verify_trace blocks its caller; the progress callback runs on worker threads, serialised
 * by a mutex. */
#ifndef BELAY_VERIFY_VERIFY_H
#define BELAY_VERIFY_VERIFY_H
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "common/err.h"
#include "verify/policy.h"
#include "verify/verdict.h"

/* Which passes re-execute the calls (see verify.c): both by default — the in-order pass
 * first, then the isolated one only for the turns whose verdict depends on it (docs/VERDICTS.md,
 * "When the isolated replay is skipped"); `full` replays every call in both passes (a fresh
 * server per turn: the SESSION_STATE note on every turn that needs the session); `session`
 * alone is the fast way with servers that are slow to start (one start per session, not per
 * turn), and its verdicts say so; `isolated` alone is the behaviour of earlier versions. */
enum verify_order { VERIFY_ORDER_BOTH = 0, VERIFY_ORDER_ISOLATED = 1, VERIFY_ORDER_SESSION = 2, VERIFY_ORDER_FULL = 3 };

struct scratch_pool;

struct verify_opts {
	const char *state_dir;          /* where the pre-states are stored */
	const struct policy *policy;    /* A1 invariants (may be empty) */
	int replays;                    /* further replays on divergence (>= 3) */
	int jobs;                       /* worker threads (>= 1) */
	unsigned timeout_ms;            /* per awaited reply in a replay */
	char *const *server_override;   /* replay against this server instead of the recorded one */
	int turn;                       /* only this turn (-1: all) */
	int turn_from;                  /* with turn -1: only turns >= this one (0: all; the
	                                 * whole-run verdict is judged only when all are) */
	int coverage_only;              /* belay replay, replay-from-here: the result comparison only
					 * (a differing result is replayed again, as always, so that
					 * nondeterminism is never called a FAIL); no effect or
					 * invariant judging */
	enum verify_order order;        /* the passes (default both) */
	const char *replay_trace_dir;   /* keep each replay's own trace here (NULL: none) */
	const char *launcher;           /* the belay binary (sandbox launcher) */
	int full_diff;                  /* effects by a full diff of the scratch, never from the
					 * dirty set (--full-diff) */
	unsigned dirty_sources;         /* test-only: VERIFY_DIRTY_* bits the dirty set is built
					 * from (0 = all) */
	int settle_wait;                /* benchmarks and tests: wait every quiet window after a reply
					 * out, never end it on a proof that the server is quiet */
	int check_scratch;              /* after every undo + delta, compare the scratch's tree hash
					 * with the pre-state's (O(tree): for tests and doubt); a
					 * mismatch is counted and the scratch fully restored */
	int env_foreign;                /* the trace is material from elsewhere whatever its seal says
					 * (an imported corpus case, a bundle): loader and interpreter-
					 * injection variables of its recorded environment are refused
					 * (REPLAY_ENV_REFUSED). 0: decided by the seal (a trace this
					 * state directory sealed keeps its environment, proxy/env_seal.h) */
	struct scratch_pool *pool;      /* scratches kept across calls (scratch_pool.h; the caller's,
					 * may be shared between threads): workers take theirs from it
					 * and give them back. NULL: fresh scratches, removed at the end */
	void (*progress)(void *ctx, const struct turn_verdict *v);
	/* Optional, verify's worker threads (serialised): `done` of the `total` turns asked for
	 * have had their replays (phase 1, the slow part) or their judging (phase 2). */
	void (*step)(void *ctx, int phase, size_t done, size_t total);
	void *ctx;
	/* Optional: set (non-zero) by another thread to cancel. No further turn is replayed; a
	 * replay in progress ends within ~0.1 s plus its server's stop (its contained server is
	 * terminated and reaped, its scratch removed as always); nothing is judged and
	 * verify_trace fails with -ECANCELED. */
	atomic_int *cancel;
};

/* Where a replay's dirty set comes from: the supervisor's write intents (the paths the
 * contained processes asked to write, resolved) and inotify (what the kernel saw change in
 * the scratch). Both by default; tests use one at a time to show each suffices. */
#define VERIFY_DIRTY_SUPERVISOR 1u
#define VERIFY_DIRTY_INOTIFY 2u
#define VERIFY_DIRTY_ALL (VERIFY_DIRTY_SUPERVISOR | VERIFY_DIRTY_INOTIFY)

struct verify_report {
	struct turn_verdict *turns; /* in turn order */
	size_t n;
	size_t total_turns;         /* tools/call turns in the trace */
	struct turn_verdict trajectory; /* suite-before-success-claim (whole trace only) */
	int has_trajectory;
	struct turn_verdict census;     /* tests-collected (whole trace only, census.h) */
	int has_census;
	enum vstatus worst;
	unsigned long full_restores;    /* scratch restores of a whole pre-state */
	unsigned long partial_restores; /* scratch moves by undo + delta */
	unsigned long scratch_mismatches; /* check_scratch: moves that did not reproduce the pre-state */
	unsigned long settles;          /* quiet windows after replies (one per answered replay call) */
	unsigned long settles_proven;   /* of them, ended early on a proof that the server was quiet */
	double settle_ms;               /* their time, summed */
	unsigned long task_restores;    /* restores of the task pre-state (A1 no-assertion-weakening) */
	unsigned long scratches_reused; /* worker scratches taken from opts.pool rather than opened */
	/* the in-order session pass: whether it ran, how many turns it reached, its wall time
	 * (server start to end), the part of it spent waiting on the server's replies, and why it
	 * did not run or stopped early ("" when it ran to the end) */
	int session_ran;
	size_t session_turns;
	double session_ms, session_server_ms, session_own_ms; /* own: restores and effects */
	char session_note[700];
	int cut_line;                   /* the trace's last line was cut mid-line (its number; 0: not) */
	size_t cut_bytes;               /* and its bytes: everything before it was verified */
};

int verify_trace(const char *trace_path, const struct verify_opts *o, struct verify_report *out, struct err *e);
/* 1 when a claim's text says the suite passed ("all tests pass", "suite is green", ...). */
int verify_claim_says_passed(const char *text);
/* suite-before-success-claim, its start (verify_claim.c): the invariant, when the policy has
 * it and the trace's last claim says the suite passed (*claim_seq its seq; out->trajectory
 * opened for the caller to judge the suite runs before it); else NULL, with a claim that
 * does not say so already judged UNVERIFIED CLAIM_UNCLASSIFIABLE. */
struct trace;
const struct invariant *verify_trajectory_begin(const struct trace *t, const struct policy *pol,
						 struct verify_report *out, int64_t *claim_seq);
/* claim-rederived (suite.h), when the policy has it and the trace's last claim says the suite
 * passed: the final state restored twice into a scratch of its own (at the recorded path
 * `scope`), the suite run on each, contained; one A1 "claim" sub-verdict added to
 * out->trajectory (opened when no other rule opened it), reduced. Blocks for the two runs (each bounded by
 * the rule's timeout). The runs' outputs are kept in the snapshot store (owner "claim"). */
void verify_claim_rederive(const struct trace *t, const struct verify_opts *o, const char *state_dir,
			   const char *scope, struct verify_report *out);
void verify_report_free(struct verify_report *r);

#endif
