/* a1_py_facts.c - one side of a Python test file reduced to the facts a1_py.c compares
 * (a1_py_facts.h): its bytes decoded as CPython would (BOM, PEP 263), refused when they could
 * nest deeper than the runtime survives, parsed by the pinned tree-sitter-python grammar, then
 * one walk in source order that records assertion facts with where they stand, the functions
 * with their markers and the unit's names they patch - weakening.py's Extractor, on a syntax
 * tree instead of Python's ast.
 *
 * Threads: any; each call has its own parser, tree and state.
 * Must not: recurse deeper than WALK_MAX (trees deeper than that are refused before any walk;
 * brackets deeper than A1_PY_MAX_DEPTH and over-long statements before parsing - Debian's
 * runtime 0.20.7 frees memory twice with ~65,535 symbols open), spend more than a work budget
 * proportional to the input, print, keep state between calls. */
#include "assertions/a1_py_facts.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "assertions/a1_py.h"
#include "assertions/tsnode.h"
#include "common/xalloc.h"

const TSLanguage *tree_sitter_python(void);

#define WALK_MAX 1000			/* tree levels: chains like a + b + ... nest without brackets */
#define RUN_MAX (64 * A1_PY_MAX_DEPTH)	/* tokens pending in one statement (see check_nesting) */
#define INDENT_MAX 100			/* CPython's own limit ("too many levels of indentation") */
#define FORM_CAP (64u << 10)		/* canonical text kept; a longer one ends in its hash */
#define PARSE_MICROS 30000000ull	/* a last resort against a pathological parse */

/* ==== small things ======================================================================= */

static int is_comment(TSNode n)
{
	return tsnode_is(n, "comment");
}

uint32_t a1_py_nkids(TSNode n)
{
	uint32_t k = 0, m = ts_node_is_null(n) ? 0 : ts_node_named_child_count(n);
	for (uint32_t i = 0; i < m; i++)
		k += !is_comment(ts_node_named_child(n, i));
	return k;
}

TSNode a1_py_kid(TSNode n, uint32_t i)
{
	uint32_t m = ts_node_is_null(n) ? 0 : ts_node_named_child_count(n);
	for (uint32_t j = 0; j < m; j++) {
		TSNode k = ts_node_named_child(n, j);
		if (is_comment(k))
			continue;
		if (i-- == 0)
			return k;
	}
	TSNode none = {0};
	return none;
}

TSNode a1_py_bare(TSNode n)
{
	for (int i = 0; i < WALK_MAX && tsnode_is(n, "parenthesized_expression") && a1_py_nkids(n) == 1; i++)
		n = a1_py_kid(n, 0);
	return n;
}

static int str_in(const char *s, const char *const *set)
{
	for (; s && *set; set++)
		if (!strcmp(s, *set))
			return 1;
	return 0;
}

static const char *leaf_of(const char *dotted)
{
	const char *d = strrchr(dotted, '.');
	return d ? d + 1 : dotted;
}

static int ends_with(const char *s, const char *t)
{
	size_t a = strlen(s), b = strlen(t);
	return a >= b && !strcmp(s + a - b, t);
}

static void set_why(struct a1_py_side *s, int status, const char *what, unsigned line, unsigned col, const char *fmt, ...)
    __attribute__((format(printf, 6, 7)));
static void set_why(struct a1_py_side *s, int status, const char *what, unsigned line, unsigned col, const char *fmt, ...)
{
	if (s->status)
		return;
	char msg[300];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	s->status = status;
	if (line)
		s->why = xasprintf("%s: line %u, column %u: %s", what, line, col, msg);
	else
		s->why = xasprintf("%s: %s", what, msg);
}

static void refuse_at(struct a1_py_side *s, TSNode n, const char *msg)
{
	TSPoint p = ts_node_start_point(n);
	set_why(s, A1_PY_UNPARSEABLE, "unparseable-source", p.row + 1, p.column + 1, "%s", msg);
}

/* Spends n of the work budget; 0 once it is gone (the side is then refused). */
static int spend(struct a1_py_side *s, size_t n)
{
	if (s->status)
		return 0;
	if (s->budget < n) {
		s->budget = 0;
		set_why(s, A1_PY_UNPARSEABLE, "unparseable-source", 0, 0, "over the work budget");
		return 0;
	}
	s->budget -= n;
	return 1;
}

/* ==== decoding (tokenize.detect_encoding, then a strict decode) ========================== */

static int utf8_ok(const unsigned char *p, size_t n, size_t *bad)
{
	size_t i = 0;
	while (i < n) {
		unsigned c = p[i];
		size_t k = c < 0x80 ? 1 : (c & 0xe0) == 0xc0 && c >= 0xc2 ? 2 : (c & 0xf0) == 0xe0 ? 3
						: (c & 0xf8) == 0xf0 && c <= 0xf4 ? 4 : 0;
		if (!k || i + k > n)
			goto no;
		for (size_t j = 1; j < k; j++)
			if ((p[i + j] & 0xc0) != 0x80)
				goto no;
		if (k == 3 && ((c == 0xe0 && p[i + 1] < 0xa0) || (c == 0xed && p[i + 1] >= 0xa0)))
			goto no;
		if (k == 4 && ((c == 0xf0 && p[i + 1] < 0x90) || (c == 0xf4 && p[i + 1] >= 0x90)))
			goto no;
		i += k;
	}
	return 1;
no:
	*bad = i;
	return 0;
}

/* The encoding a PEP 263 comment on line `line` declares, lowercased, '-' for '_', or "". */
static void cookie_of(const char *p, size_t n, char *out, size_t cap)
{
	out[0] = 0;
	size_t i = 0;
	while (i < n && (p[i] == ' ' || p[i] == '\t' || p[i] == '\f'))
		i++;
	if (i >= n || p[i] != '#')
		return;
	const char *c = NULL;
	for (size_t j = i; j + 6 < n; j++)
		if (!memcmp(p + j, "coding", 6) && (p[j + 6] == ':' || p[j + 6] == '=')) {
			c = p + j + 7;
			break;
		}
	if (!c)
		return;
	while (c < p + n && (*c == ' ' || *c == '\t'))
		c++;
	size_t k = 0;
	while (c < p + n && k + 1 < cap && ((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') ||
					    (*c >= '0' && *c <= '9') || *c == '-' || *c == '_' || *c == '.')) {
		char ch = *c++;
		out[k++] = ch == '_' ? '-' : (ch >= 'A' && ch <= 'Z') ? (char)(ch - 'A' + 'a') : ch;
	}
	out[k] = 0;
}

static int blank_or_comment(const char *p, size_t n)
{
	size_t i = 0;
	while (i < n && (p[i] == ' ' || p[i] == '\t' || p[i] == '\f' || p[i] == '\r'))
		i++;
	return i == n || p[i] == '#';
}

/* Decodes text into s->src / s->len; 0, or -1 with the side refused. */
static int decode(struct a1_py_side *s, const char *text, size_t len)
{
	const unsigned char *u = (const unsigned char *)text;
	int bom = len >= 3 && u[0] == 0xef && u[1] == 0xbb && u[2] == 0xbf;
	if (bom) {
		text += 3;
		len -= 3;
	}
	char enc[64] = "";
	const char *l1 = text, *e1 = memchr(text, '\n', len);
	size_t n1 = e1 ? (size_t)(e1 - text) : len;
	cookie_of(l1, n1, enc, sizeof enc);
	if (!enc[0] && e1 && blank_or_comment(l1, n1)) {
		const char *l2 = e1 + 1, *e2 = memchr(l2, '\n', len - n1 - 1);
		cookie_of(l2, e2 ? (size_t)(e2 - l2) : len - n1 - 1, enc, sizeof enc);
	}
	static const char *const utf8[] = {"utf-8", "utf8", "utf-8-sig", "u8", "utf", "cp65001", NULL};
	static const char *const ascii[] = {"ascii", "us-ascii", "646", "us", NULL};
	static const char *const latin1[] = {"latin-1", "latin1", "iso-8859-1", "iso8859-1", "8859", "l1", "cp819",
					     "latin", "iso-ir-100", "iso-latin-1", NULL};
	int is_latin1 = 0;
	if (enc[0]) {
		/* detect_encoding normalises "utf-8-*" and "latin-1-*" / "iso-8859-1-*" prefixes too */
		if (str_in(enc, utf8) || !strncmp(enc, "utf-8-", 6))
			enc[0] = 0;
		else if (str_in(enc, latin1) || !strncmp(enc, "latin-1-", 8) || !strncmp(enc, "iso-8859-1-", 11))
			is_latin1 = 1;
		else if (!str_in(enc, ascii)) {
			set_why(s, A1_PY_UNDECODABLE, "undecodable-source", 0, 0, "encoding %s is not one this judge reads",
				enc);
			return -1;
		}
		if (bom && enc[0]) {
			set_why(s, A1_PY_UNDECODABLE, "undecodable-source", 0, 0, "encoding problem: %s with BOM", enc);
			return -1;
		}
	}
	if (is_latin1) {
		size_t extra = 0;
		for (size_t i = 0; i < len; i++)
			extra += (unsigned char)text[i] >= 0x80;
		s->own = xmalloc(len + extra + 1);
		size_t k = 0;
		for (size_t i = 0; i < len; i++) {
			unsigned char c = (unsigned char)text[i];
			if (c < 0x80) {
				s->own[k++] = (char)c;
			} else {
				s->own[k++] = (char)(0xc0 | (c >> 6));
				s->own[k++] = (char)(0x80 | (c & 0x3f));
			}
		}
		s->own[k] = 0;
		s->src = s->own;
		s->len = k;
		return 0;
	}
	size_t bad = 0;
	if (enc[0]) { /* ascii */
		for (size_t i = 0; i < len; i++)
			if ((unsigned char)text[i] >= 0x80) {
				set_why(s, A1_PY_UNDECODABLE, "undecodable-source", 0, 0,
					"'ascii' codec can't decode byte 0x%02x in position %zu", (unsigned char)text[i], i);
				return -1;
			}
	} else if (!utf8_ok((const unsigned char *)text, len, &bad)) {
		set_why(s, A1_PY_UNDECODABLE, "undecodable-source", 0, 0, "'utf-8' codec can't decode byte 0x%02x in position %zu",
			(unsigned char)text[bad], bad);
		return -1;
	}
	s->src = text;
	s->len = len;
	return 0;
}

/* ==== refusing what nests too deeply, before parsing ===================================== */

/* Brackets open at once (CPython: 200), indentation levels (CPython: 100), and tokens pending
 * in one statement: those since the last `,` / `;` / end of a logical line that ended an
 * operand, or since the matching closer of a bracket group (which then counts as one token),
 * summed over the open brackets - `not not not ... x`, `-----x`, `a ** a ** ...`,
 * `lambda: lambda: ...` nest without brackets. Strings and comments are skipped as the
 * tokenizer does. */
static int check_nesting(struct a1_py_side *s)
{
	const char *p = s->src;
	size_t n = s->len, depth = 0, run = 0, levels = 0, line = 1, col0 = 0;
	size_t stack[A1_PY_MAX_DEPTH + 1];
	size_t indent[INDENT_MAX + 2];
	int bol = 1, expects = 1;
	for (size_t i = 0; i < n; i++) {
		char c = p[i];
		if (run > RUN_MAX) {
			set_why(s, A1_PY_UNPARSEABLE, "unparseable-source", (unsigned)line, (unsigned)(i - col0 + 1),
				"more than %d tokens pending in one statement", RUN_MAX);
			return -1;
		}
		if (bol && depth == 0) { /* the indentation of a logical line */
			size_t w = 0, j = i;
			while (j < n && (p[j] == ' ' || p[j] == '\t' || p[j] == '\f'))
				w += p[j++] == '\t' ? 8 - (w % 8) : 1;
			if (j < n && p[j] != '\n' && p[j] != '\r' && p[j] != '#' && p[j] != '\\') {
				while (levels && indent[levels - 1] > w)
					levels--;
				if (w > 0 && (!levels || indent[levels - 1] < w)) {
					if (levels == INDENT_MAX) {
						set_why(s, A1_PY_UNPARSEABLE, "unparseable-source", (unsigned)line, 1,
							"too many levels of indentation");
						return -1;
					}
					indent[levels++] = w;
				}
			}
			bol = 0;
		}
		if (c == '\n') {
			line++;
			col0 = i + 1;
			if (depth == 0) {
				bol = 1;
				run = 0;
				expects = 1;
			}
			continue;
		}
		if (c == ' ' || c == '\t' || c == '\r' || c == '\f')
			continue;
		if (c == '\\' && i + 1 < n && (p[i + 1] == '\n' || p[i + 1] == '\r')) {
			i++;
			if (p[i] == '\r' && i + 1 < n && p[i + 1] == '\n')
				i++;
			line++;
			col0 = i + 1;
			continue;
		}
		if (c == '#') {
			while (i + 1 < n && p[i + 1] != '\n')
				i++;
			continue;
		}
		if (c == '"' || c == '\'') {
			int triple = i + 2 < n && p[i + 1] == c && p[i + 2] == c;
			size_t j = i + (triple ? 3 : 1);
			for (; j < n; j++) {
				if (p[j] == '\\') {
					j++;
					continue;
				}
				if (p[j] == '\n') {
					line++;
					col0 = j + 1;
					if (!triple)
						break;
				}
				if (p[j] == c && (!triple || (j + 2 < n && p[j + 1] == c && p[j + 2] == c))) {
					j += triple ? 2 : 0;
					break;
				}
			}
			i = j;
			run++;
			expects = 0;
			continue;
		}
		if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
		    (unsigned char)c >= 0x80) {
			size_t j = i;
			while (j < n && ((p[j] >= 'a' && p[j] <= 'z') || (p[j] >= 'A' && p[j] <= 'Z') ||
					 (p[j] >= '0' && p[j] <= '9') || p[j] == '_' || (unsigned char)p[j] >= 0x80))
				j++;
			static const char *const kw[] = {"not", "and", "or", "in", "is", "lambda", "await", "if", "else",
							 "return", "yield", "assert", "del", "raise", "from", "import",
							 "for", "while", "elif", "with", "as", "async", NULL};
			expects = 0;
			for (const char *const *k = kw; *k; k++)
				if (strlen(*k) == j - i && !memcmp(p + i, *k, j - i))
					expects = 1;
			run++;
			i = j - 1;
			continue;
		}
		run++;
		if (c == '(' || c == '[' || c == '{') {
			if (depth == A1_PY_MAX_DEPTH) {
				set_why(s, A1_PY_UNPARSEABLE, "unparseable-source", (unsigned)line, (unsigned)(i - col0 + 1),
					"too many nested parentheses (more than %d)", A1_PY_MAX_DEPTH);
				return -1;
			}
			stack[depth++] = run - 1;
			expects = 1;
		} else if ((c == ')' || c == ']' || c == '}') && depth) {
			run = stack[--depth] + 1;
			expects = 0;
		} else if ((c == ',' || c == ';') && !expects) {
			run = depth ? stack[depth - 1] + 1 : 0;
			expects = 1;
		} else {
			expects = 1;
		}
	}
	return 0;
}

/* The deepest level of the tree, counted without recursion; stops past WALK_MAX. On the
 * way, *py2 gets whether a Python 2 statement (print, exec) is in it. */
static int too_deep(TSNode root, TSNode *at, int *py2)
{
	TSTreeCursor c = ts_tree_cursor_new(root);
	unsigned d = 0;
	int deep = 0;
	for (;;) {
		if (d > WALK_MAX) {
			*at = ts_tree_cursor_current_node(&c);
			deep = 1;
			break;
		}
		if (!*py2) {
			const char *t = ts_node_type(ts_tree_cursor_current_node(&c));
			*py2 = (t[0] == 'p' || t[0] == 'e') && (!strcmp(t, "print_statement") || !strcmp(t, "exec_statement"));
		}
		if (ts_tree_cursor_goto_first_child(&c)) {
			d++;
			continue;
		}
		int more = 0;
		while (!(more = ts_tree_cursor_goto_next_sibling(&c))) {
			if (!ts_tree_cursor_goto_parent(&c))
				break;
			d--;
		}
		if (!more)
			break;
	}
	ts_tree_cursor_delete(&c);
	return deep;
}

static void syntax_error(struct a1_py_side *s, TSNode root)
{
	char what[TSNODE_SNIP * 4 + 40];
	int kind;
	refuse_at(s, tsnode_syntax_error(s->src, root, "invalid syntax", what, sizeof what, &kind), what);
}

/* ==== canonical text ===================================================================== */

struct canon {
	struct buf *b;
	int space;     /* a space is due before the next token (unless it closes a group) */
	int comma;     /* a comma is due: dropped before a closer */
	int keep_comma; /* the due comma makes a one-element tuple */
	uint64_t hash;
	size_t total;
	struct a1_py_side *s;
};

static void put_raw(struct canon *c, const char *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		c->hash = (c->hash ^ (unsigned char)p[i]) * 1099511628211ull;
	c->total += n;
	if (c->b->len < FORM_CAP) {
		size_t room = FORM_CAP - c->b->len;
		buf_append(c->b, p, n < room ? n : room);
	}
}

static int wordc(char ch)
{
	return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') || ch == '_' ||
	       (unsigned char)ch >= 0x80;
}

/* Emits a token: `before` / `after` ask for a space on that side. */
static void emit(struct canon *c, const char *p, size_t n, int before, int after)
{
	if (!n)
		return;
	int closer = n == 1 && strchr(")]}", *p);
	if (c->comma) {
		c->comma = 0;
		if (!closer || c->keep_comma) {
			put_raw(c, ",", 1);
			c->space = !closer;
		}
		c->keep_comma = 0;
	}
	char last = c->b->len ? c->b->p[c->b->len - 1] : 0;
	int opener = last && strchr("([{", last);
	if (last && !opener && last != ' ' && !closer && (c->space || before || (wordc(last) && wordc(p[0]))))
		put_raw(c, " ", 1);
	put_raw(c, p, n);
	c->space = after;
}

/* `par`: n's parent, or a null node where n is named (a named leaf's text does not depend on
 * its parent; an anonymous one's does, and then the parent is looked up - slow in this
 * runtime, which walks down from the root). */
static void render(struct canon *c, TSNode n, TSNode par, int bare, unsigned depth);

/* The prefix letters of a string (lowercase, without u), and whether it is raw / f / bytes. */
static size_t string_prefix(const struct a1_py_side *s, TSNode str, char *pre, int *raw, int *fstr, int *bytes)
{
	TSNode st = ts_node_child(str, 0);
	size_t k = 0;
	*raw = *fstr = *bytes = 0;
	if (ts_node_is_null(st))
		return 0;
	const char *p = s->src + ts_node_start_byte(st);
	size_t n = tsnode_len(st);
	for (size_t i = 0; i < n && p[i] != '\'' && p[i] != '"'; i++) {
		char ch = (char)(p[i] | 0x20);
		*raw |= ch == 'r';
		*fstr |= ch == 'f';
		*bytes |= ch == 'b';
		if (ch != 'u' && k < 3)
			pre[k++] = ch;
	}
	pre[k] = 0;
	return k;
}

static void render_string_body(struct canon *c, TSNode str, unsigned depth)
{
	uint32_t m = ts_node_child_count(str);
	for (uint32_t i = 0; i < m; i++) {
		TSNode k = ts_node_child(str, i);
		if (tsnode_is(k, "string_start") || tsnode_is(k, "string_end"))
			continue;
		if (tsnode_is(k, "interpolation")) {
			struct buf *saved = c->b;
			(void)saved;
			put_raw(c, "{", 1);
			TSNode e = tsnode_field(k, "expression");
			if (!ts_node_is_null(e)) {
				struct buf inner = {0};
				struct canon ic = {.b = &inner, .s = c->s, .hash = 1469598103934665603ull};
				render(&ic, e, k, 1, depth + 1);
				put_raw(c, inner.p ? inner.p : "", inner.len);
				buf_free(&inner);
			}
			/* conversion and format spec as written */
			uint32_t kk = ts_node_child_count(k);
			for (uint32_t j = 0; j < kk; j++) {
				TSNode t = ts_node_child(k, j);
				if (tsnode_is(t, "type_conversion") || tsnode_is(t, "format_specifier"))
					put_raw(c, c->s->src + ts_node_start_byte(t), tsnode_len(t));
			}
			put_raw(c, "}", 1);
			continue;
		}
		const char *p = c->s->src + ts_node_start_byte(k);
		size_t n = tsnode_len(k);
		for (size_t j = 0; j < n; j++) { /* quotes unified: ' inside is escaped, \" is " */
			if (p[j] == '\\' && j + 1 < n && p[j + 1] == '"') {
				put_raw(c, "\"", 1);
				j++;
			} else if (p[j] == '\\' && j + 1 < n) {
				put_raw(c, p + j, 2);
				j++;
			} else if (p[j] == '\'') {
				put_raw(c, "\\'", 2);
			} else if (p[j] == '\n') {
				put_raw(c, "\\n", 2);
			} else {
				put_raw(c, p + j, 1);
			}
		}
	}
}

static void render_strings(struct canon *c, TSNode n, unsigned depth)
{
	/* one string, or adjacent strings of one prefix joined as Python joins them */
	TSNode parts[1] = {n};
	int concat = tsnode_is(n, "concatenated_string");
	uint32_t m = concat ? a1_py_nkids(n) : 1;
	char pre0[4] = "", pre[4];
	int raw, f, b, same = 1;
	for (uint32_t i = 0; i < m; i++) {
		TSNode k = concat ? a1_py_kid(n, i) : parts[0];
		string_prefix(c->s, k, pre, &raw, &f, &b);
		if (i == 0)
			memcpy(pre0, pre, sizeof pre);
		else if (strcmp(pre0, pre))
			same = 0;
	}
	if (!same) {
		for (uint32_t i = 0; i < m; i++)
			render_strings(c, a1_py_kid(n, i), depth + 1);
		return;
	}
	emit(c, pre0, strlen(pre0), 0, 0);
	if (!pre0[0]) {
		emit(c, "'", 1, 0, 0);
	} else {
		put_raw(c, "'", 1);
	}
	for (uint32_t i = 0; i < m; i++)
		render_string_body(c, concat ? a1_py_kid(n, i) : parts[0], depth);
	put_raw(c, "'", 1);
	c->space = 0;
}

/* Parentheses that ast.unparse would not print: around an atom, or where the context
 * separates the expression anyway (an argument, an element, the whole form). */
static int atom(TSNode n)
{
	static const char *const atoms[] = {"identifier", "call", "attribute", "subscript", "string",
					    "concatenated_string", "integer", "float", "true", "false",
					    "none", "list", "dictionary", "set", "tuple", "parenthesized_expression",
					    "list_comprehension", "dictionary_comprehension", "set_comprehension",
					    "generator_expression", "ellipsis", NULL};
	return str_in(ts_node_type(n), atoms);
}

static int spaced_parent(const char *t)
{
	static const char *const ops[] = {"binary_operator", "comparison_operator", "boolean_operator",
					  "augmented_assignment", "assignment", "conditional_expression", NULL};
	return str_in(t, ops);
}

static void render(struct canon *c, TSNode n, TSNode par, int bare, unsigned depth)
{
	if (depth > WALK_MAX || !spend(c->s, 1))
		return;
	const char *t = ts_node_type(n);
	if (!strcmp(t, "comment"))
		return;
	if (!strcmp(t, "string") || !strcmp(t, "concatenated_string")) {
		render_strings(c, n, depth);
		return;
	}
	if (!strcmp(t, "parenthesized_expression") && a1_py_nkids(n) == 1) {
		TSNode in = a1_py_kid(n, 0);
		if (bare || atom(in)) {
			render(c, in, n, bare, depth + 1);
			return;
		}
	}
	uint32_t m = ts_node_child_count(n);
	if (m == 0) {
		const char *p = c->s->src + ts_node_start_byte(n);
		size_t k = tsnode_len(n);
		if (!ts_node_is_named(n))
			p = t, k = strlen(t); /* `is   not` is "is not" */
		if (ts_node_is_null(par) && !ts_node_is_named(n))
			par = ts_node_parent(n);
		const char *pt = ts_node_is_null(par) ? "" : ts_node_type(par);
		if (k == 1 && *p == ',') {
			c->comma = 1;
			c->keep_comma = !strcmp(pt, "tuple") && a1_py_nkids(par) == 1;
			return;
		}
		if (k == 1 && *p == ';')
			return;
		int named = ts_node_is_named(n);
		int alpha = !named && wordc(p[0]);
		int sp = !named && (alpha || spaced_parent(pt) || !strcmp(p, "->"));
		if (!named && !strcmp(p, "=") && (!strcmp(pt, "keyword_argument") || !strcmp(pt, "default_parameter")))
			sp = 0;
		if (!named && k == 1 && *p == ':') {
			int after = !strcmp(pt, "pair") || !strcmp(pt, "lambda");
			emit(c, p, k, 0, after);
			return;
		}
		if (!strcmp(pt, "unary_operator") || !strcmp(pt, "list_splat") || !strcmp(pt, "dictionary_splat") ||
		    !strcmp(pt, "list_splat_pattern") || !strcmp(pt, "dictionary_splat_pattern"))
			sp = 0;
		if (alpha && (!strcmp(pt, "not_operator") || !strcmp(pt, "lambda") || !strcmp(pt, "await")))
			emit(c, p, k, 0, 1);
		else
			emit(c, p, k, sp, sp);
		return;
	}
	static const char *const sep[] = {"argument_list", "keyword_argument", "list", "set", "tuple", "expression_list",
					  "pair", "subscript", "assert_statement", "return_statement", "with_item",
					  "parenthesized_expression", NULL};
	int kids_bare = str_in(t, sep);
	TSTreeCursor *cur = tsnode_cursor(&c->s->render_cursors, depth, n);
	for (int more = ts_tree_cursor_goto_first_child(cur); more; more = ts_tree_cursor_goto_next_sibling(cur))
		render(c, ts_tree_cursor_current_node(cur), n, kids_bare, depth + 1);
}

static const char *canon_text(struct a1_py_side *s, TSNode n)
{
	buf_reset(&s->cb);
	struct canon c = {.b = &s->cb, .s = s, .hash = 1469598103934665603ull};
	render(&c, n, (TSNode){0}, 1, 0);
	if (c.total > FORM_CAP)
		buf_printf(&s->cb, "...#%016llx", (unsigned long long)c.hash);
	return buf_cstr(&s->cb);
}

char *a1_py_canon(struct a1_py_side *s, TSNode n)
{
	return xstrdup(canon_text(s, n));
}

int a1_py_same(struct a1_py_side *a, TSNode x, struct a1_py_side *b, TSNode y)
{
	char *p = a1_py_canon(a, x);
	int r = !strcmp(p, canon_text(b, y));
	free(p);
	return r;
}

char *a1_py_dotted(const struct a1_py_side *s, TSNode n)
{
	struct buf b = {0};
	TSNode parts[64];
	size_t k = 0;
	n = a1_py_bare(n);
	while (tsnode_is(n, "attribute") && k < 63) {
		parts[k++] = tsnode_field(n, "attribute");
		n = a1_py_bare(tsnode_field(n, "object"));
	}
	if (!tsnode_is(n, "identifier"))
		return NULL;
	parts[k++] = n;
	while (k--) {
		buf_append(&b, s->src + ts_node_start_byte(parts[k]), tsnode_len(parts[k]));
		if (k)
			buf_putc(&b, '.');
	}
	return buf_take(&b);
}

size_t a1_py_args(TSNode call, TSNode *out, size_t max)
{
	TSNode al = tsnode_field(call, "arguments");
	size_t k = 0;
	if (!tsnode_is(al, "argument_list"))
		return tsnode_is(al, "generator_expression") ? (max ? (out[0] = al, 1) : 1) : 0;
	uint32_t m = a1_py_nkids(al);
	for (uint32_t i = 0; i < m; i++) {
		TSNode a = a1_py_kid(al, i);
		if (tsnode_is(a, "keyword_argument") || tsnode_is(a, "dictionary_splat"))
			continue;
		if (k < max)
			out[k] = a;
		k++;
	}
	return k;
}

TSNode a1_py_keyword(const struct a1_py_side *s, TSNode call, const char *name)
{
	TSNode al = tsnode_field(call, "arguments"), none = {0};
	uint32_t m = a1_py_nkids(al);
	for (uint32_t i = 0; tsnode_is(al, "argument_list") && i < m; i++) {
		TSNode a = a1_py_kid(al, i);
		if (tsnode_is(a, "keyword_argument") && tsnode_text_is(s->src, tsnode_field(a, "name"), name))
			return tsnode_field(a, "value");
	}
	return none;
}

char *a1_py_method(const struct a1_py_side *s, TSNode call)
{
	TSNode f = tsnode_field(call, "function");
	if (!tsnode_is(f, "attribute"))
		return NULL;
	return tsnode_text(s->src, tsnode_field(f, "attribute"));
}

/* ==== literal values (weakening.py's const_value) ======================================== */

enum vk { V_MISSING = 0, V_NONE, V_BOOL, V_INT, V_FLOAT, V_COMPLEX, V_STR, V_BYTES, V_ELLIPSIS, V_TUPLE, V_LIST, V_SET };

struct val {
	enum vk k;
	int64_t i;
	double f;
	char *s; /* V_STR / V_BYTES: decoded bytes */
	size_t slen;
	struct val *el;
	size_t n;
};

static void val_free(struct val *v)
{
	free(v->s);
	for (size_t i = 0; i < v->n; i++)
		val_free(&v->el[i]);
	free(v->el);
	memset(v, 0, sizeof *v);
}

static void put_utf8(struct buf *b, unsigned long cp)
{
	char o[4];
	if (cp >= 0xd800 && cp <= 0xdfff) { /* a lone surrogate: kept as its escape */
		buf_printf(b, "\\u%04lx", cp);
		return;
	}
	if (cp < 0x80) {
		buf_putc(b, (char)cp);
	} else if (cp < 0x800) {
		o[0] = (char)(0xc0 | (cp >> 6));
		o[1] = (char)(0x80 | (cp & 0x3f));
		buf_append(b, o, 2);
	} else if (cp < 0x10000) {
		o[0] = (char)(0xe0 | (cp >> 12));
		o[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
		o[2] = (char)(0x80 | (cp & 0x3f));
		buf_append(b, o, 3);
	} else {
		o[0] = (char)(0xf0 | (cp >> 18));
		o[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
		o[2] = (char)(0x80 | ((cp >> 6) & 0x3f));
		o[3] = (char)(0x80 | (cp & 0x3f));
		buf_append(b, o, 4);
	}
}

static int hexv(char ch)
{
	return ch >= '0' && ch <= '9' ? ch - '0' : ch >= 'a' && ch <= 'f' ? ch - 'a' + 10 : ch >= 'A' && ch <= 'F' ? ch - 'A' + 10 : -1;
}

/* Appends the value of one string's body (escapes read unless raw). */
static void string_body_value(const struct a1_py_side *s, TSNode str, int raw, int bytes, struct buf *b)
{
	uint32_t m = ts_node_child_count(str);
	for (uint32_t i = 0; i < m; i++) {
		TSNode k = ts_node_child(str, i);
		if (tsnode_is(k, "string_start") || tsnode_is(k, "string_end"))
			continue;
		const char *p = s->src + ts_node_start_byte(k);
		size_t n = tsnode_len(k);
		for (size_t j = 0; j < n; j++) {
			if (p[j] != '\\' || raw || j + 1 >= n) {
				buf_putc(b, p[j]);
				continue;
			}
			char e = p[++j];
			static const char from[] = "\n\\'\"abfnrtv", to[] = "\0\\'\"\a\b\f\n\r\t\v";
			const char *w = strchr(from, e);
			if (w && e) {
				if (e != '\n')
					buf_putc(b, to[w - from]);
			} else if (e >= '0' && e <= '7') {
				unsigned v = 0, d = 0;
				while (d < 3 && j < n && p[j] >= '0' && p[j] <= '7')
					v = v * 8 + (unsigned)(p[j++] - '0'), d++;
				j--;
				if (bytes)
					buf_putc(b, (char)(v & 0xff));
				else
					put_utf8(b, v);
			} else if (e == 'x' || (!bytes && (e == 'u' || e == 'U'))) {
				unsigned want = e == 'x' ? 2 : e == 'u' ? 4 : 8;
				unsigned long v = 0;
				unsigned d = 0;
				while (d < want && j + 1 < n && hexv(p[j + 1]) >= 0)
					v = v * 16 + (unsigned long)hexv(p[++j]), d++;
				if (bytes)
					buf_putc(b, (char)(v & 0xff));
				else
					put_utf8(b, v > 0x10ffff ? 0xfffd : v);
			} else {
				buf_putc(b, '\\');
				buf_putc(b, e);
			}
		}
	}
}

/* The value of a string / concatenated string without interpolation: 1 with *b filled. */
static int string_value(const struct a1_py_side *s, TSNode n, struct buf *b, int *is_bytes)
{
	int concat = tsnode_is(n, "concatenated_string");
	uint32_t m = concat ? a1_py_nkids(n) : 1;
	*is_bytes = -1;
	for (uint32_t i = 0; i < m; i++) {
		TSNode k = concat ? a1_py_kid(n, i) : n;
		char pre[4];
		int raw, f, bytes;
		string_prefix(s, k, pre, &raw, &f, &bytes);
		if (f || (*is_bytes >= 0 && *is_bytes != bytes))
			return 0;
		*is_bytes = bytes;
		string_body_value(s, k, raw, bytes, b);
	}
	return 1;
}

char *a1_py_string_value(const struct a1_py_side *s, TSNode n)
{
	n = a1_py_bare(n);
	if (!tsnode_is(n, "string") && !tsnode_is(n, "concatenated_string"))
		return NULL;
	struct buf b = {0};
	int bytes;
	if (!string_value(s, n, &b, &bytes) || bytes) {
		buf_free(&b);
		return NULL;
	}
	buf_cstr(&b);
	return buf_take(&b);
}

static int parse_number(const struct a1_py_side *s, TSNode n, struct val *v)
{
	char t[80];
	size_t k = 0, len = tsnode_len(n);
	const char *p = s->src + ts_node_start_byte(n);
	if (len >= sizeof t)
		return 0;
	for (size_t i = 0; i < len; i++)
		if (p[i] != '_')
			t[k++] = p[i];
	t[k] = 0;
	if (k && (t[k - 1] == 'j' || t[k - 1] == 'J')) {
		t[k - 1] = 0;
		v->k = V_COMPLEX;
		v->f = strtod(t, NULL);
		return 1;
	}
	if (tsnode_is(n, "float")) {
		v->k = V_FLOAT;
		v->f = strtod(t, NULL);
		return 1;
	}
	int base = 10;
	const char *d = t;
	if (t[0] == '0' && (t[1] | 0x20) == 'x')
		base = 16, d = t + 2;
	else if (t[0] == '0' && (t[1] | 0x20) == 'o')
		base = 8, d = t + 2;
	else if (t[0] == '0' && (t[1] | 0x20) == 'b')
		base = 2, d = t + 2;
	uint64_t acc = 0;
	for (; *d; d++) {
		int x = hexv(*d);
		if (x < 0 || x >= base || acc > (UINT64_C(1) << 62) / (unsigned)base)
			return 0; /* too large for this reading: not a value it decides */
		acc = acc * (unsigned)base + (unsigned)x;
	}
	v->k = V_INT;
	v->i = (int64_t)acc;
	return 1;
}

static int num(const struct val *v, double *d)
{
	if (v->k == V_BOOL || v->k == V_INT)
		*d = (double)v->i;
	else if (v->k == V_FLOAT)
		*d = v->f;
	else
		return 0;
	return 1;
}

static int truthy(const struct val *v)
{
	switch (v->k) {
	case V_NONE:
		return 0;
	case V_BOOL:
	case V_INT:
		return v->i != 0;
	case V_FLOAT:
	case V_COMPLEX:
		return v->f != 0;
	case V_STR:
	case V_BYTES:
		return v->slen > 0;
	case V_TUPLE:
	case V_LIST:
	case V_SET:
		return v->n > 0;
	default:
		return 1;
	}
}

static int val_eq(const struct val *a, const struct val *b);

static int set_has(const struct val *set, const struct val *x)
{
	for (size_t i = 0; i < set->n; i++)
		if (val_eq(&set->el[i], x))
			return 1;
	return 0;
}

static int val_eq(const struct val *a, const struct val *b)
{
	double x, y;
	if (num(a, &x) && num(b, &y))
		return x == y;
	if (a->k != b->k)
		return 0;
	switch (a->k) {
	case V_NONE:
	case V_ELLIPSIS:
		return 1;
	case V_COMPLEX:
		return a->f == b->f;
	case V_STR:
	case V_BYTES:
		return a->slen == b->slen && !memcmp(a->s, b->s, a->slen);
	case V_TUPLE:
	case V_LIST:
		if (a->n != b->n)
			return 0;
		for (size_t i = 0; i < a->n; i++)
			if (!val_eq(&a->el[i], &b->el[i]))
				return 0;
		return 1;
	case V_SET:
		for (size_t i = 0; i < a->n; i++)
			if (!set_has(b, &a->el[i]))
				return 0;
		for (size_t i = 0; i < b->n; i++)
			if (!set_has(a, &b->el[i]))
				return 0;
		return 1;
	default:
		return 0;
	}
}

/* Ordering: -1/0/1, or 2 when Python raises TypeError. */
static int val_cmp(const struct val *a, const struct val *b)
{
	double x, y;
	if (num(a, &x) && num(b, &y))
		return x < y ? -1 : x > y ? 1 : 0;
	if (a->k != b->k)
		return 2;
	if (a->k == V_STR || a->k == V_BYTES) {
		size_t m = a->slen < b->slen ? a->slen : b->slen;
		int c = memcmp(a->s, b->s, m);
		return c ? (c < 0 ? -1 : 1) : a->slen < b->slen ? -1 : a->slen > b->slen ? 1 : 0;
	}
	if (a->k == V_TUPLE || a->k == V_LIST) {
		for (size_t i = 0; i < a->n && i < b->n; i++)
			if (!val_eq(&a->el[i], &b->el[i]))
				return val_cmp(&a->el[i], &b->el[i]);
		return a->n < b->n ? -1 : a->n > b->n ? 1 : 0;
	}
	return 2; /* sets order by inclusion: not decided here */
}

/* x in c: 1 / 0, or 2 when Python raises TypeError. */
static int val_in(const struct val *x, const struct val *c)
{
	if (c->k == V_STR || c->k == V_BYTES) {
		if (x->k != c->k)
			return 2;
		if (!x->slen)
			return 1;
		for (size_t i = 0; i + x->slen <= c->slen; i++)
			if (!memcmp(c->s + i, x->s, x->slen))
				return 1;
		return 0;
	}
	if (c->k == V_TUPLE || c->k == V_LIST || c->k == V_SET)
		return set_has(c, x);
	return 2;
}

static int const_value(struct a1_py_side *s, TSNode n, int depth, struct val *v)
{
	memset(v, 0, sizeof *v);
	if (depth > 40 || ts_node_is_null(n) || !spend(s, 1))
		return 0;
	n = a1_py_bare(n);
	const char *t = ts_node_type(n);
	if (!strcmp(t, "true") || !strcmp(t, "false")) {
		v->k = V_BOOL;
		v->i = t[0] == 't';
		return 1;
	}
	if (!strcmp(t, "none")) {
		v->k = V_NONE;
		return 1;
	}
	if (!strcmp(t, "ellipsis")) {
		v->k = V_ELLIPSIS;
		return 1;
	}
	if (!strcmp(t, "integer") || !strcmp(t, "float"))
		return parse_number(s, n, v);
	if (!strcmp(t, "string") || !strcmp(t, "concatenated_string")) {
		struct buf b = {0};
		int bytes;
		if (!string_value(s, n, &b, &bytes)) {
			buf_free(&b);
			return 0;
		}
		v->k = bytes ? V_BYTES : V_STR;
		v->slen = b.len;
		buf_cstr(&b);
		v->s = buf_take(&b);
		return 1;
	}
	if (!strcmp(t, "tuple") || !strcmp(t, "list") || !strcmp(t, "set")) {
		uint32_t m = a1_py_nkids(n);
		v->k = t[0] == 't' ? V_TUPLE : t[0] == 'l' ? V_LIST : V_SET;
		v->el = xcalloc(m + 1, sizeof *v->el);
		for (uint32_t i = 0; i < m; i++) {
			TSNode e = a1_py_kid(n, i);
			if (tsnode_is(e, "list_splat") || !const_value(s, e, depth + 1, &v->el[v->n])) {
				val_free(v);
				return 0;
			}
			v->n++;
		}
		return 1;
	}
	if (!strcmp(t, "not_operator")) {
		struct val x;
		if (!const_value(s, tsnode_field(n, "argument"), depth + 1, &x))
			return 0;
		v->k = V_BOOL;
		v->i = !truthy(&x);
		val_free(&x);
		return 1;
	}
	if (!strcmp(t, "unary_operator")) {
		TSNode op = tsnode_field(n, "operator");
		struct val x;
		if (tsnode_text_is(s->src, op, "~") || !const_value(s, tsnode_field(n, "argument"), depth + 1, &x))
			return 0;
		if (x.k != V_INT && x.k != V_BOOL && x.k != V_FLOAT) {
			val_free(&x);
			return 0;
		}
		int neg = tsnode_text_is(s->src, op, "-");
		if (x.k == V_FLOAT) {
			v->k = V_FLOAT;
			v->f = neg ? -x.f : x.f;
		} else {
			v->k = V_INT;
			v->i = neg ? -x.i : x.i;
		}
		return 1;
	}
	if (!strcmp(t, "boolean_operator")) {
		/* a chain a and b and c nests left: evaluated in source order with short circuit */
		int is_and = tsnode_text_is(s->src, tsnode_field(n, "operator"), "and");
		if (!const_value(s, tsnode_field(n, "left"), depth + 1, v))
			return 0;
		if (is_and ? !truthy(v) : truthy(v))
			return 1;
		val_free(v);
		return const_value(s, tsnode_field(n, "right"), depth + 1, v);
	}
	if (!strcmp(t, "comparison_operator")) {
		/* children: operand (op operand)+ */
		uint32_t m = ts_node_child_count(n);
		struct val left, right;
		int have = 0, result = 1;
		const char *op = NULL;
		for (uint32_t i = 0; i < m; i++) {
			TSNode k = ts_node_child(n, i);
			if (is_comment(k))
				continue;
			if (!ts_node_is_named(k)) {
				op = ts_node_type(k);
				continue;
			}
			if (!have) {
				if (!const_value(s, k, depth + 1, &left))
					return 0;
				have = 1;
				continue;
			}
			if (!op || !const_value(s, k, depth + 1, &right)) {
				val_free(&left);
				return 0;
			}
			int r;
			if (!strcmp(op, "==") || !strcmp(op, "!=") || !strcmp(op, "<>"))
				r = val_eq(&left, &right) ^ (op[0] != '=');
			else if (!strcmp(op, "in") || !strcmp(op, "not in")) {
				r = val_in(&left, &right);
				if (r == 2)
					goto fail;
				r ^= op[0] == 'n';
			} else if (!strcmp(op, "<") || !strcmp(op, "<=") || !strcmp(op, ">") || !strcmp(op, ">=")) {
				int c = val_cmp(&left, &right);
				if (c == 2)
					goto fail;
				r = op[0] == '<' ? (op[1] ? c <= 0 : c < 0) : (op[1] ? c >= 0 : c > 0);
			} else {
				goto fail; /* is / is not: not decided on literals */
			}
			if (!r)
				result = 0;
			val_free(&left);
			left = right;
			op = NULL;
			if (!result)
				break;
			continue;
fail:
			val_free(&left);
			val_free(&right);
			return 0;
		}
		if (have)
			val_free(&left);
		v->k = V_BOOL;
		v->i = result;
		return have;
	}
	return 0;
}

int a1_py_literal(struct a1_py_side *s, TSNode n, double *d, int *type)
{
	struct val v;
	if (!const_value(s, n, 0, &v))
		return 0;
	if (d) {
		*d = NAN;
		num(&v, d);
	}
	if (type)
		*type = v.k == V_INT ? 'i' : v.k == V_FLOAT ? 'f' : v.k == V_BOOL ? 'b' : v.k == V_STR ? 's' : '?';
	val_free(&v);
	return 1;
}

int a1_py_always_falsy(struct a1_py_side *s, TSNode n)
{
	struct val v;
	if (!const_value(s, n, 0, &v))
		return 0;
	int r = !truthy(&v);
	val_free(&v);
	return r;
}

int a1_py_always_truthy(struct a1_py_side *s, TSNode n, int depth)
{
	if (depth > 40 || ts_node_is_null(n))
		return 0;
	struct val v;
	if (const_value(s, n, 0, &v)) {
		int r = truthy(&v);
		val_free(&v);
		return r;
	}
	n = a1_py_bare(n);
	const char *t = ts_node_type(n);
	if (!strcmp(t, "tuple") || !strcmp(t, "list") || !strcmp(t, "set") || !strcmp(t, "dictionary"))
		return a1_py_nkids(n) > 0;
	if (!strcmp(t, "string")) { /* an f-string with text besides its substitutions */
		uint32_t m = ts_node_child_count(n);
		for (uint32_t i = 0; i < m; i++)
			if (tsnode_is(ts_node_child(n, i), "string_content"))
				return 1;
		return 0;
	}
	if (!strcmp(t, "comparison_operator")) {
		uint32_t named = 0, m = ts_node_child_count(n);
		const char *op = NULL;
		TSNode l = {0}, r = {0};
		for (uint32_t i = 0; i < m; i++) {
			TSNode k = ts_node_child(n, i);
			if (is_comment(k))
				continue;
			if (!ts_node_is_named(k))
				op = ts_node_type(k);
			else if (named++ == 0)
				l = k;
			else
				r = k;
		}
		if (named != 2 || !op)
			return 0;
		if (str_in(op, (const char *const[]){"==", "is", "<=", ">=", NULL}))
			return a1_py_same(s, l, s, r); /* a value compared with itself */
		return 0;
	}
	if (!strcmp(t, "boolean_operator")) {
		int is_or = tsnode_text_is(s->src, tsnode_field(n, "operator"), "or");
		int a = a1_py_always_truthy(s, tsnode_field(n, "left"), depth + 1);
		if (is_or && a)
			return 1;
		if (!is_or && !a)
			return 0;
		return a1_py_always_truthy(s, tsnode_field(n, "right"), depth + 1);
	}
	if (!strcmp(t, "conditional_expression"))
		return a1_py_always_truthy(s, a1_py_kid(n, 0), depth + 1) &&
		       a1_py_always_truthy(s, a1_py_kid(n, 2), depth + 1);
	if (!strcmp(t, "named_expression"))
		return a1_py_always_truthy(s, tsnode_field(n, "value"), depth + 1);
	return 0;
}

/* ==== the walk (weakening.py's Extractor) ================================================ */

struct ex {
	struct a1_py_side *s;
	char **unit; /* the unit's module names */
	size_t nunit;
	struct buf path; /* the enclosing function path */
	long fn;	 /* its index, -1 at module level */
	int state;
	unsigned inherited;
	unsigned *counts; /* per (function, kind): facts seen, for the ordinals */
	size_t capcounts;
	struct tsnode_cursors cursors; /* visit_kids / body: one per depth */
};

long a1_py_find_func(const struct a1_py_side *s, const char *name)
{
	int64_t i;
	return name && strmap_get(&s->func_index, name, &i) ? (long)i : -1;
}

static long func_index(struct ex *x, const char *name)
{
	struct a1_py_side *s = x->s;
	long i = a1_py_find_func(s, name);
	if (i >= 0)
		return i;
	s->funcs = xgrow_zeroed(s->funcs, &s->capfuncs, s->nfuncs, sizeof *s->funcs, 8);
	s->funcs[s->nfuncs].name = xstrdup(name);
	strmap_put(&s->func_index, name, (int64_t)s->nfuncs);
	return (long)s->nfuncs++;
}

static void add_name(char ***v, size_t *n, size_t *cap, const char *what, size_t len)
{
	for (size_t i = 0; i < *n; i++)
		if (strlen((*v)[i]) == len && !memcmp((*v)[i], what, len))
			return;
	*v = xgrow_zeroed(*v, cap, *n, sizeof **v, 4);
	(*v)[(*n)++] = xstrndup(what, len);
}

static void add_mock(struct a1_py_func *f, const char *what)
{
	add_name(&f->mocks, &f->nmocks, &f->capmocks, what, strlen(what));
}

static void add_fact(struct ex *x, int kind, char *form, TSNode node)
{
	struct a1_py_side *s = x->s;
	size_t slot = (size_t)(x->fn + 1) * A1_PY_K_N + (size_t)kind;
	x->counts = xgrow_zeroed(x->counts, &x->capcounts, slot, sizeof *x->counts, 64);
	s->facts = xgrow_zeroed(s->facts, &s->capfacts, s->nfacts, sizeof *s->facts, 16);
	struct a1_py_fact *f = &s->facts[s->nfacts++];
	f->kind = kind;
	f->form = form;
	f->fn = x->fn;
	f->ordinal = x->counts[slot]++;
	f->state = (unsigned char)x->state;
	f->node = node;
}

static void visit(struct ex *x, TSNode n, unsigned depth);

/* Named children in order (a cursor: ts_node_named_child(n, i) starts from the first child
 * each time, quadratic over a module of many functions). */
static void visit_kids(struct ex *x, TSNode n, unsigned depth)
{
	TSTreeCursor *c = tsnode_cursor(&x->cursors, depth, n);
	for (int more = ts_tree_cursor_goto_first_child(c); more && !x->s->status; more = ts_tree_cursor_goto_next_sibling(c)) {
		TSNode k = ts_tree_cursor_current_node(c);
		if (ts_node_is_named(k))
			visit(x, k, depth + 1);
	}
}

/* Statements of a block in order; what follows a return or raise never runs. */
static void body(struct ex *x, TSNode block, unsigned depth)
{
	int saved = x->state;
	if (ts_node_is_null(block))
		return;
	TSTreeCursor *c = tsnode_cursor(&x->cursors, depth, block);
	for (int more = ts_tree_cursor_goto_first_child(c); more && !x->s->status; more = ts_tree_cursor_goto_next_sibling(c)) {
		TSNode st = ts_tree_cursor_current_node(c);
		if (!ts_node_is_named(st))
			continue;
		visit(x, st, depth + 1);
		if ((tsnode_is(st, "return_statement") || tsnode_is(st, "raise_statement")) && x->state == A1_PY_OK)
			x->state = A1_PY_DEAD;
	}
	x->state = saved;
}

static void branch(struct ex *x, TSNode block, int never, unsigned depth)
{
	int saved = x->state;
	if (never && x->state == A1_PY_OK)
		x->state = A1_PY_DEAD;
	body(x, block, depth);
	x->state = saved;
}

/* The markers a decorator's expression (or a pytestmark element) puts on a test. */
static unsigned marker_of(struct ex *x, TSNode d)
{
	d = a1_py_bare(d);
	TSNode call = tsnode_is(d, "call") ? d : (TSNode){0};
	char *name = a1_py_dotted(x->s, ts_node_is_null(call) ? d : tsnode_field(call, "function"));
	if (!name)
		return 0;
	const char *leaf = leaf_of(name);
	TSNode args[2];
	size_t na = ts_node_is_null(call) ? 0 : a1_py_args(call, args, 2);
	TSNode cond = na ? args[0] : ts_node_is_null(call) ? (TSNode){0} : a1_py_keyword(x->s, call, "condition");
	unsigned r = 0;
	if (!strcmp(name, "pytest.mark.skip") || !strcmp(name, "mark.skip") || !strcmp(name, "unittest.skip") ||
	    !strcmp(name, "skip") || !strcmp(leaf, "expectedFailure")) {
		r = !strcmp(leaf, "expectedFailure") ? A1_PY_M_XFAIL : A1_PY_M_SKIP;
	} else if (!strcmp(leaf, "skipif") || !strcmp(leaf, "skipIf")) {
		if (ts_node_is_null(cond) || a1_py_always_truthy(x->s, cond, 0))
			r = A1_PY_M_SKIP;
		else
			r = a1_py_always_falsy(x->s, cond) ? 0 : A1_PY_M_SKIPQ;
	} else if (!strcmp(leaf, "skipUnless")) {
		TSNode c = na ? args[0] : (TSNode){0};
		if (!ts_node_is_null(c) && a1_py_always_falsy(x->s, c))
			r = A1_PY_M_SKIP;
		else
			r = !ts_node_is_null(c) && a1_py_always_truthy(x->s, c, 0) ? 0 : A1_PY_M_SKIPQ;
	} else if (!strcmp(leaf, "xfail") && (strstr(name, "mark") || !strcmp(name, "xfail"))) {
		TSNode run = ts_node_is_null(call) ? (TSNode){0} : a1_py_keyword(x->s, call, "run");
		if (!ts_node_is_null(cond) && a1_py_always_falsy(x->s, cond))
			r = 0;
		else if (!ts_node_is_null(cond) && !a1_py_always_truthy(x->s, cond, 0))
			r = A1_PY_M_SKIPQ;
		else
			r = !ts_node_is_null(run) && a1_py_always_falsy(x->s, run) ? A1_PY_M_SKIP : A1_PY_M_XFAIL;
	}
	free(name);
	return r;
}

/* "skip" / "xfail" for a call that ends the test when it runs. */
static unsigned skip_call(struct ex *x, TSNode call)
{
	char *name = a1_py_dotted(x->s, tsnode_field(call, "function"));
	unsigned r = 0;
	if (name && (!strcmp(name, "pytest.skip") || !strcmp(name, "skip") || ends_with(name, ".skipTest")))
		r = A1_PY_M_SKIP;
	else if (name && (!strcmp(name, "pytest.xfail") || !strcmp(name, "xfail")))
		r = A1_PY_M_XFAIL;
	free(name);
	return r;
}

static const char *const SWALLOWED[] = {"AssertionError", "Exception", "BaseException", NULL};

static int has_raise(TSNode n, void *ctx)
{
	(void)ctx;
	return tsnode_is(n, "raise_statement");
}

/* An except clause that catches a failing assertion and does not raise again. */
static int swallows(struct ex *x, TSNode h)
{
	TSNode type = {0};
	uint32_t m = a1_py_nkids(h);
	for (uint32_t i = 0; i < m; i++) {
		TSNode k = a1_py_kid(h, i);
		if (!tsnode_is(k, "block")) {
			type = k;
			break;
		}
	}
	if (tsnode_is(type, "as_pattern"))
		type = a1_py_kid(type, 0);
	type = a1_py_bare(type);
	if (!ts_node_is_null(type)) {
		int hit = 0;
		uint32_t k = tsnode_is(type, "tuple") ? a1_py_nkids(type) : 1;
		for (uint32_t i = 0; i < k && !hit; i++) {
			char *d = a1_py_dotted(x->s, tsnode_is(type, "tuple") ? a1_py_kid(type, i) : type);
			hit = d && str_in(leaf_of(d), SWALLOWED);
			free(d);
		}
		if (!hit)
			return 0;
	}
	return !tsnode_any(h, has_raise, NULL, NULL);
}

/* contextlib.suppress(AssertionError | Exception ...) or pytest.raises(AssertionError). */
static int suppresses(struct ex *x, TSNode e)
{
	e = a1_py_bare(e);
	if (tsnode_is(e, "as_pattern"))
		e = a1_py_bare(a1_py_kid(e, 0));
	if (!tsnode_is(e, "call"))
		return 0;
	char *name = a1_py_dotted(x->s, tsnode_field(e, "function"));
	int r = 0;
	if (name && (!strcmp(leaf_of(name), "suppress") || !strcmp(name, "pytest.raises"))) {
		TSNode args[16];
		size_t na = a1_py_args(e, args, 16);
		for (size_t i = 0; i < na && i < 16 && !r; i++) {
			char *d = a1_py_dotted(x->s, args[i]);
			r = d && str_in(leaf_of(d), SWALLOWED);
			free(d);
		}
	}
	free(name);
	return r;
}

/* The unit's names a monkeypatch.setattr / mock.patch / patch.object call replaces (one, or
 * NULL); new string. */
static char *patched(struct ex *x, TSNode call)
{
	if (!x->nunit)
		return NULL;
	char *name = a1_py_dotted(x->s, tsnode_field(call, "function"));
	const char *nm = name ? name : "";
	const char *leaf = leaf_of(nm);
	int patcher = ends_with(nm, "monkeypatch.setattr") || !strcmp(leaf, "patch") || ends_with(nm, "patch.object") ||
		      ends_with(nm, "patch.multiple") || ends_with(nm, "patch.dict");
	free(name);
	TSNode args[2];
	size_t na = a1_py_args(call, args, 2);
	if (!patcher || !na)
		return NULL;
	char *sv = a1_py_string_value(x->s, args[0]);
	char *parts = sv ? xstrdup(sv) : a1_py_dotted(x->s, args[0]);
	int hit = 0;
	for (char *p = parts; p && !hit;) {
		char *dot = strchr(p, '.');
		size_t k = dot ? (size_t)(dot - p) : strlen(p);
		for (size_t u = 0; u < x->nunit && !hit; u++)
			hit = strlen(x->unit[u]) == k && !memcmp(x->unit[u], p, k);
		p = dot ? dot + 1 : NULL;
	}
	free(parts);
	if (!hit) {
		free(sv);
		return NULL;
	}
	char *what = sv ? sv : a1_py_canon(x->s, args[0]);
	char *attr = na > 1 ? a1_py_string_value(x->s, args[1]) : NULL;
	if (attr) {
		char *w = xasprintf("%s.%s", what, attr);
		free(what);
		what = w;
	}
	free(attr);
	return what;
}

static void patterns(struct ex *x, TSNode call, int kind)
{
	TSNode args[64];
	size_t na = a1_py_args(call, args, 64);
	for (size_t i = 0; i < na && i < 64; i++) {
		TSNode a = a1_py_bare(args[i]);
		int seq = tsnode_is(a, "list") || tsnode_is(a, "tuple") || tsnode_is(a, "set");
		uint32_t m = seq ? a1_py_nkids(a) : 1;
		for (uint32_t j = 0; j < m; j++) {
			TSNode e = seq ? a1_py_kid(a, j) : a;
			char *v = a1_py_string_value(x->s, e);
			if (v)
				add_fact(x, kind, v, e);
			else
				add_fact(x, A1_PY_K_EXPECT, a1_py_canon(x->s, e), e);
		}
	}
}

static void expectations(struct ex *x, TSNode call)
{
	TSNode args[64];
	size_t na = a1_py_args(call, args, 64);
	if (na > 64)
		return;
	TSNode one = na == 1 ? a1_py_bare(args[0]) : (TSNode){0};
	if (na == 1 && (tsnode_is(one, "list") || tsnode_is(one, "tuple") || tsnode_is(one, "set"))) {
		uint32_t m = a1_py_nkids(one);
		for (uint32_t j = 0; j < m; j++)
			add_fact(x, A1_PY_K_EXPECT, a1_py_canon(x->s, a1_py_kid(one, j)), a1_py_kid(one, j));
		return;
	}
	for (size_t i = 0; i < na; i++)
		if (!tsnode_is(a1_py_bare(args[i]), "call"))
			return;
	for (size_t i = 0; i < na; i++)
		add_fact(x, A1_PY_K_EXPECT, a1_py_canon(x->s, args[i]), args[i]);
}

static int raises_name(const char *m)
{
	static const char *const r[] = {"assertRaisesRegex", "assertRaisesRegexp", "assertWarnsRegex", "assertWarnsRegexp",
					"assertRaises", "assertWarns", NULL};
	return str_in(m, r);
}

static void visit_call(struct ex *x, TSNode n, unsigned depth)
{
	if (x->fn >= 0) {
		char *what = patched(x, n);
		if (what) {
			add_mock(&x->s->funcs[x->fn], what);
			free(what);
		}
	}
	TSNode f = tsnode_field(n, "function");
	if (x->fn >= 0) { /* what it calls: a helper of the file may assert for it */
		TSNode nm = tsnode_is(f, "attribute") ? tsnode_field(f, "attribute") : f;
		struct a1_py_func *fu = &x->s->funcs[x->fn];
		if (tsnode_is(nm, "identifier"))
			add_name(&fu->calls, &fu->ncalls, &fu->capcalls, x->s->src + ts_node_start_byte(nm), tsnode_len(nm));
	}
	if (tsnode_is(f, "attribute")) {
		TSNode obj = tsnode_field(f, "object");
		char *name = tsnode_text(x->s->src, tsnode_field(f, "attribute"));
		if (tsnode_is(obj, "identifier") && tsnode_text_is(x->s->src, obj, "pytest") && (!strcmp(name, "raises") || !strcmp(name, "fail"))) {
			add_fact(x, name[0] == 'r' ? A1_PY_K_RAISES : A1_PY_K_FAIL, a1_py_canon(x->s, n), n);
			if (name[0] == 'f')
				expectations(x, n);
		} else if (!strcmp(name, "fnmatch_lines") || !strcmp(name, "fnmatch_lines_random")) {
			patterns(x, n, A1_PY_K_GLOB);
		} else if (!strcmp(name, "re_match_lines") || !strcmp(name, "re_match_lines_random")) {
			patterns(x, n, A1_PY_K_REGEX);
		} else if (!strncmp(name, "assert", 6) && name[6]) {
			add_fact(x, A1_PY_K_UNITTEST, a1_py_canon(x->s, n), n);
			if (!raises_name(name))
				expectations(x, n);
		}
		free(name);
	}
	visit_kids(x, n, depth);
}

/* A function or class: decorators, defaults and bases belong to the enclosing scope. */
static void scope(struct ex *x, TSNode def, TSNode *decs, size_t ndecs, unsigned depth)
{
	for (size_t i = 0; i < ndecs; i++)
		visit(x, decs[i], depth + 1);
	TSNode name = tsnode_field(def, "name");
	uint32_t m = ts_node_named_child_count(def);
	for (uint32_t i = 0; i < m; i++) {
		TSNode k = ts_node_named_child(def, i);
		if (!tsnode_is(k, "block") && !ts_node_eq(k, name))
			visit(x, k, depth + 1);
	}
	unsigned marks = x->inherited;
	size_t path_len = x->path.len;
	if (path_len)
		buf_putc(&x->path, '.');
	buf_append(&x->path, x->s->src + ts_node_start_byte(name), tsnode_len(name));
	long saved_fn = x->fn;
	long fn = func_index(x, buf_cstr(&x->path));
	for (size_t i = 0; i < ndecs; i++) {
		TSNode e = a1_py_kid(decs[i], 0);
		marks |= marker_of(x, e);
		if (tsnode_is(a1_py_bare(e), "call")) {
			char *what = patched(x, a1_py_bare(e));
			if (what) {
				add_mock(&x->s->funcs[fn], what);
				free(what);
			}
		}
	}
	x->s->funcs[fn].marks |= marks;
	if (tsnode_is(def, "function_definition")) {
		TSNode blk = tsnode_field(def, "body");
		x->s->funcs[fn].head = ts_node_start_byte(ndecs ? decs[0] : def);
		x->s->funcs[fn].body_a = ts_node_start_byte(blk);
		x->s->funcs[fn].body_e = ts_node_end_byte(blk);
	}
	unsigned saved_inh = x->inherited;
	int saved_state = x->state;
	x->inherited = marks;
	x->fn = fn;
	x->state = A1_PY_OK; /* a function's body runs when it is called */
	body(x, tsnode_field(def, "body"), depth);
	x->state = saved_state;
	x->inherited = saved_inh;
	x->fn = saved_fn;
	x->path.len = path_len;
}

static void visit(struct ex *x, TSNode n, unsigned depth)
{
	if (x->s->status || depth > WALK_MAX || !spend(x->s, 1))
		return;
	if (!ts_node_named_child_count(n))
		return; /* an identifier, a number, a bare `raise` ...: nothing below is read */
	const char *t = ts_node_type(n);
	if (!strcmp(t, "comment"))
		return;
	if (!strcmp(t, "function_definition") || !strcmp(t, "class_definition")) {
		scope(x, n, NULL, 0, depth);
		return;
	}
	if (!strcmp(t, "decorated_definition")) {
		TSNode decs[64];
		size_t nd = 0;
		uint32_t m = ts_node_named_child_count(n);
		for (uint32_t i = 0; i < m; i++) {
			TSNode k = ts_node_named_child(n, i);
			if (tsnode_is(k, "decorator") && nd < 64)
				decs[nd++] = k;
		}
		scope(x, tsnode_field(n, "definition"), decs, nd, depth);
		return;
	}
	if (!strcmp(t, "assert_statement")) {
		TSNode test = a1_py_kid(n, 0);
		add_fact(x, A1_PY_K_ASSERT, a1_py_canon(x->s, test), test);
		visit(x, test, depth + 1); /* the message is not an assertion */
		return;
	}
	if (!strcmp(t, "if_statement")) {
		TSNode cond = tsnode_field(n, "condition");
		visit(x, cond, depth + 1);
		branch(x, tsnode_field(n, "consequence"), a1_py_always_falsy(x->s, cond), depth);
		/* elif / else: each runs only when the conditions before it were false */
		int saved = x->state;
		if (a1_py_always_truthy(x->s, cond, 0) && x->state == A1_PY_OK)
			x->state = A1_PY_DEAD;
		uint32_t m = ts_node_named_child_count(n);
		for (uint32_t i = 0; i < m; i++) {
			TSNode k = ts_node_named_child(n, i);
			if (tsnode_is(k, "elif_clause")) {
				TSNode c = tsnode_field(k, "condition");
				visit(x, c, depth + 1);
				branch(x, tsnode_field(k, "consequence"), a1_py_always_falsy(x->s, c), depth);
				if (a1_py_always_truthy(x->s, c, 0) && x->state == A1_PY_OK)
					x->state = A1_PY_DEAD;
			} else if (tsnode_is(k, "else_clause")) {
				branch(x, tsnode_field(k, "body"), 0, depth);
			}
		}
		x->state = saved;
		return;
	}
	if (!strcmp(t, "while_statement")) {
		TSNode cond = tsnode_field(n, "condition");
		visit(x, cond, depth + 1);
		branch(x, tsnode_field(n, "body"), a1_py_always_falsy(x->s, cond), depth);
		TSNode alt = tsnode_field(n, "alternative");
		if (!ts_node_is_null(alt))
			branch(x, tsnode_field(alt, "body"), 0, depth);
		return;
	}
	if (!strcmp(t, "try_statement")) {
		int saved = x->state, swallow = 0;
		uint32_t m = ts_node_named_child_count(n);
		for (uint32_t i = 0; i < m; i++) {
			TSNode k = ts_node_named_child(n, i);
			if (tsnode_is(k, "except_clause") || tsnode_is(k, "except_group_clause"))
				swallow |= swallows(x, k);
		}
		if (x->state == A1_PY_OK && swallow)
			x->state = A1_PY_SWALLOWED;
		body(x, tsnode_field(n, "body"), depth);
		x->state = saved;
		for (uint32_t i = 0; i < m; i++) {
			TSNode k = ts_node_named_child(n, i);
			if (tsnode_is(k, "except_clause") || tsnode_is(k, "except_group_clause")) {
				uint32_t kk = ts_node_named_child_count(k);
				for (uint32_t j = 0; j < kk; j++) {
					TSNode e = ts_node_named_child(k, j);
					if (tsnode_is(e, "block"))
						body(x, e, depth + 1);
					else
						visit(x, e, depth + 1);
				}
			} else if (tsnode_is(k, "else_clause")) {
				body(x, tsnode_field(k, "body"), depth + 1);
			} else if (tsnode_is(k, "finally_clause")) {
				body(x, a1_py_kid(k, 0), depth + 1);
			}
		}
		return;
	}
	if (!strcmp(t, "with_statement")) {
		int saved = x->state, sup = 0;
		uint32_t m = ts_node_named_child_count(n);
		for (uint32_t i = 0; i < m; i++) {
			TSNode k = ts_node_named_child(n, i);
			if (!tsnode_is(k, "with_clause"))
				continue;
			uint32_t kk = ts_node_named_child_count(k);
			for (uint32_t j = 0; j < kk; j++) {
				TSNode item = ts_node_named_child(k, j);
				visit(x, item, depth + 1);
				if (tsnode_is(item, "with_item"))
					sup |= suppresses(x, tsnode_field(item, "value"));
			}
		}
		if (x->state == A1_PY_OK && sup)
			x->state = A1_PY_SWALLOWED;
		body(x, tsnode_field(n, "body"), depth);
		x->state = saved;
		return;
	}
	if (!strcmp(t, "expression_statement")) {
		TSNode e = a1_py_kid(n, 0);
		if (x->fn >= 0 && x->state == A1_PY_OK && a1_py_nkids(n) == 1 && tsnode_is(e, "call"))
			x->s->funcs[x->fn].marks |= skip_call(x, e);
		visit_kids(x, n, depth);
		return;
	}
	if (!strcmp(t, "raise_statement")) {
		TSNode e = a1_py_kid(n, 0);
		if (x->fn >= 0 && x->state == A1_PY_OK && !ts_node_is_null(e) && !ts_node_eq(e, tsnode_field(n, "cause"))) {
			TSNode target = tsnode_is(e, "call") ? tsnode_field(e, "function") : e;
			char *d = a1_py_dotted(x->s, target);
			if (d && (!strcmp(d, "unittest.SkipTest") || !strcmp(d, "SkipTest") || !strcmp(d, "pytest.skip.Exception")))
				x->s->funcs[x->fn].marks |= A1_PY_M_SKIP;
			free(d);
		}
		visit_kids(x, n, depth);
		return;
	}
	if (!strcmp(t, "call")) {
		visit_call(x, n, depth);
		return;
	}
	if (!strcmp(t, "for_statement")) { /* its body, like Python's generic visit: no state change */
		uint32_t m = ts_node_named_child_count(n);
		for (uint32_t i = 0; i < m; i++) {
			TSNode k = ts_node_named_child(n, i);
			if (tsnode_is(k, "block"))
				body(x, k, depth + 1);
			else if (tsnode_is(k, "else_clause"))
				body(x, tsnode_field(k, "body"), depth + 1);
			else
				visit(x, k, depth + 1);
		}
		return;
	}
	if (!strcmp(t, "block")) {
		body(x, n, depth);
		return;
	}
	visit_kids(x, n, depth);
}

/* pytestmark = pytest.mark.skip / [..., pytest.mark.skip] at module level. */
static void module_marks(struct ex *x, TSNode root)
{
	size_t m;
	TSNode *sts = tsnode_named_children(root, &m);
	for (size_t i = 0; i < m; i++) {
		TSNode st = sts[i];
		if (!tsnode_is(st, "expression_statement"))
			continue;
		TSNode a = a1_py_kid(st, 0);
		int hit = 0;
		while (tsnode_is(a, "assignment")) {
			TSNode l = tsnode_field(a, "left");
			hit |= tsnode_is(l, "identifier") && tsnode_text_is(x->s->src, l, "pytestmark");
			TSNode r = tsnode_field(a, "right");
			if (!tsnode_is(r, "assignment")) {
				a = r;
				break;
			}
			a = r;
		}
		if (!hit || ts_node_is_null(a))
			continue;
		TSNode v = a1_py_bare(a);
		if (tsnode_is(v, "list") || tsnode_is(v, "tuple") || tsnode_is(v, "expression_list")) {
			uint32_t k = a1_py_nkids(v);
			for (uint32_t j = 0; j < k; j++)
				x->inherited |= marker_of(x, a1_py_kid(v, j));
		} else {
			x->inherited |= marker_of(x, v);
		}
	}
	free(sts);
}

/* The modules a test file tests: its unit, and each module it imports that the unit's name
 * starts with (test_calc_edge.py importing calc -> calc). */
static void units(struct ex *x, TSNode root, const char *stem)
{
	x->unit = xcalloc(2, sizeof *x->unit);
	x->unit[x->nunit++] = xstrdup(stem);
	size_t cap = 2;
	size_t m;
	TSNode *sts = tsnode_named_children(root, &m);
	for (size_t i = 0; i < m; i++) {
		TSNode st = sts[i];
		int from = tsnode_is(st, "import_from_statement");
		if (!from && !tsnode_is(st, "import_statement"))
			continue;
		if (from) {
			TSNode mod = tsnode_field(st, "module_name");
			if (tsnode_is(mod, "relative_import")) {
				TSNode dn = {0};
				uint32_t k = ts_node_named_child_count(mod);
				for (uint32_t j = 0; j < k; j++)
					if (tsnode_is(ts_node_named_child(mod, j), "dotted_name"))
						dn = ts_node_named_child(mod, j);
				if (ts_node_is_null(dn))
					continue; /* from . import x: no module */
			}
		}
		uint32_t k = ts_node_named_child_count(st);
		for (uint32_t j = 0; j < k; j++) {
			TSNode nm = ts_node_named_child(st, j);
			if (tsnode_is(nm, "aliased_import"))
				nm = tsnode_field(nm, "name");
			if (tsnode_is(nm, "relative_import"))
				nm = ts_node_named_child(nm, ts_node_named_child_count(nm) - 1);
			if (!tsnode_is(nm, "dotted_name"))
				continue;
			TSNode last = ts_node_named_child(nm, ts_node_named_child_count(nm) - 1);
			char *leaf = tsnode_text(x->s->src, last);
			size_t ll = strlen(leaf);
			int hit = !strcmp(stem, leaf) || (!strncmp(stem, leaf, ll) && stem[ll] == '_');
			for (size_t u = 0; hit && u < x->nunit; u++)
				hit = strcmp(x->unit[u], leaf) != 0;
			if (hit) {
				x->unit = xgrow_zeroed(x->unit, &cap, x->nunit, sizeof *x->unit, 4);
				x->unit[x->nunit++] = leaf;
			} else {
				free(leaf);
			}
		}
	}
	free(sts);
}

/* `base` (may be NULL): a side read before whose tree this one is parsed against. */
static int extract(const char *text, size_t len, const char *unit, struct a1_py_side *s, const struct a1_py_side *base)
{
	if (!text) {
		s->src = "";
		return 0;
	}
	if (len > A1_PY_MAX_BYTES) {
		set_why(s, A1_PY_UNPARSEABLE, "unparseable-source", 0, 0, "%zu bytes, over the %u-byte limit", len,
			A1_PY_MAX_BYTES);
		return s->status;
	}
	if (decode(s, text, len))
		return s->status;
	if (memchr(s->src, 0, s->len)) {
		set_why(s, A1_PY_UNPARSEABLE, "unparseable-source", 0, 0, "source code string cannot contain null bytes");
		return s->status;
	}
	if (check_nesting(s))
		return s->status;
	TSParser *p = ts_parser_new();
	if (!ts_parser_set_language(p, tree_sitter_python())) {
		ts_parser_delete(p);
		set_why(s, A1_PY_UNPARSEABLE, "unparseable-source", 0, 0, "the grammar does not load into this tree-sitter");
		return s->status;
	}
	ts_parser_set_timeout_micros(p, PARSE_MICROS);
	TSTree *old = NULL;
	if (base && base->tree && !base->status) {
		TSInputEdit e;
		tsnode_edit_between(base->src, base->len, s->src, s->len, &e);
		old = ts_tree_copy(base->tree);
		ts_tree_edit(old, &e);
	}
	s->tree = ts_parser_parse_string(p, old, s->src, (uint32_t)s->len);
	if (old)
		ts_tree_delete(old);
	ts_parser_delete(p);
	if (!s->tree) {
		set_why(s, A1_PY_UNPARSEABLE, "unparseable-source", 0, 0, "not parsed within %llu s", PARSE_MICROS / 1000000);
		return s->status;
	}
	TSNode root = ts_tree_root_node(s->tree), at;
	s->budget = 64 * s->len + (1u << 20);
	if (ts_node_has_error(root)) {
		syntax_error(s, root);
		return s->status;
	}
	int py2 = 0;
	if (too_deep(root, &at, &py2)) {
		refuse_at(s, at, "too deeply nested to walk");
		return s->status;
	}
	struct ex x = {.s = s, .fn = -1};
	if (py2) {
		set_why(s, A1_PY_UNPARSEABLE, "unparseable-source", 0, 0, "Python 2 syntax (a print or exec statement)");
		return s->status;
	}
	if (unit)
		units(&x, root, unit);
	module_marks(&x, root);
	body(&x, root, 0);
	for (size_t i = 0; i < x.nunit; i++)
		free(x.unit[i]);
	free(x.unit);
	free(x.counts);
	buf_free(&x.path);
	tsnode_cursors_free(&x.cursors);
	return s->status;
}

int a1_py_extract(const char *text, size_t len, const char *unit, struct a1_py_side *s)
{
	return extract(text, len, unit, s, NULL);
}

int a1_py_extract_pair(const char *pre, size_t pre_len, const char *post, size_t post_len, const char *unit,
		       struct a1_py_side *a, struct a1_py_side *b)
{
	extract(pre, pre_len, unit, a, NULL);
	if (post)
		extract(post, post_len, unit, b, a);
	return a->status ? a->status : b->status;
}

void a1_py_side_free(struct a1_py_side *s)
{
	for (size_t i = 0; i < s->nfacts; i++)
		free(s->facts[i].form);
	free(s->facts);
	for (size_t i = 0; i < s->nfuncs; i++) {
		free(s->funcs[i].name);
		for (size_t j = 0; j < s->funcs[i].nmocks; j++)
			free(s->funcs[i].mocks[j]);
		free(s->funcs[i].mocks);
		for (size_t j = 0; j < s->funcs[i].ncalls; j++)
			free(s->funcs[i].calls[j]);
		free(s->funcs[i].calls);
	}
	free(s->funcs);
	strmap_free(&s->func_index);
	if (s->tree)
		ts_tree_delete(s->tree);
	free(s->own);
	free(s->why);
	buf_free(&s->cb);
	tsnode_cursors_free(&s->render_cursors);
	memset(s, 0, sizeof *s);
}

/* ==== a conftest.py's collection settings ================================================ */

static const char *const COLLECTION_NAMES[] = {"collect_ignore", "collect_ignore_glob", "pytest_plugins", "pytestmark", NULL};

struct namehit {
	const struct a1_py_side *s;
	const char *const *names;
};

/* An identifier that is a Name in Python's ast (not an attribute's or a keyword's name). */
static int name_in(TSNode n, void *ctx)
{
	struct namehit *h = ctx;
	if (!tsnode_is(n, "identifier"))
		return 0;
	TSNode p = ts_node_parent(n);
	if (tsnode_is(p, "attribute") && ts_node_eq(tsnode_field(p, "attribute"), n))
		return 0;
	if (tsnode_is(p, "keyword_argument") && ts_node_eq(tsnode_field(p, "name"), n))
		return 0;
	for (const char *const *k = h->names; *k; k++)
		if (tsnode_text_is(h->s->src, n, *k))
			return 1;
	return 0;
}

static int sorted_add(char ***v, size_t *n, size_t *cap, char *s)
{
	for (size_t i = 0; i < *n; i++)
		if (!strcmp((*v)[i], s)) {
			free(s);
			return 0;
		}
	*v = xgrow_zeroed(*v, cap, *n, sizeof **v, 8);
	size_t i = *n;
	while (i > 0 && strcmp((*v)[i - 1], s) > 0) {
		(*v)[i] = (*v)[i - 1];
		i--;
	}
	(*v)[i] = s;
	(*n)++;
	return 1;
}

struct hookscan {
	const struct a1_py_side *s;
	int items_sub, slice, store, attr_drop, items, del_items, deselected, ignore_collect;
};

static int hook_scan(TSNode n, void *ctx)
{
	struct hookscan *h = ctx;
	const char *t = ts_node_type(n);
	if (!strcmp(t, "identifier")) {
		if (tsnode_text_is(h->s->src, n, "items"))
			h->items = 1;
		if (tsnode_text_is(h->s->src, n, "pytest_deselected"))
			h->deselected = 1;
		if (tsnode_text_is(h->s->src, n, "pytest_ignore_collect"))
			h->ignore_collect = 1;
		TSNode p = ts_node_parent(n);
		if (tsnode_is(p, "attribute") && ts_node_eq(tsnode_field(p, "attribute"), n) &&
		    (tsnode_text_is(h->s->src, n, "remove") || tsnode_text_is(h->s->src, n, "clear") || tsnode_text_is(h->s->src, n, "pop")))
			h->attr_drop = 1;
	} else if (!strcmp(t, "subscript")) {
		TSNode v = tsnode_field(n, "value");
		if (tsnode_is(v, "identifier") && tsnode_text_is(h->s->src, v, "items"))
			h->items_sub = 1;
	} else if (!strcmp(t, "slice")) {
		h->slice = 1;
	} else if (!strcmp(t, "assignment") || !strcmp(t, "augmented_assignment") || !strcmp(t, "for_statement") ||
		   !strcmp(t, "as_pattern_target")) {
		h->store = 1;
	} else if (!strcmp(t, "delete_statement")) {
		h->del_items |= 2;
	}
	return 0;
}

static int del_items(TSNode n, void *ctx)
{
	struct hookscan *h = ctx;
	return tsnode_is(n, "delete_statement") && tsnode_any(n, name_in, &(struct namehit){h->s, (const char *const[]){"items", NULL}}, NULL);
}

static void ignored_in(struct a1_py_side *s, TSNode value, struct a1_py_collection *c, size_t *cap);

struct ignscan {
	struct a1_py_side *s;
	struct a1_py_collection *c;
	size_t *cap;
};

static int ignore_name(const struct a1_py_side *s, TSNode n)
{
	return tsnode_is(n, "identifier") && (tsnode_text_is(s->src, n, "collect_ignore") || tsnode_text_is(s->src, n, "collect_ignore_glob"));
}

static int ignore_scan(TSNode n, void *ctx)
{
	struct ignscan *g = ctx;
	TSNode value = {0};
	if (tsnode_is(n, "assignment") || tsnode_is(n, "augmented_assignment")) {
		if (ignore_name(g->s, tsnode_field(n, "left")))
			value = tsnode_field(n, "right");
	} else if (tsnode_is(n, "call")) {
		TSNode f = tsnode_field(n, "function");
		if (tsnode_is(f, "attribute") && ignore_name(g->s, tsnode_field(f, "object")) &&
		    (tsnode_text_is(g->s->src, tsnode_field(f, "attribute"), "append") || tsnode_text_is(g->s->src, tsnode_field(f, "attribute"), "extend"))) {
			TSNode args[1];
			if (a1_py_args(n, args, 1))
				value = args[0];
		}
	}
	if (!ts_node_is_null(value))
		ignored_in(g->s, value, g->c, g->cap);
	return 0;
}

static int strings_in(TSNode n, void *ctx)
{
	struct ignscan *g = ctx;
	if (tsnode_is(n, "string") || tsnode_is(n, "concatenated_string")) {
		if (tsnode_is(ts_node_parent(n), "concatenated_string"))
			return 0;
		char *v = a1_py_string_value(g->s, n);
		if (v)
			sorted_add(&g->c->ignored, &g->c->nignored, g->cap, v);
	}
	return 0;
}

static void ignored_in(struct a1_py_side *s, TSNode value, struct a1_py_collection *c, size_t *cap)
{
	struct ignscan g = {s, c, cap};
	tsnode_any(value, strings_in, &g, NULL);
}

void a1_py_collection(struct a1_py_side *s, struct a1_py_collection *c)
{
	memset(c, 0, sizeof *c);
	if (s->status || !s->tree)
		return;
	TSNode root = ts_tree_root_node(s->tree);
	size_t cap = 0, capi = 0;
	size_t m;
	TSNode *sts = tsnode_named_children(root, &m);
	for (size_t i = 0; i < m; i++) {
		TSNode st = sts[i], def = st;
		if (tsnode_is(st, "decorated_definition"))
			def = tsnode_field(st, "definition");
		int is_def = tsnode_is(def, "function_definition") || tsnode_is(def, "class_definition");
		int hook = tsnode_is(def, "function_definition") && !strncmp(s->src + ts_node_start_byte(tsnode_field(def, "name")), "pytest_", 7) &&
			   tsnode_len(tsnode_field(def, "name")) >= 7;
		struct namehit h = {s, COLLECTION_NAMES};
		if (!hook && (is_def || is_comment(st) || !tsnode_any(st, name_in, &h, NULL)))
			continue;
		c->stmts = xgrow_zeroed(c->stmts, &cap, c->n, sizeof *c->stmts, 8);
		c->drops = xrealloc(c->drops, cap);
		c->stmts[c->n] = a1_py_canon(s, st);
		int drops = 0;
		if (hook) {
			TSNode name = tsnode_field(def, "name");
			int modify = tsnode_text_is(s->src, name, "pytest_collection_modifyitems"), ignore = tsnode_text_is(s->src, name, "pytest_ignore_collect");
			if (modify || ignore) {
				struct hookscan hs = {.s = s};
				tsnode_any(st, hook_scan, &hs, NULL);
				int del = tsnode_any(st, del_items, &hs, NULL);
				drops = hs.ignore_collect || (hs.items_sub && hs.slice && hs.store) || (hs.attr_drop && hs.items) ||
					del || hs.deselected;
			}
		}
		c->drops[c->n++] = (unsigned char)drops;
	}
	free(sts);
	struct ignscan g = {s, c, &capi};
	tsnode_any(root, ignore_scan, &g, NULL);
}

void a1_py_collection_free(struct a1_py_collection *c)
{
	for (size_t i = 0; i < c->n; i++)
		free(c->stmts[i]);
	free(c->stmts);
	free(c->drops);
	for (size_t i = 0; i < c->nignored; i++)
		free(c->ignored[i]);
	free(c->ignored);
	memset(c, 0, sizeof *c);
}
