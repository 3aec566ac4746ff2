/* xalloc.h - allocation that aborts on out-of-memory (the only fatal error class besides
 * broken invariants). Every other failure is returned to the caller. */
#ifndef BELAY_COMMON_XALLOC_H
#define BELAY_COMMON_XALLOC_H
#include <stdarg.h>
#include <stddef.h>

void *xmalloc(size_t n);
void *xcalloc(size_t n, size_t size);
void *xrealloc(void *p, size_t n);
/* Grows the array p of *cap elements of `size` bytes until index i fits (the capacity
 * doubles, from `first` when the array is empty); the new elements are zeroed. Returns the
 * array, moved or not (p itself when i already fits). */
void *xgrow_zeroed(void *p, size_t *cap, size_t i, size_t size, size_t first);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);
void *xmemdup(const void *p, size_t n);
/* Returns a new string; caller frees. */
char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
char *xvasprintf(const char *fmt, va_list ap);

#define FATAL(...) fatal_at(__func__, __VA_ARGS__)
_Noreturn void fatal_at(const char *func, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
