/* runner.h - one recorded run, set up the way `belay proxy` and the console both need it:
 * the server contained (with a scope), every tools/call gated (pre-state capture, effect
 * plan), the trace written and indexed live into the store. The caller supplies the client
 * endpoints and a loop; the runner owns everything else about the run.
 *
 * Must not: print (failures come back in struct err, or through cfg->report), read the
 * terminal. Threads: the loop thread, except the hooks that say otherwise. */
#ifndef BELAY_RUN_RUNNER_H
#define BELAY_RUN_RUNNER_H
#include <cjson/cJSON.h>
#include <stddef.h>
#include <stdint.h>
#include <uv.h>

#include "common/err.h"
#include "mcp/endpoint.h"
#include "sandbox/sandbox.h"
#include "proxy/admission.h"
#include "pkgexec/pkgexec.h"

struct runner;
struct gate_policy;

struct runner_cfg {
	char *const *server;       /* server argv */
	const char *cwd;           /* server cwd (NULL: inherit) */
	const char *scope;         /* contain the server, writes confined here (NULL: uncontained) */
	enum sandbox_network net;  /* for a contained server */
	char *const *expose;       /* hidden-by-default paths kept in view (--expose; NULL-terminated, may be NULL) */
	enum admission_mode mode;  /* effect gate */
	const char *policy_file;   /* the gate's tool-call policy (NULL: built-in) */
	const char *state_dir;     /* belay's state (snapshots, store, approvals) */
	const char *trace_dir;     /* where the trace goes (NULL: STATE/traces) */
	int no_trace, no_index;
	/* After each forwarded chunk the loop polls at most this long before it sleeps, for a
	 * window learned from the recent answers (proxy/loop_spin.h; 0: LOOP_SPIN_DEFAULT_US);
	 * no_spin: never. */
	unsigned spin_us;
	int no_spin;
	int trace_writer_normal; /* the trace writer keeps the normal priority (an A/B arm) */
	size_t frame_cap;
	int approvals;             /* open the one-shot approvals socket (enforce mode) */
	int stderr_fd;             /* server stderr (default 2; -1 discards) */
	/* A launcher-style server (npx, npm exec, pnpm dlx, uvx...: pkgexec.h) that is contained
	 * is resolved first - outside the sandbox, install scripts off - and its installed entry
	 * point runs contained. runner_start does it itself (blocking, seconds on a first
	 * fetch) unless the caller did it on a worker thread and passes the plan here
	 * (borrowed; it must be for this very server and cwd). */
	const struct pkgexec_plan *resolved;
	/* Contained trials of asked-about calls (enforce mode, a contained run only): the admission's
	 * trial callback and its context (docs/TRY.md; src/trial/trial_route.h gives one). The
	 * context stays the caller's and must outlive the run. NULL: no trials. */
	cJSON *(*trial)(void *ctx, const char *command, const char *cwd);
	void *trial_ctx;

	/* Hooks (any may be NULL). */
	void (*ended)(void *ctx, struct runner *r, int exit_code); /* loop thread */
	/* A call held for the operator (enforce mode, a decision of ask); answer with
	 * runner_resolve. plan and trial (the report of the trial the call had first, when
	 * `trial` below took it; else NULL) are borrowed for the call. Loop thread. */
	void (*hold)(void *ctx, struct runner *r, uint64_t hold, int64_t seq, const char *tool, const cJSON *plan,
		     const cJSON *trial);
	/* The store committed more of this run (store writer thread: must only wake someone). */
	void (*committed)(void *ctx, struct runner *r);
	/* Live indexing stopped (store writer thread), once. */
	void (*report)(void *ctx, const char *msg);
	/* The run can no longer serve its client, said at once (loop thread): the server ended
	 * or never started while the client was connected, or recording failed (the run then
	 * stops forwarding and ends with SESSION_EXIT_RECORDING_FAILED). reason is a
	 * session_reply_reason_name ("server_exited", "server_not_started", "recording_failed");
	 * text is one or more lines without a "belay:" prefix. Belay answers the client's
	 * waiting requests itself with an error naming the cause. */
	void (*alert)(void *ctx, struct runner *r, const char *reason, const char *text);
	void *ctx;
};

/* Validates the configuration, then starts the run. cin/cout are taken (closed on error).
 * Nothing is forwarded and no trace is left behind on failure. A launcher-style server that
 * runner_start cannot resolve is not such a failure: the run starts with nothing to run
 * (session_opts.not_started), answers the client's requests with the cause (reason
 * "server_not_started", the message naming the package and the package manager's last
 * words), says it through `alert`, is recorded, and ends with status 2. */
int runner_start(uv_loop_t *loop, const struct runner_cfg *cfg, struct endpoint *cin, struct endpoint *cout,
		 struct runner **out, struct err *e);
const char *runner_trace_path(const struct runner *r); /* NULL without a trace */
/* The trace writer's back-pressure counters (trace_writer.h; zeros without a trace). */
struct trace_writer_stats;
void runner_trace_stats(const struct runner *r, struct trace_writer_stats *st);
const char *runner_run_id(const struct runner *r);     /* NULL without a trace */
/* The spin windows' counters (proxy/loop_spin.h). */
struct loop_spin_stats;
void runner_spin_stats(const struct runner *r, struct loop_spin_stats *st);
int runner_server_pid(const struct runner *r);
/* Stops the server (SIGTERM, then SIGKILL after the grace time). No-op once ended. */
void runner_terminate(struct runner *r);
/* The operator's answer to a held call: 0, or session_admission_resolve's BELAY_ENOTFOUND
 * (nothing with that id is held) / BELAY_EINVAL (ADMISSION_APPLIED for a call that had no
 * trial). */
int runner_resolve(struct runner *r, uint64_t hold, enum admission_answer answer, const char *by);
int runner_ended(const struct runner *r);
int runner_exit_code(const struct runner *r);
/* Frees the runner once it has ended: finishes indexing (joins the store writer thread;
 * this waits for the last batch). Returns 0, or BELAY_ESTORE when live indexing had
 * stopped (the hook reported why). */
int runner_free(struct runner *r);
struct store_writer_stats;
/* runner_free that also gives the store writer's counters (zero when the run was not
 * indexed; *indexed says which). */
int runner_free_stats(struct runner *r, struct store_writer_stats *st, int *indexed);

#endif
