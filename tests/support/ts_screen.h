/* ts_screen.h - console screens against goldens, all in tests/golden/: each screen at each
 * size once, as a canvas dump with its roles inline (screens/NAME.WxH.screen: what a screen
 * shows does not depend on the theme), and each theme once, as a legend giving every role's
 * style at 256 colours, 8 colours and mono (themes/THEME.legend, one per file in themes/).
 * GENERATE=1 rewrites them (refused when CI is set, and by scripts/test.sh); a mismatch
 * prints expected and actual with the first differing line marked. */
#ifndef BELAY_TESTS_TS_SCREEN_H
#define BELAY_TESTS_TS_SCREEN_H
#include "tui/canvas.h"

/* Where the goldens live. */
#define TS_GOLDEN_SCREENS BELAY_SOURCE_DIR "/tests/golden/screens"
#define TS_GOLDEN_THEMES BELAY_SOURCE_DIR "/tests/golden/themes"

/* The screen c against TS_GOLDEN_SCREENS/NAME.WxH.screen. */
void ts_screen_golden(const struct canvas *c, const char *name);
/* Every theme of themes/ against TS_GOLDEN_THEMES/THEME.legend. */
void ts_theme_legends(void);

#endif
