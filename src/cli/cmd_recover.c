/* cmd_recover.c - `belay recover list|show|apply|undo`: put a workspace back to the
 * pre-state of a recorded turn, after showing what would change, refusing over changes the
 * run does not explain (unless --force), and recording every apply. See src/run/recover.h. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/cli.h"
#include "common/jsonx.h"
#include "common/paths.h"
#include "common/xalloc.h"
#include "index/runq.h"
#include "run/recover.h"
#include "index/statedb.h"
#include "store/store.h"
#include "tui/diffview.h"
#include "tui/tdoc.h"

static const struct cli_opt recover_opts[] = {
	CLI_OPT_STATE,
	{"yes", 'y', 0, NULL, "do not ask before changing the workspace"},
	{"force", 'f', 0, NULL, "restore even over unexplained changes (they are lost; undo keeps them)"},
	CLI_OPT_END,
};

#define RECOVER_SUB(id, sub, syn, what) \
	static const struct cli_cmd id = {.name = "recover " sub, .summary = what, .synopsis = syn}
RECOVER_SUB(spec_recover_list, "list", "[RUN]", "the contained runs; with RUN, its turns and their pre-states");
RECOVER_SUB(spec_recover_show, "show", "[RUN:]TURN", "what apply would change");
RECOVER_SUB(spec_recover_apply, "apply", "[RUN:]TURN [--yes] [--force]",
	    "restore the workspace to the pre-state of TURN, after snapshotting it (recover undo puts it back)");
RECOVER_SUB(spec_recover_undo, "undo", "ID [--yes]", "put the workspace back as it was before recovery ID");

const struct cli_cmd cli_recover = {
	.name = "recover",
	.summary = "restore a run's workspace to the pre-state of one of its turns (list|show|apply|undo)",
	.about = "Restores a run's workspace (its --scope) to the pre-state of one of its turns. RUN is a run id "
		 "(belay runs) or a trace file; without it, the latest contained run. apply refuses when the "
		 "workspace changed since the run ended in ways no recorded turn explains (it names the paths) "
		 "unless --force; it snapshots the workspace first, so `recover undo ID` can put it back.",
	.opts = recover_opts,
	.subs = (const struct cli_cmd *const[]){&spec_recover_list, &spec_recover_show, &spec_recover_apply, &spec_recover_undo, NULL},
};

/* Finds the trace of RUN (a run id or a trace file), or of the latest contained run. */
static char *find_trace(struct store *st, const char *run, struct err *e)
{
	struct stat sb;
	if (run && stat(run, &sb) == 0 && S_ISREG(sb.st_mode))
		return xstrdup(run);
	return runq_trace_path(st, run, e);
}

/* "[RUN:]TURN" */
static int parse_turn(const char *spec, char **run, int *turn)
{
	const char *colon = strrchr(spec, ':');
	const char *num = colon ? colon + 1 : spec;
	char *end;
	long v = strtol(num, &end, 10);
	if (!*num || *end || v < 0 || v > 1 << 30)
		return -1;
	*turn = (int)v;
	*run = colon ? xstrndup(spec, (size_t)(colon - spec)) : NULL;
	return 0;
}

static void print_doc(const struct tdoc *d)
{
	for (size_t i = 0; i < d->n; i++) {
		char *s = tdoc_line_text(d, i);
		printf("  %s\n", cli_safe_lines(s));
		free(s);
	}
}

static void print_plan(const struct recover_plan *p)
{
	printf("run        %s\n", cli_safe(p->run));
	printf("workspace  %s\n", cli_safe(p->scope));
	printf("target     turn %d's pre-state %s%s%s\n", p->turn, cli_safe(p->target), p->target_hash ? "  " : "",
	       p->target_hash ? cli_safe(p->target_hash) : "");
	if (p->final_handle)
		printf("drift      %s\n", p->drift.n ? "the workspace changed since the run ended:" : "none (the workspace is as the run left it)");
	else
		printf("drift      unknown: %s\n", cli_safe(p->final_cause));
	for (size_t i = 0; i < p->drift.n && i < 50; i++)
		printf("             %s\n", cli_safe(p->drift.items[i].path));
	if (!p->changes.n) {
		printf("changes    none: the workspace already matches turn %d's pre-state\n", p->turn);
		return;
	}
	printf("changes    %zu path(s) would change back:\n", p->changes.n);
	struct tdoc d;
	tdoc_init(&d);
	/* Left: the target; right: the workspace now (so + lines are what goes away). */
	diffview_render(&d, p->st, p->target, NULL, p->scope, &p->changes);
	print_doc(&d);
	tdoc_free(&d);
	printf("           (- lines come back, + lines go away)\n");
}

static int cmd_list(struct store *st, const char *run)
{
	struct err e = {0};
	cJSON *rows = NULL;
	if (!run) {
		if (runq_contained_runs(st, &rows, &e))
			return cli_fail("recover: %s", e.msg);
		printf("%-36s %-20s %6s  %s\n", "RUN", "STARTED", "TURNS", "WORKSPACE");
		for (const cJSON *r = rows->child; r; r = r->next)
			printf("%-36s %-20.19s %6d  %s\n", cli_safe(jx_str(r, "id") ? jx_str(r, "id") : "?"),
			       jx_str(r, "started") ? cli_safe(jx_str(r, "started")) : "-",
			       (int)cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(r, "turns")),
			       cli_safe(jx_str(r, "scope") ? jx_str(r, "scope") : ""));
		cJSON_Delete(rows);
		return 0;
	}
	if (runq_turn_states(st, run, &rows, &e))
		return cli_fail("recover: %s", e.msg);
	printf("%5s  %-24s %-12s %s\n", "TURN", "TOOL", "PRE-STATE", "HANDLE / WHY NOT");
	int n = 0;
	for (const cJSON *r = rows->child; r; r = r->next, n++) {
		const char *h = jx_str(r, "handle"), *c = jx_str(r, "handle_cause");
		printf("%5d  %-24s %-12s %s\n", (int)cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(r, "turn")),
		       jx_str(r, "tool") ? cli_safe(jx_str(r, "tool")) : "?", cli_safe(jx_str(r, "gate") ? jx_str(r, "gate") : ""),
		       cli_safe(h ? h : c ? c : "-"));
	}
	cJSON_Delete(rows);
	if (!n)
		return cli_fail("recover: no turns for run '%s' (belay recover list shows the runs)", run);
	return 0;
}

static int cmd_undo(struct store *st, const char *state_dir, const char *id, int yes)
{
	struct err e = {0};
	char *ws = NULL, *before = NULL;
	if (recover_saved(st, atoll(id), &ws, &before, &e) != 0)
		return cli_fail("recover: %s", e.msg);
	if (!before) {
		free(ws);
		return cli_fail("recover: no recovery %s with a saved workspace", id);
	}
	struct snap_store *ss = NULL;
	struct snap_diff d = {0};
	int rc = snap_store_open(state_dir, ws, &ss, &e);
	if (rc == 0)
		rc = snap_diff_handle_dir(ss, before, ws, &d, &e);
	if (rc == 0) {
		printf("undo recovery %s: %s back to snapshot %s (%zu path(s))\n", id, ws, before, d.n);
		if (!yes && !cli_confirm("put it back?")) {
			rc = 1;
			fprintf(stderr, "belay: recover: nothing changed (pass --yes to skip the question)\n");
		} else {
			struct snap_paths ps = {0};
			for (size_t i = 0; i < d.n; i++)
				snap_paths_add(&ps, d.items[i].path, d.items[i].path_len, 0);
			snap_paths_sort(&ps);
			rc = ps.n ? snap_restore_paths(ss, before, ws, &ps, NULL, &e) : 0;
			snap_paths_free(&ps);
			if (rc == 0)
				printf("done\n");
		}
	}
	snap_diff_free(&d);
	snap_store_close(ss);
	free(ws);
	free(before);
	if (rc < 0)
		return cli_fail("recover: %s", e.msg);
	return rc;
}

int cmd_recover(int argc, char **argv)
{
	struct cli_parse P;
	cli_parse_init(&cli_recover, &P, 0);
	struct cli_opts co = {.cmd = "recover", .help = "recover", .spec = &cli_recover};
	int yes = 0, force = 0, c, taken;
	optind = 1;
	opterr = 0;
	while ((c = cli_getopt(&P, argc, argv)) != -1) {
		if (c == 'y')
			yes = 1;
		else if (c == 'f')
			force = 1;
		else if ((taken = cli_opt_take(&co, c, argv)) != CLI_OPT_TAKEN)
			return taken;
	}
	const char *state = co.state;
	if (optind >= argc)
		return cli_fail("recover: list, show, apply or undo (belay recover --help)");
	const char *sub = argv[optind++];
	const char *arg = optind < argc ? argv[optind++] : NULL;
	if (optind < argc)
		return cli_fail("recover: unexpected '%s'", argv[optind]);
	char *state_dir = paths_state_dir(state);
	struct store *st = NULL;
	struct err e = {0};
	if (statedb_open(state_dir, &st, &e) != 0) {
		free(state_dir);
		return cli_fail("recover: %s", e.msg);
	}
	int rc;
	if (!strcmp(sub, "list")) {
		rc = cmd_list(st, arg);
	} else if (!strcmp(sub, "undo")) {
		rc = arg ? cmd_undo(st, state_dir, arg, yes) : cli_fail("recover: undo needs the recovery's ID");
	} else if (!strcmp(sub, "show") || !strcmp(sub, "apply")) {
		char *run = NULL, *trace = NULL;
		int turn;
		if (!arg || parse_turn(arg, &run, &turn) != 0) {
			rc = cli_fail("recover: %s needs [RUN:]TURN (e.g. 0, or trace-...:3)", sub);
			goto done_turn;
		}
		if (!(trace = find_trace(st, run, &e))) {
			rc = cli_fail("recover: %s", e.msg);
			goto done_turn;
		}
		struct recover_plan p;
		if (recover_plan(trace, state, turn, &p, &e) != 0) {
			rc = cli_fail("recover: %s", e.msg);
			goto done_turn;
		}
		print_plan(&p);
		rc = 0;
		if (!strcmp(sub, "apply")) {
			if (!p.changes.n && !force) {
				printf("nothing to do\n");
			} else if (!force && (!p.final_handle || p.drift.n)) {
				struct recover_result r;
				rc = recover_apply(&p, 0, &r, &e); /* refuses, naming why */
				rc = cli_fail("recover: refused: %s", e.msg);
				rc = 1;
			} else if (!yes && !cli_confirm("restore these paths?")) {
				fprintf(stderr, "belay: recover: nothing changed (pass --yes to skip the question)\n");
				rc = 1;
			} else {
				struct recover_result r;
				if (recover_apply(&p, force, &r, &e) != 0) {
					rc = cli_fail("recover: %s", e.msg);
					rc = 1;
				} else {
					printf("restored %zu path(s) of %s to turn %d's pre-state (recovery %lld)\n", r.paths,
					       p.scope, p.turn, r.id);
					printf("tree hash  %s %s\n", r.tree_hash,
					       r.matches ? "(equals the pre-state's)" : "(DIFFERS from the pre-state's recorded hash)");
					printf("undo       belay recover undo %lld\n", r.id);
					rc = r.matches ? 0 : 1;
					recover_result_free(&r);
				}
			}
		}
		recover_plan_free(&p);
	done_turn:
		free(run);
		free(trace);
	} else {
		rc = cli_fail("recover: unknown subcommand '%s' (list, show, apply, undo)", sub);
	}
	store_close(st);
	free(state_dir);
	return rc;
}
