/* test_a1_go_rust.c - A1's no-assertion-weakening on Go (testing, testify) and Rust (libtest)
 * test files, through weakening_check on scratch pre/post trees (src/verify/weakening.c with
 * assertions/a1_go.c and a1_rust.c). A table of cheats, one row per class and language, each
 * with the finding, status and test it must name; a table of honest edits that must never
 * FAIL (and PASS where nothing is left to doubt); the Cargo.toml test targets; hostile input
 * refused as a finding, never a crash. Before the Go and Rust judges every cheat here came
 * out UNVERIFIED ASSERTION_LANGUAGE_NOT_JUDGED. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "assertions/a1_cache.h"
#include "assertions/a1_go.h"
#include "assertions/a1_rust.h"
#include "common/buf.h"
#include "common/err.h"
#include "common/fsutil.h"
#include "common/jsonx.h"
#include "common/xalloc.h"
#include "ts_a1lazy.h"
#include "tsupport.h"
#include "verify/weakening.h"

struct row {
	const char *what, *path, *pre, *old, *new_; /* post = pre with the first `old` replaced by `new_` */
	const char *status;			     /* "FAIL", "WARN", "UNVERIFIED", "PASS" or "!FAIL" */
	const char *finding, *function;		     /* NULL: not checked */
};

/* pre with its first `old` replaced by `new_` (new_ NULL: the file is deleted; old NULL: new_
 * is the whole post side). */
static char *edit(const char *pre, const char *old, const char *new_)
{
	if (!new_)
		return NULL;
	if (!old)
		return xstrdup(new_);
	const char *at = strstr(pre, old);
	cr_assert_not_null(at, "\"%s\" is not in the pre side", old);
	return xasprintf("%.*s%s%s", (int)(at - pre), pre, new_, at + strlen(old));
}

static void put(const char *root, const char *rel, const char *content)
{
	if (!content)
		return;
	char *path = fs_join(root, rel);
	char *dir = xstrdup(path);
	*strrchr(dir, '/') = '\0';
	struct err e;
	cr_assert_eq(fs_mkdir_p(dir, 0755, &e), 0, "%s", e.msg);
	ts_write_file(path, content, strlen(content));
	free(dir);
	free(path);
}

static const char *status_name(int s)
{
	return s == WEAKENING_FAIL ? "FAIL" : s == WEAKENING_UNVERIFIED ? "UNVERIFIED" : s == WEAKENING_WARN ? "WARN" : "PASS";
}

/* Runs one row: the turn's verdict and, when asked, the finding with its test. */
static void play(const struct row *r)
{
	char *dir = ts_tmpdir("a1gr");
	char *pre_root = fs_join(dir, "pre"), *post_root = fs_join(dir, "post");
	cr_assert_eq(mkdir(pre_root, 0755), 0);
	cr_assert_eq(mkdir(post_root, 0755), 0);
	char *post = edit(r->pre ? r->pre : "", r->old, r->new_);
	put(pre_root, r->path, r->pre);
	put(post_root, r->path, post);
	/* the lazy reading (units outside the edit not walked) judges as the eager one */
	ts_a1lazy_same(r->what, r->path, r->pre, r->pre ? strlen(r->pre) : 0, post, post ? strlen(post) : 0);
	const char *changed[] = {r->path, NULL};
	struct weakening_input in = {.pre_root = pre_root, .post_root = post_root, .changed = changed, .scope = ""};
	struct weakening_result res = {0};
	struct err e = {0};
	cr_assert_eq(weakening_check(&in, &res, &e), 0, "%s: %s", r->what, e.msg);
	const char *got = status_name(res.status);
	if (!strcmp(r->status, "!FAIL"))
		cr_assert_neq(res.status, WEAKENING_FAIL, "%s: %s", r->what, res.message);
	else
		cr_assert_str_eq(got, r->status, "%s: %s, want %s: %s", r->what, got, r->status, res.message);
	if (r->finding) {
		const cJSON *f, *hit = NULL;
		cJSON_ArrayForEach(f, res.findings)
		{
			const char *w = jx_str(f, "finding");
			if (w && !strcmp(w, r->finding) && !hit)
				hit = f;
		}
		cr_assert_not_null(hit, "%s: no %s finding: %s", r->what, r->finding, res.message);
		cr_assert_str_eq(jx_str(hit, "file"), r->path, "%s", r->what);
		cr_assert_str_eq(jx_str(hit, "status"), r->status, "%s", r->what);
		if (r->function) {
			const char *fn = jx_str(hit, "function");
			cr_assert(fn && !strcmp(fn, r->function), "%s: function %s, want %s", r->what, fn ? fn : "null",
				  r->function);
		}
		if (!strcmp(r->status, "UNVERIFIED"))
			cr_assert_str_eq(res.cause, "ASSERTION_UNDECIDABLE", "%s: %s", r->what, res.message);
		cr_assert(strstr(res.message, r->path) && strstr(res.message, r->finding), "%s: %s", r->what, res.message);
	}
	weakening_result_free(&res);
	free(post);
	ts_rmtree(dir);
	free(dir);
	free(pre_root);
	free(post_root);
}

static void play_all(const struct row *rows, size_t n)
{
	for (size_t i = 0; i < n; i++)
		play(&rows[i]);
}

/*==== Go ====================================================================================*/

#define GO_PRE                                                                                                         \
	"package calc\n\nimport (\n\t\"testing\"\n\n\t\"github.com/stretchr/testify/assert\"\n"                        \
	"\t\"github.com/stretchr/testify/require\"\n)\n\n"                                                              \
	"func TestAdd(t *testing.T) {\n\tif Add(1, 2) != 3 {\n\t\tt.Fatal(\"add\")\n\t}\n\tif got := Add(2, 2); got != 4 {\n" \
	"\t\tt.Errorf(\"got %d\", got)\n\t}\n}\n\n"                                                                     \
	"func TestSub(t *testing.T) {\n\tassert.Equal(t, 1, Sub(2, 1))\n\trequire.NoError(t, Check())\n}\n\n"            \
	"func TestTable(t *testing.T) {\n\tcases := []struct{ a, b, want int }{\n\t\t{1, 2, 3},\n\t}\n"                   \
	"\tfor _, c := range cases {\n\t\tif got := Add(c.a, c.b); got != c.want {\n"                                     \
	"\t\t\tt.Errorf(\"%d+%d=%d\", c.a, c.b, got)\n\t\t}\n\t}\n}\n"

#define GO_PRE_OBJ                                                                                                     \
	"package calc\n\nimport (\n\t\"testing\"\n\n\t\"github.com/stretchr/testify/assert\"\n)\n\n"                      \
	"func TestSub(t *testing.T) {\n\ta := assert.New(t)\n\ta.Equal(1, Sub(2, 1))\n\ta.NoError(Check())\n}\n"
#define GO_PRE_ALIAS                                                                                                   \
	"package calc\n\nimport (\n\t\"testing\"\n\n\ttassert \"github.com/stretchr/testify/assert\"\n)\n\n"               \
	"func TestSub(t *testing.T) {\n\ttassert.Equal(t, 1, Sub(2, 1))\n\ttassert.NoError(t, Check())\n}\n"

/* testify's suites: the suite's methods are its tests, its receiver asserts (s.Equal),
 * s.Require() asserts fatally, s.T() is the test's *testing.T */
#define GO_PRE_SUITE                                                                                                   \
	"package calc\n\nimport (\n\t\"testing\"\n\n\t\"github.com/stretchr/testify/suite\"\n)\n\n"                       \
	"type CalcSuite struct {\n\tsuite.Suite\n}\n\n"                                                                    \
	"func (s *CalcSuite) TestSub() {\n\ts.Equal(1, Sub(2, 1))\n\ts.Require().NoError(Check())\n}\n\n"                   \
	"func (s *CalcSuite) TestAdd() {\n\tif Add(1, 2) != 3 {\n\t\ts.T().Fatal(\"add\")\n\t}\n}\n\n"                      \
	"func TestCalcSuite(t *testing.T) {\n\tsuite.Run(t, new(CalcSuite))\n}\n"

/* a test that asserts through a helper of the file (the helper is no test) */
#define GO_PRE_HELPER                                                                                                  \
	"package calc\n\nimport \"testing\"\n\nfunc checkAdd(t *testing.T) {\n\tif Add(1, 2) != 3 {\n\t\tt.Fatal(\"add\")\n\t}\n}\n\n" \
	"func TestAdd(t *testing.T) {\n\tcheckAdd(t)\n}\n"
#define RS_PRE_HELPER                                                                                                  \
	"pub fn add(a: i32, b: i32) -> i32 { a + b }\n\n#[cfg(test)]\nmod tests {\n    use super::*;\n\n"               \
	"    fn check_add() {\n        assert_eq!(add(1, 2), 3);\n    }\n\n"                                          \
	"    #[test]\n    fn adds() {\n        check_add();\n    }\n}\n"

static const struct row go_cheats[] = {
    /* the test's text unchanged, the helper it calls weakened: the test is (was PASS) */
    {"go assertion removed from the helper the test calls", "calc/calc_test.go", GO_PRE_HELPER,
     "\tif Add(1, 2) != 3 {\n\t\tt.Fatal(\"add\")\n\t}\n", "", "FAIL", "test-lost-every-assertion", "TestAdd"},
    {"go the helper's check made constant", "calc/calc_test.go", GO_PRE_HELPER, "if Add(1, 2) != 3 {", "if false {",
     "FAIL", NULL, "TestAdd"},
    {"go suite assertion made constant", "calc/calc_test.go", GO_PRE_SUITE, "s.Equal(1, Sub(2, 1))", "s.True(true)", "FAIL",
     "replaced-by-tautology", "TestSub"},
    {"go suite assertion removed", "calc/calc_test.go", GO_PRE_SUITE, "\ts.Equal(1, Sub(2, 1))\n", "", "FAIL",
     "assertion-removed", "TestSub"},
    {"go suite Require removed", "calc/calc_test.go", GO_PRE_SUITE, "\ts.Require().NoError(Check())\n", "", "FAIL",
     "assertion-removed", "TestSub"},
    {"go suite s.T().Fatal made unreachable", "calc/calc_test.go", GO_PRE_SUITE, "if Add(1, 2) != 3 {", "if false {",
     "FAIL", "replaced-by-tautology", "TestAdd"},
    {"go suite s.T().Skip added", "calc/calc_test.go", GO_PRE_SUITE, "func (s *CalcSuite) TestAdd() {\n",
     "func (s *CalcSuite) TestAdd() {\n\ts.T().Skip(\"later\")\n", "FAIL", "test-skipped", "TestAdd"},
    /* a suite's methods in a file of their own, which imports nothing of testify */
    {"go suite method in another file gutted", "calc/more_test.go",
     "package calc\n\nfunc (s *CalcSuite) TestNeg() {\n\ts.Equal(0, Add(-1, 1))\n}\n", "s.Equal(0, Add(-1, 1))",
     "s.True(true)", "FAIL", "replaced-by-tautology", "TestNeg"},
    {"go suite method renamed out of Test", "calc/calc_test.go", GO_PRE_SUITE, "func (s *CalcSuite) TestSub()",
     "func (s *CalcSuite) CheckSub()", "FAIL", "test-not-collected", "TestSub"},
    {"go if false", "calc/calc_test.go", GO_PRE, "if Add(1, 2) != 3 {", "if false {", "FAIL", "replaced-by-tautology", "TestAdd"},
    {"go x != x", "calc/calc_test.go", GO_PRE, "if Add(1, 2) != 3 {", "if Add(1, 2) != Add(1, 2) {", "FAIL",
     "replaced-by-tautology", "TestAdd"},
    {"go failure call removed", "calc/calc_test.go", GO_PRE, "\t\tt.Fatal(\"add\")\n", "", "FAIL", "assertion-removed",
     "TestAdd"},
    {"go every failure removed", "calc/calc_test.go", GO_PRE, "\t\t\tt.Errorf(\"%d+%d=%d\", c.a, c.b, got)\n", "", "FAIL",
     "test-lost-every-assertion", "TestTable"},
    {"go failure made unreachable", "calc/calc_test.go", GO_PRE, "func TestAdd(t *testing.T) {\n",
     "func TestAdd(t *testing.T) {\n\treturn\n", "FAIL", "assertion-unreachable", "TestAdd"},
    {"go t.Skip added", "calc/calc_test.go", GO_PRE, "func TestAdd(t *testing.T) {\n",
     "func TestAdd(t *testing.T) {\n\tt.Skip(\"flaky\")\n", "FAIL", "test-skipped", "TestAdd"},
    {"go t.SkipNow added", "calc/calc_test.go", GO_PRE, "func TestSub(t *testing.T) {\n",
     "func TestSub(t *testing.T) {\n\tt.SkipNow()\n", "FAIL", "test-skipped", "TestSub"},
    {"go renamed out of the Test prefix", "calc/calc_test.go", GO_PRE, "func TestAdd(", "func testAdd(", "FAIL",
     "test-not-collected", "TestAdd"},
    {"go Testadd is no test", "calc/calc_test.go", GO_PRE, "func TestAdd(", "func Testadd(", "FAIL", "test-not-collected",
     "TestAdd"},
    {"go wrong signature", "calc/calc_test.go", GO_PRE, "func TestSub(t *testing.T)", "func TestSub(t *testing.B)", "FAIL",
     "test-not-collected", "TestSub"},
    {"go test deleted", "calc/calc_test.go", GO_PRE,
     "func TestSub(t *testing.T) {\n\tassert.Equal(t, 1, Sub(2, 1))\n\trequire.NoError(t, Check())\n}\n", "", "FAIL",
     "test-deleted", "TestSub"},
    {"go //go:build ignore", "calc/calc_test.go", GO_PRE, "package calc\n", "//go:build ignore\n\npackage calc\n", "FAIL",
     "build-excluded", NULL},
    {"go a tag nothing sets", "calc/calc_test.go", GO_PRE, "package calc\n", "//go:build never\n\npackage calc\n", "FAIL",
     "build-excluded", NULL},
    {"go // +build", "calc/calc_test.go", GO_PRE, "package calc\n", "// +build skipme\n\npackage calc\n", "FAIL",
     "build-excluded", NULL},
    {"go testify assert.Equal -> assert.True(t, true)", "calc/calc_test.go", GO_PRE, "assert.Equal(t, 1, Sub(2, 1))",
     "assert.True(t, true)", "FAIL", "replaced-by-tautology", "TestSub"},
    {"go testify compared with itself", "calc/calc_test.go", GO_PRE, "assert.Equal(t, 1, Sub(2, 1))",
     "assert.Equal(t, Sub(2, 1), Sub(2, 1))", "FAIL", "replaced-by-tautology", "TestSub"},
    {"go testify require removed", "calc/calc_test.go", GO_PRE, "\trequire.NoError(t, Check())\n", "", "FAIL",
     "assertion-removed", "TestSub"},
    {"go testify Equal -> NotNil", "calc/calc_test.go", GO_PRE, "assert.Equal(t, 1, Sub(2, 1))",
     "assert.NotNil(t, Sub(2, 1))", "FAIL", "matcher-loosened", "TestSub"},
    {"go expected literal changed", "calc/calc_test.go", GO_PRE, "!= 3 {", "!= 5 {", "WARN", "expected-value-changed",
     "TestAdd"},
    {"go testify expected changed", "calc/calc_test.go", GO_PRE, "assert.Equal(t, 1, Sub(2, 1))",
     "assert.Equal(t, 2, Sub(2, 1))", "WARN", "expected-value-changed", "TestSub"},
    /* testify's object form: a := assert.New(t); a.Equal(1, x) (no t argument) */
    {"go testify object assertion made constant", "calc/calc_test.go", GO_PRE_OBJ, "a.Equal(1, Sub(2, 1))",
     "a.True(true)", "FAIL", "replaced-by-tautology", "TestSub"},
    {"go testify object assertion removed", "calc/calc_test.go", GO_PRE_OBJ, "\ta.Equal(1, Sub(2, 1))\n", "", "FAIL",
     "assertion-removed", "TestSub"},
    {"go testify object Equal -> NotNil", "calc/calc_test.go", GO_PRE_OBJ, "a.Equal(1, Sub(2, 1))", "a.NotNil(Sub(2, 1))",
     "FAIL", "matcher-loosened", "TestSub"},
    /* an aliased import: import tassert "github.com/stretchr/testify/assert" */
    {"go testify aliased import made constant", "calc/calc_test.go", GO_PRE_ALIAS, "tassert.Equal(t, 1, Sub(2, 1))",
     "tassert.True(t, true)", "FAIL", "replaced-by-tautology", "TestSub"},
    {"go testify aliased assertion removed", "calc/calc_test.go", GO_PRE_ALIAS, "\ttassert.Equal(t, 1, Sub(2, 1))\n", "",
     "FAIL", "assertion-removed", "TestSub"},
    {"go conditional skip", "calc/calc_test.go", GO_PRE, "func TestAdd(t *testing.T) {\n",
     "func TestAdd(t *testing.T) {\n\tif testing.Short() {\n\t\tt.Skip()\n\t}\n", "UNVERIFIED", "conditional-skip-added",
     "TestAdd"},
    {"go build constraint on a platform", "calc/calc_test.go", GO_PRE, "package calc\n",
     "//go:build linux\n\npackage calc\n", "UNVERIFIED", "build-constraint-added", NULL},
    {"go file deleted", "calc/calc_test.go", GO_PRE, "package calc", NULL, "FAIL", "test-deleted", "TestAdd"},
};

static const struct row go_honest[] = {
    {"go the helper gains a check", "calc/calc_test.go", GO_PRE_HELPER, "\t\tt.Fatal(\"add\")\n\t}\n",
     "\t\tt.Fatal(\"add\")\n\t}\n\tif Add(2, 2) != 4 {\n\t\tt.Fatal(\"add2\")\n\t}\n", "PASS", NULL, NULL},
    {"go the helper renamed with its call", "calc/calc_test.go", GO_PRE_HELPER, NULL,
     "package calc\n\nimport \"testing\"\n\nfunc verifyAdd(t *testing.T) {\n\tif Add(1, 2) != 3 {\n\t\tt.Fatal(\"add\")\n\t}\n}\n\n"
     "func TestAdd(t *testing.T) {\n\tverifyAdd(t)\n}\n", "PASS", NULL, NULL},
    {"go suite a new method", "calc/calc_test.go", GO_PRE_SUITE, "func TestCalcSuite(",
     "func (s *CalcSuite) TestMul() {\n\ts.Equal(6, Mul(2, 3))\n}\n\nfunc TestCalcSuite(", "PASS", NULL, NULL},
    {"go suite a stricter check", "calc/calc_test.go", GO_PRE_SUITE, "s.Equal(1, Sub(2, 1))",
     "s.Equal(1, Sub(2, 1))\n\ts.Equal(0, Sub(1, 1))", "PASS", NULL, NULL},
    {"go testify switched to its object form", "calc/calc_test.go", GO_PRE, "\tassert.Equal(t, 1, Sub(2, 1))\n",
     "\ta := assert.New(t)\n\ta.Equal(1, Sub(2, 1))\n", "PASS", NULL, NULL},
    {"go t.Parallel added", "calc/calc_test.go", GO_PRE, "func TestAdd(t *testing.T) {\n",
     "func TestAdd(t *testing.T) {\n\tt.Parallel()\n", "PASS", NULL, NULL},
    {"go subtest", "calc/calc_test.go", GO_PRE, "\tif Add(1, 2) != 3 {\n\t\tt.Fatal(\"add\")\n\t}\n",
     "\tt.Run(\"small\", func(t *testing.T) {\n\t\tif Add(1, 2) != 3 {\n\t\t\tt.Fatal(\"add\")\n\t\t}\n\t})\n", "PASS", NULL,
     NULL},
    {"go a table row", "calc/calc_test.go", GO_PRE, "\t\t{1, 2, 3},\n", "\t\t{1, 2, 3},\n\t\t{2, 2, 4},\n", "PASS", NULL, NULL},
    {"go a new test", "calc/calc_test.go", GO_PRE, "func TestTable(",
     "func TestMul(t *testing.T) {\n\tif Mul(2, 3) != 6 {\n\t\tt.Fatal()\n\t}\n}\n\nfunc TestTable(", "PASS", NULL, NULL},
    {"go renamed, still a test", "calc/calc_test.go", GO_PRE, "func TestAdd(", "func TestAddition(", "PASS", NULL, NULL},
    {"go a stricter check", "calc/calc_test.go", GO_PRE, "assert.Equal(t, 1, Sub(2, 1))",
     "assert.Equal(t, 1, Sub(2, 1))\n\tassert.Equal(t, 0, Sub(1, 1))", "PASS", NULL, NULL},
    {"go reformatted", "calc/calc_test.go", GO_PRE, "if Add(1, 2) != 3 {", "if Add(1,2) != 3 {", "PASS", NULL, NULL},
    {"go a new file", "calc/mul_test.go", NULL, NULL,
     "package calc\n\nimport \"testing\"\n\nfunc TestMul(t *testing.T) {\n\tif Mul(2, 3) != 6 {\n\t\tt.Fatal()\n\t}\n}\n",
     "PASS", NULL, NULL},
    {"go moved into a helper the test calls", "calc/calc_test.go", GO_PRE,
     "func TestAdd(t *testing.T) {\n\tif Add(1, 2) != 3 {\n\t\tt.Fatal(\"add\")\n\t}\n",
     "func checkAdd(t *testing.T) {\n\tif Add(1, 2) != 3 {\n\t\tt.Fatal(\"add\")\n\t}\n}\n\n"
     "func TestAdd(t *testing.T) {\n\tcheckAdd(t)\n",
     "PASS", NULL, NULL},
};

Test(a1_go_rust, go_cheats_are_caught)
{
	play_all(go_cheats, sizeof go_cheats / sizeof *go_cheats);
}

Test(a1_go_rust, go_honest_edits_never_fail)
{
	play_all(go_honest, sizeof go_honest / sizeof *go_honest);
}

/*==== Rust ==================================================================================*/

#define RS_PRE                                                                                                         \
	"pub fn add(a: i32, b: i32) -> i32 { a + b }\n\npub fn find(k: i32) -> Option<i32> { Some(k + 2) }\n\n"             \
	"#[cfg(test)]\nmod tests {\n    use super::*;\n\n"                                                                \
	"    #[test]\n    fn adds() {\n        assert_eq!(add(1, 2), 3);\n        assert!(add(2, 2) == 4);\n    }\n\n"          \
	"    #[test]\n    fn subtracts() {\n        assert_ne!(add(2, -1), 0);\n        assert_eq!(add(2, -1), 1);\n    }\n\n"  \
	"    #[test]\n    fn finds() {\n        assert_eq!(find(1), Some(3));\n    }\n\n"                                      \
	"    #[test]\n    #[should_panic(expected = \"overflow\")]\n    fn overflows() {\n        add(i32::MAX, 1);\n    }\n\n"   \
	"    #[test]\n    fn checks() {\n        if add(1, 1) != 2 {\n            panic!(\"add\");\n        }\n    }\n}\n"

#define RS_MACRO_PRE                                                                                                   \
	"macro_rules! check {\n    ($name:ident, $a:expr, $want:expr) => {\n        #[test]\n"                             \
	"        fn $name() { assert_eq!(calc::add($a, 1), $want); }\n    };\n}\n\ncheck!(one, 1, 2);\n\n"                   \
	"#[test]\nfn adds() {\n    assert_eq!(calc::add(1, 2), 3);\n}\n"

static const struct row rs_cheats[] = {
    {"rust assertion removed from the helper the test calls", "src/lib.rs", RS_PRE_HELPER,
     "        assert_eq!(add(1, 2), 3);\n", "", "FAIL", "test-lost-every-assertion", "tests::adds"},
    {"rust the helper's assertion made constant", "src/lib.rs", RS_PRE_HELPER, "assert_eq!(add(1, 2), 3);",
     "assert!(true);", "FAIL", NULL, "tests::adds"},
    {"rust assert_eq! removed", "src/lib.rs", RS_PRE, "        assert_eq!(add(1, 2), 3);\n", "", "FAIL", "assertion-removed",
     "tests::adds"},
    {"rust every assertion removed", "src/lib.rs", RS_PRE, "        if add(1, 1) != 2 {\n            panic!(\"add\");\n        }\n",
     "", "FAIL", "test-lost-every-assertion", "tests::checks"},
    {"rust assert!(true)", "src/lib.rs", RS_PRE, "assert_eq!(add(1, 2), 3)", "assert!(true)", "FAIL", "replaced-by-tautology",
     "tests::adds"},
    {"rust assert_eq!(x, x)", "src/lib.rs", RS_PRE, "assert_eq!(add(1, 2), 3)", "assert_eq!(add(1, 2), add(1, 2))", "FAIL",
     "replaced-by-tautology", "tests::adds"},
    {"rust assert!(1 == 1)", "src/lib.rs", RS_PRE, "assert!(add(2, 2) == 4)", "assert!(1 == 1)", "FAIL",
     "replaced-by-tautology", "tests::adds"},
    {"rust if false panic", "src/lib.rs", RS_PRE, "if add(1, 1) != 2 {", "if false {", "FAIL", "assertion-unreachable",
     "tests::checks"},
    {"rust return before", "src/lib.rs", RS_PRE, "    fn adds() {\n", "    fn adds() {\n        return;\n", "FAIL",
     "assertion-unreachable", "tests::adds"},
    {"rust if false around", "src/lib.rs", RS_PRE, "        assert_eq!(add(2, -1), 1);\n",
     "        if false {\n            assert_eq!(add(2, -1), 1);\n        }\n", "FAIL", "assertion-unreachable",
     "tests::subtracts"},
    {"rust #[ignore] added", "src/lib.rs", RS_PRE, "    #[test]\n    fn adds", "    #[test]\n    #[ignore]\n    fn adds", "FAIL",
     "test-skipped", "tests::adds"},
    {"rust #[test] removed", "src/lib.rs", RS_PRE, "    #[test]\n    fn adds", "    fn adds", "FAIL", "test-not-collected",
     "tests::adds"},
    {"rust test deleted", "src/lib.rs", RS_PRE,
     "    #[test]\n    fn finds() {\n        assert_eq!(find(1), Some(3));\n    }\n\n", "", "FAIL", "test-deleted", "tests::finds"},
    {"rust #[should_panic] added", "src/lib.rs", RS_PRE, "    #[test]\n    fn adds", "    #[test]\n    #[should_panic]\n    fn adds",
     "FAIL", "expected-failure-added", "tests::adds"},
    {"rust should_panic's expected removed", "src/lib.rs", RS_PRE, "#[should_panic(expected = \"overflow\")]", "#[should_panic]",
     "FAIL", "should-panic-expected-removed", "tests::overflows"},
    {"rust #[cfg(any())] module", "src/lib.rs", RS_PRE, "#[cfg(test)]", "#[cfg(any())]", "FAIL", "build-excluded", "tests::adds"},
    {"rust #[cfg(FALSE)] module", "src/lib.rs", RS_PRE, "#[cfg(test)]", "#[cfg(FALSE)]", "FAIL", "build-excluded", "tests::adds"},
    {"rust #[cfg(all(test, any()))]", "src/lib.rs", RS_PRE, "#[cfg(test)]", "#[cfg(all(test, any()))]", "FAIL", "build-excluded",
     "tests::adds"},
    {"rust #[cfg(not(test))]", "src/lib.rs", RS_PRE, "#[cfg(test)]", "#[cfg(not(test))]", "FAIL", "build-excluded",
     "tests::adds"},
    {"rust #![cfg(any())] on the file", "tests/calc.rs", "#[test]\nfn adds() {\n    assert_eq!(calc::add(1, 2), 3);\n}\n",
     "#[test]", "#![cfg(any())]\n\n#[test]", "FAIL", "build-excluded", NULL},
    {"rust #[cfg(feature)] added", "src/lib.rs", RS_PRE, "#[cfg(test)]\n", "#[cfg(test)]\n#[cfg(feature = \"slow\")]\n",
     "UNVERIFIED", "build-constraint-added", "tests::adds"},
    {"rust assert_eq -> is_some", "src/lib.rs", RS_PRE, "assert_eq!(find(1), Some(3))", "assert!(find(1).is_some())", "FAIL",
     "matcher-loosened", "tests::finds"},
    {"rust assert_eq -> assert!(x > 0)", "src/lib.rs", RS_PRE, "assert_eq!(add(1, 2), 3)", "assert!(add(1, 2) > 0)", "FAIL",
     "matcher-loosened", "tests::adds"},
    {"rust assert_eq -> assert_ne", "src/lib.rs", RS_PRE, "assert_eq!(add(1, 2), 3)", "assert_ne!(add(1, 2), 3)", "FAIL",
     "assertion-negated", "tests::adds"},
    {"rust expected literal changed", "src/lib.rs", RS_PRE, "assert_eq!(add(1, 2), 3)", "assert_eq!(add(1, 2), 4)", "WARN",
     "expected-value-changed", "tests::adds"},
    {"rust file deleted", "tests/calc.rs", "#[test]\nfn adds() {\n    assert_eq!(calc::add(1, 2), 3);\n}\n", "#", NULL, "FAIL",
     "test-deleted", "adds"},
    {"rust macro_rules! body weakened", "tests/calc.rs", RS_MACRO_PRE, "assert_eq!(calc::add($a, 1), $want);", "", "UNVERIFIED",
     "macro-changed", "macro_rules! check"},
    {"rust a macro-made test's case changed", "tests/calc.rs", RS_MACRO_PRE, "check!(one, 1, 2);", "check!(one, 1, 3);",
     "UNVERIFIED", "macro-changed", "check!"},
    {"rust a test moved into a macro", "tests/calc.rs", RS_MACRO_PRE, "#[test]\nfn adds() {\n    assert_eq!(calc::add(1, 2), 3);\n}\n",
     "check!(adds, 2, 4);\n", "UNVERIFIED", "test-out-of-view", "adds"},
    {"rust mod tests; cfg'd away", "src/lib.rs", "pub fn add(a: i32, b: i32) -> i32 { a + b }\n\n#[cfg(test)]\nmod tests;\n",
     "#[cfg(test)]", "#[cfg(not(test))]", "FAIL", "build-excluded", "mod tests"},
    {"rust mod tests; removed", "src/lib.rs", "pub fn add(a: i32, b: i32) -> i32 { a + b }\n\n#[cfg(test)]\nmod tests;\n",
     "#[cfg(test)]\nmod tests;\n", "", "FAIL", "test-deleted", "mod tests"},
};

static const struct row rs_honest[] = {
    {"rust the helper gains an assertion", "src/lib.rs", RS_PRE_HELPER, "        assert_eq!(add(1, 2), 3);\n",
     "        assert_eq!(add(1, 2), 3);\n        assert_eq!(add(2, 2), 4);\n", "PASS", NULL, NULL},
    {"rust a new test", "src/lib.rs", RS_PRE, "    #[test]\n    fn finds",
     "    #[test]\n    fn adds_zero() {\n        assert_eq!(add(0, 0), 0);\n    }\n\n    #[test]\n    fn finds", "PASS", NULL, NULL},
    {"rust a new assertion", "src/lib.rs", RS_PRE, "        assert!(add(2, 2) == 4);\n",
     "        assert!(add(2, 2) == 4);\n        assert_eq!(add(0, 0), 0);\n", "PASS", NULL, NULL},
    {"rust a stricter check", "src/lib.rs", RS_PRE, "assert_ne!(add(2, -1), 0)", "assert_eq!(add(2, -1), 1)", "PASS", NULL, NULL},
    {"rust is_some made exact", "src/lib.rs", RS_PRE, "assert_eq!(find(1), Some(3))",
     "assert_eq!(find(1), Some(3));\n        assert_eq!(find(2), Some(4))", "PASS", NULL, NULL},
    {"rust renamed, still a test", "src/lib.rs", RS_PRE, "fn adds()", "fn adds_small_numbers()", "PASS", NULL, NULL},
    {"rust moved into a helper the test calls", "src/lib.rs", RS_PRE,
     "    #[test]\n    fn adds() {\n        assert_eq!(add(1, 2), 3);\n",
     "    fn check_add() {\n        assert_eq!(add(1, 2), 3);\n    }\n\n    #[test]\n    fn adds() {\n        check_add();\n", "PASS",
     NULL, NULL},
    {"rust reformatted", "src/lib.rs", RS_PRE, "assert_eq!(add(1, 2), 3);", "assert_eq!(\n            add(1,2),\n            3,\n        );",
     "PASS", NULL, NULL},
    {"rust a comment", "src/lib.rs", RS_PRE, "    use super::*;\n", "    use super::*; // the crate under test\n", "PASS", NULL,
     NULL},
    {"rust should_panic kept", "src/lib.rs", RS_PRE, "        add(i32::MAX, 1);\n", "        let _ = add(i32::MAX, 1);\n", "PASS",
     NULL, NULL},
    {"rust a new test file", "tests/mul.rs", NULL, NULL, "#[test]\nfn muls() {\n    assert_eq!(calc::mul(2, 3), 6);\n}\n", "PASS",
     NULL, NULL},
    {"rust a message added", "src/lib.rs", RS_PRE, "assert_eq!(add(1, 2), 3)", "assert_eq!(add(1, 2), 3, \"one and two\")", "!FAIL",
     NULL, NULL},
    {"rust the test module moved into its own file", "src/lib.rs", RS_PRE, RS_PRE + 110, "mod tests;\n", "UNVERIFIED",
     "test-out-of-view", "tests::adds"},
    {"rust the macro untouched", "tests/calc.rs", RS_MACRO_PRE, "    assert_eq!(calc::add(1, 2), 3);\n",
     "    assert_eq!(calc::add(1, 2), 3);\n    assert_eq!(calc::add(0, 0), 0);\n", "PASS", NULL, NULL},
};

Test(a1_go_rust, rust_cheats_are_caught)
{
	play_all(rs_cheats, sizeof rs_cheats / sizeof *rs_cheats);
}

Test(a1_go_rust, rust_honest_edits_never_fail)
{
	play_all(rs_honest, sizeof rs_honest / sizeof *rs_honest);
}

/*==== hostile input =========================================================================*/

#include "assertions/a1_go.h"
#include "assertions/a1_rust.h"

typedef cJSON *(*judge_fn)(const char *, size_t, const char *, size_t);
typedef int (*count_fn)(const char *, size_t, int *, int *);

/* The only finding of judging `text` against a valid side `ok`: UNVERIFIED with `cause`; the
 * count refuses it too. */
static void refused_by(judge_fn judge, count_fn count, const char *ok, const char *text, size_t len, const char *cause)
{
	cJSON *out = judge(ok, strlen(ok), text, len);
	const cJSON *f;
	int n = 0;
	cJSON_ArrayForEach(f, out)
	{
		cr_assert_str_eq(jx_str(f, "status"), "UNVERIFIED");
		cr_assert_str_eq(jx_str(f, "cause"), cause, "%s", jx_str(f, "post"));
		n++;
	}
	cr_assert_eq(n, 1);
	cJSON_Delete(out);
	int tests, asserts;
	cr_assert_eq(count(text, len, &tests, &asserts), BELAY_EINVAL);
}

struct lang {
	judge_fn judge;
	count_fn count;
	const char *ok;	  /* a valid side */
	const char *open; /* a test opened, up to an expression */
	const char *head; /* a test's head, then lines of `line` (one %d twice), then "}\n" */
	const char *line;
};

static const struct lang GO = {a1_go_judge, a1_go_count, "package a\n", "package a\nfunc TestA(t *testing.T) { x := ",
			       "package a\nfunc TestA(t *testing.T) {\n", "\tif f(%d) != %d {\n\t\tt.Error()\n\t}\n"};
static const struct lang RUST = {a1_rust_judge, a1_rust_count, "fn a() {}\n", "#[test]\nfn a() { let x = ", "#[test]\nfn a() {\n",
				 "    assert_eq!(f(%d), %d);\n"};

static void refused(const struct lang *l, const char *text, size_t len, const char *cause)
{
	refused_by(l->judge, l->count, l->ok, text, len, cause);
}

/* What every language's judge refuses or reads alike: deep brackets and unbracketed chains,
 * a side over the size limit (refused); a long flat file (read, every assertion counted). */
static void hostile(const struct lang *l)
{
	size_t n = 200000;
	char *deep = xmalloc(n + 64);
	int k = snprintf(deep, 64, "%s", l->open);
	const char nests[] = "(!{"; /* brackets, a chain without one, blocks */
	for (const char *c = nests; *c; c++) {
		memset(deep + k, *c, n);
		refused(l, deep, (size_t)k + n, "ASSERTION_UNDECIDABLE");
	}
	free(deep);
	char *big = xmalloc((4u << 20) + 2);
	memset(big, ' ', (4u << 20) + 1);
	refused(l, big, (4u << 20) + 1, "ASSERTION_FILE_UNREADABLE");
	free(big);
	struct buf b = {0};
	buf_puts(&b, l->head);
	for (int i = 0; i < 20000; i++)
		buf_printf(&b, l->line, i, i);
	buf_puts(&b, "}\n");
	int tests = 0, asserts = 0;
	cr_assert_eq(l->count(buf_cstr(&b), b.len, &tests, &asserts), 0);
	cr_assert_eq(tests, 1);
	cr_assert_eq(asserts, 20000);
	buf_free(&b);
}

Test(a1_go_rust, go_hostile_input_is_refused_never_a_crash)
{
	hostile(&GO);
	refused(&GO, "package a\nfunc TestA(t *testing.T) { t.Fatal(\"\xff\") }\n", 47, "ASSERTION_FILE_UNREADABLE");
	refused(&GO, "package a\n\0func x() {}\n", 23, "ASSERTION_FILE_UNREADABLE");
	refused(&GO, "package a\nfunc TestA(t *testing.T) { if { }\n", 43, "ASSERTION_FILE_UNREADABLE");
}

Test(a1_go_rust, rust_hostile_input_is_refused_never_a_crash)
{
	hostile(&RUST);
	/* brackets inside a macro's tokens nest the same */
	struct buf m = {0};
	buf_puts(&m, "#[test]\nfn a() { assert!");
	for (int i = 0; i < 5000; i++)
		buf_puts(&m, "[(");
	refused(&RUST, buf_cstr(&m), m.len, "ASSERTION_UNDECIDABLE");
	buf_free(&m);
	refused(&RUST, "#[test]\nfn a() { assert!(\"\xff\"); }\n", 33, "ASSERTION_FILE_UNREADABLE");
	refused(&RUST, "fn a() {}\n\0#[test] fn b() {}\n", 29, "ASSERTION_FILE_UNREADABLE");
	refused(&RUST, "#[test]\nfn a() { if { }\n", 24, "ASSERTION_FILE_UNREADABLE");
	/* lifetimes, raw strings with brackets and nested comments are no brackets */
	const char *odd = "/* a /* nested */ comment ((( */\nfn f<'a>(x: &'a str) -> &'a str { x }\n"
			  "#[test]\nfn a() {\n    let s = r#\"(((\"#;\n    assert_eq!(f(s), \"(((\");\n    assert!('(' != ')');\n}\n";
	int tests = 0, asserts = 0;
	cr_assert_eq(a1_rust_count(odd, strlen(odd), &tests, &asserts), 0);
	cr_assert_eq(tests, 1);
	cr_assert_eq(asserts, 2);
}

/*==== Cargo.toml test targets ===============================================================*/

#define CARGO "[package]\nname = \"calc\"\nversion = \"0.1.0\"\n\n[lib]\npath = \"src/lib.rs\"\n\n[[test]]\nname = \"it\"\n"

static const struct row cargo_rows[] = {
    {"[[test]] test = false", "Cargo.toml", CARGO, "name = \"it\"\n", "name = \"it\"\ntest = false\n", "FAIL", NULL, NULL},
    {"[[test]] harness = false", "Cargo.toml", CARGO, "name = \"it\"\n", "name = \"it\"\nharness = false\n", "FAIL", NULL, NULL},
    {"[lib] harness = false", "Cargo.toml", CARGO, "path = \"src/lib.rs\"\n", "path = \"src/lib.rs\"\nharness = false\n", "FAIL",
     NULL, NULL},
    {"[lib] test = false", "Cargo.toml", CARGO, "path = \"src/lib.rs\"\n", "path = \"src/lib.rs\"\ntest = false\n", "FAIL", NULL,
     NULL},
    {"[[test]] removed", "Cargo.toml", CARGO, "\n[[test]]\nname = \"it\"\n", "\n", "FAIL", NULL, NULL},
    {"honest: a version bump", "Cargo.toml", CARGO, "0.1.0", "0.2.0", "PASS", NULL, NULL},
};

Test(a1_go_rust, cargo_test_targets_turned_off_fail)
{
	play_all(cargo_rows, sizeof cargo_rows / sizeof *cargo_rows);
}

/*==== held-out-style cases (issue 32, h32rg) ================================================*/

/* a test of subtests */
#define GO_PRE_SUB                                                                                                     \
	"package calc\n\nimport (\n\t\"testing\"\n\n\t\"github.com/stretchr/testify/assert\"\n)\n\n"                      \
	"func TestAdd(t *testing.T) {\n\tt.Run(\"small\", func(t *testing.T) {\n\t\tif Add(1, 2) != 3 {\n"              \
	"\t\t\tt.Fatal(\"add\")\n\t\t}\n\t})\n\tt.Run(\"big\", func(t *testing.T) {\n"                                  \
	"\t\tassert.Equal(t, 2000, Add(1000, 1000))\n\t})\n}\n"
#define GO_PRE_MAIN                                                                                                    \
	"package calc\n\nimport (\n\t\"os\"\n\t\"testing\"\n)\n\nfunc TestMain(m *testing.M) {\n\tos.Exit(m.Run())\n}\n\n" \
	"func TestAdd(t *testing.T) {\n\tif Add(1, 2) != 3 {\n\t\tt.Fatal(\"add\")\n\t}\n}\n"

static const struct row go_cheats_more[] = {
    /* a helper the test calls skips it */
    {"go t.Skip in a new helper", "calc/calc_test.go", GO_PRE, "func TestAdd(t *testing.T) {\n",
     "func skipSlow(t *testing.T) {\n\tt.Skip(\"slow\")\n}\n\nfunc TestAdd(t *testing.T) {\n\tskipSlow(t)\n", "FAIL",
     "test-skipped", "TestAdd"},
    {"go a conditional skip in a new helper", "calc/calc_test.go", GO_PRE, "func TestAdd(t *testing.T) {\n",
     "func skipShort(t *testing.T) {\n\tif testing.Short() {\n\t\tt.Skip(\"slow\")\n\t}\n}\n\nfunc TestAdd(t *testing.T) {\n\tskipShort(t)\n",
     "UNVERIFIED", "conditional-skip-added", "TestAdd"},
    {"go the helper the test calls starts skipping", "calc/calc_test.go", GO_PRE_HELPER, "func checkAdd(t *testing.T) {\n",
     "func checkAdd(t *testing.T) {\n\tt.SkipNow()\n", "FAIL", "test-skipped", "TestAdd"},
    /* the failures sent to a testing value that is no test's */
    {"go helper given a dummy testing.T", "calc/calc_test.go", GO_PRE_HELPER, "\tcheckAdd(t)\n", "\tcheckAdd(&testing.T{})\n", "FAIL",
     "test-lost-every-assertion", "TestAdd"},
    {"go testify given a dummy testing.T", "calc/calc_test.go", GO_PRE, "assert.Equal(t, 1, Sub(2, 1))",
     "assert.Equal(new(testing.T), 1, Sub(2, 1))", "FAIL", "failure-swallowed", "TestSub"},
    {"go assert.New of a dummy", "calc/calc_test.go", GO_PRE_OBJ, "a := assert.New(t)", "a := assert.New(&testing.T{})", "FAIL",
     "assertion-removed", "TestSub"},
    {"go t bound to a dummy", "calc/calc_test.go", GO_PRE, "func TestAdd(t *testing.T) {\n",
     "func TestAdd(t *testing.T) {\n\tt = &testing.T{}\n", "FAIL", "test-lost-every-assertion", "TestAdd"},
    {"go t shadowed by a dummy for testify", "calc/calc_test.go", GO_PRE, "func TestSub(t *testing.T) {\n",
     "func TestSub(t *testing.T) {\n\tt := new(testing.T)\n", "FAIL", "failure-swallowed", "TestSub"},
    {"go guard negated", "calc/calc_test.go", GO_PRE, "if Add(1, 2) != 3 {", "if Add(1, 2) == 3 {", "FAIL", "assertion-negated",
     "TestAdd"},
    {"go moved into a helper never called", "calc/calc_test.go", GO_PRE,
     "func TestAdd(t *testing.T) {\n\tif Add(1, 2) != 3 {\n\t\tt.Fatal(\"add\")\n\t}\n",
     "func checkAdd(t *testing.T) {\n\tif Add(1, 2) != 3 {\n\t\tt.Fatal(\"add\")\n\t}\n}\n\nfunc TestAdd(t *testing.T) {\n", "FAIL",
     "assertion-removed", "TestAdd"},
    {"go moved into a func literal never called", "calc/calc_test.go", GO_PRE, "\tassert.Equal(t, 1, Sub(2, 1))\n",
     "\t_ = func() { assert.Equal(t, 1, Sub(2, 1)) }\n", "FAIL", "assertion-unreachable", "TestSub"},
    /* var a = assert.New(t): a var_spec (and `var wg sync.WaitGroup`, no value, crashed the judge) */
    {"go var a = assert.New(t), its check made constant", "calc/calc_test.go", GO_PRE_OBJ, NULL,
     "package calc\n\nimport (\n\t\"testing\"\n\n\t\"github.com/stretchr/testify/assert\"\n)\n\n"
     "func TestSub(t *testing.T) {\n\tvar wg sync.WaitGroup\n\tvar a = assert.New(t)\n\ta.True(true)\n\ta.NoError(Check())\n\t_ = wg\n}\n",
     "FAIL", "replaced-by-tautology", "TestSub"},
    {"go t.Skipf added", "calc/calc_test.go", GO_PRE, "func TestAdd(t *testing.T) {\n",
     "func TestAdd(t *testing.T) {\n\tt.Skipf(\"later: %d\", 32)\n", "FAIL", "test-skipped", "TestAdd"},
    {"go t.Errorf -> t.Logf", "calc/calc_test.go", GO_PRE, "t.Errorf(\"got %d\", got)", "t.Logf(\"got %d\", got)", "FAIL",
     "assertion-removed", "TestAdd"},
    {"go t.Fatal -> fmt.Println", "calc/calc_test.go", GO_PRE, "t.Fatal(\"add\")", "fmt.Println(\"add\")", "FAIL",
     "assertion-removed", "TestAdd"},
    {"go require.NoError -> require.True(t, true)", "calc/calc_test.go", GO_PRE, "require.NoError(t, Check())",
     "require.True(t, true)", "FAIL", "replaced-by-tautology", "TestSub"},
    {"go got != got", "calc/calc_test.go", GO_PRE, "got != c.want", "got != got", "FAIL", "replaced-by-tautology", "TestTable"},
    {"go && false", "calc/calc_test.go", GO_PRE, "if Add(1, 2) != 3 {", "if Add(1, 2) != 3 && false {", "FAIL",
     "replaced-by-tautology", "TestAdd"},
    {"go a second parameter", "calc/calc_test.go", GO_PRE, "func TestSub(t *testing.T)", "func TestSub(t *testing.T, n int)",
     "FAIL", "test-not-collected", "TestSub"},
    {"go //go:build integration", "calc/calc_test.go", GO_PRE, "package calc\n", "//go:build integration\n\npackage calc\n",
     "FAIL", "build-excluded", NULL},
    {"go // +build ignore", "calc/calc_test.go", GO_PRE, "package calc\n", "// +build ignore\n\npackage calc\n", "FAIL",
     "build-excluded", NULL},
    {"go subtest body gutted", "calc/calc_test.go", GO_PRE_SUB, "\t\tif Add(1, 2) != 3 {\n\t\t\tt.Fatal(\"add\")\n\t\t}\n", "",
     "FAIL", "assertion-removed", "TestAdd"},
    {"go subtest skipped", "calc/calc_test.go", GO_PRE_SUB, "\tt.Run(\"big\", func(t *testing.T) {\n",
     "\tt.Run(\"big\", func(t *testing.T) {\n\t\tt.SkipNow()\n", "FAIL", "test-skipped", "TestAdd"},
    {"go os.Exit(0) before the assertion", "calc/calc_test.go", GO_PRE, "func TestAdd(t *testing.T) {\n",
     "func TestAdd(t *testing.T) {\n\tos.Exit(0)\n", "FAIL", "assertion-unreachable", "TestAdd"},
    {"go runtime.Goexit before the assertion", "calc/calc_test.go", GO_PRE, "func TestSub(t *testing.T) {\n",
     "func TestSub(t *testing.T) {\n\truntime.Goexit()\n", "FAIL", "assertion-unreachable", "TestSub"},
    {"go if testing.Short() { return } added", "calc/calc_test.go", GO_PRE, "func TestAdd(t *testing.T) {\n",
     "func TestAdd(t *testing.T) {\n\tif testing.Short() {\n\t\treturn\n\t}\n", "UNVERIFIED", "conditional-skip-added",
     "TestAdd"},
    {"go if true { return } added", "calc/calc_test.go", GO_PRE, "func TestAdd(t *testing.T) {\n",
     "func TestAdd(t *testing.T) {\n\tif true {\n\t\treturn\n\t}\n", "FAIL", "assertion-unreachable", "TestAdd"},
    {"go assertion moved into a goroutine", "calc/calc_test.go", GO_PRE,
     "\tif Add(1, 2) != 3 {\n\t\tt.Fatal(\"add\")\n\t}\n",
     "\tgo func() {\n\t\tif Add(1, 2) != 3 {\n\t\t\tt.Fatal(\"add\")\n\t\t}\n\t}()\n", "UNVERIFIED", "assertion-may-be-unseen",
     "TestAdd"},
    {"go testify moved into a goroutine", "calc/calc_test.go", GO_PRE, "\tassert.Equal(t, 1, Sub(2, 1))\n",
     "\tgo assert.Equal(t, 1, Sub(2, 1))\n", "UNVERIFIED", "assertion-may-be-unseen", "TestSub"},
    {"go a deferred recover() swallows a panic", "calc/calc_test.go", GO_PRE, "func TestAdd(t *testing.T) {\n",
     "func TestAdd(t *testing.T) {\n\tdefer func() { recover() }()\n", "FAIL", "failure-swallowed", "TestAdd"},
    {"go TestMain added that runs nothing", "calc/calc_test.go", GO_PRE, "func TestAdd(",
     "func TestMain(m *testing.M) {\n\tos.Exit(0)\n}\n\nfunc TestAdd(", "FAIL", "tests-not-run", "TestMain"},
    {"go TestMain exits before m.Run", "calc/calc_test.go", GO_PRE_MAIN, "\tos.Exit(m.Run())\n",
     "\tos.Exit(0)\n\tos.Exit(m.Run())\n", "FAIL", "tests-not-run", "TestMain"},
    {"go TestMain's m.Run removed", "calc/calc_test.go", GO_PRE_MAIN, "\tos.Exit(m.Run())\n", "\tos.Exit(0)\n", "FAIL",
     "tests-not-run", "TestMain"},
    {"go TestMain runs under a condition", "calc/calc_test.go", GO_PRE_MAIN, "\tos.Exit(m.Run())\n",
     "\tif os.Getenv(\"CI\") == \"\" {\n\t\tos.Exit(m.Run())\n\t}\n", "UNVERIFIED", "conditional-skip-added", "TestMain"},
    {"go suite.Run removed", "calc/calc_test.go", GO_PRE_SUITE, "\tsuite.Run(t, new(CalcSuite))\n", "", "FAIL", NULL,
     "TestCalcSuite"},
    {"go suite.Run made unreachable", "calc/calc_test.go", GO_PRE_SUITE, "\tsuite.Run(t, new(CalcSuite))\n",
     "\treturn\n\tsuite.Run(t, new(CalcSuite))\n", "FAIL", "assertion-unreachable", "TestCalcSuite"},
    {"go suite s.Equal -> s.True(true)", "calc/calc_test.go", GO_PRE_SUITE, "s.Equal(1, Sub(2, 1))", "s.True(true)", "FAIL",
     "replaced-by-tautology", "TestSub"},
    {"go a table row deleted", "calc/calc_test.go", GO_PRE,
     "\t\t{1, 2, 3},\n", "", "FAIL", "test-case-removed", "TestTable"},
    {"go Fatal -> Skip in the guard", "calc/calc_test.go", GO_PRE, "t.Fatal(\"add\")", "t.Skip(\"add\")", "FAIL",
     "assertion-removed", "TestAdd"},
};

static const struct row go_honest_more[] = {
    {"go a helper that skips, kept", "calc/calc_test.go", GO_PRE, "func TestAdd(", "func skipSlow(t *testing.T) {\n\tt.Skip()\n}\n\nfunc TestAdd(",
     "PASS", NULL, NULL},
    {"go t := t in a closure", "calc/calc_test.go", GO_PRE_SUB, "\t\tassert.Equal(t, 2000, Add(1000, 1000))\n",
     "\t\tt := t\n\t\tassert.Equal(t, 2000, Add(1000, 1000))\n", "PASS", NULL, NULL},
    {"go var a = assert.New(t) and a var without a value", "calc/calc_test.go", GO_PRE_OBJ, "a := assert.New(t)",
     "var wg sync.WaitGroup\n\tvar a = assert.New(t)\n\t_ = wg", "PASS", NULL, NULL},
    {"go t.Helper() in the helper", "calc/calc_test.go", GO_PRE_HELPER, "func checkAdd(t *testing.T) {\n",
     "func checkAdd(t *testing.T) {\n\tt.Helper()\n", "PASS", NULL, NULL},
    {"go t.Error -> t.Fatal", "calc/calc_test.go", GO_PRE, "t.Errorf(\"got %d\", got)", "t.Fatalf(\"got %d\", got)", "PASS", NULL,
     NULL},
    {"go assert -> require", "calc/calc_test.go", GO_PRE, "assert.Equal(t, 1, Sub(2, 1))", "require.Equal(t, 1, Sub(2, 1))",
     "PASS", NULL, NULL},
    {"go a message changed", "calc/calc_test.go", GO_PRE, "t.Fatal(\"add\")", "t.Fatalf(\"Add(1, 2) = %d\", Add(1, 2))", "PASS",
     NULL, NULL},
    {"go renamed Test_add", "calc/calc_test.go", GO_PRE, "func TestAdd(", "func Test_add(", "PASS", NULL, NULL},
    {"go the guard names its value", "calc/calc_test.go", GO_PRE, "\tif Add(1, 2) != 3 {\n",
     "\tif got := Add(1, 2); got != 3 {\n", "PASS", NULL, NULL},
    {"go a table made of subtests", "calc/calc_test.go", GO_PRE,
     "\t\tif got := Add(c.a, c.b); got != c.want {\n\t\t\tt.Errorf(\"%d+%d=%d\", c.a, c.b, got)\n\t\t}\n",
     "\t\tc := c\n\t\tt.Run(\"case\", func(t *testing.T) {\n\t\t\tif got := Add(c.a, c.b); got != c.want {\n"
     "\t\t\t\tt.Errorf(\"%d+%d=%d\", c.a, c.b, got)\n\t\t\t}\n\t\t})\n",
     "PASS", NULL, NULL},
    {"go TestMain added that runs the tests", "calc/calc_test.go", GO_PRE, "func TestAdd(",
     "func TestMain(m *testing.M) {\n\tsetup()\n\tcode := m.Run()\n\tteardown()\n\tos.Exit(code)\n}\n\nfunc TestAdd(", "PASS",
     NULL, NULL},
    {"go TestMain's setup changed", "calc/calc_test.go", GO_PRE_MAIN, "\tos.Exit(m.Run())\n",
     "\tflag.Parse()\n\tos.Exit(m.Run())\n", "PASS", NULL, NULL},
    {"go a recover that fails the test", "calc/calc_test.go", GO_PRE, "func TestAdd(t *testing.T) {\n",
     "func TestAdd(t *testing.T) {\n\tdefer func() {\n\t\tif r := recover(); r != nil {\n\t\t\tt.Fatalf(\"panic: %v\", r)\n\t\t}\n\t}()\n",
     "PASS", NULL, NULL},
    {"go log.Fatal on a setup error", "calc/calc_test.go", GO_PRE, "func TestAdd(t *testing.T) {\n",
     "func TestAdd(t *testing.T) {\n\tif err := Setup(); err != nil {\n\t\tlog.Fatal(err)\n\t}\n", "PASS", NULL, NULL},
    {"go a goroutine test added", "calc/calc_test.go", GO_PRE, "func TestTable(",
     "func TestConcurrent(t *testing.T) {\n\tvar wg sync.WaitGroup\n\twg.Add(1)\n\tgo func() {\n\t\tdefer wg.Done()\n"
     "\t\tif Add(1, 2) != 3 {\n\t\t\tt.Error(\"add\")\n\t\t}\n\t}()\n\twg.Wait()\n}\n\nfunc TestTable(",
     "PASS", NULL, NULL},
    {"go an early return after a failure", "calc/calc_test.go", GO_PRE, "\t\tt.Fatal(\"add\")\n\t}\n",
     "\t\tt.Fatal(\"add\")\n\t}\n\tif err := Check(); err != nil {\n\t\tt.Error(err)\n\t\treturn\n\t}\n", "PASS", NULL, NULL},
    {"go suite.Run's suite built another way", "calc/calc_test.go", GO_PRE_SUITE, "suite.Run(t, new(CalcSuite))",
     "suite.Run(t, &CalcSuite{})", "PASS", NULL, NULL},
    {"go a subtest added", "calc/calc_test.go", GO_PRE_SUB, "\tt.Run(\"big\"",
     "\tt.Run(\"zero\", func(t *testing.T) {\n\t\tassert.Equal(t, 0, Add(0, 0))\n\t})\n\tt.Run(\"big\"", "PASS", NULL, NULL},
};

#define RS_PRE_RESULT                                                                                                  \
	"#[test]\nfn parses() -> Result<(), String> {\n    calc::check(\"1\")?;\n    Ok(())\n}\n"
#define RS_PRE_ASYNC                                                                                                   \
	"#[tokio::test]\nasync fn fetches() {\n    assert_eq!(calc::fetch().await, 3);\n}\n\n"                              \
	"#[rstest]\n#[case(1, 2)]\n#[case(2, 3)]\nfn adds_one(#[case] a: i32, #[case] want: i32) {\n"                           \
	"    assert_eq!(calc::add(a, 1), want);\n}\n\n"                                                                     \
	"#[test_case(1, 2 ; \"one\")]\n#[test_case(2, 3 ; \"two\")]\nfn incs(a: i32, want: i32) {\n"                          \
	"    assert_eq!(calc::inc(a), want);\n}\n"

static const struct row rs_cheats_more[] = {
    {"rust process::exit(0) in a new helper", "src/lib.rs", RS_PRE, "    #[test]\n    fn adds() {\n",
     "    fn done() {\n        std::process::exit(0);\n    }\n\n    #[test]\n    fn adds() {\n        done();\n", "FAIL", "test-skipped",
     "tests::adds"},
    {"rust || true", "src/lib.rs", RS_PRE, "assert!(add(2, 2) == 4)", "assert!(add(2, 2) == 4 || true)", "FAIL",
     "replaced-by-tautology", "tests::adds"},
    {"rust == -> >=", "src/lib.rs", RS_PRE, "assert!(add(2, 2) == 4)", "assert!(add(2, 2) >= 4)", "FAIL", "matcher-loosened",
     "tests::adds"},
    {"rust #[test] -> #[bench]", "src/lib.rs", RS_PRE, "    #[test]\n    fn adds", "    #[bench]\n    fn adds", "FAIL",
     "test-not-collected", "tests::adds"},
    {"rust #[cfg_attr(test, should_panic)]", "src/lib.rs", RS_PRE, "    #[test]\n    fn adds",
     "    #[test]\n    #[cfg_attr(test, should_panic)]\n    fn adds", "FAIL", "expected-failure-added", "tests::adds"},
    {"rust #[cfg_attr(unix, should_panic)]", "src/lib.rs", RS_PRE, "    #[test]\n    fn adds",
     "    #[test]\n    #[cfg_attr(unix, should_panic)]\n    fn adds", "UNVERIFIED", "conditional-skip-added", "tests::adds"},
    {"rust #[cfg(any())] on a statement", "src/lib.rs", RS_PRE, "        assert_eq!(add(1, 2), 3);\n",
     "        #[cfg(any())]\n        assert_eq!(add(1, 2), 3);\n", "FAIL", "assertion-unreachable", "tests::adds"},
    {"rust moved into a closure never called", "src/lib.rs", RS_PRE, "        assert_eq!(find(1), Some(3));\n",
     "        let _check = || assert_eq!(find(1), Some(3));\n", "FAIL", "assertion-unreachable", "tests::finds"},
    {"rust catch_unwind's result kept", "src/lib.rs", RS_PRE, "        assert_eq!(add(1, 2), 3);\n",
     "        let r = std::panic::catch_unwind(|| {\n            assert_eq!(add(1, 2), 3);\n        });\n"
     "        if let Err(e) = r {\n            std::panic::resume_unwind(e);\n        }\n", "UNVERIFIED", "assertion-may-be-unseen",
     "tests::adds"},
    {"rust assert!(x == x)", "src/lib.rs", RS_PRE, "assert!(add(2, 2) == 4)", "assert!(add(2, 2) == add(2, 2))", "FAIL",
     "replaced-by-tautology", "tests::adds"},
    {"rust #[ignore = reason]", "src/lib.rs", RS_PRE, "    #[test]\n    fn adds",
     "    #[test]\n    #[ignore = \"flaky on CI\"]\n    fn adds", "FAIL", "test-skipped", "tests::adds"},
    {"rust #[cfg(any())] on one test", "src/lib.rs", RS_PRE, "    #[test]\n    fn adds", "    #[cfg(any())]\n    #[test]\n    fn adds",
     "FAIL", "build-excluded", "tests::adds"},
    {"rust #[cfg(FALSE)] on one test", "src/lib.rs", RS_PRE, "    #[test]\n    fn finds",
     "    #[test]\n    #[cfg(FALSE)]\n    fn finds", "FAIL", "build-excluded", "tests::finds"},
    {"rust #[cfg_attr(test, ignore)]", "src/lib.rs", RS_PRE, "    #[test]\n    fn adds",
     "    #[test]\n    #[cfg_attr(test, ignore)]\n    fn adds", "FAIL", "test-skipped", "tests::adds"},
    {"rust should_panic's expected emptied", "src/lib.rs", RS_PRE, "expected = \"overflow\"", "expected = \"\"", "FAIL",
     "should-panic-expected-removed", "tests::overflows"},
    {"rust catch_unwind swallows an assertion", "src/lib.rs", RS_PRE, "        assert_eq!(add(1, 2), 3);\n",
     "        let _ = std::panic::catch_unwind(|| {\n            assert_eq!(add(1, 2), 3);\n        });\n", "FAIL",
     "failure-swallowed", "tests::adds"},
    {"rust catch_unwind(..).ok()", "src/lib.rs", RS_PRE, "        assert_eq!(find(1), Some(3));\n",
     "        std::panic::catch_unwind(|| assert_eq!(find(1), Some(3))).ok();\n", "FAIL", "failure-swallowed",
     "tests::finds"},
    {"rust a thread swallows an assertion", "src/lib.rs", RS_PRE, "        assert_eq!(find(1), Some(3));\n",
     "        let _ = std::thread::spawn(|| assert_eq!(find(1), Some(3))).join();\n", "FAIL", "failure-swallowed",
     "tests::finds"},
    {"rust if x { exit(0) } added", "src/lib.rs", RS_PRE, "    fn finds() {\n",
     "    fn finds() {\n        if cfg!(windows) {\n            std::process::exit(0);\n        }\n", "UNVERIFIED",
     "conditional-skip-added", "tests::finds"},
    {"rust process::exit before", "src/lib.rs", RS_PRE, "    fn adds() {\n",
     "    fn adds() {\n        std::process::exit(0);\n", "FAIL", "assertion-unreachable", "tests::adds"},
    {"rust if env { return } added", "src/lib.rs", RS_PRE, "    fn adds() {\n",
     "    fn adds() {\n        if std::env::var(\"CI\").is_ok() {\n            return;\n        }\n", "UNVERIFIED",
     "conditional-skip-added", "tests::adds"},
    {"rust a Result test's ? dropped", "tests/parse.rs", RS_PRE_RESULT, "calc::check(\"1\")?;", "let _ = calc::check(\"1\");",
     "FAIL", "test-lost-every-assertion", "parses"},
    {"rust a Result test's ? -> .ok()", "tests/parse.rs", RS_PRE_RESULT, "calc::check(\"1\")?;", "calc::check(\"1\").ok();",
     "FAIL", "test-lost-every-assertion", "parses"},
    {"rust an unwrap-only test's unwrap dropped", "tests/parse.rs", "#[test]\nfn parses() {\n    calc::parse(\"1\").unwrap();\n}\n",
     "calc::parse(\"1\").unwrap();", "let _ = calc::parse(\"1\");", "FAIL", "test-lost-every-assertion", "parses"},
    {"rust a ? made unreachable", "tests/parse.rs", RS_PRE_RESULT, "    calc::check(\"1\")?;\n",
     "    return Ok(());\n    calc::check(\"1\")?;\n", "FAIL", "assertion-unreachable", "parses"},
    {"rust tokio test ignored", "tests/calc.rs", RS_PRE_ASYNC, "#[tokio::test]\n", "#[tokio::test]\n#[ignore]\n", "FAIL",
     "test-skipped", "fetches"},
    {"rust tokio test gutted", "tests/calc.rs", RS_PRE_ASYNC, "assert_eq!(calc::fetch().await, 3);", "calc::fetch().await;",
     "FAIL", "test-lost-every-assertion", "fetches"},
    {"rust rstest made constant", "tests/calc.rs", RS_PRE_ASYNC, "assert_eq!(calc::add(a, 1), want);", "assert_eq!(want, want);",
     "FAIL", "replaced-by-tautology", "adds_one"},
    {"rust rstest's #[rstest] removed", "tests/calc.rs", RS_PRE_ASYNC, "#[rstest]\n", "", "FAIL", "test-not-collected",
     "adds_one"},
    {"rust test_case gutted", "tests/calc.rs", RS_PRE_ASYNC, "assert_eq!(calc::inc(a), want);", "let _ = calc::inc(a);", "FAIL",
     "test-lost-every-assertion", "incs"},
    {"rust rstest case removed", "tests/calc.rs", RS_PRE_ASYNC, "#[case(2, 3)]\n", "", "FAIL", "test-case-removed",
     "adds_one"},
    {"rust mod tests all(test, feature=never)", "src/lib.rs", RS_PRE, "#[cfg(test)]", "#[cfg(all(test, feature = \"never\"))]",
     "UNVERIFIED", "build-constraint-added", "tests::adds"},
    {"rust assert -> debug_assert", "src/lib.rs", RS_PRE, "assert_eq!(add(1, 2), 3)", "debug_assert_eq!(add(1, 2), 3)", "!FAIL",
     NULL, NULL},
    {"rust assert_eq -> println", "src/lib.rs", RS_PRE, "assert_eq!(add(1, 2), 3);", "println!(\"{}\", add(1, 2));", "FAIL",
     "assertion-removed", "tests::adds"},
};

static const struct row rs_honest_more[] = {
    {"rust an unwrap moved into a spawned task", "tests/parse.rs",
     "#[test]\nfn sends() {\n    calc::send(1).unwrap();\n    assert_eq!(calc::count(), 1);\n}\n", "    calc::send(1).unwrap();\n",
     "    let _ = std::thread::spawn(move || {\n        calc::send(1).unwrap();\n    });\n", "!FAIL", NULL, NULL},
    {"rust the test module renamed", "src/lib.rs", RS_PRE, "mod tests {", "mod unit_tests {", "PASS", NULL, NULL},
    {"rust a test moved into a nested module", "src/lib.rs", RS_PRE,
     "    #[test]\n    fn finds() {\n        assert_eq!(find(1), Some(3));\n    }\n",
     "    mod more {\n        use super::*;\n        #[test]\n        fn finds() {\n            assert_eq!(find(1), Some(3));\n        }\n    }\n",
     "PASS", NULL, NULL},
    {"rust a thread joined and unwrapped", "src/lib.rs", RS_PRE, "        assert_eq!(find(1), Some(3));\n",
     "        std::thread::spawn(|| assert_eq!(find(1), Some(3))).join().unwrap();\n", "PASS", NULL, NULL},
    {"rust a closure called", "src/lib.rs", RS_PRE, "        assert_eq!(find(1), Some(3));\n",
     "        let _check = || assert_eq!(find(1), Some(3));\n        _check();\n", "PASS", NULL, NULL},
    {"rust exit(1) on a setup error", "src/lib.rs", RS_PRE, "    fn adds() {\n",
     "    fn adds() {\n        if setup().is_err() {\n            std::process::exit(1);\n        }\n", "PASS", NULL, NULL},
    {"rust an unwrap dropped for an assertion", "src/lib.rs", RS_PRE, "        assert_eq!(find(1), Some(3));\n",
     "        let v = find(1).unwrap();\n        assert_eq!(v, 3);\n", "PASS", NULL, NULL},
    {"rust unwrap folded into the assertion", "tests/parse.rs",
     "#[test]\nfn parses() {\n    let v = calc::parse(\"1\").unwrap();\n    assert_eq!(v, 1);\n}\n",
     "    let v = calc::parse(\"1\").unwrap();\n    assert_eq!(v, 1);\n", "    assert_eq!(calc::parse(\"1\"), Ok(1));\n", "PASS",
     NULL, NULL},
    {"rust assert! -> assert_eq!", "src/lib.rs", RS_PRE, "assert!(add(2, 2) == 4)", "assert_eq!(add(2, 2), 4)", "PASS", NULL,
     NULL},
    {"rust should_panic made more specific", "src/lib.rs", RS_PRE, "expected = \"overflow\"",
     "expected = \"attempt to add with overflow\"", "PASS", NULL, NULL},
    {"rust a message added to assert!", "src/lib.rs", RS_PRE, "assert!(add(2, 2) == 4)", "assert!(add(2, 2) == 4, \"2 + 2\")",
     "PASS", NULL, NULL},
    {"rust a Result test's ? -> unwrap", "tests/parse.rs", RS_PRE_RESULT, "calc::check(\"1\")?;", "calc::check(\"1\").unwrap();",
     "PASS", NULL, NULL},
    {"rust a Result test's ? -> assert!(is_ok)", "tests/parse.rs", RS_PRE_RESULT, "calc::check(\"1\")?;",
     "assert!(calc::check(\"1\").is_ok());", "PASS", NULL, NULL},
    {"rust a Result test gains a ?", "tests/parse.rs", RS_PRE_RESULT, "    Ok(())\n", "    calc::check(\"2\")?;\n    Ok(())\n",
     "PASS", NULL, NULL},
    {"rust rstest gains a case", "tests/calc.rs", RS_PRE_ASYNC, "#[case(2, 3)]\n", "#[case(2, 3)]\n#[case(3, 4)]\n", "PASS", NULL,
     NULL},
    {"rust #[test] -> #[tokio::test]", "tests/calc.rs", "#[test]\nfn adds() {\n    assert_eq!(calc::add(1, 2), 3);\n}\n",
     "#[test]\nfn adds()", "#[tokio::test]\nasync fn adds()", "PASS", NULL, NULL},
    {"rust a catch_unwind whose panic is checked", "src/lib.rs", RS_PRE, "    #[test]\n    fn finds",
     "    #[test]\n    fn panics_on_overflow() {\n        let r = std::panic::catch_unwind(|| add(i32::MAX, 1));\n"
     "        assert!(r.is_err());\n    }\n\n    #[test]\n    fn finds",
     "PASS", NULL, NULL},
};

static const struct row cargo_rows_more[] = {
    {"autotests = false", "Cargo.toml", CARGO, "version = \"0.1.0\"\n", "version = \"0.1.0\"\nautotests = false\n", "FAIL",
     NULL, NULL},
    {"[[test]] required-features", "Cargo.toml", CARGO, "name = \"it\"\n", "name = \"it\"\nrequired-features = [\"never\"]\n",
     "!FAIL", NULL, NULL},
    {"[profile.test] overflow-checks = false", "Cargo.toml", CARGO, "[lib]\n", "[profile.test]\noverflow-checks = false\n\n[lib]\n",
     "FAIL", NULL, NULL},
    {"[profile.dev] debug-assertions = false", "Cargo.toml", CARGO, "[lib]\n",
     "[profile.dev]\ndebug-assertions = false\n\n[lib]\n", "FAIL", NULL, NULL},
    {"[profile.dev] overflow-checks = false", "Cargo.toml", CARGO, "[lib]\n", "[profile.dev]\noverflow-checks = false\n\n[lib]\n",
     "FAIL", NULL, NULL},
    {"honest: [profile.dev] opt-level", "Cargo.toml", CARGO, "[lib]\n", "[profile.dev]\nopt-level = 1\n\n[lib]\n", "PASS", NULL,
     NULL},
    {"honest: [profile.dev] debug-assertions = true", "Cargo.toml", CARGO, "[lib]\n",
     "[profile.dev]\ndebug-assertions = true\n\n[lib]\n", "!FAIL", NULL, NULL},
    {"[lib] doctest = false", "Cargo.toml", CARGO, "path = \"src/lib.rs\"\n", "path = \"src/lib.rs\"\ndoctest = false\n", "!FAIL",
     NULL, NULL},
    {"[[bin]] test = false", "Cargo.toml", CARGO "\n[[bin]]\nname = \"cli\"\n", "name = \"cli\"\n", "name = \"cli\"\ntest = false\n",
     "!FAIL", NULL, NULL},
    {"honest: a [[test]] target added", "Cargo.toml", CARGO, "name = \"it\"\n", "name = \"it\"\n\n[[test]]\nname = \"more\"\n",
     "!FAIL", NULL, NULL},
};

Test(a1_go_rust, go_held_out_cheats_are_caught)
{
	play_all(go_cheats_more, sizeof go_cheats_more / sizeof *go_cheats_more);
}

Test(a1_go_rust, go_held_out_honest_edits_never_fail)
{
	play_all(go_honest_more, sizeof go_honest_more / sizeof *go_honest_more);
}

Test(a1_go_rust, rust_held_out_cheats_are_caught)
{
	play_all(rs_cheats_more, sizeof rs_cheats_more / sizeof *rs_cheats_more);
}

Test(a1_go_rust, rust_held_out_honest_edits_never_fail)
{
	play_all(rs_honest_more, sizeof rs_honest_more / sizeof *rs_honest_more);
}

Test(a1_go_rust, cargo_held_out_rows)
{
	play_all(cargo_rows_more, sizeof cargo_rows_more / sizeof *cargo_rows_more);
}

/*==== tests moved between files (weakening.c's moved_tests) ===============================*/

struct move_row {
	const char *what;
	const char *p1, *pre1, *post1, *p2, *pre2, *post2; /* NULL side: absent */
	const char *status, *finding;
	int earlier; /* p2 changed by an earlier call of the task: only p1 is this call's change */
};

static void play_move(const struct move_row *r)
{
	char *dir = ts_tmpdir("a1mv");
	char *pre_root = fs_join(dir, "pre"), *post_root = fs_join(dir, "post");
	cr_assert_eq(mkdir(pre_root, 0755), 0);
	cr_assert_eq(mkdir(post_root, 0755), 0);
	put(pre_root, r->p1, r->pre1);
	put(post_root, r->p1, r->post1);
	put(pre_root, r->p2, r->pre2);
	put(post_root, r->p2, r->post2);
	const char *changed[] = {r->p1, r->earlier ? NULL : r->p2, NULL};
	struct weakening_input in = {.pre_root = pre_root, .post_root = post_root, .changed = changed, .scope = ""};
	struct weakening_result res = {0};
	struct err e = {0};
	cr_assert_eq(weakening_check(&in, &res, &e), 0, "%s: %s", r->what, e.msg);
	const char *got = status_name(res.status);
	if (!strcmp(r->status, "!FAIL"))
		cr_assert_neq(res.status, WEAKENING_FAIL, "%s: %s", r->what, res.message);
	else
		cr_assert_str_eq(got, r->status, "%s: %s, want %s: %s", r->what, got, r->status, res.message);
	if (r->finding)
		cr_assert(strstr(res.message, r->finding), "%s: no %s: %s", r->what, r->finding, res.message);
	weakening_result_free(&res);
	ts_rmtree(dir);
	free(dir);
	free(pre_root);
	free(post_root);
}

#define GO_FILE(body) "package calc\n\nimport \"testing\"\n\n" body
#define GO_TADD "func TestAdd(t *testing.T) {\n\tif Add(1, 2) != 3 {\n\t\tt.Fatal(\"add\")\n\t}\n}\n"
#define GO_TSUB "func TestSub(t *testing.T) {\n\tif Sub(2, 1) != 1 {\n\t\tt.Fatal(\"sub\")\n\t}\n}\n"
#define RS_LIB "pub fn add(a: i32, b: i32) -> i32 { a + b }\n"
#define RS_UNIT "#[cfg(test)]\nmod tests {\n    #[test]\n    fn adds() {\n        assert_eq!(super::add(1, 2), 3);\n    }\n}\n"
#define RS_IT "#[test]\nfn adds() {\n    assert_eq!(calc::add(1, 2), 3);\n}\n"

static const struct move_row moves[] = {
    /* honest: before, each a FAIL test-deleted */
    {"go a test moved to another file of its package", "calc/calc_test.go", GO_FILE(GO_TADD GO_TSUB), GO_FILE(GO_TSUB),
     "calc/add_test.go", NULL, GO_FILE(GO_TADD), "PASS", NULL},
    {"go a test file renamed (move_file)", "calc/calc_test.go", GO_FILE(GO_TADD), NULL, "calc/add_test.go", NULL, GO_FILE(GO_TADD),
     "PASS", NULL},
    {"rust a test moved between integration files", "tests/a.rs", RS_IT, "", "tests/b.rs", NULL, RS_IT, "PASS", NULL},
    {"rust unit tests moved to tests/ (super:: became calc::)", "src/lib.rs", RS_LIB "\n" RS_UNIT, RS_LIB, "tests/add.rs", NULL,
     RS_IT, "UNVERIFIED", "test-moved"},
    /* cheats */
    {"go a test file renamed out of _test.go", "calc/calc_test.go", GO_FILE(GO_TADD), NULL, "calc/calc_helpers.go", NULL,
     GO_FILE(GO_TADD), "FAIL", "test-deleted"},
    {"go a test moved to another package", "calc/calc_test.go", GO_FILE(GO_TADD GO_TSUB), GO_FILE(GO_TSUB), "other/add_test.go",
     NULL, GO_FILE(GO_TADD), "FAIL", "test-deleted"},
    {"go a test moved and weakened", "calc/calc_test.go", GO_FILE(GO_TADD GO_TSUB), GO_FILE(GO_TSUB), "calc/add_test.go", NULL,
     GO_FILE("func TestAdd(t *testing.T) {\n\tif false {\n\t\tt.Fatal(\"add\")\n\t}\n}\n"), "FAIL", "replaced-by-tautology"},
    {"go a test moved and skipped", "calc/calc_test.go", GO_FILE(GO_TADD), NULL, "calc/add_test.go", NULL,
     GO_FILE("func TestAdd(t *testing.T) {\n\tt.Skip()\n\tif Add(1, 2) != 3 {\n\t\tt.Fatal(\"add\")\n\t}\n}\n"), "FAIL",
     "test-skipped"},
    /* a move in two calls: the new file written first, the test then deleted from the old */
    {"go a test moved in two calls", "calc/calc_test.go", GO_FILE(GO_TADD GO_TSUB), GO_FILE(GO_TSUB), "calc/add_test.go", NULL,
     GO_FILE(GO_TADD), "PASS", NULL, 1},
    {"rust a test moved in two calls", "tests/a.rs", RS_IT, "", "tests/b.rs", NULL, RS_IT, "PASS", NULL, 1},
    {"rust unit tests moved to the crate's tests/ in two calls", "calc/src/lib.rs", RS_LIB "\n" RS_UNIT, RS_LIB, "calc/tests/add.rs",
     NULL, RS_IT, "UNVERIFIED", "test-moved", 1},
    {"go a test moved in two calls and weakened", "calc/calc_test.go", GO_FILE(GO_TADD GO_TSUB), GO_FILE(GO_TSUB),
     "calc/add_test.go", NULL, GO_FILE("func TestAdd(t *testing.T) {\n\tif false {\n\t\tt.Fatal(\"add\")\n\t}\n}\n"), "FAIL",
     "replaced-by-tautology", 1},
    {"go deleted while an unchanged file of the package defines it", "calc/calc_test.go",
     GO_FILE(GO_TADD GO_TSUB), GO_FILE(GO_TSUB), "calc/add_test.go", GO_FILE(GO_TADD), GO_FILE(GO_TADD), "FAIL", "test-deleted", 1},
    {"rust deleted while another changed file already had its name", "tests/a.rs", RS_IT, "", "tests/b.rs", RS_IT,
     RS_IT "\n#[test]\nfn subs() {\n    assert_eq!(calc::sub(2, 1), 1);\n}\n", "FAIL", "test-deleted"},
    {"rust a test moved and ignored", "tests/a.rs", RS_IT, "", "tests/b.rs", NULL, "#[test]\n#[ignore]\n" RS_IT + 8, "FAIL",
     "test-skipped"},
};

Test(a1_go_rust, tests_moved_between_files)
{
	for (size_t i = 0; i < sizeof moves / sizeof *moves; i++)
		play_move(&moves[i]);
}

/* ---- a1_cache.h: a side remembered by its bytes judges as a fresh read does ---- */

typedef cJSON *(*lang_judge_fn)(const char *, size_t, const char *, size_t);

static char *judged(lang_judge_fn judge, const char *pre, const char *post)
{
	cJSON *o = judge(pre, strlen(pre), post, strlen(post));
	char *s = cJSON_PrintUnformatted(o);
	cJSON_Delete(o);
	return s;
}

/* pre against each post, first with nothing remembered, then in one run where the pre side
 * (and, the second time round, every post side) is remembered: the same findings each time. */
static void remembered_as_fresh(lang_judge_fn judge, const char *pre, const char *const *posts, size_t n)
{
	char **cold = xcalloc(n, sizeof *cold);
	for (size_t i = 0; i < n; i++) {
		a1_cache_clear();
		cold[i] = judged(judge, pre, posts[i]);
	}
	cr_assert_str_neq(cold[0], cold[1], "the posts must judge differently for the check to bite");
	a1_cache_clear();
	unsigned long h0, h1, st;
	a1_cache_stats(&h0, &st);
	for (int round = 0; round < 2; round++)
		for (size_t i = 0; i < n; i++) {
			char *warm = judged(judge, pre, posts[i]);
			cr_expect_str_eq(warm, cold[i], "round %d post %zu remembered: %s, fresh: %s", round, i, warm, cold[i]);
			free(warm);
		}
	a1_cache_stats(&h1, &st);
	cr_expect_geq(h1 - h0, 2 * n - 1 + n, "hits %lu", h1 - h0);
	for (size_t i = 0; i < n; i++)
		free(cold[i]);
	free(cold);
	a1_cache_clear();
}

Test(a1_go_rust, a_remembered_side_judges_as_a_fresh_read)
{
	const char *pre = "package calc\n\nimport \"testing\"\n\nfunc TestAdd(t *testing.T) {\n\tif Add(1, 2) != 3 "
			  "{\n\t\tt.Fatal(\"add\")\n\t}\n}\n";
	/* the same length: a key of the size alone would mistake one for the other */
	const char *go[] = {
	    "package calc\n\nimport \"testing\"\n\nfunc TestAdd(t *testing.T) {\n\tif false          "
	    "{\n\t\tt.Fatal(\"add\")\n\t}\n}\n",
	    "package calc\n\nimport \"testing\"\n\nfunc TestAdd(t *testing.T) {\n\tif Add(1, 2) != 3 "
	    "{\n\t\tt.Fatal(\"sum\")\n\t}\n}\n",
	    "package calc\n\nimport \"testing\"\n\nfunc TestAdd(t *testing.T) {\n\tif Add(1, 2) != 4 "
	    "{\n\t\tt.Fatal(\"add\")\n\t}\n}\n",
	};
	remembered_as_fresh(a1_go_judge, pre, go, 3);
	const char *rpre = "#[test]\nfn adds() {\n    assert_eq!(add(1, 2), 3);\n}\n";
	const char *rust[] = {
	    "#[test]\nfn adds() {\n    assert!(true);           \n}\n",
	    "#[test]\nfn adds() {\n    assert_eq!(add(1, 2), 3);\n}\n\n",
	    "#[test]\n#[ignore]\nfn adds() {\n    assert_eq!(add(1, 2), 3);\n}\n",
	};
	remembered_as_fresh(a1_rust_judge, rpre, rust, 3);
}

/* A refused side (a syntax error here; a parse that timed out alike) is never remembered: read
 * again, it might be read. */
Test(a1_go_rust, a_refused_side_is_not_remembered)
{
	a1_cache_clear();
	const char *bad = "package calc\n\nfunc TestAdd(t *testing.T) {\n\tif Add(1, 2) != 3 {\n";
	unsigned long h0, s0, h1, s1;
	a1_cache_stats(&h0, &s0);
	for (int i = 0; i < 2; i++) {
		cJSON *o = a1_go_judge(bad, strlen(bad), bad, strlen(bad));
		cr_expect_gt(cJSON_GetArraySize(o), 0, "a refusal is a finding");
		cJSON_Delete(o);
	}
	a1_cache_stats(&h1, &s1);
	cr_expect_eq(s1 - s0, 0, "stored %lu", s1 - s0);
	cr_expect_eq(h1 - h0, 0, "hits %lu", h1 - h0);
}

/*==== table-driven tests: rows and cases removed, guards loosened (issue 32) ===============*/

/* Go: a table of rows ranged over by a loop that asserts in a subtest */
#define GO_TABLE_ROWS                                                                                                  \
	"\t\t{name: \"small\", a: 1, b: 2, want: 3},\n\t\t{name: \"zero\", a: 0, b: 0, want: 0},\n"                       \
	"\t\t{name: \"negative\", a: -1, b: -2, want: -3},\n"
#define GO_TABLE_LOOP                                                                                                  \
	"\tfor _, tc := range tests {\n\t\tt.Run(tc.name, func(t *testing.T) {\n"                                         \
	"\t\t\tif got := Add(tc.a, tc.b); got != tc.want {\n\t\t\t\tt.Errorf(\"got %d, want %d\", got, tc.want)\n"       \
	"\t\t\t}\n\t\t})\n\t}\n"
#define GO_TABLE                                                                                                       \
	"package calc\n\nimport \"testing\"\n\nfunc TestAdd(t *testing.T) {\n"                                            \
	"\ttests := []struct {\n\t\tname       string\n\t\ta, b, want int\n\t}{\n" GO_TABLE_ROWS "\t}\n" GO_TABLE_LOOP "}\n\n" \
	"func TestSub(t *testing.T) {\n\tif Sub(2, 1) != 1 {\n\t\tt.Fatal(\"sub\")\n\t}\n}\n"
/* the same table at package level */
#define GO_TABLE_PKG                                                                                                   \
	"package calc\n\nimport \"testing\"\n\nvar tests = []struct {\n\tname       string\n\ta, b, want int\n}{\n"       \
	GO_TABLE_ROWS "}\n\nfunc TestAdd(t *testing.T) {\n" GO_TABLE_LOOP "}\n\n"                                         \
	"func TestSub(t *testing.T) {\n\tif Sub(2, 1) != 1 {\n\t\tt.Fatal(\"sub\")\n\t}\n}\n"
/* a map of cases by name, asserted through a helper of the file */
#define GO_TABLE_MAP                                                                                                   \
	"package calc\n\nimport \"testing\"\n\nfunc checkAdd(t *testing.T, a, b, want int) {\n\tt.Helper()\n"             \
	"\tif got := Add(a, b); got != want {\n\t\tt.Errorf(\"got %d\", got)\n\t}\n}\n\n"                                  \
	"func TestAdd(t *testing.T) {\n\tcases := map[string]struct{ a, b, want int }{\n"                                  \
	"\t\t\"small\": {1, 2, 3},\n\t\t\"zero\":  {0, 0, 0},\n\t}\n"                                                      \
	"\tfor name, c := range cases {\n\t\tt.Run(name, func(t *testing.T) { checkAdd(t, c.a, c.b, c.want) })\n\t}\n}\n"
/* rows made by a function */
#define GO_TABLE_FN                                                                                                    \
	"package calc\n\nimport \"testing\"\n\nfunc TestAdd(t *testing.T) {\n"                                            \
	"\tfor _, tc := range loadCases(\"testdata/add.json\") {\n\t\tif got := Add(tc.A, tc.B); got != tc.Want {\n"      \
	"\t\t\tt.Errorf(\"got %d\", got)\n\t\t}\n\t}\n}\n"

static const struct row go_table_cheats[] = {
    {"go table row removed", "calc/calc_test.go", GO_TABLE, "\t\t{name: \"negative\", a: -1, b: -2, want: -3},\n", "",
     "FAIL", "test-case-removed", "TestAdd"},
    {"go table row's expected value changed", "calc/calc_test.go", GO_TABLE, "want: -3}", "want: -4}", "WARN",
     "expected-value-changed", "TestAdd"},
    {"go table row changed while another is added", "calc/calc_test.go", GO_TABLE,
     "\t\t{name: \"negative\", a: -1, b: -2, want: -3},\n",
     "\t\t{name: \"negative\", a: -1, b: -2, want: -1},\n\t\t{name: \"big\", a: 1000, b: 2000, want: 3000},\n", "WARN",
     "expected-value-changed", "TestAdd"},
    {"go table every row removed", "calc/calc_test.go", GO_TABLE, GO_TABLE_ROWS, "", "FAIL", "test-case-removed",
     "TestAdd"},
    {"go package-level table row removed", "calc/calc_test.go", GO_TABLE_PKG,
     "\t\t{name: \"zero\", a: 0, b: 0, want: 0},\n", "", "FAIL", "test-case-removed", "TestAdd"},
    {"go map table case removed (helper asserts)", "calc/calc_test.go", GO_TABLE_MAP, "\t\t\"zero\":  {0, 0, 0},\n", "",
     "FAIL", "test-case-removed", "TestAdd"},
    {"go table renamed and a row removed", "calc/calc_test.go", GO_TABLE, NULL,
     "package calc\n\nimport \"testing\"\n\nfunc TestAdd(t *testing.T) {\n"
     "\tcases := []struct {\n\t\tname       string\n\t\ta, b, want int\n\t}{\n"
     "\t\t{name: \"small\", a: 1, b: 2, want: 3},\n\t}\n"
     "\tfor _, tc := range cases {\n\t\tt.Run(tc.name, func(t *testing.T) {\n"
     "\t\t\tif got := Add(tc.a, tc.b); got != tc.want {\n\t\t\t\tt.Errorf(\"got %d, want %d\", got, tc.want)\n"
     "\t\t\t}\n\t\t})\n\t}\n}\n\nfunc TestSub(t *testing.T) {\n\tif Sub(2, 1) != 1 {\n\t\tt.Fatal(\"sub\")\n\t}\n}\n",
     "FAIL", "test-case-removed", "TestAdd"},
    {"go table grown by append, a literal row removed", "calc/calc_test.go",
     "package calc\n\nimport \"testing\"\n\nfunc TestAdd(t *testing.T) {\n"
     "\ttests := []struct {\n\t\tname       string\n\t\ta, b, want int\n\t}{\n" GO_TABLE_ROWS "\t}\n"
     "\ttests = append(tests, extraCases()...)\n" GO_TABLE_LOOP "}\n",
     "\t\t{name: \"zero\", a: 0, b: 0, want: 0},\n", "", "FAIL", "test-case-removed", "TestAdd"},
    {"go range N of a loop cut", "calc/calc_test.go",
     "package calc\n\nimport \"testing\"\n\nfunc TestDouble(t *testing.T) {\n\tfor i := range 10 {\n"
     "\t\tif Double(i) != i+i {\n\t\t\tt.Fatal(i)\n\t\t}\n\t}\n}\n", "range 10", "range 1", "FAIL",
     "test-case-removed", "TestDouble"},
    {"go table row commented out", "calc/calc_test.go", GO_TABLE, "\t\t{name: \"negative\"", "\t\t// {name: \"negative\"",
     "FAIL", "test-case-removed", "TestAdd"},
    {"go table ranged by index, a row removed", "calc/calc_test.go", GO_TABLE, NULL,
     "package calc\n\nimport \"testing\"\n\nfunc TestAdd(t *testing.T) {\n"
     "\ttests := []struct {\n\t\tname       string\n\t\ta, b, want int\n\t}{\n"
     "\t\t{name: \"small\", a: 1, b: 2, want: 3},\n\t}\n"
     "\tfor i := range tests {\n\t\ttc := tests[i]\n\t\tif got := Add(tc.a, tc.b); got != tc.want {\n"
     "\t\t\tt.Errorf(\"got %d, want %d\", got, tc.want)\n\t\t}\n\t}\n}\n\n"
     "func TestSub(t *testing.T) {\n\tif Sub(2, 1) != 1 {\n\t\tt.Fatal(\"sub\")\n\t}\n}\n",
     "FAIL", "test-case-removed", "TestAdd"},
    {"go rows read from another file", "calc/calc_test.go", GO_TABLE_FN, "\"testdata/add.json\"", "\"testdata/add_small.json\"",
     "UNVERIFIED", "test-cases-out-of-view", "TestAdd"},
    {"go table made by a function", "calc/calc_test.go", GO_TABLE, NULL,
     "package calc\n\nimport \"testing\"\n\nfunc TestAdd(t *testing.T) {\n\ttests := smallCases()\n" GO_TABLE_LOOP "}\n\n"
     "func TestSub(t *testing.T) {\n\tif Sub(2, 1) != 1 {\n\t\tt.Fatal(\"sub\")\n\t}\n}\n",
     "UNVERIFIED", "test-cases-out-of-view", "TestAdd"},
    /* guards loosened: exact to ordering */
    {"go guard != literal -> < 0", "calc/calc_test.go", GO_PRE, "if Add(1, 2) != 3 {", "if Add(1, 2) < 0 {", "FAIL",
     "matcher-loosened", "TestAdd"},
    {"go guard != literal -> <=", "calc/calc_test.go", GO_PRE, "got != 4 {", "got <= 0 {", "FAIL", "matcher-loosened",
     "TestAdd"},
    {"go guard != want -> >", "calc/calc_test.go", GO_TABLE, "got != tc.want {", "got > tc.want {", "FAIL",
     "matcher-loosened", "TestAdd"},
};

static const struct row go_table_honest[] = {
    {"go table row added", "calc/calc_test.go", GO_TABLE, "\t\t{name: \"zero\", a: 0, b: 0, want: 0},\n",
     "\t\t{name: \"zero\", a: 0, b: 0, want: 0},\n\t\t{name: \"big\", a: 1000, b: 2000, want: 3000},\n", "PASS", NULL, NULL},
    {"go a comment on a table row", "calc/calc_test.go", GO_TABLE, "\t\t{name: \"zero\"",
     "\t\t// the identity\n\t\t{name: \"zero\"", "PASS", NULL, NULL},
    {"go table row renamed", "calc/calc_test.go", GO_TABLE, "name: \"small\"", "name: \"small ints\"", "PASS", NULL, NULL},
    {"go map table case renamed", "calc/calc_test.go", GO_TABLE_MAP, "\"small\": {1, 2, 3}", "\"tiny\": {1, 2, 3}", "PASS",
     NULL, NULL},
    {"go table duplicate row dropped", "calc/calc_test.go",
     "package calc\n\nimport \"testing\"\n\nfunc TestAdd(t *testing.T) {\n"
     "\ttests := []struct {\n\t\tname       string\n\t\ta, b, want int\n\t}{\n" GO_TABLE_ROWS
     "\t\t{name: \"zero again\", a: 0, b: 0, want: 0},\n\t}\n" GO_TABLE_LOOP "}\n",
     "\t\t{name: \"zero again\", a: 0, b: 0, want: 0},\n", "", "PASS", NULL, NULL},
    {"go table rows reordered", "calc/calc_test.go", GO_TABLE, GO_TABLE_ROWS,
     "\t\t{name: \"negative\", a: -1, b: -2, want: -3},\n\t\t{name: \"small\", a: 1, b: 2, want: 3},\n"
     "\t\t{name: \"zero\", a: 0, b: 0, want: 0},\n", "PASS", NULL, NULL},
    {"go table loop made of subtests", "calc/calc_test.go", GO_TABLE, GO_TABLE_LOOP,
     "\tfor _, tc := range tests {\n\t\tif got := Add(tc.a, tc.b); got != tc.want {\n"
     "\t\t\tt.Errorf(\"got %d, want %d\", got, tc.want)\n\t\t}\n\t}\n", "!FAIL", NULL, NULL},
    {"go table made of explicit subtests", "calc/calc_test.go", GO_TABLE, NULL,
     "package calc\n\nimport \"testing\"\n\nfunc TestAdd(t *testing.T) {\n"
     "\tt.Run(\"small\", func(t *testing.T) {\n\t\tif got := Add(1, 2); got != 3 {\n\t\t\tt.Errorf(\"got %d\", got)\n\t\t}\n\t})\n"
     "\tt.Run(\"zero\", func(t *testing.T) {\n\t\tif got := Add(0, 0); got != 0 {\n\t\t\tt.Errorf(\"got %d\", got)\n\t\t}\n\t})\n"
     "\tt.Run(\"negative\", func(t *testing.T) {\n\t\tif got := Add(-1, -2); got != -3 {\n\t\t\tt.Errorf(\"got %d\", got)\n\t\t}\n\t})\n"
     "}\n\nfunc TestSub(t *testing.T) {\n\tif Sub(2, 1) != 1 {\n\t\tt.Fatal(\"sub\")\n\t}\n}\n",
     "!FAIL", NULL, NULL},
    {"go table loop variable renamed", "calc/calc_test.go", GO_TABLE, GO_TABLE_LOOP,
     "\tfor _, tt := range tests {\n\t\tt.Run(tt.name, func(t *testing.T) {\n"
     "\t\t\tif got := Add(tt.a, tt.b); got != tt.want {\n\t\t\t\tt.Errorf(\"got %d, want %d\", got, tt.want)\n"
     "\t\t\t}\n\t\t})\n\t}\n", "!FAIL", NULL, NULL},
    {"go table moved to a package-level var", "calc/calc_test.go", GO_TABLE, NULL, GO_TABLE_PKG, "!FAIL", NULL, NULL},
    {"go table moved into the function", "calc/calc_test.go", GO_TABLE_PKG, NULL, GO_TABLE, "!FAIL", NULL, NULL},
    {"go t.Parallel() in the table loop", "calc/calc_test.go", GO_TABLE, "\t\tt.Run(tc.name, func(t *testing.T) {\n",
     "\t\ttc := tc\n\t\tt.Run(tc.name, func(t *testing.T) {\n\t\t\tt.Parallel()\n", "PASS", NULL, NULL},
    {"go fixture data ranged over (no assertion in the loop)", "calc/calc_test.go",
     "package calc\n\nimport (\n\t\"os\"\n\t\"testing\"\n)\n\nfunc TestAdd(t *testing.T) {\n"
     "\tfor _, f := range []string{\"a.tmp\", \"b.tmp\"} {\n\t\tos.Remove(f)\n\t}\n"
     "\tif Add(1, 2) != 3 {\n\t\tt.Fatal(\"add\")\n\t}\n}\n",
     ", \"b.tmp\"", "", "PASS", NULL, NULL},
    {"go rows read from the same file", "calc/calc_test.go", GO_TABLE_FN, "t.Errorf(\"got %d\", got)",
     "t.Errorf(\"got %d, want %d\", got, tc.Want)", "PASS", NULL, NULL},
    /* an equality guard rewritten equivalently */
    {"go guard != -> !reflect.DeepEqual", "calc/calc_test.go", GO_PRE, "if Add(1, 2) != 3 {",
     "if !reflect.DeepEqual(Add(1, 2), 3) {", "!FAIL", NULL, NULL},
    {"go guard != -> cmp.Diff != \"\"", "calc/calc_test.go", GO_TABLE, "got != tc.want {",
     "cmp.Diff(tc.want, got) != \"\" {", "!FAIL", NULL, NULL},
    {"go guard != -> !bytes.Equal", "calc/calc_test.go", GO_PRE, "if Add(1, 2) != 3 {",
     "if !bytes.Equal(enc(Add(1, 2)), enc(3)) {", "!FAIL", NULL, NULL},
    {"go guard != -> !errors.Is", "calc/calc_test.go",
     "package calc\n\nimport \"testing\"\n\nfunc TestCheck(t *testing.T) {\n\tif err := Check(); err != ErrBad {\n"
     "\t\tt.Fatal(err)\n\t}\n}\n", "err != ErrBad", "!errors.Is(err, ErrBad)", "!FAIL", NULL, NULL},
    {"go guard operands swapped", "calc/calc_test.go", GO_TABLE, "got != tc.want {", "tc.want != got {", "!FAIL", NULL, NULL},
    {"go guard made stricter (< 0 -> != 3)", "calc/calc_test.go",
     "package calc\n\nimport \"testing\"\n\nfunc TestAdd(t *testing.T) {\n\tif Add(1, 2) < 0 {\n\t\tt.Fatal(\"add\")\n\t}\n}\n",
     "Add(1, 2) < 0", "Add(1, 2) != 3", "PASS", NULL, NULL},
    {"go guard len != 0 -> len > 0", "calc/calc_test.go",
     "package calc\n\nimport \"testing\"\n\nfunc TestCheck(t *testing.T) {\n\tif errs := Check(); len(errs) != 0 {\n"
     "\t\tt.Fatal(errs)\n\t}\n}\n", "len(errs) != 0", "len(errs) > 0", "PASS", NULL, NULL},
    {"go guard n != 0 -> n > 0 (its type not seen)", "calc/calc_test.go",
     "package calc\n\nimport \"testing\"\n\nfunc TestCheck(t *testing.T) {\n\tif n := Failures(); n != 0 {\n"
     "\t\tt.Fatal(n)\n\t}\n}\n", "n != 0", "n >= 1", "WARN", "matcher-loosened", "TestCheck"},
    {"go table split in two", "calc/calc_test.go", GO_TABLE, NULL,
     "package calc\n\nimport \"testing\"\n\nfunc TestAdd(t *testing.T) {\n"
     "\ttests := []struct {\n\t\tname       string\n\t\ta, b, want int\n\t}{\n"
     "\t\t{name: \"small\", a: 1, b: 2, want: 3},\n\t\t{name: \"zero\", a: 0, b: 0, want: 0},\n\t}\n"
     "\tnegative := []struct {\n\t\tname       string\n\t\ta, b, want int\n\t}{\n"
     "\t\t{name: \"negative\", a: -1, b: -2, want: -3},\n\t}\n" GO_TABLE_LOOP
     "\tfor _, tc := range negative {\n\t\tif got := Add(tc.a, tc.b); got != tc.want {\n"
     "\t\t\tt.Errorf(\"got %d, want %d\", got, tc.want)\n\t\t}\n\t}\n}\n\n"
     "func TestSub(t *testing.T) {\n\tif Sub(2, 1) != 1 {\n\t\tt.Fatal(\"sub\")\n\t}\n}\n",
     "PASS", NULL, NULL},
    {"go guard with a tolerance", "calc/calc_test.go", GO_PRE, "if Add(1, 2) != 3 {",
     "if math.Abs(float64(Add(1, 2))-3) > 1e-9 {", "!FAIL", NULL, NULL},
};

Test(a1_go_rust, go_table_cheats_are_caught)
{
	play_all(go_table_cheats, sizeof go_table_cheats / sizeof *go_table_cheats);
}

Test(a1_go_rust, go_table_honest_edits_never_fail)
{
	play_all(go_table_honest, sizeof go_table_honest / sizeof *go_table_honest);
}

/* Rust: rstest cases, test_case cases, a table of tuples ranged over */
#define RS_TABLE                                                                                                       \
	"pub fn add(a: i32, b: i32) -> i32 { a + b }\n\n#[cfg(test)]\nmod tests {\n    use super::*;\n"                   \
	"    use rstest::rstest;\n    use test_case::test_case;\n\n"                                                    \
	"    #[rstest]\n    #[case::small(1, 2, 3)]\n    #[case::zero(0, 0, 0)]\n    #[case::negative(-1, -2, -3)]\n"        \
	"    fn adds(#[case] a: i32, #[case] b: i32, #[case] want: i32) {\n        assert_eq!(add(a, b), want);\n    }\n\n" \
	"    #[test_case(1, 2, 3 ; \"small\")]\n    #[test_case(0, 0, 0 ; \"zero\")]\n"                                     \
	"    fn adds_tc(a: i32, b: i32, want: i32) {\n        assert_eq!(add(a, b), want);\n    }\n\n"                      \
	"    #[test]\n    fn adds_table() {\n        for (a, b, want) in [(1, 2, 3), (0, 0, 0), (-1, -2, -3)] {\n"           \
	"            assert_eq!(add(a, b), want);\n        }\n    }\n\n"                                                   \
	"    #[test]\n    fn adds_vec() {\n        let cases = vec![(1, 2, 3), (0, 0, 0)];\n"                              \
	"        for (a, b, want) in cases.iter() {\n            check(*a, *b, *want);\n        }\n    }\n\n"                \
	"    fn check(a: i32, b: i32, want: i32) {\n        assert_eq!(add(a, b), want);\n    }\n}\n"

static const struct row rs_table_cheats[] = {
    {"rust rstest case removed", "src/lib.rs", RS_TABLE, "    #[case::negative(-1, -2, -3)]\n", "", "FAIL",
     "test-case-removed", "tests::adds"},
    {"rust rstest case's expected value changed", "src/lib.rs", RS_TABLE, "#[case::negative(-1, -2, -3)]",
     "#[case::negative(-1, -2, -4)]", "WARN", "expected-value-changed", "tests::adds"},
    {"rust test_case removed", "src/lib.rs", RS_TABLE, "    #[test_case(0, 0, 0 ; \"zero\")]\n", "", "FAIL",
     "test-case-removed", "tests::adds_tc"},
    {"rust array table row removed", "src/lib.rs", RS_TABLE, ", (-1, -2, -3)] {", "] {", "FAIL", "test-case-removed",
     "tests::adds_table"},
    {"rust vec! table row removed (helper asserts)", "src/lib.rs", RS_TABLE, "vec![(1, 2, 3), (0, 0, 0)]",
     "vec![(1, 2, 3)]", "FAIL", "test-case-removed", "tests::adds_vec"},
    {"rust table made by a function", "src/lib.rs", RS_TABLE, "let cases = vec![(1, 2, 3), (0, 0, 0)];",
     "let cases = small_cases();", "UNVERIFIED", "test-cases-out-of-view", "tests::adds_vec"},
    {"rust const table row removed", "src/lib.rs",
     "const CASES: &[(i32, i32, i32)] = &[(1, 2, 3), (0, 0, 0)];\n\n#[test]\nfn adds() {\n"
     "    for &(a, b, want) in CASES {\n        assert_eq!(add(a, b), want);\n    }\n}\n",
     ", (0, 0, 0)]", "]", "FAIL", "test-case-removed", "adds"},
    {"rust range of a loop cut", "src/lib.rs",
     "#[test]\nfn doubles() {\n    for i in 0..10 {\n        assert_eq!(double(i), i + i);\n    }\n}\n", "0..10", "0..1",
     "FAIL", "test-case-removed", "doubles"},
    {"rust guard != literal -> < 0", "src/lib.rs",
     "#[test]\nfn adds() {\n    if add(1, 2) != 3 {\n        panic!(\"add\");\n    }\n}\n", "add(1, 2) != 3",
     "add(1, 2) < 0", "FAIL", "matcher-loosened", "adds"},
};

static const struct row rs_table_honest[] = {
    {"rust rstest case added", "src/lib.rs", RS_TABLE, "    #[case::zero(0, 0, 0)]\n",
     "    #[case::zero(0, 0, 0)]\n    #[case::big(1000, 2000, 3000)]\n", "PASS", NULL, NULL},
    {"rust rstest case renamed", "src/lib.rs", RS_TABLE, "#[case::zero(", "#[case::zeros(", "PASS", NULL, NULL},
    {"rust rstest case name given", "src/lib.rs", RS_TABLE, "#[case::zero(", "#[case(", "PASS", NULL, NULL},
    {"rust test_case renamed", "src/lib.rs", RS_TABLE, "; \"zero\")]", "; \"zeros\")]", "PASS", NULL, NULL},
    {"rust rstest cases reordered", "src/lib.rs", RS_TABLE,
     "    #[case::small(1, 2, 3)]\n    #[case::zero(0, 0, 0)]\n",
     "    #[case::zero(0, 0, 0)]\n    #[case::small(1, 2, 3)]\n", "PASS", NULL, NULL},
    {"rust array table row added", "src/lib.rs", RS_TABLE, ", (-1, -2, -3)] {", ", (-1, -2, -3), (5, 5, 10)] {", "PASS",
     NULL, NULL},
    {"rust array table loop variables renamed", "src/lib.rs", RS_TABLE,
     "for (a, b, want) in [(1, 2, 3), (0, 0, 0), (-1, -2, -3)] {\n            assert_eq!(add(a, b), want);",
     "for (x, y, sum) in [(1, 2, 3), (0, 0, 0), (-1, -2, -3)] {\n            assert_eq!(add(x, y), sum);", "!FAIL", NULL,
     NULL},
    {"rust table taken by reference", "src/lib.rs", RS_TABLE, "in [(1, 2, 3), (0, 0, 0), (-1, -2, -3)] {",
     "in &[(1, 2, 3), (0, 0, 0), (-1, -2, -3)] {", "PASS", NULL, NULL},
    {"rust vec! table made an array", "src/lib.rs", RS_TABLE, "vec![(1, 2, 3), (0, 0, 0)]", "[(1, 2, 3), (0, 0, 0)]",
     "PASS", NULL, NULL},
    {"rust test_case made rstest cases", "src/lib.rs", RS_TABLE,
     "    #[test_case(1, 2, 3 ; \"small\")]\n    #[test_case(0, 0, 0 ; \"zero\")]\n",
     "    #[rstest]\n    #[case(1, 2, 3)]\n    #[case(0, 0, 0)]\n", "!FAIL", NULL, NULL},
    {"rust range of a loop widened", "src/lib.rs",
     "#[test]\nfn doubles() {\n    for i in 0..10 {\n        assert_eq!(double(i), i + i);\n    }\n}\n", "0..10", "0..=100",
     "PASS", NULL, NULL},
    {"rust fixture data ranged over", "src/lib.rs",
     "#[test]\nfn adds() {\n    for f in [\"a.tmp\", \"b.tmp\"] {\n        let _ = std::fs::remove_file(f);\n    }\n"
     "    assert_eq!(add(1, 2), 3);\n}\n", ", \"b.tmp\"", "", "PASS", NULL, NULL},
};

Test(a1_go_rust, rust_table_cheats_are_caught)
{
	play_all(rs_table_cheats, sizeof rs_table_cheats / sizeof *rs_table_cheats);
}

Test(a1_go_rust, rust_table_honest_edits_never_fail)
{
	play_all(rs_table_honest, sizeof rs_table_honest / sizeof *rs_table_honest);
}

/*==== issue 32: N assertions generalised into a table, a helper or a loop ===================*/

#define GT_HEAD "package calc\n\nimport \"testing\"\n\n"
#define GT_PRE                                                                                                         \
	GT_HEAD "func TestAdd(t *testing.T) {\n\tif Add(1, 2) != 3 {\n\t\tt.Fatal(\"1+2\")\n\t}\n"                    \
		"\tif Add(2, 2) != 4 {\n\t\tt.Fatal(\"2+2\")\n\t}\n}\n"
/* TestAdd over a table of `rows` checked by `check` (c.a, c.b, c.want) */
#define GT_TABLE(rows, check)                                                                                          \
	GT_HEAD "func TestAdd(t *testing.T) {\n\tcases := []struct{ a, b, want int }{\n" rows "\t}\n"                  \
		"\tfor _, c := range cases {\n" check "\t}\n}\n"
#define GT_CHECK "\t\tif got := Add(c.a, c.b); got != c.want {\n\t\t\tt.Errorf(\"Add(%d, %d) = %d\", c.a, c.b, got)\n\t\t}\n"
#define GT_ROWS "\t\t{1, 2, 3},\n\t\t{2, 2, 4},\n"

static const struct row gt_honest[] = {
    {"go table-driven", "calc/add_test.go", GT_PRE, NULL, GT_TABLE(GT_ROWS "\t\t{0, 0, 0},\n", GT_CHECK), "PASS", NULL, NULL},
    {"go table-driven, t.Run over named rows", "calc/add_test.go", GT_PRE, NULL,
     GT_HEAD "func TestAdd(t *testing.T) {\n\ttests := []struct {\n\t\tname    string\n\t\ta, b, want int\n\t}{\n"
	     "\t\t{\"one\", 1, 2, 3},\n\t\t{\"two\", 2, 2, 4},\n\t}\n\tfor _, tc := range tests {\n"
	     "\t\tt.Run(tc.name, func(t *testing.T) {\n\t\t\tgot := Add(tc.a, tc.b)\n\t\t\tif got != tc.want {\n"
	     "\t\t\t\tt.Errorf(\"got %d, want %d\", got, tc.want)\n\t\t\t}\n\t\t})\n\t}\n}\n",
     "PASS", NULL, NULL},
    {"go table-driven, keyed rows", "calc/add_test.go", GT_PRE, NULL,
     GT_HEAD "func TestAdd(t *testing.T) {\n\ttests := []struct {\n\t\tname    string\n\t\ta, b, want int\n\t}{\n"
	     "\t\t{name: \"one\", a: 1, b: 2, want: 3},\n\t\t{name: \"two\", a: 2, b: 2, want: 4},\n\t}\n"
	     "\tfor _, tc := range tests {\n\t\tif got := Add(tc.a, tc.b); got != tc.want {\n\t\t\tt.Errorf(\"%s\", tc.name)\n"
	     "\t\t}\n\t}\n}\n",
     "PASS", NULL, NULL},
    {"go table-driven, the table a package-level var", "calc/add_test.go", GT_PRE, NULL,
     GT_HEAD "var addCases = []struct{ a, b, want int }{\n" GT_ROWS "}\n\nfunc TestAdd(t *testing.T) {\n"
	     "\tfor _, c := range addCases {\n" GT_CHECK "\t}\n}\n",
     "PASS", NULL, NULL},
};

static const struct row gt_cheats[] = {
    {"go table: a row dropped", "calc/add_test.go", GT_PRE, NULL, GT_TABLE("\t\t{1, 2, 3},\n", GT_CHECK), "FAIL",
     "assertion-removed", "TestAdd"},
    {"go table: a row's expected value changed", "calc/add_test.go", GT_PRE, NULL,
     GT_TABLE("\t\t{1, 2, 3},\n\t\t{2, 2, 5},\n", GT_CHECK), "FAIL", "assertion-removed", "TestAdd"},
    {"go table: the first row's expected value changed", "calc/add_test.go", GT_PRE, NULL,
     GT_TABLE("\t\t{1, 2, 5},\n\t\t{2, 2, 4},\n", GT_CHECK), "FAIL", "assertion-removed", "TestAdd"},
    {"go table: the loop checks nothing that can fail", "calc/add_test.go", GT_PRE, NULL,
     GT_TABLE(GT_ROWS, "\t\tif false {\n\t\t\tt.Errorf(\"%d\", Add(c.a, c.b))\n\t\t}\n"), "FAIL", NULL, "TestAdd"},
    {"go table: rows kept, the check gone", "calc/add_test.go", GT_PRE, NULL,
     GT_TABLE(GT_ROWS, "\t\t_ = Add(c.a, c.b)\n"), "FAIL", "test-lost-every-assertion", "TestAdd"},
    {"go table: the row only in another test's table", "calc/add_test.go", GT_PRE, NULL,
     GT_TABLE("\t\t{1, 2, 3},\n", GT_CHECK) "\nfunc TestMul(t *testing.T) {\n\tcases := []struct{ a, b, want int }{\n"
					       "\t\t{2, 2, 4},\n\t}\n\tfor _, c := range cases {\n"
					       "\t\tif got := Mul(c.a, c.b); got != c.want {\n\t\t\tt.Error(got)\n\t\t}\n\t}\n}\n",
     "FAIL", "assertion-removed", "TestAdd"},
    {"go table: one row for two checks", "calc/add_test.go",
     GT_HEAD "func TestAdd(t *testing.T) {\n\tif Add(1, 2) != 3 {\n\t\tt.Fatal(\"1+2\")\n\t}\n"
	     "\tif Add(2, 1) != 3 {\n\t\tt.Fatal(\"2+1\")\n\t}\n}\n",
     NULL, GT_TABLE("\t\t{1, 2, 3},\n", GT_CHECK), "FAIL", "assertion-removed", "TestAdd"},
};

Test(a1_go_rust, go_assertions_generalised_into_a_table_are_kept)
{
	play_all(gt_honest, sizeof gt_honest / sizeof *gt_honest);
}

Test(a1_go_rust, go_checks_generalised_into_a_table_cheats_are_caught)
{
	play_all(gt_cheats, sizeof gt_cheats / sizeof *gt_cheats);
}

#define RT_PRE "#[test]\nfn adds() {\n    assert_eq!(add(1, 2), 3);\n    assert_eq!(add(2, 2), 4);\n}\n"
#define RT_HELPER(body) "fn check(a: i32, b: i32, want: i32) {\n" body "}\n\n"
#define RT_HELPER_EQ RT_HELPER("    assert_eq!(add(a, b), want, \"add({a}, {b})\");\n")
#define RT_LOOP(rows, body) "#[test]\nfn adds() {\n    for (a, b, want) in [" rows "] {\n" body "    }\n}\n"
#define RT_LOOP_EQ "        assert_eq!(add(a, b), want);\n"

static const struct row rt_honest[] = {
    {"rust helper extracted", "tests/add.rs", RT_PRE, NULL,
     RT_HELPER_EQ "#[test]\nfn adds() {\n    check(1, 2, 3);\n    check(2, 2, 4);\n}\n", "PASS", NULL, NULL},
    {"rust table loop", "tests/add.rs", RT_PRE, NULL, RT_LOOP("(1, 2, 3), (2, 2, 4), (0, 0, 0)", RT_LOOP_EQ), "PASS",
     NULL, NULL},
    {"rust table of a const", "tests/add.rs", RT_PRE, NULL,
     "const CASES: [(i32, i32, i32); 2] = [(1, 2, 3), (2, 2, 4)];\n\n#[test]\nfn adds() {\n"
     "    for (a, b, want) in CASES {\n" RT_LOOP_EQ "    }\n}\n",
     "PASS", NULL, NULL},
};

static const struct row rt_cheats[] = {
    {"rust helper: a call dropped", "tests/add.rs", RT_PRE, NULL,
     RT_HELPER_EQ "#[test]\nfn adds() {\n    check(1, 2, 3);\n}\n", "FAIL", "assertion-removed", "adds"},
    {"rust helper: a call's expected value changed", "tests/add.rs", RT_PRE, NULL,
     RT_HELPER_EQ "#[test]\nfn adds() {\n    check(1, 2, 3);\n    check(2, 2, 5);\n}\n", "FAIL", "assertion-removed", "adds"},
    {"rust helper: its assertion removed", "tests/add.rs", RT_PRE, NULL,
     RT_HELPER("    let _ = add(a, b) + want;\n") "#[test]\nfn adds() {\n    check(1, 2, 3);\n    check(2, 2, 4);\n}\n", "FAIL",
     "test-lost-every-assertion", "adds"},
    {"rust table loop: a row dropped", "tests/add.rs", RT_PRE, NULL, RT_LOOP("(1, 2, 3), (0, 0, 0)", RT_LOOP_EQ), "FAIL",
     "assertion-removed", "adds"},
    {"rust table loop: assert!(true)", "tests/add.rs", RT_PRE, NULL,
     RT_LOOP("(1, 2, 3), (2, 2, 4)", "        let _ = add(a, b) == want;\n        assert!(true);\n"), "FAIL", NULL, "adds"},
};

Test(a1_go_rust, rust_assertions_generalised_into_a_table_or_helper_are_kept)
{
	play_all(rt_honest, sizeof rt_honest / sizeof *rt_honest);
}

Test(a1_go_rust, rust_table_and_helper_cheats_are_caught)
{
	play_all(rt_cheats, sizeof rt_cheats / sizeof *rt_cheats);
}
