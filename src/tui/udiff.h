/* udiff.h - a unified line diff (Myers' O(ND) algorithm) rendered into a tdoc. Pure.
 * Files with a NUL byte are binary (not diffed); a diff needing more than `max_d` edits is
 * refused rather than computed slowly (the caller says so). */
#ifndef BELAY_TUI_UDIFF_H
#define BELAY_TUI_UDIFF_H
#include <stddef.h>

#include "tui/tdoc.h"

enum { UDIFF_OK = 0, UDIFF_SAME = 1, UDIFF_BINARY = 2, UDIFF_TOO_BIG = 3 };

/* Appends the hunks (with `context` lines around changes) to d. Returns a UDIFF_* code. */
int udiff(struct tdoc *d, const char *a, size_t alen, const char *b, size_t blen, int context, int max_d);

#endif
