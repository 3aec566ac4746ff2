/* redact.h - scrubbing what leaves belay at the OpenTelemetry boundary and on report pages.
 * Secrets are scrubbed always, with the gate's own patterns (gate/gate_secrets.h): the value
 * after a secret-looking name (`GITHUB_TOKEN=...`, `"api_key": "..."`, `password: ...`), after
 * a credential header (`Authorization: Bearer ...`), and PEM private key blocks. Tool
 * arguments and results are left out entirely unless the caller asked for payloads; the
 * trace itself is never touched (it stays lossless). Pure. */
#ifndef BELAY_INTEROP_REDACT_H
#define BELAY_INTEROP_REDACT_H
#include <cjson/cJSON.h>

#define REDACTED "[REDACTED]"

/* A new string: s with every secret value replaced by [REDACTED]. */
char *redact_text(const char *s);
/* In place: members whose name is secret-looking get the string [REDACTED] (whatever they
 * held), every other string is redact_text'ed. */
void redact_json(cJSON *v);

#endif
