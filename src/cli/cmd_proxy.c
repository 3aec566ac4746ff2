/* cmd_proxy.c - `belay proxy`: the headless recording proxy an agent launches as its MCP
 * server command. Validates everything before any byte moves; exits with the server's
 * status (128+signal when it was killed). */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>
#include <uv.h>

#include "cli/cli.h"
#include "cli/cli_spec.h"
#include "common/fsutil.h"
#include "common/paths.h"
#include "common/timeutil.h"
#include "common/xalloc.h"
#include "run/httpcmd.h"
#include "run/runner.h"
#include "proxy/loop_slice.h"
#include "proxy/loop_spin.h"
#include "trace/trace_writer.h"
#include "index/store_writer.h"
#include "trial/trial_route.h"

static const struct cli_opt proxy_opts[] = {
	{"trace-dir", 't', 0, "DIR", "write the trace here (env BELAY_TRACE_DIR; default STATE/traces)"},
	CLI_OPT_STATE,
	{"no-trace", 'n', 0, NULL, "forward only, record nothing"},
	{"no-index", 'I', 0, NULL,
	 "do not index the run into the store while recording (`belay index TRACE` can do it later)"},
	{"scope", 'S', 0, "DIR", "run the server contained, writes confined to DIR (env BELAY_SANDBOX_SCOPE)"},
	{"network", 'N', 0, "deny|allow",
	 "network policy for a contained server (default deny; env BELAY_SANDBOX_NETWORK=deny-all|allow-all)"},
	{"mode", 'M', 0, "audit|enforce|off",
	 "classify every tools/call into an effect plan; audit (the default) records it, enforce also refuses "
	 "calls that ask or deny (approve once with `belay approve ID`), off records no plan"},
	{"expose", 'X', 0, "PATH",
	 "keep PATH in the contained server's view (read-only) although it is hidden by default (a credential "
	 "store such as ~/.aws, a socket directory such as /run); repeatable (docs/THREAT_MODEL.md)"},
	{"policy", 'P', 0, "FILE", "the gate's tool-call policy (docs/GATE.md)"},
	{"no-trial", 'T', 0, NULL,
	 "enforce mode: refuse a call whose only unknown effect is a local program (make, a project script) "
	 "without trying its command in a disposable mirror of the workspace first (docs/TRY.md)"},
	{"spin-us", 'W', 0, "US",
	 "after forwarding a chunk, keep polling up to this many microseconds before sleeping, so that an answer "
	 "that comes that fast is read without a wake-up; the window follows the recent answers and is none while "
	 "they take longer (default 400, at most 100000; 0: never; docs/PERFORMANCE.md)"},
	{"slice-us", 'L', 0, "US",
	 "ask the kernel to run the forwarding thread in slices this short, so that it runs soon after it is "
	 "woken although a CPU-bound thread holds its CPU (Linux 6.12+; its share of the CPU is unchanged; the "
	 "server and belay's other threads keep the default); from 100 to 100000; default 0, the kernel's own: "
	 "on a lightly loaded virtual machine the extra preemptions cost more than they save (docs/PERFORMANCE.md)"},
	{"http", 'H', 0, "URL",
	 "proxy an MCP server spoken to over HTTP (Streamable HTTP, or the old HTTP+SSE transport) at URL instead of "
	 "starting one: belay listens on 127.0.0.1 and prints the URL the agent is to use (`belay snippet CLIENT --http "
	 "URL` writes it into the agent's configuration); every run (one per Mcp-Session-Id) is recorded like a stdio "
	 "run (docs/HTTP.md). With --scope and a SERVER_CMD, belay starts that server itself, contained, listening on "
	 "URL's port (http://127.0.0.1:PORT/PATH) of its sandbox's own loopback, which only belay reaches (network "
	 "deny only; docs/HTTP.md, \"Contained local servers\")"},
	{"listen", 'O', 0, "PORT",
	 "with --http: listen on this port (0: any free one; default the upstream's own stable port, kept in STATE/http)"},
	{"idle-timeout", 'D', 0, "SECONDS",
	 "with --http: a run with no request in flight ends after this long (default 600; 0: never)"},
	{"hold", 'Y', 0, "SECONDS",
	 "with --http and --mode enforce: hold a call the gate refuses (its request waits) this long for `belay "
	 "approve ID` before refusing it (default 50, below the MCP SDK's 60 s request timeout; 0: refuse at once)"},
	{"trace-writer", 'R', CLI_HIDDEN, "idle|normal",
	 "the trace writer's priority (default idle: SCHED_IDLE; normal is the benchmarks' A/B arm)"},
	{"frame-cap", 'F', CLI_HIDDEN, "BYTES", "largest frame (tests)"},
	CLI_OPT_END,
};

const struct cli_cmd cli_proxy = {
	.name = "proxy",
	.summary = "proxy an MCP server over stdio, recording every frame",
	.synopsis = "[options] -- SERVER_CMD [ARGS...]\n[options] --http URL\n[options] --http URL --scope DIR -- SERVER_CMD [ARGS...]",
	.about = "Runs SERVER_CMD as an MCP server over stdio, forwards stdin/stdout verbatim and records every "
		 "frame into an append-only trace. This is the command an agent starts as its MCP server "
		 "(`belay snippet CLIENT -- SERVER_CMD` prints the configuration). Exits with the server's status "
		 "(128+signal when it was killed), or 74 when recording failed: belay then stops forwarding (it "
		 "forwards nothing it cannot record) and answers the agent's requests with an error naming the cause, "
		 "as it does for a server that exits or cannot start while the agent is connected "
		 "(docs/TRACE_FORMAT.md).",
	.opts = proxy_opts,
};

struct proxy_run {
	int exit_code;
	uv_signal_t sigs[3];
	struct runner *runner;
};

static void on_ended(void *ctx, struct runner *rn, int code)
{
	struct proxy_run *r = ctx;
	(void)rn;
	r->exit_code = code;
	for (int i = 0; i < 3; i++)
		uv_close((uv_handle_t *)&r->sigs[i], NULL);
}

/* Store writer thread (or the loop, for approvals): one line each. */
static void report(void *ctx, const char *msg)
{
	(void)ctx;
	fprintf(stderr, "belay: proxy: %s\n", msg);
}

/* Loop thread: the run can no longer serve the agent. Every line gets the prefix, so that a
 * log reader that greps "belay:" sees them all. */
static void alert(void *ctx, struct runner *rn, const char *reason, const char *text)
{
	(void)ctx;
	(void)rn;
	(void)reason;
	for (const char *p = text; *p;) {
		const char *nl = strchr(p, '\n');
		int n = nl ? (int)(nl - p) : (int)strlen(p);
		fprintf(stderr, "belay: %.*s\n", n, p);
		p += n + (nl != NULL);
	}
	fflush(stderr);
}

static void on_signal(uv_signal_t *h, int sig)
{
	struct proxy_run *r = h->data;
	(void)sig;
	runner_terminate(r->runner);
}

/* A server `belay proxy --http URL --scope DIR -- SERVER...` starts (belay-http contains it). */
struct http_local_args {
	const char *scope, *network;
	char **expose, **server; /* NULL-terminated; server NULL: a server at a URL */
};

/* `belay proxy --http URL`: the listener is belay-http (src/http; it links the HTTP
 * libraries, which belay itself does not), run in this process's place. */
static int proxy_http(const char *url, const char *listen, const char *idle, const char *hold, const char *state,
		      const char *trace_dir, int no_index, const char *policy, int enforce, const struct http_local_args *la)
{
	if (strncmp(url, "http://", 7) && strncmp(url, "https://", 8))
		return cli_fail("proxy: --http needs an http:// or https:// URL, not '%s'", url);
	if (listen && !cli_long_in(listen, 0, 65535))
		return cli_fail("proxy: --listen must be a port from 0 to 65535, not '%s'", listen);
	if (idle && !cli_long_in(idle, 0, 7 * 86400))
		return cli_fail("proxy: --idle-timeout must be a whole number of seconds (0: never), not '%s'", idle);
	if (hold && !cli_long_in(hold, 0, 3600))
		return cli_fail("proxy: --hold must be a whole number of seconds from 0 to 3600, not '%s'", hold);
	char *bin = cli_belay_http("proxy");
	if (!bin)
		return EXIT_USAGE;
	struct httpcmd hc = {.upstream = url,
			     .listen = listen,
			     .idle = idle,
			     .hold = hold,
			     .state = state,
			     .trace_dir = trace_dir,
			     .policy = policy,
			     .no_index = no_index,
			     .enforce = enforce,
			     .scope = la->scope,
			     .network = la->network,
			     .expose = la->expose,
			     .server = la->server};
	char **args = httpcmd_argv(bin, &hc);
	fflush(NULL);
	execv(bin, args);
	int en = errno;
	httpcmd_free(args);
	free(bin);
	return cli_fail("proxy: cannot run belay-http: %s", strerror(en));
}

int cmd_proxy(int argc, char **argv)
{
	struct cli_parse P;
	cli_parse_init(&cli_proxy, &P, 1);
	const char *trace_dir = getenv("BELAY_TRACE_DIR"), *state = NULL, *scope = getenv("BELAY_SANDBOX_SCOPE");
	const char *network = getenv("BELAY_SANDBOX_NETWORK");
	int no_trace = 0, no_index = 0, no_trial = 0, spin_us = -1, writer_normal = 0;
	unsigned slice_us = 0; /* the kernel's: see proxy/loop_slice.h for when asking helps */
	const char *mode_s = NULL, *policy_file = NULL, *http = NULL, *listen = NULL, *idle = NULL, *hold = NULL;
	size_t frame_cap = 0;
	char **expose = NULL;
	int c;
	optind = 1;
	opterr = 0;
	while ((c = cli_getopt(&P, argc, argv)) != -1) {
		switch (c) {
		case 't': trace_dir = optarg; break;
		case 's': state = optarg; break;
		case 'n': no_trace = 1; break;
		case 'I': no_index = 1; break;
		case 'S': scope = optarg; break;
		case 'N': network = optarg; break;
		case 'F': frame_cap = strtoull(optarg, NULL, 10); break;
		case 'M': mode_s = optarg; break;
		case 'P': policy_file = optarg; break;
		case 'T': no_trial = 1; break;
		case 'W': {
			char *end;
			long v = strtol(optarg, &end, 10);
			if (!*optarg || *end || v < 0 || v > LOOP_SPIN_MAX_US) {
				free(expose);
				return cli_fail("proxy: --spin-us must be a whole number of microseconds from 0 to %u, not '%s'",
						LOOP_SPIN_MAX_US, optarg);
			}
			spin_us = (int)v;
			break;
		}
		case 'L':
			if (loop_slice_parse(optarg, &slice_us) != 0) {
				free(expose);
				return cli_fail("proxy: --slice-us must be 0 or a whole number of microseconds from %u to %u, "
						"not '%s'",
						LOOP_SLICE_MIN_US, LOOP_SLICE_MAX_US, optarg);
			}
			break;
		case 'R':
			if (strcmp(optarg, "idle") != 0 && strcmp(optarg, "normal") != 0) {
				free(expose);
				return cli_fail("proxy: --trace-writer must be idle or normal, not '%s'", optarg);
			}
			writer_normal = strcmp(optarg, "normal") == 0;
			break;
		case 'X': cli_push(&expose, optarg); break;
		case 'H': http = optarg; break;
		case 'O': listen = optarg; break;
		case 'D': idle = optarg; break;
		case 'Y': hold = optarg; break;
		case 'h': free(expose); cli_help(&cli_proxy, stdout); return 0;
		default:
			free(expose);
			return cli_fail("proxy: unknown or incomplete option '%s' (belay proxy --help)", argv[optind - 1]);
		}
	}
	if (http) {
		struct http_local_args la = {0};
		if (optind < argc) {
			if (!(scope && *scope)) {
				free(expose);
				return cli_fail("proxy: --http URL with a server command starts that server contained: give "
						"--scope DIR too (belay proxy --http http://127.0.0.1:PORT/mcp --scope DIR -- "
						"SERVER_CMD)");
			}
			struct err ne = {0};
			if (httpcmd_check_network(network, &ne)) {
				free(expose);
				return cli_fail("proxy: %s", ne.msg);
			}
			la.scope = scope;
			la.network = "deny";
			la.expose = expose;
			la.server = argv + optind;
		} else if ((scope && *scope) || expose || (network && *network)) {
			free(expose);
			return cli_fail("proxy: --scope, --network and --expose contain a server belay starts (give its "
					"command after --); a server at a URL runs elsewhere");
		}
		int bad_trace = no_trace, bad_mode = mode_s && strcmp(mode_s, "audit") && strcmp(mode_s, "enforce");
		if (bad_trace || bad_mode)
			free(expose);
		if (bad_trace)
			return cli_fail("proxy: --http always records (--no-trace is for stdio servers)");
		if (bad_mode)
			return cli_fail("proxy: with --http every tools/call gets its effect plan: --mode audit (recorded) or "
					"enforce (calls that ask or deny refused, approvable once), not '%s'",
					mode_s);
		int rc_http = proxy_http(http, listen, idle, hold, state, trace_dir, no_index, policy_file,
					 mode_s && !strcmp(mode_s, "enforce"), &la);
		free(expose);
		return rc_http;
	}
	if (listen || idle || hold) {
		free(expose);
		return cli_fail("proxy: --listen, --idle-timeout and --hold go with --http URL");
	}
	int bad = optind >= argc ? 1 : expose && !(scope && *scope) ? 2 : 0;
	if (bad) {
		free(expose);
		return bad == 1 ? cli_fail("proxy: no server command given (belay proxy [options] -- SERVER_CMD [ARGS...])")
				: cli_fail("proxy: --expose needs --scope (an uncontained server sees everything)");
	}
	char **server = argv + optind;

	struct err e = {0};
	int contained = scope && *scope, rc0 = 0;
	enum sandbox_network net = SANDBOX_NET_DENY;
	enum admission_mode mode = ADMISSION_AUDIT; /* the README's "gates calls": plans recorded by default */
	if (network && *network && !contained)
		rc0 = cli_fail("proxy: --network needs --scope (an uncontained server is not network-restricted)");
	else if (contained && network && *network && sandbox_parse_network(network, &net, &e))
		rc0 = cli_fail("proxy: %s", e.msg);
	else if (mode_s && admission_parse_mode(mode_s, &mode))
		rc0 = cli_fail("proxy: --mode must be audit, enforce or off, not '%s'", mode_s);
	if (rc0) {
		free(expose);
		return rc0;
	}

	uv_loop_t *loop = uv_default_loop();
	struct endpoint *cin = NULL, *cout = NULL;
	int rc = endpoint_open_fd(loop, 0, 0, &cin);
	if (rc == 0)
		rc = endpoint_open_fd(loop, 1, 0, &cout);
	if (rc) {
		free(expose);
		return cli_fail("proxy: cannot use stdin/stdout: %s", uv_strerror(rc));
	}

	/* This thread runs the loop that forwards: a short slice (--slice-us) lets it run soon
	 * after it is woken. Asked before anything is started, which then keeps the kernel's
	 * default. */
	struct loop_slice slice;
	(void)loop_slice_set(slice_us, &slice); /* not applied: forwarding works as before; the stats say why */

	struct proxy_run run = {0};
	struct runner_cfg cfg = {
		.server = server,
		.scope = contained ? scope : NULL,
		.net = net,
		.expose = expose,
		.mode = mode,
		.policy_file = policy_file,
		.state_dir = state,
		.trace_dir = trace_dir,
		.no_trace = no_trace,
		.no_index = no_index,
		.spin_us = spin_us > 0 ? (unsigned)spin_us : 0,
		.no_spin = spin_us == 0,
		.frame_cap = frame_cap,
		.trace_writer_normal = writer_normal,
		.approvals = 1,
		.ended = on_ended,
		.report = report,
		.alert = alert,
		.ctx = &run,
	};
	/* enforce mode, contained: a call whose only unknown effect is a local program is tried
	 * in a mirror first, and the agent's refusal carries what it did (docs/TRY.md) */
	struct trial_route *trials = NULL;
	if (mode == ADMISSION_ENFORCE && contained && !no_trial) {
		char *sd = paths_state_dir(state);
		trials = trial_route_new(scope, sd, paths_self_exe(), 0);
		free(sd);
		cfg.trial = trial_route_run;
		cfg.trial_ctx = trials;
	}
	rc = runner_start(loop, &cfg, cin, cout, &run.runner, &e);
	free(expose); /* runner_start has copied what it needs */
	if (rc != 0) {
		uv_run(loop, UV_RUN_DEFAULT); /* lets the failed session's handles close */
		uv_loop_close(loop);
		trial_route_free(trials);
		return cli_fail("proxy: %s", e.msg);
	}
	if (runner_trace_path(run.runner))
		fprintf(stderr, "belay: recording to %s\n", runner_trace_path(run.runner));
	static const int signums[3] = {SIGINT, SIGTERM, SIGHUP};
	for (int i = 0; i < 3; i++) {
		uv_signal_init(loop, &run.sigs[i]);
		run.sigs[i].data = &run;
		uv_signal_start(&run.sigs[i], on_signal, signums[i]);
		uv_unref((uv_handle_t *)&run.sigs[i]);
	}
	uv_run(loop, UV_RUN_DEFAULT);
	uv_loop_close(loop);
	uint64_t loop_cpu_ns = time_thread_cpu_ns(NULL); /* this thread ran the loop */
	/* The trace writer is closed by now: every line has been tapped; finish indexing. */
	struct store_writer_stats st;
	struct trace_writer_stats ts = {0};
	int indexed, traced = runner_trace_path(run.runner) != NULL;
	runner_trace_stats(run.runner, &ts);
	struct loop_spin_stats sp;
	runner_spin_stats(run.runner, &sp);
	runner_free_stats(run.runner, &st, &indexed);
	trial_route_free(trials);
	/* BELAY_PROXY_STATS: what recording cost, on stderr at exit (bench_proxy reads it);
	 * BELAY_INDEX_STATS: the index line alone. */
	int all = getenv("BELAY_PROXY_STATS") != NULL;
	if (traced && all)
		fprintf(stderr,
			"belay: trace: %llu record(s), %llu batch(es), %llu writer wake-up(s), back-pressure %llu time(s), "
			"backlog at most %llu byte(s), %llu rescue(s), %llu batch(es) taken over, writer %s%s\n",
			(unsigned long long)ts.records, (unsigned long long)ts.batches, (unsigned long long)ts.wakes,
			(unsigned long long)ts.highs, (unsigned long long)ts.max_backlog, (unsigned long long)ts.rescues,
			(unsigned long long)ts.taken_over,
			ts.idle_priority ? "SCHED_IDLE" : "SCHED_OTHER",
			ts.priority_errno ? " (SCHED_IDLE refused)" : "");
	if (indexed && (all || getenv("BELAY_INDEX_STATS"))) {
		char prio[160];
		if (st.idle_priority)
			snprintf(prio, sizeof prio, "at idle priority");
		else
			snprintf(prio, sizeof prio, "at normal priority (SCHED_IDLE refused: %s)", strerror(st.priority_errno));
		fprintf(stderr,
			"belay: index: %llu line(s), %llu batch(es), %.3f ms in transactions (longest %.3f ms), "
			"at most %llu line(s) queued, %llu read back from the trace (%llu time(s)), %s, "
			"waited at most %.3f ms for a pause (%llu paused, %llu did not)\n",
			(unsigned long long)st.lines, (unsigned long long)st.batches, (double)st.busy_ns / 1e6,
			(double)st.max_batch_ns / 1e6, (unsigned long long)st.max_queue, (unsigned long long)st.spilled,
			(unsigned long long)st.spills, prio, (double)st.max_wait_ns / 1e6, (unsigned long long)st.paused,
			(unsigned long long)st.lagged);
	}
	if (all) {
		fprintf(stderr,
			"belay: spin: %llu window(s), %llu caught input, %llu ran out, %.3f ms spun, %llu chunk(s) without "
			"a window, gave way %llu time(s) (%.3f ms)\n",
			(unsigned long long)sp.windows, (unsigned long long)sp.caught, (unsigned long long)sp.expired,
			(double)sp.spun_ns / 1e6, (unsigned long long)sp.skipped, (unsigned long long)sp.gave_way,
			(double)sp.gave_way_ns / 1e6);
		char sl[200];
		loop_slice_describe(&slice, sl, sizeof sl);
		fprintf(stderr, "belay: slice: %s\n", sl);
		/* CPU each thread used, in ms: forwarding (the loop, the process's main thread),
		 * recording (trace writer, its serialisers), indexing; and the whole process */
		struct rusage ru;
		getrusage(RUSAGE_SELF, &ru);
		double proc = (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1e3 +
			      (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e3;
		fprintf(stderr,
			"belay: cpu: loop %.3f ms, trace writer %.3f ms, rescue %.3f ms, serialisers %.3f ms, index %.3f ms, "
			"process %.3f ms\n",
			(double)loop_cpu_ns / 1e6, (double)ts.writer_cpu_ns / 1e6, (double)ts.rescue_cpu_ns / 1e6,
			(double)ts.pool_cpu_ns / 1e6, indexed ? (double)st.cpu_ns / 1e6 : 0.0, proc);
	}
	return run.exit_code;
}
