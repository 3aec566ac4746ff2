/* termsafe.h - the one definition of what in a string from outside belay (a contained
 * process's file names and output, a trace, an imported case, a server's or an agent's
 * words) must never reach a terminal as it is, and the one function that escapes it for a
 * terminal outside the console.
 *
 * Unsafe, whatever the locale:
 *   - invalid UTF-8 (overlongs, surrogates, values above U+10FFFF, stray or missing
 *     continuation bytes): each such byte;
 *   - controls: C0 (U+0000-U+001F), DEL (U+007F), C1 (U+0080-U+009F): they move the cursor,
 *     erase, retitle, or start an escape sequence (ESC, CSI, OSC, DCS...);
 *   - invisibles: bidi controls (U+061C, U+200E, U+200F, U+202A-U+202E, U+2066-U+2069),
 *     zero-width and other invisible format characters (U+180E, U+200B-U+200D,
 *     U+2060-U+2064, U+206A-U+206F, U+FEFF, U+FFF9-U+FFFB, the tags U+E0000-U+E007F, the
 *     Hangul fillers U+115F, U+1160, U+3164, U+FFA0) and the line and paragraph separators
 *     U+2028, U+2029: they reorder or hide what is shown, so a line reads otherwise than
 *     it is.
 * The console's canvas (tui/canvas.c) draws a control or an invalid byte as U+FFFD and drops
 * an invisible; the CLI escapes both, visibly, with termsafe_append (never twice: `--json`
 * output keeps JSON's escaping only).
 *
 * Must not: depend on the locale, print. Threads: any. */
#ifndef BELAY_COMMON_TERMSAFE_H
#define BELAY_COMMON_TERMSAFE_H
#include <stddef.h>
#include <stdint.h>

#include "common/buf.h"

#define TERMSAFE_REPLACEMENT 0xFFFDu

/* Decodes one scalar value from s[0..n) (n >= 1) into *cp; returns the bytes consumed
 * (>= 1). Invalid UTF-8 gives TERMSAFE_REPLACEMENT for one byte (and *bad = 1 when bad is
 * not NULL; else *bad = 0), so decoding resumes at the next byte. */
size_t termsafe_decode(const unsigned char *s, size_t n, uint32_t *cp, int *bad);

enum termsafe_class {
	TERMSAFE_PRINT,     /* safe to show as it is */
	TERMSAFE_CONTROL,   /* C0, DEL, C1 */
	TERMSAFE_INVISIBLE, /* bidi controls, zero-width and invisible format characters */
};
enum termsafe_class termsafe_class(uint32_t cp);

/* termsafe_append's flags. */
enum {
	TERMSAFE_LINES = 1,     /* multi-line text (output tails, diffs): '\n' and '\t' stay as they are */
	TERMSAFE_BACKSLASH = 2, /* listings read back by eye or by script: '\\' too, as "\x5c" */
};

/* Appends s[0..n) to out with every unsafe character escaped: '\n', '\r', '\t' as "\n",
 * "\r", "\t" ('\n' and '\t' unchanged with TERMSAFE_LINES), another ASCII control and an
 * invalid byte as "\xHH" (the byte), a C1 control or an invisible as "\uHHHH"
 * ("\UHHHHHHHH" above U+FFFF). Everything else, a backslash included (but with
 * TERMSAFE_BACKSLASH), is copied unchanged: the escapes are for showing, not for reading
 * back. A NULL s appends nothing. */
void termsafe_append(struct buf *out, const char *s, size_t n, unsigned flags);

/* The same into a new NUL-terminated string (the caller frees it); NULL gives "". */
char *termsafe_dup(const char *s, unsigned flags);

/* Whether s[0..n) holds nothing termsafe_append would change (with flags). */
int termsafe_is_safe(const char *s, size_t n, unsigned flags);

#endif
