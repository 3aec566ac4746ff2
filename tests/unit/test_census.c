/* test_census.c - the tests-collected rule (src/verify/census.{c,h}) with real runners: a
 * scripted agent changes a Python or Go project through the demo shell server, recorded
 * contained by `belay __script`; `belay verify --census --json` runs the project's runner in
 * list mode in the task's first pre-state and in the final state, and the census verdict must
 * name what was dropped or skipped - and PASS an honest change (a test gaining a parameter).
 * Workspaces live on the root disk (/var/tmp): the sandbox hides /dev/shm. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/fsutil.h"
#include "common/jsonx.h"
#include "common/xalloc.h"
#include "tsupport.h"
#include "tui/cmodel.h"
#include "tui/runv.h"

#define DEMO BELAY_BUILD_DIR "/belay-demo-server"

static char *dir, *ws, *state, *traces;

static void setup(void)
{
	dir = ts_outside_dir("census");
	chmod(dir, 0755);
	ws = fs_join(dir, "ws");
	state = fs_join(dir, "state");
	traces = fs_join(dir, "traces");
	cr_assert_eq(fs_mkdir_p(ws, 0755, NULL), 0);
}

static void teardown(void)
{
	ts_rmtree(dir);
	free(dir);
	free(ws);
	free(state);
	free(traces);
}

TestSuite(census, .init = setup, .fini = teardown, .timeout = 240);

/* Records one run_process call of `cmd` (JSON-escaped already) against the shell server, then
 * the agent's claim `claim` when given (NULL: none). */
static char *record_claim(const char *cmd, const char *claim)
{
	char *tail = claim ? xasprintf(",{\"claim\":\"%s\"}", claim) : xstrdup("");
	char *steps = xasprintf("[{\"initialize\":{}},{\"list\":true},{\"call\":\"run_process\",\"args\":{\"command_line\":"
				"\"%s\"}}%s]",
				cmd, tail);
	char *sp = fs_join(dir, "steps.json");
	ts_write_file(sp, steps, strlen(steps));
	char *tmpbase = xasprintf("BELAY_SANDBOX_TMP_BASE=%s", dir);
	const char *env[] = {tmpbase, NULL};
	const char *argv[] = {BELAY_BIN, "__script", sp, "--state", state, "--trace-dir", traces, "--timeout", "30",
			      "--scope", ws, "--network", "deny", "--", DEMO, "shell", ws, NULL};
	struct ts_out o;
	ts_run(argv, env, dir, NULL, 0, 120, &o);
	cr_assert_eq(o.status, 0, "recording failed (%d): %s", o.status, o.err);
	char *nl = strchr(o.out, '\n');
	cr_assert_not_null(nl, "no trace path printed: %s", o.err);
	*nl = '\0';
	char *trace = xstrdup(o.out);
	ts_out_free(&o);
	free(sp);
	free(steps);
	free(tail);
	free(tmpbase);
	return trace;
}

static char *record_cmd(const char *cmd)
{
	return record_claim(cmd, NULL);
}

/* Records the agent replacing `path` of the workspace by `text` (staged outside it, copied in
 * by the call), then its claim `claim` when given (NULL: none). */
static char *record_claim_new(const char *path, const char *text, const char *claim)
{
	char *src = fs_join(dir, "new.txt");
	ts_write_file(src, text, strlen(text));
	char *cmd = xasprintf("cp %s %s", src, path);
	char *t = record_claim(cmd, claim);
	free(cmd);
	free(src);
	return t;
}

static char *record_new(const char *path, const char *text)
{
	return record_claim_new(path, text, NULL);
}

/* `belay verify TRACE --json --census [extra]`: the summary's census verdict (a new object);
 * *status gets the exit status. */
static cJSON *census_of(const char *trace, const char *extra, int *status)
{
	const char *argv[] = {BELAY_BIN, "verify", trace, "--json", "--no-store", "--state", state,
			      extra ? extra : "--census", extra ? "--census" : NULL, NULL};
	struct ts_out o;
	ts_run(argv, NULL, dir, NULL, 0, 200, &o);
	if (status)
		*status = o.status;
	cJSON *census = NULL;
	for (char *line = strtok(o.out, "\n"); line; line = strtok(NULL, "\n")) {
		cJSON *j = cJSON_Parse(line);
		cr_assert_not_null(j, "verify printed a non-JSON line: %s", line);
		const cJSON *s = cJSON_GetObjectItem(j, "summary");
		if (s && cJSON_GetObjectItem(s, "census"))
			census = cJSON_Duplicate(cJSON_GetObjectItem(s, "census"), 1);
		cJSON_Delete(j);
	}
	cr_assert_not_null(census, "no census verdict (status %d): %s", o.status, o.err);
	ts_out_free(&o);
	return census;
}

/* The one census sub-verdict's message, asserting its status (and cause when given). */
static const char *expect(const cJSON *census, const char *status, const char *cause)
{
	const cJSON *subs = cJSON_GetObjectItem(census, "verdicts");
	cr_assert_eq(cJSON_GetArraySize(subs), 1, "census: %s", jx_print(census));
	const cJSON *s = subs->child;
	cr_assert_str_eq(jx_str(s, "status"), status, "census: %s", jx_print(census));
	cr_assert_str_eq(jx_str(census, "status"), status);
	if (cause)
		cr_assert_str_eq(jx_str(s, "cause") ? jx_str(s, "cause") : "", cause, "census: %s", jx_print(census));
	return jx_str(s, "message");
}

static void python_project(void)
{
	ts_sh("mkdir -p %s/tests && cd %s && printf 'def add(a, b):\\n    return a + b\\n' > calc.py && "
	      "printf 'from calc import add\\n\\ndef test_add():\\n    assert add(1, 2) == 3\\n\\n"
	      "def test_zero():\\n    assert add(0, 0) == 0\\n' > tests/test_calc.py && "
	      "printf 'from calc import add\\n\\nclass TestMore:\\n    def test_neg(self):\\n        assert add(-1, 1) == 0\\n' "
	      "> tests/test_more.py",
	      ws, ws);
}

Test(census, python_a_deleted_test_file_fails_naming_its_tests)
{
	python_project();
	char *t = record_cmd("rm tests/test_more.py");
	int st;
	cJSON *c = census_of(t, NULL, &st);
	const char *m = expect(c, "FAIL", NULL);
	cr_assert(strstr(m, "TESTS_DROPPED") && strstr(m, "tests/test_more.py::TestMore::test_neg"), "%s", m);
	cr_assert_null(strstr(m, "test_add"), "%s", m);
	cr_assert_eq(st, 4);
	cJSON_Delete(c);
	free(t);
}

/* The census is kept with the verification (turn VERDICT_TURN_CENSUS): `belay show RUN --json`
 * gives it back beside the trajectory, the run's worst counts it, and the console reads it
 * from there (cm_run.runv: the run line and a turn's detail, test_screens). */
Test(census, kept_in_the_store_and_shown_with_the_run)
{
	python_project();
	char *t = record_cmd("rm tests/test_more.py");
	const char *argv[] = {BELAY_BIN, "verify", t, "--json", "--state", state, "--census", NULL};
	struct ts_out o;
	ts_run(argv, NULL, dir, NULL, 0, 200, &o);
	cr_assert_eq(o.status, 4, "%s", o.err);
	ts_out_free(&o);
	char run[256];
	const char *base = strrchr(t, '/') ? strrchr(t, '/') + 1 : t;
	snprintf(run, sizeof run, "%.*s", (int)(strlen(base) - 6), base); /* without .jsonl */
	const char *show[] = {BELAY_BIN, "show", run, "--json", "--state", state, NULL};
	ts_run(show, NULL, dir, NULL, 0, 60, &o);
	cr_assert_eq(o.status, 0, "%s", o.err);
	cJSON *j = cJSON_Parse(o.out);
	cr_assert_not_null(j, "%s", o.out);
	const cJSON *c = cJSON_GetObjectItem(j, "census");
	cr_assert_not_null(c, "belay show has no census: %s", o.out);
	cr_assert_str_eq(jx_str(c, "status"), "FAIL");
	const cJSON *s = cJSON_GetObjectItem(c, "verdicts")->child;
	cr_assert(s && strstr(jx_str(s, "message"), "tests/test_more.py::TestMore::test_neg"), "%s", o.out);
	const cJSON *ev = cJSON_GetObjectItem(s, "expected");
	cr_assert_eq(cJSON_GetObjectItem(ev, "collected_before")->valueint, 3, "%s", o.out);
	cr_assert_eq(cJSON_GetObjectItem(ev, "collected_after")->valueint, 2, "%s", o.out);
	cr_assert_str_eq(jx_str(j, "worst"), "FAIL", "the run's worst counts the census: %s", o.out);
	cJSON_Delete(j);
	/* the console's model of the run has it as a run-level verdict, the census counted */
	struct cmodel m = {0};
	struct err e = {0};
	cr_assert_eq(cm_open(&m, state, &e), 0, "%s", e.msg);
	cr_assert_eq(cm_load_runs(&m, &e), 0, "%s", e.msg);
	struct cm_run *r = cm_find(&m, run);
	cr_assert_not_null(r);
	struct runv_item it[2];
	cr_assert_eq(runv_items(r->runv, it, 2), 1, "the census alone (no claim was made)");
	cr_assert_str_eq(it[0].what, "census");
	cr_assert_eq(it[0].v, CMV_FAIL);
	cr_assert(strstr(it[0].text, "1 dropped, 0 skipped (3 ") && strstr(it[0].text, " 2 collected)"), "%s", it[0].text);
	cm_close(&m);
	ts_out_free(&o);
	free(t);
}

Test(census, python_a_test_renamed_out_of_discovery_fails)
{
	python_project();
	char *t = record_cmd("sed -i s/def\\\\ test_zero/def\\\\ check_zero/ tests/test_calc.py");
	cJSON *c = census_of(t, NULL, NULL);
	const char *m = expect(c, "FAIL", NULL);
	cr_assert(strstr(m, "TESTS_DROPPED") && strstr(m, "tests/test_calc.py::test_zero"), "%s", m);
	cJSON_Delete(c);
	free(t);
}

Test(census, python_a_skipped_test_fails_with_its_reason)
{
	python_project();
	/* a skipif whose condition is true, evaluated as pytest itself would */
	char *t = record_new("tests/test_calc.py", "import pytest\nfrom calc import add\n\n@pytest.mark.skipif(1 < 2, reason=\"flaky\")\n"
			     "def test_add():\n    assert add(1, 2) == 3\n\ndef test_zero():\n    assert add(0, 0) == 0\n");
	cJSON *c = census_of(t, NULL, NULL);
	const char *m = expect(c, "FAIL", NULL);
	cr_assert(strstr(m, "TESTS_SKIPPED") && strstr(m, "tests/test_calc.py::test_add") && strstr(m, "flaky"), "%s", m);
	cr_assert_null(strstr(m, "TESTS_DROPPED"), "%s", m);
	cJSON_Delete(c);
	free(t);
}

Test(census, python_a_test_gaining_a_parameter_passes)
{
	python_project();
	char *t = record_new("tests/test_calc.py", "import pytest\nfrom calc import add\n\n@pytest.mark.parametrize(\"a\", [1, 2])\n"
			     "def test_add(a):\n    assert add(a, 2) == a + 2\n\ndef test_zero():\n    assert add(0, 0) == 0\n");
	cJSON *c = census_of(t, NULL, NULL);
	const char *m = expect(c, "PASS", NULL);
	cr_assert(strstr(m, "3 before, 3 after"), "%s", m);
	cJSON_Delete(c);
	free(t);
}

Test(census, no_runner_is_unverified_by_cause)
{
	ts_sh("printf 'hello\\n' > %s/README", ws);
	char *t = record_cmd("echo more >> README");
	int st;
	cJSON *c = census_of(t, NULL, &st);
	const char *m = expect(c, "UNVERIFIED", "CENSUS_NO_RUNNER");
	cr_assert(strstr(m, "no test runner"), "%s", m);
	cr_assert_eq(st, 3, "an UNVERIFIED census is never a PASS exit");
	cJSON_Delete(c);
	free(t);
}

Test(census, off_by_default)
{
	python_project();
	char *t = record_cmd("rm tests/test_more.py");
	const char *argv[] = {BELAY_BIN, "verify", t, "--json", "--no-store", "--state", state, NULL};
	struct ts_out o;
	ts_run(argv, NULL, dir, NULL, 0, 200, &o);
	cr_assert_null(strstr(o.out, "\"census\""), "%s", o.out);
	ts_out_free(&o);
	free(t);
}

Test(census, the_policy_rule_with_a_time_bound)
{
	python_project();
	/* a conftest that never lets the collection finish: the rule's bound ends it */
	ts_sh("printf 'import time\\ntime.sleep(600)\\n' > %s/conftest.py", ws);
	char *t = record_cmd("echo x > notes.txt");
	char *pol = fs_join(dir, "census.json");
	const char *ptext = "[{\"rule\": \"tests-collected\", \"timeout\": 3}]";
	ts_write_file(pol, ptext, strlen(ptext));
	char *opt = xasprintf("--invariants=%s", pol);
	const char *argv[] = {BELAY_BIN, "verify", t, "--json", "--no-store", "--state", state, opt, NULL};
	struct ts_out o;
	ts_run(argv, NULL, dir, NULL, 0, 200, &o);
	char *at = strstr(o.out, "\"census\"");
	cr_assert_not_null(at, "%s %s", o.out, o.err);
	cr_assert(strstr(at, "CENSUS_FAILED") && strstr(at, "time bound"), "%s", at);
	ts_out_free(&o);
	free(t);
	free(opt);
	free(pol);
}

static int have_go(void)
{
	char *g = fs_which("go");
	free(g);
	return g != NULL;
}

Test(census, go_a_build_tag_that_hides_a_test_fails)
{
	cr_assert(have_go(), "go is not installed (scripts/setup.sh installs golang-go)");
	ts_sh("cd %s && printf 'module example.com/calc\\n\\ngo 1.19\\n' > go.mod && "
	      "printf 'package calc\\n\\nfunc Add(a, b int) int { return a + b }\\n' > calc.go && "
	      "printf 'package calc\\n\\nimport \"testing\"\\n\\nfunc TestAdd(t *testing.T) {\\n\\tif Add(1, 2) != 3 {\\n\\t\\tt.Fatal(\"no\")\\n\\t}\\n}\\n' > calc_test.go && "
	      "printf 'package calc\\n\\nimport \"testing\"\\n\\nfunc TestZero(t *testing.T) {\\n\\tif Add(0, 0) != 0 {\\n\\t\\tt.Fatal(\"no\")\\n\\t}\\n}\\n' > zero_test.go",
	      ws);
	char *t = record_cmd("sed -i 1i//go:build\\\\ integration zero_test.go");
	cJSON *c = census_of(t, NULL, NULL);
	const char *m = expect(c, "FAIL", NULL);
	cr_assert(strstr(m, "(go)") && strstr(m, "TESTS_DROPPED") && strstr(m, "example.com/calc.TestZero"), "%s", m);
	cr_assert_null(strstr(m, "TestAdd"), "%s", m);
	cJSON_Delete(c);
	free(t);
}

Test(census, go_an_honest_new_test_passes)
{
	cr_assert(have_go(), "go is not installed (scripts/setup.sh installs golang-go)");
	ts_sh("cd %s && printf 'module example.com/calc\\n\\ngo 1.19\\n' > go.mod && "
	      "printf 'package calc\\n\\nfunc Add(a, b int) int { return a + b }\\n' > calc.go && "
	      "printf 'package calc\\n\\nimport \"testing\"\\n\\nfunc TestAdd(t *testing.T) {\\n\\tif Add(1, 2) != 3 {\\n\\t\\tt.Fatal(\"no\")\\n\\t}\\n}\\n' > calc_test.go",
	      ws);
	char *t = record_cmd("sed s/TestAdd/TestAddMore/ calc_test.go > more_test.go");
	cJSON *c = census_of(t, NULL, NULL);
	const char *m = expect(c, "PASS", NULL);
	cr_assert(strstr(m, "1 before, 2 after"), "%s", m);
	cJSON_Delete(c);
	free(t);
}

static int have_cargo(void)
{
	char *g = fs_which("cargo");
	free(g);
	return g != NULL;
}

/* A library crate with a doc-test, two unit tests and an integration test (no dependencies:
 * the census builds offline). */
static void rust_project(void)
{
	cr_assert(have_cargo(), "cargo is not installed (scripts/setup.sh installs Debian's cargo)");
	ts_sh("cd %s && mkdir -p src tests && "
	      "printf '[package]\\nname = \"calc\"\\nversion = \"0.1.0\"\\nedition = \"2018\"\\n' > Cargo.toml && "
	      "printf '/// Adds.\\n///\\n/// ```\\n/// assert_eq!(calc::add(1, 2), 3);\\n/// ```\\n"
	      "pub fn add(a: i32, b: i32) -> i32 {\\n    a + b\\n}\\n\\n#[cfg(test)]\\nmod tests {\\n"
	      "    #[test]\\n    fn adds() {\\n        assert_eq!(super::add(1, 2), 3);\\n    }\\n\\n"
	      "    #[test]\\n    fn zero() {\\n        assert_eq!(super::add(0, 0), 0);\\n    }\\n}\\n' > src/lib.rs && "
	      "printf '#[test]\\nfn negative() {\\n    assert_eq!(calc::add(-1, 1), 0);\\n}\\n' > tests/more.rs",
	      ws);
}

#define RUST_DOC "/// Adds.\n///\n/// ```\n/// assert_eq!(calc::add(1, 2), 3);\n/// ```\npub fn add(a: i32, b: i32) -> i32 {\n    a + b\n}\n\n"

Test(census, cargo_an_ignored_test_is_skipped_and_a_removed_one_dropped)
{
	rust_project();
	/* `#[ignore]` on zero, `#[test]` taken off adds */
	char *t = record_claim_new("src/lib.rs",
				   RUST_DOC "#[cfg(test)]\nmod tests {\n    fn adds() {\n        assert_eq!(super::add(1, 2), 3);\n    }\n\n"
					    "    #[test]\n    #[ignore]\n    fn zero() {\n        assert_eq!(super::add(0, 0), 0);\n    }\n}\n",
				   NULL);
	int st;
	cJSON *c = census_of(t, NULL, &st);
	const char *m = expect(c, "FAIL", NULL);
	cr_assert(strstr(m, "(cargo)"), "%s", m);
	cr_assert(strstr(m, "TESTS_SKIPPED") && strstr(m, "tests::zero"), "%s", m);
	cr_assert(strstr(m, "TESTS_DROPPED") && strstr(m, "tests::adds"), "%s", m);
	cr_assert_null(strstr(m, "negative"), "%s", m);
	cr_assert_eq(st, 4);
	cJSON_Delete(c);
	free(t);
}

Test(census, cargo_an_honest_new_test_and_a_moved_doc_test_pass)
{
	rust_project();
	/* lines above the doc-test (its "(line N)" moves) and a new test */
	char *t = record_claim_new("src/lib.rs",
				   "// calc: small sums\n\n" RUST_DOC "#[cfg(test)]\nmod tests {\n    #[test]\n    fn adds() {\n"
				   "        assert_eq!(super::add(1, 2), 3);\n    }\n\n    #[test]\n    fn zero() {\n"
				   "        assert_eq!(super::add(0, 0), 0);\n    }\n\n    #[test]\n    fn more() {\n"
				   "        assert_eq!(super::add(2, 2), 4);\n    }\n}\n",
				   NULL);
	cJSON *c = census_of(t, NULL, NULL);
	const char *m = expect(c, "PASS", NULL);
	cr_assert(strstr(m, "4 before, 5 after"), "%s", m);
	cJSON_Delete(c);
	free(t);
}

/*==== claim-rederived (verify --rederive): the suite run twice on the final state ====*/

/* `belay verify TRACE --json --rederive`: the trajectory's claim sub-verdict (a new object). */
static cJSON *claim_of(const char *trace)
{
	const char *argv[] = {BELAY_BIN, "verify", trace, "--json", "--no-store", "--state", state, "--rederive", NULL};
	struct ts_out o;
	ts_run(argv, NULL, dir, NULL, 0, 200, &o);
	cJSON *claim = NULL;
	for (char *line = strtok(o.out, "\n"); line; line = strtok(NULL, "\n")) {
		cJSON *j = cJSON_Parse(line);
		cr_assert_not_null(j, "verify printed a non-JSON line: %s", line);
		const cJSON *tr = jx_path(j, "summary.trajectory");
		for (const cJSON *x = tr ? cJSON_GetObjectItem(tr, "verdicts")->child : NULL; x; x = x->next)
			if (!strcmp(jx_str(x, "kind"), "claim"))
				claim = cJSON_Duplicate(x, 1);
		cJSON_Delete(j);
	}
	cr_assert_not_null(claim, "no claim verdict (status %d): %s", o.status, o.err);
	ts_out_free(&o);
	return claim;
}


Test(census, a_claim_over_a_red_suite_fails_naming_the_failing_tests)
{
	python_project();
	char *t = record_claim_new("calc.py", "def add(a, b):\n    return a - b\n", "All tests pass now.");
	cJSON *c = claim_of(t);
	cr_assert_str_eq(jx_str(c, "status"), "FAIL", "%s", jx_print(c));
	const char *m = jx_str(c, "message");
	cr_assert(strstr(m, "tests/test_calc.py::test_add") && strstr(m, "tests/test_more.py::TestMore::test_neg"), "%s", m);
	cr_assert(strstr(m, "assert -1 == 3"), "the failure is named: %s", m);
	cr_assert_null(strstr(m, "test_zero"), "a passing test is not named: %s", m);
	cJSON_Delete(c);
	free(t);
}

Test(census, a_claim_over_a_green_suite_passes)
{
	python_project();
	char *t = record_claim("echo note > notes.txt", "All tests pass.");
	cJSON *c = claim_of(t);
	cr_assert_str_eq(jx_str(c, "status"), "PASS", "%s", jx_print(c));
	cr_assert(strstr(jx_str(c, "message"), "3 test(s) passed"), "%s", jx_str(c, "message"));
	cJSON_Delete(c);
	free(t);
}

Test(census, a_claim_over_a_suite_that_runs_nothing_fails)
{
	python_project();
	ts_sh("rm %s/tests/test_more.py", ws);
	char *t = record_claim_new("tests/test_calc.py",
				   "import pytest\nfrom calc import add\n\npytestmark = pytest.mark.skip(reason=\"later\")\n\n"
				   "def test_add():\n    assert add(1, 2) == 3\n\ndef test_zero():\n    assert add(0, 0) == 0\n",
				   "All tests pass.");
	cJSON *c = claim_of(t);
	cr_assert_str_eq(jx_str(c, "status"), "FAIL", "%s", jx_print(c));
	cr_assert(strstr(jx_str(c, "message"), "backed by no test") && strstr(jx_str(c, "message"), "2 skipped"), "%s",
		  jx_str(c, "message"));
	cJSON_Delete(c);
	free(t);
}

Test(census, a_claim_over_a_red_go_suite_fails_naming_the_test)
{
	cr_assert(have_go(), "go is not installed (scripts/setup.sh installs golang-go)");
	ts_sh("cd %s && printf 'module example.com/calc\\n\\ngo 1.19\\n' > go.mod && "
	      "printf 'package calc\\n\\nfunc Add(a, b int) int { return a + b }\\n' > calc.go && "
	      "printf 'package calc\\n\\nimport \"testing\"\\n\\nfunc TestAdd(t *testing.T) {\\n\\tif got := Add(1, 2); got != 3 {\\n"
	      "\\t\\tt.Fatalf(\"Add(1, 2) = %%%%d, want 3\", got)\\n\\t}\\n}\\n\\nfunc TestZero(t *testing.T) {\\n\\tif Add(0, 0) != 0 {\\n"
	      "\\t\\tt.Fatal(\"no\")\\n\\t}\\n}\\n' > calc_test.go",
	      ws);
	char *t = record_claim_new("calc.go", "package calc\n\nfunc Add(a, b int) int { return a - b }\n", "All tests pass.");
	cJSON *c = claim_of(t);
	cr_assert_str_eq(jx_str(c, "status"), "FAIL", "%s", jx_print(c));
	const char *m = jx_str(c, "message");
	cr_assert(strstr(m, "(go)") && strstr(m, "example.com/calc.TestAdd") && strstr(m, "Add(1, 2) = -1, want 3"), "%s", m);
	cr_assert_null(strstr(m, "TestZero"), "%s", m);
	cJSON_Delete(c);
	free(t);
	/* the honest fix: the same suite green */
	python_project(); /* a second suite beside it: both runners judged */
	t = record_claim_new("calc.go", "package calc\n\nfunc Add(a, b int) int { return a + b }\n", "All tests pass.");
	const char *argv[] = {BELAY_BIN, "verify", t, "--json", "--no-store", "--state", state, "--rederive", NULL};
	struct ts_out o;
	ts_run(argv, NULL, dir, NULL, 0, 200, &o);
	cr_assert(strstr(o.out, "claim-rederived (go): the suite passes") && strstr(o.out, "claim-rederived (pytest): the suite passes"),
		  "%s", o.out);
	ts_out_free(&o);
	free(t);
}

/*==== vitest: a JavaScript project with its own pinned runner ====*/

/* The fixture project (tests/fixtures/vitest-project, installed by scripts/setup.sh) copied
 * into the workspace with two test files. */
static void vitest_project(void)
{
	char *fx = xasprintf("%s/tests/fixtures/vitest-project", BELAY_SOURCE_DIR);
	char *vm = fs_join(fx, "node_modules/vitest/vitest.mjs");
	cr_assert_eq(access(vm, F_OK), 0, "the fixture's vitest is not installed: run scripts/setup.sh");
	ts_sh("cp -a '%s/package.json' '%s/node_modules' '%s/' && mkdir -p '%s/test'", fx, fx, ws, ws);
	ts_sh("cd '%s' && printf 'export const add = (a, b) => a + b\\n' > calc.js && "
	      "printf \"import { test, expect, describe } from 'vitest'\\nimport { add } from '../calc.js'\\n\\n"
	      "test('adds', () => { expect(add(1, 2)).toBe(3) })\\n\\ndescribe('zero', () => {\\n"
	      "  test('is neutral', () => { expect(add(0, 0)).toBe(0) })\\n})\\n\" > test/calc.test.js && "
	      "printf \"import { test, expect } from 'vitest'\\nimport { add } from '../calc.js'\\n\\n"
	      "test('negatives', () => { expect(add(-1, 1)).toBe(0) })\\n\" > test/more.test.js",
	      ws);
	free(vm);
	free(fx);
}

Test(census, vitest_a_skipped_test_fails_naming_it)
{
	vitest_project();
	char *t = record_new("test/calc.test.js",
			     "import { test, expect, describe } from 'vitest'\nimport { add } from '../calc.js'\n\n"
			     "test.skip('adds', () => { expect(add(1, 2)).toBe(3) })\n\ndescribe('zero', () => {\n"
			     "  test('is neutral', () => { expect(add(0, 0)).toBe(0) })\n})\n");
	cJSON *c = census_of(t, NULL, NULL);
	const char *m = expect(c, "FAIL", NULL);
	cr_assert(strstr(m, "(vitest)") && strstr(m, "TESTS_DROPPED") && strstr(m, "test/calc.test.js::adds"), "%s", m);
	cr_assert_null(strstr(m, "is neutral"), "%s", m);
	cJSON_Delete(c);
	free(t);
}

Test(census, vitest_a_narrowed_include_fails_naming_what_it_hides)
{
	vitest_project();
	char *t = record_new("vitest.config.js", "export default { test: { include: ['test/calc.test.js'] } }\n");
	cJSON *c = census_of(t, NULL, NULL);
	const char *m = expect(c, "FAIL", NULL);
	cr_assert(strstr(m, "test/more.test.js::negatives"), "%s", m);
	cJSON_Delete(c);
	free(t);
}

Test(census, vitest_a_test_gaining_a_parameter_passes)
{
	vitest_project();
	char *t = record_new("test/calc.test.js",
			     "import { test, expect, describe } from 'vitest'\nimport { add } from '../calc.js'\n\n"
			     "test.each([1, 2])('adds %i', (a) => { expect(add(a, 2)).toBe(a + 2) })\n\ndescribe('zero', () => {\n"
			     "  test('is neutral', () => { expect(add(0, 0)).toBe(0) })\n})\n");
	cJSON *c = census_of(t, NULL, NULL);
	const char *m = expect(c, "PASS", NULL);
	cr_assert(strstr(m, "3 before, 3 after"), "%s", m);
	cJSON_Delete(c);
	free(t);
}
