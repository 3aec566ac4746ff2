/* verdict.c - statuses, the closed cause list, reduction and JSON. Pure. */
#include "verify/verdict.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/xalloc.h"

const struct vcause vcauses[] = {
	/* the pre-state could not be restored: the call was not re-executed */
	{"CALL_REFUSED_BY_GATE", "the effect gate refused the call, so it never ran and there is nothing to re-execute"},
	{"PRESTATE_ABSENT", "no pre-state was captured for this call (recorded without --scope)"},
	{"UNRESTORABLE_CONCURRENT_TURN", "the call overlapped an unanswered call that was not declared read-only"},
	{"UNRESTORABLE_SNAPSHOT_FAILED", "capturing the pre-state failed when the call was recorded"},
	{"UNRESTORABLE_FIFO", "the workspace held a FIFO, which a snapshot cannot capture"},
	{"UNRESTORABLE_SOCKET", "the workspace held a socket, which a snapshot cannot capture"},
	{"UNRESTORABLE_DEVICE_NODE", "the workspace held a device node, which a snapshot cannot capture"},
	{"UNRESTORABLE_OWNERSHIP", "the workspace held an entry owned by another user"},
	{"PRESTATE_NOT_FOUND", "the recorded pre-state is not in this state directory's store"},
	{"PRESTATE_HANDLE_INVALID", "the recorded state_handle is malformed"},
	{"PRESTATE_DEPENDENCY_BROKEN", "the pre-state was shared with a call declared read-only that wrote"},
	{"SERVER_COMMAND_UNKNOWN", "the trace does not say how the server was started, and none was given"},
	{"RELOCATION_UNROOTABLE", "the server was given the workspace neither by argument nor as its cwd"},
	{"REPLAY_SANDBOX_UNAVAILABLE", "a containment layer cannot be installed here, so nothing is re-executed"},
	{"REPLAY_SERVER_FAILED", "the re-executed server could not be started"},
	{"REPLAY_SERVER_EXITED", "the re-executed server exited before answering the call"},
	{"REPLAY_TIMEOUT", "the re-executed server did not answer within the time bound"},
	{"REPLAY_NETWORK_REFUSED", "the replay needed the network, which replays never get; when it was refused a connection the recorded call made, the call's state lives outside the workspace (named by its address) and a lie there cannot be told from an honest turn"},
	{"REPLAY_CLIENT_ANSWER_MISSING", "the replayed server asked the client something the record holds no answer to"},
	{"REPLAY_ENVIRONMENT_UNAVAILABLE", "the server was started with a secret the trace withholds and verify lacks"},
	{"REPLAY_ENV_REFUSED", "material from elsewhere sets a variable that loads code into the server (LD_PRELOAD, PYTHONPATH, NODE_OPTIONS, ...): refused, nothing started"},
	{"WORKSPACE_CHANGED_OUTSIDE", "the workspace changed outside the sandbox while the call ran"},
	{"SESSION_ORDER_DIVERGED", "the result reproduces on a fresh server but not with the session replayed in order"},
	{"SESSION_ORDER_NOT_REPLAYED", "the result differs on a fresh server, and the session was not replayed in order up to the call: state the server kept may explain it, or a lie may hide there"},
	/* re-executed, but the result cannot be judged */
	{"RESULT_NOT_RECORDED", "the original call has no recorded response to compare with"},
	{"FRAME_TRUNCATED", "the call's request or response was longer than the recording cap: the trace holds only its beginning"},
	{"RESULT_NONDETERMINISTIC_CLOCK", "the result varies across replays with the wall clock"},
	{"RESULT_NONDETERMINISTIC_RANDOM", "the result varies across replays with random values (identifiers, random floats)"},
	{"RESULT_NONDETERMINISTIC_PROCESS", "the result varies across replays with process-dependent numbers"},
	{"RESULT_NONDETERMINISTIC_UNKNOWN", "the result varies across replays for an unknown reason"},
	{"EFFECT_NONDETERMINISTIC", "the replays wrote other bytes than the recording and than each other from the same pre-state (random content): what the call wrote cannot be compared, and a lie in it cannot be told from the randomness"},
	{"EFFECT_NONDETERMINISTIC_CLOCK",
	 "the replay wrote what the recording did but for later clock readings in file content or names"},
	{"EFFECT_NOT_DECLARED", "the tool is not in the latest tools/list answered before the call (or none was), so there is no effect claim to check, not even the MCP defaults"},
	{"EFFECT_DECLARATION_NON_BOOLEAN", "the tool's readOnlyHint is not a boolean"},
	{"TOOL_NOT_REEXECUTED", "an agent's own tool that belay records but does not re-execute (Read, Grep, Glob, subagents, web and MCP tools seen through hooks)"},
	/* A1 invariants */
	{"ASSERTION_CHECK_UNAVAILABLE", "no longer produced (Python test files are judged in process): python3 was missing or failed, so test assertions could not be compared", 1},
	{"ASSERTION_UNDECIDABLE", "an assertion, or a conftest.py's collection setting, changed in a way the rule cannot decide"},
	{"ASSERTION_FILE_UNREADABLE", "a test file could not be decoded or parsed"},
	{"ASSERTION_LANGUAGE_NOT_JUDGED", "a test file changed in a language or format the rule does not judge (named in the message)"},

	{"TEST_CONFIG_NOT_JUDGED", "a test-relevant key of a test configuration file changed (named in the message); whether it narrows the tests is not judged"},
	{"IN_SCOPE_BUDGET_EXCEEDED", "more test files changed than the rule compares"},
	{"TASK_PRESTATE_UNAVAILABLE", "the task's first pre-state is not available to compare against"},
	{"CLAIM_UNCLASSIFIABLE", "the recorded claim does not say the suite passed"},
	{"EVIDENCE_UNOBSERVABLE", "suite runs happened but none could be replayed"},
	{"CENSUS_NO_RUNNER", "tests-collected: no test runner the census knows is set up in the workspace, or it is not installed"},
	{"CENSUS_FAILED", "tests-collected: the runner's discovery failed (an error, a crash, the time bound) or counted no test, so the two states cannot be compared"},
	{"CENSUS_NEEDS_NETWORK", "tests-collected: the runner's discovery needed the network, which it never gets"},
	{"CLAIM_SUITE_NO_RUNNER", "claim-rederived: no suite the rule can run is set up in the final state, or its runner is not installed"},
	{"CLAIM_SUITE_FAILED", "claim-rederived: the suite could not be run on the final state (an internal error, a crash, the time bound)"},
	{"CLAIM_SUITE_NETWORK", "claim-rederived: tests fail on the final state and the sandbox refused a network access they may need"},
	{"CLAIM_SUITE_RUNTIME_MISSING", "claim-rederived: tests fail on the final state for want of a module or program the contained run does not have"},
	{"SUITE_FLAKY", "claim-rederived: a test failed in one of two runs of the same final state and not in the other"},
	{"CLAIM_NO_FINAL_STATE", "claim-rederived: the run's final state was not captured (or cannot be restored), so the suite cannot be run on it"},
	{"CENSUS_NO_FINAL_STATE", "tests-collected: the run's final state was not captured (or cannot be restored), so there is no after to count"},
	{"NO_SUBVERDICT", "nothing could be judged for this turn"},
	/* NOT_COVERED and WARN reasons */
	{"NETWORK_NOT_OBSERVED", "the call was not re-executed, so its network use was not observed"},
	{"REPLAY_DENIALS", "the sandbox refused operations during the replay"},
	{"PROTOCOL_VERSION_DRIFT", "the replayed server negotiated another protocol version"},
	{"ASSERTION_EXPECTATION_CHANGED", "a test's expected value changed to another: the specification may have changed, or the test was bent to the code"},
	{"TEST_DATA_CHANGED", "a fixture, snapshot or golden file where tests live changed (summarised in the message): honest or not, a person decides"},
	{"PLAN_INCOMPLETE", "the gate's effect plan was partial, so there is no prediction to check against the replay"},
	{"POST_STATE_UNEXPLAINED", "a hook turn's recorded post-state changed paths its replay (or its edit) does not explain"},
	{NULL, NULL, 0},
};

int vcause_known(const char *name)
{
	for (const struct vcause *c = vcauses; c->name; c++)
		if (!strcmp(c->name, name))
			return 1;
	return 0;
}

const char *vstatus_name(enum vstatus s)
{
	switch (s) {
	case V_PASS: return "PASS";
	case V_WARN: return "WARN";
	case V_UNVERIFIED: return "UNVERIFIED";
	case V_FAIL: return "FAIL";
	case V_NOT_COVERED: return "NOT_COVERED";
	}
	return "?";
}

int vstatus_parse(const char *name, enum vstatus *out)
{
	for (int i = 0; i <= V_NOT_COVERED; i++)
		if (!strcmp(name, vstatus_name((enum vstatus)i))) {
			*out = (enum vstatus)i;
			return 0;
		}
	return -1;
}

static struct subverdict *add_raw(struct turn_verdict *v)
{
	if (v->nsubs == v->capsubs) {
		v->capsubs = v->capsubs ? v->capsubs * 2 : 4;
		v->subs = xrealloc(v->subs, v->capsubs * sizeof *v->subs);
	}
	struct subverdict *s = &v->subs[v->nsubs++];
	memset(s, 0, sizeof *s);
	return s;
}

struct subverdict *verdict_add(struct turn_verdict *v, const char *axis, const char *kind, enum vstatus st,
			       const char *cause, struct evidence ev, const char *fmt, ...)
{
	if (cause && *cause && !vcause_known(cause))
		FATAL("cause %s is not in the closed list (verdict.c)", cause);
	if ((st == V_UNVERIFIED || st == V_NOT_COVERED) && !(cause && *cause))
		FATAL("an %s sub-verdict must name a cause", vstatus_name(st));
	struct subverdict *s = add_raw(v);
	snprintf(s->axis, sizeof s->axis, "%s", axis);
	snprintf(s->kind, sizeof s->kind, "%s", kind);
	s->status = st;
	snprintf(s->cause, sizeof s->cause, "%s", cause ? cause : "");
	va_list ap;
	va_start(ap, fmt);
	s->message = xvasprintf(fmt, ap);
	va_end(ap);
	s->observed = ev.observed;
	s->expected = ev.expected;
	return s;
}

void verdict_note(struct subverdict *s, const char *kind, cJSON *detail)
{
	if (!s->notes)
		s->notes = cJSON_CreateArray();
	cJSON *n = cJSON_CreateObject();
	cJSON_AddStringToObject(n, "kind", kind);
	for (cJSON *d = detail ? detail->child : NULL; d; d = d->next)
		if (d->string && strcmp(d->string, "kind"))
			cJSON_AddItemToObject(n, d->string, cJSON_Duplicate(d, 1));
	cJSON_Delete(detail);
	cJSON_AddItemToArray(s->notes, n);
}

void verdict_unverified(struct turn_verdict *v, const char *cause, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *msg = xvasprintf(fmt, ap);
	va_end(ap);
	verdict_add(v, "A2", "replay", V_UNVERIFIED, cause, NO_EVIDENCE, "%s", msg);
	free(msg);
}

void verdict_reduce(struct turn_verdict *v)
{
	enum vstatus worst = V_PASS;
	const char *cause = "";
	int any = 0;
	for (size_t i = 0; i < v->nsubs; i++) {
		const struct subverdict *s = &v->subs[i];
		if (s->status == V_NOT_COVERED)
			continue;
		if (!any || s->status > worst) {
			worst = s->status;
			cause = s->status == V_UNVERIFIED || s->status == V_WARN ? s->cause : "";
		}
		any = 1;
	}
	if (!any) {
		v->status = V_UNVERIFIED;
		snprintf(v->cause, sizeof v->cause, "NO_SUBVERDICT");
		return;
	}
	v->status = worst;
	snprintf(v->cause, sizeof v->cause, "%s", cause);
}

void verdict_free(struct turn_verdict *v)
{
	for (size_t i = 0; i < v->nsubs; i++) {
		free(v->subs[i].message);
		free(v->subs[i].rule);
		cJSON_Delete(v->subs[i].observed);
		cJSON_Delete(v->subs[i].expected);
		cJSON_Delete(v->subs[i].notes);
	}
	free(v->subs);
	free(v->tool);
	cJSON_Delete(v->effect);
	cJSON_Delete(v->denials);
	memset(v, 0, sizeof *v);
}

cJSON *verdict_json(const struct turn_verdict *v)
{
	cJSON *o = cJSON_CreateObject();
	cJSON_AddNumberToObject(o, "turn", v->turn);
	if (v->tool)
		cJSON_AddStringToObject(o, "tool", v->tool);
	else
		cJSON_AddNullToObject(o, "tool");
	cJSON_AddStringToObject(o, "status", vstatus_name(v->status));
	if (v->cause[0])
		cJSON_AddStringToObject(o, "cause", v->cause);
	else
		cJSON_AddNullToObject(o, "cause");
	cJSON *arr = cJSON_AddArrayToObject(o, "verdicts");
	for (size_t i = 0; i < v->nsubs; i++) {
		const struct subverdict *s = &v->subs[i];
		cJSON *x = cJSON_CreateObject();
		cJSON_AddStringToObject(x, "axis", s->axis);
		cJSON_AddStringToObject(x, "kind", s->kind);
		cJSON_AddStringToObject(x, "status", vstatus_name(s->status));
		if (s->cause[0])
			cJSON_AddStringToObject(x, "cause", s->cause);
		else
			cJSON_AddNullToObject(x, "cause");
		cJSON_AddStringToObject(x, "message", s->message ? s->message : "");
		if (s->rule)
			cJSON_AddStringToObject(x, "rule", s->rule);
		if (s->observed)
			cJSON_AddItemToObject(x, "observed", cJSON_Duplicate(s->observed, 1));
		if (s->expected)
			cJSON_AddItemToObject(x, "expected", cJSON_Duplicate(s->expected, 1));
		if (s->notes)
			cJSON_AddItemToObject(x, "notes", cJSON_Duplicate(s->notes, 1));
		cJSON_AddItemToArray(arr, x);
	}
	cJSON_AddBoolToObject(o, "replayed", v->replayed);
	if (v->effect)
		cJSON_AddItemToObject(o, "effect", cJSON_Duplicate(v->effect, 1));
	if (v->effect_via) {
		cJSON_AddStringToObject(o, "effect_via", v->effect_via);
		if (v->effect_full_why)
			cJSON_AddStringToObject(o, "effect_full_diff_because", v->effect_full_why);
	}
	if (v->denials && cJSON_GetArraySize(v->denials))
		cJSON_AddItemToObject(o, "denials", cJSON_Duplicate(v->denials, 1));
	if (v->ms_total > 0) {
		cJSON *ms = cJSON_AddObjectToObject(o, "ms");
		cJSON_AddNumberToObject(ms, "restore", (double)(long long)(v->ms_restore * 10) / 10);
		cJSON_AddNumberToObject(ms, "server", (double)(long long)(v->ms_server * 10) / 10);
		cJSON_AddNumberToObject(ms, "effect", (double)(long long)(v->ms_effect * 10) / 10);
		cJSON_AddNumberToObject(ms, "total", (double)(long long)(v->ms_total * 10) / 10);
	}
	return o;
}

int verdict_exit_code(enum vstatus worst, size_t turns)
{
	if (turns == 0)
		return 3; /* nothing verified is not a pass */
	switch (worst) {
	case V_PASS: return 0;
	case V_WARN: return 1;
	case V_UNVERIFIED: return 3;
	case V_FAIL: return 4;
	default: return 3;
	}
}
