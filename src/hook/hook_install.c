/* hook_install.c - belay's entries in the agents' hook configurations. See hook_install.h. */
#include "hook/hook_install.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/fsutil.h"
#include "common/jsonx.h"
#include "common/paths.h"
#include "common/xalloc.h"
#include "hook/hook_protect.h"
#include "hook/hook_session.h"
#include "hook/hook_tamper.h"

#define CONFIG_MAX ((size_t)16 << 20)

struct hook_slot {
	const char *event;
	int tool;       /* takes a matcher */
	int on_failure; /* Claude Code's own fail-closed option, "onFailure": "block", applies
			 * (2.1.295 and later; it ignores it, with a warning, on Stop and
			 * SubagentStop, whose block means "go on" rather than "do not run") */
};

static const struct hook_slot claude_slots[] = {
	{"PreToolUse", 1, 1},	   {"PostToolUse", 1, 1},      {"PostToolUseFailure", 1, 1}, {"SessionStart", 0, 1},
	{"SessionEnd", 0, 1},	   {"UserPromptSubmit", 0, 1}, {"Stop", 0, 0},		     {"SubagentStart", 0, 1},
	{"SubagentStop", 0, 0},	   {NULL, 0, 0},
};
static const struct hook_slot codex_slots[] = {
	{"PreToolUse", 1}, {"PostToolUse", 1}, {"SessionStart", 0}, {"UserPromptSubmit", 0}, {"Stop", 0}, {NULL, 0},
};
static const struct hook_slot cursor_slots[] = {
	{"beforeShellExecution", 0}, {"afterShellExecution", 0}, {"beforeMCPExecution", 0}, {"afterMCPExecution", 0},
	{"beforeReadFile", 0},	     {"afterFileEdit", 0},	 {"beforeSubmitPrompt", 0}, {"stop", 0},
	{"sessionStart", 0},	     {"sessionEnd", 0},		 {NULL, 0},
};

/* Gemini CLI 0.61: timeouts in milliseconds; no fail-closed option of its own (a hook that
 * fails, times out or exits with anything but 0 and 2 lets the call run: the wrapper's
 * exit 2 with its message on stderr is what blocks). */
static const struct hook_slot gemini_slots[] = {
	{"BeforeTool", 1}, {"AfterTool", 1}, {"BeforeAgent", 0}, {"AfterAgent", 0}, {"SessionStart", 0}, {"SessionEnd", 0},
	{NULL, 0},
};

static const struct hook_slot *slots_of(enum hook_agent a)
{
	return a == HA_CURSOR ? cursor_slots : a == HA_CODEX ? codex_slots : a == HA_GEMINI ? gemini_slots : claude_slots;
}

/* The per-hook timeout belay writes, in the agent's unit. */
static double timeout_of(enum hook_agent a)
{
	return a == HA_GEMINI ? HOOK_TIMEOUT_S * 1000.0 : HOOK_TIMEOUT_S;
}

char *hook_install_path(enum hook_agent agent, const char *project, const char *home, int global)
{
	const char *dir = global ? home : project;
	const char *rel = agent == HA_CURSOR ? ".cursor/hooks.json" : agent == HA_CODEX ? ".codex/hooks.json"
					  : agent == HA_GEMINI ? ".gemini/settings.json"
										: ".claude/settings.json";
	return dir ? xasprintf("%s/%s", dir, rel) : NULL;
}

char *hook_install_command(const struct hook_install_opts *o)
{
	struct buf b = {0};
	buf_printf(&b, "timeout -k 5 %d ", HOOK_WRAP_TIMEOUT_S);
	if (o->client) {
		buf_sh_quote(&b, o->client);
		buf_printf(&b, " %s", hook_agent_name(o->agent));
	} else {
		buf_sh_quote(&b, o->belay);
		buf_printf(&b, " hook %s", hook_agent_name(o->agent));
	}
	if (o->mode && strcmp(o->mode, "audit"))
		buf_printf(&b, " --mode %s", o->mode);
	if (o->contain) {
		buf_puts(&b, " --contain");
		if (o->network && strcmp(o->network, "deny"))
			buf_printf(&b, " --network %s", o->network);
	}
	if (o->project && !o->global) {
		buf_puts(&b, " --root ");
		buf_sh_quote(&b, o->project);
	}
	if (o->state) {
		buf_puts(&b, " --state ");
		buf_sh_quote(&b, o->state);
	}
	buf_puts(&b, " || { echo \"belay hook failed (exit $?): the call is refused; run belay doctor\" >&2; exit 2; } "
		     HOOK_MARKER);
	return buf_take(&b);
}

static int ours(const cJSON *hook)
{
	const char *cmd = jx_str(hook, "command");
	return cmd && strstr(cmd, HOOK_MARKER) != NULL;
}

/* Removes belay's hooks from one event's list; 1 when anything was removed. Claude Code and
 * Codex nest the commands in {"matcher","hooks":[...]} groups; Cursor lists them flat. */
static int remove_ours(cJSON *list, int nested)
{
	int removed = 0;
	for (cJSON *g = list->child; g;) {
		cJSON *next = g->next;
		if (!nested) {
			if (ours(g)) {
				cJSON_Delete(cJSON_DetachItemViaPointer(list, g));
				removed = 1;
			}
		} else {
			cJSON *hooks = cJSON_GetObjectItemCaseSensitive(g, "hooks");
			int had = 0;
			for (cJSON *h = cJSON_IsArray(hooks) ? hooks->child : NULL; h;) {
				cJSON *hn = h->next;
				if (ours(h)) {
					cJSON_Delete(cJSON_DetachItemViaPointer(hooks, h));
					had = 1;
				}
				h = hn;
			}
			if (had) {
				removed = 1;
				if (!cJSON_GetArraySize(hooks)) /* the group held only ours */
					cJSON_Delete(cJSON_DetachItemViaPointer(list, g));
			}
		}
		g = next;
	}
	return removed;
}

static cJSON *our_entry(const struct hook_install_opts *o, const struct hook_slot *s, const char *cmd)
{
	cJSON *h = cJSON_CreateObject();
	if (o->agent == HA_CURSOR) {
		cJSON_AddStringToObject(h, "command", cmd);
		cJSON_AddNumberToObject(h, "timeout", HOOK_TIMEOUT_S);
		return h;
	}
	cJSON_AddStringToObject(h, "type", "command");
	if (o->agent == HA_GEMINI)
		cJSON_AddStringToObject(h, "name", "belay");
	cJSON_AddStringToObject(h, "command", cmd);
	cJSON_AddNumberToObject(h, "timeout", timeout_of(o->agent));
	if (s->on_failure)
		cJSON_AddStringToObject(h, "onFailure", "block"); /* the agent's own layer, beside the wrapper */
	cJSON *g = cJSON_CreateObject();
	if (s->tool)
		cJSON_AddStringToObject(g, "matcher", o->agent == HA_CODEX ? ".*" : "*");
	cJSON *arr = cJSON_AddArrayToObject(g, "hooks");
	cJSON_AddItemToArray(arr, h);
	return g;
}

/* cJSON_Print indents with tabs; agents' files are usually two spaces. */
static char *print_json(const cJSON *root)
{
	char *s = cJSON_Print(root);
	struct buf b = {0};
	int bol = 1;
	for (const char *p = s; *p; p++) {
		/* a literal tab is always layout: cJSON escapes the ones inside strings */
		if (*p == '\t') {
			buf_puts(&b, bol ? "  " : " ");
			continue;
		}
		bol = *p == '\n';
		buf_putc(&b, *p);
	}
	buf_putc(&b, '\n');
	cJSON_free(s);
	return buf_take(&b);
}

static int load(const char *path, cJSON **out, int *existed, mode_t *mode, struct err *e)
{
	*out = NULL;
	*existed = 0;
	*mode = 0644;
	struct stat st;
	if (stat(path, &st) != 0) {
		if (errno != ENOENT)
			return err_set(e, -errno, "%s: %s", path, strerror(errno));
		*out = cJSON_CreateObject();
		return 0;
	}
	*existed = 1;
	*mode = st.st_mode & 07777;
	struct buf b = {0};
	int rc = fs_read_file(path, CONFIG_MAX, &b, e);
	if (rc) {
		buf_free(&b);
		return rc;
	}
	cJSON *o = b.len ? cJSON_ParseWithLength(b.p, b.len) : cJSON_CreateObject();
	buf_free(&b);
	if (!cJSON_IsObject(o)) {
		cJSON_Delete(o);
		return err_set(e, BELAY_EINVAL, "%s is not a JSON object belay can read; it was left untouched", path);
	}
	*out = o;
	return 0;
}

static int write_config(const char *path, const char *text, mode_t mode, struct err *e)
{
	char *dir = xstrdup(path), *slash = strrchr(dir, '/');
	int rc = 0;
	if (slash) {
		*slash = '\0';
		rc = fs_mkdir_p(dir, 0755, e);
	}
	free(dir);
	return rc ? rc : fs_write_file_atomic(path, text, strlen(text), mode, e);
}

/* Writes the file when it changes (not on a dry run) and reports one line about it. */
static int settle(const struct hook_install_opts *o, const char *path, const char *after, int same, mode_t mode,
		  const char *changed, const char *unchanged, struct buf *report, struct err *e)
{
	int rc = !same && !o->dry_run ? write_config(path, after, mode, e) : 0;
	if (rc == 0)
		buf_printf(report, "%s%s: %s\n", o->dry_run && !same ? "would change " : "", path, same ? unchanged : changed);
	return rc;
}

/* The `belay connect` MCP entry of an agent's project or home configuration. */
static int install_mcp(const struct hook_install_opts *o, struct buf *report, struct err *e)
{
	const char *dir = o->global ? o->home : o->project;
	const char *mcp_changed = o->uninstall ? "removed the belay MCP entry" : "added the belay MCP entry";
	if (o->agent == HA_CODEX) {
		/* ~/.codex/config.toml: a marker-delimited block, appended or removed as text */
		char *path = xasprintf("%s/.codex/config.toml", o->home);
		struct buf b = {0};
		struct stat st;
		int rc = stat(path, &st) == 0 ? fs_read_file(path, CONFIG_MAX, &b, e) : 0;
		if (rc == 0) {
			const char *begin = "# belay-mcp begin\n", *end = "# belay-mcp end\n";
			char *text = buf_cstr(&b), *s = strstr(text, begin), *t = s ? strstr(s, end) : NULL;
			struct buf out = {0};
			if (s && t) {
				buf_append(&out, text, (size_t)(s - text));
				buf_puts(&out, t + strlen(end));
			} else {
				buf_puts(&out, text);
			}
			if (!o->uninstall) {
				if (out.len && out.p[out.len - 1] != '\n')
					buf_putc(&out, '\n');
				buf_printf(&out, "%s[mcp_servers.belay]\ncommand = \"%s\"\nargs = [\"connect\"]\n%s", begin, o->belay,
					   end);
			}
			int same = out.len == b.len && (!out.len || !memcmp(out.p, b.p, b.len));
			rc = settle(o, path, buf_cstr(&out), same, 0644, mcp_changed, "unchanged", report, e);
			buf_free(&out);
		}
		buf_free(&b);
		free(path);
		return rc;
	}
	char *path = xasprintf("%s/%s", dir, o->agent == HA_CURSOR ? ".cursor/mcp.json" : ".mcp.json");
	cJSON *root;
	int existed;
	mode_t mode;
	int rc = load(path, &root, &existed, &mode, e);
	if (rc) {
		free(path);
		return rc;
	}
	char *before = print_json(root);
	cJSON *servers = cJSON_GetObjectItemCaseSensitive(root, "mcpServers");
	if (!o->uninstall) {
		if (!cJSON_IsObject(servers)) {
			cJSON_DeleteItemFromObjectCaseSensitive(root, "mcpServers");
			servers = cJSON_AddObjectToObject(root, "mcpServers");
		}
		cJSON_DeleteItemFromObjectCaseSensitive(servers, "belay");
		cJSON *s = cJSON_AddObjectToObject(servers, "belay");
		cJSON_AddStringToObject(s, "command", o->belay);
		cJSON *args = cJSON_AddArrayToObject(s, "args");
		cJSON_AddItemToArray(args, cJSON_CreateString("connect"));
	} else if (cJSON_IsObject(servers)) {
		cJSON_DeleteItemFromObjectCaseSensitive(servers, "belay");
		if (!servers->child)
			cJSON_DeleteItemFromObjectCaseSensitive(root, "mcpServers");
	}
	char *after = print_json(root);
	int same = !strcmp(before, after) && (existed || o->uninstall);
	rc = settle(o, path, after, same, mode, mcp_changed, "unchanged", report, e);
	free(before);
	free(after);
	cJSON_Delete(root);
	free(path);
	return rc;
}

/* The protected set as this install leaves it (hook_tamper.h): what every later hook event
 * compares with. An uninstall records it too (the other agents' hooks may stay). */
static int record_protected(const struct hook_install_opts *o, struct buf *report, struct err *e)
{
	char *state = paths_state_dir(o->state);
	int rc = paths_ensure_state_dir(state, e);
	char *key = o->global ? xasprintf("global:%s", o->home) : xstrdup(o->project);
	if (rc == 0) {
		struct hook_protect *p = hook_protect_new(o->global ? NULL : o->project, o->home, state, o->belay);
		rc = hook_tamper_record(p, state, key, NULL, e);
		if (rc == 0)
			buf_printf(report, "belay's protected files recorded (%zu: hook configurations, hook programs, "
					   "state); a change belay does not make stops the hooks' sessions (docs/HOOKS.md)\n",
				   p->n);
		hook_protect_free(p);
	}
	free(key);
	free(state);
	return rc;
}

/*==== Gemini CLI: settings.json edited as text ====
 *
 * Gemini CLI reads its settings.json as JSON with comments, and the file holds everything
 * else the user set. belay never re-prints it: each install inserts its entries as spans of
 * text between two comments of its own (GEM_BEGIN ... GEM_END), right after the opening
 * bracket of the object or list they go into, and an uninstall (or the next install) cuts
 * exactly those spans out, so the file is again what it was, byte for byte, comments and
 * layout included. */

#define GEM_BEGIN "/* belay-hook begin: `belay init gemini-cli --uninstall` removes this */"
#define GEM_END "/* belay-hook end */"

/* The scanner below runs on the text with its comments blanked out (jx_strip_comments),
 * which cJSON has already accepted: it only needs to step over values. */
static size_t sk_ws(const char *t, size_t i)
{
	while (t[i] == ' ' || t[i] == '\t' || t[i] == '\n' || t[i] == '\r')
		i++;
	return i;
}

static size_t sk_value(const char *t, size_t i)
{
	if (t[i] == '"') {
		for (i++; t[i] && t[i] != '"'; i++)
			if (t[i] == '\\' && t[i + 1])
				i++;
		return t[i] ? i + 1 : i;
	}
	if (t[i] == '{' || t[i] == '[') {
		int depth = 0;
		for (; t[i]; i++) {
			if (t[i] == '"') {
				i = sk_value(t, i) - 1;
			} else if (t[i] == '{' || t[i] == '[') {
				depth++;
			} else if (t[i] == '}' || t[i] == ']') {
				if (--depth == 0)
					return i + 1;
			}
		}
		return i;
	}
	while (t[i] && !strchr(",}] \t\r\n", t[i]))
		i++;
	return i;
}

/* The offset of member `key`'s value in the object opening at t[open], or 0. */
static size_t sk_member(const char *t, size_t open, const char *key)
{
	size_t i = sk_ws(t, open + 1), kl = strlen(key);
	while (t[i] == '"') {
		size_t kend = sk_value(t, i);
		int match = kend - i == kl + 2 && !strncmp(t + i + 1, key, kl);
		i = sk_ws(t, kend);
		if (t[i] != ':')
			return 0;
		i = sk_ws(t, i + 1);
		if (match)
			return i;
		i = sk_ws(t, sk_value(t, i));
		if (t[i] != ',')
			return 0;
		i = sk_ws(t, i + 1);
	}
	return 0;
}

static int sk_empty(const char *t, size_t open)
{
	char c = t[sk_ws(t, open + 1)];
	return c == '}' || c == ']';
}

/* Cuts every span of belay's out of text; -1 when a begin mark has no end. */
static int gem_cut(struct buf *text)
{
	for (;;) {
		char *s = strstr(buf_cstr(text), GEM_BEGIN);
		if (!s)
			return 0;
		char *t = strstr(s, GEM_END);
		if (!t)
			return -1;
		size_t from = (size_t)(s - text->p), to = (size_t)(t - text->p) + strlen(GEM_END);
		memmove(text->p + from, text->p + to, text->len - to);
		text->len -= to - from;
		text->p[text->len] = '\0';
	}
}

struct gem_insert {
	size_t at;
	char *text;
};

static int gem_insert_cmp(const void *a, const void *b)
{
	size_t x = ((const struct gem_insert *)a)->at, y = ((const struct gem_insert *)b)->at;
	return x < y ? 1 : x > y ? -1 : 0; /* from the end, so earlier offsets stay valid */
}

/* One span: GEM_BEGIN, the members or items, a comma when the container holds others. */
static char *gem_span(const char *body, int comma)
{
	return xasprintf(GEM_BEGIN "\n%s%s\n" GEM_END, body, comma ? "," : "");
}

static int gem_apply(const struct hook_install_opts *o, const char *path, struct buf *text, struct err *e)
{
	if (gem_cut(text) != 0)
		return err_set(e, BELAY_EINVAL, "%s: a \"belay-hook begin\" mark has no end mark; the file was left untouched",
			       path);
	if (o->uninstall)
		return 0;
	char *plain = jx_strip_comments(text->p ? text->p : "", text->len);
	size_t root = sk_ws(plain, 0);
	if (plain[root] != '{') {
		free(plain);
		return err_set(e, BELAY_EINVAL, "%s is not a JSON object belay can read; it was left untouched", path);
	}
	char *cmd = hook_install_command(o);
	struct gem_insert ins[16];
	size_t nins = 0;
	size_t hooks = sk_member(plain, root, "hooks");
	struct buf absent = {0}; /* the events with no list yet, as members of "hooks" */
	for (const struct hook_slot *sl = gemini_slots; sl->event; sl++) {
		cJSON *g = our_entry(o, sl, cmd);
		char *gj = jx_print(g);
		cJSON_Delete(g);
		size_t list = hooks && plain[hooks] == '{' ? sk_member(plain, hooks, sl->event) : 0;
		if (list && plain[list] == '[') {
			ins[nins].at = list + 1;
			ins[nins++].text = gem_span(gj, !sk_empty(plain, list));
		} else {
			if (absent.len)
				buf_puts(&absent, ",\n");
			buf_printf(&absent, "\"%s\": [%s]", sl->event, gj);
		}
		free(gj);
	}
	free(cmd);
	if (absent.len && hooks && plain[hooks] == '{') {
		ins[nins].at = hooks + 1;
		ins[nins++].text = gem_span(buf_cstr(&absent), !sk_empty(plain, hooks));
	} else if (absent.len) {
		char *member = xasprintf("\"hooks\": {\n%s\n}", buf_cstr(&absent));
		ins[nins].at = root + 1;
		ins[nins++].text = gem_span(member, !sk_empty(plain, root));
		free(member);
	}
	buf_free(&absent);
	free(plain);
	qsort(ins, nins, sizeof ins[0], gem_insert_cmp);
	for (size_t i = 0; i < nins; i++) {
		struct buf out = {0};
		buf_append(&out, text->p, ins[i].at);
		buf_puts(&out, ins[i].text);
		buf_append(&out, text->p + ins[i].at, text->len - ins[i].at);
		buf_free(text);
		*text = out;
		free(ins[i].text);
	}
	return 0;
}

/* Gemini CLI's settings.json: checked as JSON with comments, edited as text (above). */
static int gem_install(const struct hook_install_opts *o, const char *path, struct buf *report, struct err *e)
{
	struct stat st;
	int existed = stat(path, &st) == 0;
	if (!existed && errno != ENOENT)
		return err_set(e, -errno, "%s: %s", path, strerror(errno));
	struct buf text = {0};
	int rc = existed ? fs_read_file(path, CONFIG_MAX, &text, e) : 0;
	if (rc) {
		buf_free(&text);
		return rc;
	}
	if (!existed)
		buf_puts(&text, "{}\n");
	struct buf before = {0};
	buf_append(&before, text.p ? text.p : "", text.len);
	cJSON *doc = jx_parse_jsonc(buf_cstr(&text), text.len);
	const cJSON *hooks = cJSON_GetObjectItemCaseSensitive(doc, "hooks");
	if (!cJSON_IsObject(doc))
		rc = err_set(e, BELAY_EINVAL,
			     "%s is not a JSON object belay can read (Gemini CLI's settings: JSON with comments, no "
			     "trailing commas); it was left untouched",
			     path);
	else if (hooks && !cJSON_IsObject(hooks))
		rc = err_set(e, BELAY_EINVAL, "%s: \"hooks\" is not an object; the file was left untouched", path);
	for (const struct hook_slot *sl = gemini_slots; rc == 0 && sl->event && hooks; sl++) {
		const cJSON *list = cJSON_GetObjectItemCaseSensitive(hooks, sl->event);
		if (list && !cJSON_IsArray(list))
			rc = err_set(e, BELAY_EINVAL, "%s: hooks.%s is not a list; the file was left untouched", path, sl->event);
	}
	cJSON_Delete(doc);
	if (rc == 0)
		rc = gem_apply(o, path, &text, e);
	if (rc == 0) {
		/* never write what Gemini CLI could not read back, or what lost belay's entries */
		cJSON *after = jx_parse_jsonc(buf_cstr(&text), text.len);
		if (!cJSON_IsObject(after))
			rc = err_set(e, BELAY_EINVAL, "%s: belay's edit would not parse; the file was left untouched", path);
		cJSON_Delete(after);
	}
	if (rc == 0) {
		int same = existed ? before.len == text.len && !memcmp(buf_cstr(&before), buf_cstr(&text), text.len)
				   : o->uninstall; /* no file: nothing to remove, none to create */
		rc = settle(o, path, buf_cstr(&text), same, existed ? st.st_mode & 07777 : 0644,
			    o->uninstall ? "removed belay's hooks (the rest of the file is as it was, byte for byte)"
					 : "installed belay's hooks (foreign hooks, other settings and comments kept)",
			    "unchanged (belay's hooks are already as they should be)", report, e);
	}
	buf_free(&before);
	buf_free(&text);
	return rc;
}

int hook_install(const struct hook_install_opts *o, struct buf *report, struct err *e)
{
	char *path = hook_install_path(o->agent, o->project, o->home, o->global);
	if (!path)
		return err_set(e, BELAY_EUSAGE, "no %s directory to install into", o->global ? "home" : "project");
	if (o->agent == HA_GEMINI) {
		/* (no --mcp: cmd_init refuses it; `belay snippet gemini-cli` prints the entry) */
		int rc = gem_install(o, path, report, e);
		if (rc == 0 && !o->dry_run)
			rc = record_protected(o, report, e);
		free(path);
		return rc;
	}
	cJSON *root;
	int existed;
	mode_t mode;
	int rc = load(path, &root, &existed, &mode, e);
	if (rc) {
		free(path);
		return rc;
	}
	char *before = print_json(root);
	if (o->agent == HA_CURSOR && !cJSON_GetObjectItemCaseSensitive(root, "version") && !o->uninstall)
		cJSON_AddNumberToObject(root, "version", 1);
	cJSON *hooks = cJSON_GetObjectItemCaseSensitive(root, "hooks");
	if (hooks && !cJSON_IsObject(hooks)) {
		rc = err_set(e, BELAY_EINVAL, "%s: \"hooks\" is not an object; the file was left untouched", path);
		goto out;
	}
	int nested = o->agent != HA_CURSOR;
	int created_hooks = !hooks;
	if (!hooks && !o->uninstall)
		hooks = cJSON_AddObjectToObject(root, "hooks");
	char *cmd = hook_install_command(o);
	int removed_total = 0;
	for (const struct hook_slot *s = slots_of(o->agent); s->event && hooks; s++) {
		cJSON *list = cJSON_GetObjectItemCaseSensitive(hooks, s->event);
		if (list && !cJSON_IsArray(list)) {
			rc = err_set(e, BELAY_EINVAL, "%s: hooks.%s is not a list; the file was left untouched", path, s->event);
			break;
		}
		int removed = list ? remove_ours(list, nested) : 0;
		removed_total += removed;
		if (o->uninstall) {
			if (removed && list && !cJSON_GetArraySize(list))
				cJSON_DeleteItemFromObjectCaseSensitive(hooks, s->event);
			continue;
		}
		if (!list)
			list = cJSON_AddArrayToObject(hooks, s->event);
		/* first, before the foreign hooks: the gate sees every call */
		cJSON_InsertItemInArray(list, 0, our_entry(o, s, cmd));
	}
	free(cmd);
	if (rc)
		goto out;
	if (o->uninstall && hooks && !hooks->child && removed_total && !created_hooks)
		cJSON_DeleteItemFromObjectCaseSensitive(root, "hooks");
	char *after = print_json(root);
	int same = !strcmp(before, after) && existed;
	if (o->uninstall && !removed_total)
		same = 1;
	rc = settle(o, path, after, same, existed ? mode : 0644,
		    o->uninstall ? "removed belay's hooks (foreign hooks kept)" : "installed belay's hooks (foreign hooks kept)",
		    "unchanged (belay's hooks are already as they should be)", report, e);
	free(after);
	if (rc == 0 && o->mcp)
		rc = install_mcp(o, report, e);
	if (rc == 0 && !o->dry_run)
		rc = record_protected(o, report, e);
out:
	free(before);
	cJSON_Delete(root);
	free(path);
	return rc;
}

/*==== checks ====*/

/* The belay path a wrapper command runs: the quoted word after "timeout -k 5 N ". */
static char *command_belay(const char *cmd)
{
	const char *q = strchr(cmd, '\'');
	if (!q)
		return NULL;
	struct buf b = {0};
	for (const char *p = q + 1; *p; p++) {
		if (*p == '\'') {
			if (!strncmp(p, "'\\''", 4)) {
				buf_putc(&b, '\'');
				p += 3;
				continue;
			}
			return buf_take(&b);
		}
		buf_putc(&b, *p);
	}
	buf_free(&b);
	return NULL;
}

static void problem(cJSON *probs, const char *fmt, const char *a, const char *b)
{
	char msg[800];
	snprintf(msg, sizeof msg, fmt, a, b);
	cJSON_AddItemToArray(probs, cJSON_CreateString(msg));
}

cJSON *hook_install_check(enum hook_agent agent, const char *path, const char *self)
{
	cJSON *o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "agent", hook_agent_name(agent));
	cJSON_AddStringToObject(o, "path", path);
	cJSON *probs = cJSON_CreateArray();
	struct stat st;
	int present = stat(path, &st) == 0;
	cJSON_AddBoolToObject(o, "present", present);
	cJSON *root = NULL;
	int entries = 0;
	if (present) {
		struct buf b = {0};
		struct err e = {0};
		if (fs_read_file(path, CONFIG_MAX, &b, &e) == 0)
			root = agent == HA_GEMINI ? jx_parse_jsonc(b.p ? b.p : "", b.len)
						  : cJSON_ParseWithLength(b.p ? b.p : "", b.len);
		buf_free(&b);
	}
	cJSON_AddBoolToObject(o, "parses", cJSON_IsObject(root));
	if (present && !cJSON_IsObject(root))
		problem(probs, "%s does not parse as a JSON object%s", path, "");
	const cJSON *hooks = cJSON_GetObjectItemCaseSensitive(root, "hooks");
	char *self_real = self ? realpath(self, NULL) : NULL;
	for (const struct hook_slot *s = slots_of(agent); s->event && cJSON_IsObject(root); s++) {
		const cJSON *list = cJSON_GetObjectItemCaseSensitive(hooks, s->event);
		const cJSON *found = NULL;
		for (const cJSON *g = cJSON_IsArray(list) ? list->child : NULL; g && !found; g = g->next) {
			if (agent == HA_CURSOR) {
				if (ours(g))
					found = g;
				continue;
			}
			const cJSON *hs = cJSON_GetObjectItemCaseSensitive(g, "hooks");
			for (const cJSON *h = cJSON_IsArray(hs) ? hs->child : NULL; h && !found; h = h->next)
				if (ours(h))
					found = h;
		}
		if (!found) {
			problem(probs, "no belay hook for %s in %s", s->event, path);
			continue;
		}
		entries++;
		const char *cmd = jx_str(found, "command");
		char *bin = command_belay(cmd);
		long long tmo = 0;
		if (!bin || access(bin, X_OK) != 0)
			problem(probs, "the %s hook runs %s, which is not an executable belay", s->event, bin ? bin : "(no path)");
		else if (self_real) {
			/* this belay, or the small client beside it */
			char *real = realpath(bin, NULL);
			const char *base = strrchr(bin, '/');
			char *beside = base && !strcmp(base + 1, "belay-hook") ? xasprintf("%.*s/belay", (int)(base - bin), bin) : NULL;
			char *beside_real = beside ? realpath(beside, NULL) : NULL;
			if (!real || (strcmp(real, self_real) && (!beside_real || strcmp(beside_real, self_real))))
				problem(probs, "the %s hook runs %s, not this belay", s->event, bin);
			free(real);
			free(beside);
			free(beside_real);
		}
		if (!strstr(cmd, "|| {") || !strstr(cmd, "exit 2"))
			problem(probs, "the %s hook is not wrapped to block when belay fails (%s)", s->event, cmd);
		const char *onf = jx_str(found, "onFailure");
		if (s->on_failure && (!onf || strcmp(onf, "block")))
			problem(probs, "the %s hook does not set \"onFailure\": \"block\" (the agent's own way to block when "
				       "the hook fails)%s",
				s->event, "");
		if (!jx_int(found, "timeout", 1, 1 << 30, &tmo) ||
		    tmo < (HOOK_WRAP_TIMEOUT_S + 10) * (agent == HA_GEMINI ? 1000 : 1))
			problem(probs, "the %s hook has no timeout above belay's own bound (the agent would run the tool when it "
				       "expires)%s",
				s->event, agent == HA_GEMINI ? "; Gemini CLI's timeouts are in milliseconds" : "");
		free(bin);
	}
	if (agent == HA_GEMINI && cJSON_IsObject(root)) {
		/* Gemini CLI's own switches: hooksConfig.enabled false runs no hook; a hook named in
		 * hooksConfig.disabled (by its name, "belay") does not run */
		const cJSON *hc = cJSON_GetObjectItemCaseSensitive(root, "hooksConfig");
		if (cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(hc, "enabled")))
			problem(probs, "%s sets hooksConfig.enabled to false: Gemini CLI runs no hook%s", path, "");
		const cJSON *dis = cJSON_GetObjectItemCaseSensitive(hc, "disabled");
		for (const cJSON *d = cJSON_IsArray(dis) ? dis->child : NULL; d; d = d->next)
			if (cJSON_IsString(d) && (!strcmp(d->valuestring, "belay") || strstr(d->valuestring, HOOK_MARKER)))
				problem(probs, "%s lists belay's hook in hooksConfig.disabled: Gemini CLI does not run it%s", path,
					"");
	}
	cJSON_AddNumberToObject(o, "entries", entries);
	cJSON_AddBoolToObject(o, "ok", present && cJSON_GetArraySize(probs) == 0);
	cJSON_AddItemToObject(o, "problems", probs);
	free(self_real);
	cJSON_Delete(root);
	return o;
}
