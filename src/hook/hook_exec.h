/* hook_exec.h - the contained shell: `belay exec --run RUN --turn N -- CMD...`, what a shell
 * call of a hook run becomes with `belay init ... --contain` (the pre-tool hook rewrites the
 * command through the agent's updatedInput). The command runs in the same kernel sandbox as
 * an MCP server (writes confined to the run's project root and a private temp dir, network
 * per policy, belay's state directory hidden: an empty read-only directory), its stdin, stdout and stderr passed through unchanged; every refusal is
 * recorded into the run, attributed to the turn, and named on stderr after the command's
 * own output, so the agent sees why an operation failed.
 *
 * Fail closed: a run that cannot be found, or a sandbox that cannot be installed, runs
 * nothing (exit 126, named).
 *
 * Must not: print except through `report`. Threads: the caller's (blocks). */
#ifndef BELAY_HOOK_HOOK_EXEC_H
#define BELAY_HOOK_HOOK_EXEC_H
#include "common/err.h"
#include "sandbox/sandbox.h"

struct hook_exec_opts {
	const char *run;         /* run id */
	int turn;
	const char *trace_dir;   /* where the run's trace is */
	const char *state_dir;   /* for indexing */
	enum sandbox_network net;
	char *const *argv;       /* the command */
	const char *launcher;    /* the belay binary */
};

/* Runs the command; *exit_code mirrors it (128+signal when killed). Returns 0, or an error
 * (nothing ran) with e naming why. `report` gets the line about refusals (may be NULL). */
int hook_exec(const struct hook_exec_opts *o, int *exit_code, void (*report)(void *ctx, const char *line), void *ctx,
	      struct err *e);

#endif
