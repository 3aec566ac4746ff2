/* test_measure_shards.c - a batch beyond one machine: N=4 shards (--shard and the Kubernetes
 * and Slurm environments) merged equal one unsharded run line for line; a missing shard is
 * named, overlaps are refused; a portable bundle verifies against a private store with the
 * recording machine's state directory gone, and a missing pre-state is a named cause, never
 * a smaller denominator. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/fsutil.h"
#include "common/jsonx.h"
#include "common/xalloc.h"
#include "ts_belay.h"
#include "tsupport.h"

static char *dir, *state, *db;

static void setup(void)
{
	ts_state_setup("measure-shards", &dir, &state, &db);
}

static void teardown(void)
{
	ts_state_teardown(dir, state, db);
}

TestSuite(measure_shards, .init = setup, .fini = teardown, .timeout = 300);



/* Instance and duplicate lines of a ledger, sorted (the header and end lines say how it was
 * made, not what was measured). */
static char *body_lines(const char *ledger)
{
	char *cmd = xasprintf("grep -v -e '\"kind\":\"header\"' -e '\"kind\":\"end\"' %s | sort > %s.body", ledger, ledger);
	cr_assert_eq(ts_sh("%s", cmd), 0);
	free(cmd);
	char *p = xasprintf("%s.body", ledger);
	size_t n;
	char *s = ts_read_file(p, &n);
	free(p);
	return s;
}

static void run_ok(const char *const *env, const char *batch, const char *ledger, const char *shard, struct ts_out *o)
{
	if (shard)
		ts_belay(o, env, "measure", "run", batch, "--out", ledger, "--state", state, "--no-ingest", "--shard", shard,
			 NULL);
	else
		ts_belay(o, env, "measure", "run", batch, "--out", ledger, "--state", state, "--no-ingest", NULL);
	cr_assert_eq(o->status, 0, "measure run %s: %s%s", shard ? shard : "", o->out, o->err);
}

Test(measure_shards, four_shards_merged_equal_one_unsharded_run_and_a_missing_shard_is_named)
{
	char *batch = fs_join(dir, "batch");
	/* real traces (replayed for real), empty ones, a corrupt one and duplicates across shards */
	char *t = ts_record_demo(dir, ts_read_lines, NULL);
	char *clean = ts_place(t, batch, "trace-c0");
	free(t);
	t = ts_record_demo(dir, NULL, NULL);
	free(ts_place(t, batch, "trace-f0"));
	free(t);
	t = ts_record_demo(dir, ts_read_lines, NULL);
	free(ts_place(t, batch, "trace-c1"));
	free(t);
	for (int i = 0; i < 9; i++) {
		char *p = xasprintf("%s/trace-e%d.jsonl", batch, i);
		char *s = xasprintf("{\"v\":1,\"kind\":\"connection_window\",\"phase\":\"open\",\"writer\":\"belay e%d\",\"seq\":0,"
				    "\"t_in\":\"2026-01-01T00:00:00.000000+00:00\",\"observation_point\":\"proxy\"}\n",
				    i % 6);
		ts_write_file(p, s, strlen(s));
		free(s);
		free(p);
	}
	cr_assert_eq(ts_sh("cp %s %s/trace-zz-copy.jsonl && echo broken > %s/trace-x.jsonl", clean, batch, batch), 0);

	char *whole = fs_join(dir, "whole.jsonl");
	struct ts_out o;
	run_ok(NULL, batch, whole, NULL, &o);
	ts_out_free(&o);
	char *shards[4];
	long sum = 0;
	for (int i = 0; i < 4; i++) {
		shards[i] = xasprintf("%s/shard%d.jsonl", dir, i + 1);
		char spec[8];
		snprintf(spec, sizeof spec, "%d/4", i + 1);
		run_ok(NULL, batch, shards[i], spec, &o);
		cr_assert(strstr(o.err, "shard ") && strstr(o.err, "(from --shard"), "names where the shard came from: %s", o.err);
		long got = 0;
		cr_assert_eq(sscanf(strstr(o.out, "of ") + 3, "%ld", &got), 1, "%s", o.out);
		sum += got;
		ts_out_free(&o);
	}
	cr_assert_eq(sum, 14, "the shards split the 14 traces without overlap or gap");
	char *merged = fs_join(dir, "merged.jsonl"), *whole_m = fs_join(dir, "whole-merged.jsonl");
	ts_belay(&o, NULL, "measure", "merge", shards[0], shards[1], shards[2], shards[3], "--out", merged, NULL);
	cr_assert_eq(o.status, 0, "%s", o.err);
	ts_out_free(&o);
	ts_belay(&o, NULL, "measure", "merge", whole, "--out", whole_m, NULL);
	cr_assert_eq(o.status, 0, "%s", o.err);
	ts_out_free(&o);
	char *a = body_lines(merged), *b = body_lines(whole);
	cr_assert_str_eq(a, b, "merged shards differ from the unsharded run");
	cr_assert(strstr(a, "\"kind\":\"duplicate\""), "duplicates across shards were decided again");
	free(a);
	free(b);
	a = body_lines(whole_m);
	b = body_lines(merged);
	cr_assert_str_eq(a, b);
	free(a);
	free(b);

	/* a missing shard is named, never a smaller denominator */
	char *part = fs_join(dir, "part.jsonl");
	ts_belay(&o, NULL, "measure", "merge", shards[0], shards[2], shards[3], "--out", part, NULL);
	cr_assert_eq(o.status, 2);
	cr_assert(strstr(o.err, "missing shard(s) 2/4"), "%s", o.err);
	cr_assert_neq(access(part, F_OK), 0, "nothing written");
	ts_out_free(&o);
	ts_belay(&o, NULL, "measure", "merge", shards[0], shards[2], shards[3], "--out", part, "--allow-missing", NULL);
	cr_assert_eq(o.status, 0, "%s", o.err);
	cr_assert(strstr(o.out, "MISSING   shard(s) 2/4"), "%s", o.out);
	ts_out_free(&o);
	ts_belay(&o, NULL, "measure", "report", part, NULL);
	cr_assert(strstr(o.out, "INCOMPLETE: missing shard(s) 2/4"), "%s", o.out);
	ts_out_free(&o);
	ts_belay(&o, NULL, "measure", "report", part, "--json", NULL);
	cr_assert(strstr(o.out, "\"complete\":false"), "%s", o.out);
	ts_out_free(&o);
	/* overlaps are refused */
	ts_belay(&o, NULL, "measure", "merge", shards[0], shards[0], shards[1], shards[2], shards[3], "--out", part, NULL);
	cr_assert_eq(o.status, 2);
	cr_assert(strstr(o.err, "given twice"), "%s", o.err);
	ts_out_free(&o);
	ts_belay(&o, NULL, "measure", "merge", shards[0], whole, "--out", part, NULL);
	cr_assert_eq(o.status, 2);
	cr_assert(strstr(o.err, "shard 1 of 1, the others are of 4") || strstr(o.err, "of 4, the others are of 1"), "%s",
		  o.err);
	ts_out_free(&o);
	for (int i = 0; i < 4; i++)
		free(shards[i]);
	free(part);
	free(merged);
	free(whole_m);
	free(whole);
	free(clean);
	free(batch);
}

Test(measure_shards, the_schedulers_environments_pick_the_shard_and_say_so)
{
	char *batch = fs_join(dir, "batch");
	cr_assert_eq(fs_mkdir_p(batch, 0700, NULL), 0);
	char *l1 = fs_join(dir, "k8s.jsonl"), *l2 = fs_join(dir, "slurm.jsonl"), *l3 = fs_join(dir, "bad.jsonl");
	const char *k8s[] = {"JOB_COMPLETION_INDEX=1", "BELAY_SHARD_COUNT=4", NULL};
	const char *slurm[] = {"SLURM_ARRAY_TASK_ID=5", "SLURM_ARRAY_TASK_MIN=3", "SLURM_ARRAY_TASK_STEP=2",
			       "SLURM_ARRAY_TASK_COUNT=4", NULL};
	struct ts_out o;
	run_ok(k8s, batch, l1, NULL, &o);
	cr_assert(strstr(o.err, "shard 2/4 (from Kubernetes Indexed Job (JOB_COMPLETION_INDEX=1, BELAY_SHARD_COUNT=4))"),
		  "%s", o.err);
	ts_out_free(&o);
	run_ok(slurm, batch, l2, NULL, &o);
	cr_assert(strstr(o.err, "shard 2/4 (from Slurm job array"), "%s", o.err);
	ts_out_free(&o);
	size_t n;
	char *s = ts_read_file(l1, &n);
	cr_assert(strstr(s, "\"shard\":{\"index\":2,\"count\":4"), "%s", s);
	free(s);
	/* --shard wins over the environment */
	ts_belay(&o, k8s, "measure", "run", batch, "--out", l3, "--state", state, "--shard", "3/4", NULL);
	cr_assert_eq(o.status, 0, "%s", o.err);
	cr_assert(strstr(o.err, "shard 3/4 (from --shard 3/4)"), "%s", o.err);
	ts_out_free(&o);
	unlink(l3);
	/* half an environment is a named error, nothing measured */
	const char *half[] = {"JOB_COMPLETION_INDEX=1", NULL};
	ts_belay(&o, half, "measure", "run", batch, "--out", l3, "--state", state, NULL);
	cr_assert_eq(o.status, 2);
	cr_assert(strstr(o.err, "BELAY_SHARD_COUNT is not"), "%s", o.err);
	ts_out_free(&o);
	const char *off[] = {"SLURM_ARRAY_TASK_ID=4", "SLURM_ARRAY_TASK_MIN=3", "SLURM_ARRAY_TASK_STEP=2",
			     "SLURM_ARRAY_TASK_COUNT=4", NULL};
	ts_belay(&o, off, "measure", "run", batch, "--out", l3, "--state", state, NULL);
	cr_assert_eq(o.status, 2);
	cr_assert(strstr(o.err, "not on the array's steps"), "%s", o.err);
	ts_out_free(&o);
	ts_belay(&o, NULL, "measure", "run", batch, "--out", l3, "--shard", "5/4", NULL);
	cr_assert_eq(o.status, 2);
	ts_out_free(&o);
	cr_assert_neq(access(l3, F_OK), 0);
	free(l1);
	free(l2);
	free(l3);
	free(batch);
}

static char *line_of(const char *ledger, const char *id)
{
	size_t n;
	char *s = ts_read_file(ledger, &n);
	char *key = xasprintf("\"trace_id\":\"%s\"", id);
	char *found = NULL;
	for (char *line = strtok(s, "\n"); line && !found; line = strtok(NULL, "\n"))
		if (strstr(line, key))
			found = xstrdup(line);
	free(key);
	free(s);
	cr_assert_not_null(found, "%s not in %s", id, ledger);
	return found;
}

Test(measure_shards, a_bundle_verifies_with_the_recording_state_dir_gone_and_a_missing_prestate_is_named)
{
	char *batch = fs_join(dir, "batch"), *bundles = fs_join(dir, "bundles"), *bare = fs_join(dir, "bare");
	char *t = ts_record_demo(dir, NULL, NULL);
	char *trace = ts_place(t, batch, "trace-f0");
	free(t);
	char *here = fs_join(dir, "here.jsonl");
	struct ts_out o;
	run_ok(NULL, batch, here, NULL, &o);
	ts_out_free(&o);
	ts_belay(&o, NULL, "measure", "bundle", trace, "--out", bundles, "--state", state, NULL);
	cr_assert_eq(o.status, 0, "%s", o.err);
	cr_assert(strstr(o.out, "trace-f0.belaytb"), "%s", o.out);
	ts_out_free(&o);
	cr_assert_eq(fs_mkdir_p(bare, 0700, NULL), 0);
	cr_assert_eq(ts_sh("cp %s %s/", trace, bare), 0);
	/* the recording machine's state directory and workspace are gone */
	ts_rmtree(state);
	char *ws = fs_join(dir, "ws");
	ts_rmtree(ws);
	free(ws);

	char *priv = fs_join(dir, "private"), *there = fs_join(dir, "there.jsonl");
	ts_belay(&o, NULL, "measure", "run", bundles, "--out", there, "--state", priv, "--no-ingest", NULL);
	cr_assert_eq(o.status, 0, "%s", o.err);
	ts_out_free(&o);
	char *a = line_of(here, "trace-f0"), *b = line_of(there, "trace-f0");
	cr_assert_str_eq(a, b, "the bundle verifies as the trace did at home");
	cr_assert(strstr(b, "VERIFIED_FLAGGED"), "%s", b);
	free(a);
	free(b);

	/* the bare trace against an empty private store: a named cause, outside the denominator */
	char *empty = fs_join(dir, "empty-state"), *l3 = fs_join(dir, "bare.jsonl");
	ts_belay(&o, NULL, "measure", "run", bare, "--out", l3, "--state", empty, "--no-ingest", NULL);
	cr_assert_eq(o.status, 0, "%s", o.err);
	ts_out_free(&o);
	a = line_of(l3, "trace-f0");
	cr_assert(strstr(a, "\"disposition\":\"ERRORED\"") && strstr(a, "\"error_cause\":\"PRESTATE_NOT_FOUND\""), "%s", a);
	free(a);
	ts_belay(&o, NULL, "measure", "report", l3, NULL);
	cr_assert(strstr(o.out, "ERRORED 1 (PRESTATE_NOT_FOUND 1)"), "%s", o.out);
	ts_out_free(&o);

	/* a damaged bundle is ERRORED by name and adds nothing to the store */
	char *bad = fs_join(dir, "badb");
	cr_assert_eq(fs_mkdir_p(bad, 0700, NULL), 0);
	cr_assert_eq(ts_sh("cp %s/trace-f0.belaytb %s/ && printf 'X' | dd of=%s/trace-f0.belaytb bs=1 seek=2000 conv=notrunc "
			   "2>/dev/null",
			   bundles, bad, bad),
		     0);
	char *fresh = fs_join(dir, "fresh"), *l4 = fs_join(dir, "bad.jsonl");
	ts_belay(&o, NULL, "measure", "run", bad, "--out", l4, "--state", fresh, "--no-ingest", NULL);
	cr_assert_eq(o.status, 0, "%s", o.err);
	ts_out_free(&o);
	a = line_of(l4, "trace-f0");
	cr_assert(strstr(a, "\"error_cause\":\"BUNDLE_INVALID\""), "%s", a);
	free(a);
	char *fdb = fs_join(fresh, "belay.db");
	cr_assert_eq(ts_sql_int(fdb, "SELECT count(*) FROM snapshots"), 0);
	free(fdb);
	free(fresh);
	free(l4);
	free(bad);
	free(empty);
	free(l3);
	free(priv);
	free(there);
	free(here);
	free(trace);
	free(bare);
	free(bundles);
	free(batch);
}

Test(measure_shards, the_slurm_example_runs_as_an_array_and_merges)
{
	char *batch = fs_join(dir, "batch"), *ledgers = fs_join(dir, "ledgers"), *bin = fs_join(dir, "bin");
	char *t = ts_record_demo(dir, ts_read_lines, NULL);
	free(ts_place(t, batch, "trace-c0"));
	free(t);
	t = ts_record_demo(dir, NULL, NULL);
	free(ts_place(t, batch, "trace-f0"));
	free(t);
	/* a stand-in sbatch that runs the merge at once (what Slurm does once the array ended) */
	cr_assert_eq(fs_mkdir_p(bin, 0700, NULL), 0);
	char *sb = fs_join(bin, "sbatch");
	const char *script = "#!/bin/sh\nwhile [ $# -gt 0 ]; do case \"$1\" in --wrap) shift; exec sh -c \"$1\";; esac; shift; done\n";
	ts_write_file(sb, script, strlen(script));
	chmod(sb, 0755);
	char *bdir = xstrdup(BELAY_BIN);
	*strrchr(bdir, '/') = 0;
	char *path = xasprintf("PATH=%s:%s:/usr/bin:/bin", bin, bdir);
	for (int i = 0; i < 4; i++) {
		char id[48];
		snprintf(id, sizeof id, "SLURM_ARRAY_TASK_ID=%d", 10 + 2 * i);
		const char *env[] = {path, id, "SLURM_ARRAY_TASK_MIN=10", "SLURM_ARRAY_TASK_MAX=16", "SLURM_ARRAY_TASK_STEP=2",
				     "SLURM_ARRAY_TASK_COUNT=4", "SLURM_ARRAY_JOB_ID=42", NULL};
		const char *argv[] = {"bash", BELAY_SOURCE_DIR "/docs/examples/slurm-array.sh", batch, ledgers, NULL};
		struct ts_out o;
		ts_run(argv, env, NULL, NULL, 0, 120, &o);
		cr_assert_eq(o.status, 0, "task %d: %s%s", i, o.out, o.err);
		char want[32];
		snprintf(want, sizeof want, "shard %d/4", i + 1);
		cr_assert(strstr(o.err, want), "%s", o.err);
		if (i == 3)
			cr_assert(strstr(o.out, "merged    4 of 4 shard(s)") && strstr(o.out, "headline"), "%s", o.out);
		ts_out_free(&o);
	}
	char *html = fs_join(ledgers, "report.html");
	cr_assert_eq(access(html, R_OK), 0);
	free(html);
	free(path);
	free(bdir);
	free(sb);
	free(bin);
	free(ledgers);
	free(batch);
}

static char *tree_hashes(const char *d)
{
	char *out = xasprintf("%s.hashes", d);
	cr_assert_eq(ts_sh("cd %s && find . -type f -exec sha256sum {} + | sort > %s", d, out), 0);
	size_t n;
	char *s = ts_read_file(out, &n);
	unlink(out);
	free(out);
	return s;
}

Test(measure_shards, a_shared_read_only_store_is_read_and_never_written)
{
	char *batch = fs_join(dir, "batch");
	char *t = ts_record_demo(dir, ts_read_lines, NULL);
	free(ts_place(t, batch, "trace-c0"));
	free(t);
	t = ts_record_demo(dir, NULL, NULL);
	free(ts_place(t, batch, "trace-f0"));
	free(t);
	char *here = fs_join(dir, "here.jsonl");
	struct ts_out o;
	run_ok(NULL, batch, here, NULL, &o);
	ts_out_free(&o);
	char *before = tree_hashes(state);
	cr_assert(strstr(before, "belay.db"), "%s", before);
	char *priv = fs_join(dir, "private"), *there = fs_join(dir, "there.jsonl");
	/* the share really is read-only: a read-only bind mount in a mount namespace of our own */
	cr_assert_eq(ts_sh("unshare -rm sh -c 'mount --bind %s %s && mount -o remount,bind,ro %s && "
			   "exec %s measure run %s --out %s --objects %s --state %s --no-ingest' >%s/ro.out 2>&1",
			   state, state, state, BELAY_BIN, batch, there, state, priv, dir),
		     0, "measure run over a read-only share failed (see ro.out)");
	char *after = tree_hashes(state);
	cr_assert_str_eq(before, after, "the shared store was written (a file added or changed)");
	const char *ids[] = {"trace-c0", "trace-f0"};
	for (int i = 0; i < 2; i++) {
		char *a = line_of(here, ids[i]), *b = line_of(there, ids[i]);
		cr_assert_str_eq(a, b);
		free(a);
		free(b);
	}
	/* a shared store without the pre-states: named, outside the denominator */
	char *empty = fs_join(dir, "empty"), *l2 = fs_join(dir, "l2.jsonl"), *p2 = fs_join(dir, "p2");
	ts_belay(&o, NULL, "corpus", "list", "--state", empty, NULL);
	cr_assert_eq(o.status, 0, "%s", o.err);
	ts_out_free(&o);
	ts_belay(&o, NULL, "measure", "run", batch, "--out", l2, "--objects", empty, "--state", p2, "--no-ingest", NULL);
	cr_assert_eq(o.status, 0, "%s", o.err);
	ts_out_free(&o);
	char *a = line_of(l2, "trace-f0");
	cr_assert(strstr(a, "\"error_cause\":\"PRESTATE_NOT_FOUND\""), "%s", a);
	free(a);
	/* --objects needs a private store */
	ts_belay(&o, NULL, "measure", "run", batch, "--out", l2, "--objects", state, NULL);
	cr_assert_eq(o.status, 2);
	ts_out_free(&o);
	free(empty);
	free(l2);
	free(p2);
	free(before);
	free(after);
	free(priv);
	free(there);
	free(here);
	free(batch);
}
