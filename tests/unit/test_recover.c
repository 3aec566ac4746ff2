/* test_recover.c - belay recover: a contained run that edits, deletes and creates files,
 * then `recover apply` to turn 0 gives back a tree whose hash is turn 0's pre-state's;
 * changes made after the run are refused by name unless --force; undo puts the workspace
 * back; a run without a final state is refused; every apply is recorded. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/fsutil.h"
#include "common/jsonx.h"
#include "common/xalloc.h"
#include "snapshot/snapshot.h"
#include "trace/trace_reader.h"
#include "index/statedb.h"
#include "store/store.h"
#include "tsupport.h"

#define DEMO BELAY_BUILD_DIR "/belay-demo-server"

static char *dir, *ws, *st, *traces, *trace;

static void record_run(void)
{
	ts_sh("mkdir -p %s/d && printf 'one\\n' > %s/a.txt && printf 'two\\n' > %s/b.txt && printf 'three\\n' > %s/d/c.txt",
	      ws, ws, ws, ws);
	char *steps = fs_join(dir, "steps.json");
	const char *s = "[{\"initialize\":{}},{\"list\":true},"
			"{\"call\":\"read_file\",\"args\":{\"path\":\"a.txt\"}},"
			"{\"call\":\"write_file\",\"args\":{\"path\":\"a.txt\",\"content\":\"ONE CHANGED\\n\"}},"
			"{\"call\":\"run_process\",\"args\":{\"command_line\":\"rm -f b.txt d/c.txt\"}},"
			"{\"call\":\"write_file\",\"args\":{\"path\":\"new.txt\",\"content\":\"new\\n\"}}]";
	ts_write_file(steps, s, strlen(s));
	char *tmp = xasprintf("BELAY_SANDBOX_TMP_BASE=%s", dir);
	const char *env[] = {tmp, NULL};
	const char *argv[] = {BELAY_BIN, "__script", steps, "--scope", ws, "--state", st, "--trace-dir", traces, "--",
			      DEMO, "all", ws, NULL};
	struct ts_out o;
	cr_assert_eq(ts_run(argv, env, NULL, NULL, 0, 60, &o), 0);
	cr_assert_eq(o.status, 0, "%s", o.err);
	trace = ts_find_trace(traces);
	cr_assert_not_null(trace);
	ts_out_free(&o);
	free(tmp);
	free(steps);
}

static void setup(void)
{
	dir = ts_tmpdir("recover");
	ws = fs_join(dir, "ws");
	st = fs_join(dir, "state");
	traces = fs_join(dir, "traces");
	fs_mkdir_p(ws, 0755, NULL);
	record_run();
}

static void teardown(void)
{
	ts_rmtree(dir);
	free(dir);
	free(ws);
	free(st);
	free(traces);
	free(trace);
}

TestSuite(recover, .init = setup, .fini = teardown, .timeout = 120);

static int recover(struct ts_out *o, const char *sub, const char *spec, const char *flag1, const char *flag2)
{
	const char *argv[] = {BELAY_BIN, "recover", sub, spec, "--state", st, flag1, flag2, NULL};
	cr_assert_eq(ts_run(argv, NULL, NULL, NULL, 0, 60, o), 0);
	return o->status;
}

static char *turn0_tree_hash(void)
{
	struct trace *t = NULL;
	struct err e = {0};
	cr_assert_eq(trace_read(trace, &t, &e), 0, "%s", e.msg);
	char *h = NULL;
	for (size_t i = 0; i < t->n && !h; i++)
		if (t->recs[i].is_frame && t->recs[i].dir == 0 && t->recs[i].state_handle &&
		    jx_str(t->recs[i].state_handle, "tree_hash"))
			h = xstrdup(jx_str(t->recs[i].state_handle, "tree_hash"));
	trace_free(t);
	cr_assert_not_null(h, "turn 0 has a captured pre-state");
	return h;
}

Test(recover, apply_to_turn_0_restores_its_tree_hash)
{
	char *spec = xasprintf("%s:0", trace);
	struct ts_out o;
	cr_assert_eq(recover(&o, "show", spec, NULL, NULL), 0, "%s", o.err);
	cr_assert(strstr(o.out, "drift      none"), "%s", o.out);
	cr_assert(strstr(o.out, "-two") && strstr(o.out, "+ONE CHANGED"), "show prints the diff first:\n%s", o.out);
	ts_out_free(&o);
	char before[SNAP_TREE_HASH_LEN], after[SNAP_TREE_HASH_LEN];
	struct err e = {0};
	cr_assert_eq(snap_tree_hash_dir(ws, before, &e), 0);
	char *want = turn0_tree_hash();
	cr_assert_str_neq(before, want, "the run changed the workspace");
	cr_assert_eq(recover(&o, "apply", spec, "--yes", NULL), 0, "%s%s", o.out, o.err);
	cr_assert_eq(snap_tree_hash_dir(ws, after, &e), 0);
	cr_assert_str_eq(after, want, "the workspace is turn 0's pre-state again");
	cr_assert(strstr(o.out, "(equals the pre-state's)"), "%s", o.out);
	size_t n;
	char *a = fs_join(ws, "a.txt"), *b = fs_join(ws, "d/c.txt"), *nw = fs_join(ws, "new.txt");
	char *ac = ts_read_file(a, &n);
	cr_assert_str_eq(ac, "one\n");
	char *cc = ts_read_file(b, &n);
	cr_assert_str_eq(cc, "three\n");
	cr_assert_neq(access(nw, F_OK), 0, "a file the run created is gone");
	ts_out_free(&o);

	/* Recorded, and undone. */
	struct store *s = NULL;
	cr_assert_eq(statedb_open(st, &s, &e), 0);
	sqlite3_stmt *q;
	cr_assert_eq(store_stmt(s, "SELECT turn, matches_target, forced FROM recoveries", &q, &e), 0);
	cr_assert_eq(sqlite3_step(q), SQLITE_ROW);
	cr_assert_eq(sqlite3_column_int(q, 0), 0);
	cr_assert_eq(sqlite3_column_int(q, 1), 1);
	cr_assert_eq(sqlite3_column_int(q, 2), 0);
	sqlite3_reset(q);
	store_close(s);
	cr_assert_eq(recover(&o, "undo", "1", "--yes", NULL), 0, "%s", o.err);
	cr_assert_eq(snap_tree_hash_dir(ws, after, &e), 0);
	cr_assert_str_eq(after, before, "undo gives back the workspace as it was before the apply");
	ts_out_free(&o);
	free(a);
	free(b);
	free(nw);
	free(ac);
	free(cc);
	free(want);
	free(spec);
}

Test(recover, changes_after_the_run_are_refused_by_name_unless_forced)
{
	char *spec = xasprintf("%s:0", trace);
	ts_sh("printf 'mine\\n' > %s/notes.txt", ws);
	char before[SNAP_TREE_HASH_LEN], now[SNAP_TREE_HASH_LEN];
	struct err e = {0};
	cr_assert_eq(snap_tree_hash_dir(ws, before, &e), 0);
	struct ts_out o;
	cr_assert_eq(recover(&o, "apply", spec, "--yes", NULL), 1, "%s", o.err);
	cr_assert(strstr(o.err, "notes.txt"), "the refusal names the path: %s", o.err);
	cr_assert_eq(snap_tree_hash_dir(ws, now, &e), 0);
	cr_assert_str_eq(now, before, "a refused apply changes nothing");
	ts_out_free(&o);
	cr_assert_eq(recover(&o, "apply", spec, "--yes", "--force"), 0, "%s", o.err);
	char *want = turn0_tree_hash();
	cr_assert_eq(snap_tree_hash_dir(ws, now, &e), 0);
	cr_assert_str_eq(now, want);
	ts_out_free(&o);
	free(want);
	free(spec);
}

Test(recover, a_run_without_a_final_state_is_refused)
{
	/* A trace cut before its end: the run's last state was never observed. */
	char *cut = fs_join(dir, "cut.jsonl");
	ts_sh("grep -v '\"final_state\"\\|\"phase\":\"close\"' %s > %s", trace, cut);
	char *spec = xasprintf("%s:1", cut);
	struct ts_out o;
	cr_assert_eq(recover(&o, "apply", spec, "--yes", NULL), 1, "%s", o.err);
	cr_assert(strstr(o.err, "did not end cleanly"), "%s", o.err);
	ts_out_free(&o);
	cr_assert_eq(recover(&o, "show", "999", NULL, NULL), 2);
	ts_out_free(&o);
	free(spec);
	free(cut);
}
