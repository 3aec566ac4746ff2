/* test_verify_dirty.c - verify's incremental machinery end to end, through real sandboxed
 * replays: a recorded run of a shell tool with a varied workload (files, directories moved
 * and nested, writes through a hardlink, new hardlinks and symlinks, chmod with special bits,
 * xattrs, rm -rf, a directory removed and recreated, a shared mmap write, renames through
 * the temp dir, a relative path with "..") is verified with effects from the full diff,
 * from the dirty set (supervisor + inotify), from the supervisor's write intents alone and
 * from inotify alone, with -j 1 and -j 2. Every turn's effect must be the same in every
 * mode, and after every incremental move the scratch must hash as the pre-state does
 * (check_scratch), turn after turn. */
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
#include "ts_belay.h"
#include "tsupport.h"
#include "verify/policy.h"
#include "verify/verify.h"


static char *dir, *ws, *state, *traces;

static void setup(void)
{
	dir = ts_tmpdir("vdirty");
	chmod(dir, 0755);
	ws = fs_join(dir, "ws");
	state = fs_join(dir, "state");
	traces = fs_join(dir, "traces");
	cr_assert_eq(ts_sh("mkdir -p %s/src/deep/er %s/tests %s/sub && cd %s && echo 'def f(): return 1' > src/m.py && "
			   "echo leaf > src/deep/er/leaf.txt && echo t > tests/test_m.py && echo shared > h1 && "
			   "ln h1 sub/h2 && ln -s h1 link && echo plain > x.txt && "
			   "python3 -c 'import os; os.setxattr(\"x.txt\", \"user.a\", b\"1\")' && echo ro > ro.txt && "
			   "chmod 0444 ro.txt && printf 'abcdefgh' > mm.bin",
			   ws, ws, ws, ws),
		     0);
}

static void teardown(void)
{
	ts_rmtree(dir);
	free(dir);
	free(ws);
	free(state);
	free(traces);
}

TestSuite(vdirty, .init = setup, .fini = teardown, .timeout = 600);

#define RUN(cmd) ",{\"call\":\"run_process\",\"args\":{\"command_line\":\"" cmd "\"}}"

/* The workload: one shell command line per turn (JSON-escaped). */
static const char steps[] =
	"[{\"initialize\":{}},{\"list\":true}"
	RUN("echo new > added.txt && mkdir -p d1/d2 && echo x > d1/d2/f")
	RUN("mv d1 moved && mv moved/d2 moved/d3 && mv src/deep src/shallow")
	RUN("echo more >> h1")
	RUN("ln -s ../added.txt moved/sym && ln -sf x.txt link")
	RUN("ln h1 h3 && echo via-new-link >> h3")
	RUN("chmod 4755 added.txt && chmod 1777 moved && chmod 0600 ro.txt")
	RUN("python3 -c 'import os; os.setxattr(\\\"added.txt\\\", \\\"user.k\\\", b\\\"v\\\"); "
	    "os.removexattr(\\\"x.txt\\\", \\\"user.a\\\")'")
	RUN("rm -rf moved && mkdir moved && echo again > moved/f")
	RUN("rm -rf src tests")
	RUN("touch -d 2001-01-01 x.txt && truncate -s 3 added.txt")
	RUN("python3 -c 'import mmap, os; fd = os.open(\\\"mm.bin\\\", os.O_RDWR); m = mmap.mmap(fd, 0); "
	    "os.close(fd); m[0:2] = b\\\"ZZ\\\"; m.flush()'")
	RUN("cd sub && echo up > ../up.txt && rm h2")
	RUN("echo t > $TMPDIR/t && mv $TMPDIR/t intree.txt && mv x.txt $TMPDIR/gone")
	RUN("mkdir -p a/b/c && echo 1 > a/b/c/f && mv a z && rm -rf z/b/c")
	RUN("cat added.txt > /dev/null")
	/* What a replay does differently from the recording must be undone: names that differ
	 * every run (and replies that do: the nondeterminism check replays this turn again). */
	RUN("n=$(date +%N); echo $n > r_$n && mkdir -p rd_$n/x && echo $n > rd_$n/x/f && echo $n >> up.txt")
	RUN("echo after > after.txt")
	RUN("n=$(date +%N); mkdir -p q/$n && ln -s q/$n ql_$n && rm -rf rd_* && mv up.txt up_$n.txt")
	RUN("ls -la > listing.txt")
	"]";

static char *record(void)
{
	const char *const extra[] = {"--network", "deny", NULL};
	return ts_record_script(dir, steps, state, traces, ws, "10", extra, "shell");
}

struct run {
	char **effects; /* per turn: the effect as JSON text ("null" when none) */
	const char **via;
	size_t n;
	struct verify_report r;
};

static void verify(const char *trace, int jobs, int full_diff, unsigned sources, struct run *out)
{
	struct policy pol = {0};
	struct verify_opts vo = {.state_dir = state,
				 .policy = &pol,
				 .replays = 3,
				 .jobs = jobs,
				 .timeout_ms = 20000,
				 .turn = -1,
				 .launcher = BELAY_BIN,
				 .full_diff = full_diff,
				 .dirty_sources = sources,
				 .check_scratch = 1};
	struct err e = {0};
	cr_assert_eq(verify_trace(trace, &vo, &out->r, &e), 0, "%s", e.msg);
	out->n = out->r.n;
	out->effects = xcalloc(out->n + 1, sizeof *out->effects);
	out->via = xcalloc(out->n + 1, sizeof *out->via);
	for (size_t i = 0; i < out->n; i++) {
		const struct turn_verdict *v = &out->r.turns[i];
		cr_assert(v->replayed, "turn %zu was not replayed (%s)", i, v->cause);
		out->effects[i] = v->effect ? jx_print(v->effect) : xstrdup("null");
		out->via[i] = v->effect_via;
	}
	cr_assert_eq(out->r.scratch_mismatches, 0, "an incrementally prepared scratch differed from its pre-state");
}

static void run_free(struct run *r)
{
	for (size_t i = 0; i < r->n; i++)
		free(r->effects[i]);
	free(r->effects);
	free(r->via);
	verify_report_free(&r->r);
}

static size_t count_via(const struct run *r, const char *via)
{
	size_t n = 0;
	for (size_t i = 0; i < r->n; i++)
		n += r->via[i] && !strcmp(r->via[i], via);
	return n;
}

/* An effect with the run-specific names (runs of 6+ digits: $(date +%N)) made comparable. */
static char *normalized(const char *s)
{
	struct buf b = {0};
	for (const char *p = s; *p;) {
		size_t d = strspn(p, "0123456789");
		if (d >= 6) {
			buf_putc(&b, '#');
			p += d;
		} else if (d) {
			buf_append(&b, p, d);
			p += d;
		} else {
			buf_putc(&b, *p++);
		}
	}
	return buf_take(&b);
}

static void same_effects(const struct run *a, const struct run *b, const char *what)
{
	cr_assert_eq(a->n, b->n);
	for (size_t i = 0; i < a->n; i++) {
		char *x = normalized(a->effects[i]), *y = normalized(b->effects[i]);
		cr_assert_str_eq(y, x, "turn %zu: %s effect differs from the full diff", i, what);
		free(x);
		free(y);
	}
}

Test(vdirty, dirty_set_effects_equal_full_diff_effects_on_a_varied_workload)
{
	char *trace = record();
	struct run full, both, sup, ino, both2;
	verify(trace, 1, 1, 0, &full);
	cr_assert_eq(count_via(&full, "full_diff"), full.n);
	cr_assert_geq(full.n, 19);
	/* the workload really changes things */
	size_t changed = 0;
	for (size_t i = 0; i < full.n; i++)
		changed += strcmp(full.effects[i], "[]") != 0;
	cr_assert_geq(changed, 12, "the workload must change the workspace in most turns");

	verify(trace, 1, 0, 0, &both);
	same_effects(&full, &both, "dirty-set");
	/* Only the turn that made a hard link needs the full diff. */
	cr_assert_geq(count_via(&both, "dirty_set"), both.n - 2, "the dirty set was used for most turns");
	cr_assert_geq(both.r.partial_restores, both.n - 1, "the scratch moved by undo + delta");
	cr_assert_leq(both.r.full_restores, 2);

	verify(trace, 1, 0, VERIFY_DIRTY_SUPERVISOR, &sup);
	same_effects(&full, &sup, "supervisor-only");
	verify(trace, 1, 0, VERIFY_DIRTY_INOTIFY, &ino);
	same_effects(&full, &ino, "inotify-only");
	cr_assert_geq(count_via(&sup, "dirty_set"), sup.n - 2);
	cr_assert_geq(count_via(&ino, "dirty_set"), ino.n - 2);

	verify(trace, 2, 0, 0, &both2);
	same_effects(&full, &both2, "-j 2 dirty-set");

	run_free(&full);
	run_free(&both);
	run_free(&sup);
	run_free(&ino);
	run_free(&both2);
	free(trace);
}
