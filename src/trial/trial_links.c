/* trial_links.c - whether a link of a trial's effect leads out of the workspace. See
 * trial_links.h. */
#include "trial/trial_links.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/xalloc.h"

#define MAX_LINKS 40
#define MAX_DEPTH 4096

struct walk {
	char *comp[MAX_DEPTH]; /* the resolved components so far (inside the workspace) */
	int n;
	int links;
	int rootfd;
	const char *scope;
};

static int resolve(struct walk *w, const char *target);

/* Applies one component; 1 when the walk left the workspace. */
static int step(struct walk *w, const char *c, size_t len)
{
	if (len == 0 || (len == 1 && c[0] == '.'))
		return 0;
	if (len == 2 && c[0] == '.' && c[1] == '.') {
		if (w->n == 0)
			return 1; /* above the root */
		free(w->comp[--w->n]);
		return 0;
	}
	if (w->n == MAX_DEPTH)
		return 1;
	w->comp[w->n++] = xstrndup(c, len);
	if (w->rootfd < 0)
		return 0;
	/* a link already in the workspace at this point: resolve it in place */
	char *rel = NULL;
	size_t total = 0;
	for (int i = 0; i < w->n; i++)
		total += strlen(w->comp[i]) + 1;
	rel = xmalloc(total + 1);
	rel[0] = '\0';
	for (int i = 0; i < w->n; i++) {
		if (i)
			strcat(rel, "/");
		strcat(rel, w->comp[i]);
	}
	/* every ancestor was resolved already: a plain lstat of rel within the root sees only
	 * components the walk put there, none of them a link */
	struct stat st;
	int rc = 0;
	if (fstatat(w->rootfd, rel, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode)) {
		char t[4096];
		ssize_t k = readlinkat(w->rootfd, rel, t, sizeof t - 1);
		if (k < 0 || ++w->links > MAX_LINKS) {
			rc = 1; /* cannot tell: fail closed */
		} else {
			t[k] = '\0';
			free(w->comp[--w->n]); /* the link's own name: its target replaces it */
			rc = resolve(w, t);
		}
	}
	free(rel);
	return rc;
}

static int resolve(struct walk *w, const char *target)
{
	if (target[0] == '/') {
		size_t sl = strlen(w->scope);
		if (strncmp(target, w->scope, sl) != 0 || (target[sl] != '/' && target[sl] != '\0'))
			return 1;
		while (w->n)
			free(w->comp[--w->n]);
		target += sl;
	}
	for (const char *p = target; *p;) {
		size_t len = strcspn(p, "/");
		if (step(w, p, len))
			return 1;
		p += len;
		while (*p == '/')
			p++;
	}
	return 0;
}

int trial_link_leaves(const char *scope, int rootfd, const char *rel, const char *target)
{
	if (!scope || !rel || !target || !*target)
		return 1;
	struct walk w = {.rootfd = rootfd, .scope = scope};
	int out = 0;
	/* the link's directory: rel without its last component */
	const char *slash = strrchr(rel, '/');
	if (slash) {
		char *dir = xstrndup(rel, (size_t)(slash - rel));
		out = resolve(&w, dir);
		free(dir);
	}
	if (!out)
		out = resolve(&w, target);
	while (w.n)
		free(w.comp[--w.n]);
	return out;
}
