/* ts_a1lazy.h - the differential check of A1's lazy reading (assertions/a1_lang.h,
 * a1_lang_judge: units outside the edit not walked) against the eager one (env
 * BELAY_A1_EAGER=1: every unit walked): the same pair judged both ways must give the
 * identical findings JSON, cold (nothing remembered), warm (both sides remembered as
 * partial sides: their trees reused, their units walked again as needed) and with the pre
 * side remembered whole (an eager reading before). What test_a1_go_rust, test_a1_catalogue
 * and test_a1_lazy share. Threads: the test's own (it sets and unsets BELAY_A1_EAGER). */
#ifndef BELAY_TESTS_TS_A1LAZY_H
#define BELAY_TESTS_TS_A1LAZY_H
#include <stddef.h>

/* The judge of `path` by its name (.go, .rs, .java), or 0 when none is lazy. */
int ts_a1lazy_judged(const char *path);

/* The findings of the judge of `path` on (pre, post) (NULL: absent), as JSON text (the
 * caller frees it), read eagerly or lazily; the caches emptied first when `cold`. */
char *ts_a1lazy_findings(const char *path, const char *pre, size_t pre_len, const char *post, size_t post_len,
			 int eager, int cold);

/* Asserts lazy == eager for (pre, post) in the three states of the caches above; `what`
 * names the case in a failure. Nothing when ts_a1lazy_judged(path) is 0. */
void ts_a1lazy_same(const char *what, const char *path, const char *pre, size_t pre_len, const char *post,
		    size_t post_len);

#endif
