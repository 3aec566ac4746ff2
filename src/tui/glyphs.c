/* glyphs.c - the symbol table (glyphs.def) and the choice between its UTF-8 and ASCII
 * forms, made once by term.c from the terminal's encoding.
 * Must not: detect the encoding itself or touch curses. Threads: set once before drawing
 * starts, then read from the UI thread. */
#include "tui/glyphs.h"

static const char *const glyph_utf8[G_COUNT] = {
#define GLYPH(id, u, a) [id] = u,
#include "tui/glyphs.def"
#undef GLYPH
};

static const char *const glyph_ascii[G_COUNT] = {
#define GLYPH(id, u, a) [id] = a,
#include "tui/glyphs.def"
#undef GLYPH
};

static int use_ascii;

void glyphs_set_ascii(int ascii)
{
	use_ascii = ascii != 0;
}

int glyphs_ascii(void)
{
	return use_ascii;
}

const char *glyph(enum glyph g)
{
	if ((int)g < 0 || g >= G_COUNT)
		return "?";
	return use_ascii ? glyph_ascii[g] : glyph_utf8[g];
}
