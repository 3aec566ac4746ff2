/* bench_util.h - what the benchmarks share: a monotonic clock in ms and a generated
 * workspace of N files (1-10 KB each, 100 per directory). Header-only: each bench is one
 * executable. */
#ifndef BELAY_BENCH_BENCH_UTIL_H
#define BELAY_BENCH_BENCH_UTIL_H
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static inline double bench_now_ms(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
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

#endif
