/* cmd_try.c - `belay try [...] -- COMMAND...`, `belay try show|apply|discard TRIAL`: run a
 * command once in a disposable mirror of the workspace, show what it did, apply it only on
 * request. See src/trial/trial.h and docs/TRY.md. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/cli_spec.h"
#include "common/jsonx.h"
#include "common/fsutil.h"
#include "common/paths.h"
#include "common/termsafe.h"
#include "common/xalloc.h"
#include "snapshot/snapshot.h"
#include "trial/trial.h"
#include "trial/trial_show.h"
#include "tui/diffview.h"
#include "tui/tdoc.h"

static const struct cli_opt try_opts[] = {
	{"scope", 'S', 0, "DIR", "the workspace the command runs in (default: the working directory)"},
	{"network", 'N', 0, "deny|allow", "the trial's network (default deny)"},
	{"timeout", 'T', 0, "SECONDS", "kill the command after this long (default 600); the trial then fails as TRIAL_TIMEOUT"},
	{"max-bytes", 'M', 0, "N", "the most the mirror's upper layer may hold (default 1 GiB); more fails the trial as "
				   "TRIAL_UPPER_OVER_LIMIT"},
	{"yes", 'y', 0, NULL, "apply: do not ask before changing the workspace"},
	CLI_OPT_STATE,
	CLI_OPT_JSON("print the trial record as one JSON object (id, exit, effect, denials, ...)"),
	CLI_OPT_END,
};

#define TRY_SUB(id, sub, syn, what) \
	static const struct cli_cmd id = {.name = "try " sub, .summary = what, .synopsis = syn}
TRY_SUB(spec_try_show, "show", "TRIAL [--json | --output stdout|stderr]",
	"print a trial's record: its effect with text diffs, denials, output tails, state; --output writes one full "
	"output, raw, as the command wrote it (from the store)");
TRY_SUB(spec_try_apply, "apply", "TRIAL [--yes] [--allow-link PATH]...",
	"apply the trial's effect to the real workspace (conflict-checked, a recover point first); a link that leads "
	"out of the workspace is refused unless named with --allow-link PATH");
TRY_SUB(spec_try_discard, "discard", "TRIAL", "throw the trial's effect away (the record stays)");

const struct cli_cmd cli_try = {
	.name = "try",
	.summary = "run a command in a disposable mirror of the workspace and show what it did (show|apply|discard)",
	.synopsis = "[--scope DIR] [--network deny|allow] [--timeout SECONDS] [--max-bytes N] [--json] -- COMMAND [ARGS...]",
	.about = "Runs COMMAND once, contained, in a mirror of the workspace: an overlay whose lower layer is the real "
		 "tree and whose private upper layer takes every write, mounted at the workspace's own path inside the "
		 "sandbox (its own mount and pid namespaces, network denied by default). The real workspace is never "
		 "written. Prints the exit status, the effect (added, changed, deleted and mode-changed paths), what the "
		 "sandbox refused and the scrubbed output tails, and the trial's id on the last line.\n\n"
		 "`belay try apply TRIAL` then applies the effect to the real workspace, refusing when a touched path "
		 "changed since the trial (naming it); it snapshots the workspace first, and prints the `belay recover` "
		 "command that undoes it. `belay try discard TRIAL` throws the effect away.",
	.opts = try_opts,
	.subs = (const struct cli_cmd *const[]){&spec_try_show, &spec_try_apply, &spec_try_discard, NULL},
	.notes = "Exit status: the command's (128+N when a signal ended it) when the trial completed; 124 when it "
		 "timed out; 125 when the trial failed or was voided for another named cause (TRIAL_UPPER_OVER_LIMIT, "
		 "TRIAL_WORKSPACE_CHANGED, TRIAL_CLEANUP_UNCONFIRMED); 126 when nothing ran (TRIAL_NO_OVERLAY, "
		 "TRIAL_NO_SANDBOX, TRIAL_NO_PRESTATE, TRIAL_NO_COMMAND). apply and discard: 0, or 1 when refused.",
};

static void print_tail(const char *what, const cJSON *rec, const char *key)
{
	const char *t = jx_str(rec, key);
	if (!t || !*t)
		return;
	printf("%s (last %d KiB at most, secrets scrubbed):\n", what, TRIAL_TAIL_BYTES / 1024);
	fputs(cli_safe_lines(t), stdout);
	if (t[strlen(t) - 1] != '\n')
		putchar('\n');
}

static void print_record(const cJSON *rec)
{
	const char *status = jx_str(rec, "status"), *cause = jx_str(rec, "cause");
	const cJSON *sig = cJSON_GetObjectItemCaseSensitive(rec, "signal");
	const cJSON *ex = cJSON_GetObjectItemCaseSensitive(rec, "exit");
	printf("trial    %s (%s%s%s)\n", cli_safe(jx_str(rec, "id")), status ? cli_safe(status) : "?", cause ? ": " : "",
	       cause ? cli_safe(cause) : "");
	if (cause && jx_str(rec, "cause_detail"))
		printf("         %s\n", cli_safe(jx_str(rec, "cause_detail")));
	printf("scope    %s (network %s)\n", cli_safe(jx_str(rec, "scope")), cli_safe(jx_str(rec, "network")));
	if (cJSON_IsNumber(sig))
		printf("ended    by signal %d (%s)", sig->valueint,
		       jx_str(rec, "signal_name") ? cli_safe(jx_str(rec, "signal_name")) : "?");
	else
		printf("exit     %d", cJSON_IsNumber(ex) ? ex->valueint : -1);
	const cJSON *w = cJSON_GetObjectItemCaseSensitive(rec, "wall_ms");
	printf(" after %.0f ms%s\n", cJSON_IsNumber(w) ? w->valuedouble : 0.0,
	       cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(rec, "timed_out")) ? " (timed out, killed)" : "");
	const cJSON *k = cJSON_GetObjectItemCaseSensitive(rec, "survivors_killed");
	if (cJSON_IsNumber(k) && k->valueint > 0)
		printf("killed   %d process(es) it left behind\n", k->valueint);
	const cJSON *eff = cJSON_GetObjectItemCaseSensitive(rec, "effect");
	printf("effect   %d path(s)%s\n", cJSON_GetArraySize(eff),
	       cJSON_GetArraySize(eff) ? "" : " (the command changed nothing in the workspace)");
	for (const cJSON *it = eff ? eff->child : NULL; it; it = it->next) {
		const char *mode = jx_str(it, "mode");
		const char *target = jx_str(it, "target");
		int leaves = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(it, "leaves_workspace"));
		printf("  %-8s %s%s%s%s%s%s%s\n", cli_safe(jx_str(it, "change")), cli_safe(jx_str(it, "path")),
		       mode ? "  (" : "", mode ? cli_safe(mode) : "", mode ? ")" : "", target ? " -> " : "",
		       target ? cli_safe(target) : "",
		       leaves ? "  (leads out of the workspace: applied only with --allow-link)" : "");
	}
	const cJSON *den = cJSON_GetObjectItemCaseSensitive(rec, "denials");
	printf("denials  %d\n", cJSON_GetArraySize(den));
	for (const cJSON *d = den ? den->child : NULL; d; d = d->next) {
		const char *op = jx_str(d, "op"), *path = jx_str(d, "path"), *addr = jx_str(d, "address");
		const char *er = jx_str(d, "errno"), *layer = jx_str(d, "layer");
		printf("  %s %s%s%s (%s)\n", cli_safe(op ? op : jx_str(d, "kind")), cli_safe(path ? path : addr ? addr : ""),
		       er ? ": " : "", er ? cli_safe(er) : "", layer ? cli_safe(layer) : "sandbox");
	}
	print_tail("stdout", rec, "stdout_tail");
	print_tail("stderr", rec, "stderr_tail");
	const char *state = jx_str(rec, "state");
	if (state)
		printf("state    %s\n", cli_safe(state));
}

/* The text diffs the record itself holds (trial_diff.h: bounded, scrubbed), for when the
 * upper layer is gone (applied, discarded). Returns how many files it printed. */
static int print_record_diffs(const cJSON *rec, const char *state)
{
	const cJSON *eff = cJSON_GetObjectItemCaseSensitive(rec, "effect");
	int any = 0;
	for (const cJSON *it = eff ? eff->child : NULL; it; it = it->next) {
		const char *text = jx_str(it, "diff");
		int bin = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(it, "binary"));
		if (!text && !bin)
			continue;
		if (!any++)
			printf("diffs    (from the record: the effect's layer is gone, %s)\n", state ? cli_safe(state) : "?");
		printf("  %s %s%s\n", cli_safe(jx_str(it, "change")), cli_safe(jx_str(it, "path")),
		       bin ? " (binary)" : cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(it, "truncated")) ? " (truncated)" : "");
		for (const char *l = text; l && *l;) {
			const char *nl = strchr(l, '\n');
			size_t n = nl ? (size_t)(nl - l) : strlen(l);
			struct buf lb = {0};
			termsafe_append(&lb, l, n, TERMSAFE_LINES);
			printf("  %s\n", buf_cstr(&lb));
			buf_free(&lb);
			l += n + (nl != NULL);
		}
	}
	return any;
}

/* The content diffs of the effect's regular files: the trial's pre-state (left) against its
 * upper layer (right), while the layer is still there (trial_show.h). */
static void print_diffs(const char *state_dir, const cJSON *rec)
{
	struct trial_diffs td;
	trial_diffs_open(state_dir, rec, &td);
	if (td.why[0]) {
		/* the layer is gone (or unreadable): the record's own diffs (bounded, scrubbed) */
		if (!print_record_diffs(rec, jx_str(rec, "state")))
			printf("diffs    not shown: %s\n", cli_safe(td.why));
	} else if (td.df.n) {
		struct tdoc d;
		tdoc_init(&d);
		diffview_render(&d, td.st, td.pre, NULL, td.upper, &td.df);
		printf("diffs    (the pre-state against the trial's result; + lines are what apply writes)\n");
		for (size_t i = 0; i < d.n; i++) {
			char *line = tdoc_line_text(&d, i);
			printf("  %s\n", cli_safe_lines(line));
			free(line);
		}
		tdoc_free(&d);
	}
	trial_diffs_close(&td);
}

static int parse_u64(const char *s, unsigned long long max, unsigned long long *out)
{
	char *end;
	unsigned long long v = strtoull(s, &end, 10);
	if (!*s || *end || v > max || s[0] == '-')
		return -1;
	*out = v;
	return 0;
}

static int run_trial(const char *state_dir, const char *scope, const char *net, unsigned long long timeout_s,
		     unsigned long long max_bytes, int json, char **argv)
{
	struct err e = {0};
	struct trial_opts o = {.state_dir = state_dir, .argv = argv, .launcher = paths_self_exe(),
			       .timeout_ms = (unsigned)(timeout_s * 1000u), .max_bytes = max_bytes};
	if (net && sandbox_parse_network(net, &o.net, &e))
		return cli_fail("try: %s", e.msg);
	char *cwd = getcwd(NULL, 0);
	o.scope = scope ? scope : cwd;
	o.cwd = cwd;
	cJSON *rec = NULL;
	int rc = trial_run(&o, &rec, &e);
	free(cwd);
	if (rc) {
		fprintf(stderr, "belay: try: nothing ran: %s\n", cli_safe(e.msg));
		return 126;
	}
	if (json)
		cli_print_json(rec);
	else {
		print_record(rec);
		if (cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(rec, "effect")))
			printf("diffs    belay try show %s\n", cli_safe(jx_str(rec, "id")));
		printf("%s\n", cli_safe(jx_str(rec, "id")));
	}
	const char *status = jx_str(rec, "status");
	const cJSON *ex = cJSON_GetObjectItemCaseSensitive(rec, "exit"), *sig = cJSON_GetObjectItemCaseSensitive(rec, "signal");
	int code = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(rec, "timed_out")) ? 124
		   : status && strcmp(status, "done")                                  ? 125
		   : cJSON_IsNumber(sig)                                               ? 128 + sig->valueint
		   : cJSON_IsNumber(ex)                                                ? ex->valueint
										       : 125;
	cJSON_Delete(rec);
	return code;
}

/* `try show`: the record, with both full outputs read back from the store (--json: as
 * "output": {"stdout", "stderr"}, raw bytes as jx_bytes values); `output` set: that output's
 * raw bytes alone. An output that cannot be read back fails the command, named
 * (TRIAL_OUTPUT_MISSING), never shown as empty. */
static int show(const char *state_dir, const char *id, int json, const char *output)
{
	struct err e = {0};
	cJSON *rec = NULL;
	if (trial_load(state_dir, id, &rec, &e) != 0)
		return cli_fail("try show: %s", cli_safe(e.msg));
	static const char *const which[] = {"stdout", "stderr"};
	struct buf full[2] = {{0}, {0}};
	int failed = 0;
	for (int i = 0; i < 2; i++) {
		if (output && strcmp(output, which[i]) != 0)
			continue;
		struct err oe = {0};
		if (trial_output_read(state_dir, rec, which[i], &full[i], &oe) != 0) {
			fprintf(stderr, "belay: try show: %s\n", cli_safe(oe.msg));
			failed = 1;
		}
	}
	if (output) {
		const struct buf *b = &full[strcmp(output, "stdout") ? 1 : 0];
		if (!failed && b->len && isatty(STDOUT_FILENO)) {
			/* a terminal gets it escaped; a pipe or a file the raw bytes */
			struct buf esc = {0};
			termsafe_append(&esc, b->p, b->len, TERMSAFE_LINES);
			fwrite(esc.p, 1, esc.len, stdout);
			buf_free(&esc);
		} else if (!failed && b->len) {
			fwrite(b->p, 1, b->len, stdout);
		}
	} else if (json) {
		if (!failed) {
			cJSON *o = cJSON_AddObjectToObject(rec, "output");
			for (int i = 0; i < 2; i++)
				cJSON_AddItemToObject(o, which[i], jx_bytes(full[i].p ? full[i].p : "", full[i].len));
			cli_print_json(rec);
		}
	} else {
		print_record(rec);
		for (int i = 0; i < 2 && !failed; i++)
			printf("%s   %zu byte(s) in the store, raw (belay try show %s --output %s)\n", which[i], full[i].len, id,
			       which[i]);
		print_diffs(state_dir, rec);
	}
	buf_free(&full[0]);
	buf_free(&full[1]);
	cJSON_Delete(rec);
	return failed;
}

static int sub_cmd(const char *state_dir, const char *sub, const char *id, int yes, int json, const char *output,
		   char *const *allow_links)
{
	struct err e = {0};
	if (!strcmp(sub, "show"))
		return show(state_dir, id, json, output);
	if (output)
		return cli_fail("try %s: --output is for try show", sub);
	if (!strcmp(sub, "discard")) {
		if (trial_discard(state_dir, id, &e) != 0) {
			fprintf(stderr, "belay: try discard: %s\n", e.msg);
			return 1;
		}
		printf("discarded %s (its effect is gone; the record stays: belay try show %s)\n", id, id);
		return 0;
	}
	cJSON *rec = NULL;
	if (trial_load(state_dir, id, &rec, &e) != 0)
		return cli_fail("try apply: %s", cli_safe(e.msg));
	print_record(rec);
	print_diffs(state_dir, rec);
	cJSON_Delete(rec);
	if (!yes && !cli_confirm("apply this effect to the workspace?")) {
		fprintf(stderr, "belay: try apply: nothing changed (pass --yes to skip the question)\n");
		return 1;
	}
	struct trial_apply_result r;
	if (trial_apply_links(state_dir, id, allow_links, &r, &e) != 0) {
		fprintf(stderr, "belay: try apply: %s\n", cli_safe(e.msg));
		trial_apply_result_free(&r);
		return 1;
	}
	printf("applied  %zu path(s) of %s\n", r.paths, id);
	printf("before   snapshot %s (the recover point)\n", r.before);
	if (r.recover_trace)
		printf("undo     belay recover apply %s:0 --yes\n", r.recover_trace);
	trial_apply_result_free(&r);
	return 0;
}

int cmd_try(int argc, char **argv)
{
	struct cli_parse P;
	cli_parse_init(&cli_try, &P, 1);
	struct cli_opts co = {.cmd = "try", .help = "try", .spec = &cli_try};
	const char *scope = NULL, *net = NULL;
	unsigned long long timeout_s = 600, max_bytes = 0;
	int yes = 0, c, taken;
	optind = 1;
	opterr = 0;
	while ((c = cli_getopt(&P, argc, argv)) != -1) {
		switch (c) {
		case 'S': scope = optarg; break;
		case 'N': net = optarg; break;
		case 'T':
			if (parse_u64(optarg, 86400, &timeout_s) || timeout_s == 0)
				return cli_fail("try: --timeout takes 1..86400 seconds, not '%s'", optarg);
			break;
		case 'M':
			if (parse_u64(optarg, ~0ULL >> 1, &max_bytes) || max_bytes == 0)
				return cli_fail("try: --max-bytes takes a positive number of bytes, not '%s'", optarg);
			break;
		case 'y': yes = 1; break;
		default:
			if ((taken = cli_opt_take(&co, c, argv)) != CLI_OPT_TAKEN)
				return taken;
		}
	}
	if (optind >= argc)
		return cli_fail("try: no command given (belay try -- COMMAND..., or belay try show|apply|discard TRIAL)");
	const char *sub = argv[optind];
	int dashed = optind > 1 && !strcmp(argv[optind - 1], "--");
	if (!dashed && (!strcmp(sub, "show") || !strcmp(sub, "apply") || !strcmp(sub, "discard"))) {
		/* the subcommand's own options may follow its operand */
		const char *id = NULL, *output = NULL;
		char **allow = xcalloc((size_t)argc + 1, sizeof *allow);
		size_t nallow = 0;
		for (int i = optind + 1; i < argc; i++) {
			if (!strcmp(argv[i], "--yes") || !strcmp(argv[i], "-y"))
				yes = 1;
			else if (!strcmp(argv[i], "--allow-link") && i + 1 < argc && !strcmp(sub, "apply"))
				allow[nallow++] = argv[++i];
			else if (!strcmp(argv[i], "--json"))
				co.json = 1;
			else if (!strcmp(argv[i], "--output") && i + 1 < argc)
				output = argv[++i];
			else if ((!strcmp(argv[i], "--state") || !strcmp(argv[i], "-s")) && i + 1 < argc)
				co.state = argv[++i];
			else if (!strncmp(argv[i], "--state=", 8))
				co.state = argv[i] + 8;
			else if (!id && argv[i][0] != '-')
				id = argv[i];
			else {
				free(allow);
				return cli_fail("try %s: unexpected '%s' (belay try --help)", sub, argv[i]);
			}
		}
		if (!id || (output && strcmp(output, "stdout") != 0 && strcmp(output, "stderr") != 0)) {
			free(allow);
			if (!id)
				return cli_fail("try %s: which trial? (the id belay try printed)", sub);
			return cli_fail("try %s: --output takes stdout or stderr, not '%s'", sub, output);
		}
		char *state_dir = paths_state_dir(co.state);
		int rc = sub_cmd(state_dir, sub, id, yes, co.json, output, allow);
		free(state_dir);
		free(allow);
		return rc;
	}
	char *state_dir = paths_state_dir(co.state);
	int rc = run_trial(state_dir, scope, net, timeout_s, max_bytes, co.json, argv + optind);
	free(state_dir);
	return rc;
}
