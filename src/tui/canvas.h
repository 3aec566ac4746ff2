/* canvas.h - an off-screen grid of cells (a character and a role each). Panes draw here,
 * never into curses; term.c copies a canvas to the terminal; tests dump it as text.
 *
 * Text is UTF-8. Drawing never writes outside the canvas or the given width: it clips.
 * Invalid UTF-8 bytes are drawn as U+FFFD, control characters (C0, DEL, C1) as U+FFFD too
 * (a tab as one space) so nothing a server sends can move the cursor or change the
 * terminal. Characters are measured with wcwidth(): a wide character takes two cells
 * (the second a continuation cell); one that would straddle the clip edge is replaced by
 * a space; zero-width characters are dropped. Threads: one canvas, one thread. */
#ifndef BELAY_TUI_CANVAS_H
#define BELAY_TUI_CANVAS_H
#include <stddef.h>
#include <stdint.h>

#include "common/buf.h"
#include "tui/role.h"

struct cell {
	uint32_t ch;   /* Unicode scalar; 0 = continuation of the wide character on its left */
	uint8_t role;  /* enum role */
};

struct canvas {
	int w, h;
	struct cell *cells; /* h rows of w cells, owned */
};

void canvas_init(struct canvas *c, int w, int h); /* cells = ' ' in ROLE_NORMAL */
void canvas_resize(struct canvas *c, int w, int h); /* contents undefined afterwards */
void canvas_free(struct canvas *c);
void canvas_clear(struct canvas *c, enum role r);
/* Fills the rectangle with ch (a 1-column character) in role r. */
void canvas_fill(struct canvas *c, int y, int x, int h, int w, uint32_t ch, enum role r);
/* Draws utf8 at (y, x) in at most `maxw` columns (maxw < 0: to the right edge). Returns the
 * columns used. */
int canvas_text(struct canvas *c, int y, int x, int maxw, enum role r, const char *utf8);
/* Same with at most n bytes of s. */
int canvas_textn(struct canvas *c, int y, int x, int maxw, enum role r, const char *s, size_t n);
int canvas_textf(struct canvas *c, int y, int x, int maxw, enum role r, const char *fmt, ...)
	__attribute__((format(printf, 6, 7)));
/* Like canvas_text, but a string wider than maxw is cut and ends in the ellipsis glyph;
 * the rest of the width (if pad) is filled with spaces in role r. Returns columns used. */
int canvas_text_fit(struct canvas *c, int y, int x, int maxw, enum role r, const char *utf8, int pad);
/* Like canvas_text, but a string wider than maxw keeps its start and its end with the
 * ellipsis glyph between them (a path's last part, a command's arguments stay). Returns
 * the columns used. */
int canvas_text_mid(struct canvas *c, int y, int x, int maxw, enum role r, const char *utf8);
/* Same, aligned right inside [x, x+maxw). */
int canvas_text_right(struct canvas *c, int y, int x, int maxw, enum role r, const char *utf8);
/* Changes the role of cells without touching their characters. */
void canvas_set_role(struct canvas *c, int y, int x, int w, enum role r);
/* A frame with box glyphs around the rectangle, and an optional title drawn into the top
 * edge (" title "), in role r (title in ROLE_TITLE). */
void canvas_box(struct canvas *c, int y, int x, int h, int w, enum role r, const char *title);
void canvas_hline(struct canvas *c, int y, int x, int w, enum role r);
void canvas_vline(struct canvas *c, int y, int x, int h, enum role r);
/* Columns that utf8 occupies when drawn (same rules as canvas_text). */
int canvas_width(const char *utf8);
/* Writes the UTF-8 bytes of the code point cp (below 0x110000) to out, unterminated;
 * returns how many (1 to 4). */
size_t canvas_utf8(uint32_t cp, char out[4]);
const struct cell *canvas_at(const struct canvas *c, int y, int x);

/* The golden dump: one line per row, each ending in '|' (the right edge), runs of cells
 * whose role is not ROLE_NORMAL written as {role.name:text}; a literal '{', '}' or '\\' in
 * text is escaped with '\\'. The format is stable: goldens compare byte for byte. */
void canvas_dump(const struct canvas *c, struct buf *out);
/* Only the text (no role markup, no '|'), trailing blanks kept: what a person sees. */
void canvas_dump_text(const struct canvas *c, struct buf *out);

#endif
