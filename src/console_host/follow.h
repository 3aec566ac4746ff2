/* follow.h - `belay console --follow DIR`: watches a directory where headless `belay proxy`
 * processes write traces, and indexes each trace into the console's store as it grows
 * (complete lines only), so new runs appear and their turns stream in. Posts
 * CE_RUN_STARTED for a new trace, CE_RUN_COMMITTED as lines are indexed and CE_RUN_ENDED
 * when a trace closes (its connection_window close record).
 *
 * Must not: write to a trace, print. Threads: its own; follow_* from the owner. */
#ifndef BELAY_CONSOLE_HOST_FOLLOW_H
#define BELAY_CONSOLE_HOST_FOLLOW_H
#include "common/err.h"
#include "console_host/cevent.h"

struct follow;

/* Starts following dir (which must exist), indexing into the store of state_dir. */
int follow_start(const char *dir, const char *state_dir, struct cqueue *events, struct follow **out, struct err *e);
/* Indexes what the traces hold by now (one last pass), then stops. */
void follow_stop(struct follow *f);

#endif
