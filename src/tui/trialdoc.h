/* trialdoc.h - a trial as the console shows it: the words and roles of its list row (how it
 * ended, its state, its effect counts) and its detail document (command, scope, how it
 * ended, the effect, the content diffs of its text files (tui/diffview.h over
 * trial_show.h's inputs, as `belay try show` prints them), the denials, the output tails).
 *
 * Honesty: a trial that failed or was voided (a cause set) shows its cause by name in
 * ROLE_ERROR, never in the look of a clean one.
 *
 * Must not: write anything, touch curses. trialdoc_build reads the snapshot store and the
 * trial's upper layer (called when the view opens, not while drawing). Threads: the UI's. */
#ifndef BELAY_TUI_TRIALDOC_H
#define BELAY_TUI_TRIALDOC_H
#include <cjson/cJSON.h>
#include <stddef.h>

#include "tui/role.h"
#include "tui/tdoc.h"
#include "tui/tmodel.h"

/* How it ended: the cause when one is set ("TRIAL_TIMEOUT"), else "exit N" or "signal
 * NAME"; with its role. */
enum role trialdoc_outcome(const cJSON *rec, char *out, size_t n);
/* Its state ("ready", "applied", "discarded", "not_appliable", ...) and role. */
enum role trialdoc_state(const cJSON *rec, const char **word);
/* Effect counts: [0] added, [1] changed, [2] deleted, [3] mode. */
void trialdoc_counts(const cJSON *rec, int c[4]);
/* The command as one line ("sh -c 'make all'"), new string. */
char *trialdoc_command(const cJSON *rec);
/* The detail of trial t into d (cleared first). */
void trialdoc_build(struct tdoc *d, const char *state_dir, const struct tm_trial *t);

#endif
