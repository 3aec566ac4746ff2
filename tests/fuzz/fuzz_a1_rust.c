/* fuzz_a1_rust.c - the Rust test judge (src/assertions/a1_rust.c, a1_lang.c) on hostile bytes.
 *
 * The input is split at its first 0xff byte into the pre and the post side (no 0xff: the post
 * side is absent, a deleted file). Every answer must be an array of findings of the
 * contract's shape (fz_findings_check), and a side judged against itself must give no FAIL and
 * no WARN. Leaks, overflows, unbounded recursion and the runtime's own double free are what
 * libFuzzer and the sanitizers report. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "assertions/a1_rust.h"
#include "support.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *s = (const char *)data;
	const char *cut = memchr(s, 0xff, size);
	size_t pre_len = cut ? (size_t)(cut - s) : size;
	const char *post = cut ? cut + 1 : NULL;
	size_t post_len = cut ? size - pre_len - 1 : 0;
	cJSON *out = a1_rust_judge(s, pre_len, post, post_len);
	fz_findings_check(out, 0, 0);
	cJSON_Delete(out);
	out = a1_rust_judge(s, pre_len, s, pre_len);
	fz_findings_check(out, 1, 0);
	cJSON_Delete(out);
	int tests = -1, asserts = -1;
	int rc = a1_rust_count(s, pre_len, &tests, &asserts);
	FZ_CHECK(rc == -1 || (rc == 0 && tests >= 0 && asserts >= 0), "count %d %d %d", rc, tests, asserts);
	return 0;
}
