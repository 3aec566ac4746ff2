/* trial.h - contained trial runs (docs/TRY.md): a command runs once in a mirror of the
 * workspace (an overlay whose lower layer is the real tree and whose private upper layer
 * lives in the trial's directory, mounted at the workspace's own path inside the sandbox),
 * and what it did is recorded as a trial: exit status, wall time, the effect read from the
 * upper layer, every sandbox denial, scrubbed output tails, a receipt hash. The effect is
 * applied to the real workspace only on request (conflict-checked, a recover point first),
 * or discarded.
 *
 * On disk: STATE/trials/<id>/ holds record.json (the trial record, immutable once
 * written; the full stdout and stderr are objects of the snapshot store it names, kept by
 * gc while this directory exists; records from before that name files stdout and stderr
 * here), upper/ and work/ (the mirror's layers,
 * while the effect can still be applied), lock (flocked while a run or an apply uses the
 * directory) and state.json (applied or discarded, when it is). A directory without a
 * record whose lock nobody holds is a leftover of a killed run: trial_sweep removes it.
 *
 * Must not: print, write into the real workspace except in trial_apply. Threads: the
 * caller's (everything blocks). */
#ifndef BELAY_TRIAL_TRIAL_H
#define BELAY_TRIAL_TRIAL_H
#include <cjson/cJSON.h>
#include <stdint.h>

#include "common/buf.h"
#include "common/err.h"
#include "sandbox/sandbox.h"

#define TRIAL_TAIL_BYTES (16 * 1024)
#define TRIAL_ID_LEN 40

/* The named causes a trial can end with (the record's "cause"). */
#define TRIAL_TIMEOUT "TRIAL_TIMEOUT"
#define TRIAL_UPPER_OVER_LIMIT "TRIAL_UPPER_OVER_LIMIT"
#define TRIAL_WORKSPACE_CHANGED "TRIAL_WORKSPACE_CHANGED"
#define TRIAL_CLEANUP_UNCONFIRMED "TRIAL_CLEANUP_UNCONFIRMED"
/* ... and the ones for which nothing ran (an error from trial_run, its message starting
 * with the cause). */
#define TRIAL_NO_OVERLAY "TRIAL_NO_OVERLAY"
#define TRIAL_NO_SANDBOX "TRIAL_NO_SANDBOX"
#define TRIAL_NO_PRESTATE "TRIAL_NO_PRESTATE"
#define TRIAL_NO_COMMAND "TRIAL_NO_COMMAND"
/* A trial's full output cannot be read back (its object is gone from the store or changed,
 * or it was never kept). */
#define TRIAL_OUTPUT_MISSING "TRIAL_OUTPUT_MISSING"

struct trial_opts {
	const char *scope;     /* the workspace (an existing directory) */
	const char *state_dir; /* belay's state directory (trials, the snapshot store) */
	const char *cwd;       /* where the command starts (NULL or outside the scope: the scope) */
	char *const *argv;     /* the command */
	enum sandbox_network net;
	unsigned timeout_ms;   /* 0: 10 minutes */
	uint64_t max_bytes;    /* the upper layer's bound (0: 1 GiB) */
	const char *launcher;  /* the belay binary */
	/* Optional, borrowed, both or neither: an open store and a snapshotter of this very scope
	 * (realpath) kept by the caller across trials, so a trial's pre-state is an incremental
	 * capture instead of a first one (trial_route.c keeps one per gate). NULL: opened and
	 * closed here. Used by one trial at a time. */
	struct snap_store *store;
	struct snapshotter *sn;
};

struct snap_store;
struct snapshotter;
/* Runs a trial. Returns 0 with *record (the trial record, owned by the caller) whenever the
 * command ran, whatever it did (its "status" is "done", or "failed"/"voided" with a named
 * "cause"); an error (nothing ran, nothing kept but a leftover-free state) otherwise. */
int trial_run(const struct trial_opts *o, cJSON **record, struct err *e);

/* Removes the directories of trials that never completed (a killed run) and whose lock
 * nobody holds. Returns how many were removed (>= 0) or an error. */
int trial_sweep(const char *state_dir, struct err *e);

/* The record of trial `id` with its state merged in ("state": "ready" | "applied" |
 * "discarded" | "not_appliable"). *out owned by the caller. */
int trial_load(const char *state_dir, const char *id, cJSON **out, struct err *e);

/* Appends the full output `which` ("stdout" or "stderr") of the trial record rec (as
 * trial_load gives it) to out: the raw bytes the command wrote (not scrubbed), read from the
 * store and checked against their SHA-256 and length (an older record's file beside it).
 * Never an empty output in place of a missing one: BELAY_ENOTFOUND or BELAY_ECORRUPT with
 * a message starting with TRIAL_OUTPUT_MISSING, naming the object; out as it was. */
int trial_output_read(const char *state_dir, const cJSON *rec, const char *which, struct buf *out, struct err *e);

struct snap_store;
/* gc's roots: drops the store references (pre-state, output objects) of trials whose
 * directory is gone, so that snap_gc may take what only they kept; everything of a trial
 * whose directory exists stays. Returns how many trials' references were dropped. */
int trial_gc_roots(const char *state_dir, struct snap_store *st, struct err *e);

struct trial_apply_result {
	char before[40];  /* the recover point: the workspace's snapshot handle just before */
	size_t paths;     /* entries written or removed */
	char *recover_trace; /* the trace `belay recover` reads to undo the apply (owned) */
};
/* Applies trial `id`'s effect to its workspace: refused (BELAY_EREFUSED, naming the paths)
 * when a touched path no longer equals the trial's pre-state, when the effect holds a
 * device, FIFO or socket, when the trial is not appliable (failed, voided, already applied
 * or discarded). Never follows a symlink in the workspace; setuid, setgid and sticky bits
 * are dropped. A snapshot of the workspace is taken first (the recover point). */
int trial_apply(const char *state_dir, const char *id, const char *launcher, struct trial_apply_result *out,
		struct err *e);
/* The same, and a link of the effect that leads out of the workspace (trial_links.h) is
 * refused (BELAY_EREFUSED, naming each with its target) unless its path is one of
 * allow_links (NULL-terminated, may be NULL): the person named it. trial_apply names none. */
int trial_apply_links(const char *state_dir, const char *id, char *const *allow_links, struct trial_apply_result *out,
		      struct err *e);
void trial_apply_result_free(struct trial_apply_result *r);
/* Throws the effect away (the layers are removed; the record stays, marked discarded). */
int trial_discard(const char *state_dir, const char *id, struct err *e);

#endif
