/* cmd_corpus.c - `belay corpus add|label|run|score|list|show|export|import`: the failure
 * corpus as a regression suite. Usage and input errors: one `belay: ...` line, exit 2.
 * `corpus run` exits 1 on any REGRESSION. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli/cli.h"
#include "common/jsonx.h"
#include "common/paths.h"
#include "common/termsafe.h"
#include "common/xalloc.h"
#include "corpus/corpus.h"
#include "index/runq.h"
#include "index/statedb.h"
#include "store/store.h"
#include "verify/policy.h"


static const struct cli_opt add_opts[] = {
	{"turn", 't', 0, "N", "the turn to bank (0-based)"},
	{"trajectory", 'T', 0, NULL, "bank the run's trajectory verdict instead of one turn"},
	{"invariants", 'i', 0, "FILE", "A1 policy (JSON; may be repeated)"},
	{"no-default-invariants", 'n', 0, NULL, "drop the default invariants"},
	{"replays", 'r', 0, "N", "further replays when a result differs (>= 3, default 3)"},
	{"timeout", 'o', 0, "SECONDS", "per awaited reply in a replay (default 10)"},
	{NULL, 'j', 0, "N", "replay N turns at once (default 1)"},
	CLI_OPT_STATE,
	CLI_OPT_END,
};
static const struct cli_cmd spec_corpus_add = {
	.name = "corpus add",
	.summary = "recompute a turn (or the run's trajectory verdict) by real replay and bank it as a case",
	.synopsis = "TRACE|RUN (--turn N | --trajectory) [options]",
	.about = "The case replays with nothing else present; prints the case id last.",
	.opts = add_opts,
};

static const struct cli_opt label_opts[] = {
	{"note", 'n', 0, "TEXT", "why"},
	{"root-cause", 'r', 0, "KEY", "the root cause, a short key that groups cases"},
	{"miss", 'm', 0, NULL, "declare a recorded miss (a true failure the engine did not flag)"},
	CLI_OPT_STATE,
	CLI_OPT_END,
};
static const struct cli_cmd spec_corpus_label = {
	.name = "corpus label",
	.summary = "label a case: true-positive, false-positive, unverifiable or pending",
	.synopsis = "ID LABEL [--note TEXT] [--root-cause KEY] [--miss]",
	.opts = label_opts,
};

static const struct cli_opt run_opts[] = {
	{NULL, 'j', 0, "N", "replay N cases at once (1 to 64, default 1)"},
	CLI_OPT_JSON("one JSON object per case, then a summary line"),
	CLI_OPT_STATE,
	CLI_OPT_END,
};
static const struct cli_cmd spec_corpus_run = {
	.name = "corpus run",
	.summary = "replay every case (or the IDs given)",
	.synopsis = "[ID...] [-j N] [--json]",
	.about = "Each case ends MATCH, REGRESSION (exit 1), SKIP, STILL_MISSED or MISS_CLOSED.",
	.opts = run_opts,
};

static const struct cli_opt simple_opts[] = {
	CLI_OPT_JSON("the same as JSON"),
	CLI_OPT_STATE,
	CLI_OPT_END,
};
static const struct cli_opt transfer_opts[] = {
	CLI_OPT_STATE,
	CLI_OPT_END,
};
static const struct cli_cmd spec_corpus_score = {
	.name = "corpus score",
	.summary = "precision, recall and coverage against the labels, with their denominators",
	.synopsis = "[--json]",
	.opts = simple_opts,
};
static const struct cli_cmd spec_corpus_list = {
	.name = "corpus list",
	.summary = "the cases with their labels and root causes",
	.synopsis = "[--json]",
	.opts = simple_opts,
};
static const struct cli_cmd spec_corpus_show = {
	.name = "corpus show",
	.summary = "one case",
	.synopsis = "ID [--json]",
	.opts = simple_opts,
};
static const struct cli_cmd spec_corpus_export = {
	.name = "corpus export",
	.summary = "write one case as one self-contained file",
	.synopsis = "ID FILE",
	.opts = transfer_opts,
};
static const struct cli_cmd spec_corpus_import = {
	.name = "corpus import",
	.summary = "add a case from an exported file, after verifying every byte",
	.synopsis = "FILE",
	.opts = transfer_opts,
};
static const struct cli_cmd spec_corpus_delete = {
	.name = "corpus delete",
	.summary = "delete one case with its label history and results (a person's act, like a label)",
	.synopsis = "ID",
	.opts = transfer_opts,
};

const struct cli_cmd cli_corpus = {
	.name = "corpus",
	.summary = "bank, label, replay and score failure cases (add|label|run|score|list|show|export|import|delete)",
	.about = "The corpus keeps the turns whose verdict matters as cases that replay on their own, labels them, "
		 "and scores the engine against the labels (docs/CORPUS.md). Every subcommand takes --state DIR.",
	.subs = (const struct cli_cmd *const[]){&spec_corpus_add, &spec_corpus_label, &spec_corpus_run, &spec_corpus_score, &spec_corpus_list,
						&spec_corpus_show, &spec_corpus_export, &spec_corpus_import, &spec_corpus_delete, NULL},
};

static int open_corpus(const char *state_dir, struct corpus **c)
{
	struct err e = {0};
	if (corpus_open(state_dir, c, &e) != 0)
		return cli_fail("corpus: %s", e.msg);
	return 0;
}

/* open_corpus on the state directory --state names (NULL: the default one). */
static int open_corpus_state(const char *state, struct corpus **c)
{
	char *dir = paths_state_dir(state);
	int rc = open_corpus(dir, c);
	free(dir);
	return rc;
}

/*==== add ====*/

/* The trace of RUN from the run view of the store in state_dir (new string) or NULL. */
static char *trace_of_run(const char *state_dir, const char *run)
{
	struct store *st = NULL;
	struct err e = {0};
	if (statedb_open(state_dir, &st, &e) != 0)
		return NULL;
	char *path = runq_trace_path(st, run, &e);
	store_close(st);
	return path;
}

static int do_add(int argc, char **argv)
{
	struct cli_parse P;
	cli_parse_init(&spec_corpus_add, &P, 0);
	struct cli_opts co = {.cmd = "corpus add", .help = "corpus", .spec = &spec_corpus_add};
	const char *inv[16];
	int ninv = 0, turn = -1, traj = 0, no_defaults = 0, replays = 3, jobs = 1, c, r;
	double timeout = 10;
	optind = 1;
	opterr = 0;
	while ((c = cli_getopt(&P, argc, argv)) != -1) {
		switch (c) {
		case 't': {
			char *end;
			long v = strtol(optarg, &end, 10);
			if (*end || v < 0 || v > 1 << 30)
				return cli_fail("corpus add: --turn takes a turn number (0-based)");
			turn = (int)v;
			break;
		}
		case 'T':
			traj = 1;
			break;
		case 'i':
			if (ninv == 16)
				return cli_fail("corpus add: too many --invariants");
			inv[ninv++] = optarg;
			break;
		case 'n':
			no_defaults = 1;
			break;
		case 'r':
			replays = atoi(optarg);
			break;
		case 'o':
			timeout = atof(optarg);
			break;
		case 'j':
			jobs = atoi(optarg);
			break;
		default:
			if ((r = cli_opt_take(&co, c, argv)) != CLI_OPT_TAKEN)
				return r;
		}
	}
	if (optind >= argc)
		return cli_fail("corpus add: which trace or run? (belay corpus add TRACE|RUN --turn N)");
	if (optind + 1 < argc)
		return cli_fail("corpus add: unexpected argument '%s'", argv[optind + 1]);
	if ((turn >= 0) == traj)
		return cli_fail("corpus add: give exactly one of --turn N and --trajectory");
	if (replays < 3)
		return cli_fail("corpus add: --replays must be at least 3");
	if (timeout <= 0)
		return cli_fail("corpus add: --timeout must be positive");
	if (jobs < 1 || jobs > 64)
		return cli_fail("corpus add: -j must be between 1 and 64");
	const char *what = argv[optind];
	struct stat sb;
	char *trace = NULL, *state_dir = NULL;
	if (stat(what, &sb) == 0 && S_ISREG(sb.st_mode)) {
		trace = xstrdup(what);
		state_dir = statedb_for_trace(co.state, trace);
	} else {
		state_dir = paths_state_dir(co.state);
		trace = trace_of_run(state_dir, what);
		if (!trace) {
			free(state_dir);
			return cli_fail(
			    "corpus add: %s is neither a trace file nor a run in the store (belay runs lists them)",
			    what);
		}
	}
	struct policy pol = {0};
	struct err e = {0};
	for (int i = 0; i < ninv; i++)
		if (policy_load(&pol, inv[i], &e) != 0) {
			policy_free(&pol);
			free(trace);
			free(state_dir);
			return cli_fail("corpus add: invariants: %s", e.msg);
		}
	if (!no_defaults)
		policy_add_defaults(&pol);
	struct corpus *cp = NULL;
	int rc = open_corpus(state_dir, &cp);
	if (rc == 0) {
		struct corpus_add_opts o = {
		    .trace_path = trace,
		    .turn = turn,
		    .trajectory = traj,
		    .policy = &pol,
		    .replays = replays,
		    .timeout_ms = (unsigned)(timeout * 1000),
		    .jobs = jobs,
		    .launcher = paths_self_exe(),
		};
		struct corpus_add_result res;
		if (corpus_add(cp, &o, &res, &e) != 0) {
			rc = cli_fail("corpus add: %s", e.msg);
		} else {
			printf("banked %s of %s: expected %s%s%s, %zu snapshot(s) referenced, in %s\n",
			       traj ? "the trajectory verdict" : "the turn", cli_safe(trace), vstatus_name(res.status),
			       res.cause[0] ? " " : "", cli_safe(res.cause), res.snapshots, cli_safe(corpus_state_dir(cp)));
			printf("%s\n", res.id);
			free(res.id);
		}
	}
	corpus_close(cp);
	policy_free(&pol);
	free(trace);
	free(state_dir);
	return rc;
}

/*==== label ====*/

static int do_label(int argc, char **argv)
{
	struct cli_parse P;
	cli_parse_init(&spec_corpus_label, &P, 0);
	struct cli_opts co = {.cmd = "corpus label", .spec = &spec_corpus_label};
	const char *note = NULL, *root = NULL;
	int miss = 0, c, rc;
	optind = 1;
	opterr = 0;
	while ((c = cli_getopt(&P, argc, argv)) != -1) {
		switch (c) {
		case 'n':
			note = optarg;
			break;
		case 'r':
			root = optarg;
			break;
		case 'm':
			miss = 1;
			break;
		default:
			if ((rc = cli_opt_take(&co, c, argv)) != CLI_OPT_TAKEN)
				return rc;
		}
	}
	if (argc - optind != 2)
		return cli_fail(
		    "corpus label: usage: belay corpus label ID LABEL [--note TEXT] [--root-cause KEY] [--miss]");
	struct corpus *cp = NULL;
	if ((rc = open_corpus_state(co.state, &cp)) != 0)
		return rc;
	struct err e = {0};
	if (corpus_label_set(cp, argv[optind], argv[optind + 1], note, root, miss, &e) != 0)
		rc = cli_fail("corpus label: %s", e.msg);
	else
		printf("%s labeled %s%s\n", argv[optind], argv[optind + 1], miss ? " (recorded miss)" : "");
	corpus_close(cp);
	return rc;
}

/*==== run ====*/

struct run_print {
	int json;
};

static void on_result(void *ctx, const struct corpus_result *r)
{
	struct run_print *p = ctx;
	if (p->json) {
		cJSON *o = cJSON_CreateObject();
		cJSON_AddStringToObject(o, "id", r->id);
		cJSON_AddStringToObject(o, "outcome", corpus_outcome_name(r->outcome));
		cJSON_AddStringToObject(o, "detail", r->detail ? r->detail : "");
		if (r->observed)
			cJSON_AddItemToObject(o, "observed", cJSON_Duplicate(r->observed, 1));
		cli_print_json(o);
		cJSON_Delete(o);
	} else {
		printf("%-13s %s\n", corpus_outcome_name(r->outcome), cli_safe(r->id));
		if (r->detail && *r->detail) {
			const char *s = r->detail;
			while (*s) {
				const char *nl = strchr(s, '\n');
				size_t n = nl ? (size_t)(nl - s) : strlen(s);
				struct buf lb = {0};
				termsafe_append(&lb, s, n, TERMSAFE_LINES);
				printf("              %s\n", buf_cstr(&lb));
				buf_free(&lb);
				s += n + (nl ? 1 : 0);
			}
		}
	}
	fflush(stdout);
}

static int do_run(int argc, char **argv)
{
	struct cli_parse P;
	cli_parse_init(&spec_corpus_run, &P, 0);
	struct cli_opts co = {.cmd = "corpus run", .spec = &spec_corpus_run};
	int jobs = 1, c, rc;
	optind = 1;
	opterr = 0;
	while ((c = cli_getopt(&P, argc, argv)) != -1) {
		if (c == 'j')
			jobs = atoi(optarg);
		else if ((rc = cli_opt_take(&co, c, argv)) != CLI_OPT_TAKEN)
			return rc;
	}
	if (jobs < 1 || jobs > 64)
		return cli_fail("corpus run: -j must be between 1 and 64");
	struct corpus *cp = NULL;
	if ((rc = open_corpus_state(co.state, &cp)) != 0)
		return rc;
	struct run_print pr = {co.json};
	struct corpus_run_opts o = {
	    .ids = optind < argc ? argv + optind : NULL,
	    .nids = (size_t)(argc - optind),
	    .jobs = jobs,
	    .launcher = paths_self_exe(),
	    .progress = on_result,
	    .ctx = &pr,
	};
	struct corpus_run_report rep;
	struct err e = {0};
	if (corpus_run(cp, &o, &rep, &e) != 0) {
		corpus_run_report_free(&rep);
		corpus_close(cp);
		return cli_fail("corpus run: %s", e.msg);
	}
	size_t *k = rep.counts;
	if (co.json) {
		cJSON *s = cJSON_CreateObject(), *in = cJSON_AddObjectToObject(s, "summary");
		cJSON_AddNumberToObject(in, "cases", (double)rep.n);
		for (int i = 0; i < CO_NOUTCOMES; i++)
			cJSON_AddNumberToObject(in, corpus_outcome_name((enum corpus_outcome)i), (double)k[i]);
		cli_print_json(s);
		cJSON_Delete(s);
	} else {
		printf("\ncorpus run: %zu case(s): MATCH %zu  REGRESSION %zu  SKIP %zu  STILL_MISSED %zu  MISS_CLOSED "
		       "%zu\n",
		       rep.n, k[CO_MATCH], k[CO_REGRESSION], k[CO_SKIP], k[CO_STILL_MISSED], k[CO_MISS_CLOSED]);
		if (k[CO_REGRESSION])
			printf("%zu regression(s): the engine no longer reaches the banked verdict\n",
			       k[CO_REGRESSION]);
		else
			printf("no regressions (%zu skipped, %zu still missed, %zu miss(es) closed)\n", k[CO_SKIP],
			       k[CO_STILL_MISSED], k[CO_MISS_CLOSED]);
	}
	rc = k[CO_REGRESSION] ? 1 : 0;
	corpus_run_report_free(&rep);
	corpus_close(cp);
	return rc;
}

/*==== score, list, show ====*/

static int do_simple(const char *sub, int argc, char **argv)
{
	char cmd[32];
	snprintf(cmd, sizeof cmd, "corpus %s", sub);
	const struct cli_cmd *spec = cli_sub(&cli_corpus, sub);
	struct cli_parse P;
	cli_parse_init(spec, &P, 0);
	struct cli_opts co = {.cmd = cmd, .spec = spec};
	int c, rc;
	optind = 1;
	opterr = 0;
	while ((c = cli_getopt(&P, argc, argv)) != -1)
		if ((rc = cli_opt_take(&co, c, argv)) != CLI_OPT_TAKEN)
			return rc;
	int json = co.json;
	int want = !strcmp(sub, "show") ? 1 : !strcmp(sub, "export") ? 2 : !strcmp(sub, "import") ? 1
		 : !strcmp(sub, "delete") ? 1
					  : 0;
	if (argc - optind != want)
		return cli_fail("corpus %s: wrong arguments (belay corpus --help)", sub);
	struct corpus *cp = NULL;
	struct err e = {0};
	if (!strcmp(sub, "score") || !strcmp(sub, "list") || !strcmp(sub, "show")) {
		char *sdir = paths_state_dir(co.state);
		rc = corpus_open_read(sdir, &cp, &e); /* reading only: a read-only state dir will do */
		free(sdir);
		if (rc)
			return cli_fail("corpus: %s", e.msg);
	} else if ((rc = open_corpus_state(co.state, &cp)) != 0) {
		return rc;
	}
	if (!strcmp(sub, "score")) {
		struct corpus_score s;
		if (corpus_score(cp, &s, &e) != 0) {
			rc = cli_fail("corpus score: %s", e.msg);
			goto out;
		}
		char p[16], r[16], cov[16];
		long judged = s.tp + s.fp + s.fn + s.tn;
		corpus_ratio(s.tp, s.tp + s.fp, p);
		corpus_ratio(s.tp, s.tp + s.fn, r);
		corpus_ratio(judged, judged + s.unverified, cov);
		if (json) {
			cJSON *o = cJSON_CreateObject();
			cJSON_AddNumberToObject(o, "cases", (double)s.cases);
			cJSON_AddNumberToObject(o, "tp", (double)s.tp);
			cJSON_AddNumberToObject(o, "fp", (double)s.fp);
			cJSON_AddNumberToObject(o, "fn", (double)s.fn);
			cJSON_AddNumberToObject(o, "tn", (double)s.tn);
			cJSON_AddNumberToObject(o, "pending", (double)s.pending);
			cJSON_AddNumberToObject(o, "unverifiable", (double)s.unverifiable);
			cJSON_AddNumberToObject(o, "unverified", (double)s.unverified);
			cJSON_AddNumberToObject(o, "fn_recorded_misses", (double)s.fn_missed);
			cJSON_AddNumberToObject(o, "root_causes", (double)s.root_causes);
			const char *names[3] = {"precision", "recall", "coverage"};
			const char *vals[3] = {p, r, cov};
			long nums[3] = {s.tp, s.tp, judged},
			     dens[3] = {s.tp + s.fp, s.tp + s.fn, judged + s.unverified};
			for (int i = 0; i < 3; i++) {
				cJSON *x = cJSON_AddObjectToObject(o, names[i]);
				if (dens[i])
					cJSON_AddNumberToObject(x, "value", (double)nums[i] / (double)dens[i]);
				else
					cJSON_AddStringToObject(x, "value", vals[i]);
				cJSON_AddNumberToObject(x, "numerator", (double)nums[i]);
				cJSON_AddNumberToObject(x, "denominator", (double)dens[i]);
			}
			cli_print_json(o);
			cJSON_Delete(o);
			goto out;
		}
		printf("cases      %ld: %ld judged; excluded: %ld pending, %ld unverifiable, %ld UNVERIFIED by the "
		       "engine\n",
		       s.cases, judged, s.pending, s.unverifiable, s.unverified);
		printf("precision  %-5s (%ld/%ld)   TP / (TP + FP): of the flagged (FAIL) cases, how many are real\n",
		       p, s.tp, s.tp + s.fp);
		printf("recall     %-5s (%ld/%ld)   TP / (TP + FN): of the real failures, how many were flagged\n", r,
		       s.tp, s.tp + s.fn);
		printf(
		    "coverage   %-5s (%ld/%ld)   judged / (judged + UNVERIFIED): how often the engine could decide\n",
		    cov, judged, judged + s.unverified);
		printf("counts     TP %ld  FP %ld  FN %ld (%ld recorded miss(es))  TN %ld; %ld distinct root cause(s) "
		       "among TPs\n",
		       s.tp, s.fp, s.fn, s.fn_missed, s.tn, s.root_causes);
	} else if (!strcmp(sub, "list")) {
		cJSON *list = NULL;
		if (corpus_list(cp, &list, &e) != 0) {
			rc = cli_fail("corpus list: %s", e.msg);
			goto out;
		}
		if (!json && !list->child)
			printf("the corpus is empty (belay corpus add TRACE --turn N banks a case)\n");
		/* Columns as wide as their widest cell, so a long root cause never shifts a row. */
		enum { NCOL = 6 };
		static const char *const head[NCOL] = {"ID", "EXPECTED", "LABEL", "ROOT CAUSE", "LAST RUN", "TOOL"};
		int width[NCOL];
		for (int k = 0; k < NCOL; k++)
			width[k] = (int)strlen(head[k]);
		for (int pass = 0; pass < 2 && !json && list->child; pass++) {
			if (pass)
				for (int k = 0; k < NCOL; k++)
					printf("%-*s%s", k + 1 < NCOL ? width[k] : 0, head[k], k + 1 < NCOL ? " " : "\n");
			for (cJSON *x = list->child; x; x = x->next) {
				char label[40];
				snprintf(label, sizeof label, "%s%s", jx_str(x, "label"),
					 cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(x, "miss")) ? " MISS" : "");
				/* six cli_safe buffers, of the eight it keeps */
				const char *cells[NCOL] = {
					cli_safe(jx_str(x, "id")), cli_safe(jx_str(x, "expected_status")), cli_safe(label),
					jx_str(x, "root_cause") ? cli_safe(jx_str(x, "root_cause")) : "-",
					jx_str(x, "last_outcome") ? cli_safe(jx_str(x, "last_outcome")) : "-",
					jx_str(x, "tool") ? cli_safe(jx_str(x, "tool")) : "(whole run)"};
				for (int k = 0; k < NCOL; k++) {
					const char *v = cells[k] ? cells[k] : "-";
					if (!pass && (int)strlen(v) > width[k])
						width[k] = (int)strlen(v);
					else if (pass)
						printf("%-*s%s", k + 1 < NCOL ? width[k] : 0, v, k + 1 < NCOL ? " " : "\n");
				}
			}
		}
		for (cJSON *x = json ? list->child : NULL; x; x = x->next)
			cli_print_json(x);
		cJSON_Delete(list);
	} else if (!strcmp(sub, "show")) {
		cJSON *o = NULL;
		if (corpus_show(cp, argv[optind], &o, &e) != 0) {
			rc = cli_fail("corpus show: %s", e.msg);
			goto out;
		}
		if (json) {
			cli_print_json(o);
		} else {
			const cJSON *labels = cJSON_GetObjectItemCaseSensitive(o, "labels");
			const cJSON *last = cJSON_GetArrayItem(labels, cJSON_GetArraySize(labels) - 1);
			/* an imported case: every string is the exporter's (SF: escaped for the terminal) */
#define SF_OR(obj, key, dflt) (jx_str(obj, key) ? cli_safe(jx_str(obj, key)) : (dflt))
/* a field of a stored case (an imported one may lack any): escaped, "?" when absent, never NULL */
#define SF(obj, key) SF_OR(obj, key, "?")
			printf("case      %s (%s, from %s, %s)\n", SF(o, "id"), SF(o, "kind"), SF(o, "origin"),
			       SF(o, "created"));
			printf("run       %s", SF(o, "run"));
			if (cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(o, "turn")))
				printf(", turn %d (%s)", cJSON_GetObjectItemCaseSensitive(o, "turn")->valueint,
				       SF_OR(o, "tool", "?"));
			printf("\n");
			char *argv_s = jx_print(cJSON_GetObjectItemCaseSensitive(o, "server_argv"));
			printf("server    %s\n", cli_safe(argv_s));
			free(argv_s);
			printf("workspace %s\n", SF_OR(o, "scope", "(not recorded)"));
			char *pol = jx_print(cJSON_GetObjectItemCaseSensitive(o, "policy"));
			printf("policy    %s\n", cli_safe(pol));
			free(pol);
			printf("pre-state %s (task: %s)\n", SF_OR(o, "handle", "-"), SF_OR(o, "task_handle", "-"));
			printf("label     %s", last ? SF(last, "label") : "pending (never labeled)");
			if (last && cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(last, "miss")))
				printf(", recorded miss");
			if (last && jx_str(last, "root_cause"))
				printf(", root cause %s", SF(last, "root_cause"));
			printf("\n");
			for (const cJSON *l = labels ? labels->child : NULL; l; l = l->next)
				printf("          %s %s by %s%s%s\n", SF(l, "at"), SF(l, "label"), SF(l, "by"),
				       jx_str(l, "note") ? ": " : "", SF_OR(l, "note", ""));
			const cJSON *exp = cJSON_GetObjectItemCaseSensitive(o, "expected");
			printf("expected  %s%s%s\n", SF(o, "expected_status"), jx_str(o, "expected_cause") ? " " : "",
			       SF_OR(o, "expected_cause", ""));
			const cJSON *subs = exp ? cJSON_GetObjectItemCaseSensitive(exp, "verdicts") : NULL;
			for (const cJSON *s = subs ? subs->child : NULL; s; s = s->next) {
				char kind[48];
				snprintf(kind, sizeof kind, "%s %s", jx_str(s, "axis"), jx_str(s, "kind"));
				printf("    %-20s %-11s %s%s%s%s\n", cli_safe(kind), SF(s, "status"), SF(s, "message"),
				       jx_str(s, "cause") ? "  [" : "", SF_OR(s, "cause", ""), jx_str(s, "cause") ? "]" : "");
			}
			const cJSON *res = cJSON_GetObjectItemCaseSensitive(o, "results");
			printf("runs      %d recorded\n", cJSON_GetArraySize(res));
			for (const cJSON *x = res ? res->child : NULL; x; x = x->next)
				printf("          %s %s%s%s\n", SF(x, "at"), SF(x, "outcome"),
				       jx_str(x, "detail") && *jx_str(x, "detail") ? ": " : "", SF_OR(x, "detail", ""));
#undef SF
#undef SF_OR
		}
		cJSON_Delete(o);
	} else if (!strcmp(sub, "export")) {
		struct corpus_xfer_stats xs;
		if (corpus_export(cp, argv[optind], argv[optind + 1], &xs, &e) != 0) {
			rc = cli_fail("corpus export: %s", e.msg);
			goto out;
		}
		printf("exported %s to %s: %llu bytes, %llu object(s) (%llu bytes of content)\n", argv[optind],
		       argv[optind + 1], (unsigned long long)xs.bytes, (unsigned long long)xs.objects,
		       (unsigned long long)xs.object_bytes);
	} else if (!strcmp(sub, "import")) {
		struct corpus_xfer_stats xs;
		char *id = NULL;
		if (corpus_import(cp, argv[optind], &id, &xs, &e) != 0) {
			rc = cli_fail("corpus import: %s", e.msg);
			goto out;
		}
		printf("imported %s from %s: %llu object(s), %llu new here; %llu new snapshot(s)\n", cli_safe(id), argv[optind],
		       (unsigned long long)xs.objects, (unsigned long long)xs.objects_new,
		       (unsigned long long)xs.snapshots_new);
		printf("%s\n", cli_safe(id));
		free(id);
	} else if (!strcmp(sub, "delete")) {
		if (corpus_delete(cp, argv[optind], &e) != 0) {
			rc = cli_fail("corpus delete: %s", e.msg);
			goto out;
		}
		printf("deleted case %s with its labels and results\n", cli_safe(argv[optind]));
	}
out:
	corpus_close(cp);
	return rc;
}

int cmd_corpus(int argc, char **argv)
{
	if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		cli_help(&cli_corpus, argc < 2 ? stderr : stdout);
		return argc < 2 ? EXIT_USAGE : 0;
	}
	const char *sub = argv[1];
	if (!strcmp(sub, "add"))
		return do_add(argc - 1, argv + 1);
	if (!strcmp(sub, "label"))
		return do_label(argc - 1, argv + 1);
	if (!strcmp(sub, "run"))
		return do_run(argc - 1, argv + 1);
	if (!strcmp(sub, "score") || !strcmp(sub, "list") || !strcmp(sub, "show") || !strcmp(sub, "export") ||
	    !strcmp(sub, "import") || !strcmp(sub, "delete"))
		return do_simple(sub, argc - 1, argv + 1);
	return cli_fail("corpus: unknown subcommand '%s' (belay corpus --help)", sub);
}
