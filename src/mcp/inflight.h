/* inflight.h - the client's requests that still wait for an answer, so that belay can answer
 * them itself when the server no longer can (it ended, or recording failed; see
 * session_reply_error in session.h).
 *
 * Fed every frame of a session as it is recorded: a client-to-server request is added, and
 * retired by the response that answers it (the server's or belay's own, by typed id: 1 and
 * "1" differ) or by the client's notifications/cancelled. Batches count element by element.
 * Ids that cannot be answered by id (absent, null, booleans, containers) are not kept, nor
 * requests in a frame longer than the recording cap (its copy is cut). Requests the server
 * sends the client are not kept: the client answers those.
 *
 * Frames are read with rpc_peek (no parse tree) and parsed only when it is unsure.
 * Loop thread only; the owner embeds the struct. */
#ifndef BELAY_MCP_INFLIGHT_H
#define BELAY_MCP_INFLIGHT_H
#include <stddef.h>

#include "common/strmap.h"

struct inflight {
	struct strmap by_id; /* rpc_id key -> slot */
	char **ids;          /* slot -> the id's JSON text as the client sent it (NULL: free) */
	size_t nslots, capslots;
	size_t *free_slots;
	size_t nfree, capfree;
	uint64_t arrivals;
};

void inflight_init(struct inflight *f);
void inflight_free(struct inflight *f);
/* One frame (dir: DIR_C2S or DIR_S2C from model.h) as recorded: data[0..len), truncated
 * when the copy was cut at the cap. */
void inflight_frame(struct inflight *f, int dir, const char *data, size_t len, int truncated);
size_t inflight_count(const struct inflight *f);
/* Calls fn with the JSON text of each waiting request's id, oldest first, and forgets them
 * all (fn may feed frames to f; those are seen after the drain). */
void inflight_drain(struct inflight *f, void (*fn)(void *ctx, const char *id_json), void *ctx);

#endif
