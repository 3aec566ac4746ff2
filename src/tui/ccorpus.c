/* ccorpus.c - the console's model of the corpus, read through corpus.h. See ccorpus.h.
 *
 * Must not: write to the store, touch curses. */
#include "tui/ccorpus.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/jsonx.h"
#include "common/xalloc.h"
#include "tui/cmodel.h"
#include "tui/filter.h"

void ccorpus_init(struct ccorpus *cc)
{
	memset(cc, 0, sizeof *cc);
}

static void case_free(struct cc_case *k)
{
	char **s[] = {&k->id,	      &k->kind, &k->run,     &k->tool,	  &k->status,  &k->cause, &k->label,
		      &k->root_cause, &k->note, &k->created, &k->last, &k->outcome, &k->detail};
	for (size_t i = 0; i < sizeof s / sizeof s[0]; i++)
		free(*s[i]);
}

static void cases_free(struct cc_case *c, size_t n)
{
	for (size_t i = 0; i < n; i++)
		case_free(&c[i]);
	free(c);
}

void ccorpus_free(struct ccorpus *cc)
{
	cases_free(cc->c, cc->n);
	free(cc->vis);
	filter_free(cc->flt);
	memset(cc, 0, sizeof *cc);
}

static char *dup_of(const cJSON *o, const char *key)
{
	const char *s = jx_str(o, key);
	return s ? xstrdup(s) : NULL;
}

/* Newest first: by created (ISO-8601 UTC, so text order is time order), then by id. */
static int newest_first(const void *pa, const void *pb)
{
	const struct cc_case *a = pa, *b = pb;
	int d = strcmp(b->created ? b->created : "", a->created ? a->created : "");
	return d ? d : strcmp(b->id, a->id);
}

/* The case as the turns filter sees a turn (filter.h); no allocation. */
static int case_match(const struct filter *f, const struct cc_case *k)
{
	if (!f)
		return 1;
	struct cm_turn t;
	memset(&t, 0, sizeof t);
	t.turn = k->turn;
	t.tool = k->tool;
	t.args = k->id; /* a word matches the id (and so the run it starts with) */
	t.call = CMC_ANSWERED;
	t.v = t.a1 = t.a2 = cm_v_parse(k->status);
	t.rc = CMV_NONE;
	snprintf(t.cause, sizeof t.cause, "%s", k->cause ? k->cause : "");
	snprintf(t.label, sizeof t.label, "%s", k->label ? k->label : "pending");
	t.label_miss = k->miss;
	snprintf(t.outcome, sizeof t.outcome, "%s", "forwarded");
	return filter_match(f, &t);
}

static void refilter(struct ccorpus *cc)
{
	free(cc->vis);
	cc->vis = xcalloc(cc->n + 1, sizeof *cc->vis);
	cc->nvis = 0;
	for (size_t i = 0; i < cc->n; i++)
		if (case_match(cc->flt, &cc->c[i]))
			cc->vis[cc->nvis++] = i;
	cc->gen++;
}

void ccorpus_set(struct ccorpus *cc, const cJSON *list, const struct corpus_score *s)
{
	size_t n = (size_t)cJSON_GetArraySize(list);
	struct cc_case *c = xcalloc(n + 1, sizeof *c);
	size_t k = 0;
	for (const cJSON *o = list ? list->child : NULL; o; o = o->next) {
		if (!jx_str(o, "id"))
			continue;
		struct cc_case *x = &c[k++];
		x->id = dup_of(o, "id");
		x->kind = dup_of(o, "kind");
		x->run = dup_of(o, "run");
		x->tool = dup_of(o, "tool");
		x->status = dup_of(o, "expected_status");
		x->cause = dup_of(o, "expected_cause");
		x->label = dup_of(o, "label");
		x->root_cause = dup_of(o, "root_cause");
		x->note = dup_of(o, "note");
		x->created = dup_of(o, "created");
		x->last = dup_of(o, "last_outcome");
		const cJSON *t = cJSON_GetObjectItemCaseSensitive(o, "turn");
		x->turn = cJSON_IsNumber(t) ? t->valueint : -1;
		x->miss = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(o, "miss"));
		struct cc_case *old = ccorpus_find(cc, x->id);
		if (old) { /* what only this console knows stays with its case */
			x->marked = old->marked;
			x->outcome = old->outcome;
			x->detail = old->detail;
			old->outcome = old->detail = NULL;
		}
	}
	qsort(c, k, sizeof *c, newest_first);
	cases_free(cc->c, cc->n);
	cc->c = c;
	cc->n = k;
	cc->score = *s;
	cc->loaded = 1;
	cc->err[0] = '\0';
	refilter(cc);
}

int ccorpus_load(struct ccorpus *cc, struct store *db, struct err *e)
{
	struct corpus *c = corpus_borrow(db, NULL);
	cJSON *list = NULL;
	struct corpus_score s;
	int rc = corpus_list(c, &list, e);
	if (rc == 0)
		rc = corpus_score(c, &s, e);
	corpus_close(c);
	if (rc) {
		snprintf(cc->err, sizeof cc->err, "%s", e->msg);
		cJSON_Delete(list);
		cc->gen++;
		return rc;
	}
	ccorpus_set(cc, list, &s);
	cJSON_Delete(list);
	return 0;
}

int ccorpus_filter(struct ccorpus *cc, const char *expr, struct err *e)
{
	struct filter *f = NULL;
	int rc = filter_parse(expr, &f, e);
	if (rc)
		return rc;
	filter_free(cc->flt);
	cc->flt = f;
	snprintf(cc->filter_text, sizeof cc->filter_text, "%s", f ? expr : "");
	refilter(cc);
	return 0;
}

struct cc_case *ccorpus_find(struct ccorpus *cc, const char *id)
{
	for (size_t i = 0; id && i < cc->n; i++)
		if (!strcmp(cc->c[i].id, id))
			return &cc->c[i];
	return NULL;
}

void ccorpus_outcome(struct ccorpus *cc, const char *id, const char *outcome, const char *detail)
{
	struct cc_case *k = ccorpus_find(cc, id);
	if (!k)
		return;
	free(k->outcome);
	free(k->detail);
	k->outcome = outcome ? xstrdup(outcome) : NULL;
	k->detail = detail ? xstrdup(detail) : NULL;
	if (outcome) {
		free(k->last);
		k->last = xstrdup(outcome);
	}
	cc->gen++;
}

size_t ccorpus_marked(const struct ccorpus *cc, const char ***ids)
{
	size_t n = 0;
	*ids = xcalloc(cc->n + 1, sizeof **ids);
	for (size_t i = 0; i < cc->n; i++)
		if (cc->c[i].marked)
			(*ids)[n++] = cc->c[i].id;
	return n;
}

const char *ccorpus_label_word(const char *label, int miss)
{
	if (!label || !strcmp(label, "pending"))
		return "unlabelled";
	if (miss && !strcmp(label, "true-positive"))
		return "missed";
	return label;
}
