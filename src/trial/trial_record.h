/* trial_record.h - reading and writing a trial's record.json (sealed with its receipt) and
 * state.json. Internal to src/trial. Threads: the caller's. */
#ifndef BELAY_TRIAL_TRIAL_RECORD_H
#define BELAY_TRIAL_TRIAL_RECORD_H
#include <cjson/cJSON.h>

#include "common/err.h"

/* Adds "receipt" (sha256 over the record's JCS form without it) and writes dir/record.json. */
int trial_record_write(const char *dir, cJSON *rec, struct err *e);
/* Reads dir/record.json, refusing it (BELAY_ECORRUPT) when it does not match its receipt. */
int trial_record_read(const char *dir, cJSON **out, struct err *e);
/* dir/state.json, or NULL when there is none. */
cJSON *trial_record_state(const char *dir);
int trial_record_set_state(const char *dir, cJSON *state, struct err *e);

#endif
