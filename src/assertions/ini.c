/* ini.c - an INI file read the way Python 3.11's configparser.ConfigParser() reads it
 * (its _read loop, SECTCRE, OPTCRE, strict=True, empty_lines_in_values=True), into JSON.
 *
 * Responsibility: ini_parse only; the rules are in ini.h. Line by line, as configparser: a
 * whole-line comment is skipped before anything else (so a comment inside a value neither
 * ends it nor adds an empty line); a blank line adds an empty piece to the open value; a line
 * indented deeper than the line that opened the value continues it; anything else is a
 * section header, an option or an error. Like configparser, a malformed line does not stop
 * the reading: the first one is reported at the end unless a fatal error (missing section
 * header, a duplicate) comes first. Whitespace and indentation are Unicode's (str.isspace,
 * counted in code points), keys are lower-cased as str.lower() does (ICU's full mapping).
 * Threads: any; no global state. Must not: read anything but `text`, recurse, or take time
 * worse than linear in the input (duplicates are found through a hash map). */
#include "assertions/ini.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unicode/ustring.h>

#include "common/buf.h"
#include "common/jsonx.h"
#include "common/strmap.h"
#include "common/xalloc.h"

/* The code point at p (valid UTF-8 already checked) and its length in *n. */
static uint32_t ini_decode(const unsigned char *p, size_t *n)
{
	if (p[0] < 0x80) {
		*n = 1;
		return p[0];
	}
	if (p[0] < 0xe0) {
		*n = 2;
		return (uint32_t)(p[0] & 0x1f) << 6 | (p[1] & 0x3f);
	}
	if (p[0] < 0xf0) {
		*n = 3;
		return (uint32_t)(p[0] & 0x0f) << 12 | (uint32_t)(p[1] & 0x3f) << 6 | (p[2] & 0x3f);
	}
	*n = 4;
	return (uint32_t)(p[0] & 0x07) << 18 | (uint32_t)(p[1] & 0x3f) << 12 | (uint32_t)(p[2] & 0x3f) << 6 |
	       (p[3] & 0x3f);
}

/* Python's str.isspace() (the same set as re's \s for str patterns). */
static int ini_is_space(uint32_t c)
{
	return (c >= 0x09 && c <= 0x0d) || (c >= 0x1c && c <= 0x20) || c == 0x85 || c == 0xa0 || c == 0x1680 ||
	       (c >= 0x2000 && c <= 0x200a) || c == 0x2028 || c == 0x2029 || c == 0x202f || c == 0x205f || c == 0x3000;
}

/* Bytes [*s, *e) stripped of Unicode whitespace at both ends; returns how many code points
 * were stripped at the front (the indentation). */
static size_t ini_strip(const char **s, const char **e)
{
	const unsigned char *p = (const unsigned char *)*s, *end = (const unsigned char *)*e;
	size_t lead = 0, n;
	while (p < end && ini_is_space(ini_decode(p, &n))) {
		p += n;
		lead++;
	}
	while (end > p) {
		const unsigned char *q = end - 1;
		while (q > p && (*q & 0xc0) == 0x80)
			q--;
		if (!ini_is_space(ini_decode(q, &n)))
			break;
		end = q;
	}
	*s = (const char *)p;
	*e = (const char *)end;
	return lead;
}

/* A short printable excerpt of [s, s+n) for a message (control bytes as '?', cut on a
 * character boundary). */
static void ini_excerpt(char *out, size_t cap, const char *s, size_t n)
{
	size_t o = 0, i = 0;
	while (i < n && o + 4 < cap) {
		unsigned char c = (unsigned char)s[i];
		size_t k = c < 0x80 ? 1 : c < 0xe0 ? 2 : c < 0xf0 ? 3 : 4;
		if (i + k > n || o + k + 4 > cap)
			break;
		if (c < 0x20 || c == 0x7f)
			out[o++] = '?';
		else {
			memcpy(out + o, s + i, k);
			o += k;
		}
		i += k;
	}
	if (i < n)
		out[o++] = '.', out[o++] = '.', out[o++] = '.';
	out[o] = 0;
}

/* A key lower-cased as Python's str.lower() does (full case mapping, final sigma); caller
 * frees. */
static char *ini_lower(const char *s, size_t n)
{
	size_t i;
	for (i = 0; i < n && !((unsigned char)s[i] & 0x80); i++)
		;
	if (i == n) {
		char *r = xstrndup(s, n);
		for (i = 0; i < n; i++)
			if (r[i] >= 'A' && r[i] <= 'Z')
				r[i] = (char)(r[i] - 'A' + 'a');
		return r;
	}
	/* Non-ASCII (a key is one line, at most INI_MAX_BYTES): through UTF-16 with ICU. */
	UErrorCode err = U_ZERO_ERROR;
	int32_t n16 = 0;
	u_strFromUTF8(NULL, 0, &n16, s, (int32_t)n, &err);
	err = U_ZERO_ERROR;
	UChar *a = xcalloc((size_t)n16 + 1, sizeof *a);
	u_strFromUTF8(a, n16 + 1, NULL, s, (int32_t)n, &err);
	err = U_ZERO_ERROR;
	int32_t nl = u_strToLower(NULL, 0, a, n16, "", &err);
	err = U_ZERO_ERROR;
	UChar *b = xcalloc((size_t)nl + 1, sizeof *b);
	u_strToLower(b, nl + 1, a, n16, "", &err);
	err = U_ZERO_ERROR;
	int32_t n8 = 0;
	u_strToUTF8(NULL, 0, &n8, b, nl, &err);
	err = U_ZERO_ERROR;
	char *r = xcalloc((size_t)n8 + 1, 1);
	u_strToUTF8(r, n8 + 1, NULL, b, nl, &err);
	free(a);
	free(b);
	if (U_FAILURE(err))
		FATAL("ICU could not lower-case a valid UTF-8 key (%s)", u_errorName(err));
	return r;
}

static cJSON *ini_jnew(cJSON *v)
{
	if (!v)
		FATAL("out of memory");
	return v;
}

struct ini_state {
	cJSON *root, *defaults;
	cJSON *cursect;	    /* NULL before the first header */
	char *sectname;	    /* the current section's name (owned) */
	struct strmap seen; /* "section" and "section\nkey" given so far */
	/* The open value: its section and key (NULL when none), its text so far, and how many
	 * empty pieces follow it (dropped if nothing else comes: configparser's rstrip). */
	cJSON *vsect;
	char *vkey;
	int vcont; /* the key is non-empty: configparser lets only such a value continue */
	struct buf val;
	size_t vblank;
	int bad_line; /* the first line that was neither header, option nor continuation */
	char bad_text[64];
};

/* Closes the open value: the option goes into its section. */
static void ini_close_value(struct ini_state *st)
{
	if (!st->vkey)
		return;
	cJSON_AddItemToObject(st->vsect, st->vkey, ini_jnew(cJSON_CreateString(buf_cstr(&st->val))));
	free(st->vkey);
	st->vkey = NULL;
	st->vsect = NULL;
	buf_reset(&st->val);
	st->vblank = 0;
}

static void ini_free_state(struct ini_state *st)
{
	cJSON_Delete(st->root);
	free(st->sectname);
	free(st->vkey);
	buf_free(&st->val);
	strmap_free(&st->seen);
}

/* One line, [s, e) without its terminator. 0 or an error. */
static int ini_line(struct ini_state *st, int lineno, const char *s, const char *e, size_t *indent_level,
		    struct err *err)
{
	const char *v = s, *ve = e;
	size_t indent = ini_strip(&v, &ve);
	if (v < ve && (*v == '#' || *v == ';'))
		return 0; /* a comment, wherever it is */
	if (v == ve) {
		/* An empty line: an empty piece of the open value (empty_lines_in_values). */
		if (st->cursect && st->vkey && st->vcont)
			st->vblank++;
		return 0;
	}
	if (st->cursect && st->vkey && st->vcont && indent > *indent_level) {
		for (size_t i = 0; i < st->vblank; i++)
			buf_putc(&st->val, '\n');
		st->vblank = 0;
		buf_putc(&st->val, '\n');
		buf_append(&st->val, v, (size_t)(ve - v));
		return 0;
	}
	*indent_level = indent;
	size_t n = (size_t)(ve - v);
	char ex[64];
	/* SECTCRE: '[' (.+) ']' matched from the start: the name runs to the last ']'. */
	const char *close = n >= 3 && v[0] == '[' ? memrchr(v + 2, ']', n - 2) : NULL;
	if (close) {
		ini_close_value(st);
		char *name = xstrndup(v + 1, (size_t)(close - v - 1));
		if (strcmp(name, "DEFAULT") == 0) {
			if (!st->defaults)
				cJSON_AddItemToObject(st->root, "DEFAULT",
						      st->defaults = ini_jnew(cJSON_CreateObject()));
			st->cursect = st->defaults;
		} else {
			if (strmap_get(&st->seen, name, NULL)) {
				ini_excerpt(ex, sizeof ex, name, strlen(name));
				free(name);
				return err_set(err, BELAY_EINVAL, "line %d: section [%s] given twice", lineno, ex);
			}
			strmap_put(&st->seen, name, 1);
			cJSON_AddItemToObject(st->root, name, st->cursect = ini_jnew(cJSON_CreateObject()));
		}
		free(st->sectname);
		st->sectname = name;
		return 0;
	}
	if (!st->cursect) {
		ini_excerpt(ex, sizeof ex, v, n);
		return err_set(err, BELAY_EINVAL, "line %d: \"%s\" before any [section] header", lineno, ex);
	}
	/* OPTCRE: the option runs to the first '=' or ':'. */
	const char *d = v;
	while (d < ve && *d != '=' && *d != ':')
		d++;
	if (d == ve) {
		/* configparser reads on and reports every such line at the end. */
		if (!st->bad_line) {
			st->bad_line = lineno;
			ini_excerpt(st->bad_text, sizeof st->bad_text, v, n);
		}
		return 0;
	}
	ini_close_value(st);
	const char *ks = v, *ke = d, *vs = d + 1, *vend = ve;
	ini_strip(&ks, &ke);
	ini_strip(&vs, &vend);
	if (ks == ke && !st->bad_line) {
		/* "= value": configparser's error for it, but it still records the option. */
		st->bad_line = lineno;
		ini_excerpt(st->bad_text, sizeof st->bad_text, v, n);
	}
	char *key = ini_lower(ks, (size_t)(ke - ks));
	struct buf id = {0};
	buf_puts(&id, st->sectname);
	buf_putc(&id, '\n');
	buf_puts(&id, key);
	if (strmap_get(&st->seen, buf_cstr(&id), NULL)) {
		char sx[64];
		ini_excerpt(ex, sizeof ex, key, strlen(key));
		ini_excerpt(sx, sizeof sx, st->sectname, strlen(st->sectname));
		buf_free(&id);
		free(key);
		return err_set(err, BELAY_EINVAL, "line %d: option \"%s\" given twice in section [%s]", lineno, ex, sx);
	}
	strmap_put(&st->seen, buf_cstr(&id), 1);
	buf_free(&id);
	st->vsect = st->cursect;
	st->vkey = key;
	st->vcont = ks != ke;
	buf_append(&st->val, vs, (size_t)(vend - vs));
	return 0;
}

int ini_parse(const char *text, size_t len, cJSON **out, struct err *e)
{
	*out = NULL;
	if (len > INI_MAX_BYTES)
		return err_set(e, BELAY_EINVAL, "line 1: the file is %zu bytes, over the %u-byte limit", len,
			       INI_MAX_BYTES);
	if (!text)
		text = "";
	/* Text first: UTF-8 without NUL bytes (cJSON strings cannot hold one), each fault
	 * reported with its line. A '\r' cannot sit inside a UTF-8 sequence, so line by line is
	 * the same check as the whole text at once. */
	int lineno = 1;
	for (size_t ls = 0, i = 0; i <= len; i++) {
		if (i < len && text[i] != '\n' && text[i] != '\r')
			continue;
		if (memchr(text + ls, 0, i - ls))
			return err_set(e, BELAY_EINVAL, "line %d: a NUL byte (not text)", lineno);
		if (!utf8_valid(text + ls, i - ls))
			return err_set(e, BELAY_EINVAL, "line %d: not UTF-8 text", lineno);
		if (i + 1 < len && text[i] == '\r' && text[i + 1] == '\n')
			i++;
		ls = i + 1;
		lineno++;
	}
	struct ini_state st = {0};
	strmap_init(&st.seen);
	st.root = ini_jnew(cJSON_CreateObject());
	size_t indent_level = 0;
	lineno = 0;
	const char *p = text, *end = text + len;
	while (p < end) {
		/* Universal newlines, as Python's text files: "\n", "\r\n" and "\r" end a line. */
		const char *q = p;
		while (q < end && *q != '\n' && *q != '\r')
			q++;
		lineno++;
		int rc = ini_line(&st, lineno, p, q, &indent_level, e);
		if (rc) {
			ini_free_state(&st);
			return rc;
		}
		if (q < end && *q == '\r' && q + 1 < end && q[1] == '\n')
			q++;
		p = q < end ? q + 1 : q;
	}
	ini_close_value(&st);
	if (st.bad_line) {
		int rc = err_set(e, BELAY_EINVAL,
				 "line %d: \"%s\" is neither a [section] header, a key = value option, a comment "
				 "nor an indented continuation",
				 st.bad_line, st.bad_text);
		ini_free_state(&st);
		return rc;
	}
	*out = st.root;
	st.root = NULL;
	ini_free_state(&st);
	return 0;
}
