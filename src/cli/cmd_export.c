/* cmd_export.c - `belay export otlp TRACE... [--out FILE | --endpoint URL]`: every turn's
 * verdict as an OpenTelemetry span (docs/OTEL.md). The traces are verified on the way (the
 * same verdicts as `belay verify`). OTLP/JSON goes to a file (one request per line, as the
 * collector's file exporter writes), to stdout, or over OTLP/HTTP through belay-otlp-post,
 * a separate executable: belay itself links no network client. Exit 0, 1 when the endpoint
 * refused or could not be reached, 2 on usage and input errors. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "common/child.h"
#include "common/fsutil.h"
#include "common/jsonx.h"
#include "common/paths.h"
#include "common/xalloc.h"
#include "index/statedb.h"
#include "interop/otlp_out.h"
#include "verify/policy.h"
#include "verify/verify.h"


static const struct cli_opt otlp_opts[] = {
	{"out", 'o', 0, "FILE", "write the export there (one request per line)"},
	{"endpoint", 'E', 0, "URL", "POST it (through belay-otlp-post)"},
	{NULL, 'H', 0, "HEADER", "a header for the endpoint, 'Name: value' (e.g. an API key; may be repeated)"},
	{"include-payloads", 'P', 0, NULL, "add tool arguments and results (secrets are scrubbed always)"},
	CLI_VOPT_ROWS,
	CLI_OPT_END,
};

static const struct cli_cmd export_otlp_cmd = {
	.name = "export otlp",
	.summary = "one span per turn with its verdict, as OTLP/JSON",
	.synopsis = "TRACE... [--out FILE] [--endpoint URL] [options]",
	.about = "Each span is a child of the agent's span when the call carried a W3C traceparent in _meta. To "
		 "FILE, to stdout, or POSTed to an OTLP/HTTP endpoint (a collector, Jaeger, Tempo: http://host:4318 "
		 "gets /v1/traces added).",
	.opts = otlp_opts,
};

const struct cli_cmd cli_export = {
	.name = "export",
	.summary = "verdicts as OpenTelemetry spans: OTLP/JSON to a file or an OTLP/HTTP endpoint (export otlp)",
	.about = "The traces are verified on the way (docs/OTEL.md).",
	.subs = (const struct cli_cmd *const[]){&export_otlp_cmd, NULL},
	.notes = "Exit status: 0 when exported, 1 when the endpoint refused or could not be reached, 2 on usage "
		 "and input errors.",
};

static char *traces_url(const char *url)
{
	const char *hostpart = strstr(url, "://");
	const char *slash = hostpart ? strchr(hostpart + 3, '/') : NULL;
	if (!slash)
		return xasprintf("%s/v1/traces", url);
	if (!slash[1])
		return xasprintf("%sv1/traces", url);
	return xstrdup(url);
}

static int post(const char *url, const char *const *headers, int nh, const char *body, size_t len)
{
	char *sender = paths_sibling_exe("belay-otlp-post");
	if (!sender) {
		fprintf(stderr, "belay: export otlp: belay-otlp-post is not installed next to belay or on PATH (it is "
				"built when libcurl is present); use --out FILE instead\n");
		return 1;
	}
	char *full = traces_url(url);
	const char *argv[40];
	int k = 0;
	argv[k++] = sender;
	argv[k++] = full;
	for (int i = 0; i < nh && k < 38; i++) {
		argv[k++] = "-H";
		argv[k++] = headers[i];
	}
	argv[k] = NULL;
	struct child_spec sp = CHILD_SPEC_INIT;
	sp.argv = (char *const *)argv;
	sp.in = body;
	sp.in_len = len;
	sp.out = sp.err = CHILD_INHERIT; /* the sender says itself what went wrong */
	struct child_result res;
	struct err e = {0};
	if (child_run(&sp, NULL, &res, &e) < 0) {
		fprintf(stderr, "belay: export otlp: %s\n", e.msg);
		free(full);
		free(sender);
		return 1;
	}
	int ok = res.status == 0 && !res.in_short;
	if (!ok)
		fprintf(stderr, "belay: export otlp: the export was not accepted by %s (see above)\n", full);
	free(full);
	free(sender);
	return ok ? 0 : 1;
}

static int export_otlp(int argc, char **argv)
{
	struct cli_parse P;
	cli_parse_init(&export_otlp_cmd, &P, 0);
	struct cli_vopts vo = CLI_VOPTS_DEFAULT;
	const char *out = NULL, *endpoint = NULL, *headers[16];
	int nh = 0, c;
	struct otlp_out_opts oo = {0};
	optind = 1;
	opterr = 0;
	while ((c = cli_getopt(&P, argc, argv)) != -1) {
		int r = cli_vopts_take(&vo, c, "export otlp");
		if (r == EXIT_USAGE)
			return r;
		if (r == CLI_OPT_TAKEN)
			continue;
		switch (c) {
		case 'o': out = optarg; break;
		case 'E': endpoint = optarg; break;
		case 'P': oo.include_payloads = 1; break;
		case 'H': if (nh == 16) return cli_fail("export otlp: too many -H"); headers[nh++] = optarg; break;
		case 'h': cli_help(&cli_export, stdout); return 0;
		default: return cli_fail("export otlp: unknown or incomplete option '%s' (belay export --help)", argv[optind - 1]);
		}
	}
	if (optind >= argc)
		return cli_fail("export otlp: no trace given");
	if (endpoint && strncmp(endpoint, "http://", 7) && strncmp(endpoint, "https://", 8))
		return cli_fail("export otlp: --endpoint %s is not an http:// or https:// URL", endpoint);
	struct policy pol = {0};
	int rc = cli_vopts_policy(&vo, &pol, "export otlp");
	if (rc)
		return rc;
	cJSON *spans = cJSON_CreateArray();
	struct err e = {0};
	for (int i = optind; i < argc && !rc; i++) {
		struct verify_report r;
		if (cli_vopts_verify(&vo, &pol, argv[i], &r, &e) != 0) {
			rc = cli_fail("export otlp: %s", e.msg);
		} else {
			if (otlp_spans_for_trace(argv[i], &r, &oo, spans, &e) != 0)
				rc = cli_fail("export otlp: %s", e.msg);
			verify_report_free(&r);
		}
	}
	policy_free(&pol);
	if (rc) {
		cJSON_Delete(spans);
		return rc;
	}
	int n = cJSON_GetArraySize(spans);
	cJSON *req = otlp_request(spans);
	struct buf b = {0};
	jx_print_buf(req, &b);
	buf_putc(&b, '\n');
	cJSON_Delete(req);
	if (out) {
		if (fs_write_file_atomic(out, b.p, b.len, 0600, &e) != 0)
			rc = cli_fail("export otlp: %s", e.msg);
		else
			fprintf(stderr, "belay: export otlp: %d span(s) -> %s\n", n, out);
	}
	if (!rc && endpoint) {
		rc = post(endpoint, headers, nh, b.p, b.len);
		if (rc == 0)
			fprintf(stderr, "belay: export otlp: %d span(s) -> %s\n", n, endpoint);
	}
	if (!rc && !out && !endpoint)
		fwrite(b.p, 1, b.len, stdout);
	buf_free(&b);
	return rc;
}

int cmd_export(int argc, char **argv)
{
	if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		cli_help(&cli_export, argc < 2 ? stderr : stdout);
		return argc < 2 ? EXIT_USAGE : 0;
	}
	if (!strcmp(argv[1], "otlp"))
		return export_otlp(argc - 1, argv + 1);
	return cli_fail("export: unknown format '%s' (otlp)", argv[1]);
}
