/* ts_install.h - belay installed the way a user installs it (`cmake --install BUILD --prefix
 * P`) and run the way an agent or a new user runs it: from another directory, with a minimal
 * environment (HOME, LOGNAME, PATH, SHELL, TERM, USER; no build tree on PATH). Used by
 * test_install and test_first_hour. */
#ifndef BELAY_TESTS_TS_INSTALL_H
#define BELAY_TESTS_TS_INSTALL_H
#include "tsupport.h"

/* Installs this build tree into <dir>/prefix; returns the prefix (new string). Asserts the
 * install succeeds. */
char *ts_install(const char *dir);

/* Runs argv (NULL-terminated; argv[0] a path) in cwd with only HOME=home, LOGNAME, USER,
 * SHELL=/bin/sh, TERM=dumb, PATH=/usr/local/bin:/usr/bin:/bin and the sanitizers' options,
 * plus `extra` ("K=V", NULL-terminated, may be NULL); stdin from in (may be NULL). Returns
 * the exit status (-1 on timeout). */
int ts_run_min(struct ts_out *o, const char *cwd, const char *home, const char *const *extra, const char *in,
	       int timeout_s, const char *const *argv);

#endif
