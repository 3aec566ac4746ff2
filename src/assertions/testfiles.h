/* testfiles.h - which changed files are tests: each ecosystem's own conventions for finding
 * test code, test data and test configuration, applied to a workspace-relative path.
 *
 * The conventions (docs/VERDICTS.md, "Which files are tests"):
 *   Python      test*.py, *_test.py, conftest.py anywhere (unittest's test*.py, pytest's
 *               test_*.py / *_test.py); configuration: pytest.ini, tox.ini, setup.cfg,
 *               .coveragerc, pyproject.toml, noxfile.py
 *   JS / TS     *.test.*, *.spec.* anywhere; configuration: package.json, jest.config.*,
 *               vitest.config.*, vitest.workspace.*, vite.config.*, .mocharc*, karma.conf.*,
 *               playwright.config.*, cypress.config.*, .nycrc*, .c8rc*
 *   Go          *_test.go anywhere; testdata/ directories
 *   Rust        any .rs file holding a test attribute (#[test], #[cfg(test)], #[tokio::test],
 *               ...): decided by content, testfiles_rust_has_tests; configuration: Cargo.toml
 *   Java/Kotlin *Test.java, *Tests.java, Test*.java, *TestCase.java, *IT.java, *Test.kt,
 *               *Tests.kt; src/test/; configuration: pom.xml, build.gradle(.kts),
 *               settings.gradle(.kts)
 *   any         every file below a directory named tests, test, testing, spec, __tests__,
 *               __snapshots__, __mocks__, __fixtures__ or testdata.
 * A file under such a directory, or named by a convention, is test code when its extension
 * names a programming language (testfile.lang says which) and test data otherwise.
 *
 * Pure functions of their arguments: no I/O, no globals. Threads: any. */
#ifndef BELAY_ASSERTIONS_TESTFILES_H
#define BELAY_ASSERTIONS_TESTFILES_H
#include <stddef.h>

enum testfile_kind {
	TESTFILE_NONE = 0, /* no convention makes it a test file */
	TESTFILE_SOURCE,   /* test code, in testfile.lang */
	TESTFILE_DATA,	   /* a file where tests live that is not code (fixture, snapshot, golden) */
	TESTFILE_CONFIG,   /* configuration that can change which tests run and how */
	TESTFILE_BY_CONTENT, /* a .rs file: test code when either side holds a test attribute */
};

/* Configuration formats, each judged on its test-relevant part (assertions/testcfg.h). */
enum testcfg_format {
	TESTCFG_NONE = 0,
	TESTCFG_PYTEST_INI,	/* INI: [pytest] */
	TESTCFG_TOX_INI,	/* INI: [pytest], [testenv*] commands, [coverage:*] */
	TESTCFG_SETUP_CFG,	/* INI: [tool:pytest], [coverage:*] */
	TESTCFG_COVERAGERC,	/* INI: [run], [report] */
	TESTCFG_PYPROJECT,	/* TOML: tool.pytest*, tool.coverage */
	TESTCFG_PACKAGE_JSON,	/* JSON: jest, mocha, ava, c8, nyc, scripts.test*, ... */
	TESTCFG_JSON_FILE,	/* JSON, wholly test configuration (.mocharc.json, .nycrc, jest.config.json) */
	TESTCFG_CODE_FILE,	/* code or a format not parsed, wholly test configuration (jest.config.js, noxfile.py, .mocharc.yml) */
	TESTCFG_VITE_CONFIG,	/* code: test configuration only where it holds a `test` section */
	TESTCFG_CARGO_TOML,	/* TOML: [[test]], lib/bin test and harness, profile.test, workspace members, default features */
	TESTCFG_POM_XML,	/* XML: surefire / failsafe / jacoco, test properties and directories */
	TESTCFG_GRADLE,		/* Groovy / Kotlin scripts, not parsed */
	TESTCFG_MAVEN_CONFIG,	/* .mvn/maven.config: the options every mvn run gets (-DskipTests ...) */
};

struct testfile {
	enum testfile_kind kind;
	const char *lang;	/* language of TESTFILE_SOURCE / _CONFIG code ("Python", "TypeScript", ...), else NULL */
	enum testcfg_format cfg; /* for TESTFILE_CONFIG */
	const char *convention;	/* the convention that matched, for messages ("*_test.go", "under tests/", ...) */
};

/* Classifies a workspace-relative path ('/'-separated). `match_all` makes every file a test
 * file (an operator's scope that says "all of this is tests"): convention first, otherwise
 * by extension. Fills *out; static strings only. */
void testfiles_classify(const char *path, int match_all, struct testfile *out);

/* The programming language an extension names ("Python", "Go", ...), or NULL (data). */
const char *testfiles_language(const char *path);

/* 1 when Rust source `text` holds a test attribute: an outer or inner attribute (#[...] /
 * #![...]) mentioning the identifier `test` or one starting with `test_`, or rstest /
 * quickcheck / proptest (#[test], #[cfg(test)], #[tokio::test], #[test_case(..)], ...).
 * Comments and strings are not skipped: a mention there counts (the safe side). */
int testfiles_rust_has_tests(const char *text, size_t len);

#endif
