/* test_screens.c - the console's screens (tui/ui_draw.c, ui_views.c) against goldens.
 *
 * A realistic model is built in memory (no store): two runs, one ended with three turns, one
 * live with thirty covering every verdict (PASS, WARN, UNVERIFIED with its cause, FAIL with
 * A1 FAIL and A2 PASS, a NOT_COVERED axis), pending, cancelled, errored and held calls,
 * every gate decision, captured/shared/unrestorable/concurrent pre-states, denials linked to
 * their turns, corpus labels. Time, ids and the socket path are fixed. Each screen is drawn
 * at 80x24, 120x40 and 200x60 (the "too small" screen at 79x24 and 80x23), in UTF-8 glyphs
 * (and two in ASCII), and compared with tests/golden/screens/NAME.WxH.screen: the canvas dump
 * with its roles inline. What a role looks like in each theme of themes/ is checked once per
 * theme (tests/golden/themes/THEME.legend: every role at 256 colours, 8 colours and mono).
 *
 * GENERATE=1 rewrites the goldens (refused when CI is set, and by scripts/test.sh); a
 * mismatch prints expected and actual with the first differing row marked. Besides the goldens, honesty is asserted directly on every screen:
 * nothing that says UNVERIFIED or NOT_COVERED wears PASS's role, the status line counts
 * PASS and UNVERIFIED apart (and right), the focused UNVERIFIED turn's cause is on the
 * 80x24 home screen, held calls say HELD. */
#include <criterion/criterion.h>
#include <glob.h>
#include <locale.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/buf.h"
#include "common/jsonx.h"
#include "common/xalloc.h"
#include "ts_screen.h"
#include "tsupport.h"
#include "common/fsutil.h"
#include "tui/argdiff.h"
#include "tui/canvas.h"
#include "tui/glyphs.h"
#include "tui/jsonview.h"
#include "tui/keymap.h"
#include "tui/look.h"
#include "tui/theme.h"
#include "tui/tdoc.h"
#include "tui/udiff.h"
#include "tui/ui.h"
#include "tui/ui_internal.h"

#define SOCKET "/run/user/1000/belay/console.sock"
#define NOW 1795978260 /* 2026-11-29T18:51:00Z */

static void setup(void)
{
	cr_assert_not_null(setlocale(LC_ALL, "C.UTF-8"), "C.UTF-8 locale missing");
	setenv("TZ", "UTC", 1);
	tzset();
	/* No user keymap or theme may leak in. */
	setenv("XDG_CONFIG_HOME", "/nonexistent/belay-test-config", 1);
	setenv("HOME", "/nonexistent/belay-test-home", 1);
	unsetenv("NO_COLOR");
	glyphs_set_ascii(0);
}

TestSuite(screens, .init = setup);

/*==== the model ====*/

/* Verdicts as verify saves them (verdict_json shape). */
#define SUB(axis, kind, st, cause, msg) \
	"{\"axis\":\"" axis "\",\"kind\":\"" kind "\",\"status\":\"" st "\",\"cause\":" cause ",\"message\":\"" msg "\"}"
#define NOC "null"
static const char V_PASS_RO[] = "{\"status\":\"PASS\",\"cause\":null,\"verdicts\":[" SUB(
	"A2", "replay", "PASS", NOC, "the recorded result reproduces") "," SUB("A2", "effect", "PASS", NOC,
									      "declared readOnlyHint: true and changed nothing") "," SUB("A1", "invariant", "PASS", NOC, "read-only tests/: nothing under it changed") "]}";
static const char V_PASS_W[] = "{\"status\":\"PASS\",\"cause\":null,\"verdicts\":[" SUB(
	"A2", "replay", "PASS", NOC, "the recorded result reproduces") "," SUB("A2", "effect", "PASS", NOC,
									      "changed notes.txt, as recorded") "," SUB("A1", "invariant", "PASS", NOC, "read-only tests/: nothing under it changed") "]}";
static const char V_PASS_A1NC[] = "{\"status\":\"PASS\",\"cause\":null,\"verdicts\":[" SUB(
	"A2", "replay", "PASS", NOC, "the recorded result reproduces") "," SUB("A1", "invariant", "NOT_COVERED",
									      "\"EFFECT_NOT_DECLARED\"",
									      "no rule covers src/") "]}";
static const char V_UNV_CLOCK[] = "{\"status\":\"UNVERIFIED\",\"cause\":\"RESULT_NONDETERMINISTIC_CLOCK\",\"verdicts\":[" SUB(
	"A2", "replay", "UNVERIFIED", "\"RESULT_NONDETERMINISTIC_CLOCK\"",
	"the result differs between replays only in clock-like values") "," SUB("A1", "invariant", "PASS", NOC,
									    "read-only tests/: nothing under it changed") "]}";
static const char V_FAIL_A1[] = "{\"status\":\"FAIL\",\"cause\":null,\"verdicts\":[" SUB(
	"A2", "replay", "PASS", NOC, "the recorded result reproduces") "," SUB("A2", "effect", "PASS", NOC,
									      "changed tests/test_calc.py, as recorded") "," SUB("A1", "invariant", "FAIL", NOC, "read-only tests/: changed tests/test_calc.py") "],"
	"\"effect\":[{\"path\":\"tests/test_calc.py\",\"change\":\"changed\",\"fields\":[\"size\",\"content\"]}],"
	"\"denials\":[{\"op\":\"openat\",\"path\":\"/home/user/.netrc\",\"errno\":\"EACCES\"}]}";
static const char V_FAIL_A2[] = "{\"status\":\"FAIL\",\"cause\":null,\"verdicts\":[" SUB(
	"A2", "replay", "FAIL", NOC, "the result differs from the record (one replay)") "," SUB("A1", "invariant", "PASS", NOC,
												"read-only tests/: nothing under it changed") "]}";
static const char V_WARN_DEN[] = "{\"status\":\"WARN\",\"cause\":\"REPLAY_DENIALS\",\"verdicts\":[" SUB(
	"A2", "replay", "PASS", NOC, "the recorded result reproduces") "," SUB("A2", "replay", "WARN", "\"REPLAY_DENIALS\"", "the sandbox refused 1 operation during the replay") "," SUB("A1", "invariant", "PASS", NOC, "read-only tests/: nothing under it changed") "]}";
static const char V_UNV_NET[] = "{\"status\":\"UNVERIFIED\",\"cause\":\"REPLAY_NETWORK_REFUSED\",\"verdicts\":[" SUB(
	"A2", "replay", "UNVERIFIED", "\"REPLAY_NETWORK_REFUSED\"", "the replay needed the network") "," SUB("A1", "invariant", "NOT_COVERED", "\"EFFECT_NOT_DECLARED\"", "no rule applies") "]}";
static const char V_UNV_REFUSED[] = "{\"status\":\"UNVERIFIED\",\"cause\":\"CALL_REFUSED_BY_GATE\",\"verdicts\":[" SUB(
	"A2", "replay", "UNVERIFIED", "\"CALL_REFUSED_BY_GATE\"", "the gate refused the call; it never ran") "]}";
static const char V_UNV_FIFO[] = "{\"status\":\"UNVERIFIED\",\"cause\":\"UNRESTORABLE_FIFO\",\"verdicts\":[" SUB(
	"A2", "replay", "UNVERIFIED", "\"UNRESTORABLE_FIFO\"", "the workspace held a FIFO") "]}";
static const char V_UNV_CONC[] = "{\"status\":\"UNVERIFIED\",\"cause\":\"UNRESTORABLE_CONCURRENT_TURN\",\"verdicts\":[" SUB(
	"A2", "replay", "UNVERIFIED", "\"UNRESTORABLE_CONCURRENT_TURN\"", "overlapped turn 12") "]}";
static const char V_UNV_NOSUB[] = "{\"status\":\"UNVERIFIED\",\"cause\":\"NO_SUBVERDICT\",\"verdicts\":[" SUB(
	"A2", "effect", "NOT_COVERED", "\"EFFECT_NOT_DECLARED\"", "no effect claim") "," SUB("A1", "invariant", "NOT_COVERED", "\"EFFECT_NOT_DECLARED\"", "no rule applies") "]}";

struct tspec {
	const char *tool, *args;
	enum cm_call call;
	int64_t lat_us;
	const char *error;
	const char *pre, *handle, *hcause;
	const char *decision, *outcome, *approval;
	const char *verdict; /* NULL: not verified */
	int provisional, verifying;
	const char *label;
};

#define ANS CMC_ANSWERED
static const struct tspec live_turns[] = {
	/* 0 */ {"list_directory", "{\"path\":\".\"}", ANS, 1840, NULL, "captured", "h-01", NULL, "allow", "forwarded", "", V_PASS_RO, 0, 0, NULL},
	/* 1 */ {"read_file", "{\"path\":\"src/calc.py\"}", ANS, 950, NULL, "shared", "h-01", NULL, "allow", "forwarded", "", V_PASS_RO, 0, 0, NULL},
	/* 2 */ {"read_file", "{\"path\":\"tests/test_calc.py\"}", ANS, 1210, NULL, "shared", "h-01", NULL, "allow", "forwarded", "", V_PASS_RO, 0, 0, NULL},
	/* 3 */ {"get_current_time", "{\"timezone\":\"Europe/Paris\"}", ANS, 420, NULL, "captured", "h-03", NULL, "allow", "forwarded", "", V_UNV_CLOCK, 0, 0, "unverifiable"},
	/* 4 */ {"write_file", "{\"path\":\"tests/test_calc.py\",\"content\":\"from calc import add\\n\\n\\ndef test_add():\\n    assert True\\n\"}", ANS, 2310, NULL, "captured", "h-04", NULL, "allow_flagged", "forwarded", "", V_FAIL_A1, 0, 0, "true-positive"},
	/* 5 */ {"run_command", "{\"cmd\":\"pytest -q\"}", ANS, 1840000, NULL, "captured", "h-05", NULL, "ask", "forwarded", "approved", V_WARN_DEN, 0, 0, NULL},
	/* 6 */ {"fetch_url", "{\"url\":\"https://example.com/api/v1/rates\"}", ANS, 310000, NULL, "captured", "h-06", NULL, "allow", "forwarded", "", V_UNV_NET, 0, 0, NULL},
	/* 7 */ {"read_file", "{\"path\":\"missing.txt\"}", ANS, 610, "tool error: ENOENT: no such file or directory, open 'missing.txt'", "shared", "h-06", NULL, "allow", "forwarded", "", V_PASS_RO, 0, 0, "pending"},
	/* 8 */ {"delete_file", "{\"path\":\"src/calc.py\"}", ANS, 40, NULL, "absent", NULL, NULL, "deny", "refused", "", V_UNV_REFUSED, 0, 0, NULL},
	/* 9 */ {"edit_file", "{\"path\":\"src/calc.py\",\"edits\":[{\"oldText\":\"a - b\",\"newText\":\"a + b\"}]}", ANS, 3100, NULL, "captured", "h-09", NULL, "allow_flagged", "forwarded", "", V_PASS_A1NC, 0, 0, NULL},
	/* 10 */ {"run_command", "{\"cmd\":\"rm -rf build\"}", ANS, 5200000, NULL, "absent", NULL, NULL, "ask", "refused", "refused", NULL, 0, 0, NULL},
	/* 11 */ {"write_file", "{\"path\":\"pipe/out\",\"content\":\"x\"}", ANS, 880, NULL, "unrestorable", NULL, "UNRESTORABLE_FIFO", "allow", "forwarded", "", V_UNV_FIFO, 0, 0, NULL},
	/* 12 */ {"create_directory", "{\"path\":\"/tmp/outside\"}", ANS, 700, "tool error: EPERM: operation not permitted, mkdir '/tmp/outside'", "captured", "h-12", NULL, "allow", "forwarded", "", V_WARN_DEN, 0, 0, NULL},
	/* 13 */ {"move_file", "{\"source\":\"a.txt\",\"destination\":\"b.txt\"}", ANS, 1500, NULL, "concurrent", NULL, "UNRESTORABLE_CONCURRENT_TURN", "allow", "forwarded", "", V_UNV_CONC, 0, 0, NULL},
	/* 14 */ {"search_files", "{\"path\":\".\",\"pattern\":\"TODO\"}", ANS, 14200, NULL, "shared", "h-12", NULL, "allow", "forwarded", "", V_PASS_RO, 0, 0, NULL},
	/* 15 */ {"read_file", "{\"path\":\"README.md\"}", ANS, 800, NULL, "shared", "h-12", NULL, "allow", "forwarded", "", V_PASS_RO, 0, 0, NULL},
	/* 16 */ {"write_file", "{\"path\":\"notes.txt\",\"content\":\"# Notes\\n- ship it\\n\"}", ANS, 1900, NULL, "captured", "h-16", NULL, "allow", "forwarded", "", V_PASS_W, 0, 0, "false-positive"},
	/* 17 */ {"get_current_time", "{}", ANS, 380, NULL, "captured", "h-17", NULL, "allow", "forwarded", "", V_UNV_CLOCK, 0, 0, NULL},
	/* 18 */ {"read_file", "{\"path\":\"notes.txt\"}", ANS, 700, NULL, "shared", "h-17", NULL, "allow", "forwarded", "", V_UNV_NOSUB, 0, 0, NULL},
	/* 19 */ {"list_directory", "{\"path\":\"src\"}", ANS, 1100, NULL, "shared", "h-17", NULL, "allow", "forwarded", "", V_PASS_RO, 1, 0, NULL},
	/* 20 */ {"read_file", "{\"path\":\"src/calc.py\"}", ANS, 900, NULL, "shared", "h-17", NULL, "allow", "forwarded", "", NULL, 0, 1, NULL},
	/* 21 */ {"read_file", "{\"path\":\"setup.cfg\"}", ANS, 950, NULL, "shared", "h-17", NULL, "allow", "forwarded", "", NULL, 0, 1, NULL},
	/* 22 */ {"write_file", "{\"path\":\"src/calc.py\",\"content\":\"def add(a, b):\\n    return a + b\\n\"}", ANS, 2050, NULL, "captured", "h-22", NULL, "allow_flagged", "forwarded", "", NULL, 0, 0, NULL},
	/* 23 */ {"echo", "{\"message\":\"h\xc3\xa9llo w\xc3\xb6rld \xe2\x80\x94 \xe6\xbc\xa2\xe5\xad\x97\"}", ANS, 300, NULL, "shared", "h-22", NULL, "allow", "forwarded", "", V_PASS_RO, 0, 0, NULL},
	/* 24 */ {"read_file", "{\"path\":42}", ANS, 200, "rpc -32602: Invalid params: path must be a string", "shared", "h-22", NULL, "allow", "forwarded", "", NULL, 0, 0, NULL},
	/* 25 */ {"write_file", "{\"path\":\"notes.txt\",\"content\":\"# Notes\\n\"}", ANS, 1700, NULL, "captured", "h-25", NULL, "allow", "forwarded", "", V_FAIL_A2, 0, 0, NULL},
	/* 26 */ {"fetch_url", "{\"url\":\"https://pypi.org/simple/\"}", ANS, 420000, NULL, "captured", "h-26", NULL, "allow", "forwarded", "", NULL, 0, 0, NULL},
	/* 27 */ {"read_file", "{\"path\":\"big.log\"}", CMC_PENDING, -1, NULL, "shared", "h-26", NULL, "allow", "forwarded", "", NULL, 0, 0, NULL},
	/* 28 */ {"write_file", "{\"path\":\".env\",\"content\":\"TOKEN=...\"}", CMC_PENDING, -1, NULL, "captured", "h-28", NULL, "ask", "held", "", NULL, 0, 0, NULL},
	/* 29 */ {"list_directory", "{\"path\":\"/\"}", CMC_CANCELLED, -1, NULL, "shared", "h-28", NULL, "allow", "forwarded", "", NULL, 0, 0, NULL},
};
#define NLIVE (sizeof live_turns / sizeof *live_turns)
#define HELD_TURN 28
#define UNV_TURN 3 /* the UNVERIFIED turn the home screens focus */
#define DETAIL_TURN 4

static const struct tspec old_turns[] = {
	{"get_time", "{}", ANS, 510, NULL, "absent", NULL, "PRESTATE_ABSENT", "", "", "", V_PASS_RO, 0, 0, NULL},
	{"convert_time", "{\"source_timezone\":\"UTC\",\"time\":\"12:00\",\"target_timezone\":\"Asia/Tokyo\"}", ANS, 740, NULL, "absent", NULL, "PRESTATE_ABSENT", "", "", "", V_PASS_RO, 0, 0, NULL},
	{"get_time", "{\"timezone\":\"Mars/Olympus\"}", ANS, 300, "tool error: unknown timezone", "absent", NULL, "PRESTATE_ABSENT", "", "", "", NULL, 0, 0, NULL},
};

struct dspec {
	const char *kind, *op, *target, *err, *outcome, *comm;
	int turn;
};

static const struct dspec live_denials[] = {
	{"denial", "openat", "/home/user/.netrc", "EACCES", "denied", "node", 4},
	{"denial", "connect", "10.0.0.8:5432", "EACCES", "denied", "pytest", 5},
	{"network_attempt", "connect", "93.184.216.34:443", NULL, "blocked", "node", 6},
	{"denial", "openat", "/home/user/.ssh/id_ed25519", "EACCES", "denied", "node", 11},
	{"denial", "openat", "/etc/shadow", "EACCES", "denied", "node", 11},
	{"denial", "mkdir", "/tmp/outside", "EPERM", "denied", "node", 12},
	{"denial", "unlink", "/work/demo/.lock", "EPERM", "denied", "node", -1},
};
#define NDEN (sizeof live_denials / sizeof *live_denials)

static char *dupn(const char *s)
{
	return s ? xstrdup(s) : NULL;
}

static void add_turns(struct cm_run *r, const struct tspec *ts, size_t n, int64_t seq0, time_t t0)
{
	for (size_t i = 0; i < n; i++) {
		const struct tspec *s = &ts[i];
		struct cm_turn *t = cm_turn_append(r);
		t->turn = (int)i;
		t->req_seq = seq0 + 2 * (int64_t)i;
		t->resp_seq = s->call == CMC_ANSWERED ? t->req_seq + 1 : -1;
		t->tool = dupn(s->tool);
		t->args = dupn(s->args);
		time_t when = t0 + 7 * (time_t)i;
		struct tm tm;
		gmtime_r(&when, &tm);
		strftime(t->t_req, sizeof t->t_req, "%Y-%m-%dT%H:%M:%S", &tm);
		snprintf(t->t_req + strlen(t->t_req), sizeof t->t_req - strlen(t->t_req), ".%06dZ",
			 (int)(i * 137 % 1000000));
		t->latency_us = s->lat_us;
		t->call = s->call;
		t->error = dupn(s->error);
		snprintf(t->prestate, sizeof t->prestate, "%s", s->pre);
		t->handle = dupn(s->handle);
		t->handle_cause = dupn(s->hcause);
		snprintf(t->decision, sizeof t->decision, "%s", s->decision);
		snprintf(t->outcome, sizeof t->outcome, "%s", s->outcome);
		snprintf(t->approval, sizeof t->approval, "%s", s->approval);
		t->v = t->a1 = t->a2 = CMV_NONE;
		t->final = t->resp_seq >= 0;
		r->counts[0]++; /* as the store refresh counts a new turn */
	}
	for (size_t i = 0; i < n; i++) {
		if (ts[i].verdict) {
			cJSON *v = cJSON_Parse(ts[i].verdict);
			cr_assert_not_null(v, "verdict of turn %zu parses", i);
			cm_apply_verdict(r, (int)i, v, ts[i].provisional);
			cJSON_Delete(v);
		}
		cm_turn_at(r, i)->verifying = ts[i].verifying;
		if (ts[i].label)
			cm_set_label(r, (int)i, ts[i].label);
	}
}

struct fx {
	struct cmodel m;
	struct keymap km;
	struct ui u;
	struct canvas c;
	int calls_recover, calls_quit, calls_verify, calls_resolve, calls_trial, calls_rearm, calls_cancel;
	char rearm_scope[64];
	uint64_t resolved;
	int approved;
	char trial_id[64];
	int trial_apply;
};

static struct fx F;

static void in_verify(void *ctx, const struct cm_run *r, int turn, int from, int cov)
{
	(void)r, (void)turn, (void)from, (void)cov;
	((struct fx *)ctx)->calls_verify++;
}
static void in_recover(void *ctx, const struct cm_run *r, int turn)
{
	(void)r, (void)turn;
	((struct fx *)ctx)->calls_recover++;
}
static void in_rearm(void *ctx, const struct cm_run *r)
{
	struct fx *f = ctx;
	f->calls_rearm++;
	snprintf(f->rearm_scope, sizeof f->rearm_scope, "%s", r->scope);
}
static void in_resolve(void *ctx, const struct cm_run *r, uint64_t hold, int approve)
{
	(void)r;
	struct fx *f = ctx;
	f->calls_resolve++;
	f->resolved = hold;
	f->approved = approve;
}
static void in_trial(void *ctx, const char *id, int apply)
{
	struct fx *f = ctx;
	f->calls_trial++;
	snprintf(f->trial_id, sizeof f->trial_id, "%s", id);
	f->trial_apply = apply;
}
static int in_cancel(void *ctx)
{
	((struct fx *)ctx)->calls_cancel++;
	return 1;
}
static void in_quit(void *ctx)
{
	((struct fx *)ctx)->calls_quit++;
}

static void build(int w, int h)
{
	memset(&F, 0, sizeof F);
	struct err e = {0};
	cr_assert_eq(keymap_load(&F.km, &e), 0, "%s", e.msg);

	struct cm_run *a = cm_add(&F.m, "20261129-181203-7c1e", "/home/user/.local/state/belay/traces/trace-20261129-181203-7c1e.jsonl");
	snprintf(a->started, sizeof a->started, "2026-11-29T18:12:03.004512Z");
	snprintf(a->ended, sizeof a->ended, "2026-11-29T18:14:40.220001Z");
	a->server = xstrdup("uvx mcp-server-time --local-timezone Europe/Paris");
	a->has_exit = 1;
	a->exit_status = 0;
	a->frames = 12;
	add_turns(a, old_turns, sizeof old_turns / sizeof *old_turns, 5, 1795975930);

	struct cm_run *b = cm_add(&F.m, "20261129-184948-3f2a", "/home/user/.local/state/belay/traces/trace-20261129-184948-3f2a.jsonl");
	snprintf(b->started, sizeof b->started, "2026-11-29T18:49:48.123456Z");
	b->server = xstrdup("npx -y @modelcontextprotocol/server-filesystem /work/demo");
	b->scope = xstrdup("/work/demo");
	b->network = xstrdup("deny");
	b->state_dir = xstrdup("/home/user/.local/state/belay");
	b->live = 1;
	b->frames = 96;
	add_turns(b, live_turns, NLIVE, 10, 1795978195);
	b->denials = xcalloc(NDEN, sizeof *b->denials);
	b->capdenials = NDEN;
	for (size_t i = 0; i < NDEN; i++) {
		const struct dspec *s = &live_denials[i];
		struct cm_denial *d = &b->denials[b->ndenials++];
		d->seq = 1000 + (int64_t)i;
		snprintf(d->kind, sizeof d->kind, "%s", s->kind);
		d->op = dupn(s->op);
		d->target = dupn(s->target);
		d->err = dupn(s->err);
		d->outcome = dupn(s->outcome);
		d->comm = dupn(s->comm);
		d->turn = s->turn;
		d->turn_seq = s->turn >= 0 ? cm_turn_at(b, s->turn)->req_seq : -1;
		if (s->turn >= 0 && !strcmp(s->kind, "denial"))
			cm_turn_at(b, s->turn)->denials++;
		if (!strcmp(s->kind, "denial"))
			b->denial_count++;
		else
			b->network_attempts++;
	}
	/* Two held calls: one the store shows (turn 28), one it does not have yet. */
	cJSON *plan = cJSON_Parse("{\"tool\":\"write_file\",\"effects\":[{\"op\":\"write\",\"path\":\".env\"}],"
				  "\"why\":\"writes a dotfile\",\"arguments\":{\"path\":\".env\",\"content\":\"TOKEN=...\"}}");
	cm_hold_add(b, 901, cm_turn_at(b, HELD_TURN)->req_seq, "write_file", plan, NULL);
	cJSON_Delete(plan);
	plan = cJSON_Parse("{\"tool\":\"delete_file\",\"effects\":[{\"op\":\"unlink\",\"path\":\"src/calc.py\"}],"
			   "\"why\":\"deletes a tracked file\",\"arguments\":{\"path\":\"src/calc.py\"}}");
	cm_hold_add(b, 902, 200, "delete_file", plan, NULL);
	cJSON_Delete(plan);

	struct ui_intents in = {.verify = in_verify, .resolve = in_resolve, .recover = in_recover, .trial = in_trial,
				.rearm = in_rearm, .quit = in_quit, .cancel = in_cancel, .ctx = &F};
	ui_init(&F.u, &F.m, &F.km, &in);
	F.u.now = NOW;
	F.u.socket_path = SOCKET;
	F.u.theme_name = "dark";
	ui_resize(&F.u, w, h);
	ui_focus_run(&F.u, b->id);
	canvas_init(&F.c, w, h);
	ui_draw(&F.u, &F.c);
}

static void teardown_fx(void)
{
	canvas_free(&F.c);
	ui_free(&F.u);
	keymap_free(&F.km);
	/* cm_close frees a run's turns before dropping its holds, and dropping a hold looks its
	 * turn up (a use after free): drop them first. */
	for (size_t i = 0; i < F.m.nruns; i++)
		cm_holds_clear(F.m.runs[i]);
	cm_close(&F.m);
}

/* Presses keys the way the console does: a draw after each. Named keys as K_* values,
 * a string of printable characters as themselves; the list ends with 0. */
static void press(int key, ...)
{
	va_list ap;
	va_start(ap, key);
	for (int k = key; k; k = va_arg(ap, int)) {
		ui_key(&F.u, k);
		ui_draw(&F.u, &F.c);
	}
	va_end(ap);
}

static void type(const char *s)
{
	for (; *s; s++) {
		ui_key(&F.u, *s == ' ' ? K_SPACE : (unsigned char)*s);
		ui_draw(&F.u, &F.c);
	}
}

/*==== the detail view, filled by hand as detail_load would from the store ====*/

static const char *REQ = "{\"jsonrpc\":\"2.0\",\"id\":12,\"method\":\"tools/call\",\"params\":{\"name\":\"write_file\","
			 "\"arguments\":{\"path\":\"tests/test_calc.py\",\"content\":\"from calc import add\\n\\n\\n"
			 "def test_add():\\n    assert True\\n\"},\"_meta\":{\"progressToken\":7}}}";
static const char *RESP = "{\"jsonrpc\":\"2.0\",\"id\":12,\"result\":{\"content\":[{\"type\":\"text\",\"text\":"
			  "\"Successfully wrote to tests/test_calc.py\"}],\"isError\":false}}";
static const char *BEFORE = "from calc import add\n\n\ndef test_add():\n    assert add(2, 2) == 4\n\n\n"
			    "def test_add_negative():\n    assert add(-1, -1) == -2\n\n\ndef test_add_zero():\n"
			    "    assert add(0, 0) == 0\n";
static const char *AFTER = "from calc import add\n\n\ndef test_add():\n    assert True\n";

static void frame_header(struct tdoc *d, const char *what, int s2c, long long seq, size_t bytes, const char *t_in)
{
	tdoc_nl(d);
	tdoc_addf(d, ROLE_TITLE, "%s %s", s2c ? glyph(G_S2C) : glyph(G_C2S), what);
	tdoc_addf(d, ROLE_DIM, "  seq %lld", seq);
	tdoc_addf(d, ROLE_DIM, ", %zu bytes", bytes);
	tdoc_addf(d, ROLE_DIM, ", %s", t_in);
}

static void raw_bytes(struct tdoc *d, const char *p)
{
	tdoc_nl(d);
	struct buf b = {0};
	for (; *p; p++) {
		unsigned char c = (unsigned char)*p;
		if (c == '\\')
			buf_puts(&b, "\\\\");
		else if (c < 0x20 || c == 0x7f)
			buf_printf(&b, "\\x%02x", c);
		else
			buf_putc(&b, (char)c);
	}
	tdoc_addn(d, ROLE_NORMAL, b.p ? b.p : "", b.len);
	buf_free(&b);
}

static void open_detail(enum dtab tab)
{
	struct ui *u = &F.u;
	struct cm_run *r = ui_run(u);
	struct cm_turn *t = cm_turn_at(r, DETAIL_TURN);
	/* The home screen's focus goes to the turn, as Enter on it would. */
	for (size_t i = 0; i < u->nvis; i++)
		if (u->vis[i] == DETAIL_TURN)
			u->pos[PANE_TURNS].sel = i;
	u->follow = 0;
	struct detail *d = &u->det;
	memset(d, 0, sizeof *d);
	d->run = xstrdup(r->id);
	d->turn = DETAIL_TURN;
	d->req = cJSON_Parse(REQ);
	d->resp = cJSON_Parse(RESP);
	d->verdict = cJSON_Parse(live_turns[DETAIL_TURN].verdict);
	cr_assert(d->req && d->resp && d->verdict);
	/* request, response */
	frame_header(&d->tab[TAB_REQUEST], "request", 0, (long long)t->req_seq, strlen(REQ), "2026-11-29T18:50:23.512034Z");
	frame_header(&d->tab[TAB_RESPONSE], "response", 1, (long long)t->resp_seq, strlen(RESP), "2026-11-29T18:50:23.514344Z");
	detail_render_json(d);
	/* effect diff */
	struct tdoc *df = &d->tab[TAB_DIFF];
	tdoc_nl(df);
	tdoc_addf(df, ROLE_TITLE, "what changed in the workspace from this turn's pre-state to turn %d's", DETAIL_TURN + 1);
	tdoc_nl(df);
	tdoc_addf(df, ROLE_DIFF_META, "%-8s %s", "changed", "tests/test_calc.py");
	tdoc_add(df, ROLE_DIM, "  (size, mtime, content)");
	cr_assert_eq(udiff(df, BEFORE, strlen(BEFORE), AFTER, strlen(AFTER), 3, 4000), UDIFF_OK);
	tdoc_nl(df);
	tdoc_addf(df, ROLE_DIFF_META, "%-8s %s", "added", ".pytest_cache/v/cache/lastfailed");
	cr_assert_eq(udiff(df, "", 0, "{}\n", 3, 3, 4000), UDIFF_OK);
	tdoc_nl(df);
	tdoc_addf(df, ROLE_DIFF_META, "%-8s %s", "changed", "data/fixture.bin");
	tdoc_add(df, ROLE_DIM, "  (size, content)");
	cr_assert_eq(udiff(df, "\x01\x00\x02", 3, "\x01\x00\x03", 3, 3, 4000), UDIFF_BINARY);
	tdoc_nl(df);
	tdoc_add(df, ROLE_DIM, "  (binary content differs)");
	tdoc_nl(df);
	tdoc_nl(df);
	tdoc_add(df, ROLE_TITLE, "the replay (from the same pre-state) changed:");
	tdoc_nl(df);
	tdoc_addf(df, ROLE_DIFF_META, "  %-8s %s", "changed", "tests/test_calc.py");
	/* denials */
	struct tdoc *dn = &d->tab[TAB_DENIALS];
	tdoc_nl(dn);
	tdoc_add(dn, ROLE_TITLE, "recorded while this call ran");
	for (size_t i = 0; i < r->ndenials; i++) {
		const struct cm_denial *x = &r->denials[i];
		if (x->turn != DETAIL_TURN)
			continue;
		tdoc_nl(dn);
		tdoc_addf(dn, ROLE_DENIAL, "  %s %-8s %-14s ", glyph(G_DENIAL), x->err, x->op);
		tdoc_addf(dn, ROLE_NORMAL, "%s", x->target);
		tdoc_addf(dn, ROLE_DIM, "  (%s)", x->comm);
	}
	tdoc_nl(dn);
	tdoc_nl(dn);
	tdoc_add(dn, ROLE_TITLE, "observed in the replay");
	tdoc_nl(dn);
	tdoc_addf(dn, ROLE_DENIAL, "  %s %-8s %-14s ", glyph(G_DENIAL), "EACCES", "openat");
	tdoc_add(dn, ROLE_NORMAL, "/home/user/.netrc");
	/* snapshot */
	struct tdoc *sn = &d->tab[TAB_SNAPSHOT];
	tdoc_nl(sn);
	tdoc_addf(sn, ROLE_TITLE, "pre-state: %s", t->prestate);
	static const char *fields[][2] = {{"handle", "h-04"},
					  {"source", "snapshot"},
					  {"tree_hash", "sha256:9b1f0c7e4d2a8b6f3e5c1d7a9f0b2c4e6d8a1f3b5c7e9d0a2b4c6e8f0a1b3c5d"},
					  {"backend", "reflink"},
					  {"walk", "full"}};
	for (size_t i = 0; i < sizeof fields / sizeof *fields; i++) {
		tdoc_nl(sn);
		tdoc_addf(sn, ROLE_DIM, "%-12s", fields[i][0]);
		tdoc_addf(sn, ROLE_NORMAL, "%s", fields[i][1]);
	}
	static const char *nums[][2] = {{"files", "14"}, {"bytes", "48213"}, {"changed", "1"}};
	for (size_t i = 0; i < sizeof nums / sizeof *nums; i++) {
		tdoc_nl(sn);
		tdoc_addf(sn, ROLE_DIM, "%-12s", nums[i][0]);
		tdoc_addf(sn, ROLE_NORMAL, "%s", nums[i][1]);
	}
	tdoc_nl(sn);
	tdoc_add(sn, ROLE_DIM, "fidelity    ");
	tdoc_add(sn, ROLE_NORMAL, "no gaps recorded");
	/* raw frames */
	struct tdoc *rw = &d->tab[TAB_RAW];
	frame_header(rw, "request", 0, (long long)t->req_seq, strlen(REQ), "2026-11-29T18:50:23.512034Z");
	tdoc_nl(rw);
	tdoc_add(rw, ROLE_DIM, "  sha256:3f5d0c2a7b9e1d4f6a8c0e2b4d6f8a1c3e5b7d9f0a2c4e6b8d0f1a3c5e7b9d2f (checked)");
	raw_bytes(rw, REQ);
	tdoc_nl(rw);
	frame_header(rw, "response", 1, (long long)t->resp_seq, strlen(RESP), "2026-11-29T18:50:23.514344Z");
	tdoc_nl(rw);
	tdoc_add(rw, ROLE_DIM, "  sha256:a41c9e7d3b5f0a2c4e6d8b1f3a5c7e9d0b2f4a6c8e1d3b5f7a9c0e2d4b6f8a1c (checked)");
	raw_bytes(rw, RESP);
	tdoc_nl(rw);
	detail_render_head(d, t);
	u->det_loaded = 1;
	memset(u->det_top, 0, sizeof u->det_top);
	memset(u->det_cur, 0, sizeof u->det_cur);
	u->tab = tab;
	u->focus = PANE_TURNS;
	u->stack[u->depth++] = u->view;
	u->view = VIEW_DETAIL;
	ui_draw(u, &F.c);
}

/*==== reading a screen ====*/

/* Row y as UTF-8, with the cell x of every byte (xs may be NULL). */
static char *row_text(const struct canvas *c, int y, int **xs)
{
	struct buf b = {0};
	size_t cap = (size_t)c->w * 4 + 1;
	int *map = xcalloc(cap, sizeof *map);
	for (int x = 0; x < c->w; x++) {
		uint32_t ch = canvas_at(c, y, x)->ch;
		if (!ch)
			continue;
		char u[4];
		int n = (int)canvas_utf8(ch, u);
		for (int i = 0; i < n; i++)
			map[b.len + (size_t)i] = x;
		buf_append(&b, u, (size_t)n);
	}
	buf_cstr(&b);
	if (xs)
		*xs = map;
	else
		free(map);
	return buf_take(&b);
}

static char *screen_text(const struct canvas *c)
{
	struct buf b = {0};
	canvas_dump_text(c, &b);
	buf_cstr(&b);
	return buf_take(&b);
}

/* Every occurrence of word on the screen: none of its cells has role `bad`. */
static void word_not_in_role(const struct canvas *c, const char *word, enum role bad, const char *where)
{
	for (int y = 0; y < c->h; y++) {
		int *xs;
		char *t = row_text(c, y, &xs);
		for (const char *p = strstr(t, word); p; p = strstr(p + 1, word))
			for (size_t k = 0; k < strlen(word); k++) {
				int x = xs[(size_t)(p - t) + k];
				cr_assert_neq(canvas_at(c, y, x)->role, bad, "%s: '%s' at row %d column %d has role %s:\n%s", where,
					      word, y, x, role_name(bad), t);
			}
		free(t);
		free(xs);
	}
}

/* Independent tallies of the live run's verdicts, from the spec (not from the model). */
static void tally(const struct tspec *ts, size_t n, size_t out[6])
{
	memset(out, 0, 6 * sizeof *out);
	for (size_t i = 0; i < n; i++) {
		enum cm_v v = CMV_NONE;
		if (ts[i].verdict) {
			cJSON *j = cJSON_Parse(ts[i].verdict);
			v = cm_v_parse(jx_str(j, "status"));
			cJSON_Delete(j);
		}
		out[(int)v + 1]++;
	}
}

/* The status line: "run i/n ...  T turns: ✓P !W ?U ✗F ·N to verify". */
static void check_status(const struct canvas *c, const char *where)
{
	struct cm_run *r = ui_run(&F.u);
	if (!r || F.u.w < UI_MIN_W || F.u.h < UI_MIN_H)
		return;
	size_t want[6];
	if (r == F.m.runs[1])
		tally(live_turns, NLIVE, want);
	else
		tally(old_turns, sizeof old_turns / sizeof *old_turns, want);
	int y = F.u.h - 3;
	int *xs;
	char *t = row_text(c, y, &xs);
	char head[64];
	snprintf(head, sizeof head, "  %zu turns: ", r->nturns);
	const char *p = strstr(t, head);
	cr_assert_not_null(p, "%s: the status line names the turn count: %s", where, t);
	p += strlen(head);
	static const enum cm_v order[] = {CMV_PASS, CMV_WARN, CMV_UNVERIFIED, CMV_FAIL};
	for (int i = 0; i < 4; i++) {
		const char *g = look_v_glyph(order[i]);
		cr_assert(!strncmp(p, g, strlen(g)), "%s: status item %d starts with %s: %s", where, i, g, p);
		int x = xs[p - t];
		cr_assert_eq(canvas_at(c, y, x)->role, look_v_role(order[i]), "%s: the %s count wears its own role", where,
			     look_v_word(order[i]));
		p += strlen(g);
		char *end;
		unsigned long v = strtoul(p, &end, 10);
		cr_assert(end > p, "%s: a number after %s", where, g);
		cr_assert_eq(v, want[order[i] + 1], "%s: %s counted %lu, the run has %zu", where, look_v_word(order[i]), v,
			     want[order[i] + 1]);
		p = end + 1;
	}
	const char *g = glyph(G_PENDING);
	cr_assert(!strncmp(p, g, strlen(g)), "%s: then the not-verified count: %s", where, p);
	cr_assert_eq(strtoul(p + strlen(g), NULL, 10), want[0], "%s: not verified", where);
	/* Distinct counts: PASS never absorbs UNVERIFIED (the fixture has both). */
	cr_assert(want[CMV_PASS + 1] && want[CMV_UNVERIFIED + 1]);
	free(t);
	free(xs);
}

/* A verdict word drawn right after a verdict glyph (with or without a blank between) shows
 * its own verdict's glyph, in its own verdict's role, glyph and word alike. */
static void glyphs_match_words(const struct canvas *c, const char *where)
{
	static const struct {
		const char *word;
		enum cm_v v;
	} words[] = {{"PASS", CMV_PASS},         {"pass", CMV_PASS},       {"WARN", CMV_WARN},
		     {"warn", CMV_WARN},         {"UNVERIFIED", CMV_UNVERIFIED}, {"unvr", CMV_UNVERIFIED},
		     {"FAIL", CMV_FAIL},         {"NOT_COVERED", CMV_NOT_COVERED}, {"n/c", CMV_NOT_COVERED}};
	static const enum cm_v all[] = {CMV_PASS, CMV_WARN, CMV_UNVERIFIED, CMV_FAIL, CMV_NOT_COVERED};
	for (int y = 0; y < c->h; y++) {
		int *xs;
		char *t = row_text(c, y, &xs);
		for (size_t w = 0; w < sizeof words / sizeof *words; w++)
			for (const char *p = strstr(t, words[w].word); p; p = strstr(p + 1, words[w].word)) {
				const char *q = p;
				if (q > t && q[-1] == ' ')
					q--;
				for (size_t g = 0; g < sizeof all / sizeof *all; g++) {
					const char *gl = look_v_glyph(all[g]);
					size_t gn = strlen(gl);
					if ((size_t)(q - t) < gn || strncmp(q - gn, gl, gn))
						continue;
					cr_assert_eq(all[g], words[w].v, "%s: row %d shows '%s' after the glyph of %s:\n%s", where, y,
						     words[w].word, look_v_word(all[g]), t);
					enum role want = look_v_role(words[w].v);
					cr_assert_eq(canvas_at(c, y, xs[p - t])->role, want, "%s: row %d: '%s' is not in %s:\n%s",
						     where, y, words[w].word, role_name(want), t);
					cr_assert_eq(canvas_at(c, y, xs[(q - gn) - t])->role, want,
						     "%s: row %d: the glyph of '%s' is not in %s:\n%s", where, y, words[w].word,
						     role_name(want), t);
					break;
				}
			}
		free(t);
		free(xs);
	}
}

/* What every screen must be honest about. */
static void honesty(const struct canvas *c, const char *where)
{
	static const char *words[] = {"UNVERIFIED", "unvr", "NOT_COVERED", "n/c", "not verified", "not covered", NULL};
	for (int i = 0; words[i]; i++)
		word_not_in_role(c, words[i], ROLE_V_PASS, where);
	/* The UNVERIFIED and NOT_COVERED glyphs (and ASCII '-' / '?') never wear PASS's role. */
	const char *g1 = glyph(G_UNVERIFIED), *g2 = glyph(G_NOT_COVERED);
	word_not_in_role(c, g1, ROLE_V_PASS, where);
	word_not_in_role(c, g2, ROLE_V_PASS, where);
	/* And PASS's look is never given to them: each UNVERIFIED word wears unverified's role
	 * (or is plain text in a document, never a verdict colour of another kind). */
	static const enum role verdict_roles[] = {ROLE_V_PASS, ROLE_V_WARN, ROLE_V_FAIL, ROLE_V_NOT_COVERED};
	for (size_t i = 0; i < sizeof verdict_roles / sizeof *verdict_roles; i++)
		word_not_in_role(c, "UNVERIFIED", verdict_roles[i], where);
	glyphs_match_words(c, where);
	/* A cause (why a turn is not PASS) never wears PASS's role, whole or cut short. */
	struct cm_run *r = ui_run(&F.u);
	for (size_t i = 0; r && i < r->nturns; i++)
		if (cm_turn_at(r, i)->cause[0]) {
			char head[13] = {0};
			memcpy(head, cm_turn_at(r, i)->cause, sizeof head - 1);
			word_not_in_role(c, head, ROLE_V_PASS, where);
		}
	check_status(c, where);
	/* Nothing but printable characters reached the grid. */
	for (int y = 0; y < c->h; y++)
		for (int x = 0; x < c->w; x++) {
			uint32_t ch = canvas_at(c, y, x)->ch;
			cr_assert(ch == 0 || (ch >= 0x20 && ch != 0x7f && !(ch >= 0x80 && ch < 0xa0)), "%s: U+%04X at %d,%d",
				  where, ch, y, x);
		}
}

/*==== goldens ====*/

/* Compares the screen with its golden (ts_screen.h), after the honesty checks. */
static void golden(const char *name)
{
	const struct canvas *c = &F.c;
	char where[128];
	snprintf(where, sizeof where, "%s %dx%d%s", name, c->w, c->h, glyphs_ascii() ? " ascii" : "");
	honesty(c, where);
	ts_screen_golden(c, name);
}

/*==== the screens ====*/

static const int sizes[][2] = {{80, 24}, {120, 40}, {200, 60}};

static void scr_home_runs(void)
{
	press(K_STAB, 0);
	cr_assert_eq(F.u.focus, PANE_RUNS);
}

static void scr_home_turns(void)
{
	/* From the newest row up to the UNVERIFIED turn 3. */
	press('g', 'j', 'j', 'j', 0);
	cr_assert_eq(F.u.focus, PANE_TURNS);
	cr_assert_eq(F.u.vis[F.u.pos[PANE_TURNS].sel], UNV_TURN);
}

static void scr_home_denials(void)
{
	press(K_TAB, 0);
	cr_assert_eq(F.u.focus, PANE_DENIALS);
	press('k', 'k', 'k', 0); /* from the newest up to turn 11's */
}

static void scr_filtered(void)
{
	press('/', 0);
	type("verdict:unverified");
	press(K_ENTER, 0);
	cr_assert_str_eq(F.u.filter_text, "verdict:unverified");
}

/* The run-level verdicts as the store gives them (verdict_store_latest): the success claim
 * re-derived and failed, the census dropping two tests and skipping one. */
#define RUN_VERDICTS                                                                                                   \
	"[{\"turn\":-2,\"tool\":null,\"status\":\"FAIL\",\"cause\":null,\"verdicts\":[{\"axis\":\"A1\",\"kind\":"      \
	"\"census\",\"rule\":\"census\",\"status\":\"FAIL\",\"message\":\"tests-collected (pytest): TESTS_DROPPED 2 "        \
	"test(s) collected in the task's first pre-state are not collected after the run: tests/test_calc.py::test_div, "    \
	"tests/test_calc.py::test_neg; TESTS_SKIPPED 1 test(s) that ran are skipped after the run: "                         \
	"tests/test_calc.py::test_add (now skipped: flaky)\",\"observed\":[{\"finding\":\"TESTS_DROPPED\",\"test\":\"a\"},"  \
	"{\"finding\":\"TESTS_DROPPED\",\"test\":\"b\"},{\"finding\":\"TESTS_SKIPPED\",\"test\":\"c\"}],\"expected\":"       \
	"{\"runner\":\"pytest\",\"collected_before\":41,\"collected_after\":39,\"to_run_before\":41,\"to_run_after\":38}}]},"  \
	"{\"turn\":-1,\"tool\":null,\"status\":\"FAIL\",\"cause\":null,\"verdicts\":[{\"axis\":\"A1\",\"kind\":\"claim\"," \
	"\"rule\":\"claim-rederived\",\"status\":\"FAIL\",\"message\":\"the agent said \\\"all tests pass\\\"; the suite "    \
	"failed twice the same way on the run's final state: tests/test_calc.py::test_mul (AssertionError)\"}]}]"

static void with_run_verdicts(void)
{
	struct cm_run *r = ui_run(&F.u);
	r->runv = cJSON_Parse(RUN_VERDICTS);
	cr_assert_not_null(r->runv);
}

static void scr_run_verdicts(void)
{
	with_run_verdicts();
	press('g', 'j', 'j', 'j', 0);
}

static void scr_detail(enum dtab tab, int down)
{
	open_detail(tab);
	for (int i = 0; i < down; i++)
		press('j', 0);
}

static void scr_help(void)
{
	press('?', 0);
	cr_assert_eq(F.u.view, VIEW_HELP);
}

static void scr_log(void)
{
	F.u.now = NOW - 70;
	ui_message(&F.u, 0, "new run 20261129-184948-3f2a");
	F.u.now = NOW - 30;
	ui_message(&F.u, 1, "HELD: write_file waits for your approval (y lets it run once, x refuses)");
	F.u.now = NOW - 12;
	ui_message(&F.u, 2, "store: database is locked (retrying)");
	F.u.now = NOW;
	ui_message(&F.u, 0, "verifying turn 3: queued (replay from its pre-state + invariants)");
	press('E', 0);
	cr_assert_eq(F.u.view, VIEW_LOG);
}

static void scr_confirm(void)
{
	press('Q', 0);
	cr_assert(F.u.confirm[0], "a live run makes quitting ask first");
	cr_assert_eq(F.calls_quit, 0);
}

static void scr_prompt(void)
{
	press(':', 0);
	type("verify.tu");
	cr_assert_eq(F.u.prompt, ':');
}

static void detail_run_verdicts(void)
{
	with_run_verdicts();
	scr_detail(TAB_REQUEST, 0);
	struct detail *d = &F.u.det;
	d->runv = cJSON_Duplicate(ui_run(&F.u)->runv, 1);
	detail_render_head(d, cm_turn_at(ui_run(&F.u), DETAIL_TURN));
}

static void detail_request(void)
{
	scr_detail(TAB_REQUEST, 4);
}
static void detail_response(void)
{
	scr_detail(TAB_RESPONSE, 0);
}
static void detail_diff(void)
{
	scr_detail(TAB_DIFF, 0);
}
static void detail_denials(void)
{
	scr_detail(TAB_DENIALS, 0);
}
static void detail_snapshot(void)
{
	scr_detail(TAB_SNAPSHOT, 0);
}
static void detail_raw(void)
{
	scr_detail(TAB_RAW, 0);
}

static void run_screen(const char *name, void (*fn)(void), int ascii)
{
	for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++) {
		glyphs_set_ascii(ascii);
		build(sizes[s][0], sizes[s][1]);
		fn();
		ui_draw(&F.u, &F.c);
		golden(name);
		teardown_fx();
	}
	glyphs_set_ascii(0);
}

Test(screens, theme_legends) { ts_theme_legends(); }
Test(screens, home_runs) { run_screen("home_runs", scr_home_runs, 0); }
Test(screens, home_turns) { run_screen("home_turns", scr_home_turns, 0); }
Test(screens, home_turns_ascii) { run_screen("home_turns_ascii", scr_home_turns, 1); }
Test(screens, home_run_verdicts) { run_screen("home_run_verdicts", scr_run_verdicts, 0); }
Test(screens, detail_run_verdicts) { run_screen("detail_run_verdicts", detail_run_verdicts, 0); }
Test(screens, home_denials) { run_screen("home_denials", scr_home_denials, 0); }
Test(screens, filtered) { run_screen("filtered", scr_filtered, 0); }
Test(screens, detail_request) { run_screen("detail_request", detail_request, 0); }
Test(screens, detail_request_ascii) { run_screen("detail_request_ascii", detail_request, 1); }
Test(screens, detail_response) { run_screen("detail_response", detail_response, 0); }
Test(screens, detail_diff) { run_screen("detail_diff", detail_diff, 0); }
Test(screens, detail_denials) { run_screen("detail_denials", detail_denials, 0); }
Test(screens, detail_snapshot) { run_screen("detail_snapshot", detail_snapshot, 0); }
Test(screens, detail_raw) { run_screen("detail_raw", detail_raw, 0); }
Test(screens, help) { run_screen("help", scr_help, 0); }
Test(screens, log) { run_screen("log", scr_log, 0); }
Test(screens, confirm) { run_screen("confirm", scr_confirm, 0); }
Test(screens, prompt) { run_screen("prompt", scr_prompt, 0); }

Test(screens, too_small)
{
	static const int small[][2] = {{79, 24}, {80, 23}};
	for (int i = 0; i < 2; i++) {
		build(small[i][0], small[i][1]);
		ui_draw(&F.u, &F.c);
		golden("too_small");
		char *t = screen_text(&F.c);
		cr_assert(strstr(t, "needs at least 80x24"), "%s", t);
		char want[64];
		snprintf(want, sizeof want, "this terminal is %dx%d", small[i][0], small[i][1]);
		cr_assert(strstr(t, want), "%s", t);
		free(t);
		teardown_fx();
	}
}

static void detail_held(void)
{
	press('G', K_ENTER, 0);
	cr_assert_eq(F.u.view, VIEW_DETAIL);
	cr_assert_eq(F.u.det.turn, -1, "the held call the store does not have yet");
	cr_assert_eq(F.u.det.hold, 902);
}

Test(screens, approve_from_the_held_call_detail)
{
	build(80, 24);
	detail_held();
	press('y', 0);
	cr_assert_eq(F.calls_resolve, 1);
	cr_assert_eq(F.resolved, 902);
	cr_assert_eq(F.approved, 1);
	/* Verifying or labelling a call that has not run says why not. */
	press('v', 0);
	cr_assert_eq(F.calls_verify, 0);
	cr_assert(strstr(F.u.msg, "has not run yet"), "%s", F.u.msg);
	teardown_fx();
}

Test(screens, detail_held) { run_screen("detail_held", detail_held, 0); }

/* A third held call, tried first in a mirror (docs/TRY.md): its detail shows the trial's
 * report and offers A. */
#define TRIAL_ID "trial-20261129T185001Z-5be1c0de"
static int find_row(const char *a, const char *b);
static void add_tried_hold(void)
{
	struct cm_run *r = ui_run(&F.u);
	cJSON *plan = cJSON_Parse("{\"decision\":\"ask\",\"effects\":[{\"kind\":\"indeterminate\",\"local\":true,"
				  "\"why\":\"runs ./build.sh, a program of the workspace\"}],"
				  "\"arguments\":{\"command_line\":\"./build.sh\"}}");
	cJSON *trial = cJSON_CreateObject();
	cJSON_AddStringToObject(trial, "id", TRIAL_ID);
	cJSON_AddStringToObject(trial, "brief",
				"belay ran the command once in a disposable mirror of the workspace first (trial " TRIAL_ID
				", network deny); the real workspace was not touched.\nIt exited with status 0 after 0.1 s.\n"
				"In the mirror it changed 1 path(s): 1 added, 0 changed, 0 deleted, 0 mode change(s):\n"
				"  added out/built.txt\nThe sandbox refused nothing.\n\nstdout:\nbuilding done\n");
	cm_hold_add(r, 903, 201, "run_process", plan, trial);
	cJSON_Delete(plan);
	cJSON_Delete(trial);
	ui_refilter(&F.u, 1);
}

static void detail_held_trial(void)
{
	add_tried_hold();
	press('G', K_ENTER, 0);
	cr_assert_eq(F.u.view, VIEW_DETAIL);
	cr_assert_eq(F.u.det.hold, 903);
}

Test(screens, detail_held_trial) { run_screen("detail_held_trial", detail_held_trial, 0); }

static void trial_done_event(int outcome, const char *id)
{
	struct cevent *ev = cevent_new(CE_TRIAL, NULL);
	ev->a = outcome;
	ev->text = xstrdup(outcome ? "apply refused " TRIAL_ID ": conflicts: out/built.txt changed since the trial"
				   : "applied " TRIAL_ID ": 1 path(s); recover point snap-1");
	ev->json = cJSON_CreateObject();
	cJSON_AddStringToObject(ev->json, "trial", id);
	cJSON_AddStringToObject(ev->json, "action", "apply");
	ui_event(&F.u, ev);
	cevent_free(ev);
	ui_draw(&F.u, &F.c);
}

Test(screens, a_held_calls_trial_is_applied_instead_only_once_the_apply_is_done)
{
	build(120, 40);
	detail_held_trial();
	cr_assert_geq(find_row("tried first in a disposable mirror", NULL), 0, "the trial's report is shown");
	cr_assert_geq(find_row("added out/built.txt", NULL), 0);
	/* A asks first; n cancels and nothing happens */
	press('A', 0);
	cr_assert(strstr(F.u.msg, "[y/N]") && strstr(F.u.msg, TRIAL_ID), "%s", F.u.msg);
	press('n', 0);
	cr_assert_eq(F.calls_trial, 0);
	/* y: the apply is queued; the hold is not answered yet */
	press('A', 'y', 0);
	cr_assert_eq(F.calls_trial, 1);
	cr_assert_str_eq(F.trial_id, TRIAL_ID);
	cr_assert_eq(F.trial_apply, 1);
	cr_assert_eq(F.calls_resolve, 0, "the agent is told nothing before the effect is applied");
	/* meanwhile the call cannot be approved or applied twice */
	press('y', 0);
	cr_assert_eq(F.calls_resolve, 0, "%s", F.u.msg);
	/* a refused apply (a conflict) leaves the call held */
	trial_done_event(1, TRIAL_ID);
	cr_assert_eq(F.calls_resolve, 0);
	cr_assert(strstr(F.u.msg, "still held"), "%s", F.u.msg);
	/* another trial's apply ending is not this hold's */
	press('A', 'y', 0);
	cr_assert_eq(F.calls_trial, 2);
	trial_done_event(0, "trial-someone-else");
	cr_assert_eq(F.calls_resolve, 0);
	/* done: the hold is answered "applied instead" (2) */
	trial_done_event(0, TRIAL_ID);
	cr_assert_eq(F.calls_resolve, 1);
	cr_assert_eq(F.resolved, 903);
	cr_assert_eq(F.approved, 2, "ADMISSION_APPLIED");
	cr_assert(strstr(F.u.msg, "telling the agent"), "%s", F.u.msg);
	teardown_fx();
}

Test(screens, a_held_call_without_a_trial_has_nothing_to_apply)
{
	build(80, 24);
	detail_held(); /* 902: held without a trial */
	press('A', 0);
	cr_assert_eq(F.calls_trial, 0);
	cr_assert(strstr(F.u.msg, "was not tried in a mirror"), "%s", F.u.msg);
	cr_assert_eq(F.u.confirm[0], '\0', "nothing to confirm");
	teardown_fx();
}

/*==== honesty and behaviour, asserted directly ====*/

/* The screen row whose text contains all of the given strings (NULL-terminated), or -1. */
static int find_row(const char *a, const char *b)
{
	for (int y = 0; y < F.c.h; y++) {
		char *t = row_text(&F.c, y, NULL);
		int hit = strstr(t, a) && (!b || strstr(t, b));
		free(t);
		if (hit)
			return y;
	}
	return -1;
}

Test(screens, focused_unverified_cause_on_the_80x24_home_screen)
{
	build(80, 24);
	scr_home_turns();
	const struct cm_turn *t = cm_turn_at(ui_run(&F.u), UNV_TURN);
	cr_assert_eq(t->v, CMV_UNVERIFIED);
	cr_assert_str_eq(t->cause, "RESULT_NONDETERMINISTIC_CLOCK");
	int y = find_row("turn 3 get_current_time:", "RESULT_NONDETERMINISTIC_CLOCK");
	char *s = screen_text(&F.c);
	cr_assert_geq(y, 0, "the focus line names the cause on a narrow screen:\n%s", s);
	free(s);
	/* In the UNVERIFIED look, word and cause alike. */
	int *xs;
	char *row = row_text(&F.c, y, &xs);
	const char *p = strstr(row, "RESULT_NONDETERMINISTIC_CLOCK");
	for (size_t k = 0; k < strlen("RESULT_NONDETERMINISTIC_CLOCK"); k++)
		cr_assert_eq(canvas_at(&F.c, y, xs[(size_t)(p - row) + k])->role, ROLE_V_UNVERIFIED);
	p = strstr(row, "UNVERIFIED");
	cr_assert_eq(canvas_at(&F.c, y, xs[p - row])->role, ROLE_V_UNVERIFIED);
	free(row);
	free(xs);
	teardown_fx();
}

/* A held call's row stays selected when turns arrive above it (its place in the list moves;
 * before, the selection stayed on the place and landed on the new turn, so y/x said "not
 * held" — or, with another held row there, answered the wrong call). */
Test(screens, a_selected_held_row_stays_selected_when_turns_arrive)
{
	build(120, 40);
	struct cm_run *b = ui_run(&F.u);
	cJSON *plan = cJSON_Parse("{\"tool\":\"move_file\",\"effects\":[]}");
	cm_hold_add(b, 903, 300, "move_file", plan, NULL);
	cJSON_Delete(plan);
	b->gen++;
	press('G', 'k', 0); /* the delete_file row (902), one above the last */
	const struct cm_hold *h = NULL;
	cr_assert_null(ui_focused(&F.u, &h));
	cr_assert(h && h->id == 902, "the focus is on hold 902 (%llu)", h ? (unsigned long long)h->id : 0ull);
	for (int i = 0; i < 3; i++) { /* three turns the store indexed meanwhile */
		struct cm_turn *t = cm_turn_append(b);
		t->turn = (int)b->nturns - 1;
		t->req_seq = 100 + 2 * i;
		t->resp_seq = t->req_seq + 1;
		t->tool = xstrdup("read_file");
		t->call = CMC_ANSWERED;
		b->gen++;
		ui_draw(&F.u, &F.c);
	}
	h = NULL;
	cr_assert_null(ui_focused(&F.u, &h), "the focus moved to a turn");
	cr_assert(h && h->id == 902, "the focus left hold 902 (%llu)", h ? (unsigned long long)h->id : 0ull);
	/* once its own turn is in the store, that turn's row is the one kept */
	struct cm_turn *t = cm_turn_append(b);
	t->turn = (int)b->nturns - 1;
	t->req_seq = 200;
	t->resp_seq = -1;
	t->tool = xstrdup("delete_file");
	t->hold = 902;
	b->gen++;
	ui_draw(&F.u, &F.c);
	h = NULL;
	struct cm_turn *ft = ui_focused(&F.u, &h);
	cr_assert(ft && ft->hold == 902, "the focus is not on hold 902's turn");
	press('y', 0);
	cr_assert_eq(F.resolved, 902);
	teardown_fx();
}

/* A call held on a run the console is not showing (an HTTP run's hold reaches the console
 * before its trace's run does): following, the console goes to it, so the y or x a person
 * presses on seeing "HELD" answers it; not following, it stays where the person is. */
Test(screens, a_hold_on_another_run_is_followed_to)
{
	build(120, 40);
	ui_focus_run(&F.u, "20261129-181203-7c1e"); /* the ended run */
	cr_assert(F.u.follow);
	struct cevent *ev = cevent_hold("20261206-120000-http", 77, 9, "get-sum", NULL, NULL);
	ui_event(&F.u, ev);
	cevent_free(ev);
	ui_draw(&F.u, &F.c);
	cr_assert_str_eq(ui_run(&F.u)->id, "20261206-120000-http");
	const struct cm_hold *h = NULL;
	cr_assert_null(ui_focused(&F.u, &h));
	cr_assert(h && h->id == 77, "the focus is not on the held call");
	press('x', 0);
	cr_assert_eq(F.resolved, 77);
	cr_assert_eq(F.approved, 0);
	/* not following: a second hold elsewhere leaves the person where they are */
	ui_focus_run(&F.u, "20261129-181203-7c1e");
	F.u.follow = 0;
	ev = cevent_hold("20261206-120000-http", 78, 11, "get-sum", NULL, NULL);
	ui_event(&F.u, ev);
	cevent_free(ev);
	cr_assert_str_eq(ui_run(&F.u)->id, "20261129-181203-7c1e");
	teardown_fx();
}

Test(screens, held_rows_show_HELD)
{
	for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++) {
		build(sizes[s][0], sizes[s][1]);
		press('G', 0);
		/* Turn 28: in the store, held. */
		int y = find_row("  28 ", NULL);
		cr_assert_geq(y, 0);
		char *t = row_text(&F.c, y, NULL);
		cr_assert(strstr(t, "HELD"), "turn 28's row: %s", t);
		free(t);
		/* The call the store does not have yet: its own row, and the focus line. */
		y = find_row(glyph(G_HELD), "delete_file");
		cr_assert_geq(y, 0);
		t = row_text(&F.c, y, NULL);
		cr_assert(strstr(t, "HELD"), "the held row: %s", t);
		free(t);
		cr_assert_geq(find_row("HELD delete_file", "y approves once"), 0, "the focus line says what to do");
		/* The status line counts them. */
		cr_assert_geq(find_row("2 held", NULL), 0);
		/* Approving goes to the engine with the hold's id; so does refusing turn 28. */
		press('y', 0);
		cr_assert(strstr(F.u.msg, "approving"), "%s", F.u.msg);
		cr_assert_eq(F.calls_resolve, 1);
		cr_assert_eq(F.resolved, 902);
		cr_assert_eq(F.approved, 1);
		press('k', 'k', 0);
		cr_assert_eq(F.u.vis[F.u.pos[PANE_TURNS].sel], HELD_TURN);
		/* a held call the store has: its turn's focus line says it is held, as its own row's does */
		cr_assert_geq(find_row("HELD write_file", "y approves once"), 0, "the held turn's focus line");
		press('x', 0);
		cr_assert_eq(F.calls_resolve, 2);
		cr_assert_eq(F.resolved, 901);
		cr_assert_eq(F.approved, 0);
		/* A turn that is not held cannot be approved. */
		press('k', 'y', 0);
		cr_assert_eq(F.calls_resolve, 2);
		cr_assert(strstr(F.u.msg, "not held"), "%s", F.u.msg);
		teardown_fx();
	}
}

Test(screens, the_status_line_never_runs_into_follow)
{
	build(80, 24);
	cr_assert(F.u.follow);
	char *t = row_text(&F.c, 21, NULL);
	cr_assert(!strstr(t, "heldfollow") && !strstr(t, "held~") && !strstr(t, "follow\xe2\x80\xa6"), "%s", t);
	free(t);
	teardown_fx();
	build(120, 40);
	t = row_text(&F.c, 37, NULL);
	cr_assert(strstr(t, "held ") && strstr(t, "follow"), "room for both at 120: %s", t);
	free(t);
	teardown_fx();
}

Test(screens, filter_counts_turns_not_held_rows)
{
	build(80, 24);
	ui_command(&F.u, "filter verdict:unverified");
	ui_draw(&F.u, &F.c);
	size_t want[6];
	tally(live_turns, NLIVE, want);
	char head[64];
	snprintf(head, sizeof head, "TURNS %zu of %zu", want[CMV_UNVERIFIED + 1], NLIVE);
	cr_assert_geq(find_row(head, NULL), 0, "the header says %s", head);
	/* The held call the store does not have yet is still shown (it waits for the operator). */
	cr_assert_geq(find_row(glyph(G_HELD), "delete_file"), 0);
	teardown_fx();
}

Test(screens, filter_prompt_follows_typing_and_esc_restores)
{
	build(80, 24);
	ui_command(&F.u, "filter tool:read");
	ui_draw(&F.u, &F.c);
	size_t nread = F.u.nvis;
	press('/', 0);
	cr_assert_str_eq(F.u.pbuf, "tool:read", "the prompt starts from the current filter");
	press(K_C('u'), 0);
	type("verdict:wa");
	/* "verdict:wa" is not a value: the last good expression ("verdict:" is an error too, so
	 * the empty one) stays in force; nothing is lost while typing. */
	cr_assert_eq(F.u.prompt, '/');
	type("rn");
	cr_assert_str_eq(F.u.filter_text, "verdict:warn");
	cr_assert_eq(F.u.nvis, 2 + 1, "two WARN turns and the held row");
	press(K_ESC, 0);
	cr_assert_eq(F.u.prompt, 0);
	cr_assert_str_eq(F.u.filter_text, "tool:read", "Esc goes back to the filter before typing");
	cr_assert_eq(F.u.nvis, nread);
	/* An invalid filter typed after ':' is an error that names the term. */
	ui_command(&F.u, "filter verdict:maybe");
	cr_assert_eq(F.u.msg_level, 2);
	cr_assert(strstr(F.u.msg, "verdict:maybe"), "%s", F.u.msg);
	cr_assert_str_eq(F.u.filter_text, "tool:read", "a bad filter changes nothing");
	/* q clears the filter first. */
	press('q', 0);
	cr_assert_null(F.u.flt);
	cr_assert_eq(F.u.nvis, NLIVE + 1);
	teardown_fx();
}

Test(screens, confirmation_y_does_it_anything_else_cancels)
{
	build(80, 24);
	press('Q', 0);
	cr_assert(F.u.confirm[0]);
	cr_assert_geq(find_row("[y/N]", NULL), 0);
	press('n', 0);
	cr_assert_eq(F.calls_quit, 0);
	cr_assert_eq(F.u.quit, 0);
	cr_assert_str_eq(F.u.msg, "cancelled");
	cr_assert(!F.u.confirm[0]);
	press('Q', 'y', 0);
	cr_assert_eq(F.calls_quit, 1);
	cr_assert(F.u.quit);
	teardown_fx();
}

Test(screens, rearm_after_a_protected_file_alert_asks_then_rearms_the_runs_project)
{
	build(80, 24);
	press('H', 0);
	cr_assert(F.u.confirm[0], "H asks first");
	cr_assert(strstr(F.u.msg, "rearm /work/demo?"), "%s", F.u.msg);
	press('n', 0);
	cr_assert_eq(F.calls_rearm, 0, "n cancels");
	press('H', 'y', 0);
	cr_assert_eq(F.calls_rearm, 1);
	cr_assert_str_eq(F.rearm_scope, "/work/demo");
	/* A run whose project is not known (run a has no scope): nothing to rearm, said so. */
	ui_focus_run(&F.u, "20261129-181203-7c1e");
	ui_command(&F.u, "hook.rearm");
	cr_assert(!F.u.confirm[0]);
	cr_assert(strstr(F.u.msg, "focus a run whose project is known"), "%s", F.u.msg);
	cr_assert_eq(F.calls_rearm, 1);
	teardown_fx();
}

Test(screens, command_prompt_runs_the_line)
{
	build(80, 24);
	press(':', 0);
	type("tab diff");
	press(K_ENTER, 0);
	/* From home, "tab" opens the focused turn: the held row has none, so nothing opens. */
	cr_assert_eq(F.u.view, VIEW_HOME);
	press(':', 0);
	type("nosuch thing");
	press(K_ENTER, 0);
	cr_assert_eq(F.u.msg_level, 2);
	cr_assert(strstr(F.u.msg, "'nosuch'"), "%s", F.u.msg);
	cr_assert_geq(find_row("unknown command 'nosuch'", NULL), 0);
	/* Backspace removes a whole UTF-8 character. */
	press(':', 0x00e9, 0x6f22, 'x', K_BS, K_BS, 0);
	cr_assert_str_eq(F.u.pbuf, "\xc3\xa9");
	press(K_ESC, 0);
	cr_assert_eq(F.u.prompt, 0);
	teardown_fx();
}

Test(screens, fold_at_the_cursor_in_the_request_tab)
{
	build(80, 24);
	open_detail(TAB_REQUEST);
	/* Rows: header, {, jsonrpc, id, method, params... */
	press('j', 'j', 'j', 'j', 'j', 0);
	cr_assert_eq(F.u.det_cur[TAB_REQUEST], 5);
	press('z', 0);
	cr_assert_geq(find_row("\"params\": {\xe2\x80\xa6} 3 keys", NULL), 0, "params folded");
	cr_assert_lt(find_row("\"arguments\"", NULL), 0);
	press('z', 0);
	cr_assert_geq(find_row("\"arguments\": {", NULL), 0, "and unfolded");
	/* Fold does nothing outside the JSON tabs. */
	press('3', 'z', 0);
	cr_assert_eq(F.u.tab, TAB_DIFF);
	teardown_fx();
}

Test(screens, detail_cursor_stays_in_view)
{
	build(80, 24);
	open_detail(TAB_DIFF);
	size_t rows = tdoc_rows(&F.u.det.tab[TAB_DIFF], F.u.w - 1, 1);
	press('G', 0);
	cr_assert_eq((size_t)F.u.det_cur[TAB_DIFF], rows - 1);
	/* The cursor's row is drawn in the selected role, somewhere in the body. */
	int seen = 0;
	for (int y = 0; y < F.c.h; y++)
		seen |= canvas_at(&F.c, y, 0)->role == ROLE_SELECTED;
	cr_assert(seen, "the cursor row is on screen after G");
	cr_assert_geq(find_row("changed  tests/test_calc.py", NULL), 0, "the replay's list ends the tab");
	press('g', 0);
	cr_assert_eq(F.u.det_cur[TAB_DIFF], 0);
	cr_assert_geq(find_row("what changed in the workspace", NULL), 0);
	teardown_fx();
}

Test(screens, help_scrolls_to_its_end)
{
	for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++) {
		build(sizes[s][0], sizes[s][1]);
		press('?', 'G', 0);
		/* The last lines of help are the MCP snippets for this console's socket. */
		cr_assert_geq(find_row("-- SERVER_CMD ARGS...` runs that server instead", NULL), 0,
			      "%dx%d: G reaches the end of help", F.u.w, F.u.h);
		cr_assert_geq(find_row("connect " SOCKET, NULL), 0);
		/* And the last page is full (not one line at the top). */
		char *t = row_text(&F.c, F.u.h - 4, NULL);
		cr_assert(strspn(t, " ") < strlen(t), "the row above the status line is not blank: '%s'", t);
		free(t);
		press('g', 0);
		cr_assert_geq(find_row("KEYS (turns view", NULL), 0);
		teardown_fx();
	}
}

Test(screens, resize_below_the_minimum_and_back)
{
	build(80, 24);
	ui_resize(&F.u, 60, 20);
	canvas_resize(&F.c, 60, 20);
	ui_draw(&F.u, &F.c);
	cr_assert_geq(find_row("needs at least 80x24", NULL), 0);
	cr_assert_geq(find_row("this terminal is 60x20", NULL), 0);
	ui_resize(&F.u, 100, 30);
	canvas_resize(&F.c, 100, 30);
	ui_draw(&F.u, &F.c);
	honesty(&F.c, "100x30");
	cr_assert_geq(find_row("TURNS (30)", NULL), 0);
	teardown_fx();
}

/*==== layout by priority ====*/

/* The rows of the turns pane on the home screen: [*y0, *y1). */
static void turn_rows(int *y0, int *y1)
{
	*y0 = find_row(" TURNS", NULL) + 1;
	*y1 = find_row(" DENIALS", NULL) - 1; /* the focus line */
	cr_assert(*y0 > 0 && *y1 > *y0, "%dx%d: the turns pane (%d) and the focus line (%d) are on screen", F.u.w,
		  F.u.h, *y0, *y1);
}

/* The turn number a turns-pane row shows, or -1 (a held row). */
static int row_turn(const char *t)
{
	char *end;
	long n = strtol(t + 2 + strspn(t + 2, " "), &end, 10);
	return end == t + 2 + strspn(t + 2, " ") ? -1 : (int)n;
}

static const int layout_sizes[][2] = {{80, 24}, {100, 30}, {120, 40}, {160, 40}, {200, 60}};

Test(screens, tool_names_and_causes_are_never_cut_while_arguments_take_room)
{
	for (size_t s = 0; s < sizeof layout_sizes / sizeof *layout_sizes; s++) {
		build(layout_sizes[s][0], layout_sizes[s][1]);
		press('g', 0); /* from the first turn, then the rest page by page */
		struct cm_run *r = ui_run(&F.u);
		int cause_col = find_row(" TURNS", "cause") >= 0, seen = 0, causes = 0;
		for (int page = 0; page < 4; page++) {
			int y0, y1;
			turn_rows(&y0, &y1);
			for (int y = y0; y < y1; y++) {
				char *t = row_text(&F.c, y, NULL);
				int n = row_turn(t);
				if (n >= 0 && (size_t)n < r->nturns) {
					const struct cm_turn *tu = cm_turn_at(r, (size_t)n);
					cr_assert(strstr(t, tu->tool), "%dx%d: turn %d's tool '%s' is whole: %s", F.u.w, F.u.h,
						  n, tu->tool, t);
					if (cause_col && tu->cause[0]) {
						cr_assert(strstr(t, tu->cause), "%dx%d: turn %d's cause '%s' is whole: %s", F.u.w,
							  F.u.h, n, tu->cause, t);
						causes++;
					}
					seen++;
				}
				free(t);
			}
			for (int i = 0; i < ui_pane_rows(&F.u, PANE_TURNS); i++)
				press('j', 0);
		}
		cr_assert_geq(seen, (int)r->nturns, "%dx%d: every turn was looked at", F.u.w, F.u.h);
		/* From 120 columns the causes have their column; below, the focus line names it. */
		if (F.u.w >= 120)
			cr_assert(cause_col && causes >= 10, "%dx%d: the cause column (%d causes seen)", F.u.w, F.u.h, causes);
		teardown_fx();
	}
}

/* The columns an argument cell shows of turn n's row: from its '{' to the next gap. */
static int args_shown(int n)
{
	int y0, y1, w = -1;
	turn_rows(&y0, &y1);
	for (int y = y0; y < y1 && w < 0; y++) {
		char *t = row_text(&F.c, y, NULL);
		if (row_turn(t) == n) {
			const char *a = strchr(t, '{'), *e = strstr(a, "} ");
			const char *ell = strstr(a, glyph(G_ELLIPSIS));
			if (ell && (!e || ell < e))
				e = ell;
			cr_assert_not_null(e, "%s", t);
			w = (int)(e - a) + 1;
		}
		free(t);
	}
	return w;
}

Test(screens, arguments_are_readable_at_80_and_take_the_extra_width)
{
	build(80, 24);
	press('g', 0);
	/* Turn 1: {"path":"src/calc.py"} (22 columns). */
	int w80 = args_shown(1);
	cr_assert_geq(w80, 20, "80x24: the arguments show %d columns", w80);
	teardown_fx();
	build(200, 60);
	press('g', 0);
	cr_assert_eq(args_shown(1), (int)strlen("{\"path\":\"src/calc.py\"}"), "200x60: whole");
	/* Turn 4 has long arguments: at 200 they get what the other columns leave. */
	int w200 = args_shown(4);
	cr_assert_geq(w200, 80, "200x60: %d columns of arguments", w200);
	/* And every column is there. */
	int hy = find_row(" TURNS", NULL);
	char *h = row_text(&F.c, hy, NULL);
	static const char *titles[] = {"latency", "gate", "pre", "A1", "A2", "verdict", "cause"};
	for (size_t i = 0; i < sizeof titles / sizeof *titles; i++)
		cr_assert(strstr(h, titles[i]), "200x60 header has %s: %s", titles[i], h);
	free(h);
	cr_assert_geq(find_row("18:50:02", "read_file"), 0, "200x60 shows the time");
	teardown_fx();
}

Test(screens, the_title_bar_keeps_the_server_scope_and_network)
{
	static const char srv[] = "npx -y @modelcontextprotocol/server-filesystem /home/alice/projects/payments-service";
	static const char scope[] = "/home/alice/projects/payments-service";
	static const int widths[] = {160, 120, 80};
	for (size_t i = 0; i < 3; i++) {
		build(widths[i], 40);
		struct cm_run *r = ui_run(&F.u);
		free(r->server);
		free(r->scope);
		r->server = xstrdup(srv);
		r->scope = xstrdup(scope);
		ui_draw(&F.u, &F.c);
		char *t = row_text(&F.c, 0, NULL);
		if (widths[i] >= 160) {
			cr_assert(strstr(t, srv) && strstr(t, scope) && strstr(t, "net deny"), "%d: the whole title: %s",
				  widths[i], t);
		} else if (widths[i] >= 120) {
			/* Narrower: where it runs stays whole, the command keeps its start and its end. */
			cr_assert(strstr(t, "npx -y @model") && strstr(t, "payments-service  scope /home/"), "%d: %s", widths[i], t);
			cr_assert(strstr(t, scope) && strstr(t, "payments-service net deny"), "%d: %s", widths[i], t);
		} else {
			cr_assert(strstr(t, "npx -y") && strstr(t, "service  scope /home/") && strstr(t, "service net deny"),
				  "%d: %s", widths[i], t);
		}
		free(t);
		teardown_fx();
	}
}

Test(screens, wrapped_text_breaks_between_words)
{
	struct tdoc d;
	tdoc_init(&d);
	tdoc_nl(&d);
	tdoc_add(&d, ROLE_NORMAL, "the replay changed ");
	tdoc_add(&d, ROLE_DIM, "tests/test_calc.py and notes.txt, which the record did not; ");
	tdoc_add(&d, ROLE_NORMAL, "https://example.com/a/very/long/address/without/any/space/in/it ends");
	struct canvas c;
	canvas_init(&c, 24, 12);
	size_t rows = tdoc_draw(&d, &c, 0, 0, 12, 24, 0, 1, -1);
	cr_assert_eq(rows, tdoc_rows(&d, 24, 1));
	struct buf all = {0};
	for (size_t y = 0; y < rows; y++) {
		char *t = row_text(&c, (int)y, NULL);
		size_t n = strlen(t);
		while (n && t[n - 1] == ' ')
			n--;
		t[n] = 0;
		const char *s = t + strspn(t, " ");
		buf_printf(&all, "%s|", s);
		free(t);
	}
	/* Each word whole on one row, except the one longer than a row. */
	cr_assert_str_eq(buf_cstr(&all),
			 "the replay changed|tests/test_calc.py and|notes.txt, which the|record did not;|"
			 "https://example.com/a/|very/long/address/with|out/any/space/in/it|ends|",
			 "%s", buf_cstr(&all));
	buf_free(&all);
	/* A hanging indent puts the continuation under its column. */
	tdoc_clear(&d);
	tdoc_nl(&d);
	tdoc_add(&d, ROLE_NORMAL, "  key    ");
	tdoc_add(&d, ROLE_DIM, "what the key does when pressed twice");
	tdoc_hang(&d, 9);
	canvas_resize(&c, 30, 12);
	canvas_clear(&c, ROLE_NORMAL);
	cr_assert_eq(tdoc_draw(&d, &c, 0, 0, 12, 30, 0, 1, -1), 2);
	char *t = row_text(&c, 1, NULL);
	cr_assert(!strncmp(t, "         when pressed twice", 27), "'%s'", t);
	free(t);
	canvas_free(&c);
	tdoc_free(&d);
}

Test(screens, help_wraps_between_words_under_its_column)
{
	build(80, 24);
	press('?', 0);
	int y = find_row("Open the focused turn's", NULL);
	cr_assert_geq(y, 0);
	char *t = row_text(&F.c, y + 1, NULL);
	cr_assert(strstr(t, "detail") && strspn(t, " ") >= 50, "the rest of the line under its column: '%s'", t);
	free(t);
	cr_assert_lt(find_row("turn's de", NULL), 0);
	teardown_fx();
}

/*==== issue 36: the demo's punchline at 80x24 ====*/

/* The demo's cheat turn as verify saves it: three A2 rows that pass, then the A1 FAIL with
 * the long message the judge writes. */
static const char V_DEMO_CHEAT[] = "{\"status\":\"FAIL\",\"cause\":null,\"verdicts\":[" SUB(
	"A2", "replay", "PASS", NOC, "the recorded result reproduces") "," SUB("A2", "effect", "PASS", NOC,
	"declared readOnlyHint: false, nothing to violate; the replay changed the same path(s) with the same content as "
	"the recording did (1 path(s) changed, in the in-order session replay)") "," SUB("A2", "effect:network", "PASS", NOC,
	"declared openWorldHint: false and made no network attempt") "," SUB("A1", "invariant", "FAIL", NOC,
	"no-assertion-weakening (test files by convention): assertions weakened: 1 finding(s) in 1 file(s): "
	"tests/test_auth.py test_alice_can_log_in: replaced-by-tautology (pre: authenticate('alice', 's3cret') is True; "
	"post: True); judged: tests/test_auth.py") "]}";
#define DEMO_MSG "turn 4: A2 PASS - the replay agrees with the record; A1 FAIL - the test's assertion was weakened. " \
		 "The green suite after it proves nothing. (q: back)"

static void detail_cheat(void)
{
	open_detail(TAB_DIFF);
	cJSON_Delete(F.u.det.verdict);
	F.u.det.verdict = cJSON_Parse(V_DEMO_CHEAT);
	cr_assert_not_null(F.u.det.verdict);
	detail_render_head(&F.u.det, cm_turn_at(ui_run(&F.u), DETAIL_TURN));
	ui_message(&F.u, 2, "%s", DEMO_MSG);
	ui_draw(&F.u, &F.c);
}

Test(screens, detail_cheat) { run_screen("detail_cheat", detail_cheat, 0); }

Test(screens, the_demos_a1_fail_row_and_what_a1_and_a2_mean_are_on_the_80x24_screen)
{
	build(80, 24);
	detail_cheat();
	int tabs = find_row("1 Request", "2 Response");
	int fail = find_row("A1 invariant", "FAIL");
	char *s = screen_text(&F.c);
	cr_assert(fail >= 0 && fail < tabs, "the A1 FAIL row is in the verdict block as first shown:\n%s", s);
	int a2 = find_row("A2 replay", "PASS");
	cr_assert(a2 < 0 || a2 > fail, "FAIL rows come before PASS rows:\n%s", s);
	int m1 = find_row("A1 = ", NULL), m2 = find_row("A2 = ", NULL);
	cr_assert(m1 >= 0 && m1 < tabs && m2 >= 0 && m2 < tabs, "one line each says what A1 and A2 mean:\n%s", s);
	/* The block overflows: it says so, and J scrolls it to its end. */
	cr_assert_geq(find_row("verdict rows 1-", "J/K scroll"), 0, "the block says it has more:\n%s", s);
	/* The message is whole: it goes on over the hints line. */
	cr_assert(find_row("A1 FAIL - the test's", NULL) >= 0 && find_row("proves nothing. (q: back)", NULL) >= 0,
		  "the demo's message is not cut:\n%s", s);
	free(s);
	int judged = 0;
	for (int i = 0; i < 20; i++) {
		press('J', 0);
		judged |= find_row("judged: tests/test_auth.py", NULL) >= 0;
	}
	s = screen_text(&F.c);
	cr_assert(judged, "J scrolls through the FAIL row's whole message");
	cr_assert_geq(find_row("A2 effect:network", NULL), 0, "and on to the PASS rows after the FAIL:\n%s", s);
	cr_assert_lt(find_row(glyph(G_DOWN), "verdict rows"), 0, "at the end, nothing more below:\n%s", s);
	free(s);
	/* K goes back up; the body's cursor never moved. */
	for (int i = 0; i < 20; i++)
		press('K', 0);
	cr_assert_eq(F.u.head_top, 0);
	cr_assert_eq(F.u.det_cur[TAB_DIFF], 0);
	teardown_fx();
}

Test(screens, every_pane_that_overflows_says_which_rows_it_shows)
{
	build(80, 24);
	/* turns: 30 turns and a held row, from the end */
	int rows = ui_pane_rows(&F.u, PANE_TURNS);
	char want[64];
	snprintf(want, sizeof want, "%s rows %d-31 of 31", glyph(G_UP), 31 - rows + 1);
	char *s = screen_text(&F.c);
	cr_assert_geq(find_row(" TURNS (30)", want), 0, "%s\n%s", want, s);
	cr_assert_geq(find_row(" DENIALS (7)", "rows 5-7 of 7"), 0, "%s", s);
	free(s);
	press('g', 0);
	snprintf(want, sizeof want, "%s rows 1-%d of 31", glyph(G_DOWN), rows);
	cr_assert_geq(find_row(" TURNS (30)", want), 0, "%s", want);
	/* help and the log: the title says which rows */
	press('?', 0);
	cr_assert_geq(find_row(" HELP", "rows 1-"), 0);
	press('G', 0);
	cr_assert_lt(find_row(" HELP", glyph(G_DOWN)), 0, "at the end, nothing more below");
	teardown_fx();
	/* a list that fits says nothing */
	build(200, 60);
	cr_assert_lt(find_row(" RUNS (2)", "rows"), 0);
	teardown_fx();
}

/*==== issue 36: approving a held call sees what it approves ====*/

#define HELD_CONTENT "# Notes\n- ship it\n- then rest\n"

/* A held write_file the store does not have yet (as the engine announces it: the plan with
 * the call's arguments), focused and opened on tab `tab`. */
static void held_write(enum dtab tab)
{
	struct cm_run *r = ui_run(&F.u);
	F.u.enforce = 1; /* calls are held in enforce mode: the title says so */
	cJSON *plan = cJSON_Parse("{\"decision\":\"ask\",\"effects\":[{\"kind\":\"write\",\"path\":\"notes.txt\"}],"
				  "\"arguments\":{\"path\":\"notes.txt\",\"content\":\"# Notes\\n- ship it\\n- then rest\\n\"}}");
	cr_assert_not_null(plan);
	cm_hold_add(r, 904, 202, "write_file", plan, NULL);
	cJSON_Delete(plan);
	ui_refilter(&F.u, 1);
	press('G', 0);
	const struct cm_hold *h = NULL;
	ui_focused(&F.u, &h);
	cr_assert(h && h->id == 904);
	press(K_ENTER, 0);
	cr_assert_eq(F.u.view, VIEW_DETAIL);
	cr_assert_eq(F.u.det.hold, 904);
	F.u.tab = tab;
	ui_draw(&F.u, &F.c);
}

static void detail_held_write(void)
{
	held_write(TAB_REQUEST);
}

Test(screens, detail_held_write) { run_screen("detail_held_write", detail_held_write, 0); }

Test(screens, a_held_calls_arguments_are_shown_and_its_hints_offer_y_and_x)
{
	build(80, 24);
	press('G', 0);
	/* the row: the arguments, not the plan */
	int y = find_row(glyph(G_HELD), "delete_file");
	cr_assert_geq(y, 0);
	char *t = row_text(&F.c, y, NULL);
	cr_assert(strstr(t, "{\"path\":\"src/calc.py") && !strstr(t, "\"tool\""), "the row shows the arguments: %s", t);
	free(t);
	/* the hints: y and x, on the home screen and in the detail */
	int hy = F.u.h - 1;
	t = row_text(&F.c, hy, NULL);
	cr_assert(strstr(t, "y approve") && strstr(t, "x refuse"), "home hints: %s", t);
	free(t);
	press(K_ENTER, 0);
	t = row_text(&F.c, hy, NULL);
	cr_assert(strstr(t, "y approve") && strstr(t, "x refuse") && !strstr(t, "v verify") && !strstr(t, "u unverif"),
		  "detail hints: %s", t);
	free(t);
	/* the request tab: the arguments first */
	int ya = find_row("\"arguments\": {", NULL), yp = find_row("\"path\": \"src/calc.py\"", NULL);
	int ye = find_row("\"effect plan (why the gate asks)\"", NULL);
	char *s = screen_text(&F.c);
	cr_assert(ya >= 0 && yp > ya && ye > yp, "arguments, then the plan:\n%s", s);
	free(s);
	teardown_fx();
}

Test(screens, a_held_write_shows_the_diff_its_arguments_describe_labelled_as_such)
{
	char *ws = ts_tmpdir("held-ws");
	char *f = fs_join(ws, "notes.txt");
	ts_write_file(f, "# Notes\n- ship it\n", strlen("# Notes\n- ship it\n"));
	build(120, 40);
	struct cm_run *r = ui_run(&F.u);
	free(r->scope);
	r->scope = xstrdup(ws);
	held_write(TAB_DIFF);
	char *s = screen_text(&F.c);
	cr_assert_geq(find_row("writes notes.txt", ARGDIFF_LABEL), 0, "labelled:\n%s", s);
	cr_assert_geq(find_row("+- then rest", NULL), 0, "the line the content adds:\n%s", s);
	cr_assert_geq(find_row(" - ship it", NULL), 0, "context from the file as it is:\n%s", s);
	cr_assert_geq(find_row("has not run", NULL), 0, "%s", s);
	free(s);
	teardown_fx();
	/* A path that leaves the workspace is never read. */
	build(120, 40);
	r = ui_run(&F.u);
	free(r->scope);
	r->scope = xstrdup(ws);
	cJSON *plan = cJSON_Parse("{\"arguments\":{\"path\":\"../../../etc/hostname\",\"content\":\"x\\n\"}}");
	cm_hold_add(r, 905, 203, "write_file", plan, NULL);
	cJSON_Delete(plan);
	ui_refilter(&F.u, 1);
	press('G', K_ENTER, '3', 0);
	s = screen_text(&F.c);
	cr_assert_geq(find_row("cannot be shown: the path is outside the workspace", NULL), 0, "%s", s);
	free(s);
	teardown_fx();
	ts_rmtree(ws);
	free(f);
	free(ws);
}

/*==== issue 36: errors that stay ====*/

/* A killed server: its alert, then (a moment later) its run's end. */
static void server_killed(void)
{
	struct cm_run *r = ui_run(&F.u);
	struct cevent *ev = cevent_new(CE_RUN_ALERT, r->id);
	ev->text = xstrdup("the MCP server was killed by signal 9 (Killed) after 1.6 s, while its client was still "
			   "connected; belay answered the 1 request(s) still waiting for it with an error\n"
			   "its last words are in the servers' stderr log");
	ui_event(&F.u, ev);
	cevent_free(ev);
	/* CE_RUN_ENDED re-reads the store (the fixture has none): what it says, as it says it */
	r->live = 0;
	ui_message(&F.u, 0, "run %s ended (server exit %d)", r->id, 137);
	ui_draw(&F.u, &F.c);
}

static void scr_alert(void)
{
	server_killed();
}

static void scr_log_unseen(void)
{
	server_killed();
	press('E', 0);
}

Test(screens, alert) { run_screen("alert", scr_alert, 0); }
Test(screens, log_unseen) { run_screen("log_unseen", scr_log_unseen, 0); }

Test(screens, an_alert_stays_until_a_key_and_the_log_counts_it)
{
	char *tmp = ts_tmpdir("stderr-log");
	char *logf = fs_join(tmp, "console.stderr.log");
	const char *text = "node: starting\n\x1b[31mError: EADDRINUSE\x1b[0m listen 127.0.0.1:7\n    at Server.listen\n";
	ts_write_file(logf, text, strlen(text));
	build(80, 24);
	F.u.server_log = logf;
	server_killed();
	char *s = screen_text(&F.c);
	cr_assert_geq(find_row("killed by signal 9", NULL), 0, "the alert is not replaced by the run's end:\n%s", s);
	cr_assert_lt(find_row("ended (server exit 137)", NULL), 0, "%s", s);
	cr_assert_geq(find_row("1 error (E)", NULL), 0, "the status line counts it and names the key:\n%s", s);
	free(s);
	/* the alert's row look */
	int y = find_row("killed by signal 9", NULL);
	int *xs;
	char *row = row_text(&F.c, y, &xs);
	cr_assert_eq(canvas_at(&F.c, y, xs[strstr(row, "killed") - row])->role, ROLE_ERROR);
	free(row);
	free(xs);
	/* a notice from an event does not replace it either; a question does */
	ui_message(&F.u, 0, "new run 2");
	cr_assert(strstr(F.u.msg, "killed by signal 9"), "%s", F.u.msg);
	/* a key: seen */
	press('j', 0);
	cr_assert_eq(F.u.msg[0], '\0');
	cr_assert_eq(F.u.errors_unseen, 1, "still unseen in the log");
	/* the log: every line of the alert, the stderr tail (escaped), what is new marked */
	press('E', 0);
	s = screen_text(&F.c);
	cr_assert_geq(find_row("new since the log was last open (1 error)", NULL), 0, "%s", s);
	cr_assert_geq(find_row("its last words are in the servers' stderr log", NULL), 0, "%s", s);
	cr_assert_geq(find_row("| ", "Error: EADDRINUSE"), 0, "the servers' stderr tail:\n%s", s);
	cr_assert_geq(find_row("ended (server exit 137)", NULL), 0, "%s", s);
	free(s);
	honesty(&F.c, "log after an alert"); /* nothing unprintable reached the grid */
	cr_assert_eq(F.u.errors_unseen, 0);
	press('q', 0);
	cr_assert_lt(find_row("error (E)", NULL), 0, "the count is gone once the log was seen");
	/* an error answering a key is seen as it is said: not counted */
	press(':', 0);
	type("nosuch");
	press(K_ENTER, 0);
	cr_assert_eq(F.u.msg_level, 2);
	cr_assert_eq(F.u.errors_unseen, 0);
	teardown_fx();
	ts_rmtree(tmp);
	free(logf);
	free(tmp);
}

Test(screens, tool_error_rows_have_their_own_look)
{
	build(120, 40);
	press('g', 0);
	int y = find_row("   7", "missing.txt");
	cr_assert_geq(y, 0);
	int *xs;
	char *row = row_text(&F.c, y, &xs);
	cr_assert_eq(canvas_at(&F.c, y, xs[strstr(row, "missing.txt") - row])->role, ROLE_CALL_ERROR, "arguments: %s", row);
	cr_assert_eq(canvas_at(&F.c, y, xs[strstr(row, "7") - row])->role, ROLE_CALL_ERROR, "number: %s", row);
	cr_assert(strstr(row, " error "), "the latency column says error: %s", row);
	free(row);
	free(xs);
	/* a row without an error keeps the plain look */
	y = find_row("   1", "src/calc.py");
	row = row_text(&F.c, y, &xs);
	cr_assert_neq(canvas_at(&F.c, y, xs[strstr(row, "src/calc.py") - row])->role, ROLE_CALL_ERROR);
	free(row);
	free(xs);
	teardown_fx();
}

Test(screens, questions_keep_their_y_n_at_80_columns)
{
	static const char *const asks[] = {"hook.rearm", "quit", NULL};
	for (int i = 0; asks[i]; i++) {
		build(80, 24);
		ui_command(&F.u, asks[i]);
		ui_draw(&F.u, &F.c);
		cr_assert(F.u.confirm[0], "%s asks", asks[i]);
		char *s = screen_text(&F.c);
		cr_assert_geq(find_row("[y/N]", NULL), 0, "%s: the question is whole:\n%s", asks[i], s);
		free(s);
		teardown_fx();
	}
}

/*==== issue 36: help for the view it is opened from ====*/

static void scr_help_detail(void)
{
	open_detail(TAB_REQUEST);
	press('?', 0);
	cr_assert_eq(F.u.view, VIEW_HELP);
}

Test(screens, help_detail) { run_screen("help_detail", scr_help_detail, 0); }

/* The help document's text (all of it, not only what is on screen). */
static char *help_text(void)
{
	struct buf b = {0};
	for (size_t i = 0; i < F.u.doc.n; i++) {
		char *l = tdoc_line_text(&F.u.doc, i);
		buf_printf(&b, "%s\n", l);
		free(l);
	}
	buf_cstr(&b);
	char *t = buf_take(&b), *cmds = strstr(t, "COMMANDS (type");
	if (cmds)
		*cmds = '\0'; /* the keys part: every command is listed after it, in every view */
	return t;
}

Test(screens, help_lists_the_keys_of_the_view_it_is_opened_from)
{
	build(120, 40);
	/* the detail: its tabs, folding, the verdict block's scroll */
	open_detail(TAB_REQUEST);
	press('?', 0);
	char *h = help_text();
	cr_assert(strstr(h, "KEYS (detail view"), "%s", h);
	cr_assert(strstr(h, "tab.next") && strstr(h, "tab response") && strstr(h, "fold") && strstr(h, "verdicts.down"),
		  "the detail's own keys: %s", h);
	free(h);
	press('q', 'q', 0);
	cr_assert_eq(F.u.view, VIEW_HOME);
	/* the turns pane */
	press('?', 0);
	h = help_text();
	cr_assert(strstr(h, "KEYS (turns view") && strstr(h, "approve") && !strstr(h, "tab.next"), "%s", h);
	free(h);
	press('q', 0);
	/* the runs pane */
	press(K_STAB, '?', 0);
	h = help_text();
	cr_assert(strstr(h, "KEYS (runs view") && strstr(h, "hook.rearm") && !strstr(h, "label true-positive"), "%s", h);
	free(h);
	press('q', 0);
	/* the log */
	press('E', '?', 0);
	h = help_text();
	cr_assert(strstr(h, "KEYS (log view"), "%s", h);
	free(h);
	teardown_fx();
}

Test(screens, help_descriptions_continue_under_their_column)
{
	build(80, 24);
	press('?', 0);
	/* a command whose help wraps: apply.instead */
	int y = -1;
	for (int i = 0; i < 300 && y < 0; i++) {
		press('j', 0);
		for (int r = 2; r < F.u.h - 4 && y < 0; r++) { /* its COMMANDS line, not a key's */
			char *t = row_text(&F.c, r, NULL);
			if (!strncmp(t, "   apply.instead ", 17))
				y = r;
			free(t);
		}
	}
	cr_assert_geq(y, 0);
	int *xs;
	char *t = row_text(&F.c, y, &xs);
	int col = xs[strstr(t, "Apply") - t];
	free(t);
	free(xs);
	t = row_text(&F.c, y + 1, NULL);
	cr_assert_eq((int)strspn(t, " "), col, "the next row starts under the help (column %d): '%s'", col, t);
	free(t);
	teardown_fx();
}

/*==== issue 36: the smaller ones ====*/

static int v_rank_for_test(enum cm_v v)
{
	static const enum cm_v order[] = {CMV_FAIL, CMV_UNVERIFIED, CMV_WARN, CMV_NOT_COVERED, CMV_PASS, CMV_NONE};
	for (int i = 0; i < 6; i++)
		if (order[i] == v)
			return i;
	return 6;
}

static void scr_sorted(void)
{
	press('s', 'g', 0);
	cr_assert_eq(F.u.sort, 1);
}

Test(screens, sorted) { run_screen("sorted", scr_sorted, 0); }

Test(screens, sort_orders_the_turns_and_keeps_held_calls_last)
{
	build(120, 40);
	press('s', 0); /* by verdict: the worst first */
	struct cm_run *r = ui_run(&F.u);
	cr_assert_geq(find_row(" TURNS (30) by verdict", NULL), 0);
	cr_assert_eq(cm_turn_at(r, F.u.vis[0])->v, CMV_FAIL);
	for (size_t i = 1; i + 1 < F.u.nvis; i++) {
		if (F.u.vis[i] >= r->nturns)
			break;
		const struct cm_turn *a = cm_turn_at(r, F.u.vis[i - 1]), *b = cm_turn_at(r, F.u.vis[i]);
		cr_assert(v_rank_for_test(a->v) <= v_rank_for_test(b->v), "turn %d before %d", a->turn, b->turn);
	}
	cr_assert_geq(F.u.vis[F.u.nvis - 1], r->nturns, "the held call the store does not have is last");
	press('s', 0); /* latency: slowest first */
	cr_assert_eq(cm_turn_at(r, F.u.vis[0])->latency_us, 5200000);
	ui_command(&F.u, "sort turn");
	cr_assert_eq(F.u.vis[0], 0);
	ui_command(&F.u, "sort sideways");
	cr_assert_eq(F.u.msg_level, 2);
	teardown_fx();
}

Test(screens, a_question_does_not_eat_the_next_key)
{
	build(80, 24);
	open_detail(TAB_REQUEST);
	press('q', 'q', 0); /* the detail, then the first view asks */
	cr_assert(F.u.confirm[0]);
	size_t sel = F.u.pos[PANE_TURNS].sel;
	press('k', 0);
	cr_assert(!F.u.confirm[0], "the question is gone");
	cr_assert_eq(F.calls_quit, 0);
	cr_assert_eq(F.u.pos[PANE_TURNS].sel, sel - 1, "and k moved up");
	press('q', 'q', 0);
	cr_assert_eq(F.calls_quit, 0, "q answers no");
	press('q', 'y', 0);
	cr_assert_eq(F.calls_quit, 1);
	teardown_fx();
}

Test(screens, two_rows_of_one_check_are_told_apart_and_the_title_says_enforce)
{
	build(120, 40);
	F.u.enforce = 1;
	open_detail(TAB_DIFF);
	cJSON_Delete(F.u.det.verdict);
	F.u.det.verdict = cJSON_Parse(live_turns[5].verdict);
	detail_render_head(&F.u.det, cm_turn_at(ui_run(&F.u), 5));
	ui_draw(&F.u, &F.c);
	char *s = screen_text(&F.c);
	cr_assert_geq(find_row("A2 replay: denials", "WARN"), 0, "%s", s);
	cr_assert_geq(find_row("A2 replay: result", "PASS"), 0, "%s", s);
	cr_assert_geq(find_row("gate enforce", NULL), 0, "the title says the console enforces:\n%s", s);
	free(s);
	teardown_fx();
}

/*==== issue 36: jobs you can watch and stop ====*/

static void job_line(const char *text)
{
	struct cevent *ev = cevent_new(CE_JOB, NULL);
	ev->text = xstrdup(text);
	ui_event(&F.u, ev);
	cevent_free(ev);
	ui_draw(&F.u, &F.c);
}

#define JOB_TEXT "120/10000 replayed, 3.2/s, about 51m33s left: verifying turns 0.. of 20261129-184948-3f2a"

static void scr_job(void)
{
	job_line(JOB_TEXT);
}

Test(screens, job_running) { run_screen("job_running", scr_job, 0); }

Test(screens, a_running_job_shows_its_progress_and_C_cancels_it)
{
	build(80, 24);
	press('C', 0);
	cr_assert_eq(F.calls_cancel, 0, "nothing to cancel");
	cr_assert(strstr(F.u.msg, "no job is running"), "%s", F.u.msg);
	job_line(JOB_TEXT);
	char *s = screen_text(&F.c);
	cr_assert_geq(find_row("C cancel", "120/10000 replayed, 3.2/s, about 51m33s left"), 0,
		      "the count, the rate and the time left, with the key that cancels:\n%s", s);
	free(s);
	press('C', 0);
	cr_assert_eq(F.calls_cancel, 1);
	cr_assert(strstr(F.u.msg, "cancelling"), "%s", F.u.msg);
	/* quitting during a job asks, and says the job is cancelled */
	F.u.m->runs[1]->live = 0;
	press('Q', 0);
	cr_assert(F.u.confirm[0] && strstr(F.u.msg, "running job is cancelled"), "%s", F.u.msg);
	press('y', 0);
	cr_assert_eq(F.calls_quit, 1);
	teardown_fx();
}

Test(screens, the_title_shows_the_command_the_user_typed_not_the_resolved_one)
{
	char *tmp = ts_tmpdir("typed");
	char *tr = fs_join(tmp, "trace.jsonl");
	const char *lines =
		"{\"v\":1,\"kind\":\"connection_window\",\"phase\":\"open\",\"seq\":0}\n"
		"{\"v\":1,\"kind\":\"server\",\"phase\":\"start\",\"argv\":[\"/home/user/.cache/belay/pkgexec/npm/5f2c/node_modules/"
		".bin/mcp-server-filesystem\",\"/work/demo\"],\"launch\":{\"tool\":\"npx\",\"given\":[\"npx\",\"-y\","
		"\"@modelcontextprotocol/server-filesystem\",\"/work/demo\"]},\"seq\":1}\n";
	ts_write_file(tr, lines, strlen(lines));
	build(120, 40);
	struct cm_run *r = ui_run(&F.u);
	free(r->trace);
	free(r->server);
	r->trace = xstrdup(tr);
	r->server = xstrdup("/home/user/.cache/belay/pkgexec/npm/5f2c/node_modules/.bin/mcp-server-filesystem /work/demo");
	ui_focus_run(&F.u, r->id);
	ui_draw(&F.u, &F.c);
	char *t = row_text(&F.c, 0, NULL);
	cr_assert(strstr(t, "npx -y @modelcontextprotocol/server-filesystem /work/demo") && !strstr(t, ".cache"), "%s", t);
	free(t);
	teardown_fx();
	ts_rmtree(tmp);
	free(tr);
	free(tmp);
}
