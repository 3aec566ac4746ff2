/* runv.c - the run-level verdicts in words. See runv.h. */
#include "tui/runv.h"

#include <stdio.h>
#include <string.h>

#include "common/jsonx.h"
#include "index/verdict_store.h"
#include "tui/glyphs.h"
#include "tui/look.h"

static long long num(const cJSON *o, const char *key)
{
	const cJSON *x = cJSON_GetObjectItemCaseSensitive(o, key);
	return cJSON_IsNumber(x) ? (long long)x->valuedouble : -1;
}

/* The census's counts over its runners' sub-verdicts: tests collected before and after,
 * findings by kind. 0 when no sub-verdict counted anything. */
static int census_counts(const cJSON *subs, long long *before, long long *after, int *dropped, int *skipped)
{
	*before = *after = 0;
	*dropped = *skipped = 0;
	int counted = 0;
	for (const cJSON *s = cJSON_IsArray(subs) ? subs->child : NULL; s; s = s->next) {
		const char *sides[] = {"expected", "observed"};
		for (int k = 0; k < 2; k++) {
			const cJSON *ev = cJSON_GetObjectItemCaseSensitive(s, sides[k]);
			if (cJSON_IsObject(ev) && num(ev, "collected_before") >= 0 && num(ev, "collected_after") >= 0) {
				*before += num(ev, "collected_before");
				*after += num(ev, "collected_after");
				counted = 1;
			}
			for (const cJSON *f = cJSON_IsArray(ev) ? ev->child : NULL; f; f = f->next) {
				const char *what = jx_str(f, "finding");
				if (what && !strcmp(what, "TESTS_DROPPED"))
					(*dropped)++;
				else if (what && !strcmp(what, "TESTS_SKIPPED"))
					(*skipped)++;
			}
		}
	}
	return counted;
}

static void phrase(const cJSON *v, int census, struct runv_item *it)
{
	it->what = census ? "census" : "claim";
	it->v = cm_v_parse(jx_str(v, "status"));
	const char *cause = jx_str(v, "cause");
	int n = snprintf(it->text, sizeof it->text, "%s %s%s%s", look_v_glyph(it->v), look_v_word(it->v), cause ? " " : "",
			 cause ? cause : "");
	if (!census || n < 0 || (size_t)n >= sizeof it->text)
		return;
	long long before, after;
	int dropped, skipped;
	if (!census_counts(cJSON_GetObjectItemCaseSensitive(v, "verdicts"), &before, &after, &dropped, &skipped))
		return;
	char more[120] = "";
	if (dropped || skipped)
		snprintf(more, sizeof more, " %d dropped, %d skipped", dropped, skipped);
	snprintf(it->text + n, sizeof it->text - (size_t)n, "%s (%lld %s %lld collected)", more, before,
		 glyph(G_BECOMES), after);
}

size_t runv_items(const cJSON *runv, struct runv_item *out, size_t max)
{
	size_t k = 0;
	/* the claim first, then the census */
	for (int want = VERDICT_TURN_TRAJECTORY; want >= VERDICT_TURN_CENSUS && k < max; want--)
		for (const cJSON *v = cJSON_IsArray(runv) ? runv->child : NULL; v && k < max; v = v->next) {
			long long turn;
			if (jx_int(v, "turn", want, want, &turn))
				phrase(v, want == VERDICT_TURN_CENSUS, &out[k++]);
		}
	return k;
}

void runv_detail(struct tdoc *h, const cJSON *runv)
{
	if (!cJSON_IsArray(runv) || !runv->child)
		return;
	tdoc_nl(h);
	tdoc_add(h, ROLE_DIM, "the run (judged once for the whole run, not for this turn):");
	for (int want = VERDICT_TURN_TRAJECTORY; want >= VERDICT_TURN_CENSUS; want--)
		for (const cJSON *v = runv->child; v; v = v->next) {
			long long turn;
			if (!jx_int(v, "turn", want, want, &turn))
				continue;
			const cJSON *subs = cJSON_GetObjectItemCaseSensitive(v, "verdicts");
			for (const cJSON *s = cJSON_IsArray(subs) ? subs->child : NULL; s; s = s->next) {
				enum cm_v sv = cm_v_parse(jx_str(s, "status"));
				const char *rule = jx_str(s, "rule") ? jx_str(s, "rule") : jx_str(s, "kind");
				tdoc_nl(h);
				tdoc_addf(h, ROLE_DIM, "  %s %-14s ", jx_str(s, "axis") ? jx_str(s, "axis") : "?", rule ? rule : "?");
				tdoc_addf(h, look_v_role(sv), "%s %s", look_v_glyph(sv), look_v_word(sv));
				const char *cause = jx_str(s, "cause");
				if (cause)
					tdoc_addf(h, look_v_role(sv), " %s:", cause);
				const char *msg = jx_str(s, "message");
				if (msg && *msg)
					tdoc_addf(h, ROLE_NORMAL, " %s", msg);
			}
		}
}
