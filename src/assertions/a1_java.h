/* a1_java.h - A1's judge of Java test files (JUnit 4 and 5, AssertJ, Hamcrest, Truth), on
 * tree-sitter (the pinned tree-sitter-java grammar compiled into belay). In process; no JVM.
 *
 * One changed test file's two sides are parsed and reduced to the facts a1_js_facts.h
 * describes (a1_java_facts.c): its tests (the methods annotated @Test, @ParameterizedTest,
 * @RepeatedTest, @TestFactory, @TestTemplate, named "Class.method", "Outer.Inner.method"; skipped
 * by @Disabled / @Ignore on them or their class, or by an assumption that is always false -
 * assumeTrue(false), Assume.assumeTrue(false), assumeFalse(true), Assumptions.abort() - in them
 * or in a @BeforeEach / @Before / @BeforeAll / @BeforeClass method of their class), the
 * assertions inside each (JUnit's assertX / fail, AssertJ and Truth assertThat(...) chains,
 * Hamcrest assertThat(x, matcher), @Test(expected = X.class)) with where they stand (after a
 * return / throw, in an `if (false)`; inside a try whose catch takes AssertionError, Error or
 * Throwable and does not throw again), the methods that are not tests (helpers; assertions
 * moved into one a test still calls count). The sides are compared test by test with the
 * JavaScript judge's rules (a1_js_compare), each pair of assertions by Java's matchers; the
 * findings (docs/VERDICTS.md, "Java") are:
 *   FAIL        test-deleted, test-annotation-removed, test-skipped, test-lost-every-assertion,
 *               assertion-removed, replaced-by-tautology, matcher-loosened, throws-broadened,
 *               assertion-negated, assertion-unreachable, failure-swallowed
 *   WARN        expected-value-changed (the same subject and matcher, another expected value)
 *   UNVERIFIED  conditional-skip-added (@EnabledIf..., @DisabledOn..., an assumption on a
 *               value: ASSERTION_UNDECIDABLE), unparseable-source (ASSERTION_FILE_UNREADABLE),
 *               too-deeply-nested (ASSERTION_UNDECIDABLE)
 * Honest edits have no finding: new tests and assertions, stricter matchers, parameterized
 * tests gaining rows, a test renamed with its assertions, assertions moved into a helper the
 * test still calls, formatting, comments.
 *
 * Input is hostile: sizes over A1_JAVA_MAX_BYTES, bracket nesting over A1_JAVA_MAX_DEPTH and
 * runs of tokens a statement keeps pending (Debian's tree-sitter 0.20.7 double-frees with
 * ~65,535 symbols on its stack) are refused before parsing, trees deeper than the walk bound
 * after - each an UNVERIFIED finding, never a crash and never a PASS. Threads: any (a parser per
 * call; a side read is remembered by its bytes in a1_cache.h, a locked table: read once per process). Reading
 * is lazy (a1_java_facts.c): a method outside the edited bytes, in the same context, that no
 * changed method calls or is called by, has its body walked on neither side; the findings are
 * those of walking everything (env BELAY_A1_EAGER=1). Memory: the caller owns what a call returns. Failure: reported as
 * findings; nothing is printed. */
#ifndef BELAY_ASSERTIONS_A1_JAVA_H
#define BELAY_ASSERTIONS_A1_JAVA_H
#include <cjson/cJSON.h>
#include <stddef.h>

#define A1_JAVA_MAX_BYTES (2u << 20)
#define A1_JAVA_MAX_DEPTH 256

/* 1 when `path` names a Java source (.java, any case). */
int a1_java_is_source(const char *path);

/* Judges one file. `pre` / `post` NULL = absent on that side (an added file is judged against
 * an empty one; a deleted one loses every test it had). Returns a new JSON array of findings,
 * each {"function": "Class.method" or null, "finding": NAME, "status": "FAIL"|"WARN"|"UNVERIFIED",
 * "cause": null or a cause, "pre": text or null, "post": text or null}; an empty array means
 * no weakening was found. Never NULL. */
cJSON *a1_java_judge(const char *path, const char *pre, size_t pre_len, const char *post, size_t post_len);

/* Number of tests and assertions a side holds (for the bench); BELAY_EINVAL when it does not parse. */
int a1_java_count(const char *text, size_t len, int *tests, int *assertions);

#endif
