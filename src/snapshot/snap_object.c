/* snap_object.c - objects of the store kept for an owner of their own rather than through a
 * snapshot's manifest (a trial's full output, docs/TRY.md): stored and referenced in one
 * commit (object_refs, migration 10), read back verified, and the references of owners that
 * are gone dropped so that gc may take their objects. See snapshot.h.
 *
 * Must not: print. Threads: the store's (one thread at a time). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "common/fsutil.h"
#include "common/xalloc.h"
#include "snapshot/snap_internal.h"
#include "store/store.h"

/* A large object as a loose file, as captures store them (snap_store_put_fd reads an fd). */
static int put_loose(struct snap_store *st, const uint8_t oid[SHA256_LEN], const void *p, size_t n, struct err *e)
{
	int fd = memfd_create("belay-object", MFD_CLOEXEC);
	if (fd < 0)
		return err_set(e, -errno, "cannot make a memfd for an object: %s", strerror(errno));
	int rc = fs_write_all(fd, p, n);
	if (rc)
		rc = err_set(e, rc, "cannot write an object's bytes to a memfd: %s", strerror(-rc));
	else
		rc = snap_store_put_fd(st, oid, fd, n, e);
	close(fd);
	return rc;
}

int snap_object_put(struct snap_store *st, const void *p, size_t n, const char *owner_kind, const char *owner_id,
		    char hex[SHA256_HEX_LEN + 1], struct err *e)
{
	uint8_t oid[SHA256_LEN];
	sha256(p ? p : "", n, oid);
	hex_encode(oid, SHA256_LEN, hex);
	int rc = snap_store_lock_shared(st, e);
	if (rc)
		return rc;
	int have = snap_store_has(st, oid, e);
	if (have < 0) {
		rc = have;
		goto out;
	}
	if (!have)
		rc = n >= SNAP_LOOSE_MIN ? put_loose(st, oid, p, n, e) : snap_store_put_mem(st, oid, p ? p : "", n, e);
	if (rc)
		goto rollback;
	if ((rc = store_begin(st->db, e)) != 0)
		goto rollback;
	sqlite3_stmt *q;
	if ((rc = snap_store_commit_pending(st, e)) != 0 ||
	    (rc = store_stmt(st->db, "INSERT OR IGNORE INTO object_refs(oid, owner_kind, owner_id) VALUES (?1, ?2, ?3)", &q,
			     e)) != 0) {
		store_rollback(st->db);
		goto rollback;
	}
	store_bind_blob(st->db, q, 1, oid, SHA256_LEN, e);
	store_bind_text(st->db, q, 2, owner_kind, e);
	store_bind_text(st->db, q, 3, owner_id, e);
	if ((rc = store_step_done(st->db, q, e, "cannot add an object reference")) != 0 ||
	    (rc = store_commit(st->db, e)) != 0) {
		store_rollback(st->db);
		goto rollback;
	}
	snap_store_after_commit(st);
	goto out;
rollback:
	snap_store_rollback_pending(st);
out:
	snap_store_unlock(st);
	return rc;
}

int snap_object_read(struct snap_store *st, const char *hex, struct buf *out, struct err *e)
{
	uint8_t oid[SHA256_LEN];
	if (strlen(hex) != SHA256_HEX_LEN || hex_decode(hex, oid, SHA256_LEN) != 0)
		return err_set(e, BELAY_EINVAL, "'%s' is not an object name (64 hex digits)", hex);
	int rc = snap_store_lock_shared(st, e);
	if (rc)
		return rc;
	size_t was = out->len;
	rc = snap_store_read_object(st, oid, -1, out, e);
	if (rc)
		out->len = was; /* nothing half read is handed on */
	snap_store_unlock(st);
	return rc;
}

/* The distinct owners of owner_kind among the snapshot and object references. */
static int owners_of(struct snap_store *st, const char *owner_kind, char ***v, size_t *n, struct err *e)
{
	sqlite3_stmt *q;
	int rc = store_stmt(st->db,
			    "SELECT owner_id FROM snapshot_refs WHERE owner_kind = ?1 UNION "
			    "SELECT owner_id FROM object_refs WHERE owner_kind = ?1",
			    &q, e);
	if (rc)
		return rc;
	store_bind_text(st->db, q, 1, owner_kind, e);
	int r;
	while ((r = sqlite3_step(q)) == SQLITE_ROW) {
		const char *id = (const char *)sqlite3_column_text(q, 0);
		*v = xrealloc(*v, (*n + 1) * sizeof **v);
		(*v)[(*n)++] = xstrdup(id ? id : "");
	}
	sqlite3_reset(q);
	return r == SQLITE_DONE ? 0 : store_fail(st->db, e, "cannot list the references");
}

static int drop_owner(struct snap_store *st, const char *sql, const char *owner_kind, const char *owner_id,
		      struct err *e)
{
	sqlite3_stmt *q;
	int rc = store_stmt(st->db, sql, &q, e);
	if (rc)
		return rc;
	store_bind_text(st->db, q, 1, owner_kind, e);
	store_bind_text(st->db, q, 2, owner_id, e);
	return store_step_done(st->db, q, e, "cannot drop a reference");
}

int snap_refs_prune(struct snap_store *st, const char *owner_kind, int (*alive)(void *ctx, const char *owner_id),
		    void *ctx, struct err *e)
{
	char **v = NULL;
	size_t n = 0;
	int rc = owners_of(st, owner_kind, &v, &n, e), dropped = 0;
	for (size_t i = 0; rc == 0 && i < n; i++) {
		if (alive(ctx, v[i]))
			continue;
		if ((rc = store_begin(st->db, e)) != 0)
			break;
		if ((rc = drop_owner(st, "DELETE FROM snapshot_refs WHERE owner_kind = ?1 AND owner_id = ?2", owner_kind, v[i],
				     e)) != 0 ||
		    (rc = drop_owner(st, "DELETE FROM object_refs WHERE owner_kind = ?1 AND owner_id = ?2", owner_kind, v[i],
				     e)) != 0 ||
		    (rc = store_commit(st->db, e)) != 0) {
			store_rollback(st->db);
			break;
		}
		dropped++;
	}
	for (size_t i = 0; i < n; i++)
		free(v[i]);
	free(v);
	return rc ? rc : dropped;
}
