/* test_jsonview.c - JSON as an indented, coloured, foldable tree (tui/jsonview.c): scalars,
 * containers and nesting, escapes (controls, quotes, non-ASCII), the default folds (deeper
 * than 3 levels, strings longer than 240 bytes), toggling by node number with numbering
 * that stays stable when something folds, and a 10,000-item array. */
#include <criterion/criterion.h>
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf.h"
#include "tui/glyphs.h"
#include "tui/jsonview.h"
#include "tui/search.h"

static void setup(void)
{
	cr_assert_not_null(setlocale(LC_ALL, "C.UTF-8"));
	glyphs_set_ascii(0);
}

TestSuite(jsonview, .init = setup);

/* The rendering's lines joined with '\n' (new string). */
static char *text_of(const struct tdoc *d)
{
	struct buf b = {0};
	for (size_t i = 0; i < d->n; i++) {
		char *l = tdoc_line_text(d, i);
		if (i)
			buf_putc(&b, '\n');
		buf_puts(&b, l);
		free(l);
	}
	buf_cstr(&b);
	return buf_take(&b);
}

/* Renders json (which must parse) with fold state f; returns the text (new string). */
static char *render(const char *json, struct jfold *f, struct tdoc *d)
{
	cJSON *j = cJSON_Parse(json);
	cr_assert_not_null(j, "parses: %s", json);
	tdoc_clear(d);
	jsonview_render(d, j, f);
	cJSON_Delete(j);
	return text_of(d);
}

static void expect(const char *json, const char *want)
{
	struct tdoc d;
	tdoc_init(&d);
	struct jfold f = {0};
	char *got = render(json, &f, &d);
	cr_assert_str_eq(got, want, "%s\n--- got:\n%s\n--- want:\n%s", json, got, want);
	free(got);
	tdoc_free(&d);
	jfold_free(&f);
}

/* The role of the span holding `needle` on line i (-1 when absent). */
static int role_of(const struct tdoc *d, size_t i, const char *needle)
{
	const struct tline *l = &d->lines[i];
	for (int k = 0; k < l->n; k++)
		if (strstr(l->sp[k].text, needle))
			return l->sp[k].role;
	return -1;
}

/*==== scalars, containers, nesting ====*/

Test(jsonview, scalars)
{
	expect("42", "42");
	expect("-1.5", "-1.5");
	expect("1e300", "1e+300");
	expect("true", "true");
	expect("false", "false");
	expect("null", "null");
	expect("\"hi\"", "\"hi\"");
	expect("\"\"", "\"\"");
	expect("{}", "{}");
	expect("[]", "[]");
}

Test(jsonview, containers_and_nesting)
{
	expect("{\"a\":1,\"b\":[true,null],\"c\":\"x\",\"d\":{},\"e\":[]}",
	       "{\n"
	       "  \"a\": 1,\n"
	       "  \"b\": [\n"
	       "    true,\n"
	       "    null\n"
	       "  ],\n"
	       "  \"c\": \"x\",\n"
	       "  \"d\": {},\n"
	       "  \"e\": []\n"
	       "}");
	expect("[[1,[2,[3]]]]", "[\n"
				"  [\n"
				"    1,\n"
				"    [\n"
				"      2,\n"
				"      [\n"
				"        3\n"
				"      ]\n"
				"    ]\n"
				"  ]\n"
				"]");
}

Test(jsonview, roles_of_each_part)
{
	struct tdoc d;
	tdoc_init(&d);
	struct jfold f = {0};
	char *t = render("{\"k\":\"s\",\"n\":7,\"t\":true,\"z\":null}", &f, &d);
	free(t);
	cr_assert_eq(d.n, 6);
	cr_assert_eq(role_of(&d, 0, "{"), ROLE_JSON_PUNCT);
	cr_assert_eq(role_of(&d, 1, "\"k\""), ROLE_JSON_KEY);
	cr_assert_eq(role_of(&d, 1, ": "), ROLE_JSON_PUNCT);
	cr_assert_eq(role_of(&d, 1, "\"s\""), ROLE_JSON_STRING);
	cr_assert_eq(role_of(&d, 2, "7"), ROLE_JSON_NUMBER);
	cr_assert_eq(role_of(&d, 3, "true"), ROLE_JSON_LITERAL);
	cr_assert_eq(role_of(&d, 4, "null"), ROLE_JSON_LITERAL);
	cr_assert_eq(role_of(&d, 5, "}"), ROLE_JSON_PUNCT);
	tdoc_free(&d);
	jfold_free(&f);
}

Test(jsonview, null_root_says_nothing)
{
	struct tdoc d;
	tdoc_init(&d);
	struct jfold f = {0};
	jsonview_render(&d, NULL, &f);
	cr_assert_eq(d.n, 1);
	char *t = tdoc_line_text(&d, 0);
	cr_assert_str_eq(t, "(nothing)");
	free(t);
	tdoc_free(&d);
}

Test(jsonview, appends_after_existing_lines)
{
	struct tdoc d;
	tdoc_init(&d);
	tdoc_nl(&d);
	tdoc_add(&d, ROLE_TITLE, "header");
	struct jfold f = {0};
	cJSON *j = cJSON_Parse("[1]");
	jsonview_render(&d, j, &f);
	cJSON_Delete(j);
	char *t = text_of(&d);
	cr_assert_str_eq(t, "header\n[\n  1\n]");
	free(t);
	cr_assert_eq(d.lines[0].tag, -1, "the header is not a node");
	cr_assert_eq(d.lines[1].tag, 0);
	tdoc_free(&d);
	jfold_free(&f);
}

/*==== escapes ====*/

Test(jsonview, escapes_controls_quotes_and_keeps_utf8)
{
	/* Every control character comes out escaped, so nothing can reach the terminal raw. */
	expect("[\"a\\\"b\\\\c\\n\\t\\r\\b\\f\\u0001\\u001f/\"]",
	       "[\n  \"a\\\"b\\\\c\\n\\t\\r\\b\\f\\u0001\\u001f/\"\n]");
	/* Keys are escaped the same way. */
	expect("{\"q\\\"k\\n\":0}", "{\n  \"q\\\"k\\n\": 0\n}");
	/* Non-ASCII stays UTF-8 (escaped or not in the input). */
	expect("[\"\xc3\xa9\xe6\xbc\xa2\xf0\x9f\x98\x80\", \"\\u00e9\\u6f22\\ud83d\\ude00\"]",
	       "[\n  \"\xc3\xa9\xe6\xbc\xa2\xf0\x9f\x98\x80\",\n  \"\xc3\xa9\xe6\xbc\xa2\xf0\x9f\x98\x80\"\n]");
	struct tdoc d;
	tdoc_init(&d);
	struct jfold f = {0};
	char *t = render("{\"a\":\"x\\u0000y\"}", &f, &d);
	/* An embedded NUL cannot be shown; the string ends there but nothing breaks. */
	cr_assert(strstr(t, "\"x"), "%s", t);
	for (const char *p = t; *p; p++)
		cr_assert((unsigned char)*p >= 0x20 || *p == '\n', "a raw control byte 0x%02x in:\n%s", *p, t);
	free(t);
	tdoc_free(&d);
	jfold_free(&f);
}

/*==== default folds ====*/

Test(jsonview, containers_deeper_than_three_start_folded)
{
	/* depth: root 0, a 1, b 2, c 3, d 4 (folded) */
	expect("{\"a\":{\"b\":{\"c\":{\"d\":{\"e\":1,\"f\":2},\"g\":[1],\"h\":[],\"i\":{\"j\":1}}}}}",
	       "{\n"
	       "  \"a\": {\n"
	       "    \"b\": {\n"
	       "      \"c\": {\n"
	       "        \"d\": {\xe2\x80\xa6} 2 keys,\n"
	       "        \"g\": [\xe2\x80\xa6] 1 item,\n"
	       "        \"h\": [],\n"
	       "        \"i\": {\xe2\x80\xa6} 1 key\n"
	       "      }\n"
	       "    }\n"
	       "  }\n"
	       "}");
	/* Arrays too: depth 3 shows, depth 4 folds. */
	expect("[[[[[1,2,3]]]]]", "[\n"
				  "  [\n"
				  "    [\n"
				  "      [\n"
				  "        [\xe2\x80\xa6] 3 items\n"
				  "      ]\n"
				  "    ]\n"
				  "  ]\n"
				  "]");
}

static char *repeat(char c, size_t n)
{
	char *s = malloc(n + 1);
	memset(s, c, n);
	s[n] = '\0';
	return s;
}

Test(jsonview, strings_longer_than_240_bytes_start_folded)
{
	struct tdoc d;
	tdoc_init(&d);
	struct jfold f = {0};
	char *s240 = repeat('a', 240), *s241 = repeat('b', 241);
	struct buf j = {0};
	buf_printf(&j, "[\"%s\",\"%s\"]", s240, s241);
	char *t = render(buf_cstr(&j), &f, &d);
	cr_assert_eq(d.n, 4);
	char *l1 = tdoc_line_text(&d, 1), *l2 = tdoc_line_text(&d, 2);
	struct buf w1 = {0}, w2 = {0};
	buf_printf(&w1, "  \"%s\",", s240);
	cr_assert_str_eq(l1, buf_cstr(&w1), "240 bytes are shown whole");
	char *b60 = repeat('b', 60);
	buf_printf(&w2, "  \"%s\xe2\x80\xa6\" (241 bytes)", b60);
	cr_assert_str_eq(l2, buf_cstr(&w2), "241 bytes fold to the first 60 and the length");
	cr_assert_eq(d.lines[2].tag, 2, "the folded string's line is its node");
	free(b60);
	free(l1);
	free(l2);
	free(t);
	buf_free(&w1);
	buf_free(&w2);
	buf_free(&j);
	free(s240);
	free(s241);
	tdoc_free(&d);
	jfold_free(&f);
}

Test(jsonview, folded_string_cut_on_a_character_boundary_and_escaped)
{
	/* 59 ASCII bytes then 3-byte characters: byte 60 is inside one, so the cut backs up. */
	struct buf s = {0};
	for (int i = 0; i < 59; i++)
		buf_putc(&s, 'x');
	for (int i = 0; i < 80; i++)
		buf_puts(&s, "\xe6\xbc\xa2");
	struct buf j = {0};
	buf_printf(&j, "\"%s\"", buf_cstr(&s));
	struct tdoc d;
	tdoc_init(&d);
	struct jfold f = {0};
	char *t = render(buf_cstr(&j), &f, &d);
	char want[256];
	snprintf(want, sizeof want, "\"%.59s\xe2\x80\xa6\" (%zu bytes)", buf_cstr(&s), s.len);
	cr_assert_str_eq(t, want);
	free(t);
	/* A newline in the shown part is escaped, not drawn. */
	buf_free(&j);
	char *big = repeat('y', 300);
	big[3] = '\n';
	cJSON *str = cJSON_CreateString(big);
	tdoc_clear(&d);
	jsonview_render(&d, str, &f);
	t = text_of(&d);
	cr_assert(!strchr(t, '\n'), "one line: %s", t);
	cr_assert(!strncmp(t, "\"yyy\\nyy", 8), "%s", t);
	free(t);
	cJSON_Delete(str);
	free(big);
	buf_free(&s);
	tdoc_free(&d);
	jfold_free(&f);
}

/*==== toggling ====*/

/* Line tags and texts as "tag:text" lines (new string). */
static char *tagged(const struct tdoc *d)
{
	struct buf b = {0};
	for (size_t i = 0; i < d->n; i++) {
		char *l = tdoc_line_text(d, i);
		buf_printf(&b, "%d:%s\n", d->lines[i].tag, l);
		free(l);
	}
	buf_cstr(&b);
	return buf_take(&b);
}

static const char *DOC = "{\"a\":1,\"b\":[true,{\"x\":null}],\"c\":\"s\",\"d\":{\"e\":2}}";
/* nodes: 0 root, 1 a, 2 b, 3 true, 4 {x}, 5 x, 6 c, 7 d, 8 e */

Test(jsonview, nodes_are_numbered_in_document_order)
{
	struct tdoc d;
	tdoc_init(&d);
	struct jfold f = {0};
	cJSON *j = cJSON_Parse(DOC);
	jsonview_render(&d, j, &f);
	char *t = tagged(&d);
	cr_assert_str_eq(t, "0:{\n"
			    "1:  \"a\": 1,\n"
			    "2:  \"b\": [\n"
			    "3:    true,\n"
			    "4:    {\n"
			    "5:      \"x\": null\n"
			    "-1:    }\n"
			    "-1:  ],\n"
			    "6:  \"c\": \"s\",\n"
			    "7:  \"d\": {\n"
			    "8:    \"e\": 2\n"
			    "-1:  }\n"
			    "-1:}\n");
	free(t);
	cJSON_Delete(j);
	tdoc_free(&d);
	jfold_free(&f);
}

Test(jsonview, toggling_keeps_later_numbers_stable)
{
	struct tdoc d;
	tdoc_init(&d);
	struct jfold f = {0};
	cJSON *j = cJSON_Parse(DOC);
	jsonview_render(&d, j, &f);
	char *orig = tagged(&d);

	cr_assert_eq(jsonview_toggle(&f, j, 2), 0, "fold b");
	tdoc_clear(&d);
	jsonview_render(&d, j, &f);
	char *t = tagged(&d);
	cr_assert_str_eq(t, "0:{\n"
			    "1:  \"a\": 1,\n"
			    "2:  \"b\": [\xe2\x80\xa6] 2 items,\n"
			    "6:  \"c\": \"s\",\n"
			    "7:  \"d\": {\n"
			    "8:    \"e\": 2\n"
			    "-1:  }\n"
			    "-1:}\n");
	free(t);

	/* Folding the nested object inside the folded array changes nothing visible... */
	cr_assert_eq(jsonview_toggle(&f, j, 4), 0);
	/* ...and folding d, after it, still finds d by its number. */
	cr_assert_eq(jsonview_toggle(&f, j, 7), 0);
	tdoc_clear(&d);
	jsonview_render(&d, j, &f);
	t = tagged(&d);
	cr_assert_str_eq(t, "0:{\n"
			    "1:  \"a\": 1,\n"
			    "2:  \"b\": [\xe2\x80\xa6] 2 items,\n"
			    "6:  \"c\": \"s\",\n"
			    "7:  \"d\": {\xe2\x80\xa6} 1 key\n"
			    "-1:}\n");
	free(t);

	/* Unfold b: its child 4 is still folded (remembered by number). */
	cr_assert_eq(jsonview_toggle(&f, j, 2), 0);
	tdoc_clear(&d);
	jsonview_render(&d, j, &f);
	t = tagged(&d);
	cr_assert_str_eq(t, "0:{\n"
			    "1:  \"a\": 1,\n"
			    "2:  \"b\": [\n"
			    "3:    true,\n"
			    "4:    {\xe2\x80\xa6} 1 key\n"
			    "-1:  ],\n"
			    "6:  \"c\": \"s\",\n"
			    "7:  \"d\": {\xe2\x80\xa6} 1 key\n"
			    "-1:}\n");
	free(t);

	/* Unfold 4 and 7: back to the first rendering exactly. */
	cr_assert_eq(jsonview_toggle(&f, j, 4), 0);
	cr_assert_eq(jsonview_toggle(&f, j, 7), 0);
	tdoc_clear(&d);
	jsonview_render(&d, j, &f);
	t = tagged(&d);
	cr_assert_str_eq(t, orig);
	free(t);

	/* The root folds too. */
	cr_assert_eq(jsonview_toggle(&f, j, 0), 0);
	tdoc_clear(&d);
	jsonview_render(&d, j, &f);
	t = tagged(&d);
	cr_assert_str_eq(t, "0:{\xe2\x80\xa6} 4 keys\n");
	free(t);

	free(orig);
	cJSON_Delete(j);
	tdoc_free(&d);
	jfold_free(&f);
}

Test(jsonview, what_cannot_fold)
{
	struct jfold f = {0};
	cJSON *j = cJSON_Parse("{\"n\":1,\"s\":\"short\",\"e\":{},\"a\":[],\"t\":true,\"z\":null}");
	for (int node = 1; node <= 6; node++)
		cr_assert_eq(jsonview_toggle(&f, j, node), -1, "node %d is not foldable", node);
	cr_assert_eq(jsonview_toggle(&f, j, 7), -1, "past the last node");
	cr_assert_eq(jsonview_toggle(&f, j, 1000000), -1, "far past the last node");
	cr_assert_eq(jsonview_toggle(&f, j, -1), -1);
	cr_assert_eq(jsonview_toggle(&f, NULL, 0), -1);
	cr_assert_eq(jsonview_toggle(&f, j, 0), 0, "the root object folds");
	cJSON_Delete(j);
	jfold_free(&f);
	cr_assert_null(f.state);
	cr_assert_eq(f.n, 0);
}

Test(jsonview, default_folds_toggle_open_and_shut)
{
	struct tdoc d;
	tdoc_init(&d);
	struct jfold f = {0};
	/* nodes: 0 root, 1 a(d1), 2 b(d2), 3 c(d3), 4 d(d4, folded), 5 e(d5), 6 f, 7 long string */
	char *longs = repeat('L', 300);
	struct buf js = {0};
	buf_printf(&js, "{\"a\":{\"b\":{\"c\":{\"d\":{\"e\":{\"f\":1}}}}},\"s\":\"%s\"}", longs);
	cJSON *j = cJSON_Parse(buf_cstr(&js));
	jsonview_render(&d, j, &f);
	char *t = text_of(&d);
	cr_assert(strstr(t, "\"d\": {\xe2\x80\xa6} 1 key"), "%s", t);
	cr_assert(strstr(t, "(300 bytes)"), "%s", t);
	free(t);
	/* Unfold d: its child e (depth 5) is folded by default in turn. */
	cr_assert_eq(jsonview_toggle(&f, j, 4), 0);
	tdoc_clear(&d);
	jsonview_render(&d, j, &f);
	t = text_of(&d);
	cr_assert(strstr(t, "\"d\": {\n"), "%s", t);
	cr_assert(strstr(t, "\"e\": {\xe2\x80\xa6} 1 key"), "%s", t);
	free(t);
	/* The long string (node 7 whatever is folded above it) unfolds whole. */
	cr_assert_eq(jsonview_toggle(&f, j, 7), 0);
	tdoc_clear(&d);
	jsonview_render(&d, j, &f);
	t = text_of(&d);
	struct buf want = {0};
	buf_printf(&want, "\"s\": \"%s\"", longs);
	cr_assert(strstr(t, buf_cstr(&want)), "%s", t);
	cr_assert(!strstr(t, "bytes)"), "%s", t);
	free(t);
	/* And folds again. */
	cr_assert_eq(jsonview_toggle(&f, j, 7), 0);
	tdoc_clear(&d);
	jsonview_render(&d, j, &f);
	t = text_of(&d);
	cr_assert(strstr(t, "(300 bytes)"), "%s", t);
	free(t);
	buf_free(&want);
	buf_free(&js);
	free(longs);
	cJSON_Delete(j);
	tdoc_free(&d);
	jfold_free(&f);
}

/*==== size ====*/

Test(jsonview, ten_thousand_items)
{
	struct buf js = {0};
	buf_puts(&js, "{\"result\":{\"items\":[");
	for (int i = 0; i < 10000; i++)
		buf_printf(&js, "%s{\"i\":%d,\"name\":\"item-%d\"}", i ? "," : "", i, i);
	buf_puts(&js, "]}}");
	cJSON *j = cJSON_Parse(buf_cstr(&js));
	cr_assert_not_null(j);
	struct tdoc d;
	tdoc_init(&d);
	struct jfold f = {0};
	jsonview_render(&d, j, &f);
	/* root {, result {, items [, then 4 lines per item ({, i, name, }), then ], }, } */
	cr_assert_eq(d.n, 3 + 10000 * 4 + 3, "%zu lines", d.n);
	char *last = tdoc_line_text(&d, d.n - 5);
	cr_assert_str_eq(last, "        \"name\": \"item-9999\"");
	free(last);
	/* Node numbers: 0 root, 1 result, 2 items, then 3 per item. */
	cr_assert_eq(d.lines[d.n - 6].tag, 2 + 3 * 9999 + 2, "the last i is node %d", d.lines[d.n - 6].tag);
	/* Fold the array, then the last item's number is still found. */
	cr_assert_eq(jsonview_toggle(&f, j, 2), 0);
	tdoc_clear(&d);
	jsonview_render(&d, j, &f);
	cr_assert_eq(d.n, 5);
	char *l = tdoc_line_text(&d, 2);
	cr_assert_str_eq(l, "    \"items\": [\xe2\x80\xa6] 10000 items");
	free(l);
	cr_assert_eq(jsonview_toggle(&f, j, 2 + 3 * 9999 + 1), 0, "the last item folds by number");
	cr_assert_eq(jsonview_toggle(&f, j, 2), 0);
	tdoc_clear(&d);
	jsonview_render(&d, j, &f);
	cr_assert_eq(d.n, 3 + 9999 * 4 + 1 + 3);
	cJSON_Delete(j);
	buf_free(&js);
	tdoc_free(&d);
	jfold_free(&f);
}

/*==== folds changed in place (jsonview_update) ====*/

/* A document of every kind of node: nested objects and arrays past the default fold depth,
 * long strings, empty containers, keys needing escapes. */
static char *mixed_doc(void)
{
	struct buf js = {0};
	buf_puts(&js, "{\"jsonrpc\":\"2.0\",\"id\":7,\"result\":{\"items\":[");
	for (int i = 0; i < 40; i++) {
		buf_printf(&js, "%s{\"id\":\"item-%d\",\"Name\":\"Deep Thought\",\"n\":%d,\"f\":%g,\"e\":{},\"z\":[],\"q\\\"k\":null,", i ? "," : "", i, i,
			   i * 0.25);
		buf_printf(&js, "\"deep\":{\"a\":{\"b\":{\"c\":[1,2,{\"d\":\"item-%d-deep\"}]}}},", i);
		buf_puts(&js, "\"long\":\"");
		for (int k = 0; k < 30; k++)
			buf_printf(&js, "word%d item-%d ", k, i);
		buf_puts(&js, "\"}");
	}
	buf_puts(&js, "],\"tail\":[true,false]}}");
	return buf_take(&js);
}

/* What a whole rendering with the same folds gives (new string). */
static char *fresh(const cJSON *j, struct jfold *f)
{
	struct jfold copy = {0};
	copy.n = f->n;
	copy.state = malloc(f->n ? f->n : 1);
	if (f->n)
		memcpy(copy.state, f->state, f->n);
	struct tdoc d;
	tdoc_init(&d);
	tdoc_nl(&d);
	tdoc_add(&d, ROLE_TITLE, "header");
	jsonview_render(&d, j, &copy);
	char *t = tagged(&d);
	tdoc_free(&d);
	jfold_free(&copy);
	return t;
}

static int match_item(void *arg, const char *text, size_t n)
{
	const char *want = arg;
	size_t wl = strlen(want);
	for (size_t i = 0; i + wl <= n; i++)
		if (!memcmp(text + i, want, wl))
			return 1;
	return 0;
}

Test(jsonview, update_in_place_equals_a_whole_rendering)
{
	char *js = mixed_doc();
	cJSON *j = cJSON_Parse(js);
	cr_assert_not_null(j);
	struct tdoc d;
	tdoc_init(&d);
	tdoc_nl(&d);
	tdoc_add(&d, ROLE_TITLE, "header");
	struct jfold f = {0};
	jsonview_render(&d, j, &f);
	size_t rows0 = tdoc_rows(&d, 50, 1); /* rows cached at a width: carried over by the splices */
	cr_assert_gt(rows0, 0);
	struct search s;
	search_init(&s);
	cr_assert_eq(search_set(&s, "item-1", 0, NULL), 0);
	search_sync(&s, &d);
	unsigned seed = 12345;
	int spliced = 0;
	for (int step = 0; step < 300; step++) {
		seed = seed * 1103515245u + 12345u;
		int what = (int)(seed >> 16) % 10;
		if (what < 8) { /* toggle what a line shows, as z does at the cursor */
			size_t line = (seed >> 4) % d.n;
			if (d.lines[line].tag >= 0)
				jsonview_toggle(&f, j, d.lines[line].tag);
			if (what == 0) /* and a node that may be hidden */
				jsonview_toggle(&f, j, (int)((seed >> 8) % 500));
		} else { /* open what holds a match, as a search does */
			char want[32];
			snprintf(want, sizeof want, "item-%u", (seed >> 8) % 45);
			jsonview_unfold_where(&f, j, match_item, want);
		}
		unsigned gen = d.gen;
		spliced += jsonview_update(&d, j, &f) > 0;
		char *got = tagged(&d), *want = fresh(j, &f);
		cr_assert_str_eq(got, want, "step %d: in place\n%s\n--- whole:\n%s", step, got, want);
		free(got);
		free(want);
		/* The rows at the cached width agree with counting them anew. */
		struct tdoc d2;
		tdoc_init(&d2);
		for (size_t i = 0; i < d.n; i++) {
			tdoc_nl(&d2);
			for (int k = 0; k < d.lines[i].n; k++)
				tdoc_add(&d2, d.lines[i].sp[k].role, d.lines[i].sp[k].text);
		}
		cr_assert_eq(tdoc_rows(&d, 50, 1), tdoc_rows(&d2, 50, 1), "step %d: rows", step);
		tdoc_free(&d2);
		if (d.gen != gen)
			cr_assert_eq(d.edit_to, d.gen, "a splice says what it changed");
		/* The matches brought over the splice are the ones a search from scratch finds. */
		search_sync(&s, &d);
		struct search s2;
		search_init(&s2);
		search_set(&s2, "item-1", 0, NULL);
		search_sync(&s2, &d);
		cr_assert_eq(s.n, s2.n, "step %d: %zu matches brought over, %zu found anew", step, s.n, s2.n);
		for (size_t i = 0; i < s.n; i++)
			cr_assert(s.m[i].line == s2.m[i].line && s.m[i].off == s2.m[i].off && s.m[i].len == s2.m[i].len,
				  "step %d: match %zu", step, i);
		search_free(&s2);
	}
	search_free(&s);
	cr_assert_gt(spliced, 100, "the steps changed the document (%d)", spliced);
	cJSON_Delete(j);
	free(js);
	tdoc_free(&d);
	jfold_free(&f);
}

Test(jsonview, unfold_at_opens_the_node_holding_the_offset_and_around_it)
{
	cJSON *j = cJSON_Parse("{\"a\":{\"b\":{\"c\":{\"d\":{\"e\":\"needle\"}}}},\"z\":1}");
	struct tdoc d;
	tdoc_init(&d);
	struct jfold f = {0};
	jsonview_render(&d, j, &f);
	char *t = tagged(&d);
	cr_assert(strstr(t, "\"d\": {\xe2\x80\xa6}"), "d starts folded:\n%s", t);
	free(t);
	size_t n;
	const char *lower, *text = jsonview_text(&f, j, &n, &lower);
	cr_assert_str_eq(text, "{\n\"a\": {\n\"b\": {\n\"c\": {\n\"d\": {\n\"e\": \"needle\"\n\"z\": 1\n");
	cr_assert_eq(strlen(lower), n);
	size_t off = (size_t)(strstr(text, "needle") - text);
	cr_assert_eq(jsonview_unfold_at(&f, j, &off, 1), 1, "d opened (a, b, c were open)");
	cr_assert_eq(jsonview_update(&d, j, &f), 1);
	t = tagged(&d);
	cr_assert(strstr(t, "5:          \"e\": \"needle\"\n"), "%s", t);
	free(t);
	cJSON_Delete(j);
	tdoc_free(&d);
	jfold_free(&f);
}

Test(jsonview, the_text_of_every_node_built_a_step_at_a_time_is_the_text_built_whole)
{
	char *js = mixed_doc();
	cJSON *j = cJSON_Parse(js);
	struct jfold whole = {0}, steps = {0};
	size_t n1, n2;
	const char *lower1, *lower2;
	const char *t1 = jsonview_text(&whole, j, &n1, &lower1);
	int calls = 0;
	while (jsonview_prepare(&steps, j, 7)) /* 7 nodes a step: every kind of place to stop */
		calls++;
	cr_assert_gt(calls, 50, "%d steps", calls);
	cr_assert_eq(jsonview_prepare(&steps, j, 7), 0, "done stays done");
	const char *t2 = jsonview_text(&steps, j, &n2, &lower2);
	cr_assert_eq(n1, n2);
	cr_assert(!memcmp(t1, t2, n1), "the same text");
	cr_assert(!memcmp(lower1, lower2, n1), "the same lower-cased text");
	for (size_t i = 0; i < n2; i++)
		cr_assert_eq(lower2[i], (t2[i] >= 'A' && t2[i] <= 'Z') ? t2[i] + 32 : t2[i], "byte %zu lower-cased", i);
	cr_assert(strstr(t2, "\"q\\\"k\": null\n"), "a key as shown, escaped");
	cr_assert_eq(strlen(t2), n2);
	/* Unfolding by it agrees too: every item opened where "item-1" is. */
	struct tdoc d1, d2;
	tdoc_init(&d1);
	tdoc_init(&d2);
	jsonview_render(&d1, j, &whole);
	jsonview_render(&d2, j, &steps);
	while (jsonview_prepare(&steps, j, 5))
		;
	jsonview_unfold_where(&whole, j, match_item, "item-1");
	jsonview_unfold_where(&steps, j, match_item, "item-1");
	jsonview_update(&d1, j, &whole);
	jsonview_update(&d2, j, &steps);
	char *a = tagged(&d1), *b = tagged(&d2);
	cr_assert_str_eq(a, b);
	cr_assert(strstr(a, "item-1-deep"), "the deep match was opened");
	free(a);
	free(b);
	tdoc_free(&d1);
	tdoc_free(&d2);
	jfold_free(&whole);
	jfold_free(&steps);
	cJSON_Delete(j);
	free(js);
}
