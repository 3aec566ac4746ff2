/* fuzz_a1_kotlin.c - the Kotlin test judge (src/assertions/a1_kotlin.h) on hostile bytes.
 *
 * The input is split at its first 0xff byte into the pre and the post side (no 0xff: the
 * post side is absent, a deleted file). Every answer must hold fz_findings_check's
 * invariants, and a side judged against itself must give no FAIL and no WARN; counting a side
 * either refuses it or counts something.
 *
 * Each side is read by a long-lived bounded worker (a1_worker.h) that remembers recent sides
 * (the support's cold / warm comparison forgets them through a1_cache_clear), or in a one-shot
 * bounded child (a1_bound.h): every answer without a parse-bounded finding is read again in a
 * one-shot child and must be the same. The grammar's scanner loops for ever on
 * inputs as short as `class T \n @Testss` (regress/a1_kotlin holds those found), which must come
 * back UNVERIFIED parse-bounded, not hang the judge. The bound is lowered here to 250 ms of
 * CPU so that one such input (up to three bounded children: the pair, the side against itself,
 * the count; each also stopped at 3x its bound + 1 s of wall time) stays well inside
 * libFuzzer's 10 s on a loaded machine (at 1 s, beside two CPU hogs, one took over 10 s). The child's coverage does not
 * reach libFuzzer (it is another process): what is steered by coverage here is the parent's
 * side - the runner, the facts off the wire (fuzz_a1_wire fuzzes their decoding alone), the
 * judge. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "assertions/a1_kotlin.h"
#include "support.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	setenv("BELAY_A1_PARSE_MS", "250", 1);
	return 0;
}

static cJSON *judge(const char *pre, size_t pre_len, const char *post, size_t post_len)
{
	cJSON *out = a1_kotlin_judge("src/test/kotlin/CalcTest.kt", pre, pre_len, post, post_len);
	char *w = cJSON_PrintUnformatted(out);
	if (!strstr(w, "\"parse-bounded\"")) { /* a bounded one would cost its bound again */
		a1_kotlin_worker_use(0);
		cJSON *one = a1_kotlin_judge("src/test/kotlin/CalcTest.kt", pre, pre_len, post, post_len);
		a1_kotlin_worker_use(1);
		char *o = cJSON_PrintUnformatted(one);
		FZ_CHECK(!strcmp(w, o), "worker: %s, one-shot child: %s", w, o);
		free(o);
		cJSON_Delete(one);
	}
	free(w);
	return out;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fz_a1_lang(data, size, judge, a1_kotlin_count);
	return 0;
}
