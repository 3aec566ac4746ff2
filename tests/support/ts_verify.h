/* ts_verify.h - running `belay verify --json` from a test and reading its verdicts, and
 * forging a recorded frame the way a hand edit would (bytes, length and hash rewritten so
 * the trace still reads): what test_verify and the real-server suite share. */
#ifndef BELAY_TESTS_TS_VERIFY_H
#define BELAY_TESTS_TS_VERIFY_H
#include <cjson/cJSON.h>

/* `belay verify TRACE --json EXTRA...` run in cwd (may be NULL): an array of its JSON lines
 * (the turns, then the summary). *status (may be NULL) gets the exit status. */
cJSON *ts_verify_json(const char *trace, const char *const *extra, const char *cwd, int *status);
/* Turn k of that array, or NULL. */
const cJSON *ts_turn(const cJSON *arr, int k);
/* The status of the nth sub-verdict of (axis, kind) of a turn, or NULL. */
const char *ts_sub_status(const cJSON *t, const char *axis, const char *kind, int nth);
/* The nth sub-verdict itself, or NULL. */
const cJSON *ts_sub(const cJSON *t, const char *axis, const char *kind, int nth);
/* Replaces `from` by `to` in the nth (0-based) recorded server-to-client frame that holds it,
 * re-encoding raw, len and hash_raw. Asserts that such a frame exists. */
void ts_edit_reply(const char *trace, int nth, const char *from, const char *to);

#endif
