/* hook_helper.h - the resident helper: `belay __hookd`, a small process that keeps a hook
 * session's snapshotter warm (stat cache, inotify) and its run open when no console is
 * running, so a hook event costs its changes, not a walk of the workspace. One per state
 * directory, at $XDG_RUNTIME_DIR/belay/hookd-<digest of the state dir>.sock (else under
 * /tmp/belay-<uid>/). `belay hook` starts it on first use (detached, in a session of its
 * own, its stdio on /dev/null, so the agent never waits for it); it exits after it has
 * been idle for BELAY_HOOKD_IDLE_MS (default 10 minutes) or when its socket is taken over.
 *
 * Must not: print (hook_helper_main reports nothing; the helper has no terminal).
 * Threads: the caller's. */
#ifndef BELAY_HOOK_HOOK_HELPER_H
#define BELAY_HOOK_HOOK_HELPER_H
#include "hook/hook_session.h"

/* Sends rq to the helper of rq->state_dir, starting it when none listens (unless
 * BELAY_HOOKD=0). Returns as hook_client_send: 1 answered, 0 no helper (nothing sent),
 * -1 the helper took the event and failed. */
int hook_helper_send(const struct hook_request *rq, unsigned timeout_ms, struct hook_reply *rp, struct err *e);
/* `belay __hookd --state DIR --socket PATH`: serves until idle. Returns the exit status. */
int hook_helper_main(int argc, char **argv);

#endif
