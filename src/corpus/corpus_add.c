/* corpus_add.c - banking a case: recompute the verdict by real replay (verify_trace on the
 * turn, or on the whole run for a trajectory case), then add the case, its trace and its
 * snapshot references in one transaction. See corpus.h.
 *
 * Must not: label (a new case is pending: it has no label row); overwrite a case. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/fsutil.h"
#include "common/jsonx.h"
#include "common/testhook.h"
#include "common/timeutil.h"
#include "common/xalloc.h"
#include "corpus/corpus_internal.h"
#include "mcp/model.h"
#include "snapshot/snap_transfer.h"
#include "trace/trace_model.h"
#include "trace/trace_reader.h"
#include "index/runidx.h"
#include "store/store.h"
#include "verify/verify.h"

#define TRACE_MAX ((size_t)1 << 30)

/* What the trace says about the case: the server, the workspace, each turn's handle. */
struct trace_facts {
	char *argv, *cwd, *scope; /* JSON text / string; owned */
	size_t nturns;
	char **handles; /* per turn: the present handle or NULL; owned */
	char **why;	/* per turn: why there is none; owned */
	char *tool;	/* the target turn's tool */
};

static void facts_free(struct trace_facts *f)
{
	for (size_t i = 0; i < f->nturns; i++) {
		free(f->handles[i]);
		free(f->why[i]);
	}
	free(f->handles);
	free(f->why);
	free(f->argv);
	free(f->cwd);
	free(f->scope);
	free(f->tool);
	memset(f, 0, sizeof *f);
}

static int read_facts(const char *path, int turn, struct trace_facts *f, struct err *e)
{
	memset(f, 0, sizeof *f);
	struct trace *t = NULL;
	int rc = trace_read(path, &t, e);
	if (rc)
		return rc;
	struct model m;
	model_init(&m);
	trace_build_model(t, &m);
	const cJSON *start = trace_server_start(t);
	const cJSON *argv = start ? cJSON_GetObjectItemCaseSensitive(start, "argv") : NULL;
	if (!cJSON_IsArray(argv) || !argv->child) {
		rc = err_set(e, BELAY_EINVAL,
			     "%s has no server start record with an argv: a case must be able to start the "
			     "server again",
			     path);
		goto out;
	}
	f->argv = jx_print(argv);
	const cJSON *cwd = cJSON_GetObjectItemCaseSensitive(start, "cwd");
	if (cwd)
		f->cwd = jx_print(cwd);
	for (size_t i = 0; i < t->n; i++)
		if (!strcmp(t->recs[i].kind, "sandbox") && jx_str(t->recs[i].obj, "scope")) {
			free(f->scope);
			f->scope = xstrdup(jx_str(t->recs[i].obj, "scope"));
		}
	f->nturns = m.nturns;
	f->handles = xcalloc(m.nturns + 1, sizeof *f->handles);
	f->why = xcalloc(m.nturns + 1, sizeof *f->why);
	for (size_t k = 0; k < m.nturns; k++) {
		const struct exchange *x = &m.ex[m.turns[k]];
		const struct trace_record *r = &t->recs[m.frames[x->req_frame].rec];
		const cJSON *h = r->state_handle;
		const char *status = h ? jx_str(h, "status") : NULL;
		if (status && !strcmp(status, "present") && jx_str(h, "handle"))
			f->handles[k] = xstrdup(jx_str(h, "handle"));
		else if (status && !strcmp(status, "unrestorable"))
			f->why[k] = xasprintf("its pre-state is unrestorable (%s)",
					      jx_str(h, "cause") ? jx_str(h, "cause") : "?");
		else
			f->why[k] = xstrdup("no pre-state was captured (record with belay proxy --scope)");
		if ((int)k == turn && x->tool)
			f->tool = xstrdup(x->tool);
	}
out:
	model_free(&m);
	trace_free(t);
	return rc;
}

static void add_handle(cJSON *arr, const char *handle, const char *role)
{
	for (const cJSON *h = arr->child; h; h = h->next)
		if (!strcmp(jx_str(h, "handle"), handle))
			return;
	cJSON *o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "handle", handle);
	cJSON_AddStringToObject(o, "role", role);
	cJSON_AddItemToArray(arr, o);
}

int corpus_add(struct corpus *c, const struct corpus_add_opts *o, struct corpus_add_result *out, struct err *e)
{
	memset(out, 0, sizeof *out);
	int traj = o->trajectory;
	char *run = runidx_run_id(o->trace_path);
	char *id = corpus_case_id(run, traj ? -1 : o->turn);
	struct trace_facts f = {0};
	struct buf trace = {0};
	cJSON *handles = cJSON_CreateArray();
	struct verify_report r = {0};
	int have_report = 0;
	struct ccase cc = {0};
	int rc = ccase_exists(c, id, e);
	if (rc > 0) {
		rc = err_set(e, BELAY_EEXIST,
			     "case %s already exists; re-adding never overwrites (belay corpus show %s)", id, id);
		goto out;
	}
	if (rc < 0)
		goto out;
	if ((rc = read_facts(o->trace_path, traj ? -1 : o->turn, &f, e)) != 0)
		goto out;
	if (!traj && (o->turn < 0 || (size_t)o->turn >= f.nturns)) {
		rc = err_set(e, BELAY_EUSAGE, "turn %d does not exist (the trace has %zu tools/call turn(s))", o->turn,
			     f.nturns);
		goto out;
	}
	/* The pre-states the case needs must be in this store. */
	if (!traj) {
		const char *h = f.handles[o->turn];
		if (!h) {
			rc = err_set(e, BELAY_ENOTFOUND, "turn %d cannot be banked: %s", o->turn, f.why[o->turn]);
			goto out;
		}
		int have = snap_handle_exists(c->snap, h, NULL, e);
		if (have <= 0) {
			rc = have < 0
				 ? have
				 : err_set(e, BELAY_ENOTFOUND,
					   "turn %d cannot be banked: its pre-state %s is not in %s (another state "
					   "directory? pass --state; removed by gc?)",
					   o->turn, h, c->dir);
			goto out;
		}
		add_handle(handles, h, "target");
	}
	for (size_t k = 0; k < f.nturns; k++) {
		if (!f.handles[k] || (!traj && k != 0))
			continue;
		int have = snap_handle_exists(c->snap, f.handles[k], NULL, e);
		if (have < 0) {
			rc = have;
			goto out;
		}
		if (have)
			add_handle(handles, f.handles[k], k == 0 ? "task" : "turn");
	}
	if ((rc = fs_read_file(o->trace_path, TRACE_MAX, &trace, e)) != 0)
		goto out;

	/* The real replay. */
	struct verify_opts vo = {
	    .state_dir = c->dir,
	    .policy = o->policy,
	    .replays = o->replays < 3 ? 3 : o->replays,
	    .jobs = o->jobs < 1 ? 1 : o->jobs,
	    .timeout_ms = o->timeout_ms ? o->timeout_ms : 10000,
	    .turn = traj ? -1 : o->turn,
	    .launcher = o->launcher,
	};
	if ((rc = verify_trace(o->trace_path, &vo, &r, e)) != 0)
		goto out;
	have_report = 1;
	const struct turn_verdict *v = NULL;
	if (traj) {
		if (!r.has_trajectory) {
			rc = err_set(e, BELAY_ENOTFOUND,
				     "%s has no trajectory verdict to bank: it needs a claim record and the "
				     "suite-before-success-claim rule in the policy",
				     o->trace_path);
			goto out;
		}
		v = &r.trajectory;
	} else {
		if (r.n != 1) {
			rc = err_set(e, BELAY_EINVAL, "verify returned %zu verdicts for one turn", r.n);
			goto out;
		}
		v = &r.turns[0];
	}

	char at[ISO_TS_LEN];
	time_now_iso8601(at);
	cJSON *pj = policy_json(o->policy), *vj = verdict_json(v);
	cc.id = xstrdup(id);
	cc.kind = xstrdup(traj ? "trajectory" : "turn");
	cc.run = xstrdup(run);
	cc.turn = traj ? -1 : o->turn;
	cc.tool = traj ? NULL : f.tool ? xstrdup(f.tool) : NULL;
	cc.created = xstrdup(at);
	cc.belay_version = xstrdup(BELAY_VERSION_STRING);
	cc.origin = xstrdup("add");
	cc.platform = xstrdup("linux");
	cc.server_argv = xstrdup(f.argv);
	cc.server_cwd = f.cwd ? xstrdup(f.cwd) : NULL;
	cc.scope = f.scope ? xstrdup(f.scope) : NULL;
	cc.policy = jx_print(pj);
	cc.replays = vo.replays;
	cc.timeout_ms = vo.timeout_ms;
	cc.handle = traj ? NULL : xstrdup(f.handles[o->turn]);
	/* Turn 0's pre-state is the task's; recorded only when the case holds it. */
	for (const cJSON *h = handles->child; h; h = h->next)
		if (f.nturns && f.handles[0] && !strcmp(jx_str(h, "handle"), f.handles[0]))
			cc.task_handle = xstrdup(f.handles[0]);
	cc.expected_status = xstrdup(vstatus_name(v->status));
	cc.expected_cause = v->cause[0] ? xstrdup(v->cause) : NULL;
	cc.expected = jx_print(vj);
	cJSON_Delete(pj);
	cJSON_Delete(vj);

	if ((rc = store_begin(c->db, e)) != 0)
		goto out;
	if ((rc = ccase_exists(c, id, e)) != 0) { /* added meanwhile by another process */
		if (rc > 0)
			rc = err_set(e, BELAY_EEXIST, "case %s already exists; re-adding never overwrites", id);
		store_rollback(c->db);
		goto out;
	}
	if ((rc = ccase_insert(c, &cc, trace.p ? trace.p : "", trace.len, handles, e)) != 0) {
		store_rollback(c->db);
		goto out;
	}
	testhook_pause("corpus-add");
	if ((rc = store_commit(c->db, e)) != 0)
		goto out;
	out->id = id;
	id = NULL;
	out->status = v->status;
	snprintf(out->cause, sizeof out->cause, "%s", v->cause);
	out->snapshots = (size_t)cJSON_GetArraySize(handles);
out:
	if (have_report)
		verify_report_free(&r);
	ccase_free(&cc);
	cJSON_Delete(handles);
	buf_free(&trace);
	facts_free(&f);
	free(id);
	free(run);
	return rc;
}
