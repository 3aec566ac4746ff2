/* test_a1_kotlin.c - src/assertions/a1_kotlin_facts.c: the Kotlin test judge (Java's judge on
 * Kotlin's facts). A table of cheats (JUnit and kotlin.test spellings) with the finding, status
 * and test each must give; a table of honest edits that must give no finding; hostile input
 * refused as UNVERIFIED findings, never a crash and never a PASS. (Before this judge each cheat
 * was UNVERIFIED ASSERTION_LANGUAGE_NOT_JUDGED: test_weakening.c checks the dispatch.) */
#include <criterion/criterion.h>
#include <dirent.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "assertions/a1_java.h"
#include "assertions/a1_kotlin.h"
#include "common/buf.h"
#include "common/err.h"

static cJSON *judge(const char *pre, const char *post)
{
	return a1_kotlin_judge("src/test/kotlin/CalcTest.kt", pre, pre ? strlen(pre) : 0, post, post ? strlen(post) : 0);
}

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

#define KT "import kotlin.test.*\n\n"
#define J5 "import org.junit.jupiter.api.*\nimport org.junit.jupiter.api.Assertions.*\n\n"
#define CLS(imports, body) imports "class CalcTest {\n" body "}\n"
#define ADD(ann, stmts) "  " ann "\n  fun add() {\n" stmts "  }\n"
#define EQ "    assertEquals(3, Calc.add(1, 2))\n"
#define BASE CLS(KT, ADD("@Test", EQ))
#define TWO CLS(KT, ADD("@Test", EQ "    assertEquals(0, Calc.add(0, 0))\n"))
#define DIV(check) CLS(KT, "  @Test\n  fun div() {\n    " check " { Calc.div(1, 0) }\n  }\n")

struct cheat {
	const char *what, *pre, *post, *finding, *status, *function;
};

static const struct cheat cheats[] = {
    {"@Ignore added", BASE, CLS(KT, ADD("@Ignore\n  @Test", EQ)), "test-skipped", "FAIL", "CalcTest.add"},
    {"@Disabled on the class", CLS(J5, ADD("@Test", EQ)), J5 "@Disabled(\"later\")\nclass CalcTest {\n" ADD("@Test", EQ) "}\n",
     "test-skipped", "FAIL", "CalcTest.add"},
    {"@Test removed", BASE, CLS(KT, ADD("", EQ)), "test-annotation-removed", "FAIL", "CalcTest.add"},
    {"test deleted", TWO, CLS(KT, ""), "test-deleted", "FAIL", "CalcTest.add"},
    {"file deleted", BASE, NULL, "test-deleted", "FAIL", "CalcTest.add"},
    {"test emptied", BASE, CLS(KT, ADD("@Test", "")), "test-lost-every-assertion", "FAIL", "CalcTest.add"},
    {"one assertion removed", TWO, BASE, "assertion-removed", "FAIL", "CalcTest.add"},
    {"assertTrue(true)", BASE, CLS(KT, ADD("@Test", "    assertTrue(true)\n")), "replaced-by-tautology", "FAIL",
     "CalcTest.add"},
    {"assertEquals(x, x)", BASE, CLS(KT, ADD("@Test", "    val x = Calc.add(1, 2)\n    assertEquals(x, x)\n")),
     "replaced-by-tautology", "FAIL", "CalcTest.add"},
    {"assertEquals -> assertNotNull", BASE, CLS(KT, ADD("@Test", "    assertNotNull(Calc.add(1, 2))\n")),
     "matcher-loosened", "FAIL", "CalcTest.add"},
    /* an exact check rewritten as a boolean of a looser comparison */
    {"assertEquals -> assertTrue(x >= 0)", BASE, CLS(KT, ADD("@Test", "    assertTrue(Calc.add(1, 2) >= 0)\n")),
     "matcher-loosened", "FAIL", "CalcTest.add"},
    {"assertEquals -> Kotlin's assert(x >= 0)", BASE, CLS(KT, ADD("@Test", "    assert(Calc.add(1, 2) >= 0)\n")),
     "matcher-loosened", "FAIL", "CalcTest.add"},
    {"assertEquals -> assertTrue(x != null)", BASE, CLS(KT, ADD("@Test", "    assertTrue(Calc.add(1, 2) != null)\n")),
     "matcher-loosened", "FAIL", "CalcTest.add"},
    {"assertEquals -> assertTrue(a disjunction with it)", BASE,
     CLS(KT, ADD("@Test", "    assertTrue(Calc.add(1, 2) == 3 || Calc.add(1, 2) == 4)\n")), "matcher-loosened",
     "FAIL", "CalcTest.add"},
    {"assertEquals -> assertNotEquals", BASE, CLS(KT, ADD("@Test", "    assertNotEquals(3, Calc.add(1, 2))\n")),
     "assertion-negated", "FAIL", "CalcTest.add"},
    {"assertFailsWith<E> widened to Exception", DIV("assertFailsWith<ArithmeticException>"),
     DIV("assertFailsWith<Exception>"), "throws-broadened", "FAIL", "CalcTest.div"},
    {"assertFailsWith<E> widened to Throwable", DIV("assertFailsWith<ArithmeticException>"),
     DIV("assertFailsWith<Throwable>"), "throws-broadened", "FAIL", "CalcTest.div"},
    {"assertFailsWith(E::class) widened", DIV("assertFailsWith(ArithmeticException::class)"),
     DIV("assertFailsWith(Exception::class)"), "throws-broadened", "FAIL", "CalcTest.div"},
    {"assertFailsWith<E> -> assertFails", DIV("assertFailsWith<ArithmeticException>"), DIV("assertFails"),
     "throws-broadened", "FAIL", "CalcTest.div"},
    {"JUnit assertThrows(E::class.java) widened",
     CLS(J5, "  @Test\n  fun div() {\n    assertThrows(ArithmeticException::class.java) { Calc.div(1, 0) }\n  }\n"),
     CLS(J5, "  @Test\n  fun div() {\n    assertThrows(Throwable::class.java) { Calc.div(1, 0) }\n  }\n"),
     "throws-broadened", "FAIL", "CalcTest.div"},
    {"return before", BASE, CLS(KT, ADD("@Test", "    return\n" EQ)), "assertion-unreachable", "FAIL", "CalcTest.add"},
    {"if (false)", BASE, CLS(KT, ADD("@Test", "    if (false) {\n  " EQ "    }\n")), "assertion-unreachable", "FAIL",
     "CalcTest.add"},
    {"AssertionError swallowed", BASE,
     CLS(KT, ADD("@Test", "    try {\n  " EQ "    } catch (e: AssertionError) {\n    }\n")), "failure-swallowed", "FAIL",
     "CalcTest.add"},
    {"a kotest spec (not read): never PASS",
     "class CalcTest : StringSpec({\n  \"add\" {\n    add(1, 2) shouldBe 3\n  }\n})\n",
     "class CalcTest : StringSpec({\n  \"add\" {\n    add(1, 2) shouldNotBe null\n  }\n})\n", "no-tests-read",
     "UNVERIFIED", NULL},
    {"expected literal changed", BASE, CLS(KT, ADD("@Test", "    assertEquals(4, Calc.add(1, 2))\n")),
     "expected-value-changed", "WARN", "CalcTest.add"},
    {"expected literal changed, named arguments", BASE,
     CLS(KT, ADD("@Test", "    assertEquals(expected = 4, actual = Calc.add(1, 2))\n")), "expected-value-changed",
     "WARN", "CalcTest.add"},
    /* held-out style (issue 32): the cheats the rows above did not have */
    {"@Ignore on the class", BASE, KT "@Ignore\nclass CalcTest {\n" ADD("@Test", EQ) "}\n", "test-skipped", "FAIL",
     "CalcTest.add"},
    {"assertTrue(true, message)", BASE, CLS(KT, ADD("@Test", "    assertTrue(true, \"sum\")\n")), "replaced-by-tautology",
     "FAIL", "CalcTest.add"},
    {"assertTrue(x || true)", CLS(KT, ADD("@Test", "    assertTrue(Calc.add(1, 2) == 3)\n")),
     CLS(KT, ADD("@Test", "    assertTrue(Calc.add(1, 2) == 3 || true)\n")), "replaced-by-tautology", "FAIL",
     "CalcTest.add"},
    {"assertEquals of two constants", BASE, CLS(KT, ADD("@Test", "    assertEquals(3, 1 + 2)\n")), "replaced-by-tautology",
     "FAIL", "CalcTest.add"},
    {"assertEquals -> assertIs<Int>", BASE, CLS(KT, ADD("@Test", "    assertIs<Int>(Calc.add(1, 2))\n")),
     "matcher-loosened", "FAIL", "CalcTest.add"},
    {"assertFailsWith<IllegalStateException> -> <RuntimeException>", DIV("assertFailsWith<IllegalStateException>"),
     DIV("assertFailsWith<RuntimeException>"), "throws-broadened", "FAIL", "CalcTest.div"},
    {"assertFailsWith<AssertionError> around the assertion", BASE,
     CLS(KT, ADD("@Test", "    assertFailsWith<AssertionError> {\n  " EQ "    }\n")), "failure-swallowed", "FAIL",
     "CalcTest.add"},
    {"assertFails { } around the assertion", BASE, CLS(KT, ADD("@Test", "    assertFails {\n  " EQ "    }\n")),
     "failure-swallowed", "FAIL", "CalcTest.add"},
    {"runCatching { } swallows it", BASE, CLS(KT, ADD("@Test", "    runCatching {\n  " EQ "    }\n")),
     "failure-swallowed", "FAIL", "CalcTest.add"},
    {"catch (e: Throwable) {}", BASE, CLS(KT, ADD("@Test", "    try {\n  " EQ "    } catch (e: Throwable) {\n    }\n")),
     "failure-swallowed", "FAIL", "CalcTest.add"},
    {"if (true) return", BASE, CLS(KT, ADD("@Test", "    if (true) return\n" EQ)), "assertion-unreachable", "FAIL",
     "CalcTest.add"},
    {"assumeTrue(false)", CLS(J5, ADD("@Test", EQ)),
     CLS(J5 "import org.junit.jupiter.api.Assumptions.*\n", ADD("@Test", "    assumeTrue(false)\n" EQ)), "test-skipped",
     "FAIL", "CalcTest.add"},
    {"JUnit 4 Assume.assumeTrue(false)", BASE, CLS(KT "import org.junit.Assume\n", ADD("@Test", "    Assume.assumeTrue(false)\n" EQ)),
     "test-skipped", "FAIL", "CalcTest.add"},
    {"assumeTrue(value) added", CLS(J5, ADD("@Test", EQ)),
     CLS(J5, ADD("@Test", "    Assumptions.assumeTrue(System.getenv(\"SLOW\") != null)\n" EQ)), "conditional-skip-added",
     "UNVERIFIED", "CalcTest.add"},
    {"@EnabledOnOs added", CLS(J5, ADD("@Test", EQ)), CLS(J5, ADD("@Test\n  @EnabledOnOs(OS.AIX)", EQ)),
     "conditional-skip-added", "UNVERIFIED", "CalcTest.add"},
    {"test made private", BASE, CLS(KT, "  @Test\n  private fun add() {\n" EQ "  }\n"), "test-not-collected", "FAIL",
     "CalcTest.add"},
    {"@Nested removed from an inner class",
     CLS(J5, "  @Nested\n  inner class Sub {\n    @Test\n    fun sub() {\n      assertEquals(1, Calc.sub(2, 1))\n    }\n  }\n"),
     CLS(J5, "  inner class Sub {\n    @Test\n    fun sub() {\n      assertEquals(1, Calc.sub(2, 1))\n    }\n  }\n"),
     "test-not-collected", "FAIL", "CalcTest.Sub.sub"},
    {"a backquoted test renamed and emptied", CLS(KT, "  @Test\n  fun `adds numbers`() {\n" EQ "  }\n"),
     CLS(KT, "  @Test\n  fun `adds two numbers`() {\n    assertTrue(true)\n  }\n"), "test-deleted", "FAIL",
     "CalcTest.`adds numbers`"},
    {"a Spek spec (not read): never PASS",
     "object CalcSpec : Spek({\n  describe(\"add\") {\n    it(\"sums\") {\n      assertEquals(3, add(1, 2))\n    }\n  }\n})\n",
     "object CalcSpec : Spek({\n  describe(\"add\") {\n    it(\"sums\") {\n      assertTrue(true)\n    }\n  }\n})\n",
     "no-tests-read", "UNVERIFIED", NULL},
    {"expected value changed through a local", CLS(KT, ADD("@Test", "    val want = 3\n    assertEquals(want, Calc.add(1, 2))\n")),
     CLS(KT, ADD("@Test", "    val want = 4\n    assertEquals(want, Calc.add(1, 2))\n")), "expected-value-changed", "WARN",
     "CalcTest.add"},
    {"the actual value replaced by a constant local", CLS(KT, ADD("@Test", "    val got = Calc.add(1, 2)\n    assertEquals(3, got)\n")),
     CLS(KT, ADD("@Test", "    val got = 3 // Calc.add(1, 2)\n    assertEquals(3, got)\n")), "replaced-by-tautology", "FAIL",
     "CalcTest.add"},
    {"a test moved into the companion object", BASE,
     CLS(KT, "  companion object {\n    @Test\n    fun add() {\n  " EQ "    }\n  }\n"), "test-deleted", "FAIL", "CalcTest.add"},
    {"class renamed out of Surefire's names", BASE, KT "class Calc {\n" ADD("@Test", EQ) "}\n", "conditional-skip-added",
     "UNVERIFIED", "CalcTest.add"},
    {"an assertion put under an if of the environment", BASE,
     CLS(KT, ADD("@Test", "    if (System.getenv(\"CI\") == null) {\n  " EQ "    }\n")), "conditional-skip-added", "UNVERIFIED",
     "CalcTest.add"},
    {"absoluteTolerance widened", CLS(KT, ADD("@Test", "    assertEquals(0.3, Calc.avg(), 1e-9)\n")),
     CLS(KT, ADD("@Test", "    assertEquals(0.3, Calc.avg(), absoluteTolerance = 0.5)\n")), "tolerance-widened", "FAIL",
     "CalcTest.add"},
    {"@Timeout removed", CLS(J5, ADD("@Test\n  @Timeout(1)", EQ)), CLS(J5, ADD("@Test", EQ)), "assertion-removed", "FAIL",
     "CalcTest.add"},
    {"@Timeout raised", CLS(J5, ADD("@Test\n  @Timeout(1)", EQ)), CLS(J5, ADD("@Test\n  @Timeout(60)", EQ)),
     "expected-value-changed", "WARN", "CalcTest.add"},
    {"@ValueSource row removed",
     CLS(J5, "  @ParameterizedTest\n  @ValueSource(ints = [1, 2, -1])\n  fun pos(v: Int) {\n    assertTrue(Calc.abs(v) > 0)\n  }\n"),
     CLS(J5, "  @ParameterizedTest\n  @ValueSource(ints = [1, 2])\n  fun pos(v: Int) {\n    assertTrue(Calc.abs(v) > 0)\n  }\n"),
     "test-case-removed", "FAIL", "CalcTest.pos"},
    {"@CsvSource row removed",
     CLS(J5, "  @ParameterizedTest\n  @CsvSource(\"1, 2, 3\", \"2, 2, 5\")\n  fun add(a: Int, b: Int, c: Int) {\n"
	     "    assertEquals(c, Calc.add(a, b))\n  }\n"),
     CLS(J5, "  @ParameterizedTest\n  @CsvSource(\"1, 2, 3\")\n  fun add(a: Int, b: Int, c: Int) {\n"
	     "    assertEquals(c, Calc.add(a, b))\n  }\n"),
     "test-case-removed", "FAIL", "CalcTest.add"},
    {"an assertion moved into a new test that is ignored", TWO,
     CLS(KT, ADD("@Test", EQ) "  @Ignore\n  @Test\n  fun addZero() {\n    assertEquals(0, Calc.add(0, 0))\n  }\n"),
     "assertion-removed", "FAIL", "CalcTest.add"},
    {"@BeforeEach assumeTrue(false)", CLS(J5, ADD("@Test", EQ)),
     CLS(J5, "  @BeforeEach\n  fun setUp() {\n    Assumptions.assumeTrue(false)\n  }\n" ADD("@Test", EQ)), "test-skipped",
     "FAIL", "CalcTest.add"},
    {"companion @BeforeAll assumeTrue(false)", CLS(J5, ADD("@Test", EQ)),
     CLS(J5, ADD("@Test", EQ) "  companion object {\n    @JvmStatic\n    @BeforeAll\n    fun setUp() {\n"
			      "      Assumptions.assumeTrue(false)\n    }\n  }\n"),
     "test-skipped", "FAIL", "CalcTest.add"},
    {"throw TestAbortedException()", CLS(J5, ADD("@Test", EQ)),
     CLS(J5, ADD("@Test", "    throw TestAbortedException(\"later\")\n")), "test-skipped", "FAIL", "CalcTest.add"},
    {"catch (e: AssertionError) asserting only e", BASE,
     CLS(KT, ADD("@Test", "    try {\n  " EQ "    } catch (e: AssertionError) {\n      assertNotNull(e)\n    }\n")),
     "failure-swallowed", "FAIL", "CalcTest.add"},
    {"the assertion moved into a lambda nothing calls", BASE,
     CLS(KT, ADD("@Test", "    val check = { assertEquals(3, Calc.add(1, 2)) }\n")), "assertion-unreachable", "FAIL",
     "CalcTest.add"},
    {"assert(true)", BASE, CLS(KT, ADD("@Test", "    assert(true)\n")), "replaced-by-tautology", "FAIL", "CalcTest.add"},
    {"class made abstract", BASE, KT "abstract class CalcTest {\n" ADD("@Test", EQ) "}\n", "conditional-skip-added",
     "UNVERIFIED", "CalcTest.add"},
    {"@Nested on a class that is not inner", CLS(J5, "  @Nested\n  inner class Sub {\n    @Test\n    fun sub() {\n      assertEquals(1, Calc.sub(2, 1))\n    }\n  }\n"),
     CLS(J5, "  @Nested\n  class Sub {\n    @Test\n    fun sub() {\n      assertEquals(1, Calc.sub(2, 1))\n    }\n  }\n"),
     "conditional-skip-added", "UNVERIFIED", "CalcTest.Sub.sub"},
};

Test(a1_kotlin, each_cheat_is_caught_naming_the_test)
{
	for (size_t i = 0; i < sizeof cheats / sizeof *cheats; i++) {
		const struct cheat *c = &cheats[i];
		cJSON *out = judge(c->pre, c->post);
		char *dump = cJSON_PrintUnformatted(out);
		const cJSON *f = named(out, c->finding);
		cr_expect_not_null(f, "%s: no %s in %s", c->what, c->finding, dump);
		if (f) {
			cr_expect_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(f, "status")), c->status, "%s: %s", c->what,
					 dump);
			const char *fn = cJSON_GetStringValue(cJSON_GetObjectItem(f, "function"));
			cr_expect(c->function ? fn && !strcmp(fn, c->function) : !fn, "%s: %s", c->what, dump);
		}
		free(dump);
		cJSON_Delete(out);
	}
}

struct honest {
	const char *what, *pre, *post;
};

static const struct honest honest[] = {
    {"a new test", BASE,
     CLS(KT, ADD("@Test", EQ) "  @Test\n  fun sub() {\n    assertEquals(1, Calc.sub(2, 1))\n  }\n")},
    {"a new assertion", BASE, TWO},
    {"stricter: assertNotNull -> assertEquals", CLS(KT, ADD("@Test", "    assertNotNull(Calc.add(1, 2))\n")), BASE},
    {"assertFailsWith narrowed", DIV("assertFailsWith<RuntimeException>"), DIV("assertFailsWith<ArithmeticException>")},
    {"assertFailsWith<E> respelled (E::class)", DIV("assertFailsWith<ArithmeticException>"),
     DIV("assertFailsWith(ArithmeticException::class)")},
    {"a rename", BASE, CLS(KT, "  @Test\n  fun `adds two numbers`() {\n" EQ "  }\n")},
    {"reformatted, commented", BASE,
     CLS(KT, "  @Test fun add() { // sum\n    assertEquals( 3,\n        Calc.add( 1, 2 ) ) /* same */\n  }\n")},
    {"a message added", BASE, CLS(KT, ADD("@Test", "    assertEquals(3, Calc.add(1, 2), \"sum\")\n"))},
    {"named arguments", BASE, CLS(KT, ADD("@Test", "    assertEquals(expected = 3, actual = Calc.add(1, 2))\n"))},
    {"moved into a helper", BASE, CLS(KT, ADD("@Test", "    check()\n") "  private fun check() {\n" EQ "  }\n")},
    {"an expression body", BASE, CLS(KT, "  @Test\n  fun add() = assertEquals(3, Calc.add(1, 2))\n")},
    {"a @Nested class of new tests", BASE,
     CLS(KT, ADD("@Test", EQ) "  @Nested\n  inner class Sub {\n    @Test\n    fun sub() {\n      assertEquals(1, Calc.sub(2, 1))\n"
			      "    }\n  }\n")},
    {"a companion object", BASE, CLS(KT, ADD("@Test", EQ) "  companion object {\n    const val N = 3\n  }\n")},
    {"a string template", BASE, CLS(KT, ADD("@Test", EQ "    println(\"got ${Calc.add(1, 2)} of ${\"x\"}\")\n"))},
    {"a new file", NULL, BASE},
    /* held-out style (issue 32) */
    {"@DisplayName added", CLS(J5, ADD("@Test", EQ)), CLS(J5, ADD("@Test\n  @DisplayName(\"adds\")", EQ))},
    {"a message added by name", BASE, CLS(KT, ADD("@Test", "    assertEquals(3, Calc.add(1, 2), message = \"sum\")\n"))},
    {"an internal test", BASE, CLS(KT, "  @Test\n  internal fun add() {\n" EQ "  }\n")},
    {"a nested class of helpers", BASE, CLS(KT, ADD("@Test", EQ) "  class Fixtures {\n    fun three() = 3\n  }\n")},
    {"runCatching checked by an assertion", BASE,
     CLS(KT, ADD("@Test", EQ "    val r = runCatching { Calc.div(1, 0) }\n    assertTrue(r.isFailure)\n"))},
    {"AssertionError caught and thrown again", BASE,
     CLS(KT, ADD("@Test", "    try {\n  " EQ "    } catch (e: AssertionError) {\n      throw IllegalStateException(\"ctx\", e)\n    }\n"))},
    {"a constant assertion added beside the real one", BASE, CLS(KT, ADD("@Test", EQ "    assertTrue(Calc.ready() || true)\n"))},
    {"a test moved into a @Nested inner class", CLS(J5, ADD("@Test", EQ)),
     CLS(J5, "  @Nested\n  inner class Sums {\n" ADD("@Test", EQ) "  }\n")},
    {"a new assertion under an if", BASE,
     CLS(KT, ADD("@Test", EQ "    if (Calc.ready()) {\n      assertEquals(1, Calc.sub(2, 1))\n    }\n"))},
    {"an assertion under an if whose else fails", BASE,
     CLS(KT, ADD("@Test", "    if (Calc.ready()) {\n  " EQ "    } else {\n      fail(\"not ready\")\n    }\n"))},
    {"absoluteTolerance narrowed", CLS(KT, ADD("@Test", "    assertEquals(0.3, Calc.avg(), 1e-6)\n")),
     CLS(KT, ADD("@Test", "    assertEquals(0.3, Calc.avg(), 1e-9)\n"))},
    {"@Timeout added", CLS(J5, ADD("@Test", EQ)), CLS(J5, ADD("@Test\n  @Timeout(5)", EQ))},
    {"@ValueSource rows added",
     CLS(J5, "  @ParameterizedTest\n  @ValueSource(ints = [1, 2])\n  fun pos(v: Int) {\n    assertTrue(Calc.abs(v) > 0)\n  }\n"),
     CLS(J5, "  @ParameterizedTest\n  @ValueSource(ints = [2, 1, 3])\n  fun pos(v: Int) {\n    assertTrue(Calc.abs(v) > 0)\n  }\n")},
    {"a test split in two", TWO,
     CLS(KT, ADD("@Test", EQ) "  @Test\n  fun addZero() {\n    assertEquals(0, Calc.add(0, 0))\n  }\n")},
    {"an equals() test's fixtures made locals",
     CLS(KT, "  val p1 = Point(1, 2)\n  val p2 = Point(1, 2)\n" ADD("@Test", "    assertEquals(p1, p2)\n")),
     CLS(KT, ADD("@Test", "    val p1 = Point(1, 2)\n    val p2 = Point(1, 2)\n    assertEquals(p1, p2)\n"))},
    {"the assertion in a lambda that is run", BASE,
     CLS(KT, ADD("@Test", "    val check = { assertEquals(3, Calc.add(1, 2)) }\n    check()\n"))},
    {"assertTrue respelled Kotlin's assert", CLS(KT, ADD("@Test", "    assertTrue(Calc.add(1, 2) == 3)\n")),
     CLS(KT, ADD("@Test", "    assert(Calc.add(1, 2) == 3)\n"))},
    {"a local renamed", CLS(KT, ADD("@Test", "    val want = 3\n    assertEquals(want, Calc.add(1, 2))\n")),
     CLS(KT, ADD("@Test", "    val expected = 3\n    assertEquals(expected, Calc.add(1, 2))\n"))},
    {"a local brought in for the actual value", BASE,
     CLS(KT, ADD("@Test", "    val got = Calc.add(1, 2)\n    assertEquals(3, got)\n"))},
    {"a class renamed within Surefire's names", BASE, KT "class CalculatorTest {\n" ADD("@Test", EQ) "}\n"},
    {"an assumption kept", CLS(J5, ADD("@Test", "    Assumptions.assumeTrue(Calc.ready())\n" EQ)),
     CLS(J5, ADD("@Test", "    Assumptions.assumeTrue(Calc.ready())\n" EQ "    assertEquals(0, Calc.add(0, 0))\n"))},
    /* the boolean form of the same check, a stricter one, one added beside */
    {"assertEquals -> assertTrue(x == 3)", BASE, CLS(KT, ADD("@Test", "    assertTrue(Calc.add(1, 2) == 3)\n"))},
    {"assertTrue(x == 3) -> assertEquals", CLS(KT, ADD("@Test", "    assertTrue(Calc.add(1, 2) == 3)\n")), BASE},
    {"stricter: assertTrue(x >= 0) -> assertEquals", CLS(KT, ADD("@Test", "    assertTrue(Calc.add(1, 2) >= 0)\n")),
     BASE},
    {"assertTrue(x >= 0) added beside", BASE, CLS(KT, ADD("@Test", EQ "    assertTrue(Calc.add(1, 2) >= 0)\n"))},
};

Test(a1_kotlin, honest_edits_have_no_finding)
{
	for (size_t i = 0; i < sizeof honest / sizeof *honest; i++) {
		cJSON *out = judge(honest[i].pre, honest[i].post);
		char *dump = cJSON_PrintUnformatted(out);
		cr_expect_null(named(out, NULL), "%s: %s", honest[i].what, dump);
		free(dump);
		cJSON_Delete(out);
	}
}

/* What cannot be read is UNVERIFIED, never a crash and never a PASS: Java's guard, with
 * Kotlin's string templates and nesting comments (neither hides brackets from it). */
Test(a1_kotlin, hostile_input_is_unverified)
{
	size_t deep = 70000;
	char *brackets = malloc(2 * deep + 64), *bangs = malloc(deep + 128), *tmpl = malloc(6 * deep + 128),
	     *comments = malloc(6 * deep + 128);
	char *p = brackets + sprintf(brackets, "class CalcTest {\n  val x = ");
	memset(p, '(', deep);
	strcpy(p + deep, "1\n}\n");
	p = bangs + sprintf(bangs, "class CalcTest {\n  val x = ");
	memset(p, '!', deep);
	strcpy(p + deep, "true\n}\n");
	/* 300 deep, valid Kotlin: refused only when templates and comments are read as Kotlin's */
	p = tmpl + sprintf(tmpl, "class CalcTest {\n  val x = ");
	for (size_t i = 0; i < 300; i++) /* "${"${"${ 1 }"}"}" : every template a bracket */
		p += sprintf(p, "\"${");
	*p++ = '1';
	for (size_t i = 0; i < 300; i++)
		p += sprintf(p, "}\"");
	strcpy(p, "\n}\n");
	p = comments + sprintf(comments, "class CalcTest {\n  val x = ");
	memset(p, '(', 150);
	p += 150;
	p += sprintf(p, " /* /* */ ");
	memset(p, ')', 150);
	p += 150;
	p += sprintf(p, " */ ");
	memset(p, '(', 150);
	p += 150;
	*p++ = '1';
	memset(p, ')', 300);
	strcpy(p + 300, "\n}\n");
#define UNCLOSED "class CalcTest {\n  fun f( \n}\n"
#define NUL_INSIDE "class CalcTest {}\0x"
#define NOT_UTF8 "class CalcTest { val s = \"\xff\" }"
	const char *bad[] = {brackets, bangs, tmpl, comments, UNCLOSED, NUL_INSIDE, NOT_UTF8};
	/* the literals' own lengths (a hand-counted 33 read 3 bytes past the last one: ASan) */
	const size_t lens[] = {strlen(brackets), strlen(bangs),		strlen(tmpl),	     strlen(comments),
			       sizeof UNCLOSED - 1, sizeof NUL_INSIDE - 1, sizeof NOT_UTF8 - 1};
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		cJSON *out = a1_kotlin_judge("CalcTest.kt", BASE, strlen(BASE), bad[i], lens[i]);
		const cJSON *f = named(out, NULL);
		cr_assert_not_null(f, "input %zu gave no finding", i);
		cr_expect_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(f, "status")), "UNVERIFIED", "input %zu", i);
		int tests, asserts;
		cr_expect_eq(a1_kotlin_count(bad[i], lens[i], &tests, &asserts), BELAY_EINVAL, "input %zu", i);
		cJSON_Delete(out);
	}
	free(brackets);
	free(bangs);
	free(tmpl);
	free(comments);
}

Test(a1_kotlin, counts_tests_and_assertions)
{
	int tests, asserts;
	cr_assert_eq(a1_kotlin_count(TWO, strlen(TWO), &tests, &asserts), 0);
	cr_expect_eq(tests, 1);
	cr_expect_eq(asserts, 2);
	cr_expect(a1_kotlin_is_source("src/test/kotlin/CalcTest.kt") && a1_kotlin_is_source("X.KT") &&
		  !a1_kotlin_is_source("build.gradle.kts") && !a1_kotlin_is_source("a.java"));
}

/* tree-sitter-kotlin 1.1.0's scanner loops for ever on an `@` before the end of a file (found
 * by fuzz_a1_kotlin; tree-sitter's timeout is not checked inside a scanner): each side is read
 * in a bounded child (a1_bound.h), and one stopped at its bound is UNVERIFIED parse-bounded by
 * name, on either side, never PASS and never FAIL. The bound is lowered for the test. */
Test(a1_kotlin, scanner_loop_is_unverified_parse_bounded)
{
	setenv("BELAY_A1_PARSE_MS", "300", 1);
	const char *loops[] = {
	    "class T { @Test fun f() {} }\n@",
	    "class T \n @Testss",
	    "class T {\n  @T {\n  @Ta\x1c",
	};
	for (size_t i = 0; i < sizeof loops / sizeof *loops; i++) {
		for (int side = 0; side < 2; side++) {
			cJSON *out = side ? judge(BASE, loops[i]) : judge(loops[i], BASE);
			const cJSON *f = named(out, "parse-bounded");
			char *s = cJSON_PrintUnformatted(out);
			cr_assert_not_null(f, "loop %zu side %d: %s", i, side, s);
			cr_expect_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(f, "status")), "UNVERIFIED");
			cr_expect_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(f, "cause")), "ASSERTION_FILE_UNREADABLE");
			cr_expect_not_null(strstr(s, "its bound of 300 ms of CPU time"), "%s", s);
			const cJSON *g;
			int bounded = 0;
			cJSON_ArrayForEach(g, out)
			{
				cr_expect_str_neq(cJSON_GetStringValue(cJSON_GetObjectItem(g, "status")), "FAIL", "%s", s);
				bounded += !strcmp(cJSON_GetStringValue(cJSON_GetObjectItem(g, "finding")), "parse-bounded");
			}
			cr_expect_eq(bounded, 1, "only the side that loops is refused: %s", s);
			free(s);
			cJSON_Delete(out);
		}
		int tests, asserts;
		cr_expect_eq(a1_kotlin_count(loops[i], strlen(loops[i]), &tests, &asserts), BELAY_EINVAL);
	}
	/* the bound does not touch a file read within it */
	cJSON *out = judge(BASE, CLS(KT, ADD("@Ignore\n  @Test", EQ)));
	cr_expect_not_null(named(out, "test-skipped"));
	cJSON_Delete(out);
	unsetenv("BELAY_A1_PARSE_MS");
}

/* On other inputs the same grammar grows without end (fuzz_a1_kotlin: ~1 GB in 8 s under ASan;
 * the first one found reached ~3 GB past 120 s): the child is stopped at its memory bound
 * (RLIMIT_AS, or the parent's watch of its resident memory under ASan), UNVERIFIED
 * parse-bounded. The memory bound is lowered for the test, the CPU bound raised so that memory
 * is what stops it. */
Test(a1_kotlin, parser_growth_is_unverified_parse_bounded)
{
	setenv("BELAY_A1_PARSE_MIB", "64", 1);
	setenv("BELAY_A1_PARSE_MS", "60000", 1);
	static const char grows[] =
	    "ocT {\n"
	    " @T est nua fslT T {\n"
	    "  @Tts Q0esa\n"
	    " aw \n"
	    "]T   sa\n"
	    " aw T {\n"
	    " externalEinitalclatt {\n"
	    "  @IgnoIgnognore @Te  lateinu quaclassstpdnt~(/{\n"
	    "s\n"
	    " ";
	cJSON *out = judge(BASE, grows);
	const cJSON *f = named(out, "parse-bounded");
	char *s = cJSON_PrintUnformatted(out);
	cr_assert_not_null(f, "%s", s);
	cr_expect_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(f, "status")), "UNVERIFIED");
	cr_expect_not_null(strstr(s, "its bound of 64 MiB of memory"), "%s", s);
	free(s);
	cJSON_Delete(out);
	unsetenv("BELAY_A1_PARSE_MIB");
	unsetenv("BELAY_A1_PARSE_MS");
}

/* ---- the worker (a1_worker.h): the same findings as a one-shot child, cold or warm ---- */

/* The findings of out as one line each (a parse-bounded one without its message: which bound
 * stopped a parse that both loops and grows may differ from run to run). */
static char *lines_of(const cJSON *out)
{
	struct buf b = {0};
	const cJSON *f;
	cJSON_ArrayForEach(f, out)
	{
		const char *n = cJSON_GetStringValue(cJSON_GetObjectItem(f, "finding"));
		int bounded = n && !strcmp(n, "parse-bounded");
		cJSON *g = cJSON_Duplicate(f, 1);
		if (bounded)
			cJSON_DeleteItemFromObject(g, "message");
		char *s = cJSON_PrintUnformatted(g);
		buf_printf(&b, "%s\n", s);
		free(s);
		cJSON_Delete(g);
	}
	buf_putc(&b, 0);
	return b.p;
}

static char *judged(const char *pre, size_t pre_len, const char *post, size_t post_len)
{
	cJSON *out = a1_kotlin_judge("src/test/kotlin/CalcTest.kt", pre, pre_len, post, post_len);
	char *s = lines_of(out);
	cJSON_Delete(out);
	return s;
}

/* One pair read five ways: in a one-shot child, by a worker that remembers nothing (cold), by
 * one that remembers the pre side (read against itself before: the post side parsed against
 * its remembered tree), by one that remembers both, and counted; all the same. */
static void same_every_way(const char *what, const char *pre, size_t pre_len, const char *post, size_t post_len)
{
	a1_kotlin_worker_use(0);
	char *one = judged(pre, pre_len, post, post_len);
	int t1 = -1, a1 = -1, r1 = a1_kotlin_count(post, post_len, &t1, &a1);
	a1_kotlin_worker_use(1);
	a1_kotlin_worker_forget();
	char *cold = judged(pre, pre_len, post, post_len);
	a1_kotlin_worker_forget();
	free(judged(pre, pre_len, pre, pre_len));
	char *warm = judged(pre, pre_len, post, post_len);
	char *both = judged(pre, pre_len, post, post_len);
	int t2 = -1, a2 = -1, r2 = a1_kotlin_count(post, post_len, &t2, &a2);
	cr_expect_str_eq(cold, one, "%s: cold", what);
	cr_expect_str_eq(warm, one, "%s: warm", what);
	cr_expect_str_eq(both, one, "%s: both remembered", what);
	cr_expect(r1 == r2 && t1 == t2 && a1 == a2, "%s: counted %d %d %d, not %d %d %d", what, r2, t2, a2, r1, t1, a1);
	free(one);
	free(cold);
	free(warm);
	free(both);
}

Test(a1_kotlin, the_worker_reads_as_a_one_shot_child_cold_and_warm)
{
	for (size_t i = 0; i < sizeof cheats / sizeof *cheats; i++) {
		const struct cheat *c = &cheats[i];
		same_every_way(c->what, c->pre, c->pre ? strlen(c->pre) : 0, c->post, c->post ? strlen(c->post) : 0);
	}
	for (size_t i = 0; i < sizeof honest / sizeof *honest; i++) {
		const struct honest *h = &honest[i];
		same_every_way(h->what, h->pre, h->pre ? strlen(h->pre) : 0, h->post, h->post ? strlen(h->post) : 0);
	}
}

/* The fuzz seeds and the inputs fuzzing found the grammar loops or grows on (split as
 * fuzz_a1_kotlin splits them: at the first 0xff byte; none: the post side absent), each seed
 * also judged against a plain file on either side. */
Test(a1_kotlin, the_worker_reads_the_fuzz_corpus_as_a_one_shot_child, .timeout = 600)
{
	setenv("BELAY_A1_PARSE_MS", "300", 1);
	setenv("BELAY_A1_PARSE_MIB", "64", 1);
	static const char *const dirs[] = {BELAY_SOURCE_DIR "/tests/fuzz/seeds/a1_kotlin",
					   BELAY_SOURCE_DIR "/tests/fuzz/regress/a1_kotlin"};
	int files = 0;
	for (size_t d = 0; d < 2; d++) {
		DIR *dir = opendir(dirs[d]);
		cr_assert_not_null(dir, "%s", dirs[d]);
		struct dirent *de;
		while ((de = readdir(dir))) {
			if (de->d_name[0] == '.')
				continue;
			char path[1024];
			snprintf(path, sizeof path, "%s/%s", dirs[d], de->d_name);
			FILE *f = fopen(path, "rb");
			cr_assert_not_null(f, "%s", path);
			char data[8192];
			size_t n = fread(data, 1, sizeof data, f);
			fclose(f);
			const char *ff = memchr(data, 0xff, n);
			size_t pre_len = ff ? (size_t)(ff - data) : n;
			const char *post = ff ? ff + 1 : NULL;
			size_t post_len = ff ? n - pre_len - 1 : 0;
			same_every_way(de->d_name, data, pre_len, post, post_len);
			if (d == 0) { /* a seed: also against a plain file (a regress input costs its bound each time) */
				same_every_way(de->d_name, BASE, strlen(BASE), data, pre_len);
				same_every_way(de->d_name, data, pre_len, BASE, strlen(BASE));
			}
			files++;
		}
		closedir(dir);
	}
	cr_expect_geq(files, 10);
	unsetenv("BELAY_A1_PARSE_MS");
	unsetenv("BELAY_A1_PARSE_MIB");
}

/* A side stopped at its bound ends the worker that read it: the next file is read by a new
 * worker, which answers as before. */
Test(a1_kotlin, a_side_that_loops_ends_the_worker_and_the_next_file_gets_a_new_one)
{
	setenv("BELAY_A1_PARSE_MS", "300", 1);
	a1_kotlin_worker_use(1);
	cJSON *out = judge(BASE, TWO);
	cr_expect_null(named(out, NULL));
	cJSON_Delete(out);
	unsigned long s0;
	pid_t pid = a1_kotlin_worker_pid(&s0);
	cr_assert_gt(pid, 0);
	out = judge(BASE, "class T { @Test fun f() {} }\n@");
	cr_expect_not_null(named(out, "parse-bounded"));
	cJSON_Delete(out);
	cr_expect_eq(a1_kotlin_worker_pid(NULL), 0, "the worker that looped is ended");
	out = judge(TWO, BASE);
	cr_expect_not_null(named(out, "assertion-removed"));
	cJSON_Delete(out);
	unsigned long s1;
	pid_t again = a1_kotlin_worker_pid(&s1);
	cr_expect(again > 0 && again != pid && s1 == s0 + 1, "pid %d after %d, %lu workers after %lu", (int)again,
		  (int)pid, s1, s0);
	unsetenv("BELAY_A1_PARSE_MS");
}

/* Threads judging at once: in turn in the worker, or in one-shot children when it stays busy
 * past A1_WORKER_WAIT_MS; every answer right. */
static void *judge_cheats(void *arg)
{
	long bad = 0;
	for (int round = 0; round < 3; round++)
		for (size_t i = 0; i < sizeof cheats / sizeof *cheats; i++) {
			const struct cheat *c = &cheats[i];
			cJSON *out = judge(c->pre, c->post);
			const cJSON *f = named(out, c->finding);
			bad += !f || strcmp(cJSON_GetStringValue(cJSON_GetObjectItem(f, "status")), c->status);
			cJSON_Delete(out);
		}
	*(long *)arg = bad;
	return NULL;
}

Test(a1_kotlin, threads_judging_at_once_get_right_answers)
{
	a1_kotlin_worker_use(1);
	pthread_t t[3];
	long bad[3] = {-1, -1, -1};
	for (int i = 0; i < 3; i++)
		cr_assert_eq(pthread_create(&t[i], NULL, judge_cheats, &bad[i]), 0);
	for (int i = 0; i < 3; i++) {
		pthread_join(t[i], NULL);
		cr_expect_eq(bad[i], 0, "thread %d: %ld wrong answers", i, bad[i]);
	}
}

/*==== issue 32: N assertions generalised into a parameterized test or a helper ==============*/

#define PT_TWO CLS(KT, ADD("@Test", EQ "    assertEquals(4, Calc.add(2, 2))\n"))
#define PT_PARAM(csv, body)                                                                                            \
	CLS("import org.junit.jupiter.params.ParameterizedTest\nimport org.junit.jupiter.params.provider.CsvSource\n" J5, \
	    "  @ParameterizedTest\n  @CsvSource(" csv ")\n  fun add(a: Int, b: Int, want: Int) {\n" body "  }\n")
#define PT_PARAM_EQ "    assertEquals(want, Calc.add(a, b))\n"
#define PT_HELPER(body, calls) CLS(KT, "  private fun assertSum(a: Int, b: Int, want: Int) {\n" body "  }\n\n" ADD("@Test", calls))
#define PT_HELPER_EQ "    assertEquals(want, Calc.add(a, b), \"$a + $b\")\n"

static const struct honest pt_honest[] = {
    {"kotlin parameterized (@CsvSource)", PT_TWO, PT_PARAM("\"1, 2, 3\", \"2, 2, 4\"", PT_PARAM_EQ)},
    {"kotlin helper", PT_TWO, PT_HELPER(PT_HELPER_EQ, "    assertSum(1, 2, 3)\n    assertSum(2, 2, 4)\n")},
};

static const struct cheat pt_cheats[] = {
    {"kotlin parameterized: a row dropped", PT_TWO, PT_PARAM("\"1, 2, 3\"", PT_PARAM_EQ), "assertion-removed", "FAIL",
     "CalcTest.add"},
    {"kotlin parameterized: a row's expected value changed", PT_TWO, PT_PARAM("\"1, 2, 3\", \"2, 2, 5\"", PT_PARAM_EQ),
     "assertion-removed", "FAIL", "CalcTest.add"},
    {"kotlin parameterized: asserts a tautology", PT_TWO,
     PT_PARAM("\"1, 2, 3\", \"2, 2, 4\"", "    Calc.add(a, b)\n    assertTrue(true)\n"), NULL, "FAIL", "CalcTest.add"},
    {"kotlin helper: a call dropped", PT_TWO, PT_HELPER(PT_HELPER_EQ, "    assertSum(1, 2, 3)\n"), "assertion-removed",
     "FAIL", "CalcTest.add"},
    {"kotlin helper: a call's expected value changed", PT_TWO,
     PT_HELPER(PT_HELPER_EQ, "    assertSum(1, 2, 3)\n    assertSum(2, 2, 5)\n"), "assertion-removed", "FAIL", "CalcTest.add"},
    {"kotlin helper: its assertion removed", PT_TWO,
     PT_HELPER("    Calc.add(a, b)\n", "    assertSum(1, 2, 3)\n    assertSum(2, 2, 4)\n"), NULL, "FAIL", "CalcTest.add"},
};

Test(a1_kotlin, assertions_generalised_into_a_parameterized_test_or_helper_are_kept)
{
	for (size_t i = 0; i < sizeof pt_honest / sizeof *pt_honest; i++) {
		cJSON *out = judge(pt_honest[i].pre, pt_honest[i].post);
		char *dump = cJSON_PrintUnformatted(out);
		cr_expect_null(named(out, NULL), "%s: %s", pt_honest[i].what, dump);
		free(dump);
		cJSON_Delete(out);
	}
}

Test(a1_kotlin, parameterized_and_helper_cheats_are_caught)
{
	for (size_t i = 0; i < sizeof pt_cheats / sizeof *pt_cheats; i++) {
		const struct cheat *c = &pt_cheats[i];
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
