/* cli_opts.c - what the subcommands share around getopt_long: the options of the store
 * commands (--state DIR, --json, --help) with the answer to an unknown one, and printing a
 * JSON result. See cli.h. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "common/jsonx.h"
#include "common/termsafe.h"
#include "common/xalloc.h"

int cli_opt_take(struct cli_opts *o, int c, char **argv)
{
	switch (c) {
	case 's':
		o->state = optarg;
		return CLI_OPT_TAKEN;
	case 'J':
		o->json = 1;
		return CLI_OPT_TAKEN;
	case 'h':
		cli_help(o->spec, stdout);
		return 0;
	default:
		if (o->help)
			return cli_fail("%s: unknown or incomplete option '%s' (belay %s --help)", o->cmd,
					argv[optind - 1], o->help);
		return cli_fail("%s: unknown or incomplete option '%s'", o->cmd, argv[optind - 1]);
	}
}

void cli_push(char ***list, char *v)
{
	size_t n = 0;
	while (*list && (*list)[n])
		n++;
	*list = xrealloc(*list, (n + 2) * sizeof **list);
	(*list)[n] = v;
	(*list)[n + 1] = NULL;
}

int cli_confirm(const char *question)
{
	if (!isatty(0))
		return 0;
	fprintf(stderr, "%s [y/N] ", question);
	char line[16];
	return fgets(line, sizeof line, stdin) && (line[0] == 'y' || line[0] == 'Y');
}

static const char *safe_ring(const char *s, unsigned flags)
{
	static _Thread_local struct buf ring[8];
	static _Thread_local unsigned next;
	if (!s)
		return NULL;
	struct buf *b = &ring[next++ % 8];
	buf_reset(b);
	termsafe_append(b, s, strlen(s), flags);
	return buf_cstr(b);
}

const char *cli_safe(const char *s)
{
	return safe_ring(s, 0);
}

const char *cli_safe_lines(const char *s)
{
	return safe_ring(s, TERMSAFE_LINES);
}

void cli_print_json(const cJSON *o)
{
	char *s = jx_print(o);
	puts(s);
	free(s);
}
