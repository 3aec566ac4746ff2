/* hook_trials.h - the trial gates of a resident hook process (the console, the helper): one
 * per workspace root and state directory, kept for the process's life, so that the trials of
 * a session's shell commands (docs/TRY.md) share a warm snapshotter and pay a first capture
 * once, as the MCP proxy's do. A one-shot `belay hook` makes a gate per trial instead.
 *
 * Ownership: the gates are the cache's (freed with it); hook_trials_get's result stays valid
 * until hook_trials_free. Threads: any (a mutex guards the list; trial_route_run is safe to
 * call from several threads at once). Must not: print. */
#ifndef BELAY_HOOK_HOOK_TRIALS_H
#define BELAY_HOOK_HOOK_TRIALS_H

struct hook_trials;
struct trial_route;

/* timeout_ms and shell apply to every gate made (bash and the hook's trial bound). */
struct hook_trials *hook_trials_new(unsigned timeout_ms, const char *shell);
/* The gate of (root, state_dir), made on first use with launcher (borrowed result). */
struct trial_route *hook_trials_get(struct hook_trials *t, const char *root, const char *state_dir, const char *launcher);
void hook_trials_free(struct hook_trials *t);

#endif
