/* prestate.h - the admission step's capture, backed by the snapshot store: one incremental
 * snapshotter on the session's workspace, a warm-up walk when the session starts, a
 * reference from the run to every pre-state it captured (so gc keeps them), and the checks
 * that someone else writes in the workspace: an advisory lock on the workspace directory
 * (flock, shared by every belay recording it) and the changes between two captures that the
 * sandbox saw no contained process make (witness.h). */
#ifndef BELAY_PROXY_PRESTATE_H
#define BELAY_PROXY_PRESTATE_H
#include "common/err.h"
#include "proxy/admission.h"

/* Opens the store in state_dir (refusing one inside scope) and a snapshotter on scope.
 * Returns a new gate (the session takes it). */
int prestate_gate_new(const char *state_dir, const char *scope, struct admission **out, struct err *e);
/* Names the run whose captures these are (the trace file name); call before the loop runs. */
void prestate_gate_set_run(struct admission *g, const char *run_id);
/* What the contained processes were let write (the session's witness, borrowed): each capture
 * then names in its state_handle the changes nobody contained made ("outside_changes"). Call
 * before the loop runs; without it no such check is made. */
struct witness;
void prestate_gate_set_witness(struct admission *g, struct witness *w);
/* 1 when another belay holds this workspace's lock too (two recorders on one workspace). Each
 * capture records it in its state_handle ("workspace_shared"). */
int prestate_gate_shared(struct admission *g);

#endif
