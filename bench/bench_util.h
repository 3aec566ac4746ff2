/* bench_util.h - what the benchmarks share: a monotonic clock in ms, a sort order, a
 * pseudo-random sequence and a generated
 * workspace of N files (1-10 KB each, 100 per directory). Header-only: each bench is one
 * executable. */
#ifndef BELAY_BENCH_BENCH_UTIL_H
#define BELAY_BENCH_BENCH_UTIL_H
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include <cjson/cJSON.h>

static inline double bench_now_ms(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

/* The machine's CPU time from /proc/stat's first line, in clock ticks: all of it, and the
 * part stolen - time a virtual CPU was ready to run while its host ran something else. On
 * a shared host that is where a run's tail goes: a woken thread waits for the host, not for
 * this machine, and no figure of such a run is a quiet machine's. */
struct bench_cpu {
	unsigned long long total, steal;
};

static inline struct bench_cpu bench_cpu_now(void)
{
	struct bench_cpu c = {0, 0};
	unsigned long long v[8] = {0};
	FILE *f = fopen("/proc/stat", "r");
	if (f) {
		if (fscanf(f, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1], &v[2], &v[3], &v[4], &v[5],
			   &v[6], &v[7]) == 8) {
			for (int i = 0; i < 8; i++)
				c.total += v[i];
			c.steal = v[7];
		}
		fclose(f);
	}
	return c;
}

/* The share of the CPU time from a to b that the host took, in percent (-1: unknown). */
static inline double bench_steal_pct(struct bench_cpu a, struct bench_cpu b)
{
	if (b.total <= a.total || !b.total)
		return -1;
	return 100.0 * (double)(b.steal - a.steal) / (double)(b.total - a.total);
}

/* qsort's comparison of doubles, ascending. */
static inline int bench_cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

/* A deterministic pseudo-random sequence (xorshift64; one per executable). */
static uint64_t bench_rng_state = 0x9e3779b97f4a7c15ULL;
static inline uint64_t bench_rng(void)
{
	bench_rng_state ^= bench_rng_state << 13;
	bench_rng_state ^= bench_rng_state >> 7;
	bench_rng_state ^= bench_rng_state << 17;
	return bench_rng_state;
}

static inline void bench_make_tree(const char *ws, int files)
{
	char cmd[512];
	snprintf(cmd, sizeof cmd,
		 "mkdir -p %s && cd %s && for d in $(seq 0 %d); do mkdir -p d$d; done && "
		 "python3 -c \"import os\nfor i in range(%d):\n  open(f'd{i%%%d}/f{i}.txt','w').write('x'*(1000+i%%9000))\"",
		 ws, ws, files / 100, files, files / 100 + 1);
	if (system(cmd) != 0)
		exit(1);
}

/* The steps of `belay __script` for a scripted agent on the demo editor server: initialize,
 * tools/list, then `turns` calls alternating read_file (of the generated files) and
 * write_file. tag >= 0 makes the written contents unique to one trace ("trace <tag> turn N",
 * into out<N % 7>.txt); tag < 0 writes "turn N" into out<N>.txt. New array. */
static inline cJSON *bench_editor_steps(int turns, int files, int tag)
{
	cJSON *steps = cJSON_CreateArray();
	cJSON_AddItemToArray(steps, cJSON_Parse("{\"initialize\":{}}"));
	cJSON_AddItemToArray(steps, cJSON_Parse("{\"list\":true}"));
	for (int t = 0; t < turns; t++) {
		char s[256];
		if (t % 2 && tag >= 0)
			snprintf(s, sizeof s,
				 "{\"call\":\"write_file\",\"args\":{\"path\":\"d0/out%d.txt\",\"content\":\"trace %d turn %d\"}}", t % 7,
				 tag, t);
		else if (t % 2)
			snprintf(s, sizeof s, "{\"call\":\"write_file\",\"args\":{\"path\":\"d0/out%d.txt\",\"content\":\"turn %d\"}}",
				 t, t);
		else
			snprintf(s, sizeof s, "{\"call\":\"read_file\",\"args\":{\"path\":\"d0/f%d.txt\"}}", (t * 100) % files);
		cJSON_AddItemToArray(steps, cJSON_Parse(s));
	}
	return steps;
}

#endif
