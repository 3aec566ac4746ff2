/* inorder.c - the in-order session replay: one warm contained server, every client message of
 * the session sent in recorded order, each turn's own recorded pre-state restored just before
 * its call (so the files are as recorded and the server's memory is as it grew), the server's
 * requests answered from the record in recorded order, and each turn's reply and effect kept
 * for verify.c to judge. One pass over the session, whatever the number of turns: the state a
 * turn depends on is rebuilt by the calls before it, never by re-running prefixes.
 *
 * Runs on one worker thread, in that worker's scratch workspace (left exactly known when the
 * server wrote nothing after the last effect, so the worker's isolated replays continue from
 * it by undo + delta). A step the server does not answer
 * (timeout, exit) ends the pass: the turns after it are not reached and are judged without it
 * (c->seq_stop says why). See verify_internal.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/jsonx.h"
#include "common/timeutil.h"
#include "common/xalloc.h"
#include "verify/answers.h"
#include "verify/verify_internal.h"

struct ictx {
	struct vctx *c;
	struct worker *w;
	struct replay_frame *steps;
	size_t nsteps;
	int last_turn;  /* no step after this turn is needed */
	int ended;      /* before() refused to go on */
};

/* The present pre-state handle of turn k, or NULL. */
static const char *turn_handle(const struct vctx *c, int k)
{
	const struct exchange *x = &c->m.ex[c->m.turns[k]];
	const struct trace_record *r = plan_frame_rec(c, x->req_frame);
	const cJSON *h = r ? r->state_handle : NULL;
	const char *st = h ? jx_str(h, "status") : NULL;
	return st && !strcmp(st, "present") ? jx_str(h, "handle") : NULL;
}

static int before(void *ctx, size_t i)
{
	struct ictx *ic = ctx;
	struct vctx *c = ic->c;
	int k = ic->steps[i].turn;
	if (c->o->cancel && atomic_load(c->o->cancel)) {
		ic->ended = 1; /* cancelled: the session goes no further */
		return -1;
	}
	if (k < 0)
		return 0;
	if (k > ic->last_turn) {
		ic->ended = 1;
		return -1;
	}
	/* Whatever changed since the last turn's effect was taken (a request between turns, a
	 * turn without a pre-state) is not in the scratch's record of its own changes: then the
	 * scratch is restored in full rather than trusted. */
	struct snap_paths since = {0};
	const char *why = NULL;
	if (scratch_dirty(&ic->w->sc, &since, &why) != 0 || since.n)
		scratch_invalidate(&ic->w->sc);
	snap_paths_free(&since);
	const char *handle = turn_handle(c, k);
	if (!handle) {
		scratch_invalidate(&ic->w->sc); /* its changes will not be tracked */
		return 0; /* sent for the server's state; the turn is not judged in this pass */
	}
	struct err e = {0};
	uint64_t t0 = time_mono_ns();
	if (scratch_prepare(&ic->w->sc, ic->w->st, handle, NULL, &e) != 0) {
		snprintf(c->seq_stop, sizeof c->seq_stop, "turn %d's pre-state could not be restored under the running server: %s",
			 k, e.msg);
		ic->ended = 1;
		return -1;
	}
	c->seq_own_ms += (double)(time_mono_ns() - t0) / 1e6;
	scratch_arm(&ic->w->sc);
	return 0;
}

static void after(void *ctx, size_t i, struct replay_result *rr)
{
	struct ictx *ic = ctx;
	struct vctx *c = ic->c;
	int k = ic->steps[i].turn;
	if (k < 0)
		return;
	struct pass_obs *p = &c->seq[k];
	p->ran = 1;
	c->seq_turns++;
	c->seq_server_ms += rr->ms_server;
	count_settle(c, rr);
	p->ws = xstrdup(ic->w->sc.ws);
	p->tmp = xstrdup(ic->w->sc.tmp);
	p->mirror = ic->w->sc.mirror ? xstrdup(ic->w->sc.mirror) : NULL;
	p->cache = xstrdup(ic->w->sc.cache);
	p->observed = cJSON_Duplicate(rr->observed, 1);
	p->network_refused = rr->network_refused;
	p->answers_missing = rr->answers_missing;
	snprintf(p->answer_missing_method, sizeof p->answer_missing_method, "%s", rr->answer_missing_method);
	if (rr->protocol_version)
		p->protocol_version = xstrdup(rr->protocol_version);
	if (rr->cause) {
		p->cause = rr->cause;
		snprintf(p->detail, sizeof p->detail, "%s", rr->detail);
		snprintf(c->seq_stop, sizeof c->seq_stop, "turn %d: %s", k, rr->detail);
		c->seq_stop_cause = rr->cause;
		return;
	}
	p->reply = rr->reply;
	p->reply_len = rr->reply_len;
	rr->reply = NULL;
	const char *handle = turn_handle(c, k);
	if (!handle)
		return;
	struct err e = {0};
	uint64_t t0 = time_mono_ns();
	p->effect = effect_of(c, ic->w, handle, rr, 1, &p->effect_via, &p->effect_full_why, &e);
	c->seq_own_ms += (double)(time_mono_ns() - t0) / 1e6;
	if (!p->effect)
		snprintf(p->effect_err, sizeof p->effect_err, "%s", e.msg);
	else if (!c->o->coverage_only) {
		p->rec = effect_vs_record(c, ic->w, (size_t)k, handle, p->effect, p->rec_why, sizeof p->rec_why);
		p->weak = judge_prejudge_weakening(c, ic->w, p->effect);
	}
}

void inorder_run(struct vctx *c, struct worker *w)
{
	c->seq_ran = 0;
	if (c->env_refused) {
		c->seq_skipped = "the recorded environment was refused (REPLAY_ENV_REFUSED)";
		return;
	}
	if (!c->argv || !c->scope) {
		c->seq_skipped = "the trace does not say how to start the server in its workspace";
		return;
	}
	/* The session starts from the first turn's pre-state, and goes as far as the last turn
	 * asked for. */
	int first = -1, last = -1;
	for (size_t k = 0; k < c->m.nturns; k++) {
		if (first < 0 && turn_handle(c, (int)k))
			first = (int)k;
		if (c->o->turn >= 0 ? (int)k == c->o->turn : (int)k >= c->o->turn_from)
			last = (int)k;
	}
	if (first < 0 || last < 0) {
		c->seq_skipped = first < 0 ? "no turn has a pre-state" : "no turn asked for";
		return;
	}
	if (worker_scratch(c, w) != 0) {
		snprintf(c->seq_stop, sizeof c->seq_stop, "%s", w->sc_err.msg);
		c->seq_skipped = "its scratch workspace could not be created";
		return;
	}
	struct err e = {0};
	struct scratch *sc = &w->sc;
	if (scratch_prepare(sc, w->st, turn_handle(c, first), NULL, &e) != 0) {
		snprintf(c->seq_stop, sizeof c->seq_stop, "%s", e.msg);
		c->seq_skipped = "the first pre-state could not be restored";
		return;
	}
	struct relocation rl = {c->scope, sc->ws};
	struct ictx ic = {.c = c, .w = w, .last_turn = last};
	plan_session_steps(c, &rl, &ic.steps, &ic.nsteps);
	struct replay_setup su;
	plan_replay_setup(c, sc, &su);
	struct replay_hooks hooks = {.before = before, .after = after, .ctx = &ic};
	struct replay_spec sp = {
		.argv = su.argv,
		.cwd = su.cwd,
		.env = su.env,
		.launcher = c->o->launcher,
		.scope = sc->ws,
		.tmpdir = sc->tmp,
		.cache = c->rec_cache ? sc->cache : NULL,
		.network = SANDBOX_NET_DENY,
		.pre = ic.steps,
		.npre = ic.nsteps,
		.answers = su.answers,
		.hooks = &hooks,
		.timeout_ms = c->o->timeout_ms,
		.report_writes = !c->o->full_diff,
		.settle_wait = c->o->settle_wait,
		.cancel = c->o->cancel,
	};
	char *tpath = c->o->replay_trace_dir ? xasprintf("%s/session.jsonl", c->o->replay_trace_dir) : NULL;
	sp.trace_path = tpath;
	sc->keep_tmp = 1; /* the warm server owns its temp dir for the whole session */
	scratch_arm(sc);
	struct replay_result rr;
	uint64_t t0 = time_mono_ns();
	replay_run(&sp, &rr);
	c->seq_ms = (double)(time_mono_ns() - t0) / 1e6;
	free(tpath);
	sc->keep_tmp = 0;
	if (rr.cause && !c->seq_stop[0])
		snprintf(c->seq_stop, sizeof c->seq_stop, "%s", rr.detail);
	if (rr.cause && !c->seq_stop_cause)
		c->seq_stop_cause = rr.cause;
	/* The next user of this scratch (the worker's isolated replays) may trust it only when
	 * the server left nothing behind after the last effect was taken. */
	struct snap_paths late = {0};
	const char *why = NULL;
	if (!rr.contained_gone || scratch_dirty(sc, &late, &why) != 0 || late.n)
		scratch_invalidate(sc);
	snap_paths_free(&late);
	c->seq_ran = 1;
	replay_result_free(&rr);
	plan_frames_free(ic.steps, ic.nsteps);
	plan_replay_setup_free(&su);
}
