/* canvas.c - the off-screen cell grid panes draw into, and its golden text dump.
 *
 * Text is decoded by the strict UTF-8 decoder of common/termsafe.h (no mbrtowc, so the
 * result does not depend on the locale's codeset), and judged by its definition of what must
 * not reach a terminal (the one the CLI escapes by): each invalid byte becomes U+FFFD, and so
 * do C0 controls, DEL and C1 controls (a tab becomes one space), so nothing a server sends
 * reaches the terminal as a control sequence; bidi controls and invisible format characters
 * are dropped in any locale. Widths come from wcwidth(), which needs a UTF-8 LC_CTYPE:
 * in a single-byte locale (C/POSIX, MB_CUR_MAX == 1) glibc's wcwidth() returns -1 for every
 * non-ASCII character, so there each one counts as one column (term.c draws them as '?'
 * there anyway). In a UTF-8 locale a character wcwidth() calls unprintable is drawn as
 * U+FFFD, a zero-width one (combining marks, bidi controls, ZWJ) is dropped.
 *
 * Must not: call curses or write to the terminal (term.c copies a canvas out), print
 * anything. Threads: one canvas belongs to one thread. */
#include "tui/canvas.h"

#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include "common/termsafe.h"
#include "common/xalloc.h"
#include "tui/glyphs.h"

#define REPLACEMENT TERMSAFE_REPLACEMENT

/*==== decoding and measuring ====*/

static size_t utf8_decode(const unsigned char *s, size_t n, uint32_t *out)
{
	return termsafe_decode(s, n, out, NULL);
}

/* What to draw for *cp and how many columns it takes (0: drop it). Rewrites *cp: a tab to
 * a space, controls and unprintable characters to U+FFFD. */
static int char_width(uint32_t *cp)
{
	uint32_t c = *cp;
	if (c == '\t') {
		*cp = ' ';
		return 1;
	}
	switch (termsafe_class(c)) {
	case TERMSAFE_CONTROL:
		*cp = REPLACEMENT;
		return 1;
	case TERMSAFE_INVISIBLE:
		return 0; /* bidi and zero-width controls: dropped, whatever wcwidth says */
	case TERMSAFE_PRINT:
		break;
	}
	if (c < 0x7F)
		return 1;
	int w = wcwidth((wchar_t)c);
	if (w >= 0)
		return w > 2 ? 2 : w;
	if (MB_CUR_MAX == 1)
		return 1; /* a single-byte locale: wcwidth knows nothing beyond ASCII */
	*cp = REPLACEMENT;
	return 1;
}

size_t canvas_utf8(uint32_t cp, char out[4])
{
	if (cp < 0x80) {
		out[0] = (char)cp;
		return 1;
	}
	if (cp < 0x800) {
		out[0] = (char)(0xC0 | (cp >> 6));
		out[1] = (char)(0x80 | (cp & 0x3F));
		return 2;
	}
	if (cp < 0x10000) {
		out[0] = (char)(0xE0 | (cp >> 12));
		out[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
		out[2] = (char)(0x80 | (cp & 0x3F));
		return 3;
	}
	out[0] = (char)(0xF0 | (cp >> 18));
	out[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
	out[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
	out[3] = (char)(0x80 | (cp & 0x3F));
	return 4;
}

/* The first character of a glyph as a code point (glyphs are one character). */
static uint32_t glyph_cp(enum glyph g)
{
	const char *s = glyph(g);
	uint32_t cp = ' ';
	if (*s)
		utf8_decode((const unsigned char *)s, strlen(s), &cp);
	return cp;
}

int canvas_width(const char *utf8)
{
	if (!utf8)
		return 0;
	const unsigned char *s = (const unsigned char *)utf8;
	size_t n = strlen(utf8), i = 0;
	int w = 0;
	while (i < n) {
		uint32_t cp;
		i += utf8_decode(s + i, n - i, &cp);
		w += char_width(&cp);
	}
	return w;
}

/*==== the grid ====*/

void canvas_init(struct canvas *c, int w, int h)
{
	c->w = w > 0 ? w : 0;
	c->h = h > 0 ? h : 0;
	c->cells = NULL;
	if (c->w && c->h)
		c->cells = xcalloc((size_t)c->w * (size_t)c->h, sizeof *c->cells);
	canvas_clear(c, ROLE_NORMAL);
}

void canvas_resize(struct canvas *c, int w, int h)
{
	canvas_free(c);
	canvas_init(c, w, h);
}

void canvas_free(struct canvas *c)
{
	if (!c)
		return;
	free(c->cells);
	c->cells = NULL;
	c->w = c->h = 0;
}

void canvas_clear(struct canvas *c, enum role r)
{
	size_t n = (size_t)c->w * (size_t)c->h;
	for (size_t i = 0; i < n; i++) {
		c->cells[i].ch = ' ';
		c->cells[i].role = (uint8_t)r;
	}
}

const struct cell *canvas_at(const struct canvas *c, int y, int x)
{
	if (y < 0 || y >= c->h || x < 0 || x >= c->w)
		return NULL;
	return &c->cells[(size_t)y * (size_t)c->w + (size_t)x];
}

/* Before cell x of row is overwritten: a wide character it is half of loses its other
 * half too (that half becomes a space), so no cell is ever half of a broken pair. */
static void unpair(struct canvas *c, struct cell *row, int x)
{
	if (row[x].ch == 0 && x > 0)
		row[x - 1].ch = ' ';
	if (x + 1 < c->w && row[x + 1].ch == 0)
		row[x + 1].ch = ' ';
}

/* Puts a character of width w (1 or 2) whose first column is col, clipped to the canvas:
 * a wide character cut by an edge leaves a space in the half that is visible. */
static void put(struct canvas *c, int y, long col, uint32_t ch, int w, enum role r)
{
	if (y < 0 || y >= c->h)
		return;
	struct cell *row = &c->cells[(size_t)y * (size_t)c->w];
	int l_in = col >= 0 && col < c->w;
	if (w == 2) {
		int r_in = col + 1 >= 0 && col + 1 < c->w;
		if (l_in && r_in) {
			unpair(c, row, (int)col);
			unpair(c, row, (int)col + 1);
			row[col].ch = ch;
			row[col].role = (uint8_t)r;
			row[col + 1].ch = 0;
			row[col + 1].role = (uint8_t)r;
			return;
		}
		if (r_in) {
			col++;
			l_in = 1;
		}
		ch = ' ';
	}
	if (!l_in)
		return;
	unpair(c, row, (int)col);
	row[col].ch = ch;
	row[col].role = (uint8_t)r;
}

/* Draws s[0..n) from column x of row y up to column end (exclusive). A character that does
 * not fit whole before `end` stops drawing; unless whole_only, a wide one cut by `end` first
 * leaves a space in the last column. A row outside the canvas draws nothing but measures
 * all the same. Returns the columns advanced. */
static int draw(struct canvas *c, int y, long x, long end, enum role r, const char *str, size_t n, int whole_only)
{
	const unsigned char *s = (const unsigned char *)str;
	long col = x;
	size_t i = 0;
	while (i < n && col < end) {
		uint32_t cp;
		i += utf8_decode(s + i, n - i, &cp);
		int w = char_width(&cp);
		if (w == 0)
			continue;
		if (col + w > end) {
			if (!whole_only)
				for (; col < end; col++)
					put(c, y, col, ' ', 1, r);
			break;
		}
		put(c, y, col, cp, w, r);
		col += w;
	}
	return (int)(col - x);
}

static long clip_end(const struct canvas *c, int x, int maxw)
{
	return maxw < 0 ? (long)c->w : (long)x + maxw;
}

int canvas_text(struct canvas *c, int y, int x, int maxw, enum role r, const char *utf8)
{
	if (!utf8)
		return 0;
	return draw(c, y, x, clip_end(c, x, maxw), r, utf8, strlen(utf8), 0);
}

int canvas_textn(struct canvas *c, int y, int x, int maxw, enum role r, const char *s, size_t n)
{
	if (!s)
		return 0;
	return draw(c, y, x, clip_end(c, x, maxw), r, s, n, 0);
}

int canvas_textf(struct canvas *c, int y, int x, int maxw, enum role r, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *s = xvasprintf(fmt, ap);
	va_end(ap);
	int used = canvas_text(c, y, x, maxw, r, s);
	free(s);
	return used;
}

int canvas_text_fit(struct canvas *c, int y, int x, int maxw, enum role r, const char *utf8, int pad)
{
	if (maxw < 0)
		maxw = c->w - x;
	if (maxw <= 0)
		return 0;
	if (!utf8)
		utf8 = "";
	size_t n = strlen(utf8);
	int used;
	if (canvas_width(utf8) <= maxw) {
		used = draw(c, y, x, (long)x + maxw, r, utf8, n, 0);
	} else {
		const char *ell = glyph(G_ELLIPSIS);
		int ew = canvas_width(ell);
		used = 0;
		if (maxw > ew)
			used = draw(c, y, x, (long)x + maxw - ew, r, utf8, n, 1);
		used += draw(c, y, (long)x + used, (long)x + maxw, r, ell, strlen(ell), 0);
	}
	if (pad) {
		for (long col = (long)x + used; col < (long)x + maxw; col++)
			put(c, y, col, ' ', 1, r);
		used = maxw;
	}
	return used;
}

/* The byte offset in s[0..n) where the shortest suffix at most tw columns wide begins. */
static size_t suffix_start(const char *str, size_t n, int total, int tw)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t i = 0;
	while (i < n && total > tw) {
		uint32_t cp;
		i += utf8_decode(s + i, n - i, &cp);
		total -= char_width(&cp);
	}
	return i;
}

int canvas_text_mid(struct canvas *c, int y, int x, int maxw, enum role r, const char *utf8)
{
	if (maxw < 0)
		maxw = c->w - x;
	if (maxw <= 0 || !utf8)
		return 0;
	size_t n = strlen(utf8);
	int total = canvas_width(utf8);
	if (total <= maxw)
		return draw(c, y, x, (long)x + maxw, r, utf8, n, 0);
	const char *ell = glyph(G_ELLIPSIS);
	int ew = canvas_width(ell);
	if (maxw <= ew + 1)
		return canvas_text_fit(c, y, x, maxw, r, utf8, 0);
	int tail = (maxw - ew) / 2, head = maxw - ew - tail;
	int used = draw(c, y, x, (long)x + head, r, utf8, n, 1);
	used += draw(c, y, (long)x + used, (long)x + used + ew, r, ell, strlen(ell), 0);
	size_t from = suffix_start(utf8, n, total, tail);
	used += draw(c, y, (long)x + used, (long)x + maxw, r, utf8 + from, n - from, 1);
	return used;
}

int canvas_text_right(struct canvas *c, int y, int x, int maxw, enum role r, const char *utf8)
{
	if (maxw < 0)
		maxw = c->w - x;
	if (maxw <= 0)
		return 0;
	/* Measure first (a row outside the canvas draws nothing), then draw flush right. */
	int used = canvas_text_fit(c, -1, 0, maxw, r, utf8, 0);
	return canvas_text_fit(c, y, x + maxw - used, used, r, utf8, 0);
}

void canvas_fill(struct canvas *c, int y, int x, int h, int w, uint32_t ch, enum role r)
{
	if (char_width(&ch) != 1)
		ch = ' ';
	for (long yy = y; yy < (long)y + h; yy++) {
		if (yy < 0 || yy >= c->h)
			continue;
		for (long xx = x; xx < (long)x + w; xx++)
			put(c, (int)yy, xx, ch, 1, r);
	}
}

void canvas_set_role(struct canvas *c, int y, int x, int w, enum role r)
{
	if (y < 0 || y >= c->h)
		return;
	for (long xx = x; xx < (long)x + w; xx++)
		if (xx >= 0 && xx < c->w)
			c->cells[(size_t)y * (size_t)c->w + (size_t)xx].role = (uint8_t)r;
}

void canvas_hline(struct canvas *c, int y, int x, int w, enum role r)
{
	canvas_fill(c, y, x, 1, w, glyph_cp(G_HLINE), r);
}

void canvas_vline(struct canvas *c, int y, int x, int h, enum role r)
{
	canvas_fill(c, y, x, h, 1, glyph_cp(G_VLINE), r);
}

void canvas_box(struct canvas *c, int y, int x, int h, int w, enum role r, const char *title)
{
	if (h <= 0 || w <= 0)
		return;
	if (h == 1) {
		canvas_hline(c, y, x, w, r);
	} else if (w == 1) {
		canvas_vline(c, y, x, h, r);
	} else {
		canvas_hline(c, y, x + 1, w - 2, r);
		canvas_hline(c, y + h - 1, x + 1, w - 2, r);
		canvas_vline(c, y + 1, x, h - 2, r);
		canvas_vline(c, y + 1, x + w - 1, h - 2, r);
		canvas_fill(c, y, x, 1, 1, glyph_cp(G_TL), r);
		canvas_fill(c, y, x + w - 1, 1, 1, glyph_cp(G_TR), r);
		canvas_fill(c, y + h - 1, x, 1, 1, glyph_cp(G_BL), r);
		canvas_fill(c, y + h - 1, x + w - 1, 1, 1, glyph_cp(G_BR), r);
	}
	if (title && *title && w > 2) {
		char *t = xasprintf(" %s ", title);
		canvas_text_fit(c, y, x + 1, w - 2, ROLE_TITLE, t, 0);
		free(t);
	}
}

/*==== dumps ====*/

static void put_char(struct buf *out, uint32_t cp, int escape)
{
	char u[4];
	if (escape && (cp == '{' || cp == '}' || cp == '\\'))
		buf_putc(out, '\\');
	buf_append(out, u, canvas_utf8(cp, u));
}

void canvas_dump(const struct canvas *c, struct buf *out)
{
	for (int y = 0; y < c->h; y++) {
		const struct cell *row = &c->cells[(size_t)y * (size_t)c->w];
		int cur = ROLE_NORMAL;
		for (int x = 0; x < c->w; x++) {
			if (row[x].ch == 0)
				continue; /* the right half of a wide character */
			if (row[x].role != cur) {
				if (cur != ROLE_NORMAL)
					buf_putc(out, '}');
				cur = row[x].role;
				if (cur != ROLE_NORMAL)
					buf_printf(out, "{%s:", role_name((enum role)cur));
			}
			put_char(out, row[x].ch, 1);
		}
		if (cur != ROLE_NORMAL)
			buf_putc(out, '}');
		buf_puts(out, "|\n");
	}
}

void canvas_dump_text(const struct canvas *c, struct buf *out)
{
	for (int y = 0; y < c->h; y++) {
		const struct cell *row = &c->cells[(size_t)y * (size_t)c->w];
		for (int x = 0; x < c->w; x++)
			if (row[x].ch != 0)
				put_char(out, row[x].ch, 0);
		buf_putc(out, '\n');
	}
}
