/* tdoc.c - styled text documents and their drawing with scrolling and wrapping. See tdoc.h.
 *
 * Must not: touch curses; measure text any other way than canvas_width (so wrapping agrees
 * with drawing). */
#include "tui/tdoc.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf.h"
#include "common/xalloc.h"

void tdoc_init(struct tdoc *d)
{
	memset(d, 0, sizeof *d);
}

void tdoc_clear(struct tdoc *d)
{
	for (size_t i = 0; i < d->n; i++) {
		for (int k = 0; k < d->lines[i].n; k++)
			free(d->lines[i].sp[k].text);
		free(d->lines[i].sp);
	}
	d->n = 0;
}

void tdoc_free(struct tdoc *d)
{
	tdoc_clear(d);
	free(d->lines);
	memset(d, 0, sizeof *d);
}

void tdoc_nl(struct tdoc *d)
{
	if (d->n == d->cap) {
		d->cap = d->cap ? d->cap * 2 : 64;
		d->lines = xrealloc(d->lines, d->cap * sizeof *d->lines);
	}
	d->lines[d->n++] = (struct tline){.tag = -1};
}

void tdoc_addn(struct tdoc *d, enum role r, const char *text, size_t n)
{
	if (!d->n)
		tdoc_nl(d);
	struct tline *l = &d->lines[d->n - 1];
	if (l->n && l->sp[l->n - 1].role == r) { /* extend the last span */
		struct tspan *s = &l->sp[l->n - 1];
		size_t old = strlen(s->text);
		s->text = xrealloc(s->text, old + n + 1);
		memcpy(s->text + old, text, n);
		s->text[old + n] = '\0';
		return;
	}
	if (l->n == l->cap) {
		l->cap = l->cap ? l->cap * 2 : 4;
		l->sp = xrealloc(l->sp, (size_t)l->cap * sizeof *l->sp);
	}
	l->sp[l->n++] = (struct tspan){.role = (unsigned char)r, .text = xstrndup(text, n)};
}

void tdoc_add(struct tdoc *d, enum role r, const char *text)
{
	tdoc_addn(d, r, text, strlen(text));
}

void tdoc_addf(struct tdoc *d, enum role r, const char *fmt, ...)
{
	struct buf b = {0};
	va_list ap;
	va_start(ap, fmt);
	buf_vprintf(&b, fmt, ap);
	va_end(ap);
	tdoc_addn(d, r, b.p ? b.p : "", b.len);
	buf_free(&b);
}

void tdoc_text(struct tdoc *d, enum role r, const char *text)
{
	const char *p = text;
	for (;;) {
		const char *nl = strchr(p, '\n');
		size_t n = nl ? (size_t)(nl - p) : strlen(p);
		if (n && p[n - 1] == '\r')
			n--;
		tdoc_nl(d);
		if (n)
			tdoc_addn(d, r, p, n);
		if (!nl)
			break;
		p = nl + 1;
		if (!*p)
			break;
	}
}

char *tdoc_line_text(const struct tdoc *d, size_t i)
{
	struct buf b = {0};
	for (int k = 0; i < d->n && k < d->lines[i].n; k++)
		buf_puts(&b, d->lines[i].sp[k].text);
	buf_cstr(&b);
	return buf_take(&b);
}

static int line_width(const struct tline *l)
{
	int w = 0;
	for (int k = 0; k < l->n; k++)
		w += canvas_width(l->sp[k].text);
	return w;
}

static size_t line_rows(const struct tline *l, int w, int wrap)
{
	if (!wrap || w <= 1)
		return 1;
	int lw = line_width(l);
	return lw <= w ? 1 : 1 + (size_t)((lw - w + (w - 2) - 1) / (w - 2)); /* continuations indent 2 */
}

size_t tdoc_rows(const struct tdoc *d, int w, int wrap)
{
	if (!wrap)
		return d->n;
	size_t rows = 0;
	for (size_t i = 0; i < d->n; i++)
		rows += line_rows(&d->lines[i], w, wrap);
	return rows;
}

size_t tdoc_line_at_row(const struct tdoc *d, int w, int wrap, size_t row)
{
	size_t r = 0;
	for (size_t i = 0; i < d->n; i++) {
		size_t k = line_rows(&d->lines[i], w, wrap);
		if (row < r + k)
			return i;
		r += k;
	}
	return (size_t)-1;
}

/* Draws the part of line l that starts at column `skip` of its text, into one row of at
 * most w columns at (y, x). Returns the columns consumed from the line. */
static int draw_piece(const struct tline *l, struct canvas *c, int y, int x, int w, int skip)
{
	int col = 0, used = 0;
	for (int k = 0; k < l->n && used < w; k++) {
		const char *s = l->sp[k].text;
		/* Skip whole characters until `skip` columns have passed. */
		while (*s && col < skip) {
			const char *p = s;
			int cw;
			do {
				p++;
			} while ((*p & 0xC0) == 0x80);
			char tmp[8] = {0};
			memcpy(tmp, s, (size_t)(p - s) < 7 ? (size_t)(p - s) : 7);
			cw = canvas_width(tmp);
			if (col + cw > skip)
				break;
			col += cw;
			s = p;
		}
		if (col < skip)
			continue;
		int n = canvas_text(c, y, x + used, w - used, (enum role)l->sp[k].role, s);
		used += n;
		col += canvas_width(s);
		if (n < canvas_width(s))
			return skip + used;
	}
	return skip + used;
}

size_t tdoc_draw(const struct tdoc *d, struct canvas *c, int y, int x, int h, int w, size_t top, int wrap,
		 long cursor)
{
	size_t row = 0;
	int drawn = 0;
	for (size_t i = 0; i < d->n; i++) {
		const struct tline *l = &d->lines[i];
		size_t k = line_rows(l, w, wrap);
		for (size_t j = 0; j < k; j++, row++) {
			if (row < top || drawn >= h)
				continue;
			int yy = y + drawn++;
			int indent = j ? 2 : 0;
			int skip = j ? w + (int)(j - 1) * (w - 2) : 0;
			draw_piece(l, c, yy, x + indent, w - indent, skip);
			if (cursor >= 0 && (size_t)cursor == row)
				canvas_set_role(c, yy, x, w, ROLE_SELECTED);
		}
	}
	return row;
}
