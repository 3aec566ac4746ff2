/* hook_host.h - the resident side of hook events: serves `belay hook` connections (the
 * wire in hook_client.h) with a hook_ctx that keeps snapshotters warm and runs open. The
 * console adopts connections its socket accepted; the helper listens on its own socket.
 * Each connection is served on a thread of its own, so a call held for the operator never
 * holds up the session's other events.
 *
 * Must not: print. Threads: hook_host_* from the owner; connection threads are joined by
 * hook_host_free. */
#ifndef BELAY_HOOK_HOOK_HOST_H
#define BELAY_HOOK_HOOK_HOST_H
#include <stddef.h>
#include <stdint.h>

#include "common/err.h"
#include "hook/hook_session.h"

struct hook_host;

struct hook_host *hook_host_new(const struct hook_observer *obs);
/* Serves a connection whose first line (the hello, with "hook") was already read; `rest`
 * holds the bytes read after that line. Takes fd. */
void hook_host_adopt(struct hook_host *h, int fd, size_t len, const char *rest, size_t rest_len);
/* Listens on path (a unix socket in a private directory, sockpeer.h) and adopts every
 * connection from this uid, on a thread of its own, until hook_host_free. A connection
 * from another uid (root included) is answered {"ok":false,"error":"belay: refused: ..."}
 * naming its uid, closed, and told to the observer's log. */
int hook_host_listen(struct hook_host *h, const char *path, struct err *e);
/* Connections being served now, and the monotonic time of the last one's end (ns). */
int hook_host_busy(struct hook_host *h);
uint64_t hook_host_idle_since(struct hook_host *h);
/* Stops listening, waits for the connections being served, frees h. */
void hook_host_free(struct hook_host *h);

#endif
