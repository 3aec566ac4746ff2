/* test_a1_lazy.c - A1's lazy reading (assertions/a1_lang.h, a1_lang_judge: a unit outside the
 * edited bytes, with the same context and no call path to or from what changed, is not
 * walked) judged against the eager one (BELAY_A1_EAGER=1: every unit walked): identical
 * findings JSON, through tests/support/ts_a1lazy.h. Cases aimed at each rule of the plan
 * (an assertion moved into an unchanged helper, a helper the changed test reaches through
 * another, names two units share, the context changed: an import dropped, a module's cfg,
 * a build constraint; a unit too deep to walk left out of the edit), then a few hundred random
 * single-region edits (a line deleted or duplicated, a literal changed, a function renamed,
 * an import dropped, an attribute removed or added, a helper edited) of 2,000-line Go and
 * Rust files with helpers, modules and testify. Java (a1_java_facts.c's lazy reading, the
 * same decision): cases aimed at its rules (lifecycle methods, class and nested-class
 * annotations, fields and imports are context; helpers and their callers; overloads) and 128
 * random edits of a 2,000-line JUnit 5 file. test_a1_go_rust and test_a1_catalogue run every
 * row of their catalogues through the same check. */
#include <criterion/criterion.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf.h"
#include "common/xalloc.h"
#include "ts_a1lazy.h"

TestSuite(a1_lazy, .timeout = 600);

static void same(const char *what, const char *path, const char *pre, const char *post)
{
	ts_a1lazy_same(what, path, pre, strlen(pre), post, strlen(post));
}

/* pre with its first `old` replaced by `new_`. */
static char *edit(const char *pre, const char *old, const char *new_)
{
	const char *at = strstr(pre, old);
	cr_assert_not_null(at, "\"%s\" is not in the pre side", old);
	return xasprintf("%.*s%s%s", (int)(at - pre), pre, new_, at + strlen(old));
}

static void case_(const char *what, const char *path, const char *pre, const char *old, const char *new_)
{
	char *post = edit(pre, old, new_);
	same(what, path, pre, post);
	free(post);
}

#define GO_HELPERS                                                                                                     \
	"package calc\n\nimport (\n\t\"testing\"\n\n\t\"github.com/stretchr/testify/assert\"\n)\n\n"                      \
	"func checkAdd(t *testing.T) {\n\tif Add(1, 2) != 3 {\n\t\tt.Fatal(\"add\")\n\t}\n}\n\n"                           \
	"func TestOther(t *testing.T) {\n\tassert.Equal(t, 1, Sub(2, 1))\n}\n\n"                                          \
	"func outer(t *testing.T) {\n\tinner(t)\n}\n\n"                                                                    \
	"func inner(t *testing.T) {\n\tassert.Equal(t, 4, Add(2, 2))\n}\n\n"                                              \
	"func TestUsesHelper(t *testing.T) {\n\tcheckAdd(t)\n}\n\n"                                                        \
	"func TestAdd(t *testing.T) {\n\tif Add(1, 2) != 3 {\n\t\tt.Fatal(\"add\")\n\t}\n\tassert.Equal(t, 4, Add(2, 2))\n}\n\n" \
	"func (s *S) TestM() {\n\ts.Equal(1, Sub(2, 1))\n}\n\n"                                                            \
	"func (s *T) TestM() {\n\ts.Equal(2, Sub(3, 1))\n\ts.Equal(3, Sub(4, 1))\n}\n"

Test(a1_lazy, go_cases_aimed_at_each_rule)
{
	/* the removed assertions are asserted by helpers outside the edit: found only if the
	 * helpers the changed test calls (and what they call) are walked */
	case_("go assertion moved into an unchanged helper", "calc/calc_test.go", GO_HELPERS,
	      "\tif Add(1, 2) != 3 {\n\t\tt.Fatal(\"add\")\n\t}\n\tassert.Equal(t, 4, Add(2, 2))\n}\n\nfunc (s *S)",
	      "\tcheckAdd(t)\n\touter(t)\n}\n\nfunc (s *S)");
	case_("go assertion dropped, no helper", "calc/calc_test.go", GO_HELPERS, "\tassert.Equal(t, 4, Add(2, 2))\n}\n\nfunc (s",
	      "}\n\nfunc (s");
	/* a helper changed: its callers are walked too */
	case_("go helper an unchanged test calls stops asserting", "calc/calc_test.go", GO_HELPERS,
	      "\tif Add(1, 2) != 3 {\n\t\tt.Fatal(\"add\")\n\t}\n}\n\nfunc TestOther", "}\n\nfunc TestOther");
	/* two methods named alike: paired by name the way the eager reading pairs them */
	case_("go a method of two suites edited", "calc/calc_test.go", GO_HELPERS, "s.Equal(2, Sub(3, 1))", "s.True(true)");
	case_("go a suite method skipped", "calc/calc_test.go", GO_HELPERS, "func (s *S) TestM() {\n",
	      "func (s *S) TestM() {\n\ts.T().Skip()\n");
	/* the context changed: everything walked */
	case_("go an import dropped", "calc/calc_test.go", GO_HELPERS, "\t\"github.com/stretchr/testify/assert\"\n", "");
	case_("go an import aliased", "calc/calc_test.go", GO_HELPERS, "\t\"github.com/stretchr/testify/assert\"\n",
	      "\tassert \"example.com/fake\"\n");
	case_("go a build constraint added", "calc/calc_test.go", GO_HELPERS, "package calc\n",
	      "//go:build ignore\n\npackage calc\n");
	case_("go a comment before a test", "calc/calc_test.go", GO_HELPERS, "func TestAdd(", "// adds\nfunc TestAdd(");
	case_("go a test added", "calc/calc_test.go", GO_HELPERS, "func TestAdd(",
	      "func TestNew(t *testing.T) {\n\tassert.Equal(t, 0, Sub(1, 1))\n}\n\nfunc TestAdd(");
	case_("go a test renamed", "calc/calc_test.go", GO_HELPERS, "func TestOther(", "func TestOther2(");
	case_("go a test renamed out of collection", "calc/calc_test.go", GO_HELPERS, "func TestOther(", "func other(");
	/* a helper whose name is longer than any word buffer */
	char name[201];
	memset(name, 'x', 200);
	name[0] = 'h', name[200] = 0;
	char *pre = xasprintf("package calc\n\nimport \"testing\"\n\nfunc TestAdd(t *testing.T) {\n\tif Add(1, 2) != 3 {\n"
			      "\t\tt.Fatal(\"add\")\n\t}\n}\n\nfunc %s(t *testing.T) {\n\tif Add(1, 2) != 3 {\n"
			      "\t\tt.Fatal(\"add\")\n\t}\n}\n",
			      name);
	char *call = xasprintf("\t%s(t)\n}\n", name);
	case_("go assertion moved into a helper of a long name", "calc/long_test.go", pre,
	      "\tif Add(1, 2) != 3 {\n\t\tt.Fatal(\"add\")\n\t}\n}\n", call);
	free(call);
	free(pre);
	/* a unit too deep to walk, away from the edit: the eager reading refuses the side */
	struct buf b = {0};
	buf_puts(&b, "package calc\n\nimport \"testing\"\n\nfunc TestDeep(t *testing.T) {\n\tif a {\n");
	for (int i = 0; i < 600; i++)
		buf_puts(&b, "\t} else if a {\n");
	buf_puts(&b, "\t}\n}\n\nfunc TestAdd(t *testing.T) {\n\tif Add(1, 2) != 3 {\n\t\tt.Fatal(\"add\")\n\t}\n}\n");
	case_("go a deep test away from the edit", "calc/deep_test.go", buf_cstr(&b), "if Add(1, 2) != 3", "if false");
	buf_free(&b);
}

#define RS_HELPERS                                                                                                     \
	"use calc::add;\n\nfn check_add() {\n    assert_eq!(add(1, 2), 3);\n}\n\n"                                     \
	"#[test]\nfn other() {\n    assert_eq!(add(2, 2), 4);\n}\n\n"                                                      \
	"#[cfg(test)]\nmod tests {\n    use super::*;\n\n    fn inner() {\n        assert!(add(0, 0) == 0);\n    }\n\n"   \
	"    #[test]\n    fn uses_helper() {\n        super::check_add();\n    }\n\n"                                       \
	"    #[test]\n    fn adds() {\n        assert_eq!(add(1, 2), 3);\n        assert!(add(0, 0) == 0);\n    }\n\n"      \
	"    // a comment\n    #[test]\n    #[should_panic(expected = \"overflow\")]\n    fn overflows() {\n"                \
	"        add(i32::MAX, 1);\n    }\n}\n\n"                                                                            \
	"mod more {\n    #[test]\n    fn adds() {\n        assert_eq!(calc::add(1, 1), 2);\n    }\n}\n"

Test(a1_lazy, rust_cases_aimed_at_each_rule)
{
	case_("rust assertion moved into an unchanged helper", "tests/calc.rs", RS_HELPERS,
	      "        assert_eq!(add(1, 2), 3);\n        assert!(add(0, 0) == 0);\n",
	      "        super::check_add();\n        inner();\n");
	case_("rust assertion dropped", "tests/calc.rs", RS_HELPERS, "        assert!(add(0, 0) == 0);\n    }\n\n    //",
	      "    }\n\n    //");
	case_("rust helper stops asserting", "tests/calc.rs", RS_HELPERS, "fn check_add() {\n    assert_eq!(add(1, 2), 3);\n",
	      "fn check_add() {\n");
	case_("rust #[ignore] added", "tests/calc.rs", RS_HELPERS, "    #[test]\n    fn adds", "    #[test]\n    #[ignore]\n    fn adds");
	case_("rust #[test] removed", "tests/calc.rs", RS_HELPERS, "#[test]\nfn other", "fn other");
	case_("rust should_panic's expected removed", "tests/calc.rs", RS_HELPERS, "(expected = \"overflow\")", "");
	case_("rust the module cfg'd away", "tests/calc.rs", RS_HELPERS, "#[cfg(test)]", "#[cfg(any())]");
	case_("rust a module renamed", "tests/calc.rs", RS_HELPERS, "mod more {", "mod most {");
	case_("rust a use dropped", "tests/calc.rs", RS_HELPERS, "use calc::add;\n", "");
	case_("rust the file cfg'd away", "tests/calc.rs", RS_HELPERS, "use calc::add;\n", "#![cfg(any())]\nuse calc::add;\n");
	case_("rust an inner attribute among a test's attributes", "tests/calc.rs", RS_HELPERS, "    // a comment\n",
	      "    // a comment\n    #![cfg(any())]\n");
	case_("rust a comment edited", "tests/calc.rs", RS_HELPERS, "// a comment", "// the comment");
	case_("rust a comment and an inner attribute before the first item", "tests/calc.rs", RS_HELPERS, "use calc::add;\n",
	      "// Copyright\n#![cfg(test)]\nuse calc::add;\n");
	const char *inner = "// Copyright\n#![allow(unused)]\n\n" RS_HELPERS;
	case_("rust a test edited below a comment and an inner attribute", "tests/calc.rs", inner, "assert_eq!(add(2, 2), 4)",
	      "assert!(true)");
	case_("rust an outer attribute moved above an inner one", "tests/calc.rs", inner, "// Copyright\n",
	      "#[test]\n");
	/* an inner attribute among a fn's attributes rules the items after it: not inside a unit */
	case_("rust an inner cfg among a test's attributes turned off", "tests/calc.rs",
	      "mod m {\n    #[test]\n    #![cfg(all())]\n    fn a() {\n        assert_eq!(1, x());\n    }\n\n"
	      "    #[test]\n    fn b() {\n        assert_eq!(2, y());\n    }\n}\n",
	      "cfg(all())", "cfg(any())");
	case_("rust the same name in two modules", "tests/calc.rs", RS_HELPERS, "assert_eq!(calc::add(1, 1), 2)", "assert!(true)");
}

/*==== random single-region edits of large files ============================================*/

/* A Go test file of about `lines` lines: helpers (some calling others), tests asserting
 * directly (an if + t.Fatal, testify) or through a helper, a suite's methods. */
static char *go_big(int lines)
{
	struct buf b = {0};
	buf_puts(&b, "package calc\n\nimport (\n\t\"testing\"\n\n\t\"github.com/stretchr/testify/assert\"\n"
		     "\t\"github.com/stretchr/testify/require\"\n)\n\n");
	for (int i = 0; (int)b.len / 28 < lines; i++) {
		switch (i % 5) {
		case 0:
			buf_printf(&b, "func check%d(t *testing.T, x int) {\n\tif x != %d {\n\t\tt.Fatal(\"x\")\n\t}\n}\n\n", i, i);
			break;
		case 1:
			buf_printf(&b, "// TestCase%d checks one sum.\nfunc TestCase%d(t *testing.T) {\n\tif Compute(%d, %d) != %d {\n"
				       "\t\tt.Fatal(\"case\")\n\t}\n}\n\n",
				   i, i, i, i + 1, 2 * i + 1);
			break;
		case 2:
			buf_printf(&b, "func TestHelped%d(t *testing.T) {\n\tcheck%d(t, Compute(%d, 0))\n\tassert.Equal(t, %d, Sub(%d, 0))\n}\n\n",
				   i, i - 2, i - 2, i, i);
			break;
		case 3:
			buf_printf(&b, "func (s *CalcSuite) TestSuite%d() {\n\ts.Equal(%d, Sub(%d, 0))\n\ts.Require().NoError(Check())\n}\n\n",
				   i, i, i);
			break;
		default:
			buf_printf(&b, "func TestReq%d(t *testing.T) {\n\trequire.NoError(t, Check())\n\tcheck%d(t, %d)\n}\n\n", i,
				   i - 4, i - 4);
		}
	}
	return buf_take(&b);
}

/* A Rust test file of about `lines` lines: top-level tests and helpers, and a #[cfg(test)]
 * module with its own helpers, tests and a should_panic. */
static char *rs_big(int lines)
{
	struct buf b = {0};
	buf_puts(&b, "use calc::{add, sub};\n\n");
	int i = 0;
	for (; (int)b.len / 28 < lines / 2; i++) {
		if (i % 3 == 0)
			buf_printf(&b, "fn check%d(x: i32) {\n    assert_eq!(x, %d);\n}\n\n", i, i);
		else
			buf_printf(&b, "#[test]\nfn case%d() {\n    assert_eq!(add(%d, %d), %d);\n    check%d(%d);\n}\n\n", i, i,
				   i + 1, 2 * i + 1, i - i % 3, i - i % 3);
	}
	buf_puts(&b, "#[cfg(test)]\nmod tests {\n    use super::*;\n\n");
	for (; (int)b.len / 28 < lines; i++) {
		if (i % 4 == 0)
			buf_printf(&b, "    fn helper%d() {\n        assert!(sub(%d, 1) == %d);\n    }\n\n", i, i, i - 1);
		else if (i % 4 == 1)
			buf_printf(&b, "    #[test]\n    #[should_panic(expected = \"neg%d\")]\n    fn panics%d() {\n        sub(0, %d);\n    }\n\n",
				   i, i, i);
		else
			buf_printf(&b, /* the helper's assertion too: its removal here is no loss */
				   "    /// case %d\n    #[test]\n    fn case%d() {\n        assert_ne!(sub(%d, 1), 0);\n        helper%d();\n"
				   "        assert!(sub(%d, 1) == %d);\n    }\n\n",
				   i, i, i + 2, i - i % 4, i - i % 4, i - i % 4 - 1);
	}
	buf_puts(&b, "}\n");
	return buf_take(&b);
}

/* A small deterministic generator (xorshift). */
static uint64_t rnd_state = 0x9e3779b97f4a7c15ull;
static uint64_t rnd(void)
{
	rnd_state ^= rnd_state << 13;
	rnd_state ^= rnd_state >> 7;
	rnd_state ^= rnd_state << 17;
	return rnd_state;
}

/* The start of line `k` of `s` (0-based), or its end. */
static size_t line_at(const char *s, size_t n, size_t k)
{
	size_t at = 0;
	while (k && at < n) {
		const char *nl = memchr(s + at, '\n', n - at);
		if (!nl)
			return n;
		at = (size_t)(nl - s) + 1;
		k--;
	}
	return at;
}

static size_t line_count(const char *s)
{
	size_t k = 0;
	for (; *s; s++)
		k += *s == '\n';
	return k;
}

/* One random single-region edit of `pre`: a new post side, its kind into *kind. */
static char *mutate(const char *pre, int go, const char **kind)
{
	size_t n = strlen(pre), lines = line_count(pre);
	size_t k = (size_t)(rnd() % lines), a = line_at(pre, n, k), e = line_at(pre, n, k + 1);
	switch (rnd() % 8) {
	case 0:
		*kind = "a line deleted";
		return xasprintf("%.*s%s", (int)a, pre, pre + e);
	case 1:
		*kind = "a line duplicated";
		return xasprintf("%.*s%.*s%s", (int)e, pre, (int)(e - a), pre + a, pre + e);
	case 2: { /* a literal (a digit) changed */
		*kind = "a literal changed";
		for (size_t i = a; i < n; i++)
			if (pre[i] >= '0' && pre[i] <= '9')
				return xasprintf("%.*s%c%s", (int)i, pre, pre[i] == '9' ? '0' : pre[i] + 1, pre + i + 1);
		return xstrdup(pre);
	}
	case 3: { /* the next function renamed */
		*kind = "a function renamed";
		const char *f = strstr(pre + a, go ? "func " : "fn ");
		if (!f)
			return xstrdup(pre);
		const char *p = strchr(f, '(');
		if (go && f[5] == '(') /* a method: its name after the receiver */
			p = strchr(strchr(f, ')') + 1, '(');
		return xasprintf("%.*sRenamed%s", (int)(p - pre), pre, p);
	}
	case 4: /* an import dropped */
		*kind = "an import dropped";
		return go ? edit(pre, "\t\"github.com/stretchr/testify/assert\"\n", "") : edit(pre, "use calc::{add, sub};\n", "use calc::add;\n");
	case 5: { /* the next attribute / comment removed, or a skip added */
		*kind = go ? "a skip added" : "an attribute removed";
		const char *f = go ? strstr(pre + a, "(t *testing.T) {\n") : strstr(pre + a, "#[");
		if (!f)
			return xstrdup(pre);
		if (go)
			return xasprintf("%.*s(t *testing.T) {\n\tt.Skip()\n%s", (int)(f - pre), pre, f + 17);
		const char *end = strchr(f, '\n');
		return xasprintf("%.*s%s", (int)(f - pre), pre, end + 1);
	}
	case 6: { /* a helper edited: its assertion made constant */
		*kind = "a helper's assertion made constant";
		const char *f = strstr(pre + a, go ? "\tif x != " : "assert_eq!(x, ");
		if (!f)
			return xstrdup(pre);
		const char *end = strchr(f, go ? '{' : ')');
		return xasprintf("%.*s%s%s", (int)(f - pre), pre, go ? "\tif false " : "assert!(true", end);
	}
	default: /* an ignore / skip attribute added before the next test */
		*kind = "an ignore added";
		if (go) {
			const char *f = strstr(pre + a, "func Test");
			return f ? xasprintf("%.*s// +build ignore\n%s", (int)(f - pre), pre, f) : xstrdup(pre);
		}
		const char *f = strstr(pre + a, "#[test]");
		return f ? xasprintf("%.*s#[ignore]\n%s", (int)(f - pre), pre, f) : xstrdup(pre);
	}
}

static void random_edits(const char *path, char *(*big)(int), char *(*mut)(const char *, int, const char **), int go,
			 int rounds)
{
	char *pre = big(2000);
	cr_assert_gt(line_count(pre), 1900);
	for (int r = 0; r < rounds; r++) {
		const char *kind = NULL;
		char *post = mut(pre, go, &kind);
		char *what = xasprintf("%s edit %d (%s)", path, r, kind);
		size_t pn = strlen(pre), qn = strlen(post);
		char *want = ts_a1lazy_findings(path, pre, pn, post, qn, 1, 1);
		char *cold = ts_a1lazy_findings(path, pre, pn, post, qn, 0, 1);
		cr_assert_str_eq(cold, want, "%s: lazy (cold) differs from eager", what);
		if (r % 8 == 0) { /* and warm: both sides remembered */
			char *warm = ts_a1lazy_findings(path, pre, pn, post, qn, 0, 0);
			cr_assert_str_eq(warm, want, "%s: lazy (warm) differs from eager", what);
			free(warm);
		}
		free(want);
		free(cold);
		free(what);
		free(post);
	}
	free(pre);
}

Test(a1_lazy, go_random_edits_of_a_2000_line_file)
{
	random_edits("calc/big_test.go", go_big, mutate, 1, 128);
}

Test(a1_lazy, rust_random_edits_of_a_2000_line_file)
{
	random_edits("tests/big.rs", rs_big, mutate, 0, 128);
}

/* Two functions of one name (Go: methods of two suites; Rust: what the compiler refuses, but
 * the judge reads what it is given) pair in order, the nth with the nth: a side judged against
 * itself gives nothing, and a change to the second is found on the second (found by
 * fuzz_a1_rust: both paired with the first, a side against itself gave a WARN). */
Test(a1_lazy, functions_of_one_name_pair_in_order)
{
	const char *rs = "#[test]\n#[should_panic(expected = \"overflow\")]\nfn overflows() {\n    add(i32::MAX, 1);\n}\n\n"
			 "#[test]\n#[should_panic]\nfn overflows() {\n    add(i32::MAX, 1);\n}\n";
	for (int eager = 0; eager < 2; eager++) {
		char *self = ts_a1lazy_findings("tests/dup.rs", rs, strlen(rs), rs, strlen(rs), eager, 1);
		cr_assert_str_eq(self, "[]", "%s", self);
		free(self);
	}
	char *post = edit(GO_HELPERS, "\ts.Equal(3, Sub(4, 1))\n", "");
	char *f = ts_a1lazy_findings("calc/calc_test.go", GO_HELPERS, strlen(GO_HELPERS), post, strlen(post), 0, 1);
	cr_assert(strstr(f, "\"function\":\"TestM\",\"finding\":\"assertion-removed\"") && strstr(f, "Sub(4,1)"), "%s", f);
	cr_assert_null(strstr(f, "Sub(3,1)"), "%s", f);
	free(f);
	free(post);
	same("go the second of two methods of one name edited", "calc/calc_test.go", GO_HELPERS, GO_HELPERS);
}

/* ---- Java (a1_java_facts.c: the methods of classes are the units; lifecycle methods,
 * fields, class headers and annotations, imports are context) ---- */

#define JAVA_HELPERS                                                                                                   \
	"package calc;\n\nimport static org.junit.jupiter.api.Assertions.*;\nimport org.junit.jupiter.api.Test;\n\n"       \
	"class CalcTest {\n  private int base = 1;\n\n  @BeforeEach\n  void setUp() {\n    base = 1;\n  }\n\n"              \
	"  void checkAdd() {\n    assertEquals(3, Calc.add(1, 2));\n  }\n\n"                                              \
	"  @Test\n  void other() {\n    assertEquals(1, Calc.sub(2, 1));\n  }\n\n"                                        \
	"  void outer() {\n    inner();\n  }\n\n"                                                                         \
	"  void inner() {\n    assertEquals(4, Calc.add(2, 2));\n  }\n\n"                                                 \
	"  @Test\n  void usesHelper() {\n    checkAdd();\n  }\n\n"                                                        \
	"  @Test\n  void usesOuter() {\n    outer();\n  }\n\n"                                                            \
	"  // adds\n  @Test\n  void add() {\n    assertEquals(3, Calc.add(1, 2));\n    assertEquals(4, Calc.add(2, 2));\n  }\n\n" \
	"  @Test\n  void twice() {\n    assertEquals(2, Calc.add(1, 1));\n  }\n\n"                                        \
	"  @Test\n  void twice(int x) {\n    assertEquals(x, Calc.add(x, 0));\n  }\n\n"                                   \
	"  @Nested\n  class Inner {\n    @Test\n    void sub() {\n      assertEquals(2, Calc.sub(3, 1));\n    }\n  }\n}\n"

Test(a1_lazy, java_cases_aimed_at_each_rule)
{
	const char *P = "src/test/java/calc/CalcTest.java";
	/* callees: the removed assertion is asserted by a helper outside the edit */
	case_("java assertion moved into an unchanged helper", P, JAVA_HELPERS,
	      "    assertEquals(3, Calc.add(1, 2));\n    assertEquals(4, Calc.add(2, 2));\n  }\n\n  @Test\n  void twice()",
	      "    checkAdd();\n    assertEquals(4, Calc.add(2, 2));\n  }\n\n  @Test\n  void twice()");
	case_("java assertion moved into a helper's helper", P, JAVA_HELPERS,
	      "    assertEquals(3, Calc.add(1, 2));\n    assertEquals(4, Calc.add(2, 2));\n  }\n\n  @Test\n  void twice()",
	      "    assertEquals(3, Calc.add(1, 2));\n    outer();\n  }\n\n  @Test\n  void twice()");
	/* callers: an unchanged test whose helper changed */
	case_("java a helper's assertion made constant under an unchanged test", P, JAVA_HELPERS,
	      "    assertEquals(3, Calc.add(1, 2));\n  }\n\n  @Test\n  void other()", "    assertTrue(true);\n  }\n\n  @Test\n  void other()");
	case_("java a helper's helper stops asserting", P, JAVA_HELPERS, "    assertEquals(4, Calc.add(2, 2));\n  }\n\n  @Test\n  void usesHelper",
	      "  }\n\n  @Test\n  void usesHelper");
	/* context */
	case_("java an import dropped", P, JAVA_HELPERS, "import org.junit.jupiter.api.Test;\n", "");
	case_("java a class annotation added (@Disabled)", P, JAVA_HELPERS, "class CalcTest {", "@Disabled\nclass CalcTest {");
	case_("java a class annotation added (@Ignore)", P, JAVA_HELPERS, "class CalcTest {", "@Ignore(\"later\")\nclass CalcTest {");
	case_("java a nested class disabled", P, JAVA_HELPERS, "  @Nested\n  class Inner", "  @Nested\n  @Disabled\n  class Inner");
	case_("java a nested class loses @Nested", P, JAVA_HELPERS, "  @Nested\n  class Inner", "  class Inner");
	case_("java a field changed", P, JAVA_HELPERS, "private int base = 1;", "private int base = 2;");
	case_("java a lifecycle method assumes false", P, JAVA_HELPERS, "    base = 1;\n", "    assumeTrue(false);\n");
	case_("java a lifecycle method loses @BeforeEach", P, JAVA_HELPERS, "  @BeforeEach\n  void setUp", "  void setUp");
	case_("java the package changed", P, JAVA_HELPERS, "package calc;", "package calc2;");
	/* units */
	case_("java @Disabled added to a test", P, JAVA_HELPERS, "  @Test\n  void other()", "  @Disabled\n  @Test\n  void other()");
	case_("java @Test removed", P, JAVA_HELPERS, "  @Test\n  void other()", "  void other()");
	case_("java a test's assertion made constant", P, JAVA_HELPERS, "assertEquals(1, Calc.sub(2, 1))", "assertTrue(true)");
	case_("java a nested test's assertion dropped", P, JAVA_HELPERS, "      assertEquals(2, Calc.sub(3, 1));\n", "");
	case_("java a comment before a test edited", P, JAVA_HELPERS, "// adds", "// sums");
	case_("java a comment before a test added", P, JAVA_HELPERS, "  @Test\n  void other()", "  // other\n  @Test\n  void other()");
	case_("java a test added", P, JAVA_HELPERS, "  @Test\n  void other()",
	      "  @Test\n  void more() {\n    assertEquals(5, Calc.add(2, 3));\n  }\n\n  @Test\n  void other()");
	case_("java a test renamed", P, JAVA_HELPERS, "void other()", "void other2()");
	case_("java a test renamed with its assertion dropped", P, JAVA_HELPERS,
	      "void other() {\n    assertEquals(1, Calc.sub(2, 1));\n", "void other2() {\n");
	/* overloads: one name, two units */
	case_("java the second of two overloads weakened", P, JAVA_HELPERS, "assertEquals(x, Calc.add(x, 0))", "assertTrue(true)");
	case_("java the first of two overloads weakened", P, JAVA_HELPERS, "assertEquals(2, Calc.add(1, 1))", "assertTrue(true)");
	case_("java a test turned into a helper's overload", P, JAVA_HELPERS, "  @Test\n  void twice(int x)", "  void twice(int x)");
}

/* A JUnit 5 file of about `lines` lines: imports, a class with a field and a @BeforeEach,
 * helpers (some calling others), tests asserting directly (JUnit, AssertJ) or through a
 * helper, and a @Nested class of its own. */
static char *java_big(int lines)
{
	struct buf b = {0};
	buf_puts(&b, "package calc;\n\nimport static org.junit.jupiter.api.Assertions.*;\nimport static org.assertj.core.api.Assertions.assertThat;\n"
		     "import org.junit.jupiter.api.Test;\n\nclass BigTest {\n  private final Calc calc = new Calc();\n\n"
		     "  @BeforeEach\n  void setUp() {\n    calc.reset();\n  }\n\n");
	int i = 0;
	for (; (int)b.len / 26 < lines / 2; i++) {
		switch (i % 4) {
		case 0:
			buf_printf(&b, "  void check%d(int x) {\n    assertEquals(%d, x);\n  }\n\n", i, i);
			break;
		case 1:
			buf_printf(&b, "  // case %d\n  @Test\n  void case%d() {\n    assertEquals(%d, calc.add(%d, %d));\n    check%d(%d);\n  }\n\n", i,
				   i, 2 * i + 1, i, i + 1, i - 1, i - 1);
			break;
		case 2:
			buf_printf(&b, "  @Test\n  void chain%d() {\n    assertThat(calc.sub(%d, 1)).isEqualTo(%d);\n  }\n\n", i, i, i - 1);
			break;
		default:
			buf_printf(&b, "  @Test\n  void helped%d() {\n    check%d(calc.add(%d, 0));\n  }\n\n", i, i - 3, i - 3);
		}
	}
	buf_puts(&b, "  @Nested\n  class More {\n");
	for (; (int)b.len / 26 < lines; i++) {
		if (i % 3 == 0)
			buf_printf(&b, "    void more%d() {\n      assertTrue(calc.sub(%d, 1) == %d);\n    }\n\n", i, i, i - 1);
		else
			buf_printf(&b, "    @Test\n    void inner%d() {\n      assertNotNull(calc);\n      more%d();\n    }\n\n", i, i - i % 3);
	}
	buf_puts(&b, "  }\n}\n");
	return buf_take(&b);
}

/* One random single-region edit of a Java side: a new post side, its kind into *kind. */
static char *java_mutate(const char *pre, int unused, const char **kind)
{
	(void)unused;
	size_t n = strlen(pre), lines = line_count(pre);
	size_t k = (size_t)(rnd() % lines), a = line_at(pre, n, k), e = line_at(pre, n, k + 1);
	const char *f;
	switch (rnd() % 10) {
	case 0:
		*kind = "a line deleted";
		return xasprintf("%.*s%s", (int)a, pre, pre + e);
	case 1:
		*kind = "a line duplicated";
		return xasprintf("%.*s%.*s%s", (int)e, pre, (int)(e - a), pre + a, pre + e);
	case 2:
		*kind = "a literal changed";
		for (size_t i = a; i < n; i++)
			if (pre[i] >= '0' && pre[i] <= '9')
				return xasprintf("%.*s%c%s", (int)i, pre, pre[i] == '9' ? '0' : pre[i] + 1, pre + i + 1);
		return xstrdup(pre);
	case 3:
		*kind = "a method renamed";
		f = strstr(pre + a, "  void ");
		return f ? xasprintf("%.*s  void renamed%s", (int)(f - pre), pre, f + 7) : xstrdup(pre);
	case 4:
		*kind = "an import dropped";
		return edit(pre, "import org.junit.jupiter.api.Test;\n", "");
	case 5:
		*kind = "a test disabled";
		f = strstr(pre + a, "@Test\n");
		return f ? xasprintf("%.*s@Disabled @Test\n%s", (int)(f - pre), pre, f + 6) : xstrdup(pre);
	case 6:
		*kind = "a helper's assertion made constant";
		f = strstr(pre + a, "assertEquals(");
		if (!f)
			return xstrdup(pre);
		return xasprintf("%.*sassertTrue(true);%s", (int)(f - pre), pre, strchr(f, '\n'));
	case 7:
		*kind = "a class annotation added";
		return rnd() % 2 ? edit(pre, "class BigTest {", "@Disabled\nclass BigTest {")
				 : edit(pre, "  @Nested\n  class More", "  @Nested\n  @Ignore\n  class More");
	case 8:
		*kind = "a field changed";
		return edit(pre, "new Calc()", "new Calc(1)");
	default:
		*kind = "@Test removed";
		f = strstr(pre + a, "@Test\n");
		return f ? xasprintf("%.*s%s", (int)(f - pre), pre, f + 6) : xstrdup(pre);
	}
}

Test(a1_lazy, java_random_edits_of_a_2000_line_file)
{
	random_edits("src/test/java/calc/BigTest.java", java_big, java_mutate, 0, 128);
}
