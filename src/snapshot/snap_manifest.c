/* snap_manifest.c - reading stored snapshots: handle lookup, the manifest of a handle as
 * rows or as a tree, the BTH-2 hash recomputed from a manifest, diffs against a handle,
 * and the content of one file of a pre-state.
 *
 * Must not: write to the store (read-only queries) or to the filesystem.
 * Threads: any thread, with its own snap_store. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/err.h"
#include "common/jsonx.h"
#include "common/strmap.h"
#include "common/xalloc.h"
#include "snapshot/snap_internal.h"
#include "store/store.h"

static const char sql_rows[] =
	"SELECT path, kind, mode, uid, gid, mtime_ns, size, oid, target, xattrs, link_group FROM entries "
	"WHERE lineage = ?1 AND born <= ?2 AND (died IS NULL OR died > ?2) ORDER BY path";

int snap_handle_lookup(struct snap_store *st, const char *handle, struct snap_handle_info *out, struct err *e)
{
	sqlite3_stmt *q;
	int rc = store_stmt(st->db, "SELECT lineage, seq, tree_hash FROM snapshots WHERE handle = ?1", &q, e);
	if (rc)
		return rc;
	store_bind_text(st->db, q, 1, handle, e);
	int r = sqlite3_step(q);
	if (r == SQLITE_ROW) {
		out->lineage = sqlite3_column_int64(q, 0);
		out->seq = sqlite3_column_int64(q, 1);
		const unsigned char *th = sqlite3_column_text(q, 2);
		snprintf(out->tree_hash, sizeof out->tree_hash, "%s", th ? (const char *)th : "");
		sqlite3_reset(q);
		return 0;
	}
	sqlite3_reset(q);
	if (r == SQLITE_DONE)
		return err_set(e, BELAY_ENOTFOUND, "no snapshot %s in %s", handle, st->dir);
	return store_fail(st->db, e, "cannot look the snapshot up");
}

int snap_row_entry(sqlite3_stmt *q, struct snap_entry *en, const char **xattrs, size_t *xlen)
{
	memset(en, 0, sizeof *en);
	en->path = (const char *)sqlite3_column_blob(q, 0);
	en->path_len = (size_t)sqlite3_column_bytes(q, 0);
	en->kind = sqlite3_column_int(q, 1);
	en->mode = (unsigned)sqlite3_column_int(q, 2);
	en->uid = (unsigned)sqlite3_column_int64(q, 3);
	en->gid = (unsigned)sqlite3_column_int64(q, 4);
	en->mtime_ns = sqlite3_column_int64(q, 5);
	en->size = (uint64_t)sqlite3_column_int64(q, 6);
	if (sqlite3_column_type(q, 7) != SQLITE_NULL) {
		if (sqlite3_column_bytes(q, 7) != SHA256_LEN)
			return BELAY_ECORRUPT;
		en->oid = sqlite3_column_blob(q, 7);
	}
	if (sqlite3_column_type(q, 8) != SQLITE_NULL) {
		en->target = sqlite3_column_blob(q, 8);
		en->target_len = (size_t)sqlite3_column_bytes(q, 8);
		if (!en->target)
			en->target = "";
	}
	*xattrs = sqlite3_column_type(q, 9) == SQLITE_NULL ? NULL : sqlite3_column_blob(q, 9);
	*xlen = *xattrs ? (size_t)sqlite3_column_bytes(q, 9) : 0;
	if (sqlite3_column_type(q, 10) != SQLITE_NULL) {
		en->link_group = sqlite3_column_blob(q, 10);
		en->link_group_len = (size_t)sqlite3_column_bytes(q, 10);
	}
	size_t pos = 0, nl, vl;
	const char *n, *v;
	while (snap_xattrs_next(*xattrs, *xlen, &pos, &n, &nl, &v, &vl))
		en->nxattrs++;
	if (!en->path || en->path_len == 0 || memchr(en->path, '\0', en->path_len))
		return BELAY_ECORRUPT;
	if (en->kind < SK_DIR || en->kind > SK_LINK || (en->kind == SK_FILE && !en->oid))
		return BELAY_ECORRUPT;
	return 0;
}

/* Runs the manifest query for a handle; calls fn per row. */
static int each_row(struct snap_store *st, const char *handle,
		    int (*fn)(void *ctx, const struct snap_entry *en, const char *xattrs, size_t xlen), void *ctx,
		    struct err *e)
{
	struct snap_handle_info hi;
	int rc = snap_handle_lookup(st, handle, &hi, e);
	if (rc)
		return rc;
	sqlite3_stmt *q;
	if ((rc = store_stmt(st->db, sql_rows, &q, e)) != 0)
		return rc;
	store_bind_i64(st->db, q, 1, hi.lineage, e);
	store_bind_i64(st->db, q, 2, hi.seq, e);
	int r;
	while ((r = sqlite3_step(q)) == SQLITE_ROW) {
		struct snap_entry en;
		const char *xa;
		size_t xl;
		if (snap_row_entry(q, &en, &xa, &xl) != 0) {
			sqlite3_reset(q);
			return err_set(e, BELAY_ECORRUPT, "snapshot %s has a malformed manifest row", handle);
		}
		if ((rc = fn(ctx, &en, xa, xl)) != 0) {
			sqlite3_reset(q);
			return rc > 0 ? 0 : rc;
		}
	}
	sqlite3_reset(q);
	if (r != SQLITE_DONE)
		return store_fail(st->db, e, "cannot read the manifest");
	return 0;
}

struct list_ctx {
	int (*cb)(void *ctx, const struct snap_entry *en);
	void *ctx;
};

static int list_row(void *ctx, const struct snap_entry *en, const char *xa, size_t xl)
{
	struct list_ctx *lc = ctx;
	(void)xa;
	(void)xl;
	return lc->cb(lc->ctx, en) ? 1 : 0;
}

int snap_list(struct snap_store *st, const char *handle, int (*cb)(void *ctx, const struct snap_entry *en),
	      void *ctx, struct err *e)
{
	struct list_ctx lc = {cb, ctx};
	int rc = snap_store_lock_shared(st, e);
	if (rc)
		return rc;
	rc = each_row(st, handle, list_row, &lc, e);
	snap_store_unlock(st);
	return rc;
}

/*==== manifest as a tree ====*/

void snap_entry_node(struct snode *n, const struct snap_entry *en, const char *xa, size_t xl)
{
	n->kind = (uint8_t)en->kind;
	n->mode = en->mode;
	n->uid = en->uid;
	n->gid = en->gid;
	n->mtime_ns = en->mtime_ns;
	n->size = en->size;
	if (en->oid)
		memcpy(n->oid, en->oid, SHA256_LEN);
	if (en->kind == SK_LINK)
		snode_set_bytes(&n->target, &n->target_len, en->target ? en->target : "", en->target_len);
	if (xa)
		snode_set_bytes(&n->xattrs, &n->xattrs_len, xa, xl);
	if (en->link_group)
		snode_set_bytes(&n->link_group, &n->lg_len, en->link_group, en->link_group_len);
}

struct load_ctx {
	struct snap_tree *t;
	struct strmap dirs; /* path -> index into nodes */
	struct snode **nodes;
	size_t nnodes, capnodes;
	const char *handle;
	struct err *e;
};

static int load_row(void *ctx, const struct snap_entry *en, const char *xa, size_t xl)
{
	struct load_ctx *lc = ctx;
	struct snode *n;
	int isroot = en->path_len == 1 && en->path[0] == '.';
	char *path = xstrndup(en->path, en->path_len);
	if (isroot) {
		n = lc->t->root;
		if (n->kind)
			goto dup;
	} else {
		const char *slash = memrchr(en->path, '/', en->path_len);
		struct snode *parent = lc->t->root;
		if (slash) {
			int64_t idx;
			path[slash - en->path] = '\0';
			if (!strmap_get(&lc->dirs, path, &idx)) {
				free(path);
				return err_set(lc->e, BELAY_ECORRUPT, "snapshot %s: entry %.*s has no parent directory",
					       lc->handle, (int)en->path_len, en->path);
			}
			path[slash - en->path] = '/';
			parent = lc->nodes[idx];
		}
		const char *name = slash ? slash + 1 : en->path;
		size_t nl = en->path_len - (size_t)(name - en->path);
		if (nl == 0 || snode_kid(parent, name, nl))
			goto dup;
		n = snode_new(name, nl);
		snode_insert(parent, n);
	}
	snap_entry_node(n, en, xa, xl);
	if (n->kind == SK_FILE) {
		lc->t->nfiles++;
		lc->t->nbytes += n->size;
	}
	if (n->kind == SK_DIR) {
		lc->nodes = xgrow_zeroed(lc->nodes, &lc->capnodes, lc->nnodes, sizeof *lc->nodes, 64);
		lc->nodes[lc->nnodes] = n;
		strmap_put(&lc->dirs, path, (int64_t)lc->nnodes);
		lc->nnodes++;
	}
	free(path);
	return 0;
dup:
	free(path);
	return err_set(lc->e, BELAY_ECORRUPT, "snapshot %s: entry %.*s appears twice", lc->handle, (int)en->path_len,
		       en->path);
}

int snap_manifest_load(struct snap_store *st, const char *handle, struct snap_tree *t, struct err *e)
{
	snap_tree_init(t);
	t->root = snode_new(".", 1);
	struct load_ctx lc = {.t = t, .handle = handle, .e = e};
	strmap_init(&lc.dirs);
	int rc = snap_store_lock_shared(st, e);
	if (rc == 0) {
		rc = each_row(st, handle, load_row, &lc, e);
		snap_store_unlock(st);
	}
	if (rc == 0 && t->root->kind != SK_DIR)
		rc = err_set(e, BELAY_ECORRUPT, "snapshot %s has no root entry", handle);
	strmap_free(&lc.dirs);
	free(lc.nodes);
	if (rc)
		snap_tree_done(t);
	return rc;
}

int snap_tree_hash_handle(struct snap_store *st, const char *handle, char out[SNAP_TREE_HASH_LEN], struct err *e)
{
	struct snap_tree t;
	int rc = snap_manifest_load(st, handle, &t, e);
	if (rc)
		return rc;
	snap_tree_hash(&t, out);
	snap_tree_done(&t);
	return 0;
}

int snap_diff_handle_dir(struct snap_store *st, const char *handle, const char *dir, struct snap_diff *out,
			 struct err *e)
{
	memset(out, 0, sizeof *out);
	struct snap_tree a, b;
	int rc = snap_manifest_load(st, handle, &a, e);
	if (rc)
		return rc;
	if ((rc = snap_tree_scan_dir(dir, &b, e)) != 0) {
		snap_tree_done(&a);
		return rc;
	}
	rc = snap_tree_diff(&a, &b, out);
	snap_tree_done(&a);
	snap_tree_done(&b);
	return rc;
}

int snap_diff_handles(struct snap_store *st, const char *left, const char *right, struct snap_diff *out,
		      struct err *e)
{
	memset(out, 0, sizeof *out);
	struct snap_tree a, b;
	int rc = snap_manifest_load(st, left, &a, e);
	if (rc)
		return rc;
	if ((rc = snap_manifest_load(st, right, &b, e)) != 0) {
		snap_tree_done(&a);
		return rc;
	}
	rc = snap_tree_diff(&a, &b, out);
	snap_tree_done(&a);
	snap_tree_done(&b);
	return rc;
}

cJSON *snap_diff_json(const struct snap_diff *d)
{
	cJSON *arr = cJSON_CreateArray();
	for (size_t i = 0; i < d->n; i++) {
		const struct snap_diff_item *it = &d->items[i];
		cJSON *o = cJSON_CreateObject();
		cJSON_AddItemToObject(o, "path", jx_bytes(it->path, it->path_len));
		cJSON_AddStringToObject(o, "kind", it->kind == SNAP_DIFF_ADDED     ? "added"
						   : it->kind == SNAP_DIFF_REMOVED ? "removed"
										   : "changed");
		cJSON *f = cJSON_AddArrayToObject(o, "fields");
		for (size_t k = 0; k < it->nfields; k++)
			cJSON_AddItemToArray(f, jx_bytes(it->fields[k], strlen(it->fields[k])));
		cJSON_AddItemToArray(arr, o);
	}
	return arr;
}

/*==== one file of a pre-state ====*/

int snap_read_file(struct snap_store *st, const char *handle, const char *relpath, struct buf *out, struct err *e)
{
	struct snap_handle_info hi;
	int rc = snap_store_lock_shared(st, e);
	if (rc)
		return rc;
	if ((rc = snap_handle_lookup(st, handle, &hi, e)) != 0)
		goto out;
	while (relpath[0] == '.' && relpath[1] == '/')
		relpath += 2;
	sqlite3_stmt *q;
	if ((rc = store_stmt(st->db,
			     "SELECT kind, oid FROM entries WHERE lineage = ?1 AND path = ?3 AND born <= ?2 AND "
			     "(died IS NULL OR died > ?2)",
			     &q, e)) != 0)
		goto out;
	store_bind_i64(st->db, q, 1, hi.lineage, e);
	store_bind_i64(st->db, q, 2, hi.seq, e);
	store_bind_blob(st->db, q, 3, relpath, strlen(relpath), e);
	int r = sqlite3_step(q);
	if (r != SQLITE_ROW) {
		sqlite3_reset(q);
		rc = r == SQLITE_DONE ? err_set(e, BELAY_ENOTFOUND, "snapshot %s has no entry %s", handle, relpath)
				      : store_fail(st->db, e, "cannot read the manifest");
		goto out;
	}
	int kind = sqlite3_column_int(q, 0);
	uint8_t oid[SHA256_LEN];
	int ok = kind == SK_FILE && sqlite3_column_bytes(q, 1) == SHA256_LEN;
	if (ok)
		memcpy(oid, sqlite3_column_blob(q, 1), SHA256_LEN);
	sqlite3_reset(q);
	if (!ok) {
		rc = err_set(e, BELAY_EINVAL, "%s in snapshot %s is a %s, not a regular file", relpath, handle,
			     snap_kind_name(kind));
		goto out;
	}
	rc = snap_store_read_object(st, oid, -1, out, e);
out:
	snap_store_unlock(st);
	return rc;
}

const char *snap_cause_of(const struct err *e)
{
	static const char *const causes[] = {
		SNAP_UNRESTORABLE_FIFO,          SNAP_UNRESTORABLE_SOCKET,
		SNAP_UNRESTORABLE_DEVICE_NODE,   SNAP_UNRESTORABLE_OWNERSHIP,
		SNAP_UNRESTORABLE_SNAPSHOT_FAILED, SNAP_UNRESTORABLE_INVALID_UTF8_NAME,
		SNAP_UNRESTORABLE_CASE_COLLISION, SNAP_UNRESTORABLE_NORMALIZATION_COLLISION,
	};
	if (!e)
		return NULL;
	for (size_t i = 0; i < sizeof causes / sizeof *causes; i++) {
		size_t n = strlen(causes[i]);
		if (strncmp(e->msg, causes[i], n) == 0 && (e->msg[n] == ':' || e->msg[n] == '\0'))
			return causes[i];
	}
	return NULL;
}
