/* secret.h - does a name or a value look like a credential? One list for every place that
 * must not repeat a secret verbatim (the gate's taint of secret-looking variables, the
 * recorded server environment). Heuristics, deliberately broad: a false "secret" costs a
 * hash instead of a value; a missed one leaks it. Pure, thread-safe. */
#ifndef BELAY_COMMON_SECRET_H
#define BELAY_COMMON_SECRET_H
#include <stddef.h>

/* 1 when an environment variable (or similar) name suggests a credential: it contains
 * TOKEN, SECRET, PASSWORD, PASSWD, PASS, KEY, CREDENTIAL, AUTH, COOKIE or SESSION
 * (any case). */
int secret_name_like(const char *name);
/* 1 when a value has the shape of a credential whatever its name: a known token prefix
 * (sk-, ghp_, gho_, github_pat_, xox?-, AKIA, ASIA, AIza, glpat-, eyJ... JWTs), a PEM block,
 * a URL with a password (scheme://user:pass@host). */
int secret_value_like(const char *value, size_t len);

#endif
