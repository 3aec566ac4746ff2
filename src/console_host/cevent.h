/* cevent.h - what flows one way from the console's engine side (host loop, store writers,
 * followers, background jobs) to its UI thread, and the queue that carries it.
 *
 * Events own their payload (copied by the sender, freed by cevent_free). The queue never
 * blocks a producer beyond a mutex held for a pointer swap: the proxy never waits on the
 * UI. Consecutive "committed" events for the same run are coalesced, so a UI that is not
 * reading (a paused terminal) holds at most one per run plus the rarer kinds. And they are
 * paced: a commit wakes the consumer at once unless it took one less than
 * CQUEUE_COMMIT_PACE_MS ago, then when that time is up (it is never lost, and any other
 * event still wakes at once and takes it along). While a run streams, the UI refreshes
 * from the store at most that often instead of on every batch the store writer commits
 * (a refresh and redraw costs CPU the agent and its server share: docs/CONSOLE.md, "Cost").
 *
 * Threads: cqueue_post from any thread; cqueue_take and cqueue_fd from the consumer. */
#ifndef BELAY_CONSOLE_HOST_CEVENT_H
#define BELAY_CONSOLE_HOST_CEVENT_H
#include <cjson/cJSON.h>
#include <stddef.h>
#include <stdint.h>

enum cevent_kind {
	CE_RUN_STARTED,   /* run, trace: a connection became a run */
	CE_RUN_COMMITTED, /* run: the store holds more of it */
	CE_RUN_ENDED,     /* run, a = exit code */
	CE_HOLD,          /* run, a = hold id, b = request seq, text = tool, json = {"plan": effect plan,
			   * "trial": the report of the trial the call had first (absent when none)} */
	CE_HOLD_DONE,     /* run, a = hold id, b = the answer (enum admission_answer: 0 refused, 1
			   * approved, 2 the trial's effect applied instead) / CE_HOLD_GONE (run
			   * ended or hold over) / CE_HOLD_NO_TRIAL nothing was tried for it */
	CE_VERDICT,       /* run, a = turn, json = provisional verdict (verdict_json shape) */
	CE_RECHECK,       /* run, a = turn, json = provisional partial re-check (verdict_json shape):
			   * shown beside the turn's verdict, never in its place */
	CE_VERDICTS,      /* run: verdicts were saved to the store; reload them */
	CE_LABELED,       /* run, a = turn, text = case id, json = {"label","note"} */
	CE_JOB,           /* text = what a background job is doing now ("" when idle) */
	CE_LOG,           /* a = level (0 info, 1 warning, 2 error), text */
	CE_RUN_ALERT,     /* run, text = what happened (lines), json = {"reason": NAME}: the run can no
			   * longer serve its agent (runner.h: the server ended or never started, or
			   * recording failed); belay answers the agent's requests itself */
	CE_TRIAL,         /* a = 0 done, 1 refused, 2 failed; text = what happened (one line); json =
			   * {"trial": ID, "action": "apply"|"discard", "before": handle, "undo": command}
			   * (the last two when an apply was done): a trial's apply or discard ended */
	CE_CORPUS,        /* the corpus changed: text = case id, json = {"outcome","detail"} as a
			   * re-run judges one case; text NULL, json = {"what": ...} when a label,
			   * delete or re-run job ended (the cases and score are read again) */
	CE_KINDS          /* the count (tables indexed by kind are checked against it) */
};

/* CE_HOLD_DONE's b when the call was not answered (an answer is 0 or more). */
enum {
	CE_HOLD_GONE = -1,     /* nothing with that id is held (its run ended or its time ran out) */
	CE_HOLD_NO_TRIAL = -2, /* "apply the trial's effect" for a call that had no trial: still held */
};

struct cevent {
	enum cevent_kind kind;
	char *run;   /* owned, may be NULL */
	char *trace; /* owned, may be NULL */
	int64_t a, b;
	char *text;  /* owned, may be NULL */
	cJSON *json; /* owned, may be NULL */
	struct cevent *next;
};

struct cevent *cevent_new(enum cevent_kind kind, const char *run);
void cevent_free(struct cevent *ev);
/* A CE_HOLD (plan and trial copied; either may be NULL). */
struct cevent *cevent_hold(const char *run, uint64_t hold, int64_t seq, const char *tool, const cJSON *plan,
			   const cJSON *trial);
/* Convenience: a CE_LOG with printf text. */
struct cevent *cevent_log(int level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#define CQUEUE_COMMIT_PACE_MS 200

struct cqueue;
struct cqueue *cqueue_new(void);
void cqueue_free(struct cqueue *q); /* frees queued events */
/* Takes ev. Wakes the consumer. */
void cqueue_post(struct cqueue *q, struct cevent *ev);
/* Everything queued, oldest first (a list through ->next; NULL when empty). */
struct cevent *cqueue_take(struct cqueue *q);
/* Becomes readable when events are waiting; cqueue_take clears it. */
int cqueue_fd(const struct cqueue *q);

#endif
