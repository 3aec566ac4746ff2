/* verify_internal.h - what the parts of verify share (not an API: include only from
 * src/verify/{verify,plan,effect,judge,inorder}.c).
 *
 *   plan.c     what the trace says: frames, the server's command and environment, the
 *              handshake, the session's client messages in order, tool annotations;
 *   effect.c   a replay's effect on the scratch (dirty set or full diff) and its signature;
 *   judge.c    A2 effect and network, A1 invariants, the trajectory, pre-state dependencies;
 *   inorder.c  the in-order session replay (one warm server, every call in recorded order);
 *   verify.c   the passes, their workers, and how a turn's evidence becomes its verdict.
 *
 * Threads: the vctx is built before any worker starts and is read-only afterwards except
 * through its mutex (counters, progress) and each turn's own slots, which one job writes. */
#ifndef BELAY_VERIFY_INTERNAL_H
#define BELAY_VERIFY_INTERNAL_H
#include <pthread.h>
#include <stdatomic.h>

#include "mcp/model.h"
#include "trace/trace_reader.h"
#include "snapshot/snapshot.h"
#include "verify/equiv.h"
#include "verify/relocate.h"
#include "verify/replay.h"
#include "verify/scratch.h"
#include "verify/verify.h"
#include "verify/weakening.h"

/* A no-assertion-weakening check read on the post-state a replay left in the scratch (which
 * the next replay overwrites), one slot per invariant of the policy. */
struct weak_pre {
	int ran;           /* wr holds a result */
	const char *cause; /* else: why the task's pre-state is unavailable */
	struct weakening_result wr;
};

/* A replay's post-state against the recording's (effect_vs_record). SAME: the replay changed what the recording did, as it did; CLOCK: the same paths, contents
 * differing only in clock readings later than the recording's; DIFFERS: anything else. */
enum effect_rec { EFFECT_REC_UNKNOWN = 0, EFFECT_REC_SAME, EFFECT_REC_DIFFERS, EFFECT_REC_CLOCK };

/* One turn as one pass saw it. */
#define FOLD_ROOTS 10 /* fold_roots' most, with the terminator */

struct pass_obs {
	int ran;                /* the pass re-executed the call */
	int skipped;            /* isolated, default order: not run, the in-order replay reproduced
				  * the result and the effect (verify.c, isolated_needed) */
	const char *cause;      /* the call has no reply in this pass: why (a closed-list cause) */
	char detail[600];
	char *reply;            /* the reply line (owned) */
	size_t reply_len;
	cJSON *effect;          /* changed paths (owned); NULL: the effect could not be taken */
	char effect_err[512];   /* why not */
	const char *effect_via, *effect_full_why;
	enum effect_rec rec;    /* the replay's post-state against the recorded one */
	char rec_why[600];      /* what differs, or why it is unknown */
	cJSON *wrote;           /* the effect's files after the replay: {path: "sha256:..." or null
				  * when not a regular file} (owned; NULL: not taken) */
	int wrote_varies;       /* another replay of the call from the same pre-state wrote other
				  * bytes at a path both wrote: the writer is nondeterministic */
	cJSON *observed;        /* denials and network attempts (owned) */
	int network_refused;
	size_t answers_missing; /* server requests without a recorded answer */
	char answer_missing_method[64];
	char *protocol_version; /* owned, may be NULL */
	struct weak_pre *weak;  /* per invariant (owned, may be NULL) */
	char *ws, *tmp;         /* where it ran: the scratch workspace and temp dir (owned) */
	char *mirror;           /* the scratch's mirror root, or NULL (owned; scratch.h) */
	char *cache;            /* the scratch's cache dir (owned) */
};

struct pool;

struct vctx {
	struct pool *pool; /* the phase running (verify.c), for the in-order pass's progress */
	const struct verify_opts *o;
	struct trace *t;
	struct model m;
	char **argv;             /* the server command (owned) */
	char *cwd;               /* its recorded cwd (owned, may be NULL) */
	char *scope;             /* the recorded workspace (owned, may be NULL) */
	char *rec_tmp;           /* the recorded server's private temp dir (owned, may be NULL) */
	char *rec_cache;         /* the recorded server's writable cache (owned, may be NULL) */
	char *remote;            /* a server over HTTP: its URL as recorded (owned; NULL: a local server) */
	char *http_url;          /* a contained local server over HTTP: its URL inside its sandbox (owned; NULL: stdio) */
	char *state_dir;
	char *recorded_protocol; /* from the recorded initialize response */
	char *env_refused;       /* the injection variables of a foreign environment (env_filter.h),
				  * comma separated: every turn is REPLAY_ENV_REFUSED; NULL: none */
	const cJSON *env_record; /* the server's recorded environment (borrowed), NULL: not recorded */
	char *env_missing;       /* withheld variables verify cannot supply (owned), or NULL */
	char **outside;          /* per turn: the workspace changed outside the sandbox while it ran
				  * (a description, owned), or NULL */
	struct turn_verdict *v;  /* one per turn */
	int *is_error;           /* per turn: the judged reply isError (1), not (0), unknown (-1) */
	struct pass_obs *iso;    /* per turn: the first isolated replay */
	struct pass_obs *seq;    /* per turn: the in-order session replay */
	int seq_ran;             /* the in-order pass ran */
	const char *seq_skipped; /* why it did not (static), or NULL */
	char seq_stop[700];      /* why it stopped before the end (""): later turns were not reached */
	const char *seq_stop_cause; /* the cause that stopped it (static), or NULL */
	int seq_inplace_turn;    /* the first turn before which it restored a file the server holds
				  * in place (-1: none): from there on it may not have seen that, so
				  * a difference in that pass is never a FAIL */
	char seq_inplace_what[300]; /* which files, for the messages */
	int seq_fresh_from;      /* the first turn a fresh server was restarted for, mid-pass (-1:
				  * none): from there the pass is isolated, never a FAIL */
	char seq_restart[300];   /* why (the last restart), for the summary */
	double seq_ms, seq_server_ms; /* its wall time, and the time its steps waited on replies */
	double seq_own_ms;       /* belay's own work in it: restoring pre-states, taking effects */
	size_t seq_turns;        /* turns it reached */
	atomic_int next;
	pthread_mutex_t mu;
	unsigned long full_restores, partial_restores; /* summed from the workers (after they end) */
	unsigned long task_restores, scratches_reused;
	atomic_ulong scratch_mismatches;
	atomic_ulong settles, settles_proven; /* replies' quiet windows, and those a proof ended */
	atomic_ulong settle_us;               /* their time, summed */
};

/* What a worker thread owns. */
struct worker {
	struct snap_store *st;
	int store_ok;
	struct err store_err;
	struct scratch sc;
	int sc_open;
	int sc_pooled;     /* sc was taken from o->pool (given back at the end) */
	int sc_reused;     /* and it was a kept one, not a new one */
	unsigned long sc_full0, sc_partial0, sc_task0; /* its counters when taken */
	struct err sc_err; /* why the scratch could not be created */
};

/*==== plan.c ====*/
const struct trace_record *plan_frame_rec(const struct vctx *c, size_t frame);
/* One message of a frame (an element of a batch, or the frame) as a new string. */
char *plan_message_text(const struct trace_record *r, int item, size_t *len);
/* The recorded response of exchange x as a new string, or NULL. */
char *plan_response_text(const struct vctx *c, const struct exchange *x, size_t *len);
/* The annotations of `tool` in the latest tools/list answered before seq (a new object), or
 * NULL; *listed says whether a tools/list existed at all. */
cJSON *plan_annotations(const struct vctx *c, int64_t seq, const char *tool, int *listed);
/* The handshake the client made before seq (initialize, notifications/initialized). */
/* Counts a replay's quiet window (a reply was awaited and came) and whether a proof ended it. */
static inline void count_settle(struct vctx *c, const struct replay_result *r)
{
	if (r->ms_settle > 0 || r->settle_proven) {
		atomic_fetch_add(&c->settles, 1);
		atomic_fetch_add(&c->settle_us, (unsigned long)(r->ms_settle * 1000));
		if (r->settle_proven)
			atomic_fetch_add(&c->settles_proven, 1);
	}
}

void plan_handshake(const struct vctx *c, int64_t seq, const struct relocation *rl, struct replay_frame **out,
		    size_t *n);
/* Every client message of the session in recorded order, as steps of a session replay
 * (turns marked); requests the gate refused never reached the server and are left out. */
void plan_session_steps(const struct vctx *c, const struct relocation *rl, struct replay_frame **out, size_t *n);
/* 1 when the in-order pass reached turn k on a server that may not have had the session's
 * conditions: restarted mid-pass before it, or a file it holds restored in place under it. A
 * difference there is never a FAIL (SESSION_ORDER_NOT_REPLAYED). */
int inorder_unfaithful(const struct vctx *c, int k);
/* Where exchange x reached the network when it was recorded: its network_attempt records
 * (`turn_seq` = its request; without one, between its request and its response) of family
 * inet or inet6, as a new array of {"family", "address"} without repeats, or NULL when none
 * (replay_frame.dests); plus the connections the server made before the call in no call (at
 * its start: a database client's pool the call may use without connecting again), allowed
 * when recorded, marked "held": true. */
cJSON *plan_turn_dests(const struct vctx *c, const struct exchange *x);
/* The server's argv / cwd / environment moved to a scratch workspace. */
char **plan_argv(const struct vctx *c, const struct relocation *rl);
char *plan_cwd(const struct vctx *c, const struct relocation *rl, const char *fallback);
/* NULL env when the trace recorded none (the replay then inherits verify's); *missing names
 * withheld variables verify cannot supply (new string or NULL). Returns BELAY_EINVAL on a
 * malformed record. */
int plan_env(const struct vctx *c, const struct relocation *rl, char ***env, char **missing);
/* 1 when the gate (or the console) refused the request at seq: it never reached the server;
 * why gets a description. */
int plan_gate_refused(const struct vctx *c, int64_t req_seq, char *why, size_t n);
/* What every replay of this trace in scratch sc starts the server with: the command, cwd and
 * environment moved to sc, the folding roots, and the record's client answers. */
struct replay_setup {
	char **argv, *cwd, **env, *missing;
	struct fold_root roots[FOLD_ROOTS];
	struct answers *answers;
};
void plan_replay_setup(const struct vctx *c, const struct scratch *sc, struct replay_setup *out);
void plan_replay_setup_free(struct replay_setup *s);
void plan_frames_free(struct replay_frame *f, size_t n);
void plan_strv_free(char **v);

/* Which turns ran while someone outside the sandbox changed the workspace: fills c->outside
 * from the pre-states' "outside_changes" (prestate.h). */
void plan_outside_changes(struct vctx *c);

/*==== effect.c ====*/
/* The effect of a replay relative to the pre-state `handle` (see verify.c). live: the
 * server is still running (a session replay), so surviving processes are expected. */
/* What the files of `effect` (effect_of's) hold now in ws: {path: "sha256:HEX", or null when
 * not a regular file or not readable} (new object). */
cJSON *effect_digests(const char *ws, const cJSON *effect);
/* 1 when a and b (effect_digests) name a common path with different content. */
int effect_digests_differ(const cJSON *a, const cJSON *b);
cJSON *effect_of(struct vctx *c, struct worker *w, const char *handle, const struct replay_result *rr, int live,
		 const char **via, const char **why_full, struct err *e);
/* A signature of one replay for the nondeterminism check. */
char *effect_signature(const char *reply, size_t len, const cJSON *effect, const struct fold_root *roots);
/* 1 if the recorded reply differs from a replay's signature only in clock readings: later
 * timestamps, or durations. */
int effect_clock_drift(const char *recorded, size_t rlen, const char *replay_sig, const struct fold_root *roots);
/* Turn k's replay (whose post-state is in w's scratch now, its pre-state `handle`, its
 * effect `effect`) against the recording: the next turn's pre-state is what the call left
 * when it ran alone. Compared on the paths either changed, net of the changes made outside
 * the sandbox that the next pre-state names, times aside. SAME, CLOCK (why names the files
 * whose content differs only in later clock readings), DIFFERS (why names the paths and
 * what differs) or UNKNOWN (why says why: the last call, overlapping calls,
 * outside changes not all named, a store error). Reads the store and the scratch only. */
enum effect_rec effect_vs_record(struct vctx *c, struct worker *w, size_t k, const char *handle, const cJSON *effect,
				 char *why, size_t n);
/* check_scratch: 1 when the scratch hashes as the pre-state does. */
int effect_scratch_matches(struct worker *w, const char *handle);

/*==== judge.c ====*/
/* A2 effect and effect:network from the passes that observed the call (NULL entries and
 * passes without an effect are skipped; names[i] says which pass, for messages). */
void judge_effect(struct vctx *c, struct turn_verdict *v, const struct exchange *x, const struct pass_obs *const *passes,
		  const char *const *names, size_t n);
struct weak_pre *judge_prejudge_weakening(struct vctx *c, struct worker *w, const cJSON *effect);
void judge_weak_pre_free(struct vctx *c, struct weak_pre *pre);
void judge_invariants(struct vctx *c, struct turn_verdict *v, const cJSON *effect, struct weak_pre *pre);
void judge_trajectory(struct vctx *c, struct verify_report *out);
void judge_dependencies(struct vctx *c);

/*==== census_judge.c ====*/
/* tests-collected (census.h), when the policy has it: out->census. Blocks for the two
 * discoveries (each bounded by the rule's timeout). */
void judge_census(struct vctx *c, struct verify_report *out);
/* The handle of the run's final state (its last final_state record, present), or NULL with
 * *why saying why there is none. */
const char *verify_final_handle(const struct trace *t, const char **why);
/* Keeps what a runner printed in the snapshot store (owner kind / owner: the trace's file
 * name) and adds {side: {"bytes", "ms", "object" | "object_error"}} to kept. */
void verify_keep_output(struct snap_store *st, const char *kind, const char *owner, const char *side,
			const struct buf *output, double ms, cJSON *kept);

int judge_reply_is_error(const char *reply, size_t len);

/*==== inorder.c ====*/
/* The in-order session replay: fills c->seq[k] for every turn it reached. */
void inorder_run(struct vctx *c, struct worker *w);

/*==== verify.c ====*/
/* The paths a reply made at (ws, tmp) folds away against the record: out needs 7 slots. */
/* The path roots a reply is folded with (equiv.h): the recorded and the replay's workspace,
 * temp dir, cache and workspace parent, and the replay's mirror root (scratch.h) mapped to "", so
 * that any path through an ancestor of the workspace reads as recorded. mirror may be NULL. */
void fold_roots(const struct vctx *c, const char *ws, const char *tmp, const char *mirror, const char *cache,
		struct fold_root out[FOLD_ROOTS]);
void pass_obs_free(struct vctx *c, struct pass_obs *p);
/* Opens the worker's scratch on first use (taken from o->pool when there is one); 0 or
 * w->sc_err's code (w->sc_err says why; -EIO when what failed gave none). */
int worker_scratch(const struct vctx *c, struct worker *w);

/* The in-order pass replayed turn k (inorder.c): where it is phase 1's only replay (the default
 * and session orders), the job line counts it. */
void verify_inorder_progress(struct vctx *c, int k);

#endif
