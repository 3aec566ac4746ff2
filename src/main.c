/* main.c - the belay binary: one entry point, subcommands dispatched from a table. */
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "sandbox/sandbox.h"

int cli_fail(const char *fmt, ...)
{
	va_list ap;
	fputs("belay: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return EXIT_USAGE;
}

struct command {
	const char *name;
	int (*run)(int argc, char **argv);
	const char *summary;
};

static const struct command commands[] = {
	{"demo", cmd_demo, "watch belay catch a cheating and a lying tool call (A1 vs A2)"},
	{"proxy", cmd_proxy, "proxy an MCP server over stdio, recording every frame"},
	{"trace", cmd_trace, "show or check a recorded trace"},
	{"verify", cmd_verify, "re-execute every turn of a trace and judge it (A1, A2)"},
	{"replay", cmd_verify, "re-execute every turn of a trace and report coverage"},
	{"snapshot", cmd_snapshot, "capture, restore, hash, show or diff workspace pre-states"},
	{"sandbox", cmd_sandbox, "check that containment works on this machine (sandbox check)"},
	{"gc", cmd_gc, "remove snapshots and objects nothing refers to"},
	{"console", cmd_console, "the live console: runs, turns, denials and verdicts as they happen"},
	{"connect", cmd_connect, "connect an agent's MCP stdio to a running console (the agent's server command)"},
	{"recover", cmd_recover, "restore a run's workspace to the pre-state of one of its turns (list|show|apply|undo)"},
	{"approve", cmd_approve, "allow once a call the gate refused (run outside the sandbox)"},
	{"gate", cmd_gate, "explain the effect plan of a shell command or tool call"},
	{"index", cmd_index, "build the store's view of runs from their traces"},
	{"runs", cmd_runs, "list the runs in the store (turns, worst verdict, denials)"},
	{"show", cmd_runs, "show one run, or one turn with its frames and verdict"},
	{"corpus", cmd_corpus, "bank, label, replay and score failure cases (add|label|run|score|list|show|export|import)"},
	{"doctor", cmd_doctor, "check this machine and this install (containment, directories, database, agent configurations), each finding with its fix"},
	{"snippet", cmd_snippet, "print the MCP configuration that makes an agent client (Claude Code, Cursor, VS Code, Codex, Windsurf, Zed) start belay"},
	{"measure", cmd_measure, "verify a batch of traces into a ledger and report the rate (run|report|combine|merge|bundle)"},
	{"export", cmd_export, "verdicts as OpenTelemetry spans: OTLP/JSON to a file or an OTLP/HTTP endpoint (export otlp)"},
	{"interop", cmd_interop, "join an agent's OpenTelemetry spans to turns and their verdicts (interop correlate)"},
	{"keys", cmd_keys, "list the console's key bindings (--markdown: the KEYS.md reference)"},
	{"hook", cmd_hook, "handle one hook event of Claude Code, Cursor or Codex (the agent runs this)"},
	{"init", cmd_init, "install belay's hooks into Claude Code, Cursor or Codex (--uninstall removes them)"},
	{"status", cmd_status, "installed hook adapters, the running console and live hook sessions"},
	{"exec", cmd_exec, "run a hook run's shell command contained (what --contain rewrites commands to)"},
	{"claim", cmd_claim, "record an agent's success claim into a trace (belay claim TRACE TEXT)"},
	{NULL, NULL, NULL},
};

static void usage(FILE *to)
{
	fprintf(to, "usage: belay <command> [options]\n\ncommands:\n");
	for (const struct command *c = commands; c->name; c++)
		fprintf(to, "  %-10s %s\n", c->name, c->summary);
	fprintf(to, "\nbelay <command> --help shows a command's options.\n");
}

int main(int argc, char **argv)
{
	/* A dead peer must surface as EPIPE, a full disk as EFBIG/ENOSPC, never as a signal. */
	signal(SIGPIPE, SIG_IGN);
	signal(SIGXFSZ, SIG_IGN);
	if (argc >= 2 && strcmp(argv[1], "__launch") == 0)
		return sandbox_launch_main(argc - 1, argv + 1);
	if (argc >= 2 && strcmp(argv[1], "__probe") == 0)
		return cmd_probe(argc - 1, argv + 1);
	if (argc >= 2 && strcmp(argv[1], "__script") == 0)
		return cmd_script(argc - 1, argv + 1);
	if (argc >= 2 && strcmp(argv[1], "__hookd") == 0)
		return cmd_hookd(argc - 1, argv + 1);
	if (argc < 2) {
		usage(stderr);
		return EXIT_USAGE;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
		usage(stdout);
		return 0;
	}
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "version"))
		return cmd_version();
	for (const struct command *c = commands; c->name; c++)
		if (strcmp(c->name, argv[1]) == 0)
			return c->run(argc - 1, argv + 1);
	return cli_fail("unknown command '%s' (belay --help lists them)", argv[1]);
}
