/* mcp_client.c - see mcp_client.h. */
#include "mcp/mcp_client.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/jsonx.h"
#include "common/strmap.h"
#include "common/xalloc.h"
#include "mcp/framer.h"

struct waiter {
	struct mcp_client *c;
	uv_timer_t timer;
	char key[96];
	mcp_reply_cb cb;
	void *ctx;
	int done;
};

struct mcp_client {
	uv_loop_t *loop;
	struct endpoint *ep;
	struct mcp_client_hooks h;
	struct framer fr;
	struct strmap waiting; /* id key -> waiter pointer */
	long long next_id;
	int closed;
	int refs; /* the client itself + live waiter timers */
};

static void unref(struct mcp_client *c)
{
	if (--c->refs == 0) {
		framer_done(&c->fr);
		strmap_free(&c->waiting);
		free(c);
	}
}

static void timer_closed(uv_handle_t *h)
{
	struct waiter *w = h->data;
	struct mcp_client *c = w->c;
	free(w);
	unref(c);
}

static void finish_waiter(struct waiter *w, int status, const char *line, size_t len, const cJSON *msg)
{
	if (w->done)
		return;
	w->done = 1;
	strmap_del(&w->c->waiting, w->key);
	uv_timer_stop(&w->timer);
	uv_close((uv_handle_t *)&w->timer, timer_closed);
	if (w->cb)
		w->cb(w->ctx, w->c, status, line, len, msg);
}

static void timeout_cb(uv_timer_t *t)
{
	finish_waiter(t->data, UV_ETIMEDOUT, NULL, 0, NULL);
}

static void write_line(struct mcp_client *c, const char *bytes, size_t len)
{
	char *b = xmalloc(len + 1);
	memcpy(b, bytes, len);
	b[len] = '\n';
	if (endpoint_write(c->ep, b, len + 1, NULL, NULL) != 0)
		c->closed = 1;
}

static void answer_request(struct mcp_client *c, const cJSON *req)
{
	cJSON *resp = c->h.on_request ? c->h.on_request(c->h.ctx, c, req) : NULL;
	if (!resp) {
		resp = cJSON_CreateObject();
		cJSON_AddStringToObject(resp, "jsonrpc", "2.0");
		cJSON *id = cJSON_GetObjectItemCaseSensitive(req, "id");
		cJSON_AddItemToObject(resp, "id", cJSON_Duplicate(id, 1));
		cJSON *err = cJSON_AddObjectToObject(resp, "error");
		cJSON_AddNumberToObject(err, "code", -32601);
		cJSON_AddStringToObject(err, "message", "Method not found");
	}
	char *s = jx_print(resp);
	write_line(c, s, strlen(s));
	cJSON_free(s);
	cJSON_Delete(resp);
}

static void on_line(void *ctx, const char *data, size_t len, size_t total, int truncated, size_t end)
{
	struct mcp_client *c = ctx;
	(void)total;
	(void)end;
	struct rpc_msg m;
	rpc_msg_parse(data, len, truncated, &m);
	for (int i = 0; i < m.n; i++) {
		const struct rpc_item *it = &m.items[i];
		if (it->kind == RPC_RESPONSE && !it->method && rpc_id_trackable(&it->id)) {
			int64_t w;
			if (strmap_get(&c->waiting, it->id.key, &w))
				finish_waiter((struct waiter *)(intptr_t)w, 0, data, len, it->node);
		} else if (it->kind == RPC_REQUEST) {
			answer_request(c, it->node);
		} else if (it->kind == RPC_NOTIFICATION && c->h.on_notify) {
			c->h.on_notify(c->h.ctx, c, it->node);
		}
	}
	rpc_msg_free(&m);
}

static void fail_all(struct mcp_client *c, int status)
{
	for (size_t i = 0; i < c->waiting.cap; i++)
		if (strmap_live(&c->waiting, i)) {
			struct waiter *w = (struct waiter *)(intptr_t)c->waiting.slots[i].val;
			finish_waiter(w, status, NULL, 0, NULL);
		}
}

static void read_cb(struct endpoint *ep, char *data, ssize_t n, void *ctx)
{
	struct mcp_client *c = ctx;
	(void)ep;
	if (n < 0) {
		c->closed = 1;
		fail_all(c, UV_EOF);
		return;
	}
	framer_feed(&c->fr, data, (size_t)n, on_line, c);
	free(data);
}

struct mcp_client *mcp_client_new(uv_loop_t *loop, struct endpoint *ep, const struct mcp_client_hooks *h)
{
	struct mcp_client *c = xcalloc(1, sizeof *c);
	c->loop = loop;
	c->ep = ep;
	if (h)
		c->h = *h;
	framer_init(&c->fr, (size_t)64 << 20);
	strmap_init(&c->waiting);
	c->next_id = 1;
	c->refs = 1;
	endpoint_read_start(ep, read_cb, c);
	return c;
}

int mcp_client_send_raw(struct mcp_client *c, const char *bytes, size_t len, const struct rpc_id *await_id,
			unsigned timeout_ms, mcp_reply_cb cb, void *ctx)
{
	if (c->closed)
		return UV_EPIPE;
	if (await_id && rpc_id_trackable(await_id)) {
		if (strmap_get(&c->waiting, await_id->key, NULL))
			return UV_EEXIST;
		struct waiter *w = xcalloc(1, sizeof *w);
		w->c = c;
		w->cb = cb;
		w->ctx = ctx;
		snprintf(w->key, sizeof w->key, "%s", await_id->key);
		uv_timer_init(c->loop, &w->timer);
		w->timer.data = w;
		c->refs++;
		strmap_put(&c->waiting, w->key, (int64_t)(intptr_t)w);
		uv_timer_start(&w->timer, timeout_cb, timeout_ms ? timeout_ms : 10000, 0);
		write_line(c, bytes, len);
		return 0;
	}
	write_line(c, bytes, len);
	if (cb)
		cb(ctx, c, 0, NULL, 0, NULL);
	return 0;
}

int mcp_client_request(struct mcp_client *c, const char *method, cJSON *params, unsigned timeout_ms, mcp_reply_cb cb,
		       void *ctx)
{
	cJSON *m = cJSON_CreateObject();
	cJSON_AddStringToObject(m, "jsonrpc", "2.0");
	long long id = c->next_id++;
	cJSON_AddNumberToObject(m, "id", (double)id);
	cJSON_AddStringToObject(m, "method", method);
	if (params)
		cJSON_AddItemToObject(m, "params", params);
	char *s = jx_print(m);
	cJSON_Delete(m);
	struct rpc_id rid;
	cJSON *idv = cJSON_CreateNumber((double)id);
	rpc_id_from_json(idv, &rid);
	cJSON_Delete(idv);
	int rc = mcp_client_send_raw(c, s, strlen(s), &rid, timeout_ms, cb, ctx);
	cJSON_free(s);
	return rc;
}

int mcp_client_notify(struct mcp_client *c, const char *method, cJSON *params)
{
	cJSON *m = cJSON_CreateObject();
	cJSON_AddStringToObject(m, "jsonrpc", "2.0");
	cJSON_AddStringToObject(m, "method", method);
	if (params)
		cJSON_AddItemToObject(m, "params", params);
	char *s = jx_print(m);
	cJSON_Delete(m);
	int rc = mcp_client_send_raw(c, s, strlen(s), NULL, 0, NULL, NULL);
	cJSON_free(s);
	return rc;
}

void mcp_client_close(struct mcp_client *c)
{
	if (!c)
		return;
	fail_all(c, UV_EOF);
	c->closed = 1;
	endpoint_close(c->ep);
	c->ep = NULL;
	unref(c);
}
