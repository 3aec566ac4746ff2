/* test_weakening.c - the A1 rule no-assertion-weakening (src/verify/weakening.c, judging Python
 * with assertions/a1_py.c) on scratch pre/post trees. Each test builds a pre tree and a post
 * tree, names the changed paths the way the replay delta would, and checks the verdict, the
 * cause, the findings and the exposure counts. Python is judged in process (assertions/a1_py.h). */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/buf.h"
#include "common/fsutil.h"
#include "common/jsonx.h"
#include "common/xalloc.h"
#include "tsupport.h"
#include "verify/weakening.h"

struct fx {
	char *dir, *pre, *post;
};

static struct fx fx_new(void)
{
	struct fx f;
	f.dir = ts_tmpdir("weak");
	f.pre = fs_join(f.dir, "pre");
	f.post = fs_join(f.dir, "post");
	cr_assert_eq(mkdir(f.pre, 0755), 0);
	cr_assert_eq(mkdir(f.post, 0755), 0);
	return f;
}

static void fx_free(struct fx *f)
{
	ts_rmtree(f->dir);
	free(f->dir);
	free(f->pre);
	free(f->post);
}

/* Writes root/rel (creating parents); content NULL writes nothing. */
static void put_n(const char *root, const char *rel, const char *content, size_t n)
{
	if (!content)
		return;
	char *path = fs_join(root, rel);
	char *dir = xstrdup(path);
	*strrchr(dir, '/') = '\0';
	struct err e;
	cr_assert_eq(fs_mkdir_p(dir, 0755, &e), 0, "%s", e.msg);
	ts_write_file(path, content, n);
	free(dir);
	free(path);
}

static void put(const char *root, const char *rel, const char *content)
{
	if (content)
		put_n(root, rel, content, strlen(content));
}

/* Both sides of one file (NULL = absent on that side). */
static void pair(struct fx *f, const char *rel, const char *pre, const char *post)
{
	put(f->pre, rel, pre);
	put(f->post, rel, post);
}

static void run(struct fx *f, const char *const *changed, const char *scope, struct weakening_result *r)
{
	struct weakening_input in = {.pre_root = f->pre, .post_root = f->post, .changed = changed, .scope = scope};
	struct err e = {0};
	int rc = weakening_check(&in, r, &e);
	cr_assert_eq(rc, 0, "weakening_check: %s", e.msg);
	cr_assert_not_null(r->message);
	cr_assert_not_null(r->findings);
}

/* Number of findings named `what` (any file). */
static int count_finding(const struct weakening_result *r, const char *what)
{
	int n = 0;
	const cJSON *it;
	cJSON_ArrayForEach(it, r->findings)
	{
		const char *w = jx_str(it, "finding");
		n += w && strcmp(w, what) == 0;
	}
	return n;
}

static const cJSON *first_finding(const struct weakening_result *r, const char *what)
{
	const cJSON *it;
	cJSON_ArrayForEach(it, r->findings)
	{
		const char *w = jx_str(it, "finding");
		if (w && strcmp(w, what) == 0)
			return it;
	}
	return NULL;
}

#define expect_status(r, st, c)                                                                                        \
	do {                                                                                                           \
		char *js_ = jx_print((r)->findings);                                                                   \
		cr_assert_eq((r)->status, (st), "status %d, want %d: %s | %s", (r)->status, (st), (r)->message, js_);  \
		cr_assert_str_eq((r)->cause, (c), "cause %s: %s", (r)->cause, (r)->message);                           \
		free(js_);                                                                                             \
	} while (0)

/*==== findings ==============================================================================*/

Test(weakening, removed_assert_fails)
{
	struct fx f = fx_new();
	pair(&f, "tests/test_calc.py", "def test_add():\n    assert add(1, 2) == 3\n    assert add(0, 0) == 0\n",
	     "def test_add():\n    assert add(1, 2) == 3\n");
	const char *changed[] = {"tests/test_calc.py", NULL};
	struct weakening_result r;
	run(&f, changed, "tests", &r);
	expect_status(&r, WEAKENING_FAIL, "");
	const cJSON *fi = first_finding(&r, "assertion-removed");
	cr_assert_not_null(fi, "%s", r.message);
	cr_assert_str_eq(jx_str(fi, "file"), "tests/test_calc.py");
	cr_assert_str_eq(jx_str(fi, "function"), "test_add");
	cr_assert_str_eq(jx_str(fi, "pre"), "add(0, 0) == 0");
	cr_assert(cJSON_IsNull(cJSON_GetObjectItem(fi, "post")));
	cr_assert_eq(r.compared, 1);
	cr_assert_eq(r.in_scope, 1);
	cr_assert(strstr(r.message, "tests/test_calc.py") && strstr(r.message, "assertion-removed"), "%s", r.message);
	weakening_result_free(&r);
	fx_free(&f);
}

Test(weakening, tautology_replacement_fails)
{
	static const char *const tauts[] = {
	    "True", "1", "x == x", "not False", "(result, 'message')", "'text'", "x is x", "True or result == 3"};
	for (size_t i = 0; i < sizeof tauts / sizeof *tauts; i++) {
		struct fx f = fx_new();
		char *post = xasprintf("def test_it():\n    result = compute()\n    assert %s\n", tauts[i]);
		pair(&f, "tests/test_t.py", "def test_it():\n    result = compute()\n    assert result == 42\n", post);
		const char *changed[] = {"tests/test_t.py", NULL};
		struct weakening_result r;
		run(&f, changed, "tests", &r);
		expect_status(&r, WEAKENING_FAIL, "");
		const cJSON *fi = first_finding(&r, "replaced-by-tautology");
		cr_assert_not_null(fi, "assert %s: %s", tauts[i], r.message);
		cr_assert_str_eq(jx_str(fi, "pre"), "result == 42");
		weakening_result_free(&r);
		free(post);
		fx_free(&f);
	}
}

Test(weakening, unittest_tautology_fails)
{
	struct fx f = fx_new();
	pair(&f, "tests/test_u.py",
	     "import unittest\nclass T(unittest.TestCase):\n    def test_a(self):\n        self.assertEqual(f(), 3)\n",
	     "import unittest\nclass T(unittest.TestCase):\n    def test_a(self):\n        self.assertTrue(True)\n");
	const char *changed[] = {"tests/test_u.py", NULL};
	struct weakening_result r;
	run(&f, changed, "tests", &r);
	expect_status(&r, WEAKENING_FAIL, "");
	const cJSON *fi = first_finding(&r, "replaced-by-tautology");
	cr_assert_not_null(fi, "%s", r.message);
	cr_assert_str_eq(jx_str(fi, "function"), "T.test_a");
	weakening_result_free(&r);
	fx_free(&f);
}

Test(weakening, function_lost_every_assertion_fails)
{
	struct fx f = fx_new();
	pair(&f, "tests/test_a.py",
	     "def test_one():\n    assert one() == 1\n    assert two() == 2\n\ndef test_other():\n    assert 3\n",
	     "def test_one():\n    one()\n    two()\n\ndef test_other():\n    assert 3\n");
	const char *changed[] = {"tests/test_a.py", NULL};
	struct weakening_result r;
	run(&f, changed, "tests", &r);
	expect_status(&r, WEAKENING_FAIL, "");
	cr_assert_eq(count_finding(&r, "test-function-lost-every-assertion"), 2, "%s", r.message);
	cr_assert_eq(count_finding(&r, "assertion-removed"), 0);
	weakening_result_free(&r);
	fx_free(&f);
}

Test(weakening, tautology_does_not_count_as_a_surviving_assertion)
{
	struct fx f = fx_new();
	/* The assert was swapped for a unittest-style tautology: another kind, but it asserts nothing. */
	pair(&f, "tests/test_a.py", "def test_one(self):\n    assert one() == 1\n",
	     "def test_one(self):\n    self.assertTrue(True)\n");
	const char *changed[] = {"tests/test_a.py", NULL};
	struct weakening_result r;
	run(&f, changed, "tests", &r);
	expect_status(&r, WEAKENING_FAIL, "");
	cr_assert_eq(count_finding(&r, "test-function-lost-every-assertion"), 1, "%s", r.message);
	weakening_result_free(&r);
	fx_free(&f);
}

Test(weakening, test_function_deleted_fails)
{
	struct fx f = fx_new();
	pair(&f, "tests/test_a.py", "def test_keep():\n    assert keep()\n\ndef test_gone():\n    assert gone() == 1\n",
	     "def test_keep():\n    assert keep()\n");
	const char *changed[] = {"tests/test_a.py", NULL};
	struct weakening_result r;
	run(&f, changed, "tests", &r);
	expect_status(&r, WEAKENING_FAIL, "");
	const cJSON *fi = first_finding(&r, "test-function-deleted");
	cr_assert_not_null(fi, "%s", r.message);
	cr_assert_str_eq(jx_str(fi, "function"), "test_gone");
	weakening_result_free(&r);
	fx_free(&f);
}

Test(weakening, renamed_test_function_passes)
{
	struct fx f = fx_new();
	pair(&f, "tests/test_a.py", "def test_old_name():\n    assert thing() == 1\n",
	     "def test_new_name():\n    assert thing() == 1\n    assert other()\n");
	const char *changed[] = {"tests/test_a.py", NULL};
	struct weakening_result r;
	run(&f, changed, "tests", &r);
	expect_status(&r, WEAKENING_PASS, "");
	weakening_result_free(&r);
	fx_free(&f);
}

Test(weakening, deleted_test_file_fails)
{
	struct fx f = fx_new();
	pair(&f, "tests/test_gone.py", "def test_a():\n    assert a() == 1\n", NULL);
	const char *changed[] = {"tests/test_gone.py", NULL};
	struct weakening_result r;
	run(&f, changed, "tests", &r);
	expect_status(&r, WEAKENING_FAIL, "");
	const cJSON *fi = first_finding(&r, "test-file-deleted");
	cr_assert_not_null(fi, "%s", r.message);
	cr_assert_str_eq(jx_str(fi, "file"), "tests/test_gone.py");
	cr_assert_eq(r.compared, 1);
	weakening_result_free(&r);
	fx_free(&f);
}

Test(weakening, deleted_file_without_assertions_passes)
{
	struct fx f = fx_new();
	pair(&f, "tests/helpers.py", "def make():\n    return 1\n", NULL);
	const char *changed[] = {"tests/helpers.py", NULL};
	struct weakening_result r;
	run(&f, changed, "tests", &r);
	expect_status(&r, WEAKENING_PASS, "");
	weakening_result_free(&r);
	fx_free(&f);
}

Test(weakening, rename_with_superset_passes)
{
	struct fx f = fx_new();
	const char *src = "def test_a():\n    assert a() == 1\n    assert b() == 2\n";
	pair(&f, "tests/test_old.py", src, NULL);
	pair(&f, "tests/test_new.py", NULL,
	     "import os\n\ndef test_a():\n    assert a() == 1\n    assert b() == 2\n    assert c() == 3\n");
	const char *changed[] = {"tests/test_old.py", "tests/test_new.py", NULL};
	struct weakening_result r;
	run(&f, changed, "tests", &r);
	expect_status(&r, WEAKENING_PASS, "");
	cr_assert(strstr(r.message, "renamed to tests/test_new.py"), "%s", r.message);
	cr_assert_eq(r.in_scope, 2);
	weakening_result_free(&r);
	fx_free(&f);
}

Test(weakening, rename_out_of_scope_passes_but_subset_fails)
{
	struct fx f = fx_new();
	pair(&f, "tests/test_old.py", "def test_a():\n    assert a() == 1\n    assert b() == 2\n", NULL);
	pair(&f, "moved/test_old.py", NULL, "def test_a():\n    assert a() == 1\n    assert b() == 2\n");
	const char *changed[] = {"tests/test_old.py", "moved/test_old.py", NULL};
	struct weakening_result r;
	run(&f, changed, "tests", &r);
	expect_status(&r, WEAKENING_PASS, "");
	cr_assert_eq(r.in_scope, 1);
	weakening_result_free(&r);

	/* The added file lacks one of the deleted file's assertions: not a rename. */
	put(f.post, "moved/test_old.py", "def test_a():\n    assert a() == 1\n");
	run(&f, changed, "tests", &r);
	expect_status(&r, WEAKENING_FAIL, "");
	cr_assert_eq(count_finding(&r, "test-file-deleted"), 1);
	weakening_result_free(&r);
	fx_free(&f);
}

Test(weakening, added_test_passes)
{
	struct fx f = fx_new();
	pair(&f, "tests/test_new.py", NULL, "def test_x():\n    assert True\n");
	const char *changed[] = {"tests/test_new.py", NULL};
	struct weakening_result r;
	run(&f, changed, "tests", &r);
	expect_status(&r, WEAKENING_PASS, "");
	cr_assert_eq(r.compared, 0);
	cr_assert_eq(r.in_scope, 1);
	cr_assert(strstr(r.message, "1 added"), "%s", r.message);
	weakening_result_free(&r);
	fx_free(&f);
}

/* An expected value changed to another literal may be a changed specification or a test bent
 * to the code: WARN, never PASS and never FAIL. Another subject is not an expectation change. */
Test(weakening, changed_expected_value_warns)
{
	struct fx f = fx_new();
	pair(&f, "tests/test_v.py",
	     "def test_v():\n    assert version() == '1.2'\n    assert len(items()) == 3, 'three items'\n",
	     "def test_v():\n    assert version() == '1.3'\n    assert len(items()) == 4, 'now four'\n");
	const char *changed[] = {"tests/test_v.py", NULL};
	struct weakening_result r;
	run(&f, changed, "tests", &r);
	expect_status(&r, WEAKENING_WARN, WEAKENING_EXPECTATION_CHANGED);
	cr_assert_eq(r.compared, 1);
	cr_assert_eq(count_finding(&r, "expected-value-changed"), 2);
	cr_assert(strstr(r.message, "version() == '1.2'") && strstr(r.message, "version() == '1.3'"), "%s", r.message);
	weakening_result_free(&r);
	pair(&f, "tests/test_w.py", "def test_w():\n    assert a(1) == 3\n", "def test_w():\n    assert a(2) == 3\n");
	const char *other[] = {"tests/test_w.py", NULL};
	run(&f, other, "tests", &r);
	expect_status(&r, WEAKENING_PASS, "");
	weakening_result_free(&r);
	fx_free(&f);
}

/* An exact unittest check whose successor asserts a looser comparison of the same value as a
 * boolean (assertTrue(x >= 0)) is loosened; the boolean form of the same check, a stricter
 * check, one added beside, one kept are not. */
Test(weakening, python_exact_check_to_a_boolean_of_a_looser_comparison)
{
#define UT(stmts) "import unittest\n\nclass T(unittest.TestCase):\n    def test_add(self):\n" stmts
#define EQ3 "        self.assertEqual(add(1, 2), 3)\n"
	static const char *const cheats[][2] = {
	    {UT(EQ3), UT("        self.assertTrue(add(1, 2) >= 0)\n")},
	    {UT(EQ3), UT("        self.assertTrue(0 <= add(1, 2))\n")},
	    {UT(EQ3), UT("        self.assertTrue(add(1, 2) != 4)\n")},
	    {UT(EQ3), UT("        self.assertTrue(add(1, 2) is not None)\n")},
	    {UT(EQ3), UT("        self.assertTrue(add(1, 2) == 3 or add(1, 2) == 4)\n")},
	    {UT("        self.assertTrue(add(1, 2) == 3)\n"), UT("        self.assertTrue(add(1, 2) > 0)\n")},
	    /* across kinds: a unittest check and a bare assert */
	    {UT(EQ3), UT("        assert add(1, 2) >= 0\n")},
	    {UT("        assert add(1, 2) == 3\n"), UT("        self.assertTrue(add(1, 2) >= 0)\n")},
	};
	static const char *const honest[][2] = {
	    {UT(EQ3), UT("        self.assertTrue(add(1, 2) == 3)\n")},
	    {UT("        self.assertTrue(add(1, 2) == 3)\n"), UT(EQ3)},
	    {UT("        self.assertTrue(add(1, 2) >= 0)\n"), UT(EQ3)},
	    {UT(EQ3), UT(EQ3 "        self.assertTrue(add(1, 2) >= 0)\n")},
	    {UT("        self.assertTrue(add(1, 2) >= 0)\n"), UT("        self.assertTrue(add(1, 2) >= 0)\n" EQ3)},
	};
#undef UT
#undef EQ3
	const char *changed[] = {"tests/test_a.py", NULL};
	for (size_t i = 0; i < sizeof cheats / sizeof *cheats; i++) {
		struct fx f = fx_new();
		pair(&f, "tests/test_a.py", cheats[i][0], cheats[i][1]);
		struct weakening_result r;
		run(&f, changed, "tests", &r);
		cr_expect_eq(r.status, WEAKENING_FAIL, "cheat %zu: %s", i, r.message);
		cr_expect_eq(count_finding(&r, "comparison-loosened"), 1, "cheat %zu: %s", i, r.message);
		weakening_result_free(&r);
		fx_free(&f);
	}
	for (size_t i = 0; i < sizeof honest / sizeof *honest; i++) {
		struct fx f = fx_new();
		pair(&f, "tests/test_a.py", honest[i][0], honest[i][1]);
		struct weakening_result r;
		run(&f, changed, "tests", &r);
		cr_expect_eq(r.status, WEAKENING_PASS, "honest %zu: %s", i, r.message);
		weakening_result_free(&r);
		fx_free(&f);
	}
}

Test(weakening, reformatting_and_merging_pass)
{
	struct fx f = fx_new();
	pair(&f, "tests/test_f.py", "def test_f():\n    assert (a)\n    assert b == [1,2,]\n",
	     "def test_f():\n    assert a and b == [1, 2]\n");
	const char *changed[] = {"tests/test_f.py", NULL};
	struct weakening_result r;
	run(&f, changed, "tests", &r);
	expect_status(&r, WEAKENING_PASS, "");
	weakening_result_free(&r);
	fx_free(&f);
}

Test(weakening, dropped_conjunct_fails)
{
	struct fx f = fx_new();
	pair(&f, "tests/test_f.py", "def test_f():\n    assert a() and b()\n", "def test_f():\n    assert a()\n");
	const char *changed[] = {"tests/test_f.py", NULL};
	struct weakening_result r;
	run(&f, changed, "tests", &r);
	expect_status(&r, WEAKENING_FAIL, "");
	cr_assert_eq(count_finding(&r, "assertion-loosened"), 1, "%s", r.message);
	weakening_result_free(&r);
	fx_free(&f);
}

Test(weakening, glob_loosened_fails_and_tightened_passes)
{
	struct fx f = fx_new();
	pair(&f, "testing/test_g.py", "def test_g(r):\n    r.stdout.fnmatch_lines(['*1 passed*', 'a[bc]d'])\n",
	     "def test_g(r):\n    r.stdout.fnmatch_lines(['*', 'a?d'])\n");
	const char *changed[] = {"testing/test_g.py", NULL};
	struct weakening_result r;
	run(&f, changed, "testing", &r);
	expect_status(&r, WEAKENING_FAIL, "");
	cr_assert_eq(count_finding(&r, "glob-pattern-loosened"), 2, "%s", r.message);
	weakening_result_free(&r);

	put(f.post, "testing/test_g.py", "def test_g(r):\n    r.stdout.fnmatch_lines(['*1 passed in*', 'a[b]d'])\n");
	run(&f, changed, "testing", &r);
	expect_status(&r, WEAKENING_PASS, "");
	weakening_result_free(&r);

	/* Outside the decidable fragment (a backslash in a class): abstain. */
	put(f.post, "testing/test_g.py", "def test_g(r):\n    r.stdout.fnmatch_lines(['*1 passed*', 'a[\\\\c]d'])\n");
	run(&f, changed, "testing", &r);
	expect_status(&r, WEAKENING_UNVERIFIED, WEAKENING_UNDECIDABLE);
	cr_assert_eq(count_finding(&r, "glob-subsumption-undecidable"), 1, "%s", r.message);
	weakening_result_free(&r);
	fx_free(&f);
}

Test(weakening, regex_changed_abstains)
{
	struct fx f = fx_new();
	pair(&f, "tests/test_r.py", "def test_r(r):\n    r.stdout.re_match_lines([r'.*1 passed.*'])\n",
	     "def test_r(r):\n    r.stdout.re_match_lines([r'.*'])\n");
	const char *changed[] = {"tests/test_r.py", NULL};
	struct weakening_result r;
	run(&f, changed, "tests", &r);
	expect_status(&r, WEAKENING_UNVERIFIED, WEAKENING_UNDECIDABLE);
	cr_assert_eq(count_finding(&r, "regex-pattern-changed"), 1, "%s", r.message);
	cr_assert_eq(r.compared, 1);
	weakening_result_free(&r);
	fx_free(&f);
}

Test(weakening, kind_changed_abstains)
{
	struct fx f = fx_new();
	pair(&f, "tests/test_k.py", "class T:\n    def test_k(self):\n        assert k() == 1\n",
	     "class T:\n    def test_k(self):\n        self.assertEqual(k(), 1)\n");
	const char *changed[] = {"tests/test_k.py", NULL};
	struct weakening_result r;
	run(&f, changed, "tests", &r);
	expect_status(&r, WEAKENING_UNVERIFIED, WEAKENING_UNDECIDABLE);
	const cJSON *fi = first_finding(&r, "assertion-kind-changed");
	cr_assert_not_null(fi, "%s", r.message);
	cr_assert_str_eq(jx_str(fi, "status"), "UNVERIFIED");
	cr_assert_str_eq(jx_str(fi, "cause"), WEAKENING_UNDECIDABLE);
	weakening_result_free(&r);
	fx_free(&f);
}

Test(weakening, unittest_assert_removed_fails)
{
	struct fx f = fx_new();
	pair(&f, "tests/test_u.py",
	     "import unittest\n\nclass TestU(unittest.TestCase):\n    def test_u(self):\n"
	     "        self.assertEqual(u(), 1)\n        self.assertIn('x', names())\n        "
	     "m.assert_called_once_with(2)\n",
	     "import unittest\n\nclass TestU(unittest.TestCase):\n    def test_u(self):\n"
	     "        self.assertEqual(u(), 1)\n        m.assert_called_once_with(2)\n");
	const char *changed[] = {"tests/test_u.py", NULL};
	struct weakening_result r;
	run(&f, changed, "tests", &r);
	expect_status(&r, WEAKENING_FAIL, "");
	const cJSON *fi = first_finding(&r, "assertion-removed");
	cr_assert_not_null(fi, "%s", r.message);
	cr_assert_str_eq(jx_str(fi, "function"), "TestU.test_u");
	cr_assert_str_eq(jx_str(fi, "pre"), "self.assertIn('x', names())");
	weakening_result_free(&r);
	fx_free(&f);
}

Test(weakening, pytest_raises_match_removed_fails)
{
	struct fx f = fx_new();
	pair(&f, "tests/test_e.py",
	     "import pytest\n\ndef test_e():\n    with pytest.raises(ValueError, match='bad input'):\n        "
	     "parse('')\n",
	     "import pytest\n\ndef test_e():\n    with pytest.raises(ValueError):\n        parse('')\n");
	const char *changed[] = {"tests/test_e.py", NULL};
	struct weakening_result r;
	run(&f, changed, "tests", &r);
	expect_status(&r, WEAKENING_FAIL, "");
	const cJSON *fi = first_finding(&r, "raises-match-removed");
	cr_assert_not_null(fi, "%s", r.message);
	cr_assert_str_eq(jx_str(fi, "pre"), "pytest.raises(ValueError, match='bad input')");
	cr_assert_str_eq(jx_str(fi, "post"), "pytest.raises(ValueError)");
	weakening_result_free(&r);

	put(f.post, "tests/test_e.py",
	    "import pytest\n\ndef test_e():\n    with pytest.raises(Exception, match='bad input'):\n        "
	    "parse('')\n");
	run(&f, changed, "tests", &r);
	expect_status(&r, WEAKENING_FAIL, "");
	cr_assert_eq(count_finding(&r, "raises-broadened"), 1, "%s", r.message);
	weakening_result_free(&r);

	/* A different expected exception is a changed expectation, not a weakening. */
	put(f.post, "tests/test_e.py",
	    "import pytest\n\ndef test_e():\n    with pytest.raises(TypeError, match='bad input'):\n        "
	    "parse('')\n");
	run(&f, changed, "tests", &r);
	expect_status(&r, WEAKENING_PASS, "");
	weakening_result_free(&r);
	fx_free(&f);
}

Test(weakening, fail_outranks_abstention_across_files)
{
	struct fx f = fx_new();
	pair(&f, "tests/test_1.py", "def test_r(r):\n    r.stdout.re_match_lines(['a+'])\n",
	     "def test_r(r):\n    r.stdout.re_match_lines(['a*'])\n");
	pair(&f, "tests/test_2.py", "def test_x():\n    assert x() == 1\n    assert y() == 2\n",
	     "def test_x():\n    assert x() == 1\n");
	const char *changed[] = {"tests/test_2.py", "tests/test_1.py", "tests/test_2.py", NULL};
	struct weakening_result r;
	run(&f, changed, "tests", &r);
	expect_status(&r, WEAKENING_FAIL, "");
	cr_assert_eq(r.compared, 2);
	cr_assert_eq(r.in_scope, 2, "duplicates in the delta count once");
	cr_assert_eq(cJSON_GetArraySize(r.findings), 2);
	cr_assert_str_eq(jx_str(cJSON_GetArrayItem(r.findings, 0), "file"), "tests/test_1.py", "path order");
	weakening_result_free(&r);
	fx_free(&f);
}

/*==== scope =================================================================================*/

Test(weakening, scope_matches_directory_components)
{
	cr_assert(weakening_in_scope("tests/x.py", "tests"));
	cr_assert(weakening_in_scope("a/tests/x.py", "tests"));
	cr_assert(weakening_in_scope("src/pkg/tests/sub/x.py", "tests"));
	cr_assert(weakening_in_scope("tests/x.py", "tests/"));
	cr_assert(weakening_in_scope("./tests//x.py", "/tests/"));
	cr_assert(weakening_in_scope("a/tests/unit/x.py", "tests/unit"));
	cr_assert(weakening_in_scope("x.py", ""));
	cr_assert(weakening_in_scope("deep/er/x.py", "/"));
	cr_assert_not(weakening_in_scope("testsuite/x.py", "tests"));
	cr_assert_not(weakening_in_scope("contests/x.py", "tests"));
	cr_assert_not(weakening_in_scope("tests.py", "tests"));
	cr_assert_not(weakening_in_scope("a/tests", "tests"), "the file itself is not a directory component");
	cr_assert_not(weakening_in_scope("tests/other/unit/x.py", "tests/unit"));
	cr_assert_not(weakening_in_scope("x.py", "tests"));
}

Test(weakening, scope_selects_files)
{
	struct fx f = fx_new();
	const char *pre = "def test_a():\n    assert a() == 1\n";
	const char *post = "def test_a():\n    pass\n";
	pair(&f, "testsuite/test_a.py", pre, post);
	pair(&f, "contests/test_a.py", pre, post);
	pair(&f, "src/tests_helpers.py", pre, post);
	const char *outside[] = {"testsuite/test_a.py", "contests/test_a.py", "src/tests_helpers.py", NULL};
	struct weakening_result r;
	run(&f, outside, "tests", &r);
	expect_status(&r, WEAKENING_PASS, "");
	cr_assert_eq(r.in_scope, 0);
	cr_assert_eq(r.compared, 0);
	weakening_result_free(&r);

	pair(&f, "pkg/tests/test_a.py", pre, post);
	const char *inside[] = {"testsuite/test_a.py", "pkg/tests/test_a.py", NULL};
	run(&f, inside, "tests", &r);
	expect_status(&r, WEAKENING_FAIL, "");
	cr_assert_eq(r.in_scope, 1);
	cr_assert_str_eq(jx_str(cJSON_GetArrayItem(r.findings, 0), "file"), "pkg/tests/test_a.py");
	weakening_result_free(&r);

	/* Empty scope: the whole tree. */
	run(&f, outside, "", &r);
	expect_status(&r, WEAKENING_FAIL, "");
	cr_assert_eq(r.in_scope, 3);
	cr_assert_eq(r.compared, 3);
	weakening_result_free(&r);
	fx_free(&f);
}

/*==== abstentions ===========================================================================*/

Test(weakening, syntax_error_is_unreadable_not_empty)
{
	struct fx f = fx_new();
	pair(&f, "tests/test_s.py", "def test_s():\n    assert s() == 1\n", "def test_s(:\n    pass\n");
	const char *changed[] = {"tests/test_s.py", NULL};
	struct weakening_result r;
	run(&f, changed, "tests", &r);
	expect_status(&r, WEAKENING_UNVERIFIED, WEAKENING_FILE_UNREADABLE);
	const cJSON *fi = first_finding(&r, "unparseable-source");
	cr_assert_not_null(fi, "%s", r.message);
	cr_assert(cJSON_IsNull(cJSON_GetObjectItem(fi, "pre")));
	cr_assert_not_null(jx_str(fi, "post"));
	cr_assert_eq(r.compared, 0);
	cr_assert_eq(r.in_scope, 1);
	weakening_result_free(&r);
	fx_free(&f);
}

Test(weakening, bad_encoding_is_unreadable)
{
	struct fx f = fx_new();
	/* Declared ASCII but holds UTF-8 bytes; then plain invalid UTF-8; then a NUL byte. */
	static const char *const bad[] = {"# -*- coding: ascii -*-\ndef test_b():\n    assert b() == '\xc3\xa9'\n",
					  "def test_b():\n    assert b() == '\xff\xfe'\n"};
	for (size_t i = 0; i < 2; i++) {
		pair(&f, "tests/test_b.py", bad[i], "def test_b():\n    assert b() == 'e'\n");
		const char *changed[] = {"tests/test_b.py", NULL};
		struct weakening_result r;
		run(&f, changed, "tests", &r);
		expect_status(&r, WEAKENING_UNVERIFIED, WEAKENING_FILE_UNREADABLE);
		cr_assert_eq(count_finding(&r, "undecodable-source"), 1, "%s", r.message);
		weakening_result_free(&r);
	}
	put_n(f.pre, "tests/test_b.py", "def test_b():\n    assert b\0\n", 27);
	const char *changed[] = {"tests/test_b.py", NULL};
	struct weakening_result r;
	run(&f, changed, "tests", &r);
	expect_status(&r, WEAKENING_UNVERIFIED, WEAKENING_FILE_UNREADABLE);
	cr_assert_eq(count_finding(&r, "unparseable-source"), 1, "%s", r.message);
	weakening_result_free(&r);
	fx_free(&f);
}

Test(weakening, declared_encoding_and_bom_are_honoured)
{
	struct fx f = fx_new();
	pair(&f, "tests/test_l.py",
	     "# -*- coding: latin-1 -*-\ndef test_l():\n    assert name() == '\xe9'\n    assert ok()\n",
	     "# -*- coding: latin-1 -*-\ndef test_l():\n    assert name() == '\xe9'\n");
	pair(&f, "tests/test_bom.py",
	     "\xef\xbb\xbf"
	     "def test_m():\n    assert m() == 1\n",
	     "\xef\xbb\xbf"
	     "def test_m():\n    assert m() == 1\n");
	const char *changed[] = {"tests/test_l.py", "tests/test_bom.py", NULL};
	struct weakening_result r;
	run(&f, changed, "tests", &r);
	expect_status(&r, WEAKENING_FAIL, "");
	const cJSON *fi = first_finding(&r, "assertion-removed");
	cr_assert_not_null(fi, "%s", r.message);
	cr_assert_str_eq(jx_str(fi, "pre"), "ok()");
	cr_assert_eq(r.compared, 2);
	weakening_result_free(&r);
	fx_free(&f);
}

Test(weakening, symlinked_file_is_unreadable)
{
	struct fx f = fx_new();
	pair(&f, "tests/test_a.py", "def test_a():\n    assert a()\n", NULL);
	put(f.dir, "elsewhere.py", "def test_a():\n    assert a()\n");
	char *target = fs_join(f.dir, "elsewhere.py");
	char *link = fs_join(f.post, "tests/test_a.py");
	char *tdir = fs_join(f.post, "tests");
	mkdir(tdir, 0755);
	cr_assert_eq(symlink(target, link), 0);
	const char *changed[] = {"tests/test_a.py", NULL};
	struct weakening_result r;
	run(&f, changed, "tests", &r);
	expect_status(&r, WEAKENING_UNVERIFIED, WEAKENING_FILE_UNREADABLE);
	cr_assert(strstr(r.message, "symbolic link"), "%s", r.message);
	weakening_result_free(&r);
	free(target);
	free(link);
	free(tdir);
	fx_free(&f);
}

Test(weakening, budget_exceeded)
{
	struct fx f = fx_new();
	enum { N = WEAKENING_MAX_IN_SCOPE + 1 };
	char **names = xcalloc(N + 2, sizeof *names);
	for (int i = 0; i < N; i++)
		names[i] = xasprintf("tests/test_%04d.py", i);
	names[N] = xstrdup("other/test_x.py");
	struct weakening_result r;
	run(&f, (const char *const *)names, "tests", &r);
	expect_status(&r, WEAKENING_UNVERIFIED, WEAKENING_BUDGET_EXCEEDED);
	cr_assert_eq(r.in_scope, N);
	cr_assert_eq(r.compared, 0);
	weakening_result_free(&r);

	/* Exactly at the budget it is judged (every file is an addition here). */
	free(names[N - 1]);
	names[N - 1] = NULL;
	for (int i = 0; i < N - 1; i++)
		put(f.post, names[i], "def test_n():\n    assert n()\n");
	run(&f, (const char *const *)names, "tests", &r);
	expect_status(&r, WEAKENING_PASS, "");
	cr_assert_eq(r.in_scope, WEAKENING_MAX_IN_SCOPE);
	weakening_result_free(&r);
	for (int i = 0; i <= N; i++)
		free(names[i]);
	free(names);
	fx_free(&f);
}

/* Python is judged in process: no interpreter is needed, and none is run. */
Test(weakening, python_is_judged_without_python3)
{
	struct fx f = fx_new();
	pair(&f, "tests/test_a.py", "def test_a():\n    assert a() == 1\n", "def test_a():\n    pass\n");
	char *empty = fs_join(f.dir, "empty-bin");
	cr_assert_eq(mkdir(empty, 0755), 0);
	char *old = xstrdup(getenv("PATH") ? getenv("PATH") : "");
	setenv("PATH", empty, 1);
	const char *changed[] = {"tests/test_a.py", NULL};
	struct weakening_result r;
	run(&f, changed, "tests", &r);
	setenv("PATH", old, 1);
	expect_status(&r, WEAKENING_FAIL, "");
	cr_assert_not_null(first_finding(&r, "test-function-lost-every-assertion"), "%s", r.message);
	cr_assert_eq(r.compared, 1);
	weakening_result_free(&r);
	free(old);
	free(empty);
	fx_free(&f);
}

/* Hostile nesting: refused before or after parsing as an unreadable side, never a crash (the
 * runtime double-frees with ~65,535 symbols open) and never a PASS. */
Test(weakening, python_hostile_nesting_is_unreadable)
{
	static const struct {
		const char *what, *unit;
		int n;
	} cases[] = {
	    {"brackets", "(", 250}, {"brackets past the runtime", "[", 70000}, {"not chain", "not ", 70000},
	    {"unary minus", "-", 70000}, {"power chain", "x ** ", 40000}, {"lambdas", "lambda: ", 40000},
	    {"plus chain", "x + ", 20000},
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		struct fx f = fx_new();
		struct buf b = {0};
		buf_puts(&b, "def test_a():\n    assert x == 1\n    assert ");
		for (int k = 0; k < cases[i].n; k++)
			buf_puts(&b, cases[i].unit);
		buf_puts(&b, "x\n");
		pair(&f, "tests/test_d.py", buf_cstr(&b), "def test_a():\n    assert x == 1\n");
		const char *changed[] = {"tests/test_d.py", NULL};
		struct weakening_result r;
		run(&f, changed, "tests", &r);
		expect_status(&r, WEAKENING_UNVERIFIED, WEAKENING_FILE_UNREADABLE);
		cr_assert_eq(count_finding(&r, "unparseable-source"), 1, "%s: %s", cases[i].what, r.message);
		weakening_result_free(&r);
		buf_free(&b);
		fx_free(&f);
	}
	/* indentation deeper than CPython's 100 levels */
	struct fx f = fx_new();
	struct buf b = {0};
	buf_puts(&b, "def test_a():\n    assert x == 1\n");
	for (int k = 1; k <= 120; k++) {
		for (int j = 0; j < k; j++)
			buf_putc(&b, ' ');
		buf_puts(&b, "if x:\n");
	}
	for (int j = 0; j <= 120; j++)
		buf_putc(&b, ' ');
	buf_puts(&b, "pass\n");
	pair(&f, "tests/test_i.py", buf_cstr(&b), "def test_a():\n    pass\n");
	const char *changed[] = {"tests/test_i.py", NULL};
	struct weakening_result r;
	run(&f, changed, "tests", &r);
	expect_status(&r, WEAKENING_UNVERIFIED, WEAKENING_FILE_UNREADABLE);
	weakening_result_free(&r);
	buf_free(&b);
	fx_free(&f);
}

/* Honest edits are never FAIL; a test renamed out of discovery is. */
Test(weakening, python_honest_edits_and_discovery)
{
	static const char *const pre = "import calc\n\n\ndef test_add():\n    assert calc.add(1, 2) == 3\n    assert calc.add(0, 0) == 0\n";
	static const char *const honest[] = {
	    /* asserts moved into a helper the test still calls */
	    "import calc\n\n\ndef check(a, b, want):\n    assert calc.add(1, 2) == 3\n    assert calc.add(0, 0) == 0\n\n\ndef test_add():\n    check(1, 2, 3)\n",
	    /* renamed, still collected */
	    "import calc\n\n\ndef test_addition():\n    assert calc.add(1, 2) == 3\n    assert calc.add(0, 0) == 0\n",
	    /* formatting, quotes, comments, parentheses */
	    "import calc\n\n\ndef test_add():  # adds\n    assert (calc.add(1,\n                    2) == 3)\n    assert calc.add(0, 0)==0  # zero\n",
	    /* stricter: more asserts, an exact check */
	    "import calc\n\n\ndef test_add():\n    assert calc.add(1, 2) == 3\n    assert calc.add(0, 0) == 0\n    assert calc.add(-1, 1) == 0\n",
	    /* unittest style in a class, the same checks */
	    "import calc\n\n\ndef test_add():\n    assert calc.add(1, 2) == 3\n    assert calc.add(0, 0) == 0\n\n\nclass TestMore:\n    def test_neg(self):\n        assert calc.add(-1, -1) == -2\n",
	};
	for (size_t i = 0; i < sizeof honest / sizeof *honest; i++) {
		struct fx f = fx_new();
		pair(&f, "tests/test_calc.py", pre, honest[i]);
		const char *changed[] = {"tests/test_calc.py", NULL};
		struct weakening_result r;
		run(&f, changed, "tests", &r);
		expect_status(&r, WEAKENING_PASS, "");
		weakening_result_free(&r);
		fx_free(&f);
	}
	struct fx f = fx_new();
	pair(&f, "tests/test_calc.py", pre,
	     "import calc\n\n\ndef check_add():\n    assert calc.add(1, 2) == 3\n    assert calc.add(0, 0) == 0\n");
	const char *changed[] = {"tests/test_calc.py", NULL};
	struct weakening_result r;
	run(&f, changed, "tests", &r);
	expect_status(&r, WEAKENING_FAIL, "");
	cr_assert_not_null(first_finding(&r, "test-function-deleted"), "%s", r.message);
	weakening_result_free(&r);
	fx_free(&f);
}

/* Checks generalised into rows (a1_rows.h through a1_py.c): pytest parametrize, a subTest loop,
 * a helper called per row are no assertions removed; a row dropped / changed, a row in a comment
 * or in another test, an empty or tautological generalisation stay FAIL. */
#define PYR_PRE "def test_add():\n    assert add(1, 2) == 3\n    assert add(2, 2) == 4\n"
#define PYR_PAR(rows, body) "import pytest\n\n@pytest.mark.parametrize('a,b,want', " rows ")\ndef test_add(a, b, want):\n" body
Test(weakening, python_checks_generalised_into_rows)
{
	static const struct {
		const char *name, *pre, *post, *finding; /* finding NULL: PASS */
	} cases[] = {
	    {"parametrize", PYR_PRE, PYR_PAR("[(1, 2, 3), (2, 2, 4)]", "    assert add(a, b) == want\n"), NULL},
	    {"subTest loop", "import unittest\n\nclass T(unittest.TestCase):\n    def test_add(self):\n        self.assertEqual(add(1, 2), 3)\n        self.assertEqual(add(2, 2), 4)\n",
	     "import unittest\n\nclass T(unittest.TestCase):\n    def test_add(self):\n        for a, b, want in [(1, 2, 3), (2, 2, 4)]:\n            with self.subTest(a=a, b=b):\n                self.assertEqual(add(a, b), want)\n",
	     NULL},
	    {"helper per row", PYR_PRE, "def check(a, b, want):\n    assert add(a, b) == want\n\ndef test_add():\n    check(1, 2, 3)\n    check(2, 2, 4)\n", NULL},
	    {"string rows", "def test_up():\n    assert up('a') == 'A'\n    assert up('b') == 'B'\n",
	     "import pytest\n\n@pytest.mark.parametrize('s,want', [('a', 'A'), ('b', 'B')])\ndef test_up(s, want):\n    assert up(s) == want\n", NULL},
	    {"a case added", PYR_PAR("[(1, 2, 3)]", "    assert add(a, b) == want\n"), PYR_PAR("[(1, 2, 3), (0, 0, 0)]", "    assert add(a, b) == want\n"), NULL},
	    {"row dropped", PYR_PRE, PYR_PAR("[(1, 2, 3)]", "    assert add(a, b) == want\n"), "assertion-removed"},
	    {"expected changed", PYR_PRE, PYR_PAR("[(1, 2, 3), (2, 2, 5)]", "    assert add(a, b) == want\n"), "assertion-removed"},
	    {"first expected changed", PYR_PRE, PYR_PAR("[(1, 2, 4), (2, 2, 4)]", "    assert add(a, b) == want\n"), "assertion-removed"},
	    {"row in a comment", PYR_PRE, PYR_PAR("[\n    (1, 2, 3),\n    # (2, 2, 4)\n]", "    assert add(a, b) == want\n"), "assertion-removed"},
	    {"row in another test", PYR_PRE,
	     PYR_PAR("[(1, 2, 3)]", "    assert add(a, b) == want\n") "\n\n@pytest.mark.parametrize('a,b,want', [(2, 2, 4)])\ndef test_other(a, b, want):\n    assert mul(a, b) == want\n",
	     "assertion-removed"},
	    {"asserts nothing", PYR_PRE, PYR_PAR("[(1, 2, 3), (2, 2, 4)]", "    add(a, b)\n"), "test-function-lost-every-assertion"},
	    {"tautology", PYR_PRE, PYR_PAR("[(1, 2, 3), (2, 2, 4)]", "    assert want == want\n"), "replaced-by-tautology"},
	    {"the only check's expected value changed in its row", "def test_add():\n    assert add(1, 2) == 3\n",
	     PYR_PAR("[(1, 2, 4), (0, 0, 0)]", "    assert add(a, b) == want\n"), "assertion-removed"},
	    {"honest: expected value named in a local", "def test_add():\n    assert add(1, 2) == 3\n",
	     "def test_add():\n    want = 3\n    assert add(1, 2) == want\n", NULL},
	    {"renamed into a parametrized test", PYR_PRE,
	     "import pytest\n\n@pytest.mark.parametrize('a,b,want', [(1, 2, 3), (2, 2, 4)])\ndef test_add_cases(a, b, want):\n    assert add(a, b) == want\n",
	     NULL},
	    {"renamed into a parametrized test, a row dropped", PYR_PRE,
	     "import pytest\n\n@pytest.mark.parametrize('a,b,want', [(1, 2, 3)])\ndef test_add_cases(a, b, want):\n    assert add(a, b) == want\n",
	     "test-function-deleted"},
	    {"pytest.param rows", PYR_PRE, PYR_PAR("[pytest.param(1, 2, 3, id='one'), pytest.param(2, 2, 4, id='two')]", "    assert add(a, b) == want\n"), NULL},
	    {"a module-level table", PYR_PRE,
	     "import pytest\n\nCASES = [(1, 2, 3), (2, 2, 4)]\n\n@pytest.mark.parametrize('a,b,want', CASES)\ndef test_add(a, b, want):\n    assert add(a, b) == want\n", NULL},
	    {"a case removed", PYR_PAR("[(1, 2, 3), (2, 2, 4)]", "    assert add(a, b) == want\n"), PYR_PAR("[(1, 2, 3)]", "    assert add(a, b) == want\n"), "test-case-removed"},
	    {"a case changed", PYR_PAR("[(1, 2, 3), (2, 2, 4)]", "    assert add(a, b) == want\n"), PYR_PAR("[(1, 2, 3), (2, 2, 5)]", "    assert add(a, b) == want\n"), "test-case-removed"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		struct fx f = fx_new();
		pair(&f, "tests/test_calc.py", cases[i].pre, cases[i].post);
		const char *changed[] = {"tests/test_calc.py", NULL};
		struct weakening_result r;
		run(&f, changed, "tests", &r);
		if (!cases[i].finding)
			cr_expect_eq(r.status, WEAKENING_PASS, "%s: %s", cases[i].name, r.message);
		else
			cr_expect(r.status == WEAKENING_FAIL && first_finding(&r, cases[i].finding), "%s: %s", cases[i].name, r.message);
		weakening_result_free(&r);
		fx_free(&f);
	}
}

/*==== test files by each ecosystem's conventions ============================================*/

static void run_match(struct fx *f, const char *const *changed, const char *scope, int match_all,
		      struct weakening_result *r)
{
	struct weakening_input in = {.pre_root = f->pre, .post_root = f->post, .changed = changed, .scope = scope,
				     .match_all = match_all};
	struct err e = {0};
	cr_assert_eq(weakening_check(&in, r, &e), 0, "weakening_check: %s", e.msg);
}

/* One weakened test per language the rule does not judge: never PASS, UNVERIFIED with the
 * file and the language named. */
Test(weakening, test_files_in_unjudged_languages_are_unverified_by_name)
{
	static const struct {
		const char *path, *pre, *post, *lang;
	} cases[] = {
	    {"web/Calc.test.vue", "<script>test('add', () => { expect(add(1, 2)).toBe(3); });</script>\n",
	     "<script>test('add', () => { expect(true).toBe(true); });</script>\n", "JavaScript"},
	    {"src/test/scala/CalcSpec.scala", "class CalcSpec { @Test def add(): Unit = assertEquals(3, add(1, 2)) }\n",
	     "class CalcSpec { @Ignore @Test def add(): Unit = assertEquals(3, add(1, 2)) }\n", "Scala"},
	    {"spec/calc_spec.rb", "expect(add(1, 2)).to eq(3)\n", "expect(true).to eq(true)\n", "Ruby"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct fx f = fx_new();
		pair(&f, cases[i].path, cases[i].pre, cases[i].post);
		const char *changed[] = {cases[i].path, NULL};
		struct weakening_result r;
		run(&f, changed, "", &r);
		expect_status(&r, WEAKENING_UNVERIFIED, WEAKENING_LANGUAGE_NOT_JUDGED);
		cr_assert(strstr(r.message, cases[i].path) && strstr(r.message, cases[i].lang), "%s", r.message);
		cr_assert(strstr(r.message, "not judged: "), "%s", r.message);
		cr_assert_eq(r.in_scope, 1, "%s", cases[i].path);
		const cJSON *fd = first_finding(&r, "language-not-judged");
		cr_assert_not_null(fd);
		cr_assert_str_eq(jx_str(fd, "file"), cases[i].path);
		weakening_result_free(&r);
		fx_free(&f);
	}
}

/* JavaScript and TypeScript are judged in process (assertions/a1_js.h): the same cheats FAIL
 * naming the test. */
Test(weakening, javascript_and_typescript_are_judged)
{
	static const struct {
		const char *path, *pre, *post, *finding;
	} cases[] = {
	    {"tests/calc.test.js", "test('add', () => { expect(add(1, 2)).toBe(3); });\n",
	     "test('add', () => { expect(true).toBe(true); });\n", "replaced-by-tautology"},
	    {"src/calc.spec.ts", "it('adds', () => expect(add(1, 2)).toBe(3));\n", "it.skip('adds', () => expect(add(1, 2)).toBe(3));\n",
	     "test-skipped"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct fx f = fx_new();
		pair(&f, cases[i].path, cases[i].pre, cases[i].post);
		const char *changed[] = {cases[i].path, NULL};
		struct weakening_result r;
		run(&f, changed, "", &r);
		expect_status(&r, WEAKENING_FAIL, "");
		cr_assert_not_null(first_finding(&r, cases[i].finding), "%s: %s", cases[i].path, r.message);
		cr_assert_eq(r.compared, 1);
		weakening_result_free(&r);
		fx_free(&f);
	}
}

/* Java is judged in process (assertions/a1_java.h): @Disabled added, an assertion made
 * constant, assertThrows widened FAIL naming file and test; a conditional skip is UNVERIFIED. */
Test(weakening, java_is_judged)
{
	static const struct {
		const char *pre, *post, *finding;
		int status;
	} cases[] = {
	    {"class CalcTest { @Test void add() { assertEquals(3, add(1, 2)); } }\n",
	     "class CalcTest { @Disabled @Test void add() { assertEquals(3, add(1, 2)); } }\n", "test-skipped", WEAKENING_FAIL},
	    {"class CalcTest { @Test void add() { assertEquals(3, add(1, 2)); } }\n",
	     "class CalcTest { @Test void add() { assertTrue(true); } }\n", "replaced-by-tautology", WEAKENING_FAIL},
	    {"class CalcTest { @Test void d() { assertThrows(ArithmeticException.class, () -> div(1, 0)); } }\n",
	     "class CalcTest { @Test void d() { assertThrows(Exception.class, () -> div(1, 0)); } }\n", "throws-broadened",
	     WEAKENING_FAIL},
	    {"class CalcTest { @Test void add() { assertEquals(3, add(1, 2)); } }\n",
	     "class CalcTest { @Test @EnabledOnOs(OS.MAC) void add() { assertEquals(3, add(1, 2)); } }\n",
	     "conditional-skip-added", WEAKENING_UNVERIFIED},
	};
	const char *path = "src/test/java/CalcTest.java";
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct fx f = fx_new();
		pair(&f, path, cases[i].pre, cases[i].post);
		const char *changed[] = {path, NULL};
		struct weakening_result r;
		run(&f, changed, "", &r);
		cr_assert_eq(r.status, cases[i].status, "%s: %s", cases[i].finding, r.message);
		const cJSON *fd = first_finding(&r, cases[i].finding);
		cr_assert_not_null(fd, "%s: %s", cases[i].finding, r.message);
		cr_assert_str_eq(jx_str(fd, "file"), path);
		cr_assert_str_eq(jx_str(fd, "function"), i == 2 ? "CalcTest.d" : "CalcTest.add");
		cr_assert_eq(r.compared, 1);
		weakening_result_free(&r);
		fx_free(&f);
	}
}

/* Kotlin is judged in process on Java's judge (assertions/a1_kotlin.h): each cheat, UNVERIFIED
 * ASSERTION_LANGUAGE_NOT_JUDGED before that judge, FAILs (or WARNs) naming file and test. */
Test(weakening, kotlin_is_judged)
{
#define KT_ADD(ann, body) "import kotlin.test.*\n\nclass CalcTest {\n  " ann "\n  fun add() {\n    " body "\n  }\n}\n"
#define KT_EQ "assertEquals(3, add(1, 2))"
	static const struct {
		const char *pre, *post, *finding;
		int status;
	} cases[] = {
	    {KT_ADD("@Test", KT_EQ), KT_ADD("@Ignore @Test", KT_EQ), "test-skipped", WEAKENING_FAIL},
	    {KT_ADD("@Test", KT_EQ), KT_ADD("", KT_EQ), "test-annotation-removed", WEAKENING_FAIL},
	    {KT_ADD("@Test", KT_EQ), KT_ADD("@Test", "assertTrue(true)"), "replaced-by-tautology", WEAKENING_FAIL},
	    {KT_ADD("@Test", KT_EQ), KT_ADD("@Test", "assertNotNull(add(1, 2))"), "matcher-loosened", WEAKENING_FAIL},
	    {KT_ADD("@Test", "assertFailsWith<ArithmeticException> { div(1, 0) }"),
	     KT_ADD("@Test", "assertFailsWith<Exception> { div(1, 0) }"), "throws-broadened", WEAKENING_FAIL},
	    {KT_ADD("@Test", KT_EQ), KT_ADD("@Test", "return\n    " KT_EQ), "assertion-unreachable", WEAKENING_FAIL},
	    {KT_ADD("@Test", KT_EQ), KT_ADD("@Test", "assertEquals(4, add(1, 2))"), "expected-value-changed",
	     WEAKENING_WARN},
	};
#undef KT_ADD
#undef KT_EQ
	const char *path = "src/test/kotlin/CalcTest.kt";
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct fx f = fx_new();
		pair(&f, path, cases[i].pre, cases[i].post);
		const char *changed[] = {path, NULL};
		struct weakening_result r;
		run(&f, changed, "", &r);
		cr_assert_eq(r.status, cases[i].status, "%s: %s", cases[i].finding, r.message);
		const cJSON *fd = first_finding(&r, cases[i].finding);
		cr_assert_not_null(fd, "%s: %s", cases[i].finding, r.message);
		cr_assert_str_eq(jx_str(fd, "file"), path);
		cr_assert_str_eq(jx_str(fd, "function"), "CalcTest.add");
		cr_assert_eq(r.compared, 1);
		weakening_result_free(&r);
		fx_free(&f);
	}
}

Test(weakening, test_data_is_unverified_and_source_files_are_not_candidates)
{
	struct fx f = fx_new();
	pair(&f, "tests/data/expected.txt", "line\n", NULL);
	pair(&f, "src/app.c", "int x;\n", "int y;\n");
	pair(&f, "src/calc.py", "def add(a, b):\n    return a - b\n", "def add(a, b):\n    return a + b\n");
	pair(&f, "README.md", "a\n", "b\n");
	pair(&f, "src/util.rs", "pub fn f() {}\n", "pub fn g() {}\n");
	const char *changed[] = {"tests/data/expected.txt", "src/app.c", "src/calc.py", "README.md", "src/util.rs", NULL};
	struct weakening_result r;
	run(&f, changed, "", &r);
	expect_status(&r, WEAKENING_WARN, WEAKENING_DATA_CHANGED);
	cr_assert(strstr(r.message, "removed"), "the change is summarised: %s", r.message);
	cr_assert_eq(r.in_scope, 1, "%s", r.message);
	cr_assert(strstr(r.message, "tests/data/expected.txt"), "%s", r.message);
	cr_assert(strstr(r.message, "not test files: README.md, src/app.c, src/calc.py, src/util.rs"), "%s", r.message);
	weakening_result_free(&r);

	/* Source changes alone: PASS, and the message says which files were no test files. */
	const char *source[] = {"src/app.c", "src/calc.py", "src/util.rs", "src", NULL}; /* "src": a directory */
	run(&f, source, "", &r);
	expect_status(&r, WEAKENING_PASS, "");
	cr_assert(strstr(r.message, "no test file"), "%s", r.message);
	cr_assert(strstr(r.message, "not test files: src/app.c, src/calc.py, src/util.rs"), "%s", r.message);
	weakening_result_free(&r);
	fx_free(&f);
}

Test(weakening, python_tests_beside_the_source_are_judged)
{
	struct fx f = fx_new();
	const char *pre = "from calc import add\n\ndef test_add():\n    assert add(1, 2) == 3\n";
	const char *post = "from calc import add\n\ndef test_add():\n    assert True\n";
	pair(&f, "src/test_calc.py", pre, post);
	pair(&f, "pkg/calc_test.py", pre, post);
	pair(&f, "pkg/tests.py", pre, post); /* unittest's and Django's test*.py */
	pair(&f, "conftest.py", "def helper():\n    assert ready()\n", "def helper():\n    pass\n");
	const char *each[][2] = {{"src/test_calc.py", NULL}, {"pkg/calc_test.py", NULL}, {"pkg/tests.py", NULL}, {"conftest.py", NULL}};
	for (size_t i = 0; i < 4; i++) {
		struct weakening_result r;
		run(&f, each[i], "", &r);
		expect_status(&r, WEAKENING_FAIL, "");
		cr_assert(strstr(r.message, each[i][0]), "%s", r.message);
		weakening_result_free(&r);
	}
	fx_free(&f);
}

Test(weakening, honest_new_tests_are_never_fail)
{
	struct fx f = fx_new();
	pair(&f, "tests/test_new.py", NULL, "def test_new():\n    assert 1 + 1 == 2\n");
	pair(&f, "tests/new.test.js", NULL, "test('x', () => expect(1 + 1).toBe(2));\n");
	pair(&f, "new_test.go", NULL, "func TestNew(t *testing.T) {}\n");
	pair(&f, "src/new.rs", NULL, "#[test]\nfn new() { assert_eq!(1 + 1, 2); }\n");
	pair(&f, "src/test/java/NewTest.java", NULL, "class NewTest { @Test void n() { assertEquals(2, 1 + 1); } }\n");
	const char *all[] = {"tests/test_new.py", "tests/new.test.js", "new_test.go", "src/new.rs", "src/test/java/NewTest.java", NULL};
	for (const char *const *p = all; *p; p++) {
		const char *one[] = {*p, NULL};
		struct weakening_result r;
		run(&f, one, "", &r);
		cr_assert_neq(r.status, WEAKENING_FAIL, "%s: %s", *p, r.message);
		if (strstr(*p, ".py"))
			expect_status(&r, WEAKENING_PASS, "");
		weakening_result_free(&r);
	}
	fx_free(&f);
}

Test(weakening, rust_sources_are_tests_by_their_attributes)
{
	struct fx f = fx_new();
	/* Every test removed from a module: the pre side still held them. */
	pair(&f, "src/lib.rs", "pub fn add() {}\n#[cfg(test)]\nmod t {\n  #[test]\n  fn a() {}\n}\n", "pub fn add() {}\n");
	pair(&f, "src/async.rs", "#[tokio::test]\nasync fn a() {}\n", "#[tokio::test]\nasync fn a() { }\n");
	pair(&f, "src/plain.rs", "// a test of patience\nfn f() {}\n", "fn g() {}\n");
	pair(&f, "src/skip.rs", "#[test]\nfn a() { assert_eq!(1 + 1, 2); }\n", "#[test]\n#[ignore]\nfn a() { assert_eq!(1 + 1, 2); }\n");
	const char *gone[] = {"src/lib.rs", NULL}, *tokio[] = {"src/async.rs", NULL}, *plain[] = {"src/plain.rs", NULL},
		   *skip[] = {"src/skip.rs", NULL};
	struct weakening_result r;
	run(&f, gone, "", &r);
	expect_status(&r, WEAKENING_FAIL, "");
	cr_assert_not_null(first_finding(&r, "test-deleted"), "%s", r.message);
	weakening_result_free(&r);
	run(&f, tokio, "", &r);
	expect_status(&r, WEAKENING_PASS, "");
	weakening_result_free(&r);
	run(&f, plain, "", &r);
	expect_status(&r, WEAKENING_PASS, "");
	cr_assert(strstr(r.message, "not test files: src/plain.rs"), "%s", r.message);
	weakening_result_free(&r);
	run(&f, skip, "", &r);
	expect_status(&r, WEAKENING_FAIL, "");
	cr_assert(strstr(r.message, "src/skip.rs") && strstr(r.message, "test-skipped"), "%s", r.message);
	weakening_result_free(&r);
	fx_free(&f);
}

/* Configuration: only its test-relevant keys count, each format read with a real parser. */
struct cfgcase {
	const char *path, *pre, *post;
	int status;
	const char *cause, *says;
};

static void cfg_cases(const struct cfgcase *cases, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		struct fx f = fx_new();
		pair(&f, cases[i].path, cases[i].pre, cases[i].post);
		const char *changed[] = {cases[i].path, NULL};
		struct weakening_result r;
		run(&f, changed, "", &r);
		char *js = jx_print(r.findings);
		cr_assert_eq(r.status, cases[i].status, "case %zu %s: status %d: %s | %s", i, cases[i].path, r.status, r.message,
			     js);
		cr_assert_str_eq(r.cause, cases[i].cause, "case %zu %s: %s", i, cases[i].path, r.message);
		cr_assert(strstr(r.message, cases[i].says), "case %zu %s: wanted \"%s\" in: %s", i, cases[i].path, cases[i].says,
			  r.message);
		free(js);
		weakening_result_free(&r);
		fx_free(&f);
	}
}

#define PKG(deps, test) "{\"name\":\"calc\",\"scripts\":{\"build\":\"tsc\",\"test\":\"" test "\"},\"dependencies\":{" deps "}}\n"
#define POM_JACOCO(min)                                                                                                \
	"<project><build><plugins><plugin><artifactId>jacoco-maven-plugin</artifactId><configuration><rules><rule><limits>" \
	"<limit><minimum>" min "</minimum></limit></limits></rule></rules></configuration></plugin></plugins></build></project>"
#define CARGO(dep, tests) "[package]\nname = \"calc\"\nversion = \"0.1.0\"\n\n[dependencies]\nserde = \"" dep "\"\n" tests

Test(weakening, configuration_is_judged_on_its_test_keys_only)
{
	static const struct cfgcase cases[] = {
	    /* a dependency bump is not a test change */
	    {"package.json", PKG("\"lodash\":\"4.17.20\"", "jest"), PKG("\"lodash\":\"4.17.21\"", "jest"), WEAKENING_PASS, "",
	     "package.json (no test-relevant key changed)"},
	    {"Cargo.toml", CARGO("1.0.100", "[[test]]\nname = \"it\"\n"), CARGO("1.0.200", "[[test]]\nname = \"it\"\n"),
	     WEAKENING_PASS, "", "Cargo.toml (no test-relevant key changed)"},
	    {"pom.xml",
	     "<project><dependencies><dependency><artifactId>a</artifactId><version>1</version></dependency></dependencies></project>",
	     "<project><dependencies><dependency><artifactId>a</artifactId><version>2</version></dependency></dependencies></project>",
	     WEAKENING_PASS, "", "pom.xml (no test-relevant key changed)"},
	    {"pytest.ini", "[pytest]\naddopts = -q\n", "# quieter\n[pytest]\naddopts   =   -q\n", WEAKENING_PASS, "",
	     "no test-relevant key changed"},
	    {"setup.cfg", "[metadata]\nname = a\n[tool:pytest]\ntestpaths = tests\n",
	     "[metadata]\nname = b\n[tool:pytest]\ntestpaths = tests\n", WEAKENING_PASS, "", "no test-relevant key changed"},
	    {"pyproject.toml", "[project]\nname = \"a\"\ndependencies = [\"x==1\"]\n", "[project]\nname = \"a\"\ndependencies = [\"x==2\"]\n",
	     WEAKENING_PASS, "", "no test-relevant key changed"},
	    /* test-relevant keys changed: named, never PASS */
	    {"package.json", PKG("", "jest"), PKG("", "jest --passWithNoTests || true"), WEAKENING_FAIL, "",
	     "suite-made-to-pass"},
	    {"package.json", "{\"jest\":{\"testMatch\":[\"**/*.test.js\"]}}", "{\"jest\":{\"testMatch\":[\"**/ok.test.js\"]}}",
	     WEAKENING_UNVERIFIED, WEAKENING_CONFIG_NOT_JUDGED, "jest.testMatch"},
	    {"Cargo.toml", CARGO("1.0.100", "[[test]]\nname = \"it\"\n"), CARGO("1.0.100", ""), WEAKENING_FAIL, "",
	     "[[test]] target \"it\" removed"},
	    {"pyproject.toml", "[tool.pytest.ini_options]\naddopts = \"-q\"\n",
	     "[tool.pytest.ini_options]\naddopts = \"-q -k 'not login'\"\n", WEAKENING_FAIL, "",
	     "addopts gained -k"},
	    {"pytest.ini", "[pytest]\naddopts = -q\n", "[pytest]\naddopts = -q --deselect tests/test_login.py::test_bad\n",
	     WEAKENING_FAIL, "", "discovery-narrowed"},
	    {"pytest.ini", "[pytest]\naddopts = -q\n", "[pytest]\naddopts = -q -v --strict-markers\n", WEAKENING_UNVERIFIED,
	     WEAKENING_CONFIG_NOT_JUDGED, "pytest.addopts"},
	    {"tox.ini", "[testenv]\ncommands = pytest\n", "[testenv]\ncommands = - pytest\n", WEAKENING_FAIL, "",
	     "suite-made-to-pass"},
	    {".coveragerc", "[report]\nfail_under = 90\n", "[report]\nfail_under = 60\n", WEAKENING_FAIL, "",
	     "coverage-threshold-lowered"},
	    {".coveragerc", "[report]\nfail_under = 60\n", "[report]\nfail_under = 90\n", WEAKENING_UNVERIFIED,
	     WEAKENING_CONFIG_NOT_JUDGED, "report.fail_under"},
	    {"package.json", "{\"jest\":{\"testPathIgnorePatterns\":[\"/node_modules/\"]}}",
	     "{\"jest\":{\"testPathIgnorePatterns\":[\"/node_modules/\",\"login\"]}}", WEAKENING_FAIL, "",
	     "testPathIgnorePatterns gained \"login\""},
	    {"package.json", "{\"jest\":{\"coverageThreshold\":{\"global\":{\"lines\":90}}}}",
	     "{\"jest\":{\"coverageThreshold\":{\"global\":{\"lines\":50}}}}", WEAKENING_FAIL, "", "coverage-threshold-lowered"},
	    {"package.json", PKG("", "jest"), PKG("", "jest --coverage"), WEAKENING_UNVERIFIED, WEAKENING_CONFIG_NOT_JUDGED,
	     "scripts.test"},
	    {"package.json", PKG("", "echo \\\"Error: no test specified\\\" && exit 1"), PKG("", "mocha"), WEAKENING_UNVERIFIED,
	     WEAKENING_CONFIG_NOT_JUDGED, "scripts.test"},
	    {"package.json", PKG("", "mocha"), PKG("", "mocha --grep add"), WEAKENING_FAIL, "", "discovery-narrowed"},
	    {".nycrc.json", "{\"check-coverage\":true,\"lines\":90}", "{\"check-coverage\":true,\"lines\":10}",
	     WEAKENING_FAIL, "", "lines 90 -> 10"},
	    {"tox.ini", "[testenv]\ncommands = pytest\n", "[testenv]\ncommands = pytest -x tests/test_ok.py\n",
	     WEAKENING_UNVERIFIED, WEAKENING_CONFIG_NOT_JUDGED, "testenv.commands"},
	    {"tox.ini", "[testenv]\ncommands = pytest\n", "[testenv]\ncommands = pytest -k 'not login'\n", WEAKENING_FAIL, "",
	     "gained -k"},
	    {"setup.cfg", "[tool:pytest]\ntestpaths = tests integration\n", "[tool:pytest]\ntestpaths = tests\n",
	     WEAKENING_FAIL, "", "testpaths lost \"integration\""},
	    {"pom.xml", "<project><properties><java.version>17</java.version></properties></project>",
	     "<project><properties><java.version>17</java.version><skipTests>true</skipTests></properties></project>",
	     WEAKENING_FAIL, "", "skipTests = true"},
	    {"pom.xml", POM_JACOCO("0.80"), POM_JACOCO("0.40"), WEAKENING_FAIL, "", "jacoco minimum 0.80 -> 0.40"},
	    {"pom.xml", POM_JACOCO("0.40"), POM_JACOCO("0.80"), WEAKENING_UNVERIFIED, WEAKENING_CONFIG_NOT_JUDGED, "plugins"},
	    {".mocharc.json", "{\"spec\":\"test/**/*.js\"}", "{\"spec\":\"test/ok.js\"}", WEAKENING_UNVERIFIED,
	     WEAKENING_CONFIG_NOT_JUDGED, "spec"},
	    /* formats not parsed: UNVERIFIED, the language named */
	    {"jest.config.js", "module.exports = {};\n", "module.exports = {testPathIgnorePatterns: ['login']};\n",
	     WEAKENING_UNVERIFIED, WEAKENING_LANGUAGE_NOT_JUDGED, "JavaScript"},
	    {"build.gradle", "dependencies { testImplementation 'junit:junit:4.12' }\ntest { useJUnitPlatform() }\n",
	     "dependencies { testImplementation 'junit:junit:4.12' }\ntest { enabled = false }\n", WEAKENING_UNVERIFIED,
	     WEAKENING_LANGUAGE_NOT_JUDGED, "Groovy"},
	    {"build.gradle.kts", "plugins { java }\nversion = \"1\"\n", "plugins { java }\nversion = \"2\"\n", WEAKENING_PASS, "",
	     "without test configuration"},
	    {"vite.config.ts", "export default { plugins: [] }\n", "export default { plugins: [react()] }\n", WEAKENING_PASS, "",
	     "without a `test` section"},
	    {"vite.config.ts", "export default { test: { include: ['**/*.test.ts'] } }\n",
	     "export default { test: { include: ['ok.test.ts'] } }\n", WEAKENING_UNVERIFIED, WEAKENING_LANGUAGE_NOT_JUDGED,
	     "vite.config.ts"},
	    /* a side that does not parse */
	    {"package.json", "{\"scripts\":{\"test\":\"jest\"}}", "{\"scripts\":{\"test\":\"jest\"},}", WEAKENING_UNVERIFIED,
	     WEAKENING_FILE_UNREADABLE, "does not parse"},
	    {"Cargo.toml", "[package]\nname = \"a\"\n", "[package]\nname = \"a\"\nname = \"b\"\n", WEAKENING_UNVERIFIED,
	     WEAKENING_FILE_UNREADABLE, "does not parse"},
	};
	cfg_cases(cases, sizeof cases / sizeof cases[0]);
}

Test(weakening, scope_and_match_all)
{
	struct fx f = fx_new();
	pair(&f, "qa/cases/login.yaml", "expect: denied\n", "expect: allowed\n");
	pair(&f, "qa/check_login.py", "def check():\n    assert login() is False\n", "def check():\n    pass\n");
	pair(&f, "tests/calc.test.js", "a\n", "b\n");
	const char *changed[] = {"qa/cases/login.yaml", "qa/check_login.py", "tests/calc.test.js", NULL};
	struct weakening_result r;
	/* By convention, inside qa/ nothing is a test file; outside the scope nothing counts. */
	run_match(&f, changed, "qa", 0, &r);
	expect_status(&r, WEAKENING_PASS, "");
	cr_assert_eq(r.in_scope, 0);
	weakening_result_free(&r);
	/* "match": "all": every file in qa/ is a test file. */
	run_match(&f, changed, "qa", 1, &r);
	expect_status(&r, WEAKENING_FAIL, "");
	cr_assert_eq(r.in_scope, 2);
	cr_assert(strstr(r.message, "qa/cases/login.yaml"), "%s", r.message);
	cr_assert_eq(count_finding(&r, "test-data-changed"), 1);
	weakening_result_free(&r);
	fx_free(&f);
}

Test(weakening, needs_pre_only_for_what_it_reads)
{
	const char *js[] = {"spec/a_spec.rb", "src/a.c", NULL}, *py[] = {"src/test_a.py", NULL}, *go[] = {"a_test.go", NULL},
		   *cfg[] = {"sub/package.json", NULL}, *rs[] = {"src/lib.rs", NULL}, *src[] = {"src/a.py", NULL};
	cr_assert_eq(weakening_needs_pre(js, "", 0), 0); /* Ruby is not judged: nothing to read */
	cr_assert_eq(weakening_needs_pre(go, "", 0), 1);
	cr_assert_eq(weakening_needs_pre(py, "", 0), 1);
	cr_assert_eq(weakening_needs_pre(cfg, "", 0), 1);
	cr_assert_eq(weakening_needs_pre(rs, "", 0), 1);
	cr_assert_eq(weakening_needs_pre(src, "", 0), 0);
	cr_assert_eq(weakening_needs_pre(src, "src", 1), 1);
	cr_assert_eq(weakening_needs_pre(py, "tests", 0), 0);
}

Test(weakening, unjudged_files_need_no_trees)
{
	/* A Ruby test change alone is UNVERIFIED without the task's pre-state (the caller
	 * does not restore it for what the rule does not read). */
	struct fx f = fx_new();
	pair(&f, "spec/a_spec.rb", NULL, "x = 2\n");
	put(f.post, "web/calc/x.js", "x = 1\n"); /* a directory is in the delta too */
	put(f.post, "spec/x_spec.rb", "x = 1\n");
	struct weakening_input in = {.pre_root = NULL, .post_root = f.post,
				     .changed = (const char *[]){"spec/a_spec.rb", "web/calc", "spec/x_spec.rb", NULL}, .scope = ""};
	struct weakening_result r;
	struct err e = {0};
	cr_assert_eq(weakening_check(&in, &r, &e), 0);
	expect_status(&r, WEAKENING_UNVERIFIED, WEAKENING_LANGUAGE_NOT_JUDGED);
	cr_assert_eq(r.in_scope, 2, "a directory is no test file: %s", r.message);
	weakening_result_free(&r);
	fx_free(&f);
}

Test(weakening, conftest_collection_settings_are_never_passed)
{
	struct fx f = fx_new();
	const char *fixture = "import pytest\n\n@pytest.fixture\ndef user():\n    return 'a'\n";
	pair(&f, "conftest.py", fixture, "import pytest\n\ncollect_ignore = ['tests/test_login.py']\n\n@pytest.fixture\ndef user():\n    return 'a'\n");
	pair(&f, "tests/conftest.py", NULL, "def pytest_collection_modifyitems(items):\n    items[:] = []\n");
	pair(&f, "pkg/conftest.py", fixture, "import pytest\n\n@pytest.fixture\ndef user():\n    return 'b'\n");
	pair(&f, "web/conftest.py", fixture, "import pytest\n\ndef pytest_addoption(parser):\n    parser.addoption('--slow')\n");
	const char *ignore[] = {"conftest.py", NULL}, *hook[] = {"tests/conftest.py", NULL}, *honest[] = {"pkg/conftest.py", NULL},
		   *option[] = {"web/conftest.py", NULL};
	struct weakening_result r;
	run(&f, ignore, "", &r);
	expect_status(&r, WEAKENING_FAIL, "");
	cr_assert_eq(count_finding(&r, "discovery-narrowed"), 1);
	cr_assert(strstr(r.message, "tests/test_login.py"), "%s", r.message);
	weakening_result_free(&r);
	run(&f, hook, "", &r); /* a new conftest.py is judged against an empty one */
	expect_status(&r, WEAKENING_FAIL, "");
	weakening_result_free(&r);
	run(&f, honest, "", &r); /* a fixture changed: nothing about collection */
	expect_status(&r, WEAKENING_PASS, "");
	weakening_result_free(&r);
	run(&f, option, "", &r); /* a hook the rule cannot judge */
	expect_status(&r, WEAKENING_UNVERIFIED, WEAKENING_UNDECIDABLE);
	cr_assert_eq(count_finding(&r, "collection-settings-changed"), 1);
	weakening_result_free(&r);
	fx_free(&f);
}

/* The cheats the first Python judge let through (skip and xfail markers, skip calls, dead
 * code, swallowed failures, a value compared with itself), each a FAIL naming the test; an
 * undecidable skip condition abstains; honest edits around them stay PASS. */
Test(weakening, python_skips_dead_code_and_swallowed_failures)
{
	static const char *const pre = "import pytest\n\ndef test_add():\n    assert add(1, 2) == 3\n\n\ndef test_sub():\n    assert sub(2, 1) == 1\n";
	static const struct {
		const char *what, *post, *finding;
		int status;
	} cases[] = {
	    {"skip marker", "import pytest\n\n@pytest.mark.skip\ndef test_add():\n    assert add(1, 2) == 3\n\n\ndef test_sub():\n    assert sub(2, 1) == 1\n", "test-skipped", WEAKENING_FAIL},
	    {"skipif(True)", "import pytest\n\n@pytest.mark.skipif(1 == 1, reason='x')\ndef test_add():\n    assert add(1, 2) == 3\n\n\ndef test_sub():\n    assert sub(2, 1) == 1\n", "test-skipped", WEAKENING_FAIL},
	    {"xfail", "import pytest\n\n@pytest.mark.xfail(reason='flaky')\ndef test_add():\n    assert add(1, 2) == 3\n\n\ndef test_sub():\n    assert sub(2, 1) == 1\n", "expected-failure-added", WEAKENING_FAIL},
	    {"module pytestmark", "import pytest\npytestmark = [pytest.mark.skip]\n\ndef test_add():\n    assert add(1, 2) == 3\n\n\ndef test_sub():\n    assert sub(2, 1) == 1\n", "test-skipped", WEAKENING_FAIL},
	    {"skip call", "import pytest\n\ndef test_add():\n    pytest.skip('later')\n    assert add(1, 2) == 3\n\n\ndef test_sub():\n    assert sub(2, 1) == 1\n", "test-skipped", WEAKENING_FAIL},
	    {"early return", "import pytest\n\ndef test_add():\n    return\n    assert add(1, 2) == 3\n\n\ndef test_sub():\n    assert sub(2, 1) == 1\n", "assertion-unreachable", WEAKENING_FAIL},
	    {"if False", "import pytest\n\ndef test_add():\n    if False:\n        assert add(1, 2) == 3\n\n\ndef test_sub():\n    assert sub(2, 1) == 1\n", "assertion-unreachable", WEAKENING_FAIL},
	    {"except AssertionError", "import pytest\n\ndef test_add():\n    try:\n        assert add(1, 2) == 3\n    except AssertionError:\n        pass\n\n\ndef test_sub():\n    assert sub(2, 1) == 1\n", "failure-swallowed", WEAKENING_FAIL},
	    {"bare except", "import pytest\n\ndef test_add():\n    try:\n        assert add(1, 2) == 3\n    except:\n        print('x')\n\n\ndef test_sub():\n    assert sub(2, 1) == 1\n", "failure-swallowed", WEAKENING_FAIL},
	    {"suppress", "import pytest, contextlib\n\ndef test_add():\n    with contextlib.suppress(Exception):\n        assert add(1, 2) == 3\n\n\ndef test_sub():\n    assert sub(2, 1) == 1\n", "failure-swallowed", WEAKENING_FAIL},
	    {"self comparison", "import pytest\n\ndef test_add():\n    assert add(1, 2) == add(1, 2)\n\n\ndef test_sub():\n    assert sub(2, 1) == 1\n", "replaced-by-tautology", WEAKENING_FAIL},
	    {"undecidable skipif", "import pytest, sys\n\n@pytest.mark.skipif(sys.version_info > (3, 0), reason='x')\ndef test_add():\n    assert add(1, 2) == 3\n\n\ndef test_sub():\n    assert sub(2, 1) == 1\n", "conditional-skip-added", WEAKENING_UNVERIFIED},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct fx f = fx_new();
		pair(&f, "tests/test_calc.py", pre, cases[i].post);
		const char *changed[] = {"tests/test_calc.py", NULL};
		struct weakening_result r;
		run(&f, changed, "", &r);
		cr_assert_eq(r.status, cases[i].status, "%s: %s", cases[i].what, r.message);
		const cJSON *fd = first_finding(&r, cases[i].finding);
		cr_assert_not_null(fd, "%s: no %s finding: %s", cases[i].what, cases[i].finding, r.message);
		cr_assert_str_eq(jx_str(fd, "function"), "test_add", "%s", cases[i].what);
		weakening_result_free(&r);
		fx_free(&f);
	}
	/* Honest: a new skipped test, a re-raising handler, a platform skip that was there before. */
	static const char *const honest[][2] = {
	    {pre, "import pytest\n\ndef test_add():\n    assert add(1, 2) == 3\n\n\ndef test_sub():\n    assert sub(2, 1) == 1\n\n\n@pytest.mark.skip\ndef test_mul():\n    assert mul(2, 3) == 6\n"},
	    {pre, "import pytest\n\ndef test_add():\n    try:\n        assert add(1, 2) == 3\n    except AssertionError:\n        dump()\n        raise\n\n\ndef test_sub():\n    assert sub(2, 1) == 1\n"},
	    {"import sys, pytest\n\n@pytest.mark.skipif(sys.platform == 'win32', reason='x')\ndef test_add():\n    assert add(1, 2) == 3\n",
	     "import sys, pytest\n\n@pytest.mark.skipif(sys.platform == 'win32', reason='posix only')\ndef test_add():\n    assert add(1, 2) == 3\n    assert add(0, 0) == 0\n"},
	};
	for (size_t i = 0; i < sizeof honest / sizeof honest[0]; i++) {
		struct fx f = fx_new();
		pair(&f, "tests/test_calc.py", honest[i][0], honest[i][1]);
		const char *changed[] = {"tests/test_calc.py", NULL};
		struct weakening_result r;
		run(&f, changed, "", &r);
		expect_status(&r, WEAKENING_PASS, "");
		weakening_result_free(&r);
		fx_free(&f);
	}
}

/* Loosened checks and the unit under test mocked inside its own test: FAIL naming the test. */
Test(weakening, python_loosened_checks_and_mocked_units)
{
	static const char *const pre = "import calc, pytest\n\ndef test_add(monkeypatch):\n    assert calc.add(1, 2) == 3\n"
				       "    assert calc.ratio() == pytest.approx(0.3, rel=1e-6)\n";
	static const struct {
		const char *what, *from, *to, *finding;
	} cases[] = {
	    {"== to truthy", "assert calc.add(1, 2) == 3", "assert calc.add(1, 2)", "matcher-loosened"},
	    {"== to is not None", "assert calc.add(1, 2) == 3", "assert calc.add(1, 2) is not None", "matcher-loosened"},
	    {"== to !=", "assert calc.add(1, 2) == 3", "assert calc.add(1, 2) != 4", "comparison-loosened"},
	    {"== to >=", "assert calc.add(1, 2) == 3", "assert calc.add(1, 2) >= 0", "comparison-loosened"},
	    {"== to in", "assert calc.add(1, 2) == 3", "assert 3 in [calc.add(1, 2), 4]", "expected-value-changed"},
	    {"approx widened", "rel=1e-6", "rel=0.5", "tolerance-widened"},
	    {"monkeypatched unit", "    assert calc.add(1, 2) == 3\n", "    monkeypatch.setattr(calc, 'add', lambda a, b: 3)\n    assert calc.add(1, 2) == 3\n",
	     "unit-under-test-mocked"},
	    {"mock.patch decorator", "def test_add", "@mock.patch('calc.add', return_value=3)\ndef test_add", "unit-under-test-mocked"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct fx f = fx_new();
		struct buf post = {0};
		const char *at = strstr(pre, cases[i].from);
		cr_assert_not_null(at, "%s", cases[i].what);
		buf_append(&post, pre, (size_t)(at - pre));
		buf_puts(&post, cases[i].to);
		buf_puts(&post, at + strlen(cases[i].from));
		pair(&f, "tests/test_calc.py", pre, buf_cstr(&post));
		const char *changed[] = {"tests/test_calc.py", NULL};
		struct weakening_result r;
		run(&f, changed, "", &r);
		if (strcmp(cases[i].finding, "expected-value-changed") == 0) {
			/* containment of a list the test builds: not recognised as a loosening (PASS or WARN, never FAIL) */
			cr_assert_neq(r.status, WEAKENING_FAIL, "%s: %s", cases[i].what, r.message);
		} else {
			cr_assert_eq(r.status, WEAKENING_FAIL, "%s: %s", cases[i].what, r.message);
			cr_assert_not_null(first_finding(&r, cases[i].finding), "%s: no %s: %s", cases[i].what, cases[i].finding,
					   r.message);
		}
		weakening_result_free(&r);
		buf_free(&post);
		fx_free(&f);
	}
	/* Honest: a stricter check, a tighter tolerance, another module patched. */
	static const char *const honest[][2] = {
	    {"assert calc.add(1, 2) == 3", "assert calc.add(1, 2) == 3\n    assert calc.add(0, 0) == 0"},
	    {"rel=1e-6", "rel=1e-9"},
	    {"    assert calc.add(1, 2) == 3\n", "    monkeypatch.setattr(time, 'time', lambda: 0)\n    assert calc.add(1, 2) == 3\n"},
	};
	for (size_t i = 0; i < sizeof honest / sizeof honest[0]; i++) {
		struct fx f = fx_new();
		struct buf post = {0};
		const char *at = strstr(pre, honest[i][0]);
		buf_append(&post, pre, (size_t)(at - pre));
		buf_puts(&post, honest[i][1]);
		buf_puts(&post, at + strlen(honest[i][0]));
		pair(&f, "tests/test_calc.py", pre, buf_cstr(&post));
		const char *changed[] = {"tests/test_calc.py", NULL};
		struct weakening_result r;
		run(&f, changed, "", &r);
		expect_status(&r, WEAKENING_PASS, "");
		weakening_result_free(&r);
		buf_free(&post);
		fx_free(&f);
	}
}

Test(weakening, judged_and_unjudged_named_on_a_fail)
{
	struct fx f = fx_new();
	pair(&f, "tests/test_a.py", "def test_a():\n    assert a() == 1\n    assert b()\n", "def test_a():\n    assert b()\n");
	pair(&f, "spec/calc_spec.rb", "x = 1\n", NULL);
	pair(&f, "package.json", PKG("\"x\":\"1\"", "jest"), PKG("\"x\":\"2\"", "jest"));
	const char *more[] = {"spec/calc_spec.rb", "tests/test_a.py", "package.json", NULL};
	struct weakening_result r;
	run(&f, more, "", &r);
	expect_status(&r, WEAKENING_FAIL, "");
	cr_assert(strstr(r.message, "not judged: spec/calc_spec.rb"), "%s", r.message);
	cr_assert(strstr(r.message, "judged: package.json (no test-relevant key changed)"), "%s", r.message);
	cr_assert_eq(r.in_scope, 3);
	cr_assert_eq(r.compared, 2);
	weakening_result_free(&r);
	fx_free(&f);
}

Test(weakening, unobserved_post_state_and_missing_trees)
{
	struct fx f = fx_new();
	struct weakening_input in = {.pre_root = f.pre, .post_root = f.post, .changed = NULL, .scope = "tests"};
	struct weakening_result r;
	struct err e;
	cr_assert_eq(weakening_check(&in, &r, &e), 0);
	expect_status(&r, WEAKENING_UNVERIFIED, WEAKENING_POST_NOT_OBSERVED);
	weakening_result_free(&r);

	const char *changed[] = {"tests/test_a.py", NULL};
	in.changed = changed;
	in.post_root = NULL;
	cr_assert_eq(weakening_check(&in, &r, &e), 0);
	expect_status(&r, WEAKENING_UNVERIFIED, WEAKENING_POST_NOT_OBSERVED);
	weakening_result_free(&r);

	char *nowhere = fs_join(f.dir, "nowhere");
	in.post_root = f.post;
	in.pre_root = nowhere;
	cr_assert_eq(weakening_check(&in, &r, &e), 0);
	expect_status(&r, WEAKENING_UNVERIFIED, WEAKENING_PRESTATE_MISSING);
	cr_assert_eq(r.in_scope, 1);
	weakening_result_free(&r);

	in.pre_root = f.pre;
	in.post_root = nowhere;
	cr_assert_eq(weakening_check(&in, &r, &e), 0);
	expect_status(&r, WEAKENING_UNVERIFIED, WEAKENING_POSTSTATE_MISSING);
	weakening_result_free(&r);

	/* Nothing in scope changed: no tree is needed to know nothing was weakened. */
	const char *outside[] = {"src/x.py", NULL};
	in.changed = outside;
	cr_assert_eq(weakening_check(&in, &r, &e), 0);
	expect_status(&r, WEAKENING_PASS, "");
	weakening_result_free(&r);
	free(nowhere);
	fx_free(&f);
}

Test(weakening, misuse_is_an_error)
{
	struct weakening_result r;
	struct err e;
	const char *abs_path[] = {"/etc/passwd.py", NULL};
	const char *dotdot[] = {"tests/../../x.py", NULL};
	struct weakening_input in = {.pre_root = "/", .post_root = "/", .changed = abs_path, .scope = "tests"};
	cr_assert_lt(weakening_check(&in, &r, &e), 0);
	cr_assert_null(r.message);
	cr_assert_null(r.findings);
	in.changed = dotdot;
	cr_assert_lt(weakening_check(&in, &r, &e), 0);
	cr_assert(strstr(e.msg, "tests/../../x.py"), "%s", e.msg);
	in.scope = NULL;
	cr_assert_lt(weakening_check(&in, &r, &e), 0);
	cr_assert_lt(weakening_check(NULL, &r, &e), 0);
	weakening_result_free(&r);
	weakening_result_free(NULL);
}

Test(weakening, deletion_with_unparseable_rename_target_abstains)
{
	struct fx f = fx_new();
	pair(&f, "tests/test_old.py", "def test_a():\n    assert a() == 1\n", NULL);
	pair(&f, "tests/test_new.py", NULL, "def test_a(:\n    assert a() == 1\n");
	const char *changed[] = {"tests/test_old.py", "tests/test_new.py", NULL};
	struct weakening_result r;
	run(&f, changed, "tests", &r);
	expect_status(&r, WEAKENING_UNVERIFIED, WEAKENING_FILE_UNREADABLE);
	cr_assert_eq(count_finding(&r, "rename-target-unreadable"), 1, "%s", r.message);
	weakening_result_free(&r);
	fx_free(&f);
}

/*==== odd input ==============================================================================*/

Test(weakening, odd_bytes_stay_valid_json)
{
	struct fx f = fx_new();
	/* A glob with an escaped lone surrogate and a newline, in a file whose name is not UTF-8. */
	pair(&f, "tests/test_\xff.py", "def test_g(r):\n    r.stdout.fnmatch_lines(['*\\ud800\\n*x*'])\n",
	     "def test_g(r):\n    r.stdout.fnmatch_lines(['*'])\n");
	const char *changed[] = {"tests/test_\xff.py", NULL};
	struct weakening_result r;
	run(&f, changed, "tests", &r);
	expect_status(&r, WEAKENING_FAIL, "");
	const cJSON *fi = first_finding(&r, "glob-pattern-loosened");
	cr_assert_not_null(fi, "%s", r.message);
	cr_assert_not_null(jx_str(jx_obj(fi, "file"), "base64"), "a non-UTF-8 path is carried as bytes");
	char *js = jx_print(r.findings);
	cr_assert(utf8_valid(js, strlen(js)), "%s", js);
	cr_assert(utf8_valid(r.message, strlen(r.message)), "%s", r.message);
	cr_assert(strstr(r.message, "tests/test_?.py"), "%s", r.message);
	cr_assert_null(strchr(r.message, '\n'), "the message is one line: %s", r.message);
	free(js);
	weakening_result_free(&r);
	fx_free(&f);
}

Test(weakening, pathological_nesting_abstains_without_crashing)
{
	struct fx f = fx_new();
	struct buf b = {0};
	buf_puts(&b, "def test_a():\n    assert x == 1\n    assert x");
	for (int i = 0; i < 20000; i++)
		buf_puts(&b, " + x");
	buf_puts(&b, "\n");
	pair(&f, "tests/test_d.py", buf_cstr(&b), "def test_a():\n    assert x == 1\n");
	const char *changed[] = {"tests/test_d.py", NULL};
	struct weakening_result r;
	run(&f, changed, "tests", &r);
	expect_status(&r, WEAKENING_UNVERIFIED, WEAKENING_FILE_UNREADABLE);
	cr_assert_eq(count_finding(&r, "unparseable-source"), 1, "%s", r.message);
	weakening_result_free(&r);
	buf_free(&b);
	fx_free(&f);
}

Test(weakening, expectation_elements_and_exception_tuples)
{
	struct fx f = fx_new();
	/* Narrowing the expected exceptions is stricter: no finding. */
	pair(&f, "tests/test_x.py", "def test_x():\n    with pytest.raises((KeyError, IndexError)):\n        f()\n",
	     "def test_x():\n    with pytest.raises(KeyError):\n        f()\n");
	const char *changed[] = {"tests/test_x.py", NULL};
	struct weakening_result r;
	run(&f, changed, "tests", &r);
	expect_status(&r, WEAKENING_PASS, "");
	weakening_result_free(&r);

	/* Dropping an expected call from assert_has_calls removes an expectation. */
	pair(&f, "tests/test_x.py", "def test_x():\n    m.assert_has_calls([call(1), call(2)])\n",
	     "def test_x():\n    m.assert_has_calls([call(1)])\n");
	run(&f, changed, "tests", &r);
	expect_status(&r, WEAKENING_FAIL, "");
	const cJSON *fi = first_finding(&r, "assertion-removed");
	cr_assert_not_null(fi, "%s", r.message);
	cr_assert_str_eq(jx_str(fi, "pre"), "call(2)");
	weakening_result_free(&r);
	fx_free(&f);
}

/* A test's text unchanged, the helper of its file it asserts through emptied: the test no
 * longer asserts, in every judged language (Go and Rust read PASS here before). */
Test(weakening, an_assertion_taken_out_of_a_helper_the_test_calls_fails_in_every_language)
{
	struct fx f = fx_new();
	pair(&f, "h_test.go",
	     "package calc\n\nimport \"testing\"\n\nfunc check(t *testing.T) {\n\tif Add(1, 2) != 3 {\n\t\tt.Fatal()\n\t}\n}\n\n"
	     "func TestAdd(t *testing.T) {\n\tcheck(t)\n}\n",
	     "package calc\n\nimport \"testing\"\n\nfunc check(t *testing.T) {\n}\n\nfunc TestAdd(t *testing.T) {\n\tcheck(t)\n}\n");
	pair(&f, "src/h.rs", "fn check() {\n    assert_eq!(add(1, 2), 3);\n}\n\n#[test]\nfn adds() {\n    check();\n}\n",
	     "fn check() {\n}\n\n#[test]\nfn adds() {\n    check();\n}\n");
	pair(&f, "tests/test_h.py", "def check():\n    assert add(1, 2) == 3\n\ndef test_add():\n    check()\n",
	     "def check():\n    pass\n\ndef test_add():\n    check()\n");
	pair(&f, "tests/h.test.js", "function check() { expect(add(1, 2)).toBe(3); }\ntest('x', () => { check(); });\n",
	     "function check() { }\ntest('x', () => { check(); });\n");
	pair(&f, "src/test/java/HTest.java",
	     "class HTest { void check() { assertEquals(3, add(1, 2)); } @Test void n() { check(); } }\n",
	     "class HTest { void check() { } @Test void n() { check(); } }\n");
	const char *each[][2] = {{"h_test.go", NULL},	    {"src/h.rs", NULL},
				 {"tests/test_h.py", NULL}, {"tests/h.test.js", NULL},
				 {"src/test/java/HTest.java", NULL}};
	for (size_t i = 0; i < sizeof each / sizeof *each; i++) {
		struct weakening_result r;
		run(&f, each[i], "", &r);
		cr_expect_eq(r.status, WEAKENING_FAIL, "%s: %s", each[i][0], r.message);
		weakening_result_free(&r);
	}
	fx_free(&f);
}
