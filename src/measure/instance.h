/* instance.h - one trace's ledger line from its verify_report (docs/MEASURE.md, "Ledger").
 *
 * Disposition: any FAIL turn or a trajectory FAIL -> VERIFIED_FLAGGED; else any PASS/WARN
 * turn -> VERIFIED_CLEAN; else NO_VERIFIABLE (zero turns included). Except: a turn whose
 * pre-state is not in the store it was verified against (PRESTATE_NOT_FOUND) makes the
 * trace ERRORED with that cause, since the missing objects are the measurement's fault, not
 * the agent's: counting the trace as NO_VERIFIABLE would quietly shrink the denominator.
 * Pure; no printing. */
#ifndef BELAY_MEASURE_INSTANCE_H
#define BELAY_MEASURE_INSTANCE_H
#include <cjson/cJSON.h>

#include "verify/policy.h"
#include "verify/verify.h"

/* A new {"kind":"instance",...} object. */
cJSON *instance_from_report(const char *trace_id, const char *sha, const struct verify_report *r,
			    const struct policy *p);
/* An ERRORED instance: cause is a name (TRACE_UNREADABLE, BUNDLE_INVALID, ...), msg the message. */
cJSON *instance_errored(const char *trace_id, const char *sha, const char *cause, const char *msg);

#endif
