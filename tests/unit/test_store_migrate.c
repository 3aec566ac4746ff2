/* test_store_migrate.c - every earlier schema upgrades to the current one with its data
 * intact: a database is built as each earlier belay left it (store_open_upto), filled with
 * rows of every table that version had, then opened by the current code. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/fsutil.h"
#include "common/xalloc.h"
#include "snapshot/snapshot.h"
#include "store/store.h"
#include "ts_belay.h"
#include "tsupport.h"

static char *dir;

static void setup(void)
{
	dir = ts_tmpdir("migrate");
}

static void teardown(void)
{
	ts_rmtree(dir);
	free(dir);
}

TestSuite(migrate, .init = setup, .fini = teardown, .timeout = 60);

static void exec(struct store *st, const char *sql)
{
	struct err e = {0};
	cr_assert_eq(store_exec(st, sql, &e), 0, "%s: %s", sql, e.msg);
}

/* Rows for the tables of schema version v (each version adds its own). */
static void fill(struct store *st, int v)
{
	if (v >= 1) {
		exec(st,
		     "INSERT INTO packs(id, size, sealed) VALUES (1, 16, 0);"
		     "INSERT INTO lineages(id, workspace, created_ns, closed, head_seq) VALUES (1, x'2f7773', 1, 1, 1);"
		     "INSERT INTO snapshots(handle, lineage, seq, created_ns, tree_hash, files, bytes, changed, walk) "
		     "VALUES ('0123456789abcdef0123456789abcdef', 1, 1, 5, 'BTH-2:sha256:00', 0, 0, 0, 'full');"
		     "INSERT INTO entries(lineage, born, path, kind, mode, uid, gid, mtime_ns) "
		     "VALUES (1, 1, x'2e', 1, 493, 0, 0, 1700000000000000000);"
		     "INSERT INTO entries(lineage, born, path, kind, mode, uid, gid, mtime_ns) "
		     "VALUES (1, 1, x'737562', 1, 448, 0, 0, 1700000000000000001);"
		     "INSERT INTO snapshot_refs VALUES ('0123456789abcdef0123456789abcdef', 'run', 'r1');");
	}
	if (v >= 2) {
		exec(st, "INSERT INTO runs(id, trace_path, indexed_bytes, records, skipped, turns) "
			 "VALUES ('r1', '/t/r1.jsonl', 100, 5, 0, 1);"
			 "INSERT INTO frames VALUES ('r1', 3, 40, 30, 'c2s', 20, 0, 'request', 0, 'tools/call');"
			 "INSERT INTO turns(run, turn, req_seq, method, tool, status, gate) "
			 "VALUES ('r1', 0, 3, 'tools/call', 'read_file', 'answered', 'captured');"
			 "INSERT INTO denials(run, seq, off, kind, op) VALUES ('r1', 4, 70, 'denial', 'mkdir');");
	}
	if (v >= 3) {
		exec(st, "INSERT INTO verifications(id, run, trace_path, at, belay_version, policy, worst, by) "
			 "VALUES (1, 'r1', '/t/r1.jsonl', 'now', '0.1.0', '[]', 'FAIL', 'me');"
			 "INSERT INTO verdicts(verification, run, turn, idx, status, message) VALUES (1, 'r1', 0, -1, "
			 "'FAIL', NULL);"
			 "INSERT INTO verdicts(verification, run, turn, idx, axis, kind, status, message) "
			 "VALUES (1, 'r1', 0, 0, 'A1', 'invariant', 'FAIL', 'weakened');");
	}
}

static void check(const char *db, int from)
{
	cr_assert_eq(ts_sql_int(db, "PRAGMA user_version"), store_schema_version(), "upgraded from %d", from);
	cr_assert_eq(ts_sql_int(db, "SELECT count(*) FROM entries WHERE lineage = 1"), 2,
		     "snapshot rows lost (from v%d)", from);
	cr_assert_eq(ts_sql_int(db, "SELECT mtime_ns FROM entries WHERE path = x'737562'"), 1700000000000000001LL);
	cr_assert_eq(ts_sql_int(db, "SELECT count(*) FROM snapshot_refs"), 1);
	if (from >= 2) {
		cr_assert_eq(ts_sql_int(db, "SELECT count(*) FROM frames WHERE run = 'r1' AND off = 40"), 1);
		cr_assert_eq(ts_sql_int(db, "SELECT count(*) FROM turns WHERE tool = 'read_file'"), 1);
		cr_assert_eq(ts_sql_int(db, "SELECT count(*) FROM denials"), 1);
	}
	if (from >= 3) {
		cr_assert_eq(ts_sql_int(db, "SELECT count(*) FROM verdicts WHERE message = 'weakened'"), 1);
		cr_assert_eq(ts_sql_int(db, "SELECT count(*) FROM verifications WHERE id = 1 AND kind = 'full'"), 1,
			     "an earlier verification is a full one");
	}
	/* Every table of every migration exists after the upgrade. */
	static const char *const tables[] = {
	    "packs", "objects",	    "lineages",	      "snapshots", "entries",	    "snapshot_refs",
	    "runs",  "frames",	    "turns",	      "denials",   "verifications", "verdicts",
	    "cases", "case_traces", "case_snapshots", "labels",	   "case_results",  "object_refs", NULL};
	for (const char *const *t = tables; *t; t++) {
		char *sql = xasprintf("SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = '%s'", *t);
		cr_assert_eq(ts_sql_int(db, sql), 1, "table %s missing after upgrading from v%d", *t, from);
		free(sql);
	}
	/* and the columns of migration 8 (hook runs) */
	cr_assert_eq(ts_sql_int(db, "SELECT count(*) FROM pragma_table_info('runs') WHERE name IN ('agent', 'session')"), 2,
		     "from v%d", from);
	cr_assert_eq(ts_sql_int(db, "SELECT count(*) FROM pragma_table_info('turns') WHERE name IN ('post_handle', "
				    "'post_cause')"),
		     2, "from v%d", from);
}

Test(migrate, every_earlier_schema_upgrades_with_its_data)
{
	cr_assert_geq(store_schema_version(), 4);
	for (int v = 1; v < store_schema_version(); v++) {
		char *name = xasprintf("v%d.db", v);
		char *db = fs_join(dir, name);
		free(name);
		struct store *st = NULL;
		struct err e = {0};
		cr_assert_eq(store_open_upto(db, v, &st, &e), 0, "%s", e.msg);
		cr_assert_eq(ts_sql_int(db, "PRAGMA user_version"), v);
		/* A table (or, from migrations 8, 11 and 12, a column) of a later migration does not exist yet. */
		char *later =
		    v == 7 ? xstrdup("SELECT count(*) FROM pragma_table_info('verifications') WHERE name = 'kind'")
		    : v == 8 ? xstrdup("SELECT count(*) FROM pragma_table_info('runs') WHERE name = 'agent'")
		    : v == 10 ? xstrdup("SELECT count(*) FROM pragma_table_info('runs') WHERE name = 'workspace_writes'")
		    : v == 11 ? xstrdup("SELECT count(*) FROM pragma_table_info('runs') WHERE name = 'http_upstream'")
			   : xasprintf("SELECT count(*) FROM sqlite_master WHERE name = '%s'",
				       v == 1 ? "runs" : v == 2 ? "verifications" : v == 3 ? "cases" : v == 9 ? "object_refs"
																: "recoveries");
		cr_assert_eq(ts_sql_int(db, later), 0, "v%d already has later tables", v);
		free(later);
		fill(st, v);
		store_close(st);
		cr_assert_eq(store_open(db, &st, &e), 0, "upgrading from v%d: %s", v, e.msg);
		store_close(st);
		check(db, v);
		/* The upgraded database works for what the new tables are for. */
		ts_sql_exec(
		    db, "INSERT INTO cases(id, kind, run, turn, created, belay_version, origin, platform, server_argv, "
			"policy, replays, timeout_ms, expected_status, expected) VALUES ('r1-turn0', 'turn', 'r1', 0, "
			"'now', '0.1.0', 'add', 'linux', '[\"x\"]', '[]', 3, 10000, 'FAIL', '{}')");
		free(db);
	}
}

Test(migrate, the_snapshot_api_reads_an_upgraded_v1_store)
{
	char *state = fs_join(dir, "state");
	cr_assert_eq(fs_mkdir_p(state, 0700, NULL), 0);
	char *db = fs_join(state, "belay.db");
	struct store *st = NULL;
	struct err e = {0};
	cr_assert_eq(store_open_upto(db, 1, &st, &e), 0, "%s", e.msg);
	fill(st, 1);
	store_close(st);
	struct snap_store *ss = NULL;
	cr_assert_eq(snap_store_open(state, NULL, &ss, &e), 0, "%s", e.msg);
	char th[SNAP_TREE_HASH_LEN];
	cr_assert_eq(snap_tree_hash_handle(ss, "0123456789abcdef0123456789abcdef", th, &e), 0, "%s", e.msg);
	cr_assert(!strncmp(th, "BTH-2:sha256:", 13));
	snap_store_close(ss);
	cr_assert_eq(ts_sql_int(db, "PRAGMA user_version"), store_schema_version());
	free(db);
	free(state);
}

Test(migrate, a_database_from_a_newer_belay_is_refused)
{
	char *db = fs_join(dir, "new.db");
	struct store *st = NULL;
	struct err e = {0};
	cr_assert_eq(store_open(db, &st, &e), 0, "%s", e.msg);
	store_close(st);
	char *sql = xasprintf("PRAGMA user_version = %d", store_schema_version() + 1);
	ts_sql_exec(db, sql);
	free(sql);
	cr_assert_eq(store_open(db, &st, &e), BELAY_ESTORE);
	cr_assert(strstr(e.msg, "newer belay"), "%s", e.msg);
	free(db);
}

/* SQLite's locks are POSIX advisory locks: closing ANY descriptor of the database file in a
 * process drops every lock the process holds on it. Opening a second connection in a
 * process that already has one (the proxy's store writer next to its snapshot store, verify
 * workers next to the corpus) must therefore never open()+close() the file itself: the
 * first connection would lose its shared lock, and another process closing its connection
 * would think it was the last one and delete the WAL under it. */
Test(migrate, a_second_connection_keeps_the_first_ones_locks)
{
	char *state = fs_join(dir, "state");
	fs_mkdir_p(state, 0700, NULL);
	char *path = fs_join(state, "belay.db");
	struct store *a = NULL, *b = NULL;
	struct err e = {0};
	cr_assert_eq(store_open(path, &a, &e), 0, "%s", e.msg);
	exec(a, "CREATE TABLE t(x); INSERT INTO t VALUES (1);");
	cr_assert_eq(store_open(path, &b, &e), 0, "%s", e.msg);
	char *wal = xasprintf("%s-wal", path);
	cr_assert_eq(access(wal, F_OK), 0, "a WAL while connections are open");
	/* Another process (a fresh one: a fork would inherit SQLite's lock bookkeeping) opens
	 * and closes a connection. */
	struct ts_out o;
	ts_belay(&o, NULL, "runs", "--state", state, NULL);
	cr_assert_eq(o.status, 0, "%s", o.err);
	ts_out_free(&o);
	cr_assert_eq(access(wal, F_OK), 0, "the other process deleted the WAL: it saw no other connection");
	exec(a, "INSERT INTO t VALUES (2);");
	exec(b, "INSERT INTO t VALUES (3);");
	store_close(b);
	store_close(a);
	cr_assert_eq(ts_sql_int(path, "SELECT count(*) FROM t"), 3);
	free(wal);
	free(path);
	free(state);
}
