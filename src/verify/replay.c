/* replay.c - contained re-execution of recorded client messages. See replay.h. */
#include "verify/replay.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include <uv.h>

#include "common/buf.h"
#include "common/jsonx.h"
#include "common/timeutil.h"
#include "common/xalloc.h"
#include "mcp/mcp_client.h"
#include "proxy/session.h"
#include "sandbox/sandbox_quiet.h"
#include "verify/answers.h"

/* After a turn's reply a replay waits until the server has been quiet this long (no sandbox
 * record, no request or notification to the client), at most SETTLE_MAX_MS in all: a session
 * replay then takes the turn's effect, an isolated one ends the conversation. Servers ask the
 * client things right after a call (server-everything asks roots/list once initialized) and
 * wait for the answer before they exit. */
#define SETTLE_MS 30
#define SETTLE_MAX_MS 1000
/* A window over by the clock while a thread of the server can still run is looked at again
 * after this long (settle_cb). */
#define SETTLE_RUNNABLE_MS 5
/* The window ends early when the server's process tree is proven quiet until it would have
 * closed (sandbox_quiet.h): nothing it could still do in the window is then missed. The
 * proof is tried right after the reply, then every PROBE_MS, at most PROBE_TRIES times per
 * quiet stretch. */
#define PROBE_MS 1
#define PROBE_TRIES 6

struct run {
	const struct replay_spec *sp;
	struct replay_result *out;
	uv_loop_t loop;
	struct session *s;
	struct mcp_client *c;
	size_t next;      /* next step to send */
	size_t cur;       /* the step awaited */
	int done;         /* the target was answered or the run failed / ended */
	cJSON *sandbox;   /* the sandbox status record */
	unsigned long records; /* observations so far (settling) */
	uv_timer_t settle;
	int settle_open;
	unsigned long settle_seen;
	uint64_t settle_t0, step_t0;
	uint64_t settle_quiet_t0; /* the start of the current quiet stretch */
	/* Ending the window early: the tree's run counters when the step was sent, the probe
	 * timer, and the idle + check pair that lets the loop read what the server has already
	 * written before the window closes. */
	struct sandbox_quiet_sample *q0;
	uint64_t q0_ns;
	uv_timer_t probe;
	uv_idle_t spin;
	uv_check_t after_poll;
	uv_timer_t cancel_poll; /* looks at sp->cancel every 100 ms (when there is one) */
	int probes;
};

static int session_mode(const struct run *r)
{
	return r->sp->hooks != NULL;
}

static void end_run(struct run *r)
{
	r->done = 1;
	mcp_client_close(r->c);
	r->c = NULL;
}

static void fail(struct run *r, const char *cause, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void fail(struct run *r, const char *cause, const char *fmt, ...)
{
	if (r->done)
		return;
	r->out->cause = cause;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(r->out->detail, sizeof r->out->detail, fmt, ap);
	va_end(ap);
	if (session_mode(r) && r->cur < r->sp->npre && r->sp->pre[r->cur].turn >= 0) {
		/* The turn in flight learns why it has no reply; the rest of the session is gone. */
		r->sp->hooks->after(r->sp->hooks->ctx, r->cur, r->out);
	}
	r->done = 1;
	if (r->s)
		session_terminate(r->s);
	mcp_client_close(r->c);
	r->c = NULL;
}

static void reset_step(struct replay_result *o);
static void close_settle(struct run *r);

static void add_write(struct replay_result *out, const cJSON *p, int moved)
{
	struct buf b = {0};
	if (!p || jx_bytes_decode(p, &b) != 0) {
		buf_free(&b);
		if (p && !out->writes_unusable)
			out->writes_unusable = "a write-intent path could not be decoded";
		return;
	}
	out->writes = xrealloc(out->writes, (out->nwrites + 1) * sizeof *out->writes);
	out->writes_moved = xrealloc(out->writes_moved, (out->nwrites + 1) * sizeof *out->writes_moved);
	out->writes[out->nwrites] = buf_take(&b);
	out->writes_moved[out->nwrites] = (unsigned char)moved;
	out->nwrites++;
}

static void on_write_intent(struct replay_result *out, const cJSON *f)
{
	const char *op = jx_str(f, "op");
	if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(f, "overflow")))
		out->writes_unusable = "too many write intents to list";
	else if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(f, "unresolved")))
		out->writes_unusable = "a write-intent path could not be resolved";
	else if (op && (!strcmp(op, "link") || !strcmp(op, "linkat")))
		out->writes_unusable = "a hard link was made";
	int moved = op && !strncmp(op, "rename", 6);
	add_write(out, cJSON_GetObjectItemCaseSensitive(f, "path"), moved);
	add_write(out, cJSON_GetObjectItemCaseSensitive(f, "to"), moved);
}

/* The destinations of the step whose reply is awaited now (the isolated target from the
 * start; in a session, the next turn step not yet answered), NULL when none or settling. */
static const cJSON *awaited_dests(const struct run *r)
{
	if (r->done || r->settle_open)
		return NULL;
	if (!session_mode(r))
		return r->sp->target.dests;
	for (size_t i = r->cur == SIZE_MAX ? r->next : r->cur; i < r->sp->npre; i++)
		if (r->sp->pre[i].turn >= 0)
			return r->sp->pre[i].dests;
	return NULL;
}

/* A refused network use (a denial of family inet/inet6) to a destination the recorded call
 * reached ends the replay now: the recorded call's state is outside the workspace. */
static void refused_recorded_dest(struct run *r, const cJSON *denial)
{
	const cJSON *dests = awaited_dests(r);
	const char *fam = jx_str(denial, "family"), *addr = jx_str(denial, "address");
	const char *hit = NULL;
	int held = 0;
	struct buf all = {0};
	for (const cJSON *d = dests ? dests->child : NULL; d; d = d->next) {
		const char *df = jx_str(d, "family"), *da = jx_str(d, "address");
		if (!df || !da || strcmp(df, fam))
			continue;
		buf_printf(&all, "%s%s", all.len ? ", " : "", da);
		if (!hit && (!addr || !strcmp(addr, da))) {
			hit = da;
			held = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(d, "held"));
		}
	}
	if (hit) {
		const char *op = jx_str(denial, "op");
		if (addr)
			fail(r, "REPLAY_NETWORK_REFUSED",
			     "the replay was refused the connection to %s that the recorded %s (%s): the call's "
			     "state lives outside the workspace, in the service at that address, which a replay never "
			     "reaches, so a lie there cannot be told from an honest turn",
			     hit, held ? "server made before the call and could use for it" : "call made", op ? op : "?");
		else
			fail(r, "REPLAY_NETWORK_REFUSED",
			     "the replay was refused an %s socket (%s), and the recorded %s connected to %s: the call's "
			     "state lives outside the workspace, in the service at that address, which a replay never "
			     "reaches, so a lie there cannot be told from an honest turn",
			     fam, op ? op : "?", held ? "server (before the call, which could use that connection)" : "call",
			     buf_cstr(&all));
	}
	buf_free(&all);
}

static void on_record(void *ctx, struct session *s, int64_t seq, const char *kind, const cJSON *fields)
{
	struct run *r = ctx;
	(void)s;
	(void)seq;
	if (!strcmp(kind, "denial") || !strcmp(kind, "network_attempt")) {
		cJSON *o = cJSON_Duplicate(fields, 1);
		cJSON_AddStringToObject(o, "kind", kind);
		cJSON_AddItemToArray(r->out->observed, o);
		const char *fam = jx_str(fields, "family");
		if (!strcmp(kind, "denial") && fam && (!strcmp(fam, "inet") || !strcmp(fam, "inet6"))) {
			r->out->network_refused = 1;
			refused_recorded_dest(r, fields);
		}
		r->records++;
	} else if (!strcmp(kind, "sandbox")) {
		cJSON_Delete(r->sandbox);
		r->sandbox = cJSON_Duplicate(fields, 1);
	} else if (!strcmp(kind, "write_intent")) {
		on_write_intent(r->out, fields);
		r->records++;
	} else if (!strcmp(kind, "sandbox_end")) {
		r->out->contained_gone = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(fields, "contained_gone"));
	}
}

static void on_ended(void *ctx, struct session *s, int code)
{
	struct run *r = ctx;
	(void)s;
	r->s = NULL;
	if (r->settle_open) {
		/* The turn's reply is in: it is judged with what was seen; the session is over. */
		close_settle(r);
		if (session_mode(r)) {
			r->sp->hooks->after(r->sp->hooks->ctx, r->cur, r->out);
			reset_step(r->out);
			r->cur = SIZE_MAX;
		} else {
			end_run(r);
		}
	}
	if (!r->done) {
		if (r->sandbox && cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(r->sandbox, "ok")))
			fail(r, "REPLAY_SANDBOX_UNAVAILABLE", "%s: %s", jx_str(r->sandbox, "layer"), jx_str(r->sandbox, "error"));
		else
			fail(r, "REPLAY_SERVER_EXITED", "the server exited (status %d) before answering the call", code);
	}
}

static cJSON *answer(void *ctx, struct mcp_client *c, const cJSON *req)
{
	struct run *r = ctx;
	(void)c;
	r->records++;
	if (!r->sp->answers)
		return NULL;
	cJSON *resp = answers_take(r->sp->answers, req);
	if (!resp && !r->out->answers_missing++) {
		const char *m = jx_str(req, "method");
		snprintf(r->out->answer_missing_method, sizeof r->out->answer_missing_method, "%s", m ? m : "?");
	}
	return resp;
}

/* Clears what a session replay collected for the last turn step. */
static void reset_step(struct replay_result *o)
{
	o->cause = NULL;
	o->detail[0] = '\0';
	free(o->reply);
	o->reply = NULL;
	o->reply_len = 0;
	cJSON_Delete(o->observed);
	o->observed = cJSON_CreateArray();
	o->network_refused = 0;
	for (size_t i = 0; i < o->nwrites; i++)
		free(o->writes[i]);
	free(o->writes);
	free(o->writes_moved);
	o->writes = NULL;
	o->writes_moved = NULL;
	o->nwrites = 0;
	o->writes_unusable = NULL;
	o->answers_missing = 0;
	o->answer_missing_method[0] = '\0';
	o->ms_settle = 0;
	o->settle_proven = 0;
}

static void on_notify(void *ctx, struct mcp_client *c, const cJSON *n)
{
	struct run *r = ctx;
	(void)c;
	(void)n;
	r->records++;
}

static void send_next(struct run *r);

/* Closes the window's handles (they are opened together in open_settle). */
static void close_settle(struct run *r)
{
	r->settle_open = 0;
	uv_timer_stop(&r->settle);
	uv_close((uv_handle_t *)&r->settle, NULL);
	uv_close((uv_handle_t *)&r->probe, NULL);
	uv_close((uv_handle_t *)&r->spin, NULL);
	uv_close((uv_handle_t *)&r->after_poll, NULL);
}

static void end_settle(struct run *r);
static void probe_cb(uv_timer_t *t);

static void spin_cb(uv_idle_t *h)
{
	(void)h; /* only there so that the next poll does not block */
}

static void restart_probes(struct run *r)
{
	r->probes = 0;
	if (r->q0 && !r->sp->settle_wait && !uv_is_active((uv_handle_t *)&r->after_poll))
		uv_timer_start(&r->probe, probe_cb, 0, 0);
}

static void settle_cb(uv_timer_t *t)
{
	struct run *r = t->data;
	if (r->s)
		session_drain_posted(r->s);
	uint64_t waited = (time_mono_ns() - r->settle_t0) / 1000000;
	if (r->records != r->settle_seen && waited < SETTLE_MAX_MS) {
		r->settle_seen = r->records;
		r->settle_quiet_t0 = time_mono_ns();
		uv_timer_start(&r->settle, settle_cb, SETTLE_MS, 0);
		restart_probes(r);
		return;
	}
	/* Quiet by the clock, but a thread of the server that can run (a timer's thread woken and
	 * waiting for a CPU on a loaded machine, work not finished) may still write: look again
	 * shortly rather than end. An unreadable tree ends it as before. */
	const char *why = NULL;
	if (waited < SETTLE_MAX_MS && r->s && sandbox_quiet_runnable(session_server_pid(r->s), &why) == 1) {
		uv_timer_start(&r->settle, settle_cb, SETTLE_RUNNABLE_MS, 0);
		return;
	}
	end_settle(r);
}

/* After a poll phase that found nothing more from the server: the window ends now if the
 * tree was proven quiet and nothing came meanwhile. */
static void after_poll_cb(uv_check_t *h)
{
	struct run *r = h->data;
	uv_check_stop(&r->after_poll);
	uv_idle_stop(&r->spin);
	if (r->s)
		session_drain_posted(r->s);
	if (r->records != r->settle_seen) {
		restart_probes(r); /* something happened: the window runs on */
		return;
	}
	r->out->settle_proven = 1;
	end_settle(r);
}

static void probe_cb(uv_timer_t *t)
{
	struct run *r = t->data;
	if (!r->settle_open || !r->s || !r->q0)
		return;
	session_drain_posted(r->s);
	const char *why = NULL;
	if (r->records == r->settle_seen &&
	    sandbox_quiet_proven(session_server_pid(r->s), r->q0, r->q0_ns, r->settle_quiet_t0 + SETTLE_MS * 1000000ull,
				 &why)) {
		/* Read whatever the server already wrote (one poll that does not block), then end. */
		uv_timer_stop(&r->probe);
		uv_idle_start(&r->spin, spin_cb);
		uv_check_start(&r->after_poll, after_poll_cb);
		return;
	}
	if (++r->probes < PROBE_TRIES)
		uv_timer_start(&r->probe, probe_cb, PROBE_MS, 0);
}

static void end_settle(struct run *r)
{
	r->out->ms_settle = (double)(time_mono_ns() - r->settle_t0) / 1e6;
	close_settle(r);
	if (!session_mode(r)) {
		end_run(r); /* let the server see the end of its input and exit as it would */
		return;
	}
	r->sp->hooks->after(r->sp->hooks->ctx, r->cur, r->out);
	reset_step(r->out);
	send_next(r);
}

/* Opens the window after a turn's reply: the quiet timer, and the probes that may end it
 * early (not when the proof is switched off, or the tree could not be sampled). */
static void open_settle(struct run *r)
{
	r->settle_seen = r->records;
	r->settle_t0 = r->settle_quiet_t0 = time_mono_ns();
	uv_timer_init(&r->loop, &r->settle);
	uv_timer_init(&r->loop, &r->probe);
	uv_idle_init(&r->loop, &r->spin);
	uv_check_init(&r->loop, &r->after_poll);
	r->settle.data = r->probe.data = r->spin.data = r->after_poll.data = r;
	r->settle_open = 1;
	uv_timer_start(&r->settle, settle_cb, SETTLE_MS, 0);
	restart_probes(r);
}

static void on_reply(void *ctx, struct mcp_client *c, int status, const char *line, size_t len, const cJSON *msg)
{
	struct run *r = ctx;
	(void)c;
	if (r->done)
		return;
	const struct replay_frame *step = r->cur < r->sp->npre ? &r->sp->pre[r->cur] : &r->sp->target;
	int target = session_mode(r) ? step->turn >= 0 : r->next > r->sp->npre;
	if (status != 0 && r->s) {
		/* A refusal the sandbox already posted names the cause better than the end. */
		session_drain_posted(r->s);
		if (r->done)
			return;
	}
	if (status == UV_ETIMEDOUT) {
		fail(r, "REPLAY_TIMEOUT", "no answer to the %s within %u ms", target ? "call" : "handshake",
		     r->sp->timeout_ms);
		return;
	}
	if (status != 0) {
		/* The session's end explains it better when it comes. */
		if (r->sandbox && cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(r->sandbox, "ok")))
			fail(r, "REPLAY_SANDBOX_UNAVAILABLE", "%s: %s", jx_str(r->sandbox, "layer"), jx_str(r->sandbox, "error"));
		else
			fail(r, "REPLAY_SERVER_EXITED", "the server closed the connection before answering the %s",
			     target ? "call" : "handshake");
		return;
	}
	const cJSON *pv = msg ? jx_path(msg, "result.protocolVersion") : NULL;
	if (cJSON_IsString(pv) && !r->out->protocol_version)
		r->out->protocol_version = xstrdup(pv->valuestring);
	if (!target) {
		send_next(r);
		return;
	}
	r->out->reply = xmemdup(line, len + 1);
	r->out->reply[len] = '\0';
	r->out->reply_len = len;
	r->out->ms_server = (double)(time_mono_ns() - r->step_t0) / 1e6;
	if (r->s)
		session_drain_posted(r->s);
	open_settle(r);
}

/* The quiet proof covers the server's whole tree only inside a pid namespace (an orphan
 * outside one is reparented out of the tree, out of sight) and only without the network
 * (every peer is then in the tree or belay). Unsure: no proof, the window is waited out. */
static int proof_possible(const struct run *r)
{
	return r->sp->network == SANDBOX_NET_DENY && r->sandbox &&
	       cJSON_IsTrue(jx_path(r->sandbox, "layers.pid_namespace"));
}

/* A cancelled verification: the replay stops here (fail terminates its server). */
static void cancel_poll_cb(uv_timer_t *t)
{
	struct run *r = t->data;
	if (!r->done && atomic_load(r->sp->cancel))
		fail(r, "REPLAY_CANCELLED", "the verification was cancelled");
}

static void send_next(struct run *r)
{
	size_t last = session_mode(r) ? r->sp->npre : r->sp->npre + 1;
	while (!r->done && r->next < last) {
		size_t i = r->next;
		const struct replay_frame *f = i < r->sp->npre ? &r->sp->pre[i] : &r->sp->target;
		int provable = r->s && proof_possible(r) && !r->sp->settle_wait;
		struct replay_quiet q = {r->s ? session_server_pid(r->s) : 0, provable ? r->q0 : NULL, r->q0_ns};
		if (session_mode(r) && r->sp->hooks->before &&
		    r->sp->hooks->before(r->sp->hooks->ctx, i, r->s ? &q : NULL) != 0) {
			end_run(r);
			return;
		}
		r->next++;
		r->cur = i;
		if (!r->sp->settle_wait && r->s && proof_possible(r)) {
			/* Every thread's run counters before the step reaches the server. */
			sandbox_quiet_sample_free(r->q0);
			r->q0 = sandbox_quiet_sample_take(session_server_pid(r->s), &r->q0_ns);
		}
		r->step_t0 = time_mono_ns();
		if (rpc_id_trackable(&f->await)) {
			if (mcp_client_send_raw(r->c, f->bytes, f->len, &f->await, r->sp->timeout_ms, on_reply, r) != 0)
				fail(r, "REPLAY_SERVER_EXITED", "cannot send to the server");
			return;
		}
		if (!session_mode(r) && r->next > r->sp->npre) {
			fail(r, "REPLAY_SERVER_FAILED", "the recorded call has no usable id to await");
			return;
		}
		mcp_client_send_raw(r->c, f->bytes, f->len, NULL, 0, NULL, NULL);
	}
	if (!r->done && session_mode(r))
		end_run(r); /* every step sent and answered: let the server see the end of its input */
}

int replay_run(const struct replay_spec *sp, struct replay_result *out)
{
	memset(out, 0, sizeof *out);
	out->observed = cJSON_CreateArray();
	struct run r = {.sp = sp, .out = out, .cur = SIZE_MAX};
	uint64_t t0 = time_mono_ns();
	uv_loop_init(&r.loop);
	int sv[2];
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0) {
		out->cause = "REPLAY_SERVER_FAILED";
		snprintf(out->detail, sizeof out->detail, "socketpair failed");
		uv_loop_close(&r.loop);
		return 0;
	}
	struct endpoint *server_side = NULL, *client_side = NULL;
	endpoint_open_fd(&r.loop, sv[0], 1, &server_side);
	endpoint_open_fd(&r.loop, sv[1], 1, &client_side);
	struct sandbox_spec spec;
	struct err e = {0};
	if (sandbox_spec_init_tmp(&spec, sp->scope, sp->tmpdir, sp->network, &e) != 0) {
		out->cause = "REPLAY_SANDBOX_UNAVAILABLE";
		snprintf(out->detail, sizeof out->detail, "%s", e.msg);
		endpoint_close(server_side);
		endpoint_close(client_side);
		uv_run(&r.loop, UV_RUN_DEFAULT);
		uv_loop_close(&r.loop);
		return 0;
	}
	/* The recorded server had the sandbox's writable cache (its variables point there): the
	 * replay gets one too, its own and empty, never the user's shared one. */
	if (sp->cache)
		spec.cache = xstrdup(sp->cache);
	if (sp->http_url) {
		/* the URL's port, on the sandbox's own loopback; belay's way in is the connector */
		const char *port = strrchr(sp->http_url + (strncmp(sp->http_url, "http://", 7) ? 0 : 7), ':');
		spec.loopback_port = port ? (unsigned)strtoul(port + 1, NULL, 10) : 0;
		spec.connector = 1;
	}
	struct session_observer obs = {.record = on_record, .ended = on_ended, .ctx = &r};
	struct session_opts so = {
		.argv = sp->argv,
		.cwd = sp->cwd,
		.env = sp->env,
		.trace_path = sp->trace_path,
		.stderr_fd = -1,
		.obs = &obs,
		.sandbox = &spec,
		.launcher = sp->launcher,
		.kill_grace_ms = 500, /* the call and its settle are over: only shutdown is left */
		.report_writes = sp->report_writes,
		.reap_contained = 1,
		.http_url = sp->http_url,
	};
	if (session_start(&r.loop, &so, server_side, server_side, &r.s, &e) != 0) {
		out->cause = "REPLAY_SERVER_FAILED";
		snprintf(out->detail, sizeof out->detail, "%s", e.msg);
		endpoint_close(server_side);
		endpoint_close(client_side);
		uv_run(&r.loop, UV_RUN_DEFAULT);
		uv_loop_close(&r.loop);
		sandbox_spec_done(&spec);
		return 0;
	}
	struct mcp_client_hooks hooks = {.on_request = answer, .on_notify = on_notify, .ctx = &r};
	r.c = mcp_client_new(&r.loop, client_side, &hooks);
	if (sp->cancel) {
		/* unreferenced: it never keeps the loop alive; closed below */
		uv_timer_init(&r.loop, &r.cancel_poll);
		r.cancel_poll.data = &r;
		uv_timer_start(&r.cancel_poll, cancel_poll_cb, 100, 100);
		uv_unref((uv_handle_t *)&r.cancel_poll);
	}
	if (sp->cancel && atomic_load(sp->cancel))
		fail(&r, "REPLAY_CANCELLED", "the verification was cancelled");
	else
		send_next(&r);
	uv_run(&r.loop, UV_RUN_DEFAULT);
	if (sp->cancel) {
		uv_close((uv_handle_t *)&r.cancel_poll, NULL);
		uv_run(&r.loop, UV_RUN_DEFAULT);
	}
	if (uv_loop_close(&r.loop) != 0)
		FATAL("replay loop still has live handles");
	sandbox_spec_done(&spec);
	cJSON_Delete(r.sandbox);
	sandbox_quiet_sample_free(r.q0);
	if (!session_mode(&r))
		out->ms_server = (double)(time_mono_ns() - t0) / 1e6;
	return 0;
}

void replay_result_free(struct replay_result *r)
{
	for (size_t i = 0; i < r->nwrites; i++)
		free(r->writes[i]);
	free(r->writes);
	free(r->writes_moved);
	free(r->reply);
	free(r->protocol_version);
	cJSON_Delete(r->observed);
	memset(r, 0, sizeof *r);
}

void replay_frame_free(struct replay_frame *f)
{
	free(f->bytes);
	cJSON_Delete(f->dests);
	memset(f, 0, sizeof *f);
}
