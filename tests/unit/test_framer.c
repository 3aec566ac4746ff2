/* test_framer.c - the pure newline framer, on every boundary case the proxy meets. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf.h"
#include "common/xalloc.h"
#include "mcp/framer.h"

struct got {
	int n;
	struct buf frames[1024];
	size_t total[1024];
	int trunc[1024];
	size_t end[1024];
};

static void collect(void *ctx, const char *d, size_t len, size_t total, int truncated, size_t end)
{
	struct got *g = ctx;
	cr_assert_lt(g->n, 1024);
	memset(&g->frames[g->n], 0, sizeof(struct buf));
	buf_append(&g->frames[g->n], d, len);
	g->total[g->n] = total;
	g->trunc[g->n] = truncated;
	g->end[g->n] = end;
	g->n++;
}

static void got_free(struct got *g)
{
	for (int i = 0; i < g->n; i++)
		buf_free(&g->frames[i]);
}

static void feed_str(struct framer *f, const char *s, struct got *g)
{
	framer_feed(f, s, strlen(s), collect, g);
}

Test(framer, two_frames_in_one_read)
{
	struct framer f;
	struct got g = {0};
	framer_init(&f, 0);
	feed_str(&f, "{\"a\":1}\n{\"b\":2}\n", &g);
	cr_assert_eq(g.n, 2);
	cr_assert_str_eq(g.frames[0].p, "{\"a\":1}");
	cr_assert_str_eq(g.frames[1].p, "{\"b\":2}");
	cr_assert_eq(g.end[0], 8);
	cr_assert_eq(g.end[1], 16);
	cr_assert_eq(framer_pending(&f), 0);
	got_free(&g);
	framer_done(&f);
}

Test(framer, frame_split_across_reads)
{
	struct framer f;
	struct got g = {0};
	framer_init(&f, 0);
	feed_str(&f, "{\"jsonrpc\":", &g);
	cr_assert_eq(g.n, 0);
	cr_assert_eq(framer_pending(&f), 11);
	feed_str(&f, "\"2.0\",\"id\"", &g);
	feed_str(&f, ":1}\n{\"x\"", &g);
	cr_assert_eq(g.n, 1);
	cr_assert_str_eq(g.frames[0].p, "{\"jsonrpc\":\"2.0\",\"id\":1}");
	cr_assert_eq(g.end[0], 4, "end is the offset past the newline in the chunk that completed it");
	cr_assert_eq(framer_pending(&f), 4);
	got_free(&g);
	framer_done(&f);
}

Test(framer, crlf_is_kept_and_blank_lines_are_not_frames)
{
	struct framer f;
	struct got g = {0};
	framer_init(&f, 0);
	feed_str(&f, "\n\r\n{\"a\":1}\r\n\n\n{}\n", &g);
	cr_assert_eq(g.n, 2);
	cr_assert_str_eq(g.frames[0].p, "{\"a\":1}\r");
	cr_assert_str_eq(g.frames[1].p, "{}");
	got_free(&g);
	framer_done(&f);
}

Test(framer, lone_cr_split_from_its_newline_is_blank)
{
	struct framer f;
	struct got g = {0};
	framer_init(&f, 0);
	feed_str(&f, "\r", &g);
	feed_str(&f, "\n", &g);
	cr_assert_eq(g.n, 0);
	got_free(&g);
	framer_done(&f);
}

Test(framer, invalid_utf8_and_nul_pass_as_bytes)
{
	struct framer f;
	struct got g = {0};
	framer_init(&f, 0);
	const char data[] = "\xff\xfe\x00zz\xc3\n";
	framer_feed(&f, data, sizeof data - 1, collect, &g);
	cr_assert_eq(g.n, 1);
	cr_assert_eq(g.frames[0].len, 6);
	cr_assert_eq(memcmp(g.frames[0].p, "\xff\xfe\x00zz\xc3", 6), 0);
	got_free(&g);
	framer_done(&f);
}

Test(framer, one_mebibyte_frame_in_64k_chunks)
{
	struct framer f;
	struct got g = {0};
	framer_init(&f, 0);
	size_t n = 1 << 20;
	char *big = xmalloc(n + 1);
	for (size_t i = 0; i < n; i++)
		big[i] = (char)('a' + i % 26);
	big[n] = '\n';
	for (size_t off = 0; off < n + 1; off += 65536) {
		size_t take = n + 1 - off < 65536 ? n + 1 - off : 65536;
		framer_feed(&f, big + off, take, collect, &g);
	}
	cr_assert_eq(g.n, 1);
	cr_assert_eq(g.frames[0].len, n);
	cr_assert_eq(g.total[0], n);
	cr_assert_eq(g.trunc[0], 0);
	cr_assert_eq(memcmp(g.frames[0].p, big, n), 0);
	free(big);
	got_free(&g);
	framer_done(&f);
}

Test(framer, oversized_frame_is_truncated_and_next_frame_recovers)
{
	struct framer f;
	struct got g = {0};
	framer_init(&f, 10);
	feed_str(&f, "0123456789ABCDEF", &g);
	feed_str(&f, "GHIJ\n{\"ok\":1}\n", &g);
	feed_str(&f, "0123456789abcdefghij\n", &g); /* oversized, whole in one chunk */
	cr_assert_eq(g.n, 3);
	cr_assert_str_eq(g.frames[0].p, "0123456789");
	cr_assert_eq(g.total[0], 20);
	cr_assert_eq(g.trunc[0], 1);
	cr_assert_str_eq(g.frames[1].p, "{\"ok\":1}");
	cr_assert_eq(g.trunc[1], 0);
	cr_assert_str_eq(g.frames[2].p, "0123456789");
	cr_assert_eq(g.total[2], 20);
	cr_assert_eq(g.trunc[2], 1);
	got_free(&g);
	framer_done(&f);
}

Test(framer, partial_frame_at_eof_is_reported)
{
	struct framer f;
	struct got g = {0};
	framer_init(&f, 0);
	feed_str(&f, "{\"a\":1}\n{\"unterminated\"", &g);
	cr_assert_eq(g.n, 1);
	cr_assert_eq(framer_pending(&f), 15);
	got_free(&g);
	framer_done(&f);
}

/* Any way of cutting a stream into reads yields the same frames. */
Test(framer, random_splits_agree_with_one_read)
{
	srand(1234);
	for (int round = 0; round < 200; round++) {
		char stream[2048];
		size_t n = (size_t)(rand() % (int)sizeof stream);
		for (size_t i = 0; i < n; i++) {
			int r = rand() % 10;
			stream[i] = r == 0 ? '\n' : r == 1 ? '\r' : (char)(rand() % 256);
		}
		struct framer a, b;
		static struct got ga, gb;
		memset(&ga, 0, sizeof ga);
		memset(&gb, 0, sizeof gb);
		framer_init(&a, 64);
		framer_init(&b, 64);
		framer_feed(&a, stream, n, collect, &ga);
		for (size_t off = 0; off < n;) {
			size_t take = (size_t)(rand() % 17) + 1;
			if (take > n - off)
				take = n - off;
			framer_feed(&b, stream + off, take, collect, &gb);
			off += take;
		}
		cr_assert_eq(ga.n, gb.n);
		for (int i = 0; i < ga.n; i++) {
			cr_assert_eq(ga.frames[i].len, gb.frames[i].len);
			cr_assert_eq(memcmp(ga.frames[i].p, gb.frames[i].p, ga.frames[i].len), 0);
			cr_assert_eq(ga.total[i], gb.total[i]);
			cr_assert_eq(ga.trunc[i], gb.trunc[i]);
		}
		cr_assert_eq(framer_pending(&a), framer_pending(&b));
		got_free(&ga);
		got_free(&gb);
		framer_done(&a);
		framer_done(&b);
	}
}
