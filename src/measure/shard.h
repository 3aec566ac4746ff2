/* shard.h - which 1/N of a batch's traces this process measures, and where that came from.
 *
 * A trace belongs to shard I of N (1 <= I <= N) when the first 8 bytes of SHA-256(trace_id),
 * read big-endian, are I-1 modulo N: the same split on every machine, whatever order the
 * files are listed in. Without --shard the index and count come from the scheduler running
 * the batch (shard_from_env):
 *   Kubernetes Indexed Job   JOB_COMPLETION_INDEX (0-based) and BELAY_SHARD_COUNT
 *   Slurm job array          (SLURM_ARRAY_TASK_ID - SLURM_ARRAY_TASK_MIN) / SLURM_ARRAY_TASK_STEP
 *                            (step 1 when unset), count SLURM_ARRAY_TASK_COUNT
 * and without either it is the whole batch (1/1). A half-given environment (an index
 * without its count, an index outside the count, a task id off the step) is a named error:
 * a wrong split would silently measure a different population. Pure; no printing. */
#ifndef BELAY_MEASURE_SHARD_H
#define BELAY_MEASURE_SHARD_H
#include "common/err.h"

struct shard {
	long index, count; /* 1-based index of count */
	char source[160];  /* "--shard", "none", or the variables read, with their values */
};

/* Parses "I/N". */
int shard_parse(const char *s, struct shard *out, struct err *e);
/* From the scheduler's environment (getenv-like lookup; NULL: getenv). */
int shard_from_env(const char *(*get)(const char *name), struct shard *out, struct err *e);
/* 1 when trace_id belongs to the shard. */
int shard_has(const struct shard *s, const char *trace_id);

#endif
