/* trial_route.h - the effect gate's trial route (docs/TRY.md): in enforce mode, a call the
 * gate asks about whose plan is only an unknown local effect has its command tried once in
 * a mirror of the workspace before anyone decides; the trial's brief then goes with the
 * refusal the agent gets (headless proxy, agent hooks) or with the held call the console
 * shows. This module is the admission.trial callback (proxy/admission.h) and the brief's
 * text; it runs trial_run with `sh -c COMMAND`, network denied.
 *
 * Ownership: a trial_route is the caller's (trial_route_free once no session uses it).
 * Threads: trial_route_run runs on worker threads, several at once (sessions of one console):
 * the one that holds the gate's lock uses its snapshotter (kept warm across trials, so a
 * pre-state is an incremental capture), the others open their own; the rest on the caller's.
 * Must not: print. */
#ifndef BELAY_TRIAL_TRIAL_ROUTE_H
#define BELAY_TRIAL_TRIAL_ROUTE_H
#include <cjson/cJSON.h>

struct trial_route;

/* scope: the workspace; state_dir: belay's state (trials, the snapshot store); launcher: the
 * belay binary; timeout_ms: per trial (0: TRIAL_ROUTE_TIMEOUT_MS). Strings copied. */
#define TRIAL_ROUTE_TIMEOUT_MS (5u * 60u * 1000u)
struct trial_route *trial_route_new(const char *scope, const char *state_dir, const char *launcher, unsigned timeout_ms);
void trial_route_free(struct trial_route *g);
/* The shell the command runs in (default /bin/sh; an agent's Bash tool: /bin/bash). */
void trial_route_set_shell(struct trial_route *g, const char *shell);

/* The admission.trial callback: when the command ran in a mirror (whatever it did), the
 * fields of a `trial` trace record — the trial record with its "brief" added, the command
 * line as "command" (its argv as "argv"), without the record file's "v" and "kind"; else
 * {"error": "CAUSE: ..."}, nothing could be tried. Never NULL. */
cJSON *trial_route_run(void *ctx, const char *command, const char *cwd);

/* The brief of a trial record: what ran where, how it ended, what it did in the mirror (the
 * effect by kind, the first paths), the denials, the output tails (shortened), and that the
 * real workspace was not touched. Caller frees. */
char *trial_route_brief(const cJSON *record);

#endif
