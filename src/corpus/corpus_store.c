/* corpus_store.c - opening the corpus, case ids, case rows in and out of the store and
 * their JSON form. See corpus.h and corpus_internal.h. Must not: print, write labels. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/hash.h"
#include "common/jsonx.h"
#include "common/xalloc.h"
#include "corpus/corpus_internal.h"
#include "snapshot/snap_transfer.h"
#include "snapshot/snapshot.h"
#include "index/statedb.h"
#include "index/verdict_store.h"
#include "store/store.h"

int corpus_open(const char *state_dir, struct corpus **out, struct err *e)
{
	*out = NULL;
	struct snap_store *st = NULL;
	int rc = snap_store_open(state_dir, NULL, &st, e);
	if (rc)
		return rc;
	struct corpus *c = xcalloc(1, sizeof *c);
	c->snap = st;
	c->db = snap_store_sql(st);
	c->dir = xstrdup(snap_store_dir(st));
	corpus_label_guard(c->db);
	*out = c;
	return 0;
}

int corpus_open_read(const char *state_dir, struct corpus **out, struct err *e)
{
	*out = NULL;
	struct store *db = NULL;
	int rc = statedb_open_read(state_dir, &db, e);
	if (rc)
		return rc;
	struct corpus *c = xcalloc(1, sizeof *c);
	c->db = db;
	c->dir = xstrdup(state_dir);
	corpus_label_guard(c->db);
	*out = c;
	return 0;
}

struct corpus *corpus_borrow(struct store *db, const char *state_dir)
{
	struct corpus *c = xcalloc(1, sizeof *c);
	c->db = db;
	c->dir = xstrdup(state_dir ? state_dir : "");
	c->borrowed = 1;
	return c;
}

void corpus_close(struct corpus *c)
{
	if (!c)
		return;
	if (c->borrowed)
		;
	else if (c->snap)
		snap_store_close(c->snap);
	else
		store_close(c->db);
	free(c->dir);
	free(c);
}

struct store *corpus_db(struct corpus *c)
{
	return c->db;
}

struct snap_store *corpus_snapshots(struct corpus *c)
{
	return c->snap;
}

const char *corpus_state_dir(const struct corpus *c)
{
	return c->dir;
}

char *corpus_case_id(const char *run, int turn)
{
	char *id = turn >= 0 ? xasprintf("%s-turn%d", run, turn) : xasprintf("%s-trajectory", run);
	for (char *p = id; *p; p++) {
		unsigned char ch = (unsigned char)*p;
		if (!((ch >= 'A' && ch <= 'Z') || (ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9') || ch == '_' ||
		      ch == '.' || ch == '-'))
			*p = '_';
	}
	return id;
}

const char *corpus_outcome_name(enum corpus_outcome o)
{
	static const char *const names[] = {"MATCH", "REGRESSION", "SKIP", "STILL_MISSED", "MISS_CLOSED"};
	return o < CO_NOUTCOMES ? names[o] : "(unrecognised outcome)";
}

void corpus_ratio(long num, long den, char out[16])
{
	if (den <= 0)
		snprintf(out, 16, "n/a");
	else
		snprintf(out, 16, "%.2f", (double)num / (double)den);
}

/*==== case rows ====*/

void ccase_free(struct ccase *cc)
{
	char **s[] = {&cc->id,
		      &cc->kind,
		      &cc->run,
		      &cc->tool,
		      &cc->created,
		      &cc->belay_version,
		      &cc->origin,
		      &cc->platform,
		      &cc->server_argv,
		      &cc->server_cwd,
		      &cc->scope,
		      &cc->policy,
		      &cc->handle,
		      &cc->task_handle,
		      &cc->expected_status,
		      &cc->expected_cause,
		      &cc->expected};
	for (size_t i = 0; i < sizeof s / sizeof s[0]; i++)
		free(*s[i]);
	memset(cc, 0, sizeof *cc);
}

static char *col(sqlite3_stmt *q, int i)
{
	const unsigned char *t = sqlite3_column_text(q, i);
	return t ? xstrdup((const char *)t) : NULL;
}

int ccase_load(struct corpus *c, const char *id, struct ccase *cc, struct err *e)
{
	memset(cc, 0, sizeof *cc);
	sqlite3_stmt *q;
	int rc = store_stmt(c->db,
			    "SELECT id, kind, run, turn, tool, created, belay_version, origin, platform, server_argv, "
			    "server_cwd, scope, policy, replays, timeout_ms, handle, task_handle, expected_status, "
			    "expected_cause, expected FROM cases WHERE id = ?1",
			    &q, e);
	if (rc)
		return rc;
	store_bind_text(c->db, q, 1, id, e);
	int r = sqlite3_step(q);
	if (r != SQLITE_ROW) {
		sqlite3_reset(q);
		return r == SQLITE_DONE ? err_set(e, BELAY_ENOTFOUND, "no case %s (belay corpus list shows them)", id)
					: store_fail(c->db, e, "cannot read the case");
	}
	cc->id = col(q, 0);
	cc->kind = col(q, 1);
	cc->run = col(q, 2);
	cc->turn = sqlite3_column_type(q, 3) == SQLITE_NULL ? -1 : sqlite3_column_int(q, 3);
	cc->tool = col(q, 4);
	cc->created = col(q, 5);
	cc->belay_version = col(q, 6);
	cc->origin = col(q, 7);
	cc->platform = col(q, 8);
	cc->server_argv = col(q, 9);
	cc->server_cwd = col(q, 10);
	cc->scope = col(q, 11);
	cc->policy = col(q, 12);
	cc->replays = sqlite3_column_int(q, 13);
	cc->timeout_ms = sqlite3_column_int64(q, 14);
	cc->handle = col(q, 15);
	cc->task_handle = col(q, 16);
	cc->expected_status = col(q, 17);
	cc->expected_cause = col(q, 18);
	cc->expected = col(q, 19);
	sqlite3_reset(q);
	return 0;
}

int ccase_exists(struct corpus *c, const char *id, struct err *e)
{
	sqlite3_stmt *q;
	int rc = store_stmt(c->db, "SELECT 1 FROM cases WHERE id = ?1", &q, e);
	if (rc)
		return rc;
	store_bind_text(c->db, q, 1, id, e);
	int r = sqlite3_step(q);
	sqlite3_reset(q);
	if (r == SQLITE_ROW)
		return 1;
	return r == SQLITE_DONE ? 0 : store_fail(c->db, e, "cannot look the case up");
}

int ccase_trace(struct corpus *c, const char *id, struct buf *out, struct err *e)
{
	sqlite3_stmt *q;
	int rc = store_stmt(c->db, "SELECT sha256, trace FROM case_traces WHERE case_id = ?1", &q, e);
	if (rc)
		return rc;
	store_bind_text(c->db, q, 1, id, e);
	if (sqlite3_step(q) != SQLITE_ROW) {
		sqlite3_reset(q);
		return err_set(e, BELAY_ECORRUPT, "case %s has no trace", id);
	}
	const unsigned char *sha = sqlite3_column_text(q, 0);
	const void *p = sqlite3_column_blob(q, 1);
	size_t n = (size_t)sqlite3_column_bytes(q, 1);
	uint8_t d[SHA256_LEN];
	char hex[SHA256_HEX_LEN + 1];
	sha256(p ? p : "", n, d);
	hex_encode(d, SHA256_LEN, hex);
	if (!sha || strcmp((const char *)sha, hex) != 0)
		rc = err_set(e, BELAY_ECORRUPT, "case %s: its stored trace does not match its sha256", id);
	else
		buf_append(out, p ? p : "", n);
	sqlite3_reset(q);
	return rc;
}

int ccase_handles(struct corpus *c, const char *id, cJSON **out, struct err *e)
{
	*out = NULL;
	sqlite3_stmt *q;
	int rc = store_stmt(c->db, "SELECT handle, role FROM case_snapshots WHERE case_id = ?1 ORDER BY role, handle",
			    &q, e);
	if (rc)
		return rc;
	store_bind_text(c->db, q, 1, id, e);
	cJSON *arr = cJSON_CreateArray();
	int r;
	while ((r = sqlite3_step(q)) == SQLITE_ROW) {
		cJSON *o = cJSON_CreateObject();
		cJSON_AddStringToObject(o, "handle", (const char *)sqlite3_column_text(q, 0));
		cJSON_AddStringToObject(o, "role", (const char *)sqlite3_column_text(q, 1));
		cJSON_AddItemToArray(arr, o);
	}
	sqlite3_reset(q);
	if (r != SQLITE_DONE) {
		cJSON_Delete(arr);
		return store_fail(c->db, e, "cannot read the case's snapshots");
	}
	*out = arr;
	return 0;
}

int ccase_insert(struct corpus *c, const struct ccase *cc, const void *trace, size_t trace_len, const cJSON *handles,
		 struct err *e)
{
	struct store *db = c->db;
	sqlite3_stmt *q;
	int rc =
	    store_stmt(db,
		       "INSERT INTO cases(id, kind, run, turn, tool, created, belay_version, origin, platform, "
		       "server_argv, server_cwd, scope, policy, replays, timeout_ms, handle, task_handle, "
		       "expected_status, expected_cause, expected) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, "
		       "?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20)",
		       &q, e);
	if (rc)
		return rc;
	store_bind_text(db, q, 1, cc->id, e);
	store_bind_text(db, q, 2, cc->kind, e);
	store_bind_text(db, q, 3, cc->run, e);
	if (cc->turn >= 0)
		store_bind_i64(db, q, 4, cc->turn, e);
	store_bind_text(db, q, 5, cc->tool, e);
	store_bind_text(db, q, 6, cc->created, e);
	store_bind_text(db, q, 7, cc->belay_version, e);
	store_bind_text(db, q, 8, cc->origin, e);
	store_bind_text(db, q, 9, cc->platform, e);
	store_bind_text(db, q, 10, cc->server_argv, e);
	store_bind_text(db, q, 11, cc->server_cwd, e);
	store_bind_text(db, q, 12, cc->scope, e);
	store_bind_text(db, q, 13, cc->policy, e);
	store_bind_i64(db, q, 14, cc->replays, e);
	store_bind_i64(db, q, 15, cc->timeout_ms, e);
	store_bind_text(db, q, 16, cc->handle, e);
	store_bind_text(db, q, 17, cc->task_handle, e);
	store_bind_text(db, q, 18, cc->expected_status, e);
	store_bind_text(db, q, 19, cc->expected_cause, e);
	store_bind_text(db, q, 20, cc->expected, e);
	if ((rc = store_step_done(db, q, e, "cannot add the case")) != 0)
		return rc;
	if ((rc = store_stmt(db, "INSERT INTO case_traces(case_id, sha256, trace) VALUES (?1, ?2, ?3)", &q, e)) != 0)
		return rc;
	uint8_t d[SHA256_LEN];
	char hex[SHA256_HEX_LEN + 1];
	sha256(trace, trace_len, d);
	hex_encode(d, SHA256_LEN, hex);
	store_bind_text(db, q, 1, cc->id, e);
	store_bind_text(db, q, 2, hex, e);
	store_bind_blob(db, q, 3, trace, trace_len, e);
	if ((rc = store_step_done(db, q, e, "cannot add the case's trace")) != 0)
		return rc;
	for (const cJSON *h = handles ? handles->child : NULL; h && rc == 0; h = h->next) {
		const char *handle = jx_str(h, "handle"), *role = jx_str(h, "role");
		if ((rc = store_stmt(db,
				     "INSERT OR IGNORE INTO case_snapshots(case_id, handle, role) VALUES (?1, ?2, ?3)",
				     &q, e)) != 0)
			break;
		store_bind_text(db, q, 1, cc->id, e);
		store_bind_text(db, q, 2, handle, e);
		store_bind_text(db, q, 3, role, e);
		if ((rc = store_step_done(db, q, e, "cannot list the case's snapshot")) == 0)
			rc = snap_ref_add(c->snap, handle, "case", cc->id, e);
	}
	return rc;
}

int ccase_label(struct corpus *c, const char *id, char label[24], int *miss, struct err *e)
{
	snprintf(label, 24, "pending");
	*miss = 0;
	sqlite3_stmt *q;
	int rc = store_stmt(c->db, "SELECT label, miss FROM labels WHERE case_id = ?1 ORDER BY id DESC LIMIT 1", &q, e);
	if (rc)
		return rc;
	store_bind_text(c->db, q, 1, id, e);
	int r = sqlite3_step(q);
	if (r == SQLITE_ROW) {
		snprintf(label, 24, "%s", (const char *)sqlite3_column_text(q, 0));
		*miss = sqlite3_column_int(q, 1);
	}
	sqlite3_reset(q);
	return r == SQLITE_ROW || r == SQLITE_DONE ? 0 : store_fail(c->db, e, "cannot read the label");
}

/*==== JSON form ====*/

static void add_str(cJSON *o, const char *k, const char *v)
{
	if (v)
		cJSON_AddStringToObject(o, k, v);
	else
		cJSON_AddNullToObject(o, k);
}

static void add_raw_json(cJSON *o, const char *k, const char *text)
{
	cJSON *v = text ? cJSON_Parse(text) : NULL;
	if (v)
		cJSON_AddItemToObject(o, k, v);
	else
		cJSON_AddNullToObject(o, k);
}

cJSON *ccase_to_json(const struct ccase *cc)
{
	cJSON *o = cJSON_CreateObject();
	add_str(o, "id", cc->id);
	add_str(o, "kind", cc->kind);
	add_str(o, "run", cc->run);
	if (cc->turn >= 0)
		cJSON_AddNumberToObject(o, "turn", cc->turn);
	else
		cJSON_AddNullToObject(o, "turn");
	add_str(o, "tool", cc->tool);
	add_str(o, "created", cc->created);
	add_str(o, "belay_version", cc->belay_version);
	add_str(o, "platform", cc->platform);
	add_raw_json(o, "server_argv", cc->server_argv);
	add_raw_json(o, "server_cwd", cc->server_cwd);
	add_str(o, "scope", cc->scope);
	add_raw_json(o, "policy", cc->policy);
	cJSON_AddNumberToObject(o, "replays", cc->replays);
	cJSON_AddNumberToObject(o, "timeout_ms", (double)cc->timeout_ms);
	add_str(o, "handle", cc->handle);
	add_str(o, "task_handle", cc->task_handle);
	add_str(o, "expected_status", cc->expected_status);
	add_str(o, "expected_cause", cc->expected_cause);
	add_raw_json(o, "expected", cc->expected);
	return o;
}

static int opt_str(const cJSON *j, const char *k, char **out, int required, struct err *e)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(j, k);
	if (cJSON_IsString(v)) {
		*out = xstrdup(v->valuestring);
		return 0;
	}
	if (!required && (!v || cJSON_IsNull(v)))
		return 0;
	return err_set(e, BELAY_EINVAL, "case: \"%s\" is missing or not a string", k);
}

int ccase_from_json(const cJSON *j, struct ccase *cc, struct err *e)
{
	memset(cc, 0, sizeof *cc);
	int rc = 0;
	if (!cJSON_IsObject(j))
		return err_set(e, BELAY_EINVAL, "case: not a JSON object");
	if ((rc = opt_str(j, "id", &cc->id, 1, e)) || (rc = opt_str(j, "kind", &cc->kind, 1, e)) ||
	    (rc = opt_str(j, "run", &cc->run, 1, e)) || (rc = opt_str(j, "tool", &cc->tool, 0, e)) ||
	    (rc = opt_str(j, "created", &cc->created, 1, e)) ||
	    (rc = opt_str(j, "belay_version", &cc->belay_version, 1, e)) ||
	    (rc = opt_str(j, "platform", &cc->platform, 1, e)) || (rc = opt_str(j, "scope", &cc->scope, 0, e)) ||
	    (rc = opt_str(j, "handle", &cc->handle, 0, e)) ||
	    (rc = opt_str(j, "task_handle", &cc->task_handle, 0, e)) ||
	    (rc = opt_str(j, "expected_status", &cc->expected_status, 1, e)) ||
	    (rc = opt_str(j, "expected_cause", &cc->expected_cause, 0, e)))
		goto fail;
	int traj = !strcmp(cc->kind, "trajectory");
	if (!traj && strcmp(cc->kind, "turn")) {
		rc = err_set(e, BELAY_EINVAL, "case: kind must be turn or trajectory");
		goto fail;
	}
	long long turn = -1;
	const cJSON *tv = cJSON_GetObjectItemCaseSensitive(j, "turn");
	if (traj ? !cJSON_IsNull(tv) : !jx_int(j, "turn", 0, 1 << 30, &turn)) {
		rc = err_set(e, BELAY_EINVAL, "case: \"turn\" must be a turn number (null for a trajectory)");
		goto fail;
	}
	cc->turn = (int)turn;
	char *want = corpus_case_id(cc->run, cc->turn);
	int id_ok = !strcmp(want, cc->id);
	free(want);
	if (!id_ok) {
		rc = err_set(e, BELAY_EINVAL, "case: id %s does not belong to run %s %s %d", cc->id, cc->run, cc->kind,
			     cc->turn);
		goto fail;
	}
	if ((cc->handle && !snap_handle_valid(cc->handle)) ||
	    (cc->task_handle && !snap_handle_valid(cc->task_handle)) || (!traj && !cc->handle)) {
		rc = err_set(e, BELAY_EINVAL, "case: malformed or missing pre-state handle");
		goto fail;
	}
	const cJSON *argv = cJSON_GetObjectItemCaseSensitive(j, "server_argv");
	if (!cJSON_IsArray(argv) || !argv->child) {
		rc = err_set(e, BELAY_EINVAL, "case: \"server_argv\" must be a non-empty list");
		goto fail;
	}
	struct buf b = {0};
	for (const cJSON *a = argv->child; a; a = a->next)
		if (jx_bytes_decode(a, &b) != 0) {
			buf_free(&b);
			rc = err_set(e, BELAY_EINVAL,
				     "case: \"server_argv\" items must be strings or {\"base64\": ...}");
			goto fail;
		}
	buf_free(&b);
	cc->server_argv = jx_print(argv);
	const cJSON *cwd = cJSON_GetObjectItemCaseSensitive(j, "server_cwd");
	if (cwd && !cJSON_IsNull(cwd))
		cc->server_cwd = jx_print(cwd);
	const cJSON *pol = cJSON_GetObjectItemCaseSensitive(j, "policy");
	struct policy p = {0};
	char *ptext = pol ? jx_print(pol) : NULL;
	if (!ptext || (rc = policy_parse(&p, ptext, strlen(ptext), "case policy", e)) != 0) {
		policy_free(&p); /* policy_parse keeps the items before the bad one */
		free(ptext);
		if (!rc)
			rc = err_set(e, BELAY_EINVAL, "case: no \"policy\"");
		goto fail;
	}
	policy_free(&p);
	cc->policy = ptext;
	long long replays, timeout;
	if (!jx_int(j, "replays", 3, 1000, &replays) || !jx_int(j, "timeout_ms", 1, 3600 * 1000, &timeout)) {
		rc = err_set(e, BELAY_EINVAL, "case: \"replays\" (>= 3) or \"timeout_ms\" out of range");
		goto fail;
	}
	cc->replays = (int)replays;
	cc->timeout_ms = timeout;
	const cJSON *exp = cJSON_GetObjectItemCaseSensitive(j, "expected");
	struct turn_verdict v;
	if ((rc = verdict_from_json(exp, &v, e)) != 0) {
		err_wrap(e, "case: expected verdict");
		goto fail;
	}
	enum vstatus es;
	int agree = vstatus_parse(cc->expected_status, &es) == 0 && es == v.status && v.turn == cc->turn &&
		    !strcmp(v.cause, cc->expected_cause ? cc->expected_cause : "");
	verdict_free(&v);
	if (!agree) {
		rc = err_set(e, BELAY_EINVAL,
			     "case: the expected verdict disagrees with expected_status, its cause or turn");
		goto fail;
	}
	cc->expected = jx_print(exp);
	if (strcmp(cc->platform, "linux")) {
		rc = err_set(e, BELAY_EINVAL, "case: captured on %s; this belay replays linux cases", cc->platform);
		goto fail;
	}
	return 0;
fail:
	ccase_free(cc);
	return rc;
}
