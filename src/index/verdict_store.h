/* verdict_store.h - verdicts in the store: what `belay verify` judged, with every
 * sub-verdict's message, observed and expected values, kept per verification (run, when,
 * belay version, policy). Also the one JSON shape of a full verdict, shared by the store,
 * corpus cases and their export files.
 *
 * Verdicts are not derivable from a trace (they are what a replay observed at one time):
 * re-indexing never touches them. The verify library itself writes nothing; its caller
 * saves the report here.
 *
 * Must not: print. Threads: the caller's, with its own store connection. */
#ifndef BELAY_INDEX_VERDICT_STORE_H
#define BELAY_INDEX_VERDICT_STORE_H
#include <cjson/cJSON.h>
#include <stdint.h>

#include "common/err.h"
#include "verify/policy.h"
#include "verify/verdict.h"
#include "verify/verify.h"

struct store;

/* The turn numbers run-level verdicts are kept under: the trajectory (the rules about the
 * run's success claim) and the census (the tests the project's runner collects). */
#define VERDICT_TURN_TRAJECTORY (-1)
#define VERDICT_TURN_CENSUS (-2)

/* The JSON shape of a full verdict is verdict_json's (verify/verdict.h): turn, tool, status,
 * cause, and every sub-verdict with axis, kind, rule, status, cause, message, observed and
 * expected. This is its inverse (into a zeroed v; verdict_free releases it): 0, or
 * BELAY_EINVAL naming what is malformed. Unknown statuses and causes are refused. */
int verdict_from_json(const cJSON *j, struct turn_verdict *v, struct err *e);

struct verdict_save {
	const char *run; /* run id (trace file name without .jsonl) */
	const char *trace_path;
	const struct policy *policy;
	int turn_filter; /* -1: every turn was verified */
	const struct verify_report *report;
	int recheck;     /* a partial re-check (replay-from-here: result comparison only), stored as
			  * its own kind: it never becomes a turn's verdict (verdict_store_rechecks) */
};
/* Saves one verification and all its verdicts in one transaction. *id (may be NULL) gets
 * the verification's id. */
int verdict_store_save(struct store *st, const struct verdict_save *v, int64_t *id, struct err *e);
/* The same for a trace on disk, as `belay verify` and the demo keep what they printed: opens
 * the store of the state dir the trace belongs to (statedb_for_trace: state_override, else
 * the one it recorded, else the default), indexes the run first when that store has not seen
 * it, and saves the report (turn_filter as above). */
int verdict_store_save_trace(const char *state_override, const char *trace, const struct policy *pol, int turn_filter,
			     const struct verify_report *r, struct err *e);

/* The latest verdict of each turn of a run (turn >= 0: only that one; -1: all, the
 * run-level ones included as VERDICT_TURN_TRAJECTORY and VERDICT_TURN_CENSUS), as an array of verdict_full_json objects, each with
 * "verification", "at" and "belay_version" added. Only full verifications make verdicts: a
 * re-check never replaces one. Caller owns *out. */
int verdict_store_latest(struct store *st, const char *run, int turn, cJSON **out, struct err *e);
/* Same for the partial re-checks: per turn, the latest re-check saved after the turn's latest
 * verdict (an older one was superseded by that verdict). Shown beside the verdict. */
int verdict_store_rechecks(struct store *st, const char *run, int turn, cJSON **out, struct err *e);

#endif
