/* a1_lang.c - the facts, reading and comparison A1's Go and Rust judges share (a1_lang.h).
 * Comparison after a1_js.c's: functions paired by name (the nth of a name with the nth; a test
 * gone whose assertions all reappear in a new test was renamed; in a function that no longer
 * runs as a test, it was taken out of collection), then within a pair identical forms first,
 * then the same subject and matcher, then the rest in order; what is left of the pre side is
 * removed unless a helper the post test calls still asserts it; the rows of the tables a test
 * runs its checks over compared as multisets (compare_rows). Reading is lazy (a1_lang_judge):
 * a survey of both sides' units, plan_decide's choice of those an edit can reach, only those
 * walked - a pair of lazy functions is identical and compared as such (no finding).
 *
 * Threads: any. Must not: recurse with the input's nesting (walks are loops over a
 * TSTreeCursor; condition values recurse at most COND_DEPTH), print, keep state between
 * calls, judge a side it could not read. */
#include "assertions/a1_lang.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "assertions/a1_cache.h"
#include "assertions/a1_finding.h"
#include "assertions/a1_rows.h"
#include "assertions/tsnode.h"
#include "common/buf.h"
#include "common/err.h"
#include "common/jsonx.h"
#include "common/strmap.h"
#include "common/xalloc.h"

#define FORM_MAX 400	  /* characters of a form echoed back in a finding */
#define CANON_CAP (64u << 10)
#define HELPER_DEPTH 8	  /* calls followed from a test into the file's functions */
#define COND_DEPTH 32	  /* levels of a condition evaluated */
#define RUN_MAX (64 * A1_LANG_MAX_DEPTH) /* tokens pending in one expression (see guard) */
#ifndef PARSE_MICROS
#define PARSE_MICROS 30000000ull
#endif

#define UNREADABLE "ASSERTION_FILE_UNREADABLE"
#define UNDECIDABLE "ASSERTION_UNDECIDABLE"

static void *grow(void *p, size_t *cap, size_t n, size_t size)
{
	if (n < *cap)
		return p;
	*cap = *cap ? *cap * 2 : 8;
	return xrealloc(p, *cap * size);
}

/*==== building a side =======================================================================*/

struct a1_lang_func *a1_lang_func_add(struct a1_lang_side *s, const char *name, int is_test, unsigned line)
{
	s->funcs = grow(s->funcs, &s->capfuncs, s->nfuncs, sizeof *s->funcs);
	struct a1_lang_func *f = &s->funcs[s->nfuncs++];
	memset(f, 0, sizeof *f);
	f->name = xstrdup(name);
	f->is_test = is_test;
	f->line = line;
	return f;
}

struct a1_lang_fact *a1_lang_fact_add(struct a1_lang_func *f, char *form, unsigned line)
{
	f->facts = grow(f->facts, &f->capfacts, f->nfacts, sizeof *f->facts);
	struct a1_lang_fact *x = &f->facts[f->nfacts++];
	memset(x, 0, sizeof *x);
	x->form = form;
	x->line = line;
	return x;
}

void a1_lang_call_add(struct a1_lang_func *f, const char *name, size_t n)
{
	for (size_t i = 0; i < f->calls.n; i++)
		if (strlen(f->calls.v[i]) == n && !memcmp(f->calls.v[i], name, n))
			return;
	f->calls.v = grow(f->calls.v, &f->calls.cap, f->calls.n, sizeof *f->calls.v);
	f->calls.v[f->calls.n++] = xstrndup(name, n);
}

struct a1_lang_table *a1_lang_table_add(struct a1_lang_func *f, const char *name, unsigned line)
{
	f->tables = grow(f->tables, &f->captables, f->ntables, sizeof *f->tables);
	struct a1_lang_table *t = &f->tables[f->ntables++];
	memset(t, 0, sizeof *t);
	t->name = xstrdup(name);
	t->line = line;
	return t;
}

void a1_lang_names_add(struct a1_lang_names *x, const char *s, size_t n)
{
	x->v = grow(x->v, &x->cap, x->n, sizeof *x->v);
	x->v[x->n++] = xstrndup(s, n);
}

static void names_drop(struct a1_lang_names *x)
{
	for (size_t j = 0; j < x->n; j++)
		free(x->v[j]);
	free(x->v);
}

void a1_lang_opaque_add(struct a1_lang_side *s, const char *name, const char *text)
{
	s->opaque = grow(s->opaque, &s->capopaque, s->nopaque, sizeof *s->opaque);
	s->opaque[s->nopaque].name = xstrdup(name);
	s->opaque[s->nopaque++].text = xstrdup(text);
}

void a1_lang_side_status(struct a1_lang_side *s, int status, const char *fmt, ...)
{
	if (s->status)
		return;
	va_list ap;
	va_start(ap, fmt);
	char *why = xvasprintf(fmt, ap);
	va_end(ap);
	s->status = status;
	s->why = why;
}

void a1_lang_side_free(struct a1_lang_side *s)
{
	for (size_t i = 0; i < s->nfuncs; i++) {
		struct a1_lang_func *f = &s->funcs[i];
		for (size_t j = 0; j < f->nfacts; j++) {
			free(f->facts[j].form);
			free(f->facts[j].subject);
			free(f->facts[j].matcher);
			free(f->facts[j].expected);
		}
		free(f->facts);
		for (size_t j = 0; j < f->calls.n; j++)
			free(f->calls.v[j]);
		free(f->calls.v);
		for (size_t j = 0; j < f->ntables; j++) {
			free(f->tables[j].name);
			free(f->tables[j].source);
			names_drop(&f->tables[j].rows);
			names_drop(&f->tables[j].keys);
			names_drop(&f->tables[j].calls);
		}
		free(f->tables);
		free(f->name);
		free(f->why);
		free(f->panic_expect);
	}
	free(s->funcs);
	for (size_t i = 0; i < s->nopaque; i++) {
		free(s->opaque[i].name);
		free(s->opaque[i].text);
	}
	free(s->opaque);
	free(s->excluded);
	free(s->constraint);
	free(s->why);
	memset(s, 0, sizeof *s);
}

/*==== reading a side ========================================================================*/

unsigned a1_lang_line(TSNode n)
{
	return ts_node_start_point(n).row + 1;
}

static int word_byte(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c >= 0x80;
}

/* Skips a string or character literal opening at s[i]; the index of its last byte. Rust: a
 * `'` not closing within a character is a lifetime (a word); r"..." / r#"..."# raw strings and
 * Go's `raw` strings run across lines. */
static size_t skip_literal(enum a1_lang_syntax syn, const char *s, size_t n, size_t i)
{
	char q = s[i];
	if (q == '`' && syn == A1_LANG_GO) {
		const char *e = memchr(s + i + 1, '`', n - i - 1);
		return e ? (size_t)(e - s) : n - 1;
	}
	if (q == '\'' && syn == A1_LANG_RUST) {
		if (i + 2 < n && s[i + 1] != '\\' && s[i + 2] != '\'') {
			size_t j = i + 1; /* a lifetime or a multi-byte character */
			while (j < n && ((unsigned char)s[j] & 0xc0) == 0x80)
				j++;
			return j < n && s[j] == '\'' ? j : i;
		}
	}
	size_t j = i + 1;
	for (; j < n && s[j] != q; j++) {
		if (s[j] == '\\')
			j++;
		else if (s[j] == '\n' && q == '\'')
			break;
	}
	return j < n ? j : n - 1;
}

/* Rust raw strings: r#..#"..."#..# starting at s[i] ('r'); the index of the last byte, or 0. */
static size_t skip_raw(const char *s, size_t n, size_t i)
{
	size_t j = i + 1, hashes = 0;
	while (j < n && s[j] == '#')
		j++, hashes++;
	if (j >= n || s[j] != '"')
		return 0;
	for (j++; j < n; j++) {
		if (s[j] != '"')
			continue;
		size_t k = 0;
		while (k < hashes && j + 1 + k < n && s[j + 1 + k] == '#')
			k++;
		if (k == hashes)
			return j + k;
	}
	return n - 1;
}

/* Refuses what could nest deeper than the runtime survives, before tree-sitter parses
 * (Debian's 0.20.7 frees memory twice recovering from an error with ~65,535 symbols on its
 * stack): brackets open at once over A1_LANG_MAX_DEPTH; tokens pending over RUN_MAX - those
 * since the last `;` or `,`, a closed `{...}` block, or (Go) a line end that ends a statement,
 * summed over the open brackets, a closed group counting as one (`!!!!...x`, `&&&&...x`,
 * `- - - x` nest without a bracket). Strings, characters and comments are skipped. */
static int guard(enum a1_lang_syntax syn, const char *s, size_t n, struct a1_lang_side *side)
{
	size_t stack[A1_LANG_MAX_DEPTH + 1];
	size_t depth = 0, run = 0;
	char prev = 0;
	for (size_t i = 0; i < n; i++) {
		char c = s[i];
		unsigned line, col;
		if (run > RUN_MAX) {
			tsnode_line_col(s, i, &line, &col);
			a1_lang_side_status(side, A1_LANG_UNDECIDABLE, "line %u, column %u: more than %d tokens pending in one expression",
					    line, col, RUN_MAX);
			return -1;
		}
		if (c == '\n' && syn == A1_LANG_GO && (word_byte((unsigned char)prev) || strchr(")]}\"'`", prev ? prev : '@'))) {
			run = depth ? stack[depth - 1] + 1 : 0;
			prev = ';';
			continue;
		}
		if (c == ' ' || c == '\t' || c == '\n' || c == '\r')
			continue;
		if (c == '/' && i + 1 < n && s[i + 1] == '/') {
			while (i + 1 < n && s[i + 1] != '\n')
				i++;
			continue;
		}
		if (c == '/' && i + 1 < n && s[i + 1] == '*') {
			size_t j = i + 2, open = 1; /* Rust block comments nest */
			for (; j + 1 < n && open; j++) {
				if (s[j] == '*' && s[j + 1] == '/')
					open--, j++;
				else if (syn == A1_LANG_RUST && s[j] == '/' && s[j + 1] == '*')
					open++, j++;
			}
			i = j > i ? j - 1 : i;
			continue;
		}
		run++;
		if (syn == A1_LANG_RUST && (c == 'r' || c == 'b') && !word_byte((unsigned char)prev)) {
			size_t k = c == 'b' && i + 1 < n && s[i + 1] == 'r' ? i + 1 : i;
			size_t e = s[k] == 'r' ? skip_raw(s, n, k) : 0;
			if (e) {
				i = e;
				prev = '"';
				continue;
			}
		}
		if (word_byte((unsigned char)c)) {
			while (i + 1 < n && word_byte((unsigned char)s[i + 1]))
				i++;
			prev = 'a';
			continue;
		}
		if (c == '"' || c == '\'' || c == '`') {
			size_t e = skip_literal(syn, s, n, i);
			prev = e == i ? 'a' : c;
			i = e;
			continue;
		}
		if (c == '(' || c == '[' || c == '{') {
			if (depth == A1_LANG_MAX_DEPTH) {
				tsnode_line_col(s, i, &line, &col);
				a1_lang_side_status(side, A1_LANG_UNDECIDABLE, "line %u, column %u: brackets nested deeper than %d", line,
						    col, A1_LANG_MAX_DEPTH);
				return -1;
			}
			stack[depth++] = run - 1;
		} else if ((c == ')' || c == ']' || c == '}') && depth) {
			depth--;
			run = c == '}' ? stack[depth] : stack[depth] + 1; /* a block ends what it belongs to */
		} else if (c == ';' || c == ',') {
			run = depth ? stack[depth - 1] + 1 : 0;
		}
		prev = c;
	}
	return 0;
}

TSTree *a1_lang_parse(enum a1_lang_syntax syn, const TSLanguage *lang, const char *text, size_t len,
		      struct a1_lang_side *s, TSTree *old)
{
	if (!text)
		return NULL;
	if (len > A1_LANG_MAX_BYTES) {
		a1_lang_side_status(s, A1_LANG_UNREADABLE, "%zu bytes, over the %u-byte limit", len, A1_LANG_MAX_BYTES);
		return NULL;
	}
	const char *nul = memchr(text, '\0', len);
	size_t lim = nul ? (size_t)(nul - text) : len;
	if (!utf8_valid(text, lim) || nul) {
		size_t bad = 0;
		while (bad < lim) { /* the first byte that starts no character */
			size_t k = 1;
			while (k <= 4 && bad + k <= lim && !utf8_valid(text + bad, k))
				k++;
			if (k > 4 || bad + k > lim)
				break;
			bad += k;
		}
		unsigned line, col;
		tsnode_line_col(text, bad, &line, &col);
		a1_lang_side_status(s, A1_LANG_UNREADABLE, "line %u, column %u: %s", line, col, nul && bad == lim ? "a NUL byte" : "not UTF-8");
		return NULL;
	}
	if (guard(syn, text, len, s))
		return NULL;
	TSParser *p = ts_parser_new();
	if (!ts_parser_set_language(p, lang)) {
		ts_parser_delete(p);
		a1_lang_side_status(s, A1_LANG_UNREADABLE, "the grammar (ABI %u) does not load into this tree-sitter",
				    ts_language_version(lang));
		return NULL;
	}
	ts_parser_set_timeout_micros(p, PARSE_MICROS);
	TSTree *tree = ts_parser_parse_string(p, old, text, (uint32_t)len);
	ts_parser_delete(p);
	if (!tree) {
		a1_lang_side_status(s, A1_LANG_UNREADABLE, "not parsed within %llu s", PARSE_MICROS / 1000000);
		return NULL;
	}
	TSNode root = ts_tree_root_node(tree);
	if (ts_node_has_error(root)) {
		int kind;
		TSNode e = tsnode_first_error(root, &kind);
		a1_lang_side_status(s, A1_LANG_UNREADABLE, "line %u, column %u: syntax error%s%s", a1_lang_line(e),
				    ts_node_start_point(e).column + 1, kind == 'M' ? ": missing " : "",
				    kind == 'M' ? ts_node_type(e) : "");
		ts_tree_delete(tree);
		return NULL;
	}
	return tree;
}

static int is_comment(TSNode n)
{
	const char *t = ts_node_type(n);
	switch (t[0]) { /* runs on every node a canonical text reads: no strcmp unless it may match */
	case 'c':
		return !strcmp(t, "comment");
	case 'l':
		return !strcmp(t, "line_comment");
	case 'b':
		return !strcmp(t, "block_comment");
	default:
		return 0;
	}
}

char *a1_lang_canon(const char *src, TSNode n)
{
	struct buf b = {0};
	TSTreeCursor c = ts_tree_cursor_new(n);
	unsigned char last = 0; /* the last byte written */
	size_t depth = 0;	/* below n: back at 0, the walk is done */
	for (;;) {
		TSNode k = ts_tree_cursor_current_node(&c);
		int comment = is_comment(k), leaf = comment || ts_node_child_count(k) == 0;
		if (leaf && !comment) {
			uint32_t a = ts_node_start_byte(k), e = ts_node_end_byte(k);
			if (a < e && b.len < CANON_CAP) {
				if (last && word_byte(last) && word_byte((unsigned char)src[a]))
					buf_putc(&b, ' ');
				buf_append(&b, src + a, e - a > CANON_CAP ? CANON_CAP : e - a);
				last = (unsigned char)src[e - 1];
			}
		}
		if (!leaf && ts_tree_cursor_goto_first_child(&c)) {
			depth++;
			continue;
		}
		for (;;) {
			if (!depth)
				goto done;
			if (ts_tree_cursor_goto_next_sibling(&c))
				break;
			if (!ts_tree_cursor_goto_parent(&c))
				goto done;
			depth--;
		}
	}
done:
	ts_tree_cursor_delete(&c);
	buf_cstr(&b);
	return buf_take(&b);
}

/*==== literals and conditions ===============================================================*/

static int type_in(TSNode n, const char *const *set)
{
	const char *t = ts_node_type(n);
	for (; *set; set++)
		if (!strcmp(t, *set))
			return 1;
	return 0;
}

static const char *const LITERALS[] = {"int_literal",	   "float_literal",	 "imaginary_literal", "rune_literal",
				       "interpreted_string_literal", "raw_string_literal", "true", "false", "nil",
				       "integer_literal",  "string_literal",	 "char_literal",      "boolean_literal",
				       NULL};

static int not_literal(TSNode k, void *ctx)
{
	(void)ctx;
	if (!ts_node_is_named(k) || type_in(k, LITERALS) || is_comment(k))
		return 0;
	static const char *const shells[] = {"unary_expression", "parenthesized_expression", "negative_literal",
					     "string_content", "interpreted_string_literal_content",
					     "raw_string_literal_content", "escape_sequence", NULL};
	return !type_in(k, shells);
}

int a1_lang_literal(TSNode n)
{
	if (ts_node_is_null(n))
		return 0;
	return !tsnode_any(n, not_literal, NULL, NULL);
}

static int same_text(const char *src, TSNode a, TSNode b)
{
	char *x = a1_lang_canon(src, a), *y = a1_lang_canon(src, b);
	int same = !strcmp(x, y);
	free(x);
	free(y);
	return same;
}

static int text_is(const char *src, TSNode n, const char *s)
{
	size_t k = ts_node_end_byte(n) - ts_node_start_byte(n);
	return k == strlen(s) && !memcmp(src + ts_node_start_byte(n), s, k);
}

static int cond_at(const char *src, TSNode n, int depth)
{
	if (ts_node_is_null(n) || depth > COND_DEPTH)
		return -1;
	const char *t = ts_node_type(n);
	if (!strcmp(t, "true") || (!strcmp(t, "boolean_literal") && text_is(src, n, "true")))
		return 1;
	if (!strcmp(t, "false") || (!strcmp(t, "boolean_literal") && text_is(src, n, "false")))
		return 0;
	if (!strcmp(t, "parenthesized_expression"))
		return ts_node_named_child_count(n) == 1 ? cond_at(src, ts_node_named_child(n, 0), depth + 1) : -1;
	if (!strcmp(t, "unary_expression")) {
		TSNode op = ts_node_child(n, 0);
		if (ts_node_child_count(n) != 2 || !text_is(src, op, "!"))
			return -1;
		int v = cond_at(src, ts_node_child(n, 1), depth + 1);
		return v < 0 ? -1 : !v;
	}
	if (strcmp(t, "binary_expression"))
		return -1;
	TSNode l = tsnode_field(n, "left"), r = tsnode_field(n, "right"),
	       o = tsnode_field(n, "operator");
	if (ts_node_is_null(l) || ts_node_is_null(r) || ts_node_is_null(o))
		return -1;
	if (text_is(src, o, "&&") || text_is(src, o, "||")) {
		int a = cond_at(src, l, depth + 1), b = cond_at(src, r, depth + 1), and = text_is(src, o, "&&");
		if (and)
			return a == 0 || b == 0 ? 0 : a == 1 && b == 1 ? 1 : -1;
		return a == 1 || b == 1 ? 1 : a == 0 && b == 0 ? 0 : -1;
	}
	static const char *const cmp[] = {"==", "!=", "<", ">", "<=", ">=", NULL};
	int which = -1;
	for (int i = 0; cmp[i]; i++)
		if (text_is(src, o, cmp[i]))
			which = i;
	if (which < 0)
		return -1;
	int same = same_text(src, l, r);
	if (same) /* x against itself: ==, <=, >= hold, the others never */
		return which == 0 || which >= 4;
	if (a1_lang_literal(l) && a1_lang_literal(r) && which <= 1) {
		char *x = a1_lang_canon(src, l), *y = a1_lang_canon(src, r);
		int eq = !strcmp(x, y); /* two distinct literals of one spelling family: not equal */
		free(x);
		free(y);
		return which == 0 ? eq : !eq;
	}
	return -1;
}

int a1_lang_cond(const char *src, TSNode n)
{
	return cond_at(src, n, 0);
}

void a1_lang_guarded(const char *src, TSNode cond, struct a1_lang_fact *f)
{
	if (ts_node_is_null(cond) || strcmp(ts_node_type(cond), "binary_expression"))
		return;
	TSNode l = tsnode_field(cond, "left"), r = tsnode_field(cond, "right"),
	       o = tsnode_field(cond, "operator");
	if (a1_lang_literal(l) && !a1_lang_literal(r)) {
		TSNode t = l;
		l = r;
		r = t;
	}
	free(f->subject);
	free(f->matcher);
	free(f->expected);
	f->subject = a1_lang_canon(src, l);
	f->matcher = a1_lang_canon(src, o);
	f->expected = a1_lang_literal(r) ? a1_lang_canon(src, r) : NULL;
	/* the check is the guard's opposite: `!=` fails on any other value (exact); an ordering
	 * lets a range of values pass (loose); `==` and the rest (`&&`, `||`) are neither */
	f->strength = !strcmp(f->matcher, "!=") ? A1_LANG_EXACT
		      : !strcmp(f->matcher, "<") || !strcmp(f->matcher, ">") || !strcmp(f->matcher, "<=") || !strcmp(f->matcher, ">=")
			  ? A1_LANG_LOOSE
			  : A1_LANG_OTHER;
}

/*==== judging ===============================================================================*/

static char *clip(const char *s)
{
	size_t n = strlen(s);
	if (n <= FORM_MAX)
		return xstrdup(s);
	size_t k = FORM_MAX;
	while (k > 0 && ((unsigned char)s[k] & 0xc0) == 0x80)
		k--;
	return xasprintf("%.*s...", (int)k, s);
}

void a1_lang_finding(cJSON *out, const char *function, const char *name, const char *status, const char *cause,
		     const char *pre, const char *post)
{
	cJSON *o = cJSON_CreateObject();
	if (!o)
		FATAL("out of memory");
	const char *keys[] = {"function", "finding", "status", "cause", "pre", "post"};
	const char *vals[] = {function, name, status, cause, pre, post};
	for (size_t i = 0; i < 6; i++) {
		char *c = vals[i] ? clip(vals[i]) : NULL;
		cJSON *item = c ? cJSON_CreateString(c) : cJSON_CreateNull();
		free(c);
		if (!item)
			FATAL("out of memory");
		cJSON_AddItemToObject(o, keys[i], item);
	}
	cJSON_AddItemToArray(out, o);
}

static int eq(const char *a, const char *b)
{
	return a && b && !strcmp(a, b);
}

static int live(const struct a1_lang_fact *f)
{
	return !f->dead && !f->taut;
}

/* Every live form of `need` is in `have` (multisets); 0 when `need` has none. */
static int holds_all(const struct a1_lang_func *have, const struct a1_lang_func *need)
{
	size_t na = 0, nb = 0;
	const char **a = xmalloc((have->nfacts + 1) * sizeof *a), **b = xmalloc((need->nfacts + 1) * sizeof *b);
	for (size_t i = 0; i < have->nfacts; i++)
		if (live(&have->facts[i]))
			a[na++] = have->facts[i].form;
	for (size_t i = 0; i < need->nfacts; i++)
		if (live(&need->facts[i]))
			b[nb++] = need->facts[i].form;
	int ok = nb > 0 && a1_forms_cover(a, na, b, nb);
	free(a);
	free(b);
	return ok;
}

/* 1 when matcher `b` checks the opposite of `a` (either way round). */
static int negation(const char *a, const char *b)
{
	static const char *const pairs[][2] = {{"assert_eq", "assert_ne"}, {"debug_assert_eq", "debug_assert_ne"},
					       {"==", "!="}, {"assert.Equal", "assert.NotEqual"},
					       {"require.Equal", "require.NotEqual"}};
	for (size_t i = 0; a && b && i < sizeof pairs / sizeof *pairs; i++)
		if ((!strcmp(a, pairs[i][0]) && !strcmp(b, pairs[i][1])) || (!strcmp(a, pairs[i][1]) && !strcmp(b, pairs[i][0])))
			return 1;
	return 0;
}

/* 1 when a guard `x != 0` became `x > 0` / `x >= 1` (or an `assert!(x == 0)` became
 * `assert!(x <= 0)` / `assert!(x < 1)`): the same check of a value that cannot be negative. */
static int nonzero_as_positive(const struct a1_lang_fact *p, const struct a1_lang_fact *q)
{
	if (!p->expected || !q->expected || !p->matcher || !q->matcher || strcmp(p->expected, "0"))
		return 0;
	if (!strcmp(p->matcher, "!="))
		return (!strcmp(q->matcher, ">") && !strcmp(q->expected, "0")) || (!strcmp(q->matcher, ">=") && !strcmp(q->expected, "1"));
	if (!strcmp(p->matcher, "==") || !strcmp(p->matcher, "assert_eq") || !strcmp(p->matcher, "debug_assert_eq"))
		return (!strcmp(q->matcher, "<=") && !strcmp(q->expected, "0")) || (!strcmp(q->matcher, "<") && !strcmp(q->expected, "1"));
	return 0;
}

/* 1 when `subject` is a length or count: len(x), cap(x), x.len(), x.count(). */
static int counted(const char *subject)
{
	size_t n = subject ? strlen(subject) : 0;
	return (n > 4 && (!strncmp(subject, "len(", 4) || !strncmp(subject, "cap(", 4))) ||
	       (n > 6 && !strcmp(subject + n - 6, ".len()")) || (n > 8 && !strcmp(subject + n - 8, ".count()"));
}

/* The finding for a pair of facts (NULL: none), its status into *status. */
static const char *judge_pair(const struct a1_lang_fact *p, const struct a1_lang_fact *q, const char **status)
{
	*status = "FAIL";
	if (q->taut)
		return "replaced-by-tautology";
	if (q->dead)
		return "assertion-unreachable";
	if (q->swallowed > p->swallowed && !q->soft) { /* an unwrap moved into a spawned task: no check lost */
		if (q->swallowed == A1_LANG_SWALLOWED)
			return "failure-swallowed";
		*status = "UNVERIFIED";
		return "assertion-may-be-unseen";
	}
	if (!strcmp(p->form, q->form) || !eq(p->subject, q->subject))
		return NULL;
	if (negation(p->matcher, q->matcher) && eq(p->expected, q->expected))
		return "assertion-negated";
	if (p->strength == A1_LANG_EXACT && q->strength == A1_LANG_LOOSE) {
		if (!nonzero_as_positive(p, q))
			return "matcher-loosened";
		if (counted(p->subject))
			return NULL; /* `len(x) != 0` -> `len(x) > 0`: a length is never negative */
		*status = "WARN"; /* the same unless the value can be negative: its type is not seen */
		return "matcher-loosened";
	}
	if (!eq(p->matcher, q->matcher) || !p->expected || !q->expected || eq(p->expected, q->expected))
		return NULL;
	*status = "WARN";
	return "expected-value-changed";
}

/* Marks the functions of `s` that `f` reaches within `depth` calls. */
static void reach(const struct a1_lang_side *s, const struct a1_lang_func *f, unsigned char *seen, int depth)
{
	if (depth <= 0)
		return;
	for (size_t i = 0; i < f->calls.n; i++)
		for (size_t j = 0; j < s->nfuncs; j++)
			if (!seen[j] && !s->funcs[j].is_test && !strcmp(s->funcs[j].name, f->calls.v[i])) {
				seen[j] = 1;
				reach(s, &s->funcs[j], seen, depth - 1);
			}
}

static int pair_ok(int pass, const struct a1_lang_fact *p, const struct a1_lang_fact *q)
{
	if (p->soft != q->soft)
		return 0; /* a `?` stands for no assertion */
	switch (pass) {
	case 0:
		return !strcmp(p->form, q->form) && p->dead == q->dead && p->taut == q->taut && p->swallowed == q->swallowed;
	case 1:
		return !strcmp(p->form, q->form);
	case 2:
		return eq(p->subject, q->subject) && eq(p->matcher, q->matcher);
	case 3:
		return eq(p->subject, q->subject);
	default:
		return 1;
	}
}

/* The facts a test asserts: its own, then those of the file's helpers it calls (followed
 * HELPER_DEPTH calls deep), each helper once. An assertion taken out of a helper the test
 * still calls is taken out of the test. */
static const struct a1_lang_fact **asserted(const struct a1_lang_side *s, const struct a1_lang_func *f, size_t *n)
{
	unsigned char *seen = xcalloc(s->nfuncs + 1, 1);
	reach(s, f, seen, HELPER_DEPTH);
	size_t k = f->nfacts;
	for (size_t j = 0; j < s->nfuncs; j++)
		k += seen[j] ? s->funcs[j].nfacts : 0;
	const struct a1_lang_fact **v = xmalloc((k + 1) * sizeof *v);
	k = 0;
	for (size_t i = 0; i < f->nfacts; i++)
		v[k++] = &f->facts[i];
	for (size_t j = 0; j < s->nfuncs; j++)
		for (size_t i = 0; seen[j] && i < s->funcs[j].nfacts; i++)
			v[k++] = &s->funcs[j].facts[i];
	free(seen);
	*n = k;
	return v;
}

static void compare_facts(const struct a1_lang_side *pre, const struct a1_lang_side *post,
			  const struct a1_lang_func *P, const struct a1_lang_func *Q, struct a1_rows_text *rt, cJSON *out)
{
	size_t np, nq;
	const struct a1_lang_fact **pf = asserted(pre, P, &np), **qf = asserted(post, Q, &nq);
	long *pair = xmalloc((np + 1) * sizeof *pair);
	unsigned char *used = xcalloc(nq + 1, 1);
	for (size_t i = 0; i < np; i++)
		pair[i] = -1;
	for (int pass = 0; pass < 5; pass++) {
		if (pass == 3) /* N assertions generalised into one fed by rows (a1_rows.h) */
			a1_rows_lang(post, Q, rt, pf, np, qf, nq, pair, used);
		for (size_t i = 0, j0 = 0; i < np; i++)
			for (size_t j = pass == 4 ? j0 : 0; pair[i] < 0 && j < nq; j++)
				if (!used[j] && pair_ok(pass, pf[i], qf[j])) {
					pair[i] = (long)j;
					used[j] = 1;
					j0 = j + 1;
				}
	}
	for (size_t i = 0; i < np; i++) {
		if (pair[i] < 0 || !live(pf[i]))
			continue;
		const char *status, *name = judge_pair(pf[i], qf[pair[i]], &status);
		if (name)
			a1_lang_finding(out, P->name, name, status, !strcmp(status, "UNVERIFIED") ? UNDECIDABLE : NULL, pf[i]->form,
					qf[pair[i]]->form);
	}
	int any_live = 0;
	for (size_t j = 0; j < nq; j++)
		any_live |= live(qf[j]);
	for (size_t i = 0; i < np; i++) {
		if (pair[i] >= 0 || !live(pf[i]) || (pf[i]->soft && any_live))
			continue;
		if (!any_live) {
			a1_lang_finding(out, P->name, "test-lost-every-assertion", "FAIL", NULL, pf[i]->form, NULL);
			break;
		}
		a1_lang_finding(out, P->name, "assertion-removed", "FAIL", NULL, pf[i]->form, NULL);
	}
	free(pf);
	free(qf);
	free(pair);
	free(used);
}

/* A side's functions by name: the first of each name, and after each the next of its name. */
struct names {
	struct strmap first;
	long *next;
};

static void names_index(struct names *x, const struct a1_lang_side *s)
{
	strmap_init(&x->first);
	x->next = xmalloc((s->nfuncs + 1) * sizeof *x->next);
	for (size_t j = s->nfuncs; j-- > 0;) {
		int64_t v;
		x->next[j] = strmap_get(&x->first, s->funcs[j].name, &v) ? (long)v : -1;
		strmap_put(&x->first, s->funcs[j].name, (int64_t)j);
	}
}

static void names_free(struct names *x)
{
	strmap_free(&x->first);
	free(x->next);
}

/* The index of the nth (0-based) function named `name`, or -1. */
static long names_nth(const struct names *x, const char *name, size_t nth)
{
	int64_t v;
	if (!strmap_get(&x->first, name, &v))
		return -1;
	long j = (long)v;
	while (j >= 0 && nth--)
		j = x->next[j];
	return j;
}

/* A test's name after its modules ("tests::adds" -> "adds"); a module's "mod a::tests" -> "mod". */
static const char *base_name(const char *name)
{
	if (!strncmp(name, "mod ", 4))
		return "mod";
	const char *k = strrchr(name, ':');
	return k ? k + 1 : name;
}

/* 1 when `f` has a live fact. */
static int any_live_fact(const struct a1_lang_func *f)
{
	for (size_t i = 0; i < f->nfacts; i++)
		if (live(&f->facts[i]))
			return 1;
	return 0;
}

/* The post function a pre test became: the one of the same name (`q`: the nth of its name
 * for the nth pre function of that name, or -1), else a new function holding all its
 * assertions (a test renamed, or taken out of collection); for a test with no assertion to
 * know it by (a #[should_panic] test, a test module itself), a new test of its base name (its
 * module renamed: tests::x -> unit_tests::x, mod tests -> mod unit_tests). */
static const struct a1_lang_func *counterpart(const struct names *pre_ix, const struct a1_lang_side *post,
					      const struct a1_lang_func *P, long q, const unsigned char *taken, size_t *at)
{
	if (q >= 0) {
		*at = (size_t)q;
		return &post->funcs[q];
	}
	for (int want_test = 1; want_test >= 0; want_test--)
		for (size_t j = 0; j < post->nfuncs; j++) {
			const struct a1_lang_func *C = &post->funcs[j];
			if (taken[j] || C->is_test != want_test || names_nth(pre_ix, C->name, 0) >= 0 || !holds_all(C, P))
				continue;
			*at = j;
			return C;
		}
	for (size_t j = 0; !any_live_fact(P) && j < post->nfuncs; j++) {
		const struct a1_lang_func *C = &post->funcs[j];
		if (!taken[j] && C->is_test && names_nth(pre_ix, C->name, 0) < 0 && !strcmp(base_name(C->name), base_name(P->name))) {
			*at = j;
			return C;
		}
	}
	return NULL;
}

/* 1 when string `big` holds `small` - #[should_panic(expected = ..)]'s texts, their quotes
 * cut when both are plain string literals. */
static int panic_holds(const char *big, const char *small)
{
	size_t nb = strlen(big), ns = strlen(small);
	int quoted = nb >= 2 && ns >= 2 && big[0] == '"' && small[0] == '"' && big[nb - 1] == '"' && small[ns - 1] == '"';
	char *b = quoted ? xstrndup(big + 1, nb - 2) : xstrdup(big), *s = quoted ? xstrndup(small + 1, ns - 2) : xstrdup(small);
	int ok = strstr(b, s) != NULL;
	free(b);
	free(s);
	return ok;
}

/* The skip / exit state of the helpers `f` calls (followed HELPER_DEPTH calls deep): their
 * A1_LANG_SKIP, COND_SKIP and EXITS, the first helper's name and why into *name / *why. */
static unsigned helper_mods(const struct a1_lang_side *s, const struct a1_lang_func *f, unsigned want, const char **name,
			    const char **why)
{
	unsigned char *seen = xcalloc(s->nfuncs + 1, 1);
	reach(s, f, seen, HELPER_DEPTH);
	unsigned m = 0;
	for (size_t j = 0; j < s->nfuncs; j++)
		if (seen[j] && (s->funcs[j].mods & want)) {
			if (!(m & want) && name) {
				*name = s->funcs[j].name;
				*why = s->funcs[j].why;
			}
			m |= s->funcs[j].mods & (A1_LANG_SKIP | A1_LANG_COND_SKIP | A1_LANG_EXITS);
		}
	free(seen);
	return m;
}

/* 1 when table `t` of side `s` asserts: its loop body holds a live fact, or calls a function of
 * the file (HELPER_DEPTH calls deep) that does. */
static int table_asserts(const struct a1_lang_side *s, const struct a1_lang_table *t)
{
	if (t->asserts)
		return 1;
	struct a1_lang_func via = {.calls = t->calls};
	unsigned char *seen = xcalloc(s->nfuncs + 1, 1);
	reach(s, &via, seen, HELPER_DEPTH);
	int yes = 0;
	for (size_t j = 0; j < s->nfuncs && !yes; j++)
		yes = seen[j] && any_live_fact(&s->funcs[j]);
	free(seen);
	return yes;
}

/* A range of integers as a table's source: Go's `range 10` ([0, 10)), Rust's `a..b`, `a..=b`
 * (ends non-negative literals below 10^9): 1 with [*lo, *hi) set; 0 for anything else. */
static int span(const char *src, long *lo, long *hi)
{
	if (!src)
		return 0;
	char *e;
	const char *p = src;
	if (*p < '0' || *p > '9')
		return 0;
	long a = strtol(p, &e, 10);
	if (!*e && e - p < 10) { /* range N */
		*lo = 0;
		*hi = a;
		return 1;
	}
	if (e - p >= 10 || strncmp(e, "..", 2))
		return 0;
	int incl = e[2] == '=';
	p = e + 2 + incl;
	if (*p < '0' || *p > '9')
		return 0;
	long b = strtol(p, &e, 10);
	if (*e || e - p >= 10)
		return 0;
	*lo = a;
	*hi = b + incl;
	return *hi >= *lo;
}

/* 1 when a row of key `key` is in a table of Q no table of P became (`used` 0; a table split
 * in two), not taken yet (spare[j]: its rows taken); takes it. */
static int spare_row(const struct a1_lang_func *Q, const unsigned char *used, unsigned char **spare, const char *key)
{
	for (size_t j = 0; j < Q->ntables; j++) {
		const struct a1_lang_table *t = &Q->tables[j];
		if (used[j] || t->source)
			continue;
		for (size_t m = 0; m < t->keys.n; m++)
			if ((!spare[j] || !spare[j][m]) && !strcmp(t->keys.v[m], key)) {
				if (!spare[j])
					spare[j] = xcalloc(t->keys.n + 1, 1);
				spare[j][m] = 1;
				return 1;
			}
	}
	return 0;
}

/* The rows of a table the test P ran its checks over, against its counterpart in Q (the same
 * name, else the only one left on both sides): fewer rows FAIL test-case-removed, some gone
 * but no fewer WARN expected-value-changed, rows added none; rows not read from a literal
 * whose source changed UNVERIFIED test-cases-out-of-view. */
static void compare_rows(const struct a1_lang_side *pre, const struct a1_lang_func *P, const struct a1_lang_func *Q,
			 cJSON *out)
{
	unsigned char *used = xcalloc(Q->ntables + 1, 1), *asserting = xcalloc(P->ntables + 1, 1);
	long *pair = xmalloc((P->ntables + 1) * sizeof *pair);
	size_t left_p = 0, left_q = 0;
	for (size_t i = 0; i < P->ntables; i++) {
		pair[i] = -1;
		asserting[i] = (unsigned char)table_asserts(pre, &P->tables[i]);
		for (size_t j = 0; asserting[i] && j < Q->ntables && pair[i] < 0; j++)
			if (!used[j] && !strcmp(P->tables[i].name, Q->tables[j].name))
				pair[i] = (long)j, used[j] = 1;
		left_p += asserting[i] && pair[i] < 0;
	}
	for (size_t j = 0; j < Q->ntables; j++)
		left_q += !used[j];
	for (size_t i = 0; left_p == 1 && left_q == 1 && i < P->ntables; i++)
		for (size_t j = 0; asserting[i] && pair[i] < 0 && j < Q->ntables; j++)
			if (!used[j])
				pair[i] = (long)j, used[j] = 1;
	unsigned char **spare = xcalloc(Q->ntables + 1, sizeof *spare); /* rows of new tables taken */
	for (size_t i = 0; i < P->ntables; i++) {
		if (pair[i] < 0)
			continue; /* the table gone: its checks are judged as assertions */
		const struct a1_lang_table *a = &P->tables[i], *b = &Q->tables[pair[i]];
		long alo, ahi, blo, bhi;
		if (span(a->source, &alo, &ahi) && span(b->source, &blo, &bhi)) { /* 0..10 -> 0..5 */
			if (blo <= alo && bhi >= ahi)
				continue; /* every value it ran over still runs */
			char *was = xasprintf("rows %s", a->source), *now = xasprintf("rows %s", b->source);
			int fewer = bhi - blo < ahi - alo;
			a1_lang_finding(out, P->name, fewer ? "test-case-removed" : "expected-value-changed", fewer ? "FAIL" : "WARN",
					NULL, was, now);
			free(was);
			free(now);
			continue;
		}
		if (a->source || b->source) {
			if (!eq(a->source, b->source)) {
				char *was = a->source ? xasprintf("rows from %s", a->source) : xasprintf("%zu row(s) in %s", a->rows.n, a->name);
				char *now = b->source ? xasprintf("rows from %s (not read)", b->source)
						      : xasprintf("%zu row(s) in %s", b->rows.n, b->name);
				a1_lang_finding(out, P->name, "test-cases-out-of-view", "UNVERIFIED", UNDECIDABLE, was, now);
				free(was);
				free(now);
			}
			continue;
		}
		unsigned char *took = xcalloc(b->keys.n + 1, 1);
		struct buf gone = {0};
		size_t removed = 0, moved = 0;
		for (size_t k = 0; k < a->keys.n; k++) {
			size_t m;
			for (m = 0; m < b->keys.n; m++)
				if (!took[m] && !strcmp(a->keys.v[k], b->keys.v[m]))
					break;
			if (m < b->keys.n) {
				took[m] = 1;
				continue;
			}
			if (spare_row(Q, used, spare, a->keys.v[k])) { /* moved into a new table of the test */
				moved++;
				continue;
			}
			for (m = 0; m < b->keys.n && strcmp(a->keys.v[k], b->keys.v[m]); m++)
				;
			if (m < b->keys.n) { /* a duplicate row dropped: the same check still runs */
				moved++;
				continue;
			}
			buf_printf(&gone, "%s%s", removed++ ? "; " : "", a->rows.v[k]);
		}
		if (removed) {
			char *what = xasprintf("%zu row(s) gone: %s", removed, buf_cstr(&gone));
			char *now = xasprintf("%zu row(s), %zu new", b->rows.n, b->rows.n - (a->rows.n - removed - moved));
			if (b->rows.n + moved < a->rows.n)
				a1_lang_finding(out, P->name, "test-case-removed", "FAIL", NULL, what, now);
			else
				a1_lang_finding(out, P->name, "expected-value-changed", "WARN", NULL, what, now);
			free(what);
			free(now);
		}
		buf_free(&gone);
		free(took);
	}
	for (size_t j = 0; j < Q->ntables; j++)
		free(spare[j]);
	free(spare);
	free(used);
	free(asserting);
	free(pair);
}

static void compare_func(const struct a1_lang_side *pre, const struct a1_lang_side *post, const struct a1_lang_func *P,
			 const struct a1_lang_func *Q, struct a1_rows_text *rt, cJSON *out)
{
	if ((Q->mods & A1_LANG_CFG_OFF) && !(P->mods & A1_LANG_CFG_OFF)) {
		a1_lang_finding(out, P->name, "build-excluded", "FAIL", NULL, "built", Q->why ? Q->why : "cfg'd away");
		return;
	}
	if (!Q->is_test || (Q->mods & A1_LANG_UNCOLLECTED)) {
		a1_lang_finding(out, P->name, "test-not-collected", "FAIL", NULL, "runs as a test",
				Q->why ? Q->why : Q->name);
		return;
	}
	if (Q->mods & A1_LANG_SKIP) {
		a1_lang_finding(out, P->name, "test-skipped", "FAIL", NULL, "runs", Q->why ? Q->why : "skipped");
		return;
	}
	/* a helper it calls skips it, or ends the run, where none did */
	const char *hname = NULL, *hwhy = NULL;
	unsigned hp = helper_mods(pre, P, A1_LANG_SKIP | A1_LANG_COND_SKIP | A1_LANG_EXITS, NULL, NULL);
	unsigned hard = A1_LANG_SKIP | A1_LANG_EXITS;
	if (!(hp & hard) && helper_mods(post, Q, hard, &hname, &hwhy)) {
		char *what = xasprintf("calls %s: %s", hname, hwhy ? hwhy : "skipped");
		a1_lang_finding(out, P->name, "test-skipped", "FAIL", NULL, "runs", what);
		free(what);
		return;
	}
	if (!(hp & (hard | A1_LANG_COND_SKIP)) && !((P->mods | Q->mods) & A1_LANG_COND_SKIP) &&
	    helper_mods(post, Q, A1_LANG_COND_SKIP, &hname, &hwhy)) {
		char *what = xasprintf("calls %s: %s", hname, hwhy ? hwhy : "a condition");
		a1_lang_finding(out, P->name, "conditional-skip-added", "UNVERIFIED", UNDECIDABLE, "runs", what);
		free(what);
	}
	if ((Q->mods & A1_LANG_PANICS) && !(P->mods & A1_LANG_PANICS)) {
		a1_lang_finding(out, P->name, "expected-failure-added", "FAIL", NULL, "must not panic",
				Q->why ? Q->why : "#[should_panic]");
		return;
	}
	if ((P->mods & A1_LANG_PANICS) && (Q->mods & A1_LANG_PANICS) && P->panic_expect && !eq(P->panic_expect, Q->panic_expect)) {
		if (!Q->panic_expect || !*Q->panic_expect || !strcmp(Q->panic_expect, "\"\""))
			a1_lang_finding(out, P->name, "should-panic-expected-removed", "FAIL", NULL, P->panic_expect, "any panic");
		else if (panic_holds(Q->panic_expect, P->panic_expect))
			; /* more specific: any panic that matches now matched before */
		else if (!panic_holds(P->panic_expect, Q->panic_expect))
			a1_lang_finding(out, P->name, "expected-value-changed", "WARN", NULL,
					P->panic_expect, Q->panic_expect);
		else /* a substring of the old message: any panic that matched before matches now, and more */
			a1_lang_finding(out, P->name, "should-panic-expected-removed", "FAIL", NULL, P->panic_expect,
					Q->panic_expect);
	}
	if ((Q->mods & A1_LANG_SWALLOWS) && !(P->mods & A1_LANG_SWALLOWS))
		a1_lang_finding(out, P->name, "failure-swallowed", "FAIL", NULL, "a panic fails the test",
				Q->why ? Q->why : "a deferred recover()");
	if ((Q->mods & A1_LANG_COND_CFG) && !(P->mods & A1_LANG_COND_CFG))
		a1_lang_finding(out, P->name, "build-constraint-added", "UNVERIFIED", UNDECIDABLE, "built",
				Q->why ? Q->why : "a cfg");
	else if ((Q->mods & A1_LANG_COND_SKIP) && !(P->mods & A1_LANG_COND_SKIP))
		a1_lang_finding(out, P->name, "conditional-skip-added", "UNVERIFIED", UNDECIDABLE, "runs",
				Q->why ? Q->why : "a condition");
	compare_rows(pre, P, Q, out);
	compare_facts(pre, post, P, Q, rt, out);
}

/* 1 when opaque `o` is a module declared here and read in another file (its name "tests::"). */
static int module_decl(const struct a1_lang_opaque *o)
{
	size_t n = strlen(o->name);
	return n > 2 && !strcmp(o->name + n - 2, "::");
}

/* The text of a construct of `s` not looked into that holds the test `name`: a module of
 * another file its path lies in, or a macro that names its last `::` part as a word; NULL for
 * none. */
static const char *hidden(const struct a1_lang_side *s, const char *name)
{
	const char *k = strrchr(name, ':');
	k = k ? k + 1 : name;
	size_t n = strlen(k);
	for (size_t i = 0; n && i < s->nopaque; i++) {
		if (module_decl(&s->opaque[i])) {
			if (!strncmp(name, s->opaque[i].name, strlen(s->opaque[i].name)))
				return s->opaque[i].text;
			continue;
		}
		for (const char *t = strstr(s->opaque[i].text, k); t; t = strstr(t + 1, k))
			if ((t == s->opaque[i].text || !word_byte((unsigned char)t[-1])) && !word_byte((unsigned char)t[n]))
				return s->opaque[i].text;
	}
	return NULL;
}

static void compare(const struct a1_lang_side *pre, const struct a1_lang_side *post, struct a1_rows_text *rt,
		    cJSON *out)
{
	if (post->excluded && !eq(pre->excluded, post->excluded) && !pre->excluded)
		a1_lang_finding(out, NULL, "build-excluded", "FAIL", NULL, pre->constraint, post->excluded);
	else if (post->constraint && !post->excluded && !pre->excluded && !eq(pre->constraint, post->constraint))
		a1_lang_finding(out, NULL, "build-constraint-added", "UNVERIFIED", UNDECIDABLE, pre->constraint,
				post->constraint);
	if (pre->excluded)
		return; /* nothing in it ever ran */
	/* functions paired by name, the nth of a name on one side with the nth on the other */
	struct names pre_ix, post_ix;
	names_index(&pre_ix, pre);
	names_index(&post_ix, post);
	long *q = xmalloc((pre->nfuncs + 1) * sizeof *q);
	struct strmap seen;
	strmap_init(&seen);
	unsigned char *taken = xcalloc(post->nfuncs + 1, 1);
	for (size_t i = 0; i < pre->nfuncs; i++) {
		int64_t nth = 0;
		strmap_get(&seen, pre->funcs[i].name, &nth);
		strmap_put(&seen, pre->funcs[i].name, nth + 1);
		q[i] = names_nth(&post_ix, pre->funcs[i].name, (size_t)nth);
		if (q[i] >= 0)
			taken[q[i]] = 1;
	}
	strmap_free(&seen);
	for (size_t i = 0; i < pre->nfuncs; i++) {
		const struct a1_lang_func *P = &pre->funcs[i];
		if (!P->is_test || (P->mods & (A1_LANG_SKIP | A1_LANG_UNCOLLECTED)))
			continue;
		size_t at = 0;
		const struct a1_lang_func *Q = counterpart(&pre_ix, post, P, q[i], taken, &at);
		if (!Q && hidden(post, P->name)) {
			a1_lang_finding(out, P->name, "test-out-of-view", "UNVERIFIED", UNDECIDABLE, "runs as a test",
					hidden(post, P->name));
			continue;
		}
		if (!Q) {
			char *what = P->nfacts ? xasprintf("%zu assertion(s), first: %s", P->nfacts, P->facts[0].form)
					       : xstrdup("a test without assertions");
			a1_lang_finding(out, P->name, "test-deleted", "FAIL", NULL, what, NULL);
			free(what);
			continue;
		}
		taken[at] = 1;
		if (P->lazy || Q->lazy)
			continue; /* byte-identical on both sides, as is all it reads (a1_lang_want) */
		compare_func(pre, post, P, Q, rt, out);
	}
	/* Go's TestMain(m): the package's tests run only through its m.Run() */
	for (size_t j = 0; j < post->nfuncs; j++) {
		const struct a1_lang_func *Q = &post->funcs[j];
		if (Q->lazy || !(Q->mods & (A1_LANG_NO_RUN | A1_LANG_COND_RUN)))
			continue;
		long i = names_nth(&pre_ix, Q->name, 0);
		unsigned before = i >= 0 ? pre->funcs[i].mods : 0;
		const char *was = i >= 0 ? "runs the tests (m.Run())" : "no TestMain: the tests run";
		if ((Q->mods & A1_LANG_NO_RUN) && !(before & A1_LANG_NO_RUN))
			a1_lang_finding(out, Q->name, "tests-not-run", "FAIL", NULL, was, Q->why);
		else if ((Q->mods & A1_LANG_COND_RUN) && !(before & (A1_LANG_NO_RUN | A1_LANG_COND_RUN)))
			a1_lang_finding(out, Q->name, "conditional-skip-added", "UNVERIFIED", UNDECIDABLE, was, Q->why);
	}
	free(taken);
	free(q);
	names_free(&pre_ix);
	names_free(&post_ix);
	/* constructs not looked into: any that changed */
	for (int side = 0; side < 2; side++) {
		const struct a1_lang_side *a = side ? post : pre, *b = side ? pre : post;
		for (size_t i = 0; i < a->nopaque; i++) {
			size_t j;
			if (module_decl(&a->opaque[i]))
				continue; /* judged in its own file */
			for (j = 0; j < b->nopaque; j++)
				if (!strcmp(a->opaque[i].text, b->opaque[j].text))
					break;
			if (j < b->nopaque)
				continue;
			char *what = xasprintf("%s (tests it may generate are not judged)", a->opaque[i].text);
			a1_lang_finding(out, a->opaque[i].name, "macro-changed", "UNVERIFIED", UNDECIDABLE, side ? NULL : what,
					side ? what : NULL);
			free(what);
		}
	}
}

static void refused(cJSON *out, const struct a1_lang_side *s, int pre)
{
	char *what = xasprintf("%s: %s", pre ? "pre" : "post", s->why ? s->why : "not read");
	int deep = s->status == A1_LANG_UNDECIDABLE;
	a1_lang_finding(out, NULL, deep ? "too-deeply-nested" : "unparseable-source", "UNVERIFIED",
			deep ? UNDECIDABLE : UNREADABLE, pre ? what : NULL, pre ? NULL : what);
	free(what);
}

static void side_free_heap(void *p)
{
	a1_lang_side_free(p);
	free(p);
}

/*==== reading lazily ========================================================================*/

#define LAZY_DEPTH 256 /* tree levels a unit left unwalked may have: a walk counts at most two per
			* level (Go's if), and refuses past WALK_MAX (1024) - a deeper unit is walked */

/* A side's units as a1_lang_decide sees them. */
struct uset {
	struct a1_lang_unit *u;
	size_t n;
};

struct a1_lang_plan {
	TSTree *tree; /* the side's tree (not owned), NULL: parse */
	int survey;   /* record the units, walk none */
	int all;      /* walk every unit */
	int abort;    /* the judge cannot promise what a1_lang_want asks */
	struct a1_lang_unit *u;
	size_t n, cap, next, cur;
};

static void plan_free(struct a1_lang_plan *p)
{
	for (size_t i = 0; i < p->n; i++)
		free(p->u[i].name);
	free(p->u);
	memset(p, 0, sizeof *p);
}

TSTree *a1_lang_plan_parse(struct a1_lang_plan *p, enum a1_lang_syntax syn, const TSLanguage *lang, const char *text,
			   size_t len, struct a1_lang_side *s, TSTree *old)
{
	if (p && p->tree)
		return p->tree;
	return a1_lang_parse(syn, lang, text, len, s, old);
}

void a1_lang_plan_done(struct a1_lang_plan *p, TSTree *tree, TSTree **keep, const struct a1_lang_side *s)
{
	if (!tree || (p && p->tree == tree))
		return;
	if (keep && !s->status)
		*keep = tree;
	else
		ts_tree_delete(tree);
}

void a1_lang_plan_abort(struct a1_lang_plan *p)
{
	if (p)
		p->abort = 1;
}

int a1_lang_skip(struct a1_lang_plan *p, TSNode fn, uint32_t start)
{
	(void)fn;
	if (!p || p->survey || p->abort)
		return 0;
	size_t i = p->next++;
	if (i >= p->n || p->u[i].a != start) {
		p->abort = 1; /* not the units the survey saw: never expected */
		return 0;
	}
	p->cur = i;
	return !p->all && !p->u[i].need;
}

int a1_lang_want(struct a1_lang_plan *p, struct a1_lang_side *s, TSNode fn, uint32_t start)
{
	if (!p)
		return 1;
	struct a1_lang_func *f = &s->funcs[s->nfuncs - 1];
	if (p->survey) {
		p->u = grow(p->u, &p->cap, p->n, sizeof *p->u);
		p->u[p->n++] = (struct a1_lang_unit){start, ts_node_end_byte(fn), fn, xstrdup(f->name), 0, s->nfuncs - 1, 0, 0};
		f->lazy = 1;
		return 0;
	}
	if (p->abort)
		return 1;
	struct a1_lang_unit *u = &p->u[p->cur];
	if (strcmp(u->name, f->name)) {
		p->abort = 1;
		return 1;
	}
	u->ridx = s->nfuncs - 1;
	u->read = 1;
	return 1;
}

/* The unit of `p` holding byte `at`, or -1 (units are in document order, disjoint). */
static long unit_at(const struct uset *p, uint32_t at)
{
	size_t lo = 0, hi = p->n;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (p->u[mid].e <= at)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < p->n && p->u[lo].a <= at ? (long)lo : -1;
}

static int blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

/* What lies outside the units of `p`: each gap between them with its blank ends cut, the empty
 * ones dropped (a unit added or removed leaves the rest as it was). */
static char *context(const struct uset *p, const char *text, size_t len)
{
	struct buf b = {0};
	size_t at = 0;
	for (size_t i = 0; i <= p->n; i++) {
		size_t a = at, e = i < p->n ? p->u[i].a : len;
		while (a < e && blank(text[a]))
			a++;
		while (e > a && blank(text[e - 1]))
			e--;
		if (e > a) {
			buf_append(&b, text + a, e - a);
			buf_append(&b, "\0", 1);
		}
		if (i < p->n)
			at = p->u[i].e;
	}
	/* NULs separate the gaps: the length goes in front */
	char *r = xmalloc(b.len + sizeof(size_t));
	memcpy(r, &b.len, sizeof(size_t));
	if (b.len)
		memcpy(r + sizeof(size_t), b.p, b.len);
	buf_free(&b);
	return r;
}

static int context_same(const char *x, const char *y)
{
	size_t a, b;
	memcpy(&a, x, sizeof a);
	memcpy(&b, y, sizeof b);
	return a == b && !memcmp(x + sizeof a, y + sizeof b, a);
}

/* The word a name is called by: its last `::` or `.` part. */
static const char *last_part(const char *name, size_t *n)
{
	const char *k = name;
	for (const char *c = name; *c; c++)
		if (*c == ':' || *c == '.')
			k = c + 1;
	*n = strlen(k);
	return k;
}

struct needs {
	struct strmap set; /* names needed */
	char **v;	   /* in the order added */
	size_t n, cap;
};

static void need(struct needs *nd, const char *name)
{
	int64_t x;
	if (strmap_get(&nd->set, name, &x))
		return;
	strmap_put(&nd->set, name, 1);
	nd->v = grow(nd->v, &nd->cap, nd->n, sizeof *nd->v);
	nd->v[nd->n++] = xstrdup(name);
}

/* Marks, for needed name `name`, the units of `p` whose text mentions it as a word (its callers). */
static void callers(struct needs *nd, const struct uset *p, const char *text, size_t len, const char *name)
{
	size_t k;
	const char *w = last_part(name, &k);
	if (!k)
		return;
	for (const char *t = text; (t = memmem(t, len - (size_t)(t - text), w, k)) != NULL; t++) {
		if ((t > text && word_byte((unsigned char)t[-1])) || (t + k < text + len && word_byte((unsigned char)t[k])))
			continue;
		long u = unit_at(p, (uint32_t)(t - text));
		if (u >= 0)
			need(nd, p->u[u].name);
	}
}

/* Marks the units whose name's last part is a word of unit `u`'s text (its callees). */
static void callees(struct needs *nd, const struct strmap *by_word, char **names, const char *text, const struct a1_lang_unit *u)
{
	for (uint32_t i = u->a; i < u->e;) {
		if (!word_byte((unsigned char)text[i])) {
			i++;
			continue;
		}
		uint32_t j = i;
		while (j < u->e && word_byte((unsigned char)text[j]))
			j++;
		char buf[128], *word = j - i < sizeof buf ? buf : xmalloc(j - i + 1);
		memcpy(word, text + i, j - i);
		word[j - i] = 0;
		int64_t at;
		if (strmap_get(by_word, word, &at))
			for (char **nm = names + at; *nm; nm++)
				need(nd, *nm);
		if (word != buf)
			free(word);
		i = j;
	}
}

/* The deepest level under `n` exceeds `max`. */
static int deeper(TSNode n, unsigned max)
{
	TSTreeCursor c = ts_tree_cursor_new(n);
	unsigned depth = 0;
	int deep = 0;
	for (;;) {
		if (ts_tree_cursor_goto_first_child(&c)) {
			if (++depth > max) {
				deep = 1;
				break;
			}
			continue;
		}
		while (depth && !ts_tree_cursor_goto_next_sibling(&c)) {
			ts_tree_cursor_goto_parent(&c);
			depth--;
		}
		if (!depth)
			break;
	}
	ts_tree_cursor_delete(&c);
	return deep;
}

/* Decides which units both sides walk (sets need); 0, or -1 when everything must be walked:
 * a side's judge aborted, the context differs, or the units outside the edit `e` are not the
 * same on both sides, in the same order, under the same names. */
int a1_lang_decide(struct a1_lang_unit *ua, size_t na, const char *pre, size_t pre_len, struct a1_lang_unit *ub,
		   size_t nb, const char *post, size_t post_len, const TSInputEdit *e, int *shallow)
{
	struct uset sa = {ua, na}, sb = {ub, nb}, *pa = &sa, *pb = &sb;
	char *ca = context(pa, pre, pre_len), *cb = context(pb, post, post_len);
	int same = context_same(ca, cb);
	free(ca);
	free(cb);
	if (!same)
		return -1;
	uint32_t s = e->start_byte, oe = e->old_end_byte, ne = e->new_end_byte;
	long delta = (long)ne - (long)oe;
	struct needs nd = {0};
	strmap_init(&nd.set);
	/* the units outside the edit, pairwise: before it at the same bytes, after it shifted */
	size_t i = 0, j = 0;
	int ok = 1;
	for (;;) {
		while (i < pa->n && !(pa->u[i].e < s || pa->u[i].a > oe)) /* touching counts as inside */
			need(&nd, pa->u[i++].name);
		while (j < pb->n && !(pb->u[j].e < s || pb->u[j].a > ne))
			need(&nd, pb->u[j++].name);
		if (i == pa->n || j == pb->n) {
			ok = i == pa->n && j == pb->n;
			break;
		}
		const struct a1_lang_unit *x = &pa->u[i++], *y = &pb->u[j++];
		long sh = x->e < s ? 0 : delta;
		if ((long)y->a != (long)x->a + sh || (long)y->e != (long)x->e + sh || strcmp(x->name, y->name)) {
			ok = 0;
			break;
		}
	}
	/* the callers of what changed, transitively */
	for (size_t k = 0; ok && k < nd.n; k++) {
		char *name = xstrdup(nd.v[k]);
		callers(&nd, pa, pre, pre_len, name);
		callers(&nd, pb, post, post_len, name);
		free(name);
	}
	/* a name two units share: walked, as pairing by name and helpers found by name see them all */
	for (int side = 0; ok && side < 2; side++) {
		const struct uset *p = side ? pb : pa;
		struct strmap seen;
		strmap_init(&seen);
		for (size_t k = 0; k < p->n; k++) {
			int64_t x;
			if (strmap_get(&seen, p->u[k].name, &x))
				need(&nd, p->u[k].name);
			strmap_put(&seen, p->u[k].name, 1);
		}
		strmap_free(&seen);
	}
	/* what the needed units call, transitively: names by their last part, both sides' units */
	if (ok) {
		struct strmap by_word;
		strmap_init(&by_word);
		size_t nn = pa->n + pb->n;
		char **names = xcalloc(2 * nn + 1, sizeof *names);
		/* group names by last part: a NULL-ended run per word in `names` */
		struct strmap count;
		strmap_init(&count);
		for (int side = 0; side < 2; side++) {
			const struct uset *p = side ? pb : pa;
			for (size_t k = 0; k < p->n; k++) {
				size_t wn;
				const char *w = last_part(p->u[k].name, &wn);
				int64_t c = 0;
				strmap_get(&count, w, &c);
				strmap_put(&count, w, c + 1);
			}
		}
		size_t at = 0;
		for (size_t k = 0; k < count.cap; k++)
			if (strmap_live(&count, k)) {
				strmap_put(&by_word, count.slots[k].key, (int64_t)at);
				at += (size_t)count.slots[k].val + 1;
			}
		for (int side = 0; side < 2; side++) {
			const struct uset *p = side ? pb : pa;
			for (size_t k = 0; k < p->n; k++) {
				size_t wn;
				const char *w = last_part(p->u[k].name, &wn);
				int64_t off;
				strmap_get(&by_word, w, &off);
				char **slot = names + off;
				while (*slot && strcmp(*slot, p->u[k].name))
					slot++;
				*slot = p->u[k].name;
			}
		}
		strmap_free(&count);
		for (size_t k = 0; k < nd.n; k++) {
			char *name = xstrdup(nd.v[k]);
			for (int side = 0; side < 2; side++) {
				const struct uset *p = side ? pb : pa;
				for (size_t u = 0; u < p->n; u++)
					if (!strcmp(p->u[u].name, name))
						callees(&nd, &by_word, names, side ? post : pre, &p->u[u]);
			}
			free(name);
		}
		free(names);
		strmap_free(&by_word);
	}
	for (int side = 0; ok && side < 2; side++) {
		struct uset *p = side ? pb : pa;
		for (size_t k = 0; k < p->n; k++) {
			int64_t x;
			p->u[k].need = strmap_get(&nd.set, p->u[k].name, &x);
		}
	}
	/* a unit left unwalked could not have been refused as too deep: the pre side's units
	 * checked once (those left unwalked are the same bytes on both sides), the answer
	 * remembered with the side */
	int deep = 0;
	for (size_t k = 0; ok && !*shallow && k < pa->n; k++)
		if (deeper(pa->u[k].node, LAZY_DEPTH)) {
			deep = 1;
			ok = pa->u[k].need;
		}
	if (ok && !deep)
		*shallow = 1;
	for (size_t k = 0; k < nd.n; k++)
		free(nd.v[k]);
	free(nd.v);
	strmap_free(&nd.set);
	return ok ? 0 : -1;
}

static int plan_decide(struct a1_lang_plan *pa, const char *pre, size_t pre_len, struct a1_lang_plan *pb,
		       const char *post, size_t post_len, const TSInputEdit *e, int *shallow)
{
	if (pa->abort || pb->abort)
		return -1;
	return a1_lang_decide(pa->u, pa->n, pre, pre_len, pb->u, pb->n, post, post_len, e, shallow);
}

/* 1 when A1's judges walk every unit (env BELAY_A1_EAGER=1: the differential tests). */
int a1_lang_eager(void)
{
	const char *v = getenv("BELAY_A1_EAGER");
	return v && *v == '1';
}

/* One side read with `fn` against `old` (NULL: from scratch) and stored under `k`: the entry,
 * held, its facts into *out; its tree into *tree when asked (the caller deletes it). */
static struct a1_cache_ref *side_read(const struct a1_cache_key *k, a1_lang_extract_fn fn, void *ctx, const char *text,
				      size_t len, TSTree *old, TSTree **tree, const struct a1_lang_side **out)
{
	struct a1_lang_side *s = xcalloc(1, sizeof *s);
	TSTree *t = NULL;
	fn(text, len, s, old, &t, ctx, NULL);
	struct a1_cache_ref *r = a1_cache_put(s->status ? NULL : k, s, side_free_heap, t, len);
	if (tree)
		*tree = t;
	else if (t)
		ts_tree_delete(t);
	*out = s;
	return r;
}

/* A cached side's facts, or NULL (with the reference released) when they are not whole. */
static struct a1_cache_ref *whole(struct a1_cache_ref *r, const void **facts, TSTree **tree)
{
	return a1_cache_whole(r, r && ((const struct a1_lang_side *)*facts)->partial, facts, tree);
}

/* The findings of two sides read (a side not read gives its refusal instead) into `out`; the
 * cache references released. Returns `out`. */
static cJSON *judged(cJSON *out, const struct a1_lang_side *a, const struct a1_lang_side *b, struct a1_cache_ref *ra,
		     struct a1_cache_ref *rb, const char *post, size_t post_len)
{
	if (a->status)
		refused(out, a, 1);
	if (b->status)
		refused(out, b, 0);
	if (!a->status && !b->status) {
		struct a1_rows_text rt = {post, post_len, NULL};
		compare(a, b, &rt, out);
		a1_rows_text_done(&rt);
	}
	a1_cache_release(ra);
	a1_cache_release(rb);
	return out;
}

/* A judgement begun: both sides' cache keys, and the findings' array (new). */
static cJSON *judge_start(const char *kind, const TSLanguage *lang, const char *pre, size_t pre_len, const char *post,
			  size_t post_len, struct a1_cache_key *ka, struct a1_cache_key *kb)
{
	cJSON *out = cJSON_CreateArray();
	if (!out)
		FATAL("out of memory");
	a1_cache_key(ka, kind, lang, pre, pre_len);
	a1_cache_key(kb, kind, lang, post, post_len);
	return out;
}

static cJSON *judge_eager(const char *kind, const TSLanguage *lang, a1_lang_extract_fn fn, void *ctx, const char *pre,
			  size_t pre_len, const char *post, size_t post_len)
{
	struct a1_cache_key ka, kb;
	cJSON *out = judge_start(kind, lang, pre, pre_len, post, post_len, &ka, &kb);
	const void *fa = NULL, *fb = NULL;
	/* the post side first: when it is known, the pre side's tree is not needed */
	struct a1_cache_ref *rb = whole(a1_cache_get(&kb, &fb, NULL, 0), &fb, NULL);
	int reuse = !rb && pre && pre_len && post && post_len;
	TSTree *pt = NULL;
	struct a1_cache_ref *ra = whole(a1_cache_get(&ka, &fa, reuse ? &pt : NULL, reuse), &fa, reuse ? &pt : NULL);
	const struct a1_lang_side *a = fa, *b = fb;
	if (!ra)
		ra = side_read(&ka, fn, ctx, pre, pre_len, NULL, reuse ? &pt : NULL, &a);
	if (!rb) {
		if (pt) {
			TSInputEdit e;
			tsnode_edit_between(pre, pre_len, post, post_len, &e);
			ts_tree_edit(pt, &e);
		}
		rb = side_read(&kb, fn, ctx, post, post_len, pt, NULL, &b);
	}
	if (pt)
		ts_tree_delete(pt);
	return judged(out, a, b, ra, rb, post, post_len);
}

/* Reads a side with `plan` (its tree given, or parsed against `old`): a new side. */
static struct a1_lang_side *plan_read(a1_lang_extract_fn fn, void *ctx, const char *text, size_t len,
				      struct a1_lang_plan *plan, TSTree *old, TSTree **keep)
{
	struct a1_lang_side *s = xcalloc(1, sizeof *s);
	fn(text, len, s, old, keep, ctx, plan);
	for (size_t i = 0; i < s->nfuncs && !s->partial; i++)
		s->partial = s->funcs[i].lazy;
	return s;
}

/* The side of `plan` (decided) walked: the survey's side *survey (taken) with the needed
 * units' functions walked in place of its lazy ones, or, when the plan walks everything, a
 * side read whole. */
static struct a1_lang_side *plan_walk(a1_lang_extract_fn fn, void *ctx, const char *text, size_t len,
				      struct a1_lang_plan *plan, struct a1_lang_side **survey)
{
	plan->next = 0;
	for (size_t i = 0; i < plan->n; i++)
		plan->u[i].read = 0;
	struct a1_lang_side *r = plan_read(fn, ctx, text, len, plan, NULL, NULL);
	for (size_t i = 0; i < plan->n && !plan->abort && !plan->all; i++)
		if (plan->u[i].need && !plan->u[i].read)
			plan->abort = 1;
	if (!plan->abort && plan->next != plan->n)
		plan->abort = 1;
	if (plan->abort && !plan->all) { /* never expected: the survey's units were not met again */
		side_free_heap(r);
		plan->all = 1;
		plan->abort = 0;
		plan->next = 0;
		r = plan_read(fn, ctx, text, len, plan, NULL, NULL);
	}
	if (plan->all)
		return r;
	struct a1_lang_side *s = *survey;
	*survey = NULL;
	s->partial = 0;
	for (size_t i = 0; i < plan->n; i++) {
		const struct a1_lang_unit *u = &plan->u[i];
		if (!u->need) {
			s->partial = 1;
			continue;
		}
		struct a1_lang_func t = s->funcs[u->sidx];
		s->funcs[u->sidx] = r->funcs[u->ridx];
		r->funcs[u->ridx] = t;
	}
	if (r->status) /* a walk refused the side (too deep) */
		a1_lang_side_status(s, r->status, "%s", r->why);
	side_free_heap(r);
	return s;
}

/* Both sides of a pair, not both whole in the cache, read lazily (a1_lang_judge): the trees
 * from the cache or parsed (the post side against the pre side's, edited), each side's units
 * surveyed, plan_decide's units walked; the sides read are stored (whole or partial, with
 * their trees). *a / *b: the cached facts or NULL in, the sides to compare out; *ra / *rb the
 * entries holding them; *pt / *qt the trees (the caller deletes them). */
static void read_lazily(const struct a1_cache_key *ka, const struct a1_cache_key *kb, a1_lang_extract_fn fn, void *ctx,
			const char *pre, size_t pre_len, const char *post, size_t post_len, struct a1_cache_ref **ra,
			struct a1_cache_ref **rb, const struct a1_lang_side **a_out, const struct a1_lang_side **b_out,
			TSTree **pt_io, TSTree **qt_io)
{
	const struct a1_lang_side *a = *a_out, *b = *b_out;
	TSTree *pt = *pt_io, *qt = *qt_io;
	struct a1_lang_side *na = NULL, *nb = NULL; /* sides read here */
	/* survey: both trees, their units, nothing walked */
	struct a1_lang_plan pa = {.tree = pt, .survey = 1}, pb = {.survey = 1};
	struct a1_lang_side *sa = plan_read(fn, ctx, pre, pre_len, &pa, NULL, pt ? NULL : &pt);
	TSInputEdit e;
	tsnode_edit_between(pre, pre_len, post, post_len, &e);
	TSTree *old = NULL;
	if (!qt && pt) {
		old = ts_tree_copy(pt);
		ts_tree_edit(old, &e);
	}
	pb.tree = qt;
	struct a1_lang_side *sb = plan_read(fn, ctx, post, post_len, &pb, old, qt ? NULL : &qt);
	if (old)
		ts_tree_delete(old);
	if (sa->status || sb->status) { /* refused: the survey's reading is the side's */
		if (!a || a->partial)
			a = na = sa, sa = NULL;
		if (!b || b->partial)
			b = nb = sb, sb = NULL;
	} else {
		int shallow = a && a->shallow;
		int all = plan_decide(&pa, pre, pre_len, &pb, post, post_len, &e, &shallow) < 0;
		pa.survey = pb.survey = 0;
		pa.all = pb.all = all;
		pa.tree = pt;
		pb.tree = qt;
		if (!a || a->partial) {
			a = na = plan_walk(fn, ctx, pre, pre_len, &pa, &sa);
			na->shallow = shallow;
		}
		if (!b || b->partial)
			b = nb = plan_walk(fn, ctx, post, post_len, &pb, &sb);
	}
	if (sa)
		side_free_heap(sa);
	if (sb)
		side_free_heap(sb);
	plan_free(&pa);
	plan_free(&pb);
	if (na) {
		a1_cache_release(*ra);
		*ra = a1_cache_put(na->status ? NULL : ka, na, side_free_heap, pt, pre_len);
	}
	if (nb) {
		a1_cache_release(*rb);
		*rb = a1_cache_put(nb->status ? NULL : kb, nb, side_free_heap, qt, post_len);
	}
	*a_out = a;
	*b_out = b;
	*pt_io = pt;
	*qt_io = qt;
}

cJSON *a1_lang_judge(const char *kind, const TSLanguage *lang, a1_lang_extract_fn fn, void *ctx, const char *pre,
		     size_t pre_len, const char *post, size_t post_len)
{
	if (a1_lang_eager() || !pre || !pre_len || !post || !post_len)
		return judge_eager(kind, lang, fn, ctx, pre, pre_len, post, post_len);
	struct a1_cache_key ka, kb;
	cJSON *out = judge_start(kind, lang, pre, pre_len, post, post_len, &ka, &kb);
	const void *fa = NULL, *fb = NULL;
	TSTree *pt = NULL, *qt = NULL;
	struct a1_cache_ref *ra = a1_cache_get(&ka, &fa, &pt, 1), *rb = a1_cache_get(&kb, &fb, &qt, 1);
	const struct a1_lang_side *a = fa, *b = fb;
	if (!a || !b || a->partial || b->partial)
		read_lazily(&ka, &kb, fn, ctx, pre, pre_len, post, post_len, &ra, &rb, &a, &b, &pt, &qt);
	if (pt)
		ts_tree_delete(pt);
	if (qt)
		ts_tree_delete(qt);
	return judged(out, a, b, ra, rb, post, post_len);
}

int a1_lang_count(a1_lang_extract_fn fn, void *ctx, const char *text, size_t len, int *tests, int *assertions)
{
	struct a1_lang_side s = {0};
	*tests = *assertions = 0;
	fn(text ? text : "", text ? len : 0, &s, NULL, NULL, ctx, NULL);
	int rc = s.status ? BELAY_EINVAL : 0;
	for (size_t i = 0; !rc && i < s.nfuncs; i++) {
		*tests += s.funcs[i].is_test;
		for (size_t j = 0; j < s.funcs[i].nfacts; j++)
			*assertions += !s.funcs[i].facts[j].soft;
	}
	a1_lang_side_free(&s);
	return rc;
}
