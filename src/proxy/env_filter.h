/* env_filter.h - which variables of a recorded server environment load code into the
 * server before it runs: the dynamic loader's (LD_*, DYLD_*, GCONV_PATH, ...) and the
 * interpreters' start-up hooks (NODE_OPTIONS, PYTHONPATH, PYTHONSTARTUP, BASH_ENV, PERL5OPT,
 * RUBYOPT, JAVA_TOOL_OPTIONS, ...). Material from elsewhere (a trace this state directory did
 * not seal, an imported corpus case, a bundle) must not set them: verify refuses such a turn
 * by name (REPLAY_ENV_REFUSED) rather than dropping the variable silently (docs/VERDICTS.md,
 * docs/THREAT_MODEL.md).
 *
 * The list is closed and matched by name: exact names, and prefixes for the families
 * (LD_, DYLD_). Pure; thread-safe; allocates only what it returns. */
#ifndef BELAY_PROXY_ENV_FILTER_H
#define BELAY_PROXY_ENV_FILTER_H
#include <cjson/cJSON.h>
#include <stddef.h>

/* 1 when a variable of this name (len bytes, not NUL-terminated) injects code. */
int env_filter_refused_name(const char *name, size_t len);
/* The refused names a server record's "env" array sets (server_env.h's form), comma
 * separated in record order, each once: a new string, or NULL when none. A malformed entry
 * whose name cannot be read, or holds NUL, '=' or ',', is named "(unreadable name)" (refused
 * too: fail closed). */
char *env_filter_refused(const cJSON *record);

#endif
