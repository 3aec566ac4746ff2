/* test_jsonx_print.c - jx_print_buf (common/jsonx.h) writes what cJSON's own printer writes,
 * byte for byte: every byte value in strings and keys, the numbers cJSON prints as integers
 * and those it leaves to printf, NaN and infinities, raw items, empty and nested containers,
 * and thousands of random trees. The trace's records are printed through it: a difference
 * would change what a trace says. */
#include <criterion/criterion.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf.h"
#include "common/jsonx.h"
#include "ts_jsongen.h"

static void same_as_cjson(const cJSON *v, const char *what)
{
	char *want = cJSON_PrintUnformatted(v);
	cr_assert(want, "%s: cJSON could not print it", what);
	struct buf got = {0};
	jx_print_buf(v, &got);
	buf_cstr(&got);
	cr_assert_eq(got.len, strlen(want), "%s: %zu bytes, cJSON %zu\n got  %s\n want %s", what, got.len, strlen(want),
		     got.p, want);
	cr_assert(memcmp(got.p, want, got.len) == 0, "%s:\n got  %s\n want %s", what, got.p, want);
	buf_free(&got);
	cJSON_free(want);
}

Test(jsonx_print, every_byte_in_a_string_and_a_key_is_escaped_as_cjson_escapes_it)
{
	char s[256];
	for (int i = 1; i < 256; i++)
		s[i - 1] = (char)i;
	s[255] = '\0';
	cJSON *o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, s, s);
	cJSON_AddStringToObject(o, "", "");
	for (int i = 1; i < 256; i++) { /* one byte at a time, and amid text */
		char one[2] = {(char)i, 0}, amid[8] = {'a', (char)i, 'b', 0};
		cJSON_AddItemToArray(cJSON_AddArrayToObject(o, amid), cJSON_CreateString(one));
	}
	same_as_cjson(o, "bytes 1..255");
	cJSON_Delete(o);

	/* A string item whose text is NULL prints as "" in cJSON. */
	cJSON *n = cJSON_CreateString("x");
	cJSON_free(n->valuestring);
	n->valuestring = NULL;
	same_as_cjson(n, "NULL valuestring");
	cJSON_Delete(n);
}

Test(jsonx_print, numbers_print_as_cjson_prints_them)
{
	const double v[] = {0,	       -0.0,	     1,		 -1,	     42,	  INT_MAX,	   INT_MIN,
			    2147483648.0, -2147483649.0, 1e300,	 -1e-300,   0.1,	  1.0 / 3,	   123456789012345678.0,
			    5e-324,	  1.7976931348623157e308,	 0.5,	     -2.5,	  4294967296.0,  NAN,
			    INFINITY,	  -INFINITY,	 9007199254740993.0, 100,	  1e15,	 1e16,	 1e21};
	cJSON *a = cJSON_CreateArray();
	for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
		cJSON *x = cJSON_CreateNumber(v[i]);
		same_as_cjson(x, "one number");
		cJSON_AddItemToArray(a, x);
	}
	same_as_cjson(a, "numbers");
	cJSON_Delete(a);
}

Test(jsonx_print, literals_raw_items_and_containers_print_as_cjson_prints_them)
{
	cJSON *o = cJSON_CreateObject();
	cJSON_AddNullToObject(o, "n");
	cJSON_AddTrueToObject(o, "t");
	cJSON_AddFalseToObject(o, "f");
	cJSON_AddRawToObject(o, "raw", "{\"already\": [1, 2]}");
	cJSON_AddObjectToObject(o, "empty_object");
	cJSON_AddArrayToObject(o, "empty_array");
	cJSON *deep = cJSON_AddArrayToObject(o, "deep");
	for (int i = 0; i < 40; i++) { /* nested 40 deep, an object every fourth level */
		cJSON *inner = i % 4 == 3 ? cJSON_CreateObject() : cJSON_CreateArray();
		if (cJSON_IsObject(deep))
			cJSON_AddItemToObject(deep, "k", inner);
		else
			cJSON_AddItemToArray(deep, inner);
		deep = inner;
	}
	cJSON_AddItemToObject(o, "dup", cJSON_CreateNumber(1));
	cJSON_AddItemToObject(o, "dup", cJSON_CreateNumber(2)); /* duplicate keys print as they are */
	same_as_cjson(o, "literals and containers");
	cJSON_Delete(o);
	cJSON *e = cJSON_CreateArray();
	same_as_cjson(e, "an empty array alone");
	cJSON_Delete(e);
}

/* the same trees on every run */
static struct ts_rng rng = {0x9e3779b97f4a7c15ull};

static uint64_t next(void)
{
	return ts_rng_next(&rng);
}

static char *random_text(void)
{
	size_t n = next() % 12;
	char *s = malloc(n + 1);
	for (size_t i = 0; i < n; i++) {
		uint64_t r = next();
		s[i] = (char)(r % 4 == 0 ? 1 + r % 255 : 'a' + r % 26); /* now and then any byte */
	}
	s[n] = '\0';
	return s;
}

static cJSON *random_value(int depth)
{
	switch (next() % (depth > 4 ? 5 : 7)) {
	case 0:
		return cJSON_CreateNull();
	case 1:
		return cJSON_CreateBool(next() % 2);
	case 2: {
		uint64_t r = next();
		double d = r % 3 == 0 ? (double)(int64_t)(next() % 2000001) - 1000000 /* integers */
			   : r % 3 == 1 ? (double)(int64_t)next() / (double)(1 + next() % 1000000)
					: ldexp((double)(next() % 1000) - 500, (int)(next() % 200) - 100);
		return cJSON_CreateNumber(d);
	}
	case 3:
	case 4: {
		char *s = random_text();
		cJSON *v = cJSON_CreateString(s);
		free(s);
		return v;
	}
	case 5: {
		cJSON *a = cJSON_CreateArray();
		for (int n = (int)(next() % 5); n > 0; n--)
			cJSON_AddItemToArray(a, random_value(depth + 1));
		return a;
	}
	default: {
		cJSON *o = cJSON_CreateObject();
		for (int n = (int)(next() % 5); n > 0; n--) {
			char *k = random_text();
			cJSON_AddItemToObject(o, k, random_value(depth + 1));
			free(k);
		}
		return o;
	}
	}
}

Test(jsonx_print, thousands_of_random_trees_print_as_cjson_prints_them)
{
	for (int i = 0; i < 5000; i++) {
		cJSON *v = random_value(0);
		char what[32];
		snprintf(what, sizeof what, "tree %d", i);
		same_as_cjson(v, what);
		cJSON_Delete(v);
	}
}

Test(jsonx_print, every_document_of_the_json_generator_prints_as_cjson_prints_it)
{
	/* the canonicalisation tests' documents: escapes, UTF-8 and UTF-16 escapes, numbers of
	 * every form, parsed by cJSON and printed both ways */
	struct ts_rng r = {42};
	struct buf doc = {0};
	int printed = 0;
	for (int i = 0; i < 3000; i++) {
		buf_reset(&doc);
		ts_json_gen(&r, &doc, 5, 1);
		cJSON *v = cJSON_ParseWithLength(doc.p, doc.len);
		if (!v)
			continue;
		char what[32];
		snprintf(what, sizeof what, "document %d", i);
		same_as_cjson(v, what);
		cJSON_Delete(v);
		printed++;
	}
	buf_free(&doc);
	cr_assert_gt(printed, 2000, "only %d of 3000 documents parsed", printed);
}
