/* ts_a1lazy.c - see ts_a1lazy.h. */
#include "ts_a1lazy.h"

#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "assertions/a1_cache.h"
#include "assertions/a1_go.h"
#include "assertions/a1_java.h"
#include "assertions/a1_rust.h"
#include "common/xalloc.h"

static int ends(const char *s, const char *suf)
{
	size_t n = strlen(s), k = strlen(suf);
	return n >= k && !strcmp(s + n - k, suf);
}

int ts_a1lazy_judged(const char *path)
{
	return ends(path, ".go") || ends(path, ".rs") || ends(path, ".java");
}

char *ts_a1lazy_findings(const char *path, const char *pre, size_t pre_len, const char *post, size_t post_len,
			 int eager, int cold)
{
	if (cold) {
		a1_cache_clear();
		a1_rust_memo_clear();
	}
	if (eager)
		setenv("BELAY_A1_EAGER", "1", 1);
	cJSON *f = ends(path, ".go")   ? a1_go_judge(pre, pre_len, post, post_len)
		   : ends(path, ".rs") ? a1_rust_judge(pre, pre_len, post, post_len)
				       : a1_java_judge(path, pre, pre_len, post, post_len);
	unsetenv("BELAY_A1_EAGER");
	char *s = cJSON_PrintUnformatted(f);
	cJSON_Delete(f);
	if (!s)
		cr_assert_fail("out of memory");
	return s;
}

void ts_a1lazy_same(const char *what, const char *path, const char *pre, size_t pre_len, const char *post,
		    size_t post_len)
{
	if (!ts_a1lazy_judged(path))
		return;
	char *want = ts_a1lazy_findings(path, pre, pre_len, post, post_len, 1, 1);
	char *cold = ts_a1lazy_findings(path, pre, pre_len, post, post_len, 0, 1);
	cr_assert_str_eq(cold, want, "%s: lazy (cold) differs from eager", what);
	char *warm = ts_a1lazy_findings(path, pre, pre_len, post, post_len, 0, 0);
	cr_assert_str_eq(warm, want, "%s: lazy (both sides remembered) differs from eager", what);
	/* the pre side remembered whole: an eager reading of it first */
	free(ts_a1lazy_findings(path, pre, pre_len, pre, pre_len, 1, 1));
	char *whole = ts_a1lazy_findings(path, pre, pre_len, post, post_len, 0, 0);
	cr_assert_str_eq(whole, want, "%s: lazy (pre side remembered whole) differs from eager", what);
	free(want);
	free(cold);
	free(warm);
	free(whole);
	a1_cache_clear();
	a1_rust_memo_clear();
}
