/* jsonx.h - small conveniences over cJSON shared by every layer (no parsing of our own). */
#ifndef BELAY_COMMON_JSONX_H
#define BELAY_COMMON_JSONX_H
#include <cjson/cJSON.h>
#include <stddef.h>

#include "common/buf.h"

/* 1 if s[0..n) is well-formed UTF-8 (no overlongs, no surrogates, <= U+10FFFF). */
int utf8_valid(const char *s, size_t n);

/* Borrowed string member or NULL when absent / not a string. */
const char *jx_str(const cJSON *obj, const char *key);
/* Object member or NULL when absent / not an object. */
cJSON *jx_obj(const cJSON *obj, const char *key);
/* Follows a dotted path of object members ("params._meta.traceparent"). */
cJSON *jx_path(const cJSON *obj, const char *dotted);
/* 1 and *out when the member is a number holding an integer in [lo, hi]. */
int jx_int(const cJSON *obj, const char *key, long long lo, long long hi, long long *out);

/* A JSON value for raw bytes: a string when they are valid UTF-8 without NUL, else
 * {"base64": "..."}. Caller owns the result. */
cJSON *jx_bytes(const char *p, size_t n);
/* Inverse of jx_bytes: appends the bytes to out; returns 0 or BELAY_EINVAL when `v` has neither shape. */
int jx_bytes_decode(const cJSON *v, struct buf *out);

/* Prints compactly into a new string (caller frees). */
char *jx_print(const cJSON *v);
/* Appends compact JSON of v to out: the same bytes as jx_print, without its allocation. */
void jx_print_buf(const cJSON *v, struct buf *out);
/* Appends s as a JSON string, escaped as cJSON escapes it (NULL: ""). */
void jx_write_string(const char *s, struct buf *out);

/* Structural equality with strict types: numbers equal only when both are numbers with the
 * same value, and booleans never equal numbers. Object key order is ignored. Duplicate keys
 * make the comparison use the last occurrence, as JSON.parse does. */
int jx_equal(const cJSON *a, const cJSON *b);

/* JSON with comments (JSONC, as Gemini CLI reads its settings.json: `//` and block comments,
 * no trailing commas): a copy of text[0..len) with every comment replaced by spaces (its
 * newlines kept), so byte offsets stay those of the original, NUL-terminated. Strings are
 * left alone. */
char *jx_strip_comments(const char *text, size_t len);
/* cJSON_ParseWithLength of the text with its comments stripped; NULL when it does not parse. */
cJSON *jx_parse_jsonc(const char *text, size_t len);

#endif
