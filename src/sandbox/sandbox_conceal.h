/* sandbox_conceal.h - the locations a contained server must not see: the host's socket
 * directories (where daemons listen: /run, $XDG_RUNTIME_DIR, ...) and the well-known
 * credential stores of the user (~/.ssh, ~/.aws, ~/.gnupg, ~/.netrc, ...). The launcher
 * mounts empty ones over those that exist (sandbox_mounts.c) and names each in the trace's
 * `sandbox` record; `--expose PATH` keeps one (or what lies beneath it) in view.
 * Plain functions, any thread. */
#ifndef BELAY_SANDBOX_SANDBOX_CONCEAL_H
#define BELAY_SANDBOX_SANDBOX_CONCEAL_H
#include <stddef.h>

/* The candidates for this process's environment ($HOME, or the password database's home
 * when HOME is unset; $XDG_RUNTIME_DIR), less those equal to or beneath an exposed path
 * (NULL-terminated realpaths, may be NULL): the socket directories first (*nsockets of
 * them), then the credential stores. New NULL-terminated array; free with
 * sandbox_conceal_free. Paths that do not exist are included (the launcher skips them). */
char **sandbox_conceal_list(char *const *expose, size_t *nsockets);
void sandbox_conceal_free(char **list);

/* Where the absolute `path` lies out of a contained server's sight: "/tmp" or "/dev/shm"
 * (the launcher gives the server private, empty ones) or one of sandbox_conceal_list's
 * locations - unless it lies in `scope` (always in view; may be NULL) or beneath an exposed
 * path (NULL-terminated realpaths, may be NULL). Returns that location (a new string), or
 * NULL when the server sees the path. Reads nothing but the path's realpath. */
char *sandbox_conceal_hider(const char *path, const char *scope, char *const *expose);

/* The credential stores, relative to the home directory (NULL-terminated; for docs and
 * tests). */
extern const char *const sandbox_credential_stores[];

#endif
