/* fuzz_sse_parse.c - belay's Server-Sent Events parser (src/http/sse_parse.c) against itself
 * and a model of its raw blocks.
 *
 * Input: byte 0 picks the block limit (the default, or 1..255 bytes so the limit is reached),
 * byte 1 seeds how the rest is cut into chunks; the rest is the stream. Whatever the cuts,
 * the blocks (their raw bytes, event type, data, id and retry) must be exactly those of
 * feeding the whole stream at once; the raw blocks and the pending tail must be the input,
 * byte for byte; every raw block must end in a blank line; a dispatched event's data must
 * equal its data lines (read back from the raw block by a second, naive reader) when the
 * block has no CR and no BOM; a failure must be BELAY_EINVAL and sticky. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf.h"
#include "common/err.h"
#include "http/sse_parse.h"
#include "support.h"

struct log {
	struct buf events; /* one entry per block, everything it said */
	struct buf raw;	   /* the raw blocks concatenated */
	size_t blocks;
};

/* The data of a block without CR: every "data" line's value, joined with '\n'. */
static void naive_data(const char *raw, size_t n, struct buf *out)
{
	size_t lines = 0;
	for (size_t i = 0; i < n;) {
		const char *nl = memchr(raw + i, '\n', n - i);
		size_t len = nl ? (size_t)(nl - (raw + i)) : n - i;
		const char *l = raw + i;
		if (len >= 4 && !memcmp(l, "data", 4) && (len == 4 || l[4] == ':')) {
			const char *v = len == 4 ? l + 4 : l + 5;
			size_t vn = (size_t)(l + len - v);
			if (vn && *v == ' ')
				v++, vn--;
			if (lines++)
				buf_putc(out, '\n');
			buf_append(out, v, vn);
		}
		i += len + 1;
	}
}

static int on_block(void *ctx, const struct sse_block *b)
{
	struct log *g = ctx;
	FZ_CHECK(b->raw_len >= 1, "an empty block");
	char last = b->raw[b->raw_len - 1];
	FZ_CHECK(last == '\n' || last == '\r', "a block must end with its blank line");
	buf_printf(&g->events, "%d|%zu|%s|%zu|", b->dispatched, b->raw_len, b->type, b->data_len);
	buf_append(&g->events, b->data, b->data_len);
	buf_printf(&g->events, "|%d|%s|%lld\n", b->has_id, b->id, b->retry);
	buf_append(&g->raw, b->raw, b->raw_len);
	if (b->dispatched && !memchr(b->raw, '\r', b->raw_len) && !memchr(b->raw, 0xEF, b->raw_len) &&
	    !memchr(b->raw, 0, b->raw_len)) {
		struct buf want = {0};
		naive_data(b->raw, b->raw_len, &want);
		FZ_CHECK(want.len == b->data_len && !memcmp(want.p ? want.p : "", b->data, b->data_len),
			 "data %zu bytes, the naive reader %zu", b->data_len, want.len);
		buf_free(&want);
	}
	g->blocks++;
	return 0;
}

/* Feeds s[0..n) in the cuts `seed` picks (0: whole). Returns the feed's result. */
static int run(const char *s, size_t n, size_t limit, unsigned seed, struct log *g, size_t *pending)
{
	struct sse_parse p;
	sse_parse_init(&p, limit);
	struct err e = {0};
	int rc = 0;
	size_t off = 0;
	srand(seed);
	while (off < n && rc == 0) {
		size_t k = seed ? (size_t)(rand() % 9) : n - off;
		if (k > n - off)
			k = n - off;
		rc = sse_parse_feed(&p, s + off, k, on_block, g, &e);
		off += k;
	}
	if (rc) {
		FZ_CHECK(rc == BELAY_EINVAL && e.msg[0], "a failure is a named EINVAL (%d)", rc);
		FZ_CHECK(sse_parse_feed(&p, "data: x\n\n", 9, on_block, g, &e) == BELAY_EINVAL, "a failure is sticky");
	}
	*pending = sse_parse_pending(&p);
	sse_parse_free(&p);
	return rc;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 2)
		return 0;
	size_t limit = data[0] ? data[0] : 0;
	unsigned seed = data[1];
	const char *s = (const char *)data + 2;
	size_t n = size - 2;
	struct log whole = {0}, cut = {0};
	size_t pw = 0, pc = 0;
	int rw = run(s, n, limit, 0, &whole, &pw);
	int rc = run(s, n, limit, seed, &cut, &pc);
	FZ_CHECK(!rw == !rc, "whole %d, cut %d", rw, rc);
	if (!rw) {
		FZ_CHECK(whole.raw.len + pw == n && !memcmp(whole.raw.p ? whole.raw.p : "", s, whole.raw.len),
			 "raw blocks and the tail are not the input");
		FZ_CHECK(cut.raw.len + pc == n && !memcmp(cut.raw.p ? cut.raw.p : "", s, cut.raw.len),
			 "cut: raw blocks and the tail are not the input");
		/* a CRLF split at a cut may move its LF into the next block: compare the events,
		 * not the raw lengths, when a CR is present */
		if (!memchr(s, '\r', n))
			FZ_CHECK(whole.events.len == cut.events.len &&
					 !memcmp(whole.events.p ? whole.events.p : "", cut.events.p ? cut.events.p : "",
						 whole.events.len),
				 "the blocks differ with the cuts");
		else
			FZ_CHECK(whole.blocks == cut.blocks, "%zu blocks whole, %zu cut", whole.blocks, cut.blocks);
	}
	FZ_NOTE("%zu block(s), rc %d", whole.blocks, rw);
	buf_free(&whole.events);
	buf_free(&whole.raw);
	buf_free(&cut.events);
	buf_free(&cut.raw);
	return 0;
}
