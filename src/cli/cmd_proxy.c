/* cmd_proxy.c - `belay proxy`: the headless recording proxy an agent launches as its MCP
 * server command. Validates everything before any byte moves; exits with the server's
 * status (128+signal when it was killed). */
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <uv.h>

#include "cli/cli.h"
#include "common/fsutil.h"
#include "common/paths.h"
#include "common/xalloc.h"
#include "common/jsonx.h"
#include "engine/approvals.h"
#include "engine/prestate.h"
#include "engine/turn_gate.h"
#include "gate/gate.h"
#include "engine/sandbox.h"
#include "engine/session.h"
#include "index/runidx.h"
#include "index/store_writer.h"

static const char proxy_usage[] =
	"usage: belay proxy [options] -- SERVER_CMD [ARGS...]\n"
	"\n"
	"Runs SERVER_CMD as an MCP server over stdio, forwards stdin/stdout verbatim and\n"
	"records every frame into an append-only trace.\n"
	"\n"
	"  --trace-dir DIR     write the trace here (env BELAY_TRACE_DIR; default STATE/traces)\n"
	"  --state DIR         belay's state directory (default $XDG_STATE_HOME/belay)\n"
	"  --no-trace          forward only, record nothing\n"
	"  --no-index          do not index the run into the store while recording\n"
	"                      (`belay index TRACE` can do it later)\n"
	"  --scope DIR         run the server contained, writes confined to DIR\n"
	"                      (env BELAY_SANDBOX_SCOPE)\n"
	"  --network deny|allow  network policy for a contained server (default deny;\n"
	"                      env BELAY_SANDBOX_NETWORK=deny-all|allow-all)\n"
	"  --mode audit|enforce  classify every tools/call into an effect plan; audit records it,\n"
	"                      enforce also refuses calls that ask or deny (approve once with\n"
	"                      `belay approve ID`)\n"
	"  --policy FILE       the gate's tool-call policy (docs/GATE.md)\n";

struct proxy_run {
	int exit_code;
	int ended;
	uv_signal_t sigs[3];
	struct session *session;
	struct approvals *approvals;
};

static void on_record(void *ctx, struct session *s, int64_t seq, const char *kind, const cJSON *fields)
{
	struct proxy_run *r = ctx;
	(void)s;
	(void)seq;
	/* Once containment is up, approvals from inside the sandbox are refused by namespace. */
	if (r->approvals && !strcmp(kind, "sandbox") && cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(fields, "ok")))
		approvals_set_sandbox(r->approvals, jx_str(cJSON_GetObjectItemCaseSensitive(fields, "layers"), "userns"));
}

static void on_ended(void *ctx, struct session *s, int code)
{
	struct proxy_run *r = ctx;
	(void)s;
	r->exit_code = code;
	r->ended = 1;
	r->session = NULL;
	approvals_close(r->approvals);
	r->approvals = NULL;
	for (int i = 0; i < 3; i++)
		uv_close((uv_handle_t *)&r->sigs[i], NULL);
}

/* Store writer thread: one line, once. */
static void report_index_failure(void *ctx, const char *msg)
{
	(void)ctx;
	fprintf(stderr, "belay: %s\n", msg);
}

static void on_signal(uv_signal_t *h, int sig)
{
	struct proxy_run *r = h->data;
	(void)sig;
	if (r->session)
		session_terminate(r->session);
}

int cmd_proxy(int argc, char **argv)
{
	static const struct option opts[] = {
		{"trace-dir", required_argument, NULL, 't'}, {"state", required_argument, NULL, 's'},
		{"no-trace", no_argument, NULL, 'n'},        {"scope", required_argument, NULL, 'S'},
		{"network", required_argument, NULL, 'N'},   {"frame-cap", required_argument, NULL, 'F'},
		{"mode", required_argument, NULL, 'M'},      {"policy", required_argument, NULL, 'P'},
		{"no-index", no_argument, NULL, 'I'},        {"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	const char *trace_dir = getenv("BELAY_TRACE_DIR"), *state = NULL, *scope = getenv("BELAY_SANDBOX_SCOPE");
	const char *network = getenv("BELAY_SANDBOX_NETWORK");
	int no_trace = 0, no_index = 0;
	const char *mode_s = NULL, *policy_file = NULL;
	size_t frame_cap = 0;
	int c;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+h", opts, NULL)) != -1) {
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
		case 'h': fputs(proxy_usage, stdout); return 0;
		default:
			return cli_fail("proxy: unknown or incomplete option '%s' (belay proxy --help)", argv[optind - 1]);
		}
	}
	if (optind >= argc)
		return cli_fail("proxy: no server command given (belay proxy [options] -- SERVER_CMD [ARGS...])");
	char **server = argv + optind;

	struct err e = {0};
	struct sandbox_spec spec = {0};
	int contained = scope && *scope;
	if (network && *network && !contained)
		return cli_fail("proxy: --network needs --scope (an uncontained server is not network-restricted)");
	if (contained) {
		enum sandbox_network net = SANDBOX_NET_DENY;
		if (network && *network && sandbox_parse_network(network, &net, &e))
			return cli_fail("proxy: %s", e.msg);
		if (sandbox_spec_init(&spec, scope, net, &e))
			return cli_fail("proxy: %s", e.msg);
	}

	enum turn_gate_mode mode = TURN_GATE_OFF;
	if (mode_s && turn_gate_parse_mode(mode_s, &mode))
		return cli_fail("proxy: --mode must be audit or enforce, not '%s'", mode_s);
	struct gate_policy *gpol = NULL;
	if (policy_file && gate_policy_load(policy_file, &gpol, &e))
		return cli_fail("proxy: policy: %s", e.msg);
	if (policy_file && mode == TURN_GATE_OFF)
		mode = TURN_GATE_AUDIT;

	char *state_dir = paths_state_dir(state);
	char *default_traces = NULL;
	if (!no_trace && !(trace_dir && *trace_dir))
		trace_dir = default_traces = fs_join(state_dir, "traces");

	uv_loop_t *loop = uv_default_loop();
	struct endpoint *cin = NULL, *cout = NULL;
	int rc = endpoint_open_fd(loop, 0, 0, &cin);
	if (rc == 0)
		rc = endpoint_open_fd(loop, 1, 0, &cout);
	if (rc) {
		free(state_dir);
		free(default_traces);
		return cli_fail("proxy: cannot use stdin/stdout: %s", uv_strerror(rc));
	}

	/* With a scope, every tools/call waits for its pre-state (snapshots in the state dir). */
	struct turn_gate *gate = NULL;
	if (contained && paths_ensure_state_dir(state_dir, &e) == 0)
		spec.hide = realpath(state_dir, NULL); /* the server never sees belay's state */
	if (contained && (rc = prestate_gate_new(state_dir, spec.scope, &gate, &e)) != 0) {
		endpoint_close(cin);
		endpoint_close(cout);
		uv_run(loop, UV_RUN_DEFAULT);
		uv_loop_close(loop);
		free(state_dir);
		free(default_traces);
		sandbox_spec_done(&spec);
		return cli_fail("proxy: %s", e.msg);
	}
	/* Live indexing: the trace writer's lines go to the store writer's thread. */
	struct store_writer *sw = NULL;
	if (!no_trace && !no_index) {
		struct store_writer_opts swo = {.report = report_index_failure};
		sw = store_writer_new(state_dir, &swo);
	}
	struct proxy_run run = {0};
	if (mode != TURN_GATE_OFF) {
		if (!gate)
			gate = turn_gate_new(NULL, NULL, NULL);
		char *cwd = getcwd(NULL, 0);
		turn_gate_set_policy(gate, mode, gpol, contained ? spec.scope : cwd, state_dir);
		gpol = NULL;
		free(cwd);
		if (mode == TURN_GATE_ENFORCE && approvals_open(loop, state_dir, &run.approvals, &e) != 0) {
			fprintf(stderr, "belay: proxy: approvals unavailable (%s); refused calls cannot be approved\n", e.msg);
			approvals_close(run.approvals);
			run.approvals = NULL;
		}
		gate->approvals = run.approvals;
	}
	gate_policy_free(gpol);
	struct session_observer obs = {.record = on_record, .ended = on_ended, .ctx = &run};
	struct session_opts so = {
		.argv = server,
		.trace_dir = no_trace ? NULL : trace_dir,
		.frame_cap = frame_cap,
		.obs = &obs,
		.sandbox = contained ? &spec : NULL,
		.launcher = paths_self_exe(),
		.gate = gate,
		.state_dir = state_dir,
		.trace_tap = sw ? store_writer_tap : NULL,
		.trace_tap_ctx = sw,
	};
	rc = session_start(loop, &so, cin, cout, &run.session, &e);
	if (rc) {
		store_writer_close(sw, NULL);
		endpoint_close(cin);
		endpoint_close(cout);
		uv_run(loop, UV_RUN_DEFAULT);
		uv_loop_close(loop);
		free(state_dir);
		free(default_traces);
		if (contained)
			sandbox_spec_done(&spec);
		return cli_fail("proxy: %s", e.msg);
	}
	if (session_trace_path(run.session)) {
		const char *tp = session_trace_path(run.session);
		char *run_id = runidx_run_id(tp);
		if (gate)
			prestate_gate_set_run(gate, run_id);
		free(run_id);
		fprintf(stderr, "belay: recording to %s\n", tp);
		struct err se = {0};
		if (sw && store_writer_start(sw, tp, &se) != 0)
			fprintf(stderr, "belay: %s; the run is not indexed live (belay index can do it later)\n", se.msg);
	}
	static const int signums[3] = {SIGINT, SIGTERM, SIGHUP};
	for (int i = 0; i < 3; i++) {
		uv_signal_init(loop, &run.sigs[i]);
		run.sigs[i].data = &run;
		uv_signal_start(&run.sigs[i], on_signal, signums[i]);
		uv_unref((uv_handle_t *)&run.sigs[i]);
	}
	uv_run(loop, UV_RUN_DEFAULT);
	uv_loop_close(loop);
	/* The trace writer is closed by now: every line has been tapped. */
	struct store_writer_stats st;
	store_writer_close(sw, &st);
	if (sw && getenv("BELAY_INDEX_STATS"))
		fprintf(stderr,
			"belay: index: %llu line(s), %llu batch(es), %.3f ms in transactions (longest %.3f ms), "
			"at most %llu line(s) queued\n",
			(unsigned long long)st.lines, (unsigned long long)st.batches, (double)st.busy_ns / 1e6,
			(double)st.max_batch_ns / 1e6, (unsigned long long)st.max_queue);
	free(state_dir);
	free(default_traces);
	if (contained)
		sandbox_spec_done(&spec);
	return run.exit_code;
}
