/* test_a1_rows.c - A1's table rule on its own (src/assertions/a1_rows.c): which bracketed
 * groups of a post test's text are rows, which assertions generalise, one row per pre
 * assertion; hostile text gives no rows and no crash. The judges' use of it is in
 * test_a1_go_rust.c, test_a1_java.c, test_a1_kotlin.c (issue 32 rows). */
#include <criterion/criterion.h>
#include <string.h>

#include "assertions/a1_rows.h"

/* One pre assertion against a post test starting at `line` of `text` with one generalised
 * assertion g (holder NULL: in the test); the index a1_rows_cover gives. */
static long cover1(const char *text, unsigned line, const struct a1_rows_fact *g, const struct a1_rows_func *fs,
		   size_t nf, const struct a1_rows_fact *p)
{
	struct a1_rows_test t = {text, strlen(text), line, fs, nf};
	struct a1_rows *r = a1_rows_new(&t, g, 1);
	long c = a1_rows_cover(r, p);
	a1_rows_free(r);
	return c;
}

#define GO_TABLE(rows)                                                                                                 \
	"package calc\n\nfunc TestAdd(t *testing.T) {\n\tcases := []struct{ a, b, want int }{\n" rows "\t}\n"          \
	"\tfor _, c := range cases {\n\t\tif got := Add(c.a, c.b); got != c.want {\n\t\t\tt.Error(got)\n\t\t}\n\t}\n}\n"

static const struct a1_rows_fact GO_G = {"if got:=Add(c.a,c.b);got!=c.want => t.Error(got)", "got", "!=", "c.want", NULL};
static const struct a1_rows_fact GO_P = {"if Add(2,2)!=4 => t.Fatal()", "Add(2,2)", "!=", "4", NULL};

Test(a1_rows, a_go_row_covers_its_check)
{
	cr_expect_eq(cover1(GO_TABLE("\t\t{1, 2, 3},\n\t\t{2, 2, 4},\n"), 3, &GO_G, NULL, 0, &GO_P), 0);
	cr_expect_eq(cover1(GO_TABLE("\t\t{\"two\", 2, 2, 4},\n"), 3, &GO_G, NULL, 0, &GO_P), 0, "a named row");
	cr_expect_eq(cover1(GO_TABLE("\t\t{name: \"two\", a: 2, b: 2, want: 4},\n"), 3, &GO_G, NULL, 0, &GO_P), 0, "keyed");
	cr_expect_eq(cover1(GO_TABLE("\t\t{2, 2, 4_0 / 10},\n"), 3, &GO_G, NULL, 0, &GO_P), -1, "an expression is no literal");
}

Test(a1_rows, no_row_no_cover)
{
	cr_expect_eq(cover1(GO_TABLE("\t\t{1, 2, 3},\n"), 3, &GO_G, NULL, 0, &GO_P), -1, "the row gone");
	cr_expect_eq(cover1(GO_TABLE("\t\t{2, 2, 5},\n"), 3, &GO_G, NULL, 0, &GO_P), -1, "its expected value changed");
	cr_expect_eq(cover1(GO_TABLE("\t\t{2, 4},\n"), 3, &GO_G, NULL, 0, &GO_P), -1, "a literal missing (multiset)");
	cr_expect_eq(cover1(GO_TABLE("\t\t{2, 2, 4},\n"), 99, &GO_G, NULL, 0, &GO_P), -1, "no test at that line");
}

Test(a1_rows, the_generalised_assertion_must_be_one)
{
	const char *t = GO_TABLE("\t\t{2, 2, 4},\n");
	struct a1_rows_fact lit = {"if Add(2,2)!=4 => t.Fatal()", "Add(2,2)", "!=", "4", NULL};
	cr_expect_eq(cover1(t, 3, &lit, NULL, 0, &GO_P), -1, "only literals: no generalisation");
	struct a1_rows_fact other = {"assert.True(t,got)", "got", "assert.True", NULL, NULL};
	cr_expect_eq(cover1(t, 3, &other, NULL, 0, &GO_P), -1, "another matcher family");
	struct a1_rows_fact elsewhere = {"if got!=c.want => t.Error(got)", "got", "!=", "c.want", NULL};
	const char *mul = "package calc\n\nfunc TestAdd(t *testing.T) {\n\tcases := []struct{ a, b, want int }{\n"
			  "\t\t{2, 2, 4},\n\t}\n\tfor _, c := range cases {\n\t\tgot := Mul(c.a, c.b)\n"
			  "\t\tif got != c.want {\n\t\t\tt.Error(got)\n\t\t}\n\t}\n}\n";
	cr_expect_eq(cover1(mul, 3, &elsewhere, NULL, 0, &GO_P), -1, "the function P calls not called");
	cr_expect_eq(cover1(t, 3, &elsewhere, NULL, 0, &GO_P), 0, "called on the line before (got := Add(..))");
}

Test(a1_rows, a_row_serves_one_pre_assertion)
{
	const char *text = GO_TABLE("\t\t{1, 2, 3},\n");
	struct a1_rows_test t = {text, strlen(text), 3, NULL, 0};
	struct a1_rows *r = a1_rows_new(&t, &GO_G, 1);
	struct a1_rows_fact p1 = {"", "Add(1,2)", "!=", "3", NULL}, p2 = {"", "Add(2,1)", "!=", "3", NULL};
	cr_expect_eq(a1_rows_cover(r, &p1), 0);
	cr_expect_eq(a1_rows_cover(r, &p2), -1, "the row is spent");
	a1_rows_free(r);
}

Test(a1_rows, rows_of_another_function_are_not_the_tests)
{
	const char *text = "package calc\n\nfunc TestAdd(t *testing.T) {\n\tfor _, c := range cases {\n"
			   "\t\tif got := Add(c.a, c.b); got != c.want {\n\t\t\tt.Error(got)\n\t\t}\n\t}\n}\n\n"
			   "func TestMul(t *testing.T) {\n\tcases := []struct{ a, b, want int }{\n\t\t{2, 2, 4},\n\t}\n\t_ = cases\n}\n\n"
			   "var cases = []struct{ a, b, want int }{\n\t{1, 2, 3},\n}\n";
	struct a1_rows_func mul = {"TestMul", 11};
	struct a1_rows_fact p1 = {"", "Add(1,2)", "!=", "3", NULL};
	cr_expect_eq(cover1(text, 3, &GO_G, &mul, 1, &GO_P), -1, "a row only in TestMul's table");
	cr_expect_eq(cover1(text, 3, &GO_G, &mul, 1, &p1), 0, "a package-level row");
}

Test(a1_rows, rust_tuples_and_helper_calls)
{
	const char *loop = "#[test]\nfn adds() {\n    for (a, b, want) in [(1, 2, 3), (2, 2, 4)] {\n"
			   "        assert_eq!(add(a, b), want);\n    }\n}\n";
	struct a1_rows_fact g = {"assert_eq!(add(a,b),want)", "add(a,b)", "assert_eq", "want", NULL};
	struct a1_rows_fact p = {"assert_eq!(add(2,2),4)", "add(2,2)", "assert_eq", "4", NULL};
	cr_expect_eq(cover1(loop, 1, &g, NULL, 0, &p), 0);
	const char *helper = "fn check(a: i32, b: i32, want: i32) {\n    assert_eq!(add(a, b), want);\n}\n\n"
			     "#[test]\nfn adds() {\n    check(1, 2, 3);\n    check(2, 2, 4);\n    other(2, 2, 4);\n}\n";
	struct a1_rows_fact gh = {"assert_eq!(add(a,b),want)", "add(a,b)", "assert_eq", "want", "check"};
	struct a1_rows_func fs = {"check", 1};
	cr_expect_eq(cover1(helper, 5, &gh, &fs, 1, &p), 0, "a call of the helper holding G");
	const char *not_helper = "fn check(a: i32, b: i32, want: i32) {\n    assert_eq!(add(a, b), want);\n}\n\n"
				 "#[test]\nfn adds() {\n    check(1, 2, 3);\n    other(2, 2, 4);\n}\n";
	cr_expect_eq(cover1(not_helper, 5, &gh, &fs, 1, &p), -1, "the arguments of another call are no row");
	const char *chars = "#[test]\nfn letters<'a>() {\n    for (c, want) in [('a', \"A\"), ('b', r#\"B\"#)] {\n"
			    "        assert_eq!(up(c), want);\n    }\n}\n";
	struct a1_rows_fact gc = {"assert_eq!(up(c),want)", "up(c)", "assert_eq", "want", NULL};
	struct a1_rows_fact pc = {"assert_eq!(up('b'),\"B\")", "up('b')", "assert_eq", "\"B\"", NULL};
	cr_expect_eq(cover1(chars, 1, &gc, NULL, 0, &pc), 0, "characters, raw strings, a lifetime");
}

Test(a1_rows, junit_sources)
{
	const char *csv = "class CalcTest {\n  @ParameterizedTest\n  @CsvSource({\"1, 2, 3\", \"2, 2, 4\"})\n"
			  "  void add(int a, int b, int want) {\n    assertEquals(want, Calc.add(a, b));\n  }\n}\n";
	struct a1_rows_fact g = {"assertEquals(want,Calc.add(a,b))", "Calc.add(a,b)", "assertEquals", "want", NULL};
	struct a1_rows_fact p = {"assertEquals(4,Calc.add(2,2))", "Calc.add(2,2)", "assertEquals", "4", NULL};
	cr_expect_eq(cover1(csv, 2, &g, NULL, 0, &p), 0, "@CsvSource");
	const char *text_block = "class CalcTest {\n  @ParameterizedTest\n  @CsvSource(textBlock = \"\"\"\n    1, 2, 3\n"
				 "    2, 2, 4\n    \"\"\")\n  void add(int a, int b, int want) {\n"
				 "    assertEquals(want, Calc.add(a, b));\n  }\n}\n";
	cr_expect_eq(cover1(text_block, 2, &g, NULL, 0, &p), 0, "@CsvSource text block");
	const char *values = "class OddTest {\n  @ParameterizedTest\n  @ValueSource(ints = {1, 3})\n"
			     "  void odd(int n) {\n    assertTrue(Calc.isOdd(n));\n  }\n}\n";
	struct a1_rows_fact go = {"assertTrue(Calc.isOdd(n))", "Calc.isOdd(n)", "assertTrue", NULL, NULL};
	struct a1_rows_fact p1 = {"", "Calc.isOdd(1)", "assertTrue", NULL, NULL}, p3 = {"", "Calc.isOdd(3)", "assertTrue", NULL, NULL};
	struct a1_rows_test t = {values, strlen(values), 2, NULL, 0};
	struct a1_rows *r = a1_rows_new(&t, &go, 1);
	cr_expect_eq(a1_rows_cover(r, &p1), 0, "@ValueSource: each value a row");
	cr_expect_eq(a1_rows_cover(r, &p3), 0);
	cr_expect_eq(a1_rows_cover(r, &p3), -1, "spent");
	a1_rows_free(r);
}

Test(a1_rows, hostile_text_gives_no_rows)
{
	static const char *const texts[] = {
	    "", "{", "fn f() {", "fn f() { \"", "fn f() { /* ", "fn f() { r#####\"", "fn f() { '", "fn f() = (1, 2, 4)\n",
	    "fn f() { ((((((((((((((((((((2, 2, 4", "fn f() { `", "fn f() { \"\"\"",
	};
	for (size_t i = 0; i < sizeof texts / sizeof *texts; i++) {
		struct a1_rows_test t = {texts[i], strlen(texts[i]), 1, NULL, 0};
		struct a1_rows *r = a1_rows_new(&t, &GO_G, 1);
		cr_expect_eq(a1_rows_cover(r, &GO_P), -1, "%s", texts[i]);
		a1_rows_free(r);
	}
}
