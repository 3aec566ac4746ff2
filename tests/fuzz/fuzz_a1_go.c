/* fuzz_a1_go.c - the Go test judge (src/assertions/a1_go.c, a1_lang.c) on hostile bytes.
 *
 * The input is split at its first 0xff byte into the pre and the post side (no 0xff: the post
 * side is absent, a deleted file); fz_a1_lang checks every answer: an array of findings of
 * the contract's shape, a side judged against itself giving no FAIL and no WARN; a side
 * remembered by its bytes (a1_cache.h, its tree the other side is parsed against) judges as
 * read afresh: the same findings with nothing, the pre side, or both sides remembered.
 * Leaks, overflows, unbounded recursion and the runtime's own double free are what libFuzzer
 * and the sanitizers report. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "assertions/a1_cache.h"
#include "assertions/a1_go.h"
#include "support.h"

static char *judged(const char *pre, size_t pre_len, const char *post, size_t post_len)
{
	cJSON *o = a1_go_judge(pre, pre_len, post, post_len);
	char *s = cJSON_PrintUnformatted(o);
	cJSON_Delete(o);
	return s;
}

static void remembered_as_fresh(const uint8_t *data, size_t size)
{
	const char *s = (const char *)data, *cut = memchr(s, 0xff, size);
	if (!cut)
		return;
	size_t pre_len = (size_t)(cut - s), post_len = size - pre_len - 1;
	a1_cache_clear();
	char *cold = judged(s, pre_len, cut + 1, post_len);
	a1_cache_clear();
	free(judged(s, pre_len, s, pre_len)); /* the pre side remembered, with its tree */
	char *pre_warm = judged(s, pre_len, cut + 1, post_len), *both_warm = judged(s, pre_len, cut + 1, post_len);
	FZ_CHECK(!strcmp(cold, pre_warm), "pre side remembered: %s, fresh: %s", pre_warm, cold);
	FZ_CHECK(!strcmp(cold, both_warm), "both sides remembered: %s, fresh: %s", both_warm, cold);
	free(cold);
	free(pre_warm);
	free(both_warm);
	a1_cache_clear();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fz_a1_lang(data, size, a1_go_judge, a1_go_count);
	remembered_as_fresh(data, size);
	return 0;
}
