/* test_layout.c - the source layout is checked, not just written: scripts/layering.py (no
 * include climbs src/LAYERS, no two folders include each other, every folder is listed) and
 * scripts/cited_paths.py (every src/ path the docs, scripts and sources cite exists) pass on
 * this tree, and each fails on a small tree built to break it; so does scripts/test_tiers.py
 * (every test is listed in tests/TIERS with the tier its rule gives). */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "tsupport.h"

static int run(const char *script, const char *root, struct ts_out *o)
{
	char path[4096];
	snprintf(path, sizeof path, "%s/scripts/%s", BELAY_SOURCE_DIR, script);
	const char *argv[] = {"python3", path, "--root", root ? root : BELAY_SOURCE_DIR, NULL};
	ts_run(argv, NULL, NULL, NULL, 0, 120, o);
	return o->status;
}

static void put(const char *root, const char *rel, const char *text)
{
	char p[4096];
	snprintf(p, sizeof p, "%s/%s", root, rel);
	for (char *s = strchr(p + strlen(root) + 1, '/'); s; s = strchr(s + 1, '/')) {
		*s = '\0';
		mkdir(p, 0755);
		*s = '/';
	}
	ts_write_file(p, text, strlen(text));
}

Test(layout, this_tree_keeps_its_layering_and_cites_only_paths_that_exist)
{
	struct ts_out o = {0};
	cr_assert_eq(run("layering.py", NULL, &o), 0, "%s%s", o.out, o.err);
	cr_assert(strstr(o.out, " 0 problems"), "%s", o.out);
	ts_out_free(&o);
	cr_assert_eq(run("cited_paths.py", NULL, &o), 0, "%s%s", o.out, o.err);
	ts_out_free(&o);
}

Test(layout, an_include_that_climbs_the_order_a_cycle_and_an_unlisted_folder_fail)
{
	char *root = ts_tmpdir("layout");
	put(root, "src/LAYERS", "# lowest first\nlow\nhigh\n");
	put(root, "src/low/low.c", "#include \"low/low.h\"\n#include \"high/high.h\"\n");
	put(root, "src/low/low.h", "\n");
	put(root, "src/high/high.h", "#include \"low/low.h\"\n");
	put(root, "src/stray/stray.c", "int stray;\n");
	struct ts_out o = {0};
	cr_assert_eq(run("layering.py", root, &o), 1, "%s%s", o.out, o.err);
	cr_assert(strstr(o.out, "climb low -> high: src/low/low.c:2"), "%s", o.out);
	cr_assert(strstr(o.out, "cycle high <-> low"), "%s", o.out);
	cr_assert(strstr(o.out, "unlisted stray"), "%s", o.out);
	ts_out_free(&o);

	/* The same tree in order: low is included by high only. */
	put(root, "src/low/low.c", "#include \"low/low.h\"\n");
	put(root, "src/LAYERS", "low\nhigh\nstray\n");
	cr_assert_eq(run("layering.py", root, &o), 0, "%s%s", o.out, o.err);
	ts_out_free(&o);
	free(root);
}

Test(layout, a_cited_path_that_moved_away_fails)
{
	char *root = ts_tmpdir("cited");
	put(root, "src/proxy/session.c", "/* the queue is in proxy/admission.h */\n");
	put(root, "src/proxy/admission.h", "\n");
	put(root, "docs/X.md", "See src/proxy/session.c and src/proxy/*.c, src/proxy/.\nsrc/proxy/{session.c,admission.h}.\n");
	struct ts_out o = {0};
	cr_assert_eq(run("cited_paths.py", root, &o), 0, "%s%s", o.out, o.err);
	ts_out_free(&o);
	put(root, "docs/X.md", "See src/engine/session.c; the helpers are src/proxy/*.py.\nsrc/proxy/session.{c,h}\n");
	put(root, "src/proxy/session.c", "/* the queue is in engine/turn_gate.h */\n");
	cr_assert_eq(run("cited_paths.py", root, &o), 1, "%s%s", o.out, o.err);
	cr_assert(strstr(o.out, "docs/X.md:1: src/engine/session.c"), "%s", o.out);
	cr_assert(strstr(o.out, "docs/X.md:1: src/proxy/*.py"), "%s", o.out);
	cr_assert(strstr(o.out, "src/proxy/session.c:1: engine/turn_gate.h"), "%s", o.out);
	cr_assert(strstr(o.out, "docs/X.md:2: src/proxy/session.{c,h}"), "%s", o.out);
	ts_out_free(&o);
	free(root);
}

Test(layout, every_test_is_listed_in_the_tier_its_rule_gives)
{
	struct ts_out o = {0};
	cr_assert_eq(run("test_tiers.py", NULL, &o), 0, "%s%s", o.out, o.err);
	cr_assert(strstr(o.out, " 0 problems"), "%s", o.out);
	ts_out_free(&o);
}

Test(layout, a_test_in_the_wrong_tier_or_in_none_fails)
{
	char *root = ts_tmpdir("tiers");
	/* ts_drive runs belay through a helper of its own; the comment in test_b is no marker. */
	put(root, "tests/support/ts_x.c",
	    "static int run_belay(void)\n{\n\treturn system(BELAY_BIN);\n}\n\n"
	    "int ts_drive(int x)\n{\n\treturn run_belay() + x;\n}\n");
	put(root, "tests/unit/test_a.c", "Test(a, b)\n{\n\tts_drive(1);\n}\n");
	put(root, "tests/unit/test_b.c", "/* unlike ts_tmux_start(), a comment */\nTest(b, c)\n{\n\tint x = 1;\n}\n");
	put(root, "tests/unit/test_c.c", "Test(c, d)\n{\n\tchar *p = ts_peers();\n\tts_tmux_start(p);\n}\n");
	put(root, "tests/unit/test_d.c", "Test(d, e)\n{\n\tchar *p = ts_peers();\n\tts_drive(0);\n}\n");
	put(root, "tests/TIERS", "# a comment\ntest_a unit\ntest_b unit\ntest_d end-to-end\ntest_gone unit\n");
	struct ts_out o = {0};
	cr_assert_eq(run("test_tiers.py", root, &o), 1, "%s%s", o.out, o.err);
	cr_assert(strstr(o.out, "tests/TIERS: test_a is unit, its rule says functional"), "%s", o.out);
	cr_assert(strstr(o.out, "tests/TIERS: test_c is missing (its rule says console)"), "%s", o.out);
	cr_assert(strstr(o.out, "tests/TIERS: test_gone has no tests/unit/test_gone.c"), "%s", o.out);
	cr_assert_null(strstr(o.out, "test_b"), "%s", o.out);
	cr_assert_null(strstr(o.out, "test_d"), "%s", o.out);
	ts_out_free(&o);

	put(root, "tests/TIERS", "test_a functional\ntest_b unit\ntest_c console\ntest_d end-to-end\n");
	cr_assert_eq(run("test_tiers.py", root, &o), 0, "%s%s", o.out, o.err);
	cr_assert(strstr(o.out, "4 tests (1 unit, 1 functional, 1 end-to-end, 1 console), 0 problems"), "%s", o.out);
	ts_out_free(&o);
	free(root);
}

Test(layout, sql_stays_with_the_owner_of_its_table_but_for_the_listed_sites)
{
	struct ts_out o = {0};
	cr_assert_eq(run("sql_owners.py", NULL, &o), 0, "%s%s", o.out, o.err);
	cr_assert(strstr(o.out, " 0 new"), "%s", o.out);
	ts_out_free(&o);
}

Test(layout, a_new_sql_site_outside_the_owner_fails)
{
	char *root = ts_tmpdir("sqlown");
	put(root, "src/store/002-t.sql", "-- 002-t.sql - the t table.\n-- Owned by src/own/own.c.\nCREATE TABLE t (a);\n");
	put(root, "src/store/store.c", "static const char *m = \"DELETE FROM t\";\n");
	put(root, "src/own/own.c", "int own_read(void)\n{\n\treturn q(\"SELECT a FROM t\");\n}\n");
	put(root, "src/other/other.c",
	    "/* not a site: \"SELECT a FROM t\" in a comment */\n"
	    "static int other_read(void)\n{\n\treturn q(\"SELECT a \" COLS\n\t\t \" FROM x, t WHERE 1\");\n}\n");
	put(root, "scripts/sql_owners.allow", "# none yet\n");
	struct ts_out o = {0};
	cr_assert_eq(run("sql_owners.py", root, &o), 1, "%s%s", o.out, o.err);
	cr_assert(strstr(o.out, "src/other/other.c:4: SQL over t in other_read() outside own/"), "%s", o.out);
	cr_assert(strstr(o.out, "1 SQL sites outside their owners (1 in other/), 1 new"), "%s", o.out);
	ts_out_free(&o);

	put(root, "scripts/sql_owners.allow", "src/other/other.c other_read t\nsrc/other/other.c gone t\n");
	cr_assert_eq(run("sql_owners.py", root, &o), 0, "%s%s", o.out, o.err);
	cr_assert(strstr(o.out, "note: scripts/sql_owners.allow lists 1 more 'src/other/other.c gone t'"), "%s", o.out);
	ts_out_free(&o);

	/* A second statement over t in the same function is a new site too. */
	put(root, "src/other/other.c",
	    "static int other_read(void)\n{\n\tq(\"UPDATE t SET a = 1\");\n\treturn q(\"SELECT a FROM t\");\n}\n");
	cr_assert_eq(run("sql_owners.py", root, &o), 1, "%s%s", o.out, o.err);
	cr_assert(strstr(o.out, "src/other/other.c:4: SQL over t in other_read()"), "%s", o.out);
	ts_out_free(&o);
	free(root);
}
