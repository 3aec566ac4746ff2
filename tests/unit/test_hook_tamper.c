/* test_hook_tamper.c - the protected-file record (hook_tamper.h) compared with the files as
 * they are: an unchanged file is never an alert, whatever its numbers are (an mtime in
 * nanoseconds is above 2^53; an inode number may be too), and a change is. */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/jsonx.h"
#include "common/xalloc.h"
#include "hook/hook_tamper.h"
#include "tsupport.h"

static char *dir;

static void setup(void)
{
	dir = ts_tmpdir("tamper");
}

static void teardown(void)
{
	ts_rmtree(dir);
	free(dir);
}

TestSuite(hook_tamper, .init = setup, .fini = teardown);

static char *program_at(const char *name, time_t sec, long nsec)
{
	char *p = xasprintf("%s/%s", dir, name);
	ts_write_file(p, "#!/bin/sh\n", 10);
	struct timespec t[2] = {{sec, nsec}, {sec, nsec}};
	cr_assert_eq(utimensat(AT_FDCWD, p, t, 0), 0);
	return p;
}

static struct hook_protect *set_of(const char *program)
{
	struct hook_protect *p = hook_protect_new(NULL, NULL, NULL, program);
	cr_assert_geq(p->n, 1);
	return p;
}

/* 1796531767000000200 ns lies between two doubles; printed with 15 digits it reads back as
 * 1796531767000000000, close enough for cJSON to keep the short form. */
Test(hook_tamper, an_untouched_program_is_no_alert_whatever_its_mtime)
{
	static const long nsecs[] = {200, 68131008, 843406871, 999999999, 0, 1};
	for (size_t i = 0; i < sizeof nsecs / sizeof *nsecs; i++) {
		char *name = xasprintf("belay%zu", i);
		char *prog = program_at(name, 1796531767, nsecs[i]);
		struct hook_protect *p = set_of(prog);
		struct err e = {0};
		char *state = xasprintf("%s/state%zu", dir, i);
		cr_assert_eq(hook_tamper_record(p, state, "k", NULL, &e), 0, "%s", e.msg);
		cJSON *alerts = NULL;
		hook_tamper_verify(state, "k", &alerts);
		char *d = alerts ? hook_tamper_describe(alerts) : NULL;
		cr_expect_null(alerts, "mtime %ld ns: %s", nsecs[i], d);
		free(d);
		cJSON_Delete(alerts);
		hook_protect_free(p);
		free(state);
		free(prog);
		free(name);
	}
}

Test(hook_tamper, a_program_touched_by_one_nanosecond_is_an_alert)
{
	char *prog = program_at("belay", 1796531767, 200);
	struct hook_protect *p = set_of(prog);
	struct err e = {0};
	char *state = xasprintf("%s/state", dir);
	cr_assert_eq(hook_tamper_record(p, state, "k", NULL, &e), 0, "%s", e.msg);
	struct timespec t[2] = {{1796531767, 201}, {1796531767, 201}};
	cr_assert_eq(utimensat(AT_FDCWD, prog, t, 0), 0);
	cJSON *alerts = NULL;
	hook_tamper_verify(state, "k", &alerts);
	cr_assert_not_null(alerts, "a changed mtime went unnoticed");
	char *d = hook_tamper_describe(alerts);
	cr_expect(strstr(d, prog) && strstr(d, "changed"), "%s", d);
	free(d);
	cJSON_Delete(alerts);
	hook_protect_free(p);
	free(state);
	free(prog);
}

/* One configuration file at rel under the scratch dir, recorded as `before` (NULL: absent),
 * then rewritten as `after` (NULL: removed): the alerts, described ("" none; new string). */
static char *config_change(const char *rel, const char *before, const char *after)
{
	char *path = xasprintf("%s/%s", dir, rel);
	ts_sh("mkdir -p \"$(dirname '%s')\" && rm -f '%s'", path, path);
	if (before)
		ts_write_file(path, before, strlen(before));
	struct hook_protect_file f = {path, HP_CONFIG};
	struct hook_protect p = {&f, 1};
	struct err e = {0};
	char *state = xasprintf("%s/state-%s", dir, strrchr(rel, '/') ? strrchr(rel, '/') + 1 : rel);
	ts_sh("rm -rf '%s'", state);
	cr_assert_eq(hook_tamper_record(&p, state, "k", NULL, &e), 0, "%s", e.msg);
	/* the agent's way of writing: a new file renamed over the old one */
	if (after) {
		char *tmp = xasprintf("%s.tmp", path);
		ts_write_file(tmp, after, strlen(after));
		cr_assert_eq(rename(tmp, path), 0);
		free(tmp);
	} else {
		unlink(path);
	}
	cJSON *alerts = NULL;
	hook_tamper_verify(state, "k", &alerts);
	char *d = alerts ? hook_tamper_describe(alerts) : xstrdup("");
	cJSON_Delete(alerts);
	free(state);
	free(path);
	return d;
}

#define QUIET(rel, before, after)                                                                                 \
	do {                                                                                                      \
		char *d_ = config_change(rel, before, after);                                                     \
		cr_expect_str_eq(d_, "", "%s: the agent's own write was taken for tampering", rel);               \
		free(d_);                                                                                         \
	} while (0)
#define ALERT(rel, before, after, what)                                                                           \
	do {                                                                                                      \
		char *d_ = config_change(rel, before, after);                                                     \
		cr_expect(strstr(d_, what), "%s: want an alert '%s', got '%s'", rel, what, d_);                   \
		free(d_);                                                                                         \
	} while (0)

static const char hooks_on[] = "{\"hooks\":{\"PreToolUse\":[{\"matcher\":\".*\",\"hooks\":[{\"type\":\"command\","
			       "\"command\":\"belay-hook\"}]}]},\"permissions\":{\"allow\":[]}}";

Test(hook_tamper, claude_codes_own_writes_are_not_tampering)
{
	/* ~/.claude.json: created at the first start, rewritten at every start */
	QUIET("home/.claude.json", NULL, "{\"numStartups\":1,\"projects\":{}}");
	QUIET("home/.claude.json", "{\"numStartups\":1}", "{\"numStartups\":2,\"tipsHistory\":{\"x\":3}}");
	/* a "don't ask again" answer kept beside belay's hooks */
	QUIET("ws/.claude/settings.local.json", NULL, "{\"permissions\":{\"allow\":[\"Bash(npm test)\"]}}");
	QUIET("ws/.claude/settings.json", hooks_on,
	      "{\"permissions\":{\"allow\":[\"Bash(ls)\"]},\"hooks\":{\"PreToolUse\":[{\"matcher\":\".*\",\"hooks\":"
	      "[{\"type\":\"command\",\"command\":\"belay-hook\"}]}]}}");
}

Test(hook_tamper, every_claude_key_that_turns_hooks_off_is_an_alert)
{
	ALERT("ws/.claude/settings.json", hooks_on, "{\"permissions\":{\"allow\":[]}}", "hook settings changed");
	ALERT("ws/.claude/settings.json", hooks_on,
	      "{\"disableAllHooks\":true,\"hooks\":{\"PreToolUse\":[{\"matcher\":\".*\",\"hooks\":[{\"type\":\"command\","
	      "\"command\":\"belay-hook\"}]}]},\"permissions\":{\"allow\":[]}}",
	      "hook settings changed");
	ALERT("ws/.claude/settings.local.json", NULL, "{\"disableAllHooks\":true}", "created with hook settings");
	ALERT("home/.claude.json", "{\"numStartups\":1}", "{\"numStartups\":2,\"disableAllHooks\":true}",
	      "hook settings changed");
	ALERT("ws/.claude/settings.json", hooks_on, NULL, "removed");
	/* what does not parse is compared whole */
	ALERT("ws/.claude/settings.json", hooks_on, "{\"hooks\": oops", "changed");
}

static const char codex_cfg[] = "model = \"gpt-test\"\n\n[features]\ncodex_hooks = true\n\n"
				"# belay-mcp begin\n[mcp_servers.belay]\ncommand = \"/usr/bin/belay\"\nargs = [\"connect\"]\n"
				"# belay-mcp end\n";

Test(hook_tamper, codex_config_is_compared_by_its_hook_keys)
{
	char *trusted = xasprintf("%s\n[projects.\"/work/p\"]\ntrust_level = \"trusted\"\n\n[notice]\nhide_x = true\n", codex_cfg);
	QUIET("home/.codex/config.toml", codex_cfg, trusted);
	QUIET("home/.codex/config.toml", NULL, "[projects.\"/work/p\"]\ntrust_level = \"trusted\"\n");
	char *fast = xasprintf("%s\n[profiles.fast]\nmodel = \"gpt-x\"\n", codex_cfg);
	QUIET("home/.codex/config.toml", codex_cfg, fast);
	free(fast);
	free(trusted);
	char *off = xasprintf("model = \"gpt-test\"\n\n[features]\ncodex_hooks = false\n\n[mcp_servers.belay]\n"
			      "command = \"/usr/bin/belay\"\nargs = [\"connect\"]\n");
	ALERT("home/.codex/config.toml", codex_cfg, off, "hook settings changed");
	free(off);
	char *prof = xasprintf("%s\n[profiles.quiet.features]\ncodex_hooks = false\n", codex_cfg);
	ALERT("home/.codex/config.toml", codex_cfg, prof, "hook settings changed");
	free(prof);
	char *hk = xasprintf("%s\n[hooks]\nPreToolUse = []\n", codex_cfg);
	ALERT("home/.codex/config.toml", codex_cfg, hk, "hook settings changed");
	free(hk);
	ALERT("home/.codex/config.toml", codex_cfg, "model = \"gpt-test\"\n[features]\ncodex_hooks = true\n",
	      "hook settings changed");
	ALERT("home/.codex/config.toml", codex_cfg, "[features\ncodex_hooks = true\n", "changed");
}

Test(hook_tamper, a_hooks_json_is_compared_byte_for_byte)
{
	static const char h[] = "{\"version\":1,\"hooks\":{\"beforeShellExecution\":[{\"command\":\"belay-hook\"}]}}";
	QUIET("ws/.cursor/hooks.json", h, h);
	ALERT("ws/.cursor/hooks.json", h, "{\"version\":1,\"hooks\":{}}", "changed");
	ALERT("home/.codex/hooks.json", NULL, h, "created");
}

Test(hook_tamper, a_record_of_another_format_is_an_alert)
{
	char *state = xasprintf("%s/state", dir);
	struct hook_protect p = {NULL, 0};
	struct err e = {0};
	cr_assert_eq(hook_tamper_record(&p, state, "k", NULL, &e), 0, "%s", e.msg);
	ts_sh("for f in '%s'/protect/*.json; do sed -i 's/\"format\":2/\"format\":1/' \"$f\"; done", state);
	cJSON *alerts = NULL;
	hook_tamper_verify(state, "k", &alerts);
	char *d = alerts ? hook_tamper_describe(alerts) : xstrdup("");
	cr_expect(strstr(d, "another version of belay"), "%s", d);
	free(d);
	cJSON_Delete(alerts);
	free(state);
}

/* Gemini CLI's settings.json (read as JSON with comments): its hook switches are "hooks",
 * "hooksConfig" and security.folderTrust; its other keys (model, UI, auth, MCP servers)
 * change all the time. The same name in .claude/ is Claude Code's, with other keys. */
static const char gemini_on[] =
    "// user settings\n{\"ui\": {\"theme\": \"dark\"}, /* mine */\n \"hooks\": {\"BeforeTool\": [{\"matcher\": \"*\", \"hooks\": "
    "[{\"type\": \"command\", \"name\": \"belay\", \"command\": \"belay-hook gemini-cli # belay-hook\"}]}]}}\n";

Test(hook_tamper, gemini_settings_are_compared_by_their_hook_keys)
{
	char *theme = xstrdup(gemini_on);
	memcpy(strstr(theme, "dark"), "lite", 4);
	QUIET("ws/.gemini/settings.json", gemini_on, theme);
	free(theme);
	char *more = xasprintf("%.*s, \"security\": {\"auth\": {\"selectedType\": \"gemini-api-key\"}}, \"model\": {\"name\": "
			       "\"gemini-3\"}}\n",
			       (int)(strrchr(gemini_on, '}') - gemini_on), gemini_on);
	QUIET("home/.gemini/settings.json", gemini_on, more);
	free(more);
	/* Claude Code's disableAllHooks means nothing to Gemini CLI ... */
	char *claude_key = xasprintf("%.*s, \"disableAllHooks\": true}\n", (int)(strrchr(gemini_on, '}') - gemini_on),
				     gemini_on);
	QUIET("ws/.gemini/settings.json", gemini_on, claude_key);
	/* ... and is an alert in Claude Code's file of the same name */
	ALERT("ws/.claude/settings.json", hooks_on,
	      "{\"hooks\":{\"PreToolUse\":[{\"matcher\":\".*\",\"hooks\":[{\"type\":\"command\",\"command\":\"belay-hook\"}]}]},"
	      "\"permissions\":{\"allow\":[]},\"disableAllHooks\":true}",
	      "hook settings changed");
	free(claude_key);
	/* Gemini CLI's own switches */
	char *off = xasprintf("%.*s, \"hooksConfig\": {\"enabled\": false}}\n", (int)(strrchr(gemini_on, '}') - gemini_on),
			      gemini_on);
	ALERT("ws/.gemini/settings.json", gemini_on, off, "hook settings changed");
	free(off);
	char *dis = xasprintf("%.*s, \"hooksConfig\": {\"disabled\": [\"belay\"]}}\n",
			      (int)(strrchr(gemini_on, '}') - gemini_on), gemini_on);
	ALERT("home/.gemini/settings.json", gemini_on, dis, "hook settings changed");
	free(dis);
	char *trust = xasprintf("%.*s, \"security\": {\"folderTrust\": {\"enabled\": true}}}\n",
				(int)(strrchr(gemini_on, '}') - gemini_on), gemini_on);
	ALERT("home/.gemini/settings.json", gemini_on, trust, "hook settings changed");
	free(trust);
	ALERT("ws/.gemini/settings.json", gemini_on, "// user settings\n{\"ui\": {\"theme\": \"dark\"}}\n",
	      "hook settings changed");
	ALERT("ws/.gemini/settings.json", NULL, "{\"hooksConfig\": {\"enabled\": false}}", "created with hook settings");
	/* plain JSON too: read as Claude Code's, this change would be quiet (no "hooks" changed) */
	ALERT("ws/.gemini/settings.json", "{\"hooks\": {}}", "{\"hooks\": {}, \"hooksConfig\": {\"enabled\": false}}",
	      "hook settings changed");
	/* what does not parse (a trailing comma, which Gemini CLI refuses too) is compared whole */
	ALERT("ws/.gemini/settings.json", gemini_on, "{\"ui\": {},}", "changed");
}
