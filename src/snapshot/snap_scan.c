/* snap_scan.c - the scanner: lstat entries, compare them with the stat cache held in the
 * tree, and re-read only what changed (content, symlink target, xattrs). Used by the
 * snapshotter (incrementally, with hooks that store objects and track rows and watches)
 * and by snap_tree_hash_dir / diffs against a directory (one-shot, hash only).
 *
 * Rules kept here: symlinks are never followed (every lookup is *at() on a directory fd
 * opened without following links); FIFOs, sockets and devices are never opened; a file is
 * read through an fd whose fstat must match the lstat, and must not change while read.
 * Must not: write anything, or know about the store or inotify (hooks do).
 * Threads: one scan belongs to one caller. */
#include "snapshot/snap_internal.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "common/xalloc.h"

void snap_scan_init(struct snap_scan *sc, struct snap_tree *t, const struct snap_scan_ops *ops, void *ctx)
{
	memset(sc, 0, sizeof *sc);
	sc->tree = t;
	sc->ops = ops;
	sc->ctx = ctx;
	sc->euid = geteuid();
	int n = getgroups(0, NULL);
	if (n > 0) {
		sc->groups = xcalloc((size_t)n, sizeof *sc->groups);
		sc->ngroups = getgroups(n, sc->groups);
		if (sc->ngroups < 0)
			sc->ngroups = 0;
	}
}

void snap_scan_done(struct snap_scan *sc)
{
	snap_scan_reap(sc);
	free(sc->grave);
	free(sc->hl);
	free(sc->groups);
	buf_free(&sc->scratch);
	memset(sc, 0, sizeof *sc);
}

void snap_scan_reap(struct snap_scan *sc)
{
	for (size_t i = 0; i < sc->ngrave; i++)
		snode_free(sc->grave[i]);
	sc->ngrave = 0;
}

static int kind_of(mode_t m)
{
	switch (m & S_IFMT) {
	case S_IFDIR: return SK_DIR;
	case S_IFREG: return SK_FILE;
	case S_IFLNK: return SK_LINK;
	case S_IFIFO: return SK_FIFO;
	case S_IFSOCK: return SK_SOCK;
	case S_IFBLK: return SK_BLK;
	case S_IFCHR: return SK_CHR;
	default: return SK_NONE;
	}
}

static int64_t ts_ns(const struct timespec *t)
{
	return (int64_t)t->tv_sec * 1000000000LL + t->tv_nsec;
}

/* The lstat tuple the cache compares: anything that moves here means "look again". */
static int stat_same(const struct snode *n, const struct stat *sb)
{
	return n->dev == (uint64_t)sb->st_dev && n->ino == (uint64_t)sb->st_ino && n->st_mode == sb->st_mode &&
	       n->uid == sb->st_uid && n->gid == sb->st_gid && n->nlink == sb->st_nlink &&
	       (n->kind != SK_FILE || n->size == (uint64_t)sb->st_size) && n->mtime_ns == ts_ns(&sb->st_mtim) &&
	       n->ctime_ns == ts_ns(&sb->st_ctim) && (n->kind == SK_FILE ? n->content_ok : 1);
}

static int bad_of(const struct snap_scan *sc, const struct stat *sb)
{
	switch (kind_of(sb->st_mode)) {
	case SK_FIFO: return SB_FIFO;
	case SK_SOCK: return SB_SOCKET;
	case SK_BLK:
	case SK_CHR: return SB_DEVICE;
	case SK_NONE: return SB_DEVICE;
	default: break;
	}
	if (sc->euid == 0 || !sc->check_owner)
		return SB_OK;
	if (sb->st_uid != sc->euid)
		return SB_OWNERSHIP;
	if (sb->st_gid != getegid()) {
		for (int i = 0; i < sc->ngroups; i++)
			if (sc->groups[i] == sb->st_gid)
				return SB_OK;
		return SB_OWNERSHIP;
	}
	return SB_OK;
}

const char *snap_bad_cause(int bad)
{
	switch (bad) {
	case SB_FIFO: return SNAP_UNRESTORABLE_FIFO;
	case SB_SOCKET: return SNAP_UNRESTORABLE_SOCKET;
	case SB_DEVICE: return SNAP_UNRESTORABLE_DEVICE_NODE;
	case SB_OWNERSHIP: return SNAP_UNRESTORABLE_OWNERSHIP;
	default: return NULL;
	}
}

static void set_bad(struct snap_scan *sc, struct snode *n, int bad)
{
	if (n->bad && !bad)
		sc->tree->nbad--;
	if (!n->bad && bad)
		sc->tree->nbad++;
	n->bad = (uint8_t)bad;
}

static void unaccount(struct snap_scan *sc, struct snode *n)
{
	if (n->kind == SK_FILE) {
		sc->tree->nfiles--;
		sc->tree->nbytes -= n->size;
	}
	set_bad(sc, n, SB_OK);
}

static void mark_removed(struct snap_scan *sc, struct snode *n)
{
	for (uint32_t i = 0; i < n->nkids; i++)
		mark_removed(sc, n->kids[i]);
	if (sc->ops && sc->ops->removed)
		sc->ops->removed(sc, n);
	unaccount(sc, n);
	n->dead = 1;
}

void snap_scan_remove(struct snap_scan *sc, struct snode *n)
{
	mark_removed(sc, n);
	snode_detach(n);
	if (sc->ngrave == sc->capgrave) {
		sc->capgrave = sc->capgrave ? sc->capgrave * 2 : 16;
		sc->grave = xrealloc(sc->grave, sc->capgrave * sizeof *sc->grave);
	}
	sc->grave[sc->ngrave++] = n;
}

static void push_hl(struct snap_scan *sc, struct snode *n)
{
	if (sc->nhl == sc->caphl) {
		sc->caphl = sc->caphl ? sc->caphl * 2 : 16;
		sc->hl = xrealloc(sc->hl, sc->caphl * sizeof *sc->hl);
	}
	sc->hl[sc->nhl++] = n;
}

int snap_hash_fd(int fd, const struct stat *sb, uint8_t oid[SHA256_LEN], struct buf *keep, size_t keep_max,
		 struct err *e)
{
	char stackbuf[65536];
	char *heap = NULL, *p = stackbuf;
	size_t cap = sizeof stackbuf;
	int keeping = keep && (uint64_t)sb->st_size <= keep_max;
	if (keeping) {
		keep->len = 0;
		buf_reserve(keep, (size_t)sb->st_size + 1);
	} else if (sb->st_size > (off_t)sizeof stackbuf) {
		cap = 1 << 20;
		p = heap = xmalloc(cap);
	}
	struct sha256_ctx *c = sha256_new();
	uint64_t total = 0;
	int rc = 0;
	for (;;) {
		char *dst = p;
		size_t room = cap;
		if (keeping) {
			buf_reserve(keep, 65536);
			dst = keep->p + keep->len;
			room = keep->cap - keep->len - 1;
		}
		ssize_t r = read(fd, dst, room);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			rc = err_set(e, -errno, "cannot read: %s", strerror(errno));
			break;
		}
		if (r == 0)
			break;
		sha256_update(c, dst, (size_t)r);
		total += (uint64_t)r;
		if (keeping)
			keep->len += (size_t)r;
	}
	sha256_final(c, oid);
	free(heap);
	if (rc)
		return rc;
	struct stat after;
	if (fstat(fd, &after) != 0)
		return err_set(e, -errno, "cannot stat: %s", strerror(errno));
	if (total != (uint64_t)sb->st_size || after.st_size != sb->st_size ||
	    ts_ns(&after.st_mtim) != ts_ns(&sb->st_mtim) || ts_ns(&after.st_ctim) != ts_ns(&sb->st_ctim))
		return err_set(e, BELAY_EINVAL, "the file changed while it was being read");
	return 0;
}

/* "/proc/self/fd/<dirfd>/<name>": a path for the l*xattr calls that resolves the directory
 * through its fd (no path race) and does not follow a final symlink. */
static const char *fd_path(struct snap_scan *sc, int dirfd, const char *name)
{
	sc->scratch.len = 0;
	buf_printf(&sc->scratch, "/proc/self/fd/%d/%s", dirfd, name);
	return sc->scratch.p;
}

static int err_path(struct snap_scan *sc, struct err *e, const struct snode *n)
{
	struct buf b = {0};
	snode_path(n, &b);
	err_wrap(e, "%s", b.p);
	buf_free(&b);
	(void)sc;
	return e ? e->code : -1;
}

/* Re-reads what changed about entry n (named `name` in dirfd; n may be new and not yet in
 * the tree) and updates its fields and cache tuple from sb. */
static int refresh(struct snap_scan *sc, struct snode *n, int dirfd, const char *name, const struct stat *sb0,
		   int isnew, int selffd, struct err *e)
{
	struct stat sbv = *sb0;
	const struct stat *sb = &sbv;
	int kind = kind_of(sb->st_mode);
	int same_inode = !isnew && n->ino == (uint64_t)sb->st_ino && n->dev == (uint64_t)sb->st_dev;
	int ctime_moved = isnew || !same_inode || n->ctime_ns != ts_ns(&sb->st_ctim);
	int rc = 0, have_xa = 0;
	struct buf xa = {0};
	int bad = bad_of(sc, sb);

	if (kind == SK_FILE && bad == SB_OK) {
		int need = isnew || !n->content_ok || !same_inode || n->size != (uint64_t)sb->st_size ||
			   n->mtime_ns != ts_ns(&sb->st_mtim) || ctime_moved;
		if (need) {
			for (int attempt = 0;; attempt++) {
				int fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOATIME);
				if (fd < 0 && errno == EPERM)
					fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
				if (fd < 0) {
					rc = err_set(e, -errno, "cannot open: %s", strerror(errno));
					break;
				}
				if (fstat(fd, &sbv) != 0 || !S_ISREG(sbv.st_mode) || sbv.st_ino != sb0->st_ino ||
				    sbv.st_dev != sb0->st_dev) {
					close(fd);
					rc = err_set(e, BELAY_EINVAL, "the entry was replaced while it was being read");
					break;
				}
				rc = sc->ops && sc->ops->content ? sc->ops->content(sc, n, fd, sb, e)
								 : snap_hash_fd(fd, sb, n->oid, NULL, 0, e);
				if (rc == 0 && (rc = snap_xattrs_read(fd, NULL, &xa, e)) == 0)
					have_xa = 1;
				close(fd);
				if (rc == BELAY_EINVAL && attempt < 3) {
					/* changed while read: look again */
					if (fstatat(dirfd, name, &sbv, AT_SYMLINK_NOFOLLOW) != 0) {
						rc = err_set(e, -errno, "vanished while being read");
						break;
					}
					if (kind_of(sbv.st_mode) != SK_FILE || sbv.st_ino != sb0->st_ino)
						break;
					continue;
				}
				break;
			}
			if (rc) {
				buf_free(&xa);
				return rc;
			}
			sc->reread++;
			n->content_ok = 1;
		}
	}
	if (kind == SK_LINK && (isnew || !same_inode || n->mtime_ns != ts_ns(&sb->st_mtim) || ctime_moved ||
				n->target_len != (uint64_t)sb->st_size)) {
		char stackbuf[4096];
		size_t cap = sizeof stackbuf;
		char *t = stackbuf;
		for (;;) {
			ssize_t r = readlinkat(dirfd, name, t, cap);
			if (r < 0) {
				rc = err_set(e, -errno, "cannot read the symlink: %s", strerror(errno));
				break;
			}
			if ((size_t)r < cap) {
				snode_set_bytes(&n->target, &n->target_len, t, (size_t)r);
				break;
			}
			cap *= 2;
			if (t != stackbuf)
				free(t);
			t = xmalloc(cap);
		}
		if (t != stackbuf)
			free(t);
		if (rc)
			return rc;
	}
	if (ctime_moved && !have_xa) {
		have_xa = 1;
		rc = selffd >= 0 ? snap_xattrs_read(selffd, NULL, &xa, e)
				 : snap_xattrs_read(-1, fd_path(sc, dirfd, name), &xa, e);
		if (rc) {
			buf_free(&xa);
			return rc;
		}
	}
	if (have_xa)
		snode_set_bytes(&n->xattrs, &n->xattrs_len, xa.len ? xa.p : NULL, xa.len);
	buf_free(&xa);

	if (kind == SK_FILE) {
		if (isnew) {
			sc->tree->nfiles++;
			sc->tree->nbytes += (uint64_t)sb->st_size;
		} else {
			sc->tree->nbytes += (uint64_t)sb->st_size - n->size;
		}
	}
	n->kind = (uint8_t)kind;
	n->mode = sb->st_mode & 07777;
	n->uid = sb->st_uid;
	n->gid = sb->st_gid;
	n->mtime_ns = ts_ns(&sb->st_mtim);
	n->size = kind == SK_FILE ? (uint64_t)sb->st_size : 0;
	n->rdev = (kind == SK_BLK || kind == SK_CHR) ? (uint64_t)sb->st_rdev : 0;
	n->dev = sb->st_dev;
	n->ino = sb->st_ino;
	n->ctime_ns = ts_ns(&sb->st_ctim);
	n->nlink = (uint32_t)sb->st_nlink;
	n->st_mode = sb->st_mode;
	if (kind != SK_FILE)
		n->content_ok = 1;
	set_bad(sc, n, bad);
	if (kind == SK_FILE && sb->st_nlink > 1 && sc->collect_hl)
		push_hl(sc, n);
	snode_invalidate(n);
	return 0;
}

static int sync_dir(struct snap_scan *sc, struct snode *dir, int fd, int full, struct err *e);

/* Opens `name` (a directory we just lstat'ed as sb) inside dirfd, checking it is the
 * same inode. */
static int open_subdir(int dirfd, const char *name, const struct stat *sb, struct err *e)
{
	int fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return err_set(e, -errno, "cannot open the directory: %s", strerror(errno));
	struct stat st;
	if (fstat(fd, &st) != 0 || st.st_ino != sb->st_ino || st.st_dev != sb->st_dev) {
		close(fd);
		return err_set(e, BELAY_EINVAL, "the directory was replaced while it was being read");
	}
	return fd;
}

struct nodevec {
	struct snode **v;
	size_t n, cap;
};

static void nodevec_push(struct nodevec *nv, struct snode *n)
{
	if (nv->n == nv->cap) {
		nv->cap = nv->cap ? nv->cap * 2 : 16;
		nv->v = xrealloc(nv->v, nv->cap * sizeof *nv->v);
	}
	nv->v[nv->n++] = n;
}

static int sync_with_stat(struct snap_scan *sc, struct snode *dir, int dirfd, const char *name, size_t nlen,
			  const struct stat *sb, int full, struct nodevec *newkids, struct err *e)
{
	struct snode *kid = snode_kid(dir, name, nlen);
	int kind = kind_of(sb->st_mode);
	if (kid && (kid->kind != kind ||
		    (kind == SK_DIR && (kid->ino != (uint64_t)sb->st_ino || kid->dev != (uint64_t)sb->st_dev)))) {
		snap_scan_remove(sc, kid);
		kid = NULL;
	}
	int isnew = !kid;
	if (!isnew && stat_same(kid, sb)) {
		if (kind != SK_DIR || !full)
			return 0;
		int fd = open_subdir(dirfd, name, sb, e);
		if (fd < 0)
			return err_path(sc, e, kid);
		int rc = sync_dir(sc, kid, fd, full, e);
		close(fd);
		return rc;
	}
	if (isnew) {
		kid = snode_new(name, nlen);
		kid->parent = dir; /* for paths; inserted below */
	}
	int rc = refresh(sc, kid, dirfd, name, sb, isnew, -1, e);
	if (rc) {
		err_path(sc, e, kid);
		if (isnew) {
			if (kid->kind == SK_FILE && kid->content_ok) {
				sc->tree->nfiles--;
				sc->tree->nbytes -= kid->size;
			}
			set_bad(sc, kid, SB_OK);
			snode_free(kid);
		} else {
			kid->content_ok = 0;
			kid->ctime_ns = INT64_MIN; /* never matches: read again next time */
		}
		return rc;
	}
	if (isnew) {
		if (newkids)
			nodevec_push(newkids, kid);
		else
			snode_insert(dir, kid);
	}
	if (sc->ops && sc->ops->changed)
		sc->ops->changed(sc, kid);
	if (kind == SK_DIR && (isnew || full)) {
		int fd = open_subdir(dirfd, name, sb, e);
		if (fd < 0)
			return err_path(sc, e, kid);
		if (isnew && sc->ops && sc->ops->new_dir && (rc = sc->ops->new_dir(sc, kid, fd, e)) != 0) {
			close(fd);
			return err_path(sc, e, kid);
		}
		rc = sync_dir(sc, kid, fd, 1, e);
		close(fd);
	}
	return rc;
}

/* Reads every name of the directory fd (from its start) into names (NUL-separated). */
static int read_names(int fd, struct buf *names, size_t *count, struct err *e)
{
	names->len = 0;
	*count = 0;
	if (lseek(fd, 0, SEEK_SET) < 0)
		return err_set(e, -errno, "cannot rewind a directory: %s", strerror(errno));
	char dbuf[32768];
	for (;;) {
		ssize_t n = getdents64(fd, dbuf, sizeof dbuf);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return err_set(e, -errno, "cannot read the directory: %s", strerror(errno));
		}
		if (n == 0)
			break;
		for (ssize_t off = 0; off < n;) {
			struct dirent64 *d = (struct dirent64 *)(dbuf + off);
			off += d->d_reclen;
			if (d->d_name[0] == '.' && (d->d_name[1] == '\0' || (d->d_name[1] == '.' && d->d_name[2] == '\0')))
				continue;
			buf_append(names, d->d_name, strlen(d->d_name) + 1);
			(*count)++;
		}
	}
	return 0;
}

static int sync_dir(struct snap_scan *sc, struct snode *dir, int fd, int full, struct err *e)
{
	struct buf names = {0};
	size_t count = 0;
	int rc = read_names(fd, &names, &count, e);
	if (rc) {
		buf_free(&names);
		return err_path(sc, e, dir);
	}
	uint32_t gen = ++sc->gen;
	struct nodevec add = {0};
	for (size_t off = 0; off < names.len && rc == 0;) {
		const char *name = names.p + off;
		size_t nlen = strlen(name);
		off += nlen + 1;
		struct snode *kid = snode_kid(dir, name, nlen);
		struct stat sb;
		if (fstatat(fd, name, &sb, AT_SYMLINK_NOFOLLOW) != 0) {
			if (errno == ENOENT)
				continue; /* vanished since readdir: unseen, removed below */
			rc = err_set(e, -errno, "cannot stat: %s", strerror(errno));
			if (kid)
				err_path(sc, e, kid);
			break;
		}
		rc = sync_with_stat(sc, dir, fd, name, nlen, &sb, full, &add, e);
		struct snode *now = snode_kid(dir, name, nlen);
		if (now)
			now->seen = gen;
	}
	if (rc == 0) {
		/* entries no longer listed */
		struct nodevec gone = {0};
		for (uint32_t i = 0; i < dir->nkids; i++)
			if (dir->kids[i]->seen != gen)
				nodevec_push(&gone, dir->kids[i]);
		for (size_t i = 0; i < gone.n; i++)
			snap_scan_remove(sc, gone.v[i]);
		free(gone.v);
	}
	snode_merge_kids(dir, add.v, add.n);
	free(add.v);
	buf_free(&names);
	return rc;
}

int snap_scan_entry(struct snap_scan *sc, struct snode *dir, int dirfd, const char *name, size_t nlen, int full,
		    struct err *e)
{
	struct stat sb;
	if (fstatat(dirfd, name, &sb, AT_SYMLINK_NOFOLLOW) != 0) {
		if (errno == ENOENT || errno == ENOTDIR) {
			struct snode *kid = snode_kid(dir, name, nlen);
			if (kid)
				snap_scan_remove(sc, kid);
			return 0;
		}
		err_set(e, -errno, "cannot stat %s: %s", name, strerror(errno));
		return err_path(sc, e, dir);
	}
	return sync_with_stat(sc, dir, dirfd, name, nlen, &sb, full, NULL, e);
}

int snap_scan_add(struct snap_scan *sc, struct snode *dir, int dirfd, const char *name, size_t nlen, int recurse,
		  struct snode **out, struct err *e)
{
	*out = NULL;
	struct stat sb;
	int isroot = dir == NULL;
	if ((isroot ? fstat(dirfd, &sb) : fstatat(dirfd, name, &sb, AT_SYMLINK_NOFOLLOW)) != 0) {
		if (!isroot && (errno == ENOENT || errno == ENOTDIR))
			return 0;
		return err_set(e, -errno, "cannot stat %s: %s", isroot ? "the root" : name, strerror(errno));
	}
	struct snode *n = isroot ? snode_new(".", 1) : snode_new(name, nlen);
	n->parent = dir; /* for paths; inserted below */
	int rc = refresh(sc, n, dirfd, isroot ? "." : name, &sb, 1, isroot ? dirfd : -1, e);
	if (rc) {
		err_path(sc, e, n);
		if (n->kind == SK_FILE && n->content_ok) {
			sc->tree->nfiles--;
			sc->tree->nbytes -= n->size;
		}
		set_bad(sc, n, SB_OK);
		/* refresh may have queued it as a hardlink candidate */
		if (sc->nhl && sc->hl[sc->nhl - 1] == n)
			sc->nhl--;
		snode_free(n);
		return rc;
	}
	if (isroot)
		sc->tree->root = n;
	else
		snode_insert(dir, n);
	*out = n;
	if (n->kind == SK_DIR && recurse) {
		int fd = isroot ? fcntl(dirfd, F_DUPFD_CLOEXEC, 0) : open_subdir(dirfd, name, &sb, e);
		if (fd < 0 && isroot)
			return err_set(e, -errno, "cannot reopen the root: %s", strerror(errno));
		if (fd < 0)
			return err_path(sc, e, n);
		rc = sync_dir(sc, n, fd, 1, e);
		close(fd);
	}
	return rc;
}

int snap_scan_root(struct snap_scan *sc, int rootfd, int full, struct err *e)
{
	struct stat sb;
	if (fstat(rootfd, &sb) != 0)
		return err_set(e, -errno, "cannot stat the workspace: %s", strerror(errno));
	struct snode *root = sc->tree->root;
	int isnew = !root;
	if (isnew) {
		root = sc->tree->root = snode_new(".", 1);
		root->kind = SK_DIR;
	}
	int rc = 0;
	if (isnew || !stat_same(root, &sb)) {
		if ((rc = refresh(sc, root, rootfd, ".", &sb, isnew, rootfd, e)) != 0)
			return err_wrap(e, "the workspace root");
		if (sc->ops && sc->ops->changed)
			sc->ops->changed(sc, root);
		if (isnew && sc->ops && sc->ops->new_dir && (rc = sc->ops->new_dir(sc, root, rootfd, e)) != 0)
			return rc;
	}
	if (isnew || full)
		rc = sync_dir(sc, root, rootfd, 1, e);
	return rc;
}

int snap_open_dir(int rootfd, const struct snode *dir, struct buf *scratch)
{
	if (!dir->parent)
		return snap_open_dir_path(rootfd, ".");
	scratch->len = 0;
	snode_path(dir, scratch);
	return snap_open_dir_path(rootfd, scratch->p);
}

int snap_open_dir_path(int rootfd, const char *relpath)
{
	if (!strcmp(relpath, ".")) {
		int fd = fcntl(rootfd, F_DUPFD_CLOEXEC, 0);
		return fd < 0 ? -errno : fd;
	}
	struct open_how how = {
		.flags = O_RDONLY | O_DIRECTORY | O_CLOEXEC,
		.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS,
	};
	long fd = syscall(SYS_openat2, rootfd, relpath, &how, sizeof how);
	if (fd >= 0)
		return (int)fd;
	if (errno != ENOSYS)
		return -errno;
	/* Kernels before 5.6: component by component, never following a symlink. */
	char *copy = xstrdup(relpath);
	int cur = fcntl(rootfd, F_DUPFD_CLOEXEC, 0);
	char *save = NULL;
	for (char *c = strtok_r(copy, "/", &save); c && cur >= 0; c = strtok_r(NULL, "/", &save)) {
		int nfd = openat(cur, c, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		int er = errno;
		close(cur);
		cur = nfd < 0 ? -er : nfd;
	}
	free(copy);
	return cur;
}

/*==== one-shot hashing of a directory ====*/

int snap_tree_scan_dir(const char *dir, struct snap_tree *t, struct err *e)
{
	snap_tree_init(t);
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return err_set(e, -errno, "cannot open %s: %s", dir, strerror(errno));
	struct snap_scan sc;
	snap_scan_init(&sc, t, NULL, NULL);
	sc.collect_hl = 1;
	int rc = snap_scan_root(&sc, fd, 1, e);
	close(fd);
	if (rc == 0)
		snap_linkgroups(sc.hl, sc.nhl, NULL, NULL);
	else
		err_wrap(e, "cannot scan %s", dir);
	snap_scan_done(&sc);
	if (rc)
		snap_tree_done(t);
	return rc;
}

int snap_tree_hash_dir(const char *dir, char out[SNAP_TREE_HASH_LEN], struct err *e)
{
	struct snap_tree t;
	int rc = snap_tree_scan_dir(dir, &t, e);
	if (rc)
		return rc;
	snap_tree_hash(&t, out);
	snap_tree_done(&t);
	return 0;
}

int snap_diff_dirs(const char *left, const char *right, struct snap_diff *out, struct err *e)
{
	struct snap_tree a, b;
	memset(out, 0, sizeof *out);
	int rc = snap_tree_scan_dir(left, &a, e);
	if (rc)
		return rc;
	if ((rc = snap_tree_scan_dir(right, &b, e)) != 0) {
		snap_tree_done(&a);
		return rc;
	}
	rc = snap_tree_diff(&a, &b, out);
	snap_tree_done(&a);
	snap_tree_done(&b);
	return rc;
}
