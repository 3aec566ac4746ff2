/* bench_spawn.c - what containment costs: at server start (a plain fork+exec of /bin/true
 * next to the same command started through belay's launcher: user, mount, network and pid
 * namespaces, the hidden and private directories, Landlock, capabilities dropped, seccomp
 * with the supervisor), and per trapped call (an open for writing inside the scope and an
 * open for reading, both answered by the supervisor, against the same calls uncontained and
 * a call no filter traps), in one run. Ratios are against the uncontained baseline measured
 * in the same process; to compare two builds (before/after a change), run both binaries
 * back to back on the same machine.
 * CPU time is reported next to wall time: on a shared machine the wall time of a start is
 * mostly waiting for a CPU (each process of the sandbox is one more wait), the CPU time is
 * what the start costs. The loop runs within the contained runner's one-second grace after
 * its input ends, so keep --calls modest.
 *   bench_spawn [--n 200] [--calls 2000] [--belay PATH] */
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "common/fsutil.h"
#include "common/xalloc_cjson.h"
#include "sandbox/sandbox.h"
#include "proxy/sandbox_run.h"

extern char **environ;

static double now_us(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e6 + (double)t.tv_nsec / 1e3;
}

/* CPU time (user + system) of this process and of its reaped descendants, microseconds. */
static double cpu_us(void)
{
	struct rusage a, b;
	getrusage(RUSAGE_SELF, &a);
	getrusage(RUSAGE_CHILDREN, &b);
	return (double)(a.ru_utime.tv_sec + a.ru_stime.tv_sec + b.ru_utime.tv_sec + b.ru_stime.tv_sec) * 1e6 +
	       (double)(a.ru_utime.tv_usec + a.ru_stime.tv_usec + b.ru_utime.tv_usec + b.ru_stime.tv_usec);
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

/* The contained side: N of each call, timed here; prints microseconds per call. */
static int loop(int n, const char *file)
{
	double t0 = now_us();
	for (int i = 0; i < n; i++)
		close(open(file, O_WRONLY | O_CLOEXEC));
	double t1 = now_us();
	for (int i = 0; i < n; i++)
		close(open(file, O_RDONLY | O_CLOEXEC));
	double t2 = now_us();
	for (int i = 0; i < n; i++)
		syscall(SYS_getppid);
	double t3 = now_us();
	printf("write_open %.3f read_open %.3f untrapped %.3f\n", (t1 - t0) / n, (t2 - t1) / n, (t3 - t2) / n);
	return 0;
}

struct per_call {
	double w, r, u;
};

static int parse_loop(const char *out, struct per_call *pc)
{
	const char *p = out ? strstr(out, "write_open ") : NULL;
	return p && sscanf(p, "write_open %lf read_open %lf untrapped %lf", &pc->w, &pc->r, &pc->u) == 3 ? 0 : -1;
}

int main(int argc, char **argv)
{
	xalloc_cjson_install();
	if (argc == 4 && !strcmp(argv[1], "__loop"))
		return loop(atoi(argv[2]), argv[3]);
	int n = 200, calls = 2000;
	const char *belay = "build/belay";
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--n") && i + 1 < argc)
			n = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--calls") && i + 1 < argc)
			calls = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--belay") && i + 1 < argc)
			belay = argv[++i];
	}
	char *real = realpath(belay, NULL), *self = realpath("/proc/self/exe", NULL);
	if (!real || !self) {
		fprintf(stderr, "bench_spawn: cannot find %s\n", belay);
		return 1;
	}
	struct err e = {0};
	char *dir = fs_mkdtemp_in(fs_scratch_base(), "belay-bench-spawn-", &e);
	char *ws = fs_join(dir, "ws"), *tmp = fs_join(dir, "tmp"), *file = fs_join(ws, "target");
	mkdir(ws, 0755);
	mkdir(tmp, 0700);
	close(open(file, O_WRONLY | O_CREAT, 0644));
	struct sandbox_spec spec;
	if (sandbox_spec_init_tmp(&spec, ws, tmp, SANDBOX_NET_DENY, &e)) {
		fprintf(stderr, "bench_spawn: %s\n", e.msg);
		return 1;
	}
	double *plain = calloc((size_t)n, sizeof *plain), *boxed = calloc((size_t)n, sizeof *boxed);
	double cpu_plain = 0, cpu_boxed = 0;
	char *targv[] = {"/bin/true", NULL};
	for (int i = -5; i < n; i++) {
		double c0 = cpu_us(), t0 = now_us();
		pid_t pid;
		posix_spawn(&pid, "/bin/true", NULL, NULL, targv, environ);
		waitpid(pid, NULL, 0);
		double t1 = now_us(), c1 = cpu_us();
		struct sandbox_run_result r;
		if (sandbox_run(&spec, real, targv, ws, 10000, &r, &e) || r.exit_code != 0) {
			fprintf(stderr, "bench_spawn: contained run failed: %s (exit %d)\n", e.msg, r.exit_code);
			return 1;
		}
		sandbox_run_result_free(&r);
		double t2 = now_us(), c2 = cpu_us();
		if (i >= 0) {
			plain[i] = (t1 - t0) / 1e3;
			boxed[i] = (t2 - t1) / 1e3;
			cpu_plain += c1 - c0;
			cpu_boxed += c2 - c1;
		}
	}
	qsort(plain, (size_t)n, sizeof *plain, cmp);
	qsort(boxed, (size_t)n, sizeof *boxed, cmp);
	printf("bench_spawn: %d runs of /bin/true, interleaved\n", n);
	printf("  plain fork+exec        median %6.2f ms  p99 %6.2f ms  cpu %5.2f ms\n", plain[n / 2], plain[n * 99 / 100],
	       cpu_plain / n / 1e3);
	printf("  contained (all layers) median %6.2f ms  p99 %6.2f ms  cpu %5.2f ms  (+%.2f ms, x%.1f; cpu x%.1f)\n",
	       boxed[n / 2], boxed[n * 99 / 100], cpu_boxed / n / 1e3, boxed[n / 2] - plain[n / 2],
	       boxed[n / 2] / plain[n / 2], cpu_boxed / cpu_plain);

	/* Per call: 5 rounds each way, interleaved; the median round is reported. */
	char cs[32];
	snprintf(cs, sizeof cs, "%d", calls);
	char *largv[] = {self, "__loop", cs, file, NULL};
	struct per_call in[5], outv[5];
	for (int k = 0; k < 5; k++) {
		struct sandbox_run_result r;
		if (sandbox_run(&spec, real, largv, ws, 120000, &r, &e) || r.exit_code != 0 ||
		    parse_loop(r.out.p ? r.out.p : NULL, &in[k])) {
			fprintf(stderr, "bench_spawn: contained loop failed: %s (exit %d) %s\n", e.msg, r.exit_code,
				r.out.p ? r.out.p : "");
			return 1;
		}
		sandbox_run_result_free(&r);
		int pfd[2];
		if (pipe(pfd) != 0)
			return 1;
		posix_spawn_file_actions_t fa;
		posix_spawn_file_actions_init(&fa);
		posix_spawn_file_actions_adddup2(&fa, pfd[1], 1);
		pid_t pid;
		posix_spawn(&pid, self, &fa, NULL, largv, environ);
		close(pfd[1]);
		char buf[256] = "";
		ssize_t got = read(pfd[0], buf, sizeof buf - 1);
		buf[got > 0 ? got : 0] = '\0';
		close(pfd[0]);
		waitpid(pid, NULL, 0);
		posix_spawn_file_actions_destroy(&fa);
		if (parse_loop(buf, &outv[k]))
			return 1;
	}
	double iw[5], ir[5], iu[5], ow[5], orr[5], ou[5];
	for (int k = 0; k < 5; k++) {
		iw[k] = in[k].w, ir[k] = in[k].r, iu[k] = in[k].u;
		ow[k] = outv[k].w, orr[k] = outv[k].r, ou[k] = outv[k].u;
	}
	qsort(iw, 5, sizeof(double), cmp), qsort(ir, 5, sizeof(double), cmp), qsort(iu, 5, sizeof(double), cmp);
	qsort(ow, 5, sizeof(double), cmp), qsort(orr, 5, sizeof(double), cmp), qsort(ou, 5, sizeof(double), cmp);
	printf("bench_spawn: %d calls of each, 5 rounds each way (median round)\n", calls);
	printf("  open O_WRONLY (trapped)  contained %7.2f us  plain %5.2f us  (+%.2f us per call)\n", iw[2], ow[2],
	       iw[2] - ow[2]);
	printf("  open O_RDONLY            contained %7.2f us  plain %5.2f us  (+%.2f us per call)\n", ir[2], orr[2],
	       ir[2] - orr[2]);
	printf("  getppid (never trapped)  contained %7.2f us  plain %5.2f us\n", iu[2], ou[2]);
	sandbox_spec_done(&spec);
	fs_remove_tree(dir);
	free(plain);
	free(boxed);
	free(real);
	free(self);
	free(ws);
	free(tmp);
	free(file);
	free(dir);
	return 0;
}
