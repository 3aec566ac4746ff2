/* bundle.c - a trace with the pre-state objects it refers to, written and imported through
 * the snapshot-carrying file of snap_xfile.h. See bundle.h. */
#include "measure/bundle.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/buf.h"
#include "common/fsutil.h"
#include "common/hash.h"
#include "common/jsonx.h"
#include "common/strmap.h"
#include "common/xalloc.h"
#include "trace/trace_reader.h"
#include "measure/batch.h"
#include "snapshot/snap_transfer.h"
#include "snapshot/snap_xfile.h"
#include "store/store.h"

static const struct snap_xfile_kind bundle_kind = {"BELAYTB1", "belay-trace-bundle", "belay trace bundle"};

/* The distinct well-formed pre-state handles the trace's frames name, in order (borrowed
 * from t). *n: their number; the array is new. */
static const char **trace_handles(const struct trace *t, size_t *n, const struct trace_record ***recs)
{
	const char **v = NULL;
	const struct trace_record **r = NULL;
	size_t cap = 0, cap2 = 0, k = 0;
	struct strmap seen;
	strmap_init(&seen);
	for (size_t i = 0; i < t->n; i++) {
		const cJSON *sh = t->recs[i].state_handle;
		const char *status = sh ? jx_str(sh, "status") : NULL;
		const char *h = status && !strcmp(status, "present") ? jx_str(sh, "handle") : NULL;
		int64_t dummy;
		if (!h || !snap_handle_valid(h) || strmap_get(&seen, h, &dummy))
			continue;
		strmap_put(&seen, h, 1);
		v = xgrow_zeroed(v, &cap, k, sizeof *v, 64);
		r = xgrow_zeroed(r, &cap2, k, sizeof *r, 64);
		v[k] = h;
		r[k++] = &t->recs[i];
	}
	strmap_free(&seen);
	*n = k;
	if (recs)
		*recs = r;
	else
		free(r);
	return v;
}

/* Inside a transaction of st: the pending objects indexed, then each manifest registered. */
static int import_manifests(struct snap_store *st, cJSON *const *manifests, size_t n, const char *origin,
			    uint64_t *added_snaps, struct err *e)
{
	struct store *db = snap_store_sql(st);
	int rc = store_begin(db, e);
	if (rc)
		return rc;
	if ((rc = snap_import_commit_pending(st, e)) == 0)
		for (size_t i = 0; i < n && rc == 0; i++) {
			int added = 0;
			rc = snap_import_manifest(st, manifests[i], origin, &added, e);
			*added_snaps += (uint64_t)added;
		}
	if (rc == 0 && (rc = store_commit(db, e)) == 0) {
		snap_import_after_commit(st);
		return 0;
	}
	store_rollback(db);
	return rc;
}

struct obj_sink {
	struct snap_obj_in *w;
	struct err *e;
};

static int obj_sink_write(void *ctx, const void *p, size_t n)
{
	struct obj_sink *s = ctx;
	return snap_obj_in_write(s->w, p, n, s->e) ? -EIO : 0;
}

int bundle_copy_from_store(struct snap_store *from, const char *trace_path, const char *state_dir,
			   struct bundle_stats *stats, struct err *e)
{
	struct bundle_stats bs = {0};
	struct trace *t = NULL;
	struct snap_store *to = NULL;
	const char **hs = NULL;
	cJSON **ms = NULL;
	size_t nh = 0, nm = 0;
	struct strmap oids;
	strmap_init(&oids);
	int locked = 0;
	int rc = trace_read(trace_path, &t, e);
	if (rc == 0)
		rc = snap_store_open(state_dir, NULL, &to, e);
	if (rc == 0 && (rc = snap_transfer_lock(to, e)) == 0)
		locked = 1;
	if (rc)
		goto out;
	hs = trace_handles(t, &nh, NULL);
	ms = xcalloc(nh + 1, sizeof *ms);
	for (size_t i = 0; i < nh && rc == 0; i++) {
		int here = snap_handle_exists(to, hs[i], NULL, e), there = here ? 0 : snap_handle_exists(from, hs[i], NULL, e);
		if (here < 0 || there < 0) {
			rc = here < 0 ? here : there;
			break;
		}
		if (here)
			continue;
		if (!there) {
			bs.missing++;
			continue;
		}
		if ((rc = snap_manifest_json(from, hs[i], &ms[nm], e)) == 0 &&
		    (rc = snap_manifest_json_check(ms[nm], &oids, e)) == 0)
			nm++;
	}
	for (size_t i = 0; i < oids.cap && rc == 0; i++) {
		if (!strmap_live(&oids, i))
			continue;
		uint8_t oid[SHA256_LEN];
		uint64_t len = 0;
		hex_decode(oids.slots[i].key, oid, SHA256_LEN);
		int have = snap_object_present(to, oid, e);
		if (have < 0) {
			rc = have;
			break;
		}
		bs.objects++;
		if (have)
			continue;
		struct snap_obj_in *w = NULL;
		if ((rc = snap_object_len(from, oid, &len, e)) != 0 || (rc = snap_obj_in_begin(to, oid, len, &w, e)) != 0)
			break;
		struct obj_sink sink = {w, e};
		uint64_t got;
		if ((rc = snap_object_stream(from, oid, &got, obj_sink_write, &sink, e)) != 0) {
			snap_obj_in_abort(w);
			break;
		}
		if ((rc = snap_obj_in_end(w, e)) != 0) /* re-hashed on the way in */
			break;
		bs.objects_new++;
		bs.object_bytes += len;
	}
	if (rc == 0) {
		char *origin = xasprintf("shared:%s", snap_store_dir(from));
		rc = import_manifests(to, ms, nm, origin, &bs.snapshots, e);
		free(origin);
	} else {
		snap_import_rollback(to);
	}
	if (rc == 0 && stats)
		*stats = bs;
out:
	if (locked)
		snap_transfer_unlock(to);
	for (size_t i = 0; i < nm; i++)
		cJSON_Delete(ms[i]);
	free(ms);
	free(hs);
	strmap_free(&oids);
	snap_store_close(to);
	trace_free(t);
	return rc;
}

int bundle_write(const char *trace_path, const char *state_dir, const char *out_path, struct bundle_stats *stats,
		 struct err *e)
{
	struct trace *t = NULL;
	struct snap_store *st = NULL;
	struct buf raw = {0};
	const char **have = NULL;
	size_t nh = 0, cap = 0;
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
	const struct trace_record **recs = NULL;
	size_t nall = 0;
	const char **all = trace_handles(t, &nall, &recs);
	for (size_t i = 0; i < nall && rc == 0; i++) {
		int ok = snap_handle_exists(st, all[i], NULL, e);
		if (ok < 0) {
			rc = ok;
			break;
		}
		if (!ok) {
			cJSON *m = cJSON_CreateObject();
			cJSON_AddStringToObject(m, "handle", all[i]);
			cJSON_AddNumberToObject(m, "seq", (double)recs[i]->seq);
			cJSON_AddItemToArray(missing, m);
			continue;
		}
		cJSON_AddItemToArray(hl, cJSON_CreateString(all[i]));
		have = xgrow_zeroed(have, &cap, nh, sizeof *have, 64);
		have[nh++] = all[i];
	}
	free(all);
	free(recs);
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
	uint64_t added_snaps = 0;
	if ((rc = snap_xfile_store_objects(st, path, &x, &xs, e)) != 0) {
		snap_import_rollback(st);
		goto out;
	}
	char *origin = xasprintf("bundle:%s", id);
	size_t nm = 0;
	cJSON **ms = xcalloc((size_t)cJSON_GetArraySize(snaps) + 1, sizeof *ms);
	for (cJSON *m = snaps->child; m; m = m->next)
		ms[nm++] = m;
	rc = import_manifests(st, ms, nm, origin, &added_snaps, e);
	free(ms);
	free(origin);
	if (rc) {
		snap_import_rollback(st);
		goto out;
	}
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
