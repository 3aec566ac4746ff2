/* equiv.h - is a replayed reply the recorded one? Compared as parsed JSON with strict types
 * (numbers by value, never 1 == true; object key order ignored), after folding the original
 * and the scratch workspace paths to one placeholder in every string value (keys untouched).
 * When replies disagree, a set of further replays classifies the disagreement: clock,
 * randomness, process-dependent numbers, or unknown. Pure. */
#ifndef BELAY_VERIFY_EQUIV_H
#define BELAY_VERIFY_EQUIV_H
#include <cjson/cJSON.h>
#include <stddef.h>

/* A path a replay differs in from the record only because it ran elsewhere (the workspace,
 * the private temp dir) and the placeholder both spellings fold to. */
struct fold_root {
	const char *path; /* NULL ends a list */
	const char *as;   /* "<workspace>", "<tmpdir>" */
	size_t len;       /* of path (0: strlen) */
};

/* Returns a copy of v with every occurrence of each root (longest first, whole path
 * components only) replaced by its placeholder in string values. roots: ended by a NULL
 * path (entries with an empty path are skipped). */
cJSON *equiv_fold(const cJSON *v, const struct fold_root *roots);

enum equiv_outcome { EQ_EQUAL = 0, EQ_DIVERGED = 1, EQ_UNPARSEABLE = 2 };

/* Compares the "result"/"error" parts of two JSON-RPC responses (raw lines). On return the
 * folded recorded and observed values are in *rec_out / *obs_out (caller owns; may be NULL). */
enum equiv_outcome equiv_compare(const char *recorded, size_t rlen, const char *replayed, size_t plen,
				 const struct fold_root *roots, cJSON **rec_out, cJSON **obs_out);

/* Classifies varying replies (folded canonical texts, n >= 2). Returns one of the
 * RESULT_NONDETERMINISTIC_* cause names, or NULL when the texts are all equal. Per varying
 * token position: times that move forward, durations and 10+-digit increasing numbers are
 * CLOCK; UUIDs, long hex and full-precision fractions (6+ decimals: random floats) RANDOM;
 * other numbers (pids, ports, counts, short decimals) PROCESS; anything else, or positions
 * of different classes, UNKNOWN. */
const char *equiv_classify(const char *const *texts, size_t n);

/* 1 when two texts differ, and only in durations: numbers followed by a time unit (s, ms,
 * us, ns, sec, seconds...), as a test runner prints its own timing ("Ran 2 tests in
 * 0.001s"). Trailing whitespace is not compared (agents trim the output they report: Claude
 * Code drops the final newline a replay prints). Anything else that differs, or a different
 * number of tokens: 0. */
int equiv_durations_only(const char *a, const char *b);

/* A copy of s without its trailing whitespace (NULL reads as ""); the caller frees it. */
char *equiv_rtrim(const char *s);

/* Compares a recorded result with n >= 2 replays of the same call (all folded as by
 * equiv_compare). Where the replays vary among themselves at one position - a token of a
 * string, or a number - and the record and every replay hold a clock reading there (a date
 * and time, a time of day, an epoch number) or every one a random identifier (a UUID, a long
 * hex string), the position is masked; everywhere else the record must equal the replays
 * exactly (same structure, same keys, same values), and at least as many compared tokens as
 * masked ones must remain (a result that is nothing but a clock reading or an id is not
 * "the rest reproduced"). Returns 1 when the record reproduces with at least one position
 * masked, and *masked (caller owns) lists them as
 * [{"path": JSON pointer, "token": index or -1 for a whole number, "class": "clock"|"random"}];
 * 0 otherwise (*masked NULL). */
int equiv_masked_equal(const cJSON *recorded, const cJSON *const *replays, size_t n, cJSON **masked);

#endif
