/* trial_show.c - trials read for display (trial_show.h). */
#include "trial/trial_show.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "common/fsutil.h"
#include "common/jsonx.h"
#include "common/xalloc.h"
#include "trial/trial_mirror.h"

static int newest_first(const void *a, const void *b)
{
	return strcmp(*(char *const *)b, *(char *const *)a);
}

static uint64_t file_stamp(const char *dir, const char *name)
{
	char *p = fs_join(dir, name);
	struct stat sb;
	uint64_t s = 0;
	if (stat(p, &sb) == 0)
		s = ((uint64_t)sb.st_mtim.tv_sec * 1000000007u + (uint64_t)sb.st_mtim.tv_nsec) ^ ((uint64_t)sb.st_size << 40) ^
		    (uint64_t)sb.st_ino;
	free(p);
	return s;
}

uint64_t trial_stamp(const char *state_dir, const char *id)
{
	if (!trial_mirror_id_ok(id))
		return 0;
	char *base = trial_mirror_base(state_dir), *dir = fs_join(base, id);
	uint64_t r = file_stamp(dir, "record.json");
	if (r)
		r = r * 31u + file_stamp(dir, "state.json") + 1;
	free(base);
	free(dir);
	return r;
}

struct list {
	char **ids;
	size_t n, cap;
};

static void list_one(void *arg, const char *dir, const char *id)
{
	struct list *l = arg;
	if (!file_stamp(dir, "record.json"))
		return; /* running, or a leftover of a killed run */
	if (l->n == l->cap) {
		l->cap = l->cap ? l->cap * 2 : 16;
		l->ids = xrealloc(l->ids, l->cap * sizeof *l->ids);
	}
	l->ids[l->n++] = xstrdup(id);
}

int trial_list(const char *state_dir, char ***ids, size_t *n, struct err *e)
{
	struct list l = {0};
	int rc = trial_mirror_each(state_dir, list_one, &l, e);
	if (rc) {
		trial_list_free(l.ids, l.n);
		l.ids = NULL;
		l.n = 0;
	} else if (l.n) {
		qsort(l.ids, l.n, sizeof *l.ids, newest_first);
	}
	*ids = l.ids;
	*n = l.n;
	return rc;
}

void trial_list_free(char **ids, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(ids[i]);
	free(ids);
}

void trial_diffs_open(const char *state_dir, const cJSON *rec, struct trial_diffs *d)
{
	memset(d, 0, sizeof *d);
	const char *id = jx_str(rec, "id"), *scope = jx_str(rec, "scope"), *state = jx_str(rec, "state");
	const cJSON *pso = cJSON_GetObjectItemCaseSensitive(rec, "prestate");
	const cJSON *eff = cJSON_GetObjectItemCaseSensitive(rec, "effect");
	d->pre = pso ? jx_str(pso, "handle") : NULL;
	if (!id || !scope || !d->pre || !cJSON_GetArraySize(eff) || !trial_mirror_id_ok(id))
		return;
	if (!state || strcmp(state, "ready") != 0) {
		snprintf(d->why, sizeof d->why, "the effect's content is gone (%s)", state ? state : "?");
		return;
	}
	char *base = trial_mirror_base(state_dir), *dir = fs_join(base, id);
	d->upper = fs_join(dir, "upper");
	free(base);
	free(dir);
	d->df.items = xcalloc((size_t)cJSON_GetArraySize(eff), sizeof *d->df.items);
	for (const cJSON *it = eff->child; it; it = it->next) {
		const char *path = jx_str(it, "path"), *change = jx_str(it, "change"), *type = jx_str(it, "type");
		if (!path || !change || !type || strcmp(type, "file") != 0 || !strcmp(change, "mode"))
			continue;
		struct snap_diff_item *x = &d->df.items[d->df.n++];
		x->path = xstrdup(path);
		x->path_len = strlen(path);
		x->kind = !strcmp(change, "added")     ? SNAP_DIFF_ADDED
			  : !strcmp(change, "deleted") ? SNAP_DIFF_REMOVED
						       : SNAP_DIFF_CHANGED;
	}
	struct err e = {0};
	if (d->df.n && snap_store_open(state_dir, scope, &d->st, &e) != 0) {
		snprintf(d->why, sizeof d->why, "%s", e.msg);
		d->st = NULL;
	}
}

void trial_diffs_close(struct trial_diffs *d)
{
	snap_store_close(d->st);
	snap_diff_free(&d->df);
	free(d->upper);
	memset(d, 0, sizeof *d);
}
