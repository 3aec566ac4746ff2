/* trial_show.h - reading trials for display: the trials of a state directory (newest
 * first), a cheap stamp of a trial's files (to see that one changed), and the inputs of a
 * trial's content diffs (the pre-state in the snapshot store against the upper layer) that
 * `belay try show|apply` and the console's trial view both render (tui/diffview.h).
 *
 * Must not: write anything. Threads: the caller's. */
#ifndef BELAY_TRIAL_TRIAL_SHOW_H
#define BELAY_TRIAL_TRIAL_SHOW_H
#include <cjson/cJSON.h>
#include <stddef.h>
#include <stdint.h>

#include "common/err.h"
#include "snapshot/snapshot.h"

/* The ids of the trials of state_dir that have a record, newest first (an id starts with
 * its UTC start time). *ids (owned, each string too) may be empty; no trials directory is
 * no trial. */
int trial_list(const char *state_dir, char ***ids, size_t *n, struct err *e);
void trial_list_free(char **ids, size_t n);

/* A stamp of trial id's record and state files (their sizes and mtimes): it changes when
 * the record appears or the trial is applied or discarded. 0 when it has no record. */
uint64_t trial_stamp(const char *state_dir, const char *id);

/* What the content diffs of a trial's effect are made of: its regular files (added,
 * changed, deleted; not mode-only changes), the pre-state handle (left) and the upper layer
 * (right). Links, directories and special files are never read for it (a FIFO would block,
 * a link would be followed). */
struct trial_diffs {
	struct snap_store *st; /* open on the trial's scope (NULL when why is set) */
	const char *pre;       /* borrowed from the record */
	char *upper;           /* owned */
	struct snap_diff df;
	char why[600];         /* non-empty: the diffs cannot be shown, and why */
};
/* Fills d for record rec (as trial_load returns it). Afterwards: why set (say it), or
 * df.n entries to render, or neither (nothing to show: no effect on regular files). */
void trial_diffs_open(const char *state_dir, const cJSON *rec, struct trial_diffs *d);
void trial_diffs_close(struct trial_diffs *d);

#endif
