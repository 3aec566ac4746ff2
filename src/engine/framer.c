/* framer.c - newline framing with a bounded copy per frame. See framer.h. */
#include "engine/framer.h"

#include <string.h>

void framer_init(struct framer *f, size_t cap)
{
	memset(f, 0, sizeof *f);
	f->cap = cap ? cap : FRAMER_DEFAULT_CAP;
}

static int is_blank(const char *p, size_t n)
{
	return n == 0 || (n == 1 && p[0] == '\r');
}

static void keep(struct framer *f, const char *p, size_t n)
{
	size_t room = f->partial.len < f->cap ? f->cap - f->partial.len : 0;
	buf_append(&f->partial, p, n < room ? n : room);
	f->partial_total += n;
}

void framer_feed(struct framer *f, const char *chunk, size_t n, framer_cb cb, void *ctx)
{
	size_t pos = 0;
	while (pos < n) {
		const char *nl = memchr(chunk + pos, '\n', n - pos);
		if (!nl) {
			keep(f, chunk + pos, n - pos);
			return;
		}
		size_t seg = (size_t)(nl - (chunk + pos));
		size_t end = (size_t)(nl - chunk) + 1;
		if (f->partial_total == 0) {
			/* Whole frame inside this chunk: hand out a view, no copy. */
			const char *p = chunk + pos;
			if (!is_blank(p, seg)) {
				int trunc = seg > f->cap;
				cb(ctx, p, trunc ? f->cap : seg, seg, trunc, end);
			}
		} else {
			keep(f, chunk + pos, seg);
			if (!is_blank(f->partial.p, f->partial_total))
				cb(ctx, f->partial.p, f->partial.len, f->partial_total, f->partial_total > f->partial.len,
				   end);
			buf_reset(&f->partial);
			f->partial_total = 0;
		}
		pos = end;
	}
}

size_t framer_pending(const struct framer *f)
{
	return f->partial_total;
}

void framer_done(struct framer *f)
{
	buf_free(&f->partial);
	f->partial_total = 0;
}
