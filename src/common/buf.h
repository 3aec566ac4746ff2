/* buf.h - growable byte buffer. Functions that may reallocate say so; pointers into
 * `p` are invalidated by them. A zeroed struct buf is an empty buffer. */
#ifndef BELAY_COMMON_BUF_H
#define BELAY_COMMON_BUF_H
#include <stdarg.h>
#include <stddef.h>

struct buf {
	char *p;
	size_t len;
	size_t cap;
};

void buf_reserve(struct buf *b, size_t extra); /* may realloc */
void buf_append(struct buf *b, const void *data, size_t n); /* may realloc */
void buf_putc(struct buf *b, char c);                       /* may realloc */
void buf_puts(struct buf *b, const char *s);                /* may realloc */
void buf_printf(struct buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* s as one single-quoted word for sh ('it'\''s'). */
void buf_sh_quote(struct buf *b, const char *s);
void buf_vprintf(struct buf *b, const char *fmt, va_list ap);
/* Drops the first n bytes. */
void buf_consume(struct buf *b, size_t n);
/* Keeps a NUL after len (not counted) and returns p. */
char *buf_cstr(struct buf *b);
/* Hands the storage to the caller (caller frees); b becomes empty. */
char *buf_take(struct buf *b);
void buf_reset(struct buf *b);
void buf_free(struct buf *b);

#endif
