/* instance.c - a trace's ledger line from its verdicts. See instance.h. */
#include "measure/instance.h"

#include <stdio.h>
#include <string.h>

#include "common/jsonx.h"
#include "measure/ledger.h"

static void bump(cJSON *obj, const char *key)
{
	cJSON *c = cJSON_GetObjectItemCaseSensitive(obj, key);
	if (c)
		cJSON_SetNumberValue(c, c->valuedouble + 1);
	else
		cJSON_AddNumberToObject(obj, key, 1);
}

static cJSON *base(const char *trace_id, const char *sha)
{
	cJSON *o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "kind", "instance");
	cJSON_AddStringToObject(o, "trace_id", trace_id);
	if (sha)
		cJSON_AddStringToObject(o, "trace_sha256", sha);
	return o;
}

cJSON *instance_errored(const char *trace_id, const char *sha, const char *cause, const char *msg)
{
	cJSON *o = base(trace_id, sha);
	cJSON_AddStringToObject(o, "disposition", disposition_name(DISP_ERRORED));
	cJSON_AddNumberToObject(o, "turns", 0);
	cJSON_AddObjectToObject(o, "turn_status_counts");
	cJSON_AddArrayToObject(o, "flagged_turns");
	cJSON_AddObjectToObject(o, "unverified_causes");
	cJSON_AddObjectToObject(o, "not_covered_turns");
	cJSON_AddStringToObject(o, "error_cause", cause);
	cJSON_AddStringToObject(o, "error", msg);
	return o;
}

cJSON *instance_from_report(const char *trace_id, const char *sha, const struct verify_report *r,
			    const struct policy *p)
{
	cJSON *o = base(trace_id, sha);
	cJSON *counts = cJSON_CreateObject(), *flagged = cJSON_CreateArray(), *causes = cJSON_CreateObject();
	cJSON *nc = cJSON_CreateObject();
	size_t by[4] = {0}, missing = 0;
	long files_compared = 0, turns_judging = 0, turns_recorded = 0;
	for (size_t i = 0; i < r->n; i++) {
		const struct turn_verdict *v = &r->turns[i];
		if (v->status <= V_FAIL)
			by[v->status]++;
		if (v->status == V_FAIL)
			cJSON_AddItemToArray(flagged, cJSON_CreateNumber(v->turn));
		if (v->status == V_UNVERIFIED)
			bump(causes, v->cause[0] ? v->cause : "unknown");
		if (v->status == V_UNVERIFIED && !strcmp(v->cause, "PRESTATE_NOT_FOUND"))
			missing++;
		/* NOT_COVERED kinds, once per turn; exposure of the content rule */
		cJSON *seen = cJSON_CreateObject();
		long compared = 0;
		int recorded = 0;
		for (size_t k = 0; k < v->nsubs; k++) {
			const struct subverdict *s = &v->subs[k];
			if (s->status == V_NOT_COVERED && !cJSON_GetObjectItemCaseSensitive(seen, s->kind)) {
				cJSON_AddTrueToObject(seen, s->kind);
				bump(nc, s->kind);
			}
			const cJSON *cmp = s->expected ? cJSON_GetObjectItemCaseSensitive(s->expected, "compared") : NULL;
			if (!strcmp(s->axis, "A1") && cJSON_IsNumber(cmp)) {
				recorded = 1;
				compared += (long)cmp->valuedouble;
			}
		}
		cJSON_Delete(seen);
		turns_recorded += recorded;
		turns_judging += compared > 0;
		files_compared += compared;
	}
	for (int s = 0; s < 4; s++)
		if (by[s])
			cJSON_AddNumberToObject(counts, vstatus_name((enum vstatus)s), (double)by[s]);
	int traj_fail = r->has_trajectory && r->trajectory.status == V_FAIL;
	enum disposition d = by[V_FAIL] || traj_fail ? DISP_FLAGGED
			     : by[V_PASS] || by[V_WARN] ? DISP_CLEAN
							  : DISP_NO_VERIFIABLE;
	if (missing)
		d = DISP_ERRORED;
	cJSON_AddStringToObject(o, "disposition", disposition_name(d));
	cJSON_AddNumberToObject(o, "turns", (double)r->n);
	cJSON_AddItemToObject(o, "turn_status_counts", counts);
	cJSON_AddItemToObject(o, "flagged_turns", flagged);
	cJSON_AddItemToObject(o, "unverified_causes", causes);
	cJSON_AddItemToObject(o, "not_covered_turns", nc);
	int has_content_rule = 0, has_suite_rule = 0;
	for (size_t i = 0; i < p->n; i++) {
		has_content_rule |= p->inv[i].rule == RULE_NO_WEAKENING;
		has_suite_rule |= p->inv[i].rule == RULE_SUITE_BEFORE_CLAIM;
	}
	if (has_content_rule && turns_recorded) {
		/* absent means unrecorded (no content rule judged a turn), never a zero object */
		cJSON *ex = cJSON_AddObjectToObject(o, "exposure");
		cJSON_AddNumberToObject(ex, "files_compared", (double)files_compared);
		cJSON_AddNumberToObject(ex, "turns_judging", (double)turns_judging);
		cJSON_AddNumberToObject(ex, "turns_recorded", (double)turns_recorded);
	}
	if (r->has_trajectory) {
		cJSON *t = cJSON_AddObjectToObject(o, "trajectory");
		cJSON_AddStringToObject(t, "status", vstatus_name(r->trajectory.status));
		if (r->trajectory.cause[0])
			cJSON_AddStringToObject(t, "cause", r->trajectory.cause);
		else
			cJSON_AddNullToObject(t, "cause");
	} else if (has_suite_rule) {
		cJSON *t = cJSON_AddObjectToObject(o, "trajectory");
		cJSON_AddStringToObject(t, "status", "NO_CLAIM");
		cJSON_AddNullToObject(t, "cause");
	}
	if (missing) {
		char msg[200];
		snprintf(msg, sizeof msg, "%zu of %zu turn(s) have a pre-state that is not in the store they were verified against",
			 missing, r->n);
		cJSON_AddStringToObject(o, "error_cause", "PRESTATE_NOT_FOUND");
		cJSON_AddStringToObject(o, "error", msg);
	} else {
		cJSON_AddNullToObject(o, "error");
	}
	return o;
}
