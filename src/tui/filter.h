/* filter.h - the turns filter typed after `/` (or `:filter EXPR`). Pure.
 *
 *   EXPR   = TERM { " " TERM }          every term must match (AND)
 *   TERM   = ["!"] KEY ":" VALUE        ! negates
 *          | ["!"] WORD                  case-insensitive substring of the tool, arguments,
 *                                        error, verdict word and cause
 *   KEY    = tool     VALUE: substring of the tool name
 *          | verdict  pass | warn | fail | unverified | not_covered | none
 *          | status   pending | answered | error | cancelled | held | refused
 *          | gate     allow | flagged | ask | deny
 *          | label    true-positive | false-positive | unverifiable | pending | none
 *                   | missed (a true-positive recorded as a miss)
 *          | has      denials | error | label
 * Unknown keys and values are errors that name the term and list what is allowed. */
#ifndef BELAY_TUI_FILTER_H
#define BELAY_TUI_FILTER_H
#include "common/err.h"
#include "tui/cmodel.h"

struct filter;

/* An empty (or blank) expression gives *out = NULL: everything matches. */
int filter_parse(const char *expr, struct filter **out, struct err *e);
void filter_free(struct filter *f);
int filter_match(const struct filter *f, const struct cm_turn *t);
/* Whether every turn `after` matches is one `before` matches, judged from the text alone (as
 * typing on does: `before` and then more), so a refilter need only look at what `before`
 * kept: `after` extends `before` with more terms, or extends its last term's value when that
 * is a word or tool: (substrings: longer, fewer); nothing negated. 0 when not sure. */
int filter_narrows(const char *before, const char *after);

#endif
