/* gate.c - the shell-command entry point of the gate (see gate.h): one arena per call,
 * parse and lower, project the decision. Pure and re-entrant: callable from any thread
 * concurrently; no I/O, no global state. Must not: hold decoding logic (lower.c and decode*.c do). */
#include "gate/gate.h"

#include <string.h>

#include "gate/effect_plan.h"
#include "gate/lower.h"

struct effect_plan *gate_plan_command(const char *cmd, size_t len, const struct gate_ctx *ctx)
{
	struct effect_plan *plan = effect_plan_new();
	if (cmd && !memchr(cmd, '\0', len))
		effect_plan_note_command(plan, cmd, len, NULL);
	lower_run(plan, cmd ? cmd : "", cmd ? len : 0, ctx, NULL, "command");
	effect_plan_finish(plan);
	return plan;
}
