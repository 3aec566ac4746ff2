/* a1_py.c - A1's judge of Python test files (a1_py.h): the two sides' facts (a1_py_facts.c)
 * compared as weakening.py compared them - functions renamed when a function gone from the
 * post side has all its assertions in a new one; within a function and kind, identical forms
 * pair first (a reachable one first), the rest by order; a pair is judged (tautology,
 * unreachable, swallowed, loosened, widened, another expected value), what is left of the pre
 * side is removed unless a surviving assertion still asserts it; markers and the unit's
 * patches are compared per test; a conftest.py's collection settings; a deleted file against
 * the Python files the call added.
 *
 * Threads: any (no globals). Must not: print, keep state between calls, judge a side it could
 * not read (that is an UNVERIFIED finding, never a PASS). */
#include "assertions/a1_py.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "assertions/a1_finding.h"
#include "assertions/a1_py_facts.h"
#include "assertions/a1_rows.h"
#include "assertions/tsnode.h"
#include "common/buf.h"
#include "common/err.h"
#include "common/strmap.h"
#include "common/xalloc.h"

#define UNREADABLE "ASSERTION_FILE_UNREADABLE"
#define UNDECIDABLE "ASSERTION_UNDECIDABLE"
#define EXPECTATION_CHANGED "ASSERTION_EXPECTATION_CHANGED"

/* ---- findings ---- */

/* A finding; an UNVERIFIED one without a cause is undecidable, a WARN one an expected value changed. */
static void finding(cJSON *out, const char *function, const char *name, const char *status, const char *pre,
		    const char *post, const char *cause)
{
	if (!cause && !strcmp(status, "UNVERIFIED"))
		cause = UNDECIDABLE;
	if (!strcmp(status, "WARN"))
		cause = EXPECTATION_CHANGED;
	a1_finding_add(out, function, name, status, cause, pre, post);
}

static int str_in(const char *s, const char *const *set)
{
	for (; s && *set; set++)
		if (!strcmp(s, *set))
			return 1;
	return 0;
}

/* ---- a fact and its side ---- */

struct F {
	struct a1_py_side *s;
	const struct a1_py_fact *f;
	const char *function; /* after renames */
};

static int is_tautology(struct a1_py_side *s, const struct a1_py_fact *f)
{
	static const char *const equal[] = {"assertEqual", "assertEquals", "failUnlessEqual", "assertIs", "assertListEqual",
					    "assertTupleEqual", "assertDictEqual", "assertSetEqual", "assertSequenceEqual",
					    "assertCountEqual", "assertMultiLineEqual", "assertAlmostEqual", "assertAlmostEquals",
					    "assertLessEqual", "assertGreaterEqual", "assert_equal", "assert_array_equal",
					    "assert_allclose", "assert_almost_equal", NULL};
	if (f->kind == A1_PY_K_ASSERT)
		return a1_py_always_truthy(s, f->node, 0);
	if (f->kind != A1_PY_K_UNITTEST)
		return 0;
	char *name = a1_py_method(s, f->node);
	TSNode a[2];
	size_t na = a1_py_args(f->node, a, 2);
	int r = 0;
	if (!name)
		return 0;
	if ((!strcmp(name, "assertTrue") || !strcmp(name, "assert_") || !strcmp(name, "failUnless")) && na)
		r = a1_py_always_truthy(s, a[0], 0);
	else if ((!strcmp(name, "assertFalse") || !strcmp(name, "failIf")) && na)
		r = a1_py_always_falsy(s, a[0]);
	else if (str_in(name, equal) && na >= 2)
		r = a1_py_same(s, a[0], s, a[1]); /* a value compared with itself */
	else if (!strcmp(name, "assertIsNone") && na)
		r = tsnode_is(a1_py_bare(a[0]), "none");
	else if (!strcmp(name, "assertIsNotNone") && na) {
		int t;
		TSNode b = a1_py_bare(a[0]);
		r = (tsnode_is(b, "integer") || tsnode_is(b, "float") || tsnode_is(b, "true") || tsnode_is(b, "false") ||
		     tsnode_is(b, "ellipsis") || ((tsnode_is(b, "string") || tsnode_is(b, "concatenated_string")) &&
						 a1_py_literal(s, b, NULL, &t)));
	} else if (!strcmp(name, "assertIsInstance") && na >= 2) {
		TSNode b = a1_py_bare(a[1]);
		char *c = tsnode_is(b, "identifier") ? a1_py_canon(s, b) : NULL;
		r = c && !strcmp(c, "object");
		free(c);
	}
	free(name);
	return r;
}

/* The canonical forms of `n` and of the sub-expressions it asserts positively (not below
 * `or`, `not`, conditional expressions, lambdas), added to *set. */
struct strset {
	char **v;
	size_t n, cap;
	size_t *slot;
	size_t nslot;
};

static int set_has(const struct strset *t, const char *s)
{
	if (!t->nslot)
		return 0;
	for (size_t j = strmap_hash(s) & (t->nslot - 1); t->slot[j]; j = (j + 1) & (t->nslot - 1))
		if (!strcmp(t->v[t->slot[j] - 1], s))
			return 1;
	return 0;
}

static void set_add(struct strset *t, char *s)
{
	if (set_has(t, s)) {
		free(s);
		return;
	}
	if ((t->n + 1) * 2 > t->nslot) {
		size_t ns = t->nslot ? t->nslot * 2 : 64;
		free(t->slot);
		t->slot = xcalloc(ns, sizeof *t->slot);
		t->nslot = ns;
		for (size_t i = 0; i < t->n; i++) {
			size_t j = strmap_hash(t->v[i]) & (ns - 1);
			while (t->slot[j])
				j = (j + 1) & (ns - 1);
			t->slot[j] = i + 1;
		}
	}
	t->v = xgrow_zeroed(t->v, &t->cap, t->n, sizeof *t->v, 16);
	t->v[t->n] = s;
	size_t j = strmap_hash(s) & (t->nslot - 1);
	while (t->slot[j])
		j = (j + 1) & (t->nslot - 1);
	t->slot[j] = ++t->n;
}

static void set_free(struct strset *t)
{
	for (size_t i = 0; i < t->n; i++)
		free(t->v[i]);
	free(t->v);
	free(t->slot);
	memset(t, 0, sizeof *t);
}

static void asserted_subexpressions(struct a1_py_side *s, TSNode node, struct strset *out)
{
	TSNode *stack = xmalloc(64 * sizeof *stack);
	size_t n = 0, cap = 64;
	stack[n++] = node;
	while (n && !s->status) {
		TSNode x = stack[--n];
		set_add(out, a1_py_canon(s, x));
		TSNode b = a1_py_bare(x);
		if (tsnode_is(b, "boolean_operator")) {
			TSNode op = ts_node_child_by_field_name(b, "operator", 8);
			if (!strcmp(ts_node_type(op), "or"))
				continue;
		}
		if (tsnode_is(b, "not_operator") || tsnode_is(b, "conditional_expression") || tsnode_is(b, "lambda") ||
		    tsnode_is(b, "string") || tsnode_is(b, "concatenated_string"))
			continue;
		uint32_t m = ts_node_named_child_count(b);
		for (uint32_t i = 0; i < m; i++) {
			TSNode k = ts_node_named_child(b, i);
			if (tsnode_is(k, "argument_list")) { /* its positional arguments; keywords are not expressions */
				uint32_t mm = ts_node_named_child_count(k);
				for (uint32_t j = 0; j < mm; j++) {
					TSNode a = ts_node_named_child(k, j);
					if (tsnode_is(a, "keyword_argument") || tsnode_is(a, "comment"))
						continue;
					if (n == cap)
						stack = xrealloc(stack, (cap *= 2) * sizeof *stack);
					stack[n++] = a;
				}
				continue;
			}
			if (tsnode_is(k, "comment") || tsnode_is(k, "keyword_argument") || tsnode_is(k, "for_in_clause") ||
			    tsnode_is(k, "if_clause") || tsnode_is(k, "lambda_parameters"))
				continue;
			if (n == cap)
				stack = xrealloc(stack, (cap *= 2) * sizeof *stack);
			stack[n++] = k;
		}
	}
	free(stack);
}

static void conjuncts(struct a1_py_side *s, TSNode n, struct strset *out, int depth)
{
	TSNode b = a1_py_bare(n);
	if (depth < 1000 && tsnode_is(b, "boolean_operator") &&
	    !strcmp(ts_node_type(ts_node_child_by_field_name(b, "operator", 8)), "and")) {
		conjuncts(s, ts_node_child_by_field_name(b, "left", 4), out, depth + 1);
		conjuncts(s, ts_node_child_by_field_name(b, "right", 5), out, depth + 1);
		return;
	}
	set_add(out, a1_py_canon(s, n));
}

/* ---- glob subsumption (spec section 4.11), as weakening.py decides it ---- */

#define ALPHABET_MAX 96
#define DFA_MAX 512
#define PRODUCT_MAX 50000

enum { G_STAR = -1, G_ANY = -2 };

struct gtok {
	long lit;	     /* a code point, G_STAR, G_ANY, or -3 for a class */
	const uint32_t *cls; /* the class body's code points (after `!`) */
	size_t ncls;
	int neg;
};

static size_t decode_cps(const char *s, uint32_t *out)
{
	size_t k = 0;
	const unsigned char *p = (const unsigned char *)s;
	while (*p) {
		uint32_t c = *p;
		size_t n = c < 0x80 ? 1 : c < 0xe0 ? 2 : c < 0xf0 ? 3 : 4;
		if (n > 1)
			c &= 0x3f >> (n - 1);
		for (size_t i = 1; i < n && p[i]; i++)
			c = (c << 6) | (p[i] & 0x3f);
		for (size_t i = 0; i < n && *p; i++)
			p++;
		out[k++] = c;
	}
	return k;
}

static int cls_match(const struct gtok *t, uint32_t ch)
{
	int hit = 0;
	for (size_t i = 0; i < t->ncls && !hit; i++) {
		if (i + 2 < t->ncls && t->cls[i + 1] == '-') {
			hit = ch >= t->cls[i] && ch <= t->cls[i + 2];
			i += 2;
		} else {
			hit = ch == t->cls[i];
		}
	}
	return hit != t->neg;
}

struct alpha {
	uint32_t v[ALPHABET_MAX + 2];
	size_t n;
	int over;
};

static void mention(struct alpha *a, uint32_t c)
{
	for (size_t i = 0; i < a->n; i++)
		if (a->v[i] == c)
			return;
	if (a->n > ALPHABET_MAX) {
		a->over = 1;
		return;
	}
	a->v[a->n++] = c;
}

/* Tokens of a pattern; 0, or -1 with why. */
static int glob_tokens(const uint32_t *p, size_t n, struct gtok *t, size_t *nt, struct alpha *a, const char **why)
{
	size_t k = 0;
	for (size_t i = 0; i < n;) {
		uint32_t c = p[i++];
		if (c == '*') {
			if (!k || t[k - 1].lit != G_STAR)
				t[k++] = (struct gtok){.lit = G_STAR};
		} else if (c == '?') {
			t[k++] = (struct gtok){.lit = G_ANY};
		} else if (c == '[') {
			size_t j = i;
			if (j < n && p[j] == '!')
				j++;
			if (j < n && p[j] == ']')
				j++;
			while (j < n && p[j] != ']')
				j++;
			if (j >= n) {
				t[k++] = (struct gtok){.lit = '['};
				mention(a, '[');
				continue;
			}
			int neg = p[i] == '!';
			const uint32_t *in = p + i + neg;
			size_t nin = j - i - (size_t)neg;
			for (size_t q = 0; q < nin; q++)
				if (in[q] == '\\') {
					*why = "backslash inside a character class";
					return -1;
				}
			struct gtok tok = {.lit = -3, .cls = in, .ncls = nin, .neg = neg};
			for (size_t q = 0; q < nin; q++)
				mention(a, in[q]);
			for (size_t q = 1; q + 1 < nin; q++)
				if (in[q] == '-') {
					uint32_t lo = in[q - 1], hi = in[q + 1];
					if (hi < lo) {
						*why = "reversed range in a character class";
						return -1;
					}
					if (hi - lo + 1 > ALPHABET_MAX) {
						*why = "character range wider than 96";
						return -1;
					}
					for (uint32_t x = lo; x <= hi; x++)
						mention(a, x);
				}
			int any = 0;
			for (size_t q = 0; q < nin && !any; q++)
				any = cls_match(&(struct gtok){.cls = in, .ncls = nin}, in[q]);
			if (!neg && !any) {
				*why = "empty character class";
				return -1;
			}
			t[k++] = tok;
			i = j + 1;
		} else {
			t[k++] = (struct gtok){.lit = c};
			mention(a, c);
		}
	}
	*nt = k;
	return 0;
}

struct dfa {
	int *trans; /* state * nsym + symbol */
	unsigned char *acc;
	size_t n;
};

static int glob_dfa(const struct gtok *t, size_t nt, const uint32_t *sym, size_t nsym, struct dfa *d, const char **why)
{
	size_t words = nt / 64 + 1;
	uint64_t *sets = xcalloc(DFA_MAX * words, sizeof *sets);
	uint64_t *cur = xcalloc(words, sizeof *cur);
	d->trans = xcalloc(DFA_MAX * nsym, sizeof *d->trans);
	d->acc = xcalloc(DFA_MAX, 1);
	d->n = 0;
	int rc = 0;
#define BIT(set, i) ((set)[(i) / 64] >> ((i) % 64) & 1)
#define SETB(set, i) ((set)[(i) / 64] |= UINT64_C(1) << ((i) % 64))
	/* closure: a star may match nothing */
	uint64_t *start = sets;
	SETB(start, 0);
	for (size_t i = 0; i < nt && t[i].lit == G_STAR && BIT(start, i); i++)
		SETB(start, i + 1);
	d->n = 1;
	for (size_t k = 0; k < d->n; k++) {
		for (size_t si = 0; si < nsym; si++) {
			memset(cur, 0, words * sizeof *cur);
			const uint64_t *from = sets + k * words;
			for (size_t i = 0; i < nt; i++) {
				if (!BIT(from, i))
					continue;
				if (t[i].lit == G_STAR)
					SETB(cur, i);
				else if (t[i].lit == G_ANY || (t[i].lit == -3 ? cls_match(&t[i], sym[si]) : (uint32_t)t[i].lit == sym[si]))
					SETB(cur, i + 1);
			}
			for (size_t i = 0; i < nt; i++)
				if (BIT(cur, i) && t[i].lit == G_STAR)
					SETB(cur, i + 1);
			size_t f;
			for (f = 0; f < d->n; f++)
				if (!memcmp(sets + f * words, cur, words * sizeof *cur))
					break;
			if (f == d->n) {
				if (d->n >= DFA_MAX) {
					*why = "more than 512 automaton states";
					rc = -1;
					goto out;
				}
				memcpy(sets + f * words, cur, words * sizeof *cur);
				d->n++;
			}
			d->trans[k * nsym + si] = (int)f;
		}
	}
	for (size_t k = 0; k < d->n; k++)
		d->acc[k] = (unsigned char)BIT(sets + k * words, nt);
out:
	free(sets);
	free(cur);
	return rc;
#undef BIT
#undef SETB
}

/* L(a) within L(b): 1 / 0, -1 when the product grows too large. */
static int dfa_contained(const struct dfa *a, const struct dfa *b, size_t nsym)
{
	unsigned char *seen = xcalloc(a->n * b->n, 1);
	size_t *work = xmalloc(a->n * b->n * sizeof *work), nw = 0, count = 1;
	int r = 1;
	seen[0] = 1;
	work[nw++] = 0;
	while (nw) {
		size_t p = work[--nw], x = p / b->n, y = p % b->n;
		if (a->acc[x] && !b->acc[y]) {
			r = 0;
			break;
		}
		for (size_t s = 0; s < nsym; s++) {
			size_t q = (size_t)a->trans[x * nsym + s] * b->n + (size_t)b->trans[y * nsym + s];
			if (!seen[q]) {
				if (++count > PRODUCT_MAX) {
					r = -1;
					goto out;
				}
				seen[q] = 1;
				work[nw++] = q;
			}
		}
	}
out:
	free(seen);
	free(work);
	return r;
}

/* 1 when every line `pre` matches is matched by `post` and post matches more; 0 not; -1
 * undecidable (*why). */
static int glob_strictly_looser(const char *pre, const char *post, const char **why)
{
	if (!strcmp(pre, post))
		return 0;
	size_t la = strlen(pre), lb = strlen(post);
	uint32_t *pa = xmalloc((la + 1) * sizeof *pa), *pb = xmalloc((lb + 1) * sizeof *pb);
	size_t na = decode_cps(pre, pa), nb = decode_cps(post, pb);
	struct gtok *ta = xmalloc((na + 1) * sizeof *ta), *tb = xmalloc((nb + 1) * sizeof *tb);
	size_t nta = 0, ntb = 0;
	struct alpha al = {0};
	struct dfa da = {0}, db = {0};
	int r = -1;
	if (glob_tokens(pa, na, ta, &nta, &al, why) || glob_tokens(pb, nb, tb, &ntb, &al, why))
		goto out;
	if (al.over || al.n + 1 > ALPHABET_MAX) {
		*why = "alphabet larger than 96 symbols";
		goto out;
	}
	uint32_t other = 0xe000;
	for (size_t i = 0; i < al.n; i++)
		if (al.v[i] == other) {
			other++;
			i = (size_t)-1;
		}
	al.v[al.n++] = other;
	if (glob_dfa(ta, nta, al.v, al.n, &da, why) || glob_dfa(tb, ntb, al.v, al.n, &db, why))
		goto out;
	int ab = dfa_contained(&da, &db, al.n);
	if (ab < 0) {
		*why = "product automaton too large";
		goto out;
	}
	if (!ab) {
		r = 0;
		goto out;
	}
	int ba = dfa_contained(&db, &da, al.n);
	if (ba < 0) {
		*why = "product automaton too large";
		goto out;
	}
	r = !ba;
out:
	free(da.trans);
	free(da.acc);
	free(db.trans);
	free(db.acc);
	free(pa);
	free(pb);
	free(ta);
	free(tb);
	return r;
}

/* ---- loosened checks ---- */

/* For `S == E` / `S is E` (a literal side is E): 1 with S and E. */
static int exact_subject(struct a1_py_side *s, TSNode n, TSNode *S, TSNode *E, int loose)
{
	n = a1_py_bare(n);
	if (!tsnode_is(n, "comparison_operator"))
		return 0;
	uint32_t m = ts_node_child_count(n), named = 0;
	const char *op = NULL;
	TSNode l = {0}, r = {0};
	for (uint32_t i = 0; i < m; i++) {
		TSNode k = ts_node_child(n, i);
		if (tsnode_is(k, "comment"))
			continue;
		if (!ts_node_is_named(k)) {
			if (op)
				return 0;
			op = ts_node_type(k);
		} else if (named++ == 0) {
			l = k;
		} else {
			r = k;
		}
	}
	if (named != 2 || !op)
		return 0;
	static const char *const exact[] = {"==", "is", NULL};
	static const char *const looser[] = {"!=", "<>", "is not", "in", "not in", "<", "<=", ">", ">=", NULL};
	if (!str_in(op, loose ? looser : exact))
		return 0;
	if (!loose && a1_py_literal(s, l, NULL, NULL) && !a1_py_literal(s, r, NULL, NULL)) {
		TSNode t = l;
		l = r;
		r = t;
	}
	*S = l;
	*E = r;
	return 1;
}

struct tol {
	int has_rel, has_abs;
	double rel, abs;
};

static int number_of(struct a1_py_side *s, TSNode n, double *d)
{
	int t;
	return a1_py_literal(s, n, d, &t) && (t == 'i' || t == 'f' || t == 'b');
}

static int approx_tolerance(struct a1_py_side *s, TSNode n, struct tol *t)
{
	memset(t, 0, sizeof *t);
	n = a1_py_bare(n);
	if (!tsnode_is(n, "call"))
		return 0;
	char *f = a1_py_canon(s, ts_node_child_by_field_name(n, "function", 8));
	int ok = !strcmp(f, "pytest.approx") || !strcmp(f, "approx");
	free(f);
	if (!ok)
		return 0;
	double d;
	TSNode k = a1_py_keyword(s, n, "rel");
	if (!ts_node_is_null(k) && number_of(s, k, &d))
		t->has_rel = 1, t->rel = d;
	k = a1_py_keyword(s, n, "abs");
	if (!ts_node_is_null(k) && number_of(s, k, &d))
		t->has_abs = 1, t->abs = d;
	TSNode a[3];
	size_t na = a1_py_args(n, a, 3);
	if (na >= 2 && number_of(s, a[1], &d))
		t->has_rel = 1, t->rel = d;
	if (na >= 3 && number_of(s, a[2], &d))
		t->has_abs = 1, t->abs = d;
	return 1;
}

static int canon_eq(struct a1_py_side *a, TSNode x, const char *form)
{
	char *c = a1_py_canon(a, x);
	int r = !strcmp(c, form);
	free(c);
	return r;
}

static const char *loosened_assert(struct F *p, struct F *q)
{
	TSNode S, E, qS, qE;
	if (!exact_subject(p->s, p->f->node, &S, &E, 0))
		return NULL;
	char *subj = a1_py_canon(p->s, S);
	const char *res = NULL;
	char *qf = a1_py_canon(q->s, q->f->node);
	const char *weak[] = {"%s", "bool(%s)", "%s is not None", "%s != None", "not %s is None", "len(%s)", "len(%s) > 0",
			      "len(%s) >= 0", "%s is not False"};
	for (size_t i = 0; i < sizeof weak / sizeof *weak && !res; i++) {
		char *w = xasprintf(weak[i], subj);
		if (!strcmp(w, qf))
			res = "matcher-loosened";
		free(w);
	}
	TSNode qn = a1_py_bare(q->f->node);
	if (!res && tsnode_is(qn, "call")) {
		char *fn = a1_py_canon(q->s, ts_node_child_by_field_name(qn, "function", 8));
		TSNode a[1];
		if ((!strcmp(fn, "isinstance") || !strcmp(fn, "hasattr") || !strcmp(fn, "callable")) && a1_py_args(qn, a, 1) &&
		    canon_eq(q->s, a[0], subj))
			res = "matcher-loosened";
		free(fn);
	}
	if (!res && exact_subject(q->s, q->f->node, &qS, &qE, 1) && (canon_eq(q->s, qS, subj) || canon_eq(q->s, qE, subj)))
		res = "comparison-loosened";
	if (!res && exact_subject(q->s, q->f->node, &qS, &qE, 0) && canon_eq(q->s, qS, subj)) {
		struct tol ta, tb;
		int ha = approx_tolerance(p->s, E, &ta), hb = approx_tolerance(q->s, qE, &tb);
		if (ha && hb) {
			TSNode ea[1], eb[1];
			TSNode x = a1_py_args(a1_py_bare(E), ea, 1) ? ea[0] : E;
			TSNode y = a1_py_args(a1_py_bare(qE), eb, 1) ? eb[0] : qE;
			if (a1_py_same(p->s, x, q->s, y)) {
				if ((tb.has_rel ? tb.rel : 0.0) > (ta.has_rel ? ta.rel : 1e-6) ||
				    (tb.has_abs ? tb.abs : 0.0) > (ta.has_abs ? ta.abs : 1e-12))
					res = "tolerance-widened";
			}
		}
		if (!ha && hb)
			res = "tolerance-widened";
	}
	free(subj);
	free(qf);
	return res;
}

static const char *const RAISES_REGEX[] = {"assertRaisesRegex", "assertRaisesRegexp", "assertWarnsRegex", "assertWarnsRegexp", NULL};
static const char *const RAISES_PLAIN[] = {"assertRaises", "assertWarns", NULL};

static int raises_any(const char *m)
{
	return str_in(m, RAISES_REGEX) || str_in(m, RAISES_PLAIN);
}

/* The names of an exception expression (a tuple's elements). */
static void exception_names(struct a1_py_side *s, TSNode e, struct strset *out)
{
	TSNode b = a1_py_bare(e);
	if (tsnode_is(b, "tuple")) {
		uint32_t m = a1_py_nkids(b);
		for (uint32_t i = 0; i < m; i++)
			set_add(out, a1_py_canon(s, a1_py_kid(b, i)));
	} else {
		set_add(out, a1_py_canon(s, e));
	}
}

static int broadened(struct a1_py_side *a, TSNode x, struct a1_py_side *b, TSNode y)
{
	static const char *const broadest[] = {"Exception", "BaseException", "builtins.Exception", "builtins.BaseException", NULL};
	struct strset pre = {0}, post = {0};
	exception_names(a, x, &pre);
	exception_names(b, y, &post);
	int pb = 0, qb = 0;
	for (size_t i = 0; i < pre.n; i++)
		pb |= str_in(pre.v[i], broadest);
	for (size_t i = 0; i < post.n; i++)
		qb |= str_in(post.v[i], broadest);
	int r = qb && !pb;
	if (!r && pre.n < post.n) {
		r = 1;
		for (size_t i = 0; i < pre.n && r; i++)
			r = set_has(&post, pre.v[i]);
	}
	set_free(&pre);
	set_free(&post);
	return r;
}

static const char *judge_raises(struct F *p, struct F *q, const char **status)
{
	TSNode pm = a1_py_keyword(p->s, p->f->node, "match"), qm = a1_py_keyword(q->s, q->f->node, "match");
	TSNode pa[1], qa[1];
	*status = "FAIL";
	if (!ts_node_is_null(pm) && ts_node_is_null(qm))
		return "raises-match-removed";
	if (a1_py_args(p->f->node, pa, 1) && a1_py_args(q->f->node, qa, 1) && broadened(p->s, pa[0], q->s, qa[0]))
		return "raises-broadened";
	if (!ts_node_is_null(pm) && !ts_node_is_null(qm) && !a1_py_same(p->s, pm, q->s, qm)) {
		*status = "UNVERIFIED";
		return "regex-pattern-changed";
	}
	return NULL;
}

/* 1 when `n` (a boolean a post assertTrue asserts) checks one of the pre check's non-literal
 * operands `ops` more loosely: an ordering, `!=`, `is not`, `in` of it, or a disjunction one of
 * whose sides is a comparison of it (the old check or another: `x == 3 or x == 4`). */
static int weaker_boolean(struct F *p, const TSNode *ops, size_t nops, struct a1_py_side *qs, TSNode n, int depth)
{
	TSNode b = a1_py_bare(n), S, E;
	if (depth < 64 && tsnode_is(b, "boolean_operator") &&
	    !strcmp(ts_node_type(ts_node_child_by_field_name(b, "operator", 8)), "or")) {
		TSNode sides[2] = {ts_node_child_by_field_name(b, "left", 4),
				   ts_node_child_by_field_name(b, "right", 5)};
		for (int k = 0; k < 2; k++) {
			if (weaker_boolean(p, ops, nops, qs, sides[k], depth + 1))
				return 1;
			if (exact_subject(qs, sides[k], &S, &E, 0))
				for (size_t i = 0; i < nops; i++)
					if (a1_py_same(p->s, ops[i], qs, S) || a1_py_same(p->s, ops[i], qs, E))
						return 1;
		}
		return 0;
	}
	if (!exact_subject(qs, b, &S, &E, 1))
		return 0;
	for (size_t i = 0; i < nops; i++)
		if (a1_py_same(p->s, ops[i], qs, S) || a1_py_same(p->s, ops[i], qs, E))
			return 1;
	return 0;
}

static const char *const EXACT_UNITTEST[] = {"assertEqual",
					     "assertEquals",
					     "assertIs",
					     "assertListEqual",
					     "assertTupleEqual",
					     "assertDictEqual",
					     "assertSetEqual",
					     "assertSequenceEqual",
					     "assertCountEqual",
					     "assertMultiLineEqual",
					     NULL};
static const char *const TRUTH_UNITTEST[] = {"assertTrue", "assert_", "failUnless", NULL};

/* The non-literal operands of an exact check (assertEqual(S, E), assertTrue(S == E),
 * assert S == E) into ops (2 at most); their count. */
static size_t exact_operands(struct F *p, TSNode *ops)
{
	TSNode a[3], S, E;
	size_t n = 0;
	if (p->f->kind == A1_PY_K_ASSERT) {
		if (exact_subject(p->s, p->f->node, &S, &E, 0))
			ops[0] = S, ops[1] = E, n = 2;
	} else if (p->f->kind == A1_PY_K_UNITTEST) {
		char *m = a1_py_method(p->s, p->f->node);
		size_t na = a1_py_args(p->f->node, a, 3);
		if (m && str_in(m, EXACT_UNITTEST) && na >= 2)
			ops[0] = a[0], ops[1] = a[1], n = 2;
		else if (m && str_in(m, TRUTH_UNITTEST) && na >= 1 && exact_subject(p->s, a[0], &S, &E, 0))
			ops[0] = S, ops[1] = E, n = 2;
		free(m);
	}
	size_t k = 0;
	for (size_t i = 0; i < n; i++)
		if (!a1_py_literal(p->s, ops[i], NULL, NULL))
			ops[k++] = ops[i];
	return k;
}

/* The boolean an assertion asserts true (assert X, assertTrue(X)) into *out: 1, else 0. */
static int asserted_boolean(struct F *q, TSNode *out)
{
	if (q->f->kind == A1_PY_K_ASSERT) {
		*out = q->f->node;
		return 1;
	}
	if (q->f->kind != A1_PY_K_UNITTEST)
		return 0;
	char *m = a1_py_method(q->s, q->f->node);
	int r = m && str_in(m, TRUTH_UNITTEST) && a1_py_args(q->f->node, out, 1);
	free(m);
	return r;
}

/* An exact check (assertEqual(S, E), assertTrue(S == E), assert S == E) whose successor asserts
 * a looser comparison of the same operand as a boolean (assertTrue(S >= 0), assert S >= 0). */
static const char *loosened_to_boolean(struct F *p, struct F *q)
{
	TSNode ops[2], b;
	size_t k = exact_operands(p, ops);
	return k && asserted_boolean(q, &b) && weaker_boolean(p, ops, k, q->s, b, 0) ? "comparison-loosened" : NULL;
}

static const char *loosened_unittest(struct F *p, struct F *q, const char *pn, const char *qn)
{
	static const char *const loose[] = {"assertTrue", "assertIsNotNone", "assertIn", "assertNotEqual", "assertNotEquals",
					    "assertIsNot", "assertGreater", "assertGreaterEqual", "assertLess",
					    "assertLessEqual", "assertIsInstance", "assertRegex", "assert_", NULL};
	TSNode a[3], b[3];
	size_t na = a1_py_args(p->f->node, a, 3), nb = a1_py_args(q->f->node, b, 3);
	const char *boolean = loosened_to_boolean(p, q);
	if (boolean)
		return boolean;
	if (str_in(pn, EXACT_UNITTEST) && str_in(qn, loose) && na && nb) {
		for (size_t j = 0; j < nb && j < 2; j++)
			for (size_t i = 0; i < na && i < 2; i++)
				if (a1_py_same(p->s, a[i], q->s, b[j]))
					return "matcher-loosened";
	}
	if ((!strcmp(pn, "assertAlmostEqual") || !strcmp(pn, "assertAlmostEquals")) && !strcmp(pn, qn)) {
		double pp = 7, qp = 7, pd = 0, qd = 0;
		int ppi = 1, qpi = 1, t;
		TSNode k = a1_py_keyword(p->s, p->f->node, "places");
		TSNode src = !ts_node_is_null(k) ? k : na > 2 ? a[2] : (TSNode){0};
		if (!ts_node_is_null(src))
			ppi = a1_py_literal(p->s, src, &pp, &t) && (t == 'i' || t == 'b');
		k = a1_py_keyword(q->s, q->f->node, "places");
		src = !ts_node_is_null(k) ? k : nb > 2 ? b[2] : (TSNode){0};
		if (!ts_node_is_null(src))
			qpi = a1_py_literal(q->s, src, &qp, &t) && (t == 'i' || t == 'b');
		TSNode qdn = a1_py_keyword(q->s, q->f->node, "delta"), pdn = a1_py_keyword(p->s, p->f->node, "delta");
		if (ppi && qpi && qp < pp && ts_node_is_null(qdn))
			return "tolerance-widened";
		int qdok = !ts_node_is_null(qdn) && number_of(q->s, qdn, &qd);
		int pdok = !ts_node_is_null(pdn) && number_of(p->s, pdn, &pd);
		if (qdok && (!pdok || qd > pd))
			return "tolerance-widened";
	}
	return NULL;
}

/* The same check with one literal operand changed to another literal: WARN. */
static int expectation_changed(struct F *p, struct F *q)
{
	TSNode pa[64], pb[64];
	size_t n = 0;
	TSNode a = a1_py_bare(p->f->node), b = a1_py_bare(q->f->node);
	if (p->f->kind == A1_PY_K_ASSERT) {
		TSNode S, E, S2, E2;
		/* one comparison operator each, the same one */
		if (!tsnode_is(a, "comparison_operator") || !tsnode_is(b, "comparison_operator"))
			return 0;
		const char *oa = NULL, *ob = NULL;
		uint32_t ka = 0, kb = 0;
		for (uint32_t i = 0; i < ts_node_child_count(a); i++)
			if (!ts_node_is_named(ts_node_child(a, i)))
				oa = ts_node_type(ts_node_child(a, i)), ka++;
		for (uint32_t i = 0; i < ts_node_child_count(b); i++)
			if (!ts_node_is_named(ts_node_child(b, i)))
				ob = ts_node_type(ts_node_child(b, i)), kb++;
		if (ka != 1 || kb != 1 || strcmp(oa, ob) || a1_py_nkids(a) != 2 || a1_py_nkids(b) != 2)
			return 0;
		(void)S, (void)E, (void)S2, (void)E2;
		pa[0] = a1_py_kid(a, 0), pa[1] = a1_py_kid(a, 1);
		pb[0] = a1_py_kid(b, 0), pb[1] = a1_py_kid(b, 1);
		n = 2;
	} else if (p->f->kind == A1_PY_K_UNITTEST) {
		char *x = a1_py_method(p->s, a), *y = a1_py_method(q->s, b);
		int same = x && y && !strcmp(x, y);
		free(x);
		free(y);
		size_t na = a1_py_args(a, pa, 64), nb = a1_py_args(b, pb, 64);
		if (!same || na != nb || na < 2 || na > 64)
			return 0;
		n = na;
	} else {
		return 0;
	}
	size_t differ = 0, at = 0;
	for (size_t i = 0; i < n; i++)
		if (!a1_py_same(p->s, pa[i], q->s, pb[i]))
			differ++, at = i;
	if (differ != 1 || !a1_py_literal(p->s, pa[at], NULL, NULL) || !a1_py_literal(q->s, pb[at], NULL, NULL))
		return 0;
	for (size_t i = 0; i < n; i++)
		if (!a1_py_literal(q->s, pb[i], NULL, NULL))
			return 1;
	return 0; /* only literals left: a tautology or a contradiction, judged elsewhere */
}

/* A pair whose forms differ: a finding name and *status, or NULL. */
static const char *judge_pair(struct F *p, struct F *q, struct strset *covered, const char **status, char **post_note)
{
	*status = "FAIL";
	if (is_tautology(q->s, q->f))
		return "replaced-by-tautology";
	switch (p->f->kind) {
	case A1_PY_K_GLOB: {
		const char *why = NULL;
		int r = glob_strictly_looser(p->f->form, q->f->form, &why);
		if (r < 0) {
			*status = "UNVERIFIED";
			*post_note = xasprintf("%s (%s)", q->f->form, why);
			return "glob-subsumption-undecidable";
		}
		return r ? "glob-pattern-loosened" : NULL;
	}
	case A1_PY_K_REGEX:
		*status = "UNVERIFIED";
		return "regex-pattern-changed";
	case A1_PY_K_RAISES:
		return judge_raises(p, q, status);
	case A1_PY_K_UNITTEST: {
		char *pn = a1_py_method(p->s, p->f->node), *qn = a1_py_method(q->s, q->f->node);
		const char *r = NULL;
		TSNode pa[1], qa[1];
		if (pn && qn) {
			if (str_in(pn, RAISES_REGEX) && str_in(qn, RAISES_PLAIN))
				r = "raises-match-removed";
			else if (raises_any(pn) && raises_any(qn) && a1_py_args(p->f->node, pa, 1) &&
				 a1_py_args(q->f->node, qa, 1) && broadened(p->s, pa[0], q->s, qa[0]))
				r = "raises-broadened";
			if (!r)
				r = loosened_unittest(p, q, pn, qn);
		}
		free(pn);
		free(qn);
		if (!r && expectation_changed(p, q)) {
			*status = "WARN";
			r = "expected-value-changed";
		}
		return r;
	}
	case A1_PY_K_ASSERT: {
		struct strset pc = {0}, qc = {0};
		conjuncts(p->s, p->f->node, &pc, 0);
		conjuncts(q->s, q->f->node, &qc, 0);
		int subset = qc.n < pc.n, dropped_uncovered = 0;
		for (size_t i = 0; i < qc.n && subset; i++)
			subset = set_has(&pc, qc.v[i]);
		for (size_t i = 0; i < pc.n && subset; i++)
			if (!set_has(&qc, pc.v[i]) && !set_has(covered, pc.v[i]))
				dropped_uncovered = 1;
		set_free(&pc);
		set_free(&qc);
		if (subset && dropped_uncovered)
			return "assertion-loosened";
		const char *r = loosened_assert(p, q);
		if (!r && expectation_changed(p, q)) {
			*status = "WARN";
			r = "expected-value-changed";
		}
		return r;
	}
	default:
		return NULL;
	}
}

/* ---- the decision ---- */

static int is_test_name(const char *function)
{
	const char *d = strrchr(function, '.');
	const char *leaf = d ? d + 1 : function;
	return !strncmp(leaf, "test", 4) || !strcmp(leaf, "runTest");
}

static const char *fname(const struct a1_py_side *s, long fn)
{
	return fn < 0 ? NULL : s->funcs[fn].name;
}

static long find_func(const struct a1_py_side *s, const char *name)
{
	return a1_py_find_func(s, name);
}

static int cmp_keys(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Every (kind, form) of `need` is in `have` as often (multisets of "kind\1form" keys). */
static int multiset_within(char **need, size_t nn, char **have, size_t nh)
{
	if (nn > nh)
		return 0;
	qsort(need, nn, sizeof *need, cmp_keys);
	qsort(have, nh, sizeof *have, cmp_keys);
	size_t i = 0, j = 0;
	while (j < nn && i < nh) {
		int c = strcmp(have[i], need[j]);
		if (!c)
			i++, j++;
		else if (c < 0)
			i++;
		else
			break;
	}
	return j == nn;
}

static char *fact_key(const struct a1_py_fact *f, const char *function)
{
	return xasprintf("%d\1%s\1%s", f->kind, function ? function : "", f->form);
}

/* "kind\1form" of each fact of function `fn` from fact `from` on (a new array of new strings). */
static char **kind_forms(const struct a1_py_side *s, size_t from, long fn, size_t *n)
{
	char **v = NULL;
	size_t cap = 0;
	*n = 0;
	for (size_t k = from; k < s->nfacts; k++)
		if (s->facts[k].fn == fn) {
			v = xgrow_zeroed(v, &cap, *n, sizeof *v, 8);
			v[(*n)++] = xasprintf("%d\1%s", s->facts[k].kind, s->facts[k].form);
		}
	return v;
}

/* post function index -> pre function index, for functions only renamed; -1 otherwise. */
static long *rename_functions(const struct a1_py_side *a, const struct a1_py_side *b)
{
	long *map = xmalloc((b->nfuncs + 1) * sizeof *map);
	for (size_t i = 0; i < b->nfuncs; i++)
		map[i] = -1;
	unsigned char *mapped = xcalloc(b->nfuncs + 1, 1);
	/* functions with facts, in order of their first fact */
	unsigned char *seen = xcalloc(a->nfuncs + b->nfuncs + 2, 1);
	for (size_t i = 0; i < a->nfacts; i++) {
		long fn = a->facts[i].fn;
		if (fn < 0 || seen[fn] || find_func(b, a->funcs[fn].name) >= 0) {
			if (fn >= 0)
				seen[fn] = 1;
			continue;
		}
		seen[fn] = 1;
		size_t nn;
		char **need = kind_forms(a, i, fn, &nn);
		unsigned char *tried = xcalloc(b->nfuncs + 1, 1);
		for (size_t j = 0; j < b->nfacts; j++) {
			long c = b->facts[j].fn;
			/* a test renamed out of discovery (test_x -> check_x) is no rename: it no longer runs */
			if (c < 0 || tried[c] || mapped[c] || find_func(a, b->funcs[c].name) >= 0 ||
			    (is_test_name(a->funcs[fn].name) && !is_test_name(b->funcs[c].name))) {
				if (c >= 0)
					tried[c] = 1;
				continue;
			}
			tried[c] = 1;
			size_t nh;
			char **have = kind_forms(b, j, c, &nh);
			int ok = multiset_within(need, nn, have, nh);
			for (size_t k = 0; k < nh; k++)
				free(have[k]);
			free(have);
			if (ok) {
				map[c] = fn;
				mapped[c] = 1;
				break;
			}
		}
		free(tried);
		for (size_t k = 0; k < nn; k++)
			free(need[k]);
		free(need);
	}
	free(seen);
	free(mapped);
	return map;
}

/* Group key: a function name (pre side's, after renames) and a kind. */
struct group {
	const char *function;
	int kind;
	struct F *ps, *qs;
	size_t np, nq, capp, capq;
};

struct groups {
	struct group *v;
	size_t n, cap;
	size_t *slot, nslot;
};

static size_t gh(const char *fn, int kind)
{
	return (size_t)(strmap_hash(fn ? fn : "\1") * 31 + (uint64_t)kind);
}

static struct group *group_of(struct groups *g, const char *fn, int kind)
{
	if (g->nslot)
		for (size_t j = gh(fn, kind) & (g->nslot - 1); g->slot[j]; j = (j + 1) & (g->nslot - 1)) {
			struct group *x = &g->v[g->slot[j] - 1];
			if (x->kind == kind && (fn ? x->function && !strcmp(x->function, fn) : !x->function))
				return x;
		}
	if ((g->n + 1) * 2 > g->nslot) {
		size_t ns = g->nslot ? g->nslot * 2 : 64;
		free(g->slot);
		g->slot = xcalloc(ns, sizeof *g->slot);
		g->nslot = ns;
		for (size_t i = 0; i < g->n; i++) {
			size_t j = gh(g->v[i].function, g->v[i].kind) & (ns - 1);
			while (g->slot[j])
				j = (j + 1) & (ns - 1);
			g->slot[j] = i + 1;
		}
	}
	g->v = xgrow_zeroed(g->v, &g->cap, g->n, sizeof *g->v, 16);
	struct group *x = &g->v[g->n];
	x->function = fn;
	x->kind = kind;
	size_t j = gh(fn, kind) & (g->nslot - 1);
	while (g->slot[j])
		j = (j + 1) & (g->nslot - 1);
	g->slot[j] = ++g->n;
	return x;
}

/* Per function (pre names after renames): survivors, covered forms, orphans, additions. */
struct per {
	const char *function;
	struct F *surv;
	size_t ns, caps;
	struct strset covered;
	int covered_done;
	struct F *lost, *gained;
	size_t nl, capl, ng, capg;
	unsigned char *gone; /* gained[i] taken by a kind change */
	int order; /* first time it was an orphan's function (-1 never) */
};

struct pers {
	struct per *v;
	size_t n, cap;
	struct strmap index; /* function name ("\1" for module level) -> index in v */
};

static struct per *per_of(struct pers *p, const char *fn)
{
	int64_t i;
	if (strmap_get(&p->index, fn ? fn : "\1", &i))
		return &p->v[i];
	p->v = xgrow_zeroed(p->v, &p->cap, p->n, sizeof *p->v, 16);
	p->v[p->n].function = fn;
	p->v[p->n].order = -1;
	strmap_put(&p->index, fn ? fn : "\1", (int64_t)p->n);
	return &p->v[p->n++];
}

static struct strset *covered_of(struct per *x)
{
	if (!x->covered_done) {
		x->covered_done = 1;
		for (size_t i = 0; i < x->ns; i++)
			asserted_subexpressions(x->surv[i].s, x->surv[i].f->node, &x->covered);
	}
	return &x->covered;
}

static int cmp_lost(const void *a, const void *b)
{
	const struct F *x = a, *y = b;
	if (x->f->ordinal != y->f->ordinal)
		return x->f->ordinal < y->f->ordinal ? -1 : 1;
	return (x->f->kind > y->f->kind) - (x->f->kind < y->f->kind);
}

static int cmp_cstr(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void judge_markers(struct a1_py_side *a, struct a1_py_side *b, const long *map, cJSON *out)
{
	const char **names = xmalloc((b->nfuncs + 1) * sizeof *names);
	for (size_t i = 0; i < b->nfuncs; i++)
		names[i] = b->funcs[i].name;
	qsort(names, b->nfuncs, sizeof *names, cmp_cstr);
	for (size_t i = 0; i < b->nfuncs; i++) {
		const char *function = names[i];
		if (!is_test_name(function))
			continue;
		long qi = find_func(b, function);
		long pi = map[qi] >= 0 ? map[qi] : find_func(a, function);
		if (pi < 0)
			continue; /* a new test: nothing weakened */
		const struct a1_py_func *P = &a->funcs[pi], *Q = &b->funcs[qi];
		struct buf nm = {0};
		for (size_t k = 0; k < Q->nmocks; k++) {
			int had = 0;
			for (size_t j = 0; j < P->nmocks && !had; j++)
				had = !strcmp(P->mocks[j], Q->mocks[k]);
			if (had)
				continue;
			if (nm.len)
				buf_puts(&nm, ", ");
			buf_puts(&nm, Q->mocks[k]);
		}
		if (nm.len) {
			/* sorted like weakening.py: the mocks are kept sorted per function */
			finding(out, function, "unit-under-test-mocked", "FAIL", NULL, buf_cstr(&nm), NULL);
		}
		buf_free(&nm);
		unsigned before = P->marks, after = Q->marks;
		if ((after & A1_PY_M_SKIP) && !(before & A1_PY_M_SKIP))
			finding(out, function, "test-skipped", "FAIL", NULL, "skip", NULL);
		if ((after & A1_PY_M_XFAIL) && !(before & A1_PY_M_XFAIL))
			finding(out, function, "expected-failure-added", "FAIL", NULL, "xfail", NULL);
		if ((after & A1_PY_M_SKIPQ) && !(before & (A1_PY_M_SKIPQ | A1_PY_M_SKIP)))
			finding(out, function, "conditional-skip-added", "UNVERIFIED", NULL, "skip?", NULL);
	}
	free(names);
}

#define GENERALISED_MAX 64 /* assertions of a group read for a row's parameter (each reads its function) */
#define HELPER_DEPTH 8 /* calls followed from a test into the file's functions */

/* Marks the post side's functions that `fn` reaches through calls by name (the last dotted
 * component: `check(...)` and `self.check(...)` both reach "T.check" or "check"). */
static void reach(const struct a1_py_side *b, long fn, unsigned char *seen, int depth)
{
	if (depth <= 0 || fn < 0)
		return;
	const struct a1_py_func *f = &b->funcs[fn];
	for (size_t i = 0; i < f->ncalls; i++)
		for (size_t j = 0; j < b->nfuncs; j++) {
			const char *d = strrchr(b->funcs[j].name, '.');
			if (!seen[j] && !strcmp(d ? d + 1 : b->funcs[j].name, f->calls[i])) {
				seen[j] = 1;
				reach(b, (long)j, seen, depth - 1);
			}
		}
}

/* A lost assertion still asserted, reachably, by a helper the post test calls: 1. *any_live
 * gets whether such helpers assert anything at all. */
static int helper_asserts(struct a1_py_side *b, const unsigned char *seen, const char *form, int *any_live)
{
	int hit = 0;
	for (size_t i = 0; i < b->nfacts; i++) {
		const struct a1_py_fact *f = &b->facts[i];
		if (f->fn < 0 || !seen[f->fn] || f->state != A1_PY_OK || is_tautology(b, f))
			continue;
		*any_live = 1;
		hit |= !strcmp(f->form, form);
	}
	return hit;
}

/* ---- rows (a1_rows.h): checks generalised into parametrize / subTest / a helper per row ---- */

/* An assertion as a1_rows holds it: `x == y` and assertEqual(x, y) are one family. */
struct pyparts {
	char *subject, *expected, *method;
	const char *matcher;
};

static void py_parts(struct a1_py_side *s, const struct a1_py_fact *f, struct pyparts *o)
{
	memset(o, 0, sizeof *o);
	if (f->kind == A1_PY_K_ASSERT) {
		TSNode n = a1_py_bare(f->node);
		if (tsnode_is(n, "comparison_operator") && ts_node_named_child_count(n) == 2 &&
		    ts_node_child_count(n) == 3 && !strcmp(ts_node_type(ts_node_child(n, 1)), "==")) {
			o->matcher = "assertEqual";
			o->subject = a1_py_canon(s, ts_node_named_child(n, 0));
			o->expected = a1_py_canon(s, ts_node_named_child(n, 1));
		} else {
			o->matcher = "assert";
			o->subject = xstrdup(f->form);
		}
	} else if (f->kind == A1_PY_K_UNITTEST) {
		TSNode a[2];
		size_t k = a1_py_args(f->node, a, 2);
		o->method = a1_py_method(s, f->node);
		if (!o->method)
			return;
		o->matcher =
		    !strcmp(o->method, "assertEqual") || !strcmp(o->method, "assertEquals") ? "assertEqual" : o->method;
		o->subject = k > 0 ? a1_py_canon(s, a[0]) : NULL;
		o->expected = k > 1 ? a1_py_canon(s, a[1]) : NULL;
	}
}

static void py_parts_free(struct pyparts *o)
{
	free(o->subject);
	free(o->expected);
	free(o->method);
}

/* The post side's text as a1_rows' lexer reads it: comments blanked, a plain '...' string
 * quoted "..." (the same length). */
struct blank {
	char *t;
	size_t len;
};

static int blank_node(TSNode n, void *ctx) /* tsnode_any's visitor: never stops */
{
	struct blank *k = ctx;
	char *t = k->t;
	const char *ty = ts_node_type(n);
	uint32_t a = ts_node_start_byte(n), e = ts_node_end_byte(n);
	if (!strcmp(ty, "comment") && e <= k->len)
		memset(t + a, ' ', e - a);
	else if (!strcmp(ty, "string") && e <= k->len && e - a >= 2 && t[a] == '\'' && t[e - 1] == '\'' &&
		 !memchr(t + a + 1, '"', e - a - 2) && !memchr(t + a + 1, '\\', e - a - 2) &&
		 !memchr(t + a + 1, '\n', e - a - 2))
		t[a] = t[e - 1] = '"';
	return 0;
}

static char *rows_text(const struct a1_py_side *b)
{
	struct blank k = {xmalloc(b->len + 1), b->len};
	memcpy(k.t, b->src, b->len);
	k.t[b->len] = 0;
	tsnode_any(ts_tree_root_node(b->tree), blank_node, &k, NULL);
	return k.t;
}

struct pyrows {
	char *text; /* rows_text(b), built on first use */
	struct a1_rows_index *ix;
	struct a1_rows_span *fn;
};

static void pyrows_free(struct pyrows *r)
{
	a1_rows_index_free(r->ix);
	free(r->text);
	free(r->fn);
}

static int py_placeholder(const char *x)
{
	return x && (!strcmp(x, "True") || !strcmp(x, "False") || !strcmp(x, "None"));
}

/* Each ps[i] not yet covered (cov[i] 0) that a live, non-tautological gs[j] of the post
 * function qfn (its own, or a helper's it reaches) generalises over a row: cov[i] = 1,
 * gused[j] = 1. */
static void py_rows(struct a1_py_side *b, struct pyrows *pr, long qfn, struct F *ps, size_t np, unsigned char *cov,
		    const struct a1_py_fact *const *gs, size_t ng, unsigned char *gused)
{
	if (qfn < 0 || !np || !ng || !b->tree || b->status)
		return;
	if (!pr->ix) {
		pr->text = rows_text(b);
		pr->fn = xcalloc(b->nfuncs + 1, sizeof *pr->fn);
		for (size_t k = 0; k < b->nfuncs; k++)
			pr->fn[k] = (struct a1_rows_span){b->funcs[k].name, b->funcs[k].head, b->funcs[k].body_a,
							  b->funcs[k].body_e};
		pr->ix = a1_rows_index_spans(pr->text, b->len, pr->fn, b->nfuncs);
	}
	struct pyparts *gp = xcalloc(ng + 1, sizeof *gp);
	struct a1_rows_fact *g = xcalloc(ng + 1, sizeof *g);
	long *at = xmalloc((ng + 1) * sizeof *at);
	size_t n = 0;
	for (size_t j = 0; j < ng; j++) {
		if (gs[j]->state != A1_PY_OK || is_tautology(b, gs[j]))
			continue;
		py_parts(b, gs[j], &gp[n]);
		if (!gp[n].matcher || py_placeholder(gp[n].expected)) {
			py_parts_free(&gp[n]);
			continue;
		}
		g[n] = (struct a1_rows_fact){gs[j]->form, gp[n].subject, gp[n].matcher, gp[n].expected,
					     gs[j]->fn >= 0 && gs[j]->fn != qfn ? b->funcs[gs[j]->fn].name : NULL};
		at[n++] = (long)j;
	}
	struct a1_rows *r = a1_rows_new_span(pr->ix, &pr->fn[qfn], g, n);
	for (size_t i = 0; i < np; i++) {
		if (cov[i] || ps[i].f->state != A1_PY_OK)
			continue;
		struct pyparts pp;
		py_parts(ps[i].s, ps[i].f, &pp);
		if (pp.matcher) {
			struct a1_rows_fact p = {ps[i].f->form, pp.subject, pp.matcher, pp.expected, NULL};
			long c = a1_rows_cover(r, &p);
			if (c >= 0) {
				cov[i] = 1;
				gused[at[c]] = 1;
			}
		}
		py_parts_free(&pp);
	}
	a1_rows_free(r);
	for (size_t j = 0; j < n; j++)
		py_parts_free(&gp[j]);
	free(gp);
	free(g);
	free(at);
}

/* 1 when identifier node n (under `within`) is a parameter or a for-loop target of `within`. */
struct bound {
	const char *src, *name;
	TSNode within;
};

static int bound_here(TSNode n, void *ctx) /* tsnode_any's predicate */
{
	const struct bound *k = ctx;
	if (strcmp(ts_node_type(n), "identifier") || !tsnode_text_is(k->src, n, k->name))
		return 0;
	TSNode pl = ts_node_parent(n); /* found by descending from the root: only for a match */
	if (ts_node_is_null(pl))
		return 0;
	/* a parameter (typed / default: its first child), or inside a for's target */
	const char *pt = ts_node_type(pl);
	if (!strcmp(pt, "parameters") ||
	    ((!strcmp(pt, "typed_parameter") || !strcmp(pt, "default_parameter") || !strcmp(pt, "typed_default_parameter")) &&
	     ts_node_eq(ts_node_named_child(pl, 0), n)))
		return 1;
	for (TSNode u = n, v = pl; !ts_node_is_null(v) && !ts_node_eq(u, k->within); u = v, v = ts_node_parent(v))
		if (tsnode_is(v, "for_statement") || tsnode_is(v, "for_in_clause"))
			return ts_node_eq(tsnode_field(v, "left"), u);
	return 0;
}

static int bound_name(struct a1_py_side *s, TSNode within, const char *name)
{
	struct bound k = {s->src, name, within};
	return tsnode_any(within, bound_here, &k, NULL);
}

/* 1 when f (of post function fn) checks against a row's value: its expected operand a bare name
 * its function takes as a parameter or a loop binds (`assert add(a, b) == want`). Such an
 * assertion is no successor, by order, of a concrete pre check its rows do not cover. */
static int generalised(struct a1_py_side *b, const struct a1_py_fact *f)
{
	if (f->fn < 0 || f->state != A1_PY_OK || !b->tree || is_tautology(b, f))
		return 0;
	struct pyparts pp;
	py_parts(b, f, &pp);
	int r = 0;
	if (pp.matcher && pp.expected && !py_placeholder(pp.expected)) {
		size_t k = 0;
		while (pp.expected[k] &&
		       (pp.expected[k] == '_' || ((pp.expected[k] | 32) >= 'a' && (pp.expected[k] | 32) <= 'z') ||
			(k && pp.expected[k] >= '0' && pp.expected[k] <= '9')))
			k++;
		if (k && !pp.expected[k]) {
			size_t a = b->funcs[f->fn].body_a;
			TSNode d =
			    ts_node_descendant_for_byte_range(ts_tree_root_node(b->tree), (uint32_t)a, (uint32_t)a);
			while (!ts_node_is_null(d) && !tsnode_is(d, "function_definition"))
				d = ts_node_parent(d);
			r = !ts_node_is_null(d) && bound_name(b, d, pp.expected);
		}
	}
	py_parts_free(&pp);
	return r;
}

/* The post function of pre function `function` (renames followed), or -1. */
static long post_fn(const struct a1_py_side *a, const struct a1_py_side *b, const long *map, const char *function)
{
	long qfn = find_func(b, function);
	for (size_t i = 0; qfn < 0 && i < b->nfuncs; i++)
		if (map[i] >= 0 && !strcmp(a->funcs[map[i]].name, function))
			qfn = (long)i;
	return qfn;
}

/* The cases of a function's @pytest.mark.parametrize decorators: "argnames: argvalue" each
 * (canonical forms); their count, *out a new array of new strings. */
static size_t param_cases(struct a1_py_side *s, long fn, char ***out)
{
	*out = NULL;
	if (fn < 0 || !s->tree || s->status)
		return 0;
	size_t head = s->funcs[fn].head, n = 0, cap = 0;
	TSNode d = ts_node_descendant_for_byte_range(ts_tree_root_node(s->tree), (uint32_t)head, (uint32_t)head);
	while (!ts_node_is_null(d) && !tsnode_is(d, "decorated_definition") && ts_node_start_byte(d) == head)
		d = ts_node_parent(d);
	if (ts_node_is_null(d) || !tsnode_is(d, "decorated_definition") || ts_node_start_byte(d) != head)
		return 0;
	uint32_t m = ts_node_named_child_count(d);
	for (uint32_t i = 0; i < m; i++) {
		TSNode dec = ts_node_named_child(d, i), a[2];
		if (!tsnode_is(dec, "decorator"))
			continue;
		TSNode e = a1_py_bare(a1_py_kid(dec, 0));
		if (!tsnode_is(e, "call"))
			continue;
		char *name = a1_py_dotted(s, tsnode_field(e, "function"));
		size_t nl = name ? strlen(name) : 0;
		int par = nl >= 16 && !strcmp(name + nl - 16, "mark.parametrize");
		free(name);
		if (!par || a1_py_args(e, a, 2) != 2 || !(tsnode_is(a[1], "list") || tsnode_is(a[1], "tuple")))
			continue;
		char *names = a1_py_canon(s, a[0]);
		for (uint32_t k = 0; k < a1_py_nkids(a[1]); k++) {
			char *v = a1_py_canon(s, a1_py_kid(a[1], k));
			*out = xgrow_zeroed(*out, &cap, n, sizeof **out, 8);
			(*out)[n++] = xasprintf("%s: %s", names, v);
			free(v);
		}
		free(names);
	}
	return n;
}

/* A test parametrized on both sides: a case of the pre side's rows missing from the post's is a
 * test case removed (as a Go table's row or a JUnit @CsvSource line). */
static void judge_cases(struct a1_py_side *a, struct a1_py_side *b, const long *map, cJSON *out)
{
	for (size_t i = 0; i < a->nfuncs; i++) {
		if (!is_test_name(a->funcs[i].name))
			continue;
		char **pv, **qv;
		size_t np = param_cases(a, (long)i, &pv),
		       nq = np ? param_cases(b, post_fn(a, b, map, a->funcs[i].name), &qv) : 0;
		size_t *gone, ng = nq ? a1_rows_missing(pv, np, qv, nq, &gone) : 0;
		for (size_t k = 0; k < ng; k++)
			finding(out, a->funcs[i].name, "test-case-removed", "FAIL", pv[gone[k]], NULL, NULL);
		if (ng)
			free(gone);
		a1_rows_list_free(pv, np);
		if (np)
			a1_rows_list_free(qv, nq);
	}
}

/* A test gone whose every lost check (one at least) a new post test - not in the pre side, not
 * a rename's target - generalises over its rows (`def test_add()` -> `@pytest.mark.parametrize(..)
 * def test_add_cases(a, b, want)`): a rename, no finding. */
static int renamed_into_rows(struct a1_py_side *a, struct a1_py_side *b, const long *map, struct pyrows *pr,
			     struct F *lost, size_t nl)
{
	int ok = 0;
	for (size_t k = 0; k < b->nfuncs && !ok && nl; k++) {
		if (map[k] >= 0 || !is_test_name(b->funcs[k].name) || find_func(a, b->funcs[k].name) >= 0)
			continue;
		unsigned char *seen = xcalloc(b->nfuncs + 1, 1);
		reach(b, (long)k, seen, HELPER_DEPTH);
		const struct a1_py_fact **gs = xcalloc(b->nfacts + 1, sizeof *gs);
		size_t ngs = 0;
		for (size_t j = 0; j < b->nfacts; j++)
			if (b->facts[j].fn == (long)k || (b->facts[j].fn >= 0 && seen[b->facts[j].fn]))
				gs[ngs++] = &b->facts[j];
		unsigned char *cov = xcalloc(nl + 1, 1), *gu = xcalloc(ngs + 1, 1);
		py_rows(b, pr, (long)k, lost, nl, cov, gs, ngs, gu);
		int all = 1, any = 0;
		for (size_t i = 0; i < nl; i++) {
			any |= cov[i];
			all &= cov[i] || lost[i].f->state != A1_PY_OK || is_tautology(lost[i].s, lost[i].f);
		}
		ok = all && any;
		free(cov);
		free(gu);
		free(gs);
		free(seen);
	}
	return ok;
}

static void decide(struct a1_py_side *a, struct a1_py_side *b, cJSON *out)
{
	long *map = rename_functions(a, b);
	struct groups g = {0};
	struct pers per = {0};
	for (size_t i = 0; i < a->nfacts; i++) {
		struct group *x = group_of(&g, fname(a, a->facts[i].fn), a->facts[i].kind);
		x->ps = xgrow_zeroed(x->ps, &x->capp, x->np, sizeof *x->ps, 4);
		x->ps[x->np++] = (struct F){a, &a->facts[i], x->function};
	}
	for (size_t i = 0; i < b->nfacts; i++) {
		long fn = b->facts[i].fn;
		const char *name = fn >= 0 && map[fn] >= 0 ? fname(a, map[fn]) : fname(b, fn);
		struct group *x = group_of(&g, name, b->facts[i].kind);
		x->qs = xgrow_zeroed(x->qs, &x->capq, x->nq, sizeof *x->qs, 4);
		x->qs[x->nq++] = (struct F){b, &b->facts[i], x->function};
		if (!is_tautology(b, &b->facts[i])) {
			struct per *pp = per_of(&per, x->function);
			pp->surv = xgrow_zeroed(pp->surv, &pp->caps, pp->ns, sizeof *pp->surv, 4);
			pp->surv[pp->ns++] = x->qs[x->nq - 1];
		}
	}
	int order = 0;
	struct pyrows pr = {0};
	const struct a1_py_fact dead_fact = {.state = A1_PY_DEAD};
	for (size_t gi = 0; gi < g.n; gi++) {
		struct group *x = &g.v[gi];
		unsigned char *used = xcalloc(x->nq + 1, 1);
		struct F *left = xmalloc((x->np + 1) * sizeof *left);
		size_t nl = 0;
		for (size_t i = 0; i < x->np; i++) {
			struct F *p = &x->ps[i];
			long match = -1;
			for (int want_ok = 1; want_ok >= 0 && match < 0; want_ok--)
				for (size_t j = 0; j < x->nq; j++)
					if (!used[j] && (x->qs[j].f->state == A1_PY_OK) == want_ok && !strcmp(x->qs[j].f->form, p->f->form)) {
						match = (long)j;
						break;
					}
			if (match < 0) {
				left[nl++] = *p;
				continue;
			}
			used[match] = 1;
			struct F *q = &x->qs[match];
			if (p->f->state == A1_PY_OK && q->f->state != A1_PY_OK)
				finding(out, x->function, q->f->state == A1_PY_DEAD ? "assertion-unreachable" : "failure-swallowed",
					"FAIL", p->f->form, q->f->form, NULL);
		}
		if (nl && x->nq) { /* checks generalised into rows: covered before pairing by order */
			unsigned char *cov = xcalloc(nl + 1, 1), *gu = xcalloc(x->nq + 1, 1);
			const struct a1_py_fact **gs = xcalloc(x->nq + 1, sizeof *gs);
			for (size_t j = 0; j < x->nq; j++)
				gs[j] = used[j] ? &dead_fact : x->qs[j].f;
			py_rows(b, &pr, post_fn(a, b, map, x->function), left, nl, cov, gs, x->nq, gu);
			size_t k = 0;
			for (size_t i = 0; i < nl; i++)
				if (!cov[i])
					left[k++] = left[i];
			nl = k;
			for (size_t j = 0; j < x->nq; j++)
				used[j] |= gu[j] || (nl && x->nq <= GENERALISED_MAX && generalised(b, x->qs[j].f));
			free(cov);
			free(gu);
			free(gs);
		}
		struct F *rest = xmalloc((x->nq + 1) * sizeof *rest);
		size_t nr = 0;
		for (size_t j = 0; j < x->nq; j++)
			if (!used[j])
				rest[nr++] = x->qs[j];
		struct per *pp = per_of(&per, x->function);
		for (size_t i = 0; i < nl && i < nr; i++) {
			const char *status;
			char *note = NULL;
			const char *name = judge_pair(&left[i], &rest[i], covered_of(pp), &status, &note);
			if (name)
				finding(out, x->function, name, status, left[i].f->form, note ? note : rest[i].f->form, NULL);
			free(note);
		}
		for (size_t i = nr; i < nl; i++) {
			if (pp->order < 0)
				pp->order = order++;
			pp->lost = xgrow_zeroed(pp->lost, &pp->capl, pp->nl, sizeof *pp->lost, 4);
			pp->lost[pp->nl++] = left[i];
		}
		for (size_t j = nl; j < nr; j++)
			if (!is_tautology(b, rest[j].f)) {
				if (pp->order < 0)
					pp->order = order++;
				pp->gained = xgrow_zeroed(pp->gained, &pp->capg, pp->ng, sizeof *pp->gained, 4);
				pp->gained[pp->ng++] = rest[j];
			}
		free(used);
		free(left);
		free(rest);
	}
	judge_markers(a, b, map, out);
	judge_cases(a, b, map, out);
	/* orphans, functions in the order they first had one */
	for (int o = 0; o < order; o++) {
		struct per *pp = NULL;
		for (size_t i = 0; i < per.n && !pp; i++)
			if (per.v[i].order == o)
				pp = &per.v[i];
		if (!pp || !pp->nl)
			continue;
		const char *function = pp->function;
		int defined = !function || find_func(b, function) >= 0;
		for (size_t i = 0; i < b->nfuncs && !defined; i++)
			defined = map[i] >= 0 && !strcmp(a->funcs[map[i]].name, function);
		if (!defined && renamed_into_rows(a, b, map, &pr, pp->lost, pp->nl))
			continue;
		if (!defined) {
			char *what = xasprintf("%zu assertion(s): %s", pp->nl, pp->lost[0].f->form);
			finding(out, function, "test-function-deleted", "FAIL", what, NULL, NULL);
			free(what);
			continue;
		}
		qsort(pp->lost, pp->nl, sizeof *pp->lost, cmp_lost);
		pp->gone = xcalloc(pp->ng + 1, 1);
		unsigned char *seen = xcalloc(b->nfuncs + 1, 1);
		long qfn = find_func(b, function);
		for (size_t i = 0; qfn < 0 && i < b->nfuncs; i++)
			if (map[i] >= 0 && !strcmp(a->funcs[map[i]].name, function))
				qfn = (long)i;
		reach(b, qfn, seen, HELPER_DEPTH);
		unsigned char *rcov = xcalloc(pp->nl + 1, 1);
		if (qfn >= 0) { /* checks generalised into rows: the test's own, a helper's it calls */
			const struct a1_py_fact **gs = xcalloc(b->nfacts + 1, sizeof *gs);
			size_t ngs = 0;
			for (size_t j = 0; j < b->nfacts; j++)
				if (b->facts[j].fn == qfn || (b->facts[j].fn >= 0 && seen[b->facts[j].fn]))
					gs[ngs++] = &b->facts[j];
			unsigned char *gu = xcalloc(ngs + 1, 1);
			py_rows(b, &pr, qfn, pp->lost, pp->nl, rcov, gs, ngs, gu);
			free(gu);
			free(gs);
		}
		for (size_t i = 0; i < pp->nl; i++) {
			struct F *lo = &pp->lost[i];
			int helper_live = 0;
			if (rcov[i] || set_has(covered_of(pp), lo->f->form) ||
			    helper_asserts(b, seen, lo->f->form, &helper_live))
				continue; /* still asserted: by the test, or by a helper it calls */
			size_t k;
			for (k = 0; k < pp->ng; k++)
				if (!pp->gone[k] && pp->gained[k].f->kind != lo->f->kind)
					break;
			if (k < pp->ng) {
				pp->gone[k] = 1;
				const char *lz = loosened_to_boolean(lo, &pp->gained[k]);
				finding(out, function, lz ? lz : "assertion-kind-changed", lz ? "FAIL" : "UNVERIFIED",
					lo->f->form, pp->gained[k].f->form, NULL);
			} else if (!pp->ns && !helper_live) {
				finding(out, function, "test-function-lost-every-assertion", "FAIL", lo->f->form, NULL, NULL);
			} else {
				finding(out, function, "assertion-removed", "FAIL", lo->f->form, NULL, NULL);
			}
		}
		free(seen);
		free(rcov);
	}
	pyrows_free(&pr);
	for (size_t i = 0; i < g.n; i++) {
		free(g.v[i].ps);
		free(g.v[i].qs);
	}
	free(g.v);
	free(g.slot);
	for (size_t i = 0; i < per.n; i++) {
		free(per.v[i].surv);
		free(per.v[i].lost);
		free(per.v[i].gained);
		free(per.v[i].gone);
		set_free(&per.v[i].covered);
	}
	free(per.v);
	strmap_free(&per.index);
	free(map);
}

/* ---- conftest.py ---- */

static void judge_collection(struct a1_py_side *a, struct a1_py_side *b, cJSON *out)
{
	struct a1_py_collection ca, cb;
	a1_py_collection(a, &ca);
	a1_py_collection(b, &cb);
	int same = ca.n == cb.n;
	for (size_t i = 0; same && i < ca.n; i++)
		same = !strcmp(ca.stmts[i], cb.stmts[i]);
	if (same)
		goto done;
	size_t before = cJSON_GetArraySize(out);
	struct buf gained = {0}, had = {0};
	for (size_t i = 0; i < cb.nignored; i++) {
		int old = 0;
		for (size_t j = 0; j < ca.nignored && !old; j++)
			old = !strcmp(ca.ignored[j], cb.ignored[i]);
		if (!old) {
			buf_puts(&gained, gained.len ? ", " : "collect_ignore gained ");
			buf_puts(&gained, cb.ignored[i]);
		}
	}
	for (size_t j = 0; j < ca.nignored; j++) {
		if (had.len)
			buf_puts(&had, ", ");
		buf_puts(&had, ca.ignored[j]);
	}
	if (gained.len)
		finding(out, NULL, "discovery-narrowed", "FAIL", had.len ? buf_cstr(&had) : NULL, buf_cstr(&gained), NULL);
	for (size_t i = 0; i < cb.n; i++) {
		int old = 0;
		for (size_t j = 0; j < ca.n && !old; j++)
			old = !strcmp(ca.stmts[j], cb.stmts[i]);
		if (!old && cb.drops[i]) {
			finding(out, NULL, "discovery-narrowed", "FAIL", NULL, "a collection hook that drops tests", NULL);
			break;
		}
	}
	if ((size_t)cJSON_GetArraySize(out) == before) {
		char *x = xasprintf("%zu collection statement(s)", ca.n), *y = xasprintf("%zu collection statement(s)", cb.n);
		finding(out, NULL, "collection-settings-changed", "UNVERIFIED", x, y, NULL);
		free(x);
		free(y);
	}
	buf_free(&gained);
	buf_free(&had);
done:
	a1_py_collection_free(&ca);
	a1_py_collection_free(&cb);
}

/* ---- the file ---- */

/* The module a test file tests, by its base name: test_calc.py / calc_test.py -> calc. */
static char *unit_of(const char *path)
{
	const char *base = path ? strrchr(path, '/') : NULL;
	base = base ? base + 1 : path ? path : "";
	size_t n = strlen(base);
	if (n < 3 || strcmp(base + n - 3, ".py"))
		return NULL;
	n -= 3;
	static const char *const pre[] = {"test_", "tests_", NULL};
	for (const char *const *p = pre; *p; p++) {
		size_t k = strlen(*p);
		if (n > k && !strncmp(base, *p, k))
			return xstrndup(base + k, n - k);
	}
	if (n > 5 && !strncmp(base + n - 5, "_test", 5))
		return xstrndup(base, n - 5);
	return NULL;
}

static int is_conftest(const char *path)
{
	const char *b = path ? strrchr(path, '/') : NULL;
	return path && !strcmp(b ? b + 1 : path, "conftest.py");
}

static void refused(cJSON *out, const struct a1_py_side *s, int pre)
{
	char name[40];
	const char *colon = strchr(s->why, ':');
	size_t k = colon ? (size_t)(colon - s->why) : strlen(s->why);
	snprintf(name, sizeof name, "%.*s", (int)(k < sizeof name - 1 ? k : sizeof name - 1), s->why);
	finding(out, NULL, name, "UNVERIFIED", pre ? s->why : NULL, pre ? NULL : s->why, UNREADABLE);
}

static char **side_keys(const struct a1_py_side *s, size_t *n)
{
	char **v = xmalloc((s->nfacts + 1) * sizeof *v);
	for (size_t i = 0; i < s->nfacts; i++)
		v[i] = fact_key(&s->facts[i], fname(s, s->facts[i].fn));
	*n = s->nfacts;
	return v;
}

static void free_keys(char **v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

cJSON *a1_py_judge(const char *path, const char *pre, size_t pre_len, const char *post, size_t post_len,
		   const struct a1_py_blob *renames, size_t nrenames, const char *rename_gap, int *renamed_to,
		   int *compared)
{
	cJSON *out = cJSON_CreateArray();
	if (!out)
		FATAL("out of memory");
	if (renamed_to)
		*renamed_to = -1;
	if (compared)
		*compared = 0;
	char *unit = unit_of(path);
	struct a1_py_side a = {0}, b = {0};
	a1_py_extract_pair(pre, pre_len, post, post_len, unit, &a, &b);
	if (a.status || b.status) {
		if (a.status)
			refused(out, &a, 1);
		if (b.status)
			refused(out, &b, 0);
		goto done;
	}
	if (compared)
		*compared = 1;
	if (post) {
		decide(&a, &b, out);
		if (a.status || b.status) { /* over the work budget while comparing */
			cJSON_Delete(out);
			out = cJSON_CreateArray();
			finding(out, NULL, "too-deeply-nested", "UNVERIFIED", NULL, NULL, NULL);
			goto done;
		}
		if (is_conftest(path))
			judge_collection(&a, &b, out);
		goto done;
	}
	if (!a.nfacts)
		goto done; /* a deleted file without assertions weakens nothing */
	size_t nn;
	char **need = side_keys(&a, &nn);
	int unreadable_target = 0;
	for (size_t j = 0; j < nrenames; j++) {
		if (!renames[j].text) {
			unreadable_target = 1;
			continue;
		}
		struct a1_py_side c = {0};
		if (a1_py_extract(renames[j].text, renames[j].len, NULL, &c)) {
			unreadable_target = 1;
			a1_py_side_free(&c);
			continue;
		}
		size_t nh;
		char **have = side_keys(&c, &nh);
		int ok = multiset_within(need, nn, have, nh);
		free_keys(have, nh);
		a1_py_side_free(&c);
		if (ok) {
			if (renamed_to)
				*renamed_to = (int)j;
			free_keys(need, nn);
			goto done;
		}
	}
	free_keys(need, nn);
	char *summary = xasprintf("%zu assertion(s), first: %s", a.nfacts, a.facts[0].form);
	if (unreadable_target || rename_gap)
		finding(out, NULL, "rename-target-unreadable", "UNVERIFIED", summary, NULL, rename_gap ? rename_gap : UNREADABLE);
	else
		finding(out, NULL, "test-file-deleted", "FAIL", summary, NULL, NULL);
	free(summary);
done:
	a1_py_side_free(&a);
	a1_py_side_free(&b);
	free(unit);
	return out;
}

int a1_py_count(const char *text, size_t len, int *functions, int *assertions)
{
	struct a1_py_side s = {0};
	*functions = *assertions = 0;
	if (a1_py_extract(text ? text : "", text ? len : 0, NULL, &s)) {
		a1_py_side_free(&s);
		return BELAY_EINVAL;
	}
	*functions = s.nfuncs > 0x7fffffff ? 0x7fffffff : (int)s.nfuncs;
	*assertions = s.nfacts > 0x7fffffff ? 0x7fffffff : (int)s.nfacts;
	a1_py_side_free(&s);
	return 0;
}
