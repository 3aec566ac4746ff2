/* rpc_msg.c - structural JSON-RPC classification of a frame copy. */
#include "mcp/rpc_msg.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/jcs.h"
#include "common/jsonx.h"
#include "common/xalloc.h"

const char *rpc_kind_name(enum rpc_kind k)
{
	switch (k) {
	case RPC_REQUEST: return "request";
	case RPC_RESPONSE: return "response";
	case RPC_NOTIFICATION: return "notification";
	case RPC_UNKNOWN: return "unknown";
	default: return "unparseable";
	}
}

void rpc_id_from_json(const cJSON *v, struct rpc_id *id)
{
	memset(id, 0, sizeof *id);
	if (!v) {
		id->type = RPC_ID_ABSENT;
	} else if (cJSON_IsNull(v)) {
		id->type = RPC_ID_NULL;
	} else if (cJSON_IsNumber(v)) {
		char num[32];
		jcs_number(v->valuedouble, num);
		id->type = RPC_ID_NUMBER;
		snprintf(id->key, sizeof id->key, "n:%s", num);
	} else if (cJSON_IsString(v)) {
		id->type = RPC_ID_STRING;
		size_t n = strlen(v->valuestring);
		if (n > sizeof id->key - 3) {
			/* Long string ids are keyed by a prefix plus length; collisions are then
			 * possible only between ids sharing 80 leading bytes and their length. */
			snprintf(id->key, sizeof id->key, "s:%.*s#%zu", 70, v->valuestring, n);
		} else {
			snprintf(id->key, sizeof id->key, "s:%s", v->valuestring);
		}
	} else {
		id->type = RPC_ID_OTHER;
	}
}

int rpc_id_trackable(const struct rpc_id *id)
{
	return id->type == RPC_ID_NUMBER || id->type == RPC_ID_STRING;
}

static void classify(cJSON *node, struct rpc_item *it)
{
	memset(it, 0, sizeof *it);
	it->node = node;
	if (!cJSON_IsObject(node)) {
		it->kind = RPC_UNKNOWN;
		return;
	}
	cJSON *idv = cJSON_GetObjectItemCaseSensitive(node, "id");
	rpc_id_from_json(idv, &it->id);
	it->method = jx_str(node, "method");
	it->result = cJSON_GetObjectItemCaseSensitive(node, "result");
	it->error = cJSON_GetObjectItemCaseSensitive(node, "error");
	it->params = cJSON_GetObjectItemCaseSensitive(node, "params");
	if (it->result || it->error)
		it->kind = RPC_RESPONSE;
	else if (it->method && idv)
		it->kind = RPC_REQUEST;
	else if (it->method)
		it->kind = RPC_NOTIFICATION;
	else
		it->kind = RPC_UNKNOWN;
	if (it->kind == RPC_REQUEST && strcmp(it->method, "tools/call") == 0 && cJSON_IsObject(it->params)) {
		it->tool = jx_str(it->params, "name");
		it->arguments = cJSON_GetObjectItemCaseSensitive(it->params, "arguments");
	}
	if (it->kind == RPC_NOTIFICATION && strcmp(it->method, "notifications/cancelled") == 0 &&
	    cJSON_IsObject(it->params))
		rpc_id_from_json(cJSON_GetObjectItemCaseSensitive(it->params, "requestId"), &it->cancel_of);
	cJSON *tp = jx_path(node, "params._meta.traceparent");
	if (!cJSON_IsString(tp))
		tp = jx_path(node, "_meta.traceparent");
	if (cJSON_IsString(tp))
		it->traceparent = tp->valuestring;
}

static void classify_root(struct rpc_msg *m)
{
	if (!m->root) {
		m->n = 1;
		m->items = xcalloc(1, sizeof *m->items);
		m->items[0].kind = RPC_UNPARSEABLE;
		return;
	}
	if (cJSON_IsArray(m->root)) {
		m->is_batch = 1;
		m->n = cJSON_GetArraySize(m->root);
		m->items = xcalloc((size_t)m->n + 1, sizeof *m->items);
		int i = 0;
		for (cJSON *c = m->root->child; c; c = c->next)
			classify(c, &m->items[i++]);
	} else {
		m->n = 1;
		m->items = xcalloc(1, sizeof *m->items);
		classify(m->root, &m->items[0]);
	}
}

void rpc_msg_parse(const char *data, size_t len, int truncated, struct rpc_msg *m)
{
	memset(m, 0, sizeof *m);
	if (truncated) {
		m->why = "truncated: the recorded copy is incomplete";
	} else if (!utf8_valid(data, len)) {
		m->why = "unparseable: invalid UTF-8";
	} else {
		m->root = cJSON_ParseWithLength(data, len);
		if (!m->root)
			m->why = "unparseable: not JSON";
	}
	classify_root(m);
}

void rpc_msg_from_envelope(cJSON *envelope, struct rpc_msg *m)
{
	memset(m, 0, sizeof *m);
	m->truncated = 1;
	if (cJSON_IsObject(envelope) || cJSON_IsArray(envelope))
		m->root = envelope;
	else
		cJSON_Delete(envelope);
	m->why = m->root ? "truncated: classified by its envelope" : "truncated: the recorded copy is incomplete";
	classify_root(m);
}

void rpc_msg_free(struct rpc_msg *m)
{
	cJSON_Delete(m->root);
	free(m->items);
	memset(m, 0, sizeof *m);
}
