/* bench_snapshot.c - per-turn pre-state cost of the snapshotter, next to a plain recursive
 * copy (`cp -a`) of the same tree in the same run. Prints figures; it is not a test.
 *
 *   bench_snapshot [--sizes s,m,l] [--turns 20] [--shm DIR] [--disk DIR] [--disk-size s|m|l|none]
 *                  [--copies N]
 *
 * Trees (pseudo-random content, deterministic):
 *   s  400 files in 20 dirs, 1-19 KiB (~4 MB)
 *   m  10,000 files in 100 dirs, 1-19 KiB (~100 MB)
 *   l  100,000 files in 1,100 dirs (2 levels), 128-1920 B (~100 MB)
 * For each tree: the initial capture (empty store) and the store size; then, for 0, 1 and
 * 100 files rewritten in place (same size, distinct files) before each turn, the capture
 * time over --turns turns after one warm-up (median, p99, max), with dirty tracking and
 * with the authority walk forced; and `cp -a` of the tree (--copies reps, median). */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "bench_util.h"
#include "common/fsutil.h"
#include "common/jsonx.h"
#include "common/xalloc.h"
#include "common/xalloc_cjson.h"
#include "snapshot/snapshot.h"


static double now_ms(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

struct tree {
	char name;
	char **files;
	size_t *sizes;
	size_t n;
	uint64_t bytes;
};

static void fill(char *buf, size_t n)
{
	for (size_t i = 0; i < n; i += 8) {
		uint64_t v = bench_rng();
		memcpy(buf + i, &v, n - i < 8 ? n - i : 8);
	}
}

static void gen(const char *root, char size, struct tree *t)
{
	size_t nfiles = size == 's' ? 400 : size == 'm' ? 10000 : 100000;
	size_t ndirs = size == 's' ? 20 : size == 'm' ? 100 : 100;
	memset(t, 0, sizeof *t);
	t->name = size;
	t->files = xcalloc(nfiles, sizeof *t->files);
	t->sizes = xcalloc(nfiles, sizeof *t->sizes);
	char *buf = xmalloc(20 << 10);
	struct err e;
	for (size_t i = 0; i < nfiles; i++) {
		char *dir;
		if (size == 'l') /* 100 top dirs x 10 subdirs (+ the 100 tops) = 1,100 dirs */
			dir = xasprintf("%s/d%02zu/s%zu", root, i % ndirs, (i / ndirs) % 10);
		else
			dir = xasprintf("%s/d%03zu", root, i % ndirs);
		if (i < ndirs * (size == 'l' ? 10 : 1))
			fs_mkdir_p(dir, 0755, &e);
		size_t sz = size == 'l' ? 128 + bench_rng() % 1793 : 1024 + bench_rng() % (18 << 10);
		fill(buf, sz);
		char *p = xasprintf("%s/f%06zu.bin", dir, i);
		int fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (fd < 0 || write(fd, buf, sz) != (ssize_t)sz)
			FATAL("cannot write %s", p);
		close(fd);
		t->files[i] = p;
		t->sizes[i] = sz;
		t->bytes += sz;
		free(dir);
	}
	free(buf);
	t->n = nfiles;
}

static void tree_free(struct tree *t)
{
	for (size_t i = 0; i < t->n; i++)
		free(t->files[i]);
	free(t->files);
	free(t->sizes);
}

/* Rewrites k distinct files in place (same size). */
static void mutate(struct tree *t, size_t k)
{
	char buf[64];
	size_t start = bench_rng() % t->n;
	for (size_t j = 0; j < k; j++) {
		size_t i = (start + j * 7919) % t->n;
		int fd = open(t->files[i], O_WRONLY);
		fill(buf, sizeof buf);
		if (fd < 0 || pwrite(fd, buf, t->sizes[i] < 64 ? t->sizes[i] : 64, 0) < 0)
			FATAL("cannot rewrite %s", t->files[i]);
		close(fd);
	}
}

static int cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

static double pct(double *v, size_t n, double p)
{
	size_t i = (size_t)(p * (double)(n - 1) + 0.5);
	return v[i < n ? i : n - 1];
}

struct series {
	double med, p99, max;
	long changed_min, changed_max;
	int walks_full;
};

static struct series run_turns(struct snapshotter *s, struct tree *t, size_t k, int turns)
{
	double *v = xcalloc((size_t)turns, sizeof *v);
	struct series r = {.changed_min = 1L << 40};
	for (int i = -1; i < turns; i++) {
		mutate(t, k);
		double t0 = now_ms();
		cJSON *h = snapshotter_capture(s);
		double dt = now_ms() - t0;
		if (strcmp(jx_str(h, "status"), "present") != 0) {
			char *txt = jx_print(h);
			FATAL("capture failed: %s", txt);
		}
		if (i >= 0) {
			v[i] = dt;
			long ch = (long)cJSON_GetObjectItem(h, "changed")->valuedouble;
			if (ch < r.changed_min)
				r.changed_min = ch;
			if (ch > r.changed_max)
				r.changed_max = ch;
			r.walks_full += strcmp(jx_str(h, "walk"), "full") == 0;
		}
		cJSON_Delete(h);
	}
	qsort(v, (size_t)turns, sizeof *v, cmp_d);
	r.med = pct(v, (size_t)turns, 0.5);
	r.p99 = pct(v, (size_t)turns, 0.99);
	r.max = v[turns - 1];
	free(v);
	return r;
}

static void bench_tree(const char *where, const char *fsname, char size, int turns, int copies)
{
	char *root = xasprintf("%s/belay-bench-%c-%d", where, size, (int)getpid());
	char *ws = fs_join(root, "ws"), *state = fs_join(root, "state");
	struct err e = {0};
	if (fs_mkdir_p(ws, 0755, &e))
		FATAL("%s", e.msg);
	struct tree t;
	double t0 = now_ms();
	gen(ws, size, &t);
	printf("\n== tree %c on %s (%s): %zu files, %.1f MB (generated in %.0f ms)\n", size, fsname, where, t.n,
	       (double)t.bytes / 1e6, now_ms() - t0);
	fflush(stdout);

	/* a plain recursive copy of the same tree, in this run */
	double *cp = xcalloc((size_t)copies, sizeof *cp);
	for (int i = 0; i < copies; i++) {
		char *dst = xasprintf("%s/copy%d", root, i);
		char *cmd = xasprintf("cp -a '%s' '%s'", ws, dst);
		double c0 = now_ms();
		if (system(cmd) != 0)
			FATAL("cp -a failed");
		cp[i] = now_ms() - c0;
		free(cmd);
		free(dst);
	}
	qsort(cp, (size_t)copies, sizeof *cp, cmp_d);
	printf("cp -a                      median %9.2f ms   min %9.2f   max %9.2f  (n=%d)\n", pct(cp, (size_t)copies, 0.5),
	       cp[0], cp[copies - 1], copies);
	free(cp);
	for (int i = 0; i < copies; i++) {
		char *dst = xasprintf("%s/copy%d", root, i);
		fs_remove_tree(dst);
		free(dst);
	}

	struct snap_store *st = NULL;
	struct snapshotter *s = NULL;
	t0 = now_ms();
	if (snap_store_open(state, ws, &st, &e) || snapshotter_open(st, ws, &s, &e))
		FATAL("%s", e.msg);
	cJSON *h = snapshotter_capture(s);
	double init = now_ms() - t0;
	if (strcmp(jx_str(h, "status"), "present") != 0)
		FATAL("initial capture failed");
	cJSON_Delete(h);
	struct snap_store_stats ss;
	snap_store_stats(st, &ss, &e);
	printf("initial snapshot           %9.1f ms   store: packs %.1f MB in %lld file(s), db %.1f MB, %lld objects\n",
	       init, (double)ss.pack_bytes / 1e6, (long long)ss.pack_files, (double)ss.db_bytes / 1e6,
	       (long long)ss.objects);

	struct snapshotter_policy pol;
	snapshotter_policy_default(&pol);
	pol.full_every_turns = 0; /* the periodic walk is reported separately below */
	pol.full_every_ms = 0;
	snapshotter_set_policy(s, &pol);
	static const size_t ks[] = {0, 1, 100};
	for (size_t i = 0; i < 3; i++) {
		struct series r = run_turns(s, &t, ks[i], turns);
		printf("turn, %3zu changed, inotify median %8.3f ms   p99 %8.3f   max %8.3f  (changed %ld..%ld, %d full "
		       "walks, n=%d)\n",
		       ks[i], r.med, r.p99, r.max, r.changed_min, r.changed_max, r.walks_full, turns);
		fflush(stdout);
	}
	pol.inotify = 0; /* every turn is the authority walk */
	snapshotter_set_policy(s, &pol);
	for (size_t i = 0; i < 3; i += 2) {
		struct series r = run_turns(s, &t, ks[i], turns);
		printf("turn, %3zu changed, walk    median %8.3f ms   p99 %8.3f   max %8.3f  (changed %ld..%ld, n=%d)\n",
		       ks[i], r.med, r.p99, r.max, r.changed_min, r.changed_max, turns);
		fflush(stdout);
	}
	snap_store_stats(st, &ss, &e);
	printf("store after %d turns        packs %.1f MB, db %.1f MB, %lld snapshots, %lld rows\n", 5 * (turns + 1) + 1,
	       (double)ss.pack_bytes / 1e6, (double)ss.db_bytes / 1e6, (long long)ss.snapshots,
	       (long long)ss.entries);
	snapshotter_free(s);
	snap_store_close(st);
	tree_free(&t);
	fs_remove_tree(root);
	free(root);
	free(ws);
	free(state);
}

int main(int argc, char **argv)
{
	xalloc_cjson_install();
	const char *sizes = "s,m,l", *shm = "/dev/shm", *disk = "/var/tmp", *disk_size = "m";
	int turns = 20, copies = 5;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--sizes") && i + 1 < argc)
			sizes = argv[++i];
		else if (!strcmp(argv[i], "--turns") && i + 1 < argc)
			turns = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--shm") && i + 1 < argc)
			shm = argv[++i];
		else if (!strcmp(argv[i], "--disk") && i + 1 < argc)
			disk = argv[++i];
		else if (!strcmp(argv[i], "--disk-size") && i + 1 < argc)
			disk_size = argv[++i];
		else if (!strcmp(argv[i], "--copies") && i + 1 < argc)
			copies = atoi(argv[++i]);
		else {
			fprintf(stderr, "usage: bench_snapshot [--sizes s,m,l] [--turns N] [--shm DIR] [--disk DIR] "
					"[--disk-size s|m|l|none] [--copies N]\n");
			return 2;
		}
	}
	if (turns < 2 || copies < 1) {
		fprintf(stderr, "bench_snapshot: --turns >= 2 and --copies >= 1\n");
		return 2;
	}
	printf("bench_snapshot: %d timed turns per series after 1 warm-up; times are wall clock per capture\n", turns);
	for (const char *c = sizes; *c; c++)
		if (*c == 's' || *c == 'm' || *c == 'l')
			bench_tree(shm, "tmpfs", *c, turns, copies);
	if (strcmp(disk_size, "none") != 0)
		bench_tree(disk, "ext4", disk_size[0], turns, copies < 3 ? copies : 3);
	return 0;
}
