/* cmd_approve.c - `belay approve ID [--state DIR]`: a person outside the sandbox allows one
 * call that `belay proxy --mode enforce` refused. Proves knowledge of the state directory's
 * approval key (which the sandboxed server cannot read) and asks the proxy that issued ID. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "common/paths.h"
#include "proxy/approvals.h"

static const struct cli_opt approve_opts[] = {
	{"state", 's', 0, "DIR", "the state directory of the proxy that refused the call (default $XDG_STATE_HOME/belay)"},
	CLI_OPT_END,
};

const struct cli_cmd cli_approve = {
	.name = "approve",
	.summary = "allow once a call the gate refused (run outside the sandbox)",
	.synopsis = "ID [--state DIR]",
	.about = "A person outside the sandbox allows one call that `belay proxy --mode enforce` refused: the "
		 "refusal names ID. The same call, sent again, goes through once; a call `belay proxy --http` is holding "
		 "for ID goes on at once (docs/HTTP.md). Approving proves knowledge of the "
		 "state directory's approval key, which the sandboxed server cannot read.",
	.opts = approve_opts,
};

int cmd_approve(int argc, char **argv)
{
	struct cli_opts co = {.cmd = "approve", .help = "approve", .spec = &cli_approve};
	struct cli_parse P;
	cli_parse_init(&cli_approve, &P, 0);
	int c, r;
	optind = 1;
	opterr = 0;
	while ((c = cli_getopt(&P, argc, argv)) != -1)
		if ((r = cli_opt_take(&co, c, argv)) != CLI_OPT_TAKEN)
			return r;
	if (argc - optind > 1)
		return cli_fail("approve: one approval id at a time");
	const char *state = co.state, *id = optind < argc ? argv[optind] : NULL;
	if (!id)
		return cli_fail("approve: no approval id given (belay approve ID)");
	char *sd = paths_state_dir(state);
	char reply[256];
	struct err e = {0};
	int rc = approvals_send(sd, id, reply, sizeof reply, &e);
	free(sd);
	if (rc == 0) {
		printf("approved %s: a call held for it goes on now; else the same call, sent again, goes through once\n",
		       cli_safe(id));
		return 0;
	}
	fprintf(stderr, "belay: approve: %s\n", cli_safe(e.msg));
	return rc == BELAY_EUSAGE ? EXIT_USAGE : 1;
}
