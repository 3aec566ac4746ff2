/* bench_verify.c - what verification by re-execution costs per turn: a 200-turn trace over
 * a 400-file and a 10,000-file workspace, verified with -j 1 and -j 2, split into belay's own
 * work (restore into scratch, diff, orchestration) and the replay session (sandboxed spawn,
 * server start-up and the call) for the isolated pass, and the in-order pass's cost (one server
 * for the whole session) beside it.
 *   bench_verify [--turns 200] [--sizes 400,10000] [--belay PATH] [--jobs N] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "bench_util.h"
#include "common/fsutil.h"
#include "common/jsonx.h"
#include "common/xalloc.h"
#include "common/xalloc_cjson.h"
#include "verify/policy.h"
#include "verify/verify.h"

/* CPU time (user + system) of this process and its reaped children, in ms. */
static double cpu_ms(void)
{
	struct rusage a, b;
	getrusage(RUSAGE_SELF, &a);
	getrusage(RUSAGE_CHILDREN, &b);
	return (double)(a.ru_utime.tv_sec + a.ru_stime.tv_sec + b.ru_utime.tv_sec + b.ru_stime.tv_sec) * 1e3 +
	       (double)(a.ru_utime.tv_usec + a.ru_stime.tv_usec + b.ru_utime.tv_usec + b.ru_stime.tv_usec) / 1e3;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
	xalloc_cjson_install();
	int turns = 200, jmin = 1, jmax = 2;
	const char *belay = "build/belay", *sizes = "400,10000";
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--turns") && i + 1 < argc)
			turns = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--sizes") && i + 1 < argc)
			sizes = argv[++i];
		else if (!strcmp(argv[i], "--belay") && i + 1 < argc)
			belay = argv[++i];
		else if (!strcmp(argv[i], "--jobs") && i + 1 < argc) /* only -j N (for profiling) */
			jmin = jmax = atoi(argv[++i]);
	}
	char *rbelay = realpath(belay, NULL);
	char demo[4096];
	snprintf(demo, sizeof demo, "%.4000s", rbelay);
	*strrchr(demo, '/') = '\0';
	strcat(demo, "/belay-demo-server");
	printf("bench_verify: %d-turn traces (read_file and write_file alternating), demo editor server\n", turns);
	char *list = xstrdup(sizes);
	for (char *tok = strtok(list, ","); tok; tok = strtok(NULL, ",")) {
		int files = atoi(tok);
		struct err e = {0};
		char *dir = fs_mkdtemp_in(fs_scratch_base(), "belay-bench-verify-", &e);
		char *ws = fs_join(dir, "ws"), *st = fs_join(dir, "state"), *tr = fs_join(dir, "traces");
		bench_make_tree(ws, files);
		/* The trace: a scripted agent alternating reads and writes. */
		cJSON *steps = bench_editor_steps(turns, files, -1);
		char *sp = fs_join(dir, "steps.json");
		char *stext = jx_print(steps);
		fs_write_file_atomic(sp, stext, strlen(stext), 0644, &e);
		char cmd[8192];
		snprintf(cmd, sizeof cmd, "%s __script %s --scope %s --state %s --trace-dir %s -- %s editor %s > %s/trace.path",
			 rbelay, sp, ws, st, tr, demo, ws, dir);
		double t0 = bench_now_ms();
		if (system(cmd) != 0) {
			fprintf(stderr, "bench_verify: recording failed\n");
			return 1;
		}
		double rec_ms = bench_now_ms() - t0;
		char pathf[4096];
		snprintf(pathf, sizeof pathf, "%s/trace.path", dir);
		FILE *f = fopen(pathf, "r");
		char trace[4096] = "";
		if (!f || !fgets(trace, sizeof trace, f))
			return 1;
		fclose(f);
		trace[strcspn(trace, "\n")] = '\0';
		printf("\nworkspace %d files: recorded %d turns in %.0f ms (%.2f ms per turn, incl. pre-state capture)\n", files,
		       turns, rec_ms, rec_ms / turns);
		double wall[3] = {0};
		for (int j = jmin; j <= jmax; j++) {
			struct policy pol = {0};
			struct verify_opts vo = {.state_dir = st, .policy = &pol, .replays = 3, .jobs = j, .timeout_ms = 20000,
						 .turn = -1, .launcher = rbelay};
			struct verify_report r;
			double a = bench_now_ms(), ca = cpu_ms();
			if (verify_trace(trace, &vo, &r, &e)) {
				fprintf(stderr, "bench_verify: %s\n", e.msg);
				return 1;
			}
			wall[j] = bench_now_ms() - a;
			double cpu = cpu_ms() - ca;
			double *restore = calloc(r.n, sizeof(double)), *session = calloc(r.n, sizeof(double)),
			       *own = calloc(r.n, sizeof(double)), *total = calloc(r.n, sizeof(double));
			size_t pass = 0;
			for (size_t i = 0; i < r.n; i++) {
				restore[i] = r.turns[i].ms_restore;
				session[i] = r.turns[i].ms_server;
				total[i] = r.turns[i].ms_total;
				own[i] = total[i] - session[i];
				pass += r.turns[i].status == V_PASS;
			}
			qsort(restore, r.n, sizeof(double), cmp);
			qsort(session, r.n, sizeof(double), cmp);
			qsort(own, r.n, sizeof(double), cmp);
			qsort(total, r.n, sizeof(double), cmp);
			printf("  -j %d: wall %.0f ms (%.1f ms/turn); per turn median: total %.1f, belay own %.1f (restore %.1f), "
			       "replay session %.1f ms; %zu/%zu PASS\n",
			       j, wall[j], wall[j] / (double)r.n, total[r.n / 2], own[r.n / 2], restore[r.n / 2], session[r.n / 2],
			       pass, r.n);
			printf("        cpu %.1f ms/turn (all processes); scratch: %lu full restore(s), %lu undo+delta\n",
			       cpu / (double)r.n, r.full_restores, r.partial_restores);
			if (r.session_ran)
				printf("        in-order pass: %zu turns in %.0f ms on one server (%.2f ms/turn): waiting on "
				       "replies %.0f ms, belay own %.0f ms (%.2f ms/turn), server start and stop the rest\n",
				       r.session_turns, r.session_ms, r.session_ms / (double)(r.session_turns ? r.session_turns : 1),
				       r.session_server_ms, r.session_own_ms,
				       r.session_own_ms / (double)(r.session_turns ? r.session_turns : 1));
			free(restore);
			free(session);
			free(own);
			free(total);
			verify_report_free(&r);
		}
		if (jmin == 1 && jmax == 2)
			printf("  -j 2 / -j 1 wall time: %.2fx\n", wall[2] / wall[1]);
		fs_remove_tree(dir);
		cJSON_Delete(steps);
		cJSON_free(stext);
		free(sp);
		free(ws);
		free(st);
		free(tr);
		free(dir);
	}
	free(list);
	free(rbelay);
	return 0;
}
