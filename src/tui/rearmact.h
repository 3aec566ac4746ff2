/* rearmact.h - a person's rearm after a protected-file alert (docs/HOOKS.md), as the console
 * runs it: a job of the console's worker thread (jobs_call) that lifts the trip of the
 * focused run's project and records belay's protected files as they are now, the same
 * operation as `belay hook rearm --project SCOPE` (hook_tamper_rearm_project). Its outcome
 * is posted as one CE_LOG line (level 0 done, 2 failed).
 *
 * Must not: touch curses. Threads: rearmact_new on the UI thread; rearmact_run on the jobs
 * thread (it reads and hashes the protected files). */
#ifndef BELAY_TUI_REARMACT_H
#define BELAY_TUI_REARMACT_H
#include "console_host/cevent.h"

struct rearmact;

/* scope: the run's project root (absolute); state_dir: the hook sessions' state directory;
 * home: $HOME (for hook programs installed there; may be NULL). Strings copied. */
struct rearmact *rearmact_new(const char *scope, const char *state_dir, const char *home);
/* jobs_call's fn and free_arg. */
void rearmact_run(void *arg, struct cqueue *q);
void rearmact_free(void *arg);

#endif
