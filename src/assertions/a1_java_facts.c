/* a1_java_facts.c - one side of a Java test file reduced to the facts a1_java.c compares
 * (a1_java_facts.h): tree-sitter's syntax tree of the pinned tree-sitter-java, then a walk of
 * its classes (tests by annotation, skips, conditions, lifecycle methods) and of each method's
 * body (assertions with where they stand, assumptions, the names it calls). A pair is read
 * lazily (a1_java_read_pair_cached): each side's methods surveyed as units, a1_lang_decide
 * (a1_lang.h) says which both sides walk; the others' bodies are not walked (their tests and
 * helpers marked lazy; a1_js_compare skips such a pair). Everything outside the units - the
 * package, imports, class headers and annotations, fields, initializers, constructors, nested
 * types that are no class, lifecycle methods - is read as it always is, and a unit's facts
 * depend only on its own bytes and on that context.
 *
 * Threads: any; each call has its own parser, tree and state.
 * Must not: recurse deeper than WALK_MAX (brackets nested deeper than A1_JAVA_MAX_DEPTH and
 * long runs of pending tokens are refused before tree-sitter sees them - Debian's runtime
 * 0.20.7 frees memory twice when it recovers from an error with ~65,535 symbols on its stack),
 * spend more than a work budget proportional to the input, print, keep state between calls,
 * leave anything allocated behind. */
#include "assertions/a1_java_facts.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tree_sitter/api.h>

#include "assertions/a1_cache.h"
#include "assertions/a1_lang.h"
#include "assertions/tsnode.h"
#include "common/buf.h"
#include "common/jsonx.h"
#include "common/xalloc.h"

const TSLanguage *tree_sitter_java(void);

#define WALK_MAX (4 * A1_JAVA_MAX_DEPTH) /* tree levels: a + b + ... nests without brackets */
#define RUN_MAX (64 * A1_JAVA_MAX_DEPTH) /* tokens a statement may keep pending */
#define FORM_CAP (16u << 10)		 /* canonical text kept of one node */
#define MAX_ARGS 16
#define MAX_STEPS 32 /* calls in one assertion chain */
#ifndef PARSE_MICROS
#define PARSE_MICROS 30000000ull /* a last resort: inputs are capped and nesting refused first */
#endif

/* A lazy reading's plan for one side (a1_java_read_pair_cached): its units - the methods of
 * classes, lifecycle methods excepted, each with the comments right before it - and which to
 * walk (a1_lang_decide). */
struct jplan {
	struct a1_lang_unit *u;
	size_t n, cap, next;
	int all;   /* walk every unit */
	int abort; /* the walk did not meet the survey's units: never expected */
};

/* A local variable of the method walked: what it was initialized with, when it is assigned
 * nowhere else (bad: declared twice or assigned again - not known). */
struct jx {
	const char *src;
	size_t len;
	struct a1_java_side *j;
	struct buf cb;
	size_t budget;
	struct jplan *plan; /* NULL: walk every method */
	struct a1_jvm_locals loc; /* the locals of the method walked */
	int junit4; /* `Test` is imported from org.junit (JUnit 4's) */
	uint32_t body_end; /* the end of the method walked */
};

/* 1 when identifier `name` (bytes a..b) is named again in src[from, to) (a lambda held in a local
 * that nothing calls: what it asserts never runs). Comments and strings count: never less. */
static int named_later(const char *src, uint32_t a, uint32_t b, uint32_t from, uint32_t to)
{
	size_t k = b - a;
	const char *p = src + from, *end = src + to;
	while (k && p < end && (p = memmem(p, (size_t)(end - p), src + a, k))) {
		unsigned char c0 = p > src ? (unsigned char)p[-1] : ' ', c1 = p + k < end ? (unsigned char)p[k] : (unsigned char)' ';
		if (!(isalnum(c0) || c0 == '_' || c0 == '$') && !(isalnum(c1) || c1 == '_' || c1 == '$'))
			return 1;
		p++;
	}
	return 0;
}

struct ctx {
	long test, func;
	struct a1_jvm_life *lc; /* in a lifecycle method, else NULL */
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

static TSNode field(TSNode n, const char *name) /* name: a literal (its field id is cached by address) */
{
	return tsnode_field(n, name);
}

static int text_is(const struct jx *x, TSNode n, const char *s)
{
	size_t k = strlen(s);
	uint32_t a = ts_node_start_byte(n);
	return !ts_node_is_null(n) && ts_node_end_byte(n) - a == k && !memcmp(x->src + a, s, k);
}

static int str_in(const char *s, const char *const *set)
{
	for (; *set; set++)
		if (!strcmp(s, *set))
			return 1;
	return 0;
}

static int starts(const char *s, const char *prefix)
{
	return !strncmp(s, prefix, strlen(prefix));
}


static void status_at(struct jx *x, int status, TSNode n, const char *what)
{
	TSPoint p = ts_node_start_point(n);
	a1_js_side_refuse(&x->j->s, status, p.row + 1, p.column + 1, "%s", what);
}

static int spend(struct jx *x, size_t n, TSNode at)
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

/* Up to MAX_ARGS named children of an argument list that are not comments; their count. */
static size_t args_of(TSNode list, TSNode *out)
{
	size_t k = 0;
	uint32_t n = ts_node_is_null(list) ? 0 : ts_node_named_child_count(list);
	for (uint32_t i = 0; i < n && k < MAX_ARGS; i++) {
		TSNode c = ts_node_named_child(list, i);
		if (!is(c, "line_comment") && !is(c, "block_comment"))
			out[k++] = c;
	}
	return k;
}

/* The identifier a name ends with (`Test` of `org.junit.Test`), copied into out. */
static void last_name(const struct jx *x, TSNode n, char *out, size_t cap)
{
	while (is(n, "scoped_identifier") || is(n, "scoped_type_identifier") || is(n, "field_access")) {
		TSNode k = field(n, "name");
		if (ts_node_is_null(k))
			k = field(n, "field");
		if (ts_node_is_null(k))
			k = ts_node_named_child(n, ts_node_named_child_count(n) - 1);
		n = k;
	}
	size_t len = ts_node_is_null(n) ? 0 : ts_node_end_byte(n) - ts_node_start_byte(n);
	if (len >= cap)
		len = 0;
	memcpy(out, len ? x->src + ts_node_start_byte(n) : "", len);
	out[len] = 0;
}

/* ---- canonical text: leaf tokens, comments dropped, a space between two word tokens ---- */

static int word(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '$' ||
	       c >= 0x80;
}

struct canon_st {
	const char *src;
	struct buf *b;
	int lastword, inlit;
};

static int canon_leaf(TSNode k, void *ctx)
{
	struct canon_st *st = ctx;
	struct buf *b = st->b;
	if (ts_node_child_count(k))
		return 0;
	/* the type once, told apart by its first byte before any strcmp: this runs on every leaf */
	const char *t = ts_node_type(k);
	if ((t[0] == 'l' && !strcmp(t, "line_comment")) || (t[0] == 'b' && !strcmp(t, "block_comment")))
		return 0;
	uint32_t a = ts_node_start_byte(k), e = ts_node_end_byte(k);
	if (a >= e || b->len >= FORM_CAP)
		return 0;
	const char *p = st->src + a;
	int lit = (t[0] == 's' && (!strcmp(t, "string_fragment") || !strcmp(t, "string_content"))) || /* Kotlin's */
		  (t[0] == 'e' && !strcmp(t, "escape_sequence")) || (t[0] == 'm' && !strcmp(t, "multiline_string_fragment"));
	if (!lit && !st->inlit && st->lastword && word((unsigned char)p[0]))
		buf_putc(b, ' ');
	buf_append(b, p, e - a);
	st->lastword = word((unsigned char)p[e - a - 1]);
	st->inlit = lit;
	return 0;
}

char *a1_jvm_canon(const char *src, TSNode n, struct buf *cb, size_t *visited)
{
	buf_reset(cb);
	struct canon_st st = {src, cb, 0, 0};
	*visited = 0;
	tsnode_any(n, canon_leaf, &st, visited);
	return xstrdup(buf_cstr(cb));
}

static char *canon(struct jx *x, TSNode n)
{
	size_t visited;
	char *t = a1_jvm_canon(x->src, n, &x->cb, &visited);
	spend(x, visited, n);
	return t;
}

static int constant(TSNode n, int depth);

struct a1_jvm_local *a1_jvm_local_named(struct a1_jvm_locals *l, const char *src, TSNode id)
{
	if (!tsnode_is(id, "identifier"))
		return NULL;
	uint32_t a = ts_node_start_byte(id), b = ts_node_end_byte(id);
	for (size_t i = 0; i < l->n; i++)
		if (strlen(l->v[i].name) == b - a && !memcmp(l->v[i].name, src + a, b - a))
			return &l->v[i];
	return NULL;
}

struct a1_jvm_local *a1_jvm_local_new(struct a1_jvm_locals *l, const char *src, TSNode id)
{
	struct a1_jvm_local *k = a1_jvm_local_named(l, src, id);
	if (k) {
		k->bad = 1;
		return NULL;
	}
	l->v = xgrow_zeroed(l->v, &l->cap, l->n, sizeof *l->v, 8);
	k = &l->v[l->n++];
	k->name = xstrndup(src + ts_node_start_byte(id), ts_node_end_byte(id) - ts_node_start_byte(id));
	return k;
}

void a1_jvm_locals_clear(struct a1_jvm_locals *l)
{
	for (size_t i = 0; i < l->n; i++) {
		free(l->v[i].name);
		free(l->v[i].text);
	}
	if (l->n)
		memset(l->v, 0, l->n * sizeof *l->v);
	l->n = 0;
}

void a1_jvm_locals_free(struct a1_jvm_locals *l)
{
	a1_jvm_locals_clear(l);
	free(l->v);
	memset(l, 0, sizeof *l);
}

static void locals_free(struct jx *x)
{
	a1_jvm_locals_clear(&x->loc);
}

static struct a1_jvm_local *local_named(struct jx *x, TSNode id)
{
	return a1_jvm_local_named(&x->loc, x->src, id);
}

/* `T name = value;` seen: remembered (a second declaration of the name makes it not known). */
static void local_declared(struct jx *x, TSNode id, TSNode value)
{
	struct a1_jvm_local *l = a1_jvm_local_new(&x->loc, x->src, id);
	if (!l)
		return;
	l->bad = ts_node_is_null(value);
	l->text = l->bad ? NULL : canon(x, value);
	l->cst = !l->bad && constant(value, 0);
}

/* An argument as an assertion compares it: a local assigned once is its value (`int want = 4;
 * assertEquals(want, add(1, 2))` expects 4; `int got = 3; assertEquals(3, got)` checks a
 * constant). New; *cst = 1 when that value is a constant. */
static char *resolved(struct jx *x, TSNode n, int *cst)
{
	struct a1_jvm_local *l = local_named(x, n);
	if (l && !l->bad) {
		*cst = l->cst;
		return xstrdup(l->text);
	}
	*cst = constant(n, 0);
	return canon(x, n);
}

static int is_literal(TSNode n);

/* A condition's value when it is a literal: 1 true, 0 false, -1 not known. */
static int cond_value(TSNode n)
{
	int neg = 0;
	for (int i = 0; i < 64 && !ts_node_is_null(n); i++) {
		if (is(n, "parenthesized_expression")) {
			n = ts_node_named_child(n, 0);
		} else if (is(n, "unary_expression") && ts_node_child_count(n) == 2 &&
			   !strcmp(ts_node_type(ts_node_child(n, 0)), "!")) {
			neg ^= 1;
			n = field(n, "operand");
		} else if (is(n, "true") || is(n, "false")) {
			return is(n, "true") ^ neg;
		} else if (is(n, "binary_expression") && ts_node_child_count(n) == 3) {
			/* x || true is true, x && false is false, whatever x is */
			const char *op = ts_node_type(ts_node_child(n, 1));
			int l = cond_value(field(n, "left")), r = cond_value(field(n, "right"));
			int v = !strcmp(op, "||")   ? (l == 1 || r == 1 ? 1 : l == 0 && r == 0 ? 0 : -1)
				: !strcmp(op, "&&") ? (l == 0 || r == 0 ? 0 : l == 1 && r == 1 ? 1 : -1)
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
static int constant(TSNode n, int depth)
{
	static const char *const ops[] = {"binary_expression", "unary_expression", "parenthesized_expression",
					  "ternary_expression", "string_fragment", "escape_sequence",
					  "multiline_string_fragment", NULL};
	if (ts_node_is_null(n) || depth > 64)
		return 0;
	if (is_literal(n) && !is(n, "class_literal"))
		return !is(n, "string_literal") || ts_node_named_child_count(n) == 0 ||
		       constant(ts_node_named_child(n, 0), depth + 1);
	if (!str_in(ts_node_type(n), ops))
		return 0;
	uint32_t k = ts_node_named_child_count(n);
	for (uint32_t i = 0; i < k; i++)
		if (!constant(ts_node_named_child(n, i), depth + 1))
			return 0;
	return 1;
}

static int is_literal(TSNode n)
{
	static const char *const lits[] = {"true",
					   "false",
					   "null_literal",
					   "string_literal",
					   "character_literal",
					   "decimal_integer_literal",
					   "hex_integer_literal",
					   "octal_integer_literal",
					   "binary_integer_literal",
					   "decimal_floating_point_literal",
					   "hex_floating_point_literal",
					   "class_literal",
					   NULL};
	while (is(n, "parenthesized_expression"))
		n = ts_node_named_child(n, 0);
	return !ts_node_is_null(n) && str_in(ts_node_type(n), lits);
}

static int literal_cb(const void *ctx, TSNode n)
{
	(void)ctx;
	return is_literal(n);
}

static TSNode jvm_unparen(TSNode n)
{
	for (int i = 0; i < 64 && is(n, "parenthesized_expression"); i++)
		n = ts_node_named_child(n, 0);
	return n;
}

static int jvm_comparison(TSNode n, int (*lit)(const void *, TSNode), const void *ctx, TSNode *S, TSNode *E,
			  const char **op, int depth)
{
	static const char *const cmp[] = {">=", ">", "<=", "<", "==", "===", "!=", "!==", NULL};
	static const char *const flip[][2] = {{">=", "<="}, {"<=", ">="}, {">", "<"}, {"<", ">"}};
	n = jvm_unparen(n);
	if (ts_node_is_null(n) || !is(n, "binary_expression"))
		return 0;
	TSNode o = field(n, "operator");
	if (ts_node_is_null(o))
		return 0;
	const char *t = ts_node_type(o);
	if (depth < 32 && !strcmp(t, "||")) {
		const char *inner;
		if (jvm_comparison(field(n, "left"), lit, ctx, S, E, &inner, depth + 1) ||
		    jvm_comparison(field(n, "right"), lit, ctx, S, E, &inner, depth + 1)) {
			*op = "||";
			return 1;
		}
		return 0;
	}
	size_t i;
	for (i = 0; cmp[i] && strcmp(cmp[i], t); i++)
		;
	if (!cmp[i])
		return 0;
	*op = cmp[i];
	*S = field(n, "left");
	*E = field(n, "right");
	if (ts_node_is_null(*S) || ts_node_is_null(*E))
		return 0;
	if (lit(ctx, *S) && !lit(ctx, *E)) {
		TSNode k = *S;
		*S = *E;
		*E = k;
		for (size_t j = 0; j < sizeof flip / sizeof *flip; j++)
			if (!strcmp(*op, flip[j][0]))
				*op = flip[j][1];
	}
	return 1;
}

int a1_jvm_comparison(TSNode n, int (*lit)(const void *ctx, TSNode n), const void *ctx, TSNode *S, TSNode *E,
		      const char **op)
{
	return jvm_comparison(n, lit, ctx, S, E, op, 0);
}

/* ---- records ---- */

void a1_jvm_names_add(struct a1_js_names *l, const char *s)
{
	l->v = xgrow_zeroed(l->v, &l->cap, l->n, sizeof *l->v, 8);
	l->v[l->n++] = xstrdup(s);
}

void a1_jvm_names_free(struct a1_js_names *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->v[i]);
	free(l->v);
	memset(l, 0, sizeof *l);
}

static struct a1_js_facts *facts_of(struct jx *x, const struct ctx *c)
{
	if (c->test >= 0)
		return &x->j->s.tests[c->test].facts;
	if (c->func >= 0)
		return &x->j->s.funcs[c->func].facts;
	return NULL;
}

static struct a1_js_names *calls_of(struct jx *x, const struct ctx *c)
{
	if (c->test >= 0)
		return &x->j->s.tests[c->test].calls;
	if (c->func >= 0)
		return &x->j->s.funcs[c->func].calls;
	return NULL;
}

/* A fact: strings are taken (owned by the side from now on). */
struct draft {
	char *form, *subject, *matcher, *expected, *exp1;
	unsigned kind;
	int taut;
};

/* A boolean comparison asserted true (assertTrue(x >= 0), assertThat(x >= 0).isTrue(),
 * assertThat(x >= 0, is(true))) is read as that comparison: subject x, matcher ">=", expected
 * 0 - Java's judge then compares it with an exact check of x as it compares matchers. */
static void boolean_comparison(struct jx *x, TSNode cond, struct draft *d)
{
	TSNode S, E;
	const char *op;
	if (d->taut || !a1_jvm_comparison(cond, literal_cb, NULL, &S, &E, &op))
		return;
	free(d->subject), free(d->matcher), free(d->expected), free(d->exp1);
	int cst;
	d->subject = resolved(x, S, &cst);
	d->matcher = xstrdup(op);
	d->exp1 = resolved(x, E, &cst);
	d->expected = xstrdup(d->exp1);
}

static void add_fact(struct jx *x, const struct ctx *c, TSNode at, struct draft *d)
{
	struct a1_js_facts *l = facts_of(x, c);
	if (!l) {
		free(d->form), free(d->subject), free(d->matcher), free(d->expected), free(d->exp1);
		return;
	}
	l->v = xgrow_zeroed(l->v, &l->cap, l->n, sizeof *l->v, 8);
	struct a1_js_fact *f = &l->v[l->n++];
	f->form = d->form;
	f->subject = d->subject;
	f->matcher = d->matcher ? d->matcher : xstrdup("");
	f->expected = d->expected;
	f->exp1 = d->exp1;
	f->digits = -1;
	f->kind = d->kind;
	f->line = ts_node_start_point(at).row + 1;
	f->dead = c->dead;
	f->swallowed = c->swallowed;
	f->taut = (unsigned char)d->taut;
}

static void add_cond(struct jx *x, const char *test, const char *text)
{
	a1_jvm_add_cond(x->j, test, text);
}

void a1_jvm_assumed(struct a1_java_side *j, long test, struct a1_jvm_life *life, const char *name, int v,
		    const char *form)
{
	int skip = !strcmp(name, "abort") || (!strcmp(name, "assumeTrue") && v == 0) ||
		   (!strcmp(name, "assumeFalse") && v == 1);
	int none = (!strcmp(name, "assumeTrue") && v == 1) || (!strcmp(name, "assumeFalse") && v == 0);
	if (none)
		return;
	if (life && skip)
		life->skip = 1;
	else if (life)
		a1_jvm_names_add(&life->conds, form);
	else if (skip && test >= 0)
		j->s.tests[test].mods |= A1_JS_SKIP;
	else if (test >= 0)
		a1_jvm_add_cond(j, j->s.tests[test].name, form);
}

void a1_jvm_add_site(struct a1_js_site **v, size_t *n, size_t *cap, const char *name, const char *text)
{
	*v = xgrow_zeroed(*v, cap, *n, sizeof **v, 4);
	(*v)[*n].name = xstrdup(name);
	(*v)[(*n)++].text = xstrdup(text);
}

int a1_jvm_constructed(const char *t)
{
	if (!strncmp(t, "new ", 4))
		return 1;
	if (!(*t >= 'A' && *t <= 'Z'))
		return 0;
	while (word((unsigned char)*t))
		t++;
	return *t == '(' || *t == '<'; /* Kotlin's Point(1, 2), Box<Int>(1) */
}

int a1_jvm_asserts_only_caught(const char *body, const char *var)
{
	static const char *const forms[] = {"{assertNotNull(%s)}",	   "{assertNotNull(%s);}",
					    "{assertTrue(%s!=null)}",	   "{assertTrue(%s!=null);}",
					    "{assertThat(%s).isNotNull()}", "{assertThat(%s).isNotNull();}",
					    "{assertThat(%s,notNullValue())}", "{assertThat(%s,notNullValue());}", NULL};
	if (!var || !*var || strlen(var) > 64)
		return 0;
	for (const char *const *f = forms; *f; f++) {
		char want[160];
		snprintf(want, sizeof want, *f, var);
		if (!strcmp(body, want))
			return 1;
	}
	return 0;
}

int a1_jvm_surefire_name(const char *cls)
{
	size_t n = strlen(cls);
	return starts(cls, "Test") || (n >= 4 && !strcmp(cls + n - 4, "Test")) || (n >= 5 && !strcmp(cls + n - 5, "Tests")) ||
	       (n >= 8 && !strcmp(cls + n - 8, "TestCase")) || starts(cls, "IT") || (n >= 2 && !strcmp(cls + n - 2, "IT")) ||
	       (n >= 6 && !strcmp(cls + n - 6, "ITCase"));
}

int a1_jvm_catches_failure(const char *cls)
{
	static const char *const caught[] = {"AssertionError", "AssertionFailedError", "Error", "Throwable",
					     "ComparisonFailure", "MultipleFailuresError", NULL};
	if (!cls)
		return 0;
	const char *dot = strrchr(cls, '.');
	char nm[96];
	snprintf(nm, sizeof nm, "%s", cls);
	if (dot && !strcmp(dot, ".class")) { /* X.class, java.lang.X.class */
		nm[dot - cls] = 0;
		const char *d2 = strrchr(nm, '.');
		if (d2)
			memmove(nm, d2 + 1, strlen(d2));
	}
	return str_in(nm, caught);
}

size_t a1_jvm_branch_conds(struct a1_java_side *j, long test, const char *cond, size_t n0, size_t n1, size_t n2)
{
	if (test < 0 || (n1 > n0) == (n2 > n1)) /* in both branches, or in neither */
		return 0;
	const struct a1_js_facts *f = &j->s.tests[test].facts;
	const char *name = j->s.tests[test].name;
	/* the test's conditions so far: appended while its body is walked, so the last ones */
	size_t have = 0;
	for (size_t k = j->nconds; k-- > 0 && !strcmp(j->conds[k].name, name);)
		have++;
	int when = n1 > n0;
	size_t bytes = 0;
	for (size_t i = when ? n0 : n1; i < (when ? n1 : n2) && i < f->n && have < A1_JVM_BRANCH_CONDS_MAX; i++) {
		if (f->v[i].dead || f->v[i].swallowed)
			continue;
		char *text = xasprintf("%s %s: %s", when ? A1_JVM_ONLY_WHEN : A1_JVM_ONLY_UNLESS, cond, f->v[i].form);
		bytes += strlen(text);
		a1_jvm_add_cond(j, name, text);
		free(text);
		have++;
	}
	return bytes;
}

void a1_jvm_add_cond(struct a1_java_side *j, const char *test, const char *text)
{
	j->conds = xgrow_zeroed(j->conds, &j->capconds, j->nconds, sizeof *j->conds, 4);
	j->conds[j->nconds].name = xstrdup(test);
	j->conds[j->nconds++].text = xstrdup(text);
}

/* ---- assertions ---- */

static void walk(struct jx *x, TSNode n, struct ctx c);

/* Walks the arguments of each call of a chain (not the calls again). */
static void walk_args(struct jx *x, TSNode *calls, size_t n, struct ctx c)
{
	for (size_t i = 0; i < n; i++)
		walk(x, field(calls[i], "arguments"), c);
}

static int object_is(const struct jx *x, TSNode obj, const char *const *tails)
{
	if (ts_node_is_null(obj))
		return 1;
	char nm[64];
	last_name(x, obj, nm, sizeof nm);
	return str_in(nm, tails);
}

/* JUnit's assertX(...) / fail(...): the base arity (arguments besides a message). */
static int junit_arity(const char *name)
{
	static const struct {
		const char *name;
		int arity;
	} t[] = {{"assertEquals", 2},	 {"assertNotEquals", 2},   {"assertArrayEquals", 2}, {"assertIterableEquals", 2},
		 {"assertLinesMatch", 2}, {"assertSame", 2},	   {"assertNotSame", 2},     {"assertTrue", 1},
		 {"assertFalse", 1},	 {"assertNull", 1},	   {"assertNotNull", 1},     {"assertThrows", 2},
		 {"assertThrowsExactly", 2}, {"assertInstanceOf", 2}, {"assertDoesNotThrow", 1}, {"assertTimeout", 2},
		 {"assertTimeoutPreemptively", 2}, {"fail", 0}};
	for (size_t i = 0; i < sizeof t / sizeof *t; i++)
		if (!strcmp(name, t[i].name))
			return t[i].arity;
	return -1;
}

static int is_message(TSNode n)
{
	return is(n, "string_literal") || is(n, "lambda_expression") || is(n, "binary_expression");
}

static void junit_fact(struct jx *x, TSNode call, const char *name, int arity, struct ctx c)
{
	TSNode a[MAX_ARGS];
	size_t n = args_of(field(call, "arguments"), a), off = 0;
	if ((int)n > arity && arity > 0 && is(a[0], "string_literal") && !is_message(a[n - 1]))
		off = 1; /* JUnit 4: the message first */
	else if ((int)n > arity && is_message(a[n - 1]))
		n--; /* JUnit 5: the message last */
	struct draft d = {.form = canon(x, call), .matcher = xstrdup(name), .kind = A1_JS_K_ASSERT};
	int swallow_args = 0;
	int c1 = 0, c2 = 0;
	if (arity == 2 && n >= off + 2) {
		d.exp1 = resolved(x, a[off], &c1);
		d.subject = resolved(x, a[off + 1], &c2);
		if (local_named(x, a[off]) || local_named(x, a[off + 1])) { /* the values compared, in the form */
			char *f = xasprintf("%s /* %s, %s */", d.form, d.exp1, d.subject);
			free(d.form);
			d.form = f;
		}
		for (size_t i = off + 2; i < n; i++) { /* a delta */
			char *e = canon(x, a[i]), *sofar = xasprintf("%s,%s", d.exp1, e);
			free(e);
			free(d.expected);
			d.expected = sofar;
		}
		if (!d.expected)
			d.expected = xstrdup(d.exp1);
		static const char *const eqs[] = {"assertEquals",	  "assertArrayEquals", "assertIterableEquals",
						  "assertLinesMatch", "assertSame",	       NULL};
		/* two locals each made by `new Point(1, 2)` are two objects: an equals() test, no tautology */
		int objects = (local_named(x, a[off]) || local_named(x, a[off + 1])) && a1_jvm_constructed(d.subject);
		d.taut = str_in(name, eqs) && ((!strcmp(d.subject, d.exp1) && !objects) || (c1 && c2));
		/* assertThrows(AssertionError.class, () -> assertEquals(..)): passes when the assertion fails */
		swallow_args = (!strcmp(name, "assertThrows") || !strcmp(name, "assertThrowsExactly")) &&
			       a1_jvm_catches_failure(d.exp1);
	} else if (arity == 1 && n >= off + 1) {
		d.subject = resolved(x, a[off], &c1);
		if (local_named(x, a[off])) {
			char *f = xasprintf("%s /* %s */", d.form, d.subject);
			free(d.form);
			d.form = f;
		}
		int v = cond_value(a[off]);
		d.taut = (!strcmp(name, "assertTrue") && (v == 1 || (v < 0 && c1))) ||
			 (!strcmp(name, "assertFalse") && (v == 0 || (v < 0 && c1))) ||
			 (!strcmp(name, "assertNull") && is(a[off], "null_literal")) ||
			 (!strcmp(name, "assertNotNull") && is_literal(a[off]) && !is(a[off], "null_literal"));
		if (!strcmp(name, "assertTrue"))
			boolean_comparison(x, a[off], &d);
	}
	add_fact(x, &c, call, &d);
	c.swallowed |= swallow_args;
	walk(x, field(call, "arguments"), c);
}

/* Hamcrest: assertThat([reason,] actual, matcher). */
static void hamcrest_fact(struct jx *x, TSNode call, struct ctx c)
{
	TSNode a[MAX_ARGS];
	size_t n = args_of(field(call, "arguments"), a);
	TSNode actual = a[n - 2], m = a[n - 1];
	struct draft d = {.form = canon(x, call), .subject = canon(x, actual), .kind = A1_JS_K_T};
	if (!is(m, "method_invocation")) { /* assertThat(String reason, boolean assertion) */
		free(d.subject);
		d.subject = canon(x, m);
		d.matcher = xstrdup("assertTrue");
		d.kind = A1_JS_K_ASSERT;
		d.taut = cond_value(m) == 1;
		boolean_comparison(x, m, &d);
		add_fact(x, &c, call, &d);
		walk(x, field(call, "arguments"), c);
		return;
	}
	int neg = 0;
	char nm[64] = "";
	for (int i = 0; i < MAX_STEPS && is(m, "method_invocation"); i++) {
		last_name(x, field(m, "name"), nm, sizeof nm);
		TSNode in[MAX_ARGS];
		size_t k = args_of(field(m, "arguments"), in);
		if (k == 1 && !strcmp(nm, "not") && is(in[0], "method_invocation")) {
			neg ^= 1;
			m = in[0];
		} else if (k == 1 && !strcmp(nm, "is") && is(in[0], "method_invocation")) {
			m = in[0];
		} else {
			break;
		}
	}
	d.matcher = xasprintf("%s%s", neg ? "not." : "", nm);
	TSNode ea[MAX_ARGS];
	size_t k = args_of(field(m, "arguments"), ea);
	if (k) {
		char *inner = canon(x, field(m, "arguments")); /* "(a,b)" */
		size_t L = strlen(inner);
		d.expected = L >= 2 ? xstrndup(inner + 1, L - 2) : xstrdup("");
		free(inner);
		d.exp1 = canon(x, ea[0]);
	}
	static const char *const eqs[] = {"is", "equalTo", "sameInstance", "samePropertyValuesAs", NULL};
	d.taut = !neg && str_in(nm, eqs) && k == 1 && (!strcmp(d.exp1, d.subject) || (constant(actual, 0) && constant(ea[0], 0)));
	if (!neg && (!strcmp(nm, "is") || !strcmp(nm, "equalTo")) && k == 1 && !strcmp(d.exp1, "true"))
		boolean_comparison(x, actual, &d);
	add_fact(x, &c, call, &d);
	walk(x, field(call, "arguments"), c);
}

static int assertj_root(const char *nm)
{
	static const char *const roots[] = {"assertThat", "then", "assertWithMessage", "assertAbout", NULL};
	return str_in(nm, roots) || starts(nm, "assertThat") || starts(nm, "thenThrownBy");
}

/* A chain step that is only a description (dropped) or that changes the subject (kept in it). */
static int step_description(const char *nm)
{
	static const char *const d[] = {"as",		     "describedAs",	 "withFailMessage",
					"overridingErrorMessage", "withRepresentation", "inHexadecimal",
					"inBinary",	     "withThreadDumpOnError", NULL};
	return str_in(nm, d);
}

static int step_subject(const char *nm)
{
	static const char *const s[] = {"that", "element", "first", "last", "singleElement", "cause", "rootCause",
					"succeedsWithin", "asString", "asList", "asInstanceOf", "map", "about", "withMessage",
					NULL};
	size_t L = strlen(nm);
	return str_in(nm, s) || starts(nm, "extracting") || starts(nm, "flatExtracting") || starts(nm, "using") ||
	       starts(nm, "ignoring") || starts(nm, "filteredOn") || starts(nm, "comparing") ||
	       (L > 4 && !strcmp(nm + L - 4, "That")); /* Truth: hasMessageThat() */
}

/* AssertJ / Truth: root(actual).step(...).step(...): one fact per matcher step. `top` is the
 * outermost call. Returns 0 when it is no such chain. */
static int chain_facts(struct jx *x, TSNode top, struct ctx c)
{
	TSNode calls[MAX_STEPS];
	size_t n = 0;
	for (TSNode k = top; is(k, "method_invocation") && n < MAX_STEPS; k = field(k, "object"))
		calls[n++] = k;
	TSNode root = calls[n - 1];
	char rn[64];
	last_name(x, field(root, "name"), rn, sizeof rn);
	if (!assertj_root(rn) || is(field(root, "object"), "method_invocation"))
		return 0;
	if (!strcmp(rn, "then") && !object_is(x, field(root, "object"), (const char *const[]){"BDDAssertions", NULL}))
		return 0;
	TSNode ra[MAX_ARGS];
	size_t rk = args_of(field(root, "arguments"), ra);
	if (rk > 1 || (n == 1 && !starts(rn, "assertThat")))
		return 0;
	struct buf subj = {0}, ign = {0};
	char *exp_class = NULL; /* assertThatExceptionOfType(X.class), assertThatIllegalStateException() */
	int exc_root = starts(rn, "assertThat") && strstr(rn, "Exception") && strcmp(rn, "assertThatThrownBy");
	if (exc_root)
		exp_class = rk ? canon(x, ra[0]) : xasprintf("%s.class", rn + strlen("assertThat"));
	int rcst = 0;
	if (!exc_root && rk) {
		char *s = resolved(x, ra[0], &rcst);
		buf_puts(&subj, s);
		free(s);
	}
	int lit = rk && (is_literal(ra[0]) || rcst);
	int plain = rk && !exc_root; /* the subject is the root's argument as it is */
	int made = 0, swallow_args = exc_root && a1_jvm_catches_failure(exp_class);
	for (size_t i = n - 1; i-- > 0;) {
		TSNode st = calls[i];
		char nm[64];
		last_name(x, field(st, "name"), nm, sizeof nm);
		TSNode sa[MAX_ARGS];
		size_t sk = args_of(field(st, "arguments"), sa);
		if (step_description(nm))
			continue;
		if (!strcmp(rn, "assertThatThrownBy") && (!strcmp(nm, "isInstanceOf") || !strcmp(nm, "isExactlyInstanceOf")) &&
		    sk == 1) {
			char *k = canon(x, sa[0]);
			swallow_args |= a1_jvm_catches_failure(k);
			free(k);
		}
		if (exc_root && !strcmp(nm, "isThrownBy") && sk) {
			char *s = canon(x, sa[0]);
			buf_puts(&subj, s);
			free(s);
		}
		if (starts(nm, "ignoring")) { /* ignoringFields("total"): what the check then leaves out */
			char *s = canon(x, field(st, "arguments"));
			buf_printf(&ign, ".%s%s", nm, s);
			free(s);
			continue;
		}
		if (step_subject(nm) && !(exc_root && !strcmp(nm, "isThrownBy"))) {
			char *s = canon(x, field(st, "arguments"));
			if (subj.len || strcmp(nm, "that"))
				buf_printf(&subj, ".%s%s", nm, s);
			else
				buf_puts(&subj, s);
			free(s);
			lit = 0;
			plain = 0;
			continue;
		}
		struct draft d = {.kind = A1_JS_K_EXPECT, .matcher = ign.len ? xasprintf("ignoring.%s", nm) : xstrdup(nm)};
		d.subject = xstrdup(buf_cstr(&subj));
		char *rt = canon(x, root), *argtext = canon(x, field(st, "arguments"));
		d.form = xasprintf("%s%s.%s%s", rt, buf_cstr(&ign), nm, argtext); /* the root, what it ignores, this step */
		free(rt);
		free(argtext);
		if (exc_root && !strcmp(nm, "isThrownBy")) {
			d.expected = xstrdup(exp_class);
			d.exp1 = xstrdup(exp_class);
		} else if (sk) {
			char *inner = canon(x, field(st, "arguments"));
			size_t L = strlen(inner);
			d.expected = L >= 2 ? xstrndup(inner + 1, L - 2) : xstrdup("");
			free(inner);
			int ecst = 0;
			d.exp1 = resolved(x, sa[0], &ecst);
			if (sk == 1 && local_named(x, sa[0])) {
				free(d.expected);
				d.expected = xstrdup(d.exp1);
			}
		}
		if ((rk && local_named(x, ra[0])) || (sk && local_named(x, sa[0]))) { /* the values compared, in the form */
			char *f = xasprintf("%s /* %s, %s */", d.form, d.subject, d.exp1 ? d.exp1 : "");
			free(d.form);
			d.form = f;
		}
		static const char *const eqs[] = {"isEqualTo", "isSameAs", "isEqualByComparingTo", "containsExactly", NULL};
		if (sk == 1 && str_in(nm, eqs) && d.subject[0] && !strcmp(d.subject, d.exp1) &&
		    !((local_named(x, sa[0]) || (rk && local_named(x, ra[0]))) && a1_jvm_constructed(d.subject)))
			d.taut = 1;
		if (lit) {
			TSNode s0 = ra[0];
			int v = cond_value(s0);
			d.taut |= (!strcmp(nm, "isTrue") && v == 1) || (!strcmp(nm, "isFalse") && v == 0) ||
				  (!strcmp(nm, "isNull") && is(s0, "null_literal")) ||
				  (!strcmp(nm, "isNotNull") && !is(s0, "null_literal")) ||
				  (sk == 1 && str_in(nm, eqs) && (is_literal(sa[0]) || constant(sa[0], 0) ||
								   (local_named(x, sa[0]) && local_named(x, sa[0])->cst &&
								    !local_named(x, sa[0])->bad)));
		}
		if (plain &&
		    (!strcmp(nm, "isTrue") || (sk == 1 && !strcmp(nm, "isEqualTo") && !strcmp(d.exp1, "true"))))
			boolean_comparison(x, ra[0], &d);
		add_fact(x, &c, st, &d);
		made++;
	}
	if (!made && starts(rn, "assertThat")) { /* assertThat(x); checks nothing */
		struct draft d = {.kind = A1_JS_K_EXPECT, .matcher = xstrdup(""), .taut = 1};
		d.form = canon(x, top);
		d.subject = xstrdup(buf_cstr(&subj));
		add_fact(x, &c, top, &d);
	}
	free(exp_class);
	buf_free(&subj);
	buf_free(&ign);
	c.swallowed |= swallow_args; /* assertThatThrownBy(() -> assertEquals(..)).isInstanceOf(AssertionError.class) */
	walk_args(x, calls, n, c);
	return 1;
}

/* ---- assumptions ---- */

/* assumeTrue(false), Assume.assumeTrue(false), assumeFalse(true), Assumptions.abort(): the test
 * is skipped; an assumption on a value: a conditional skip. 0 when it is no assumption. */
static int assumption(struct jx *x, TSNode call, const char *nm, struct ctx c)
{
	static const char *const names[] = {"assumeTrue",	 "assumeFalse",	      "assumeThat", "assumeNotNull",
					     "assumeNoException", "assumingThat", "abort",	    NULL};
	static const char *const owners[] = {"Assume", "Assumptions", NULL};
	if (!str_in(nm, names) || !object_is(x, field(call, "object"), owners))
		return 0;
	TSNode a[MAX_ARGS];
	size_t n = args_of(field(call, "arguments"), a);
	TSNode cond = n == 2 && is(a[0], "string_literal") ? a[1] : a[0]; /* JUnit 4: the message first */
	int v = n ? cond_value(cond) : -1;
	if (!strcmp(nm, "assumingThat")) { /* assumingThat(cond, () -> ..): runs what it holds only when cond */
		struct ctx in = c;
		in.dead |= v == 0;
		size_t n0 = c.test >= 0 ? x->j->s.tests[c.test].facts.n : 0;
		walk(x, field(call, "arguments"), in);
		if (v < 0 && c.test >= 0 && !x->j->s.status && n) {
			char *ct = canon(x, a[0]), *what = xasprintf("assumingThat(%s)", ct);
			spend(x, a1_jvm_branch_conds(x->j, c.test, what, n0, x->j->s.tests[c.test].facts.n, x->j->s.tests[c.test].facts.n),
			      call);
			free(ct);
			free(what);
		}
		return 1;
	}
	if (!c.dead && (c.test >= 0 || c.lc)) {
		char *form = canon(x, call);
		a1_jvm_assumed(x->j, c.test, c.lc, nm, v, form);
		free(form);
	}
	walk(x, field(call, "arguments"), c);
	return 1;
}

/* ---- bodies ---- */

static void call(struct jx *x, TSNode n, struct ctx c)
{
	char nm[64];
	last_name(x, field(n, "name"), nm, sizeof nm);
	static const char *const owners[] = {"Assert", "Assertions", "TestCase", NULL};
	int arity = junit_arity(nm);
	if (arity >= 0 && object_is(x, field(n, "object"), owners)) {
		junit_fact(x, n, nm, arity, c);
		return;
	}
	if (!strcmp(nm, "assertThat") && object_is(x, field(n, "object"), (const char *const[]){"MatcherAssert", "Assert", NULL})) {
		TSNode a[MAX_ARGS];
		size_t k = args_of(field(n, "arguments"), a);
		if (k == 2 || k == 3) {
			hamcrest_fact(x, n, c);
			return;
		}
	}
	if (!strcmp(nm, "assertAll") && object_is(x, field(n, "object"), owners)) {
		walk(x, field(n, "arguments"), c); /* its executables hold the assertions */
		return;
	}
	TSNode none[MAX_ARGS];
	if (!strcmp(nm, "expect") && is(field(n, "object"), "identifier") && args_of(field(n, "arguments"), none) == 1 &&
	    is(none[0], "class_literal")) {
		/* JUnit 4's ExpectedException rule, thrown.expect(X.class): as @Test(expected = X.class) */
		struct draft d = {.form = canon(x, n), .matcher = xstrdup("expected"), .kind = A1_JS_K_ASSERT};
		d.exp1 = canon(x, none[0]);
		d.expected = xstrdup(d.exp1);
		add_fact(x, &c, n, &d);
		return;
	}
	if (!strcmp(nm, "assertSoftly") && args_of(field(n, "arguments"), none) == 1 && is(none[0], "lambda_expression")) {
		/* assertSoftly(softly -> { .. }) ends with softly.assertAll(): the same fact, so that the
		 * one respelled as the other is no assertion removed */
		TSNode par = field(none[0], "parameters");
		if (is(par, "inferred_parameters") || is(par, "formal_parameters"))
			par = ts_node_named_child(par, 0);
		if (is(par, "formal_parameter"))
			par = field(par, "name");
		if (is(par, "identifier")) {
			char *p = canon(x, par);
			struct draft d = {.form = xasprintf("%s.assertAll()", p), .subject = p, .matcher = xstrdup("assertAll"),
					  .kind = A1_JS_K_ASSERT};
			add_fact(x, &c, n, &d);
		}
		walk(x, field(n, "arguments"), c);
		return;
	}
	if (!strcmp(nm, "assertAll") && !args_of(field(n, "arguments"), none)) {
		/* softly.assertAll(): AssertJ's soft assertions fail only here */
		struct draft d = {.form = canon(x, n), .subject = canon(x, field(n, "object")), .matcher = xstrdup(nm),
				  .kind = A1_JS_K_ASSERT};
		add_fact(x, &c, n, &d);
		return;
	}
	if (assumption(x, n, nm, c) || chain_facts(x, n, c))
		return;
	struct a1_js_names *calls = calls_of(x, &c);
	if (calls)
		a1_jvm_names_add(calls, nm);
	walk(x, field(n, "object"), c);
	walk(x, field(n, "arguments"), c);
}

/* A catch that keeps a failed assertion from the runner: it takes AssertionError (or what
 * extends it, or Error / Throwable) and neither throws nor fails again. */
static int swallows(struct jx *x, TSNode try_node)
{
	uint32_t n = ts_node_named_child_count(try_node);
	for (uint32_t i = 0; i < n; i++) {
		TSNode cc = ts_node_named_child(try_node, i);
		if (!is(cc, "catch_clause"))
			continue;
		TSNode par = ts_node_named_child(cc, 0), types = {0};
		for (uint32_t pi = 0, np = ts_node_named_child_count(par); pi < np; pi++) /* a few children */
			if (is(ts_node_named_child(par, pi), "catch_type")) { /* after `final` or an annotation */
				types = ts_node_named_child(par, pi);
				break;
			}
		int takes = 0;
		uint32_t k = is(types, "catch_type") ? ts_node_named_child_count(types) : 0;
		for (uint32_t t = 0; t < k && !takes; t++) {
			char nm[64];
			last_name(x, ts_node_named_child(types, t), nm, sizeof nm);
			takes = a1_jvm_catches_failure(nm);
		}
		if (!takes)
			continue;
		char *body = canon(x, field(cc, "body")), *var = canon(x, field(par, "name"));
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

/* 1 when statement s always leaves the method: a return or throw, a block holding one, an if
 * whose condition is a constant (`if (true) return;`) or whose both branches leave. */
static int leaves(TSNode s, int depth)
{
	if (ts_node_is_null(s) || depth > 64)
		return 0;
	if (is(s, "return_statement") || is(s, "throw_statement"))
		return 1;
	if (is(s, "block")) {
		size_t n;
		TSNode *kids = tsnode_named_children(s, &n);
		int left = 0;
		for (size_t i = 0; i < n && !left; i++)
			left = leaves(kids[i], depth + 1);
		free(kids);
		return left;
	}
	if (is(s, "if_statement")) {
		int v = cond_value(field(s, "condition"));
		TSNode t = field(s, "consequence"), e = field(s, "alternative");
		return v == 1 ? leaves(t, depth + 1) : v == 0 ? leaves(e, depth + 1) : leaves(t, depth + 1) && leaves(e, depth + 1);
	}
	return 0;
}

static void walk_block(struct jx *x, TSNode n, struct ctx c)
{
	uint32_t k = ts_node_named_child_count(n);
	for (uint32_t i = 0; i < k && !x->j->s.status; i++) {
		TSNode s = ts_node_named_child(n, i);
		walk(x, s, c);
		if (leaves(s, 0))
			c.dead = 1;
	}
}

static void walk(struct jx *x, TSNode n, struct ctx c)
{
	if (ts_node_is_null(n) || x->j->s.status || !spend(x, 1, n))
		return;
	if (++c.depth > WALK_MAX) {
		status_at(x, A1_JS_UNDECIDABLE, n, "the syntax tree is nested too deeply");
		return;
	}
	if (is(n, "method_invocation")) {
		call(x, n, c);
		return;
	}
	if (is(n, "throw_statement") && !c.dead && (c.test >= 0 || c.lc)) {
		/* throw new TestAbortedException(): the test is skipped (JUnit 5; JUnit 4's
		 * AssumptionViolatedException) */
		TSNode e = ts_node_named_child(n, 0);
		char tn[64] = "";
		if (is(e, "object_creation_expression"))
			last_name(x, field(e, "type"), tn, sizeof tn);
		static const char *const aborts[] = {"TestAbortedException", "AssumptionViolatedException", "TestSkippedException",
						     "SkipException", NULL};
		if (str_in(tn, aborts)) {
			if (c.lc)
				c.lc->skip = 1;
			else
				x->j->s.tests[c.test].mods |= A1_JS_SKIP;
		}
	}
	if (is(n, "assert_statement")) { /* Java's assert: runs under -ea (Surefire's and Gradle's default) */
		TSNode e = ts_node_named_child(n, 0);
		int cst = 0, v = cond_value(e);
		struct draft d = {.form = canon(x, n), .subject = resolved(x, e, &cst), .matcher = xstrdup("assertTrue"),
				  .kind = A1_JS_K_ASSERT};
		d.taut = v == 1 || (v < 0 && cst);
		boolean_comparison(x, e, &d);
		add_fact(x, &c, n, &d);
	}
	if (is(n, "local_variable_declaration")) {
		size_t nd;
		TSNode *ds = tsnode_named_children(n, &nd);
		for (size_t i = 0; i < nd; i++)
			if (is(ds[i], "variable_declarator"))
				local_declared(x, field(ds[i], "name"), field(ds[i], "value"));
		for (size_t i = 0; i < nd; i++) {
			TSNode d = ds[i], nm = field(d, "name"), v = field(d, "value");
			struct ctx dc = c;
			if (is(d, "variable_declarator") && is(v, "lambda_expression") && x->body_end &&
			    spend(x, x->body_end - ts_node_end_byte(d) + 1, d) &&
			    !named_later(x->src, ts_node_start_byte(nm), ts_node_end_byte(nm), ts_node_end_byte(d), x->body_end))
				dc.dead = 1; /* Runnable r = () -> assertEquals(..); and r never named again */
			walk(x, d, dc);
		}
		free(ds);
		return;
	} else if (is(n, "assignment_expression") || is(n, "update_expression")) {
		struct a1_jvm_local *l = local_named(x, is(n, "assignment_expression") ? field(n, "left") : ts_node_named_child(n, 0));
		if (l)
			l->bad = 1;
	}
	if (is(n, "block") || is(n, "constructor_body") || is(n, "switch_block_statement_group")) {
		walk_block(x, n, c);
	} else if (is(n, "if_statement")) {
		int v = cond_value(field(n, "condition"));
		walk(x, field(n, "condition"), c);
		struct ctx t = c, e = c;
		t.dead |= v == 0;
		e.dead |= v == 1;
		size_t n0 = c.test >= 0 ? x->j->s.tests[c.test].facts.n : 0;
		walk(x, field(n, "consequence"), t);
		size_t n1 = c.test >= 0 ? x->j->s.tests[c.test].facts.n : 0;
		walk(x, field(n, "alternative"), e);
		if (v < 0 && c.test >= 0 && !x->j->s.status) {
			char *cond = canon(x, field(n, "condition")), *what = xasprintf("if %s", cond);
			spend(x, a1_jvm_branch_conds(x->j, c.test, what, n0, n1, x->j->s.tests[c.test].facts.n), n);
			free(cond);
			free(what);
		}
	} else if (is(n, "try_statement") || is(n, "try_with_resources_statement")) {
		struct ctx b = c;
		b.swallowed |= swallows(x, n);
		uint32_t k = ts_node_named_child_count(n);
		for (uint32_t i = 0; i < k; i++) {
			TSNode ch = ts_node_named_child(n, i);
			walk(x, ch, is(ch, "block") && ts_node_eq(ch, field(n, "body")) ? b : c);
		}
	} else {
		uint32_t k = ts_node_named_child_count(n);
		for (uint32_t i = 0; i < k && !x->j->s.status; i++)
			walk(x, ts_node_named_child(n, i), c);
	}
}

/* ---- classes and methods ---- */

enum {
	AN_TEST = 1,
	AN_SKIP = 2,
	AN_COND = 4,
	AN_BEFORE = 8,
	AN_NESTED = 16,
	AN_FACTORY = 32, /* @TestFactory: returns its tests */
	AN_RUNWITH = 64, /* @RunWith: a runner that may run what JUnit itself does not (inner classes) */
	AN_INNER = 128,	 /* (a class's) an inner class without @Nested: JUnit runs none of its tests */
	AN_J4TEST = 256, /* @Test is JUnit 4's (org.junit.Test) */
	AN_JUNIT3 = 512, /* (a class's) it extends TestCase: its public void test*() methods are tests */
};

/* The modifiers node of a declaration, or a null node. Children by index (a declaration has a
 * few), never by ts_node_next_named_sibling: tree-sitter 0.20 finds a node's parent by descending
 * from the root, so each step costs the node's index under every ancestor - over the methods of
 * a class of a thousand, quadratic. */
static TSNode modifiers_of(TSNode decl)
{
	for (uint32_t i = 0, n = ts_node_is_null(decl) ? 0 : ts_node_named_child_count(decl); i < n; i++)
		if (is(ts_node_named_child(decl, i), "modifiers")) /* one at most */
			return ts_node_named_child(decl, i);
	return (TSNode){0};
}

/* 1 when a declaration's modifiers hold the keyword `word` (private, static). */
static int has_modifier(TSNode decl, const char *word)
{
	TSNode mods = modifiers_of(decl);
	uint32_t k = ts_node_is_null(mods) ? 0 : ts_node_child_count(mods);
	for (uint32_t i = 0; i < k; i++)
		if (is(ts_node_child(mods, i), word))
			return 1;
	return 0;
}

/* The rows of a parameterized test into j->rows: each element of @ValueSource / @CsvSource
 * (each line of a text block, comments left out) as "key:row"; any other source whole. */
static void add_row(struct jx *x, const char *test, const char *key, const char *row)
{
	char *t = xasprintf("%s:%s", key, row);
	a1_jvm_add_site(&x->j->rows, &x->j->nrows, &x->j->caprows, test, t);
	free(t);
}

static void rows_value(struct jx *x, const char *test, const char *key, TSNode v)
{
	if (is(v, "element_value_array_initializer")) {
		size_t n;
		TSNode *es = tsnode_named_children(v, &n); /* rows may be many */
		for (size_t i = 0; i < n; i++)
			if (!is(es[i], "line_comment") && !is(es[i], "block_comment"))
				rows_value(x, test, key, es[i]);
		free(es);
		return;
	}
	uint32_t a = ts_node_start_byte(v), b = ts_node_end_byte(v);
	if (b - a >= 6 && !memcmp(x->src + a, "\"\"\"", 3)) { /* a text block: a row a line */
		const char *p = x->src + a + 3, *end = x->src + b - 3;
		while (p < end) {
			const char *nl = memchr(p, '\n', (size_t)(end - p));
			const char *e = nl ? nl : end, *q = p;
			while (q < e && (*q == ' ' || *q == '\t' || *q == '\r'))
				q++;
			const char *r = e;
			while (r > q && (r[-1] == ' ' || r[-1] == '\t' || r[-1] == '\r'))
				r--;
			if (r > q && *q != '#') {
				char *row = xstrndup(q, (size_t)(r - q));
				add_row(x, test, key, row);
				free(row);
			}
			p = e + 1;
		}
		return;
	}
	char *row = canon(x, v);
	add_row(x, test, key, row);
	free(row);
}

static void rows_of(struct jx *x, TSNode decl, const char *test)
{
	size_t na;
	TSNode *as = tsnode_named_children(modifiers_of(decl), &na);
	for (size_t ai = 0; ai < na; ai++) {
		TSNode a = as[ai];
		if (!is(a, "annotation") && !is(a, "marker_annotation"))
			continue;
		char nm[64];
		last_name(x, field(a, "name"), nm, sizeof nm);
		size_t L = strlen(nm);
		if (L < 6 || strcmp(nm + L - 6, "Source"))
			continue;
		if (strcmp(nm, "ValueSource") && strcmp(nm, "CsvSource")) {
			char *t = canon(x, a);
			add_row(x, test, nm, t);
			free(t);
			continue;
		}
		size_t ne;
		TSNode *es = tsnode_named_children(field(a, "arguments"), &ne);
		for (size_t ei = 0; ei < ne; ei++) {
			TSNode e = es[ei];
			if (is(e, "line_comment") || is(e, "block_comment"))
				continue;
			if (is(e, "element_value_pair")) {
				char *k = canon(x, field(e, "key"));
				rows_value(x, test, k, field(e, "value"));
				free(k);
			} else {
				rows_value(x, test, "value", e);
			}
		}
		free(es);
	}
	free(as);
}

/* The annotations of a declaration: AN_* flags; conditions into *conds (their text);
 * `expected` gets @Test(expected = X.class)'s value. */
static unsigned annotations(struct jx *x, TSNode decl, struct a1_js_names *conds, TSNode *expected)
{
	static const char *const tests[] = {"Test", "ParameterizedTest", "RepeatedTest", "TestFactory", "TestTemplate",
					    "Property", "Example", NULL};
	static const char *const skips[] = {"Disabled", "Ignore", NULL};
	static const char *const before[] = {"BeforeEach", "Before", "BeforeAll", "BeforeClass", NULL};
	static const char *const cond_prefixes[] = {"EnabledIf", "DisabledIf", "EnabledOn", "DisabledOn", "EnabledFor",
						    "DisabledFor", "EnabledIn", "DisabledIn", NULL};
	unsigned f = 0;
	*expected = (TSNode){0};
	size_t na;
	TSNode *as = tsnode_named_children(modifiers_of(decl), &na);
	for (size_t ai = 0; ai < na; ai++) {
		TSNode a = as[ai];
		if (!is(a, "annotation") && !is(a, "marker_annotation"))
			continue;
		char nm[64];
		last_name(x, field(a, "name"), nm, sizeof nm);
		if (str_in(nm, tests))
			f |= AN_TEST;
		if (!strcmp(nm, "TestFactory"))
			f |= AN_FACTORY;
		if (!strcmp(nm, "Test") && (is(field(a, "name"), "identifier") ? x->junit4 : text_is(x, field(a, "name"), "org.junit.Test")))
			f |= AN_J4TEST;
		if (!strcmp(nm, "RunWith"))
			f |= AN_RUNWITH;
		if (str_in(nm, skips))
			f |= AN_SKIP;
		if (str_in(nm, before))
			f |= AN_BEFORE;
		if (!strcmp(nm, "Nested"))
			f |= AN_NESTED;
		if ((!strcmp(nm, "EnabledIf") || !strcmp(nm, "DisabledIf")) && is(a, "annotation")) {
			/* Spring's @EnabledIf("false") / @DisabledIf("true") (an expression): never run */
			TSNode list = field(a, "arguments"), v = ts_node_named_child(list, 0);
			if (is(v, "element_value_pair") && (text_is(x, field(v, "key"), "expression") || text_is(x, field(v, "key"), "value")))
				v = field(v, "value");
			if (ts_node_named_child_count(list) == 1 && text_is(x, v, nm[0] == 'E' ? "\"false\"" : "\"true\"")) {
				f |= AN_SKIP;
				continue;
			}
		}
		for (const char *const *p = cond_prefixes; *p; p++)
			if (starts(nm, *p)) {
				char *t = canon(x, a);
				a1_jvm_names_add(conds, t);
				free(t);
				f |= AN_COND;
				break;
			}
		if (!strcmp(nm, "Test") && is(a, "annotation")) {
			TSNode list = field(a, "arguments");
			uint32_t q = ts_node_named_child_count(list);
			for (uint32_t j = 0; j < q; j++) {
				TSNode pair = ts_node_named_child(list, j);
				if (is(pair, "element_value_pair") && text_is(x, field(pair, "key"), "expected"))
					*expected = field(pair, "value");
			}
		}
	}
	free(as);
	return f;
}

/* A test's time limit, @Timeout(..) or JUnit 4's @Test(timeout = N): a check of its own (raised:
 * another expected value; removed: an assertion removed). */
static void timeouts(struct jx *x, TSNode m, const struct ctx *c)
{
	size_t na;
	TSNode *as = tsnode_named_children(modifiers_of(m), &na);
	for (size_t ai = 0; ai < na; ai++) {
		TSNode a = as[ai];
		if (!is(a, "annotation"))
			continue;
		char nm[64];
		last_name(x, field(a, "name"), nm, sizeof nm);
		TSNode list = field(a, "arguments"), value = {0};
		if (!strcmp(nm, "Timeout")) {
			value = list;
		} else if (!strcmp(nm, "Test")) {
			for (uint32_t i = 0, np = ts_node_named_child_count(list); i < np; i++) /* a few pairs */
				if (is(ts_node_named_child(list, i), "element_value_pair") &&
				    text_is(x, field(ts_node_named_child(list, i), "key"), "timeout"))
					value = field(ts_node_named_child(list, i), "value");
		}
		if (ts_node_is_null(value))
			continue;
		struct draft d = {.kind = A1_JS_K_ASSERT, .matcher = xstrdup("timeout")};
		d.exp1 = canon(x, value);
		d.expected = xstrdup(d.exp1);
		d.form = !strcmp(nm, "Test") ? xasprintf("@Test(timeout=%s)", d.exp1) : canon(x, a);
		add_fact(x, c, a, &d);
	}
	free(as);
}

long a1_jvm_new_test(struct a1_java_side *j, const char *src, const char *cls, TSNode name, TSNode at)
{
	struct a1_js_side *s = &j->s;
	char *base = xasprintf("%s.%.*s", cls, (int)(ts_node_end_byte(name) - ts_node_start_byte(name)),
			       src + ts_node_start_byte(name));
	char *nm = xstrdup(base);
	for (unsigned rep = 2; strmap_get(&j->test_names, nm, NULL); rep++) { /* overloads: "C.m #2" */
		free(nm);
		nm = xasprintf("%s #%u", base, rep);
	}
	strmap_put(&j->test_names, nm, 1);
	free(base);
	s->tests = xgrow_zeroed(s->tests, &s->captests, s->ntests, sizeof *s->tests, 8);
	s->tests[s->ntests].name = nm;
	s->tests[s->ntests].line = ts_node_start_point(at).row + 1;
	return (long)s->ntests++;
}

long a1_jvm_new_func(struct a1_java_side *j, const char *src, const char *cls, TSNode name)
{
	struct a1_js_side *s = &j->s;
	s->funcs = xgrow_zeroed(s->funcs, &s->capfuncs, s->nfuncs, sizeof *s->funcs, 8);
	uint32_t a = ts_node_start_byte(name), b = ts_node_end_byte(name);
	s->funcs[s->nfuncs].name = xstrndup(src + a, b - a);
	char *full = xasprintf("%s.%s", cls, s->funcs[s->nfuncs].name);
	a1_jvm_names_add(&j->methods, full);
	free(full);
	return (long)s->nfuncs++;
}

/* 1 when method `m` may be a lifecycle method (@BeforeEach ...: what it finds holds for every
 * test of its class): "Before" anywhere in its modifiers. Such a method is no unit of a lazy
 * reading - always walked, compared as context. */
static int lifecycle_like(const struct jx *x, TSNode m)
{
	TSNode mods = ts_node_named_child(m, 0);
	if (ts_node_is_null(mods) || !is(mods, "modifiers"))
		return 0;
	uint32_t a = ts_node_start_byte(mods), b = ts_node_end_byte(mods);
	return memmem(x->src + a, b - a, "Before", 6) != NULL;
}

/* 1 when the plan leaves method `m` unwalked: its name, mods and annotations are read, its
 * body is not. */
static int unit_lazy(struct jx *x, TSNode m)
{
	struct jplan *p = x->plan;
	if (!p || p->abort || lifecycle_like(x, m))
		return 0;
	size_t i = p->next++;
	if (i >= p->n || ts_node_start_byte(p->u[i].node) != ts_node_start_byte(m)) {
		p->abort = 1;
		return 0;
	}
	return !p->all && !p->u[i].need;
}

static void method(struct jx *x, TSNode m, const char *cls, unsigned cls_mods, const struct a1_js_names *cls_conds,
		   struct a1_jvm_life *lc, unsigned depth)
{
	struct a1_js_names conds = {0};
	TSNode expected;
	unsigned f = annotations(x, m, &conds, &expected);
	struct ctx c = {.test = -1, .func = -1, .depth = depth};
	int junit3 = 0;
	if ((cls_mods & AN_JUNIT3) && !(f & AN_TEST)) { /* JUnit 3: public void test*() */
		TSNode nm = field(m, "name"), ps = field(m, "parameters");
		uint32_t a = ts_node_start_byte(nm), b = ts_node_end_byte(nm);
		if (b - a > 4 && !memcmp(x->src + a, "test", 4) && ts_node_named_child_count(ps) == 0) {
			f |= AN_TEST;
			junit3 = 1;
		}
	}
	/* JUnit runs no test that is private or static, returns a value (but a @TestFactory) or
	 * stands in an inner class without @Nested: such a method is read as a helper, and named */
	TSNode type = field(m, "type");
	const char *not_run = !(f & AN_TEST)			      ? NULL
			      : cls_mods & AN_INNER		      ? "in an inner class without @Nested: not run"
			      : junit3 && !has_modifier(m, "public") ? "not public: JUnit 3 runs public test methods only"
			      : has_modifier(m, "private")	      ? "private: not run"
			      : has_modifier(m, "static")	      ? "static: not run"
			      : !(f & AN_FACTORY) && !is(type, "void_type") ? "returns a value: not run"
								      : NULL;
	if (not_run) {
		TSNode nm = field(m, "name");
		char *full = xasprintf("%s.%.*s", cls, (int)(ts_node_end_byte(nm) - ts_node_start_byte(nm)),
				       x->src + ts_node_start_byte(nm));
		a1_jvm_add_site(&x->j->dropped, &x->j->ndropped, &x->j->capdropped, full, not_run);
		free(full);
		f &= ~(unsigned)AN_TEST;
	}
	if (f & AN_TEST) {
		c.test = a1_jvm_new_test(x->j, x->src, cls, field(m, "name"), m);
		rows_of(x, m, x->j->s.tests[c.test].name);
		struct a1_js_test *t = &x->j->s.tests[c.test];
		t->mods |= (f & AN_SKIP) || (cls_mods & AN_SKIP) ? A1_JS_SKIP : 0;
		for (size_t i = 0; i < conds.n; i++)
			add_cond(x, t->name, conds.v[i]);
		for (size_t i = 0; i < cls_conds->n; i++)
			add_cond(x, x->j->s.tests[c.test].name, cls_conds->v[i]);
		if (f & AN_J4TEST) /* in a JUnit 5 build only the vintage engine runs it */
			add_cond(x, t->name, "JUnit 4's @Test (org.junit.Test): run only where JUnit 4 or the vintage engine is");
		if (!ts_node_is_null(expected)) {
			struct draft d = {.kind = A1_JS_K_ASSERT, .matcher = xstrdup("expected")};
			d.exp1 = canon(x, expected);
			d.expected = xstrdup(d.exp1);
			d.form = xasprintf("@Test(expected=%s)", d.exp1);
			int swallow = a1_jvm_catches_failure(d.exp1); /* passes when an assertion fails */
			add_fact(x, &c, m, &d);
			c.swallowed = (unsigned char)swallow;
		}
		timeouts(x, m, &c);
	} else {
		c.func = a1_jvm_new_func(x->j, x->src, cls, field(m, "name"));
		c.lc = f & AN_BEFORE ? lc : NULL;
	}
	a1_jvm_names_free(&conds);
	locals_free(x);
	x->body_end = ts_node_end_byte(m);
	if (unit_lazy(x, m)) {
		if (c.test >= 0)
			x->j->s.tests[c.test].lazy = 1;
		else
			x->j->s.funcs[c.func].lazy = 1;
		x->j->partial = 1;
		return;
	}
	walk(x, field(m, "body"), c);
}

/* "Outer.Inner" of class `k` (new). */
static char *class_name(const struct jx *x, TSNode k, const char *outer)
{
	TSNode nm = field(k, "name");
	uint32_t a = ts_node_start_byte(nm), b = ts_node_end_byte(nm);
	return outer ? xasprintf("%s.%.*s", outer, (int)(b - a), x->src + a) : xstrndup(x->src + a, b - a);
}

static void klass(struct jx *x, TSNode k, const char *outer, unsigned mods, const struct a1_js_names *conds,
		  unsigned depth)
{
	if (depth > WALK_MAX) {
		status_at(x, A1_JS_UNDECIDABLE, k, "classes nested too deeply");
		return;
	}
	TSNode body = field(k, "body");
	char *cls = class_name(x, k, outer);
	struct a1_js_names mine = {0};
	TSNode expected;
	unsigned f = annotations(x, k, &mine, &expected);
	for (size_t i = 0; i < conds->n; i++)
		a1_jvm_names_add(&mine, conds->v[i]);
	mods |= f & (AN_SKIP | AN_RUNWITH);
	mods &= ~(unsigned)AN_JUNIT3;
	TSNode sup = field(k, "superclass");
	char sn[64] = "";
	if (!ts_node_is_null(sup)) {
		TSNode t = ts_node_named_child(sup, 0);
		last_name(x, is(t, "generic_type") ? ts_node_named_child(t, 0) : t, sn, sizeof sn);
	}
	if (!strcmp(sn, "TestCase"))
		mods |= AN_JUNIT3;
	if (has_modifier(k, "abstract"))
		a1_jvm_names_add(&mine, "abstract class: its tests run only in a subclass");
	if (!outer && !a1_jvm_surefire_name(cls))
		a1_jvm_names_add(&mine, A1_JVM_SUREFIRE_COND);
	struct a1_jvm_life lc = {0};
	size_t t0 = x->j->s.ntests;
	size_t n;
	TSNode *kids = tsnode_named_children(body, &n); /* by index: quadratic over a class of methods */
	for (size_t i = 0; i < n && !x->j->s.status; i++) {
		TSNode ch = kids[i];
		if (is(ch, "method_declaration")) {
			method(x, ch, cls, mods, &mine, &lc, depth);
		} else if (is(ch, "class_declaration")) {
			struct a1_js_names none = {0}, cond_here = {0};
			TSNode e2;
			unsigned nf = annotations(x, ch, &cond_here, &e2);
			a1_jvm_names_free(&cond_here);
			int nested = nf & AN_NESTED; /* JUnit 5 runs an inner class's tests in the outer's */
			int stat = has_modifier(ch, "static");
			unsigned inner = !nested && !stat && !(mods & AN_RUNWITH) ? AN_INNER : 0;
			if (nested && stat) /* JUnit 5 does not nest it: run alone where static nested classes are collected */
				a1_jvm_names_add(&cond_here, "static @Nested class (not run by Maven Surefire's default excludes)");
			unsigned keep = (nested ? mods : 0) | (mods & AN_RUNWITH) | inner;
			if (nested && stat) {
				for (size_t q = 0; q < mine.n; q++)
					a1_jvm_names_add(&cond_here, mine.v[q]);
				klass(x, ch, cls, keep, &cond_here, depth + 1);
			} else {
				klass(x, ch, cls, keep, nested ? &mine : &none, depth + 1);
			}
			a1_jvm_names_free(&cond_here);
		} else {
			struct ctx c = {.test = -1, .func = -1, .depth = depth};
			x->body_end = 0;
			walk(x, ch, c); /* fields, initializers, constructors: nothing a test runs as its own */
		}
	}
	free(kids);
	/* what the lifecycle methods assume holds for the class's own tests */
	size_t L = strlen(cls);
	for (size_t i = t0; i < x->j->s.ntests; i++) {
		struct a1_js_test *t = &x->j->s.tests[i];
		if (strncmp(t->name, cls, L) || t->name[L] != '.' || strchr(t->name + L + 1, '.'))
			continue;
		if (lc.skip)
			t->mods |= A1_JS_SKIP;
		for (size_t j = 0; j < lc.conds.n; j++)
			add_cond(x, t->name, lc.conds.v[j]);
	}
	a1_jvm_names_free(&lc.conds);
	a1_jvm_names_free(&mine);
	free(cls);
}

/* ---- before parsing: what could nest deeper than the runtime survives ---- */

/* Skips a string's body from s[i], just past its opening quote(s): `q` is the quote, `triple`
 * for a text block / raw string. Returns the index of its last byte, or in Kotlin (`kotlin`) of
 * the `{` of a `${` template (then *tmpl = 1: the string resumes when that group closes). */
static size_t skip_string(const char *s, size_t n, size_t i, char q, int triple, int kotlin, size_t *line, int *tmpl)
{
	*tmpl = 0;
	for (; i < n; i++) {
		if (triple ? i + 2 < n && s[i] == q && s[i + 1] == q && s[i + 2] == q : s[i] == q)
			return i + (triple ? 2 : 0);
		if (!triple && s[i] == '\n')
			return i - 1; /* unterminated: the line ends it */
		if (kotlin && q == '"' && s[i] == '$' && i + 1 < n && s[i + 1] == '{') {
			*tmpl = 1;
			return i + 1;
		}
		*line += s[i] == '\n';
		if (s[i] == '\\' && !(kotlin && triple))
			i++;
	}
	return n;
}

/* Brackets open at once over A1_JAVA_MAX_DEPTH, or more than RUN_MAX tokens pending (since
 * the last `;` or `,` of the open brackets, a closed group counting as one; `else` keeps its
 * statement pending) - unary operators, lambdas, conditionals, generics and `if` without
 * braces nest without brackets. Strings, text blocks, characters and comments are skipped;
 * in Kotlin a `${...}` of a string is code (its brackets count) and comments nest. */
int a1_jvm_check_nesting(const char *s, size_t n, struct a1_js_side *side, int kotlin)
{
	size_t depth = 0, run = 0, line = 1;
	size_t base[A1_JAVA_MAX_DEPTH + 1];
	unsigned char resume[A1_JAVA_MAX_DEPTH + 1]; /* 1 / 3: the group is a template of a "..." / """...""" */
	base[0] = 0;
	resume[0] = 0;
	for (size_t i = 0; i < n; i++) {
		char ch = s[i];
		int tmpl = 0;
		if (run > RUN_MAX) {
			a1_js_side_refuse(side, A1_JS_UNDECIDABLE, (unsigned)line, 1, "more than %d tokens pending in one statement",
					  RUN_MAX);
			return -1;
		}
		if (ch == '\n') {
			line++;
			continue;
		}
		if (ch == ' ' || ch == '\t' || ch == '\r' || ch == '\f')
			continue;
		if (ch == '/' && i + 1 < n && s[i + 1] == '/') {
			while (i < n && s[i] != '\n')
				i++;
			line += i < n;
			continue;
		}
		if (ch == '/' && i + 1 < n && s[i + 1] == '*') {
			size_t open = 1;
			for (i += 2; i < n && open; i++) {
				if (s[i] == '*' && i + 1 < n && s[i + 1] == '/')
					open--, i++;
				else if (kotlin && s[i] == '/' && i + 1 < n && s[i + 1] == '*')
					open++, i++;
				else
					line += s[i] == '\n';
			}
			i--;
			continue;
		}
		run++;
		if (word((unsigned char)ch)) {
			size_t j = i;
			while (j < n && word((unsigned char)s[j]))
				j++;
			if (j - i == 4 && !memcmp(s + i, "else", 4))
				base[depth] += 4; /* the if it ends stays open */
			i = j - 1;
			continue;
		}
		int kind = 0;
		if (ch == '"' && i + 2 < n && s[i + 1] == '"' && s[i + 2] == '"') {
			kind = 3;
			i = skip_string(s, n, i + 3, '"', 1, kotlin, &line, &tmpl);
		} else if (ch == '"' || ch == '\'') {
			kind = ch == '"';
			i = skip_string(s, n, i + 1, ch, 0, kotlin, &line, &tmpl);
		} else if (ch == '(' || ch == '[' || ch == '{') {
			tmpl = -1;
		} else if ((ch == ')' || ch == ']' || ch == '}') && depth) {
			int again = resume[depth];
			run = base[--depth] + 1; /* the group is one operand now */
			if (again) {
				kind = again;
				i = skip_string(s, n, i + 1, '"', again == 3, kotlin, &line, &tmpl);
			}
		} else if (ch == ';' || ch == ',') {
			run = base[depth];
		}
		if (tmpl) { /* a bracket opens: a group, or a template resuming its string when it closes */
			if (depth == A1_JAVA_MAX_DEPTH) {
				a1_js_side_refuse(side, A1_JS_UNDECIDABLE, (unsigned)line, 1, "brackets nested deeper than %d",
						  A1_JAVA_MAX_DEPTH);
				return -1;
			}
			base[++depth] = run;
			resume[depth] = (unsigned char)(tmpl > 0 ? kind : 0);
		}
	}
	return 0;
}

int a1_jvm_prepare(const char **text, size_t *len, struct a1_js_side *s, int kotlin)
{
	if (*len > A1_JAVA_MAX_BYTES) {
		a1_js_side_refuse(s, A1_JS_UNREADABLE, 1, 1, "%zu bytes, over the %u-byte limit", *len, A1_JAVA_MAX_BYTES);
		return s->status;
	}
	if (*len >= 3 && !memcmp(*text, "\xef\xbb\xbf", 3)) {
		*text += 3;
		*len -= 3;
	}
	if (memchr(*text, 0, *len) || !utf8_valid(*text, *len)) {
		a1_js_side_refuse(s, A1_JS_UNREADABLE, 1, 1, "%s", memchr(*text, 0, *len) ? "a NUL byte" : "not UTF-8");
		return s->status;
	}
	a1_jvm_check_nesting(*text, *len, s, kotlin);
	return s->status;
}

/* ---- a side ---- */

/* Checks and parses a side (*text / *len: past a byte order mark): its tree, or NULL with
 * j->s.status set. `old` (may be NULL) is an edited tree of the other side to parse against. */
static TSTree *java_parse(const char **text, size_t *len, struct a1_java_side *j, TSTree *old)
{
	if (a1_jvm_prepare(text, len, &j->s, 0))
		return NULL;
	TSParser *p = ts_parser_new();
	if (!ts_parser_set_language(p, tree_sitter_java())) {
		ts_parser_delete(p);
		a1_js_side_refuse(&j->s, A1_JS_UNREADABLE, 1, 1, "the grammar (ABI %u) does not load into this tree-sitter",
			   ts_language_version(tree_sitter_java()));
		return NULL;
	}
	ts_parser_set_timeout_micros(p, PARSE_MICROS);
	TSTree *tree = ts_parser_parse_string(p, old, *text, (uint32_t)*len);
	ts_parser_delete(p);
	if (!tree) {
		a1_js_side_refuse(&j->s, A1_JS_UNREADABLE, 1, 1, "not parsed within %llu s", PARSE_MICROS / 1000000);
		return NULL;
	}
	TSNode root = ts_tree_root_node(tree);
	if (ts_node_has_error(root)) {
		int kind;
		TSNode e = tsnode_first_error(root, &kind);
		TSPoint at = ts_node_start_point(e);
		a1_js_side_refuse(&j->s, A1_JS_UNREADABLE, at.row + 1, at.column + 1, "%s",
			   kind == 'M' ? "syntax error: something missing" : "syntax error");
		ts_tree_delete(tree);
		return NULL;
	}
	return tree;
}

/* Walks a parsed side's classes into j (zeroed), `plan` (may be NULL: every method) saying
 * which methods' bodies; returns j->s.status. */
static int java_walk(const char *src, size_t len, TSTree *tree, struct a1_java_side *j, struct jplan *plan)
{
	struct jx x = {.src = src, .len = len, .j = j, .plan = plan};
	x.budget = 64 * x.len + (1u << 20);
	if (plan)
		plan->next = 0;
	struct a1_js_names none = {0};
	TSNode root = ts_tree_root_node(tree);
	uint32_t k = ts_node_named_child_count(root);
	int j4 = 0, j5 = 0, j4all = 0;
	for (uint32_t i = 0; i < k; i++) { /* which @Test the file means */
		TSNode im = ts_node_named_child(root, i);
		if (!is(im, "import_declaration"))
			continue;
		TSNode id = ts_node_named_child(im, 0);
		int all = 0;
		for (uint32_t q = 0; q < ts_node_child_count(im); q++)
			all |= is(ts_node_child(im, q), "asterisk");
		if (text_is(&x, id, "org.junit.Test"))
			j4 = 1;
		else if (text_is(&x, id, "org.junit.jupiter.api.Test"))
			j5 = 1;
		else if (all && text_is(&x, id, "org.junit"))
			j4all = 1;
	}
	x.junit4 = !j5 && (j4 || j4all);
	for (uint32_t i = 0; i < k && !j->s.status; i++) {
		TSNode ch = ts_node_named_child(root, i);
		if (is(ch, "class_declaration"))
			klass(&x, ch, NULL, 0, &none, 0);
	}
	buf_free(&x.cb);
	locals_free(&x);
	a1_jvm_locals_free(&x.loc);
	return j->s.status;
}

/* Reads a side; `old` (may be NULL) is an edited tree of the other side to parse against;
 * with `keep`, the tree is handed back instead of deleted (NULL when the side was not read). */
static int java_read(const char *text, size_t len, struct a1_java_side *j, TSTree *old, TSTree **keep)
{
	const char *src = text ? text : "";
	size_t n = text ? len : 0;
	if (keep)
		*keep = NULL;
	TSTree *tree = java_parse(&src, &n, j, old);
	if (!tree)
		return j->s.status;
	java_walk(src, n, tree, j, NULL);
	if (keep && !j->s.status)
		*keep = tree;
	else
		ts_tree_delete(tree);
	return j->s.status;
}

int a1_java_extract(const char *text, size_t len, struct a1_java_side *j)
{
	return java_read(text, len, j, NULL, NULL);
}

void a1_jvm_read_pair(a1_jvm_read_fn read, const char *pre, size_t pre_len, const char *post, size_t post_len,
		      struct a1_java_side *a, struct a1_java_side *b,
		      void (*pre_done)(void *ctx, const struct a1_java_side *a), void *ctx)
{
	TSTree *pt = NULL, *old = NULL;
	int bom = (pre && pre_len >= 3 && !memcmp(pre, "\xef\xbb\xbf", 3)) ||
		  (post && post_len >= 3 && !memcmp(post, "\xef\xbb\xbf", 3)); /* skipped: offsets would shift */
	read(pre, pre_len, a, NULL, pre && pre_len && post && post_len && !bom ? &pt : NULL);
	if (pre_done)
		pre_done(ctx, a);
	if (pt) {
		TSInputEdit e;
		tsnode_edit_between(pre, pre_len, post, post_len, &e);
		old = ts_tree_copy(pt);
		ts_tree_edit(old, &e);
	}
	read(post, post_len, b, old, NULL);
	if (old)
		ts_tree_delete(old);
	if (pt)
		ts_tree_delete(pt);
}

void a1_java_extract_pair(const char *pre, size_t pre_len, const char *post, size_t post_len, struct a1_java_side *a,
			  struct a1_java_side *b)
{
	a1_jvm_read_pair(java_read, pre, pre_len, post, post_len, a, b, NULL, NULL);
}

static void java_side_free_heap(void *p)
{
	a1_java_side_free(p);
	free(p);
}

static struct a1_cache_ref *java_read_stored(const struct a1_cache_key *k, const char *text, size_t len, TSTree *old,
					     TSTree **tree, const struct a1_java_side **out)
{
	struct a1_java_side *j = xcalloc(1, sizeof *j);
	TSTree *t = NULL;
	java_read(text, len, j, old, &t);
	struct a1_cache_ref *r = a1_cache_put(j->s.status ? NULL : k, j, java_side_free_heap, t, len);
	if (tree)
		*tree = t;
	else if (t)
		ts_tree_delete(t);
	*out = j;
	return r;
}

/* A cached side's facts, or NULL (with the reference released) when they are not whole. */
static struct a1_cache_ref *whole(struct a1_cache_ref *r, const void **facts, TSTree **tree)
{
	return a1_cache_whole(r, r && ((const struct a1_java_side *)*facts)->partial, facts, tree);
}

/* ---- reading lazily (a1_java_read_pair_cached) ---- */

/* The units of class `k` (and of the classes declared in it, as klass reads them) into p:
 * each method but the lifecycle ones (their findings hold for every test of the class: they
 * are context), with the comments right before it. */
static void survey_class(struct jx *x, TSNode k, const char *outer, struct jplan *p, unsigned depth)
{
	if (depth > WALK_MAX) {
		p->abort = 1;
		return;
	}
	char *cls = class_name(x, k, outer);
	size_t n, lead = 0;
	int run = 0;
	TSNode *kids = tsnode_named_children(field(k, "body"), &n);
	for (size_t i = 0; i < n && !p->abort; i++) {
		TSNode ch = kids[i];
		if (is(ch, "line_comment") || is(ch, "block_comment")) {
			if (!run)
				lead = i;
			run = 1;
			continue;
		}
		if (is(ch, "method_declaration")) {
			if (!lifecycle_like(x, ch)) {
				TSNode nm = field(ch, "name");
				uint32_t a = ts_node_start_byte(nm), b = ts_node_end_byte(nm);
				p->u = xgrow_zeroed(p->u, &p->cap, p->n, sizeof *p->u, 16);
				p->u[p->n++] = (struct a1_lang_unit){
				    .a = ts_node_start_byte(run ? kids[lead] : ch),
				    .e = ts_node_end_byte(ch),
				    .node = ch,
				    .name = xasprintf("%s.%.*s", cls, (int)(b - a), x->src + a),
				};
			}
		} else if (is(ch, "class_declaration")) {
			survey_class(x, ch, cls, p, depth + 1);
		}
		run = 0;
	}
	free(kids);
	free(cls);
}

static void survey(const char *src, size_t len, TSTree *tree, struct jplan *p)
{
	struct a1_java_side scratch = {0};
	struct jx x = {.src = src, .len = len, .j = &scratch, .budget = (size_t)-1};
	TSNode root = ts_tree_root_node(tree);
	uint32_t k = ts_node_named_child_count(root);
	for (uint32_t i = 0; i < k && !p->abort; i++) {
		TSNode ch = ts_node_named_child(root, i);
		if (is(ch, "class_declaration"))
			survey_class(&x, ch, NULL, p, 0);
	}
	if (scratch.s.status)
		p->abort = 1;
	a1_java_side_free(&scratch);
	buf_free(&x.cb);
}

static void jplan_free(struct jplan *p)
{
	for (size_t i = 0; i < p->n; i++)
		free(p->u[i].name);
	free(p->u);
}

/* Walks a parsed side into j (zeroed) by `plan` (NULL: every method); when the walk did not
 * meet the survey's units or a walk refused the side (a budget spent on fewer units than an
 * eager walk's), it is walked again whole. */
static void walk_planned(const char *text, size_t len, TSTree *tree, struct a1_java_side *j, struct jplan *plan)
{
	java_walk(text, len, tree, j, plan);
	if (plan && !plan->all && (plan->abort || plan->next != plan->n || j->s.status)) {
		a1_java_side_free(j);
		java_walk(text, len, tree, j, NULL);
	}
}

/* Both sides, not both whole in the cache, read lazily: the trees from the cache or parsed
 * (the post side against the pre side's, edited), the units of each surveyed, a1_lang_decide's
 * walked; a side read is stored (whole or partial, with its tree). *a / *b: the cached facts
 * or NULL in, the sides to judge out; *ra / *rb the entries holding them. */
static void read_lazily(const struct a1_cache_key *ka, const struct a1_cache_key *kb, const char *pre, size_t pre_len,
			const char *post, size_t post_len, const struct a1_java_side **a, const struct a1_java_side **b,
			struct a1_cache_ref **ra, struct a1_cache_ref **rb, TSTree *pt, TSTree *qt)
{
	struct a1_java_side *na = NULL, *nb = NULL; /* sides read here */
	int want_a = !*a || (*a)->partial, want_b = !*b || (*b)->partial;
	TSInputEdit e;
	tsnode_edit_between(pre, pre_len, post, post_len, &e);
	if (!pt) {
		na = xcalloc(1, sizeof *na);
		pt = java_parse(&pre, &pre_len, na, NULL);
	}
	if (!qt) {
		nb = xcalloc(1, sizeof *nb);
		TSTree *old = NULL;
		if (pt) {
			old = ts_tree_copy(pt);
			ts_tree_edit(old, &e);
		}
		qt = java_parse(&post, &post_len, nb, old);
		if (old)
			ts_tree_delete(old);
	}
	struct jplan pa = {0}, pb = {0};
	int shallow = *a && (*a)->shallow;
	if (pt && qt) {
		survey(pre, pre_len, pt, &pa);
		survey(post, post_len, qt, &pb);
		pa.all = pb.all = pa.abort || pb.abort ||
				  a1_lang_decide(pa.u, pa.n, pre, pre_len, pb.u, pb.n, post, post_len, &e, &shallow) < 0;
		pa.abort = pb.abort = 0;
	} else {
		pa.all = pb.all = 1;
	}
	if (pt && want_a) {
		if (!na)
			na = xcalloc(1, sizeof *na);
		walk_planned(pre, pre_len, pt, na, &pa);
		na->shallow = shallow;
	}
	if (qt && want_b) {
		if (!nb)
			nb = xcalloc(1, sizeof *nb);
		walk_planned(post, post_len, qt, nb, &pb);
	}
	jplan_free(&pa);
	jplan_free(&pb);
	if (na && (want_a || na->s.status)) {
		a1_cache_release(*ra);
		*ra = a1_cache_put(na->s.status ? NULL : ka, na, java_side_free_heap, pt, pre_len);
		*a = na;
	} else if (na) {
		java_side_free_heap(na);
	}
	if (nb && (want_b || nb->s.status)) {
		a1_cache_release(*rb);
		*rb = a1_cache_put(nb->s.status ? NULL : kb, nb, java_side_free_heap, qt, post_len);
		*b = nb;
	} else if (nb) {
		java_side_free_heap(nb);
	}
	if (pt)
		ts_tree_delete(pt);
	if (qt)
		ts_tree_delete(qt);
}

void a1_java_read_pair_cached(const char *pre, size_t pre_len, const char *post, size_t post_len,
			      const struct a1_java_side **a, const struct a1_java_side **b, struct a1_cache_ref **ra,
			      struct a1_cache_ref **rb)
{
	struct a1_cache_key ka, kb;
	a1_cache_key(&ka, "java", tree_sitter_java(), pre, pre_len);
	a1_cache_key(&kb, "java", tree_sitter_java(), post, post_len);
	const void *fa = NULL, *fb = NULL;
	int bom = (pre && pre_len >= 3 && !memcmp(pre, "\xef\xbb\xbf", 3)) ||
		  (post && post_len >= 3 && !memcmp(post, "\xef\xbb\xbf", 3)); /* skipped: offsets would shift */
	if (!a1_lang_eager() && !bom && pre && pre_len && post && post_len) {
		TSTree *pt = NULL, *qt = NULL;
		*ra = a1_cache_get(&ka, &fa, &pt, 1);
		*rb = a1_cache_get(&kb, &fb, &qt, 1);
		*a = fa;
		*b = fb;
		if (*a && *b && !(*a)->partial && !(*b)->partial) {
			if (pt)
				ts_tree_delete(pt);
			if (qt)
				ts_tree_delete(qt);
			return;
		}
		read_lazily(&ka, &kb, pre, pre_len, post, post_len, a, b, ra, rb, pt, qt);
		return;
	}
	*rb = whole(a1_cache_get(&kb, &fb, NULL, 0), &fb, NULL);
	int reuse = !*rb && pre && pre_len && post && post_len && !bom;
	TSTree *pt = NULL;
	*ra = whole(a1_cache_get(&ka, &fa, reuse ? &pt : NULL, reuse), &fa, reuse ? &pt : NULL);
	*a = fa;
	*b = fb;
	if (!*ra)
		*ra = java_read_stored(&ka, pre, pre_len, NULL, reuse ? &pt : NULL, a);
	if (!*rb) {
		if (pt) {
			TSInputEdit e;
			tsnode_edit_between(pre, pre_len, post, post_len, &e);
			ts_tree_edit(pt, &e);
		}
		*rb = java_read_stored(&kb, post, post_len, pt, NULL, b);
	}
	if (pt)
		ts_tree_delete(pt);
}

void a1_java_side_free(struct a1_java_side *j)
{
	a1_js_side_free(&j->s);
	for (size_t i = 0; i < j->nconds; i++) {
		free(j->conds[i].name);
		free(j->conds[i].text);
	}
	free(j->conds);
	a1_jvm_names_free(&j->methods);
	for (size_t i = 0; i < j->ndropped; i++) {
		free(j->dropped[i].name);
		free(j->dropped[i].text);
	}
	free(j->dropped);
	for (size_t i = 0; i < j->nrows; i++) {
		free(j->rows[i].name);
		free(j->rows[i].text);
	}
	free(j->rows);
	strmap_free(&j->test_names);
	memset(j, 0, sizeof *j);
}
