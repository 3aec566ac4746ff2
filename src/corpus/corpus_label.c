/* corpus_label.c - human labels: the ONE place that writes the labels table. `belay corpus
 * label` and the console's label keys call corpus_label_set (the INSERT); `belay corpus
 * delete` and the console's delete key call corpus_delete, which removes a case with its
 * label history (the one DELETE); nothing else may.
 * Two guards keep it so: tests/unit/test_corpus_labels.c scans every source file for SQL
 * that writes labels and finds exactly the statement below, and the authorizer installed
 * on every corpus connection refuses (SQLITE_DENY) a write to labels prepared while this
 * function is not running.
 *
 * Must not: be called by the engine (verify, add, run, import never label nor delete). Threads: the
 * caller's; the flag is per thread. */
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/jsonx.h"
#include "common/osuser.h"
#include "common/testhook.h"
#include "common/timeutil.h"
#include "common/xalloc.h"
#include "corpus/corpus_internal.h"
#include "snapshot/snapshot.h"
#include "store/store.h"

static _Thread_local int label_writer_active;

static int authorize(void *ctx, int action, const char *a, const char *b, const char *db, const char *trigger)
{
	(void)ctx;
	(void)b;
	(void)db;
	(void)trigger;
	if ((action == SQLITE_INSERT || action == SQLITE_UPDATE || action == SQLITE_DELETE) && a &&
	    !strcmp(a, "labels") && !label_writer_active)
		return SQLITE_DENY;
	if (action == SQLITE_DROP_TABLE && a && !strcmp(a, "labels"))
		return SQLITE_DENY;
	return SQLITE_OK;
}

void corpus_label_guard(struct store *db)
{
	sqlite3_set_authorizer(store_db(db), authorize, NULL);
}

static int valid_key(const char *k)
{
	regex_t re;
	if (regcomp(&re, "^[a-z0-9]+(-[a-z0-9]+)*$", REG_EXTENDED | REG_NOSUB) != 0)
		return 0;
	int ok = regexec(&re, k, 0, NULL, 0) == 0;
	regfree(&re);
	return ok;
}

int corpus_label_set(struct corpus *c, const char *id, const char *label, const char *note, const char *root_cause,
		     int miss, struct err *e)
{
	static const char *const labels[] = {"true-positive", "false-positive", "unverifiable", "pending", NULL};
	int known = 0;
	for (const char *const *l = labels; *l; l++)
		known |= !strcmp(*l, label);
	if (!known)
		return err_set(e, BELAY_EUSAGE,
			       "unknown label '%s' (true-positive, false-positive, unverifiable, pending)", label);
	if (root_cause && !valid_key(root_cause))
		return err_set(e, BELAY_EUSAGE,
			       "root-cause key '%s' must look like a-b-c (lowercase letters, digits, '-')", root_cause);
	if (miss && strcmp(label, "true-positive"))
		return err_set(e, BELAY_EUSAGE, "only a true-positive can be a recorded miss");
	struct store *db = c->db;
	int rc = store_begin(db, e);
	if (rc)
		return rc;
	sqlite3_stmt *q;
	if ((rc = store_stmt(db, "SELECT expected_status FROM cases WHERE id = ?1", &q, e)) != 0)
		goto fail;
	store_bind_text(db, q, 1, id, e);
	if (sqlite3_step(q) != SQLITE_ROW) {
		sqlite3_reset(q);
		rc = err_set(e, BELAY_ENOTFOUND, "no case %s (belay corpus list shows them)", id);
		goto fail;
	}
	int was_fail = !strcmp((const char *)sqlite3_column_text(q, 0), "FAIL");
	sqlite3_reset(q);
	if (miss && was_fail) {
		rc = err_set(e, BELAY_EUSAGE,
			     "case %s was flagged FAIL: a recorded miss is a failure the engine did not flag", id);
		goto fail;
	}
	char at[ISO_TS_LEN];
	time_now_iso8601(at);
	char *by = os_user_name();
	label_writer_active = 1;
	rc = store_stmt(
	    db,
	    "INSERT INTO labels(case_id, label, note, root_cause, miss, at, by) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
	    &q, e);
	if (rc == 0) {
		store_bind_text(db, q, 1, id, e);
		store_bind_text(db, q, 2, label, e);
		store_bind_text(db, q, 3, note, e);
		store_bind_text(db, q, 4, root_cause, e);
		store_bind_i64(db, q, 5, miss ? 1 : 0, e);
		store_bind_text(db, q, 6, at, e);
		store_bind_text(db, q, 7, by, e);
		rc = store_step_done(db, q, e, "cannot record the label");
	}
	label_writer_active = 0;
	free(by);
	if (rc)
		goto fail;
	testhook_pause("corpus-label");
	return store_commit(db, e);
fail:
	store_rollback(db);
	return rc;
}

int corpus_label_meaning(const char *status, enum corpus_meaning m, const char **label, int *miss, struct err *e)
{
	int fail = status && !strcmp(status, "FAIL");
	*label = NULL;
	*miss = 0;
	if (m == CORPUS_RIGHT) {
		*label = fail ? "true-positive" : "false-positive";
		return 0;
	}
	if (m == CORPUS_WRONG && fail) {
		*label = "false-positive";
		return 0;
	}
	if (m == CORPUS_MISSED && fail)
		return err_set(e, BELAY_EUSAGE,
			       "a FAIL was flagged, so it cannot be a miss: right (a real failure) or wrong (not one)");
	*label = "true-positive"; /* wrong or missed on a verdict that did not flag: a miss */
	*miss = 1;
	return 0;
}

/* One DELETE of a case's rows in table `sql` (case_id = ?1). */
static int delete_rows(struct store *db, const char *sql, const char *id, struct err *e)
{
	sqlite3_stmt *q;
	int rc = store_stmt(db, sql, &q, e);
	if (rc)
		return rc;
	store_bind_text(db, q, 1, id, e);
	return store_step_done(db, q, e, "cannot delete the case");
}

int corpus_delete(struct corpus *c, const char *id, struct err *e)
{
	if (!c->snap)
		return err_set(e, BELAY_EINVAL, "the corpus was opened for reading only");
	struct store *db = c->db;
	int rc = store_begin(db, e);
	if (rc)
		return rc;
	cJSON *handles = NULL;
	int have = ccase_exists(c, id, e);
	if (have <= 0) {
		rc = have < 0 ? have : err_set(e, BELAY_ENOTFOUND, "no case %s (belay corpus list shows them)", id);
		goto out;
	}
	if ((rc = ccase_handles(c, id, &handles, e)) != 0)
		goto out;
	for (const cJSON *h = handles->child; h && rc == 0; h = h->next)
		rc = snap_ref_drop(c->snap, jx_str(h, "handle"), "case", id, e);
	if (rc == 0)
		rc = delete_rows(db, "DELETE FROM case_results WHERE case_id = ?1", id, e);
	if (rc == 0)
		rc = delete_rows(db, "DELETE FROM case_snapshots WHERE case_id = ?1", id, e);
	if (rc == 0)
		rc = delete_rows(db, "DELETE FROM case_traces WHERE case_id = ?1", id, e);
	if (rc == 0) {
		label_writer_active = 1;
		rc = delete_rows(db, "DELETE FROM labels WHERE case_id = ?1", id, e);
		label_writer_active = 0;
	}
	if (rc == 0)
		rc = delete_rows(db, "DELETE FROM cases WHERE id = ?1", id, e);
out:
	cJSON_Delete(handles);
	if (rc) {
		store_rollback(db);
		return rc;
	}
	return store_commit(db, e);
}
