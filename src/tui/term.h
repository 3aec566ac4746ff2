/* term.h - the only file that talks to curses (ncursesw). Opens the terminal, applies a
 * theme (one colour pair per role at the detected depth), copies a canvas to the screen
 * (curses computes the minimal update), and reads keys as enum-key values (keymap.h).
 *
 * Depth: theme_depth_for(COLORS), unless forced. Encoding: UTF-8 when the locale's
 * codeset is UTF-8 (nl_langinfo(CODESET)), else ASCII glyphs (glyphs_set_ascii). The
 * caller calls setlocale(LC_ALL, "") before term_open.
 *
 * Threads: the UI thread only. */
#ifndef BELAY_TUI_TERM_H
#define BELAY_TUI_TERM_H
#include "common/err.h"
#include "tui/canvas.h"
#include "tui/theme.h"

struct term;

struct term_opts {
	int force_depth; /* -1: detect; else enum theme_depth */
	int force_ascii; /* 1: ASCII glyphs even on a UTF-8 terminal */
};

/* Initialises curses on the process's terminal (stdin/stdout): raw-ish input (cbreak,
 * noecho, keypad, no newline translation, ESC delay 10 ms unless ESCDELAY is set), cursor hidden. */
int term_open(const struct term_opts *o, struct term **out, struct err *e);
/* For tests (and embedding): like term_open, on dup()s of in_fd/out_fd (which stay the
 * caller's), with terminal type termname (NULL: $TERM). Headless tests pass a pipe and
 * /dev/null and set LINES/COLUMNS. */
int term_open_fds(const struct term_opts *o, const char *termname, int in_fd, int out_fd, struct term **out,
		  struct err *e);
/* Restores the terminal. Safe to call twice and from an atexit handler. */
void term_close(struct term *t);
enum theme_depth term_depth(const struct term *t);
int term_is_utf8(const struct term *t);
void term_apply_theme(struct term *t, const struct theme *th);
/* The current size (after a K_RESIZE the new one). */
void term_size(struct term *t, int *h, int *w);
/* For a caller that handles SIGWINCH itself (curses then does not see it): reads the
 * terminal's size and resizes the curses screen; 1 when the size changed. */
int term_resize(struct term *t);
/* Draws the canvas (same size as the terminal) and flushes. */
void term_draw(struct term *t, const struct canvas *c);
/* The fd to poll for input. */
int term_input_fd(const struct term *t);
/* Reads one key without waiting: 1 and *key, or 0 when none is ready. A terminal resize
 * comes as K_RESIZE (the curses screen is already resized). Alt+x (ESC then x quickly)
 * comes as K_ALT|x. */
int term_read_key(struct term *t, int *key);
/* Turns mouse reporting on (button presses and the wheel, SGR 1006 reports where terminfo
 * knows them: xterm's kmous "\E[<") or off. Returns 1 when it is on: 0 when off, or when
 * the terminal cannot report the mouse (it then stays off). While on, a mouse event comes
 * from term_read_key as K_MOUSE, and term_mouse_event gives it. */
int term_mouse(struct term *t, int on);
struct mouse_ev;
/* The mouse event of the last K_MOUSE: 1 and *ev, or 0 when it was none the console uses
 * (a release, a motion). */
int term_mouse_event(struct term *t, struct mouse_ev *ev);
/* terminfo's Ms (the terminal takes OSC 52 clipboard writes), or NULL when it has none. */
const char *term_cap_clipboard(struct term *t);
/* Writes bytes to the terminal as they are (an OSC 52 sequence), after what curses drew; 0
 * or -1. */
int term_write_raw(struct term *t, const void *p, size_t n);
/* Rings the bell (a refused action). */
void term_beep(struct term *t);

#endif
