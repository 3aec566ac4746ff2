/* theme.h - themes are data (themes/NAME.theme, embedded at build time; a user's
 * $XDG_CONFIG_HOME/belay/themes/NAME.theme, else ~/.config/belay/themes/NAME.theme, takes
 * precedence over a built-in of the same name). A theme maps every role to a style at
 * each colour depth: 256 colours, 8 colours, and monochrome (attributes only).
 *
 * File format (see themes/dark.theme for a commented example):
 *   [palette]        name = COLOUR          named colours for [roles]
 *   [fallback8]      name = COLOUR8         what a 256-colour palette entry becomes on 8
 *   [roles]          role = STYLE           role names from roles.def
 *   [mono]           role = ATTRS           the monochrome look of a role (optional per
 *                                           role: default is the [roles] attributes)
 *   STYLE  = [FG] [on BG] [ATTR...]   FG/BG: a palette name, a colour name, 0-255, default
 *   COLOUR8 = one of default black red green yellow blue magenta cyan white (+ attrs)
 *   ATTRS  = bold dim underline reverse italic standout, or "none"
 * Comments start with '#'. Unknown sections, roles, palette names, colours or attributes,
 * a role given twice, and a role missing from [roles] are errors naming FILE:LINE.
 *
 * Must not: touch curses (term.c applies a theme). Threads: any; a theme is immutable. */
#ifndef BELAY_TUI_THEME_H
#define BELAY_TUI_THEME_H
#include <stddef.h>

#include "common/err.h"
#include "tui/role.h"

enum theme_depth { DEPTH_MONO = 0, DEPTH_8, DEPTH_256 };

enum {
	TA_BOLD = 1,
	TA_DIM = 2,
	TA_UNDERLINE = 4,
	TA_REVERSE = 8,
	TA_ITALIC = 16,
	TA_STANDOUT = 32,
};

struct style {
	short fg, bg;  /* -1 = the terminal's default; else 0..255 (0..7 at DEPTH_8) */
	unsigned attrs; /* TA_* */
};

struct theme {
	char name[64];
	struct style s[3][ROLE_COUNT]; /* [enum theme_depth][enum role] */
};

/* Parses theme text; `origin` names it in errors ("themes/dark.theme"). */
int theme_parse(const char *text, size_t len, const char *origin, struct theme *out, struct err *e);
/* Loads theme `name`: the user's file if present, else the built-in. BELAY_ENOTFOUND when
 * neither exists (the message lists the built-in names). */
int theme_load(const char *name, struct theme *out, struct err *e);
/* The built-in theme names, NULL-terminated (static). */
const char *const *theme_builtin_names(void);
/* The depth to use for a terminal with `colors` colours: NO_COLOR set (non-empty) or fewer
 * than 8 colours is mono, fewer than 256 is 8, else 256. */
enum theme_depth theme_depth_for(int colors);

#endif
