/* a1_js.c - A1's judge of JavaScript and TypeScript test files (a1_js.h): the two sides'
 * facts (a1_js_facts.c) compared test by test, after weakening.py's decisions for Python -
 * tests paired by name path (a test gone whose assertions all reappear in a new one was
 * renamed); within a pair, identical assertion forms pair first as a multiset, then the same
 * subject, then the rest in order; a pair is judged (tautology, unreachable, swallowed,
 * negated, loosened, another expected value), what is left of the pre side is removed
 * unless a helper the post test calls, or a new test that runs, still asserts it.
 *
 * Threads: any (no globals). Must not: print, keep state between calls, judge a side it
 * could not read (that is an UNVERIFIED finding, never a PASS). */
#include "assertions/a1_js.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "assertions/a1_finding.h"
#include "assertions/a1_rows.h"
#include "assertions/a1_js_facts.h"
#include "common/buf.h"
#include "common/err.h"
#include "common/strmap.h"
#include "common/xalloc.h"

#define HELPER_DEPTH 8 /* calls followed from a test into the file's functions */

#define UNREADABLE "ASSERTION_FILE_UNREADABLE"
#define UNDECIDABLE "ASSERTION_UNDECIDABLE"

enum a1_js_dialect a1_js_dialect(const char *path)
{
	static const struct {
		const char *ext;
		enum a1_js_dialect d;
	} map[] = {{".js", A1_JS_JAVASCRIPT},  {".jsx", A1_JS_JAVASCRIPT}, {".mjs", A1_JS_JAVASCRIPT},
		   {".cjs", A1_JS_JAVASCRIPT}, {".ts", A1_JS_TYPESCRIPT},  {".mts", A1_JS_TYPESCRIPT},
		   {".cts", A1_JS_TYPESCRIPT}, {".tsx", A1_JS_TSX}};
	if (!path)
		return A1_JS_NONE;
	const char *base = strrchr(path, '/');
	base = base ? base + 1 : path;
	const char *dot = strrchr(base, '.');
	if (!dot || dot == base)
		return A1_JS_NONE;
	for (size_t i = 0; i < sizeof map / sizeof *map; i++)
		if (!strcasecmp(dot, map[i].ext))
			return map[i].d;
	return A1_JS_NONE;
}

/* ---- matchers ---- */

static int str_in(const char *s, const char *const *set)
{
	for (; *set; set++)
		if (!strcmp(s, *set))
			return 1;
	return 0;
}

/* A matcher read for comparison: chai's language chains dropped, `not` counted, the last
 * component as its positive form (notEqual -> equal, toBeFalsy -> toBeTruthy). */
struct norm {
	char base[1040]; /* the kept components, the last one positive */
	char last[64];	 /* the last component, positive */
	int neg;
};

static void normalize(const char *m, struct norm *o)
{
	static const char *const chains[] = {"to",   "be", "been", "is",  "that", "which", "and",  "has", "have",
					     "with", "at", "of",   "but", "does", "still", "also", NULL};
	static const char *const pos[][2] = {{"notEqual", "equal"},
					     {"notStrictEqual", "strictEqual"},
					     {"notDeepEqual", "deepEqual"},
					     {"notDeepStrictEqual", "deepStrictEqual"},
					     {"not", "is"},
					     {"false", "true"},
					     {"falsy", "truthy"},
					     {"notOk", "ok"},
					     {"notSame", "same"},
					     {"notStrictSame", "strictSame"},
					     {"doesNotMatch", "match"},
					     {"notMatch", "match"},
					     {"notThrows", "throws"},
					     {"doesNotThrow", "throws"},
					     {"notThrowsAsync", "throwsAsync"},
					     {"doesNotReject", "rejects"},
					     {"notRegex", "regex"},
					     {"toBeFalsy", "toBeTruthy"},
					     {"notInclude", "include"},
					     {"isFalse", "isTrue"},
					     {"isNotOk", "isOk"},
					     {"isNotNull", "isNull"},
					     {"isDefined", "isUndefined"},
					     {"notExists", "exists"},
					     {"toBeFalse", "toBeTrue"}};
	char comp[16][64];
	size_t nc = 0;
	o->neg = 0;
	const char *p = m;
	while (*p && nc < 16) {
		const char *e = strchr(p, '.');
		size_t k = e ? (size_t)(e - p) : strlen(p);
		if (k >= sizeof comp[0])
			k = sizeof comp[0] - 1;
		char c[64];
		memcpy(c, p, k);
		c[k] = 0;
		if (!strcmp(c, "not"))
			o->neg ^= 1;
		else
			memcpy(comp[nc++], c, k + 1);
		if (!e)
			break;
		p = e + 1;
	}
	/* language chains, but never the last component (t.is, assert.ok) */
	size_t kept = 0;
	for (size_t i = 0; i < nc; i++)
		if (i + 1 == nc || !str_in(comp[i], chains))
			memmove(comp[kept++], comp[i], sizeof comp[0]);
	nc = kept;
	if (nc == 0) /* ava's t.not is t.is negated */
		memcpy(comp[nc++], o->neg ? "is" : "", o->neg ? 3 : 1);
	for (size_t i = 0; i < sizeof pos / sizeof *pos; i++)
		if (!strcmp(comp[nc - 1], pos[i][0])) {
			snprintf(comp[nc - 1], sizeof comp[0], "%s", pos[i][1]);
			o->neg ^= 1;
			break;
		}
	size_t w = 0;
	for (size_t i = 0; i < nc; i++) {
		size_t k = strlen(comp[i]);
		if (w + k + 2 > sizeof o->base)
			break; /* 16 components of 63 bytes fit; longer ones compare by their prefix */
		if (i)
			o->base[w++] = '.';
		memcpy(o->base + w, comp[i], k);
		w += k;
	}
	o->base[w] = 0;
	memcpy(o->last, comp[nc - 1], sizeof o->last);
}

enum { M_OTHER, M_EXACT, M_LOOSE };

static int strength(const struct a1_js_fact *f, const struct norm *n)
{
	static const char *const exact[] = {"toBe",
					    "toEqual",
					    "toStrictEqual",
					    "toHaveLength",
					    "toMatchObject",
					    "toBeCloseTo",
					    "toHaveBeenCalledWith",
					    "toHaveBeenCalledTimes",
					    "toHaveBeenLastCalledWith",
					    "toHaveBeenNthCalledWith",
					    "toHaveReturnedWith",
					    "toHaveLastReturnedWith",
					    "toHaveNthReturnedWith",
					    "toBeNull",
					    "toBeUndefined",
					    "toBeNaN",
					    "toMatchSnapshot",
					    "toMatchInlineSnapshot",
					    "toThrowErrorMatchingSnapshot",
					    "toThrowErrorMatchingInlineSnapshot",
					    "toBeTrue",
					    "toHaveBeenCalledOnce",
					    "toHaveBeenCalledOnceWith",
					    "toHaveBeenCalledExactlyOnceWith",
					    "equal",
					    "equals",
					    "eq",
					    "eql",
					    "lengthOf",
					    "length",
					    "members",
					    "true",
					    "null",
					    "undefined",
					    "NaN",
					    "calledOnce",
					    "calledWith",
					    "calledWithExactly",
					    "strictEqual",
					    "deepEqual",
					    "deepStrictEqual",
					    "is",
					    "same",
					    "strictSame",
					    "snapshot",
					    "matchSnapshot",
					    "callCount",
					    "isTrue",
					    "isNull",
					    "isUndefined",
					    "deepEquals",
					    "sameMembers",
					    "sameDeepMembers",
					    "==", /* a boolean comparison asserted true (a1_js_facts.c) */
					    "===",
					    NULL};
	static const char *const with_arg[] = {"toThrow",     "toThrowError", "throws",	      "rejects",
					       "throwsAsync", "throw",	      "rejectedWith", NULL};
	static const char *const loose[] = {"toBeTruthy",
					    "toBeDefined",
					    "toContain",
					    "toContainEqual",
					    "toMatch",
					    "toBeGreaterThan",
					    "toBeGreaterThanOrEqual",
					    "toBeLessThan",
					    "toBeLessThanOrEqual",
					    "toHaveBeenCalled",
					    "toBeInstanceOf",
					    "toBeTypeOf",
					    "toBeOneOf",
					    "toBeDefined",
					    "ok",
					    "exist",
					    "exists",
					    "include",
					    "includes",
					    "contain",
					    "contains",
					    "match",
					    "matches",
					    "above",
					    "below",
					    "least",
					    "most",
					    "gt",
					    "lt",
					    "gte",
					    "lte",
					    "a",
					    "an",
					    "instanceOf",
					    "instanceof",
					    "called",
					    "assert",
					    "truthy",
					    "regex",
					    "like",
					    "isOk",
					    "isAbove",
					    "isBelow",
					    "isAtLeast",
					    "isAtMost",
					    "notEmpty",
					    "hasAllKeys",
					    "any",
					    "rejected",
					    "fulfilled",
					    "resolved",
					    ">=", /* a boolean comparison asserted true (a1_js_facts.c) */
					    ">",
					    "<=",
					    "<",
					    "!=",
					    "!==",
					    "||",
					    NULL};
	if (n->neg)
		return M_LOOSE;
	if (str_in(n->last, exact))
		return M_EXACT;
	if (str_in(n->last, with_arg))
		return f->expected && *f->expected ? M_EXACT : M_LOOSE;
	if (str_in(n->last, loose))
		return M_LOOSE;
	return M_OTHER;
}

static int eq(const char *a, const char *b)
{
	return a && b && !strcmp(a, b);
}

static int live(const struct a1_js_fact *f)
{
	return !f->dead && !f->swallowed && !f->taut;
}

/* The finding for a pair whose forms may differ (NULL: none), into *status. */
/* Where the post assertion stands, for any language: a finding, or NULL with *go set when
 * the matchers are for the language's pair judge to compare (the forms differ, the subject
 * is the same). */
static const char *judge_where(const struct a1_js_fact *p, const struct a1_js_fact *q, int *go)
{
	*go = 0;
	if (q->taut)
		return "replaced-by-tautology";
	if (q->dead)
		return "assertion-unreachable";
	if (q->swallowed)
		return "failure-swallowed";
	*go = strcmp(p->form, q->form) && (p->subject ? eq(p->subject, q->subject) : !q->subject);
	return NULL;
}

/* JavaScript's matchers, for a pair judge_where passed on. */
static const char *judge_pair(const struct a1_js_fact *p, const struct a1_js_fact *q, const char **status)
{
	*status = "FAIL";
	struct norm pn, qn;
	normalize(p->matcher, &pn);
	normalize(q->matcher, &qn);
	int same_matcher = p->kind == q->kind && !strcmp(p->matcher, q->matcher);
	if (p->kind == q->kind && !strcmp(pn.base, qn.base) && pn.neg != qn.neg)
		return "assertion-negated";
	int ps = strength(p, &pn), qs = strength(q, &qn);
	if (ps == M_EXACT && qs == M_LOOSE)
		return "matcher-loosened";
	static const char *const to_loose[][2] = {
	    {"strictEqual", "equal"}, {"deepStrictEqual", "deepEqual"}, {"toStrictEqual", "toEqual"},
	    {"strictSame", "same"},   {"notStrictEqual", "notEqual"},	{"notDeepStrictEqual", "notDeepEqual"}};
	if (pn.neg == qn.neg)
		for (size_t i = 0; i < sizeof to_loose / sizeof *to_loose; i++)
			if (!strcmp(pn.last, to_loose[i][0]) && !strcmp(qn.last, to_loose[i][1]))
				return "matcher-loosened";
	if (!same_matcher || eq(p->expected, q->expected) || !p->expected || !*p->expected)
		return NULL; /* nothing expected before: an argument now only narrows it */
	static const char *const throws[] = {"toThrow",	    "toThrowError", "throws",	    "rejects",
					     "throwsAsync", "throw",	    "rejectedWith", NULL};
	if (str_in(pn.last, throws) && p->expected && *p->expected && (!q->expected || !*q->expected))
		return "matcher-loosened";
	if (p->digits >= 0 && q->digits >= 0 && q->digits < p->digits && eq(p->exp1, q->exp1))
		return "matcher-loosened";
	if (p->expected && q->expected && !strstr(p->expected, "expect.any") &&
	    (strstr(q->expected, "expect.anything()") || strstr(q->expected, "expect.any(")))
		return "matcher-loosened";
	*status = "WARN";
	return "expected-value-changed";
}

/* ---- helpers a test calls ---- */

struct reach {
	const struct a1_js_side *s;
	unsigned char *seen; /* per function */
};

/* Marks the functions `calls` reaches within `depth` more calls. */
static void reach_calls(struct reach *r, const struct a1_js_names *calls, int depth)
{
	if (depth <= 0)
		return;
	for (size_t i = 0; i < calls->n; i++)
		for (size_t j = 0; j < r->s->nfuncs; j++)
			if (!r->seen[j] && !strcmp(r->s->funcs[j].name, calls->v[i])) {
				r->seen[j] = 1;
				reach_calls(r, &r->s->funcs[j].calls, depth - 1);
			}
}

/* ---- comparing two tests ---- */

static int has_form(const struct a1_js_facts *l, const char *form, int need_live)
{
	for (size_t i = 0; i < l->n; i++)
		if (!strcmp(l->v[i].form, form) && (!need_live || live(&l->v[i])))
			return 1;
	return 0;
}

/* A name an assertion helper goes by: expect*, assert*, check*, verify*, ensure*, should*,
 * validate*, must* as a whole word or followed by an upper-case letter or '_' (expectSum,
 * assert_valid; not checkout). Not the frameworks' own expect / assert / should: a call of
 * those that is no assertion chain asserts nothing. */
static int helper_like(const char *name)
{
	if (!strcmp(name, "expect") || !strcmp(name, "assert") || !strcmp(name, "should"))
		return 0;
	static const char *const pre[] = {"expect", "assert", "check", "verify", "ensure", "should", "validate", "must", NULL};
	for (const char *const *p = pre; *p; p++) {
		size_t k = strlen(*p);
		if (!strncmp(name, *p, k) && (!name[k] || name[k] == '_' || (name[k] >= 'A' && name[k] <= 'Z')))
			return 1;
	}
	return 0;
}

static int names_have(const struct a1_js_names *l, const char *name)
{
	for (size_t i = 0; i < l->n; i++)
		if (!strcmp(l->v[i], name))
			return 1;
	return 0;
}

static int defined_here(const struct a1_js_side *s, const char *name)
{
	for (size_t j = 0; j < s->nfuncs; j++)
		if (!strcmp(s->funcs[j].name, name))
			return 1;
	return 0;
}

/* A hook's assertion moved into a test (it then runs in that test only, not around every one):
 * not decided here. */
static int asserted_in_a_test(const struct a1_js_side *post, const char *form)
{
	for (size_t i = 0; i < post->ntests; i++)
		if (!post->tests[i].hook && has_form(&post->tests[i].facts, form, 1))
			return 1;
	return 0;
}

/* An assertion moved out of a test into a new one (a post test no pre test became, run: not
 * skipped, todo or a hook): a test split in two keeps what it asserted. */
static int asserted_in_a_new_test(const struct a1_js_side *post, const unsigned char *taken, const char *form)
{
	for (size_t i = 0; taken && i < post->ntests; i++)
		if (!taken[i] && !post->tests[i].hook && !(post->tests[i].mods & (A1_JS_SKIP | A1_JS_TODO | A1_JS_FAILING)) &&
		    !post->tests[i].lazy && has_form(&post->tests[i].facts, form, 1))
			return 1;
	return 0;
}

/* a1_rows_js_bound's answers for one test, by name: each name's reading of the test costs its
 * length once; past BOUND_NAMES names, 0 (paired by order, as without the rule). */
#define BOUND_NAMES 8
struct bound_cache {
	const char *name[BOUND_NAMES];
	int val[BOUND_NAMES];
	size_t n;
};

static int bound_cached(struct bound_cache *c, struct a1_rows_text *rt, unsigned line, const char *name)
{
	if (!name || !rt || !rt->js)
		return 0;
	for (size_t i = 0; i < c->n; i++)
		if (!strcmp(c->name[i], name))
			return c->val[i];
	if (c->n == BOUND_NAMES)
		return 0;
	c->name[c->n] = name;
	return c->val[c->n++] = a1_rows_js_bound(rt, line, name);
}

static void compare_tests(const struct a1_js_side *pre, const struct a1_js_side *post, const struct a1_js_test *P,
			  const struct a1_js_test *Q, a1_js_pair_fn pair_fn, const unsigned char *taken, struct a1_rows_text *rt,
			  cJSON *out)
{
	size_t np = P->facts.n, nq = Q->facts.n;
	const struct a1_js_fact *p = P->facts.v, *q = Q->facts.v;
	long *pair = xmalloc((np + 1) * sizeof *pair);
	unsigned char *used = xcalloc(nq + 1, 1);
	for (size_t i = 0; i < np; i++)
		pair[i] = -1;
	struct bound_cache bc = {0};
	/* identical forms, where they stand too; identical forms; the same subject; the rest in order */
	for (int pass = 0; pass < 4; pass++)
		for (size_t i = 0, j0 = 0; i < np; i++) {
			if (pass == 3 && i == 0) /* N assertions generalised into one fed by rows: -2 (a1_rows.h) */
				a1_rows_js(post, P, Q, rt, HELPER_DEPTH, pair, used);
			if (pair[i] != -1)
				continue;
			for (size_t j = pass == 3 ? j0 : 0; j < nq; j++) {
				if (used[j])
					continue;
				int ok = pass == 0 ? !strcmp(p[i].form, q[j].form) && p[i].dead == q[j].dead &&
							 p[i].swallowed == q[j].swallowed
					 : pass == 1 ? !strcmp(p[i].form, q[j].form)
					 : pass == 2 ? eq(p[i].subject, q[j].subject) && p[i].kind == q[j].kind
						     : !(live(&p[i]) && bound_cached(&bc, rt, Q->line, q[j].expected));
				if (ok) {
					pair[i] = (long)j;
					used[j] = 1;
					j0 = j + 1;
					break;
				}
			}
		}
	for (size_t i = 0; i < np; i++) {
		if (pair[i] < 0 || !live(&p[i]))
			continue;
		int go;
		const char *status = "FAIL", *name = judge_where(&p[i], &q[pair[i]], &go);
		if (go)
			name = pair_fn(&p[i], &q[pair[i]], &status);
		if (name)
			a1_finding_add(out, P->name, name, status, NULL, p[i].form, q[pair[i]].form);
	}
	/* what is left: asserted by a helper the post test calls, or removed */
	struct reach r = {post, xcalloc(post->nfuncs + 1, 1)};
	reach_calls(&r, &Q->calls, HELPER_DEPTH);
	int helper_live = 0;
	for (size_t j = 0; j < post->nfuncs && !helper_live; j++)
		if (r.seen[j])
			for (size_t k = 0; k < post->funcs[j].facts.n; k++)
				helper_live |= live(&post->funcs[j].facts.v[k]);
	int own_live = 0;
	for (size_t j = 0; j < nq; j++)
		own_live |= live(&q[j]);
	int lost_every = 0;
	for (size_t i = 0; i < np; i++) {
		if (pair[i] != -1 || !live(&p[i]))
			continue;
		int covered = 0;
		for (size_t j = 0; j < post->nfuncs && !covered; j++)
			covered = r.seen[j] && has_form(&post->funcs[j].facts, p[i].form, 1);
		if (covered)
			continue;
		if (P->hook && asserted_in_a_test(post, p[i].form)) {
			a1_finding_add(out, P->name, "hook-assertion-moved", "UNVERIFIED", UNDECIDABLE, p[i].form, NULL);
			continue;
		}
		if (!P->hook && asserted_in_a_new_test(post, taken, p[i].form))
			continue;
		if (!own_live && !helper_live) {
			a1_finding_add(out, P->name, "test-lost-every-assertion", "FAIL", NULL, p[i].form, NULL);
			lost_every = 1;
			break;
		}
		a1_finding_add(out, P->name, "assertion-removed", "FAIL", NULL, p[i].form, NULL);
	}
	/* What the pre test asserted through the file's helpers it called: each such assertion
	 * the post test no longer makes, itself or through its helpers. When the post test asserts
	 * nothing at all that is decided (FAIL); else the helper's arguments may have moved into
	 * an assertion of the test (UNVERIFIED). */
	struct reach rp = {pre, xcalloc(pre->nfuncs + 1, 1)};
	reach_calls(&rp, &P->calls, HELPER_DEPTH);
	const char *helper_lost = NULL;
	for (size_t j = 0; j < pre->nfuncs && !helper_lost; j++) {
		if (!rp.seen[j])
			continue;
		const struct a1_js_facts *hf = &pre->funcs[j].facts;
		for (size_t k = 0; k < hf->n && !helper_lost; k++) {
			if (!live(&hf->v[k]) || has_form(&Q->facts, hf->v[k].form, 1))
				continue;
			int covered = 0;
			for (size_t m = 0; m < post->nfuncs && !covered; m++)
				covered = r.seen[m] && has_form(&post->funcs[m].facts, hf->v[k].form, 1);
			if (!covered)
				helper_lost = hf->v[k].form;
		}
	}
	if (helper_lost && !lost_every) {
		if (!own_live && !helper_live)
			a1_finding_add(out, P->name, "test-lost-every-assertion", "FAIL", NULL, helper_lost, NULL);
		else
			a1_finding_add(out, P->name, "assertion-helper-call-removed", "UNVERIFIED", UNDECIDABLE, helper_lost, NULL);
	}
	free(rp.seen);
	/* A call of an assertion helper defined elsewhere (imported: its assertions are not read
	 * here) that the post test no longer makes. */
	for (size_t i = 0; i < P->calls.n; i++) {
		const char *name = P->calls.v[i];
		int earlier = 0;
		for (size_t k = 0; k < i && !earlier; k++)
			earlier = !strcmp(P->calls.v[k], name);
		if (earlier || !helper_like(name) || defined_here(pre, name) || names_have(&Q->calls, name))
			continue;
		char *what = xasprintf("%s(...)", name);
		a1_finding_add(out, P->name, "assertion-helper-call-removed", "UNVERIFIED", UNDECIDABLE, what, NULL);
		free(what);
	}
	free(r.seen);
	free(pair);
	free(used);
}

/* ---- tests of the two sides ---- */

/* Every form of `need` is in `have` as often (multisets). */
static int superset(const struct a1_js_facts *have, const struct a1_js_facts *need)
{
	if (need->n > have->n)
		return 0;
	const char **a = xmalloc((have->n + 1) * sizeof *a), **b = xmalloc((need->n + 1) * sizeof *b);
	for (size_t i = 0; i < have->n; i++)
		a[i] = have->v[i].form;
	for (size_t i = 0; i < need->n; i++)
		b[i] = need->v[i].form;
	int ok = a1_forms_cover(a, have->n, b, need->n);
	free(a);
	free(b);
	return ok;
}

static const char *leaf_name(const char *path)
{
	const char *p = path, *s;
	while ((s = strstr(p, " > ")))
		p = s + 3;
	return p;
}

/* name -> index of a side's tests (open addressing; names are unique within a side). */
struct index {
	const struct a1_js_side *s;
	long *slot;
	size_t cap;
};

static void index_build(struct index *ix, const struct a1_js_side *s)
{
	ix->s = s;
	ix->cap = 16;
	while (ix->cap < s->ntests * 2 + 2)
		ix->cap *= 2;
	ix->slot = xmalloc(ix->cap * sizeof *ix->slot);
	for (size_t i = 0; i < ix->cap; i++)
		ix->slot[i] = -1;
	for (size_t i = 0; i < s->ntests; i++) {
		size_t j = strmap_hash(s->tests[i].name) & (ix->cap - 1);
		while (ix->slot[j] >= 0 && strcmp(s->tests[ix->slot[j]].name, s->tests[i].name))
			j = (j + 1) & (ix->cap - 1);
		if (ix->slot[j] < 0)
			ix->slot[j] = (long)i;
	}
}

static long index_get(const struct index *ix, const char *name)
{
	size_t j = strmap_hash(name) & (ix->cap - 1);
	while (ix->slot[j] >= 0) {
		if (!strcmp(ix->s->tests[ix->slot[j]].name, name))
			return ix->slot[j];
		j = (j + 1) & (ix->cap - 1);
	}
	return -1;
}

/* The unit under test: the path's stem without .test / .spec ("src/calc.test.ts" -> "calc"). */
static char *unit_stem(const char *path)
{
	const char *base = path ? strrchr(path, '/') : NULL;
	base = base ? base + 1 : path ? path : "";
	char *s = xstrdup(base);
	char *dot = strrchr(s, '.');
	if (dot && dot != s)
		*dot = 0;
	static const char *const tails[] = {".test", ".spec", "-test", "_test", "-spec",
					    "_spec", ".unit", ".e2e",  NULL};
	for (const char *const *t = tails; *t; t++) {
		size_t n = strlen(s), k = strlen(*t);
		if (n > k && !strcmp(s + n - k, *t)) {
			s[n - k] = 0;
			break;
		}
	}
	return s;
}

/* A module specifier's stem ("../src/calc.js" -> "calc", "./calc/index" -> "calc"). */
static char *spec_stem(const char *spec)
{
	char *s = xstrdup(spec);
	size_t n = strlen(s);
	while (n > 1 && s[n - 1] == '/')
		s[--n] = 0;
	for (int round = 0; round < 2; round++) {
		char *slash = strrchr(s, '/');
		char *b = slash ? slash + 1 : s;
		char *dot = strrchr(b, '.');
		if (dot && dot != b)
			*dot = 0;
		if (strcmp(b, "index") || !slash) {
			memmove(s, b, strlen(b) + 1);
			return s;
		}
		*slash = 0;
	}
	return s;
}

/* 1 when every live assertion of P (one at least) is generalised by Q over its rows (a1_rows.h):
 * `test('a', ..)` -> `test.each([..])('add(%i, %i)', ..)`, a rename the superset does not see. */
static int rows_rename(const struct a1_js_side *post, const struct a1_js_test *P, const struct a1_js_test *Q,
		       struct a1_rows_text *rt)
{
	if (!rt || !rt->text || !P->facts.n)
		return 0;
	long *pair = xmalloc((P->facts.n + 1) * sizeof *pair);
	unsigned char *used = xcalloc(Q->facts.n + 1, 1);
	for (size_t i = 0; i < P->facts.n; i++)
		pair[i] = -1;
	a1_rows_js(post, P, Q, rt, HELPER_DEPTH, pair, used);
	int any = 0, all = 1;
	for (size_t i = 0; i < P->facts.n; i++)
		if (pair[i] == -2)
			any = 1;
		else if (live(&P->facts.v[i]))
			all = 0;
	free(pair);
	free(used);
	return any && all;
}

/* The byte where line `line` (from 1) of text starts, `len` when there is none; *starts (built
 * on first use, freed by the caller) holds every line's start. */
static size_t line_byte(const char *text, size_t len, size_t **starts, size_t *n, unsigned line)
{
	if (!*starts) {
		size_t cap = 64;
		*starts = xmalloc(cap * sizeof **starts);
		(*starts)[(*n)++] = 0;
		for (size_t i = 0; i < len; i++)
			if (text[i] == '\n') {
				if (*n == cap)
					*starts = xrealloc(*starts, (cap *= 2) * sizeof **starts);
				(*starts)[(*n)++] = i + 1;
			}
	}
	return line && line <= *n ? (*starts)[line - 1] : len;
}

/* A test whose head holds a table on both sides (`test.each([..])(name, ..)`): each pre row
 * missing from the post rows (a multiset) is a test case removed. */
static void judge_cases(struct a1_rows_text *rt, const struct a1_js_test *P, const struct a1_js_test *Q, size_t **sa,
			size_t *na, size_t **sb, size_t *nb, cJSON *out)
{
	if (!rt || !rt->js || !rt->pre || !rt->text || !P->line || !Q->line)
		return;
	char **pv, **qv;
	size_t np = a1_rows_head(rt->pre, rt->pre_len, line_byte(rt->pre, rt->pre_len, sa, na, P->line), &pv);
	size_t nq = np ? a1_rows_head(rt->text, rt->len, line_byte(rt->text, rt->len, sb, nb, Q->line), &qv) : 0;
	size_t *gone, ng = nq ? a1_rows_missing(pv, np, qv, nq, &gone) : 0;
	for (size_t k = 0; k < ng; k++)
		a1_finding_add(out, P->name, "test-case-removed", "FAIL", NULL, pv[gone[k]], NULL);
	if (ng)
		free(gone);
	a1_rows_list_free(pv, np);
	if (np)
		a1_rows_list_free(qv, nq);
}

static void compare(const struct a1_js_side *pre, const struct a1_js_side *post, const char *path,
		    a1_js_pair_fn pair_fn, struct a1_rows_text *rt, cJSON *out)
{
	struct index ipre, ipost;
	size_t *starts_a = NULL, *starts_b = NULL, nstarts_a = 0, nstarts_b = 0;
	index_build(&ipre, pre);
	index_build(&ipost, post);
	long *match = xmalloc((pre->ntests + 1) * sizeof *match);
	unsigned char *taken = xcalloc(post->ntests + 1, 1);
	for (size_t i = 0; i < pre->ntests; i++) {
		match[i] = index_get(&ipost, pre->tests[i].name);
		if (match[i] >= 0)
			taken[match[i]] = 1;
	}
	/* renames: a test gone whose assertions all reappear in a new one (the same last name first) */
	for (int pass = 0; pass < 3; pass++)
		for (size_t i = 0; i < pre->ntests; i++) {
			const struct a1_js_test *P = &pre->tests[i];
			if (match[i] >= 0 || (P->mods & (A1_JS_SKIP | A1_JS_TODO)))
				continue;
			for (size_t j = 0; j < post->ntests; j++) {
				const struct a1_js_test *Q = &post->tests[j];
				if (taken[j] || Q->hook != P->hook || index_get(&ipre, Q->name) >= 0)
					continue;
				if (pass == 0 ? !strcmp(leaf_name(P->name), leaf_name(Q->name)) &&
						    superset(&Q->facts, &P->facts)
				    : pass == 1 ? P->facts.n > 0 && superset(&Q->facts, &P->facts)
						: rows_rename(post, P, Q, rt)) {
					match[i] = (long)j;
					taken[j] = 1;
					break;
				}
			}
		}
	for (size_t i = 0; i < pre->ntests; i++) {
		const struct a1_js_test *P = &pre->tests[i];
		if (P->mods & (A1_JS_SKIP | A1_JS_TODO | A1_JS_FAILING))
			continue; /* it asserted nothing that could fail the run */
		if (match[i] < 0 && P->hook) { /* a hook gone: what it asserted, lost or moved */
			struct a1_js_test none = {.name = P->name, .hook = 1};
			compare_tests(pre, post, P, &none, pair_fn, taken, NULL, out);
			continue;
		}
		if (match[i] < 0) {
			char *what = P->facts.n
					 ? xasprintf("%zu assertion(s), first: %s", P->facts.n, P->facts.v[0].form)
					 : xstrdup("a test without assertions");
			a1_finding_add(out, P->name, "test-deleted", "FAIL", NULL, what, NULL);
			free(what);
			continue;
		}
		const struct a1_js_test *Q = &post->tests[match[i]];
		if (P->lazy || Q->lazy)
			continue; /* a unit unwalked on either side is the same bytes in the same context on
				   * both (Java's lazy reading, a1_java_facts.c) */
		if (Q->mods & (A1_JS_SKIP | A1_JS_TODO)) {
			a1_finding_add(out, P->name, "test-skipped", "FAIL", NULL, "runs",
				Q->mods & A1_JS_SKIP ? "skipped" : "todo");
			continue;
		}
		if (Q->mods & A1_JS_FAILING) {
			a1_finding_add(out, P->name, "expected-failure-added", "FAIL", NULL, "must pass", "expected to fail");
			continue;
		}
		if ((Q->mods & A1_JS_SKIPQ) && !(P->mods & A1_JS_SKIPQ))
			a1_finding_add(out, P->name, "conditional-skip-added", "UNVERIFIED", UNDECIDABLE, "runs",
				       "skipped when a condition not known here holds");
		compare_tests(pre, post, P, Q, pair_fn, taken, rt, out);
		judge_cases(rt, P, Q, &starts_a, &nstarts_a, &starts_b, &nstarts_b, out);
	}
	/* .only: each site the pre side did not have */
	unsigned char *had = xcalloc(pre->nfocus + 1, 1);
	for (size_t j = 0; j < post->nfocus; j++) {
		size_t i;
		for (i = 0; i < pre->nfocus; i++)
			if (!had[i] && !strcmp(pre->focus[i].name, post->focus[j].name) &&
			    !strcmp(pre->focus[i].text, post->focus[j].text))
				break;
		if (i < pre->nfocus) {
			had[i] = 1;
			continue;
		}
		a1_finding_add(out, post->focus[j].name, "focus-added", "FAIL", NULL, NULL, post->focus[j].text);
	}
	free(had);
	/* mocks of the unit under test */
	char *stem = unit_stem(path);
	for (size_t j = 0; *stem && j < post->nmocks; j++) {
		char *ms = spec_stem(post->mocks[j].name);
		int unit = !strcmp(ms, stem);
		free(ms);
		if (!unit)
			continue;
		size_t i;
		for (i = 0; i < pre->nmocks; i++)
			if (!strcmp(pre->mocks[i].name, post->mocks[j].name))
				break;
		if (i == pre->nmocks)
			a1_finding_add(out, NULL, "unit-under-test-mocked", "FAIL", NULL, NULL, post->mocks[j].text);
	}
	free(stem);
	free(starts_a);
	free(starts_b);
	free(match);
	free(taken);
	free(ipre.slot);
	free(ipost.slot);
}

static void refused(cJSON *out, const struct a1_js_side *s, const char *side)
{
	char *what = xasprintf("%s: %s", side, s->why ? s->why : "not read");
	int deep = s->status == A1_JS_UNDECIDABLE;
	int pre = !strcmp(side, "pre");
	a1_finding_add(out, NULL, deep ? "too-deeply-nested" : "unparseable-source", "UNVERIFIED",
		deep ? UNDECIDABLE : UNREADABLE, pre ? what : NULL, pre ? NULL : what);
	free(what);
}

cJSON *a1_js_judge(enum a1_js_dialect d, const char *path, const char *pre, size_t pre_len, const char *post,
		   size_t post_len)
{
	cJSON *out = cJSON_CreateArray();
	if (!out)
		FATAL("out of memory");
	if (d == A1_JS_NONE)
		d = a1_js_dialect(path);
	if (d == A1_JS_NONE) {
		a1_finding_add(out, NULL, "unparseable-source", "UNVERIFIED", UNREADABLE, NULL,
			"not a JavaScript or TypeScript file name");
		return out;
	}
	struct a1_js_side a = {0}, b = {0};
	a1_js_extract_pair(d, pre, pre_len, post, post_len, &a, &b);
	if (a.status)
		refused(out, &a, "pre");
	if (b.status)
		refused(out, &b, "post");
	if (!a.status && !b.status) {
		struct a1_rows_text rt = {post, post_len, NULL, 1, pre, pre_len};
		compare(&a, &b, path, judge_pair, &rt, out);
		a1_rows_text_done(&rt);
	}
	a1_js_side_free(&a);
	a1_js_side_free(&b);
	return out;
}

int a1_js_count(enum a1_js_dialect d, const char *text, size_t len, int *tests, int *assertions)
{
	struct a1_js_side s = {0};
	*tests = *assertions = 0;
	if (a1_js_extract(d, text ? text : "", text ? len : 0, &s)) {
		a1_js_side_free(&s);
		return BELAY_EINVAL;
	}
	size_t n = 0, nt = 0;
	for (size_t i = 0; i < s.ntests; i++) {
		n += s.tests[i].facts.n;
		nt += !s.tests[i].hook;
	}
	for (size_t i = 0; i < s.nfuncs; i++)
		n += s.funcs[i].facts.n;
	*tests = nt > 0x7fffffff ? 0x7fffffff : (int)nt;
	*assertions = n > 0x7fffffff ? 0x7fffffff : (int)n;
	a1_js_side_free(&s);
	return 0;
}

/* ---- shared with the other judges on these facts (a1_js_facts.h) ---- */

void a1_js_compare(const struct a1_js_side *pre, const struct a1_js_side *post, const char *path,
		   a1_js_pair_fn pair_fn, cJSON *out)
{
	compare(pre, post, path, pair_fn, NULL, out);
}

void a1_js_compare_rows(const struct a1_js_side *pre, const struct a1_js_side *post, const char *path,
			a1_js_pair_fn pair_fn, const char *text, size_t len, cJSON *out)
{
	struct a1_rows_text rt = {text, len, NULL};
	compare(pre, post, path, pair_fn, &rt, out);
	a1_rows_text_done(&rt);
}
