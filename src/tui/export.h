/* export.h - what the console copies and saves, made ready: a document's plain text, a
 * file written whole or not at all, the OSC 52 sequence that asks a terminal to put text in
 * its clipboard, and whether to send one at all.
 *
 * OSC 52 is sent only when the terminal says it takes it: terminfo's `Ms` capability, or
 * inside tmux its `set-clipboard` option (on or external: tmux then takes the sequence and
 * passes it on). A terminal never answers a clipboard write, so a sent copy cannot be
 * confirmed: callers say so.
 *
 * Must not: touch curses, print. Threads: any. */
#ifndef BELAY_TUI_EXPORT_H
#define BELAY_TUI_EXPORT_H
#include <stddef.h>

#include "common/buf.h"
#include "common/err.h"
#include "tui/tdoc.h"

/* The plain text of d: each line's spans, then a newline (new string; *len its length). */
char *export_doc_text(const struct tdoc *d, size_t *len);
/* Writes n bytes to path whole (a temporary file beside it, then renamed), mode 0600; the
 * directory above it is created (0700) when missing. An error names the path. */
int export_file(const char *path, const void *p, size_t n, struct err *e);
/* Appends to out the OSC 52 sequence that sets the clipboard ("c") to the n bytes at p. */
void export_osc52(struct buf *out, const void *p, size_t n);
/* 1 when a clipboard write may be sent: inside tmux (tmux_clip: its set-clipboard value, NULL
 * outside tmux) when it is "on" (tmux takes an application's OSC 52 only then); outside,
 * when ms_cap (terminfo's Ms, NULL when absent) is set. 0 otherwise, with why filled with
 * the reason. */
int export_clipboard_ok(const char *ms_cap, const char *tmux_clip, char *why, size_t n);

#endif
