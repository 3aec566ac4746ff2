/* prestate.h - the turn gate's capture, backed by the snapshot store: one incremental
 * snapshotter on the session's workspace, a warm-up walk when the session starts, and a
 * reference from the run to every pre-state it captured (so gc keeps them). */
#ifndef BELAY_ENGINE_PRESTATE_H
#define BELAY_ENGINE_PRESTATE_H
#include "common/err.h"
#include "engine/turn_gate.h"

/* Opens the store in state_dir (refusing one inside scope) and a snapshotter on scope.
 * Returns a new gate (the session takes it). */
int prestate_gate_new(const char *state_dir, const char *scope, struct turn_gate **out, struct err *e);
/* Names the run whose captures these are (the trace file name); call before the loop runs. */
void prestate_gate_set_run(struct turn_gate *g, const char *run_id);

#endif
