/* test_jcs.c - RFC 8785 canonicalisation (numbers, strings, key order) and its refusals. */
#include <criterion/criterion.h>
#include <string.h>

#include "common/buf.h"
#include "common/jcs.h"

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
	cr_assert_eq(jcs_canonicalize(in, n, &b), -1, "should be refused: %s", in);
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
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		char out[32];
		jcs_number(cases[i].d, out);
		cr_assert_str_eq(out, cases[i].s, "case %zu", i);
	}
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
