/* merge.c - joining shard ledgers, refusing overlaps and naming gaps. See merge.h. */
#include "measure/merge.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/jsonx.h"
#include "common/strmap.h"
#include "common/xalloc.h"
#include "measure/ledger.h"

static int cmp_line(const void *a, const void *b)
{
	return strcmp(jx_str(*(cJSON *const *)a, "trace_id"), jx_str(*(cJSON *const *)b, "trace_id"));
}

int measure_merge(char *const *paths, size_t n, const char *out, int allow_missing, struct merge_result *res,
		  struct err *e)
{
	memset(res, 0, sizeof *res);
	struct ledger *L = xcalloc(n + 1, sizeof *L);
	int rc = 0;
	size_t loaded = 0;
	long count = 0;
	const cJSON *det = NULL, *pop = NULL;
	const char **by_index = NULL;
	for (; loaded < n && !rc; loaded++)
		rc = ledger_load(&L[loaded], paths[loaded], 0, e);
	for (size_t i = 0; i < n && !rc; i++) {
		const cJSON *h = L[i].header;
		const cJSON *sh = h ? cJSON_GetObjectItemCaseSensitive(h, "shard") : NULL;
		long long idx, cnt;
		if (!h || !jx_int(sh, "index", 1, 1 << 30, &idx) || !jx_int(sh, "count", 1, 1 << 30, &cnt)) {
			rc = err_set(e, BELAY_EINVAL, "%s is not a shard ledger (no header with a shard index and count)", paths[i]);
			break;
		}
		if (!L[i].end) {
			rc = err_set(e, BELAY_EINVAL,
				     "%s (shard %lld/%lld) did not finish: %zu line(s) so far; re-run it with the same --out", paths[i],
				     idx, cnt, L[i].n);
			break;
		}
		if (!count) {
			count = (long)cnt;
			det = cJSON_GetObjectItemCaseSensitive(h, "detector");
			pop = cJSON_GetObjectItemCaseSensitive(L[i].end, "population");
			by_index = xcalloc((size_t)count + 1, sizeof *by_index);
		} else if (cnt != count) {
			rc = err_set(e, BELAY_EINVAL, "%s is shard %lld of %lld, the others are of %ld", paths[i], idx, cnt, count);
			break;
		} else if (!jx_equal(det, cJSON_GetObjectItemCaseSensitive(h, "detector"))) {
			rc = err_set(e, BELAY_EINVAL, "%s was measured by another detector than %s", paths[i], paths[0]);
			break;
		} else if (!jx_equal(pop, cJSON_GetObjectItemCaseSensitive(L[i].end, "population"))) {
			rc = err_set(e, BELAY_EINVAL, "%s saw another set of traces than %s (the population differs)", paths[i],
				     paths[0]);
			break;
		}
		if (by_index[idx]) {
			rc = err_set(e, BELAY_EINVAL, "shard %lld/%ld is given twice (%s and %s)", idx, count, by_index[idx], paths[i]);
			break;
		}
		by_index[idx] = paths[i];
	}
	cJSON **lines = NULL;
	size_t nl = 0, cap = 0;
	struct strmap where;
	strmap_init(&where);
	for (size_t i = 0; i < n && !rc; i++)
		for (size_t k = 0; k < L[i].n && !rc; k++) {
			const char *id = jx_str(L[i].lines[k], "trace_id");
			int64_t j;
			if (strmap_get(&where, id, &j)) {
				rc = err_set(e, BELAY_EINVAL, "trace %s is in two shards (%s and %s): the shards overlap", id,
					     paths[j], paths[i]);
				break;
			}
			strmap_put(&where, id, (int64_t)i);
			lines = xgrow_zeroed(lines, &cap, nl, sizeof *lines, 256);
			lines[nl++] = L[i].lines[k]; /* taken: the ledger no longer frees it */
			L[i].lines[k] = NULL;
		}
	strmap_free(&where);
	if (!rc) {
		res->count = count;
		for (long i = 1; i <= count; i++) {
			if (by_index[i]) {
				res->present++;
			} else {
				if (res->nmissing < 64)
					res->missing[res->nmissing] = i;
				res->nmissing++;
			}
		}
		if (res->nmissing && !allow_missing) {
			char list[400] = "";
			size_t off = 0;
			for (size_t i = 0; i < res->nmissing && i < 64 && off < sizeof list - 16; i++)
				off += (size_t)snprintf(list + off, sizeof list - off, "%s%ld/%ld", i ? ", " : "", res->missing[i], count);
			rc = err_set(e, BELAY_EINVAL,
				     "missing shard(s) %s%s: their traces would silently leave the denominator (pass "
				     "--allow-missing to merge anyway; the report then says INCOMPLETE)",
				     list, res->nmissing > 64 ? ", ..." : "");
		}
	}
	if (!rc) {
		/* duplicates over the whole population: the first trace id keeps its instance */
		qsort(lines, nl, sizeof *lines, cmp_line);
		struct strmap first;
		strmap_init(&first);
		for (size_t i = 0; i < nl; i++) {
			const char *sha = jx_str(lines[i], "trace_sha256");
			int64_t j;
			if (!sha)
				continue;
			if (!strmap_get(&first, sha, &j)) {
				strmap_put(&first, sha, (int64_t)i);
				continue;
			}
			cJSON *d = cJSON_CreateObject();
			cJSON_AddStringToObject(d, "kind", "duplicate");
			cJSON_AddStringToObject(d, "trace_id", jx_str(lines[i], "trace_id"));
			cJSON_AddStringToObject(d, "trace_sha256", sha);
			cJSON_AddStringToObject(d, "same_as", jx_str(lines[j], "trace_id"));
			cJSON_Delete(lines[i]);
			lines[i] = d;
		}
		strmap_free(&first);
		cJSON *h = cJSON_CreateObject();
		cJSON_AddStringToObject(h, "kind", "header");
		cJSON_AddStringToObject(h, "format", LEDGER_FORMAT);
		cJSON_AddNumberToObject(h, "version", 1);
		cJSON_AddItemToObject(h, "detector", cJSON_Duplicate(det, 1));
		cJSON *sh = cJSON_AddObjectToObject(h, "shard");
		cJSON_AddNumberToObject(sh, "index", 1);
		cJSON_AddNumberToObject(sh, "count", 1);
		cJSON_AddStringToObject(sh, "source", "merge");
		cJSON_AddItemToObject(h, "population", cJSON_Duplicate(pop, 1));
		cJSON *m = cJSON_AddObjectToObject(h, "merged");
		cJSON_AddNumberToObject(m, "count", (double)count);
		cJSON_AddNumberToObject(m, "present", (double)res->present);
		cJSON *miss = cJSON_AddArrayToObject(m, "missing");
		for (long i = 1; i <= count; i++)
			if (!by_index[i])
				cJSON_AddItemToArray(miss, cJSON_CreateNumber((double)i));
		cJSON *end = cJSON_CreateObject();
		cJSON_AddStringToObject(end, "kind", "end");
		cJSON_AddNumberToObject(end, "selected", (double)nl);
		cJSON_AddItemToObject(end, "population", cJSON_Duplicate(pop, 1));
		rc = ledger_write_sorted(out, h, lines, nl, end, e);
		res->lines = (long)nl;
		cJSON_Delete(h);
		cJSON_Delete(end);
	}
	for (size_t i = 0; i < nl; i++)
		cJSON_Delete(lines[i]);
	free(lines);
	free(by_index);
	for (size_t i = 0; i < loaded; i++)
		ledger_free(&L[i]);
	free(L);
	return rc;
}
