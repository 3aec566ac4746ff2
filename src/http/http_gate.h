/* http_gate.h - enforce mode of the HTTP proxy: one-shot approvals (proxy/approvals.h) for the
 * calls the gate refuses, reachable from the listener's threads, and the hold: a refused call
 * waits (its HTTP request unanswered) while a person decides, up to a bound. approvals.h is
 * loop-thread only; this runs that loop on a thread of its own and hands it each question.
 * `belay approve ID` reaches it as it reaches a stdio proxy (the socket named by this
 * process's pid); a held call it approves goes through at once.
 *
 * Threads: http_gate_decide from any thread (it waits for the loop thread's answer, and for
 * the hold); http_gate_answer from any thread; http_gate_release from the owner, any time (a held call is refused at once);
 * open and close from the owner. Must not: print. */
#ifndef BELAY_HTTP_HTTP_GATE_H
#define BELAY_HTTP_HTTP_GATE_H
#include <cjson/cJSON.h>

#include "common/err.h"

struct http_gate;

enum http_gate_answer {
	HTTP_GATE_REFUSED = 0,  /* not approved, nothing held (hold_ms 0, or the gate released) */
	HTTP_GATE_APPROVED = 1, /* approved once before, or while it was held */
	HTTP_GATE_EXPIRED = 2,  /* held hold_ms and nobody approved it */
	HTTP_GATE_GONE = 3,     /* its client hung up while it was held */
	HTTP_GATE_DENIED = 4,   /* a person refused it while it was held (http_gate_answer) */
};

int http_gate_open(const char *state_dir, struct http_gate **out, struct err *e);
/* A call the gate refused. Approved (the approval is used up; by names who approved it) when
 * this exact call (tool and canonical arguments) was approved once (an approval given while no
 * call with its id was held); else it gets a new
 * approval id (id, 48 bytes) and, with hold_ms > 0, is held: held(ctx, id) is called (on the
 * caller's thread, before the wait: record it, tell the person) and the call waits until
 * `belay approve ID` approves it (APPROVED: that id, not another call's), a person refuses it
 * (DENIED, http_gate_answer), hold_ms pass (EXPIRED) or gone(ctx), asked
 * every few hundred milliseconds on the caller's thread while it waits (may be NULL), says
 * its client hung up (GONE). */
enum http_gate_answer http_gate_decide(struct http_gate *g, const char *tool, const cJSON *arguments, unsigned hold_ms,
				       void (*held)(void *ctx, const char *id), int (*gone)(void *ctx), void *ctx,
				       char id[48], char by[128]);
/* A person's answer to the call held for approval id `id` (any thread; by: who, for the
 * record): approve lets that call go on (as `belay approve ID` does: of two identical calls
 * held at once, only the one with that id), refuse answers it DENIED at once. Applied on the
 * loop thread; an id nothing holds is approved for the next identical call (approve) or
 * ignored (refuse). */
void http_gate_answer(struct http_gate *g, const char *id, int approve, const char *by);
/* Ends every hold (those calls REFUSED) and holds nothing more: the proxy is stopping. */
void http_gate_release(struct http_gate *g);
void http_gate_close(struct http_gate *g);

#endif
