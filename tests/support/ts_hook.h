/* ts_hook.h - the hook tests' scratch world and a scripted session driver.
 *
 * A world: a scratch directory with a workspace (a git checkout: ws/.git), belay's state
 * and traces, and a private XDG_RUNTIME_DIR (so no console or helper of anyone else is
 * reached). Every `belay hook` runs as the agent runs it: one process per event, the event
 * on stdin, the project directory as cwd.
 *
 * The driver plays an agent session event by event the way Claude Code sends them (the
 * payload shapes of agent-hooks.md, with the fields the real CLI adds), performing each
 * tool's real effect in the workspace between the pre and the post event, and only when
 * belay's answer lets the call through. */
#ifndef BELAY_TESTS_TS_HOOK_H
#define BELAY_TESTS_TS_HOOK_H
#include <cjson/cJSON.h>
#include <sys/types.h>

#include "tsupport.h"

struct ts_world {
	char *dir, *ws, *state, *traces, *runtime, *db;
};

void ts_world_setup(struct ts_world *w, const char *tag);
void ts_world_teardown(struct ts_world *w);
/* Writes text at rel under the workspace (directories made). */
void ts_world_put(const struct ts_world *w, const char *rel, const char *text);
/* The login workspace of the hook tests: login.py with its bug, tests/test_login.py (plain
 * asserts, ts_login_test_py) and run_tests.py (exit 1 when a test fails). */
void ts_world_login(const struct ts_world *w);
extern const char ts_login_test_py[];
/* What the world's protected-file checks are tripped with: the text of every
 * STATE/protect/ file ending in .tripped, "" when none is (new string). For failure messages. */
char *ts_world_tripped(const struct ts_world *w);

/* Runs `belay hook AGENT --state S --trace-dir T [flags...]` with the payload on stdin,
 * in the workspace, the world's runtime dir, no helper (BELAY_HOOKD=0) unless flags ask
 * otherwise through env (extra "K=V" strings, may be NULL). Returns the exit status. */
int ts_hook(const struct ts_world *w, const char *agent, const char *const *flags, const char *const *env,
	    const char *payload, struct ts_out *out);

/* A fake model API of tests/fixtures (fake_messages_api.py for Claude Code,
 * fake_responses_api.py for Codex) serving a script (JSON: one list of content blocks per
 * answer) on 127.0.0.1:port, its log in the world's api.log. */
struct ts_api {
	pid_t pid;
	int in; /* closing it stops the server */
	int port;
};
void ts_api_start(struct ts_api *a, const struct ts_world *w, const char *fixture, const char *script_json);
void ts_api_stop(struct ts_api *a);

/* A session driver (Claude Code's shapes). */
struct ts_driver {
	const struct ts_world *w;
	const char *agent;         /* "claude-code" (default) or "codex" */
	const char *const *flags;  /* extra `belay hook` flags (e.g. --mode enforce) */
	const char *const *env;    /* extra "K=V": for `belay hook`, and for the Bash commands run */
	char session[64];
	int next_id;
	/* the last pre event's answer */
	struct ts_out pre;
	int allowed;               /* the call went ahead (no ask, no deny) */
	char decision[16];         /* "" none, "ask", "deny" */
	char *updated;             /* the updatedInput command, when rewritten (owned) */
	/* ts_driver_install: the command `belay init` installed, which every event is then sent
	 * to (sh -c, stdin JSON, as Claude Code runs it) instead of `belay hook` (owned) */
	char *installed;
	char *home;                /* HOME for the installed command (owned) */
	/* Run after a let-through Bash command and before its post event (may be NULL): what
	 * happens meanwhile outside belay's sight. */
	void (*between)(struct ts_driver *d, void *ctx);
	void *between_ctx;
};

void ts_driver_start(struct ts_driver *d, const struct ts_world *w, const char *session);
void ts_driver_free(struct ts_driver *d);
/* `belay init claude-code --project WS --mode enforce --state S [extra...]` with HOME at
 * <world>/home (asserted to succeed), then every later event of d goes to the PreToolUse
 * command it installed in WS/.claude/settings.json (the same command serves every event),
 * run by /bin/sh in the workspace with CLAUDE_PROJECT_DIR set, as Claude Code runs it. */
void ts_driver_install(struct ts_driver *d, const char *const *extra);
/* A non-tool event: SessionStart, UserPromptSubmit (extra: {"prompt":...}), SessionEnd... */
void ts_drive_event(struct ts_driver *d, const char *event, const char *extra_json);
/* Bash: the pre event; when let through, the command run by sh in the workspace (the
 * rewritten one when belay rewrote it) and PostToolUse (stdout, stderr, interrupted) or
 * PostToolUseFailure ("Exit code N"). Returns the command's exit status, or -1 when it did
 * not run. */
int ts_drive_bash(struct ts_driver *d, const char *command);
/* Edit of a file under the workspace (old -> new, first occurrence); Write. Return 0 when
 * done, -1 when refused. */
int ts_drive_edit(struct ts_driver *d, const char *rel, const char *old_s, const char *new_s);
int ts_drive_write(struct ts_driver *d, const char *rel, const char *content);
/* Read (recorded, not re-executed by verify). */
int ts_drive_read(struct ts_driver *d, const char *rel);
/* Stop with the agent's final message. */
void ts_drive_stop(struct ts_driver *d, const char *message);

/* The session's trace (new string), asserting there is exactly one run of it. */
char *ts_session_trace(const struct ts_world *w, const struct ts_driver *d);

#endif
