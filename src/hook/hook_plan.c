/* hook_plan.c - effect plans for the agents' built-in tools. See hook_plan.h.
 *
 * File tools are classified by gate_plan_tool_call under a built-in policy that says which
 * argument of each tool is the path it writes (or reads); their content arguments are
 * data, never effects. apply_patch names its files inside the patch body: those are read
 * out of it first. */
#include "hook/hook_plan.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/xalloc.h"

/* Which argument of each built-in tool is a path, and what the tool does with it. Tools
 * not listed are classified by the gate's defaults (an unknown tool with nothing the gate
 * recognises asks). */
static const char builtin_policy_json[] =
    "{\"version\":1,"
    "\"comment\":\"belay's rules for the agents' built-in tools (src/hook/hook_plan.c)\","
    "\"arguments\":{\"ignore\":[\"content\",\"old_string\",\"new_string\",\"edits\",\"new_source\",\"description\","
    "\"prompt\",\"pattern\",\"todos\",\"command_line\"]},"
    "\"tools\":["
    "{\"name\":\"Write\",\"write_paths\":[\"file_path\",\"path\"]},"
    "{\"name\":\"Edit\",\"write_paths\":[\"file_path\",\"path\"]},"
    "{\"name\":\"MultiEdit\",\"write_paths\":[\"file_path\",\"path\"]},"
    "{\"name\":\"NotebookEdit\",\"write_paths\":[\"notebook_path\",\"file_path\"]},"
    "{\"name\":\"StrReplace\",\"write_paths\":[\"file_path\",\"path\"]},"
    "{\"name\":\"TabWrite\",\"write_paths\":[\"file_path\",\"path\"]},"
    "{\"name\":\"Delete\",\"write_paths\":[\"file_path\",\"path\"],\"destructive\":true},"
    "{\"name\":\"apply_patch\",\"write_paths\":[\"belay_patch_files\"]},"
    "{\"name\":\"apply_patch (deletes)\",\"write_paths\":[\"belay_patch_files\"],\"destructive\":true},"
    "{\"name\":\"Read\",\"read_paths\":[\"file_path\",\"path\"],\"read_only\":true},"
    "{\"name\":\"NotebookRead\",\"read_paths\":[\"notebook_path\"],\"read_only\":true},"
    "{\"name\":\"Grep\",\"read_paths\":[\"path\"],\"read_only\":true},"
    "{\"name\":\"Glob\",\"read_paths\":[\"path\"],\"read_only\":true},"
    "{\"name\":\"LS\",\"read_paths\":[\"path\"],\"read_only\":true},"
    "{\"name\":\"Task\",\"read_only\":true},"
    "{\"name\":\"Agent\",\"read_only\":true},"
    "{\"name\":\"TodoWrite\",\"read_only\":true},"
    "{\"name\":\"TodoRead\",\"read_only\":true},"
    "{\"name\":\"ToolSearch\",\"read_only\":true},"
    "{\"name\":\"Skill\",\"read_only\":true},"
    "{\"name\":\"ListAgents\",\"read_only\":true},"
    "{\"name\":\"ExitPlanMode\",\"read_only\":true},"
    "{\"name\":\"EnterPlanMode\",\"read_only\":true},"
    "{\"name\":\"BashOutput\",\"read_only\":true},"
    "{\"name\":\"WebSearch\",\"read_only\":true},"
    "{\"name\":\"WebFetch\",\"read_only\":true},"
    /* Gemini CLI 0.61's built-in tools (their paths may be relative to its cwd) */
    "{\"name\":\"write_file\",\"write_paths\":[\"file_path\"]},"
    "{\"name\":\"replace\",\"write_paths\":[\"file_path\"]},"
    "{\"name\":\"read_file\",\"read_paths\":[\"file_path\"],\"read_only\":true},"
    "{\"name\":\"read_many_files\",\"read_only\":true},"
    "{\"name\":\"list_directory\",\"read_paths\":[\"dir_path\"],\"read_only\":true},"
    "{\"name\":\"glob\",\"read_paths\":[\"dir_path\"],\"read_only\":true},"
    "{\"name\":\"grep_search\",\"read_paths\":[\"dir_path\"],\"read_only\":true},"
    "{\"name\":\"web_fetch\",\"read_only\":true},"
    "{\"name\":\"google_web_search\",\"read_only\":true},"
    "{\"name\":\"write_todos\",\"read_only\":true}"
    "]}";

static struct gate_policy *builtin;
static pthread_once_t builtin_once = PTHREAD_ONCE_INIT;

static void builtin_init(void)
{
	struct err e = {0};
	if (gate_policy_parse(builtin_policy_json, sizeof builtin_policy_json - 1, "hook_plan.c", &builtin, &e) != 0)
		FATAL("belay's built-in hook policy does not parse: %s", e.msg);
}

char **hook_plan_agent_configs(const char *root, const char *home)
{
	static const char *const in_root[] = {".claude/settings.json", ".claude/settings.local.json", ".cursor/hooks.json",
					      ".codex/hooks.json", ".codex/config.toml", ".gemini/settings.json", NULL};
	static const char *const in_home[] = {".claude/settings.json", ".claude.json", ".cursor/hooks.json",
					      ".codex/hooks.json", ".codex/config.toml", ".gemini/settings.json", NULL};
	char **v = xcalloc(16, sizeof *v);
	size_t n = 0;
	for (size_t i = 0; root && in_root[i]; i++)
		v[n++] = xasprintf("%s/%s", root, in_root[i]);
	for (size_t i = 0; home && in_home[i]; i++)
		v[n++] = xasprintf("%s/%s", home, in_home[i]);
	return v;
}

void hook_plan_free_paths(char **v)
{
	for (char **p = v; p && *p; p++)
		free(*p);
	free(v);
}

static int kind_reads(enum effect_kind k)
{
	return k == EK_FS_READ || k == EK_FS_READ_OUTSIDE || k == EK_SECRET_READ || k == EK_NET_READ;
}

int hook_plan_read_only(const struct effect_plan *plan)
{
	if (!effect_plan_complete(plan))
		return 0;
	for (size_t i = 0; i < effect_plan_count(plan); i++)
		if (!kind_reads(effect_plan_effect(plan, i)->kind))
			return 0;
	return 1;
}

int hook_plan_local_only(const struct effect_plan *plan)
{
	if (!effect_plan_complete(plan))
		return 0;
	for (size_t i = 0; i < effect_plan_count(plan); i++) {
		enum effect_kind k = effect_plan_effect(plan, i)->kind;
		if (k == EK_FS_WRITE_OUTSIDE || k == EK_FS_DESTROY_OUTSIDE || k == EK_SECRET_WRITE || k == EK_GIT_REF_REMOTE ||
		    k == EK_SYSTEM || k == EK_CONTROL_WRITE)
			return 0;
	}
	return 1;
}

static int plan_mutates(const struct effect_plan *plan)
{
	if (!effect_plan_complete(plan))
		return 1;
	for (size_t i = 0; i < effect_plan_count(plan); i++)
		if (!kind_reads(effect_plan_effect(plan, i)->kind))
			return 1;
	return 0;
}

/* apply_patch: the files named in the patch body, as a path argument of our own. */
static struct effect_plan *plan_patch(const struct hook_event *ev, const struct gate_ctx *ctx)
{
	char **paths = NULL;
	int deletes = 0;
	size_t n = ev->command ? hook_patch_targets(ev->command, &paths, &deletes) : 0;
	cJSON *args = cJSON_CreateObject();
	cJSON *arr = cJSON_AddArrayToObject(args, "belay_patch_files");
	for (size_t i = 0; i < n; i++) {
		cJSON_AddItemToArray(arr, cJSON_CreateString(paths[i]));
		free(paths[i]);
	}
	free(paths);
	/* no file named: nothing the rule recognises, which the gate calls indeterminate */
	if (!n)
		cJSON_DeleteItemFromObjectCaseSensitive(args, "belay_patch_files");
	struct effect_plan *p =
	    gate_plan_tool_call(builtin, deletes ? "apply_patch (deletes)" : "apply_patch", args, NULL, ctx);
	cJSON_Delete(args);
	return p;
}

struct effect_plan *hook_plan_event(const struct hook_event *ev, const struct gate_ctx *ctx,
				    const struct gate_policy *mcp_policy, int *mutating)
{
	pthread_once(&builtin_once, builtin_init);
	struct effect_plan *p = NULL;
	cJSON *empty = NULL;
	const cJSON *args = ev->input;
	if (!cJSON_IsObject(args))
		args = empty = cJSON_CreateObject();
	switch (ev->cls) {
	case HT_SHELL:
		if (ev->command)
			p = gate_plan_command(ev->command, strlen(ev->command), ctx);
		else /* a shell tool without a command line: nothing to read, so the gate asks */
			p = gate_plan_tool_call(builtin, ev->tool, args, NULL, ctx);
		break;
	case HT_EDIT:
		if (ev->tool && !strcasecmp(ev->tool, "apply_patch"))
			p = plan_patch(ev, ctx);
		else
			p = gate_plan_tool_call(builtin, ev->tool, args, NULL, ctx);
		break;
	case HT_MCP:
		p = gate_plan_tool_call(mcp_policy, ev->tool, args, NULL, ctx);
		break;
	default:
		p = gate_plan_tool_call(builtin, ev->tool ? ev->tool : "", args, NULL, ctx);
		break;
	}
	cJSON_Delete(empty);
	if (mutating)
		*mutating = ev->cls == HT_READ ? 0 : plan_mutates(p);
	return p;
}
