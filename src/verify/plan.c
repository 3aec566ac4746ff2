/* plan.c - what a trace says about how to re-execute its calls. See verify_internal.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf.h"
#include "common/jsonx.h"
#include "common/timeutil.h"
#include "common/xalloc.h"
#include "proxy/server_env.h"
#include "verify/answers.h"
#include "verify/verify_internal.h"

extern char **environ;

const struct trace_record *plan_frame_rec(const struct vctx *c, size_t frame)
{
	return frame == SIZE_MAX ? NULL : &c->t->recs[c->m.frames[frame].rec];
}

char *plan_message_text(const struct trace_record *r, int item, size_t *len)
{
	if (!r || r->truncated)
		return NULL;
	cJSON *v = cJSON_ParseWithLength(r->bytes, r->len);
	if (!v)
		return NULL;
	if (cJSON_IsArray(v)) {
		cJSON *el = cJSON_GetArrayItem(v, item);
		char *s = el ? jx_print(el) : NULL;
		cJSON_Delete(v);
		if (s)
			*len = strlen(s);
		return s;
	}
	cJSON_Delete(v);
	*len = r->len;
	return xmemdup(r->bytes, r->len);
}

char *plan_response_text(const struct vctx *c, const struct exchange *x, size_t *len)
{
	if (x->resp_seq < 0)
		return NULL;
	return plan_message_text(plan_frame_rec(c, x->resp_frame), x->resp_item, len);
}

cJSON *plan_annotations(const struct vctx *c, int64_t seq, const char *tool, int *listed)
{
	*listed = 0;
	const struct exchange *best = NULL;
	for (size_t i = 0; i < c->m.nex; i++) {
		const struct exchange *x = &c->m.ex[i];
		if (x->origin == DIR_C2S && x->method && !strcmp(x->method, "tools/list") && x->resp_seq >= 0 &&
		    x->resp_seq < seq && !x->protocol_error)
			best = x;
	}
	if (!best || !tool)
		return NULL;
	size_t len;
	char *text = plan_response_text(c, best, &len);
	cJSON *msg = text ? cJSON_ParseWithLength(text, len) : NULL;
	free(text);
	cJSON *out = NULL;
	const cJSON *tools = msg ? jx_path(msg, "result.tools") : NULL;
	if (cJSON_IsArray(tools)) {
		*listed = 1;
		for (const cJSON *t = tools->child; t; t = t->next) {
			const char *name = jx_str(t, "name");
			if (name && !strcmp(name, tool)) {
				const cJSON *a = cJSON_GetObjectItemCaseSensitive(t, "annotations");
				out = cJSON_IsObject(a) ? cJSON_Duplicate(a, 1) : cJSON_CreateObject();
				break;
			}
		}
	}
	cJSON_Delete(msg);
	return out;
}

/* Appends one client message as a step. */
static void add_step(struct replay_frame **out, size_t *n, const char *bytes, size_t len, const struct rpc_id *await,
		     int turn)
{
	*out = xrealloc(*out, (*n + 1) * sizeof **out);
	struct replay_frame *f = &(*out)[(*n)++];
	memset(f, 0, sizeof *f);
	f->bytes = xmemdup(bytes, len);
	f->len = len;
	if (await)
		f->await = *await;
	else
		f->await.type = RPC_ID_ABSENT;
	f->turn = turn;
}

void plan_handshake(const struct vctx *c, int64_t seq, const struct relocation *rl, struct replay_frame **out,
		    size_t *n)
{
	*out = NULL;
	*n = 0;
	for (size_t i = 0; i < c->m.nframes && c->m.frames[i].seq < seq; i++) {
		const struct model_frame *f = &c->m.frames[i];
		if (f->dir != DIR_C2S || !f->method || f->batch)
			continue;
		if (strcmp(f->method, "initialize") && strcmp(f->method, "notifications/initialized"))
			continue;
		const struct trace_record *r = plan_frame_rec(c, i);
		struct buf b = {0};
		relocate_frame(rl, r->bytes, r->len, &b);
		struct rpc_msg m;
		rpc_msg_parse(r->bytes, r->len, r->truncated, &m);
		int req = m.items[0].kind == RPC_REQUEST;
		struct rpc_id id = m.items[0].id;
		add_step(out, n, b.p ? b.p : "", b.len, req ? &id : NULL, -1);
		rpc_msg_free(&m);
		buf_free(&b);
	}
}

/* The exchange a client request at (frame, item) opened, or NULL. */
static const struct exchange *request_exchange(const struct vctx *c, size_t frame, int item)
{
	for (size_t i = 0; i < c->m.nex; i++) {
		const struct exchange *x = &c->m.ex[i];
		if (x->origin == DIR_C2S && x->req_frame == frame && x->req_item == item)
			return x;
	}
	return NULL;
}

void plan_session_steps(const struct vctx *c, const struct relocation *rl, struct replay_frame **out, size_t *n)
{
	*out = NULL;
	*n = 0;
	for (size_t i = 0; i < c->m.nframes; i++) {
		const struct model_frame *f = &c->m.frames[i];
		if (f->dir != DIR_C2S)
			continue;
		const struct trace_record *r = plan_frame_rec(c, i);
		if (!r || r->truncated)
			continue; /* not replayable; a turn it was is judged without this pass */
		struct rpc_msg m;
		rpc_msg_parse(r->bytes, r->len, 0, &m);
		cJSON *batch = f->batch ? cJSON_ParseWithLength(r->bytes, r->len) : NULL;
		for (int k = 0; k < m.n; k++) {
			const struct rpc_item *it = &m.items[k];
			if (it->kind != RPC_REQUEST && it->kind != RPC_NOTIFICATION)
				continue; /* answers to the server's requests come from the record */
			const struct exchange *x = it->kind == RPC_REQUEST ? request_exchange(c, i, k) : NULL;
			char why[8];
			if (x && plan_gate_refused(c, x->req_seq, why, sizeof why))
				continue; /* it never reached the server */
			char *text = NULL;
			size_t len = 0;
			if (batch) {
				cJSON *el = cJSON_GetArrayItem(batch, k);
				text = el ? jx_print(el) : NULL;
				len = text ? strlen(text) : 0;
			} else {
				text = xmemdup(r->bytes, r->len);
				len = r->len;
			}
			if (!text)
				continue;
			struct buf b = {0};
			relocate_frame(rl, text, len, &b);
			/* A request that was answered is awaited; one that was cancelled or never
			 * answered is sent and not waited for (its cancellation follows in order). */
			int answered = x && x->resp_seq >= 0 && x->status != EX_CANCELLED;
			add_step(out, n, b.p ? b.p : "", b.len, answered ? &it->id : NULL,
				 answered && x->turn >= 0 ? x->turn : -1);
			if (answered && x->turn >= 0)
				(*out)[*n - 1].dests = plan_turn_dests(c, x);
			buf_free(&b);
			free(text);
		}
		cJSON_Delete(batch);
		rpc_msg_free(&m);
	}
}

cJSON *plan_turn_dests(const struct vctx *c, const struct exchange *x)
{
	if (!x || x->req_seq < 0)
		return NULL;
	int64_t end = x->resp_seq >= 0 ? x->resp_seq : INT64_MAX;
	cJSON *out = NULL;
	for (size_t i = 0; i < c->t->n; i++) {
		const struct trace_record *r = &c->t->recs[i];
		if (strcmp(r->kind, "network_attempt"))
			continue;
		const cJSON *ts = cJSON_GetObjectItemCaseSensitive(r->obj, "turn_seq");
		const char *outcome = jx_str(r->obj, "outcome");
		/* The server's own connection made before the call, in no call (at its start, like a
		 * database client's pool): the call may use it without connecting again. Only one
		 * the recording allowed: a refused one was refused then too. */
		int held = !cJSON_IsNumber(ts) && r->seq < x->req_seq && (!outcome || !strcmp(outcome, "allowed"));
		if (!held && (cJSON_IsNumber(ts) ? (int64_t)ts->valuedouble != x->req_seq : r->seq < x->req_seq || r->seq > end))
			continue;
		const char *fam = jx_str(r->obj, "family"), *addr = jx_str(r->obj, "address");
		if (!fam || !addr || (strcmp(fam, "inet") && strcmp(fam, "inet6")))
			continue;
		int seen = 0;
		for (const cJSON *d = out ? out->child : NULL; d && !seen; d = d->next)
			seen = !strcmp(jx_str(d, "family"), fam) && !strcmp(jx_str(d, "address"), addr);
		if (seen)
			continue;
		if (!out)
			out = cJSON_CreateArray();
		cJSON *d = cJSON_CreateObject();
		cJSON_AddStringToObject(d, "family", fam);
		cJSON_AddStringToObject(d, "address", addr);
		if (held)
			cJSON_AddTrueToObject(d, "held");
		cJSON_AddItemToArray(out, d);
	}
	return out;
}

void plan_frames_free(struct replay_frame *f, size_t n)
{
	for (size_t i = 0; i < n; i++)
		replay_frame_free(&f[i]);
	free(f);
}

void plan_strv_free(char **v)
{
	for (char **a = v; a && *a; a++)
		free(*a);
	free(v);
}

char **plan_argv(const struct vctx *c, const struct relocation *rl)
{
	size_t n = 0;
	for (char **a = c->argv; *a; a++)
		n++;
	char **argv = xcalloc(n + 1, sizeof *argv);
	for (size_t i = 0; i < n; i++) {
		int ch;
		argv[i] = relocate_string(rl, c->argv[i], &ch);
	}
	return argv;
}

char *plan_cwd(const struct vctx *c, const struct relocation *rl, const char *fallback)
{
	int ch = 0;
	char *cwd = c->cwd ? relocate_string(rl, c->cwd, &ch) : NULL;
	if (cwd && ch)
		return cwd;
	free(cwd);
	return xstrdup(fallback);
}

int plan_env(const struct vctx *c, const struct relocation *rl, char ***env, char **missing)
{
	*env = NULL;
	*missing = NULL;
	if (!c->env_record)
		return 0;
	char **e = NULL;
	int rc = server_env_replay(c->env_record, environ, &e, missing);
	if (rc != 0)
		return rc;
	for (char **p = e; rl && *p; p++) {
		int ch;
		char *moved = relocate_string(rl, *p, &ch);
		free(*p);
		*p = moved;
	}
	*env = e;
	return 0;
}

int plan_gate_refused(const struct vctx *c, int64_t req_seq, char *why, size_t n)
{
	for (size_t i = 0; i < c->t->n; i++) {
		const struct trace_record *gr = &c->t->recs[i];
		const cJSON *rs = cJSON_GetObjectItemCaseSensitive(gr->obj, "request_seq");
		if (!cJSON_IsNumber(rs) || (int64_t)rs->valuedouble != req_seq)
			continue;
		const char *outc = jx_str(gr->obj, "outcome");
		if (!strcmp(gr->kind, "gate_decision") && outc && !strcmp(outc, "refused")) {
			snprintf(why, n, "the gate refused this call (%s): it never reached the server",
				 jx_str(gr->obj, "decision") ? jx_str(gr->obj, "decision") : "?");
			return 1;
		}
		if (!strcmp(gr->kind, "approval") && cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(gr->obj, "approved"))) {
			if (jx_str(gr->obj, "applied_trial"))
				snprintf(why, n, "%s applied the effect of its trial %s instead: the call never reached the server",
					 jx_str(gr->obj, "by") ? jx_str(gr->obj, "by") : "?", jx_str(gr->obj, "applied_trial"));
			else
				snprintf(why, n, "refused in the console by %s: it never reached the server",
					 jx_str(gr->obj, "by") ? jx_str(gr->obj, "by") : "?");
			return 1;
		}
	}
	return 0;
}

void plan_replay_setup(const struct vctx *c, const struct scratch *sc, struct replay_setup *out)
{
	memset(out, 0, sizeof *out);
	struct relocation rl = {c->scope, sc->ws};
	out->argv = plan_argv(c, &rl);
	out->cwd = plan_cwd(c, &rl, sc->ws);
	plan_env(c, &rl, &out->env, &out->missing);
	fold_roots(c, sc->ws, sc->tmp, sc->mirror, sc->cache, out->roots);
	out->answers = answers_build(c->t, &c->m, &rl, out->roots);
}

void plan_replay_setup_free(struct replay_setup *s)
{
	plan_strv_free(s->argv);
	plan_strv_free(s->env);
	free(s->missing);
	free(s->cwd);
	answers_free(s->answers);
	memset(s, 0, sizeof *s);
}

static int64_t iso_ns(const char *t)
{
	struct timespec ts;
	if (!t || !*t || time_parse_iso8601(t, &ts) != 0)
		return -1;
	return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

void plan_outside_changes(struct vctx *c)
{
	c->outside = xcalloc(c->m.nturns + 1, sizeof *c->outside);
	for (size_t k = 0; k < c->m.nturns; k++) {
		const struct exchange *x = &c->m.ex[c->m.turns[k]];
		const struct trace_record *r = plan_frame_rec(c, x->req_frame);
		const cJSON *h = r ? r->state_handle : NULL;
		const cJSON *oc = h ? cJSON_GetObjectItemCaseSensitive(h, "outside_changes") : NULL;
		const char *since = oc ? jx_str(oc, "since") : NULL;
		if (!since)
			continue;
		/* The turns that ran between the capture of `since` and this one's. */
		int64_t from = -1;
		for (size_t j = 0; j < k && from < 0; j++) {
			const struct exchange *y = &c->m.ex[c->m.turns[j]];
			const struct trace_record *ry = plan_frame_rec(c, y->req_frame);
			const char *hj = ry && ry->state_handle ? jx_str(ry->state_handle, "handle") : NULL;
			if (hj && !strcmp(hj, since))
				from = y->req_seq;
		}
		const cJSON *tmin = cJSON_GetObjectItemCaseSensitive(oc, "ctime_min_ns");
		int all_timed = cJSON_IsNumber(tmin) && cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(oc, "no_time")) == 0;
		double first_change = all_timed ? tmin->valuedouble : 0;
		struct buf what = {0};
		const cJSON *paths = cJSON_GetObjectItemCaseSensitive(oc, "paths");
		int np = 0;
		for (const cJSON *p = paths ? paths->child : NULL; p; p = p->next, np++)
			if (np < 4)
				buf_printf(&what, "%s%s", np ? ", " : "", cJSON_IsString(p) ? p->valuestring : "(a path)");
		int count = (int)cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(oc, "count"));
		for (size_t j = 0; j < k; j++) {
			const struct exchange *y = &c->m.ex[c->m.turns[j]];
			if (from < 0 || y->req_seq < from || c->outside[j])
				continue;
			/* Every change came after this call was answered: it cannot have seen them. */
			int64_t answered = y->resp_seq >= 0 ? iso_ns(y->t_resp) : -1;
			if (all_timed && answered >= 0 && first_change > (double)answered)
				continue;
			c->outside[j] = xasprintf("%d path(s) of the workspace changed while the call ran, made by no process "
						  "in its sandbox (another belay's server, the user, the agent's own tools): %s%s",
						  count, buf_cstr(&what), count > 4 ? ", ..." : "");
		}
		buf_free(&what);
	}
}
