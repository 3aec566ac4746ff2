/* bench_try.c - what a trial's mirror costs (docs/TRY.md), next to a plain recursive copy of
 * the same tree (`cp -a` + `rm -rf`, what the earlier system does per run) in the same run.
 * Prints figures; it is not a test.
 *
 *   bench_try [--sizes 400,10000,100000] [--reps 20] [--dir DIR] [--belay PATH]
 *
 * For each tree (N files of 100-1000 pseudo-random bytes, 100 per directory, on tmpfs):
 *   mirror     the mirror's own setup + teardown: the trial directory with its lock and
 *              layers made, the overlay mounted at the tree's path (in a user + mount
 *              namespace of its own, as the launcher does), unmounted, the layers removed
 *              (median and max of --reps)
 *   capture    the pre-state capture: the first one (empty store) and an incremental one
 *              (nothing changed), as belay's snapshotter does per call
 *   recheck    the check after a trial that the real tree did not change: an authority
 *              capture on the same snapshotter (every entry stat'ed, nothing re-hashed here)
 *   copy       cp -a + rm -rf of the tree (median of 3)
 *   trial      with --belay: a whole `belay try -- true` (sandbox, capture, run, record)
 * Then the effect diff (trial_effect_scan) of an upper layer holding 0, 10 and 1,000 changed
 * files over the 10,000-file tree (median of --reps). */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench_util.h"
#include "common/fsutil.h"
#include "common/jsonx.h"
#include "common/xalloc.h"
#include "common/xalloc_cjson.h"
#include "snapshot/snapshot.h"
#include "trial/trial.h"
#include "trial/trial_diff.h"
#include "trial/trial_effect.h"
#include "trial/trial_route.h"
#include "trial/trial_mirror.h"


static void make_tree(const char *ws, int n)
{
	char buf[1024];
	for (int i = 0; i < n; i++) {
		char *d = xasprintf("%s/d%d", ws, i / 100);
		if (i % 100 == 0 && fs_mkdir_p(d, 0755, NULL) != 0)
			exit(1);
		char *f = xasprintf("%s/f%d", d, i);
		size_t len = 100 + bench_rng() % 900;
		for (size_t k = 0; k < len; k++)
			buf[k] = (char)('a' + bench_rng() % 26);
		int fd = open(f, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (fd < 0 || fs_write_all(fd, buf, len) != 0)
			exit(1);
		close(fd);
		free(f);
		free(d);
	}
}

static double median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof *v, bench_cmp_double);
	return v[n / 2];
}

static int write_file(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	ssize_t n = write(fd, text, strlen(text));
	close(fd);
	return n == (ssize_t)strlen(text) ? 0 : -1;
}

/* In a child of its own (user + mount namespace): reps of the mirror's setup + teardown.
 * Writes the reps' times (ms) into out; returns 0, or -1 when overlays cannot be mounted. */
static int mirror_reps(const char *ws, const char *state, int reps, double *out)
{
	int p[2];
	if (pipe(p) != 0)
		return -1;
	pid_t pid = fork();
	if (pid == 0) {
		close(p[0]);
		uid_t uid = geteuid();
		gid_t gid = getegid();
		char map[64];
		if (unshare(CLONE_NEWUSER | CLONE_NEWNS) != 0 || write_file("/proc/self/setgroups", "deny") != 0)
			_exit(1);
		snprintf(map, sizeof map, "%u %u 1", (unsigned)uid, (unsigned)uid);
		if (write_file("/proc/self/uid_map", map) != 0)
			_exit(1);
		snprintf(map, sizeof map, "%u %u 1", (unsigned)gid, (unsigned)gid);
		if (write_file("/proc/self/gid_map", map) != 0 || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0)
			_exit(1);
		for (int r = 0; r < reps; r++) {
			double t0 = bench_now_ms();
			struct trial_mirror m;
			struct err e = {0};
			if (trial_mirror_create(state, &m, &e) != 0)
				_exit(1);
			char opts[3 * 4096];
			snprintf(opts, sizeof opts, "lowerdir=%s,upperdir=%s,workdir=%s,userxattr", ws, m.upper, m.work);
			if (mount("belay-trial", ws, "overlay", MS_NOSUID | MS_NODEV, opts) != 0) {
				fprintf(stderr, "bench_try: overlay: %s\n", strerror(errno));
				_exit(2);
			}
			if (umount2(ws, MNT_DETACH) != 0)
				_exit(1);
			trial_mirror_destroy(&m);
			double dt = bench_now_ms() - t0;
			if (write(p[1], &dt, sizeof dt) != sizeof dt)
				_exit(1);
		}
		_exit(0);
	}
	close(p[1]);
	int got = 0;
	while (got < reps && read(p[0], &out[got], sizeof out[got]) == (ssize_t)sizeof out[got])
		got++;
	close(p[0]);
	int st;
	waitpid(pid, &st, 0);
	return got == reps ? 0 : -1;
}

static double shell_ms(const char *cmd)
{
	double t0 = bench_now_ms();
	if (system(cmd) != 0)
		return -1;
	return bench_now_ms() - t0;
}

int main(int argc, char **argv)
{
	xalloc_cjson_install();
	const char *sizes = "400,10000,100000", *base = "/dev/shm", *belay = NULL;
	int reps = 20;
	for (int i = 1; i + 1 < argc; i += 2) {
		if (!strcmp(argv[i], "--sizes"))
			sizes = argv[i + 1];
		else if (!strcmp(argv[i], "--reps"))
			reps = atoi(argv[i + 1]);
		else if (!strcmp(argv[i], "--dir"))
			base = argv[i + 1];
		else if (!strcmp(argv[i], "--belay"))
			belay = argv[i + 1];
	}
	if (reps < 1)
		reps = 1;
	struct err e = {0};
	char *root = fs_mkdtemp_in(base, "bench-try-", &e);
	if (!root) {
		fprintf(stderr, "bench_try: %s\n", e.msg);
		return 1;
	}
	printf("bench_try: mirror setup+teardown vs cp -a (ms; machine shared, compare within one run)\n");
	printf("%8s %10s %10s %10s %10s %10s %10s %10s %8s %10s %10s\n", "files", "mirror_med", "mirror_max", "capture1",
	       "capture+", "recheck", "copy", "trial", "copy/mir", "gate1", "gate+");
	char *list = xstrdup(sizes), *save = NULL;
	char *ws10k = NULL;
	for (char *tok = strtok_r(list, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		int n = atoi(tok);
		char *ws = xasprintf("%s/ws%d", root, n), *state = xasprintf("%s/state%d", root, n);
		fs_mkdir_p(ws, 0755, NULL);
		make_tree(ws, n);
		double *v = xcalloc((size_t)reps, sizeof *v);
		double mmed = -1, mmax = -1;
		if (mirror_reps(ws, state, reps, v) == 0) {
			mmax = 0;
			for (int r = 0; r < reps; r++)
				mmax = v[r] > mmax ? v[r] : mmax;
			mmed = median(v, reps);
		}
		/* the pre-state capture: first, then incremental */
		struct snap_store *st = NULL;
		struct snapshotter *sn = NULL;
		double c1 = -1, c2 = -1, rh = -1;
		if (snap_store_open(state, ws, &st, &e) == 0 && snapshotter_open(st, ws, &sn, &e) == 0) {
			double t0 = bench_now_ms();
			cJSON_Delete(snapshotter_capture(sn));
			c1 = bench_now_ms() - t0;
			t0 = bench_now_ms();
			cJSON_Delete(snapshotter_capture(sn));
			c2 = bench_now_ms() - t0;
			snapshotter_request_full(sn);
			t0 = bench_now_ms();
			cJSON_Delete(snapshotter_capture(sn));
			rh = bench_now_ms() - t0;
		}
		snapshotter_free(sn);
		snap_store_close(st);
		double cp[3];
		for (int r = 0; r < 3; r++) {
			char *cmd = xasprintf("cp -a %s %s/copy && rm -rf %s/copy", ws, root, root);
			cp[r] = shell_ms(cmd);
			free(cmd);
		}
		double copy = median(cp, 3), trial = -1;
		if (belay) {
			char *cmd = xasprintf("cd %s && %s try --state %s -- true > /dev/null 2>&1", ws, belay, state);
			double tr[3];
			for (int r = 0; r < 3; r++)
				tr[r] = shell_ms(cmd);
			trial = median(tr, 3);
			free(cmd);
		}
		/* the gate's route in a proxy: trial_route_run in this process, its snapshotter kept
		 * across trials (gate1: the first trial, gate+: the median of the next four) */
		double g1 = -1, gw = -1;
		if (belay) {
			struct trial_route *tg = trial_route_new(ws, state, belay, 0);
			double gv[4];
			for (int r = 0; r < 5; r++) {
				double t0 = bench_now_ms();
				cJSON *res = trial_route_run(tg, "true", NULL);
				double ms = bench_now_ms() - t0;
				if (!jx_str(res, "id"))
					fprintf(stderr, "bench_try: gate trial: %s\n", jx_str(res, "error") ? jx_str(res, "error") : "?");
				else {
					struct err de = {0};
					trial_discard(state, jx_str(res, "id"), &de);
				}
				cJSON_Delete(res);
				if (r == 0)
					g1 = ms;
				else
					gv[r - 1] = ms;
			}
			gw = median(gv, 4);
			trial_route_free(tg);
		}
		printf("%8d %10.3f %10.3f %10.1f %10.1f %10.1f %10.1f %10.1f %8.0fx %10.1f %10.1f\n", n, mmed, mmax, c1, c2, rh,
		       copy, trial, mmed > 0 ? copy / mmed : 0.0, g1, gw);
		fflush(stdout);
		free(v);
		if (n == 10000)
			ws10k = xstrdup(ws);
		free(ws);
		free(state);
	}
	free(list);
	/* the effect diff: 0, 10, 1000 changed files in an upper layer over the 10k tree */
	if (!ws10k) {
		ws10k = xasprintf("%s/ws10000", root);
		fs_mkdir_p(ws10k, 0755, NULL);
		make_tree(ws10k, 10000);
	}
	/* the record's text diffs read the old side from the pre-state in the store */
	char *dstate = xasprintf("%s/state-diff", root);
	struct snap_store *dst = NULL;
	struct snapshotter *dsn = NULL;
	char *pre = NULL;
	if (snap_store_open(dstate, ws10k, &dst, &e) == 0 && snapshotter_open(dst, ws10k, &dsn, &e) == 0) {
		cJSON *h = snapshotter_capture(dsn);
		pre = jx_str(h, "handle") ? xstrdup(jx_str(h, "handle")) : NULL;
		cJSON_Delete(h);
	}
	printf("\neffect diff over 10,000 files (ms, median of %d; diffs: the record's text diffs of the changed files)\n"
	       "%8s %10s %10s %8s\n",
	       reps, "changed", "scan", "diffs", "entries");
	const int changed[] = {0, 10, 1000};
	for (int c = 0; c < 3; c++) {
		char *up = xasprintf("%s/upper%d", root, changed[c]);
		fs_mkdir_p(up, 0755, NULL);
		for (int i = 0; i < changed[c]; i++) {
			int k = (i * 7919) % 10000;
			char *d = xasprintf("%s/d%d", up, k / 100), *f = xasprintf("%s/f%d", d, k);
			fs_mkdir_p(d, 0755, NULL);
			int fd = open(f, O_WRONLY | O_CREAT | O_TRUNC, 0644);
			if (fd >= 0) {
				(void)!write(fd, "changed\n", 8);
				close(fd);
			}
			free(d);
			free(f);
		}
		double *v = xcalloc((size_t)reps, sizeof *v), *dv = xcalloc((size_t)reps, sizeof *dv);
		int entries = 0;
		for (int r = 0; r < reps; r++) {
			struct trial_effect eff;
			double t0 = bench_now_ms();
			if (trial_effect_scan(up, ws10k, &eff, &e) != 0) {
				fprintf(stderr, "bench_try: %s\n", e.msg);
				return 1;
			}
			v[r] = bench_now_ms() - t0;
			entries = cJSON_GetArraySize(eff.items);
			t0 = bench_now_ms();
			trial_diff_add(eff.items, dst, pre, up);
			dv[r] = pre ? bench_now_ms() - t0 : -1;
			trial_effect_free(&eff);
		}
		printf("%8d %10.3f %10.3f %8d\n", changed[c], median(v, reps), median(dv, reps), entries);
		free(v);
		free(dv);
		free(up);
	}
	snapshotter_free(dsn);
	snap_store_close(dst);
	free(pre);
	free(dstate);
	free(ws10k);
	fs_remove_tree(root);
	free(root);
	return 0;
}
