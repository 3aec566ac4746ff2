/* cmd_gc.c - `belay gc [--state DIR] [--grace SECONDS]`: removes snapshots nothing refers
 * to (once older than the grace period), then the manifest rows and objects they alone
 * held, rewriting packs without dead objects. Prints what it removed. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "common/paths.h"
#include "snapshot/snapshot.h"
#include "trial/trial.h"

static const struct cli_opt gc_opts[] = {
	CLI_OPT_STATE,
	{"grace", 'g', 0, "SECONDS", "keep snapshots younger than this (default 3600): a run may still be using them"},
	CLI_OPT_END,
};

const struct cli_cmd cli_gc = {
	.name = "gc",
	.summary = "remove snapshots and objects nothing refers to",
	.synopsis = "[--state DIR] [--grace SECONDS]",
	.about = "Removes snapshots no run or corpus case refers to, and the objects only they held. Snapshots "
		 "younger than the grace period are kept: a run may still be using them. Also removes what a killed "
		 "`belay try` left (a trial directory without a record that no run holds). A trial's pre-state and "
		 "its full output are kept while its directory (STATE/trials/<id>) exists.",
	.opts = gc_opts,
};

int cmd_gc(int argc, char **argv)
{
	struct cli_parse P;
	cli_parse_init(&cli_gc, &P, 0);
	const char *state_opt = NULL;
	struct snap_gc_opts o = {.grace_ms = SNAP_GC_DEFAULT_GRACE_MS};
	int c;
	optind = 1;
	opterr = 0;
	while ((c = cli_getopt(&P, argc, argv)) != -1) {
		switch (c) {
		case 's': state_opt = optarg; break;
		case 'g': {
			char *end;
			double s = strtod(optarg, &end);
			if (*optarg == '\0' || *end || s < 0)
				return cli_fail("gc: --grace wants a number of seconds, not '%s'", optarg);
			o.grace_ms = (int64_t)(s * 1000);
			break;
		}
		case 'h': cli_help(&cli_gc, stdout); return 0;
		default: return cli_fail("gc: unknown option '%s' (belay gc --help)", argv[optind - 1]);
		}
	}
	if (optind != argc)
		return cli_fail("gc: unexpected argument '%s'", argv[optind]);
	char *state = paths_state_dir(state_opt);
	struct err e = {0};
	struct snap_store *st = NULL;
	struct snap_gc_report r;
	int swept = trial_sweep(state, &e); /* what killed `belay try` runs left (docs/TRY.md) */
	if (swept > 0)
		printf("removed %d leftover trial director%s\n", swept, swept == 1 ? "y" : "ies");
	int rc = swept < 0 ? swept : snap_store_open(state, NULL, &st, &e);
	int gone = rc == 0 ? trial_gc_roots(state, st, &e) : 0; /* a removed trial keeps nothing */
	if (gone < 0)
		rc = gone;
	else if (gone > 0)
		printf("dropped the references of %d removed trial(s)\n", gone);
	if (rc == 0)
		rc = snap_gc(st, &o, &r, &e);
	snap_store_close(st);
	free(state);
	if (rc) {
		fprintf(stderr, "belay: %s\n", e.msg);
		return 1;
	}
	printf("removed %lld snapshot(s), %lld manifest row(s), %lld object(s) (%lld loose), %lld lineage(s)\n",
	       (long long)r.snapshots_removed, (long long)r.entries_removed, (long long)r.objects_removed,
	       (long long)r.loose_removed, (long long)r.lineages_removed);
	printf("packs: %lld rewritten, %lld removed; objects %lld -> %lld bytes\n", (long long)r.packs_rewritten,
	       (long long)r.packs_removed, (long long)r.bytes_before, (long long)r.bytes_after);
	return 0;
}
