/* proctree.c - what a process tree holds open. See proctree.h. */
#include "common/proctree.h"

#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/xalloc.h"

/* The access mode of descriptor fd of pid from its fdinfo: 1 writable, 0 not or unknown. */
static int fd_writable(int pid, const char *fd)
{
	char fp[320], line[128];
	snprintf(fp, sizeof fp, "/proc/%d/fdinfo/%s", pid, fd);
	FILE *f = fopen(fp, "re");
	unsigned long flags = 0;
	int have = 0;
	while (f && !have && fgets(line, sizeof line, f))
		have = sscanf(line, "flags: %lo", &flags) == 1;
	if (f)
		fclose(f);
	return have && (flags & O_ACCMODE) != O_RDONLY;
}

static void files_of(int pid, proctree_file_cb cb, void *ctx)
{
	char dirp[64], lp[320], target[PATH_MAX];
	snprintf(dirp, sizeof dirp, "/proc/%d/fd", pid);
	DIR *d = opendir(dirp);
	for (struct dirent *de; d && (de = readdir(d));) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(lp, sizeof lp, "/proc/%d/fd/%s", pid, de->d_name);
		ssize_t n = readlink(lp, target, sizeof target - 1);
		if (n <= 0 || target[0] != '/')
			continue;
		target[n] = '\0';
		if (strstr(target, " (deleted)"))
			continue;
		struct proctree_file f = {.path = target, .writable = fd_writable(pid, de->d_name)};
		cb(ctx, &f);
	}
	if (d)
		closedir(d);
	char mp[64];
	snprintf(mp, sizeof mp, "/proc/%d/maps", pid);
	FILE *m = fopen(mp, "re");
	char line[PATH_MAX + 128];
	while (m && fgets(line, sizeof line, m)) {
		char perms[8];
		int off = 0;
		if (sscanf(line, "%*s %7s %*s %*s %*s %n", perms, &off) != 1 || !off || strlen(perms) < 4)
			continue;
		char *path = line + off;
		path[strcspn(path, "\n")] = '\0';
		if (path[0] != '/' || strstr(path, " (deleted)"))
			continue;
		struct proctree_file f = {.path = path, .mapped = 1, .writable = perms[1] == 'w', .shared = perms[3] == 's'};
		cb(ctx, &f);
	}
	if (m)
		fclose(m);
}

int proctree_files(int root, size_t max_procs, proctree_file_cb cb, void *ctx)
{
	if (root <= 0 || !max_procs)
		return -1;
	int *q = xmalloc(max_procs * sizeof *q);
	size_t head = 0, tail = 0;
	q[tail++] = root;
	int rc = 0;
	while (head < tail) {
		int pid = q[head++];
		char tp[64];
		snprintf(tp, sizeof tp, "/proc/%d/task", pid);
		DIR *td = opendir(tp);
		if (!td) {
			if (pid == root)
				rc = -1;
			continue;
		}
		files_of(pid, cb, ctx);
		for (struct dirent *de; (de = readdir(td));) {
			if (de->d_name[0] == '.')
				continue;
			char cp[320];
			snprintf(cp, sizeof cp, "/proc/%d/task/%s/children", pid, de->d_name);
			FILE *f = fopen(cp, "re");
			int child;
			while (f && fscanf(f, "%d", &child) == 1)
				if (tail < max_procs)
					q[tail++] = child;
				else
					rc = -1;
			if (f)
				fclose(f);
		}
		closedir(td);
	}
	free(q);
	return rc;
}
