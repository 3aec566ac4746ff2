/* cmd_runs.c - `belay runs` (the runs in the store) and `belay show RUN [--turn N]` (one run
 * or one turn, its frames read back from the trace by the frame index's offsets). Human
 * output by default, JSON with --json. Read-only. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "common/jsonx.h"
#include "common/paths.h"
#include "common/termsafe.h"
#include "common/xalloc.h"
#include "index/runq.h"
#include "index/statedb.h"
#include "store/store.h"

static const struct cli_opt runs_opts[] = {
	{"all", 'a', 0, NULL,
	 "also the health checks (a connection that made no tools/call, had no denial and wrote nothing in the "
	 "workspace, such as `claude mcp list`), hidden by default and counted below the list"},
	CLI_OPT_STATE,
	CLI_OPT_JSON("one JSON object per run"),
	CLI_OPT_END,
};

static const struct cli_opt show_opts[] = {
	{"turn", 't', 0, "N", "one turn (0-based): its request and response as recorded, the denials during it and "
			      "its latest verdict with every sub-verdict's message"},
	CLI_OPT_STATE,
	CLI_OPT_JSON("the same as one JSON object"),
	CLI_OPT_END,
};

const struct cli_cmd cli_runs = {
	.name = "runs",
	.summary = "list the runs in the store (turns, worst verdict, denials)",
	.synopsis = "[--all] [--state DIR] [--json]",
	.about = "Lists the runs of the store: id, start, server, turns, worst verdict, denials. Health checks (an "
		 "agent that connects, lists the tools and leaves, having called nothing, been refused nothing and "
		 "written nothing in the workspace) are left out unless --all; their traces are kept. A read-only "
		 "state directory is read read-only.",
	.opts = runs_opts,
};

const struct cli_cmd cli_show = {
	.name = "show",
	.summary = "show one run, or one turn with its frames and verdict",
	.synopsis = "RUN [--turn N] [--state DIR] [--json]",
	.about = "Prints one run (RUN: a run id, as belay runs lists them), or with --turn one of its turns (and a "
		 "partial re-check made since, beside the verdict: replay-from-here never replaces it).",
	.opts = show_opts,
};

/* "a b c" from a JSON argv, the program shown by its base name; at most max bytes. */
static void argv_text(const cJSON *argv, char *out, size_t max)
{
	size_t n = 0;
	out[0] = '\0';
	for (const cJSON *a = argv ? argv->child : NULL; a && n + 1 < max; a = a->next) {
		const char *s = cJSON_IsString(a) ? a->valuestring : "<bytes>";
		if (a == argv->child && strrchr(s, '/'))
			s = strrchr(s, '/') + 1;
		n += (size_t)snprintf(out + n, max - n, "%s%s", n ? " " : "", s);
	}
	if (n >= max - 1 && max > 4)
		memcpy(out + max - 4, "...", 4);
}

/* A field of the store's (from a trace: the server's, the agent's words), escaped for the
 * terminal (cli_safe: at most 8 in one printf); dflt when absent. */
static const char *str_or(const cJSON *o, const char *key, const char *dflt)
{
	const char *s = jx_str(o, key);
	return s ? cli_safe(s) : dflt;
}

static long long num_or(const cJSON *o, const char *key, long long dflt)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
	return cJSON_IsNumber(v) ? (long long)v->valuedouble : dflt;
}

/* "2026-11-29 18:30:31" from an ISO stamp. */
static void short_time(const char *iso, char out[20])
{
	if (!iso || strlen(iso) < 19) {
		snprintf(out, 20, "%s", iso ? iso : "-");
		return;
	}
	snprintf(out, 20, "%.10s %.8s", iso, iso + 11);
}

static int open_state(const char *state, struct store **st)
{
	char *dir = paths_state_dir(state);
	struct err e = {0};
	int rc = statedb_open_read(dir, st, &e); /* read-only: works in a read-only state dir */
	free(dir);
	if (rc)
		return cli_fail("%s", e.msg);
	return 0;
}

static int do_runs(const char *state, int json, int all)
{
	struct store *st = NULL;
	if (open_state(state, &st))
		return EXIT_USAGE;
	cJSON *runs = NULL;
	struct err e = {0};
	int hidden = 0;
	if (runq_list(st, all, &runs, &hidden, &e) != 0) {
		store_close(st);
		return cli_fail("runs: %s", e.msg);
	}
	store_close(st);
	if (json) {
		for (cJSON *r = runs->child; r; r = r->next)
			cli_print_json(r);
		cJSON_Delete(runs);
		return 0;
	}
	if (!runs->child && !hidden)
		printf("no runs in the store (belay proxy records and indexes them; belay index TRACE adds one)\n");
	else if (!runs->child)
		printf("no runs but health checks in the store\n");
	else
		printf("%-36s %-19s %-30s %5s  %-10s %8s %7s\n", "RUN", "STARTED", "SERVER", "TURNS", "WORST",
		       "VERIFIED", "DENIALS");
	for (cJSON *r = runs->child; r; r = r->next) {
		char when[20], server[31], verified[24];
		short_time(jx_str(r, "started"), when);
		argv_text(cJSON_GetObjectItemCaseSensitive(r, "server"), server, sizeof server);
		if (jx_str(r, "server_url")) /* a run over HTTP: its server is a URL */
			snprintf(server, sizeof server, "%s", jx_str(r, "server_url"));
		snprintf(verified, sizeof verified, "%lld/%lld", num_or(r, "verified_turns", 0), num_or(r, "turns", 0));
		long long net = num_or(r, "network_attempts", 0);
		char den[32];
		if (net)
			snprintf(den, sizeof den, "%lld+%lldnet", num_or(r, "denials", 0), net);
		else
			snprintf(den, sizeof den, "%lld", num_or(r, "denials", 0));
		printf("%-36s %-19s %-30s %5lld  %-10s %8s %7s\n", str_or(r, "id", "?"), cli_safe(when), cli_safe(server),
		       num_or(r, "turns", 0), str_or(r, "worst", "-"), verified, den);
	}
	if (hidden)
		printf("%d health check%s hidden (belay runs --all shows them)\n", hidden, hidden == 1 ? "" : "s");
	cJSON_Delete(runs);
	return 0;
}

static void print_verdict(const cJSON *v)
{
	printf("verdict   %s%s%s  (verification %lld, %s, belay %s)\n", str_or(v, "status", "?"),
	       jx_str(v, "cause") ? "  " : "", str_or(v, "cause", ""), num_or(v, "verification", 0),
	       str_or(v, "at", "?"), str_or(v, "belay_version", "?"));
	const cJSON *subs = cJSON_GetObjectItemCaseSensitive(v, "verdicts");
	for (const cJSON *s = subs ? subs->child : NULL; s; s = s->next) {
		char kind[48];
		snprintf(kind, sizeof kind, "%s %s", str_or(s, "axis", "?"), str_or(s, "kind", "?"));
		printf("    %-20s %-11s %s", kind, str_or(s, "status", "?"), str_or(s, "message", ""));
		if (jx_str(s, "cause"))
			printf("  [%s]", str_or(s, "cause", ""));
		printf("\n");
		const char *labels[2] = {"expected", "observed"};
		for (int k = 0; k < 2; k++) {
			const cJSON *x = cJSON_GetObjectItemCaseSensitive(s, labels[k]);
			if (!x)
				continue;
			char *t = jx_print(x);
			printf("        %-9s %.300s%s\n", labels[k], cli_safe(t), strlen(t) > 300 ? "..." : "");
			free(t);
		}
	}
}

static void print_frame(const char *label, const cJSON *f)
{
	if (!f) {
		printf("%-9s (none recorded)\n", label);
		return;
	}
	printf("%-9s seq %lld, byte %lld of the trace\n", label, num_or(f, "seq", -1), num_or(f, "offset", -1));
	const cJSON *body = cJSON_GetObjectItemCaseSensitive(f, "json");
	if (!body)
		body = cJSON_GetObjectItemCaseSensitive(f, "text");
	if (jx_str(f, "error")) {
		printf("          %s\n", str_or(f, "error", ""));
		return;
	}
	char *raw = body ? cJSON_Print(body) : NULL, *t = termsafe_dup(raw, TERMSAFE_LINES);
	free(raw);
	/* Indent and cap: a frame may be megabytes. */
	size_t shown = 0, len = strlen(t);
	printf("          ");
	for (size_t i = 0; i < len && shown < 4000; i++, shown++) {
		putchar(t[i]);
		if (t[i] == '\n')
			printf("          ");
	}
	printf("%s\n", len > 4000 ? "\n          ... (cut; belay show --json has it all)" : "");
	free(t);
}

static void print_denials(const cJSON *list)
{
	for (const cJSON *d = list ? list->child : NULL; d; d = d->next) {
		printf("  seq %-5lld %-15s %-8s %s", num_or(d, "seq", -1), str_or(d, "kind", "?"), str_or(d, "op", "?"),
		       str_or(d, "target", "?"));
		if (jx_str(d, "errno"))
			printf("  %s", str_or(d, "errno", ""));
		if (jx_str(d, "outcome"))
			printf("  %s", str_or(d, "outcome", ""));
		if (jx_str(d, "comm"))
			printf("  by %s", str_or(d, "comm", ""));
		long long ts = num_or(d, "turn_seq", -1);
		if (ts >= 0)
			printf("  (call at seq %lld)", ts);
		printf("\n");
	}
}

static int do_show(const char *state, const char *run, int turn, int json)
{
	struct store *st = NULL;
	if (open_state(state, &st))
		return EXIT_USAGE;
	cJSON *o = NULL;
	struct err e = {0};
	int rc = turn >= 0 ? runq_turn(st, run, turn, &o, &e) : runq_run(st, run, &o, &e);
	store_close(st);
	if (rc)
		return cli_fail("show: %s", e.msg);
	if (json) {
		cli_print_json(o);
		cJSON_Delete(o);
		return 0;
	}
	if (turn >= 0) {
		printf("run       %s\nturn      %d  %s %s\n", cli_safe(run), turn, str_or(o, "method", "?"),
		       str_or(o, "tool", "?"));
		printf("arguments %s\n", str_or(o, "args", "(none)"));
		long long lat = num_or(o, "latency_us", -1);
		printf("status    %s", str_or(o, "status", "?"));
		if (lat >= 0)
			printf(", %.3f ms", (double)lat / 1000.0);
		if (jx_str(o, "error"))
			printf(", %s", str_or(o, "error", ""));
		printf("\npre-state %s %s%s\n", str_or(o, "gate", "?"), str_or(o, "handle", ""),
		       str_or(o, "handle_cause", ""));
		print_frame("request", cJSON_GetObjectItemCaseSensitive(o, "request"));
		print_frame("response", cJSON_GetObjectItemCaseSensitive(o, "response"));
		const cJSON *den = cJSON_GetObjectItemCaseSensitive(o, "denial_list");
		printf("denials   %d during this call\n", cJSON_GetArraySize(den));
		print_denials(den);
		const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, "verdict");
		if (cJSON_IsObject(v))
			print_verdict(v);
		else
			printf("verdict   - (not verified yet: belay verify TRACE --turn %d)\n", turn);
		const cJSON *re = cJSON_GetObjectItemCaseSensitive(o, "recheck");
		if (cJSON_IsObject(re)) {
			printf("re-check  (replay from here: the result comparison only; beside the verdict, not in its "
			       "place)\n          ");
			print_verdict(re);
		}
		cJSON_Delete(o);
		return 0;
	}
	char server[512], t0[20], t1[20];
	argv_text(cJSON_GetObjectItemCaseSensitive(o, "server"), server, sizeof server);
	if (jx_str(o, "server_url")) /* a run over HTTP (docs/HTTP.md) */
		snprintf(server, sizeof server, "%s over HTTP, through belay's listener %s", jx_str(o, "server_url"),
			 str_or(o, "listener", "?"));
	short_time(jx_str(o, "started"), t0);
	short_time(jx_str(o, "ended"), t1);
	printf("run       %s\n", str_or(o, "id", "?"));
	printf("trace     %s (%lld bytes, %lld records, %lld skipped)\n", str_or(o, "trace_path", "?"),
	       num_or(o, "indexed_bytes", 0), num_or(o, "records", 0), num_or(o, "skipped", 0));
	printf("time      %s .. %s\n", cli_safe(t0), jx_str(o, "ended") ? cli_safe(t1) : "(no close record: killed or still running)");
	if (num_or(o, "unindexed_bytes", 0) > 0)
		printf("tail      %lld byte(s) after the last complete line: %s\n", num_or(o, "unindexed_bytes", 0),
		       jx_str(o, "ended") ? "not indexed (belay index the trace again)"
					  : "a line being written, or one cut mid-line (the writer was killed or the disk "
					    "filled); shown up to the line before");
	printf("server    %s", cli_safe(server));
	if (num_or(o, "exit_status", -1) >= 0)
		printf("  (exit %lld)", num_or(o, "exit_status", -1));
	else if (jx_str(o, "exit_signal"))
		printf("  (%s)", str_or(o, "exit_signal", ""));
	printf("\n");
	if (jx_str(o, "scope"))
		printf("scope     %s (network %s)\n", str_or(o, "scope", ""), str_or(o, "network", "?"));
	const cJSON *turns = cJSON_GetObjectItemCaseSensitive(o, "turn_list");
	printf("worst     %s\n", str_or(o, "worst", "- (not verified)"));
	printf("turns     %d\n", cJSON_GetArraySize(turns));
	if (cJSON_GetArraySize(turns))
		printf("  %-4s %-22s %-10s %10s  %-12s %-10s %-10s %s\n", "TURN", "TOOL", "STATUS", "LATENCY", "PRE-STATE",
		       "VERDICT", "RE-CHECK", "ERROR / ARGUMENTS");
	for (const cJSON *t = turns ? turns->child : NULL; t; t = t->next) {
		char lat[24] = "-";
		if (num_or(t, "latency_us", -1) >= 0)
			snprintf(lat, sizeof lat, "%.3f ms", (double)num_or(t, "latency_us", 0) / 1000.0);
		printf("  %-4lld %-22.22s %-10s %10s  %-12s %-10s %-10s %.60s\n", num_or(t, "turn", -1),
		       str_or(t, "tool", "?"), str_or(t, "status", "?"), lat, str_or(t, "gate", "?"),
		       str_or(t, "verdict", "-"), str_or(t, "recheck", "-"),
		       jx_str(t, "error") ? str_or(t, "error", "") : str_or(t, "args", ""));
	}
	const cJSON *den = cJSON_GetObjectItemCaseSensitive(o, "denial_list");
	printf("denials   %d\n", cJSON_GetArraySize(den));
	print_denials(den);
	const cJSON *traj = cJSON_GetObjectItemCaseSensitive(o, "trajectory");
	if (traj) {
		printf("trajectory ");
		print_verdict(traj);
	}
	const cJSON *census = cJSON_GetObjectItemCaseSensitive(o, "census");
	if (census) {
		printf("census    ");
		print_verdict(census);
	}
	cJSON_Delete(o);
	return 0;
}

int cmd_runs(int argc, char **argv)
{
	int show = !strcmp(argv[0], "show");
	struct cli_parse P;
	cli_parse_init(show ? &cli_show : &cli_runs, &P, 0);
	struct cli_opts co = {.cmd = argv[0], .help = argv[0], .spec = show ? &cli_show : &cli_runs};
	int turn = -1, all = 0, c, r;
	optind = 1;
	opterr = 0;
	while ((c = cli_getopt(&P, argc, argv)) != -1) {
		if (c == 't') {
			char *end;
			long v = strtol(optarg, &end, 10);
			if (!show || *end || v < 0 || v > 1 << 30)
				return cli_fail("%s: --turn takes a turn number (0-based)%s", argv[0],
						show ? "" : " and belongs to show");
			turn = (int)v;
		} else if (c == 'a' && !show) {
			all = 1;
		} else if ((r = cli_opt_take(&co, c, argv)) != CLI_OPT_TAKEN) {
			return r;
		}
	}
	if (!show) {
		if (optind < argc)
			return cli_fail("runs: unexpected argument '%s'", argv[optind]);
		return do_runs(co.state, co.json, all);
	}
	if (optind >= argc)
		return cli_fail("show: which run? (belay show RUN [--turn N]; belay runs lists them)");
	if (optind + 1 < argc)
		return cli_fail("show: unexpected argument '%s'", argv[optind + 1]);
	return do_show(co.state, argv[optind], turn, co.json);
}
