/* test_canvas.c - the cell grid: clipping at every edge, wide characters (also cut by an
 * edge), what never reaches the grid (invalid UTF-8, C0/C1 controls, DEL), ellipsis fitting,
 * boxes, and the golden dump format byte for byte. */
#include <criterion/criterion.h>
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf.h"
#include "tui/canvas.h"
#include "tui/glyphs.h"

static void setup(void)
{
	cr_assert_not_null(setlocale(LC_ALL, "C.UTF-8"), "C.UTF-8 locale missing");
	glyphs_set_ascii(0);
}

TestSuite(canvas, .init = setup);

static void expect_dump(const struct canvas *c, const char *want)
{
	struct buf b = {0};
	canvas_dump(c, &b);
	cr_assert_str_eq(buf_cstr(&b), want, "dump:\n%s\nwant:\n%s", buf_cstr(&b), want);
	buf_free(&b);
}

/* Every cell holds a printable character, a continuation right of a wide one, and no
 * control character of any kind. */
static void assert_clean(const struct canvas *c)
{
	for (int y = 0; y < c->h; y++)
		for (int x = 0; x < c->w; x++) {
			uint32_t ch = canvas_at(c, y, x)->ch;
			cr_assert(ch == 0 || (ch >= 0x20 && ch != 0x7F && !(ch >= 0x80 && ch < 0xA0)),
				  "cell %d,%d holds U+%04X", y, x, ch);
			if (ch == 0)
				cr_assert(x > 0 && canvas_at(c, y, x - 1)->ch != 0, "orphan continuation at %d,%d", y,
					  x);
		}
}

Test(canvas, init_dump_and_roles)
{
	struct canvas c;
	canvas_init(&c, 6, 2);
	expect_dump(&c, "      |\n      |\n");
	cr_assert_eq(canvas_text(&c, 0, 1, -1, ROLE_NORMAL, "hi"), 2);
	canvas_text(&c, 1, 0, -1, ROLE_ERROR, "err");
	canvas_text(&c, 1, 3, -1, ROLE_DIM, "x");
	expect_dump(&c, " hi   |\n{error:err}{dim:x}  |\n");
	struct buf b = {0};
	canvas_dump_text(&c, &b);
	cr_assert_str_eq(buf_cstr(&b), " hi   \nerrx  \n");
	buf_free(&b);
	canvas_free(&c);
	canvas_free(&c);
}

Test(canvas, dump_escapes_braces_and_backslash)
{
	struct canvas c;
	canvas_init(&c, 8, 1);
	canvas_text(&c, 0, 0, -1, ROLE_NORMAL, "{a}\\");
	canvas_text(&c, 0, 4, -1, ROLE_JSON_PUNCT, "{}");
	expect_dump(&c, "\\{a\\}\\\\{json.punct:\\{\\}}  |\n");
	struct buf b = {0};
	canvas_dump_text(&c, &b);
	cr_assert_str_eq(buf_cstr(&b), "{a}\\{}  \n");
	buf_free(&b);
	canvas_free(&c);
}

Test(canvas, clipping_right_and_maxw)
{
	struct canvas c;
	canvas_init(&c, 5, 1);
	cr_assert_eq(canvas_text(&c, 0, 2, -1, ROLE_NORMAL, "abcdefgh"), 3);
	expect_dump(&c, "  abc|\n");
	canvas_clear(&c, ROLE_NORMAL);
	cr_assert_eq(canvas_text(&c, 0, 0, 2, ROLE_NORMAL, "abcdefgh"), 2);
	expect_dump(&c, "ab   |\n");
	/* maxw larger than the canvas: drawn up to the edge, nothing beyond it */
	canvas_clear(&c, ROLE_NORMAL);
	canvas_text(&c, 0, 3, 100, ROLE_NORMAL, "xyz");
	expect_dump(&c, "   xy|\n");
	/* a start beyond the right edge */
	canvas_clear(&c, ROLE_NORMAL);
	cr_assert_eq(canvas_text(&c, 0, 5, -1, ROLE_NORMAL, "q"), 0);
	canvas_text(&c, 0, 99, 3, ROLE_NORMAL, "q");
	expect_dump(&c, "     |\n");
	canvas_free(&c);
}

Test(canvas, clipping_left_top_bottom)
{
	struct canvas c;
	canvas_init(&c, 5, 2);
	canvas_text(&c, 0, -2, -1, ROLE_NORMAL, "abcd");
	canvas_text(&c, -1, 0, -1, ROLE_NORMAL, "above");
	canvas_text(&c, 2, 0, -1, ROLE_NORMAL, "below");
	canvas_text(&c, 1, -100, 3, ROLE_NORMAL, "far");
	expect_dump(&c, "cd   |\n     |\n");
	/* fills, lines and boxes half outside */
	canvas_fill(&c, -1, -1, 2, 3, '#', ROLE_BORDER);
	canvas_fill(&c, 1, 3, 5, 5, '*', ROLE_NORMAL);
	expect_dump(&c, "{border:##}   |\n   **|\n");
	canvas_clear(&c, ROLE_NORMAL);
	canvas_box(&c, -1, -1, 3, 5, ROLE_NORMAL, NULL);
	expect_dump(&c, "   │ |\n───┘ |\n");
	canvas_clear(&c, ROLE_NORMAL);
	canvas_box(&c, -1, -1, 4, 7, ROLE_NORMAL, "hidden");
	expect_dump(&c, "     |\n     |\n");
	canvas_clear(&c, ROLE_NORMAL);
	canvas_hline(&c, 1, 3, 10, ROLE_NORMAL);
	canvas_vline(&c, -5, 0, 100, ROLE_NORMAL);
	canvas_set_role(&c, 0, -3, 5, ROLE_DIM);
	canvas_set_role(&c, 7, 0, 5, ROLE_DIM);
	expect_dump(&c, "{dim:│ }   |\n│  ──|\n");
	cr_assert_null(canvas_at(&c, -1, 0));
	cr_assert_null(canvas_at(&c, 0, 5));
	cr_assert_null(canvas_at(&c, 2, 0));
	cr_assert_not_null(canvas_at(&c, 1, 4));
	canvas_free(&c);
}

Test(canvas, empty_canvas)
{
	struct canvas c;
	canvas_init(&c, 0, 3);
	canvas_text(&c, 0, 0, -1, ROLE_NORMAL, "x");
	canvas_box(&c, 0, 0, 3, 3, ROLE_NORMAL, "t");
	expect_dump(&c, "|\n|\n|\n");
	canvas_resize(&c, 2, 1);
	expect_dump(&c, "  |\n");
	canvas_free(&c);
}

Test(canvas, wide_characters)
{
	struct canvas c;
	canvas_init(&c, 5, 1);
	cr_assert_eq(canvas_width("日本"), 4);
	cr_assert_eq(canvas_text(&c, 0, 0, -1, ROLE_NORMAL, "日本"), 4);
	cr_assert_eq(canvas_at(&c, 0, 0)->ch, 0x65E5);
	cr_assert_eq(canvas_at(&c, 0, 1)->ch, 0);
	expect_dump(&c, "日本 |\n");
	assert_clean(&c);

	/* straddling the right edge of the canvas: a space in the last column */
	canvas_clear(&c, ROLE_NORMAL);
	cr_assert_eq(canvas_text(&c, 0, 0, -1, ROLE_ERROR, "日本語"), 5);
	expect_dump(&c, "{error:日本 }|\n");
	/* straddling maxw */
	canvas_clear(&c, ROLE_NORMAL);
	cr_assert_eq(canvas_text(&c, 0, 0, 3, ROLE_ERROR, "日本"), 3);
	expect_dump(&c, "{error:日 }  |\n");
	/* straddling the left edge: the visible right half becomes a space */
	canvas_clear(&c, ROLE_NORMAL);
	canvas_text(&c, 0, -1, -1, ROLE_ERROR, "日本");
	expect_dump(&c, "{error: 本}  |\n");
	assert_clean(&c);

	/* overwriting half of a wide character blanks its other half */
	canvas_clear(&c, ROLE_NORMAL);
	canvas_text(&c, 0, 0, -1, ROLE_NORMAL, "日");
	canvas_text(&c, 0, 1, -1, ROLE_NORMAL, "x");
	expect_dump(&c, " x   |\n");
	assert_clean(&c);
	canvas_clear(&c, ROLE_NORMAL);
	canvas_text(&c, 0, 1, -1, ROLE_NORMAL, "日");
	canvas_text(&c, 0, 1, -1, ROLE_NORMAL, "y");
	expect_dump(&c, " y   |\n");
	assert_clean(&c);
	canvas_clear(&c, ROLE_NORMAL);
	canvas_text(&c, 0, 0, -1, ROLE_NORMAL, "日本");
	canvas_text(&c, 0, 1, -1, ROLE_NORMAL, "語");
	expect_dump(&c, " 語  |\n");
	assert_clean(&c);
	canvas_fill(&c, 0, 2, 1, 1, '-', ROLE_NORMAL);
	expect_dump(&c, "  -  |\n");
	assert_clean(&c);

	/* an emoji outside the BMP is wide too; a wide fill character is refused (space) */
	canvas_clear(&c, ROLE_NORMAL);
	canvas_text(&c, 0, 0, -1, ROLE_NORMAL, "\xF0\x9F\x98\x80!");
	expect_dump(&c, "\xF0\x9F\x98\x80!  |\n");
	canvas_fill(&c, 0, 0, 1, 5, 0x65E5, ROLE_NORMAL);
	expect_dump(&c, "     |\n");
	canvas_free(&c);
}

Test(canvas, invalid_utf8_and_controls_never_reach_the_grid)
{
	struct canvas c;
	canvas_init(&c, 12, 1);
	canvas_text(&c, 0, 0, -1, ROLE_NORMAL,
		    "a\xFF"
		    "b\x1b[31m");
	expect_dump(&c, "a\xEF\xBF\xBD"
			"b\xEF\xBF\xBD[31m    |\n");
	canvas_clear(&c, ROLE_NORMAL);
	/* CR, BS, BEL, DEL, C1 CSI as UTF-8 (U+009B) and as a raw byte, a tab */
	canvas_text(&c, 0, 0, -1, ROLE_NORMAL, "\r\b\a\x7f\xC2\x9B\x9B\tz");
	expect_dump(&c, "\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD z    |\n");
	/* overlong '/', a surrogate, beyond U+10FFFF, a truncated sequence at the end */
	canvas_clear(&c, ROLE_NORMAL);
	canvas_text(&c, 0, 0, -1, ROLE_NORMAL, "\xC0\xAF|\xED\xA0\x80|\xF4\x90\x80\x80|\xE6\x97");
	struct buf b = {0};
	canvas_dump_text(&c, &b);
	const char *r = "\xEF\xBF\xBD";
	char want[256];
	snprintf(want, sizeof want, "%s%s|%s%s%s|%s%s%s%s|\n", r, r, r, r, r, r, r, r, r);
	/* 12 columns: 2 + 1 + 3 + 1 + 4 + 1 = 12, the truncated tail is clipped */
	cr_assert_str_eq(buf_cstr(&b), want);
	buf_free(&b);
	/* 3- and 4-byte overlongs: one U+FFFD per byte, never the character they spell */
	cr_assert_eq(canvas_width("\xE0\x80\xAF"), 3);
	cr_assert_eq(canvas_width("\xF0\x82\x82\xAC"), 4);
	canvas_clear(&c, ROLE_NORMAL);
	canvas_text(&c, 0, 0, -1, ROLE_NORMAL, "\xE0\x80\x9B");
	assert_clean(&c);
	cr_assert_eq(canvas_at(&c, 0, 0)->ch, 0xFFFD);
	cr_assert_eq(canvas_at(&c, 0, 1)->ch, 0xFFFD);
	/* NUL inside a counted string */
	canvas_clear(&c, ROLE_NORMAL);
	cr_assert_eq(canvas_textn(&c, 0, 0, -1, ROLE_NORMAL, "a\0b", 3), 3);
	expect_dump(&c, "a\xEF\xBF\xBD"
			"b         |\n");
	/* zero-width characters are dropped: a combining accent, a bidi override */
	canvas_clear(&c, ROLE_NORMAL);
	cr_assert_eq(canvas_width("e\xCC\x81\xE2\x80\xAE"), 1);
	canvas_text(&c, 0, 0, -1, ROLE_NORMAL, "e\xCC\x81\xE2\x80\xAEx");
	expect_dump(&c, "ex          |\n");
	canvas_free(&c);
}

Test(canvas, random_bytes_leave_only_printable_cells)
{
	struct canvas c;
	canvas_init(&c, 17, 3);
	unsigned seed = 12345;
	char s[64];
	for (int round = 0; round < 3000; round++) {
		size_t n = (size_t)(rand_r(&seed) % 63);
		for (size_t i = 0; i < n; i++) {
			int k = rand_r(&seed) % 4;
			s[i] = (char)(k == 0   ? rand_r(&seed) % 0x20
				      : k == 1 ? 0x80 + rand_r(&seed) % 0x80
					       : rand_r(&seed) % 256);
		}
		int y = rand_r(&seed) % 5 - 1, x = rand_r(&seed) % 23 - 3, w = rand_r(&seed) % 22 - 1;
		canvas_textn(&c, y, x, w, (enum role)(rand_r(&seed) % ROLE_COUNT), s, n);
		s[n] = '\0';
		if (round % 3 == 0)
			canvas_text_fit(&c, y, x, w, ROLE_NORMAL, s, round % 2);
		if (round % 7 == 0)
			canvas_text_right(&c, y, x, w, ROLE_NORMAL, s);
		assert_clean(&c);
	}
	canvas_free(&c);
}

Test(canvas, text_fit_and_right)
{
	struct canvas c;
	canvas_init(&c, 8, 1);
	cr_assert_eq(canvas_text_fit(&c, 0, 0, 4, ROLE_NORMAL, "abcdef", 0), 4);
	expect_dump(&c, "abc…    |\n");
	canvas_clear(&c, ROLE_NORMAL);
	cr_assert_eq(canvas_text_fit(&c, 0, 1, 4, ROLE_ERROR, "ab", 1), 4);
	expect_dump(&c, " {error:ab  }   |\n");
	canvas_clear(&c, ROLE_NORMAL);
	cr_assert_eq(canvas_text_fit(&c, 0, 1, 4, ROLE_ERROR, "ab", 0), 2);
	cr_assert_eq(canvas_text_fit(&c, 0, 0, 4, ROLE_NORMAL, "abcd", 0), 4);
	expect_dump(&c, "abcd    |\n");
	/* a wide character that does not fit before the ellipsis is not cut in half */
	canvas_clear(&c, ROLE_NORMAL);
	cr_assert_eq(canvas_text_fit(&c, 0, 0, 4, ROLE_NORMAL, "日本語", 0), 3);
	expect_dump(&c, "日…     |\n");
	canvas_clear(&c, ROLE_NORMAL);
	cr_assert_eq(canvas_text_fit(&c, 0, 0, 4, ROLE_DIM, "日本語", 1), 4);
	expect_dump(&c, "{dim:日… }    |\n");
	/* widths of 1 and 0 */
	canvas_clear(&c, ROLE_NORMAL);
	cr_assert_eq(canvas_text_fit(&c, 0, 0, 1, ROLE_NORMAL, "abc", 0), 1);
	cr_assert_eq(canvas_text_fit(&c, 0, 2, 0, ROLE_NORMAL, "abc", 1), 0);
	expect_dump(&c, "…       |\n");
	/* to the right edge */
	canvas_clear(&c, ROLE_NORMAL);
	cr_assert_eq(canvas_text_fit(&c, 0, 5, -1, ROLE_NORMAL, "abcdef", 0), 3);
	expect_dump(&c, "     ab…|\n");
	/* ASCII glyphs */
	glyphs_set_ascii(1);
	canvas_clear(&c, ROLE_NORMAL);
	canvas_text_fit(&c, 0, 0, 4, ROLE_NORMAL, "abcdef", 0);
	expect_dump(&c, "abc~    |\n");
	glyphs_set_ascii(0);

	canvas_clear(&c, ROLE_NORMAL);
	cr_assert_eq(canvas_text_right(&c, 0, 0, 5, ROLE_NORMAL, "ab"), 2);
	expect_dump(&c, "   ab   |\n");
	canvas_clear(&c, ROLE_NORMAL);
	cr_assert_eq(canvas_text_right(&c, 0, 0, -1, ROLE_NORMAL, "12ms"), 4);
	expect_dump(&c, "    12ms|\n");
	canvas_clear(&c, ROLE_NORMAL);
	cr_assert_eq(canvas_text_right(&c, 0, 1, 4, ROLE_NORMAL, "日本語"), 3);
	expect_dump(&c, "  日…   |\n");
	canvas_clear(&c, ROLE_NORMAL);
	cr_assert_eq(canvas_textf(&c, 0, 0, -1, ROLE_NORMAL, "%d/%s", 42, "x"), 4);
	expect_dump(&c, "42/x    |\n");
	canvas_free(&c);
}

Test(canvas, box_with_title)
{
	struct canvas c;
	canvas_init(&c, 6, 4);
	canvas_box(&c, 0, 0, 4, 6, ROLE_BORDER, "T");
	expect_dump(&c, "{border:┌}{title: T }{border:─┐}|\n"
			"{border:│}    {border:│}|\n"
			"{border:│}    {border:│}|\n"
			"{border:└────┘}|\n");
	canvas_clear(&c, ROLE_NORMAL);
	canvas_box(&c, 0, 0, 3, 6, ROLE_NORMAL, "Title");
	expect_dump(&c, "┌{title: Ti…}┐|\n"
			"│    │|\n"
			"└────┘|\n"
			"      |\n");
	glyphs_set_ascii(1);
	canvas_clear(&c, ROLE_NORMAL);
	canvas_box(&c, 1, 1, 3, 4, ROLE_NORMAL, NULL);
	canvas_box(&c, 0, 0, 1, 3, ROLE_NORMAL, NULL);
	expect_dump(&c, "---   |\n"
			" +--+ |\n"
			" |  | |\n"
			" +--+ |\n");
	glyphs_set_ascii(0);
	canvas_free(&c);
}

Test(canvas, widths)
{
	cr_assert_eq(canvas_width(""), 0);
	cr_assert_eq(canvas_width(NULL), 0);
	cr_assert_eq(canvas_width("abc"), 3);
	cr_assert_eq(canvas_width("a\tb"), 3);
	cr_assert_eq(canvas_width("\x1b"), 1);
	cr_assert_eq(canvas_width("héllo"), 5);
	cr_assert_eq(canvas_width("✓✗"), 2);
	cr_assert_eq(canvas_width("\xFF\xFE"), 2);
}

Test(canvas, c_locale_counts_each_character_as_one_column)
{
	cr_assert_not_null(setlocale(LC_ALL, "C"));
	cr_assert_eq(canvas_width("日本"), 2);
	struct canvas c;
	canvas_init(&c, 3, 1);
	canvas_text(&c, 0, 0, -1, ROLE_NORMAL, "日\x1b\xC2\x9B");
	expect_dump(&c, "日\xEF\xBF\xBD\xEF\xBF\xBD|\n");
	assert_clean(&c);
	canvas_free(&c);
}
