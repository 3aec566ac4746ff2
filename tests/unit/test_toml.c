/* test_toml.c - src/assertions/toml.c: TOML documents as the JSON tree a TOML 1.0 reader
 * builds (manifests as they are written in the wild, every value kind, document order),
 * and each class of error the header names, with the line it is on. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "assertions/toml.h"

/* Parses `doc` and compares its compact print with that of the JSON `want` (so member
 * order counts as well as values). */
static void same_n(const char *doc, size_t n, const char *want)
{
	cJSON *out = (cJSON *)1;
	struct err e = {0};
	int rc = toml_parse(doc, n, &out, &e);
	cr_assert_eq(rc, 0, "refused: %s\n---\n%s", e.msg, doc);
	cr_assert_not_null(out);
	cJSON *w = cJSON_Parse(want);
	cr_assert_not_null(w, "bad JSON in the test: %s", want);
	char *got = cJSON_PrintUnformatted(out), *exp = cJSON_PrintUnformatted(w);
	cr_assert_str_eq(got, exp, "for\n%s", doc);
	cr_assert(cJSON_Compare(out, w, 1));
	free(got);
	free(exp);
	cJSON_Delete(w);
	cJSON_Delete(out);
}

static void same(const char *doc, const char *want)
{
	same_n(doc, strlen(doc), want);
}

static cJSON *parse_ok(const char *doc)
{
	cJSON *out = NULL;
	struct err e = {0};
	cr_assert_eq(toml_parse(doc, strlen(doc), &out, &e), 0, "refused: %s\n---\n%s", e.msg, doc);
	return out;
}

/* Expects a refusal on `line` whose message mentions `what`. */
static void bad_n(const char *doc, size_t n, unsigned line, const char *what)
{
	cJSON *out = (cJSON *)1;
	struct err e = {0};
	int rc = toml_parse(doc, n, &out, &e);
	cr_assert_eq(rc, BELAY_EINVAL, "accepted (rc %d):\n%s", rc, doc);
	cr_assert_eq(e.code, BELAY_EINVAL);
	cr_assert_null(out);
	char pre[32];
	snprintf(pre, sizeof pre, "line %u, column ", line);
	cr_assert(!strncmp(e.msg, pre, strlen(pre)), "want line %u, got \"%s\" for\n%s", line, e.msg, doc);
	cr_assert(strstr(e.msg, what), "\"%s\" does not mention \"%s\" for\n%s", e.msg, what, doc);
}

static void bad(const char *doc, unsigned line, const char *what)
{
	bad_n(doc, strlen(doc), line, what);
}

Test(toml, cargo_manifest)
{
	same("# Cargo.toml\n"
	     "[package]\n"
	     "name = \"belay-demo\"\n"
	     "version = \"0.1.0\"  # semver\n"
	     "edition = \"2021\"\n"
	     "authors = [\"A <a@example.com>\", \"B\"]\n"
	     "\n"
	     "[dependencies]\n"
	     "serde = { version = \"1.0\", features = [\"derive\"] }\n"
	     "tokio = \"1\"\n"
	     "\n"
	     "[dev-dependencies.criterion]\n"
	     "version = \"0.5\"\n"
	     "\n"
	     "[[test]]\n"
	     "name = \"one\"\n"
	     "path = \"tests/one.rs\"\n"
	     "\n"
	     "[[test]]\n"
	     "name = \"two\"\n"
	     "harness = false\n"
	     "\n"
	     "[[test]]\n"
	     "name = \"three\"\n"
	     "\n"
	     "[profile.release]\n"
	     "lto = true\n"
	     "opt-level = 3\n",
	     "{\"package\":{\"name\":\"belay-demo\",\"version\":\"0.1.0\",\"edition\":\"2021\","
	     "\"authors\":[\"A <a@example.com>\",\"B\"]},"
	     "\"dependencies\":{\"serde\":{\"version\":\"1.0\",\"features\":[\"derive\"]},\"tokio\":\"1\"},"
	     "\"dev-dependencies\":{\"criterion\":{\"version\":\"0.5\"}},"
	     "\"test\":[{\"name\":\"one\",\"path\":\"tests/one.rs\"},{\"name\":\"two\",\"harness\":false},"
	     "{\"name\":\"three\"}],"
	     "\"profile\":{\"release\":{\"lto\":true,\"opt-level\":3}}}");
}

Test(toml, pyproject_addopts_as_string_and_as_array)
{
	same("[build-system]\n"
	     "requires = [\"setuptools>=61\", \"wheel\"]\n"
	     "build-backend = \"setuptools.build_meta\"\n"
	     "\n"
	     "[project]\n"
	     "name = \"demo\"\n"
	     "dependencies = [\n"
	     "    \"requests>=2\",  # http\n"
	     "    # a comment line inside the array\n"
	     "    \"click\",\n"
	     "]\n"
	     "\n"
	     "[project.optional-dependencies]\n"
	     "test = [\"pytest\", \"pytest-cov\"]\n"
	     "\n"
	     "[tool.pytest.ini_options]\n"
	     "addopts = \"-ra -q --strict-markers\"\n"
	     "testpaths = [\"tests\"]\n",
	     "{\"build-system\":{\"requires\":[\"setuptools>=61\",\"wheel\"],"
	     "\"build-backend\":\"setuptools.build_meta\"},"
	     "\"project\":{\"name\":\"demo\",\"dependencies\":[\"requests>=2\",\"click\"],"
	     "\"optional-dependencies\":{\"test\":[\"pytest\",\"pytest-cov\"]}},"
	     "\"tool\":{\"pytest\":{\"ini_options\":{\"addopts\":\"-ra -q --strict-markers\","
	     "\"testpaths\":[\"tests\"]}}}}");
	same("[tool.pytest.ini_options]\n"
	     "addopts = [\n"
	     "  \"-ra\",\n"
	     "  \"-q\"\n"
	     "]\n"
	     "[tool.coverage.run]\n"
	     "branch = true\n",
	     "{\"tool\":{\"pytest\":{\"ini_options\":{\"addopts\":[\"-ra\",\"-q\"]}},"
	     "\"coverage\":{\"run\":{\"branch\":true}}}}");
}

Test(toml, dotted_and_quoted_keys)
{
	same("a.b.c = 1\n"
	     "\"a.b\" = 2\n"
	     "'x'.y = 3\n"
	     "site.\"google.com\" = true\n"
	     "a . d = 4\n"
	     "1234 = 5\n"
	     "\"\" = 6\n"
	     "\"\\u00e9\" = 7\n"
	     "3.14 = 8\n"
	     "true = 9\n",
	     "{\"a\":{\"b\":{\"c\":1},\"d\":4},\"a.b\":2,\"x\":{\"y\":3},\"site\":{\"google.com\":true},"
	     "\"1234\":5,\"\":6,\"\u00e9\":7,\"3\":{\"14\":8},\"true\":9}");
	same("[ a . \"b c\" . 'd' ]\nx = 1\n", "{\"a\":{\"b c\":{\"d\":{\"x\":1}}}}");
}

Test(toml, equal_documents_written_differently)
{
	const char *docs[] = {
	    "[a]\nb = 1\nc = { d = \"x\" }\n",
	    "a.b = 1\na.c.d = \"x\"\n",
	    "a = { b = 1, c.d = \"x\" }\n",
	    "[a]\nb = 1\n[a.c]\nd = 'x'\n",
	    "# leading comment\n[a] # trailing\n  b = 0x1\n\n  [a.c]\n  \"d\" = \"\"\"x\"\"\"\n",
	    "[a.c]\nd = \"x\"\n[a]\nb = 1\n",
	};
	cJSON *first = parse_ok(docs[0]);
	for (size_t i = 1; i < sizeof docs / sizeof *docs; i++) {
		cJSON *t = parse_ok(docs[i]);
		cr_assert(cJSON_Compare(first, t, 1), "document %zu differs:\n%s", i, docs[i]);
		cJSON_Delete(t);
	}
	cJSON_Delete(first);
}

Test(toml, member_order_follows_the_document)
{
	same("zeta = 1\nalpha = 2\nmid.z = 3\nmid.a = 4\n[y]\n[b]\nq = 1\np = 2\n[[x]]\n[c]\n",
	     "{\"zeta\":1,\"alpha\":2,\"mid\":{\"z\":3,\"a\":4},\"y\":{},\"b\":{\"q\":1,\"p\":2},\"x\":[{}],\"c\":{}}");
	/* A table first reached through a header's path keeps the place it was first named. */
	same("[k.s]\nv = 1\n[a]\n[k]\nw = 2\n", "{\"k\":{\"s\":{\"v\":1},\"w\":2},\"a\":{}}");
}

Test(toml, strings_of_every_kind)
{
	same("b = \"tab\\tnl\\nq\\\"bs\\\\ \\b\\f\\r \\u00e9 \\U0001F600\"\n"
	     "l = 'C:\\Users\\nodejs\\templates'\n"
	     "e = \"\"\n"
	     "el = ''\n"
	     "m = \"\"\"\nRoses are red\nViolets are blue\"\"\"\n"
	     "j = \"\"\"The quick brown \\\n\n    fox jumps \\\n    over.\"\"\"\n"
	     "q = \"\"\"Here are two quotation marks: \"\". Simple enough.\"\"\"\n"
	     "q2 = \"\"\"\"\"This,\" she said, \"is just a pointless statement.\"\"\"\"\"\n"
	     "ml = '''\nThe first newline is\ntrimmed in raw strings.\n   All other \\ whitespace\n   is "
	     "preserved.\n'''\n"
	     "ml2 = ''''That,' she said, 'is still pointless.''''\n"
	     "u = \"\xe2\x82\xac \xf0\x9f\x98\x80\"\n",
	     "{\"b\":\"tab\\tnl\\nq\\\"bs\\\\ \\b\\f\\r \u00e9 \xf0\x9f\x98\x80\","
	     "\"l\":\"C:\\\\Users\\\\nodejs\\\\templates\",\"e\":\"\",\"el\":\"\","
	     "\"m\":\"Roses are red\\nViolets are blue\","
	     "\"j\":\"The quick brown fox jumps over.\","
	     "\"q\":\"Here are two quotation marks: \\\"\\\". Simple enough.\","
	     "\"q2\":\"\\\"\\\"This,\\\" she said, \\\"is just a pointless statement.\\\"\\\"\","
	     "\"ml\":\"The first newline is\\ntrimmed in raw strings.\\n   All other \\\\ whitespace\\n   is "
	     "preserved.\\n\","
	     "\"ml2\":\"'That,' she said, 'is still pointless.'\","
	     "\"u\":\"\xe2\x82\xac \xf0\x9f\x98\x80\"}");
	/* CRLF line endings: the same tree as LF (multi-line strings included). */
	cJSON *lf = parse_ok("[t]\ns = \"\"\"\na\nb\"\"\"\nr = '''x\ny'''\n");
	cJSON *crlf = parse_ok("[t]\r\ns = \"\"\"\r\na\r\nb\"\"\"\r\nr = '''x\r\ny'''\r\n");
	cr_assert(cJSON_Compare(lf, crlf, 1));
	cJSON_Delete(lf);
	cJSON_Delete(crlf);
}

Test(toml, integers)
{
	same("a = +99\nb = 42\nc = 0\nd = -17\ne = 1_000\nf = 5_349_221\ng = 0xDEADBEEF\nh = 0xdead_beef\n"
	     "i = 0o755\nj = 0b1101_0110\nk = -0\nl = +0\nm = 0x0\n",
	     "{\"a\":99,\"b\":42,\"c\":0,\"d\":-17,\"e\":1000,\"f\":5349221,\"g\":3735928559,\"h\":3735928559,"
	     "\"i\":493,\"j\":214,\"k\":0,\"l\":0,\"m\":0}");
	/* Past 2^53 a double would round: the decimal text instead. */
	same("a = 9007199254740992\nb = -9007199254740992\nc = 9007199254740993\nd = 9223372036854775807\n"
	     "e = -9223372036854775808\nf = 0x7FFF_FFFF_FFFF_FFFF\ng = 0o777777777777777777777\n",
	     "{\"a\":9007199254740992,\"b\":-9007199254740992,\"c\":\"9007199254740993\","
	     "\"d\":\"9223372036854775807\",\"e\":\"-9223372036854775808\",\"f\":\"9223372036854775807\","
	     "\"g\":\"9223372036854775807\"}");
}

Test(toml, floats)
{
	same("a = +1.0\nb = 3.1415\nc = -0.01\nd = 5e+22\ne = 1e06\nf = -2E-2\ng = 6.626e-34\n"
	     "h = 224_617.445_991_228\ni = 1e1_0\n",
	     "{\"a\":1,\"b\":3.1415,\"c\":-0.01,\"d\":5e+22,\"e\":1000000,\"f\":-0.02,\"g\":6.626e-34,"
	     "\"h\":224617.445991228,\"i\":10000000000}");
	same("a = inf\nb = +inf\nc = -inf\nd = nan\ne = +nan\nf = -nan\ng = 1e400\nh = -1e400\n",
	     "{\"a\":\"inf\",\"b\":\"inf\",\"c\":\"-inf\",\"d\":\"nan\",\"e\":\"nan\",\"f\":\"nan\","
	     "\"g\":\"inf\",\"h\":\"-inf\"}");
	cJSON *t = parse_ok("z = -0.0\n");
	cr_assert(cJSON_IsNumber(cJSON_GetObjectItem(t, "z")));
	cJSON_Delete(t);
}

Test(toml, booleans_dates_and_times_as_written)
{
	same("t = true\nf = false\n"
	     "odt1 = 1979-05-27T07:32:00Z\n"
	     "odt2 = 1979-05-27T00:32:00-07:00\n"
	     "odt3 = 1979-05-27T00:32:00.999999+07:00\n"
	     "odt4 = 1979-05-27 07:32:00z\n"
	     "ldt = 1979-05-27t07:32:00.5\n"
	     "ld = 2024-02-29 # leap day\n"
	     "lt = 00:32:00.999999\n"
	     "leap = 1990-12-31T23:59:60Z\n",
	     "{\"t\":true,\"f\":false,\"odt1\":\"1979-05-27T07:32:00Z\",\"odt2\":\"1979-05-27T00:32:00-07:00\","
	     "\"odt3\":\"1979-05-27T00:32:00.999999+07:00\",\"odt4\":\"1979-05-27 07:32:00z\","
	     "\"ldt\":\"1979-05-27t07:32:00.5\",\"ld\":\"2024-02-29\",\"lt\":\"00:32:00.999999\","
	     "\"leap\":\"1990-12-31T23:59:60Z\"}");
}

Test(toml, arrays_and_inline_tables)
{
	same("a = []\n"
	     "b = [ [ 1, 2 ], [\"a\", 'b', [true]] ]\n"
	     "c = [ 0.1, \"mixed\", { x = 1 }, 1979-05-27, [] ]\n"
	     "d = [\n  1,\n  2, # two\n\n  3,\n]\n"
	     "e = {}\n"
	     "f = { g = { h = [ { i = 1 }, { i = 2 } ] }, \"j k\" = 'l' }\n"
	     "p = { type.name = \"pug\", type.size = 'small' }\n",
	     "{\"a\":[],\"b\":[[1,2],[\"a\",\"b\",[true]]],\"c\":[0.1,\"mixed\",{\"x\":1},\"1979-05-27\",[]],"
	     "\"d\":[1,2,3],\"e\":{},\"f\":{\"g\":{\"h\":[{\"i\":1},{\"i\":2}]},\"j k\":\"l\"},"
	     "\"p\":{\"type\":{\"name\":\"pug\",\"size\":\"small\"}}}");
}

Test(toml, arrays_of_tables_with_sub_tables)
{
	same("[[fruits]]\n"
	     "name = \"apple\"\n"
	     "[fruits.physical]\n"
	     "color = \"red\"\n"
	     "[[fruits.varieties]]\n"
	     "name = \"red delicious\"\n"
	     "[[fruits.varieties]]\n"
	     "name = \"granny smith\"\n"
	     "[[fruits]]\n"
	     "name = \"banana\"\n"
	     "[[fruits.varieties]]\n"
	     "name = \"plantain\"\n"
	     "[[a.b]]\n"
	     "x.y = 1\n"
	     "[[a.b]]\n"
	     "x.y = 2\n",
	     "{\"fruits\":[{\"name\":\"apple\",\"physical\":{\"color\":\"red\"},"
	     "\"varieties\":[{\"name\":\"red delicious\"},{\"name\":\"granny smith\"}]},"
	     "{\"name\":\"banana\",\"varieties\":[{\"name\":\"plantain\"}]}],"
	     "\"a\":{\"b\":[{\"x\":{\"y\":1}},{\"x\":{\"y\":2}}]}}");
}

Test(toml, tables_toml_allows)
{
	/* Sub-tables of a table made by dotted keys; an implicit table defined later; dotted
	 * keys through a table a header made implicitly. */
	same("[fruit]\napple.color = \"red\"\napple.taste.sweet = true\n[fruit.apple.texture]\nsmooth = true\n",
	     "{\"fruit\":{\"apple\":{\"color\":\"red\",\"taste\":{\"sweet\":true},\"texture\":{\"smooth\":true}}}}");
	same("[x.y.z.w]\n[x]\nv = 1\n", "{\"x\":{\"y\":{\"z\":{\"w\":{}}},\"v\":1}}");
	same("a.b = 1\n[a.c]\nd = 2\n", "{\"a\":{\"b\":1,\"c\":{\"d\":2}}}");
	same("[a.b.c]\nz = 9\n[a]\nb.d = 1\n", "{\"a\":{\"b\":{\"c\":{\"z\":9},\"d\":1}}}");
	same("", "{}");
	same("# only a comment", "{}");
	same("a = 1", "{\"a\":1}");
	same("\n\n  \t\n", "{}");
	same("\xef\xbb\xbf"
	     "a = 1\n",
	     "{\"a\":1}");
}

Test(toml, comments_everywhere)
{
	same("# head\n"
	     "a = 1 # after a value\n"
	     "# between\n"
	     "[t] # after a header\n"
	     "# inside a table\n"
	     "b = [ # after [\n"
	     "  1, # after an element\n"
	     "  # own line\n"
	     "  2\n"
	     "] # after ]\n"
	     "[[u]] # after [[ ]]\n"
	     "c = \"# not a comment\" # but this is \xc3\xa9\t\n"
	     "# tail",
	     "{\"a\":1,\"t\":{\"b\":[1,2]},\"u\":[{\"c\":\"# not a comment\"}]}");
}

Test(toml, syntax_errors_name_their_line)
{
	bad("a = 1 b = 2\n", 1, "");
	bad("a = 1\n[b\nc = 2\n", 2, "");
	bad("a = 1\nb = \"open\n", 2, "");
	bad("a = 1\n\nx =\n", 3, "");
	bad("a = { b = 1,\n c = 2 }\n", 1, "");
	bad("a = { b = 1, }\n", 1, "");
	bad("[t]\na = 01\n", 2, "");
	bad("a = 1.\n", 1, "");
	bad("a = \"\\x41\"\n", 1, "");
	bad("a = \"tab\\ \"\n", 1, "");
	bad("a = 1\n# bad \x01 control\n", 2, "");
	bad("a = 1\rb = 2\n", 1, "");
	bad("[a]b = 1\n", 1, "");
	bad("a = trueish\n", 1, "");
	bad("a = 1\n[t]\nb = [1,\n", 3, "");
}

Test(toml, keys_and_tables_defined_twice)
{
	bad("a = 1\nb = 2\na = 3\n", 3, "a");
	bad("a = 1\n\"a\" = 2\n", 2, "twice");
	bad("a = { b = 1, b = 2 }\n", 1, "b");
	bad("[a]\nx = 1\n[b]\n[a]\n", 4, "a");
	bad("[a]\n[a.b]\n[a]\n", 3, "a");
	bad("[a.b]\nc = 1\n[a.b]\n", 3, "a.b");
	bad("[t]\nx.y = 1\nx.y = 2\n", 3, "x.y");
	bad("[[a]]\n[a]\n", 2, "a");
	bad("[a]\n[[a]]\n", 2, "a");
}

Test(toml, tables_made_by_dotted_keys_are_not_redefined)
{
	bad("a.b = 1\n[a]\n", 2, "a");
	bad("[fruit]\napple.color = \"red\"\n[fruit.apple]\n", 3, "fruit.apple");
	bad("[fruit]\napple.taste.sweet = true\n[fruit.apple.taste]\n", 3, "fruit.apple.taste");
	/* ... nor tables made by headers extended by dotted keys. */
	bad("[a.b.c]\nz = 9\n[a]\nb.c.t = 1\n", 4, "b.c.t");
	bad("[a.b.c.d]\nz = 9\n[a]\nb.c.d.k.t = 1\n", 4, "b.c.d.k.t");
	bad("[a]\nb.c = 1\n[x]\n[a.b]\n", 4, "a.b");
}

Test(toml, inline_tables_and_arrays_are_closed)
{
	bad("a = { b = 1 }\n[a.c]\n", 2, "inline");
	bad("a = { b = 1 }\na.c = 2\n", 2, "inline");
	bad("[product]\ntype = { name = \"Nail\" }\ntype.edible = false\n", 3, "inline");
	bad("a = { b = { c = 1 } }\n[a.b]\n", 2, "inline");
	bad("a = { b.c = 1, b = 2 }\n", 1, "b");
	bad("a = [1]\n[[a]]\n", 2, "a");
	bad("a = [{ b = 1 }]\n[a.c]\n", 2, "a");
}

Test(toml, key_paths_through_values)
{
	bad("a = 1\na.b = 2\n", 2, "a.b");
	bad("a = 1\n[a.b]\n", 2, "a.b");
	bad("a = \"s\"\n[[a]]\n", 2, "a");
	bad("[[a]]\n[b]\n[a]\nx.y = 1\n", 3, "a");
	bad("[[a.b]]\n[a]\nb.x = 1\n", 3, "b.x");
}

Test(toml, integers_out_of_range)
{
	bad("a = 9223372036854775808\n", 1, "range");
	bad("x = 1\na = -9223372036854775809\n", 2, "range");
	bad("a = 0xFFFF_FFFF_FFFF_FFFF\n", 1, "range");
	bad("a = 0b1000000000000000000000000000000000000000000000000000000000000000\n", 1, "range");
	bad("a = 99999999999999999999999999999999999999\n", 1, "range");
}

Test(toml, escapes_must_be_unicode_scalars)
{
	bad("a = \"\\uD800\"\n", 1, "\\uD800");
	bad("a = 1\nb = \"x\\U00110000\"\n", 2, "\\U00110000");
	bad("a = \"\"\"\nok\n  \\uDFFF\"\"\"\n", 3, "\\uDFFF");
	bad("\"k\\uDBFF\" = 1\n", 1, "\\uDBFF");
	/* NUL has no place in a JSON string of cJSON's. */
	bad("a = \"x\\u0000\"\n", 1, "NUL");
}

Test(toml, invalid_utf8_and_nul)
{
	bad("a = \"\xff\"\n", 1, "UTF-8");
	bad("# ok\nb = \"\xc3\x28\"\n", 2, "UTF-8");
	bad("a = 1\n# \xc0\xaf overlong\n", 2, "UTF-8");
	bad("a = '\xed\xa0\x80'\n", 1, "UTF-8"); /* an encoded surrogate */
	bad("a = 1\nb = \"\xf4\x90\x80\x80\"\n", 2, "UTF-8");
	bad("k\xe9y = 1\n", 1, "UTF-8");
	bad_n("a = 1\nb = \"x\0y\"\n", 14, 2, "NUL");
	bad_n("a = 1\n\0", 7, 2, "NUL");
}

Test(toml, impossible_dates)
{
	bad("a = 2023-02-29\n", 1, "date");
	bad("a = 1\nb = 2024-04-31T00:00:00Z\n", 2, "date");
	bad("a = 12345-01-01\n", 1, "date");
	same("a = 2000-02-29\nb = 1900-02-28\n", "{\"a\":\"2000-02-29\",\"b\":\"1900-02-28\"}");
	bad("a = 1900-02-29\n", 1, "date");
}

static char *repeat_doc(const char *head, const char *open, const char *mid, const char *close, int n)
{
	size_t len = strlen(head) + n * (strlen(open) + strlen(close)) + strlen(mid) + 2;
	char *s = malloc(len), *p = s;
	p += sprintf(p, "%s", head);
	for (int i = 0; i < n; i++)
		p += sprintf(p, "%s", open);
	p += sprintf(p, "%s", mid);
	for (int i = 0; i < n; i++)
		p += sprintf(p, "%s", close);
	sprintf(p, "\n");
	return s;
}

Test(toml, nesting_is_bounded)
{
	struct {
		const char *head, *open, *mid, *close;
	} shapes[] = {
	    {"a = ", "[", "1", "]"}, {"a = ", "{b = ", "1", "}"},   {"[", "a.", "a]", ""},
	    {"", "a.", "a = 1", ""}, {"a = ", "{b.c = ", "1", "}"},
	};
	for (size_t i = 0; i < sizeof shapes / sizeof *shapes; i++) {
		char *ok = repeat_doc(shapes[i].head, shapes[i].open, shapes[i].mid, shapes[i].close, 40);
		cJSON_Delete(parse_ok(ok));
		free(ok);
		char *deep = repeat_doc(shapes[i].head, shapes[i].open, shapes[i].mid, shapes[i].close, 300);
		bad(deep, 1, "deep");
		free(deep);
	}
	/* Far deeper than any stack would take if the walk recursed with the input. */
	char *huge = repeat_doc("a = ", "[", "", "]", 200000);
	bad(huge, 1, "deep");
	free(huge);
	char *open = repeat_doc("a = ", "[", "", "", 200000);
	cJSON *out = (cJSON *)1;
	struct err e = {0};
	cr_assert_eq(toml_parse(open, strlen(open), &out, &e), BELAY_EINVAL);
	cr_assert_null(out);
	free(open);
	/* Arrays of tables count their array and element. */
	char *aot = repeat_doc("[[", "a.", "a]]", "", 127);
	bad(aot, 1, "deep");
	free(aot);
}

Test(toml, large_input_is_refused_before_parsing)
{
	size_t n = TOML_MAX_BYTES + 1;
	char *big = malloc(n);
	memset(big, '#', n);
	cJSON *out = (cJSON *)1;
	struct err e = {0};
	cr_assert_eq(toml_parse(big, n, &out, &e), BELAY_EINVAL);
	cr_assert_null(out);
	cr_assert(strstr(e.msg, "large") || strstr(e.msg, "bytes"), "%s", e.msg);
	free(big);
}

Test(toml, many_keys_and_tables_parse_in_reasonable_time)
{
	/* Member look-ups are hashed: 100k keys in one table and 20k tables are not quadratic. */
	struct {
		const char *fmt;
		int n;
	} shapes[] = {{"k%d = %d\n", 60000}, {"[t%d]\nv = %d\n", 20000}, {"[[a]]\nv%d = %d\n", 20000}};
	for (size_t s = 0; s < 3; s++) {
		size_t cap = (size_t)shapes[s].n * 32, len = 0;
		char *doc = malloc(cap);
		for (int i = 0; i < shapes[s].n; i++)
			len += (size_t)snprintf(doc + len, cap - len, shapes[s].fmt, i, i);
		cJSON *out = NULL;
		struct err e = {0};
		cr_assert_eq(toml_parse(doc, len, &out, &e), 0, "%s", e.msg);
		cJSON_Delete(out);
		free(doc);
	}
}

Test(toml, text_need_not_be_nul_terminated)
{
	const char doc[] = "a = 1\nb = 2\nGARBAGE[[[";
	same_n(doc, 12, "{\"a\":1,\"b\":2}");
}

Test(toml, grammar_abi_is_reported)
{
	cr_assert_geq(toml_grammar_abi(), 13);
}
