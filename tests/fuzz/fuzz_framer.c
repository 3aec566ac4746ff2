/* fuzz_framer.c - the frame splitter (src/mcp/framer.c) against a model of itself.
 *
 * Input: byte 0 picks the cap (the default, or 1..63 bytes so truncation is reached),
 * byte 1 seeds how the rest is cut into chunks (one chunk, or sizes 0..N at random); the
 * rest is the stream. However the stream is chunked, the frames must be exactly those of
 * splitting the whole stream at '\n' (blank lines and a lone "\r" dropped), each kept up to
 * cap bytes with its full length and truncation flag, `end` pointing just past its '\n' in
 * the chunk it ended in, and the unterminated tail reported as pending. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mcp/framer.h"
#include "support.h"

struct got {
	const uint8_t *stream; /* the whole input, to compare against */
	size_t cap;
	size_t chunk_off;      /* where the chunk being fed starts in the stream */
	size_t chunk_len;
	size_t pos;	       /* the model's position: start of the next frame */
	size_t frames;
};

/* The model: the next non-blank segment of the stream at or after g->pos that ends with
 * '\n'; returns 0 when there is none. */
static int next_frame(struct got *g, size_t n, size_t *start, size_t *len)
{
	while (g->pos < n) {
		const uint8_t *nl = memchr(g->stream + g->pos, '\n', n - g->pos);
		if (!nl)
			return 0;
		size_t s = g->pos, l = (size_t)(nl - g->stream) - s;
		g->pos = s + l + 1;
		if (l == 0 || (l == 1 && g->stream[s] == '\r'))
			continue;
		*start = s;
		*len = l;
		return 1;
	}
	return 0;
}

static size_t stream_len;

static void on_frame(void *ctx, const char *data, size_t len, size_t total, int truncated, size_t end)
{
	struct got *g = ctx;
	size_t s, l;
	FZ_CHECK(next_frame(g, stream_len, &s, &l), "a frame the stream does not hold (len %zu)", len);
	g->frames++;
	FZ_CHECK(total == l, "frame %zu: total %zu, the stream says %zu", g->frames, total, l);
	size_t keep = l < g->cap ? l : g->cap;
	FZ_CHECK(len == keep, "frame %zu: %zu bytes kept, want %zu (cap %zu)", g->frames, len, keep, g->cap);
	FZ_CHECK(truncated == (l > g->cap), "frame %zu: truncated %d", g->frames, truncated);
	FZ_CHECK(memcmp(data, g->stream + s, len) == 0, "frame %zu: bytes differ", g->frames);
	FZ_CHECK(end >= 1 && end <= g->chunk_len, "frame %zu: end %zu outside the chunk of %zu", g->frames, end,
		 g->chunk_len);
	FZ_CHECK(g->chunk_off + end == s + l + 1, "frame %zu: end %zu is not just past its newline", g->frames, end);
}

static uint32_t rnd(uint32_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 17;
	*s ^= *s << 5;
	return *s;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 2)
		return 0;
	size_t cap = data[0] % 64 == 0 ? FRAMER_DEFAULT_CAP : data[0] % 64;
	uint32_t seed = data[1] | 0x100u;
	int one_chunk = data[1] == 0;
	const uint8_t *in = data + 2;
	size_t n = size - 2;
	stream_len = n;
	struct framer f;
	framer_init(&f, cap);
	struct got g = {.stream = in, .cap = cap};
	size_t off = 0;
	while (off < n || (off == 0 && n == 0)) {
		size_t k = one_chunk ? n : rnd(&seed) % (1 + (seed & 7 ? 16 : 300));
		if (k > n - off)
			k = n - off;
		g.chunk_off = off;
		g.chunk_len = k;
		framer_feed(&f, (const char *)in + off, k, on_frame, &g);
		off += k;
		if (n == 0)
			break;
	}
	size_t s, l;
	FZ_CHECK(!next_frame(&g, n, &s, &l), "the framer missed a frame at %zu", s);
	const uint8_t *last = n ? memrchr(in, '\n', n) : NULL;
	size_t tail = last ? n - (size_t)(last - in) - 1 : n;
	FZ_CHECK(framer_pending(&f) == tail, "pending %zu, the stream ends with %zu unterminated bytes",
		 framer_pending(&f), tail);
	FZ_CHECK(f.partial.len <= cap, "kept %zu bytes of a partial frame, cap %zu", f.partial.len, cap);
	framer_done(&f);
	return 0;
}
