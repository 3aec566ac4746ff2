/* hook_cfgkeys.c - the hook-deciding part of an agent's configuration. See hook_cfgkeys.h. */
#include "hook/hook_cfgkeys.h"

#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "assertions/toml.h"
#include "common/err.h"
#include "common/hash.h"
#include "common/jsonx.h"

enum format { F_WHOLE, F_CLAUDE_JSON, F_CODEX_TOML, F_GEMINI_JSON };

/* By path, not by name alone: a settings.json in a .gemini directory is Gemini CLI's,
 * whose hook switches are other keys than Claude Code's. */
static enum format format_of(const char *path)
{
	const char *slash = strrchr(path, '/');
	const char *base = slash ? slash + 1 : path;
	size_t n = strlen(path), g = strlen(".gemini/settings.json");
	if (n >= g && !strcmp(path + n - g, ".gemini/settings.json") && (n == g || path[n - g - 1] == '/'))
		return F_GEMINI_JSON;
	if (!strcmp(base, "settings.json") || !strcmp(base, "settings.local.json") || !strcmp(base, ".claude.json"))
		return F_CLAUDE_JSON;
	if (!strcmp(base, "config.toml"))
		return F_CODEX_TOML;
	return F_WHOLE;
}

/* Copies member k of `from` (when present) into `to` under the name `as`. */
static void keep(cJSON *to, const cJSON *from, const char *k, const char *as)
{
	const cJSON *v = cJSON_IsObject(from) ? cJSON_GetObjectItemCaseSensitive(from, k) : NULL;
	if (v)
		cJSON_AddItemToObject(to, as, cJSON_Duplicate(v, 1));
}

static cJSON *claude_part(const cJSON *doc)
{
	cJSON *p = cJSON_CreateObject();
	keep(p, doc, "hooks", "hooks");
	keep(p, doc, "disableAllHooks", "disableAllHooks");
	return p;
}

/* Gemini CLI 0.61: "hooks" (the hooks), "hooksConfig" (enabled: false runs none; disabled
 * names hooks that do not run), and security.folderTrust (in a folder it does not trust,
 * Gemini CLI runs no hook at all, the user's included). */
static cJSON *gemini_part(const cJSON *doc)
{
	cJSON *p = cJSON_CreateObject();
	keep(p, doc, "hooks", "hooks");
	keep(p, doc, "hooksConfig", "hooksConfig");
	const cJSON *sec = cJSON_IsObject(doc) ? cJSON_GetObjectItemCaseSensitive(doc, "security") : NULL;
	keep(p, sec, "folderTrust", "security.folderTrust");
	return p;
}

static cJSON *codex_part(const cJSON *doc)
{
	cJSON *p = cJSON_CreateObject();
	keep(p, doc, "hooks", "hooks");
	keep(p, doc, "features", "features");
	const cJSON *mcp = cJSON_IsObject(doc) ? cJSON_GetObjectItemCaseSensitive(doc, "mcp_servers") : NULL;
	keep(p, mcp, "belay", "mcp_servers.belay");
	const cJSON *profiles = cJSON_IsObject(doc) ? cJSON_GetObjectItemCaseSensitive(doc, "profiles") : NULL;
	if (cJSON_IsObject(profiles)) {
		cJSON *pp = cJSON_CreateObject();
		for (const cJSON *prof = profiles->child; prof; prof = prof->next) {
			cJSON *one = cJSON_CreateObject();
			keep(one, prof, "hooks", "hooks");
			keep(one, prof, "features", "features");
			if (one->child)
				cJSON_AddItemToObject(pp, prof->string, one);
			else
				cJSON_Delete(one);
		}
		if (pp->child) /* a profile without hook keys is no hook setting */
			cJSON_AddItemToObject(p, "profiles", pp);
		else
			cJSON_Delete(pp);
	}
	return p;
}

const char *hook_cfgkeys_digest(const char *path, const char *text, size_t len, char out[72])
{
	enum format f = format_of(path);
	if (!text) {
		text = "";
		len = 0;
	}
	cJSON *doc = NULL, *part = NULL;
	if (f == F_CLAUDE_JSON) {
		/* an absent or empty file holds no hook keys */
		doc = len ? cJSON_ParseWithLength(text, len) : cJSON_CreateObject();
		if (cJSON_IsObject(doc))
			part = claude_part(doc);
	} else if (f == F_GEMINI_JSON) {
		/* JSON with comments, as Gemini CLI reads it */
		doc = len ? jx_parse_jsonc(text, len) : cJSON_CreateObject();
		if (cJSON_IsObject(doc))
			part = gemini_part(doc);
	} else if (f == F_CODEX_TOML) {
		struct err e = {0};
		if (toml_parse(text, len, &doc, &e) == 0 && cJSON_IsObject(doc))
			part = codex_part(doc);
	}
	cJSON_Delete(doc);
	if (!part) {
		sha256_tagged(text, len, out);
		return "whole file";
	}
	char *s = jx_print(part);
	sha256_tagged(s, strlen(s), out);
	free(s);
	cJSON_Delete(part);
	return "hook keys";
}
