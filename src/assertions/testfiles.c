/* testfiles.c - each ecosystem's conventions for test files (see testfiles.h).
 *
 * Responsibility: path -> {not a test, test code in language L, test data, test configuration
 * of format F, decided by content}. Tables, not branches: a convention is one row.
 * Threads: any; no globals but constant tables. Must not: read files (callers do). */
#include "assertions/testfiles.h"

#include <fnmatch.h>
#include <string.h>

/* Extensions that name a programming language (anything else is data). */
static const struct {
	const char *ext;
	const char *lang;
} LANGS[] = {
    {"py", "Python"},	    {"js", "JavaScript"}, {"jsx", "JavaScript"}, {"mjs", "JavaScript"},
    {"cjs", "JavaScript"},  {"ts", "TypeScript"}, {"tsx", "TypeScript"}, {"mts", "TypeScript"},
    {"cts", "TypeScript"},  {"vue", "JavaScript"}, {"svelte", "JavaScript"}, {"go", "Go"},
    {"rs", "Rust"},	    {"java", "Java"},	  {"kt", "Kotlin"},	 {"kts", "Kotlin"},
    {"scala", "Scala"},	    {"groovy", "Groovy"}, {"rb", "Ruby"},	 {"php", "PHP"},
    {"cs", "C#"},	    {"fs", "F#"},	  {"swift", "Swift"},	 {"c", "C"},
    {"h", "C"},		    {"cc", "C++"},	  {"cpp", "C++"},	 {"cxx", "C++"},
    {"hpp", "C++"},	    {"m", "Objective-C"}, {"mm", "Objective-C"}, {"sh", "shell"},
    {"bash", "shell"},	    {"bats", "shell"},	  {"ex", "Elixir"},	 {"exs", "Elixir"},
    {"erl", "Erlang"},	    {"hs", "Haskell"},	  {"ml", "OCaml"},	 {"clj", "Clojure"},
    {"dart", "Dart"},	    {"lua", "Lua"},	  {"pl", "Perl"},	 {"pm", "Perl"},
    {"t", "Perl"},	    {"r", "R"},		  {"R", "R"},		 {"jl", "Julia"},
    {"zig", "Zig"},	    {"nim", "Nim"},
};

/* Basename conventions for test code (the language then comes from the extension). */
static const struct {
	const char *glob;
	const char *convention;
} NAMED_TESTS[] = {
    {"test*.py", "test*.py"},	  {"*_test.py", "*_test.py"},	{"conftest.py", "conftest.py"},
    {"*.test.*", "*.test.*"},	  {"*.spec.*", "*.spec.*"},	{"*_test.go", "*_test.go"},
    {"*Test.java", "*Test.java"}, {"*Tests.java", "*Tests.java"}, {"Test*.java", "Test*.java"},
    {"*TestCase.java", "*TestCase.java"}, {"*IT.java", "*IT.java"}, {"*Test.kt", "*Test.kt"},
    {"*Tests.kt", "*Tests.kt"},
};

/* Directories every file below which is a test file. */
static const char *const TEST_DIRS[] = {"tests",	 "test",	  "testing",	  "spec",	"__tests__",
					"__snapshots__", "__mocks__", "__fixtures__", "testdata", NULL};

/* Configuration files, by basename. */
static const struct {
	const char *glob;
	enum testcfg_format cfg;
	const char *lang; /* for code formats */
} CONFIGS[] = {
    {"pytest.ini", TESTCFG_PYTEST_INI, NULL},
    {"tox.ini", TESTCFG_TOX_INI, NULL},
    {"setup.cfg", TESTCFG_SETUP_CFG, NULL},
    {".coveragerc", TESTCFG_COVERAGERC, NULL},
    {"pyproject.toml", TESTCFG_PYPROJECT, NULL},
    {"noxfile.py", TESTCFG_CODE_FILE, "Python"},
    {"package.json", TESTCFG_PACKAGE_JSON, NULL},
    {"jest.config.json", TESTCFG_JSON_FILE, NULL},
    {"jest.config.*", TESTCFG_CODE_FILE, "JavaScript"},
    {"vitest.config.*", TESTCFG_CODE_FILE, "JavaScript"},
    {"vitest.workspace.json", TESTCFG_JSON_FILE, NULL},
    {"vitest.workspace.*", TESTCFG_CODE_FILE, "JavaScript"},
    {"vite.config.*", TESTCFG_VITE_CONFIG, "JavaScript"},
    {".mocharc.json", TESTCFG_JSON_FILE, NULL},
    {".mocharc.jsonc", TESTCFG_CODE_FILE, "JSON with comments"},
    {".mocharc", TESTCFG_CODE_FILE, "YAML"},
    {".mocharc.yml", TESTCFG_CODE_FILE, "YAML"},
    {".mocharc.yaml", TESTCFG_CODE_FILE, "YAML"},
    {".mocharc.*", TESTCFG_CODE_FILE, "JavaScript"},
    {"karma.conf.*", TESTCFG_CODE_FILE, "JavaScript"},
    {"playwright.config.*", TESTCFG_CODE_FILE, "JavaScript"},
    {"cypress.config.*", TESTCFG_CODE_FILE, "JavaScript"},
    {".nycrc", TESTCFG_JSON_FILE, NULL},
    {".nycrc.json", TESTCFG_JSON_FILE, NULL},
    {".nycrc.*", TESTCFG_CODE_FILE, "YAML"},
    {".c8rc", TESTCFG_JSON_FILE, NULL},
    {".c8rc.json", TESTCFG_JSON_FILE, NULL},
    {"Cargo.toml", TESTCFG_CARGO_TOML, NULL},
    {"pom.xml", TESTCFG_POM_XML, NULL},
    {"build.gradle", TESTCFG_GRADLE, "Groovy"},
    {"settings.gradle", TESTCFG_GRADLE, "Groovy"},
    {"build.gradle.kts", TESTCFG_GRADLE, "Kotlin"},
    {"settings.gradle.kts", TESTCFG_GRADLE, "Kotlin"},
    {"maven.config", TESTCFG_MAVEN_CONFIG, NULL},
};

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

static const char *base_name(const char *path)
{
	const char *s = strrchr(path, '/');
	return s ? s + 1 : path;
}

const char *testfiles_language(const char *path)
{
	const char *b = base_name(path), *dot = strrchr(b, '.');
	if (!dot || dot == b)
		return NULL;
	for (size_t i = 0; i < COUNT(LANGS); i++)
		if (strcmp(dot + 1, LANGS[i].ext) == 0)
			return LANGS[i].lang;
	return NULL;
}

/* The test directory among path's directory components, or NULL. */
static const char *test_dir(const char *path)
{
	const char *s = path;
	for (;;) {
		const char *slash = strchr(s, '/');
		if (!slash)
			return NULL; /* the last component is the file itself */
		size_t n = (size_t)(slash - s);
		for (const char *const *d = TEST_DIRS; *d; d++)
			if (strlen(*d) == n && memcmp(*d, s, n) == 0)
				return *d;
		s = slash + 1;
	}
}

static void by_extension(const char *path, const char *convention, struct testfile *out)
{
	out->lang = testfiles_language(path);
	out->kind = out->lang ? TESTFILE_SOURCE : TESTFILE_DATA;
	out->convention = convention;
}

void testfiles_classify(const char *path, int match_all, struct testfile *out)
{
	memset(out, 0, sizeof *out);
	const char *b = base_name(path);
	for (size_t i = 0; i < COUNT(CONFIGS); i++)
		if (fnmatch(CONFIGS[i].glob, b, FNM_PERIOD) == 0) {
			out->kind = TESTFILE_CONFIG;
			out->cfg = CONFIGS[i].cfg;
			out->lang = CONFIGS[i].lang;
			out->convention = CONFIGS[i].glob;
			return;
		}
	for (size_t i = 0; i < COUNT(NAMED_TESTS); i++)
		if (fnmatch(NAMED_TESTS[i].glob, b, FNM_PERIOD) == 0) {
			by_extension(path, NAMED_TESTS[i].convention, out);
			return;
		}
	if (test_dir(path)) {
		by_extension(path, "under a test directory", out);
		return;
	}
	const char *lang = testfiles_language(path);
	if (lang && strcmp(lang, "Rust") == 0 && !match_all) {
		out->kind = TESTFILE_BY_CONTENT;
		out->lang = lang;
		out->convention = "a .rs file holding a test attribute";
		return;
	}
	if (match_all)
		by_extension(path, "inside the policy's scope", out);
}

static int ident_char(unsigned char c)
{
	return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

/* 1 when the identifier [s, s+n) names a test attribute's part. */
static int test_ident(const char *s, size_t n)
{
	if (n == 4 && memcmp(s, "test", 4) == 0)
		return 1;
	if (n > 5 && memcmp(s, "test_", 5) == 0)
		return 1;
	static const char *const more[] = {"rstest", "quickcheck", "proptest", "bench", NULL};
	for (const char *const *m = more; *m; m++)
		if (strlen(*m) == n && memcmp(*m, s, n) == 0)
			return 1;
	return 0;
}

int testfiles_rust_has_tests(const char *text, size_t len)
{
	for (size_t i = 0; i + 1 < len; i++) {
		if (text[i] != '#')
			continue;
		size_t j = i + 1;
		if (j < len && text[j] == '!')
			j++;
		while (j < len && (text[j] == ' ' || text[j] == '\t'))
			j++;
		if (j >= len || text[j] != '[')
			continue;
		/* The attribute's tokens up to its closing bracket (nesting counted). */
		int depth = 0;
		for (size_t k = j; k < len; k++) {
			if (text[k] == '[')
				depth++;
			else if (text[k] == ']' && --depth == 0)
				break;
			else if (ident_char((unsigned char)text[k]) && !ident_char((unsigned char)text[k - 1])) {
				size_t e = k;
				while (e < len && ident_char((unsigned char)text[e]))
					e++;
				if (test_ident(text + k, e - k))
					return 1;
				k = e - 1;
			}
		}
	}
	return 0;
}
