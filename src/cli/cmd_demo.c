/* cmd_demo.c - `belay demo`: tells the demo's story (src/demo/demo.h) - a scripted agent
 * cheats a failing test green and a "read-only" tool writes - through a contained, recorded,
 * gated session, then verifies it by re-execution. On a terminal the story plays in the live
 * console (demo_live.c); `--headless` prints it as text. */
#include <getopt.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/demo_live.h"
#include "demo/demo.h"
#include "common/fsutil.h"
#include "common/jsonx.h"
#include "common/paths.h"
#include "common/xalloc.h"
#include "proxy/prestate.h"
#include "demo/scripted.h"
#include "verify/policy.h"
#include "index/verdict_store.h"
#include "verify/verify.h"

/*==== headless story ====*/

static void short_reply(const cJSON *reply, char *out, size_t n)
{
	const cJSON *text = reply ? jx_path(reply, "result.content") : NULL;
	const cJSON *first = cJSON_IsArray(text) ? cJSON_GetArrayItem(text, 0) : NULL;
	const char *t = first ? jx_str(first, "text") : NULL;
	if (!t) {
		snprintf(out, n, "%s", reply ? "(no text)" : "(no reply)");
		return;
	}
	snprintf(out, n, "%s", t);
	for (char *p = out; *p; p++)
		if (*p == '\n')
			*p = ' ';
	size_t l = strlen(out);
	while (l && out[l - 1] == ' ')
		out[--l] = '\0';
}

static void on_step(void *ctx, int index, const cJSON *step, const cJSON *reply)
{
	const struct demo_story *story = ctx;
	const char *what = index < DEMO_STEPS ? story->narration[index] : NULL;
	if (!what)
		return;
	if (jx_str(step, "claim")) {
		printf("  agent %-52s \"%s\"\n", what, jx_str(step, "claim"));
		return;
	}
	char r[160];
	short_reply(reply, r, sizeof r);
	printf("  agent %-52s -> %.70s\n", what, r);
	fflush(stdout);
}

static void print_verdict(const struct turn_verdict *v)
{
	printf("  turn %d %-12s %-10s", v->turn, v->tool ? v->tool : "?", vstatus_name(v->status));
	if (v->cause[0])
		printf(" %s", v->cause);
	printf("\n");
	for (size_t i = 0; i < v->nsubs; i++) {
		const struct subverdict *s = &v->subs[i];
		if (s->status == V_PASS && strcmp(s->kind, "replay") && strcmp(s->axis, "A1"))
			continue;
		printf("      %s %-15s %-10s %.110s\n", s->axis, s->kind, vstatus_name(s->status), s->message ? s->message : "");
	}
}

static const struct cli_opt demo_opts[] = {
	{"headless", 'H', 0, NULL, "no console: record, verify and print the verdicts (also when not on a terminal)"},
	{"dir", 'd', 0, "DIR", "work in DIR (created; kept afterwards) instead of a scratch directory"},
	{"keep", 'k', 0, NULL, "keep the scratch directory (its trace, its store) afterwards"},
	{"lang", 'l', 0, "python|typescript",
	 "tell the story in this language (default python). typescript runs its node:test suite with Node's own "
	 "test runner and type stripping: Node 22.6 or newer, BELAY_DEMO_NODE or node on PATH"},
	CLI_OPT_END,
};

const struct cli_cmd cli_demo = {
	.name = "demo",
	.summary = "watch belay catch a cheating and a lying tool call (A1 vs A2)",
	.synopsis = "[--headless] [--lang python|typescript] [--dir DIR | --keep]",
	.about = "An agent fixes a login bug - or says it did. belay records the run with a contained demo server "
		 "(belay-demo-server, installed next to belay), captures the workspace before every call, then "
		 "verifies each turn: a weakened test fails A1 although it replays faithfully (A2 PASS), a tool "
		 "that declares itself read-only and writes fails A2, and a clock is UNVERIFIED, never PASS. On a "
		 "terminal it plays in the live console; --headless prints the same. --lang typescript tells it with "
		 "a TypeScript module and its node:test suite.",
	.opts = demo_opts,
};

int cmd_demo(int argc, char **argv)
{
	int headless = 0, keep = 0, c;
	const char *dir = NULL;
	const struct demo_story *story = demo_story(NULL);
	struct cli_parse P;
	cli_parse_init(&cli_demo, &P, 0);
	optind = 1;
	opterr = 0;
	while ((c = cli_getopt(&P, argc, argv)) != -1) {
		if (c == 'H')
			headless = 1;
		else if (c == 'k')
			keep = 1;
		else if (c == 'd')
			dir = optarg, keep = 1;
		else if (c == 'l') {
			if (!(story = demo_story(optarg)))
				return cli_fail("demo: --lang %s: the story is told in %s", optarg, demo_langs);
		} else if (c == 'h') {
			cli_help(&cli_demo, stdout);
			return 0;
		} else
			return cli_fail("demo: unknown or incomplete option '%s' (belay demo --help)", argv[optind - 1]);
	}
	if (optind < argc)
		return cli_fail("demo: unexpected argument '%s'", argv[optind]);
	if (!headless && isatty(1) && isatty(0))
		return demo_console(dir, keep, story);
	struct err e = {0};
	char *root = dir ? xstrdup(dir) : fs_mkdtemp_in(fs_scratch_base(), "belay-demo-", &e);
	if (!root || (dir && fs_mkdir_p(dir, 0700, &e)))
		return cli_fail("demo: %s", e.msg);
	struct demo_paths p;
	if (demo_prepare(root, story, &p, &e)) {
		free(root);
		return cli_fail("demo: %s", e.msg);
	}
	printf("%s\n\n", story->headline);
	printf("recording (contained server, pre-state captured before every call):\n");
	char *trace = NULL;
	int rc = demo_record(&p, on_step, (void *)p.story, &trace, &e);
	if (rc) {
		demo_paths_free(&p);
		free(root);
		return cli_fail("demo: %s", e.msg);
	}
	printf("\nverifying (every call re-executed on a fresh sandboxed server from its pre-state):\n");
	struct policy pol = {0};
	policy_add_defaults(&pol);
	struct verify_opts vo = {.state_dir = p.state,
				 .policy = &pol,
				 .replays = 3,
				 .jobs = 2,
				 .timeout_ms = 20000,
				 .turn = -1,
				 .launcher = paths_self_exe()};
	struct verify_report r;
	rc = verify_trace(trace, &vo, &r, &e);
	/* What it printed is kept in the demo's store, beside the run and its gate decisions:
	 * `belay console --open TRACE` (with --dir or --keep) shows the same verdicts. */
	struct err se = {0};
	if (rc == 0 && keep && verdict_store_save_trace(p.state, trace, &pol, -1, &r, &se) != 0)
		fprintf(stderr, "belay: demo: the verdicts were not stored: %s\n", cli_safe(se.msg));
	policy_free(&pol);
	if (rc) {
		free(trace);
		demo_paths_free(&p);
		free(root);
		return cli_fail("demo: %s", e.msg);
	}
	for (size_t i = 0; i < r.n; i++)
		print_verdict(&r.turns[i]);
	if (r.has_trajectory)
		printf("  whole run     %-10s %s\n", vstatus_name(r.trajectory.status),
		       r.trajectory.nsubs ? r.trajectory.subs[0].message : "");
	printf("\nwhat it shows:\n%s", story->cheat);
	printf("  turn 4: the summarizer declares readOnlyHint: true and writes .summary-cache: A2 effect FAIL.\n"
	       "  turn 5: a clock cannot be replayed to the same answer: UNVERIFIED with its cause, never PASS.\n");
	if (keep) {
		printf("\ntrace: %s\n", trace);
		printf("kept in %s (try: belay console --open %s; belay trace show %s; belay verify %s)\n", root, trace,
		       trace, trace);
	} else {
		printf("\nthe scratch directory is removed: --keep or --dir DIR keeps the trace, its store and verdicts\n");
		fs_remove_tree(root);
	}
	verify_report_free(&r);
	free(trace);
	demo_paths_free(&p);
	free(root);
	return 0;
}
