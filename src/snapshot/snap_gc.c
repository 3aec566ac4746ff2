/* snap_gc.c - snapshot references and garbage collection: snapshots nobody refers to (and
 * older than the grace period) go, then the manifest rows no kept snapshot contains, then
 * the objects no row refers to and no object reference keeps (snap_object.c); packs
 * holding dead bytes are rewritten (live objects copied into a new pack, the old one
 * dropped) and empty ones removed.
 *
 * Safety: gc holds gc.lock exclusively (captures and reads hold it shared), never touches
 * a pack a writer holds (flock), and keeps every row still open (died IS NULL) in a
 * lineage whose snapshotter is alive (its OFD lock is held), because the next capture
 * inherits those rows. File deletions happen only after the index commit.
 * Must not: print. Threads: any thread, with its own snap_store. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "common/fsutil.h"
#include "common/xalloc.h"
#include "snapshot/snap_internal.h"
#include "store/store.h"

int snap_ref_add(struct snap_store *st, const char *handle, const char *owner_kind, const char *owner_id,
		 struct err *e)
{
	struct snap_handle_info hi;
	int rc = snap_handle_lookup(st, handle, &hi, e);
	if (rc)
		return rc;
	sqlite3_stmt *q;
	if ((rc = store_stmt(st->db, "INSERT OR IGNORE INTO snapshot_refs(handle, owner_kind, owner_id) VALUES (?1, ?2, ?3)",
			     &q, e)) != 0)
		return rc;
	store_bind_text(st->db, q, 1, handle, e);
	store_bind_text(st->db, q, 2, owner_kind, e);
	store_bind_text(st->db, q, 3, owner_id, e);
	return store_step_done(st->db, q, e, "cannot add a snapshot reference");
}

int snap_ref_drop(struct snap_store *st, const char *handle, const char *owner_kind, const char *owner_id,
		  struct err *e)
{
	sqlite3_stmt *q;
	int rc = store_stmt(st->db, "DELETE FROM snapshot_refs WHERE handle = ?1 AND owner_kind = ?2 AND owner_id = ?3",
			    &q, e);
	if (rc)
		return rc;
	store_bind_text(st->db, q, 1, handle, e);
	store_bind_text(st->db, q, 2, owner_kind, e);
	store_bind_text(st->db, q, 3, owner_id, e);
	return store_step_done(st->db, q, e, "cannot drop a snapshot reference");
}

/*==== helpers ====*/

struct strvec {
	char **v;
	size_t n;
};

static void sv_push(struct strvec *s, char *x)
{
	s->v = xrealloc(s->v, (s->n + 1) * sizeof *s->v);
	s->v[s->n++] = x;
}

static void sv_free(struct strvec *s)
{
	for (size_t i = 0; i < s->n; i++)
		free(s->v[i]);
	free(s->v);
	memset(s, 0, sizeof *s);
}

static int64_t objdir_bytes(struct snap_store *st)
{
	struct snap_store_stats s;
	if (snap_store_stats(st, &s, NULL) != 0)
		return -1;
	return s.pack_bytes + s.loose_bytes;
}

static int exec_changes(struct snap_store *st, const char *sql, int64_t a, int64_t *changes, struct err *e)
{
	sqlite3_stmt *q;
	int rc = store_stmt(st->db, sql, &q, e);
	if (rc)
		return rc;
	if (sqlite3_bind_parameter_count(q) >= 1)
		store_bind_i64(st->db, q, 1, a, e);
	if ((rc = store_step_done(st->db, q, e, "gc")) != 0)
		return rc;
	if (changes)
		*changes += sqlite3_changes(store_db(st->db));
	return 0;
}

static char *pack_file(struct snap_store *st, int64_t id)
{
	return xasprintf("%s/pack-%06lld.pack", st->objdir, (long long)id);
}

/* Opens a pack and takes its lock without waiting: -1 when a writer holds it (or it is
 * missing: *missing set). */
static int lock_pack(struct snap_store *st, int64_t id, int *missing)
{
	char *p = pack_file(st, id);
	int fd = open(p, O_RDWR | O_CLOEXEC | O_NOFOLLOW);
	free(p);
	*missing = fd < 0 && errno == ENOENT;
	if (fd < 0)
		return -1;
	if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
		close(fd);
		return -1;
	}
	return fd;
}

static int copy_object(struct snap_store *st, int src, uint64_t off, uint64_t len, const uint8_t oid[SHA256_LEN],
		       int dst, uint64_t *dst_end, struct err *e)
{
	size_t total = SNAP_OBJ_HDR + (size_t)len;
	char *buf = xmalloc(total);
	int rc = 0;
	ssize_t r = pread(src, buf, total, (off_t)off);
	uint8_t got[SHA256_LEN];
	if (r != (ssize_t)total || memcmp(buf, SNAP_OBJ_MAGIC, 4) != 0 || memcmp(buf + 16, oid, SHA256_LEN) != 0) {
		rc = err_set(e, BELAY_ECORRUPT, "a pack record at offset %llu is unreadable", (unsigned long long)off);
	} else {
		sha256(buf + SNAP_OBJ_HDR, (size_t)len, got);
		if (memcmp(got, oid, SHA256_LEN) != 0)
			rc = err_set(e, BELAY_ECORRUPT, "a pack record at offset %llu does not match its hash",
				     (unsigned long long)off);
	}
	if (rc == 0) {
		ssize_t w = pwrite(dst, buf, total, (off_t)*dst_end);
		if (w != (ssize_t)total)
			rc = err_set(e, w < 0 ? -errno : -EIO, "cannot write a new pack: %s",
				     strerror(w < 0 ? errno : EIO));
		else
			*dst_end += total;
	}
	free(buf);
	(void)st;
	return rc;
}

/* Copies pack `id`'s live objects into a new sealed pack and repoints the index. */
static int rewrite_pack(struct snap_store *st, int64_t id, int src, struct strvec *unlink_after, struct err *e)
{
	sqlite3_stmt *q;
	int rc = store_stmt(st->db, "INSERT INTO packs(size, sealed) VALUES (?1, 1)", &q, e);
	if (rc)
		return rc;
	store_bind_i64(st->db, q, 1, SNAP_PACK_HDR, e);
	if ((rc = store_step_done(st->db, q, e, "cannot add a pack")) != 0)
		return rc;
	int64_t nid = sqlite3_last_insert_rowid(store_db(st->db));
	char *np = pack_file(st, nid);
	int dst = open(np, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (dst < 0) {
		rc = err_set(e, -errno, "cannot create %s: %s", np, strerror(errno));
		free(np);
		return rc;
	}
	unsigned char hdr[SNAP_PACK_HDR] = {0};
	memcpy(hdr, SNAP_PACK_MAGIC, 8);
	hdr[8] = 1;
	uint64_t end = SNAP_PACK_HDR;
	if (pwrite(dst, hdr, sizeof hdr, 0) != (ssize_t)sizeof hdr)
		rc = err_set(e, -EIO, "cannot write %s", np);
	struct {
		uint8_t oid[SHA256_LEN];
		uint64_t off, len, noff;
	} *objs = NULL;
	size_t n = 0, cap = 0;
	if (rc == 0 && (rc = store_stmt(st->db, "SELECT oid, off, len FROM objects WHERE pack = ?1 ORDER BY off", &q, e)) == 0) {
		store_bind_i64(st->db, q, 1, id, e);
		while (sqlite3_step(q) == SQLITE_ROW) {
			objs = xgrow_zeroed(objs, &cap, n, sizeof *objs, 256);
			memcpy(objs[n].oid, sqlite3_column_blob(q, 0), SHA256_LEN);
			objs[n].off = (uint64_t)sqlite3_column_int64(q, 1);
			objs[n].len = (uint64_t)sqlite3_column_int64(q, 2);
			n++;
		}
		sqlite3_reset(q);
	}
	for (size_t i = 0; i < n && rc == 0; i++) {
		objs[i].noff = end;
		rc = copy_object(st, src, objs[i].off, objs[i].len, objs[i].oid, dst, &end, e);
	}
	for (size_t i = 0; i < n && rc == 0; i++) {
		if ((rc = store_stmt(st->db, "UPDATE objects SET pack = ?2, off = ?3 WHERE oid = ?1", &q, e)) != 0)
			break;
		store_bind_blob(st->db, q, 1, objs[i].oid, SHA256_LEN, e);
		store_bind_i64(st->db, q, 2, nid, e);
		store_bind_i64(st->db, q, 3, (int64_t)objs[i].noff, e);
		rc = store_step_done(st->db, q, e, "cannot repoint an object");
	}
	free(objs);
	if (rc == 0 && (rc = store_stmt(st->db, "UPDATE packs SET size = ?2 WHERE id = ?1", &q, e)) == 0) {
		store_bind_i64(st->db, q, 1, nid, e);
		store_bind_i64(st->db, q, 2, (int64_t)end, e);
		rc = store_step_done(st->db, q, e, "cannot record a pack's length");
	}
	if (rc == 0)
		rc = exec_changes(st, "DELETE FROM packs WHERE id = ?1", id, NULL, e);
	close(dst);
	if (rc) {
		unlink(np);
		free(np);
	} else {
		sv_push(unlink_after, pack_file(st, id));
		free(np);
	}
	return rc;
}

/*==== gc ====*/

int snap_gc(struct snap_store *st, const struct snap_gc_opts *o, struct snap_gc_report *out, struct err *e)
{
	struct snap_gc_report rep = {0};
	int64_t grace = o ? o->grace_ms : SNAP_GC_DEFAULT_GRACE_MS;
	if (grace < 0)
		grace = 0;
	if (st->gc_depth > 0)
		return err_set(e, BELAY_EINVAL, "gc cannot run while this store is reading or capturing");
	while (flock(st->gc_fd, LOCK_EX) != 0) {
		if (errno != EINTR)
			return err_set(e, -errno, "cannot lock %s/gc.lock: %s", st->dir, strerror(errno));
	}
	snap_store_close_readers(st);
	if (st->pack_fd >= 0 && st->npending == 0) { /* our own idle pack may be compacted too */
		close(st->pack_fd);
		st->pack_fd = -1;
	}
	rep.bytes_before = objdir_bytes(st);
	struct strvec unlink_after = {0};
	int *held = NULL;
	size_t nheld = 0;
	sqlite3_stmt *q;
	int rc = store_begin(st->db, e);
	if (rc)
		goto out_unlock;

	/* 1. lineages whose snapshotter is gone (closed, or its process died) */
	int64_t *ids = NULL;
	size_t nids = 0;
	if ((rc = store_stmt(st->db, "SELECT id FROM lineages WHERE closed = 0", &q, e)) != 0)
		goto fail;
	while (sqlite3_step(q) == SQLITE_ROW) {
		ids = xrealloc(ids, (nids + 1) * sizeof *ids);
		ids[nids++] = sqlite3_column_int64(q, 0);
	}
	sqlite3_reset(q);
	for (size_t i = 0; i < nids && rc == 0; i++)
		if (!snap_store_lineage_live(st, ids[i]))
			rc = exec_changes(st, "UPDATE lineages SET closed = 1 WHERE id = ?1", ids[i], NULL, e);
	free(ids);
	if (rc)
		goto fail;

	/* 2. snapshots nobody refers to, past the grace period */
	struct timespec now;
	clock_gettime(CLOCK_REALTIME, &now);
	int64_t cutoff = (int64_t)now.tv_sec * 1000000000LL + now.tv_nsec - grace * 1000000LL;
	if ((rc = exec_changes(st,
			       "DELETE FROM snapshots WHERE created_ns < ?1 AND NOT EXISTS "
			       "(SELECT 1 FROM snapshot_refs r WHERE r.handle = snapshots.handle)",
			       cutoff, &rep.snapshots_removed, e)) != 0)
		goto fail;

	/* 3. rows no kept snapshot contains (open rows of live lineages stay: the next
	 *    capture inherits them) */
	if ((rc = exec_changes(st,
			       "DELETE FROM entries WHERE NOT (died IS NULL AND lineage IN "
			       "(SELECT id FROM lineages WHERE closed = 0)) AND NOT EXISTS (SELECT 1 FROM snapshots s "
			       "WHERE s.lineage = entries.lineage AND s.seq >= entries.born AND "
			       "(entries.died IS NULL OR s.seq < entries.died))",
			       0, &rep.entries_removed, e)) != 0)
		goto fail;
	if ((rc = exec_changes(st,
			       "DELETE FROM lineages WHERE closed = 1 AND NOT EXISTS (SELECT 1 FROM entries WHERE "
			       "entries.lineage = lineages.id) AND NOT EXISTS (SELECT 1 FROM snapshots WHERE "
			       "snapshots.lineage = lineages.id)",
			       0, &rep.lineages_removed, e)) != 0)
		goto fail;

	/* 4. objects no row refers to and no owner keeps (object_refs: a trial's output) */
	if ((rc = store_stmt(st->db,
			     "SELECT oid FROM objects WHERE pack IS NULL AND NOT EXISTS "
			     "(SELECT 1 FROM entries WHERE entries.oid = objects.oid) AND NOT EXISTS "
			     "(SELECT 1 FROM object_refs r WHERE r.oid = objects.oid)",
			     &q, e)) != 0)
		goto fail;
	while (sqlite3_step(q) == SQLITE_ROW) {
		uint8_t oid[SHA256_LEN];
		memcpy(oid, sqlite3_column_blob(q, 0), SHA256_LEN);
		sv_push(&unlink_after, snap_store_loose_path(st, oid));
		rep.loose_removed++;
	}
	sqlite3_reset(q);
	if ((rc = exec_changes(st, "DELETE FROM objects WHERE NOT EXISTS (SELECT 1 FROM entries WHERE entries.oid = objects.oid) "
			       "AND NOT EXISTS (SELECT 1 FROM object_refs r WHERE r.oid = objects.oid)",
			       0, &rep.objects_removed, e)) != 0)
		goto fail;

	/* 5. packs: drop empty ones, rewrite those carrying dead bytes */
	struct pk {
		int64_t id, size;
	} *packs = NULL;
	size_t npacks = 0;
	if ((rc = store_stmt(st->db, "SELECT id, size FROM packs ORDER BY id", &q, e)) != 0)
		goto fail;
	while (sqlite3_step(q) == SQLITE_ROW) {
		packs = xrealloc(packs, (npacks + 1) * sizeof *packs);
		packs[npacks].id = sqlite3_column_int64(q, 0);
		packs[npacks].size = sqlite3_column_int64(q, 1);
		npacks++;
	}
	sqlite3_reset(q);
	for (size_t i = 0; i < npacks && rc == 0; i++) {
		int missing = 0;
		int fd = lock_pack(st, packs[i].id, &missing);
		int64_t cnt = 0, live = 0;
		if ((rc = store_stmt(st->db, "SELECT count(*), coalesce(sum(len), 0) FROM objects WHERE pack = ?1", &q, e)) != 0) {
			if (fd >= 0)
				close(fd);
			break;
		}
		store_bind_i64(st->db, q, 1, packs[i].id, e);
		if (sqlite3_step(q) == SQLITE_ROW) {
			cnt = sqlite3_column_int64(q, 0);
			live = sqlite3_column_int64(q, 1);
		}
		sqlite3_reset(q);
		if (fd < 0) {
			if (missing && cnt == 0) /* a row whose file was never made */
				rc = exec_changes(st, "DELETE FROM packs WHERE id = ?1", packs[i].id, &rep.packs_removed, e);
			continue; /* a writer holds it: leave it alone */
		}
		held = xrealloc(held, (nheld + 1) * sizeof *held);
		held[nheld++] = fd;
		struct stat sb;
		int64_t fsize = fstat(fd, &sb) == 0 ? (int64_t)sb.st_size : packs[i].size;
		if (cnt == 0) {
			rc = exec_changes(st, "DELETE FROM packs WHERE id = ?1", packs[i].id, &rep.packs_removed, e);
			if (rc == 0)
				sv_push(&unlink_after, pack_file(st, packs[i].id));
		} else if (SNAP_PACK_HDR + live + cnt * SNAP_OBJ_HDR < fsize) {
			rc = rewrite_pack(st, packs[i].id, fd, &unlink_after, e);
			if (rc == 0)
				rep.packs_rewritten++;
		}
	}
	free(packs);
	if (rc)
		goto fail;

	/* 6. pack files the index does not know (a crash between create and commit) */
	DIR *d = opendir(st->objdir);
	struct dirent *de;
	while (d && (de = readdir(d)) != NULL) {
		long long id;
		char tail;
		if (sscanf(de->d_name, "pack-%lld.pac%c", &id, &tail) != 2 || tail != 'k')
			continue;
		if ((rc = store_stmt(st->db, "SELECT 1 FROM packs WHERE id = ?1", &q, e)) != 0)
			break;
		store_bind_i64(st->db, q, 1, id, e);
		int known = sqlite3_step(q) == SQLITE_ROW;
		sqlite3_reset(q);
		int missing;
		int fd = known ? -1 : lock_pack(st, id, &missing);
		if (fd >= 0) {
			held = xrealloc(held, (nheld + 1) * sizeof *held);
			held[nheld++] = fd;
			sv_push(&unlink_after, pack_file(st, id));
		}
	}
	if (d)
		closedir(d);
	if (rc)
		goto fail;
	if ((rc = store_commit(st->db, e)) != 0)
		goto out_unlock;
	for (size_t i = 0; i < unlink_after.n; i++)
		unlink(unlink_after.v[i]);
	store_exec(st->db, "PRAGMA wal_checkpoint(TRUNCATE)", NULL);
	goto out_unlock;
fail:
	store_rollback(st->db);
out_unlock:
	for (size_t i = 0; i < nheld; i++)
		close(held[i]);
	free(held);
	sv_free(&unlink_after);
	rep.bytes_after = objdir_bytes(st);
	flock(st->gc_fd, LOCK_UN);
	if (out)
		*out = rep;
	return rc;
}
