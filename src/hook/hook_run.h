/* hook_run.h - the trace of one agent session (a "hook run"): found again by the session's
 * id by every hook process of that session, appended to one record at a time.
 *
 * One writer at a time: every change happens between hook_run_lock and hook_run_unlock,
 * which hold an exclusive flock on the trace file itself. Whoever holds it (a hook process,
 * the console, the resident helper) first catches up with what others appended since it
 * last looked (hook_run_sync: the records are self-contained, so only the new bytes are
 * read), then assigns the next seq and writes each record as one write(2) of one line
 * (O_APPEND). So parallel tool calls of one session, each in its own hook process, get
 * gapless seqs in the order they took the lock, and a killed writer leaves whole lines.
 *
 * The run's file is <trace-dir>/<run id>.jsonl with run id "hook-<agent>-<session>" (the
 * session id as given when it is short and plain, else a digest of it); a session that
 * resumes after its run was closed gets "<id>.2", "<id>.3", ...
 *
 * Must not: print. Threads: a hook_run belongs to one thread at a time. */
#ifndef BELAY_HOOK_HOOK_RUN_H
#define BELAY_HOOK_HOOK_RUN_H
#include <cjson/cJSON.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "common/err.h"

#define HOOK_OBSERVATION_POINT "hook"

/* A tool call whose pre event was recorded and whose post event has not come yet. */
struct hook_open {
	int turn;
	int64_t seq;       /* the request record's seq */
	char *key;         /* pairing key: the tool_use_id, else "cmd:<command>" (owned) */
	char *tool;        /* owned */
	int mutating;      /* its effect plan changes the workspace */
	char *pre_handle;  /* the pre-state captured for it (owned, may be NULL) */
};

struct hook_run {
	char *path, *id;     /* owned */
	int fd;              /* O_RDWR | O_APPEND, -1 once closed */
	int locked;
	dev_t dev;
	ino_t ino;
	uint64_t scanned;    /* bytes of the file accounted for */
	int64_t next_seq;
	int next_turn;
	int started;         /* has its agent_session start */
	int closed;          /* has its connection_window close */
	struct hook_open *open;
	size_t nopen, capopen;
	char *task_handle;   /* the first pre-state captured in the run (owned, may be NULL) */
	int64_t *turn_seq;   /* the request seq of each turn (-1: not recorded) */
	size_t capturn_seq;
	char *agent, *session, *root; /* from the agent_session start (owned, may be NULL) */
};

/* The run id for a session of `agent` (a new string): "hook-<agent>-<session>". */
char *hook_run_id(const char *agent, const char *session);

/* Opens (creating, 0600, in trace_dir created 0700) the current run of id `base` and
 * takes its lock: the first of base, base.2, base.3 ... that is not closed. *out is new;
 * the caller must hook_run_unlock and hook_run_close it. A trace that cannot be read back
 * (not one of ours, a cut line) is BELAY_ECORRUPT, named. */
int hook_run_open(const char *trace_dir, const char *base, struct hook_run **out, struct err *e);
/* Opens exactly the existing trace at path and takes its lock (to append to a trace whose
 * own writer has finished: `belay claim`). */
int hook_run_attach(const char *path, struct hook_run **out, struct err *e);
/* Takes the lock again (waiting up to timeout_ms; BELAY_ETIMEOUT after) and catches up. */
int hook_run_lock(struct hook_run *r, unsigned timeout_ms, struct err *e);
void hook_run_unlock(struct hook_run *r);
/* Reads what was appended since the last look (under the lock). */
int hook_run_sync(struct hook_run *r, struct err *e);
/* Appends one record (fields taken; may be NULL) under the lock; returns its seq, or -1
 * with e set when the write failed (nothing half-written stays: a short write is cut back). */
int64_t hook_run_append(struct hook_run *r, const char *kind, cJSON *fields, struct err *e);
/* The open call with this pairing key (the oldest, for keys that repeat), or NULL. */
struct hook_open *hook_run_find_open(struct hook_run *r, const char *key);
/* The open call recorded at request seq `seq`, or NULL. */
struct hook_open *hook_run_open_at(struct hook_run *r, int64_t seq);
/* The request seq of turn `turn`, or -1. */
int64_t hook_run_turn_seq(const struct hook_run *r, int turn);
void hook_run_close(struct hook_run *r);

#endif
