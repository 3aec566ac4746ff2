/* recover.c - planning and applying a workspace restore to a recorded turn's pre-state
 * (see recover.h). The one place that writes into a live workspace after a run.
 *
 * Must not: print; change a path the plan does not list; apply over unexplained drift
 * unless forced. */
#include "run/recover.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf.h"
#include "common/jsonx.h"
#include "common/osuser.h"
#include "common/timeutil.h"
#include "common/xalloc.h"
#include "mcp/model.h"
#include "trace/trace_model.h"
#include "trace/trace_reader.h"
#include "index/runidx.h"
#include "index/statedb.h"
#include "store/store.h"

void recover_plan_free(struct recover_plan *p)
{
	free(p->run);
	free(p->trace);
	free(p->scope);
	free(p->state_dir);
	free(p->target);
	free(p->target_hash);
	free(p->final_handle);
	free(p->final_cause);
	snap_diff_free(&p->drift);
	snap_diff_free(&p->changes);
	snap_store_close(p->st);
	memset(p, 0, sizeof *p);
}

void recover_result_free(struct recover_result *r)
{
	free(r->before);
	memset(r, 0, sizeof *r);
}

static const char *status_of(const cJSON *h)
{
	return h ? jx_str(h, "status") : NULL;
}

/* A hook run (docs/HOOKS.md) has no frames: its workspace is the agent_session's root, and
 * turn N's pre-state is on the hook record that requested it. Returns that record's
 * state_handle (NULL: none) and counts the run's turns. */
static const cJSON *hook_turn(const struct trace *t, int turn, int *turns, const char **root, const char **sd)
{
	const cJSON *h = NULL;
	*turns = 0;
	for (size_t i = 0; i < t->n; i++) {
		const cJSON *o = t->recs[i].obj;
		const char *phase = jx_str(o, "phase");
		long long k;
		if (!strcmp(t->recs[i].kind, "agent_session") && !*root) {
			*root = jx_str(o, "root");
			*sd = jx_str(o, "state_dir");
		} else if (!strcmp(t->recs[i].kind, "hook") && phase && (!strcmp(phase, "request") || !strcmp(phase, "single")) &&
			   jx_int(o, "turn", 0, 1 << 30, &k)) {
			if ((int)k + 1 > *turns)
				*turns = (int)k + 1;
			if ((int)k == turn)
				h = cJSON_GetObjectItemCaseSensitive(o, "state_handle");
		}
	}
	return h;
}

int recover_plan(const char *trace, const char *state_dir, int turn, struct recover_plan *p, struct err *e)
{
	memset(p, 0, sizeof *p);
	struct trace *t = NULL;
	int rc = trace_read(trace, &t, e);
	if (rc)
		return rc;
	struct model m;
	model_init(&m);
	trace_build_model(t, &m);
	p->trace = realpath(trace, NULL);
	if (!p->trace)
		p->trace = xstrdup(trace);
	p->run = runidx_run_id(p->trace);
	p->turn = turn;
	p->turns = (int)m.nturns;
	const cJSON *start = trace_server_start(t);
	const char *sd = start ? jx_str(start, "state_dir") : NULL;
	const char *hook_root = NULL;
	int hook_turns = 0;
	const cJSON *hook_handle = hook_turn(t, turn, &hook_turns, &hook_root, &sd);
	if (hook_root) {
		p->turns = hook_turns;
		p->scope = xstrdup(hook_root);
	}
	/* A trial's apply trace (docs/TRY.md): one turn, the apply, whose pre-state is the
	 * recover point taken just before it. */
	for (size_t i = 0; !hook_root && i < t->n; i++)
		if (!strcmp(t->recs[i].kind, "trial_apply") && jx_str(t->recs[i].obj, "scope")) {
			hook_root = jx_str(t->recs[i].obj, "scope");
			sd = jx_str(t->recs[i].obj, "state_dir");
			hook_handle = cJSON_GetObjectItemCaseSensitive(t->recs[i].obj, "state_handle");
			p->turns = 1;
			p->scope = xstrdup(hook_root);
			if (turn != 0)
				hook_handle = NULL;
		}
	p->state_dir = state_dir ? xstrdup(state_dir) : sd ? xstrdup(sd) : NULL;
	for (size_t i = 0; i < t->n; i++) {
		const struct trace_record *r = &t->recs[i];
		if (!strcmp(r->kind, "sandbox") && jx_str(r->obj, "scope") && !p->scope)
			p->scope = xstrdup(jx_str(r->obj, "scope"));
		if (!strcmp(r->kind, "final_state")) {
			const cJSON *h = cJSON_GetObjectItemCaseSensitive(r->obj, "state_handle");
			const char *st = status_of(h);
			if (st && !strcmp(st, "present") && jx_str(h, "handle")) {
				p->final_handle = xstrdup(jx_str(h, "handle"));
			} else {
				const char *c = h ? jx_str(h, "cause") : NULL, *d = h ? jx_str(h, "detail") : NULL;
				p->final_cause = xasprintf("%s%s%s", c ? c : "not captured", d ? ": " : "", d ? d : "");
			}
		}
	}
	if (!p->final_handle && !p->final_cause)
		p->final_cause = xstrdup(t->has_close ? "the run recorded no final state (recorded by an older belay?)"
						      : "the run did not end cleanly (no connection_window close): its last "
							"state was never observed");
	if (turn < 0 || turn >= p->turns) {
		rc = err_set(e, BELAY_ENOTFOUND, "turn %d does not exist (the run has %d turn(s))", turn, p->turns);
		goto out;
	}
	if (!p->scope) {
		rc = err_set(e, BELAY_EINVAL, "the run had no --scope: there is no workspace and no pre-state to go back to");
		goto out;
	}
	const cJSON *h = hook_handle;
	if (!hook_root) {
		const struct exchange *x = &m.ex[m.turns[turn]];
		h = t->recs[m.frames[x->req_frame].rec].state_handle;
	}
	const char *st = status_of(h);
	if (!st || strcmp(st, "present") || !jx_str(h, "handle")) {
		const char *c = h ? jx_str(h, "cause") : NULL;
		rc = err_set(e, BELAY_ENOTFOUND, "turn %d has no restorable pre-state (%s)", turn,
			     c ? c : st ? st : "no state handle");
		goto out;
	}
	p->target = xstrdup(jx_str(h, "handle"));
	if (jx_str(h, "tree_hash"))
		p->target_hash = xstrdup(jx_str(h, "tree_hash"));
	if (!p->state_dir) {
		rc = err_set(e, BELAY_ENOTFOUND, "the trace names no state directory (pass --state)");
		goto out;
	}
	if ((rc = snap_store_open(p->state_dir, p->scope, &p->st, e)) != 0)
		goto out;
	if (p->final_handle && (rc = snap_diff_handle_dir(p->st, p->final_handle, p->scope, &p->drift, e)) != 0) {
		err_wrap(e, "comparing the run's last state with %s", p->scope);
		goto out;
	}
	if ((rc = snap_diff_handle_dir(p->st, p->target, p->scope, &p->changes, e)) != 0)
		err_wrap(e, "comparing turn %d's pre-state with %s", turn, p->scope);
out:
	model_free(&m);
	trace_free(t);
	if (rc)
		recover_plan_free(p);
	return rc;
}

static char *paths_json(const struct snap_diff *d, size_t max)
{
	cJSON *a = cJSON_CreateArray();
	for (size_t i = 0; i < d->n && i < max; i++)
		cJSON_AddItemToArray(a, jx_bytes(d->items[i].path, d->items[i].path_len));
	char *s = jx_print(a);
	cJSON_Delete(a);
	return s;
}

static int record(const struct recover_plan *p, int force, struct recover_result *r, struct err *e)
{
	struct store *st = NULL;
	int rc = statedb_open(p->state_dir, &st, e);
	if (rc)
		return rc;
	sqlite3_stmt *q;
	rc = store_stmt(st,
			"INSERT INTO recoveries(at, run, turn, workspace, target, before_handle, paths, drift, forced, "
			"tree_hash_after, matches_target, by) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)",
			&q, e);
	if (rc == 0) {
		char at[ISO_TS_LEN];
		time_now_iso8601(at);
		char *drift = p->drift.n ? paths_json(&p->drift, 1000) : NULL;
		char *by = os_user_name();
		store_bind_text(st, q, 1, at, e);
		store_bind_text(st, q, 2, p->run, e);
		store_bind_i64(st, q, 3, p->turn, e);
		store_bind_text(st, q, 4, p->scope, e);
		store_bind_text(st, q, 5, p->target, e);
		store_bind_text(st, q, 6, r->before, e);
		store_bind_i64(st, q, 7, (int64_t)r->paths, e);
		store_bind_text(st, q, 8, drift, e);
		store_bind_i64(st, q, 9, force, e);
		store_bind_text(st, q, 10, r->tree_hash, e);
		store_bind_i64(st, q, 11, r->matches, e);
		store_bind_text(st, q, 12, by, e);
		rc = store_step_done(st, q, e, "cannot record the recovery");
		r->id = sqlite3_last_insert_rowid(store_db(st));
		free(drift);
		free(by);
	}
	store_close(st);
	return rc;
}

int recover_apply(struct recover_plan *p, int force, struct recover_result *out, struct err *e)
{
	memset(out, 0, sizeof *out);
	if (!force && !p->final_handle)
		return err_set(e, BELAY_EREFUSED,
			       "cannot tell changes made after the run from the run's own: %s (--force restores anyway)",
			       p->final_cause);
	if (!force && p->drift.n) {
		struct buf b = {0};
		for (size_t i = 0; i < p->drift.n && i < 20; i++)
			buf_printf(&b, "%s%s", i ? ", " : "", p->drift.items[i].path);
		if (p->drift.n > 20)
			buf_printf(&b, " and %zu more", p->drift.n - 20);
		int rc = err_set(e, BELAY_EREFUSED,
				 "the workspace changed since the run ended, in ways no recorded turn explains: %s "
				 "(--force restores anyway; those changes would be lost)",
				 buf_cstr(&b));
		buf_free(&b);
		return rc;
	}
	/* The workspace as it is, kept, so this can be undone. */
	struct snapshotter *sn = NULL;
	int rc = snapshotter_open(p->st, p->scope, &sn, e);
	if (rc)
		return err_wrap(e, "cannot snapshot the workspace before restoring");
	snapshotter_request_full(sn);
	cJSON *bh = snapshotter_capture(sn);
	snapshotter_free(sn);
	const char *bst = status_of(bh);
	if (!bst || strcmp(bst, "present") || !jx_str(bh, "handle")) {
		rc = err_set(e, BELAY_EREFUSED, "the workspace could not be snapshotted first (%s); nothing was changed",
			     jx_str(bh, "cause") ? jx_str(bh, "cause") : "unknown cause");
		cJSON_Delete(bh);
		return rc;
	}
	out->before = xstrdup(jx_str(bh, "handle"));
	cJSON_Delete(bh);
	struct snap_paths ps = {0};
	for (size_t i = 0; i < p->changes.n; i++)
		snap_paths_add(&ps, p->changes.items[i].path, p->changes.items[i].path_len, 0);
	snap_paths_sort(&ps);
	out->paths = ps.n;
	if (ps.n && (rc = snap_restore_paths(p->st, p->target, p->scope, &ps, NULL, e)) != 0) {
		snap_paths_free(&ps);
		err_wrap(e, "the restore failed part way (the workspace as it was is snapshot %s)", out->before);
		return rc;
	}
	snap_paths_free(&ps);
	struct err he = {0};
	if (snap_tree_hash_dir(p->scope, out->tree_hash, &he) != 0)
		snprintf(out->tree_hash, sizeof out->tree_hash, "?");
	out->matches = p->target_hash && !strcmp(out->tree_hash, p->target_hash);
	if ((rc = record(p, force, out, e)) != 0)
		return rc;
	char owner[32];
	snprintf(owner, sizeof owner, "%lld", out->id);
	snap_ref_add(p->st, out->before, "recover", owner, &he); /* gc keeps the undo */
	return 0;
}

int recover_saved(struct store *st, long long id, char **ws, char **before, struct err *e)
{
	*ws = *before = NULL;
	sqlite3_stmt *q;
	int rc = store_stmt(st, "SELECT workspace, before_handle FROM recoveries WHERE id = ?1", &q, e);
	if (rc)
		return rc;
	store_bind_i64(st, q, 1, id, e);
	if (sqlite3_step(q) != SQLITE_ROW) {
		sqlite3_reset(q);
		return err_set(e, BELAY_ENOTFOUND, "no recovery %lld (belay recover list shows the runs)", id);
	}
	*ws = sqlite3_column_text(q, 0) ? xstrdup((const char *)sqlite3_column_text(q, 0)) : NULL;
	*before = sqlite3_column_text(q, 1) ? xstrdup((const char *)sqlite3_column_text(q, 1)) : NULL;
	sqlite3_reset(q);
	return 0;
}
