/* test_small_things.c - what a new user hits in the first hour (issue 12 item 6):
 * - a headless `belay proxy` without --mode gates in audit mode: every tools/call has a
 *   recorded decision (the README says the proxy gates calls);
 * - a contained run leaves no empty private temp dir behind (belay-tmp-<hash>);
 * - a read-only state directory is named as such by commands that write, and the read
 *   commands (runs, show, corpus list) work in it (run as an unprivileged account: root
 *   writes anywhere);
 * - `corpus list` keeps its columns aligned whatever the length of a root cause. */
#include <criterion/criterion.h>
#include <dirent.h>
#include <glob.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/fsutil.h"
#include "common/xalloc.h"
#include "ts_belay.h"
#include "tsupport.h"

static char *dir, *state, *db;

static void setup(void)
{
	ts_state_setup("small", &dir, &state, &db);
}

static void teardown(void)
{
	ts_state_teardown(dir, state, db);
}

TestSuite(small, .init = setup, .fini = teardown, .timeout = 240);

Test(small, a_headless_proxy_without_mode_records_gate_decisions)
{
	char *trace = ts_record_demo(dir, NULL, NULL); /* no --mode */
	size_t n;
	char *t = ts_read_file(trace, &n);
	cr_assert(strstr(t, "\"kind\":\"gate_decision\""), "the trace has the gate's decisions");
	long long calls = ts_sql_int(db, "SELECT count(*) FROM turns");
	cr_assert_gt(calls, 0);
	cr_assert_eq(ts_sql_int(db, "SELECT count(*) FROM turns WHERE decision IS NOT NULL"), calls,
		     "every tools/call has a decision in the run view");
	cr_assert_eq(ts_sql_int(db, "SELECT count(*) FROM turns WHERE outcome LIKE 'forwarded%'"), calls,
		     "audit holds nothing: every call was forwarded");
	free(t);
	free(trace);
}

Test(small, a_contained_run_leaves_no_empty_temp_dir)
{
	char *trace = ts_record_demo(dir, NULL, NULL); /* BELAY_SANDBOX_TMP_BASE is dir */
	char *pat = fs_join(dir, "belay-tmp-*");
	glob_t g;
	int rc = glob(pat, 0, NULL, &g);
	cr_assert_eq(rc, GLOB_NOMATCH, "no %s is left behind (found %s)", pat, rc == 0 ? g.gl_pathv[0] : "?");
	if (rc == 0)
		globfree(&g);
	free(pat);
	free(trace);
}

/* Runs belay as the `nobody` account (setpriv) with args; returns the output. */
static void as_nobody(struct ts_out *o, const char *a, ...)
{
	const char *argv[24] = {"setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", BELAY_BIN};
	int n = 5;
	va_list ap;
	va_start(ap, a);
	for (const char *s = a; s && n < 23; s = va_arg(ap, const char *))
		argv[n++] = s;
	va_end(ap);
	argv[n] = NULL;
	const char *env[] = {"HOME=/nonexistent", NULL};
	cr_assert_eq(ts_run(argv, env, "/", NULL, 0, 60, o), 0);
}

Test(small, a_read_only_state_dir_is_named_and_read_commands_work_in_it)
{
	if (ts_sh("command -v setpriv >/dev/null") != 0)
		cr_skip_test("setpriv (util-linux) is needed to act as another account");
	char *trace = ts_record_demo(dir, NULL, NULL);
	struct ts_out o;
	ts_belay(&o, NULL, "corpus", "add", trace, "--turn", "1", "--state", state, NULL);
	cr_assert_eq(o.status, 0, "%s%s", o.out, o.err);
	ts_out_free(&o);
	/* Readable by everyone, writable by root only: read-only for `nobody`. */
	cr_assert_eq(ts_sh("chmod 0755 %s %s && chmod 0644 %s/belay.db", dir, state, state), 0);
	as_nobody(&o, "runs", "--state", state, NULL);
	cr_assert_eq(o.status, 0, "belay runs works read-only: %s", o.err);
	char *run = xstrdup(strrchr(trace, '/') + 1);
	*strrchr(run, '.') = '\0';
	cr_assert(strstr(o.out, run), "and lists the run:\n%s", o.out);
	ts_out_free(&o);
	as_nobody(&o, "show", run, "--state", state, NULL);
	cr_assert_eq(o.status, 0, "belay show works read-only: %s", o.err);
	ts_out_free(&o);
	as_nobody(&o, "corpus", "list", "--state", state, NULL);
	cr_assert_eq(o.status, 0, "belay corpus list works read-only: %s", o.err);
	cr_assert(strstr(o.out, run), "%s", o.out);
	ts_out_free(&o);
	/* A command that records says the directory is read-only, not "unable to open database file". */
	as_nobody(&o, "index", trace, "--state", state, NULL);
	cr_assert_neq(o.status, 0);
	cr_assert(strstr(o.err, "is read-only"), "named: %s", o.err);
	cr_assert(!strstr(o.err, "unable to open database file"), "%s", o.err);
	ts_out_free(&o);
	free(run);
	free(trace);
}

Test(small, corpus_list_columns_stay_aligned_with_long_root_causes)
{
	char *trace = ts_record_demo(dir, NULL, NULL);
	struct ts_out o;
	const char *turns[] = {"1", "3", NULL};
	const char *causes[] = {"a-very-long-root-cause-key-that-is-wider-than-any-column", "short", NULL};
	for (int i = 0; turns[i]; i++) {
		ts_belay(&o, NULL, "corpus", "add", trace, "--turn", turns[i], "--state", state, NULL);
		cr_assert_eq(o.status, 0, "%s%s", o.out, o.err);
		char *id = ts_last_line(o.out);
		ts_out_free(&o);
		ts_belay(&o, NULL, "corpus", "label", id, "true-positive", "--root-cause", causes[i], "--state", state, NULL);
		cr_assert_eq(o.status, 0, "%s%s", o.out, o.err);
		ts_out_free(&o);
		free(id);
	}
	ts_belay(&o, NULL, "corpus", "list", "--state", state, NULL);
	cr_assert_eq(o.status, 0, "%s", o.err);
	/* Every row's LAST RUN and TOOL cells start where their headers do. */
	const char *hdr = o.out;
	const char *lr = strstr(hdr, "LAST RUN"), *tool = strstr(hdr, "TOOL");
	cr_assert(lr && tool, "%s", o.out);
	long at_lr = lr - hdr, at_tool = tool - hdr;
	int rows = 0;
	for (const char *l = strchr(hdr, '\n') + 1; *l; l = strchr(l, '\n') + 1, rows++) {
		const char *nl = strchr(l, '\n');
		cr_assert_gt(nl - l, at_tool, "row %d is long enough: %.*s", rows, (int)(nl - l), l);
		cr_assert(l[at_lr - 1] == ' ' && l[at_lr] != ' ', "row %d: LAST RUN starts at column %ld:\n%s", rows, at_lr,
			  o.out);
		cr_assert(l[at_tool - 1] == ' ' && l[at_tool] != ' ', "row %d: TOOL starts at column %ld:\n%s", rows,
			  at_tool, o.out);
	}
	cr_assert_eq(rows, 2, "%s", o.out);
	ts_out_free(&o);
	free(trace);
}

Test(small, version_prints_the_version_and_the_build)
{
	struct ts_out o;
	ts_belay(&o, NULL, "--version", NULL);
	cr_assert_eq(o.status, 0);
	cr_assert(!strncmp(o.out, "belay " BELAY_VERSION_STRING "\n", strlen("belay " BELAY_VERSION_STRING "\n")), "%s", o.out);
	cr_assert(strstr(o.out, "\nbuild: ") && strstr(o.out, "store schema"), "%s", o.out);
	cr_assert(strstr(o.out, "\nlibraries: libuv ") && strstr(o.out, "SQLite ") && strstr(o.out, "libseccomp "), "%s",
		  o.out);
	ts_out_free(&o);
}
