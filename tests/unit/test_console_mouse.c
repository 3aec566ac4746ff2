/* test_console_mouse.c - the mouse and the clipboard in the real console, in a terminal
 * (tmux), driven by the bytes a terminal sends: SGR 1006 mouse reports
 * (`ESC [ < button ; column ; row M` for a press, `m` for the release; 64/65 the wheel).
 * `belay console --open` on a recorded demo session: the console turns SGR reporting on; a
 * click focuses the write_file turn, the wheel over the turns pane moves three rows each
 * way, a double click opens the turn, a click on a tab shows it; then Y copies the response
 * through OSC 52 and tmux (set-clipboard on) holds exactly the frame the trace recorded.
 * In the corpus view (two turns banked with `belay corpus add`) a click focuses a case's
 * row, a double click opens the case, and / searches its document. With --no-mouse (or
 * BELAY_MOUSE=off) reporting stays off. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/buf.h"
#include "common/fsutil.h"
#include "common/hash.h"
#include "common/jsonx.h"
#include "common/xalloc.h"
#include "ts_belay.h"
#include "ts_tmux.h"
#include "tsupport.h"

static char *dir, *state, *db;

static void setup(void)
{
	ts_state_setup("mouse", &dir, &state, &db);
	cr_assert_eq(ts_sh("command -v tmux >/dev/null"), 0, "tmux is needed (scripts/setup.sh installs it)");
}

static void teardown(void)
{
	ts_state_teardown(dir, state, db);
}

TestSuite(mouse, .init = setup, .fini = teardown, .timeout = 240);

static char *wait_for(struct ts_tmux *t, const char *const *needles, int timeout)
{
	char *last = NULL;
	char *scr = ts_tmux_wait(t, needles, timeout, &last);
	if (!scr) {
		char *msg = xasprintf("timed out waiting for \"%s\"; the screen:\n%s", needles[0], last ? last : "");
		free(last);
		cr_assert_fail("%s", msg);
	}
	return scr;
}

/* The 0-based row and column where s first appears on the screen (as cells: every
 * character one column, as on these screens). */
static void where(const char *scr, const char *s, int *row, int *col)
{
	const char *p = strstr(scr, s);
	cr_assert_not_null(p, "\"%s\" is on the screen:\n%s", s, scr);
	*row = 0;
	const char *bol = scr;
	for (const char *q = scr; q < p; q++)
		if (*q == '\n')
			(*row)++, bol = q + 1;
	*col = 0;
	for (const char *q = bol; q < p; q++)
		*col += ((unsigned char)*q & 0xC0) != 0x80;
}

/* A click (press, then release) at the 0-based cell, as a terminal reports it (SGR 1006). */
static void click(struct ts_tmux *t, int row, int col)
{
	char seq[64];
	snprintf(seq, sizeof seq, "\033[<0;%d;%dM\033[<0;%d;%dm", col + 1, row + 1, col + 1, row + 1);
	ts_tmux_type(t, seq);
}

static void wheel(struct ts_tmux *t, int row, int col, int down)
{
	char seq[64];
	snprintf(seq, sizeof seq, "\033[<%d;%d;%dM", down ? 65 : 64, col + 1, row + 1);
	ts_tmux_type(t, seq);
}

static char *tmux_out(struct ts_tmux *t, const char *args)
{
	char *cmd = xasprintf("tmux -S %s %s", t->sock, args);
	const char *argv[] = {"sh", "-c", cmd, NULL};
	struct ts_out o;
	cr_assert_eq(ts_run(argv, NULL, NULL, NULL, 0, 30, &o), 0);
	free(cmd);
	char *out = xstrdup(o.out ? o.out : "");
	ts_out_free(&o);
	return out;
}

/* The focus line: " turn N tool: ..." (new string). */
static char *focus_line(const char *scr)
{
	const char *p = strstr(scr, "\n turn ");
	cr_assert_not_null(p, "%s", scr);
	p++;
	return xstrndup(p, strcspn(p, "\n"));
}

static struct buf trace_frame(const char *trace, long long seq)
{
	struct buf file = {0}, out = {0};
	struct err e = {0};
	cr_assert_eq(fs_read_file(trace, 1 << 26, &file, &e), 0, "%s", e.msg);
	buf_cstr(&file);
	for (char *line = file.p, *nl; line && *line; line = nl ? nl + 1 : NULL) {
		nl = strchr(line, '\n');
		if (nl)
			*nl = '\0';
		cJSON *rec = cJSON_Parse(line);
		long long s;
		const char *raw = jx_str(rec, "raw");
		if (rec && raw && jx_int(rec, "seq", 0, 1LL << 60, &s) && s == seq)
			cr_assert_eq(base64_decode(raw, strlen(raw), &out), 0);
		cJSON_Delete(rec);
	}
	buf_free(&file);
	cr_assert_gt(out.len, 0, "frame %lld is in the trace", seq);
	return out;
}

static char *start(struct ts_tmux *t, const char *trace, const char *extra)
{
	char *cmd = xasprintf("cd %s && env LANG=C.UTF-8 TERM=xterm-256color %s console --state %s --open %s %s 2>%s/console.err",
			      dir, BELAY_BIN, state, trace, extra, dir);
	cr_assert_eq(ts_tmux_start(t, dir, 120, 40, cmd), 0);
	free(cmd);
	const char *up[] = {"TURNS (", "write_file", NULL};
	return wait_for(t, up, 60);
}

Test(mouse, wheel_click_double_click_and_tabs_through_sgr_reports_then_copy_through_osc52)
{
	char *trace = ts_record_demo(dir, NULL, NULL);
	struct ts_out o;
	ts_belay(&o, NULL, "index", "--state", state, trace, NULL);
	cr_assert_eq(o.status, 0, "%s", o.err);
	ts_out_free(&o);
	struct ts_tmux t;
	char *scr = start(&t, trace, "");
	char *flags = tmux_out(&t, "display -p '#{mouse_standard_flag} #{mouse_sgr_flag}'");
	cr_assert_str_eq(flags, "1 1\n", "the console asked for mouse reports in SGR form: %s", flags);
	free(flags);
	char *out = tmux_out(&t, "set -g set-clipboard on");
	free(out);

	/* a click on the write_file row focuses it */
	int row, col;
	where(scr, "write_file", &row, &col);
	free(scr);
	click(&t, row, col);
	const char *focused[] = {" turn 1 write_file:", NULL};
	scr = wait_for(&t, focused, 10);
	free(scr);
	/* the wheel over the turns pane: three rows down, then back up */
	wheel(&t, row, col, 1);
	const char *down[] = {" turn 4 ", NULL};
	scr = wait_for(&t, down, 10);
	char *fl = focus_line(scr);
	cr_assert(strstr(fl, "turn 4 "), "three rows down: %s", fl);
	free(fl);
	free(scr);
	wheel(&t, row, col, 0);
	scr = wait_for(&t, focused, 10);
	free(scr);
	/* a double click opens it */
	click(&t, row, col);
	usleep(60 * 1000);
	click(&t, row, col);
	const char *opened[] = {"TURN 1  write_file", "1 Request", NULL};
	scr = wait_for(&t, opened, 10);
	/* a click on a tab shows it */
	int trow, tcol;
	where(scr, "2 Response", &trow, &tcol);
	free(scr);
	click(&t, trow, tcol + 2);
	const char *resp[] = {"response  seq", NULL};
	scr = wait_for(&t, resp, 10);
	free(scr);

	/* Y: the response through OSC 52; tmux (set-clipboard on) takes it whole */
	ts_tmux_keys(&t, "Y");
	const char *copied[] = {"copied turn 1's response", NULL};
	scr = wait_for(&t, copied, 10);
	free(scr);
	char *sql = xasprintf("SELECT resp_seq FROM turns WHERE tool = 'write_file'");
	long long rseq = ts_sql_int(db, sql);
	free(sql);
	struct buf want = trace_frame(trace, rseq);
	char *buffer = tmux_out(&t, "show-buffer");
	cr_assert_eq(strlen(buffer), want.len, "tmux's buffer holds %zu bytes, the frame %zu:\n%s", strlen(buffer), want.len,
		     buffer);
	cr_assert(memcmp(buffer, want.p, want.len) == 0, "the clipboard holds the recorded response");
	free(buffer);
	buf_free(&want);
	ts_tmux_kill(&t);
	free(trace);
}

Test(mouse, no_mouse_leaves_reporting_off)
{
	char *trace = ts_record_demo(dir, NULL, NULL);
	struct ts_out o;
	ts_belay(&o, NULL, "index", "--state", state, trace, NULL);
	ts_out_free(&o);
	struct ts_tmux t;
	free(start(&t, trace, "--no-mouse"));
	char *flags = tmux_out(&t, "display -p '#{mouse_standard_flag} #{mouse_sgr_flag}'");
	cr_assert_str_eq(flags, "0 0\n", "--no-mouse: %s", flags);
	free(flags);
	ts_tmux_kill(&t);
	free(start(&t, trace, ""));
	flags = tmux_out(&t, "display -p '#{mouse_standard_flag} #{mouse_sgr_flag}'");
	cr_assert_str_eq(flags, "1 1\n", "%s", flags);
	free(flags);
	ts_tmux_kill(&t);
	free(trace);
}

/* The screen's row holding s (new string). */
static char *row_of(const char *scr, const char *s)
{
	const char *p = strstr(scr, s);
	cr_assert_not_null(p, "\"%s\" is on the screen:\n%s", s, scr);
	while (p > scr && p[-1] != '\n')
		p--;
	return xstrndup(p, strcspn(p, "\n"));
}

Test(mouse, a_click_focuses_a_corpus_case_a_double_click_opens_it_and_slash_searches_it)
{
	char *trace = ts_record_demo(dir, NULL, NULL);
	struct ts_out o;
	ts_belay(&o, NULL, "index", "--state", state, trace, NULL);
	cr_assert_eq(o.status, 0, "%s", o.err);
	ts_out_free(&o);
	const char *bank[] = {"0", "1"};
	for (int i = 0; i < 2; i++) {
		ts_belay(&o, NULL, "corpus", "add", trace, "--turn", bank[i], "--state", state, NULL);
		cr_assert_eq(o.status, 0, "corpus add --turn %s: %s%s", bank[i], o.out, o.err);
		ts_out_free(&o);
	}
	struct ts_tmux t;
	free(start(&t, trace, ""));
	ts_tmux_keys(&t, "B");
	const char *list[] = {"CORPUS (2 cases)", "#0 ", "#1 ", NULL};
	char *scr = wait_for(&t, list, 20);
	/* Newest first: turn 1 is focused on the first row; a click on turn 0's row focuses it. */
	char *r1 = row_of(scr, "#1 ");
	cr_assert(!strncmp(r1, "\xe2\x96\xb6", 3), "the newest case is focused: %s", r1);
	free(r1);
	int row, col;
	where(scr, "#0 ", &row, &col);
	free(scr);
	click(&t, row, col);
	const char *moved[] = {"\xe2\x96\xb6 ", NULL};
	for (int tries = 0;; tries++) {
		scr = wait_for(&t, moved, 10);
		char *r0 = row_of(scr, "#0 ");
		int on = !strncmp(r0, "\xe2\x96\xb6", 3);
		free(r0);
		if (on)
			break;
		free(scr);
		cr_assert_lt(tries, 50, "the click did not focus turn 0's case");
		usleep(100 * 1000);
	}
	r1 = row_of(scr, "#1 ");
	cr_assert(strncmp(r1, "\xe2\x96\xb6", 3), "the focus left the first row: %s", r1);
	free(r1);
	free(scr);
	/* A double click opens it. */
	click(&t, row, col);
	usleep(60 * 1000);
	click(&t, row, col);
	const char *opened[] = {"CASE ", "-turn0", "turn 0 of run", NULL};
	free(wait_for(&t, opened, 10));
	/* / searches the case's document: the match counted in the status line. */
	ts_tmux_keys(&t, "/");
	ts_tmux_type(&t, "workspace");
	ts_tmux_keys(&t, "Enter");
	const char *found[] = {" /workspace 1/1", "1/1: \"workspace\" in the case", NULL};
	free(wait_for(&t, found, 10));
	ts_tmux_kill(&t);
	free(trace);
}
