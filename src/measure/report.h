/* report.h - `belay measure report`: what a ledger says, in the spec's fixed order
 * (docs/MEASURE.md, "Report"): detector identity; run size and dispositions; the headline
 * (violation rate = flagged/denominator, or INSTRUMENT SUSPECT and no percentage); coverage
 * (NOT_COVERED per kind as n/total turns); exposure; trajectory; then the per-turn FAIL
 * rate, the UNVERIFIED rate by cause and the false-positive rate where cases are labeled.
 * Every rate carries its numerator and denominator; a zero denominator is "n/a", never 0%.
 *
 * Must not: print (renders into buffers). Pure over the ledger (and the corpus counts the
 * caller passes). */
#ifndef BELAY_MEASURE_REPORT_H
#define BELAY_MEASURE_REPORT_H
#include <cjson/cJSON.h>

#include "common/buf.h"
#include "common/err.h"
#include "measure/ledger.h"

/* Labeled corpus cases of the ledger's traces (FAIL cases only: tp + fp), or have = 0. */
struct report_labels {
	int have;
	long tp, fp, pending;
};

/* "6.7%" or "n/a" (den 0). */
void report_pct(long num, long den, char out[16]);
/* 1 when the ledger's traces carried ~nothing verifiable (no percentage may be shown). */
int report_suspect(const struct ledger *l);

void report_text(const struct ledger *l, const struct report_labels *lab, struct buf *out);
/* {"instances","denominator","flagged","violation_rate"(null when suspect or n/a),
 *  "instrument_suspect", "dispositions", ...} (docs/MEASURE.md). Caller owns. */
cJSON *report_json(const struct ledger *l, const struct report_labels *lab);
/* One self-contained HTML page (inline CSS and SVG, no script, nothing fetched). */
void report_html(const struct ledger *l, const struct report_labels *lab, struct buf *out);

#endif
