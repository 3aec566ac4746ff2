/* cmd_init.c - `belay init claude-code|cursor|codex|gemini-cli`: installs (or removes) belay's hooks in
 * the agent's own configuration (docs/HOOKS.md). */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/cli_spec.h"
#include "common/buf.h"
#include "common/paths.h"
#include "common/xalloc.h"
#include "hook/hook_install.h"

static const struct cli_opt init_opts[] = {
	{"project", 'p', 0, "DIR", "the project whose configuration to change (default: the current directory)"},
	{"global", 'g', 0, NULL, "the home directory's configuration instead of a project's"},
	{"mode", 'M', 0, "audit|enforce", "the hooks' gate: audit (default) records, enforce answers ask or deny"},
	{"contain", 'C', 0, NULL, "run the agent's shell commands contained, under `belay exec` (Claude Code, Gemini CLI)"},
	{"network", 'N', 0, "deny|allow", "the contained shell's network (with --contain; default deny)"},
	CLI_OPT_STATE,
	{"mcp", 'm', 0, NULL, "also add the `belay connect` MCP server entry (not Gemini CLI: see belay snippet)"},
	{"dry-run", 'n', 0, NULL, "print what would change, write nothing"},
	{"uninstall", 'u', 0, NULL, "remove exactly belay's entries"},
	CLI_OPT_END,
};

const struct cli_cmd cli_init = {
	.name = "init",
	.summary = "install belay's hooks into Claude Code, Cursor, Codex or Gemini CLI (--uninstall removes them)",
	.synopsis = "claude-code|cursor|codex|gemini-cli [--project DIR | --global] [--mode audit|enforce]\n"
		    "claude-code|cursor|codex|gemini-cli [--contain [--network deny|allow]] [--state DIR] [--mcp] [--dry-run] [--uninstall]",
	.about = "Installs belay's hooks into the agent's configuration: Claude Code .claude/settings.json, Cursor "
		 ".cursor/hooks.json, Codex .codex/hooks.json, Gemini CLI .gemini/settings.json (the project's, by "
		 "default the current directory, or with --global the home directory's). Foreign hooks are kept; a "
		 "second init changes nothing; --uninstall removes exactly belay's entries (Gemini CLI's settings, "
		 "which may hold comments, are edited as text and come back byte for byte). A file that does not parse is left untouched (exit "
		 "1). Every hook is wrapped so that a failing or missing belay blocks the call (docs/HOOKS.md).",
	.opts = init_opts,
};

int cmd_init(int argc, char **argv)
{
	struct cli_parse P;
	cli_parse_init(&cli_init, &P, 1);
	if (argc >= 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
		cli_help(&cli_init, stdout);
		return 0;
	}
	struct hook_install_opts o = {0};
	if (argc < 2 || hook_agent_parse(argv[1], &o.agent) != 0)
		return cli_fail("init: name the agent: claude-code, cursor, codex or gemini-cli (belay init --help)");
	const char *project = NULL;
	int c;
	optind = 2;
	opterr = 0;
	while ((c = cli_getopt(&P, argc, argv)) != -1) {
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
		case 'h': cli_help(&cli_init, stdout); return 0;
		default: return cli_fail("init: unknown or incomplete option '%s' (belay init --help)", argv[optind - 1]);
		}
	}
	if (optind < argc)
		return cli_fail("init: unexpected argument '%s'", argv[optind]);
	if (project && o.global)
		return cli_fail("init: --project and --global exclude each other");
	if (o.contain && o.agent != HA_CLAUDE_CODE && o.agent != HA_GEMINI)
		return cli_fail("init: --contain needs an agent that runs the command belay rewrites: Claude Code or "
				"Gemini CLI. %s",
				o.agent == HA_CODEX ? "Codex (0.171) ignores a rewritten command and runs the original"
						    : "Cursor cannot rewrite a command");
	if (o.mcp && o.agent == HA_GEMINI)
		return cli_fail("init: --mcp is not for Gemini CLI: `belay snippet gemini-cli` prints its mcpServers entry");
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
