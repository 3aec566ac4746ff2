/* tmodel.c - the console's trials, polled (tmodel.h). */
#include "tui/tmodel.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/jsonx.h"
#include "common/xalloc.h"
#include "trial/trial.h"
#include "trial/trial_show.h"

void tmodel_init(struct tmodel *tm, const char *state_dir)
{
	memset(tm, 0, sizeof *tm);
	tm->state_dir = xstrdup(state_dir);
}

static void trial_free(struct tm_trial *t)
{
	free(t->id);
	cJSON_Delete(t->rec);
}

void tmodel_free(struct tmodel *tm)
{
	for (size_t i = 0; i < tm->n; i++)
		trial_free(&tm->t[i]);
	free(tm->t);
	free(tm->state_dir);
	memset(tm, 0, sizeof *tm);
}

struct tm_trial *tmodel_find(struct tmodel *tm, const char *id)
{
	for (size_t i = 0; id && i < tm->n; i++)
		if (tm->t[i].id && !strcmp(tm->t[i].id, id)) /* NULL: moved by tmodel_poll */
			return &tm->t[i];
	return NULL;
}

static void load(struct tmodel *tm, struct tm_trial *t, uint64_t stamp)
{
	struct err e = {0};
	cJSON_Delete(t->rec);
	t->rec = NULL;
	t->err[0] = '\0';
	if (trial_load(tm->state_dir, t->id, &t->rec, &e) != 0)
		snprintf(t->err, sizeof t->err, "%s", e.msg);
	t->stamp = stamp;
}

/* Newest first by the record's start time (microseconds; ids share a second), then id. */
static int newest_first(const void *a, const void *b)
{
	const struct tm_trial *x = a, *y = b;
	const char *sx = x->rec ? jx_str(x->rec, "started") : NULL, *sy = y->rec ? jx_str(y->rec, "started") : NULL;
	int c = sx && sy ? strcmp(sy, sx) : 0;
	return c ? c : strcmp(y->id, x->id);
}

int tmodel_poll(struct tmodel *tm)
{
	char **ids;
	size_t n;
	struct err e = {0};
	if (trial_list(tm->state_dir, &ids, &n, &e) != 0) {
		snprintf(tm->err, sizeof tm->err, "%s", e.msg);
		return 0;
	}
	tm->err[0] = '\0';
	int changed = 0;
	struct tm_trial *nt = n ? xcalloc(n, sizeof *nt) : NULL;
	for (size_t i = 0; i < n; i++) {
		struct tm_trial *old = tmodel_find(tm, ids[i]);
		uint64_t stamp = trial_stamp(tm->state_dir, ids[i]);
		if (old) {
			nt[i] = *old;
			old->id = NULL; /* moved */
			old->rec = NULL;
			free(ids[i]);
		} else {
			nt[i].id = ids[i];
			changed++;
		}
		if (!old || old->stamp != stamp) {
			if (old)
				changed++;
			load(tm, &nt[i], stamp);
		}
	}
	for (size_t i = 0; i < tm->n; i++) {
		if (tm->t[i].id) /* not moved: gone */
			changed++;
		trial_free(&tm->t[i]);
	}
	free(tm->t);
	free(ids);
	if (n > 1)
		qsort(nt, n, sizeof *nt, newest_first);
	tm->t = nt;
	tm->n = n;
	if (changed)
		tm->gen++;
	return changed;
}
