/* merge.h - `belay measure merge` (shard ledgers into one) and `belay measure combine`
 * (several captures side by side). docs/MEASURE.md, "Shards" and "Combine".
 *
 * Merge refuses: a ledger that is not a finished shard (no end line), shards of different
 * counts, detectors or populations, the same shard twice, a trace in two shards. A shard
 * missing from 1..N is named; without allow_missing that is an error, with it the merged
 * header records the gap ("merged": {"missing": [...]}) and every report says INCOMPLETE.
 * Duplicates are decided again over the whole population (the first trace id in order
 * keeps its instance), so the merged lines equal an unsharded run's, line for line.
 *
 * Must not: print (combine renders into a buffer). */
#ifndef BELAY_MEASURE_MERGE_H
#define BELAY_MEASURE_MERGE_H
#include <stddef.h>

#include "common/buf.h"
#include "common/err.h"

struct merge_result {
	long count, present, lines;
	long missing[64];
	size_t nmissing; /* may exceed 64: only the first 64 are listed */
};

int measure_merge(char *const *paths, size_t n, const char *out, int allow_missing, struct merge_result *res,
		  struct err *e);

/* args: "LABEL=LEDGER" each. */
int measure_combine(char *const *args, size_t n, struct buf *out, struct err *e);

#endif
