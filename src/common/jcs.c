/* jcs.c - RFC 8785 canonical JSON: sorted keys (UTF-16 order), ES number formatting,
 * minimal string escaping. */
#include "common/jcs.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/jsonx.h"
#include "common/xalloc.h"

void jcs_number(double d, char out[32])
{
	if (d == 0) {
		strcpy(out, "0");
		return;
	}
	char *o = out;
	if (d < 0) {
		*o++ = '-';
		d = -d;
	}
	/* Shortest round-tripping digit string: try 1..17 significant digits. */
	char tmp[40], digits[24];
	int exp10 = 0, k = 0;
	for (int p = 1; p <= 17; p++) {
		snprintf(tmp, sizeof tmp, "%.*e", p - 1, d);
		if (strtod(tmp, NULL) == d || p == 17)
			break;
	}
	/* tmp is "D[.DDD]e[+-]XX" */
	char *e = strchr(tmp, 'e');
	exp10 = atoi(e + 1);
	for (char *s = tmp; s < e; s++)
		if (*s != '.')
			digits[k++] = *s;
	while (k > 1 && digits[k - 1] == '0')
		k--;
	digits[k] = '\0';
	int n = exp10 + 1;
	if (k <= n && n <= 21) {
		memcpy(o, digits, (size_t)k);
		o += k;
		for (int i = 0; i < n - k; i++)
			*o++ = '0';
	} else if (0 < n && n <= 21) {
		memcpy(o, digits, (size_t)n);
		o += n;
		*o++ = '.';
		memcpy(o, digits + n, (size_t)(k - n));
		o += k - n;
	} else if (-6 < n && n <= 0) {
		*o++ = '0';
		*o++ = '.';
		for (int i = 0; i < -n; i++)
			*o++ = '0';
		memcpy(o, digits, (size_t)k);
		o += k;
	} else {
		*o++ = digits[0];
		if (k > 1) {
			*o++ = '.';
			memcpy(o, digits + 1, (size_t)(k - 1));
			o += k - 1;
		}
		o += sprintf(o, "e%c%d", n - 1 >= 0 ? '+' : '-', abs(n - 1));
	}
	*o = '\0';
}

/* 1 if any of the 8 bytes in w is below 0x20, '"' or '\\' (SWAR). */
static int word_needs_escape(uint64_t w)
{
	const uint64_t ones = 0x0101010101010101ull, highs = 0x8080808080808080ull;
	uint64_t q = w ^ (ones * '"'), b = w ^ (ones * '\\');
	return (((w - ones * 0x20) & ~w) | ((q - ones) & ~q) | ((b - ones) & ~b)) & highs ? 1 : 0;
}

static void put_string(struct buf *out, const char *s)
{
	size_t n = strlen(s), i = 0, run = 0;
	buf_reserve(out, n + 2);
	buf_putc(out, '"');
	while (i < n) {
		if (i + 8 <= n) {
			uint64_t w;
			memcpy(&w, s + i, 8);
			if (!word_needs_escape(w)) {
				i += 8;
				continue;
			}
		}
		unsigned char c = (unsigned char)s[i];
		if (c >= 0x20 && c != '"' && c != '\\') {
			i++;
			continue;
		}
		if (i > run)
			buf_append(out, s + run, i - run);
		run = ++i;
		switch (c) {
		case '"': buf_append(out, "\\\"", 2); break;
		case '\\': buf_append(out, "\\\\", 2); break;
		case '\b': buf_append(out, "\\b", 2); break;
		case '\f': buf_append(out, "\\f", 2); break;
		case '\n': buf_append(out, "\\n", 2); break;
		case '\r': buf_append(out, "\\r", 2); break;
		case '\t': buf_append(out, "\\t", 2); break;
		default: buf_printf(out, "\\u%04x", c);
		}
	}
	if (n > run)
		buf_append(out, s + run, n - run);
	buf_putc(out, '"');
}

/* Decodes one UTF-8 sequence (input already validated) and returns its UTF-16 units. */
static int utf16_units(const unsigned char **pp, unsigned u[2])
{
	const unsigned char *p = *pp;
	unsigned cp;
	int len;
	if (p[0] < 0x80) {
		cp = p[0];
		len = 1;
	} else if (p[0] < 0xe0) {
		cp = (p[0] & 0x1fu) << 6 | (p[1] & 0x3fu);
		len = 2;
	} else if (p[0] < 0xf0) {
		cp = (p[0] & 0x0fu) << 12 | (p[1] & 0x3fu) << 6 | (p[2] & 0x3fu);
		len = 3;
	} else {
		cp = (p[0] & 0x07u) << 18 | (p[1] & 0x3fu) << 12 | (p[2] & 0x3fu) << 6 | (p[3] & 0x3fu);
		len = 4;
	}
	*pp = p + len;
	if (cp >= 0x10000) {
		cp -= 0x10000;
		u[0] = 0xd800 + (cp >> 10);
		u[1] = 0xdc00 + (cp & 0x3ff);
		return 2;
	}
	u[0] = cp;
	return 1;
}

static int utf16_cmp(const char *a, const char *b)
{
	const unsigned char *pa = (const unsigned char *)a, *pb = (const unsigned char *)b;
	unsigned ua[2], ub[2];
	int na = 0, nb = 0, ia = 0, ib = 0;
	for (;;) {
		if (ia == na) {
			if (!*pa)
				na = 0;
			else
				na = utf16_units(&pa, ua);
			ia = 0;
		}
		if (ib == nb) {
			if (!*pb)
				nb = 0;
			else
				nb = utf16_units(&pb, ub);
			ib = 0;
		}
		if (na == 0 || nb == 0)
			return (na != 0) - (nb != 0);
		if (ua[ia] != ub[ib])
			return ua[ia] < ub[ib] ? -1 : 1;
		ia++;
		ib++;
	}
}

static int cmp_members(const void *x, const void *y)
{
	const cJSON *a = *(const cJSON *const *)x, *b = *(const cJSON *const *)y;
	return utf16_cmp(a->string, b->string);
}

int jcs_serialize(const cJSON *v, struct buf *out)
{
	switch (v->type & 0xff) {
	case cJSON_NULL: buf_puts(out, "null"); return 0;
	case cJSON_True: buf_puts(out, "true"); return 0;
	case cJSON_False: buf_puts(out, "false"); return 0;
	case cJSON_Number: {
		if (!isfinite(v->valuedouble))
			return -1;
		char num[32];
		jcs_number(v->valuedouble, num);
		buf_puts(out, num);
		return 0;
	}
	case cJSON_String: put_string(out, v->valuestring); return 0;
	case cJSON_Array:
		buf_putc(out, '[');
		for (const cJSON *c = v->child; c; c = c->next) {
			if (c != v->child)
				buf_putc(out, ',');
			if (jcs_serialize(c, out))
				return -1;
		}
		buf_putc(out, ']');
		return 0;
	case cJSON_Object: {
		int n = cJSON_GetArraySize(v), i = 0, rc = 0;
		const cJSON **m = xcalloc((size_t)n + 1, sizeof *m);
		for (const cJSON *c = v->child; c; c = c->next)
			m[i++] = c;
		qsort(m, (size_t)n, sizeof *m, cmp_members);
		buf_putc(out, '{');
		for (i = 0; i < n && rc == 0; i++) {
			if (i > 0 && strcmp(m[i]->string, m[i - 1]->string) == 0)
				rc = -1; /* duplicate member name */
			if (i)
				buf_putc(out, ',');
			put_string(out, m[i]->string);
			buf_putc(out, ':');
			if (rc == 0)
				rc = jcs_serialize(m[i], out);
		}
		buf_putc(out, '}');
		free(m);
		return rc;
	}
	default:
		return -1;
	}
}

static int has_escaped_nul(const char *s, size_t n)
{
	return memmem(s, n, "\\u0000", 6) != NULL;
}

int jcs_canonicalize(const char *json, size_t n, struct buf *out)
{
	if (!utf8_valid(json, n) || memchr(json, '\0', n) || has_escaped_nul(json, n))
		return -1;
	const char *end = NULL;
	cJSON *v = cJSON_ParseWithLengthOpts(json, n, &end, 0);
	if (!v)
		return -1;
	/* Only whitespace may follow the value. */
	for (const char *p = end; p < json + n; p++)
		if (*p != ' ' && *p != '\t' && *p != '\r' && *p != '\n') {
			cJSON_Delete(v);
			return -1;
		}
	size_t mark = out->len;
	int rc = jcs_serialize(v, out);
	cJSON_Delete(v);
	if (rc)
		out->len = mark;
	return rc;
}
