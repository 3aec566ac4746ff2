/* linediff.h - a unified line diff (Myers' O(ND) algorithm): the hunks of the edit script
 * from a to b with `context` unchanged lines around each change, handed to a sink line by
 * line. What the console's diff view (tui/udiff.c) and a trial record's text diffs
 * (trial/trial_diff.c) render. Pure; a diff needing more than `max_d` edits is refused
 * rather than computed slowly. Threads: any (no state). */
#ifndef BELAY_COMMON_LINEDIFF_H
#define BELAY_COMMON_LINEDIFF_H
#include <stddef.h>

struct linediff_sink {
	/* "@@ -a_start,a_n +b_start,b_n @@" (1-based starts; 0 when a side is empty) */
	void (*hunk)(void *ctx, size_t a_start, size_t a_n, size_t b_start, size_t b_n);
	/* one line of a hunk: op ' ' kept, '-' only in a, '+' only in b; s without its newline
	 * (a '\r' before it is kept); nonl: the file's last line, without a final newline */
	void (*line)(void *ctx, char op, const char *s, size_t n, int nonl);
	void *ctx;
};

/* Equal inputs give no hunks; a side without lines (an added or a removed file) needs no
 * search, whatever the other's length. Returns 0, or -E2BIG (nothing handed out) when more than
 * max_d edits would be needed. */
int linediff(const char *a, size_t alen, const char *b, size_t blen, int context, int max_d,
	     const struct linediff_sink *k);

#endif
