/* cmd_exec.c - `belay exec --run RUN --turn N -- CMD...`: a hook run's contained shell
 * (docs/HOOKS.md, "The contained shell"). The agent's pre-tool hook puts this in front of a
 * shell command when the hooks were installed with --contain. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/cli_spec.h"
#include "common/fsutil.h"
#include "common/paths.h"
#include "common/xalloc.h"
#include "hook/hook_exec.h"

static const struct cli_opt exec_opts[] = {
	{"run", 'r', 0, "RUN", "the hook run to record into (required)"},
	{"turn", 'n', 0, "N", "the turn the command belongs to (required)"},
	{"network", 'N', 0, "deny|allow", "the contained command's network (default deny)"},
	CLI_OPT_STATE,
	{"trace-dir", 't', 0, "DIR", "where runs are recorded (default STATE/traces)"},
	CLI_OPT_END,
};

const struct cli_cmd cli_exec = {
	.name = "exec",
	.summary = "run a hook run's shell command contained (what --contain rewrites commands to)",
	.synopsis = "--run RUN --turn N [--network deny|allow] [--state DIR] [--trace-dir DIR] -- CMD [ARGS...]",
	.about = "Runs CMD contained (writes confined to the run's project root, network per --network, default "
		 "deny), its stdio passed through unchanged, and records what the sandbox refused into the hook run "
		 "RUN, attributed to turn N.",
	.opts = exec_opts,
	.notes = "Exit status: CMD's; 126 when nothing ran.",
};

static void report(void *ctx, const char *line)
{
	(void)ctx;
	fprintf(stderr, "%s\n", line);
}

int cmd_exec(int argc, char **argv)
{
	struct cli_parse P;
	cli_parse_init(&cli_exec, &P, 1);
	struct hook_exec_opts o = {.turn = -1};
	const char *state = NULL, *trace_dir = getenv("BELAY_TRACE_DIR"), *net = NULL;
	int c;
	optind = 1;
	opterr = 0;
	while ((c = cli_getopt(&P, argc, argv)) != -1) {
		switch (c) {
		case 'r': o.run = optarg; break;
		case 'n': {
			char *end;
			long v = strtol(optarg, &end, 10);
			if (*end || v < 0 || v > 1 << 30)
				return cli_fail("exec: --turn takes a turn number, not '%s'", optarg);
			o.turn = (int)v;
			break;
		}
		case 'N': net = optarg; break;
		case 's': state = optarg; break;
		case 't': trace_dir = optarg; break;
		case 'h': cli_help(&cli_exec, stdout); return 0;
		default: return cli_fail("exec: unknown or incomplete option '%s' (belay exec --help)", argv[optind - 1]);
		}
	}
	if (!o.run || o.turn < 0)
		return cli_fail("exec: --run RUN and --turn N are required (belay exec --help)");
	if (optind >= argc)
		return cli_fail("exec: no command given (belay exec --run RUN --turn N -- CMD...)");
	struct err e = {0};
	if (net && sandbox_parse_network(net, &o.net, &e))
		return cli_fail("exec: %s", e.msg);
	char *sd = paths_state_dir(state);
	char *td = trace_dir && *trace_dir ? xstrdup(trace_dir) : fs_join(sd, "traces");
	o.trace_dir = td;
	o.state_dir = sd;
	o.argv = argv + optind;
	o.launcher = paths_self_exe();
	int code = 126;
	if (hook_exec(&o, &code, report, NULL, &e) != 0) {
		fprintf(stderr, "belay: exec: refusing to run the command (%s)\n", e.msg);
		code = 126;
	}
	free(sd);
	free(td);
	return code;
}
