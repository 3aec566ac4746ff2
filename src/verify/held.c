/* held.c - the workspace files a running replayed server holds: see held.h. */
#include "verify/held.h"

#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/xalloc.h"

#define HELD_MAX_PROCS 4096

static void add(struct held *h, const char *ws, const char *path, int mapped)
{
	size_t wl = strlen(ws);
	if (strncmp(path, ws, wl) || path[wl] != '/' || !path[wl + 1])
		return;
	const char *rel = path + wl + 1;
	for (size_t i = 0; i < h->n; i++)
		if (!strcmp(h->rel[i], rel)) {
			h->mapped[i] |= (unsigned char)mapped;
			return;
		}
	h->rel = xrealloc(h->rel, (h->n + 1) * sizeof *h->rel);
	h->mapped = xrealloc(h->mapped, h->n + 1);
	h->rel[h->n] = xstrdup(rel);
	h->mapped[h->n++] = (unsigned char)mapped;
}

static void held_of(struct held *h, const char *ws, int pid)
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
		if (!strstr(target, " (deleted)"))
			add(h, ws, target, 0);
	}
	if (d)
		closedir(d);
	char mp[64];
	snprintf(mp, sizeof mp, "/proc/%d/maps", pid);
	FILE *m = fopen(mp, "re");
	char line[PATH_MAX + 128];
	while (m && fgets(line, sizeof line, m)) {
		int off = 0;
		if (sscanf(line, "%*s %*s %*s %*s %*s %n", &off) != 0 || !off)
			continue;
		char *path = line + off;
		path[strcspn(path, "\n")] = '\0';
		if (path[0] == '/' && !strstr(path, " (deleted)"))
			add(h, ws, path, 1);
	}
	if (m)
		fclose(m);
}

int held_collect(int root, const char *ws, struct held *out)
{
	memset(out, 0, sizeof *out);
	if (root <= 0)
		return -1;
	int *q = xmalloc(HELD_MAX_PROCS * sizeof *q);
	size_t nq = 0, head = 0;
	q[nq++] = root;
	int rc = 0;
	while (head < nq) {
		int pid = q[head++];
		char tp[64];
		snprintf(tp, sizeof tp, "/proc/%d/task", pid);
		DIR *td = opendir(tp);
		if (!td) {
			if (pid == root)
				rc = -1;
			continue;
		}
		held_of(out, ws, pid);
		for (struct dirent *de; (de = readdir(td));) {
			if (de->d_name[0] == '.')
				continue;
			char cp[320];
			snprintf(cp, sizeof cp, "/proc/%d/task/%s/children", pid, de->d_name);
			FILE *f = fopen(cp, "re");
			int child;
			while (f && fscanf(f, "%d", &child) == 1)
				if (nq < HELD_MAX_PROCS)
					q[nq++] = child;
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

void held_free(struct held *h)
{
	for (size_t i = 0; i < h->n; i++)
		free(h->rel[i]);
	free(h->rel);
	free(h->mapped);
	memset(h, 0, sizeof *h);
}
