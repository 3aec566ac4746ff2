/* fuzz_a1_go.c - the Go test judge (src/assertions/a1_go.c, a1_lang.c) on hostile bytes.
 *
 * The input is split at its first 0xff byte into the pre and the post side (no 0xff: the post
 * side is absent, a deleted file); fz_a1_lang checks every answer: an array of findings of
 * the contract's shape, a side judged against itself giving no FAIL and no WARN; a side
 * remembered by its bytes (a1_cache.h, its tree the other side is parsed against) judges as
 * read afresh: the same findings with nothing, the pre side, or both sides remembered; the
 * lazy reading (units outside the edit not walked) judges as the eager one (BELAY_A1_EAGER=1).
 * Leaks, overflows, unbounded recursion and the runtime's own double free are what libFuzzer
 * and the sanitizers report. */
#include <stdint.h>

#include "assertions/a1_go.h"
#include "support.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fz_a1_lang(data, size, a1_go_judge, a1_go_count);
	return 0;
}
