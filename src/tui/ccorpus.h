/* ccorpus.h - the console's model of the corpus (docs/CORPUS.md): the cases of the store,
 * newest first, each with its label, expected verdict, tool, run and last outcome; the ones
 * the case filter lets through; the cases marked for a bulk action; the outcomes of the
 * re-runs this console started; and the score. Everything is read through the corpus's own
 * functions (corpus_list, corpus_score, corpus_show) on the model's connection: the score
 * shown is corpus_score's, the one `belay corpus score` prints.
 *
 * The filter is the turns filter's language (filter.h) applied to a case as if it were a
 * turn: tool: is the case's tool, verdict: its expected status, label: its current label
 * (label:missed for a recorded miss), and a bare word matches the id, run, tool, verdict and
 * cause.
 *
 * Must not: write to the store (labels, deletes and re-runs are jobs), touch curses.
 * Threads: the UI thread only. */
#ifndef BELAY_TUI_CCORPUS_H
#define BELAY_TUI_CCORPUS_H
#include <cjson/cJSON.h>
#include <stddef.h>

#include "common/err.h"
#include "corpus/corpus.h"

struct store;
struct filter;

struct cc_case {
	char *id, *kind, *run, *tool, *status, *cause, *label, *root_cause, *note, *created, *last;
	int turn; /* -1: a trajectory case */
	int miss; /* the label declares a recorded miss */
	int marked;
	/* the outcome of a re-run this console started (NULL: none since the list was read) */
	char *outcome, *detail;
};

struct ccorpus {
	struct cc_case *c; /* newest first (created, then id, descending) */
	size_t n;
	size_t *vis; /* indexes of the cases the filter lets through */
	size_t nvis;
	struct filter *flt;
	char filter_text[512];
	struct corpus_score score;
	int loaded;	/* the list and score were read at least once */
	char err[600];	/* the last load's error ("" when none) */
	unsigned gen;	/* bumped on every change */
};

void ccorpus_init(struct ccorpus *cc);
void ccorpus_free(struct ccorpus *cc);
/* Reads the cases and the score again (marks and this console's outcomes are kept for the
 * cases still there). On error, cc->err says why and the last list stays. */
int ccorpus_load(struct ccorpus *cc, struct store *db, struct err *e);
/* Replaces the list by `list` (corpus_list's JSON, borrowed) and the score by *s: what
 * ccorpus_load does after reading; the screen tests feed it directly. */
void ccorpus_set(struct ccorpus *cc, const cJSON *list, const struct corpus_score *s);
/* Sets the filter (empty: everything); an invalid expression leaves it and says why in e. */
int ccorpus_filter(struct ccorpus *cc, const char *expr, struct err *e);
/* The case with this id, or NULL. */
struct cc_case *ccorpus_find(struct ccorpus *cc, const char *id);
/* Records a re-run's outcome for a case (outcome NULL: clears it). */
void ccorpus_outcome(struct ccorpus *cc, const char *id, const char *outcome, const char *detail);
/* How many cases are marked; the ids of the marked ones (new array of borrowed strings). */
size_t ccorpus_marked(const struct ccorpus *cc, const char ***ids);
/* The label as a person reads it: "missed" for a recorded miss, "unlabelled" for pending,
 * else the label. */
const char *ccorpus_label_word(const char *label, int miss);

#endif
