/* arena.c - bump allocator for one classification (see arena.h). Single-threaded by
 * construction: an arena belongs to one gate_plan_* call. Must not: free single objects
 * (everything goes at arena_free) or do I/O. */
#include "gate/arena.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/xalloc.h"

struct arena_chunk {
	struct arena_chunk *next;
	size_t cap, used;
	_Alignas(16) unsigned char data[];
};

#define ARENA_FIRST_CHUNK 8192

void arena_init(struct arena *a)
{
	a->head = NULL;
	a->used_total = 0;
}

void arena_free(struct arena *a)
{
	struct arena_chunk *c = a->head;
	while (c) {
		struct arena_chunk *next = c->next;
		free(c);
		c = next;
	}
	a->head = NULL;
	a->used_total = 0;
}

void *arena_alloc(struct arena *a, size_t n)
{
	n = (n + 15) & ~(size_t)15;
	if (n == 0)
		n = 16;
	struct arena_chunk *c = a->head;
	if (!c || c->cap - c->used < n) {
		size_t cap = c ? c->cap * 2 : ARENA_FIRST_CHUNK;
		if (cap > (1u << 20))
			cap = 1u << 20;
		if (cap < n)
			cap = n;
		struct arena_chunk *nc = xmalloc(sizeof *nc + cap);
		nc->cap = cap;
		nc->used = 0;
		nc->next = c;
		a->head = nc;
		c = nc;
	}
	void *p = c->data + c->used;
	c->used += n;
	a->used_total += n;
	return p;
}

void *arena_zalloc(struct arena *a, size_t n)
{
	void *p = arena_alloc(a, n);
	memset(p, 0, n);
	return p;
}

char *arena_strndup(struct arena *a, const char *s, size_t n)
{
	char *p = arena_alloc(a, n + 1);
	if (n)
		memcpy(p, s, n);
	p[n] = '\0';
	return p;
}

char *arena_strdup(struct arena *a, const char *s)
{
	return arena_strndup(a, s, strlen(s));
}

char *arena_printf(struct arena *a, const char *fmt, ...)
{
	char small[256];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(small, sizeof small, fmt, ap);
	va_end(ap);
	if (n < 0)
		return arena_strdup(a, "");
	if ((size_t)n < sizeof small)
		return arena_strndup(a, small, (size_t)n);
	char *p = arena_alloc(a, (size_t)n + 1);
	va_start(ap, fmt);
	vsnprintf(p, (size_t)n + 1, fmt, ap);
	va_end(ap);
	return p;
}

void *arena_grow(struct arena *a, void *old, size_t oldn, size_t newcap, size_t sz)
{
	void *p = arena_alloc(a, newcap * sz);
	if (oldn)
		memcpy(p, old, oldn * sz);
	return p;
}
