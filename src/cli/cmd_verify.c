/* cmd_verify.c - `belay verify` (verdicts) and `belay replay` (re-execution coverage).
 * Human output by default, one JSON object per line with --json. Exit codes mirror the
 * worst verdict: 0 PASS, 1 WARN, 3 UNVERIFIED, 4 FAIL; 2 for usage and input errors. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "common/jsonx.h"
#include "common/paths.h"
#include "common/xalloc.h"
#include "index/runidx.h"
#include "index/statedb.h"
#include "index/verdict_store.h"
#include "store/store.h"
#include "verify/policy.h"
#include "verify/verify.h"

static const struct cli_opt verify_opts[] = {
	{"turn", 't', 0, "N", "only turn N (0-based)"},
	{"invariants", 'i', 0, "FILE", "A1 policy (JSON; may be repeated)"},
	{"no-default-invariants", 'n', 0, NULL,
	 "drop the defaults (no-assertion-weakening on test files by convention, suite-before-success-claim)"},
	{"replays", 'r', 0, "N", "further replays when a result differs (>= 3, default 3)"},
	{NULL, 'j', 0, "N", "verify N turns at once (default 1)"},
	{"timeout", 'T', 0, "SECONDS", "per awaited reply in a replay (default 10)"},
	{"state", 's', 0, "DIR", "where the pre-states are (default: the one the trace names)"},
	{"full-diff", 'F', 0, NULL,
	 "compute every replay's effect by a full diff of the scratch workspace instead of from its dirty set "
	 "(slower; the dirty set falls back to it by itself when it cannot be trusted)"},
	{"order", 'O', 0, "both|isolated|session|full",
	 "how calls are re-executed: each alone on a fresh server (isolated), the whole session in recorded order "
	 "on one warm server (session: one server start per run), or both (default: in order first, then alone on "
	 "a fresh server only the calls whose verdict depends on it), or full (every call both ways: also notes "
	 "which reproducing calls depend on session state; a server start per call)"},
	{"keep-replay-traces", 'K', 0, "DIR",
	 "keep the trace each replay's own session records (what the re-executed server was sent and answered) in "
	 "DIR"},
	{"check-scratch", 'C', 0, NULL,
	 "after every incremental move of a scratch workspace, compare it with the pre-state by tree hash "
	 "(O(tree); for doubt)"},
	{"census", 'c', 0, NULL,
	 "add the tests-collected rule: run the project's own test runner (pytest, go test) in list mode, "
	 "contained, in the task's first pre-state and in the run's final state, and FAIL a test dropped or "
	 "newly skipped (docs/VERDICTS.md; off by default: it runs the project's code, contained)"},
	{"rederive", 'D', 0, NULL,
	 "add the claim-rederived rule: when the agent claimed the suite passed, run the suite (pytest) twice "
	 "on the run's final state, contained, and FAIL the claim when tests fail the same way in both runs "
	 "(docs/VERDICTS.md; off by default: it runs the project's code, contained)"},
	CLI_OPT_JSON("one JSON object per turn, then a summary line"),
	{"no-store", 'N', 0, NULL, "do not save the verdicts in the state directory's store"},
	CLI_OPT_END,
};

const struct cli_cmd cli_verify = {
	.name = "verify",
	.summary = "re-execute every turn of a trace and judge it (A1, A2)",
	.synopsis = "TRACE [options] [-- SERVER...]",
	.about = "Re-executes every tools/call of TRACE on a fresh contained server from its recorded pre-state "
		 "and judges it: A2 (the result reproduces; the effect matches the tool's readOnlyHint / "
		 "openWorldHint) and A1 (your invariants). With -- SERVER..., replays against this server instead "
		 "of the recorded one.",
	.opts = verify_opts,
	.notes = "Exit status: the worst verdict: 0 PASS, 1 WARN, 3 UNVERIFIED, 4 FAIL; 2 for usage and input "
		 "errors.",
};

const struct cli_cmd cli_replay = {
	.name = "replay",
	.summary = "re-execute every turn of a trace and report coverage",
	.synopsis = "TRACE [options] [-- SERVER...]",
	.about = "Like belay verify, but only reports which turns could be re-executed, and why not. With -- "
		 "SERVER..., replays against this server instead of the recorded one.",
	.opts = verify_opts,
};

struct cli_state {
	int json, replay_only;
	int claim_rule; /* suite-before-success-claim is in the policy */
	int turn;       /* --turn, or -1 */
	size_t counts[5];
};

/* Why the whole-run (trajectory) verdict is absent, said as it is. */
static const char *no_trajectory_why(const struct cli_state *cs)
{
	if (!cs->claim_rule)
		return "suite-before-success-claim is off (not in the policy: --no-default-invariants, and no invariants "
		       "file names it)";
	if (cs->turn >= 0)
		return "not judged: only one turn was verified (the whole-run rule needs the whole run)";
	return "no success claim recorded: suite-before-success-claim had nothing to check";
}

static void progress(void *ctx, const struct turn_verdict *v)
{
	struct cli_state *cs = ctx;
	(void)v;
	cs->counts[0]++;
	if (isatty(2))
		fprintf(stderr, "\rbelay: verified %zu turn(s)...", cs->counts[0]);
}

static void print_turn(struct cli_state *cs, const struct turn_verdict *v)
{
	if (cs->json) {
		cJSON *o = verdict_json(v);
		char *s = jx_print(o);
		puts(s);
		fflush(stdout);
		cJSON_free(s);
		cJSON_Delete(o);
		return;
	}
	if (cs->replay_only) {
		const char *what = !v->replayed ? "not re-executed" : v->status == V_PASS ? "re-executed, result reproduced"
										       : "re-executed, result differs";
		printf("turn %-4d %-28s %s%s%s\n", v->turn, v->tool ? cli_safe(v->tool) : "?", what, v->cause[0] ? ": " : "",
		       cli_safe(v->cause));
		fflush(stdout);
		return;
	}
	printf("turn %-4d %-28s %s%s%s\n", v->turn, v->tool ? cli_safe(v->tool) : "?", vstatus_name(v->status),
	       v->cause[0] ? "  " : "", cli_safe(v->cause));
	for (size_t i = 0; i < v->nsubs; i++) {
		const struct subverdict *s = &v->subs[i];
		char kind[48];
		snprintf(kind, sizeof kind, "%s %s", s->axis, s->kind);
		printf("    %-20s %-11s %s", cli_safe(kind), vstatus_name(s->status), s->message ? cli_safe(s->message) : "");
		if (s->cause[0])
			printf("  [%s]", cli_safe(s->cause));
		printf("\n");
		if (s->status == V_FAIL || s->status == V_UNVERIFIED) {
			const cJSON *pair[2] = {s->expected, s->observed};
			const char *label[2] = {"expected", "observed"};
			for (int k = 0; k < 2; k++) {
				if (!pair[k])
					continue;
				char *txt = jx_print(pair[k]);
				printf("        %-9s %.300s%s\n", label[k], cli_safe(txt), strlen(txt) > 300 ? "..." : "");
				cJSON_free(txt);
			}
		}
	}
	fflush(stdout);
}

static void print_summary(struct cli_state *cs, const struct verify_report *r, const char *trace)
{
	size_t by[5] = {0}, replayed = 0, nc = 0, net_judged = 0, net_default = 0;
	size_t eff_declared = 0, eff_default = 0, eff_none = 0; /* effect claims, by where they came from */
	cJSON *causes = cJSON_CreateObject();
	for (size_t i = 0; i < r->n; i++) {
		const struct turn_verdict *v = &r->turns[i];
		by[v->status]++;
		replayed += v->replayed;
		if (v->cause[0]) {
			cJSON *c = cJSON_GetObjectItemCaseSensitive(causes, v->cause);
			if (c)
				cJSON_SetNumberValue(c, c->valuedouble + 1);
			else
				cJSON_AddNumberToObject(causes, v->cause, 1);
		}
		for (size_t k = 0; k < v->nsubs; k++) {
			nc += v->subs[k].status == V_NOT_COVERED;
			const struct subverdict *sv = &v->subs[k];
			int dflt = 0;
			for (const cJSON *n = sv->notes ? sv->notes->child : NULL; n; n = n->next)
				dflt |= jx_str(n, "kind") && !strcmp(jx_str(n, "kind"), "MCP_DEFAULT");
			if (!strcmp(sv->kind, "effect:network") && sv->status != V_NOT_COVERED) {
				net_judged += !dflt;
				net_default += dflt;
			}
			if (!strcmp(sv->kind, "effect") && strcmp(sv->axis, "A2") == 0) {
				if (!strcmp(sv->cause, "EFFECT_NOT_DECLARED"))
					eff_none++;
				else if (dflt)
					eff_default++;
				else if (strcmp(sv->cause, "PRESTATE_NOT_FOUND"))
					eff_declared++;
			}
		}
	}
	if (cs->json) {
		cJSON *s = cJSON_CreateObject(), *in = cJSON_AddObjectToObject(s, "summary");
		cJSON_AddStringToObject(in, "trace", trace);
		cJSON_AddNumberToObject(in, "turns", (double)r->n);
		cJSON_AddNumberToObject(in, "turns_in_trace", (double)r->total_turns);
		for (int k = 0; k < 4; k++)
			cJSON_AddNumberToObject(in, vstatus_name((enum vstatus)k), (double)by[k]);
		cJSON_AddNumberToObject(in, "replayed", (double)replayed);
		cJSON_AddItemToObject(in, "unverified_causes", causes);
		cJSON_AddNumberToObject(in, "not_covered", (double)nc);
		cJSON *cl = cJSON_AddObjectToObject(in, "claims");
		cJSON *ce = cJSON_AddObjectToObject(cl, "effect");
		cJSON_AddNumberToObject(ce, "declared", (double)eff_declared);
		cJSON_AddNumberToObject(ce, "mcp_default", (double)eff_default);
		cJSON_AddNumberToObject(ce, "undeclared", (double)eff_none);
		cJSON *cn = cJSON_AddObjectToObject(cl, "network");
		cJSON_AddNumberToObject(cn, "declared", (double)net_judged);
		cJSON_AddNumberToObject(cn, "mcp_default", (double)net_default);
		cJSON_AddStringToObject(in, "worst", r->n ? vstatus_name(r->worst) : "UNVERIFIED");
		cJSON *sc = cJSON_AddObjectToObject(in, "scratch");
		cJSON_AddNumberToObject(sc, "full_restores", (double)r->full_restores);
		cJSON_AddNumberToObject(sc, "undo_and_delta", (double)r->partial_restores);
		cJSON_AddNumberToObject(sc, "mismatches", (double)r->scratch_mismatches);
		cJSON *qw = cJSON_AddObjectToObject(in, "quiet_windows");
		cJSON_AddNumberToObject(qw, "windows", (double)r->settles);
		cJSON_AddNumberToObject(qw, "ended_by_proof", (double)r->settles_proven);
		cJSON *se = cJSON_AddObjectToObject(in, "session_replay");
		cJSON_AddBoolToObject(se, "ran", r->session_ran);
		cJSON_AddNumberToObject(se, "turns_reached", (double)r->session_turns);
		cJSON_AddNumberToObject(se, "ms", (double)(long long)r->session_ms);
		cJSON_AddNumberToObject(se, "server_ms", (double)(long long)r->session_server_ms);
		if (r->session_note[0])
			cJSON_AddStringToObject(se, "note", r->session_note);
		if (r->has_trajectory)
			cJSON_AddItemToObject(in, "trajectory", verdict_json(&r->trajectory));
		else if (!cs->replay_only)
			cJSON_AddStringToObject(in, "trajectory_not_judged", no_trajectory_why(cs));
		if (r->has_census)
			cJSON_AddItemToObject(in, "census", verdict_json(&r->census));
		if (r->cut_line) {
			cJSON *cut = cJSON_AddObjectToObject(in, "trace_cut");
			cJSON_AddNumberToObject(cut, "line", r->cut_line);
			cJSON_AddNumberToObject(cut, "bytes", (double)r->cut_bytes);
		}
		char *t = jx_print(s);
		puts(t);
		cJSON_free(t);
		cJSON_Delete(s);
		return;
	}
	printf("\n");
	if (!cs->replay_only)
		printf("summary   %zu turn(s): PASS %zu  WARN %zu  UNVERIFIED %zu  FAIL %zu\n", r->n, by[V_PASS], by[V_WARN],
		       by[V_UNVERIFIED], by[V_FAIL]);
	printf("coverage  re-executed %zu of %zu turn(s)", replayed, r->n);
	if (cJSON_GetArraySize(causes)) {
		printf("; not judged, by cause:");
		for (cJSON *c = causes->child; c; c = c->next)
			printf(" %s %d", cli_safe(c->string), c->valueint);
	}
	printf("\n");
	if (r->session_ran)
		printf("session   replayed in order on one server: %zu turn(s) reached in %.0f ms%s%s\n", r->session_turns,
		       r->session_ms, r->session_note[0] ? "; stopped: " : "", cli_safe(r->session_note));
	else if (r->session_note[0])
		printf("session   not replayed in order: %s\n", cli_safe(r->session_note));
	if (!cs->replay_only) {
		printf("claims    effect: declared %zu, MCP defaults %zu (listed without readOnlyHint), undeclared %zu\n",
		       eff_declared, eff_default, eff_none);
		printf("          network claims judged on %zu turn(s) (tools declaring openWorldHint), on %zu by the MCP "
		       "default; NOT_COVERED %zu\n",
		       net_judged, net_default, nc);
		if (r->has_trajectory) {
			const struct turn_verdict *t = &r->trajectory;
			printf("trajectory %s%s%s  %s\n", vstatus_name(t->status), t->cause[0] ? " " : "", cli_safe(t->cause),
			       t->nsubs && t->subs[0].message ? cli_safe(t->subs[0].message) : "");
		} else {
			printf("trajectory %s\n", no_trajectory_why(cs));
		}
		if (r->has_census) {
			const struct turn_verdict *t = &r->census;
			printf("census    %s%s%s\n", vstatus_name(t->status), t->cause[0] ? " " : "", cli_safe(t->cause));
			for (size_t k = 0; k < t->nsubs; k++)
				printf("    %-11s %s%s%s%s\n", vstatus_name(t->subs[k].status),
				       t->subs[k].message ? cli_safe(t->subs[k].message) : "", t->subs[k].cause[0] ? "  [" : "",
				       cli_safe(t->subs[k].cause), t->subs[k].cause[0] ? "]" : "");
		}
		printf("\nA2 PASS means the recorded result reproduces from the recorded pre-state, not that the agent\n"
		       "was right; UNVERIFIED means belay could not check and says why; no model was consulted.\n");
	}
	cJSON_Delete(causes);
}

/* Saves the verdicts in the store of the state dir (indexing the run first when the store
 * has not seen it). A failure is reported and does not change the exit code: the verdicts
 * were printed. */
static void store_verdicts(const char *trace, const char *state, const struct policy *pol, int turn,
			   const struct verify_report *r)
{
	struct err e = {0};
	if (verdict_store_save_trace(state, trace, pol, turn, r, &e) != 0)
		fprintf(stderr, "belay: verify: the verdicts were not stored: %s\n", cli_safe(e.msg));
}

int cmd_verify(int argc, char **argv)
{
	int replay_only = !strcmp(argv[0], "replay");
	struct cli_parse P;
	cli_parse_init(replay_only ? &cli_replay : &cli_verify, &P, 0);
	struct policy pol = {0};
	struct err e = {0};
	int turn = -1, replays = 3, jobs = 1, no_defaults = 0, no_store = 0, full_diff = 0, check_scratch = 0, census = 0, rederive = 0, rc;
	double timeout = 10;
	enum verify_order order = VERIFY_ORDER_BOTH;
	const char *keep_traces = NULL;
	const char *state = NULL;
	struct cli_state cs = {.replay_only = replay_only};
	const char *inv_files[16];
	int ninv = 0;
	/* A server command follows "--"; options may come before or after TRACE. */
	char **server = NULL;
	for (int i = 1; i < argc; i++)
		if (!strcmp(argv[i], "--")) {
			if (i + 1 >= argc)
				return cli_fail("%s: -- must be followed by a server command", argv[0]);
			server = argv + i + 1;
			argc = i;
			break;
		}
	int c;
	optind = 1;
	opterr = 0;
	while ((c = cli_getopt(&P, argc, argv)) != -1) {
		switch (c) {
		case 't': turn = atoi(optarg); if (turn < 0) return cli_fail("%s: --turn must be >= 0", argv[0]); break;
		case 'i': if (ninv == 16) return cli_fail("too many --invariants"); inv_files[ninv++] = optarg; break;
		case 'n': no_defaults = 1; break;
		case 'r': replays = atoi(optarg); break;
		case 'j': jobs = atoi(optarg); break;
		case 'T': timeout = atof(optarg); break;
		case 's': state = optarg; break;
		case 'J': cs.json = 1; break;
		case 'N': no_store = 1; break;
		case 'F': full_diff = 1; break;
		case 'C': check_scratch = 1; break;
		case 'c': census = 1; break;
		case 'D': rederive = 1; break;
		case 'O':
			if (!strcmp(optarg, "both"))
				order = VERIFY_ORDER_BOTH;
			else if (!strcmp(optarg, "isolated"))
				order = VERIFY_ORDER_ISOLATED;
			else if (!strcmp(optarg, "session"))
				order = VERIFY_ORDER_SESSION;
			else if (!strcmp(optarg, "full"))
				order = VERIFY_ORDER_FULL;
			else
				return cli_fail("%s: --order is both, isolated, session or full, not '%s'", argv[0], optarg);
			break;
		case 'K': keep_traces = optarg; break;
		case 'h': cli_help(replay_only ? &cli_replay : &cli_verify, stdout); return 0;
		default: return cli_fail("%s: unknown or incomplete option '%s' (belay %s --help)", argv[0], argv[optind - 1], argv[0]);
		}
	}
	if (optind >= argc)
		return cli_fail("%s: no trace given", argv[0]);
	const char *trace = argv[optind++];
	if (optind < argc)
		return cli_fail("%s: unexpected argument '%s' (one trace; a server command goes after --)", argv[0],
				argv[optind]);
	if (replays < 3)
		return cli_fail("%s: --replays must be at least 3 (fewer cannot tell nondeterminism from a lie)", argv[0]);
	if (jobs < 1 || jobs > 64)
		return cli_fail("%s: -j must be between 1 and 64", argv[0]);
	if (timeout <= 0)
		return cli_fail("%s: --timeout must be positive", argv[0]);
	for (int i = 0; i < ninv; i++)
		if ((rc = policy_load(&pol, inv_files[i], &e)) != 0) {
			policy_free(&pol);
			return cli_fail("%s: invariants: %s", argv[0], e.msg);
		}
	if (!no_defaults && !replay_only)
		policy_add_defaults(&pol);
	if (census && !replay_only)
		policy_add_census(&pol);
	if (rederive && !replay_only)
		policy_add_rederive(&pol);
	if (replay_only)
		policy_free(&pol);
	for (size_t i = 0; i < pol.n; i++)
		cs.claim_rule |= pol.inv[i].rule == RULE_SUITE_BEFORE_CLAIM;
	cs.turn = turn;
	struct verify_opts vo = {
		.state_dir = state,
		.policy = &pol,
		.replays = replays,
		.jobs = jobs,
		.timeout_ms = (unsigned)(timeout * 1000),
		.server_override = server,
		.turn = turn,
		.launcher = paths_self_exe(),
		.coverage_only = replay_only,
		.order = order,
		.replay_trace_dir = keep_traces,
		.full_diff = full_diff,
		.check_scratch = check_scratch,
		.progress = progress,
		.ctx = &cs,
	};
	struct verify_report r;
	rc = verify_trace(trace, &vo, &r, &e);
	if (cs.counts[0] && isatty(2))
		fprintf(stderr, "\r\033[K");
	if (rc) {
		policy_free(&pol);
		return cli_fail("%s: %s", argv[0], e.msg);
	}
	if (r.cut_line)
		fprintf(stderr,
			"belay: %s: %s:%d: the last line is cut mid-line (%zu byte(s) without a newline: the writer was "
			"killed or the disk filled); verified up to line %d\n",
			argv[0], trace, r.cut_line, r.cut_bytes, r.cut_line - 1);
	if (!replay_only && !no_store)
		store_verdicts(trace, state, &pol, turn, &r);
	policy_free(&pol);
	for (size_t i = 0; i < r.n; i++)
		print_turn(&cs, &r.turns[i]);
	print_summary(&cs, &r, trace);
	int code = replay_only ? 0 : verdict_exit_code(r.worst, r.n);
	verify_report_free(&r);
	return code;
}
