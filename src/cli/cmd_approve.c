/* cmd_approve.c - `belay approve ID [--state DIR]`: a person outside the sandbox allows one
 * call that `belay proxy --mode enforce` refused. Proves knowledge of the state directory's
 * approval key (which the sandboxed server cannot read) and asks the proxy that issued ID. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "common/paths.h"
#include "engine/approvals.h"

int cmd_approve(int argc, char **argv)
{
	const char *state = NULL, *id = NULL;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--state") && i + 1 < argc)
			state = argv[++i];
		else if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			printf("usage: belay approve ID [--state DIR]\n");
			return 0;
		} else if (argv[i][0] == '-')
			return cli_fail("approve: unknown option '%s'", argv[i]);
		else if (!id)
			id = argv[i];
		else
			return cli_fail("approve: one approval id at a time");
	}
	if (!id)
		return cli_fail("approve: no approval id given (belay approve ID)");
	char *sd = paths_state_dir(state);
	char reply[256];
	struct err e = {0};
	int rc = approvals_send(sd, id, reply, sizeof reply, &e);
	free(sd);
	if (rc == 0) {
		printf("approved %s: the same call, sent again, goes through once\n", id);
		return 0;
	}
	fprintf(stderr, "belay: approve: %s\n", e.msg);
	return rc == BELAY_EUSAGE ? EXIT_USAGE : 1;
}
