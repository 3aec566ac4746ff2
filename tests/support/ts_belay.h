/* ts_belay.h - end-to-end helpers for the store and corpus tests: an MCP client that waits
 * for each reply (so tools/call turns never overlap), recording a session of the demo server
 * through the real `belay proxy --scope`, running belay subcommands, and reading the
 * database with plain SQL. */
#ifndef BELAY_TESTS_TS_BELAY_H
#define BELAY_TESTS_TS_BELAY_H
#include <stddef.h>

#include "tsupport.h"

/* The fixture of the store and corpus tests: a fresh scratch directory (ts_tmpdir(tag)),
 * its "state" subdirectory (not created) and that directory's database state/belay.db,
 * as new strings. */
void ts_state_setup(const char *tag, char **dir, char **state, char **db);
/* Removes dir with everything in it and frees the three strings. */
void ts_state_teardown(char *dir, char *state, char *db);

/* Runs argv with pipes; writes each line of `lines` (NULL-terminated, no newline needed)
 * and, after a line holding "\"id\"", waits for one reply line. out->out holds the replies,
 * out->err the child's stderr. Returns 0, or -1 when a reply did not come in time. */
int ts_mcp_session(const char *const *argv, const char *const *env, const char *const *lines, int timeout_s,
		   struct ts_out *out);

/* The requests of the standard demo session: initialize, initialized, tools/list, then
 * read_file, write_file (replaces an assertion with `assert True`), run_tests, summarize
 * (declared read-only, writes a cache file), and an unknown tool (a tool error). */
extern const char *const ts_demo_lines[];

/* A clean session: initialize, initialized, tools/list and one read_file (PASS when replayed). */
extern const char *const ts_read_lines[];
/* Moves a recorded trace into directory `to` (created) as <name>.jsonl; the new path. */
char *ts_place(const char *trace, const char *to, const char *name);
/* Creates <dir>/ws (tests/test_a.py with a real assertion) and records ts_demo_lines
 * (or `lines`) through `belay proxy --scope <dir>/ws --state <dir>/state --trace-dir
 * <dir>/traces [extra...] -- belay-demo-server all <dir>/ws`. Returns the trace path (new
 * string); asserts it exists. */
char *ts_record_demo(const char *dir, const char *const *lines, const char *const *extra);
/* Same with another server command (the workspace path is appended as its last argument). */
char *ts_record_server(const char *dir, const char *const *lines, const char *const *extra, const char *const *server);
/* Records the __script step list `steps` (JSON text, written to <dir>/steps.json) through
 * `belay __script --state STATE --trace-dir TRACES --timeout TIMEOUT_S --scope WS [extra...]
 * -- belay-demo-server MODE WS` with the sandbox's temp dirs below dir; the trace path (new
 * string). */
char *ts_record_script(const char *dir, const char *steps, const char *state, const char *traces, const char *ws,
		       const char *timeout_s, const char *const *extra, const char *mode);
/* Appends a `claim` record (what an eval driver writes after the run) to a trace. */
void ts_append_claim(const char *trace, const char *text);

/* Runs the belay binary with args (NULL-terminated list after env), waiting up to 120 s. */
int ts_belay(struct ts_out *o, const char *const *env, ...) __attribute__((sentinel));

/* Every row of `sql` on the database file db, columns joined by '|', rows by '\n'
 * (new string). Opens read-only; asserts the query runs. */
char *ts_sql_dump(const char *db, const char *sql);
/* The single integer `sql` returns. */
long long ts_sql_int(const char *db, const char *sql);
/* Runs a statement (asserts success). */
void ts_sql_exec(const char *db, const char *sql);
/* The last line of s (new string, without its newline). */
char *ts_last_line(const char *s);
/* Every table of the database dumped in a stable order (a snapshot of its whole content,
 * for "changes nothing" checks). New string. */
char *ts_db_snapshot(const char *db);
/* A listing of every file below dir with its size, sorted (new string). */
char *ts_tree_listing(const char *dir);

#endif
