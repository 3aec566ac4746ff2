/* test_ini.c - ini_parse: the configparser reading of pytest.ini, setup.cfg and tox.ini
 * (sections, ':' and '=' options, lower-cased keys, continuation lines, comments, the
 * DEFAULT section), every error with its line, and that formatting-only edits leave the
 * result cJSON_Compare-equal while a changed value does not. The expected values are what
 * Python 3.11's configparser gives for the same text. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "assertions/ini.h"
#include "common/jsonx.h"

static cJSON *parse(const char *text)
{
	cJSON *o = NULL;
	struct err e = {0};
	int rc = ini_parse(text, strlen(text), &o, &e);
	cr_assert_eq(rc, 0, "refused (%s): %s", e.msg, text);
	cr_assert_not_null(o);
	return o;
}

/* Parses and compares with the JSON `want` (compact, member order included). */
static void expect(const char *text, const char *want)
{
	cJSON *o = parse(text);
	char *got = jx_print(o);
	cr_assert_str_eq(got, want, "for:\n%s", text);
	free(got);
	cJSON_Delete(o);
}

/* Refused, with `frag` in "line N: ..." */
static void refuse_n(const char *text, size_t n, int line, const char *frag)
{
	cJSON *o = (cJSON *)1;
	struct err e = {0};
	int rc = ini_parse(text, n, &o, &e);
	cr_assert_eq(rc, BELAY_EINVAL, "accepted: %s", text);
	cr_assert_null(o);
	char want[32];
	snprintf(want, sizeof want, "line %d: ", line);
	cr_assert(strncmp(e.msg, want, strlen(want)) == 0, "want %s... got %s", want, e.msg);
	cr_assert(strstr(e.msg, frag), "want \"%s\" in: %s", frag, e.msg);
}

static void refuse(const char *text, int line, const char *frag)
{
	refuse_n(text, strlen(text), line, frag);
}

static int same(const char *a, const char *b)
{
	cJSON *x = parse(a), *y = parse(b);
	int r = cJSON_Compare(x, y, 1);
	cJSON_Delete(x);
	cJSON_Delete(y);
	return r;
}

Test(ini, pytest_ini)
{
	expect("# pytest configuration\n"
	       "[pytest]\n"
	       "minversion = 6.0\n"
	       "addopts = -ra -q\n"
	       "    --strict-markers\n"
	       "\t--cov=pkg\n"
	       "testpaths =\n"
	       "    tests\n"
	       "    integration\n"
	       "markers =\n"
	       "    slow: marks tests as slow (deselect with '-m \"not slow\"')\n"
	       "    serial\n",
	       "{\"pytest\":{\"minversion\":\"6.0\",\"addopts\":\"-ra -q\\n--strict-markers\\n--cov=pkg\","
	       "\"testpaths\":\"\\ntests\\nintegration\",\"markers\":\"\\nslow: marks tests as slow (deselect with "
	       "'-m \\\"not slow\\\"')\\nserial\"}}");
}

Test(ini, setup_cfg)
{
	expect("[metadata]\n"
	       "name = example\n"
	       "version = attr: example.__version__\n"
	       "\n"
	       "[options]\n"
	       "packages = find:\n"
	       "install_requires =\n"
	       "    requests>=2\n"
	       "\n"
	       "[tool:pytest]\n"
	       "addopts = --doctest-modules\n"
	       "python_files = test_*.py check_*.py\n"
	       "\n"
	       "[flake8]\n"
	       "max-line-length = 100\n",
	       "{\"metadata\":{\"name\":\"example\",\"version\":\"attr: example.__version__\"},"
	       "\"options\":{\"packages\":\"find:\",\"install_requires\":\"\\nrequests>=2\"},"
	       "\"tool:pytest\":{\"addopts\":\"--doctest-modules\",\"python_files\":\"test_*.py check_*.py\"},"
	       "\"flake8\":{\"max-line-length\":\"100\"}}");
}

Test(ini, tox_ini)
{
	expect("[tox]\n"
	       "envlist = py{39,310,311}, lint\n"
	       "\n"
	       "[testenv]\n"
	       "deps =\n"
	       "    pytest\n"
	       "    pytest-cov\n"
	       "commands =\n"
	       "    pytest {posargs:tests} --cov\n"
	       "setenv =\n"
	       "    PYTHONPATH = {toxinidir}\n"
	       "\n"
	       "[pytest]\n"
	       "addopts = -x\n",
	       "{\"tox\":{\"envlist\":\"py{39,310,311}, lint\"},\"testenv\":{\"deps\":\"\\npytest\\npytest-cov\","
	       "\"commands\":\"\\npytest {posargs:tests} --cov\",\"setenv\":\"\\nPYTHONPATH = {toxinidir}\"},"
	       "\"pytest\":{\"addopts\":\"-x\"}}");
}

Test(ini, comments_are_whole_lines_only)
{
	expect("; a comment\n# another\n[s]\n  # indented comment\n\t; and this\nk = v ; not a comment\nj = v # nor "
	       "this\n",
	       "{\"s\":{\"k\":\"v ; not a comment\",\"j\":\"v # nor this\"}}");
	/* A comment inside a value neither ends it nor adds an empty line to it. */
	expect("[s]\na = 1\n# c\n  b\n", "{\"s\":{\"a\":\"1\\nb\"}}");
	expect("[s]\na = 1\n    # c\n  b\n", "{\"s\":{\"a\":\"1\\nb\"}}");
}

Test(ini, delimiters_and_keys)
{
	/* the first '=' or ':' delimits: the rest belongs to the value */
	expect("[s]\nurl: http://h:80/p?a=b\nk = v: w\nx:y=z\n",
	       "{\"s\":{\"url\":\"http://h:80/p?a=b\",\"k\":\"v: w\",\"x\":\"y=z\"}}");
	/* keys lower-cased and stripped (Unicode lower-casing, as str.lower()), section names not */
	expect("[Tool:PyTest]\nAddOpts = 1\nTwo Words  =  x  \n\xc3\x84RGER = 2\n",
	       "{\"Tool:PyTest\":{\"addopts\":\"1\",\"two words\":\"x\",\"\xc3\xa4rger\":\"2\"}}");
	/* an empty value, spaces inside it kept */
	expect("[s]\nk =\nj = a   b\n", "{\"s\":{\"k\":\"\",\"j\":\"a   b\"}}");
}

Test(ini, section_headers)
{
	/* the name runs from the first '[' to the last ']', spaces kept; text after it ignored */
	expect("[ s ]\na=1\n[x] ; note\nb=2\n[a]b]\nc=3\n[[y]]\n",
	       "{\" s \":{\"a\":\"1\"},\"x\":{\"b\":\"2\"},\"a]b\":{\"c\":\"3\"},\"[y]\":{}}");
	/* DEFAULT is its own member, and may be given twice (configparser merges it) */
	expect("[DEFAULT]\na=1\n[s]\nb=2\n[DEFAULT]\nc=3\n[default]\n",
	       "{\"DEFAULT\":{\"a\":\"1\",\"c\":\"3\"},\"s\":{\"b\":\"2\"},\"default\":{}}");
}

Test(ini, continuation_lines)
{
	/* deeper than the key's line: a continuation, even when it looks like a key or header */
	expect("[s]\na = 1\n  b = 2\n  [t]\n", "{\"s\":{\"a\":\"1\\nb = 2\\n[t]\"}}");
	/* the same indentation as the key: a new key */
	expect("[s]\n  a = 1\n  b = 2\n", "{\"s\":{\"a\":\"1\",\"b\":\"2\"}}");
	/* inner empty and whitespace-only lines kept, trailing ones dropped */
	expect("[s]\na = 1\n\n   \n  b\n\n\t\nc = 2\n", "{\"s\":{\"a\":\"1\\n\\n\\nb\",\"c\":\"2\"}}");
	/* a value that starts on the next line keeps its leading newline */
	expect("[s]\na =\n  x\n", "{\"s\":{\"a\":\"\\nx\"}}");
	/* a section header ends the value; a line right after a header cannot continue */
	expect("[s]\na = 1\n[t]\nb = 2\n", "{\"s\":{\"a\":\"1\"},\"t\":{\"b\":\"2\"}}");
	/* Unicode whitespace indents, counted in characters */
	expect("[s]\na = 1\n\xe3\x80\x80"
	       "b\n",
	       "{\"s\":{\"a\":\"1\\nb\"}}");
}

Test(ini, line_endings)
{
	expect("[s]\r\na = 1\r\n  b\r\n", "{\"s\":{\"a\":\"1\\nb\"}}");
	expect("[s]\ra = 1\r  b\r", "{\"s\":{\"a\":\"1\\nb\"}}");
	expect("", "{}");
	expect("[s]", "{\"s\":{}}");
}

Test(ini, errors_with_their_line)
{
	refuse("# c\n\nk = v\n[s]\n", 3, "before any [section]");
	refuse("[s]\na=1\n[t]\n[s]\n", 4, "section [s] given twice");
	refuse("[s]\nKey=1\nkey=2\n", 3, "option \"key\" given twice in section [s]");
	refuse("[DEFAULT]\na=1\n[DEFAULT]\nA=2\n", 4, "given twice");
	refuse("[s]\na=1\nno delimiter here\nb=2\n", 3, "neither");
	refuse("[s]\n= value\n", 2, "neither");
	refuse("[s]\n[]\n", 2, "neither");
	/* configparser reports a bad line only at the end: a duplicate after it comes first */
	refuse("[s]\nbogus\na=1\na=2\n", 4, "given twice");
	refuse("[s]\nbogus\nother bogus\n", 2, "neither");
	refuse("[s]\na=1\n\xff\n", 3, "not UTF-8");
	refuse("[s]\r\na=\xc3\n", 2, "not UTF-8");
	refuse_n("[s]\na=1\nb=\0\n", 11, 3, "NUL");
	/* a BOM is a character like any other to configparser: not a header */
	refuse("\xef\xbb\xbf[s]\na=1\n", 1, "before any [section]");
	char *big = malloc(INI_MAX_BYTES + 1);
	memset(big, '#', INI_MAX_BYTES + 1);
	refuse_n(big, INI_MAX_BYTES + 1, 1, "limit");
	free(big);
}

Test(ini, formatting_only_edits_compare_equal)
{
	const char *base = "[pytest]\naddopts = -ra\n    --strict-markers\ntestpaths = tests\n";
	cr_assert(same(base, "[pytest]\naddopts=-ra\n    --strict-markers\ntestpaths   :   tests\n"));
	cr_assert(same(base, "# header comment\n\n[pytest]\n; why\naddopts = -ra\n  # note\n\t--strict-markers\n\n\n"
			     "TestPaths = tests   \n\n"));
	cr_assert(same(base, "[pytest]\r\naddopts = -ra\r\n    --strict-markers\r\ntestpaths = tests\r\n"));
	/* a changed value, an added option, a value split differently: not equal */
	cr_assert_not(same(base, "[pytest]\naddopts = -ra\n    --strict-markers\ntestpaths = tests other\n"));
	cr_assert_not(same(base, "[pytest]\naddopts = -ra\n    --strict-markers\n    -x\ntestpaths = tests\n"));
	cr_assert_not(same(base, "[pytest]\naddopts = -ra --strict-markers\ntestpaths = tests\n"));
	cr_assert_not(same(base, "[pytest]\naddopts = -ra\n    --strict-markers\ntestpaths = tests\nxfail_strict=1\n"));
	cr_assert_not(same(base, "[Pytest]\naddopts = -ra\n    --strict-markers\ntestpaths = tests\n"));
}

Test(ini, hostile_sizes_stay_linear)
{
	/* 200k distinct keys and 200k continuation lines: quadratic code would not finish */
	size_t n = 200000;
	char *t = malloc(n * 16 + 64), *p = t;
	p += sprintf(p, "[s]\n");
	for (size_t i = 0; i < n; i++)
		p += sprintf(p, "k%zu=v\n", i);
	p += sprintf(p, "big =\n");
	for (size_t i = 0; i < n; i++)
		p += sprintf(p, " x\n");
	cJSON *o = NULL;
	struct err e = {0};
	cr_assert_eq(ini_parse(t, (size_t)(p - t), &o, &e), 0, "%s", e.msg);
	cr_assert_eq(cJSON_GetArraySize(cJSON_GetObjectItem(o, "s")), (int)n + 1);
	cr_assert_eq(strlen(jx_str(jx_obj(o, "s"), "big")), 2 * n);
	cJSON_Delete(o);
	free(t);
}
