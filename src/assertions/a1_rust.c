/* a1_rust.c - one side of a Rust source reduced to facts (a1_rust.h, a1_lang.h): the items
 * of the file and of its inline modules with the attributes before each (test, ignore,
 * should_panic, cfg, cfg_attr), in each function one walk that finds the assertion macros -
 * their arguments re-read as expressions by a second parser - with the conditions guarding
 * them and the calls; the tables a function runs over (its #[case(..)] / #[test_case(..)]
 * attributes, the rows of an array, `vec![..]`, a let or a const its `for` loops range over);
 * macro definitions and item-level macro calls kept as text.
 *
 * Threads: any. Must not: recurse deeper than WALK_MAX (a deeper tree makes the side
 * undecidable) or CFG_DEPTH in a cfg predicate, print, keep state between calls. */
#include "assertions/a1_rust.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <tree_sitter/api.h>

#include "assertions/a1_lang.h"
#include "assertions/tsnode.h"
#include "common/buf.h"
#include "common/strmap.h"
#include "common/xalloc.h"

const TSLanguage *tree_sitter_rust(void);

#define WALK_MAX 1024
#define CFG_DEPTH 32
#define VARS_MAX 32 /* let bindings tracked as a table's possible literal */
#define OPEN_MAX 8  /* table loops open at once */

int a1_rust_path(const char *path)
{
	size_t n = path ? strlen(path) : 0;
	return n > 3 && !strcmp(path + n - 3, ".rs");
}

static int is(TSNode n, const char *type)
{
	if (ts_node_is_null(n))
		return 0;
	const char *t = ts_node_type(n);
	return t[0] == type[0] && !strcmp(t, type); /* most calls differ at the first byte: no call then */
}

static int is_word(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || (unsigned char)c >= 0x80;
}

static int text_is(const char *src, TSNode n, const char *s)
{
	size_t k = ts_node_end_byte(n) - ts_node_start_byte(n);
	return !ts_node_is_null(n) && k == strlen(s) && !memcmp(src + ts_node_start_byte(n), s, k);
}

/*==== cfg predicates ========================================================================*/

/* A bare cfg name's value: 1 for `test`, -1 for what the platform or the build sets, 0 for a
 * name nothing sets (`FALSE`, `never`). */
static int cfg_name(const char *src, TSNode id)
{
	static const char *const known[] = {"unix", "windows", "debug_assertions", "miri", "doc", "doctest", "proc_macro",
					    "target_thread_local", "overflow_checks", "ub_checks", "fuzzing", "loom", NULL};
	if (text_is(src, id, "test"))
		return 1;
	for (const char *const *k = known; *k; k++)
		if (text_is(src, id, *k))
			return -1;
	return 0;
}

static int cfg_list(const char *src, TSNode tt, char mode, int depth);

/* The predicate starting at child *i of token tree `tt`; *i moves past it. */
static int cfg_pred(const char *src, TSNode tt, uint32_t *i, uint32_t end, int depth)
{
	TSNode id = ts_node_child(tt, *i);
	if (!is(id, "identifier")) {
		++*i;
		return -1;
	}
	TSNode next = *i + 1 < end ? ts_node_child(tt, *i + 1) : (TSNode){0};
	if (is(next, "token_tree")) {
		*i += 2;
		char mode = text_is(src, id, "all") ? 'a' : text_is(src, id, "any") ? 'o' : text_is(src, id, "not") ? 'n' : 0;
		return mode ? cfg_list(src, next, mode, depth + 1) : -1;
	}
	if (!ts_node_is_null(next) && text_is(src, next, "=")) {
		*i += 3; /* feature = "x", target_os = "linux": not known */
		return -1;
	}
	++*i;
	return cfg_name(src, id);
}

/* all(...) / any(...) / not(...) over the predicates of `tt`. */
static int cfg_list(const char *src, TSNode tt, char mode, int depth)
{
	if (depth > CFG_DEPTH)
		return -1;
	uint32_t n = ts_node_child_count(tt), end = n ? n - 1 : 0; /* the delimiters */
	int v = mode == 'o' ? 0 : 1, count = 0;
	for (uint32_t i = 1; i < end;) {
		if (text_is(src, ts_node_child(tt, i), ",")) {
			i++;
			continue;
		}
		int w = cfg_pred(src, tt, &i, end, depth);
		count++;
		if (mode == 'o')
			v = v == 1 || w == 1 ? 1 : v == 0 && w == 0 ? 0 : -1;
		else
			v = v == 0 || w == 0 ? 0 : v == 1 && w == 1 ? 1 : -1;
	}
	if (mode == 'n')
		return count != 1 || v < 0 ? -1 : !v;
	return v;
}

/* The value of `cfg(...)` given its arguments. */
static int cfg_value(const char *src, TSNode args)
{
	return ts_node_is_null(args) ? -1 : cfg_list(src, args, 'a', 0);
}

/*==== attributes ============================================================================*/

struct attrs {
	int test, ignore, panics, cond_ignore;
	int cfg;	  /* 1 compiled, 0 never, -1 not known */
	char *why;	  /* the attribute that decides the cfg / skip */
	char *expect;	  /* should_panic's expected text */
	int rstest;	  /* #[rstest]: its #[case(..)]s are its rows */
	struct a1_lang_names cases, keys; /* #[case(..)] / #[test_case(..)]: text, text without the name */
	const char *case_kind;		  /* "#[case]" / "#[test_case]"; NULL */
};

static void attrs_free(struct attrs *a)
{
	free(a->why);
	free(a->expect);
	for (size_t i = 0; i < a->cases.n; i++)
		free(a->cases.v[i]);
	for (size_t i = 0; i < a->keys.n; i++)
		free(a->keys.v[i]);
	free(a->cases.v);
	free(a->keys.v);
	memset(a, 0, sizeof *a);
	a->cfg = 1;
}

static void why_set(char **why, const char *src, TSNode item)
{
	if (!*why)
		*why = a1_lang_canon(src, item);
}

/* The canonical text of token tree `tt`'s tokens inside its delimiters, up to the first
 * top-level `stop` (NULL: all), a space only between two word tokens. New string. */
static char *tokens_before(const char *src, TSNode tt, const char *stop)
{
	struct buf b = {0};
	uint32_t k = ts_node_child_count(tt);
	for (uint32_t i = 1; i + 1 < k; i++) {
		TSNode ch = ts_node_child(tt, i);
		if (stop && text_is(src, ch, stop))
			break;
		char *t = a1_lang_canon(src, ch);
		if (b.len && *t && is_word(b.p[b.len - 1]) && is_word(t[0]))
			buf_puts(&b, " ");
		buf_puts(&b, t);
		free(t);
	}
	buf_cstr(&b);
	return buf_take(&b);
}

/* 1 when token tree `tt` holds the token `tok` at its top level. */
static int tokens_have(const char *src, TSNode tt, const char *tok)
{
	uint32_t k = ts_node_child_count(tt);
	for (uint32_t i = 1; i + 1 < k; i++)
		if (text_is(src, ts_node_child(tt, i), tok))
			return 1;
	return 0;
}

/* Folds one attribute item (outer or inner) into `a`. */
static void attr(const char *src, TSNode item, struct attrs *a)
{
	TSNode at = ts_node_named_child(item, 0);
	if (!is(at, "attribute"))
		return;
	TSNode path = ts_node_named_child(at, 0), args = tsnode_field(at, "arguments");
	char *p = a1_lang_canon(src, path);
	size_t n = strlen(p);
	if (!strcmp(p, "test") || (n > 6 && !strcmp(p + n - 6, "::test")) || !strcmp(p, "rstest") || !strcmp(p, "test_case") ||
	    !strcmp(p, "wasm_bindgen_test"))
		a->test = 1;
	if (!strcmp(p, "rstest"))
		a->rstest = 1;
	if ((!strcmp(p, "case") || !strncmp(p, "case::", 6) || !strcmp(p, "test_case")) && !ts_node_is_null(args)) {
		/* a row: case::name(..)'s arguments, test_case(.. ; "name")'s before the `;` */
		int tc = !strcmp(p, "test_case");
		char *text = a1_lang_canon(src, at), *key = tokens_before(src, args, tc ? ";" : NULL);
		a1_lang_names_add(&a->cases, text, strlen(text));
		a1_lang_names_add(&a->keys, key, strlen(key));
		a->case_kind = tc ? "#[test_case]" : "#[case]";
		free(text);
		free(key);
	}
	else if (!strcmp(p, "ignore"))
		a->ignore = 1, why_set(&a->why, src, item);
	else if (!strcmp(p, "should_panic")) {
		a->panics = 1;
		TSNode value = tsnode_field(at, "value");
		uint32_t k = ts_node_is_null(args) ? 0 : ts_node_child_count(args);
		for (uint32_t i = 1; i + 2 < k && ts_node_is_null(value); i++)
			if (text_is(src, ts_node_child(args, i), "expected") && text_is(src, ts_node_child(args, i + 1), "="))
				value = ts_node_child(args, i + 2);
		if (!ts_node_is_null(value) && !a->expect)
			a->expect = a1_lang_canon(src, value);
		if (!a->expect)
			a->expect = xstrdup("");
	} else if (!strcmp(p, "cfg")) {
		int v = cfg_value(src, args);
		if (v <= 0 && a->cfg != 0) {
			free(a->why);
			a->why = a1_lang_canon(src, item);
		}
		a->cfg = a->cfg == 0 || v == 0 ? 0 : a->cfg == 1 && v == 1 ? 1 : -1;
	} else if (!strcmp(p, "cfg_attr") && !ts_node_is_null(args)) { /* cfg_attr(pred, ignore) */
		uint32_t i = 1, k = ts_node_child_count(args);
		int v = k > 2 ? cfg_pred(src, args, &i, k - 1, 0) : -1;
		for (; i + 1 < k; i++)
			if (text_is(src, ts_node_child(args, i), "ignore") && v != 0) {
				*(v == 1 ? &a->ignore : &a->cond_ignore) = 1;
				why_set(&a->why, src, item);
			} else if (text_is(src, ts_node_child(args, i), "should_panic") && v != 0) {
				/* cfg_attr(test, should_panic): any panic passes; under a condition not known:
				 * a conditional change of what passes */
				if (v == 1 && !a->panics)
					a->panics = 1, a->expect = a->expect ? a->expect : xstrdup("");
				else if (v < 0)
					a->cond_ignore = 1;
				why_set(&a->why, src, item);
			}
	}
	free(p);
}

/*==== function bodies =======================================================================*/

/* What an assertion macro's arguments gave its fact, by the macro's name and token text: the
 * two sides of a file, and the sides of one file turn after turn, share most of their macros,
 * and reading one again is a parse. One memo per process (the fact is a function of the key
 * alone), under a mutex, emptied when it reaches RMEMO_MAX entries. */
#define RMEMO_MAX 65536
struct rmemo_val {
	char *subject, *matcher, *expected;
	unsigned char taut, strength;
};
struct rmemo {
	struct strmap idx; /* key -> index into v */
	struct rmemo_val *v;
	size_t n, cap;
};

static void rmemo_free(struct rmemo *m)
{
	for (size_t i = 0; i < m->n; i++) {
		free(m->v[i].subject);
		free(m->v[i].matcher);
		free(m->v[i].expected);
	}
	free(m->v);
	strmap_free(&m->idx);
}

static char *dup_or_null(const char *s)
{
	return s ? xstrdup(s) : NULL;
}

static pthread_mutex_t rust_memo_mu = PTHREAD_MUTEX_INITIALIZER;
static struct rmemo rust_memo;
static int rust_memo_ready;

void a1_rust_memo_clear(void)
{
	pthread_mutex_lock(&rust_memo_mu);
	if (rust_memo_ready)
		rmemo_free(&rust_memo);
	rust_memo = (struct rmemo){0};
	rust_memo_ready = 0;
	pthread_mutex_unlock(&rust_memo_mu);
}

/* The remembered fact of `key` copied into f: 1, else 0. */
static int rust_memo_get(const char *key, struct a1_lang_fact *f)
{
	int64_t k;
	pthread_mutex_lock(&rust_memo_mu);
	int hit = rust_memo_ready && strmap_get(&rust_memo.idx, key, &k);
	if (hit) {
		const struct rmemo_val *v = &rust_memo.v[k];
		f->subject = dup_or_null(v->subject);
		f->matcher = dup_or_null(v->matcher);
		f->expected = dup_or_null(v->expected);
		f->taut = v->taut;
		f->strength = v->strength;
	}
	pthread_mutex_unlock(&rust_memo_mu);
	return hit;
}

static void rust_memo_put(const char *key, const struct a1_lang_fact *f)
{
	int64_t k;
	pthread_mutex_lock(&rust_memo_mu);
	if (rust_memo_ready && rust_memo.n >= RMEMO_MAX) {
		rmemo_free(&rust_memo);
		rust_memo_ready = 0;
	}
	if (!rust_memo_ready) {
		rust_memo = (struct rmemo){0};
		strmap_init(&rust_memo.idx);
		rust_memo_ready = 1;
	}
	if (!strmap_get(&rust_memo.idx, key, &k)) {
		struct rmemo *mm = &rust_memo;
		mm->v = xgrow_zeroed(mm->v, &mm->cap, mm->n, sizeof *mm->v, 64);
		mm->v[mm->n] = (struct rmemo_val){dup_or_null(f->subject), dup_or_null(f->matcher), dup_or_null(f->expected),
						  f->taut, f->strength};
		strmap_put(&mm->idx, key, (int64_t)mm->n++);
	}
	pthread_mutex_unlock(&rust_memo_mu);
}

/* The file's const and static items of one name (in any module): where a ranged-over name's
 * rows are. Outside every unit (a change to them walks every unit). The nodes live as long
 * as the tree. */
/* The file's const / static items, read on the first look (a table loop over a name): most
 * files never need them, and reading them is a pass over every item. */
struct consts {
	char *names[VARS_MAX];
	TSNode vals[VARS_MAX];
	size_t n;
	const char *src;
	TSNode root;
	int read;
};

static void consts_read(const char *src, TSNode list, struct consts *k, int depth);

static const struct consts *consts_ready(struct consts *k)
{
	if (k && !k->read) {
		k->read = 1;
		consts_read(k->src, k->root, k, 0);
	}
	return k;
}

struct walk {
	const char *src;
	struct a1_lang_side *s;
	struct a1_lang_func *f;
	const void *memo; /* non-NULL: macros go through the process's memo (rust_memo_get) */
	TSParser *sub; /* re-reads macro arguments */
	const char *mod; /* "tests::" */
	TSNode body;	 /* the function's body */
	char *var_names[VARS_MAX]; /* let x = v of the function: where a ranged-over name's rows are */
	TSNode var_vals[VARS_MAX];
	size_t nvars;
	size_t open[OPEN_MAX]; /* table loops being walked: indices in f->tables */
	size_t nopen;
	struct consts *consts; /* the file's const / static items (consts_ready) */
};

struct ctx {
	const char *guard; /* conditions guarding here, canonical; "" for none */
	TSNode cond;	   /* the innermost condition (null in an else branch) */
	int dead;	   /* after a return, or in a branch that never runs */
	int depth;
	int swallow;	 /* in a closure of catch_unwind / spawn: A1_LANG_SWALLOWED or _MAYBE_ */
	const char *ret; /* after `if X { return; }` of a condition not known: "if X => return" */
};

/* The call of `fn` as a name of this file's functions: "tests::helper". */
static void call_name(struct walk *w, TSNode fn)
{
	char *t = a1_lang_canon(w->src, fn);
	const char *name = t;
	struct buf b = {0};
	if (!strncmp(name, "crate::", 7)) {
		name += 7;
	} else {
		buf_puts(&b, w->mod);
		for (;;) {
			if (!strncmp(name, "self::", 6)) {
				name += 6;
			} else if (!strncmp(name, "super::", 7)) {
				name += 7;
				if (b.len >= 2) { /* drop the last "x::" */
					size_t k = b.len - 2;
					while (k > 0 && !(b.p[k - 1] == ':' && b.p[k - 2] == ':'))
						k--;
					b.len = k;
				}
			} else {
				break;
			}
		}
	}
	buf_puts(&b, name);
	a1_lang_call_add(w->f, buf_cstr(&b), b.len);
	for (size_t i = 0; i < w->nopen; i++)
		a1_lang_names_add(&w->f->tables[w->open[i]].calls, b.p, b.len);
	buf_free(&b);
	free(t);
}

static char *macro_name(const char *src, TSNode m)
{
	TSNode id = tsnode_field(m, "macro");
	if (is(id, "scoped_identifier"))
		id = tsnode_field(id, "name");
	return a1_lang_canon(src, id);
}

/* A macro's arguments re-read: "fn f(){g(" ARGS "\n)}" parsed (the line end ends a line
 * comment among them); the tree (caller deletes) with *args the arguments node, or NULL when
 * they are no expressions. */
static TSTree *reread(struct walk *w, TSNode tt, char **text, TSNode *args)
{
	uint32_t a = ts_node_start_byte(tt), e = ts_node_end_byte(tt);
	*text = e > a + 1 ? xasprintf("fn f(){g(%.*s\n)}", (int)(e - a - 2), w->src + a + 1) : xstrdup("fn f(){g()}");
	TSTree *t = ts_parser_parse_string(w->sub, NULL, *text, (uint32_t)strlen(*text));
	if (!t)
		return NULL;
	TSNode root = ts_tree_root_node(t);
	TSNode fn = ts_node_named_child_count(root) == 1 ? ts_node_named_child(root, 0) : (TSNode){0};
	TSNode body = is(fn, "function_item") ? tsnode_field(fn, "body") : (TSNode){0};
	TSNode call = is(body, "block") && ts_node_named_child_count(body) == 1 ? ts_node_named_child(body, 0) : (TSNode){0};
	if (ts_node_has_error(root) || !is(call, "call_expression")) {
		ts_tree_delete(t);
		return NULL;
	}
	*args = tsnode_field(call, "arguments");
	if (ts_node_is_null(*args)) {
		ts_tree_delete(t);
		return NULL;
	}
	return t;
}

/* Fills the fact of assertion macro `name` from its re-read arguments. */
static void assertion(struct a1_lang_fact *f, const char *name, const char *src, TSNode args)
{
	uint32_t na = ts_node_named_child_count(args);
	TSNode a0 = na > 0 ? ts_node_named_child(args, 0) : (TSNode){0}, a1 = na > 1 ? ts_node_named_child(args, 1) : (TSNode){0};
	const char *base = !strncmp(name, "debug_", 6) ? name + 6 : name;
	f->matcher = xstrdup(name);
	if ((!strcmp(base, "assert_eq") || !strcmp(base, "assert_ne")) && na >= 2) {
		if (a1_lang_literal(a0) && !a1_lang_literal(a1)) {
			TSNode t = a0;
			a0 = a1;
			a1 = t;
		}
		f->subject = a1_lang_canon(src, a0);
		f->expected = a1_lang_canon(src, a1);
		int same = !strcmp(f->subject, f->expected), lits = a1_lang_literal(a0) && a1_lang_literal(a1);
		f->taut = base[7] == 'e' ? same : lits && !same;
		f->strength = base[7] == 'e' ? A1_LANG_EXACT : A1_LANG_LOOSE;
		return;
	}
	if (strcmp(base, "assert") || na < 1) {
		if (na > 0)
			f->subject = a1_lang_canon(src, a0);
		return;
	}
	f->taut = a1_lang_cond(src, a0) == 1;
	if (is(a0, "binary_expression")) {
		TSNode op = tsnode_field(a0, "operator");
		static const char *const cmp[] = {"==", "!=", "<", ">", "<=", ">=", NULL};
		for (const char *const *c = cmp; *c; c++)
			if (text_is(src, op, *c)) {
				a1_lang_guarded(src, a0, f);
				f->strength = !strcmp(*c, "==") ? A1_LANG_EXACT : A1_LANG_LOOSE;
				return;
			}
	} else if (is(a0, "call_expression") && is(tsnode_field(a0, "function"), "field_expression")) {
		TSNode fe = tsnode_field(a0, "function"); /* x.is_some(): a loose check of x */
		f->subject = a1_lang_canon(src, tsnode_field(fe, "value"));
		free(f->matcher);
		f->matcher = a1_lang_canon(src, tsnode_field(fe, "field"));
		f->strength = !strcmp(f->matcher, "eq") ? A1_LANG_EXACT : A1_LANG_LOOSE;
		return;
	}
	f->subject = a1_lang_canon(src, a0);
}

static int failure_macro(const char *name)
{
	return !strcmp(name, "panic") || !strcmp(name, "unreachable") || !strcmp(name, "todo") || !strcmp(name, "unimplemented");
}

static void macro(struct walk *w, const struct ctx *c, TSNode m)
{
	char *name = macro_name(w->src, m);
	int fails = failure_macro(name);
	if (!fails && !strstr(name, "assert")) {
		free(name);
		return;
	}
	char *text = a1_lang_canon(w->src, m);
	char *form = *c->guard ? xasprintf("if %s => %s", c->guard, text) : xstrdup(text);
	free(text);
	struct a1_lang_fact *f = a1_lang_fact_add(w->f, form, a1_lang_line(m));
	f->dead = (unsigned char)c->dead;
	f->swallowed = (unsigned char)c->swallow;
	if (c->ret && !c->dead && !(w->f->mods & (A1_LANG_SKIP | A1_LANG_COND_SKIP))) {
		/* the test may return before it: a skip under that condition */
		w->f->mods |= A1_LANG_COND_SKIP;
		free(w->f->why);
		w->f->why = xstrdup(c->ret);
	}
	if (fails) {
		a1_lang_guarded(w->src, c->cond, f);
	} else {
		TSNode tt = ts_node_named_child(m, ts_node_named_child_count(m) - 1), args;
		char *key = w->memo && is(tt, "token_tree")
				? xasprintf("%s\x1f%.*s", name, (int)tsnode_len(tt), w->src + ts_node_start_byte(tt))
				: NULL;
		if (key && rust_memo_get(key, f)) {
		} else {
			char *sub = NULL;
			TSTree *t = is(tt, "token_tree") ? reread(w, tt, &sub, &args) : NULL;
			if (t) {
				assertion(f, name, sub, args);
				ts_tree_delete(t);
			} else {
				f->matcher = xstrdup(name);
			}
			free(sub);
			if (key)
				rust_memo_put(key, f);
		}
		free(key);
	}
	free(name);
}

/*==== tables ================================================================================*/

/* let x = v (x a plain name): the value x stands for from here on. */
static void let_bound(struct walk *w, TSNode n)
{
	TSNode pat = tsnode_field(n, "pattern"), value = tsnode_field(n, "value");
	if (!is(pat, "identifier") || ts_node_is_null(value))
		return;
	size_t i;
	for (i = 0; i < w->nvars && !text_is(w->src, pat, w->var_names[i]); i++)
		;
	if (i == w->nvars) {
		if (w->nvars == VARS_MAX)
			return;
		w->var_names[w->nvars++] = a1_lang_canon(w->src, pat);
	}
	w->var_vals[i] = value;
}

/* What a `for` ranges over, past `&x`, `x.iter()`, `x.into_iter()` and a name bound by let. */
static TSNode ranged(struct walk *w, TSNode v)
{
	for (int i = 0; i < 8 && !ts_node_is_null(v); i++) {
		if (is(v, "reference_expression")) {
			v = tsnode_field(v, "value");
		} else if (is(v, "call_expression") && is(tsnode_field(v, "function"), "field_expression") &&
			   ts_node_named_child_count(tsnode_field(v, "arguments")) == 0 &&
			   (text_is(w->src, tsnode_field(tsnode_field(v, "function"), "field"), "iter") ||
			    text_is(w->src, tsnode_field(tsnode_field(v, "function"), "field"), "into_iter"))) {
			v = tsnode_field(tsnode_field(v, "function"), "value");
		} else if (is(v, "identifier")) {
			size_t j;
			for (j = 0; j < w->nvars && !text_is(w->src, v, w->var_names[j]); j++)
				;
			if (j < w->nvars) {
				v = w->var_vals[j];
				continue;
			}
			const struct consts *k = consts_ready(w->consts);
			for (j = 0; k && j < k->n && !text_is(w->src, v, k->names[j]); j++)
				;
			if (!k || j == k->n || ts_node_is_null(k->vals[j]))
				break;
			v = k->vals[j];
		} else {
			break;
		}
	}
	return v;
}

/* A row of `vec![..]`: the tokens of token tree `tt` from child *i to the next top-level `,`. */
static char *vec_row(const char *src, TSNode tt, uint32_t *i, uint32_t end)
{
	struct buf b = {0};
	for (; *i < end && !text_is(src, ts_node_child(tt, *i), ","); ++*i) {
		char *t = a1_lang_canon(src, ts_node_child(tt, *i));
		if (b.len && *t && is_word(b.p[b.len - 1]) && is_word(t[0]))
			buf_puts(&b, " ");
		buf_puts(&b, t);
		free(t);
	}
	++*i;
	buf_cstr(&b);
	return buf_take(&b);
}

static void row_add(struct a1_lang_table *t, const char *text)
{
	a1_lang_names_add(&t->rows, text, strlen(text));
	a1_lang_names_add(&t->keys, text, strlen(text));
}

static void walk(struct walk *w, TSNode n, struct ctx c);

/* `for p in X` whose body asserts: a table of X's rows (an array, `vec![..]`, or a name bound
 * to one; else its source). */
static void walk_for(struct walk *w, TSNode n, struct ctx c)
{
	TSNode value = tsnode_field(n, "value"), lit = ranged(w, value);
	char *name = is(value, "identifier") ? a1_lang_canon(w->src, value) : xstrdup("range");
	size_t ti = w->f->ntables, before = w->f->nfacts;
	a1_lang_table_add(w->f, name, a1_lang_line(n));
	free(name);
	walk(w, value, c);
	w->open[w->nopen++] = ti;
	walk(w, tsnode_field(n, "body"), c);
	w->nopen--;
	struct a1_lang_table *t = &w->f->tables[ti];
	for (size_t i = before; i < w->f->nfacts; i++)
		t->asserts |= !w->f->facts[i].dead && !w->f->facts[i].soft;
	TSNode tt = is(lit, "macro_invocation") ? ts_node_named_child(lit, ts_node_named_child_count(lit) - 1) : (TSNode){0};
	char *mname = is(lit, "macro_invocation") ? macro_name(w->src, lit) : NULL;
	if (is(lit, "array_expression") && ts_node_is_null(tsnode_field(lit, "length"))) {
		for (uint32_t i = 0; i < ts_node_named_child_count(lit); i++) {
			TSNode el = ts_node_named_child(lit, i);
			if (is(el, "attribute_item") || is(el, "line_comment") || is(el, "block_comment"))
				continue;
			char *text = a1_lang_canon(w->src, el);
			row_add(t, text);
			free(text);
		}
	} else if (mname && !strcmp(mname, "vec") && is(tt, "token_tree") && !tokens_have(w->src, tt, ";")) {
		uint32_t k = ts_node_child_count(tt);
		for (uint32_t i = 1; i + 1 < k;) {
			char *text = vec_row(w->src, tt, &i, k - 1);
			if (*text)
				row_add(t, text);
			free(text);
		}
	} else {
		t->source = a1_lang_canon(w->src, lit);
	}
	free(mname);
}

/* 1 when statement `st` ends its block: return, panic!, unreachable!, process::exit(..),
 * process::abort(). */
static int ends_block(struct walk *w, TSNode st)
{
	TSNode e = is(st, "expression_statement") ? ts_node_named_child(st, 0) : st;
	if (is(e, "return_expression"))
		return 1;
	if (is(e, "call_expression")) {
		char *fn = a1_lang_canon(w->src, tsnode_field(e, "function"));
		size_t n = strlen(fn);
		int exits = (n >= 13 && !strcmp(fn + n - 13, "process::exit")) || (n >= 14 && !strcmp(fn + n - 14, "process::abort"));
		free(fn);
		return exits;
	}
	if (!is(e, "macro_invocation"))
		return 0;
	char *name = macro_name(w->src, e);
	int f = failure_macro(name);
	free(name);
	return f;
}

/* 1 when statement `st` is `process::exit(0)` (any path to it): the test binary ends as
 * passed. */
static int quiet_exit(struct walk *w, TSNode st)
{
	TSNode e = is(st, "expression_statement") ? ts_node_named_child(st, 0) : st;
	if (!is(e, "call_expression"))
		return 0;
	char *t = a1_lang_canon(w->src, e);
	size_t n = strlen(t);
	int yes = n >= 16 && !strcmp(t + n - 16, "process::exit(0)");
	free(t);
	return yes;
}

/* When `st` is `if X { ...; return; }` (no else; or process::exit(0)) that asserted nothing: X's value where it
 * stands (1 always, -1 not known; 0 none), its text into *why. */
static int returns_if(struct walk *w, TSNode st, size_t facts_before, char **why)
{
	TSNode e = is(st, "expression_statement") ? ts_node_named_child(st, 0) : st;
	if (!is(e, "if_expression") || !ts_node_is_null(tsnode_field(e, "alternative")) || w->f->nfacts != facts_before)
		return 0;
	TSNode cons = tsnode_field(e, "consequence"), cond = tsnode_field(e, "condition");
	uint32_t k = ts_node_is_null(cons) ? 0 : ts_node_named_child_count(cons);
	TSNode last = k ? ts_node_named_child(cons, k - 1) : (TSNode){0};
	last = is(last, "expression_statement") ? ts_node_named_child(last, 0) : last;
	char *lt = k ? a1_lang_canon(w->src, last) : NULL;
	size_t n = lt ? strlen(lt) : 0;
	/* a return, or an exit that passes: panic!, process::exit(1) fail the test */
	int quiet = k && (is(last, "return_expression") || (n >= 16 && !strcmp(lt + n - 16, "process::exit(0)")));
	free(lt);
	if (!quiet)
		return 0;
	int v = is(cond, "let_condition") || is(cond, "let_chain") ? -1 : a1_lang_cond(w->src, cond);
	if (v < 0) {
		char *t = a1_lang_canon(w->src, cond);
		*why = xasprintf("if %s => return", t);
		free(t);
	}
	return v;
}

/* How a closure passed to call `n` may lose a panic: catch_unwind(..) or a thread / task
 * spawned, whose result is dropped (`let _ =`, a statement, `.ok()`: A1_LANG_SWALLOWED) or
 * kept (A1_LANG_MAYBE_SWALLOWED); propagated again (`.unwrap()`, `.expect(..)`, `?`, `.join()`
 * of it unwrapped) or another call: A1_LANG_SEEN. */
static int swallows(struct walk *w, TSNode n)
{
	char *fn = a1_lang_canon(w->src, tsnode_field(n, "function"));
	size_t k = strlen(fn);
	int catcher = (k >= 12 && !strcmp(fn + k - 12, "catch_unwind")) || !strcmp(fn, "thread::spawn") ||
		      !strcmp(fn, "std::thread::spawn") || !strcmp(fn, "tokio::spawn") || !strcmp(fn, "tokio::task::spawn");
	free(fn);
	if (!catcher)
		return A1_LANG_SEEN;
	/* up the method chain on its result: .join(), .ok(), .unwrap(), .await, ? */
	TSNode top = n;
	for (int i = 0; i < 16; i++) {
		TSNode p = ts_node_parent(top);
		if (!is(p, "field_expression") && !is(p, "call_expression") && !is(p, "try_expression") && !is(p, "await_expression"))
			break;
		if (is(p, "try_expression"))
			return A1_LANG_SEEN;
		if (is(p, "field_expression")) {
			TSNode f = tsnode_field(p, "field");
			if (text_is(w->src, f, "unwrap") || text_is(w->src, f, "expect") || text_is(w->src, f, "unwrap_err") ||
			    text_is(w->src, f, "is_err") || text_is(w->src, f, "is_ok") || text_is(w->src, f, "expect_err"))
				return A1_LANG_SEEN;
		}
		top = p;
	}
	TSNode p = ts_node_parent(top);
	if (is(p, "expression_statement"))
		return A1_LANG_SWALLOWED;
	if (is(p, "let_declaration")) {
		TSNode pat = tsnode_field(p, "pattern");
		return text_is(w->src, pat, "_") ? A1_LANG_SWALLOWED : A1_LANG_MAYBE_SWALLOWED;
	}
	return A1_LANG_MAYBE_SWALLOWED;
}

/* `x?`, `x.unwrap()`, `x.expect(..)` (`_err` ones: "?err"): a soft fact "? x" - the panic or
 * the error returned fails the test. */
static void soft_check(struct walk *w, const struct ctx *c, TSNode n)
{
	TSNode operand = {0};
	const char *kind = "?";
	if (is(n, "try_expression")) {
		operand = ts_node_named_child(n, 0);
	} else {
		TSNode fn = tsnode_field(n, "function");
		TSNode field = is(fn, "field_expression") ? tsnode_field(fn, "field") : (TSNode){0};
		if (ts_node_is_null(field))
			return;
		if (text_is(w->src, field, "unwrap_err") || text_is(w->src, field, "expect_err"))
			kind = "?err";
		else if (!text_is(w->src, field, "unwrap") && !text_is(w->src, field, "expect"))
			return;
		operand = tsnode_field(fn, "value");
	}
	if (ts_node_is_null(operand))
		return;
	char *text = a1_lang_canon(w->src, operand);
	char *form = *c->guard ? xasprintf("if %s => %s %s", c->guard, kind, text) : xasprintf("%s %s", kind, text);
	free(text);
	struct a1_lang_fact *f = a1_lang_fact_add(w->f, form, a1_lang_line(n));
	f->soft = 1;
	f->dead = (unsigned char)c->dead;
	f->swallowed = (unsigned char)c->swallow;
}

/* 1 when let_declaration `n` binds a closure to `_`, or to a `_name` the function's body
 * names nowhere else: it is never called. */
static int unused_closure(struct walk *w, TSNode n)
{
	TSNode pat = tsnode_field(n, "pattern"), value = tsnode_field(n, "value");
	if (!is(value, "closure_expression") || ts_node_is_null(pat))
		return 0;
	if (text_is(w->src, pat, "_"))
		return 1;
	if (!is(pat, "identifier") || w->src[ts_node_start_byte(pat)] != '_' || ts_node_is_null(w->body))
		return 0;
	uint32_t a = ts_node_start_byte(w->body), e = ts_node_end_byte(w->body), pn = ts_node_end_byte(pat) - ts_node_start_byte(pat);
	const char *name = w->src + ts_node_start_byte(pat);
	int uses = 0;
	for (uint32_t i = a; i + pn <= e; i++)
		if (!memcmp(w->src + i, name, pn) && (i == a || !is_word(w->src[i - 1])) && (i + pn == e || !is_word(w->src[i + pn])))
			uses++;
	return uses <= 1;
}

static void walk_if(struct walk *w, TSNode n, struct ctx c)
{
	TSNode cond = tsnode_field(n, "condition");
	int v = is(cond, "let_condition") || is(cond, "let_chain") ? -1 : a1_lang_cond(w->src, cond);
	walk(w, cond, c);
	char *g = a1_lang_canon(w->src, cond);
	char *guard = xasprintf("%s%s%s", c.guard, *c.guard ? " && " : "", g);
	struct ctx in = c;
	in.guard = guard;
	in.cond = cond;
	in.dead = c.dead || v == 0;
	walk(w, tsnode_field(n, "consequence"), in);
	TSNode alt = tsnode_field(n, "alternative");
	if (!ts_node_is_null(alt)) {
		char *nguard = xasprintf("%s%s!(%s)", c.guard, *c.guard ? " && " : "", g);
		in.guard = nguard;
		in.cond = (TSNode){0};
		in.dead = c.dead || v == 1;
		walk(w, alt, in);
		free(nguard);
	}
	free(guard);
	free(g);
}

static void walk(struct walk *w, TSNode n, struct ctx c)
{
	if (w->s->status || ts_node_is_null(n) || ts_node_named_child_count(n) == 0)
		return;
	if (++c.depth > WALK_MAX) {
		a1_lang_side_status(w->s, A1_LANG_UNDECIDABLE, "line %u: the syntax tree is deeper than %d", a1_lang_line(n), WALK_MAX);
		return;
	}
	const char *t = ts_node_type(n);
	if (!strcmp(t, "if_expression")) {
		walk_if(w, n, c);
		return;
	}
	if (!strcmp(t, "macro_invocation")) {
		macro(w, &c, n);
		return;
	}
	if (!strcmp(t, "for_expression") && w->nopen < OPEN_MAX) {
		walk_for(w, n, c);
		return;
	}
	if (!strcmp(t, "let_declaration"))
		let_bound(w, n);
	if (!strcmp(t, "call_expression")) {
		TSNode fn = tsnode_field(n, "function");
		if (is(fn, "identifier") || is(fn, "scoped_identifier"))
			call_name(w, fn);
		int sw = swallows(w, n);
		if (sw > c.swallow)
			c.swallow = sw;
		soft_check(w, &c, n);
	}
	if (!strcmp(t, "try_expression"))
		soft_check(w, &c, n);
	if (!strcmp(t, "let_declaration") && unused_closure(w, n))
		c.dead = 1; /* let _ = || assert!(..): never called */
	char *ret = NULL;
	int cfg_off = 0;
	uint32_t k = ts_node_named_child_count(n);
	for (uint32_t i = 0; i < k; i++) {
		TSNode ch = ts_node_named_child(n, i);
		size_t before = w->f->nfacts;
		struct ctx cc = c;
		cc.dead |= cfg_off; /* #[cfg(any())] on the statement: never compiled */
		cfg_off = 0;
		walk(w, ch, cc);
		if (!strcmp(t, "block") && is(ch, "attribute_item")) {
			struct attrs a = {.cfg = 1};
			attr(w->src, ch, &a);
			cfg_off = a.cfg == 0;
			attrs_free(&a);
		}
		char *why = NULL;
		int r = !strcmp(t, "block") && !c.dead ? returns_if(w, ch, before, &why) : 0;
		if (!strcmp(t, "block") && !c.dead && ts_node_eq(n, w->body) && quiet_exit(w, ch) && !(w->f->mods & A1_LANG_EXITS)) {
			w->f->mods |= A1_LANG_EXITS; /* whoever calls it ends the run as passed */
			if (!w->f->why)
				w->f->why = a1_lang_canon(w->src, ch);
		}
		if (!strcmp(t, "block") && (ends_block(w, ch) || r == 1))
			c.dead = 1; /* what follows in this block never runs */
		else if (r < 0 && !c.ret)
			c.ret = ret = why, why = NULL;
		free(why);
	}
	free(ret);
}

/*==== items =================================================================================*/

struct scope {
	const char *mod; /* "" or "tests::" */
	int cfg;	 /* the enclosing modules' cfg */
	const char *why;
	const void *memo; /* non-NULL: the process's memo is used; NULL: none */
	struct a1_lang_plan *plan;
	struct consts *consts;
};

static void func(const char *src, TSNode fn, uint32_t start, struct attrs *a, const struct scope *sc,
		 struct a1_lang_side *s, TSParser *sub)
{
	if (a1_lang_skip(sc->plan, fn, start))
		return;
	char *base = a1_lang_canon(src, tsnode_field(fn, "name"));
	char *name = xasprintf("%s%s", sc->mod, base);
	struct walk w = {.src = src, .s = s, .sub = sub, .mod = sc->mod, .memo = sc->memo, .consts = sc->consts};
	w.f = a1_lang_func_add(s, name, a->test, a1_lang_line(fn));
	int cfg = sc->cfg == 0 || a->cfg == 0 ? 0 : sc->cfg == 1 && a->cfg == 1 ? 1 : -1;
	const char *why = sc->cfg != 1 ? sc->why : a->why;
	if (cfg == 0)
		w.f->mods |= A1_LANG_CFG_OFF | A1_LANG_UNCOLLECTED;
	else if (cfg < 0)
		w.f->mods |= A1_LANG_COND_CFG;
	if (a->ignore)
		w.f->mods |= A1_LANG_SKIP;
	else if (a->cond_ignore)
		w.f->mods |= A1_LANG_COND_SKIP;
	if (a->panics) {
		w.f->mods |= A1_LANG_PANICS;
		w.f->panic_expect = xstrdup(a->expect ? a->expect : "");
	}
	w.f->why = cfg != 1 && why ? xstrdup(why) : a->why ? xstrdup(a->why) : !a->test ? xasprintf("fn %s without a test attribute", base)
											: a->panics ? xstrdup("#[should_panic]")
												    : NULL;
	if (!a1_lang_want(sc->plan, s, fn, start)) {
		free(name);
		free(base);
		return;
	}
	struct ctx c = {.guard = ""};
	w.body = tsnode_field(fn, "body");
	walk(&w, w.body, c);
	if (a->case_kind || a->rstest) { /* its cases: rows its whole body runs over */
		struct a1_lang_table *t = a1_lang_table_add(w.f, a->case_kind ? a->case_kind : "#[case]", a1_lang_line(fn));
		t->rows = a->cases;
		t->keys = a->keys;
		memset(&a->cases, 0, sizeof a->cases);
		memset(&a->keys, 0, sizeof a->keys);
		for (size_t i = 0; i < w.f->nfacts; i++)
			t->asserts |= !w.f->facts[i].dead && !w.f->facts[i].taut;
		for (size_t i = 0; i < w.f->calls.n; i++)
			a1_lang_names_add(&t->calls, w.f->calls.v[i], strlen(w.f->calls.v[i]));
	}
	for (size_t i = 0; i < w.nvars; i++)
		free(w.var_names[i]);
	free(name);
	free(base);
}

static void items(const char *src, TSNode list, struct scope sc, struct a1_lang_side *s, TSParser *sub, int depth)
{
	struct attrs a = {.cfg = 1};
	char *why = NULL;
	uint32_t run = UINT32_MAX; /* the first byte of the attributes and comments read with the next item */
	int run_attrs = 0;	   /* that run holds attributes */
	size_t n;
	TSNode *kids = tsnode_named_children(list, &n); /* by index: quadratic over a file of items */
	for (size_t i = 0; i < n && !s->status; i++) {
		TSNode k = kids[i];
		const char *t = ts_node_type(k);
		if (!strcmp(t, "attribute_item")) {
			run = run != UINT32_MAX ? run : ts_node_start_byte(k);
			run_attrs = 1;
			attr(src, k, &a);
			continue;
		}
		if (!strcmp(t, "line_comment") || !strcmp(t, "block_comment")) {
			run = run != UINT32_MAX ? run : ts_node_start_byte(k);
			continue;
		}
		if (!strcmp(t, "inner_attribute_item")) { /* #![cfg(..)]: the module or the file */
			if (run_attrs) /* inside what a unit would hold: its effect on the rest unseen */
				a1_lang_plan_abort(sc.plan);
			run = UINT32_MAX; /* comments before it: outside every unit */
			struct attrs in = {.cfg = 1};
			attr(src, k, &in);
			if (in.cfg != 1 && sc.cfg != 0) {
				free(why);
				why = xstrdup(in.why);
				sc.why = why;
				sc.cfg = in.cfg == 0 ? 0 : -1;
				char **slot = in.cfg == 0 ? &s->excluded : &s->constraint;
				if (!*sc.mod && !*slot)
					*slot = xstrdup(in.why);
			}
			attrs_free(&in);
			continue;
		}
		if (!strcmp(t, "function_item")) {
			func(src, k, run != UINT32_MAX ? run : ts_node_start_byte(k), &a, &sc, s, sub);
		} else if (!strcmp(t, "mod_item") && depth < WALK_MAX) {
			char *mname = a1_lang_canon(src, tsnode_field(k, "name"));
			TSNode body = tsnode_field(k, "body");
			struct scope in = sc;
			char *mod = xasprintf("%s%s::", sc.mod, mname), *mwhy = NULL;
			in.mod = mod;
			in.cfg = sc.cfg == 0 || a.cfg == 0 ? 0 : sc.cfg == 1 && a.cfg == 1 ? 1 : -1;
			if (sc.cfg == 1 && a.cfg != 1)
				in.why = mwhy = xasprintf("%s mod %s", a.why, mname);
			if (!ts_node_is_null(body)) {
				items(src, body, in, s, sub, depth + 1);
			} else { /* `mod tests;`: its tests are read in their own file */
				char *text = a1_lang_canon(src, k);
				a1_lang_opaque_add(s, mod, text);
				free(text);
			}
			if (strstr(mname, "test")) { /* the module itself, inline or in another file */
				char *label = xasprintf("mod %s%s", sc.mod, mname);
				struct a1_lang_func *f = a1_lang_func_add(s, label, 1, a1_lang_line(k));
				f->mods |= in.cfg == 0 ? A1_LANG_CFG_OFF | A1_LANG_UNCOLLECTED : in.cfg < 0 ? A1_LANG_COND_CFG : 0;
				if (in.cfg != 1 && in.why)
					f->why = xstrdup(in.why);
				free(label);
			}
			free(mwhy);
			free(mod);
			free(mname);
		} else if (!strcmp(t, "macro_definition")) {
			char *mname = a1_lang_canon(src, tsnode_field(k, "name"));
			char *label = xasprintf("macro_rules! %s", mname), *text = a1_lang_canon(src, k);
			a1_lang_opaque_add(s, label, text);
			free(label);
			free(text);
			free(mname);
		} else if (!strcmp(t, "macro_invocation") ||
			   (!strcmp(t, "expression_statement") && is(ts_node_named_child(k, 0), "macro_invocation"))) {
			TSNode m = !strcmp(t, "macro_invocation") ? k : ts_node_named_child(k, 0);
			char *mname = macro_name(src, m);
			char *label = xasprintf("%s!", mname), *text = a1_lang_canon(src, m);
			a1_lang_opaque_add(s, label, text);
			free(label);
			free(text);
			free(mname);
		}
		attrs_free(&a);
		run = UINT32_MAX;
		run_attrs = 0;
	}
	attrs_free(&a);
	free(why);
	free(kids);
}

/* The const / static items of `list` and its inline modules (a name bound twice: no value). */
static void consts_read(const char *src, TSNode list, struct consts *k, int depth)
{
	size_t n;
	TSNode *its = depth < 64 ? tsnode_named_children(list, &n) : NULL; /* by cursor: a file's items are many */
	for (size_t i = 0; its && i < n; i++) {
		TSNode it = its[i];
		if (is(it, "mod_item") && !ts_node_is_null(tsnode_field(it, "body"))) {
			consts_read(src, tsnode_field(it, "body"), k, depth + 1);
			continue;
		}
		if (!is(it, "const_item") && !is(it, "static_item"))
			continue;
		TSNode name = tsnode_field(it, "name");
		size_t j;
		for (j = 0; j < k->n && !text_is(src, name, k->names[j]); j++)
			;
		if (j < k->n) {
			k->vals[j] = (TSNode){0}; /* which one a use means: not known */
		} else if (k->n < VARS_MAX) {
			k->names[k->n] = a1_lang_canon(src, name);
			k->vals[k->n++] = tsnode_field(it, "value");
		}
	}
	free(its);
}

static void extract(const char *text, size_t len, struct a1_lang_side *s, TSTree *old, TSTree **keep, void *ctx,
		    struct a1_lang_plan *plan)
{
	if (keep)
		*keep = NULL;
	TSTree *tree = a1_lang_plan_parse(plan, A1_LANG_RUST, tree_sitter_rust(), text, len, s, old);
	if (!tree)
		return;
	TSParser *sub = ts_parser_new();
	if (ts_parser_set_language(sub, tree_sitter_rust())) {
		struct consts k = {.src = text, .root = ts_tree_root_node(tree)};
		struct scope sc = {.mod = "", .cfg = 1, .memo = ctx, .plan = plan, .consts = &k};
		items(text, ts_tree_root_node(tree), sc, s, sub, 0);
		for (size_t i = 0; i < k.n; i++)
			free(k.names[i]);
	}
	ts_parser_delete(sub);
	a1_lang_plan_done(plan, tree, keep, s);
}

cJSON *a1_rust_judge(const char *pre, size_t pre_len, const char *post, size_t post_len)
{
	static int use_memo = 1;
	return a1_lang_judge("rust", tree_sitter_rust(), extract, &use_memo, pre, pre_len, post, post_len);
}

int a1_rust_count(const char *text, size_t len, int *tests, int *assertions)
{
	return a1_lang_count(extract, NULL, text, len, tests, assertions);
}
