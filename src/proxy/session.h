/* session.h - one proxied connection: an MCP client endpoint, one server child, the trace.
 *
 * Loop thread only. Bytes are forwarded verbatim in both directions (never re-serialised);
 * a copy of each frame is recorded with seq assigned as it is read, before it is forwarded,
 * so a request is always recorded before the response it causes. The trace writer runs on
 * its own thread and never stalls forwarding - until recording becomes impossible (a write
 * fails: disk full, a file-size limit, an I/O error). Then the session fails closed: it
 * stops forwarding in both directions, asks the server to stop, answers the client's
 * requests itself with an error (reply_when_gone), tells the observer (alert) and ends with
 * SESSION_EXIT_RECORDING_FAILED. Server stderr is passed through to the proxy's own stderr
 * (counted, and its last lines kept for the alert below).
 *
 * Lifecycle: session_start spawns the server and starts pumping. The session ends when the
 * server has exited and its stdout/stderr reached EOF (bounded by a grace timer, since a
 * grandchild can hold them open). When the client's input ends, the server's stdin is
 * closed; a server that is still running after `kill_grace_ms` gets SIGTERM, then SIGKILL.
 * A server that exits (or never starts) while its client is still connected is announced
 * (alert: exit status or signal, its last stderr lines, the sandbox's last denials); with
 * reply_when_gone every request still waiting for it, and every request the client sends
 * in the second after, is answered with a JSON-RPC error by belay (session_reply_error).
 * On end, the observer's `ended` runs, then the session frees itself once its handles close.
 *
 * Replies belay makes on the server's behalf all go through session_reply_client, which
 * records them as s2c frames with "origin": "belay" and a "belay_reason" (docs/TRACE_FORMAT.md)
 * so that no reader takes them for the server's. */
#ifndef BELAY_PROXY_SESSION_H
#define BELAY_PROXY_SESSION_H
#include <cjson/cJSON.h>
#include <stddef.h>
#include <stdint.h>
#include <uv.h>

#include "common/err.h"
#include "mcp/endpoint.h"

struct session;
struct sandbox_spec;
struct admission;

struct session_frame {
	int64_t seq; /* -1 when nothing is recorded */
	int dir;     /* DIR_C2S / DIR_S2C */
	const char *data;
	size_t len, total;
	int truncated;
	const struct timespec *t_in;
	const char *belay_reason; /* a reply belay made (session_reply_reason_name), else NULL */
};

/* Why belay answered the client itself, on the server's behalf: the frame's "belay_reason"
 * in the trace. A new kind of belay-made reply adds its reason here (and to
 * docs/TRACE_FORMAT.md). */
enum session_reply_reason {
	SESSION_REPLY_GATE_REFUSED = 0,   /* "gate_refused": the effect gate or the operator refused the call */
	SESSION_REPLY_RECORDING_FAILED,   /* "recording_failed": the trace cannot be written; nothing is forwarded */
	SESSION_REPLY_SERVER_EXITED,      /* "server_exited": the server ended before it answered */
	SESSION_REPLY_SERVER_NOT_STARTED, /* "server_not_started": the server never ran (its containment failed) */
};
#define SESSION_REPLY_REASONS 4
/* The reason's name as written in the trace (static). */
const char *session_reply_reason_name(enum session_reply_reason r);
/* 1 if name is one of the names above. */
int session_reply_reason_known(const char *name);

/* The JSON-RPC error code of belay's error replies (implementation-defined server error). */
#define SESSION_REPLY_ERROR_CODE (-32000)
/* The exit code of a session whose recording failed (sysexits' EX_IOERR). */
#define SESSION_EXIT_RECORDING_FAILED 74

/* Observers run on the loop thread and must not block; pointers are borrowed. */
struct session_observer {
	void (*frame)(void *ctx, struct session *s, const struct session_frame *f);
	void (*record)(void *ctx, struct session *s, int64_t seq, const char *kind, const cJSON *fields);
	void (*ended)(void *ctx, struct session *s, int exit_code);
	/* Something the operator must hear about at once, as text (one or more lines, no
	 * "belay:" prefix): the server ended or never started while its client was connected,
	 * or recording failed. reason is a session_reply_reason_name. */
	void (*alert)(void *ctx, struct session *s, const char *reason, const char *text);
	void *ctx;
};

struct session_opts {
	char *const *argv;        /* server command; argv[0] is looked up on PATH */
	const char *cwd;          /* server cwd (NULL: inherit) */
	char *const *env;         /* server environment, NAME=VALUE (NULL: belay's own) */
	const char *trace_dir;    /* record into a new trace here (NULL: no trace) */
	const char *trace_path;   /* or exactly this file */
	size_t frame_cap;         /* recorded bytes per frame (0: 16 MiB) */
	int trace_writer_normal;  /* the trace writer keeps the normal priority (trace_writer.h) */
	unsigned kill_grace_ms;   /* after client EOF (0: 5000) */
	int stderr_fd;            /* where server stderr goes (default 2; -1 discards) */
	const struct session_observer *obs;
	const struct sandbox_spec *sandbox; /* NULL: run the server uncontained */
	struct admission *gate;             /* NULL: no pre-state capture (taken, also on failure) */
	struct witness *witness;  /* what the contained processes were let write (taken, also on
				   * failure, like gate; may be NULL): the supervisor notes into it,
				   * the gate's captures read it (proxy/witness.h) */
	const char *launcher;     /* path of the belay binary used as the sandbox launcher */
	const char *state_dir;    /* recorded so verify finds the pre-states (may be NULL) */
	/* Added to the server-start record as "launch" (a launcher-style command resolved to
	 * what argv now runs; see src/pkgexec). Borrowed; may be NULL. */
	const cJSON *launch;
	/* The client is an agent that must never be left waiting (proxying; off for replays,
	 * whose driver tells a dead server by the closed connection): when the server cannot
	 * answer (it ended or never started, or recording failed), belay answers each waiting
	 * request, and each one sent while the session ends, with a JSON-RPC error. */
	int reply_when_gone;
	/* The server cannot be run at all, for this cause (a launcher-style command whose
	 * package could not be resolved: "npx could not fetch PKG ..."). Nothing is spawned;
	 * the session records a start record with "not_started": CAUSE and, with
	 * reply_when_gone, answers the client's requests as for a server that never started
	 * ("server_not_started", the message naming the cause), then ends with status 2.
	 * NULL: run argv. */
	const char *not_started;
	/* After each chunk forwarded either way, keep polling at most this long (microseconds;
	 * the window follows the recent answers) before the loop sleeps, so that a fast answer
	 * is read without a wake-up (proxy/loop_spin.h; 0: never spin - replays, tests). */
	unsigned spin_us;
	/* Optional: every trace line as written (trace writer thread; see trace_writer_opts). */
	void (*trace_tap)(void *ctx, uint64_t off, const char *line, size_t len);
	void *trace_tap_ctx;
	/* With sandbox: the server speaks MCP over HTTP at this URL inside its sandbox
	 * (http://127.0.0.1:PORT/PATH; a contained local server's run, docs/HTTP.md): it gets
	 * the URL's port on the sandbox's own loopback and the connector, its stdin and stdout
	 * nothing, and the session's server side is belay-http --bridge (http/http_bridge.h). NULL: stdio. */
	const char *http_url;
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
/* The trace writer's back-pressure counters (final ones once it closed; zeros without a trace). */
struct trace_writer_stats;
void session_trace_stats(const struct session *s, struct trace_writer_stats *st);
int session_server_pid(const struct session *s);
/* The spin windows' counters so far (proxy/loop_spin.h). */
struct loop_spin_stats;
void session_spin_stats(const struct session *s, struct loop_spin_stats *st);
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

/* The one path for a frame belay sends the client on the server's behalf. bytes[0..len) is
 * one JSON-RPC message without its newline; when it answers a client request, that request
 * is no longer waiting. It is recorded as an s2c frame with "origin": "belay" and
 * "belay_reason" (unless recording has failed), shown to the observer, and written to the
 * client (unless the client is gone). Loop thread. */
void session_reply_client(struct session *s, enum session_reply_reason why, const char *bytes, size_t len);
/* A JSON-RPC error reply to the client's request `id` through session_reply_client:
 *   {"jsonrpc":"2.0","id":ID,"error":{"code":SESSION_REPLY_ERROR_CODE,"message":MESSAGE,
 *    "data":{"belay":{"reason":NAME, ...detail}}}}
 * detail (an object, may be NULL) is borrowed. */
void session_reply_error(struct session *s, enum session_reply_reason why, const cJSON *id, const char *message,
			 const cJSON *detail);

#endif
