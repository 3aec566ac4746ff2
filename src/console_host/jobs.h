/* jobs.h - the console's background work: verifying turns (replay + invariants) and banking
 * and labelling corpus cases. One worker thread takes jobs in order; each job reports
 * through the console's cqueue (CE_JOB while it runs, CE_VERDICT (or CE_RECHECK)
 * per turn as verify finishes it, CE_VERDICTS once the verdicts are saved, CE_LABELED, CE_CORPUS
 * per case a corpus re-run judges and when a case job ends, CE_LOG on failure;
 * a jobs_call job posts what its function posts). While a verify job runs, its CE_JOB line
 * says how far it is: turns done of total, the rate and the time left.
 * The UI never waits for a job; jobs_cancel stops them (a verify within about a second, its
 * replay servers stopped and reaped, nothing saved).
 *
 * Must not: touch curses, print. Threads: jobs_* from the UI thread; the worker has its
 * own store connection. */
#ifndef BELAY_CONSOLE_HOST_JOBS_H
#define BELAY_CONSOLE_HOST_JOBS_H
#include "console_host/cevent.h"
#include "verify/policy.h"

struct jobs;

/* policy (the A1 invariants, defaults included) is borrowed and must outlive the jobs.
 * state_dir may be NULL: each run's recorded state dir (else the default) is used. */
struct jobs *jobs_start(const char *state_dir, const struct policy *policy, struct cqueue *events);
/* Verifies turns of a run: only `turn` (>= 0), or every turn from `from` on (turn < 0).
 * coverage_only: replay and compare results, no further judging (replay-from-here): a
 * partial re-check, saved and reported as its own kind (CE_RECHECK, verdict_save.recheck),
 * never as the turns' verdicts. */
void jobs_verify(struct jobs *j, const char *run, const char *trace, int turn, int from, int coverage_only);
/* Banks turn `turn` of the run as a corpus case (replaying it, unless already banked) and,
 * when label is not NULL, appends the label (with note, may be NULL; miss: a recorded miss)
 * to its history. meaning >= 0 (enum corpus_meaning): the label is what it means on the
 * banked case's expected status (corpus_label_meaning), whatever label says. */
void jobs_label(struct jobs *j, const char *run, const char *trace, int turn, const char *label, const char *note,
		int miss, int meaning);
/* The corpus of state_dir, by case id (docs/CORPUS.md); each ends with a CE_CORPUS whose
 * json says {"what": "label"|"delete"|"run"} (a CE_LOG says why when it failed).
 * Appends a label to case id's history (corpus_label_set). */
void jobs_case_label(struct jobs *j, const char *state_dir, const char *id, const char *label, const char *note,
		     int miss);
/* Deletes case id (corpus_delete). */
void jobs_case_delete(struct jobs *j, const char *state_dir, const char *id);
/* Re-runs the n cases of ids (n 0: every case) as `belay corpus run` does (corpus_run): a
 * CE_CORPUS per case judged (text = id, json = {"outcome","detail"}), the job line says how
 * many of how many; jobs_cancel stops it within a replay (the cases judged so far are
 * saved, the one running is not). */
void jobs_corpus_run(struct jobs *j, const char *state_dir, const char *const *ids, size_t n);
/* Restores the run's workspace to turn `turn`'s pre-state (recover.h), refusing over
 * changes the run does not explain; the outcome comes back as a CE_LOG. */
void jobs_recover(struct jobs *j, const char *run, const char *trace, int turn);
/* Runs fn(arg, events) on the worker thread in turn with the other jobs (`what` is the job
 * line while it runs), then free_arg(arg) (may be NULL; also called for a job dropped by
 * jobs_stop). For blocking work of the layers above host: a trial's apply or discard. */
void jobs_call(struct jobs *j, const char *what, void (*fn)(void *arg, struct cqueue *q), void *arg,
	       void (*free_arg)(void *arg));
/* Jobs queued or running. */
int jobs_pending(struct jobs *j);
/* Drops the queued jobs (a dropped verify job's run gets a CE_VERDICTS, so its turns are
 * no longer shown as being verified) and cancels the running one: a verify stops within
 * about a second (verify_opts.cancel: its replays' servers are terminated and reaped,
 * nothing is judged or saved); a banking, recover or jobs_call job finishes its current
 * step first. A CE_LOG says what was cancelled. Returns the number of jobs cancelled. */
int jobs_cancel(struct jobs *j);
/* Cancels as jobs_cancel does, waits for the running job to end, joins the thread, frees j. */
void jobs_stop(struct jobs *j);

#endif
