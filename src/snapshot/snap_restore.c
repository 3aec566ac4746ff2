/* snap_restore.c - materialises a stored pre-state into a fresh directory, and refuses
 * name hazards (invalid UTF-8, case-fold and normalization collisions, checked with ICU)
 * before touching the destination.
 *
 * Order (each step exists for a reason; tests ablate them one by one through
 * snap_restore_opts.skip):
 *   1. directories (0700 while filling), file content (verified SHA-256, zero blocks as
 *      holes), symlinks; per file: chown before chmod (chown clears setuid/setgid),
 *      chmod with the special bits, xattrs, then the mtime; symlinks: lchown, xattrs,
 *      mtime (no follow)
 *   2. hardlink group members re-linked to their primary (the bytewise least path)
 *   3. directories deepest first, the root last: chown, chmod, xattrs, mtime (creating
 *      entries and links moved their mtimes, so they come last)
 * Must not: write outside dest; follow symlinks it created; print.
 * Threads: any thread, with its own snap_store. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unicode/unorm2.h>
#include <unicode/ustring.h>
#include <unistd.h>

#include "common/fsutil.h"
#include "common/jsonx.h"
#include "common/xalloc.h"
#include "snapshot/snap_internal.h"

/*==== name hazards ====*/

#define KEY_MAX 2048

enum { KEY_FOLD, KEY_NFC, KEY_BOTH };

/* UTF-16 key of a (valid UTF-8) name: case-folded (full folding, as Python's casefold),
 * NFC-normalized, or NFC of the folded NFD form. Returns the length or -1. */
static int32_t name_key(const char *name, size_t len, int which, UChar *out)
{
	UErrorCode err = U_ZERO_ERROR;
	UChar a[KEY_MAX], b[KEY_MAX];
	int32_t n = 0;
	u_strFromUTF8(a, KEY_MAX, &n, name, (int32_t)len, &err);
	if (U_FAILURE(err))
		return -1;
	const UNormalizer2 *nfc = unorm2_getNFCInstance(&err);
	const UNormalizer2 *nfd = unorm2_getNFDInstance(&err);
	if (U_FAILURE(err))
		return -1;
	int32_t m;
	switch (which) {
	case KEY_FOLD:
		m = u_strFoldCase(out, KEY_MAX, a, n, U_FOLD_CASE_DEFAULT, &err);
		break;
	case KEY_NFC:
		m = unorm2_normalize(nfc, a, n, out, KEY_MAX, &err);
		break;
	default: /* NFC(fold(NFD(s))): canonical caseless match */
		m = unorm2_normalize(nfd, a, n, b, KEY_MAX, &err);
		if (U_SUCCESS(err))
			m = u_strFoldCase(a, KEY_MAX, b, m, U_FOLD_CASE_DEFAULT, &err);
		if (U_SUCCESS(err))
			m = unorm2_normalize(nfc, a, m, out, KEY_MAX, &err);
		break;
	}
	return U_FAILURE(err) ? -1 : m;
}

struct keyed {
	UChar *key;
	int32_t len;
	const struct snode *n;
};

static int cmp_keyed(const void *a, const void *b)
{
	const struct keyed *x = a, *y = b;
	int32_t m = x->len < y->len ? x->len : y->len;
	int c = memcmp(x->key, y->key, (size_t)m * sizeof(UChar));
	if (c)
		return c;
	if (x->len != y->len)
		return x->len < y->len ? -1 : 1;
	return snode_cmp_name(x->n->name, x->n->name_len, y->n->name, y->n->name_len);
}

static int hazard(struct err *e, const char *cause, const struct snode *a, const struct snode *b, const char *why)
{
	struct buf pa = {0}, pd = {0};
	snode_path(a, &pa);
	snode_path(a->parent, &pd);
	if (b)
		err_set(e, BELAY_EREFUSED, "%s: '%s' and '%.*s' in directory '%s' %s", cause, pa.p, (int)b->name_len,
			b->name, pd.p, why);
	else
		err_set(e, BELAY_EREFUSED, "%s: '%s' %s", cause, pa.p, why);
	buf_free(&pa);
	buf_free(&pd);
	return BELAY_EREFUSED;
}

static int check_dir(const struct snode *dir, struct err *e)
{
	for (uint32_t i = 0; i < dir->nkids; i++)
		if (!utf8_valid(dir->kids[i]->name, dir->kids[i]->name_len))
			return hazard(e, SNAP_UNRESTORABLE_INVALID_UTF8_NAME, dir->kids[i], NULL,
				      "is not valid UTF-8 and cannot be named on a filesystem that requires it");
	int rc = 0;
	if (dir->nkids > 1) {
		struct keyed *k = xcalloc(dir->nkids, sizeof *k);
		UChar *keys = xmalloc((size_t)dir->nkids * KEY_MAX * sizeof(UChar));
		static const struct {
			int which;
			const char *cause, *why;
		} passes[] = {
			{KEY_FOLD, SNAP_UNRESTORABLE_CASE_COLLISION, "would be one entry on a case-insensitive filesystem"},
			{KEY_NFC, SNAP_UNRESTORABLE_NORMALIZATION_COLLISION,
			 "are the same name after Unicode normalization (NFC)"},
			{KEY_BOTH, SNAP_UNRESTORABLE_NORMALIZATION_COLLISION,
			 "are the same name after Unicode normalization and case folding"},
		};
		for (size_t p = 0; p < 3 && rc == 0; p++) {
			for (uint32_t i = 0; i < dir->nkids; i++) {
				k[i].key = keys + (size_t)i * KEY_MAX;
				k[i].n = dir->kids[i];
				k[i].len = name_key(dir->kids[i]->name, dir->kids[i]->name_len, passes[p].which, k[i].key);
				if (k[i].len < 0) {
					rc = hazard(e, SNAP_UNRESTORABLE_INVALID_UTF8_NAME, dir->kids[i], NULL,
						    "cannot be normalized");
					break;
				}
			}
			if (rc)
				break;
			qsort(k, dir->nkids, sizeof *k, cmp_keyed);
			for (uint32_t i = 1; i < dir->nkids; i++) {
				if (k[i].len == k[i - 1].len &&
				    memcmp(k[i].key, k[i - 1].key, (size_t)k[i].len * sizeof(UChar)) == 0) {
					rc = hazard(e, passes[p].cause, k[i - 1].n, k[i].n, passes[p].why);
					break;
				}
			}
		}
		free(keys);
		free(k);
	}
	for (uint32_t i = 0; i < dir->nkids && rc == 0; i++)
		if (dir->kids[i]->kind == SK_DIR)
			rc = check_dir(dir->kids[i], e);
	return rc;
}

/*==== materialising ====*/

struct restore {
	struct snap_store *st;
	unsigned skip;
	int destfd;
	/* Fewer syscalls per file when the outcome is known: a file we create is ours (euid,
	 * egid unless its directory is setgid) with its create mode less the umask. */
	int known;         /* euid, egid and umask below are valid */
	uid_t euid;
	gid_t egid;
	mode_t umask;
	int plain_parent;  /* the directory being filled is plain (dir_is_plain; set by fill_dir) */
	struct snode **dirs; /* every directory created, for step 3 */
	size_t ndirs, capdirs;
	struct snode **links; /* hardlink members to re-link in step 2 */
	size_t nlinks, caplinks;
	struct buf path, tmp;
};

static int sys_fail(struct err *e, const struct snode *n, const char *what)
{
	int er = errno;
	struct buf p = {0};
	snode_path(n, &p);
	err_set(e, -er, "cannot %s %s: %s", what, p.p, strerror(er));
	buf_free(&p);
	return -er;
}

static int set_xattrs(int fd, const char *path, const struct snode *n, struct err *e)
{
	size_t pos = 0, nl, vl;
	const char *name, *val;
	while (snap_xattrs_next(n->xattrs, n->xattrs_len, &pos, &name, &nl, &val, &vl)) {
		char *cname = xstrndup(name, nl);
		int r = fd >= 0 ? fsetxattr(fd, cname, val, vl, 0) : lsetxattr(path, cname, val, vl, 0);
		free(cname);
		if (r != 0)
			return sys_fail(e, n, "set an extended attribute on");
	}
	return 0;
}

static mode_t want_mode(const struct restore *r, const struct snode *n)
{
	return (mode_t)(r->skip & SNAP_SKIP_SPECIAL_MODES ? n->mode & 0777 : n->mode);
}

static int is_secondary(const struct snode *n, struct buf *scratch)
{
	if (!n->link_group || n->kind != SK_FILE)
		return 0;
	scratch->len = 0;
	snode_path(n, scratch);
	return !(scratch->len == n->lg_len && memcmp(scratch->p, n->link_group, n->lg_len) == 0);
}

/* The process umask without changing it (umask(2) would race other threads). 0777 (never
 * trust it) when it cannot be read. */
static mode_t read_umask(void)
{
	FILE *f = fopen("/proc/self/status", "re");
	char line[128];
	unsigned m = 0777;
	while (f && fgets(line, sizeof line, f))
		if (sscanf(line, "Umask: %o", &m) == 1)
			break;
	if (f)
		fclose(f);
	return (mode_t)m;
}

static void restore_know(struct restore *r)
{
	r->euid = geteuid();
	r->egid = getegid();
	r->umask = read_umask();
	r->known = 1;
}

/* The metadata of a regular file open as fd made n's: owner, mode, xattrs, mtime. */
static int file_meta(const struct restore *r, int fd, const struct snode *n, int need_chown, int need_chmod,
		     struct err *e)
{
	int rc = 0;
	if (!(r->skip & SNAP_SKIP_OWNERSHIP) && need_chown && fchown(fd, n->uid, n->gid) != 0)
		rc = sys_fail(e, n, "chown");
	if (rc == 0 && need_chmod && fchmod(fd, want_mode(r, n)) != 0)
		rc = sys_fail(e, n, "chmod");
	if (rc == 0 && !(r->skip & SNAP_SKIP_XATTRS))
		rc = set_xattrs(fd, NULL, n, e);
	if (rc == 0 && !(r->skip & SNAP_SKIP_FILE_MTIMES)) {
		struct timespec ts[2] = {{0, UTIME_OMIT}, {n->mtime_ns / 1000000000LL, n->mtime_ns % 1000000000LL}};
		if (ts[1].tv_nsec < 0) {
			ts[1].tv_sec--;
			ts[1].tv_nsec += 1000000000LL;
		}
		if (futimens(fd, ts) != 0)
			rc = sys_fail(e, n, "set the mtime of");
	}
	return rc;
}

static int write_file(struct restore *r, int dirfd, const struct snode *n, struct err *e)
{
	mode_t want = want_mode(r, n);
	/* In a directory of ours that is not setgid, a new file is ours with the create mode less
	 * the umask: chown and chmod can then often be skipped. */
	int quick = r->known && r->plain_parent && n->kind == SK_FILE;
	mode_t create = quick ? want & 0777 : 0600;
	int fd = openat(dirfd, n->name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, create);
	if (fd < 0)
		return sys_fail(e, n, "create");
	int need_chown = !quick || n->uid != r->euid || n->gid != r->egid;
	int need_chmod = !quick || (want & 07000) || (want & r->umask);
	int rc;
	if (n->kind == SK_LINK) { /* ablation: a symlink flattened into a file */
		rc = fs_write_all(fd, n->target, n->target_len);
		close(fd);
		return rc ? sys_fail(e, n, "write") : 0;
	}
	if ((rc = snap_store_read_object(r->st, n->oid, fd, NULL, e)) != 0) {
		close(fd);
		struct buf p = {0};
		snode_path(n, &p);
		err_wrap(e, "%s", p.p);
		buf_free(&p);
		return rc;
	}
	rc = file_meta(r, fd, n, need_chown, need_chmod, e);
	close(fd);
	return rc;
}

static struct timespec ns_ts(int64_t ns)
{
	struct timespec t = {ns / 1000000000LL, ns % 1000000000LL};
	if (t.tv_nsec < 0) {
		t.tv_sec--;
		t.tv_nsec += 1000000000LL;
	}
	return t;
}

static int fill_dir(struct restore *r, const struct snode *dir, int dirfd, struct err *e);
static int fill_kids(struct restore *r, const struct snode *dir, int dirfd, struct err *e);

static int write_symlink(struct restore *r, int dirfd, const struct snode *n, struct err *e)
{
	if (symlinkat(n->target ? n->target : "", dirfd, n->name) != 0)
		return sys_fail(e, n, "create the symlink");
	if (!(r->skip & SNAP_SKIP_OWNERSHIP) && fchownat(dirfd, n->name, n->uid, n->gid, AT_SYMLINK_NOFOLLOW) != 0)
		return sys_fail(e, n, "chown");
	if (!(r->skip & SNAP_SKIP_XATTRS) && n->xattrs) {
		r->tmp.len = 0;
		buf_printf(&r->tmp, "/proc/self/fd/%d/%s", dirfd, n->name);
		int rc = set_xattrs(-1, r->tmp.p, n, e);
		if (rc)
			return rc;
	}
	if (!(r->skip & SNAP_SKIP_FILE_MTIMES)) {
		struct timespec ts[2] = {{0, UTIME_OMIT}, ns_ts(n->mtime_ns)};
		if (utimensat(dirfd, n->name, ts, AT_SYMLINK_NOFOLLOW) != 0)
			return sys_fail(e, n, "set the mtime of");
	}
	return 0;
}

/* 1 when a file created in the open directory fd gets exactly our euid/egid and its create
 * mode less the umask: the directory is not setgid and has no default ACL (which would
 * replace the umask; a directory created in one inherits it). */
static int dir_is_plain(int fd)
{
	struct stat sb;
	if (fstat(fd, &sb) != 0 || (sb.st_mode & S_ISGID))
		return 0;
	return fgetxattr(fd, "system.posix_acl_default", NULL, 0) < 0 && (errno == ENODATA || errno == ENOTSUP);
}

static int fill_dir(struct restore *r, const struct snode *dir, int dirfd, struct err *e)
{
	int saved_plain = r->plain_parent;
	r->plain_parent = r->known && dir_is_plain(dirfd);
	int rc = fill_kids(r, dir, dirfd, e);
	r->plain_parent = saved_plain;
	return rc;
}

static int fill_kids(struct restore *r, const struct snode *dir, int dirfd, struct err *e)
{
	int rc = 0;
	for (uint32_t i = 0; i < dir->nkids && rc == 0; i++) {
		struct snode *n = dir->kids[i];
		switch (n->kind) {
		case SK_DIR: {
			if ((r->skip & SNAP_SKIP_EMPTY_DIRS) && n->nkids == 0)
				break;
			if (mkdirat(dirfd, n->name, 0700) != 0) {
				rc = sys_fail(e, n, "create the directory");
				break;
			}
			int fd = openat(dirfd, n->name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
			if (fd < 0) {
				rc = sys_fail(e, n, "open the directory");
				break;
			}
			if (r->ndirs == r->capdirs) {
				r->capdirs = r->capdirs ? r->capdirs * 2 : 64;
				r->dirs = xrealloc(r->dirs, r->capdirs * sizeof *r->dirs);
			}
			r->dirs[r->ndirs++] = n;
			rc = fill_dir(r, n, fd, e);
			close(fd);
			break;
		}
		case SK_FILE:
			if (!(r->skip & SNAP_SKIP_HARDLINKS) && is_secondary(n, &r->tmp)) {
				if (r->nlinks == r->caplinks) {
					r->caplinks = r->caplinks ? r->caplinks * 2 : 16;
					r->links = xrealloc(r->links, r->caplinks * sizeof *r->links);
				}
				r->links[r->nlinks++] = n;
				break;
			}
			rc = write_file(r, dirfd, n, e);
			break;
		case SK_LINK:
			rc = r->skip & SNAP_SKIP_SYMLINKS ? write_file(r, dirfd, n, e) : write_symlink(r, dirfd, n, e);
			break;
		default: {
			struct buf p = {0};
			snode_path(n, &p);
			rc = err_set(e, BELAY_ECORRUPT, "entry %s has kind %d, which a snapshot cannot hold", p.p, n->kind);
			buf_free(&p);
		}
		}
	}
	return rc;
}

static int dir_meta(struct restore *r, const struct snode *n, struct err *e)
{
	int fd = r->destfd;
	int own = 0;
	if (n->parent) {
		r->path.len = 0;
		snode_path(n, &r->path);
		fd = openat(r->destfd, r->path.p, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0)
			return sys_fail(e, n, "open the directory");
		own = 1;
	}
	int rc = 0;
	if (!(r->skip & SNAP_SKIP_OWNERSHIP) && fchown(fd, n->uid, n->gid) != 0)
		rc = sys_fail(e, n, "chown");
	if (rc == 0 && fchmod(fd, want_mode(r, n)) != 0)
		rc = sys_fail(e, n, "chmod");
	if (rc == 0 && !(r->skip & SNAP_SKIP_XATTRS))
		rc = set_xattrs(fd, NULL, n, e);
	if (rc == 0 && !(r->skip & SNAP_SKIP_DIR_MTIMES)) {
		struct timespec ts[2] = {{0, UTIME_OMIT}, ns_ts(n->mtime_ns)};
		if (futimens(fd, ts) != 0)
			rc = sys_fail(e, n, "set the mtime of");
	}
	if (own)
		close(fd);
	return rc;
}

static int relink(struct restore *r, const struct snode *n, struct err *e)
{
	r->path.len = 0;
	snode_path(n, &r->path);
	char *primary = xstrndup(n->link_group, n->lg_len);
	int rc = 0;
	if (linkat(r->destfd, primary, r->destfd, r->path.p, 0) != 0)
		rc = sys_fail(e, n, "link");
	free(primary);
	return rc;
}

/*==== steps shared with the partial restore (snap_partial.c) ====*/

int snap_restore_file(struct snap_store *st, int dirfd, const struct snode *n, struct err *e)
{
	struct restore r = {.st = st, .destfd = -1};
	int rc = write_file(&r, dirfd, n, e);
	buf_free(&r.tmp);
	return rc;
}

int snap_restore_file_meta(int fd, const struct snode *n, struct err *e)
{
	struct restore r = {.destfd = -1};
	return file_meta(&r, fd, n, 1, 1, e);
}

int snap_restore_symlink(int dirfd, const struct snode *n, struct err *e)
{
	struct restore r = {.destfd = -1};
	int rc = write_symlink(&r, dirfd, n, e);
	buf_free(&r.tmp);
	return rc;
}

int snap_restore_dir_meta(int fd, const struct snode *n, struct err *e)
{
	/* dir_meta opens n by path unless it is the root: hand it the fd as the "root". */
	struct restore r = {.destfd = fd};
	struct snode root = *n;
	root.parent = NULL;
	int rc = dir_meta(&r, &root, e);
	if (rc) {
		/* name the entry by its real path */
		struct buf p = {0};
		snode_path(n, &p);
		err_wrap(e, "%s", p.p);
		buf_free(&p);
	}
	buf_free(&r.path);
	return rc;
}

int snap_restore_fill(struct snap_store *st, const struct snode *dir, int dirfd, struct snode ***dirs, size_t *ndirs,
		      struct snode ***links, size_t *nlinks, struct err *e)
{
	struct restore r = {.st = st, .destfd = -1};
	restore_know(&r);
	r.dirs = *dirs;
	r.ndirs = r.capdirs = *ndirs;
	r.links = *links;
	r.nlinks = r.caplinks = *nlinks;
	int rc = fill_dir(&r, dir, dirfd, e);
	*dirs = r.dirs;
	*ndirs = r.ndirs;
	*links = r.links;
	*nlinks = r.nlinks;
	buf_free(&r.path);
	buf_free(&r.tmp);
	return rc;
}

/* dest must not exist (it is created 0700) or be an empty directory. */
static int open_dest(const char *dest, int *created, struct err *e)
{
	*created = 0;
	struct stat sb;
	if (lstat(dest, &sb) != 0) {
		if (errno != ENOENT)
			return err_set(e, -errno, "cannot inspect %s: %s", dest, strerror(errno));
		if (mkdir(dest, 0700) != 0)
			return err_set(e, -errno, "cannot create %s: %s", dest, strerror(errno));
		*created = 1;
	} else if (!S_ISDIR(sb.st_mode)) {
		return err_set(e, BELAY_EEXIST, "refusing to restore into %s: it exists and is not a directory", dest);
	}
	int fd = open(dest, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return err_set(e, -errno, "cannot open %s: %s", dest, strerror(errno));
	if (!*created) {
		int dup = fcntl(fd, F_DUPFD_CLOEXEC, 0);
		DIR *d = dup >= 0 ? fdopendir(dup) : NULL;
		int empty = 1;
		struct dirent *de;
		while (d && (de = readdir(d)) != NULL)
			if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
				empty = 0;
		if (d)
			closedir(d);
		if (!empty) {
			close(fd);
			return err_set(e, BELAY_EEXIST, "refusing to restore into %s: the directory is not empty", dest);
		}
	}
	return fd;
}

static void clear_dir(int fd)
{
	int dup = fcntl(fd, F_DUPFD_CLOEXEC, 0);
	DIR *d = dup >= 0 ? fdopendir(dup) : NULL;
	struct dirent *de;
	struct buf names = {0};
	while (d && (de = readdir(d)) != NULL)
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
			buf_append(&names, de->d_name, strlen(de->d_name) + 1);
	if (d)
		closedir(d);
	for (size_t off = 0; off < names.len; off += strlen(names.p + off) + 1) {
		char *p = xasprintf("/proc/self/fd/%d/%s", fd, names.p + off);
		fs_remove_tree(p);
		free(p);
	}
	buf_free(&names);
}

int snap_restore(struct snap_store *st, const char *handle, const char *dest, const struct snap_restore_opts *o,
		 struct err *e)
{
	struct snap_restore_opts none = {0};
	if (!o)
		o = &none;
	struct snap_tree t;
	int rc = snap_manifest_load(st, handle, &t, e);
	if (rc)
		return rc;
	if (!o->allow_name_hazards && (rc = check_dir(t.root, e)) != 0) {
		snap_tree_done(&t);
		return rc; /* dest untouched */
	}
	int created;
	int fd = open_dest(dest, &created, e);
	if (fd < 0) {
		snap_tree_done(&t);
		return fd;
	}
	struct restore r = {.st = st, .skip = o->skip, .destfd = fd};
	restore_know(&r);
	if ((rc = snap_store_lock_shared(st, e)) != 0)
		goto out;
	int txn = snap_store_read_begin(st);
	rc = fill_dir(&r, t.root, fd, e);
	for (size_t i = 0; i < r.nlinks && rc == 0; i++)
		rc = relink(&r, r.links[i], e);
	if (rc == 0) {
		if (r.ndirs)
			qsort(r.dirs, r.ndirs, sizeof *r.dirs, snode_cmp_depth_desc);
		for (size_t i = 0; i < r.ndirs && rc == 0; i++)
			rc = dir_meta(&r, r.dirs[i], e);
		if (rc == 0)
			rc = dir_meta(&r, t.root, e);
	}
	snap_store_read_end(st, txn);
	snap_store_unlock(st);
	if (rc)
		err_wrap(e, "cannot restore snapshot %s into %s", handle, dest);
out:
	if (rc) {
		/* leave nothing half-made behind */
		fchmod(fd, 0700);
		clear_dir(fd);
		if (created)
			rmdir(dest);
	}
	close(fd);
	free(r.dirs);
	free(r.links);
	buf_free(&r.path);
	buf_free(&r.tmp);
	snap_tree_done(&t);
	return rc;
}
