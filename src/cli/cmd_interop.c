/* cmd_interop.c - `belay interop correlate --spans FILE TRACE... [--json]`: an agent's
 * OpenTelemetry spans joined to belay's turns by the W3C traceparent each call carried; each
 * matched span gets its turn's verdict (docs/OTEL.md). The traces are verified on the way.
 * Exit 0 after a report, 2 on usage and input errors (a malformed span file is named). */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "common/jsonx.h"
#include "common/paths.h"
#include "common/xalloc.h"
#include "index/statedb.h"
#include "interop/correlate.h"
#include "measure/report.h"
#include "verify/policy.h"
#include "verify/verify.h"

static const struct cli_opt correlate_opts[] = {
	{"spans", 'S', 0, "FILE", "the OTLP/JSON span export"},
	CLI_OPT_JSON("one JSON object"),
	CLI_VOPT_ROWS,
	CLI_OPT_END,
};

static const struct cli_cmd interop_correlate = {
	.name = "interop correlate",
	.summary = "join an OTLP/JSON span export to the turns and give each matched span its verdict",
	.synopsis = "--spans FILE TRACE... [--json] [options]",
	.about = "Joins the spans of an OTLP/JSON export (the collector's file exporter: one request per line) to "
		 "the turns whose tools/call carried a W3C traceparent naming them, and gives each matched span its "
		 "turn's verdict; every other span gets a named reason.",
	.opts = correlate_opts,
};

const struct cli_cmd cli_interop = {
	.name = "interop",
	.summary = "join an agent's OpenTelemetry spans to turns and their verdicts (interop correlate)",
	.about = "The traces are verified on the way (docs/OTEL.md).",
	.subs = (const struct cli_cmd *const[]){&interop_correlate, NULL},
	.notes = "Exit status: 0 after a report, 2 on usage and input errors (a malformed span file is named).",
};

static void print_text(const cJSON *o)
{
	const cJSON *cor = cJSON_GetObjectItemCaseSensitive(o, "correlation");
	long m = (long)cJSON_GetObjectItemCaseSensitive(cor, "matched")->valuedouble;
	long t = (long)cJSON_GetObjectItemCaseSensitive(cor, "total")->valuedouble;
	char p[16];
	report_pct(m, t, p);
	printf("correlation rate = matched/spans = %ld/%ld = %s\n", m, t, p);
	const cJSON *unc = cJSON_GetObjectItemCaseSensitive(cor, "uncorrelated");
	printf("uncorrelated     ");
	if (!cJSON_GetArraySize(unc))
		printf("none");
	for (const cJSON *c = unc ? unc->child : NULL; c; c = c->next)
		printf("%s%s %d", c == unc->child ? "" : ", ", cli_safe(c->string), c->valueint);
	printf("\n");
	const cJSON *nc = cJSON_GetObjectItemCaseSensitive(o, "not_covered");
	printf("coverage         ");
	if (!cJSON_GetArraySize(nc))
		printf("no NOT_COVERED sub-verdict on the matched spans");
	for (const cJSON *c = nc ? nc->child : NULL; c; c = c->next)
		printf("%sNOT_COVERED %s %d/%ld", c == nc->child ? "" : ", ", cli_safe(c->string), c->valueint, m);
	printf("\n\n");
	for (const cJSON *s = cJSON_GetObjectItemCaseSensitive(o, "spans")->child; s; s = s->next) {
		const cJSON *turn = cJSON_GetObjectItemCaseSensitive(s, "turn_index");
		char tb[64];
		if (cJSON_IsNumber(turn))
			snprintf(tb, sizeof tb, "%s#%d", jx_str(s, "trace"), turn->valueint);
		else
			snprintf(tb, sizeof tb, "-");
		/* spans imported from another system: every string is escaped */
		printf("%s  %-32s %-40s %-10s %s\n", cli_safe(jx_str(s, "span_id")), cli_safe(jx_str(s, "name")), cli_safe(tb),
		       cli_safe(jx_str(s, "status")), jx_str(s, "cause") ? cli_safe(jx_str(s, "cause")) : "");
	}
}

static int correlate_cmd(int argc, char **argv)
{
	struct cli_parse P;
	cli_parse_init(&interop_correlate, &P, 0);
	struct cli_vopts vo = CLI_VOPTS_DEFAULT;
	const char *spans_path = NULL;
	int json = 0, c;
	optind = 1;
	opterr = 0;
	while ((c = cli_getopt(&P, argc, argv)) != -1) {
		int r = cli_vopts_take(&vo, c, "interop correlate");
		if (r == EXIT_USAGE)
			return r;
		if (r == CLI_OPT_TAKEN)
			continue;
		if (c == 'S')
			spans_path = optarg;
		else if (c == 'J')
			json = 1;
		else if (c == 'h') {
			cli_help(&cli_interop, stdout);
			return 0;
		} else
			return cli_fail("interop correlate: unknown or incomplete option '%s' (belay interop --help)",
					argv[optind - 1]);
	}
	if (!spans_path)
		return cli_fail("interop correlate: --spans FILE is required");
	if (optind >= argc)
		return cli_fail("interop correlate: no trace given");
	struct err e = {0};
	struct otlp_span *spans = NULL;
	size_t nspans = 0;
	if (otlp_spans_read(spans_path, &spans, &nspans, &e) != 0)
		return cli_fail("interop correlate: %s", e.msg);
	struct policy pol = {0};
	int rc = cli_vopts_policy(&vo, &pol, "interop correlate");
	if (rc) {
		otlp_spans_free(spans, nspans);
		return rc;
	}
	size_t nt = (size_t)(argc - optind);
	struct verify_report *reps = xcalloc(nt, sizeof *reps);
	struct correlate_trace *ct = xcalloc(nt, sizeof *ct);
	size_t done = 0;
	for (; done < nt && !rc; done++) {
		const char *tr = argv[optind + (int)done];
		if (cli_vopts_verify(&vo, &pol, tr, &reps[done], &e) != 0)
			rc = cli_fail("interop correlate: %s", e.msg);
		ct[done] = (struct correlate_trace){tr, &reps[done]};
	}
	cJSON *out = NULL;
	if (!rc && correlate(spans, nspans, ct, nt, &out, &e) != 0)
		rc = cli_fail("interop correlate: %s", e.msg);
	if (!rc) {
		if (json)
			cli_print_json(out);
		else
			print_text(out);
	}
	cJSON_Delete(out);
	for (size_t i = 0; i < done; i++)
		verify_report_free(&reps[i]);
	free(reps);
	free(ct);
	policy_free(&pol);
	otlp_spans_free(spans, nspans);
	return rc;
}

int cmd_interop(int argc, char **argv)
{
	if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		cli_help(&cli_interop, argc < 2 ? stderr : stdout);
		return argc < 2 ? EXIT_USAGE : 0;
	}
	if (!strcmp(argv[1], "correlate"))
		return correlate_cmd(argc - 1, argv + 1);
	return cli_fail("interop: unknown subcommand '%s' (correlate)", argv[1]);
}
