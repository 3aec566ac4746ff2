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
#include "index/statedb.h"
#include "store/store.h"

static const char index_usage[] =
    "usage: belay index [--state DIR] TRACE...\n"
    "\n"
    "Builds the run view of each TRACE (runs, turns, the frame index, denials) in the store\n"
    "of the state directory: --state DIR, else the one the trace recorded, else the default.\n"
    "Indexing a trace again replaces its run view; verdicts, corpus cases and labels are kept.\n"
    "A trace that does not read cleanly is refused by name and changes nothing.\n";

static int count(struct store *st, const char *sql, const char *run)
{
	sqlite3_stmt *q;
	struct err e;
	if (store_stmt(st, sql, &q, &e) != 0)
		return -1;
	store_bind_text(st, q, 1, run, &e);
	int n = sqlite3_step(q) == SQLITE_ROW ? sqlite3_column_int(q, 0) : -1;
	sqlite3_reset(q);
	return n;
}

int cmd_index(int argc, char **argv)
{
	static const struct option opts[] = {
	    {"state", required_argument, NULL, 's'},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	const char *state = NULL;
	int c;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 's':
			state = optarg;
			break;
		case 'h':
			fputs(index_usage, stdout);
			return 0;
		default:
			return cli_fail("index: unknown or incomplete option '%s' (belay index --help)",
					argv[optind - 1]);
		}
	}
	if (optind >= argc)
		return cli_fail("index: no trace given (belay index TRACE...)");
	int failed = 0;
	for (int i = optind; i < argc; i++) {
		struct err e = {0};
		char *dir = statedb_for_trace(state, argv[i]);
		struct store *st = NULL;
		char *run = NULL;
		int rc = statedb_open(dir, &st, &e);
		if (rc == 0)
			rc = runidx_index_file(st, argv[i], &run, &e);
		if (rc) {
			cli_fail("index: %s", e.msg);
			failed = 1;
		} else {
			printf("indexed %s: %d turn(s), %d frame(s), %d denial(s) -> %s/belay.db\n", run,
			       count(st, "SELECT turns FROM runs WHERE id = ?1", run),
			       count(st, "SELECT frames FROM runs WHERE id = ?1", run),
			       count(st, "SELECT denials + network_attempts FROM runs WHERE id = ?1", run), dir);
		}
		free(run);
		store_close(st);
		free(dir);
	}
	return failed ? EXIT_USAGE : 0;
}
