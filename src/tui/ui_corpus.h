/* ui_corpus.h - the corpus view of the console (docs/CONSOLE.md, "The corpus"): the cases
 * of the store newest first with the score at the top (ccorpus.h), a case's own document,
 * and what the keys do there (label by meaning, note, delete, re-run, marks); also what a
 * label key means on a turn or a case whatever its verdict (ui_label_meaning).
 *
 * ui.c calls the hooks below; everything else of the view is here.
 *
 * Must not: call curses, block (labels, deletes and re-runs are intents: jobs), write to
 * the store. Threads: the UI thread. */
#ifndef BELAY_TUI_UI_CORPUS_H
#define BELAY_TUI_UI_CORPUS_H
#include <cjson/cJSON.h>
#include <stddef.h>

#include "console_host/cevent.h"
#include "tui/canvas.h"
#include "tui/ccorpus.h"
#include "tui/ui.h"

struct ui_corpus {
	struct ccorpus cc;
	struct list_pos pos;
	char sel[256];	/* the id the selection is on (kept when the list is read again) */
	char open[256]; /* the case whose document is shown (VIEW_CASE) */
	/* a re-run this console started: cases judged of how many, outcomes by kind */
	size_t run_total, run_done, run_counts[CO_NOUTCOMES];
};

/* What a label key means on a verdict (a turn's, or a case's expected one): which is one of
 * C_LABEL_RIGHT, C_LABEL_WRONG, C_LABEL_MISSED; corpus_label_meaning's table (right on a FAIL
 * is true-positive, ...). Missed on a FAIL is refused: 0 and *label, *miss, or -1 with why
 * (a sentence) in why. */
int ui_label_meaning(enum cm_v v, enum command which, const char **label, int *miss, char *why, size_t n);
/* CORPUS_RIGHT, CORPUS_WRONG or CORPUS_MISSED for C_LABEL_RIGHT, C_LABEL_WRONG, C_LABEL_MISSED. */
enum corpus_meaning ui_meaning_of(enum command which);

/* The hooks ui.c calls. */
/* 1 when cmd was the corpus view's to handle (it did), 0 when ui.c handles it. */
int ui_corpus_command(struct ui *u, enum command cmd, const char *arg);
/* 1 when the view is the corpus list (the move was done). */
int ui_corpus_move(struct ui *u, long delta, int to_end);
/* The filter text the / prompt starts from, and setting it (0, or -1 with a message). */
const char *ui_corpus_filter_text(struct ui *u);
int ui_corpus_set_filter(struct ui *u, const char *expr, int quiet);
/* CE_CORPUS and CE_LABELED: the cases and score are read again. */
void ui_corpus_event(struct ui *u, const struct cevent *ev);
void ui_corpus_draw(struct ui *u, struct canvas *c, int y, int h);
/* The case row drawn on screen row y of the corpus list (an index into the cases the filter
 * shows), or -1 (the title, the score, the column heads, below the last case). */
long ui_corpus_row_at(struct ui *u, int y);
/* Focuses the k-th case the filter shows (a click on its row). */
void ui_corpus_select(struct ui *u, size_t k);
void ui_corpus_free(struct ui *u);

/* The view's state (created when first needed). */
struct ui_corpus *ui_corpus_of(struct ui *u);
/* Reads the cases and the score from the model's store (nothing when it has none). */
void ui_corpus_reload(struct ui *u);
/* The case document into u->doc from corpus_show's JSON (borrowed) for case `id`. */
void ui_corpus_case_doc(struct ui *u, const cJSON *shown);

#endif
