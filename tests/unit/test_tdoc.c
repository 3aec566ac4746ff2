/* test_tdoc.c - styled text documents (tui/tdoc.c): spans that merge, lines from text,
 * wrapping (continuation rows indented 2), tdoc_rows agreeing with what tdoc_draw draws
 * (also with wide characters at the wrap edge, where nothing may be lost), line_at_row,
 * scrolling and the cursor row. */
#include <criterion/criterion.h>
#include <locale.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf.h"
#include "tui/glyphs.h"
#include "tui/tdoc.h"

static void setup(void)
{
	cr_assert_not_null(setlocale(LC_ALL, "C.UTF-8"));
	glyphs_set_ascii(0);
}

TestSuite(tdoc, .init = setup);

static char *dump(const struct canvas *c)
{
	struct buf b = {0};
	canvas_dump(c, &b);
	buf_cstr(&b);
	return buf_take(&b);
}

static void expect_canvas(const struct canvas *c, const char *want)
{
	char *got = dump(c);
	cr_assert_str_eq(got, want, "--- got:\n%s--- want:\n%s", got, want);
	free(got);
}

/*==== building ====*/

Test(tdoc, spans_of_one_role_merge)
{
	struct tdoc d;
	tdoc_init(&d);
	tdoc_add(&d, ROLE_NORMAL, "ab"); /* starts a line by itself */
	cr_assert_eq(d.n, 1);
	cr_assert_eq(d.lines[0].tag, -1);
	tdoc_add(&d, ROLE_NORMAL, "cd");
	tdoc_addn(&d, ROLE_NORMAL, "efXXX", 2);
	cr_assert_eq(d.lines[0].n, 1, "one span");
	cr_assert_str_eq(d.lines[0].sp[0].text, "abcdef");
	tdoc_addf(&d, ROLE_DIM, "%d-%s", 7, "x");
	tdoc_add(&d, ROLE_NORMAL, "g");
	tdoc_add(&d, ROLE_NORMAL, "");
	cr_assert_eq(d.lines[0].n, 3);
	cr_assert_str_eq(d.lines[0].sp[1].text, "7-x");
	cr_assert_eq(d.lines[0].sp[1].role, ROLE_DIM);
	cr_assert_str_eq(d.lines[0].sp[2].text, "g");
	char *t = tdoc_line_text(&d, 0);
	cr_assert_str_eq(t, "abcdef7-xg");
	free(t);
	/* A new line never merges into the last span of the one before. */
	tdoc_nl(&d);
	tdoc_add(&d, ROLE_NORMAL, "h");
	cr_assert_eq(d.n, 2);
	cr_assert_eq(d.lines[1].n, 1);
	cr_assert_str_eq(d.lines[1].sp[0].text, "h");
	/* Many appends to one span (no quadratic surprise, no loss). */
	for (int i = 0; i < 5000; i++)
		tdoc_add(&d, ROLE_NORMAL, "z");
	cr_assert_eq(strlen(d.lines[1].sp[0].text), 5001);
	t = tdoc_line_text(&d, 99);
	cr_assert_str_eq(t, "", "a line past the end is empty");
	free(t);
	tdoc_clear(&d);
	cr_assert_eq(d.n, 0);
	tdoc_add(&d, ROLE_NORMAL, "again");
	cr_assert_eq(d.n, 1);
	tdoc_free(&d);
	cr_assert_null(d.lines);
	tdoc_free(&d);
}

Test(tdoc, text_splits_lines)
{
	struct tdoc d;
	tdoc_init(&d);
	tdoc_text(&d, ROLE_ERROR, "one\r\ntwo\n\nfour\n");
	cr_assert_eq(d.n, 4, "a final newline adds no empty line");
	const char *want[] = {"one", "two", "", "four"};
	for (int i = 0; i < 4; i++) {
		char *t = tdoc_line_text(&d, (size_t)i);
		cr_assert_str_eq(t, want[i]);
		free(t);
	}
	cr_assert_eq(d.lines[0].sp[0].role, ROLE_ERROR);
	cr_assert_eq(d.lines[2].n, 0, "an empty line has no span");
	tdoc_text(&d, ROLE_NORMAL, "");
	cr_assert_eq(d.n, 5, "empty text is one empty line");
	tdoc_free(&d);
}

/*==== wrapping ====*/

Test(tdoc, wrapping_indents_continuations_by_two)
{
	struct tdoc d;
	tdoc_init(&d);
	tdoc_add(&d, ROLE_NORMAL, "abcdefghij");
	tdoc_add(&d, ROLE_DIM, "klmnopqrstuvwxy"); /* 25 columns in all */
	tdoc_nl(&d);
	tdoc_add(&d, ROLE_NORMAL, "short");
	cr_assert_eq(tdoc_rows(&d, 10, 1), 3 + 1, "10 + 8 + 7, then one row");
	cr_assert_eq(tdoc_rows(&d, 10, 0), 2);
	cr_assert_eq(tdoc_rows(&d, 25, 1), 2, "exactly the width: no continuation");
	cr_assert_eq(tdoc_rows(&d, 24, 1), 3);
	struct canvas c;
	canvas_init(&c, 12, 5);
	cr_assert_eq(tdoc_draw(&d, &c, 0, 1, 5, 10, 0, 1, -1), 4);
	expect_canvas(&c, " abcdefghij |\n"
			  "   {dim:klmnopqr} |\n"
			  "   {dim:stuvwxy}  |\n"
			  " short      |\n"
			  "            |\n");
	/* Without wrapping: clipped at the width. */
	canvas_clear(&c, ROLE_NORMAL);
	cr_assert_eq(tdoc_draw(&d, &c, 0, 1, 5, 10, 0, 0, -1), 2);
	expect_canvas(&c, " abcdefghij |\n"
			  " short      |\n"
			  "            |\n"
			  "            |\n"
			  "            |\n");
	canvas_free(&c);
	tdoc_free(&d);
}

Test(tdoc, scrolling_starts_inside_a_wrapped_line)
{
	struct tdoc d;
	tdoc_init(&d);
	tdoc_add(&d, ROLE_NORMAL, "0123456789abcdefghijklmnop"); /* 10 + 8 + 8 */
	tdoc_nl(&d);
	tdoc_add(&d, ROLE_NORMAL, "next");
	struct canvas c;
	canvas_init(&c, 10, 2);
	cr_assert_eq(tdoc_draw(&d, &c, 0, 0, 2, 10, 1, 1, -1), 4);
	expect_canvas(&c, "  abcdefgh|\n"
			  "  ijklmnop|\n");
	canvas_clear(&c, ROLE_NORMAL);
	tdoc_draw(&d, &c, 0, 0, 2, 10, 3, 1, -1);
	expect_canvas(&c, "next      |\n"
			  "          |\n");
	canvas_clear(&c, ROLE_NORMAL);
	tdoc_draw(&d, &c, 0, 0, 2, 10, 4, 1, -1);
	expect_canvas(&c, "          |\n"
			  "          |\n");
	canvas_free(&c);
	tdoc_free(&d);
}

Test(tdoc, line_at_row)
{
	struct tdoc d;
	tdoc_init(&d);
	tdoc_add(&d, ROLE_NORMAL, "aaaaaaaaaaaaaaaaaaaa"); /* 20 at width 10: 10 + 8 + 2 = 3 rows */
	tdoc_nl(&d);
	tdoc_add(&d, ROLE_NORMAL, "b");
	tdoc_nl(&d); /* an empty line */
	tdoc_nl(&d);
	tdoc_add(&d, ROLE_NORMAL, "cccccccccccc"); /* 12: 2 rows */
	size_t want[] = {0, 0, 0, 1, 2, 3, 3};
	for (size_t r = 0; r < 7; r++)
		cr_assert_eq(tdoc_line_at_row(&d, 10, 1, r), want[r], "row %zu", r);
	cr_assert_eq(tdoc_line_at_row(&d, 10, 1, 7), SIZE_MAX);
	cr_assert_eq(tdoc_line_at_row(&d, 10, 1, 1000), SIZE_MAX);
	for (size_t r = 0; r < 4; r++)
		cr_assert_eq(tdoc_line_at_row(&d, 10, 0, r), r, "unwrapped row %zu", r);
	cr_assert_eq(tdoc_line_at_row(&d, 10, 0, 4), SIZE_MAX);
	struct tdoc e;
	tdoc_init(&e);
	cr_assert_eq(tdoc_line_at_row(&e, 10, 1, 0), SIZE_MAX);
	cr_assert_eq(tdoc_rows(&e, 10, 1), 0);
	tdoc_free(&d);
}

Test(tdoc, cursor_row)
{
	struct tdoc d;
	tdoc_init(&d);
	tdoc_add(&d, ROLE_DIM, "first");
	tdoc_nl(&d);
	tdoc_add(&d, ROLE_NORMAL, "0123456789ab"); /* 2 rows at width 8 */
	tdoc_nl(&d);
	tdoc_add(&d, ROLE_ERROR, "third");
	struct canvas c;
	canvas_init(&c, 10, 4);
	/* The cursor is a row: the whole width of it, continuation included. */
	tdoc_draw(&d, &c, 0, 1, 4, 8, 0, 1, 2);
	expect_canvas(&c, " {dim:first}    |\n"
			  " 01234567 |\n"
			  " {selected:  89ab  } |\n"
			  " {error:third}    |\n");
	/* Scrolled: the cursor row is counted in document rows, not screen rows. */
	canvas_clear(&c, ROLE_NORMAL);
	tdoc_draw(&d, &c, 0, 1, 4, 8, 1, 1, 1);
	expect_canvas(&c, " {selected:01234567} |\n"
			  "   89ab   |\n"
			  " {error:third}    |\n"
			  "          |\n");
	/* Off the window, or -1: no cursor drawn. */
	canvas_clear(&c, ROLE_NORMAL);
	tdoc_draw(&d, &c, 0, 1, 2, 8, 0, 1, 3);
	char *got = dump(&c);
	cr_assert(!strstr(got, "selected"), "%s", got);
	free(got);
	canvas_clear(&c, ROLE_NORMAL);
	tdoc_draw(&d, &c, 0, 1, 4, 8, 0, 1, -1);
	got = dump(&c);
	cr_assert(!strstr(got, "selected"), "%s", got);
	free(got);
	canvas_free(&c);
	tdoc_free(&d);
}

Test(tdoc, drawing_stays_in_its_rectangle)
{
	struct tdoc d;
	tdoc_init(&d);
	for (int i = 0; i < 10; i++) {
		tdoc_nl(&d);
		tdoc_addf(&d, ROLE_NORMAL, "line %d is long enough to wrap twice at least", i);
	}
	struct canvas c;
	canvas_init(&c, 20, 8);
	canvas_clear(&c, ROLE_BORDER);
	tdoc_draw(&d, &c, 2, 3, 4, 12, 0, 1, 1);
	for (int y = 0; y < 8; y++)
		for (int x = 0; x < 20; x++) {
			int inside = y >= 2 && y < 6 && x >= 3 && x < 15;
			const struct cell *k = canvas_at(&c, y, x);
			if (!inside)
				cr_assert(k->ch == ' ' && k->role == ROLE_BORDER, "cell %d,%d was drawn", y, x);
		}
	canvas_free(&c);
	tdoc_free(&d);
}

/*==== rows agree with drawing; nothing is lost at the wrap edge ====*/

static uint64_t rng = 88172645463325252ull;

static uint64_t next(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

/* The characters a random line is made of: narrow, wide (2 columns), and a combining mark
 * (0 columns, dropped by the canvas). No blanks, so a row's text is its non-blank cells. */
static const char *pieces[] = {"a", "b", "Z", "\xc3\xa9", "\xe6\xbc\xa2", "\xf0\x9f\x98\x80", "\xef\xbc\xa1", "7"};

/* The text of a row as drawn in [x, x+w): characters, no blanks, no continuation cells. */
static void row_text(const struct canvas *c, int y, int x, int w, struct buf *out)
{
	for (int i = x; i < x + w; i++) {
		uint32_t ch = canvas_at(c, y, i)->ch;
		if (ch == 0 || ch == ' ')
			continue;
		char u[4];
		size_t n = canvas_utf8(ch, u);
		buf_append(out, u, n);
	}
}

Test(tdoc, rows_agree_with_drawing_and_nothing_is_lost)
{
	for (int iter = 0; iter < 400; iter++) {
		struct tdoc d;
		tdoc_init(&d);
		int nlines = 1 + (int)(next() % 6);
		struct buf *texts = calloc((size_t)nlines, sizeof *texts);
		for (int i = 0; i < nlines; i++) {
			tdoc_nl(&d);
			int len = (int)(next() % 40);
			for (int k = 0; k < len; k++) {
				const char *p = pieces[next() % 8];
				enum role r = next() % 3 == 0 ? ROLE_DIM : ROLE_NORMAL;
				tdoc_add(&d, r, p);
				buf_puts(&texts[i], p);
			}
			buf_cstr(&texts[i]);
		}
		int w = 4 + (int)(next() % 14); /* continuation rows have room for a wide character */
		size_t rows = tdoc_rows(&d, w, 1);
		struct canvas c;
		canvas_init(&c, w + 2, (int)rows + 2);
		size_t drawn = tdoc_draw(&d, &c, 0, 1, (int)rows + 2, w, 0, 1, -1);
		cr_assert_eq(drawn, rows, "iter %d w %d: tdoc_draw counts %zu rows, tdoc_rows %zu", iter, w, drawn, rows);
		/* The line at each row, and each line's rows joined give back its text. */
		size_t r = 0;
		for (int i = 0; i < nlines; i++) {
			struct buf got = {0};
			size_t first = r;
			while (r < rows && tdoc_line_at_row(&d, w, 1, r) == (size_t)i) {
				cr_assert(r == first || (canvas_at(&c, (int)r, 1)->ch == ' ' && canvas_at(&c, (int)r, 2)->ch == ' '),
					  "iter %d: a continuation row starts with 2 blanks", iter);
				row_text(&c, (int)r, 1, w, &got);
				r++;
			}
			cr_assert(r > first, "iter %d: line %d has a row", iter, i);
			buf_cstr(&got);
			cr_assert_str_eq(got.p, texts[i].p, "iter %d w %d line %d: drawn '%s', text '%s'", iter, w, i, got.p,
					 texts[i].p);
			buf_free(&got);
		}
		cr_assert_eq(r, rows);
		/* Nothing past the rows, nothing outside the columns. */
		for (int y = 0; y < (int)rows + 2; y++) {
			cr_assert_eq(canvas_at(&c, y, 0)->ch, ' ');
			cr_assert_eq(canvas_at(&c, y, w + 1)->ch, ' ', "iter %d w %d: column past the width drawn", iter, w);
		}
		/* One row at a time (top = r, h = 1) draws the same as the whole. */
		for (size_t k = 0; k < rows; k++) {
			struct canvas one;
			canvas_init(&one, w + 2, 1);
			tdoc_draw(&d, &one, 0, 1, 1, w, k, 1, -1);
			for (int x = 0; x < w + 2; x++)
				cr_assert(canvas_at(&one, 0, x)->ch == canvas_at(&c, (int)k, x)->ch &&
					  canvas_at(&one, 0, x)->role == canvas_at(&c, (int)k, x)->role,
					  "iter %d: row %zu drawn alone differs at column %d", iter, k, x);
			canvas_free(&one);
		}
		canvas_free(&c);
		for (int i = 0; i < nlines; i++)
			buf_free(&texts[i]);
		free(texts);
		tdoc_free(&d);
	}
}

Test(tdoc, a_wide_character_on_the_wrap_edge_moves_to_the_next_row)
{
	struct tdoc d;
	tdoc_init(&d);
	tdoc_add(&d, ROLE_NORMAL, "abcd\xe6\xbc\xa2xyz"); /* the wide character would straddle column 5 */
	struct canvas c;
	canvas_init(&c, 5, 3);
	size_t rows = tdoc_rows(&d, 5, 1);
	cr_assert_eq(tdoc_draw(&d, &c, 0, 0, 3, 5, 0, 1, -1), rows);
	expect_canvas(&c, "abcd |\n"
			  "  \xe6\xbc\xa2x|\n"
			  "  yz |\n");
	canvas_free(&c);
	tdoc_free(&d);
}

Test(tdoc, tiny_widths_do_not_crash)
{
	struct tdoc d;
	tdoc_init(&d);
	tdoc_add(&d, ROLE_NORMAL, "abcdef\xe6\xbc\xa2g");
	for (int w = 1; w <= 4; w++) {
		struct canvas c;
		canvas_init(&c, 6, 12);
		size_t rows = tdoc_rows(&d, w, 1);
		cr_assert(rows >= 1 && rows <= 12, "w %d: %zu rows", w, rows);
		cr_assert_eq(tdoc_draw(&d, &c, 0, 0, 12, w, 0, 1, 0), rows, "w %d", w);
		for (int y = 0; y < 12; y++)
			for (int x = w; x < 6; x++)
				cr_assert_eq(canvas_at(&c, y, x)->ch, ' ', "w %d: drawn outside at %d,%d", w, y, x);
		canvas_free(&c);
	}
	tdoc_free(&d);
}
