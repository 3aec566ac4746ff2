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

#include <sys/stat.h>

#include "common/buf.h"
#include "common/fsutil.h"
#include "common/jsonx.h"
#include "common/timeutil.h"
#include "common/xalloc.h"
#include "sandbox/sandbox_quiet.h"
#include "verify/answers.h"
#include "verify/held.h"
#include "verify/verify_internal.h"

struct ictx {
	struct vctx *c;
	struct worker *w;
	struct replay_frame *steps;
	size_t nsteps;
	int last_turn;  /* no step after this turn is needed */
	int ended;      /* before() refused to go on */
	size_t restart_at; /* before() asks for a fresh server from this step (SIZE_MAX: no) */
	size_t nhs, base;  /* after a restart: steps = nhs handshake steps, then all[base..] */
	int restarted_turn; /* the turn a fresh server was started for (-1: none) */
	char restart_why[400];
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

/* The files the server holds that turn k's pre-state changes, to be restored in place (into
 * *inplace); 0, or -1 with *why when that cannot be done faithfully: a held file that would be
 * created or removed under it, or one it has mapped (its pages are its own), or a server not
 * proven quiet (it could read a half-restored file). An SQLite database's companions (-wal,
 * -shm, -journal) are held files like the database when open, and restored with it in the
 * same pass either way. */
static int plan_in_place(struct ictx *ic, const char *handle, const struct replay_quiet *rq, struct snap_paths *inplace,
			 char *why, size_t whylen)
{
	int pid = rq ? rq->pid : 0;
	struct vctx *c = ic->c;
	struct scratch *sc = &ic->w->sc;
	if (pid <= 0)
		return 0; /* nothing can be known: restored as before (new inodes) */
	struct held h;
	if (held_collect(pid, sc->ws, &h) != 0) {
		held_free(&h);
		return 0;
	}
	int rc = 0;
	struct buf names = {0};
	for (size_t i = 0; i < h.n && rc == 0; i++) {
		char *abs = fs_join(sc->ws, h.rel[i]);
		struct buf have = {0}, want = {0};
		struct stat sb;
		struct err e = {0};
		int is_file = lstat(abs, &sb) == 0 && S_ISREG(sb.st_mode);
		int read_ok = is_file && fs_read_file(abs, (size_t)1 << 30, &have, &e) == 0;
		int found = snap_read_file(ic->w->st, handle, h.rel[i], &want, &e) == 0;
		if (!is_file && !found) {
			/* a directory, a device, or gone on both sides: not a file to restore */
		} else if (found && read_ok && have.len == want.len && !memcmp(have.p, want.p, want.len)) {
			/* the same bytes: kept as it is (keep_if_same) */
		} else if (!found || !read_ok) {
			snprintf(why, whylen, "%s, which the server holds open, would be %s under it", h.rel[i],
				 found ? "created" : "removed");
			rc = -1;
		} else if (h.mapped[i]) {
			snprintf(why, whylen, "%s, which the server has mapped, would change under it", h.rel[i]);
			rc = -1;
		} else {
			snap_paths_add(inplace, h.rel[i], strlen(h.rel[i]), 0);
			buf_printf(&names, "%s%s", names.len ? ", " : "", h.rel[i]);
		}
		buf_free(&have);
		buf_free(&want);
		free(abs);
	}
	held_free(&h);
	if (rc == 0 && inplace->n) {
		/* Quiet since the last message reached it, and for longer than the restore takes. */
		const char *qwhy = "its quiet cannot be proven here (no pid namespace, or the window is always waited out)";
		if (!rq->since || !sandbox_quiet_proven(pid, rq->since, rq->since_ns, time_mono_ns() + 30 * 1000000ull, &qwhy)) {
			snprintf(why, whylen, "%s, which the server holds open, must change, and the server was not proven "
				 "quiet (%s)", buf_cstr(&names), qwhy);
			rc = -1;
		}
		snap_paths_sort(inplace);
		if (rc == 0 && c->seq_inplace_turn < 0)
			snprintf(c->seq_inplace_what, sizeof c->seq_inplace_what, "%s", buf_cstr(&names));
	}
	buf_free(&names);
	return rc;
}

static int before(void *ctx, size_t i, const struct replay_quiet *server_pid)
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
	/* A file the server holds open that this pre-state changes is rewritten in place, while
	 * the server is proven quiet; when that cannot be done faithfully the server is restarted
	 * here on the restored pre-state (named; from there the pass is isolated), rather than
	 * replace the file by a new inode the server would never read. */
	struct snap_paths inplace = {0};
	char whyin[400] = "";
	int unsafe = plan_in_place(ic, handle, server_pid, &inplace, whyin, sizeof whyin) != 0;
	if (unsafe && ic->restarted_turn != k) {
		/* A fresh server from here, started on the restored pre-state (inorder_run). */
		snap_paths_free(&inplace);
		snprintf(ic->restart_why, sizeof ic->restart_why, "%s", whyin);
		ic->restart_at = i;
		return -1;
	} else if (unsafe) {
		snprintf(c->seq_stop, sizeof c->seq_stop,
			 "turn %d's pre-state could not be restored faithfully under the running server: %s; the in-order "
			 "pass ends there",
			 k, whyin);
		snap_paths_free(&inplace);
		ic->ended = 1;
		return -1;
	}
	if (inplace.n && c->seq_inplace_turn < 0)
		c->seq_inplace_turn = k;
	ic->w->sc.in_place = inplace.n ? &inplace : NULL;
	int prc = scratch_prepare(&ic->w->sc, ic->w->st, handle, NULL, &e);
	ic->w->sc.in_place = NULL;
	snap_paths_free(&inplace);
	if (prc != 0) {
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
	verify_inorder_progress(c, k);
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
		if (p->rec == EFFECT_REC_DIFFERS)
			p->wrote = effect_digests(ic->w->sc.ws, p->effect);
		p->weak = judge_prejudge_weakening(c, ic->w, p->effect);
	}
}

int inorder_unfaithful(const struct vctx *c, int k)
{
	return (c->seq_inplace_turn >= 0 && k >= c->seq_inplace_turn) || (c->seq_fresh_from >= 0 && k >= c->seq_fresh_from);
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
		.http_url = c->http_url,
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
	struct replay_frame *all = ic.steps;
	size_t nall = ic.nsteps;
	ic.restart_at = SIZE_MAX;
	ic.restarted_turn = -1;
	replay_run(&sp, &rr);
	/* A turn's pre-state changes a file the server holds and cannot be restored under it
	 * faithfully: a fresh server from that turn on (the client's handshake, then the rest
	 * of the session), started on the pre-state restored in full. */
	for (int restarts = 0; ic.restart_at != SIZE_MAX; restarts++) {
		if (restarts == 16) {
			snprintf(c->seq_stop, sizeof c->seq_stop, "the server was restarted 16 times; the in-order pass ends at "
				 "turn %d", ic.steps[ic.restart_at].turn);
			break;
		}
		int k = ic.steps[ic.restart_at].turn;
		/* the index in `all` of the step asked for */
		size_t from = ic.steps == all ? ic.restart_at : ic.base + (ic.restart_at - ic.nhs);
		if (c->seq_fresh_from < 0)
			c->seq_fresh_from = k;
		int nr = snprintf(c->seq_restart, sizeof c->seq_restart, "the server was restarted before turn %d: %s", k,
				  ic.restart_why);
		(void)nr; /* cut when long */
		replay_result_free(&rr);
		if (ic.steps != all)
			plan_frames_free(ic.steps, ic.nhs); /* the handshake's own, and the array */
		struct err e2 = {0};
		scratch_invalidate(sc);
		if (scratch_prepare(sc, w->st, turn_handle(c, k), NULL, &e2) != 0) {
			snprintf(c->seq_stop, sizeof c->seq_stop, "turn %d's pre-state could not be restored: %s", k, e2.msg);
			ic.steps = all;
			memset(&rr, 0, sizeof rr);
			break;
		}
		struct replay_frame *hs;
		size_t nhs;
		plan_handshake(c, INT64_MAX, &rl, &hs, &nhs);
		ic.steps = xcalloc(nhs + (nall - from), sizeof *ic.steps);
		memcpy(ic.steps, hs, nhs * sizeof *hs);
		memcpy(ic.steps + nhs, all + from, (nall - from) * sizeof *all); /* borrowed from `all` */
		free(hs);
		ic.nsteps = nhs + (nall - from);
		ic.nhs = nhs;
		ic.base = from;
		ic.restart_at = SIZE_MAX;
		ic.restarted_turn = k;
		sp.pre = ic.steps;
		sp.npre = ic.nsteps;
		scratch_arm(sc);
		replay_run(&sp, &rr);
	}
	if (ic.steps != all) {
		plan_frames_free(ic.steps, ic.nhs); /* the handshake's own, and the array; the rest are `all`'s */
		ic.steps = all;
		ic.nsteps = nall;
	}
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
