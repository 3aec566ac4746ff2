/* main.c - the belay binary: one entry point, commands dispatched from cli_registry.c's table. */
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "common/buf.h"
#include "sandbox/sandbox.h"

int cli_fail(const char *fmt, ...)
{
	/* the message may name what a trace, a trial or an import holds: escaped as a whole */
	va_list ap;
	struct buf b = {0};
	va_start(ap, fmt);
	buf_vprintf(&b, fmt, ap);
	va_end(ap);
	fprintf(stderr, "belay: %s\n", cli_safe(buf_cstr(&b)));
	buf_free(&b);
	return EXIT_USAGE;
}

static void usage(FILE *to)
{
	fprintf(to, "usage: belay <command> [options]\n\ncommands:\n");
	for (const struct cli_entry *c = cli_commands; c->spec; c++)
		fprintf(to, "  %-10s %s\n", c->spec->name, c->spec->summary);
	fprintf(to, "\n  --version  %s\n", cli_belay.opts[0].help);
	fprintf(to, "\nbelay <command> --help shows a command's options; man belay-<command> says more.\n");
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
	if (argc >= 2 && strcmp(argv[1], "__doc") == 0)
		return cmd_doc(argc - 1, argv + 1);
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
	for (const struct cli_entry *c = cli_commands; c->spec; c++)
		if (strcmp(c->spec->name, argv[1]) == 0)
			return c->run(argc - 1, argv + 1);
	return cli_fail("unknown command '%s' (belay --help lists them)", argv[1]);
}
