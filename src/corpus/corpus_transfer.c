/* corpus_transfer.c - a case as one self-contained file (export) and back (import). The
 * format is documented in docs/CORPUS.md ("Export format"):
 *
 *   "BELAYCS1" u32le version(1) u32le flags(0)
 *   u64le header_len, header JSON {format, version, case, handles, trace_sha256,
 *                                  snapshots: [manifests], objects, object_bytes}
 *   u64le trace_len, the trace bytes
 *   objects × N: "OBJ1" u32le flags(0) u64le len sha256[32] data[len]   (as in packs)
 *   "END1" u32le 0 sha256[32] of every byte before "END1"
 *
 * Import reads the file twice: first to verify every byte and the case (nothing written),
 * then to store the objects (each re-hashed) and add everything in one transaction.
 *
 * Must not: import labels (they are a local human judgment); write before the file is
 * verified; print. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/fsutil.h"
#include "common/hash.h"
#include "common/jsonx.h"
#include "common/strmap.h"
#include "common/timeutil.h"
#include "common/xalloc.h"
#include "corpus/corpus_internal.h"
#include "snapshot/snap_transfer.h"
#include "snapshot/snap_xfile.h"
#include "trace/trace_reader.h"
#include "store/store.h"

static const struct snap_xfile_kind case_kind = {"BELAYCS1", "belay-case", "belay case file"};

/*==== export ====*/

int corpus_export(struct corpus *c, const char *id, const char *path, struct corpus_xfer_stats *stats, struct err *e)
{
	struct ccase cc;
	int rc = ccase_load(c, id, &cc, e);
	if (rc)
		return rc;
	struct buf trace = {0};
	cJSON *handles = NULL;
	const char **hs = NULL;
	int locked = 0;
	if (access(path, F_OK) == 0) {
		rc = err_set(e, BELAY_EEXIST, "%s exists; export never overwrites a file", path);
		goto out;
	}
	if ((rc = ccase_trace(c, id, &trace, e)) != 0 || (rc = ccase_handles(c, id, &handles, e)) != 0)
		goto out;
	if ((rc = snap_transfer_lock(c->snap, e)) != 0)
		goto out;
	locked = 1;
	cJSON *head = cJSON_CreateObject();
	cJSON_AddStringToObject(head, "format", case_kind.format);
	cJSON_AddNumberToObject(head, "version", 1);
	char at[ISO_TS_LEN];
	time_now_iso8601(at);
	cJSON_AddStringToObject(head, "exported", at);
	cJSON_AddStringToObject(head, "exported_by", "belay " BELAY_VERSION_STRING);
	cJSON_AddItemToObject(head, "case", ccase_to_json(&cc));
	cJSON_AddItemToObject(head, "handles", cJSON_Duplicate(handles, 1));
	size_t nh = 0;
	hs = xcalloc((size_t)cJSON_GetArraySize(handles) + 1, sizeof *hs);
	for (const cJSON *h = handles->child; h; h = h->next)
		hs[nh++] = jx_str(h, "handle");
	struct snap_xfile_stats xs = {0};
	rc = snap_xfile_write(c->snap, &case_kind, path, head, hs, nh, trace.p, trace.len, &xs, e);
	if (rc == 0 && stats) {
		memset(stats, 0, sizeof *stats);
		stats->bytes = xs.bytes;
		stats->objects = xs.objects;
		stats->object_bytes = xs.object_bytes;
	}
out:
	if (locked)
		snap_transfer_unlock(c->snap);
	free(hs);
	cJSON_Delete(handles);
	buf_free(&trace);
	ccase_free(&cc);
	return rc;
}

/*==== import ====*/

/* What pass 1 learns and pass 2 uses. */
struct parsed {
	struct snap_xfile_in x;
	struct ccase cc;
};

static void parsed_free(struct parsed *p)
{
	snap_xfile_in_free(&p->x);
	ccase_free(&p->cc);
}

static int check_trace(const struct buf *trace, struct err *e)
{
	char *dir = fs_mkdtemp_in(fs_scratch_base(), "belay-import-", e);
	if (!dir)
		return e->code ? e->code : BELAY_EINVAL;
	char *path = fs_join(dir, "case.jsonl");
	int rc = fs_write_file_atomic(path, trace->p ? trace->p : "", trace->len, 0600, e);
	if (rc == 0) {
		struct trace *t = NULL;
		struct err le = {0};
		if ((rc = trace_read(path, &t, &le)) == 0)
			rc = trace_validate(t, &le);
		if (rc) /* the code returned is the one e names */
			rc = err_set(e, BELAY_ECORRUPT, "the case's trace does not read: %s", le.msg);
		trace_free(t);
	}
	fs_remove_tree(dir);
	free(path);
	free(dir);
	return rc;
}

/* Pass 1: verifies the whole file (framing, objects, trailer: snap_xfile_verify) and the
 * case in it; writes nothing. */
static int verify_file(struct corpus *c, const char *path, struct parsed *p, struct err *e)
{
	memset(p, 0, sizeof *p);
	int rc = snap_xfile_verify(c->snap, &case_kind, path, &p->x, e);
	if (rc)
		return rc;
	const cJSON *head = p->x.head;
	if ((rc = ccase_from_json(cJSON_GetObjectItemCaseSensitive(head, "case"), &p->cc, e)) != 0) {
		err_wrap(e, "%s", path);
		goto out;
	}
	const cJSON *handles = cJSON_GetObjectItemCaseSensitive(head, "handles");
	const cJSON *snaps = cJSON_GetObjectItemCaseSensitive(head, "snapshots");
	if (!cJSON_IsArray(handles) || cJSON_GetArraySize(handles) != cJSON_GetArraySize(snaps)) {
		rc = err_set(e, BELAY_ECORRUPT, "%s: the header's handles and snapshots disagree", path);
		goto out;
	}
	/* Every listed handle has its manifest, in the same order; the case's own handles are listed. */
	const cJSON *m = snaps->child;
	for (const cJSON *h = handles->child; h; h = h->next, m = m->next) {
		const char *hh = jx_str(h, "handle"), *role = jx_str(h, "role");
		if (!hh || !role || (strcmp(role, "target") && strcmp(role, "task") && strcmp(role, "turn")) ||
		    !jx_str(m, "handle") || strcmp(hh, jx_str(m, "handle"))) {
			rc = err_set(e, BELAY_ECORRUPT, "%s: a snapshot is listed without its manifest", path);
			goto out;
		}
	}
	const char *need[2] = {p->cc.handle, p->cc.task_handle};
	for (int k = 0; k < 2; k++) {
		int found = !need[k];
		for (const cJSON *h = handles->child; h && !found; h = h->next)
			found = !strcmp(jx_str(h, "handle"), need[k]);
		if (!found) {
			rc = err_set(e, BELAY_ECORRUPT, "%s: the case's pre-state %s is not in the file", path, need[k]);
			goto out;
		}
	}
	if ((rc = check_trace(&p->x.trace, e)) != 0) {
		err_wrap(e, "%s", path);
		goto out;
	}
	/* Nothing here may collide with what the store has. */
	int have = ccase_exists(c, p->cc.id, e);
	if (have != 0)
		rc = have < 0 ? have : err_set(e, BELAY_EEXIST, "case %s already exists here; import never overwrites", p->cc.id);
out:
	if (rc)
		parsed_free(p);
	return rc;
}

int corpus_import(struct corpus *c, const char *path, char **id, struct corpus_xfer_stats *stats, struct err *e)
{
	*id = NULL;
	struct corpus_xfer_stats st = {0};
	struct parsed p;
	int rc = verify_file(c, path, &p, e);
	if (rc)
		return rc;
	struct stat sb;
	if (stat(path, &sb) == 0)
		st.bytes = (uint64_t)sb.st_size;
	if ((rc = snap_transfer_lock(c->snap, e)) != 0)
		goto out;
	struct snap_xfile_stats xs = {0};
	if ((rc = snap_xfile_store_objects(c->snap, path, &p.x, &xs, e)) != 0)
		goto rollback;
	st.objects = xs.objects;
	st.object_bytes = xs.object_bytes;
	st.objects_new = xs.objects_new;
	if ((rc = store_begin(c->db, e)) != 0)
		goto rollback;
	if ((rc = snap_import_commit_pending(c->snap, e)) != 0)
		goto abort;
	const cJSON *snaps = cJSON_GetObjectItemCaseSensitive(p.x.head, "snapshots");
	for (const cJSON *m = snaps->child; m && rc == 0; m = m->next) {
		int added = 0;
		rc = snap_import_manifest(c->snap, m, p.cc.id, &added, e);
		st.snapshots_new += (uint64_t)added;
	}
	if (rc)
		goto abort;
	if ((rc = ccase_exists(c, p.cc.id, e)) != 0) {
		if (rc > 0)
			rc = err_set(e, BELAY_EEXIST, "case %s already exists here; import never overwrites", p.cc.id);
		goto abort;
	}
	free(p.cc.origin);
	p.cc.origin = xstrdup("import");
	if ((rc = ccase_insert(c, &p.cc, p.x.trace.p, p.x.trace.len, cJSON_GetObjectItemCaseSensitive(p.x.head, "handles"),
			       e)) != 0)
		goto abort;
	if ((rc = store_commit(c->db, e)) != 0)
		goto rollback;
	snap_import_after_commit(c->snap);
	snap_transfer_unlock(c->snap);
	*id = xstrdup(p.cc.id);
	if (stats)
		*stats = st;
	goto out;
abort:
	store_rollback(c->db);
rollback:
	snap_import_rollback(c->snap);
	snap_transfer_unlock(c->snap);
out:
	parsed_free(&p);
	return rc;
}
