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
/* Creates the state directory (0700) and returns 0, or a named error. */
int paths_ensure_state_dir(const char *dir, struct err *e);
/* Absolute path of the running belay binary (for re-exec as the sandbox launcher). */
const char *paths_self_exe(void);

/* The console's socket: $XDG_RUNTIME_DIR/belay/console.sock, else
 * /tmp/belay-<uid>/console.sock (new string). */
char *paths_console_socket(void);

#endif
