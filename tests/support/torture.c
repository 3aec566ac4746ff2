/* torture.c - builds the torture tree (see torture.h). Entries:
 *   regular.txt 0644, mode642.bin 0642, setuid.bin 04711, setgid.bin 02755,
 *   xattred.txt (+ user.belay.torture), sparse.bin ("head" + truncate to 1 MiB),
 *   nested/ (+ user.belay.dir), nested/child.txt, nested/deeper/leaf.txt, empty_dir/,
 *   sticky_dir/ 01777, hardlink_a.txt == nested/hardlink_b.txt (one inode),
 *   relative.link -> regular.txt, absolute.link -> /usr/bin/true,
 *   dangling.link -> does/not/exist, café (NFD), "with space.txt", "new\nline.txt",
 *   "-leading-dash.txt", hidden.txt; optionally "caf\xe9.bin" and owned.txt (4242:4243).
 * Final pass: every entry below the root, sorted by depth (descending) then raw path
 * bytes, gets mtime = atime = BASE + k s + (k * 7919) ns; the root gets BASE. */
#include "torture.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "common/xalloc.h"

const char torture_cafe_nfd[] = "cafe\xcc\x81";

static void die(const char *what, const char *path)
{
	FATAL("torture: cannot %s %s: %s", what, path, strerror(errno));
}

static void put(const char *root, const char *rel, const char *content, int mode)
{
	char *p = xasprintf("%s/%s", root, rel);
	int fd = open(p, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	if (fd < 0)
		die("create", p);
	size_t n = strlen(content);
	if (write(fd, content, n) != (ssize_t)n)
		die("write", p);
	close(fd);
	if (mode >= 0 && chmod(p, (mode_t)mode) != 0)
		die("chmod", p);
	free(p);
}

static void dir(const char *root, const char *rel, int mode)
{
	char *p = xasprintf("%s/%s", root, rel);
	if (mkdir(p, 0755) != 0)
		die("mkdir", p);
	if (mode >= 0 && chmod(p, (mode_t)mode) != 0)
		die("chmod", p);
	free(p);
}

static void sym(const char *root, const char *rel, const char *target)
{
	char *p = xasprintf("%s/%s", root, rel);
	if (symlink(target, p) != 0)
		die("symlink", p);
	free(p);
}

struct ent {
	char *rel;
	int depth;
};

static void collect(const char *root, const char *rel, struct ent **v, size_t *n)
{
	char *p = rel ? xasprintf("%s/%s", root, rel) : xstrdup(root);
	DIR *d = opendir(p);
	if (!d)
		die("open", p);
	struct dirent *de;
	while ((de = readdir(d)) != NULL) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		char *r = rel ? xasprintf("%s/%s", rel, de->d_name) : xstrdup(de->d_name);
		int depth = 1;
		for (const char *c = r; *c; c++)
			depth += *c == '/';
		*v = xrealloc(*v, (*n + 1) * sizeof **v);
		(*v)[(*n)++] = (struct ent){r, depth};
		if (de->d_type == DT_DIR)
			collect(root, r, v, n);
	}
	closedir(d);
	free(p);
}

static int cmp_ent(const void *a, const void *b)
{
	const struct ent *x = a, *y = b;
	if (x->depth != y->depth)
		return y->depth - x->depth;
	return strcmp(x->rel, y->rel); /* strcmp compares as unsigned char: raw bytes */
}

void torture_build(const char *root, unsigned flags)
{
	put(root, "regular.txt", "the plain case: content that must hash\n", 0644);
	put(root, "mode642.bin", "non-trivial mode\n", 0642);
	put(root, "setuid.bin", "setuid payload\n", 04711);
	put(root, "setgid.bin", "setgid payload\n", 02755);
	put(root, "xattred.txt", "carries a user xattr\n", 0644);
	char *p = xasprintf("%s/xattred.txt", root);
	const char *val = "a value no copy mechanism may silently drop";
	if (lsetxattr(p, "user.belay.torture", val, strlen(val), 0) != 0)
		die("setxattr", p);
	free(p);
	put(root, "sparse.bin", "head", 0644);
	p = xasprintf("%s/sparse.bin", root);
	if (truncate(p, 1048576) != 0)
		die("truncate", p);
	free(p);
	dir(root, "nested", 0755);
	p = xasprintf("%s/nested", root);
	if (lsetxattr(p, "user.belay.dir", "dir value", 9, 0) != 0)
		die("setxattr", p);
	free(p);
	put(root, "nested/child.txt", "nested child\n", 0644);
	dir(root, "nested/deeper", 0755);
	put(root, "nested/deeper/leaf.txt", "leaf\n", 0644);
	dir(root, "empty_dir", 0755);
	dir(root, "sticky_dir", 01777);
	put(root, "hardlink_a.txt", "one inode, two names\n", 0644);
	char *a = xasprintf("%s/hardlink_a.txt", root), *b = xasprintf("%s/nested/hardlink_b.txt", root);
	if (link(a, b) != 0)
		die("link", b);
	free(a);
	free(b);
	sym(root, "relative.link", "regular.txt");
	sym(root, "absolute.link", "/usr/bin/true");
	sym(root, "dangling.link", "does/not/exist");
	put(root, torture_cafe_nfd, "nfd-named\n", 0644);
	put(root, "with space.txt", "spaces\n", 0644);
	put(root, "new\nline.txt", "a newline in the name\n", 0644);
	put(root, "-leading-dash.txt", "dash\n", 0644);
	put(root, "hidden.txt", "flagged UF_HIDDEN\n", 0644);
	if (flags & TORTURE_NON_UTF8)
		put(root, "caf\xe9.bin", "latin-1 name\n", 0644);
	if ((flags & TORTURE_FOREIGN_OWNER) && geteuid() == 0) {
		put(root, "owned.txt", "owned by someone else\n", 0640);
		p = xasprintf("%s/owned.txt", root);
		if (lchown(p, 4242, 4243) != 0)
			die("chown", p);
		free(p);
	}

	struct ent *v = NULL;
	size_t n = 0;
	collect(root, NULL, &v, &n);
	qsort(v, n, sizeof *v, cmp_ent);
	for (size_t k = 0; k < n; k++) {
		long long ns = TORTURE_MTIME_BASE + (long long)k * 1000000000LL + (long long)(k * 7919);
		struct timespec ts[2] = {{ns / 1000000000LL, ns % 1000000000LL}, {ns / 1000000000LL, ns % 1000000000LL}};
		p = xasprintf("%s/%s", root, v[k].rel);
		if (utimensat(AT_FDCWD, p, ts, AT_SYMLINK_NOFOLLOW) != 0)
			die("stamp", p);
		free(p);
		free(v[k].rel);
	}
	free(v);
	struct timespec ts[2] = {{TORTURE_MTIME_BASE / 1000000000LL, 0}, {TORTURE_MTIME_BASE / 1000000000LL, 0}};
	if (utimensat(AT_FDCWD, root, ts, AT_SYMLINK_NOFOLLOW) != 0)
		die("stamp", root);
}
