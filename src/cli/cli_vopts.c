/* cli_vopts.c - the verification options shared by the commands that verify traces on the
 * way to something else (export otlp, interop correlate). See cli.h. */
#include <getopt.h>
#include <stdlib.h>

#include "cli/cli.h"
#include "common/paths.h"
#include "index/statedb.h"
#include "verify/policy.h"
#include "verify/verify.h"

int cli_vopts_take(struct cli_vopts *v, int c, const char *cmd)
{
	switch (c) {
	case 'i':
		if (v->ninv == 16)
			return cli_fail("%s: too many --invariants", cmd);
		v->inv[v->ninv++] = optarg;
		return CLI_OPT_TAKEN;
	case 'n': v->no_defaults = 1; return CLI_OPT_TAKEN;
	case 'r': v->replays = atoi(optarg); return CLI_OPT_TAKEN;
	case 'j': v->jobs = atoi(optarg); return CLI_OPT_TAKEN;
	case 'T': v->timeout = atof(optarg); return CLI_OPT_TAKEN;
	case 's': v->state = optarg; return CLI_OPT_TAKEN;
	default: return CLI_VOPT_NOT_MINE;
	}
}

int cli_vopts_policy(const struct cli_vopts *v, struct policy *p, const char *cmd)
{
	if (v->replays < 3)
		return cli_fail("%s: --replays must be at least 3", cmd);
	if (v->jobs < 1 || v->jobs > 64)
		return cli_fail("%s: -j must be between 1 and 64", cmd);
	if (v->timeout <= 0)
		return cli_fail("%s: --timeout must be positive", cmd);
	struct err e = {0};
	for (int i = 0; i < v->ninv; i++)
		if (policy_load(p, v->inv[i], &e) != 0) {
			policy_free(p);
			return cli_fail("%s: invariants: %s", cmd, e.msg);
		}
	if (!v->no_defaults)
		policy_add_defaults(p);
	return 0;
}

int cli_vopts_verify(const struct cli_vopts *v, const struct policy *p, const char *trace, struct verify_report *r,
		     struct err *e)
{
	char *state = statedb_for_trace(v->state, trace);
	struct verify_opts o = {.state_dir = state,
				.policy = p,
				.replays = v->replays,
				.jobs = v->jobs,
				.timeout_ms = (unsigned)(v->timeout * 1000),
				.turn = -1,
				.launcher = paths_self_exe()};
	int rc = verify_trace(trace, &o, r, e);
	free(state);
	return rc;
}
