/* test_console_search.c - search inside what the console shows (tui/search.c, ui_search.c,
 * tdoc_draw_marked): plain and regular-expression matching with smart case, the count
 * ("3/11"), n/N wrapping, matches highlighted in their own role (the current one apart),
 * the view scrolled to the match, folded JSON holding a match opened, a bad regular
 * expression refused by name with the search before it kept, the log searched too, JSON
 * inside a string shown parsed (p) and as sent again; the mouse in the detail (mouse.c:
 * wheel, click on a row or a tab, double click folds); and the golden screens of a search with matches, with none, and with a bad expression, at 80x24,
 * 120x40 and 200x60 (tests/golden/screens/search_*.screen). */
#include <criterion/criterion.h>
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf.h"
#include "common/xalloc.h"
#include "ts_screen.h"
#include "tui/canvas.h"
#include "tui/glyphs.h"
#include "tui/jsonview.h"
#include "tui/keymap.h"
#include "tui/mouse.h"
#include "tui/search.h"
#include "tui/tdoc.h"
#include "tui/ui.h"
#include "tui/ui_internal.h"


static void setup(void)
{
	cr_assert_not_null(setlocale(LC_ALL, "C.UTF-8"));
	setenv("TZ", "UTC", 1);
	setenv("XDG_CONFIG_HOME", "/nonexistent/belay-test-config", 1);
	setenv("HOME", "/nonexistent/belay-test-home", 1);
	glyphs_set_ascii(0);
}

TestSuite(search, .init = setup);

/*==== search.c on a document ====*/

static void doc_of(struct tdoc *d, const char *const *lines)
{
	tdoc_init(d);
	for (; *lines; lines++) {
		tdoc_nl(d);
		/* two spans, so a match can cross a span boundary */
		size_t half = strlen(*lines) / 2;
		tdoc_addn(d, ROLE_NORMAL, *lines, half);
		tdoc_add(d, ROLE_DIM, *lines + half);
	}
}

static const char *const TEXT[] = {"alpha beta", "Beta gamma beta", "delta", "gamma BETA", NULL};

Test(search, plain_text_smart_case_and_spans)
{
	struct tdoc d;
	doc_of(&d, TEXT);
	struct search s;
	search_init(&s);
	cr_assert_eq(search_set(&s, "beta", 0, NULL), 0);
	cr_assert_eq(search_sync(&s, &d), 4, "lower case matches either case: %zu", s.n);
	cr_assert_eq(s.m[1].line, 1);
	cr_assert_eq(s.m[1].off, 0);
	cr_assert_eq(s.m[2].off, 11);
	cr_assert_eq(s.m[2].len, 4);
	cr_assert_eq(search_set(&s, "Beta", 0, NULL), 0);
	cr_assert_eq(search_sync(&s, &d), 1, "an upper-case letter matches exactly");
	cr_assert_eq(search_set(&s, "a g", 0, NULL), 0); /* "Beta gamma" crosses the span boundary */
	cr_assert_eq(search_sync(&s, &d), 1);
	char cnt[32];
	search_count(&s, cnt, sizeof cnt);
	cr_assert_str_eq(cnt, "1/1");
	search_free(&s);
	tdoc_free(&d);
}

/* The matches of pat in d found line by line (the reference the flat text must agree with). */
static size_t by_lines(const struct tdoc *d, const char *pat, int icase, size_t *lines, size_t *offs, size_t cap)
{
	size_t n = 0, pl = strlen(pat);
	for (size_t i = 0; i < d->n; i++) {
		char *t = tdoc_line_text(d, i);
		for (char *c = t; icase && *c; c++)
			*c = (char)((*c >= 'A' && *c <= 'Z') ? *c + 32 : *c);
		for (char *p = t; (p = strstr(p, pat)); p += pl) {
			if (n < cap)
				lines[n] = i, offs[n] = (size_t)(p - t);
			n++;
		}
		free(t);
	}
	return n;
}

Test(search, the_flat_text_finds_what_each_line_holds_built_ahead_or_as_it_goes_and_anew_after_a_change)
{
	/* 30,000 lines (past the flat text's steps), two spans each, mixed case. */
	struct tdoc d;
	tdoc_init(&d);
	for (int i = 0; i < 30000; i++) {
		tdoc_nl(&d);
		tdoc_addf(&d, ROLE_NORMAL, "  \"id\": \"Item-%d\", ", i);
		tdoc_addf(&d, ROLE_DIM, "\"kindOf\": \"%s\"", i % 3 ? "blue" : "Red");
	}
	static size_t lw[120000], ow[120000];
	/* Typed on (each narrows to where the last matched), then anew; "kindO" turns exact. */
	const char *pats[] = {"i", "it", "item-2", "item-29", "red", "Red", "\", \"kind", "k", "kind", "kindO", "kindOf",
			      "item-2999"};
	for (int ahead = 0; ahead < 2; ahead++) {
		struct search s;
		search_init(&s);
		if (ahead) /* as the console does while idle */
			while (search_prepare(&s, &d, 4096))
				;
		for (size_t k = 0; k < sizeof pats / sizeof *pats; k++) {
			int icase = strpbrk(pats[k], "ABCDEFGHIJKLMNOPQRSTUVWXYZ") == NULL;
			size_t want = by_lines(&d, pats[k], icase, lw, ow, 120000);
			cr_assert_eq(search_set(&s, pats[k], 0, NULL), 0);
			cr_assert_eq(search_sync(&s, &d), want, "%s (ahead %d): %zu, line by line %zu", pats[k], ahead, s.n, want);
			for (size_t i = 0; i < s.n; i++)
				cr_assert(s.m[i].line == lw[i] && s.m[i].off == ow[i], "%s: match %zu at %zu:%zu, want %zu:%zu", pats[k],
					  i, s.m[i].line, s.m[i].off, lw[i], ow[i]);
		}
		/* A changed line: found at once (the flat text is built again). */
		tdoc_add(&d, ROLE_NORMAL, " item-29 again");
		search_set(&s, "item-29", 0, NULL);
		size_t want = by_lines(&d, "item-29", 1, lw, ow, 120000);
		cr_assert_eq(search_sync(&s, &d), want);
		cr_assert_eq(s.m[s.n - 1].line, d.n - 1, "the changed last line is matched");
		search_free(&s);
	}
	tdoc_free(&d);
}

Test(search, a_document_built_again_in_the_same_struct_is_searched_again)
{
	/* The detail's tabs are freed and built again in place for each turn: two documents of the
	 * same shape reach the same generation; the search must not take one for the other. */
	static const char *const A[] = {"alpha beta", "gamma", NULL}, *const B[] = {"delta beta", "beta!", NULL};
	struct tdoc d;
	doc_of(&d, A);
	struct search s;
	search_init(&s);
	search_set(&s, "beta", 0, NULL);
	cr_assert_eq(search_sync(&s, &d), 1);
	unsigned gen = d.gen;
	tdoc_free(&d);
	doc_of(&d, B);
	cr_assert_eq(d.gen, gen, "the same generation (what made the two alike)");
	cr_assert_eq(search_sync(&s, &d), 2, "the new document's matches: %zu", s.n);
	cr_assert_eq(s.m[1].line, 1);
	search_free(&s);
	tdoc_free(&d);
}

Test(search, regex_count_and_stepping_wrap)
{
	struct tdoc d;
	doc_of(&d, TEXT);
	struct search s;
	search_init(&s);
	cr_assert_eq(search_set(&s, "(be|gam)[a-z]+", 1, NULL), 0);
	cr_assert_eq(search_sync(&s, &d), 6);
	char cnt[32];
	cr_assert_eq(search_from_line(&s, 3), 0);
	search_count(&s, cnt, sizeof cnt);
	cr_assert_str_eq(cnt, "5/6", "the first match at or after line 3");
	cr_assert_eq(s.m[4].role, ROLE_MATCH_CUR);
	cr_assert_eq(search_step(&s, 1), 0);
	cr_assert_eq(search_step(&s, 1), 1, "past the last match: wrapped");
	search_count(&s, cnt, sizeof cnt);
	cr_assert_str_eq(cnt, "1/6");
	cr_assert_eq(s.m[0].role, ROLE_MATCH_CUR);
	cr_assert_eq(s.m[5].role, ROLE_MATCH, "only one match is current");
	cr_assert_eq(search_step(&s, -1), 1);
	search_count(&s, cnt, sizeof cnt);
	cr_assert_str_eq(cnt, "6/6");
	/* an expression that matches the empty string finds nothing, and ends */
	cr_assert_eq(search_set(&s, "x*", 1, NULL), 0);
	cr_assert_eq(search_sync(&s, &d), 0);
	search_free(&s);
	tdoc_free(&d);
}

Test(search, typing_on_looks_again_only_where_it_matched_and_finds_the_same)
{
	struct tdoc d;
	doc_of(&d, TEXT);
	struct search s, fresh;
	search_init(&s);
	search_init(&fresh);
	search_set(&s, "b", 0, NULL);
	cr_assert_eq(search_sync(&s, &d), 4);
	search_set(&s, "be", 0, NULL);
	cr_assert(s.cand_ok, "an extension of the last plain pattern narrows");
	cr_assert_eq(s.ncand, 3, "to the three lines b matched on");
	cr_assert_eq(search_sync(&s, &d), 4);
	search_set(&s, "beta g", 0, NULL);
	cr_assert_eq(search_sync(&s, &d), 1, "\"Beta gamma\", across two spans: %zu", s.n);
	cr_assert_eq(s.m[0].line, 1);
	/* the document changed meanwhile: everything is looked at again */
	search_set(&s, "beta", 0, NULL);
	search_sync(&s, &d);
	search_set(&s, "betaz", 0, NULL);
	tdoc_nl(&d);
	tdoc_add(&d, ROLE_NORMAL, "betaz at the end");
	cr_assert_eq(search_sync(&s, &d), 1, "the new line is found although no earlier line matched it");
	search_set(&fresh, "betaz", 0, NULL);
	cr_assert_eq(search_sync(&fresh, &d), 1);
	cr_assert_eq(s.m[0].line, fresh.m[0].line);
	search_free(&s);
	search_free(&fresh);
	tdoc_free(&d);
}

Test(search, a_bad_regular_expression_is_refused_by_name_and_the_search_before_stays)
{
	struct tdoc d;
	doc_of(&d, TEXT);
	struct search s;
	search_init(&s);
	cr_assert_eq(search_set(&s, "delta", 0, NULL), 0);
	struct err e = {0};
	cr_assert_neq(search_set(&s, "item-(3", 1, &e), 0);
	cr_assert(strstr(e.msg, "bad regular expression \"item-(3\""), "%s", e.msg);
	cr_assert(strstr(e.msg, "arenthes") || strstr(e.msg, "( or \\("), "regcomp's reason is named: %s", e.msg);
	cr_assert_str_eq(s.pat, "delta");
	cr_assert_eq(search_sync(&s, &d), 1);
	search_free(&s);
	tdoc_free(&d);
}

Test(search, matches_are_drawn_in_their_roles_also_on_the_cursor_row)
{
	struct tdoc d;
	doc_of(&d, TEXT);
	struct search s;
	search_init(&s);
	search_set(&s, "gamma", 0, NULL);
	search_sync(&s, &d);
	struct canvas c;
	canvas_init(&c, 20, 4);
	tdoc_draw_marked(&d, &c, 0, 0, 4, 20, 0, 1, 1, s.m, s.n);
	for (int x = 0; x < 20; x++) {
		const struct cell *k = canvas_at(&c, 1, x);
		enum role want = x >= 5 && x < 10 ? ROLE_MATCH_CUR : ROLE_SELECTED;
		cr_assert_eq(k->role, want, "row 1 (the cursor row) col %d: role %d", x, k->role);
	}
	for (int x = 0; x < 20; x++)
		cr_assert_eq(canvas_at(&c, 3, x)->role, x < 5 ? ROLE_MATCH : x < 10 ? ROLE_DIM : ROLE_NORMAL,
			     "row 3 col %d", x);
	/* the row of a match in a wrapped line */
	struct tdoc w;
	tdoc_init(&w);
	tdoc_add(&w, ROLE_NORMAL, "aaaa bbbb cccc dddd eeee ffff needle");
	struct canvas wc;
	canvas_init(&wc, 10, 8);
	tdoc_draw(&w, &wc, 0, 0, 8, 10, 0, 1, -1);
	int drawn_at = -1;
	for (int y = 0; y < 8; y++)
		for (int x = 0; x < 10; x++)
			if (canvas_at(&wc, y, x)->ch == 'n' && drawn_at < 0)
				drawn_at = y;
	cr_assert_gt(drawn_at, 2);
	cr_assert_eq(tdoc_row_of(&w, 10, 1, 0, 30), (size_t)drawn_at, "the row the wrapped line draws the match on");
	cr_assert_eq(tdoc_row_of(&w, 10, 1, 0, 2), 0);
	canvas_free(&wc);
	cr_assert_eq(tdoc_row_of(&d, 20, 1, 3, 0), 3);
	tdoc_free(&w);
	canvas_free(&c);
	search_free(&s);
	tdoc_free(&d);
}

/*==== the console: a turn whose response holds 400 items ====*/

static struct {
	struct cmodel m;
	struct keymap km;
	struct ui u;
	struct canvas c;
} F;

static char *big_response(void)
{
	struct buf b = {0};
	buf_puts(&b, "{\"jsonrpc\":\"2.0\",\"id\":7,\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"400 items follow; "
		     "this note is long enough to start folded: it says nothing much, only that the items are "
		     "listed below in structuredContent, each with an id, a name and a size, in the order the "
		     "catalog keeps them, which is by id; the end of it holds a hidden-needle\"}],"
		     "\"structuredContent\":{\"items\":[");
	for (int i = 0; i < 400; i++)
		buf_printf(&b, "%s{\"id\":\"item-%d\",\"name\":\"Item number %d\",\"size\":%d}", i ? "," : "", i, i, i * 17);
	buf_puts(&b, "]}}}");
	buf_cstr(&b);
	return buf_take(&b);
}

static void draw(void)
{
	ui_draw(&F.u, &F.c);
}

static void press(int key)
{
	ui_key(&F.u, key);
	draw();
}

static void type(const char *s)
{
	for (; *s; s++)
		press(*s == ' ' ? K_SPACE : (unsigned char)*s);
}

static void build(int w, int h)
{
	memset(&F, 0, sizeof F);
	struct err e = {0};
	cr_assert_eq(keymap_load(&F.km, &e), 0, "%s", e.msg);
	struct cm_run *r = cm_add(&F.m, "20261129-184948-3f2a", "/nonexistent/trace.jsonl");
	snprintf(r->started, sizeof r->started, "2026-11-29T18:49:48.123456Z");
	r->server = xstrdup("node catalog-server.js");
	struct cm_turn *t = cm_turn_append(r);
	t->turn = 0;
	t->req_seq = 4;
	t->resp_seq = 5;
	t->tool = xstrdup("list_items");
	t->args = xstrdup("{\"limit\":400}");
	t->latency_us = 5300;
	t->call = CMC_ANSWERED;
	snprintf(t->prestate, sizeof t->prestate, "shared");
	ui_init(&F.u, &F.m, &F.km, NULL);
	F.u.now = 1795978260;
	F.u.theme_name = "dark";
	ui_resize(&F.u, w, h);
	ui_focus_run(&F.u, r->id);
	/* the detail, filled as detail_load would */
	struct detail *d = &F.u.det;
	d->run = xstrdup(r->id);
	d->turn = 0;
	d->req = cJSON_Parse("{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"tools/call\",\"params\":{\"name\":\"list_items\","
			     "\"arguments\":{\"limit\":400}}}");
	char *resp = big_response();
	d->resp = cJSON_Parse(resp);
	free(resp);
	cr_assert(d->req && d->resp);
	tdoc_nl(&d->tab[TAB_REQUEST]);
	tdoc_add(&d->tab[TAB_REQUEST], ROLE_TITLE, "request  seq 4");
	tdoc_nl(&d->tab[TAB_RESPONSE]);
	tdoc_add(&d->tab[TAB_RESPONSE], ROLE_TITLE, "response  seq 5");
	detail_render_json(d);
	tdoc_nl(&d->tab[TAB_DIFF]);
	tdoc_add(&d->tab[TAB_DIFF], ROLE_DIM, "no change");
	detail_render_head(d, t);
	F.u.det_loaded = 1;
	F.u.tab = TAB_RESPONSE;
	F.u.stack[F.u.depth++] = F.u.view;
	F.u.view = VIEW_DETAIL;
	canvas_init(&F.c, w, h);
	draw();
}

static void teardown_fx(void)
{
	canvas_free(&F.c);
	ui_free(&F.u);
	keymap_free(&F.km);
	cm_close(&F.m);
}

static char *screen(void)
{
	struct buf b = {0};
	canvas_dump_text(&F.c, &b);
	buf_cstr(&b);
	return buf_take(&b);
}

/* The number of cells of the screen in role r. */
static int cells_in(enum role r)
{
	int n = 0;
	for (int y = 0; y < F.c.h; y++)
		for (int x = 0; x < F.c.w; x++)
			n += canvas_at(&F.c, y, x)->role == r;
	return n;
}

Test(search, slash_in_the_detail_finds_folded_items_counts_and_scrolls_to_them)
{
	build(80, 24);
	char *s = screen();
	cr_assert_null(strstr(s, "item-300"), "item-300 is folded away at first");
	free(s);
	press('/');
	cr_assert_eq(F.u.prompt, UI_PROMPT_SEARCH, "/ in the detail searches (it no longer filters the hidden list)");
	type("item-30");
	press(K_ENTER);
	s = screen();
	cr_assert(strstr(s, "/item-30 1/11"), "the count, beside the tabs:\n%s", s);
	cr_assert(strstr(s, "\"item-30\""), "the view is on the first match:\n%s", s);
	free(s);
	cr_assert(strstr(F.u.msg, "folded JSON holding a match was opened"), "%s", F.u.msg);
	cr_assert_eq(cells_in(ROLE_MATCH_CUR), 7, "the current match is highlighted apart");
	press('n');
	press('n');
	s = screen();
	cr_assert(strstr(s, "/item-30 3/11"), "%s", s);
	cr_assert(strstr(s, "\"item-301\""), "%s", s);
	free(s);
	press('N');
	cr_assert(strstr(F.u.msg, "2/11"), "%s", F.u.msg);
	for (int i = 0; i < 10; i++)
		press('n');
	cr_assert(strstr(F.u.msg, "1/11") && strstr(F.u.msg, "from the top again"), "n wraps: %s", F.u.msg);
	/* another tab: the same search, counted there */
	press('3');
	s = screen();
	cr_assert(strstr(s, "/item-30 0/0"), "%s", s);
	free(s);
	press('n');
	cr_assert(strstr(F.u.msg, "no match for \"item-30\" in the diff tab"), "%s", F.u.msg);
	teardown_fx();
}

Test(search, a_long_string_folded_away_is_opened_when_it_holds_the_match)
{
	build(120, 40);
	char *s = screen();
	cr_assert_null(strstr(s, "hidden-needle"), "the long string starts folded");
	free(s);
	ui_command(&F.u, "search hidden-needle");
	draw();
	s = screen();
	cr_assert(strstr(s, "hidden-needle"), "%s", s);
	cr_assert(strstr(s, "/hidden-needle 1/1"), "%s", s);
	free(s);
	teardown_fx();
}

Test(search, esc_goes_back_to_the_search_before_and_ctrl_r_takes_a_regex)
{
	build(120, 40);
	press('/');
	type("Item number 12\"");
	press(K_ENTER);
	cr_assert(strstr(F.u.msg, "1/1"), "%s", F.u.msg);
	press('/');
	type("size");
	press(K_ESC);
	char bar[128];
	ui_search_bar(&F.u, bar, sizeof bar);
	cr_assert_str_eq(bar, " /Item number 12\" 1/1 ");
	press('/');
	press(K_C('r'));
	type("item-3[0-9]{2}\"");
	press(K_ENTER);
	ui_search_bar(&F.u, bar, sizeof bar);
	cr_assert_str_eq(bar, " re/item-3[0-9]{2}\" 1/100 ");
	/* :search from the command prompt */
	ui_command(&F.u, "search -r \"size\": 17,?$");
	draw();
	ui_search_bar(&F.u, bar, sizeof bar);
	cr_assert_str_eq(bar, " re/\"size\": 17,?$ 1/1 ", "a key and its number open their fold");
	ui_command(&F.u, "search");
	cr_assert_eq(ui_search_bar(&F.u, bar, sizeof bar), 0, "no text: the search is cleared");
	teardown_fx();
}

Test(search, the_log_is_searched_too)
{
	build(80, 24);
	ui_message(&F.u, 0, "new run 20261129-184948-3f2a");
	ui_message(&F.u, 2, "store: database is locked (retrying)");
	ui_message(&F.u, 0, "verifying turn 3: queued");
	press('E');
	cr_assert_eq(F.u.view, VIEW_LOG);
	press('/');
	type("locked");
	press(K_ENTER);
	char bar[128];
	ui_search_bar(&F.u, bar, sizeof bar);
	cr_assert_str_eq(bar, " /locked 1/1 ");
	cr_assert_eq(cells_in(ROLE_MATCH_CUR), 6);
	teardown_fx();
}

/*==== goldens ====*/

static const int sizes[][2] = {{80, 24}, {120, 40}, {200, 60}};

static void scr_matches(void)
{
	press('/');
	type("item-30");
	press(K_ENTER);
	press('n');
	press('n');
}

static void scr_none(void)
{
	press('/');
	type("item-9999");
	press(K_ENTER);
}

static void scr_regex_error(void)
{
	press('/');
	press(K_C('r'));
	type("item-(3");
	press(K_ENTER);
}

static void scr_typing(void)
{
	press('/');
	press(K_C('r'));
	type("item-1[0-9]{2}\"");
}

static void run_screen(const char *name, void (*fn)(void))
{
	for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++) {
		build(sizes[s][0], sizes[s][1]);
		fn();
		draw();
		ts_screen_golden(&F.c, name);
		teardown_fx();
	}
}

Test(search, search_matches) { run_screen("search_matches", scr_matches); }
Test(search, search_none) { run_screen("search_none", scr_none); }
Test(search, search_regex_error) { run_screen("search_regex_error", scr_regex_error); }
Test(search, search_typing) { run_screen("search_typing", scr_typing); }

/*==== JSON inside a string, shown parsed ====*/

Test(search, json_inside_a_string_is_shown_parsed_with_p_and_as_sent_again)
{
	build(120, 40);
	struct detail *d = &F.u.det;
	cJSON_Delete(d->resp);
	d->resp = cJSON_Parse("{\"jsonrpc\":\"2.0\",\"id\":7,\"result\":{\"content\":[{\"type\":\"text\",\"text\":"
			      "\"{\\\"rows\\\":[{\\\"sku\\\":\\\"A-17\\\",\\\"note\\\":\\\"[not json\\\"}]}\"}]}}");
	cr_assert_not_null(d->resp);
	detail_render_json(d);
	draw();
	char *s = screen();
	cr_assert(strstr(s, "\"{\\\"rows\\\":"), "escaped as sent:\n%s", s);
	free(s);
	press('p');
	s = screen();
	cr_assert(strstr(s, "JSON inside strings is shown parsed, not as sent"), "%s", s);
	cr_assert(strstr(s, "\"text\": {") && strstr(s, "\"sku\": \"A-17\""), "parsed as a tree:\n%s", s);
	cr_assert(strstr(s, "\"note\": \"[not json\""), "a string that does not parse stays a string:\n%s", s);
	free(s);
	cr_assert(strstr(F.u.msg, "1 string holding JSON shown parsed"), "%s", F.u.msg);
	ui_command(&F.u, "search A-17");
	draw();
	char bar[128];
	ui_search_bar(&F.u, bar, sizeof bar);
	cr_assert_str_eq(bar, " /A-17 1/1 ");
	press('p');
	s = screen();
	cr_assert_null(strstr(s, "shown parsed"), "%s", s);
	cr_assert(strstr(s, "\"{\\\"rows\\\":"), "as sent again:\n%s", s);
	free(s);
	press('3');
	press('p');
	cr_assert(strstr(F.u.msg, "in a turn's request or response tab"), "%s", F.u.msg);
	teardown_fx();
}

/*==== the mouse in the detail (mouse.c; the terminal's side is test_console_mouse) ====*/

/* The 0-based row of the screen that holds s, and its column. */
static int find_on_screen(const char *s, int *col)
{
	for (int y = 0; y < F.c.h; y++) {
		char row[1024];
		size_t n = 0;
		for (int x = 0; x < F.c.w && n + 4 < sizeof row; x++) {
			uint32_t ch = canvas_at(&F.c, y, x)->ch;
			n += ch ? canvas_utf8(ch, row + n) : 0;
		}
		row[n] = '\0';
		const char *p = strstr(row, s);
		if (p) {
			*col = 0;
			for (const char *q = row; q < p; q++)
				*col += ((unsigned char)*q & 0xC0) != 0x80;
			return y;
		}
	}
	cr_assert_fail("\"%s\" is not on the screen", s);
	return -1;
}

Test(search, the_wheel_scrolls_the_tab_a_click_picks_a_tab_or_a_row_a_double_click_folds)
{
	build(80, 24);
	int col, body = find_on_screen("response  seq 5", &col);
	struct mouse_ev ev = {body + 2, 10, MOUSE_WHEEL_DOWN};
	mouse_apply(&F.u, &ev, 1000);
	draw();
	cr_assert_eq(F.u.det_cur[TAB_RESPONSE], 3, "a notch: three rows");
	ev.kind = MOUSE_WHEEL_UP;
	mouse_apply(&F.u, &ev, 1100);
	draw();
	cr_assert_eq(F.u.det_cur[TAB_RESPONSE], 0);
	/* a click on a row puts the cursor there; a second one on the same cell soon folds it */
	int y = find_on_screen("\"result\": {", &col);
	ev = (struct mouse_ev){y, col + 2, MOUSE_CLICK};
	mouse_apply(&F.u, &ev, 5000);
	draw();
	size_t rows_before = ui_detail_rows(&F.u);
	cr_assert_eq(F.u.det_cur[TAB_RESPONSE], y - body, "the row clicked");
	mouse_apply(&F.u, &ev, 5000 + MOUSE_DOUBLE_MS + 1);
	draw();
	cr_assert_eq(ui_detail_rows(&F.u), rows_before, "too slow for a double click: nothing folds");
	mouse_apply(&F.u, &ev, 5000 + MOUSE_DOUBLE_MS + 100);
	draw();
	cr_assert_lt(ui_detail_rows(&F.u), rows_before, "a double click folds the node");
	/* a click on a tab shows it */
	y = find_on_screen("3 Effect diff", &col);
	ev = (struct mouse_ev){y, col + 3, MOUSE_CLICK};
	mouse_apply(&F.u, &ev, 9000);
	cr_assert_eq(F.u.tab, TAB_DIFF);
	/* a prompt waits for keys */
	press('/');
	ev.x = 3;
	mouse_apply(&F.u, &ev, 9999);
	cr_assert_eq(F.u.tab, TAB_DIFF);
	teardown_fx();
}
