/* otlp_out.c - turns as OTLP/JSON spans. See otlp_out.h. */
#include "interop/otlp_out.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/hash.h"
#include "common/jsonx.h"
#include "common/timeutil.h"
#include "common/xalloc.h"
#include "mcp/model.h"
#include "trace/trace_model.h"
#include "trace/trace_reader.h"
#include "interop/redact.h"
#include "measure/batch.h"

static int hexlower(const char *s, size_t n)
{
	int nonzero = 0;
	for (size_t i = 0; i < n; i++) {
		if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
			return 0;
		nonzero |= s[i] != '0';
	}
	return nonzero;
}

int traceparent_parse(const char *s, struct traceparent *out)
{
	/* 00-<32 hex>-<16 hex>-<2 hex> */
	if (!s || strlen(s) != 55 || strncmp(s, "00-", 3) || s[35] != '-' || s[52] != '-')
		return 0;
	if (!hexlower(s + 3, 32) || !hexlower(s + 36, 16))
		return 0;
	unsigned f;
	char fl[3] = {s[53], s[54], 0};
	if (!hexlower(fl, 2) && strcmp(fl, "00"))
		return 0;
	if (sscanf(fl, "%2x", &f) != 1)
		return 0;
	memcpy(out->trace_id, s + 3, 32);
	out->trace_id[32] = 0;
	memcpy(out->parent_id, s + 36, 16);
	out->parent_id[16] = 0;
	out->flags = f;
	return 1;
}

static void derived_id(const char *a, const char *b, size_t hexlen, char *out)
{
	char *k = xasprintf("belay:%s:%s", a, b);
	uint8_t h[SHA256_LEN];
	char hex[SHA256_HEX_LEN + 1];
	sha256(k, strlen(k), h);
	hex_encode(h, SHA256_LEN, hex);
	memcpy(out, hex, hexlen);
	out[hexlen] = 0;
	free(k);
}

static void ns_string(const char *iso, char out[24])
{
	struct timespec ts;
	if (!iso || !*iso || time_parse_iso8601(iso, &ts) != 0)
		snprintf(out, 24, "0");
	else
		snprintf(out, 24, "%" PRIu64, (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec);
}

static void attr(cJSON *arr, const char *key, const char *type, cJSON *value)
{
	cJSON *kv = cJSON_CreateObject();
	cJSON_AddStringToObject(kv, "key", key);
	cJSON *v = cJSON_AddObjectToObject(kv, "value");
	cJSON_AddItemToObject(v, type, value);
	cJSON_AddItemToArray(arr, kv);
}

static void attr_str(cJSON *arr, const char *key, const char *s)
{
	char *r = redact_text(s ? s : "");
	attr(arr, key, "stringValue", cJSON_CreateString(r));
	free(r);
}

static void attr_int(cJSON *arr, const char *key, long long n)
{
	char s[24];
	snprintf(s, sizeof s, "%lld", n);
	attr(arr, key, "intValue", cJSON_CreateString(s));
}

static void attr_bool(cJSON *arr, const char *key, int b)
{
	attr(arr, key, "boolValue", cJSON_CreateBool(b));
}

/* The JSON of one message of a frame (a batch's item), or NULL. New. */
static cJSON *message_of(const struct trace *t, const struct model *m, size_t frame, int item)
{
	if (frame == SIZE_MAX)
		return NULL;
	const struct trace_record *r = &t->recs[m->frames[frame].rec];
	if (r->truncated)
		return NULL;
	cJSON *v = cJSON_ParseWithLength(r->bytes, r->len);
	if (cJSON_IsArray(v)) {
		cJSON *el = cJSON_DetachItemFromArray(v, item);
		cJSON_Delete(v);
		v = el;
	}
	return v;
}

static void payload_attr(cJSON *attrs, const char *key, cJSON *msg, const char *path)
{
	cJSON *part = msg ? jx_path(msg, path) : NULL;
	if (!part)
		return;
	cJSON *copy = cJSON_Duplicate(part, 1);
	redact_json(copy);
	char *s = jx_print(copy);
	attr(attrs, key, "stringValue", cJSON_CreateString(s));
	cJSON_free(s);
	cJSON_Delete(copy);
}

static cJSON *span_for(const char *trace_id, const struct trace *t, const struct model *m,
		       const struct turn_verdict *v, const struct otlp_out_opts *o)
{
	const struct exchange *x = &m->ex[m->turns[v->turn]];
	struct traceparent tp;
	int has_parent = traceparent_parse(x->traceparent, &tp);
	char tid[33], sid[17], turn[16];
	snprintf(turn, sizeof turn, "%d", v->turn);
	if (has_parent)
		memcpy(tid, tp.trace_id, 33);
	else
		derived_id("trace", trace_id, 32, tid);
	derived_id(trace_id, turn, 16, sid);
	cJSON *s = cJSON_CreateObject();
	cJSON_AddStringToObject(s, "traceId", tid);
	cJSON_AddStringToObject(s, "spanId", sid);
	if (has_parent)
		cJSON_AddStringToObject(s, "parentSpanId", tp.parent_id);
	char *name = xasprintf("belay verify %s", v->tool ? v->tool : "?");
	char *rname = redact_text(name);
	cJSON_AddStringToObject(s, "name", rname);
	free(rname);
	free(name);
	cJSON_AddNumberToObject(s, "kind", 1); /* SPAN_KIND_INTERNAL */
	char t0[24], t1[24];
	ns_string(x->t_req, t0);
	ns_string(x->t_resp[0] ? x->t_resp : x->t_req, t1);
	cJSON_AddStringToObject(s, "startTimeUnixNano", t0);
	cJSON_AddStringToObject(s, "endTimeUnixNano", t1);
	cJSON *attrs = cJSON_AddArrayToObject(s, "attributes");
	attr_str(attrs, "belay.trace_id", trace_id);
	attr_int(attrs, "belay.turn", v->turn);
	attr_str(attrs, "belay.tool", v->tool);
	attr_str(attrs, "belay.verdict", vstatus_name(v->status));
	if (v->cause[0])
		attr_str(attrs, "belay.cause", v->cause);
	attr_bool(attrs, "belay.replayed", v->replayed);
	/* each axis: the worst status among its sub-verdicts of that kind */
	char done[16][64];
	int ndone = 0;
	for (size_t i = 0; i < v->nsubs && ndone < 16; i++) {
		char key[64];
		snprintf(key, sizeof key, "belay.%s.%s", v->subs[i].axis, v->subs[i].kind);
		int seen = 0;
		for (int k = 0; k < ndone; k++)
			seen |= !strcmp(done[k], key);
		if (seen)
			continue;
		snprintf(done[ndone++], 64, "%s", key);
		int worst = -1;
		for (size_t j = i; j < v->nsubs; j++)
			if (!strcmp(v->subs[j].axis, v->subs[i].axis) && !strcmp(v->subs[j].kind, v->subs[i].kind)) {
				int st = v->subs[j].status;
				/* NOT_COVERED ranks below everything judged */
				int rank = st == V_NOT_COVERED ? -1 : st;
				int wrank = worst == V_NOT_COVERED ? -1 : worst;
				if (worst < 0 || rank > wrank)
					worst = st;
			}
		attr_str(attrs, key, vstatus_name((enum vstatus)worst));
	}
	long denials = 0, net = 0;
	for (const cJSON *d = v->denials ? v->denials->child : NULL; d; d = d->next) {
		const char *kind = jx_str(d, "kind"), *fam = jx_str(d, "family");
		denials += kind && !strcmp(kind, "denial");
		net += fam && (!strcmp(fam, "inet") || !strcmp(fam, "inet6") || !strcmp(fam, "unix"));
	}
	attr_int(attrs, "belay.denials", denials);
	attr_int(attrs, "belay.network_attempts", net);
	if (v->effect) {
		long add = 0, rem = 0, chg = 0;
		cJSON *paths = cJSON_CreateArray();
		for (const cJSON *it = v->effect->child; it; it = it->next) {
			const char *ch = jx_str(it, "change");
			add += ch && !strcmp(ch, "added");
			rem += ch && !strcmp(ch, "removed");
			chg += ch && !strcmp(ch, "changed");
			if (cJSON_GetArraySize(paths) < 16 && jx_str(it, "path")) {
				char *r = redact_text(jx_str(it, "path"));
				cJSON *sv = cJSON_CreateObject();
				cJSON_AddStringToObject(sv, "stringValue", r);
				cJSON_AddItemToArray(paths, sv);
				free(r);
			}
		}
		attr_int(attrs, "belay.effect.added", add);
		attr_int(attrs, "belay.effect.removed", rem);
		attr_int(attrs, "belay.effect.changed", chg);
		cJSON *av = cJSON_CreateObject();
		cJSON_AddItemToObject(av, "values", paths);
		attr(attrs, "belay.effect.paths", "arrayValue", av);
	}
	if (o->include_payloads) {
		cJSON *req = message_of(t, m, x->req_frame, x->req_item);
		cJSON *resp = x->resp_seq >= 0 ? message_of(t, m, x->resp_frame, x->resp_item) : NULL;
		payload_attr(attrs, "belay.request.arguments", req, "params.arguments");
		payload_attr(attrs, "belay.response.result", resp, "result");
		cJSON_Delete(req);
		cJSON_Delete(resp);
	}
	cJSON_AddNumberToObject(s, "droppedAttributesCount", 0);
	cJSON *events = cJSON_AddArrayToObject(s, "events");
	for (size_t i = 0; i < v->nsubs; i++) {
		const struct subverdict *sv = &v->subs[i];
		cJSON *ev = cJSON_CreateObject();
		cJSON *ea = cJSON_CreateArray();
		attr_str(ea, "belay.axis", sv->axis);
		attr_str(ea, "belay.kind", sv->kind);
		attr_str(ea, "belay.status", vstatus_name(sv->status));
		if (sv->cause[0])
			attr_str(ea, "belay.cause", sv->cause);
		if (sv->rule)
			attr_str(ea, "belay.rule", sv->rule);
		attr_str(ea, "belay.message", sv->message);
		cJSON_AddItemToObject(ev, "attributes", ea);
		cJSON_AddStringToObject(ev, "name", "belay.subverdict");
		cJSON_AddStringToObject(ev, "timeUnixNano", t1);
		cJSON_AddNumberToObject(ev, "droppedAttributesCount", 0);
		cJSON_AddItemToArray(events, ev);
	}
	cJSON_AddNumberToObject(s, "droppedEventsCount", 0);
	cJSON *st = cJSON_AddObjectToObject(s, "status");
	/* OK only for PASS: UNVERIFIED and WARN are not a success, FAIL is an error */
	cJSON_AddNumberToObject(st, "code", v->status == V_FAIL ? 2 : v->status == V_PASS ? 1 : 0);
	if (v->status == V_FAIL) {
		char *msg = xasprintf("belay: FAIL%s%s", v->cause[0] ? " " : "", v->cause);
		cJSON_AddStringToObject(st, "message", msg);
		free(msg);
	}
	cJSON_AddArrayToObject(s, "links");
	cJSON_AddNumberToObject(s, "droppedLinksCount", 0);
	/* W3C flags (sampled) | HAS_IS_REMOTE, | IS_REMOTE when the parent came from the agent */
	cJSON_AddNumberToObject(s, "flags", 0x101 | (has_parent ? 0x200 : 0));
	return s;
}

int otlp_spans_for_trace(const char *trace_path, const struct verify_report *r, const struct otlp_out_opts *o,
			 cJSON *spans, struct err *e)
{
	struct trace *t = NULL;
	int rc = trace_read(trace_path, &t, e);
	if (rc)
		return rc;
	struct model m;
	model_init(&m);
	trace_build_model(t, &m);
	char *id = measure_trace_id(trace_path);
	for (size_t i = 0; i < r->n; i++)
		if (r->turns[i].turn >= 0 && (size_t)r->turns[i].turn < m.nturns)
			cJSON_AddItemToArray(spans, span_for(id, t, &m, &r->turns[i], o));
	free(id);
	model_free(&m);
	trace_free(t);
	return 0;
}

cJSON *otlp_request(cJSON *spans)
{
	cJSON *req = cJSON_CreateObject();
	cJSON *rs = cJSON_AddArrayToObject(req, "resourceSpans");
	cJSON *one = cJSON_CreateObject();
	cJSON_AddItemToArray(rs, one);
	cJSON *res = cJSON_AddObjectToObject(one, "resource");
	cJSON *ra = cJSON_AddArrayToObject(res, "attributes");
	attr_str(ra, "service.name", "belay");
	attr_str(ra, "service.version", BELAY_VERSION_STRING);
	cJSON_AddNumberToObject(res, "droppedAttributesCount", 0);
	cJSON *ss = cJSON_AddArrayToObject(one, "scopeSpans");
	cJSON *sc = cJSON_CreateObject();
	cJSON_AddItemToArray(ss, sc);
	cJSON *scope = cJSON_AddObjectToObject(sc, "scope");
	cJSON_AddStringToObject(scope, "name", "belay");
	cJSON_AddStringToObject(scope, "version", BELAY_VERSION_STRING);
	cJSON_AddItemToObject(sc, "spans", spans);
	return req;
}
