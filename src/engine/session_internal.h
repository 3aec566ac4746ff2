/* session_internal.h - the session struct and the seams between session.c (pumping and
 * lifecycle), session_spawn.c (how the server is started, contained or not) and
 * session_gate.c (the turn gate on the client-to-server path). Engine-internal. */
#ifndef BELAY_ENGINE_SESSION_INTERNAL_H
#define BELAY_ENGINE_SESSION_INTERNAL_H
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <uv.h>

#include "engine/framer.h"
#include "sandbox/sandbox.h"
#include "engine/session.h"
#include "engine/trace_writer.h"

struct session {
	uv_loop_t *loop;
	struct session_opts o;
	struct endpoint *cin, *cout;       /* client side (may be one endpoint) */
	struct endpoint *sin, *sout, *serr; /* server pipes */
	struct endpoint *errout;           /* where server stderr is passed through */
	uv_process_t proc;
	uv_timer_t kill_timer, drain_timer;
	uv_async_t drain_async;
	int open_handles; /* references: our handles plus in-flight worker requests */
	struct trace_writer *tw;
	char *trace_path;
	struct framer fr[2];
	struct turn_gate *gate;
	void *gate_state; /* owned by session_gate.c */
	int pid;
	uint64_t start_ns;
	uint64_t stderr_bytes;
	int64_t exit_status;
	int term_signal;
	unsigned c2s_reading : 1, s2c_reading : 1;
	unsigned client_eof : 1, client_out_dead : 1;
	unsigned server_in_dead : 1, server_out_eof : 1, server_err_eof : 1;
	unsigned exited : 1, term_sent : 1, drain_expired : 1, finished : 1;
	unsigned hold_c2s : 1; /* client bytes wait until containment reports ready */
	unsigned shutdown_pending : 1; /* the client ended; close the server's input once the gate drains */
	/* Containment: the supervisor thread posts records through the inbox. */
	struct sandbox_supervisor *sup;
	_Atomic int64_t turn_seq; /* request seq of the tools/call in flight, -1 when none */
	pthread_mutex_t inbox_mu;
	struct inbox_item *inbox_head, **inbox_tail;
};

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
void session_client_input_ended(struct session *s);
void session_shutdown_server_input(struct session *s);
int session_gate_has_queued(struct session *s);
/* Sends bytes (one frame, without '\n') to the client as belay's own: recorded as an s2c
 * frame with "origin": "belay". */
void session_reply_client(struct session *s, const char *bytes, size_t len);
int64_t session_record_frame(struct session *s, int dir, const char *data, size_t len, size_t total, int truncated,
			     cJSON *handle, struct trace_rec **defer);

/* The turn gate (session_gate.c). All are no-ops when s->gate is NULL. */
void session_gate_started(struct session *s);
void session_gate_c2s_chunk(struct session *s, char *data, size_t n); /* takes data */
void session_gate_c2s_eof(struct session *s);
void session_gate_s2c_frame(struct session *s, const char *data, size_t len, int truncated);
int session_gate_blocks_reading(struct session *s);
void session_gate_finish(struct session *s);
/* The workspace as the run left it (the last observed state, for recover's drift check),
 * captured on the loop thread once the server has exited; NULL without a capturing gate. */
cJSON *session_gate_final_state(struct session *s);
void session_gate_free(struct session *s);

#endif
