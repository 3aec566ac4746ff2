/* a1_js_facts.c - one side of a JavaScript / TypeScript test file reduced to the facts
 * a1_js.c compares (a1_js_facts.h): tree-sitter's syntax tree of the pinned grammar, then one
 * walk that finds the tests (test / it / specify / describe / context / suite calls in every
 * modifier spelling), the assertions in them with where they stand, the helper functions,
 * the `.only` sites and the mocked modules.
 *
 * Threads: any; each call has its own parser, tree and state.
 * Must not: recurse with the input's nesting (brackets nested deeper than A1_JS_MAX_DEPTH are
 * refused before tree-sitter sees them - Debian's runtime 0.20.7 frees memory twice when it
 * recovers from an error with ~65,535 open; the walk refuses a tree deeper than
 * WALK_MAX; canonical text and literal checks are loops), spend more than a work budget
 * proportional to the input, print, keep state between calls, leave anything allocated
 * behind. */
#include "assertions/a1_js_facts.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tree_sitter/api.h>

#include "assertions/tsnode.h"
#include "common/buf.h"
#include "common/jsonx.h"
#include "common/strmap.h"
#include "common/xalloc.h"

const TSLanguage *tree_sitter_javascript(void);
const TSLanguage *tree_sitter_typescript(void);
const TSLanguage *tree_sitter_tsx(void);

#define WALK_MAX (4 * A1_JS_MAX_DEPTH) /* tree levels: chains like a + b + ... nest without brackets */
#define MAX_STEPS 32		       /* calls and members in one assertion chain */
#define FORM_CAP (64u << 10)	       /* canonical text kept; a longer one ends in its hash */
/* A last resort against a pathological parse, not a budget of normal work: inputs are capped
 * at A1_JS_MAX_BYTES (about 1 s of parsing here) and nesting is refused before parsing, so a
 * verdict does not depend on how busy the machine is (a test under valgrind or beside CPU hogs
 * parses the same). */
#ifndef PARSE_MICROS
#define PARSE_MICROS 30000000ull
#endif

struct nameidx {
	char **key;
	unsigned *count;
	size_t cap, used;
};

struct ex {
	const char *src;
	size_t len;
	struct a1_js_side *s;
	struct buf cb;	 /* canonical text */
	struct buf path; /* the describe path */
	struct nameidx names;
	size_t budget; /* leaves and nodes the walk may still visit */
	int strict_assert; /* `assert` is node's strict assert here: assert.equal is strictEqual */
	struct tsnode_cursors cursors; /* walk_kids: one per depth; canon_text: its own */
	struct tsnode_cursors canon_cursor;
};

struct ctx {
	long test, func;   /* the enclosing test / helper (index), -1 for none */
	const char *param; /* the test callback's first parameter */
	uint32_t param_len;
	unsigned mods; /* from the enclosing describes */
	unsigned char dead, swallowed;
	unsigned depth;
};

/* ---- small things ---- */

static int text_in(const struct ex *x, TSNode n, const char *const *set)
{
	for (; *set; set++)
		if (tsnode_text_is(x->src, n, *set))
			return 1;
	return 0;
}

static int str_in(const char *s, const char *const *set)
{
	for (; *set; set++)
		if (!strcmp(s, *set))
			return 1;
	return 0;
}

static int is_fn(TSNode n)
{
	return tsnode_is(n, "arrow_function") || tsnode_is(n, "function_expression") || tsnode_is(n, "function") ||
	       tsnode_is(n, "generator_function");
}

/* Up to `max` named children of `n` that are not comments; returns how many there are. */
static size_t kids(TSNode n, TSNode *out, size_t max)
{
	size_t k = 0;
	if (ts_node_is_null(n))
		return 0;
	TSTreeCursor c = ts_tree_cursor_new(n);
	for (int more = ts_tree_cursor_goto_first_child(&c); more; more = ts_tree_cursor_goto_next_sibling(&c)) {
		TSNode ch = ts_tree_cursor_current_node(&c);
		if (!ts_node_is_named(ch) || tsnode_is(ch, "comment") || tsnode_is(ch, "html_comment"))
			continue;
		if (k < max)
			out[k] = ch;
		k++;
	}
	ts_tree_cursor_delete(&c);
	return k;
}

static unsigned line_of(TSNode n)
{
	return ts_node_start_point(n).row + 1;
}

void a1_js_side_refuse(struct a1_js_side *s, int status, unsigned line, unsigned col, const char *fmt, ...)
{
	if (s->status)
		return;
	char what[300];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(what, sizeof what, fmt, ap);
	va_end(ap);
	s->status = status;
	s->why = xasprintf("line %u, column %u: %s", line, col, what);
}

static void set_status_at(struct ex *x, int status, TSNode n, const char *what)
{
	TSPoint p = ts_node_start_point(n);
	a1_js_side_refuse(x->s, status, p.row + 1, p.column + 1, "%s", what);
}

/* Spends `n` of the work budget; 0 once it is gone (the side is then undecidable). */
static int spend(struct ex *x, size_t n, TSNode at)
{
	if (x->s->status)
		return 0;
	if (x->budget < n) {
		x->budget = 0;
		set_status_at(x, A1_JS_UNDECIDABLE, at, "over the work budget");
		return 0;
	}
	x->budget -= n;
	return 1;
}

/* ---- canonical text ---- */

enum { C_P, C_W, C_O };

static int cls(unsigned char ch)
{
	if ((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') || ch == '_' ||
	    ch == '$' || ch >= 0x80)
		return C_W;
	if (ch && strchr("+-*/%=<>!&|^~?:", ch))
		return C_O;
	return C_P;
}

struct canon {
	int last;      /* class of the last byte written, -1 at the start */
	int lastlit;   /* the last leaf was string content */
	int comma;     /* a comma waits: dropped before a closing bracket */
	uint64_t hash; /* FNV-1a of everything, kept or not */
	size_t total;
};

static void canon_put(struct ex *x, struct canon *st, const char *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		st->hash = (st->hash ^ (unsigned char)p[i]) * 1099511628211ull;
	st->total += n;
	if (x->cb.len < FORM_CAP) {
		size_t room = FORM_CAP - x->cb.len;
		buf_append(&x->cb, p, n < room ? n : room);
	}
}

static void canon_leaf(struct ex *x, struct canon *st, TSNode k)
{
	uint32_t a = ts_node_start_byte(k), b = ts_node_end_byte(k);
	if (a >= b)
		return;
	const char *ty = ts_node_type(k);
	if (!strcmp(ty, "comment") || !strcmp(ty, "html_comment"))
		return;
	const char *p = x->src + a;
	size_t n = b - a;
	if (n == 1 && *p == ';')
		return;
	if (n == 1 && *p == ',') {
		st->comma = 1;
		return;
	}
	int lit = !strcmp(ty, "string_fragment") || !strcmp(ty, "escape_sequence") || !strcmp(ty, "jsx_text") ||
		  !strcmp(ty, "regex_pattern");
	if (!strcmp(ty, "'"))
		p = "\"";
	if (st->comma) {
		st->comma = 0;
		if (!(n == 1 && strchr(")]}", *p))) {
			canon_put(x, st, ",", 1);
			st->last = C_P;
		}
	}
	int c = cls((unsigned char)p[0]);
	if (!lit && !st->lastlit && st->last >= 0 && st->last == c && c != C_P)
		canon_put(x, st, " ", 1);
	canon_put(x, st, p, n);
	st->last = cls((unsigned char)p[n - 1]);
	st->lastlit = lit;
}

/* The canonical text of `n` in x->cb (a C string); `inner` drops the first and last leaf
 * (the parentheses of an argument list). */
static const char *canon_text(struct ex *x, TSNode n, int inner)
{
	buf_reset(&x->cb);
	buf_cstr(&x->cb);
	struct canon st = {.last = -1, .hash = 1469598103934665603ull};
	TSTreeCursor *c = tsnode_cursor(&x->canon_cursor, 0, n);
	uint32_t first = 0, last = 0;
	if (inner) {
		uint32_t k = ts_node_child_count(n);
		if (k >= 2) {
			first = ts_node_end_byte(ts_node_child(n, 0));
			last = ts_node_start_byte(ts_node_child(n, k - 1));
		}
	}
	size_t visited = 0;
	for (;;) {
		visited++;
		if (ts_tree_cursor_goto_first_child(c))
			continue; /* a node with (visible) children: its leaves follow */
		TSNode k = ts_tree_cursor_current_node(c);
		if (!inner || (ts_node_start_byte(k) >= first && ts_node_end_byte(k) <= last))
			canon_leaf(x, &st, k);
		while (!ts_tree_cursor_goto_next_sibling(c))
			if (!ts_tree_cursor_goto_parent(c))
				goto done;
	}
done:
	spend(x, visited, n);
	if (st.total > FORM_CAP)
		buf_printf(&x->cb, "...#%016llx", (unsigned long long)st.hash);
	return buf_cstr(&x->cb);
}

static char *canon(struct ex *x, TSNode n, int inner)
{
	return xstrdup(canon_text(x, n, inner));
}

/* ---- literals and conditions ---- */

/* 1 when the expression is made of literals only (its value is fixed). */
/* A node that makes an expression more than a literal: named, not of the literal kinds, and
 * not undefined / NaN / Infinity. ctx: the struct ex. */
static int not_literal(TSNode k, void *ctx)
{
	static const char *const ok[] = {"number",
					 "string",
					 "string_fragment",
					 "escape_sequence",
					 "template_string",
					 "true",
					 "false",
					 "null",
					 "undefined",
					 "unary_expression",
					 "parenthesized_expression",
					 "array",
					 "object",
					 "pair",
					 "property_identifier",
					 "regex",
					 "regex_pattern",
					 "regex_flags",
					 "comment",
					 NULL};
	static const char *const consts[] = {"undefined", "NaN", "Infinity", NULL};
	struct ex *x = ctx;
	return ts_node_is_named(k) && !str_in(ts_node_type(k), ok) && !(tsnode_is(k, "identifier") && text_in(x, k, consts));
}

static int literal(struct ex *x, TSNode n)
{
	if (ts_node_is_null(n))
		return 0;
	size_t visited;
	int r = !tsnode_any(n, not_literal, x, &visited);
	spend(x, visited, n);
	return r;
}

/* 1 when the expression written twice is the same check whatever it evaluates to: calls are
 * allowed (`expect(f(1)).toBe(f(1))` checks nothing about f, as weakening.py says too); what
 * changes state between the two evaluations (await, yield, assignments, ++) is not. */
static int changes_state(TSNode k, void *ctx)
{
	(void)ctx;
	static const char *const bad[] = {"await_expression",	   "yield_expression", "assignment_expression",
					  "augmented_assignment_expression", "update_expression", NULL};
	return str_in(ts_node_type(k), bad);
}

static int pure(struct ex *x, TSNode n)
{
	size_t visited;
	int r = !tsnode_any(n, changes_state, NULL, &visited);
	spend(x, visited, n);
	return r;
}

/* A condition's value when it is a literal: 1 truthy, 0 falsy, -1 not known. */
static int cond_value(const struct ex *x, TSNode n)
{
	for (int i = 0; i < 64 && !ts_node_is_null(n); i++) {
		if (tsnode_is(n, "parenthesized_expression")) {
			TSNode k;
			if (kids(n, &k, 1) != 1)
				return -1;
			n = k;
			continue;
		}
		if (tsnode_is(n, "true"))
			return 1;
		if (tsnode_is(n, "false") || tsnode_is(n, "null") || tsnode_is(n, "undefined"))
			return 0;
		if (tsnode_is(n, "identifier"))
			return tsnode_text_is(x->src, n, "undefined") || tsnode_text_is(x->src, n, "NaN") ? 0 : -1;
		if (tsnode_is(n, "number")) {
			const char *p = x->src + ts_node_start_byte(n);
			size_t k = tsnode_len(n), j = 0;
			int hex = k > 2 && p[0] == '0' && (p[1] == 'x' || p[1] == 'X');
			for (j = hex ? 2 : 0; j < k; j++) {
				char ch = p[j];
				if (!hex && (ch == 'e' || ch == 'E'))
					break;
				if ((ch >= '1' && ch <= '9') ||
				    (hex && ((ch >= 'a' && ch <= 'f') || (ch >= 'A' && ch <= 'F'))))
					return 1;
			}
			return 0;
		}
		if (tsnode_is(n, "string") || tsnode_is(n, "template_string")) {
			TSNode k[1];
			if (tsnode_is(n, "template_string")) {
				TSNode sub[64];
				size_t m = kids(n, sub, 64);
				for (size_t j = 0; j < m && j < 64; j++)
					if (tsnode_is(sub[j], "template_substitution"))
						return -1;
			}
			return kids(n, k, 1) ? 1 : 0;
		}
		if (tsnode_is(n, "array") || tsnode_is(n, "object") || is_fn(n) || tsnode_is(n, "regex"))
			return 1;
		if (tsnode_is(n, "unary_expression")) {
			TSNode op = tsnode_field(n, "operator"), arg = tsnode_field(n, "argument");
			if (tsnode_text_is(x->src, op, "void"))
				return 0;
			if (!tsnode_text_is(x->src, op, "!"))
				return -1;
			int v = cond_value(x, arg);
			return v < 0 ? -1 : !v;
		}
		return -1;
	}
	return -1;
}

/* ---- the side's records ---- */

static void *grow(void *p, size_t *cap, size_t n, size_t size)
{
	return xgrow_zeroed(p, cap, n, size, 8);
}

static void names_add(struct a1_js_names *l, const char *s, size_t n)
{
	l->v = grow(l->v, &l->cap, l->n, sizeof *l->v);
	l->v[l->n++] = xstrndup(s, n);
}

/* How many times `name` was seen before (then counts it). */
static unsigned name_seen(struct nameidx *t, const char *name)
{
	if ((t->used + 1) * 2 > t->cap) {
		size_t ocap = t->cap;
		char **ok = t->key;
		unsigned *oc = t->count;
		t->cap = ocap ? ocap * 2 : 64;
		t->key = xcalloc(t->cap, sizeof *t->key);
		t->count = xcalloc(t->cap, sizeof *t->count);
		for (size_t i = 0; i < ocap; i++)
			if (ok[i]) {
				size_t j = strmap_hash(ok[i]) & (t->cap - 1);
				while (t->key[j])
					j = (j + 1) & (t->cap - 1);
				t->key[j] = ok[i];
				t->count[j] = oc[i];
			}
		free(ok);
		free(oc);
	}
	size_t j = strmap_hash(name) & (t->cap - 1);
	while (t->key[j] && strcmp(t->key[j], name))
		j = (j + 1) & (t->cap - 1);
	if (!t->key[j]) {
		t->key[j] = xstrdup(name);
		t->used++;
	}
	return t->count[j]++;
}

static struct a1_js_facts *facts_of(struct ex *x, const struct ctx *c)
{
	if (c->test >= 0)
		return &x->s->tests[c->test].facts;
	if (c->func >= 0)
		return &x->s->funcs[c->func].facts;
	return NULL;
}

static struct a1_js_names *calls_of(struct ex *x, const struct ctx *c)
{
	if (c->test >= 0)
		return &x->s->tests[c->test].calls;
	if (c->func >= 0)
		return &x->s->funcs[c->func].calls;
	return NULL;
}

static void site_add(struct a1_js_site **v, size_t *n, size_t *cap, const char *name, const char *text, unsigned line)
{
	*v = grow(*v, cap, *n, sizeof **v);
	(*v)[*n] = (struct a1_js_site){xstrdup(name), xstrdup(text), line};
	(*n)++;
}

/* ---- assertion chains ---- */

struct chain {
	unsigned kind;
	TSNode node;	     /* the assertion (without a .then / .catch after it) */
	TSNode S[MAX_STEPS]; /* its calls and members, inner to outer (after the base) */
	size_t m;
	size_t mstart;	   /* expect-like: the first step of the matcher */
	TSNode subject;	   /* null for none */
	TSNode mcall;	   /* the call whose arguments are the expected values (null: none) */
	const char *name;  /* assert-like and t: the matcher's name (NULL: take it from mname) */
	TSNode mname;	   /* its property node */
	int strict;	   /* assert.strict.X */
	int expect_like;   /* the matcher is the chain after the subject */
	TSNode catch_call; /* .catch(handler) after it (null: none) */
	TSNode after[4];   /* .then / .catch / .finally calls after it, their arguments walked */
	size_t nafter;
};

static const char *const CHAI_PROPS[] = {
    "ok",	    "true",	  "false",    "null",	   "undefined", "NaN",	  "exist",	"empty",
    "finite",	    "extensible", "sealed",   "frozen",	   "arguments", "called", "calledOnce", "calledTwice",
    "calledThrice", "notCalled",  "rejected", "fulfilled", "resolved",	NULL};

static const char *const T_ASSERTS[] = {"is",
					"not",
					"deepEqual",
					"notDeepEqual",
					"true",
					"false",
					"truthy",
					"falsy",
					"pass",
					"fail",
					"throws",
					"throwsAsync",
					"notThrows",
					"notThrowsAsync",
					"regex",
					"notRegex",
					"like",
					"snapshot",
					"assert",
					"equal",
					"notEqual",
					"ok",
					"notOk",
					"same",
					"notSame",
					"strictSame",
					"notStrictSame",
					"match",
					"notMatch",
					"strictEqual",
					"notStrictEqual",
					"deepStrictEqual",
					"notDeepStrictEqual",
					"error",
					"resolves",
					"rejects",
					"resolveMatch",
					"has",
					"hasStrict",
					"matchSnapshot",
					"equals",
					"doesNotThrow",
					"expect",
					NULL};

static TSNode null_node(void)
{
	TSNode n;
	memset(&n, 0, sizeof n);
	return n;
}

static TSNode first_arg(TSNode call)
{
	TSNode a[1];
	if (kids(tsnode_field(call, "arguments"), a, 1))
		return a[0];
	return null_node();
}

static int is_param(const struct ex *x, const struct ctx *c, TSNode n)
{
	if (!tsnode_is(n, "identifier"))
		return 0;
	if (c->param && tsnode_len(n) == c->param_len && !memcmp(x->src + ts_node_start_byte(n), c->param, c->param_len))
		return 1;
	return tsnode_text_is(x->src, n, "t");
}

/* Reads `n` (a call or member expression) as an assertion chain, without recording. */
static int chain(const struct ex *x, TSNode n, const struct ctx *c, struct chain *ch)
{
	TSNode st[MAX_STEPS + 1];
	size_t ns = 0;
	TSNode cur = n;
	memset(ch, 0, sizeof *ch);
	while (tsnode_is(cur, "call_expression") || tsnode_is(cur, "member_expression")) {
		if (ns == MAX_STEPS)
			return 0;
		st[ns++] = cur;
		cur = tsnode_is(cur, "call_expression") ? tsnode_field(cur, "function") : tsnode_field(cur, "object");
		if (ts_node_is_null(cur))
			return 0;
	}
	TSNode base = cur;
	/* .then / .catch / .finally after the assertion: not part of it */
	size_t top = 0;
	while (ns - top >= 3 && tsnode_is(st[top], "call_expression") && tsnode_is(st[top + 1], "member_expression") &&
	       text_in(x, tsnode_field(st[top + 1], "property"), (const char *const[]){"then", "catch", "finally", NULL}) &&
	       ch->nafter < 4) {
		if (tsnode_text_is(x->src, tsnode_field(st[top + 1], "property"), "catch") && ts_node_is_null(ch->catch_call))
			ch->catch_call = st[top];
		ch->after[ch->nafter++] = st[top];
		top += 2;
	}
	ch->node = top < ns ? st[top] : n;
	ch->m = ns - top;
	for (size_t i = 0; i < ch->m; i++)
		ch->S[i] = st[ns - 1 - i];
	TSNode *S = ch->S;
	size_t m = ch->m, i = 0;
#define MEMBER(k, name) ((k) < m && tsnode_is(S[k], "member_expression") && tsnode_text_is(x->src, tsnode_field(S[k], "property"), name))
#define CALL(k) ((k) < m && tsnode_is(S[k], "call_expression"))
	int b_expect = tsnode_text_is(x->src, base, "expect"), b_assert = tsnode_text_is(x->src, base, "assert"), b_should = 0;
	if (tsnode_is(base, "identifier") && tsnode_text_is(x->src, base, "chai")) {
		if (MEMBER(0, "expect"))
			b_expect = 1, i = 1;
		else if (MEMBER(0, "assert"))
			b_assert = 1, i = 1;
	} else if (tsnode_is(base, "identifier") && tsnode_text_is(x->src, base, "sinon") && MEMBER(0, "assert")) {
		b_assert = 1, i = 1;
	} else if (tsnode_text_is(x->src, base, "should")) {
		b_should = 1;
	}
	if (!tsnode_is(base, "identifier"))
		b_expect = b_assert = 0;
	if (b_expect) {
		if (MEMBER(i, "soft") || MEMBER(i, "poll"))
			i++;
		if ((MEMBER(i, "assertions") || MEMBER(i, "hasAssertions")) && CALL(i + 1) && i + 2 == m) {
			ch->kind = A1_JS_K_COUNT;
			ch->mname = tsnode_field(S[i], "property");
			ch->mcall = S[i + 1];
			ch->subject = null_node();
			return 1;
		}
		if (!CALL(i))
			return 0;
		ch->subject = first_arg(S[i]);
		i++;
		goto matcher;
	}
	if (b_assert || b_should) {
		ch->kind = A1_JS_K_ASSERT;
		if (b_assert && i == 0 && m == 1 && CALL(0)) {
			ch->name = "assert";
			ch->mcall = S[0];
		} else if (i + 2 == m && tsnode_is(S[i], "member_expression") && CALL(i + 1)) {
			ch->mname = tsnode_field(S[i], "property");
			ch->mcall = S[i + 1];
			ch->strict = b_assert && i == 0 && x->strict_assert; /* node's strict assert, imported so */
		} else if (b_assert && i + 3 == m && MEMBER(i, "strict") && tsnode_is(S[i + 1], "member_expression") &&
			   CALL(i + 2)) {
			ch->mname = tsnode_field(S[i + 1], "property");
			ch->mcall = S[i + 2];
			ch->strict = 1;
		} else {
			return 0;
		}
		ch->subject = first_arg(ch->mcall);
		return 1;
	}
	if (is_param(x, c, base) && m >= 2 && tsnode_is(S[0], "member_expression")) {
		ch->kind = A1_JS_K_T;
		if (MEMBER(0, "assert") && m == 3 && tsnode_is(S[1], "member_expression") && CALL(2)) {
			ch->mname = tsnode_field(S[1], "property");
			ch->mcall = S[2];
		} else if (m == 2 && CALL(1) && text_in(x, tsnode_field(S[0], "property"), T_ASSERTS)) {
			ch->mname = tsnode_field(S[0], "property");
			ch->mcall = S[1];
		} else if (m == 2 && CALL(1) && MEMBER(0, "plan")) {
			ch->kind = A1_JS_K_COUNT;
			ch->mname = tsnode_field(S[0], "property");
			ch->mcall = S[1];
			ch->subject = null_node();
			return 1;
		} else {
			return 0;
		}
		ch->subject = first_arg(ch->mcall);
		return 1;
	}
	/* x.should.equal(y) */
	for (i = 0; i < m; i++)
		if (MEMBER(i, "should"))
			break;
	if (i == m)
		return 0;
	ch->subject = tsnode_field(S[i], "object");
	i++;
matcher:
	if (i >= m)
		return 0;
	ch->kind = A1_JS_K_EXPECT;
	ch->expect_like = 1;
	ch->mstart = i;
	if (CALL(m - 1)) {
		if (m - 1 <= i || !tsnode_is(S[m - 2], "member_expression"))
			return 0;
		ch->mcall = S[m - 1];
		return 1;
	}
	if (!text_in(x, tsnode_field(S[m - 1], "property"), CHAI_PROPS))
		return 0;
	ch->mcall = null_node();
	return 1;
#undef MEMBER
#undef CALL
}

/* assert.strict.X is the strict X. */
static const char *strict_name(const char *x)
{
	static const char *const map[][2] = {{"equal", "strictEqual"},
					     {"deepEqual", "deepStrictEqual"},
					     {"notEqual", "notStrictEqual"},
					     {"notDeepEqual", "notDeepStrictEqual"}};
	for (size_t i = 0; i < sizeof map / sizeof *map; i++)
		if (!strcmp(x, map[i][0]))
			return map[i][1];
	return x;
}

/* Matchers of one value: what follows the subject is a message, not an expected value. */
static const char *const ONE_ARG[] = {"assert",	   "ok",	  "notOk",     "true",	 "false",     "truthy",
				      "falsy",	   "isOk",	  "isNotOk",   "isTrue", "isFalse",   "isNull",
				      "isNotNull", "isUndefined", "isDefined", "exists", "notExists", "ifError",
				      "error",	   "pass",	  "fail",      "exist",	 NULL};

static const char *const EQ_FAMILY[] = {"toBe",	      "toEqual", "toStrictEqual", "equal",	   "equals",
					"eq",	      "eql",	 "strictEqual",	  "deepEqual",	   "deepStrictEqual",
					"is",	      "same",	 "strictSame",	  "toMatchObject", "like",
					"deepEquals", NULL};

/* The last component of a matcher ("to.be.equal" -> "equal"), into out. */
static void last_component(const char *m, char *out, size_t cap)
{
	const char *p = strrchr(m, '.');
	p = p ? p + 1 : m;
	snprintf(out, cap, "%s", p);
}

static int negated(const char *m)
{
	int k = 0;
	for (const char *p = m; (p = strstr(p, "not")); p += 3)
		if ((p == m || p[-1] == '.') && (p[3] == '.' || !p[3]))
			k++;
	return k & 1;
}

/* Through parentheses. */
static TSNode unparen(TSNode n)
{
	for (int i = 0; i < 64 && tsnode_is(n, "parenthesized_expression"); i++) {
		TSNode k;
		if (kids(n, &k, 1) != 1)
			break;
		n = k;
	}
	return n;
}

/* The operator of a binary expression ("" when it is none). */
static const char *binary_op(TSNode n)
{
	if (!tsnode_is(n, "binary_expression"))
		return "";
	TSNode op = tsnode_field(n, "operator");
	return ts_node_is_null(op) ? "" : ts_node_type(op);
}

/* The comparison a boolean asserted true is (`x >= 0`, `x === 3`, `0 < x`: its operands, the
 * literal one second, the operator turned to match), or the first comparison of a disjunction
 * (`x === 3 || x === 4`: op "||"). 0: none. */
static int comparison_of(struct ex *x, TSNode n, TSNode *S, TSNode *E, const char **op, int depth)
{
	static const char *const cmp[] = {">=", ">", "<=", "<", "==", "===", "!=", "!==", NULL};
	static const char *const flip[][2] = {{">=", "<="}, {"<=", ">="}, {">", "<"}, {"<", ">"}};
	n = unparen(n);
	const char *o = binary_op(n);
	if (depth < 32 && !strcmp(o, "||")) {
		const char *inner;
		if (comparison_of(x, tsnode_field(n, "left"), S, E, &inner, depth + 1) ||
		    comparison_of(x, tsnode_field(n, "right"), S, E, &inner, depth + 1)) {
			*op = "||";
			return 1;
		}
		return 0;
	}
	if (!str_in(o, cmp))
		return 0;
	*S = tsnode_field(n, "left");
	*E = tsnode_field(n, "right");
	*op = o;
	if (literal(x, *S) && !literal(x, *E)) {
		TSNode t = *S;
		*S = *E;
		*E = t;
		for (size_t i = 0; i < sizeof flip / sizeof *flip; i++)
			if (!strcmp(o, flip[i][0]))
				*op = flip[i][1];
	}
	return !ts_node_is_null(*S) && !ts_node_is_null(*E);
}

/* A boolean comparison asserted true (`expect(x >= 0).toBe(true)`, `assert.ok(x >= 0)`,
 * `t.true(x >= 0)`) is read as that comparison: subject x, matcher ">=", expected 0 - the
 * judge then compares it with an exact check of x as it compares matchers. */
static void read_boolean_comparison(struct ex *x, TSNode subject, struct a1_js_fact *f)
{
	static const char *const truthy[] = {"toBeTruthy", "toBeTrue", "ok",   "assert", "true",
					     "isTrue",	   "truthy",   "isOk", NULL};
	char last[64];
	last_component(f->matcher, last, sizeof last);
	if (negated(f->matcher) || f->kind == A1_JS_K_COUNT || ts_node_is_null(subject))
		return;
	if (!str_in(last, truthy) && !(str_in(last, EQ_FAMILY) && f->exp1 && !strcmp(f->exp1, "true")))
		return;
	TSNode S, E;
	const char *op;
	if (!comparison_of(x, subject, &S, &E, &op, 0))
		return;
	free(f->subject);
	free(f->matcher);
	free(f->expected);
	free(f->exp1);
	f->subject = canon(x, S, 0);
	f->matcher = xstrdup(op);
	f->expected = canon(x, E, 0);
	f->exp1 = xstrdup(f->expected);
}

/* Records the assertion `ch` as a fact of the enclosing test or helper. */
static void record(struct ex *x, struct chain *ch, const struct ctx *c)
{
	struct a1_js_facts *l = facts_of(x, c);
	if (!l)
		return;
	struct a1_js_fact f = {0};
	f.kind = ch->kind;
	f.form = canon(x, ch->node, 0);
	f.line = line_of(ch->node);
	f.dead = c->dead;
	f.swallowed = c->swallowed;
	f.digits = -1;
	if (!ts_node_is_null(ch->subject))
		f.subject = canon(x, ch->subject, 0);
	struct buf mb = {0};
	if (ch->kind == A1_JS_K_COUNT) {
		if (tsnode_text_is(x->src, ch->mname, "plan")) {
			buf_puts(&mb, "plan");
		} else {
			buf_puts(&mb, "expect.");
			buf_append(&mb, x->src + ts_node_start_byte(ch->mname), tsnode_len(ch->mname));
		}
		f.expected = canon(x, tsnode_field(ch->mcall, "arguments"), 1);
	} else if (ch->expect_like) {
		size_t end = ts_node_is_null(ch->mcall) ? ch->m : ch->m - 1;
		for (size_t k = ch->mstart; k < end; k++) {
			TSNode s = ch->S[k];
			if (tsnode_is(s, "member_expression")) {
				if (mb.len)
					buf_putc(&mb, '.');
				TSNode p = tsnode_field(s, "property");
				buf_append(&mb, x->src + ts_node_start_byte(p), tsnode_len(p));
			} else {
				buf_putc(&mb, '(');
				buf_puts(&mb, canon_text(x, tsnode_field(s, "arguments"), 1));
				buf_putc(&mb, ')');
			}
		}
		if (!ts_node_is_null(ch->mcall)) {
			TSNode args = tsnode_field(ch->mcall, "arguments"), a[2];
			size_t na = kids(args, a, 2);
			f.expected = canon(x, args, 1);
			if (na)
				f.exp1 = canon(x, a[0], 0);
			char last[64];
			last_component(buf_cstr(&mb), last, sizeof last);
			if (!strcmp(last, "toBeCloseTo")) {
				f.digits = 2;
				if (na >= 2)
					f.digits = tsnode_is(a[1], "number") ? atoi(x->src + ts_node_start_byte(a[1])) : -1;
			}
		}
	} else {
		if (ch->name)
			buf_puts(&mb, ch->name);
		else
			buf_append(&mb, x->src + ts_node_start_byte(ch->mname), tsnode_len(ch->mname));
		if (ch->strict) {
			char *s = xstrdup(strict_name(buf_cstr(&mb)));
			buf_reset(&mb);
			buf_puts(&mb, s);
			free(s);
		}
		TSNode args = tsnode_field(ch->mcall, "arguments"), a[2];
		size_t na = kids(args, a, 2);
		if (na >= 2 && !str_in(buf_cstr(&mb), ONE_ARG)) {
			f.expected = canon(x, a[1], 0);
			f.exp1 = xstrdup(f.expected);
		}
	}
	f.matcher = buf_take(&mb);
	if (!f.matcher)
		f.matcher = xstrdup("");
	/* tautologies */
	char last[64];
	last_component(f.matcher, last, sizeof last);
	if (f.kind != A1_JS_K_COUNT) {
		if (!strcmp(last, "pass") && f.kind != A1_JS_K_EXPECT)
			f.taut = 1;
		else if (f.subject && strcmp(last, "fail") && literal(x, ch->subject))
			f.taut = 1;
		else if (f.subject && f.exp1 && str_in(last, EQ_FAMILY) && !negated(f.matcher) &&
			 !strcmp(f.subject, f.exp1) && pure(x, ch->subject))
			f.taut = 1;
		if (!f.taut)
			read_boolean_comparison(x, ch->subject, &f);
	}
	l->v = grow(l->v, &l->cap, l->n, sizeof *l->v);
	l->v[l->n++] = f;
}

/* ---- what a catch does with a failure ---- */

static int is_assertion(const struct ex *x, TSNode n, const struct ctx *c)
{
	struct chain ch;
	return (tsnode_is(n, "call_expression") || tsnode_is(n, "member_expression")) && chain(x, n, c, &ch);
}

/* 1 when the handler (a catch clause's body, a .catch callback) passes failures on: it
 * throws, asserts, or calls fail / done / reject / x.fail. */
struct pass_ctx {
	struct ex *x;
	const struct ctx *c;
};

static int passes(TSNode k, void *ctx)
{
	static const char *const passers[] = {"fail", "done", "reject", "next", NULL};
	struct pass_ctx *p = ctx;
	if (tsnode_is(k, "throw_statement") || is_assertion(p->x, k, p->c))
		return 1;
	if (tsnode_is(k, "call_expression")) {
		TSNode f = tsnode_field(k, "function");
		if ((tsnode_is(f, "identifier") && text_in(p->x, f, passers)) ||
		    (tsnode_is(f, "member_expression") && text_in(p->x, tsnode_field(f, "property"), passers)))
			return 1;
	}
	return 0;
}

static int passes_on(struct ex *x, TSNode body, const struct ctx *c)
{
	if (ts_node_is_null(body))
		return 0;
	struct pass_ctx pc = {x, c};
	size_t visited;
	int r = tsnode_any(body, passes, &pc, &visited);
	spend(x, visited, body);
	return r;
}

/* ---- tests and describes ---- */

static void walk(struct ex *x, TSNode n, struct ctx c);

static void first_param(const struct ex *x, TSNode fn, struct ctx *c)
{
	(void)x;
	c->param = NULL;
	c->param_len = 0;
	TSNode p = tsnode_field(fn, "parameter");
	if (ts_node_is_null(p)) {
		TSNode ps[1];
		if (!kids(tsnode_field(fn, "parameters"), ps, 1))
			return;
		p = ps[0];
		if (tsnode_is(p, "required_parameter") || tsnode_is(p, "optional_parameter"))
			p = tsnode_field(p, "pattern");
		else if (tsnode_is(p, "assignment_pattern"))
			p = tsnode_field(p, "left");
	}
	if (tsnode_is(p, "identifier")) {
		c->param = x->src + ts_node_start_byte(p);
		c->param_len = tsnode_len(p);
	}
}

/* The modifiers an options object sets ({skip: true}, {todo: 'why'}, {only: true}). */
static unsigned options(const struct ex *x, TSNode obj)
{
	unsigned mods = 0;
	TSNode pairs[32];
	size_t k = kids(obj, pairs, 32);
	for (size_t i = 0; i < k && i < 32; i++) {
		if (!tsnode_is(pairs[i], "pair"))
			continue;
		TSNode key = tsnode_field(pairs[i], "key"), v = tsnode_field(pairs[i], "value");
		if (tsnode_is(key, "string")) {
			TSNode s[1];
			if (kids(key, s, 1) != 1)
				continue;
			key = s[0];
		}
		if (cond_value(x, v) == 0)
			continue;
		if (tsnode_text_is(x->src, key, "skip"))
			mods |= A1_JS_SKIP;
		else if (tsnode_text_is(x->src, key, "todo"))
			mods |= A1_JS_TODO;
		else if (tsnode_text_is(x->src, key, "only"))
			mods |= A1_JS_ONLY;
		else if (tsnode_text_is(x->src, key, "fails") || tsnode_text_is(x->src, key, "failing"))
			mods |= A1_JS_FAILING;
	}
	return mods;
}

/* A test's or describe's name: a string's contents, else the canonical text. */
static char *name_of(struct ex *x, TSNode n)
{
	if ((tsnode_is(n, "string") || tsnode_is(n, "template_string")) && tsnode_len(n) >= 2)
		return xstrndup(x->src + ts_node_start_byte(n) + 1, tsnode_len(n) - 2);
	return canon(x, n, 0);
}

/* test(...) / it.skip(...) / describe.each(t)(...) / t.test(...): recorded and walked. */
static int test_call(struct ex *x, TSNode n, const struct ctx *c)
{
	TSNode callee = tsnode_field(n, "function"), args = tsnode_field(n, "arguments");
	if (!tsnode_is(args, "arguments"))
		return 0;
	unsigned mods = 0;
	int describe = -1, subtest = 0;
	TSNode cur = callee;
	for (int i = 0;; i++) {
		if (i > 16)
			return 0;
		if (tsnode_is(cur, "call_expression")) {
			TSNode f = tsnode_field(cur, "function");
			if (!tsnode_is(f, "member_expression"))
				return 0;
			TSNode prop = tsnode_field(f, "property");
			if (tsnode_text_is(x->src, prop, "skipIf") || tsnode_text_is(x->src, prop, "runIf")) {
				int v = cond_value(x, first_arg(cur)), skip_when = tsnode_text_is(x->src, prop, "skipIf");
				if (v < 0)
					mods |= A1_JS_SKIPQ;
				else if (v == skip_when)
					mods |= A1_JS_SKIP;
			} else if (!tsnode_text_is(x->src, prop, "each")) {
				return 0;
			}
			cur = tsnode_field(f, "object");
			continue;
		}
		if (tsnode_is(cur, "member_expression")) {
			TSNode prop = tsnode_field(cur, "property"), obj = tsnode_field(cur, "object");
			if (tsnode_text_is(x->src, prop, "test") && c->test >= 0 && is_param(x, c, obj)) {
				subtest = 1;
				describe = 0;
				break;
			}
			if (tsnode_text_is(x->src, prop, "skip") || tsnode_text_is(x->src, prop, "fixme"))
				mods |= A1_JS_SKIP;
			else if (tsnode_text_is(x->src, prop, "only"))
				mods |= A1_JS_ONLY;
			else if (tsnode_text_is(x->src, prop, "todo"))
				mods |= A1_JS_TODO;
			else if (tsnode_text_is(x->src, prop, "failing") || tsnode_text_is(x->src, prop, "fails") || tsnode_text_is(x->src, prop, "fail"))
				mods |= A1_JS_FAILING;
			else if (tsnode_text_is(x->src, prop, "describe"))
				describe = 1;
			else if (!text_in(x, prop,
					  (const char *const[]){"concurrent", "sequential", "serial", "parallel", "cb",
								"shuffle", NULL}))
				return 0;
			cur = obj;
			continue;
		}
		if (!tsnode_is(cur, "identifier"))
			return 0;
		static const char *const tests[] = {"test", "it", "specify", NULL};
		static const char *const describes[] = {"describe", "context", "suite", NULL};
		int d;
		if (text_in(x, cur, tests))
			d = 0;
		else if (text_in(x, cur, describes))
			d = 1;
		else if (text_in(x, cur, (const char *const[]){"xit", "xtest", "xspecify", NULL}))
			d = 0, mods |= A1_JS_SKIP;
		else if (text_in(x, cur, (const char *const[]){"xdescribe", "xcontext", "xsuite", NULL}))
			d = 1, mods |= A1_JS_SKIP;
		else if (text_in(x, cur, (const char *const[]){"fit", "ftest", "fspecify", NULL}))
			d = 0, mods |= A1_JS_ONLY;
		else if (text_in(x, cur, (const char *const[]){"fdescribe", "fcontext", NULL}))
			d = 1, mods |= A1_JS_ONLY;
		else
			return 0;
		if (describe < 0)
			describe = d;
		break;
	}
	TSNode av[16];
	size_t na = kids(args, av, 16);
	if (na == 0 || na > 16 || is_fn(av[0]))
		return 0;
	TSNode fn = null_node(), ref = null_node();
	for (size_t i = 1; i < na; i++) {
		if (is_fn(av[i]))
			fn = av[i];
		else if (tsnode_is(av[i], "object"))
			mods |= options(x, av[i]);
		else if (tsnode_is(av[i], "identifier") || tsnode_is(av[i], "member_expression"))
			ref = av[i];
	}
	if (describe == 1) {
		if (ts_node_is_null(fn))
			return 0;
	} else if (ts_node_is_null(fn) && ts_node_is_null(ref)) {
		if (c->test >= 0 && !subtest)
			return 0; /* test.skip(cond) in a test: a skip call */
		if (!(mods & A1_JS_SKIP))
			mods |= A1_JS_TODO; /* it('name') with no callback: pending */
	}
	char *name = name_of(x, av[0]);
	size_t saved = x->path.len;
	char *full;
	if (subtest) {
		full = xasprintf("%s > %s", x->s->tests[c->test].name, name);
	} else {
		if (x->path.len)
			buf_puts(&x->path, " > ");
		buf_puts(&x->path, name);
		full = xstrdup(buf_cstr(&x->path));
	}
	free(name);
	if (mods & A1_JS_ONLY) {
		const char *callee_text = canon_text(x, callee, 0);
		site_add(&x->s->focus, &x->s->nfocus, &x->s->capfocus, full, callee_text, line_of(n));
	}
	struct ctx nc = *c;
	nc.depth++;
	nc.mods = c->mods | mods;
	if (describe == 1) {
		nc.test = -1;
		nc.func = -1;
		nc.dead = nc.swallowed = 0;
		TSNode body = tsnode_field(fn, "body");
		if (!ts_node_is_null(body))
			walk(x, body, nc);
	} else {
		unsigned seen = name_seen(&x->names, full);
		struct a1_js_side *s = x->s;
		s->tests = grow(s->tests, &s->captests, s->ntests, sizeof *s->tests);
		struct a1_js_test *t = &s->tests[s->ntests];
		t->name = seen ? xasprintf("%s #%u", full, seen + 1) : xstrdup(full);
		t->mods = nc.mods | (subtest ? s->tests[c->test].mods : 0);
		t->line = line_of(n);
		nc.test = (long)s->ntests++;
		nc.func = -1;
		nc.dead = nc.swallowed = 0;
		if (!ts_node_is_null(ref)) {
			TSNode r = tsnode_is(ref, "member_expression") ? tsnode_field(ref, "property") : ref;
			names_add(&t->calls, x->src + ts_node_start_byte(r), tsnode_len(r));
		}
		if (!ts_node_is_null(fn)) {
			first_param(x, fn, &nc);
			TSNode body = tsnode_field(fn, "body");
			if (!ts_node_is_null(body))
				walk(x, body, nc);
		}
	}
	free(full);
	x->path.len = saved;
	buf_cstr(&x->path);
	return 1;
}

/* beforeEach(fn) / afterEach / before / after / beforeAll / afterAll, also as test.X or
 * t.X (ava, node:test), outside tests: its assertions are recorded in the entry of that hook
 * kind in the enclosing describe (created on first sight, so that hooks split or merged stay
 * one entry), and walked with it. */
static int hook_call(struct ex *x, TSNode n, const struct ctx *c)
{
	static const char *const kinds[] = {"beforeEach", "afterEach", "before", "after", "beforeAll", "afterAll", NULL};
	if (c->test >= 0)
		return 0;
	TSNode callee = tsnode_field(n, "function"), args = tsnode_field(n, "arguments");
	if (tsnode_is(callee, "member_expression")) {
		TSNode obj = tsnode_field(callee, "object");
		if (!tsnode_is(obj, "identifier") || !text_in(x, obj, (const char *const[]){"test", "t", NULL}))
			return 0;
		callee = tsnode_field(callee, "property");
	} else if (!tsnode_is(callee, "identifier")) {
		return 0;
	}
	if (!text_in(x, callee, kinds) || !tsnode_is(args, "arguments"))
		return 0;
	TSNode av[4], fn = null_node();
	size_t na = kids(args, av, 4);
	for (size_t i = 0; i < na && i < 4 && ts_node_is_null(fn); i++)
		if (is_fn(av[i]))
			fn = av[i];
	if (ts_node_is_null(fn))
		return 0;
	char *kind = tsnode_text(x->src, callee);
	char *name = x->path.len ? xasprintf("%s > (%s hook)", buf_cstr(&x->path), kind) : xasprintf("(%s hook)", kind);
	free(kind);
	struct a1_js_side *s = x->s;
	long at = -1;
	for (size_t i = 0; i < s->ntests && at < 0; i++)
		if (s->tests[i].hook && !strcmp(s->tests[i].name, name))
			at = (long)i;
	if (at < 0) {
		s->tests = grow(s->tests, &s->captests, s->ntests, sizeof *s->tests);
		struct a1_js_test *t = &s->tests[s->ntests];
		t->name = name;
		t->mods = c->mods;
		t->line = line_of(n);
		t->hook = 1;
		at = (long)s->ntests++;
	} else {
		free(name);
	}
	struct ctx nc = *c;
	nc.depth++;
	nc.test = at;
	nc.func = -1;
	nc.dead = nc.swallowed = 0;
	first_param(x, fn, &nc);
	TSNode body = tsnode_field(fn, "body");
	if (!ts_node_is_null(body))
		walk(x, body, nc);
	return 1;
}

/* this.skip(), t.skip(), ctx.skip(), pending(), test.skip(cond), test.fixme(), test.fail(). */
static void skip_call(struct ex *x, TSNode n, const struct ctx *c)
{
	if (c->test < 0)
		return;
	TSNode f = tsnode_field(n, "function");
	unsigned mod = 0;
	if (tsnode_is(f, "identifier") && tsnode_text_is(x->src, f, "pending")) {
		mod = A1_JS_SKIP;
	} else if (tsnode_is(f, "member_expression")) {
		TSNode obj = tsnode_field(f, "object"), prop = tsnode_field(f, "property");
		int who = tsnode_is(obj, "this") || is_param(x, c, obj) ||
			  (tsnode_is(obj, "identifier") && text_in(x, obj, (const char *const[]){"ctx", "context", NULL}));
		int runner = tsnode_is(obj, "identifier") && text_in(x, obj, (const char *const[]){"test", "it", NULL});
		if ((who || runner) && tsnode_text_is(x->src, prop, "skip"))
			mod = A1_JS_SKIP;
		else if (who && tsnode_text_is(x->src, prop, "todo"))
			mod = A1_JS_TODO;
		else if (runner && tsnode_text_is(x->src, prop, "fixme"))
			mod = A1_JS_SKIP;
		else if (runner && tsnode_text_is(x->src, prop, "fail"))
			mod = A1_JS_FAILING;
	}
	x->s->tests[c->test].mods |= mod;
}

/* jest.mock('m'), vi.mock('m'), jest.doMock, vi.doMock, jest.unstable_mockModule. */
static void mock_call(struct ex *x, TSNode n)
{
	TSNode f = tsnode_field(n, "function");
	if (!tsnode_is(f, "member_expression"))
		return;
	TSNode obj = tsnode_field(f, "object"), prop = tsnode_field(f, "property");
	if (!tsnode_is(obj, "identifier") || !text_in(x, obj, (const char *const[]){"jest", "vi", NULL}) ||
	    !text_in(x, prop, (const char *const[]){"mock", "doMock", "unstable_mockModule", "setMock", NULL}))
		return;
	TSNode a = first_arg(n);
	if (!tsnode_is(a, "string") && !tsnode_is(a, "template_string"))
		return;
	char *spec = name_of(x, a);
	char *callee = canon(x, f, 0);
	char *text = xasprintf("%s(%s)", callee, canon_text(x, a, 0));
	site_add(&x->s->mocks, &x->s->nmocks, &x->s->capmocks, spec, text, line_of(n));
	free(spec);
	free(callee);
	free(text);
}

static void note_call(struct ex *x, TSNode n, const struct ctx *c)
{
	struct a1_js_names *l = calls_of(x, c);
	if (!l)
		return;
	TSNode f = tsnode_field(n, "function");
	if (tsnode_is(f, "member_expression"))
		f = tsnode_field(f, "property");
	if (tsnode_is(f, "identifier") || tsnode_is(f, "property_identifier"))
		names_add(l, x->src + ts_node_start_byte(f), tsnode_len(f));
}

/* A function defined outside tests: the node names it (or NULL). */
static TSNode defined_name(TSNode n)
{
	if (tsnode_is(n, "function_declaration") || tsnode_is(n, "generator_function_declaration") || tsnode_is(n, "method_definition"))
		return tsnode_field(n, "name");
	if (tsnode_is(n, "variable_declarator") && is_fn(tsnode_field(n, "value")) && tsnode_is(tsnode_field(n, "name"), "identifier"))
		return tsnode_field(n, "name");
	if (tsnode_is(n, "pair") && is_fn(tsnode_field(n, "value")))
		return tsnode_field(n, "key");
	return null_node();
}

/* ---- the walk ---- */

static void walk_kids(struct ex *x, TSNode n, struct ctx c)
{
	int block = tsnode_is(n, "statement_block");
	TSTreeCursor *cur = tsnode_cursor(&x->cursors, c.depth, n);
	for (int more = ts_tree_cursor_goto_first_child(cur); more && !x->s->status;
	     more = ts_tree_cursor_goto_next_sibling(cur)) {
		TSNode k = ts_tree_cursor_current_node(cur);
		if (!ts_node_is_named(k))
			continue;
		walk(x, k, c);
		if (block && (tsnode_is(k, "return_statement") || tsnode_is(k, "throw_statement")))
			c.dead = 1;
	}
}

static void walk(struct ex *x, TSNode n, struct ctx c)
{
	if (x->s->status || !spend(x, 1, n))
		return;
	if (c.depth > WALK_MAX) {
		set_status_at(x, A1_JS_UNDECIDABLE, n, "the syntax tree is nested too deeply");
		return;
	}
	if (!ts_node_named_child_count(n))
		return; /* an identifier, a number, `this` ...: no call, no test, nothing below */
	c.depth++;
	if (tsnode_is(n, "call_expression")) {
		if (test_call(x, n, &c) || hook_call(x, n, &c))
			return;
		struct chain ch;
		if (chain(x, n, &c, &ch)) {
			struct ctx fc = c;
			if (!ts_node_is_null(ch.catch_call)) {
				TSNode h = first_arg(ch.catch_call);
				if (is_fn(h) && !passes_on(x, tsnode_field(h, "body"), &c))
					fc.swallowed = 1;
			}
			record(x, &ch, &fc);
			for (size_t i = 0; i < ch.m; i++)
				if (tsnode_is(ch.S[i], "call_expression"))
					walk(x, tsnode_field(ch.S[i], "arguments"), c);
			for (size_t i = 0; i < ch.nafter; i++)
				walk(x, tsnode_field(ch.after[i], "arguments"), c);
			return;
		}
		skip_call(x, n, &c);
		mock_call(x, n);
		note_call(x, n, &c);
	} else if (tsnode_is(n, "member_expression")) {
		struct chain ch;
		if (chain(x, n, &c, &ch)) {
			record(x, &ch, &c);
			for (size_t i = 0; i < ch.m; i++)
				if (tsnode_is(ch.S[i], "call_expression"))
					walk(x, tsnode_field(ch.S[i], "arguments"), c);
			return;
		}
	} else if (tsnode_is(n, "if_statement")) {
		TSNode cond = tsnode_field(n, "condition"), yes = tsnode_field(n, "consequence"), no = tsnode_field(n, "alternative");
		int v = cond_value(x, cond);
		if (!ts_node_is_null(cond))
			walk(x, cond, c);
		struct ctx k = c;
		k.dead |= v == 0;
		if (!ts_node_is_null(yes))
			walk(x, yes, k);
		k = c;
		k.dead |= v == 1;
		if (!ts_node_is_null(no))
			walk(x, no, k);
		return;
	} else if (tsnode_is(n, "while_statement")) {
		TSNode cond = tsnode_field(n, "condition"), body = tsnode_field(n, "body");
		struct ctx k = c;
		k.dead |= cond_value(x, cond) == 0;
		if (!ts_node_is_null(cond))
			walk(x, cond, c);
		if (!ts_node_is_null(body))
			walk(x, body, k);
		return;
	} else if (tsnode_is(n, "try_statement")) {
		TSNode body = tsnode_field(n, "body"), handler = tsnode_field(n, "handler"), fin = tsnode_field(n, "finalizer");
		struct ctx k = c;
		if (!ts_node_is_null(handler) && !passes_on(x, tsnode_field(handler, "body"), &c))
			k.swallowed = 1;
		if (!ts_node_is_null(body))
			walk(x, body, k);
		if (!ts_node_is_null(handler))
			walk(x, handler, c);
		if (!ts_node_is_null(fin))
			walk(x, fin, c);
		return;
	} else if (c.test < 0) {
		TSNode nm = defined_name(n);
		if (!ts_node_is_null(nm)) {
			struct a1_js_side *s = x->s;
			s->funcs = grow(s->funcs, &s->capfuncs, s->nfuncs, sizeof *s->funcs);
			char *name =
			    tsnode_is(nm, "string") ? name_of(x, nm) : tsnode_text(x->src, nm);
			s->funcs[s->nfuncs].name = name;
			c.func = (long)s->nfuncs++;
			c.dead = c.swallowed = 0;
		}
	}
	walk_kids(x, n, c);
}

/* ---- refusals before the walk ---- */

/* The first byte that is not UTF-8, or NUL. */
static int check_bytes(struct ex *x)
{
	const char *nul = memchr(x->src, '\0', x->len);
	size_t lim = nul ? (size_t)(nul - x->src) : x->len;
	unsigned line, col;
	if (!utf8_valid(x->src, lim)) {
		size_t ls = 0;
		while (ls < lim) {
			const char *nl = memchr(x->src + ls, '\n', lim - ls);
			size_t le = nl ? (size_t)(nl - x->src) : lim;
			if (!utf8_valid(x->src + ls, le - ls)) {
				size_t i = ls;
				while (i < le) {
					size_t k = 1;
					while (k <= 4 && i + k <= le && !utf8_valid(x->src + i, k))
						k++;
					if (k > 4 || i + k > le)
						break;
					i += k;
				}
				tsnode_line_col(x->src, i, &line, &col);
				a1_js_side_refuse(x->s, A1_JS_UNREADABLE, line, col, "not UTF-8 (byte 0x%02x)",
					   (unsigned char)x->src[i < le ? i : ls]);
				return -1;
			}
			ls = le + 1;
		}
	}
	if (nul) {
		tsnode_line_col(x->src, lim, &line, &col);
		a1_js_side_refuse(x->s, A1_JS_UNREADABLE, line, col, "a NUL byte");
		return -1;
	}
	return 0;
}

/* Refuses what could nest deeper than the runtime survives, before tree-sitter parses:
 * Debian's runtime (0.20.7) frees memory twice when it recovers from a syntax error with
 * ~65,535 symbols on its stack, and brackets are not the only way there - `!!!!...`,
 * `a ? a ? ...`, `if (a) if (a) ...`, `x => x => ...`, unclosed JSX tags all nest without
 * one. So three bounds, each far below that:
 *   brackets and template substitutions open: A1_JS_MAX_DEPTH;
 *   tokens pending: those since the last `;` or `,` that ended an operand, or since the
 *     matching closer of a bracket group (which then counts as one token), summed over the
 *     open brackets: RUN_MAX. A new line never ends the count (automatic semicolons would
 *     let `A extends B ? A` + new line, repeated, nest unseen), so statements without
 *     semicolons add up within a block: 16,384 tokens of them are refused;
 *   JSX-like tags open (`<x` or `<>` less `</` and `/>`, counted raw, strings and all): TAGS_MAX.
 * Strings, comments, templates and regular expressions are skipped as a lexer would (a
 * regular expression is told from a division by the byte before it). */
#define RUN_MAX (64 * A1_JS_MAX_DEPTH)
#define TAGS_MAX (32 * A1_JS_MAX_DEPTH)

static int word_byte(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '$' ||
	       c >= 0x80;
}

/* "<what> <limit>..." at byte `off`: the side is undecidable. */
static int refuse_deep(struct ex *x, size_t off, const char *what, int limit, const char *tail)
{
	unsigned line, col;
	tsnode_line_col(x->src, off, &line, &col);
	a1_js_side_refuse(x->s, A1_JS_UNDECIDABLE, line, col, "%s %d%s", what, limit, tail);
	return -1;
}

static int check_nesting(struct ex *x)
{
	const char *s = x->src;
	size_t n = x->len, depth = 0, run = 0, tags = 0;
	for (size_t i = 0; i + 1 < n; i++) {
		if (s[i] == '<' && s[i + 1] == '/') {
			tags -= tags > 0;
		} else if (s[i] == '/' && s[i + 1] == '>') {
			tags -= tags > 0;
		} else if (s[i] == '<' && (word_byte((unsigned char)s[i + 1]) || s[i + 1] == '>')) {
			if (++tags > TAGS_MAX)
				return refuse_deep(x, i, "more than", TAGS_MAX, " tags open");
		}
	}
	struct {
		char c; /* '(' '[' '{' or 'T' (a template's ${) */
		size_t run;
	} stack[A1_JS_MAX_DEPTH + 1];
	int in_template = 0; /* in a template's text */
	int expects = 1;     /* the last token wants an operand after it (an operator, an opener) */
	char prev = 0;	     /* the last significant byte in code */
	static const char *const kw[] = {"return", "typeof", "instanceof", "in",    "of", "new",
					 "delete", "void",   "throw",	   "case",  "do", "else",
					 "await",  "yield",  "extends",	   "keyof", NULL};
	for (size_t i = 0; i < n; i++) {
		char c = s[i];
		if (run > RUN_MAX)
			return refuse_deep(x, i, "more than", RUN_MAX,
					   " tokens pending in one expression or statement");
		if (in_template) {
			if (c == '\\') {
				i++;
			} else if (c == '`') {
				in_template = 0;
				prev = 'a';
				expects = 0;
			} else if (c == '$' && i + 1 < n && s[i + 1] == '{') {
				if (depth == A1_JS_MAX_DEPTH)
					return refuse_deep(x, i, "brackets nested deeper than", A1_JS_MAX_DEPTH, "");
				stack[depth].c = 'T';
				stack[depth++].run = run;
				run++;
				in_template = 0;
				prev = '{';
				expects = 1;
				i++;
			}
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
			const char *e = NULL;
			for (size_t j = i + 2; j + 1 < n; j++)
				if (s[j] == '*' && s[j + 1] == '/') {
					e = s + j;
					break;
				}
			i = e ? (size_t)(e - s) + 1 : n;
			continue;
		}
		if (word_byte((unsigned char)c)) {
			size_t j = i;
			while (j < n && word_byte((unsigned char)s[j]))
				j++;
			run++;
			expects = 0;
			for (const char *const *k = kw; *k; k++)
				if (strlen(*k) == j - i && !memcmp(s + i, *k, j - i))
					expects = 1;
			i = j - 1;
			prev = 'a';
			continue;
		}
		run++;
		if (c == '"' || c == '\'') {
			for (i++; i < n && s[i] != c && s[i] != '\n'; i++)
				if (s[i] == '\\')
					i++;
			prev = 'a';
			expects = 0;
			continue;
		}
		if (c == '`') {
			in_template = 1;
			continue;
		}
		if (c == '/' && (!prev || strchr("(,=:[!&|?{};+-*%<>~^", prev))) {
			int cls_open = 0;
			for (i++; i < n && s[i] != '\n'; i++) {
				if (s[i] == '\\')
					i++;
				else if (s[i] == '[')
					cls_open = 1;
				else if (s[i] == ']')
					cls_open = 0;
				else if (s[i] == '/' && !cls_open)
					break;
			}
			prev = 'a';
			expects = 0;
			continue;
		}
		if (c == '(' || c == '[' || c == '{') {
			if (depth == A1_JS_MAX_DEPTH)
				return refuse_deep(x, i, "brackets nested deeper than", A1_JS_MAX_DEPTH, "");
			stack[depth].c = c;
			stack[depth++].run = run - 1;
			expects = 1;
		} else if ((c == ')' || c == ']' || c == '}') && depth) {
			depth--;
			run = stack[depth].run + 1; /* the group is one operand now */
			if (stack[depth].c == 'T' && c == '}')
				in_template = 1;
			expects = 0;
		} else if ((c == ';' || c == ',') && !expects) {
			run = depth ? stack[depth - 1].run + 1 : 0; /* the statement or element ended */
			expects = 1;
		} else {
			expects = 1;
		}
		prev = c;
	}
	return 0;
}

/* The first ERROR or MISSING node, reported. */
static void syntax_error(struct ex *x, TSNode root)
{
	char what[TSNODE_SNIP * 4 + 40];
	int kind;
	TSNode n = tsnode_syntax_error(x->src, root, "syntax error", what, sizeof what, &kind);
	set_status_at(x, A1_JS_UNREADABLE, n, kind ? what : "syntax error");
}

/* 1 when a top-level import or declaration makes `assert` node's strict assert:
 * `import assert from 'node:assert/strict'`, `import { strict as assert } from 'assert'`,
 * `const assert = require('assert').strict`, `const { strict: assert } = require('node:assert')`.
 * Only declarations are read (a comment naming assert/strict changes nothing). */
static int strict_assert_imported(const struct ex *x, TSNode root)
{
	size_t n;
	TSNode *v = tsnode_named_children(root, &n);
	int r = 0;
	for (size_t i = 0; i < n && !r; i++) {
		TSNode k = v[i];
		if (!tsnode_is(k, "import_statement") && !tsnode_is(k, "lexical_declaration") && !tsnode_is(k, "variable_declaration"))
			continue;
		size_t len = tsnode_len(k);
		if (len > 400)
			continue;
		char t[401];
		memcpy(t, x->src + ts_node_start_byte(k), len);
		t[len] = '\0';
		if (!strstr(t, "assert"))
			continue;
		if (strstr(t, "assert/strict") || strstr(t, "strict as assert") ||
		    (strstr(t, "require(") && (strstr(t, ").strict") || strstr(t, "strict: assert") || strstr(t, "strict:assert"))))
			r = 1;
	}
	free(v);
	return r;
}

/* Reads one side; `old` (may be NULL) is an edited tree of the other side to parse against
 * (tree-sitter's incremental parse: only what changed is parsed again); with `keep`, the tree
 * is handed back to the caller instead of deleted (NULL when the side was not parsed). */
static int extract_with(enum a1_js_dialect d, const char *text, size_t len, struct a1_js_side *s, TSTree *old,
			TSTree **keep)
{
	if (keep)
		*keep = NULL;
	struct ex x = {.src = text ? text : "", .len = text ? len : 0, .s = s};
	if (!text)
		return 0;
	if (len > A1_JS_MAX_BYTES) {
		a1_js_side_refuse(x.s, A1_JS_UNREADABLE, 1, 1, "%zu bytes, over the %u-byte limit", len, A1_JS_MAX_BYTES);
		return s->status;
	}
	if (x.len >= 3 && !memcmp(x.src, "\xef\xbb\xbf", 3)) { /* a byte order mark */
		x.src += 3;
		x.len -= 3;
	}
	if (check_bytes(&x) || check_nesting(&x))
		return s->status;
	const TSLanguage *lang = d == A1_JS_TSX		 ? tree_sitter_tsx()
				 : d == A1_JS_TYPESCRIPT ? tree_sitter_typescript()
							 : tree_sitter_javascript();
	TSParser *p = ts_parser_new();
	if (!ts_parser_set_language(p, lang)) {
		ts_parser_delete(p);
		a1_js_side_refuse(x.s, A1_JS_UNREADABLE, 1, 1, "the grammar (ABI %u) does not load into this tree-sitter",
			   ts_language_version(lang));
		return s->status;
	}
	ts_parser_set_timeout_micros(p, PARSE_MICROS);
	TSTree *tree = ts_parser_parse_string(p, old, x.src, (uint32_t)x.len);
	if (!tree) {
		ts_parser_delete(p);
		a1_js_side_refuse(x.s, A1_JS_UNREADABLE, 1, 1, "not parsed within %llu s", PARSE_MICROS / 1000000);
		return s->status;
	}
	TSNode root = ts_tree_root_node(tree);
	x.budget = 64 * x.len + (1u << 20);
	if (ts_node_has_error(root)) {
		syntax_error(&x, root);
	} else {
		struct ctx c = {.test = -1, .func = -1};
		x.strict_assert = strict_assert_imported(&x, root);
		walk(&x, root, c);
	}
	if (keep && !s->status)
		*keep = tree;
	else
		ts_tree_delete(tree);
	ts_parser_delete(p);
	buf_free(&x.cb);
	buf_free(&x.path);
	tsnode_cursors_free(&x.cursors);
	tsnode_cursors_free(&x.canon_cursor);
	for (size_t i = 0; i < x.names.cap; i++)
		free(x.names.key[i]);
	free(x.names.key);
	free(x.names.count);
	return s->status;
}

int a1_js_extract(enum a1_js_dialect d, const char *text, size_t len, struct a1_js_side *s)
{
	return extract_with(d, text, len, s, NULL, NULL);
}

int a1_js_extract_pair(enum a1_js_dialect d, const char *pre, size_t pre_len, const char *post, size_t post_len,
		       struct a1_js_side *a, struct a1_js_side *b)
{
	TSTree *pt = NULL;
	int bom = (pre && pre_len >= 3 && !memcmp(pre, "\xef\xbb\xbf", 3)) || (post && post_len >= 3 && !memcmp(post, "\xef\xbb\xbf", 3));
	extract_with(d, pre, pre_len, a, NULL, pre && post && !bom ? &pt : NULL);
	TSTree *old = NULL;
	if (pt) {
		TSInputEdit e;
		tsnode_edit_between(pre, pre_len, post, post_len, &e);
		old = ts_tree_copy(pt);
		ts_tree_edit(old, &e);
	}
	extract_with(d, post, post_len, b, old, NULL);
	if (old)
		ts_tree_delete(old);
	if (pt)
		ts_tree_delete(pt);
	return a->status ? a->status : b->status;
}

static void facts_free(struct a1_js_facts *l)
{
	for (size_t i = 0; i < l->n; i++) {
		struct a1_js_fact *f = &l->v[i];
		free(f->form);
		free(f->subject);
		free(f->matcher);
		free(f->expected);
		free(f->exp1);
	}
	free(l->v);
}

static void names_free(struct a1_js_names *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->v[i]);
	free(l->v);
}

static void sites_free(struct a1_js_site *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(v[i].name);
		free(v[i].text);
	}
	free(v);
}

void a1_js_side_free(struct a1_js_side *s)
{
	for (size_t i = 0; i < s->ntests; i++) {
		free(s->tests[i].name);
		facts_free(&s->tests[i].facts);
		names_free(&s->tests[i].calls);
	}
	free(s->tests);
	for (size_t i = 0; i < s->nfuncs; i++) {
		free(s->funcs[i].name);
		facts_free(&s->funcs[i].facts);
		names_free(&s->funcs[i].calls);
	}
	free(s->funcs);
	sites_free(s->focus, s->nfocus);
	sites_free(s->mocks, s->nmocks);
	free(s->why);
	memset(s, 0, sizeof *s);
}
