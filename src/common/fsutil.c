/* fsutil.c - filesystem helpers: mkdir -p, whole-file I/O, lexical paths, rm -rf. */
#include "common/fsutil.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/xalloc.h"

int fs_mkdir_p(const char *path, mode_t mode, struct err *e)
{
	char *p = xstrdup(path);
	int rc = 0;
	for (char *s = p + 1;; s++) {
		if (*s != '/' && *s != '\0')
			continue;
		char c = *s;
		*s = '\0';
		if (mkdir(p, mode) != 0 && errno != EEXIST) {
			rc = err_set(e, -errno, "cannot create directory %s: %s", p, strerror(errno));
			break;
		}
		*s = c;
		if (c == '\0')
			break;
	}
	if (rc == 0) {
		struct stat st;
		if (stat(path, &st) != 0 || !S_ISDIR(st.st_mode))
			rc = err_set(e, -ENOTDIR, "%s is not a directory", path);
	}
	free(p);
	return rc;
}

int fs_write_all(int fd, const void *data, size_t n)
{
	const char *p = data;
	while (n > 0) {
		ssize_t w = write(fd, p, n);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (w == 0)
			return -EIO;
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

static int read_fd(int fd, const char *name, size_t max, struct buf *out, struct err *e)
{
	int rc = 0;
	char tmp[65536];
	for (;;) {
		ssize_t r = read(fd, tmp, sizeof tmp);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			rc = err_set(e, -errno, "cannot read %s: %s", name, strerror(errno));
			break;
		}
		if (r == 0)
			break;
		if (out->len + (size_t)r > max) {
			rc = err_set(e, BELAY_EINVAL, "%s is larger than %zu bytes", name, max);
			break;
		}
		buf_append(out, tmp, (size_t)r);
	}
	buf_reserve(out, 0);
	return rc;
}

int fs_read_file(const char *path, size_t max, struct buf *out, struct err *e)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return err_set(e, -errno, "cannot open %s: %s", path, strerror(errno));
	int rc = read_fd(fd, path, max, out, e);
	close(fd);
	return rc;
}

int fs_read_fd(int fd, size_t max, struct buf *out, struct err *e)
{
	char name[32];
	snprintf(name, sizeof name, "fd %d", fd);
	return read_fd(fd, name, max, out, e);
}

int fs_write_file_atomic(const char *path, const void *data, size_t n, mode_t mode, struct err *e)
{
	char *tmp = xasprintf("%s.tmp.%d", path, (int)getpid());
	int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);
	int rc = 0;
	if (fd < 0) {
		rc = err_set(e, -errno, "cannot create %s: %s", tmp, strerror(errno));
		goto out;
	}
	if ((rc = fs_write_all(fd, data, n)) != 0 || fsync(fd) != 0) {
		rc = err_set(e, rc ? rc : -errno, "cannot write %s: %s", tmp, strerror(rc ? -rc : errno));
		close(fd);
		unlink(tmp);
		goto out;
	}
	close(fd);
	if (rename(tmp, path) != 0) {
		rc = err_set(e, -errno, "cannot rename %s: %s", tmp, strerror(errno));
		unlink(tmp);
	}
out:
	free(tmp);
	return rc;
}

char *fs_join(const char *a, const char *b)
{
	size_t la = strlen(a);
	if (la && a[la - 1] == '/')
		return xasprintf("%s%s", a, b);
	return xasprintf("%s/%s", a, b);
}

char *fs_normalize(const char *path)
{
	int abs = path[0] == '/';
	size_t n = strlen(path);
	char *out = xmalloc(n + 3);
	size_t olen = 0;
	size_t depth = 0; /* components we may pop (relative paths keep leading ..) */
	const char *s = path;
	while (*s) {
		while (*s == '/')
			s++;
		if (!*s)
			break;
		const char *t = s;
		while (*t && *t != '/')
			t++;
		size_t clen = (size_t)(t - s);
		if (clen == 1 && s[0] == '.') {
			/* skip */
		} else if (clen == 2 && s[0] == '.' && s[1] == '.') {
			if (depth > 0) {
				while (olen > 0 && out[olen - 1] != '/')
					olen--;
				if (olen > 0)
					olen--;
				depth--;
			} else if (!abs) {
				if (olen)
					out[olen++] = '/';
				memcpy(out + olen, "..", 2);
				olen += 2;
			}
		} else {
			if (olen || abs)
				out[olen++] = '/';
			memcpy(out + olen, s, clen);
			olen += clen;
			depth++;
		}
		s = t;
	}
	if (olen == 0) {
		out[olen++] = abs ? '/' : '.';
	}
	out[olen] = '\0';
	return out;
}

int fs_is_under(const char *path, const char *root)
{
	char *p = fs_normalize(path), *r = fs_normalize(root);
	size_t rl = strlen(r);
	int under = strcmp(p, r) == 0 ||
		    (strncmp(p, r, rl) == 0 && (p[rl] == '/' || (rl == 1 && r[0] == '/')));
	free(p);
	free(r);
	return under;
}

int fs_remove_at(int parent, const char *name)
{
	struct stat st;
	if (fstatat(parent, name, &st, AT_SYMLINK_NOFOLLOW) != 0)
		return errno == ENOENT ? 0 : -errno;
	if (!S_ISDIR(st.st_mode))
		return unlinkat(parent, name, 0) == 0 || errno == ENOENT ? 0 : -errno;
	int fd = openat(parent, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		/* An unreadable directory: make it traversable (we own it) and retry once. */
		if (errno == EACCES && fchmodat(parent, name, 0700, 0) == 0)
			fd = openat(parent, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0)
			return -errno;
	}
	/* Its entries go too: a read-only directory of ours (a restored tree keeps modes) must
	 * become writable first (root needs no permission). */
	if ((st.st_mode & S_IRWXU) != S_IRWXU)
		fchmod(fd, S_IRWXU);
	DIR *d = fdopendir(fd);
	if (!d) {
		close(fd);
		return -errno;
	}
	int rc = 0;
	struct dirent *de;
	while ((de = readdir(d)) != NULL) {
		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		/* Not a directory by its entry type: unlink it without a stat (a race that made it one
		 * meanwhile gets EISDIR and the careful path). */
		if (de->d_type != DT_DIR && de->d_type != DT_UNKNOWN && unlinkat(dirfd(d), de->d_name, 0) == 0)
			continue;
		int r = fs_remove_at(dirfd(d), de->d_name);
		if (r && !rc)
			rc = r;
	}
	closedir(d);
	if (unlinkat(parent, name, AT_REMOVEDIR) != 0 && errno != ENOENT && !rc)
		rc = -errno;
	return rc;
}

int fs_remove_tree(const char *path)
{
	return fs_remove_at(AT_FDCWD, path);
}

int fs_empty_dir(const char *path)
{
	int fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	DIR *d = fdopendir(dup(fd));
	if (!d) {
		int err = -errno;
		close(fd);
		return err;
	}
	int rc = 0;
	struct dirent *de;
	while ((de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		int r = fs_remove_at(fd, de->d_name);
		if (r && !rc)
			rc = r;
	}
	closedir(d);
	close(fd);
	return rc;
}

char *fs_which(const char *name)
{
	if (strchr(name, '/'))
		return access(name, X_OK) == 0 ? xstrdup(name) : NULL;
	const char *path = getenv("PATH");
	if (!path || !*path)
		path = "/usr/local/bin:/usr/bin:/bin";
	char *copy = xstrdup(path), *save = NULL;
	for (char *dir = strtok_r(copy, ":", &save); dir; dir = strtok_r(NULL, ":", &save)) {
		char *cand = fs_join(*dir ? dir : ".", name);
		struct stat st;
		if (stat(cand, &st) == 0 && S_ISREG(st.st_mode) && access(cand, X_OK) == 0) {
			free(copy);
			return cand;
		}
		free(cand);
	}
	free(copy);
	return NULL;
}

char *fs_mkdtemp_in(const char *base, const char *prefix, struct err *e)
{
	char *tmpl = xasprintf("%s/%sXXXXXX", base, prefix);
	if (!mkdtemp(tmpl)) {
		err_set(e, -errno, "cannot create a temporary directory under %s: %s", base, strerror(errno));
		free(tmpl);
		return NULL;
	}
	return tmpl;
}

const char *fs_scratch_base(void)
{
	static const char *cached;
	if (cached)
		return cached;
	const char *env = getenv("BELAY_SCRATCH");
	if (env && *env && access(env, W_OK) == 0)
		return cached = env;
	if (access("/dev/shm", W_OK) == 0)
		return cached = "/dev/shm";
	env = getenv("TMPDIR");
	if (env && *env && access(env, W_OK) == 0)
		return cached = env;
	return cached = "/tmp";
}
