/* verify_claim.c - a success claim's rules, shared by MCP and hook runs: the start of
 * suite-before-success-claim (the claim found, the trajectory verdict opened, a claim that
 * does not say the suite passed judged) and claim-rederived (the suite run twice on the final
 * state). See verify.h. */
#include <stdlib.h>
#include <string.h>

#include "common/fsutil.h"
#include "common/jsonx.h"
#include "common/xalloc.h"
#include "snapshot/snapshot.h"
#include "trace/trace_reader.h"
#include "verify/census.h"
#include "verify/scratch.h"
#include "verify/suite.h"
#include "verify/verify.h"
#include "verify/verify_internal.h"

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

/*==== claim-rederived ====*/

#define CLAIM_REF_KIND "claim"

/* The text of the trace's last claim, or NULL. */
static const char *last_claim(const struct trace *t)
{
	const char *text = NULL;
	for (size_t i = 0; i < t->nskips; i++) {
		const char *kind = jx_str(t->skips[i].record, "kind");
		if (kind && !strcmp(kind, "claim"))
			text = jx_str(t->skips[i].record, "text");
	}
	for (size_t i = 0; i < t->n; i++)
		if (!strcmp(t->recs[i].kind, "claim"))
			text = jx_str(t->recs[i].obj, "text");
	return text;
}

static void unverified(struct turn_verdict *v, const char *cause, const char *why)
{
	verdict_add(v, "A1", "claim", V_UNVERIFIED, cause, NO_EVIDENCE, "claim-rederived: %s", why);
}

void verify_claim_rederive(const struct trace *t, const struct verify_opts *o, const char *state_dir,
			   const char *scope, struct verify_report *out)
{
	const struct invariant *inv = policy_rederive(o->policy);
	const char *claim = last_claim(t);
	if (!inv || !claim || !verify_claim_says_passed(claim))
		return;
	struct turn_verdict *v = &out->trajectory;
	if (!out->has_trajectory) {
		out->has_trajectory = 1;
		v->turn = -1;
		v->tool = xstrdup("(whole run)");
	}
	const char *why_final;
	const char *h = verify_final_handle(t, &why_final);
	if (!h) {
		unverified(v, "CLAIM_NO_FINAL_STATE", why_final);
		return;
	}
	if (!o->launcher || !scope) {
		unverified(v, "CLAIM_SUITE_FAILED", !o->launcher ? "no sandbox launcher was given" : "the run names no workspace");
		return;
	}
	struct snap_store *st = NULL;
	struct scratch sc = {0};
	struct suite_run runs[CENSUS_NRUNNERS][2] = {{{0}}};
	struct err e = {0};
	int sc_open = 0;
	if (snap_store_open(state_dir, NULL, &st, &e) != 0) {
		char *w = xasprintf("the store cannot be opened: %s", e.msg);
		unverified(v, "CLAIM_NO_FINAL_STATE", w);
		free(w);
		goto out;
	}
	if (scratch_open(&sc, scope, &e) != 0) {
		char *w = xasprintf("no scratch workspace: %s", e.msg);
		unverified(v, "CLAIM_SUITE_FAILED", w);
		free(w);
		goto out;
	}
	sc_open = 1;
	struct census_opts co = {.launcher = o->launcher, .timeout_ms = inv->timeout_s * 1000u, .tmpdir = sc.tmp};
	unsigned runners = 0;
	for (int i = 0; i < 2; i++) {
		/* each run on a fresh copy of the tree (the first run wrote into it); the private
		 * temp dir (TMPDIR) stays, as two runs on one machine share /tmp: a test that fails
		 * on what an earlier run left there is flaky */
		scratch_invalidate(&sc);
		sc.keep_tmp = i > 0;
		if (scratch_prepare(&sc, st, h, NULL, &e) != 0) {
			char *w = xasprintf("the final state cannot be restored: %s", e.msg);
			unverified(v, "CLAIM_NO_FINAL_STATE", w);
			free(w);
			goto out;
		}
		if (i == 0)
			runners = census_detect(sc.ws) & (CENSUS_PYTEST | CENSUS_GO);
		if (!runners) {
			unverified(v, "CLAIM_SUITE_NO_RUNNER",
				   "no suite the rule knows how to run is set up in the final state (pytest: no Python test "
				   "file or pytest configuration; go: no go.mod)");
			goto out;
		}
		for (int k = 0; k < CENSUS_NRUNNERS; k++)
			if (runners & (1u << k))
				suite_take(&co, sc.ws, 1u << k, &runs[k][i], &e);
	}
	const char *slash = strrchr(t->path ? t->path : "", '/');
	const char *owner = slash ? slash + 1 : t->path ? t->path : "trace";
	for (int k = 0; k < CENSUS_NRUNNERS; k++) {
		if (!(runners & (1u << k)))
			continue;
		cJSON *kept = cJSON_CreateObject();
		verify_keep_output(st, CLAIM_REF_KIND, owner, "first", &runs[k][0].output, runs[k][0].ms, kept);
		verify_keep_output(st, CLAIM_REF_KIND, owner, "second", &runs[k][1].output, runs[k][1].ms, kept);
		suite_judge_claim(claim, &runs[k][0], &runs[k][1], v, kept);
	}
out:
	for (int k = 0; k < CENSUS_NRUNNERS; k++) {
		suite_run_free(&runs[k][0]);
		suite_run_free(&runs[k][1]);
	}
	if (sc_open)
		scratch_close(&sc);
	snap_store_close(st);
	verdict_reduce(v);
}
