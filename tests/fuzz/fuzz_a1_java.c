/* fuzz_a1_java.c - the Java test judge (src/assertions/a1_java.c) on hostile bytes.
 *
 * The input is split at its first 0xff byte into the pre and the post side (no 0xff: the
 * post side is absent, a deleted file). Every answer must hold fz_findings_check's
 * invariants, and a side judged against itself must give no FAIL and no WARN; counting a side
 * either refuses it or counts something; the post side read incrementally against the pre
 * side's tree gives the same facts as read from scratch, and so do sides remembered by their
 * bytes (a1_cache.h): the pre side alone, then both; the lazy reading (methods outside the
 * edit not walked) judges as the eager one (BELAY_A1_EAGER=1), cold and warm. Leaks, overflows, unbounded recursion and the
 * runtime's own double free are what libFuzzer and the sanitizers report. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/err.h"
#include "assertions/a1_cache.h"
#include "assertions/a1_java.h"
#include "assertions/a1_java_facts.h"
#include "assertions/a1_java_wire.h"
#include "support.h"

static char *judged(const char *path, const char *pre, size_t pre_len, const char *post, size_t post_len)
{
	cJSON *out = a1_java_judge(path, pre, pre_len, post, post_len);
	char *t = cJSON_PrintUnformatted(out);
	cJSON_Delete(out);
	FZ_CHECK(t != NULL, "out of memory");
	return t;
}

/* The lazy reading (a1_java_facts.c: methods outside the edit not walked) judges as the eager
 * one (BELAY_A1_EAGER=1): cold, both sides remembered (partial), the pre side remembered whole. */
static void lazy_as_eager(const char *path, const char *pre, size_t pre_len, const char *post, size_t post_len)
{
	a1_cache_clear();
	setenv("BELAY_A1_EAGER", "1", 1);
	char *eager = judged(path, pre, pre_len, post, post_len);
	a1_cache_clear();
	free(judged(path, pre, pre_len, pre, pre_len)); /* the pre side remembered whole */
	unsetenv("BELAY_A1_EAGER");
	char *whole = judged(path, pre, pre_len, post, post_len);
	a1_cache_clear();
	char *cold = judged(path, pre, pre_len, post, post_len), *warm = judged(path, pre, pre_len, post, post_len);
	FZ_CHECK(!strcmp(cold, eager), "lazy: %s, eager: %s", cold, eager);
	FZ_CHECK(!strcmp(warm, eager), "lazy (warm): %s, eager: %s", warm, eager);
	FZ_CHECK(!strcmp(whole, eager), "lazy (pre side whole): %s, eager: %s", whole, eager);
	free(eager);
	free(whole);
	free(cold);
	free(warm);
	a1_cache_clear();
}

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
		/* remembered sides read as fresh ones: the pre side alone (the post side parsed
		 * against its kept tree), then both - read eagerly (a lazy reading's sides are
		 * partial: judged below by their findings) */
		setenv("BELAY_A1_EAGER", "1", 1);
		struct a1_java_side d = {0};
		a1_java_extract(s, pre_len, &d);
		a1_cache_clear();
		const struct a1_java_side *ra_s, *rb_s;
		struct a1_cache_ref *ra, *rb;
		a1_java_read_pair_cached(s, pre_len, s, pre_len, &ra_s, &rb_s, &ra, &rb);
		a1_cache_release(ra);
		a1_cache_release(rb);
		for (int round = 0; round < 2; round++) {
			a1_java_read_pair_cached(s, pre_len, cut + 1, size - pre_len - 1, &ra_s, &rb_s, &ra, &rb);
			struct buf w1 = {0}, w2 = {0}, w3 = {0}, w4 = {0};
			a1_java_wire_put(ra_s, &w1);
			a1_java_wire_put(&d, &w2);
			a1_java_wire_put(rb_s, &w3);
			a1_java_wire_put(&c, &w4);
			FZ_CHECK(w1.len == w2.len && !memcmp(w1.p, w2.p, w1.len), "a remembered pre side differs (round %d)", round);
			FZ_CHECK(w3.len == w4.len && !memcmp(w3.p, w4.p, w3.len), "a remembered post side differs (round %d)", round);
			buf_free(&w1);
			buf_free(&w2);
			buf_free(&w3);
			buf_free(&w4);
			a1_cache_release(ra);
			a1_cache_release(rb);
		}
		a1_cache_clear();
		unsetenv("BELAY_A1_EAGER");
		lazy_as_eager(path, s, pre_len, cut + 1, size - pre_len - 1);
		a1_java_side_free(&d);
		a1_java_side_free(&a);
		a1_java_side_free(&b);
		a1_java_side_free(&c);
	}
	return 0;
}
