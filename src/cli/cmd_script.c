/* cmd_script.c - hidden `belay __script STEPS.json [--scope DIR] [--network ...] [--state DIR]
 * [--trace-dir DIR] [--timeout S] [--mode M] [--frame-cap BYTES] -- SERVER...`: runs the scripted agent (src/demo/scripted.h) through a
 * recorded (and optionally contained) session and prints the trace path. For tests and for
 * reproducing a run exactly. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "common/buf.h"
#include "common/fsutil.h"
#include "common/jsonx.h"
#include "common/paths.h"
#include "common/xalloc.h"
#include "proxy/prestate.h"
#include "demo/scripted.h"
#include "proxy/admission.h"

static void started(void *ctx, const char *trace_path)
{
	struct admission *g = ctx;
	if (g && trace_path) {
		const char *base = strrchr(trace_path, '/');
		prestate_gate_set_run(g, base ? base + 1 : trace_path);
	}
}

int cmd_script(int argc, char **argv)
{
	static const struct option opts[] = {{"scope", required_argument, NULL, 's'},
					     {"network", required_argument, NULL, 'n'},
					     {"state", required_argument, NULL, 'S'},
					     {"trace-dir", required_argument, NULL, 't'},
					     {"timeout", required_argument, NULL, 'T'},
					     {"mode", required_argument, NULL, 'M'},
					     {"frame-cap", required_argument, NULL, 'F'},
					     {NULL, 0, NULL, 0}};
	const char *scope = NULL, *network = "deny", *state = NULL, *tdir = NULL;
	double timeout = 20;
	size_t frame_cap = 0;
	const char *mode_s = NULL;
	char **server = NULL;
	for (int i = 1; i < argc; i++)
		if (!strcmp(argv[i], "--")) {
			server = i + 1 < argc ? argv + i + 1 : NULL;
			argc = i;
			break;
		}
	int c;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 's': scope = optarg; break;
		case 'n': network = optarg; break;
		case 'S': state = optarg; break;
		case 't': tdir = optarg; break;
		case 'T': timeout = atof(optarg); break;
		case 'M': mode_s = optarg; break;
		case 'F': frame_cap = strtoull(optarg, NULL, 10); break;
		default: return cli_fail("__script: unknown option '%s'", argv[optind - 1]);
		}
	}
	if (optind + 1 != argc || !server)
		return cli_fail("__script: usage: belay __script STEPS.json [options] -- SERVER...");
	struct buf b = {0};
	struct err e = {0};
	if (fs_read_file(argv[optind], 1 << 24, &b, &e))
		return cli_fail("__script: %s", e.msg);
	cJSON *steps = cJSON_ParseWithLength(b.p ? b.p : "", b.len);
	buf_free(&b);
	if (!steps)
		return cli_fail("__script: %s is not JSON", argv[optind]);
	char *state_dir = paths_state_dir(state);
	struct sandbox_spec spec;
	struct admission *gate = NULL;
	enum sandbox_network net = SANDBOX_NET_DENY;
	if (scope) {
		if (sandbox_parse_network(network, &net, &e) || sandbox_spec_init(&spec, scope, net, &e) ||
		    prestate_gate_new(state_dir, spec.scope, &gate, &e)) {
			cJSON_Delete(steps);
			free(state_dir);
			return cli_fail("__script: %s", e.msg);
		}
	}
	enum admission_mode mode = ADMISSION_OFF;
	if (mode_s && admission_parse_mode(mode_s, &mode))
		return cli_fail("__script: bad --mode");
	if (mode != ADMISSION_OFF) {
		if (!gate)
			gate = admission_new(NULL, NULL, NULL);
		admission_set_policy(gate, mode, NULL, scope ? spec.scope : "/", state_dir, NULL);
	}
	char *traces = tdir ? xstrdup(tdir) : fs_join(state_dir, "traces");
	struct scripted_opts so = {
		.argv = server,
		.trace_dir = traces,
		.state_dir = state_dir,
		.sandbox = scope ? &spec : NULL,
		.gate = gate,
		.launcher = paths_self_exe(),
		.timeout_ms = (unsigned)(timeout * 1000),
		.frame_cap = frame_cap,
		.on_started = started,
		.ctx = gate,
	};
	struct scripted_result res;
	int rc = scripted_run(&so, steps, &res, &e);
	cJSON_Delete(steps);
	if (scope)
		sandbox_spec_done(&spec);
	free(traces);
	free(state_dir);
	if (rc)
		return cli_fail("__script: %s", e.msg);
	if (res.trace_path)
		printf("%s\n", res.trace_path);
	int code = res.failed_step >= 0 ? 1 : 0;
	if (res.failed_step >= 0)
		fprintf(stderr, "belay: __script: step %d failed: %s\n", res.failed_step, res.why);
	scripted_result_free(&res);
	return code;
}
