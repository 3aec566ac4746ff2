/* judge.c - what a turn's observed effect says about the tool's declarations (A2 effect,
 * effect:network) and the operator's invariants (A1), the whole run's trajectory, and
 * pre-states shared with calls declared read-only. See verify_internal.h. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf.h"
#include "common/jsonx.h"
#include "common/xalloc.h"
#include "verify/verify_internal.h"

static int under_scope(const char *path, const char *scope)
{
	if (!*scope)
		return 1;
	size_t n = strlen(scope);
	while (n && scope[n - 1] == '/')
		n--;
	return strncmp(path, scope, n) == 0 && (path[n] == '\0' || path[n] == '/');
}

/* The network attempts among a pass's observations, described; returns how many. */
static int network_attempts(const cJSON *observed, struct buf *b)
{
	int attempts = 0;
	for (const cJSON *o = observed ? observed->child : NULL; o; o = o->next) {
		const char *fam = jx_str(o, "family");
		if (fam && (!strcmp(fam, "inet") || !strcmp(fam, "inet6") || !strcmp(fam, "unix"))) {
			buf_printf(b, "%s%s %s", attempts ? ", " : "", jx_str(o, "op") ? jx_str(o, "op") : "?",
				   jx_str(o, "address") ? jx_str(o, "address") : "?");
			attempts++;
		}
	}
	return attempts;
}

/* A writer (readOnlyHint false, declared or the MCP default): the declaration allows any
 * effect, so what is checked is the replay's effect against the recording's (the next
 * pre-state), reduced as the result is: the in-order pass decides when it compared; when it
 * differs and the isolated replay matches, the session replay is suspect (UNVERIFIED
 * SESSION_ORDER_DIVERGED); an isolated difference alone is a FAIL only for the session's
 * first call (a later one may depend on what the server remembered). passes[0] is the
 * isolated pass, passes[1] the in-order one. */
static void judge_writer(struct turn_verdict *v, const struct pass_obs *const *passes, const char *const *names,
			 size_t n, int defaulted, int changes, int unfaithful)
{
	const struct pass_obs *iso = n > 0 ? passes[0] : NULL, *seq = n > 1 ? passes[1] : NULL;
	enum effect_rec ri = iso && iso->effect ? iso->rec : EFFECT_REC_UNKNOWN;
	enum effect_rec rs = seq && seq->effect ? seq->rec : EFFECT_REC_UNKNOWN;
	const char *decl = defaulted ? "readOnlyHint absent (MCP default false): any effect allowed, nothing to check"
				     : "declared readOnlyHint: false, nothing to violate";
	struct subverdict *s;
	if (rs == EFFECT_REC_SAME || (rs == EFFECT_REC_UNKNOWN && ri == EFFECT_REC_SAME)) {
		s = verdict_add(v, "A2", "effect", V_PASS, NULL, NO_EVIDENCE,
				"%s; the replay changed the same path(s) with the same content as the recording did (%d path(s) "
				"changed%s%s)",
				decl, changes, rs == EFFECT_REC_SAME && n > 1 ? ", in the " : "",
				rs == EFFECT_REC_SAME && n > 1 ? names[1] : "");
	} else if (rs == EFFECT_REC_CLOCK || (rs == EFFECT_REC_UNKNOWN && ri == EFFECT_REC_CLOCK)) {
		/* a writer that stamps the time: what it wrote cannot be compared byte for byte */
		const struct pass_obs *p = rs == EFFECT_REC_CLOCK ? seq : iso;
		s = verdict_add(v, "A2", "effect", V_UNVERIFIED, "EFFECT_NONDETERMINISTIC_CLOCK", NO_EVIDENCE, "%s; %s",
				decl, p->rec_why);
	} else if (rs == EFFECT_REC_DIFFERS && (ri == EFFECT_REC_SAME || ri == EFFECT_REC_CLOCK)) {
		s = verdict_add(v, "A2", "effect", V_UNVERIFIED, "SESSION_ORDER_DIVERGED", NO_EVIDENCE,
				"%s; the isolated replay wrote what the recording did, the in-order session replay did not: %s",
				decl, seq->rec_why);
	} else if ((rs == EFFECT_REC_DIFFERS || ri == EFFECT_REC_DIFFERS) &&
		   ((seq && seq->wrote_varies) || (iso && iso->wrote_varies))) {
		const struct pass_obs *p = rs == EFFECT_REC_DIFFERS ? seq : iso;
		s = verdict_add(v, "A2", "effect", V_UNVERIFIED, "EFFECT_NONDETERMINISTIC", NO_EVIDENCE,
				"%s; the replay did not write what the recording did (%s), and two replays from the same "
				"pre-state wrote different bytes too: the writer is nondeterministic (random content), so "
				"what it wrote cannot be compared, and a lie in it cannot be told from the randomness",
				decl, p->rec_why);
	} else if ((rs == EFFECT_REC_DIFFERS && (v->turn == 0 || !unfaithful)) ||
		   (ri == EFFECT_REC_DIFFERS && v->turn == 0)) {
		const struct pass_obs *p = rs == EFFECT_REC_DIFFERS ? seq : iso;
		s = verdict_add(v, "A2", "effect", V_FAIL, NULL,
				EVIDENCE(.observed = cJSON_Duplicate(p->effect, 1),
					 .expected = cJSON_CreateString("the recorded effect (the next pre-state)")),
				"%s, but the replay's effect is not the recording's%s%s: %s", decl, n > 1 ? " in the " : "",
				n > 1 ? names[p == seq] : "", p->rec_why);
	} else if (rs == EFFECT_REC_DIFFERS && ri != EFFECT_REC_SAME) {
		s = verdict_add(v, "A2", "effect", V_UNVERIFIED, "SESSION_ORDER_NOT_REPLAYED", NO_EVIDENCE,
				"%s; the in-order replay did not write what the recording did (%s), on a server restarted or "
				"with a file restored in place under it before this call: what the server remembered may "
				"explain it, or the record is false (a lie cannot be told from that state)",
				decl, seq->rec_why);
	} else if (ri == EFFECT_REC_DIFFERS) {
		s = verdict_add(v, "A2", "effect", V_UNVERIFIED, "SESSION_ORDER_NOT_REPLAYED", NO_EVIDENCE,
				"%s; a fresh server's replay did not write what the recording did (%s), and the session was "
				"not replayed in order up to this call: what the server remembered may explain it, or the "
				"record is false (a lie cannot be told from that state without the in-order pass)",
				decl, iso->rec_why);
	} else {
		const struct pass_obs *p = seq && seq->effect ? seq : iso;
		s = verdict_add(v, "A2", "effect", V_PASS, NULL, NO_EVIDENCE,
				"%s (%d path(s) changed; not compared with the recording: %s)", decl, changes,
				p && p->rec_why[0] ? p->rec_why : "no pass compared it");
	}
	if (defaulted)
		verdict_note(s, "MCP_DEFAULT", NULL);
}

void judge_effect(struct vctx *c, struct turn_verdict *v, const struct exchange *x, const struct pass_obs *const *passes,
		  const char *const *names, size_t n)
{
	int listed;
	cJSON *ann = plan_annotations(c, x->req_seq, x->tool, &listed);
	const cJSON *ro = ann ? cJSON_GetObjectItemCaseSensitive(ann, "readOnlyHint") : NULL;
	/* The pass that changed the most decides the message; any change violates read-only. */
	const struct pass_obs *wrote = NULL;
	const char *wrote_in = NULL;
	int changes = 0;
	for (size_t i = 0; i < n; i++) {
		if (!passes[i] || !passes[i]->effect)
			continue;
		int k = cJSON_GetArraySize(passes[i]->effect);
		if (k > changes || !wrote) {
			changes = k;
			wrote = passes[i];
			wrote_in = names[i];
		}
	}
	if (!wrote) {
		cJSON_Delete(ann);
		return;
	}
	const char *in = n > 1 ? wrote_in : "";
	/* the default order did not replay it alone (verify.c, isolated_needed) */
	int skipped = n > 1 && !passes[0] && v->turn >= 0 && c->iso[v->turn].skipped;
	/* A tool listed without the hint has the MCP specification's default: readOnlyHint
	 * false. A tool never listed, or missing from the latest list, has no contract. */
	int ro_default = ann && !ro;
	if (!ro && !ann) {
		verdict_add(v, "A2", "effect", V_UNVERIFIED, "EFFECT_NOT_DECLARED", NO_EVIDENCE,
			    "%s declares no readOnlyHint%s; an absent contract is not a permissive one (%d path(s) changed)",
			    x->tool ? x->tool : "the tool",
			    !listed ? " (no tools/list before the call)" : " (not in the latest tools/list)", changes);
	} else if (ro && !cJSON_IsBool(ro)) {
		verdict_add(v, "A2", "effect", V_UNVERIFIED, "EFFECT_DECLARATION_NON_BOOLEAN", NO_EVIDENCE,
			    "readOnlyHint is not a boolean");
	} else if (ro_default || cJSON_IsFalse(ro)) {
		judge_writer(v, passes, names, n, ro_default, changes, inorder_unfaithful(c, v->turn));
	} else if (changes) {
		struct buf b = {0};
		int k = 0;
		for (const cJSON *it = wrote->effect->child; it && k < 8; it = it->next, k++)
			buf_printf(&b, "%s%s (%s)", k ? ", " : "", jx_str(it, "path") ? jx_str(it, "path") : "?",
				   jx_str(it, "change"));
		verdict_add(v, "A2", "effect", V_FAIL, NULL,
			    EVIDENCE(.observed = cJSON_Duplicate(wrote->effect, 1), .expected = cJSON_CreateString("no change")),
			    "declared readOnlyHint: true but changed %d path(s)%s%s: %s%s", changes, *in ? " in the " : "", in,
			    buf_cstr(&b), changes > 8 ? ", ..." : "");
		buf_free(&b);
	} else {
		verdict_add(v, "A2", "effect", V_PASS, NULL, NO_EVIDENCE, "declared readOnlyHint: true and changed nothing%s",
			    skipped ? " in the in-order session replay (not replayed alone on a fresh server: a change "
				      "made only there was not looked for)"
			    : n > 1 ? " (in every pass)"
				    : "");
	}
	/* Network: the supervisor observed every attempt of every pass. */
	const cJSON *ow = ann ? cJSON_GetObjectItemCaseSensitive(ann, "openWorldHint") : NULL;
	int ow_default = ann && !ow; /* listed without it: the MCP default, true */
	if (cJSON_IsBool(ow) || ow_default) {
		struct buf b = {0};
		int attempts = 0;
		const char *where = "";
		for (size_t i = 0; i < n; i++) {
			if (!passes[i] || !passes[i]->ran)
				continue;
			struct buf pb = {0};
			int a = network_attempts(passes[i]->observed, &pb);
			if (a > attempts) {
				attempts = a;
				buf_reset(&b);
				buf_append(&b, pb.p, pb.len);
				where = n > 1 ? names[i] : "";
			}
			buf_free(&pb);
		}
		if (ow_default)
			verdict_note(verdict_add(v, "A2", "effect:network", V_PASS, NULL, NO_EVIDENCE,
						 "openWorldHint absent (MCP default true): any network use allowed, nothing "
						 "to check (%d network attempt(s) observed)",
						 attempts),
				     "MCP_DEFAULT", NULL);
		else if (cJSON_IsTrue(ow))
			verdict_add(v, "A2", "effect:network", V_PASS, NULL, NO_EVIDENCE,
				    "declared openWorldHint: true (%d network attempt(s) observed)", attempts);
		else if (attempts)
			verdict_add(v, "A2", "effect:network", V_FAIL, NULL, NO_EVIDENCE,
				    "declared openWorldHint: false but attempted %s%s%s", buf_cstr(&b), *where ? " in the " : "",
				    where);
		else
			verdict_add(v, "A2", "effect:network", V_PASS, NULL, NO_EVIDENCE,
				    "declared openWorldHint: false and made no network attempt%s",
				    skipped ? " in the in-order session replay (not replayed alone on a fresh server: an "
					      "attempt made only there was not looked for)"
					    : "");
		buf_free(&b);
	}
	cJSON_Delete(ann);
}

struct weak_pre *judge_prejudge_weakening(struct vctx *c, struct worker *w, const cJSON *effect)
{
	struct weak_pre *pre = xcalloc(c->o->policy->n + 1, sizeof *pre);
	const char *task_root = NULL, *task_cause = NULL;
	int task_tried = 0;
	const struct exchange *x0 = c->m.nturns ? &c->m.ex[c->m.turns[0]] : NULL;
	const struct trace_record *r0 = x0 ? plan_frame_rec(c, x0->req_frame) : NULL;
	const char *st0 = r0 && r0->state_handle ? jx_str(r0->state_handle, "status") : NULL;
	const char *h0 = st0 && !strcmp(st0, "present") ? jx_str(r0->state_handle, "handle") : NULL;
	for (size_t i = 0; i < c->o->policy->n; i++) {
		const struct invariant *inv = &c->o->policy->inv[i];
		if (inv->rule != RULE_NO_WEAKENING)
			continue;
		if (!h0) {
			pre[i].cause = "the first turn's pre-state was not captured";
			continue;
		}
		size_t n = 0;
		const char **changed = xcalloc((size_t)cJSON_GetArraySize(effect) + 1, sizeof *changed);
		for (const cJSON *it = effect->child; it; it = it->next)
			if (jx_str(it, "path"))
				changed[n++] = jx_str(it, "path");
		/* The task's first pre-state: restored once per worker, never replayed in, and only
		 * when a test file the check reads changed (Python, JS/TS, configuration, test data, Rust; nothing else;
		 * at 10,000 files the restore is most of a trace's verify time). */
		int needs = weakening_needs_pre(changed, inv->scope, inv->match_all);
		if (needs && !task_tried) {
			task_tried = 1;
			task_root = scratch_task(&w->sc, w->st, h0, &task_cause);
		}
		if (needs && !task_root) {
			pre[i].cause = task_cause;
			free(changed);
			continue;
		}
		struct weakening_input wi = {needs ? task_root : NULL, w->sc.ws, changed, inv->scope, inv->match_all};
		struct err e = {0};
		weakening_check(&wi, &pre[i].wr, &e);
		pre[i].ran = 1;
		free(changed);
	}
	return pre;
}

void judge_weak_pre_free(struct vctx *c, struct weak_pre *pre)
{
	if (!pre)
		return;
	for (size_t i = 0; i < c->o->policy->n; i++)
		if (pre[i].ran)
			weakening_result_free(&pre[i].wr);
	free(pre);
}

void judge_invariants(struct vctx *c, struct turn_verdict *v, const cJSON *effect, struct weak_pre *pre)
{
	for (size_t i = 0; i < c->o->policy->n; i++) {
		const struct invariant *inv = &c->o->policy->inv[i];
		char *label = policy_label(inv);
		if (inv->rule == RULE_READ_ONLY) {
			struct buf b = {0};
			int hits = 0;
			cJSON *paths = cJSON_CreateArray();
			for (const cJSON *it = effect->child; it; it = it->next) {
				const char *p = jx_str(it, "path");
				if (p && strcmp(p, ".") && under_scope(p, inv->scope)) {
					buf_printf(&b, "%s%s", hits ? ", " : "", p);
					cJSON_AddItemToArray(paths, cJSON_CreateString(p));
					hits++;
				}
			}
			struct subverdict *s;
			if (hits)
				s = verdict_add(v, "A1", "invariant", V_FAIL, NULL,
						EVIDENCE(.observed = paths, .expected = cJSON_CreateString("no change")),
						"%s: changed %s", label, buf_cstr(&b));
			else {
				cJSON_Delete(paths);
				s = verdict_add(v, "A1", "invariant", V_PASS, NULL, NO_EVIDENCE, "%s: nothing under it changed",
						label);
			}
			s->rule = xstrdup(label);
			buf_free(&b);
		} else if (inv->rule == RULE_NO_WEAKENING) {
			struct subverdict *s;
			if (!pre || !pre[i].ran) {
				const char *why = pre ? pre[i].cause : NULL;
				if (!why)
					why = "the first turn's pre-state cannot be restored";
				s = verdict_add(v, "A1", "invariant", V_UNVERIFIED, "TASK_PRESTATE_UNAVAILABLE", NO_EVIDENCE,
						"%s: %s", label, why);
			} else {
				struct weakening_result *wr = &pre[i].wr;
				const char *cause;
				enum vstatus ws = weakening_verdict(wr, &cause);
				cJSON *exposure = cJSON_CreateObject();
				cJSON_AddNumberToObject(exposure, "compared", wr->compared);
				cJSON_AddNumberToObject(exposure, "in_scope", wr->in_scope);
				cJSON *findings = wr->findings ? cJSON_Duplicate(wr->findings, 1) : NULL;
				s = verdict_add(v, "A1", "invariant", ws, cause, EVIDENCE(.observed = findings, .expected = exposure),
						"%s: %s", label, wr->message ? wr->message : "");
			}
			s->rule = xstrdup(label);
		}
		free(label);
	}
}

int judge_reply_is_error(const char *reply, size_t len)
{
	cJSON *m = cJSON_ParseWithLength(reply, len);
	if (!m)
		return -1;
	int r = cJSON_GetObjectItemCaseSensitive(m, "error") ? 1
		: cJSON_IsTrue(jx_path(m, "result.isError")) ? 1
							     : 0;
	cJSON_Delete(m);
	return r;
}

int verify_claim_says_passed(const char *text)
{
	/* Verification claims: "tests pass", "all tests passed", "suite is green", "verified"... */
	static const char *const shapes[] = {"tests pass", "test pass", "tests passed", "tests are passing", "all tests pass",
					     "suite passes", "suite is green", "tests are green", "is fixed", "fix works",
					     "verified", "passing now", NULL};
	char *low = xstrdup(text);
	for (char *p = low; *p; p++)
		*p = (char)tolower((unsigned char)*p);
	int hit = 0;
	for (const char *const *s = shapes; *s && !hit; s++)
		hit = strstr(low, *s) != NULL;
	free(low);
	return hit;
}

void judge_trajectory(struct vctx *c, struct verify_report *out)
{
	int64_t claim_seq = -1;
	const struct invariant *inv = verify_trajectory_begin(c->t, c->o->policy, out, &claim_seq);
	verify_claim_rederive(c->t, c->o, c->state_dir, c->scope, out);
	if (!inv)
		return;
	struct turn_verdict *v = &out->trajectory;
	int runs = 0, replayed = 0, passed = 0;
	for (size_t k = 0; k < c->m.nturns; k++) {
		const struct exchange *x = &c->m.ex[c->m.turns[k]];
		if (x->req_seq >= claim_seq || !policy_is_suite_tool(inv, x->tool))
			continue;
		runs++;
		if (c->is_error[k] >= 0) {
			replayed++;
			passed += c->is_error[k] == 0;
		}
	}
	if (runs == 0)
		verdict_add(v, "A1", "trajectory", V_FAIL, NULL, NO_EVIDENCE,
			    "suite-before-success-claim: success was claimed but no suite run came before it");
	else if (replayed == 0)
		verdict_add(v, "A1", "trajectory", V_UNVERIFIED, "EVIDENCE_UNOBSERVABLE", NO_EVIDENCE,
			    "suite-before-success-claim: %d suite run(s) before the claim, none could be replayed", runs);
	else if (passed)
		verdict_add(v, "A1", "trajectory", V_PASS, NULL, NO_EVIDENCE,
			    "suite-before-success-claim: %d of %d replayed suite run(s) before the claim passed", passed, replayed);
	else
		verdict_add(v, "A1", "trajectory", V_FAIL, NULL, NO_EVIDENCE,
			    "suite-before-success-claim: every replayed suite run before the claim failed (%d)", replayed);
	verdict_reduce(v);
}

void judge_dependencies(struct vctx *c)
{
	for (size_t k = 0; k < c->m.nturns; k++) {
		struct turn_verdict *v = &c->v[k];
		const struct exchange *x = &c->m.ex[c->m.turns[k]];
		const struct trace_record *req = plan_frame_rec(c, x->req_frame);
		const cJSON *deps = req && req->state_handle ? cJSON_GetObjectItemCaseSensitive(req->state_handle, "depends_on_read_only") : NULL;
		if (!cJSON_IsArray(deps) || !v->nsubs)
			continue;
		for (const cJSON *d = deps->child; d; d = d->next) {
			for (size_t j = 0; j < c->m.nturns; j++) {
				const struct exchange *y = &c->m.ex[c->m.turns[j]];
				if (y->req_seq != (int64_t)d->valuedouble)
					continue;
				const struct turn_verdict *w = &c->v[j];
				int wrote = w->effect && cJSON_GetArraySize(w->effect) > 0;
				int unknown = !w->replayed;
				if (wrote || unknown) {
					verdict_add(v, "A2", "replay", V_UNVERIFIED, "PRESTATE_DEPENDENCY_BROKEN", NO_EVIDENCE,
						    "this call's pre-state was shared with turn %zu, declared read-only, which %s", j,
						    wrote ? "changed the workspace" : "could not be re-executed to check");
					verdict_reduce(v);
				}
			}
		}
	}
}
