/* bench_measure.c - what `belay measure run` costs at scale: a batch of generated traces
 * (the demo editor server, real pre-states captured by `belay __script --scope`), measured
 * with -j 1 and -j 2: turns/s, belay's own overhead per turn (a turn's whole time minus its
 * replay session: sandboxed start, server, call) and per trace (reading it, the first full
 * restore of a scratch, cleanup), peak memory, the ledger's cost (bytes per trace, appending,
 * reading and reporting), and the cost of merging 100 shard ledgers.
 *   bench_measure [--traces 1000] [--turns 50] [--files 400] [--belay PATH] [--keep DIR]
 *                 [--no-default-invariants] [--merge-only] [--jobs N] [--pool on|off|both]
 *                 [--settle proof|wait|both]
 * --keep DIR records into DIR once and reuses the traces on later runs. --jobs N measures
 * only -j N (default: 1 and 2). --pool: the batch's scratch pool (verify/scratch_pool.h) on
 * (the default, what `belay measure run` does), off (every trace opens, restores and removes
 * its own scratches: the behaviour before the pool), or both, off then on, with the ratio of
 * belay's own time per turn. --settle: how a replay's quiet window after each reply ends:
 * proof (the default: early, when the server's process tree is proven quiet,
 * sandbox/sandbox_quiet.h), wait (always waited out: the behaviour before), or both, wait
 * then proof, with the ratio. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "common/buf.h"
#include "bench_util.h"
#include "common/fsutil.h"
#include "common/jsonx.h"
#include "common/xalloc.h"
#include "common/xalloc_cjson.h"
#include "measure/batch.h"
#include "measure/ledger.h"
#include "measure/merge.h"
#include "measure/report.h"
#include "verify/policy.h"

static long peak_rss_mib(void)
{
	struct rusage u;
	getrusage(RUSAGE_SELF, &u);
	return u.ru_maxrss / 1024;
}

/* Records trace k: turns alternating read_file and write_file (contents unique per trace). */
static void record(const char *rbelay, const char *demo, const char *dir, const char *ws, const char *st,
		   const char *traces, int k, int turns, int files)
{
	cJSON *steps = bench_editor_steps(turns, files, k);
	char *sp = fs_join(dir, "steps.json");
	char *stext = jx_print(steps);
	struct err e = {0};
	fs_write_file_atomic(sp, stext, strlen(stext), 0644, &e);
	char cmd[8192];
	snprintf(cmd, sizeof cmd, "%s __script %s --scope %s --state %s --trace-dir %s -- %s editor %s >/dev/null", rbelay, sp,
		 ws, st, traces, demo, ws);
	if (system(cmd) != 0) {
		fprintf(stderr, "bench_measure: recording trace %d failed\n", k);
		exit(1);
	}
	cJSON_Delete(steps);
	cJSON_free(stext);
	free(sp);
}

static void progress(void *ctx, const struct measure_progress *p)
{
	(void)ctx;
	if (p->done % 100 == 0 || p->done == p->total)
		fprintf(stderr, "\r  %zu/%zu traces, %.1f turns/s   ", p->done, p->total, p->elapsed_s > 0 ? (double)p->turns / p->elapsed_s : 0);
	if (p->done == p->total)
		fputc('\n', stderr);
}

/* 100 shard ledgers of `per` instance lines each, merged. */
static void bench_merge(const char *dir, int shards, int per)
{
	char **paths = xcalloc((size_t)shards, sizeof *paths);
	const char *inst = "{\"kind\":\"instance\",\"trace_id\":\"trace-%06d\",\"trace_sha256\":\"%064d\","
			   "\"disposition\":\"VERIFIED_CLEAN\",\"turns\":50,\"turn_status_counts\":{\"PASS\":50},"
			   "\"flagged_turns\":[],\"unverified_causes\":{},\"not_covered_turns\":{},\"error\":null,"
			   "\"flagged_addable\":[],\"flagged_unaddable\":[]}\n";
	for (int s = 0; s < shards; s++) {
		struct buf b = {0};
		buf_printf(&b, "{\"kind\":\"header\",\"format\":\"belay-measure-ledger\",\"version\":1,\"detector\":{\"rules\":[],"
			       "\"version\":\"belay bench\"},\"shard\":{\"index\":%d,\"count\":%d,\"source\":\"--shard\"}}\n",
			   s + 1, shards);
		for (int i = 0; i < per; i++)
			buf_printf(&b, inst, s * per + i, s * per + i);
		buf_printf(&b, "{\"kind\":\"end\",\"selected\":%d,\"population\":{\"traces\":%d,\"sha256\":\"x\"}}\n", per,
			   shards * per);
		paths[s] = xasprintf("%s/shard-%03d.jsonl", dir, s + 1);
		struct err e = {0};
		fs_write_file_atomic(paths[s], b.p, b.len, 0600, &e);
		buf_free(&b);
	}
	char *out = fs_join(dir, "merged.jsonl");
	struct merge_result r;
	struct err e = {0};
	double t0 = bench_now_ms();
	int rc = measure_merge(paths, (size_t)shards, out, 0, &r, &e);
	double ms = bench_now_ms() - t0;
	struct stat sb;
	stat(out, &sb);
	printf("merge      %d shard ledgers x %d instances: %.0f ms (%.2f us per line), %s; merged ledger %.1f MB\n", shards, per,
	       ms, ms * 1000 / (shards * per), rc ? e.msg : "ok", (double)sb.st_size / 1e6);
	struct ledger l;
	t0 = bench_now_ms();
	ledger_load(&l, out, 0, &e);
	double load = bench_now_ms() - t0;
	struct buf b = {0};
	t0 = bench_now_ms();
	report_text(&l, NULL, &b);
	double rep = bench_now_ms() - t0;
	printf("           reading it %.0f ms, its report %.0f ms (%zu bytes of text)\n", load, rep, b.len);
	buf_free(&b);
	ledger_free(&l);
	for (int s = 0; s < shards; s++) {
		unlink(paths[s]);
		free(paths[s]);
	}
	free(paths);
	unlink(out);
	free(out);
}

int main(int argc, char **argv)
{
	xalloc_cjson_install();
	int ntraces = 1000, turns = 50, files = 400, merge_only = 0, no_defaults = 0, only_j = 0;
	const char *pool = "on", *settle = "proof";
	const char *belay = "build/belay", *keep = NULL;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--traces") && i + 1 < argc)
			ntraces = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--turns") && i + 1 < argc)
			turns = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--files") && i + 1 < argc)
			files = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--belay") && i + 1 < argc)
			belay = argv[++i];
		else if (!strcmp(argv[i], "--keep") && i + 1 < argc)
			keep = argv[++i];
		else if (!strcmp(argv[i], "--merge-only"))
			merge_only = 1;
		else if (!strcmp(argv[i], "--no-default-invariants"))
			no_defaults = 1;
		else if (!strcmp(argv[i], "--jobs") && i + 1 < argc)
			only_j = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--pool") && i + 1 < argc)
			pool = argv[++i];
		else if (!strcmp(argv[i], "--settle") && i + 1 < argc)
			settle = argv[++i];
	}
	int pool_from = !strcmp(pool, "off") || !strcmp(pool, "both") ? 0 : 1, pool_to = !strcmp(pool, "off") ? 0 : 1;
	/* index 0: waited out, 1: ended on proof */
	int settle_from = !strcmp(settle, "wait") || !strcmp(settle, "both") ? 0 : 1,
	    settle_to = !strcmp(settle, "wait") ? 0 : 1;
	struct err e = {0};
	char *dir = keep ? xstrdup(keep) : fs_mkdtemp_in(fs_scratch_base(), "belay-bench-measure-", &e);
	fs_mkdir_p(dir, 0700, &e);
	if (merge_only) {
		bench_merge(dir, 100, 1000);
		return 0;
	}
	char *rbelay = realpath(belay, NULL);
	if (!rbelay) {
		fprintf(stderr, "bench_measure: %s not found (--belay PATH)\n", belay);
		return 1;
	}
	char demo[4096];
	snprintf(demo, sizeof demo, "%.4000s", rbelay);
	*strrchr(demo, '/') = '\0';
	strcat(demo, "/belay-demo-server");
	char *ws = fs_join(dir, "ws"), *st = fs_join(dir, "state"), *tr = fs_join(dir, "traces");
	struct stat sb;
	int have = stat(tr, &sb) == 0;
	printf("bench_measure: %d traces x %d turns (read_file / write_file alternating), %d-file workspace, demo editor "
	       "server, %s\n",
	       ntraces, turns, files, no_defaults ? "no invariants (A2 only)" : "the default invariants");
	if (!have) {
		bench_make_tree(ws, files);
		double t0 = bench_now_ms();
		for (int k = 0; k < ntraces; k++) {
			record(rbelay, demo, dir, ws, st, tr, k, turns, files);
			if (k % 50 == 49)
				fprintf(stderr, "\r  recorded %d/%d", k + 1, ntraces);
		}
		fprintf(stderr, "\n");
		printf("recording  %.1f s (%.1f ms per trace, pre-state capture included)\n", (bench_now_ms() - t0) / 1e3,
		       (bench_now_ms() - t0) / ntraces);
	}
	double wall[3][2][2] = {{{0}}}, own[3][2][2] = {{{0}}}, own_all[3][2][2] = {{{0}}};
	for (int j = 1; j <= 2; j++) {
		if (only_j && j != only_j)
			continue;
		for (int pooled = pool_from; pooled <= pool_to; pooled++)
		for (int sp = settle_from; sp <= settle_to; sp++) {
			struct policy pol = {0};
			if (!no_defaults)
				policy_add_defaults(&pol);
			char *ledger = xasprintf("%s/ledger-j%d.jsonl", dir, j);
			unlink(ledger);
			char *dirs[] = {tr};
			struct measure_run_opts o = {.dirs = dirs, .ndirs = 1, .policy = &pol, .replays = 3, .jobs = j,
						     .timeout_ms = 20000, .state = st, .ledger = ledger, .no_ingest = 1,
						     .shard = {1, 1, "none"}, .launcher = rbelay, .progress = progress,
						     .fresh_scratch = !pooled, .settle_wait = !sp};
			struct measure_run_result r;
			double t0 = bench_now_ms();
			if (measure_run(&o, &r, &e) != 0) {
				fprintf(stderr, "bench_measure: %s\n", e.msg);
				return 1;
			}
			wall[j][pooled][sp] = bench_now_ms() - t0;
			double own_turn = (r.ms_turns - r.ms_server) / (double)r.turns;
			own[j][pooled][sp] = own_turn;
			double fixed = ((double)j * wall[j][pooled][sp] - r.ms_turns) / (double)r.verified;
			stat(ledger, &sb);
			printf("-j %d %-4s %-5s  %.1f s wall, %.1f turns/s, %zu turns of %zu traces (%zu errored); per turn: whole %.2f ms, "
			       "replay session %.2f ms, belay's own %.2f ms; per trace outside its turns %.1f ms; peak RSS %ld MiB\n",
			       j, pooled ? "pool" : "none", sp ? "proof" : "wait", wall[j][pooled][sp] / 1e3, (double)r.turns / (wall[j][pooled][sp] / 1e3), r.turns,
			       r.verified, r.errored, r.ms_turns / (double)r.turns, r.ms_server / (double)r.turns, own_turn, fixed,
			       peak_rss_mib());
			/* all of belay's work: everything but the servers' (the isolated replays' sessions
			 * and the in-order passes' waits on replies), per turn */
			double all_own = ((double)j * wall[j][pooled][sp] - r.ms_server - r.ms_session_server) / (double)r.turns;
			own_all[j][pooled][sp] = all_own;
			printf("           in-order passes %.2f ms per turn (server %.2f ms, restores and effects %.2f ms); "
			       "belay's own, everything but the servers' work: %.2f ms per turn\n",
			       r.ms_session / (double)r.turns, r.ms_session_server / (double)r.turns,
			       r.ms_session_own / (double)r.turns, all_own);
			printf("           scratch: %lu full restores, %lu moves by delta, %lu task restores, %lu scratches reused\n",
			       r.full_restores, r.partial_restores, r.task_restores, r.scratches_reused);
			printf("           quiet windows after replies: %lu, %lu ended early by proof, %.2f ms each on average\n",
			       r.settles, r.settles_proven, r.settles ? r.ms_settle / (double)r.settles : 0);
			printf("           ledger %.0f bytes per trace (%.2f MB)\n", (double)sb.st_size / (double)r.verified,
			       (double)sb.st_size / 1e6);
			struct ledger l;
			t0 = bench_now_ms();
			ledger_load(&l, ledger, 0, &e);
			double load = bench_now_ms() - t0;
			struct buf b = {0};
			t0 = bench_now_ms();
			cJSON *jr = report_json(&l, NULL);
			double rep = bench_now_ms() - t0;
			printf("           reading the ledger %.1f ms, report --json %.1f ms (violation_rate %s)\n", load, rep,
			       cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(jr, "violation_rate")) ? "null" : "set");
			cJSON_Delete(jr);
			buf_free(&b);
			ledger_free(&l);
			policy_free(&pol);
			free(ledger);
		}
		if (pool_from == 0 && pool_to == 1) {
			double(*o)[2] = own_all[j], (*w)[2] = wall[j];
			int t = settle_to;
			printf("pool       -j %d: belay's own per turn (everything but the servers) %.2f ms without, %.2f ms "
			       "with the pool (%.2fx less); within turns %.2f / %.2f ms; wall %.2fx faster\n",
			       j, o[0][t], o[1][t], o[1][t] > 0 ? o[0][t] / o[1][t] : 0, own[j][0][t], own[j][1][t],
			       w[1][t] > 0 ? w[0][t] / w[1][t] : 0);
		}
		if (settle_from == 0 && settle_to == 1) {
			double *o = own_all[j][pool_to], *w = wall[j][pool_to];
			printf("settle     -j %d: belay's own per turn (everything but the servers) %.2f ms waiting every quiet "
			       "window out, %.2f ms ending it on proof (%.2fx less); wall %.2fx faster\n",
			       j, o[0], o[1], o[1] > 0 ? o[0] / o[1] : 0, w[1] > 0 ? w[0] / w[1] : 0);
		}
	}
	if (!only_j)
		printf("speed-up   -j 2 / -j 1 wall: %.2fx (%.2f of linear)\n",
		       wall[1][pool_to][settle_to] / wall[2][pool_to][settle_to],
		       wall[1][pool_to][settle_to] / wall[2][pool_to][settle_to] / 2);
	bench_merge(dir, 100, 1000);
	if (!keep)
		fs_remove_tree(dir);
	free(ws);
	free(st);
	free(tr);
	free(dir);
	free(rbelay);
	return 0;
}
