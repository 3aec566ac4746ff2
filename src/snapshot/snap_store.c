/* snap_store.c - the content-addressed object store under a state dir: append-only pack
 * files (objects/pack-NNNNNN.pack) indexed in SQLite (objects: sha256 -> pack, offset,
 * length), loose files for large objects, the locks that keep gc away from running
 * captures and reads, and store statistics.
 *
 * Layout and formats: docs/SNAPSHOTS.md. Writes go to one pack per store at a time, held
 * with flock(LOCK_EX) so no two writers share a pack; bytes past a pack's committed size
 * are an uncommitted tail, cut off before the pack is appended to again.
 * Must not: know about manifests or trees; print.
 * Threads: a snap_store is used by one thread at a time (it owns one SQLite connection). */
#include "snapshot/snap_internal.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include "common/fsutil.h"
#include "common/xalloc.h"
#include "store/store.h"

/*==== opening ====*/

/* Absolute, lexically normal form of p, with symlinks resolved in the longest prefix that
 * exists (the rest does not exist yet, so it cannot be a link). New string. */
static char *resolve_maybe_missing(const char *p)
{
	char *abs;
	if (p[0] == '/') {
		abs = xstrdup(p);
	} else {
		char cwd[PATH_MAX];
		if (!getcwd(cwd, sizeof cwd))
			return NULL;
		abs = fs_join(cwd, p);
	}
	char *norm = fs_normalize(abs);
	free(abs);
	size_t cut = strlen(norm);
	for (;;) {
		char *prefix = cut ? xstrndup(norm, cut) : xstrdup("/");
		char *real = realpath(prefix, NULL);
		free(prefix);
		if (real) {
			char *out = xasprintf("%s%s", strcmp(real, "/") == 0 && norm[cut] == '/' ? "" : real, norm + cut);
			free(real);
			free(norm);
			return out;
		}
		if (cut == 0) {
			free(norm);
			return NULL;
		}
		while (cut > 0 && norm[cut - 1] != '/')
			cut--;
		if (cut > 0)
			cut--;
	}
}

int snap_store_open(const char *state_dir, const char *refuse_inside, struct snap_store **out, struct err *e)
{
	*out = NULL;
	char *state = resolve_maybe_missing(state_dir);
	if (!state)
		return err_set(e, BELAY_EINVAL, "cannot resolve the state directory %s", state_dir);
	if (refuse_inside) {
		char *ws = resolve_maybe_missing(refuse_inside);
		if (ws && (fs_is_under(state, ws) || fs_is_under(ws, state))) {
			int inside = fs_is_under(state, ws);
			err_set(e, BELAY_EREFUSED,
				inside ? "refusing the state directory %s: it is inside the workspace %s, so snapshots "
					 "would capture the store itself"
				       : "refusing the state directory %s: the workspace %s lies inside it",
				state, ws);
			free(ws);
			free(state);
			return BELAY_EREFUSED;
		}
		free(ws);
	}
	int rc = fs_mkdir_p(state, 0700, e);
	if (rc) {
		free(state);
		return rc;
	}
	struct snap_store *st = xcalloc(1, sizeof *st);
	st->dir = state;
	st->objdir = fs_join(state, "objects");
	st->gc_fd = st->lineage_fd = st->pack_fd = -1;
	if (mkdir(st->objdir, 0700) != 0 && errno != EEXIST) {
		rc = err_set(e, -errno, "cannot create %s: %s", st->objdir, strerror(errno));
		goto fail;
	}
	char *dbpath = fs_join(state, "belay.db");
	rc = store_open(dbpath, &st->db, e);
	free(dbpath);
	if (rc)
		goto fail;
	char *lk = fs_join(state, "gc.lock");
	st->gc_fd = open(lk, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
	free(lk);
	lk = fs_join(state, "lineages.lock");
	st->lineage_fd = open(lk, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
	free(lk);
	if (st->gc_fd < 0 || st->lineage_fd < 0) {
		rc = err_set(e, -errno, "cannot open the lock files in %s: %s", state, strerror(errno));
		goto fail;
	}
	*out = st;
	return 0;
fail:
	snap_store_close(st);
	return rc;
}

int snap_store_open_readonly(const char *state_dir, struct snap_store **out, struct err *e)
{
	*out = NULL;
	char *state = realpath(state_dir, NULL);
	if (!state)
		return err_set(e, -errno, "cannot open the store %s: %s", state_dir, strerror(errno));
	struct snap_store *st = xcalloc(1, sizeof *st);
	st->dir = state;
	st->objdir = fs_join(state, "objects");
	st->gc_fd = st->lineage_fd = st->pack_fd = -1;
	char *dbpath = fs_join(state, "belay.db"), *wal = xasprintf("%s-wal", dbpath);
	struct stat sb;
	int rc = 0;
	/* immutable reads ignore a write-ahead log: one that holds commits would hide them */
	if (stat(wal, &sb) == 0 && sb.st_size > 0)
		rc = err_set(e, BELAY_EREFUSED,
			     "%s has an unfinished write-ahead log (%s, %lld bytes): open the store read-write once (any belay "
			     "command with --state there checkpoints it), or bundle the traces",
			     state, wal, (long long)sb.st_size);
	else
		rc = store_open_readonly(dbpath, &st->db, e);
	free(wal);
	free(dbpath);
	if (rc) {
		snap_store_close(st);
		return rc;
	}
	*out = st;
	return 0;
}

const char *snap_store_dir(const struct snap_store *st)
{
	return st->dir;
}

void snap_store_close_readers(struct snap_store *st)
{
	for (size_t i = 0; i < st->nrd; i++)
		close(st->rd[i].fd);
	free(st->rd);
	st->rd = NULL;
	st->nrd = 0;
}

void snap_store_close(struct snap_store *st)
{
	if (!st)
		return;
	snap_store_rollback_pending(st);
	if (st->pack_fd >= 0)
		close(st->pack_fd); /* releases the flock */
	snap_store_close_readers(st);
	if (st->gc_fd >= 0)
		close(st->gc_fd);
	if (st->lineage_fd >= 0)
		close(st->lineage_fd);
	store_close(st->db);
	free(st->pending);
	free(st->pidx);
	free(st->dir);
	free(st->objdir);
	free(st);
}

/*==== locks ====*/

int snap_store_lock_shared(struct snap_store *st, struct err *e)
{
	if (st->gc_depth++ > 0 || st->gc_fd < 0) /* read-only: no gc lock to take */
		return 0;
	while (flock(st->gc_fd, LOCK_SH) != 0) {
		if (errno == EINTR)
			continue;
		st->gc_depth--;
		return err_set(e, -errno, "cannot lock %s/gc.lock: %s", st->dir, strerror(errno));
	}
	return 0;
}

void snap_store_unlock(struct snap_store *st)
{
	if (st->gc_depth > 0 && --st->gc_depth == 0 && st->gc_fd >= 0)
		flock(st->gc_fd, LOCK_UN);
}

int snap_store_read_begin(struct snap_store *st)
{
	sqlite3 *db = store_db(st->db);
	if (!sqlite3_get_autocommit(db))
		return 0; /* already inside a transaction */
	return sqlite3_exec(db, "BEGIN", NULL, NULL, NULL) == SQLITE_OK;
}

void snap_store_read_end(struct snap_store *st, int began)
{
	if (began && sqlite3_exec(store_db(st->db), "COMMIT", NULL, NULL, NULL) != SQLITE_OK)
		sqlite3_exec(store_db(st->db), "ROLLBACK", NULL, NULL, NULL);
}

int snap_store_lineage_lock(struct snap_store *st, int64_t lineage, int lock, struct err *e)
{
	struct flock fl = {.l_type = lock ? F_WRLCK : F_UNLCK, .l_whence = SEEK_SET, .l_start = lineage, .l_len = 1};
	if (fcntl(st->lineage_fd, F_OFD_SETLK, &fl) != 0)
		return err_set(e, -errno, "cannot lock lineage %lld: %s", (long long)lineage, strerror(errno));
	return 0;
}

int snap_store_lineage_live(struct snap_store *st, int64_t lineage)
{
	/* Try to take it through a fresh open file description: a conflict means some
	 * snapshotter (in this process or another) holds it. */
	char *lk = fs_join(st->dir, "lineages.lock");
	int fd = open(lk, O_RDWR | O_CLOEXEC | O_NOFOLLOW);
	free(lk);
	if (fd < 0)
		return 1; /* cannot tell: assume live */
	struct flock fl = {.l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = lineage, .l_len = 1};
	int live = fcntl(fd, F_OFD_GETLK, &fl) != 0 || fl.l_type != F_UNLCK;
	close(fd);
	return live;
}

/*==== pending objects ====*/

/* Pending objects are found through an open-addressing index (slot -> index + 1) keyed by
 * the first 8 bytes of the oid: a first capture has one pending object per file. */
static size_t oid_slot(const uint8_t oid[SHA256_LEN], size_t cap)
{
	uint64_t h;
	memcpy(&h, oid, sizeof h);
	return (size_t)h & (cap - 1);
}

static void pidx_insert(struct snap_store *st, size_t i)
{
	size_t k = oid_slot(st->pending[i].oid, st->pidx_cap);
	while (st->pidx[k])
		k = (k + 1) & (st->pidx_cap - 1);
	st->pidx[k] = (uint32_t)i + 1;
}

static void pidx_clear(struct snap_store *st)
{
	if (st->pidx)
		memset(st->pidx, 0, st->pidx_cap * sizeof *st->pidx);
}

static int pending_find(const struct snap_store *st, const uint8_t oid[SHA256_LEN])
{
	if (!st->npending)
		return 0;
	for (size_t k = oid_slot(oid, st->pidx_cap); st->pidx[k]; k = (k + 1) & (st->pidx_cap - 1))
		if (memcmp(st->pending[st->pidx[k] - 1].oid, oid, SHA256_LEN) == 0)
			return 1;
	return 0;
}

static void pending_push(struct snap_store *st, const uint8_t oid[SHA256_LEN], int64_t pack, uint64_t off,
			 uint64_t len)
{
	if (st->npending == st->cappending) {
		st->cappending = st->cappending ? st->cappending * 2 : 64;
		st->pending = xrealloc(st->pending, st->cappending * sizeof *st->pending);
	}
	struct snap_pending *p = &st->pending[st->npending++];
	memcpy(p->oid, oid, SHA256_LEN);
	p->pack = pack;
	p->off = off;
	p->len = len;
	if ((st->npending + 1) * 2 > st->pidx_cap) {
		st->pidx_cap = st->pidx_cap ? st->pidx_cap * 2 : 256;
		while ((st->npending + 1) * 2 > st->pidx_cap)
			st->pidx_cap *= 2;
		free(st->pidx);
		st->pidx = xcalloc(st->pidx_cap, sizeof *st->pidx);
		for (size_t i = 0; i < st->npending; i++)
			pidx_insert(st, i);
	} else {
		pidx_insert(st, st->npending - 1);
	}
}

int snap_store_has(struct snap_store *st, const uint8_t oid[SHA256_LEN], struct err *e)
{
	if (pending_find(st, oid))
		return 1;
	sqlite3_stmt *s;
	int rc = store_stmt(st->db, "SELECT 1 FROM objects WHERE oid = ?1", &s, e);
	if (rc)
		return rc;
	if ((rc = store_bind_blob(st->db, s, 1, oid, SHA256_LEN, e)) != 0)
		return rc;
	int r = sqlite3_step(s);
	sqlite3_reset(s);
	if (r == SQLITE_ROW)
		return 1;
	if (r == SQLITE_DONE)
		return 0;
	return store_fail(st->db, e, "cannot look an object up");
}

/*==== packs ====*/

static char *pack_path(const struct snap_store *st, int64_t id)
{
	return xasprintf("%s/pack-%06lld.pack", st->objdir, (long long)id);
}

char *snap_store_loose_path(struct snap_store *st, const uint8_t oid[SHA256_LEN])
{
	char hex[SHA256_HEX_LEN + 1];
	hex_encode(oid, SHA256_LEN, hex);
	return xasprintf("%s/loose/%.2s/%s", st->objdir, hex, hex + 2);
}

static int adopt_pack(struct snap_store *st, int64_t id, uint64_t size)
{
	char *path = pack_path(st, id);
	int fd = open(path, O_RDWR | O_CLOEXEC | O_NOFOLLOW);
	free(path);
	if (fd < 0)
		return 0;
	struct stat sb;
	if (flock(fd, LOCK_EX | LOCK_NB) != 0 || fstat(fd, &sb) != 0 || (uint64_t)sb.st_size < size) {
		close(fd);
		return 0;
	}
	if ((uint64_t)sb.st_size > size && ftruncate(fd, (off_t)size) != 0) {
		close(fd);
		return 0;
	}
	st->pack_fd = fd;
	st->pack_id = id;
	st->pack_committed = st->pack_end = size;
	return 1;
}

static int ensure_pack(struct snap_store *st, struct err *e)
{
	if (st->pack_fd >= 0)
		return 0;
	sqlite3_stmt *s;
	int rc = store_stmt(st->db, "SELECT id, size FROM packs WHERE sealed = 0 AND size < ?1 ORDER BY id", &s, e);
	if (rc)
		return rc;
	store_bind_i64(st->db, s, 1, (int64_t)SNAP_PACK_TARGET, e);
	while (sqlite3_step(s) == SQLITE_ROW) {
		if (adopt_pack(st, sqlite3_column_int64(s, 0), (uint64_t)sqlite3_column_int64(s, 1))) {
			sqlite3_reset(s);
			return 0;
		}
	}
	sqlite3_reset(s);
	for (int tries = 0; tries < 8; tries++) {
		if ((rc = store_stmt(st->db, "INSERT INTO packs(size) VALUES (?1)", &s, e)) != 0)
			return rc;
		store_bind_i64(st->db, s, 1, SNAP_PACK_HDR, e);
		if ((rc = store_step_done(st->db, s, e, "cannot add a pack")) != 0)
			return rc;
		int64_t id = sqlite3_last_insert_rowid(store_db(st->db));
		char *path = pack_path(st, id);
		int fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
		if (fd < 0) {
			rc = err_set(e, -errno, "cannot create %s: %s", path, strerror(errno));
			free(path);
			return rc;
		}
		free(path);
		if (flock(fd, LOCK_EX | LOCK_NB) != 0) { /* another process adopted it first */
			close(fd);
			continue;
		}
		unsigned char hdr[SNAP_PACK_HDR] = {0};
		memcpy(hdr, SNAP_PACK_MAGIC, 8);
		hdr[8] = 1; /* version, u32le */
		if ((rc = fs_write_all(fd, hdr, sizeof hdr)) != 0) {
			close(fd);
			return err_set(e, rc, "cannot write a pack header: %s", strerror(-rc));
		}
		st->pack_fd = fd;
		st->pack_id = id;
		st->pack_committed = st->pack_end = SNAP_PACK_HDR;
		return 0;
	}
	return err_set(e, BELAY_ESTORE, "cannot obtain a pack to write to");
}

static void put_u32le(unsigned char *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}

static void put_u64le(unsigned char *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}

static uint64_t get_u64le(const unsigned char *p)
{
	uint64_t v = 0;
	for (int i = 7; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

static int pwrite_all(int fd, const struct iovec *iov0, int n, off_t off)
{
	struct iovec iov[4];
	memcpy(iov, iov0, (size_t)n * sizeof *iov);
	struct iovec *v = iov;
	while (n > 0) {
		ssize_t w = pwritev(fd, v, n, off);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		off += w;
		while (n > 0 && (size_t)w >= v->iov_len) {
			w -= (ssize_t)v->iov_len;
			v++;
			n--;
		}
		if (n > 0) {
			v->iov_base = (char *)v->iov_base + w;
			v->iov_len -= (size_t)w;
		}
	}
	return 0;
}

int snap_store_put_mem(struct snap_store *st, const uint8_t oid[SHA256_LEN], const void *p, size_t n,
		       struct err *e)
{
	int rc = ensure_pack(st, e);
	if (rc)
		return rc;
	unsigned char hdr[SNAP_OBJ_HDR] = {0};
	memcpy(hdr, SNAP_OBJ_MAGIC, 4);
	put_u32le(hdr + 4, 0);
	put_u64le(hdr + 8, n);
	memcpy(hdr + 16, oid, SHA256_LEN);
	struct iovec iov[2] = {{hdr, sizeof hdr}, {(void *)p, n}};
	if ((rc = pwrite_all(st->pack_fd, iov, 2, (off_t)st->pack_end)) != 0)
		return err_set(e, rc, "cannot append to pack %lld: %s", (long long)st->pack_id, strerror(-rc));
	pending_push(st, oid, st->pack_id, st->pack_end, n);
	st->pack_end += SNAP_OBJ_HDR + n;
	return 0;
}

int snap_store_put_fd(struct snap_store *st, const uint8_t oid[SHA256_LEN], int fd, uint64_t len, struct err *e)
{
	char *path = snap_store_loose_path(st, oid);
	char *dir = xstrndup(path, strrchr(path, '/') - path);
	char *tmp = xasprintf("%s/.tmp-%d-%s", dir, (int)getpid(), strrchr(path, '/') + 1);
	int rc = fs_mkdir_p(dir, 0700, e), out = -1;
	char *buf = NULL;
	if (rc)
		goto done;
	out = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (out < 0) {
		rc = err_set(e, -errno, "cannot create %s: %s", tmp, strerror(errno));
		goto done;
	}
	buf = xmalloc(1 << 20);
	struct sha256_ctx *c = sha256_new();
	uint64_t total = 0;
	for (;;) {
		ssize_t r = pread(fd, buf, 1 << 20, (off_t)total);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			rc = err_set(e, -errno, "cannot read: %s", strerror(errno));
			break;
		}
		if (r == 0)
			break;
		sha256_update(c, buf, (size_t)r);
		if ((rc = fs_write_all(out, buf, (size_t)r)) != 0) {
			rc = err_set(e, rc, "cannot write %s: %s", tmp, strerror(-rc));
			break;
		}
		total += (uint64_t)r;
	}
	uint8_t got[SHA256_LEN];
	sha256_final(c, got);
	if (rc == 0 && (total != len || memcmp(got, oid, SHA256_LEN) != 0))
		rc = err_set(e, BELAY_EINVAL, "the file changed while it was being stored");
	if (rc == 0 && rename(tmp, path) != 0)
		rc = err_set(e, -errno, "cannot rename %s: %s", tmp, strerror(errno));
	if (rc == 0)
		pending_push(st, oid, 0, 0, len);
done:
	if (out >= 0)
		close(out);
	if (rc)
		unlink(tmp);
	free(buf);
	free(tmp);
	free(dir);
	free(path);
	return rc;
}

int snap_store_commit_pending(struct snap_store *st, struct err *e)
{
	sqlite3_stmt *s;
	int rc = 0;
	for (size_t i = 0; i < st->npending && rc == 0; i++) {
		const struct snap_pending *p = &st->pending[i];
		if ((rc = store_stmt(st->db, "INSERT OR IGNORE INTO objects(oid, pack, off, len) VALUES (?1, ?2, ?3, ?4)",
				     &s, e)) != 0)
			break;
		store_bind_blob(st->db, s, 1, p->oid, SHA256_LEN, e);
		if (p->pack) {
			store_bind_i64(st->db, s, 2, p->pack, e);
			store_bind_i64(st->db, s, 3, (int64_t)p->off, e);
		}
		store_bind_i64(st->db, s, 4, (int64_t)p->len, e);
		rc = store_step_done(st->db, s, e, "cannot index an object");
	}
	if (rc == 0 && st->pack_fd >= 0 && st->pack_end != st->pack_committed) {
		if ((rc = store_stmt(st->db, "UPDATE packs SET size = ?2, sealed = ?3 WHERE id = ?1", &s, e)) != 0)
			return rc;
		store_bind_i64(st->db, s, 1, st->pack_id, e);
		store_bind_i64(st->db, s, 2, (int64_t)st->pack_end, e);
		store_bind_i64(st->db, s, 3, st->pack_end >= SNAP_PACK_TARGET, e);
		rc = store_step_done(st->db, s, e, "cannot record a pack's length");
	}
	return rc;
}

void snap_store_after_commit(struct snap_store *st)
{
	st->npending = 0;
	pidx_clear(st);
	if (st->pack_fd < 0)
		return;
	st->pack_committed = st->pack_end;
	if (st->pack_end >= SNAP_PACK_TARGET) { /* sealed: the next write starts a new pack */
		close(st->pack_fd);
		st->pack_fd = -1;
	}
}

void snap_store_rollback_pending(struct snap_store *st)
{
	for (size_t i = 0; i < st->npending; i++) {
		if (st->pending[i].pack == 0) {
			char *p = snap_store_loose_path(st, st->pending[i].oid);
			unlink(p);
			free(p);
		}
	}
	st->npending = 0;
	pidx_clear(st);
	if (st->pack_fd >= 0 && st->pack_end != st->pack_committed) {
		if (ftruncate(st->pack_fd, (off_t)st->pack_committed) == 0)
			st->pack_end = st->pack_committed;
	}
}

/*==== reading ====*/

static int reader_fd(struct snap_store *st, int64_t id, struct err *e)
{
	for (size_t i = 0; i < st->nrd; i++)
		if (st->rd[i].id == id)
			return st->rd[i].fd;
	char *path = pack_path(st, id);
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0) {
		int rc = err_set(e, -errno, "cannot open %s: %s", path, strerror(errno));
		free(path);
		return rc;
	}
	free(path);
	st->rd = xrealloc(st->rd, (st->nrd + 1) * sizeof *st->rd);
	st->rd[st->nrd].id = id;
	st->rd[st->nrd].fd = fd;
	st->nrd++;
	return fd;
}

static int all_zero(const char *p, size_t n)
{
	static const char z[4096];
	while (n >= sizeof z) {
		if (memcmp(p, z, sizeof z))
			return 0;
		p += sizeof z;
		n -= sizeof z;
	}
	return memcmp(p, z, n) == 0;
}

static int pread_all(int fd, void *p, size_t n, off_t off)
{
	char *c = p;
	while (n > 0) {
		ssize_t r = pread(fd, c, n, off);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return -errno;
		if (r == 0)
			return -EIO;
		c += r;
		n -= (size_t)r;
		off += r;
	}
	return 0;
}

int snap_store_locate(struct snap_store *st, const uint8_t oid[SHA256_LEN], int64_t *pack, uint64_t *off, uint64_t *len,
		      struct err *e)
{
	sqlite3_stmt *s;
	int rc = store_stmt(st->db, "SELECT pack, off, len FROM objects WHERE oid = ?1", &s, e);
	if (rc)
		return rc;
	store_bind_blob(st->db, s, 1, oid, SHA256_LEN, e);
	int r = sqlite3_step(s);
	if (r != SQLITE_ROW) {
		sqlite3_reset(s);
		if (r == SQLITE_DONE) {
			char hex[SHA256_HEX_LEN + 1];
			hex_encode(oid, SHA256_LEN, hex);
			return err_set(e, BELAY_ENOTFOUND, "object sha256:%s is missing from the store", hex);
		}
		return store_fail(st->db, e, "cannot look an object up");
	}
	*pack = sqlite3_column_type(s, 0) == SQLITE_NULL ? 0 : sqlite3_column_int64(s, 0);
	*off = (uint64_t)sqlite3_column_int64(s, 1);
	*len = (uint64_t)sqlite3_column_int64(s, 2);
	sqlite3_reset(s);
	return 0;
}

int snap_store_read_object(struct snap_store *st, const uint8_t oid[SHA256_LEN], int fd, struct buf *out, struct err *e)
{
	char hex[SHA256_HEX_LEN + 1];
	hex_encode(oid, SHA256_LEN, hex);
	int64_t pack;
	uint64_t off, len;
	int rc = snap_store_locate(st, oid, &pack, &off, &len, e);
	if (rc)
		return rc;
	int loose = pack == 0;

	int src = -1, own = 0;
	size_t prefetched = 0; /* bytes of the object read with its header */
	if (loose) {
		char *p = snap_store_loose_path(st, oid);
		src = open(p, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
		if (src < 0) {
			rc = err_set(e, BELAY_ECORRUPT, "loose object %s is unreadable: %s", p, strerror(errno));
			free(p);
			return rc;
		}
		free(p);
		own = 1;
		off = 0;
	}
	size_t chunk = len < (1u << 20) ? (size_t)len : (1u << 20);
	char *mem = xmalloc(SNAP_OBJ_HDR + (chunk ? chunk : 1));
	char *buf = mem + SNAP_OBJ_HDR;
	if (!loose) {
		if ((src = reader_fd(st, pack, e)) < 0) {
			free(mem);
			return src;
		}
		/* The header, and a small object with it in the same read. */
		size_t first = len <= chunk ? (size_t)len : 0;
		unsigned char *hdr = (unsigned char *)mem;
		int bad = pread_all(src, mem, SNAP_OBJ_HDR + first, (off_t)off) != 0;
		if (bad && first) {
			/* short: the header alone, so that a truncated object is named as such below */
			first = 0;
			bad = pread_all(src, mem, SNAP_OBJ_HDR, (off_t)off) != 0;
		}
		if (bad || memcmp(hdr, SNAP_OBJ_MAGIC, 4) != 0 || get_u64le(hdr + 8) != len ||
		    memcmp(hdr + 16, oid, SHA256_LEN) != 0) {
			free(mem);
			return err_set(e, BELAY_ECORRUPT, "pack %lld has no valid record for sha256:%s at offset %llu",
				       (long long)pack, hex, (unsigned long long)off);
		}
		off += SNAP_OBJ_HDR;
		prefetched = first;
	}
	struct sha256_ctx *c = sha256_new();
	uint64_t done = 0;
	int hole_at_end = 0;
	if (out)
		buf_reserve(out, (size_t)len);
	while (done < len && rc == 0) {
		size_t n = len - done < chunk ? (size_t)(len - done) : chunk;
		if (!(done == 0 && prefetched == n) && (rc = pread_all(src, buf, n, (off_t)(off + done))) != 0) {
			rc = err_set(e, BELAY_ECORRUPT, "object sha256:%s is truncated in the store", hex);
			break;
		}
		sha256_update(c, buf, n);
		if (out)
			buf_append(out, buf, n);
		hole_at_end = 0;
		if (fd >= 0) {
			if (n == chunk && all_zero(buf, n)) {
				if (lseek(fd, (off_t)n, SEEK_CUR) < 0)
					rc = err_set(e, -errno, "cannot seek: %s", strerror(errno));
				hole_at_end = 1;
			} else if ((rc = fs_write_all(fd, buf, n)) != 0) {
				rc = err_set(e, rc, "cannot write: %s", strerror(-rc));
			}
		}
		done += n;
	}
	uint8_t got[SHA256_LEN];
	sha256_final(c, got);
	free(mem);
	if (own)
		close(src);
	if (rc)
		return rc;
	if (memcmp(got, oid, SHA256_LEN) != 0)
		return err_set(e, BELAY_ECORRUPT, "object sha256:%s does not match its content", hex);
	/* A hole at the end was only seeked over: give the file its length. */
	if (fd >= 0 && hole_at_end && ftruncate(fd, (off_t)len) != 0)
		return err_set(e, -errno, "cannot set the file length: %s", strerror(errno));
	return 0;
}

/*==== statistics ====*/

static int64_t count(struct snap_store *st, const char *sql, struct err *e, int *rc)
{
	sqlite3_stmt *s;
	if (*rc || (*rc = store_stmt(st->db, sql, &s, e)) != 0)
		return 0;
	int64_t v = 0;
	if (sqlite3_step(s) == SQLITE_ROW)
		v = sqlite3_column_int64(s, 0);
	else
		*rc = store_fail(st->db, e, "cannot count");
	sqlite3_reset(s);
	return v;
}

static void dir_usage(const char *dir, int64_t *files, int64_t *bytes, const char *prefix, const char *suffix)
{
	DIR *d = opendir(dir);
	if (!d)
		return;
	struct dirent *de;
	while ((de = readdir(d)) != NULL) {
		if (de->d_name[0] == '.')
			continue;
		struct stat sb;
		if (fstatat(dirfd(d), de->d_name, &sb, AT_SYMLINK_NOFOLLOW) != 0)
			continue;
		if (S_ISDIR(sb.st_mode) && !prefix) {
			char *sub = fs_join(dir, de->d_name);
			dir_usage(sub, files, bytes, NULL, NULL);
			free(sub);
			continue;
		}
		size_t nl = strlen(de->d_name);
		if (!S_ISREG(sb.st_mode) || (prefix && strncmp(de->d_name, prefix, strlen(prefix)) != 0) ||
		    (suffix && (nl < strlen(suffix) || strcmp(de->d_name + nl - strlen(suffix), suffix) != 0)))
			continue;
		(*files)++;
		*bytes += sb.st_size;
	}
	closedir(d);
}

int snap_store_stats(struct snap_store *st, struct snap_store_stats *out, struct err *e)
{
	memset(out, 0, sizeof *out);
	int rc = 0;
	out->snapshots = count(st, "SELECT count(*) FROM snapshots", e, &rc);
	out->entries = count(st, "SELECT count(*) FROM entries", e, &rc);
	out->objects = count(st, "SELECT count(*) FROM objects", e, &rc);
	out->loose_objects = count(st, "SELECT count(*) FROM objects WHERE pack IS NULL", e, &rc);
	out->packs = count(st, "SELECT count(*) FROM packs", e, &rc);
	if (rc)
		return rc;
	dir_usage(st->objdir, &out->pack_files, &out->pack_bytes, "pack-", ".pack");
	int64_t lf = 0;
	char *loose = fs_join(st->objdir, "loose");
	dir_usage(loose, &lf, &out->loose_bytes, NULL, NULL);
	free(loose);
	const char *names[] = {"belay.db", "belay.db-wal"};
	for (int i = 0; i < 2; i++) {
		char *p = fs_join(st->dir, names[i]);
		struct stat sb;
		if (stat(p, &sb) == 0)
			out->db_bytes += sb.st_size;
		free(p);
	}
	return 0;
}
