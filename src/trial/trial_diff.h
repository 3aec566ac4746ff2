/* trial_diff.h - the text diffs of a trial's effect, kept in its record: for every added or
 * changed regular file, the unified diff of the pre-state's content (from the store; empty
 * for an added file) against the upper layer's, secrets scrubbed, bounded per file and per
 * record. Internal to src/trial. Pure reads (never follows a symlink). Threads: the
 * caller's. */
#ifndef BELAY_TRIAL_TRIAL_DIFF_H
#define BELAY_TRIAL_TRIAL_DIFF_H
#include <cjson/cJSON.h>

struct snap_store;

#define TRIAL_DIFF_FILE_BYTES (16 * 1024)   /* one file's diff in the record */
#define TRIAL_DIFF_TOTAL_BYTES (256 * 1024) /* all of a record's diffs */
#define TRIAL_DIFF_READ_MAX (1u << 20)      /* larger files are not diffed (truncated) */

/* Gives the effect's added and changed regular files (items as trial_effect_scan makes
 * them) either "binary": true (a NUL byte or invalid UTF-8 on either side: no diff) or
 * "diff" (unified, 3 lines of context, both sides scrubbed as the output tails are before
 * they are compared) and "truncated" (true when the diff was cut at a line to fit the
 * bounds, or not made: a file over TRIAL_DIFF_READ_MAX, too many changes; once the record's
 * bound is spent, the remaining files are not read and get "diff": "" with it). The whole
 * contents stay reachable: the pre-state in the store, the new one in the upper layer. */
void trial_diff_add(cJSON *effect, struct snap_store *st, const char *prestate, const char *upper);

#endif
