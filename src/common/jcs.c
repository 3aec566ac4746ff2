/* jcs.c - RFC 8785 canonical JSON: sorted keys (UTF-16 order), ES number formatting,
 * minimal string escaping. */
#include "common/jcs.h"

#include <locale.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "common/err.h"
#include "common/jsonx.h"
#include "common/xalloc.h"

void jcs_number(double d, char out[32])
{
	if (d == 0) {
		strcpy(out, "0");
		return;
	}
	if (!isfinite(d)) { /* cJSON holds 1e999 as infinity; JSON has no such number */
		strcpy(out, isnan(d) ? "NaN" : d < 0 ? "-Infinity" : "Infinity");
		return;
	}
	char *o = out;
	if (d < 0) {
		*o++ = '-';
		d = -d;
	}
	/* An integer below 2^53 (ids, counts, sizes: most numbers on the wire) is its decimal
	 * digits, exactly what the search below arrives at after up to 16 printf/strtod rounds
	 * (which cost the forwarding path a few microseconds per frame id). */
	if (d < 9007199254740992.0 && d == (double)(int64_t)d) {
		snprintf(o, 24, "%lld", (long long)(int64_t)d);
		return;
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
			return BELAY_EINVAL;
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
				return BELAY_EINVAL;
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
				rc = BELAY_EINVAL; /* duplicate member name */
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
		return BELAY_EINVAL;
	}
}

static int has_escaped_nul(const char *s, size_t n)
{
	return memmem(s, n, "\\u0000", 6) != NULL;
}

int jcs_canonicalize_ref(const char *json, size_t n, struct buf *out)
{
	if (!utf8_valid(json, n) || memchr(json, '\0', n) || has_escaped_nul(json, n))
		return BELAY_EINVAL;
	const char *end = NULL;
	cJSON *v = cJSON_ParseWithLengthOpts(json, n, &end, 0);
	if (!v)
		return BELAY_EINVAL;
	/* Only whitespace may follow the value. */
	for (const char *p = end; p < json + n; p++)
		if (*p != ' ' && *p != '\t' && *p != '\r' && *p != '\n') {
			cJSON_Delete(v);
			return BELAY_EINVAL;
		}
	size_t mark = out->len;
	int rc = jcs_serialize(v, out);
	cJSON_Delete(v);
	if (rc)
		out->len = mark;
	return rc;
}

/*==== the direct canonicaliser ====
 *
 * One pass over the text, no tree: it writes the canonical form as it parses, and writes
 * nothing at all while the text is its own canonical form so far ("lazy"; the first
 * difference copies the identical prefix once). It takes only inputs on which cJSON and
 * the reference path above certainly agree with it, and hands everything else (rare
 * shapes, odd numbers, anything refused) to jcs_canonicalize_ref, which decides. */

#define FAST_MAX_DEPTH 256
#define FAST_BAIL (-2)

struct member {
	size_t key, key_len; /* decoded name: offset and length in fast.keys */
	size_t start, end;   /* "name":value in output positions */
};

struct fast {
	const char *in, *p, *end;
	struct buf *out;
	size_t mark;	    /* out->len at the start */
	int lazy;	    /* the output so far is the input so far: nothing written yet */
	unsigned char high; /* OR of string bytes: bit 7 means UTF-8 to check */
	struct buf members; /* stack of struct member */
	struct buf keys;    /* decoded member names */
	struct buf tmp;
};

/* Output position now: while lazy it is the input position. */
static size_t opos(const struct fast *f)
{
	return f->lazy ? (size_t)(f->p - f->in) : f->out->len - f->mark;
}

/* The output is about to differ from the input at f->p: write the identical prefix. */
static void diverge(struct fast *f)
{
	if (f->lazy) {
		buf_append(f->out, f->in, (size_t)(f->p - f->in));
		f->lazy = 0;
	}
}

/* s[0..n) of the input goes to the output unchanged. */
static void same(struct fast *f, const char *s, size_t n)
{
	if (!f->lazy)
		buf_append(f->out, s, n);
}

static int is_ws(char c)
{
	return c == ' ' || c == '\n' || c == '\t' || c == '\r';
}

static void skip_ws(struct fast *f)
{
	if (f->p < f->end && is_ws(*f->p)) {
		diverge(f);
		while (f->p < f->end && is_ws(*f->p))
			f->p++;
	}
}

/* Length of the run of s[0..n) free of '"', '\\' and bytes below 0x20; ORs the bytes it
 * looked at into *high. */
static size_t plain_run(const unsigned char *s, size_t n, unsigned char *high)
{
	size_t i = 0;
#ifdef __SSE2__
	__m128i acc = _mm_setzero_si128();
	const __m128i q = _mm_set1_epi8('"'), bs = _mm_set1_epi8('\\'), c1f = _mm_set1_epi8(0x1f);
	for (; i + 16 <= n; i += 16) {
		__m128i v = _mm_loadu_si128((const __m128i *)(s + i));
		acc = _mm_or_si128(acc, v);
		__m128i m = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, q), _mm_cmpeq_epi8(v, bs)),
					 _mm_cmpeq_epi8(_mm_max_epu8(v, c1f), c1f));
		int bits = _mm_movemask_epi8(m);
		if (bits) {
			if (_mm_movemask_epi8(acc))
				*high |= 0x80;
			return i + (size_t)__builtin_ctz((unsigned)bits);
		}
	}
	if (_mm_movemask_epi8(acc))
		*high |= 0x80;
#endif
	for (; i < n; i++) {
		unsigned char c = s[i];
		if (c == '"' || c == '\\' || c < 0x20)
			break;
		*high |= c;
	}
	return i;
}

static int hex4(const char *s, unsigned *out)
{
	unsigned v = 0;
	for (int i = 0; i < 4; i++) {
		char c = s[i];
		unsigned d;
		if (c >= '0' && c <= '9')
			d = (unsigned)(c - '0');
		else if (c >= 'a' && c <= 'f')
			d = (unsigned)(c - 'a' + 10);
		else if (c >= 'A' && c <= 'F')
			d = (unsigned)(c - 'A' + 10);
		else
			return -1;
		v = v << 4 | d;
	}
	*out = v;
	return 0;
}

static size_t utf8_put(unsigned cp, char *o)
{
	if (cp < 0x80) {
		o[0] = (char)cp;
		return 1;
	}
	if (cp < 0x800) {
		o[0] = (char)(0xc0 | cp >> 6);
		o[1] = (char)(0x80 | (cp & 0x3f));
		return 2;
	}
	if (cp < 0x10000) {
		o[0] = (char)(0xe0 | cp >> 12);
		o[1] = (char)(0x80 | (cp >> 6 & 0x3f));
		o[2] = (char)(0x80 | (cp & 0x3f));
		return 3;
	}
	o[0] = (char)(0xf0 | cp >> 18);
	o[1] = (char)(0x80 | (cp >> 12 & 0x3f));
	o[2] = (char)(0x80 | (cp >> 6 & 0x3f));
	o[3] = (char)(0x80 | (cp & 0x3f));
	return 4;
}

/* The canonical text of code point cp inside a string (put_string's escaping). */
static size_t canon_char(unsigned cp, char *o)
{
	static const char hexd[] = "0123456789abcdef";
	char e = 0;
	switch (cp) {
	case '"':
		e = '"';
		break;
	case '\\':
		e = '\\';
		break;
	case '\b':
		e = 'b';
		break;
	case '\f':
		e = 'f';
		break;
	case '\n':
		e = 'n';
		break;
	case '\r':
		e = 'r';
		break;
	case '\t':
		e = 't';
		break;
	default:
		break;
	}
	if (e) {
		o[0] = '\\';
		o[1] = e;
		return 2;
	}
	if (cp < 0x20) {
		memcpy(o, "\\u00", 4);
		o[4] = hexd[cp >> 4];
		o[5] = hexd[cp & 15];
		return 6;
	}
	return utf8_put(cp, o);
}

/* A string at f->p; with dec non-NULL its decoded bytes are appended there too. */
static int fast_string(struct fast *f, struct buf *dec)
{
	const char *s = f->p + 1, *end = f->end;
	same(f, f->p, 1);
	for (;;) {
		size_t run = plain_run((const unsigned char *)s, (size_t)(end - s), &f->high);
		same(f, s, run);
		if (dec)
			buf_append(dec, s, run);
		s += run;
		if (s >= end)
			return FAST_BAIL;
		unsigned char c = (unsigned char)*s;
		if (c == '"') {
			same(f, s, 1);
			f->p = s + 1;
			return 0;
		}
		unsigned cp;
		size_t len;
		if (c == '\\') {
			if (end - s < 2)
				return FAST_BAIL;
			len = 2;
			switch (s[1]) {
			case '"':
				cp = '"';
				break;
			case '\\':
				/* The reference refuses any "\u0000" in the text, even after an escaped
				 * backslash. */
				if (end - s >= 7 && memcmp(s + 2, "u0000", 5) == 0)
					return FAST_BAIL;
				cp = '\\';
				break;
			case '/':
				cp = '/';
				break;
			case 'b':
				cp = '\b';
				break;
			case 'f':
				cp = '\f';
				break;
			case 'n':
				cp = '\n';
				break;
			case 'r':
				cp = '\r';
				break;
			case 't':
				cp = '\t';
				break;
			case 'u': {
				if (end - s < 6 || hex4(s + 2, &cp) || cp == 0 || (cp >= 0xdc00 && cp <= 0xdfff))
					return FAST_BAIL;
				len = 6;
				if (cp >= 0xd800 && cp <= 0xdbff) {
					unsigned lo;
					if (end - s < 12 || s[6] != '\\' || s[7] != 'u' || hex4(s + 8, &lo) ||
					    lo < 0xdc00 || lo > 0xdfff)
						return FAST_BAIL;
					cp = 0x10000 + ((cp & 0x3ff) << 10 | (lo & 0x3ff));
					len = 12;
				}
				break;
			}
			default:
				return FAST_BAIL;
			}
		} else {
			if (c == 0) /* refused by the reference */
				return FAST_BAIL;
			cp = c; /* a raw control character: cJSON keeps it, the output escapes it */
			len = 1;
		}
		char o[8];
		size_t on = canon_char(cp, o);
		if (on == len && memcmp(o, s, on) == 0) {
			same(f, s, len);
		} else {
			f->p = s;
			diverge(f);
			buf_append(f->out, o, on);
		}
		if (dec) {
			char u[4];
			buf_append(dec, u, utf8_put(cp, u));
		}
		s += len;
	}
}

static int is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static int fast_number(struct fast *f)
{
	const char *s = f->p, *end = f->end;
	int neg = 0, general = 0;
	if (*s == '-') {
		neg = 1;
		s++;
	}
	if (s >= end || !is_digit(*s))
		return FAST_BAIL;
	if (*s == '0')
		s++;
	else
		while (s < end && is_digit(*s))
			s++;
	size_t int_digits = (size_t)(s - f->p) - (size_t)neg;
	if (s < end && *s == '.') {
		general = 1;
		if (++s >= end || !is_digit(*s))
			return FAST_BAIL;
		while (s < end && is_digit(*s))
			s++;
	}
	if (s < end && (*s == 'e' || *s == 'E')) {
		general = 1;
		if (++s < end && (*s == '+' || *s == '-'))
			s++;
		if (s >= end || !is_digit(*s))
			return FAST_BAIL;
		while (s < end && is_digit(*s))
			s++;
	}
	/* cJSON reads every one of these characters as part of the number. */
	if (s < end && (is_digit(*s) || *s == '+' || *s == '-' || *s == '.' || *s == 'e' || *s == 'E'))
		return FAST_BAIL;
	size_t len = (size_t)(s - f->p);
	if (!general && int_digits <= 15) {
		/* Exactly representable: the canonical text is the integer itself, but for -0. */
		if (neg && f->p[1] == '0') {
			diverge(f);
			buf_putc(f->out, '0');
		} else {
			same(f, f->p, len);
		}
		f->p = s;
		return 0;
	}
	/* As cJSON reads it (at most 63 characters, the locale's decimal point). */
	if (len > 63)
		return FAST_BAIL;
	char nb[64], *after = NULL, num[32];
	char point = localeconv()->decimal_point[0];
	for (size_t i = 0; i < len; i++)
		nb[i] = f->p[i] == '.' ? point : f->p[i];
	nb[len] = '\0';
	double d = strtod(nb, &after);
	if (after != nb + len || !isfinite(d))
		return FAST_BAIL;
	jcs_number(d, num);
	size_t nl = strlen(num);
	if (nl == len && memcmp(num, f->p, len) == 0) {
		same(f, f->p, len);
	} else {
		diverge(f);
		buf_append(f->out, num, nl);
	}
	f->p = s;
	return 0;
}

/* true, false or null: copied as is (already canonical). */
static int fast_literal(struct fast *f, size_t left, const char *word, size_t n)
{
	if (left < n || memcmp(f->p, word, n) != 0)
		return FAST_BAIL;
	same(f, f->p, n);
	f->p += n;
	return 0;
}

static int fast_value(struct fast *f, int depth);

static int fast_array(struct fast *f, int depth)
{
	if (depth > FAST_MAX_DEPTH)
		return FAST_BAIL;
	same(f, f->p++, 1);
	skip_ws(f);
	if (f->p < f->end && *f->p == ']') {
		same(f, f->p++, 1);
		return 0;
	}
	for (;;) {
		int rc = fast_value(f, depth);
		if (rc)
			return rc;
		skip_ws(f);
		if (f->p >= f->end)
			return FAST_BAIL;
		if (*f->p == ']') {
			same(f, f->p++, 1);
			return 0;
		}
		if (*f->p != ',')
			return FAST_BAIL;
		same(f, f->p++, 1);
		skip_ws(f);
	}
}

/* RFC 8785 order of decoded names: UTF-16 code units. UTF-8 bytes sort as code points,
 * which differ from UTF-16 only between U+E000..U+FFFF (lead byte EE/EF) and the
 * supplementary planes (F0..F4), whose surrogates sort first. */
static int name_cmp(const unsigned char *a, size_t an, const unsigned char *b, size_t bn)
{
	size_t n = an < bn ? an : bn, i = 0;
	while (i < n && a[i] == b[i])
		i++;
	if (i == n)
		return (an > bn) - (an < bn);
	unsigned char x = a[i], y = b[i];
	if (x >= 0xf0 && (y == 0xee || y == 0xef))
		return -1;
	if (y >= 0xf0 && (x == 0xee || x == 0xef))
		return 1;
	return x < y ? -1 : 1;
}

static int member_cmp(const void *x, const void *y, void *ctx)
{
	const struct member *a = x, *b = y;
	const unsigned char *k = (const unsigned char *)((struct fast *)ctx)->keys.p;
	return name_cmp(k + a->key, a->key_len, k + b->key, b->key_len);
}

static int fast_object(struct fast *f, int depth)
{
	if (depth > FAST_MAX_DEPTH)
		return FAST_BAIL;
	same(f, f->p++, 1);
	size_t body = opos(f), base = f->members.len / sizeof(struct member);
	skip_ws(f);
	if (f->p < f->end && *f->p == '}') {
		same(f, f->p++, 1);
		return 0;
	}
	for (;;) {
		if (f->p >= f->end || *f->p != '"')
			return FAST_BAIL;
		struct member m;
		m.start = opos(f);
		m.key = f->keys.len;
		int rc = fast_string(f, &f->keys);
		if (rc)
			return rc;
		m.key_len = f->keys.len - m.key;
		skip_ws(f);
		if (f->p >= f->end || *f->p != ':')
			return FAST_BAIL;
		same(f, f->p++, 1);
		skip_ws(f);
		if ((rc = fast_value(f, depth)) != 0)
			return rc;
		m.end = opos(f);
		buf_append(&f->members, &m, sizeof m);
		skip_ws(f);
		if (f->p >= f->end)
			return FAST_BAIL;
		if (*f->p == '}')
			break;
		if (*f->p != ',')
			return FAST_BAIL;
		same(f, f->p++, 1);
		skip_ws(f);
	}
	struct member *ms = (struct member *)f->members.p + base;
	size_t n = f->members.len / sizeof(struct member) - base;
	int sorted = 1;
	for (size_t i = 1; i < n; i++) {
		int c = member_cmp(&ms[i - 1], &ms[i], f);
		if (c == 0)
			return FAST_BAIL; /* a duplicate name: refused */
		if (c > 0)
			sorted = 0;
	}
	size_t close = opos(f);
	same(f, f->p++, 1);
	if (!sorted) {
		qsort_r(ms, n, sizeof *ms, member_cmp, f);
		for (size_t i = 1; i < n; i++)
			if (member_cmp(&ms[i - 1], &ms[i], f) == 0)
				return FAST_BAIL;
		/* Rewrite the body in order: the same members and commas, so the same length. */
		diverge(f);
		char *o = f->out->p + f->mark;
		buf_reset(&f->tmp);
		buf_append(&f->tmp, o + body, close - body);
		size_t w = body;
		for (size_t i = 0; i < n; i++) {
			if (i)
				o[w++] = ',';
			memcpy(o + w, f->tmp.p + (ms[i].start - body), ms[i].end - ms[i].start);
			w += ms[i].end - ms[i].start;
		}
	}
	f->members.len = base * sizeof(struct member);
	return 0;
}

static int fast_value(struct fast *f, int depth)
{
	if (f->p >= f->end)
		return FAST_BAIL;
	size_t left = (size_t)(f->end - f->p);
	switch (*f->p) {
	case '"':
		return fast_string(f, NULL);
	case '{':
		return fast_object(f, depth + 1);
	case '[':
		return fast_array(f, depth + 1);
	case 't':
		return fast_literal(f, left, "true", 4);
	case 'f':
		return fast_literal(f, left, "false", 5);
	case 'n':
		return fast_literal(f, left, "null", 4);
	default:
		return *f->p == '-' || is_digit(*f->p) ? fast_number(f) : FAST_BAIL;
	}
}

/* 1: json is its own canonical form (nothing appended); 0: appended; -1: refused;
 * FAST_BAIL: not decided here (nothing appended). */
static int fast_canonicalize(const char *json, size_t n, struct buf *out)
{
	struct fast f = {.in = json, .p = json, .end = json + n, .out = out, .mark = out->len, .lazy = 1};
	int rc = FAST_BAIL;
	/* A byte order mark (cJSON skips it) or any other non-ASCII byte outside a string. */
	if (n > 0 && (unsigned char)json[0] < 0x80) {
		skip_ws(&f);
		rc = fast_value(&f, 0);
		if (rc == 0) {
			skip_ws(&f);
			if (f.p != f.end)
				rc = FAST_BAIL;
		}
		if (rc == 0 && (f.high & 0x80) && !utf8_valid(json, n))
			rc = BELAY_EINVAL;
		if (rc == 0 && f.lazy)
			rc = 1;
	}
	if (rc < 0)
		out->len = f.mark;
	buf_free(&f.members);
	buf_free(&f.keys);
	buf_free(&f.tmp);
	return rc;
}

int jcs_canonicalize_same(const char *json, size_t n, struct buf *out)
{
	int rc = fast_canonicalize(json, n, out);
	if (rc == FAST_BAIL) {
		size_t mark = out->len;
		rc = jcs_canonicalize_ref(json, n, out);
		if (rc == 0 && out->len - mark == n && memcmp(out->p + mark, json, n) == 0) {
			out->len = mark;
			rc = 1;
		}
	}
	return rc;
}

int jcs_canonicalize(const char *json, size_t n, struct buf *out)
{
	int rc = jcs_canonicalize_same(json, n, out);
	if (rc == 1) {
		buf_append(out, json, n);
		rc = 0;
	}
	return rc;
}
