/* fuzz_gate_policy.c - the gate's tool-call policy loader (src/gate/gate_policy.c) and the
 * tool-call classifier it drives (src/gate/toolcall.c).
 *
 * Input: a policy document, optionally followed by a NUL and a JSON object
 * {"name": TOOL, "arguments": {...}, "annotations": {...}} (several such objects may be
 * given as an array). A refused policy must come back as a named EINVAL that starts with
 * its origin and leaves *out NULL. An accepted one classifies the given calls (and a few
 * fixed ones) into plans that hold the plan invariants, and the rule lookup is stable. */
#include <cjson/cJSON.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "gate/gate.h"
#include "gate/gate_policy.h"
#include "support.h"

static const struct gate_ctx ctx = {"/ws", "/ws/a", "/home/u", "/home/u/.local/state/belay", NULL};

static void plan(const struct gate_policy *p, const cJSON *call)
{
	const cJSON *name = cJSON_GetObjectItemCaseSensitive(call, "name");
	const char *tool = cJSON_IsString(name) ? name->valuestring : "tool";
	const cJSON *args = cJSON_GetObjectItemCaseSensitive(call, "arguments");
	const cJSON *ann = cJSON_GetObjectItemCaseSensitive(call, "annotations");
	struct effect_plan *ep = gate_plan_tool_call(p, tool, args, ann, &ctx);
	free(fz_plan_check(ep));
	effect_plan_free(ep);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *in = (const char *)data;
	const char *nul = memchr(in, '\0', size);
	size_t plen = nul ? (size_t)(nul - in) : size;
	struct gate_policy *p = (struct gate_policy *)&p;
	struct err e = {0};
	int rc = gate_policy_parse(in, plen, "fuzz.json", &p, &e);
	FZ_NOTE("parse: %d %s", rc, rc ? e.msg : "");
	if (rc) {
		FZ_CHECK(rc == BELAY_EINVAL && e.code == rc, "refused with %d", rc);
		FZ_CHECK(p == NULL, "a refused policy left *out set");
		FZ_CHECK(strncmp(e.msg, "fuzz.json: $", 12) == 0, "the error does not name origin and path: %s", e.msg);
		return 0;
	}
	FZ_CHECK(p != NULL);
	for (size_t i = 0; i < p->nrules; i++) {
		const struct gate_tool_rule *r = &p->rules[i];
		FZ_CHECK(!!r->name + !!r->glob + !!r->regex == 1, "rule %zu has %d matchers", i,
			 !!r->name + !!r->glob + !!r->regex);
		if (r->name)
			FZ_CHECK(gate_policy_rule(p, r->name) != NULL, "the rule for %s is not found", r->name);
	}
	cJSON *calls = nul ? cJSON_ParseWithLength(nul + 1, size - plen - 1) : NULL;
	if (cJSON_IsArray(calls)) {
		int k = 0;
		for (const cJSON *c = calls->child; c && k < 8; c = c->next, k++)
			plan(p, c);
	} else if (calls) {
		plan(p, calls);
	}
	cJSON_Delete(calls);
	/* A few fixed calls under every accepted policy. */
	static const char *const fixed[] = {
	    "{\"name\":\"run_command\",\"arguments\":{\"command\":\"rm -rf ../x\",\"cwd\":\"/tmp\"}}",
	    ("{\"name\":\"write_file\",\"arguments\":{\"path\":\"../../etc/passwd\",\"content\":\"x\"},"
	     "\"annotations\":{\"readOnlyHint\":false,\"destructiveHint\":true}}"),
	    "{\"name\":\"fetch\",\"arguments\":{\"url\":\"https://example.com/\",\"urls\":[\"http://127.0.0.1:8/\"]}}",
	    "{\"name\":\"exec\",\"arguments\":{\"argv\":[\"git\",\"push\",\"--force\"],\"files\":[\"a\",\"/b\"]}}",
	};
	for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++) {
		cJSON *c = cJSON_Parse(fixed[i]);
		FZ_CHECK(c != NULL);
		plan(p, c);
		cJSON_Delete(c);
	}
	gate_policy_free(p);
	return 0;
}
