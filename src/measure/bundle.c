/* bundle.c - a trace with the pre-state objects it refers to, written and imported through
 * the snapshot-carrying file of snap_xfile.h. See bundle.h. */
#include "measure/bundle.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/buf.h"
#include "common/fsutil.h"
#include "common/jsonx.h"
#include "common/strmap.h"
#include "common/xalloc.h"
#include "engine/trace_reader.h"
#include "measure/batch.h"
#include "snapshot/snap_transfer.h"
#include "snapshot/snap_xfile.h"
#include "store/store.h"

static const struct snap_xfile_kind bundle_kind = {"BELAYTB1", "belay-trace-bundle", "belay trace bundle"};

int bundle_write(const char *trace_path, const char *state_dir, const char *out_path, struct bundle_stats *stats,
		 struct err *e)
{
	struct trace *t = NULL;
	struct snap_store *st = NULL;
	struct buf raw = {0};
	const char **have = NULL;
	size_t nh = 0, cap = 0;
	struct strmap seen;
	strmap_init(&seen);
	int locked = 0;
	int rc = trace_read(trace_path, &t, e);
	if (rc == 0)
		rc = fs_read_file(trace_path, (size_t)1 << 30, &raw, e);
	if (rc == 0)
		rc = snap_store_open(state_dir, NULL, &st, e);
	if (rc == 0 && (rc = snap_transfer_lock(st, e)) == 0)
		locked = 1;
	if (rc)
		goto out;
	char *id = measure_trace_id(trace_path);
	cJSON *head = cJSON_CreateObject();
	cJSON_AddStringToObject(head, "format", bundle_kind.format);
	cJSON_AddNumberToObject(head, "version", 1);
	cJSON_AddStringToObject(head, "trace_id", id);
	cJSON_AddStringToObject(head, "exported_by", "belay " BELAY_VERSION_STRING);
	cJSON *hl = cJSON_AddArrayToObject(head, "handles");
	cJSON *missing = cJSON_AddArrayToObject(head, "missing");
	free(id);
	for (size_t i = 0; i < t->n && rc == 0; i++) {
		const cJSON *sh = t->recs[i].state_handle;
		const char *status = sh ? jx_str(sh, "status") : NULL;
		const char *h = status && !strcmp(status, "present") ? jx_str(sh, "handle") : NULL;
		int64_t dummy;
		if (!h || !snap_handle_valid(h) || strmap_get(&seen, h, &dummy))
			continue;
		strmap_put(&seen, h, 1);
		int ok = snap_handle_exists(st, h, NULL, e);
		if (ok < 0) {
			rc = ok;
			break;
		}
		if (!ok) {
			cJSON *m = cJSON_CreateObject();
			cJSON_AddStringToObject(m, "handle", h);
			cJSON_AddNumberToObject(m, "seq", (double)t->recs[i].seq);
			cJSON_AddItemToArray(missing, m);
			continue;
		}
		cJSON_AddItemToArray(hl, cJSON_CreateString(h));
		have = xgrow_zeroed(have, &cap, nh, sizeof *have, 64);
		have[nh++] = cJSON_GetArrayItem(hl, cJSON_GetArraySize(hl) - 1)->valuestring;
	}
	if (rc) {
		cJSON_Delete(head);
		goto out;
	}
	uint64_t nmissing = (uint64_t)cJSON_GetArraySize(missing);
	struct snap_xfile_stats xs = {0};
	rc = snap_xfile_write(st, &bundle_kind, out_path, head, have, nh, raw.p, raw.len, &xs, e);
	if (rc == 0 && stats) {
		memset(stats, 0, sizeof *stats);
		stats->bytes = xs.bytes;
		stats->objects = xs.objects;
		stats->object_bytes = xs.object_bytes;
		stats->snapshots = nh;
		stats->missing = nmissing;
	}
out:
	if (locked)
		snap_transfer_unlock(st);
	snap_store_close(st);
	free(have);
	strmap_free(&seen);
	buf_free(&raw);
	trace_free(t);
	return rc;
}

int bundle_peek(const char *path, char sha[65], char **trace_id, struct err *e)
{
	cJSON *head = NULL;
	*trace_id = NULL;
	int rc = snap_xfile_peek(&bundle_kind, path, &head, e);
	const char *s = rc ? NULL : jx_str(head, "trace_sha256"), *id = rc ? NULL : jx_str(head, "trace_id");
	if (!rc && (!s || strlen(s) != 64 || !id))
		rc = err_set(e, BELAY_ECORRUPT, "%s: the bundle header names no trace", path);
	if (!rc) {
		snprintf(sha, 65, "%s", s);
		*trace_id = xstrdup(id);
	}
	cJSON_Delete(head);
	return rc;
}

int bundle_import(const char *path, const char *state_dir, const char *scratch_dir, char **trace_out,
		  struct bundle_stats *stats, struct err *e)
{
	*trace_out = NULL;
	struct snap_store *st = NULL;
	struct snap_xfile_in x = {0};
	char *tpath = NULL;
	int rc = snap_store_open(state_dir, NULL, &st, e), locked = 0, verified = 0;
	if (rc == 0 && (rc = snap_xfile_verify(st, &bundle_kind, path, &x, e)) == 0)
		verified = 1;
	if (rc)
		goto out;
	const char *id = jx_str(x.head, "trace_id");
	const cJSON *snaps = cJSON_GetObjectItemCaseSensitive(x.head, "snapshots");
	if (!id || !*id || strchr(id, '/') || !strcmp(id, ".") || !strcmp(id, "..")) {
		rc = err_set(e, BELAY_ECORRUPT, "%s: the bundle's trace id is missing or not a file name", path);
		goto out;
	}
	/* the trace must read as a trace before anything is stored */
	char *name = xasprintf("%s.jsonl", id);
	tpath = fs_join(scratch_dir, name);
	free(name);
	if ((rc = fs_write_file_atomic(tpath, x.trace.p, x.trace.len, 0600, e)) != 0)
		goto out;
	struct trace *t = NULL;
	struct err le = {0};
	if ((rc = trace_read(tpath, &t, &le)) == 0)
		rc = trace_validate(t, &le);
	trace_free(t);
	if (rc) {
		rc = err_set(e, BELAY_ECORRUPT, "%s: the bundle's trace does not read: %s", path, le.msg);
		goto out;
	}
	if ((rc = snap_transfer_lock(st, e)) != 0)
		goto out;
	locked = 1;
	struct snap_xfile_stats xs = {0};
	struct store *db = snap_store_sql(st);
	uint64_t added_snaps = 0;
	if ((rc = snap_xfile_store_objects(st, path, &x, &xs, e)) != 0)
		goto rollback;
	if ((rc = store_begin(db, e)) != 0)
		goto rollback;
	if ((rc = snap_import_commit_pending(st, e)) != 0)
		goto abort;
	char *origin = xasprintf("bundle:%s", id);
	for (const cJSON *m = snaps->child; m && rc == 0; m = m->next) {
		int added = 0;
		rc = snap_import_manifest(st, m, origin, &added, e);
		added_snaps += (uint64_t)added;
	}
	free(origin);
	if (rc)
		goto abort;
	if ((rc = store_commit(db, e)) != 0)
		goto rollback;
	snap_import_after_commit(st);
	if (stats) {
		memset(stats, 0, sizeof *stats);
		stats->objects = xs.objects;
		stats->object_bytes = xs.object_bytes;
		stats->objects_new = xs.objects_new;
		stats->snapshots = added_snaps;
		stats->missing = (uint64_t)cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(x.head, "missing"));
	}
	*trace_out = tpath;
	tpath = NULL;
	goto out;
abort:
	store_rollback(db);
rollback:
	snap_import_rollback(st);
out:
	if (locked)
		snap_transfer_unlock(st);
	if (tpath) {
		unlink(tpath);
		free(tpath);
	}
	if (verified)
		snap_xfile_in_free(&x);
	snap_store_close(st);
	return rc;
}
