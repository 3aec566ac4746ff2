/* corpus_query.c - reading the corpus: list, show, and the score against human labels.
 * Read-only. See corpus.h and docs/CORPUS.md ("Score"). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/jsonx.h"
#include "common/strmap.h"
#include "common/xalloc.h"
#include "corpus/corpus_internal.h"
#include "store/store.h"

/* The latest label row of each case, joined. */
#define CURRENT_LABEL "LEFT JOIN labels l ON l.id = (SELECT max(x.id) FROM labels x WHERE x.case_id = c.id) "

int corpus_list(struct corpus *c, cJSON **out, struct err *e)
{
	*out = NULL;
	sqlite3_stmt *q;
	int rc =
	    store_stmt(c->db,
		       "SELECT c.id, c.kind, c.run, c.turn, c.tool, c.expected_status, c.expected_cause, "
		       "coalesce(l.label, 'pending'), coalesce(l.miss, 0), l.root_cause, l.note, c.created, c.origin, "
		       "(SELECT r.outcome FROM case_results r WHERE r.case_id = c.id ORDER BY r.id DESC LIMIT 1) "
		       "FROM cases c " CURRENT_LABEL "ORDER BY c.id",
		       &q, e);
	if (rc)
		return rc;
	static const char *const names[] = {
	    "id",    "kind", "run",	   "turn", "tool",    "expected_status", "expected_cause",
	    "label", "miss", "root_cause", "note", "created", "origin",		 "last_outcome"};
	cJSON *arr = cJSON_CreateArray();
	int r;
	while ((r = sqlite3_step(q)) == SQLITE_ROW) {
		cJSON *o = cJSON_CreateObject();
		for (int i = 0; i < 14; i++) {
			if (i == 8)
				cJSON_AddBoolToObject(o, names[i], sqlite3_column_int(q, i));
			else
				store_column_json(o, names[i], q, i);
		}
		cJSON_AddItemToArray(arr, o);
	}
	sqlite3_reset(q);
	if (r != SQLITE_DONE) {
		cJSON_Delete(arr);
		return store_fail(c->db, e, "cannot list cases");
	}
	*out = arr;
	return 0;
}

int corpus_show(struct corpus *c, const char *id, cJSON **out, struct err *e)
{
	*out = NULL;
	struct ccase cc;
	int rc = ccase_load(c, id, &cc, e);
	if (rc)
		return rc;
	cJSON *o = ccase_to_json(&cc);
	cJSON_AddStringToObject(o, "origin", cc.origin);
	ccase_free(&cc);
	cJSON *handles = NULL;
	if ((rc = ccase_handles(c, id, &handles, e)) != 0)
		goto fail;
	cJSON_AddItemToObject(o, "snapshots", handles);
	sqlite3_stmt *q;
	if ((rc = store_stmt(c->db,
			     "SELECT label, note, root_cause, miss, at, by FROM labels WHERE case_id = ?1 ORDER BY id",
			     &q, e)) != 0)
		goto fail;
	store_bind_text(c->db, q, 1, id, e);
	cJSON *labels = cJSON_AddArrayToObject(o, "labels");
	static const char *const ln[] = {"label", "note", "root_cause", "miss", "at", "by"};
	while (sqlite3_step(q) == SQLITE_ROW) {
		cJSON *x = cJSON_CreateObject();
		for (int i = 0; i < 6; i++) {
			if (i == 3)
				cJSON_AddBoolToObject(x, ln[i], sqlite3_column_int(q, i));
			else
				store_column_json(x, ln[i], q, i);
		}
		cJSON_AddItemToArray(labels, x);
	}
	sqlite3_reset(q);
	if ((rc = store_stmt(
		 c->db,
		 "SELECT at, belay_version, outcome, detail FROM (SELECT * FROM case_results WHERE case_id = ?1 "
		 "ORDER BY id DESC LIMIT 10) ORDER BY id",
		 &q, e)) != 0)
		goto fail;
	store_bind_text(c->db, q, 1, id, e);
	cJSON *results = cJSON_AddArrayToObject(o, "results");
	static const char *const rn[] = {"at", "belay_version", "outcome", "detail"};
	while (sqlite3_step(q) == SQLITE_ROW) {
		cJSON *x = cJSON_CreateObject();
		for (int i = 0; i < 4; i++)
			store_column_json(x, rn[i], q, i);
		cJSON_AddItemToArray(results, x);
	}
	sqlite3_reset(q);
	*out = o;
	return 0;
fail:
	cJSON_Delete(o);
	return rc;
}

int corpus_score(struct corpus *c, struct corpus_score *s, struct err *e)
{
	memset(s, 0, sizeof *s);
	sqlite3_stmt *q;
	int rc = store_stmt(
	    c->db, "SELECT c.expected_status, l.label, coalesce(l.miss, 0), l.root_cause FROM cases c " CURRENT_LABEL,
	    &q, e);
	if (rc)
		return rc;
	struct strmap keys;
	strmap_init(&keys);
	int r;
	while ((r = sqlite3_step(q)) == SQLITE_ROW) {
		const char *status = (const char *)sqlite3_column_text(q, 0);
		const char *label = (const char *)sqlite3_column_text(q, 1);
		int miss = sqlite3_column_int(q, 2);
		const char *key = (const char *)sqlite3_column_text(q, 3);
		s->cases++;
		if (!label || !strcmp(label, "pending")) {
			s->pending++;
			continue;
		}
		if (!strcmp(label, "unverifiable")) {
			s->unverifiable++;
			continue;
		}
		int tp = !strcmp(label, "true-positive");
		if (!strcmp(status, "UNVERIFIED")) {
			s->unverified++;
			continue;
		}
		if (!strcmp(status, "FAIL")) {
			if (tp) {
				s->tp++;
				if (key)
					strmap_put(&keys, key, 1);
			} else {
				s->fp++;
			}
		} else if (tp) { /* PASS or WARN: not flagged */
			s->fn++;
			s->fn_missed += miss;
		} else {
			s->tn++;
		}
	}
	sqlite3_reset(q);
	s->root_causes = (long)strmap_count(&keys);
	strmap_free(&keys);
	return r == SQLITE_DONE ? 0 : store_fail(c->db, e, "cannot read cases for the score");
}

int corpus_turn_labels(struct corpus *c, const char *run, void (*fn)(void *ctx, int turn, const char *label, int miss),
		       void *ctx, struct err *e)
{
	sqlite3_stmt *q;
	int rc = store_stmt(c->db,
			    "SELECT c.turn, coalesce(l.label, 'pending'), coalesce(l.miss, 0) FROM cases c " CURRENT_LABEL
			    "WHERE c.run = ?1 AND c.kind = 'turn'",
			    &q, e);
	if (rc)
		return rc;
	store_bind_text(c->db, q, 1, run, e);
	while ((rc = sqlite3_step(q)) == SQLITE_ROW)
		fn(ctx, sqlite3_column_int(q, 0), (const char *)sqlite3_column_text(q, 1), sqlite3_column_int(q, 2));
	sqlite3_reset(q);
	return rc == SQLITE_DONE ? 0 : store_fail(c->db, e, "cannot read the corpus labels");
}
