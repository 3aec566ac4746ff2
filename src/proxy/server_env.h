/* server_env.h - the environment a server was started with, as the trace records it, and
 * the environment a replay starts it with again.
 *
 * The record (the server record's "env" member) is an array, in the order of the
 * environment: {"name": BYTES, "value": BYTES} for an ordinary variable, or {"name": BYTES,
 * "sha256": HEX, "withheld": "secret-name"|"secret-value"} for one whose name or value looks
 * like a credential (common/secret.h): the trace never holds a secret's value. BYTES is
 * jx_bytes's form (a string, or {"base64": ...}). Pure; thread-safe. */
#ifndef BELAY_PROXY_SERVER_ENV_H
#define BELAY_PROXY_SERVER_ENV_H
#include <cjson/cJSON.h>

#include "common/buf.h"

/* The record of env (a NULL-terminated NAME=VALUE list). Caller owns the result. */
cJSON *server_env_record(char *const *env);

/* The environment to replay with, from a record: every ordinary variable with its recorded
 * value; every withheld one with the value `host` (NULL-terminated NAME=VALUE list, e.g.
 * verify's own environ) has under the same name when its hash matches. *out gets a new
 * NULL-terminated NAME=VALUE list (free with server_env_free). Withheld variables that cannot
 * be supplied are left out and listed in *missing (comma-separated names, a new string; NULL
 * when none). Returns 0, or BELAY_EINVAL when the record is malformed (nothing allocated). */
int server_env_replay(const cJSON *record, char *const *host, char ***out, char **missing);
void server_env_free(char **env);

#endif
