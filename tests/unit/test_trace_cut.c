/* test_trace_cut.c - a trace cut mid-line (a killed writer, a full disk) is read up to its
 * last complete line by every reader — trace check, trace show, belay index and show, verify,
 * the console's --open and --follow — and each names the cut; a trace with a record removed
 * (a seq gap) is refused by every one of them, verify included (exit 2, the named error). */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/fsutil.h"
#include "common/jsonx.h"
#include "common/xalloc.h"
#include "ts_belay.h"
#include "ts_tmux.h"
#include "tsupport.h"

static char *dir, *state, *db;

static void setup(void)
{
	ts_state_setup("cut", &dir, &state, &db);
}

static void teardown(void)
{
	ts_state_teardown(dir, state, db);
}

TestSuite(trace_cut, .init = setup, .fini = teardown, .timeout = 300);

static int count_lines(const char *t, size_t n)
{
	int k = 0;
	for (size_t i = 0; i < n; i++)
		k += t[i] == '\n';
	return k;
}

/* Records the demo session and cuts its trace 25 bytes into its last line (the close
 * record): what a kill or a full disk leaves. *lines gets the complete lines kept. */
static char *record_and_cut(int *lines)
{
	char *trace = ts_record_demo(dir, NULL, NULL);
	size_t n;
	char *text = ts_read_file(trace, &n);
	cr_assert(n > 2 && text[n - 1] == '\n');
	size_t last = n - 1;
	while (last > 0 && text[last - 1] != '\n')
		last--;
	ts_write_file(trace, text, last + 25);
	*lines = count_lines(text, last);
	free(text);
	return trace;
}

Test(trace_cut, every_cli_reader_reads_up_to_the_cut_and_names_it)
{
	int lines;
	char *trace = record_and_cut(&lines);
	char cutline[32];
	snprintf(cutline, sizeof cutline, ":%d:", lines + 1);

	struct ts_out o;
	ts_belay(&o, NULL, "trace", "check", trace, NULL);
	cr_assert_eq(o.status, 0, "check reads the complete lines: %s%s", o.out, o.err);
	cr_assert(strstr(o.out, "cut mid-line") && strstr(o.out, "read up to line"), "check names the cut: %s", o.out);
	ts_out_free(&o);

	ts_belay(&o, NULL, "trace", "show", trace, NULL);
	cr_assert_eq(o.status, 0, "%s", o.err);
	cr_assert(strstr(o.err, cutline) && strstr(o.err, "cut mid-line"), "show names the cut: %s", o.err);
	cr_assert(strstr(o.out, "turns   5 tools/call"), "show shows the run: %s", o.out);
	cr_assert(strstr(o.out, "window  open, no close record"), "the close record was cut off: %s", o.out);
	ts_out_free(&o);
	ts_belay(&o, NULL, "trace", "show", trace, "--json", NULL);
	cr_assert_eq(o.status, 0, "%s", o.err);
	char *last = ts_last_line(o.out);
	cJSON *doc = cJSON_Parse(last), *sum = cJSON_GetObjectItem(doc, "summary");
	cr_assert_eq(cJSON_GetObjectItem(cJSON_GetObjectItem(sum, "cut"), "line")->valueint, lines + 1, "%s", last);
	cJSON_Delete(doc);
	free(last);
	ts_out_free(&o);

	/* index (a fresh state dir: the proxy indexed the run live), then show. */
	char *st2 = fs_join(dir, "state2");
	ts_belay(&o, NULL, "index", "--state", st2, trace, NULL);
	cr_assert_eq(o.status, 0, "index reads the complete lines: %s", o.err);
	cr_assert(strstr(o.err, "cut mid-line"), "index names the cut: %s", o.err);
	ts_out_free(&o);
	char *run = xstrdup(strrchr(trace, '/') + 1);
	*strstr(run, ".jsonl") = '\0';
	ts_belay(&o, NULL, "show", run, "--state", st2, NULL);
	cr_assert_eq(o.status, 0, "%s", o.err);
	cr_assert(strstr(o.out, "turns     5") && strstr(o.out, "cut mid-line"), "show names it: %s", o.out);
	ts_out_free(&o);

	/* verify judges the complete lines and names the cut. */
	ts_belay(&o, NULL, "verify", trace, "--json", "--state", state, NULL);
	cr_assert_neq(o.status, 2, "verify does not refuse a cut trace: %s", o.err);
	cr_assert(strstr(o.err, cutline) && strstr(o.err, "verified up to line"), "verify names the cut: %s", o.err);
	last = ts_last_line(o.out);
	doc = cJSON_Parse(last);
	sum = cJSON_GetObjectItem(doc, "summary");
	cr_assert_eq(cJSON_GetObjectItem(sum, "turns")->valueint, 5, "%s", last);
	cr_assert_eq(cJSON_GetObjectItem(cJSON_GetObjectItem(sum, "trace_cut"), "line")->valueint, lines + 1);
	cJSON_Delete(doc);
	free(last);
	ts_out_free(&o);
	free(run);
	free(st2);
	free(trace);
}

Test(trace_cut, a_record_removed_is_refused_by_every_reader_verify_included)
{
	char *trace = ts_record_demo(dir, NULL, NULL);
	size_t n;
	char *text = ts_read_file(trace, &n);
	/* Drop the fourth line (a frame of the handshake). */
	char *p = text;
	for (int i = 0; i < 3; i++)
		p = strchr(p, '\n') + 1;
	char *q = strchr(p, '\n') + 1;
	memmove(p, q, (size_t)(text + n - q));
	ts_write_file(trace, text, n - (size_t)(q - p));
	free(text);
	struct ts_out o;
	ts_belay(&o, NULL, "trace", "check", trace, NULL);
	cr_assert_eq(o.status, 1);
	cr_assert(strstr(o.err, ":4: seq 4 where 3 was expected"), "%s", o.err);
	ts_out_free(&o);
	char *st2 = fs_join(dir, "state2");
	ts_belay(&o, NULL, "index", "--state", st2, trace, NULL);
	cr_assert_eq(o.status, 2);
	cr_assert(strstr(o.err, ":4: seq 4 where 3 was expected"), "%s", o.err);
	ts_out_free(&o);
	ts_belay(&o, NULL, "verify", trace, "--json", "--state", state, NULL);
	cr_assert_eq(o.status, 2, "verify refuses it as VERDICTS.md says (exit 2): %d %s", o.status, o.out);
	cr_assert(strstr(o.err, ":4: seq 4 where 3 was expected"), "verify names it: %s", o.err);
	cr_assert_eq(o.out_len, 0, "no verdict was printed");
	ts_out_free(&o);
	free(st2);
	free(trace);
}

static char *wait_for(struct ts_tmux *t, const char *const *needles, int timeout)
{
	char *last = NULL;
	char *scr = ts_tmux_wait(t, needles, timeout, &last);
	if (!scr)
		cr_assert_fail("timed out waiting for \"%s\"; the screen:\n%s", needles[0], last ? last : "");
	free(last);
	return scr;
}

Test(trace_cut, the_console_opens_and_follows_a_cut_trace_and_names_the_cut)
{
	cr_assert_eq(ts_sh("command -v tmux >/dev/null"), 0, "tmux is needed (scripts/setup.sh installs it)");
	int lines;
	char *trace = record_and_cut(&lines);
	/* --open */
	char *cmd = xasprintf("cd %s && env LANG=C.UTF-8 TERM=xterm-256color %s console --state %s --open %s 2>%s/c.err", dir,
			      BELAY_BIN, state, trace, dir);
	struct ts_tmux t;
	cr_assert_eq(ts_tmux_start(&t, dir, 160, 40, cmd), 0);
	const char *opened[] = {"TURNS (5)", "cut mid-line", NULL};
	free(wait_for(&t, opened, 30));
	ts_tmux_kill(&t);
	free(cmd);
	/* --follow: a directory holding the cut trace (its writer is gone). */
	char *fdir = fs_join(dir, "follow");
	ts_sh("mkdir -p %s && cp %s %s/", fdir, trace, fdir);
	char *st3 = fs_join(dir, "state3");
	/* its own socket: --follow listens for agents too, and the default one may be another
	 * console's (tests run side by side) */
	cmd = xasprintf("cd %s && env LANG=C.UTF-8 TERM=xterm-256color %s console --state %s --socket %s/f.sock --follow %s "
			"2>%s/f.err",
			dir, BELAY_BIN, st3, dir, fdir, dir);
	cr_assert_eq(ts_tmux_start(&t, dir, 160, 40, cmd), 0);
	const char *followed[] = {"no newline for", NULL};
	free(wait_for(&t, followed, 30));
	ts_tmux_keys(&t, "E");
	const char *logged[] = {"killed mid-line", NULL};
	free(wait_for(&t, logged, 10));
	ts_tmux_kill(&t);
	char *db3 = fs_join(st3, "belay.db");
	cr_assert_eq(ts_sql_int(db3, "SELECT turns FROM runs"), 5, "the followed run holds every turn before the cut");
	free(db3);
	free(cmd);
	free(st3);
	free(fdir);
	free(trace);
}
