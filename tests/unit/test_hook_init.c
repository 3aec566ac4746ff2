/* test_hook_init.c - `belay init` in the agents' own configuration files, which already hold
 * foreign hooks: a second init changes nothing (byte for byte), --uninstall leaves exactly
 * what was there (as JSON), --dry-run writes nothing, a file that does not parse is left
 * untouched and named; the installed commands block when belay fails; and the checks
 * `belay status` (and `belay doctor`) make fail on a broken installation. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/jsonx.h"
#include "common/xalloc.h"
#include "hook/hook_install.h"
#include "ts_belay.h"

static char *dir, *proj, *home;

static void setup(void)
{
	dir = ts_tmpdir("hookinit");
	proj = xasprintf("%s/proj", dir);
	home = xasprintf("%s/home", dir);
	ts_sh("mkdir -p '%s/.claude' '%s/.cursor' '%s/.codex' '%s'", proj, proj, proj, home);
}

static void teardown(void)
{
	ts_rmtree(dir);
	free(dir);
	free(proj);
	free(home);
}

TestSuite(hook_init, .init = setup, .fini = teardown, .timeout = 60);

static const struct {
	const char *agent, *rel, *foreign;
} agents[] = {
	{"claude-code", ".claude/settings.json",
	 "{\"permissions\":{\"allow\":[\"Bash(npm test:*)\"]},\"hooks\":{\"PreToolUse\":[{\"matcher\":\"Bash\",\"hooks\":"
	 "[{\"type\":\"command\",\"command\":\"./lint.sh\"}]}],\"Notification\":[{\"hooks\":[{\"type\":\"command\","
	 "\"command\":\"notify-send hi\"}]}]}}"},
	{"cursor", ".cursor/hooks.json",
	 "{\"version\":1,\"hooks\":{\"afterFileEdit\":[{\"command\":\"./format.sh\"}],\"beforeShellExecution\":[{\"command\":"
	 "\"./audit.sh\"}]}}"},
	{"codex", ".codex/hooks.json",
	 "{\"hooks\":{\"Stop\":[{\"hooks\":[{\"type\":\"command\",\"command\":\"say done\",\"timeout\":10}]}]}}"},
};

static int init(const char *agent, const char *extra1, const char *extra2, struct ts_out *o)
{
	char *h = xasprintf("HOME=%s", home);
	const char *env[] = {h, NULL};
	const char *argv[12] = {BELAY_BIN, "init", agent, "--project", proj, "--mode", "enforce"};
	int n = 7;
	if (extra1)
		argv[n++] = extra1;
	if (extra2)
		argv[n++] = extra2;
	argv[n] = NULL;
	ts_run(argv, env, proj, NULL, 0, 30, o);
	free(h);
	return o->status;
}

Test(hook_init, idempotent_and_exact_on_configs_with_foreign_hooks)
{
	for (size_t i = 0; i < sizeof agents / sizeof agents[0]; i++) {
		char *path = xasprintf("%s/%s", proj, agents[i].rel);
		ts_write_file(path, agents[i].foreign, strlen(agents[i].foreign));
		struct ts_out o;
		cr_assert_eq(init(agents[i].agent, "--dry-run", NULL, &o), 0, "%s", o.err);
		cr_expect(strstr(o.out, "would change"), "%s", o.out);
		ts_out_free(&o);
		size_t len;
		char *now = ts_read_file(path, &len);
		cr_expect_str_eq(now, agents[i].foreign, "--dry-run writes nothing");
		free(now);
		cr_assert_eq(init(agents[i].agent, NULL, NULL, &o), 0, "%s", o.err);
		ts_out_free(&o);
		char *once = ts_read_file(path, &len);
		cr_expect(strstr(once, HOOK_MARKER), "%s", once);
		cJSON *j = cJSON_Parse(once);
		cr_assert(j, "the installed file is JSON: %s", once);
		/* foreign hooks are still there, and belay's come first */
		const char *foreign_cmd = i == 0 ? "./lint.sh" : i == 1 ? "./format.sh" : "say done";
		cr_expect(strstr(once, foreign_cmd), "%s lost %s", agents[i].agent, foreign_cmd);
		cJSON_Delete(j);
		cr_assert_eq(init(agents[i].agent, NULL, NULL, &o), 0);
		cr_expect(strstr(o.out, "unchanged"), "%s", o.out);
		ts_out_free(&o);
		char *twice = ts_read_file(path, &len);
		cr_expect_str_eq(twice, once, "%s: a second init changes nothing", agents[i].agent);
		/* status: installed and well-formed */
		char *h = xasprintf("HOME=%s", home);
		const char *env[] = {h, NULL};
		const char *sargv[] = {BELAY_BIN, "status", "--project", proj, "--json", NULL};
		ts_run(sargv, env, proj, NULL, 0, 30, &o);
		cr_expect_eq(o.status, 0, "%s", o.out);
		ts_out_free(&o);
		free(h);
		cr_assert_eq(init(agents[i].agent, "--uninstall", NULL, &o), 0, "%s", o.err);
		ts_out_free(&o);
		char *after = ts_read_file(path, &len);
		cJSON *a = cJSON_Parse(after), *b = cJSON_Parse(agents[i].foreign);
		cr_expect(jx_equal(a, b), "%s: --uninstall removes exactly belay's entries:\n%s\nwas\n%s", agents[i].agent, after,
			  agents[i].foreign);
		cJSON_Delete(a);
		cJSON_Delete(b);
		free(after);
		free(once);
		free(twice);
		free(path);
	}
}

Test(hook_init, a_config_that_does_not_parse_is_left_untouched)
{
	char *path = xasprintf("%s/.claude/settings.json", proj);
	const char *broken = "{\"hooks\": {\"PreToolUse\": [ // a comment JSON does not allow\n]}}";
	ts_write_file(path, broken, strlen(broken));
	struct ts_out o;
	cr_expect_eq(init("claude-code", NULL, NULL, &o), 1);
	cr_expect(strstr(o.err, path) && strstr(o.err, "left untouched"), "%s", o.err);
	ts_out_free(&o);
	size_t len;
	char *now = ts_read_file(path, &len);
	cr_expect_str_eq(now, broken);
	free(now);
	free(path);
}

Test(hook_init, the_installed_command_blocks_when_belay_fails)
{
	struct hook_install_opts opts = {.agent = HA_CLAUDE_CODE, .project = proj, .belay = "/nonexistent/belay",
					 .mode = "enforce"};
	char *cmd = hook_install_command(&opts);
	/* belay missing (127): exit 2, the agents' blocking code, with a reason on stderr */
	struct ts_out o;
	const char *argv[] = {"/bin/sh", "-c", cmd, NULL};
	ts_run(argv, NULL, proj, "{}", 2, 30, &o);
	cr_expect_eq(o.status, 2, "a missing belay blocks: exit %d", o.status);
	cr_expect(strstr(o.err, "belay hook failed") && strstr(o.err, "belay doctor"), "%s", o.err);
	ts_out_free(&o);
	free(cmd);
	/* a belay that dies of a signal */
	char *fake = xasprintf("%s/crash", dir);
	ts_write_file(fake, "#!/bin/sh\nkill -SEGV $$\n", 24);
	chmod(fake, 0755);
	opts.belay = fake;
	cmd = hook_install_command(&opts);
	const char *argv2[] = {"/bin/sh", "-c", cmd, NULL};
	ts_run(argv2, NULL, proj, "{}", 2, 30, &o);
	cr_expect_eq(o.status, 2, "a crashing belay blocks: exit %d", o.status);
	ts_out_free(&o);
	free(cmd);
	free(fake);
}

Test(hook_init, status_fails_on_a_broken_install)
{
	struct ts_out o;
	cr_assert_eq(init("claude-code", NULL, NULL, &o), 0, "%s", o.err);
	ts_out_free(&o);
	char *path = xasprintf("%s/.claude/settings.json", proj);
	char *h = xasprintf("HOME=%s", home);
	const char *env[] = {h, NULL};
	const char *sargv[] = {BELAY_BIN, "status", "--project", proj, NULL};
	/* belay doctor runs the same checks (its project is the cwd) */
	char *state = xasprintf("%s/state", dir);
	const char *dargv[] = {BELAY_BIN, "doctor", "--check", "hooks", "--state", state, NULL};
	ts_run(dargv, env, proj, NULL, 0, 30, &o);
	cr_expect_eq(o.status, 0, "%s", o.out);
	cr_expect(strstr(o.out, "ok    hooks") && strstr(o.out, "claude-code hook(s) run this belay"), "%s", o.out);
	ts_out_free(&o);
	/* the hooks point at a belay that is gone */
	ts_sh("sed -i 's#%s#/gone/belay#g' '%s'", BELAY_BIN, path);
	ts_run(sargv, env, proj, NULL, 0, 30, &o);
	cr_expect_eq(o.status, 1, "%s", o.out);
	cr_expect(strstr(o.out, "PROBLEM") && strstr(o.out, "/gone/belay") && strstr(o.out, "which is not an executable belay"),
		  "%s", o.out);
	ts_out_free(&o);
	ts_run(dargv, env, proj, NULL, 0, 30, &o);
	cr_expect_eq(o.status, 1, "%s", o.out);
	cr_expect(strstr(o.out, "FAIL  hooks") && strstr(o.out, "/gone/belay") && strstr(o.out, "fix: belay init claude-code"),
		  "%s", o.out);
	ts_out_free(&o);
	free(state);
	/* reinstalled, then the wrapper and the timeout taken away */
	cr_assert_eq(init("claude-code", NULL, NULL, &o), 0);
	ts_out_free(&o);
	ts_sh("sed -i -e 's/ || { echo[^}]*}//' -e 's/\"timeout\": 120/\"timeout\": 5/' -e 's/\"onFailure\": \"block\"/\"onFailure\": \"ignore\"/' '%s'",
	      path);
	ts_run(sargv, env, proj, NULL, 0, 30, &o);
	cr_expect_eq(o.status, 1, "%s", o.out);
	cr_expect(strstr(o.out, "is not wrapped to block when belay fails"), "%s", o.out);
	cr_expect(strstr(o.out, "has no timeout above belay's own bound"), "%s", o.out);
	cr_expect(strstr(o.out, "does not set \"onFailure\": \"block\""), "%s", o.out);
	ts_out_free(&o);
	/* a file that does not parse */
	ts_write_file(path, "{nope", 5);
	ts_run(sargv, env, proj, NULL, 0, 30, &o);
	cr_expect_eq(o.status, 1);
	cr_expect(strstr(o.out, "does not parse"), "%s", o.out);
	ts_out_free(&o);
	/* the check itself, as doctor runs it */
	cJSON *c = hook_install_check(HA_CLAUDE_CODE, path, BELAY_BIN);
	cr_expect(!cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(c, "ok")));
	cJSON_Delete(c);
	free(h);
	free(path);
}

/* Gemini CLI's settings.json holds everything else the user set, may hold comments (Gemini
 * CLI reads it as JSON with comments), and its timeouts are milliseconds: belay edits it as
 * text, so --uninstall gives it back byte for byte. */
static const char gemini_user[] =
    "// my Gemini CLI settings\n"
    "{\n"
    "  /* the look */\n"
    "  \"ui\": { \"theme\": \"GitHub\" }, // keep it\n"
    "  \"mcpServers\": { \"fs\": { \"command\": \"npx\", \"args\": [\"-y\", \"fs\"] } },\n"
    "  \"hooks\": {\n"
    "    \"BeforeTool\": [\n"
    "      { \"matcher\": \"write_file\", \"hooks\": [ { \"type\": \"command\", \"command\": \"./lint.sh\", \"timeout\": 5000 } ] }\n"
    "    ],\n"
    "    \"AfterAgent\": []\n"
    "  }\n"
    "}\n";

Test(hook_init, gemini_settings_come_back_byte_for_byte)
{
	ts_sh("mkdir -p '%s/.gemini'", proj);
	char *path = xasprintf("%s/.gemini/settings.json", proj);
	static const char *const cases[] = {gemini_user, "{}", "{\"ui\": {\"theme\": \"x\"}}\n", "// only\n{ }\n"};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		ts_write_file(path, cases[i], strlen(cases[i]));
		struct ts_out o;
		cr_assert_eq(init("gemini-cli", "--dry-run", NULL, &o), 0, "%s", o.err);
		ts_out_free(&o);
		size_t len;
		char *now = ts_read_file(path, &len);
		cr_expect_str_eq(now, cases[i], "--dry-run writes nothing");
		free(now);
		cr_assert_eq(init("gemini-cli", NULL, NULL, &o), 0, "%s", o.err);
		ts_out_free(&o);
		char *once = ts_read_file(path, &len);
		cJSON *j = jx_parse_jsonc(once, len);
		cr_assert(cJSON_IsObject(j), "what Gemini CLI reads (JSON with comments): %s", once);
		/* every event belay needs, its entry first, in milliseconds; the foreign hook kept */
		static const char *const events[] = {"BeforeTool", "AfterTool", "BeforeAgent", "AfterAgent", "SessionStart",
						     "SessionEnd"};
		for (size_t k = 0; k < sizeof events / sizeof events[0]; k++) {
			const cJSON *first = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(
								    cJSON_GetObjectItemCaseSensitive(j, "hooks"), events[k]),
							    0);
			const cJSON *h = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(first, "hooks"), 0);
			cr_expect(jx_str(h, "command") && strstr(jx_str(h, "command"), HOOK_MARKER), "%s: %s", events[k], once);
			long long t = 0;
			cr_expect(jx_int(h, "timeout", 1, 1 << 30, &t) && t == 120000, "%s: timeout %lld ms", events[k], t);
		}
		if (i == 0)
			cr_expect(strstr(once, "./lint.sh") && strstr(once, "// keep it") && strstr(once, "\"fs\""), "%s", once);
		cJSON_Delete(j);
		cr_assert_eq(init("gemini-cli", NULL, NULL, &o), 0);
		cr_expect(strstr(o.out, "unchanged"), "%s", o.out);
		ts_out_free(&o);
		char *twice = ts_read_file(path, &len);
		cr_expect_str_eq(twice, once, "a second init changes nothing");
		char *h = xasprintf("HOME=%s", home);
		const char *env[] = {h, NULL};
		const char *sargv[] = {BELAY_BIN, "status", "--project", proj, NULL};
		ts_run(sargv, env, proj, NULL, 0, 30, &o);
		cr_expect_eq(o.status, 0, "%s", o.out);
		cr_expect(strstr(o.out, "gemini-cli") && strstr(o.out, "ok (6 hooks)"), "%s", o.out);
		ts_out_free(&o);
		free(h);
		cr_assert_eq(init("gemini-cli", "--uninstall", NULL, &o), 0, "%s", o.err);
		ts_out_free(&o);
		char *after = ts_read_file(path, &len);
		cr_expect_str_eq(after, cases[i], "--uninstall gives the file back byte for byte");
		free(after);
		free(once);
		free(twice);
	}
	/* no file: init creates one, --uninstall leaves no belay entry in it */
	unlink(path);
	struct ts_out o;
	cr_assert_eq(init("gemini-cli", "--uninstall", NULL, &o), 0, "%s", o.err);
	ts_out_free(&o);
	cr_expect_neq(access(path, F_OK), 0, "nothing to remove, no file made");
	free(path);
}

Test(hook_init, gemini_settings_gemini_cannot_read_are_left_untouched)
{
	ts_sh("mkdir -p '%s/.gemini'", proj);
	char *path = xasprintf("%s/.gemini/settings.json", proj);
	/* a trailing comma, an empty file: Gemini CLI refuses them too */
	static const char *const bad[] = {"{\"ui\": {},}\n", "", "{\"hooks\": []}\n", "{\"hooks\": {\"BeforeTool\": {}}}\n",
					  "{\"a\": 1} /* belay-hook begin: `belay init gemini-cli --uninstall` removes this */\n"};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		ts_write_file(path, bad[i], strlen(bad[i]));
		struct ts_out o;
		cr_expect_eq(init("gemini-cli", NULL, NULL, &o), 1, "%s", bad[i]);
		cr_expect(strstr(o.err, path) && strstr(o.err, "left untouched"), "%s", o.err);
		ts_out_free(&o);
		size_t len;
		char *now = ts_read_file(path, &len);
		cr_expect_str_eq(now, bad[i]);
		free(now);
	}
	/* --mcp is not for Gemini CLI (its servers are in this file: belay snippet gemini-cli) */
	struct ts_out o;
	cr_expect_eq(init("gemini-cli", "--mcp", NULL, &o), 2, "%s", o.err);
	cr_expect(strstr(o.err, "belay snippet gemini-cli"), "%s", o.err);
	ts_out_free(&o);
	free(path);
}

Test(hook_init, gemini_status_names_what_switches_belay_off)
{
	struct ts_out o;
	cr_assert_eq(init("gemini-cli", NULL, NULL, &o), 0, "%s", o.err);
	ts_out_free(&o);
	char *path = xasprintf("%s/.gemini/settings.json", proj);
	size_t len;
	char *text = ts_read_file(path, &len);
	/* Gemini CLI's own switch, and the timeout in seconds (Gemini reads milliseconds) */
	char *off = xasprintf("{\"hooksConfig\": {\"enabled\": false, \"disabled\": [\"belay\"]}, %s", strchr(text, '{') + 1);
	char *p;
	while ((p = strstr(off, "\"timeout\":120000")) != NULL)
		memcpy(p, "\"timeout\":   120", 16);
	ts_write_file(path, off, strlen(off));
	char *h = xasprintf("HOME=%s", home);
	const char *env[] = {h, NULL};
	const char *sargv[] = {BELAY_BIN, "status", "--project", proj, NULL};
	ts_run(sargv, env, proj, NULL, 0, 30, &o);
	cr_expect_eq(o.status, 1, "%s", o.out);
	cr_expect(strstr(o.out, "hooksConfig.enabled to false"), "%s", o.out);
	cr_expect(strstr(o.out, "lists belay's hook in hooksConfig.disabled"), "%s", o.out);
	cr_expect(strstr(o.out, "Gemini CLI's timeouts are in milliseconds"), "%s", o.out);
	ts_out_free(&o);
	/* belay doctor makes the same checks, each with its fix */
	char *state = xasprintf("%s/state", dir);
	const char *dargv[] = {BELAY_BIN, "doctor", "--check", "hooks", "--state", state, NULL};
	ts_run(dargv, env, proj, NULL, 0, 30, &o);
	cr_expect_eq(o.status, 1, "%s", o.out);
	cr_expect(strstr(o.out, "FAIL  hooks") && strstr(o.out, "hooksConfig.enabled to false") &&
		      strstr(o.out, "fix: belay init gemini-cli"),
		  "%s", o.out);
	ts_out_free(&o);
	free(state);
	free(h);
	free(off);
	free(text);
	free(path);
}
