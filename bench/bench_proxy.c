/* bench_proxy.c - what belay proxy adds per round trip and to bulk throughput, measured
 * against direct connections interleaved with it in the same run.
 *
 *   bench_proxy [--pairs 5] [--n 3000] [--warm 300] [--mib 256] [--tpairs 3] [--quick]
 *               [--only c,python,node,bulk,gate] [--belay PATH] [--trace-dir DIR] [--state DIR]
 *               [--slice-ab] [--writer-ab] [--noise]
 *
 * Latency rows: three peer sets, each client timing its own sequential tools/call round
 * trips after `warm` untimed ones -
 *   c       this program and bench_echo_server (C on both ends),
 *   python  bench/peers/rpc_client.py and bench/peers/echo_server.py (plain stdlib),
 *   node    tests/peers/bench-client.mjs (the MCP SDK Client) and the real
 *           @modelcontextprotocol/server-filesystem (list_allowed_directories),
 * the clients started as agents start them (HOME, LOGNAME, PATH, SHELL, TERM, USER; the
 * current directory as cwd). For each proxy mode - --no-trace, trace without the live index
 * (--no-index), trace + live index (the default) - and first for the relay floor (bench_relay
 * in belay's place: a process that only forwards, the least any proxy process adds) - in
 * `pairs` rounds, each a pair of runs per mode (a direct run and a proxied one, which goes
 * first alternating), the modes in a rotating order; every pair is printed with its
 * difference, then per mode the median over the rounds of the difference in median, p98 and
 * p99 (the p98 beside the goals' p99: with Node peers the p99 falls among the garbage
 * collectors' pauses, which are as long direct, and the tail belay thickens shows a step
 * earlier - docs/PERFORMANCE.md, "Eighth pass"). The proxy's own counters (BELAY_PROXY_STATS:
 * the trace writer's back-pressure count, largest backlog and rescues, the index's
 * read-backs and priority) are printed beside each pair, with the CPU per call of the loop,
 * the trace (idle writer + rescue + serialisers) and the index,
 * and the share of the CPU the host took while the round ran beside each round (steal,
 * /proc/stat: on a shared host that share sets the tail, whatever runs in the middle).
 * --slice-ab adds trace + index with the kernel's own slice (--slice-us 0) beside the
 * default, the A/B of the forwarding thread's short slice (proxy/loop_slice.h); --writer-ab
 * adds trace + index with the trace writer at normal priority (--trace-writer normal), the A/B
 * of the idle-priority writer (trace/trace_writer.h). --noise
 * adds a pair of two direct runs to each round (the row "direct vs direct"): the median
 * |difference| between identical arms, the size of a difference that means nothing on this
 * machine now.
 *
 * Bulk: 64 KiB notifications for `mib` MiB, then one request answered after all of them,
 * direct and per mode, `tpairs` pairs. Gate: the effect gate's cost per tools/call (off,
 * audit, enforce). --quick: 2 pairs of 300 calls, 16 MiB, 1 bulk pair (a smoke run). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bench_util.h"
#include "common/fsutil.h"
#include "common/xalloc_cjson.h"

static const char *belay_bin = "build/belay";
static const char *trace_dir = "/dev/shm/belay-bench-traces";
static const char *state_dir = "/dev/shm/belay-bench-state";
static char stats_path[256];

static double now_us(void)
{
	return bench_now_ms() * 1e3;
}

/* The environment agents start servers with, plus the proxy's counters switch. */
static char *agent_env[12];

static void make_agent_env(void)
{
	static const char *const keep[] = {"HOME", "LOGNAME", "PATH", "SHELL", "TERM", "USER"};
	int n = 0;
	for (size_t i = 0; i < sizeof keep / sizeof keep[0]; i++) {
		const char *v = getenv(keep[i]);
		if (v) {
			size_t len = strlen(keep[i]) + strlen(v) + 2;
			agent_env[n] = malloc(len);
			snprintf(agent_env[n++], len, "%s=%s", keep[i], v);
		}
	}
	agent_env[n++] = "BELAY_PROXY_STATS=1";
	agent_env[n] = NULL;
}

struct child {
	pid_t pid;
	int in, out;
	char buf[1 << 16];
	size_t have;
};

/* Starts argv with pipes on stdin/stdout and stderr into the stats file. */
static void start(struct child *c, char *const *argv)
{
	int pi[2], po[2];
	if (pipe(pi) || pipe(po))
		exit(1);
	c->pid = fork();
	if (c->pid == 0) {
		dup2(pi[0], 0);
		dup2(po[1], 1);
		int err = open(stats_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
		dup2(err, 2);
		close(pi[1]);
		close(po[0]);
		execvpe(argv[0], argv, agent_env);
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

/*==== one run ====*/

struct result {
	double median, p98, p99; /* µs; throughput runs: MB/s in median */
	/* The proxy's counters (-1: not reported, e.g. a direct run) */
	long long highs, backlog, spills, spilled;
	int idle_prio;
	/* CPU each of the proxy's threads used, ms (-1: not reported) */
	double cpu_loop, cpu_writer, cpu_rescue, cpu_pool, cpu_index;
	long long rescues, taken_over;
};

static long long after(const char *s, const char *key)
{
	const char *p = s ? strstr(s, key) : NULL;
	return p ? atoll(p + strlen(key)) : -1;
}

static double after_f(const char *s, const char *key)
{
	const char *p = s ? strstr(s, key) : NULL;
	return p ? atof(p + strlen(key)) : -1;
}

static void read_stats(struct result *r)
{
	size_t len = 0;
	char *s = NULL;
	FILE *f = fopen(stats_path, "r");
	if (f) {
		s = calloc(1, 1 << 16);
		len = fread(s, 1, (1 << 16) - 1, f);
		fclose(f);
	}
	(void)len;
	r->highs = after(s, "back-pressure ");
	r->backlog = after(s, "backlog at most ");
	r->spilled = after(s, "queued, ");
	r->spills = after(s, "read back from the trace (");
	r->idle_prio = s && strstr(s, "at idle priority") ? 1 : s && strstr(s, "SCHED_IDLE refused") ? 0 : -1;
	r->cpu_loop = after_f(s, "cpu: loop ");
	r->cpu_writer = s && strstr(s, "belay: trace:") ? after_f(s, "trace writer ") : -1; /* --no-trace: none */
	r->cpu_rescue = after_f(s, ", rescue ");
	r->rescues = after(s, "byte(s), ");
	r->taken_over = after(s, "rescue(s), ");
	r->cpu_pool = after_f(s, "serialisers ");
	r->cpu_index = after_f(s, ", index ");
	free(s);
}

/* Removes the files directly in dir (the bench's scratch: traces, the store's database). */
static void clean_dir(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	char p[4400];
	while (d && (de = readdir(d)) != NULL) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(p, sizeof p, "%s/%s", dir, de->d_name);
		unlink(p);
	}
	if (d)
		closedir(d);
}

/* Traces are removed after each run: 64 KiB runs write hundreds of MB to tmpfs. */
static void clean_traces(void)
{
	clean_dir(trace_dir);
}

/* The default state directory is this bench's own: its index is emptied at the start and
 * the end of a run, so that it does not grow from run to run (it had reached 0.5 GB over a
 * few sessions' runs; that size was measured not to move the figures, but a bench measures
 * one condition). A directory given with --state is the caller's and is left as it is. */
static int own_state = 1;
static void clean_state(void)
{
	if (own_state)
		clean_dir(state_dir);
}

static const char *call_body = "\"method\":\"tools/call\",\"params\":{\"name\":\"echo\",\"arguments\":{\"text\":\"hi\"}}";

/* The C peer: this program is the client. */
static struct result latency_c(char *const *argv, int n, int warm)
{
	struct child c;
	clean_traces();
	start(&c, argv);
	double *t = malloc(sizeof(double) * (size_t)n);
	char req[1024], needle[32];
	const char *init = "{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\",\"params\":{}}\n";
	write_all(c.in, init, strlen(init));
	read_reply(&c, "\"id\":0");
	for (int i = -warm; i < n; i++) {
		int id = i + warm + 1;
		int m = snprintf(req, sizeof req, "{\"jsonrpc\":\"2.0\",\"id\":%d,%s}\n", id, call_body);
		snprintf(needle, sizeof needle, "\"id\":%d,", id);
		double t0 = now_us();
		write_all(c.in, req, (size_t)m);
		if (read_reply(&c, needle)) {
			fprintf(stderr, "bench: no reply from %s\n", argv[0]);
			exit(1);
		}
		if (i >= 0)
			t[i] = now_us() - t0;
	}
	qsort(t, (size_t)n, sizeof *t, bench_cmp_double);
	struct result r = {.median = t[n / 2], .p98 = t[(size_t)(n * 0.98)], .p99 = t[(size_t)(n * 0.99)]};
	free(t);
	stop(&c);
	read_stats(&r);
	return r;
}

/* An external client (python, node) that prints {"median_us":..,"p98_us":..,"p99_us":..}. */
static struct result latency_ext(char *const *argv)
{
	struct child c;
	clean_traces();
	start(&c, argv);
	close(c.in);
	c.in = open("/dev/null", O_RDONLY);
	struct result r = {0};
	char line[4096];
	size_t have = 0;
	ssize_t k;
	while (have < sizeof line - 1 && (k = read(c.out, line + have, sizeof line - 1 - have)) > 0)
		have += (size_t)k;
	line[have] = '\0';
	stop(&c);
	const char *m = strstr(line, "\"median_us\":"), *q = strstr(line, "\"p98_us\":"),
		   *p = strstr(line, "\"p99_us\":");
	if (!m || !q || !p) {
		fprintf(stderr, "bench: %s gave no figures: %s\n", argv[0], line);
		exit(1);
	}
	r.median = atof(m + 12);
	r.p98 = atof(q + 9);
	r.p99 = atof(p + 9);
	read_stats(&r);
	return r;
}

static struct result throughput(char *const *argv, int mib)
{
	struct child c;
	clean_traces();
	start(&c, argv);
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
	for (size_t i = 0; i < frames; i++)
		write_all(c.in, f, frame);
	write_all(c.in, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"count\"}\n", 42);
	read_reply(&c, "\"id\":2");
	double secs = (now_us() - t0) / 1e6;
	free(f);
	stop(&c);
	struct result r = {.median = (double)frames * (double)frame / secs / 1e6};
	read_stats(&r);
	return r;
}

/*==== pairs ====*/

static double median_of(double *v, int n)
{
	qsort(v, (size_t)n, sizeof *v, bench_cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* A command line: a NULL-terminated list built from pieces. */
struct cmd {
	char *v[32];
	int n;
};

static void add(struct cmd *c, const char *s)
{
	c->v[c->n++] = (char *)s;
	c->v[c->n] = NULL;
}

static void add_all(struct cmd *c, char *const *v)
{
	for (; *v; v++)
		add(c, *v);
}

enum mode { M_NOISE, M_RELAY, M_NO_TRACE, M_TRACE, M_INDEX, M_KSLICE, M_WNORMAL, M_COUNT };
static const char *const mode_name[M_COUNT] = {"direct vs direct", "relay floor",	 "--no-trace",	       "trace (--no-index)",
					       "trace + index",	   "t+i, --slice-us 0", "t+i, writer normal"};
static int slice_ab; /* --slice-ab: also trace + index with the kernel's own slice */
static int writer_ab; /* --writer-ab: also trace + index with the trace writer at normal priority */
static int noise;    /* --noise: also a pair of two direct runs per round (the difference no change can be told from) */

/* The modes run unless asked for (the A/B arms and the noise row only when asked). */
static int mode_on(int m)
{
	return !((m == M_KSLICE && !slice_ab) || (m == M_WNORMAL && !writer_ab) || (m == M_NOISE && !noise));
}
static char relay_bin[4200]; /* bench_relay: a process in belay's place that only forwards */

/* belay proxy [mode] -- server... (the relay floor: bench_relay server...) */
static void proxied(struct cmd *c, enum mode m, char *const *server)
{
	if (m == M_RELAY) {
		add(c, relay_bin);
		add_all(c, server);
		return;
	}
	add(c, belay_bin);
	add(c, "proxy");
	add(c, "--state");
	add(c, state_dir);
	if (m == M_NO_TRACE) {
		add(c, "--no-trace");
	} else {
		add(c, "--trace-dir");
		add(c, trace_dir);
		if (m == M_TRACE)
			add(c, "--no-index");
		if (m == M_KSLICE) {
			add(c, "--slice-us");
			add(c, "0");
		}
		if (m == M_WNORMAL) {
			add(c, "--trace-writer");
			add(c, "normal");
		}
	}
	add(c, "--");
	add_all(c, server);
}

struct peer {
	const char *label;
	/* client prefix (NULL: this program is the client) and the server */
	char *const *client;
	char *const *server;
};

static struct result run_one(const struct peer *p, int proxy, enum mode m, int n, int warm)
{
	struct cmd s = {0};
	if (proxy)
		proxied(&s, m, p->server);
	else
		add_all(&s, p->server);
	if (!p->client)
		return latency_c(s.v, n, warm);
	struct cmd c = {0};
	char ns[16], ws[16];
	snprintf(ns, sizeof ns, "%d", n);
	snprintf(ws, sizeof ws, "%d", warm);
	add_all(&c, p->client);
	add(&c, "--n");
	add(&c, ns);
	add(&c, "--warm");
	add(&c, ws);
	add(&c, "--");
	add_all(&c, s.v);
	return latency_ext(c.v);
}

/* per: what the CPU figures are divided by (round trips, MiB), with its unit name */
static void print_counters(const struct result *r, double per, const char *unit)
{
	if (r->cpu_loop >= 0) {
		printf(" | cpu/%s: loop %.1f", unit, r->cpu_loop * 1e3 / per);
		if (r->cpu_writer >= 0)
			printf(", trace %.1f+%.1f+%.1f", r->cpu_writer * 1e3 / per, r->cpu_rescue > 0 ? r->cpu_rescue * 1e3 / per : 0.0,
			       r->cpu_pool * 1e3 / per);
		if (r->cpu_index > 0)
			printf(", index %.1f", r->cpu_index * 1e3 / per);
		printf(" us");
	}
	if (r->highs < 0) {
		if (r->cpu_loop < 0)
			printf(" | counters: none reported");
		return;
	}
	printf(" | back-pressure %lld, backlog max %lld B", r->highs, r->backlog);
	if (r->rescues >= 0)
		printf(", rescues %lld (%lld taken over)", r->rescues, r->taken_over);
	if (r->spills >= 0)
		printf(", index read-backs %lld (%lld lines), %s", r->spills, r->spilled,
		       r->idle_prio == 1 ? "idle prio" : r->idle_prio == 0 ? "NORMAL prio" : "prio ?");
}

/* the second run of a pair: the noise row's is direct too */
static const char *px_name(int m)
{
	return m == M_NOISE ? "direct again" : "belay";
}

/* Rounds, not rows: each round runs one pair (a direct run and a proxied one, next to each
 * other, which goes first alternating) for every mode, the modes in an order that rotates
 * from round to round. Each mode's difference is its pair's, so the two runs compared stay
 * seconds apart, and every row sees the same stretch of the machine's time: rows run one
 * after another (this bench's first form) picked up whatever the machine did meanwhile -
 * the Node --no-trace row's p99 was the worst in 7 of 9 runs that way, and not when
 * interleaved (docs/PERFORMANCE.md). One direct run per round for all modes was tried: the two
 * direct runs of the noise row, up to a round apart, then differed by 75 us median. */
static void bench_latency(const struct peer *p, int pairs, int n, int warm)
{
	printf("\n== %s: %d rounds of %d tools/call round trips (after %d warm-ups): per round a pair of direct and "
	       "proxied runs for each mode, the modes' order rotating\n",
	       p->label, pairs, n, warm);
	int ms[M_COUNT], nm = 0;
	for (int m = 0; m < M_COUNT; m++)
		if (mode_on(m))
			ms[nm++] = m;
	static double dmed[M_COUNT][64], dp98[M_COUNT][64], dp99[M_COUNT][64];
	double steal[64] = {0};
	long long highs[M_COUNT] = {0};
	for (int i = 0; i < pairs; i++) {
		struct bench_cpu c0 = bench_cpu_now();
		struct result d[M_COUNT], x[M_COUNT];
		for (int k = 0; k < nm; k++) {
			int m = ms[(k + i) % nm], px = m != M_NOISE; /* px_name */
			if ((i + k) % 2 == 0) {
				d[m] = run_one(p, 0, (enum mode)m, n, warm);
				x[m] = run_one(p, px, (enum mode)m, n, warm);
			} else {
				x[m] = run_one(p, px, (enum mode)m, n, warm);
				d[m] = run_one(p, 0, (enum mode)m, n, warm);
			}
		}
		steal[i] = bench_steal_pct(c0, bench_cpu_now());
		printf("   round %d: steal %.0f%%\n", i + 1, steal[i]);
		for (int k = 0; k < nm; k++) {
			int m = ms[k];
			dmed[m][i] = x[m].median - d[m].median;
			dp98[m][i] = x[m].p98 - d[m].p98;
			dp99[m][i] = x[m].p99 - d[m].p99;
			if (x[m].highs > 0)
				highs[m] += x[m].highs;
			printf("     %-20s direct median %7.1f p98 %7.1f p99 %7.1f | %s median %7.1f p98 %7.1f p99 %7.1f | "
			       "added median %+7.1f p98 %+8.1f p99 %+8.1f us",
			       mode_name[m], d[m].median, d[m].p98, d[m].p99, px_name(m), x[m].median, x[m].p98, x[m].p99,
			       dmed[m][i], dp98[m][i], dp99[m][i]);
			if (m != M_NOISE)
				print_counters(&x[m], n + warm, "call");
			printf("\n");
		}
		fflush(stdout);
	}
	double steal_med = median_of(steal, pairs); /* one figure per round, the same for every row */
	for (int k = 0; k < nm; k++) {
		int m = ms[k];
		/* the spread of the rounds beside their median: with peers whose own tail moves
		 * between runs (a Node server's garbage collector), a p99 difference is one sample
		 * of a wide range */
		double lo_m = dmed[m][0], hi_m = dmed[m][0], lo_p = dp99[m][0], hi_p = dp99[m][0];
		for (int i = 1; i < pairs; i++) {
			lo_m = dmed[m][i] < lo_m ? dmed[m][i] : lo_m;
			hi_m = dmed[m][i] > hi_m ? dmed[m][i] : hi_m;
			lo_p = dp99[m][i] < lo_p ? dp99[m][i] : lo_p;
			hi_p = dp99[m][i] > hi_p ? dp99[m][i] : hi_p;
		}
		if (m == M_NOISE) {
			/* two identical arms: the size of a difference that means nothing here */
			double am[64], a98[64], ap[64];
			for (int i = 0; i < pairs; i++) {
				am[i] = fabs(dmed[m][i]);
				a98[i] = fabs(dp98[m][i]);
				ap[i] = fabs(dp99[m][i]);
			}
			printf("%-18s %-20s noise: |difference| median %7.1f us, p98 %8.1f us, p99 %8.1f us (median over %d "
			       "rounds; rounds: median %+.0f..%+.0f, p99 %+.0f..%+.0f); host steal %.0f%%\n",
			       p->label, mode_name[m], median_of(am, pairs), median_of(a98, pairs), median_of(ap, pairs), pairs,
			       lo_m, hi_m, lo_p, hi_p, steal_med);
			continue;
		}
		printf("%-18s %-20s added: median %+7.1f us, p98 %+8.1f us, p99 %+8.1f us (median over %d rounds; rounds: "
		       "median %+.0f..%+.0f, p99 %+.0f..%+.0f); back-pressure %lld; host steal %.0f%%\n",
		       p->label, mode_name[m], median_of(dmed[m], pairs), median_of(dp98[m], pairs), median_of(dp99[m], pairs),
		       pairs, lo_m, hi_m, lo_p, hi_p, highs[m], steal_med);
	}
	fflush(stdout);
}

static void bench_bulk(char *const *server, int pairs, int mib)
{
	printf("\n== 64 KiB frames, %d MiB per run, %d pairs (echo server, C)\n", mib, pairs);
	for (int m = 0; m < M_COUNT; m++) {
		if (m == M_NOISE || !mode_on(m))
			continue;
		double ratio[64], bw[64], dbw[64];
		printf("-- %s\n", mode_name[m]);
		for (int i = 0; i < pairs; i++) {
			struct cmd s = {0};
			proxied(&s, (enum mode)m, server);
			struct result d, x;
			if (i % 2 == 0) {
				d = throughput(server, mib);
				x = throughput(s.v, mib);
			} else {
				x = throughput(s.v, mib);
				d = throughput(server, mib);
			}
			ratio[i] = x.median / d.median;
			bw[i] = x.median;
			dbw[i] = d.median;
			printf("   pair %d: direct %6.0f MB/s | belay %6.0f MB/s (x%.2f)", i + 1, d.median, x.median, ratio[i]);
			print_counters(&x, mib, "MiB");
			printf("\n");
			fflush(stdout);
		}
		printf("%-18s %-20s direct %6.0f MB/s, belay %6.0f MB/s, ratio x%.2f (medians over %d pairs)\n", "64KiB",
		       mode_name[m], median_of(dbw, pairs), median_of(bw, pairs), median_of(ratio, pairs), pairs);
		fflush(stdout);
	}
}

/* The effect gate's cost per tools/call: the same call (a shell command the gate must parse
 * and classify) with the gate off, in audit mode and in enforce mode (allowed). */
static void bench_gate(const char *echo, int n, int warm)
{
	call_body = "\"method\":\"tools/call\",\"params\":{\"name\":\"run\",\"arguments\":{\"command\":"
		    "\"cd src && grep -rn TODO . | sort | head -20 > /dev/null && ls -la\"}}";
	char *const g0[] = {(char *)belay_bin, "proxy", "--state", (char *)state_dir, "--trace-dir", (char *)trace_dir,
			    "--mode", "off", "--", (char *)echo, NULL};
	char *const ga[] = {(char *)belay_bin, "proxy", "--state", (char *)state_dir, "--trace-dir", (char *)trace_dir,
			    "--mode", "audit", "--", (char *)echo, NULL};
	char *const ge[] = {(char *)belay_bin, "proxy", "--state", (char *)state_dir, "--trace-dir", (char *)trace_dir,
			    "--mode", "enforce", "--", (char *)echo, NULL};
	double m0[2], p0[2], ma[2], pa[2], me[2], pe[2];
	for (int r = 0; r < 2; r++) {
		struct result x = latency_c(g0, n, warm);
		m0[r] = x.median, p0[r] = x.p99;
		x = latency_c(ga, n, warm);
		ma[r] = x.median, pa[r] = x.p99;
		x = latency_c(ge, n, warm);
		me[r] = x.median, pe[r] = x.p99;
	}
#define MEAN2(v) (((v)[0] + (v)[1]) / 2)
	double b = MEAN2(m0), a = MEAN2(ma), e = MEAN2(me);
	printf("\n%-18s tools/call with a shell command: no gate median %7.1f us p99 %7.1f | audit %7.1f us p99 %7.1f "
	       "(%+.1f us) | enforce %7.1f us p99 %7.1f (%+.1f us)\n",
	       "gate", b, MEAN2(p0), a, MEAN2(pa), a - b, e, MEAN2(pe), e - b);
	fflush(stdout);
}

static int wanted(const char *only, const char *what)
{
	if (!only)
		return 1;
	size_t n = strlen(what);
	for (const char *p = only; (p = strstr(p, what)) != NULL; p += n)
		if ((p == only || p[-1] == ',') && (p[n] == ',' || p[n] == '\0'))
			return 1;
	return 0;
}

int main(int argc, char **argv)
{
	xalloc_cjson_install();
	int pairs = 5, n = 3000, warm = 300, mib = 256, tpairs = 3;
	const char *only = NULL;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--pairs") && i + 1 < argc)
			pairs = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--n") && i + 1 < argc)
			n = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--warm") && i + 1 < argc)
			warm = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--mib") && i + 1 < argc)
			mib = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--tpairs") && i + 1 < argc)
			tpairs = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--slice-ab"))
			slice_ab = 1;
		else if (!strcmp(argv[i], "--writer-ab"))
			writer_ab = 1;
		else if (!strcmp(argv[i], "--noise"))
			noise = 1;
		else if (!strcmp(argv[i], "--quick"))
			pairs = 2, n = 300, warm = 50, mib = 16, tpairs = 1;
		else if (!strcmp(argv[i], "--only") && i + 1 < argc)
			only = argv[++i];
		else if (!strcmp(argv[i], "--trace-dir") && i + 1 < argc)
			trace_dir = argv[++i];
		else if (!strcmp(argv[i], "--state") && i + 1 < argc)
			state_dir = argv[++i], own_state = 0;
		else if (!strcmp(argv[i], "--belay") && i + 1 < argc)
			belay_bin = argv[++i];
		else {
			fprintf(stderr, "bench_proxy: unknown option %s (see the comment at the top of bench_proxy.c)\n", argv[i]);
			return 2;
		}
	}
	if (pairs < 1 || pairs > 64 || tpairs < 1 || tpairs > 64 || n < 100) {
		fprintf(stderr, "bench_proxy: --pairs and --tpairs must be 1..64, --n at least 100\n");
		return 2;
	}
	signal(SIGPIPE, SIG_IGN);
	clean_state();
	make_agent_env();
	snprintf(stats_path, sizeof stats_path, "/dev/shm/bench-proxy-stats-%d.txt", (int)getpid());
	char echo[8400], cwd[4096];
	if (!getcwd(cwd, sizeof cwd))
		return 1;
	const char *bdir = getenv("BENCH_DIR") ? getenv("BENCH_DIR") : "build";
	if (strlen(bdir) >= 4096)
		return 2;
	snprintf(echo, sizeof echo, "%s%s%s/bench_echo_server", bdir[0] == '/' ? "" : cwd, bdir[0] == '/' ? "" : "/", bdir);
	snprintf(relay_bin, sizeof relay_bin, "%s%s%s/bench_relay", bdir[0] == '/' ? "" : cwd, bdir[0] == '/' ? "" : "/",
		 bdir);
	/* The peers, from the source tree (the current directory). */
	char pyc[4200], pys[4200], nodec[4200], fs[4200];
	snprintf(pyc, sizeof pyc, "%s/bench/peers/rpc_client.py", cwd);
	snprintf(pys, sizeof pys, "%s/bench/peers/echo_server.py", cwd);
	snprintf(nodec, sizeof nodec, "%s/tests/peers/bench-client.mjs", cwd);
	snprintf(fs, sizeof fs, "%s/tests/peers/node_modules/@modelcontextprotocol/server-filesystem/dist/index.js", cwd);
	long cores = sysconf(_SC_NPROCESSORS_ONLN);
	double load[3] = {0};
	if (getloadavg(load, 3) < 0)
		load[0] = -1;
	printf("bench_proxy: %ld CPU(s), load average %.2f at start; %d pairs x %d calls; belay %s\n", cores, load[0],
	       pairs, n, belay_bin);

	char *const echo_argv[] = {echo, NULL};
	if (wanted(only, "c")) {
		struct peer p = {"echo (C)", NULL, echo_argv};
		bench_latency(&p, pairs, n, warm);
	}
	if (wanted(only, "python")) {
		char *const cl[] = {"python3", pyc, "--tool", "echo", "--args", "{\"text\":\"hi\"}", NULL};
		char *const sv[] = {"python3", pys, NULL};
		struct peer p = {"python peers", cl, sv};
		bench_latency(&p, pairs, n, warm);
	}
	if (wanted(only, "node")) {
		struct stat sb;
		if (stat(fs, &sb) != 0) {
			printf("\n== node server-filesystem: skipped (%s is not installed: scripts/setup.sh)\n", fs);
		} else {
			char *const cl[] = {"node", nodec, "--tool", "list_allowed_directories", NULL};
			char *const sv[] = {"node", fs, cwd, NULL};
			struct peer p = {"node fs-server", cl, sv};
			bench_latency(&p, pairs, n, warm);
		}
	}
	if (wanted(only, "bulk") && mib > 0)
		bench_bulk(echo_argv, tpairs, mib);
	if (wanted(only, "gate"))
		bench_gate(echo, n, warm);
	clean_traces();
	clean_state();
	unlink(stats_path);
	return 0;
}
