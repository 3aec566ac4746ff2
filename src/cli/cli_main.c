/* cli_main.c - belay's command line: dispatches argv to the command of cli_registry.c's tables,
 * prints the top-level usage, and cli_fail, the one way a command reports a usage error. */
#include <errno.h>
#include <stdlib.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "common/paths.h"
#include "cli/cli_spec.h"
#include "common/buf.h"

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

int cli_long_in(const char *s, long lo, long hi)
{
	char *end;
	errno = 0;
	long v = strtol(s, &end, 10);
	return *s && !*end && !errno && v >= lo && v <= hi;
}

char *cli_belay_http(const char *cmd)
{
	char *bin = paths_sibling_exe("belay-http");
	if (!bin)
		cli_fail("%s: belay-http is not installed next to belay or on PATH (it is built with belay; "
			 "scripts/setup.sh installs libmicrohttpd and libcurl, which it needs)",
			 cmd);
	return bin;
}

static void usage(FILE *to)
{
	fprintf(to, "usage: belay <command> [options]\n\ncommands:\n");
	for (const struct cli_entry *c = cli_commands; c->spec; c++)
		fprintf(to, "  %-10s %s\n", c->spec->name, c->spec->summary);
	fprintf(to, "\n  --version  %s\n", cli_belay.opts[0].help);
	fprintf(to, "\nbelay <command> --help shows a command's options; man belay-<command> says more.\n");
}

int cli_main(int argc, char **argv)
{
	if (argc >= 2 && !strncmp(argv[1], "__", 2)) {
		for (const struct cli_internal *c = cli_internal_commands; c->name; c++)
			if (!strcmp(c->name, argv[1]))
				return c->run(argc - 1, argv + 1);
	}
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
		if (!strcmp(c->spec->name, argv[1]))
			return c->run(argc - 1, argv + 1);
	return cli_fail("unknown command '%s' (belay --help lists them)", argv[1]);
}
