/* test_a1_java.c - src/assertions/a1_java.c: the Java test judge. A table of cheats (each
 * finding class, in JUnit 4 / JUnit 5 / AssertJ / Hamcrest spellings) with the finding, status
 * and test each must give; a table of honest edits that must give no finding; hostile input
 * (deep brackets, long operator chains, NUL, invalid UTF-8, oversize, syntax errors) refused as
 * UNVERIFIED findings, never a crash and never a PASS. Every cheat and honest row is judged
 * lazily and eagerly too (ts_a1lazy.h): the same findings. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/err.h"
#include "assertions/a1_java.h"
#include "assertions/a1_cache.h"
#include "ts_a1lazy.h"

static cJSON *judge(const char *pre, const char *post)
{
	return a1_java_judge("src/test/java/CalcTest.java", pre, pre ? strlen(pre) : 0, post, post ? strlen(post) : 0);
}

/* The lazy reading judges the row as the eager one (ts_a1lazy.h: cold, warm, pre side whole). */
static void lazy_same(const char *what, const char *pre, const char *post)
{
	ts_a1lazy_same(what, "src/test/java/CalcTest.java", pre, pre ? strlen(pre) : 0, post, post ? strlen(post) : 0);
}

/* The first finding named `finding` (any name when NULL). */
static const cJSON *named(const cJSON *out, const char *finding)
{
	const cJSON *f;
	cJSON_ArrayForEach(f, out)
	{
		const char *n = cJSON_GetStringValue(cJSON_GetObjectItem(f, "finding"));
		if (!finding || (n && !strcmp(n, finding)))
			return f;
	}
	return NULL;
}

#define J5 "import static org.junit.jupiter.api.Assertions.*;\nimport org.junit.jupiter.api.*;\n\n"
#define J4 "import static org.junit.Assert.*;\nimport org.junit.*;\n\n"
#define AJ "import static org.assertj.core.api.Assertions.*;\nimport org.junit.jupiter.api.Test;\n\n"
#define HC "import static org.hamcrest.MatcherAssert.assertThat;\nimport static org.hamcrest.Matchers.*;\n\n"

/* class CalcTest { <members> } */
#define CLS(imports, body) imports "class CalcTest {\n" body "}\n"
#define ADD(ann, stmts) "  " ann "\n  void add() {\n" stmts "  }\n"
#define EQ "    assertEquals(3, Calc.add(1, 2));\n"
#define BASE CLS(J5, ADD("@Test", EQ))
#define TWO CLS(J5, ADD("@Test", EQ "    assertEquals(0, Calc.add(0, 0));\n"))
#define DIV(cls) CLS(J5, "  @Test\n  void div() {\n    assertThrows(" cls ", () -> Calc.div(1, 0));\n  }\n")
#define AJ_ADD(chain) CLS(AJ, ADD("@Test", "    assertThat(Calc.add(1, 2))" chain ";\n"))
#define HC_ADD(m) CLS(HC "import org.junit.Test;\n", ADD("@Test public", "    assertThat(Calc.add(1, 2), " m ");\n"))
#define JU3(body) "import junit.framework.TestCase;\n\npublic class CalcTest extends TestCase {\n" body "}\n"
#define J4_ADD(ann, stmts) CLS(J4, "  " ann "\n  public void add() {\n" stmts "  }\n")

struct cheat {
	const char *what, *pre, *post, *finding, *status, *function;
};

static const struct cheat cheats[] = {
    /* skipped, not collected, deleted */
    {"@Disabled added", BASE, CLS(J5, ADD("@Disabled @Test", EQ)), "test-skipped", "FAIL", "CalcTest.add"},
    {"@Disabled on the class", BASE, CLS(J5 "@Disabled(\"later\")\n", ADD("@Test", EQ)), "test-skipped", "FAIL",
     "CalcTest.add"},
    {"JUnit 4 @Ignore", J4_ADD("@Test", EQ), J4_ADD("@Ignore @Test", EQ), "test-skipped", "FAIL", "CalcTest.add"},
    {"assumeTrue(false)", BASE, CLS(J5, ADD("@Test", "    assumeTrue(false);\n" EQ)), "test-skipped", "FAIL",
     "CalcTest.add"},
    {"Assume.assumeTrue(false)", J4_ADD("@Test", EQ), J4_ADD("@Test", "    Assume.assumeTrue(false);\n" EQ),
     "test-skipped", "FAIL", "CalcTest.add"},
    {"Assumptions.abort()", BASE, CLS(J5, ADD("@Test", "    Assumptions.abort(\"no\");\n" EQ)), "test-skipped",
     "FAIL", "CalcTest.add"},
    {"@BeforeEach assumeFalse(true)", BASE,
     CLS(J5, "  @BeforeEach\n  void setUp() {\n    assumeFalse(true);\n  }\n" ADD("@Test", EQ)), "test-skipped",
     "FAIL", "CalcTest.add"},
    {"@Test removed", BASE, CLS(J5, ADD("", EQ)), "test-annotation-removed", "FAIL", "CalcTest.add"},
    {"test deleted", TWO, CLS(J5, ""), "test-deleted", "FAIL", "CalcTest.add"},
    {"file deleted", BASE, NULL, "test-deleted", "FAIL", "CalcTest.add"},
    {"test emptied", BASE, CLS(J5, ADD("@Test", "")), "test-lost-every-assertion", "FAIL", "CalcTest.add"},
    {"one assertion removed", TWO, BASE, "assertion-removed", "FAIL", "CalcTest.add"},
    /* constant assertions */
    {"assertTrue(true)", BASE, CLS(J5, ADD("@Test", "    assertTrue(true);\n")), "replaced-by-tautology", "FAIL",
     "CalcTest.add"},
    {"assertEquals(x, x)", BASE, CLS(J5, ADD("@Test", "    int x = Calc.add(1, 2);\n    assertEquals(x, x);\n")),
     "replaced-by-tautology", "FAIL", "CalcTest.add"},
    {"AssertJ assertThat(true).isTrue()", AJ_ADD(".isEqualTo(3)"),
     CLS(AJ, ADD("@Test", "    assertThat(true).isTrue();\n")), "replaced-by-tautology", "FAIL", "CalcTest.add"},
    {"AssertJ assertThat without a check", AJ_ADD(".isEqualTo(3)"), AJ_ADD(""), "replaced-by-tautology", "FAIL",
     "CalcTest.add"},
    {"Hamcrest is(x) of itself", HC_ADD("is(3)"),
     CLS(HC "import org.junit.Test;\n", ADD("@Test public", "    assertThat(3, is(3));\n")), "replaced-by-tautology",
     "FAIL", "CalcTest.add"},
    /* loosened */
    {"isEqualTo -> isNotNull", AJ_ADD(".isEqualTo(3)"), AJ_ADD(".isNotNull()"), "matcher-loosened", "FAIL",
     "CalcTest.add"},
    /* an exact check rewritten as a boolean of a looser comparison */
    {"assertEquals -> assertTrue(x >= 0)", BASE, CLS(J5, ADD("@Test", "    assertTrue(Calc.add(1, 2) >= 0);\n")),
     "matcher-loosened", "FAIL", "CalcTest.add"},
    {"assertEquals -> assertTrue(0 < x)", BASE, CLS(J5, ADD("@Test", "    assertTrue(0 < Calc.add(1, 2));\n")),
     "matcher-loosened", "FAIL", "CalcTest.add"},
    {"assertEquals -> assertTrue(x != 4)", BASE, CLS(J5, ADD("@Test", "    assertTrue(Calc.add(1, 2) != 4);\n")),
     "matcher-loosened", "FAIL", "CalcTest.add"},
    {"assertEquals -> assertTrue(a disjunction with it)", BASE,
     CLS(J5, ADD("@Test", "    assertTrue(Calc.add(1, 2) == 3 || Calc.add(1, 2) == 4);\n")), "matcher-loosened",
     "FAIL", "CalcTest.add"},
    {"assertTrue(x == 3) -> assertTrue(x >= 0)", CLS(J5, ADD("@Test", "    assertTrue(Calc.add(1, 2) == 3);\n")),
     CLS(J5, ADD("@Test", "    assertTrue(Calc.add(1, 2) >= 0);\n")), "matcher-loosened", "FAIL", "CalcTest.add"},
    {"isEqualTo -> assertThat(x >= 0).isTrue()", AJ_ADD(".isEqualTo(3)"),
     CLS(AJ, ADD("@Test", "    assertThat(Calc.add(1, 2) >= 0).isTrue();\n")), "matcher-loosened", "FAIL",
     "CalcTest.add"},
    {"assertEquals -> Java's assert x >= 0;", BASE, CLS(J5, ADD("@Test", "    assert Calc.add(1, 2) >= 0;\n")),
     "matcher-loosened", "FAIL", "CalcTest.add"},
    {"assertEquals(3, got) -> assertTrue(got >= 0) through a local",
     CLS(J5, ADD("@Test", "    int got = Calc.add(1, 2);\n    assertEquals(3, got);\n")),
     CLS(J5, ADD("@Test", "    int got = Calc.add(1, 2);\n    assertTrue(got >= 0);\n")), "matcher-loosened", "FAIL",
     "CalcTest.add"},
    {"is(3) -> assertThat(x >= 0, is(true))", HC_ADD("is(3)"),
     CLS(HC "import org.junit.Test;\n", ADD("@Test public", "    assertThat(Calc.add(1, 2) >= 0, is(true));\n")),
     "matcher-loosened", "FAIL", "CalcTest.add"},
    {"is(x) -> notNullValue()", HC_ADD("is(3)"), HC_ADD("notNullValue()"), "matcher-loosened", "FAIL",
     "CalcTest.add"},
    {"is(x) -> is(notNullValue())", HC_ADD("equalTo(3)"), HC_ADD("is(notNullValue())"), "matcher-loosened", "FAIL",
     "CalcTest.add"},
    {"assertEquals -> assertNotNull", BASE, CLS(J5, ADD("@Test", "    assertNotNull(Calc.add(1, 2));\n")),
     "matcher-loosened", "FAIL", "CalcTest.add"},
    {"containsExactly -> contains", CLS(AJ, ADD("@Test", "    assertThat(Calc.all()).containsExactly(1, 2);\n")),
     CLS(AJ, ADD("@Test", "    assertThat(Calc.all()).contains(1, 2);\n")), "matcher-loosened", "FAIL",
     "CalcTest.add"},
    {"assertNull -> assertNotNull", CLS(J5, ADD("@Test", "    assertNull(Calc.none());\n")),
     CLS(J5, ADD("@Test", "    assertNotNull(Calc.none());\n")), "assertion-negated", "FAIL", "CalcTest.add"},
    {"assertThrows widened to Exception", DIV("ArithmeticException.class"), DIV("Exception.class"),
     "throws-broadened", "FAIL", "CalcTest.div"},
    {"assertThrows widened to Throwable", DIV("ArithmeticException.class"), DIV("Throwable.class"),
     "throws-broadened", "FAIL", "CalcTest.div"},
    {"@Test(expected) widened", J4_ADD("@Test(expected = ArithmeticException.class)", "    Calc.div(1, 0);\n"),
     J4_ADD("@Test(expected = Exception.class)", "    Calc.div(1, 0);\n"), "throws-broadened", "FAIL",
     "CalcTest.add"},
    {"assertThatThrownBy widened",
     CLS(AJ, ADD("@Test", "    assertThatThrownBy(() -> Calc.div(1, 0)).isInstanceOf(ArithmeticException.class);\n")),
     CLS(AJ, ADD("@Test", "    assertThatThrownBy(() -> Calc.div(1, 0)).isInstanceOf(RuntimeException.class);\n")),
     "throws-broadened", "FAIL", "CalcTest.add"},
    {"assertThatExceptionOfType widened",
     CLS(AJ, ADD("@Test", "    assertThatIllegalStateException().isThrownBy(() -> Calc.div(1, 0));\n")),
     CLS(AJ, ADD("@Test", "    assertThatExceptionOfType(Throwable.class).isThrownBy(() -> Calc.div(1, 0));\n")),
     "throws-broadened", "FAIL", "CalcTest.add"},
    /* where the assertion stands */
    {"catch (AssertionError)", BASE, CLS(J5, ADD("@Test", "    try {\n  " EQ "    } catch (AssertionError e) {\n    }\n")),
     "failure-swallowed", "FAIL", "CalcTest.add"},
    {"catch (AssertionError | Throwable)", BASE,
     CLS(J5, ADD("@Test", "    try {\n  " EQ "    } catch (IllegalStateException | Throwable e) {\n      // fine\n    }\n")),
     "failure-swallowed", "FAIL", "CalcTest.add"},
    {"early return", BASE, CLS(J5, ADD("@Test", "    if (Calc.ready()) {\n      return;\n    }\n    return;\n" EQ)),
     "assertion-unreachable", "FAIL", "CalcTest.add"},
    {"if (false)", BASE, CLS(J5, ADD("@Test", "    if (false) {\n  " EQ "    }\n")), "assertion-unreachable", "FAIL",
     "CalcTest.add"},
    /* another expected value; conditions */
    {"expected literal changed", BASE, CLS(J5, ADD("@Test", "    assertEquals(4, Calc.add(1, 2));\n")),
     "expected-value-changed", "WARN", "CalcTest.add"},
    {"@EnabledOnOs added", BASE, CLS(J5, ADD("@Test @EnabledOnOs(OS.WINDOWS)", EQ)), "conditional-skip-added",
     "UNVERIFIED", "CalcTest.add"},
    {"assumeTrue(value) added", BASE,
     CLS(J5, ADD("@Test", "    assumeTrue(System.getenv(\"SLOW\") != null);\n" EQ)), "conditional-skip-added",
     "UNVERIFIED", "CalcTest.add"},
    /* held-out style (issue 32): the cheats the rows above did not have */
    {"AssertJ isEqualTo(x) of itself", AJ_ADD(".isEqualTo(3)"),
     CLS(AJ, ADD("@Test", "    int x = Calc.add(1, 2);\n    assertThat(x).isEqualTo(x);\n")), "replaced-by-tautology",
     "FAIL", "CalcTest.add"},
    {"isEqualTo -> isNotEmpty", CLS(AJ, ADD("@Test", "    assertThat(Calc.name()).isEqualTo(\"sum\");\n")),
     CLS(AJ, ADD("@Test", "    assertThat(Calc.name()).isNotEmpty();\n")), "matcher-loosened", "FAIL", "CalcTest.add"},
    {"isEqualTo -> isIn", AJ_ADD(".isEqualTo(3)"), AJ_ADD(".isIn(3, 4)"), "matcher-loosened", "FAIL", "CalcTest.add"},
    {"is(x) -> anything()", HC_ADD("is(3)"), HC_ADD("anything()"), "matcher-loosened", "FAIL", "CalcTest.add"},
    {"assertTrue(true, message)", BASE, CLS(J5, ADD("@Test", "    assertTrue(true, \"sum\");\n")),
     "replaced-by-tautology", "FAIL", "CalcTest.add"},
    {"JUnit 4 assertTrue(message, true)", J4_ADD("@Test", EQ), J4_ADD("@Test", "    assertTrue(\"sum\", true);\n"),
     "replaced-by-tautology", "FAIL", "CalcTest.add"},
    {"assertTrue(x || true)", CLS(J5, ADD("@Test", "    assertTrue(Calc.add(1, 2) == 3);\n")),
     CLS(J5, ADD("@Test", "    assertTrue(Calc.add(1, 2) == 3 || true);\n")), "replaced-by-tautology", "FAIL",
     "CalcTest.add"},
    {"assertEquals of two constants", BASE, CLS(J5, ADD("@Test", "    assertEquals(3, 1 + 2);\n")),
     "replaced-by-tautology", "FAIL", "CalcTest.add"},
    {"assertEquals -> assertInstanceOf", BASE,
     CLS(J5, ADD("@Test", "    assertInstanceOf(Integer.class, Calc.add(1, 2));\n")), "matcher-loosened", "FAIL",
     "CalcTest.add"},
    {"assertThrows -> assertDoesNotThrow", DIV("ArithmeticException.class"),
     CLS(J5, "  @Test\n  void div() {\n    assertDoesNotThrow(() -> Calc.div(1, 0));\n  }\n"), "matcher-loosened",
     "FAIL", "CalcTest.div"},
    {"assertThrows IllegalArgumentException -> RuntimeException", DIV("IllegalArgumentException.class"),
     DIV("RuntimeException.class"), "throws-broadened", "FAIL", "CalcTest.div"},
    {"assertThrows(AssertionError) around the assertion", BASE,
     CLS(J5, ADD("@Test", "    assertThrows(AssertionError.class, () -> assertEquals(3, Calc.add(1, 2)));\n")),
     "failure-swallowed", "FAIL", "CalcTest.add"},
    {"@Test(expected = AssertionError.class) added", J4_ADD("@Test", EQ),
     J4_ADD("@Test(expected = AssertionError.class)", EQ), "failure-swallowed", "FAIL", "CalcTest.add"},
    {"JUnit 4 @Ignore on the class", J4_ADD("@Test", EQ), J4 "@Ignore\nclass CalcTest {\n  @Test\n  public void add() {\n" EQ "  }\n}\n",
     "test-skipped", "FAIL", "CalcTest.add"},
    {"@Disabled on a @Nested class",
     CLS(J5, "  @Nested\n  class Sub {\n    @Test\n    void sub() {\n      assertEquals(1, Calc.sub(2, 1));\n    }\n  }\n"),
     CLS(J5, "  @Nested @Disabled\n  class Sub {\n    @Test\n    void sub() {\n      assertEquals(1, Calc.sub(2, 1));\n    }\n  }\n"),
     "test-skipped", "FAIL", "CalcTest.Sub.sub"},
    {"Assumptions.assumeFalse(true)", BASE, CLS(J5, ADD("@Test", "    Assumptions.assumeFalse(true);\n" EQ)),
     "test-skipped", "FAIL", "CalcTest.add"},
    {"JUnit 4 Assume.assumeTrue(message, false)", J4_ADD("@Test", EQ),
     J4_ADD("@Test", "    Assume.assumeTrue(\"later\", false);\n" EQ), "test-skipped", "FAIL", "CalcTest.add"},
    {"@DisabledIf added", BASE, CLS(J5, ADD("@Test @DisabledIf(\"slow\")", EQ)), "conditional-skip-added",
     "UNVERIFIED", "CalcTest.add"},
    {"@EnabledIfSystemProperty added", BASE,
     CLS(J5, ADD("@Test @EnabledIfSystemProperty(named = \"ci\", matches = \"true\")", EQ)), "conditional-skip-added",
     "UNVERIFIED", "CalcTest.add"},
    {"catch (final AssertionError e)", BASE,
     CLS(J5, ADD("@Test", "    try {\n  " EQ "    } catch (final AssertionError e) {\n    }\n")), "failure-swallowed",
     "FAIL", "CalcTest.add"},
    {"fail() removed from a try",
     CLS(J5, ADD("@Test", "    try {\n      Calc.div(1, 0);\n      fail(\"no\");\n    } catch (ArithmeticException e) {\n    }\n")),
     CLS(J5, ADD("@Test", "    try {\n      Calc.div(1, 0);\n    } catch (ArithmeticException e) {\n    }\n")),
     "test-lost-every-assertion", "FAIL", "CalcTest.add"},
    {"assertAll emptied",
     CLS(J5, ADD("@Test", "    assertAll(() -> assertEquals(3, Calc.add(1, 2)), () -> assertEquals(0, Calc.add(0, 0)));\n")),
     CLS(J5, ADD("@Test", "    assertAll();\n")), "test-lost-every-assertion", "FAIL", "CalcTest.add"},
    {"if (true) return;", BASE, CLS(J5, ADD("@Test", "    if (true) return;\n" EQ)), "assertion-unreachable", "FAIL",
     "CalcTest.add"},
    {"softly.assertAll() removed",
     CLS(AJ, ADD("@Test", "    SoftAssertions softly = new SoftAssertions();\n    softly.assertThat(Calc.add(1, 2)).isEqualTo(3);\n"
		      "    softly.assertAll();\n")),
     CLS(AJ, ADD("@Test", "    SoftAssertions softly = new SoftAssertions();\n    softly.assertThat(Calc.add(1, 2)).isEqualTo(3);\n")),
     "assertion-removed", "FAIL", "CalcTest.add"},
    {"JUnit 5 test made private", BASE, CLS(J5, "  @Test\n  private void add() {\n" EQ "  }\n"), "test-not-collected",
     "FAIL", "CalcTest.add"},
    {"JUnit 5 test made static", BASE, CLS(J5, "  @Test\n  static void add() {\n" EQ "  }\n"), "test-not-collected",
     "FAIL", "CalcTest.add"},
    {"JUnit 5 test returns a value", BASE, CLS(J5, "  @Test\n  int add() {\n" EQ "    return 0;\n  }\n"),
     "test-not-collected", "FAIL", "CalcTest.add"},
    {"@Nested removed",
     CLS(J5, "  @Nested\n  class Sub {\n    @Test\n    void sub() {\n      assertEquals(1, Calc.sub(2, 1));\n    }\n  }\n"),
     CLS(J5, "  class Sub {\n    @Test\n    void sub() {\n      assertEquals(1, Calc.sub(2, 1));\n    }\n  }\n"),
     "test-not-collected", "FAIL", "CalcTest.Sub.sub"},
    {"@Nested class made static",
     CLS(J5, "  @Nested\n  class Sub {\n    @Test\n    void sub() {\n      assertEquals(1, Calc.sub(2, 1));\n    }\n  }\n"),
     CLS(J5, "  @Nested\n  static class Sub {\n    @Test\n    void sub() {\n      assertEquals(1, Calc.sub(2, 1));\n    }\n  }\n"),
     "conditional-skip-added", "UNVERIFIED", "CalcTest.Sub.sub"},
    {"@ValueSource row removed",
     CLS(J5, "  @ParameterizedTest\n  @ValueSource(ints = {1, 2, -1})\n  void pos(int v) {\n    assertTrue(Calc.abs(v) > 0);\n  }\n"),
     CLS(J5, "  @ParameterizedTest\n  @ValueSource(ints = {1, 2})\n  void pos(int v) {\n    assertTrue(Calc.abs(v) > 0);\n  }\n"),
     "test-case-removed", "FAIL", "CalcTest.pos"},
    {"@CsvSource row removed",
     CLS(J5, "  @ParameterizedTest\n  @CsvSource({\"1, 2, 3\", \"2, 2, 5\"})\n  void add(int a, int b, int c) {\n"
	     "    assertEquals(c, Calc.add(a, b));\n  }\n"),
     CLS(J5, "  @ParameterizedTest\n  @CsvSource({\"1, 2, 3\"})\n  void add(int a, int b, int c) {\n"
	     "    assertEquals(c, Calc.add(a, b));\n  }\n"),
     "test-case-removed", "FAIL", "CalcTest.add"},
    {"@CsvSource row's expected value changed",
     CLS(J5, "  @ParameterizedTest\n  @CsvSource({\"1, 2, 3\", \"2, 2, 5\"})\n  void add(int a, int b, int c) {\n"
	     "    assertEquals(c, Calc.add(a, b));\n  }\n"),
     CLS(J5, "  @ParameterizedTest\n  @CsvSource({\"1, 2, 3\", \"2, 2, 4\"})\n  void add(int a, int b, int c) {\n"
	     "    assertEquals(c, Calc.add(a, b));\n  }\n"),
     "expected-value-changed", "WARN", "CalcTest.add"},
    {"expected value changed through a local", CLS(J5, ADD("@Test", "    int want = 3;\n    assertEquals(want, Calc.add(1, 2));\n")),
     CLS(J5, ADD("@Test", "    int want = 4;\n    assertEquals(want, Calc.add(1, 2));\n")), "expected-value-changed", "WARN",
     "CalcTest.add"},
    {"the actual value replaced by a constant local", CLS(J5, ADD("@Test", "    int got = Calc.add(1, 2);\n    assertEquals(3, got);\n")),
     CLS(J5, ADD("@Test", "    int got = 3; // Calc.add(1, 2)\n    assertEquals(3, got);\n")), "replaced-by-tautology", "FAIL",
     "CalcTest.add"},
    {"the expected value computed by the code under test",
     CLS(J5, ADD("@Test", "    int want = 3;\n    assertEquals(want, Calc.add(1, 2));\n")),
     CLS(J5, ADD("@Test", "    int want = Calc.add(1, 2);\n    assertEquals(want, Calc.add(1, 2));\n")), "replaced-by-tautology",
     "FAIL", "CalcTest.add"},
    {"AssertJ actual replaced by a constant local",
     CLS(AJ, ADD("@Test", "    int got = Calc.add(1, 2);\n    assertThat(got).isEqualTo(3);\n")),
     CLS(AJ, ADD("@Test", "    int got = 3;\n    assertThat(got).isEqualTo(3);\n")), "replaced-by-tautology", "FAIL",
     "CalcTest.add"},
    {"JUnit 4 ExpectedException widened",
     J4_ADD("@Rule public ExpectedException thrown = ExpectedException.none();\n  @Test",
	    "    thrown.expect(ArithmeticException.class);\n    Calc.div(1, 0);\n"),
     J4_ADD("@Rule public ExpectedException thrown = ExpectedException.none();\n  @Test",
	    "    thrown.expect(Exception.class);\n    Calc.div(1, 0);\n"),
     "throws-broadened", "FAIL", "CalcTest.add"},
    {"@Test import swapped to JUnit 4's", CLS("import static org.junit.jupiter.api.Assertions.*;\nimport org.junit.jupiter.api.Test;\n\n", ADD("@Test", EQ)),
     CLS("import static org.junit.jupiter.api.Assertions.*;\nimport org.junit.Test;\n\n", ADD("@Test", EQ)),
     "conditional-skip-added", "UNVERIFIED", "CalcTest.add"},
    {"@Test written org.junit.Test", BASE, CLS(J5, ADD("@org.junit.Test", EQ)), "conditional-skip-added", "UNVERIFIED",
     "CalcTest.add"},
    {"class renamed out of Surefire's names", BASE, J5 "class Calc {\n" ADD("@Test", EQ) "}\n", "conditional-skip-added",
     "UNVERIFIED", "CalcTest.add"},
    {"an assertion put under an if of the environment", BASE,
     CLS(J5, ADD("@Test", "    if (System.getenv(\"CI\") == null) {\n  " EQ "    }\n")), "conditional-skip-added", "UNVERIFIED",
     "CalcTest.add"},
    {"an assertion put in an else", BASE,
     CLS(J5, ADD("@Test", "    if (Calc.ready()) {\n      Calc.reset();\n    } else {\n  " EQ "    }\n")),
     "conditional-skip-added", "UNVERIFIED", "CalcTest.add"},
    {"AssertJ ignoringFields added",
     CLS(AJ, ADD("@Test", "    assertThat(Calc.order()).usingRecursiveComparison().isEqualTo(Order.of(3));\n")),
     CLS(AJ, ADD("@Test", "    assertThat(Calc.order()).usingRecursiveComparison().ignoringFields(\"total\").isEqualTo(Order.of(3));\n")),
     "matcher-loosened", "FAIL", "CalcTest.add"},
    {"assertEquals delta widened", CLS(J5, ADD("@Test", "    assertEquals(0.3, Calc.avg(), 1e-9);\n")),
     CLS(J5, ADD("@Test", "    assertEquals(0.3, Calc.avg(), 0.5);\n")), "tolerance-widened", "FAIL", "CalcTest.add"},
    {"isCloseTo within widened", AJ_ADD(".isCloseTo(0.3, within(0.001))"), AJ_ADD(".isCloseTo(0.3, within(0.5))"),
     "tolerance-widened", "FAIL", "CalcTest.add"},
    {"Hamcrest closeTo widened", HC_ADD("closeTo(0.3, 0.001)"), HC_ADD("closeTo(0.3, 1.0)"), "tolerance-widened", "FAIL",
     "CalcTest.add"},
    {"Hamcrest is(x) -> either(is(x)).or(is(y))", HC_ADD("is(3)"), HC_ADD("either(is(3)).or(is(4))"), "matcher-loosened",
     "FAIL", "CalcTest.add"},
    {"@Timeout raised", CLS(J5, ADD("@Test @Timeout(1)", EQ)), CLS(J5, ADD("@Test @Timeout(60)", EQ)),
     "expected-value-changed", "WARN", "CalcTest.add"},
    {"@Timeout removed", CLS(J5, ADD("@Test @Timeout(1)", EQ)), BASE, "assertion-removed", "FAIL", "CalcTest.add"},
    {"JUnit 4 @Test(timeout) removed", J4_ADD("@Test(timeout = 100)", EQ), J4_ADD("@Test", EQ), "assertion-removed", "FAIL",
     "CalcTest.add"},
    {"an assertion moved into a new test that is disabled", TWO,
     CLS(J5, ADD("@Test", EQ) "  @Test @Disabled\n  void addZero() {\n    assertEquals(0, Calc.add(0, 0));\n  }\n"),
     "assertion-removed", "FAIL", "CalcTest.add"},
    {"an assertion moved into a new private test", TWO,
     CLS(J5, ADD("@Test", EQ) "  @Test\n  private void addZero() {\n    assertEquals(0, Calc.add(0, 0));\n  }\n"),
     "assertion-removed", "FAIL", "CalcTest.add"},
    {"throw new TestAbortedException() in @BeforeEach", BASE,
     CLS(J5, "  @BeforeEach\n  void setUp() {\n    throw new TestAbortedException(\"later\");\n  }\n" ADD("@Test", EQ)),
     "test-skipped", "FAIL", "CalcTest.add"},
    {"assumingThat(false, ..) around the assertion", BASE,
     CLS(J5, ADD("@Test", "    assumingThat(false, () -> assertEquals(3, Calc.add(1, 2)));\n")), "assertion-unreachable",
     "FAIL", "CalcTest.add"},
    {"assumingThat(a condition, ..) around the assertion", BASE,
     CLS(J5, ADD("@Test", "    assumingThat(Calc.ready(), () -> assertEquals(3, Calc.add(1, 2)));\n")),
     "conditional-skip-added", "UNVERIFIED", "CalcTest.add"},
    {"Spring @EnabledIf(\"false\")", BASE, CLS(J5, ADD("@Test @EnabledIf(\"false\")", EQ)), "test-skipped", "FAIL",
     "CalcTest.add"},
    {"JUnit 3 test renamed out of test*", JU3("  public void testAdd() {\n" EQ "  }\n"),
     JU3("  public void checkAdd() {\n" EQ "  }\n"), "test-deleted", "FAIL", "CalcTest.testAdd"},
    {"JUnit 3 assertTrue(true)", JU3("  public void testAdd() {\n" EQ "  }\n"),
     JU3("  public void testAdd() {\n    assertTrue(true);\n  }\n"), "replaced-by-tautology", "FAIL", "CalcTest.testAdd"},
    {"JUnit 3 test made private", JU3("  public void testAdd() {\n" EQ "  }\n"),
     JU3("  private void testAdd() {\n" EQ "  }\n"), "test-not-collected", "FAIL", "CalcTest.testAdd"},
    {"catch (AssertionError e) asserting only e", BASE,
     CLS(J5, ADD("@Test", "    try {\n  " EQ "    } catch (AssertionError e) {\n      assertNotNull(e);\n    }\n")),
     "failure-swallowed", "FAIL", "CalcTest.add"},
    {"the assertion moved into a lambda nothing calls", BASE,
     CLS(J5, ADD("@Test", "    Runnable check = () -> assertEquals(3, Calc.add(1, 2));\n")), "assertion-unreachable", "FAIL",
     "CalcTest.add"},
    {"assert true;", BASE, CLS(J5, ADD("@Test", "    assert true;\n")), "replaced-by-tautology", "FAIL", "CalcTest.add"},
    {"class made abstract", BASE, J5 "abstract class CalcTest {\n" ADD("@Test", EQ) "}\n", "conditional-skip-added",
     "UNVERIFIED", "CalcTest.add"},
};

Test(a1_java, each_cheat_is_caught_naming_the_test)
{
	for (size_t i = 0; i < sizeof cheats / sizeof *cheats; i++) {
		const struct cheat *c = &cheats[i];
		lazy_same(c->what, c->pre, c->post);
		cJSON *out = judge(c->pre, c->post);
		char *dump = cJSON_PrintUnformatted(out);
		const cJSON *f = named(out, c->finding);
		cr_expect_not_null(f, "%s: no %s in %s", c->what, c->finding, dump);
		if (f) {
			cr_expect_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(f, "status")), c->status, "%s: %s", c->what,
					 dump);
			cr_expect_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(f, "function")), c->function, "%s: %s",
					 c->what, dump);
		}
		free(dump);
		cJSON_Delete(out);
	}
}

struct honest {
	const char *what, *pre, *post;
};

static const struct honest honest[] = {
    {"a new test", BASE, CLS(J5, ADD("@Test", EQ) "  @Test\n  void sub() {\n    assertEquals(1, Calc.sub(2, 1));\n  }\n")},
    {"a new assertion", BASE, TWO},
    {"stricter: isNotNull -> isEqualTo", AJ_ADD(".isNotNull()"), AJ_ADD(".isEqualTo(3)")},
    {"stricter: notNullValue -> is", HC_ADD("notNullValue()"), HC_ADD("is(3)")},
    {"assertThrows narrowed", DIV("RuntimeException.class"), DIV("ArithmeticException.class")},
    {"a rename", BASE, CLS(J5, "  @Test\n  void addsTwoNumbers() {\n" EQ "  }\n")},
    {"reformatted, commented", BASE,
     CLS(J5, "  @Test void add() { // sum\n    assertEquals( 3,\n        Calc.add( 1, 2 ) ); /* same */ }\n")},
    {"JUnit 5 message added", BASE, CLS(J5, ADD("@Test", "    assertEquals(3, Calc.add(1, 2), \"sum\");\n"))},
    {"JUnit 4 message added", J4_ADD("@Test", EQ), J4_ADD("@Test", "    assertEquals(\"sum\", 3, Calc.add(1, 2));\n")},
    {"moved into a helper", BASE,
     CLS(J5, ADD("@Test", "    check();\n") "  private void check() {\n" EQ "  }\n")},
    {"parameterized rows gained",
     CLS(J5, "  @ParameterizedTest\n  @ValueSource(ints = {1, 2})\n  void pos(int v) {\n    assertTrue(v > 0);\n  }\n"),
     CLS(J5, "  @ParameterizedTest\n  @ValueSource(ints = {1, 2, 3})\n  void pos(int v) {\n    assertTrue(v > 0);\n  }\n")},
    {"an expected exception the test catches", BASE,
     CLS(J5, ADD("@Test", EQ "    try {\n      Calc.div(1, 0);\n      fail(\"no\");\n    } catch (ArithmeticException e) {\n"
		       "    }\n"))},
    {"a @Nested class of new tests", BASE,
     CLS(J5, ADD("@Test", EQ) "  @Nested\n  class Sub {\n    @Test\n    void sub() {\n      assertEquals(1, Calc.sub(2, 1));\n"
			      "    }\n  }\n")},
    {"a test already disabled, deleted", CLS(J5, ADD("@Test", EQ) "  @Disabled @Test\n  void old() {\n    fail();\n  }\n"),
     BASE},
    {"a new file", NULL, BASE},
    /* held-out style (issue 32) */
    {"assertEquals -> assertThat(..).isEqualTo", BASE, CLS(AJ, ADD("@Test", "    assertThat(Calc.add(1, 2)).isEqualTo(3);\n"))},
    {"assertEquals -> Hamcrest assertThat(.., is(..))", BASE,
     CLS(J5 HC, ADD("@Test", "    assertThat(Calc.add(1, 2), is(3));\n"))},
    {"Hamcrest is(x) -> equalTo(x)", HC_ADD("is(3)"), HC_ADD("equalTo(3)")},
    {"@DisplayName added", BASE, CLS(J5, ADD("@Test @DisplayName(\"adds\")", EQ))},
    {"made public", BASE, CLS(J5, "  @Test\n  public void add() {\n" EQ "  }\n")},
    {"qualified Assertions.assertEquals", BASE, CLS(J5, ADD("@Test", "    Assertions.assertEquals(3, Calc.add(1, 2));\n"))},
    {"@Test(expected) -> assertThrows", J4_ADD("@Test(expected = ArithmeticException.class)", "    Calc.div(1, 0);\n"),
     J4_ADD("@Test", "    assertThrows(ArithmeticException.class, () -> Calc.div(1, 0));\n")},
    {"a test moved into a @Nested class", BASE,
     CLS(J5, "  @Nested\n  class Sums {\n" ADD("@Test", EQ) "  }\n")},
    {"assertions grouped in assertAll", TWO,
     CLS(J5, ADD("@Test", "    assertAll(\n        () -> assertEquals(3, Calc.add(1, 2)),\n"
		       "        () -> assertEquals(0, Calc.add(0, 0)));\n"))},
    {"AssertionError caught and thrown again", BASE,
     CLS(J5, ADD("@Test", "    try {\n  " EQ "    } catch (AssertionError e) {\n      throw new IllegalStateException(\"ctx\", e);\n    }\n"))},
    {"a static nested class of helpers", BASE,
     CLS(J5, ADD("@Test", EQ) "  static class Fixtures {\n    static int three() {\n      return 3;\n    }\n  }\n")},
    {"an inner class without tests", BASE,
     CLS(J5, ADD("@Test", EQ) "  class Box {\n    int v;\n  }\n")},
    {"a @TestFactory edited",
     CLS(J5, "  @TestFactory\n  Stream<DynamicTest> sums() {\n    return Stream.of(dynamicTest(\"1\", () -> assertEquals(3, Calc.add(1, 2))));\n  }\n"),
     CLS(J5, "  @TestFactory\n  Stream<DynamicTest> sums() {\n    return Stream.of(dynamicTest(\"one\", () -> assertEquals(3, Calc.add(1, 2))));\n  }\n")},
    {"@CsvSource rows reordered and one added",
     CLS(J5, "  @ParameterizedTest\n  @CsvSource({\"1, 2, 3\", \"2, 2, 4\"})\n  void add(int a, int b, int c) {\n"
	     "    assertEquals(c, Calc.add(a, b));\n  }\n"),
     CLS(J5, "  @ParameterizedTest\n  @CsvSource({\"2, 2, 4\", \"1, 2, 3\", \"0, 0, 0\"})\n  void add(int a, int b, int c) {\n"
	     "    assertEquals(c, Calc.add(a, b));\n  }\n")},
    {"a test turned parameterized", BASE,
     CLS(J5, "  @ParameterizedTest\n  @CsvSource({\"1, 2, 3\"})\n  void add(int a, int b, int c) {\n"
	     "    assertEquals(c, Calc.add(a, b));\n  }\n")},
    {"a constant assertion added beside the real one", BASE, CLS(J5, ADD("@Test", EQ "    assertTrue(Calc.ready() || true);\n"))},
    {"a new assertion under an if", BASE,
     CLS(J5, ADD("@Test", EQ "    if (Calc.ready()) {\n      assertEquals(1, Calc.sub(2, 1));\n    }\n"))},
    {"an assertion under an if whose else fails", BASE,
     CLS(J5, ADD("@Test", "    if (Calc.ready()) {\n  " EQ "    } else {\n      fail(\"not ready\");\n    }\n"))},
    {"delta narrowed", CLS(J5, ADD("@Test", "    assertEquals(0.3, Calc.avg(), 1e-6);\n")),
     CLS(J5, ADD("@Test", "    assertEquals(0.3, Calc.avg(), 1e-9);\n"))},
    {"@Timeout added", BASE, CLS(J5, ADD("@Test @Timeout(5)", EQ))},
    {"ignoringFields kept, a check added",
     CLS(AJ, ADD("@Test", "    assertThat(Calc.order()).usingRecursiveComparison().ignoringFields(\"id\").isEqualTo(Order.of(3));\n")),
     CLS(AJ, ADD("@Test", "    assertThat(Calc.order()).usingRecursiveComparison().ignoringFields(\"id\").isEqualTo(Order.of(3));\n"
		       "    assertThat(Calc.order().total()).isEqualTo(3);\n"))},
    {"a test split in two", TWO,
     CLS(J5, ADD("@Test", EQ) "  @Test\n  void addZero() {\n    assertEquals(0, Calc.add(0, 0));\n  }\n")},
    {"JUnit 3 new test", JU3("  public void testAdd() {\n" EQ "  }\n"),
     JU3("  public void testAdd() {\n" EQ "  }\n  public void testSub() {\n    assertEquals(1, Calc.sub(2, 1));\n  }\n")},
    {"JUnit 3 helper kept", JU3("  public void testAdd() {\n    check();\n  }\n  private void check() {\n" EQ "  }\n"),
     JU3("  public void testAdd() {\n    check();\n  }\n  private void check() {\n" EQ "    assertTrue(Calc.ready());\n  }\n")},
    {"try/fail/catch checking the caught message", CLS(J5, ADD("@Test", "    assertThrows(AssertionError.class, () -> Check.positive(-1));\n")),
     CLS(J5, ADD("@Test", "    try {\n      Check.positive(-1);\n      fail(\"no\");\n    } catch (AssertionError e) {\n"
		       "      assertEquals(\"-1 is not positive\", e.getMessage());\n    }\n"))},
    {"an equals() test's fixtures made locals",
     CLS(J5, "  Point p1 = new Point(1, 2);\n  Point p2 = new Point(1, 2);\n" ADD("@Test", "    assertEquals(p1, p2);\n")),
     CLS(J5, ADD("@Test", "    Point p1 = new Point(1, 2);\n    Point p2 = new Point(1, 2);\n    assertEquals(p1, p2);\n"))},
    {"the assertion in a lambda that is run", BASE,
     CLS(J5, ADD("@Test", "    Runnable check = () -> assertEquals(3, Calc.add(1, 2));\n    check.run();\n"))},
    {"assertEquals respelled Java's assert", CLS(J5, ADD("@Test", "    assertTrue(Calc.add(1, 2) == 3);\n")),
     CLS(J5, ADD("@Test", "    assert Calc.add(1, 2) == 3;\n"))},
    {"a local renamed", CLS(J5, ADD("@Test", "    int want = 3;\n    assertEquals(want, Calc.add(1, 2));\n")),
     CLS(J5, ADD("@Test", "    int expected = 3;\n    assertEquals(expected, Calc.add(1, 2));\n"))},
    {"a local brought in for the actual value", BASE,
     CLS(J5, ADD("@Test", "    int got = Calc.add(1, 2);\n    assertEquals(3, got);\n"))},
    {"JUnit 4 migrated to JUnit 5", J4_ADD("@Test", EQ), BASE},
    {"a class renamed within Surefire's names", BASE, J5 "class CalculatorTest {\n" ADD("@Test", EQ) "}\n"},
    {"JUnit 4 ExpectedException narrowed",
     J4_ADD("@Rule public ExpectedException thrown = ExpectedException.none();\n  @Test",
	    "    thrown.expect(RuntimeException.class);\n    Calc.div(1, 0);\n"),
     J4_ADD("@Rule public ExpectedException thrown = ExpectedException.none();\n  @Test",
	    "    thrown.expect(ArithmeticException.class);\n    Calc.div(1, 0);\n")},
    {"soft assertions respelled assertSoftly",
     CLS(AJ, ADD("@Test", "    SoftAssertions softly = new SoftAssertions();\n    softly.assertThat(Calc.add(1, 2)).isEqualTo(3);\n"
		      "    softly.assertAll();\n")),
     CLS(AJ, ADD("@Test", "    SoftAssertions.assertSoftly(softly -> {\n      softly.assertThat(Calc.add(1, 2)).isEqualTo(3);\n    });\n"))},
    {"assertThrows(AssertionError) of a custom assertion, kept",
     CLS(J5, ADD("@Test", "    assertThrows(AssertionError.class, () -> Check.positive(-1));\n")),
     CLS(J5, ADD("@Test", "    assertThrows(AssertionError.class, () -> Check.positive(-1), \"rejects\");\n"))},
    /* the boolean form of the same check, a stricter one, one added beside */
    {"assertEquals -> assertTrue(x == 3)", BASE, CLS(J5, ADD("@Test", "    assertTrue(Calc.add(1, 2) == 3);\n"))},
    {"assertTrue(x == 3) -> assertEquals", CLS(J5, ADD("@Test", "    assertTrue(Calc.add(1, 2) == 3);\n")), BASE},
    {"assertEquals(b, a) -> assertTrue(a.equals(b))", CLS(J5, ADD("@Test", "    assertEquals(b, a);\n")),
     CLS(J5, ADD("@Test", "    assertTrue(a.equals(b));\n"))},
    {"assertTrue(a.equals(b)) -> assertEquals(b, a)", CLS(J5, ADD("@Test", "    assertTrue(a.equals(b));\n")),
     CLS(J5, ADD("@Test", "    assertEquals(b, a);\n"))},
    {"stricter: assertTrue(x >= 0) -> assertEquals", CLS(J5, ADD("@Test", "    assertTrue(Calc.add(1, 2) >= 0);\n")),
     BASE},
    {"assertTrue(x >= 0) added beside", BASE, CLS(J5, ADD("@Test", EQ "    assertTrue(Calc.add(1, 2) >= 0);\n"))},
    {"isEqualTo -> assertThat(x == 3).isTrue()", AJ_ADD(".isEqualTo(3)"),
     CLS(AJ, ADD("@Test", "    assertThat(Calc.add(1, 2) == 3).isTrue();\n"))},
};

Test(a1_java, honest_edits_have_no_finding)
{
	for (size_t i = 0; i < sizeof honest / sizeof *honest; i++) {
		lazy_same(honest[i].what, honest[i].pre, honest[i].post);
		cJSON *out = judge(honest[i].pre, honest[i].post);
		char *dump = cJSON_PrintUnformatted(out);
		cr_expect_null(named(out, NULL), "%s: %s", honest[i].what, dump);
		free(dump);
		cJSON_Delete(out);
	}
}

/* What cannot be read is UNVERIFIED, never a crash and never a PASS. */
Test(a1_java, hostile_input_is_unverified)
{
	size_t big = A1_JAVA_MAX_BYTES + 10, deep = 70000;
	char *huge = malloc(big + 1), *brackets = malloc(2 * deep + 64), *bangs = malloc(deep + 128),
	     *elses = malloc(deep * 12 + 128);
	memset(huge, ' ', big);
	huge[big] = 0;
	char *p = brackets + sprintf(brackets, "class CalcTest { int x = ");
	for (size_t i = 0; i < deep; i++)
		*p++ = '(';
	strcpy(p, "1;}");
	p = bangs + sprintf(bangs, "class CalcTest { boolean x = ");
	memset(p, '!', deep);
	strcpy(p + deep, "true; }");
	p = elses + sprintf(elses, "class CalcTest { void f() { if (a) x(); ");
	for (size_t i = 0; i < deep / 2; i++)
		p += sprintf(p, "else if (a) ");
	strcpy(p, "x(); }");
	const char *bad[] = {huge, brackets, bangs, elses, "class CalcTest { void f( }", "class CalcTest {}\0x",
			     "class CalcTest { String s = \"\xff\"; }"};
	const size_t lens[] = {big, strlen(brackets), strlen(bangs), strlen(elses), 26, 20, 35};
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		cJSON *out = a1_java_judge("CalcTest.java", BASE, strlen(BASE), bad[i], lens[i]);
		const cJSON *f = named(out, NULL);
		cr_assert_not_null(f, "input %zu gave no finding", i);
		cr_expect_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(f, "status")), "UNVERIFIED", "input %zu", i);
		int tests, asserts;
		cr_expect_eq(a1_java_count(bad[i], lens[i], &tests, &asserts), BELAY_EINVAL, "input %zu", i);
		cJSON_Delete(out);
	}
	free(huge);
	free(brackets);
	free(bangs);
	free(elses);
}

Test(a1_java, counts_tests_and_assertions)
{
	int tests, asserts;
	cr_assert_eq(a1_java_count(TWO, strlen(TWO), &tests, &asserts), 0);
	cr_expect_eq(tests, 1);
	cr_expect_eq(asserts, 2);
	cr_expect(a1_java_is_source("a/CalcTest.java") && a1_java_is_source("X.JAVA") && !a1_java_is_source("a.kt"));
}

/* a1_cache.h: a side remembered by its bytes (and its tree, the next side parsed against it)
 * judges as a fresh read does; two posts of the same length, so a key of the size alone would
 * mistake one for the other. */
Test(a1_java, a_remembered_side_judges_as_a_fresh_read)
{
	const char *pre = "class CalcTest {\n  @Test\n  void adds() {\n    assertEquals(3, add(1, 2));\n  }\n}\n";
	const char *posts[] = {
	    "class CalcTest {\n  @Test\n  void adds() {\n    assertTrue(true);          \n  }\n}\n",
	    "class CalcTest {\n  @Test\n  void adds() {\n    assertEquals(3, add(2, 1));\n  }\n}\n",
	};
	char *cold[2];
	for (int i = 0; i < 2; i++) {
		a1_cache_clear();
		cJSON *o = judge(pre, posts[i]);
		cold[i] = cJSON_PrintUnformatted(o);
		cJSON_Delete(o);
	}
	cr_assert_str_neq(cold[0], cold[1]);
	a1_cache_clear();
	unsigned long h0, h1, st;
	a1_cache_stats(&h0, &st);
	for (int round = 0; round < 2; round++)
		for (int i = 0; i < 2; i++) {
			cJSON *o = judge(pre, posts[i]);
			char *warm = cJSON_PrintUnformatted(o);
			cJSON_Delete(o);
			cr_expect_str_eq(warm, cold[i], "round %d post %d remembered: %s, fresh: %s", round, i, warm, cold[i]);
			free(warm);
		}
	a1_cache_stats(&h1, &st);
	cr_expect_eq(h1 - h0, 5, "hits %lu", h1 - h0);
	free(cold[0]);
	free(cold[1]);
	a1_cache_clear();
}

/*==== issue 32: N assertions generalised into a parameterized test or a helper ==============*/

#define PT_TWO CLS(J5, ADD("@Test", EQ "    assertEquals(4, Calc.add(2, 2));\n"))
#define PT_PARAM(csv, body)                                                                                            \
	CLS("import org.junit.jupiter.params.ParameterizedTest;\nimport org.junit.jupiter.params.provider.CsvSource;\n" J5, \
	    "  @ParameterizedTest\n  @CsvSource({" csv "})\n  void add(int a, int b, int want) {\n" body "  }\n")
#define PT_PARAM_EQ "    assertEquals(want, Calc.add(a, b));\n"
#define PT_HELPER(body, calls)                                                                                         \
	CLS(J5, "  private static void assertSum(int a, int b, int want) {\n" body "  }\n\n" ADD("@Test", calls))
#define PT_HELPER_EQ "    assertEquals(want, Calc.add(a, b), () -> a + \" + \" + b);\n"

static const struct honest pt_honest[] = {
    {"java parameterized (@CsvSource)", PT_TWO, PT_PARAM("\"1, 2, 3\", \"2, 2, 4\", \"0, 0, 0\"", PT_PARAM_EQ)},
    {"java helper extracted", PT_TWO, PT_HELPER(PT_HELPER_EQ, "    assertSum(1, 2, 3);\n    assertSum(2, 2, 4);\n")},
};

static const struct cheat pt_cheats[] = {
    {"java parameterized: a row dropped", PT_TWO, PT_PARAM("\"1, 2, 3\", \"0, 0, 0\"", PT_PARAM_EQ), "assertion-removed",
     "FAIL", "CalcTest.add"},
    {"java parameterized: a row's expected value changed", PT_TWO, PT_PARAM("\"1, 2, 3\", \"2, 2, 5\"", PT_PARAM_EQ),
     "assertion-removed", "FAIL", "CalcTest.add"},
    {"java parameterized: the first row's expected value changed", PT_TWO, PT_PARAM("\"1, 2, 5\", \"2, 2, 4\"", PT_PARAM_EQ),
     "assertion-removed", "FAIL", "CalcTest.add"},
    {"java parameterized: asserts a tautology", PT_TWO,
     PT_PARAM("\"1, 2, 3\", \"2, 2, 4\"", "    Calc.add(a, b);\n    assertTrue(true);\n"), NULL, "FAIL", "CalcTest.add"},
    {"java helper: a call dropped", PT_TWO, PT_HELPER(PT_HELPER_EQ, "    assertSum(1, 2, 3);\n"), "assertion-removed", "FAIL",
     "CalcTest.add"},
    {"java helper: its assertion removed", PT_TWO,
     PT_HELPER("    Calc.add(a, b);\n", "    assertSum(1, 2, 3);\n    assertSum(2, 2, 4);\n"), NULL, "FAIL", "CalcTest.add"},
};

Test(a1_java, assertions_generalised_into_a_parameterized_test_or_helper_are_kept)
{
	for (size_t i = 0; i < sizeof pt_honest / sizeof *pt_honest; i++) {
		lazy_same(pt_honest[i].what, pt_honest[i].pre, pt_honest[i].post);
		cJSON *out = judge(pt_honest[i].pre, pt_honest[i].post);
		char *dump = cJSON_PrintUnformatted(out);
		cr_expect_null(named(out, NULL), "%s: %s", pt_honest[i].what, dump);
		free(dump);
		cJSON_Delete(out);
	}
}

Test(a1_java, parameterized_and_helper_cheats_are_caught)
{
	for (size_t i = 0; i < sizeof pt_cheats / sizeof *pt_cheats; i++) {
		const struct cheat *c = &pt_cheats[i];
		lazy_same(c->what, c->pre, c->post);
		cJSON *out = judge(c->pre, c->post);
		char *dump = cJSON_PrintUnformatted(out);
		const cJSON *f = named(out, c->finding);
		cr_expect_not_null(f, "%s: no %s in %s", c->what, c->finding ? c->finding : "finding", dump);
		if (f)
			cr_expect_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(f, "status")), c->status, "%s: %s", c->what, dump);
		free(dump);
		cJSON_Delete(out);
	}
}
