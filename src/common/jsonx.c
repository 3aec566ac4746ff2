/* jsonx.c - cJSON conveniences: typed member access, byte-safe values, strict equality. */
#include "common/jsonx.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/err.h"
#include "common/hash.h"
#include "common/xalloc.h"

int utf8_valid(const char *str, size_t n)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t i = 0;
	while (i < n) {
		/* ASCII fast path, 8 bytes at a time. */
		while (i + 8 <= n) {
			uint64_t w;
			memcpy(&w, s + i, 8);
			if (w & 0x8080808080808080ull)
				break;
			i += 8;
		}
		if (i >= n)
			break;
		unsigned c = s[i];
		if (c < 0x80) {
			i++;
			continue;
		}
		size_t len;
		unsigned cp;
		if (c >= 0xc2 && c <= 0xdf) {
			len = 2;
			cp = c & 0x1f;
		} else if (c >= 0xe0 && c <= 0xef) {
			len = 3;
			cp = c & 0x0f;
		} else if (c >= 0xf0 && c <= 0xf4) {
			len = 4;
			cp = c & 0x07;
		} else {
			return 0;
		}
		if (i + len > n)
			return 0;
		for (size_t k = 1; k < len; k++) {
			if ((s[i + k] & 0xc0) != 0x80)
				return 0;
			cp = cp << 6 | (s[i + k] & 0x3f);
		}
		if ((len == 3 && cp < 0x800) || (len == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
		    (cp >= 0xd800 && cp <= 0xdfff))
			return 0;
		i += len;
	}
	return 1;
}

const char *jx_str(const cJSON *obj, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
	return cJSON_IsString(v) ? v->valuestring : NULL;
}

cJSON *jx_obj(const cJSON *obj, const char *key)
{
	cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
	return cJSON_IsObject(v) ? v : NULL;
}

cJSON *jx_path(const cJSON *obj, const char *dotted)
{
	char part[128];
	const cJSON *cur = obj;
	const char *s = dotted;
	while (cur && *s) {
		const char *dot = strchr(s, '.');
		size_t n = dot ? (size_t)(dot - s) : strlen(s);
		if (n >= sizeof part || !cJSON_IsObject(cur))
			return NULL;
		memcpy(part, s, n);
		part[n] = '\0';
		cur = cJSON_GetObjectItemCaseSensitive(cur, part);
		s = dot ? dot + 1 : s + n;
	}
	return (cJSON *)cur;
}

int jx_int(const cJSON *obj, const char *key, long long lo, long long hi, long long *out)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
	if (!cJSON_IsNumber(v))
		return 0;
	double d = v->valuedouble;
	if (d != floor(d) || d < (double)lo || d > (double)hi)
		return 0;
	*out = (long long)d;
	return 1;
}

cJSON *jx_bytes(const char *p, size_t n)
{
	if (utf8_valid(p, n) && !memchr(p, '\0', n)) {
		char *s = xstrndup(p, n);
		cJSON *v = cJSON_CreateString(s);
		free(s);
		return v;
	}
	struct buf b = {0};
	base64_encode(p, n, &b);
	cJSON *o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "base64", buf_cstr(&b));
	buf_free(&b);
	return o;
}

int jx_bytes_decode(const cJSON *v, struct buf *out)
{
	if (cJSON_IsString(v)) {
		buf_puts(out, v->valuestring);
		return 0;
	}
	const char *b64 = cJSON_IsObject(v) ? jx_str(v, "base64") : NULL;
	if (!b64)
		return BELAY_EINVAL;
	return base64_decode(b64, strlen(b64), out);
}

char *jx_print(const cJSON *v)
{
	char *s = cJSON_PrintUnformatted(v);
	if (!s)
		FATAL("out of memory printing JSON");
	return s;
}

/* A string as cJSON prints it: ", \\ and the five short escapes, other bytes below 0x20 as
 * \\u00xx (lowercase hex), every other byte as it is; NULL as "". */
void jx_write_string(const char *s, struct buf *out)
{
	static const char hex[] = "0123456789abcdef";
	buf_putc(out, '"');
	const unsigned char *p = (const unsigned char *)(s ? s : ""), *run = p;
	for (;; p++) {
		unsigned char c = *p;
		if (c >= 0x20 && c != '"' && c != '\\')
			continue;
		buf_append(out, run, (size_t)(p - run));
		if (c == 0)
			break;
		char e[6] = {'\\', 0};
		size_t n = 2;
		switch (c) {
		case '"': e[1] = '"'; break;
		case '\\': e[1] = '\\'; break;
		case '\b': e[1] = 'b'; break;
		case '\f': e[1] = 'f'; break;
		case '\n': e[1] = 'n'; break;
		case '\r': e[1] = 'r'; break;
		case '\t': e[1] = 't'; break;
		default:
			e[1] = 'u', e[2] = '0', e[3] = '0', e[4] = hex[c >> 4], e[5] = hex[c & 15];
			n = 6;
		}
		buf_append(out, e, n);
		run = p + 1;
	}
	buf_putc(out, '"');
}

/* What cJSON's own printer would give for v, without building a string of its own first
 * (the trace writer prints every record's fields through here). Numbers that are not
 * integers, and raw or invalid items, are left to cJSON itself, so the bytes are the same. */
static void write_value(const cJSON *v, struct buf *out)
{
	switch (v->type & 0xFF) {
	case cJSON_NULL:
		buf_append(out, "null", 4);
		return;
	case cJSON_False:
		buf_append(out, "false", 5);
		return;
	case cJSON_True:
		buf_append(out, "true", 4);
		return;
	case cJSON_String:
		jx_write_string(v->valuestring, out);
		return;
	case cJSON_Number: {
		/* cJSON prints a number with "%1.15g" (then "%1.17g" if that does not read back):
		 * for an integer below 1e15 in magnitude that is its digits, -0 included. */
		double d = v->valuedouble;
		if (fabs(d) < 1e15 && d == (double)(long long)d) {
			char t[24];
			int n = signbit(d) && d == 0 ? snprintf(t, sizeof t, "-0") : snprintf(t, sizeof t, "%lld", (long long)d);
			buf_append(out, t, (size_t)n);
			return;
		}
		break;
	}
	case cJSON_Array:
	case cJSON_Object: {
		int obj = (v->type & 0xFF) == cJSON_Object;
		buf_putc(out, obj ? '{' : '[');
		for (const cJSON *c = v->child; c; c = c->next) {
			if (c != v->child)
				buf_putc(out, ',');
			if (obj) {
				jx_write_string(c->string, out);
				buf_putc(out, ':');
			}
			write_value(c, out);
		}
		buf_putc(out, obj ? '}' : ']');
		return;
	}
	}
	char *s = jx_print(v);
	buf_puts(out, s);
	cJSON_free(s);
}

void jx_print_buf(const cJSON *v, struct buf *out)
{
	write_value(v, out);
}

/* The last member called `key` (JSON.parse semantics for duplicate keys). */
static const cJSON *last_member(const cJSON *obj, const char *key)
{
	const cJSON *found = NULL;
	for (const cJSON *c = obj->child; c; c = c->next)
		if (c->string && strcmp(c->string, key) == 0)
			found = c;
	return found;
}

static int count_distinct_keys(const cJSON *obj)
{
	int n = 0;
	for (const cJSON *c = obj->child; c; c = c->next)
		if (last_member(obj, c->string) == c)
			n++;
	return n;
}

int jx_equal(const cJSON *a, const cJSON *b)
{
	if (!a || !b)
		return a == b;
	int ta = a->type & 0xff, tb = b->type & 0xff;
	if (ta != tb)
		return 0;
	switch (ta) {
	case cJSON_False:
	case cJSON_True:
	case cJSON_NULL:
		return 1;
	case cJSON_Number:
		return a->valuedouble == b->valuedouble;
	case cJSON_String:
		return strcmp(a->valuestring, b->valuestring) == 0;
	case cJSON_Array: {
		const cJSON *x = a->child, *y = b->child;
		for (; x && y; x = x->next, y = y->next)
			if (!jx_equal(x, y))
				return 0;
		return !x && !y;
	}
	case cJSON_Object:
		if (count_distinct_keys(a) != count_distinct_keys(b))
			return 0;
		for (const cJSON *x = a->child; x; x = x->next) {
			if (last_member(a, x->string) != x)
				continue;
			const cJSON *y = last_member(b, x->string);
			if (!y || !jx_equal(x, y))
				return 0;
		}
		return 1;
	default:
		return 0;
	}
}

char *jx_strip_comments(const char *text, size_t len)
{
	char *s = xmalloc(len + 1);
	memcpy(s, text, len);
	s[len] = '\0';
	for (size_t i = 0; i < len; i++) {
		if (s[i] == '"') {
			for (i++; i < len && s[i] != '"'; i++)
				if (s[i] == '\\' && i + 1 < len)
					i++;
		} else if (s[i] == '/' && i + 1 < len && s[i + 1] == '/') {
			for (; i < len && s[i] != '\n'; i++)
				s[i] = ' ';
		} else if (s[i] == '/' && i + 1 < len && s[i + 1] == '*') {
			s[i] = s[i + 1] = ' ';
			for (i += 2; i < len && !(s[i] == '*' && i + 1 < len && s[i + 1] == '/'); i++)
				if (s[i] != '\n')
					s[i] = ' ';
			if (i < len) { /* the closing star and slash; an unclosed comment runs to the end */
				s[i] = s[i + 1] = ' ';
				i++;
			}
		}
	}
	return s;
}

cJSON *jx_parse_jsonc(const char *text, size_t len)
{
	char *s = jx_strip_comments(text, len);
	cJSON *o = cJSON_ParseWithLength(s, len);
	free(s);
	return o;
}
