/* fuzz_theme.c - the theme loader (src/tui/theme.c).
 *
 * Input: a theme file. A refused one is a named EINVAL starting with FILE:LINE; an
 * accepted one gives every role a style at each depth within that depth's range: 256
 * colours (-1..255), 8 colours (-1..7), monochrome (no colours), attributes only TA_*. */
#include <stdint.h>
#include <string.h>

#include "support.h"
#include "tui/theme.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct theme t;
	memset(&t, 0x5a, sizeof t);
	struct err e = {0};
	int rc = theme_parse((const char *)data, size, "themes/fuzz.theme", &t, &e);
	FZ_NOTE("parse: %d %s", rc, rc ? e.msg : "");
	if (rc) {
		FZ_CHECK(rc == BELAY_EINVAL && e.code == rc, "refused with %d", rc);
		FZ_CHECK(strncmp(e.msg, "themes/fuzz.theme:", 18) == 0, "the error does not name FILE:LINE: %s", e.msg);
		return 0;
	}
	FZ_CHECK(strcmp(t.name, "fuzz") == 0, "name '%s'", t.name);
	const unsigned all = TA_BOLD | TA_DIM | TA_UNDERLINE | TA_REVERSE | TA_ITALIC | TA_STANDOUT;
	for (int r = 0; r < ROLE_COUNT; r++) {
		const struct style *s256 = &t.s[DEPTH_256][r], *s8 = &t.s[DEPTH_8][r], *m = &t.s[DEPTH_MONO][r];
		FZ_CHECK(s256->fg >= -1 && s256->fg <= 255 && s256->bg >= -1 && s256->bg <= 255, "role %d at 256", r);
		FZ_CHECK(s8->fg >= -1 && s8->fg <= 7 && s8->bg >= -1 && s8->bg <= 7, "role %d at 8: %d on %d", r, s8->fg,
			 s8->bg);
		FZ_CHECK(m->fg == -1 && m->bg == -1, "role %d has a colour in mono", r);
		FZ_CHECK(!(s256->attrs & ~all) && !(s8->attrs & ~all) && !(m->attrs & ~all), "role %d attributes", r);
	}
	return 0;
}
