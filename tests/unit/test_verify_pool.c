/* test_verify_pool.c - scratch workspaces kept across verify_trace calls (verify/scratch_pool.h)
 * and `measure run`'s use of them, through real sandboxed replays of the demo server:
 *   - a batch verified with a pool gets the same verdicts (statuses, causes, messages) as
 *     without one, on traces of one workspace and of other workspaces and state dirs, and
 *     the restore counters show the reuse (moves by delta, the task pre-state kept);
 *   - a pooled scratch whose state is not known exactly is restored fully, never trusted:
 *     one verify invalidated (a replay that failed after writing into it) and one whose
 *     workspace changed behind its back before it was given back;
 *   - measure_run's ledger is the same line for line with and without its pool. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/buf.h"
#include "common/fsutil.h"
#include "common/jsonx.h"
#include "common/xalloc.h"
#include "measure/batch.h"
#include "snapshot/snapshot.h"
#include "ts_belay.h"
#include "tsupport.h"
#include "verify/policy.h"
#include "verify/scratch_pool.h"
#include "verify/verify.h"


static char *dir, *state, *db;

static void setup(void)
{
	ts_state_setup("vpool", &dir, &state, &db);
	chmod(dir, 0755);
}

static void teardown(void)
{
	ts_state_teardown(dir, state, db);
}

TestSuite(vpool, .init = setup, .fini = teardown, .timeout = 600);

/*==== helpers ====*/

static void verify_with(const char *trace, const char *st, struct scratch_pool *pool, unsigned timeout_ms,
			struct verify_report *r)
{
	static struct policy pol; /* the default invariants, no-assertion-weakening among them */
	if (!pol.n)
		policy_add_defaults(&pol);
	struct verify_opts vo = {.state_dir = st,
				 .policy = &pol,
				 .replays = 3,
				 .jobs = 1,
				 .timeout_ms = timeout_ms ? timeout_ms : 20000,
				 .turn = -1,
				 .launcher = BELAY_BIN,
				 .pool = pool};
	struct err e = {0};
	cr_assert_eq(verify_trace(trace, &vo, r, &e), 0, "%s: %s", trace, e.msg);
}

/* A message with the scratch's random directory name made comparable. */
static char *normalized(const char *s)
{
	struct buf b = {0};
	const char *tag = "belay-verify-";
	for (const char *p = s ? s : ""; *p;) {
		if (!strncmp(p, tag, strlen(tag))) {
			buf_puts(&b, "belay-verify-#");
			p += strlen(tag);
			while (*p && *p != '/' && *p != '"' && *p != ' ')
				p++;
		} else {
			buf_putc(&b, *p++);
		}
	}
	return buf_take(&b);
}

static void same_turn(const struct turn_verdict *a, const struct turn_verdict *b, const char *what)
{
	cr_assert_eq(b->status, a->status, "%s: turn %d is %s with the pool, %s without", what, a->turn,
		     vstatus_name(b->status), vstatus_name(a->status));
	cr_assert_str_eq(b->cause, a->cause, "%s: turn %d's cause", what, a->turn);
	cr_assert_eq(b->nsubs, a->nsubs, "%s: turn %d has %zu sub-verdicts with the pool, %zu without", what, a->turn,
		     b->nsubs, a->nsubs);
	for (size_t i = 0; i < a->nsubs; i++) {
		const struct subverdict *x = &a->subs[i], *y = &b->subs[i];
		char *mx = normalized(x->message), *my = normalized(y->message);
		cr_assert(!strcmp(x->axis, y->axis) && !strcmp(x->kind, y->kind) && x->status == y->status &&
			      !strcmp(x->cause, y->cause) && !strcmp(mx, my),
			  "%s: turn %d, sub-verdict %zu: %s %s %s %s \"%s\" with the pool, %s %s %s %s \"%s\" without", what,
			  a->turn, i, y->axis, y->kind, vstatus_name(y->status), y->cause, my, x->axis, x->kind,
			  vstatus_name(x->status), x->cause, mx);
		free(mx);
		free(my);
	}
}

static void same_verdicts(const struct verify_report *a, const struct verify_report *b, const char *what)
{
	cr_assert_eq(b->n, a->n, "%s: %zu turns with the pool, %zu without", what, b->n, a->n);
	for (size_t k = 0; k < a->n; k++)
		same_turn(&a->turns[k], &b->turns[k], what);
	cr_assert_eq(b->has_trajectory, a->has_trajectory, "%s: trajectory", what);
	if (a->has_trajectory)
		same_turn(&a->trajectory, &b->trajectory, what);
	cr_assert_eq(b->worst, a->worst, "%s: worst", what);
}

static size_t count_status(const struct verify_report *r, enum vstatus s)
{
	size_t n = 0;
	for (size_t k = 0; k < r->n; k++)
		n += r->turns[k].status == s;
	return n;
}

/* Records `steps` (a __script step list) against the demo server's shell tools in <d>/ws
 * with the store <d>/<st>; the trace path (new string). */
static char *record_shell(const char *d, const char *st, const char *steps)
{
	char *ws = fs_join(d, "ws"), *stp = fs_join(d, st), *traces = fs_join(d, "traces");
	cr_assert_eq(fs_mkdir_p(ws, 0755, NULL), 0);
	char *trace = ts_record_script(d, steps, stp, traces, ws, "30", NULL, "shell");
	free(ws);
	free(stp);
	free(traces);
	return trace;
}

#define RUN(cmd) ",{\"call\":\"run_process\",\"args\":{\"command_line\":\"" cmd "\"}}"

/*==== verdicts and reuse ====*/

Test(vpool, traces_of_one_workspace_get_the_same_verdicts_and_move_by_delta)
{
	/* two sessions of the same workspace: read, weaken an assertion (A1 FAIL), run tests,
	 * a read-only tool that writes (A2 FAIL), an unknown tool */
	char *a = ts_record_demo(dir, NULL, NULL);
	char *b = ts_record_demo(dir, NULL, NULL);
	struct verify_report ra, rb, pa, pb, pa2;
	verify_with(a, state, NULL, 0, &ra);
	verify_with(b, state, NULL, 0, &rb);
	cr_assert_geq(count_status(&ra, V_FAIL), 1, "the demo session has lies: the comparison must cover FAILs");
	cr_assert_geq(ra.full_restores, 1, "without a pool every trace restores its first pre-state fully");
	cr_assert_eq(ra.task_restores, 1, "the task pre-state is restored once per trace without a pool");
	cr_assert_eq(ra.scratches_reused, 0);

	struct scratch_pool *pool = scratch_pool_new(4);
	verify_with(a, state, pool, 0, &pa);
	verify_with(b, state, pool, 0, &pb);
	verify_with(a, state, pool, 0, &pa2);
	same_verdicts(&ra, &pa, "trace a, first in the pool");
	same_verdicts(&rb, &pb, "trace b, after a");
	same_verdicts(&ra, &pa2, "trace a, after b");
	cr_assert_eq(pa.scratches_reused, 0, "the pool starts empty");
	cr_assert_eq(pb.scratches_reused, 1, "b takes the scratch a gave back");
	cr_assert_eq(pb.full_restores + 1, rb.full_restores,
		     "b's scratch moved from a's last state by delta: one full restore fewer (%lu with the pool, %lu without)",
		     pb.full_restores, rb.full_restores);
	cr_assert_geq(pb.partial_restores, 1);
	cr_assert_eq(pb.task_restores, 1, "b's turn-0 pre-state is another capture: its task tree is restored");
	cr_assert_eq(pa2.full_restores + 1, ra.full_restores);
	cr_assert_eq(pa2.task_restores, 1, "a after b: b's task tree is replaced by a's");
	struct verify_report pa3;
	verify_with(a, state, pool, 0, &pa3);
	same_verdicts(&ra, &pa3, "trace a, twice in a row");
	cr_assert_eq(pa3.task_restores, 0, "the same turn-0 pre-state: the task tree is kept");
	cr_assert_eq(pa3.full_restores + 1, ra.full_restores);
	struct scratch_pool_stats s;
	scratch_pool_stats(pool, &s);
	cr_assert_eq(s.opened, 1, "one workspace path, one verify worker: one scratch (%lu opened)", s.opened);
	cr_assert_eq(s.reused, 3);
	scratch_pool_close(pool);
	verify_report_free(&ra);
	verify_report_free(&rb);
	verify_report_free(&pa);
	verify_report_free(&pb);
	verify_report_free(&pa2);
	verify_report_free(&pa3);
	free(a);
	free(b);
}

Test(vpool, other_workspaces_and_other_state_dirs_get_the_same_verdicts)
{
	/* a: <dir>/ws in <dir>/state-a; b: the same workspace path in another store (<dir>/state,
	 * which does not know a's snapshots); c: another workspace path (<dir>/other/ws) */
	char *a0 = ts_record_demo(dir, ts_read_lines, NULL);
	char *sa = fs_join(dir, "state-a");
	cr_assert_eq(rename(state, sa), 0);
	char *b = ts_record_demo(dir, NULL, NULL);
	char *other = fs_join(dir, "other");
	cr_assert_eq(fs_mkdir_p(other, 0755, NULL), 0);
	char *c = ts_record_demo(other, NULL, NULL);
	char *sc = fs_join(other, "state");
	const char *a = a0;
	struct verify_report ra, rb, rc, pa, pb, pc, pb2;
	verify_with(a, sa, NULL, 0, &ra);
	verify_with(b, state, NULL, 0, &rb);
	verify_with(c, sc, NULL, 0, &rc);
	cr_assert_eq(count_status(&ra, V_PASS), ra.n, "the read-only session passes");

	struct scratch_pool *pool = scratch_pool_new(4);
	verify_with(a, sa, pool, 0, &pa);
	verify_with(b, state, pool, 0, &pb);
	verify_with(c, sc, pool, 0, &pc);
	verify_with(b, state, pool, 0, &pb2);
	same_verdicts(&ra, &pa, "trace a");
	same_verdicts(&rb, &pb, "trace b (another store, after a)");
	same_verdicts(&rc, &pc, "trace c (another workspace path)");
	same_verdicts(&rb, &pb2, "trace b after c");
	cr_assert_eq(pb.scratches_reused, 1, "b has a's workspace path: it takes a's scratch");
	cr_assert_eq(pb.full_restores, rb.full_restores,
		     "b's store does not know what a's scratch holds: a full restore, as without the pool (%lu, %lu)",
		     pb.full_restores, rb.full_restores);
	cr_assert_eq(pc.scratches_reused, 0, "c's workspace path is another: a scratch of its own");
	cr_assert_eq(pb2.scratches_reused, 1);
	cr_assert_eq(pb2.full_restores + 1, rb.full_restores, "b again: a's scratch, now b's, moved by delta");
	struct scratch_pool_stats s;
	scratch_pool_stats(pool, &s);
	cr_assert_eq(s.opened, 2, "%lu scratches opened for two workspace paths", s.opened);
	scratch_pool_close(pool);
	verify_report_free(&ra);
	verify_report_free(&rb);
	verify_report_free(&rc);
	verify_report_free(&pa);
	verify_report_free(&pb);
	verify_report_free(&pc);
	verify_report_free(&pb2);
	free(a0);
	free(b);
	free(c);
	free(sa);
	free(sc);
	free(other);
}

/*==== invalidated scratches ====*/

/* The first state handle of a trace. */
static char *first_handle(const char *trace)
{
	size_t n;
	char *s = ts_read_file(trace, &n);
	cr_assert_not_null(s);
	char *h = NULL;
	for (char *line = strtok(s, "\n"); line && !h; line = strtok(NULL, "\n")) {
		cJSON *o = cJSON_Parse(line);
		const cJSON *sh = cJSON_GetObjectItemCaseSensitive(o, "state_handle");
		if (jx_str(sh, "handle"))
			h = xstrdup(jx_str(sh, "handle"));
		cJSON_Delete(o);
	}
	free(s);
	cr_assert_not_null(h, "%s has no pre-state", trace);
	return h;
}

Test(vpool, a_scratch_holding_a_snapshot_the_store_does_not_know_is_not_trusted)
{
	/* Trace a verified against its own store leaves a scratch holding a's pre-states; the
	 * same trace verified against another store (which has none of them) must get what it
	 * gets without the pool - PRESTATE_NOT_FOUND - not a PASS from what the scratch holds. */
	char *a = ts_record_demo(dir, ts_read_lines, NULL);
	char *sa = fs_join(dir, "state-a");
	cr_assert_eq(rename(state, sa), 0);
	free(ts_record_demo(dir, NULL, NULL)); /* another store at <dir>/state */
	struct verify_report plain, pa, pooled;
	verify_with(a, state, NULL, 0, &plain);
	struct scratch_pool *pool = scratch_pool_new(4);
	verify_with(a, sa, pool, 0, &pa);
	verify_with(a, state, pool, 0, &pooled);
	cr_assert_eq(count_status(&pa, V_PASS), pa.n, "a passes against its own store");
	cr_assert_eq(count_status(&plain, V_PASS), 0, "a's pre-states are not in the other store");
	same_verdicts(&plain, &pooled, "trace a against another store, after its own");
	scratch_pool_close(pool);
	verify_report_free(&plain);
	verify_report_free(&pa);
	verify_report_free(&pooled);
	free(sa);
	free(a);
}

Test(vpool, a_scratch_changed_behind_its_back_is_restored_fully)
{
	char *t = ts_record_demo(dir, ts_read_lines, NULL);
	char *h = first_handle(t);
	char *ws = fs_join(dir, "ws");
	struct snap_store *st;
	struct err e = {0};
	cr_assert_eq(snap_store_open(state, NULL, &st, &e), 0, "%s", e.msg);
	struct scratch_pool *pool = scratch_pool_new(4);
	struct scratch sc;
	int reused, full;
	cr_assert_eq(scratch_pool_take(pool, ws, &sc, &reused, &e), 0, "%s", e.msg);
	cr_assert_eq(reused, 0);
	cr_assert_eq(scratch_prepare(&sc, st, h, &full, &e), 0, "%s", e.msg);
	cr_assert_eq(full, 1);
	scratch_pool_give(pool, &sc);
	/* control: given back untouched, it still holds h */
	cr_assert_eq(scratch_pool_take(pool, ws, &sc, &reused, &e), 0, "%s", e.msg);
	cr_assert_eq(reused, 1);
	cr_assert_eq(scratch_prepare(&sc, st, h, &full, &e), 0, "%s", e.msg);
	cr_assert_eq(full, 0, "an untouched scratch moves by delta");
	/* a straggler writes into the workspace after the last effect was taken */
	char *stray = fs_join(sc.ws, "stray.txt");
	ts_write_file(stray, "late\n", 5);
	scratch_pool_give(pool, &sc);
	cr_assert_eq(scratch_pool_take(pool, ws, &sc, &reused, &e), 0, "%s", e.msg);
	cr_assert_eq(reused, 1);
	cr_assert_null(sc.handle, "a scratch whose workspace changed unobserved must not claim to hold a snapshot");
	cr_assert_eq(scratch_prepare(&sc, st, h, &full, &e), 0, "%s", e.msg);
	cr_assert_eq(full, 1, "it is restored fully");
	free(stray);
	stray = fs_join(sc.ws, "stray.txt");
	struct stat sb;
	cr_assert_neq(lstat(stray, &sb), 0, "the straggler's file survived the restore");
	/* another workspace path never gets this scratch */
	struct scratch sc2;
	scratch_pool_give(pool, &sc);
	cr_assert_eq(scratch_pool_take(pool, "/some/other/ws", &sc2, &reused, &e), 0, "%s", e.msg);
	cr_assert_eq(reused, 0);
	cr_assert(strstr(sc2.ws, "/some/other/ws") != NULL, "%s", sc2.ws);
	scratch_pool_give(pool, &sc2);
	struct scratch_pool_stats s;
	scratch_pool_stats(pool, &s);
	cr_assert_eq(s.dropped, 1);
	cr_assert_eq(s.opened, 2);
	char *root = xstrdup(sc2.root ? sc2.root : "");
	cr_assert_eq(scratch_pool_take(pool, "/some/other/ws", &sc2, &reused, &e), 0, "%s", e.msg);
	free(root);
	root = xstrdup(sc2.root);
	scratch_pool_give(pool, &sc2);
	scratch_pool_close(pool);
	cr_assert_neq(lstat(root, &sb), 0, "closing the pool must remove the scratches it keeps (%s)", root);
	free(root);
	snap_store_close(st);
	free(stray);
	free(ws);
	free(h);
	free(t);
}

/* Turn 1 writes a file with a name of its own each run, then outlasts the replay's timeout:
 * the replay fails after changing the scratch, its effect is never taken, and verify
 * invalidates the scratch. The next trace lists the workspace. */
static const char stray_steps[] =
	"[{\"initialize\":{}},{\"list\":true}" RUN("cat a.txt") RUN("echo x > stray_$(date +%N) && sleep 12") "]";
static const char list_steps[] = "[{\"initialize\":{}},{\"list\":true}" RUN("ls") RUN("cat a.txt") "]";

Test(vpool, a_scratch_verify_invalidated_is_restored_fully_by_the_next_trace)
{
	char *ws = fs_join(dir, "ws");
	cr_assert_eq(ts_sh("mkdir -p %s && echo a > %s/a.txt", ws, ws), 0);
	char *t1 = record_shell(dir, "state", stray_steps);
	cr_assert_eq(ts_sh("rm -f %s/stray_*", ws), 0); /* the next session starts without it */
	char *t2 = record_shell(dir, "state", list_steps);
	struct verify_report r1, r2, p1, p2;
	/* a timeout far over a quick reply and far under the sleep */
	verify_with(t1, state, NULL, 6000, &r1);
	verify_with(t2, state, NULL, 6000, &r2);
	cr_assert_eq(r1.turns[1].status, V_UNVERIFIED, "the sleeping turn cannot be replayed in time (%s)",
		     vstatus_name(r1.turns[1].status));
	cr_assert_eq(count_status(&r2, V_PASS), r2.n, "the listing reproduces (%s: %s)", vstatus_name(r2.worst),
		     r2.turns[0].cause);
	struct scratch_pool *pool = scratch_pool_new(4);
	verify_with(t1, state, pool, 6000, &p1);
	verify_with(t2, state, pool, 6000, &p2);
	same_verdicts(&r1, &p1, "the trace whose last replay failed");
	same_verdicts(&r2, &p2, "the trace after it");
	cr_assert_eq(p2.scratches_reused, 1);
	/* verify invalidated it itself (the failed replay), so the pool's own check at give
	 * back (the stray file's events) found nothing held to drop: each layer on its own */
	struct scratch_pool_stats s;
	scratch_pool_stats(pool, &s);
	cr_assert_eq(s.dropped, 0, "verify gave back a scratch that still claimed to hold a snapshot after a failed replay");
	cr_assert_eq(p2.full_restores, r2.full_restores,
		     "the invalidated scratch must be restored fully, not trusted (%lu full restores, %lu without the pool)",
		     p2.full_restores, r2.full_restores);
	scratch_pool_close(pool);
	verify_report_free(&r1);
	verify_report_free(&r2);
	verify_report_free(&p1);
	verify_report_free(&p2);
	free(t1);
	free(t2);
	free(ws);
}

/*==== measure run ====*/

static char *ledger_text(const char *path)
{
	size_t n;
	char *s = ts_read_file(path, &n);
	cr_assert_not_null(s, "no ledger %s", path);
	return s;
}

Test(vpool, measure_run_writes_the_same_ledger_with_and_without_its_pool)
{
	char *batch = fs_join(dir, "batch");
	for (int i = 0; i < 3; i++) {
		char *t = ts_record_demo(dir, i == 1 ? ts_read_lines : NULL, NULL);
		char name[16];
		snprintf(name, sizeof name, "t%d", i);
		free(ts_place(t, batch, name));
		free(t);
	}
	struct policy pol = {0};
	policy_add_defaults(&pol);
	char *dirs[] = {batch};
	char *ledger[2];
	struct measure_run_result r[2];
	for (int pooled = 0; pooled < 2; pooled++) {
		ledger[pooled] = xasprintf("%s/ledger-%d.jsonl", dir, pooled);
		struct measure_run_opts o = {.dirs = dirs,
					     .ndirs = 1,
					     .policy = &pol,
					     .replays = 3,
					     .jobs = 1,
					     .timeout_ms = 20000,
					     .state = state,
					     .ledger = ledger[pooled],
					     .no_ingest = 1,
					     .shard = {1, 1, "none"},
					     .launcher = BELAY_BIN,
					     .fresh_scratch = !pooled};
		struct err e = {0};
		cr_assert_eq(measure_run(&o, &r[pooled], &e), 0, "%s", e.msg);
		cr_assert_eq(r[pooled].verified, 3);
		cr_assert_eq(r[pooled].errored, 0);
	}
	char *x = ledger_text(ledger[0]), *y = ledger_text(ledger[1]);
	cr_assert_str_eq(y, x, "the ledgers differ");
	cr_assert_eq(r[0].scratches_reused, 0);
	cr_assert_geq(r[0].full_restores, 3, "without the pool each trace restores fully");
	/* t0 and t2 weaken a Python test (the task tree is needed); t1 only reads: no Python file
	 * in scope changed, so its task tree is never restored */
	cr_assert_eq(r[0].task_restores, 2, "%lu task restores", r[0].task_restores);
	cr_assert_eq(r[1].scratches_reused, 2, "the second and third trace reuse the first's scratch");
	cr_assert_eq(r[1].full_restores, r[0].full_restores - 2, "the pool saves one full restore per reused trace (%lu vs %lu)",
		     r[1].full_restores, r[0].full_restores);
	free(x);
	free(y);
	free(ledger[0]);
	free(ledger[1]);
	policy_free(&pol);
	free(batch);
}

Test(vpool, the_pool_keeps_at_most_its_limit_and_removes_the_oldest)
{
	struct scratch_pool *pool = scratch_pool_new(1);
	struct scratch x, y;
	int reused;
	struct err e = {0};
	cr_assert_eq(scratch_pool_take(pool, "/w/x", &x, &reused, &e), 0, "%s", e.msg);
	cr_assert_eq(scratch_pool_take(pool, "/w/y", &y, &reused, &e), 0, "%s", e.msg);
	char *rx = xstrdup(x.root), *ry = xstrdup(y.root);
	scratch_pool_give(pool, &x);
	scratch_pool_give(pool, &y); /* over the limit: x, given back first, goes */
	struct stat sb;
	cr_assert_neq(lstat(rx, &sb), 0, "the oldest kept scratch must be removed (%s)", rx);
	cr_assert_eq(lstat(ry, &sb), 0, "the newest is kept");
	cr_assert_eq(scratch_pool_take(pool, "/w/x", &x, &reused, &e), 0, "%s", e.msg);
	cr_assert_eq(reused, 0, "x's scratch was removed: a new one");
	scratch_pool_give(pool, &x);
	struct scratch_pool_stats s;
	scratch_pool_stats(pool, &s);
	cr_assert_eq(s.evicted, 2);
	cr_assert_eq(s.opened, 3);
	scratch_pool_close(pool);
	cr_assert_neq(lstat(ry, &sb), 0);
	free(rx);
	free(ry);
}
