/* correlate.h - OpenTelemetry in: an agent's spans (OTLP/JSON as the collector's file
 * exporter writes it: one ExportTraceServiceRequest per line, or one object) joined to the
 * turns of belay traces by the W3C traceparent each tools/call request carried in _meta
 * (docs/OTEL.md, "In").
 *
 * A turn whose request's traceparent is (trace-id, parent-id) matches the span with
 * traceId = trace-id and spanId = parent-id: the agent's span that made the call. Every span
 * is either MATCHED (it gets its turn's real verdict), or UNVERIFIED with a named reason:
 * NO_MATCHING_MCP_TURN (no request named it; the detail says whether its trace id was seen
 * at all) or AMBIGUOUS_CORRELATION (two turns name it). Parsing is fail-closed: a
 * malformation is a named error naming the line and the span. Pure (no printing). */
#ifndef BELAY_INTEROP_CORRELATE_H
#define BELAY_INTEROP_CORRELATE_H
#include <cjson/cJSON.h>
#include <stddef.h>

#include "common/err.h"
#include "verify/verify.h"

struct otlp_span {
	char *trace_id, *span_id, *parent_span_id, *name; /* owned; parent may be NULL */
	int line; /* of the file */
};

/* Reads the spans of an OTLP/JSON file. *out / *n: new array (otlp_spans_free). */
int otlp_spans_read(const char *path, struct otlp_span **out, size_t *n, struct err *e);
void otlp_spans_free(struct otlp_span *v, size_t n);

struct correlate_trace {
	const char *path;
	const struct verify_report *r; /* its verdicts */
};

/* {"traces":[...],"correlation":{"matched","total","uncorrelated":{cause:n}},
 *  "not_covered":{kind:n},"spans":[{"span_id","trace_id","name","trace","turn_index"|null,
 *  "status","cause"|null,"detail"?,"sub_verdicts"|null}]}. */
int correlate(const struct otlp_span *spans, size_t nspans, const struct correlate_trace *traces, size_t ntraces,
	      cJSON **out, struct err *e);

#endif
