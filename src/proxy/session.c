/* session.c - the proxy core: spawn, pump both directions verbatim, record, end cleanly.
 * See session.h for the contract. Loop thread only (the trace writer has its own thread). */
#include "proxy/session.h"
#include "proxy/admission.h"

#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/fsutil.h"
#include "common/paths.h"
#include "common/jsonx.h"
#include "common/timeutil.h"
#include "common/xalloc.h"
#include "mcp/framer.h"
#include "mcp/model.h"
#include "sandbox/sandbox.h"
#include "sandbox/sandbox_supervisor.h"
#include "proxy/env_seal.h"
#include "proxy/server_env.h"
#include "proxy/witness.h"
#include "proxy/session_internal.h"
#include "trace/trace_writer.h"

extern char **environ;

#define QUEUE_HIGH ((size_t)8 << 20) /* stop reading a source when its sink has this queued */
#define QUEUE_LOW ((size_t)1 << 20)
#define DRAIN_GRACE_MS 2000         /* after exit, wait this long for stdout/stderr EOF */

/*==== small helpers ====*/

static void dir_name(int dir, char out[4])
{
	memcpy(out, dir == DIR_C2S ? "c2s" : "s2c", 4);
}

int64_t session_record(struct session *s, const char *kind, cJSON *fields)
{
	int64_t seq = -1;
	if (s->o.obs && s->o.obs->record)
		s->o.obs->record(s->o.obs->ctx, s, s->tw ? -2 : -1, kind, fields);
	if (s->tw)
		seq = (int64_t)trace_writer_add(s->tw, kind, fields);
	else
		cJSON_Delete(fields);
	return seq;
}

static void capture_error(struct session *s, int dir, const char *name, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static void capture_error(struct session *s, int dir, const char *name, const char *fmt, ...)
{
	char msg[400];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	char *cause = xasprintf("%s: %s", name, msg);
	cJSON *f = cJSON_CreateObject();
	if (dir >= 0) {
		char d[4];
		dir_name(dir, d);
		cJSON_AddStringToObject(f, "dir", d);
	} else {
		cJSON_AddNullToObject(f, "dir");
	}
	cJSON_AddStringToObject(f, "cause", cause);
	free(cause);
	session_record(s, "capture_error", f);
}

/*==== the inbox: records from other threads ====*/

struct inbox_item {
	struct inbox_item *next;
	char kind[32];
	cJSON *fields;
};

void session_post(void *session, const char *kind, cJSON *fields)
{
	struct session *s = session;
	struct inbox_item *it = xcalloc(1, sizeof *it);
	snprintf(it->kind, sizeof it->kind, "%s", kind);
	it->fields = fields;
	pthread_mutex_lock(&s->inbox_mu);
	*s->inbox_tail = it;
	s->inbox_tail = &it->next;
	pthread_mutex_unlock(&s->inbox_mu);
	uv_async_send(&s->drain_async);
}

static void on_sandbox_status(struct session *s, const cJSON *f)
{
	s->sandbox_seen = 1;
	if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(f, "ok"))) {
		if (s->phase == SESSION_PHASE_CONTAINING)
			session_set_phase(s, SESSION_PHASE_FORWARDING);
		return;
	}
	/* The launcher refused (and exits 2 without exec): the server never runs. */
	session_lifecycle_not_started(s, jx_str(f, "layer"), jx_str(f, "error"));
}

static void drain_inbox(struct session *s)
{
	pthread_mutex_lock(&s->inbox_mu);
	struct inbox_item *it = s->inbox_head;
	s->inbox_head = NULL;
	s->inbox_tail = &s->inbox_head;
	pthread_mutex_unlock(&s->inbox_mu);
	while (it) {
		struct inbox_item *next = it->next;
		if (!strcmp(it->kind, "sandbox")) {
			on_sandbox_status(s, it->fields);
			if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(it->fields, "ok"))) {
				/* The earlier harness's record, for readers that know only it. */
				cJSON *np = cJSON_CreateObject();
				const char *net = jx_str(it->fields, "network");
				cJSON_AddStringToObject(np, "policy", net && !strcmp(net, "allow") ? "allow-all" : "deny-all");
				cJSON_AddItemToObject(np, "ports", cJSON_CreateArray());
				session_record(s, it->kind, it->fields);
				session_record(s, "network_policy", np);
			} else {
				session_record(s, it->kind, it->fields);
			}
		} else {
			if (!strcmp(it->kind, "denial"))
				session_lifecycle_denial(s, it->fields);
			session_record(s, it->kind, it->fields);
		}
		free(it);
		it = next;
	}
}

void session_set_phase(struct session *s, enum session_phase to)
{
	assert(session_phase_allowed(s->phase, to) && "a session lifecycle transition session_phase.h does not allow");
	s->phase = to;
}

void session_stand_in(struct session *s)
{
	if (s->phase == SESSION_PHASE_CONTAINING || s->phase == SESSION_PHASE_FORWARDING)
		session_set_phase(s, SESSION_PHASE_STANDING_IN);
}

void session_drain_posted(struct session *s)
{
	if (s->phase != SESSION_PHASE_FINISHED)
		drain_inbox(s);
}

/*==== flow control ====*/



static void drain_async_cb(uv_async_t *a)
{
	struct session *s = a->data;
	if (s->phase == SESSION_PHASE_FINISHED)
		return;
	drain_inbox(s);
	if (s->tw && !s->rec_failed && trace_writer_failed(s->tw))
		session_lifecycle_recording_failed(s);
	session_update_reading(s);
	/* An exit seen before the launcher's status waits for it (session_maybe_finish). */
	if (s->exited && s->sandbox_seen)
		session_maybe_finish(s);
}

static void writer_drained(void *ctx)
{
	/* Writer thread (the backlog drained, or a write failed): only wake the loop. */
	uv_async_send(ctx);
}

/* Reads from a source run only while its sink is not flooded and the recorder keeps up.
 * Once belay stands in for the server (stopped), client bytes are read only to answer its
 * requests; after a recording failure the server's output is read only to be dropped, so
 * that it is never stuck writing while it is told to stop. */
void session_update_reading(struct session *s)
{
	int recorder_ok = !s->tw || s->rec_failed || !trace_writer_over_high(s->tw);
	int c2s_ok, s2c_ok;
	if (session_phase_stands_in(s->phase)) {
		c2s_ok = recorder_ok && s->o.reply_when_gone && !s->client_eof && s->cin && !s->client_out_dead;
		s2c_ok = !s->server_out_eof &&
			 (s->rec_failed || s->client_out_dead || endpoint_queued(s->cout) < QUEUE_HIGH);
	} else {
		c2s_ok = recorder_ok && !s->client_eof && !s->server_in_dead && s->cin && s->phase != SESSION_PHASE_CONTAINING &&
			 endpoint_queued(s->sin) < QUEUE_HIGH && !session_admission_blocks_reading(s);
		s2c_ok = recorder_ok && !s->server_out_eof &&
			 (s->client_out_dead || endpoint_queued(s->cout) < QUEUE_HIGH);
	}
	if (c2s_ok && !s->c2s_reading) {
		if (endpoint_read_start(s->cin, session_c2s_read, s) == 0)
			s->c2s_reading = 1;
	} else if (!c2s_ok && s->c2s_reading) {
		endpoint_read_stop(s->cin);
		s->c2s_reading = 0;
	}
	if (s2c_ok && !s->s2c_reading) {
		if (endpoint_read_start(s->sout, session_s2c_read, s) == 0)
			s->s2c_reading = 1;
	} else if (!s2c_ok && s->s2c_reading) {
		endpoint_read_stop(s->sout);
		s->s2c_reading = 0;
	}
}

/*==== recording ====*/

/* Records one frame: seq now, serialisation later on the writer thread. */
int64_t session_record_frame(struct session *s, int dir, const char *data, size_t len, size_t total, int truncated,
			     cJSON *handle, struct trace_rec **defer)
{
	struct timespec now;
	if (s->chunk_time_set)
		now = s->chunk_time;
	else
		clock_gettime(CLOCK_REALTIME, &now);
	int64_t seq = -1;
	if (s->tw) {
		char d[4];
		dir_name(dir, d);
		/* A frame over the cap is recorded with its envelope, read from all of its bytes by
		 * the framer (every frame is recorded inside its framer's callback). */
		cJSON *env = truncated ? framer_envelope(&s->fr[dir]) : NULL;
		seq = (int64_t)trace_writer_frame_env(s->tw, d, data, len, total, truncated, env, &now, handle, defer);
	} else {
		cJSON_Delete(handle);
		if (defer)
			*defer = NULL;
	}
	inflight_frame(&s->inflight, dir, data, len, truncated);
	if (s->o.obs && s->o.obs->frame) {
		struct session_frame f = {seq, dir, data, len, total, truncated, &now, NULL};
		s->o.obs->frame(s->o.obs->ctx, s, &f);
	}
	return seq;
}

static void on_s2c_frame(void *ctx, const char *data, size_t len, size_t total, int truncated, size_t end)
{
	struct session *s = ctx;
	(void)end;
	session_admission_s2c_frame(s, data, len, truncated);
	session_record_frame(s, DIR_S2C, data, len, total, truncated, NULL, NULL);
}

static void on_c2s_frame_plain(void *ctx, const char *data, size_t len, size_t total, int truncated, size_t end)
{
	(void)end;
	session_record_frame(ctx, DIR_C2S, data, len, total, truncated, NULL, NULL);
}

/*==== forwarding ====*/

static void sin_write_cb(struct endpoint *ep, int status, void *ctx)
{
	struct session *s = ctx;
	(void)ep;
	if (status && !s->server_in_dead) {
		s->server_in_dead = 1;
		capture_error(s, DIR_C2S, "ForwardFailed", "writing to the server's stdin failed: %s (%s)",
			      uv_strerror(status), uv_err_name(status));
	}
	session_update_reading(s);
}

static void cout_write_cb(struct endpoint *ep, int status, void *ctx)
{
	struct session *s = ctx;
	(void)ep;
	if (status && !s->client_out_dead) {
		s->client_out_dead = 1;
		capture_error(s, DIR_S2C, "ForwardFailed", "writing to the client failed: %s (%s)",
			      uv_strerror(status), uv_err_name(status));
		/* The client is gone: let the server see EOF. */
		session_client_input_ended(s);
	}
	session_update_reading(s);
	session_maybe_finish(s);
}

void session_forward_c2s(struct session *s, char *data, size_t n)
{
	/* Standing in: the server is gone, or what it would be sent could not be recorded. */
	if (s->server_in_dead || session_phase_stands_in(s->phase) || n == 0) {
		free(data);
		return;
	}
	int rc = endpoint_write(s->sin, data, n, sin_write_cb, s);
	if (rc) {
		s->server_in_dead = 1;
		capture_error(s, DIR_C2S, "ForwardFailed", "cannot write to the server's stdin: %s", uv_strerror(rc));
	}
}

int session_forward_c2s_early(struct session *s, char *data, size_t n)
{
	if (s->server_in_dead || session_phase_stands_in(s->phase) || n == 0)
		return 1; /* session_forward_c2s_done drops it */
	return endpoint_write_early(s->sin, data, n, sin_write_cb, s);
}

void session_forward_c2s_done(struct session *s, char *data, size_t n, int rc)
{
	if (rc == 1) {
		session_forward_c2s(s, data, n);
	} else if (rc < 0) {
		free(data);
		s->server_in_dead = 1;
		capture_error(s, DIR_C2S, "ForwardFailed", "cannot write to the server's stdin: %s", uv_strerror(rc));
	}
}

/* The time a chunk was read, for the frames recorded from it. */
static void chunk_time_start(struct session *s)
{
	clock_gettime(CLOCK_REALTIME, &s->chunk_time);
	s->chunk_time_set = 1;
}

static const char *const reply_reasons[SESSION_REPLY_REASONS] = {"gate_refused", "recording_failed", "server_exited",
								      "server_not_started"};

const char *session_reply_reason_name(enum session_reply_reason r)
{
	return (unsigned)r < SESSION_REPLY_REASONS ? reply_reasons[r] : "unknown";
}

int session_reply_reason_known(const char *name)
{
	for (int i = 0; name && i < SESSION_REPLY_REASONS; i++)
		if (!strcmp(name, reply_reasons[i]))
			return 1;
	return 0;
}

void session_reply_client(struct session *s, enum session_reply_reason why, const char *bytes, size_t len)
{
	const char *reason = session_reply_reason_name(why);
	int64_t seq = -1;
	if (s->tw)
		seq = (int64_t)trace_writer_frame_from_belay(s->tw, "s2c", bytes, len, reason);
	inflight_frame(&s->inflight, DIR_S2C, bytes, len, 0);
	if (s->o.obs && s->o.obs->frame) {
		struct timespec now;
		clock_gettime(CLOCK_REALTIME, &now);
		struct session_frame f = {seq, DIR_S2C, bytes, len, len, 0, &now, reason};
		s->o.obs->frame(s->o.obs->ctx, s, &f);
	}
	if (s->client_out_dead)
		return;
	char *b = xmalloc(len + 1);
	memcpy(b, bytes, len);
	b[len] = '\n';
	if (endpoint_write(s->cout, b, len + 1, cout_write_cb, s) != 0)
		s->client_out_dead = 1;
}

void session_reply_error(struct session *s, enum session_reply_reason why, const cJSON *id, const char *message,
			 const cJSON *detail)
{
	cJSON *m = cJSON_CreateObject();
	cJSON_AddStringToObject(m, "jsonrpc", "2.0");
	cJSON_AddItemToObject(m, "id", id ? cJSON_Duplicate(id, 1) : cJSON_CreateNull());
	cJSON *err = cJSON_AddObjectToObject(m, "error");
	cJSON_AddNumberToObject(err, "code", SESSION_REPLY_ERROR_CODE);
	cJSON_AddStringToObject(err, "message", message);
	cJSON *b = cJSON_AddObjectToObject(cJSON_AddObjectToObject(err, "data"), "belay");
	cJSON_AddStringToObject(b, "reason", session_reply_reason_name(why));
	for (const cJSON *c = detail ? detail->child : NULL; c; c = c->next)
		if (c->string && strcmp(c->string, "reason"))
			cJSON_AddItemToObject(b, c->string, cJSON_Duplicate(c, 1));
	char *bytes = jx_print(m);
	session_reply_client(s, why, bytes, strlen(bytes));
	cJSON_free(bytes);
	cJSON_Delete(m);
}

void session_c2s_read(struct endpoint *ep, char *data, ssize_t n, void *ctx)
{
	struct session *s = ctx;
	(void)ep;
	if (n < 0) {
		s->c2s_reading = 0;
		if (n != UV_EOF)
			capture_error(s, DIR_C2S, "ReadFailed", "reading from the client failed: %s", uv_strerror((int)n));
		size_t left = framer_pending(&s->fr[DIR_C2S]);
		if (left)
			capture_error(s, DIR_C2S, "StreamEndedMidFrame",
				      "the client's stream ended inside a frame; %zu byte(s) were forwarded but not recorded",
				      left);
		session_admission_c2s_eof(s);
		session_client_input_ended(s);
		session_maybe_finish(s);
		return;
	}
	loop_spin_input(&s->spin, LOOP_SPIN_REQUEST);
	chunk_time_start(s);
	if (session_phase_stands_in(s->phase)) {
		session_lifecycle_c2s(s, data, (size_t)n);
	} else if (s->gate) {
		session_admission_c2s_chunk(s, data, (size_t)n);
	} else {
		/* forwarded first, its frames recorded after: off the round trip's path */
		int rc = session_forward_c2s_early(s, data, (size_t)n);
		framer_feed(&s->fr[DIR_C2S], data, (size_t)n, on_c2s_frame_plain, s);
		session_forward_c2s_done(s, data, (size_t)n, rc);
	}
	s->chunk_time_set = 0;
	if (s->phase == SESSION_PHASE_CONTAINING || s->phase == SESSION_PHASE_FORWARDING)
		loop_spin_open(&s->spin, LOOP_SPIN_REPLY); /* the server's answer comes next */
	session_update_reading(s);
}

void session_s2c_read(struct endpoint *ep, char *data, ssize_t n, void *ctx)
{
	struct session *s = ctx;
	(void)ep;
	if (n < 0) {
		s->s2c_reading = 0;
		s->server_out_eof = 1;
		if (n != UV_EOF)
			capture_error(s, DIR_S2C, "ReadFailed", "reading the server's stdout failed: %s",
				      uv_strerror((int)n));
		size_t left = framer_pending(&s->fr[DIR_S2C]);
		if (left)
			capture_error(s, DIR_S2C, "StreamEndedMidFrame",
				      "the server's stream ended inside a frame; %zu byte(s) were forwarded but not recorded",
				      left);
		/* The client sees the end of the server's output at once - unless belay may still
		 * have to answer in the server's place (then at the session's end). */
		if (!s->client_out_dead && s->cout != s->cin && !s->o.reply_when_gone)
			endpoint_shutdown(s->cout);
		session_maybe_finish(s);
		return;
	}
	if (s->rec_failed) {
		free(data); /* it could not be recorded: it is not forwarded either */
		return;
	}
	loop_spin_input(&s->spin, LOOP_SPIN_REPLY);
	chunk_time_start(s);
	/* Forwarded first, its frames recorded after (off the round trip's path) - when nothing
	 * the frames could make the gate do (answer a held call, release queued ones) would have
	 * to reach the client before this chunk. */
	int rc = s->client_out_dead || !session_admission_can_pass(s)
		     ? 1
		     : endpoint_write_early(s->cout, data, (size_t)n, cout_write_cb, s);
	framer_feed(&s->fr[DIR_S2C], data, (size_t)n, on_s2c_frame, s);
	s->chunk_time_set = 0;
	if (rc == 1 && s->client_out_dead)
		free(data);
	else if (rc == 1)
		rc = endpoint_write(s->cout, data, (size_t)n, cout_write_cb, s); /* frees data if it fails */
	else if (rc < 0)
		free(data);
	if (rc < 0) {
		s->client_out_dead = 1;
		capture_error(s, DIR_S2C, "ForwardFailed", "cannot write to the client");
	} else if (s->phase != SESSION_PHASE_FINISHED) {
		loop_spin_open(&s->spin, LOOP_SPIN_REQUEST); /* the client's next request may follow */
	}
	session_update_reading(s);
}

static void stderr_read(struct endpoint *ep, char *data, ssize_t n, void *ctx)
{
	struct session *s = ctx;
	(void)ep;
	if (n < 0) {
		s->server_err_eof = 1;
		session_maybe_finish(s);
		return;
	}
	s->stderr_bytes += (uint64_t)n;
	session_lifecycle_stderr(s, data, (size_t)n);
	if (s->errout)
		endpoint_write(s->errout, data, (size_t)n, NULL, NULL);
	else
		free(data);
}

/*==== ending ====*/

void session_add_exit_fields(const struct session *s, cJSON *f)
{
	if (s->term_signal) {
		cJSON_AddNullToObject(f, "exit_status");
		cJSON_AddNumberToObject(f, "signal", s->term_signal);
		cJSON_AddStringToObject(f, "signal_name", strsignal(s->term_signal));
	} else {
		cJSON_AddNumberToObject(f, "exit_status", (double)s->exit_status);
		cJSON_AddNullToObject(f, "signal");
	}
}

void session_unref(struct session *s)
{
	if (--s->open_handles == 0) {
		session_admission_free(s);
		session_lifecycle_free(s);
		witness_free(s->o.witness); /* after the gate (its capture reads it) and the supervisor */
		for (int d = 0; d < 2; d++)
			framer_done(&s->fr[d]);
		pthread_mutex_destroy(&s->inbox_mu);
		free(s->trace_path);
		free(s);
	}
}

static void handle_closed(uv_handle_t *h)
{
	session_unref(h->data);
}

static void close_own(struct session *s, uv_handle_t *h)
{
	h->data = s;
	uv_close(h, handle_closed);
}

static void kill_timer_cb(uv_timer_t *t)
{
	struct session *s = t->data;
	if (s->exited)
		return;
	int sig = s->term_sent ? SIGKILL : SIGTERM;
	s->term_sent = 1;
	uv_process_kill(&s->proc, sig);
	if (sig == SIGTERM)
		uv_timer_start(&s->kill_timer, kill_timer_cb, s->o.kill_grace_ms, 0);
}

void session_stop_server(struct session *s)
{
	if (!s->server_in_dead)
		endpoint_shutdown(s->sin);
	if (!s->exited && s->phase != SESSION_PHASE_FINISHED && !s->term_sent)
		uv_timer_start(&s->kill_timer, kill_timer_cb, s->o.kill_grace_ms, 0);
}

void session_terminate(struct session *s)
{
	if (s->exited || s->phase == SESSION_PHASE_FINISHED)
		return;
	s->term_sent = 1;
	uv_process_kill(&s->proc, SIGTERM);
	uv_timer_start(&s->kill_timer, kill_timer_cb, s->o.kill_grace_ms, 0);
}

void session_client_input_ended(struct session *s)
{
	if (s->client_eof)
		return;
	s->client_eof = 1;
	if (s->c2s_reading) {
		endpoint_read_stop(s->cin);
		s->c2s_reading = 0;
	}
	/* Held client bytes (the gate's queue) still go to the server before its end of input. */
	if (!session_admission_has_queued(s))
		session_shutdown_server_input(s);
	else
		s->shutdown_pending = 1;
	if (!s->exited && s->phase != SESSION_PHASE_FINISHED)
		uv_timer_start(&s->kill_timer, kill_timer_cb, s->o.kill_grace_ms, 0);
}

void session_shutdown_server_input(struct session *s)
{
	s->shutdown_pending = 0;
	if (!s->server_in_dead)
		endpoint_shutdown(s->sin);
}

static void drain_timer_cb(uv_timer_t *t)
{
	struct session *s = t->data;
	s->drain_expired = 1;
	session_maybe_finish(s);
}

static void finish(struct session *s)
{
	uv_timer_stop(&s->kill_timer);
	uv_timer_stop(&s->drain_timer);
	uv_timer_stop(&s->linger_timer);
	cJSON *end = NULL;
	if (s->sup) {
		if (s->o.reap_contained) {
			int killed = 0;
			int gone = sandbox_supervisor_reap(s->sup, 2000, &killed);
			end = cJSON_CreateObject();
			cJSON_AddNumberToObject(end, "survivors_killed", killed);
			cJSON_AddBoolToObject(end, "contained_gone", gone);
		}
		sandbox_supervisor_stop(s->sup);
		s->sup = NULL;
	}
	drain_inbox(s);
	if (end)
		session_record(s, "sandbox_end", end);
	session_set_phase(s, SESSION_PHASE_FINISHED);
	cJSON *final = s->tw ? session_admission_final_state(s) : NULL;
	session_admission_finish(s);
	cJSON *f = cJSON_CreateObject();
	cJSON_AddStringToObject(f, "phase", "exit");
	cJSON_AddNumberToObject(f, "pid", s->pid);
	session_add_exit_fields(s, f);
	cJSON_AddNumberToObject(f, "stderr_bytes", (double)s->stderr_bytes);
	/* Writes the contained processes were let make in the workspace, start-up included (a
	 * run without calls, denials or such writes is a health check: runq.h). */
	if (s->o.witness)
		cJSON_AddNumberToObject(f, "workspace_writes", (double)witness_noted(s->o.witness));
	/* What belay told the client about why the server ended (session_lifecycle.c). */
	static const char *const why_keys[] = {"error_line", "hidden_path", "expose", NULL};
	for (const char *const *k = why_keys; *k; k++)
		if (jx_str(s->stop_detail, *k))
			cJSON_AddStringToObject(f, *k, jx_str(s->stop_detail, *k));
	cJSON_AddNumberToObject(f, "duration_ms", (double)(time_mono_ns() - s->start_ns) / 1e6);
	session_record(s, "server", f);
	if (final) {
		cJSON *fs = cJSON_CreateObject();
		cJSON_AddItemToObject(fs, "state_handle", final);
		session_record(s, "final_state", fs);
	}
	if (s->tw) {
		struct err e = {0};
		trace_writer_stats(s->tw, &s->trace_stats);
		if (trace_writer_close(s->tw, &e) != 0)
			fprintf(stderr, "belay: %s\n", e.msg);
		s->tw = NULL;
	}
	if (s->o.obs && s->o.obs->ended)
		s->o.obs->ended(s->o.obs->ctx, s, session_exit_code(s));
	endpoint_close(s->sin);
	endpoint_close(s->sout);
	endpoint_close(s->serr);
	if (s->cout != s->cin)
		endpoint_close(s->cout);
	endpoint_close(s->cin);
	endpoint_close(s->errout);
	s->cin = s->cout = NULL;
	if (s->pid > 0) /* else never spawned (session_opts.not_started) */
		close_own(s, (uv_handle_t *)&s->proc);
	if (s->bridge_spawned && s->bridge_running)
		uv_process_kill(&s->bridge, SIGKILL); /* closed when it is reaped (bridge_exit_cb) */
	else if (s->bridge_spawned)
		close_own(s, (uv_handle_t *)&s->bridge);
	close_own(s, (uv_handle_t *)&s->kill_timer);
	close_own(s, (uv_handle_t *)&s->drain_timer);
	close_own(s, (uv_handle_t *)&s->linger_timer);
	s->spin.idle.data = s;
	loop_spin_close(&s->spin, handle_closed);
	close_own(s, (uv_handle_t *)&s->drain_async);
}

void session_maybe_finish(struct session *s)
{
	if (s->phase == SESSION_PHASE_FINISHED || !s->exited || s->answering)
		return;
	int streams_done = s->server_out_eof && s->server_err_eof;
	if (!streams_done && !s->drain_expired)
		return;
	/* A contained server that exits at once may do so before the supervisor thread has
	 * passed on the launcher's status: what it says decides the answer to the waiting client
	 * (server_not_started, naming the layer, or server_exited), so wait for it (or the grace). */
	if (s->sup && !s->sandbox_seen && !s->drain_expired)
		return;
	/* The server's output is all in: what still waits for it never gets an answer. */
	if (session_lifecycle_hold_finish(s))
		return;
	int client_flushed = s->client_out_dead || endpoint_queued(s->cout) == 0;
	if (client_flushed || s->drain_expired)
		finish(s);
}

/* belay-http --bridge ended: it ends when the session closes its input and its transfers are
 * done (or with the contained server), or is killed when the session finishes first. */
static void bridge_exit_cb(uv_process_t *p, int64_t status, int sig)
{
	(void)status;
	(void)sig;
	struct session *s = p->data;
	s->bridge_running = 0;
	if (s->phase == SESSION_PHASE_FINISHED)
		close_own(s, (uv_handle_t *)&s->bridge);
}

/* The server side of a contained HTTP server: belay-http --bridge URL (bin), its stdin and
 * stdout the two pipes, the sandbox's connector its descriptor 3 (belay itself links no
 * network client, tests/unit/test_verify.c). 0, or an error saying why not. */
static int start_bridge(struct session *s, char *bin, int in_fd, int out_fd, int conn, struct err *e)
{
	char *args[] = {bin, "--bridge", (char *)s->o.http_url, "--connector-fd", "3", NULL};
	uv_stdio_container_t stdio[4] = {
	    {.flags = UV_INHERIT_FD, .data.fd = in_fd},
	    {.flags = UV_INHERIT_FD, .data.fd = out_fd},
	    {.flags = UV_INHERIT_FD, .data.fd = 2},
	    {.flags = UV_INHERIT_FD, .data.fd = conn},
	};
	uv_process_options_t po = {
	    .exit_cb = bridge_exit_cb,
	    .file = bin,
	    .args = args,
	    .stdio_count = 4,
	    .stdio = stdio,
	};
	s->bridge.data = s;
	int rc = uv_spawn(s->loop, &s->bridge, &po);
	if (rc)
		return err_set(e, rc, "cannot start belay-http: %s", uv_strerror(rc));
	s->bridge_spawned = s->bridge_running = 1;
	s->open_handles++;
	return 0;
}

static void exit_cb(uv_process_t *p, int64_t status, int sig)
{
	struct session *s = p->data;
	s->exited = 1;
	s->exit_status = status;
	s->term_signal = sig;
	uv_timer_stop(&s->kill_timer);
	/* Nothing more can be forwarded to a dead server. */
	session_lifecycle_exited(s);
	uv_timer_start(&s->drain_timer, drain_timer_cb, DRAIN_GRACE_MS, 0);
	session_maybe_finish(s);
}

int session_exit_code(const struct session *s)
{
	if (s->rec_failed)
		return SESSION_EXIT_RECORDING_FAILED;
	if (s->term_signal)
		return 128 + s->term_signal;
	return (int)(s->exit_status & 0xff);
}

void session_trace_stats(const struct session *s, struct trace_writer_stats *st)
{
	if (s->tw)
		trace_writer_stats(s->tw, st);
	else
		*st = s->trace_stats;
}

const char *session_trace_path(const struct session *s)
{
	return s->trace_path;
}

void session_spin_stats(const struct session *s, struct loop_spin_stats *st)
{
	*st = s->spin.st;
}

int session_server_pid(const struct session *s)
{
	return s->pid;
}

struct trace_writer *session_trace_writer(struct session *s)
{
	return s->tw;
}

/*==== start ====*/

static cJSON *env_names(char *const *env)
{
	cJSON *a = cJSON_CreateArray();
	for (char *const *e = env; *e; e++) {
		const char *eq = strchr(*e, '=');
		size_t n = eq ? (size_t)(eq - *e) : strlen(*e);
		cJSON_AddItemToArray(a, jx_bytes(*e, n));
	}
	return a;
}

static uv_pipe_t *new_pipe(uv_loop_t *loop)
{
	uv_pipe_t *p = xcalloc(1, sizeof *p);
	uv_pipe_init(loop, p, 0);
	return p;
}

static void free_pipe_cb(uv_handle_t *h)
{
	free(h);
}

/* The start record's argv, cwd, environment names and launch: how to start this server again. */
static cJSON *start_record(const struct session_opts *o)
{
	cJSON *f = cJSON_CreateObject();
	cJSON_AddStringToObject(f, "phase", "start");
	cJSON *argv = cJSON_CreateArray();
	for (char *const *a = o->argv; *a; a++)
		cJSON_AddItemToArray(argv, jx_bytes(*a, strlen(*a)));
	cJSON_AddItemToObject(f, "argv", argv);
	return f;
}

static void add_cwd(const struct session_opts *o, cJSON *f)
{
	char *cwd = o->cwd ? realpath(o->cwd, NULL) : getcwd(NULL, 0);
	if (cwd)
		cJSON_AddItemToObject(f, "cwd", jx_bytes(cwd, strlen(cwd)));
	else
		cJSON_AddNullToObject(f, "cwd");
	free(cwd);
}

/* session_opts.not_started: nothing runs; the session stands in for the server from the
 * start (the stopped state of session_lifecycle.c) and ends once the client is answered. */
static void start_unspawned(struct session *s)
{
	const struct session_opts *o = &s->o;
	s->open_handles = 5; /* kill_timer, drain_timer, linger_timer, spin, drain_async */
	uv_timer_init(s->loop, &s->kill_timer);
	s->kill_timer.data = s;
	uv_timer_init(s->loop, &s->drain_timer);
	s->drain_timer.data = s;
	uv_timer_init(s->loop, &s->linger_timer);
	s->linger_timer.data = s;
	loop_spin_init(s->loop, &s->spin, 0);
	s->server_in_dead = s->server_out_eof = s->server_err_eof = 1;
	s->exited = s->sandbox_seen = 1;
	s->exit_status = 2;
	session_lifecycle_never_spawned(s, o->not_started);
	cJSON *f = start_record(o);
	cJSON_AddNullToObject(f, "exe");
	add_cwd(o, f);
	cJSON_AddNullToObject(f, "pid");
	cJSON_AddStringToObject(f, "not_started", o->not_started);
	if (o->launch)
		cJSON_AddItemToObject(f, "launch", cJSON_Duplicate(o->launch, 1));
	cJSON_AddNullToObject(f, "sandbox");
	session_record(s, "server", f);
	session_lifecycle_exited(s);
	session_update_reading(s);
	/* The end is decided on the loop's next turn (drain_async_cb), not inside the start. */
	uv_async_send(&s->drain_async);
}

int session_start(uv_loop_t *loop, const struct session_opts *o, struct endpoint *cin, struct endpoint *cout,
		  struct session **out, struct err *e)
{
	*out = NULL;
	if (!o->argv || !o->argv[0]) {
		admission_free(o->gate);
		witness_free(o->witness);
		return err_set(e, BELAY_EUSAGE, "no server command given");
	}
	char *exe = o->not_started ? NULL : fs_which(o->argv[0]);
	if (!exe && !o->not_started) {
		admission_free(o->gate);
		witness_free(o->witness);
		return err_set(e, BELAY_ENOTFOUND, "server command not found: %s", o->argv[0]);
	}

	struct session *s = xcalloc(1, sizeof *s);
	s->phase = SESSION_PHASE_FORWARDING; /* a contained start begins CONTAINING instead */
	s->loop = loop;
	s->o = *o;
	if (!s->o.kill_grace_ms)
		s->o.kill_grace_ms = 5000;
	s->cin = cin;
	s->cout = cout;
	s->gate = o->gate;
	s->start_ns = time_mono_ns();
	atomic_store(&s->turn_seq, -1);
	inflight_init(&s->inflight);
	pthread_mutex_init(&s->inbox_mu, NULL);
	s->inbox_tail = &s->inbox_head;
	for (int d = 0; d < 2; d++)
		framer_init(&s->fr[d], o->frame_cap);

	int rc = 0;
	uv_async_init(loop, &s->drain_async, drain_async_cb);
	s->drain_async.data = s;
	if (o->trace_dir || o->trace_path) {
		struct trace_writer_opts wo = {.on_drain = writer_drained,
					       .ctx = &s->drain_async,
					       .on_line = o->trace_tap,
					       .line_ctx = o->trace_tap_ctx,
					       .normal_priority = o->trace_writer_normal};
		rc = o->trace_path ? trace_writer_open_path(o->trace_path, &wo, &s->tw, e)
				   : trace_writer_open(o->trace_dir, &wo, &s->tw, e);
		if (rc)
			goto fail_early;
		s->trace_path = xstrdup(trace_writer_path(s->tw));
	}

	if (o->not_started) {
		start_unspawned(s);
		*out = s;
		return 0;
	}

	/* Spawn. With a sandbox the child is belay itself in launcher mode (see sandbox.h). */
	uv_pipe_t *pin = new_pipe(loop), *pout = new_pipe(loop), *perr = new_pipe(loop);
	int http = o->http_url && o->sandbox;
	uv_stdio_container_t stdio[5] = {
		{.flags = UV_CREATE_PIPE | UV_READABLE_PIPE, .data.stream = (uv_stream_t *)pin},
		{.flags = UV_CREATE_PIPE | UV_WRITABLE_PIPE, .data.stream = (uv_stream_t *)pout},
		{.flags = UV_CREATE_PIPE | UV_WRITABLE_PIPE, .data.stream = (uv_stream_t *)perr},
		{.flags = UV_IGNORE},
		{.flags = UV_IGNORE},
	};
	if (http) /* it speaks over HTTP: its stdin and stdout carry nothing */
		stdio[0].flags = stdio[1].flags = UV_IGNORE;
	/* belay speaks HTTP to it through belay-http (it links no network client itself): without
	 * belay-http the server is not started at all, the refusal naming it */
	char *bridge_bin = http ? paths_sibling_exe("belay-http") : NULL;
	if (http && !bridge_bin) {
		rc = err_set(e, BELAY_ENOTFOUND,
			     "belay-http is not installed next to belay (nor on PATH): belay speaks HTTP to a "
			     "contained server only through it");
		goto fail_pipes;
	}
	struct spawn_plan sp = {0};
	rc = session_prepare_spawn(s, exe, &sp, e);
	if (rc) {
		free(bridge_bin);
		goto fail_pipes;
	}
	if (sp.extra_fd >= 0) {
		stdio[3].flags = UV_INHERIT_FD;
		stdio[3].data.fd = sp.extra_fd;
	}
	if (http && sp.connector_fd > 0) {
		stdio[4].flags = UV_INHERIT_FD;
		stdio[4].data.fd = sp.connector_fd;
	}
	uv_process_options_t po = {
		.exit_cb = exit_cb,
		.file = sp.file,
		.args = sp.args,
		.env = sp.env,
		.cwd = o->cwd,
		.stdio_count = http && sp.connector_fd > 0 ? 5 : sp.extra_fd >= 0 ? 4 : 3,
		.stdio = stdio,
	};
	s->proc.data = s;
	int hto[2] = {-1, -1}, hfrom[2] = {-1, -1}; /* the HTTP bridge's pipes (http) */
	if (http && (!sp.priv || pipe2(hto, O_CLOEXEC) != 0 || pipe2(hfrom, O_CLOEXEC) != 0)) {
		err_set(e, -errno, "cannot make the HTTP bridge of a contained server: %s", strerror(errno));
		for (int i = 0; i < 2; i++) {
			if (hto[i] >= 0)
				close(hto[i]);
			if (hfrom[i] >= 0)
				close(hfrom[i]);
		}
		session_spawn_done(&sp);
		free(bridge_bin);
		goto fail_pipes;
	}
	rc = uv_spawn(loop, &s->proc, &po);
	if (rc) {
		err_set(e, rc == UV_ENOENT ? BELAY_ENOTFOUND : rc, "cannot start server %s: %s", o->argv[0],
			uv_strerror(rc));
		for (int i = 0; http && i < 2; i++) {
			close(hto[i]);
			close(hfrom[i]);
		}
		session_spawn_done(&sp);
		free(bridge_bin);
		goto fail_pipes;
	}
	s->pid = s->proc.pid;
	witness_set_root(o->witness, s->pid); /* files it holds open for writing are its own writes */
	s->open_handles = 6; /* proc, kill_timer, drain_timer, linger_timer, spin, drain_async */
	if (sp.priv) {
		/* Contained: the supervisor takes over the launcher's channel; client bytes wait
		 * until it reports that every layer is installed. */
		struct sandbox_supervisor_opts so = {
			.sock = sandbox_spawn_take_channel(sp.priv),
			.launcher_pid = s->pid,
			.scope = sandbox_spawn_scope(sp.priv),
			.tmp = sandbox_spawn_tmp(sp.priv),
			.cache = sandbox_spawn_cache(sp.priv),
			.deny_network = sandbox_spawn_denies_network(sp.priv),
			.loopback_port = sandbox_spawn_loopback_port(sp.priv),
			.turn_seq = &s->turn_seq,
			.report_writes = o->report_writes,
			.on_write = o->witness ? witness_note_cb : NULL,
			.write_ctx = o->witness,
			.post = session_post,
			.ctx = s,
		};
		s->phase = SESSION_PHASE_CONTAINING; /* its first phase: nothing has happened yet */
		if (sandbox_supervisor_start(&so, &s->sup) != 0) {
			/* Without a supervisor the launcher waits forever: stop it, never run bare. */
			uv_process_kill(&s->proc, SIGKILL);
			session_lifecycle_not_started(s, "supervisor", "cannot start the sandbox supervisor");
		}
	}
	uv_timer_init(loop, &s->kill_timer);
	s->kill_timer.data = s;
	uv_timer_init(loop, &s->drain_timer);
	s->drain_timer.data = s;
	uv_timer_init(loop, &s->linger_timer);
	s->linger_timer.data = s;
	loop_spin_init(loop, &s->spin, o->spin_us);
	if (http) {
		/* the server side is belay-http's bridge, over the two pipes made before the spawn;
		 * a bridge that cannot start leaves them readerless: the server is stopped, never
		 * left running unreached */
		int conn = sandbox_spawn_take_connector(sp.priv);
		struct err be = {0};
		if (conn < 0)
			err_set(&be, BELAY_EINVAL, "the sandbox has no connector");
		else
			start_bridge(s, bridge_bin, hto[0], hfrom[1], conn, &be);
		if (conn >= 0)
			close(conn); /* the bridge's own copy is its descriptor 3 */
		close(hto[0]);
		close(hfrom[1]);
		free(bridge_bin);
		if (!s->bridge_spawned) {
			uv_process_kill(&s->proc, SIGKILL);
			session_lifecycle_not_started(s, "http-bridge", be.msg);
		}
		if (endpoint_open_fd(loop, hto[1], 1, &s->sin) != 0 || endpoint_open_fd(loop, hfrom[0], 1, &s->sout) != 0)
			FATAL("cannot wrap the HTTP bridge's pipes");
		uv_close((uv_handle_t *)pin, free_pipe_cb);
		uv_close((uv_handle_t *)pout, free_pipe_cb);
	} else {
		s->sin = endpoint_from_stream((uv_stream_t *)pin);
		s->sout = endpoint_from_stream((uv_stream_t *)pout);
	}
	s->serr = endpoint_from_stream((uv_stream_t *)perr);
	int errfd = o->stderr_fd ? o->stderr_fd : 2;
	if (errfd >= 0 && endpoint_open_fd(loop, errfd, 0, &s->errout) != 0)
		s->errout = NULL;

	/* Lifecycle record: how to start this server again. */
	cJSON *f = start_record(o);
	cJSON_AddItemToObject(f, "exe", jx_bytes(exe, strlen(exe)));
	add_cwd(o, f);
	cJSON_AddNumberToObject(f, "pid", s->pid);
	cJSON_AddItemToObject(f, "env_names", env_names(o->env ? o->env : environ));
	cJSON *envrec = server_env_record(o->env ? o->env : environ);
	cJSON_AddItemToObject(f, "env", envrec);
	if (o->state_dir) {
		/* This state directory's seal: verify applies a sealed environment as recorded, and
		 * refuses loader variables in any other (env_seal.h). Without a key, no seal. */
		char seal[ENV_SEAL_LEN];
		struct err se = {0};
		if (env_seal_make(o->state_dir, envrec, seal, &se) == 0)
			cJSON_AddStringToObject(f, "env_seal", seal);
	}
	if (o->launch)
		cJSON_AddItemToObject(f, "launch", cJSON_Duplicate(o->launch, 1));
	if (o->state_dir) {
		char *sd = realpath(o->state_dir, NULL);
		cJSON_AddStringToObject(f, "state_dir", sd ? sd : o->state_dir);
		free(sd);
	}
	session_spawn_describe(&sp, f);
	session_spawn_done(&sp);
	session_record(s, "server", f);
	free(exe);

	rc = endpoint_read_start(s->serr, stderr_read, s);
	if (rc == 0) {
		session_admission_started(s);
		session_update_reading(s);
	}
	*out = s;
	return 0;

fail_pipes:
	uv_close((uv_handle_t *)pin, free_pipe_cb);
	uv_close((uv_handle_t *)pout, free_pipe_cb);
	uv_close((uv_handle_t *)perr, free_pipe_cb);
	if (s->tw) {
		/* Nothing moved: leave no trace file behind. */
		trace_writer_close(s->tw, NULL);
		s->tw = NULL;
		unlink(s->trace_path);
	}
fail_early:
	free(exe);
	/* The async handle's close callback frees s; the caller runs the loop to let it. */
	s->open_handles = 1;

	close_own(s, (uv_handle_t *)&s->drain_async);
	return rc ? rc : BELAY_EINVAL;
}
