/* env_seal.h - the seal a state directory puts on the environment its own recordings
 * carry: an HMAC-SHA256 of the server record's "env" (RFC 8785 canonical form) keyed with
 * <state>/env.key (32 random bytes, 0600, ours; created on first use; the state directory is
 * hidden from contained servers). A trace whose seal checks against the state directory
 * verify uses was recorded by this belay for this user: its recorded environment is applied
 * as recorded. Any other (a trace from elsewhere, an edited one, an older one without a
 * seal) is material from elsewhere, and env_filter.h's variables are refused.
 *
 * Touches the disk (the key); never prints. Thread-safe. */
#ifndef BELAY_PROXY_ENV_SEAL_H
#define BELAY_PROXY_ENV_SEAL_H
#include <cjson/cJSON.h>

#include "common/err.h"

#define ENV_SEAL_PREFIX "hmac-sha256:"
#define ENV_SEAL_LEN (12 + 64 + 1)

/* The seal of record (the "env" array) under state_dir's key (created when absent). */
int env_seal_make(const char *state_dir, const cJSON *record, char out[ENV_SEAL_LEN], struct err *e);
/* 1 when seal is record's seal under state_dir's key; 0 when not, when the key is absent or
 * unusable, or seal is NULL (never creates the key). */
int env_seal_check(const char *state_dir, const cJSON *record, const char *seal);

#endif
