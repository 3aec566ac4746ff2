/* hook_answer.h - what belay answers an agent's hook, in that agent's own form.
 *
 * belay never answers an explicit "allow": in Claude Code an explicit allow skips the
 * user's own permission rules and prompts. A call belay lets through gets no decision at
 * all (Claude Code, Codex: exit 0 and no output; Cursor, Gemini CLI: `{}`), so the agent's normal
 * permission flow still applies; belay only ever adds `ask` or `deny` (or rewrites a shell
 * command to run contained). A failure of belay itself answers with the deny form where
 * the event can be refused (a pre-tool event, or a payload whose event is unknown), and
 * names the cause and `belay doctor`.
 *
 * Must not: print (the caller writes what it returns). Threads: any. */
#ifndef BELAY_HOOK_HOOK_ANSWER_H
#define BELAY_HOOK_HOOK_ANSWER_H
#include <cjson/cJSON.h>

#include "common/buf.h"
#include "hook/hook_event.h"

enum hook_answer_kind {
	HANS_NONE = 0, /* no decision: the agent's own flow decides */
	HANS_ASK,      /* the agent's own approval prompt, with belay's reason */
	HANS_DENY,     /* refused, with belay's reason */
};

struct hook_answer {
	enum hook_answer_kind kind;
	char *reason;          /* owned, may be NULL (shown with ask/deny) */
	cJSON *updated_input;  /* owned, may be NULL: the tool's input rewritten (Claude Code, Gemini CLI) */
};

void hook_answer_set(struct hook_answer *a, enum hook_answer_kind kind, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
void hook_answer_free(struct hook_answer *a);
const char *hook_answer_kind_name(enum hook_answer_kind k);

/* The bytes for stdout and stderr and the exit status answering `event` (the agent's event
 * name; kind its hook_kind). The reason goes out escaped (common/termsafe.h, newlines kept):
 * the agent's client shows it to a person. */
void hook_answer_render(enum hook_agent agent, const char *event, enum hook_kind kind, const struct hook_answer *a,
			struct buf *out, struct buf *err, int *exit_code);

/* The answer when belay cannot handle the event at all (malformed payload, unknown event,
 * internal error): deny where the event can be refused, else a message only. `event` may be
 * NULL (unknown). */
void hook_answer_failure(enum hook_agent agent, const char *event, int pre_tool, const char *cause, struct buf *out,
			 struct buf *err, int *exit_code);

#endif
