/* session_internal.h - the session struct and the seams between session.c (pumping and
 * lifecycle), session_spawn.c (how the server is started, contained or not) and
 * session_admission.c (the admission step on the client-to-server path). Proxy-internal. */
#ifndef BELAY_PROXY_SESSION_INTERNAL_H
#define BELAY_PROXY_SESSION_INTERNAL_H
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <uv.h>

#include "common/buf.h"
#include "mcp/framer.h"
#include "mcp/inflight.h"
#include "sandbox/sandbox.h"
#include "proxy/session.h"
#include "proxy/session_phase.h"
#include "proxy/loop_spin.h"
#include "trace/trace_writer.h"

struct session {
	uv_loop_t *loop;
	struct session_opts o;
	struct endpoint *cin, *cout;       /* client side (may be one endpoint) */
	struct endpoint *sin, *sout, *serr; /* server pipes */
	struct endpoint *errout;           /* where server stderr is passed through */
	uv_process_t proc;
	/* session_opts.http_url: belay-http --bridge, the server side's stdio (http_bridge.h) */
	uv_process_t bridge;
	unsigned bridge_spawned : 1, bridge_running : 1;
	uv_timer_t kill_timer, drain_timer;
	struct loop_spin spin; /* after each forwarded chunk, poll a while before sleeping */
	uv_async_t drain_async;
	int open_handles; /* references: our handles plus in-flight worker requests */
	struct trace_writer *tw;
	struct trace_writer_stats trace_stats; /* the trace writer's, taken as it closes */
	char *trace_path;
	struct framer fr[2];
	/* When the chunk being framed was read: its frames' t_in (they may be recorded after
	 * the chunk was forwarded); chunk_time_set only inside a read callback */
	struct timespec chunk_time;
	int chunk_time_set;
	struct admission *gate;
	void *gate_state; /* owned by session_admission.c */
	int pid;
	uint64_t start_ns;
	uint64_t stderr_bytes;
	int64_t exit_status;
	int term_signal;
	unsigned c2s_reading : 1, s2c_reading : 1;
	unsigned client_eof : 1, client_out_dead : 1;
	unsigned server_in_dead : 1, server_out_eof : 1, server_err_eof : 1;
	enum session_phase phase; /* the lifecycle (session_phase.h); changed only by session_set_phase */
	unsigned exited : 1, term_sent : 1, drain_expired : 1;
	unsigned shutdown_pending : 1; /* the client ended; close the server's input once the gate drains */
	/* Why belay stands in for the server (session_lifecycle.c): with rec_failed nothing more
	 * comes from it either; not_started: it never ran. */
	unsigned rec_failed : 1, not_started : 1;
	unsigned sandbox_seen : 1; /* the launcher's status (installed, or the layer that failed) arrived */
	unsigned answered : 1;  /* the waiting requests were answered (later ones are at once) */
	unsigned server_gone_open : 1; /* the server ended while its client was still connected */
	unsigned answering : 1;        /* belay's replies are being written: do not finish */
	struct inflight inflight; /* client requests waiting for an answer */
	char *stop_msg;           /* the message of belay's error replies once stopped */
	cJSON *stop_detail;       /* and their data.belay detail */
	uv_timer_t linger_timer;
	struct buf err_tail;      /* the last bytes of the server's stderr */
	struct buf err_head;      /* and its first bytes (the line that says why comes early) */
	char *denials[3];         /* the sandbox's last denials, one line each (a ring) */
	unsigned ndenials;
	char *not_started_why;    /* the containment failure, when the server never ran */
	/* Containment: the supervisor thread posts records through the inbox. */
	struct sandbox_supervisor *sup;
	_Atomic int64_t turn_seq; /* request seq of the tools/call in flight, -1 when none */
	pthread_mutex_t inbox_mu;
	struct inbox_item *inbox_head, **inbox_tail;
};

/* Moves the lifecycle to `to`; a transition session_phase_allowed refuses is a bug (asserted). */
void session_set_phase(struct session *s, enum session_phase to);
/* Belay stands in for the server from here on (a no-op when it already does). */
void session_stand_in(struct session *s);

/* Drops a reference (handles, worker requests); the last one frees the session. */
void session_unref(struct session *s);

/* Thread-safe: queues a record (fields taken) for the loop thread, which writes it to the
 * trace in arrival order. Used by the supervisor and worker threads. */
void session_post(void *session, const char *kind, cJSON *fields);

/* What uv_spawn runs for this session: struct spawn_plan (sandbox/sandbox.h). */
int session_prepare_spawn(struct session *s, const char *exe, struct spawn_plan *sp, struct err *e);
/* Adds what was started (contained or not) to the server-start record. */
void session_spawn_describe(const struct spawn_plan *sp, cJSON *record);
void session_spawn_done(struct spawn_plan *sp);

/* Pumping entry points shared with the gate. */
void session_c2s_read(struct endpoint *ep, char *data, ssize_t n, void *ctx);
void session_s2c_read(struct endpoint *ep, char *data, ssize_t n, void *ctx);
void session_forward_c2s(struct session *s, char *data, size_t n);
/* Forwarding first, recording after (the frames are recorded off the round trip's path):
 * session_forward_c2s_early hands the chunk to the server's stdin and returns 0 (the
 * endpoint owns data from then on, but it stays readable until the callback returns), 1
 * (not forwarded yet) or a libuv error; the caller then records the chunk's frames and
 * calls session_forward_c2s_done with that result, which forwards what was not yet (1),
 * or frees data and records the failure (< 0) - after the frames, as a failure that
 * happened while forwarding them would be. */
int session_forward_c2s_early(struct session *s, char *data, size_t n);
void session_forward_c2s_done(struct session *s, char *data, size_t n, int rc);
/* 1 when the gate holds nothing and can hold nothing back (no gate; audit or off mode, no
 * capture, nothing queued): a chunk may then be forwarded before its frames are examined. */
int session_admission_can_pass(struct session *s);
void session_client_input_ended(struct session *s);
void session_shutdown_server_input(struct session *s);
int session_admission_has_queued(struct session *s);
int64_t session_record_frame(struct session *s, int dir, const char *data, size_t len, size_t total, int truncated,
			     cJSON *handle, struct trace_rec **defer);

/* Belay standing in for the server (session_lifecycle.c). */
/* The server has exited (exit_cb): stop forwarding to it, keep the client's requests coming
 * to be answered. */
void session_lifecycle_exited(struct session *s);
/* The trace writer reported a failed write: fail closed. */
void session_lifecycle_recording_failed(struct session *s);
/* Client bytes once stopped: framed, recorded, each request answered. Takes data. */
void session_lifecycle_c2s(struct session *s, char *data, size_t n);
/* From maybe_finish once the server's output is drained: answers what waits, announces,
 * starts the linger. Returns 1 while the session must not finish yet. */
int session_lifecycle_hold_finish(struct session *s);
void session_lifecycle_stderr(struct session *s, const char *data, size_t n);
void session_lifecycle_denial(struct session *s, const cJSON *fields);
void session_lifecycle_not_started(struct session *s, const char *layer, const char *why);
/* The server was never spawned, for this cause (session_opts.not_started). */
void session_lifecycle_never_spawned(struct session *s, const char *cause);
void session_lifecycle_free(struct session *s);
/* session.c's own, for session_lifecycle.c. */
void session_update_reading(struct session *s);
void session_maybe_finish(struct session *s);
/* "exit_status" (or null) and "signal", "signal_name" (or null) of the ended server. */
void session_add_exit_fields(const struct session *s, cJSON *f);
/* Closes the server's input and arms the kill timer (SIGTERM, then SIGKILL, each after the
 * kill grace time) unless it has exited. */
void session_stop_server(struct session *s);

/* The admission step (session_admission.c). All are no-ops when s->gate is NULL. */
void session_admission_started(struct session *s);
void session_admission_c2s_chunk(struct session *s, char *data, size_t n); /* takes data */
void session_admission_c2s_eof(struct session *s);
void session_admission_s2c_frame(struct session *s, const char *data, size_t len, int truncated);
int session_admission_blocks_reading(struct session *s);
void session_admission_finish(struct session *s);
/* The workspace as the run left it (the last observed state, for recover's drift check),
 * captured on the loop thread once the server has exited; NULL without a capturing gate. */
cJSON *session_admission_final_state(struct session *s);
void session_admission_free(struct session *s);

#endif
