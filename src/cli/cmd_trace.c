/* cmd_trace.c - `belay trace show|check TRACE`: a human (or JSON) view of a recorded run,
 * and strict validation that names the first bad line. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "common/jsonx.h"
#include "mcp/model.h"
#include "trace/trace_model.h"
#include "trace/trace_reader.h"

static const struct cli_opt trace_show_opts[] = {
	CLI_OPT_JSON("one JSON object per request/response pair, then a summary line"),
	CLI_OPT_END,
};

static const struct cli_cmd trace_show = {
	.name = "trace show",
	.summary = "requests paired with their responses, latency and errors",
	.synopsis = "TRACE [--json]",
	.opts = trace_show_opts,
};

static const struct cli_cmd trace_check = {
	.name = "trace check",
	.summary = "validate a trace; exit 1 naming the first bad line (a last line cut mid-line is named, "
		   "and the lines before it are read)",
	.synopsis = "TRACE",
};

const struct cli_cmd cli_trace = {
	.name = "trace",
	.summary = "show or check a recorded trace",
	.about = "A trace is the append-only JSON-lines record of one run (docs/TRACE_FORMAT.md).",
	.subs = (const struct cli_cmd *const[]){&trace_show, &trace_check, NULL},
};

static void print_argv(const cJSON *argv)
{
	for (const cJSON *a = argv ? argv->child : NULL; a; a = a->next)
		printf(" %s", cJSON_IsString(a) ? cli_safe(a->valuestring) : "<bytes>");
}

static const char *outcome(const struct exchange *x, char *buf, size_t n)
{
	if (x->status == EX_ANSWERED_BY_BELAY) {
		/* Not the server's: belay answered in its place, and says why. */
		snprintf(buf, n, "by belay: %s", x->belay_reason);
		return buf;
	}
	if (x->resp_seq < 0)
		return ex_status_name(x->status);
	if (x->protocol_error)
		snprintf(buf, n, "error %d", x->error_code);
	else if (x->tool_error)
		snprintf(buf, n, "isError");
	else
		snprintf(buf, n, "ok");
	if (x->resp_truncated)
		strncat(buf, " (truncated)", n - strlen(buf) - 1);
	if (x->status == EX_DUPLICATE)
		strncat(buf, " (duplicate)", n - strlen(buf) - 1);
	if (x->status == EX_ORPHAN)
		snprintf(buf, n, "response without request");
	return buf;
}

static void show_human(const struct trace *t, const struct model *m)
{
	printf("trace   %s\n", cli_safe(t->path));
	const cJSON *st = trace_server_start(t), *ex = trace_server_exit(t);
	if (st) {
		printf("server ");
		print_argv(cJSON_GetObjectItemCaseSensitive(st, "argv"));
		const cJSON *pid = cJSON_GetObjectItemCaseSensitive(st, "pid");
		printf("  (pid %d)\n", cJSON_IsNumber(pid) ? pid->valueint : -1);
	}
	if (ex) {
		const cJSON *code = cJSON_GetObjectItemCaseSensitive(ex, "exit_status");
		const cJSON *sig = cJSON_GetObjectItemCaseSensitive(ex, "signal");
		const cJSON *eb = cJSON_GetObjectItemCaseSensitive(ex, "stderr_bytes");
		if (cJSON_IsNumber(sig))
			printf("exit    killed by signal %d", sig->valueint);
		else
			printf("exit    status %d", cJSON_IsNumber(code) ? code->valueint : -1);
		printf(", %.0f stderr byte(s)\n", cJSON_IsNumber(eb) ? eb->valuedouble : 0);
	} else {
		printf("exit    unrecorded (no server exit record)\n");
	}
	if (!t->has_close)
		printf("window  open, no close record: the proxy was killed or is still running\n");
	size_t c2s = 0, s2c = 0, by_belay = 0;
	for (size_t i = 0; i < m->nframes; i++) {
		m->frames[i].dir == DIR_C2S ? c2s++ : s2c++;
		by_belay += m->frames[i].from_belay;
	}
	printf("frames  %zu (client->server %zu, server->client %zu", m->nframes, c2s, s2c - by_belay);
	if (by_belay)
		printf(", belay->client %zu in the server's place", by_belay);
	printf("), %zu unreadable, %zu over the recording cap\n", m->gaps, m->truncated);
	if (t->cut_line) {
		char cut[600];
		trace_cut_text(t, cut, sizeof cut);
		printf("cut     %s\n", cli_safe(cut));
	}
	printf("turns   %zu tools/call of %zu exchanges\n\n", m->nturns, m->nex);
	printf("%6s %6s  %-4s %-10s %-34s %10s  %s\n", "turn", "seq", "from", "id", "method", "latency", "result");
	for (size_t i = 0; i < m->nex; i++) {
		const struct exchange *x = &m->ex[i];
		char turn[16] = "", lat[32] = "-", res[64], name[160];
		if (x->turn >= 0)
			snprintf(turn, sizeof turn, "#%d", x->turn);
		int64_t us = exchange_latency_us(x);
		if (us >= 0)
			snprintf(lat, sizeof lat, "%.1f ms", (double)us / 1000.0);
		snprintf(name, sizeof name, "%s%s%s", x->method ? x->method : "?", x->tool ? " " : "",
			 x->tool ? x->tool : "");
		printf("%6s %6lld  %-4s %-10.10s %-34.34s %10s  %s\n", turn,
		       (long long)(x->req_seq >= 0 ? x->req_seq : x->resp_seq), x->origin == DIR_C2S ? "cli" : "srv",
		       x->id.key[0] ? cli_safe(x->id.key + 2) : "-", cli_safe(name), lat,
		       cli_safe(outcome(x, res, sizeof res)));
	}
	int errors = 0;
	for (size_t i = 0; i < t->n; i++) {
		if (strcmp(t->recs[i].kind, "capture_error") == 0) {
			if (!errors++)
				printf("\ncapture errors:\n");
			printf("  line %d: %s %s\n", t->recs[i].line,
			       jx_str(t->recs[i].obj, "dir") ? cli_safe(jx_str(t->recs[i].obj, "dir")) : "-",
			       jx_str(t->recs[i].obj, "cause") ? cli_safe(jx_str(t->recs[i].obj, "cause")) : "?");
		}
	}
	if (t->nskips) {
		printf("\nskipped records (not understood by this reader, kept in the file):\n");
		for (size_t i = 0; i < t->nskips; i++)
			printf("  line %d: %s\n", t->skips[i].line, cli_safe(t->skips[i].reason));
	}
}

static void show_json(const struct trace *t, const struct model *m)
{
	for (size_t i = 0; i < m->nex; i++) {
		const struct exchange *x = &m->ex[i];
		cJSON *o = cJSON_CreateObject();
		if (x->turn >= 0)
			cJSON_AddNumberToObject(o, "turn", x->turn);
		else
			cJSON_AddNullToObject(o, "turn");
		cJSON_AddStringToObject(o, "origin", x->origin == DIR_C2S ? "client" : "server");
		cJSON_AddStringToObject(o, "id", x->id.key);
		if (x->method)
			cJSON_AddStringToObject(o, "method", x->method);
		else
			cJSON_AddNullToObject(o, "method");
		if (x->tool)
			cJSON_AddStringToObject(o, "tool", x->tool);
		cJSON_AddStringToObject(o, "status", ex_status_name(x->status));
		cJSON_AddNumberToObject(o, "request_seq", (double)x->req_seq);
		cJSON_AddNumberToObject(o, "response_seq", (double)x->resp_seq);
		if (x->status == EX_ANSWERED_BY_BELAY) {
			cJSON_AddNumberToObject(o, "belay_seq", (double)x->belay_seq);
			cJSON_AddStringToObject(o, "belay_reason", x->belay_reason);
		}
		int64_t us = exchange_latency_us(x);
		if (us >= 0)
			cJSON_AddNumberToObject(o, "latency_us", (double)us);
		else
			cJSON_AddNullToObject(o, "latency_us");
		if (x->protocol_error)
			cJSON_AddNumberToObject(o, "error_code", x->error_code);
		cJSON_AddBoolToObject(o, "is_error", x->tool_error);
		if (x->req_truncated)
			cJSON_AddBoolToObject(o, "request_truncated", 1);
		if (x->resp_truncated)
			cJSON_AddBoolToObject(o, "response_truncated", 1);
		if (x->traceparent)
			cJSON_AddStringToObject(o, "traceparent", x->traceparent);
		char *s = jx_print(o);
		puts(s);
		cJSON_free(s);
		cJSON_Delete(o);
	}
	cJSON *sum = cJSON_CreateObject(), *inner = cJSON_CreateObject();
	cJSON_AddItemToObject(sum, "summary", inner);
	cJSON_AddStringToObject(inner, "trace", t->path);
	cJSON_AddNumberToObject(inner, "frames", (double)m->nframes);
	cJSON_AddNumberToObject(inner, "exchanges", (double)m->nex);
	cJSON_AddNumberToObject(inner, "turns", (double)m->nturns);
	cJSON_AddNumberToObject(inner, "unreadable_frames", (double)m->gaps);
	cJSON_AddNumberToObject(inner, "truncated_frames", (double)m->truncated);
	if (t->cut_line) {
		cJSON *cut = cJSON_AddObjectToObject(inner, "cut");
		cJSON_AddNumberToObject(cut, "line", t->cut_line);
		cJSON_AddNumberToObject(cut, "bytes", (double)t->cut_bytes);
	} else {
		cJSON_AddNullToObject(inner, "cut");
	}
	cJSON_AddBoolToObject(inner, "closed", t->has_close);
	int errors = 0;
	for (size_t i = 0; i < t->n; i++)
		errors += strcmp(t->recs[i].kind, "capture_error") == 0;
	cJSON_AddNumberToObject(inner, "capture_errors", errors);
	cJSON *sk = cJSON_AddArrayToObject(inner, "skipped");
	for (size_t i = 0; i < t->nskips; i++) {
		cJSON *o = cJSON_CreateObject();
		cJSON_AddNumberToObject(o, "line", t->skips[i].line);
		cJSON_AddStringToObject(o, "reason", t->skips[i].reason);
		cJSON_AddItemToArray(sk, o);
	}
	char *s = jx_print(sum);
	puts(s);
	cJSON_free(s);
	cJSON_Delete(sum);
}

int cmd_trace(int argc, char **argv)
{
	if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		cli_help(&cli_trace, argc < 2 ? stderr : stdout);
		return argc < 2 ? EXIT_USAGE : 0;
	}
	const char *sub = argv[1], *path = NULL;
	const struct cli_cmd *spec = cli_sub(&cli_trace, sub);
	if (!spec)
		return cli_fail("trace: unknown subcommand '%s' (show or check)", sub);
	struct cli_parse P;
	cli_parse_init(spec, &P, 0);
	int json = 0, c;
	optind = 1;
	opterr = 0;
	while ((c = cli_getopt(&P, argc - 1, argv + 1)) != -1) {
		if (c == 'J')
			json = 1;
		else if (c == 'h') {
			cli_help(spec, stdout);
			return 0;
		} else
			return cli_fail("%s: unknown option '%s' (belay trace --help)", spec->name, argv[optind]);
	}
	if (optind + 1 < argc)
		path = argv[1 + optind];
	if (optind + 2 < argc)
		return cli_fail("trace: more than one trace given");
	if (!path)
		return cli_fail("trace %s: no trace file given", sub);
	struct err e = {0};
	struct trace *t = NULL;
	int rc = trace_read(path, &t, &e);
	if (rc) {
		fprintf(stderr, "belay: %s\n", cli_safe(e.msg));
		return !strcmp(sub, "check") && rc != -2 /* ENOENT */ ? 1 : EXIT_USAGE;
	}
	if (!strcmp(sub, "check")) {
		rc = trace_validate(t, &e);
		if (rc) {
			fprintf(stderr, "belay: %s\n", cli_safe(e.msg));
			trace_free(t);
			return 1;
		}
		size_t frames = 0;
		for (size_t i = 0; i < t->n; i++)
			frames += t->recs[i].is_frame;
		printf("ok: %zu record(s), %zu frame(s), %s", t->n + t->nskips, frames,
		       t->has_close ? "closed" : "not closed (the proxy was killed or is still running)");
		if (t->cut_line)
			printf(", line %d cut mid-line (%zu byte(s) without a newline: the writer was killed or the disk "
			       "filled; read up to line %d)",
			       t->cut_line, t->cut_bytes, t->cut_line - 1);
		if (t->nskips)
			printf(", %zu record(s) skipped as not understood:", t->nskips);
		printf("\n");
		for (size_t i = 0; i < t->nskips; i++)
			printf("  line %d: %s\n", t->skips[i].line, cli_safe(t->skips[i].reason));
		trace_free(t);
		return 0;
	}
	if (t->cut_line) {
		char cut[600];
		trace_cut_text(t, cut, sizeof cut);
		fprintf(stderr, "belay: %s\n", cli_safe(cut));
	}
	struct model m;
	model_init(&m);
	trace_build_model(t, &m);
	if (json)
		show_json(t, &m);
	else
		show_human(t, &m);
	model_free(&m);
	trace_free(t);
	return 0;
}
