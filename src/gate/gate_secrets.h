/* gate_secrets.h - what the gate counts as a secret beyond a secret-looking name (that list
 * is common/secret.h, shared with the recorded server environment): HTTP headers that carry
 * credentials (Authorization, X-Api-Key, Cookie, ...) and words that mark secret text (.env,
 * id_rsa, private_key, password=, ...). The effect gate uses them to classify commands; the
 * OTLP boundary (src/interop/redact.c) uses the same ones to scrub what leaves belay.
 * Pure; case-insensitive. */
#ifndef BELAY_GATE_GATE_SECRETS_H
#define BELAY_GATE_GATE_SECRETS_H

/* 1 when h (a header name, up to an optional ':' or ';') is a credential header. */
int gate_secret_header(const char *h);
/* 1 when text mentions a secret file or an inline password. */
int gate_secret_text(const char *s);

#endif
