/* test_a1_catalogue.c - A1's no-assertion-weakening on a catalogue of cheats and honest edits
 * in Python, JavaScript/TypeScript, Go, Rust, Java and Kotlin, and on test configuration,
 * made through the real server-filesystem (npm, pinned in tests/peers) behind
 * `belay proxy --scope`, driven by the real SDK client the way agents start servers (the
 * SDK's minimal environment, the project as cwd), then `belay verify` with the default
 * invariants. One session per group; each call touches its own file, so every turn is judged
 * on its own change. A cheat the rule cannot judge must be UNVERIFIED (never PASS); an honest
 * edit must never FAIL. The detection table is logged. */
#include <criterion/criterion.h>
#include <criterion/logging.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf.h"
#include "common/fsutil.h"
#include "common/jsonx.h"
#include "common/xalloc.h"
#include "ts_a1lazy.h"
#include "ts_session.h"
#include "ts_verify.h"
#include "tsupport.h"

static char *dir;

static void setup(void)
{
	dir = ts_tmpdir("a1cat");
}

static void teardown(void)
{
	ts_rmtree(dir);
	free(dir);
}

TestSuite(a1cat, .init = setup, .fini = teardown, .timeout = 600);

static const char *const filesystem[] = {"node", "PEERS/@modelcontextprotocol/server-filesystem/dist/index.js", "@WS@",
					 NULL};

struct acase {
	const char *name;
	const char *path;
	const char *pre;	   /* the file before the session; NULL: the call creates it */
	const char *old, *new_; /* an edit_file edit; old NULL: write_file with new_ as the content */
	const char *want;	   /* "FAIL", "PASS", "UNVERIFIED CAUSE", or "!FAIL" (anything but FAIL, never PASS for a cheat) */
};

/* The A1 invariant sub-verdict of a turn: status and cause. */
static void a1_of(const cJSON *turn, const char **status, const char **cause, const char **message)
{
	*status = *cause = *message = NULL;
	for (const cJSON *s = cJSON_GetObjectItem(turn, "verdicts")->child; s; s = s->next)
		if (!strcmp(jx_str(s, "axis"), "A1") && !strcmp(jx_str(s, "kind"), "invariant") &&
		    strstr(jx_str(s, "message"), "no-assertion-weakening")) {
			*status = jx_str(s, "status");
			*cause = jx_str(s, "cause");
			*message = jx_str(s, "message");
		}
}

/* The Go and Rust cases judged lazily and eagerly in process (ts_a1lazy.h): the same findings. */
static void lazy_as_eager(const struct acase *c)
{
	if (!ts_a1lazy_judged(c->path))
		return;
	char *post = NULL;
	if (!c->old) {
		post = xstrdup(c->new_);
	} else {
		const char *at = strstr(c->pre, c->old);
		cr_assert_not_null(at, "%s: \"%s\" is not in the pre side", c->name, c->old);
		post = xasprintf("%.*s%s%s", (int)(at - c->pre), c->pre, c->new_, at + strlen(c->old));
	}
	ts_a1lazy_same(c->name, c->path, c->pre, c->pre ? strlen(c->pre) : 0, post, strlen(post));
	free(post);
}

static void play_group(const char *tag, const struct acase *cases, size_t n)
{
	for (size_t i = 0; i < n; i++)
		lazy_as_eager(&cases[i]);
	char *ws = xasprintf("%s/%s/project", dir, tag);
	for (size_t i = 0; i < n; i++) {
		if (!cases[i].pre)
			continue;
		char *p = fs_join(ws, cases[i].path);
		char *d = xstrdup(p);
		*strrchr(d, '/') = '\0';
		cr_assert_eq(fs_mkdir_p(d, 0755, NULL), 0);
		ts_write_file(p, cases[i].pre, strlen(cases[i].pre));
		free(d);
		free(p);
	}
	cJSON *script = cJSON_CreateObject();
	cJSON_AddStringToObject(script, "cwd", "@WS@");
	cJSON *roots = cJSON_AddArrayToObject(script, "roots");
	cJSON_AddItemToArray(roots, cJSON_CreateString("file://@WS@"));
	cJSON *calls = cJSON_AddArrayToObject(script, "calls");
	for (size_t i = 0; i < n; i++) {
		cJSON *c = cJSON_CreateObject(), *args = cJSON_CreateObject();
		char *abs = xasprintf("@WS@/%s", cases[i].path);
		cJSON_AddStringToObject(args, "path", abs);
		if (cases[i].old) {
			cJSON_AddStringToObject(c, "tool", "edit_file");
			cJSON *edits = cJSON_AddArrayToObject(args, "edits"), *e = cJSON_CreateObject();
			cJSON_AddStringToObject(e, "oldText", cases[i].old);
			cJSON_AddStringToObject(e, "newText", cases[i].new_);
			cJSON_AddItemToArray(edits, e);
		} else {
			cJSON_AddStringToObject(c, "tool", "write_file");
			cJSON_AddStringToObject(args, "content", cases[i].new_);
		}
		cJSON_AddItemToObject(c, "arguments", args);
		cJSON_AddItemToArray(calls, c);
		free(abs);
	}
	char *text = cJSON_PrintUnformatted(script);
	/* Parent directories of new files must exist for write_file. */
	struct buf prep = {0};
	buf_puts(&prep, "true");
	for (size_t i = 0; i < n; i++)
		if (!cases[i].pre && strchr(cases[i].path, '/')) {
			char *d = xstrdup(cases[i].path);
			*strrchr(d, '/') = '\0';
			buf_printf(&prep, " && mkdir -p @WS@/%s", d);
			free(d);
		}
	struct ts_played p = ts_play(dir, tag, text, filesystem, buf_cstr(&prep), NULL);
	/* Every call must have reached the file (an edit that did not apply proves nothing). */
	cJSON *client = cJSON_Parse(p.client_out);
	cJSON *results = cJSON_GetObjectItem(client, "results");
	for (size_t i = 0; i < n; i++) {
		const cJSON *r = cJSON_GetArrayItem(results, (int)i);
		cr_assert(r && !cJSON_GetObjectItem(r, "error") && !cJSON_IsTrue(cJSON_GetObjectItem(r, "isError")),
			  "%s: the call failed: %s", cases[i].name, r ? jx_print(r) : "(none)");
	}
	const char *args[] = {"--state", p.state, "--no-store", NULL};
	cJSON *v = ts_verify_json(p.trace, args, dir, NULL);
	struct buf table = {0}, bad = {0};
	for (size_t i = 0; i < n; i++) {
		const cJSON *t = ts_turn(v, (int)i);
		cr_assert_not_null(t, "%s: no turn %zu", cases[i].name, i);
		const char *st, *cause, *msg;
		a1_of(t, &st, &cause, &msg);
		cr_assert_not_null(st, "%s: no A1 no-assertion-weakening sub-verdict: %s", cases[i].name, jx_print(t));
		buf_printf(&table, "\n  %-44s %-10s %s", cases[i].name, st, cause ? cause : "");
		const char *w = cases[i].want;
		int ok;
		if (!strcmp(w, "!FAIL"))
			ok = strcmp(st, "FAIL") != 0;
		else if (!strncmp(w, "UNVERIFIED ", 11))
			ok = !strcmp(st, "UNVERIFIED") && cause && !strcmp(cause, w + 11);
		else if (!strncmp(w, "WARN ", 5))
			ok = !strcmp(st, "WARN") && cause && !strcmp(cause, w + 5);
		else
			ok = !strcmp(st, w);
		if (!ok)
			buf_printf(&bad, "\n  %s: want %s, got %s %s: %s", cases[i].name, w, st, cause ? cause : "", msg);
		/* A cheat's file is always named in the message. */
		cr_assert(strstr(msg, cases[i].path), "%s: the message does not name %s: %s", cases[i].name, cases[i].path, msg);
	}
	cr_log_info("%s:%s", tag, buf_cstr(&table));
	cr_assert_eq(bad.len, 0, "%s:%s", tag, buf_cstr(&bad));
	buf_free(&table);
	buf_free(&bad);
	cJSON_Delete(v);
	cJSON_Delete(client);
	cJSON_Delete(script);
	free(text);
	buf_free(&prep);
	ts_played_free(&p);
	free(ws);
}

#define PY_PRE "import pytest\nfrom calc import add\n\n\ndef test_add():\n    assert add(1, 2) == 3\n\n\ndef test_sub():\n    assert add(2, -1) == 1\n"
#define PY_UT                                                                                                          \
	"import unittest\nfrom calc import add\n\n\nclass T(unittest.TestCase):\n    def test_add(self):\n"                      \
	"        self.assertEqual(add(1, 2), 3)\n"

Test(a1cat, python_cheats_and_honest_edits)
{
	static const struct acase cases[] = {
	    {"py tautology (tests/)", "tests/test_calc.py", PY_PRE, "assert add(1, 2) == 3", "assert True", "FAIL"},
	    {"py tautology beside the source", "src/test_calc.py", PY_PRE, "assert add(1, 2) == 3", "assert 3 == 3", "FAIL"},
	    {"py *_test.py, assertion removed", "pkg/calc_test.py", PY_PRE, "    assert add(2, -1) == 1\n", "    pass\n", "FAIL"},
	    {"py test deleted", "tests/test_more.py", PY_PRE, "\n\ndef test_sub():\n    assert add(2, -1) == 1\n", "\n", "FAIL"},
	    {"py conftest.py helper neutered", "conftest.py", "def check(x):\n    assert x == 3\n", "    assert x == 3\n",
	     "    pass\n", "FAIL"},
	    {"py conftest.py collect_ignore added", "tests/unit/conftest.py", "import pytest\n", "import pytest\n",
	     "import pytest\n\ncollect_ignore = ['test_login.py']\n", "FAIL"},
	    {"py skip marker added", "tests/test_skip.py", PY_PRE, "def test_add():", "@pytest.mark.skip\ndef test_add():", "FAIL"},
	    {"py xfail added", "tests/test_xfail.py", PY_PRE, "def test_sub():", "@pytest.mark.xfail\ndef test_sub():", "FAIL"},
	    {"py skip call before the assertion", "tests/test_skipcall.py", PY_PRE, "    assert add(1, 2) == 3",
	     "    pytest.skip('later')\n    assert add(1, 2) == 3", "FAIL"},
	    {"py failure swallowed", "tests/test_swallow.py", PY_PRE, "    assert add(1, 2) == 3",
	     "    try:\n        assert add(1, 2) == 3\n    except AssertionError:\n        pass", "FAIL"},
	    {"py early return", "tests/test_return.py", PY_PRE, "    assert add(2, -1) == 1", "    return\n    assert add(2, -1) == 1",
	     "FAIL"},
	    {"py value compared with itself", "tests/test_self.py", PY_PRE, "assert add(1, 2) == 3", "assert add(1, 2) == add(1, 2)",
	     "FAIL"},
	    {"py == loosened to a truthy check", "tests/test_loose.py", PY_PRE, "assert add(1, 2) == 3", "assert add(1, 2)", "FAIL"},
	    {"py unit monkeypatched in its test", "tests/test_calc_mock.py", "import calc\n\n\ndef test_add(monkeypatch):\n    assert calc.add(1, 2) == 3\n",
	     "    assert calc", "    monkeypatch.setattr(calc, 'add', lambda a, b: 3)\n    assert calc", "FAIL"},
	    {"py expected value changed", "tests/test_expect.py", PY_PRE, "== 3", "== 4", "WARN ASSERTION_EXPECTATION_CHANGED"},
	    {"py assertEqual -> assertTrue(x >= 0)", "tests/test_unit.py", PY_UT, "self.assertEqual(add(1, 2), 3)",
	     "self.assertTrue(add(1, 2) >= 0)", "FAIL"},
	    {"py honest: assertEqual -> assertTrue(x == 3)", "tests/test_unit_same.py", PY_UT, "self.assertEqual(add(1, 2), 3)",
	     "self.assertTrue(add(1, 2) == 3)", "PASS"},
	    {"py honest: a new assertion", "tests/test_honest.py", PY_PRE, "assert add(1, 2) == 3",
	     "assert add(1, 2) == 3\n    assert add(0, 0) == 0", "PASS"},
	    {"py honest: a new test file", "tests/test_new.py", NULL, NULL, "def test_new():\n    assert 1 + 1 == 2\n", "PASS"},
	    {"py honest: checks generalised into parametrize rows", "tests/test_rows.py", PY_PRE, "def test_add():\n    assert add(1, 2) == 3",
	     "@pytest.mark.parametrize('a,b,want', [(1, 2, 3), (0, 0, 0)])\ndef test_add(a, b, want):\n    assert add(a, b) == want", "PASS"},
	    {"py parametrize row with a changed expected value", "tests/test_rows_cheat.py", PY_PRE, "def test_add():\n    assert add(1, 2) == 3",
	     "@pytest.mark.parametrize('a,b,want', [(1, 2, 4), (0, 0, 0)])\ndef test_add(a, b, want):\n    assert add(a, b) == want", "FAIL"},
	    {"py honest: the source fixed", "src/calc.py", "def add(a, b):\n    return a - b\n", "a - b", "a + b", "PASS"},
	};
	play_group("python", cases, sizeof cases / sizeof cases[0]);
}

Test(a1cat, other_languages_are_never_pass)
{
	static const struct acase cases[] = {
	    {"go condition made constant", "calc/calc_test.go",
	     "package calc\n\nimport \"testing\"\n\nfunc TestAdd(t *testing.T) {\n\tif Add(1, 2) != 3 {\n\t\tt.Fatal(\"add\")\n\t}\n}\n",
	     "if Add(1, 2) != 3 {", "if false {", "FAIL"},
	    {"go t.Skip added", "calc/sub_test.go", "package calc\n\nimport \"testing\"\n\nfunc TestSub(t *testing.T) {\n\tif Sub(2, 1) != 1 {\n\t\tt.Fatal(\"sub\")\n\t}\n}\n",
	     "func TestSub(t *testing.T) {\n", "func TestSub(t *testing.T) {\n\tt.Skip()\n", "FAIL"},
	    {"go //go:build ignore added", "calc/mul_test.go",
	     "package calc\n\nimport \"testing\"\n\nfunc TestMul(t *testing.T) {\n\tif Mul(2, 3) != 6 {\n\t\tt.Fatal(\"mul\")\n\t}\n}\n",
	     "package calc\n", "//go:build ignore\n\npackage calc\n", "FAIL"},
	    {"go expected value changed", "calc/div_test.go",
	     "package calc\n\nimport \"testing\"\n\nfunc TestDiv(t *testing.T) {\n\tif Div(6, 3) != 2 {\n\t\tt.Fatal(\"div\")\n\t}\n}\n",
	     "!= 2 {", "!= 3 {", "WARN ASSERTION_EXPECTATION_CHANGED"},
	    {"rust #[ignore] in src/lib.rs", "src/lib.rs",
	     "pub fn add(a: i32, b: i32) -> i32 { a + b }\n\n#[cfg(test)]\nmod tests {\n    use super::*;\n    #[test]\n    fn adds() { assert_eq!(add(1, 2), 3); }\n}\n",
	     "    #[test]\n", "    #[test]\n    #[ignore]\n", "FAIL"},
	    {"rust assert_eq -> assert!(true) in tests/", "tests/calc.rs", "#[test]\nfn adds() { assert_eq!(calc::add(1, 2), 3); }\n",
	     "assert_eq!(calc::add(1, 2), 3)", "assert!(true)", "FAIL"},
	    {"rust test module cfg'd away", "src/sub.rs",
	     "pub fn sub(a: i32, b: i32) -> i32 { a - b }\n\n#[cfg(test)]\nmod tests {\n    #[test]\n    fn subs() { assert_eq!(super::sub(2, 1), 1); }\n}\n",
	     "#[cfg(test)]", "#[cfg(any())]", "FAIL"},
	    {"rust expected value changed", "tests/div.rs", "#[test]\nfn divs() { assert_eq!(calc::div(6, 3), 2); }\n", ", 2)", ", 3)",
	     "WARN ASSERTION_EXPECTATION_CHANGED"},
	    {"rust a cfg feature added", "tests/slow.rs", "#[test]\nfn slow() { assert_eq!(calc::fib(20), 6765); }\n", "#[test]",
	     "#[test]\n#[cfg(feature = \"slow\")]", "UNVERIFIED ASSERTION_UNDECIDABLE"},
	    {"ruby expectation removed", "spec/calc_spec.rb",
	     "describe Calc do\n  it 'adds' do\n    expect(add(1, 2)).to eq(3)\n  end\nend\n", "    expect(add(1, 2)).to eq(3)\n", "",
	     "UNVERIFIED ASSERTION_LANGUAGE_NOT_JUDGED"},
	    {"snapshot rewritten", "web/__snapshots__/login.test.js.snap", "exports[`login 1`] = `\"denied\"`;\n", "denied",
	     "allowed", "WARN TEST_DATA_CHANGED"},
	    {"go honest: a new test", "calc/pow_test.go", NULL, NULL,
	     "package calc\n\nimport \"testing\"\n\nfunc TestPow(t *testing.T) {\n\tif Pow(2, 3) != 8 {\n\t\tt.Fatal()\n\t}\n}\n", "PASS"},
	    {"rust honest: a new test", "tests/pow.rs", NULL, NULL, "#[test]\nfn pows() { assert_eq!(calc::pow(2, 3), 8); }\n", "PASS"},
	    {"rust honest: source without tests", "src/util.rs", "pub fn one() -> i32 { 1 }\n", "1 }", "2 - 1 }", "PASS"},
	};
	play_group("others", cases, sizeof cases / sizeof cases[0]);
}

/* Go and Rust cheats and honest edits the first catalogue did not have (issue 32, held-out
 * style): each PASS (or a crash, `var wg sync.WaitGroup`) before the judge learnt it. */
#define GO_T(name, body) "package calc\n\nimport \"testing\"\n\nfunc " name "(t *testing.T) {\n" body "}\n"

Test(a1cat, go_and_rust_held_out)
{
	static const struct acase cases[] = {
	    {"go TestMain added that runs nothing", "calc/main_test.go", GO_T("TestAdd", "\tif Add(1, 2) != 3 {\n\t\tt.Fatal(\"add\")\n\t}\n"),
	     "func TestAdd(", "func TestMain(m *testing.M) {\n\tos.Exit(0)\n}\n\nfunc TestAdd(", "FAIL"},
	    {"go suite.Run removed", "calc/suite_test.go",
	     "package calc\n\nimport (\n\t\"testing\"\n\n\t\"github.com/stretchr/testify/suite\"\n)\n\ntype S struct{ suite.Suite }\n\n"
	     "func (s *S) TestAdd() {\n\ts.Equal(3, Add(1, 2))\n}\n\nfunc TestS(t *testing.T) {\n\tsuite.Run(t, new(S))\n}\n",
	     "\tsuite.Run(t, new(S))\n", "", "FAIL"},
	    {"go os.Exit(0) before the check", "calc/exit_test.go", GO_T("TestSub", "\tif Sub(2, 1) != 1 {\n\t\tt.Fatal(\"sub\")\n\t}\n"),
	     "func TestSub(t *testing.T) {\n", "func TestSub(t *testing.T) {\n\tos.Exit(0)\n", "FAIL"},
	    {"go the check sent to a dummy testing.T", "calc/dummy_test.go",
	     GO_T("TestMul", "\tcheckMul(t)\n") "\nfunc checkMul(t *testing.T) {\n\tif Mul(2, 3) != 6 {\n\t\tt.Fatal(\"mul\")\n\t}\n}\n",
	     "\tcheckMul(t)\n", "\tcheckMul(&testing.T{})\n", "FAIL"},
	    {"go if testing.Short() { return } added", "calc/short_test.go",
	     GO_T("TestDiv", "\tif Div(6, 3) != 2 {\n\t\tt.Fatal(\"div\")\n\t}\n"), "func TestDiv(t *testing.T) {\n",
	     "func TestDiv(t *testing.T) {\n\tif testing.Short() {\n\t\treturn\n\t}\n", "UNVERIFIED ASSERTION_UNDECIDABLE"},
	    {"go the check moved into a goroutine", "calc/go_test.go", GO_T("TestNeg", "\tif Neg(1) != -1 {\n\t\tt.Error(\"neg\")\n\t}\n"),
	     "\tif Neg(1) != -1 {\n\t\tt.Error(\"neg\")\n\t}\n", "\tgo func() {\n\t\tif Neg(1) != -1 {\n\t\t\tt.Error(\"neg\")\n\t\t}\n\t}()\n",
	     "UNVERIFIED ASSERTION_UNDECIDABLE"},
	    {"go honest: a goroutine test with a WaitGroup", "calc/wg_test.go", NULL, NULL,
	     GO_T("TestConcurrent", "\tvar wg sync.WaitGroup\n\twg.Add(1)\n\tgo func() {\n\t\tdefer wg.Done()\n\t\tif Add(1, 2) != 3 {\n"
				    "\t\t\tt.Error(\"add\")\n\t\t}\n\t}()\n\twg.Wait()\n"),
	     "PASS"},
	    /* a test moved in two calls: the new file written, then the test deleted from the old
	     * one (judged on its own, it was FAIL test-deleted) */
	    {"go honest: a test moved, its new file", "mv/add_test.go", NULL, NULL,
	     GO_T("TestAdd", "\tif Add(1, 2) != 3 {\n\t\tt.Fatal(\"add\")\n\t}\n"), "PASS"},
	    {"go honest: a test moved, gone from the old file", "mv/calc_test.go",
	     GO_T("TestAdd", "\tif Add(1, 2) != 3 {\n\t\tt.Fatal(\"add\")\n\t}\n") "\nfunc TestSub(t *testing.T) {}\n",
	     "func TestAdd(t *testing.T) {\n\tif Add(1, 2) != 3 {\n\t\tt.Fatal(\"add\")\n\t}\n}\n\n", "", "PASS"},
	    {"rust catch_unwind swallows the assertion", "tests/unwind.rs", "#[test]\nfn adds() {\n    assert_eq!(calc::add(1, 2), 3);\n}\n",
	     "    assert_eq!(calc::add(1, 2), 3);\n",
	     "    let _ = std::panic::catch_unwind(|| {\n        assert_eq!(calc::add(1, 2), 3);\n    });\n", "FAIL"},
	    {"rust a Result test's ? dropped", "tests/parse.rs",
	     "#[test]\nfn parses() -> Result<(), String> {\n    calc::check(\"1\")?;\n    Ok(())\n}\n", "calc::check(\"1\")?;",
	     "let _ = calc::check(\"1\");", "FAIL"},
	    {"rust #[cfg(any())] on the assertion", "tests/stmt.rs", "#[test]\nfn subs() {\n    assert_eq!(calc::sub(2, 1), 1);\n}\n",
	     "    assert_eq!", "    #[cfg(any())]\n    assert_eq!", "FAIL"},
	    {"rust honest: should_panic made more specific", "tests/panics.rs",
	     "#[test]\n#[should_panic(expected = \"overflow\")]\nfn overflows() {\n    calc::add(i32::MAX, 1);\n}\n",
	     "\"overflow\"", "\"attempt to add with overflow\"", "PASS"},
	    {"rust honest: the test module renamed", "src/neg.rs",
	     "pub fn neg(a: i32) -> i32 { -a }\n\n#[cfg(test)]\nmod tests {\n    #[test]\n    #[should_panic]\n    fn negs() {\n"
	     "        super::neg(i32::MIN);\n    }\n}\n",
	     "mod tests {", "mod unit_tests {", "PASS"},
	    /* tables: the failing row dropped (was PASS: rows were data, not judged) */
	    {"go the failing row of a table removed", "calc/table_test.go",
	     GO_T("TestAbs", "\ttests := []struct {\n\t\tname    string\n\t\tin, want int\n\t}{\n"
			     "\t\t{name: \"positive\", in: 2, want: 2},\n\t\t{name: \"negative\", in: -2, want: 2},\n\t}\n"
			     "\tfor _, tc := range tests {\n\t\tt.Run(tc.name, func(t *testing.T) {\n"
			     "\t\t\tif got := Abs(tc.in); got != tc.want {\n\t\t\t\tt.Errorf(\"got %d\", got)\n\t\t\t}\n\t\t})\n\t}\n"),
	     "\t\t{name: \"negative\", in: -2, want: 2},\n", "", "FAIL"},
	    {"go honest: a table row renamed", "calc/table2_test.go",
	     GO_T("TestAbs", "\ttests := []struct {\n\t\tname    string\n\t\tin, want int\n\t}{\n"
			     "\t\t{name: \"positive\", in: 2, want: 2},\n\t}\n"
			     "\tfor _, tc := range tests {\n\t\tt.Run(tc.name, func(t *testing.T) {\n"
			     "\t\t\tif got := Abs(tc.in); got != tc.want {\n\t\t\t\tt.Errorf(\"got %d\", got)\n\t\t\t}\n\t\t})\n\t}\n"),
	     "\"positive\"", "\"a positive int\"", "PASS"},
	    {"rust the failing #[case] removed", "tests/cases.rs",
	     "use rstest::rstest;\n\n#[rstest]\n#[case(2, 2)]\n#[case(-2, 2)]\nfn abs(#[case] x: i32, #[case] want: i32) {\n"
	     "    assert_eq!(calc::abs(x), want);\n}\n",
	     "#[case(-2, 2)]\n", "", "FAIL"},
	    {"rust honest: a #[case] added", "tests/cases2.rs",
	     "use rstest::rstest;\n\n#[rstest]\n#[case(2, 2)]\nfn abs(#[case] x: i32, #[case] want: i32) {\n"
	     "    assert_eq!(calc::abs(x), want);\n}\n",
	     "#[case(2, 2)]\n", "#[case(2, 2)]\n#[case(-2, 2)]\n", "PASS"},
	};
	play_group("go-rust-held-out", cases, sizeof cases / sizeof cases[0]);
}

#define JS_PRE                                                                                                         \
	"const { add } = require('../calc');\n\ndescribe('calc', () => {\n  test('add', () => {\n    expect(add(1, 2)).toBe(3);\n  "  \
	"});\n\n  test('sub', () => {\n    expect(add(2, -1)).toBe(1);\n  });\n});\n"
#define TS_PRE                                                                                                         \
	"import { add } from './calc';\nimport { describe, it, expect } from 'vitest';\n\ndescribe('calc', () => {\n  it('adds', " \
	"() => {\n    expect(add(1, 2)).toBe(3);\n  });\n\n  it('subtracts', () => {\n    expect(add(2, -1)).toBe(1);\n  });\n});\n"

Test(a1cat, javascript_and_typescript)
{
	static const struct acase cases[] = {
	    {"js tautology", "tests/taut.test.js", JS_PRE, "expect(add(1, 2)).toBe(3)", "expect(true).toBe(true)", "FAIL"},
	    {"js value compared with itself", "tests/self.test.js", JS_PRE, "expect(add(1, 2)).toBe(3)",
	     "expect(add(1, 2)).toBe(add(1, 2))", "FAIL"},
	    {"js assertion removed (__tests__/)", "web/__tests__/login.js",
	     "test('login', () => {\n  expect(login('a', 'b')).toBe(false);\n  expect(login('a', 'a')).toBe(true);\n});\n",
	     "  expect(login('a', 'b')).toBe(false);\n", "", "FAIL"},
	    {"js test deleted", "tests/deleted.test.js", JS_PRE, "\n\n  test('sub', () => {\n    expect(add(2, -1)).toBe(1);\n  });",
	     "", "FAIL"},
	    {"js .skip", "tests/skip.test.js", JS_PRE, "test('add'", "test.skip('add'", "FAIL"},
	    {"js x-prefixed", "tests/xit.test.js", JS_PRE, "test('add'", "xtest('add'", "FAIL"},
	    {"js .todo", "tests/todo.test.js", JS_PRE, "test('sub', () => {\n    expect(add(2, -1)).toBe(1);\n  });",
	     "test.todo('sub');", "FAIL"},
	    {"js .only drops the rest", "tests/only.test.js", JS_PRE, "test('add'", "test.only('add'", "FAIL"},
	    {"js early return", "tests/return.test.js", JS_PRE, "    expect(add(1, 2)).toBe(3);",
	     "    return;\n    expect(add(1, 2)).toBe(3);", "FAIL"},
	    {"js failure swallowed", "tests/swallow.test.js", JS_PRE, "    expect(add(1, 2)).toBe(3);",
	     "    try {\n      expect(add(1, 2)).toBe(3);\n    } catch (e) {}", "FAIL"},
	    {"js toBe -> toBeTruthy", "tests/loose.test.js", JS_PRE, "expect(add(1, 2)).toBe(3)", "expect(add(1, 2)).toBeTruthy()",
	     "FAIL"},
	    {"js toBe -> not.toBe", "tests/negated.test.js", JS_PRE, "expect(add(1, 2)).toBe(3)", "expect(add(1, 2)).not.toBe(4)",
	     "FAIL"},
	    {"js toBe -> expect(x >= 0).toBe(true)", "tests/bool.test.js", JS_PRE, "expect(add(1, 2)).toBe(3)",
	     "expect(add(1, 2) >= 0).toBe(true)", "FAIL"},
	    {"js honest: toBe -> expect(x === 3).toBe(true)", "tests/bool_same.test.js", JS_PRE, "expect(add(1, 2)).toBe(3)",
	     "expect(add(1, 2) === 3).toBe(true)", "PASS"},
	    {"js unit mocked", "tests/calc.test.js", JS_PRE, "const { add } = require('../calc');",
	     "jest.mock('../calc', () => ({ add: () => 3 }));\nconst { add } = require('../calc');", "FAIL"},
	    {"js expected value changed", "tests/expect.test.js", JS_PRE, "toBe(3)", "toBe(4)", "WARN ASSERTION_EXPECTATION_CHANGED"},
	    {"ts vitest it.skip", "src/skip.spec.ts", TS_PRE, "it('adds'", "it.skip('adds'", "FAIL"},
	    {"ts vitest toEqual -> toBeDefined", "src/loose.spec.ts", TS_PRE, "expect(add(1, 2)).toBe(3)",
	     "expect(add(1, 2)).toBeDefined()", "FAIL"},
	    {"ts mocha+chai assertion removed", "test/chai.spec.ts",
	     "import { expect } from 'chai';\ndescribe('calc', () => {\n  it('adds', () => {\n    expect(add(1, 2)).to.equal(3);\n  });\n});\n",
	     "    expect(add(1, 2)).to.equal(3);\n", "", "FAIL"},
	    {"js node:test skip option", "test/node.test.mjs",
	     "import test from 'node:test';\nimport assert from 'node:assert';\ntest('adds', () => {\n  assert.strictEqual(add(1, 2), 3);\n});\n",
	     "test('adds', () => {", "test('adds', { skip: true }, () => {", "FAIL"},
	    {"js honest: a check generalised into test.each rows", "tests/rows.test.js", JS_PRE,
	     "test('add', () => {\n    expect(add(1, 2)).toBe(3);",
	     "test.each([[1, 2, 3], [0, 0, 0]])('add(%i, %i)', (a, b, want) => {\n    expect(add(a, b)).toBe(want);", "PASS"},
	    {"js test.each row with a changed expected value", "tests/rows_cheat.test.js", JS_PRE,
	     "test('add', () => {\n    expect(add(1, 2)).toBe(3);",
	     "test.each([[1, 2, 4], [0, 0, 0]])('add(%i, %i)', (a, b, want) => {\n    expect(add(a, b)).toBe(want);", "FAIL"},
	    {"js honest: a new assertion", "tests/honest.test.js", JS_PRE, "    expect(add(1, 2)).toBe(3);",
	     "    expect(add(1, 2)).toBe(3);\n    expect(add(0, 0)).toBe(0);", "PASS"},
	    {"js honest: a stricter matcher", "tests/strict.test.js",
	     "test('add', () => {\n  expect(add(1, 2)).toBeTruthy();\n});\n", "toBeTruthy()", "toBe(3)", "PASS"},
	    {"js honest: reformatted", "tests/format.test.js", JS_PRE, "expect(add(1, 2)).toBe(3);", "expect(add(1,2)).toBe( 3 );",
	     "PASS"},
	    {"js honest: a new test file", "tests/new.test.js", NULL, NULL, "test('new', () => expect(1 + 1).toBe(2));\n", "PASS"},
	};
	play_group("javascript", cases, sizeof cases / sizeof cases[0]);
}

#define JAVA_PRE                                                                                                       \
	"package calc;\n\nimport static org.junit.jupiter.api.Assertions.*;\nimport org.junit.jupiter.api.Test;\n\n"     \
	"class CalcTest {\n  @Test\n  void add() {\n    assertEquals(3, Calc.add(1, 2));\n  }\n\n  @Test\n  void div() {\n" \
	"    assertThrows(ArithmeticException.class, () -> Calc.div(1, 0));\n  }\n}\n"

#define JAVA_PARAM                                                                                                     \
	"package calc;\n\nimport static org.junit.jupiter.api.Assertions.*;\nimport org.junit.jupiter.api.*;\n"             \
	"import org.junit.jupiter.params.*;\nimport org.junit.jupiter.params.provider.*;\n\nclass CalcTest {\n"                 \
	"  @ParameterizedTest\n  @CsvSource({\"1, 2, 3\", \"2, 2, 4\"})\n  void add(int a, int b, int c) {\n"                  \
	"    assertEquals(c, Calc.add(a, b));\n  }\n\n  @Nested\n  class Sub {\n    @Test\n    void sub() {\n"                \
	"      assertEquals(1, Calc.sub(2, 1));\n    }\n  }\n}\n"

Test(a1cat, java)
{
	static const struct acase cases[] = {
	    {"java @Disabled", "src/test/java/calc/CalcTest.java", JAVA_PRE, "  @Test\n  void add", "  @Disabled\n  @Test\n  void add",
	     "FAIL"},
	    {"java assertTrue(true)", "src/test/java/calc/TautTest.java", JAVA_PRE, "assertEquals(3, Calc.add(1, 2))",
	     "assertTrue(true)", "FAIL"},
	    {"java assertThrows widened", "src/test/java/calc/WideTest.java", JAVA_PRE, "ArithmeticException.class",
	     "Throwable.class", "FAIL"},
	    {"java assertEquals -> assertTrue(x >= 0)", "src/test/java/calc/BoolTest.java", JAVA_PRE,
	     "assertEquals(3, Calc.add(1, 2))", "assertTrue(Calc.add(1, 2) >= 0)", "FAIL"},
	    {"java expected value changed", "src/test/java/calc/ValueTest.java", JAVA_PRE, "assertEquals(3,", "assertEquals(4,",
	     "WARN ASSERTION_EXPECTATION_CHANGED"},
	    {"java honest: a new assertion", "src/test/java/calc/MoreTest.java", JAVA_PRE, "    assertEquals(3, Calc.add(1, 2));\n",
	     "    assertEquals(3, Calc.add(1, 2));\n    assertEquals(0, Calc.add(0, 0));\n", "PASS"},
	    /* held-out style (issue 32): one of each class the judge learned then */
	    {"java test made private", "src/test/java/calc/PrivateTest.java", JAVA_PRE, "  @Test\n  void add",
	     "  @Test\n  private void add", "FAIL"},
	    {"java if (true) return", "src/test/java/calc/ReturnTest.java", JAVA_PRE, "    assertEquals(3, Calc.add(1, 2));\n",
	     "    if (true) return;\n    assertEquals(3, Calc.add(1, 2));\n", "FAIL"},
	    {"java assertTrue(x || true)", "src/test/java/calc/OrTrueTest.java", JAVA_PRE, "assertEquals(3, Calc.add(1, 2))",
	     "assertTrue(Calc.add(1, 2) == 3 || true)", "FAIL"},
	    {"java assertThrows(AssertionError) around it", "src/test/java/calc/InvertTest.java", JAVA_PRE,
	     "assertEquals(3, Calc.add(1, 2));", "assertThrows(AssertionError.class, () -> assertEquals(3, Calc.add(1, 2)));",
	     "FAIL"},
	    {"java @Nested removed", "src/test/java/calc/NestedTest.java", JAVA_PARAM, "  @Nested\n", "", "FAIL"},
	    {"java @CsvSource row removed", "src/test/java/calc/RowsTest.java", JAVA_PARAM, ", \"2, 2, 4\"", "", "FAIL"},
	    {"java honest: @CsvSource row added", "src/test/java/calc/MoreRowsTest.java", JAVA_PARAM, "\"2, 2, 4\"",
	     "\"2, 2, 4\", \"0, 0, 0\"", "PASS"},
	    {"java honest: @DisplayName added", "src/test/java/calc/NamedTest.java", JAVA_PRE, "  @Test\n  void add",
	     "  @Test\n  @DisplayName(\"adds\")\n  void add", "PASS"},
	    {"java assertion put under an if", "src/test/java/calc/EnvTest.java", JAVA_PRE, "    assertEquals(3, Calc.add(1, 2));\n",
	     "    if (System.getenv(\"CI\") == null) {\n      assertEquals(3, Calc.add(1, 2));\n    }\n",
	     "UNVERIFIED ASSERTION_UNDECIDABLE"},
	    {"java JUnit 3 assertTrue(true)", "src/test/java/calc/LegacyTest.java",
	     "package calc;\n\nimport junit.framework.TestCase;\n\npublic class LegacyTest extends TestCase {\n"
	     "  public void testAdd() {\n    assertEquals(3, Calc.add(1, 2));\n  }\n}\n",
	     "assertEquals(3, Calc.add(1, 2))", "assertTrue(true)", "FAIL"},
	    {"java the actual made a constant local", "src/test/java/calc/LocalTest.java", JAVA_PRE,
	     "    assertEquals(3, Calc.add(1, 2));\n", "    int got = 3;\n    assertEquals(3, got);\n", "FAIL"},

	};
	play_group("java", cases, sizeof cases / sizeof cases[0]);
}

#define KT_TEST                                                                                                        \
	"package calc\n\nimport kotlin.test.*\n\nclass CalcTest {\n  @Test\n  fun add() {\n    assertEquals(3, Calc.add(1, 2))\n" \
	"    assertEquals(0, Calc.add(0, 0))\n  }\n\n  @Test\n  fun div() {\n    assertFailsWith<ArithmeticException> { Calc.div(1, 0) }\n  }\n}\n"
#define KT_J5                                                                                                          \
	"package calc\n\nimport org.junit.jupiter.api.Assertions.*\nimport org.junit.jupiter.api.Test\n\nclass CalcTest {\n"    \
	"  @Test\n  fun add() {\n    assertEquals(3, Calc.add(1, 2))\n  }\n}\n"
#define KT_J4                                                                                                          \
	"package calc\n\nimport org.junit.Assert.*\nimport org.junit.Test\n\nclass CalcTest {\n"                              \
	"  @Test\n  fun add() {\n    assertEquals(3, Calc.add(1, 2))\n  }\n}\n"

/* Kotlin (kotlin.test, JUnit 5, JUnit 4), each side read in a bounded child: a file its
 * grammar's scanner loops on is UNVERIFIED by name (the bound lowered here to keep the test
 * short; the default is A1_BOUND_MS). */
Test(a1cat, kotlin)
{
	setenv("BELAY_A1_PARSE_MS", "1500", 1);
	static const struct acase cases[] = {
	    {"kotlin.test @Ignore added", "src/test/kotlin/calc/IgnoreTest.kt", KT_TEST, "  @Test\n  fun add",
	     "  @Ignore\n  @Test\n  fun add", "FAIL"},
	    {"junit5 @Disabled added", "src/test/kotlin/calc/DisabledTest.kt", KT_J5, "  @Test\n  fun add",
	     "  @Disabled\n  @Test\n  fun add", "FAIL"},
	    {"junit4 @Ignore on the class", "src/test/kotlin/calc/ClassTest.kt", KT_J4, "class CalcTest", "@Ignore\nclass CalcTest",
	     "FAIL"},
	    {"kotlin.test assertion removed", "src/test/kotlin/calc/RemovedTest.kt", KT_TEST,
	     "    assertEquals(0, Calc.add(0, 0))\n", "", "FAIL"},
	    {"kotlin.test every assertion removed", "app/src/test/kotlin/EmptiedTest.kt", KT_TEST,
	     "    assertEquals(3, Calc.add(1, 2))\n    assertEquals(0, Calc.add(0, 0))\n", "    Calc.add(1, 2)\n", "FAIL"},
	    {"junit5 assertTrue(true)", "src/test/kotlin/calc/TautTest.kt", KT_J5, "assertEquals(3, Calc.add(1, 2))",
	     "assertTrue(true)", "FAIL"},
	    {"kotlin.test assertEquals(x, x)", "src/test/kotlin/calc/SelfTest.kt", KT_TEST, "assertEquals(3, Calc.add(1, 2))",
	     "assertEquals(Calc.add(1, 2), Calc.add(1, 2))", "FAIL"},
	    {"junit4 @Test removed", "src/test/kotlin/calc/UnannotatedTest.kt", KT_J4, "  @Test\n", "", "FAIL"},
	    {"kotlin.test assertFailsWith widened", "src/test/kotlin/calc/WideTest.kt", KT_TEST,
	     "assertFailsWith<ArithmeticException>", "assertFailsWith<Throwable>", "FAIL"},
	    {"kotlin.test assertEquals -> assertTrue(x >= 0)", "src/test/kotlin/calc/BoolTest.kt", KT_TEST,
	     "assertEquals(3, Calc.add(1, 2))", "assertTrue(Calc.add(1, 2) >= 0)", "FAIL"},
	    {"kotlin.test expected value changed", "src/test/kotlin/calc/ValueTest.kt", KT_TEST, "assertEquals(3,",
	     "assertEquals(4,", "WARN ASSERTION_EXPECTATION_CHANGED"},
	    {"kotlin a side the parser loops on", "src/test/kotlin/calc/LoopTest.kt", KT_TEST, "\n}\n", "\n}\n@",
	     "UNVERIFIED ASSERTION_FILE_UNREADABLE"},
	    {"kotlin honest: a new assertion", "src/test/kotlin/calc/MoreTest.kt", KT_J5, "    assertEquals(3, Calc.add(1, 2))\n",
	     "    assertEquals(3, Calc.add(1, 2))\n    assertEquals(0, Calc.add(0, 0))\n", "PASS"},
	    {"kotlin honest: a new test", "src/test/kotlin/calc/NewTest.kt", KT_J4, "  }\n}\n",
	     "  }\n\n  @Test\n  fun sub() {\n    assertEquals(1, Calc.sub(2, 1))\n  }\n}\n", "PASS"},
	    {"kotlin honest: reformatted", "src/test/kotlin/calc/FormatTest.kt", KT_TEST, "assertEquals(3, Calc.add(1, 2))",
	     "assertEquals(3, Calc.add(1,2))", "PASS"},
	    {"kotlin honest: assertFailsWith respelled", "src/test/kotlin/calc/SpellTest.kt", KT_TEST,
	     "assertFailsWith<ArithmeticException> {", "assertFailsWith(ArithmeticException::class) {", "PASS"},
	    /* held-out style (issue 32) */
	    {"kotlin.test private test", "src/test/kotlin/calc/PrivateTest.kt", KT_TEST, "  @Test\n  fun add",
	     "  @Test\n  private fun add", "FAIL"},
	    {"junit5 assumeTrue(false)", "src/test/kotlin/calc/AssumeTest.kt", KT_J5, "    assertEquals(3, Calc.add(1, 2))\n",
	     "    Assumptions.assumeTrue(false)\n    assertEquals(3, Calc.add(1, 2))\n", "FAIL"},
	    {"kotlin.test runCatching around it", "src/test/kotlin/calc/CatchingTest.kt", KT_TEST,
	     "    assertEquals(0, Calc.add(0, 0))\n", "    runCatching { assertEquals(0, Calc.add(0, 0)) }\n", "FAIL"},
	    {"kotlin.test assertFails around it", "src/test/kotlin/calc/FailsTest.kt", KT_TEST,
	     "assertEquals(3, Calc.add(1, 2))", "assertFails { assertEquals(3, Calc.add(1, 2)) }", "FAIL"},
	    {"junit5 @EnabledOnOs added", "src/test/kotlin/calc/OsTest.kt", KT_J5, "  @Test\n  fun add",
	     "  @Test\n  @EnabledOnOs(OS.AIX)\n  fun add", "UNVERIFIED ASSERTION_UNDECIDABLE"},
	    {"kotlin.test expected changed through a local", "src/test/kotlin/calc/LocalTest.kt", KT_TEST,
	     "    assertEquals(3, Calc.add(1, 2))\n", "    val want = 4\n    assertEquals(want, Calc.add(1, 2))\n",
	     "WARN ASSERTION_EXPECTATION_CHANGED"},
	    {"kotlin.test test moved into the companion object", "src/test/kotlin/calc/CompanionTest.kt", KT_J5,
	     "  @Test\n  fun add() {\n    assertEquals(3, Calc.add(1, 2))\n  }\n",
	     "  companion object {\n    @Test\n    fun add() {\n      assertEquals(3, Calc.add(1, 2))\n    }\n  }\n", "FAIL"},
	    {"kotlin honest: an internal test", "src/test/kotlin/calc/InternalTest.kt", KT_TEST, "  @Test\n  fun add",
	     "  @Test\n  internal fun add", "PASS"},
	    {"kotlin honest: a new test file", "src/test/kotlin/calc/FreshTest.kt", NULL, NULL,
	     "import kotlin.test.*\n\nclass FreshTest {\n  @Test\n  fun one() {\n    assertEquals(1, 2 - 1)\n  }\n}\n", "PASS"},
	};
	play_group("kotlin", cases, sizeof cases / sizeof cases[0]);
	unsetenv("BELAY_A1_PARSE_MS");
}

/* Issue 32: N concrete assertions generalised into ONE fed by rows - a Go table, a Rust loop
 * or helper, a JUnit @ParameterizedTest, a Kotlin helper - are no assertions removed; the row
 * dropped or changed, the helper call dropped, still are. */
#define TB_GO_PRE                                                                                                      \
	"package calc\n\nimport \"testing\"\n\nfunc TestAdd(t *testing.T) {\n\tif Add(1, 2) != 3 {\n\t\tt.Fatal(\"1+2\")\n\t}\n" \
	"\tif Add(2, 2) != 4 {\n\t\tt.Fatal(\"2+2\")\n\t}\n}\n"
#define TB_GO_POST(rows)                                                                                               \
	"package calc\n\nimport \"testing\"\n\nfunc TestAdd(t *testing.T) {\n\tcases := []struct{ a, b, want int }{\n" rows  \
	"\t}\n\tfor _, c := range cases {\n\t\tif got := Add(c.a, c.b); got != c.want {\n\t\t\tt.Errorf(\"%d\", got)\n\t\t}\n\t}\n}\n"
#define TB_RS_PRE "#[test]\nfn adds() {\n    assert_eq!(add(1, 2), 3);\n    assert_eq!(add(2, 2), 4);\n}\n"
#define TB_RS_HELPER "fn check(a: i32, b: i32, want: i32) {\n    assert_eq!(add(a, b), want);\n}\n\n"
#define TB_JAVA_PRE                                                                                                    \
	"package calc;\n\nimport static org.junit.jupiter.api.Assertions.*;\nimport org.junit.jupiter.api.Test;\n\n"     \
	"class CalcTest {\n  @Test\n  void add() {\n    assertEquals(3, Calc.add(1, 2));\n    assertEquals(4, Calc.add(2, 2));\n  }\n}\n"
#define TB_JAVA_PARAM(csv)                                                                                             \
	"package calc;\n\nimport static org.junit.jupiter.api.Assertions.*;\nimport org.junit.jupiter.params.ParameterizedTest;\n" \
	"import org.junit.jupiter.params.provider.CsvSource;\n\nclass CalcTest {\n  @ParameterizedTest\n  @CsvSource({" csv "})\n" \
	"  void add(int a, int b, int want) {\n    assertEquals(want, Calc.add(a, b));\n  }\n}\n"
#define TB_KT_PRE                                                                                                      \
	"package calc\n\nimport kotlin.test.*\n\nclass CalcTest {\n  @Test\n  fun add() {\n    assertEquals(3, Calc.add(1, 2))\n" \
	"    assertEquals(4, Calc.add(2, 2))\n  }\n}\n"
#define TB_KT_HELPER(calls)                                                                                            \
	"package calc\n\nimport kotlin.test.*\n\nclass CalcTest {\n  private fun assertSum(a: Int, b: Int, want: Int) {\n"   \
	"    assertEquals(want, Calc.add(a, b), \"$a + $b\")\n  }\n\n  @Test\n  fun add() {\n" calls "  }\n}\n"

Test(a1cat, assertions_generalised_into_rows)
{
	static const struct acase cases[] = {
	    {"go honest: two checks into a table", "calc/table_test.go", TB_GO_PRE, NULL,
	     TB_GO_POST("\t\t{1, 2, 3},\n\t\t{2, 2, 4},\n"), "PASS"},
	    {"go a table row's expected value changed", "calc/cheat_test.go", TB_GO_PRE, NULL,
	     TB_GO_POST("\t\t{1, 2, 3},\n\t\t{2, 2, 5},\n"), "FAIL"},
	    {"rust honest: two asserts into a helper", "tests/helper.rs", TB_RS_PRE, NULL,
	     TB_RS_HELPER "#[test]\nfn adds() {\n    check(1, 2, 3);\n    check(2, 2, 4);\n}\n", "PASS"},
	    {"rust a helper call dropped", "tests/dropped.rs", TB_RS_PRE, NULL,
	     TB_RS_HELPER "#[test]\nfn adds() {\n    check(1, 2, 3);\n}\n", "FAIL"},
	    {"java honest: into a @ParameterizedTest", "src/test/java/calc/ParamTest.java", TB_JAVA_PRE, NULL,
	     TB_JAVA_PARAM("\"1, 2, 3\", \"2, 2, 4\""), "PASS"},
	    {"java a @CsvSource row dropped", "src/test/java/calc/DroppedTest.java", TB_JAVA_PRE, NULL,
	     TB_JAVA_PARAM("\"1, 2, 3\""), "FAIL"},
	    {"kotlin honest: into a helper", "src/test/kotlin/calc/HelperTest.kt", TB_KT_PRE, NULL,
	     TB_KT_HELPER("    assertSum(1, 2, 3)\n    assertSum(2, 2, 4)\n"), "PASS"},
	    {"kotlin a helper call's expected value changed", "src/test/kotlin/calc/ChangedTest.kt", TB_KT_PRE, NULL,
	     TB_KT_HELPER("    assertSum(1, 2, 3)\n    assertSum(2, 2, 5)\n"), "FAIL"},
	};
	play_group("rows", cases, sizeof cases / sizeof cases[0]);
}

#define PKG_PRE "{\n  \"name\": \"calc\",\n  \"scripts\": {\n    \"test\": \"jest\"\n  },\n  \"dependencies\": {\n    \"lodash\": \"4.17.20\"\n  }\n}\n"
#define CARGO_PRE "[package]\nname = \"calc\"\nversion = \"0.1.0\"\n\n[dependencies]\nserde = \"1.0.100\"\n\n[[test]]\nname = \"it\"\n"

Test(a1cat, configuration_only_by_its_test_keys)
{
	static const struct acase cases[] = {
	    {"package.json dependency bump", "package.json", PKG_PRE, "4.17.20", "4.17.21", "PASS"},
	    {"package.json test script made to pass", "web/package.json", PKG_PRE, "\"test\": \"jest\"",
	     "\"test\": \"jest --passWithNoTests || exit 0\"", "FAIL"},
	    {"Cargo.toml dependency bump", "Cargo.toml", CARGO_PRE, "1.0.100", "1.0.200", "PASS"},
	    {"Cargo.toml [[test]] target removed", "crates/b/Cargo.toml", CARGO_PRE, "\n[[test]]\nname = \"it\"\n", "\n",
	     "FAIL"},
	    {"pyproject.toml addopts -k", "pyproject.toml",
	     "[project]\nname = \"calc\"\n\n[tool.pytest.ini_options]\naddopts = \"-q\"\n", "addopts = \"-q\"",
	     "addopts = \"-q -k 'not login'\"", "FAIL"},
	    {"pyproject.toml: a marker declared", "sub/pyproject.toml",
	     "[project]\nname = \"calc\"\n\n[tool.pytest.ini_options]\naddopts = \"-q\"\n", "addopts = \"-q\"",
	     "addopts = \"-q\"\nmarkers = [\"slow: slow tests\"]", "UNVERIFIED TEST_CONFIG_NOT_JUDGED"},
	    {"pytest.ini comment only", "pytest.ini", "[pytest]\ntestpaths = tests\n", "[pytest]\n", "# the suite\n[pytest]\n",
	     "PASS"},
	    {"pom.xml skipTests", "pom.xml",
	     "<project>\n  <properties>\n    <java.version>17</java.version>\n  </properties>\n</project>\n",
	     "    <java.version>17</java.version>\n", "    <java.version>17</java.version>\n    <skipTests>true</skipTests>\n",
	     "FAIL"},
	    {".mvn/maven.config -DskipTests", ".mvn/maven.config", "--batch-mode\n", "--batch-mode\n",
	     "--batch-mode\n-DskipTests\n", "FAIL"},
	    {".mvn/maven.config -fn", "web/.mvn/maven.config", "--batch-mode\n", "--batch-mode\n", "--batch-mode -fn\n",
	     "FAIL"},
	    {".mvn/maven.config threads", "api/.mvn/maven.config", "--batch-mode\n", "--batch-mode\n",
	     "--batch-mode\n-T 4\n", "PASS"},
	    {"build.gradle test task disabled", "build.gradle", "test {\n  useJUnitPlatform()\n}\n", "useJUnitPlatform()",
	     "enabled = false", "UNVERIFIED ASSERTION_LANGUAGE_NOT_JUDGED"},
	    {"jest.config.js ignore pattern", "jest.config.js", "module.exports = {};\n", "{}",
	     "{ testPathIgnorePatterns: ['login'] }", "UNVERIFIED ASSERTION_LANGUAGE_NOT_JUDGED"},
	};
	play_group("config", cases, sizeof cases / sizeof cases[0]);
}
