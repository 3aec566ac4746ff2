/* test_envscan.c - the envelope of an oversized frame: ids in any member order and after a
 * member of any size, nested look-alikes ignored, escaped names, duplicates as cJSON reads
 * them, batches, strictness on what it reads, bounds, the framer feeding it every byte of a
 * frame over the cap (across reads, the cap cutting anywhere), and a differential check:
 * for random messages, what the skeleton classifies as equals what the full parse does. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf.h"
#include "common/jsonx.h"
#include "common/xalloc.h"
#include "mcp/envscan.h"
#include "mcp/framer.h"
#include "mcp/rpc_msg.h"
#include "ts_jsongen.h"

/* The skeleton of text fed in one piece, as compact JSON (new string), or NULL. */
static char *skel(const char *text, size_t n)
{
	struct envscan s;
	envscan_init(&s);
	envscan_feed(&s, text, n);
	cJSON *j = envscan_skeleton(&s);
	envscan_free(&s);
	char *out = j ? jx_print(j) : NULL;
	cJSON_Delete(j);
	return out;
}

static void expect(const char *text, const char *want)
{
	char *got = skel(text, strlen(text));
	if (!want)
		cr_assert_null(got, "%s: no envelope expected, got %s", text, got);
	else {
		cr_assert_not_null(got, "%s: an envelope expected", text);
		cr_assert_str_eq(got, want, "%s", text);
	}
	free(got);
}

Test(envscan, id_in_any_member_order)
{
	expect("{\"jsonrpc\":\"2.0\",\"id\":7,\"result\":{\"content\":[]}}", "{\"id\":7,\"result\":{}}");
	expect("{\"result\":{\"content\":[]},\"jsonrpc\":\"2.0\",\"id\":7}", "{\"id\":7,\"result\":{}}");
	expect("{\"result\":{\"content\":[]},\"id\":\"7\",\"jsonrpc\":\"2.0\"}", "{\"id\":\"7\",\"result\":{}}");
	expect("  { \"id\" : -1.5e2 , \"error\" : { \"message\" : \"boom\" , \"code\" : -32000 } }  ",
	       "{\"id\":-150,\"error\":{\"code\":-32000,\"message\":\"boom\"}}");
}

Test(envscan, id_after_a_huge_member)
{
	size_t big = (size_t)3 << 20;
	struct buf b = {0};
	buf_puts(&b, "{\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"");
	for (size_t i = 0; i < big; i++)
		buf_puts(&b, i % 97 == 0 ? "\\n{\\\"id\\\":1}" : "x"); /* escapes and look-alikes inside the text */
	buf_puts(&b, "\"}],\"isError\":true},\"jsonrpc\":\"2.0\",\"id\":42}");
	char *got = skel(b.p, b.len);
	cr_assert_not_null(got);
	cr_assert_str_eq(got, "{\"id\":42,\"result\":{\"isError\":true}}");
	free(got);
	buf_free(&b);
}

Test(envscan, nested_look_alikes_are_not_the_envelope)
{
	expect("{\"result\":{\"id\":99,\"content\":[{\"id\":5,\"method\":\"x\"}],\"isError\":{\"isError\":true}},\"id\":\"abc\"}",
	       "{\"id\":\"abc\",\"result\":{\"isError\":{}}}");
	expect("{\"params\":{\"arguments\":{\"name\":\"not this\",\"requestId\":1},\"name\":\"big\"},\"method\":\"tools/"
	       "call\",\"id\":4,\"jsonrpc\":\"2.0\"}",
	       "{\"id\":4,\"method\":\"tools/call\",\"params\":{\"name\":\"big\"}}");
	expect("{\"method\":\"notifications/cancelled\",\"params\":{\"requestId\":\"r1\",\"reason\":\"x\"}}",
	       "{\"method\":\"notifications/cancelled\",\"params\":{\"requestId\":\"r1\"}}");
}

Test(envscan, escaped_names_and_values_read_as_cjson_reads_them)
{
	expect("{\"\\u0069d\":1,\"result\":{}}", "{\"id\":1,\"result\":{}}");
	expect("{\"id\":\"a\\\"b\\u00e9\",\"result\":{}}", "{\"id\":\"a\\\"bé\",\"result\":{}}");
	expect("{\"i\\\"d\":1,\"result\":{}}", "{\"result\":{}}");
}

Test(envscan, duplicate_members_take_the_first_as_cjson_does)
{
	expect("{\"id\":1,\"id\":2,\"result\":{}}", "{\"id\":1,\"result\":{}}");
	expect("{\"result\":{\"isError\":true},\"result\":5,\"id\":1}", "{\"id\":1,\"result\":{\"isError\":true}}");
	cJSON *j = cJSON_Parse("{\"id\":1,\"id\":2}");
	cr_assert_eq(cJSON_GetObjectItemCaseSensitive(j, "id")->valueint, 1, "cJSON keeps the first");
	cJSON_Delete(j);
}

Test(envscan, non_object_members_keep_their_type_only)
{
	expect("{\"id\":{\"a\":1},\"result\":\"text\"}", "{\"id\":{},\"result\":\"\"}");
	expect("{\"id\":[1],\"error\":[1,2],\"params\":true}", "{\"id\":[],\"params\":false,\"error\":[]}");
}

Test(envscan, batches_element_by_element)
{
	expect("[{\"id\":1,\"result\":{}}, 5, [1], {\"result\":{},\"id\":2}]",
	       "[{\"id\":1,\"result\":{}},null,null,{\"id\":2,\"result\":{}}]");
	struct buf b = {0};
	buf_putc(&b, '[');
	for (int i = 0; i < ENVSCAN_ITEMS_MAX + 1; i++)
		buf_printf(&b, "%s{\"id\":%d,\"result\":{}}", i ? "," : "", i);
	buf_putc(&b, ']');
	cr_assert_null(skel(b.p, b.len), "a batch over the bound has no envelope");
	buf_free(&b);
}

Test(envscan, what_is_not_json_has_no_envelope)
{
	const char *bad[] = {"{\"id\":1,",	   "{\"id\":1,}",	  "[1,]",	   "{\"a\":[}",	   "42",
			     "\"str\"",	   "{\"a\":1 \"b\":2}", "{\"a\" 1}",	   "{\"a\":\"\\x\"}", "{,}",
			     "",		   "{\"id\":tru}",	  "]",		   "{\"method\":nul,\"id\":1}", "\xef\xbb{}",
			     "{\"a\":\"open", NULL};
	for (const char *const *p = bad; *p; p++) {
		cJSON *j = cJSON_ParseWithLength(*p, strlen(*p));
		cr_assert(!cJSON_IsObject(j) && !cJSON_IsArray(j), "%s: cJSON refuses it too (no message)", *p);
		cJSON_Delete(j);
	}
	for (const char *const *p = bad; *p; p++)
		expect(*p, NULL);
	struct buf deep = {0};
	for (int i = 0; i < ENVSCAN_DEPTH_MAX + 1; i++)
		buf_putc(&deep, '[');
	for (int i = 0; i < ENVSCAN_DEPTH_MAX + 1; i++)
		buf_putc(&deep, ']');
	cr_assert_null(skel(deep.p, deep.len), "nesting past cJSON's limit is refused");
	cr_assert_null(cJSON_ParseWithLength(deep.p, deep.len));
	buf_free(&deep);
}

Test(envscan, deep_inside_a_result_strings_and_brackets_still_hold)
{
	expect("{\"result\":{\"c\":[{\"x\":[}]}]},\"id\":1}", NULL);
	expect("{\"result\":{\"c\":[{\"x\":\"a\\qb\"}]},\"id\":1}", NULL);
	expect("{\"result\":{\"c\":[{\"x\":\"a\\\"]}\\\\\"}]},\"id\":1}", "{\"id\":1,\"result\":{}}");
	/* Deeper than the levels it reads, commas and literals are not checked (documented): a
	 * frame broken only there still names what it answers. */
	expect("{\"result\":{\"c\":[1 2 tru]},\"id\":1}", "{\"id\":1,\"result\":{}}");
}

/* Where cJSON (which reads the frames that fit) is lenient, the envelope is too: the same
 * frame must not pair when it fits and stay unpaired when it does not. */
Test(envscan, as_lenient_as_cjson_and_no_more)
{
	const char *ok[][2] = {
	    {"{\"id\":1}x", "{\"id\":1}"},
	    {"{\"id\":1}{\"id\":2}", "{\"id\":1}"},
	    {"\xef\xbb\xbf{\"id\":1}", "{\"id\":1}"},
	    {"{\"id\":01,\"result\":{}}", "{\"id\":1,\"result\":{}}"},
	    {"{\"a\":\"\x01\\uZZZZ\",\"id\":\"x\"}", "{\"id\":\"x\"}"},
	    {"\f{\"id\":\v2}", "{\"id\":2}"},
	};
	for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
		cJSON *j = cJSON_ParseWithLength(ok[i][0], strlen(ok[i][0]));
		cr_assert(cJSON_IsObject(j), "%s: cJSON reads it", ok[i][0]);
		cJSON_Delete(j);
		expect(ok[i][0], ok[i][1]);
	}
}

Test(envscan, a_value_too_long_to_keep_is_left_out)
{
	struct buf b = {0};
	buf_puts(&b, "{\"result\":{},\"id\":\"");
	for (int i = 0; i < ENVSCAN_VALUE_MAX; i++)
		buf_putc(&b, 'i');
	buf_puts(&b, "\"}");
	char *got = skel(b.p, b.len);
	cr_assert_str_eq(got, "{\"result\":{}}", "an id too long to keep is not invented: the frame stays unpairable");
	free(got);
	buf_free(&b);
}

/* One frame through a framer with a small cap, fed in pieces of `step` bytes. */
struct one {
	int n, trunc;
	size_t total;
	char *env;
	struct framer *f;
};

static void on_frame(void *ctx, const char *d, size_t len, size_t total, int truncated, size_t end)
{
	struct one *o = ctx;
	(void)d;
	(void)len;
	(void)end;
	o->n++;
	o->trunc = truncated;
	o->total = total;
	cJSON *j = framer_envelope(o->f);
	free(o->env);
	o->env = j ? jx_print(j) : NULL;
	cJSON_Delete(j);
}

static void through_framer(const char *text, size_t cap, size_t step, struct one *o)
{
	struct framer f;
	framer_init(&f, cap);
	memset(o, 0, sizeof *o);
	o->f = &f;
	size_t n = strlen(text);
	for (size_t off = 0; off < n; off += step)
		framer_feed(&f, text + off, n - off < step ? n - off : step, on_frame, o);
	cr_assert_null(framer_envelope(&f), "no envelope outside a truncated frame's callback");
	framer_done(&f);
}

Test(envscan, the_framer_reads_every_byte_of_an_oversized_frame)
{
	const char *msg = "{\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"0123456789012345678901234567890123456789\"}]},"
			  "\"jsonrpc\":\"2.0\",\"id\":42}";
	char *line = xasprintf("%s\n{\"id\":1}\n", msg);
	size_t mlen = strlen(msg);
	for (size_t cap = 1; cap < mlen; cap += 7) {
		for (size_t step = 1; step <= strlen(line); step = step * 2 + 1) {
			struct one o;
			through_framer(line, cap, step, &o);
			cr_assert_eq(o.n, 2);
			/* the last frame ({"id":1}) is within every cap but the smallest */
			free(o.env);
			struct framer f;
			framer_init(&f, cap);
			memset(&o, 0, sizeof o);
			o.f = &f;
			for (size_t off = 0; off < mlen + 1; off += step)
				framer_feed(&f, line + off, mlen + 1 - off < step ? mlen + 1 - off : step, on_frame, &o);
			cr_assert_eq(o.n, 1);
			cr_assert_eq(o.trunc, 1);
			cr_assert_eq(o.total, mlen);
			cr_assert_str_eq(o.env ? o.env : "(none)", "{\"id\":42,\"result\":{}}", "cap %zu step %zu", cap, step);
			free(o.env);
			framer_done(&f);
		}
	}
	/* Exactly at the cap: not truncated, nothing scanned. */
	struct one o;
	char *exact = xasprintf("%s\n", msg);
	through_framer(exact, mlen, 5, &o);
	cr_assert_eq(o.trunc, 0);
	cr_assert_null(o.env);
	free(exact);
	free(line);
}

/* What rpc_msg makes of a message: kind, id key, method, tool, cancel target, error code,
 * isError — for the full text and for its skeleton. */
static void classify_text(const char *text, size_t n, struct buf *out)
{
	struct rpc_msg m;
	rpc_msg_parse(text, n, 0, &m);
	for (int i = 0; i < m.n; i++) {
		const struct rpc_item *it = &m.items[i];
		long long code = 0;
		int has_code = it->error && jx_int(it->error, "code", -(1LL << 31), (1LL << 31) - 1, &code);
		buf_printf(out, "[%s %d:%s m=%s t=%s c=%s e=%d:%lld ie=%d]", rpc_kind_name(it->kind), it->id.type, it->id.key,
			   it->method ? it->method : "-", it->tool ? it->tool : "-", it->cancel_of.key, has_code, code,
			   cJSON_IsObject(it->result) && cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(it->result, "isError")));
	}
	rpc_msg_free(&m);
}

static void gen_value(struct ts_rng *r, struct buf *b, int depth)
{
	if (depth > 0 && ts_rng_below(r, 3) == 0) {
		ts_json_gen(r, b, depth, 1);
		return;
	}
	static const char *const scalars[] = {"1", "\"1\"", "-0", "null", "true", "\"tools/call\"", "\"a\\u0062c\"",
					      "2.5e1", "\"notifications/cancelled\"", "{}", "[]", "\"big\""};
	buf_puts(b, scalars[ts_rng_below(r, sizeof scalars / sizeof scalars[0])]);
}

/* A message-shaped object: members from the envelope's names (and look-alikes) in random
 * order, nested objects with the same names, sometimes duplicated. */
static void gen_message(struct ts_rng *r, struct buf *b, int depth)
{
	static const char *const names[] = {"id", "method", "params", "result", "error", "jsonrpc", "name", "requestId",
					    "isError", "code", "message", "\\u0069d", "arguments"};
	int n = (int)ts_rng_below(r, 6) + 1;
	buf_putc(b, '{');
	for (int i = 0; i < n; i++) {
		buf_printf(b, "%s%s\"%s\"%s:", i ? "," : "", ts_rng_below(r, 4) ? "" : " ",
			   names[ts_rng_below(r, sizeof names / sizeof names[0])], ts_rng_below(r, 4) ? "" : " ");
		if (depth < 3 && ts_rng_below(r, 3) == 0)
			gen_message(r, b, depth + 1);
		else
			gen_value(r, b, depth);
	}
	buf_putc(b, '}');
}

Test(envscan, differential_the_skeleton_classifies_as_the_full_message_does)
{
	struct ts_rng r = {20260101};
	int compared = 0;
	for (int round = 0; round < 4000; round++) {
		struct buf b = {0};
		int batch = ts_rng_below(&r, 5) == 0;
		if (batch) {
			buf_putc(&b, '[');
			int k = (int)ts_rng_below(&r, 4) + 1;
			for (int i = 0; i < k; i++) {
				if (i)
					buf_putc(&b, ',');
				gen_message(&r, &b, 0);
			}
			buf_putc(&b, ']');
		} else {
			gen_message(&r, &b, 0);
		}
		cJSON *full = cJSON_ParseWithLength(b.p, b.len);
		/* fed in random pieces */
		struct envscan s;
		envscan_init(&s);
		for (size_t off = 0; off < b.len;) {
			size_t take = ts_rng_below(&r, 40) + 1;
			if (take > b.len - off)
				take = b.len - off;
			envscan_feed(&s, b.p + off, take);
			off += take;
		}
		cJSON *sk = envscan_skeleton(&s);
		envscan_free(&s);
		if (full) {
			cr_assert_not_null(sk, "valid JSON has an envelope: %.*s", (int)b.len, b.p);
			char *st = jx_print(sk);
			struct buf want = {0}, got = {0};
			classify_text(b.p, b.len, &want);
			classify_text(st, strlen(st), &got);
			cr_assert_str_eq(buf_cstr(&got), buf_cstr(&want), "message %.*s\nskeleton %s", (int)b.len, b.p, st);
			buf_free(&want);
			buf_free(&got);
			free(st);
			compared++;
		}
		cJSON_Delete(sk);
		cJSON_Delete(full);
		buf_free(&b);
	}
	cr_assert_gt(compared, 2000, "most generated messages are valid JSON (%d)", compared);
}
