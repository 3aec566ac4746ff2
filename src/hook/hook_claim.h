/* hook_claim.h - the agent's final message of a turn, as a `claim` record (what
 * suite-before-success-claim judges): from the Stop event's last_assistant_message, else
 * from the transcript the event names; and `belay claim TRACE TEXT` for any trace.
 *
 * Must not: print. Threads: any. */
#ifndef BELAY_HOOK_HOOK_CLAIM_H
#define BELAY_HOOK_HOOK_CLAIM_H
#include <cjson/cJSON.h>

#include "common/err.h"

/* The text of the last `assistant` entry of a transcript (JSONL: {"type":"assistant",
 * "message":{"role":"assistant","content":[{"type":"text","text":...}, ...]}}), its text
 * blocks joined by newlines. New string, or NULL (no such entry, unreadable file). Reads at
 * most the last 8 MiB. */
char *hook_claim_from_transcript(const char *path);

/* The fields of a claim record: {"text", "source"}. */
cJSON *hook_claim_fields(const char *text, const char *source);

/* `belay claim`: appends a claim record to the trace at path with the next seq. A hook run
 * is appended under its lock; any other trace must have ended (its connection_window
 * close), so that no writer is appending meanwhile: else BELAY_EREFUSED. */
int hook_claim_append(const char *path, const char *text, struct err *e);

#endif
