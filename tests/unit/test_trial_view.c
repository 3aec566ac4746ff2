/* test_trial_view.c - the console's trials view (tui/ui_trials.c, trialdoc.c, trialact.c,
 * tmodel.c) over trials made by the real `belay try`: the list and a trial's detail against
 * goldens (tests/golden/screens/trial*.screen, ts_screen.h), a failed trial never in a clean
 * one's look, and the keys: apply (asked first; the workspace then holds the trial's effect,
 * the recover point is shown and undoes it), apply over a conflicting change (refused, the
 * conflict named, the workspace unchanged), discard, and what the keys say for a trial that
 * cannot be applied.
 *
 * The keys' intent runs trialact_run on the test's thread (the console queues the same call
 * on its jobs thread: test_console_e2e drives that). Trials keep state on /var/tmp: the
 * mirror's upper layer needs user xattrs, which tmpfs lacks on kernels before 6.6. The
 * workspace and state paths have a fixed length, so the goldens replace their random part
 * in place; the trials' ids, start times and wall times are fixed the same way. */
#include <criterion/criterion.h>
#include <locale.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/fsutil.h"
#include "common/jsonx.h"
#include "common/xalloc.h"
#include "console_host/cevent.h"
#include "try_harness.h"
#include "ts_screen.h"
#include "tsupport.h"
#include "tui/canvas.h"
#include "tui/glyphs.h"
#include "tui/keymap.h"
#include "tui/tmodel.h"
#include "tui/trialact.h"
#include "tui/mouse.h"
#include "tui/ui.h"

#define NOW 1795978260

static char dir_t[] = "/dev/shm/btv-XXXXXX", out_t[] = "/var/tmp/btv-XXXXXX";

static void setup(void)
{
	cr_assert_not_null(setlocale(LC_ALL, "C.UTF-8"), "C.UTF-8 locale missing");
	setenv("TZ", "UTC", 1);
	setenv("XDG_CONFIG_HOME", "/nonexistent/belay-test-config", 1);
	unsetenv("NO_COLOR");
	glyphs_set_ascii(0);
	cr_assert_not_null(mkdtemp(dir_t));
	cr_assert_not_null(mkdtemp(out_t));
	dir = xstrdup(dir_t);
	outside = xstrdup(out_t);
	ws = fs_join(dir, "ws");
	st = fs_join(outside, "state");
	tmpbase = xasprintf("BELAY_SANDBOX_TMP_BASE=%s", dir);
	cr_assert_eq(ts_sh("mkdir -p %s/sub && printf 'one\\ntwo\\nthree\\n' > %s/a.txt && printf '#!/bin/sh\\necho hi\\n' > %s/run.sh"
			   " && chmod 644 %s/run.sh && printf 'b\\n' > %s/sub/b && printf 'stale\\n' > %s/old.txt",
			   ws, ws, ws, ws, ws, ws),
		     0);
}

TestSuite(trial_view, .init = setup, .fini = try_teardown, .timeout = 240);

/* A trial that changes, adds, deletes and chmods, is refused a write outside, and prints. */
static const char *BUILD = "printf 'one\\nTWO\\nthree\\n' > a.txt; echo built > new.txt; rm old.txt; chmod 755 run.sh;"
			   " echo x > /etc/belay-trial-x; echo hello";

static char *make_trial(const char *const *opts, const char *script)
{
	struct ts_out o;
	cJSON *rec = try_run(&o, opts, script);
	cr_assert_not_null(rec, "belay try printed a record: %s", o.err);
	char *id = xstrdup(jx_str(rec, "id"));
	cJSON_Delete(rec);
	ts_out_free(&o);
	return id;
}

/*==== a console without runs, over the state dir ====*/

static struct cmodel M;
static struct keymap KM;
static struct tmodel TM;
static struct ui U;
static struct canvas C;
static struct cqueue *Q;
static int trial_calls;

static void in_trial(void *ctx, const char *id, int apply)
{
	(void)ctx;
	trial_calls++;
	struct trialact *a = trialact_new(st, id, BELAY_BIN, apply);
	trialact_run(a, Q);
	trialact_free(a);
}

static void drain(void)
{
	for (struct cevent *ev = cqueue_take(Q), *n; ev; ev = n) {
		n = ev->next;
		ev->next = NULL;
		ui_event(&U, ev);
		cevent_free(ev);
	}
}

static void open_ui(int w, int h)
{
	struct err e = {0};
	memset(&M, 0, sizeof M);
	memset(&KM, 0, sizeof KM);
	cr_assert_eq(keymap_load(&KM, &e), 0, "%s", e.msg);
	Q = cqueue_new();
	tmodel_init(&TM, st);
	tmodel_poll(&TM);
	struct ui_intents in = {.trial = in_trial};
	ui_init(&U, &M, &KM, &in);
	U.tm = &TM;
	U.now = NOW;
	ui_resize(&U, w, h);
	canvas_init(&C, w, h);
}

static void close_ui(void)
{
	ui_free(&U);
	tmodel_free(&TM);
	keymap_free(&KM);
	canvas_free(&C);
	cqueue_free(Q);
}

static void press(int key)
{
	ui_key(&U, key);
	drain();
}

static void draw(void)
{
	U.now = NOW;
	ui_draw(&U, &C);
}

static char *screen(void)
{
	struct buf b = {0};
	canvas_dump_text(&C, &b);
	buf_cstr(&b);
	return buf_take(&b);
}

/* Replaces every occurrence of from (ASCII) on the canvas by to (as long), roles kept. */
static void subst(const char *from, const char *to)
{
	size_t n = strlen(from);
	cr_assert_eq(strlen(to), n);
	for (int y = 0; y < C.h; y++)
		for (int x = 0; x + (int)n <= C.w; x++) {
			size_t i = 0;
			while (i < n && canvas_at(&C, y, x + (int)i)->ch == (unsigned char)from[i])
				i++;
			if (i == n)
				for (i = 0; i < n; i++)
					C.cells[(size_t)y * (size_t)C.w + (size_t)x + i].ch = (unsigned char)to[i];
		}
}

/* The random parts of ids and paths, fixed; then the goldens. */
static void golden(const char *name)
{
	char fixed[64];
	for (size_t i = 0; i < TM.n; i++) {
		snprintf(fixed, sizeof fixed, "trial-20261201T120000Z-0000000%c", (char)('a' + (TM.n - 1 - i)));
		subst(TM.t[i].id, fixed);
	}
	subst(dir, "/dev/shm/btv-000000");
	subst(outside, "/var/tmp/btv-000000");
	ts_screen_golden(&C, name);
}

/* Start and wall times as one fixed run would have them (the rest is what belay try recorded). */
static void fix_times(void)
{
	for (size_t i = 0; i < TM.n; i++) {
		cJSON *r = TM.t[i].rec;
		cr_assert_not_null(r, "%s", TM.t[i].err);
		char at[40];
		snprintf(at, sizeof at, "2026-12-01T12:00:0%zu.000000+00:00", TM.n - 1 - i);
		cJSON_ReplaceItemInObject(r, "started", cJSON_CreateString(at));
		cJSON_ReplaceItemInObject(r, "wall_ms", cJSON_CreateNumber(TM.n - 1 - i ? 1000 : 40));
	}
}

/* The row of the screen holding s. */
static int row_with(const char *s)
{
	char *scr = screen();
	char *p = strstr(scr, s);
	int row = -1;
	if (p) {
		row = 0;
		for (char *q = scr; q < p; q++)
			row += *q == '\n';
	}
	free(scr);
	return row;
}

static void assert_row_roles(int y, const char *word, enum role want)
{
	char *scr = screen();
	const char *line = scr;
	for (int i = 0; i < y; i++)
		line = strchr(line, '\n') + 1;
	const char *p = strstr(line, word);
	cr_assert(p && p < strchr(line, '\n'), "row %d holds %s", y, word);
	/* ASCII before the word on these rows but the focus glyph: count cells */
	int x = 0;
	for (const char *q = line; q < p; q++)
		x += ((unsigned char)*q & 0xC0) != 0x80;
	for (size_t i = 0; i < strlen(word); i++)
		cr_assert_eq(canvas_at(&C, y, x + (int)i)->role, want, "%s is drawn in %s, not %s", word,
			     role_name(canvas_at(&C, y, x + (int)i)->role), role_name(want));
	free(scr);
}

/*==== screens ====*/

/* Both trials made by belay try, the console open on them at w x h, the list drawn; then
 * `which` screen: 0 the list, 1 the failed trial's detail, 2 the clean trial's detail. */
static void screen_of(int w, int h, int which, const char *name)
{
	char *clean = make_trial(NULL, BUILD);
	const char *t1[] = {"--timeout", "1", NULL};
	char *failed = make_trial(t1, "echo started; sleep 30");
	open_ui(w, h);
	fix_times();
	press('T');
	cr_assert_eq(U.view, VIEW_TRIALS);
	draw();
	/* newest first: the timed-out trial on top, its cause by name, never in a clean look */
	int yf = row_with(failed), yc = row_with(clean);
	cr_assert(yf >= 0 && yc > yf, "both trials listed, newest first");
	assert_row_roles(yf, "TRIAL_TIMEOUT", ROLE_ERROR);
	assert_row_roles(yf, "not_appliable", ROLE_ERROR);
	assert_row_roles(yc, "ready", ROLE_TITLE);
	for (int x = 0; x < C.w; x++) {
		enum role r = canvas_at(&C, yf, x)->role;
		cr_assert(r != ROLE_TITLE && r != ROLE_GATE_ALLOW && r != ROLE_V_PASS,
			  "the failed trial's row has no cell in a clean trial's look (%s at %d)", role_name(r), x);
	}
	/* the failed trial cannot be applied: the key says why, nothing is asked */
	press('a');
	cr_assert(strstr(U.msg, "cannot be applied") && strstr(U.msg, "TRIAL_TIMEOUT"), "%s", U.msg);
	cr_assert_eq(U.confirm[0], 0);
	U.msg[0] = '\0';
	if (which == 1) {
		press(K_ENTER);
		cr_assert_eq(U.view, VIEW_TRIAL);
		cr_assert_str_eq(U.trial_id, failed);
		draw();
		assert_row_roles(row_with("TRIAL_TIMEOUT"), "TRIAL_TIMEOUT", ROLE_ERROR);
	} else if (which == 2) {
		press('j');
		press(K_ENTER);
		cr_assert_str_eq(U.trial_id, clean);
		draw();
		if (h >= 40) {
			char *scr = screen();
			cr_assert(strstr(scr, "+TWO") && strstr(scr, "-two"), "the content diff of a.txt is shown:\n%s", scr);
			cr_assert(strstr(scr, "/etc/belay-trial-x"), "the denial is named:\n%s", scr);
			free(scr);
		}
	}
	draw();
	golden(name);
	cr_assert_eq(trial_calls, 0);
	close_ui();
	free(clean);
	free(failed);
}

Test(trial_view, list_80x24) { screen_of(80, 24, 0, "trials_list"); }
Test(trial_view, list_120x40) { screen_of(120, 40, 0, "trials_list"); }
Test(trial_view, failed_detail_80x24) { screen_of(80, 24, 1, "trial_detail_failed"); }
Test(trial_view, failed_detail_120x40) { screen_of(120, 40, 1, "trial_detail_failed"); }
Test(trial_view, detail_80x24) { screen_of(80, 24, 2, "trial_detail"); }
Test(trial_view, detail_120x40) { screen_of(120, 40, 2, "trial_detail"); }

/*==== keys ====*/

static int trial_state_is(const char *id, const char *want)
{
	struct tm_trial *t = tmodel_find(&TM, id);
	return t && t->rec && jx_str(t->rec, "state") && !strcmp(jx_str(t->rec, "state"), want);
}

/* The BUILD trial made, the workspace's tree hash then (*before), the trials view open. */
static char *trial_in_view(char **before)
{
	char *id = make_trial(NULL, BUILD);
	*before = try_tree_hash();
	open_ui(120, 40);
	press('T');
	return id;
}

Test(trial_view, apply_by_key_asks_then_writes_the_effect_and_shows_the_recover_point_that_undoes_it)
{
	char *before, *id = trial_in_view(&before);
	press('a');
	cr_assert(strstr(U.msg, "[y/N]") && strstr(U.msg, "recover point"), "asked first: %s", U.msg);
	press('n'); /* anything but y cancels */
	cr_assert_eq(trial_calls, 0);
	char *same = try_tree_hash();
	cr_assert_str_eq(same, before, "nothing is applied before the answer");
	free(same);
	press('a');
	press('y');
	cr_assert_eq(trial_calls, 1);
	cr_assert(strstr(U.msg, "applied ") && strstr(U.msg, "recover point "), "%s", U.msg);
	cr_assert_eq(U.msg_level, 0, "%s", U.msg);
	/* the workspace holds the trial's effect */
	size_t n;
	char *ap = fs_join(ws, "a.txt"), *a = ts_read_file(ap, &n);
	free(ap);
	cr_assert_str_eq(a, "one\nTWO\nthree\n");
	free(a);
	cr_assert_eq(ts_sh("test \"$(cat %s/new.txt)\" = built && test ! -e %s/old.txt && test -x %s/run.sh", ws, ws, ws), 0);
	cr_assert(trial_state_is(id, "applied"), "the list knows it was applied");
	/* applied: the key says why not again */
	press('a');
	cr_assert(strstr(U.msg, "cannot be applied") && strstr(U.msg, "applied"), "%s", U.msg);
	cr_assert_eq(trial_calls, 1);
	/* the recover point shown undoes it */
	const char *undo = strstr(U.log[U.nlog - 2].text, "undo: ");
	cr_assert_not_null(undo, "%s", U.log[U.nlog - 2].text);
	char trace[512], state[512];
	cr_assert_eq(sscanf(undo, "undo: belay recover apply %511s --yes --state %511s", trace, state), 2, "%s", undo);
	cr_assert_str_eq(state, st);
	const char *argv[] = {BELAY_BIN, "recover", "apply", trace, "--yes", "--state", state, NULL}; /* as shown */
	const char *env[] = {tmpbase, NULL};
	struct ts_out o;
	cr_assert_eq(ts_run(argv, env, ws, NULL, 0, 120, &o), 0);
	cr_assert_eq(o.status, 0, "%s%s", o.out, o.err);
	ts_out_free(&o);
	char *back = try_tree_hash();
	cr_assert_str_eq(back, before, "the recover point puts the workspace back");
	free(back);
	free(before);
	free(id);
	close_ui();
}

Test(trial_view, apply_over_a_conflicting_change_is_refused_naming_it_and_changes_nothing)
{
	char *id = make_trial(NULL, BUILD);
	cr_assert_eq(ts_sh("printf 'one\\nmine\\nthree\\n' > %s/a.txt", ws), 0);
	char *before = try_tree_hash();
	open_ui(120, 40);
	press('T');
	press(K_ENTER);
	press('a');
	press('y');
	cr_assert_eq(trial_calls, 1);
	cr_assert(strstr(U.msg, "refused") && strstr(U.msg, "a.txt") && strstr(U.msg, "nothing changed"), "%s", U.msg);
	cr_assert_eq(U.msg_level, 2, "a refusal is shown as an error");
	char *after = try_tree_hash();
	cr_assert_str_eq(after, before, "the workspace is unchanged");
	cr_assert(trial_state_is(id, "ready"), "still appliable once the conflict is gone");
	free(after);
	free(before);
	free(id);
	close_ui();
}

Test(trial_view, discard_by_key_throws_the_effect_away)
{
	char *before, *id = trial_in_view(&before);
	press('d');
	cr_assert(strstr(U.msg, "discard trial") && strstr(U.msg, "[y/N]"), "%s", U.msg);
	press('y');
	cr_assert(strstr(U.msg, "discarded "), "%s", U.msg);
	cr_assert(trial_state_is(id, "discarded"));
	cr_assert_neq(ts_sh("test -e %s/trials/%s/upper", st, id), 0, "the upper layer is gone");
	char *after = try_tree_hash();
	cr_assert_str_eq(after, before, "a discard never writes the workspace");
	press('a');
	cr_assert(strstr(U.msg, "cannot be applied: it was discarded"), "%s", U.msg);
	press('d');
	cr_assert(strstr(U.msg, "cannot be discarded: it was discarded"), "%s", U.msg);
	cr_assert_eq(trial_calls, 1);
	free(after);
	free(before);
	free(id);
	close_ui();
}

Test(trial_view, a_new_trial_appears_at_the_next_poll_and_the_selection_stays_on_its_trial)
{
	char *first = make_trial(NULL, "echo one > one.txt");
	open_ui(120, 40);
	press('T');
	draw();
	cr_assert_eq(TM.n, 1);
	cr_assert_eq(tmodel_poll(&TM), 0, "nothing changed: nothing re-read");
	char *second = make_trial(NULL, "echo two > two.txt");
	cr_assert_gt(tmodel_poll(&TM), 0); /* what the console does at its tick */
	ui_trials_changed(&U);
	draw();
	cr_assert_eq(TM.n, 2);
	cr_assert_str_eq(TM.t[0].id, second, "newest first");
	cr_assert(row_with(second) >= 0 && row_with(first) > row_with(second));
	press(K_ENTER);
	cr_assert_str_eq(U.trial_id, first, "the selection stayed on the trial it was on");
	free(first);
	free(second);
	close_ui();
}

/* `belay try show` prints the same content diffs from the same inputs (trial_show.h). */
Test(trial_view, try_show_prints_the_content_diffs)
{
	char *id = make_trial(NULL, BUILD);
	struct ts_out o;
	cr_assert_eq(try_sub(&o, "show", id, NULL), 0, "%s", o.err);
	cr_assert(strstr(o.out, "diffs    (the pre-state against the trial's result") && strstr(o.out, "  -two\n") &&
		      strstr(o.out, "  +TWO\n") && strstr(o.out, "  +built\n") && strstr(o.out, "  -stale\n"),
		  "%s", o.out);
	ts_out_free(&o);
	cr_assert_eq(try_sub(&o, "discard", id, NULL), 0, "%s", o.err);
	ts_out_free(&o);
	cr_assert_eq(try_sub(&o, "show", id, NULL), 0, "%s", o.err);
	/* the layer is gone: the record's own diffs (trial_diff.h) */
	cr_assert(strstr(o.out, "diffs    (from the record: the effect's layer is gone, discarded)") &&
		      strstr(o.out, "  +TWO\n"),
		  "%s", o.out);
	ts_out_free(&o);
	free(id);
}

Test(trial_view, a_click_focuses_a_trial_and_a_double_click_opens_it)
{
	char *clean = make_trial(NULL, BUILD);
	const char *t1[] = {"--timeout", "1", NULL};
	char *failed = make_trial(t1, "echo started; sleep 30");
	open_ui(120, 40);
	press('T');
	draw();
	int yc = row_with(clean);
	cr_assert_geq(yc, 0);
	struct mouse_ev ev = {yc, 4, MOUSE_CLICK};
	mouse_apply(&U, &ev, 1000);
	draw();
	cr_assert_str_eq(U.tsel, clean, "the clicked trial is focused");
	cr_assert_eq(U.view, VIEW_TRIALS);
	mouse_apply(&U, &ev, 1200);
	draw();
	cr_assert_eq(U.view, VIEW_TRIAL, "a double click opens it");
	cr_assert_str_eq(U.trial_id, clean);
	close_ui();
	free(clean);
	free(failed);
}
