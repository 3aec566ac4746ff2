/* hook_plan.h - the effect gate on an agent's own tools: shell commands through the shell
 * gate, file edits through a path plan (outside the root, belay's control files, the
 * agents' own configuration and hooks, secrets), read tools as reads, mcp__* tools through
 * the tool-call policy. Uses only gate.h.
 *
 * Must not: perform I/O (the gate is pure; the context's paths come from the caller).
 * Threads: any; the built-in policy is made once (thread-safe). */
#ifndef BELAY_HOOK_HOOK_PLAN_H
#define BELAY_HOOK_HOOK_PLAN_H
#include "gate/gate.h"
#include "hook/hook_event.h"

/* The agents' configuration files that install hooks, as absolute paths for this root and
 * home (NULL-terminated array of new strings; free with hook_plan_free_paths). Writing any
 * of them is a control-file write: the agent must not be able to switch belay off. */
char **hook_plan_agent_configs(const char *root, const char *home);
void hook_plan_free_paths(char **v);

/* The plan of a tool event (its class decides how). mcp_policy: the tool-call policy for
 * mcp__* tools (NULL: the gate's defaults). *mutating (may be NULL) is set when the plan
 * may change the workspace (anything beyond reading), which is when a pre-state is
 * captured. Never NULL; caller frees with effect_plan_free. */
struct effect_plan *hook_plan_event(const struct hook_event *ev, const struct gate_ctx *ctx,
				    const struct gate_policy *mcp_policy, int *mutating);

/* 1 when every effect of the plan only reads (files inside or outside the root, the
 * network without payload): a read-only prediction, which A2 effect:plan checks. */
int hook_plan_read_only(const struct effect_plan *plan);
/* 1 when the plan writes only inside the root (no write, delete or git change outside it,
 * no control-file or secret write, no system change). */
int hook_plan_local_only(const struct effect_plan *plan);

#endif
