/* witness.c - see witness.h. */
#include "proxy/witness.h"

#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/proctree.h"
#include "common/strmap.h"
#include "common/xalloc.h"

struct witness {
	pthread_mutex_t mu;
	char *scope;
	size_t scope_len;
	struct strmap paths; /* relative path -> tree flag */
	int overflow;
	unsigned long long noted; /* writes noted in the scope since witness_new (never reset) */
	_Atomic int root;         /* the contained tree's first process (0: none known) */
};

struct witness *witness_new(const char *scope)
{
	struct witness *w = xcalloc(1, sizeof *w);
	pthread_mutex_init(&w->mu, NULL);
	w->scope = xstrdup(scope);
	w->scope_len = strlen(scope);
	while (w->scope_len > 1 && w->scope[w->scope_len - 1] == '/')
		w->scope[--w->scope_len] = '\0';
	strmap_init(&w->paths);
	return w;
}

void witness_free(struct witness *w)
{
	if (!w)
		return;
	strmap_free(&w->paths);
	pthread_mutex_destroy(&w->mu);
	free(w->scope);
	free(w);
}

void witness_note(struct witness *w, const char *path, int tree)
{
	if (!w || !path || strncmp(path, w->scope, w->scope_len) || (path[w->scope_len] && path[w->scope_len] != '/'))
		return;
	const char *rel = path[w->scope_len] ? path + w->scope_len + 1 : ".";
	if (!*rel)
		rel = ".";
	pthread_mutex_lock(&w->mu);
	w->noted++;
	int64_t old = 0;
	int had = strmap_get(&w->paths, rel, &old);
	if (!had && strmap_count(&w->paths) >= WITNESS_MAX)
		w->overflow = 1;
	else if (!had || (tree && !old))
		strmap_put(&w->paths, rel, tree ? 1 : 0);
	pthread_mutex_unlock(&w->mu);
}

unsigned long long witness_noted(struct witness *w)
{
	if (!w)
		return 0;
	pthread_mutex_lock(&w->mu);
	unsigned long long n = w->noted;
	pthread_mutex_unlock(&w->mu);
	return n;
}

void witness_note_cb(void *ctx, const char *path, int tree)
{
	witness_note(ctx, path, tree);
}

void witness_set_root(struct witness *w, int pid)
{
	if (w)
		atomic_store(&w->root, pid);
}

/* Notes, as a write, each file in the scope that a process of the contained tree holds open
 * for writing (a descriptor opened O_WRONLY or O_RDWR) or has mapped shared and writable: it
 * may have been written through since, without a new open the supervisor would see. */
static void note_held(void *ctx, const struct proctree_file *f)
{
	if (f->mapped ? f->writable && f->shared : f->writable)
		witness_note(ctx, f->path, 0);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

void witness_take(struct witness *w, struct witnessed *out)
{
	memset(out, 0, sizeof *out);
	int root = atomic_load(&w->root);
	if (root > 0)
		(void)proctree_files(root, 4096, note_held, w); /* a partial tree: what was read is noted */
	pthread_mutex_lock(&w->mu);
	size_t n = strmap_count(&w->paths);
	out->paths = xcalloc(n + 1, sizeof *out->paths);
	out->tree = xcalloc(n + 1, 1);
	for (size_t i = 0; i < w->paths.cap; i++)
		if (strmap_live(&w->paths, i))
			out->paths[out->n++] = xstrdup(w->paths.slots[i].key);
	qsort(out->paths, out->n, sizeof *out->paths, cmp_str);
	for (size_t i = 0; i < out->n; i++) {
		int64_t t = 0;
		strmap_get(&w->paths, out->paths[i], &t);
		out->tree[i] = (unsigned char)t;
	}
	out->overflow = w->overflow;
	strmap_free(&w->paths);
	strmap_init(&w->paths);
	w->overflow = 0;
	pthread_mutex_unlock(&w->mu);
}

void witnessed_free(struct witnessed *ws)
{
	for (size_t i = 0; i < ws->n; i++)
		free(ws->paths[i]);
	free(ws->paths);
	free(ws->tree);
	memset(ws, 0, sizeof *ws);
}

static int find(const struct witnessed *ws, const char *p, size_t len, unsigned char *tree)
{
	size_t lo = 0, hi = ws->n;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		int c = strncmp(ws->paths[mid], p, len);
		if (c == 0 && ws->paths[mid][len])
			c = 1;
		if (c == 0) {
			if (tree)
				*tree = ws->tree[mid];
			return 1;
		}
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return 0;
}

int witnessed_explains(const struct witnessed *ws, const char *path, int is_dir)
{
	size_t len = strlen(path);
	if (find(ws, path, len, NULL))
		return 1;
	/* an ancestor moved as a tree */
	for (size_t i = len; i > 0; i--) {
		unsigned char tree = 0;
		if (path[i - 1] == '/' && find(ws, path, i - 1, &tree) && tree)
			return 1;
	}
	if (!is_dir)
		return 0;
	/* a witnessed entry directly inside the directory */
	int root = !strcmp(path, ".");
	for (size_t i = 0; i < ws->n; i++) {
		const char *q = ws->paths[i];
		if (root) {
			if (!strchr(q, '/') && strcmp(q, "."))
				return 1;
		} else if (!strncmp(q, path, len) && q[len] == '/' && !strchr(q + len + 1, '/')) {
			return 1;
		}
	}
	return 0;
}
