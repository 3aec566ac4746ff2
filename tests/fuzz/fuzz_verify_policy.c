/* fuzz_verify_policy.c - the A1 invariant policy loader (src/verify/policy.c).
 *
 * Input: a policy file. A refused one is a named EINVAL starting with its origin. An
 * accepted one round-trips: policy_json of it, printed and parsed again, gives the same
 * invariants (rule, scope, tools) - the form corpus cases store and replay with. */
#include <cjson/cJSON.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "support.h"
#include "verify/policy.h"

static void same(const struct policy *a, const struct policy *b)
{
	FZ_CHECK(a->n == b->n, "%zu invariants, %zu after the round trip", a->n, b->n);
	for (size_t i = 0; i < a->n; i++) {
		const struct invariant *x = &a->inv[i], *y = &b->inv[i];
		FZ_CHECK(x->rule == y->rule && strcmp(x->scope, y->scope) == 0, "invariant %zu", i);
		FZ_CHECK(!x->tools == !y->tools, "invariant %zu tools", i);
		for (size_t k = 0; x->tools && (x->tools[k] || y->tools[k]); k++)
			FZ_CHECK(x->tools[k] && y->tools[k] && strcmp(x->tools[k], y->tools[k]) == 0, "tool %zu", k);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct policy p = {0};
	struct err e = {0};
	int rc = policy_parse(&p, (const char *)data, size, "fuzz.json", &e);
	FZ_NOTE("parse: %d %s (%zu invariants)", rc, rc ? e.msg : "", p.n);
	if (rc) {
		FZ_CHECK(rc == BELAY_EINVAL && e.code == rc, "refused with %d", rc);
		FZ_CHECK(strncmp(e.msg, "fuzz.json: ", 11) == 0, "the error does not name its origin: %s", e.msg);
		policy_free(&p);
		return 0;
	}
	for (size_t i = 0; i < p.n; i++) {
		const struct invariant *v = &p.inv[i];
		FZ_CHECK(v->scope[0] != '/' && !strstr(v->scope, ".."), "scope '%s' escapes the workspace", v->scope);
		FZ_CHECK(rule_name(v->rule) != NULL);
		(void)policy_is_suite_tool(v, "run_tests");
		if (v->tools && v->tools[0])
			FZ_CHECK(policy_is_suite_tool(v, v->tools[0]));
	}
	cJSON *j = policy_json(&p);
	char *txt = cJSON_PrintUnformatted(j);
	FZ_CHECK(txt != NULL);
	struct policy q = {0};
	rc = policy_parse(&q, txt, strlen(txt), "roundtrip.json", &e);
	FZ_CHECK(rc == 0, "policy_json gave a policy that does not load: %s\n%s", e.msg, txt);
	same(&p, &q);
	free(txt);
	cJSON_Delete(j);
	policy_free(&q);
	policy_free(&p);
	return 0;
}
