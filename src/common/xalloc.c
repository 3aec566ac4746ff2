/* xalloc.c - allocation wrappers that abort on OOM, and FATAL for broken invariants. */
#include "common/xalloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

_Noreturn void fatal_at(const char *func, const char *fmt, ...)
{
	va_list ap;
	fprintf(stderr, "belay: fatal (%s): ", func);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	abort();
}

void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);
	if (!p)
		FATAL("out of memory allocating %zu bytes", n);
	return p;
}

void *xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);
	if (!p)
		FATAL("out of memory allocating %zu x %zu bytes", n, size);
	return p;
}

void *xrealloc(void *p, size_t n)
{
	void *q = realloc(p, n ? n : 1);
	if (!q)
		FATAL("out of memory reallocating to %zu bytes", n);
	return q;
}

void *xgrow_zeroed(void *p, size_t *cap, size_t i, size_t size, size_t first)
{
	if (i < *cap)
		return p;
	size_t n = *cap ? *cap : first;
	while (n <= i)
		n *= 2;
	p = xrealloc(p, n * size);
	memset((char *)p + *cap * size, 0, (n - *cap) * size);
	*cap = n;
	return p;
}

char *xstrdup(const char *s)
{
	return xmemdup(s, strlen(s) + 1);
}

char *xstrndup(const char *s, size_t n)
{
	size_t len = strnlen(s, n);
	char *p = xmalloc(len + 1);
	memcpy(p, s, len);
	p[len] = '\0';
	return p;
}

void *xmemdup(const void *src, size_t n)
{
	void *p = xmalloc(n);
	if (n)
		memcpy(p, src, n);
	return p;
}

char *xvasprintf(const char *fmt, va_list ap)
{
	char *s = NULL;
	if (vasprintf(&s, fmt, ap) < 0)
		FATAL("out of memory formatting a string");
	return s;
}

char *xasprintf(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *s = xvasprintf(fmt, ap);
	va_end(ap);
	return s;
}
