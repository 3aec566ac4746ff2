/* trial_effect.h - a trial's effect: the upper layer of its mirror read against the lower.
 * Internal to src/trial. Pure reads (never follows a symlink). Threads: the caller's. */
#ifndef BELAY_TRIAL_TRIAL_EFFECT_H
#define BELAY_TRIAL_TRIAL_EFFECT_H
#include <cjson/cJSON.h>
#include <stdint.h>

#include "common/err.h"

struct trial_effect {
	/* [{"path","change":"added"|"changed"|"deleted"|"mode","type":"file"|"dir"|"symlink"|
	 *   "fifo"|"socket"|"device","mode":"0644","bytes":N}] in path order; owned */
	cJSON *items;
	uint64_t upper_bytes; /* what the upper layer's files occupy */
	int special;          /* the upper holds a FIFO, a socket or a device (not a whiteout) */
};

int trial_effect_scan(const char *upper, const char *lower, struct trial_effect *out, struct err *e);
void trial_effect_free(struct trial_effect *t);

#endif
