/* a1_go.c - one side of a Go test file reduced to facts (a1_go.h, a1_lang.h): the build
 * constraints before the package clause, each top-level function (collected as a test or
 * not), and in each one walk that finds the failure calls with the conditions guarding them,
 * testify's assertions, the skips and the calls; the tables its `for .. range` loops run over
 * (rows of a composite literal of the function or a package-level var, or the source they
 * come from).
 *
 * Threads: any. Must not: recurse deeper than WALK_MAX (a deeper tree makes the side
 * undecidable), print, keep state between calls. */
#include "assertions/a1_go.h"

#include <stdlib.h>
#include <string.h>
#include <tree_sitter/api.h>

#include "assertions/a1_lang.h"
#include "assertions/tsnode.h"
#include "common/buf.h"
#include "common/xalloc.h"

const TSLanguage *tree_sitter_go(void);

#define WALK_MAX 1024
#define NAMES_MAX 16 /* testing parameters tracked in one function */
#define TAG_DEPTH 32
#define VARS_MAX 32  /* variables tracked as a table's possible literal */
#define OPEN_MAX 8   /* table loops open at once */

int a1_go_path(const char *path)
{
	size_t n = path ? strlen(path) : 0;
	return n > 3 && !strcmp(path + n - 3, ".go");
}

/*==== build constraints =====================================================================*/

struct tags {
	const char *s;
	int depth;
};

/* A tag's value: 0 when nothing sets it (`ignore`, a name of no platform), -1 when it depends
 * on the platform or toolchain. */
static int tag_value(const char *t, size_t n)
{
	static const char *const known[] = {
	    "linux",   "darwin", "windows", "freebsd", "netbsd", "openbsd", "dragonfly", "solaris", "illumos", "aix",
	    "android", "ios",	 "js",	    "wasip1",  "plan9",	 "hurd",    "zos",	 "unix",    "amd64",   "386",
	    "arm",     "arm64",	 "wasm",    "mips",    "mipsle", "mips64",  "mips64le",	 "ppc64",   "ppc64le", "riscv64",
	    "s390x",   "loong64", "cgo",    "gc",      "gccgo",	 "race",    "msan",	 "asan",    "purego",  NULL};
	for (const char *const *k = known; *k; k++)
		if (strlen(*k) == n && !memcmp(*k, t, n))
			return -1;
	if ((n > 4 && !memcmp(t, "go1.", 4)) || (n > 13 && !memcmp(t, "goexperiment.", 13)))
		return -1;
	return 0;
}

static int tag_or(struct tags *x);

static void tag_space(struct tags *x)
{
	while (*x->s == ' ' || *x->s == '\t')
		x->s++;
}

static int tag_unary(struct tags *x)
{
	tag_space(x);
	if (++x->depth > TAG_DEPTH)
		return -1;
	int v;
	if (*x->s == '!') {
		x->s++;
		v = tag_unary(x);
		v = v < 0 ? -1 : !v;
	} else if (*x->s == '(') {
		x->s++;
		v = tag_or(x);
		tag_space(x);
		if (*x->s == ')')
			x->s++;
	} else {
		const char *a = x->s;
		while (*x->s && !strchr(" \t()!&|", *x->s))
			x->s++;
		v = x->s > a ? tag_value(a, (size_t)(x->s - a)) : -1;
	}
	x->depth--;
	return v;
}

static int tag_and(struct tags *x)
{
	int v = tag_unary(x);
	for (tag_space(x); x->s[0] == '&' && x->s[1] == '&'; tag_space(x)) {
		x->s += 2;
		int w = tag_unary(x);
		v = v == 0 || w == 0 ? 0 : v == 1 && w == 1 ? 1 : -1;
	}
	return v;
}

static int tag_or(struct tags *x)
{
	int v = tag_and(x);
	for (tag_space(x); x->s[0] == '|' && x->s[1] == '|'; tag_space(x)) {
		x->s += 2;
		int w = tag_and(x);
		v = v == 1 || w == 1 ? 1 : v == 0 && w == 0 ? 0 : -1;
	}
	return v;
}

/* The constraint comments before the package clause, evaluated together (all must hold). */
static void constraints(const char *src, TSNode root, struct a1_lang_side *s)
{
	int all = 1;
	struct buf shown = {0};
	uint32_t n = ts_node_named_child_count(root);
	for (uint32_t i = 0; i < n; i++) {
		TSNode k = ts_node_named_child(root, i);
		if (strcmp(ts_node_type(k), "comment"))
			break;
		uint32_t a = ts_node_start_byte(k), e = ts_node_end_byte(k);
		char *line = xstrndup(src + a, e - a);
		char *expr = NULL;
		if (!strncmp(line, "//go:build ", 11)) {
			expr = xstrdup(line + 11);
		} else if (!strncmp(line, "// +build ", 10)) { /* space: or, comma: and */
			struct buf b = {0};
			for (const char *p = line + 10; *p; p++)
				buf_puts(&b, *p == ' ' ? "||" : *p == ',' ? "&&" : (char[]){*p, 0});
			buf_cstr(&b);
			expr = buf_take(&b);
		}
		if (expr) {
			struct tags x = {expr, 0};
			int v = tag_or(&x);
			all = v == 0 || all == 0 ? 0 : v == 1 && all == 1 ? 1 : -1;
			buf_printf(&shown, "%s%s", shown.len ? "; " : "", line);
			free(expr);
		}
		free(line);
	}
	if (shown.len && all == 0)
		s->excluded = xstrdup(buf_cstr(&shown));
	else if (shown.len && all < 0)
		s->constraint = xstrdup(buf_cstr(&shown));
	buf_free(&shown);
}

/*==== functions =============================================================================*/

struct go_imports {
	char *names[NAMES_MAX];
	const char *pkgs[NAMES_MAX];
	size_t n;
};

/* Variables bound to one value (x := v, var x = v): where a ranged-over name's rows are. The
 * nodes live as long as the tree. */
struct go_vars {
	char *names[VARS_MAX];
	TSNode vals[VARS_MAX];
	size_t n;
};

struct walk {
	const char *src;
	struct a1_lang_side *s;
	struct a1_lang_func *f;
	char *tparams[NAMES_MAX]; /* names of the function's testing parameters */
	size_t ntparams;
	/* testify: the names its packages go by in this file (assert, require, or an import's
	 * alias; pkgs[i] the package: "assert" | "require"), and the function's objects made by
	 * assert.New(t) / require.New(t) (objs[i] of package objpkgs[i]) */
	const struct go_imports *imp;
	char *objs[NAMES_MAX];
	const char *objpkgs[NAMES_MAX];
	size_t nobjs;
	char *suite_recv; /* a suite method's receiver: s.T() is its *testing.T (owned, may be NULL) */
	char *mparam;	  /* TestMain(m *testing.M)'s m (owned, may be NULL) */
	int ran;	  /* m.Run() called: 0 never, 1 always, -1 under a condition */
	unsigned recovers; /* recover() calls seen */
	char *gone[NAMES_MAX]; /* testing parameters bound again (t = &testing.T{}) */
	size_t ngone;
	struct go_vars vars;	     /* the function's own */
	const struct go_vars *pkg;   /* the file's package-level ones */
	size_t open[OPEN_MAX];	     /* table loops being walked: indices in f->tables */
	TSNode open_val[OPEN_MAX];   /* ... their value variable (tc), key variable (name) */
	TSNode open_key[OPEN_MAX];
	char *run_field[OPEN_MAX];   /* t.Run(tc.X, ..): X, the rows' name field (owned) */
	size_t nopen;
};

struct ctx {
	const char *guard; /* the conditions guarding here, canonical; "" for none */
	TSNode cond;	   /* the innermost condition (null in an else branch) */
	int value;	   /* 1 when every guard holds always, 0 when one never does, -1 otherwise */
	int looped;	   /* inside a loop, a switch or a select */
	int dead;
	int depth;
	int swallow;	 /* in a goroutine: A1_LANG_MAYBE_SWALLOWED */
	const char *ret; /* after `if X { return }` of a condition not known: "if X => return" */
};

static int text_is(const char *src, TSNode n, const char *s)
{
	size_t k = ts_node_end_byte(n) - ts_node_start_byte(n);
	return !ts_node_is_null(n) && k == strlen(s) && !memcmp(src + ts_node_start_byte(n), s, k);
}

static int name_in(const char *src, TSNode n, const char *const *set)
{
	for (; *set; set++)
		if (text_is(src, n, *set))
			return 1;
	return 0;
}

/* Names of the parameters of `params` whose type is of package testing. */
static void testing_params(struct walk *w, TSNode params)
{
	uint32_t n = ts_node_named_child_count(params);
	for (uint32_t i = 0; i < n; i++) {
		TSNode d = ts_node_named_child(params, i);
		TSNode type = tsnode_field(d, "type");
		char *t = ts_node_is_null(type) ? xstrdup("") : a1_lang_canon(w->src, type);
		int testing = !strncmp(t, "*testing.", 9) || !strcmp(t, "testing.TB");
		free(t);
		uint32_t m = ts_node_named_child_count(d);
		for (uint32_t j = 0; testing && j < m; j++) {
			TSNode k = ts_node_named_child(d, j);
			if (!strcmp(ts_node_type(k), "identifier") && w->ntparams < NAMES_MAX)
				w->tparams[w->ntparams++] = a1_lang_canon(w->src, k);
		}
	}
}

static int is_tparam(const struct walk *w, TSNode n)
{
	for (size_t i = 0; i < w->ntparams; i++)
		if (text_is(w->src, n, w->tparams[i]))
			return 1;
	return 0;
}

/* 1 when `n` is a testing value made on the spot (&testing.T{}, new(testing.T)): what fails
 * on it fails no test. */
static int dummy_t(const char *src, TSNode n)
{
	if (ts_node_is_null(n))
		return 0;
	char *t = a1_lang_canon(src, n);
	int yes = !strncmp(t, "&testing.", 9) || !strncmp(t, "new(testing.", 12) || !strncmp(t, "testing.T{", 10);
	free(t);
	return yes;
}

/* 1 when a call's arguments hold a dummy testing value. */
static int dummy_arg(const char *src, TSNode call)
{
	TSNode args = tsnode_field(call, "arguments");
	uint32_t n = ts_node_is_null(args) ? 0 : ts_node_named_child_count(args);
	for (uint32_t i = 0; i < n; i++)
		if (dummy_t(src, ts_node_named_child(args, i)))
			return 1;
	return 0;
}

static int is_gone(const struct walk *w, TSNode n)
{
	for (size_t i = 0; i < w->ngone; i++)
		if (text_is(w->src, n, w->gone[i]))
			return 1;
	return 0;
}

/* The form of a fact: its guards, then the call. */
static struct a1_lang_fact *fact(struct walk *w, const struct ctx *c, TSNode call)
{
	char *text = a1_lang_canon(w->src, call);
	char *form = *c->guard ? xasprintf("if %s => %s", c->guard, text) : xstrdup(text);
	free(text);
	struct a1_lang_fact *f = a1_lang_fact_add(w->f, form, a1_lang_line(call));
	f->dead = (unsigned char)c->dead;
	f->taut = c->value == 0;
	f->swallowed = (unsigned char)c->swallow;
	if (c->ret && !c->dead && !(w->f->mods & (A1_LANG_SKIP | A1_LANG_COND_SKIP))) {
		/* the test may return before it: a skip under that condition */
		w->f->mods |= A1_LANG_COND_SKIP;
		free(w->f->why);
		w->f->why = xstrdup(c->ret);
	}
	return f;
}

/* testify: assert.X(t, ...) / require.X(t, ...). */
static void testify(struct walk *w, const struct ctx *c, TSNode call, const char *pk, TSNode method, uint32_t off)
{
	static const char *const expected_first[] = {"Equal", "EqualValues", "Exactly", "Same", "JSONEq", "YAMLEq",
						     "ElementsMatch", "InDelta", "InEpsilon", "EqualExportedValues",
						     "NotEqual", "NotSame", NULL};
	static const char *const exact[] = {"Equal", "EqualValues", "Exactly", "Same", "JSONEq", "YAMLEq", "ElementsMatch",
					    "EqualError", "ErrorIs", "Len", "Nil", "True", "False", "Zero", "Empty",
					    "NoError", "Panics", "PanicsWithValue", "PanicsWithError", "InDelta", "EqualExportedValues",
					    NULL};
	static const char *const loose[] = {"NotNil", "NotEmpty", "NotZero", "Error", "Contains", "Greater",
					    "GreaterOrEqual", "Less", "LessOrEqual", "Positive", "Negative", "IsType",
					    "Implements", "Condition", "NotEqual", "NotSame", "Subset", "NotPanics", "ErrorContains",
					    NULL};
	struct a1_lang_fact *f = fact(w, c, call);
	char *me = a1_lang_canon(w->src, method);
	f->matcher = xasprintf("%s.%s", pk, me);
	TSNode args = tsnode_field(call, "arguments");
	if (off == 1 && ts_node_named_child_count(args) > 0 &&
	    (dummy_t(w->src, ts_node_named_child(args, 0)) || is_gone(w, ts_node_named_child(args, 0))))
		f->swallowed = A1_LANG_SWALLOWED; /* assert.Equal(&testing.T{}, ..) fails no test */
	uint32_t na = ts_node_named_child_count(args);
	/* the package form takes t first (off 1); an assert.New(t) object does not (off 0) */
	na = na >= off ? na - off : 0;
	TSNode a1 = na > 0 ? ts_node_named_child(args, off) : (TSNode){0},
	       a2 = na > 1 ? ts_node_named_child(args, off + 1) : (TSNode){0};
	int ef = name_in(w->src, method, expected_first) || !strcmp(me, "Len") ? 1 : 0;
	if (!strcmp(me, "Len") || !ef) { /* Len(t, obj, n), True(t, x): the subject first */
		if (na > 0)
			f->subject = a1_lang_canon(w->src, a1);
		if (na > 1 && strcmp(me, "Len") == 0)
			f->expected = a1_lang_canon(w->src, a2);
	} else if (na > 1) {
		f->expected = a1_lang_canon(w->src, a1);
		f->subject = a1_lang_canon(w->src, a2);
		if (!strcmp(me, "Equal") || !strcmp(me, "EqualValues") || !strcmp(me, "Exactly") || !strcmp(me, "Same"))
			f->taut |= !strcmp(f->expected, f->subject);
	}
	if (na > 0 && ((!strcmp(me, "True") && a1_lang_cond(w->src, a1) == 1) || (!strcmp(me, "False") && a1_lang_cond(w->src, a1) == 0) ||
		       (!strcmp(me, "Nil") && text_is(w->src, a1, "nil")) || (!strcmp(me, "NotNil") && a1_lang_literal(a1) && !text_is(w->src, a1, "nil"))))
		f->taut = 1;
	f->strength = name_in(w->src, method, exact) ? A1_LANG_EXACT : name_in(w->src, method, loose) ? A1_LANG_LOOSE : A1_LANG_OTHER;
	free(me);
}

/* The testify package a name stands for in this file ("assert", "require"), or NULL. */
static const char *testify_pkg(const struct walk *w, TSNode n)
{
	for (size_t i = 0; w->imp && i < w->imp->n; i++)
		if (text_is(w->src, n, w->imp->names[i]))
			return w->imp->pkgs[i];
	return NULL;
}

/* The package of a testify object (a := assert.New(t)), or NULL. */
static const char *testify_obj(const struct walk *w, TSNode n)
{
	for (size_t i = 0; i < w->nobjs; i++)
		if (text_is(w->src, n, w->objs[i]))
			return w->objpkgs[i];
	return NULL;
}

/* a := assert.New(t) (or require.New, through any name the package goes by): a is an object
 * whose methods assert without t. */
static void testify_new(struct walk *w, TSNode decl)
{
	/* a := x, a = x: left and right; var a = x: name and value (var a T has no value) */
	int spec = !strcmp(ts_node_type(decl), "var_spec");
	TSNode left = tsnode_field(decl, spec ? "name" : "left"), right = tsnode_field(decl, spec ? "value" : "right");
	if (ts_node_is_null(left) || ts_node_is_null(right) || ts_node_named_child_count(right) != 1 ||
	    (!spec && ts_node_named_child_count(left) != 1))
		return;
	TSNode name = spec ? left : ts_node_named_child(left, 0), call = ts_node_named_child(right, 0);
	if (strcmp(ts_node_type(name), "identifier") || strcmp(ts_node_type(call), "call_expression"))
		return;
	TSNode fn = tsnode_field(call, "function");
	if (strcmp(ts_node_type(fn), "selector_expression"))
		return;
	const char *pk = testify_pkg(w, tsnode_field(fn, "operand"));
	if (pk && text_is(w->src, tsnode_field(fn, "field"), "New") && w->nobjs < NAMES_MAX && !dummy_arg(w->src, call)) {
		w->objpkgs[w->nobjs] = pk;
		w->objs[w->nobjs++] = a1_lang_canon(w->src, name);
	}
}

/* When n is s.T(), s.Require() or s.Assert() on a suite method's receiver s: "T",
 * "Require" or "Assert"; else NULL. */
static const char *suite_chain(const struct walk *w, TSNode n)
{
	if (!w->suite_recv || strcmp(ts_node_type(n), "call_expression"))
		return NULL;
	TSNode fn = tsnode_field(n, "function");
	if (strcmp(ts_node_type(fn), "selector_expression"))
		return NULL;
	TSNode op = tsnode_field(fn, "operand"), field = tsnode_field(fn, "field");
	if (strcmp(ts_node_type(op), "identifier") || !text_is(w->src, op, w->suite_recv))
		return NULL;
	static const char *const names[] = {"T", "Require", "Assert", NULL};
	for (const char *const *k = names; *k; k++)
		if (text_is(w->src, field, *k))
			return *k;
	return NULL;
}

/* t = x, t := x (var t = x): t is no longer the test's testing value (a dummy, most likely),
 * what fails on it after fails nothing. */
static void rebound(struct walk *w, TSNode decl)
{
	int spec = !strcmp(ts_node_type(decl), "var_spec");
	TSNode left = tsnode_field(decl, spec ? "name" : "left"), right = tsnode_field(decl, spec ? "value" : "right");
	if (ts_node_is_null(left) || ts_node_is_null(right))
		return;
	uint32_t n = spec ? 1 : ts_node_named_child_count(left);
	for (uint32_t i = 0; i < n; i++) {
		TSNode name = spec ? left : ts_node_named_child(left, i);
		TSNode value = i < ts_node_named_child_count(right) ? ts_node_named_child(right, i) : (TSNode){0};
		if (strcmp(ts_node_type(name), "identifier") || (!ts_node_is_null(value) && is_tparam(w, value)))
			continue; /* t := t: the same */
		for (size_t j = 0; j < w->ntparams; j++)
			if (text_is(w->src, name, w->tparams[j])) {
				if (w->ngone < NAMES_MAX)
					w->gone[w->ngone++] = w->tparams[j];
				else
					free(w->tparams[j]);
				w->tparams[j] = xstrdup("");
			}
	}
}

/*==== tables ================================================================================*/

/* x := v, x = v, var x = v of one name and one value: the value x stands for from here on. */
static void vars_set(const char *src, struct go_vars *v, TSNode decl)
{
	int spec = !strcmp(ts_node_type(decl), "var_spec");
	TSNode left = tsnode_field(decl, spec ? "name" : "left"), right = tsnode_field(decl, spec ? "value" : "right");
	if (ts_node_is_null(left) || ts_node_is_null(right) || ts_node_named_child_count(right) != 1 ||
	    (!spec && ts_node_named_child_count(left) != 1))
		return;
	TSNode name = spec ? left : ts_node_named_child(left, 0);
	if (strcmp(ts_node_type(name), "identifier"))
		return;
	size_t i;
	for (i = 0; i < v->n && !text_is(src, name, v->names[i]); i++)
		;
	TSNode val = ts_node_named_child(right, 0), fn = tsnode_field(val, "function"), args = tsnode_field(val, "arguments");
	if (i < v->n && !strcmp(ts_node_type(val), "call_expression") && text_is(src, fn, "append") && !ts_node_is_null(args) &&
	    ts_node_named_child_count(args) > 0 && text_is(src, ts_node_named_child(args, 0), v->names[i]))
		return; /* tests = append(tests, ..): the literal's rows stay (what is appended is not read) */
	if (i == v->n) {
		if (v->n == VARS_MAX)
			return;
		v->names[v->n++] = a1_lang_canon(src, name);
	}
	v->vals[i] = val;
}

static void vars_free(struct go_vars *v)
{
	for (size_t i = 0; i < v->n; i++)
		free(v->names[i]);
	v->n = 0;
}

/* The value bound to identifier `n` (the function's own first, then the package's); null. */
static TSNode vars_get(const struct walk *w, TSNode n)
{
	for (size_t i = 0; i < w->vars.n; i++)
		if (text_is(w->src, n, w->vars.names[i]))
			return w->vars.vals[i];
	for (size_t i = 0; w->pkg && i < w->pkg->n; i++)
		if (text_is(w->src, n, w->pkg->names[i]))
			return w->pkg->vals[i];
	return (TSNode){0};
}

/* t.Run(tc.X, ..) in the innermost table loop, tc the loop's value: X is the rows' name. */
static void run_name(struct walk *w, TSNode call)
{
	TSNode args = tsnode_field(call, "arguments");
	if (ts_node_is_null(args) || ts_node_named_child_count(args) < 1)
		return;
	TSNode a = ts_node_named_child(args, 0);
	size_t k = w->nopen - 1;
	if (!strcmp(ts_node_type(a), "selector_expression") && !w->run_field[k] && !ts_node_is_null(w->open_val[k])) {
		char *val = a1_lang_canon(w->src, w->open_val[k]);
		if (text_is(w->src, tsnode_field(a, "operand"), val))
			w->run_field[k] = a1_lang_canon(w->src, tsnode_field(a, "field"));
		free(val);
	}
}

static int string_lit(TSNode n)
{
	const char *t = ts_node_type(n);
	return !strcmp(t, "interpreted_string_literal") || !strcmp(t, "raw_string_literal");
}

/* A literal_element's expression, `&X{..}`'s X{..}, a composite literal's body. */
static TSNode row_body(TSNode n)
{
	for (int i = 0; i < 4 && !ts_node_is_null(n); i++) {
		const char *t = ts_node_type(n);
		if (!strcmp(t, "literal_element") && ts_node_named_child_count(n) == 1)
			n = ts_node_named_child(n, 0);
		else if (!strcmp(t, "unary_expression") && !strcmp(ts_node_type(tsnode_field(n, "operator")), "&"))
			n = tsnode_field(n, "operand");
		else if (!strcmp(t, "composite_literal"))
			n = tsnode_field(n, "body");
		else
			break;
	}
	return n;
}

/* A row's text without its name: the fields called like a name (name, desc, ..) or t.Run's
 * (run_field), a map's string key when t.Run names the row by it or it is a string, the
 * first of a row of positions when it is a string and t.Run names the rows by a field. */
static char *row_key(const char *src, TSNode row, const char *run_field)
{
	static const char *const names[] = {"name", "desc", "description", "title", "label", "scenario", "testName",
					    "testname", "tname", "caseName", NULL};
	if (!strcmp(ts_node_type(row), "keyed_element")) {
		TSNode key = row_body(tsnode_field(row, "key"));
		if (!ts_node_is_null(key) && string_lit(key))
			return row_key(src, tsnode_field(row, "value"), run_field);
	}
	TSNode body = row_body(row);
	if (ts_node_is_null(body) || strcmp(ts_node_type(body), "literal_value"))
		return a1_lang_canon(src, row);
	struct buf b = {0};
	uint32_t n = ts_node_named_child_count(body);
	int keyed = 0, first = 1;
	for (uint32_t i = 0; i < n; i++)
		keyed |= !strcmp(ts_node_type(ts_node_named_child(body, i)), "keyed_element");
	for (uint32_t i = 0; i < n; i++) {
		TSNode el = ts_node_named_child(body, i);
		if (!strcmp(ts_node_type(el), "comment"))
			continue;
		if (!strcmp(ts_node_type(el), "keyed_element")) {
			TSNode key = row_body(tsnode_field(el, "key"));
			int named = run_field && text_is(src, key, run_field);
			for (const char *const *k = names; *k && !named; k++)
				named = text_is(src, key, *k);
			if (named)
				continue;
		} else if (!keyed && first && run_field && string_lit(row_body(el))) {
			first = 0;
			continue;
		}
		first = 0;
		char *t = a1_lang_canon(src, el);
		buf_printf(&b, "%s%s", b.len ? "," : "", t);
		free(t);
	}
	buf_cstr(&b);
	return buf_take(&b);
}

static void call_expr(struct walk *w, const struct ctx *c, TSNode call)
{
	static const char *const failures[] = {"Error", "Errorf", "Fatal", "Fatalf", "Fail", "FailNow", NULL};
	static const char *const skips[] = {"Skip", "Skipf", "SkipNow", NULL};
	TSNode fn = tsnode_field(call, "function");
	if (!strcmp(ts_node_type(fn), "identifier") && text_is(w->src, fn, "recover"))
		w->recovers++;
	if (!strcmp(ts_node_type(fn), "identifier") && !dummy_arg(w->src, call)) { /* checkAdd(&testing.T{}): asserts nothing */
		a1_lang_call_add(w->f, w->src + ts_node_start_byte(fn), ts_node_end_byte(fn) - ts_node_start_byte(fn));
		for (size_t i = 0; i < w->nopen; i++)
			a1_lang_names_add(&w->f->tables[w->open[i]].calls, w->src + ts_node_start_byte(fn),
					  ts_node_end_byte(fn) - ts_node_start_byte(fn));
		return;
	}
	if (strcmp(ts_node_type(fn), "selector_expression"))
		return;
	TSNode op = tsnode_field(fn, "operand"), field = tsnode_field(fn, "field");
	if (w->mparam && !strcmp(ts_node_type(op), "identifier") && text_is(w->src, op, w->mparam) &&
	    text_is(w->src, field, "Run")) { /* TestMain's m.Run() */
		int now = c->dead || c->value == 0 ? 0 : c->value == 1 && !c->looped ? 1 : -1;
		w->ran = w->ran == 1 || now == 1 ? 1 : w->ran == -1 || now == -1 ? -1 : 0;
		return;
	}
	const char *chained = suite_chain(w, op); /* s.T(), s.Require(), s.Assert() */
	if (chained && strcmp(chained, "T")) {
		testify(w, c, call, !strcmp(chained, "Require") ? "require" : "assert", field, 0);
		return;
	}
	if ((!strcmp(ts_node_type(op), "identifier") && is_tparam(w, op)) || chained) {
		if (w->nopen && text_is(w->src, field, "Run"))
			run_name(w, call);
		if (name_in(w->src, field, failures)) {
			a1_lang_guarded(w->src, c->cond, fact(w, c, call));
		} else if (name_in(w->src, field, skips) && !c->dead && c->value != 0) {
			unsigned m = c->value == 1 && !c->looped ? A1_LANG_SKIP : A1_LANG_COND_SKIP;
			if (!(w->f->mods & A1_LANG_SKIP)) {
				w->f->mods |= m;
				free(w->f->why);
				char *t = a1_lang_canon(w->src, call);
				w->f->why = *c->guard ? xasprintf("if %s => %s", c->guard, t) : xstrdup(t);
				free(t);
			}
		}
	} else if (testify_pkg(w, op) && !strcmp(testify_pkg(w, op), "suite")) {
		if (text_is(w->src, field, "Run")) { /* suite.Run(t, s): the suite's tests run only through it */
			struct a1_lang_fact *f = fact(w, c, call);
			f->matcher = xstrdup("suite.Run");
		}
	} else if (testify_pkg(w, op)) {
		testify(w, c, call, testify_pkg(w, op), field, 1);
	} else if (!strcmp(ts_node_type(op), "identifier") && testify_obj(w, op)) {
		testify(w, c, call, testify_obj(w, op), field, 0);
	}
}

static void walk(struct walk *w, TSNode n, struct ctx c);

/* 1 when statement `st` ends what runs of its function: return, panic(..), os.Exit(..),
 * runtime.Goexit(), log.Fatal*(..), log.Panic*(..). */
static int ends_func(const struct walk *w, TSNode st)
{
	static const char *const enders[] = {"panic",	   "os.Exit",	"runtime.Goexit", "log.Fatal", "log.Fatalf",
					     "log.Fatalln", "log.Panic", "log.Panicf",	   "log.Panicln", NULL};
	if (!strcmp(ts_node_type(st), "return_statement"))
		return 1;
	if (strcmp(ts_node_type(st), "expression_statement") || ts_node_named_child_count(st) != 1 ||
	    strcmp(ts_node_type(ts_node_named_child(st, 0)), "call_expression"))
		return 0;
	char *fn = a1_lang_canon(w->src, tsnode_field(ts_node_named_child(st, 0), "function"));
	int yes = 0;
	for (const char *const *e = enders; *e && !yes; e++)
		yes = !strcmp(fn, *e);
	free(fn);
	return yes;
}

/* When `st` is `if X { ...; return }` (no else; or os.Exit(0), runtime.Goexit()) that fails nothing: X's value where it stands
 * (1 always, -1 not known; 0 none), its text into *why. */
static int returns_if(struct walk *w, const struct ctx *c, TSNode st, size_t facts_before, char **why)
{
	if (strcmp(ts_node_type(st), "if_statement") || !ts_node_is_null(tsnode_field(st, "alternative")) ||
	    w->f->nfacts != facts_before || c->value == 0)
		return 0;
	TSNode cons = tsnode_field(st, "consequence");
	uint32_t k = ts_node_is_null(cons) ? 0 : ts_node_named_child_count(cons);
	TSNode last = k ? ts_node_named_child(cons, k - 1) : (TSNode){0};
	if (!k || !strcmp(ts_node_type(last), "statement_list")) {
		k = k ? ts_node_named_child_count(last) : 0;
		last = k ? ts_node_named_child(last, k - 1) : (TSNode){0};
	}
	/* a return, or an exit that passes: panic, log.Fatal, os.Exit(1) fail the test */
	char *lt = k ? a1_lang_canon(w->src, last) : NULL;
	int quiet = k && (!strcmp(ts_node_type(last), "return_statement") || !strcmp(lt, "runtime.Goexit()") ||
			  !strcmp(lt, "os.Exit(0)"));
	free(lt);
	if (!quiet)
		return 0;
	TSNode cond = tsnode_field(st, "condition");
	int v = a1_lang_cond(w->src, cond);
	v = v == 0 ? 0 : v == 1 && c->value == 1 ? 1 : -1;
	if (v < 0) {
		char *t = a1_lang_canon(w->src, cond);
		*why = xasprintf("if %s => return", t);
		free(t);
	}
	return v;
}

static void walk_kids(struct walk *w, TSNode n, struct ctx c)
{
	char *ret = NULL;
	uint32_t k = ts_node_named_child_count(n);
	for (uint32_t i = 0; i < k; i++) {
		TSNode ch = ts_node_named_child(n, i);
		size_t before = w->f->nfacts;
		walk(w, ch, c);
		char *why = NULL;
		int r = c.dead ? 0 : returns_if(w, &c, ch, before, &why);
		if (ends_func(w, ch) || r == 1)
			c.dead = 1; /* what follows in this block never runs */
		else if (r < 0 && !c.ret)
			c.ret = ret = why, why = NULL;
		free(why);
	}
	free(ret);
}

static void walk_if(struct walk *w, TSNode n, struct ctx c)
{
	TSNode init = tsnode_field(n, "initializer"), cond = tsnode_field(n, "condition");
	char *ct = a1_lang_canon(w->src, cond);
	char *it = ts_node_is_null(init) ? NULL : a1_lang_canon(w->src, init);
	char *g = it ? xasprintf("%s; %s", it, ct) : xstrdup(ct);
	int v = a1_lang_cond(w->src, cond);
	if (!ts_node_is_null(init))
		walk(w, init, c);
	struct ctx in = c;
	char *guard = xasprintf("%s%s%s", c.guard, *c.guard ? " && " : "", g);
	in.guard = guard;
	in.cond = cond;
	in.value = c.value == 0 || v == 0 ? 0 : c.value == 1 && v == 1 ? 1 : -1;
	in.depth++;
	TSNode cons = tsnode_field(n, "consequence"), alt = tsnode_field(n, "alternative");
	if (!ts_node_is_null(cons))
		walk(w, cons, in);
	if (!ts_node_is_null(alt)) {
		char *nguard = xasprintf("%s%s!(%s)", c.guard, *c.guard ? " && " : "", g);
		in.guard = nguard;
		in.cond = (TSNode){0};
		int nv = v < 0 ? -1 : !v;
		in.value = c.value == 0 || nv == 0 ? 0 : c.value == 1 && nv == 1 ? 1 : -1;
		walk(w, alt, in);
		free(nguard);
	}
	free(guard);
	free(g);
	free(ct);
	free(it);
}

/* `for k, v := range X` whose body asserts: a table of X's rows (X a composite literal, or a
 * variable of the function or the package bound to one; else its source). 1 when walked. */
static int walk_range(struct walk *w, TSNode n, struct ctx c)
{
	TSNode rc = {0};
	for (uint32_t i = 0; i < ts_node_named_child_count(n) && ts_node_is_null(rc); i++)
		if (!strcmp(ts_node_type(ts_node_named_child(n, i)), "range_clause"))
			rc = ts_node_named_child(n, i);
	if (ts_node_is_null(rc) || w->nopen == OPEN_MAX)
		return 0;
	TSNode right = tsnode_field(rc, "right"), left = tsnode_field(rc, "left"), lit = right;
	if (!strcmp(ts_node_type(lit), "identifier") && !ts_node_is_null(vars_get(w, lit)))
		lit = vars_get(w, lit);
	char *name = !strcmp(ts_node_type(right), "identifier") ? a1_lang_canon(w->src, right) : xstrdup("range");
	size_t ti = w->f->ntables, k = w->nopen++;
	a1_lang_table_add(w->f, name, a1_lang_line(n));
	free(name);
	uint32_t nl = ts_node_is_null(left) ? 0 : ts_node_named_child_count(left);
	w->open[k] = ti;
	w->open_key[k] = nl > 0 ? ts_node_named_child(left, 0) : (TSNode){0};
	w->open_val[k] = nl > 1 ? ts_node_named_child(left, 1) : (TSNode){0};
	w->run_field[k] = NULL;
	size_t before = w->f->nfacts;
	c.looped = 1;
	walk_kids(w, n, c);
	w->nopen--;
	struct a1_lang_table *t = &w->f->tables[ti];
	for (size_t i = before; i < w->f->nfacts; i++)
		t->asserts |= !w->f->facts[i].dead && !w->f->facts[i].taut;
	TSNode body = strcmp(ts_node_type(lit), "composite_literal") ? (TSNode){0} : tsnode_field(lit, "body");
	if (!ts_node_is_null(body)) {
		uint32_t m = ts_node_named_child_count(body);
		for (uint32_t i = 0; i < m; i++) {
			TSNode row = ts_node_named_child(body, i);
			if (!strcmp(ts_node_type(row), "comment"))
				continue;
			char *text = a1_lang_canon(w->src, row), *key = row_key(w->src, row, w->run_field[k]);
			a1_lang_names_add(&t->rows, text, strlen(text));
			a1_lang_names_add(&t->keys, key, strlen(key));
			free(text);
			free(key);
		}
	} else {
		t->source = a1_lang_canon(w->src, lit);
	}
	free(w->run_field[k]);
	w->run_field[k] = NULL;
	return 1;
}

static void walk(struct walk *w, TSNode n, struct ctx c)
{
	if (w->s->status)
		return;
	if (++c.depth > WALK_MAX) {
		a1_lang_side_status(w->s, A1_LANG_UNDECIDABLE, "line %u: the syntax tree is deeper than %d", a1_lang_line(n), WALK_MAX);
		return;
	}
	const char *t = ts_node_type(n);
	if (!strcmp(t, "if_statement")) {
		walk_if(w, n, c);
		return;
	}
	if (!strcmp(t, "for_statement") && walk_range(w, n, c))
		return;
	if (!strcmp(t, "for_statement") || !strcmp(t, "expression_switch_statement") || !strcmp(t, "type_switch_statement") ||
	    !strcmp(t, "select_statement"))
		c.looped = 1;
	if (!strcmp(t, "func_literal"))
		testing_params(w, tsnode_field(n, "parameters"));
	if (!strcmp(t, "go_statement"))
		c.swallow = A1_LANG_MAYBE_SWALLOWED; /* the test may end before it runs */
	if (!strcmp(t, "defer_statement")) {
		/* defer func() { recover() }() that fails nothing: a panic ends the test as passed */
		size_t facts = w->f->nfacts;
		unsigned rec = w->recovers;
		walk_kids(w, n, c);
		if (w->recovers != rec && w->f->nfacts == facts && !c.dead && !(w->f->mods & A1_LANG_SWALLOWS)) {
			w->f->mods |= A1_LANG_SWALLOWS;
			if (!w->f->why)
				w->f->why = a1_lang_canon(w->src, n);
		}
		return;
	}
	if (!strcmp(t, "call_expression"))
		call_expr(w, &c, n);
	if (!strcmp(t, "short_var_declaration") || !strcmp(t, "var_spec") || !strcmp(t, "assignment_statement")) {
		testify_new(w, n);
		rebound(w, n);
		vars_set(w->src, &w->vars, n);
		TSNode left = tsnode_field(n, "left"), right = tsnode_field(n, "right");
		if (!ts_node_is_null(left) && ts_node_named_child_count(left) == 1 && text_is(w->src, ts_node_named_child(left, 0), "_") &&
		    ts_node_named_child_count(right) == 1 && !strcmp(ts_node_type(ts_node_named_child(right, 0)), "func_literal"))
			c.dead = 1; /* _ = func() { .. }: never called */
	}
	walk_kids(w, n, c);
}

/* 1 when `go test` runs it: TestX(t *testing.T) or FuzzX(f *testing.F), X not lower-case. */
static int collected(const char *src, TSNode fn, const char *name)
{
	const char *kind = !strncmp(name, "Test", 4) ? "*testing.T" : !strncmp(name, "Fuzz", 4) ? "*testing.F" : NULL;
	if (!kind || (name[4] >= 'a' && name[4] <= 'z'))
		return 0;
	if (!ts_node_is_null(tsnode_field(fn, "result")) ||
	    !ts_node_is_null(tsnode_field(fn, "type_parameters")))
		return 0;
	TSNode params = tsnode_field(fn, "parameters");
	if (ts_node_named_child_count(params) != 1)
		return 0;
	TSNode d = ts_node_named_child(params, 0);
	if (ts_node_named_child_count(d) > 2)
		return 0; /* (a, b *testing.T) */
	char *t = a1_lang_canon(src, tsnode_field(d, "type"));
	int ok = !strcmp(t, kind);
	free(t);
	return ok;
}

/* 1 when a testify suite runs it: a method TestX() of no parameters and no result, X not
 * lower-case (suite.Run calls every such method of the suite). */
static int collected_method(const char *src, TSNode fn, const char *name)
{
	(void)src;
	if (strncmp(name, "Test", 4) || (name[4] >= 'a' && name[4] <= 'z'))
		return 0;
	return ts_node_named_child_count(tsnode_field(fn, "parameters")) == 0 &&
	       ts_node_is_null(tsnode_field(fn, "result"));
}

/* TestMain(m *testing.M)'s m, or NULL. New string. */
static char *main_param(const char *src, TSNode fn)
{
	TSNode params = tsnode_field(fn, "parameters");
	if (ts_node_named_child_count(params) != 1)
		return NULL;
	TSNode d = ts_node_named_child(params, 0);
	char *t = a1_lang_canon(src, tsnode_field(d, "type"));
	TSNode name = tsnode_field(d, "name");
	char *m = !strcmp(t, "*testing.M") && !ts_node_is_null(name) ? a1_lang_canon(src, name) : NULL;
	free(t);
	return m;
}

/* The receiver's name of a method ((s *CalcSuite) -> "s"), or NULL. New string. */
static char *receiver_name(const char *src, TSNode fn)
{
	TSNode r = tsnode_field(fn, "receiver");
	if (ts_node_is_null(r) || ts_node_named_child_count(r) != 1)
		return NULL;
	TSNode name = tsnode_field(ts_node_named_child(r, 0), "name");
	return ts_node_is_null(name) ? NULL : a1_lang_canon(src, name);
}

/* The names testify's assert and require packages go by in this file: their own, or the
 * alias an import gives them (a dot import or a blank one gives none). */
static void imports(const char *text, TSNode root, struct go_imports *imp)
{
	size_t n;
	TSNode *tops = tsnode_named_children(root, &n); /* by cursor: ts_node_named_child(root, i) is O(i) */
	for (size_t i = 0; i < n; i++) {
		TSNode d = tops[i];
		if (strcmp(ts_node_type(d), "import_declaration"))
			continue;
		TSNode specs[64];
		uint32_t k = 0, m = ts_node_named_child_count(d);
		for (uint32_t j = 0; j < m; j++) {
			TSNode x = ts_node_named_child(d, j);
			if (!strcmp(ts_node_type(x), "import_spec") && k < 64)
				specs[k++] = x;
			else if (!strcmp(ts_node_type(x), "import_spec_list"))
				for (uint32_t q = 0; q < ts_node_named_child_count(x) && k < 64; q++)
					if (!strcmp(ts_node_type(ts_node_named_child(x, q)), "import_spec"))
						specs[k++] = ts_node_named_child(x, q);
		}
		for (uint32_t j = 0; j < k && imp->n < NAMES_MAX; j++) {
			char *path = a1_lang_canon(text, tsnode_field(specs[j], "path"));
			const char *pkg = !strcmp(path, "\"github.com/stretchr/testify/assert\"")    ? "assert"
					  : !strcmp(path, "\"github.com/stretchr/testify/require\"") ? "require"
					  : !strcmp(path, "\"github.com/stretchr/testify/suite\"")   ? "suite"
												      : NULL;
			free(path);
			if (!pkg)
				continue;
			TSNode alias = tsnode_field(specs[j], "name");
			if (ts_node_is_null(alias)) {
				imp->pkgs[imp->n] = pkg;
				imp->names[imp->n++] = xstrdup(pkg);
			} else if (!strcmp(ts_node_type(alias), "package_identifier")) {
				imp->pkgs[imp->n] = pkg;
				imp->names[imp->n++] = a1_lang_canon(text, alias);
			}
		}
	}
	free(tops);
}

static void extract(const char *text, size_t len, struct a1_lang_side *s, TSTree *old, TSTree **keep, void *ctx,
		    struct a1_lang_plan *plan)
{
	(void)ctx;
	if (keep)
		*keep = NULL;
	TSTree *tree = a1_lang_plan_parse(plan, A1_LANG_GO, tree_sitter_go(), text, len, s, old);
	if (!tree)
		return;
	TSNode root = ts_tree_root_node(tree);
	constraints(text, root, s);
	struct go_imports imp = {0};
	imports(text, root, &imp);
	size_t n;
	TSNode *kids = tsnode_named_children(root, &n);
	struct go_vars pkg = {0}; /* outside every unit: a change to them walks every unit */
	for (size_t i = 0; i < n; i++)
		if (!strcmp(ts_node_type(kids[i]), "var_declaration"))
			for (uint32_t j = 0; j < ts_node_named_child_count(kids[i]); j++) {
				TSNode d = ts_node_named_child(kids[i], j);
				uint32_t m = !strcmp(ts_node_type(d), "var_spec_list") ? ts_node_named_child_count(d) : 0;
				if (!strcmp(ts_node_type(d), "var_spec"))
					vars_set(text, &pkg, d);
				for (uint32_t q = 0; q < m; q++)
					if (!strcmp(ts_node_type(ts_node_named_child(d, q)), "var_spec"))
						vars_set(text, &pkg, ts_node_named_child(d, q));
			} /* by index: quadratic over a file of functions */
	uint32_t run = UINT32_MAX; /* the first byte of the comments right before a function */
	for (size_t i = 0; i < n && !s->status; i++) {
		TSNode fn = kids[i];
		int method = !strcmp(ts_node_type(fn), "method_declaration");
		/* methods too: a suite's TestX() methods need not import the suite package (they assert
		 * through the embedded suite.Suite), so every TestX() method of a test file is taken
		 * as a suite's test */
		if (strcmp(ts_node_type(fn), "function_declaration") && !method) {
			/* comments after the package clause are read by nothing: a function's unit holds
			 * those right before it (a1_lang_skip) */
			int comment = !strcmp(ts_node_type(fn), "comment") && i > 0 &&
				      strcmp(ts_node_type(kids[i - 1]), "comment");
			run = comment ? ts_node_start_byte(fn) : !strcmp(ts_node_type(fn), "comment") ? run : UINT32_MAX;
			continue;
		}
		uint32_t start = run != UINT32_MAX ? run : ts_node_start_byte(fn);
		run = UINT32_MAX;
		if (a1_lang_skip(plan, fn, start))
			continue;
		char *name = a1_lang_canon(text, tsnode_field(fn, "name"));
		struct walk w = {.src = text, .s = s, .imp = &imp, .pkg = &pkg};
		w.f = a1_lang_func_add(s, name, method ? collected_method(text, fn, name) : collected(text, fn, name),
				       a1_lang_line(fn));
		if (!w.f->is_test) {
			char *params = a1_lang_canon(text, tsnode_field(fn, "parameters"));
			w.f->why = xasprintf("func %s%s", name, params);
			free(params);
		}
		if (!a1_lang_want(plan, s, fn, start)) {
			free(name);
			continue;
		}
		if (method && (w.suite_recv = receiver_name(text, fn)) != NULL) {
			/* the suite asserts through its receiver: s.Equal(1, x) */
			w.objpkgs[0] = "assert";
			w.objs[0] = xstrdup(w.suite_recv);
			w.nobjs = 1;
		}
		testing_params(&w, tsnode_field(fn, "parameters"));
		if (!method && !strcmp(name, "TestMain"))
			w.mparam = main_param(text, fn);
		struct ctx c = {.guard = "", .value = 1};
		TSNode body = tsnode_field(fn, "body");
		if (!ts_node_is_null(body))
			walk(&w, body, c);
		if (w.mparam && w.ran != 1) { /* no test of the package runs, or only sometimes */
			w.f->mods |= w.ran == 0 ? A1_LANG_NO_RUN : A1_LANG_COND_RUN;
			free(w.f->why);
			w.f->why = xasprintf(w.ran == 0 ? "TestMain never calls %s.Run()" : "TestMain calls %s.Run() only under a condition",
					     w.mparam);
		}
		free(w.mparam);
		for (size_t j = 0; j < w.ntparams; j++)
			free(w.tparams[j]);
		for (size_t j = 0; j < w.nobjs; j++)
			free(w.objs[j]);
		for (size_t j = 0; j < w.ngone; j++)
			free(w.gone[j]);
		free(w.suite_recv);
		vars_free(&w.vars);
		free(name);
	}
	vars_free(&pkg);
	free(kids);
	for (size_t j = 0; j < imp.n; j++)
		free(imp.names[j]);
	a1_lang_plan_done(plan, tree, keep, s);
}

cJSON *a1_go_judge(const char *pre, size_t pre_len, const char *post, size_t post_len)
{
	return a1_lang_judge("go", tree_sitter_go(), extract, NULL, pre, pre_len, post, post_len);
}

int a1_go_count(const char *text, size_t len, int *tests, int *assertions)
{
	return a1_lang_count(extract, NULL, text, len, tests, assertions);
}
