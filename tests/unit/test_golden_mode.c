/* test_golden_mode.c - CI never rewrites goldens: scripts/test.sh refuses to run with a
 * rewrite variable set (BELAY_GOLDEN_UPDATE, GENERATE), and a golden test run under CI
 * (BELAY_CI, which test.sh exports) with one set fails before it writes anything. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "common/fsutil.h"
#include "common/hash.h"
#include "common/xalloc.h"
#include "tsupport.h"

static char *dir;

static void setup(void)
{
	dir = ts_tmpdir("golden");
}

static void teardown(void)
{
	ts_rmtree(dir);
	free(dir);
}

TestSuite(golden_mode, .init = setup, .fini = teardown, .timeout = 120);

Test(golden_mode, ci_refuses_to_run_in_a_rewrite_mode)
{
	/* A cmake that only leaves a mark: if test.sh went on it would build (and fail at once,
	 * never re-running the suite from inside the suite). */
	char *bin = fs_join(dir, "bin"), *mark = fs_join(dir, "cmake-ran");
	ts_sh("mkdir -p %s && printf '#!/bin/sh\\ntouch %s\\nexit 1\\n' > %s/cmake && chmod +x %s/cmake", bin, mark, bin, bin);
	char *path = xasprintf("PATH=%s:/usr/bin:/bin", bin);
	const char *vars[] = {"BELAY_GOLDEN_UPDATE=1", "GENERATE=1", NULL};
	for (const char *const *v = vars; *v; v++) {
		const char *env[] = {path, *v, NULL};
		const char *argv[] = {"/bin/bash", BELAY_SOURCE_DIR "/scripts/test.sh", NULL};
		struct ts_out o;
		cr_assert_eq(ts_run(argv, env, dir, NULL, 0, 60, &o), 0);
		cr_assert_eq(o.status, 2, "%s: test.sh must refuse (%d): %s", *v, o.status, o.err);
		cr_assert(strstr(o.err, "CI never rewrites goldens"), "%s", o.err);
		cr_assert_neq(ts_sh("test -e %s", mark), 0, "%s: test.sh went on to build", *v);
		ts_out_free(&o);
	}
	free(path);
	free(mark);
	free(bin);
}

Test(golden_mode, a_golden_test_under_ci_refuses_to_rewrite)
{
	const char *golden = BELAY_SOURCE_DIR "/tests/golden/trace_writer.txt";
	size_t n;
	char *before = ts_read_file(golden, &n);
	cr_assert_not_null(before);
	/* A clean environment: a Criterion binary started from inside a Criterion test must not
	 * inherit the runner's own variables. */
	const char *argv[] = {"/usr/bin/env", "-i", "PATH=/usr/bin:/bin", "BELAY_CI=1", "BELAY_GOLDEN_UPDATE=1",
			      "ASAN_OPTIONS=detect_leaks=0", BELAY_BUILD_DIR "/tests/test_trace_golden", "--jobs", "1", NULL};
	struct ts_out o;
	cr_assert_eq(ts_run(argv, NULL, dir, NULL, 0, 60, &o), 0);
	cr_assert_neq(o.status, 0, "a rewrite under CI must fail: %s", o.err);
	cr_assert(strstr(o.err, "never rewritten by CI") || strstr(o.out, "never rewritten by CI"), "%s%s", o.out, o.err);
	size_t m;
	char *after = ts_read_file(golden, &m);
	cr_assert(m == n && !memcmp(before, after, n), "the golden was not touched");
	free(after);
	free(before);
	ts_out_free(&o);
}
