/* hook_event.c - the four agents' hook payloads read into one shape. See hook_event.h. */
#include "hook/hook_event.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/buf.h"
#include "common/jsonx.h"
#include "common/xalloc.h"

static const char *const agent_names[HA__COUNT] = {"claude-code", "cursor", "codex", "gemini-cli"};

const char *hook_agent_name(enum hook_agent a)
{
	return a >= 0 && a < HA__COUNT ? agent_names[a] : "?";
}

int hook_agent_parse(const char *name, enum hook_agent *out)
{
	for (int i = 0; i < HA__COUNT; i++)
		if (name && !strcmp(name, agent_names[i])) {
			*out = (enum hook_agent)i;
			return 0;
		}
	return -1;
}

const char *hook_kind_name(enum hook_kind k)
{
	switch (k) {
	case HK_SESSION_START: return "session_start";
	case HK_SESSION_END: return "session_end";
	case HK_PROMPT: return "prompt";
	case HK_PRE_TOOL: return "pre_tool";
	case HK_POST_TOOL: return "post_tool";
	case HK_POST_TOOL_FAILURE: return "post_tool_failure";
	case HK_POST_ONLY: return "post_only";
	case HK_SUBAGENT_START: return "subagent_start";
	case HK_SUBAGENT_STOP: return "subagent_stop";
	case HK_STOP: return "stop";
	case HK_NOTICE: return "notice";
	}
	return "?";
}

const char *hook_tool_class_name(enum hook_tool_class c)
{
	static const char *const names[] = {"none", "shell", "edit", "read", "mcp", "subagent", "other"};
	return c <= HT_OTHER ? names[c] : "?";
}

/*==== event names ====*/

struct event_name {
	const char *name;
	enum hook_kind kind;
};

static const struct event_name claude_events[] = {
	{"SessionStart", HK_SESSION_START},
	{"SessionEnd", HK_SESSION_END},
	{"UserPromptSubmit", HK_PROMPT},
	{"PreToolUse", HK_PRE_TOOL},
	{"PostToolUse", HK_POST_TOOL},
	{"PostToolUseFailure", HK_POST_TOOL_FAILURE},
	{"SubagentStart", HK_SUBAGENT_START},
	{"SubagentStop", HK_SUBAGENT_STOP},
	{"Stop", HK_STOP},
	{"StopFailure", HK_NOTICE},
	{"Notification", HK_NOTICE},
	{"PreCompact", HK_NOTICE},
	{"PostCompact", HK_NOTICE},
	{"PermissionRequest", HK_NOTICE},
	{"PermissionDenied", HK_NOTICE},
	{"Setup", HK_NOTICE},
	{"ConfigChange", HK_NOTICE},
	{"InstructionsLoaded", HK_NOTICE},
	{"CwdChanged", HK_NOTICE},
	{"FileChanged", HK_NOTICE},
	{NULL, 0},
};

static const struct event_name cursor_events[] = {
	{"sessionStart", HK_SESSION_START},
	{"sessionEnd", HK_SESSION_END},
	{"beforeSubmitPrompt", HK_PROMPT},
	{"beforeShellExecution", HK_PRE_TOOL},
	{"afterShellExecution", HK_POST_TOOL},
	{"beforeMCPExecution", HK_PRE_TOOL},
	{"afterMCPExecution", HK_POST_TOOL},
	{"beforeReadFile", HK_PRE_TOOL},
	{"afterFileEdit", HK_POST_ONLY},
	{"preToolUse", HK_PRE_TOOL},
	{"postToolUse", HK_POST_TOOL},
	{"postToolUseFailure", HK_POST_TOOL_FAILURE},
	{"subagentStart", HK_SUBAGENT_START},
	{"subagentStop", HK_SUBAGENT_STOP},
	{"stop", HK_STOP},
	{"afterAgentResponse", HK_NOTICE},
	{"afterAgentThought", HK_NOTICE},
	{"preCompact", HK_NOTICE},
	{NULL, 0},
};

static const struct event_name codex_events[] = {
	{"SessionStart", HK_SESSION_START},
	{"SessionEnd", HK_SESSION_END},
	{"UserPromptSubmit", HK_PROMPT},
	{"PreToolUse", HK_PRE_TOOL},
	{"PostToolUse", HK_POST_TOOL},
	{"SubagentStart", HK_SUBAGENT_START},
	{"SubagentStop", HK_SUBAGENT_STOP},
	{"Stop", HK_STOP},
	{"PermissionRequest", HK_NOTICE},
	{"PreCompact", HK_NOTICE},
	{"PostCompact", HK_NOTICE},
	{"Notification", HK_NOTICE},
	{NULL, 0},
};

/* Gemini CLI 0.61 (HookEventName in its core): AfterAgent carries the final message
 * (prompt_response) and is the claim; the model events are recorded only. */
static const struct event_name gemini_events[] = {
	{"SessionStart", HK_SESSION_START},
	{"SessionEnd", HK_SESSION_END},
	{"BeforeAgent", HK_PROMPT},
	{"BeforeTool", HK_PRE_TOOL},
	{"AfterTool", HK_POST_TOOL},
	{"AfterAgent", HK_STOP},
	{"BeforeModel", HK_NOTICE},
	{"AfterModel", HK_NOTICE},
	{"BeforeToolSelection", HK_NOTICE},
	{"PreCompress", HK_NOTICE},
	{"Notification", HK_NOTICE},
	{NULL, 0},
};

static const struct event_name *events_of(enum hook_agent a)
{
	return a == HA_CURSOR ? cursor_events : a == HA_CODEX ? codex_events : a == HA_GEMINI ? gemini_events : claude_events;
}

/*==== tools ====*/

static int name_in(const char *tool, const char *const *names)
{
	for (; *names; names++)
		if (!strcasecmp(tool, *names))
			return 1;
	return 0;
}

enum hook_tool_class hook_tool_classify(enum hook_agent agent, const char *tool)
{
	static const char *const shell[] = {"Bash",	  "Shell",	   "shell",	    "local_shell", "exec_command",
					    "unified_exec", "container.exec", "run_terminal_cmd", NULL};
	static const char *const edit[] = {"Write",	  "Edit",     "MultiEdit",   "NotebookEdit", "apply_patch",
					   "applypatch", "StrReplace", "str_replace", "Delete",       "TabWrite",
					   "multi_edit", "edit_file",  "write_file",  "delete_file",  NULL};
	static const char *const read[] = {"Read",	  "Grep",	"Glob",	       "LS",	       "NotebookRead",
					   "read_file",	  "grep",	"glob",	       "ls",	       "view",
					   "search",	  "codebase_search", "file_search", "list_dir", NULL};
	static const char *const subagent[] = {"Task", "Agent", NULL};
	/* Gemini CLI's built-in tools (0.61); its MCP tools are mcp_<server>_<tool> */
	static const char *const gem_edit[] = {"write_file", "replace", NULL};
	static const char *const gem_read[] = {"read_file", "read_many_files", "list_directory", "glob",
					       "grep_search", NULL};
	if (!tool || !*tool)
		return HT_OTHER;
	if (agent == HA_GEMINI) {
		if (!strcmp(tool, "run_shell_command"))
			return HT_SHELL;
		if (!strncmp(tool, "mcp_", 4))
			return HT_MCP;
		for (const char *const *n = gem_edit; *n; n++)
			if (!strcmp(tool, *n))
				return HT_EDIT;
		for (const char *const *n = gem_read; *n; n++)
			if (!strcmp(tool, *n))
				return HT_READ;
		return HT_OTHER; /* web_fetch, google_web_search, save_memory, write_todos, ... */
	}
	if (!strncmp(tool, "mcp__", 5) || !strncmp(tool, "MCP:", 4))
		return HT_MCP;
	if (name_in(tool, shell))
		return HT_SHELL;
	if (name_in(tool, edit))
		return HT_EDIT;
	if (name_in(tool, read))
		return HT_READ;
	if (name_in(tool, subagent))
		return HT_SUBAGENT;
	return HT_OTHER;
}

/* A shell command given as an argv array: `bash -lc SCRIPT` is SCRIPT; anything else is
 * the words quoted for the shell (so each stays one word when parsed). */
static char *argv_command(const cJSON *arr)
{
	int n = cJSON_GetArraySize(arr);
	const cJSON *a0 = cJSON_GetArrayItem(arr, 0), *a1 = cJSON_GetArrayItem(arr, 1), *a2 = cJSON_GetArrayItem(arr, 2);
	if (n == 3 && cJSON_IsString(a0) && cJSON_IsString(a1) && cJSON_IsString(a2)) {
		const char *base = strrchr(a0->valuestring, '/');
		base = base ? base + 1 : a0->valuestring;
		if ((!strcmp(base, "bash") || !strcmp(base, "sh") || !strcmp(base, "zsh")) &&
		    (!strcmp(a1->valuestring, "-c") || !strcmp(a1->valuestring, "-lc")))
			return xstrdup(a2->valuestring);
	}
	struct buf b = {0};
	for (const cJSON *w = arr->child; w; w = w->next) {
		if (!cJSON_IsString(w)) {
			buf_free(&b);
			return NULL;
		}
		if (b.len)
			buf_putc(&b, ' ');
		buf_sh_quote(&b, w->valuestring);
	}
	return buf_take(&b);
}

/* The command line of a shell tool's input: "command" (or "cmd"), a string or an argv. */
static void shell_command(struct hook_event *ev, const cJSON *input)
{
	const cJSON *c = cJSON_GetObjectItemCaseSensitive(input, "command");
	if (!c)
		c = cJSON_GetObjectItemCaseSensitive(input, "cmd");
	if (cJSON_IsString(c)) {
		ev->command = c->valuestring;
	} else if (cJSON_IsArray(c)) {
		char *s = argv_command(c);
		if (s) {
			if (!ev->synth)
				ev->synth = cJSON_CreateObject();
			cJSON_AddStringToObject(ev->synth, "command_line", s);
			ev->command = jx_str(ev->synth, "command_line");
			free(s);
		}
	}
}

/* Cursor's flat events: the call as a tool_input of our own making. */
static void cursor_flat(struct hook_event *ev)
{
	const cJSON *p = ev->payload;
	const char *name = ev->event;
	if (!strcmp(name, "beforeShellExecution") || !strcmp(name, "afterShellExecution")) {
		ev->tool = "Shell";
		cJSON *in = cJSON_CreateObject();
		if (jx_str(p, "command"))
			cJSON_AddStringToObject(in, "command", jx_str(p, "command"));
		if (jx_str(p, "cwd"))
			cJSON_AddStringToObject(in, "cwd", jx_str(p, "cwd"));
		ev->synth = cJSON_CreateObject();
		cJSON_AddItemToObject(ev->synth, "input", in);
		ev->input = in;
		if (!strcmp(name, "afterShellExecution"))
			ev->response = p; /* output, duration: the event is the response */
	} else if (!strcmp(name, "beforeMCPExecution") || !strcmp(name, "afterMCPExecution")) {
		ev->tool = jx_str(p, "tool_name");
		ev->input = cJSON_GetObjectItemCaseSensitive(p, "tool_input");
		ev->cls = HT_MCP;
		if (!strcmp(name, "afterMCPExecution"))
			ev->response = cJSON_GetObjectItemCaseSensitive(p, "result_json");
	} else if (!strcmp(name, "beforeReadFile")) {
		ev->tool = "Read";
		cJSON *in = cJSON_CreateObject();
		if (jx_str(p, "file_path"))
			cJSON_AddStringToObject(in, "file_path", jx_str(p, "file_path"));
		ev->synth = cJSON_CreateObject();
		cJSON_AddItemToObject(ev->synth, "input", in);
		ev->input = in;
	} else if (!strcmp(name, "afterFileEdit")) {
		ev->tool = "Edit";
		ev->input = p; /* file_path, edits */
		ev->response = p;
	}
}

/* Gemini CLI's AfterTool comes for calls that failed too: the failure is the response's
 * "error" ({message, type}), or, for run_shell_command, an "Exit Code: N" line among the
 * lines its own result adds after the output ("Output: ...", then "Error:", "Exit Code:",
 * "Signal:", "Background PIDs:", "Process Group PGID:", inside <untrusted_context>). The
 * exit status becomes "Exit code N", the form the rest of belay reads (Claude Code's). */
static int gemini_exit_code(const char *llm, long *code)
{
	static const char *const after[] = {"Signal: ", "Background PIDs: ", "Process Group PGID: ", "</untrusted_context>",
					    NULL};
	const char *hit = NULL;
	for (const char *p = llm; (p = strstr(p, "\nExit Code: ")) != NULL; p++)
		hit = p;
	if (!hit)
		return 0;
	const char *num = hit + strlen("\nExit Code: ");
	char *end;
	long v = strtol(num, &end, 10);
	if (end == num || (*end != '\n' && *end != '\0'))
		return 0;
	/* only Gemini's own lines may follow, so an "Exit Code:" the command printed is not read */
	for (const char *line = *end ? end + 1 : end; *line;) {
		const char *const *a = after;
		for (; *a && strncmp(line, *a, strlen(*a)); a++)
			;
		if (!*a)
			return 0;
		const char *nl = strchr(line, '\n');
		line = nl ? nl + 1 : line + strlen(line);
	}
	*code = v;
	return 1;
}

/* Gemini CLI's AfterTool carries the arguments as the call ran, so a command belay rewrote
 * to run contained (hook_session.c: `'BELAY' exec --run 'R' --turn N ... -- bash -c 'CMD'`)
 * comes back rewritten: the command the pre event saw is CMD, unquoted (buf_sh_quote's
 * form), so that pre and post pair. */
static void gemini_uncontain(struct hook_event *ev)
{
	static const char tail[] = " -- bash -c '";
	const char *c = ev->command;
	if (!c || c[0] != '\'' || !strstr(c, "' exec --run '"))
		return;
	const char *q = strstr(c, tail);
	if (!q)
		return;
	struct buf b = {0};
	const char *p = q + strlen(tail);
	for (;;) {
		if (*p == '\0') { /* unterminated: not belay's form */
			buf_free(&b);
			return;
		}
		if (*p == '\'') {
			if (!strncmp(p, "'\\''", 4)) {
				buf_putc(&b, '\'');
				p += 4;
				continue;
			}
			break;
		}
		buf_putc(&b, *p++);
	}
	if (p[1] != '\0') { /* anything after the closing quote: not belay's form */
		buf_free(&b);
		return;
	}
	if (!ev->synth)
		ev->synth = cJSON_CreateObject();
	cJSON_AddStringToObject(ev->synth, "uncontained_command", buf_cstr(&b));
	ev->command = jx_str(ev->synth, "uncontained_command");
	buf_free(&b);
}

static void gemini_failure(struct hook_event *ev)
{
	if (!cJSON_IsObject(ev->response))
		return;
	const cJSON *err = cJSON_GetObjectItemCaseSensitive(ev->response, "error");
	const char *llm = jx_str(ev->response, "llmContent");
	long code;
	if (ev->cls == HT_SHELL && llm && gemini_exit_code(llm, &code) && code != 0) {
		if (!ev->synth)
			ev->synth = cJSON_CreateObject();
		char msg[48];
		snprintf(msg, sizeof msg, "Exit code %ld", code);
		cJSON_AddStringToObject(ev->synth, "error", msg);
		ev->error = jx_str(ev->synth, "error");
		ev->kind = HK_POST_TOOL_FAILURE;
	} else if (err && !cJSON_IsNull(err)) {
		ev->error = jx_str(err, "message");
		if (!ev->error)
			ev->error = cJSON_IsString(err) ? err->valuestring : "the tool failed";
		ev->kind = HK_POST_TOOL_FAILURE;
	}
}

int hook_event_parse(enum hook_agent agent, const char *data, size_t len, struct hook_event *ev, struct err *e)
{
	memset(ev, 0, sizeof *ev);
	ev->agent = agent;
	cJSON *p = cJSON_ParseWithLength(data, len);
	if (!p)
		return err_set(e, BELAY_EINVAL, "the %s hook payload is not JSON (%zu bytes on stdin)", hook_agent_name(agent),
			       len);
	ev->payload = p;
	if (!cJSON_IsObject(p))
		return err_set(e, BELAY_EINVAL, "the %s hook payload is not a JSON object", hook_agent_name(agent));
	const char *name = jx_str(p, "hook_event_name");
	ev->session = jx_str(p, "session_id");
	if (!ev->session)
		ev->session = jx_str(p, "conversation_id");
	if (!name)
		return err_set(e, BELAY_EINVAL, "the %s hook payload has no \"hook_event_name\"", hook_agent_name(agent));
	const struct event_name *en = events_of(agent);
	for (; en->name && strcmp(en->name, name); en++)
		;
	if (!en->name) {
		ev->event = name;
		return err_set(e, BELAY_EINVAL, "unknown %s hook event \"%.80s\"", hook_agent_name(agent), name);
	}
	ev->event = name;
	ev->kind = en->kind;
	ev->cwd = jx_str(p, "cwd");
	ev->transcript = jx_str(p, "transcript_path");
	ev->roots = cJSON_GetObjectItemCaseSensitive(p, "workspace_roots");
	if (!ev->cwd && cJSON_IsArray(ev->roots) && cJSON_IsString(ev->roots->child))
		ev->cwd = ev->roots->child->valuestring;
	ev->tool_use_id = jx_str(p, "tool_use_id");
	ev->error = jx_str(p, "error");
	ev->last_message = jx_str(p, agent == HA_GEMINI ? "prompt_response" : "last_assistant_message");
	ev->stop_active = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(p, "stop_hook_active"));
	int tool_event = ev->kind == HK_PRE_TOOL || ev->kind == HK_POST_TOOL || ev->kind == HK_POST_TOOL_FAILURE ||
			 ev->kind == HK_POST_ONLY;
	if (agent == HA_CURSOR && tool_event && strcmp(name, "preToolUse") && strcmp(name, "postToolUse") &&
	    strcmp(name, "postToolUseFailure"))
		cursor_flat(ev);
	else if (tool_event) {
		ev->tool = jx_str(p, "tool_name");
		ev->input = cJSON_GetObjectItemCaseSensitive(p, "tool_input");
		ev->response = cJSON_GetObjectItemCaseSensitive(p, "tool_response");
		if (!ev->response)
			ev->response = cJSON_GetObjectItemCaseSensitive(p, "tool_output");
	}
	if (tool_event) {
		if (!ev->tool)
			return err_set(e, BELAY_EINVAL, "the %s %s event names no tool (\"tool_name\")", hook_agent_name(agent),
				       name);
		if (ev->cls == HT_NONE)
			ev->cls = hook_tool_classify(agent, ev->tool);
		if (ev->cls == HT_SHELL && cJSON_IsObject(ev->input))
			shell_command(ev, ev->input);
		else if (ev->cls == HT_EDIT && cJSON_IsObject(ev->input) && !strcasecmp(ev->tool, "apply_patch"))
			shell_command(ev, ev->input); /* Codex: the patch body is tool_input.command */
		if (agent == HA_GEMINI && ev->kind == HK_POST_TOOL) {
			if (ev->cls == HT_SHELL)
				gemini_uncontain(ev);
			gemini_failure(ev);
		}
	}
	return 0;
}

void hook_event_free(struct hook_event *ev)
{
	cJSON_Delete(ev->payload);
	cJSON_Delete(ev->synth);
	memset(ev, 0, sizeof *ev);
}

/*==== apply_patch ====*/

size_t hook_patch_targets(const char *patch, char ***paths, int *deletes)
{
	static const char *const heads[] = {"*** Add File: ", "*** Update File: ", "*** Delete File: ", "*** Move to: "};
	size_t n = 0, cap = 0;
	*paths = NULL;
	*deletes = 0;
	for (const char *line = patch; line && *line;) {
		const char *end = strchr(line, '\n');
		size_t len = end ? (size_t)(end - line) : strlen(line);
		for (size_t h = 0; h < sizeof heads / sizeof heads[0]; h++) {
			size_t hl = strlen(heads[h]);
			if (len > hl && !strncmp(line, heads[h], hl)) {
				size_t pl = len - hl;
				while (pl && (line[hl + pl - 1] == '\r' || line[hl + pl - 1] == ' '))
					pl--;
				if (!pl)
					break;
				*paths = xgrow_zeroed(*paths, &cap, n + 1, sizeof **paths, 4);
				(*paths)[n++] = xstrndup(line + hl, pl);
				if (h == 2)
					*deletes = 1;
				break;
			}
		}
		line = end ? end + 1 : NULL;
	}
	return n;
}
