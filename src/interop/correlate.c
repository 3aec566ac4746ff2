/* correlate.c - spans joined to turns by traceparent. See correlate.h. */
#include "interop/correlate.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf.h"
#include "common/fsutil.h"
#include "common/jsonx.h"
#include "common/strmap.h"
#include "common/xalloc.h"
#include "mcp/model.h"
#include "trace/trace_model.h"
#include "trace/trace_reader.h"
#include "measure/batch.h"

void otlp_spans_free(struct otlp_span *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(v[i].trace_id);
		free(v[i].span_id);
		free(v[i].parent_span_id);
		free(v[i].name);
	}
	free(v);
}

static int time_ok(const cJSON *t)
{
	if (cJSON_IsNumber(t))
		return t->valuedouble >= 0;
	if (!cJSON_IsString(t) || !*t->valuestring)
		return 0;
	for (const char *p = t->valuestring; *p; p++)
		if (*p < '0' || *p > '9')
			return 0;
	return 1;
}

/* A member that proto3 may omit: absent = empty, present and not an array = an error. */
static int list_member(const cJSON *o, const char *k, const cJSON **out)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
	*out = v;
	return !v || cJSON_IsArray(v);
}

static int read_request(const cJSON *req, int line, const char *path, struct otlp_span **v, size_t *n, size_t *cap,
			struct err *e)
{
	const cJSON *rs;
	if (!cJSON_IsObject(req) || !list_member(req, "resourceSpans", &rs))
		return err_set(e, BELAY_EINVAL, "%s:%d: not an OTLP/JSON export (\"resourceSpans\" must be a list)", path, line);
	for (const cJSON *r = rs ? rs->child : NULL; r; r = r->next) {
		const cJSON *ss;
		if (!cJSON_IsObject(r) || !list_member(r, "scopeSpans", &ss))
			return err_set(e, BELAY_EINVAL, "%s:%d: a resourceSpans entry's \"scopeSpans\" must be a list", path, line);
		for (const cJSON *s = ss ? ss->child : NULL; s; s = s->next) {
			const cJSON *spans;
			if (!cJSON_IsObject(s) || !list_member(s, "spans", &spans))
				return err_set(e, BELAY_EINVAL, "%s:%d: a scopeSpans entry's \"spans\" must be a list", path, line);
			int k = 0;
			for (const cJSON *sp = spans ? spans->child : NULL; sp; sp = sp->next, k++) {
				const char *tid = jx_str(sp, "traceId"), *sid = jx_str(sp, "spanId"), *name = jx_str(sp, "name");
				if (!tid || !sid || !name || !time_ok(cJSON_GetObjectItemCaseSensitive(sp, "startTimeUnixNano")))
					return err_set(e, BELAY_EINVAL,
						       "%s:%d: span %d needs string traceId, spanId and name, and a "
						       "startTimeUnixNano (an integer or a decimal string)",
						       path, line, k);
				*v = xgrow_zeroed(*v, cap, *n, sizeof **v, 64);
				struct otlp_span *o = &(*v)[(*n)++];
				o->trace_id = xstrdup(tid);
				o->span_id = xstrdup(sid);
				o->name = xstrdup(name);
				const char *p = jx_str(sp, "parentSpanId");
				o->parent_span_id = p && *p ? xstrdup(p) : NULL;
				o->line = line;
			}
		}
	}
	return 0;
}

int otlp_spans_read(const char *path, struct otlp_span **out, size_t *n, struct err *e)
{
	*out = NULL;
	*n = 0;
	size_t cap = 0;
	struct buf b = {0};
	int rc = fs_read_file(path, (size_t)1 << 31, &b, e);
	if (rc) {
		buf_free(&b);
		return rc;
	}
	char *s = buf_cstr(&b);
	/* one JSON document, or one per line (the collector's file exporter) */
	cJSON *whole = cJSON_Parse(s);
	if (whole) {
		rc = read_request(whole, 1, path, out, n, &cap, e);
		cJSON_Delete(whole);
	} else {
		int line = 0;
		for (char *p = s; *p && !rc;) {
			char *nl = strchr(p, '\n');
			size_t len = nl ? (size_t)(nl - p) : strlen(p);
			line++;
			if (len) {
				cJSON *o = cJSON_ParseWithLength(p, len);
				if (!o)
					rc = err_set(e, BELAY_EINVAL, "%s:%d: not JSON", path, line);
				else
					rc = read_request(o, line, path, out, n, &cap, e);
				cJSON_Delete(o);
			}
			p = nl ? nl + 1 : p + len;
		}
	}
	buf_free(&b);
	if (rc) {
		otlp_spans_free(*out, *n);
		*out = NULL;
		*n = 0;
	}
	return rc;
}

/* "<trace id>\x1f<parent id>" -> index into the turn table, or -1 when ambiguous. */
struct turn_ref {
	size_t trace;
	int turn;
};

int correlate(const struct otlp_span *spans, size_t nspans, const struct correlate_trace *traces, size_t ntraces,
	      cJSON **out, struct err *e)
{
	struct strmap keys, trace_ids;
	strmap_init(&keys);
	strmap_init(&trace_ids);
	struct turn_ref *refs = NULL;
	size_t nrefs = 0, cap = 0;
	int rc = 0;
	cJSON *o = cJSON_CreateObject();
	cJSON *tl = cJSON_AddArrayToObject(o, "traces");
	for (size_t ti = 0; ti < ntraces && !rc; ti++) {
		struct trace *t = NULL;
		if ((rc = trace_read(traces[ti].path, &t, e)) != 0)
			break;
		char *id = measure_trace_id(traces[ti].path);
		cJSON_AddItemToArray(tl, cJSON_CreateString(id));
		free(id);
		struct model m;
		model_init(&m);
		trace_build_model(t, &m);
		struct strmap seqs;
		strmap_init(&seqs);
		for (size_t k = 0; k < m.nturns; k++) {
			const struct exchange *x = &m.ex[m.turns[k]];
			if (!x->traceparent)
				continue;
			/* exactly 4 parts with non-empty ids, else ignored */
			char *tp = xstrdup(x->traceparent), *parts[5] = {0};
			int np = 0;
			for (char *sv = NULL, *p = strtok_r(tp, "-", &sv); p && np < 5; p = strtok_r(NULL, "-", &sv))
				parts[np++] = p;
			if (np == 4 && *parts[1] && *parts[2]) {
				char *key = xasprintf("%s\x1f%s", parts[1], parts[2]);
				char seq[32];
				snprintf(seq, sizeof seq, "%lld", (long long)x->req_seq);
				int64_t j, prev_seq;
				int dup_request = strmap_get(&seqs, seq, &prev_seq);
				strmap_put(&seqs, seq, 1);
				refs = xgrow_zeroed(refs, &cap, nrefs, sizeof *refs, 64);
				refs[nrefs] = (struct turn_ref){ti, (int)k};
				if (strmap_get(&keys, key, &j) || dup_request)
					strmap_put(&keys, key, -1); /* AMBIGUOUS */
				else
					strmap_put(&keys, key, (int64_t)nrefs);
				nrefs++;
				strmap_put(&trace_ids, parts[1], 1);
				free(key);
			}
			free(tp);
		}
		strmap_free(&seqs);
		model_free(&m);
		trace_free(t);
	}
	if (rc) {
		cJSON_Delete(o);
		goto out;
	}
	long matched = 0;
	cJSON *unc = cJSON_CreateObject(), *nc = cJSON_CreateObject();
	cJSON *sl = cJSON_CreateArray();
	for (size_t i = 0; i < nspans; i++) {
		const struct otlp_span *s = &spans[i];
		cJSON *js = cJSON_CreateObject();
		cJSON_AddStringToObject(js, "span_id", s->span_id);
		cJSON_AddStringToObject(js, "trace_id", s->trace_id);
		cJSON_AddStringToObject(js, "name", s->name);
		char *key = xasprintf("%s\x1f%s", s->trace_id, s->span_id);
		int64_t j;
		int found = strmap_get(&keys, key, &j);
		free(key);
		const struct turn_verdict *v = NULL;
		if (found && j >= 0) {
			const struct correlate_trace *ct = &traces[refs[j].trace];
			for (size_t k = 0; k < ct->r->n && !v; k++)
				if (ct->r->turns[k].turn == refs[j].turn)
					v = &ct->r->turns[k];
			char *tid = measure_trace_id(ct->path);
			cJSON_AddStringToObject(js, "trace", tid);
			free(tid);
			cJSON_AddNumberToObject(js, "turn_index", refs[j].turn);
		} else {
			cJSON_AddNullToObject(js, "trace");
			cJSON_AddNullToObject(js, "turn_index");
		}
		const char *cause = NULL;
		if (v) {
			matched++;
			cJSON *vj = verdict_json(v);
			cJSON_AddStringToObject(js, "status", vstatus_name(v->status));
			if (v->cause[0])
				cJSON_AddStringToObject(js, "cause", v->cause);
			else
				cJSON_AddNullToObject(js, "cause");
			cJSON_AddItemToObject(js, "sub_verdicts", cJSON_DetachItemFromObject(vj, "verdicts"));
			cJSON_Delete(vj);
			cJSON *seen = cJSON_CreateObject();
			for (size_t k = 0; k < v->nsubs; k++)
				if (v->subs[k].status == V_NOT_COVERED && !cJSON_GetObjectItemCaseSensitive(seen, v->subs[k].kind)) {
					cJSON_AddTrueToObject(seen, v->subs[k].kind);
					cJSON *c = cJSON_GetObjectItemCaseSensitive(nc, v->subs[k].kind);
					if (c)
						cJSON_SetNumberValue(c, c->valuedouble + 1);
					else
						cJSON_AddNumberToObject(nc, v->subs[k].kind, 1);
				}
			cJSON_Delete(seen);
		} else {
			int64_t dummy;
			if (found && j < 0) {
				cause = "AMBIGUOUS_CORRELATION";
				cJSON_AddStringToObject(js, "detail", "two recorded requests name this span as their parent");
			} else if (found) {
				cause = "NO_MATCHING_MCP_TURN";
				cJSON_AddStringToObject(js, "detail", "the matching turn was not verified");
			} else {
				cause = "NO_MATCHING_MCP_TURN";
				cJSON_AddStringToObject(js, "detail",
							strmap_get(&trace_ids, s->trace_id, &dummy)
							    ? "its trace id was carried by recorded requests, but none named this span as "
							      "its parent"
							    : "no recorded request carried its trace id");
			}
			cJSON_AddStringToObject(js, "status", "UNVERIFIED");
			cJSON_AddStringToObject(js, "cause", cause);
			cJSON_AddNullToObject(js, "sub_verdicts");
			cJSON *c = cJSON_GetObjectItemCaseSensitive(unc, cause);
			if (c)
				cJSON_SetNumberValue(c, c->valuedouble + 1);
			else
				cJSON_AddNumberToObject(unc, cause, 1);
		}
		cJSON_AddItemToArray(sl, js);
	}
	cJSON *cor = cJSON_AddObjectToObject(o, "correlation");
	cJSON_AddNumberToObject(cor, "matched", (double)matched);
	cJSON_AddNumberToObject(cor, "total", (double)nspans);
	cJSON_AddItemToObject(cor, "uncorrelated", unc);
	cJSON_AddItemToObject(o, "not_covered", nc);
	cJSON_AddItemToObject(o, "spans", sl);
	*out = o;
out:
	free(refs);
	strmap_free(&keys);
	strmap_free(&trace_ids);
	return rc;
}
