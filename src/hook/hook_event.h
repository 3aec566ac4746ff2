/* hook_event.h - what an agent's hook process receives on stdin, read into one shape for
 * the four agents (Claude Code, Cursor, Codex, Gemini CLI). The payload is kept whole (the trace
 * records its bytes); this module only names the parts belay acts on. Formats move between
 * agent versions: unknown fields are ignored, optional ones are never required, and every
 * event name the agents document is known (an unknown one is a named error).
 *
 * Must not: print, touch files. Threads: any; a hook_event belongs to its caller. */
#ifndef BELAY_HOOK_HOOK_EVENT_H
#define BELAY_HOOK_HOOK_EVENT_H
#include <cjson/cJSON.h>
#include <stddef.h>

#include "common/err.h"

enum hook_agent { HA_CLAUDE_CODE = 0, HA_CURSOR, HA_CODEX, HA_GEMINI, HA__COUNT };

/* What happened, across agents. */
enum hook_kind {
	HK_SESSION_START,
	HK_SESSION_END,
	HK_PROMPT,            /* the user submitted a prompt */
	HK_PRE_TOOL,          /* a tool is about to run (the gate answers this one) */
	HK_POST_TOOL,         /* it ran */
	HK_POST_TOOL_FAILURE, /* it ran and failed (Claude Code's PostToolUseFailure) */
	HK_POST_ONLY,         /* a tool that ran with no pre event (Cursor's afterFileEdit) */
	HK_SUBAGENT_START,
	HK_SUBAGENT_STOP,
	HK_STOP,              /* the agent finished its turn (its final message is the claim) */
	HK_NOTICE,            /* recorded only: notifications, compaction, permission requests */
};

/* How the gate treats a tool. */
enum hook_tool_class {
	HT_NONE = 0,  /* not a tool event */
	HT_SHELL,     /* a shell command line (Bash, Shell, shell, exec_command, ...) */
	HT_EDIT,      /* writes files (Write, Edit, MultiEdit, NotebookEdit, apply_patch, ...) */
	HT_READ,      /* reads only (Read, Grep, Glob, LS, ...) */
	HT_MCP,       /* an MCP tool the agent calls itself (mcp__server__tool) */
	HT_SUBAGENT,  /* Task / Agent */
	HT_OTHER,     /* anything else (web tools, todo lists, ...) */
};

struct hook_event {
	enum hook_agent agent;
	enum hook_kind kind;
	cJSON *payload;          /* owned: the parsed payload */
	cJSON *synth;            /* owned, may be NULL: a tool_input built for agents whose events
				  * carry the call flat (Cursor's beforeShellExecution) */
	/* borrowed from payload (or synth); NULL when absent */
	const char *event;       /* the agent's own event name */
	const char *session;     /* session_id / conversation_id */
	const char *cwd, *transcript;
	const char *tool;        /* the tool's name as the agent spells it */
	const cJSON *input;      /* the tool's arguments */
	const char *tool_use_id;
	const cJSON *response;   /* the tool's response (post events) */
	const char *error;       /* a failure's text (PostToolUseFailure's "error") */
	const char *last_message; /* the agent's final message (Stop's last_assistant_message,
				   * Gemini CLI's AfterAgent prompt_response) */
	const cJSON *roots;      /* Cursor's workspace_roots */
	enum hook_tool_class cls;
	const char *command;     /* shell tools: the command line */
	int stop_active;         /* Stop: stop_hook_active */
};

const char *hook_agent_name(enum hook_agent a);
/* "claude-code", "cursor", "codex", "gemini-cli" -> 0, else -1. */
int hook_agent_parse(const char *name, enum hook_agent *out);
const char *hook_kind_name(enum hook_kind k);
const char *hook_tool_class_name(enum hook_tool_class c);

/* Parses one payload. On error (not JSON, not an object, no event name, an event this
 * agent does not send, a tool event naming no tool) returns BELAY_EINVAL with a message
 * naming the cause; only ev->payload (the JSON, when it parsed), ev->event and ev->session
 * may then be used. Free with hook_event_free in every case. */
int hook_event_parse(enum hook_agent agent, const char *data, size_t len, struct hook_event *ev, struct err *e);
void hook_event_free(struct hook_event *ev);

/* The class of a tool name (as the agent spells it). */
enum hook_tool_class hook_tool_classify(enum hook_agent agent, const char *tool);

/* The files an apply_patch body touches ("*** Add File: p", "*** Update File: p",
 * "*** Delete File: p", "*** Move to: p"), each as a new string into *paths (NULL-
 * terminated array, caller frees each and the array); *deletes says whether any is a
 * delete. Returns the count. */
size_t hook_patch_targets(const char *patch, char ***paths, int *deletes);

#endif
