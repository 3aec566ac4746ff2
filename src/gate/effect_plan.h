/* effect_plan.h - building an effect plan inside the gate (internal to src/gate). The public,
 * read-only side is in gate.h. A plan owns every string it holds (heap copies), so it
 * outlives the arena of the classification that produced it. Must not: decide anything but
 * the projection (kinds map to decisions in effect_plan.c). Single thread per plan. */
#ifndef BELAY_GATE_EFFECT_PLAN_H
#define BELAY_GATE_EFFECT_PLAN_H
#include "gate/gate.h"

/* Effects beyond this many are summarised by one indeterminate effect. */
#define EFFECT_PLAN_MAX_EFFECTS 256

/* Returns a new empty plan (caller frees with effect_plan_free). */
struct effect_plan *effect_plan_new(void);
/* Adds an effect (strings copied; evidence clipped). An effect with the same kind and
 * resource as an earlier one is dropped. */
void effect_plan_add(struct effect_plan *p, enum effect_kind k, const char *resource, const char *evidence,
		     const char *why);
/* The same for an unknown local effect (EK_INDETERMINATE with gate_effect.local set; an
 * earlier non-local effect of the same resource stays non-local). */
void effect_plan_add_local(struct effect_plan *p, const char *resource, const char *evidence, const char *why);
/* Raises the plan's decision to at least d (a policy floor), with a reason. */
void effect_plan_floor(struct effect_plan *p, enum gate_decision d, const char *why);
/* Notes a command line the plan was built from and the directory it runs in (absolute, may
 * be NULL): a contained trial runs it (effect_plan_command). */
void effect_plan_note_command(struct effect_plan *p, const char *text, size_t n, const char *cwd);
/* Computes the decision and the reasons; call once, after the last plan_add. */
void effect_plan_finish(struct effect_plan *p);

#endif
