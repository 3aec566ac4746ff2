/* hook_client.c - routing one hook event: a resident handler, else this process. See
 * hook_client.h. */
#include "hook/hook_client.h"

#include <stdlib.h>

#include "common/paths.h"
#include "hook/hook_helper.h"


enum hook_route hook_client_handle(const struct hook_request *rq, const char *socket, int try_resident,
				   struct hook_reply *rp)
{
	unsigned timeout = rq->hold_ms + HOOK_REPLY_SLACK_MS;
	struct err e = {0};
	if (try_resident) {
		char *def = socket ? NULL : paths_console_socket();
		int r = hook_wire_send(socket ? socket : def, rq, timeout, rp, &e);
		free(def);
		if (r == 1)
			return HOOK_ROUTE_CONSOLE;
		if (r < 0) {
			hook_wire_failure(rq, e.msg, rp);
			return HOOK_ROUTE_CONSOLE;
		}
		if (!socket) {
			r = hook_helper_send(rq, timeout, rp, &e);
			if (r == 1)
				return HOOK_ROUTE_HELPER;
			if (r < 0) {
				hook_wire_failure(rq, e.msg, rp);
				return HOOK_ROUTE_HELPER;
			}
		}
	}
	struct hook_ctx *c = hook_ctx_new(0, NULL);
	hook_handle(c, rq, rp);
	hook_index(c, rq, rp);
	hook_ctx_free(c);
	return HOOK_ROUTE_LOCAL;
}
