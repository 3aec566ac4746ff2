/* scripted.c - the scripted agent. See scripted.h. */
#include "demo/scripted.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <uv.h>

#include "common/jsonx.h"
#include "common/xalloc.h"
#include "mcp/mcp_client.h"
#include "proxy/session.h"

struct sr {
	const struct scripted_opts *o;
	const cJSON *steps;
	struct scripted_result *out;
	uv_loop_t loop;
	struct session *s;
	struct mcp_client *c;
	uv_timer_t timer;
	const cJSON *cur;  /* the step being run */
	int index;
	int waiting;       /* replies outstanding for the current step */
	int initialized;   /* the initialize step is waiting for its reply before the note */
	int done;
};

static void next_step(struct sr *r);

static void finish(struct sr *r)
{
	if (r->done)
		return;
	r->done = 1;
	mcp_client_close(r->c);
	r->c = NULL;
}

static void step_failed(struct sr *r, const char *why)
{
	if (r->out->failed_step < 0) {
		r->out->failed_step = r->index;
		snprintf(r->out->why, sizeof r->out->why, "%s", why);
	}
	if (r->o->on_step)
		r->o->on_step(r->o->ctx, r->index, r->cur, NULL);
	/* An agent that gives up does not wait for the server to finish either. */
	if (r->s)
		session_terminate(r->s);
	finish(r);
}

static void on_reply(void *ctx, struct mcp_client *c, int status, const char *line, size_t len, const cJSON *msg)
{
	struct sr *r = ctx;
	(void)c;
	(void)line;
	(void)len;
	if (r->done)
		return;
	if (status != 0) {
		step_failed(r, status == UV_ETIMEDOUT ? "no reply in time" : "the server went away");
		return;
	}
	if (r->initialized) {
		r->initialized = 0;
		mcp_client_notify(r->c, "notifications/initialized", NULL);
	}
	if (r->o->on_step)
		r->o->on_step(r->o->ctx, r->index, r->cur, msg);
	if (--r->waiting == 0) {
		r->index++;
		next_step(r);
	}
}

static int send_call(struct sr *r, const cJSON *call)
{
	cJSON *params = cJSON_CreateObject();
	cJSON_AddStringToObject(params, "name", jx_str(call, "call"));
	const cJSON *args = cJSON_GetObjectItemCaseSensitive(call, "args");
	cJSON_AddItemToObject(params, "arguments", args ? cJSON_Duplicate(args, 1) : cJSON_CreateObject());
	r->waiting++;
	return mcp_client_request(r->c, "tools/call", params, r->o->timeout_ms, on_reply, r);
}

static void timer_cb(uv_timer_t *t)
{
	struct sr *r = t->data;
	r->index++;
	next_step(r);
}

static void next_step(struct sr *r)
{
	while (!r->done) {
		r->cur = cJSON_GetArrayItem(r->steps, r->index);
		if (!r->cur) {
			finish(r);
			return;
		}
		const cJSON *st = r->cur;
		if (cJSON_GetObjectItemCaseSensitive(st, "initialize")) {
			cJSON *p = cJSON_Duplicate(cJSON_GetObjectItemCaseSensitive(st, "initialize"), 1);
			if (!cJSON_IsObject(p)) {
				cJSON_Delete(p);
				p = cJSON_CreateObject();
			}
			if (!cJSON_GetObjectItemCaseSensitive(p, "protocolVersion"))
				cJSON_AddStringToObject(p, "protocolVersion", "2025-06-18");
			if (!cJSON_GetObjectItemCaseSensitive(p, "capabilities"))
				cJSON_AddObjectToObject(p, "capabilities");
			if (!cJSON_GetObjectItemCaseSensitive(p, "clientInfo")) {
				cJSON *ci = cJSON_AddObjectToObject(p, "clientInfo");
				cJSON_AddStringToObject(ci, "name", "belay-scripted-agent");
				cJSON_AddStringToObject(ci, "version", BELAY_VERSION_STRING);
			}
			r->waiting = 1;
			r->initialized = 1;
			mcp_client_request(r->c, "initialize", p, r->o->timeout_ms, on_reply, r);
			return;
		}
		if (cJSON_GetObjectItemCaseSensitive(st, "list")) {
			r->waiting = 1;
			mcp_client_request(r->c, "tools/list", NULL, r->o->timeout_ms, on_reply, r);
			return;
		}
		if (jx_str(st, "call")) {
			r->waiting = 0;
			send_call(r, st);
			return;
		}
		const cJSON *par = cJSON_GetObjectItemCaseSensitive(st, "parallel");
		if (cJSON_IsArray(par)) {
			r->waiting = 0;
			for (const cJSON *c = par->child; c; c = c->next)
				send_call(r, c);
			if (!r->waiting) {
				r->index++;
				continue;
			}
			return;
		}
		if (jx_str(st, "claim")) {
			cJSON *f = cJSON_CreateObject();
			cJSON_AddStringToObject(f, "text", jx_str(st, "claim"));
			cJSON_AddStringToObject(f, "source", "scripted-agent");
			if (r->s)
				session_record(r->s, "claim", f);
			else
				cJSON_Delete(f);
			if (r->o->on_step)
				r->o->on_step(r->o->ctx, r->index, st, NULL);
			r->index++;
			continue;
		}
		long long ms;
		if (jx_int(st, "sleep_ms", 0, 600000, &ms)) {
			uv_timer_start(&r->timer, timer_cb, (uint64_t)ms, 0);
			return;
		}
		step_failed(r, "unknown step");
		return;
	}
}

static void on_ended(void *ctx, struct session *s, int code)
{
	struct sr *r = ctx;
	(void)s;
	r->out->exit_code = code;
	r->s = NULL;
	if (!r->done)
		step_failed(r, "the server exited");
	uv_close((uv_handle_t *)&r->timer, NULL);
}

int scripted_run(const struct scripted_opts *o, const cJSON *steps, struct scripted_result *out, struct err *e)
{
	memset(out, 0, sizeof *out);
	out->failed_step = -1;
	if (!cJSON_IsArray(steps)) {
		admission_free(o->gate);
		return err_set(e, BELAY_EINVAL, "a script is a JSON array of steps");
	}
	struct sr r = {.o = o, .steps = steps, .out = out};
	struct scripted_opts defaults = *o;
	if (!defaults.timeout_ms)
		defaults.timeout_ms = 20000;
	r.o = &defaults;
	uv_loop_init(&r.loop);
	uv_timer_init(&r.loop, &r.timer);
	r.timer.data = &r;
	int sv[2];
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0) {
		admission_free(o->gate);
		uv_close((uv_handle_t *)&r.timer, NULL);
		uv_run(&r.loop, UV_RUN_DEFAULT);
		uv_loop_close(&r.loop);
		return err_set(e, BELAY_EINVAL, "socketpair failed");
	}
	struct endpoint *srv = NULL, *cli = NULL;
	endpoint_open_fd(&r.loop, sv[0], 1, &srv);
	endpoint_open_fd(&r.loop, sv[1], 1, &cli);
	struct session_observer obs = {.ended = on_ended, .ctx = &r};
	struct session_opts so = {
		.argv = o->argv,
		.cwd = o->cwd,
		.trace_dir = o->trace_dir,
		.state_dir = o->state_dir,
		.sandbox = o->sandbox,
		.gate = o->gate,
		.launcher = o->launcher,
		.obs = &obs,
		.stderr_fd = -1,
		.frame_cap = o->frame_cap,
	};
	int rc = session_start(&r.loop, &so, srv, srv, &r.s, e);
	if (rc) {
		endpoint_close(srv);
		endpoint_close(cli);
		uv_close((uv_handle_t *)&r.timer, NULL);
		uv_run(&r.loop, UV_RUN_DEFAULT);
		uv_loop_close(&r.loop);
		return rc;
	}
	if (session_trace_path(r.s))
		out->trace_path = xstrdup(session_trace_path(r.s));
	if (o->on_started)
		o->on_started(o->ctx, out->trace_path);
	r.c = mcp_client_new(&r.loop, cli, NULL);
	next_step(&r);
	uv_run(&r.loop, UV_RUN_DEFAULT);
	uv_loop_close(&r.loop);
	return 0;
}

void scripted_result_free(struct scripted_result *r)
{
	free(r->trace_path);
	r->trace_path = NULL;
}
