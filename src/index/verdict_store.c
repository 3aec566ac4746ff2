/* verdict_store.c - saving verify reports and reading the latest verdicts back. See
 * verdict_store.h. Must not: print. */
#include "index/verdict_store.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/jsonx.h"
#include "common/osuser.h"
#include "common/timeutil.h"
#include "common/xalloc.h"
#include "index/runidx.h"
#include "index/statedb.h"
#include "store/store.h"

/*==== JSON ====*/

int verdict_from_json(const cJSON *j, struct turn_verdict *v, struct err *e)
{
	memset(v, 0, sizeof *v);
	if (!cJSON_IsObject(j))
		return err_set(e, BELAY_EINVAL, "a verdict is not a JSON object");
	long long turn = -1;
	if (!jx_int(j, "turn", -1, 1 << 30, &turn))
		return err_set(e, BELAY_EINVAL, "a verdict has no integer \"turn\"");
	v->turn = (int)turn;
	const char *tool = jx_str(j, "tool"), *status = jx_str(j, "status"), *cause = jx_str(j, "cause");
	if (!status || vstatus_parse(status, &v->status) != 0 || v->status == V_NOT_COVERED)
		return err_set(e, BELAY_EINVAL, "a verdict has no valid reduced \"status\"");
	if (cause && !vcause_known(cause))
		return err_set(e, BELAY_EINVAL, "a verdict names an unknown cause %s", cause);
	if (tool)
		v->tool = xstrdup(tool);
	snprintf(v->cause, sizeof v->cause, "%s", cause ? cause : "");
	v->replayed = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(j, "replayed"));
	const cJSON *subs = cJSON_GetObjectItemCaseSensitive(j, "verdicts");
	if (!cJSON_IsArray(subs)) {
		verdict_free(v);
		return err_set(e, BELAY_EINVAL, "a verdict has no \"verdicts\" list");
	}
	for (const cJSON *s = subs->child; s; s = s->next) {
		const char *axis = jx_str(s, "axis"), *kind = jx_str(s, "kind"), *st = jx_str(s, "status");
		const char *sc = jx_str(s, "cause"), *msg = jx_str(s, "message"), *rule = jx_str(s, "rule");
		enum vstatus vs;
		if (!axis || strlen(axis) >= sizeof v->subs[0].axis || !kind ||
		    strlen(kind) >= sizeof v->subs[0].kind || !st || vstatus_parse(st, &vs) != 0 ||
		    (sc && !vcause_known(sc)) || ((vs == V_UNVERIFIED || vs == V_NOT_COVERED) && !sc)) {
			verdict_free(v);
			return err_set(e, BELAY_EINVAL, "a sub-verdict is malformed (axis, kind, status and cause)");
		}
		const cJSON *obs = cJSON_GetObjectItemCaseSensitive(s, "observed");
		const cJSON *exp = cJSON_GetObjectItemCaseSensitive(s, "expected");
		struct subverdict *sv =
		    verdict_add(v, axis, kind, vs, sc,
				EVIDENCE(.observed = obs ? cJSON_Duplicate(obs, 1) : NULL,
					 .expected = exp ? cJSON_Duplicate(exp, 1) : NULL),
				"%s", msg ? msg : "");
		if (rule)
			sv->rule = xstrdup(rule);
	}
	const cJSON *eff = cJSON_GetObjectItemCaseSensitive(j, "effect");
	if (eff)
		v->effect = cJSON_Duplicate(eff, 1);
	const cJSON *den = cJSON_GetObjectItemCaseSensitive(j, "denials");
	v->denials = den ? cJSON_Duplicate(den, 1) : cJSON_CreateArray();
	return 0;
}

/*==== saving ====*/

static int save_row(struct store *st, int64_t ver, const char *run, int turn, int idx, const char *tool,
		    const char *axis, const char *kind, const char *status, const char *cause, const char *message,
		    const cJSON *observed, const cJSON *expected, const char *rule, struct err *e)
{
	sqlite3_stmt *q;
	int rc =
	    store_stmt(st,
		       "INSERT INTO verdicts(verification, run, turn, idx, tool, axis, kind, status, cause, message, "
		       "observed, expected, rule) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)",
		       &q, e);
	if (rc)
		return rc;
	char *obs = observed ? jx_print(observed) : NULL, *exp = expected ? jx_print(expected) : NULL;
	store_bind_i64(st, q, 1, ver, e);
	store_bind_text(st, q, 2, run, e);
	store_bind_i64(st, q, 3, turn, e);
	store_bind_i64(st, q, 4, idx, e);
	store_bind_text(st, q, 5, tool, e);
	store_bind_text(st, q, 6, axis, e);
	store_bind_text(st, q, 7, kind, e);
	store_bind_text(st, q, 8, status, e);
	store_bind_text(st, q, 9, cause && *cause ? cause : NULL, e);
	store_bind_text(st, q, 10, message, e);
	store_bind_text(st, q, 11, obs, e);
	store_bind_text(st, q, 12, exp, e);
	store_bind_text(st, q, 13, rule, e);
	free(obs);
	free(exp);
	return store_step_done(st, q, e, "cannot save a verdict");
}

/* One verdict under turn number `turn` (the turn's, or VERDICT_TURN_*). */
static int save_turn(struct store *st, int64_t ver, const char *run, const struct turn_verdict *v, int turn,
		     struct err *e)
{
	/* The reduced row's `observed` keeps what the replay itself did: the files it changed and
	 * what the sandbox refused it (the console's diff and denials tabs show them). */
	cJSON *seen = NULL;
	if (v->effect || (v->denials && v->denials->child)) {
		seen = cJSON_CreateObject();
		if (v->effect)
			cJSON_AddItemToObject(seen, "effect", cJSON_Duplicate(v->effect, 1));
		if (v->denials && v->denials->child)
			cJSON_AddItemToObject(seen, "denials", cJSON_Duplicate(v->denials, 1));
	}
	int rc = save_row(st, ver, run, turn, -1, v->tool, NULL, NULL, vstatus_name(v->status), v->cause, NULL, seen,
			  NULL, NULL, e);
	cJSON_Delete(seen);
	for (size_t i = 0; i < v->nsubs && rc == 0; i++) {
		const struct subverdict *s = &v->subs[i];
		rc = save_row(st, ver, run, turn, (int)i, v->tool, s->axis, s->kind, vstatus_name(s->status), s->cause,
			      s->message, s->observed, s->expected, s->rule, e);
	}
	return rc;
}

int verdict_store_save(struct store *st, const struct verdict_save *v, int64_t *id, struct err *e)
{
	int rc = store_begin(st, e);
	if (rc)
		return rc;
	sqlite3_stmt *q;
	if ((rc = store_stmt(
		 st,
		 "INSERT INTO verifications(run, trace_path, at, belay_version, turn_filter, policy, worst, by, kind) "
		 "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
		 &q, e)) != 0)
		goto fail;
	char at[ISO_TS_LEN];
	time_now_iso8601(at);
	cJSON *pj = policy_json(v->policy);
	char *policy = jx_print(pj);
	cJSON_Delete(pj);
	char *by = os_user_name();
	const struct verify_report *r = v->report;
	store_bind_text(st, q, 1, v->run, e);
	store_bind_text(st, q, 2, v->trace_path, e);
	store_bind_text(st, q, 3, at, e);
	store_bind_text(st, q, 4, BELAY_VERSION_STRING, e);
	if (v->turn_filter >= 0)
		store_bind_i64(st, q, 5, v->turn_filter, e);
	store_bind_text(st, q, 6, policy, e);
	store_bind_text(st, q, 7, r->n || r->has_trajectory || r->has_census ? vstatus_name(r->worst) : "UNVERIFIED", e);
	store_bind_text(st, q, 8, by, e);
	store_bind_text(st, q, 9, v->recheck ? "recheck" : "full", e);
	free(policy);
	free(by);
	if ((rc = store_step_done(st, q, e, "cannot save the verification")) != 0)
		goto fail;
	int64_t ver = sqlite3_last_insert_rowid(store_db(st));
	for (size_t i = 0; i < r->n && rc == 0; i++)
		rc = save_turn(st, ver, v->run, &r->turns[i], r->turns[i].turn < 0 ? VERDICT_TURN_TRAJECTORY : r->turns[i].turn,
			       e);
	if (rc == 0 && r->has_trajectory)
		rc = save_turn(st, ver, v->run, &r->trajectory, VERDICT_TURN_TRAJECTORY, e);
	if (rc == 0 && r->has_census)
		rc = save_turn(st, ver, v->run, &r->census, VERDICT_TURN_CENSUS, e);
	if (rc)
		goto fail;
	if ((rc = store_commit(st, e)) != 0)
		return rc;
	if (id)
		*id = ver;
	return 0;
fail:
	store_rollback(st);
	return rc;
}

/*==== reading ====*/

static cJSON *json_col(sqlite3_stmt *q, int i)
{
	const unsigned char *t = sqlite3_column_text(q, i);
	return t ? cJSON_Parse((const char *)t) : NULL;
}

static const char *text_col(sqlite3_stmt *q, int i)
{
	const unsigned char *t = sqlite3_column_text(q, i);
	return t ? (const char *)t : NULL;
}

/* SQL: the newest full verification that judged turn v.turn of run v.run. */
#define LATEST_FULL(v)                                                                                        \
	"(SELECT max(x.verification) FROM verdicts x JOIN verifications xw ON xw.id = x.verification "        \
	"WHERE x.run = " v ".run AND x.turn = " v ".turn AND x.idx = -1 AND xw.kind = 'full')"

static int latest_of(struct store *st, const char *run, int turn, int rechecks, cJSON **out, struct err *e)
{
	*out = NULL;
	/* For each turn, the newest full verification that judged it, or (rechecks) the newest
	 * re-check made after that one; rows in (turn, idx) order. */
	sqlite3_stmt *q;
	int rc = store_stmt(
	    st,
	    rechecks ? "SELECT v.turn, v.idx, v.tool, v.axis, v.kind, v.status, v.cause, v.message, v.observed, "
		       "v.expected, v.rule, v.verification, w.at, w.belay_version FROM verdicts v "
		       "JOIN verifications w ON w.id = v.verification "
		       "WHERE v.run = ?1 AND (?2 IS NULL OR v.turn = ?2) AND v.verification = "
		       "(SELECT max(x.verification) FROM verdicts x JOIN verifications xw ON xw.id = x.verification "
		       "WHERE x.run = v.run AND x.turn = v.turn AND x.idx = -1 AND xw.kind = 'recheck') "
		       "AND v.verification > coalesce(" LATEST_FULL("v") ", 0) "
		       "ORDER BY v.turn < 0, v.turn, v.idx"
		     : "SELECT v.turn, v.idx, v.tool, v.axis, v.kind, v.status, v.cause, v.message, v.observed, "
		       "v.expected, v.rule, v.verification, w.at, w.belay_version FROM verdicts v "
		       "JOIN verifications w ON w.id = v.verification "
		       "WHERE v.run = ?1 AND (?2 IS NULL OR v.turn = ?2) AND v.verification = " LATEST_FULL("v") " "
		       "ORDER BY v.turn < 0, v.turn, v.idx",
	    &q, e);
	if (rc)
		return rc;
	store_bind_text(st, q, 1, run, e);
	if (turn >= 0)
		store_bind_i64(st, q, 2, turn, e);
	cJSON *arr = cJSON_CreateArray(), *cur = NULL, *subs = NULL;
	int r;
	while ((r = sqlite3_step(q)) == SQLITE_ROW) {
		int idx = sqlite3_column_int(q, 1);
		if (idx < 0) {
			cur = cJSON_CreateObject();
			cJSON_AddNumberToObject(cur, "turn", sqlite3_column_int(q, 0));
			const char *tool = text_col(q, 2), *cause = text_col(q, 6);
			if (tool)
				cJSON_AddStringToObject(cur, "tool", tool);
			else
				cJSON_AddNullToObject(cur, "tool");
			cJSON_AddStringToObject(cur, "status", text_col(q, 5));
			if (cause)
				cJSON_AddStringToObject(cur, "cause", cause);
			else
				cJSON_AddNullToObject(cur, "cause");
			subs = cJSON_AddArrayToObject(cur, "verdicts");
			cJSON *seen = json_col(q, 8);
			static const char *const kept[] = {"effect", "denials"};
			for (int k = 0; k < 2; k++) {
				cJSON *x = seen ? cJSON_DetachItemFromObjectCaseSensitive(seen, kept[k]) : NULL;
				if (x)
					cJSON_AddItemToObject(cur, kept[k], x);
			}
			cJSON_Delete(seen);
			cJSON_AddNumberToObject(cur, "verification", (double)sqlite3_column_int64(q, 11));
			cJSON_AddStringToObject(cur, "at", text_col(q, 12));
			cJSON_AddStringToObject(cur, "belay_version", text_col(q, 13));
			cJSON_AddItemToArray(arr, cur);
			continue;
		}
		if (!subs)
			continue;
		cJSON *x = cJSON_CreateObject();
		cJSON_AddStringToObject(x, "axis", text_col(q, 3) ? text_col(q, 3) : "");
		cJSON_AddStringToObject(x, "kind", text_col(q, 4) ? text_col(q, 4) : "");
		cJSON_AddStringToObject(x, "status", text_col(q, 5));
		if (text_col(q, 6))
			cJSON_AddStringToObject(x, "cause", text_col(q, 6));
		else
			cJSON_AddNullToObject(x, "cause");
		cJSON_AddStringToObject(x, "message", text_col(q, 7) ? text_col(q, 7) : "");
		if (text_col(q, 10))
			cJSON_AddStringToObject(x, "rule", text_col(q, 10));
		cJSON *obs = json_col(q, 8), *exp = json_col(q, 9);
		if (obs)
			cJSON_AddItemToObject(x, "observed", obs);
		if (exp)
			cJSON_AddItemToObject(x, "expected", exp);
		cJSON_AddItemToArray(subs, x);
	}
	sqlite3_reset(q);
	if (r != SQLITE_DONE) {
		cJSON_Delete(arr);
		return store_fail(st, e, "cannot read verdicts");
	}
	*out = arr;
	return 0;
}

int verdict_store_latest(struct store *st, const char *run, int turn, cJSON **out, struct err *e)
{
	return latest_of(st, run, turn, 0, out, e);
}

int verdict_store_rechecks(struct store *st, const char *run, int turn, cJSON **out, struct err *e)
{
	return latest_of(st, run, turn, 1, out, e);
}

int verdict_store_save_trace(const char *state_override, const char *trace, const struct policy *pol, int turn_filter,
			     const struct verify_report *r, struct err *e)
{
	char *dir = statedb_for_trace(state_override, trace);
	char *run = runidx_run_id(trace);
	char *abs = realpath(trace, NULL);
	struct store *st = NULL;
	int rc = statedb_open(dir, &st, e);
	if (rc == 0) {
		sqlite3_stmt *q;
		int known = 0;
		if ((rc = store_stmt(st, "SELECT 1 FROM runs WHERE id = ?1", &q, e)) == 0) {
			store_bind_text(st, q, 1, run, e);
			known = sqlite3_step(q) == SQLITE_ROW;
			sqlite3_reset(q);
		}
		if (rc == 0 && !known)
			rc = runidx_index_file(st, trace, NULL, e);
	}
	if (rc == 0) {
		struct verdict_save vs = {run, abs ? abs : trace, pol, turn_filter, r};
		rc = verdict_store_save(st, &vs, NULL, e);
	}
	store_close(st);
	free(abs);
	free(run);
	free(dir);
	return rc;
}
