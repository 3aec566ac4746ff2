/* http_gate.h - enforce mode of the HTTP proxy: one-shot approvals (proxy/approvals.h) for the
 * calls the gate refuses, reachable from the listener's threads. approvals.h is loop-thread
 * only; this runs that loop on a thread of its own and hands it each question. `belay approve
 * ID` reaches it as it reaches a stdio proxy (the socket named by this process's pid).
 *
 * Threads: http_gate_decide from any thread (it waits for the loop thread's answer);
 * open and close from the owner. Must not: print. */
#ifndef BELAY_HTTP_HTTP_GATE_H
#define BELAY_HTTP_HTTP_GATE_H
#include <cjson/cJSON.h>

#include "common/err.h"

struct http_gate;

int http_gate_open(const char *state_dir, struct http_gate **out, struct err *e);
/* A call the gate refused: 1 when this exact call (tool and canonical arguments) was approved
 * once (the approval is used up; *by names who approved it), else 0 with a new approval id
 * for it in id (48 bytes). */
int http_gate_decide(struct http_gate *g, const char *tool, const cJSON *arguments, char id[48], char by[128]);
void http_gate_close(struct http_gate *g);

#endif
