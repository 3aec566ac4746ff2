/* test_snapshot_store.c - the SQLite store and the object store: migrations from an empty
 * database, file modes, refusing a state dir inside the workspace, objects stored once
 * (and packed: the pack count does not grow with the file count), large objects, gc of
 * unreferenced snapshots (and what it must keep), restore name hazards, diffs of handles,
 * and the `belay snapshot` / `belay gc` commands. */
#include <criterion/criterion.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/buf.h"
#include "common/fsutil.h"
#include "common/jsonx.h"
#include "common/xalloc.h"
#include "snapshot/snapshot.h"
#include "store/store.h"
#include "ts_snap.h"
#include "ts_belay.h"
#include "tsupport.h"

static char *base, *ws, *state;

static void setup(void)
{
	ts_snap_setup("snapstore", &base, &ws, &state, NULL);
}

static void teardown(void)
{
	ts_snap_teardown(NULL, NULL, base, ws, state);
}

TestSuite(store, .init = setup, .fini = teardown, .timeout = 120);

static void put(const char *rel, const char *content)
{
	ts_put(ws, rel, content);
}

static struct snap_store *open_store(void)
{
	struct snap_store *st = NULL;
	struct err e = {0};
	cr_assert_eq(snap_store_open(state, ws, &st, &e), 0, "%s", e.msg);
	return st;
}

static char *capture(struct snapshotter *s)
{
	cJSON *h = snapshotter_capture(s);
	char *txt = jx_print(h);
	cr_assert_str_eq(jx_str(h, "status"), "present", "%s", txt);
	char *handle = xstrdup(jx_str(h, "handle"));
	free(txt);
	cJSON_Delete(h);
	return handle;
}

static struct snap_store_stats stats(struct snap_store *st)
{
	struct snap_store_stats s;
	struct err e = {0};
	cr_assert_eq(snap_store_stats(st, &s, &e), 0, "%s", e.msg);
	return s;
}

Test(store, migrates_an_empty_database_with_private_modes)
{
	struct snap_store *st = open_store();
	snap_store_close(st);
	struct stat sb;
	cr_assert_eq(stat(state, &sb), 0);
	cr_assert_eq(sb.st_mode & 0777, 0700);
	char *db = fs_join(state, "belay.db");
	cr_assert_eq(stat(db, &sb), 0);
	cr_assert_eq(sb.st_mode & 0777, 0600);
	struct store *s = NULL;
	struct err e = {0};
	cr_assert_eq(store_open(db, &s, &e), 0, "%s", e.msg);
	int v = 0;
	cr_assert_eq(store_user_version(s, &v, &e), 0);
	cr_assert_eq(v, store_schema_version());
	cr_assert_geq(v, 1); /* later migrations (runs, verdicts, corpus) follow the snapshots' */
	const char *tables[] = {"packs", "objects", "lineages", "snapshots", "entries", "snapshot_refs"};
	for (size_t i = 0; i < 6; i++) {
		sqlite3_stmt *q;
		cr_assert_eq(store_stmt(s, "SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND name = ?1", &q, &e), 0);
		sqlite3_bind_text(q, 1, tables[i], -1, SQLITE_STATIC);
		cr_assert_eq(sqlite3_step(q), SQLITE_ROW);
		cr_assert_eq(sqlite3_column_int(q, 0), 1, "table %s missing", tables[i]);
		sqlite3_reset(q);
	}
	/* migration 2: the delta indexes */
	const char *indexes[] = {"entries_by_path", "entries_by_born", "entries_by_died", "entries_by_link_group"};
	for (size_t i = 0; i < 4; i++) {
		sqlite3_stmt *q;
		cr_assert_eq(store_stmt(s, "SELECT count(*) FROM sqlite_schema WHERE type = 'index' AND name = ?1", &q, &e), 0);
		sqlite3_bind_text(q, 1, indexes[i], -1, SQLITE_STATIC);
		cr_assert_eq(sqlite3_step(q), SQLITE_ROW);
		cr_assert_eq(sqlite3_column_int(q, 0), 1, "index %s missing", indexes[i]);
		sqlite3_reset(q);
	}
	sqlite3_stmt *q;
	cr_assert_eq(store_stmt(s, "PRAGMA journal_mode", &q, &e), 0);
	cr_assert_eq(sqlite3_step(q), SQLITE_ROW);
	cr_assert_str_eq((const char *)sqlite3_column_text(q, 0), "wal");
	sqlite3_reset(q);
	cr_assert_eq(store_stmt(s, "PRAGMA foreign_keys", &q, &e), 0);
	cr_assert_eq(sqlite3_step(q), SQLITE_ROW);
	cr_assert_eq(sqlite3_column_int(q, 0), 1);
	sqlite3_reset(q);
	/* a database from a newer belay is refused, not clobbered */
	cr_assert_eq(store_exec(s, "PRAGMA user_version = 99", &e), 0);
	store_close(s);
	cr_assert_eq(store_open(db, &s, &e), BELAY_ESTORE);
	cr_assert(strstr(e.msg, "99"), "%s", e.msg);
	free(db);
}

/* The plan SQLite picks for a query (the "detail" column of EXPLAIN QUERY PLAN, joined). */
static char *plan_of(struct store *s, const char *sql)
{
	char *q = xasprintf("EXPLAIN QUERY PLAN %s", sql);
	sqlite3_stmt *st = NULL;
	cr_assert_eq(sqlite3_prepare_v2(store_db(s), q, -1, &st, NULL), SQLITE_OK, "%s", sqlite3_errmsg(store_db(s)));
	struct buf b = {0};
	while (sqlite3_step(st) == SQLITE_ROW)
		buf_printf(&b, "%s; ", (const char *)sqlite3_column_text(st, 3));
	sqlite3_finalize(st);
	free(q);
	return buf_take(&b);
}

Test(store, a_database_from_before_the_delta_indexes_gains_them_and_deltas_use_them)
{
	struct snap_store *st = open_store();
	snap_store_close(st);
	char *db = fs_join(state, "older.db");
	struct store *s = NULL;
	struct err e = {0};
	/* what a belay from before migration 6 (the delta indexes) left */
	cr_assert_eq(store_open_upto(db, 5, &s, &e), 0, "%s", e.msg);
	cr_assert_eq(store_exec(s, "SELECT 1 FROM sqlite_master WHERE name = 'entries_by_born'", &e), 0);
	store_close(s);
	cr_assert_eq(store_open(db, &s, &e), 0, "%s", e.msg);
	int v = 0;
	cr_assert_eq(store_user_version(s, &v, &e), 0);
	cr_assert_eq(v, store_schema_version(), "migrated to the latest");
	/* O(rows changed): the delta, group and point queries of snap_partial.c use the indexes */
	char *p = plan_of(s, "SELECT path FROM entries INDEXED BY entries_by_born WHERE lineage = 1 AND born > 3 AND born "
			     "<= 4 UNION SELECT path FROM entries INDEXED BY entries_by_died WHERE lineage = 1 AND died > 3 "
			     "AND died <= 4 ORDER BY 1");
	cr_assert(strstr(p, "entries_by_born (lineage=? AND born>? AND born<?)") &&
			  strstr(p, "entries_by_died (lineage=? AND died>? AND died<?)"),
		  "delta plan: %s", p);
	cr_assert_null(strstr(p, "entries_by_path"), "no scan of the whole lineage: %s", p);
	free(p);
	p = plan_of(s, "SELECT path FROM entries INDEXED BY entries_by_link_group WHERE lineage = 1 AND link_group = x'61' "
		       "AND born <= 3 AND (died IS NULL OR died > 3) ORDER BY path");
	cr_assert(strstr(p, "entries_by_link_group"), "group plan: %s", p);
	free(p);
	p = plan_of(s, "SELECT kind FROM entries WHERE lineage = 1 AND path = x'61' AND born <= 3 AND (died IS NULL OR "
		       "died > 3)");
	cr_assert(strstr(p, "entries_by_path"), "point plan: %s", p);
	free(p);
	store_close(s);
	free(db);
}

Test(store, a_state_dir_inside_the_workspace_is_refused_naming_both)
{
	char *inside = fs_join(ws, "deep/state");
	struct snap_store *st = NULL;
	struct err e = {0};
	cr_assert_eq(snap_store_open(inside, ws, &st, &e), BELAY_EREFUSED);
	char *real = realpath(ws, NULL);
	cr_assert(strstr(e.msg, real) && strstr(e.msg, "deep/state"), "%s", e.msg);
	char *deep = fs_join(ws, "deep");
	cr_assert_eq(access(deep, F_OK), -1, "the refused state dir was created anyway");
	/* the same through a symlink to the workspace */
	char *alias = fs_join(base, "alias");
	cr_assert_eq(symlink(ws, alias), 0);
	char *via = fs_join(alias, "state");
	cr_assert_eq(snap_store_open(via, ws, &st, &e), BELAY_EREFUSED, "%s", e.msg);
	/* and the snapshotter refuses a store that lies inside its workspace */
	cr_assert_eq(snap_store_open(inside, NULL, &st, &e), 0, "%s", e.msg);
	struct snapshotter *s = NULL;
	cr_assert_eq(snapshotter_open(st, ws, &s, &e), BELAY_EREFUSED);
	snap_store_close(st);
	free(real);
	free(deep);
	free(alias);
	free(via);
	free(inside);
}

Test(store, objects_are_stored_once_and_packed)
{
	cr_assert_eq(ts_sh("mkdir -p '%s/many' && cd '%s/many' && for i in $(seq 1 2000); do echo \"content $i\" > f$i; "
			   "done && echo same > ../a && echo same > ../b",
			   ws, ws),
		     0);
	struct snap_store *st = open_store();
	struct snapshotter *s = NULL;
	struct err e = {0};
	cr_assert_eq(snapshotter_open(st, ws, &s, &e), 0, "%s", e.msg);
	char *h1 = capture(s);
	struct snap_store_stats a = stats(st);
	cr_assert_eq(a.objects, 2001, "two identical files must share one object");
	cr_assert_eq(a.pack_files, 1, "objects must be packed, not one file each");
	cr_assert_eq(a.loose_objects, 0);
	int64_t content = 5; /* "same\n", once */
	for (int i = 1; i <= 2000; i++)
		content += snprintf(NULL, 0, "content %d\n", i);
	cr_assert_eq(a.pack_bytes, 16 + 48 * a.objects + content, "the pack holds more than each content once");
	/* unchanged turns add no objects and no rows */
	for (int i = 0; i < 3; i++)
		free(capture(s));
	struct snap_store_stats b = stats(st);
	cr_assert_eq(b.objects, a.objects);
	cr_assert_eq(b.entries, a.entries);
	cr_assert_eq(b.pack_bytes, a.pack_bytes);
	cr_assert_eq(b.snapshots, 4);
	/* a change costs one row (plus its directory's) and one object */
	put("many/f7", "changed\n");
	free(capture(s));
	struct snap_store_stats c = stats(st);
	cr_assert_eq(c.objects, a.objects + 1);
	cr_assert_eq(c.entries, a.entries + 1, "a content change in place should add one row, added %lld",
		     (long long)(c.entries - a.entries));
	/* content identical to an existing object adds no object */
	put("many/f8", "same\n");
	free(capture(s));
	cr_assert_eq(stats(st).objects, c.objects);
	cr_assert_eq(stats(st).pack_bytes, c.pack_bytes, "known content was written again");
	snapshotter_free(s);
	snap_store_close(st);
	free(h1);
}

Test(store, large_files_are_loose_objects_and_restore_byte_exact)
{
	char *p = fs_join(ws, "big.bin");
	cr_assert_eq(ts_sh("head -c 6000000 /dev/urandom > '%s' && truncate -s 20000000 '%s'", p, p), 0);
	struct snap_store *st = open_store();
	struct snapshotter *s = NULL;
	struct err e = {0};
	cr_assert_eq(snapshotter_open(st, ws, &s, &e), 0, "%s", e.msg);
	char *h = capture(s);
	cr_assert_eq(stats(st).loose_objects, 1);
	char *dest = fs_join(base, "out");
	cr_assert_eq(snap_restore(st, h, dest, NULL, &e), 0, "%s", e.msg);
	char *q = fs_join(dest, "big.bin");
	cr_assert_eq(ts_sh("cmp '%s' '%s'", p, q), 0);
	struct stat sb;
	cr_assert_eq(stat(q, &sb), 0);
	cr_assert_lt(sb.st_blocks * 512, 20000000, "the zero tail should come back as a hole");
	snapshotter_free(s);
	snap_store_close(st);
	free(q);
	free(dest);
	free(h);
	free(p);
}

static int open_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	cr_assert_not_null(d);
	int n = 0;
	for (struct dirent *de; (de = readdir(d));)
		n += de->d_name[0] != '.';
	closedir(d);
	return n;
}

Test(store, reading_from_several_packs_leaves_no_descriptor_open)
{
	/* 20 objects of 3.5 MB (each under the loose threshold) fill a 64 MiB pack, which is
	 * sealed; the next capture's object goes to a second one. A restore reads from both, and
	 * closing the store closes every reader. */
	cr_assert_eq(ts_sh("cd '%s' && for i in $(seq 1 20); do head -c 3500000 /dev/urandom > f$i.bin; done", ws), 0);
	struct snap_store *st = open_store();
	struct snapshotter *s = NULL;
	struct err e = {0};
	cr_assert_eq(snapshotter_open(st, ws, &s, &e), 0, "%s", e.msg);
	free(capture(s));
	put("later.txt", "in the second pack\n");
	char *h = capture(s);
	snapshotter_free(s);
	cr_assert_geq(stats(st).packs, 2, "the objects span two packs or more");
	snap_store_close(st);
	int before = open_fds();
	st = open_store();
	char *dest = fs_join(base, "out-packs");
	cr_assert_eq(snap_restore(st, h, dest, NULL, &e), 0, "%s", e.msg);
	snap_store_close(st);
	cr_assert_eq(open_fds(), before, "every pack reader is closed with the store");
	cr_assert_eq(ts_sh("cd '%s' && for i in $(seq 1 20); do cmp f$i.bin \"%s/f$i.bin\" || exit 1; done", ws, dest), 0);
	free(dest);
	free(h);
}

Test(store, objects_that_cannot_be_indexed_fail_the_capture)
{
	/* The database refuses every new object row (as a full disk or a broken database
	 * would): the capture must fail by name, never hand out a handle to objects the index
	 * does not know. */
	put("f.txt", "content nobody can index\n");
	struct snap_store *st = open_store();
	char *db = fs_join(state, "belay.db");
	ts_sql_exec(db, "CREATE TRIGGER refuse_objects BEFORE INSERT ON objects BEGIN SELECT RAISE(FAIL, 'injected'); END");
	struct snapshotter *s = NULL;
	struct err e = {0};
	cr_assert_eq(snapshotter_open(st, ws, &s, &e), 0, "%s", e.msg);
	cJSON *h = snapshotter_capture(s);
	char *txt = jx_print(h);
	cr_assert_str_neq(jx_str(h, "status"), "present", "%s", txt);
	free(txt);
	cJSON_Delete(h);
	snapshotter_free(s);
	snap_store_close(st);
	free(db);
}

Test(store, a_corrupted_pack_is_detected_not_restored)
{
	put("f.txt", "precious content\n");
	struct snap_store *st = open_store();
	struct snapshotter *s = NULL;
	struct err e = {0};
	cr_assert_eq(snapshotter_open(st, ws, &s, &e), 0, "%s", e.msg);
	char *h = capture(s);
	snapshotter_free(s);
	snap_store_close(st);
	/* flip one byte of the stored content */
	cr_assert_eq(ts_sh("cd '%s/objects' && p=$(ls pack-*.pack) && off=$(grep -abo precious $p | cut -d: -f1) && "
			   "printf 'X' | dd of=$p bs=1 seek=$off conv=notrunc status=none",
			   state),
		     0);
	st = open_store();
	char *dest = fs_join(base, "out");
	cr_assert_eq(snap_restore(st, h, dest, NULL, &e), BELAY_ECORRUPT, "%s", e.msg);
	cr_assert_eq(access(dest, F_OK), -1, "a failed restore must not leave a half tree");
	snap_store_close(st);
	free(dest);
	free(h);
}

Test(store, gc_removes_unreferenced_and_keeps_referenced)
{
	put("keep.txt", "kept by a ref\n");
	put("common.txt", "in both\n");
	struct snap_store *st = open_store();
	struct snapshotter *s = NULL;
	struct err e = {0};
	cr_assert_eq(snapshotter_open(st, ws, &s, &e), 0, "%s", e.msg);
	char *h1 = capture(s);
	char th1[SNAP_TREE_HASH_LEN];
	cr_assert_eq(snap_tree_hash_dir(ws, th1, &e), 0);
	cr_assert_eq(snap_ref_add(st, h1, "run", "r1", &e), 0, "%s", e.msg);
	cr_assert_eq(snap_ref_add(st, "feedbeef", "run", "r1", &e), BELAY_ENOTFOUND);
	/* many turns whose content nobody refers to */
	for (int i = 0; i < 5; i++) {
		char body[64];
		snprintf(body, sizeof body, "transient %d %s\n", i, "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx");
		put("transient.txt", body);
		free(capture(s));
	}
	char *tp = fs_join(ws, "transient.txt");
	cr_assert_eq(unlink(tp), 0);
	free(tp);
	char *hlast = capture(s);
	snapshotter_free(s);
	s = NULL;
	struct snap_store_stats before = stats(st);

	/* within the grace period nothing goes */
	struct snap_gc_report r;
	cr_assert_eq(snap_gc(st, NULL, &r, &e), 0, "%s", e.msg);
	cr_assert_eq(r.snapshots_removed, 0);
	cr_assert_eq(r.objects_removed, 0);

	struct snap_gc_opts o = {.grace_ms = 0};
	cr_assert_eq(snap_gc(st, &o, &r, &e), 0, "%s", e.msg);
	cr_assert_eq(r.snapshots_removed, 6);
	cr_assert_eq(r.objects_removed, 5, "the five transient contents");
	cr_assert_eq(r.packs_rewritten, 1);
	cr_assert_lt(r.bytes_after, r.bytes_before);
	struct snap_store_stats after = stats(st);
	cr_assert_eq(after.snapshots, 1);
	cr_assert_lt(after.entries, before.entries);
	cr_assert_eq(after.pack_files, 1);

	char *dest = fs_join(base, "gone");
	cr_assert_eq(snap_restore(st, hlast, dest, NULL, &e), BELAY_ENOTFOUND, "%s", e.msg);
	char *kept = fs_join(base, "kept");
	cr_assert_eq(snap_restore(st, h1, kept, NULL, &e), 0, "%s", e.msg);
	char th2[SNAP_TREE_HASH_LEN];
	cr_assert_eq(snap_tree_hash_dir(kept, th2, &e), 0);
	cr_assert_str_eq(th1, th2, "the referenced snapshot did not survive gc intact");

	/* drop the ref: now it goes too, and the store is empty */
	cr_assert_eq(snap_ref_drop(st, h1, "run", "r1", &e), 0);
	cr_assert_eq(snap_gc(st, &o, &r, &e), 0, "%s", e.msg);
	after = stats(st);
	cr_assert_eq(after.snapshots, 0);
	cr_assert_eq(after.entries, 0);
	cr_assert_eq(after.objects, 0);
	cr_assert_eq(after.pack_files, 0);
	snap_store_close(st);
	free(dest);
	free(kept);
	free(h1);
	free(hlast);
}

static int alive_unless_gone(void *ctx, const char *id)
{
	return strcmp(id, ctx) != 0;
}

Test(store, objects_kept_for_an_owner_survive_gc_until_its_references_are_pruned)
{
	struct snap_store *st = open_store();
	struct err e = {0};
	char small[65], big[65], other[65];
	size_t nbig = (size_t)5 << 20;
	char *bigp = xmalloc(nbig);
	for (size_t i = 0; i < nbig; i++)
		bigp[i] = (char)('a' + i % 23);
	cr_assert_eq(snap_object_put(st, "a trial's stdout\n", 17, "trial", "t1", small, &e), 0, "%s", e.msg);
	cr_assert_eq(snap_object_put(st, bigp, nbig, "trial", "t1", big, &e), 0, "%s", e.msg);
	cr_assert_eq(snap_object_put(st, "another's\n", 10, "trial", "t2", other, &e), 0, "%s", e.msg);
	cr_assert_eq(stats(st).loose_objects, 1, "the large one is loose");
	struct buf b = {0};
	cr_assert_eq(snap_object_read(st, small, &b, &e), 0, "%s", e.msg);
	cr_assert(b.len == 17 && !memcmp(b.p, "a trial's stdout\n", 17));
	buf_free(&b);
	struct snap_gc_opts o = {.grace_ms = 0};
	struct snap_gc_report r;
	cr_assert_eq(snap_gc(st, &o, &r, &e), 0, "%s", e.msg);
	cr_assert_eq(r.objects_removed, 0, "referenced objects stay");
	cr_assert_eq(snap_object_read(st, big, &b, &e), 0, "%s", e.msg);
	cr_assert(b.len == nbig && !memcmp(b.p, bigp, nbig), "read back whole and verified");
	buf_free(&b);
	/* cut short behind the store's back: named, and nothing of it handed on */
	char *loose = xasprintf("%s/objects/loose/%.2s/%s", state, big, big + 2);
	cr_assert_eq(truncate(loose, (off_t)(3u << 20)), 0, "%s", loose);
	cr_assert_eq(snap_object_read(st, big, &b, &e), BELAY_ECORRUPT, "%s", e.msg);
	cr_assert_eq(b.len, 0, "nothing half read");
	free(loose);
	/* t1 is gone: its references go, the other owner's stay */
	cr_assert_eq(snap_refs_prune(st, "trial", alive_unless_gone, "t1", &e), 1, "%s", e.msg);
	cr_assert_eq(snap_gc(st, &o, &r, &e), 0, "%s", e.msg);
	cr_assert_eq(r.objects_removed, 2);
	cr_assert_eq(r.loose_removed, 1);
	cr_assert_eq(snap_object_read(st, small, &b, &e), BELAY_ENOTFOUND, "%s", e.msg);
	cr_assert_eq(b.len, 0, "nothing half read");
	cr_assert(strstr(e.msg, small), "the missing object is named: %s", e.msg);
	cr_assert_eq(snap_object_read(st, other, &b, &e), 0, "%s", e.msg);
	buf_free(&b);
	cr_assert_eq(snap_object_read(st, "not-hex", &b, &e), BELAY_EINVAL);
	snap_store_close(st);
	free(bigp);
}

Test(store, gc_keeps_what_a_live_snapshotter_will_inherit)
{
	put("a.txt", "a\n");
	put("b.txt", "b\n");
	struct snap_store *st = open_store();
	struct snapshotter *s = NULL;
	struct err e = {0};
	cr_assert_eq(snapshotter_open(st, ws, &s, &e), 0, "%s", e.msg);
	free(capture(s));
	/* every snapshot of the live lineage is unreferenced and past grace */
	struct snap_store *other = open_store();
	struct snap_gc_opts o = {.grace_ms = 0};
	struct snap_gc_report r;
	cr_assert_eq(snap_gc(other, &o, &r, &e), 0, "%s", e.msg);
	cr_assert_eq(r.snapshots_removed, 1);
	snap_store_close(other);
	/* the next (incremental) capture only writes the change, yet is complete */
	put("b.txt", "b2\n");
	char *h = capture(s);
	char *dest = fs_join(base, "out");
	cr_assert_eq(snap_restore(st, h, dest, NULL, &e), 0, "%s", e.msg);
	char t1[SNAP_TREE_HASH_LEN], t2[SNAP_TREE_HASH_LEN];
	cr_assert_eq(snap_tree_hash_dir(ws, t1, &e), 0);
	cr_assert_eq(snap_tree_hash_dir(dest, t2, &e), 0);
	cr_assert_str_eq(t1, t2);
	snapshotter_free(s);
	snap_store_close(st);
	free(dest);
	free(h);
}

/*==== restore name hazards ====*/

static void hazard(const char *n1, const char *n2, const char *cause)
{
	put(n1, "one\n");
	if (n2)
		put(n2, "two\n");
	struct snap_store *st = open_store();
	struct snapshotter *s = NULL;
	struct err e = {0};
	cr_assert_eq(snapshotter_open(st, ws, &s, &e), 0, "%s", e.msg);
	char *h = capture(s); /* such trees snapshot fine: only restore refuses */
	char *dest = fs_join(base, "dest");
	cr_assert_eq(mkdir(dest, 0755), 0);
	cr_assert_eq(snap_restore(st, h, dest, NULL, &e), BELAY_EREFUSED, "%s", e.msg);
	cr_assert_str_eq(snap_cause_of(&e), cause, "%s", e.msg);
	DIR *d = opendir(dest);
	int n = 0;
	while (readdir(d))
		n++;
	closedir(d);
	cr_assert_eq(n, 2, "dest was touched");
	struct stat sb;
	cr_assert_eq(stat(dest, &sb), 0);
	cr_assert_eq(sb.st_mode & 0777, 0755, "dest was touched");
	/* waived for a byte-transparent destination, it restores */
	char *dest2 = fs_join(base, "dest2");
	struct snap_restore_opts o = {.allow_name_hazards = 1};
	cr_assert_eq(snap_restore(st, h, dest2, &o, &e), 0, "%s", e.msg);
	snapshotter_free(s);
	snap_store_close(st);
	free(dest);
	free(dest2);
	free(h);
}

Test(store, restore_refuses_a_case_collision)
{
	hazard("README", "readme", "UNRESTORABLE_CASE_COLLISION");
}

Test(store, restore_refuses_a_full_case_folding_collision)
{
	hazard("stra\xc3\x9f" "e", "STRASSE", "UNRESTORABLE_CASE_COLLISION"); /* ß folds to ss */
}

Test(store, restore_refuses_a_normalization_collision)
{
	hazard("caf\xc3\xa9", "cafe\xcc\x81", "UNRESTORABLE_NORMALIZATION_COLLISION");
}

Test(store, restore_refuses_a_mixed_case_and_normalization_collision)
{
	hazard("Cafe\xcc\x81", "caf\xc3\xa9", "UNRESTORABLE_NORMALIZATION_COLLISION");
}

Test(store, restore_refuses_an_invalid_utf8_name)
{
	hazard("caf\xe9.txt", NULL, "UNRESTORABLE_INVALID_UTF8_NAME");
}

Test(store, restore_refuses_a_non_empty_destination)
{
	put("f", "x");
	struct snap_store *st = open_store();
	struct snapshotter *s = NULL;
	struct err e = {0};
	cr_assert_eq(snapshotter_open(st, ws, &s, &e), 0, "%s", e.msg);
	char *h = capture(s);
	cr_assert_eq(snap_restore(st, h, ws, NULL, &e), BELAY_EEXIST, "%s", e.msg);
	snapshotter_free(s);
	snap_store_close(st);
	free(h);
}

Test(store, diff_between_two_handles_names_paths_and_fields)
{
	put("same.txt", "same\n");
	put("edit.txt", "v1\n");
	put("gone.txt", "bye\n");
	struct snap_store *st = open_store();
	struct snapshotter *s = NULL;
	struct err e = {0};
	cr_assert_eq(snapshotter_open(st, ws, &s, &e), 0, "%s", e.msg);
	char *h1 = capture(s);
	struct stat sb;
	char *ep = fs_join(ws, "edit.txt");
	stat(ep, &sb);
	put("edit.txt", "v2\n");
	struct timespec ts[2] = {sb.st_atim, sb.st_mtim};
	utimensat(AT_FDCWD, ep, ts, 0); /* same mtime: only content and nothing else moves */
	char *gp = fs_join(ws, "gone.txt");
	unlink(gp);
	free(gp);
	put("new.txt", "hi\n");
	char *h2 = capture(s);
	struct snap_diff d;
	cr_assert_eq(snap_diff_handles(st, h1, h2, &d, &e), 0, "%s", e.msg);
	cJSON *dj = snap_diff_json(&d);
	char *txt = jx_print(dj);
	cr_assert_eq(d.n, 4, "%s", txt); /* ., edit.txt, gone.txt, new.txt */
	cr_assert_str_eq(d.items[0].path, ".");
	cr_assert_str_eq(d.items[1].path, "edit.txt");
	cr_assert_eq(d.items[1].kind, SNAP_DIFF_CHANGED);
	cr_assert_eq(d.items[1].nfields, 1, "%s", txt);
	cr_assert_str_eq(d.items[1].fields[0], "content");
	cr_assert_str_eq(d.items[2].path, "gone.txt");
	cr_assert_eq(d.items[2].kind, SNAP_DIFF_REMOVED);
	cr_assert_str_eq(d.items[3].path, "new.txt");
	cr_assert_eq(d.items[3].kind, SNAP_DIFF_ADDED);
	free(txt);
	cJSON_Delete(dj);
	snap_diff_free(&d);
	snapshotter_free(s);
	snap_store_close(st);
	free(ep);
	free(h1);
	free(h2);
}

/*==== the commands ====*/

static struct ts_out run(const char *const *argv)
{
	struct ts_out o;
	ts_run(argv, NULL, NULL, NULL, 0, 60, &o);
	return o;
}

Test(store, the_snapshot_and_gc_commands)
{
	char *x = fs_join(ws, "x");
	cr_assert_eq(mkdir(x, 0755), 0);
	free(x);
	put("x/y.txt", "cli\n");
	struct ts_out o = run((const char *const[]){BELAY_BIN, "snapshot", "capture", ws, "--state", state, NULL});
	cr_assert_eq(o.status, 0, "%s", o.err);
	cJSON *h = cJSON_Parse(o.out);
	cr_assert_str_eq(jx_str(h, "status"), "present");
	char *handle = xstrdup(jx_str(h, "handle")), *th = xstrdup(jx_str(h, "tree_hash"));
	cJSON_Delete(h);
	ts_out_free(&o);
	char *dest = fs_join(base, "restored");
	o = run((const char *const[]){BELAY_BIN, "snapshot", "restore", handle, dest, "--state", state, NULL});
	cr_assert_eq(o.status, 0, "%s", o.err);
	ts_out_free(&o);
	o = run((const char *const[]){BELAY_BIN, "snapshot", "hash", dest, NULL});
	cr_assert_eq(o.status, 0);
	cr_assert_eq(strncmp(o.out, th, strlen(th)), 0, "%s vs %s", o.out, th);
	ts_out_free(&o);
	o = run((const char *const[]){BELAY_BIN, "snapshot", "show", handle, "--state", state, NULL});
	cr_assert_eq(o.status, 0, "%s", o.err);
	cr_assert(strstr(o.out, "x/y.txt"), "%s", o.out);
	ts_out_free(&o);
	o = run((const char *const[]){BELAY_BIN, "snapshot", "diff", handle, dest, "--state", state, NULL});
	cr_assert_eq(o.status, 0, "%s%s", o.out, o.err);
	ts_out_free(&o);
	o = run((const char *const[]){BELAY_BIN, "snapshot", "restore", handle, NULL});
	cr_assert_eq(o.status, 2);
	cr_assert_eq(strncmp(o.err, "belay: ", 7), 0, "%s", o.err);
	ts_out_free(&o);
	char *inside = fs_join(ws, "st");
	o = run((const char *const[]){BELAY_BIN, "snapshot", "capture", ws, "--state", inside, NULL});
	cr_assert_eq(o.status, 1);
	cr_assert(strstr(o.err, "inside the workspace"), "%s", o.err);
	ts_out_free(&o);
	o = run((const char *const[]){BELAY_BIN, "gc", "--state", state, "--grace", "0", NULL});
	cr_assert_eq(o.status, 0, "%s", o.err);
	cr_assert(strstr(o.out, "removed 1 snapshot"), "%s", o.out);
	ts_out_free(&o);
	o = run((const char *const[]){BELAY_BIN, "gc", "--grace", NULL});
	cr_assert_eq(o.status, 2);
	ts_out_free(&o);
	free(inside);
	free(dest);
	free(handle);
	free(th);
}
