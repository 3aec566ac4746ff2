/* cmd_hook.c - `belay hook claude-code|cursor|codex|gemini-cli`: one process per hook event. Reads the
 * agent's hook JSON on stdin, hands it to a running console (or the resident helper) when
 * there is one, else handles it itself, and answers on stdout as the agent's protocol
 * expects (docs/HOOKS.md). Every failure answers with the agent's deny form: the wrapper
 * `belay init` installs turns a crash or a missing belay into a block too. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/cli_spec.h"
#include "common/buf.h"
#include "common/fsutil.h"
#include "common/paths.h"
#include "common/xalloc.h"
#include "hook/hook_answer.h"
#include "hook/hook_client.h"
#include "hook/hook_helper.h"
#include "hook/hook_protect.h"
#include "hook/hook_session.h"
#include "hook/hook_tamper.h"

#define STDIN_MAX ((size_t)256 << 20)

static const struct cli_opt hook_opts[] = {
	{"mode", 'M', 0, "audit|enforce",
	 "audit (default) records what the gate would do and answers nothing; enforce answers ask or deny"},
	{"contain", 'C', 0, NULL, "run shell commands under `belay exec` (Claude Code, Gemini CLI)"},
	{"network", 'N', 0, "deny|allow", "the contained shell's network (default deny)"},
	{"root", 'r', 0, "DIR",
	 "the project root (default: $CLAUDE_PROJECT_DIR, the workspace root the agent names, or the git checkout "
	 "around its cwd)"},
	CLI_OPT_STATE,
	{"trace-dir", 't', 0, "DIR", "where runs are recorded (default STATE/traces)"},
	{"policy", 'P', 0, "FILE", "the tool-call policy for mcp__* tools (docs/GATE.md)"},
	{"socket", 'S', 0, "PATH", "the console's socket (default: the console's default)"},
	{"local", 'L', 0, NULL, "handle the event in this process (no console, no helper)"},
	{"hold", 'H', 0, "SECONDS", "longest wait for an answer in the console (default 60)"},
	{"no-trial", 'T', 0, NULL,
	 "enforce mode: ask about a shell command whose only unknown effect is a local program without trying it "
	 "in a disposable mirror of the workspace first (docs/TRY.md)"},
	CLI_OPT_END,
};

const struct cli_cmd cli_hook = {
	.name = "hook",
	.summary = "handle one hook event of Claude Code, Cursor, Codex or Gemini CLI (the agent runs this)",
	.synopsis = "claude-code|cursor|codex|gemini-cli [options] | rearm [--project DIR | --global] [--state DIR]",
	.about = "Reads one hook event on stdin, records it into the session's run, gates tool calls and answers "
		 "on stdout in the agent's own form. belay never answers an explicit allow. The agent runs this; "
		 "`belay init` installs it (docs/HOOKS.md).",
	.opts = hook_opts,
};

static int write_reply(const struct hook_reply *rp)
{
	if (rp->out.len)
		fs_write_all(1, rp->out.p, rp->out.len);
	if (rp->err.len)
		fs_write_all(2, rp->err.p, rp->err.len);
	return rp->exit_code;
}

/* A failure before the event could be read: the deny form (the event is unknown). */
static int fail_closed(enum hook_agent agent, const char *fmt, const char *arg)
{
	char cause[600];
	snprintf(cause, sizeof cause, fmt, arg);
	struct hook_reply rp = {0};
	hook_answer_failure(agent, NULL, 0, cause, &rp.out, &rp.err, &rp.exit_code);
	int code = write_reply(&rp);
	hook_reply_free(&rp);
	return code;
}

/* `belay hook rearm [--project DIR | --global] [--state DIR]`: a person's answer to a
 * protected-file alert (docs/HOOKS.md): the trip is lifted and the protected set recorded as
 * it is now. The gate refuses it from an agent's shell (it runs belay). */
static int hook_rearm(int argc, char **argv)
{
	const char *project = ".", *state = NULL;
	int global = 0;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--project") && i + 1 < argc)
			project = argv[++i];
		else if (!strcmp(argv[i], "--state") && i + 1 < argc)
			state = argv[++i];
		else if (!strcmp(argv[i], "--global"))
			global = 1;
		else if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			printf("usage: belay hook rearm [--project DIR | --global] [--state DIR]\n\n"
			       "After belay's protected files changed without belay (an alert: every tool call of the\n"
			       "project's hook sessions is refused), check them (`belay status`, re-run `belay init`),\n"
			       "then rearm: the files are recorded as they are now and the calls go on.\n");
			return 0;
		} else
			return cli_fail("hook rearm: unknown or incomplete option '%s' (belay hook rearm --help)", argv[i]);
	}
	const char *home = getenv("HOME");
	char *root = global ? NULL : realpath(project, NULL);
	if (!global && !root)
		return cli_fail("hook rearm: %s is not a directory", project);
	if (global && !home)
		return cli_fail("hook rearm: --global needs $HOME");
	char *sd = paths_state_dir(state);
	cJSON *was = NULL, *rec = NULL;
	struct err e = {0};
	int rc = hook_tamper_rearm_project(root, home, sd, &was, &rec, &e);
	if (rc == 0) {
		char *d = was ? hook_tamper_describe(was) : NULL;
		printf("%s\n", d ? "rearmed after the alert:" : "not tripped; recorded anew:");
		if (d)
			printf("  %s\n", cli_safe(d));
		const cJSON *files = cJSON_GetObjectItemCaseSensitive(rec, "files");
		for (const cJSON *f = files ? files->child : NULL; f; f = f->next)
			if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(f, "exists")))
				printf("  recorded %s (%s)\n",
				       cli_safe(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(f, "path"))),
				       cli_safe(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(f, "role"))));
		free(d);
	} else {
		fprintf(stderr, "belay: hook rearm: %s\n", cli_safe(e.msg));
	}
	cJSON_Delete(rec);
	cJSON_Delete(was);
	free(sd);
	free(root);
	return rc ? 1 : 0;
}

int cmd_hook(int argc, char **argv)
{
	struct cli_parse P;
	cli_parse_init(&cli_hook, &P, 1);
	if (argc >= 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
		cli_help(&cli_hook, stdout);
		return 0;
	}
	if (argc >= 2 && !strcmp(argv[1], "rearm"))
		return hook_rearm(argc - 1, argv + 1);
	enum hook_agent agent = HA_CLAUDE_CODE;
	if (argc < 2 || hook_agent_parse(argv[1], &agent) != 0)
		return fail_closed(HA_CLAUDE_CODE, "belay hook needs the agent: claude-code, cursor, codex or gemini-cli (got '%s')",
				   argc >= 2 ? argv[1] : "");
	struct hook_request rq = {.agent = agent, .mode = ADMISSION_AUDIT, .hold_ms = HOOK_HOLD_MS_DEFAULT};
	const char *state = NULL, *trace_dir = getenv("BELAY_TRACE_DIR"), *socket = NULL;
	int local = getenv("BELAY_HOOK_LOCAL") && *getenv("BELAY_HOOK_LOCAL") && strcmp(getenv("BELAY_HOOK_LOCAL"), "0");
	int c;
	optind = 2;
	opterr = 0;
	while ((c = cli_getopt(&P, argc, argv)) != -1) {
		switch (c) {
		case 'M':
			if (admission_parse_mode(optarg, &rq.mode) || rq.mode == ADMISSION_OFF)
				return fail_closed(agent, "belay hook: --mode must be audit or enforce, not '%s'", optarg);
			break;
		case 'C': rq.contain = 1; break;
		case 'N': {
			struct err e = {0};
			if (sandbox_parse_network(optarg, &rq.net, &e))
				return fail_closed(agent, "belay hook: %s", e.msg);
			break;
		}
		case 'r': rq.root = optarg; break;
		case 's': state = optarg; break;
		case 't': trace_dir = optarg; break;
		case 'P': rq.policy_file = optarg; break;
		case 'S': socket = optarg; break;
		case 'L': local = 1; break;
		case 'T': rq.no_trial = 1; break;
		case 'H': {
			char *end;
			double s = strtod(optarg, &end);
			if (*end || s < 0 || s > 3600)
				return fail_closed(agent, "belay hook: --hold takes seconds (0-3600), not '%s'", optarg);
			rq.hold_ms = (unsigned)(s * 1000);
			break;
		}
		case 'h': cli_help(&cli_hook, stdout); return 0;
		default: return fail_closed(agent, "belay hook: unknown or incomplete option '%s'", argv[optind - 1]);
		}
	}
	if (optind < argc)
		return fail_closed(agent, "belay hook: unexpected argument '%s'", argv[optind]);
	struct buf in = {0};
	struct err e = {0};
	if (fs_read_fd(0, STDIN_MAX, &in, &e) != 0) {
		buf_free(&in);
		return fail_closed(agent, "cannot read the hook event on stdin: %s", e.msg);
	}
	char *sd = paths_state_dir(state);
	char *td = trace_dir && *trace_dir ? xstrdup(trace_dir) : fs_join(sd, "traces");
	char *root_abs = rq.root ? realpath(rq.root, NULL) : NULL;
	if (rq.root && !root_abs) {
		free(sd);
		free(td);
		buf_free(&in);
		return fail_closed(agent, "belay hook: --root %s is not a directory", rq.root);
	}
	if (root_abs)
		rq.root = root_abs;
	char *pol = rq.policy_file ? realpath(rq.policy_file, NULL) : NULL;
	if (pol)
		rq.policy_file = pol;
	rq.state_dir = sd;
	rq.trace_dir = td;
	rq.project_dir = getenv("CLAUDE_PROJECT_DIR");
	rq.home = getenv("HOME");
	rq.belay = paths_self_exe();
	rq.payload = in.p ? in.p : "";
	rq.len = in.len;
	struct hook_reply rp = {0};
	hook_client_handle(&rq, socket, !local, &rp);
	int code = write_reply(&rp);
	hook_reply_free(&rp);
	buf_free(&in);
	free(sd);
	free(td);
	free(root_abs);
	free(pol);
	return code;
}

/* `belay __hookd`: the resident helper (started by `belay hook`, never by hand). */
int cmd_hookd(int argc, char **argv)
{
	return hook_helper_main(argc, argv);
}
