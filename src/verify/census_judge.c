/* census_judge.c - the tests-collected rule over a recorded run (see census.h and
 * verify_internal.h): the task's first pre-state and the run's final state restored, one
 * after the other, into a scratch workspace of its own at the recorded path below a mirror
 * root; each runner's discovery run there, contained; the two compared; the runners' outputs
 * kept in the snapshot store (owner "census"). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/fsutil.h"
#include "common/jsonx.h"
#include "common/xalloc.h"
#include "verify/census.h"
#include "verify/verify_internal.h"

#define CENSUS_REF_KIND "census"

const char *verify_final_handle(const struct trace *t, const char **why)
{
	const char *h = NULL;
	*why = t->has_close ? "the run recorded no final state (not contained, or recorded by an older belay)"
			       : "the run did not end cleanly: its last state was never observed";
	for (size_t i = 0; i < t->n; i++) {
		const struct trace_record *r = &t->recs[i];
		if (strcmp(r->kind, "final_state"))
			continue;
		const cJSON *sh = cJSON_GetObjectItemCaseSensitive(r->obj, "state_handle");
		const char *st = sh ? jx_str(sh, "status") : NULL;
		if (st && !strcmp(st, "present") && jx_str(sh, "handle")) {
			h = jx_str(sh, "handle");
		} else {
			h = NULL;
			*why = "the run's final state could not be captured";
		}
	}
	return h;
}

void verify_keep_output(struct snap_store *st, const char *kind, const char *owner, const char *side,
			const struct buf *output, double ms, cJSON *kept)
{
	cJSON *o = cJSON_AddObjectToObject(kept, side);
	cJSON_AddNumberToObject(o, "bytes", (double)output->len);
	cJSON_AddNumberToObject(o, "ms", ms);
	char hex[65];
	struct err e = {0};
	if (st && snap_object_put(st, output->p ? output->p : "", output->len, kind, owner, hex, &e) == 0)
		cJSON_AddStringToObject(o, "object", hex);
	else
		cJSON_AddStringToObject(o, "object_error", st ? e.msg : "no store");
}

static void fail_all(struct turn_verdict *v, const char *cause, const char *fmt, const char *a)
{
	verdict_add(v, "A1", "census", V_UNVERIFIED, cause, NO_EVIDENCE, fmt, a);
}

void judge_census(struct vctx *c, struct verify_report *out)
{
	const struct invariant *inv = policy_census(c->o->policy);
	if (!inv)
		return;
	struct turn_verdict *v = &out->census;
	out->has_census = 1;
	v->turn = -1;
	v->tool = xstrdup("(whole run)");
	const struct exchange *x0 = c->m.nturns ? &c->m.ex[c->m.turns[0]] : NULL;
	const struct trace_record *r0 = x0 ? plan_frame_rec(c, x0->req_frame) : NULL;
	const char *st0 = r0 && r0->state_handle ? jx_str(r0->state_handle, "status") : NULL;
	const char *h0 = st0 && !strcmp(st0, "present") ? jx_str(r0->state_handle, "handle") : NULL;
	const char *why_final;
	const char *h1 = verify_final_handle(c->t, &why_final);
	struct snap_store *st = NULL;
	struct scratch sc = {0};
	int sc_open = 0;
	struct census pre = {0}, post = {0};
	struct err e = {0};
	if (!x0) {
		fail_all(v, "TASK_PRESTATE_UNAVAILABLE", "tests-collected: %s", "the run has no tools/call turn, so no first pre-state");
		goto out;
	}
	if (!h0) {
		fail_all(v, "TASK_PRESTATE_UNAVAILABLE", "tests-collected: %s", "the first turn's pre-state was not captured");
		goto out;
	}
	if (!h1) {
		fail_all(v, "CENSUS_NO_FINAL_STATE", "tests-collected: %s", why_final);
		goto out;
	}
	if (!c->o->launcher) {
		fail_all(v, "CENSUS_FAILED", "tests-collected: %s", "no sandbox launcher was given");
		goto out;
	}
	if (snap_store_open(c->state_dir, NULL, &st, &e) != 0) {
		fail_all(v, "TASK_PRESTATE_UNAVAILABLE", "tests-collected: the store cannot be opened: %s", e.msg);
		goto out;
	}
	if (scratch_open(&sc, c->scope, &e) != 0) {
		fail_all(v, "CENSUS_FAILED", "tests-collected: no scratch workspace: %s", e.msg);
		goto out;
	}
	sc_open = 1;
	struct census_opts co = {.launcher = c->o->launcher, .timeout_ms = inv->timeout_s * 1000u, .tmpdir = sc.tmp};
	/* the runners: what either state is set up for */
	unsigned runners = 0;
	if (scratch_prepare(&sc, st, h1, NULL, &e) != 0) {
		fail_all(v, "CENSUS_NO_FINAL_STATE", "tests-collected: the final state cannot be restored: %s", e.msg);
		goto out;
	}
	runners |= census_detect(sc.ws);
	unsigned post_runners = runners;
	scratch_invalidate(&sc);
	if (scratch_prepare(&sc, st, h0, NULL, &e) != 0) {
		fail_all(v, "TASK_PRESTATE_UNAVAILABLE", "tests-collected: the first pre-state cannot be restored: %s", e.msg);
		goto out;
	}
	runners |= census_detect(sc.ws);
	if (!runners) {
		fail_all(v, "CENSUS_NO_RUNNER", "tests-collected: %s",
			 "no test runner the census knows is set up in either state (pytest: no Python test file or pytest "
			 "configuration; go: no go.mod)");
		goto out;
	}
	census_take(&co, sc.ws, runners, &pre, &e);
	fs_empty_dir(sc.tmp);
	scratch_invalidate(&sc); /* the discovery wrote into it: never trusted, restored fully */
	if (scratch_prepare(&sc, st, h1, NULL, &e) != 0) {
		fail_all(v, "CENSUS_NO_FINAL_STATE", "tests-collected: the final state cannot be restored: %s", e.msg);
		goto out;
	}
	census_take(&co, sc.ws, runners, &post, &e);
	(void)post_runners;
	const char *slash = strrchr(c->t->path ? c->t->path : "", '/');
	const char *owner = slash ? slash + 1 : c->t->path ? c->t->path : "trace";
	for (size_t i = 0; i < pre.n && i < post.n; i++) {
		cJSON *kept = cJSON_CreateObject();
		verify_keep_output(st, CENSUS_REF_KIND, owner, "pre", &pre.run[i].output, pre.run[i].ms, kept);
		verify_keep_output(st, CENSUS_REF_KIND, owner, "post", &post.run[i].output, post.run[i].ms, kept);
		census_judge(&pre.run[i], &post.run[i], v, kept);
	}
out:
	census_free(&pre);
	census_free(&post);
	if (sc_open)
		scratch_close(&sc);
	snap_store_close(st);
	verdict_reduce(v);
}
