/* glyphs.h - symbols with ASCII fallbacks (see glyphs.def). */
#ifndef BELAY_TUI_GLYPHS_H
#define BELAY_TUI_GLYPHS_H

enum glyph {
#define GLYPH(id, u, a) id,
#include "tui/glyphs.def"
#undef GLYPH
	G_COUNT
};

/* Chooses the set once: ascii != 0 for terminals that are not UTF-8. */
void glyphs_set_ascii(int ascii);
int glyphs_ascii(void);
/* The glyph in the chosen set (static string). */
const char *glyph(enum glyph g);

#endif
