/* ts_gate.c - see ts_gate.h. */
#include "ts_gate.h"

#include <string.h>

int ts_plan_has(const struct effect_plan *p, enum effect_kind k, const char *res)
{
	for (size_t i = 0; i < effect_plan_count(p); i++) {
		const struct gate_effect *e = effect_plan_effect(p, i);
		if (e->kind == k && (!res || strstr(e->resource, res)))
			return 1;
	}
	return 0;
}
