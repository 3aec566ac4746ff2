/* cli_registry.c - belay's commands in the order `belay --help` lists them, each with its
 * table (cli_spec.h) and the function that runs it; belay's internal commands; and belay's own
 * table. cli_main.c dispatches through them, cli_doc.c writes belay(1), one page per command and the completions from it. */
#include "cli/cli.h"
#include "cli/cli_spec.h"
#include "sandbox/sandbox.h"

const struct cli_entry cli_commands[] = {
	{&cli_demo, cmd_demo},
	{&cli_proxy, cmd_proxy},
	{&cli_http, cmd_http},
	{&cli_trace, cmd_trace},
	{&cli_verify, cmd_verify},
	{&cli_replay, cmd_verify},
	{&cli_snapshot, cmd_snapshot},
	{&cli_sandbox, cmd_sandbox},
	{&cli_gc, cmd_gc},
	{&cli_console, cmd_console},
	{&cli_connect, cmd_connect},
	{&cli_recover, cmd_recover},
	{&cli_try, cmd_try},
	{&cli_approve, cmd_approve},
	{&cli_gate, cmd_gate},
	{&cli_index, cmd_index},
	{&cli_runs, cmd_runs},
	{&cli_show, cmd_runs},
	{&cli_corpus, cmd_corpus},
	{&cli_doctor, cmd_doctor},
	{&cli_snippet, cmd_snippet},
	{&cli_measure, cmd_measure},
	{&cli_export, cmd_export},
	{&cli_interop, cmd_interop},
	{&cli_keys, cmd_keys},
	{&cli_hook, cmd_hook},
	{&cli_init, cmd_init},
	{&cli_status, cmd_status},
	{&cli_exec, cmd_exec},
	{&cli_claim, cmd_claim},
	{NULL, NULL},
};

const struct cli_internal cli_internal_commands[] = {
	{"__launch", sandbox_launch_main, "the sandbox launcher stage, when belay-launch is not installed next to belay"},
	{"__probe", cmd_probe, "a contained probe of what the sandbox allows (belay sandbox check)"},
	{"__script", cmd_script, "the scripted MCP agent of the demo and the tests"},
	{"__hookd", cmd_hookd, "the hook helper daemon an agent's hooks talk to"},
	{"__doc", cmd_doc, "writes the man pages and shell completions at build time"},
	{NULL, NULL, NULL},
};

static const struct cli_opt belay_opts[] = {
	{"version", 'V', 0, NULL, "print the version, the build's features and the libraries belay runs with"},
	CLI_OPT_END,
};

const struct cli_cmd cli_belay = {
	.name = "",
	.summary = "record, contain, verify and watch AI agents' MCP tool calls",
	.synopsis = "COMMAND [options]",
	.about = "belay is a harness for AI agents' tool calls: a transparent MCP stdio proxy that records every "
		 "frame into an append-only trace, contains the tool server in a kernel sandbox (Landlock, "
		 "namespaces, a seccomp user-notification supervisor), snapshots the workspace before each "
		 "tools/call, verifies turns by re-execution (A2) and invariants (A1), keeps a corpus of failure "
		 "cases, and shows it all in a live console.\n\n"
		 "Start with `belay demo`, then `belay doctor`; `belay COMMAND --help` and belay-COMMAND(1) "
		 "describe each command.",
	.opts = belay_opts,
	.notes = "BELAY_STATE_DIR, else $XDG_STATE_HOME/belay, else ~/.local/state/belay: the state directory "
		 "(traces, the store, snapshots); every command that uses it takes --state DIR. A server an agent "
		 "starts sees none of the shell's variables: `belay snippet` writes the paths out.\n\n"
		 "BELAY_TRACE_DIR, BELAY_SANDBOX_SCOPE, BELAY_SANDBOX_NETWORK: defaults of belay proxy's "
		 "--trace-dir, --scope and --network.\n\n"
		 "$XDG_CONFIG_HOME/belay (else ~/.config/belay): the console's keys (belay keys) and themes.\n\n"
		 "NO_COLOR: the console draws without colour.",
};
