/* trialact.h - a trial's apply or discard as the console runs it: a job of the console's
 * worker thread (jobs_call), whose outcome is posted as one CE_TRIAL event (a = 0 done, 1
 * refused with the conflicts or the reason named, 2 failed).
 *
 * Must not: touch curses. Threads: trialact_new on the UI thread; trialact_run on the jobs
 * thread (it blocks: the conflict check and the apply walk the trial's effect). */
#ifndef BELAY_TUI_TRIALACT_H
#define BELAY_TUI_TRIALACT_H
#include "console_host/cevent.h"

struct trialact;

/* apply 1: trial_apply (with launcher, the belay binary); 0: trial_discard. */
struct trialact *trialact_new(const char *state_dir, const char *id, const char *launcher, int apply);
/* jobs_call's fn and free_arg. */
void trialact_run(void *arg, struct cqueue *q);
void trialact_free(void *arg);

#endif
