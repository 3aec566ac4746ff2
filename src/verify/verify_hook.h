/* verify_hook.h - verification of a hook run (a session recorded from an agent's hooks,
 * docs/HOOKS.md): turns are the agent's own tool calls, each with the agent's payloads, the
 * gate's effect plan and, for mutating calls, the pre-state captured before it and the
 * post-state captured after it.
 *
 *   A1  the invariants on every mutating turn, from its pre-state and its recorded
 *       post-state (the weakened test written by Edit is caught as one written through MCP);
 *   A2  shell turns re-executed contained from the restored pre-state: output and outcome
 *       compared with what the agent recorded (replay), the observed effect with the
 *       recorded one (effect), and with the gate's prediction (effect:plan: a plan that said
 *       "read-only" and wrote, or "writes inside the root only" and wrote outside, FAILs
 *       naming the paths); edit turns re-applied to the pre-state and compared with the
 *       post-state; every other tool (Read, Grep, Glob, subagents, web and MCP tools seen
 *       through hooks) is UNVERIFIED TOOL_NOT_REEXECUTED, never PASS;
 *   trajectory  suite-before-success-claim on the session's last claim.
 *
 * Threads: blocks the caller. */
#ifndef BELAY_VERIFY_VERIFY_HOOK_H
#define BELAY_VERIFY_VERIFY_HOOK_H
#include "trace/trace_reader.h"
#include "verify/verify.h"

/* 1 when the trace is a hook run (it has an agent_session record). */
int verify_is_hook_run(const struct trace *t);
/* Verifies a hook run that verify_trace has read (t stays the caller's). */
int verify_hook_run(const struct trace *t, const struct verify_opts *o, struct verify_report *out, struct err *e);

#endif
