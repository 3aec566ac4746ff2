/* runv.h - the run-level verdicts (cmodel's cm_run.runv: the rules about the run's success
 * claim, kept as the trajectory, and the census of the tests the project's runner collects)
 * as the console says them: one short phrase each for the home screen's run line, and every
 * sub-verdict in full for a turn's detail ("the run" below the turn's own verdict).
 *
 * Owns nothing; pure over its arguments. Threads: the UI thread's. */
#ifndef BELAY_TUI_RUNV_H
#define BELAY_TUI_RUNV_H
#include <cjson/cJSON.h>
#include <stddef.h>

#include "tui/cmodel.h"
#include "tui/tdoc.h"

struct runv_item {
	const char *what; /* "claim" (the trajectory) or "census" */
	enum cm_v v;
	char text[200];   /* "✗ FAIL TESTS_DROPPED 2 dropped, 1 skipped (41 → 38 collected)" */
};

/* Up to max phrases, the claim first; returns how many. */
size_t runv_items(const cJSON *runv, struct runv_item *out, size_t max);
/* "the run" and a line per sub-verdict (axis, rule, status, cause, message) into h. Nothing
 * when runv is NULL or empty. */
void runv_detail(struct tdoc *h, const cJSON *runv);

#endif
