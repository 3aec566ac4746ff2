/* fuzz_a1_java.c - the Java test judge (src/assertions/a1_java.c) on hostile bytes.
 *
 * The input is split at its first 0xff byte into the pre and the post side (no 0xff: the
 * post side is absent, a deleted file). Every answer must hold fz_findings_check's
 * invariants, and a side judged against itself must give no FAIL and no WARN; counting a side
 * either refuses it or counts something; the post side read incrementally against the pre
 * side's tree gives the same facts as read from scratch. Leaks, overflows, unbounded recursion and the
 * runtime's own double free are what libFuzzer and the sanitizers report. */
#include <stdint.h>
#include <string.h>

#include "common/err.h"
#include "assertions/a1_java.h"
#include "assertions/a1_java_facts.h"
#include "assertions/a1_java_wire.h"
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
	/* the post side parsed against the pre side's edited tree reads as it does from scratch */
	if (cut) {
		struct a1_java_side a = {0}, b = {0}, c = {0};
		a1_java_extract_pair(s, pre_len, cut + 1, size - pre_len - 1, &a, &b);
		a1_java_extract(cut + 1, size - pre_len - 1, &c);
		struct buf wb = {0}, wc = {0};
		a1_java_wire_put(&b, &wb);
		a1_java_wire_put(&c, &wc);
		FZ_CHECK(wb.len == wc.len && !memcmp(wb.p, wc.p, wb.len), "the incremental post side differs from scratch");
		buf_free(&wb);
		buf_free(&wc);
		a1_java_side_free(&a);
		a1_java_side_free(&b);
		a1_java_side_free(&c);
	}
	return 0;
}
