/* arena.h - bump allocator for one classification: the parser's AST, expanded words and
 * scratch strings all live in one arena that is freed at once when the plan is built.
 * Must not be shared between threads; each gate_plan_* call owns its own arena.
 * Aborts only on OOM (through xmalloc). */
#ifndef BELAY_GATE_ARENA_H
#define BELAY_GATE_ARENA_H
#include <stddef.h>

struct arena_chunk;

struct arena {
	struct arena_chunk *head;
	size_t used_total; /* bytes handed out, for budgets */
};

/* A zeroed struct arena is empty and valid. */
void arena_init(struct arena *a);
/* Frees every allocation made from `a`; `a` stays valid and empty. */
void arena_free(struct arena *a);
/* n bytes, 16-aligned, uninitialised. Valid until arena_free. */
void *arena_alloc(struct arena *a, size_t n);
/* n zeroed bytes. */
void *arena_zalloc(struct arena *a, size_t n);
/* Copies s[0..n) and NUL-terminates. */
char *arena_strndup(struct arena *a, const char *s, size_t n);
char *arena_strdup(struct arena *a, const char *s);
/* Returns a new arena string from printf-style arguments. */
char *arena_printf(struct arena *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Grows an array: returns a copy of old[0..oldn) with room for newcap elements of size sz. */
void *arena_grow(struct arena *a, void *old, size_t oldn, size_t newcap, size_t sz);

/* Appends `item` to the arena array (arr, n, cap); evaluates arguments more than once. */
#define ARENA_PUSH(a, arr, n, cap, item)                                                                               \
	do {                                                                                                           \
		if ((n) == (cap)) {                                                                                    \
			size_t nc__ = (cap) ? (cap)*2 : 4;                                                             \
			(arr) = arena_grow((a), (arr), (n), nc__, sizeof *(arr));                                      \
			(cap) = nc__;                                                                                  \
		}                                                                                                      \
		(arr)[(n)++] = (item);                                                                                 \
	} while (0)

#endif
