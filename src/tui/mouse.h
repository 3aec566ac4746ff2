/* mouse.h - what a mouse event does in the console: the wheel scrolls the pane under the
 * pointer (three rows a notch; the verdict block one), a click focuses the pane and the row
 * under it (a run, a turn, a denial, a trial, a corpus case), or the detail tab under it,
 * and a double click (a second click on the same cell within MOUSE_DOUBLE_MS) opens what a
 * click focused (Enter; in a detail tab, folds the JSON node). term.c turns the terminal's reports (SGR 1006) into struct mouse_ev; this file only
 * maps them to the UI's own commands, so a click does what its key would.
 *
 * Must not: call curses, read the clock (the caller gives the time). Threads: the UI thread. */
#ifndef BELAY_TUI_MOUSE_H
#define BELAY_TUI_MOUSE_H
#include "tui/ui.h"

#define MOUSE_DOUBLE_MS 400

enum mouse_kind { MOUSE_CLICK = 1, MOUSE_WHEEL_UP, MOUSE_WHEEL_DOWN }; /* a click: the first button's release */

struct mouse_ev {
	int y, x; /* the cell, 0-based */
	enum mouse_kind kind;
};

/* Applies ev, which came at now_ms (a monotonic clock, for double clicks). */
void mouse_apply(struct ui *u, const struct mouse_ev *ev, long long now_ms);

#endif
