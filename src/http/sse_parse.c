/* sse_parse.c - the Server-Sent Events parser (sse_parse.h). */
#include "http/sse_parse.h"

#include <string.h>

void sse_parse_init(struct sse_parse *p, size_t max_block)
{
	memset(p, 0, sizeof *p);
	p->max_block = max_block ? max_block : SSE_PARSE_MAX_BLOCK;
	p->retry = -1;
}

void sse_parse_free(struct sse_parse *p)
{
	buf_free(&p->raw);
	buf_free(&p->line);
	buf_free(&p->data);
	buf_free(&p->type);
	buf_free(&p->id);
	memset(p, 0, sizeof *p);
}

size_t sse_parse_pending(const struct sse_parse *p)
{
	return p->raw.len;
}

/* One complete non-blank line in p->line. */
static void field(struct sse_parse *p)
{
	const char *l = p->line.p;
	size_t n = p->line.len;
	if (n == 0 || l[0] == ':')
		return; /* a comment */
	const char *colon = memchr(l, ':', n);
	size_t nl = colon ? (size_t)(colon - l) : n;
	const char *v = colon ? colon + 1 : l + n;
	size_t vn = (size_t)(l + n - v);
	if (vn && *v == ' ')
		v++, vn--;
	if (nl == 5 && !memcmp(l, "event", 5)) {
		buf_reset(&p->type);
		buf_append(&p->type, v, vn);
	} else if (nl == 4 && !memcmp(l, "data", 4)) {
		buf_append(&p->data, v, vn);
		buf_putc(&p->data, '\n');
	} else if (nl == 2 && !memcmp(l, "id", 2)) {
		if (!memchr(v, '\0', vn)) {
			buf_reset(&p->id);
			buf_append(&p->id, v, vn);
			p->has_id = 1;
			p->block_id = 1;
		}
	} else if (nl == 5 && !memcmp(l, "retry", 5)) {
		long long r = 0;
		size_t i = 0;
		for (; i < vn && v[i] >= '0' && v[i] <= '9'; i++)
			r = r > 100000000000LL ? r : r * 10 + (v[i] - '0');
		if (vn && i == vn)
			p->retry = r;
	}
}

/* A blank line ended the block in p->raw. */
static int dispatch(struct sse_parse *p, sse_parse_cb cb, void *ctx)
{
	struct sse_block b = {
		.raw = buf_cstr(&p->raw),
		.raw_len = p->raw.len,
		.dispatched = p->data.len > 0,
		.has_id = p->block_id,
		.retry = p->retry,
	};
	if (b.dispatched)
		p->data.len--; /* the last data line's '\n' */
	b.data = buf_cstr(&p->data);
	b.data_len = p->data.len;
	b.type = p->type.len ? buf_cstr(&p->type) : "message";
	b.id = p->has_id ? buf_cstr(&p->id) : "";
	int rc = cb ? cb(ctx, &b) : 0;
	buf_reset(&p->raw);
	buf_reset(&p->data);
	buf_reset(&p->type);
	p->block_id = 0;
	p->lead_lf = 0;
	p->retry = -1;
	return rc;
}

int sse_parse_feed(struct sse_parse *p, const char *s, size_t n, sse_parse_cb cb, void *ctx, struct err *e)
{
	static const unsigned char bom[3] = {0xEF, 0xBB, 0xBF};
	if (p->failed)
		return err_set(e, BELAY_EINVAL, "the event stream already failed");
	size_t i = 0, span = 0; /* s[span..i) is not yet in p->raw */
	while (!p->started && i < n) {
		if ((unsigned char)s[i] == bom[p->started_bom]) {
			i++;
			if (++p->started_bom == 3)
				p->started = 1;
			continue;
		}
		buf_append(&p->line, bom, p->started_bom); /* a BOM's start that was not one: content */
		p->started = 1;
	}
	for (; i < n; i++) {
		char c = s[i];
		if (p->after_cr) {
			p->after_cr = 0;
			if (c == '\n') {
				/* the rest of a CRLF; when it ended a block in the last chunk, it opens
				 * this one and does not count against the limit (as it would not have
				 * had the two come in one chunk) */
				if (p->raw.len == 0 && i == span)
					p->lead_lf = 1;
				continue;
			}
		}
		if (p->raw.len + (i + 1 - span) > p->max_block + (size_t)p->lead_lf) {
			p->failed = 1;
			return err_set(e, BELAY_EINVAL, "an event of the stream is longer than %zu bytes", p->max_block);
		}
		if (c != '\r' && c != '\n') {
			/* the rest of the line at once */
			const char *end = s + i;
			while (end < s + n && *end != '\r' && *end != '\n')
				end++;
			size_t take = (size_t)(end - (s + i));
			if (p->raw.len + (i + take - span) > p->max_block + (size_t)p->lead_lf) {
				p->failed = 1;
				return err_set(e, BELAY_EINVAL, "an event of the stream is longer than %zu bytes", p->max_block);
			}
			buf_append(&p->line, s + i, take);
			i += take - 1;
			continue;
		}
		p->after_cr = c == '\r';
		if (p->line.len) {
			field(p);
			buf_reset(&p->line);
			continue;
		}
		if (c == '\r' && i + 1 < n && s[i + 1] == '\n') {
			i++; /* keep the whole CRLF in this block */
			p->after_cr = 0;
		}
		buf_append(&p->raw, s + span, i + 1 - span);
		span = i + 1;
		int rc = dispatch(p, cb, ctx);
		if (rc)
			return rc;
	}
	buf_append(&p->raw, s + span, n - span);
	return 0;
}
