/* ts_gate.h - questions the gate tests ask of an effect plan. */
#ifndef BELAY_TESTS_TS_GATE_H
#define BELAY_TESTS_TS_GATE_H
#include "gate/gate.h"

/* 1 when the plan has an effect of kind k whose resource contains `res` (NULL: any). */
int ts_plan_has(const struct effect_plan *p, enum effect_kind k, const char *res);

#endif
