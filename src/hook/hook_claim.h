/* hook_claim.h - what the agent's transcript and its Stop event say: the final message of a
 * turn, as a `claim` record (what suite-before-success-claim judges; from the Stop event's
 * last_assistant_message, else from the transcript the event names), the tool calls the
 * transcript holds results for; and `belay claim TRACE TEXT` for any trace.
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

/* Which of the tool calls `ids` (NULL-terminated tool_use_ids) already have their result in
 * the transcript (a tool_result entry): found[i] = 1 for those. A call refused in the agent's
 * own permission prompt gets no post event, only this. */
void hook_transcript_results(const char *path, const char *const *ids, int *found);

/* The fields of a claim record: {"text", "source"}. */
cJSON *hook_claim_fields(const char *text, const char *source);

/* `belay claim`: appends a claim record to the trace at path with the next seq. A hook run
 * is appended under its lock; any other trace must have ended (its connection_window
 * close), so that no writer is appending meanwhile: else BELAY_EREFUSED. */
int hook_claim_append(const char *path, const char *text, struct err *e);

#endif
