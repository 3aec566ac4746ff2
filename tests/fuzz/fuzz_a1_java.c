/* fuzz_a1_java.c - the Java test judge (src/assertions/a1_java.c) on hostile bytes.
 *
 * The input is split at its first 0xff byte into the pre and the post side (no 0xff: the
 * post side is absent, a deleted file). Every answer must hold fz_findings_check's
 * invariants, and a side judged against itself must give no FAIL and no WARN; counting a side
 * either refuses it or counts something. Leaks, overflows, unbounded recursion and the
 * runtime's own double free are what libFuzzer and the sanitizers report. */
#include <stdint.h>
#include <string.h>

#include "common/err.h"
#include "assertions/a1_java.h"
#include "support.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *s = (const char *)data, *path = "src/test/java/CalcTest.java";
	const char *cut = memchr(s, 0xff, size);
	size_t pre_len = cut ? (size_t)(cut - s) : size;
	cJSON *out = a1_java_judge(path, s, pre_len, cut ? cut + 1 : NULL, cut ? size - pre_len - 1 : 0);
	fz_findings_check(out, 0, 0);
	cJSON_Delete(out);
	out = a1_java_judge(path, s, pre_len, s, pre_len);
	fz_findings_check(out, 1, 0);
	cJSON_Delete(out);
	int tests = -1, asserts = -1, rc = a1_java_count(s, pre_len, &tests, &asserts);
	FZ_CHECK(rc == BELAY_EINVAL || (rc == 0 && tests >= 0 && asserts >= 0), "count %d %d %d", rc, tests, asserts);
	return 0;
}
