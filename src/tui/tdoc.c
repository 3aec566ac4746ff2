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

void tdoc_hang(struct tdoc *d, int cols)
{
	if (!d->n)
		tdoc_nl(d);
	d->lines[d->n - 1].hang = cols;
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

/* A place in a line: byte `off` of span `k`. */
struct tpos {
	int k;
	size_t off;
};

/* The character at p (its bytes in *n), or NULL at the end of the line. */
static const char *char_at(const struct tline *l, struct tpos *p, size_t *n)
{
	while (p->k < l->n && !l->sp[p->k].text[p->off]) {
		p->k++;
		p->off = 0;
	}
	if (p->k >= l->n)
		return NULL;
	const char *t = l->sp[p->k].text + p->off;
	*n = 1;
	while (*n < 4 && ((unsigned char)t[*n] & 0xC0) == 0x80)
		(*n)++;
	return t;
}

/* Moves p over the spaces at p. Returns 1 when something other than spaces follows. */
static int skip_spaces(const struct tline *l, struct tpos *p)
{
	size_t n;
	const char *t;
	while ((t = char_at(l, p, &n)) && *t == ' ')
		p->off += n;
	return t != NULL;
}

/* Moves p over the characters of l that fit in w columns, breaking after the last space
 * that fits (a word longer than the row is cut where the row ends); always over at least
 * one character, so every row advances. Returns 1 while more than spaces remains after p
 * (the next row skips the spaces it starts with). */
static int fit_row(const struct tline *l, struct tpos *p, int w)
{
	int used = 0, any = 0, word = 0; /* word: past the row's leading spaces */
	struct tpos brk = {-1, 0};
	size_t n;
	const char *t;
	while ((t = char_at(l, p, &n))) {
		char tmp[8] = {0};
		memcpy(tmp, t, n);
		int cw = canvas_width(tmp);
		if (any && used + cw > w) {
			if (*t != ' ' && brk.k >= 0)
				*p = brk;
			struct tpos q = *p;
			return skip_spaces(l, &q);
		}
		used += cw;
		p->off += n;
		any = 1;
		if (*t != ' ')
			word = 1;
		else if (word)
			brk = *p;
	}
	return 0;
}

/* Columns a continuation row of l is indented by at width w. */
static int hang(const struct tline *l, int w)
{
	return l->hang > 0 && l->hang < w - 16 ? l->hang : 2;
}

static size_t line_rows(const struct tline *l, int w, int wrap)
{
	if (!wrap || w <= 2 || line_width(l) <= w)
		return 1;
	struct tpos p = {0, 0};
	size_t rows = 1;
	int ind = hang(l, w);
	while (fit_row(l, &p, rows == 1 ? w : w - ind)) {
		skip_spaces(l, &p);
		rows++;
	}
	return rows;
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

/* Draws the text of l from a up to b into one row of at most w columns at (y, x). */
static void draw_range(const struct tline *l, struct canvas *c, int y, int x, int w, struct tpos a, struct tpos b)
{
	int used = 0;
	for (int k = a.k; k < l->n && k <= b.k && used < w; k++) {
		const char *s = l->sp[k].text;
		size_t from = k == a.k ? a.off : 0, to = k == b.k ? b.off : strlen(s);
		if (to > from)
			used += canvas_textn(c, y, x + used, w - used, (enum role)l->sp[k].role, s + from, to - from);
	}
}

size_t tdoc_draw(const struct tdoc *d, struct canvas *c, int y, int x, int h, int w, size_t top, int wrap,
		 long cursor)
{
	size_t row = 0;
	int drawn = 0;
	for (size_t i = 0; i < d->n; i++) {
		const struct tline *l = &d->lines[i];
		size_t k = line_rows(l, w, wrap);
		if (row + k <= top || drawn >= h) {
			row += k;
			continue;
		}
		struct tpos p = {0, 0}, end = {l->n, 0};
		for (size_t j = 0; j < k; j++, row++) {
			if (j)
				skip_spaces(l, &p);
			struct tpos from = p;
			int indent = j ? hang(l, w) : 0;
			if (k > 1)
				fit_row(l, &p, w - indent);
			else
				p = end;
			if (row < top || drawn >= h)
				continue;
			int yy = y + drawn++;
			draw_range(l, c, yy, x + indent, w - indent, from, p);
			if (cursor >= 0 && (size_t)cursor == row)
				canvas_set_role(c, yy, x, w, ROLE_SELECTED);
		}
	}
	return row;
}
