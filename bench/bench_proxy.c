/* bench_proxy.c - what belay proxy adds per round trip and to bulk throughput, measured
 * against a direct connection in the same run.
 *
 *   bench_proxy [--n 10000] [--mib 256] [--trace-dir DIR] [--fs-server JS]
 *
 * For each server (our echo server; server-filesystem when --fs-server is given):
 * latency = N sequential 1-line requests after 500 warm-ups (median, p99, added µs);
 * throughput = 64 KiB frames for MIB mebibytes then one request answered after all of them.
 * Direct and proxied runs alternate (2 reps each); medians across reps are printed. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "common/fsutil.h"

static const char *belay_bin = "build/belay";

static double now_us(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e6 + (double)t.tv_nsec / 1e3;
}

struct child {
	pid_t pid;
	int in, out;
	char buf[1 << 16];
	size_t have;
};

static void start(struct child *c, char **argv)
{
	int pi[2], po[2];
	if (pipe(pi) || pipe(po))
		exit(1);
	c->pid = fork();
	if (c->pid == 0) {
		dup2(pi[0], 0);
		dup2(po[1], 1);
		int devnull = open("/dev/null", O_WRONLY);
		dup2(devnull, 2);
		close(pi[1]);
		close(po[0]);
		execvp(argv[0], argv);
		_exit(127);
	}
	close(pi[0]);
	close(po[1]);
	c->in = pi[1];
	c->out = po[0];
	c->have = 0;
}

static void stop(struct child *c)
{
	close(c->in);
	char tmp[4096];
	while (read(c->out, tmp, sizeof tmp) > 0)
		;
	close(c->out);
	kill(c->pid, SIGTERM);
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

/* Reads until a line containing `needle` arrives; returns 0. */
static int read_reply(struct child *c, const char *needle)
{
	for (;;) {
		char *nl;
		while ((nl = memchr(c->buf, '\n', c->have)) != NULL) {
			size_t len = (size_t)(nl - c->buf) + 1;
			c->buf[len - 1] = '\0';
			int hit = strstr(c->buf, needle) != NULL;
			memmove(c->buf, c->buf + len, c->have - len);
			c->have -= len;
			if (hit)
				return 0;
		}
		ssize_t n = read(c->out, c->buf + c->have, sizeof c->buf - c->have);
		if (n <= 0)
			return -1;
		c->have += (size_t)n;
	}
}

static int cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

/* The body of each request after its id (the method and params). */
static const char *req_body = "\"method\":\"ping\"";

static void latency(char **argv, int n, double *median, double *p99)
{
	struct child c;
	start(&c, argv);
	double *t = malloc(sizeof(double) * (size_t)n);
	char req[512], needle[32];
	for (int i = -500; i < n; i++) {
		int id = i + 1000;
		int m = snprintf(req, sizeof req, "{\"jsonrpc\":\"2.0\",\"id\":%d,%s}\n", id, req_body);
		snprintf(needle, sizeof needle, "\"id\":%d", id);
		double t0 = now_us();
		write_all(c.in, req, (size_t)m);
		if (read_reply(&c, needle)) {
			fprintf(stderr, "bench: no reply from %s\n", argv[0]);
			exit(1);
		}
		if (i >= 0)
			t[i] = now_us() - t0;
	}
	qsort(t, (size_t)n, sizeof *t, cmp_d);
	*median = t[n / 2];
	*p99 = t[(size_t)(n * 0.99)];
	free(t);
	stop(&c);
}

static double throughput(char **argv, int mib)
{
	struct child c;
	start(&c, argv);
	/* One warm-up request so start-up is not measured. */
	write_all(c.in, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\n", 41);
	read_reply(&c, "\"id\":1");
	size_t frame = 65536;
	char *f = malloc(frame);
	const char *head = "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/blob\",\"params\":{\"d\":\"";
	size_t hl = strlen(head);
	memcpy(f, head, hl);
	memset(f + hl, 'x', frame - hl - 4);
	memcpy(f + frame - 4, "\"}}\n", 4);
	size_t frames = (size_t)mib * 16;
	double t0 = now_us();
	/* Write and drain replies concurrently (the echo server sends none for blobs). */
	for (size_t i = 0; i < frames; i++)
		write_all(c.in, f, frame);
	write_all(c.in, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"count\"}\n", 42);
	read_reply(&c, "\"id\":2");
	double secs = (now_us() - t0) / 1e6;
	free(f);
	stop(&c);
	return (double)frames * (double)frame / secs / 1e6;
}

static double median2(double a, double b)
{
	return (a + b) / 2;
}

static void bench_server(const char *label, char **direct, char **proxied, int n, int mib)
{
	double dm[2], dp[2], pm[2], pp[2], dt[2] = {0}, pt[2] = {0};
	for (int r = 0; r < 2; r++) {
		latency(direct, n, &dm[r], &dp[r]);
		latency(proxied, n, &pm[r], &pp[r]);
		if (mib > 0) {
			dt[r] = throughput(direct, mib);
			pt[r] = throughput(proxied, mib);
		}
	}
	double d_med = median2(dm[0], dm[1]), p_med = median2(pm[0], pm[1]);
	printf("%-18s latency  direct median %7.1f us p99 %7.1f | belay median %7.1f us p99 %7.1f | added %+6.1f us "
	       "(x%.2f)\n",
	       label, d_med, median2(dp[0], dp[1]), p_med, median2(pp[0], pp[1]), p_med - d_med, p_med / d_med);
	if (mib > 0)
		printf("%-18s 64KiB    direct %7.0f MB/s | belay %7.0f MB/s (x%.2f)\n", label, median2(dt[0], dt[1]),
		       median2(pt[0], pt[1]), median2(pt[0], pt[1]) / median2(dt[0], dt[1]));
	fflush(stdout);
}

int main(int argc, char **argv)
{
	int n = 10000, mib = 256;
	const char *trace_dir = "/dev/shm/belay-bench-traces", *fs_server = NULL;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--n") && i + 1 < argc)
			n = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--mib") && i + 1 < argc)
			mib = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--trace-dir") && i + 1 < argc)
			trace_dir = argv[++i];
		else if (!strcmp(argv[i], "--fs-server") && i + 1 < argc)
			fs_server = argv[++i];
		else if (!strcmp(argv[i], "--belay") && i + 1 < argc)
			belay_bin = argv[++i];
	}
	signal(SIGPIPE, SIG_IGN);
	char echo[4096];
	snprintf(echo, sizeof echo, "%s/bench_echo_server", getenv("BENCH_DIR") ? getenv("BENCH_DIR") : "build");
	printf("bench_proxy: N=%d round trips, %d MiB of 64 KiB frames, trace dir %s\n", n, mib, trace_dir);
	char *d1[] = {echo, NULL};
	char *p1[] = {(char *)belay_bin, "proxy", "--trace-dir", (char *)trace_dir, "--", echo, NULL};
	bench_server("echo (C)", d1, p1, n, mib);
	/* The trace alone (issue 2's figure): the live index (store writer) shares the machine's
	 * CPUs with the proxy, so the row above is the trace plus indexing. */
	char *pn[] = {(char *)belay_bin, "proxy", "--no-index", "--trace-dir", (char *)trace_dir, "--", echo, NULL};
	bench_server("echo, no index", d1, pn, n, mib);
	if (getenv("BENCH_NO_TRACE")) {
		char *p0[] = {(char *)belay_bin, "proxy", "--no-trace", "--", echo, NULL};
		bench_server("echo, no trace", d1, p0, n, mib);
	}
	/* The effect gate's cost per tools/call: the same call (a shell command the gate must
	 * parse and classify) with the gate off, in audit mode and in enforce mode (allowed). */
	{
		req_body = "\"method\":\"tools/call\",\"params\":{\"name\":\"run\",\"arguments\":{\"command\":"
			   "\"cd src && grep -rn TODO . | sort | head -20 > /dev/null && ls -la\"}}";
		const char *st = "/dev/shm/belay-bench-state";
		char *g0[] = {(char *)belay_bin, "proxy", "--state", (char *)st, "--trace-dir", (char *)trace_dir, "--", echo, NULL};
		char *ga[] = {(char *)belay_bin, "proxy", "--state", (char *)st, "--trace-dir", (char *)trace_dir, "--mode", "audit",
			      "--", echo, NULL};
		char *ge[] = {(char *)belay_bin, "proxy", "--state", (char *)st, "--trace-dir", (char *)trace_dir,
			      "--mode", "enforce", "--", echo, NULL};
		double m0[2], p0[2], ma[2], pa[2], me[2], pe[2];
		for (int r = 0; r < 2; r++) {
			latency(g0, n, &m0[r], &p0[r]);
			latency(ga, n, &ma[r], &pa[r]);
			latency(ge, n, &me[r], &pe[r]);
		}
		double b = median2(m0[0], m0[1]), a = median2(ma[0], ma[1]), e = median2(me[0], me[1]);
		printf("%-18s tools/call with a shell command: no gate median %7.1f us p99 %7.1f | audit %7.1f us "
		       "p99 %7.1f (%+.1f us) | enforce %7.1f us p99 %7.1f (%+.1f us)\n",
		       "gate", b, median2(p0[0], p0[1]), a, median2(pa[0], pa[1]), a - b, e, median2(pe[0], pe[1]), e - b);
		req_body = "\"method\":\"ping\"";
		fflush(stdout);
	}
	if (fs_server) {
		char *d2[] = {"node", (char *)fs_server, "/tmp", NULL};
		char *p2[] = {(char *)belay_bin, "proxy", "--trace-dir", (char *)trace_dir, "--", "node", (char *)fs_server, "/tmp", NULL};
		bench_server("server-filesystem", d2, p2, n, mib / 4);
	}
	return 0;
}
