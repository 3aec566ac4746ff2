/* hook_session.h - one hook event, handled end to end: the payload read, the session's run
 * found (or started), the event recorded, the tool call gated, the workspace captured
 * before (and after) a mutating call, the run indexed into the store, and the agent's
 * answer made. The same code runs in a one-shot `belay hook` process and in a resident one
 * (the console, the helper), which also keeps snapshotters warm and can hold a call for the
 * operator.
 *
 * Fail closed: a payload belay cannot read, an event it does not know, a run it cannot
 * record or an internal error answers with the agent's deny form where the event can be
 * refused, naming the cause; a recorded run whose indexing fails is still answered
 * (indexing can be redone from the trace: `belay index TRACE`).
 *
 * Must not: print (the reply holds what goes to stdout and stderr). Threads: hook_handle
 * may run on several threads of one hook_ctx at once (runs are locked one writer at a time,
 * captures of one root are serialised). */
#ifndef BELAY_HOOK_HOOK_SESSION_H
#define BELAY_HOOK_HOOK_SESSION_H
#include <cjson/cJSON.h>
#include <stddef.h>
#include <stdint.h>

#include "common/buf.h"
#include "common/err.h"
#include "hook/hook_event.h"
#include "hook/hook_wire.h"

/* A resident process's ways to show runs and held calls (any may be NULL). */
struct hook_observer {
	/* A call the gate asks about, shown to the operator with its plan and, when it was tried
	 * in a mirror first, the trial's report (the `trial` record's fields; else NULL); waits
	 * at most timeout_ms. Returns the answer (enum admission_answer: 1 approved, 0 refused, 2
	 * the trial's effect was applied instead), or -1 no answer. *by (new string) names who
	 * answered. */
	int (*hold)(void *ctx, const char *run, int64_t seq, const char *tool, const cJSON *plan, const cJSON *trial,
		    unsigned timeout_ms, char **by);
	/* The run changed: 0 new, 1 more of it is in the store, 2 it ended. */
	void (*changed)(void *ctx, const char *run, const char *trace, int what);
	/* Something went wrong after the agent was answered (indexing). */
	void (*log)(void *ctx, const char *msg);
	void *ctx;
};

struct hook_ctx;
/* resident = 1 keeps snapshotters warm and runs open between events. obs may be NULL. */
struct hook_ctx *hook_ctx_new(int resident, const struct hook_observer *obs);
void hook_ctx_free(struct hook_ctx *c);

/* Handles one event; never fails: the reply always holds the agent's answer. The run is
 * recorded but not yet indexed: */
void hook_handle(struct hook_ctx *c, const struct hook_request *rq, struct hook_reply *rp);
/* then this brings the store up to date with the run the reply names and tells the
 * observer (a resident handler does it after answering, off the agent's wait). */
void hook_index(struct hook_ctx *c, const struct hook_request *rq, struct hook_reply *rp);

/* The project root of an event: the request's root, else $CLAUDE_PROJECT_DIR, else
 * Cursor's first workspace root, else the nearest directory above the event's cwd holding
 * .git, else that cwd. New string, or NULL when none is an absolute directory. */
char *hook_resolve_root(const struct hook_request *rq, const struct hook_event *ev);

#endif
