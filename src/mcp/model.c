/* model.c - pairing frames into exchanges and turns. See model.h. */
#include "mcp/model.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/jsonx.h"
#include "common/timeutil.h"
#include "common/xalloc.h"

const char *ex_status_name(enum ex_status s)
{
	switch (s) {
	case EX_ANSWERED: return "answered";
	case EX_CANCELLED: return "cancelled";
	case EX_ORPHAN: return "response-without-request";
	case EX_DUPLICATE: return "duplicate-response";
	case EX_UNTRACKED: return "untracked-id";
	case EX_ANSWERED_BY_BELAY: return "answered-by-belay";
	default: return "unanswered";
	}
}

void model_init(struct model *m)
{
	memset(m, 0, sizeof *m);
	strmap_init(&m->pending);
}

void model_init_latest_frame(struct model *m)
{
	model_init(m);
	m->latest_frame_only = 1;
}

void model_free(struct model *m)
{
	for (size_t i = 0; i < m->nframes; i++)
		free(m->frames[i].method);
	for (size_t i = 0; i < m->nex; i++) {
		free(m->ex[i].method);
		free(m->ex[i].tool);
		free(m->ex[i].traceparent);
	}
	free(m->frames);
	free(m->ex);
	free(m->turns);
	strmap_free(&m->pending);
	memset(m, 0, sizeof *m);
}

static void pending_key(char *out, size_t n, int origin, const struct rpc_id *id)
{
	snprintf(out, n, "%d:%s", origin, id->key);
}

static struct exchange *new_exchange(struct model *m)
{
	if (m->nex == m->capex) {
		m->capex = m->capex ? m->capex * 2 : 64;
		m->ex = xrealloc(m->ex, m->capex * sizeof *m->ex);
	}
	struct exchange *x = &m->ex[m->nex++];
	memset(x, 0, sizeof *x);
	x->req_seq = x->resp_seq = x->cancel_seq = x->belay_seq = -1;
	x->req_frame = x->resp_frame = x->belay_frame = SIZE_MAX;
	x->turn = -1;
	return x;
}

static void on_request(struct model *m, size_t fi, int item, const struct rpc_item *it)
{
	const struct model_frame *f = &m->frames[fi];
	struct exchange *x = new_exchange(m);
	x->origin = f->dir;
	x->id = it->id;
	x->method = xstrdup(it->method);
	x->tool = it->tool ? xstrdup(it->tool) : NULL;
	x->traceparent = it->traceparent ? xstrdup(it->traceparent) : NULL;
	x->req_seq = f->seq;
	x->req_frame = fi;
	x->req_item = item;
	x->req_truncated = f->truncated;
	memcpy(x->t_req, f->t_in, sizeof x->t_req);
	if (!rpc_id_trackable(&it->id)) {
		x->status = EX_UNTRACKED;
	} else {
		char key[128];
		pending_key(key, sizeof key, f->dir, &it->id);
		strmap_put(&m->pending, key, (int64_t)(m->nex - 1));
	}
	if (strcmp(it->method, "tools/call") == 0) {
		if (m->nturns == m->capturns) {
			m->capturns = m->capturns ? m->capturns * 2 : 32;
			m->turns = xrealloc(m->turns, m->capturns * sizeof *m->turns);
		}
		x->turn = (int)m->nturns;
		m->turns[m->nturns++] = m->nex - 1;
	}
}

static void fill_response(struct exchange *x, const struct model_frame *f, size_t fi, int item,
			  const struct rpc_item *it)
{
	x->resp_seq = f->seq;
	x->resp_frame = fi;
	x->resp_item = item;
	x->resp_truncated = f->truncated;
	memcpy(x->t_resp, f->t_in, sizeof x->t_resp);
	if (it->error) {
		x->protocol_error = 1;
		long long code = 0;
		if (jx_int(it->error, "code", INT32_MIN, INT32_MAX, &code))
			x->error_code = (int)code;
	}
	if (cJSON_IsObject(it->result) && cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(it->result, "isError")))
		x->tool_error = 1;
}

static void on_response(struct model *m, size_t fi, int item, const struct rpc_item *it, const char *belay)
{
	const struct model_frame *f = &m->frames[fi];
	int origin = !f->dir; /* the request travelled the other way */
	int64_t idx = -1;
	char key[128];
	if (rpc_id_trackable(&it->id)) {
		pending_key(key, sizeof key, origin, &it->id);
		if (strmap_get(&m->pending, key, &idx))
			strmap_del(&m->pending, key);
		else
			idx = -1;
	}
	if (belay) {
		/* belay's own answer closes the request, but is not the server's response; one to
		 * no open request (it was cancelled meanwhile) changes nothing. */
		if (idx >= 0) {
			struct exchange *x = &m->ex[idx];
			x->status = EX_ANSWERED_BY_BELAY;
			x->belay_seq = f->seq;
			x->belay_frame = fi;
			x->belay_item = item;
			snprintf(x->belay_reason, sizeof x->belay_reason, "%s", belay);
			memcpy(x->t_belay, f->t_in, sizeof x->t_belay);
		}
		return;
	}
	if (idx >= 0) {
		struct exchange *x = &m->ex[idx];
		x->status = EX_ANSWERED;
		fill_response(x, f, fi, item, it);
		return;
	}
	/* Answered before? Then this is a duplicate; else an orphan. */
	const struct exchange *prev = NULL;
	for (size_t i = m->nex; i-- > 0;) {
		const struct exchange *x = &m->ex[i];
		if (x->origin == origin && x->req_seq >= 0 && strcmp(x->id.key, it->id.key) == 0 &&
		    x->id.type == it->id.type && rpc_id_trackable(&it->id)) {
			prev = x;
			break;
		}
	}
	struct exchange *x = new_exchange(m);
	x->origin = origin;
	x->id = it->id;
	if (prev) {
		size_t pi = (size_t)(prev - m->ex);
		prev = &m->ex[pi]; /* new_exchange may have moved the array */
		x->status = prev->status == EX_CANCELLED && prev->resp_seq < 0 ? EX_ANSWERED : EX_DUPLICATE;
		if (x->status == EX_ANSWERED) {
			/* A reply that arrives after the client cancelled: attach it to the request. */
			m->nex--;
			struct exchange *px = &m->ex[pi];
			fill_response(px, f, fi, item, it);
			return;
		}
		x->method = prev->method ? xstrdup(prev->method) : NULL;
		x->tool = prev->tool ? xstrdup(prev->tool) : NULL;
		x->req_seq = prev->req_seq;
		x->req_frame = prev->req_frame;
		x->req_item = prev->req_item;
		x->req_truncated = prev->req_truncated;
		memcpy(x->t_req, prev->t_req, sizeof x->t_req);
	} else {
		x->status = EX_ORPHAN;
	}
	fill_response(x, f, fi, item, it);
}

static void on_cancel(struct model *m, const struct model_frame *f, const struct rpc_item *it)
{
	if (!rpc_id_trackable(&it->cancel_of))
		return;
	/* The sender cancels a request it sent itself. */
	char key[128];
	int64_t idx;
	pending_key(key, sizeof key, f->dir, &it->cancel_of);
	if (!strmap_get(&m->pending, key, &idx))
		return;
	strmap_del(&m->pending, key);
	m->ex[idx].status = EX_CANCELLED;
	m->ex[idx].cancel_seq = f->seq;
}

static size_t add(struct model *m, int64_t seq, int dir, const char *t_in, const struct rpc_msg *msg, size_t len,
		  size_t total, int truncated, size_t rec, const char *belay)
{
	if (m->latest_frame_only && m->nframes == 1) {
		free(m->frames[0].method);
		m->nframes = 0;
	}
	if (m->nframes == m->capframes) {
		m->capframes = m->capframes ? m->capframes * 2 : (m->latest_frame_only ? 1 : 128);
		m->frames = xrealloc(m->frames, m->capframes * sizeof *m->frames);
	}
	size_t fi = m->nframes++;
	struct model_frame *f = &m->frames[fi];
	memset(f, 0, sizeof *f);
	f->seq = seq;
	f->dir = dir;
	snprintf(f->t_in, sizeof f->t_in, "%s", t_in ? t_in : "");
	f->len = len;
	f->total = total;
	f->truncated = truncated;
	f->rec = rec;
	f->from_belay = belay != NULL;
	f->kind = msg->items[0].kind;
	f->batch = msg->is_batch ? msg->n : 0;
	if (msg->n > 0 && msg->items[0].method)
		f->method = xstrdup(msg->items[0].method);
	m->truncated += truncated != 0;
	if (!msg->root) {
		m->gaps++;
		return fi;
	}
	for (int i = 0; i < msg->n; i++) {
		const struct rpc_item *it = &msg->items[i];
		switch (it->kind) {
		case RPC_REQUEST:
			if (!belay) /* belay only ever answers */
				on_request(m, fi, i, it);
			break;
		case RPC_RESPONSE: on_response(m, fi, i, it, belay); break;
		case RPC_NOTIFICATION:
			if (!belay && strcmp(it->method, "notifications/cancelled") == 0)
				on_cancel(m, &m->frames[fi], it);
			break;
		default: break;
		}
	}
	return fi;
}

size_t model_add_parsed(struct model *m, int64_t seq, int dir, const char *t_in, const struct rpc_msg *msg,
			size_t len, size_t total, int truncated, size_t rec)
{
	return add(m, seq, dir, t_in, msg, len, total, truncated, rec, NULL);
}

size_t model_add_belay(struct model *m, int64_t seq, const char *t_in, const struct rpc_msg *msg, size_t len,
		       const char *reason, size_t rec)
{
	return add(m, seq, DIR_S2C, t_in, msg, len, len, 0, rec, reason ? reason : "unknown");
}

size_t model_add_frame(struct model *m, int64_t seq, int dir, const char *t_in, const char *data, size_t len,
		       size_t total, int truncated, size_t rec)
{
	struct rpc_msg msg;
	rpc_msg_parse(data, len, truncated, &msg);
	size_t fi = model_add_parsed(m, seq, dir, t_in, &msg, len, total, truncated, rec);
	rpc_msg_free(&msg);
	return fi;
}

int64_t exchange_latency_us(const struct exchange *x)
{
	if (x->resp_seq < 0 || x->req_seq < 0)
		return -1;
	int64_t ns = time_iso_diff_ns(x->t_req, x->t_resp);
	return ns == INT64_MIN ? -1 : ns / 1000;
}
