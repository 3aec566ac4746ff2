/* hook_answer.c - answers in each agent's form. See hook_answer.h. */
#include "hook/hook_answer.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "common/jsonx.h"
#include "common/termsafe.h"
#include "common/xalloc.h"

void hook_answer_set(struct hook_answer *a, enum hook_answer_kind kind, const char *fmt, ...)
{
	a->kind = kind;
	free(a->reason);
	va_list ap;
	va_start(ap, fmt);
	a->reason = xvasprintf(fmt, ap);
	va_end(ap);
}

void hook_answer_free(struct hook_answer *a)
{
	free(a->reason);
	cJSON_Delete(a->updated_input);
	memset(a, 0, sizeof *a);
}

const char *hook_answer_kind_name(enum hook_answer_kind k)
{
	return k == HANS_ASK ? "ask" : k == HANS_DENY ? "deny" : "none";
}

static void put_json(struct buf *out, cJSON *o)
{
	jx_print_buf(o, out);
	buf_putc(out, '\n');
	cJSON_Delete(o);
}

/* Claude Code and Codex: hookSpecificOutput on a pre-tool event. Codex (0.171) takes only
 * "deny": an "ask" (or an updatedInput) is a failed hook there, and a failed hook lets the
 * command run, so what belay asks about is refused on Codex, saying so. */
static void claude_pre(enum hook_agent agent, const char *event, const struct hook_answer *a, struct buf *out)
{
	if (a->kind == HANS_NONE && !a->updated_input)
		return; /* no decision: exit 0, nothing on stdout */
	cJSON *o = cJSON_CreateObject();
	cJSON *h = cJSON_AddObjectToObject(o, "hookSpecificOutput");
	cJSON_AddStringToObject(h, "hookEventName", event ? event : "PreToolUse");
	if (a->kind != HANS_NONE && agent == HA_CODEX && a->reason && strstr(a->reason, "asks before this runs")) {
		char *why = xasprintf("%s (Codex cannot ask, so belay refuses: approve it in belay's console, or run it "
				      "yourself)",
				      a->reason);
		cJSON_AddStringToObject(h, "permissionDecision", "deny");
		cJSON_AddStringToObject(h, "permissionDecisionReason", why);
		free(why);
	} else if (a->kind == HANS_ASK && agent == HA_CODEX) {
		cJSON_AddStringToObject(h, "permissionDecision", "deny"); /* never an ask Codex would run through */
		cJSON_AddStringToObject(h, "permissionDecisionReason", a->reason ? a->reason : "belay");
	} else if (a->kind != HANS_NONE) {
		cJSON_AddStringToObject(h, "permissionDecision", hook_answer_kind_name(a->kind));
		cJSON_AddStringToObject(h, "permissionDecisionReason", a->reason ? a->reason : "belay");
	}
	if (a->updated_input && a->kind != HANS_DENY && agent != HA_CODEX)
		cJSON_AddItemToObject(h, "updatedInput", cJSON_Duplicate(a->updated_input, 1));
	put_json(out, o);
}

static int cursor_gates(const char *event, enum hook_kind kind)
{
	return kind == HK_PRE_TOOL || (event && !strcmp(event, "subagentStart"));
}

static void cursor_answer(const char *event, enum hook_kind kind, const struct hook_answer *a, struct buf *out)
{
	cJSON *o = cJSON_CreateObject();
	if (kind == HK_PROMPT) {
		cJSON_AddBoolToObject(o, "continue", a->kind != HANS_DENY);
		if (a->kind == HANS_DENY && a->reason)
			cJSON_AddStringToObject(o, "user_message", a->reason);
	} else if (cursor_gates(event, kind) && a->kind != HANS_NONE) {
		cJSON_AddStringToObject(o, "permission", hook_answer_kind_name(a->kind));
		cJSON_AddStringToObject(o, "user_message", a->reason ? a->reason : "belay");
		cJSON_AddStringToObject(o, "agent_message", a->reason ? a->reason : "belay");
	}
	put_json(out, o);
}

/* Gemini CLI 0.61: always one JSON object on stdout (with nothing there it reads stderr,
 * and text on stderr with exit 0 is an explicit "allow"). BeforeTool takes "deny" and
 * "ask" (which belay does not send: headless, Gemini waits forever for an answer; the
 * session turns an ask into a deny) and hookSpecificOutput.tool_input, which is merged
 * over the call's arguments; BeforeAgent takes "deny". AfterTool's deny would hide the
 * output from the model and AfterAgent's would make it retry: belay answers neither. */
static void gemini_answer(enum hook_kind kind, const struct hook_answer *a, struct buf *out, struct buf *err)
{
	cJSON *o = cJSON_CreateObject();
	if ((kind == HK_PRE_TOOL || kind == HK_PROMPT) && a->kind != HANS_NONE) {
		cJSON_AddStringToObject(o, "decision", kind == HK_PRE_TOOL ? hook_answer_kind_name(a->kind) : "deny");
		cJSON_AddStringToObject(o, "reason", a->reason ? a->reason : "belay");
	} else if (a->kind != HANS_NONE && a->reason) {
		buf_printf(err, "%s\n", a->reason); /* nothing to refuse after the fact: for the log */
	}
	if (kind == HK_PRE_TOOL && a->updated_input && a->kind != HANS_DENY) {
		cJSON *h = cJSON_AddObjectToObject(o, "hookSpecificOutput");
		cJSON_AddItemToObject(h, "tool_input", cJSON_Duplicate(a->updated_input, 1));
	}
	put_json(out, o);
}

static void answer_render(enum hook_agent agent, const char *event, enum hook_kind kind, const struct hook_answer *a,
			  struct buf *out, struct buf *err, int *exit_code)
{
	*exit_code = 0;
	if (agent == HA_CURSOR) {
		cursor_answer(event, kind, a, out);
		return;
	}
	if (agent == HA_GEMINI) {
		gemini_answer(kind, a, out, err);
		return;
	}
	if (kind == HK_PRE_TOOL) {
		claude_pre(agent, event, a, out);
	} else if (kind == HK_PROMPT && a->kind == HANS_DENY) {
		cJSON *o = cJSON_CreateObject();
		cJSON_AddStringToObject(o, "decision", "block");
		cJSON_AddStringToObject(o, "reason", a->reason ? a->reason : "belay");
		put_json(out, o);
	} else if (a->kind != HANS_NONE && a->reason) {
		/* nothing to refuse after the fact: the message is for the log */
		buf_printf(err, "%s\n", a->reason);
	}
}

void hook_answer_render(enum hook_agent agent, const char *event, enum hook_kind kind, const struct hook_answer *given,
			struct buf *out, struct buf *err, int *exit_code)
{
	/* The reason is shown to a person by the agent's client (a permission prompt, a
	 * refusal): the command's words, file names and output it quotes are escaped
	 * (common/termsafe.h), newlines kept. */
	struct hook_answer safe = *given;
	char *reason = given->reason ? termsafe_dup(given->reason, TERMSAFE_LINES) : NULL;
	safe.reason = reason;
	answer_render(agent, event, kind, &safe, out, err, exit_code);
	free(reason);
}

void hook_answer_failure(enum hook_agent agent, const char *event, int pre_tool, const char *cause, struct buf *out,
			 struct buf *err, int *exit_code)
{
	char *msg = xasprintf("belay could not handle this hook event (%s); the call is refused. Run `belay doctor`.",
			      cause);
	*exit_code = 0;
	if (agent == HA_CURSOR) {
		cJSON *o = cJSON_CreateObject();
		if (pre_tool || !event) {
			cJSON_AddStringToObject(o, "permission", "deny");
			cJSON_AddStringToObject(o, "user_message", msg);
			cJSON_AddStringToObject(o, "agent_message", msg);
		}
		put_json(out, o);
		buf_printf(err, "%s\n", msg);
	} else if (agent == HA_GEMINI) {
		/* a pre-tool event is denied; an unknown event gets the blocking exit, its reason
		 * on stderr (Gemini reads stderr when stdout is empty); otherwise `{}` */
		if (pre_tool) {
			struct hook_answer a = {.kind = HANS_DENY, .reason = msg};
			gemini_answer(HK_PRE_TOOL, &a, out, err);
		} else if (!event) {
			*exit_code = 2;
		} else {
			buf_puts(out, "{}\n");
		}
		buf_printf(err, "%s\n", msg);
	} else if (pre_tool) {
		struct hook_answer a = {.kind = HANS_DENY, .reason = msg};
		claude_pre(agent, event, &a, out);
	} else if (!event) {
		/* which event this was is unknown: the blocking exit refuses whatever can be refused */
		buf_printf(err, "%s\n", msg);
		*exit_code = 2;
	} else {
		buf_printf(err, "%s\n", msg);
	}
	free(msg);
}
