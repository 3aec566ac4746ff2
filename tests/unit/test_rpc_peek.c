/* test_rpc_peek.c - the proxy's tree-less reading of JSON-RPC frames (rpc_peek) against the
 * parser it stands in for (rpc_msg_parse), over generated messages of every shape: member
 * order, duplicates, escapes, every id type, nested values, batches and byte mutations; and
 * the ledger of waiting client requests (inflight) that belay answers when the server
 * cannot. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf.h"
#include "common/xalloc.h"
#include "mcp/inflight.h"
#include "mcp/model.h"
#include "mcp/rpc_msg.h"
#include "mcp/rpc_peek.h"
#include "ts_jsongen.h"

static void ws(struct ts_rng *r, struct buf *b, int messy)
{
	static const char *const spaces[] = {"", " ", "\n", "\t ", "\r\n  "};
	if (messy)
		buf_puts(b, spaces[ts_rng_below(r, 5)]);
}

static void id_value(struct ts_rng *r, struct buf *b)
{
	static const char *const ids[] = {"1", "0", "-7", "42", "1.5", "1e2", "10.0", "\"1\"", "\"abc\"",
					  "\"a\\\"b\"", "\"\\u00e9\"", "null", "true", "[1]", "{\"x\":1}",
					  "9007199254740993", "\"" /* long: filled below */};
	unsigned k = ts_rng_below(r, sizeof ids / sizeof ids[0]);
	if (k == sizeof ids / sizeof ids[0] - 1) {
		buf_putc(b, '"');
		for (int i = 0; i < 120; i++)
			buf_putc(b, (char)('a' + i % 26));
		buf_putc(b, '"');
		return;
	}
	buf_puts(b, ids[k]);
}

/* One message object: a random subset of the JSON-RPC members in a random order, with
 * duplicates and noise members sometimes. *gen is set when it holds a generated value
 * (which is mostly, not always, valid JSON). */
static void message(struct ts_rng *r, struct buf *b, int messy, int *gen)
{
	static const char *const methods[] = {"\"tools/call\"", "\"initialize\"", "\"notifications/cancelled\"",
					      "\"ping\"", "\"a\\/b\"", "42", "null", "\"\""};
	buf_putc(b, '{');
	int n = (int)ts_rng_below(r, 7), first = 1;
	for (int i = 0; i < n; i++) {
		if (!first)
			buf_putc(b, ',');
		first = 0;
		ws(r, b, messy);
		switch (ts_rng_below(r, 9)) {
		case 0: buf_puts(b, "\"jsonrpc\":\"2.0\""); break;
		case 1: buf_puts(b, "\"id\":"); ws(r, b, messy); id_value(r, b); break;
		case 2: buf_puts(b, "\"method\":"); buf_puts(b, methods[ts_rng_below(r, 8)]); break;
		case 3: buf_puts(b, "\"params\":"); ts_json_gen(r, b, 3, messy); *gen = 1; break;
		case 4: buf_puts(b, "\"result\":"); ts_json_gen(r, b, 3, messy); *gen = 1; break;
		case 5: buf_puts(b, "\"error\":{\"code\":-32600,\"message\":\"no\"}"); break;
		case 6: buf_puts(b, "\"i\\u0064\":5"); break; /* "id", escaped: the peek must not guess */
		case 7: buf_puts(b, "\"x\":"); ts_json_gen(r, b, 2, messy); *gen = 1; break;
		default: buf_puts(b, "\"idx\":1"); break;
		}
		ws(r, b, messy);
	}
	buf_putc(b, '}');
}

Test(rpc_peek, agrees_with_the_parser_on_generated_messages)
{
	struct ts_rng r = {0x5eed};
	struct buf b = {0};
	size_t ok = 0, clean = 0, agreed = 0;
	for (int i = 0; i < 60000; i++) {
		buf_reset(&b);
		int messy = i % 3 == 0, mutate = i % 5 == 4, batch = i % 17 == 0, gen = 0;
		ws(&r, &b, messy);
		if (batch) {
			buf_putc(&b, '[');
			message(&r, &b, messy, &gen);
			buf_putc(&b, ',');
			message(&r, &b, messy, &gen);
			buf_putc(&b, ']');
		} else {
			message(&r, &b, messy, &gen);
		}
		ws(&r, &b, messy);
		if (mutate)
			ts_json_mutate(&r, &b);
		struct rpc_peek p;
		int answer = rpc_peek(b.p, b.len, &p);
		if (batch && !mutate)
			cr_assert_eq(answer, RPC_PEEK_UNSURE, "a batch is the parser's: %.*s", (int)b.len, b.p);
		struct rpc_msg m;
		rpc_msg_parse(b.p, b.len, 0, &m);
		int parsed_single = m.root && !m.is_batch;
		if (!mutate && !batch && !memmem(b.p, b.len, "\"i\\u0064\"", 9)) {
			clean++;
			ok += answer == RPC_PEEK_OK;
		}
		if (answer == RPC_PEEK_OK && parsed_single) {
			const struct rpc_item *it = &m.items[0];
			cr_assert_eq(p.kind, it->kind, "kind %d vs %d: %.*s", p.kind, it->kind, (int)b.len, b.p);
			cr_assert_eq(p.id.type, it->id.type, "id type: %.*s", (int)b.len, b.p);
			cr_assert_str_eq(p.id.key, it->id.key, "id key: %.*s", (int)b.len, b.p);
			if (it->method && strlen(it->method) < sizeof p.method)
				cr_assert_str_eq(p.method, it->method, "method: %.*s", (int)b.len, b.p);
			agreed++;
		} else if (answer == RPC_PEEK_OK) {
			/* Looser than the parser only where the header says: a bad token or invalid
			 * UTF-8 inside a skipped value (a generated one, or one a mutation broke). */
			cr_assert(mutate || gen, "the peek read what the parser refuses: %.*s", (int)b.len, b.p);
		}
		rpc_msg_free(&m);
	}
	/* The fast path must be the common path, or it saves nothing. */
	cr_assert_gt(ok * 100, clean * 95, "the peek answered only %zu of %zu plain messages", ok, clean);
	cr_assert_gt(agreed, 20000);
	buf_free(&b);
}

Test(rpc_peek, named_cases)
{
	struct rpc_peek p;
	const char *f = "{\"result\":{\"t\":\"a \\\" } ] { [\"},\"jsonrpc\":\"2.0\",\"id\":7}";
	cr_assert_eq(rpc_peek(f, strlen(f), &p), RPC_PEEK_OK);
	cr_assert_eq(p.kind, RPC_RESPONSE);
	cr_assert_str_eq(p.id.key, "n:7", "the id after a result holding brackets in a string");
	f = "{\"id\":\"1\",\"id\":1,\"method\":\"ping\"}";
	cr_assert_eq(rpc_peek(f, strlen(f), &p), RPC_PEEK_OK);
	cr_assert_str_eq(p.id.key, "s:1", "the first of duplicate members wins, as in cJSON");
	cr_assert_eq(p.id_len, 3);
	cr_assert_eq(memcmp(p.id_text, "\"1\"", 3), 0);
	f = "{\"method\":\"notifications/cancelled\",\"params\":{\"requestId\":3}}";
	cr_assert_eq(rpc_peek(f, strlen(f), &p), RPC_PEEK_OK);
	cr_assert_eq(p.kind, RPC_NOTIFICATION);
	cr_assert_str_eq(p.method, "notifications/cancelled");
	f = "{\"id\":1,\"method\":7}";
	cr_assert_eq(rpc_peek(f, strlen(f), &p), RPC_PEEK_OK);
	cr_assert_eq(p.kind, RPC_UNKNOWN, "a method that is not a string makes no request");
	f = "{\"id\":1,\"result\":{\"a\":[1,2,{\"b\":\"\\\\\"}]}";
	cr_assert_eq(rpc_peek(f, strlen(f), &p), RPC_PEEK_UNSURE, "unterminated (the \\\\ ends the string)");
	f = "[{\"id\":1,\"result\":{}}]";
	cr_assert_eq(rpc_peek(f, strlen(f), &p), RPC_PEEK_UNSURE);
	f = "{\"id\":1,\"method\":\"tools/call\",\"params\":{}} trailing";
	cr_assert_eq(rpc_peek(f, strlen(f), &p), RPC_PEEK_OK, "bytes after the object are ignored, as by cJSON");
	cr_assert_eq(p.kind, RPC_REQUEST);
	/* Deep nesting beyond cJSON's limit is the parser's to refuse. */
	struct buf b = {0};
	buf_puts(&b, "{\"id\":1,\"result\":");
	for (int i = 0; i < 1200; i++)
		buf_putc(&b, '[');
	for (int i = 0; i < 1200; i++)
		buf_putc(&b, ']');
	buf_putc(&b, '}');
	cr_assert_eq(rpc_peek(b.p, b.len, &p), RPC_PEEK_UNSURE);
	buf_free(&b);
}

static void collect(void *ctx, const char *id_json)
{
	struct buf *b = ctx;
	buf_printf(b, "%s;", id_json);
}

static void feed(struct inflight *f, int dir, const char *s)
{
	inflight_frame(f, dir, s, strlen(s), 0);
}

Test(inflight, waiting_requests_by_typed_id_oldest_first)
{
	struct inflight f;
	inflight_init(&f);
	feed(&f, DIR_C2S, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\"}");
	feed(&f, DIR_C2S, "{\"jsonrpc\":\"2.0\",\"id\":\"1\",\"method\":\"tools/list\"}");
	feed(&f, DIR_C2S, "{\"jsonrpc\":\"2.0\",\"id\":1.0e0,\"method\":\"ping\"}"); /* the same id as 1: already waiting */
	feed(&f, DIR_C2S, "{\"jsonrpc\":\"2.0\",\"id\":null,\"method\":\"ping\"}");  /* cannot be answered by id */
	feed(&f, DIR_C2S, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}");
	feed(&f, DIR_C2S, "[{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"a\"},{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"b\"}]");
	feed(&f, DIR_C2S, "{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"tools/call\",\"params\":{\"name\":\"x\"}}");
	feed(&f, DIR_C2S, "{\"jsonrpc\":\"2.0\",\"id\":6,\"method\":\"tools/call\",\"params\":{\"name\":\"y\"}}");
	cr_assert_eq(inflight_count(&f), 6);
	feed(&f, DIR_S2C, "{\"jsonrpc\":\"2.0\",\"id\":\"1\",\"result\":{}}");                  /* the string id */
	feed(&f, DIR_S2C, "{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"roots/list\"}");           /* a server request */
	feed(&f, DIR_S2C, "[{\"jsonrpc\":\"2.0\",\"id\":3,\"result\":{}}]");                     /* a batch reply */
	feed(&f, DIR_C2S, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{\"requestId\":5}}");
	feed(&f, DIR_C2S, "{\"jsonrpc\":\"2.0\",\"id\":9,\"result\":{\"roots\":[]}}");           /* the client's answer */
	inflight_frame(&f, DIR_S2C, "{\"jsonrpc\":\"2.0\",\"id\":6,\"res", 16, 1);            /* a cut copy: unread */
	cr_assert_eq(inflight_count(&f), 3);
	struct buf b = {0};
	inflight_drain(&f, collect, &b);
	cr_assert_str_eq(buf_cstr(&b), "1;4;6;", "every waiting id as the client wrote it, oldest first");
	cr_assert_eq(inflight_count(&f), 0);
	/* Slots are reused after the drain and after retirements. */
	for (int i = 0; i < 1000; i++) {
		char req[96], resp[96];
		snprintf(req, sizeof req, "{\"jsonrpc\":\"2.0\",\"id\":%d,\"method\":\"tools/call\"}", i);
		snprintf(resp, sizeof resp, "{\"id\":%d,\"jsonrpc\":\"2.0\",\"result\":{}}", i);
		feed(&f, DIR_C2S, req);
		feed(&f, DIR_S2C, resp);
	}
	cr_assert_eq(inflight_count(&f), 0);
	cr_assert_leq(f.nslots, 2, "a retired request frees its slot (%zu slots)", f.nslots);
	buf_free(&b);
	inflight_free(&f);
}
