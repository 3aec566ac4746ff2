/* xalloc.h - allocation that aborts on out-of-memory (the only fatal error class besides
 * broken invariants). Every other failure is returned to the caller. */
#ifndef BELAY_COMMON_XALLOC_H
#define BELAY_COMMON_XALLOC_H
#include <stdarg.h>
#include <stddef.h>

void *xmalloc(size_t n);
void *xcalloc(size_t n, size_t size);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);
void *xmemdup(const void *p, size_t n);
/* Returns a new string; caller frees. */
char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
char *xvasprintf(const char *fmt, va_list ap);

#define FATAL(...) fatal_at(__func__, __VA_ARGS__)
_Noreturn void fatal_at(const char *func, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
