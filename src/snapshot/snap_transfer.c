/* snap_transfer.c - snapshot export/import for corpus cases. See snap_transfer.h.
 *
 * Must not: print; commit anything itself (the caller owns the transaction).
 * Threads: the caller's, with its own snap_store. */
#include "snapshot/snap_transfer.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "common/buf.h"
#include "common/fsutil.h"
#include "common/jsonx.h"
#include "common/xalloc.h"
#include "snapshot/snap_internal.h"
#include "store/store.h"

struct store *snap_store_sql(struct snap_store *st)
{
	return st->db;
}

int snap_transfer_lock(struct snap_store *st, struct err *e)
{
	return snap_store_lock_shared(st, e);
}

void snap_transfer_unlock(struct snap_store *st)
{
	snap_store_unlock(st);
}

int snap_handle_exists(struct snap_store *st, const char *handle, char tree_hash[SNAP_TREE_HASH_LEN], struct err *e)
{
	struct snap_handle_info hi;
	struct err le = {0};
	int rc = snap_handle_lookup(st, handle, &hi, &le);
	if (rc == 0) {
		if (tree_hash)
			snprintf(tree_hash, SNAP_TREE_HASH_LEN, "%s", hi.tree_hash);
		return 1;
	}
	if (rc == BELAY_ENOTFOUND)
		return 0;
	*e = le;
	return rc;
}

/*==== export ====*/

static cJSON *bytes_or_null(const void *p, size_t n, int present)
{
	return present ? jx_bytes(p ? p : "", n) : cJSON_CreateNull();
}

int snap_manifest_json(struct snap_store *st, const char *handle, cJSON **out, struct err *e)
{
	*out = NULL;
	struct snap_handle_info hi;
	int rc = snap_store_lock_shared(st, e);
	if (rc)
		return rc;
	if ((rc = snap_handle_lookup(st, handle, &hi, e)) != 0)
		goto out;
	sqlite3_stmt *q;
	if ((rc = store_stmt(st->db, "SELECT created_ns, files, bytes FROM snapshots WHERE handle = ?1", &q, e)) != 0)
		goto out;
	store_bind_text(st->db, q, 1, handle, e);
	if (sqlite3_step(q) != SQLITE_ROW) {
		sqlite3_reset(q);
		rc = err_set(e, BELAY_ENOTFOUND, "no snapshot %s", handle);
		goto out;
	}
	cJSON *m = cJSON_CreateObject();
	char num[32];
	cJSON_AddStringToObject(m, "handle", handle);
	cJSON_AddStringToObject(m, "tree_hash", hi.tree_hash);
	snprintf(num, sizeof num, "%" PRId64, (int64_t)sqlite3_column_int64(q, 0));
	cJSON_AddStringToObject(m, "created_ns", num);
	cJSON_AddNumberToObject(m, "files", (double)sqlite3_column_int64(q, 1));
	cJSON_AddNumberToObject(m, "bytes", (double)sqlite3_column_int64(q, 2));
	sqlite3_reset(q);
	if ((rc = store_stmt(st->db,
			     "SELECT path, kind, mode, uid, gid, mtime_ns, size, oid, target, xattrs, link_group FROM "
			     "entries WHERE lineage = ?1 AND born <= ?2 AND (died IS NULL OR died > ?2) ORDER BY path",
			     &q, e)) != 0) {
		cJSON_Delete(m);
		goto out;
	}
	store_bind_i64(st->db, q, 1, hi.lineage, e);
	store_bind_i64(st->db, q, 2, hi.seq, e);
	cJSON *arr = cJSON_AddArrayToObject(m, "entries");
	int r;
	while ((r = sqlite3_step(q)) == SQLITE_ROW) {
		cJSON *row = cJSON_CreateArray();
		cJSON_AddItemToArray(row, jx_bytes(sqlite3_column_blob(q, 0), (size_t)sqlite3_column_bytes(q, 0)));
		for (int i = 1; i <= 4; i++)
			cJSON_AddItemToArray(row, cJSON_CreateNumber((double)sqlite3_column_int64(q, i)));
		snprintf(num, sizeof num, "%" PRId64, (int64_t)sqlite3_column_int64(q, 5));
		cJSON_AddItemToArray(row, cJSON_CreateString(num));
		cJSON_AddItemToArray(row, cJSON_CreateNumber((double)sqlite3_column_int64(q, 6)));
		if (sqlite3_column_type(q, 7) != SQLITE_NULL && sqlite3_column_bytes(q, 7) == SHA256_LEN) {
			char hex[SHA256_HEX_LEN + 1];
			hex_encode(sqlite3_column_blob(q, 7), SHA256_LEN, hex);
			cJSON_AddItemToArray(row, cJSON_CreateString(hex));
		} else {
			cJSON_AddItemToArray(row, cJSON_CreateNull());
		}
		cJSON_AddItemToArray(row, bytes_or_null(sqlite3_column_blob(q, 8), (size_t)sqlite3_column_bytes(q, 8),
							sqlite3_column_type(q, 8) != SQLITE_NULL));
		if (sqlite3_column_type(q, 9) != SQLITE_NULL) {
			struct buf b = {0};
			base64_encode(sqlite3_column_blob(q, 9), (size_t)sqlite3_column_bytes(q, 9), &b);
			cJSON_AddItemToArray(row, cJSON_CreateString(buf_cstr(&b)));
			buf_free(&b);
		} else {
			cJSON_AddItemToArray(row, cJSON_CreateNull());
		}
		cJSON_AddItemToArray(row, bytes_or_null(sqlite3_column_blob(q, 10), (size_t)sqlite3_column_bytes(q, 10),
							sqlite3_column_type(q, 10) != SQLITE_NULL));
		cJSON_AddItemToArray(arr, row);
	}
	sqlite3_reset(q);
	if (r != SQLITE_DONE) {
		cJSON_Delete(m);
		rc = store_fail(st->db, e, "cannot read the manifest");
		goto out;
	}
	*out = m;
out:
	snap_store_unlock(st);
	return rc;
}

int snap_object_len(struct snap_store *st, const uint8_t oid[SHA256_LEN], uint64_t *len, struct err *e)
{
	int64_t pack;
	uint64_t off;
	return snap_store_locate(st, oid, &pack, &off, len, e);
}

int snap_object_stream(struct snap_store *st, const uint8_t oid[SHA256_LEN], uint64_t *len,
		       int (*sink)(void *ctx, const void *p, size_t n), void *ctx, struct err *e)
{
	char hex[SHA256_HEX_LEN + 1];
	hex_encode(oid, SHA256_LEN, hex);
	int64_t pack;
	uint64_t off;
	int rc = snap_store_lock_shared(st, e);
	if (rc)
		return rc;
	if ((rc = snap_store_locate(st, oid, &pack, &off, len, e)) != 0)
		goto out_unlock;
	char *path =
	    pack ? xasprintf("%s/pack-%06lld.pack", st->objdir, (long long)pack) : snap_store_loose_path(st, oid);
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0) {
		rc = err_set(e, BELAY_ECORRUPT, "object sha256:%s: cannot open %s: %s", hex, path, strerror(errno));
		free(path);
		goto out_unlock;
	}
	free(path);
	if (pack) {
		unsigned char hdr[SNAP_OBJ_HDR];
		uint64_t hl = 0;
		if (pread(fd, hdr, sizeof hdr, (off_t)off) != (ssize_t)sizeof hdr ||
		    memcmp(hdr, SNAP_OBJ_MAGIC, 4) != 0 || memcmp(hdr + 16, oid, SHA256_LEN) != 0) {
			close(fd);
			rc = err_set(e, BELAY_ECORRUPT, "pack %lld has no valid record for sha256:%s", (long long)pack,
				     hex);
			goto out_unlock;
		}
		for (int i = 0; i < 8; i++)
			hl |= (uint64_t)hdr[8 + i] << (8 * i);
		if (hl != *len) {
			close(fd);
			rc = err_set(e, BELAY_ECORRUPT, "pack %lld: the record of sha256:%s has the wrong length",
				     (long long)pack, hex);
			goto out_unlock;
		}
		off += SNAP_OBJ_HDR;
	} else {
		off = 0;
	}
	const size_t chunk = 1 << 20;
	char *buf = xmalloc(chunk);
	struct sha256_ctx *c = sha256_new();
	uint64_t done = 0;
	while (done < *len && rc == 0) {
		size_t n = *len - done < chunk ? (size_t)(*len - done) : chunk;
		ssize_t got = pread(fd, buf, n, (off_t)(off + done));
		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0) {
			rc = err_set(e, BELAY_ECORRUPT, "object sha256:%s is truncated in the store", hex);
			break;
		}
		sha256_update(c, buf, (size_t)got);
		if ((rc = sink(ctx, buf, (size_t)got)) != 0) {
			rc = err_set(e, rc, "cannot pass on object sha256:%s: %s", hex, strerror(-rc));
			break;
		}
		done += (uint64_t)got;
	}
	uint8_t got[SHA256_LEN];
	sha256_final(c, got);
	free(buf);
	close(fd);
	if (rc == 0 && memcmp(got, oid, SHA256_LEN) != 0)
		rc = err_set(e, BELAY_ECORRUPT, "object sha256:%s does not match its content in the store", hex);
out_unlock:
	snap_store_unlock(st);
	return rc;
}

/*==== import: checking a manifest ====*/

static int bytes_ok(const cJSON *v, int nullable, struct buf *out)
{
	if (nullable && cJSON_IsNull(v))
		return 1;
	out->len = 0;
	return jx_bytes_decode(v, out) == 0;
}

static int ns_string(const cJSON *v, int64_t *out)
{
	if (!cJSON_IsString(v) || !*v->valuestring)
		return 0;
	char *end;
	errno = 0;
	long long x = strtoll(v->valuestring, &end, 10);
	if (errno || *end)
		return 0;
	*out = x;
	return 1;
}

static int int_item(const cJSON *v, int64_t lo, int64_t hi, int64_t *out)
{
	/* the range first: converting a double outside int64_t's (or NaN) is undefined */
	if (!cJSON_IsNumber(v) || !(v->valuedouble >= -0x1p63 && v->valuedouble < 0x1p63) ||
	    v->valuedouble != (double)(int64_t)v->valuedouble)
		return 0;
	int64_t x = (int64_t)v->valuedouble;
	if (x < lo || x > hi)
		return 0;
	*out = x;
	return 1;
}

int snap_handle_valid(const char *h)
{
	if (!h || strlen(h) != 32)
		return 0;
	for (const char *p = h; *p; p++)
		if (!((*p >= '0' && *p <= '9') || (*p >= 'a' && *p <= 'f')))
			return 0;
	return 1;
}

struct row;
static int decode_row(const cJSON *a, struct row *r, size_t i, struct err *e);
static void row_done(struct row *r);

/* One decoded entry row. Strings point into bufs owned by the caller. */
struct row {
	struct buf path, target, xattrs, lg;
	int has_target, has_xattrs, has_lg, has_oid;
	int64_t kind, mode, uid, gid, mtime_ns, size;
	uint8_t oid[SHA256_LEN];
};

static void row_done(struct row *r)
{
	buf_free(&r->path);
	buf_free(&r->target);
	buf_free(&r->xattrs);
	buf_free(&r->lg);
}

static int decode_row(const cJSON *a, struct row *r, size_t i, struct err *e)
{
	if (!cJSON_IsArray(a) || cJSON_GetArraySize(a) != 11)
		return err_set(e, BELAY_EINVAL, "manifest entry %zu is not an 11-item list", i);
	const cJSON *it[11];
	int k = 0;
	for (const cJSON *x = a->child; x; x = x->next)
		it[k++] = x;
	if (!bytes_ok(it[0], 0, &r->path) || r->path.len == 0 || memchr(r->path.p, '\0', r->path.len))
		return err_set(e, BELAY_EINVAL, "manifest entry %zu has no valid path", i);
	if (!int_item(it[1], SK_DIR, SK_LINK, &r->kind) || !int_item(it[2], 0, 07777, &r->mode) ||
	    !int_item(it[3], 0, UINT32_MAX, &r->uid) || !int_item(it[4], 0, UINT32_MAX, &r->gid) ||
	    !ns_string(it[5], &r->mtime_ns) || !int_item(it[6], 0, (int64_t)1 << 53, &r->size))
		return err_set(e, BELAY_EINVAL, "manifest entry %zu has a malformed kind, mode, owner, mtime or size",
			       i);
	r->has_oid = cJSON_IsString(it[7]);
	if (r->has_oid &&
	    (strlen(it[7]->valuestring) != SHA256_HEX_LEN || hex_decode(it[7]->valuestring, r->oid, SHA256_LEN)))
		return err_set(e, BELAY_EINVAL, "manifest entry %zu has a malformed oid", i);
	if ((r->kind == SK_FILE) != r->has_oid || (!r->has_oid && !cJSON_IsNull(it[7])))
		return err_set(e, BELAY_EINVAL, "manifest entry %zu: a file needs an oid, nothing else has one", i);
	r->has_target = !cJSON_IsNull(it[8]);
	if (!bytes_ok(it[8], 1, &r->target) || (r->kind == SK_LINK) != r->has_target)
		return err_set(e, BELAY_EINVAL, "manifest entry %zu: a symlink needs a target, nothing else has one",
			       i);
	r->has_xattrs = !cJSON_IsNull(it[9]);
	if (r->has_xattrs) {
		r->xattrs.len = 0;
		if (!cJSON_IsString(it[9]) || base64_decode(it[9]->valuestring, strlen(it[9]->valuestring), &r->xattrs))
			return err_set(e, BELAY_EINVAL, "manifest entry %zu has malformed xattrs", i);
		size_t pos = 0, nl, vl;
		const char *n, *v;
		while (snap_xattrs_next(r->xattrs.p, r->xattrs.len, &pos, &n, &nl, &v, &vl))
			;
		if (pos != r->xattrs.len)
			return err_set(e, BELAY_EINVAL, "manifest entry %zu has malformed xattrs", i);
	}
	r->has_lg = !cJSON_IsNull(it[10]);
	/* a link group names a path, never "" (the store cannot keep an empty one apart from none) */
	if (!bytes_ok(it[10], 1, &r->lg) || (r->has_lg && r->lg.len == 0))
		return err_set(e, BELAY_EINVAL, "manifest entry %zu has a malformed link group", i);
	return 0;
}

/* Builds the tree of a transferred manifest (as snap_manifest_load does from rows) and
 * computes its BTH-2 hash, so a forged or damaged manifest is refused before anything is
 * written. Rows must be valid (decode_row) and in path order. */
static int json_tree_hash(const cJSON *ents, const char *handle, char out[SNAP_TREE_HASH_LEN], struct err *e)
{
	struct snap_tree t;
	snap_tree_init(&t);
	t.root = snode_new(".", 1);
	struct strmap dirs;
	strmap_init(&dirs);
	struct snode **nodes = NULL;
	size_t nnodes = 0, capnodes = 0, i = 0;
	int rc = 0;
	for (const cJSON *a = ents->child; a && rc == 0; a = a->next, i++) {
		struct row r = {0};
		if ((rc = decode_row(a, &r, i, e)) != 0) {
			row_done(&r);
			break;
		}
		char *path = xstrndup(r.path.p, r.path.len);
		struct snode *n = NULL;
		if (r.path.len == 1 && r.path.p[0] == '.') {
			n = t.root->kind ? NULL : t.root;
		} else {
			const char *slash = memrchr(path, '/', r.path.len);
			struct snode *parent = t.root;
			int64_t idx;
			if (slash) {
				path[slash - path] = '\0';
				parent = strmap_get(&dirs, path, &idx) ? nodes[idx] : NULL;
				path[slash - path] = '/';
			}
			const char *name = slash ? slash + 1 : path;
			size_t nl = r.path.len - (size_t)(name - path);
			if (parent && nl && !snode_kid(parent, name, nl)) {
				n = snode_new(name, nl);
				snode_insert(parent, n);
			}
		}
		if (!n) {
			rc = err_set(e, BELAY_EINVAL, "snapshot %s: entry %s has no parent directory or appears twice",
				     handle, path);
		} else {
			n->kind = (uint8_t)r.kind;
			n->mode = (uint32_t)r.mode;
			n->uid = (uint32_t)r.uid;
			n->gid = (uint32_t)r.gid;
			n->mtime_ns = r.mtime_ns;
			n->size = (uint64_t)r.size;
			if (r.has_oid)
				memcpy(n->oid, r.oid, SHA256_LEN);
			if (r.kind == SK_LINK)
				snode_set_bytes(&n->target, &n->target_len, r.target.p ? r.target.p : "", r.target.len);
			if (r.has_xattrs)
				snode_set_bytes(&n->xattrs, &n->xattrs_len, r.xattrs.p ? r.xattrs.p : "", r.xattrs.len);
			if (r.has_lg)
				snode_set_bytes(&n->link_group, &n->lg_len, r.lg.p ? r.lg.p : "", r.lg.len);
			if (n->kind == SK_DIR) {
				nodes = xgrow_zeroed(nodes, &capnodes, nnodes, sizeof *nodes, 64);
				nodes[nnodes] = n;
				strmap_put(&dirs, path, (int64_t)nnodes);
				nnodes++;
			}
		}
		free(path);
		row_done(&r);
	}
	if (rc == 0 && t.root->kind != SK_DIR)
		rc = err_set(e, BELAY_EINVAL, "snapshot %s has no root directory entry", handle);
	if (rc == 0)
		snap_tree_hash(&t, out);
	strmap_free(&dirs);
	free(nodes);
	snap_tree_done(&t);
	return rc;
}

int snap_manifest_path_safe(const char *p, size_t len)
{
	if (len == 1 && p[0] == '.')
		return 1; /* the root's own entry */
	if (len == 0 || p[0] == '/' || memchr(p, '\0', len))
		return 0;
	for (size_t i = 0; i < len;) {
		size_t n = 0;
		while (i + n < len && p[i + n] != '/')
			n++;
		if (n == 0 || (n == 1 && p[i] == '.') || (n == 2 && p[i] == '.' && p[i + 1] == '.'))
			return 0; /* empty, "." or ".." component (a trailing '/' too) */
		i += n;
		if (i < len && ++i == len)
			return 0;
	}
	return 1;
}

int snap_manifest_json_check(const cJSON *m, struct strmap *oids, struct err *e)
{
	const char *h = jx_str(m, "handle"), *th = jx_str(m, "tree_hash");
	int64_t created, x;
	if (!cJSON_IsObject(m) || !snap_handle_valid(h))
		return err_set(e, BELAY_EINVAL, "a snapshot has no valid handle");
	if (!th || strncmp(th, "BTH-2:sha256:", 13) || strlen(th) != 13 + SHA256_HEX_LEN)
		return err_set(e, BELAY_EINVAL, "snapshot %s has no valid tree_hash", h);
	if (!ns_string(cJSON_GetObjectItemCaseSensitive(m, "created_ns"), &created) ||
	    !int_item(cJSON_GetObjectItemCaseSensitive(m, "files"), 0, INT64_MAX, &x) ||
	    !int_item(cJSON_GetObjectItemCaseSensitive(m, "bytes"), 0, (int64_t)1 << 53, &x))
		return err_set(e, BELAY_EINVAL, "snapshot %s has malformed created_ns, files or bytes", h);
	const cJSON *ents = cJSON_GetObjectItemCaseSensitive(m, "entries");
	if (!cJSON_IsArray(ents) || !ents->child)
		return err_set(e, BELAY_EINVAL, "snapshot %s has no entries", h);
	size_t i = 0;
	int rc = 0;
	struct buf prev = {0};
	for (const cJSON *a = ents->child; a && rc == 0; a = a->next, i++) {
		struct row r = {0};
		if ((rc = decode_row(a, &r, i, e)) == 0) {
			/* a clean relative path, before anything is computed from it (restore would
			 * otherwise meet '..' or '/' only once the rows were trusted) */
			if (!snap_manifest_path_safe(r.path.p, r.path.len))
				rc = err_set(e, BELAY_EREFUSED,
					     "snapshot %s: manifest entry %zu has an unsafe path (absolute, or with an empty, "
					     "'.' or '..' component): refused",
					     h, i);
			/* path order, no duplicates: the order every reader of a manifest relies on */
			int c = i ? memcmp(prev.p, r.path.p, prev.len < r.path.len ? prev.len : r.path.len) : -1;
			if (rc == 0 && i && c == 0 && prev.len == r.path.len)
				rc = err_set(e, BELAY_EREFUSED, "snapshot %s: manifest entry %zu is a duplicate entry of its path: refused",
					     h, i);
			else if (rc == 0 && i && (c > 0 || (c == 0 && prev.len > r.path.len)))
				rc = err_set(e, BELAY_EINVAL, "snapshot %s: entries are not in path order", h);
			prev.len = 0;
			buf_append(&prev, r.path.p, r.path.len);
			if (rc == 0 && r.has_oid && oids) {
				char hex[SHA256_HEX_LEN + 1];
				hex_encode(r.oid, SHA256_LEN, hex);
				strmap_put(oids, hex, 1);
			}
		}
		row_done(&r);
	}
	buf_free(&prev);
	char th2[SNAP_TREE_HASH_LEN];
	if (rc == 0 && (rc = json_tree_hash(ents, h, th2, e)) == 0 && strcmp(th2, th) != 0)
		rc = err_set(e, BELAY_ECORRUPT, "snapshot %s: its entries hash to %s, not to the recorded %s", h, th2,
			     th);
	return rc;
}

int snap_object_present(struct snap_store *st, const uint8_t oid[SHA256_LEN], struct err *e)
{
	return snap_store_has(st, oid, e);
}

/*==== import: objects ====*/

struct snap_obj_in {
	struct snap_store *st;
	uint8_t oid[SHA256_LEN];
	uint64_t len, got;
	struct sha256_ctx *h;
	struct buf mem; /* small objects */
	int fd;		/* large ones: a temporary file */
	char *tmp;
};

int snap_obj_in_begin(struct snap_store *st, const uint8_t oid[SHA256_LEN], uint64_t len, struct snap_obj_in **out,
		      struct err *e)
{
	struct snap_obj_in *w = xcalloc(1, sizeof *w);
	w->st = st;
	memcpy(w->oid, oid, SHA256_LEN);
	w->len = len;
	w->h = sha256_new();
	w->fd = -1;
	if (len >= SNAP_LOOSE_MIN) {
		w->tmp = xasprintf("%s/.import-%d-XXXXXX", st->objdir, (int)getpid());
		w->fd = mkostemp(w->tmp, O_CLOEXEC);
		if (w->fd < 0) {
			int rc =
			    err_set(e, -errno, "cannot create a temporary file in %s: %s", st->objdir, strerror(errno));
			snap_obj_in_abort(w);
			return rc;
		}
	} else {
		buf_reserve(&w->mem, (size_t)len);
	}
	*out = w;
	return 0;
}

int snap_obj_in_write(struct snap_obj_in *w, const void *p, size_t n, struct err *e)
{
	if (w->got + n > w->len)
		return err_set(e, BELAY_ECORRUPT, "an object is longer than its record says");
	sha256_update(w->h, p, n);
	w->got += n;
	if (w->fd < 0) {
		buf_append(&w->mem, p, n);
		return 0;
	}
	int rc = fs_write_all(w->fd, p, n);
	return rc ? err_set(e, rc, "cannot write %s: %s", w->tmp, strerror(-rc)) : 0;
}

void snap_obj_in_abort(struct snap_obj_in *w)
{
	if (!w)
		return;
	if (w->h) {
		uint8_t dummy[SHA256_LEN];
		sha256_final(w->h, dummy);
	}
	if (w->fd >= 0)
		close(w->fd);
	if (w->tmp)
		unlink(w->tmp);
	free(w->tmp);
	buf_free(&w->mem);
	free(w);
}

int snap_obj_in_end(struct snap_obj_in *w, struct err *e)
{
	uint8_t got[SHA256_LEN];
	sha256_final(w->h, got);
	w->h = NULL;
	char hex[SHA256_HEX_LEN + 1];
	hex_encode(w->oid, SHA256_LEN, hex);
	int rc = 0;
	if (w->got != w->len || memcmp(got, w->oid, SHA256_LEN) != 0) {
		rc = err_set(e, BELAY_ECORRUPT, "object sha256:%s does not match its content", hex);
	} else {
		int have = snap_store_has(w->st, w->oid, e);
		if (have < 0)
			rc = have;
		else if (have == 0)
			rc = w->fd < 0 ? snap_store_put_mem(w->st, w->oid, w->mem.p ? w->mem.p : "", w->mem.len, e)
				       : snap_store_put_fd(w->st, w->oid, w->fd, w->len, e);
	}
	snap_obj_in_abort(w);
	return rc;
}

/*==== import: registering ====*/

int snap_import_commit_pending(struct snap_store *st, struct err *e)
{
	return snap_store_commit_pending(st, e);
}

void snap_import_after_commit(struct snap_store *st)
{
	snap_store_after_commit(st);
}

void snap_import_rollback(struct snap_store *st)
{
	snap_store_rollback_pending(st);
}

int snap_import_manifest(struct snap_store *st, const cJSON *m, const char *origin, int *added, struct err *e)
{
	*added = 0;
	int rc = snap_manifest_json_check(m, NULL, e);
	if (rc)
		return rc;
	const char *handle = jx_str(m, "handle"), *tree_hash = jx_str(m, "tree_hash");
	struct snap_handle_info hi;
	struct err le = {0};
	rc = snap_handle_lookup(st, handle, &hi, &le);
	if (rc == 0) {
		if (strcmp(hi.tree_hash, tree_hash) != 0)
			return err_set(e, BELAY_ECORRUPT,
				       "snapshot %s is already in this store with another tree hash (%s, not %s)",
				       handle, hi.tree_hash, tree_hash);
		return 0;
	}
	if (rc != BELAY_ENOTFOUND) {
		*e = le;
		return rc;
	}
	struct store *db = st->db;
	sqlite3_stmt *q;
	if ((rc = store_stmt(db, "INSERT INTO lineages(workspace, created_ns, closed, head_seq) VALUES (?1, ?2, 1, 1)",
			     &q, e)) != 0)
		return rc;
	char *ws = xasprintf("import:%s", origin);
	struct timespec now;
	clock_gettime(CLOCK_REALTIME, &now);
	store_bind_blob(db, q, 1, ws, strlen(ws), e);
	store_bind_i64(db, q, 2, (int64_t)now.tv_sec * 1000000000LL + now.tv_nsec, e);
	free(ws);
	if ((rc = store_step_done(db, q, e, "cannot record the imported lineage")) != 0)
		return rc;
	int64_t lineage = sqlite3_last_insert_rowid(store_db(db));
	const cJSON *ents = cJSON_GetObjectItemCaseSensitive(m, "entries");
	size_t i = 0;
	for (const cJSON *a = ents->child; a && rc == 0; a = a->next, i++) {
		struct row r = {0};
		if ((rc = decode_row(a, &r, i, e)) == 0 && r.has_oid) {
			int have = snap_store_has(st, r.oid, e);
			if (have <= 0) {
				char hex[SHA256_HEX_LEN + 1];
				hex_encode(r.oid, SHA256_LEN, hex);
				rc = have < 0
					 ? have
					 : err_set(e, BELAY_ECORRUPT,
						   "snapshot %s needs object sha256:%s, which is missing", handle, hex);
			}
		}
		if (rc == 0 &&
		    (rc = store_stmt(db,
				     "INSERT INTO entries(lineage, born, path, kind, mode, uid, gid, mtime_ns, size, "
				     "oid, target, xattrs, link_group) VALUES (?1, 1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, "
				     "?10, ?11, ?12)",
				     &q, e)) == 0) {
			store_bind_i64(db, q, 1, lineage, e);
			store_bind_blob(db, q, 2, r.path.p, r.path.len, e);
			store_bind_i64(db, q, 3, r.kind, e);
			store_bind_i64(db, q, 4, r.mode, e);
			store_bind_i64(db, q, 5, r.uid, e);
			store_bind_i64(db, q, 6, r.gid, e);
			store_bind_i64(db, q, 7, r.mtime_ns, e);
			store_bind_i64(db, q, 8, r.size, e);
			store_bind_blob(db, q, 9, r.has_oid ? r.oid : NULL, SHA256_LEN, e);
			store_bind_blob(db, q, 10, r.has_target ? (r.target.p ? r.target.p : "") : NULL, r.target.len,
					e);
			store_bind_blob(db, q, 11, r.has_xattrs ? (r.xattrs.p ? r.xattrs.p : "") : NULL, r.xattrs.len,
					e);
			store_bind_blob(db, q, 12, r.has_lg ? (r.lg.p ? r.lg.p : "") : NULL, r.lg.len, e);
			rc = store_step_done(db, q, e, "cannot record an imported manifest row");
		}
		row_done(&r);
	}
	if (rc)
		return rc;
	int64_t created = 0, files = 0, bytes = 0;
	ns_string(cJSON_GetObjectItemCaseSensitive(m, "created_ns"), &created);
	int_item(cJSON_GetObjectItemCaseSensitive(m, "files"), 0, INT64_MAX, &files);
	int_item(cJSON_GetObjectItemCaseSensitive(m, "bytes"), 0, INT64_MAX, &bytes);
	if ((rc = store_stmt(
		 db,
		 "INSERT INTO snapshots(handle, lineage, seq, created_ns, tree_hash, files, bytes, changed, walk) "
		 "VALUES (?1, ?2, 1, ?3, ?4, ?5, ?6, ?5, 'import')",
		 &q, e)) != 0)
		return rc;
	store_bind_text(db, q, 1, handle, e);
	store_bind_i64(db, q, 2, lineage, e);
	store_bind_i64(db, q, 3, created, e);
	store_bind_text(db, q, 4, tree_hash, e);
	store_bind_i64(db, q, 5, files, e);
	store_bind_i64(db, q, 6, bytes, e);
	if ((rc = store_step_done(db, q, e, "cannot record the imported snapshot")) != 0)
		return rc;
	/* The tree hash recomputed from what was just inserted must be the recorded one. */
	char th[SNAP_TREE_HASH_LEN];
	if ((rc = snap_tree_hash_handle(st, handle, th, e)) != 0)
		return rc;
	if (strcmp(th, tree_hash) != 0)
		return err_set(e, BELAY_ECORRUPT, "snapshot %s: its entries hash to %s, not to the recorded %s", handle,
			       th, tree_hash);
	*added = 1;
	return 0;
}
