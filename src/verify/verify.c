/* verify.c - verification by re-execution: the passes, their workers, and how a turn's
 * evidence becomes its verdict. See verify.h and verify_internal.h.
 *
 * Phase 1 replays the calls on worker threads:
 *   - in order: the whole session on one warm server (one job, inorder.c), so a call whose
 *     result depends on what the server remembers from earlier calls is replayed with that
 *     memory;
 *   - isolated (--order isolated and full): each turn alone on a fresh server from its own
 *     pre-state (one job per turn, any number of workers; each worker's persistent scratch
 *     moves from pre-state to pre-state by undo + delta). The default order makes a turn's
 *     isolated replay in phase 2, before judging it, and only when the in-order pass did not
 *     settle its verdict (isolated_needed).
 * Phase 2 judges each turn from both: the result reproduces when it reproduces in isolation,
 * or (noted: it depends on session state) in order; when it reproduces in neither, further
 * isolated replays, each from a freshly restored pre-state, tell a lie (they agree with each
 * other and not with the record: FAIL) from nondeterminism (they vary: a named cause, or a
 * PASS with the fields shown random masked and named). Effects are judged against the
 * tool's declarations on every pass that observed one; invariants on the in-order pass's
 * effect (the faithful re-enactment) when it reached the turn, else on the isolated one. */
#include "verify/verify.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/buf.h"
#include "common/fsutil.h"
#include "common/jsonx.h"
#include "common/timeutil.h"
#include "common/xalloc.h"
#include "trace/trace_model.h"
#include "proxy/env_filter.h"
#include "proxy/env_seal.h"
#include "verify/answers.h"
#include "verify/equiv.h"
#include "verify/scratch_pool.h"
#include "verify/verify_hook.h"
#include "verify/verify_internal.h"

/*==== per-turn state ====*/

void fold_roots(const struct vctx *c, const char *ws, const char *tmp, const char *mirror, const char *cache,
		struct fold_root out[FOLD_ROOTS])
{
	int n = 0;
	if (c->scope)
		out[n++] = (struct fold_root){c->scope, "<workspace>"};
	if (ws)
		out[n++] = (struct fold_root){ws, "<workspace>"};
	if (c->rec_tmp)
		out[n++] = (struct fold_root){c->rec_tmp, "<tmpdir>"};
	if (tmp)
		out[n++] = (struct fold_root){tmp, "<tmpdir>"};
	if (c->rec_cache && cache) {
		out[n++] = (struct fold_root){c->rec_cache, "<cache>"};
		out[n++] = (struct fold_root){cache, "<cache>"};
	}
	/* The parents map onto each other exactly when the workspace kept its name in the
	 * scratch (scratch.h): "WS/../x" names the same entry in both. */
	const char *rs = c->scope ? strrchr(c->scope, '/') : NULL, *ss = ws ? strrchr(ws, '/') : NULL;
	if (rs && ss && rs != c->scope && !strcmp(rs, ss)) {
		out[n++] = (struct fold_root){c->scope, "<workspace>/..", (size_t)(rs - c->scope)};
		out[n++] = (struct fold_root){ws, "<workspace>/..", (size_t)(ss - ws)};
	}
	/* Shortest of all, so every root above wins where it matches: the replay's paths
	 * through the workspace's ancestors, back to the recorded absolute ones. */
	if (mirror)
		out[n++] = (struct fold_root){mirror, ""};
	out[n] = (struct fold_root){NULL, NULL};
}

void pass_obs_free(struct vctx *c, struct pass_obs *p)
{
	free(p->ws);
	free(p->mirror);
	free(p->cache);
	free(p->tmp);
	free(p->reply);
	cJSON_Delete(p->effect);
	cJSON_Delete(p->wrote);
	cJSON_Delete(p->observed);
	free(p->protocol_version);
	judge_weak_pre_free(c, p->weak);
	memset(p, 0, sizeof *p);
}

int worker_scratch(const struct vctx *c, struct worker *w)
{
	if (w->sc_open)
		return 0;
	int reused = 0;
	if (w->sc_err.msg[0] || (c->o->pool ? scratch_pool_take(c->o->pool, c->scope, &w->sc, &reused, &w->sc_err)
					    : scratch_open(&w->sc, c->scope, &w->sc_err)) != 0) {
		if (!w->sc_err.msg[0])
			snprintf(w->sc_err.msg, sizeof w->sc_err.msg, "cannot create a scratch workspace");
		if (w->sc_err.code == 0)
			w->sc_err.code = -EIO;
		return w->sc_err.code;
	}
	w->sc_open = 1;
	w->sc_pooled = c->o->pool != NULL;
	w->sc_full0 = w->sc.full_restores;
	w->sc_partial0 = w->sc.partial_restores;
	w->sc_task0 = w->sc.task_restores;
	w->sc_reused = reused;
	return 0;
}

/* Whether turn k is one the caller asked for. */
static int verify_wants(const struct verify_opts *o, size_t k)
{
	if (o->turn >= 0)
		return (int)k == o->turn;
	return o->turn_from <= 0 || (int)k >= o->turn_from;
}

static const char *turn_handle(const struct vctx *c, size_t k)
{
	const struct exchange *x = &c->m.ex[c->m.turns[k]];
	const struct trace_record *r = plan_frame_rec(c, x->req_frame);
	const cJSON *h = r ? r->state_handle : NULL;
	return h ? jx_str(h, "handle") : NULL;
}

/*==== before any replay: what cannot be re-executed at all ====*/

/* 1 when turn k is already decided (an UNVERIFIED with its cause): nothing to replay. */
static int precheck(struct vctx *c, size_t k)
{
	struct turn_verdict *v = &c->v[k];
	const struct exchange *x = &c->m.ex[c->m.turns[k]];
	v->turn = (int)k;
	v->tool = x->tool ? xstrdup(x->tool) : NULL;
	v->denials = cJSON_CreateArray();
	c->is_error[k] = -1;
	const struct trace_record *req = plan_frame_rec(c, x->req_frame);
	const cJSON *h = req ? req->state_handle : NULL;
	const char *status = h ? jx_str(h, "status") : NULL;
	char why[256];
	if (plan_gate_refused(c, x->req_seq, why, sizeof why)) {
		verdict_unverified(v, "CALL_REFUSED_BY_GATE", "%s", why);
		return 1;
	}
	if (c->remote) {
		/* verify links no network client: a remote server's call is never re-sent */
		verdict_unverified(v, "REPLAY_NETWORK_REFUSED",
				   "the server runs elsewhere (%s, over HTTP): its state lives outside any snapshot and a "
				   "replay never reaches the network, so the call is not re-sent and a lie there cannot be "
				   "told from an honest turn",
				   c->remote);
		return 1;
	}
	if (x->req_truncated) {
		verdict_unverified(v, "FRAME_TRUNCATED", "the request was %zu bytes, over the recording cap: only its first %zu were "
				   "recorded, so it cannot be re-executed", req->total, req->len);
		return 1;
	}
	if (!status || !strcmp(status, "absent")) {
		verdict_unverified(v, "PRESTATE_ABSENT", "no pre-state was captured for this call (was it recorded with --scope?)");
		return 1;
	}
	if (!strcmp(status, "unrestorable")) {
		const char *cause = jx_str(h, "cause");
		const char *detail = jx_str(h, "detail");
		if (cause && vcause_known(cause))
			verdict_unverified(v, cause, "%s", detail ? detail : cause);
		else
			verdict_unverified(v, "PRESTATE_HANDLE_INVALID", "unrestorable handle with cause %s", cause ? cause : "(none)");
		return 1;
	}
	if (strcmp(status, "present") || !jx_str(h, "handle")) {
		verdict_unverified(v, "PRESTATE_HANDLE_INVALID", "state_handle status %s", status);
		return 1;
	}
	if (c->env_refused) {
		verdict_unverified(v, "REPLAY_ENV_REFUSED",
				   "the recorded environment sets %s, which load code into the server before it runs; refused "
				   "for material from elsewhere (a trace this state directory did not seal, an imported case, "
				   "a bundle): nothing was started",
				   c->env_refused);
		return 1;
	}
	if (!c->argv) {
		verdict_unverified(v, "SERVER_COMMAND_UNKNOWN", "the trace has no server start record; pass -- SERVER");
		return 1;
	}
	if (!c->scope) {
		verdict_unverified(v, "PRESTATE_ABSENT", "the trace does not name the workspace it captured");
		return 1;
	}
	/* The server must learn the workspace from its argv or its cwd, or it cannot be moved. */
	int rooted = c->cwd && fs_is_under(c->cwd, c->scope);
	for (char **a = c->argv; *a && !rooted; a++)
		rooted = !strcmp(*a, "{workspace}") || strstr(*a, c->scope) != NULL;
	if (!rooted) {
		verdict_unverified(v, "RELOCATION_UNROOTABLE", "the server command names %s neither in its argv nor as its cwd",
				   c->scope);
		return 1;
	}
	return 0;
}

/*==== one isolated replay ====*/

/* Brings the worker's scratch to turn k's pre-state (fully restored when fresh) and replays
 * the call there alone. Restore failures come back as their UNRESTORABLE_* / PRESTATE_*
 * cause. A failed replay leaves the scratch invalidated. */
static void replay_isolated(struct vctx *c, struct worker *w, size_t k, int fresh, struct replay_result *rr)
{
	memset(rr, 0, sizeof *rr);
	const struct exchange *x = &c->m.ex[c->m.turns[k]];
	const char *handle = turn_handle(c, k);
	struct err e = {0};
	struct scratch *sc = &w->sc;
	uint64_t t0 = time_mono_ns();
	if (fresh)
		scratch_invalidate(sc);
	int full = 0;
	int rc = scratch_prepare(sc, w->st, handle, &full, &e);
	if (rc == 0 && !full && c->o->check_scratch && !effect_scratch_matches(w, handle)) {
		atomic_fetch_add(&c->scratch_mismatches, 1);
		scratch_invalidate(sc);
		rc = scratch_prepare(sc, w->st, handle, NULL, &e);
	}
	if (rc != 0) {
		const char *cause = snap_cause_of(&e);
		rr->cause = cause && vcause_known(cause) ? cause : "PRESTATE_NOT_FOUND";
		snprintf(rr->detail, sizeof rr->detail, "%s", e.msg);
		rr->observed = cJSON_CreateArray();
		return;
	}
	c->v[k].ms_restore += (double)(time_mono_ns() - t0) / 1e6;
	struct relocation rl = {c->scope, sc->ws};
	struct replay_setup su;
	plan_replay_setup(c, sc, &su);
	struct replay_frame *pre;
	size_t npre;
	plan_handshake(c, x->req_seq, &rl, &pre, &npre);
	struct replay_frame target = {0};
	size_t tlen;
	char *ttext = plan_message_text(plan_frame_rec(c, x->req_frame), x->req_item, &tlen);
	struct buf tb = {0};
	relocate_frame(&rl, ttext, tlen, &tb);
	free(ttext);
	target.len = tb.len;
	target.bytes = buf_take(&tb);
	target.await = x->id;
	target.turn = (int)k;
	target.dests = plan_turn_dests(c, x);
	/* The server's requests during this call are answered first with what the client
	 * answered during it. */
	answers_prefer(su.answers, x->req_seq, x->resp_seq >= 0 ? x->resp_seq : INT64_MAX);
	struct replay_spec sp = {
		.argv = su.argv,
		.cwd = su.cwd,
		.env = su.env,
		.launcher = c->o->launcher,
		.scope = sc->ws,
		.tmpdir = sc->tmp,
		.cache = c->rec_cache ? sc->cache : NULL,
		.network = SANDBOX_NET_DENY,
		.http_url = c->http_url,
		.pre = pre,
		.npre = npre,
		.target = target,
		.answers = su.answers,
		.timeout_ms = c->o->timeout_ms,
		.report_writes = !c->o->full_diff,
		.settle_wait = c->o->settle_wait,
		.cancel = c->o->cancel,
	};
	char *tpath = NULL;
	if (c->o->replay_trace_dir) {
		static atomic_int serial;
		tpath = xasprintf("%s/turn-%zu-isolated-%d.jsonl", c->o->replay_trace_dir, k, atomic_fetch_add(&serial, 1));
		sp.trace_path = tpath;
	}
	scratch_arm(sc);
	replay_run(&sp, rr);
	free(tpath);
	if (rr->cause)
		scratch_invalidate(sc); /* what it changed is not worth tracking down */
	plan_frames_free(pre, npre);
	replay_frame_free(&target);
	plan_replay_setup_free(&su);
}

/* Phase 1 job: the first isolated replay of turn k, kept in c->iso[k]. */
static void isolated_first(struct vctx *c, struct worker *w, size_t k)
{
	struct pass_obs *p = &c->iso[k];
	struct turn_verdict *v = &c->v[k];
	if (!w->store_ok) {
		p->cause = "PRESTATE_NOT_FOUND";
		snprintf(p->detail, sizeof p->detail, "cannot open the snapshot store: %s", w->store_err.msg);
		return;
	}
	if (worker_scratch(c, w) != 0) {
		p->cause = "REPLAY_SERVER_FAILED";
		snprintf(p->detail, sizeof p->detail, "%s", w->sc_err.msg);
		return;
	}
	struct replay_result rr;
	replay_isolated(c, w, k, 0, &rr);
	v->ms_server += rr.ms_server;
	count_settle(c, &rr);
	p->ran = 1;
	p->ws = xstrdup(w->sc.ws);
	p->tmp = xstrdup(w->sc.tmp);
	p->mirror = w->sc.mirror ? xstrdup(w->sc.mirror) : NULL;
	p->cache = xstrdup(w->sc.cache);
	p->observed = rr.observed;
	rr.observed = NULL;
	p->network_refused = rr.network_refused;
	p->answers_missing = rr.answers_missing;
	snprintf(p->answer_missing_method, sizeof p->answer_missing_method, "%s", rr.answer_missing_method);
	p->protocol_version = rr.protocol_version;
	rr.protocol_version = NULL;
	if (rr.cause) {
		p->cause = rr.cause;
		snprintf(p->detail, sizeof p->detail, "%s", rr.detail);
		replay_result_free(&rr);
		return;
	}
	p->reply = rr.reply;
	p->reply_len = rr.reply_len;
	rr.reply = NULL;
	struct err e = {0};
	uint64_t te = time_mono_ns();
	p->effect = effect_of(c, w, turn_handle(c, k), &rr, 0, &p->effect_via, &p->effect_full_why, &e);
	v->ms_effect += (double)(time_mono_ns() - te) / 1e6;
	if (!p->effect)
		snprintf(p->effect_err, sizeof p->effect_err, "%s", e.msg);
	else if (!c->o->coverage_only) {
		p->rec = effect_vs_record(c, w, k, turn_handle(c, k), p->effect, p->rec_why, sizeof p->rec_why);
		if (p->rec == EFFECT_REC_DIFFERS)
			p->wrote = effect_digests(w->sc.ws, p->effect);
		p->weak = judge_prejudge_weakening(c, w, p->effect); /* the post-state is still there */
	}
	replay_result_free(&rr);
}

/* The default order runs the in-order pass first and replays turn k alone on a fresh server
 * only when its verdict may depend on that: whenever the in-order pass did not give a faithful,
 * clean reproduction of the record. Skipped (docs/VERDICTS.md, "When the isolated replay is
 * skipped") only when the in-order pass reached the call on the session's own server (no
 * restart or in-place restore before it), got a reply that equals the record, took the
 * effect, and that effect is the recording's (or empty, and the recording's was not seen to
 * differ), with no denial, no network attempt, no refused network and no unanswered server
 * request. Then every sub-verdict is decided by the in-order pass; what only a fresh server
 * could add is a note (the result depends on session state) or a change or network attempt
 * made on a fresh server and never in the session's own conditions, which the messages say
 * was not looked at. */
static int isolated_needed(struct vctx *c, size_t k)
{
	const struct pass_obs *seq = &c->seq[k];
	if (!c->seq_ran || !seq->ran || seq->cause || !seq->reply || inorder_unfaithful(c, (int)k))
		return 1;
	if (seq->network_refused || seq->answers_missing || (seq->observed && seq->observed->child))
		return 1;
	if (!seq->effect || c->o->coverage_only)
		return 1;
	if (seq->rec != EFFECT_REC_SAME &&
	    (cJSON_GetArraySize(seq->effect) > 0 || seq->rec == EFFECT_REC_DIFFERS || seq->rec == EFFECT_REC_CLOCK))
		return 1;
	const struct exchange *x = &c->m.ex[c->m.turns[k]];
	size_t rlen = 0;
	char *recorded = plan_response_text(c, x, &rlen);
	if (!recorded)
		return 1;
	struct fold_root roots[FOLD_ROOTS];
	fold_roots(c, seq->ws, seq->tmp, seq->mirror, seq->cache, roots);
	cJSON *rec = NULL, *got = NULL;
	int eq = equiv_compare(recorded, rlen, seq->reply, seq->reply_len, roots, &rec, &got) == EQ_EQUAL;
	cJSON_Delete(rec);
	cJSON_Delete(got);
	free(recorded);
	return !eq;
}

/*==== phase 2: a turn's verdict from its evidence ====*/

static const char *const pass_names[2] = {"isolated replay", "in-order session replay"};

static cJSON *jdup(const cJSON *v)
{
	return v ? cJSON_Duplicate(v, 1) : NULL;
}

enum divergence { DIV_ISOLATED, DIV_ORDER, DIV_BOTH };

/* A turn whose reply differs from the record in the pass(es) that ran it: further isolated
 * replays, each from a freshly restored pre-state (so values that depend on when a file was
 * restored vary too), tell a lie from nondeterminism. rec is the folded record; iso_f and
 * seq_f the folded replies of the passes (borrowed, may be NULL). Adds the A2 replay
 * sub-verdict. DIV_ORDER: the call reproduced on a fresh server but not in session order. */
static void judge_divergence(struct vctx *c, struct worker *w, size_t k, enum divergence how, const char *recorded,
			     size_t rlen, const cJSON *rec, const struct pass_obs *iso, const cJSON *iso_f,
			     const cJSON *seq_f)
{
	struct turn_verdict *v = &c->v[k];
	struct scratch *sc = &w->sc;
	struct fold_root roots[FOLD_ROOTS], iroots[FOLD_ROOTS];
	fold_roots(c, sc->ws, sc->tmp, sc->mirror, sc->cache, roots);
	if (iso)
		fold_roots(c, iso->ws, iso->tmp, iso->mirror, iso->cache, iroots);
	int n = c->o->replays < 3 ? 3 : c->o->replays;
	char **texts = xcalloc((size_t)n + 2, sizeof *texts); /* isolated signatures */
	cJSON **parts = xcalloc((size_t)n + 3, sizeof *parts); /* every folded reply */
	int got = 0, nparts = 0, further = 0, further_eq = 0;
	const char *fail_cause = NULL;
	char fail_detail[600] = "";
	if (seq_f)
		parts[nparts++] = cJSON_Duplicate(seq_f, 1);
	if (iso_f) {
		texts[got++] = effect_signature(iso->reply, iso->reply_len, iso->effect, iroots);
		parts[nparts++] = cJSON_Duplicate(iso_f, 1);
	}
	for (int i = 0; i < n && !fail_cause; i++) {
		struct replay_result r2;
		replay_isolated(c, w, k, 1, &r2);
		v->ms_server += r2.ms_server;
		count_settle(c, &r2);
		if (r2.cause) {
			fail_cause = r2.cause;
			snprintf(fail_detail, sizeof fail_detail, "%s", r2.detail);
		} else {
			const char *via2, *why2;
			struct err e = {0};
			uint64_t te = time_mono_ns();
			cJSON *eff2 = effect_of(c, w, turn_handle(c, k), &r2, 0, &via2, &why2, &e);
			v->ms_effect += (double)(time_mono_ns() - te) / 1e6;
			texts[got++] = effect_signature(r2.reply, r2.reply_len, eff2, roots);
			cJSON *dummy = NULL;
			further++;
			further_eq += equiv_compare(recorded, rlen, r2.reply, r2.reply_len, roots, &dummy, &parts[nparts++]) ==
				      EQ_EQUAL;
			cJSON_Delete(dummy);
			cJSON_Delete(eff2);
		}
		replay_result_free(&r2);
	}
	/* Both passes reduce the same way in every order mode: when the in-order reply differs
	 * and every isolated replay reproduces the record, the call reproduces on a fresh server
	 * and not in session order, whether the first isolated replay ran in phase 1 (--order
	 * both) or only here (--order session). Isolated replays that agree with the record never
	 * make a FAIL. */
	if (!fail_cause && seq_f && !iso_f && further && further_eq == further)
		how = DIV_ORDER;
	const cJSON *shown = seq_f ? seq_f : iso_f;
	const char *axis = fail_cause ? NULL : equiv_classify((const char *const *)texts, (size_t)got);
	cJSON *masked = NULL;
	if (fail_cause) {
		verdict_add(v, "A2", "replay", V_UNVERIFIED, fail_cause, EVIDENCE(.observed = jdup(shown), .expected = jdup(rec)),
			    "the result differs and a further replay failed: %s", fail_detail);
	} else if (equiv_masked_equal(rec, (const cJSON *const *)parts, (size_t)nparts, &masked)) {
		struct buf b = {0};
		int m = 0;
		for (const cJSON *x = masked->child; x; x = x->next, m++) {
			double tok = cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(x, "token"));
			if (m < 6 && tok >= 0)
				buf_printf(&b, "%s%s token %d (%s)", m ? ", " : "", jx_str(x, "path"), (int)tok, jx_str(x, "class"));
			else if (m < 6)
				buf_printf(&b, "%s%s (%s)", m ? ", " : "", jx_str(x, "path"), jx_str(x, "class"));
		}
		struct subverdict *s =
		    verdict_add(v, "A2", "replay", V_PASS, NULL, EVIDENCE(.observed = jdup(shown), .expected = jdup(rec)),
				"the recorded result reproduces with %d value(s) left out of the comparison, shown to vary "
				"across %d replays: %s%s",
				m, nparts, buf_cstr(&b), m > 6 ? ", ..." : "");
		cJSON *d = cJSON_CreateObject();
		cJSON_AddItemToObject(d, "fields", masked);
		cJSON_AddNumberToObject(d, "replays", nparts);
		verdict_note(s, "MASKED_FIELDS", d);
		buf_free(&b);
	} else if (how == DIV_ORDER) {
		verdict_add(v, "A2", "replay", V_UNVERIFIED, "SESSION_ORDER_DIVERGED",
			    EVIDENCE(.observed = jdup(seq_f), .expected = jdup(rec)),
			    "the recorded result reproduces on a fresh server but not when the session is replayed in order "
			    "(%d replays): the record may hide state the session had, or the session replay is not faithful",
			    nparts);
	} else if (axis) {
		verdict_add(v, "A2", "replay", V_UNVERIFIED, axis, EVIDENCE(.observed = jdup(shown), .expected = jdup(rec)),
			    "the result varies across %d replays (%s)", got, axis);
	} else if (got && effect_clock_drift(recorded, rlen, texts[0], roots)) {
		/* The replays agree, and differ from the record only in times that moved forward
		 * since it was made, or in durations: a clock, not a different result. */
		verdict_add(v, "A2", "replay", V_UNVERIFIED, "RESULT_NONDETERMINISTIC_CLOCK",
			    EVIDENCE(.observed = jdup(shown), .expected = jdup(rec)),
			    "the result differs from the record only in clock readings (timestamps later than it, or "
			    "durations; %d replays)",
			    got);
	} else if ((!seq_f || inorder_unfaithful(c, (int)k)) && k > 0) {
		/* Only fresh servers were asked, and the recorded one had served earlier calls: the
		 * replays did not have the conditions the call had (what the server remembered). */
		verdict_add(v, "A2", "replay", V_UNVERIFIED, "SESSION_ORDER_NOT_REPLAYED",
			    EVIDENCE(.observed = jdup(shown), .expected = jdup(rec)),
			    "the result does not reproduce on a fresh server (%d isolated replays agree with each other, not "
			    "with the record), and the session was not replayed in order up to this call (%s): state the "
			    "server kept from the %zu earlier call(s) may explain it, or the record is false: a lie cannot be "
			    "told from that state without the in-order pass (the default order makes it)",
			    got,
			    c->seq_skipped                       ? c->seq_skipped
			    : !seq_f                             ? "the in-order pass did not reach it"
			    : c->seq_fresh_from >= 0 && (int)k >= c->seq_fresh_from ? c->seq_restart
										    : "a file the server holds was restored in place under it, which it may not have seen",
			    k);
	} else if (further_eq) {
		/* some isolated replays reproduce the record and others do not, yet their
		 * signatures agree: never a FAIL */
		verdict_add(v, "A2", "replay", V_UNVERIFIED, "RESULT_NONDETERMINISTIC_UNKNOWN",
			    EVIDENCE(.observed = jdup(shown), .expected = jdup(rec)),
			    "%d of %d further isolated replays reproduce the record, the others do not", further_eq, further);
	} else {
		verdict_add(v, "A2", "replay", V_FAIL, NULL, EVIDENCE(.observed = jdup(shown), .expected = jdup(rec)),
			    "the result does not reproduce: %d isolated replays agree with each other, not with the record%s",
			    got, how == DIV_BOTH ? ", and the in-order session replay differs from the record too" : "");
	}
	for (int i = 0; i < got; i++)
		free(texts[i]);
	for (int i = 0; i < nparts; i++)
		cJSON_Delete(parts[i]);
	free(texts);
	free(parts);
}

/* The A2 replay sub-verdict of turn k from both passes. */
static void judge_replay(struct vctx *c, struct worker *w, size_t k, const struct pass_obs *iso,
			 const struct pass_obs *seq)
{
	struct turn_verdict *v = &c->v[k];
	const struct exchange *x = &c->m.ex[c->m.turns[k]];
	size_t rlen = 0;
	char *recorded = plan_response_text(c, x, &rlen);
	if (!recorded && x->resp_truncated) {
		const struct trace_record *r = plan_frame_rec(c, x->resp_frame);
		verdict_add(v, "A2", "replay", V_UNVERIFIED, "FRAME_TRUNCATED", NO_EVIDENCE,
			    "the response was %zu bytes, over the recording cap: only its first %zu were recorded, so the "
			    "result cannot be compared", r ? r->total : 0, r ? r->len : 0);
		return;
	}
	if (!recorded) {
		verdict_add(v, "A2", "replay", V_UNVERIFIED, "RESULT_NOT_RECORDED", NO_EVIDENCE,
			    "the original call has no recorded response (%s)", ex_status_name(x->status));
		return;
	}
	struct fold_root roots_iso[FOLD_ROOTS], roots_seq[FOLD_ROOTS];
	fold_roots(c, iso ? iso->ws : NULL, iso ? iso->tmp : NULL, iso ? iso->mirror : NULL, iso ? iso->cache : NULL,
		   roots_iso);
	fold_roots(c, seq ? seq->ws : NULL, seq ? seq->tmp : NULL, seq ? seq->mirror : NULL, seq ? seq->cache : NULL,
		   roots_seq);
	cJSON *rec = NULL, *iso_f = NULL, *seq_f = NULL, *rec2 = NULL;
	int eq_iso = 0, eq_seq = 0;
	if (iso && iso->reply)
		eq_iso = equiv_compare(recorded, rlen, iso->reply, iso->reply_len, roots_iso, &rec, &iso_f) == EQ_EQUAL;
	if (seq && seq->reply)
		eq_seq = equiv_compare(recorded, rlen, seq->reply, seq->reply_len, roots_seq, rec ? &rec2 : &rec, &seq_f) ==
			 EQ_EQUAL;
	cJSON_Delete(rec2);
	const cJSON *shown = seq_f ? seq_f : iso_f;
	if (seq_f && eq_seq) {
		struct subverdict *s;
		if (iso_f && !eq_iso) {
			s = verdict_add(v, "A2", "replay", V_PASS, NULL, NO_EVIDENCE,
					"the recorded result reproduces when the session is replayed in order on one server, "
					"not on a fresh one: it depends on what the server remembers from earlier calls");
			verdict_note(s, "SESSION_STATE", NULL);
		} else if (!iso_f && iso && iso->cause) {
			s = verdict_add(v, "A2", "replay", V_PASS, NULL, NO_EVIDENCE,
					"the recorded result reproduces when the session is replayed in order on one server "
					"(the isolated replay could not run: %s, %s)",
					iso->cause, iso->detail);
			verdict_note(s, "SESSION_ORDER_ONLY", NULL);
		} else if (!iso_f && c->iso[k].skipped) {
			s = verdict_add(v, "A2", "replay", V_PASS, NULL, NO_EVIDENCE,
					"the recorded result reproduces when the session is replayed in order on one server; "
					"not replayed alone on a fresh server (the in-order replay reproduced the result and the "
					"effect), so whether it depends on what the server remembers from earlier calls was not "
					"checked (--order full checks it)");
			verdict_note(s, "ISOLATED_SKIPPED", NULL);
		} else if (!iso_f) {
			s = verdict_add(v, "A2", "replay", V_PASS, NULL, NO_EVIDENCE,
					"the recorded result reproduces when the session is replayed in order on one server "
					"(not replayed alone)");
			verdict_note(s, "SESSION_ORDER_ONLY", NULL);
		} else {
			verdict_add(v, "A2", "replay", V_PASS, NULL, NO_EVIDENCE, "the recorded result reproduces");
		}
	} else if (!seq_f && iso_f && eq_iso) {
		verdict_add(v, "A2", "replay", V_PASS, NULL, NO_EVIDENCE, "the recorded result reproduces");
	} else if (!shown) {
		/* Neither pass has a reply: say why (the isolated pass's cause first). */
		const struct pass_obs *p = iso && iso->cause ? iso : seq && seq->cause ? seq : NULL;
		if (p)
			verdict_add(v, "A2", "replay", V_UNVERIFIED, p->cause, NO_EVIDENCE, "%s", p->detail);
		else if (c->seq_stop_cause && !strcmp(c->seq_stop_cause, "REPLAY_NETWORK_REFUSED"))
			/* The session replay ended when the server was refused the service it keeps its
			 * state in: what stopped it holds for the calls after it too. */
			verdict_add(v, "A2", "replay", V_UNVERIFIED, "REPLAY_NETWORK_REFUSED", NO_EVIDENCE,
				    "the session replayed in order ended before this call: %s", c->seq_stop);
		else
			verdict_add(v, "A2", "replay", V_UNVERIFIED, "REPLAY_SERVER_FAILED", NO_EVIDENCE,
				    "no replay re-executed this call: %s",
				    c->seq_stop[0] ? c->seq_stop : c->seq_skipped ? c->seq_skipped : "it was not reached");
	} else if ((iso && iso->network_refused) || (seq && seq->network_refused)) {
		verdict_add(v, "A2", "replay", V_UNVERIFIED, "REPLAY_NETWORK_REFUSED",
			    EVIDENCE(.observed = jdup(shown), .expected = jdup(rec)),
			    "the result differs and the replay was refused the network it asked for: what the call "
			    "depends on may live outside the workspace, where a replay never reaches, and a lie there "
			    "cannot be told from an honest turn");
	} else if ((iso && iso->answers_missing) || (seq && seq->answers_missing)) {
		const struct pass_obs *p = iso && iso->answers_missing ? iso : seq;
		verdict_add(v, "A2", "replay", V_UNVERIFIED, "REPLAY_CLIENT_ANSWER_MISSING",
			    EVIDENCE(.observed = jdup(shown), .expected = jdup(rec)),
			    "the result differs, and the replayed server asked the client %s, which the record holds no "
			    "answer to (the replay did not have the client the call had)",
			    p->answer_missing_method);
	} else if (c->outside[k]) {
		verdict_add(v, "A2", "replay", V_UNVERIFIED, "WORKSPACE_CHANGED_OUTSIDE",
			    EVIDENCE(.observed = jdup(shown), .expected = jdup(rec)), "the result differs, and %s",
			    c->outside[k]);
	} else if (c->env_missing) {
		verdict_add(v, "A2", "replay", V_UNVERIFIED, "REPLAY_ENVIRONMENT_UNAVAILABLE",
			    EVIDENCE(.observed = jdup(shown), .expected = jdup(rec)),
			    "the result differs, and the server was started with %s, whose value the trace withholds (it "
			    "looks like a secret) and verify's environment does not hold",
			    c->env_missing);
	} else if (worker_scratch(c, w) != 0) {
		verdict_add(v, "A2", "replay", V_UNVERIFIED, "REPLAY_SERVER_FAILED", NO_EVIDENCE, "%s", w->sc_err.msg);
	} else {
		enum divergence how = seq_f && iso_f && eq_iso ? DIV_ORDER : seq_f && iso_f ? DIV_BOTH : DIV_ISOLATED;
		judge_divergence(c, w, k, how, recorded, rlen, rec, iso_f ? iso : NULL, iso_f, seq_f);
	}
	cJSON_Delete(rec);
	cJSON_Delete(iso_f);
	cJSON_Delete(seq_f);
	free(recorded);
}

static void finish_turn(struct vctx *c, size_t k, uint64_t t0);

/* A writer whose replays differ from the recorded effect, and none matched it: one more
 * isolated replay from the same pre-state tells a nondeterministic writer (other bytes each
 * time at a path both wrote: wrote_varies) from a record that is simply not the replay's. */
static void writer_variation(struct vctx *c, struct worker *w, size_t k)
{
	struct pass_obs *iso = &c->iso[k], *seq = &c->seq[k];
	enum effect_rec ri = iso->effect ? iso->rec : EFFECT_REC_UNKNOWN, rs = seq->effect ? seq->rec : EFFECT_REC_UNKNOWN;
	if ((ri != EFFECT_REC_DIFFERS && rs != EFFECT_REC_DIFFERS) || ri == EFFECT_REC_SAME || rs == EFFECT_REC_SAME ||
	    ri == EFFECT_REC_CLOCK || rs == EFFECT_REC_CLOCK || !w->store_ok)
		return;
	const cJSON *a = iso->wrote ? iso->wrote : seq->wrote;
	if (!a)
		return;
	struct replay_result rr;
	replay_isolated(c, w, k, 0, &rr); /* undo + delta: no extra full restore */
	c->v[k].ms_server += rr.ms_server;
	if (!rr.cause) {
		struct err e = {0};
		const char *via = NULL, *why = NULL;
		cJSON *eff = effect_of(c, w, turn_handle(c, k), &rr, 0, &via, &why, &e);
		cJSON *d = eff ? effect_digests(w->sc.ws, eff) : NULL;
		if (d && effect_digests_differ(a, d))
			iso->wrote_varies = seq->wrote_varies = 1;
		cJSON_Delete(d);
		cJSON_Delete(eff);
	}
	replay_result_free(&rr);
}

/* Phase 2 job: turn k's verdict. */
static void judge_turn(struct vctx *c, struct worker *w, size_t k)
{
	struct turn_verdict *v = &c->v[k];
	uint64_t t0 = time_mono_ns();
	const struct exchange *x = &c->m.ex[c->m.turns[k]];
	if (c->o->order == VERIFY_ORDER_BOTH && !c->iso[k].ran && !c->iso[k].cause) {
		/* in order first, then alone on a fresh server only when the verdict depends on it */
		if (isolated_needed(c, k))
			isolated_first(c, w, k);
		else
			c->iso[k].skipped = 1;
	}
	const struct pass_obs *iso = c->iso[k].ran || c->iso[k].cause ? &c->iso[k] : NULL;
	const struct pass_obs *seq = c->seq[k].ran ? &c->seq[k] : NULL;
	/* The faithful pass: the in-order replay when it reached the turn and got a reply. */
	const struct pass_obs *main = seq && seq->reply ? seq : iso && iso->reply ? iso : NULL;
	v->replayed = main != NULL;
	if (!iso && !seq) {
		const char *why = c->seq_stop[0] ? c->seq_stop : c->seq_skipped ? c->seq_skipped : "it was not reached";
		if (c->seq_stop_cause && !strcmp(c->seq_stop_cause, "REPLAY_NETWORK_REFUSED"))
			/* The session replay ended when the server was refused the service it keeps its
			 * state in: what stopped it holds for the calls after it too. */
			verdict_unverified(v, "REPLAY_NETWORK_REFUSED", "the session replayed in order ended before this call: %s",
					   why);
		else
			verdict_unverified(v, "REPLAY_SERVER_FAILED", "no replay re-executed this call: %s", why);
		goto done;
	}
	for (int i = 0; i < 2; i++) {
		const struct pass_obs *p = i ? seq : iso;
		for (const cJSON *o = p && p->observed ? p->observed->child : NULL; o; o = o->next) {
			cJSON *d = cJSON_Duplicate(o, 1);
			cJSON_AddStringToObject(d, "pass", i ? "in_order" : "isolated");
			cJSON_AddItemToArray(v->denials, d);
		}
	}
	if (main)
		c->is_error[k] = judge_reply_is_error(main->reply, main->reply_len);
	judge_replay(c, w, k, iso, seq);
	const struct pass_obs *eff = main && main->effect ? main : iso && iso->effect ? iso : NULL;
	if (eff) {
		v->effect = cJSON_Duplicate(eff->effect, 1);
		v->effect_via = eff->effect_via;
		v->effect_full_why = eff->effect_full_why;
	} else if (main) {
		verdict_add(v, "A2", "effect", V_UNVERIFIED, "PRESTATE_NOT_FOUND", NO_EVIDENCE,
			    "the pre-state cannot be compared with the replay: %s", main->effect_err);
	}
	if (eff && !c->o->coverage_only) {
		writer_variation(c, w, k);
		const struct pass_obs *passes[2] = {iso, seq};
		judge_effect(c, v, x, passes, pass_names, 2);
		judge_invariants(c, v, eff->effect, eff->weak);
	}
	/* Things worth a look that do not change what was judged. */
	const char *pv = main ? main->protocol_version : NULL;
	if (pv && c->recorded_protocol && strcmp(pv, c->recorded_protocol))
		verdict_add(v, "A2", "replay", V_WARN, "PROTOCOL_VERSION_DRIFT", NO_EVIDENCE, "recorded protocol %s, replayed %s",
			    c->recorded_protocol, pv);
	int denied = 0;
	for (const cJSON *o = main && main->observed ? main->observed->child : NULL; o; o = o->next)
		denied += !strcmp(jx_str(o, "kind"), "denial");
	if (denied)
		verdict_add(v, "A2", "replay", V_WARN, "REPLAY_DENIALS", NO_EVIDENCE,
			    "the sandbox refused %d operation(s) during the %s", denied, main == seq ? pass_names[1] : pass_names[0]);
done:
	finish_turn(c, k, t0);
}

/* What every turn's verdict ends with, judged or decided before any replay. */
static void finish_turn(struct vctx *c, size_t k, uint64_t t0)
{
	struct turn_verdict *v = &c->v[k];
	const struct exchange *x = &c->m.ex[c->m.turns[k]];
	if (!v->replayed) {
		/* A network claim that could not be checked is named as such, never passed. */
		int listed;
		cJSON *ann = plan_annotations(c, x->req_seq, x->tool, &listed);
		if (ann && cJSON_IsBool(cJSON_GetObjectItemCaseSensitive(ann, "openWorldHint")))
			verdict_add(v, "A2", "effect:network", V_NOT_COVERED, "NETWORK_NOT_OBSERVED", NO_EVIDENCE,
				    "the call was not re-executed, so its openWorldHint was not checked against its network use");
		cJSON_Delete(ann);
	}
	verdict_reduce(v);
	v->ms_total += (double)(time_mono_ns() - t0) / 1e6;
	if (c->o->progress) {
		pthread_mutex_lock(&c->mu);
		c->o->progress(c->o->ctx, v);
		pthread_mutex_unlock(&c->mu);
	}
}

/*==== the workers ====*/

struct pool {
	struct vctx *c;
	struct worker *workers;
	int phase;         /* 1: replays, 2: judging */
	int njobs;
	size_t wanted, done; /* turns asked for, and done in this phase (o->step) */
	atomic_int next;
	unsigned char *decided; /* per turn: precheck decided it */
};

struct worker_arg {
	struct pool *p;
	struct worker *w;
};

/* o->step: job j of the phase is taken (the count is of turns asked for; a turn is counted
 * as it starts, so the count also moves while the in-order pass runs beside). */
static void step_done(struct pool *p, int j)
{
	struct vctx *c = p->c;
	size_t k = p->phase == 1 ? (size_t)(j - 1) : (size_t)j;
	if (!c->o->step || !verify_wants(c->o, k))
		return;
	pthread_mutex_lock(&c->mu);
	p->done++;
	c->o->step(c->o->ctx, p->phase, p->done, p->wanted);
	pthread_mutex_unlock(&c->mu);
}

/* Where the in-order pass is phase 1's only replay, it is what phase 1's count counts. */
static int inorder_counts(const struct vctx *c)
{
	return c->o->order == VERIFY_ORDER_BOTH || c->o->order == VERIFY_ORDER_SESSION;
}

void verify_inorder_progress(struct vctx *c, int k)
{
	if (c->pool && c->pool->phase == 1 && inorder_counts(c))
		step_done(c->pool, k + 1);
}

static void *worker_main(void *arg)
{
	struct worker_arg *wa = arg;
	struct pool *p = wa->p;
	struct vctx *c = p->c;
	for (;;) {
		if (c->o->cancel && atomic_load(c->o->cancel))
			break; /* cancelled: no further turn */
		int j = atomic_fetch_add(&p->next, 1);
		if (j >= p->njobs)
			break;
		if ((j > 0 && !inorder_counts(c)) || p->phase == 2)
			step_done(p, j);
		uint64_t t0 = time_mono_ns();
		if (p->phase == 1 && j == 0) {
			if (c->o->order == VERIFY_ORDER_ISOLATED)
				c->seq_skipped = "--order isolated";
			else if (!wa->w->store_ok)
				c->seq_skipped = "the snapshot store cannot be opened";
			else
				inorder_run(c, wa->w); /* in this worker's scratch, which its isolated jobs reuse */
			continue;
		}
		size_t k = p->phase == 1 ? (size_t)(j - 1) : (size_t)j;
		if (!verify_wants(c->o, k))
			continue;
		if (p->decided[k]) {
			if (p->phase == 2)
				finish_turn(c, k, t0);
			continue;
		}
		if (p->phase == 1) {
			/* the default order makes the isolated replays it needs in phase 2 (judge_turn) */
			if (c->o->order == VERIFY_ORDER_ISOLATED || c->o->order == VERIFY_ORDER_FULL)
				isolated_first(c, wa->w, k);
			c->v[k].ms_total += (double)(time_mono_ns() - t0) / 1e6;
		} else {
			judge_turn(c, wa->w, k);
		}
	}
	return NULL;
}

static void run_phase(struct pool *p, int phase, int jobs)
{
	p->phase = phase;
	p->njobs = phase == 1 ? (int)p->c->m.nturns + 1 : (int)p->c->m.nturns;
	p->done = 0;
	p->wanted = 0;
	for (size_t k = 0; k < p->c->m.nturns; k++)
		p->wanted += verify_wants(p->c->o, k) ? 1 : 0;
	atomic_store(&p->next, 0);
	pthread_t *th = xcalloc((size_t)jobs, sizeof *th);
	struct worker_arg *wa = xcalloc((size_t)jobs, sizeof *wa);
	for (int i = 0; i < jobs; i++) {
		wa[i] = (struct worker_arg){p, &p->workers[i]};
		pthread_create(&th[i], NULL, worker_main, &wa[i]);
	}
	for (int i = 0; i < jobs; i++)
		pthread_join(th[i], NULL);
	free(th);
	free(wa);
}

/*==== the whole trace ====*/

static char **argv_from_json(const cJSON *a)
{
	int n = cJSON_GetArraySize(a);
	if (n <= 0)
		return NULL;
	char **argv = xcalloc((size_t)n + 1, sizeof *argv);
	int i = 0;
	for (const cJSON *x = a->child; x; x = x->next) {
		struct buf b = {0};
		if (jx_bytes_decode(x, &b) != 0) {
			buf_free(&b);
			plan_strv_free(argv);
			return NULL;
		}
		argv[i++] = buf_take(&b);
	}
	return argv;
}

/* The context every job reads: the server command, environment, workspace, protocol. */
static int build_context(struct vctx *c, struct err *e)
{
	const struct verify_opts *o = c->o;
	const cJSON *start = trace_server_start(c->t);
	if (o->server_override) {
		size_t n = 0;
		while (o->server_override[n])
			n++;
		c->argv = xcalloc(n + 1, sizeof *c->argv);
		for (size_t i = 0; i < n; i++)
			c->argv[i] = xstrdup(o->server_override[i]);
	} else if (start) {
		c->argv = argv_from_json(cJSON_GetObjectItemCaseSensitive(start, "argv"));
	}
	if (start) {
		struct buf b = {0};
		if (jx_bytes_decode(cJSON_GetObjectItemCaseSensitive(start, "cwd"), &b) == 0)
			c->cwd = buf_take(&b);
		buf_free(&b);
		const char *sd = jx_str(start, "state_dir");
		if (sd)
			c->state_dir = xstrdup(sd);
		if (!o->server_override)
			c->env_record = cJSON_GetObjectItemCaseSensitive(start, "env");
		/* a contained local server over HTTP (docs/HTTP.md): replayed over HTTP, in a sandbox */
		const char *tr = jx_str(start, "transport"), *url = jx_str(start, "url");
		if (tr && !strcmp(tr, "http") && url && !o->server_override)
			c->http_url = xstrdup(url);
		const char *tmp = jx_str(cJSON_GetObjectItemCaseSensitive(start, "sandbox"), "tmpdir");
		if (tmp)
			c->rec_tmp = xstrdup(tmp);
		const char *cache = jx_str(cJSON_GetObjectItemCaseSensitive(start, "sandbox"), "cache");
		if (cache)
			c->rec_cache = xstrdup(cache);
	}
	if (c->env_record) {
		char **env = NULL;
		if (plan_env(c, NULL, &env, &c->env_missing) != 0)
			return err_set(e, BELAY_EINVAL, "%s: the server record's \"env\" is malformed", c->t->path);
		plan_strv_free(env);
	}
	for (size_t i = 0; i < c->t->n; i++) {
		if (!strcmp(c->t->recs[i].kind, "sandbox") && jx_str(c->t->recs[i].obj, "scope")) {
			free(c->scope);
			c->scope = xstrdup(jx_str(c->t->recs[i].obj, "scope"));
		}
		/* a server over HTTP (docs/HTTP.md): it runs elsewhere */
		const char *ev = !strcmp(c->t->recs[i].kind, "http") ? jx_str(c->t->recs[i].obj, "event") : NULL;
		if (ev && !strcmp(ev, "run") && !c->remote && !c->http_url) {
			const char *up = jx_str(c->t->recs[i].obj, "upstream");
			c->remote = xstrdup(up ? up : "(unknown URL)");
		}
	}
	if (o->state_dir) {
		free(c->state_dir);
		c->state_dir = xstrdup(o->state_dir);
	}
	if (!c->state_dir)
		c->state_dir = xstrdup(".");
	/* Material from elsewhere may not set what loads code into the server (env_filter.h):
	 * only this state directory's seal vouches for a recorded environment. */
	if (c->env_record &&
	    (o->env_foreign || !env_seal_check(c->state_dir, c->env_record, start ? jx_str(start, "env_seal") : NULL)))
		c->env_refused = env_filter_refused(c->env_record);
	for (size_t i = 0; i < c->m.nex && !c->recorded_protocol; i++) {
		const struct exchange *x = &c->m.ex[i];
		if (x->origin == DIR_C2S && x->method && !strcmp(x->method, "initialize") && x->resp_seq >= 0) {
			size_t len;
			char *t = plan_response_text(c, x, &len);
			cJSON *m = t ? cJSON_ParseWithLength(t, len) : NULL;
			const cJSON *pv = m ? jx_path(m, "result.protocolVersion") : NULL;
			if (cJSON_IsString(pv))
				c->recorded_protocol = xstrdup(pv->valuestring);
			cJSON_Delete(m);
			free(t);
		}
	}
	return 0;
}

int verify_trace(const char *trace_path, const struct verify_opts *o, struct verify_report *out, struct err *e)
{
	memset(out, 0, sizeof *out);
	struct vctx c = {.o = o, .seq_inplace_turn = -1, .seq_fresh_from = -1};
	int rc = trace_read(trace_path, &c.t, e);
	if (rc == 0)
		rc = trace_validate(c.t, e); /* the checks of trace check and index: a record removed is refused */
	if (rc) {
		trace_free(c.t);
		return rc;
	}
	out->cut_line = c.t->cut_line;
	out->cut_bytes = c.t->cut_bytes;
	if (verify_is_hook_run(c.t)) { /* an agent's hook session: docs/HOOKS.md */
		rc = verify_hook_run(c.t, o, out, e);
		trace_free(c.t);
		return rc;
	}
	model_init(&c.m);
	trace_build_model(c.t, &c.m);
	if (o->turn < 0 && o->turn_from > 0 && (size_t)o->turn_from >= c.m.nturns) {
		rc = err_set(e, BELAY_EUSAGE, "turn %d does not exist (the trace has %zu tools/call turn(s))", o->turn_from,
			     c.m.nturns);
		goto out;
	}
	if (o->turn >= 0 && (size_t)o->turn >= c.m.nturns) {
		rc = err_set(e, BELAY_EUSAGE, "turn %d does not exist (the trace has %zu tools/call turn(s))", o->turn, c.m.nturns);
		goto out;
	}
	if ((rc = build_context(&c, e)) != 0)
		goto out;
	plan_outside_changes(&c);
	size_t nt = c.m.nturns;
	c.v = xcalloc(nt + 1, sizeof *c.v);
	c.is_error = xcalloc(nt + 1, sizeof *c.is_error);
	c.iso = xcalloc(nt + 1, sizeof *c.iso);
	c.seq = xcalloc(nt + 1, sizeof *c.seq);
	pthread_mutex_init(&c.mu, NULL);
	struct pool p = {.c = &c, .decided = xcalloc(nt + 1, 1)};
	c.pool = &p;
	for (size_t k = 0; k < nt; k++)
		if (o->cancel && atomic_load(o->cancel))
			break; /* cancelled: the phases below take no turn either */
		else if (verify_wants(o, k))
			p.decided[k] = (unsigned char)precheck(&c, k);
		else
			c.is_error[k] = -1;
	int jobs = o->jobs < 1 ? 1 : o->jobs;
	p.workers = xcalloc((size_t)jobs, sizeof *p.workers);
	for (int i = 0; i < jobs; i++) {
		struct worker *w = &p.workers[i];
		w->store_ok = snap_store_open(c.state_dir, NULL, &w->st, &w->store_err) == 0;
	}
	/* The in-order pass is phase 1's first job: with -j 1 it runs before the isolated
	 * replays, with more beside them, in the scratch of the worker that takes it. */
	run_phase(&p, 1, jobs);
	int cancelled = o->cancel && atomic_load(o->cancel);
	if (!cancelled) { /* a cancelled verification judges nothing */
		run_phase(&p, 2, jobs);
		judge_dependencies(&c);
	}
	for (int i = 0; i < jobs; i++) {
		struct worker *w = &p.workers[i];
		if (w->sc_open) {
			c.full_restores += w->sc.full_restores - w->sc_full0;
			c.partial_restores += w->sc.partial_restores - w->sc_partial0;
			c.task_restores += w->sc.task_restores - w->sc_task0;
			c.scratches_reused += (unsigned long)w->sc_reused;
			if (w->sc_pooled)
				scratch_pool_give(o->pool, &w->sc);
			else
				scratch_close(&w->sc);
		}
		snap_store_close(w->st);
	}
	free(p.workers);
	free(p.decided);
	pthread_mutex_destroy(&c.mu);
	out->total_turns = nt;
	out->full_restores = c.full_restores;
	out->partial_restores = c.partial_restores;
	out->scratch_mismatches = atomic_load(&c.scratch_mismatches);
	out->settles = atomic_load(&c.settles);
	out->settles_proven = atomic_load(&c.settles_proven);
	out->settle_ms = (double)atomic_load(&c.settle_us) / 1000;
	out->task_restores = c.task_restores;
	out->scratches_reused = c.scratches_reused;
	out->session_ran = c.seq_ran;
	out->session_turns = c.seq_turns;
	out->session_ms = c.seq_ms;
	out->session_server_ms = c.seq_server_ms;
	out->session_own_ms = c.seq_own_ms;
	int nn = snprintf(out->session_note, sizeof out->session_note, "%s%s%s",
		 c.seq_skipped ? c.seq_skipped : c.seq_stop[0] ? c.seq_stop : "",
		 c.seq_restart[0] && !c.seq_skipped && c.seq_stop[0] ? "; " : "", c.seq_restart[0] && !c.seq_skipped ? c.seq_restart : "");
	(void)nn; /* cut when long */
	out->worst = V_PASS;
	for (size_t k = 0; k < nt; k++) {
		pass_obs_free(&c, &c.iso[k]);
		pass_obs_free(&c, &c.seq[k]);
		if (!verify_wants(o, k) || cancelled) {
			verdict_free(&c.v[k]);
			continue;
		}
		out->turns = xrealloc(out->turns, (out->n + 1) * sizeof *out->turns);
		out->turns[out->n++] = c.v[k];
		if (c.v[k].status > out->worst)
			out->worst = c.v[k].status;
	}
	if (cancelled)
		rc = err_set(e, -ECANCELED, "cancelled: nothing was judged or saved");
	else if (o->turn < 0 && o->turn_from <= 0) {
		judge_trajectory(&c, out);
		if (out->has_trajectory && out->trajectory.status > out->worst)
			out->worst = out->trajectory.status;
		judge_census(&c, out);
		if (out->has_census && out->census.status > out->worst)
			out->worst = out->census.status;
	}
	free(c.v);
	free(c.is_error);
	free(c.iso);
	free(c.seq);
	for (size_t k = 0; k < nt; k++)
		free(c.outside[k]);
	free(c.outside);
out:
	plan_strv_free(c.argv);
	free(c.cwd);
	free(c.scope);
	free(c.rec_tmp);
	free(c.rec_cache);
	free(c.remote);
	free(c.http_url);
	free(c.env_refused);
	free(c.state_dir);
	free(c.env_missing);
	free(c.recorded_protocol);
	model_free(&c.m);
	trace_free(c.t);
	return rc;
}

void verify_report_free(struct verify_report *r)
{
	for (size_t i = 0; i < r->n; i++)
		verdict_free(&r->turns[i]);
	free(r->turns);
	if (r->has_trajectory)
		verdict_free(&r->trajectory);
	if (r->has_census)
		verdict_free(&r->census);
	memset(r, 0, sizeof *r);
}
