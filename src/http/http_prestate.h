/* http_prestate.h - the workspace pre-states of a contained local server's runs
 * (http_local.h): the stdio proxy's capture (proxy/prestate.h: the snapshot store, one
 * incremental snapshotter on the scope, a reference from the run to each pre-state so gc
 * keeps it) driven from belay-http, where every run shares one server and one workspace.
 * http_proxy captures before it forwards each tools/call (http_proxy_cfg.prestate).
 *
 * Threads: http_prestate_capture from any thread, serialised here (one capture at a time,
 * as the snapshotter requires); open and close on the caller's. */
#ifndef BELAY_HTTP_HTTP_PRESTATE_H
#define BELAY_HTTP_HTTP_PRESTATE_H
#include <cjson/cJSON.h>

#include "common/err.h"

struct http_prestate;

/* Opens the store in state_dir and a snapshotter on scope, and walks the workspace once
 * (the first call then pays only for its changes). */
int http_prestate_open(const char *state_dir, const char *scope, struct http_prestate **out, struct err *e);
/* The pre-state now, for a call of run run_id: a state_handle object, never NULL. */
cJSON *http_prestate_capture(void *ctx, const char *run_id);
void http_prestate_close(struct http_prestate *p);

#endif
