/* a1_kotlin_facts.c - one side of a Kotlin test file read into the facts Java's judge compares
 * (a1_kotlin.h, a1_java_facts.h): the syntax tree of the pinned tree-sitter-kotlin, a walk of
 * its classes (tests by annotation, skips) and of each function's body (assertions with where
 * they stand, the names it calls). What is the same as Java's - the checks before parsing,
 * canonical text, names of tests and helpers, the comparison - is Java's (a1_java_facts.h).
 *
 * Every non-empty side is read in a bounded child: both sides of a file in one request to the
 * worker (a1_worker.h; a one-shot a1_bound.h child while it is busy), the pre side sent back
 * as soon as it is read, the post side parsed against its tree. Only the worker keeps state
 * between calls: the sides it remembers (kmem, in its own process).
 * Threads: any; each call has its own parser, tree and state.
 * Must not: recurse deeper than WALK_MAX, spend more than a work budget proportional to the
 * input, print, leave anything allocated behind in belay's process. */
#include "assertions/a1_kotlin.h"

#include <ctype.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <tree_sitter/api.h>

#include "assertions/a1_bound.h"
#include "assertions/a1_cache.h"
#include "assertions/a1_java_facts.h"
#include "assertions/a1_java_wire.h"
#include "assertions/a1_worker.h"
#include "assertions/tsnode.h"
#include "common/buf.h"
#include "common/err.h"
#include "common/xalloc.h"

const TSLanguage *tree_sitter_kotlin(void);

#define WALK_MAX (4 * A1_JAVA_MAX_DEPTH)
#define MAX_ARGS 16
#ifndef PARSE_MICROS
#define PARSE_MICROS 30000000ull
#endif

/* A local `val` / `var` of the function walked: what it was initialized with, when it is
 * assigned nowhere else (bad: declared twice or assigned again - not known). */
struct kx {
	const char *src;
	size_t len;
	struct a1_java_side *j;
	struct buf cb;
	size_t budget;
	struct a1_jvm_locals loc; /* the locals of the function walked */
	uint32_t body_end; /* the end of the function walked (0: none) */
};

struct ctx {
	long test, func;
	struct a1_jvm_life *lc; /* in a lifecycle function, else NULL */
	unsigned char dead, swallowed;
	unsigned depth;
};

/* ---- small things ---- */

static int is(TSNode n, const char *type)
{
	if (ts_node_is_null(n))
		return 0;
	const char *t = ts_node_type(n);
	return t[0] == type[0] && !strcmp(t, type); /* most calls differ at the first byte: no call then */
}

static int text_is(const struct kx *x, TSNode n, const char *s)
{
	size_t k = strlen(s);
	uint32_t a = ts_node_is_null(n) ? 0 : ts_node_start_byte(n);
	return !ts_node_is_null(n) && ts_node_end_byte(n) - a == k && !memcmp(x->src + a, s, k);
}

static int str_in(const char *s, const char *const *set)
{
	for (; *set; set++)
		if (!strcmp(s, *set))
			return 1;
	return 0;
}

/* The first named child of a type, or a null node. Read with a cursor: ts_node_named_child(n, i)
 * starts from the first child every time (a search by index is quadratic in n's children). */
static TSNode child(TSNode n, const char *type)
{
	TSNode found = {0};
	if (ts_node_is_null(n) || !ts_node_named_child_count(n))
		return found;
	TSTreeCursor c = ts_tree_cursor_new(n);
	for (int more = ts_tree_cursor_goto_first_child(&c); more; more = ts_tree_cursor_goto_next_sibling(&c)) {
		TSNode k = ts_tree_cursor_current_node(&c);
		if (ts_node_is_named(k) && is(k, type)) {
			found = k;
			break;
		}
	}
	ts_tree_cursor_delete(&c);
	return found;
}

static void status_at(struct kx *x, int status, TSNode n, const char *what)
{
	TSPoint p = ts_node_start_point(n);
	a1_js_side_refuse(&x->j->s, status, p.row + 1, p.column + 1, "%s", what);
}

static int spend(struct kx *x, size_t n, TSNode at)
{
	if (x->j->s.status)
		return 0;
	if (x->budget < n) {
		status_at(x, A1_JS_UNDECIDABLE, at, "over the work budget");
		return 0;
	}
	x->budget -= n;
	return 1;
}

static char *canon(struct kx *x, TSNode n)
{
	size_t visited;
	char *t = a1_jvm_canon(x->src, n, &x->cb, &visited);
	spend(x, visited, n);
	return t;
}

/* The identifier a name ends with (`Test` of `org.junit.Test`, `assertEquals` of
 * `Assertions.assertEquals`), copied into out. */
static void last_name(const struct kx *x, TSNode n, char *out, size_t cap)
{
	for (int i = 0; i < 64 && (is(n, "navigation_expression") || is(n, "user_type") || is(n, "type_projection") ||
				   is(n, "constructor_invocation") || is(n, "nullable_type"));
	     i++) {
		TSNode id = {0};
		uint32_t k = ts_node_named_child_count(n);
		for (uint32_t j = 0; j < k; j++) {
			TSNode c = ts_node_named_child(n, j);
			if (!is(c, "type_arguments") && !is(c, "value_arguments") && !is(c, "type_modifiers"))
				id = c;
		}
		n = id;
	}
	size_t len = is(n, "identifier") ? ts_node_end_byte(n) - ts_node_start_byte(n) : 0;
	if (len >= cap)
		len = 0;
	memcpy(out, len ? x->src + ts_node_start_byte(n) : "", len);
	out[len] = 0;
}

/* A condition's value when it is a literal: 1 true, 0 false, -1 not known. */
static int cond_value(const struct kx *x, TSNode n)
{
	int neg = 0;
	for (int i = 0; i < 64 && !ts_node_is_null(n); i++) {
		if (is(n, "parenthesized_expression")) {
			n = ts_node_named_child(n, 0);
		} else if (is(n, "unary_expression") && text_is(x, tsnode_field(n, "operator"), "!")) {
			neg ^= 1;
			n = tsnode_field(n, "argument");
		} else if (text_is(x, n, "true") || text_is(x, n, "false")) {
			return text_is(x, n, "true") ^ neg;
		} else if (is(n, "binary_expression")) {
			/* x || true is true, x && false is false, whatever x is */
			TSNode op = tsnode_field(n, "operator");
			int l = cond_value(x, tsnode_field(n, "left")), r = cond_value(x, tsnode_field(n, "right"));
			int v = text_is(x, op, "||")   ? (l == 1 || r == 1 ? 1 : l == 0 && r == 0 ? 0 : -1)
				: text_is(x, op, "&&") ? (l == 0 || r == 0 ? 0 : l == 1 && r == 1 ? 1 : -1)
						       : -1;
			return v < 0 ? -1 : v ^ neg;
		} else {
			return -1;
		}
	}
	return -1;
}

/* 1 when expression n is made of literals and operators only (1 + 2, "a" + 1, 1 < 2): its value
 * is the same on every run, so an assertion of it checks nothing the code does. */
static int constant(const struct kx *x, TSNode n, int depth)
{
	static const char *const ok[] = {"binary_expression", "unary_expression", "parenthesized_expression",
					 "string_literal", "string_content", "number_literal", "float_literal",
					 "character_literal", "escape_sequence", "multiline_string_literal", NULL};
	if (ts_node_is_null(n) || depth > 64)
		return 0;
	uint32_t k = ts_node_named_child_count(n);
	if (!k)
		return str_in(ts_node_type(n), ok) || text_is(x, n, "true") || text_is(x, n, "false") ||
		       text_is(x, n, "null");
	if (!str_in(ts_node_type(n), ok))
		return 0;
	for (uint32_t i = 0; i < k; i++)
		if (!constant(x, ts_node_named_child(n, i), depth + 1))
			return 0;
	return 1;
}

static int is_literal(const struct kx *x, TSNode n)
{
	static const char *const lits[] = {"string_literal", "multiline_string_literal", "character_literal",
					   "number_literal", "float_literal", NULL};
	while (is(n, "parenthesized_expression"))
		n = ts_node_named_child(n, 0);
	return !ts_node_is_null(n) &&
	       (str_in(ts_node_type(n), lits) || text_is(x, n, "true") || text_is(x, n, "false") || text_is(x, n, "null"));
}

/* ---- locals ---- */

/* 1 when identifier src[a, b) is named again in src[from, to) (comments and strings count). */
static int named_later(const char *src, uint32_t a, uint32_t b, uint32_t from, uint32_t to)
{
	size_t k = b - a;
	const char *p = src + from, *end = src + to;
	while (k && p < end && (p = memmem(p, (size_t)(end - p), src + a, k))) {
		unsigned char c0 = p > src ? (unsigned char)p[-1] : ' ', c1 = p + k < end ? (unsigned char)p[k] : (unsigned char)' ';
		if (!(isalnum(c0) || c0 == '_') && !(isalnum(c1) || c1 == '_'))
			return 1;
		p++;
	}
	return 0;
}

static void locals_free(struct kx *x)
{
	a1_jvm_locals_clear(&x->loc);
}

static struct a1_jvm_local *local_named(struct kx *x, TSNode id)
{
	return a1_jvm_local_named(&x->loc, x->src, id);
}

static int constant(const struct kx *x, TSNode n, int depth);

/* `val name = value` seen: remembered (a second declaration of the name makes it not known). */
static void local_declared(struct kx *x, TSNode decl)
{
	TSNode vd = child(decl, "variable_declaration"), id = child(vd, "identifier"), value = {0};
	if (ts_node_is_null(id))
		return;
	for (TSNode k = ts_node_next_named_sibling(vd); !ts_node_is_null(k); k = ts_node_next_named_sibling(k))
		if (ts_node_is_null(value))
			value = k;
	struct a1_jvm_local *l = a1_jvm_local_new(&x->loc, x->src, id);
	if (!l)
		return;
	l->bad = ts_node_is_null(value) || is(value, "property_delegate") || is(value, "getter");
	l->text = l->bad ? NULL : canon(x, value);
	l->cst = !l->bad && constant(x, value, 0);
}

/* An argument as an assertion compares it: a local assigned once is its value. New; *cst = 1
 * when that value is a constant. */
static char *resolved(struct kx *x, TSNode n, int *cst)
{
	struct a1_jvm_local *l = local_named(x, n);
	if (l && !l->bad) {
		*cst = l->cst;
		return xstrdup(l->text);
	}
	*cst = constant(x, n, 0);
	return canon(x, n);
}

static int literal_cb(const void *ctx, TSNode n)
{
	return is_literal(ctx, n);
}

/* ---- records ---- */

static struct a1_js_facts *facts_of(struct kx *x, const struct ctx *c)
{
	return c->test >= 0 ? &x->j->s.tests[c->test].facts : c->func >= 0 ? &x->j->s.funcs[c->func].facts : NULL;
}

static struct a1_js_names *calls_of(struct kx *x, const struct ctx *c)
{
	return c->test >= 0 ? &x->j->s.tests[c->test].calls : c->func >= 0 ? &x->j->s.funcs[c->func].calls : NULL;
}

/* A fact; its strings are taken. */
static void add_fact(struct kx *x, const struct ctx *c, TSNode at, char *form, char *subject, const char *matcher,
		     char *exp1, int taut)
{
	struct a1_js_facts *l = facts_of(x, c);
	if (!l) {
		free(form), free(subject), free(exp1);
		return;
	}
	l->v = xgrow_zeroed(l->v, &l->cap, l->n, sizeof *l->v, 8);
	struct a1_js_fact *f = &l->v[l->n++];
	f->form = form;
	f->subject = subject;
	f->matcher = xstrdup(matcher);
	f->exp1 = exp1;
	f->expected = exp1 ? xstrdup(exp1) : NULL;
	f->digits = -1;
	f->kind = A1_JS_K_ASSERT;
	f->line = ts_node_start_point(at).row + 1;
	f->dead = c->dead;
	f->swallowed = c->swallowed;
	f->taut = (unsigned char)taut;
}

/* ---- assertions ---- */

static void walk(struct kx *x, TSNode n, struct ctx c);

/* A call's parts: f<T>(args) { lambda }, x.f(args). */
struct call {
	TSNode callee, types, args, lambda;
	char name[64], owner[64];
};

/* A call's first named child and its first annotated_lambda, type_arguments and
 * value_arguments, in one pass over its children. */
static TSNode call_kids(TSNode n, TSNode *lambda, TSNode *types, TSNode *args)
{
	TSNode first = {0};
	*lambda = *types = *args = (TSNode){0};
	if (ts_node_is_null(n))
		return first;
	TSTreeCursor c = ts_tree_cursor_new(n);
	for (int more = ts_tree_cursor_goto_first_child(&c); more; more = ts_tree_cursor_goto_next_sibling(&c)) {
		TSNode k = ts_tree_cursor_current_node(&c);
		if (!ts_node_is_named(k))
			continue;
		if (ts_node_is_null(first))
			first = k;
		TSNode *slot = is(k, "annotated_lambda") ? lambda : is(k, "type_arguments") ? types
							       : is(k, "value_arguments")  ? args
											   : NULL;
		if (slot && ts_node_is_null(*slot))
			*slot = k;
	}
	ts_tree_cursor_delete(&c);
	return first;
}

static void call_parts(const struct kx *x, TSNode n, struct call *k)
{
	memset(k, 0, sizeof *k);
	TSNode types, args;
	TSNode c0 = call_kids(n, &k->lambda, &types, &args);
	if (is(c0, "call_expression") && !ts_node_is_null(k->lambda) && ts_node_is_null(args)) {
		n = c0; /* f(args) { lambda } */
		TSNode inner_lambda;
		c0 = call_kids(n, &inner_lambda, &types, &args);
	}
	k->callee = c0;
	k->types = types;
	k->args = args;
	if (!ts_node_is_null(k->lambda))
		k->lambda = child(k->lambda, "lambda_literal");
	last_name(x, c0, k->name, sizeof k->name);
	if (is(c0, "navigation_expression"))
		last_name(x, ts_node_named_child(c0, 0), k->owner, sizeof k->owner);
}

/* kotlin.test's and JUnit's assertX: the arity besides a message; 0 for the exception checks. */
static int assert_arity(const char *name)
{
	static const struct {
		const char *name;
		int arity;
	} t[] = {{"assertEquals", 2},	     {"assertNotEquals", 2}, {"assertSame", 2},	 {"assertNotSame", 2},
		 {"assertContentEquals", 2}, {"assertArrayEquals", 2}, {"assertContains", 2}, {"assertTrue", 1},
		 {"assertFalse", 1},	     {"assertNull", 1},	   {"assertNotNull", 1}, {"assertIs", 1},
		 {"assertIsNot", 1},	     {"fail", 0},	   {"assertFailsWith", 0}, {"assertFails", 0},
		 {"assertThrows", 0},	     {"assertThrowsExactly", 0}, {"assert", 1}};
	for (size_t i = 0; i < sizeof t / sizeof *t; i++)
		if (!strcmp(name, t[i].name))
			return t[i].arity;
	return -1;
}

/* An exception class written E, E::class or E::class.java: "E.class", new. */
static char *class_of(struct kx *x, TSNode n)
{
	char *t = canon(x, n);
	size_t L = strlen(t);
	if (L > 12 && !strcmp(t + L - 12, "::class.java"))
		t[L - 12] = 0;
	else if (L > 7 && !strcmp(t + L - 7, "::class"))
		t[L - 7] = 0;
	char *c = xasprintf("%s.class", t);
	free(t);
	return c;
}

/* The value arguments that are not a message, in order (named expected / actual put first). */
static size_t args_of(const struct kx *x, TSNode list, int arity, TSNode *out)
{
	TSNode pos[MAX_ARGS], exp = {0}, act = {0};
	size_t n = 0, k = 0;
	uint32_t m = ts_node_is_null(list) ? 0 : ts_node_named_child_count(list);
	for (uint32_t i = 0; i < m && n < MAX_ARGS; i++) {
		TSNode a = ts_node_named_child(list, i);
		if (!is(a, "value_argument"))
			continue;
		uint32_t q = ts_node_named_child_count(a);
		if (!q)
			continue;
		TSNode v = ts_node_named_child(a, q - 1);
		if (q >= 2 && is(ts_node_named_child(a, 0), "identifier")) { /* name = value */
			TSNode nm = ts_node_named_child(a, 0);
			if (text_is(x, nm, "expected"))
				exp = v;
			else if (text_is(x, nm, "actual"))
				act = v;
			else if (!text_is(x, nm, "message"))
				pos[n++] = v;
			continue;
		}
		pos[n++] = v;
	}
	if (!ts_node_is_null(exp))
		out[k++] = exp;
	if (!ts_node_is_null(act))
		out[k++] = act;
	size_t first = 0;
	if (arity > 0 && n && (int)(n + k) > arity && is(pos[0], "string_literal") && !is(pos[n - 1], "string_literal"))
		first = 1; /* JUnit 4: the message first */
	else if (arity > 0 && n && (int)(n + k) > arity && is(pos[n - 1], "string_literal"))
		n--; /* kotlin.test / JUnit 5: the message last */
	for (size_t i = first; i < n && k < MAX_ARGS; i++)
		out[k++] = pos[i];
	return k;
}

static void assert_fact(struct kx *x, TSNode n, const struct call *k, int arity, struct ctx c)
{
	TSNode a[MAX_ARGS];
	size_t na = args_of(x, k->args, arity, a);
	char *form = canon(x, n), *subject = NULL, *exp1 = NULL;
	const char *matcher = strcmp(k->name, "assert") ? k->name : "assertTrue"; /* Kotlin's assert(cond): under -ea */
	int taut = 0;
	if (!strcmp(k->name, "fail")) {
		/* no subject */
	} else if (arity == 0) { /* an exception check: of the class its type argument or first argument names */
		matcher = strcmp(k->name, "assertThrowsExactly") ? "assertThrows" : k->name;
		TSNode body = !ts_node_is_null(k->lambda) ? k->lambda : na ? a[na - 1] : (TSNode){0};
		if (!ts_node_is_null(k->types))
			exp1 = class_of(x, ts_node_named_child(k->types, 0));
		else if (na >= 2 || (na == 1 && !ts_node_is_null(k->lambda)))
			exp1 = class_of(x, a[0]);
		else
			exp1 = xstrdup("Throwable.class"); /* assertFails { }: anything */
		subject = ts_node_is_null(body) ? xstrdup("") : canon(x, body);
	} else if (arity == 2 && na >= 2) {
		int contains = !strcmp(k->name, "assertContains"); /* (container, element) */
		int cs = 0, ce = 0;
		subject = resolved(x, a[contains ? 0 : 1], &cs);
		exp1 = resolved(x, a[contains ? 1 : 0], &ce);
		if (local_named(x, a[0]) || local_named(x, a[1])) { /* the values compared, in the form */
			char *f = xasprintf("%s /* %s, %s */", form, exp1, subject);
			free(form);
			form = f;
		}
		static const char *const eqs[] = {"assertEquals", "assertSame", "assertContentEquals", "assertArrayEquals",
						  NULL};
		int objects = (local_named(x, a[0]) || local_named(x, a[1])) && a1_jvm_constructed(subject);
		taut = str_in(k->name, eqs) && ((!strcmp(subject, exp1) && !objects) || (cs && ce));
	} else if (arity == 1 && (na >= 1 || !ts_node_is_null(k->lambda))) {
		TSNode s = na ? a[0] : k->lambda; /* assertTrue { cond } */
		int rc = 0;
		subject = na ? resolved(x, s, &rc) : canon(x, s);
		if (na && local_named(x, s)) {
			char *f = xasprintf("%s /* %s */", form, subject);
			free(form);
			form = f;
		}
		int v = cond_value(x, s), cst = v < 0 && na && rc;
		taut = (!strcmp(matcher, "assertTrue") && (v == 1 || cst)) || (!strcmp(k->name, "assertFalse") && (v == 0 || cst)) ||
		       (!strcmp(k->name, "assertNull") && text_is(x, s, "null")) ||
		       (!strcmp(k->name, "assertNotNull") && is_literal(x, s) && !text_is(x, s, "null"));
		if (!ts_node_is_null(k->types)) /* assertIs<T>(x) */
			exp1 = canon(x, k->types);
		TSNode S, E;
		const char *op;
		if (!taut && !strcmp(matcher, "assertTrue") && !exp1 &&
		    a1_jvm_comparison(s, literal_cb, x, &S, &E, &op)) {
			/* a boolean comparison asserted true is read as that comparison (a1_java_facts.h) */
			int rcst;
			free(subject);
			subject = resolved(x, S, &rcst);
			exp1 = resolved(x, E, &rcst);
			matcher = op;
		}
	}
	/* assertFailsWith<AssertionError> { assertEquals(..) }, assertFails { .. }: pass when it fails */
	int swallow = arity == 0 && exp1 && a1_jvm_catches_failure(exp1);
	char *tol = arity == 2 && na >= 3 && exp1 ? canon(x, a[2]) : NULL; /* assertEquals(a, b, absoluteTolerance) */
	add_fact(x, &c, n, form, subject, matcher, exp1, taut);
	struct a1_js_facts *l = facts_of(x, &c);
	if (tol && l && l->n) {
		free(l->v[l->n - 1].expected);
		l->v[l->n - 1].expected = xasprintf("%s,%s", l->v[l->n - 1].exp1, tol);
	}
	free(tol);
	c.swallowed |= (unsigned char)swallow;
	walk(x, k->args, c);
	walk(x, k->lambda, c);
}

/* assumeTrue(false), Assume.assumeTrue(false), assumeFalse(true), Assumptions.abort(): the test
 * is skipped; an assumption on a value: a conditional skip. 0 when it is no assumption. */
static int assumption(struct kx *x, TSNode n, const struct call *k, struct ctx c)
{
	static const char *const names[] = {"assumeTrue",	 "assumeFalse",	      "assumeThat", "assumeNotNull",
					     "assumeNoException", "assumingThat", "abort",	    NULL};
	static const char *const owners[] = {"", "Assume", "Assumptions", NULL};
	if (!str_in(k->name, names) || !str_in(k->owner, owners))
		return 0;
	TSNode a[MAX_ARGS];
	size_t na = args_of(x, k->args, 1, a); /* the message first (JUnit 4) or last (JUnit 5) left out */
	int v = na ? cond_value(x, a[0]) : -1;
	if (!c.dead && (c.test >= 0 || c.lc)) {
		char *form = canon(x, n);
		a1_jvm_assumed(x->j, c.test, c.lc, k->name, v, form);
		free(form);
	}
	walk(x, k->args, c);
	walk(x, k->lambda, c);
	return 1;
}

static void call(struct kx *x, TSNode n, struct ctx c)
{
	struct call k;
	call_parts(x, n, &k);
	static const char *const owners[] = {"", "Assertions", "Assert", "test", "TestCase", NULL};
	int arity = assert_arity(k.name);
	if (arity >= 0 && str_in(k.owner, owners)) {
		assert_fact(x, n, &k, arity, c);
		return;
	}
	if (assumption(x, n, &k, c))
		return;
	struct a1_js_names *calls = calls_of(x, &c);
	if (calls && k.name[0])
		a1_jvm_names_add(calls, k.name);
	size_t m;
	TSNode *kids = tsnode_named_children(n, &m);
	for (size_t i = 0; i < m && !x->j->s.status; i++)
		walk(x, kids[i], c);
	free(kids);
}

/* `assertFailsWith<E> { ... }` without parentheses: the grammar reads it as
 * (assertFailsWith < E) > { ... }. Returns 0 when n is no such thing. */
static int generic_lambda_call(struct kx *x, TSNode n, struct ctx c)
{
	TSNode l = tsnode_field(n, "left"), r = tsnode_field(n, "right");
	if (is(l, "binary_expression") && is(r, "parenthesized_expression") && text_is(x, tsnode_field(n, "operator"), ">") &&
	    text_is(x, tsnode_field(l, "operator"), "<")) { /* assertIs<T>(x): (assertIs < T) > (x) */
		TSNode f = tsnode_field(l, "left");
		char name[64], owner[64] = "";
		last_name(x, f, name, sizeof name);
		if (is(f, "navigation_expression"))
			last_name(x, ts_node_named_child(f, 0), owner, sizeof owner);
		if ((strcmp(name, "assertIs") && strcmp(name, "assertIsNot")) || (owner[0] && strcmp(owner, "test")))
			return 0;
		char *form = canon(x, n), *subject = canon(x, ts_node_named_child(r, 0)),
		     *exp1 = canon(x, tsnode_field(l, "right"));
		add_fact(x, &c, n, form, subject, name, exp1, 0);
		walk(x, r, c);
		return 1;
	}
	if (!is(l, "binary_expression") || !is(r, "lambda_literal") ||
	    !text_is(x, tsnode_field(n, "operator"), ">") ||
	    !text_is(x, tsnode_field(l, "operator"), "<"))
		return 0;
	TSNode f = tsnode_field(l, "left"), type = tsnode_field(l, "right");
	char name[64], owner[64] = "";
	last_name(x, f, name, sizeof name);
	if (is(f, "navigation_expression"))
		last_name(x, ts_node_named_child(f, 0), owner, sizeof owner);
	static const char *const owners[] = {"", "Assertions", "test", NULL};
	static const char *const checks[] = {"assertFailsWith", "assertThrows", "assertThrowsExactly", NULL};
	if (!str_in(name, checks) || !str_in(owner, owners))
		return 0;
	char *form = canon(x, n), *subject = canon(x, r), *exp1 = class_of(x, type);
	int swallow = a1_jvm_catches_failure(exp1); /* assertFailsWith<AssertionError> { assertEquals(..) } */
	add_fact(x, &c, n, form, subject, strcmp(name, "assertThrowsExactly") ? "assertThrows" : name, exp1, 0);
	c.swallowed |= (unsigned char)swallow;
	walk(x, r, c);
	return 1;
}

/* A catch that keeps a failed assertion from the runner: it takes AssertionError (or what
 * extends it, or Error / Throwable) and neither throws nor fails again. */
static int swallows(struct kx *x, TSNode try_node)
{
	uint32_t n = ts_node_named_child_count(try_node);
	for (uint32_t i = 0; i < n; i++) {
		TSNode cc = ts_node_named_child(try_node, i);
		if (!is(cc, "catch_block"))
			continue;
		char nm[64];
		last_name(x, child(cc, "user_type"), nm, sizeof nm);
		if (!a1_jvm_catches_failure(nm))
			continue;
		char *body = canon(x, child(cc, "block")), *var = canon(x, child(cc, "identifier"));
		/* an assertion of what was caught (assertNotNull(e)) passes whatever failed */
		int again = strstr(body, "throw ") || strstr(body, "fail(") ||
			    (strstr(body, "assert") && !a1_jvm_asserts_only_caught(body, var));
		free(body);
		free(var);
		if (!again)
			return 1;
	}
	return 0;
}

/* 1 when statement s always leaves the function: a return or throw, a block holding one, an
 * if whose condition is a constant (`if (true) return`) or whose both branches leave. */
static int leaves(const struct kx *x, TSNode s, int depth)
{
	if (ts_node_is_null(s) || depth > 64)
		return 0;
	if (is(s, "return_expression") || is(s, "throw_expression"))
		return 1;
	if (is(s, "block")) {
		for (TSNode k = ts_node_named_child(s, 0); !ts_node_is_null(k); k = ts_node_next_named_sibling(k))
			if (leaves(x, k, depth + 1))
				return 1;
		return 0;
	}
	if (is(s, "if_expression")) {
		TSNode cond = tsnode_field(s, "condition"), br[2];
		memset(br, 0, sizeof br);
		int nb = 0;
		for (TSNode k = ts_node_named_child(s, 0); !ts_node_is_null(k) && nb < 2; k = ts_node_next_named_sibling(k))
			if (!ts_node_eq(k, cond))
				br[nb++] = k;
		int v = cond_value(x, cond);
		return v == 1 ? leaves(x, br[0], depth + 1)
		       : v == 0 ? leaves(x, br[1], depth + 1)
				: leaves(x, br[0], depth + 1) && leaves(x, br[1], depth + 1);
	}
	return 0;
}

/* Statements in order: those after a return / throw are dead. A `runCatching { }` standing as
 * a statement keeps every failure inside it from the runner. */
static void walk_block(struct kx *x, TSNode n, struct ctx c)
{
	uint32_t k = ts_node_named_child_count(n);
	for (uint32_t i = 0; i < k && !x->j->s.status; i++) {
		TSNode s = ts_node_named_child(n, i);
		struct ctx sc = c;
		if (is(s, "call_expression")) {
			struct call kc;
			call_parts(x, s, &kc);
			sc.swallowed |= !strcmp(kc.name, "runCatching") && !kc.owner[0];
		}
		walk(x, s, sc);
		if (leaves(x, s, 0))
			c.dead = 1;
	}
}

static void walk(struct kx *x, TSNode n, struct ctx c)
{
	if (ts_node_is_null(n) || x->j->s.status || !spend(x, 1, n))
		return;
	if (++c.depth > WALK_MAX) {
		status_at(x, A1_JS_UNDECIDABLE, n, "the syntax tree is nested too deeply");
		return;
	}
	if (is(n, "throw_expression") && !c.dead && (c.test >= 0 || c.lc)) {
		/* throw TestAbortedException(..): the test is skipped (JUnit 4's AssumptionViolatedException) */
		TSNode e = ts_node_named_child(n, 0);
		static const char *const aborts[] = {"TestAbortedException", "AssumptionViolatedException", "TestSkippedException",
						     NULL};
		if (is(e, "call_expression")) {
			struct call kc;
			call_parts(x, e, &kc);
			if (str_in(kc.name, aborts)) {
				if (c.lc)
					c.lc->skip = 1;
				else
					x->j->s.tests[c.test].mods |= A1_JS_SKIP;
			}
		}
	}
	if (is(n, "property_declaration") && (c.test >= 0 || c.func >= 0)) {
		local_declared(x, n);
		TSNode vd = child(n, "variable_declaration"), id = child(vd, "identifier"), lam = child(n, "lambda_literal");
		if (!ts_node_is_null(id) && !ts_node_is_null(lam) && x->body_end &&
		    spend(x, x->body_end - ts_node_end_byte(n) + 1, n) &&
		    !named_later(x->src, ts_node_start_byte(id), ts_node_end_byte(id), ts_node_end_byte(n), x->body_end)) {
			struct ctx dc = c; /* val check = { assertEquals(..) } and check never named again */
			dc.dead = 1;
			uint32_t k = ts_node_named_child_count(n);
			for (uint32_t i = 0; i < k && !x->j->s.status; i++)
				walk(x, ts_node_named_child(n, i), dc);
			return;
		}
	} else if (is(n, "assignment") || is(n, "postfix_expression") || is(n, "prefix_expression")) {
		TSNode target = is(n, "assignment") ? tsnode_field(n, "left") : ts_node_named_child(n, 0);
		struct a1_jvm_local *l = local_named(x, target);
		if (l)
			l->bad = 1;
	}
	if (is(n, "call_expression")) {
		call(x, n, c);
	} else if (is(n, "binary_expression") && generic_lambda_call(x, n, c)) {
		/* read */
	} else if (is(n, "block") || is(n, "lambda_literal")) {
		walk_block(x, n, c);
	} else if (is(n, "if_expression")) {
		TSNode cond = tsnode_field(n, "condition");
		int v = cond_value(x, cond), branch = 0;
		walk(x, cond, c);
		uint32_t k = ts_node_named_child_count(n);
		size_t nf[3] = {0, 0, 0}; /* the test's facts before the first branch, after it, after the second */
		nf[0] = nf[1] = nf[2] = c.test >= 0 ? x->j->s.tests[c.test].facts.n : 0;
		for (uint32_t i = 0; i < k; i++) {
			TSNode b = ts_node_named_child(n, i);
			if (ts_node_eq(b, cond))
				continue;
			struct ctx t = c;
			t.dead |= branch == 0 ? v == 0 : v == 1;
			walk(x, b, t);
			if (c.test >= 0 && branch < 2)
				for (int q = branch + 1; q < 3; q++)
					nf[q] = x->j->s.tests[c.test].facts.n;
			branch++;
		}
		if (v < 0 && c.test >= 0 && !x->j->s.status) {
			char *ct = canon(x, cond), *what = xasprintf("if (%s)", ct);
			spend(x, a1_jvm_branch_conds(x->j, c.test, what, nf[0], nf[1], nf[2]), n);
			free(ct);
			free(what);
		}
	} else if (is(n, "try_expression")) {
		struct ctx b = c;
		b.swallowed |= swallows(x, n);
		uint32_t k = ts_node_named_child_count(n);
		for (uint32_t i = 0; i < k; i++) {
			TSNode ch = ts_node_named_child(n, i);
			walk(x, ch, is(ch, "block") ? b : c);
		}
	} else {
		uint32_t k = ts_node_named_child_count(n);
		for (uint32_t i = 0; i < k && !x->j->s.status; i++)
			walk(x, ts_node_named_child(n, i), c);
	}
}

/* ---- classes and functions ---- */

enum { AN_TEST = 1, AN_SKIP = 2, AN_NESTED = 4, AN_INNER = 8, AN_RUNWITH = 16, AN_OBJECT = 32, AN_BEFORE = 64 };

/* 1 when a declaration's modifiers hold the keyword `word` (private, inner). */
static int has_modifier(const struct kx *x, TSNode decl, const char *word)
{
	TSNode mods = child(decl, "modifiers");
	uint32_t m = ts_node_is_null(mods) ? 0 : ts_node_named_child_count(mods);
	for (uint32_t i = 0; i < m; i++)
		if (text_is(x, ts_node_named_child(mods, i), word))
			return 1;
	return 0;
}

/* The annotations of a declaration: AN_* flags; conditions (@EnabledIf..., @DisabledOnOs ...)
 * into *conds (their text) when conds is not NULL. */
static unsigned annotations_c(struct kx *x, TSNode decl, struct a1_js_names *conds)
{
	static const char *const tests[] = {"Test", "ParameterizedTest", "RepeatedTest", "TestFactory", "TestTemplate",
					    NULL};
	static const char *const skips[] = {"Disabled", "Ignore", NULL};
	static const char *const cond_prefixes[] = {"EnabledIf", "DisabledIf", "EnabledOn", "DisabledOn", "EnabledFor",
						    "DisabledFor", "EnabledIn", "DisabledIn", NULL};
	unsigned f = 0;
	TSNode mods = child(decl, "modifiers");
	uint32_t m = ts_node_is_null(mods) ? 0 : ts_node_named_child_count(mods);
	for (uint32_t i = 0; i < m; i++) {
		TSNode a = ts_node_named_child(mods, i);
		if (!is(a, "annotation"))
			continue;
		TSNode t = child(a, "constructor_invocation");
		char nm[64];
		last_name(x, ts_node_is_null(t) ? child(a, "user_type") : t, nm, sizeof nm);
		f |= str_in(nm, tests) ? AN_TEST : 0;
		f |= str_in(nm, skips) ? AN_SKIP : 0;
		f |= !strcmp(nm, "Nested") ? AN_NESTED : 0;
		f |= !strcmp(nm, "RunWith") ? AN_RUNWITH : 0;
		f |= !strcmp(nm, "BeforeEach") || !strcmp(nm, "Before") || !strcmp(nm, "BeforeAll") || !strcmp(nm, "BeforeClass")
			 ? AN_BEFORE
			 : 0;
		for (const char *const *p = cond_prefixes; conds && *p; p++)
			if (!strncmp(nm, *p, strlen(*p))) {
				char *text = canon(x, a);
				a1_jvm_names_add(conds, text);
				free(text);
				break;
			}
	}
	return f;
}

static unsigned annotations(struct kx *x, TSNode decl)
{
	return annotations_c(x, decl, NULL);
}

/* The rows of a parameterized test into j->rows: each element of @ValueSource / @CsvSource
 * (`ints = [1, 2]`, `["1, 2", "3, 4"]`) as "key:row", any other source whole (as Java's). */
static void add_row(struct kx *x, const char *test, const char *key, TSNode v)
{
	char *row = canon(x, v), *t = xasprintf("%s:%s", key, row);
	a1_jvm_add_site(&x->j->rows, &x->j->nrows, &x->j->caprows, test, t);
	free(row);
	free(t);
}

static void rows_of(struct kx *x, TSNode m, const char *test)
{
	TSNode mods = child(m, "modifiers");
	uint32_t k = ts_node_is_null(mods) ? 0 : ts_node_named_child_count(mods);
	for (uint32_t i = 0; i < k; i++) {
		TSNode a = ts_node_named_child(mods, i), t = child(a, "constructor_invocation");
		char nm[64];
		if (!is(a, "annotation"))
			continue;
		last_name(x, ts_node_is_null(t) ? child(a, "user_type") : t, nm, sizeof nm);
		size_t L = strlen(nm);
		if (L < 6 || strcmp(nm + L - 6, "Source"))
			continue;
		if (ts_node_is_null(t) || (strcmp(nm, "ValueSource") && strcmp(nm, "CsvSource"))) {
			add_row(x, test, nm, a);
			continue;
		}
		TSNode args = child(t, "value_arguments");
		uint32_t q = ts_node_is_null(args) ? 0 : ts_node_named_child_count(args);
		for (uint32_t j = 0; j < q; j++) {
			TSNode va = ts_node_named_child(args, j);
			uint32_t r = is(va, "value_argument") ? ts_node_named_child_count(va) : 0;
			if (!r)
				continue;
			TSNode v = ts_node_named_child(va, r - 1), key = r >= 2 ? ts_node_named_child(va, 0) : (TSNode){0};
			char kn[64] = "value";
			if (is(key, "identifier"))
				last_name(x, key, kn, sizeof kn);
			if (is(v, "collection_literal")) {
				for (TSNode e = ts_node_named_child(v, 0); !ts_node_is_null(e); e = ts_node_next_named_sibling(e))
					if (!is(e, "line_comment") && !is(e, "block_comment"))
						add_row(x, test, kn, e);
			} else {
				add_row(x, test, kn, v);
			}
		}
	}
}

/* A test's @Timeout(..): a check of its own (raised: another expected value; removed: an
 * assertion removed). */
static void timeouts(struct kx *x, TSNode m, const struct ctx *c)
{
	TSNode mods = child(m, "modifiers");
	uint32_t k = ts_node_is_null(mods) ? 0 : ts_node_named_child_count(mods);
	for (uint32_t i = 0; i < k; i++) {
		TSNode a = ts_node_named_child(mods, i), t = child(a, "constructor_invocation");
		char nm[64];
		if (!is(a, "annotation") || ts_node_is_null(t))
			continue;
		last_name(x, t, nm, sizeof nm);
		if (strcmp(nm, "Timeout"))
			continue;
		char *form = canon(x, a), *exp1 = canon(x, child(t, "value_arguments"));
		add_fact(x, c, a, form, NULL, "timeout", exp1, 0);
	}
}

/* A function of class `cls` (mods: the class's AN_SKIP / AN_INNER / AN_RUNWITH, cls_conds its
 * conditions). JUnit runs no private test, nor one in an inner class without @Nested: such a
 * function is read as a helper, and named (a1_java_side.dropped). */
static void function_in(struct kx *x, TSNode m, const char *cls, unsigned cls_mods, const struct a1_js_names *cls_conds,
			struct a1_jvm_life *lc, unsigned depth)
{
	struct a1_js_names conds = {0};
	unsigned f = annotations_c(x, m, &conds);
	TSNode name = tsnode_field(m, "name");
	if (ts_node_is_null(name)) {
		a1_jvm_names_free(&conds);
		return;
	}
	struct ctx c = {.test = -1, .func = -1, .depth = depth};
	const char *not_run = !(f & AN_TEST)		? NULL
			      : cls_mods & AN_INNER	? "in an inner class without @Nested: not run"
			      : cls_mods & AN_OBJECT	? "in a companion or nested object: not run"
			      : has_modifier(x, m, "private") ? "private: not run"
							: NULL;
	if (not_run) {
		char *full = xasprintf("%s.%.*s", cls, (int)(ts_node_end_byte(name) - ts_node_start_byte(name)),
				       x->src + ts_node_start_byte(name));
		a1_jvm_add_site(&x->j->dropped, &x->j->ndropped, &x->j->capdropped, full, not_run);
		free(full);
		f &= ~(unsigned)AN_TEST;
	}
	if (f & AN_TEST) {
		c.test = a1_jvm_new_test(x->j, x->src, cls, name, m);
		x->j->s.tests[c.test].mods |= (f | cls_mods) & AN_SKIP ? A1_JS_SKIP : 0;
		timeouts(x, m, &c);
		rows_of(x, m, x->j->s.tests[c.test].name);
		for (size_t i = 0; i < conds.n; i++)
			a1_jvm_add_cond(x->j, x->j->s.tests[c.test].name, conds.v[i]);
		for (size_t i = 0; cls_conds && i < cls_conds->n; i++)
			a1_jvm_add_cond(x->j, x->j->s.tests[c.test].name, cls_conds->v[i]);
	} else {
		c.func = a1_jvm_new_func(x->j, x->src, cls, name);
		c.lc = f & AN_BEFORE ? lc : NULL;
	}
	a1_jvm_names_free(&conds);
	locals_free(x);
	x->body_end = ts_node_end_byte(m);
	walk(x, child(m, "function_body"), c);
	x->body_end = 0;
	locals_free(x);
	a1_jvm_locals_free(&x->loc); /* locals live within one function */
}

static void function(struct kx *x, TSNode m, const char *cls, unsigned cls_mods, unsigned depth)
{
	function_in(x, m, cls, cls_mods, NULL, NULL, depth);
}

/* A class (its lifecycle functions' findings into *up when given: a companion object's
 * @BeforeAll holds for its class's tests). */
static void klass_in(struct kx *x, TSNode k, const char *outer, unsigned mods, const struct a1_js_names *conds,
		     struct a1_jvm_life *up, unsigned depth)
{
	if (depth > WALK_MAX) {
		status_at(x, A1_JS_UNDECIDABLE, k, "classes nested too deeply");
		return;
	}
	TSNode nm = tsnode_field(k, "name"), body = child(k, "class_body");
	char *own = ts_node_is_null(nm) ? xstrdup("Companion")
					: xstrndup(x->src + ts_node_start_byte(nm), ts_node_end_byte(nm) - ts_node_start_byte(nm));
	char *cls = outer ? xasprintf("%s.%s", outer, own) : xstrdup(own);
	free(own);
	struct a1_js_names mine = {0};
	mods |= annotations_c(x, k, &mine) & (AN_SKIP | AN_RUNWITH);
	if (has_modifier(x, k, "abstract"))
		a1_jvm_names_add(&mine, "abstract class: its tests run only in a subclass");
	if (!outer && !a1_jvm_surefire_name(cls))
		a1_jvm_names_add(&mine, A1_JVM_SUREFIRE_COND);
	for (size_t i = 0; conds && i < conds->n; i++)
		a1_jvm_names_add(&mine, conds->v[i]);
	struct a1_jvm_life own_lc = {0}, *lc = up ? up : &own_lc;
	size_t t0 = x->j->s.ntests;
	size_t n;
	TSNode *kids = tsnode_named_children(body, &n); /* by index: quadratic over a class of functions */
	for (size_t i = 0; i < n && !x->j->s.status; i++) {
		TSNode ch = kids[i];
		if (is(ch, "function_declaration")) {
			function_in(x, ch, cls, mods, &mine, lc, depth);
		} else if (is(ch, "class_declaration") || is(ch, "object_declaration") || is(ch, "companion_object")) {
			int nested = annotations(x, ch) & AN_NESTED; /* JUnit 5 runs an inner class's tests in the outer's */
			int inner = is(ch, "class_declaration") && has_modifier(x, ch, "inner");
			unsigned keep = (nested ? mods : 0) | (mods & AN_RUNWITH) |
					(inner && !nested && !(mods & AN_RUNWITH) ? AN_INNER : 0) |
					(is(ch, "companion_object") || is(ch, "object_declaration") ? AN_OBJECT : 0);
			struct a1_js_names none = {0}, stat = {0};
			if (nested && !inner) { /* a Kotlin nested class is static: JUnit 5 does not nest it */
				a1_jvm_names_add(&stat, "@Nested class that is not inner (not run by Maven Surefire's default excludes)");
				for (size_t q = 0; q < mine.n; q++)
					a1_jvm_names_add(&stat, mine.v[q]);
			}
			klass_in(x, ch, cls, keep, nested && !inner ? &stat : nested ? &mine : &none,
				 is(ch, "companion_object") ? lc : NULL, depth + 1);
			a1_jvm_names_free(&stat);
		} else {
			struct ctx c = {.test = -1, .func = -1, .depth = depth};
			walk(x, ch, c); /* properties, initializers: nothing a test runs as its own */
		}
	}
	free(kids);
	/* what the lifecycle functions assume holds for the class's own tests */
	size_t L = strlen(cls);
	for (size_t i = t0; !up && i < x->j->s.ntests; i++) {
		struct a1_js_test *t = &x->j->s.tests[i];
		if (strncmp(t->name, cls, L) || t->name[L] != '.' || strchr(t->name + L + 1, '.'))
			continue;
		if (own_lc.skip)
			t->mods |= A1_JS_SKIP;
		for (size_t j = 0; j < own_lc.conds.n; j++)
			a1_jvm_add_cond(x->j, t->name, own_lc.conds.v[j]);
	}
	a1_jvm_names_free(&own_lc.conds);
	a1_jvm_names_free(&mine);
	free(cls);
}

static void klass(struct kx *x, TSNode k, const char *outer, unsigned mods, unsigned depth)
{
	klass_in(x, k, outer, mods, NULL, NULL, depth);
}

/* ---- a side ---- */

/* Reads a side in this process: only in a bounded child, or an empty side. `old` (may be
 * NULL) is an edited tree of the other side to parse against; with `keep`, the tree is handed
 * back instead of deleted (NULL when the side was not read). */
static int kotlin_read_here(const char *text, size_t len, struct a1_java_side *j, TSTree *old, TSTree **keep)
{
	struct kx x = {.src = text ? text : "", .len = text ? len : 0, .j = j};
	if (keep)
		*keep = NULL;
	if (a1_jvm_prepare(&x.src, &x.len, &j->s, 1))
		return j->s.status;
	TSParser *p = ts_parser_new();
	if (!ts_parser_set_language(p, tree_sitter_kotlin())) {
		ts_parser_delete(p);
		a1_js_side_refuse(&j->s, A1_JS_UNREADABLE, 1, 1, "the grammar (ABI %u) does not load into this tree-sitter",
				  ts_language_version(tree_sitter_kotlin()));
		return j->s.status;
	}
	ts_parser_set_timeout_micros(p, PARSE_MICROS);
	TSTree *tree = ts_parser_parse_string(p, old, x.src, (uint32_t)x.len);
	if (!tree) {
		ts_parser_delete(p);
		a1_js_side_refuse(&j->s, A1_JS_UNREADABLE, 1, 1, "not parsed within %llu s", PARSE_MICROS / 1000000);
		return j->s.status;
	}
	TSNode root = ts_tree_root_node(tree);
	x.budget = 64 * x.len + (1u << 20);
	if (ts_node_has_error(root)) {
		int kind;
		TSNode e = tsnode_first_error(root, &kind);
		status_at(&x, A1_JS_UNREADABLE, e, kind == 'M' ? "syntax error: something missing" : "syntax error");
	} else {
		uint32_t k = ts_node_named_child_count(root);
		for (uint32_t i = 0; i < k && !j->s.status; i++) {
			TSNode ch = ts_node_named_child(root, i);
			if (is(ch, "class_declaration") || is(ch, "object_declaration"))
				klass(&x, ch, NULL, 0, 0);
			else if (is(ch, "function_declaration"))
				function(&x, ch, "", 0, 0); /* top-level helpers */
		}
	}
	if (keep && !j->s.status)
		*keep = tree;
	else
		ts_tree_delete(tree);
	ts_parser_delete(p);
	buf_free(&x.cb);
	return j->s.status;
}

/* ---- the sides, bounded ---- */

/* The grammar can loop in its scanner or grow without end on a crafted file, past
 * tree-sitter's timeout: every side that holds something is read in a child bounded in memory
 * and time (a1_bound.h), both sides of a file in one child (one fork; the post side parsed
 * against the pre side's tree), each sent as it is read: a frame of its length and its facts
 * (a1_java_wire.h). A side not read within the bounds is refused (A1_JS_BOUNDED). */

struct kjob {
	const char *pre, *post; /* pre NULL: read only post */
	size_t pre_len, post_len;
};

static void send_side(void *ctx, const struct a1_java_side *s)
{
	struct buf b = {0};
	a1_java_wire_put(s, &b);
	unsigned char n[4] = {(unsigned char)b.len, (unsigned char)(b.len >> 8), (unsigned char)(b.len >> 16),
			      (unsigned char)(b.len >> 24)};
	a1_bound_send(ctx, n, 4);
	a1_bound_send(ctx, b.p, b.len);
	buf_free(&b);
}

/* In the child. Nothing is freed: the child ends. */
static void kotlin_child(void *ctx, struct a1_bound_chan *ch)
{
	const struct kjob *k = ctx;
	struct a1_java_side a = {0}, b = {0};
	if (!k->pre) {
		kotlin_read_here(k->post, k->post_len, &b, NULL, NULL);
	} else {
		a1_jvm_read_pair(kotlin_read_here, k->pre, k->pre_len, k->post, k->post_len, &a, &b, send_side, ch);
	}
	send_side(ch, &b);
}

/* The next whole frame of *p into *s (zeroed): 0, or -1 when there is none. */
static int take_side(const char **p, size_t *n, struct a1_java_side *s)
{
	if (*n < 4)
		return -1;
	const unsigned char *u = (const unsigned char *)*p;
	size_t len = (size_t)u[0] | (size_t)u[1] << 8 | (size_t)u[2] << 16 | (size_t)u[3] << 24;
	if (len > *n - 4)
		return -1;
	if (a1_java_wire_get(*p + 4, len, s)) {
		a1_java_side_free(s);
		return -1;
	}
	*p += 4 + len;
	*n -= 4 + len;
	return 0;
}

static void refuse_bounded(struct a1_java_side *s, int rc, const struct err *e, const struct a1_bound_result *r)
{
	char why[128];
	a1_js_side_refuse(&s->s, A1_JS_BOUNDED, 1, 1, "not read: %s",
			  rc < 0			 ? e->msg
			  : r->end != A1_BOUND_DONE ? a1_bound_why(r, why, sizeof why)
						 : "the parser's process answered in part");
}

/* ---- the worker: a long-lived bounded child that remembers recent sides (a1_worker.h) ----
 *
 * A request: 'P', the pre side's length (32-bit little-endian; 0: read only the post side),
 * the pre side's bytes, the post side's. The answer is what kotlin_child sends (a frame per
 * side), so the parent reads both alike. The worker remembers up to KMEM_MAX sides (KMEM_COST
 * bytes, estimated; least recently used first out) that it read within their bounds: their
 * bytes (compared whole: a remembered side is never taken for other bytes), their tree (the
 * next post side is parsed against it) and their facts as sent. So a file's pre side read in
 * an earlier turn costs nothing but its frame; the post side is parsed against its tree and
 * walked. A side refused is not remembered (as a1_cache.h). The worker uses no lock (it is a
 * fork of a threaded process: only malloc and tree-sitter, as kotlin_child). */

#define KMEM_MAX 16
#define KMEM_COST (128u << 20)

struct kside {
	uint64_t h;
	char *text;
	size_t len, cost;
	TSTree *tree; /* NULL: not parsed (refused before, or a side left unparsed) */
	struct buf wire; /* the frame sent: its length and its facts */
	int ok, listed;
	unsigned long used;
};

static struct kside *kmem[KMEM_MAX];
static size_t kmem_n, kmem_cost;
static unsigned long kmem_tick;

static uint64_t kmem_hash(const char *p, size_t n)
{
	uint64_t h = 1469598103934665603ull; /* FNV-1a: only to find a candidate; the bytes decide */
	for (size_t i = 0; i < n; i++)
		h = (h ^ (unsigned char)p[i]) * 1099511628211ull;
	return h;
}

static void kside_free(struct kside *k)
{
	if (k->tree)
		ts_tree_delete(k->tree);
	buf_free(&k->wire);
	free(k->text);
	free(k);
}

static void kmem_drop(size_t i)
{
	struct kside *k = kmem[i];
	kmem[i] = kmem[--kmem_n];
	kmem_cost -= k->cost;
	kside_free(k);
}

static void kmem_forget(void)
{
	while (kmem_n)
		kmem_drop(kmem_n - 1);
}

static struct kside *kmem_find(const char *text, size_t len, uint64_t h)
{
	for (size_t i = 0; i < kmem_n; i++)
		if (kmem[i]->h == h && kmem[i]->len == len && !memcmp(kmem[i]->text, text, len)) {
			kmem[i]->used = ++kmem_tick;
			return kmem[i];
		}
	return NULL;
}

/* Remembers k when it was read within its bounds and fits, else frees it. */
static void kmem_keep(struct kside *k)
{
	if (k->listed)
		return;
	if (!k->ok || k->cost > KMEM_COST) {
		kside_free(k);
		return;
	}
	while (kmem_n && (kmem_n == KMEM_MAX || kmem_cost + k->cost > KMEM_COST)) {
		size_t old = 0;
		for (size_t i = 1; i < kmem_n; i++)
			if (kmem[i]->used < kmem[old]->used)
				old = i;
		kmem_drop(old);
	}
	k->listed = 1;
	k->used = ++kmem_tick;
	kmem[kmem_n++] = k;
	kmem_cost += k->cost;
}

/* The side of these bytes: remembered, or read now (against `old`, an edited tree of the other
 * side, may be NULL; `keep`: keep its tree) - not yet remembered then (kmem_keep). */
static struct kside *kside_of(const char *text, size_t len, TSTree *old, int keep)
{
	uint64_t h = kmem_hash(text, len);
	struct kside *k = kmem_find(text, len, h);
	if (k)
		return k;
	k = xcalloc(1, sizeof *k);
	struct a1_java_side j = {0};
	kotlin_read_here(text, len, &j, old, keep ? &k->tree : NULL);
	struct buf w = {0};
	a1_java_wire_put(&j, &w);
	unsigned char n[4] = {(unsigned char)w.len, (unsigned char)(w.len >> 8), (unsigned char)(w.len >> 16),
			      (unsigned char)(w.len >> 24)};
	buf_append(&k->wire, (const char *)n, 4);
	buf_append(&k->wire, w.p, w.len);
	buf_free(&w);
	k->ok = j.s.status == 0;
	a1_java_side_free(&j);
	k->h = h;
	k->len = len;
	k->text = xmalloc(len ? len : 1);
	memcpy(k->text, text, len);
	/* the bytes, the facts as sent and a tree-sitter tree (~10-20 bytes per source byte) */
	k->cost = len * 25 + k->wire.len + 4096;
	return k;
}

static int has_bom(const char *p, size_t n)
{
	return n >= 3 && !memcmp(p, "\xef\xbb\xbf", 3);
}

/* In the worker: one request (n == 0: forget every side). */
static void kotlin_serve(const char *req, size_t n, struct a1_bound_chan *ch)
{
	if (!n) {
		kmem_forget();
		return;
	}
	const unsigned char *u = (const unsigned char *)req;
	if (n < 5 || req[0] != 'P')
		return; /* no frame: the parent refuses */
	size_t pre_len = (size_t)u[1] | (size_t)u[2] << 8 | (size_t)u[3] << 16 | (size_t)u[4] << 24;
	if (pre_len > n - 5)
		return;
	const char *pre = req + 5, *post = pre + pre_len;
	size_t post_len = n - 5 - pre_len;
	TSTree *old = NULL;
	if (pre_len) { /* as a1_jvm_read_pair: the post side parsed against the pre side's edited tree */
		int bom = has_bom(pre, pre_len) || has_bom(post, post_len); /* skipped: offsets would shift */
		struct kside *a = kside_of(pre, pre_len, NULL, 1);
		a1_bound_send(ch, a->wire.p, a->wire.len);
		if (a->tree && post_len && !bom) {
			TSInputEdit e;
			tsnode_edit_between(pre, pre_len, post, post_len, &e);
			old = ts_tree_copy(a->tree);
			ts_tree_edit(old, &e);
		}
		kmem_keep(a);
	}
	struct kside *b = kside_of(post, post_len, old, 1);
	if (old)
		ts_tree_delete(old);
	a1_bound_send(ch, b->wire.p, b->wire.len);
	kmem_keep(b);
}

static struct a1_worker kworker = A1_WORKER_INIT(kotlin_serve);
static int kworker_off; /* a1_kotlin_worker_use(0): every reading in a one-shot child */
static pthread_once_t kworker_once = PTHREAD_ONCE_INIT;

void a1_kotlin_worker_forget(void)
{
	a1_worker_forget(&kworker);
}

static void kworker_hook(void)
{
	a1_cache_on_clear(a1_kotlin_worker_forget); /* the bench's cold runs forget the worker's sides too */
}

void a1_kotlin_worker_stop(void)
{
	a1_worker_stop(&kworker);
}

void a1_kotlin_worker_use(int on)
{
	__atomic_store_n(&kworker_off, !on, __ATOMIC_RELAXED);
}

pid_t a1_kotlin_worker_pid(unsigned long *started)
{
	return a1_worker_pid(&kworker, started);
}

/* A job's reading: by the worker, or in a one-shot child when it is busy with another
 * thread's (or turned off). The same answer either way. */
static int kotlin_run(struct kjob *k, struct buf *out, struct a1_bound_result *r, struct err *e)
{
	if (!__atomic_load_n(&kworker_off, __ATOMIC_RELAXED)) {
		pthread_once(&kworker_once, kworker_hook);
		struct buf q = {0};
		size_t pl = k->pre ? k->pre_len : 0;
		unsigned char h[5] = {'P', (unsigned char)pl, (unsigned char)(pl >> 8), (unsigned char)(pl >> 16),
				      (unsigned char)(pl >> 24)};
		buf_reserve(&q, 5 + pl + k->post_len);
		buf_append(&q, (const char *)h, 5);
		buf_append(&q, k->pre ? k->pre : "", pl);
		buf_append(&q, k->post, k->post_len);
		int rc = a1_worker_call(&kworker, q.p, q.len, out, r, e);
		buf_free(&q);
		if (rc != A1_WORKER_BUSY)
			return rc;
	}
	return a1_bound_run(kotlin_child, k, out, r, e);
}

/* One side alone, bounded. */
static void read_one_bounded(const char *text, size_t len, struct a1_java_side *s)
{
	struct kjob k = {NULL, text, 0, len};
	struct buf out = {0};
	struct a1_bound_result r;
	struct err e = {0};
	int rc = kotlin_run(&k, &out, &r, &e);
	const char *p = out.p;
	size_t n = out.len;
	if (rc < 0 || r.end != A1_BOUND_DONE || take_side(&p, &n, s) || n)
		refuse_bounded(s, rc, &e, &r);
	buf_free(&out);
}

static void kotlin_pair(const char *pre, size_t pre_len, const char *post, size_t post_len, struct a1_java_side *a,
			struct a1_java_side *b)
{
	int has_pre = pre && pre_len, has_post = post && post_len;
	if (!has_pre || !has_post) { /* an empty side is read here: there is nothing to parse */
		if (has_pre)
			read_one_bounded(pre, pre_len, a);
		else
			kotlin_read_here(pre, pre_len, a, NULL, NULL);
		if (has_post)
			read_one_bounded(post, post_len, b);
		else
			kotlin_read_here(post, post_len, b, NULL, NULL);
		return;
	}
	struct kjob k = {pre, post, pre_len, post_len};
	struct buf out = {0};
	struct a1_bound_result r;
	struct err e = {0};
	int rc = kotlin_run(&k, &out, &r, &e);
	const char *p = out.p;
	size_t n = out.len;
	if (rc < 0 || take_side(&p, &n, a)) {
		refuse_bounded(a, rc, &e, &r);
		if (rc == 0)
			read_one_bounded(post, post_len, b); /* the post side on its own: it may be fine */
		else
			refuse_bounded(b, rc, &e, &r);
	} else if (r.end != A1_BOUND_DONE || take_side(&p, &n, b) || n) {
		refuse_bounded(b, rc, &e, &r);
	}
	buf_free(&out);
}

static int a1_kotlin_extract(const char *text, size_t len, struct a1_java_side *j)
{
	if (!text || !len)
		return kotlin_read_here(text, len, j, NULL, NULL);
	read_one_bounded(text, len, j);
	return j->s.status;
}

/* ---- the judge: Java's ---- */

int a1_kotlin_is_source(const char *path)
{
	size_t n = path ? strlen(path) : 0;
	return n > 3 && !strcasecmp(path + n - 3, ".kt");
}

cJSON *a1_kotlin_judge(const char *path, const char *pre, size_t pre_len, const char *post, size_t post_len)
{
	return a1_jvm_judge(path, pre, pre_len, post, post_len, kotlin_pair, 1);
}

int a1_kotlin_count(const char *text, size_t len, int *tests, int *assertions)
{
	return a1_jvm_count(text, len, tests, assertions, a1_kotlin_extract);
}
