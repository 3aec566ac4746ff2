/* shard.c - deterministic 1/N split of a batch and the schedulers' environments. See shard.h. */
#include "measure/shard.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/hash.h"

static int parse_long(const char *s, long *out)
{
	if (!s || !*s)
		return -1;
	char *end;
	errno = 0;
	long v = strtol(s, &end, 10);
	if (errno || *end || end == s)
		return -1;
	*out = v;
	return 0;
}

int shard_parse(const char *s, struct shard *out, struct err *e)
{
	const char *slash = s ? strchr(s, '/') : NULL;
	char idx[32];
	long i, n;
	if (!slash || (size_t)(slash - s) >= sizeof idx)
		return err_set(e, BELAY_EUSAGE, "--shard must be I/N (e.g. 2/4), not '%s'", s ? s : "");
	memcpy(idx, s, (size_t)(slash - s));
	idx[slash - s] = 0;
	if (parse_long(idx, &i) || parse_long(slash + 1, &n) || n < 1 || i < 1 || i > n)
		return err_set(e, BELAY_EUSAGE, "--shard %s: I and N must be whole numbers with 1 <= I <= N", s);
	out->index = i;
	out->count = n;
	snprintf(out->source, sizeof out->source, "--shard %ld/%ld", i, n);
	return 0;
}

static const char *plain_getenv(const char *name)
{
	return getenv(name);
}

int shard_from_env(const char *(*get)(const char *name), struct shard *out, struct err *e)
{
	if (!get)
		get = plain_getenv;
	const char *k8s = get("JOB_COMPLETION_INDEX"), *slurm = get("SLURM_ARRAY_TASK_ID");
	long idx, n;
	if (k8s) {
		const char *cnt = get("BELAY_SHARD_COUNT");
		if (parse_long(k8s, &idx) || idx < 0)
			return err_set(e, BELAY_EUSAGE, "JOB_COMPLETION_INDEX=%s is not a 0-based index", k8s);
		if (!cnt)
			return err_set(e, BELAY_EUSAGE,
				       "JOB_COMPLETION_INDEX=%s is set but BELAY_SHARD_COUNT is not (set it to the Job's "
				       "completions, or pass --shard I/N)",
				       k8s);
		if (parse_long(cnt, &n) || n < 1)
			return err_set(e, BELAY_EUSAGE, "BELAY_SHARD_COUNT=%s is not a positive count", cnt);
		if (idx >= n)
			return err_set(e, BELAY_EUSAGE, "JOB_COMPLETION_INDEX=%ld is outside BELAY_SHARD_COUNT=%ld", idx, n);
		out->index = idx + 1;
		out->count = n;
		snprintf(out->source, sizeof out->source, "Kubernetes Indexed Job (JOB_COMPLETION_INDEX=%ld, BELAY_SHARD_COUNT=%ld)",
			 idx, n);
		return 0;
	}
	if (slurm) {
		const char *mn = get("SLURM_ARRAY_TASK_MIN"), *st = get("SLURM_ARRAY_TASK_STEP"),
			   *cnt = get("SLURM_ARRAY_TASK_COUNT");
		long id, min, step = 1;
		if (parse_long(slurm, &id))
			return err_set(e, BELAY_EUSAGE, "SLURM_ARRAY_TASK_ID=%s is not a number", slurm);
		if (!mn || parse_long(mn, &min))
			return err_set(e, BELAY_EUSAGE, "SLURM_ARRAY_TASK_ID=%s is set but SLURM_ARRAY_TASK_MIN is %s", slurm,
				       mn ? "not a number" : "not");
		if (st && (parse_long(st, &step) || step < 1))
			return err_set(e, BELAY_EUSAGE, "SLURM_ARRAY_TASK_STEP=%s is not a positive step", st);
		if (!cnt || parse_long(cnt, &n) || n < 1)
			return err_set(e, BELAY_EUSAGE, "SLURM_ARRAY_TASK_ID=%s is set but SLURM_ARRAY_TASK_COUNT is %s", slurm,
				       cnt ? "not a positive count" : "not");
		if (id < min || (id - min) % step)
			return err_set(e, BELAY_EUSAGE,
				       "SLURM_ARRAY_TASK_ID=%ld is not on the array's steps (min %ld, step %ld)", id, min, step);
		idx = (id - min) / step;
		if (idx >= n)
			return err_set(e, BELAY_EUSAGE, "SLURM_ARRAY_TASK_ID=%ld is past SLURM_ARRAY_TASK_COUNT=%ld", id, n);
		out->index = idx + 1;
		out->count = n;
		snprintf(out->source, sizeof out->source,
			 "Slurm job array (SLURM_ARRAY_TASK_ID=%ld, MIN=%ld, STEP=%ld, COUNT=%ld)", id, min, step, n);
		return 0;
	}
	out->index = out->count = 1;
	snprintf(out->source, sizeof out->source, "none");
	return 0;
}

int shard_has(const struct shard *s, const char *trace_id)
{
	if (s->count <= 1)
		return 1;
	uint8_t h[SHA256_LEN];
	sha256(trace_id, strlen(trace_id), h);
	uint64_t v = 0;
	for (int i = 0; i < 8; i++)
		v = v << 8 | h[i];
	return (long)(v % (uint64_t)s->count) == s->index - 1;
}
