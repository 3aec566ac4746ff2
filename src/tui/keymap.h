/* keymap.h - key bindings are data (keymaps/default.keys, embedded at build time; a
 * user's $XDG_CONFIG_HOME/belay/keys, else ~/.config/belay/keys, is applied on top,
 * line by line: a binding for the same context and key replaces the default one, and the
 * command "none" removes it).
 *
 * File format, one binding per line:   CONTEXT  KEY  COMMAND [ARGS...]  ["help text"]
 *   CONTEXT  one of the contexts below
 *   KEY      a printable character as itself (UTF-8), or <enter> <esc> <tab> <s-tab>
 *            <space> <bs> <del> <up> <down> <left> <right> <pgup> <pgdn> <home> <end>
 *            <f1>..<f12> <c-a>..<c-z> <m-x> (alt + a character) <lt> (a literal '<')
 *   COMMAND  a command from commands.def, with its arguments
 *   help     optional quoted text; default: the command's help from commands.def
 * '#' starts a comment. Unknown contexts, keys or commands are errors naming FILE:LINE.
 * Lookup tries the view's context first, then "global".
 *
 * Must not: touch curses. Threads: any; a keymap is immutable once loaded. */
#ifndef BELAY_TUI_KEYMAP_H
#define BELAY_TUI_KEYMAP_H
#include <stddef.h>

#include "common/err.h"

enum kctx { KCTX_GLOBAL = 0, KCTX_RUNS, KCTX_TURNS, KCTX_DETAIL, KCTX_DENIALS, KCTX_HELP, KCTX_LOG, KCTX_TRIALS, KCTX_TRIAL,
	    KCTX_CORPUS, KCTX_CASE, KCTX_COUNT };

enum command {
#define CMD(id, name, args, help) id,
#include "tui/commands.def"
#undef CMD
	C_COUNT
};

/* A key: a Unicode character (code > 0), or one of the named keys below (negative). */
enum {
	K_ENTER = -1, K_ESC = -2, K_TAB = -3, K_STAB = -4, K_SPACE = -5, K_BS = -6, K_DEL = -7,
	K_UP = -8, K_DOWN = -9, K_LEFT = -10, K_RIGHT = -11, K_PGUP = -12, K_PGDN = -13,
	K_HOME = -14, K_END = -15, K_RESIZE = -16,
	K_MOUSE = -17, /* a mouse event: term_mouse_event (term.h) has it; never bound */
	K_F1 = -101,  /* .. K_F12 = -112 */
	K_CTRL = -200, /* K_CTRL - 'a' .. K_CTRL - 'z' */
	K_ALT = 0x40000000, /* K_ALT | ch */
};
#define K_F(n) (K_F1 - ((n)-1))
#define K_C(ch) (K_CTRL - (ch))

struct binding {
	enum kctx ctx;
	int key;
	enum command cmd;
	char *line;  /* the full command line as written ("tab diff"), owned */
	char *help;  /* owned */
};

struct keymap {
	struct binding *b;
	size_t n, cap;
};

const char *kctx_name(enum kctx c);
const char *command_name(enum command c);
const char *command_args(enum command c);
const char *command_help(enum command c);
/* Parses the command name at the start of line (up to a blank); -1 when unknown. */
int command_lookup(const char *line);

/* Parses a key name ("j", "<c-d>", "<s-tab>"); returns 0 and *key, or BELAY_EINVAL. */
int key_parse(const char *name, int *key, struct err *e);
/* The canonical name of a key ("<pgdn>", "G", "<c-d>") into out. */
void key_name(int key, char *out, size_t n);

/* Parses keymap text into km (bindings appended; later lines replace earlier ones with the
 * same context and key). origin names the text in errors. */
int keymap_parse(struct keymap *km, const char *text, size_t len, const char *origin, struct err *e);
/* The built-in keymap, then the user's file (if any) on top. */
int keymap_load(struct keymap *km, struct err *e);
void keymap_free(struct keymap *km);
/* The binding for key in ctx, else in KCTX_GLOBAL; NULL when unbound. */
const struct binding *keymap_lookup(const struct keymap *km, enum kctx ctx, int key);
/* Comma-separated names of the keys bound to command line `line` in ctx or global
 * ("j, <down>"); "" when none. For hint bars and help that follow rebinding. */
void keymap_keys_for(const struct keymap *km, enum kctx ctx, const char *line, char *out, size_t n);
/* Calls fn for each binding visible in ctx (the context's own, then global ones not
 * shadowed), grouped by command line in file order, keys joined as in keymap_keys_for. */
void keymap_each_help(const struct keymap *km, enum kctx ctx,
		      void (*fn)(void *arg, const char *keys, const char *line, const char *help), void *arg);

#endif
