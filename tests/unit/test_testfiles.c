/* test_testfiles.c - which paths are tests by each ecosystem's conventions
 * (src/assertions/testfiles.c), and the test attributes that make a .rs file a test file. */
#include <criterion/criterion.h>
#include <string.h>

#include "assertions/testfiles.h"

struct row {
	const char *path;
	enum testfile_kind kind;
	const char *lang; /* NULL: not checked */
	enum testcfg_format cfg;
};

static const struct row rows[] = {
    /* Python */
    {"tests/test_calc.py", TESTFILE_SOURCE, "Python", 0},
    {"src/test_calc.py", TESTFILE_SOURCE, "Python", 0},
    {"pkg/calc_test.py", TESTFILE_SOURCE, "Python", 0},
    {"pkg/tests.py", TESTFILE_SOURCE, "Python", 0},
    {"conftest.py", TESTFILE_SOURCE, "Python", 0},
    {"testing/helpers.py", TESTFILE_SOURCE, "Python", 0},
    {"tests/stubs/calc.pyi", TESTFILE_DATA, NULL, 0}, /* type stubs: no Python the helper judges */
    {"src/calc.py", TESTFILE_NONE, NULL, 0},
    {"src/contest.py", TESTFILE_NONE, NULL, 0},
    {"pytest.ini", TESTFILE_CONFIG, NULL, TESTCFG_PYTEST_INI},
    {"sub/tox.ini", TESTFILE_CONFIG, NULL, TESTCFG_TOX_INI},
    {"setup.cfg", TESTFILE_CONFIG, NULL, TESTCFG_SETUP_CFG},
    {".coveragerc", TESTFILE_CONFIG, NULL, TESTCFG_COVERAGERC},
    {"pyproject.toml", TESTFILE_CONFIG, NULL, TESTCFG_PYPROJECT},
    {"noxfile.py", TESTFILE_CONFIG, "Python", TESTCFG_CODE_FILE},
    /* JavaScript / TypeScript */
    {"tests/calc.test.js", TESTFILE_SOURCE, "JavaScript", 0},
    {"src/calc.spec.ts", TESTFILE_SOURCE, "TypeScript", 0},
    {"src/Button.test.tsx", TESTFILE_SOURCE, "TypeScript", 0},
    {"web/__tests__/login.js", TESTFILE_SOURCE, "JavaScript", 0},
    {"test/login.mjs", TESTFILE_SOURCE, "JavaScript", 0},
    {"web/__snapshots__/login.test.js.snap", TESTFILE_DATA, NULL, 0},
    {"web/__mocks__/api.js", TESTFILE_SOURCE, "JavaScript", 0},
    {"src/calc.js", TESTFILE_NONE, NULL, 0},
    {"src/latest.js", TESTFILE_NONE, NULL, 0},
    {"package.json", TESTFILE_CONFIG, NULL, TESTCFG_PACKAGE_JSON},
    {"jest.config.ts", TESTFILE_CONFIG, "JavaScript", TESTCFG_CODE_FILE},
    {"jest.config.json", TESTFILE_CONFIG, NULL, TESTCFG_JSON_FILE},
    {"vitest.config.mts", TESTFILE_CONFIG, "JavaScript", TESTCFG_CODE_FILE},
    {"vite.config.js", TESTFILE_CONFIG, "JavaScript", TESTCFG_VITE_CONFIG},
    {".mocharc.json", TESTFILE_CONFIG, NULL, TESTCFG_JSON_FILE},
    {".mocharc.yml", TESTFILE_CONFIG, "YAML", TESTCFG_CODE_FILE},
    {".mocharc.cjs", TESTFILE_CONFIG, "JavaScript", TESTCFG_CODE_FILE},
    {".nycrc", TESTFILE_CONFIG, NULL, TESTCFG_JSON_FILE},
    /* Go */
    {"calc/calc_test.go", TESTFILE_SOURCE, "Go", 0},
    {"calc/testdata/golden.txt", TESTFILE_DATA, NULL, 0},
    {"calc/calc.go", TESTFILE_NONE, NULL, 0},
    /* Rust */
    {"src/lib.rs", TESTFILE_BY_CONTENT, "Rust", 0},
    {"tests/integration.rs", TESTFILE_SOURCE, "Rust", 0},
    {"Cargo.toml", TESTFILE_CONFIG, NULL, TESTCFG_CARGO_TOML},
    /* Java / Kotlin */
    {"src/test/java/calc/CalcTest.java", TESTFILE_SOURCE, "Java", 0},
    {"src/test/resources/data.json", TESTFILE_DATA, NULL, 0},
    {"src/main/java/calc/Calc.java", TESTFILE_NONE, NULL, 0},
    {"core/CalcTests.java", TESTFILE_SOURCE, "Java", 0},
    {"core/TestCalc.java", TESTFILE_SOURCE, "Java", 0},
    {"core/CalcIT.java", TESTFILE_SOURCE, "Java", 0},
    {"app/CalcTest.kt", TESTFILE_SOURCE, "Kotlin", 0},
    {"app/Calc.kt", TESTFILE_NONE, NULL, 0},
    {"pom.xml", TESTFILE_CONFIG, NULL, TESTCFG_POM_XML},
    {"build.gradle.kts", TESTFILE_CONFIG, "Kotlin", TESTCFG_GRADLE},
    {".mvn/maven.config", TESTFILE_CONFIG, NULL, TESTCFG_MAVEN_CONFIG},
    {"settings.gradle", TESTFILE_CONFIG, "Groovy", TESTCFG_GRADLE},
    /* others */
    {"spec/calc_spec.rb", TESTFILE_SOURCE, "Ruby", 0},
    {"tests/README.md", TESTFILE_DATA, NULL, 0},
    {"README.md", TESTFILE_NONE, NULL, 0},
    {"testsuite/x.c", TESTFILE_NONE, NULL, 0},
    {"tests", TESTFILE_NONE, NULL, 0}, /* the directory itself */
};

Test(testfiles, conventions_table)
{
	for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
		struct testfile tf;
		testfiles_classify(rows[i].path, 0, &tf);
		cr_expect_eq(tf.kind, rows[i].kind, "%s: kind %d, want %d", rows[i].path, tf.kind, rows[i].kind);
		if (rows[i].lang)
			cr_expect(tf.lang && strcmp(tf.lang, rows[i].lang) == 0, "%s: language %s, want %s", rows[i].path,
				  tf.lang ? tf.lang : "(none)", rows[i].lang);
		cr_expect_eq(tf.cfg, rows[i].cfg, "%s: format %d, want %d", rows[i].path, tf.cfg, rows[i].cfg);
		if (tf.kind != TESTFILE_NONE)
			cr_expect_not_null(tf.convention, "%s: no convention named", rows[i].path);
	}
}

Test(testfiles, match_all_makes_every_file_a_test_file)
{
	struct testfile tf;
	testfiles_classify("qa/cases/login.yaml", 1, &tf);
	cr_assert_eq(tf.kind, TESTFILE_DATA);
	testfiles_classify("qa/check.py", 1, &tf);
	cr_assert_eq(tf.kind, TESTFILE_SOURCE);
	cr_assert_str_eq(tf.lang, "Python");
	testfiles_classify("qa/lib.rs", 1, &tf);
	cr_assert_eq(tf.kind, TESTFILE_SOURCE, "under match all, a .rs file is test code without looking");
	testfiles_classify("qa/check.py", 0, &tf);
	cr_assert_eq(tf.kind, TESTFILE_NONE);
}

Test(testfiles, rust_test_attributes)
{
	static const char *const yes[] = {
	    "#[test]\nfn a() {}",
	    "#[cfg(test)]\nmod t {}",
	    "#![cfg(test)]",
	    "#[tokio::test]\nasync fn a() {}",
	    "#[test_case(1, 2)]\nfn a(x: i32, y: i32) {}",
	    "#[rstest]\nfn a() {}",
	    "#[cfg(all(test, feature = \"x\"))]",
	    "# [test]\nfn a() {}",
	    "#[cfg_attr(test, derive(Debug))]",
	};
	static const char *const no[] = {
	    "fn test() {}",
	    "#[derive(Debug)]\nstruct Test;",
	    "#[cfg(feature = \"testing\")]",
	    "#[attestation]",
	    "#[cfg(not(tests))]",
	    "// test\n#[inline]\nfn f() {}",
	    "#",
	    "#[",
	};
	for (size_t i = 0; i < sizeof yes / sizeof yes[0]; i++)
		cr_expect(testfiles_rust_has_tests(yes[i], strlen(yes[i])), "%s", yes[i]);
	for (size_t i = 0; i < sizeof no / sizeof no[0]; i++)
		cr_expect_not(testfiles_rust_has_tests(no[i], strlen(no[i])), "%s", no[i]);
}
