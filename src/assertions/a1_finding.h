/* a1_finding.h - the shape of one A1 finding, as both judges (a1_py.c, a1_js.c) return it:
 *   {"function", "finding", "status", "cause", "pre", "post"}, in that order, each a string
 * or null, every string cut to A1_FINDING_TEXT_MAX bytes at a character boundary ("..."
 * appended when cut). Threads: any (no state). Failure: out of memory is fatal (FATAL), as
 * everywhere in the judges. */
#ifndef BELAY_ASSERTIONS_A1_FINDING_H
#define BELAY_ASSERTIONS_A1_FINDING_H
#include <cjson/cJSON.h>
#include <stddef.h>

#define A1_FINDING_TEXT_MAX 400 /* bytes of a form echoed back in a finding */

/* Appends the finding to the array `out`; NULL strings are JSON null. */
void a1_finding_add(cJSON *out, const char *function, const char *finding, const char *status, const char *cause,
		    const char *pre, const char *post);

/* 1 when every form of need[0..nn) is among have[0..nh) at least as often (multisets). Sorts
 * both arrays in place; the strings are borrowed. */
int a1_forms_cover(const char **have, size_t nh, const char **need, size_t nn);

#endif
