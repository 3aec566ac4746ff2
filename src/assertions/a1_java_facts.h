/* a1_java_facts.h - one side of a Java test file read into the facts a1_js_facts.h describes,
 * plus what only Java has (internal to a1_java.c and a1_java_facts.c; a1_java.h is the
 * contract). Fact kinds: A1_JS_K_ASSERT for JUnit's assertX / fail and @Test(expected),
 * A1_JS_K_EXPECT for AssertJ / Truth chains, A1_JS_K_T for Hamcrest's assertThat(x, matcher)
 * (its matcher "is", "not.equalTo", the wrapping is(...) of a matcher dropped). Strings are
 * canonical: leaf tokens, comments dropped, a space only between two word tokens.
 * Threads: any (no globals). */
#ifndef BELAY_ASSERTIONS_A1_JAVA_FACTS_H
#define BELAY_ASSERTIONS_A1_JAVA_FACTS_H
#include <stddef.h>
#include <tree_sitter/api.h>

#include "assertions/a1_java.h"
#include "assertions/a1_js_facts.h"
#include "common/buf.h"
#include "common/strmap.h"

struct a1_java_side {
	struct a1_js_side s;	     /* tests, helpers (by simple name), status */
	struct a1_js_site *conds;    /* conditional skips: name = test path, text = the condition */
	size_t nconds, capconds;
	struct a1_js_names methods; /* "Class.method" of every method that is not a test */
	struct a1_js_site *dropped; /* tests JUnit does not run (private, static, a value returned, an
				     * inner class without @Nested): name = "Class.method", text = why;
				     * each is read as a helper of s.funcs */
	size_t ndropped, capdropped;
	struct a1_js_site *rows; /* a parameterized test's rows (@ValueSource, @CsvSource ...): name =
				  * the test, text = one row ("ints:3"; another source whole) */
	size_t nrows, caprows;
	struct strmap test_names; /* every test's name (an overload numbered without a scan) */
	int partial; /* some test or helper is lazy: not the whole side (a1_cache.h holds it for its tree) */
	int shallow; /* a lazy reading found no method of it too deep to leave unwalked (remembered with it) */
};

/* Reads `text` (not NUL-terminated; NULL = an empty side) into *s (zeroed by the caller).
 * Returns s->s.status (A1_JS_OK, A1_JS_UNREADABLE, A1_JS_UNDECIDABLE). */
int a1_java_extract(const char *text, size_t len, struct a1_java_side *s);
void a1_java_side_free(struct a1_java_side *s);

/* Both sides into *a and *b (zeroed by the caller): the post side parsed incrementally against
 * the pre side's tree, edited by the bytes that differ (most edits are local, so most of the
 * post side is not parsed again). */
void a1_java_extract_pair(const char *pre, size_t pre_len, const char *post, size_t post_len, struct a1_java_side *a,
			  struct a1_java_side *b);

/* a1_java_extract_pair through a1_cache.h's memory: a side read before in this process is not
 * read again (its tree, kept, is what the other side is parsed against); a side read is
 * stored. The facts are read-only and live while the held entries *ra / *rb do (release them:
 * a1_cache_release). */
struct a1_cache_ref;
void a1_java_read_pair_cached(const char *pre, size_t pre_len, const char *post, size_t post_len,
			      const struct a1_java_side **a, const struct a1_java_side **b, struct a1_cache_ref **ra,
			      struct a1_cache_ref **rb);

/* ---- shared with Kotlin (a1_kotlin_facts.c reads a side into the same facts) ---- */

/* A reader of one side: a1_java_extract, a1_kotlin_extract. */
typedef int (*a1_jvm_extract_fn)(const char *text, size_t len, struct a1_java_side *s);
/* A reader of both sides: a1_java_extract_pair, Kotlin's bounded one. */
typedef void (*a1_jvm_pair_fn)(const char *pre, size_t pre_len, const char *post, size_t post_len,
			       struct a1_java_side *a, struct a1_java_side *b);
/* A reader of one side that parses against `old` (an edited tree of the other side; NULL:
 * from scratch) and, given `keep`, hands its tree back (NULL when the side was not read). */
typedef int (*a1_jvm_read_fn)(const char *text, size_t len, struct a1_java_side *s, TSTree *old, TSTree **keep);
/* Both sides with `read`, the post side parsed against the pre side's edited tree (no reuse
 * when either side is empty or starts with a byte order mark); pre_done (may be NULL) is
 * called with the pre side once it is read, before the post side is. */
void a1_jvm_read_pair(a1_jvm_read_fn read, const char *pre, size_t pre_len, const char *post, size_t post_len,
		      struct a1_java_side *a, struct a1_java_side *b,
		      void (*pre_done)(void *ctx, const struct a1_java_side *a), void *ctx);

/* Before parsing: refuses into *s a side over A1_JAVA_MAX_BYTES, with a NUL byte or not UTF-8,
 * or nested past what the runtime survives (a1_jvm_check_nesting); skips a UTF-8 BOM (moves
 * *text, *len). Returns s->status. */
int a1_jvm_prepare(const char **text, size_t *len, struct a1_js_side *s, int kotlin);

/* Brackets open at once over A1_JAVA_MAX_DEPTH, or a statement keeping too many tokens
 * pending: refused into *s (A1_JS_UNDECIDABLE), -1. `kotlin`: comments nest and a string's
 * `${...}` is code. */
int a1_jvm_check_nesting(const char *src, size_t len, struct a1_js_side *s, int kotlin);

/* a1_java_judge / a1_java_count with other readers: the same comparison (a1_js_compare with
 * Java's matchers, annotations removed, conditions added). `need_tests`: a changed file in
 * which neither side holds a test the reader knows is UNVERIFIED `no-tests-read` (Kotlin: a
 * kotest / Spek file is not looked at, so it is never PASS). */
cJSON *a1_jvm_judge(const char *path, const char *pre, size_t pre_len, const char *post, size_t post_len,
		    a1_jvm_pair_fn extract_pair, int need_tests);
/* The canonical text of a node (leaf tokens, comments dropped, a space only between two word
 * tokens; cb is scratch), new; *visited = the nodes it walked. */
char *a1_jvm_canon(const char *src, TSNode n, struct buf *cb, size_t *visited);
void a1_jvm_names_add(struct a1_js_names *l, const char *s);
void a1_jvm_names_free(struct a1_js_names *l);

/* What a lifecycle method (@BeforeEach, @BeforeAll...) says of every test of its class: all
 * skipped, or run under these conditions (their text). Java's and Kotlin's readers. */
struct a1_jvm_life {
	int skip;
	struct a1_js_names conds;
};
/* An assumption (assumeTrue / assumeFalse / abort) read in test `test` (>= 0) or in lifecycle
 * method `life` (non-NULL): of literal `v` (1 true, 0 false, -1 not known), one that never holds
 * skips, one that always holds is nothing, any other is a condition, `form` its text. */
void a1_jvm_assumed(struct a1_java_side *j, long test, struct a1_jvm_life *life, const char *name, int v,
		    const char *form);

/* The locals of the method or function a reader walks (Java's and Kotlin's): each name
 * declared once with its value's canonical text (NULL: not known), `cst` when that value is a
 * constant, `bad` when the name cannot be read as its value (declared again, assigned again,
 * no value). */
struct a1_jvm_local {
	char *name, *text;
	int cst, bad;
};
struct a1_jvm_locals {
	struct a1_jvm_local *v;
	size_t n, cap;
};
/* The local identifier `id` (of `src`) names, or NULL. */
struct a1_jvm_local *a1_jvm_local_named(struct a1_jvm_locals *l, const char *src, TSNode id);
/* `id` declared: a new entry (its name copied; the caller fills the rest), or NULL when the name
 * is known already (that entry is then marked bad). */
struct a1_jvm_local *a1_jvm_local_new(struct a1_jvm_locals *l, const char *src, TSNode id);
/* Every local forgotten (the table kept for the next method); _free releases the table too. */
void a1_jvm_locals_clear(struct a1_jvm_locals *l);
void a1_jvm_locals_free(struct a1_jvm_locals *l);
/* A conditional skip of a test (copied). */
void a1_jvm_add_cond(struct a1_java_side *j, const char *test, const char *text);
/* An `if` of a condition not known whose one branch holds assertions of test `test` (its facts
 * n0..n1 in the first branch, n1..n2 in the second) and the other none: a condition on each
 * such assertion, "only when <cond>: <form>" / "only unless <cond>: <form>" (a1_java.c reports
 * one only when the pre test made that assertion unconditionally). At most
 * A1_JVM_BRANCH_CONDS_MAX conditions of a test; returns the bytes added (the caller's budget). */
#define A1_JVM_ONLY_WHEN "only when"
#define A1_JVM_ONLY_UNLESS "only unless"
#define A1_JVM_BRANCH_CONDS_MAX 16 /* per test: a bound on their number (and the comparison's work) */
size_t a1_jvm_branch_conds(struct a1_java_side *j, long test, const char *cond, size_t n0, size_t n1, size_t n2);
/* A site (copied) appended to *v: dropped tests, rows. */
void a1_jvm_add_site(struct a1_js_site **v, size_t *n, size_t *cap, const char *name, const char *text);
/* 1 when `cls` is a class whose catch takes a failed assertion (AssertionError, Error,
 * Throwable ... : its last name, with or without ".class"). */
int a1_jvm_catches_failure(const char *cls);
/* 1 when a top-level class name matches Maven Surefire's and Failsafe's default includes
 * (Test*, *Test, *Tests, *TestCase; IT*, *IT, *ITCase); a test of a class that does not carries
 * the condition A1_JVM_SUREFIRE_COND. */
int a1_jvm_surefire_name(const char *cls);
/* 1 when a catch's body (canonical text) asserts nothing but that what it caught, `var`, is there
 * (assertNotNull(e) ...): it passes whatever failed. */
int a1_jvm_asserts_only_caught(const char *body, const char *var);
/* 1 when canonical text t makes an object (`new Point(1,2)`, Kotlin's `Point(1,2)`): two locals
 * so made are two objects however alike their text. */
int a1_jvm_constructed(const char *t);
#define A1_JVM_SUREFIRE_COND "a class name Maven Surefire's default includes do not match (Test*, *Test, *Tests, *TestCase)"
/* A new test "cls.name" (an overload "cls.name #2"), a new helper "name" (methods: "cls.name"):
 * its index. */
long a1_jvm_new_test(struct a1_java_side *j, const char *src, const char *cls, TSNode name, TSNode at);
long a1_jvm_new_func(struct a1_java_side *j, const char *src, const char *cls, TSNode name);
int a1_jvm_count(const char *text, size_t len, int *tests, int *assertions, a1_jvm_extract_fn extract);
/* The comparison a boolean asserted true is (Java's and Kotlin's binary_expression: `x >= 0`,
 * `x == 3`, `0 < x`): its operands into *S and *E (a literal one second, the operator turned
 * to match: `0 < x` is x > 0) and its operator into *op (static), or the first comparison of a
 * disjunction (`x == 3 || x == 4`: *op "||"). `lit` tells a literal operand. 0: none. */
int a1_jvm_comparison(TSNode n, int (*lit)(const void *ctx, TSNode n), const void *ctx, TSNode *S, TSNode *E,
		      const char **op);

#endif
