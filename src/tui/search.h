/* search.h - finding text inside what a view shows: a pattern (plain text, or a POSIX
 * extended regular expression) matched against every line of a styled document (tdoc.h),
 * each match as a line and a byte range of that line's plain text, so the view can
 * highlight them (tdoc_draw_marked), count them ("3/17") and scroll to one (tdoc_row_of).
 *
 * Case: a pattern with no upper-case letter matches either case ("smart case", as in less
 * and vim); one with an upper-case letter matches exactly. Matches do not overlap; an empty
 * regex match is not a match. At most SEARCH_MAX matches are kept (the count then says
 * "N+"). Results are tied to the document (its serial) and its generation: search_sync runs
 * the search again when the document changed (another tab, another turn), or, after a
 * tdoc_splice (folds opened), searches only the new lines. A plain pattern that extends the
 * one before (typing on) looks again only at the lines that one matched; a plain pattern over
 * a whole document is one memmem over the document's text kept flat.
 *
 * Must not: touch curses, print. Owns its matches and compiled expression.
 * Threads: one search, one thread. */
#ifndef BELAY_TUI_SEARCH_H
#define BELAY_TUI_SEARCH_H
#include <regex.h>
#include <stddef.h>

#include "common/err.h"
#include "tui/tdoc.h"

#define SEARCH_MAX 100000

struct search {
	char pat[256];       /* "" when no search is active */
	int regex, icase;
	regex_t re;
	int re_ok;
	struct tmark *m;     /* the matches, in document order; role ROLE_MATCH / ROLE_MATCH_CUR */
	size_t n, cap;
	int more;            /* more than SEARCH_MAX matched */
	size_t cur;          /* the current match (when n) */
	const struct tdoc *doc; /* the document (and its serial) and generation the matches are of */
	unsigned long serial;
	unsigned gen;
	char *scratch;       /* a line's text, reused */
	size_t scap;
	/* Typing on: a plain pattern that extends the last one can only match on the lines that
	 * one matched, so only they are looked at again (when the document has not changed). */
	size_t *cand;
	size_t ncand, capcand;
	const struct tdoc *cand_doc;
	unsigned long cand_serial;
	unsigned cand_gen;
	int cand_ok;
	/* A plain pattern over a whole document: the document's text kept flat ('\n' after each
	 * line; lower-cased for an ignore-case pattern) while it does not change, so a search
	 * typed anew is one memmem over it, not a copy of every line. */
	const struct tdoc *flat_doc;
	unsigned long flat_serial;
	unsigned flat_gen;
	int flat_icase;
	char *flat;
	size_t flat_len, flat_cap;
	size_t flat_lines; /* the lines built so far (built as far as a search looks) */
	size_t *flat_off; /* where line i starts; flat_off[flat_lines] = flat_len */
	size_t flat_offcap;
};

void search_init(struct search *s);
void search_free(struct search *s);
/* Sets the pattern (regex: a POSIX extended regular expression). A bad expression is
 * BELAY_EINVAL with the reason regcomp gives ("search: bad regular expression \"a(\":
 * parentheses not balanced"), and the previous search is kept. An empty pattern clears the
 * search. */
int search_set(struct search *s, const char *pat, int regex, struct err *e);
/* Finds the matches in d (again, when d or its generation changed since); returns s->n. */
size_t search_sync(struct search *s, const struct tdoc *d);
/* Makes the first match at or after line `line` current (wrapping to the first); returns
 * 0, or -1 when there is none. */
int search_from_line(struct search *s, size_t line);
/* Moves the current match by dir (1 next, -1 previous), wrapping; returns 1 when it wrapped
 * round the document's end, 0 when not, -1 when there is no match. */
int search_step(struct search *s, int dir);
/* "3/17" (or "0/0", "3/100000+") into out. */
void search_count(const struct search *s, char *out, size_t n);
/* Whether pattern p matches somewhere in the n bytes at t (for finding matches in text not
 * shown, as folded JSON). */
int search_match_text(struct search *s, const char *t, size_t n);

/* Builds `lines` more lines of d's flat text (see the struct) ahead of a search, as the view
 * does while idle; returns 1 while more remains. */
int search_prepare(struct search *s, const struct tdoc *d, size_t lines);
/* Finds the pattern in a large text of lines ('\n' between them; a match never spans two):
 * fn(arg, off) for each match's first byte (in line order), until fn returns nonzero. lower
 * (may be NULL) is the same text lower-cased (ASCII) as a case-blind search needs it. Returns
 * how many it found. */
size_t search_scan_buffer(struct search *s, const char *text, const char *lower, size_t n, int (*fn)(void *arg, size_t off),
			  void *arg);

#endif
