/* termsafe.c - what must not reach a terminal as it is, and its escaping (termsafe.h). */
#include "common/termsafe.h"

#include <string.h>

size_t termsafe_decode(const unsigned char *s, size_t n, uint32_t *cp, int *bad)
{
	unsigned c = s[0];
	size_t len;
	uint32_t v, min;
	if (bad)
		*bad = 0;
	if (c < 0x80) {
		*cp = c;
		return 1;
	}
	if (c >= 0xC2 && c <= 0xDF) {
		len = 2, v = c & 0x1F, min = 0x80;
	} else if (c >= 0xE0 && c <= 0xEF) {
		len = 3, v = c & 0x0F, min = 0x800;
	} else if (c >= 0xF0 && c <= 0xF4) {
		len = 4, v = c & 0x07, min = 0x10000;
	} else {
		goto invalid;
	}
	if (n < len)
		goto invalid;
	for (size_t i = 1; i < len; i++) {
		if ((s[i] & 0xC0) != 0x80)
			goto invalid;
		v = (v << 6) | (s[i] & 0x3F);
	}
	if (v < min || v > 0x10FFFF || (v >= 0xD800 && v <= 0xDFFF))
		goto invalid;
	*cp = v;
	return len;
invalid:
	*cp = TERMSAFE_REPLACEMENT;
	if (bad)
		*bad = 1;
	return 1;
}

enum termsafe_class termsafe_class(uint32_t c)
{
	if (c < 0x20 || c == 0x7F || (c >= 0x80 && c < 0xA0))
		return TERMSAFE_CONTROL;
	if (c < 0x115F)
		return c == 0x061C ? TERMSAFE_INVISIBLE : TERMSAFE_PRINT;
	/* bidi controls, zero-width and invisible format characters, separators, fillers */
	static const struct {
		uint32_t lo, hi;
	} inv[] = {
	    {0x115F, 0x1160},   {0x180E, 0x180E},   {0x200B, 0x200F}, {0x2028, 0x202E}, {0x2060, 0x2064},
	    {0x2066, 0x206F},   {0x3164, 0x3164},   {0xFEFF, 0xFEFF}, {0xFFA0, 0xFFA0}, {0xFFF9, 0xFFFB},
	    {0xE0000, 0xE007F},
	};
	for (size_t i = 0; i < sizeof inv / sizeof inv[0]; i++)
		if (c >= inv[i].lo && c <= inv[i].hi)
			return TERMSAFE_INVISIBLE;
	return TERMSAFE_PRINT;
}

void termsafe_append(struct buf *out, const char *s, size_t n, unsigned flags)
{
	if (!s)
		return;
	const unsigned char *u = (const unsigned char *)s;
	size_t i = 0, run = 0; /* run: the start of the safe bytes not yet copied */
	while (i < n) {
		uint32_t cp;
		int bad;
		size_t len = termsafe_decode(u + i, n - i, &cp, &bad);
		int keep = !bad && (termsafe_class(cp) == TERMSAFE_PRINT ||
				    ((flags & TERMSAFE_LINES) && (cp == '\n' || cp == '\t')));
		if (cp == '\\' && (flags & TERMSAFE_BACKSLASH))
			keep = 0;
		if (keep) {
			i += len;
			continue;
		}
		buf_append(out, s + run, i - run);
		if (bad || cp < 0x80) {
			unsigned b = bad ? u[i] : cp;
			if (b == '\n' && !(flags & TERMSAFE_BACKSLASH))
				buf_puts(out, "\\n");
			else if (b == '\r' && !(flags & TERMSAFE_BACKSLASH))
				buf_puts(out, "\\r");
			else if (b == '\t' && !(flags & TERMSAFE_BACKSLASH))
				buf_puts(out, "\\t");
			else
				buf_printf(out, "\\x%02x", b);
		} else if (cp <= 0xFFFF) {
			buf_printf(out, "\\u%04x", (unsigned)cp);
		} else {
			buf_printf(out, "\\U%08x", (unsigned)cp);
		}
		i += len;
		run = i;
	}
	buf_append(out, s + run, n - run);
}

char *termsafe_dup(const char *s, unsigned flags)
{
	struct buf b = {0};
	if (s)
		termsafe_append(&b, s, strlen(s), flags);
	return buf_take(&b);
}

int termsafe_is_safe(const char *s, size_t n, unsigned flags)
{
	const unsigned char *u = (const unsigned char *)s;
	for (size_t i = 0; s && i < n;) {
		uint32_t cp;
		int bad;
		i += termsafe_decode(u + i, n - i, &cp, &bad);
		if (bad || (termsafe_class(cp) != TERMSAFE_PRINT &&
			    !((flags & TERMSAFE_LINES) && (cp == '\n' || cp == '\t'))) ||
		    (cp == '\\' && (flags & TERMSAFE_BACKSLASH)))
			return 0;
	}
	return 1;
}
