/* ts_install.c - see ts_install.h. */
#include "ts_install.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/fsutil.h"
#include "common/xalloc.h"

char *ts_install(const char *dir)
{
	char *prefix = fs_join(dir, "prefix");
	const char *argv[] = {BELAY_CMAKE, "--install", BELAY_BUILD_DIR, "--prefix", prefix, NULL};
	struct ts_out o;
	ts_run(argv, NULL, NULL, NULL, 0, 120, &o);
	cr_assert_eq(o.status, 0, "cmake --install %s --prefix %s: %s%s", BELAY_BUILD_DIR, prefix, o.out, o.err);
	ts_out_free(&o);
	return prefix;
}

int ts_run_min(struct ts_out *o, const char *cwd, const char *home, const char *const *extra, const char *in,
	       int timeout_s, const char *const *argv)
{
	const char *av[64];
	size_t n = 0;
	char *h = xasprintf("HOME=%s", home);
	av[n++] = "/usr/bin/env";
	av[n++] = "-i";
	av[n++] = h;
	av[n++] = "LOGNAME=belay-user";
	av[n++] = "USER=belay-user";
	av[n++] = "SHELL=/bin/sh";
	av[n++] = "TERM=dumb";
	av[n++] = "PATH=/usr/local/bin:/usr/bin:/bin";
	/* Instrumentation, not the user's environment: sanitizer reports still go where the
	 * suite collects them. */
	char *san[2] = {NULL, NULL};
	static const char *const keep[] = {"ASAN_OPTIONS", "UBSAN_OPTIONS"};
	for (int i = 0; i < 2; i++)
		if (getenv(keep[i]))
			av[n++] = san[i] = xasprintf("%s=%s", keep[i], getenv(keep[i]));
	for (const char *const *e = extra; e && *e && n < 40; e++)
		av[n++] = *e;
	for (const char *const *a = argv; *a && n < 63; a++)
		av[n++] = *a;
	av[n] = NULL;
	int rc = ts_run(av, NULL, cwd, in, in ? strlen(in) : 0, timeout_s, o);
	free(h);
	free(san[0]);
	free(san[1]);
	return rc < 0 ? -1 : o->status;
}
