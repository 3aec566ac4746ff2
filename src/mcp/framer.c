/* framer.c - newline framing with a bounded copy per frame. See framer.h. */
#include "mcp/framer.h"

#include <stdlib.h>
#include <string.h>

#include "common/xalloc.h"

void framer_init(struct framer *f, size_t cap)
{
	memset(f, 0, sizeof *f);
	f->cap = cap ? cap : FRAMER_DEFAULT_CAP;
}

static int is_blank(const char *p, size_t n)
{
	return n == 0 || (n == 1 && p[0] == '\r');
}

static void scan_start(struct framer *f)
{
	if (!f->scan) {
		f->scan = xcalloc(1, sizeof *f->scan);
		envscan_init(f->scan);
	} else {
		envscan_reset(f->scan);
	}
	f->scanning = 1;
}

static void keep(struct framer *f, const char *p, size_t n)
{
	size_t room = f->partial.len < f->cap ? f->cap - f->partial.len : 0;
	size_t kept = n < room ? n : room;
	buf_append(&f->partial, p, kept);
	if (!f->scanning && f->partial_total + n > f->cap) {
		/* The frame just went over the cap: its envelope is read from here on, starting
		 * with everything kept so far (nothing was dropped before this point). */
		scan_start(f);
		envscan_feed(f->scan, f->partial.p, f->partial.len);
		envscan_feed(f->scan, p + kept, n - kept);
	} else if (f->scanning) {
		envscan_feed(f->scan, p, n);
	}
	f->partial_total += n;
}

static void emit(struct framer *f, const char *p, size_t len, size_t total, int trunc, size_t end, framer_cb cb,
		 void *ctx)
{
	f->env_ready = trunc;
	cb(ctx, p, len, total, trunc, end);
	f->env_ready = 0;
	f->scanning = 0;
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
				if (trunc) {
					scan_start(f);
					envscan_feed(f->scan, p, seg);
				}
				emit(f, p, trunc ? f->cap : seg, seg, trunc, end, cb, ctx);
			}
		} else {
			keep(f, chunk + pos, seg);
			if (!is_blank(f->partial.p, f->partial_total))
				emit(f, f->partial.p, f->partial.len, f->partial_total, f->partial_total > f->partial.len, end,
				     cb, ctx);
			buf_reset(&f->partial);
			f->partial_total = 0;
			f->scanning = 0;
		}
		pos = end;
	}
}

cJSON *framer_envelope(const struct framer *f)
{
	return f->env_ready && f->scan ? envscan_skeleton(f->scan) : NULL;
}

size_t framer_pending(const struct framer *f)
{
	return f->partial_total;
}

void framer_done(struct framer *f)
{
	buf_free(&f->partial);
	f->partial_total = 0;
	if (f->scan) {
		envscan_free(f->scan);
		free(f->scan);
		f->scan = NULL;
	}
	f->scanning = 0;
}
