/* test_try_store.c - what a trial keeps: its full output as objects of the snapshot store
 * (the tails in the record, the whole read back by `belay try show`, a missing object named,
 * gc keeping them while the trial's directory exists), and the text diffs of its effect in the
 * record (changed and added text files, binary ones flagged, the per-file and per-record
 * bounds, secrets scrubbed, the receipt covering them). */
#include "store/store.h"
#include "trial/trial_record.h"
#include "ts_belay.h"
#include "try_harness.h"

TestSuite(trystore, .init = try_setup, .fini = try_teardown, .timeout = 180);

/* belay try show ID [a] [b]: the exit status; o keeps the output. */
static int show(struct ts_out *o, const char *id, const char *a, const char *b)
{
	const char *argv[] = {BELAY_BIN, "try", "show", id, "--state", st, a, b, NULL};
	const char *env[] = {tmpbase, NULL};
	cr_assert_eq(ts_run(argv, env, ws, NULL, 0, 120, o), 0);
	return o->status;
}

static char *db_path(void)
{
	return fs_join(st, "belay.db");
}

/* The object a record's output names (64 hex). */
static const char *object_of(const cJSON *rec, const char *which)
{
	const char *hex = jx_str(jx_obj(rec, which), "object");
	cr_assert(hex && strlen(hex) == 64, "the record names the %s's object: %s", which,
		  hex ? hex : "(none)");
	return hex;
}

static long long objects_named(const char *hex)
{
	char *db = db_path(), *sql = xasprintf("SELECT count(*) FROM objects WHERE hex(oid) = upper('%s')", hex);
	long long n = ts_sql_int(db, sql);
	free(sql);
	free(db);
	return n;
}

/* What `seq 1 N` prints. */
static char *seq_text(int n)
{
	struct buf b = {0};
	for (int i = 1; i <= n; i++)
		buf_printf(&b, "%d\n", i);
	buf_putc(&b, '\0');
	return buf_take(&b);
}

Test(trystore, the_full_output_is_an_object_in_the_store_and_the_record_keeps_the_tails)
{
	struct ts_out o;
	cJSON *rec = try_run_unchanged(&o, NULL, "seq 1 20000; echo to-stderr >&2");
	cr_assert_not_null(rec, "%s", o.err);
	char *want = seq_text(20000); /* 108,894 bytes: far more than a tail */
	const char *id = jx_str(rec, "id");
	const cJSON *so = jx_obj(rec, "stdout");
	cr_assert_eq(cJSON_GetObjectItemCaseSensitive(so, "bytes")->valuedouble, (double)strlen(want));
	cr_assert(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(so, "tail_cut")));
	cr_assert_null(jx_str(so, "file"), "no output file beside the record");
	object_of(rec, "stdout");
	object_of(rec, "stderr");
	/* the tail in the record: the last 16 KiB (seq's lines are ASCII) */
	const char *tail = jx_str(rec, "stdout_tail");
	cr_assert_eq(strlen(tail), 16 * 1024);
	cr_assert_str_eq(tail, want + strlen(want) - 16 * 1024);
	char *plain = xasprintf("%s/trials/%s/stdout", st, id);
	cr_assert_neq(access(plain, F_OK), 0, "the output is not a file in the trial's directory");
	free(plain);
	/* the whole, raw, read back from the store */
	struct ts_out s;
	cr_assert_eq(show(&s, id, "--output", "stdout"), 0, "%s", s.err);
	cr_assert_eq(s.out_len, strlen(want));
	cr_assert(!memcmp(s.out, want, s.out_len), "the stored stdout is what the command printed");
	ts_out_free(&s);
	cr_assert_eq(show(&s, id, "--output", "stderr"), 0, "%s", s.err);
	cr_assert_str_eq(s.out, "to-stderr\n");
	ts_out_free(&s);
	cr_assert_eq(show(&s, id, "--json", NULL), 0, "%s", s.err);
	cJSON *j = cJSON_Parse(s.out);
	cr_assert_not_null(j);
	cr_assert_str_eq(jx_str(jx_obj(j, "output"), "stdout"), want);
	cr_assert_str_eq(jx_str(jx_obj(j, "output"), "stderr"), "to-stderr\n");
	cJSON_Delete(j);
	ts_out_free(&s);
	cr_assert_eq(show(&s, id, NULL, NULL), 0, "%s", s.err);
	char *line = xasprintf("stdout   %zu byte(s) in the store", strlen(want));
	cr_assert(strstr(s.out, line), "the text show says the output is there: %s", s.out);
	free(line);
	ts_out_free(&s);
	free(want);
	cJSON_Delete(rec);
	ts_out_free(&o);
}

Test(trystore, the_raw_output_is_kept_unscrubbed_and_the_tail_scrubbed)
{
	struct ts_out o;
	cJSON *rec = try_run(&o, NULL, "echo GITHUB_TOKEN=ghp_abcdefghijklmnopqrstuvwxyz0123456789");
	cr_assert_not_null(rec, "%s", o.err);
	cr_assert_null(strstr(jx_str(rec, "stdout_tail"), "ghp_abc"), "the tail is scrubbed: %s", jx_str(rec, "stdout_tail"));
	struct ts_out s;
	cr_assert_eq(show(&s, jx_str(rec, "id"), "--output", "stdout"), 0, "%s", s.err);
	cr_assert_str_eq(s.out, "GITHUB_TOKEN=ghp_abcdefghijklmnopqrstuvwxyz0123456789\n", "the stored output is raw");
	ts_out_free(&s);
	cJSON_Delete(rec);
	ts_out_free(&o);
}

Test(trystore, an_object_removed_behind_belays_back_is_named_never_an_empty_output)
{
	struct ts_out o;
	/* 5.4 MB: a loose object (4 MiB and more), one file of its own */
	cJSON *rec = try_run(&o, NULL, "head -c 4000000 /dev/urandom | base64; echo err >&2");
	cr_assert_not_null(rec, "%s", o.err);
	const char *id = jx_str(rec, "id");
	char *hex = xstrdup(object_of(rec, "stdout"));
	char *loose = xasprintf("%s/objects/loose/%.2s/%s", st, hex, hex + 2);
	cr_assert_eq(access(loose, F_OK), 0, "the large output is a loose object: %s", loose);
	cr_assert_eq(unlink(loose), 0);
	struct ts_out s;
	cr_assert_neq(show(&s, id, "--output", "stdout"), 0, "a missing object fails show");
	cr_assert_eq(s.out_len, 0, "nothing is printed for it");
	cr_assert(strstr(s.err, "TRIAL_OUTPUT_MISSING") && strstr(s.err, hex), "named, with the object: %s", s.err);
	ts_out_free(&s);
	cr_assert_neq(show(&s, id, "--json", NULL), 0);
	cr_assert_null(cJSON_Parse(s.out), "no record with an empty output in its place: %s", s.out);
	cr_assert(strstr(s.err, "TRIAL_OUTPUT_MISSING"), "%s", s.err);
	ts_out_free(&s);
	cr_assert_neq(show(&s, id, NULL, NULL), 0);
	cr_assert(strstr(s.err, "TRIAL_OUTPUT_MISSING"), "%s", s.err);
	ts_out_free(&s);
	/* the other output is still there */
	cr_assert_eq(show(&s, id, "--output", "stderr"), 0, "%s", s.err);
	cr_assert_str_eq(s.out, "err\n");
	ts_out_free(&s);
	/* a small one (in a pack) whose index row is gone */
	const char *ehex = object_of(rec, "stderr");
	char *db = db_path(), *sql = xasprintf("PRAGMA foreign_keys = OFF; DELETE FROM objects WHERE hex(oid) = upper('%s')", ehex);
	struct store *s_db = NULL;
	struct err e = {0};
	cr_assert_eq(store_open(db, &s_db, &e), 0, "%s", e.msg);
	cr_assert_eq(store_exec(s_db, sql, &e), 0, "%s", e.msg);
	store_close(s_db);
	cr_assert_neq(show(&s, id, "--output", "stderr"), 0);
	cr_assert(strstr(s.err, "TRIAL_OUTPUT_MISSING") && strstr(s.err, ehex), "%s", s.err);
	ts_out_free(&s);
	free(sql);
	free(db);
	free(loose);
	free(hex);
	cJSON_Delete(rec);
	ts_out_free(&o);
}

static int gc(void)
{
	const char *argv[] = {BELAY_BIN, "gc", "--state", st, "--grace", "0", NULL};
	struct ts_out o;
	cr_assert_eq(ts_run(argv, NULL, ws, NULL, 0, 120, &o), 0);
	int rc = o.status;
	cr_assert_eq(rc, 0, "%s", o.err);
	ts_out_free(&o);
	return rc;
}

Test(trystore, gc_keeps_a_trials_objects_while_its_directory_exists)
{
	struct ts_out o;
	cJSON *rec = try_run(&o, NULL, "echo kept-by-the-trial-$$; echo and-this >&2");
	cr_assert_not_null(rec, "%s", o.err);
	const char *id = jx_str(rec, "id");
	char *out_hex = xstrdup(object_of(rec, "stdout")), *err_hex = xstrdup(object_of(rec, "stderr"));
	cr_assert_eq(objects_named(out_hex), 1);
	gc();
	cr_assert_eq(objects_named(out_hex), 1, "gc kept the trial's stdout");
	cr_assert_eq(objects_named(err_hex), 1, "and its stderr");
	struct ts_out s;
	cr_assert_eq(show(&s, id, "--output", "stdout"), 0, "%s", s.err);
	cr_assert(!strncmp(s.out, "kept-by-the-trial-", 18), "%s", s.out);
	ts_out_free(&s);
	/* discarded: the record stays, so do they */
	cr_assert_eq(try_sub(&s, "discard", id, NULL), 0, "%s", s.err);
	ts_out_free(&s);
	gc();
	cr_assert_eq(objects_named(out_hex), 1, "a discarded trial's record still has its output");
	/* the trial's directory removed: they may go */
	char *tdir = xasprintf("%s/trials/%s", st, id);
	ts_rmtree(tdir);
	free(tdir);
	gc();
	cr_assert_eq(objects_named(out_hex), 0, "gc took the output of a trial that is gone");
	cr_assert_eq(objects_named(err_hex), 0);
	char *db = db_path();
	cr_assert_eq(ts_sql_int(db, "SELECT count(*) FROM object_refs"), 0, "no reference is left");
	cr_assert_eq(ts_sql_int(db, "SELECT count(*) FROM snapshot_refs WHERE owner_kind = 'trial'"), 0,
		     "nor the pre-state's");
	free(db);
	free(out_hex);
	free(err_hex);
	cJSON_Delete(rec);
	ts_out_free(&o);
}

Test(trystore, the_record_holds_text_diffs_of_changed_and_added_files)
{
	struct ts_out o;
	cJSON *rec = try_run_unchanged(&o, NULL,
				       "printf 'one\\ntwo\\n' > a.txt && printf 'hello\\nworld\\n' > new.txt && "
				       "printf 'x\\000y\\n' > nul.bin && printf 'caf\\351\\n' > latin1.txt && "
				       "printf 'b\\n' > sub/c && rm sub/b && chmod 755 run.sh");
	cr_assert_not_null(rec, "%s", o.err);
	const cJSON *a = try_effect(rec, "a.txt"), *n = try_effect(rec, "new.txt");
	cr_assert_str_eq(jx_str(a, "diff"), "--- a/a.txt\n+++ b/a.txt\n@@ -1,1 +1,2 @@\n one\n+two\n");
	cr_assert(cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(a, "truncated")));
	cr_assert_str_eq(jx_str(n, "diff"), "--- /dev/null\n+++ b/new.txt\n@@ -0,0 +1,2 @@\n+hello\n+world\n");
	/* binary: a NUL byte, invalid UTF-8; no text diff */
	const char *bins[] = {"nul.bin", "latin1.txt"};
	for (int i = 0; i < 2; i++) {
		const cJSON *b = try_effect(rec, bins[i]);
		cr_assert(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(b, "binary")), "%s is binary", bins[i]);
		cr_assert_null(jx_str(b, "diff"), "%s has no text diff", bins[i]);
	}
	/* deletions and mode changes carry none (the pre-state holds the old content) */
	cr_assert_null(jx_str(try_effect(rec, "sub/b"), "diff"));
	cr_assert_null(jx_str(try_effect(rec, "run.sh"), "diff"));
	cr_assert_not_null(jx_str(try_effect(rec, "sub/c"), "diff"));
	/* once the layer is gone, show prints the record's own diffs */
	struct ts_out s;
	cr_assert_eq(try_sub(&s, "discard", jx_str(rec, "id"), NULL), 0, "%s", s.err);
	ts_out_free(&s);
	cr_assert_eq(show(&s, jx_str(rec, "id"), NULL, NULL), 0, "%s", s.err);
	cr_assert(strstr(s.out, "(from the record") && strstr(s.out, "\n  +two\n") && strstr(s.out, "nul.bin (binary)"),
		  "%s", s.out);
	ts_out_free(&s);
	cJSON_Delete(rec);
	ts_out_free(&o);
}

Test(trystore, a_secret_in_a_diff_is_scrubbed)
{
	struct ts_out o;
	cJSON *rec = try_run(&o, NULL,
			     "printf 'API_KEY=s3cr3t-value-0123456789abcdef\\nplain line\\n' > .env && "
			     "printf 'one\\npassword: hunter2-hunter2-hunter2\\n' > a.txt");
	cr_assert_not_null(rec, "%s", o.err);
	const char *env = jx_str(try_effect(rec, ".env"), "diff"), *a = jx_str(try_effect(rec, "a.txt"), "diff");
	cr_assert(env && a, "both have diffs");
	cr_assert_null(strstr(env, "s3cr3t"), "%s", env);
	cr_assert_null(strstr(a, "hunter2"), "%s", a);
	cr_assert(strstr(env, "[REDACTED]") && strstr(env, "+plain line\n"), "scrubbed, the rest kept: %s", env);
	cr_assert(strstr(a, "[REDACTED]"), "%s", a);
	cJSON_Delete(rec);
	ts_out_free(&o);
}

Test(trystore, diffs_are_cut_at_a_line_to_the_per_file_and_the_per_record_bounds)
{
	struct ts_out o;
	/* one file whose diff is ~39 KiB; then 20 files of ~20 KiB each (400 KiB together) */
	cJSON *rec = try_run(&o, NULL,
			     "seq 1 8000 > big.txt && mkdir many && for i in $(seq 10 29); do seq 1 3500 > many/f$i; done");
	cr_assert_not_null(rec, "%s", o.err);
	const cJSON *big = try_effect(rec, "big.txt");
	const char *d = jx_str(big, "diff");
	cr_assert(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(big, "truncated")), "the big diff is cut");
	cr_assert_leq(strlen(d), 16 * 1024);
	cr_assert_gt(strlen(d), 15 * 1024, "to the bound, not far below it");
	cr_assert_eq(d[strlen(d) - 1], '\n', "at a line");
	size_t total = 0;
	int cut = 0, empty = 0;
	const cJSON *eff = cJSON_GetObjectItemCaseSensitive(rec, "effect");
	for (const cJSON *it = eff->child; it; it = it->next) {
		const char *t = jx_str(it, "diff");
		if (!t)
			continue;
		total += strlen(t);
		cut += cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(it, "truncated"));
		empty += !*t;
	}
	cr_assert_leq(total, 256 * 1024, "the record's diffs stay within 256 KiB: %zu", total);
	cr_assert_gt(total, 250 * 1024, "and use it: %zu", total);
	cr_assert_geq(cut, 3, "the files past the record's bound say truncated (%d)", cut);
	cr_assert_geq(empty, 1, "a file past the bound keeps no diff at all");
	/* the whole contents stay reachable: the upper layer's file */
	char *upper = xasprintf("%s/trials/%s/upper/big.txt", st, jx_str(rec, "id"));
	cr_assert_eq(access(upper, R_OK), 0);
	free(upper);
	cJSON_Delete(rec);
	ts_out_free(&o);
}

Test(trystore, the_receipt_covers_the_diffs)
{
	struct ts_out o;
	cJSON *rec = try_run(&o, NULL, "printf 'one\\ntwo\\n' > a.txt");
	cr_assert_not_null(rec, "%s", o.err);
	const char *id = jx_str(rec, "id");
	struct ts_out s;
	cr_assert_eq(show(&s, id, "--json", NULL), 0, "%s", s.err);
	ts_out_free(&s);
	/* the record changed on disk: one character of the diff */
	cr_assert_eq(ts_sh("sed -i 's/+two/+TWO/' %s/trials/%s/record.json && grep -q TWO %s/trials/%s/record.json", st, id,
			   st, id),
		     0);
	cr_assert_neq(show(&s, id, "--json", NULL), 0, "a record whose diff changed is refused");
	cr_assert(strstr(s.err, "receipt"), "%s", s.err);
	ts_out_free(&s);
	cJSON_Delete(rec);
	ts_out_free(&o);
}

Test(trystore, a_record_from_before_the_store_still_shows_its_output)
{
	struct ts_out o;
	cJSON *rec = try_run(&o, NULL, "echo from-an-older-belay");
	cr_assert_not_null(rec, "%s", o.err);
	const char *id = jx_str(rec, "id");
	/* as belay wrote it before: the output a file beside the record, no object */
	char *tdir = xasprintf("%s/trials/%s", st, id), *file = fs_join(tdir, "stdout");
	struct err e = {0};
	cr_assert_eq(fs_write_file_atomic(file, "from-an-older-belay\n", 20, 0600, &e), 0, "%s", e.msg);
	cJSON *so = jx_obj(rec, "stdout");
	cJSON_DeleteItemFromObjectCaseSensitive(so, "object");
	cJSON_AddStringToObject(so, "file", "stdout");
	for (cJSON *it = cJSON_GetObjectItemCaseSensitive(rec, "effect")->child; it; it = it->next)
		cJSON_DeleteItemFromObjectCaseSensitive(it, "diff");
	cr_assert_eq(trial_record_write(tdir, rec, &e), 0, "%s", e.msg);
	struct ts_out s;
	cr_assert_eq(show(&s, id, "--output", "stdout"), 0, "%s", s.err);
	cr_assert_str_eq(s.out, "from-an-older-belay\n");
	ts_out_free(&s);
	cr_assert_eq(unlink(file), 0);
	cr_assert_neq(show(&s, id, "--output", "stdout"), 0, "its file gone: named");
	cr_assert(strstr(s.err, "TRIAL_OUTPUT_MISSING"), "%s", s.err);
	ts_out_free(&s);
	free(file);
	free(tdir);
	cJSON_Delete(rec);
	ts_out_free(&o);
}
