/* bench_census.c - what the tests-collected census costs per run (docs/VERDICTS.md), next to
 * a plain `belay verify` of the same run, in the same process. Prints figures; it is not a
 * test.
 *
 *   bench_census --belay PATH [--tests 200] [--reps 5] [--dir DIR]
 *
 * A Python project of --tests tests (10 per file, half of them parametrised over two values)
 * is recorded through `belay __script` with the demo shell server: one run_process call that
 * adds a file. Then, alternately, --reps times each: `belay verify TRACE --no-store` (plain)
 * and the same with --census, and with --rederive (the recorded run ends with a claim that
 * the suite passed: the suite run twice on the final state). Medians, their ratios, and each
 * rule's own part (the median difference). DIR (default /var/tmp) must not be below /dev/shm: the sandbox hides it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench_util.h"
#include "common/fsutil.h"
#include "common/xalloc.h"
#include "common/xalloc_cjson.h"

static int run(char *const argv[], const char *out_path, char **env_add)
{
	pid_t p = fork();
	if (p == 0) {
		for (char **e = env_add; e && *e; e++)
			putenv(*e);
		if (out_path) {
			FILE *f = freopen(out_path, "w", stdout);
			(void)f;
		} else if (!freopen("/dev/null", "w", stdout)) {
			_exit(127);
		}
		if (!freopen("/dev/null", "w", stderr))
			_exit(127);
		execv(argv[0], argv);
		_exit(127);
	}
	int st = 0;
	waitpid(p, &st, 0);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

int main(int argc, char **argv)
{
	xalloc_cjson_install();
	const char *belay = NULL, *base = "/var/tmp";
	int tests = 200, reps = 5;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--belay") && i + 1 < argc)
			belay = argv[++i];
		else if (!strcmp(argv[i], "--tests") && i + 1 < argc)
			tests = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--reps") && i + 1 < argc)
			reps = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--dir") && i + 1 < argc)
			base = argv[++i];
		else {
			fprintf(stderr, "usage: bench_census --belay PATH [--tests N] [--reps N] [--dir DIR]\n");
			return 2;
		}
	}
	if (!belay || tests < 10 || reps < 1) {
		fprintf(stderr, "bench_census: --belay PATH is required (tests >= 10, reps >= 1)\n");
		return 2;
	}
	struct err e = {0};
	char *dir = fs_mkdtemp_in(base, "bench-census-", &e);
	if (!dir) {
		fprintf(stderr, "bench_census: %s\n", e.msg);
		return 1;
	}
	chmod(dir, 0755);
	char *ws = fs_join(dir, "ws"), *tdir = fs_join(ws, "tests"), *state = fs_join(dir, "state"),
	     *traces = fs_join(dir, "traces");
	fs_mkdir_p(tdir, 0755, NULL);
	char *m = fs_join(ws, "calc.py");
	FILE *f = fopen(m, "w");
	fprintf(f, "def add(a, b):\n    return a + b\n");
	fclose(f);
	free(m);
	int files = (tests + 9) / 10, made = 0;
	for (int i = 0; i < files; i++) {
		char *p = xasprintf("%s/test_m%03d.py", tdir, i);
		f = fopen(p, "w");
		fprintf(f, "import pytest\nfrom calc import add\n\n");
		for (int k = 0; k < 10 && made < tests; k++, made++) {
			if (k % 2)
				fprintf(f, "@pytest.mark.parametrize('x', [1, 2])\ndef test_t%d(x):\n    assert add(x, %d) == x + %d\n\n", k,
					k, k);
			else
				fprintf(f, "def test_t%d():\n    assert add(%d, 1) == %d\n\n", k, k, k + 1);
		}
		fclose(f);
		free(p);
	}
	char *demo = xasprintf("%.*s/belay-demo-server", (int)(strrchr(belay, '/') ? strrchr(belay, '/') - belay : 1),
			       strrchr(belay, '/') ? belay : ".");
	char *steps = fs_join(dir, "steps.json");
	f = fopen(steps, "w");
	fprintf(f, "[{\"initialize\":{}},{\"list\":true},{\"call\":\"run_process\",\"args\":{\"command_line\":\"echo x > "
		   "notes.txt\"}},{\"claim\":\"all tests pass\"}]");
	fclose(f);
	char *tp = fs_join(dir, "trace.txt");
	char *tmpb = xasprintf("BELAY_SANDBOX_TMP_BASE=%s", dir);
	char *envs[] = {tmpb, NULL};
	char *rec[] = {(char *)belay, "__script", steps, "--state", state, "--trace-dir", traces, "--timeout", "60",
		       "--scope", ws, "--network", "deny", "--", demo, "shell", ws, NULL};
	if (run(rec, tp, envs) != 0) {
		fprintf(stderr, "bench_census: recording failed\n");
		return 1;
	}
	char trace[4096] = "";
	f = fopen(tp, "r");
	if (!f || !fgets(trace, sizeof trace, f)) {
		fprintf(stderr, "bench_census: no trace\n");
		return 1;
	}
	fclose(f);
	trace[strcspn(trace, "\n")] = '\0';
	double *plain = xcalloc((size_t)reps, sizeof *plain), *census = xcalloc((size_t)reps, sizeof *census);
	double *rederive = xcalloc((size_t)reps, sizeof *rederive);
	char *vr[] = {(char *)belay, "verify", trace, "--no-store", "--state", state, "--rederive", NULL};
	char *rout = fs_join(dir, "rederive.out");
	int rst = 0;
	char *vp[] = {(char *)belay, "verify", trace, "--no-store", "--state", state, NULL};
	char *vc[] = {(char *)belay, "verify", trace, "--no-store", "--state", state, "--census", NULL};
	char *cout = fs_join(dir, "census.out");
	int cst = 0;
	for (int r = 0; r < reps; r++) {
		double t0 = bench_now_ms();
		run(vp, NULL, envs);
		double t1 = bench_now_ms();
		cst = run(vc, cout, envs);
		double t2 = bench_now_ms();
		rst = run(vr, rout, envs);
		double t3 = bench_now_ms();
		plain[r] = t1 - t0;
		census[r] = t2 - t1;
		rederive[r] = t3 - t2;
	}
	qsort(rederive, (size_t)reps, sizeof *rederive, bench_cmp_double);
	qsort(plain, (size_t)reps, sizeof *plain, bench_cmp_double);
	qsort(census, (size_t)reps, sizeof *census, bench_cmp_double);
	double mp = plain[reps / 2], mc = census[reps / 2], mr = rederive[reps / 2];
	char line[512] = "";
	f = fopen(cout, "r");
	while (f && fgets(line, sizeof line, f))
		if (!strncmp(line, "census", 6))
			break;
	if (f)
		fclose(f);
	printf("project   %d tests in %d files (half parametrised over 2 values), one recorded call\n", tests, files);
	printf("census    %s", line[0] ? line : "(no census line)\n");
	printf("verify    plain %.0f ms, --census %.0f ms (median of %d; exit %d with --census)\n", mp, mc, reps, cst);
	printf("ratio     %.2fx; the census's own part %.0f ms per run (two contained discoveries, two restores)\n", mc / mp,
	       mc - mp);
	char tline[1024] = "";
	f = fopen(rout, "r");
	while (f && fgets(tline, sizeof tline, f))
		if (!strncmp(tline, "trajectory", 10))
			break;
	if (f)
		fclose(f);
	printf("rederive  %s", tline[0] ? tline : "(no trajectory line)\n");
	printf("verify    --rederive %.0f ms (median of %d; exit %d): %.2fx plain; the two contained suite runs and "
	       "restores %.0f ms per run\n",
	       mr, reps, rst, mr / mp, mr - mp);
	fs_remove_tree(dir);
	free(plain);
	free(census);
	free(rederive);
	free(rout);
	free(cout);
	free(tp);
	free(tmpb);
	free(steps);
	free(demo);
	free(ws);
	free(tdir);
	free(state);
	free(traces);
	free(dir);
	return 0;
}
