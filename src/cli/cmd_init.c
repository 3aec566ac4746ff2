/* cmd_init.c - `belay init claude-code|cursor|codex`: installs (or removes) belay's hooks in
 * the agent's own configuration (docs/HOOKS.md). */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "common/buf.h"
#include "common/paths.h"
#include "common/xalloc.h"
#include "hook/hook_install.h"

static const char init_usage[] =
	"usage: belay init claude-code|cursor|codex [--project DIR | --global] [--mode audit|enforce]\n"
	"                  [--contain [--network deny|allow]] [--state DIR] [--mcp] [--dry-run] [--uninstall]\n"
	"\n"
	"Installs belay's hooks into the agent's configuration: Claude Code .claude/settings.json,\n"
	"Cursor .cursor/hooks.json, Codex .codex/hooks.json (the project's, by default the current\n"
	"directory, or with --global the home directory's). Foreign hooks are kept; a second init\n"
	"changes nothing; --uninstall removes exactly belay's entries. A file that does not parse is\n"
	"left untouched (exit 1). --mcp also adds the `belay connect` MCP server entry.\n"
	"Every hook is wrapped so that a failing or missing belay blocks the call (docs/HOOKS.md).\n";

int cmd_init(int argc, char **argv)
{
	static const struct option opts[] = {
		{"project", required_argument, NULL, 'p'}, {"global", no_argument, NULL, 'g'},
		{"mode", required_argument, NULL, 'M'},	   {"contain", no_argument, NULL, 'C'},
		{"network", required_argument, NULL, 'N'}, {"state", required_argument, NULL, 's'},
		{"mcp", no_argument, NULL, 'm'},	   {"dry-run", no_argument, NULL, 'n'},
		{"uninstall", no_argument, NULL, 'u'},	   {"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	if (argc >= 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
		fputs(init_usage, stdout);
		return 0;
	}
	struct hook_install_opts o = {0};
	if (argc < 2 || hook_agent_parse(argv[1], &o.agent) != 0)
		return cli_fail("init: name the agent: claude-code, cursor or codex (belay init --help)");
	const char *project = NULL;
	int c;
	optind = 2;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+h", opts, NULL)) != -1) {
		switch (c) {
		case 'p': project = optarg; break;
		case 'g': o.global = 1; break;
		case 'M':
			if (strcmp(optarg, "audit") && strcmp(optarg, "enforce"))
				return cli_fail("init: --mode must be audit or enforce, not '%s'", optarg);
			o.mode = optarg;
			break;
		case 'C': o.contain = 1; break;
		case 'N':
			if (strcmp(optarg, "deny") && strcmp(optarg, "allow"))
				return cli_fail("init: --network must be deny or allow, not '%s'", optarg);
			o.network = optarg;
			break;
		case 's': o.state = optarg; break;
		case 'm': o.mcp = 1; break;
		case 'n': o.dry_run = 1; break;
		case 'u': o.uninstall = 1; break;
		case 'h': fputs(init_usage, stdout); return 0;
		default: return cli_fail("init: unknown or incomplete option '%s' (belay init --help)", argv[optind - 1]);
		}
	}
	if (optind < argc)
		return cli_fail("init: unexpected argument '%s'", argv[optind]);
	if (project && o.global)
		return cli_fail("init: --project and --global exclude each other");
	if (o.contain && o.agent != HA_CLAUDE_CODE)
		return cli_fail("init: --contain needs an agent that runs the command belay rewrites: Claude Code. %s",
				o.agent == HA_CODEX ? "Codex (0.171) ignores a rewritten command and runs the original"
						    : "Cursor cannot rewrite a command");
	if (o.network && !o.contain)
		return cli_fail("init: --network is the contained shell's (it needs --contain)");
	char *proj = realpath(project ? project : ".", NULL);
	if (!proj && !o.global)
		return cli_fail("init: %s is not a directory", project ? project : ".");
	struct err se = {0};
	if (o.state && !o.dry_run && paths_ensure_state_dir(o.state, &se) != 0) {
		free(proj);
		return cli_fail("init: %s", se.msg);
	}
	char *state = o.state ? realpath(o.state, NULL) : NULL;
	if (o.state && !state) {
		free(proj);
		return cli_fail("init: --state %s is not a directory", o.state);
	}
	if (state)
		o.state = state;
	o.project = o.global ? NULL : proj;
	o.home = getenv("HOME");
	o.belay = paths_self_exe();
	/* the small hook client beside belay, when it was built and installed with it */
	char *client = xasprintf("%.*s/belay-hook", (int)(strrchr(o.belay, '/') - o.belay), o.belay);
	if (access(client, X_OK) == 0)
		o.client = client;
	if (o.global && !o.home) {
		free(client);
		free(proj);
		free(state);
		return cli_fail("init: --global needs $HOME");
	}
	struct buf report = {0};
	struct err e = {0};
	int rc = hook_install(&o, &report, &e);
	fputs(buf_cstr(&report), stdout);
	buf_free(&report);
	free(client);
	free(proj);
	free(state);
	if (rc) {
		fprintf(stderr, "belay: init: %s\n", e.msg);
		return rc == BELAY_EUSAGE ? EXIT_USAGE : 1;
	}
	return 0;
}
