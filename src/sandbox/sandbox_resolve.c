/* sandbox_resolve.c - path resolution in a sandboxed process's view (any thread; reads
 * /proc and lstat()s under /proc/PID/root, never writes). See sandbox_resolve.h. */
#include "sandbox/sandbox_resolve.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int readlink_str(const char *link, char *out, size_t outsz)
{
	ssize_t n = readlink(link, out, outsz - 1);
	if (n < 0 || (size_t)n >= outsz - 1)
		return -1;
	out[n] = '\0';
	return 0;
}

/* Pops the last component of an absolute path in place ("/a/b" -> "/a", "/a" -> "/"). */
static void pop(char *p)
{
	char *s = strrchr(p, '/');
	if (!s)
		return;
	if (s == p)
		p[1] = '\0';
	else
		*s = '\0';
}

static int push(char *p, size_t cap, const char *comp, size_t n)
{
	size_t len = strlen(p);
	size_t need = len + (len > 1 ? 1 : 0) + n + 1;
	if (need > cap)
		return -1;
	if (len > 1)
		p[len++] = '/';
	else if (len == 0)
		p[len++] = '/';
	memcpy(p + len, comp, n);
	p[len + n] = '\0';
	return 0;
}

pid_t sandbox_ns_pid(pid_t pid)
{
	char path[64], line[256];
	snprintf(path, sizeof path, "/proc/%d/status", (int)pid);
	FILE *f = fopen(path, "re");
	if (!f)
		return -1;
	pid_t last = -1;
	while (fgets(line, sizeof line, f)) {
		if (strncmp(line, "NSpid:", 6))
			continue;
		char *p = line + 6, *end;
		for (;;) {
			long v = strtol(p, &end, 10);
			if (end == p)
				break;
			last = (pid_t)v;
			p = end;
		}
		break;
	}
	fclose(f);
	return last;
}

/* lstat and readlink of an absolute path p in the process's view: relative to its root
 * fd, or through /proc/PID/root. */
struct view {
	int root;
	char prefix[40];
};

static int view_lstat(const struct view *v, const char *p, struct stat *st)
{
	if (v->root >= 0)
		return fstatat(v->root, p[1] ? p + 1 : ".", st, AT_SYMLINK_NOFOLLOW);
	char full[PATH_MAX + 48];
	if ((size_t)snprintf(full, sizeof full, "%s%s", v->prefix, p[1] ? p : "") >= sizeof full) {
		errno = ENAMETOOLONG;
		return -1;
	}
	return lstat(full, st);
}

static int view_readlink(const struct view *v, const char *p, char *out, size_t outsz)
{
	ssize_t n;
	if (v->root >= 0) {
		n = readlinkat(v->root, p + 1, out, outsz - 1);
	} else {
		char full[PATH_MAX + 48];
		if ((size_t)snprintf(full, sizeof full, "%s%s", v->prefix, p) >= sizeof full)
			return -1;
		n = readlink(full, out, outsz - 1);
	}
	if (n < 0 || (size_t)n >= outsz - 1)
		return -1;
	out[n] = '\0';
	return 0;
}

enum sb_resolved sandbox_base(pid_t pid, int dirfd, char *out, size_t outsz)
{
	char link[64];
	/* The kernel prints these links as the process sees them (its mount namespace). */
	if (dirfd == AT_FDCWD)
		snprintf(link, sizeof link, "/proc/%d/cwd", (int)pid);
	else
		snprintf(link, sizeof link, "/proc/%d/fd/%d", (int)pid, dirfd);
	if (readlink_str(link, out, outsz) != 0)
		return SB_UNKNOWN;
	return out[0] == '/' ? SB_PATH : SB_SPECIAL;
}

enum sb_resolved sandbox_resolve(pid_t pid, int rootfd, int dirfd, const char *path, int follow_last, int empty_is_fd,
				 char *out, size_t outsz)
{
	char base[PATH_MAX];
	char rest[PATH_MAX * 2];
	struct view v = {.root = rootfd};
	snprintf(v.prefix, sizeof v.prefix, "/proc/%d/root", (int)pid);
	if (path[0] == '/') {
		strcpy(base, "/");
	} else {
		enum sb_resolved b = sandbox_base(pid, dirfd, base, sizeof base);
		if (b != SB_PATH)
			return b;
		if (path[0] == '\0' && empty_is_fd) {
			if (strlen(base) >= outsz)
				return SB_UNKNOWN;
			strcpy(out, base);
			return SB_PATH;
		}
	}
	if (strlen(path) >= sizeof rest)
		return SB_UNKNOWN;
	strcpy(rest, path);
	char cur[PATH_MAX];
	if (strlen(base) >= sizeof cur)
		return SB_UNKNOWN;
	strcpy(cur, base);
	int hops = 0;
	pid_t nspid = 0; /* looked up on first use */
	char *r = rest;
	while (*r) {
		while (*r == '/')
			r++;
		if (!*r)
			break;
		char *end = strchr(r, '/');
		size_t n = end ? (size_t)(end - r) : strlen(r);
		char comp[NAME_MAX + 1];
		if (n > NAME_MAX)
			return SB_UNKNOWN;
		memcpy(comp, r, n);
		comp[n] = '\0';
		r += n;
		int last = 1;
		for (const char *q = r; *q; q++)
			if (*q != '/') {
				last = 0;
				break;
			}
		if (!strcmp(comp, "."))
			continue;
		if (!strcmp(comp, "..")) {
			pop(cur);
			continue;
		}
		/* /proc/self and /proc/thread-self mean the sandboxed process, not us; its /proc
		 * counts pids in its own pid namespace. */
		if (!strcmp(cur, "/proc") && (!strcmp(comp, "self") || !strcmp(comp, "thread-self"))) {
			if (nspid == 0)
				nspid = sandbox_ns_pid(pid);
			if (nspid < 0)
				return SB_UNKNOWN;
			int thread = !strcmp(comp, "thread-self");
			snprintf(comp, sizeof comp, "%d", (int)nspid);
			if (thread) {
				if (push(cur, sizeof cur, comp, strlen(comp)))
					return SB_UNKNOWN;
				snprintf(comp, sizeof comp, "task/%d", (int)nspid);
			}
		}
		char cand[PATH_MAX];
		strcpy(cand, cur);
		if (push(cand, sizeof cand, comp, strlen(comp)))
			return SB_UNKNOWN;
		struct stat st;
		if (view_lstat(&v, cand, &st) != 0) {
			if (errno == ESRCH)
				return SB_UNKNOWN; /* the process is gone */
			/* A missing (or unreachable) component: the rest is kept lexically. */
			strcpy(cur, cand);
			continue;
		}
		if (S_ISLNK(st.st_mode) && (!last || follow_last)) {
			if (++hops > 40)
				return SB_UNKNOWN;
			char target[PATH_MAX];
			if (view_readlink(&v, cand, target, sizeof target) != 0)
				return SB_UNKNOWN;
			if (target[0] != '/' && strncmp(cand, "/proc/", 6) == 0 && strchr(target, ':'))
				return SB_SPECIAL; /* pipe:[..], socket:[..], anon_inode:[..] */
			char next[PATH_MAX * 2];
			if ((size_t)snprintf(next, sizeof next, "%s%s", target, r) >= sizeof next)
				return SB_UNKNOWN;
			strcpy(rest, next);
			r = rest;
			if (target[0] == '/')
				strcpy(cur, "/");
			continue;
		}
		strcpy(cur, cand);
	}
	if (strlen(cur) >= outsz)
		return SB_UNKNOWN;
	strcpy(out, cur);
	return SB_PATH;
}
