/* cmd_index.c - `belay index TRACE...`: (re)builds each trace's run view in the store. The
 * trace is the record of truth; indexing it again replaces the run's view and nothing else
 * (verdicts, cases and labels are kept). */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "common/xalloc.h"
#include "index/runidx.h"
#include "index/runq.h"
#include "index/statedb.h"
#include "store/store.h"

static const struct cli_opt index_opts[] = {
	{"state", 's', 0, "DIR", "the store to index into (default: the one the trace recorded, else the default)"},
	CLI_OPT_END,
};

const struct cli_cmd cli_index = {
	.name = "index",
	.summary = "build the store's view of runs from their traces",
	.synopsis = "[--state DIR] TRACE...",
	.about = "Builds the run view of each TRACE (runs, turns, the frame index, denials) in the store of the "
		 "state directory: --state DIR, else the one the trace recorded, else the default. Indexing a trace "
		 "again replaces its run view; verdicts, corpus cases and labels are kept. A trace that does not "
		 "read cleanly is refused by name and changes nothing; a last line cut mid-line (a killed writer, a "
		 "full disk) is named and the lines before it are indexed.",
	.opts = index_opts,
};

int cmd_index(int argc, char **argv)
{
	struct cli_parse P;
	cli_parse_init(&cli_index, &P, 0);
	struct cli_opts co = {.cmd = "index", .help = "index", .spec = &cli_index};
	int c, r;
	optind = 1;
	opterr = 0;
	while ((c = cli_getopt(&P, argc, argv)) != -1)
		if ((r = cli_opt_take(&co, c, argv)) != CLI_OPT_TAKEN)
			return r;
	if (optind >= argc)
		return cli_fail("index: no trace given (belay index TRACE...)");
	int failed = 0;
	for (int i = optind; i < argc; i++) {
		struct err e = {0};
		char *dir = statedb_for_trace(co.state, argv[i]);
		struct store *st = NULL;
		char *run = NULL;
		int rc = statedb_open(dir, &st, &e);
		if (rc == 0)
			rc = runidx_index_file(st, argv[i], &run, &e);
		if (rc) {
			cli_fail("index: %s", e.msg);
			failed = 1;
		} else {
			int turns, frames, denials;
			runq_counts(st, run, &turns, &frames, &denials);
			printf("indexed %s: %d turn(s), %d frame(s), %d denial(s) -> %s/belay.db\n", run, turns, frames, denials,
			       dir);
			long long tail = runq_unindexed_bytes(st, run);
			if (tail > 0)
				fprintf(stderr,
					"belay: index: %s: the last %lld byte(s) are a line cut mid-line (the writer was killed "
					"or the disk filled): indexed up to the line before\n",
					argv[i], tail);
		}
		free(run);
		store_close(st);
		free(dir);
	}
	return failed ? EXIT_USAGE : 0;
}
