/* corpus_run.c - the regression suite: each case replayed from the store alone (its trace
 * written to a scratch file, its pre-states restored from the snapshot store) and its
 * recomputed verdict compared with the expected one. See corpus.h and docs/CORPUS.md.
 *
 * Must not: read labels other than the recorded-miss declaration; write anything but
 * case_results. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/buf.h"
#include "common/fsutil.h"
#include "common/jsonx.h"
#include "common/timeutil.h"
#include "common/xalloc.h"
#include "corpus/corpus_internal.h"
#include "index/verdict_store.h"
#include "store/store.h"
#include "verify/verify.h"

/* Causes that say this machine cannot replay (not that the case changed): SKIP. */
static const char *const env_causes[] = {"REPLAY_SANDBOX_UNAVAILABLE", "REPLAY_SERVER_FAILED", NULL};

static int is_env_cause(const char *cause)
{
	for (const char *const *c = env_causes; *c; c++)
		if (!strcmp(*c, cause))
			return 1;
	return 0;
}

static int has_cause(const struct turn_verdict *v, const char *cause)
{
	for (size_t i = 0; i < v->nsubs; i++)
		if (!strcmp(v->subs[i].cause, cause))
			return 1;
	return 0;
}

static int same_key(const struct subverdict *a, const struct subverdict *b)
{
	return !strcmp(a->axis, b->axis) && !strcmp(a->kind, b->kind) &&
	       !strcmp(a->rule ? a->rule : "", b->rule ? b->rule : "");
}

static void describe(struct buf *b, const struct subverdict *s)
{
	buf_printf(b, "%s %s", s->axis, s->kind);
	if (s->rule)
		buf_printf(b, " [%s]", s->rule);
}

static void status_text(struct buf *b, enum vstatus st, const char *cause)
{
	buf_puts(b, vstatus_name(st));
	if (cause && *cause)
		buf_printf(b, " %s", cause);
}

enum corpus_outcome corpus_compare(const struct turn_verdict *exp, const struct turn_verdict *obs, int miss,
				   char **detail)
{
	struct buf b = {0};
	/* 1. The environment cannot replay: SKIP, naming why. */
	for (size_t i = 0; i < obs->nsubs; i++) {
		const struct subverdict *s = &obs->subs[i];
		if (s->cause[0] && is_env_cause(s->cause) && !has_cause(exp, s->cause)) {
			buf_printf(&b, "%s: %s", s->cause, s->message ? s->message : "");
			*detail = buf_take(&b);
			return CO_SKIP;
		}
	}
	/* 2. Pair sub-verdicts by (axis, kind, rule) in order; compare status and cause. */
	char *used = xcalloc(obs->nsubs + 1, 1);
	int differs = 0, flips = 0, other = 0;
	for (size_t i = 0; i < exp->nsubs; i++) {
		const struct subverdict *x = &exp->subs[i];
		size_t j = 0;
		while (j < obs->nsubs && (used[j] || !same_key(x, &obs->subs[j])))
			j++;
		if (j == obs->nsubs) {
			buf_puts(&b, "missing ");
			describe(&b, x);
			buf_puts(&b, ": expected ");
			status_text(&b, x->status, x->cause);
			buf_puts(&b, ", the replay produced no such verdict\n");
			differs = other = 1;
			continue;
		}
		used[j] = 1;
		const struct subverdict *y = &obs->subs[j];
		if (x->status == y->status && !strcmp(x->cause, y->cause))
			continue;
		differs = 1;
		if (!strcmp(x->axis, "A1") && x->status != V_FAIL && y->status == V_FAIL)
			flips++;
		else
			other = 1;
		describe(&b, x);
		buf_puts(&b, ": expected ");
		status_text(&b, x->status, x->cause);
		buf_puts(&b, ", got ");
		status_text(&b, y->status, y->cause);
		buf_printf(&b, " (%s)\n", y->message ? y->message : "");
	}
	for (size_t j = 0; j < obs->nsubs; j++) {
		if (used[j])
			continue;
		const struct subverdict *y = &obs->subs[j];
		buf_puts(&b, "unexpected ");
		describe(&b, y);
		buf_puts(&b, ": ");
		status_text(&b, y->status, y->cause);
		buf_printf(&b, " (%s)\n", y->message ? y->message : "");
		differs = other = 1;
	}
	free(used);
	if (exp->status != obs->status || strcmp(exp->cause, obs->cause)) {
		differs = 1;
		buf_puts(&b, "reduced: expected ");
		status_text(&b, exp->status, exp->cause);
		buf_puts(&b, ", got ");
		status_text(&b, obs->status, obs->cause);
		buf_putc(&b, '\n');
	}
	if (b.len && b.p[b.len - 1] == '\n')
		b.p[--b.len] = '\0';
	enum corpus_outcome o;
	if (!differs)
		o = miss ? CO_STILL_MISSED : CO_MATCH;
	else if (miss && obs->status == V_FAIL && exp->status != V_FAIL && !other && (flips > 0 || exp->turn < 0))
		/* The recorded miss is now caught: only A1 verdicts moved, each to FAIL (a
		 * trajectory case has one A1 verdict). */
		o = CO_MISS_CLOSED;
	else
		o = CO_REGRESSION;
	if (!b.p)
		buf_puts(&b, "");
	*detail = buf_take(&b);
	return o;
}

/*==== running ====*/

static int save_result(struct corpus *c, const struct corpus_result *r, struct err *e)
{
	struct store *db = c->db;
	int rc = store_begin(db, e);
	if (rc)
		return rc;
	sqlite3_stmt *q;
	if ((rc = store_stmt(
		 db,
		 "INSERT INTO case_results(case_id, at, belay_version, outcome, detail, observed) VALUES (?1, ?2, "
		 "?3, ?4, ?5, ?6)",
		 &q, e)) == 0) {
		char at[ISO_TS_LEN];
		time_now_iso8601(at);
		char *obs = r->observed ? jx_print(r->observed) : NULL;
		store_bind_text(db, q, 1, r->id, e);
		store_bind_text(db, q, 2, at, e);
		store_bind_text(db, q, 3, BELAY_VERSION_STRING, e);
		store_bind_text(db, q, 4, corpus_outcome_name(r->outcome), e);
		store_bind_text(db, q, 5, r->detail, e);
		store_bind_text(db, q, 6, obs, e);
		free(obs);
		rc = store_step_done(db, q, e, "cannot save the case's result");
	}
	if (rc) {
		store_rollback(db);
		return rc;
	}
	return store_commit(db, e);
}

static int all_ids(struct corpus *c, char ***ids, size_t *n, struct err *e)
{
	*ids = NULL;
	*n = 0;
	size_t cap = 0;
	sqlite3_stmt *q;
	int rc = store_stmt(c->db, "SELECT id FROM cases ORDER BY id", &q, e);
	if (rc)
		return rc;
	int r;
	while ((r = sqlite3_step(q)) == SQLITE_ROW) {
		*ids = xgrow_zeroed(*ids, &cap, *n, sizeof **ids, 256);
		(*ids)[(*n)++] = xstrdup((const char *)sqlite3_column_text(q, 0));
	}
	sqlite3_reset(q);
	return r == SQLITE_DONE ? 0 : store_fail(c->db, e, "cannot list cases");
}

/* Replays one case. Returns < 0 only when the case cannot be read (corrupt); a replay that
 * fails is a REGRESSION with the reason. */
static int run_one(struct corpus *c, const struct corpus_run_opts *o, const char *dir, const char *id,
		   struct corpus_result *res, struct err *e)
{
	memset(res, 0, sizeof *res);
	res->id = xstrdup(id);
	struct ccase cc;
	int rc = ccase_load(c, id, &cc, e);
	if (rc)
		return rc;
	struct buf trace = {0};
	struct policy pol = {0};
	struct turn_verdict exp = {0};
	char *path = NULL;
	char label[24];
	int miss = 0;
	cJSON *ej = cJSON_Parse(cc.expected);
	if ((rc = ccase_trace(c, id, &trace, e)) != 0 || (rc = ccase_label(c, id, label, &miss, e)) != 0 ||
	    (rc = policy_parse(&pol, cc.policy, strlen(cc.policy), "case policy", e)) != 0 ||
	    (rc = verdict_from_json(ej, &exp, e)) != 0) {
		err_wrap(e, "case %s", id);
		goto out;
	}
	char *name = xasprintf("%s.jsonl", cc.run);
	path = fs_join(dir, name);
	free(name);
	if ((rc = fs_write_file_atomic(path, trace.p ? trace.p : "", trace.len, 0600, e)) != 0)
		goto out;
	struct verify_opts vo = {
	    .state_dir = c->dir,
	    .policy = &pol,
	    .replays = cc.replays,
	    .jobs = o->jobs < 1 ? 1 : o->jobs,
	    .timeout_ms = (unsigned)cc.timeout_ms,
	    .turn = cc.turn,
	    .launcher = o->launcher,
	    .cancel = o->cancel,
	    /* an imported case is hostile: its recorded environment may not inject code, whatever
	     * it says of itself; a case added here keeps the seal of the trace it came from */
	    .env_foreign = !cc.origin || strcmp(cc.origin, "add") != 0,
	};
	struct verify_report r;
	struct err ve = {0};
	if (verify_trace(path, &vo, &r, &ve) != 0) {
		if (o->cancel && atomic_load(o->cancel)) {
			rc = err_set(e, -ECANCELED, "cancelled");
			goto out;
		}
		res->outcome = CO_REGRESSION;
		res->detail = xasprintf("the case no longer replays: %s", ve.msg);
		goto out;
	}
	const struct turn_verdict *obs = cc.turn < 0 ? (r.has_trajectory ? &r.trajectory : NULL)
					 : r.n == 1  ? &r.turns[0]
						     : NULL;
	if (!obs) {
		res->outcome = CO_REGRESSION;
		res->detail = xstrdup(cc.turn < 0 ? "the replay produced no trajectory verdict"
						  : "the replay produced no verdict");
	} else {
		res->observed = verdict_json(obs);
		res->outcome = corpus_compare(&exp, obs, miss, &res->detail);
	}
	verify_report_free(&r);
out:
	if (path)
		unlink(path);
	free(path);
	cJSON_Delete(ej);
	verdict_free(&exp);
	policy_free(&pol);
	buf_free(&trace);
	ccase_free(&cc);
	return rc;
}

int corpus_run(struct corpus *c, const struct corpus_run_opts *o, struct corpus_run_report *out, struct err *e)
{
	memset(out, 0, sizeof *out);
	char **ids = NULL;
	size_t n = 0;
	int owned = 0, rc = 0;
	if (o->ids) {
		ids = (char **)o->ids;
		n = o->nids;
		for (size_t i = 0; i < n && rc == 0; i++) {
			int have = ccase_exists(c, ids[i], e);
			if (have == 0)
				rc = err_set(e, BELAY_ENOTFOUND, "no case %s", ids[i]);
			else if (have < 0)
				rc = have;
		}
		if (rc)
			return rc;
	} else {
		if ((rc = all_ids(c, &ids, &n, e)) != 0)
			return rc;
		owned = 1;
	}
	char *dir = fs_mkdtemp_in(o->scratch ? o->scratch : fs_scratch_base(), "belay-corpus-", e);
	if (!dir) {
		rc = e->code ? e->code : BELAY_EINVAL;
		goto out;
	}
	out->r = xcalloc(n + 1, sizeof *out->r);
	for (size_t i = 0; i < n; i++) {
		if (o->cancel && atomic_load(o->cancel)) {
			rc = err_set(e, -ECANCELED, "cancelled");
			break;
		}
		struct corpus_result *res = &out->r[out->n];
		if ((rc = run_one(c, o, dir, ids[i], res, e)) != 0) {
			free(res->id);
			free(res->detail);
			cJSON_Delete(res->observed);
			memset(res, 0, sizeof *res);
			break;
		}
		out->n++;
		out->counts[res->outcome]++;
		if ((rc = save_result(c, res, e)) != 0)
			break;
		if (o->progress)
			o->progress(o->ctx, res);
	}
	fs_remove_tree(dir);
	free(dir);
out:
	if (owned) {
		for (size_t i = 0; i < n; i++)
			free(ids[i]);
		free(ids);
	}
	return rc;
}

void corpus_run_report_free(struct corpus_run_report *r)
{
	for (size_t i = 0; i < r->n; i++) {
		free(r->r[i].id);
		free(r->r[i].detail);
		cJSON_Delete(r->r[i].observed);
	}
	free(r->r);
	memset(r, 0, sizeof *r);
}
