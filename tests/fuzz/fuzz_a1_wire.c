/* fuzz_a1_wire.c - the decoder of a side's facts as a bounded reading's child sends them
 * (src/assertions/a1_java_wire.h) on hostile bytes: it must refuse or decode without reading
 * past the input or leaking, and what it decodes must encode back to the same bytes. */
#include <stdint.h>
#include <string.h>

#include "assertions/a1_java_wire.h"
#include "support.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct a1_java_side s = {0};
	if (a1_java_wire_get((const char *)data, size, &s) == 0) {
		struct buf b = {0};
		a1_java_wire_put(&s, &b);
		FZ_CHECK(b.len == size && !memcmp(b.p, data, size), "decoded %zu bytes re-encode as %zu", size, b.len);
		buf_free(&b);
	}
	a1_java_side_free(&s);
	return 0;
}
