/* test_jcs.c - RFC 8785 canonicalisation (numbers, strings, key order) and its refusals. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf.h"
#include "common/err.h"
#include "common/jcs.h"
#include "ts_jsongen.h"

static void expect(const char *in, const char *want)
{
	struct buf b = {0};
	cr_assert_eq(jcs_canonicalize(in, strlen(in), &b), 0, "refused: %s", in);
	cr_assert_str_eq(buf_cstr(&b), want);
	buf_free(&b);
}

static void refuse(const char *in, size_t n)
{
	struct buf b = {0};
	cr_assert_eq(jcs_canonicalize(in, n, &b), BELAY_EINVAL, "should be refused: %s", in);
	cr_assert_eq(b.len, 0);
	buf_free(&b);
}

Test(jcs, numbers_follow_ecmascript)
{
	static const struct {
		double d;
		const char *s;
	} cases[] = {
		{0, "0"}, {-0.0, "0"}, {1, "1"}, {-1, "-1"}, {1.5, "1.5"}, {0.1, "0.1"}, {1e21, "1e+21"},
		{1e20, "100000000000000000000"}, {123456789012345680000.0, "123456789012345680000"},
		{1e-7, "1e-7"}, {0.000001, "0.000001"}, {5e-324, "5e-324"},
		{1.7976931348623157e308, "1.7976931348623157e+308"}, {9007199254740993.0, "9007199254740992"},
		{333333333.33333329, "333333333.3333333"}, {-1.5e-9, "-1.5e-9"}, {4.35, "4.35"},
		/* integers either side of 2^53 (below it they take a shortcut) */
		{42, "42"}, {-42, "-42"}, {1e15, "1000000000000000"}, {9007199254740991.0, "9007199254740991"},
		{-9007199254740991.0, "-9007199254740991"}, {9007199254740992.0, "9007199254740992"},
		{18014398509481984.0, "18014398509481984"}, {4503599627370495.5, "4503599627370495.5"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		char out[32];
		jcs_number(cases[i].d, out);
		cr_assert_str_eq(out, cases[i].s, "case %zu", i);
	}
}

/* Found by tests/fuzz/fuzz_rpc_model: a JSON-RPC id of 1e999 (cJSON holds it as infinity)
 * made jcs_number read through a NULL pointer, so one frame crashed the proxy. JSON cannot
 * hold these values; the names are ECMAScript's Number::toString, and jcs_serialize still
 * refuses them. */
Test(jcs, non_finite_numbers_have_ecmascript_names_and_are_refused)
{
	char out[32];
	jcs_number(INFINITY, out);
	cr_assert_str_eq(out, "Infinity");
	jcs_number(-INFINITY, out);
	cr_assert_str_eq(out, "-Infinity");
	jcs_number(NAN, out);
	cr_assert_str_eq(out, "NaN");
	jcs_number(strtod("1e999", NULL), out);
	cr_assert_str_eq(out, "Infinity");
	refuse("{\"id\":1e999}", 12);
	refuse("[-1e999]", 8);
	cJSON *v = cJSON_Parse("{\"id\":1e999}");
	cr_assert_not_null(v);
	struct buf b = {0};
	cr_assert_eq(jcs_serialize(v, &b), BELAY_EINVAL);
	cJSON_Delete(v);
	buf_free(&b);
}

Test(jcs, rfc8785_key_order_is_utf16)
{
	expect("{\"\\u20ac\":\"Euro Sign\",\"\\r\":\"Carriage Return\",\"\\ufb33\":\"Hebrew Letter Dalet With Dagesh\","
	       "\"1\":\"One\",\"\\ud83d\\ude00\":\"Emoji: Grinning Face\",\"\\u0080\":\"Control\","
	       "\"\\u00f6\":\"Latin Small Letter O With Diaeresis\"}",
	       "{\"\\r\":\"Carriage Return\",\"1\":\"One\",\"\xc2\x80\":\"Control\",\"\xc3\xb6\":\"Latin Small Letter O With "
	       "Diaeresis\",\"\xe2\x82\xac\":\"Euro Sign\",\"\xf0\x9f\x98\x80\":\"Emoji: Grinning Face\","
	       "\"\xef\xac\xb3\":\"Hebrew Letter Dalet With Dagesh\"}");
}

Test(jcs, whitespace_literals_and_escapes)
{
	expect(" { \"b\" : [ true , false , null ] , \"a\" : \"x\\/y\\u0007\\t\\\"\" } \r\n",
	       "{\"a\":\"x/y\\u0007\\t\\\"\",\"b\":[true,false,null]}");
	expect("{\"long\":\"abcdefghijklmnopqrstuvwxyz0123456789\\\\tail\"}",
	       "{\"long\":\"abcdefghijklmnopqrstuvwxyz0123456789\\\\tail\"}");
	expect("[1.0,2e2,-0.0]", "[1,200,0]");
}

Test(jcs, undefined_inputs_are_refused)
{
	refuse("{\"a\":1,\"a\":2}", 13);          /* duplicate names */
	refuse("\"\\ud800\"", 8);                 /* lone surrogate */
	refuse("\"a\\u0000b\"", 10);              /* escaped NUL cJSON cannot hold */
	refuse("\"\xff\"", 3);                     /* invalid UTF-8 */
	refuse("{\"a\":1} x", 9);                 /* trailing garbage */
	refuse("{\"a\":1", 6);                    /* not JSON */
	refuse("{\"a\":NaN}", 9);
}

/* Every input: the direct canonicaliser and the reference (cJSON's tree) agree on the
 * answer and the bytes, and "already canonical" means exactly that. */
static void agree(const char *in, size_t n)
{
	struct buf a = {0}, b = {0}, c = {0};
	int ra = jcs_canonicalize(in, n, &a), rb = jcs_canonicalize_ref(in, n, &b),
	    rc = jcs_canonicalize_same(in, n, &c);
	cr_assert_eq(ra, rb, "direct %d, reference %d for [%.*s]", ra, rb, (int)n, in);
	if (ra == 0) {
		cr_assert_eq(a.len, b.len, "length %zu vs %zu for [%.*s]: [%.*s] vs [%.*s]", a.len, b.len, (int)n, in,
			     (int)a.len, a.p, (int)b.len, b.p);
		cr_assert_eq(memcmp(a.p, b.p, a.len), 0, "bytes differ for [%.*s]: [%.*s] vs [%.*s]", (int)n, in,
			     (int)a.len, a.p, (int)b.len, b.p);
	} else {
		cr_assert_eq(a.len, 0);
	}
	if (rc == 1) {
		cr_assert_eq(c.len, 0);
		cr_assert(rb == 0 && b.len == n && memcmp(b.p, in, n) == 0, "not canonical: [%.*s]", (int)n, in);
	} else {
		cr_assert_eq(rc, rb);
		cr_assert(rb != 0 || b.len != n || memcmp(b.p, in, n) != 0, "canonical but not said: [%.*s]", (int)n,
			  in);
		if (rc == 0)
			cr_assert(c.len == b.len && memcmp(c.p, b.p, b.len) == 0);
	}
	buf_free(&a);
	buf_free(&b);
	buf_free(&c);
}

static void agree_s(const char *in)
{
	agree(in, strlen(in));
}

Test(jcs, direct_path_agrees_with_the_reference_on_chosen_inputs)
{
	static const char *const cases[] = {
	    "{\"id\":1}",
	    "{\"b\":1,\"a\":2}",
	    "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"x\"}",
	    " 1 ",
	    "1",
	    "-0",
	    "-0.0",
	    "0",
	    "[-0,0,-1,1.5,1E2,1e+2,1e-2,0.1e1]",
	    "123456789012345",
	    "1234567890123456",
	    "-123456789012345",
	    "9007199254740993",
	    "1e400",
	    "-1e400",
	    "1e-400",
	    "12345678901234567890123456789012345678901234567890123456789012.5",
	    "123456789012345678901234567890123456789012345678901234567890123.5",
	    "[01]",
	    "[1.]",
	    "[.5]",
	    "[+1]",
	    "[1e]",
	    "[1-2]",
	    "[1.5.3]",
	    "[1e5e5]",
	    "[-]",
	    "[--1]",
	    "[0x10]",
	    "\"\\u00e9\"",
	    "\"\\u00E9\"",
	    "\"\\u001F\"",
	    "\"\\u001f\"",
	    "\"\\u0007\"",
	    "\"\\/\"",
	    "\"\\u002f\"",
	    "\"\\u005c\"",
	    "\"\\u0022\"",
	    "\"\\ud83d\\ude00\"",
	    "\"\\uD83D\\uDE00\"",
	    "\"\\ud83d\"",
	    "\"\\ude00\"",
	    "\"\\ud83d\\u0041\"",
	    "\"\\ud83dx\"",
	    "\"\\uZZZZ\"",
	    "\"\\u12\"",
	    "\"\\u0000\"",
	    "\"\\\\u0000\"",
	    "\"\\\\\\u0000\"",
	    "\"a\\\\\"",
	    "\"\\x\"",
	    "\"\\",
	    "\"abc",
	    "\"raw\ttab\"",
	    "\"raw\x01\"",
	    "\"\x7f\"",
	    "\"\xc3\xa9\"",
	    "\"\xc3\"",
	    "\"\xed\xa0\x80\"",
	    "\"\xf4\x90\x80\x80\"",
	    "\xef\xbb\xbf{}",
	    "\xc3\xa9",
	    "{\"\xee\x80\x80\":1,\"\xf0\x90\x80\x80\":2}",
	    "{\"\xf0\x90\x80\x80\":2,\"\xee\x80\x80\":1}",
	    "{\"\\ue000\":1,\"\\ud800\\udc00\":2}",
	    "{\"\xef\xbf\xbf\":1,\"\xf4\x8f\xbf\xbf\":2,\"\xed\x9f\xbf\":3}",
	    "{\"a\":1,\"a\":1}",
	    "{\"a\":1,\"\\u0061\":1}",
	    "{\"b\":{\"d\":1,\"c\":[{\"f\":1,\"e\":2}]},\"a\":[3,{\"h\":1,\"g\":2}]}",
	    "{\"a\":1,}",
	    "[1,]",
	    "[,1]",
	    "{,}",
	    "{\"a\"}",
	    "{\"a\":}",
	    "{\"a\" 1}",
	    "{1:1}",
	    "[1 2]",
	    "[true false]",
	    "[truex]",
	    "[nul]",
	    "[t]",
	    "nul",
	    "tru",
	    "",
	    " ",
	    "\n",
	    "[]",
	    "{}",
	    "[ ]",
	    "{ }",
	    " [ 1 , 2 ] ",
	    "{\"a\":1}\x0b",
	    "\x0b{\"a\":1}",
	    "[1,\x0b"
	    "2]",
	    "{\"a\":1} x",
	    "{\"a\":1}{}",
	    "{\"k\":\"\\\"\\\\\\/\\b\\f\\n\\r\\t\"}",
	    "{\"\\n\":1,\"A\":2,\"\\u0000\":3}",
	    "{\"\\n\":1,\"A\":2}",
	    "{\"A\":2,\"\\n\":1}",
	    "{\"\":1,\"a\":2}",
	    "{\"a\":2,\"\":1}",
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
		agree_s(cases[i]);
	/* Appending after what the buffer already holds. */
	struct buf pre = {0};
	buf_puts(&pre, "prefix:");
	cr_assert_eq(jcs_canonicalize("{\"b\": [1, {\"d\":1,\"c\":2}], \"a\":\"\\u00e9\"}", 39, &pre), 0);
	cr_assert_str_eq(buf_cstr(&pre), "prefix:{\"a\":\"\xc3\xa9\",\"b\":[1,{\"c\":2,\"d\":1}]}");
	cr_assert_eq(jcs_canonicalize_same("{\"a\":1}", 7, &pre), 1);
	cr_assert_eq(jcs_canonicalize("{\"a\":1,\"a\":2}", 13, &pre), BELAY_EINVAL);
	cr_assert_str_eq(buf_cstr(&pre), "prefix:{\"a\":\"\xc3\xa9\",\"b\":[1,{\"c\":2,\"d\":1}]}");
	buf_free(&pre);
	agree("\"a\0b\"", 5);
	agree("{\"a\":1}\0", 8);
	/* Nesting beyond the direct path's depth goes to the reference. */
	struct buf deep = {0};
	for (int d = 0; d < 1100; d++)
		buf_putc(&deep, '[');
	for (int d = 0; d < 1100; d++)
		buf_putc(&deep, ']');
	agree(deep.p, 600);	  /* not closed */
	agree(deep.p + 500, 600); /* 100 deep */
	buf_reset(&deep);
	for (int d = 0; d < 300; d++)
		buf_puts(&deep, "{\"b\":1,\"a\":[");
	for (int d = 0; d < 300; d++)
		buf_puts(&deep, "]}");
	agree(deep.p, deep.len);
	buf_reset(&deep);
	for (int d = 0; d < 300; d++)
		buf_puts(&deep, "{\"a\":[");
	for (int d = 0; d < 300; d++)
		buf_puts(&deep, "]}");
	agree(deep.p, deep.len); /* canonical, and said so by the reference path too */
	buf_free(&deep);
}

Test(jcs, direct_path_agrees_with_the_reference_on_random_inputs)
{
	struct ts_rng r = {20240601};
	struct buf b = {0};
	int same = 0, rewritten = 0, refused = 0;
	for (int i = 0; i < 60000; i++) {
		buf_reset(&b);
		ts_json_gen(&r, &b, 1 + (int)ts_rng_below(&r, 5), i % 3 != 0);
		if (i % 2)
			ts_json_mutate(&r, &b);
		agree(b.p, b.len);
		struct buf c = {0};
		int rc = jcs_canonicalize_same(b.p, b.len, &c);
		same += rc == 1;
		rewritten += rc == 0;
		refused += rc == BELAY_EINVAL;
		buf_free(&c);
	}
	/* The generator reaches all three answers often. */
	cr_assert_gt(same, 3000, "%d", same);
	cr_assert_gt(rewritten, 3000, "%d", rewritten);
	cr_assert_gt(refused, 3000, "%d", refused);
	buf_free(&b);
}
