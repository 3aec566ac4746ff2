/* statedb.h - finding and opening the database of a state directory for the run view,
 * verdicts and the corpus: <state>/belay.db, created 0600 in a 0700 directory. */
#ifndef BELAY_INDEX_STATEDB_H
#define BELAY_INDEX_STATEDB_H
#include "common/err.h"

struct store;

/* Creates state_dir (0700) when missing and opens <state_dir>/belay.db (migrating it).
 * *out: new store (store_close). A read-only state directory or database is refused as such
 * (BELAY_EREFUSED), not as SQLite's "unable to open database file". */
int statedb_open(const char *state_dir, struct store **out, struct err *e);
/* For commands that only read (runs, show, corpus list/show/score): statedb_open where the
 * state directory is writable (or does not exist yet), else the database opened read-only
 * (store_open_readonly). */
int statedb_open_read(const char *state_dir, struct store **out, struct err *e);
/* Whether state_dir exists and cannot be written by this process. */
int statedb_read_only(const char *state_dir);
/* The state directory a trace says it used (its server start record's "state_dir"), read
 * from the first records only; NULL when it names none. New string. */
char *statedb_recorded_state_dir(const char *trace_path);
/* Where a command working on a trace keeps its results: `override` when given, else the
 * state dir the trace recorded when it exists here, else the default (paths_state_dir).
 * New string. */
char *statedb_for_trace(const char *override, const char *trace_path);

#endif
