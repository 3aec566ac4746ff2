/* verify_claim.c - the start of suite-before-success-claim, shared by MCP and hook runs:
 * the claim found, the trajectory verdict opened, a claim that does not say the suite passed
 * judged. See verify.h. */
#include <string.h>

#include "common/jsonx.h"
#include "common/xalloc.h"
#include "trace/trace_reader.h"
#include "verify/verify.h"

const struct invariant *verify_trajectory_begin(const struct trace *t, const struct policy *pol,
						 struct verify_report *out, int64_t *claim_seq)
{
	const struct invariant *inv = NULL;
	for (size_t i = 0; pol && i < pol->n; i++)
		if (pol->inv[i].rule == RULE_SUITE_BEFORE_CLAIM)
			inv = &pol->inv[i];
	if (!inv)
		return NULL;
	const cJSON *claim = NULL;
	for (size_t i = 0; i < t->nskips; i++) {
		const char *kind = jx_str(t->skips[i].record, "kind");
		if (kind && !strcmp(kind, "claim")) {
			claim = t->skips[i].record;
			*claim_seq = t->skips[i].seq;
		}
	}
	for (size_t i = 0; i < t->n; i++)
		if (!strcmp(t->recs[i].kind, "claim")) {
			claim = t->recs[i].obj;
			*claim_seq = t->recs[i].seq;
		}
	if (!claim)
		return NULL; /* no success claim: the rule has nothing to check (reported, not judged) */
	struct turn_verdict *v = &out->trajectory;
	out->has_trajectory = 1;
	v->turn = -1;
	v->tool = xstrdup("(whole run)");
	const char *text = jx_str(claim, "text");
	if (!text || !verify_claim_says_passed(text)) {
		verdict_add(v, "A1", "trajectory", V_UNVERIFIED, "CLAIM_UNCLASSIFIABLE", NO_EVIDENCE,
			    "suite-before-success-claim: the claim \"%s\" does not say the suite passed", text ? text : "");
		verdict_reduce(v);
		return NULL;
	}
	return inv;
}
