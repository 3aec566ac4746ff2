/* answers.h - the client's recorded answers to the server's own requests (sampling/
 * createMessage, elicitation/create, roots/list, ping, ...), replayed to a re-executed server.
 *
 * A replayed server's request is answered from the record when the record holds an answer to
 * a request with the same method and the same params (compared as folded, canonical JSON with
 * "_meta" left out, so a progress token or a workspace path does not matter). Answers are used
 * once each, in recorded order; `answers_take` may be told to prefer the ones recorded inside
 * a window of seqs (a turn's own), which an isolated replay of that turn wants. A request the
 * record has no answer for is counted (answers_missing): the replay then does not have the
 * client the original call had. `ping` is always answered ({}), recorded or not.
 *
 * Owned by one replay (not thread-safe); built from a read-only trace and model. */
#ifndef BELAY_VERIFY_ANSWERS_H
#define BELAY_VERIFY_ANSWERS_H
#include <cjson/cJSON.h>
#include <stddef.h>
#include <stdint.h>

#include "mcp/model.h"
#include "trace/trace_reader.h"
#include "verify/equiv.h"
#include "verify/relocate.h"

struct answers;

/* Every answered server-to-client request of the model, in recorded order. rl (may be NULL)
 * relocates the recorded answers to where the replay runs; roots (NULL-terminated, may be
 * NULL) are the workspace paths folded away when params are compared. */
struct answers *answers_build(const struct trace *t, const struct model *m, const struct relocation *rl,
			      const struct fold_root *roots);
void answers_free(struct answers *a);
/* Marks every answer unused again (for another replay of the same session). */
void answers_reset(struct answers *a);
/* Prefer answers recorded with request seq in [from, to) (from < 0: no preference). */
void answers_prefer(struct answers *a, int64_t from, int64_t to);
/* The JSON-RPC response to a replayed server's request `req` (a parsed request object): the
 * recorded answer with req's id, or NULL when the record has none (counted). Caller owns. */
cJSON *answers_take(struct answers *a, const cJSON *req);
/* How many requests got no recorded answer since the last answers_reset, and the method of
 * the first (borrowed, NULL when none). */
size_t answers_missing(const struct answers *a, const char **first_method);

#endif
