/* hook_client.h - the `belay hook` side: the event goes to a resident handler when one is
 * listening (the console, on its socket; else the helper, started on first use), else it
 * is handled in this process. A resident handler that takes the event but gives no answer
 * (it crashed, it hung past the bound) is a failure, answered with the deny form: the event
 * is never handled twice. The wire is hook_wire.h.
 *
 * Must not: print. Threads: the caller's. */
#ifndef BELAY_HOOK_HOOK_CLIENT_H
#define BELAY_HOOK_HOOK_CLIENT_H
#include "hook/hook_session.h"

/* Where the event was handled (for tests and status). */
enum hook_route { HOOK_ROUTE_LOCAL = 0, HOOK_ROUTE_CONSOLE, HOOK_ROUTE_HELPER };

/* Handles rq: through the socket (NULL: the console's default) or the helper when
 * try_resident, else here. Never fails: rp holds the answer. Returns the route taken. */
enum hook_route hook_client_handle(const struct hook_request *rq, const char *socket, int try_resident,
				   struct hook_reply *rp);

#endif
