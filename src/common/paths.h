/* paths.h - where belay keeps its state: $XDG_STATE_HOME/belay (0700), overridable. */
#ifndef BELAY_COMMON_PATHS_H
#define BELAY_COMMON_PATHS_H
#include "common/err.h"

/* Returns a new string: `override` if given, else $BELAY_STATE_DIR, else
 * $XDG_STATE_HOME/belay, else $HOME/.local/state/belay. */
char *paths_state_dir(const char *override);
/* Returns a new string, $XDG_CONFIG_HOME/belay, else $HOME/.config/belay, or NULL when
 * neither is set: where the user's keys, themes and gate policy live. */
char *paths_config_dir(void);
/* Returns a new string: belay's per-user cache directory, $BELAY_CACHE_DIR, else
 * $XDG_CACHE_HOME/belay, else $HOME/.cache/belay, else the account's home (password
 * database)/.cache/belay. Outside the state directory on purpose: contained servers see
 * (and partly write) it, while the state directory is hidden from them. What lives there:
 * sandbox_cache.h, pkgexec.h. */
char *paths_cache_dir(void);
/* Creates the state directory (0700) and returns 0, or a named error. */
int paths_ensure_state_dir(const char *dir, struct err *e);
/* Where the console listens by default and `belay connect` looks, derived from what every
 * process of the user has - its uid - and never from the environment, which an agent trims
 * (MCP clients pass their servers HOME, PATH, USER, SHELL, TERM, LOGNAME; no
 * XDG_RUNTIME_DIR): /run/user/<uid>/belay/console.sock when /run/user/<uid> (the login
 * manager's runtime dir of that uid) is a directory the uid owns, then
 * /tmp/belay-<uid>/console.sock. Fills out[0..n) with new strings, best first; the console
 * takes out[0], connect tries them in order. Returns n (1 or 2). */
#define PATHS_CONSOLE_SOCKETS 2
int paths_console_sockets(char *out[PATHS_CONSOLE_SOCKETS]);
/* out[0] of paths_console_sockets (new string). */
char *paths_console_socket(void);
/* Absolute path of the running belay binary (for re-exec as the sandbox launcher). */
const char *paths_self_exe(void);
/* A companion program of belay (belay-http, belay-otlp-post): the executable `name` in the
 * running belay's directory, else found on PATH. New string, or NULL when neither has it. */
char *paths_sibling_exe(const char *name);

#endif
