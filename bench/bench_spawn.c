/* bench_spawn.c - what containment costs at server start: a plain fork+exec of /bin/true
 * next to the same command started through belay's launcher (user, mount and network
 * namespaces, Landlock, capabilities dropped, seccomp with the supervisor), in one run.
 *   bench_spawn [--n 200] [--belay PATH] */
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "common/fsutil.h"
#include "sandbox/sandbox.h"
#include "engine/sandbox_run.h"

extern char **environ;

static double now_ms(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
	int n = 200;
	const char *belay = "build/belay";
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--n") && i + 1 < argc)
			n = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--belay") && i + 1 < argc)
			belay = argv[++i];
	}
	char *real = realpath(belay, NULL);
	struct err e = {0};
	char *dir = fs_mkdtemp_in(fs_scratch_base(), "belay-bench-spawn-", &e);
	char *ws = fs_join(dir, "ws"), *tmp = fs_join(dir, "tmp");
	mkdir(ws, 0755);
	mkdir(tmp, 0700);
	struct sandbox_spec spec;
	if (sandbox_spec_init_tmp(&spec, ws, tmp, SANDBOX_NET_DENY, &e)) {
		fprintf(stderr, "bench_spawn: %s\n", e.msg);
		return 1;
	}
	double *plain = calloc((size_t)n, sizeof *plain), *boxed = calloc((size_t)n, sizeof *boxed);
	char *targv[] = {"/bin/true", NULL};
	for (int i = -5; i < n; i++) {
		double t0 = now_ms();
		pid_t pid;
		posix_spawn(&pid, "/bin/true", NULL, NULL, targv, environ);
		waitpid(pid, NULL, 0);
		double t1 = now_ms();
		struct sandbox_run_result r;
		if (sandbox_run(&spec, real, targv, ws, 10000, &r, &e) || r.exit_code != 0) {
			fprintf(stderr, "bench_spawn: contained run failed: %s (exit %d)\n", e.msg, r.exit_code);
			return 1;
		}
		sandbox_run_result_free(&r);
		double t2 = now_ms();
		if (i >= 0) {
			plain[i] = t1 - t0;
			boxed[i] = t2 - t1;
		}
	}
	qsort(plain, (size_t)n, sizeof *plain, cmp);
	qsort(boxed, (size_t)n, sizeof *boxed, cmp);
	printf("bench_spawn: %d runs of /bin/true, interleaved\n", n);
	printf("  plain fork+exec        median %6.2f ms  p99 %6.2f ms\n", plain[n / 2], plain[n * 99 / 100]);
	printf("  contained (all layers) median %6.2f ms  p99 %6.2f ms  (+%.2f ms, x%.1f)\n", boxed[n / 2],
	       boxed[n * 99 / 100], boxed[n / 2] - plain[n / 2], boxed[n / 2] / plain[n / 2]);
	sandbox_spec_done(&spec);
	fs_remove_tree(dir);
	return 0;
}
