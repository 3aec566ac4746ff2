/* argdiff.h - the diff a held call's arguments describe, derived by belay from the arguments
 * alone (no run): a file written whole (`path` + `content`, as write_file does) or edited in
 * place (`path` + `edits` of `oldText`/`newText`, as edit_file does), against the file as it is
 * in the workspace now. Shown while the call is held, always under the label "as the
 * arguments describe it; the server may do otherwise": it is what the request says, not what
 * the server will do.
 *
 * Reads only a regular file inside scope (never through a symbolic link, at most 1 MiB).
 * Must not: write anything, run anything. Threads: the UI thread. */
#ifndef BELAY_TUI_ARGDIFF_H
#define BELAY_TUI_ARGDIFF_H
#include <cjson/cJSON.h>

#include "tui/tdoc.h"

/* The label every derived diff carries. */
#define ARGDIFF_LABEL "as the arguments describe it; the server may do otherwise"

/* Appends the derived diff of args (a call's arguments) to d, labelled; returns 1, or 0 (d
 * untouched) when the arguments describe no file write belay can derive. scope: the
 * workspace (NULL: relative paths cannot be resolved, nothing is read). */
int argdiff_render(struct tdoc *d, const char *scope, const cJSON *args);

#endif
