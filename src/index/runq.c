/* runq.c - read-only queries over the run view and verdicts. See runq.h. */
#include "index/runq.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/hash.h"
#include "common/jsonx.h"
#include "common/xalloc.h"
#include "index/verdict_store.h"
#include "store/store.h"

/* The worst of the latest reduced verdict of every turn of the run (trajectory included). */
#define WORST_SQL                                                                                                      \
	"(SELECT max(CASE v.status WHEN 'PASS' THEN 0 WHEN 'WARN' THEN 1 WHEN 'UNVERIFIED' THEN 2 WHEN 'FAIL' "        \
	"THEN 3 END) FROM verdicts v WHERE v.run = r.id AND v.idx = -1 AND v.verification = (SELECT "                  \
	"max(x.verification) FROM verdicts x JOIN verifications xw ON xw.id = x.verification WHERE x.run = v.run "   \
	"AND x.turn = v.turn AND x.idx = -1 AND xw.kind = 'full'))"

static const char *const rank_names[] = {"PASS", "WARN", "UNVERIFIED", "FAIL"};

/* Adds a column holding JSON text as parsed JSON (or null). */
static void add_json_col(cJSON *o, const char *name, sqlite3_stmt *q, int i)
{
	const unsigned char *t = sqlite3_column_text(q, i);
	cJSON *v = t ? cJSON_Parse((const char *)t) : NULL;
	if (v)
		cJSON_AddItemToObject(o, name, v);
	else
		cJSON_AddNullToObject(o, name);
}

static void add_worst(cJSON *o, sqlite3_stmt *q, int i)
{
	if (sqlite3_column_type(q, i) == SQLITE_NULL) {
		cJSON_AddNullToObject(o, "worst");
		return;
	}
	int k = sqlite3_column_int(q, i);
	cJSON_AddStringToObject(o, "worst", k >= 0 && k <= 3 ? rank_names[k] : "?");
}

int runq_list(struct store *st, int all, cJSON **out, int *hidden, struct err *e)
{
	*out = NULL;
	if (hidden)
		*hidden = 0;
	sqlite3_stmt *q;
	int rc =
	    store_stmt(st,
		       "SELECT r.id, r.started, r.ended, r.server_argv, r.turns, r.denials, r.network_attempts, "
		       "r.trace_path, " WORST_SQL ", (SELECT count(DISTINCT turn) FROM verdicts v JOIN verifications w "
		       "ON w.id = v.verification WHERE v.run = r.id AND v.idx = -1 AND v.turn >= 0 AND w.kind = 'full'), "
		       "r.workspace_writes, " RUNQ_HEALTH_CHECK_SQL ", r.http_upstream FROM runs r ORDER BY r.started, r.id",
		       &q, e);
	if (rc)
		return rc;
	cJSON *arr = cJSON_CreateArray();
	int r;
	while ((r = sqlite3_step(q)) == SQLITE_ROW) {
		int health = sqlite3_column_int(q, 11);
		if (health && !all) {
			if (hidden)
				++*hidden;
			continue;
		}
		cJSON *o = cJSON_CreateObject();
		store_column_json(o, "id", q, 0);
		store_column_json(o, "started", q, 1);
		store_column_json(o, "ended", q, 2);
		add_json_col(o, "server", q, 3);
		if (sqlite3_column_type(q, 12) != SQLITE_NULL) /* a run over HTTP: its server is a URL */
			store_column_json(o, "server_url", q, 12);
		store_column_json(o, "turns", q, 4);
		store_column_json(o, "verified_turns", q, 9);
		add_worst(o, q, 8);
		store_column_json(o, "denials", q, 5);
		store_column_json(o, "network_attempts", q, 6);
		store_column_json(o, "workspace_writes", q, 10);
		cJSON_AddBoolToObject(o, "health_check", health);
		store_column_json(o, "trace_path", q, 7);
		cJSON_AddItemToArray(arr, o);
	}
	sqlite3_reset(q);
	if (r != SQLITE_DONE) {
		cJSON_Delete(arr);
		return store_fail(st, e, "cannot list runs");
	}
	*out = arr;
	return 0;
}

static int denials_of(struct store *st, const char *run, long long turn_seq, cJSON *arr, struct err *e)
{
	sqlite3_stmt *q;
	int rc = store_stmt(st,
			    "SELECT seq, kind, op, target, family, errno, outcome, comm, turn_seq FROM denials "
			    "WHERE run = ?1 AND (?2 IS NULL OR turn_seq = ?2) ORDER BY seq",
			    &q, e);
	if (rc)
		return rc;
	store_bind_text(st, q, 1, run, e);
	if (turn_seq >= 0)
		store_bind_i64(st, q, 2, turn_seq, e);
	static const char *const names[] = {"seq",   "kind",	"op",	"target",  "family",
					    "errno", "outcome", "comm", "turn_seq"};
	int r;
	while ((r = sqlite3_step(q)) == SQLITE_ROW) {
		cJSON *o = cJSON_CreateObject();
		for (int i = 0; i < 9; i++)
			store_column_json(o, names[i], q, i);
		cJSON_AddItemToArray(arr, o);
	}
	sqlite3_reset(q);
	return r == SQLITE_DONE ? 0 : store_fail(st, e, "cannot read denials");
}

#define TURN_COLS                                                                                                      \
	"turn, tool, args, status, latency_us, gate, handle, handle_cause, error, req_seq, resp_seq, t_req, t_resp, "  \
	"method"
static const char *const turn_names[] = {"turn",     "tool",   "args",	       "status", "latency_us",
					 "gate",     "handle", "handle_cause", "error",	 "req_seq",
					 "resp_seq", "t_req",  "t_resp",       "method"};
#define NTURN_COLS 14

int runq_run(struct store *st, const char *run, cJSON **out, struct err *e)
{
	*out = NULL;
	sqlite3_stmt *q;
	int rc = store_stmt(
	    st,
	    "SELECT r.id, r.trace_path, r.indexed_bytes, r.records, r.skipped, r.started, r.ended, r.writer, "
	    "r.server_argv, r.server_cwd, r.server_pid, r.state_dir, r.scope, r.network, r.exit_status, "
	    "r.exit_signal, r.frames, r.turns, r.denials, r.network_attempts, r.capture_errors, " WORST_SQL
	    ", r.http_upstream, r.http_listener FROM runs r WHERE r.id = ?1",
	    &q, e);
	if (rc)
		return rc;
	store_bind_text(st, q, 1, run, e);
	if (sqlite3_step(q) != SQLITE_ROW) {
		sqlite3_reset(q);
		return err_set(e, BELAY_ENOTFOUND,
			       "no run %s in the store (belay runs lists them; belay index TRACE adds one)", run);
	}
	static const char *const names[] = {"id",	   "trace_path",       "indexed_bytes",
					    "records",	   "skipped",	       "started",
					    "ended",	   "writer",	       NULL,
					    NULL,	   "server_pid",       "state_dir",
					    "scope",	   "network",	       "exit_status",
					    "exit_signal", "frames",	       "turns",
					    "denials",	   "network_attempts", "capture_errors"};
	cJSON *o = cJSON_CreateObject();
	for (int i = 0; i < 21; i++) {
		if (i == 8)
			add_json_col(o, "server", q, i);
		else if (i == 9)
			add_json_col(o, "cwd", q, i);
		else
			store_column_json(o, names[i], q, i);
	}
	add_worst(o, q, 21);
	if (sqlite3_column_type(q, 22) != SQLITE_NULL) { /* a run over HTTP (docs/HTTP.md) */
		store_column_json(o, "server_url", q, 22);
		store_column_json(o, "listener", q, 23);
	}
	sqlite3_reset(q);
	const cJSON *tp = cJSON_GetObjectItemCaseSensitive(o, "trace_path"), *ib = cJSON_GetObjectItemCaseSensitive(o, "indexed_bytes");
	struct stat sb;
	if (cJSON_IsString(tp) && cJSON_IsNumber(ib) && stat(tp->valuestring, &sb) == 0 && sb.st_size > ib->valuedouble)
		cJSON_AddNumberToObject(o, "unindexed_bytes", (double)sb.st_size - ib->valuedouble);
	else
		cJSON_AddNumberToObject(o, "unindexed_bytes", 0);

	sqlite3_stmt *t;
	if ((rc = store_stmt(st, "SELECT " TURN_COLS " FROM turns WHERE run = ?1 ORDER BY turn", &t, e)) != 0) {
		cJSON_Delete(o);
		return rc;
	}
	store_bind_text(st, t, 1, run, e);
	cJSON *turns = cJSON_AddArrayToObject(o, "turn_list");
	while (sqlite3_step(t) == SQLITE_ROW) {
		cJSON *x = cJSON_CreateObject();
		for (int i = 0; i < NTURN_COLS; i++)
			store_column_json(x, turn_names[i], t, i);
		cJSON_AddItemToArray(turns, x);
	}
	sqlite3_reset(t);
	cJSON *verdicts = NULL;
	if ((rc = verdict_store_latest(st, run, -1, &verdicts, e)) != 0) {
		cJSON_Delete(o);
		return rc;
	}
	for (cJSON *v = verdicts->child; v; v = v->next) {
		int k = cJSON_GetObjectItemCaseSensitive(v, "turn")->valueint;
		if (k < 0) {
			cJSON_AddItemToObject(o, k == VERDICT_TURN_CENSUS ? "census" : "trajectory", cJSON_Duplicate(v, 1));
			continue;
		}
		cJSON *x = cJSON_GetArrayItem(turns, k);
		if (x)
			cJSON_AddStringToObject(x, "verdict", jx_str(v, "status"));
	}
	cJSON_Delete(verdicts);
	/* Partial re-checks made since, beside the verdicts (never in their place). */
	if ((rc = verdict_store_rechecks(st, run, -1, &verdicts, e)) != 0) {
		cJSON_Delete(o);
		return rc;
	}
	for (cJSON *v = verdicts->child; v; v = v->next) {
		cJSON *x = cJSON_GetArrayItem(turns, cJSON_GetObjectItemCaseSensitive(v, "turn")->valueint);
		if (x)
			cJSON_AddStringToObject(x, "recheck", jx_str(v, "status"));
	}
	cJSON_Delete(verdicts);
	cJSON *den = cJSON_AddArrayToObject(o, "denial_list");
	if ((rc = denials_of(st, run, -1, den, e)) != 0) {
		cJSON_Delete(o);
		return rc;
	}
	*out = o;
	return 0;
}

int runq_frame_record(const char *trace_path, long long off, long long len, struct buf *out, cJSON **record,
		      struct err *e)
{
	if (record)
		*record = NULL;
	if (off < 0 || len <= 0 || len > ((long long)1 << 31))
		return err_set(e, BELAY_EINVAL, "bad frame offset");
	int fd = open(trace_path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return err_set(e, -errno, "cannot open the trace %s: %s (was it moved? belay index it again)",
			       trace_path, strerror(errno));
	char *line = xmalloc((size_t)len + 1);
	ssize_t got = pread(fd, line, (size_t)len, (off_t)off);
	close(fd);
	int rc = 0;
	cJSON *o = NULL;
	if (got != len || line[len - 1] != '\n' || !(o = cJSON_ParseWithLength(line, (size_t)len - 1)) ||
	    !jx_str(o, "raw")) {
		rc = err_set(e, BELAY_ECORRUPT,
			     "%s changed since it was indexed (no frame at byte %lld); belay index it again",
			     trace_path, off);
		goto out;
	}
	const char *raw = jx_str(o, "raw"), *h = jx_str(o, "hash_raw");
	size_t start = out->len;
	char want[72];
	if (base64_decode(raw, strlen(raw), out) != 0 ||
	    (sha256_tagged(out->p + start, out->len - start, want), !h || strcmp(h, want) != 0)) {
		out->len = start;
		rc = err_set(e, BELAY_ECORRUPT, "%s: the frame at byte %lld does not match its hash_raw", trace_path,
			     off);
	}
out:
	if (rc == 0 && record) {
		cJSON_DeleteItemFromObjectCaseSensitive(o, "raw");
		*record = o;
		o = NULL;
	}
	cJSON_Delete(o);
	free(line);
	return rc;
}

int runq_frame_bytes(const char *trace_path, long long off, long long len, struct buf *out, struct err *e)
{
	return runq_frame_record(trace_path, off, len, out, NULL, e);
}

/* {"seq","bytes","json"|"text"} of a frame, read through the index. */
static cJSON *frame_json(struct store *st, const char *run, const char *trace_path, long long seq, struct err *e)
{
	sqlite3_stmt *q;
	if (store_stmt(st, "SELECT off, len FROM frames WHERE run = ?1 AND seq = ?2", &q, e) != 0)
		return NULL;
	store_bind_text(st, q, 1, run, e);
	store_bind_i64(st, q, 2, seq, e);
	if (sqlite3_step(q) != SQLITE_ROW) {
		sqlite3_reset(q);
		return NULL;
	}
	long long off = sqlite3_column_int64(q, 0), len = sqlite3_column_int64(q, 1);
	sqlite3_reset(q);
	cJSON *o = cJSON_CreateObject();
	cJSON_AddNumberToObject(o, "seq", (double)seq);
	cJSON_AddNumberToObject(o, "offset", (double)off);
	struct buf b = {0};
	struct err fe = {0};
	if (runq_frame_bytes(trace_path, off, len, &b, &fe) != 0) {
		cJSON_AddStringToObject(o, "error", fe.msg);
	} else {
		cJSON *j = cJSON_ParseWithLength(b.p ? b.p : "", b.len);
		if (j)
			cJSON_AddItemToObject(o, "json", j);
		else
			cJSON_AddItemToObject(o, "text", jx_bytes(b.p ? b.p : "", b.len));
	}
	buf_free(&b);
	return o;
}

int runq_turn(struct store *st, const char *run, int turn, cJSON **out, struct err *e)
{
	*out = NULL;
	sqlite3_stmt *q;
	int rc = store_stmt(st, "SELECT trace_path FROM runs WHERE id = ?1", &q, e);
	if (rc)
		return rc;
	store_bind_text(st, q, 1, run, e);
	if (sqlite3_step(q) != SQLITE_ROW) {
		sqlite3_reset(q);
		return err_set(e, BELAY_ENOTFOUND, "no run %s in the store", run);
	}
	char *trace_path = xstrdup((const char *)sqlite3_column_text(q, 0));
	sqlite3_reset(q);
	sqlite3_stmt *t;
	if ((rc = store_stmt(st, "SELECT " TURN_COLS " FROM turns WHERE run = ?1 AND turn = ?2", &t, e)) != 0) {
		free(trace_path);
		return rc;
	}
	store_bind_text(st, t, 1, run, e);
	store_bind_i64(st, t, 2, turn, e);
	if (sqlite3_step(t) != SQLITE_ROW) {
		sqlite3_reset(t);
		free(trace_path);
		return err_set(e, BELAY_ENOTFOUND, "run %s has no turn %d", run, turn);
	}
	cJSON *o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "run", run);
	for (int i = 0; i < NTURN_COLS; i++)
		store_column_json(o, turn_names[i], t, i);
	long long req_seq = sqlite3_column_int64(t, 9);
	int has_resp = sqlite3_column_type(t, 10) != SQLITE_NULL;
	long long resp_seq = sqlite3_column_int64(t, 10);
	sqlite3_reset(t);
	cJSON *req = frame_json(st, run, trace_path, req_seq, e);
	if (req)
		cJSON_AddItemToObject(o, "request", req);
	cJSON *resp = has_resp ? frame_json(st, run, trace_path, resp_seq, e) : NULL;
	if (resp)
		cJSON_AddItemToObject(o, "response", resp);
	free(trace_path);
	cJSON *den = cJSON_AddArrayToObject(o, "denial_list");
	if ((rc = denials_of(st, run, req_seq, den, e)) != 0) {
		cJSON_Delete(o);
		return rc;
	}
	cJSON *verdicts = NULL;
	if ((rc = verdict_store_latest(st, run, turn, &verdicts, e)) != 0) {
		cJSON_Delete(o);
		return rc;
	}
	cJSON *first = cJSON_DetachItemFromArray(verdicts, 0);
	cJSON_Delete(verdicts);
	if (first)
		cJSON_AddItemToObject(o, "verdict", first);
	else
		cJSON_AddNullToObject(o, "verdict");
	if ((rc = verdict_store_rechecks(st, run, turn, &verdicts, e)) != 0) {
		cJSON_Delete(o);
		return rc;
	}
	first = cJSON_DetachItemFromArray(verdicts, 0);
	cJSON_Delete(verdicts);
	if (first)
		cJSON_AddItemToObject(o, "recheck", first);
	else
		cJSON_AddNullToObject(o, "recheck");
	*out = o;
	return 0;
}

long long runq_unindexed_bytes(struct store *st, const char *run)
{
	sqlite3_stmt *q;
	struct err e = {0};
	if (store_stmt(st, "SELECT trace_path, indexed_bytes FROM runs WHERE id = ?1", &q, &e) != 0)
		return -1;
	store_bind_text(st, q, 1, run, &e);
	long long n = -1;
	if (sqlite3_step(q) == SQLITE_ROW && sqlite3_column_text(q, 0)) {
		struct stat sb;
		long long done = sqlite3_column_int64(q, 1);
		if (stat((const char *)sqlite3_column_text(q, 0), &sb) == 0)
			n = (long long)sb.st_size > done ? (long long)sb.st_size - done : 0;
	}
	sqlite3_reset(q);
	return n;
}

char *runq_trace_path(struct store *st, const char *run, struct err *e)
{
	sqlite3_stmt *q;
	const char *sql = run ? "SELECT trace_path FROM runs WHERE id = ?1"
			      : "SELECT trace_path FROM runs WHERE scope IS NOT NULL ORDER BY started DESC, id DESC LIMIT 1";
	if (store_stmt(st, sql, &q, e) != 0)
		return NULL;
	if (run)
		store_bind_text(st, q, 1, run, e);
	char *out = NULL;
	if (sqlite3_step(q) == SQLITE_ROW && sqlite3_column_text(q, 0))
		out = xstrdup((const char *)sqlite3_column_text(q, 0));
	sqlite3_reset(q);
	if (!out)
		err_set(e, BELAY_ENOTFOUND, run ? "no run '%s' in the store (belay runs lists them)" : "%s",
			run ? run : "no contained run in the store");
	return out;
}

/* The rows of sql (bound to bind when not NULL) as [{names[i]: column i}]. */
static int rows_json(struct store *st, const char *sql, const char *bind, const char *const *names, int n, cJSON **out,
		     struct err *e)
{
	*out = NULL;
	sqlite3_stmt *q;
	int rc = store_stmt(st, sql, &q, e);
	if (rc)
		return rc;
	if (bind)
		store_bind_text(st, q, 1, bind, e);
	cJSON *a = cJSON_CreateArray();
	while (sqlite3_step(q) == SQLITE_ROW) {
		cJSON *o = cJSON_CreateObject();
		for (int i = 0; i < n; i++)
			store_column_json(o, names[i], q, i);
		cJSON_AddItemToArray(a, o);
	}
	sqlite3_reset(q);
	*out = a;
	return 0;
}

int runq_contained_runs(struct store *st, cJSON **out, struct err *e)
{
	static const char *const names[] = {"id", "started", "turns", "scope"};
	return rows_json(st, "SELECT id, started, turns, scope FROM runs WHERE scope IS NOT NULL ORDER BY started", NULL, names,
			 4, out, e);
}

int runq_turn_states(struct store *st, const char *run, cJSON **out, struct err *e)
{
	static const char *const names[] = {"turn", "tool", "gate", "handle", "handle_cause"};
	return rows_json(st, "SELECT turn, tool, gate, handle, handle_cause FROM turns WHERE run = ?1 ORDER BY turn", run,
			 names, 5, out, e);
}

void runq_counts(struct store *st, const char *run, int *turns, int *frames, int *denials)
{
	*turns = *frames = *denials = -1;
	sqlite3_stmt *q;
	struct err e = {0};
	if (store_stmt(st, "SELECT turns, frames, denials + network_attempts FROM runs WHERE id = ?1", &q, &e) != 0)
		return;
	store_bind_text(st, q, 1, run, &e);
	if (sqlite3_step(q) == SQLITE_ROW) {
		*turns = sqlite3_column_int(q, 0);
		*frames = sqlite3_column_int(q, 1);
		*denials = sqlite3_column_int(q, 2);
	}
	sqlite3_reset(q);
}

int runq_run_exists(struct store *st, const char *run, struct err *e)
{
	sqlite3_stmt *q;
	int rc = store_stmt(st, "SELECT 1 FROM runs WHERE id = ?1", &q, e);
	if (rc)
		return rc;
	store_bind_text(st, q, 1, run, e);
	int found = sqlite3_step(q) == SQLITE_ROW;
	sqlite3_reset(q);
	return found;
}

int runq_open_hook_runs(struct store *st, cJSON **out, struct err *e)
{
	static const char *const names[] = {"run", "agent", "session", "started", "turns"};
	return rows_json(st,
			 "SELECT id, agent, session, started, turns FROM runs WHERE agent IS NOT NULL AND ended IS NULL "
			 "ORDER BY started",
			 NULL, names, 5, out, e);
}
