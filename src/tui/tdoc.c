/* tdoc.c - styled text documents and their drawing with scrolling and wrapping. See tdoc.h.
 *
 * Must not: touch curses; measure text any other way than canvas_width (so wrapping agrees
 * with drawing). */
#include "tui/tdoc.h"

#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf.h"
#include "common/xalloc.h"

struct tdoc_rows {
	int w, wrap;
	unsigned gen;
	size_t n;      /* lines counted */
	size_t *start; /* start[i]: the first row of line i; start[n]: the rows of all */
	size_t cap;
};

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
	d->gen++;
}

void tdoc_free(struct tdoc *d)
{
	tdoc_clear(d);
	if (d->rows)
		free(d->rows->start);
	free(d->rows);
	free(d->lines);
	free(d->edits);
	memset(d, 0, sizeof *d);
}

static atomic_ulong serials;

void tdoc_nl(struct tdoc *d)
{
	if (!d->serial)
		d->serial = atomic_fetch_add(&serials, 1) + 1;
	if (!d->rows)
		d->rows = xcalloc(1, sizeof *d->rows);
	if (d->n == d->cap) {
		d->cap = d->cap ? d->cap * 2 : 64;
		d->lines = xrealloc(d->lines, d->cap * sizeof *d->lines);
	}
	d->lines[d->n++] = (struct tline){.tag = -1};
	d->gen++;
}

void tdoc_addn(struct tdoc *d, enum role r, const char *text, size_t n)
{
	if (!d->n)
		tdoc_nl(d);
	d->gen++;
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
	d->gen++;
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

/* Where each line's rows start at width w (NULL for a document without lines). */
static const size_t *row_starts(const struct tdoc *d, int w, int wrap)
{
	struct tdoc_rows *c = d->rows;
	if (!c || !d->n)
		return NULL;
	if (c->start && c->w == w && c->wrap == wrap && c->gen == d->gen && c->n == d->n)
		return c->start;
	if (d->n + 1 > c->cap) {
		c->cap = d->n + 1 + 64;
		c->start = xrealloc(c->start, c->cap * sizeof *c->start);
	}
	size_t row = 0;
	for (size_t i = 0; i < d->n; i++) {
		c->start[i] = row;
		row += line_rows(&d->lines[i], w, wrap);
	}
	c->start[d->n] = row;
	c->w = w;
	c->wrap = wrap;
	c->gen = d->gen;
	c->n = d->n;
	return c->start;
}

static void free_line(struct tline *l)
{
	for (int k = 0; k < l->n; k++)
		free(l->sp[k].text);
	free(l->sp);
}

void tdoc_splice(struct tdoc *d, const struct tdoc_piece *p, size_t n)
{
	if (!n)
		return;
	if (!d->rows)
		d->rows = xcalloc(1, sizeof *d->rows);
	size_t old_n = d->n, new_n = old_n;
	for (size_t k = 0; k < n; k++)
		new_n = new_n - p[k].removed + p[k].src->n;
	struct tdoc_rows *c = d->rows;
	int rows_ok = c->start && c->gen == d->gen && c->n == old_n;
	size_t *start = rows_ok ? xmalloc((new_n + 1 + 64) * sizeof *start) : NULL;
	struct tline *lines = xmalloc((new_n + 64) * sizeof *lines);
	if (n > d->capedits) {
		d->capedits = n + 16;
		d->edits = xrealloc(d->edits, d->capedits * sizeof *d->edits);
	}
	size_t from = 0, to = 0, row = 0;
	for (size_t k = 0; k <= n; k++) {
		size_t at = k < n ? p[k].at : old_n;
		/* The lines kept up to this piece: moved, their rows as they were. */
		memcpy(lines + to, d->lines + from, (at - from) * sizeof *lines);
		if (start)
			for (size_t i = from; i < at; i++, to++) {
				start[to] = row;
				row += c->start[i + 1] - c->start[i];
			}
		else
			to += at - from;
		if (k == n)
			break;
		for (size_t i = at; i < at + p[k].removed; i++)
			free_line(&d->lines[i]);
		struct tdoc *src = p[k].src;
		memcpy(lines + to, src->lines, src->n * sizeof *lines);
		for (size_t i = 0; i < src->n; i++, to++)
			if (start) {
				start[to] = row;
				row += line_rows(&lines[to], c->w, c->wrap);
			}
		d->edits[k] = (struct tdoc_edit){.at = at, .removed = p[k].removed, .added = src->n};
		src->n = 0;
		src->gen++;
		from = at + p[k].removed;
	}
	free(d->lines);
	d->lines = lines;
	d->n = new_n;
	d->cap = new_n + 64;
	d->nedits = n;
	d->edit_from = d->gen;
	d->gen++;
	d->edit_to = d->gen;
	if (start) {
		start[new_n] = row;
		free(c->start);
		c->start = start;
		c->cap = new_n + 1 + 64;
		c->n = new_n;
		c->gen = d->gen;
	}
}

size_t tdoc_rows(const struct tdoc *d, int w, int wrap)
{
	const size_t *st = row_starts(d, w, wrap);
	return st ? st[d->n] : 0;
}

/* The line that row `row` belongs to (d->n when past the end). */
static size_t line_of_row(const struct tdoc *d, const size_t *st, size_t row)
{
	if (!st || row >= st[d->n])
		return d->n;
	size_t lo = 0, hi = d->n; /* the last line whose start <= row */
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;
		if (st[mid] <= row)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

size_t tdoc_line_at_row(const struct tdoc *d, int w, int wrap, size_t row)
{
	size_t l = line_of_row(d, row_starts(d, w, wrap), row);
	return l < d->n ? l : (size_t)-1;
}

/* The marks of one line (a slice of a sorted array). */
struct lmarks {
	const struct tmark *m;
	size_t n;
};

/* Draws the text of l from a up to b into one row of at most w columns at (y, x): each piece
 * in its mark's role, else in its span's role (or `plain` when it is not ROLE_COUNT: the
 * cursor row). */
static void draw_range(const struct tline *l, struct canvas *c, int y, int x, int w, struct tpos a, struct tpos b,
		       const struct lmarks *lm, int plain)
{
	int used = 0;
	size_t base = 0; /* the line offset of span k's first byte */
	for (int k = 0; k < a.k && k < l->n; k++)
		base += strlen(l->sp[k].text);
	size_t mi = 0;
	for (int k = a.k; k < l->n && k <= b.k && used < w; k++) {
		const char *s = l->sp[k].text;
		size_t from = k == a.k ? a.off : 0, to = k == b.k ? b.off : strlen(s);
		while (from < to && used < w) {
			enum role r = plain != ROLE_COUNT ? (enum role)plain : (enum role)l->sp[k].role;
			size_t end = to, at = base + from;
			while (mi < lm->n && lm->m[mi].off + lm->m[mi].len <= at)
				mi++;
			if (mi < lm->n && lm->m[mi].off <= at) {
				r = (enum role)lm->m[mi].role;
				if (lm->m[mi].off + lm->m[mi].len - base < end)
					end = lm->m[mi].off + lm->m[mi].len - base;
			} else if (mi < lm->n && lm->m[mi].off - base < end) {
				end = lm->m[mi].off - base;
			}
			used += canvas_textn(c, y, x + used, w - used, r, s + from, end - from);
			from = end;
		}
		base += strlen(s);
	}
}

size_t tdoc_draw_marked(const struct tdoc *d, struct canvas *c, int y, int x, int h, int w, size_t top, int wrap,
			long cursor, const struct tmark *marks, size_t nmarks)
{
	const size_t *st = row_starts(d, w, wrap);
	if (!st)
		return 0;
	size_t first = line_of_row(d, st, top), mi = 0;
	size_t row = first < d->n ? st[first] : st[d->n];
	for (size_t lo = 0, hi = nmarks; lo < hi;) { /* the first mark on a line >= first */
		size_t mid = lo + (hi - lo) / 2;
		if (marks[mid].line < first)
			lo = mid + 1;
		else
			hi = mid;
		mi = lo;
	}
	int drawn = 0;
	for (size_t i = first; i < d->n && drawn < h; i++) {
		const struct tline *l = &d->lines[i];
		size_t k = st[i + 1] - st[i];
		while (mi < nmarks && marks[mi].line < i)
			mi++;
		struct lmarks lm = {marks + mi, 0};
		while (mi + lm.n < nmarks && marks[mi + lm.n].line == i)
			lm.n++;
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
			int cur = cursor >= 0 && (size_t)cursor == row;
			if (cur)
				canvas_set_role(c, yy, x, w, ROLE_SELECTED);
			draw_range(l, c, yy, x + indent, w - indent, from, p, &lm, cur ? ROLE_SELECTED : ROLE_COUNT);
		}
	}
	return st[d->n];
}

size_t tdoc_draw(const struct tdoc *d, struct canvas *c, int y, int x, int h, int w, size_t top, int wrap,
		 long cursor)
{
	return tdoc_draw_marked(d, c, y, x, h, w, top, wrap, cursor, NULL, 0);
}

size_t tdoc_row_of(const struct tdoc *d, int w, int wrap, size_t line, size_t off)
{
	const size_t *st = row_starts(d, w, wrap);
	if (!st)
		return 0;
	if (line >= d->n)
		return st[d->n];
	size_t row = st[line];
	const struct tline *l = &d->lines[line];
	size_t k = st[line + 1] - row;
	if (k <= 1)
		return row;
	struct tpos p = {0, 0};
	for (size_t j = 0; j < k; j++) {
		if (j)
			skip_spaces(l, &p);
		int indent = j ? hang(l, w) : 0;
		fit_row(l, &p, w - indent);
		size_t at = 0; /* p as a line offset */
		for (int s = 0; s < p.k && s < l->n; s++)
			at += strlen(l->sp[s].text);
		at += p.k < l->n ? p.off : 0;
		if (off < at || j + 1 == k)
			return row + j;
	}
	return row + k - 1;
}
