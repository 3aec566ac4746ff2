/* session.h - one proxied connection: an MCP client endpoint, one server child, the trace.
 *
 * Loop thread only. Bytes are forwarded verbatim in both directions (never re-serialised);
 * a copy of each frame is recorded with seq assigned as it is read, before it is forwarded,
 * so a request is always recorded before the response it causes. Recording never stalls or
 * alters forwarding: the trace writer runs on its own thread, and its failures become named
 * capture_errors. Server stderr is passed through to the proxy's own stderr (and counted).
 *
 * Lifecycle: session_start spawns the server and starts pumping. The session ends when the
 * server has exited and its stdout/stderr reached EOF (bounded by a grace timer, since a
 * grandchild can hold them open). When the client's input ends, the server's stdin is
 * closed; a server that is still running after `kill_grace_ms` gets SIGTERM, then SIGKILL.
 * On end, the observer's `ended` runs, then the session frees itself once its handles close. */
#ifndef BELAY_ENGINE_SESSION_H
#define BELAY_ENGINE_SESSION_H
#include <cjson/cJSON.h>
#include <stddef.h>
#include <stdint.h>
#include <uv.h>

#include "common/err.h"
#include "engine/endpoint.h"

struct session;
struct sandbox_spec;
struct turn_gate;

struct session_frame {
	int64_t seq; /* -1 when nothing is recorded */
	int dir;     /* DIR_C2S / DIR_S2C */
	const char *data;
	size_t len, total;
	int truncated;
	const struct timespec *t_in;
};

/* Observers run on the loop thread and must not block; pointers are borrowed. */
struct session_observer {
	void (*frame)(void *ctx, struct session *s, const struct session_frame *f);
	void (*record)(void *ctx, struct session *s, int64_t seq, const char *kind, const cJSON *fields);
	void (*ended)(void *ctx, struct session *s, int exit_code);
	void *ctx;
};

struct session_opts {
	char *const *argv;        /* server command; argv[0] is looked up on PATH */
	const char *cwd;          /* server cwd (NULL: inherit) */
	char *const *env;         /* server environment, NAME=VALUE (NULL: belay's own) */
	const char *trace_dir;    /* record into a new trace here (NULL: no trace) */
	const char *trace_path;   /* or exactly this file */
	size_t frame_cap;         /* recorded bytes per frame (0: 16 MiB) */
	unsigned kill_grace_ms;   /* after client EOF (0: 5000) */
	int stderr_fd;            /* where server stderr goes (default 2; -1 discards) */
	const struct session_observer *obs;
	const struct sandbox_spec *sandbox; /* NULL: run the server uncontained */
	struct turn_gate *gate;             /* NULL: no pre-state capture (taken, also on failure) */
	struct witness *witness;  /* what the contained processes were let write (taken, also on
				   * failure, like gate; may be NULL): the supervisor notes into it,
				   * the gate's captures read it (engine/witness.h) */
	const char *launcher;     /* path of the belay binary used as the sandbox launcher */
	const char *state_dir;    /* recorded so verify finds the pre-states (may be NULL) */
	/* Optional: every trace line as written (trace writer thread; see trace_writer_opts). */
	void (*trace_tap)(void *ctx, uint64_t off, const char *line, size_t len);
	void *trace_tap_ctx;
	/* Verification replays only (off for proxying): */
	int report_writes;        /* the supervisor records "write_intent"s (sandbox_supervisor.h) */
	int reap_contained;       /* at the end, SIGKILL contained processes that outlive the server
				   * and record {"survivors_killed":N,"contained_gone":bool} as a
				   * "sandbox_end" record */
};

/* Validates, creates the trace, spawns the server and starts forwarding. cin/cout are the
 * client side (they may be the same endpoint); the session takes ownership of them.
 * Nothing is forwarded and no trace is left behind if this fails; the endpoints are then
 * still the caller's to close. */
int session_start(uv_loop_t *loop, const struct session_opts *o, struct endpoint *cin, struct endpoint *cout,
		  struct session **out, struct err *e);
const char *session_trace_path(const struct session *s); /* borrowed; NULL without a trace */
int session_server_pid(const struct session *s);
/* Exit status mirroring the server: its code, or 128+signal. Valid once ended. */
int session_exit_code(const struct session *s);
/* Asks the server to stop (SIGTERM now, SIGKILL after the grace time). */
void session_terminate(struct session *s);
/* Adds a record of `kind` to this session's trace (fields taken) and tells the observer. */
int64_t session_record(struct session *s, const char *kind, cJSON *fields);
/* Records now what other threads (the sandbox supervisor) have posted so far, instead of at
 * the loop's next turn: a caller that has just seen a reply learns every record posted
 * before it (the supervisor posts before it lets a call proceed). */
void session_drain_posted(struct session *s);
/* The session's trace writer (NULL without a trace). Borrowed. */
struct trace_writer *session_trace_writer(struct session *s);

#endif
