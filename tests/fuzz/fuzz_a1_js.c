/* fuzz_a1_js.c - the JavaScript / TypeScript test judge (src/assertions/a1_js.c) on hostile
 * bytes.
 *
 * The input is split at its first 0xff byte into the pre and the post side (no 0xff: the
 * post side is absent, a deleted file); a leading "//ts\n" or "//tsx\n" picks the grammar
 * (else JavaScript). Every answer must be an array of findings of the contract's shape
 * (six members in order; FAIL and WARN with no cause, UNVERIFIED with one), print as valid
 * UTF-8 JSON, and a side judged against itself must give no FAIL and no WARN. Leaks,
 * overflows, unbounded recursion and the runtime's own double free are what libFuzzer and
 * the sanitizers report. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/err.h"
#include "assertions/a1_js.h"
#include "support.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *s = (const char *)data;
	enum a1_js_dialect d = A1_JS_JAVASCRIPT;
	const char *path = "src/calc.test.js";
	if (size >= 5 && !memcmp(s, "//ts\n", 5)) {
		d = A1_JS_TYPESCRIPT;
		path = "src/calc.test.ts";
	} else if (size >= 6 && !memcmp(s, "//tsx\n", 6)) {
		d = A1_JS_TSX;
		path = "src/calc.test.tsx";
	}
	const char *cut = memchr(s, 0xff, size);
	size_t pre_len = cut ? (size_t)(cut - s) : size;
	const char *post = cut ? cut + 1 : NULL;
	size_t post_len = cut ? size - pre_len - 1 : 0;
	cJSON *out = a1_js_judge(d, path, s, pre_len, post, post_len);
	fz_findings_check(out, 0, 0);
	cJSON_Delete(out);
	out = a1_js_judge(d, path, s, pre_len, s, pre_len);
	fz_findings_check(out, 1, 0);
	cJSON_Delete(out);
	int tests = -1, asserts = -1;
	int rc = a1_js_count(d, s, pre_len, &tests, &asserts);
	FZ_CHECK(rc == BELAY_EINVAL || (rc == 0 && tests >= 0 && asserts >= 0), "count %d %d %d", rc, tests, asserts);
	return 0;
}
