/* http_proxy.c - the HTTP recording proxy (http_proxy.h): listener threads (libmicrohttpd,
 * one per connection), the upstream thread (libcurl multi) and the reaper thread. */
#include "http/http_proxy.h"

#include <arpa/inet.h>
#include <curl/curl.h>
#include <errno.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "common/buf.h"
#include "common/hash.h"
#include "common/xalloc.h"
#include "gate/effect_plan.h"
#include "gate/gate.h"
#include "http/http_gate.h"
#include "http/http_guard.h"
#include "http/http_hdr.h"
#include "http/http_oauth.h"
#include "http/http_run.h"
#include "http/sse_parse.h"

#define HP_BODY_MAX ((size_t)64 << 20) /* largest request or JSON response body */
#define HP_OUT_HIGH ((size_t)8 << 20)	/* an event stream pauses upstream above this backlog */
#define HP_OUT_LOW ((size_t)1 << 20)	/* and resumes below this */

/*==== runs ====*/

struct hp_run {
	struct http_run *run;
	char *sid;	      /* the session id, once known */
	const void *conn;     /* the connection a run without session belongs to */
	int refs;	      /* transfer sides in flight */
	const char *ending;   /* why it ends (static), or NULL */
	uint64_t last_ns;     /* last activity, monotonic */
	uint64_t next_stream; /* the run's request counter */
	cJSON *tools;	      /* tool name -> annotations, from the last tools/list answer */
	struct hp_run *next;
};

struct hp_token {
	char token[HTTP_GUARD_TOKEN_HEX + 1];
	char *url; /* the upstream message endpoint it stands for */
	struct hp_run *run;
	struct hp_token *next;
};

struct http_proxy {
	struct http_proxy_cfg cfg;
	char *upstream, *secret, *trace_dir, *state_dir, *upstream_rec;
	char listener[32];
	unsigned port;
	struct MHD_Daemon *mhd;
	int quit_efd; /* readable once the proxy stops */
	atomic_int quitting;
	atomic_int listener_gone; /* no listener thread is left to hand over a transfer */

	pthread_mutex_t mu; /* runs, tokens, inbox, cond */
	pthread_cond_t reap;
	struct hp_run *runs;
	struct hp_token *tokens;
	struct hp_xfer *inbox; /* transfers for the upstream thread to start */

	cJSON *every_run, *pending; /* http_proxy_record*: [[kind, fields]...], under mu */
	struct http_gate *gate; /* enforce mode's approvals */
	CURLM *multi; /* the upstream thread's */
	pthread_t upstream_thread, reaper_thread;
	int threads;
};

static uint64_t now_ns(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

static void report(struct http_proxy *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void report(struct http_proxy *p, const char *fmt, ...)
{
	if (!p->cfg.report)
		return;
	char msg[700];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	p->cfg.report(p->cfg.ctx, msg);
}

static void run_report(void *ctx, const char *msg)
{
	report(ctx, "%s", msg);
}

static void records_into_new_run(struct http_proxy *p, struct http_run *r);
static int has_tools_call(const char *body, size_t len);

/* Under p->mu. A new run, or NULL (reported). */
static struct hp_run *run_new(struct http_proxy *p, const char *why)
{
	struct http_run_cfg rc = {
		.trace_dir = p->trace_dir,
		.state_dir = p->state_dir,
		.no_index = p->cfg.no_index,
		.upstream = p->upstream_rec,
		.listener = p->listener,
		.why = why,
		.report = run_report,
		.ctx = p,
	};
	struct err e = {0};
	struct http_run *r;
	if (http_run_open(&rc, &r, &e) != 0) {
		report(p, "cannot record a run: %s", e.msg);
		return NULL;
	}
	struct hp_run *h = xcalloc(1, sizeof *h);
	h->run = r;
	h->last_ns = now_ns();
	h->next = p->runs;
	p->runs = h;
	records_into_new_run(p, r);
	if (p->cfg.run_event)
		p->cfg.run_event(p->cfg.ctx, "open", http_run_trace_path(r));
	return h;
}

/* Under p->mu. */
static struct hp_run *run_by_sid(struct http_proxy *p, const char *sid)
{
	for (struct hp_run *h = p->runs; h; h = h->next)
		if (!h->ending && h->sid && !strcmp(h->sid, sid))
			return h;
	return NULL;
}

static struct hp_run *run_by_conn(struct http_proxy *p, const void *conn)
{
	for (struct hp_run *h = p->runs; h; h = h->next)
		if (!h->ending && !h->sid && h->conn == conn)
			return h;
	return NULL;
}

/* Drops one reference (any thread). */
static void run_unref(struct http_proxy *p, struct hp_run *h, const char *end_reason)
{
	pthread_mutex_lock(&p->mu);
	h->refs--;
	h->last_ns = now_ns();
	if (end_reason && !h->ending)
		h->ending = end_reason;
	/* the reaper is woken only for a run that is over (an idle one its timed wait finds):
	 * waking it at every request would cost a thread switch per call */
	if (!h->refs && h->ending)
		pthread_cond_signal(&p->reap);
	pthread_mutex_unlock(&p->mu);
}

/*==== transfers ====*/

struct hp_hdr {
	char *name, *value;
};

struct hp_xfer {
	struct http_proxy *p;
	struct hp_run *run;
	uint64_t stream;
	const char *method;
	char *url;
	char *body;
	size_t body_len;
	int efd;       /* the upstream thread signals the connection thread here */
	int client_fd; /* the client's socket (watched for a hang-up) */
	CURL *h;
	struct curl_slist *hdrs;
	char *bearer; /* belay's own Authorization value upstream (http_oauth.h), or NULL */
	char errbuf[CURL_ERROR_SIZE];

	pthread_mutex_t mu; /* everything below */
	int refs;	    /* the connection side and the upstream side */
	int headers_done, done, failed, cancelled, paused, want_unpause;
	int signal_due; /* something for the connection thread, signalled after the perform round */
	long status;
	struct hp_hdr *rh;
	size_t nrh;
	char *content_type, *sid;
	int is_sse;
	struct buf out;	 /* bytes for the client, not yet taken */
	struct buf body_in; /* a JSON response body, recorded whole at the end */
	struct sse_parse sse;
	uint64_t events;
	uint64_t pauses; /* times the upstream was paused for a slow client */
	struct hp_xfer *next; /* inbox, then the upstream thread's active list */
};

static void xfer_signal(struct hp_xfer *x)
{
	uint64_t one = 1;
	ssize_t w = write(x->efd, &one, sizeof one);
	(void)w;
}

static void xfer_unref(struct hp_xfer *x)
{
	pthread_mutex_lock(&x->mu);
	int left = --x->refs;
	pthread_mutex_unlock(&x->mu);
	if (left)
		return;
	if (x->h)
		curl_easy_cleanup(x->h);
	curl_slist_free_all(x->hdrs);
	if (x->bearer)
		explicit_bzero(x->bearer, strlen(x->bearer));
	free(x->bearer);
	for (size_t i = 0; i < x->nrh; i++) {
		free(x->rh[i].name);
		free(x->rh[i].value);
	}
	free(x->rh);
	free(x->content_type);
	free(x->sid);
	free(x->url);
	free(x->body);
	buf_free(&x->out);
	buf_free(&x->body_in);
	sse_parse_free(&x->sse);
	close(x->efd);
	pthread_mutex_destroy(&x->mu);
	free(x);
}

static cJSON *fact(const char *event, const struct hp_xfer *x)
{
	cJSON *f = cJSON_CreateObject();
	cJSON_AddStringToObject(f, "event", event);
	if (x)
		cJSON_AddNumberToObject(f, "stream", (double)x->stream);
	return f;
}

/*==== the gate: effect plans of a remote server's calls ====*/

/* A server message that answers tools/list: keep each tool's annotations (any thread). */
static void note_tools(struct http_proxy *p, struct hp_run *run, const char *data, size_t len)
{
	if (!memmem(data, len, "\"tools\"", 7))
		return;
	cJSON *o = cJSON_ParseWithLength(data, len);
	const cJSON *tools = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(o, "result"), "tools");
	if (cJSON_IsArray(tools)) {
		cJSON *map = cJSON_CreateObject();
		for (const cJSON *t = tools->child; t; t = t->next) {
			const cJSON *name = cJSON_GetObjectItemCaseSensitive(t, "name");
			const cJSON *ann = cJSON_GetObjectItemCaseSensitive(t, "annotations");
			if (cJSON_IsString(name) && !cJSON_GetObjectItemCaseSensitive(map, name->valuestring))
				cJSON_AddItemToObject(map, name->valuestring,
						      cJSON_IsObject(ann) ? cJSON_Duplicate(ann, 1) : cJSON_CreateObject());
		}
		pthread_mutex_lock(&p->mu);
		cJSON_Delete(run->tools);
		run->tools = map;
		pthread_mutex_unlock(&p->mu);
	}
	cJSON_Delete(o);
}

/* A call being held for a person: recorded (an `http` record "hold") and told (cfg.report). */
struct hold_ctx {
	struct http_proxy *p;
	struct hp_run *run;
	uint64_t seq;
	const char *tool;
	const struct effect_plan *plan;
	int client_fd; /* the held request's connection (-1: unknown) */
	int held;
};

/* Listener thread, while the call is held: 1 once its client hung up. */
static int held_client_gone(void *ctx)
{
	struct hold_ctx *h = ctx;
	if (h->client_fd < 0)
		return 0;
	struct pollfd pf = {.fd = h->client_fd, .events = POLLRDHUP};
	return poll(&pf, 1, 0) > 0 && (pf.revents & (POLLRDHUP | POLLHUP | POLLERR));
}

/* Listener thread, before the hold's wait. */
static void on_held(void *ctx, const char *id)
{
	struct hold_ctx *h = ctx;
	h->held = 1;
	cJSON *f = cJSON_CreateObject();
	cJSON_AddStringToObject(f, "event", "hold");
	cJSON_AddNumberToObject(f, "request_seq", (double)h->seq);
	if (h->tool)
		cJSON_AddStringToObject(f, "tool", h->tool);
	cJSON_AddStringToObject(f, "approval_id", id);
	cJSON_AddNumberToObject(f, "hold_s", h->p->cfg.hold_s);
	cJSON *ev = h->p->cfg.hold_event ? cJSON_Duplicate(f, 1) : NULL;
	http_run_fact(h->run->run, f);
	if (ev) { /* a console hosting the listener lists it (cfg.hold_event) */
		cJSON_AddStringToObject(ev, "trace", http_run_trace_path(h->run->run));
		cJSON_AddItemToObject(ev, "plan", effect_plan_json(h->plan));
		h->p->cfg.hold_event(h->p->cfg.ctx, ev);
		cJSON_Delete(ev);
	}
	report(h->p, "holding the call to %s for up to %u s; to let it through: belay approve %s",
	       h->tool ? h->tool : "a tool", h->p->cfg.hold_s, id);
}

/* Plans one message of a client body; in enforce mode, a call the gate refuses (and nobody
 * approved once) gets its refusal appended to *refusals (a JSON array, made on first use). */
static void plan_call(struct http_proxy *p, struct hp_run *run, const cJSON *m, uint64_t seq, int client_fd,
		      cJSON **refusals)
{
	const cJSON *method = cJSON_GetObjectItemCaseSensitive(m, "method");
	if (!cJSON_IsString(method) || strcmp(method->valuestring, "tools/call"))
		return;
	const cJSON *params = cJSON_GetObjectItemCaseSensitive(m, "params");
	const cJSON *name = cJSON_GetObjectItemCaseSensitive(params, "name");
	const cJSON *arguments = cJSON_GetObjectItemCaseSensitive(params, "arguments");
	const char *tool = cJSON_IsString(name) ? name->valuestring : NULL;
	cJSON *ann = NULL;
	pthread_mutex_lock(&p->mu);
	if (tool && run->tools) {
		const cJSON *a = cJSON_GetObjectItemCaseSensitive(run->tools, tool);
		ann = a ? cJSON_Duplicate(a, 1) : NULL;
	}
	pthread_mutex_unlock(&p->mu);
	/* the server runs elsewhere: its path and command arguments are not effects here; a
	 * contained local server's are, in its workspace */
	struct gate_ctx ctx = {.root = p->cfg.local_root ? p->cfg.local_root : "/", .home = getenv("HOME"),
			       .state_dir = p->state_dir, .remote = !p->cfg.local_root};
	struct effect_plan *plan = gate_plan_tool_call(p->cfg.policy, tool, arguments, ann, &ctx);
	cJSON_Delete(ann);
	enum gate_decision d = effect_plan_decision(plan);
	const char *outcome = d >= GATE_ASK ? "forwarded (audit)" : "forwarded";
	char id[48] = "", by[128] = "";
	int refused = 0, expired = 0;
	if (p->cfg.enforce && d >= GATE_ASK) {
		struct hold_ctx hc = {.p = p, .run = run, .seq = seq, .tool = tool, .plan = plan, .client_fd = client_fd};
		enum http_gate_answer a = p->gate ? http_gate_decide(p->gate, tool, arguments, p->cfg.hold_s * 1000u,
								     on_held, held_client_gone, &hc, id, by)
						  : HTTP_GATE_REFUSED;
		if (a == HTTP_GATE_APPROVED) {
			outcome = hc.held ? "forwarded (approved while held)" : "forwarded (approved once)";
		} else {
			outcome = a == HTTP_GATE_EXPIRED  ? "refused (hold expired)"
				  : a == HTTP_GATE_GONE	    ? "refused (client gone)"
				  : a == HTTP_GATE_DENIED   ? "refused (refused while held)"
							    : "refused";
			refused = 1;
			expired = a == HTTP_GATE_EXPIRED;
			if (a == HTTP_GATE_GONE)
				report(p, "the client of the held call to %s hung up: refused, never sent", tool ? tool : "a tool");
		}
		if (hc.held && p->cfg.hold_event) {
			cJSON *hd = cJSON_CreateObject();
			cJSON_AddStringToObject(hd, "event", "hold_done");
			cJSON_AddStringToObject(hd, "approval_id", id);
			cJSON_AddStringToObject(hd, "outcome", outcome);
			p->cfg.hold_event(p->cfg.ctx, hd);
			cJSON_Delete(hd);
		}
	}
	cJSON *f = cJSON_CreateObject();
	cJSON_AddNumberToObject(f, "request_seq", (double)seq);
	if (tool)
		cJSON_AddStringToObject(f, "tool", tool);
	cJSON_AddStringToObject(f, "mode", p->cfg.enforce ? "enforce" : "audit");
	cJSON_AddStringToObject(f, "decision", gate_decision_name(d));
	cJSON_AddStringToObject(f, "outcome", outcome);
	if (refused && id[0])
		cJSON_AddStringToObject(f, "approval_id", id);
	cJSON_AddStringToObject(f, "decided_by", by[0] ? by : "policy");
	cJSON_AddBoolToObject(f, "remote", !p->cfg.local_root);
	cJSON_AddItemToObject(f, "plan", effect_plan_json(plan));
	if (refused) {
		/* the tool error the client gets instead of the call's result */
		struct buf text = {0};
		if (expired)
			buf_printf(&text, "belay held the call to %s for %u s and nobody approved it (hold_expired): refused "
					  "(%s).", tool ? tool : "this tool", p->cfg.hold_s, gate_decision_name(d));
		else
			buf_printf(&text, "belay refused the call to %s (%s).", tool ? tool : "this tool",
				   gate_decision_name(d));
		for (size_t i = 0; i < effect_plan_reason_count(plan); i++)
			buf_printf(&text, " %s", effect_plan_reason(plan, i));
		if (id[0])
			buf_printf(&text, " To let this exact call through once: belay approve %s", id);
		cJSON *r = cJSON_CreateObject();
		cJSON_AddStringToObject(r, "jsonrpc", "2.0");
		const cJSON *rid = cJSON_GetObjectItemCaseSensitive(m, "id");
		cJSON_AddItemToObject(r, "id", rid ? cJSON_Duplicate(rid, 1) : cJSON_CreateNull());
		cJSON *res = cJSON_AddObjectToObject(r, "result");
		cJSON *c = cJSON_CreateObject();
		cJSON_AddStringToObject(c, "type", "text");
		cJSON_AddStringToObject(c, "text", buf_cstr(&text));
		cJSON_AddItemToArray(cJSON_AddArrayToObject(res, "content"), c);
		cJSON_AddBoolToObject(res, "isError", 1);
		buf_free(&text);
		if (!*refusals)
			*refusals = cJSON_CreateArray();
		cJSON_AddItemToArray(*refusals, r);
	}
	effect_plan_free(plan);
	http_run_decision(run->run, f);
}

/* The effect plans of the tools/call requests in a client message (recorded at seq). In
 * enforce mode, the answer belay sends instead of forwarding it when the gate refused a call
 * in it (new string: one JSON-RPC message, or an array for a batch), else NULL. A batch with
 * a refused call is refused whole: nothing of it is forwarded, and every request in it is
 * answered, each refused call with its refusal and every other request with an error saying
 * so (a client waits for an answer to each of its requests). */
static char *plan_calls(struct http_proxy *p, struct hp_run *run, const char *body, size_t len, uint64_t seq,
			int client_fd)
{
	if (!memmem(body, len, "tools/call", 10))
		return NULL;
	cJSON *o = cJSON_ParseWithLength(body, len), *refusals = NULL;
	int batch = cJSON_IsArray(o);
	if (batch) {
		for (const cJSON *m = o->child; m; m = m->next)
			plan_call(p, run, m, seq, client_fd, &refusals);
	} else if (cJSON_IsObject(o)) {
		plan_call(p, run, o, seq, client_fd, &refusals);
	}
	if (refusals && batch) { /* every request of the batch gets its answer, in the batch's order */
		cJSON *all = cJSON_CreateArray();
		for (const cJSON *m = o->child; m; m = m->next) {
			const cJSON *id = cJSON_GetObjectItemCaseSensitive(m, "id");
			if (!id || !cJSON_IsString(cJSON_GetObjectItemCaseSensitive(m, "method")))
				continue; /* a notification or a response: nothing answers it */
			cJSON *mine = NULL;
			for (cJSON *r = refusals->child; r && !mine; r = r->next)
				if (cJSON_Compare(cJSON_GetObjectItemCaseSensitive(r, "id"), id, 1))
					mine = r;
			if (mine) {
				cJSON_DetachItemViaPointer(refusals, mine);
				cJSON_AddItemToArray(all, mine);
				continue;
			}
			cJSON *r = cJSON_CreateObject();
			cJSON_AddStringToObject(r, "jsonrpc", "2.0");
			cJSON_AddItemToObject(r, "id", cJSON_Duplicate(id, 1));
			cJSON *err = cJSON_AddObjectToObject(r, "error");
			cJSON_AddNumberToObject(err, "code", -32600);
			cJSON_AddStringToObject(err, "message", "belay did not send this request: a call in the same batch was refused, "
								"and a batch is sent whole or not at all");
			cJSON_AddItemToArray(all, r);
		}
		cJSON_Delete(refusals);
		refusals = all;
	}
	cJSON_Delete(o);
	if (!refusals)
		return NULL;
	char *out = batch || cJSON_GetArraySize(refusals) > 1 ? cJSON_PrintUnformatted(refusals)
									 : cJSON_PrintUnformatted(refusals->child);
	cJSON_Delete(refusals);
	return out;
}

/* Upstream thread, x->mu held: one block of an event stream. */
static int on_block(void *ctx, const struct sse_block *b)
{
	struct hp_xfer *x = ctx;
	struct http_proxy *p = x->p;
	if (b->dispatched && !strcmp(b->type, "endpoint")) {
		/* the old transport: the client must post to belay, never upstream */
		char tok[HTTP_GUARD_TOKEN_HEX + 1];
		if (http_guard_random_hex(tok, HTTP_GUARD_TOKEN_HEX) != 0)
			return BELAY_EREFUSED;
		char *target = http_hdr_resolve(x->url, b->data);
		if (!http_hdr_same_origin(target, x->url)) {
			/* the SDK's client refuses it too: a message endpoint elsewhere than the
			 * server would send the agent's messages to a third party */
			cJSON *f = fact("endpoint_refused", x);
			char *rec = http_hdr_redact_url(target);
			cJSON_AddStringToObject(f, "upstream", rec);
			free(rec);
			http_run_fact(x->run->run, f);
			free(target);
			return 0; /* the event is not forwarded */
		}
		struct hp_token *t = xcalloc(1, sizeof *t);
		memcpy(t->token, tok, sizeof tok);
		t->url = target;
		t->run = x->run;
		cJSON *f = fact("endpoint", x);
		char *rec = http_hdr_redact_url(t->url);
		cJSON_AddStringToObject(f, "upstream", rec);
		free(rec);
		char *mine = xasprintf("/m/%s", tok);
		cJSON_AddStringToObject(f, "rewritten", mine); /* without the secret */
		free(mine);
		http_run_fact(x->run->run, f);
		pthread_mutex_lock(&p->mu);
		t->next = p->tokens;
		p->tokens = t;
		pthread_mutex_unlock(&p->mu);
		buf_printf(&x->out, "event: endpoint\ndata: /%s/m/%s\n\n", p->secret, tok);
		return 0;
	}
	int message = b->dispatched && !strcmp(b->type, "message") && b->data_len > 0;
	if (b->has_id || b->retry >= 0 || (b->dispatched && !message)) {
		cJSON *f = fact("sse", x);
		if (b->has_id)
			cJSON_AddStringToObject(f, "id", b->id);
		if (b->retry >= 0)
			cJSON_AddNumberToObject(f, "retry", (double)b->retry);
		if (b->dispatched && !message && !b->data_len) {
			cJSON_AddBoolToObject(f, "empty", 1); /* a resumption point without a message */
		} else if (b->dispatched && !message) {
			/* not a JSON-RPC message: its type and hash only */
			char h[72];
			sha256_tagged(b->data, b->data_len, h);
			cJSON_AddStringToObject(f, "type", b->type);
			cJSON_AddStringToObject(f, "data_sha256", h);
		}
		http_run_fact(x->run->run, f);
	}
	if (message) {
		http_run_frame(x->run->run, "s2c", b->data, b->data_len);
		note_tools(p, x->run, b->data, b->data_len);
		x->events++;
	}
	buf_append(&x->out, b->raw, b->raw_len);
	return 0;
}

/* Upstream thread. */
static size_t on_body(char *data, size_t size, size_t n, void *ctx)
{
	struct hp_xfer *x = ctx;
	size_t len = size * n;
	pthread_mutex_lock(&x->mu);
	if (x->cancelled) {
		pthread_mutex_unlock(&x->mu);
		return 0; /* aborts the transfer */
	}
	if (x->is_sse) {
		if (x->out.len > HP_OUT_HIGH) {
			x->paused = 1;
			x->pauses++;
			pthread_mutex_unlock(&x->mu);
			return CURL_WRITEFUNC_PAUSE;
		}
		struct err e = {0};
		int rc = sse_parse_feed(&x->sse, data, len, on_block, x, &e);
		if (rc) {
			cJSON *f = fact("stream_error", x);
			cJSON_AddStringToObject(f, "error", e.msg[0] ? e.msg : "a block of the stream could not be handled");
			http_run_fact(x->run->run, f);
			x->failed = 1;
			x->signal_due = 1;
			pthread_mutex_unlock(&x->mu);
			return 0;
		}
	} else {
		if (x->body_in.len + len > HP_BODY_MAX) {
			x->failed = 1;
			pthread_mutex_unlock(&x->mu);
			return 0;
		}
		buf_append(&x->body_in, data, len);
	}
	if (x->is_sse)
		x->signal_due = 1;
	pthread_mutex_unlock(&x->mu);
	return len;
}

static char *trimmed(const char *s, size_t n)
{
	while (n && (*s == ' ' || *s == '\t'))
		s++, n--;
	while (n && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r' || s[n - 1] == '\n'))
		n--;
	return xstrndup(s, n);
}

static const char *rh_get(const struct hp_xfer *x, const char *name)
{
	for (size_t i = 0; i < x->nrh; i++)
		if (!strcasecmp(x->rh[i].name, name))
			return x->rh[i].value;
	return NULL;
}

/* Upstream thread: one header line of the response. */
static size_t on_header(char *line, size_t size, size_t n, void *ctx)
{
	struct hp_xfer *x = ctx;
	size_t len = size * n;
	pthread_mutex_lock(&x->mu);
	if (len >= 5 && !memcmp(line, "HTTP/", 5)) {
		for (size_t i = 0; i < x->nrh; i++) {
			free(x->rh[i].name);
			free(x->rh[i].value);
		}
		x->nrh = 0;
	} else if (len <= 2 && (len == 0 || line[0] == '\r' || line[0] == '\n')) {
		long code = 0;
		curl_easy_getinfo(x->h, CURLINFO_RESPONSE_CODE, &code);
		if (code >= 200) {
			x->status = code;
			const char *ct = rh_get(x, "content-type"), *sid = rh_get(x, "mcp-session-id");
			x->content_type = ct ? xstrdup(ct) : NULL;
			x->sid = sid ? xstrdup(sid) : NULL;
			x->is_sse = ct && !strncasecmp(ct, "text/event-stream", 17);
			cJSON *f = fact("response", x);
			cJSON_AddNumberToObject(f, "status", (double)code);
			if (ct)
				cJSON_AddStringToObject(f, "content_type", ct);
			if (sid)
				cJSON_AddStringToObject(f, "session_id", sid);
			const char *pv = rh_get(x, "mcp-protocol-version");
			if (pv)
				cJSON_AddStringToObject(f, "protocol_version", pv);
			cJSON *cred = cJSON_CreateArray();
			for (size_t i = 0; i < x->nrh; i++)
				if (http_hdr_credential(x->rh[i].name, x->rh[i].value))
					http_hdr_add_credential(cred, x->rh[i].name, x->rh[i].value);
			if (cJSON_GetArraySize(cred))
				cJSON_AddItemToObject(f, "credentials", cred);
			else
				cJSON_Delete(cred);
			const char *www = rh_get(x, "www-authenticate");
			if (code == 403 && www && strstr(www, "insufficient_scope"))
				cJSON_AddStringToObject(f, "refused", "the server wants more scope than belay's OAuth token "
								   "has: the client got a 403 naming `belay http login --scope`");
			else if (code == 401 && www)
				cJSON_AddStringToObject(f, "refused", x->bearer ? "the server refused belay's OAuth token: the "
										  "client got a 403 naming it"
									: "the server asks for OAuth and belay holds no "
									  "token for it: the client got a 403 naming "
									  "`belay http login`");
			http_run_fact(x->run->run, f);
			if (sid) {
				struct http_proxy *p = x->p;
				pthread_mutex_lock(&p->mu);
				if (!x->run->sid) {
					x->run->sid = xstrdup(sid);
					x->run->conn = NULL;
				}
				pthread_mutex_unlock(&p->mu);
			}
			x->headers_done = 1;
			x->signal_due = 1;
			pthread_mutex_unlock(&x->mu);
			return len;
		}
	} else {
		const char *colon = memchr(line, ':', len);
		if (colon) {
			x->rh = xrealloc(x->rh, (x->nrh + 1) * sizeof *x->rh);
			x->rh[x->nrh].name = trimmed(line, (size_t)(colon - line));
			x->rh[x->nrh].value = trimmed(colon + 1, len - (size_t)(colon + 1 - line));
			x->nrh++;
		}
	}
	pthread_mutex_unlock(&x->mu);
	return len;
}

/* Upstream thread: the transfer ended (done, failed or cancelled). */
static void xfer_finish(struct hp_xfer *x, CURLcode res)
{
	pthread_mutex_lock(&x->mu);
	if (res != CURLE_OK && !x->cancelled)
		x->failed = 1;
	if (!x->cancelled) {
		if (!x->is_sse && x->headers_done && x->body_in.len && !x->failed) {
			const char *ct = x->content_type;
			if (ct && !strncasecmp(ct, "application/json", 16)) {
				http_run_frame(x->run->run, "s2c", x->body_in.p, x->body_in.len);
				note_tools(x->p, x->run, x->body_in.p, x->body_in.len);
			} else {
				cJSON *f = fact("body", x);
				char h[72];
				sha256_tagged(x->body_in.p, x->body_in.len, h);
				cJSON_AddNumberToObject(f, "bytes", (double)x->body_in.len);
				cJSON_AddStringToObject(f, "sha256", h);
				http_run_fact(x->run->run, f);
			}
			buf_append(&x->out, x->body_in.p, x->body_in.len);
		}
		if (x->failed || x->is_sse) {
			cJSON *f = fact(x->failed ? (x->headers_done ? "stream_error" : "upstream_error") : "stream_end", x);
			if (x->failed)
				cJSON_AddStringToObject(f, "error", x->errbuf[0] ? x->errbuf : curl_easy_strerror(res));
			if (x->is_sse) {
				cJSON_AddNumberToObject(f, "messages", (double)x->events);
				if (x->pauses)
					cJSON_AddNumberToObject(f, "paused", (double)x->pauses);
				if (sse_parse_pending(&x->sse))
					cJSON_AddNumberToObject(f, "unfinished_bytes", (double)sse_parse_pending(&x->sse));
			}
			http_run_fact(x->run->run, f);
		}
	} else {
		http_run_fact(x->run->run, fact("client_gone", x));
	}
	x->done = 1;
	x->signal_due = 0;
	pthread_mutex_unlock(&x->mu);
	xfer_signal(x);
}

static void *upstream_main(void *arg)
{
	struct http_proxy *p = arg;
	struct hp_xfer *active = NULL;
	for (;;) {
		pthread_mutex_lock(&p->mu);
		struct hp_xfer *in = p->inbox;
		p->inbox = NULL;
		pthread_mutex_unlock(&p->mu);
		while (in) {
			struct hp_xfer *x = in;
			in = in->next;
			x->next = active;
			active = x;
			curl_multi_add_handle(p->multi, x->h);
		}
		int quitting = atomic_load(&p->quitting);
		/* cancelled transfers leave; paused ones the client caught up with resume */
		for (struct hp_xfer **pp = &active; *pp;) {
			struct hp_xfer *x = *pp;
			pthread_mutex_lock(&x->mu);
			int cancel = x->cancelled || quitting, resume = x->want_unpause && x->paused;
			if (resume)
				x->paused = x->want_unpause = 0;
			pthread_mutex_unlock(&x->mu);
			if (cancel) {
				pthread_mutex_lock(&x->mu);
				x->cancelled = 1;
				pthread_mutex_unlock(&x->mu);
				curl_multi_remove_handle(p->multi, x->h);
				xfer_finish(x, CURLE_ABORTED_BY_CALLBACK);
				*pp = x->next;
				struct hp_run *run = x->run;
				xfer_unref(x);
				run_unref(p, run, NULL);
				continue;
			}
			if (resume)
				curl_easy_pause(x->h, CURLPAUSE_CONT);
			pp = &x->next;
		}
		if (quitting && !active && atomic_load(&p->listener_gone)) {
			pthread_mutex_lock(&p->mu);
			int more = p->inbox != NULL;
			pthread_mutex_unlock(&p->mu);
			if (!more)
				break; /* nothing can come any more: every transfer is finished */
			continue;
		}
		int running = 0;
		curl_multi_perform(p->multi, &running);
		CURLMsg *m;
		int left;
		while ((m = curl_multi_info_read(p->multi, &left))) {
			if (m->msg != CURLMSG_DONE)
				continue;
			struct hp_xfer *x = NULL;
			curl_easy_getinfo(m->easy_handle, CURLINFO_PRIVATE, (char **)&x);
			CURLcode res = m->data.result;
			curl_multi_remove_handle(p->multi, x->h);
			xfer_finish(x, res);
			for (struct hp_xfer **pp = &active; *pp; pp = &(*pp)->next)
				if (*pp == x) {
					*pp = x->next;
					break;
				}
			struct hp_run *run = x->run;
			xfer_unref(x);
			run_unref(p, run, NULL);
		}
		/* one wake-up per transfer and round, after all its callbacks ran: an answer whose
		 * headers, events and end came in one read is handed over whole, once */
		for (struct hp_xfer *x = active; x; x = x->next) {
			pthread_mutex_lock(&x->mu);
			int due = x->signal_due;
			x->signal_due = 0;
			pthread_mutex_unlock(&x->mu);
			if (due)
				xfer_signal(x);
		}
		curl_multi_poll(p->multi, NULL, 0, 1000, NULL);
	}
	return NULL;
}

/*==== the reaper ====*/

/* Under p->mu: takes the runs that are over off the list. */
static struct hp_run *take_over(struct http_proxy *p, int all)
{
	struct hp_run *out = NULL;
	uint64_t now = now_ns(), idle = (uint64_t)p->cfg.idle_s * 1000000000u;
	for (struct hp_run **pp = &p->runs; *pp;) {
		struct hp_run *h = *pp;
		if (h->refs == 0 && (all || h->ending || (idle && now - h->last_ns > idle))) {
			if (!h->ending)
				h->ending = all ? "shutdown" : "idle";
			*pp = h->next;
			h->next = out;
			out = h;
			for (struct hp_token **tp = &p->tokens; *tp;) {
				struct hp_token *t = *tp;
				if (t->run == h) {
					*tp = t->next;
					free(t->url);
					free(t);
				} else {
					tp = &t->next;
				}
			}
			continue;
		}
		pp = &h->next;
	}
	return out;
}

static void close_runs(struct http_proxy *p, struct hp_run *list)
{
	while (list) {
		struct hp_run *h = list;
		list = h->next;
		char *path = xstrdup(http_run_trace_path(h->run));
		struct err e = {0};
		if (http_run_close(h->run, h->ending, &e) != 0)
			report(p, "closing the trace %s: %s", path, e.msg);
		if (p->cfg.run_event)
			p->cfg.run_event(p->cfg.ctx, "close", path);
		free(path);
		free(h->sid);
		cJSON_Delete(h->tools);
		free(h);
	}
}

static void *reaper_main(void *arg)
{
	struct http_proxy *p = arg;
	pthread_mutex_lock(&p->mu);
	while (!atomic_load(&p->quitting)) {
		struct hp_run *over = take_over(p, 0);
		if (over) {
			pthread_mutex_unlock(&p->mu);
			close_runs(p, over);
			pthread_mutex_lock(&p->mu);
			continue;
		}
		struct timespec until;
		clock_gettime(CLOCK_REALTIME, &until);
		until.tv_sec += 1;
		pthread_cond_timedwait(&p->reap, &p->mu, &until);
	}
	pthread_mutex_unlock(&p->mu);
	return NULL;
}

/*==== the listener ====*/

struct hp_req {
	int handled; /* a response was queued */
	enum http_route route;
	char token[HTTP_GUARD_TOKEN_HEX + 1];
	struct buf body;
	struct hp_xfer *x;
	int is_delete;
};

static enum MHD_Result refuse(struct MHD_Connection *c, unsigned status, const char *why)
{
	char *text = xasprintf("belay: %s\n", why);
	struct MHD_Response *r = MHD_create_response_from_buffer(strlen(text), text, MHD_RESPMEM_MUST_FREE);
	MHD_add_response_header(r, "Content-Type", "text/plain; charset=utf-8");
	enum MHD_Result rc = MHD_queue_response(c, status, r);
	MHD_destroy_response(r);
	return rc;
}

struct hdr_walk {
	struct hp_xfer *x;
	cJSON *cred;
	int drop_auth; /* belay sends its own Authorization (OAuth) */
};

static enum MHD_Result walk_header(void *ctx, enum MHD_ValueKind kind, const char *name, const char *value)
{
	struct hdr_walk *w = ctx;
	(void)kind;
	if (!value)
		value = "";
	if (http_hdr_hop(name) || !strcasecmp(name, "origin") || !strcasecmp(name, "referer") ||
	    !strcasecmp(name, "accept-encoding") || !strcasecmp(name, "expect"))
		return MHD_YES;
	if (http_hdr_credential(name, value))
		http_hdr_add_credential(w->cred, name, value);
	if (w->drop_auth && !strcasecmp(name, "authorization"))
		return MHD_YES;
	char *line = *value ? xasprintf("%s: %s", name, value) : xasprintf("%s;", name);
	w->x->hdrs = curl_slist_append(w->x->hdrs, line);
	free(line);
	return MHD_YES;
}

/* Waits for the upstream side (connection thread). 0 when `ready` holds; -1 when the client
 * hung up or the proxy stops. x->mu is not held. */
static int xfer_wait(struct hp_xfer *x, int (*ready)(struct hp_xfer *))
{
	for (;;) {
		pthread_mutex_lock(&x->mu);
		int ok = ready(x);
		pthread_mutex_unlock(&x->mu);
		if (ok)
			return 0;
		struct pollfd fds[3] = {
			{.fd = x->efd, .events = POLLIN},
			{.fd = x->p->quit_efd, .events = POLLIN},
			{.fd = x->client_fd, .events = POLLRDHUP},
		};
		int n = poll(fds, x->client_fd >= 0 ? 3 : 2, -1);
		if (n < 0 && errno != EINTR)
			return -1;
		if (fds[1].revents)
			return -1;
		if (x->client_fd >= 0 && (fds[2].revents & (POLLRDHUP | POLLHUP | POLLERR)))
			return -1;
		if (fds[0].revents & POLLIN) {
			uint64_t v;
			ssize_t r = read(x->efd, &v, sizeof v);
			(void)r;
		}
	}
}

static int ready_headers(struct hp_xfer *x)
{
	return (x->headers_done && (x->is_sse || x->done)) || x->done;
}

static int ready_out(struct hp_xfer *x)
{
	return x->out.len || x->done;
}

static ssize_t read_stream(void *cls, uint64_t pos, char *buf, size_t max)
{
	struct hp_xfer *x = cls;
	(void)pos;
	if (xfer_wait(x, ready_out) != 0)
		return MHD_CONTENT_READER_END_WITH_ERROR;
	pthread_mutex_lock(&x->mu);
	ssize_t n;
	if (x->out.len) {
		size_t k = x->out.len < max ? x->out.len : max;
		memcpy(buf, x->out.p, k);
		buf_consume(&x->out, k);
		n = (ssize_t)k;
		if (x->paused && x->out.len < HP_OUT_LOW && !x->want_unpause) {
			x->want_unpause = 1;
			curl_multi_wakeup(x->p->multi);
		}
	} else {
		n = x->failed ? MHD_CONTENT_READER_END_WITH_ERROR : MHD_CONTENT_READER_END_OF_STREAM;
	}
	pthread_mutex_unlock(&x->mu);
	return n;
}

static void free_stream(void *cls)
{
	(void)cls; /* the request's completion drops the transfer */
}

/* Whether a request body is (or holds) an initialize request. */
static int is_initialize(const char *body, size_t len)
{
	cJSON *o = cJSON_ParseWithLength(body, len);
	int yes = 0;
	if (cJSON_IsArray(o)) {
		for (cJSON *m = o->child; m && !yes; m = m->next)
			yes = cJSON_IsString(cJSON_GetObjectItemCaseSensitive(m, "method")) &&
			      !strcmp(cJSON_GetObjectItemCaseSensitive(m, "method")->valuestring, "initialize");
	} else if (cJSON_IsObject(o)) {
		cJSON *m = cJSON_GetObjectItemCaseSensitive(o, "method");
		yes = cJSON_IsString(m) && !strcmp(m->valuestring, "initialize");
	}
	cJSON_Delete(o);
	return yes;
}

/* What the request record says of belay's OAuth token: its hash, whether it was just
 * refreshed, or why it could not be (never the token). */
static void hp_oauth_fact(cJSON *f, const char *bearer, int refreshed, const char *error)
{
	cJSON *o = cJSON_AddObjectToObject(f, "oauth");
	if (bearer) {
		char h[72];
		sha256_tagged(bearer, strlen(bearer), h);
		cJSON_AddStringToObject(o, "authorization_sha256", h);
		cJSON_AddBoolToObject(o, "refreshed", refreshed);
	}
	if (error)
		cJSON_AddStringToObject(o, "error", error);
}

/* The upstream answered 401 with a challenge: the agent gets a 403 naming what to do. */
static enum MHD_Result hp_oauth_refuse(struct http_proxy *p, struct MHD_Connection *c, struct hp_xfer *x)
{
	char why[1024];
	if (x->status == 403) {
		const char *www = rh_get(x, "www-authenticate");
		const char *sc = strstr(www, "scope=\"");
		const char *scope = sc ? sc + 7 : "SCOPES"; /* what a new login must ask for */
		int n = sc ? (int)strcspn(scope, "\"'") : 6;
		snprintf(why, sizeof why,
			 "the server wants a token with more scope than belay's (403 insufficient_scope): run `belay "
			 "http login --scope '%.*s' %s` in a shell, then retry",
			 n, scope, p->upstream_rec);
	} else if (x->bearer) {
		http_oauth_rejected(p->cfg.oauth, x->bearer);
		snprintf(why, sizeof why,
			 "the server refused belay's OAuth token (401); belay refreshes it at the next request: retry, "
			 "and if it is refused again run `belay http login %s` in a shell",
			 p->upstream_rec);
	} else {
		snprintf(why, sizeof why,
			 "the server asks for OAuth authorization (401 with WWW-Authenticate) and belay holds no token "
			 "for it: belay is the OAuth client, not the agent; run `belay http login %s` in a shell, then "
			 "retry (docs/HTTP.md)",
			 p->upstream_rec);
	}
	report(p, "%s", why);
	return refuse(c, MHD_HTTP_FORBIDDEN, why);
}

/* A transfer of `run` (whose refs it takes, two: the connection side and the upstream
 * side), owning url. Under p->mu (the run's stream count). */
static struct hp_xfer *xfer_new(struct http_proxy *p, struct hp_run *run, const char *method, char *url, int client_fd)
{
	run->refs += 2;
	run->last_ns = now_ns();
	struct hp_xfer *x = xcalloc(1, sizeof *x);
	x->stream = ++run->next_stream;
	x->p = p;
	x->run = run;
	x->method = method;
	x->url = url;
	x->refs = 2;
	x->efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	pthread_mutex_init(&x->mu, NULL);
	sse_parse_init(&x->sse, 0);
	x->client_fd = client_fd;
	return x;
}

/* Hands a transfer whose request is recorded (url, method, headers, body set) to the
 * upstream thread. Connection thread. */
static void xfer_submit(struct http_proxy *p, struct hp_xfer *x)
{
	x->h = curl_easy_init();
	curl_easy_setopt(x->h, CURLOPT_URL, x->url);
	curl_easy_setopt(x->h, CURLOPT_PRIVATE, x);
	curl_easy_setopt(x->h, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(x->h, CURLOPT_ERRORBUFFER, x->errbuf);
	curl_easy_setopt(x->h, CURLOPT_HTTPHEADER, x->hdrs);
	curl_easy_setopt(x->h, CURLOPT_HEADERFUNCTION, on_header);
	curl_easy_setopt(x->h, CURLOPT_HEADERDATA, x);
	curl_easy_setopt(x->h, CURLOPT_WRITEFUNCTION, on_body);
	curl_easy_setopt(x->h, CURLOPT_WRITEDATA, x);
	curl_easy_setopt(x->h, CURLOPT_PROTOCOLS_STR, "http,https");
	curl_easy_setopt(x->h, CURLOPT_FOLLOWLOCATION, 0L);
	http_upstream_fd_use(x->h, &p->cfg.upstream_fd);
	if (!strcmp(x->method, "POST")) {
		curl_easy_setopt(x->h, CURLOPT_POSTFIELDS, x->body);
		curl_easy_setopt(x->h, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)x->body_len);
	} else if (!strcmp(x->method, "DELETE")) {
		curl_easy_setopt(x->h, CURLOPT_CUSTOMREQUEST, "DELETE");
	} else {
		curl_easy_setopt(x->h, CURLOPT_HTTPGET, 1L);
	}
	pthread_mutex_lock(&p->mu);
	x->next = p->inbox;
	p->inbox = x;
	pthread_mutex_unlock(&p->mu);
	curl_multi_wakeup(p->multi);
}

/* The upstream refused belay's own token (401) before it expired (revoked, or its server
 * restarted): the token is refreshed and the request sent again, once, as a transfer of its
 * own recorded with retry_of (the server never acted on the refused one: its messages are
 * not recorded again). NULL when no other token can be had: the agent is then refused.
 * Connection thread. */
static struct hp_xfer *hp_oauth_retry(struct http_proxy *p, struct hp_xfer *x)
{
	http_oauth_rejected(p->cfg.oauth, x->bearer);
	char *bearer = NULL;
	int refreshed = 0;
	struct err e = {0};
	if (http_oauth_bearer(p->cfg.oauth, &bearer, &refreshed, &e) != 0 || !bearer || !strcmp(bearer, x->bearer)) {
		if (bearer)
			explicit_bzero(bearer, strlen(bearer));
		free(bearer);
		return NULL;
	}
	pthread_mutex_lock(&p->mu);
	struct hp_xfer *y = xfer_new(p, x->run, x->method, xstrdup(x->url), x->client_fd);
	pthread_mutex_unlock(&p->mu);
	y->bearer = bearer;
	for (const struct curl_slist *h = x->hdrs; h; h = h->next)
		if (strncasecmp(h->data, "Authorization:", 14))
			y->hdrs = curl_slist_append(y->hdrs, h->data);
	char *line = xasprintf("Authorization: %s", bearer);
	y->hdrs = curl_slist_append(y->hdrs, line);
	explicit_bzero(line, strlen(line));
	free(line);
	if (x->body) {
		y->body = xmalloc(x->body_len + 1);
		memcpy(y->body, x->body, x->body_len);
		y->body[x->body_len] = 0;
		y->body_len = x->body_len;
	}
	cJSON *f = fact("request", y);
	hp_oauth_fact(f, bearer, refreshed, NULL);
	cJSON_AddStringToObject(f, "method", y->method);
	cJSON_AddNumberToObject(f, "retry_of", (double)x->stream);
	http_run_fact(y->run->run, f);
	report(p, "the server refused belay's OAuth token (401): belay refreshed it and sent the request again");
	xfer_submit(p, y);
	return y;
}

static enum MHD_Result forward(struct http_proxy *p, struct MHD_Connection *c, struct hp_req *q, const char *method)
{
	const char *sid = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Mcp-Session-Id");
	const void *conn_key = c;
	const union MHD_ConnectionInfo *ci = MHD_get_connection_info(c, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
	if (ci && ci->socket_context)
		conn_key = ci->socket_context;
	char *url = NULL;
	struct hp_run *run = NULL;
	pthread_mutex_lock(&p->mu);
	if (q->route == HTTP_ROUTE_MESSAGE) {
		for (struct hp_token *t = p->tokens; t; t = t->next)
			if (!strcmp(t->token, q->token) && !t->run->ending) {
				run = t->run;
				url = xstrdup(t->url);
				break;
			}
		if (!run) {
			pthread_mutex_unlock(&p->mu);
			return refuse(c, MHD_HTTP_NOT_FOUND, "no open event stream has this message endpoint");
		}
	} else {
		url = xstrdup(p->upstream);
		if (sid && *sid) {
			run = run_by_sid(p, sid);
			if (!run && (run = run_new(p, "session")))
				run->sid = xstrdup(sid);
		} else if (!strcmp(method, "POST") && is_initialize(q->body.p ? q->body.p : "", q->body.len)) {
			if ((run = run_new(p, "initialize")))
				run->conn = conn_key;
		} else {
			run = run_by_conn(p, conn_key);
			if (!run && (run = run_new(p, !strcmp(method, "GET") ? "stream" : "connection")))
				run->conn = conn_key;
		}
		if (!run) {
			pthread_mutex_unlock(&p->mu);
			free(url);
			return refuse(c, MHD_HTTP_SERVICE_UNAVAILABLE, "cannot record this run (the proxy's log says why), "
								       "so it is not forwarded");
		}
	}
	const union MHD_ConnectionInfo *fdi = MHD_get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD);
	struct hp_xfer *x = xfer_new(p, run, method, url, fdi ? fdi->connect_fd : -1);
	pthread_mutex_unlock(&p->mu);
	q->x = x;
	q->is_delete = !strcmp(method, "DELETE");

	/* belay's own OAuth token (http_oauth.h; refreshed here when due) replaces the agent's */
	int refreshed = 0;
	struct err oe = {0};
	int oauth_rc = p->cfg.oauth ? http_oauth_bearer(p->cfg.oauth, &x->bearer, &refreshed, &oe) : 0;
	/* the request, recorded before it is forwarded */
	struct hdr_walk w = {.x = x, .cred = cJSON_CreateArray(), .drop_auth = x->bearer != NULL};
	MHD_get_connection_values(c, MHD_HEADER_KIND, walk_header, &w);
	x->hdrs = curl_slist_append(x->hdrs, "Expect:");
	cJSON *f = fact("request", x);
	if (x->bearer || oauth_rc)
		hp_oauth_fact(f, x->bearer, refreshed, oauth_rc ? oe.msg : NULL);
	if (refreshed || oauth_rc)
		report(p, "%s", oauth_rc ? oe.msg : "refreshed belay's OAuth token (saved for the next start)");
	cJSON_AddStringToObject(f, "method", method);
	if (q->route == HTTP_ROUTE_MESSAGE)
		cJSON_AddStringToObject(f, "endpoint", "message");
	static const char *const facts[][2] = {{"Mcp-Session-Id", "session_id"},
					       {"MCP-Protocol-Version", "protocol_version"},
					       {"Content-Type", "content_type"},
					       {"Accept", "accept"},
					       {"Last-Event-ID", "last_event_id"}};
	for (size_t i = 0; i < sizeof facts / sizeof *facts; i++) {
		const char *v = MHD_lookup_connection_value(c, MHD_HEADER_KIND, facts[i][0]);
		if (v)
			cJSON_AddStringToObject(f, facts[i][1], v);
	}
	if (cJSON_GetArraySize(w.cred))
		cJSON_AddItemToObject(f, "credentials", w.cred);
	else
		cJSON_Delete(w.cred);
	http_run_fact(run->run, f);
	if (x->bearer) {
		char *line = xasprintf("Authorization: %s", x->bearer);
		x->hdrs = curl_slist_append(x->hdrs, line);
		explicit_bzero(line, strlen(line));
		free(line);
	}
	char *refusal = NULL;
	if (q->body.len) {
		struct trace_rec *defer = NULL;
		uint64_t seq = p->cfg.prestate && has_tools_call(q->body.p, q->body.len)
				       ? http_run_frame_deferred(run->run, q->body.p, q->body.len, &defer)
				       : http_run_frame(run->run, "c2s", q->body.p, q->body.len);
		refusal = plan_calls(p, run, q->body.p, q->body.len, seq, x->client_fd);
		if (defer) /* held until its pre-state is captured; a refused call never runs: none */
			http_run_set_handle(run->run, defer,
					    refusal ? NULL : p->cfg.prestate(p->cfg.prestate_ctx, http_run_id(run->run)));
	}
	if (refusal) {
		/* enforce mode: not forwarded; belay answers it itself */
		http_run_reply(run->run, refusal, strlen(refusal), "gate_refused");
		cJSON *rf = fact("response", x);
		cJSON_AddNumberToObject(rf, "status", 200);
		cJSON_AddStringToObject(rf, "content_type", "application/json");
		cJSON_AddStringToObject(rf, "from", "belay");
		http_run_fact(run->run, rf);
		pthread_mutex_lock(&x->mu);
		x->done = 1;
		pthread_mutex_unlock(&x->mu);
		xfer_unref(x); /* the upstream side never starts */
		run_unref(p, run, NULL);
		struct MHD_Response *r = MHD_create_response_from_buffer(strlen(refusal), refusal, MHD_RESPMEM_MUST_FREE);
		MHD_add_response_header(r, "Content-Type", "application/json");
		enum MHD_Result rc = MHD_queue_response(c, MHD_HTTP_OK, r);
		MHD_destroy_response(r);
		return rc;
	}
	if (oauth_rc || http_run_failed(run->run)) {
		pthread_mutex_lock(&x->mu);
		x->done = x->failed = 1;
		pthread_mutex_unlock(&x->mu);
		xfer_unref(x); /* the upstream side never starts */
		run_unref(p, run, NULL);
		if (oauth_rc)
			return refuse(c, MHD_HTTP_FORBIDDEN, oe.msg);
		return refuse(c, MHD_HTTP_SERVICE_UNAVAILABLE, "recording failed: belay forwards nothing it cannot record");
	}

	if (!strcmp(method, "POST")) {
		x->body = q->body.p ? q->body.p : xstrdup("");
		x->body_len = q->body.len;
		q->body = (struct buf){0};
	}
	xfer_submit(p, x);

	int retried = 0;
again:
	if (xfer_wait(x, ready_headers) != 0)
		return MHD_NO; /* the client left, or belay stops: the completion cancels the transfer */
	pthread_mutex_lock(&x->mu);
	struct MHD_Response *r;
	unsigned status;
	if (!retried && x->headers_done && x->status == 401 && x->bearer && rh_get(x, "www-authenticate")) {
		pthread_mutex_unlock(&x->mu);
		struct hp_xfer *y = hp_oauth_retry(p, x);
		if (y) {
			/* the refused transfer is over (its answer was whole): its connection side goes */
			struct hp_run *xrun = x->run;
			q->x = y;
			xfer_unref(x);
			run_unref(p, xrun, NULL);
			x = y;
			retried = 1;
			goto again;
		}
		pthread_mutex_lock(&x->mu);
	}
	if (!x->headers_done) {
		char why[CURL_ERROR_SIZE + 80];
		snprintf(why, sizeof why, "the upstream server could not be reached: %s",
			 x->errbuf[0] ? x->errbuf : "no response");
		pthread_mutex_unlock(&x->mu);
		return refuse(c, MHD_HTTP_BAD_GATEWAY, why);
	}
	if ((x->status == 401 && rh_get(x, "www-authenticate")) ||
	    (x->status == 403 && rh_get(x, "www-authenticate") && strstr(rh_get(x, "www-authenticate"), "insufficient_scope"))) {
		/* OAuth: belay is the client (http_oauth.h), never the agent; passed through, the
		 * challenge (or a step-up's, 403 insufficient_scope) would start the agent's own flow
		 * against belay's listener */
		pthread_mutex_unlock(&x->mu);
		return hp_oauth_refuse(p, c, x);
	}
	if (!x->is_sse && x->failed) {
		/* a JSON answer cut short (or over the limit): nothing of it is forwarded */
		char why[CURL_ERROR_SIZE + 80];
		snprintf(why, sizeof why, "the upstream server's answer was cut short: %s",
			 x->errbuf[0] ? x->errbuf : "over belay's 64 MiB limit");
		pthread_mutex_unlock(&x->mu);
		return refuse(c, MHD_HTTP_BAD_GATEWAY, why);
	}
	status = (unsigned)x->status;
	if (x->is_sse && !(x->done && !x->failed)) {
		r = MHD_create_response_from_callback(MHD_SIZE_UNKNOWN, 64 * 1024, read_stream, x, free_stream);
	} else {
		/* a JSON answer, or an event stream the server already ended (a POST's answer,
		 * usually): sent with its length, headers and body in one write */
		r = MHD_create_response_from_buffer(x->out.len, x->out.p ? x->out.p : "", MHD_RESPMEM_MUST_COPY);
		buf_reset(&x->out);
	}
	for (size_t i = 0; i < x->nrh; i++)
		if (!http_hdr_hop(x->rh[i].name))
			MHD_add_response_header(r, x->rh[i].name, x->rh[i].value);
	pthread_mutex_unlock(&x->mu);
	enum MHD_Result rc = MHD_queue_response(c, status, r);
	MHD_destroy_response(r);
	return rc;
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *c, const char *url, const char *method,
				  const char *version, const char *upload, size_t *upload_size, void **con_cls)
{
	struct http_proxy *p = cls;
	(void)version;
	struct hp_req *q = *con_cls;
	if (!q) {
		q = xcalloc(1, sizeof *q);
		*con_cls = q;
		q->handled = 1; /* until admitted */
		if (!http_guard_host(MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Host"), p->port))
			return refuse(c, MHD_HTTP_FORBIDDEN, "this listener answers only to its own loopback host name "
							     "(Host: 127.0.0.1:PORT or localhost:PORT)");
		if (!http_guard_origin(MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Origin"), p->port))
			return refuse(c, MHD_HTTP_FORBIDDEN, "requests from a web page's origin are refused (Origin must "
							     "be this listener's own)");
		q->route = http_guard_route(url, p->secret, q->token);
		if (q->route == HTTP_ROUTE_SECRET)
			return refuse(c, MHD_HTTP_NOT_FOUND, "not found (this listener's paths start with its secret: "
							     "`belay snippet CLIENT --http URL` writes the URL)");
		if (q->route == HTTP_ROUTE_UNKNOWN)
			return refuse(c, MHD_HTTP_NOT_FOUND, "belay serves only /SECRET/mcp (and the message endpoints it "
							     "hands out) on this listener");
		int post = !strcmp(method, "POST");
		if (!post && (q->route == HTTP_ROUTE_MESSAGE || (strcmp(method, "GET") && strcmp(method, "DELETE"))))
			return refuse(c, MHD_HTTP_METHOD_NOT_ALLOWED, "belay forwards POST, GET and DELETE only");
		q->handled = 0;
		return MHD_YES;
	}
	if (*upload_size) {
		if (!q->handled) {
			if (q->body.len + *upload_size > HP_BODY_MAX) {
				q->handled = 1;
				buf_free(&q->body);
				*upload_size = 0;
				return refuse(c, MHD_HTTP_CONTENT_TOO_LARGE, "request body over belay's limit (64 MiB)");
			}
			buf_append(&q->body, upload, *upload_size);
		}
		*upload_size = 0;
		return MHD_YES;
	}
	if (q->handled)
		return MHD_YES;
	q->handled = 1;
	return forward(p, c, q, method);
}

static void on_completed(void *cls, struct MHD_Connection *c, void **con_cls, enum MHD_RequestTerminationCode toe)
{
	struct http_proxy *p = cls;
	(void)c;
	(void)toe;
	struct hp_req *q = *con_cls;
	if (!q)
		return;
	*con_cls = NULL;
	struct hp_xfer *x = q->x;
	if (x) {
		pthread_mutex_lock(&x->mu);
		int done = x->done;
		long status = x->status;
		if (!done)
			x->cancelled = 1;
		pthread_mutex_unlock(&x->mu);
		if (!done)
			curl_multi_wakeup(p->multi);
		struct hp_run *run = x->run;
		xfer_unref(x);
		run_unref(p, run, q->is_delete && status >= 200 && status < 300 ? "delete" : NULL);
	}
	buf_free(&q->body);
	free(q);
}

struct hp_conn {
	int unused;
};

static void on_connection(void *cls, struct MHD_Connection *c, void **socket_context,
			  enum MHD_ConnectionNotificationCode toe)
{
	struct http_proxy *p = cls;
	(void)c;
	if (toe == MHD_CONNECTION_NOTIFY_STARTED) {
		*socket_context = xcalloc(1, sizeof(struct hp_conn));
		return;
	}
	void *key = *socket_context;
	pthread_mutex_lock(&p->mu);
	for (struct hp_run *h = p->runs; h; h = h->next)
		if (h->conn == key) {
			if (!h->sid && !h->ending)
				h->ending = "connection_closed";
			h->conn = NULL;
		}
	pthread_cond_signal(&p->reap);
	pthread_mutex_unlock(&p->mu);
	free(key);
	*socket_context = NULL;
}

/*==== start, stop ====*/

static void curl_once(void)
{
	curl_global_init(CURL_GLOBAL_DEFAULT);
}

int http_proxy_start(const struct http_proxy_cfg *cfg, struct http_proxy **out, struct err *e)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;
	pthread_once(&once, curl_once);
	struct http_proxy *p = xcalloc(1, sizeof *p);
	p->cfg = *cfg;
	p->upstream = xstrdup(cfg->upstream);
	p->upstream_rec = http_hdr_redact_url(cfg->upstream);
	p->secret = xstrdup(cfg->secret);
	p->trace_dir = xstrdup(cfg->trace_dir);
	p->state_dir = xstrdup(cfg->state_dir);
	pthread_mutex_init(&p->mu, NULL);
	pthread_cond_init(&p->reap, NULL);
	p->quit_efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	p->multi = curl_multi_init();

	/* the socket is bound here, so that the port is known before any listener thread runs */
	struct sockaddr_in sin = {.sin_family = AF_INET, .sin_port = htons((uint16_t)cfg->port)};
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	socklen_t sl = sizeof sin;
	int one = 1, en = 0;
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		en = errno;
	else if (setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one) != 0 ||
		 bind(fd, (struct sockaddr *)&sin, sizeof sin) != 0 || listen(fd, 64) != 0 ||
		 getsockname(fd, (struct sockaddr *)&sin, &sl) != 0)
		en = errno;
	if (!en) {
		p->port = ntohs(sin.sin_port);
		snprintf(p->listener, sizeof p->listener, "127.0.0.1:%u", p->port);
		p->mhd = MHD_start_daemon(MHD_USE_THREAD_PER_CONNECTION | MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_POLL, 0,
					  NULL, NULL, on_request, p, MHD_OPTION_LISTEN_SOCKET, fd,
					  MHD_OPTION_NOTIFY_COMPLETED, on_completed, p, MHD_OPTION_NOTIFY_CONNECTION,
					  on_connection, p, MHD_OPTION_CONNECTION_TIMEOUT, 0u, MHD_OPTION_END);
		if (!p->mhd)
			en = errno ? errno : EINVAL;
	}
	if (!p->mhd) {
		if (fd >= 0)
			close(fd);
		curl_multi_cleanup(p->multi);
		close(p->quit_efd);
		free(p->upstream);
		free(p->upstream_rec);
		free(p->secret);
		free(p->trace_dir);
		free(p->state_dir);
		pthread_mutex_destroy(&p->mu);
		pthread_cond_destroy(&p->reap);
		free(p);
		return err_set(e, -en, "cannot listen on 127.0.0.1:%u: %s", cfg->port, strerror(en));
	}
	if (cfg->enforce) {
		struct err ge = {0};
		if (http_gate_open(p->state_dir, &p->gate, &ge) != 0)
			report(p, "approvals unavailable (%s); refused calls cannot be approved", ge.msg);
	}
	pthread_create(&p->upstream_thread, NULL, upstream_main, p);
	pthread_create(&p->reaper_thread, NULL, reaper_main, p);
	*out = p;
	return 0;
}

void http_proxy_answer(struct http_proxy *p, const char *approval_id, int approve, const char *by)
{
	http_gate_answer(p->gate, approval_id, approve, by);
}

unsigned http_proxy_port(const struct http_proxy *p)
{
	return p->port;
}

void http_proxy_stop(struct http_proxy *p)
{
	atomic_store(&p->quitting, 1);
	http_gate_release(p->gate); /* a held call's thread would keep the listener from stopping */
	uint64_t one = 1;
	ssize_t w = write(p->quit_efd, &one, sizeof one);
	(void)w;
	curl_multi_wakeup(p->multi);
	MHD_stop_daemon(p->mhd);
	/* the listener's threads are gone: what they handed over is in the inbox or active, and
	 * the upstream thread finishes it all before it ends (runs then have no reference left) */
	atomic_store(&p->listener_gone, 1);
	curl_multi_wakeup(p->multi);
	pthread_join(p->upstream_thread, NULL);
	pthread_mutex_lock(&p->mu);
	pthread_cond_signal(&p->reap);
	pthread_mutex_unlock(&p->mu);
	pthread_join(p->reaper_thread, NULL);
	pthread_mutex_lock(&p->mu);
	struct hp_run *all = take_over(p, 1);
	pthread_mutex_unlock(&p->mu);
	close_runs(p, all);
	http_gate_close(p->gate);
	cJSON_Delete(p->every_run);
	cJSON_Delete(p->pending);
	curl_multi_cleanup(p->multi);
	close(p->quit_efd);
	pthread_mutex_destroy(&p->mu);
	pthread_cond_destroy(&p->reap);
	free(p->upstream);
	free(p->upstream_rec);
	free(p->secret);
	free(p->trace_dir);
	free(p->state_dir);
	free(p);
}

/*==== records from outside the HTTP exchange (a contained server's sandbox) ====*/

/* Under p->mu: what every run starts with, then what waited for a run. */
static void records_into_new_run(struct http_proxy *p, struct http_run *r)
{
	const cJSON *it;
	cJSON_ArrayForEach(it, p->every_run)
	{
		http_run_record(r, cJSON_GetArrayItem(it, 0)->valuestring, cJSON_Duplicate(cJSON_GetArrayItem(it, 1), 1));
	}
	cJSON_ArrayForEach(it, p->pending)
	{
		http_run_record(r, cJSON_GetArrayItem(it, 0)->valuestring, cJSON_Duplicate(cJSON_GetArrayItem(it, 1), 1));
	}
	cJSON_Delete(p->pending);
	p->pending = NULL;
}

/* Under p->mu: into every open run; the number of runs. */
static int record_open_runs(struct http_proxy *p, const char *kind, const cJSON *fields)
{
	int n = 0;
	for (struct hp_run *h = p->runs; h; h = h->next)
		if (!h->ending) {
			http_run_record(h->run, kind, cJSON_Duplicate(fields, 1));
			n++;
		}
	return n;
}

static void keep(cJSON **list, const char *kind, cJSON *fields)
{
	if (!*list)
		*list = cJSON_CreateArray();
	cJSON *pair = cJSON_CreateArray();
	cJSON_AddItemToArray(pair, cJSON_CreateString(kind));
	cJSON_AddItemToArray(pair, fields);
	cJSON_AddItemToArray(*list, pair);
}

void http_proxy_record(struct http_proxy *p, const char *kind, cJSON *fields)
{
	pthread_mutex_lock(&p->mu);
	if (record_open_runs(p, kind, fields) > 0)
		cJSON_Delete(fields);
	else
		keep(&p->pending, kind, fields);
	pthread_mutex_unlock(&p->mu);
}

void http_proxy_record_every_run(struct http_proxy *p, const char *kind, cJSON *fields)
{
	pthread_mutex_lock(&p->mu);
	record_open_runs(p, kind, fields);
	keep(&p->every_run, kind, fields);
	pthread_mutex_unlock(&p->mu);
}

/* A client message with a tools/call request in it (one message or a batch). */
static int has_tools_call(const char *body, size_t len)
{
	if (!memmem(body, len, "tools/call", 10))
		return 0;
	cJSON *o = cJSON_ParseWithLength(body, len);
	int found = 0;
	const cJSON *m = cJSON_IsArray(o) ? o->child : o;
	for (; m && !found; m = cJSON_IsArray(o) ? m->next : NULL) {
		const cJSON *method = cJSON_GetObjectItemCaseSensitive(m, "method");
		found = cJSON_IsString(method) && !strcmp(method->valuestring, "tools/call") &&
			cJSON_GetObjectItemCaseSensitive(m, "id") != NULL;
	}
	cJSON_Delete(o);
	return found;
}
