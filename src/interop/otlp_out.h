/* otlp_out.h - belay's verdicts as OpenTelemetry spans, OTLP/JSON (docs/OTEL.md, "Out").
 *
 * One span per verified turn: a child of the agent's span when the turn's request carried a
 * W3C traceparent in _meta (same trace id, parentSpanId = its parent-id), else in a trace of
 * its own (trace id derived from the belay trace id). Ids are lowercase hex, times and
 * 64-bit integers decimal strings (the OTLP/JSON rules). Attributes: the tool, the verdict
 * and its cause, each axis's status, denials, network attempts, the effect summary; one
 * event per sub-verdict with its (scrubbed) message. Tool arguments and results only with
 * include_payloads, and then scrubbed of secrets like everything else (redact.h).
 * Pure (reads the trace; no network, no printing). */
#ifndef BELAY_INTEROP_OTLP_OUT_H
#define BELAY_INTEROP_OTLP_OUT_H
#include <cjson/cJSON.h>

#include "common/err.h"
#include "verify/verify.h"

struct otlp_out_opts {
	int include_payloads;
};

/* Appends one span per turn of r (verified from trace_path) to the array spans. */
int otlp_spans_for_trace(const char *trace_path, const struct verify_report *r, const struct otlp_out_opts *o,
			 cJSON *spans, struct err *e);
/* {"resourceSpans":[{"resource":{service.name=belay},"scopeSpans":[{"scope":{"name":"belay",
 *  "version":...},"spans":spans}]}]} - takes spans. */
cJSON *otlp_request(cJSON *spans);

/* A W3C traceparent split: 1 when it is well formed (version 00, lowercase hex, non-zero ids). */
struct traceparent {
	char trace_id[33], parent_id[17];
	unsigned flags;
};
int traceparent_parse(const char *s, struct traceparent *out);

#endif
