/* a1_rows.h - A1's table rule (issue 32): N concrete assertions of a test generalised into ONE
 * assertion fed by rows - a Go table and its loop, a Rust `for (a, b, want) in [...]`, a JUnit
 * @ParameterizedTest with @CsvSource, a helper `check(a, b, want)` called once per case - are
 * no assertions removed; so are pytest parametrize / a subTest loop (a1_py.c, by byte spans)
 * and JavaScript's test.each / a for-of loop (a1_rows_js, a test's body its callback's). Pure
 * functions over the post side's text and the facts' strings; the judges (a1_lang.c's
 * compare_facts, a1_js.c's compare_tests, a1_py.c's decide) ask it about each pre assertion
 * left unpaired. docs/VERDICTS.md "no-assertion-weakening" states the rule, what it proves and
 * what it cannot see.
 *
 * A pre assertion P is covered by a generalised post assertion G (and one row) when:
 *  1. G is of P's matcher family and parameterised: its expected operand names a variable
 *     (`c.want`, `want`; with no expected operand, its subject does) - `got != 4` is one case,
 *     not a generalisation; the caller hands in only live, non-tautological facts of the post
 *     test and of the helpers it reaches;
 *  2. the function P's subject calls (the last part of its name: `Calc.add(1, 2)` -> `add`) is
 *     called in G's form or in the text of the function holding G (Go's `got := Add(c.a, c.b)`);
 *  3. P's literal operands (numbers, strings, characters, true / false / nil / null), as a
 *     multiset, are in ONE row not yet spent: a bracketed group `{..}` `[..]` `(..)` whose
 *     top-level items are all literals (`key: literal` too) - in the post test's own text (its
 *     annotations included) or outside every function of the file, never in another function;
 *     `(..)` only as a tuple or the arguments of `of` / `Pair` / `Triple` / a helper holding G;
 *     a string of @CsvSource (its comma-separated values); each value of @ValueSource.
 *     A row covers one pre assertion: two that need different rows need two rows.
 *
 * Work is bounded: one side's tests together read at most 64 MiB (text scanned, items
 * compared); past that nothing more is covered (the finding stands, as before this rule).
 *
 * Threads: any (no globals). Memory: a1_rows_new copies nothing it is given - the text and
 * strings must outlive the object; a1_rows_free frees it. Failure: none (a text it cannot read
 * gives no rows: nothing covered). */
#ifndef BELAY_ASSERTIONS_A1_ROWS_H
#define BELAY_ASSERTIONS_A1_ROWS_H
#include <stddef.h>

/* An assertion as the judges hold it. `holder`: the helper holding it (its name), NULL for the
 * test itself. */
struct a1_rows_fact {
	const char *form, *subject, *matcher, *expected;
	const char *holder;
};

/* A function of the post side other than the test: its name ("Class.m", "tests::f": the last
 * part is used) and first line (1-based; 0 = not known: found by its declaration). */
struct a1_rows_func {
	const char *name;
	unsigned line;
};

/* The post test: the side's text, the test's first line (its annotations / attributes may come
 * before its signature), the side's other functions. */
struct a1_rows_test {
	const char *text;
	size_t len;
	unsigned line;
	const struct a1_rows_func *funcs;
	size_t nfuncs;
};

struct a1_rows;

/* The rows the post test `t` reads and its candidate generalised assertions g[0..ng) (live and
 * no tautology: the caller filters). Never NULL. */
struct a1_rows *a1_rows_new(const struct a1_rows_test *t, const struct a1_rows_fact *g, size_t ng);

/* The index in g of the assertion that covers the pre assertion `p` (the row it used is spent),
 * or -1. */
long a1_rows_cover(struct a1_rows *r, const struct a1_rows_fact *p);

void a1_rows_free(struct a1_rows *r);

/* What is read of a side once for all its tests: where its lines start, its functions' bodies
 * and the rows outside every function. funcs: EVERY function of the side, the tests too
 * (borrowed names). A post side's text for the judges: `ix` NULL at first, built on first use
 * (a1_rows_text_rows), freed by a1_rows_text_done - so each side is read once, not once per
 * test (a file of many tests costs its length, not tests x length). */
struct a1_rows_index;
struct a1_rows_index *a1_rows_index_new(const char *text, size_t len, const struct a1_rows_func *funcs, size_t nfuncs);
void a1_rows_index_free(struct a1_rows_index *ix);
struct a1_rows *a1_rows_new_in(struct a1_rows_index *ix, unsigned line, const struct a1_rows_fact *g, size_t ng);

/* The same for a side whose functions' extents are known (Python: no braces): fn[i] a function's
 * name, first byte (its decorators'), body [a, e). */
struct a1_rows_span {
	const char *name;
	size_t head, a, e;
};
struct a1_rows_index *a1_rows_index_spans(const char *text, size_t len, const struct a1_rows_span *fn, size_t n);
/* The rows of the test t (its head and body) of an index by spans. */
struct a1_rows *a1_rows_new_span(struct a1_rows_index *ix, const struct a1_rows_span *t, const struct a1_rows_fact *g,
				 size_t ng);

struct a1_rows_text {
	const char *text; /* NULL: no rows (nothing covered) */
	size_t len;
	struct a1_rows_index *ix;
	int js;		 /* JavaScript / TypeScript: a test is a call, its body its callback's (not Java, Kotlin) */
	const char *pre; /* js: the pre side's text (an .each table's rows compared), NULL: not */
	size_t pre_len;
};
struct a1_rows *a1_rows_text_rows(struct a1_rows_text *rt, const struct a1_rows_func *funcs, size_t nfuncs, unsigned line,
				  const struct a1_rows_fact *g, size_t ng);
void a1_rows_text_done(struct a1_rows_text *rt);

/* The rows of the head of the JavaScript test call starting at byte `at` (before its callback's
 * body: `test.each([[1, 2, 3], [2, 2, 4]])(..)`), each its items joined by `,`; their count, *out
 * a new array of new strings (NULL when none). */
size_t a1_rows_head(const char *text, size_t len, size_t at, char ***out);

/* The rows of pv[np] that qv[nq] lacks, the two matched as multisets (a test case removed from
 * a table kept on both sides): their indexes into pv in *missing (new, the caller frees; NULL
 * when none), how many returned. Neither list is changed. */
size_t a1_rows_missing(char *const *pv, size_t np, char *const *qv, size_t nq, size_t **missing);
/* Frees n rows and their array (as a1_rows_head returns them; NULL with n 0 is fine). */
void a1_rows_list_free(char **v, size_t n);

/* JavaScript (rt->js, its index built): 1 when `name` - a bare identifier - is bound by the test
 * starting at `line`: a parameter of its callback (`test.each(..)(.., (a, b, want) => ..)`) or
 * a `for (.. of / in ..)`'s binding in its body. Such an expected operand is a row's value: the
 * judge does not pair a concrete check with it by order. */
int a1_rows_js_bound(const struct a1_rows_text *rt, unsigned line, const char *name);

/* ---- the judges' side of it ---- */
struct a1_lang_side;
struct a1_lang_func;
struct a1_lang_fact;
struct a1_js_side;
struct a1_js_test;

/* compare_facts (a1_lang.c): each live pf[i] not yet paired (pair[i] < 0) that a live,
 * non-tautological qf[j] generalises gets pair[i] = j (used[j] set: no later pass pairs it by
 * order). qf: Q's facts, then its helpers' (a1_lang.c's asserted); `rt`: the post side's text. */
void a1_rows_lang(const struct a1_lang_side *post, const struct a1_lang_func *Q, struct a1_rows_text *rt,
		  const struct a1_lang_fact *const *pf, size_t np, const struct a1_lang_fact *const *qf, size_t nq,
		  long *pair, unsigned char *used);

/* compare_tests (a1_js.c): each live p[i] of P not yet paired (pair[i] == -1) that a live
 * assertion of Q or of a helper it reaches (within `depth` calls) generalises gets pair[i] =
 * -2 (covered); one of Q's own so used gets used[j] set. `rt` NULL: nothing covered. */
void a1_rows_js(const struct a1_js_side *post, const struct a1_js_test *P, const struct a1_js_test *Q,
		struct a1_rows_text *rt, int depth, long *pair, unsigned char *used);

#endif
