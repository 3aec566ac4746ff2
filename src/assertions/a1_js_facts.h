/* a1_js_facts.h - the facts a1_js.c compares, read from one side of a JavaScript or
 * TypeScript test file by a1_js_facts.c (internal to the two; a1_js.h is the contract).
 *
 * A side is its tests (name path, modifiers, assertion facts, the names it calls) and hooks, the
 * functions defined outside tests (helpers: their facts and calls), the `.only` sites and the
 * modules it mocks. A fact's strings are canonical: the leaf tokens of its node, comments
 * and `;` dropped, quotes unified, a trailing comma dropped, a space only between two word
 * or two operator tokens - formatting and quote style never change them.
 * Threads: any (no globals). */
#ifndef BELAY_ASSERTIONS_A1_JS_FACTS_H
#define BELAY_ASSERTIONS_A1_JS_FACTS_H
#include <stddef.h>

#include <cjson/cJSON.h>

#include "assertions/a1_js.h"

/* A1_JS_SKIPQ: skipped or not by a condition not known here (skipIf / runIf of an expression). */
enum { A1_JS_SKIP = 1, A1_JS_TODO = 2, A1_JS_ONLY = 4, A1_JS_FAILING = 8, A1_JS_SKIPQ = 16 };

enum a1_js_kind {
	A1_JS_K_EXPECT, /* expect(x)... (jest, vitest, jasmine, chai), x.should..., should(x)... */
	A1_JS_K_ASSERT, /* assert(x), assert.X(...), assert.strict.X(...), sinon.assert.X(...) */
	A1_JS_K_T,	/* t.X(...) on a test's callback parameter (ava, tap, node:test) */
	A1_JS_K_COUNT,	/* expect.assertions(n), expect.hasAssertions(), t.plan(n) */
};

struct a1_js_fact {
	char *form;	/* the whole assertion */
	char *subject;	/* expect()'s / assert's first argument; NULL for none */
	char *matcher;	/* "toBe", "not.toBe", "to.be.true", "strictEqual", "is" */
	char *expected; /* the matcher's arguments (assert / t: the one after the subject); NULL for none */
	char *exp1;	/* the first expected argument; NULL for none */
	int digits;	/* toBeCloseTo's precision (2 when not given), else -1 */
	unsigned kind;
	unsigned line;		 /* from 1 */
	unsigned char dead;	 /* after a return / throw, in a dead branch */
	unsigned char swallowed; /* in a try whose catch swallows failures; under .catch(() => {}) */
	unsigned char taut;	 /* a tautology: a literal subject, x against itself, t.pass() */
};

struct a1_js_facts {
	struct a1_js_fact *v;
	size_t n, cap;
};

struct a1_js_names {
	char **v;
	size_t n, cap;
};

struct a1_js_test {
	char *name;    /* "calc > add" (a repeated path gets " #2", " #3"); a hook: "calc > (beforeEach hook)" */
	unsigned mods; /* A1_JS_*: its own and its describes' */
	unsigned line;
	int hook;      /* the before / after / beforeEach / afterEach / beforeAll / afterAll hooks of one
			* describe block (or of the file), one entry per kind, their assertions together */
	struct a1_js_facts facts;
	struct a1_js_names calls; /* names of what it calls: f(...), x.f(...) -> "f" */
	unsigned char lazy; /* not walked (Java's lazy reading: byte-identical on both sides): name,
			     * mods, line and annotations' facts only; a1_js_compare skips a lazy pair */
};

struct a1_js_func {
	char *name;
	struct a1_js_facts facts;
	struct a1_js_names calls;
	unsigned char lazy; /* not walked (see a1_js_test): no facts, no calls */
};

struct a1_js_site {
	char *name; /* focus: the name path of the test or describe; mock: the module specifier */
	char *text; /* what to show: "it.only", "jest.mock(\"./calc\")" */
	unsigned line;
};

/* A1_JS_BOUNDED: not read because its reading was stopped at a bound of memory or time
 * (a1_bound.h; Kotlin). */
enum { A1_JS_OK = 0, A1_JS_UNREADABLE, A1_JS_UNDECIDABLE, A1_JS_BOUNDED };

struct a1_js_side {
	struct a1_js_test *tests;
	size_t ntests, captests;
	struct a1_js_func *funcs;
	size_t nfuncs, capfuncs;
	struct a1_js_site *focus, *mocks;
	size_t nfocus, capfocus, nmocks, capmocks;
	int status; /* A1_JS_OK, or why the side was not read */
	char *why;  /* "line L, column C: ..." when status is not A1_JS_OK */
};

/* Reads `text` (not NUL-terminated; NULL = an empty side) into *s (zeroed by the caller).
 * Returns s->status. */
int a1_js_extract(enum a1_js_dialect d, const char *text, size_t len, struct a1_js_side *s);
/* Both sides of one file into *a and *b (zeroed by the caller): the post side is parsed
 * incrementally against the pre side's tree, edited by the bytes that differ (most edits are
 * local, so most of the post side is not parsed again). The first non-zero status. */
int a1_js_extract_pair(enum a1_js_dialect d, const char *pre, size_t pre_len, const char *post, size_t post_len,
		       struct a1_js_side *a, struct a1_js_side *b);
void a1_js_side_free(struct a1_js_side *s);

/* ---- the comparison, shared with the judges of other languages that read into these facts
 * (a1_java.c) ---- */

/* The finding for a pair of assertions on the same subject whose forms differ, the post one
 * reachable, not swallowed and no tautology (a1_js_compare has judged those); NULL: none.
 * *status gets "FAIL" or "WARN". Pure. */
typedef const char *(*a1_js_pair_fn)(const struct a1_js_fact *pre, const struct a1_js_fact *post,
				     const char **status);

/* Compares two sides test by test (a1_js.h's rules: pairing by name path, renames, skipped,
 * deleted, removed, helpers), each pair of assertions judged by `judge_pair`; findings are
 * appended to `out` in a1_js_judge's shape. `path` names the file (its stem is the unit whose
 * mocks are judged). */
void a1_js_compare(const struct a1_js_side *pre, const struct a1_js_side *post, const char *path,
		   a1_js_pair_fn pair_fn, cJSON *out);
/* a1_js_compare with the post side's text: assertions generalised into one fed by rows (a
 * parameterized test's, a helper's calls) are no assertions removed (a1_rows.h). */
void a1_js_compare_rows(const struct a1_js_side *pre, const struct a1_js_side *post, const char *path,
			a1_js_pair_fn pair_fn, const char *text, size_t len, cJSON *out);


/* Marks side s refused (status: why it cannot be judged) at line:col, the first refusal
 * only: s->why = "line L, column C: <fmt...>". */
void a1_js_side_refuse(struct a1_js_side *s, int status, unsigned line, unsigned col, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));

#endif
