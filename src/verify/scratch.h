/* scratch.h - a verification worker's persistent scratch workspace.
 *
 * One per worker for the whole verify run (under fs_scratch_base(), tmpfs when available):
 *   ws    the workspace replays run in. It holds one snapshot exactly (scratch_prepare; the
 *         first use restores it fully) plus the changes of the last replay, which the next
 *         scratch_prepare undoes together with the delta to the next pre-state, both
 *         restored from the store path by path (snap_restore_paths), so a turn costs its
 *         changes and not the tree.
 *   tmp   the replays' private temp dir, emptied before every replay.
 *   task  turn 0's pre-state (the A1 no-assertion-weakening reference), restored once and
 *         never handed to a replay.
 * Every directory of ws is watched with inotify; what the kernel reports between
 * scratch_arm and scratch_dirty is the replay's dirty set as the kernel saw it (the
 * supervisor's write intents give it as the process asked for it; verify uses both).
 * A scratch whose state is not known exactly (a failed undo, an unexpected error, processes
 * that outlived a replay) is invalidated and fully restored next time, never trusted.
 * Everything is removed by scratch_close, on every path.
 *
 * Threads: a scratch belongs to one worker thread (scratch_pool.h hands one from thread to
 * thread). */
#ifndef BELAY_VERIFY_SCRATCH_H
#define BELAY_VERIFY_SCRATCH_H
#include <stddef.h>

#include "common/err.h"
#include "snapshot/snapshot.h"

struct scratch {
	char *root, *ws, *tmp; /* owned; ws is a realpath (as the sandbox resolves it) */
	char *mirror;          /* root/m when ws is root/m + the recorded workspace path (owned), else NULL */
	char *cache;           /* root/cache: the replays' writable cache (the sandbox's, sandbox_cache.h),
				* emptied with tmp (owned) */
	char *recorded;        /* the recorded workspace path it was opened for (owned, may be NULL) */
	char *task;            /* root/task once restored (owned), else NULL */
	char *task_handle;     /* the snapshot task holds or failed to restore (owned), else NULL */
	int task_state;        /* 0 not tried, 1 restored, -1 failed (task_cause) */
	const char *task_cause;
	char *handle;          /* the snapshot ws holds apart from `pending`; NULL: unknown */
	struct snap_paths pending; /* what the last replay changed (undone by the next prepare) */
	/* dirty tracking of ws */
	int ifd;               /* inotify, -1 when unavailable */
	char **wd_path;        /* watch descriptor -> relative path of the directory (owned) */
	size_t wd_cap;
	int rewatch;           /* the watch table may be stale: re-watch after the next restore */
	const char *watch_off; /* why inotify tracking is off (static), NULL while on */
	int keep_tmp;          /* scratch_prepare leaves tmp alone (a session replay's server
				* is still running and owns it) */
	const struct snap_paths *in_place; /* the next prepare rewrites these files in place when
				* they must change (snap_partial_opts.in_place; borrowed, NULL: none) */
	/* counters, for benchmarks and tests */
	unsigned long full_restores, partial_restores, task_restores;
};

/* Creates root, ws and tmp. With `recorded` (the recorded workspace's absolute path) ws is
 * root/m + recorded: the workspace sits at its own path below a mirror root, so every path
 * the server prints through the workspace or any of its ancestors ("WS/../../x") is the
 * recorded one with root/m in front, and maps back exactly (fold_roots). A recorded path
 * that is not absolute and normal (a "." or ".." component, over 2048 bytes) gives
 * root/w/NAME (its last component, else "ws"): then the workspace and its parent map. */
int scratch_open(struct scratch *s, const char *recorded, struct err *e);
/* Removes everything (NULL-safe, idempotent). */
void scratch_close(struct scratch *s);

/* Makes ws hold snapshot `handle` exactly: undoes the pending changes and applies the delta
 * from the held snapshot (O(changes)); when nothing is held, or that fails, restores it
 * fully. Empties tmp and cache. *full (may be NULL) says whether a full restore was needed. On error
 * (the full restore failed: e.g. an unknown handle) the scratch holds nothing. */
int scratch_prepare(struct scratch *s, struct snap_store *st, const char *handle, int *full, struct err *e);
/* Starts observing: drops the events of belay's own restore. Call right before a replay. */
void scratch_arm(struct scratch *s);
/* The paths the kernel reported changed in ws since scratch_arm, added to out (whole
 * subtrees for directories created or moved). Returns 0, or -1 with *why (static) when the
 * report cannot be trusted to be complete (tracking off, queue overflow, unknown watch). */
int scratch_dirty(struct scratch *s, struct snap_paths *out, const char **why);
/* Converts a resolved absolute path to one relative to ws (new string; "." for ws itself),
 * or NULL when it lies outside ws. */
char *scratch_rel(const struct scratch *s, const char *abs);
/* Records what the last replay changed in ws relative to the held snapshot (the effect's
 * paths); the next scratch_prepare undoes exactly these. */
void scratch_changed(struct scratch *s, const struct snap_diff *effect);
/* Forgets what ws holds: the next scratch_prepare restores fully. */
void scratch_invalidate(struct scratch *s);
/* Turn 0's pre-state as a read-only reference, restored on first use (name hazards
 * refused, as any restore outside verification scratch would) and again when asked for
 * another handle (a pooled scratch serving the next trace, scratch_pool.h). Returns its
 * path (borrowed) or NULL with *cause (static) when it cannot be restored. */
const char *scratch_task(struct scratch *s, struct snap_store *st, const char *handle, const char **cause);
/* Forgets a failed task restore, so the next scratch_task tries again (another trace may
 * have its store). */
void scratch_task_reset_failure(struct scratch *s);

#endif
