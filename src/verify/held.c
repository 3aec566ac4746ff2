/* held.c - the workspace files a running replayed server holds: see held.h. */
#include "verify/held.h"

#include <stdlib.h>
#include <string.h>

#include "common/proctree.h"
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

struct held_walk {
	struct held *h;
	const char *ws;
};

static void held_file(void *ctx, const struct proctree_file *f)
{
	struct held_walk *w = ctx;
	add(w->h, w->ws, f->path, f->mapped);
}

int held_collect(int root, const char *ws, struct held *out)
{
	memset(out, 0, sizeof *out);
	struct held_walk w = {out, ws};
	return proctree_files(root, HELD_MAX_PROCS, held_file, &w);
}

void held_free(struct held *h)
{
	for (size_t i = 0; i < h->n; i++)
		free(h->rel[i]);
	free(h->rel);
	free(h->mapped);
	memset(h, 0, sizeof *h);
}
