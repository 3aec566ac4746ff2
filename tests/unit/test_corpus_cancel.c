/* test_corpus_cancel.c - corpus_run stops when cancelled, as the console's C cancels a
 * re-run job (console_host/jobs.c passes its cancel flag): no further case starts, the cases
 * judged before are in the report and saved. (The job itself runs in the real binary in
 * test_console_e2e: its launcher is the running executable.) Real cases: a recorded demo run
 * banked with `belay corpus add`. */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/jsonx.h"
#include "common/xalloc.h"
#include "corpus/corpus.h"
#include "ts_belay.h"
#include "tsupport.h"

static char *dir, *state, *db;

static void setup(void)
{
	ts_state_setup("ccancel", &dir, &state, &db);
}

static void teardown(void)
{
	ts_state_teardown(dir, state, db);
}

TestSuite(corpus_cancel, .init = setup, .fini = teardown, .timeout = 300);

static char *add(const char *trace, const char *turn)
{
	struct ts_out o;
	ts_belay(&o, NULL, "corpus", "add", trace, "--turn", turn, "--state", state, NULL);
	cr_assert_eq(o.status, 0, "corpus add failed: %s%s", o.out, o.err);
	char *id = ts_last_line(o.out);
	ts_out_free(&o);
	return id;
}

struct stop_after {
	atomic_int *cancel;
	int seen;
};

static void stop_after_first(void *ctx, const struct corpus_result *r)
{
	(void)r;
	struct stop_after *s = ctx;
	s->seen++;
	atomic_store(s->cancel, 1);
}

Test(corpus_cancel, a_cancelled_corpus_run_starts_no_further_case)
{
	char *trace = ts_record_demo(dir, NULL, NULL);
	char *a = add(trace, "0"), *b = add(trace, "1");
	struct corpus *c = NULL;
	struct err e = {0};
	cr_assert_eq(corpus_open(state, &c, &e), 0, "%s", e.msg);
	atomic_int cancel = 0;
	struct stop_after s = {.cancel = &cancel};
	struct corpus_run_opts ro = {.jobs = 1, .launcher = BELAY_BIN, .progress = stop_after_first, .ctx = &s, .cancel = &cancel};
	struct corpus_run_report rep;
	int rc = corpus_run(c, &ro, &rep, &e);
	cr_assert_eq(rc, -ECANCELED, "%d %s", rc, e.msg);
	cr_assert_eq(rep.n, 1, "the case judged before the cancel is in the report");
	cr_assert_eq(s.seen, 1);
	cr_assert_eq(ts_sql_int(db, "SELECT count(*) FROM case_results"), 1, "and saved; the next never started");
	corpus_run_report_free(&rep);
	corpus_close(c);
	free(a);
	free(b);
	free(trace);
}
