/* equiv.h - is a replayed reply the recorded one? Compared as parsed JSON with strict types
 * (numbers by value, never 1 == true; object key order ignored), after folding the original
 * and the scratch workspace paths to one placeholder in every string value (keys untouched).
 * When replies disagree, a set of further replays classifies the disagreement: clock,
 * randomness, process-dependent numbers, or unknown. Pure. */
#ifndef BELAY_VERIFY_EQUIV_H
#define BELAY_VERIFY_EQUIV_H
#include <cjson/cJSON.h>
#include <stddef.h>

/* Returns a copy of v with every occurrence of each root (longest first, whole path
 * components only) replaced by "<workspace>" in string values. roots: NULL-terminated. */
cJSON *equiv_fold(const cJSON *v, const char *const *roots);

enum equiv_outcome { EQ_EQUAL = 0, EQ_DIVERGED = 1, EQ_UNPARSEABLE = 2 };

/* Compares the "result"/"error" parts of two JSON-RPC responses (raw lines). On return the
 * folded recorded and observed values are in *rec_out / *obs_out (caller owns; may be NULL). */
enum equiv_outcome equiv_compare(const char *recorded, size_t rlen, const char *replayed, size_t plen,
				 const char *const *roots, cJSON **rec_out, cJSON **obs_out);

/* Classifies varying replies (folded canonical texts, n >= 2). Returns one of the
 * RESULT_NONDETERMINISTIC_* cause names, or NULL when the texts are all equal. */
const char *equiv_classify(const char *const *texts, size_t n);

#endif
