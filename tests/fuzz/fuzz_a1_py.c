/* fuzz_a1_py.c - the Python test judge (src/assertions/a1_py.c) on hostile bytes.
 *
 * The input is split at its first 0xff byte into the pre and the post side (no 0xff: the post
 * side is absent, a deleted file, judged against the pre side itself as its one rename
 * candidate); a leading "#c\n" judges it as a conftest.py. Every answer must be an array of
 * findings of the contract's shape (six members in order; FAIL and WARN as the contract says,
 * UNVERIFIED with a cause), print as valid UTF-8 JSON, and a side judged against itself must
 * give no FAIL and no WARN. The seeds include nesting past the runtime's ~65,535 symbols
 * (brackets, `not` chains): leaks, overflows, unbounded recursion and the runtime's double
 * free are what libFuzzer and the sanitizers report. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/err.h"
#include "assertions/a1_py.h"
#include "support.h"

static void check(const cJSON *out, int self)
{
	fz_findings_check(out, self, 1);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *s = (const char *)data;
	const char *path = "tests/test_calc.py";
	if (size >= 3 && !memcmp(s, "#c\n", 3))
		path = "tests/conftest.py";
	const char *cut = memchr(s, 0xff, size);
	size_t pre_len = cut ? (size_t)(cut - s) : size;
	const char *post = cut ? cut + 1 : NULL;
	size_t post_len = cut ? size - pre_len - 1 : 0;
	struct a1_py_blob self = {s, pre_len};
	int renamed = -2, compared = -1;
	cJSON *out = a1_py_judge(path, s, pre_len, post, post_len, &self, 1, NULL, &renamed, &compared);
	check(out, 0);
	FZ_CHECK(compared == 0 || compared == 1, "compared %d", compared);
	FZ_CHECK(post || renamed == -1 || renamed == 0, "renamed_to %d", renamed);
	cJSON_Delete(out);
	out = a1_py_judge(path, s, pre_len, s, pre_len, NULL, 0, NULL, NULL, NULL);
	check(out, 1);
	cJSON_Delete(out);
	int fns = -1, asserts = -1;
	int rc = a1_py_count(s, pre_len, &fns, &asserts);
	FZ_CHECK(rc == BELAY_EINVAL || (rc == 0 && fns >= 0 && asserts >= 0), "count %d %d %d", rc, fns, asserts);
	return 0;
}
