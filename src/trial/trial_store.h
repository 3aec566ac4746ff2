/* trial_store.h - what a trial keeps in the snapshot store beside its pre-state: its full
 * stdout and stderr as objects, referenced (owner "trial", the trial's id) so gc keeps them
 * while the trial's directory exists. Internal to src/trial (trial.h has the public reads).
 * Threads: the caller's. */
#ifndef BELAY_TRIAL_TRIAL_STORE_H
#define BELAY_TRIAL_TRIAL_STORE_H
#include <cjson/cJSON.h>
#include <stddef.h>

struct snap_store;

/* The reference owner kind of everything a trial keeps in the store. */
#define TRIAL_REF_KIND "trial"

/* rec["<name>"] = {sha256, bytes, object (64 hex: its name in the store), tail_cut} with the
 * bytes stored as an object of the trial `id` (or, when the store refuses them, "object_error"
 * instead of "object"), and rec["<name>_tail"] = the last TRIAL_TAIL_BYTES, scrubbed. */
void trial_store_output(cJSON *rec, struct snap_store *st, const char *id, const char *name, const char *p, size_t n);

#endif
