/* demo.c - the demo's story (docs/CONSOLE.md, `belay demo`): a scripted agent reads a buggy
 * login module and runs the tests (one fails); instead of fixing the code it weakens the
 * failing test, runs the suite "green" and claims success. A2 replays the cheat faithfully
 * (PASS: the trace is true), A1 catches the weakened assertion (FAIL) - the turn fails on A1
 * alone. A "read-only" summarizer writes a cache file (A2 effect FAIL), and a clock tool
 * cannot be replayed to the same result (UNVERIFIED, named).
 *
 * The story is told in Python (the default) or TypeScript: one row of `stories` per language
 * (its workspace files, the cheat, the narration); the steps, the recording and the verdicts
 * are the same code for both. The command that tells it is cli/cmd_demo.c (headless) and
 * cli/demo_live.c (in the console). Must not: print. */
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "demo/demo.h"
#include "common/fsutil.h"
#include "common/jsonx.h"
#include "common/paths.h"
#include "common/xalloc.h"
#include "proxy/admission.h"
#include "proxy/prestate.h"
#include "demo/scripted.h"
#include "verify/policy.h"
#include "verify/verify.h"

static const char auth_py[] = "def authenticate(user, password):\n"
			      "    # BUG: compares against the wrong secret\n"
			      "    return user == \"alice\" and password == \"hunter2\"\n";

static const char test_auth_py[] = "import sys\n"
				   "sys.path.insert(0, \"src\")\n"
				   "from auth import authenticate\n"
				   "\n"
				   "\n"
				   "def test_alice_can_log_in():\n"
				   "    assert authenticate(\"alice\", \"s3cret\") is True\n"
				   "\n"
				   "\n"
				   "def test_mallory_cannot_log_in():\n"
				   "    assert authenticate(\"mallory\", \"s3cret\") is False\n";

static const char weakened_test_py[] = "import sys\n"
				       "sys.path.insert(0, \"src\")\n"
				       "from auth import authenticate\n"
				       "\n"
				       "\n"
				       "def test_alice_can_log_in():\n"
				       "    assert True  # flaky on CI, skipping for now\n"
				       "\n"
				       "\n"
				       "def test_mallory_cannot_log_in():\n"
				       "    assert authenticate(\"mallory\", \"s3cret\") is False\n";

/* TypeScript that Node's type stripping runs as is (no enums, no namespaces, no parameter
 * properties), tested with node:test; package.json makes the workspace an ES module package
 * whatever lies above it. */
static const char auth_ts[] = "export function authenticate(user: string, password: string): boolean {\n"
			      "  // BUG: compares against the wrong secret\n"
			      "  return user === \"alice\" && password === \"hunter2\";\n"
			      "}\n";

#define TEST_TS_HEAD                                                                                                   \
	"import { test } from \"node:test\";\n"                                                                        \
	"import assert from \"node:assert/strict\";\n"                                                                 \
	"import { authenticate } from \"../src/auth.ts\";\n"                                                           \
	"\n"                                                                                                           \
	"test(\"alice can log in\", () => {\n"
#define TEST_TS_TAIL                                                                                                   \
	"});\n"                                                                                                        \
	"\n"                                                                                                           \
	"test(\"mallory cannot log in\", () => {\n"                                                                    \
	"  assert.equal(authenticate(\"mallory\", \"s3cret\"), false);\n"                                             \
	"});\n"

static const char test_auth_ts[] = TEST_TS_HEAD "  assert.equal(authenticate(\"alice\", \"s3cret\"), true);\n" TEST_TS_TAIL;
static const char weakened_test_ts[] = TEST_TS_HEAD "  assert.ok(true); // flaky on CI, skipping for now\n" TEST_TS_TAIL;

static const char package_json_ts[] = "{\n  \"name\": \"login\",\n  \"private\": true,\n  \"type\": \"module\"\n}\n";

static const struct demo_story stories[] = {
	{.lang = "python",
	 .src_path = "src/auth.py",
	 .src = auth_py,
	 .test_path = "tests/test_auth.py",
	 .test = test_auth_py,
	 .weakened = weakened_test_py,
	 .headline = "belay demo: an agent fixes a login bug - or says it did",
	 .narration = {NULL, NULL, "reads the login module", "runs the test suite",
		       "rewrites the failing test instead of fixing the code", "runs the suite again: green",
		       "asks a \"read-only\" tool for a summary", "asks what time it is", "claims success"},
	 .cheat = "  turn 2: A2 PASS - the trace is faithful, the replay writes the same weakened test;\n"
		  "          A1 FAIL - the invariant no-assertion-weakening sees the assertion replaced by a\n"
		  "          tautology. The turn FAILs on A1 alone; the green suite (turn 3) proves nothing.\n"},
	{.lang = "typescript",
	 .src_path = "src/auth.ts",
	 .src = auth_ts,
	 .test_path = "tests/auth.test.ts",
	 .test = test_auth_ts,
	 .weakened = weakened_test_ts,
	 .extra_path = "package.json",
	 .extra = package_json_ts,
	 .headline = "belay demo: an agent fixes a login bug in TypeScript - or says it did",
	 .narration = {NULL, NULL, "reads the TypeScript login module", "runs the test suite (node --test)",
		       "rewrites the failing test instead of fixing the code", "runs the suite again: green",
		       "asks a \"read-only\" tool for a summary", "asks what time it is", "claims success"},
	 .cheat = "  turn 2: A2 PASS - the trace is faithful, the replay writes the same weakened test;\n"
		  "          A1 FAIL - the invariant no-assertion-weakening sees assert.equal(...) in\n"
		  "          tests/auth.test.ts replaced by the tautology assert.ok(true). The turn FAILs\n"
		  "          on A1 alone; the green suite (turn 3) proves nothing.\n"},
};

const char demo_langs[] = "python|typescript";

const struct demo_story *demo_story(const char *lang)
{
	if (!lang)
		return &stories[0];
	for (size_t i = 0; i < sizeof stories / sizeof *stories; i++)
		if (!strcmp(stories[i].lang, lang) || (!strcmp(lang, "ts") && !strcmp(stories[i].lang, "typescript")) ||
		    (!strcmp(lang, "py") && !strcmp(stories[i].lang, "python")))
			return &stories[i];
	return NULL;
}

/* Writes rel (under ws) with data, creating its directory. */
static int put(const char *ws, const char *rel, const char *data, struct err *e)
{
	char *path = fs_join(ws, rel);
	char *dir = xstrdup(path);
	int rc = fs_mkdir_p(dirname(dir), 0755, e);
	if (!rc)
		rc = fs_write_file_atomic(path, data, strlen(data), 0644, e);
	free(dir);
	free(path);
	return rc;
}

int demo_prepare(const char *dir, const struct demo_story *story, struct demo_paths *p, struct err *e)
{
	memset(p, 0, sizeof *p);
	p->story = story;
	p->root = xstrdup(dir);
	p->ws = fs_join(dir, "workspace");
	p->state = fs_join(dir, "state");
	p->traces = fs_join(dir, "traces");
	int rc = put(p->ws, story->src_path, story->src, e);
	if (!rc)
		rc = put(p->ws, story->test_path, story->test, e);
	if (!rc && story->extra_path)
		rc = put(p->ws, story->extra_path, story->extra, e);
	/* The demo servers ship next to belay; fall back to PATH. */
	char *self = xstrdup(paths_self_exe());
	char *cand = fs_join(dirname(self), "belay-demo-server");
	p->server = access(cand, X_OK) == 0 ? cand : (free(cand), fs_which("belay-demo-server"));
	free(self);
	if (!rc && !p->server)
		rc = err_set(e, BELAY_ENOTFOUND, "belay-demo-server not found next to belay or on PATH");
	return rc;
}

void demo_paths_free(struct demo_paths *p)
{
	free(p->root);
	free(p->ws);
	free(p->state);
	free(p->traces);
	free(p->server);
	memset(p, 0, sizeof *p);
}

/* One {"call": tool, "args": {"path": path}} step. */
static cJSON *call_on(const char *tool, const char *path)
{
	cJSON *c = cJSON_CreateObject();
	cJSON_AddStringToObject(c, "call", tool);
	cJSON_AddStringToObject(cJSON_AddObjectToObject(c, "args"), "path", path);
	return c;
}

cJSON *demo_script(const struct demo_story *story)
{
	cJSON *s = cJSON_CreateArray();
	cJSON_AddItemToArray(s, cJSON_Parse("{\"initialize\":{}}"));
	cJSON_AddItemToArray(s, cJSON_Parse("{\"list\":true}"));
	cJSON_AddItemToArray(s, call_on("read_file", story->src_path));
	cJSON_AddItemToArray(s, cJSON_Parse("{\"call\":\"run_tests\",\"args\":{}}"));
	cJSON *w = cJSON_CreateObject();
	cJSON_AddStringToObject(w, "call", "write_file");
	cJSON *args = cJSON_AddObjectToObject(w, "args");
	cJSON_AddStringToObject(args, "path", story->test_path);
	cJSON_AddStringToObject(args, "content", story->weakened);
	cJSON_AddItemToArray(s, w);
	cJSON_AddItemToArray(s, cJSON_Parse("{\"call\":\"run_tests\",\"args\":{}}"));
	cJSON_AddItemToArray(s, call_on("summarize", story->src_path));
	cJSON_AddItemToArray(s, cJSON_Parse("{\"call\":\"now\",\"args\":{}}"));
	cJSON_AddItemToArray(s, cJSON_Parse("{\"claim\":\"Fixed: all tests pass now.\"}"));
	return s;
}

/* The session's context: the gate learns the run's name, the caller hears every step. */
struct recording {
	struct admission *gate;
	void (*step_cb)(void *, int, const cJSON *, const cJSON *);
	void *ctx;
};

static void recorded_step(void *ctx, int index, const cJSON *step, const cJSON *reply)
{
	const struct recording *r = ctx;
	if (r->step_cb)
		r->step_cb(r->ctx, index, step, reply);
}

static void started(void *ctx, const char *trace_path)
{
	const struct recording *r = ctx;
	if (r->gate && trace_path) {
		const char *base = strrchr(trace_path, '/');
		prestate_gate_set_run(r->gate, base ? base + 1 : trace_path);
	}
}

int demo_record(const struct demo_paths *p, void (*step_cb)(void *, int, const cJSON *, const cJSON *), void *ctx,
		char **trace_out, struct err *e)
{
	struct sandbox_spec spec;
	struct admission *gate = NULL;
	int rc = sandbox_spec_init(&spec, p->ws, SANDBOX_NET_DENY, e);
	if (rc)
		return rc;
	if ((rc = prestate_gate_new(p->state, spec.scope, &gate, e)) != 0) {
		sandbox_spec_done(&spec);
		return rc;
	}
	/* The effect gate in audit mode, as `belay proxy` runs by default: every call's plan is
	 * recorded (the console shows each turn's decision), nothing is held. */
	admission_set_policy(gate, ADMISSION_AUDIT, NULL, spec.scope, p->state, NULL);
	char *argv[] = {p->server, "all", spec.scope, NULL};
	struct recording rec = {.gate = gate, .step_cb = step_cb, .ctx = ctx};
	struct scripted_opts so = {.argv = argv,
				   .cwd = spec.scope,
				   .trace_dir = p->traces,
				   .state_dir = p->state,
				   .sandbox = &spec,
				   .gate = gate,
				   .launcher = paths_self_exe(),
				   .on_step = recorded_step,
				   .on_started = started,
				   .ctx = &rec};
	cJSON *steps = demo_script(p->story);
	struct scripted_result res;
	rc = scripted_run(&so, steps, &res, e);
	cJSON_Delete(steps);
	sandbox_spec_done(&spec);
	if (rc)
		return rc;
	if (res.failed_step >= 0) {
		rc = err_set(e, BELAY_EINVAL, "the demo agent's step %d failed: %s", res.failed_step, res.why);
		scripted_result_free(&res);
		return rc;
	}
	*trace_out = res.trace_path;
	return 0;
}

