/* answers.c - recorded client answers for replays. See answers.h. */
#include "verify/answers.h"

#include <stdlib.h>
#include <string.h>

#include "common/buf.h"
#include "common/jcs.h"
#include "common/jsonx.h"
#include "common/xalloc.h"
#include "verify/equiv.h"

struct answer {
	char *method;
	char *key;     /* canonical folded params without _meta */
	cJSON *result; /* "result" or "error" member value (owned) */
	int is_error;
	int64_t seq;   /* the server's request seq */
	int used;
};

struct answers {
	struct answer *v;
	size_t n;
	const struct fold_root *roots;
	int64_t from, to;
	size_t missing;
	char *first_missing;
};

/* One message of a frame (an element of a batch, or the frame) parsed, or NULL. */
static cJSON *frame_message(const struct trace *t, const struct model *m, size_t frame, int item)
{
	if (frame == SIZE_MAX)
		return NULL;
	const struct trace_record *r = &t->recs[m->frames[frame].rec];
	if (r->truncated)
		return NULL;
	cJSON *v = cJSON_ParseWithLength(r->bytes, r->len);
	if (v && cJSON_IsArray(v)) {
		cJSON *el = cJSON_DetachItemFromArray(v, item);
		cJSON_Delete(v);
		return el;
	}
	return v;
}

static char *params_key(const cJSON *params, const struct fold_root *roots)
{
	cJSON *p = params ? cJSON_Duplicate(params, 1) : cJSON_CreateNull();
	if (cJSON_IsObject(p))
		cJSON_DeleteItemFromObjectCaseSensitive(p, "_meta");
	static const struct fold_root none[] = {{NULL, NULL}};
	cJSON *f = equiv_fold(p, roots ? roots : none);
	struct buf b = {0};
	if (jcs_serialize(f, &b) != 0) {
		buf_free(&b);
		char *s = jx_print(f);
		buf_puts(&b, s);
		free(s);
	}
	cJSON_Delete(f);
	cJSON_Delete(p);
	return buf_take(&b);
}

struct answers *answers_build(const struct trace *t, const struct model *m, const struct relocation *rl,
			      const struct fold_root *roots)
{
	struct answers *a = xcalloc(1, sizeof *a);
	a->roots = roots;
	a->from = a->to = -1;
	for (size_t i = 0; i < m->nex; i++) {
		const struct exchange *x = &m->ex[i];
		if (x->origin != DIR_S2C || !x->method || x->status != EX_ANSWERED)
			continue;
		cJSON *req = frame_message(t, m, x->req_frame, x->req_item);
		cJSON *resp = frame_message(t, m, x->resp_frame, x->resp_item);
		cJSON *res = resp ? cJSON_DetachItemFromObjectCaseSensitive(resp, "result") : NULL;
		int is_error = 0;
		if (!res && resp && (res = cJSON_DetachItemFromObjectCaseSensitive(resp, "error")))
			is_error = 1;
		if (res) {
			if (rl)
				relocate_json(rl, res);
			a->v = xrealloc(a->v, (a->n + 1) * sizeof *a->v);
			a->v[a->n++] = (struct answer){
				.method = xstrdup(x->method),
				.key = params_key(req ? cJSON_GetObjectItemCaseSensitive(req, "params") : NULL, roots),
				.result = res,
				.is_error = is_error,
				.seq = x->req_seq,
			};
		}
		cJSON_Delete(req);
		cJSON_Delete(resp);
	}
	return a;
}

void answers_free(struct answers *a)
{
	if (!a)
		return;
	for (size_t i = 0; i < a->n; i++) {
		free(a->v[i].method);
		free(a->v[i].key);
		cJSON_Delete(a->v[i].result);
	}
	free(a->v);
	free(a->first_missing);
	free(a);
}

void answers_reset(struct answers *a)
{
	for (size_t i = 0; i < a->n; i++)
		a->v[i].used = 0;
	a->missing = 0;
	free(a->first_missing);
	a->first_missing = NULL;
}

void answers_prefer(struct answers *a, int64_t from, int64_t to)
{
	a->from = from;
	a->to = to;
}

static cJSON *response(const cJSON *req, const char *member, cJSON *value)
{
	cJSON *r = cJSON_CreateObject();
	cJSON_AddStringToObject(r, "jsonrpc", "2.0");
	const cJSON *id = cJSON_GetObjectItemCaseSensitive(req, "id");
	cJSON_AddItemToObject(r, "id", id ? cJSON_Duplicate(id, 1) : cJSON_CreateNull());
	cJSON_AddItemToObject(r, member, value);
	return r;
}

cJSON *answers_take(struct answers *a, const cJSON *req)
{
	const char *method = jx_str(req, "method");
	if (!method)
		return NULL;
	char *key = params_key(cJSON_GetObjectItemCaseSensitive(req, "params"), a->roots);
	struct answer *best = NULL;
	for (int pass = a->from >= 0 ? 0 : 1; pass < 2 && !best; pass++)
		for (size_t i = 0; i < a->n && !best; i++) {
			struct answer *x = &a->v[i];
			if (x->used || strcmp(x->method, method) || strcmp(x->key, key))
				continue;
			if (pass == 0 && (x->seq < a->from || x->seq >= a->to))
				continue;
			best = x;
		}
	free(key);
	if (best) {
		best->used = 1;
		return response(req, best->is_error ? "error" : "result", cJSON_Duplicate(best->result, 1));
	}
	if (!strcmp(method, "ping"))
		return response(req, "result", cJSON_CreateObject());
	if (!a->missing++)
		a->first_missing = xstrdup(method);
	return NULL;
}

size_t answers_missing(const struct answers *a, const char **first_method)
{
	if (first_method)
		*first_method = a->first_missing;
	return a->missing;
}
