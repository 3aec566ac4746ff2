/* fuzz_gate_shell.c - the shell parser and effect lowering (src/gate/shparse.c, lower.c,
 * decode*.c) through the gate's public API, gate_plan_command.
 *
 * Input: byte 0 picks the context (cwd inside or outside the root, home known or not,
 * extra control paths); the rest is the command line. Every plan must hold the plan
 * invariants (support.h: fz_plan_check), and classifying the same command again must give
 * the same plan (gate.h promises no global mutable state). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "gate/gate.h"
#include "support.h"

static const char *const controls[] = {"/ws/.belay-approvals", "/etc/belay/policy.json", NULL};

static const struct gate_ctx ctxs[4] = {
    {"/ws", NULL, "/home/u", "/home/u/.local/state/belay", NULL},
    {"/ws", "/ws/src/a", "/home/u", "/home/u/.local/state/belay", controls},
    {"/home/u/proj", "/tmp", NULL, "/home/u/.local/state/belay", NULL},
    {"/ws", "sub/dir", "/ws", "/ws/.state", controls},
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	const struct gate_ctx *ctx = &ctxs[data[0] & 3];
	const char *cmd = (const char *)data + 1;
	size_t n = size - 1;
	struct effect_plan *p = gate_plan_command(cmd, n, ctx);
	char *j1 = fz_plan_check(p);
	effect_plan_free(p);
	if (data[0] & 4) {
		/* Purity: the same input gives the same plan. */
		struct effect_plan *q = gate_plan_command(cmd, n, ctx);
		char *j2 = fz_plan_check(q);
		FZ_CHECK(strcmp(j1, j2) == 0, "two plans for one command:\n%s\n%s", j1, j2);
		free(j2);
		effect_plan_free(q);
	}
	free(j1);
	return 0;
}
