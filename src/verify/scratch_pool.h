/* scratch_pool.h - scratch workspaces kept across verify_trace calls (a batch's).
 *
 * Without a pool every verify_trace opens fresh worker scratches, so every trace pays a
 * full restore of its first pre-state, another of the task pre-state (turn 0's, for the A1
 * no-assertion-weakening rule) and the removal of both at the end. A pool, owned by the
 * caller and passed in verify_opts.pool, keeps the scratches a trace is done with:
 *   - the next trace whose recorded workspace path is the same one (the workspace sits at
 *     that path below the scratch's mirror root, scratch.h) takes one that already holds a
 *     snapshot, and scratch_prepare moves it by undo + delta (falling back to a full restore
 *     when the store does not know the held snapshot, e.g. another state dir); a trace of
 *     another workspace path gets a scratch of its own;
 *   - a scratch whose state is not known exactly is never handed out as holding anything:
 *     one that verify invalidated (a failed undo, a replay whose contained processes
 *     outlived it, a failed replay) stays invalidated, and scratch_pool_give invalidates one
 *     whose workspace the kernel reports changed since its last replay's effect was taken
 *     (or whose change tracking is off): its next use restores fully;
 *   - the task pre-state directory is kept when the next trace's turn-0 pre-state handle is
 *     the same (handles name one capture: a copy in another store holds the same tree), and
 *     restored again otherwise (scratch_task).
 * Snapshot handles are the capture's random 128-bit id, never reused for another tree.
 *
 * Ownership: the caller creates the pool, may share it between threads, and closes it
 * (removing every scratch it holds) after the last verify_trace that used it returned.
 * Threads: take, give and stats lock the pool's mutex; a taken scratch belongs to the
 * thread that took it until it gives it back. */
#ifndef BELAY_VERIFY_SCRATCH_POOL_H
#define BELAY_VERIFY_SCRATCH_POOL_H
#include "common/err.h"
#include "verify/scratch.h"

struct scratch_pool;

struct scratch_pool_stats {
	unsigned long opened;  /* scratches opened (a take that found none to reuse) */
	unsigned long reused;  /* takes served by a kept scratch */
	unsigned long given;   /* scratches given back */
	unsigned long dropped; /* given back invalidated because its workspace changed unobserved */
	unsigned long evicted; /* removed to keep at most `keep` */
};

/* A pool that keeps at most `keep` idle scratches (0: 1); giving one more back removes the
 * one given back longest ago (each holds a whole workspace: a batch of many workspace paths
 * must not fill the scratch filesystem). */
struct scratch_pool *scratch_pool_new(size_t keep);
/* A scratch for the recorded workspace path `recorded` (may be NULL) in *out: a kept one
 * of the same path (*reused = 1, it may hold a snapshot), else a new one (scratch_open).
 * 0, or an error from scratch_open (nothing taken). */
int scratch_pool_take(struct scratch_pool *p, const char *recorded, struct scratch *out, int *reused, struct err *e);
/* Gives s back (s is moved: zeroed on return). */
void scratch_pool_give(struct scratch_pool *p, struct scratch *s);
void scratch_pool_stats(struct scratch_pool *p, struct scratch_pool_stats *out);
/* Removes every kept scratch and frees the pool (NULL-safe). */
void scratch_pool_close(struct scratch_pool *p);

#endif
