/* test_hook_codex.c - the real Codex CLI (pinned in tests/peers, its native binary run
 * directly) with the hooks `belay init codex --global` installs, offline against a local
 * stand-in for the Responses API (tests/fixtures/fake_responses_api.py) that answers with
 * scripted function calls. Codex sends its shell as "Bash" with the output as one string;
 * it takes no "ask" and no rewritten command (either is a failed hook, and it runs the
 * command), so what belay asks about is refused there, saying why; a missing belay blocks. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/jsonx.h"
#include "common/xalloc.h"
#include "ts_belay.h"
#include "ts_hook.h"

static char *peers;

static void setup(void)
{
	peers = ts_peers();
	cr_assert_not_null(peers, "npm test peers missing: run scripts/setup.sh (npm ci in tests/peers)");
}

static void teardown(void)
{
	free(peers);
}

TestSuite(hook_codex, .init = setup, .fini = teardown, .timeout = 240);

/* HOME with Codex's configuration: the fake provider, and belay's hooks (init --global). */
static char *codex_home(const struct ts_world *w, const struct ts_api *a)
{
	char *home = xasprintf("%s/home", w->dir);
	char *cfg = xasprintf("%s/.codex/config.toml", home);
	ts_sh("mkdir -p '%s/.codex'", home);
	char *toml = xasprintf("model = \"gpt-test\"\nmodel_provider = \"fake\"\n[model_providers.fake]\nname = \"fake\"\n"
			       "base_url = \"http://127.0.0.1:%d/v1\"\nenv_key = \"FAKE_KEY\"\nwire_api = \"responses\"\n",
			       a->port);
	ts_write_file(cfg, toml, strlen(toml));
	char *h = xasprintf("HOME=%s", home);
	const char *env[] = {h, NULL};
	struct ts_out o;
	const char *argv[] = {BELAY_BIN, "init", "codex", "--global", "--mode", "enforce", "--state", w->state, NULL};
	ts_run(argv, env, w->ws, NULL, 0, 30, &o);
	cr_assert_eq(o.status, 0, "belay init codex: %s", o.err);
	ts_out_free(&o);
	free(h);
	free(toml);
	free(cfg);
	return home;
}

static void codex(const struct ts_world *w, const char *home, const char *const *extra_env)
{
	char *bin = xasprintf("%s/@openai/codex-linux-x64/vendor/x86_64-unknown-linux-musl/bin/codex", peers);
	char *h = xasprintf("HOME=%s", home), *ch = xasprintf("CODEX_HOME=%s/.codex", home);
	char *rt = xasprintf("XDG_RUNTIME_DIR=%s", w->runtime), *path = xasprintf("PATH=%s", getenv("PATH"));
	const char *argv[32] = {"/usr/bin/env", "-i", h, ch, rt, path, "USER=root", "LOGNAME=root", "SHELL=/bin/bash",
				"TERM=xterm", "FAKE_KEY=x"};
	int n = 11;
	for (const char *const *x = extra_env; x && *x; x++)
		argv[n++] = *x;
	const char *tail[] = {bin, "exec", "--skip-git-repo-check", "--dangerously-bypass-approvals-and-sandbox",
			      "--dangerously-bypass-hook-trust", "fix it", NULL};
	for (int i = 0; tail[i]; i++)
		argv[n++] = tail[i];
	argv[n] = NULL;
	struct ts_out o;
	ts_run(argv, NULL, w->ws, NULL, 0, 180, &o);
	cr_assert(!o.timed_out, "codex timed out: %s", o.err);
	cr_assert_eq(o.status, 0, "codex exited %d: %s", o.status, o.err);
	ts_out_free(&o);
	free(bin);
	free(h);
	free(ch);
	free(rt);
	free(path);
}

Test(hook_codex, a_real_codex_session_is_recorded_gated_and_verified)
{
	struct ts_world w;
	ts_world_setup(&w, "codex");
	char *victim = xasprintf("%s/precious", w.dir);
	ts_sh("mkdir -p '%s' && echo keep > '%s/a'", victim, victim);
	char *script = xasprintf("[{\"call\":\"exec_command\",\"arguments\":{\"cmd\":\"echo hi > made.txt; echo done\"}},"
				 "{\"call\":\"exec_command\",\"arguments\":{\"cmd\":\"rm -rf %s\"}},"
				 "{\"text\":\"All done.\"}]",
				 victim);
	struct ts_api a;
	ts_api_start(&a, &w, "fake_responses_api.py", script);
	char *home = codex_home(&w, &a);
	static const char *const env[] = {"BELAY_HOOKD=0", NULL};
	codex(&w, home, env);
	ts_api_stop(&a);
	char *made = xasprintf("%s/made.txt", w.ws);
	cr_expect_eq(access(made, F_OK), 0, "the benign command ran");
	struct stat st;
	cr_expect(stat(victim, &st) == 0, "the asked rm was refused (Codex cannot ask) and never ran");
	char *rows = ts_sql_dump(w.db, "SELECT turn, tool, status, decision, outcome FROM turns t JOIN runs r ON r.id = t.run "
				       "WHERE r.agent = 'codex' ORDER BY turn");
	char *tripped = ts_world_tripped(&w);
	cr_expect_str_eq(rows, "0|Bash|answered|allow_flagged|passed\n1|Bash|unanswered|ask|refused (Codex cannot ask)\n",
			 "protected-file trips: %s", tripped);
	cr_expect_str_eq(tripped, "", "Codex's own writes tripped belay's protected-file check");
	free(tripped);
	free(rows);
	char *trace = ts_sql_dump(w.db, "SELECT trace_path FROM runs WHERE agent = 'codex'");
	*strchr(trace, '\n') = '\0';
	size_t len;
	char *text = ts_read_file(trace, &len);
	cr_expect(strstr(text, "Codex cannot ask, so belay refuses") == NULL, "the reason is in the answer, not the trace");
	cr_expect(strstr(text, "\"kind\":\"claim\",\"text\":\"All done.\""), "the Stop event's message is the claim");
	free(text);
	struct ts_out o;
	ts_belay(&o, NULL, "verify", trace, NULL);
	cr_expect(strstr(o.out, "turn 0    Bash                         PASS"), "%s", o.out);
	cr_expect(strstr(o.out, "the recorded output and outcome reproduce"), "%s", o.out);
	ts_out_free(&o);
	free(trace);
	free(made);
	free(home);
	free(script);
	free(victim);
	ts_world_teardown(&w);
}

Test(hook_codex, a_missing_belay_blocks)
{
	struct ts_world w;
	ts_world_setup(&w, "codexfail");
	char *script = xasprintf("[{\"call\":\"exec_command\",\"arguments\":{\"cmd\":\"touch ran.txt\"}},{\"text\":\"done\"}]");
	struct ts_api a;
	ts_api_start(&a, &w, "fake_responses_api.py", script);
	char *home = codex_home(&w, &a);
	char *hooks = xasprintf("%s/.codex/hooks.json", home);
	ts_sh("sed -i -e \"s#'%s-hook' #'/gone/belay-hook' #g\" -e \"s#'%s' hook #'/gone/belay' hook #g\" '%s'", BELAY_BIN,
	      BELAY_BIN, hooks);
	codex(&w, home, NULL);
	ts_api_stop(&a);
	char *ran = xasprintf("%s/ran.txt", w.ws);
	cr_expect_neq(access(ran, F_OK), 0, "belay missing: Codex must not run the command");
	free(ran);
	free(hooks);
	free(home);
	free(script);
	ts_world_teardown(&w);
}
