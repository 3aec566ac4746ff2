/* a1_java.c - A1's judge of Java test files (a1_java.h): the two sides' facts
 * (a1_java_facts.c) compared by the JavaScript judge's rules (a1_js_compare), each pair of
 * assertions by Java's matchers (judge_pair below); then what only Java has - a test that
 * lost its @Test but is still a method, and conditions added to a test that ran.
 *
 * Threads: any (no globals). Must not: print, keep state between calls, judge a side it
 * could not read (that is an UNVERIFIED finding, never a PASS). */
#include "assertions/a1_java.h"
#include "assertions/a1_finding.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "assertions/a1_cache.h"
#include "assertions/a1_java_facts.h"
#include "common/err.h"
#include "common/strmap.h"
#include "common/xalloc.h"

int a1_java_is_source(const char *path)
{
	size_t n = path ? strlen(path) : 0;
	return n > 5 && !strcasecmp(path + n - 5, ".java");
}

static int str_in(const char *s, const char *const *set)
{
	for (; *set; set++)
		if (!strcmp(s, *set))
			return 1;
	return 0;
}

static int eq(const char *a, const char *b)
{
	return a && b && !strcmp(a, b);
}

/* A matcher read for comparison: its positive form and whether it was negated. */
struct norm {
	char base[96];
	int neg;
	int lenient; /* an AssertJ ignoring...() step before it */
};

static void normalize(const char *m, struct norm *o)
{
	static const char *const pos[][2] = {
	    {"assertNotEquals", "assertEquals"}, {"assertFalse", "assertTrue"},	 {"assertNotNull", "assertNull"},
	    {"assertNotSame", "assertSame"},	 {"isNotEqualTo", "isEqualTo"},	 {"isFalse", "isTrue"},
	    {"isNotNull", "isNull"},		 {"isNotSameAs", "isSameAs"},	 {"doesNotContain", "contains"},
	    {"isNotEmpty", "isEmpty"},		 {"isNotIn", "isIn"},		 {"doesNotMatch", "matches"},
	    {"notNullValue", "nullValue"},	 {"isNotInstanceOf", "isInstanceOf"}, {"isNotBlank", "isBlank"},
	    {"doesNotHaveSameClassAs", "hasSameClassAs"}, {"isNotZero", "isZero"}, {"isNotPresent", "isPresent"},
	    {"isEmpty", "isPresent"}};
	o->neg = o->lenient = 0;
	if (!strncmp(m, "ignoring.", 9)) {
		o->lenient = 1;
		m += 9;
	}
	while (!strncmp(m, "not.", 4)) {
		o->neg ^= 1;
		m += 4;
	}
	snprintf(o->base, sizeof o->base, "%s", m);
	for (size_t i = 0; i < sizeof pos / sizeof *pos; i++)
		if (!strcmp(o->base, pos[i][0])) {
			snprintf(o->base, sizeof o->base, "%s", pos[i][1]);
			o->neg ^= 1;
			break;
		}
}

enum { M_OTHER, M_EXACT, M_LOOSE };

static int strength(const struct norm *n)
{
	static const char *const exact[] = {
	    "assertEquals", "assertArrayEquals", "assertIterableEquals", "assertLinesMatch", "assertSame", "assertNull",
	    "assertTrue", "assertThrows", "assertThrowsExactly", "fail", "expected", "isEqualTo", "isSameAs", "isNull",
	    "isTrue", "containsExactly", "containsExactlyInAnyOrder", "containsOnly", "hasSize", "isEmpty",
	    "hasMessage", "isExactlyInstanceOf", "isEqualByComparingTo", "isCloseTo", "isThrownBy", "isZero",
	    "isBlank", "is", "equalTo", "sameInstance", "nullValue", "contains", "containsInAnyOrder", "closeTo",
	    "arrayContaining", "hasLength", "isEqualToIgnoringCase", "containsEntry", "isPresent", "hasValue",
	    "==", "===", /* a boolean comparison asserted true (a1_java_facts.c) */
	    NULL};
	static const char *const loose[] = {
	    "anything", "isInstanceOf", "instanceOf", "any", "containsString", "startsWith", "endsWith", "hasItem",
	    "hasItems", "greaterThan", "lessThan", "greaterThanOrEqualTo", "lessThanOrEqualTo", "isGreaterThan",
	    "isLessThan", "isGreaterThanOrEqualTo", "isLessThanOrEqualTo", "isPositive", "isNegative", "matches",
	    "containsPattern", "hasSizeGreaterThan", "hasSizeLessThan", "assertDoesNotThrow", "isNotNegative",
	    "hasMessageContaining", "isInstanceOfAny", "doesNotThrowAnyException", "isPositive", "anyOf", "either",
	    "isIn", "isOneOf", "isInstanceOf", "assertInstanceOf", "assertIs", "or", "", ">=", ">", "<=", "<", "!=", "!==",
	    "||", NULL};
	if (n->neg)
		return M_LOOSE;
	if (str_in(n->base, exact))
		return M_EXACT;
	if (str_in(n->base, loose))
		return M_LOOSE;
	return M_OTHER;
}

/* A check that an exception of a class is thrown. */
static int throws_check(const struct norm *n)
{
	static const char *const throwers[] = {"assertThrows", "assertThrowsExactly", "expected", "isInstanceOf",
					       "isExactlyInstanceOf", "isThrownBy", "instanceOf", "assertInstanceOf",
					       NULL};
	return str_in(n->base, throwers);
}

/* An exception class a check expects is a catch-all. */
static int wide_class(const char *c)
{
	static const char *const wide[] = {"Exception.class", "Throwable.class", "RuntimeException.class",
					   "Error.class", "java.lang.Exception.class", "java.lang.Throwable.class",
					   "java.lang.RuntimeException.class", "Object.class", NULL};
	return c && str_in(c, wide);
}

/* The tolerance of a comparison with one: assertEquals(a, b, delta), isCloseTo(a, within(d)),
 * closeTo(a, d) - what follows the expected value, its first number. 0 when there is none. */
static int tolerance(const struct a1_js_fact *f, double *t)
{
	static const char *const with[] = {"assertEquals", "assertArrayEquals", "isCloseTo", "closeTo", "isNotCloseTo", NULL};
	size_t k = f->exp1 ? strlen(f->exp1) : 0;
	if (!f->expected || !f->exp1 || !str_in(f->matcher, with) || strncmp(f->expected, f->exp1, k) ||
	    f->expected[k] != ',')
		return 0;
	const char *p = f->expected + k + 1;
	while (*p && !((*p >= '0' && *p <= '9') || *p == '.'))
		p++;
	char *end;
	*t = strtod(p, &end);
	return end != p;
}

/* Java's matchers, for a pair a1_js_compare passes on (forms differ, the subject is the same). */
static const char *judge_pair(const struct a1_js_fact *p, const struct a1_js_fact *q, const char **status)
{
	*status = "FAIL";
	struct norm pn, qn;
	normalize(p->matcher, &pn);
	normalize(q->matcher, &qn);
	if (!strcmp(pn.base, qn.base) && pn.neg != qn.neg)
		return "assertion-negated";
	if (qn.lenient && !pn.lenient)
		return "matcher-loosened"; /* usingRecursiveComparison().ignoringFields(..) added */
	if (!strcmp(pn.base, qn.base) && throws_check(&pn) && !eq(p->exp1, q->exp1)) {
		if (wide_class(q->exp1))
			return "throws-broadened";
		if (wide_class(p->exp1))
			return NULL; /* narrowed to a specific class */
	}
	int ps = strength(&pn), qs = strength(&qn);
	if (ps == M_EXACT && qs == M_LOOSE)
		return "matcher-loosened";
	static const char *const to_loose[][2] = {{"assertThrowsExactly", "assertThrows"},
						  {"isExactlyInstanceOf", "isInstanceOf"},
						  {"containsExactly", "contains"},
						  {"containsExactly", "containsExactlyInAnyOrder"},
						  {"containsExactly", "containsOnly"},
						  {"isEqualTo", "isEqualToIgnoringCase"},
						  {"contains", "containsInAnyOrder"},
						  {"hasMessage", "hasMessageContaining"}};
	if (pn.neg == qn.neg)
		for (size_t i = 0; i < sizeof to_loose / sizeof *to_loose; i++)
			if (!strcmp(pn.base, to_loose[i][0]) && !strcmp(qn.base, to_loose[i][1]))
				return "matcher-loosened";
	if (strcmp(p->matcher, q->matcher) || p->kind != q->kind || eq(p->expected, q->expected) || !p->expected)
		return NULL;
	double tp, tq;
	if (eq(p->exp1, q->exp1) && tolerance(p, &tp) && tolerance(q, &tq))
		return tq > tp ? "tolerance-widened" : NULL; /* narrowed: stricter */
	*status = "WARN";
	return "expected-value-changed";
}

/* ---- what only Java has ---- */

static int has_name(const struct a1_js_names *l, const char *s)
{
	for (size_t i = 0; i < l->n; i++)
		if (!strcmp(l->v[i], s))
			return 1;
	return 0;
}

static long test_index(const struct a1_js_side *s, const char *name)
{
	for (size_t i = 0; i < s->ntests; i++)
		if (!strcmp(s->tests[i].name, name))
			return (long)i;
	return -1;
}

/* A test deleted whose method is still there without @Test is not collected any more. */
static void annotation_removed(const struct a1_java_side *post, cJSON *out)
{
	cJSON *f;
	cJSON_ArrayForEach(f, out)
	{
		const char *what = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(f, "finding"));
		const char *fn = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(f, "function"));
		if (what && fn && !strcmp(what, "test-deleted") && has_name(&post->methods, fn)) {
			cJSON_ReplaceItemInObjectCaseSensitive(f, "finding", cJSON_CreateString("test-annotation-removed"));
			cJSON_ReplaceItemInObjectCaseSensitive(f, "post", cJSON_CreateString("a method without @Test"));
		}
	}
}

static const struct a1_js_site *site_named(const struct a1_js_site *v, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (eq(v[i].name, name))
			return &v[i];
	return NULL;
}

/* A test deleted or unannotated whose method is still there, but in a form JUnit does not run
 * (private, static, returning a value, in an inner class without @Nested): not collected. */
static void not_collected(const struct a1_java_side *post, cJSON *out)
{
	cJSON *f;
	cJSON_ArrayForEach(f, out)
	{
		const char *what = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(f, "finding"));
		const char *fn = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(f, "function"));
		const struct a1_js_site *d = fn ? site_named(post->dropped, post->ndropped, fn) : NULL;
		if (what && d && d->text && (!strcmp(what, "test-deleted") || !strcmp(what, "test-annotation-removed"))) {
			cJSON_ReplaceItemInObjectCaseSensitive(f, "finding", cJSON_CreateString("test-not-collected"));
			cJSON_ReplaceItemInObjectCaseSensitive(f, "post", cJSON_CreateString(d->text));
		}
	}
}

/* A parameterized test's rows (a1_java_side.rows), pre against post by name: fewer rows than
 * before is a test case removed (FAIL); as many, some of them other, is another expected value
 * (WARN: the specification may have changed, a person decides). */
static int cmp_text(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* name -> index of each test of a side, and of the first row of each run of rows (a test's rows
 * are contiguous: read in one go). */
static void index_tests(const struct a1_java_side *j, struct strmap *tests, struct strmap *runs)
{
	strmap_init(tests);
	strmap_init(runs);
	for (size_t i = 0; i < j->s.ntests; i++)
		strmap_put(tests, j->s.tests[i].name, (int64_t)i);
	for (size_t i = 0; i < j->nrows; i++)
		if (j->rows[i].name && j->rows[i].text && (i == 0 || !eq(j->rows[i - 1].name, j->rows[i].name)))
			strmap_put(runs, j->rows[i].name, (int64_t)i);
}

/* The texts of the run of rows from `start` (new array of *n pointers into j, sorted). */
static const char **run_texts(const struct a1_java_side *j, size_t start, size_t *n)
{
	size_t e = start;
	while (e < j->nrows && j->rows[e].text && eq(j->rows[e].name, j->rows[start].name))
		e++;
	const char **v = xmalloc((e - start + 1) * sizeof *v);
	for (size_t i = start; i < e; i++)
		v[i - start] = j->rows[i].text;
	*n = e - start;
	qsort(v, *n, sizeof *v, cmp_text);
	return v;
}

static void rows_changed(const struct a1_java_side *pre, const struct a1_java_side *post, cJSON *out)
{
	struct strmap pt, pr, qt, qr;
	index_tests(pre, &pt, &pr);
	index_tests(post, &qt, &qr);
	for (size_t i = 0; i < pre->nrows; i++) {
		const char *test = pre->rows[i].name;
		int64_t start, t, u, q0 = -1;
		if (!test || !pre->rows[i].text || !strmap_get(&pr, test, &start) || (size_t)start != i)
			continue; /* not the first row of its run */
		if (!strmap_get(&pt, test, &t) || !strmap_get(&qt, test, &u) || (pre->s.tests[t].mods & A1_JS_SKIP) ||
		    (post->s.tests[u].mods & A1_JS_SKIP))
			continue; /* deleted, skipped, renamed: judged as such */
		size_t na, nb = 0;
		const char **a = run_texts(pre, i, &na), **b = NULL;
		if (strmap_get(&qr, test, &q0))
			b = run_texts(post, (size_t)q0, &nb);
		size_t removed = 0, added = 0, x = 0, y = 0;
		const char *first = NULL;
		while (x < na || y < nb) { /* a merge of the two sorted multisets */
			int c = x == na ? 1 : y == nb ? -1 : strcmp(a[x], b[y]);
			if (c < 0) {
				first = first ? first : a[x];
				removed++, x++;
			} else if (c > 0) {
				added++, y++;
			} else {
				x++, y++;
			}
		}
		if (removed) {
			char *what = xasprintf("%zu row(s) gone, first: %s", removed, first);
			char *now = xasprintf("%zu row(s) new", added);
			if (removed > added)
				a1_finding_add(out, test, "test-case-removed", "FAIL", NULL, what, now);
			else
				a1_finding_add(out, test, "expected-value-changed", "WARN", NULL, what, now);
			free(what);
			free(now);
		}
		free(a);
		free(b);
	}
	strmap_free(&pt);
	strmap_free(&pr);
	strmap_free(&qt);
	strmap_free(&qr);
}

/* The pre test a post test `name` may have been renamed from with its class: the same method
 * name, in a class of another name, gone from the post side. -1: none. */
static long renamed_from(const struct a1_java_side *pre, const struct a1_java_side *post, const char *name)
{
	const char *leaf = strchr(name, '.');
	for (size_t i = 0; leaf && i < pre->s.ntests; i++) {
		const char *p = strchr(pre->s.tests[i].name, '.');
		if (p && !strcmp(p, leaf) && test_index(&post->s, pre->s.tests[i].name) < 0)
			return (long)i;
	}
	return -1;
}

/* 1 when a live assertion of `facts` has the form `text` ("only when|unless <cond>: <form>")
 * ends with. */
static int made_unconditionally(const struct a1_js_facts *facts, const char *text)
{
	size_t L = strlen(text);
	for (size_t i = 0; i < facts->n; i++) {
		const struct a1_js_fact *f = &facts->v[i];
		size_t k = strlen(f->form);
		if (!f->dead && !f->swallowed && !f->taut && L > k + 2 && !strcmp(text + L - k, f->form) &&
		    !memcmp(text + L - k - 2, ": ", 2))
			return 1;
	}
	return 0;
}

/* Each condition the post side puts on a test the pre side ran unconditionally. */
static void conditions_added(const struct a1_java_side *pre, const struct a1_java_side *post, cJSON *out)
{
	for (size_t j = 0; j < post->nconds; j++) {
		const struct a1_js_site *c = &post->conds[j];
		long t = test_index(&pre->s, c->name), u = test_index(&post->s, c->name);
		if (t < 0 && !strcmp(c->text, A1_JVM_SUREFIRE_COND))
			t = renamed_from(pre, post, c->name); /* its class renamed out of Surefire's names */
		if (t < 0 || (pre->s.tests[t].mods & A1_JS_SKIP) || (u >= 0 && (post->s.tests[u].mods & A1_JS_SKIP)))
			continue;
		const char *name = pre->s.tests[t].name;
		if ((!strncmp(c->text, A1_JVM_ONLY_WHEN " ", strlen(A1_JVM_ONLY_WHEN) + 1) ||
		     !strncmp(c->text, A1_JVM_ONLY_UNLESS " ", strlen(A1_JVM_ONLY_UNLESS) + 1)) &&
		    !made_unconditionally(&pre->s.tests[t].facts, c->text))
			continue; /* a new assertion under an `if`: nothing the pre test asserted is made conditional */
		size_t i;
		for (i = 0; i < pre->nconds; i++)
			if (!strcmp(pre->conds[i].name, name) && !strcmp(pre->conds[i].text, c->text))
				break;
		if (i == pre->nconds)
			a1_finding_add(out, name, "conditional-skip-added", "UNVERIFIED", "ASSERTION_UNDECIDABLE", NULL,
				      c->text);
	}
}

static void refused(cJSON *out, const struct a1_js_side *s, int pre)
{
	char *what = xasprintf("%s: %s", pre ? "pre" : "post", s->why ? s->why : "not read");
	int deep = s->status == A1_JS_UNDECIDABLE, bounded = s->status == A1_JS_BOUNDED;
	a1_finding_add(out, NULL, deep ? "too-deeply-nested" : bounded ? "parse-bounded" : "unparseable-source",
		      "UNVERIFIED", deep ? "ASSERTION_UNDECIDABLE" : "ASSERTION_FILE_UNREADABLE", pre ? what : NULL,
		      pre ? NULL : what);
	free(what);
}

static cJSON *judge_sides(const char *path, const struct a1_java_side *a, const struct a1_java_side *b, size_t pre_len,
			  const char *post, size_t post_len, int need_tests)
{
	cJSON *out = cJSON_CreateArray();
	if (!out)
		FATAL("out of memory");
	if (a->s.status)
		refused(out, &a->s, 1);
	if (b->s.status)
		refused(out, &b->s, 0);
	if (!a->s.status && !b->s.status) {
		a1_js_compare_rows(&a->s, &b->s, path, judge_pair, post, post_len, out);
		annotation_removed(b, out);
		not_collected(b, out);
		conditions_added(a, b, out);
		rows_changed(a, b, out);
		if (!a->s.ntests && !b->s.ntests && !cJSON_GetArraySize(out) && (pre_len || post_len) && need_tests)
			a1_finding_add(out, NULL, "no-tests-read", "UNVERIFIED", "ASSERTION_UNDECIDABLE", NULL,
				      "no test this judge reads on either side (another framework's style?)");
	}
	return out;
}

cJSON *a1_jvm_judge(const char *path, const char *pre, size_t pre_len, const char *post, size_t post_len,
		    a1_jvm_pair_fn extract_pair, int need_tests)
{
	struct a1_java_side a = {0}, b = {0};
	extract_pair(pre, pre_len, post, post_len, &a, &b);
	cJSON *out = judge_sides(path, &a, &b, pre_len, post, post_len, need_tests);
	a1_java_side_free(&a);
	a1_java_side_free(&b);
	return out;
}

cJSON *a1_java_judge(const char *path, const char *pre, size_t pre_len, const char *post, size_t post_len)
{
	const struct a1_java_side *a, *b;
	struct a1_cache_ref *ra, *rb;
	a1_java_read_pair_cached(pre, pre_len, post, post_len, &a, &b, &ra, &rb);
	cJSON *out = judge_sides(path, a, b, pre_len, post, post_len, 0);
	a1_cache_release(ra);
	a1_cache_release(rb);
	return out;
}

int a1_jvm_count(const char *text, size_t len, int *tests, int *assertions, a1_jvm_extract_fn extract)
{
	struct a1_java_side s = {0};
	*tests = *assertions = 0;
	if (extract(text, len, &s)) {
		a1_java_side_free(&s);
		return BELAY_EINVAL;
	}
	size_t n = 0;
	for (size_t i = 0; i < s.s.ntests; i++)
		n += s.s.tests[i].facts.n;
	for (size_t i = 0; i < s.s.nfuncs; i++)
		n += s.s.funcs[i].facts.n;
	*tests = s.s.ntests > 0x7fffffff ? 0x7fffffff : (int)s.s.ntests;
	*assertions = n > 0x7fffffff ? 0x7fffffff : (int)n;
	a1_java_side_free(&s);
	return 0;
}

int a1_java_count(const char *text, size_t len, int *tests, int *assertions)
{
	return a1_jvm_count(text, len, tests, assertions, a1_java_extract);
}
