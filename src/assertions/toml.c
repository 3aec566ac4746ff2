/* toml.c - a TOML document as a cJSON tree (toml.h): tree-sitter's concrete syntax tree of
 * the pinned grammar, then one walk that applies what the grammar leaves to its reader -
 * TOML 1.0's rules on defining tables and keys (after tomli's model: a table a header
 * defines, or that dotted keys made in a section already closed, is not defined again nor
 * extended by dotted keys; inline tables and static arrays are closed), decoding strings,
 * integer ranges, calendar dates.
 *
 * Threads: any; each call has its own parser, tree and state.
 * Must not: recurse with the input's nesting (containers deeper than TOML_MAX_DEPTH are
 * refused before the walk descends into them; key paths are walked iteratively), print,
 * keep state between calls, leave anything allocated behind on an error. */
#include "assertions/toml.h"

#include <locale.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tree_sitter/api.h>

#include "assertions/tsnode.h"
#include "common/buf.h"
#include "common/hash.h"
#include "common/jsonx.h"
#include "common/xalloc.h"

const TSLanguage *tree_sitter_toml(void);

/* While the tree is built, the flags of each object and array live in its `valueint`
 * (which cJSON leaves unused for containers); they are cleared before the tree is handed
 * out. */
enum {
	T_EXPLICIT = 1, /* a header defined it, or dotted keys of a section already closed */
	T_FROZEN = 2,	/* an inline table or a static array: nothing is added afterwards */
	T_AOT = 4,	/* an array of tables ([[...]]) */
	T_DOTTED = 8,	/* made by dotted keys (for the message when a header redefines it) */
};

#define MAX_PARTS TOML_MAX_DEPTH /* a key of more parts would nest deeper anyway */
#define SNIP 60			 /* bytes of source quoted in a message */

struct slot {
	cJSON *parent, *child; /* child->string is the member's name; parent NULL = empty */
};

struct tp {
	const char *src;
	size_t len;
	struct err *e;
	struct slot *slots; /* (parent, name) -> member, for every object of the tree */
	size_t cap, used;
	cJSON **pend; /* tables dotted keys of the current section made or went through */
	size_t npend, cappend;
	locale_t cloc; /* "C" numbers for strtod, made on the first float */
	struct buf sb;
	char snip[2][SNIP * 4 + 1];
};

struct keypath {
	size_t n;
	char *part[MAX_PARTS];
	TSNode pnode[MAX_PARTS]; /* each part's source, for messages */
};

/* ---- errors ---- */

static int fail_off(struct tp *t, size_t off, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int fail_off(struct tp *t, size_t off, const char *fmt, ...)
{
	unsigned line = 1, col = 1;
	for (size_t i = 0; i < off && i < t->len; i++) {
		if (t->src[i] == '\n') {
			line++;
			col = 1;
		} else {
			col++;
		}
	}
	char what[400];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(what, sizeof what, fmt, ap);
	va_end(ap);
	return err_set(t->e, BELAY_EINVAL, "line %u, column %u: %s", line, col, what);
}

#define fail_at(t, node, ...) fail_off((t), ts_node_start_byte(node), __VA_ARGS__)

/* The first bytes of src[a..b) on one line, cut at a character boundary, control
 * characters as \xNN, for a message (in buffer `which`, 0 or 1, until the next call). */
static const char *snip(struct tp *t, size_t a, size_t b, int which)
{
	char *o = t->snip[which];
	size_t n = 0, k = 0;
	while (a + n < b && n < SNIP && t->src[a + n] != '\n' && t->src[a + n] != '\r')
		n++;
	while (n > 0 && a + n < b && ((unsigned char)t->src[a + n] & 0xc0) == 0x80)
		n--;
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)t->src[a + i];
		if (c < 0x20 || c == 0x7f)
			k += (size_t)snprintf(o + k, 5, "\\x%02x", c);
		else
			o[k++] = (char)c;
	}
	o[k] = 0;
	return o;
}

static const char *snipn(struct tp *t, TSNode n, int which)
{
	return snip(t, ts_node_start_byte(n), ts_node_end_byte(n), which);
}

/* ---- the member index ---- */

static uint64_t slot_hash(const cJSON *parent, const char *name)
{
	uint64_t h = 1469598103934665603ull ^ ((uint64_t)(uintptr_t)parent * 0x9e3779b97f4a7c15ull);
	for (; *name; name++)
		h = (h ^ (unsigned char)*name) * 1099511628211ull;
	return h ^ (h >> 29);
}

static cJSON *member(const struct tp *t, const cJSON *parent, const char *name)
{
	if (!t->cap)
		return NULL;
	for (size_t i = slot_hash(parent, name) & (t->cap - 1);; i = (i + 1) & (t->cap - 1)) {
		const struct slot *s = &t->slots[i];
		if (!s->parent)
			return NULL;
		if (s->parent == parent && !strcmp(s->child->string, name))
			return s->child;
	}
}

static void index_put(struct tp *t, cJSON *parent, cJSON *child)
{
	if ((t->used + 1) * 2 > t->cap) {
		size_t ocap = t->cap;
		struct slot *old = t->slots;
		t->cap = ocap ? ocap * 2 : 64;
		t->slots = xcalloc(t->cap, sizeof *t->slots);
		t->used = 0;
		for (size_t i = 0; i < ocap; i++)
			if (old[i].parent)
				index_put(t, old[i].parent, old[i].child);
		free(old);
	}
	size_t i = slot_hash(parent, child->string) & (t->cap - 1);
	while (t->slots[i].parent)
		i = (i + 1) & (t->cap - 1);
	t->slots[i] = (struct slot){parent, child};
	t->used++;
}

/* Adds `child` to the object `parent` as `name` (not there yet) and indexes it. */
static void add_member(struct tp *t, cJSON *parent, const char *name, cJSON *child)
{
	cJSON_AddItemToObject(parent, name, child);
	index_put(t, parent, child);
}

static cJSON *new_table(int flags)
{
	cJSON *o = cJSON_CreateObject();
	if (!o)
		FATAL("out of memory");
	o->valueint = flags;
	return o;
}

static void pend_push(struct tp *t, cJSON *tab)
{
	if (t->npend == t->cappend) {
		t->cappend = t->cappend ? t->cappend * 2 : 16;
		t->pend = xrealloc(t->pend, t->cappend * sizeof *t->pend);
	}
	t->pend[t->npend++] = tab;
}

/* A header closes the section before it: what its dotted keys made is now defined. */
static void pend_close(struct tp *t)
{
	for (size_t i = 0; i < t->npend; i++)
		t->pend[i]->valueint |= T_EXPLICIT;
	t->npend = 0;
}

/* ---- tree-sitter helpers ---- */

/* The i-th named child that is not a comment (comments are extras: anywhere). */
static int named(TSNode n, uint32_t want, TSNode *out)
{
	uint32_t k = ts_node_named_child_count(n);
	for (uint32_t i = 0; i < k; i++) {
		TSNode c = ts_node_named_child(n, i);
		if (tsnode_is(c, "comment"))
			continue;
		if (want-- == 0) {
			*out = c;
			return 1;
		}
	}
	return 0;
}

/* The first ERROR or MISSING node in document order, reported. The walk only goes down
 * into children that carry an error, and is a loop: the tree of a hostile input is as deep
 * as its brackets. A node whose error is in no visible child lacks a hidden token (the end
 * of a line, of a multi-line string): that is reported at its end. */
static int syntax_error(struct tp *t, TSNode root)
{
	int kind;
	TSNode n = tsnode_first_error(root, &kind);
	uint32_t a = ts_node_start_byte(n), b = ts_node_end_byte(n);
	if (kind == 'M')
		return fail_off(t, a, "syntax error: missing %s", ts_node_type(n));
	if (kind == 'E') {
		const char *what = snip(t, a, b, 0);
		if (*what)
			return fail_off(t, a, "syntax error at \"%s\"", what);
		if (a < t->len && (t->src[a] == '\n' || t->src[a] == '\r'))
			return fail_off(t, a, "syntax error: unexpected end of line");
		return fail_off(t, a, "syntax error");
	}
	return fail_off(t, b, "syntax error after \"%s\" (expected the end of the line)", snip(t, a, b, 0));
}

/* ---- strings ---- */

static void put_utf8(struct buf *b, uint32_t c)
{
	char u[4];
	size_t n;
	if (c < 0x80) {
		u[0] = (char)c;
		n = 1;
	} else if (c < 0x800) {
		u[0] = (char)(0xc0 | c >> 6);
		u[1] = (char)(0x80 | (c & 0x3f));
		n = 2;
	} else if (c < 0x10000) {
		u[0] = (char)(0xe0 | c >> 12);
		u[1] = (char)(0x80 | (c >> 6 & 0x3f));
		u[2] = (char)(0x80 | (c & 0x3f));
		n = 3;
	} else {
		u[0] = (char)(0xf0 | c >> 18);
		u[1] = (char)(0x80 | (c >> 12 & 0x3f));
		u[2] = (char)(0x80 | (c >> 6 & 0x3f));
		u[3] = (char)(0x80 | (c & 0x3f));
		n = 4;
	}
	buf_append(b, u, n);
}

/* Decodes the string (or quoted key) written at src[a..b), delimiters included, into
 * t->sb as a C string. */
static int decode_string(struct tp *t, size_t a, size_t b)
{
	const char *s = t->src;
	buf_reset(&t->sb);
	int multi = b - a >= 6 && (!memcmp(s + a, "\"\"\"", 3) || !memcmp(s + a, "'''", 3));
	int literal = s[a] == '\'';
	size_t q = multi ? 3 : 1;
	if (b - a < 2 * q)
		return fail_off(t, a, "malformed string");
	size_t i = a + q, end = b - q;
	if (multi) { /* a newline right after the opening delimiter is not part of it */
		if (i < end && s[i] == '\n')
			i++;
		else if (i + 1 < end && s[i] == '\r' && s[i + 1] == '\n')
			i += 2;
	}
	while (i < end) {
		char c = s[i];
		if (c == '\r' && i + 1 < end && s[i + 1] == '\n') { /* CRLF reads as LF */
			i++;
			continue;
		}
		if (c != '\\' || literal) {
			buf_putc(&t->sb, c);
			i++;
			continue;
		}
		size_t at = i++;
		if (i >= end)
			return fail_off(t, at, "a backslash ends the string");
		c = s[i++];
		const char *simple = c ? strchr("btnfr\"\\", c) : NULL;
		if (simple) {
			buf_putc(&t->sb, "\b\t\n\f\r\"\\"[simple - "btnfr\"\\"]);
			continue;
		}
		switch (c) {
		case 'u':
		case 'U': {
			size_t nd = c == 'u' ? 4 : 8;
			uint32_t cp = 0;
			if (end - i < nd)
				return fail_off(t, at, "invalid escape \\%c", c);
			for (size_t k = 0; k < nd; k++) {
				int h = hex_digit(s[i + k]);
				if (h < 0)
					return fail_off(t, at, "invalid escape %s", snip(t, at, i + nd, 0));
				cp = cp << 4 | (uint32_t)h;
			}
			if (cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
				return fail_off(t, at, "invalid escape %s: not a Unicode scalar value",
						snip(t, at, i + nd, 0));
			if (cp == 0)
				return fail_off(t, at, "escape %s: NUL cannot be held in a JSON string here",
						snip(t, at, i + nd, 0));
			put_utf8(&t->sb, cp);
			i += nd;
			continue;
		}
		default:
			break;
		}
		/* A line-ending backslash (multi-line basic strings only) swallows the whitespace
		 * and newlines that follow it. */
		size_t j = i - 1;
		while (multi && j < end && (s[j] == ' ' || s[j] == '\t'))
			j++;
		if (multi && j < end && (s[j] == '\n' || (s[j] == '\r' && j + 1 < end && s[j + 1] == '\n'))) {
			while (j < end && (s[j] == ' ' || s[j] == '\t' || s[j] == '\n' || s[j] == '\r'))
				j++;
			i = j;
			continue;
		}
		if ((unsigned char)c > ' ' && (unsigned char)c < 0x7f)
			return fail_off(t, at, "invalid escape \\%c", c);
		return fail_off(t, at, "invalid escape (a backslash before byte 0x%02x)", (unsigned char)c);
	}
	buf_cstr(&t->sb);
	return 0;
}

/* ---- keys ---- */

static void keypath_free(struct keypath *kp)
{
	for (size_t i = 0; i < kp->n; i++)
		free(kp->part[i]);
	kp->n = 0;
}

/* The parts of a key, decoded (dotted_key nests to the left: walked as a loop). */
static int key_path(struct tp *t, TSNode key, struct keypath *kp)
{
	TSNode parts[MAX_PARTS];
	size_t n = 0;
	TSNode cur = key;
	kp->n = 0;
	for (;;) {
		if (n == MAX_PARTS)
			return fail_at(t, key, "key of more than %d parts: nested deeper than %d", MAX_PARTS,
				       TOML_MAX_DEPTH);
		if (!tsnode_is(cur, "dotted_key")) {
			parts[n++] = cur;
			break;
		}
		uint32_t k = ts_node_named_child_count(cur);
		if (k < 2)
			return fail_at(t, cur, "malformed key");
		parts[n++] = ts_node_named_child(cur, k - 1);
		cur = ts_node_named_child(cur, 0);
	}
	for (size_t i = 0; i < n; i++) {
		TSNode p = parts[n - 1 - i];
		uint32_t a = ts_node_start_byte(p), b = ts_node_end_byte(p);
		kp->pnode[kp->n] = p;
		if (tsnode_is(p, "bare_key")) {
			kp->part[kp->n++] = xstrndup(t->src + a, b - a);
		} else if (tsnode_is(p, "quoted_key")) {
			int rc = decode_string(t, a, b);
			if (rc) {
				keypath_free(kp);
				return rc;
			}
			kp->part[kp->n++] = xstrdup(t->sb.p ? t->sb.p : "");
		} else {
			keypath_free(kp);
			return fail_at(t, p, "unexpected %s in a key", ts_node_type(p));
		}
	}
	return 0;
}

/* ---- scalars ---- */

static int integer(struct tp *t, TSNode n, cJSON **out)
{
	const char *s = t->src + ts_node_start_byte(n);
	size_t len = ts_node_end_byte(n) - ts_node_start_byte(n), i = 0;
	int neg = 0;
	unsigned base = 10;
	if (i < len && (s[i] == '+' || s[i] == '-'))
		neg = s[i++] == '-';
	if (len - i > 2 && s[i] == '0' && (s[i + 1] == 'x' || s[i + 1] == 'o' || s[i + 1] == 'b')) {
		base = s[i + 1] == 'x' ? 16 : s[i + 1] == 'o' ? 8 : 2;
		i += 2;
	}
	uint64_t v = 0, limit = neg ? (uint64_t)1 << 63 : ((uint64_t)1 << 63) - 1;
	for (; i < len; i++) {
		if (s[i] == '_')
			continue;
		int d = hex_digit(s[i]);
		if (d < 0 || (unsigned)d >= base)
			return fail_at(t, n, "malformed integer \"%s\"", snipn(t, n, 0));
		if (v > (limit - (uint64_t)d) / base)
			return fail_at(t, n, "integer %s out of the 64-bit range", snipn(t, n, 0));
		v = v * base + (uint64_t)d;
	}
	if (v <= (uint64_t)1 << 53) {
		*out = cJSON_CreateNumber(neg && v ? -(double)v : (double)v); /* no -0 */
	} else {
		char dec[24];
		snprintf(dec, sizeof dec, "%s%llu", neg ? "-" : "", (unsigned long long)v);
		*out = cJSON_CreateString(dec);
	}
	return 0;
}

static int floating(struct tp *t, TSNode n, cJSON **out)
{
	const char *s = t->src + ts_node_start_byte(n);
	size_t len = ts_node_end_byte(n) - ts_node_start_byte(n);
	size_t sign = len && (*s == '+' || *s == '-');
	const char *w = s + sign;
	if (len - sign == 3 && (!memcmp(w, "inf", 3) || !memcmp(w, "nan", 3))) {
		*out = cJSON_CreateString(*w == 'n' ? "nan" : *s == '-' ? "-inf" : "inf");
		return 0;
	}
	char tmp[128];
	size_t k = 0;
	for (size_t i = 0; i < len; i++) {
		if (s[i] == '_')
			continue;
		if (k + 1 >= sizeof tmp)
			return fail_at(t, n, "float \"%s\" too long", snipn(t, n, 0));
		tmp[k++] = s[i];
	}
	tmp[k] = 0;
	if (!t->cloc && !(t->cloc = newlocale(LC_NUMERIC_MASK, "C", (locale_t)0)))
		FATAL("newlocale(C) failed");
	char *endp;
	double d = strtod_l(tmp, &endp, t->cloc);
	if (*endp)
		return fail_at(t, n, "malformed float \"%s\"", snipn(t, n, 0));
	if (isinf(d)) /* past DBL_MAX: what an IEEE 754 reader rounds it to */
		*out = cJSON_CreateString(d < 0 ? "-inf" : "inf");
	else
		*out = cJSON_CreateNumber(d);
	return 0;
}

static int date_ok(const char *s, size_t len)
{
	/* The grammar checks the shape but takes any number of year digits and any day up to 31. */
	if (len < 10 || s[4] != '-')
		return 0;
	int y = 0, m = (s[5] - '0') * 10 + (s[6] - '0'), d = (s[8] - '0') * 10 + (s[9] - '0');
	for (int i = 0; i < 4; i++) {
		if (s[i] < '0' || s[i] > '9')
			return 0;
		y = y * 10 + (s[i] - '0');
	}
	static const int mdays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
	if (m < 1 || m > 12 || d < 1)
		return 0;
	int leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
	return d <= mdays[m - 1] + (m == 2 && leap);
}

/* ---- values and tables ---- */

static int insert_pair(struct tp *t, cJSON *base, unsigned depth, TSNode pair, int section);

/* The value node `n` of a member at nesting `depth` (where a container it is would sit). */
static int value(struct tp *t, TSNode n, unsigned depth, cJSON **out)
{
	*out = NULL;
	const char *ty = ts_node_type(n);
	uint32_t a = ts_node_start_byte(n), b = ts_node_end_byte(n);
	if (!strcmp(ty, "string")) {
		int rc = decode_string(t, a, b);
		if (rc)
			return rc;
		*out = cJSON_CreateString(t->sb.p ? t->sb.p : "");
	} else if (!strcmp(ty, "integer")) {
		return integer(t, n, out);
	} else if (!strcmp(ty, "float")) {
		return floating(t, n, out);
	} else if (!strcmp(ty, "boolean")) {
		*out = cJSON_CreateBool(t->src[a] == 't');
	} else if (!strcmp(ty, "offset_date_time") || !strcmp(ty, "local_date_time") || !strcmp(ty, "local_date") ||
		   !strcmp(ty, "local_time")) {
		if (strcmp(ty, "local_time") && !date_ok(t->src + a, b - a))
			return fail_at(t, n, "no such date: %s", snipn(t, n, 0));
		char *txt = xstrndup(t->src + a, b - a);
		*out = cJSON_CreateString(txt);
		free(txt);
	} else if (!strcmp(ty, "array") || !strcmp(ty, "inline_table")) {
		if (depth > TOML_MAX_DEPTH)
			return fail_at(t, n, "nested deeper than %d", TOML_MAX_DEPTH);
		int arr = ty[0] == 'a';
		cJSON *c = arr ? cJSON_CreateArray() : new_table(0);
		if (!c)
			FATAL("out of memory");
		TSTreeCursor cur = ts_tree_cursor_new(n);
		int rc = 0;
		for (int more = ts_tree_cursor_goto_first_child(&cur); more && !rc;
		     more = ts_tree_cursor_goto_next_sibling(&cur)) {
			TSNode k = ts_tree_cursor_current_node(&cur);
			if (!ts_node_is_named(k) || tsnode_is(k, "comment"))
				continue;
			if (arr) {
				cJSON *v;
				rc = value(t, k, depth + 1, &v);
				if (!rc)
					cJSON_AddItemToArray(c, v);
			} else if (tsnode_is(k, "pair")) {
				rc = insert_pair(t, c, depth, k, 0);
			} else {
				rc = fail_at(t, k, "unexpected %s in an inline table", ts_node_type(k));
			}
		}
		ts_tree_cursor_delete(&cur);
		if (rc) {
			cJSON_Delete(c);
			return rc;
		}
		c->valueint = T_FROZEN;
		*out = c;
	} else {
		return fail_at(t, n, "unexpected %s as a value", ty);
	}
	if (!*out)
		FATAL("out of memory");
	return 0;
}

/* key = value in the table `base` (at nesting `depth`): a section's pair, or an inline
 * table's (section 0). */
static int insert_pair(struct tp *t, cJSON *base, unsigned depth, TSNode pair, int section)
{
	TSNode kn, vn;
	if (!named(pair, 0, &kn) || !named(pair, 1, &vn))
		return fail_at(t, pair, "malformed key/value pair");
	struct keypath kp;
	int rc = key_path(t, kn, &kp);
	if (rc)
		return rc;
	cJSON *tab = base;
	for (size_t i = 0; i + 1 < kp.n && !rc; i++) {
		cJSON *c = member(t, tab, snipn(t, kp.pnode[i], 1));
		if (!c) {
			if (depth + i + 1 > TOML_MAX_DEPTH) {
				rc = fail_at(t, kn, "nested deeper than %d", TOML_MAX_DEPTH);
				break;
			}
			c = new_table(T_DOTTED);
			add_member(t, tab, kp.part[i], c);
		} else if (!cJSON_IsObject(c)) {
			rc = fail_at(t, kn, "%s: %s is not a table", snipn(t, kn, 0), snipn(t, kp.pnode[i], 1));
			break;
		} else if (c->valueint & T_FROZEN) {
			rc = fail_at(t, kn, "%s: %s is an inline table, it cannot be extended", snipn(t, kn, 0),
				     snipn(t, kp.pnode[i], 1));
			break;
		} else if (c->valueint & T_EXPLICIT) {
			rc = fail_at(t, kn, "%s: table %s is already defined, dotted keys cannot add to it",
				     snipn(t, kn, 0), snipn(t, kp.pnode[i], 1));
			break;
		}
		if (section)
			pend_push(t, c);
		tab = c;
	}
	if (!rc && member(t, tab, kp.part[kp.n - 1]))
		rc = fail_at(t, kn, "key %s defined twice", snipn(t, kn, 0));
	cJSON *v = NULL;
	if (!rc)
		rc = value(t, vn, depth + (unsigned)kp.n, &v);
	if (!rc)
		add_member(t, tab, kp.part[kp.n - 1], v);
	keypath_free(&kp);
	return rc;
}

/* [key] or [[key]]: finds or makes the table the pairs after it go to (*cur at *depth). */
static int header(struct tp *t, cJSON *root, TSNode h, int aot, cJSON **cur, unsigned *depth)
{
	TSNode kn;
	if (!named(h, 0, &kn))
		return fail_at(t, h, "malformed table header");
	pend_close(t);
	struct keypath kp;
	int rc = key_path(t, kn, &kp);
	if (rc)
		return rc;
	cJSON *tab = root;
	unsigned d = 0;
	for (size_t i = 0; i + 1 < kp.n && !rc; i++) {
		cJSON *c = member(t, tab, snipn(t, kp.pnode[i], 1));
		if (!c) {
			c = new_table(0);
			add_member(t, tab, kp.part[i], c);
		} else if (cJSON_IsObject(c) && (c->valueint & T_FROZEN)) {
			rc = fail_at(t, kn, "%s: %s is an inline table, it cannot be extended", snipn(t, kn, 0),
				     snipn(t, kp.pnode[i], 1));
			break;
		} else if (cJSON_IsArray(c) && (c->valueint & T_AOT)) {
			c = c->child->prev; /* the last table of the array (never empty) */
			d++;
		} else if (!cJSON_IsObject(c)) {
			rc = fail_at(t, kn, "%s: %s is not a table", snipn(t, kn, 0), snipn(t, kp.pnode[i], 1));
			break;
		}
		tab = c;
		if (++d > TOML_MAX_DEPTH)
			rc = fail_at(t, kn, "nested deeper than %d", TOML_MAX_DEPTH);
	}
	const char *last = kp.part[kp.n - 1];
	cJSON *c = rc ? NULL : member(t, tab, last);
	if (rc) {
		/* reported in the loop */
	} else if (d + 1 + (unsigned)aot > TOML_MAX_DEPTH) {
		rc = fail_at(t, kn, "nested deeper than %d", TOML_MAX_DEPTH);
	} else if (!aot) {
		if (!c) {
			c = new_table(T_EXPLICIT);
			add_member(t, tab, last, c);
		} else if (cJSON_IsObject(c) && (c->valueint & T_FROZEN)) {
			rc = fail_at(t, kn, "[%s] is an inline table, it cannot be extended", snipn(t, kn, 0));
		} else if (cJSON_IsObject(c) && (c->valueint & T_EXPLICIT)) {
			rc = fail_at(t, kn, "table [%s] defined twice%s", snipn(t, kn, 0),
				     (c->valueint & T_DOTTED) ? " (dotted keys defined it)" : "");
		} else if (cJSON_IsObject(c)) {
			c->valueint |= T_EXPLICIT;
		} else if (cJSON_IsArray(c) && (c->valueint & T_AOT)) {
			rc = fail_at(t, kn, "[%s] is an array of tables, not a table", snipn(t, kn, 0));
		} else {
			rc = fail_at(t, kn, "[%s]: the key already holds a value", snipn(t, kn, 0));
		}
		d++;
	} else {
		if (!c) {
			c = cJSON_CreateArray();
			if (!c)
				FATAL("out of memory");
			c->valueint = T_AOT;
			add_member(t, tab, last, c);
		} else if (!cJSON_IsArray(c) || !(c->valueint & T_AOT)) {
			rc = fail_at(t, kn, "[[%s]]: the key already holds a %s", snipn(t, kn, 0),
				     cJSON_IsObject(c)	? "table"
				     : cJSON_IsArray(c) ? "static array"
							: "value");
		}
		if (!rc) {
			cJSON *el = new_table(T_EXPLICIT);
			cJSON_AddItemToArray(c, el);
			c = el;
			d += 2;
		}
	}
	keypath_free(&kp);
	*cur = c;
	*depth = d;
	return rc;
}

/* Every pair of a section (a table's or array-of-tables element's children after its key). */
static int section(struct tp *t, TSNode sec, cJSON *tab, unsigned depth)
{
	TSTreeCursor cur = ts_tree_cursor_new(sec);
	int rc = 0;
	for (int more = ts_tree_cursor_goto_first_child(&cur); more && !rc;
	     more = ts_tree_cursor_goto_next_sibling(&cur)) {
		TSNode k = ts_tree_cursor_current_node(&cur);
		if (tsnode_is(k, "pair"))
			rc = insert_pair(t, tab, depth, k, 1);
	}
	ts_tree_cursor_delete(&cur);
	return rc;
}

static int document(struct tp *t, TSNode doc, cJSON *root)
{
	TSTreeCursor cur = ts_tree_cursor_new(doc);
	int rc = 0;
	for (int more = ts_tree_cursor_goto_first_child(&cur); more && !rc;
	     more = ts_tree_cursor_goto_next_sibling(&cur)) {
		TSNode k = ts_tree_cursor_current_node(&cur);
		int aot = tsnode_is(k, "table_array_element");
		if (tsnode_is(k, "pair")) {
			rc = insert_pair(t, root, 0, k, 1);
		} else if (aot || tsnode_is(k, "table")) {
			cJSON *tab = NULL;
			unsigned depth = 0;
			rc = header(t, root, k, aot, &tab, &depth);
			if (!rc)
				rc = section(t, k, tab, depth);
		} else if (ts_node_is_named(k) && !tsnode_is(k, "comment")) {
			rc = fail_at(t, k, "unexpected %s", ts_node_type(k));
		}
	}
	ts_tree_cursor_delete(&cur);
	return rc;
}

/* Drops the build-time flags (depth is bounded by TOML_MAX_DEPTH, so is this recursion). */
static void clear_flags(cJSON *v)
{
	for (; v; v = v->next)
		if (cJSON_IsObject(v) || cJSON_IsArray(v)) {
			v->valueint = 0;
			clear_flags(v->child);
		}
}

/* The input's first byte that is not UTF-8, or NUL: reported, else 0. */
static int check_bytes(struct tp *t)
{
	const char *nul = memchr(t->src, '\0', t->len);
	size_t lim = nul ? (size_t)(nul - t->src) : t->len;
	if (!utf8_valid(t->src, lim)) {
		/* Find it: lines are checked whole (no character spans a '\n'), then the bad one
		 * a character at a time. */
		size_t ls = 0;
		while (ls < lim) {
			const char *nl = memchr(t->src + ls, '\n', lim - ls);
			size_t le = nl ? (size_t)(nl - t->src) : lim;
			if (!utf8_valid(t->src + ls, le - ls)) {
				for (size_t i = ls; i < le;) {
					size_t k = 1;
					while (k <= 4 && i + k <= le && !utf8_valid(t->src + i, k))
						k++;
					if (k > 4 || i + k > le)
						return fail_off(t, i, "not UTF-8 (byte 0x%02x)",
								(unsigned char)t->src[i]);
					i += k;
				}
				return fail_off(t, ls, "not UTF-8");
			}
			ls = le + 1;
		}
	}
	if (nul)
		return fail_off(t, lim, "a NUL byte");
	return 0;
}

/* Refuses brackets nested deeper than TOML_MAX_DEPTH before tree-sitter sees them: a
 * document that passes the walk never nests them deeper (each level is a container), and
 * Debian's runtime (0.20.7) frees memory twice when it recovers from an error with some
 * 65535 of them open. Strings and comments are skipped as TOML reads them, so that the
 * count is exact on any valid document (an invalid one is refused either way). */
static int check_nesting(struct tp *t)
{
	const char *s = t->src;
	size_t n = t->len, depth = 0;
	for (size_t i = 0; i < n; i++) {
		char c = s[i];
		if (c == '#') {
			while (i + 1 < n && s[i + 1] != '\n')
				i++;
		} else if (c == '"' || c == '\'') {
			int multi = i + 2 < n && s[i + 1] == c && s[i + 2] == c;
			i += multi ? 3 : 1;
			for (; i < n; i++) {
				if (c == '"' && s[i] == '\\') {
					i++;
				} else if (!multi && (s[i] == c || s[i] == '\n')) {
					break;
				} else if (multi && s[i] == c && i + 2 < n && s[i + 1] == c && s[i + 2] == c) {
					i += 2; /* up to two more quotes are the string's own */
					for (int k = 0; k < 2 && i + 1 < n && s[i + 1] == c; k++)
						i++;
					break;
				}
			}
		} else if (c == '[' || c == '{') {
			if (++depth > TOML_MAX_DEPTH)
				return fail_off(t, i, "nested deeper than %d", TOML_MAX_DEPTH);
		} else if ((c == ']' || c == '}') && depth) {
			depth--;
		}
	}
	return 0;
}

int toml_parse(const char *text, size_t len, cJSON **out, struct err *e)
{
	*out = NULL;
	if (len > TOML_MAX_BYTES)
		return err_set(e, BELAY_EINVAL, "%zu bytes: TOML documents larger than %u bytes are refused", len,
			       TOML_MAX_BYTES);
	struct tp t = {.src = text ? text : "", .len = text ? len : 0, .e = e};
	int rc = check_bytes(&t);
	if (!rc)
		rc = check_nesting(&t);
	if (rc)
		return rc;
	TSParser *p = ts_parser_new();
	if (!ts_parser_set_language(p, tree_sitter_toml())) {
		ts_parser_delete(p);
		return err_set(e, BELAY_EINVAL, "the TOML grammar (ABI %u) does not load into this tree-sitter",
			       toml_grammar_abi());
	}
	TSTree *tree = ts_parser_parse_string(p, NULL, t.src, (uint32_t)t.len);
	if (!tree) {
		ts_parser_delete(p);
		return err_set(e, BELAY_EINVAL, "tree-sitter did not parse the document");
	}
	TSNode root = ts_tree_root_node(tree);
	cJSON *doc = NULL;
	if (ts_node_has_error(root)) {
		rc = syntax_error(&t, root);
	} else {
		doc = new_table(T_EXPLICIT);
		rc = document(&t, root, doc);
	}
	ts_tree_delete(tree);
	ts_parser_delete(p);
	free(t.slots);
	free(t.pend);
	buf_free(&t.sb);
	if (t.cloc)
		freelocale(t.cloc);
	if (rc) {
		cJSON_Delete(doc);
		return rc;
	}
	doc->valueint = 0;
	clear_flags(doc->child);
	*out = doc;
	return 0;
}

unsigned toml_grammar_abi(void)
{
	return ts_language_version(tree_sitter_toml());
}
