/* ts_jsongen.c - see ts_jsongen.h. */
#include "ts_jsongen.h"

#include <string.h>

uint64_t ts_rng_next(struct ts_rng *r)
{
	/* xorshift64*; a zero state is moved off zero. */
	if (r->s == 0)
		r->s = 0x9e3779b97f4a7c15ull;
	r->s ^= r->s >> 12;
	r->s ^= r->s << 25;
	r->s ^= r->s >> 27;
	return r->s * 0x2545f4914f6cdd1dull;
}

unsigned ts_rng_below(struct ts_rng *r, unsigned n)
{
	return n ? (unsigned)(ts_rng_next(r) >> 33) % n : 0;
}

#define PICK(r, arr) (arr)[ts_rng_below((r), (unsigned)(sizeof(arr) / sizeof((arr)[0])))]

/* String pieces that are already canonical, and the ones a canonical form rewrites. */
static const char *const clean_pieces[] = {
    "a",
    "id",
    "x y",
    "Z",
    "1",
    "jsonrpc",
    "2.0",
    "tools/call",
    "\\n",
    "\\t",
    "\\\"",
    "\\\\",
    "\\b",
    "\\f",
    "\\r",
    "\\u0007",
    "\\u001f",
    "\\u0000",
    "\xc3\xa9",
    "\xe2\x82\xac",
    "\xf0\x9f\x98\x80",
    "\xef\xac\xb3",
    "\xee\x80\x80",
    "\xf0\x90\x80\x80",
    "\x7f",
    "\xe2\x80\xa8",
    "/",
    "<>&'",
    "0123456789abcdef",
};
static const char *const messy_pieces[] = {
    "\\/",     "\\u00e9",   "\\u00E9", "\\u20ac", "\\ud83d\\ude00", "\\uD834\\uDD1E", "\\ufb33", "\\ue000", "\\u0041",
    "\\u007f", "\\u2028",   "\\u001F", "\\u000a", "\\u0022",	    "\\u005c",	      "\\u005C", "\t",	    "\x01",
    "\x1f",    "\\\\u0000", "\\ud800", "\\udc00", "\\ud83d\\u0041", "\\uZZZZ",	      "\\u12",	 "\\x",	    "\\'",
};
static const char *const clean_numbers[] = {
    "0",
    "1",
    "-1",
    "42",
    "123456789012345",
    "1.5",
    "-1.5",
    "0.1",
    "1e+21",
    "1e-7",
    "0.000001",
    "5e-324",
    "4.35",
    "333333333.3333333",
    "100",
    "1000000",
    "0.5",
    "3.14159",
    "-0.0125",
    "9007199254740992",
    "1.7976931348623157e+308",
};
static const char *const messy_numbers[] = {
    "-0",
    "1234567890123456",
    "9007199254740993",
    "12345678901234567890123",
    "1E21",
    "1e21",
    "1e+2",
    "1.0",
    "2e2",
    "-0.0",
    "1e400",
    "-1e400",
    "1E-7",
    "0.10",
    "12.5e-3",
    "1.7976931348623157e308",
    "0e0",
    "-0e-0",
    "01",
    "1.",
    ".5",
    "+1",
    "1e",
    "1e+",
    "-",
    "--1",
    "1.5e",
    "0x10",
    "1_000",
    "1234567890123456789012345678901234567890123456789012345678901234567890",
    "0.00000000000000000000000000000000000000000000000000000000000000000000001",
};
static const char *const keys[] = {
    "a",
    "b",
    "aa",
    "ab",
    "B",
    "id",
    "jsonrpc",
    "method",
    "params",
    "result",
    "error",
    "",
    "1",
    "10",
    "2",
    "\xc3\xb6",
    "\xe2\x82\xac",
    "\xf0\x9f\x98\x80",
    "\xef\xac\xb3",
    "\\u20ac",
    "\\r",
    "\\n",
    "\xc2\x80",
    "a\\u0000",
    "key with spaces",
};

static void ws(struct ts_rng *r, struct buf *out, int messy)
{
	if (!messy || ts_rng_below(r, 3))
		return;
	static const char *const w[] = {" ", "\n", "\t", "\r\n", "  ", "\x0b", "\x0c"};
	/* Vertical tab and form feed are not JSON whitespace: rare. */
	unsigned n = ts_rng_below(r, 20) == 0 ? 7 : 5;
	buf_puts(out, w[ts_rng_below(r, n)]);
}

static void gen_string(struct ts_rng *r, struct buf *out, int messy)
{
	buf_putc(out, '"');
	unsigned n = ts_rng_below(r, 6);
	for (unsigned i = 0; i < n; i++) {
		unsigned pick = ts_rng_below(r, 10);
		if (pick == 0) {
			unsigned len = ts_rng_below(r, 4) == 0 ? ts_rng_below(r, 3000) : ts_rng_below(r, 40);
			for (unsigned k = 0; k < len; k++)
				buf_putc(out, (char)('a' + (k * 7 + len) % 26));
		} else if (messy && pick < 4) {
			const char *p = PICK(r, messy_pieces);
			/* The refused ones are kept rare. */
			if (strstr(p, "u0000") || strstr(p, "\\ud8") || strstr(p, "\\udc") || strstr(p, "ZZ") ||
			    strstr(p, "u12") || strstr(p, "\\x") || strstr(p, "\\'"))
				if (ts_rng_below(r, 8))
					p = "\\u00e9";
			buf_puts(out, p);
		} else {
			const char *p = PICK(r, clean_pieces);
			if (strcmp(p, "\\u0000") == 0 && ts_rng_below(r, 8))
				p = "\\u001f";
			buf_puts(out, p);
		}
	}
	buf_putc(out, '"');
}

static void gen_number(struct ts_rng *r, struct buf *out, int messy)
{
	if (messy && ts_rng_below(r, 3) == 0) {
		const char *p = PICK(r, messy_numbers);
		/* Numbers JSON does not allow are rarer than the odd but valid ones. */
		if (ts_rng_below(r, 4) &&
		    (p[0] == '.' || p[0] == '+' || strchr(p, 'x') || strchr(p, '_') || (p[0] == '0' && p[1] == '1') ||
		     p[strlen(p) - 1] == 'e' || p[strlen(p) - 1] == '+' || p[strlen(p) - 1] == '.' ||
		     strcmp(p, "-") == 0 || strcmp(p, "--1") == 0))
			p = "-0";
		buf_puts(out, p);
		return;
	}
	if (ts_rng_below(r, 2)) {
		buf_puts(out, PICK(r, clean_numbers));
		return;
	}
	/* An integer of 1..15 digits. */
	if (ts_rng_below(r, 4) == 0)
		buf_putc(out, '-');
	unsigned digits = 1 + ts_rng_below(r, 15);
	buf_putc(out, (char)('1' + ts_rng_below(r, 9)));
	for (unsigned i = 1; i < digits; i++)
		buf_putc(out, (char)('0' + ts_rng_below(r, 10)));
}

static void gen_value(struct ts_rng *r, struct buf *out, int depth, int messy);

static void gen_object(struct ts_rng *r, struct buf *out, int depth, int messy)
{
	unsigned n = ts_rng_below(r, 6);
	const char *chosen[8];
	unsigned m = 0;
	for (unsigned i = 0; i < n; i++) {
		const char *k = PICK(r, keys);
		if (!messy && (strchr(k, '\\') || (unsigned char)k[0] >= 0x80))
			continue; /* a clean object keeps ASCII keys, sorted below */
		int dup = 0;
		for (unsigned j = 0; j < m; j++)
			if (strcmp(chosen[j], k) == 0)
				dup = 1;
		if (dup && !(messy && ts_rng_below(r, 10) == 0))
			continue;
		if (strstr(k, "u0000") && ts_rng_below(r, 8))
			continue;
		chosen[m++] = k;
	}
	if (!messy) { /* ASCII keys: byte order is UTF-16 order */
		for (unsigned i = 1; i < m; i++)
			for (unsigned j = i; j > 0 && strcmp(chosen[j - 1], chosen[j]) > 0; j--) {
				const char *t = chosen[j];
				chosen[j] = chosen[j - 1];
				chosen[j - 1] = t;
			}
	}
	buf_putc(out, '{');
	ws(r, out, messy);
	for (unsigned i = 0; i < m; i++) {
		if (i) {
			buf_putc(out, ',');
			ws(r, out, messy);
		}
		buf_putc(out, '"');
		buf_puts(out, chosen[i]);
		buf_putc(out, '"');
		ws(r, out, messy);
		buf_putc(out, ':');
		ws(r, out, messy);
		gen_value(r, out, depth - 1, messy);
		ws(r, out, messy);
	}
	buf_putc(out, '}');
}

static void gen_value(struct ts_rng *r, struct buf *out, int depth, int messy)
{
	unsigned pick = ts_rng_below(r, depth > 0 ? 9 : 6);
	switch (pick) {
	case 0:
		buf_puts(out, "null");
		break;
	case 1:
		buf_puts(out, ts_rng_below(r, 2) ? "true" : "false");
		break;
	case 2:
	case 3:
		gen_number(r, out, messy);
		break;
	case 4:
	case 5:
		gen_string(r, out, messy);
		break;
	case 6: {
		unsigned n = ts_rng_below(r, 5);
		buf_putc(out, '[');
		ws(r, out, messy);
		for (unsigned i = 0; i < n; i++) {
			if (i) {
				buf_putc(out, ',');
				ws(r, out, messy);
			}
			gen_value(r, out, depth - 1, messy);
			ws(r, out, messy);
		}
		buf_putc(out, ']');
		break;
	}
	default:
		gen_object(r, out, depth, messy);
	}
}

void ts_json_gen(struct ts_rng *r, struct buf *out, int max_depth, int messy)
{
	if (messy && ts_rng_below(r, 40) == 0)
		buf_puts(out, "\xef\xbb\xbf"); /* a byte order mark (cJSON skips it) */
	ws(r, out, messy);
	if (ts_rng_below(r, 4))
		gen_object(r, out, max_depth, messy);
	else
		gen_value(r, out, max_depth, messy);
	ws(r, out, messy);
}

void ts_json_mutate(struct ts_rng *r, struct buf *b)
{
	static const char interesting[] = {'"',	       '\\', '{', '}', '[',  ']', ',',	      ':',
					   ' ',	       '0',  'e', '.', '-',  'u', (char)0x80, (char)0xff,
					   (char)0xc3, '\0', 't', 'n', '\n', 'x', '1',	      '\x01'};
	unsigned edits = 1 + ts_rng_below(r, 3);
	for (unsigned e = 0; e < edits; e++) {
		size_t pos = b->len ? ts_rng_below(r, (unsigned)b->len) : 0;
		switch (ts_rng_below(r, 4)) {
		case 0:
			if (b->len)
				b->p[pos] = interesting[ts_rng_below(r, sizeof interesting)];
			break;
		case 1: {
			char c = interesting[ts_rng_below(r, sizeof interesting)];
			buf_putc(b, 0);
			memmove(b->p + pos + 1, b->p + pos, b->len - 1 - pos);
			b->p[pos] = c;
			break;
		}
		case 2:
			if (b->len) {
				memmove(b->p + pos, b->p + pos + 1, b->len - pos - 1);
				b->len--;
			}
			break;
		default: {
			/* Copy a short range elsewhere (duplicates keys, nests values). */
			if (b->len < 2)
				break;
			size_t from = ts_rng_below(r, (unsigned)b->len), n = 1 + ts_rng_below(r, 12);
			if (from + n > b->len)
				n = b->len - from;
			char tmp[16];
			memcpy(tmp, b->p + from, n);
			buf_reserve(b, n);
			memmove(b->p + pos + n, b->p + pos, b->len - pos);
			memcpy(b->p + pos, tmp, n);
			b->len += n;
		}
		}
	}
	buf_cstr(b);
}
