/* test_detail_replay.c - the turn detail's diff tab says "what the replay changed" (as
 * docs/CONSOLE.md promises) for a turn verified earlier: the replay's effect is kept with
 * the verdict in the store (the reduced row's observed column) and read back when the turn
 * is opened, not only while the verify event is fresh. A real recording of the demo server
 * (its write_file turn weakens a test), verified by `belay verify`, opened the way the
 * console opens a turn. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "common/xalloc.h"
#include "ts_belay.h"
#include "tsupport.h"
#include "tui/cmodel.h"
#include "tui/detail.h"

static char *dir, *state, *db;

static void setup(void)
{
	ts_state_setup("detail", &dir, &state, &db);
}

static void teardown(void)
{
	ts_state_teardown(dir, state, db);
}

TestSuite(detail, .init = setup, .fini = teardown, .timeout = 240);

static char *tab_text(const struct tdoc *d)
{
	struct buf b = {0};
	for (size_t i = 0; i < d->n; i++) {
		char *l = tdoc_line_text(d, i);
		buf_printf(&b, "%s\n", l);
		free(l);
	}
	buf_cstr(&b);
	return buf_take(&b);
}

Test(detail, the_diff_tab_shows_what_the_replay_changed_after_reopening)
{
	char *trace = ts_record_demo(dir, NULL, NULL);
	struct ts_out o;
	ts_belay(&o, NULL, "verify", trace, "--state", state, NULL);
	cr_assert_neq(o.status, 2, "verify ran: %s%s", o.out, o.err);
	ts_out_free(&o);
	struct cmodel m = {0};
	struct err e = {0};
	cr_assert_eq(cm_open(&m, state, &e), 0, "%s", e.msg);
	cr_assert_eq(cm_load_runs(&m, &e), 0, "%s", e.msg);
	cr_assert_eq(m.nruns, 1);
	struct cm_run *r = m.runs[0];
	cr_assert_eq(cm_refresh(&m, r, &e), 0, "%s", e.msg);
	int wt = -1;
	for (size_t i = 0; i < r->nturns; i++)
		if (cm_turn_at(r, i)->tool && !strcmp(cm_turn_at(r, i)->tool, "write_file"))
			wt = (int)i;
	cr_assert_geq(wt, 0, "the demo session has a write_file turn");
	struct detail d = {0};
	detail_load(&d, &m, r, wt);
	char *diff = tab_text(&d.tab[TAB_DIFF]);
	const char *rep = strstr(diff, "the replay (from the same pre-state) changed:");
	cr_assert_not_null(rep, "the diff tab has the replay's part:\n%s", diff);
	cr_assert(strstr(rep, "changed") && strstr(rep, "tests/test_a.py"), "and names the file the replay wrote:\n%s", diff);
	free(diff);
	detail_free(&d);
	cm_close(&m);
	free(trace);
}
