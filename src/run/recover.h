/* recover.h - putting a workspace back to the pre-state of a recorded turn.
 *
 * A plan reads the run's trace: the turn's pre-state handle, the workspace (the run's
 * scope), and the run's last observed state (its final_state record). It then compares:
 *   drift   = the last observed state vs the workspace now: changes no recorded turn
 *             explains (made after the run, or by something else). Apply refuses while
 *             there is drift, naming the paths, unless forced.
 *   changes = the target pre-state vs the workspace now: what apply will change.
 * Apply snapshots the workspace first (so the operator can go back: before_handle), makes
 * exactly the changed paths match the target (snap_restore_paths), checks the tree hash
 * against the target's, and records the apply in the store (recoveries).
 *
 * Must not: print, touch anything outside the run's scope. Threads: the caller's. */
#ifndef BELAY_RUN_RECOVER_H
#define BELAY_RUN_RECOVER_H
#include "common/err.h"
#include "snapshot/snapshot.h"

struct recover_plan {
	char *run, *trace, *scope, *state_dir;
	int turn, turns;          /* the target turn; tools/call turns in the run */
	char *target;             /* its pre-state handle */
	char *target_hash;        /* its recorded tree hash (may be NULL) */
	char *final_handle;       /* the run's last observed state (NULL: none recorded) */
	char *final_cause;        /* why there is none (NULL when there is) */
	struct snap_diff drift;   /* final vs workspace now (empty without a final state) */
	struct snap_diff changes; /* target vs workspace now */
	struct snap_store *st;    /* open on state_dir */
};

/* Plans restoring turn `turn` of the run recorded in trace (state_dir NULL: the one the
 * trace recorded). Named errors: a turn that does not exist, has no restorable pre-state
 * (its cause), a run without a scope, a missing snapshot store. */
int recover_plan(const char *trace, const char *state_dir, int turn, struct recover_plan *p, struct err *e);
void recover_plan_free(struct recover_plan *p);

struct recover_result {
	char *before;          /* the workspace just before (a snapshot handle) */
	size_t paths;          /* entries changed */
	char tree_hash[96];    /* of the workspace after */
	int matches;           /* equals the target's recorded tree hash */
	long long id;          /* the recoveries row */
};
/* Applies a plan (refusing drift unless force: BELAY_EREFUSED naming up to 20 paths, or
 * the absence of a final state). */
int recover_apply(struct recover_plan *p, int force, struct recover_result *out, struct err *e);
void recover_result_free(struct recover_result *r);

struct store;
/* The workspace and the saved snapshot of recovery `id` (the recoveries row): new strings in
 * *ws and *before (NULL when the apply saved none). BELAY_ENOTFOUND for an unknown id. */
int recover_saved(struct store *st, long long id, char **ws, char **before, struct err *e);

#endif
