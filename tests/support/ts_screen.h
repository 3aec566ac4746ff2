/* ts_screen.h - console screens against goldens: a canvas dump (roles inline) followed by a
 * legend giving, for each role on the screen, its style in a theme at 256 colours, 8 colours
 * and mono, compared with DIR/NAME.WxH.THEME.screen, one golden per theme in themes/.
 * GENERATE=1 rewrites them (refused when CI is set, and by scripts/test.sh); a mismatch
 * prints expected and actual with the first differing line marked. */
#ifndef BELAY_TESTS_TS_SCREEN_H
#define BELAY_TESTS_TS_SCREEN_H
#include "tui/canvas.h"

void ts_screen_golden(const struct canvas *c, const char *dir, const char *name);

#endif
