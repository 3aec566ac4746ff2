/* fuzz_jcs.c - the JCS canonicaliser (src/common/jcs.c), differentially.
 *
 * Every input goes through the fast path (jcs_canonicalize), the reference path (cJSON's
 * parse + jcs_serialize: jcs_canonicalize_ref) and jcs_canonicalize_same. They must agree
 * on refusing, and on the bytes; "already canonical" (1) must mean the reference gives
 * back the input itself, and a refusal appends nothing. The canonical form must be a fixed
 * point (canonicalising it again says "already canonical") and valid UTF-8. */
#include <stdint.h>
#include <string.h>

#include "common/buf.h"
#include "common/err.h"
#include "common/jcs.h"
#include "common/jsonx.h"
#include "support.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *in = (const char *)data;
	struct buf a = {0}, b = {0}, c = {0}, again = {0};
	int ra = jcs_canonicalize(in, size, &a);
	int rb = jcs_canonicalize_ref(in, size, &b);
	int rc = jcs_canonicalize_same(in, size, &c);
	FZ_CHECK(ra == 0 || ra == BELAY_EINVAL, "jcs_canonicalize returned %d", ra);
	FZ_CHECK(ra == rb, "fast path %d, reference %d for [%.*s]", ra, rb, (int)size, in);
	if (ra == 0) {
		FZ_CHECK(a.len == b.len && memcmp(a.p, b.p, a.len) == 0, "fast [%.*s] vs reference [%.*s]", (int)a.len,
			 a.p, (int)b.len, b.p);
		FZ_CHECK(utf8_valid(b.p, b.len), "the canonical form is not UTF-8");
		FZ_CHECK(jcs_canonicalize_same(b.p, b.len, &again) == 1 && again.len == 0,
			 "the canonical form [%.*s] is not its own canonical form", (int)b.len, b.p);
	} else {
		FZ_CHECK(a.len == 0 && b.len == 0, "a refusal appended bytes");
	}
	if (rc == 1) {
		FZ_CHECK(c.len == 0, "\"already canonical\" appended bytes");
		FZ_CHECK(rb == 0 && b.len == size && memcmp(b.p, in, size) == 0, "said canonical but is not");
	} else {
		FZ_CHECK(rc == rb, "jcs_canonicalize_same %d, reference %d", rc, rb);
		FZ_CHECK(rb != 0 || b.len != size || memcmp(b.p, in, size) != 0, "canonical but not said so");
		if (rc == 0)
			FZ_CHECK(c.len == b.len && memcmp(c.p, b.p, b.len) == 0, "jcs_canonicalize_same's bytes differ");
	}
	buf_free(&a);
	buf_free(&b);
	buf_free(&c);
	buf_free(&again);
	return 0;
}
