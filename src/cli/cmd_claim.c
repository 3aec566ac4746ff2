/* cmd_claim.c - `belay claim TRACE TEXT`: records an agent's success claim ("all tests
 * pass") into a trace, for suite-before-success-claim (docs/VERDICTS.md). Hook runs record
 * their claims themselves (the Stop event); this is for MCP runs and eval drivers. */
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/cli_spec.h"
#include "hook/hook_claim.h"

const struct cli_cmd cli_claim = {
	.name = "claim",
	.summary = "record an agent's success claim into a trace (belay claim TRACE TEXT)",
	.synopsis = "TRACE TEXT",
	.about = "Appends a claim record (what the agent said when it was done) to TRACE: a hook run under its "
		 "lock, any other trace once it has ended. `belay verify` judges it with suite-before-success-claim.",
};

int cmd_claim(int argc, char **argv)
{
	if (argc >= 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
		cli_help(&cli_claim, stdout);
		return 0;
	}
	if (argc != 3)
		return cli_fail("claim: usage: belay claim TRACE TEXT");
	if (!*argv[2])
		return cli_fail("claim: the claim text is empty");
	struct err e = {0};
	if (hook_claim_append(argv[1], argv[2], &e) != 0) {
		fprintf(stderr, "belay: claim: %s\n", e.msg);
		return 1;
	}
	return 0;
}
