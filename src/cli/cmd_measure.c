/* cmd_measure.c - `belay measure run|report|combine|merge|bundle`: batch verification with a
 * ledger and an honest report, sharded onto existing schedulers (docs/MEASURE.md).
 * Exit codes: a completed batch exits 0 (a measurement is not a gate); usage errors and bad
 * input exit 2 with a named error. */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "common/fsutil.h"
#include "common/jsonx.h"
#include "common/paths.h"
#include "common/xalloc.h"
#include "corpus/corpus.h"
#include "index/statedb.h"
#include "interop/redact.h"
#include "measure/batch.h"
#include "measure/bundle.h"
#include "measure/ledger.h"
#include "measure/merge.h"
#include "measure/report.h"
#include "verify/policy.h"

static const struct cli_opt run_opts[] = {
	{"out", 'o', 0, "LEDGER", "the ledger (JSONL; created, or resumed)"},
	{"invariants", 'i', 0, "FILE", "A1 policy (JSON; may be repeated)"},
	{"no-default-invariants", 'n', 0, NULL, "drop the default invariants"},
	{"replays", 'r', 0, "N", "further replays when a result differs (>= 3, default 3)"},
	{NULL, 'j', 0, "N", "verify N traces at once (default 1)"},
	{"timeout", 'T', 0, "SECONDS", "per awaited reply in a replay (default 10)"},
	{"state", 's', 0, "DIR",
	 "the store of the pre-states, and the corpus flagged turns are banked into (default: each trace's "
	 "recorded state directory); bundles are imported into it (a shard's private store)"},
	{"shard", 'S', 0, "I/N",
	 "measure only shard I of N (default: from JOB_COMPLETION_INDEX + BELAY_SHARD_COUNT, or the "
	 "SLURM_ARRAY_TASK_* variables)"},
	{"objects", 'O', 0, "DIR",
	 "a shared read-only object store (a belay state directory, e.g. the recording machine's on a read-only "
	 "share): each trace's pre-states are copied from it into the private --state first"},
	{"no-ingest", 'I', 0, NULL, "do not bank flagged turns into the corpus"},
	CLI_OPT_END,
};
static const struct cli_cmd spec_measure_run = {
	.name = "measure run",
	.summary = "verify every trace (*.jsonl) and bundle (*.belaytb) in the directories into a ledger",
	.synopsis = "DIR... --out LEDGER [options]",
	.about = "One ledger line per trace; re-running with the same --out resumes.",
	.opts = run_opts,
};

static const struct cli_opt report_opts[] = {
	CLI_OPT_JSON("one JSON object"),
	{"html", 'H', 0, "FILE", "a self-contained page"},
	{"state", 's', 0, "DIR", "read the labels of the banked cases (the false-positive rate)"},
	CLI_OPT_END,
};
static const struct cli_cmd spec_measure_report = {
	.name = "measure report",
	.summary = "the ledger's report, in a fixed order",
	.synopsis = "LEDGER [--json] [--html FILE] [--state DIR]",
	.opts = report_opts,
};

static const struct cli_cmd spec_measure_combine = {
	.name = "measure combine",
	.summary = "several captures side by side (control__* traces held out)",
	.synopsis = "LABEL=LEDGER...",
};

static const struct cli_opt merge_opts[] = {
	{"out", 'o', 0, "LEDGER", "the merged ledger"},
	{"allow-missing", 'a', 0, NULL, "merge although shards are missing (the report says INCOMPLETE)"},
	CLI_OPT_END,
};
static const struct cli_cmd spec_measure_merge = {
	.name = "measure merge",
	.summary = "join shard ledgers, refusing overlaps and naming missing shards",
	.synopsis = "LEDGER... --out LEDGER [--allow-missing]",
	.opts = merge_opts,
};

static const struct cli_opt bundle_opts[] = {
	{"out", 'o', 0, "DIR", "where the bundles go (DIR/<id>.belaytb)"},
	{"state", 's', 0, "DIR", "where the pre-states are (default: the state directory each trace names)"},
	CLI_OPT_END,
};
static const struct cli_cmd spec_measure_bundle = {
	.name = "measure bundle",
	.summary = "write each trace with the pre-state objects it refers to, for a machine without this state "
		   "directory",
	.synopsis = "TRACE... --out DIR [--state DIR]",
	.opts = bundle_opts,
};

const struct cli_cmd cli_measure = {
	.name = "measure",
	.summary = "verify a batch of traces into a ledger and report the rate (run|report|combine|merge|bundle)",
	.about = "Batch measurement of an agent's honesty over many runs (docs/MEASURE.md).",
	.subs = (const struct cli_cmd *const[]){&spec_measure_run, &spec_measure_report, &spec_measure_combine,
						&spec_measure_merge, &spec_measure_bundle, NULL},
	.notes = "Exit status: a completed batch exits 0 (a measurement is not a gate); usage errors and bad input "
		 "exit 2.",
};

struct prog {
	int tty;
	size_t last_len;
};

static void progress(void *ctx, const struct measure_progress *p)
{
	struct prog *pg = ctx;
	if (!pg->tty) {
		fprintf(stderr, "belay: measure: %zu/%zu %s %s\n", p->done, p->total, p->trace_id, p->what);
		return;
	}
	double rate = p->elapsed_s > 0 ? (double)p->turns / p->elapsed_s : 0;
	double per = p->done ? p->elapsed_s / (double)p->done : 0;
	long eta = (long)lround(per * (double)(p->total - p->done));
	int width = 30, fill = p->total ? (int)((double)width * (double)p->done / (double)p->total) : width;
	char bar[40];
	for (int i = 0; i < width; i++)
		bar[i] = i < fill ? '#' : '.';
	bar[width] = 0;
	fprintf(stderr, "\r[%s] %zu/%zu traces  %.1f turns/s  ETA %ld:%02ld\033[K", bar, p->done, p->total, rate, eta / 60,
		eta % 60);
	if (p->done == p->total)
		fputc('\n', stderr);
}

static int load_policy(struct policy *pol, const char **files, int n, int no_defaults)
{
	struct err e = {0};
	for (int i = 0; i < n; i++)
		if (policy_load(pol, files[i], &e) != 0) {
			policy_free(pol);
			return cli_fail("measure: invariants: %s", e.msg);
		}
	if (!no_defaults)
		policy_add_defaults(pol);
	return 0;
}

static int measure_run_cmd(int argc, char **argv)
{
	struct cli_parse P;
	cli_parse_init(&spec_measure_run, &P, 0);
	const char *out = NULL, *state = NULL, *shard = NULL, *objects = NULL, *inv[16];
	int ninv = 0, no_defaults = 0, replays = 3, jobs = 1, no_ingest = 0, c;
	double timeout = 10;
	optind = 1;
	opterr = 0;
	while ((c = cli_getopt(&P, argc, argv)) != -1) {
		switch (c) {
		case 'o': out = optarg; break;
		case 'i': if (ninv == 16) return cli_fail("measure run: too many --invariants"); inv[ninv++] = optarg; break;
		case 'n': no_defaults = 1; break;
		case 'r': replays = atoi(optarg); break;
		case 'j': jobs = atoi(optarg); break;
		case 'T': timeout = atof(optarg); break;
		case 's': state = optarg; break;
		case 'S': shard = optarg; break;
		case 'I': no_ingest = 1; break;
		case 'O': objects = optarg; break;
		case 'h': cli_help(&cli_measure, stdout); return 0;
		default: return cli_fail("measure run: unknown or incomplete option '%s' (belay measure --help)", argv[optind - 1]);
		}
	}
	if (optind >= argc)
		return cli_fail("measure run: no trace directory given");
	if (!out)
		return cli_fail("measure run: --out LEDGER is required");
	if (replays < 3)
		return cli_fail("measure run: --replays must be at least 3");
	if (objects && !state)
		return cli_fail("measure run: --objects DIR needs a private --state DIR to copy the pre-states into");
	if (jobs < 1 || jobs > 64)
		return cli_fail("measure run: -j must be between 1 and 64");
	if (timeout <= 0)
		return cli_fail("measure run: --timeout must be positive");
	struct measure_run_opts o = {.dirs = argv + optind,
				     .ndirs = (size_t)(argc - optind),
				     .replays = replays,
				     .jobs = jobs,
				     .timeout_ms = (unsigned)(timeout * 1000),
				     .state = state,
				     .ledger = out,
				     .objects = objects,
				     .no_ingest = no_ingest,
				     .launcher = paths_self_exe(),
				     .progress = progress};
	struct err e = {0};
	int rc = shard ? shard_parse(shard, &o.shard, &e) : shard_from_env(NULL, &o.shard, &e);
	if (rc)
		return cli_fail("measure run: %s", e.msg);
	struct policy pol = {0};
	if ((rc = load_policy(&pol, inv, ninv, no_defaults)) != 0)
		return rc;
	o.policy = &pol;
	struct prog pg = {.tty = isatty(2)};
	o.ctx = &pg;
	if (o.shard.count > 1 || strcmp(o.shard.source, "none"))
		fprintf(stderr, "belay: measure: shard %ld/%ld (from %s)\n", o.shard.index, o.shard.count, o.shard.source);
	struct measure_run_result r;
	rc = measure_run(&o, &r, &e);
	policy_free(&pol);
	if (rc)
		return cli_fail("measure run: %s", e.msg);
	printf("measured  %zu of %zu trace(s) in this shard (%zu in the directories); %zu already in the ledger, %zu "
	       "duplicate(s), %zu errored; %zu turn(s) in %.1f s\n",
	       r.verified, r.selected, r.population, r.already, r.duplicates, r.errored, r.turns, r.elapsed_s);
	if (no_ingest)
		printf("corpus    --no-ingest: flagged turns were not banked (empty banked/unaddable lists mean \"not "
		       "attempted\")\n");
	else
		printf("corpus    banked %zu flagged turn(s); %zu could not be banked\n", r.ingested, r.unaddable);
	printf("ledger    %s (belay measure report %s)\n", out, out);
	return 0;
}

/* Labels of the banked cases of the ledger's traces, from the corpus of state. */
static void read_labels(const char *state, const struct ledger *l, struct report_labels *lab)
{
	struct corpus *cp = NULL;
	struct err e = {0};
	char *dir = paths_state_dir(state);
	cJSON *list = NULL;
	if (corpus_open(dir, &cp, &e) == 0 && corpus_list(cp, &list, &e) == 0) {
		lab->have = 1;
		for (const cJSON *c = list->child; c; c = c->next) {
			const char *run = jx_str(c, "run"), *st = jx_str(c, "expected_status"), *label = jx_str(c, "label");
			if (!run || !st || strcmp(st, "FAIL") || !ledger_find(l, run))
				continue;
			if (label && !strcmp(label, "true-positive"))
				lab->tp++;
			else if (label && !strcmp(label, "false-positive"))
				lab->fp++;
			else
				lab->pending++;
		}
		if (lab->tp + lab->fp == 0)
			lab->have = lab->pending > 0;
	} else {
		fprintf(stderr, "belay: measure report: labels not read: %s\n", e.msg);
	}
	cJSON_Delete(list);
	corpus_close(cp);
	free(dir);
}

static int measure_report_cmd(int argc, char **argv)
{
	struct cli_parse P;
	cli_parse_init(&spec_measure_report, &P, 0);
	struct cli_opts co = {.cmd = "measure report", .help = "measure", .spec = &cli_measure};
	const char *html = NULL;
	int c;
	optind = 1;
	opterr = 0;
	while ((c = cli_getopt(&P, argc, argv)) != -1) {
		if (c == 'H') {
			html = optarg;
			continue;
		}
		int r = cli_opt_take(&co, c, argv);
		if (r != CLI_OPT_TAKEN)
			return r;
	}
	if (optind + 1 != argc)
		return cli_fail("measure report: one LEDGER is needed");
	struct ledger l;
	struct err e = {0};
	if (ledger_load(&l, argv[optind], 0, &e) != 0) {
		ledger_free(&l);
		return cli_fail("measure report: %s", e.msg);
	}
	/* Report pages leave belay: error messages are scrubbed of secrets (the ledger keeps them). */
	for (size_t i = 0; i < l.n; i++) {
		cJSON *er = cJSON_GetObjectItemCaseSensitive(l.lines[i], "error");
		if (cJSON_IsString(er)) {
			char *r = redact_text(er->valuestring);
			cJSON_SetValuestring(er, r);
			free(r);
		}
	}
	struct report_labels lab = {0}, *lp = NULL;
	if (co.state) {
		read_labels(co.state, &l, &lab);
		lp = &lab;
	}
	int rc = 0;
	if (html) {
		struct buf b = {0};
		report_html(&l, lp, &b);
		if (fs_write_file_atomic(html, b.p, b.len, 0644, &e) != 0)
			rc = cli_fail("measure report: %s", e.msg);
		buf_free(&b);
	}
	if (!rc && co.json) {
		cJSON *j = report_json(&l, lp);
		cli_print_json(j);
		cJSON_Delete(j);
	} else if (!rc && !html) {
		struct buf b = {0};
		report_text(&l, lp, &b);
		fputs(buf_cstr(&b), stdout);
		buf_free(&b);
	}
	ledger_free(&l);
	return rc;
}

static int measure_merge_cmd(int argc, char **argv)
{
	struct cli_parse P;
	cli_parse_init(&spec_measure_merge, &P, 0);
	const char *out = NULL;
	int allow = 0, c;
	optind = 1;
	opterr = 0;
	while ((c = cli_getopt(&P, argc, argv)) != -1) {
		if (c == 'o')
			out = optarg;
		else if (c == 'a')
			allow = 1;
		else if (c == 'h') {
			cli_help(&cli_measure, stdout);
			return 0;
		} else
			return cli_fail("measure merge: unknown or incomplete option '%s'", argv[optind - 1]);
	}
	if (!out)
		return cli_fail("measure merge: --out LEDGER is required");
	if (optind >= argc)
		return cli_fail("measure merge: no shard ledger given");
	struct merge_result r;
	struct err e = {0};
	if (measure_merge(argv + optind, (size_t)(argc - optind), out, allow, &r, &e) != 0)
		return cli_fail("measure merge: %s", e.msg);
	printf("merged    %ld of %ld shard(s), %ld line(s) -> %s\n", r.present, r.count, r.lines, out);
	if (r.nmissing) {
		printf("MISSING   shard(s)");
		for (size_t i = 0; i < r.nmissing && i < 64; i++)
			printf(" %ld/%ld", r.missing[i], r.count);
		printf(": their traces are in no number of this ledger (the report says INCOMPLETE)\n");
	}
	return 0;
}

static int measure_combine_cmd(int argc, char **argv)
{
	if (argc < 2)
		return cli_fail("measure combine: give LABEL=LEDGER at least once");
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		cli_help(&cli_measure, stdout);
		return 0;
	}
	struct buf b = {0};
	struct err e = {0};
	int rc = measure_combine(argv + 1, (size_t)(argc - 1), &b, &e);
	if (rc == 0)
		fputs(buf_cstr(&b), stdout);
	buf_free(&b);
	return rc ? cli_fail("measure combine: %s", e.msg) : 0;
}

static int measure_bundle_cmd(int argc, char **argv)
{
	struct cli_parse P;
	cli_parse_init(&spec_measure_bundle, &P, 0);
	const char *out = NULL, *state = NULL;
	int c;
	optind = 1;
	opterr = 0;
	while ((c = cli_getopt(&P, argc, argv)) != -1) {
		if (c == 'o')
			out = optarg;
		else if (c == 's')
			state = optarg;
		else if (c == 'h') {
			cli_help(&cli_measure, stdout);
			return 0;
		} else
			return cli_fail("measure bundle: unknown or incomplete option '%s'", argv[optind - 1]);
	}
	if (!out)
		return cli_fail("measure bundle: --out DIR is required");
	if (optind >= argc)
		return cli_fail("measure bundle: no trace given");
	struct err e = {0};
	if (fs_mkdir_p(out, 0700, &e) != 0)
		return cli_fail("measure bundle: %s", e.msg);
	for (int i = optind; i < argc; i++) {
		char *id = measure_trace_id(argv[i]);
		char *name = xasprintf("%s%s", id, BUNDLE_SUFFIX);
		char *path = fs_join(out, name);
		char *sdir = statedb_for_trace(state, argv[i]);
		struct bundle_stats st = {0};
		int rc = bundle_write(argv[i], sdir, path, &st, &e);
		if (rc == 0)
			printf("bundle    %s: %llu snapshot(s), %llu object(s), %llu bytes%s\n", path,
			       (unsigned long long)st.snapshots, (unsigned long long)st.objects, (unsigned long long)st.bytes,
			       st.missing ? " (some pre-states are not in the store: they will verify as PRESTATE_NOT_FOUND)" : "");
		free(sdir);
		free(path);
		free(name);
		free(id);
		if (rc)
			return cli_fail("measure bundle: %s", e.msg);
	}
	return 0;
}

int cmd_measure(int argc, char **argv)
{
	if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		cli_help(&cli_measure, argc < 2 ? stderr : stdout);
		return argc < 2 ? EXIT_USAGE : 0;
	}
	const char *sub = argv[1];
	if (!strcmp(sub, "run"))
		return measure_run_cmd(argc - 1, argv + 1);
	if (!strcmp(sub, "report"))
		return measure_report_cmd(argc - 1, argv + 1);
	if (!strcmp(sub, "merge"))
		return measure_merge_cmd(argc - 1, argv + 1);
	if (!strcmp(sub, "combine"))
		return measure_combine_cmd(argc - 1, argv + 1);
	if (!strcmp(sub, "bundle"))
		return measure_bundle_cmd(argc - 1, argv + 1);
	return cli_fail("measure: unknown subcommand '%s' (run, report, combine, merge, bundle)", sub);
}
