/* bench_http.c - what belay's HTTP recording proxy (`belay proxy --http`, belay-http) adds per
 * call, against the same server directly and behind a relay floor, in the same run.
 *
 *   bench_http [--pairs 3] [--n 1000] [--warm 100] [--mib 64] [--belay-http PATH] [--belay PATH]
 *              [--c-relay PATH] [--compare PATH] [--peers DIR] [--bench-peers DIR] [--trace-dir DIR]
 *              [--state DIR]
 * (run from the source tree: tests/peers and bench/peers by default)
 *
 * server-everything (`streamableHttp`, from tests/peers) on a free loopback port; the relay
 * floor tests/peers/http-relay.mjs (a process that only forwards: the least any HTTP proxy
 * adds); the C relay floor bench_http_relay (next to bench_http by default, --c-relay: a
 * process that forwards the bytes of each connection unchanged, parsing nothing: what the
 * second hop itself costs); belay-http in front of the server recording and indexing live.
 * Each round runs the real SDK client (tests/peers/http-bench-client.mjs) over the URLs at
 * once, taking turns call
 * by call (so all three see the same machine), `warm` untimed and `n` timed sequential
 * `echo` calls each, in a rotating order; every round prints each arm's median and p99 and
 * their difference to direct, and the end the median over the rounds of those differences.
 * The stdio figures in the same run (the goal: HTTP within 2x of stdio): the same
 * client, in the same turns, also calls server-everything over stdio, started directly and
 * through `belay proxy --` (the belay binary, --belay, next to belay-http by default,
 * recording and indexing); each round prints belay's added latency over HTTP divided by its
 * added latency over stdio (median and p99), and the end the ratios of the medians over the
 * rounds: belay's added latency over HTTP to its added latency over stdio, to the C relay
 * floor's, and the C floor's own to stdio's (when the hop alone costs more than twice what
 * belay adds over stdio, the goal "HTTP within 2x of stdio" is out of any proxy's reach).
 * Throughput: bench/peers/sse_stream.mjs answers a POST with an event stream of `mib` MiB of
 * 64 KiB notifications (no real server streams that much), read whole directly, through the
 * two relays and through belay (recording every event), in each round, in a rotating order.
 * --compare PATH adds one more arm: another belay-http build (the one before a change) in
 * front of the same server, so a change's before and after are measured in the same run.
 * Build belay-http optimised for figures that mean anything (the ASan build's are not). */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "bench_util.h"
#include "common/buf.h"
#include "common/child.h"
#include "common/xalloc.h"
#include "common/xalloc_cjson.h"

struct proc {
	pid_t pid;
	int out; /* its stdout, or -1 */
	int err; /* its stderr, or -1 */
};

static unsigned free_port(void)
{
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	socklen_t n = sizeof a;
	if (bind(fd, (struct sockaddr *)&a, sizeof a) != 0 || getsockname(fd, (struct sockaddr *)&a, &n) != 0) {
		perror("bench_http: a free port");
		exit(1);
	}
	close(fd);
	return ntohs(a.sin_port);
}

static int listening(unsigned port)
{
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port),
				.sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	int ok = connect(fd, (struct sockaddr *)&a, sizeof a) == 0;
	close(fd);
	return ok;
}

/* What it started, ended at exit however it exits (a failed round leaves nothing behind). */
static pid_t started[10];
static int nstarted;

static void end_started(void)
{
	for (int i = 0; i < nstarted; i++)
		if (started[i] > 0) {
			kill(started[i], SIGTERM);
			waitpid(started[i], NULL, 0);
		}
}

/* Starts argv with stdout and stderr on pipes (env: one extra "K=V" or NULL). */
static struct proc start(char *const *argv, const char *env)
{
	int o[2], e[2];
	if (pipe(o) || pipe(e)) {
		perror("bench_http: pipe");
		exit(1);
	}
	pid_t pid = fork();
	if (pid == 0) {
		if (env)
			putenv((char *)env);
		dup2(o[1], 1);
		dup2(e[1], 2);
		close(o[0]), close(o[1]), close(e[0]), close(e[1]);
		execvp(argv[0], argv);
		_exit(127);
	}
	close(o[1]);
	close(e[1]);
	if (nstarted < 10)
		started[nstarted++] = pid;
	return (struct proc){pid, o[0], e[0]};
}

/* Reads fd until the text holds `want`; returns the text (new) or exits after 60 s. */
static char *read_until(int fd, const char *want, const char *who)
{
	struct buf b = {0};
	double until = bench_now_ms() + 60000;
	while (!b.len || !strstr(buf_cstr(&b), want)) {
		struct pollfd pf = {.fd = fd, .events = POLLIN};
		if (bench_now_ms() > until || (poll(&pf, 1, 200) > 0 && ({
			    char chunk[4096];
			    ssize_t r = read(fd, chunk, sizeof chunk);
			    if (r > 0)
				    buf_append(&b, chunk, (size_t)r);
			    r <= 0;
		    }))) {
			fprintf(stderr, "bench_http: %s never said '%s': %s\n", who, want, buf_cstr(&b));
			exit(1);
		}
	}
	return buf_take(&b);
}

static void stop(struct proc *p)
{
	for (int i = 0; i < nstarted; i++)
		if (started[i] == p->pid)
			started[i] = 0;
	kill(p->pid, SIGTERM);
	waitpid(p->pid, NULL, 0);
	if (p->out >= 0)
		close(p->out);
	if (p->err >= 0)
		close(p->err);
}

static double median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof *v, bench_cmp_double);
	return n ? v[n / 2] : 0;
}

int main(int argc, char **argv)
{
	xalloc_cjson_install();
	int pairs = 3, n = 1000, warm = 100;
	int mib = 64;
	const char *belay_http = "build/belay-http", *belay_bin = NULL, *peers = "tests/peers", *bench_peers = "bench/peers";
	const char *c_relay = NULL, *compare = NULL;
	const char *trace_dir = "/dev/shm/belay-bench-http-traces", *state = "/dev/shm/belay-bench-http-state";
	for (int i = 1; i + 1 < argc; i += 2) {
		if (!strcmp(argv[i], "--pairs"))
			pairs = atoi(argv[i + 1]);
		else if (!strcmp(argv[i], "--n"))
			n = atoi(argv[i + 1]);
		else if (!strcmp(argv[i], "--warm"))
			warm = atoi(argv[i + 1]);
		else if (!strcmp(argv[i], "--mib"))
			mib = atoi(argv[i + 1]);
		else if (!strcmp(argv[i], "--belay-http"))
			belay_http = argv[i + 1];
		else if (!strcmp(argv[i], "--belay"))
			belay_bin = argv[i + 1];
		else if (!strcmp(argv[i], "--c-relay"))
			c_relay = argv[i + 1];
		else if (!strcmp(argv[i], "--compare"))
			compare = argv[i + 1];
		else if (!strcmp(argv[i], "--peers"))
			peers = argv[i + 1];
		else if (!strcmp(argv[i], "--bench-peers"))
			bench_peers = argv[i + 1];
		else if (!strcmp(argv[i], "--trace-dir"))
			trace_dir = argv[i + 1];
		else if (!strcmp(argv[i], "--state"))
			state = argv[i + 1];
		else {
			fprintf(stderr, "bench_http: unknown option %s\n", argv[i]);
			return 2;
		}
	}
	signal(SIGPIPE, SIG_IGN);
	atexit(end_started);
	unsigned sport = free_port();
	char *server = xasprintf("%s/node_modules/@modelcontextprotocol/server-everything/dist/index.js", peers);
	char *env_port = xasprintf("PORT=%u", sport);
	/* its log goes nowhere (a closed pipe would end it at its first line) */
	char *srv_cmd = xasprintf("exec node %s streamableHttp >/dev/null 2>&1", server);
	struct proc srv = start((char *[]){"sh", "-c", srv_cmd, NULL}, env_port);
	close(srv.out), srv.out = -1;
	close(srv.err), srv.err = -1;
	for (double until = bench_now_ms() + 60000; !listening(sport);) {
		if (bench_now_ms() > until) {
			fprintf(stderr, "bench_http: server-everything never listened\n");
			return 1;
		}
		poll(NULL, 0, 50);
	}
	char *direct = xasprintf("http://127.0.0.1:%u/mcp", sport);
	char *relay_js = xasprintf("%s/http-relay.mjs", peers);
	struct proc rel = start((char *[]){"node", relay_js, direct, NULL}, NULL);
	char *rport = read_until(rel.out, "\n", "the relay");
	char *relay = xasprintf("http://127.0.0.1:%u/mcp", (unsigned)atoi(rport));
	const char *slash0 = strrchr(argv[0], '/');
	char *crelay_bin = c_relay ? xstrdup(c_relay)
				   : slash0 ? xasprintf("%.*s/bench_http_relay", (int)(slash0 - argv[0]), argv[0])
					    : xstrdup("bench_http_relay");
	struct proc crel = start((char *[]){crelay_bin, direct, NULL}, NULL);
	char *crport = read_until(crel.out, "\n", "the C relay");
	char *crelay = xasprintf("http://127.0.0.1:%u/mcp", (unsigned)atoi(crport));
	struct proc bel = start((char *[]){(char *)belay_http, "--upstream", direct, "--listen", "0", "--state",
					   (char *)state, "--trace-dir", (char *)trace_dir, NULL},
				NULL);
	char *said = read_until(bel.err, "/mcp for ", "belay-http");
	char *at = strstr(said, "listening on ") + strlen("listening on ");
	char *through = xstrndup(at, strcspn(at, " \n"));
	fprintf(stderr, "bench_http: direct %s, relay %s, C relay %s, belay %s\n", direct, relay, crelay, through);
	struct proc cmp = {.pid = -1, .out = -1, .err = -1};
	char *csaid = NULL, *cthrough = NULL, *cstate = xasprintf("%s-compare", state);
	char *ctraces = xasprintf("%s-compare", trace_dir);
	if (compare) {
		cmp = start((char *[]){(char *)compare, "--upstream", direct, "--listen", "0", "--state", cstate,
				       "--trace-dir", ctraces, NULL},
			    NULL);
		csaid = read_until(cmp.err, "/mcp for ", "belay-http (--compare)");
		char *cat = strstr(csaid, "listening on ") + strlen("listening on ");
		cthrough = xstrndup(cat, strcspn(cat, " \n"));
		fprintf(stderr, "bench_http: --compare %s at %s\n", compare, cthrough);
	}
	/* the stdio arms: server-everything started by the client, directly and through belay */
	char *bbin = belay_bin ? xstrdup(belay_bin) : NULL;
	if (!bbin) {
		const char *slash = strrchr(belay_http, '/');
		bbin = slash ? xasprintf("%.*s/belay", (int)(slash - belay_http), belay_http) : xstrdup("belay");
	}
	char *stdio_state = xasprintf("%s-stdio", state), *stdio_traces = xasprintf("%s-stdio", trace_dir);
	cJSON *sd = cJSON_CreateArray(), *sb = cJSON_CreateArray();
	cJSON_AddItemToArray(sd, cJSON_CreateString("node"));
	cJSON_AddItemToArray(sd, cJSON_CreateString(server));
	cJSON_AddItemToArray(sd, cJSON_CreateString("stdio"));
	const char *bpre[] = {bbin, "proxy", "--state", stdio_state, "--trace-dir", stdio_traces, "--", "node", server, "stdio"};
	for (size_t i = 0; i < sizeof bpre / sizeof *bpre; i++)
		cJSON_AddItemToArray(sb, cJSON_CreateString(bpre[i]));
	char *sdj = cJSON_PrintUnformatted(sd), *sbj = cJSON_PrintUnformatted(sb);
	char *stdio_direct = xasprintf("stdio:%s", sdj), *stdio_belay = xasprintf("stdio:%s", sbj);
	cJSON_Delete(sd), cJSON_Delete(sb), free(sdj), free(sbj);
#define ARMS_MAX 7
	const int ARMS = compare ? 7 : 6;
	const char *names[ARMS_MAX] = {"direct", "relay", "belay", "stdio-direct", "stdio-belay", "c-relay", "belay-before"};
	const char *urls[ARMS_MAX] = {direct, relay, through, stdio_direct, stdio_belay, crelay, cthrough};
	double cmpmed[64], cmpp99[64]; /* --compare: the other build's added latency */
	double ratio_med[64], ratio_p99[64], sdmed[64], sdp99[64]; /* per round; ratios only printed */
	char *client = xasprintf("%s/http-bench-client.mjs", peers);
	double dmed[3][64], dp99[3][64]; /* added to direct: the Node relay, belay, the C relay */
	printf("bench_http: %d round(s) of %d timed echo calls per arm (%d untimed first), server-everything "
	       "streamableHttp, the SDK client\n",
	       pairs, n, warm);
	for (int r = 0; r < pairs && r < 64; r++) {
		int order[ARMS_MAX];
		for (int k = 0; k < ARMS; k++)
			order[k] = (k + r) % ARMS;
		char ns[16], ws[16];
		snprintf(ns, sizeof ns, "%d", n);
		snprintf(ws, sizeof ws, "%d", warm);
		char *cargv[16] = {"node", client, "--n", ns, "--warm", ws};
		for (int k = 0; k < ARMS; k++)
			cargv[6 + k] = (char *)urls[order[k]];
		cargv[6 + ARMS] = NULL;
		struct child_spec spec = CHILD_SPEC_INIT;
		spec.argv = cargv;
		spec.search_path = 1;
		spec.out = CHILD_CAPTURE;
		spec.err = CHILD_INHERIT;
		struct buf out = {0};
		struct child_result res = {0};
		struct err e = {0};
		if (child_run(&spec, &out, &res, &e) != 0 || res.status != 0) {
			fprintf(stderr, "bench_http: the client failed (%d) %s\n", res.status, e.msg);
			return 1;
		}
		double med[ARMS_MAX] = {0}, p99[ARMS_MAX] = {0};
		int k = 0;
		for (char *line = strtok(out.p, "\n"); line && k < ARMS; line = strtok(NULL, "\n"), k++) {
			cJSON *o = cJSON_Parse(line);
			med[order[k]] = cJSON_GetObjectItem(o, "median_us")->valuedouble;
			p99[order[k]] = cJSON_GetObjectItem(o, "p99_us")->valuedouble;
			cJSON_Delete(o);
		}
		buf_free(&out);
		printf("round %d:", r + 1);
		for (int a = 0; a < ARMS; a++)
			printf("  %s %.0f/%.0f us", names[a], med[a], p99[a]);
		sdmed[r] = med[4] - med[3];
		sdp99[r] = p99[4] - p99[3];
		ratio_med[r] = sdmed[r] > 0 ? (med[2] - med[0]) / sdmed[r] : 0;
		ratio_p99[r] = sdp99[r] > 0 ? (p99[2] - p99[0]) / sdp99[r] : 0;
		/* a ratio only where stdio added something (a noisy round can have it below direct) */
		char rm[16] = "n/a", rp[16] = "n/a";
		if (sdmed[r] > 0)
			snprintf(rm, sizeof rm, "%.2fx", ratio_med[r]);
		if (sdp99[r] > 0)
			snprintf(rp, sizeof rp, "%.2fx", ratio_p99[r]);
		char cm_[16] = "n/a", cp_[16] = "n/a"; /* belay's added latency to the C floor's */
		if (med[5] > med[0])
			snprintf(cm_, sizeof cm_, "%.2fx", (med[2] - med[0]) / (med[5] - med[0]));
		if (p99[5] > p99[0])
			snprintf(cp_, sizeof cp_, "%.2fx", (p99[2] - p99[0]) / (p99[5] - p99[0]));
		printf("  | relay-direct %+.0f/%+.0f  c-relay-direct %+.0f/%+.0f  belay-direct %+.0f/%+.0f  stdio "
		       "belay-direct %+.0f/%+.0f (median/p99)  belay added: to stdio's %s/%s, to the C floor's %s/%s\n",
		       med[1] - med[0], p99[1] - p99[0], med[5] - med[0], p99[5] - p99[0], med[2] - med[0], p99[2] - p99[0],
		       sdmed[r], sdp99[r], rm, rp, cm_, cp_);
		fflush(stdout);
		cmpmed[r] = med[6] - med[0];
		cmpp99[r] = p99[6] - p99[0];
		if (compare)
			printf("  --compare: belay-before-direct %+.0f/%+.0f\n", cmpmed[r], cmpp99[r]);
		const int added[3] = {1, 2, 5};
		for (int a = 0; a < 3; a++) {
			dmed[a][r] = med[added[a]] - med[0];
			dp99[a][r] = p99[added[a]] - p99[0];
		}
	}
	/* throughput: the stream server, its relay and its belay */
	char *stream_js = xasprintf("%s/sse_stream.mjs", bench_peers);
	struct proc ss = start((char *[]){"node", stream_js, "serve", NULL}, NULL);
	char *ssport = read_until(ss.out, "\n", "the stream server");
	char *sdirect = xasprintf("http://127.0.0.1:%u/mcp", (unsigned)atoi(ssport));
	struct proc srel = start((char *[]){"node", relay_js, sdirect, NULL}, NULL);
	char *srport = read_until(srel.out, "\n", "the stream relay");
	char *srelay = xasprintf("http://127.0.0.1:%u/mcp", (unsigned)atoi(srport));
	struct proc screl = start((char *[]){crelay_bin, sdirect, NULL}, NULL);
	char *scrport = read_until(screl.out, "\n", "the C stream relay");
	char *screlay = xasprintf("http://127.0.0.1:%u/mcp", (unsigned)atoi(scrport));
	char *sstate = xasprintf("%s-stream", state), *straces = xasprintf("%s-stream", trace_dir);
	struct proc sbel = start((char *[]){(char *)belay_http, "--upstream", sdirect, "--listen", "0", "--state", sstate,
					    "--trace-dir", straces, NULL},
				 NULL);
	char *ssaid = read_until(sbel.err, "/mcp for ", "belay-http (stream)");
	char *sat = strstr(ssaid, "listening on ") + strlen("listening on ");
	char *sthrough = xstrndup(sat, strcspn(sat, " \n"));
	const char *surls[4] = {sdirect, srelay, sthrough, screlay};
	double tput[4][64];
	char mibs[16];
	snprintf(mibs, sizeof mibs, "%d", mib);
	for (int r = 0; r < pairs && r < 64; r++) {
		int order[4];
		for (int k = 0; k < 4; k++)
			order[k] = (k + r) % 4;
		char *targv[] = {"node", stream_js, "fetch", mibs, (char *)surls[order[0]], (char *)surls[order[1]],
				 (char *)surls[order[2]], (char *)surls[order[3]], NULL};
		struct child_spec spec = CHILD_SPEC_INIT;
		spec.argv = targv;
		spec.search_path = 1;
		spec.out = CHILD_CAPTURE;
		spec.err = CHILD_INHERIT;
		struct buf out = {0};
		struct child_result res = {0};
		struct err e = {0};
		if (child_run(&spec, &out, &res, &e) != 0 || res.status != 0) {
			fprintf(stderr, "bench_http: the stream client failed (%d) %s\n", res.status, e.msg);
			return 1;
		}
		int k = 0;
		for (char *line = strtok(out.p, "\n"); line && k < 4; line = strtok(NULL, "\n"), k++) {
			cJSON *o = cJSON_Parse(line);
			tput[order[k]][r] = cJSON_GetObjectItem(o, "mib_s")->valuedouble;
			cJSON_Delete(o);
		}
		buf_free(&out);
		printf("stream round %d (%d MiB of events): direct %.0f MiB/s  relay %.0f MiB/s  C relay %.0f MiB/s  "
		       "belay %.0f MiB/s\n",
		       r + 1, mib, tput[0][r], tput[1][r], tput[3][r], tput[2][r]);
		fflush(stdout);
	}
	int rounds = pairs < 64 ? pairs : 64;
	printf("median over %d round(s) of the event-stream throughput: direct %.0f MiB/s, relay floor %.0f MiB/s, "
	       "C relay floor %.0f MiB/s, belay %.0f MiB/s (recording every event)\n",
	       rounds, median(tput[0], rounds), median(tput[1], rounds), median(tput[3], rounds), median(tput[2], rounds));
	stop(&sbel);
	stop(&screl);
	free(scrport), free(screlay);
	stop(&srel);
	stop(&ss);
	free(stream_js), free(ssport), free(sdirect), free(srport), free(srelay), free(sstate), free(straces);
	free(ssaid), free(sthrough);
	printf("median over %d round(s) of the added latency: relay floor %+.0f us (p99 %+.0f), C relay floor %+.0f us "
	       "(p99 %+.0f), belay %+.0f us (p99 %+.0f)\n",
	       rounds, median(dmed[0], rounds), median(dp99[0], rounds), median(dmed[2], rounds), median(dp99[2], rounds),
	       median(dmed[1], rounds), median(dp99[1], rounds));
	/* the ratio of the medians over the rounds (robust to a round where stdio added nothing) */
	double hm = median(dmed[1], rounds), hp = median(dp99[1], rounds);
	double sm = median(sdmed, rounds), sp = median(sdp99, rounds);
	printf("median over %d round(s) of belay's added latency over stdio in the same run: %+.0f us (p99 %+.0f)\n", rounds,
	       sm, sp);
	if (compare)
		printf("median over %d round(s) of the added latency of --compare %s: %+.0f us (p99 %+.0f); this build's: "
		       "%+.0f us (p99 %+.0f)\n",
		       rounds, compare, median(cmpmed, rounds), median(cmpp99, rounds), hm, hp);
	double cm = median(dmed[2], rounds), cp = median(dp99[2], rounds);
	char r1[32] = "n/a", r2[32] = "n/a", r3[32] = "n/a", r4[32] = "n/a";
	if (sm > 0) {
		snprintf(r1, sizeof r1, "%.2fx", hm / sm);
		snprintf(r3, sizeof r3, "%.2fx", cm / sm);
	}
	if (sp > 0) {
		snprintf(r2, sizeof r2, "%.2fx", hp / sp);
		snprintf(r4, sizeof r4, "%.2fx", cp / sp);
	}
	printf("(a) HTTP/stdio ratio of belay's added latency (medians over the rounds): median %s, p99 %s (goal: within "
	       "2x; n/a: stdio added nothing measurable)\n",
	       r1, r2);
	printf("    the C relay floor's own added latency to belay's over stdio: median %s, p99 %s (the hop alone)\n", r3,
	       r4);
	if (cm > 0 && cp > 0)
		printf("(b) belay's added latency over HTTP to the C relay floor's: median %.2fx, p99 %.2fx\n", hm / cm,
		       hp / cp);
	else
		printf("(b) belay's added latency over HTTP to the C relay floor's: n/a (the floor added nothing "
		       "measurable)\n");
	free(bbin), free(stdio_state), free(stdio_traces), free(stdio_direct), free(stdio_belay);
	stop(&bel);
	if (compare)
		stop(&cmp);
	free(csaid), free(cthrough), free(cstate), free(ctraces);
	stop(&rel);
	stop(&crel);
	free(crelay_bin), free(crport), free(crelay);
	stop(&srv);
	free(client), free(through), free(said), free(relay), free(rport), free(relay_js), free(direct), free(env_port);
	free(server), free(srv_cmd);
	return 0;
}
