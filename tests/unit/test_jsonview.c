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
