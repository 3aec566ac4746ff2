/* bench_store.c - what the store and the corpus cost.
 *
 *   bench_store [--belay build/belay] [--turns 5000] [--cases 100000] [--files 10000]
 *               [--dir /dev/shm] [--only index|score|add]
 *
 * index: N sequential tools/call round trips through `belay proxy` to the echo server, with
 *        the live index on and off (alternating, 3 reps each): round-trip median/p99, and the
 *        store writer's own time in transactions per turn (BELAY_INDEX_STATS); the same with
 *        --scope (a snapshot per turn into the same database); then `belay index` of the trace.
 * score: corpus_score over N synthetic labeled cases (in-process, best and median of 7) and
 *        `belay corpus score` wall time.
 * add:   a recorded run over a workspace of F small files: `belay corpus add` time, what the
 *        store grew by, the exported file's size, import into a fresh store, and a second
 *        case of the same run (its objects are shared: stored once). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "common/fsutil.h"
#include "common/xalloc.h"
#include "common/xalloc_cjson.h"
#include "corpus/corpus.h"

static const char *belay = "build/belay";
static char echo_server[4096], demo_server[4096];

static double now_us(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e6 + (double)t.tv_nsec / 1e3;
}

static int cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

/*==== a child with pipes ====*/

struct child {
	pid_t pid;
	int in, out, err;
	char buf[1 << 16];
	size_t have;
	char errbuf[8192];
	size_t errlen;
};

static void start(struct child *c, char *const *argv, const char *env)
{
	int pi[2], po[2], pe[2];
	if (pipe(pi) || pipe(po) || pipe(pe))
		exit(1);
	c->pid = fork();
	if (c->pid == 0) {
		dup2(pi[0], 0);
		dup2(po[1], 1);
		dup2(pe[1], 2);
		close(pi[1]);
		close(po[0]);
		close(pe[0]);
		if (env)
			putenv((char *)env);
		execvp(argv[0], argv);
		_exit(127);
	}
	close(pi[0]);
	close(po[1]);
	close(pe[1]);
	c->in = pi[1];
	c->out = po[0];
	c->err = pe[0];
	c->have = c->errlen = 0;
}

static void drain_err(struct child *c)
{
	char tmp[4096];
	struct pollfd p = {c->err, POLLIN, 0};
	while (poll(&p, 1, 0) > 0 && (p.revents & POLLIN)) {
		ssize_t n = read(c->err, tmp, sizeof tmp);
		if (n <= 0)
			break;
		size_t room = sizeof c->errbuf - 1 - c->errlen;
		size_t k = (size_t)n < room ? (size_t)n : room;
		memcpy(c->errbuf + c->errlen, tmp, k);
		c->errlen += k;
		c->errbuf[c->errlen] = '\0';
	}
}

static void finish(struct child *c)
{
	close(c->in);
	char tmp[4096];
	while (read(c->out, tmp, sizeof tmp) > 0)
		;
	ssize_t n;
	while ((n = read(c->err, tmp, sizeof tmp)) > 0) {
		size_t room = sizeof c->errbuf - 1 - c->errlen;
		size_t k = (size_t)n < room ? (size_t)n : room;
		memcpy(c->errbuf + c->errlen, tmp, k);
		c->errlen += k;
		c->errbuf[c->errlen] = '\0';
	}
	close(c->out);
	close(c->err);
	waitpid(c->pid, NULL, 0);
}

static void write_all(int fd, const char *p, size_t n)
{
	int rc = fs_write_all(fd, p, n);
	if (rc) {
		fprintf(stderr, "write: %s\n", strerror(-rc));
		exit(1);
	}
}

/* Reads until a full line containing needle arrives (replies come in order). */
static void read_reply(struct child *c, const char *needle)
{
	for (;;) {
		char *nl;
		while ((nl = memchr(c->buf, '\n', c->have)) != NULL) {
			size_t len = (size_t)(nl - c->buf) + 1;
			*nl = '\0';
			int hit = strstr(c->buf, needle) != NULL;
			memmove(c->buf, c->buf + len, c->have - len);
			c->have -= len;
			if (hit)
				return;
		}
		struct pollfd p[2] = {{c->out, POLLIN, 0}, {c->err, POLLIN, 0}};
		if (poll(p, 2, 30000) <= 0) {
			fprintf(stderr, "bench: no reply (%s)\n", c->errbuf);
			exit(1);
		}
		if (p[1].revents)
			drain_err(c);
		if (p[0].revents) {
			ssize_t n = read(c->out, c->buf + c->have, sizeof c->buf - c->have);
			if (n <= 0) {
				fprintf(stderr, "bench: the server went away (%s)\n", c->errbuf);
				exit(1);
			}
			c->have += (size_t)n;
		}
	}
}

static int run_cmd(char *const *argv, double *ms)
{
	double t0 = now_us();
	pid_t pid = fork();
	if (pid == 0) {
		int devnull = open("/dev/null", O_WRONLY);
		dup2(devnull, 1);
		execvp(argv[0], argv);
		_exit(127);
	}
	int st;
	waitpid(pid, &st, 0);
	if (ms)
		*ms = (now_us() - t0) / 1000.0;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

static long long du(const char *path)
{
	struct stat sb;
	if (lstat(path, &sb) != 0)
		return 0;
	if (!S_ISDIR(sb.st_mode))
		return (long long)sb.st_size;
	long long total = 0;
	DIR *d = opendir(path);
	struct dirent *de;
	while (d && (de = readdir(d)) != NULL) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		char *p = fs_join(path, de->d_name);
		total += du(p);
		free(p);
	}
	if (d)
		closedir(d);
	return total;
}

/*==== index: the live store writer ====*/

struct lat {
	double median, p99, index_ms;
	unsigned long long lines, batches;
};

static void one_session(const char *base, const char *scope, int index, int turns, struct lat *out)
{
	char *traces = fs_join(base, "traces"), *state = fs_join(base, "state");
	char *argv[16];
	int k = 0;
	argv[k++] = (char *)belay;
	argv[k++] = "proxy";
	argv[k++] = "--trace-dir";
	argv[k++] = traces;
	argv[k++] = "--state";
	argv[k++] = state;
	if (scope) {
		argv[k++] = "--scope";
		argv[k++] = (char *)scope;
	}
	if (!index)
		argv[k++] = "--no-index";
	argv[k++] = "--";
	argv[k++] = scope ? demo_server : echo_server;
	if (scope) {
		argv[k++] = "clock";
		argv[k++] = (char *)scope;
	}
	argv[k] = NULL;
	struct child c;
	start(&c, argv, "BELAY_INDEX_STATS=1");
	double *t = xcalloc((size_t)turns, sizeof *t);
	char req[256], needle[32];
	const int warm = 200;
	for (int i = -warm; i < turns; i++) {
		int id = i + warm + 1;
		int m = snprintf(req, sizeof req,
				 "{\"jsonrpc\":\"2.0\",\"id\":%d,\"method\":\"tools/call\",\"params\":{\"name\":\"%s\","
				 "\"arguments\":{\"i\":%d}}}\n",
				 id, scope ? "now" : "echo", id);
		snprintf(needle, sizeof needle, "\"id\":%d", id);
		double t0 = now_us();
		write_all(c.in, req, (size_t)m);
		read_reply(&c, needle);
		if (i >= 0)
			t[i] = now_us() - t0;
		if ((i & 255) == 0)
			drain_err(&c);
	}
	finish(&c);
	qsort(t, (size_t)turns, sizeof *t, cmp_d);
	out->median = t[turns / 2];
	out->p99 = t[(size_t)(turns * 0.99)];
	out->index_ms = 0;
	out->lines = out->batches = 0;
	const char *s = strstr(c.errbuf, "belay: index: ");
	if (s)
		sscanf(s, "belay: index: %llu line(s), %llu batch(es), %lf ms", &out->lines, &out->batches,
		       &out->index_ms);
	else if (index)
		fprintf(stderr, "bench: no index stats: %s\n", c.errbuf);
	free(t);
	free(traces);
	free(state);
}

static void bench_index(const char *base, int turns)
{
	printf("== live index: %d sequential tools/call turns through belay proxy (after 200 warm-up)\n", turns);
	for (int scoped = 0; scoped < 2; scoped++) {
		char *ws = NULL;
		int n = scoped ? turns / 5 : turns;
		if (scoped) {
			ws = fs_join(base, "ws");
			fs_mkdir_p(ws, 0755, NULL);
			for (int i = 0; i < 100; i++) {
				char name[32];
				snprintf(name, sizeof name, "f%03d.txt", i);
				char *p = fs_join(ws, name);
				FILE *f = fopen(p, "w");
				fprintf(f, "file %d\n", i);
				fclose(f);
				free(p);
			}
		}
		double on_med[3], on_p99[3], off_med[3], off_p99[3], cost[3];
		unsigned long long lines = 0, batches = 0;
		for (int r = 0; r < 3; r++) {
			struct lat a, b;
			char *d1 = xasprintf("%s/idx-%d-%d-on", base, scoped, r),
			     *d0 = xasprintf("%s/idx-%d-%d-off", base, scoped, r);
			one_session(d0, ws, 0, n, &b);
			one_session(d1, ws, 1, n, &a);
			on_med[r] = a.median;
			on_p99[r] = a.p99;
			off_med[r] = b.median;
			off_p99[r] = b.p99;
			cost[r] = a.index_ms * 1000.0 / (n + 200);
			lines = a.lines;
			batches = a.batches;
			free(d1);
			free(d0);
		}
		qsort(on_med, 3, sizeof(double), cmp_d);
		qsort(on_p99, 3, sizeof(double), cmp_d);
		qsort(off_med, 3, sizeof(double), cmp_d);
		qsort(off_p99, 3, sizeof(double), cmp_d);
		qsort(cost, 3, sizeof(double), cmp_d);
		printf("%-24s round trip  --no-index median %7.1f us p99 %7.1f | indexed median %7.1f us p99 %7.1f | "
		       "added %+6.1f us\n",
		       scoped ? "with --scope (snapshots)" : "echo server", off_med[1], off_p99[1], on_med[1],
		       on_p99[1], on_med[1] - off_med[1]);
		printf("%-24s store writer: %.1f us of transaction time per turn (median of 3; %llu lines in %llu "
		       "batches), on its own thread\n",
		       "", cost[1], lines, batches);
		free(ws);
	}
	/* Offline: belay index of the last unscoped trace. */
	char *tdir = xasprintf("%s/idx-0-2-on/traces", base);
	DIR *d = opendir(tdir);
	struct dirent *de;
	char *trace = NULL;
	while (d && (de = readdir(d)) != NULL)
		if (!strncmp(de->d_name, "trace-", 6))
			trace = fs_join(tdir, de->d_name);
	if (d)
		closedir(d);
	if (trace) {
		char *st = xasprintf("%s/offline-state", base);
		char *argv[] = {(char *)belay, "index", "--state", st, trace, NULL};
		double ms[3];
		for (int i = 0; i < 3; i++)
			run_cmd(argv, &ms[i]);
		qsort(ms, 3, sizeof(double), cmp_d);
		printf("%-24s belay index of that trace (%d turns, %.1f MB): %.0f ms (median of 3), %.1f us per turn\n",
		       "", turns + 200, (double)du(trace) / 1e6, ms[1], ms[1] * 1000 / (turns + 200));
		free(st);
		free(trace);
	}
	free(tdir);
}

/*==== score ====*/

static void bench_score(const char *base, int ncases)
{
	printf("== corpus score over %d synthetic cases\n", ncases);
	char *state = fs_join(base, "score-state");
	struct corpus *c = NULL;
	struct err e = {0};
	if (corpus_open(state, &c, &e) != 0) {
		fprintf(stderr, "bench: %s\n", e.msg);
		exit(1);
	}
	corpus_close(c);
	/* Fill through a plain connection (the bench is not the engine; labels are synthetic). */
	char *dbp = fs_join(state, "belay.db");
	sqlite3 *db;
	sqlite3_open(dbp, &db);
	sqlite3_exec(db, "PRAGMA foreign_keys = ON; BEGIN", NULL, NULL, NULL);
	sqlite3_stmt *ic, *il;
	sqlite3_prepare_v2(
	    db,
	    "INSERT INTO cases(id, kind, run, turn, tool, created, belay_version, origin, platform, "
	    "server_argv, policy, replays, timeout_ms, handle, expected_status, expected) VALUES (?1, 'turn', "
	    "?2, ?3, 'write_file', '2026-11-29T00:00:00+00:00', '0.1.0', 'add', 'linux', '[\"server\"]', "
	    "'[{\"scope\":\"tests\",\"rule\":\"no-assertion-weakening\"}]', 3, 10000, "
	    "'0123456789abcdef0123456789abcdef', ?4, ?5)",
	    -1, &ic, NULL);
	sqlite3_prepare_v2(
	    db,
	    "INSERT INTO labels(case_id, label, note, root_cause, miss, at, by) VALUES (?1, ?2, NULL, ?3, ?4, "
	    "'2026-11-29T00:00:00+00:00', 'bench')",
	    -1, &il, NULL);
	static const char *const statuses[] = {"PASS", "WARN", "UNVERIFIED", "FAIL", "FAIL"};
	static const char *const labels[] = {"true-positive", "false-positive", "unverifiable", "pending"};
	unsigned seed = 42;
	for (int i = 0; i < ncases; i++) {
		char id[64], run[48];
		snprintf(run, sizeof run, "trace-20261129T000000Z-%08x", i / 8);
		snprintf(id, sizeof id, "%s-turn%d", run, i % 8);
		const char *st = statuses[rand_r(&seed) % 5];
		sqlite3_bind_text(ic, 1, id, -1, SQLITE_TRANSIENT);
		sqlite3_bind_text(ic, 2, run, -1, SQLITE_TRANSIENT);
		sqlite3_bind_int(ic, 3, i % 8);
		sqlite3_bind_text(ic, 4, st, -1, SQLITE_STATIC);
		char exp[160];
		snprintf(exp, sizeof exp,
			 "{\"turn\":%d,\"tool\":\"write_file\",\"status\":\"%s\",\"cause\":null,\"verdicts\":[]}",
			 i % 8, st);
		sqlite3_bind_text(ic, 5, exp, -1, SQLITE_TRANSIENT);
		sqlite3_step(ic);
		sqlite3_reset(ic);
		int nl = (int)(rand_r(&seed) % 3); /* 0..2 label rows: pending, or a history */
		for (int k = 0; k < nl; k++) {
			const char *l = labels[rand_r(&seed) % 4];
			sqlite3_bind_text(il, 1, id, -1, SQLITE_TRANSIENT);
			sqlite3_bind_text(il, 2, l, -1, SQLITE_STATIC);
			if (!strcmp(l, "true-positive") && rand_r(&seed) % 2)
				sqlite3_bind_text(il, 3, "weak-assert", -1, SQLITE_STATIC);
			else
				sqlite3_bind_null(il, 3);
			sqlite3_bind_int(il, 4,
					 !strcmp(l, "true-positive") && strcmp(st, "FAIL") && rand_r(&seed) % 4 == 0);
			sqlite3_step(il);
			sqlite3_reset(il);
		}
	}
	sqlite3_finalize(ic);
	sqlite3_finalize(il);
	sqlite3_exec(db, "COMMIT; PRAGMA wal_checkpoint(TRUNCATE)", NULL, NULL, NULL);
	sqlite3_close(db);
	if (corpus_open(state, &c, &e) != 0) {
		fprintf(stderr, "bench: %s\n", e.msg);
		exit(1);
	}
	double t[7];
	struct corpus_score s;
	for (int i = 0; i < 7; i++) {
		double t0 = now_us();
		corpus_score(c, &s, &e);
		t[i] = (now_us() - t0) / 1000.0;
	}
	corpus_close(c);
	qsort(t, 7, sizeof(double), cmp_d);
	char p[16], r[16], cov[16];
	long judged = s.tp + s.fp + s.fn + s.tn;
	corpus_ratio(s.tp, s.tp + s.fp, p);
	corpus_ratio(s.tp, s.tp + s.fn, r);
	corpus_ratio(judged, judged + s.unverified, cov);
	printf("corpus_score (in process): best %.1f ms, median %.1f ms  (%ld cases: precision %s, recall %s, coverage "
	       "%s)\n",
	       t[0], t[3], s.cases, p, r, cov);
	char *argv[] = {(char *)belay, "corpus", "score", "--state", state, NULL};
	double w[5];
	for (int i = 0; i < 5; i++)
		run_cmd(argv, &w[i]);
	qsort(w, 5, sizeof(double), cmp_d);
	printf("belay corpus score (whole process, open + migrate check + score + print): median %.1f ms (best %.1f)\n",
	       w[2], w[0]);
	printf("database: %.1f MB for %d cases\n", (double)du(dbp) / 1e6, ncases);
	free(dbp);
	free(state);
}

/*==== add: a case over a large pre-state ====*/

static const char *const session_lines[] = {
    "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-06-18\","
    "\"capabilities\":{},\"clientInfo\":{\"name\":\"bench\",\"version\":\"1\"}}}",
    "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}",
    "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/list\",\"params\":{}}",
    "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/"
    "call\",\"params\":{\"name\":\"read_file\",\"arguments\":{\"path\":"
    "\"tests/test_a.py\"}}}",
    "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"tools/"
    "call\",\"params\":{\"name\":\"write_file\",\"arguments\":{\"path\":"
    "\"tests/test_a.py\",\"content\":\"def test_a():\\n    assert True\\n\"}}}",
    "{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"tools/"
    "call\",\"params\":{\"name\":\"read_file\",\"arguments\":{\"path\":"
    "\"src/d07/f0042.txt\"}}}",
    NULL,
};

static char *last_line_of(char *const *argv, double *ms, int *status)
{
	int po[2];
	if (pipe(po))
		exit(1);
	double t0 = now_us();
	pid_t pid = fork();
	if (pid == 0) {
		dup2(po[1], 1);
		close(po[0]);
		execvp(argv[0], argv);
		_exit(127);
	}
	close(po[1]);
	char buf[65536];
	size_t have = 0;
	ssize_t n;
	while ((n = read(po[0], buf + have, sizeof buf - 1 - have)) > 0)
		have += (size_t)n;
	close(po[0]);
	buf[have] = '\0';
	int st;
	waitpid(pid, &st, 0);
	*ms = (now_us() - t0) / 1000.0;
	*status = WIFEXITED(st) ? WEXITSTATUS(st) : 128;
	while (have && buf[have - 1] == '\n')
		buf[--have] = '\0';
	char *nl = strrchr(buf, '\n');
	return xstrdup(nl ? nl + 1 : buf);
}

static void bench_add(const char *base, int files)
{
	printf("== corpus add over a %d-file pre-state\n", files);
	char *ws = fs_join(base, "add-ws"), *state = fs_join(base, "add-state"), *traces = fs_join(base, "add-traces");
	char *tests = fs_join(ws, "tests");
	fs_mkdir_p(tests, 0755, NULL);
	char *t = fs_join(tests, "test_a.py");
	FILE *f = fopen(t, "w");
	fputs("def test_a():\n    assert 1 + 1 == 2\n", f);
	fclose(f);
	free(t);
	long long content = 0;
	char line[1100];
	for (int i = 0; i < files; i++) {
		char rel[64];
		snprintf(rel, sizeof rel, "src/d%02d", i / 1000);
		char *d = fs_join(ws, rel);
		fs_mkdir_p(d, 0755, NULL);
		snprintf(rel, sizeof rel, "f%04d.txt", i % 1000);
		char *p = fs_join(d, rel);
		f = fopen(p, "w");
		int len = snprintf(line, sizeof line, "file %d: ", i);
		for (; len < 1000; len++)
			line[len] = (char)('a' + (i * 7 + len) % 26);
		line[len++] = '\n';
		fwrite(line, 1, (size_t)len, f);
		fclose(f);
		content += len;
		free(p);
		free(d);
	}
	char *argv[] = {(char *)belay, "proxy", "--scope",   ws,       "--state", state, "--trace-dir",
			traces,	       "--",	demo_server, "editor", ws,	  NULL};
	struct child c;
	double t0 = now_us();
	start(&c, argv, NULL);
	int id = 0;
	for (const char *const *l = session_lines; *l; l++) {
		write_all(c.in, *l, strlen(*l));
		write_all(c.in, "\n", 1);
		if (strstr(*l, "\"id\"")) {
			char needle[32];
			snprintf(needle, sizeof needle, "\"id\":%d", ++id);
			read_reply(&c, needle);
		}
	}
	finish(&c);
	printf("recorded a 3-turn session over %d files (%.1f MB): %.0f ms\n", files + 1, (double)content / 1e6,
	       (now_us() - t0) / 1000.0);
	DIR *d = opendir(traces);
	struct dirent *de;
	char *trace = NULL;
	while (d && (de = readdir(d)) != NULL)
		if (!strncmp(de->d_name, "trace-", 6))
			trace = fs_join(traces, de->d_name);
	if (d)
		closedir(d);
	char *db = fs_join(state, "belay.db"), *wal = xasprintf("%s-wal", db), *objs = fs_join(state, "objects");
	char *ckpt[] = {(char *)belay, "runs", "--state", state, NULL};
	run_cmd(ckpt, NULL); /* one more open/close: the WAL is checkpointed into the database */
	long long db0 = du(db) + du(wal), obj0 = du(objs);
	double ms;
	int st;
	char *add1[] = {(char *)belay, "corpus", "add", trace, "--turn", "1", "--state", state, NULL};
	char *id1 = last_line_of(add1, &ms, &st);
	run_cmd(ckpt, NULL);
	long long db1 = du(db) + du(wal), obj1 = du(objs);
	printf(
	    "corpus add --turn 1 (replay: restore the pre-state and the task's, run, judge): %.0f ms, exit %d -> %s\n",
	    ms, st, id1);
	printf("  the store grew by %lld bytes of database and %lld bytes of objects (the pre-states were already "
	       "there)\n",
	       db1 - db0, obj1 - obj0);
	char *add2[] = {(char *)belay, "corpus", "add", trace, "--turn", "2", "--state", state, NULL};
	char *id2 = last_line_of(add2, &ms, &st);
	run_cmd(ckpt, NULL);
	long long db2 = du(db) + du(wal), obj2 = du(objs);
	printf("second case, --turn 2 of the same run: %.0f ms; the store grew by %lld bytes of database and %lld of "
	       "objects\n",
	       ms, db2 - db1, obj2 - obj1);
	char *f1 = fs_join(base, "add-1.belay"), *f2 = fs_join(base, "add-2.belay");
	unlink(f1);
	unlink(f2);
	char *ex1[] = {(char *)belay, "corpus", "export", id1, f1, "--state", state, NULL};
	char *ex2[] = {(char *)belay, "corpus", "export", id2, f2, "--state", state, NULL};
	run_cmd(ex1, &ms);
	printf("export %s: %.0f ms, %.1f MB file\n", id1, ms, (double)du(f1) / 1e6);
	run_cmd(ex2, &ms);
	printf("export %s: %.0f ms, %.1f MB file\n", id2, ms, (double)du(f2) / 1e6);
	char *fresh = fs_join(base, "add-fresh"), *fobjs = fs_join(fresh, "objects");
	char *im1[] = {(char *)belay, "corpus", "import", f1, "--state", fresh, NULL};
	char *im2[] = {(char *)belay, "corpus", "import", f2, "--state", fresh, NULL};
	run_cmd(im1, &ms);
	long long fo1 = du(fobjs);
	printf("import the first into a fresh store: %.0f ms, %.1f MB of objects\n", ms, (double)fo1 / 1e6);
	run_cmd(im2, &ms);
	printf("import the second: %.0f ms, objects grew by %lld bytes (shared objects are stored once)\n", ms,
	       du(fobjs) - fo1);
	char *runs[] = {(char *)belay, "corpus", "run", "--state", fresh, NULL};
	st = run_cmd(runs, &ms);
	printf("corpus run there (2 cases, real replays of %d-file pre-states): %.0f ms, exit %d\n", files + 1, ms, st);
	free(fresh);
	free(fobjs);
	free(f1);
	free(f2);
	free(id1);
	free(id2);
	free(db);
	free(wal);
	free(objs);
	free(trace);
	free(ws);
	free(state);
	free(traces);
	free(tests);
}

int main(int argc, char **argv)
{
	xalloc_cjson_install();
	int turns = 5000, cases = 100000, files = 10000;
	const char *base = "/dev/shm", *only = NULL;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--belay") && i + 1 < argc)
			belay = argv[++i];
		else if (!strcmp(argv[i], "--turns") && i + 1 < argc)
			turns = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--cases") && i + 1 < argc)
			cases = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--files") && i + 1 < argc)
			files = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--dir") && i + 1 < argc)
			base = argv[++i];
		else if (!strcmp(argv[i], "--only") && i + 1 < argc)
			only = argv[++i];
		else {
			fprintf(stderr,
				"usage: bench_store [--belay PATH] [--turns N] [--cases N] [--files N] [--dir DIR] "
				"[--only index|score|add]\n");
			return 2;
		}
	}
	char *abs = realpath(belay, NULL);
	if (!abs) {
		fprintf(stderr, "bench: no belay binary at %s\n", belay);
		return 2;
	}
	belay = abs;
	char *bd = xstrndup(abs, (size_t)(strrchr(abs, '/') - abs));
	snprintf(echo_server, sizeof echo_server, "%s/bench_echo_server", bd);
	snprintf(demo_server, sizeof demo_server, "%s/belay-demo-server", bd);
	free(bd);
	struct err e = {0};
	char *dir = fs_mkdtemp_in(base, "belay-bench-store-", &e);
	if (!dir) {
		fprintf(stderr, "bench: %s\n", e.msg);
		return 1;
	}
	if (!only || !strcmp(only, "index"))
		bench_index(dir, turns);
	if (!only || !strcmp(only, "score"))
		bench_score(dir, cases);
	if (!only || !strcmp(only, "add"))
		bench_add(dir, files);
	fs_remove_tree(dir);
	free(dir);
	free(abs);
	return 0;
}
