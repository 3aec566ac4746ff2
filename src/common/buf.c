/* buf.c - growable byte buffer. */
#include "common/buf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/xalloc.h"

void buf_reserve(struct buf *b, size_t extra)
{
	if (b->len + extra + 1 <= b->cap)
		return;
	size_t cap = b->cap ? b->cap : 64;
	while (cap < b->len + extra + 1)
		cap *= 2;
	b->p = xrealloc(b->p, cap);
	b->cap = cap;
}

void buf_append(struct buf *b, const void *data, size_t n)
{
	buf_reserve(b, n);
	if (n)
		memcpy(b->p + b->len, data, n);
	b->len += n;
	b->p[b->len] = '\0';
}

void buf_putc(struct buf *b, char c)
{
	buf_append(b, &c, 1);
}

void buf_puts(struct buf *b, const char *s)
{
	buf_append(b, s, strlen(s));
}

void buf_vprintf(struct buf *b, const char *fmt, va_list ap)
{
	va_list ap2;
	va_copy(ap2, ap);
	int n = vsnprintf(NULL, 0, fmt, ap2);
	va_end(ap2);
	if (n < 0)
		return;
	buf_reserve(b, (size_t)n);
	vsnprintf(b->p + b->len, (size_t)n + 1, fmt, ap);
	b->len += (size_t)n;
}

void buf_sh_quote(struct buf *b, const char *s)
{
	buf_putc(b, '\'');
	for (; *s; s++) {
		if (*s == '\'')
			buf_puts(b, "'\\''");
		else
			buf_putc(b, *s);
	}
	buf_putc(b, '\'');
}

void buf_printf(struct buf *b, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	buf_vprintf(b, fmt, ap);
	va_end(ap);
}

void buf_consume(struct buf *b, size_t n)
{
	if (n >= b->len) {
		b->len = 0;
	} else {
		memmove(b->p, b->p + n, b->len - n);
		b->len -= n;
	}
	if (b->p)
		b->p[b->len] = '\0';
}

char *buf_cstr(struct buf *b)
{
	buf_reserve(b, 0);
	b->p[b->len] = '\0';
	return b->p;
}

char *buf_take(struct buf *b)
{
	char *p = buf_cstr(b);
	b->p = NULL;
	b->len = b->cap = 0;
	return p;
}

void buf_reset(struct buf *b)
{
	b->len = 0;
	if (b->p)
		b->p[0] = '\0';
}

void buf_free(struct buf *b)
{
	free(b->p);
	b->p = NULL;
	b->len = b->cap = 0;
}
