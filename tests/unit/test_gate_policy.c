/* test_gate_policy.c - the tool-call policy file: every kind of malformation is an error
 * that names its JSON path, a valid file loads, rules match in the documented order, and
 * loading from disk reports unreadable and oversized files. */
#include <cjson/cJSON.h>
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gate/gate.h"
#include "tsupport.h"

static void refused(const char *json, const char *path, const char *words)
{
	struct gate_policy *p = (struct gate_policy *)1;
	struct err e = {0};
	int rc = gate_policy_parse(json, strlen(json), "test.json", &p, &e);
	cr_expect_lt(rc, 0, "should be refused: %s", json);
	cr_expect_eq(e.code, BELAY_EINVAL, "%s", json);
	cr_expect_null(p, "no policy on error");
	cr_expect(strstr(e.msg, "test.json: ") == e.msg, "origin first: %s", e.msg);
	char want[128];
	snprintf(want, sizeof want, ": %s: ", path);
	cr_expect(strstr(e.msg, want) != NULL, "error should name %s: %s", path, e.msg);
	if (words)
		cr_expect(strstr(e.msg, words) != NULL, "error should say '%s': %s", words, e.msg);
}

Test(gate_policy, malformed_documents)
{
	refused("{", "$", "invalid JSON");
	refused("{\"version\":1} x", "$", "trailing data");
	refused("[]", "$", "expected an object");
	refused("{\"version\":1,\"colour\":\"red\"}", "$.colour", "unknown key");
	refused("{\"tools\":[]}", "$.version", "missing");
	refused("{\"version\":2}", "$.version", "must be 1");
	refused("{\"version\":\"1\"}", "$.version", "must be 1");
	refused("{\"version\":1,\"version\":1}", "$.version", "duplicate key");
}

Test(gate_policy, malformed_arguments)
{
	refused("{\"version\":1,\"arguments\":[]}", "$.arguments", "expected an object");
	refused("{\"version\":1,\"arguments\":{\"bogus\":[]}}", "$.arguments.bogus", "unknown key");
	refused("{\"version\":1,\"arguments\":{\"shell\":\"command\"}}", "$.arguments.shell", "expected an array");
	refused("{\"version\":1,\"arguments\":{\"shell\":[\"a\",2]}}", "$.arguments.shell[1]", "expected a string");
	refused("{\"version\":1,\"arguments\":{\"paths\":[\"\"]}}", "$.arguments.paths[0]", "empty argument name");
	refused("{\"version\":1,\"arguments\":{\"paths\":[\"x\",\"x\"]}}", "$.arguments.paths[1]", "listed twice");
	refused("{\"version\":1,\"arguments\":{\"shell\":[\"command\"],\"paths\":[\"command\"]}}",
		"$.arguments.paths[0]", "already has the role \"shell\"");
	refused("{\"version\":1,\"arguments\":{\"urls\":[\"u\"],\"urls\":[\"v\"]}}", "$.arguments.urls",
		"duplicate key");
}

Test(gate_policy, malformed_tools)
{
	refused("{\"version\":1,\"tools\":{}}", "$.tools", "expected an array");
	refused("{\"version\":1,\"tools\":[3]}", "$.tools[0]", "expected an object");
	refused("{\"version\":1,\"tools\":[{\"shell\":[\"c\"]}]}", "$.tools[0]", "exactly one of");
	refused("{\"version\":1,\"tools\":[{\"name\":\"a\",\"glob\":\"a*\"}]}", "$.tools[0]", "exactly one of");
	refused("{\"version\":1,\"tools\":[{\"name\":\"\"}]}", "$.tools[0].name", "non-empty string");
	refused("{\"version\":1,\"tools\":[{\"name\":7}]}", "$.tools[0].name", "non-empty string");
	refused("{\"version\":1,\"tools\":[{\"glob\":\"run_[abc\"}]}", "$.tools[0].glob", "bad glob");
	refused("{\"version\":1,\"tools\":[{\"glob\":\"x\\\\\"}]}", "$.tools[0].glob", "bad glob");
	refused("{\"version\":1,\"tools\":[{\"regex\":\"^(run\"}]}", "$.tools[0].regex", "bad regex");
	refused("{\"version\":1,\"tools\":[{\"regex\":\"a**[\"}]}", "$.tools[0].regex", "bad regex");
	/* nested counts multiply: glibc would build ~16 million copies of the atom */
	refused("{\"version\":1,\"tools\":[{\"regex\":\"((a{0,255}){0,255}){0,255}\"}]}", "$.tools[0].regex",
		"regex too large: its counted repetitions expand past 4096 positions");
	refused("{\"version\":1,\"tools\":[{\"regex\":\"^(x(ab|[[:alpha:]]{2,9}){100}){50,}$\"}]}",
		"$.tools[0].regex", "regex too large");
	/* glibc turns x+ into xx*: thirteen of them double the atom thirteen times */
	refused("{\"version\":1,\"tools\":[{\"regex\":\"(a+++++++++++++){0,255}\"}]}", "$.tools[0].regex",
		"regex too deep");
	refused("{\"version\":1,\"tools\":[{\"regex\":\"(a+b+c+d+e+f+g+h+){0,255}\"}]}", "$.tools[0].regex",
		"regex too large");
	/* glibc recomputes epsilon closures along every path through nested repetitions of what can
	 * match nothing: a few bytes, 47 s and 3 s to compile (a fuzz find, regress/gate_policy) */
	refused("{\"version\":1,\"tools\":[{\"regex\":\"a?+?+?+?+?+?+?+?+?+\"}]}", "$.tools[0].regex",
		"regex too deep: its repetitions nest more than 4 levels");
	refused("{\"version\":1,\"tools\":[{\"regex\":\"^x(((((((((a)?)+)?)+)?)+)?)+)?)+\"}]}", "$.tools[0].regex",
		"regex too deep");
	refused("{\"version\":1,\"tools\":[{\"regex\":\"(b|((c|(a?)+)?)+)*\"}]}", "$.tools[0].regex",
		"regex too deep");
	refused("{\"version\":1,\"tools\":[{\"name\":\"x\"},{\"name\":\"x\"}]}", "$.tools[1].name",
		"duplicate tool name \"x\" (first at $.tools[0])");
	refused("{\"version\":1,\"tools\":[{\"glob\":\"r*\"},{\"name\":\"y\"},{\"glob\":\"r*\"}]}", "$.tools[2].glob",
		"duplicate tool glob");
	refused("{\"version\":1,\"tools\":[{\"regex\":\"^a\"},{\"regex\":\"^a\"}]}", "$.tools[1].regex",
		"duplicate tool regex");
	refused("{\"version\":1,\"tools\":[{\"name\":\"x\",\"colour\":1}]}", "$.tools[0].colour", "unknown key");
	refused("{\"version\":1,\"tools\":[{\"name\":\"x\",\"read_only\":\"yes\"}]}", "$.tools[0].read_only",
		"true or false");
	refused("{\"version\":1,\"tools\":[{\"name\":\"x\",\"destructive\":1}]}", "$.tools[0].destructive",
		"true or false");
	refused("{\"version\":1,\"tools\":[{\"name\":\"x\",\"floor\":\"allow\"}]}", "$.tools[0].floor",
		"unknown floor");
	refused("{\"version\":1,\"tools\":[{\"name\":\"x\",\"floor\":3}]}", "$.tools[0].floor", "expected");
	refused("{\"version\":1,\"tools\":[{\"name\":\"x\",\"read_only\":true,\"write_paths\":[\"p\"]}]}", "$.tools[0]",
		"read_only but lists write_paths");
	refused("{\"version\":1,\"tools\":[{\"name\":\"x\",\"shell\":[\"p\"],\"write_paths\":[\"p\"]}]}",
		"$.tools[0].write_paths[0]", "already has the role \"shell\"");
	refused("{\"version\":1,\"tools\":[{\"name\":\"x\",\"name\":\"y\"}]}", "$.tools[0].name", "duplicate key");
	refused("{\"version\":1,\"tools\":[{\"name\":\"x\",\"cwd\":\"\"}]}", "$.tools[0].cwd", "empty argument name");
	refused("{\"version\":1,\"tools\":[{\"name\":\"x\",\"ignore\":[1]}]}", "$.tools[0].ignore[0]",
		"expected a string");
}

static const struct gate_ctx ctx = {"/ws", "/ws", "/home/u", "/home/u/.local/state/belay", NULL};

static enum gate_decision decide(const struct gate_policy *p, const char *tool, const char *args, const char *ann)
{
	cJSON *a = cJSON_Parse(args), *n = ann ? cJSON_Parse(ann) : NULL;
	struct effect_plan *plan = gate_plan_tool_call(p, tool, a, n, &ctx);
	enum gate_decision d = effect_plan_decision(plan);
	effect_plan_free(plan);
	cJSON_Delete(a);
	cJSON_Delete(n);
	return d;
}

static const char good[] =
    "{\n"
    "  \"version\": 1,\n"
    "  \"comment\": \"belay gate policy\",\n"
    "  \"arguments\": {\"shell\": [\"command\", \"sh\"], \"ignore\": [\"content\"]},\n"
    "  \"tools\": [\n"
    "    {\"glob\": \"run_*\", \"shell\": [\"line\"]},\n"
    "    {\"name\": \"run_process\", \"shell\": [\"command_line\"], \"cwd\": \"cwd\"},\n"
    "    {\"regex\": \"^notes_(read|list)$\", \"read_paths\": [\"note\"], \"read_only\": true},\n"
    "    {\"name\": \"deploy\", \"floor\": \"ask\"},\n"
    "    {\"name\": \"scratch\", \"write_paths\": [\"where\"], \"destructive\": true}\n"
    "  ]\n"
    "}\n";

Test(gate_policy, a_valid_policy_loads_and_applies)
{
	struct gate_policy *p = NULL;
	struct err e = {0};
	cr_assert_eq(gate_policy_parse(good, strlen(good), "good.json", &p, &e), 0, "%s", e.msg);
	/* an exact name wins over an earlier glob */
	cr_expect_eq(decide(p, "run_process", "{\"command_line\":\"git push\",\"cwd\":\"/ws\"}", NULL), GATE_ASK);
	cr_expect_eq(decide(p, "run_process", "{\"command_line\":\"ls\"}", NULL), GATE_ALLOW);
	/* the glob rule applies to other run_* tools */
	cr_expect_eq(decide(p, "run_other", "{\"line\":\"rm -rf /tmp/x\"}", NULL), GATE_ASK);
	cr_expect_eq(decide(p, "run_other", "{\"line\":\"touch a\"}", NULL), GATE_ALLOW_FLAGGED);
	/* arguments.shell replaced the default list: "cmd" is no longer a command */
	cr_expect_eq(decide(p, "x", "{\"sh\":\"git status\"}", "{\"readOnlyHint\":true}"), GATE_ALLOW);
	cr_expect_eq(decide(p, "x", "{\"cmd\":\"rm -rf /\"}", "{\"readOnlyHint\":true}"), GATE_ALLOW);
	/* regex rule declares read-only with its own path argument */
	cr_expect_eq(decide(p, "notes_read", "{\"note\":\"/ws/n.md\"}", NULL), GATE_ALLOW);
	cr_expect_eq(decide(p, "notes_read", "{\"note\":\"/home/u/.ssh/id_rsa\"}", NULL), GATE_ASK);
	cr_expect_eq(decide(p, "notes_list", "{}", NULL), GATE_ALLOW);
	/* a floor raises, it never lowers */
	cr_expect_eq(decide(p, "deploy", "{}", "{\"readOnlyHint\":true}"), GATE_ASK);
	/* destructive write inside: flagged; outside: ask */
	cr_expect_eq(decide(p, "scratch", "{\"where\":\"/ws/tmp\"}", NULL), GATE_ALLOW_FLAGGED);
	cr_expect_eq(decide(p, "scratch", "{\"where\":\"/tmp/x\"}", NULL), GATE_ASK);
	gate_policy_free(p);
}

/* The size bound on counted repetitions refuses only what would blow up: ordinary counted
 * patterns, bracket classes and a count at the limit load and match. */
Test(gate_policy, counted_regexes_within_the_bound_load)
{
	static const char *const ok[] = {
	    "^(notes|docs)_[a-z]{1,32}$", "^[a-z]+(_[a-z0-9]+)*$", "^x{4000}$", "^([[:alpha:]]{2}){8}_(read|list){1,4}$", "a{,9}b{3,}",
	    "^\\{[0-9]{1,3}\\}$",
	    /* repetitions nested four levels deep, the most allowed, beside others */
	    "^(((a?)+)?)+(b*)+(c|(d?)+)*$", "^((_[a-z]+)+|x?)*$",
	};
	for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
		char doc[256];
		cJSON *s = cJSON_CreateString(ok[i]);
		char *q = cJSON_PrintUnformatted(s);
		snprintf(doc, sizeof doc, "{\"version\":1,\"tools\":[{\"regex\":%s,\"floor\":\"ask\"}]}", q);
		free(q);
		cJSON_Delete(s);
		struct gate_policy *p = NULL;
		struct err e = {0};
		cr_expect_eq(gate_policy_parse(doc, strlen(doc), "ok.json", &p, &e), 0, "%s: %s", ok[i], e.msg);
		gate_policy_free(p);
	}
	struct gate_policy *p = NULL;
	struct err e = {0};
	const char *doc = "{\"version\":1,\"tools\":[{\"regex\":\"^(dep|rel)(loy){1,2}$\",\"floor\":\"ask\"}]}";
	cr_assert_eq(gate_policy_parse(doc, strlen(doc), "ok.json", &p, &e), 0, "%s", e.msg);
	cr_expect_eq(decide(p, "deployloy", "{}", "{\"readOnlyHint\":true}"), GATE_ASK);
	cr_expect_eq(decide(p, "deploylo", "{}", "{\"readOnlyHint\":true}"), GATE_ALLOW);
	gate_policy_free(p);
}

Test(gate_policy, load_from_disk)
{
	char *dir = ts_tmpdir("gate-policy");
	char path[512];
	snprintf(path, sizeof path, "%s/policy.json", dir);
	ts_write_file(path, good, strlen(good));
	struct gate_policy *p = NULL;
	struct err e = {0};
	cr_assert_eq(gate_policy_load(path, &p, &e), 0, "%s", e.msg);
	gate_policy_free(p);

	snprintf(path, sizeof path, "%s/bad.json", dir);
	const char *bad = "{\"version\":1,\"tools\":[{\"glob\":\"[\"}]}";
	ts_write_file(path, bad, strlen(bad));
	p = NULL;
	cr_expect_lt(gate_policy_load(path, &p, &e), 0);
	cr_expect(strstr(e.msg, path) && strstr(e.msg, "$.tools[0].glob"), "%s", e.msg);
	cr_expect_null(p);

	snprintf(path, sizeof path, "%s/missing.json", dir);
	cr_expect_lt(gate_policy_load(path, &p, &e), 0);
	cr_expect(strstr(e.msg, "missing.json") != NULL, "%s", e.msg);

	snprintf(path, sizeof path, "%s/huge.json", dir);
	size_t n = (1u << 20) + 10;
	char *huge = malloc(n);
	memset(huge, ' ', n);
	ts_write_file(path, huge, n);
	free(huge);
	cr_expect_lt(gate_policy_load(path, &p, &e), 0, "over 1 MiB is refused");
	ts_rmtree(dir);
	free(dir);
}

Test(gate_policy, defaults_are_static_and_free_is_safe)
{
	const struct gate_policy *d = gate_policy_default();
	cr_assert_not_null(d);
	cr_expect_eq(d, gate_policy_default());
	gate_policy_free((struct gate_policy *)d); /* a no-op for the static default */
	gate_policy_free(NULL);
	cr_expect_eq(decide(d, "x", "{\"command\":\"git status\"}", NULL), GATE_ALLOW);
}
