/* cmd_gate.c - `belay gate explain`: prints the effect plan the gate computes for a shell
 * command or an MCP tool call, as pretty JSON, using exactly the functions the proxy uses
 * (gate_plan_command / gate_plan_tool_call). Usage errors and malformed policies are one
 * "belay: ..." line and exit 2. Must not: classify anything itself; it only builds the
 * context (root, cwd, home, state and control paths) and prints. Main thread only. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "common/buf.h"
#include "common/paths.h"
#include "common/xalloc.h"
#include "gate/gate.h"

static const struct cli_opt explain_opts[] = {
	{"root", 'r', 0, "DIR", "workspace root (default: the current directory)"},
	{"cwd", 'c', 0, "DIR",
	 "working directory of the command (default: the current directory when it is inside the root, else "
	 "the root)"},
	{"home", 'H', 0, "DIR", "home directory for ~ and $HOME (default: $HOME)"},
	{"state", 's', 0, "DIR", "belay's state directory (default: $XDG_STATE_HOME/belay)"},
	{"policy", 'p', 0, "FILE", "tool-call policy (JSON; see docs/GATE.md)"},
	{"stdin", 'i', 0, NULL, "read the command text from stdin"},
	{"tool", 't', 0, "NAME", "explain a tool call to NAME instead of a shell command"},
	{"args", 'a', 0, "JSON", "with --tool: the call's arguments"},
	{"annotations", 'n', 0, "JSON", "with --tool: the tool's annotations (readOnlyHint, ...)"},
	{"compact", 'C', 0, NULL, "one line of JSON instead of pretty output"},
	{"exit-status", 'x', 0, NULL, "exit with the decision: 0 allow, 1 allow_flagged, 3 ask, 4 deny"},
	CLI_OPT_END,
};

static const struct cli_cmd gate_explain = {
	.name = "gate explain",
	.summary = "print the effect plan of a shell command or a tool call",
	.synopsis = "[options] -- COMMAND...\n[options] --stdin\n[options] --tool NAME --args JSON [--annotations JSON]",
	.about = "Prints the effect plan (decision, effects, completeness, reasons) as JSON.",
	.opts = explain_opts,
};

const struct cli_cmd cli_gate = {
	.name = "gate",
	.summary = "explain the effect plan of a shell command or tool call",
	.about = "The effect gate classifies every tools/call (and the shell commands of agent hooks) into an "
		 "effect plan and a decision (docs/GATE.md).",
	.subs = (const struct cli_cmd *const[]){&gate_explain, NULL},
	.notes = "Exit status: 0 when a plan was printed (unless --exit-status), 2 on usage errors, unreadable or "
		 "malformed policy, or malformed --args/--annotations JSON.",
};

static int explain(int argc, char **argv)
{
	struct cli_parse P;
	cli_parse_init(&gate_explain, &P, 1);
	const char *root = NULL, *cwd = NULL, *home = getenv("HOME"), *state = NULL, *policy_path = NULL;
	const char *tool = NULL, *args_json = NULL, *ann_json = NULL;
	int compact = 0, exit_status = 0, from_stdin = 0;
	int ch;
	optind = 1;
	opterr = 0;
	while ((ch = cli_getopt(&P, argc, argv)) != -1) {
		switch (ch) {
		case 'r':
			root = optarg;
			break;
		case 'c':
			cwd = optarg;
			break;
		case 'H':
			home = optarg;
			break;
		case 's':
			state = optarg;
			break;
		case 'p':
			policy_path = optarg;
			break;
		case 't':
			tool = optarg;
			break;
		case 'a':
			args_json = optarg;
			break;
		case 'n':
			ann_json = optarg;
			break;
		case 'C':
			compact = 1;
			break;
		case 'x':
			exit_status = 1;
			break;
		case 'i':
			from_stdin = 1;
			break;
		case 'h':
			cli_help(&cli_gate, stdout);
			return 0;
		default:
			return cli_fail("gate explain: unknown or incomplete option '%s' (belay gate --help)",
					argv[optind - 1]);
		}
	}
	int have_cmd = optind < argc || from_stdin;
	if (tool && have_cmd)
		return cli_fail("gate explain: give either a command or --tool, not both");
	if (!tool && !have_cmd)
		return cli_fail("gate explain: nothing to explain (give -- COMMAND, --stdin or --tool NAME)");
	if (!tool && (args_json || ann_json))
		return cli_fail("gate explain: --args and --annotations need --tool");
	if (tool && !args_json)
		args_json = "{}";

	char here[4096];
	if (!getcwd(here, sizeof here))
		return cli_fail("gate explain: cannot determine the current directory");
	char *root_abs = root ? (root[0] == '/' ? xstrdup(root) : xasprintf("%s/%s", here, root)) : xstrdup(here);
	if (!cwd) {
		size_t rl = strlen(root_abs);
		cwd = (!strncmp(here, root_abs, rl) && (here[rl] == '/' || !here[rl])) ? here : root_abs;
	}
	char *cwd_abs = cwd[0] == '/' ? xstrdup(cwd) : xasprintf("%s/%s", here, cwd);
	char *state_dir = paths_state_dir(state);
	char *config_dir = paths_config_dir();
	const char *control[3] = {NULL, NULL, NULL};
	int nc = 0;
	if (config_dir)
		control[nc++] = config_dir;
	if (policy_path)
		control[nc++] = policy_path;
	struct gate_ctx ctx = {root_abs, cwd_abs, home, state_dir, control};

	int rc = 0;
	struct gate_policy *policy = NULL;
	cJSON *args = NULL, *ann = NULL;
	struct effect_plan *plan = NULL;
	struct buf text = {0};
	if (policy_path) {
		struct err e = {0};
		if (gate_policy_load(policy_path, &policy, &e) != 0) {
			rc = cli_fail("%s", e.msg);
			goto out;
		}
	}
	if (tool) {
		args = cJSON_Parse(args_json);
		if (!args) {
			rc = cli_fail("gate explain: --args is not valid JSON");
			goto out;
		}
		if (ann_json) {
			ann = cJSON_Parse(ann_json);
			if (!ann || !cJSON_IsObject(ann)) {
				rc = cli_fail("gate explain: --annotations must be a JSON object");
				goto out;
			}
		}
		plan = gate_plan_tool_call(policy, tool, args, ann, &ctx);
	} else {
		if (from_stdin) {
			char chunk[65536];
			size_t n;
			while ((n = fread(chunk, 1, sizeof chunk, stdin)) > 0)
				buf_append(&text, chunk, n);
		} else {
			for (int i = optind; i < argc; i++) {
				if (i > optind)
					buf_putc(&text, ' ');
				buf_puts(&text, argv[i]);
			}
		}
		plan = gate_plan_command(text.p ? text.p : "", text.len, &ctx);
	}
	cJSON *j = effect_plan_json(plan);
	char *out = compact ? cJSON_PrintUnformatted(j) : cJSON_Print(j);
	puts(out);
	free(out);
	cJSON_Delete(j);
	if (exit_status) {
		static const int codes[] = {
		    [GATE_ALLOW] = 0, [GATE_ALLOW_FLAGGED] = 1, [GATE_ASK] = 3, [GATE_DENY] = 4};
		rc = codes[effect_plan_decision(plan)];
	}
out:
	effect_plan_free(plan);
	cJSON_Delete(args);
	cJSON_Delete(ann);
	gate_policy_free(policy);
	buf_free(&text);
	free(root_abs);
	free(cwd_abs);
	free(state_dir);
	free(config_dir);
	return rc;
}

int cmd_gate(int argc, char **argv)
{
	if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		cli_help(&cli_gate, argc < 2 ? stderr : stdout);
		return argc < 2 ? EXIT_USAGE : 0;
	}
	if (!strcmp(argv[1], "explain"))
		return explain(argc - 1, argv + 1);
	return cli_fail("gate: unknown subcommand '%s' (belay gate --help)", argv[1]);
}
