/* trial_effect.c - what a trial did, read from its overlay's upper layer against the lower
 * (the real tree): the upper holds exactly the entries the command created, changed (copied
 * up) or removed (whiteouts: character devices 0/0), and directories it replaced whole
 * (opaque: the user.overlay.opaque xattr, userxattr mounts). Work is proportional to the
 * upper layer, not the tree. See trial_effect.h. */
#include "trial/trial_effect.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "common/buf.h"
#include "common/jsonx.h"
#include "common/xalloc.h"
#include "trial/trial_links.h"

struct scan {
	const char *scope; /* the real tree (the lower layer): links are judged against it */
	cJSON *items;
	uint64_t bytes;
	int special;
	struct err *e;
};

static const char *type_of(mode_t m)
{
	return S_ISREG(m) ? "file" : S_ISDIR(m) ? "dir" : S_ISLNK(m) ? "symlink" : S_ISFIFO(m) ? "fifo"
	       : S_ISSOCK(m)                                                    ? "socket"
										: "device";
}

static int is_whiteout(const struct stat *st)
{
	return S_ISCHR(st->st_mode) && major(st->st_rdev) == 0 && minor(st->st_rdev) == 0;
}

static char **names_of_fwd(int dfd, size_t *n);
static void free_names_fwd(char **v, size_t n);

static cJSON *add(struct scan *s, const char *rel, const char *change, const struct stat *st)
{
	cJSON *o = cJSON_CreateObject();
	cJSON_AddItemToObject(o, "path", jx_bytes(rel, strlen(rel)));
	cJSON_AddStringToObject(o, "change", change);
	cJSON_AddStringToObject(o, "type", type_of(st->st_mode));
	if (strcmp(change, "deleted") != 0) {
		char mode[8];
		snprintf(mode, sizeof mode, "%04o", (unsigned)(st->st_mode & 07777));
		cJSON_AddStringToObject(o, "mode", mode);
		if (S_ISREG(st->st_mode))
			cJSON_AddNumberToObject(o, "bytes", (double)st->st_size);
		if (!S_ISREG(st->st_mode) && !S_ISDIR(st->st_mode) && !S_ISLNK(st->st_mode))
			s->special = 1;
	}
	cJSON_AddItemToArray(s->items, o);
	return o;
}

/* A link's target, and whether it leads out of the workspace (trial_links.h; the target
 * alone: the tree's own links are followed by apply's check). */
static void add_target(struct scan *s, cJSON *o, int dfd, const char *name, const char *rel)
{
	char t[4096];
	ssize_t n = readlinkat(dfd, name, t, sizeof t - 1);
	if (n < 0)
		return;
	t[n] = '\0';
	cJSON_AddItemToObject(o, "target", jx_bytes(t, (size_t)n));
	cJSON_AddBoolToObject(o, "leaves_workspace", trial_link_leaves(s->scope, -1, rel, t));
}

/* Every entry beneath the lower directory dfd (at rel) as deleted: a directory removed or
 * replaced (by a link, a file) takes all of them with it, and the effect says so. */
static void add_lower_subtree(struct scan *s, int dfd, const char *rel, int depth)
{
	size_t n = 0;
	char **names = depth < 256 ? names_of_fwd(dfd, &n) : NULL;
	for (size_t i = 0; names && i < n; i++) {
		struct stat cs;
		if (fstatat(dfd, names[i], &cs, AT_SYMLINK_NOFOLLOW) != 0)
			continue;
		char *p = xasprintf("%s/%s", rel, names[i]);
		add(s, p, "deleted", &cs);
		if (S_ISDIR(cs.st_mode)) {
			int c = openat(dfd, names[i], O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
			if (c >= 0) {
				add_lower_subtree(s, c, p, depth + 1);
				close(c);
			}
		}
		free(p);
	}
	free_names_fwd(names, n);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Sorted names of a directory (without . and ..); NULL on error (errno set). */
static char **names_of(int dfd, size_t *n)
{
	int fd = dup(dfd);
	DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
	if (!d) {
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	rewinddir(d); /* the dup shares the offset of every earlier listing */
	char **v = NULL;
	size_t k = 0, cap = 0;
	struct dirent *de;
	while ((de = readdir(d)) != NULL) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (k == cap)
			v = xrealloc(v, (cap = cap ? 2 * cap : 16) * sizeof *v);
		v[k++] = xstrdup(de->d_name);
	}
	closedir(d);
	if (!v)
		v = xcalloc(1, sizeof *v);
	else
		qsort(v, k, sizeof *v, cmp_str);
	*n = k;
	return v;
}

static void free_names(char **v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

static char **names_of_fwd(int dfd, size_t *n)
{
	return names_of(dfd, n);
}

static void free_names_fwd(char **v, size_t n)
{
	free_names(v, n);
}

/* Whether two regular files hold the same bytes. */
static int same_content(int ufd, const char *uname, int lfd, const char *lname, off_t size)
{
	int a = openat(ufd, uname, O_RDONLY | O_NOFOLLOW | O_CLOEXEC), b = openat(lfd, lname, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	int same = a >= 0 && b >= 0;
	char x[65536], y[65536];
	off_t done = 0;
	while (same && done < size) {
		ssize_t n = read(a, x, sizeof x);
		if (n <= 0) {
			same = 0;
			break;
		}
		ssize_t m = 0;
		while (m < n) {
			ssize_t r = read(b, y + m, (size_t)(n - m));
			if (r <= 0)
				break;
			m += r;
		}
		same = m == n && memcmp(x, y, (size_t)n) == 0;
		done += n;
	}
	if (a >= 0)
		close(a);
	if (b >= 0)
		close(b);
	return same;
}

static int same_target(int ufd, const char *name, int lfd)
{
	char a[4096], b[4096];
	ssize_t n = readlinkat(ufd, name, a, sizeof a), m = readlinkat(lfd, name, b, sizeof b);
	return n >= 0 && n == m && memcmp(a, b, (size_t)n) == 0;
}

static int walk(struct scan *s, int ufd, int lfd, const char *rel, int all_added);

/* Everything below an added directory is added too. */
static int child(struct scan *s, int ufd, int lfd, const char *rel, const char *name, int all_added)
{
	char *path = *rel ? xasprintf("%s/%s", rel, name) : xstrdup(name);
	struct stat us, ls;
	int rc = 0;
	if (fstatat(ufd, name, &us, AT_SYMLINK_NOFOLLOW) != 0) {
		rc = err_set(s->e, -errno, "cannot read the upper layer at %s: %s", path, strerror(errno));
		goto out;
	}
	int in_lower = !all_added && lfd >= 0 && fstatat(lfd, name, &ls, AT_SYMLINK_NOFOLLOW) == 0;
	if (is_whiteout(&us)) {
		if (in_lower) {
			add(s, path, "deleted", &ls);
			if (S_ISDIR(ls.st_mode)) {
				int cl = openat(lfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
				if (cl >= 0) {
					add_lower_subtree(s, cl, path, 0);
					close(cl);
				}
			}
		}
		goto out;
	}
	if (S_ISREG(us.st_mode))
		s->bytes += (uint64_t)us.st_blocks * 512u;
	cJSON *mine = NULL;
	if (!in_lower) {
		mine = add(s, path, "added", &us);
	} else if ((us.st_mode & S_IFMT) != (ls.st_mode & S_IFMT)) {
		mine = add(s, path, "changed", &us);
		if (S_ISDIR(ls.st_mode) && !S_ISDIR(us.st_mode)) {
			/* a directory replaced by a file or a link: everything it held is gone */
			int cl = openat(lfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
			if (cl >= 0) {
				add_lower_subtree(s, cl, path, 0);
				close(cl);
			}
		}
		if (S_ISDIR(ls.st_mode) == 0)
			in_lower = 0; /* a new directory where a file was: its content is all new */
	} else if (S_ISREG(us.st_mode) &&
		   (us.st_size != ls.st_size || !same_content(ufd, name, lfd, name, us.st_size))) {
		add(s, path, "changed", &us);
	} else if (S_ISLNK(us.st_mode) && !same_target(ufd, name, lfd)) {
		mine = add(s, path, "changed", &us);
	} else if ((us.st_mode & 07777) != (ls.st_mode & 07777)) {
		add(s, path, "mode", &us);
	}
	if (S_ISLNK(us.st_mode) && mine)
		add_target(s, mine, ufd, name, path);
	if (S_ISDIR(us.st_mode)) {
		int cu = openat(ufd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		int cl = in_lower && S_ISDIR(ls.st_mode) ? openat(lfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC) : -1;
		if (cu < 0) {
			rc = err_set(s->e, -errno, "cannot read the upper layer at %s: %s", path, strerror(errno));
		} else {
			char v[4];
			int opaque = cl >= 0 && fgetxattr(cu, "user.overlay.opaque", v, sizeof v) == 1 && v[0] == 'y';
			if (opaque) {
				/* replaced whole: every lower entry the upper lacks is gone */
				size_t nl = 0, nu = 0;
				char **ln = names_of(cl, &nl), **un = names_of(cu, &nu);
				for (size_t i = 0; ln && un && i < nl; i++) {
					struct stat cs;
					if (bsearch(&ln[i], un, nu, sizeof *un, cmp_str) ||
					    fstatat(cl, ln[i], &cs, AT_SYMLINK_NOFOLLOW) != 0)
						continue;
					char *p = xasprintf("%s/%s", path, ln[i]);
					add(s, p, "deleted", &cs);
					if (S_ISDIR(cs.st_mode)) {
						int cc = openat(cl, ln[i], O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
						if (cc >= 0) {
							add_lower_subtree(s, cc, p, 0);
							close(cc);
						}
					}
					free(p);
				}
				free_names(ln, nl);
				free_names(un, nu);
			}
			rc = walk(s, cu, opaque ? -1 : cl, path, !in_lower);
		}
		if (cu >= 0)
			close(cu);
		if (cl >= 0)
			close(cl);
	}
out:
	free(path);
	return rc;
}

static int walk(struct scan *s, int ufd, int lfd, const char *rel, int all_added)
{
	size_t n = 0;
	char **names = names_of(ufd, &n);
	if (!names)
		return err_set(s->e, -errno, "cannot list the upper layer at %s: %s", *rel ? rel : ".", strerror(errno));
	int rc = 0;
	for (size_t i = 0; rc == 0 && i < n; i++)
		rc = child(s, ufd, lfd, rel, names[i], all_added);
	free_names(names, n);
	return rc;
}

static int cmp_item(const void *a, const void *b)
{
	const cJSON *x = *(cJSON *const *)a, *y = *(cJSON *const *)b;
	const char *p = jx_str(x, "path"), *q = jx_str(y, "path");
	return strcmp(p ? p : "", q ? q : "");
}

int trial_effect_scan(const char *upper, const char *lower, struct trial_effect *out, struct err *e)
{
	memset(out, 0, sizeof *out);
	struct scan s = {.scope = lower, .items = cJSON_CreateArray(), .e = e};
	int ufd = open(upper, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	int lfd = open(lower, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	int rc = 0;
	if (ufd < 0 || lfd < 0)
		rc = err_set(e, -errno, "cannot open the trial's layers (%s over %s): %s", upper, lower, strerror(errno));
	else
		rc = walk(&s, ufd, lfd, "", 0);
	if (rc == 0) {
		struct stat us, ls;
		if (fstat(ufd, &us) == 0 && fstat(lfd, &ls) == 0 && (us.st_mode & 07777) != (ls.st_mode & 07777)) {
			cJSON *o = cJSON_CreateObject();
			char mode[8];
			snprintf(mode, sizeof mode, "%04o", (unsigned)(us.st_mode & 07777));
			cJSON_AddStringToObject(o, "path", ".");
			cJSON_AddStringToObject(o, "change", "mode");
			cJSON_AddStringToObject(o, "type", "dir");
			cJSON_AddStringToObject(o, "mode", mode);
			cJSON_AddItemToArray(s.items, o);
		}
	}
	if (ufd >= 0)
		close(ufd);
	if (lfd >= 0)
		close(lfd);
	if (rc) {
		cJSON_Delete(s.items);
		return rc;
	}
	/* path order (the walk is depth first; an opaque directory's deletions come first) */
	int n = cJSON_GetArraySize(s.items);
	cJSON **v = xcalloc(n ? (size_t)n : 1, sizeof *v);
	for (int i = n - 1; i >= 0; i--)
		v[i] = cJSON_DetachItemFromArray(s.items, i);
	if (n > 1)
		qsort(v, (size_t)n, sizeof *v, cmp_item);
	for (int i = 0; i < n; i++)
		cJSON_AddItemToArray(s.items, v[i]);
	free(v);
	out->items = s.items;
	out->upper_bytes = s.bytes;
	out->special = s.special;
	return 0;
}

void trial_effect_free(struct trial_effect *t)
{
	cJSON_Delete(t->items);
	memset(t, 0, sizeof *t);
}
