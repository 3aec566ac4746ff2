/* test_http_sse.c - belay's Server-Sent Events parser (src/http/sse_parse.c): the field rules
 * of the specification, line endings (a CRLF cut between chunks among them), the BOM, the
 * raw blocks a proxy forwards (their concatenation is the input, however it was chunked),
 * the limit, and a real server's stream shape. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf.h"
#include "common/err.h"
#include "http/sse_parse.h"

/* What the blocks said, one line per block: "EV type|data|id|retry" or "NO" for a block
 * without an event; and the raw bytes concatenated. */
struct seen {
	struct buf log, raw;
	int stop_after;
	int n;
};

static int on_block(void *ctx, const struct sse_block *b)
{
	struct seen *s = ctx;
	if (b->dispatched)
		buf_printf(&s->log, "EV %s|%.*s|%s%s|%lld\n", b->type, (int)b->data_len, b->data, b->has_id ? "=" : "",
			   b->id, b->retry);
	else
		buf_printf(&s->log, "NO %s%s|%lld\n", b->has_id ? "=" : "", b->id, b->retry);
	buf_append(&s->raw, b->raw, b->raw_len);
	s->n++;
	return s->stop_after && s->n >= s->stop_after ? 7 : 0;
}

/* Parses `in` cut into pieces of `step` bytes (0: whole); returns the log (new string) and
 * checks that raw blocks plus the pending tail are the input. */
static char *parse(const char *in, size_t n, size_t step)
{
	struct sse_parse p;
	sse_parse_init(&p, 0);
	struct seen s = {0};
	struct err e = {0};
	size_t off = 0;
	do {
		size_t k = step && n - off > step ? step : n - off;
		cr_assert_eq(sse_parse_feed(&p, in + off, k, on_block, &s, &e), 0, "%s", e.msg);
		off += k;
	} while (off < n);
	cr_assert_eq(s.raw.len + sse_parse_pending(&p), n, "raw blocks and pending tail must be the input");
	cr_assert(!memcmp(buf_cstr(&s.raw), in, s.raw.len), "raw blocks must be the input's bytes");
	sse_parse_free(&p);
	buf_free(&s.raw);
	return buf_take(&s.log);
}

static void expect(const char *in, const char *want)
{
	size_t n = strlen(in);
	for (size_t step = 0; step <= n; step = step ? step + 1 : 1) {
		char *got = parse(in, n, step);
		cr_assert_str_eq(got ? got : "", want, "input %s cut every %zu bytes", in, step);
		free(got);
		if (step > 8 && step < n)
			step = n - 1; /* the small cuts and the whole are what differ */
	}
}

Test(http_sse, one_message_event)
{
	expect("data: {\"a\":1}\n\n", "EV message|{\"a\":1}||-1\n");
}

Test(http_sse, fields_follow_the_specification)
{
	/* one space dropped after the colon, not two; a field without colon is empty; unknown
	 * fields ignored; data lines joined with \n */
	expect("event:  x\ndata\ndata:a\nfoo: bar\ndata: b\n\n", "EV  x|\na\nb||-1\n");
	/* comments dispatch nothing but are a block of their own */
	expect(": keep-alive\n\n", "NO |-1\n");
	/* an event without data is no event; its id still counts */
	expect("id: 7\n\ndata: x\n\n", "NO =7|-1\nEV message|x|7|-1\n");
	/* retry only when all digits */
	expect("retry: 15\ndata: a\n\nretry: 1x\ndata: b\n\n", "EV message|a||15\nEV message|b||-1\n");
	/* the event type resets after each block, the id does not */
	expect("event: e\nid: 1\ndata: a\n\ndata: b\n\n", "EV e|a|=1|-1\nEV message|b|1|-1\n");
	/* an empty id field resets the id */
	expect("id: 1\ndata: a\n\nid\ndata: b\n\n", "EV message|a|=1|-1\nEV message|b|=|-1\n");
}

Test(http_sse, an_id_with_nul_is_ignored)
{
	const char in[] = "id: 1\ndata: a\n\nid: x\0y\ndata: b\n\n";
	char *got = parse(in, sizeof in - 1, 0);
	cr_assert_str_eq(got, "EV message|a|=1|-1\nEV message|b|1|-1\n");
	free(got);
}

Test(http_sse, line_endings_crlf_cr_lf_and_cut_crlf)
{
	expect("data: a\r\n\r\ndata: b\r\rdata: c\n\n", "EV message|a||-1\nEV message|b||-1\nEV message|c||-1\n");
	/* a CRLF between two data lines is one line end, wherever the chunk boundary falls */
	expect("data: a\r\ndata: b\r\n\r\n", "EV message|a\nb||-1\n");
}

Test(http_sse, bom_at_start_only)
{
	expect("\xEF\xBB\xBF" "data: a\n\n", "EV message|a||-1\n");
	/* a BOM's first byte that is not a BOM is content (here: part of an unknown field) */
	expect("\xEF" "data: a\n\ndata: b\n\n", "NO |-1\nEV message|b||-1\n");
	/* only at the very start */
	expect("data: a\n\n\xEF\xBB\xBF" "data: b\n\n", "EV message|a||-1\nNO |-1\n");
}

Test(http_sse, unfinished_block_is_pending_not_an_event)
{
	char *got = parse("data: a\n\ndata: b\n", 17, 0);
	cr_assert_str_eq(got, "EV message|a||-1\n");
	free(got);
}

Test(http_sse, callback_stops_the_feed)
{
	struct sse_parse p;
	sse_parse_init(&p, 0);
	struct seen s = {.stop_after = 1};
	struct err e = {0};
	cr_assert_eq(sse_parse_feed(&p, "data: a\n\ndata: b\n\n", 18, on_block, &s, &e), 7);
	cr_assert_eq(s.n, 1);
	sse_parse_free(&p);
	buf_free(&s.log);
	buf_free(&s.raw);
}

Test(http_sse, block_over_the_limit_fails_the_stream)
{
	struct sse_parse p;
	sse_parse_init(&p, 16);
	struct seen s = {0};
	struct err e = {0};
	cr_assert_eq(sse_parse_feed(&p, "data: 12345\n\n", 13, on_block, &s, &e), 0);
	cr_assert_eq(s.n, 1);
	cr_assert_eq(sse_parse_feed(&p, "data: 1234567", 13, on_block, &s, &e), 0);
	cr_assert_eq(sse_parse_feed(&p, "890\n\n", 5, on_block, &s, &e), BELAY_EINVAL);
	cr_assert(strstr(e.msg, "longer than 16"), "%s", e.msg);
	cr_assert_eq(sse_parse_feed(&p, "data: x\n\n", 9, on_block, &s, &e), BELAY_EINVAL, "a failed stream stays failed");
	cr_assert_eq(s.n, 1);
	sse_parse_free(&p);
	buf_free(&s.log);
	buf_free(&s.raw);
}

Test(http_sse, the_sdk_servers_stream_shape)
{
	/* what @modelcontextprotocol/sdk's StreamableHTTPServerTransport writes with an event
	 * store: a priming event (id, empty data), then one message event per JSON-RPC message */
	expect("id: p1\ndata: \n\nevent: message\nid: e1\ndata: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n\n",
	       "EV message||=p1|-1\nEV message|{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}|=e1|-1\n");
	/* the old transport's endpoint event */
	expect("event: endpoint\ndata: /message?sessionId=abc\n\n", "EV endpoint|/message?sessionId=abc||-1\n");
}

static int first_raw(void *ctx, const struct sse_block *b)
{
	struct buf *out = ctx;
	if (!out->len)
		buf_append(out, b->raw, b->raw_len);
	return 0;
}

Test(http_sse, a_crlf_block_keeps_its_whole_ending)
{
	/* a proxy forwards blocks one at a time: the blank line's CRLF belongs to its block */
	struct sse_parse p;
	sse_parse_init(&p, 0);
	struct buf first = {0};
	struct err e = {0};
	cr_assert_eq(sse_parse_feed(&p, "data: a\r\n\r\ndata: b\r\n\r\n", 22, first_raw, &first, &e), 0);
	cr_assert_str_eq(buf_cstr(&first), "data: a\r\n\r\n");
	buf_free(&first);
	sse_parse_free(&p);
}

Test(http_sse, the_limit_does_not_depend_on_where_a_crlf_is_cut)
{
	/* fuzz_sse_parse found it: a CRLF blank line cut after its CR moved the LF into the
	 * next block, which then failed a limit the same stream in one chunk passed */
	const char *whole = "data:1\r\n\r\ndata:23\n\n";
	for (int cut = 0; cut < 2; cut++) {
		struct sse_parse p;
		sse_parse_init(&p, 9);
		struct seen s = {0};
		struct err e = {0};
		if (cut) {
			cr_assert_eq(sse_parse_feed(&p, whole, 9, on_block, &s, &e), 0, "%s", e.msg);
			cr_assert_eq(sse_parse_feed(&p, whole + 9, strlen(whole) - 9, on_block, &s, &e), 0, "%s", e.msg);
		} else {
			cr_assert_eq(sse_parse_feed(&p, whole, strlen(whole), on_block, &s, &e), 0, "%s", e.msg);
		}
		cr_assert_str_eq(buf_cstr(&s.log), "EV message|1||-1\nEV message|23||-1\n");
		sse_parse_free(&p);
		buf_free(&s.log);
		buf_free(&s.raw);
	}
}
