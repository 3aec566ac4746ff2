/* detail.h - what the turn detail view shows, loaded once when a turn is opened: the
 * request and response (parsed, foldable), the verdict with every sub-verdict, the effect
 * diff (files added, removed and changed between the turn's pre-state and the next one,
 * with unified text diffs), the denials, the snapshot and the raw frames.
 *
 * Loading reads the store, the trace (frames by offset, hash-checked) and the snapshot
 * store; every part that cannot be read says why in its own tab instead of failing the
 * whole view. Must not: touch curses, write anything. Threads: the UI thread. */
#ifndef BELAY_TUI_DETAIL_H
#define BELAY_TUI_DETAIL_H
#include <cjson/cJSON.h>

#include "tui/cmodel.h"
#include "tui/jsonview.h"
#include "tui/tdoc.h"

enum dtab { TAB_REQUEST = 0, TAB_RESPONSE, TAB_DIFF, TAB_DENIALS, TAB_SNAPSHOT, TAB_RAW, TAB_COUNT };

struct detail {
	char *run;
	int turn;              /* -1 for a held call not in the store yet */
	uint64_t hold;
	cJSON *req, *resp;     /* parsed frames (NULL when absent or not JSON) */
	struct jfold fold[2];  /* request, response */
	cJSON *sent[2];        /* while JSON inside strings is shown parsed: the frames as sent
	                        * (req/resp then hold the parsed copies); NULL otherwise */
	cJSON *verdict;        /* the latest saved verdict (NULL: none) */
	cJSON *recheck;        /* a partial re-check since (replay-from-here; NULL: none) */
	cJSON *runv;           /* the run-level verdicts when it was opened (cm_run.runv's copy) */
	struct tdoc head;      /* the verdict summary shown above the tabs */
	struct tdoc tab[TAB_COUNT];
};

const char *dtab_name(enum dtab t);  /* "request", ... as the `tab` command takes them */
const char *dtab_title(enum dtab t); /* "Request", ..., "Effect diff" */
int dtab_parse(const char *s);       /* -1 unknown */

/* Loads turn `turn` of r. Never fails as a whole: a part that cannot be read is explained
 * in its tab. */
void detail_load(struct detail *d, struct cmodel *m, struct cm_run *r, int turn);
/* A held call that the store does not hold yet: its tool and effect plan, and the brief of
 * the trial it had first (h->trial_*); trial (may be NULL), that trial as the trials view
 * reads it from state_dir, fills the diff tab. */
struct tm_trial;
void detail_load_hold(struct detail *d, const struct cm_run *r, const struct cm_hold *h, const struct tm_trial *trial,
		      const char *state_dir);
/* Shows the JSON held inside strings of the request (tab 0) or response (1) parsed as a tree,
 * or as sent again (it toggles; folds start over). Returns how many strings it parsed (0:
 * none holds JSON, nothing changed), or -1 when it went back to the frame as sent. */
int detail_parse_strings(struct detail *d, int tab);
/* Re-renders the request/response tabs whole (after the JSON itself changed). */
void detail_render_json(struct detail *d);
/* Brings the request/response tabs up to date after fold changes (jsonview_toggle,
 * jsonview_unfold_*): only what changed is rendered again (jsonview_update). */
void detail_refold(struct detail *d);
/* Rebuilds the verdict summary (after a verdict arrived for this turn). */
void detail_render_head(struct detail *d, const struct cm_turn *t);
void detail_free(struct detail *d);

#endif
