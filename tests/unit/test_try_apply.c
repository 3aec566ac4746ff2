/* test_try_apply.c - belay try apply / discard, and what a killed trial leaves: an applied
 * effect makes the workspace what the command made of the mirror (setuid/setgid dropped),
 * and `belay recover` on the apply trace undoes it; a change made in between is refused by
 * name, touching nothing; a FIFO is refused; a discarded trial cannot be applied and its
 * layers are gone; kill -9 during a trial leaves nothing behind after the next run. */
#include <signal.h>
#include <sys/wait.h>

#include "try_harness.h"

TestSuite(try_apply, .init = try_setup, .fini = try_teardown, .timeout = 180);

static char *trial(const char *script)
{
	struct ts_out o;
	cJSON *rec = try_run(&o, NULL, script);
	cr_assert_not_null(rec, "%s", o.err);
	cr_assert_str_eq(jx_str(rec, "status"), "done", "%s", o.out);
	char *id = xstrdup(jx_str(rec, "id"));
	cJSON_Delete(rec);
	ts_out_free(&o);
	return id;
}

static char *content(const char *rel)
{
	char *p = fs_join(ws, rel);
	size_t n;
	char *c = ts_read_file(p, &n);
	free(p);
	return c;
}

static unsigned mode_of(const char *rel)
{
	char *p = fs_join(ws, rel);
	struct stat sb;
	cr_assert_eq(lstat(p, &sb), 0, "%s exists", rel);
	free(p);
	return (unsigned)(sb.st_mode & 07777);
}

Test(try_apply, apply_makes_the_effect_real_and_recover_undoes_it)
{
	char *before = try_tree_hash();
	char *id = trial("mkdir -p build && printf 'obj\\n' > build/x.o && rm a.txt && chmod 4755 run.sh"
			 " && printf 'more\\n' >> sub/b && ln -s /etc/hostname link");
	struct ts_out o;
	/* the link leaves the workspace: applied only when named */
	const char *argv_apply[] = {BELAY_BIN, "try", "apply", id, "--state", st, "--yes", "--allow-link", "link", NULL};
	const char *env_apply[] = {tmpbase, NULL};
	cr_assert_eq(ts_run(argv_apply, env_apply, ws, NULL, 0, 120, &o), 0);
	cr_assert_eq(o.status, 0, "%s%s", o.out, o.err);
	char *x = content("build/x.o"), *b = content("sub/b"), *a = fs_join(ws, "a.txt");
	cr_assert_str_eq(x, "obj\n");
	cr_assert_str_eq(b, "b\nmore\n");
	cr_assert_neq(access(a, F_OK), 0, "the deleted file is gone");
	cr_assert_eq(mode_of("run.sh"), 0755, "the mode applied, setuid dropped (got %04o)", mode_of("run.sh"));
	char *lp = fs_join(ws, "link"), tgt[64] = "";
	struct stat sb;
	cr_assert_eq(lstat(lp, &sb), 0);
	cr_assert(S_ISLNK(sb.st_mode), "a symlink stays a symlink");
	cr_assert_gt(readlink(lp, tgt, sizeof tgt - 1), 0);
	cr_assert_str_eq(tgt, "/etc/hostname");
	/* the undo the apply printed */
	char *trace = xasprintf("%s/trials/%s/apply.jsonl", st, id), *spec = xasprintf("%s:0", trace);
	cr_assert(strstr(o.out, spec), "apply prints how to undo it: %s", o.out);
	ts_out_free(&o);
	const char *argv[] = {BELAY_BIN, "recover", "apply", spec, "--yes", "--state", st, NULL};
	cr_assert_eq(ts_run(argv, NULL, NULL, NULL, 0, 60, &o), 0);
	cr_assert_eq(o.status, 0, "%s%s", o.out, o.err);
	char *after = try_tree_hash();
	cr_assert_str_eq(after, before, "belay recover puts the workspace back as it was before the apply");
	ts_out_free(&o);
	/* applied once only */
	cr_assert_eq(try_sub(&o, "apply", id, "--yes"), 1);
	cr_assert(strstr(o.err, "already applied"), "%s", o.err);
	ts_out_free(&o);
	free(before);
	free(after);
	free(id);
	free(x);
	free(b);
	free(a);
	free(lp);
	free(trace);
	free(spec);
}

Test(try_apply, a_conflicting_change_in_between_is_refused_by_name)
{
	char *id = trial("printf 'trial\\n' > a.txt && printf 'new\\n' > fresh");
	cr_assert_eq(ts_sh("printf 'mine\\n' > %s/a.txt", ws), 0);
	char *before = try_tree_hash();
	struct ts_out o;
	cr_assert_eq(try_sub(&o, "apply", id, "--yes"), 1, "refused: %s", o.out);
	cr_assert(strstr(o.err, "refusing to apply") && strstr(o.err, "a.txt"), "names the conflict: %s", o.err);
	char *after = try_tree_hash(), *a = content("a.txt"), *f = fs_join(ws, "fresh");
	cr_assert_str_eq(after, before, "nothing was applied");
	cr_assert_str_eq(a, "mine\n");
	cr_assert_neq(access(f, F_OK), 0);
	ts_out_free(&o);
	/* a change beside the effect is no conflict */
	char *id2 = trial("printf 'trial\\n' > sub/b");
	cr_assert_eq(ts_sh("printf 'other\\n' > %s/unrelated", ws), 0);
	cr_assert_eq(try_sub(&o, "apply", id2, "--yes"), 0, "%s", o.err);
	char *b = content("sub/b");
	cr_assert_str_eq(b, "trial\n");
	ts_out_free(&o);
	free(before);
	free(after);
	free(a);
	free(f);
	free(b);
	free(id);
	free(id2);
}

Test(try_apply, a_fifo_is_never_applied)
{
	char *id = trial("mkfifo pipe && printf 'x\\n' > other");
	char *before = try_tree_hash();
	struct ts_out o;
	cr_assert_eq(try_sub(&o, "apply", id, "--yes"), 1);
	cr_assert(strstr(o.err, "pipe") && strstr(o.err, "fifo"), "%s", o.err);
	char *after = try_tree_hash();
	cr_assert_str_eq(after, before);
	ts_out_free(&o);
	free(before);
	free(after);
	free(id);
}

Test(try_apply, discard_throws_the_effect_away)
{
	char *before = try_tree_hash();
	char *id = trial("printf 'x\\n' > new && rm a.txt");
	char *up = xasprintf("%s/trials/%s/upper", st, id);
	cr_assert_eq(access(up, F_OK), 0, "the layer is kept until apply or discard");
	struct ts_out o;
	cr_assert_eq(try_sub(&o, "discard", id, NULL), 0, "%s", o.err);
	ts_out_free(&o);
	cr_assert_neq(access(up, F_OK), 0, "the layer is gone");
	cr_assert_eq(try_sub(&o, "apply", id, "--yes"), 1);
	cr_assert(strstr(o.err, "discarded"), "%s", o.err);
	ts_out_free(&o);
	cr_assert_eq(try_sub(&o, "show", id, "--json"), 0);
	cJSON *rec = cJSON_Parse(o.out);
	cr_assert_str_eq(jx_str(rec, "state"), "discarded");
	cJSON_Delete(rec);
	ts_out_free(&o);
	char *after = try_tree_hash();
	cr_assert_str_eq(after, before);
	free(before);
	free(after);
	free(up);
	free(id);
}

Test(try_apply, kill_9_during_a_trial_leaves_nothing_after_the_next_run)
{
	char mark[64];
	snprintf(mark, sizeof mark, "belay-try-killed-%d", (int)getpid());
	char *script = xasprintf("printf 'x\\n' > partial; sleep 300; : %s", mark);
	const char *argv[] = {BELAY_BIN, "try", "--state", st, "--", "/bin/sh", "-c", script, NULL};
	struct ts_out ko, o;
	int fds[3];
	pid_t pid = try_spawn_until(argv, &ko, fds, "partial");
	char *base = fs_join(st, "trials");
	kill(pid, SIGKILL);
	int status;
	waitpid(pid, &status, 0);
	close(fds[0]);
	close(fds[1]);
	close(fds[2]);
	cr_assert_eq(ts_sh("ls -d %s/trial-* > /dev/null 2>&1", base), 0, "the killed run left its directory");
	/* the next run finds it and removes it */
	cJSON *rec = try_run(&o, NULL, "true");
	cr_assert_not_null(rec, "%s", o.err);
	char *only = xasprintf("test $(ls %s | wc -l) -eq 1 && test -d %s/%s", base, base, jx_str(rec, "id"));
	cr_assert_eq(ts_sh("%s", only), 0, "only the new trial is left");
	cJSON_Delete(rec);
	ts_out_free(&o);
	int alive = 1;
	for (int i = 0; i < 50 && (alive = try_process_with(mark)); i++)
		usleep(100 * 1000);
	cr_assert_not(alive, "no process of the killed trial is left");
	cr_assert_neq(ts_sh("ls -d %s/belay-trial-* > /dev/null 2>&1", dir), 0, "nor its temp dir");
	free(only);
	free(base);
	free(script);
	ts_out_free(&ko);
}

Test(try_apply, a_symlink_put_in_the_way_is_never_followed)
{
	char *id = trial("printf 'trial\\n' > sub/b");
	/* the real sub becomes a link to a directory outside, holding its own b */
	cr_assert_eq(ts_sh("printf 'outside\\n' > %s/b && rm -rf %s/sub && ln -s %s %s/sub", outside, ws, outside, ws), 0);
	struct ts_out o;
	cr_assert_eq(try_sub(&o, "apply", id, "--yes"), 1, "refused: %s", o.out);
	char *victim = fs_join(outside, "b");
	size_t n;
	char *c = ts_read_file(victim, &n);
	cr_assert_str_eq(c, "outside\n", "the file behind the link is untouched");
	ts_out_free(&o);
	free(c);
	free(victim);
	free(id);
}

Test(try_apply, a_replaced_directory_and_a_type_change_apply_as_the_mirror_showed)
{
	char *id = trial("rm -rf sub && mkdir sub && printf 'n\\n' > sub/new && rm a.txt && mkdir a.txt"
			 " && printf 'in\\n' > a.txt/inner && rm run.sh && ln -s sub/new run.sh");
	struct ts_out o;
	cr_assert_eq(try_sub(&o, "apply", id, "--yes"), 0, "%s%s", o.out, o.err);
	char *old = fs_join(ws, "sub/b"), *nw = content("sub/new"), *inner = content("a.txt/inner");
	cr_assert_neq(access(old, F_OK), 0, "the replaced directory's old entry is gone");
	cr_assert_str_eq(nw, "n\n");
	cr_assert_str_eq(inner, "in\n", "a file became a directory with its content");
	char *rs = fs_join(ws, "run.sh"), tgt[32] = "";
	struct stat sb;
	cr_assert_eq(lstat(rs, &sb), 0);
	cr_assert(S_ISLNK(sb.st_mode), "a file became a link");
	cr_assert_gt(readlink(rs, tgt, sizeof tgt - 1), 0);
	cr_assert_str_eq(tgt, "sub/new");
	ts_out_free(&o);
	free(old);
	free(nw);
	free(inner);
	free(rs);
	free(id);
}

Test(try_apply, belay_gc_removes_a_killed_trials_leftovers_and_nothing_else)
{
	char *id = trial("printf 'x\\n' > kept");
	/* what a killed run leaves: a trial directory with layers but no record, nobody's lock */
	char *left = xasprintf("%s/trials/trial-20260101T000000Z-deadbeef", st);
	cr_assert_eq(ts_sh("mkdir -p %s/upper/d %s/work && printf x > %s/upper/d/f", left, left, left), 0);
	const char *argv[] = {BELAY_BIN, "gc", "--state", st, NULL};
	struct ts_out o;
	cr_assert_eq(ts_run(argv, NULL, NULL, NULL, 0, 60, &o), 0);
	cr_assert_eq(o.status, 0, "%s", o.err);
	cr_assert(strstr(o.out, "removed 1 leftover trial directory"), "%s", o.out);
	cr_assert_neq(access(left, F_OK), 0, "the leftover is gone");
	ts_out_free(&o);
	cr_assert_eq(try_sub(&o, "show", id, "--json"), 0, "the completed trial stays: %s", o.err);
	cJSON *rec = cJSON_Parse(o.out);
	cr_assert_str_eq(jx_str(rec, "state"), "ready");
	cJSON_Delete(rec);
	ts_out_free(&o);
	free(left);
	free(id);
}

/* Issue 30, class 5: a directory replaced by a link to a directory outside the workspace.
 * The effect must list what the replacement deletes and where the link points; apply must
 * refuse a link that leaves the workspace unless it is named with --allow-link. */
Test(try_apply, a_directory_replaced_by_a_link_outside_is_shown_whole_and_refused_unless_named)
{
	char *script = xasprintf("rm -rf sub && ln -s %s sub && ln -s ../../.. up && ln -s a.txt inside", outside);
	char *id = NULL;
	{
		struct ts_out o;
		cJSON *rec = try_run(&o, NULL, script);
		cr_assert_not_null(rec, "%s", o.err);
		cr_assert_str_eq(jx_str(rec, "status"), "done", "%s", o.out);
		/* every deletion: the directory's own entries are listed, not only the new link */
		try_assert_change(rec, "sub/b", "deleted");
		const cJSON *l = try_effect(rec, "sub");
		cr_assert_not_null(l);
		cr_assert_str_eq(jx_str(l, "type"), "symlink");
		cr_assert_str_eq(jx_str(l, "target"), outside, "the link's target is shown");
		cr_assert(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(l, "leaves_workspace")), "marked as leaving");
		const cJSON *u = try_effect(rec, "up");
		cr_assert(u && cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(u, "leaves_workspace")), "a relative escape too");
		const cJSON *in = try_effect(rec, "inside");
		cr_assert(in && !cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(in, "leaves_workspace")), "a link inside is not");
		id = xstrdup(jx_str(rec, "id"));
		cJSON_Delete(rec);
		ts_out_free(&o);
	}
	/* the human view names the deletion and the target too */
	struct ts_out o;
	cr_assert_eq(try_sub(&o, "show", id, NULL), 0, "%s", o.err);
	cr_assert(strstr(o.out, "sub/b") && strstr(o.out, outside), "show lists the deletion and the target: %s", o.out);
	ts_out_free(&o);
	char *before = try_tree_hash();
	cr_assert_eq(try_sub(&o, "apply", id, "--yes"), 1, "refused: %s%s", o.out, o.err);
	cr_assert(strstr(o.err, "sub") && strstr(o.err, "up") && strstr(o.err, "--allow-link"),
		  "the refusal names the links and the option: %s", o.err);
	ts_out_free(&o);
	char *after = try_tree_hash();
	cr_assert_str_eq(after, before, "nothing applied");
	free(after);
	/* naming one of the two is not enough */
	const char *argv1[] = {BELAY_BIN, "try", "apply", id, "--state", st, "--yes", "--allow-link", "sub", NULL};
	const char *env[] = {tmpbase, NULL};
	cr_assert_eq(ts_run(argv1, env, ws, NULL, 0, 120, &o), 0);
	cr_assert_eq(o.status, 1, "up is still refused: %s%s", o.out, o.err);
	ts_out_free(&o);
	after = try_tree_hash();
	cr_assert_str_eq(after, before, "nothing applied");
	free(after);
	const char *argv2[] = {BELAY_BIN, "try", "apply", id, "--state", st, "--yes", "--allow-link", "sub",
			       "--allow-link", "up", NULL};
	cr_assert_eq(ts_run(argv2, env, ws, NULL, 0, 120, &o), 0);
	cr_assert_eq(o.status, 0, "named, both apply: %s%s", o.out, o.err);
	ts_out_free(&o);
	char *lp = fs_join(ws, "sub"), tgt[4096] = "";
	struct stat sb;
	cr_assert_eq(lstat(lp, &sb), 0);
	cr_assert(S_ISLNK(sb.st_mode));
	cr_assert_gt(readlink(lp, tgt, sizeof tgt - 1), 0);
	cr_assert_str_eq(tgt, outside);
	free(lp);
	free(before);
	free(script);
	free(id);
}
