/* test_try.c - belay try: what a trial records, and that the real workspace is never
 * written. A build into the tree, a deletion, a mode change, a replaced directory, the
 * network (refused, named, the trial still reported), a write outside the workspace
 * (refused), a timeout, a daemon (killed); after each, the workspace's tree hash is what
 * it was. */
#include "try_harness.h"
#include "ts_ipc.h"

TestSuite(try, .init = try_setup, .fini = try_teardown, .timeout = 180);

Test(try, a_build_into_the_tree_is_an_effect_and_the_workspace_stays_as_it_was)
{
	struct ts_out o;
	cJSON *rec = try_run_unchanged(&o, NULL, "pwd; mkdir -p build && printf 'obj\\n' > build/x.o && cat a.txt");
	cr_assert_not_null(rec, "one JSON object: %s %s", o.out, o.err);
	cr_assert_eq(o.status, 0, "%s", o.err);
	cr_assert_str_eq(jx_str(rec, "status"), "done");
	cr_assert_eq(cJSON_GetObjectItemCaseSensitive(rec, "exit")->valueint, 0);
	try_assert_change(rec, "build", "added");
	try_assert_change(rec, "build/x.o", "added");
	cr_assert_eq(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(rec, "effect")), 2, "only the build output");
	/* the mirror is at the workspace's own path, and reads the real tree */
	char *want = xasprintf("%s\none\n", ws);
	cr_assert_str_eq(jx_str(rec, "stdout_tail"), want);
	free(want);
	cr_assert(jx_str(rec, "receipt") && !strncmp(jx_str(rec, "receipt"), "sha256:", 7), "a receipt");
	cr_assert_not_null(jx_str(cJSON_GetObjectItemCaseSensitive(rec, "prestate"), "tree_hash"));
	char *built = fs_join(ws, "build");
	cr_assert_neq(access(built, F_OK), 0, "nothing was built in the real tree");
	cJSON_Delete(rec);
	ts_out_free(&o);
	free(built);
}

Test(try, a_deleted_file_and_a_changed_one)
{
	struct ts_out o;
	cJSON *rec = try_run_unchanged(&o, NULL, "rm a.txt && printf 'more\\n' >> sub/b");
	cr_assert_not_null(rec, "%s", o.err);
	try_assert_change(rec, "a.txt", "deleted");
	try_assert_change(rec, "sub/b", "changed");
	cr_assert_null(try_effect(rec, "sub"), "a directory copied up for a change inside is not itself an effect");
	cJSON_Delete(rec);
	ts_out_free(&o);
}

Test(try, a_mode_change)
{
	struct ts_out o;
	cJSON *rec = try_run_unchanged(&o, NULL, "chmod 755 run.sh");
	cr_assert_not_null(rec, "%s", o.err);
	try_assert_change(rec, "run.sh", "mode");
	cr_assert_str_eq(jx_str(try_effect(rec, "run.sh"), "mode"), "0755");
	cJSON_Delete(rec);
	ts_out_free(&o);
}

Test(try, a_directory_replaced_whole_deletes_what_it_held)
{
	struct ts_out o;
	cJSON *rec = try_run_unchanged(&o, NULL, "rm -rf sub && mkdir sub && printf 'n\\n' > sub/new");
	cr_assert_not_null(rec, "%s", o.err);
	try_assert_change(rec, "sub/b", "deleted");
	try_assert_change(rec, "sub/new", "added");
	cJSON_Delete(rec);
	ts_out_free(&o);
}

Test(try, the_network_is_refused_named_and_the_trial_still_reported)
{
	struct ts_out o;
	cJSON *rec = try_run_unchanged(&o, NULL,
			     "python3 -c 'import socket; s=socket.socket(); s.settimeout(3); s.connect((\"192.0.2.1\", 80))'"
			     " || echo refused; printf 'x\\n' > fetched");
	cr_assert_not_null(rec, "%s", o.err);
	cr_assert_str_eq(jx_str(rec, "status"), "done");
	cr_assert_str_eq(jx_str(rec, "network"), "deny");
	int named = 0;
	const cJSON *den = cJSON_GetObjectItemCaseSensitive(rec, "denials");
	for (const cJSON *d = den ? den->child : NULL; d; d = d->next)
		named |= jx_str(d, "reason") && !strcmp(jx_str(d, "reason"), "network_denied");
	char *s = cJSON_PrintUnformatted(den);
	cr_assert(named, "the denial names the network: %s", s);
	free(s);
	cr_assert(strstr(jx_str(rec, "stdout_tail"), "refused"));
	try_assert_change(rec, "fetched", "added");
	cJSON_Delete(rec);
	ts_out_free(&o);
}

Test(try, a_write_outside_the_workspace_is_refused)
{
	char *victim = fs_join(outside, "victim");
	char *script = xasprintf("printf 'x\\n' > %s; echo $?", victim);
	struct ts_out o;
	cJSON *rec = try_run_unchanged(&o, NULL, script);
	cr_assert_not_null(rec, "%s", o.err);
	cr_assert_neq(access(victim, F_OK), 0, "nothing was written outside");
	int named = 0;
	const cJSON *den = cJSON_GetObjectItemCaseSensitive(rec, "denials");
	for (const cJSON *d = den ? den->child : NULL; d; d = d->next)
		named |= jx_str(d, "path") && !strcmp(jx_str(d, "path"), victim);
	cr_assert(named, "the refusal names %s", victim);
	cr_assert_eq(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(rec, "effect")), 0);
	cJSON_Delete(rec);
	ts_out_free(&o);
	free(victim);
	free(script);
}

Test(try, the_host_sysv_ipc_is_out_of_reach_and_nothing_outlives_the_trial)
{
	struct ts_ipc ipc;
	ts_ipc_make(&ipc);
	char *script = ts_ipc_script(&ipc, BELAY_BIN);
	struct ts_out o;
	cJSON *rec = try_run_unchanged(&o, NULL, script);
	cr_assert_not_null(rec, "%s", o.err);
	const char *tail = jx_str(rec, "stdout_tail");
	cr_assert(tail && strstr(tail, "ipc shm ") && strstr(tail, "ipc-leave OK"), "the probes ran: %s", tail);
	struct ts_ipc_reached x;
	ts_ipc_check(&ipc, &x);
	cr_assert(!x.shm && !x.msg && !x.mq, "the trial reached the host's IPC: shm %d msg %d mq %d: %s", x.shm, x.msg,
		  x.mq, tail);
	cr_assert(!x.leftover, "a segment the trial made outlived it");
	cJSON_Delete(rec);
	ts_out_free(&o);
	ts_ipc_free(&ipc);
	free(script);
}

Test(try, a_command_past_its_timeout_is_killed_and_fails_named)
{
	const char *opts[] = {"--timeout", "1", NULL};
	struct ts_out o;
	cJSON *rec = try_run_unchanged(&o, opts, "printf 'x\\n' > partial; exec sleep 60");
	cr_assert_not_null(rec, "%s", o.err);
	cr_assert_eq(o.status, 124, "belay try exits 124 on a timeout");
	cr_assert(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(rec, "timed_out")));
	cr_assert_str_eq(jx_str(rec, "status"), "failed");
	cr_assert_str_eq(jx_str(rec, "cause"), "TRIAL_TIMEOUT");
	cr_assert(cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(rec, "signal")), "ended by a signal");
	/* a failed trial keeps no appliable layers */
	char *up = xasprintf("%s/trials/%s/upper", st, jx_str(rec, "id"));
	cr_assert_neq(access(up, F_OK), 0, "the upper layer of a failed trial is removed");
	cJSON_Delete(rec);
	ts_out_free(&o);
	free(up);
}

Test(try, a_daemon_it_forks_is_killed)
{
	char mark[64];
	snprintf(mark, sizeof mark, "belay-try-daemon-%d", (int)getpid());
	char *script = xasprintf("(setsid sh -c 'sleep 300; : %s' > /dev/null 2>&1 &); sleep 0.3; echo started", mark);
	struct ts_out o;
	cJSON *rec = try_run_unchanged(&o, NULL, script);
	cr_assert_not_null(rec, "%s", o.err);
	cr_assert_str_eq(jx_str(rec, "status"), "done", "%s", o.out);
	int alive = 1;
	for (int i = 0; i < 50 && (alive = try_process_with(mark)); i++)
		usleep(100 * 1000);
	cr_assert_not(alive, "the daemon the command left behind is gone");
	cJSON_Delete(rec);
	ts_out_free(&o);
	free(script);
}

Test(try, the_text_report_ends_with_the_trial_id)
{
	const char *argv[] = {BELAY_BIN, "try", "--state", st, "--", "/bin/sh", "-c", "printf 'x\\n' > new", NULL};
	const char *env[] = {tmpbase, NULL};
	struct ts_out o;
	cr_assert_eq(ts_run(argv, env, ws, NULL, 0, 120, &o), 0);
	cr_assert_eq(o.status, 0, "%s", o.err);
	cr_assert(strstr(o.out, "added    new"), "%s", o.out);
	char *last = o.out + o.out_len - 1;
	cr_assert_eq(*last, '\n');
	*last = '\0';
	char *nl = strrchr(o.out, '\n');
	const char *id = nl ? nl + 1 : o.out;
	cr_assert(!strncmp(id, "trial-", 6), "the last line is the id: '%s'", id);
	struct ts_out s;
	/* the text form shows the content diff of what apply would write */
	const char *show[] = {BELAY_BIN, "try", "show", id, "--state", st, NULL};
	cr_assert_eq(ts_run(show, env, ws, NULL, 0, 60, &s), 0);
	cr_assert(strstr(s.out, "added    new") && strstr(s.out, "  +x\n"), "the diff of new: %s", s.out);
	ts_out_free(&s);
	cr_assert_eq(try_sub(&s, "show", id, "--json"), 0, "%s", s.err);
	cJSON *rec = cJSON_Parse(s.out);
	cr_assert_str_eq(jx_str(rec, "id"), id);
	cr_assert_str_eq(jx_str(rec, "state"), "ready");
	cJSON_Delete(rec);
	ts_out_free(&s);
	ts_out_free(&o);
}

Test(try, a_change_to_the_real_tree_during_the_trial_voids_it_by_name)
{
	const char *argv[] = {BELAY_BIN, "try", "--state", st, "--json", "--", "/bin/sh", "-c",
			      "printf 'x\\n' > mine; sleep 2", NULL};
	struct ts_out o;
	int fds[3];
	pid_t pid = try_spawn_until(argv, &o, fds, "mine");
	close(fds[0]);
	cr_assert_eq(ts_sh("printf 'someone else\\n' > %s/a.txt", ws), 0);
	while (ts_read_some(fds[1], &o.out, &o.out_len) || ts_read_some(fds[2], &o.err, &o.err_len))
		;
	ts_reap(pid, &o);
	close(fds[1]);
	close(fds[2]);
	cJSON *rec = cJSON_Parse(o.out);
	cr_assert_not_null(rec, "%s %s", o.out, o.err);
	cr_assert_eq(o.status, 125, "a voided trial exits 125");
	cr_assert_str_eq(jx_str(rec, "status"), "voided");
	cr_assert_str_eq(jx_str(rec, "cause"), "TRIAL_WORKSPACE_CHANGED");
	struct ts_out a;
	cr_assert_eq(try_sub(&a, "apply", jx_str(rec, "id"), "--yes"), 1, "a voided trial is never applied");
	cr_assert(strstr(a.err, "voided"), "%s", a.err);
	ts_out_free(&a);
	cJSON_Delete(rec);
	ts_out_free(&o);
}

Test(try, a_workspace_that_cannot_be_a_lower_layer_runs_nothing)
{
	char *odd = fs_join(dir, "odd:name");
	cr_assert_eq(ts_sh("mkdir -p '%s'", odd), 0);
	const char *argv[] = {BELAY_BIN, "try", "--state", st, "--scope", odd, "--", "/bin/sh", "-c", "touch ran", NULL};
	const char *env[] = {tmpbase, NULL};
	struct ts_out o;
	cr_assert_eq(ts_run(argv, env, odd, NULL, 0, 60, &o), 0);
	cr_assert_eq(o.status, 126, "nothing ran: %s", o.err);
	cr_assert(strstr(o.err, "TRIAL_NO_OVERLAY"), "named: %s", o.err);
	char *ran = fs_join(odd, "ran");
	cr_assert_neq(access(ran, F_OK), 0, "no fallback to the real tree");
	cr_assert_neq(ts_sh("ls -d %s/trials/trial-* > /dev/null 2>&1", st), 0, "nothing kept");
	ts_out_free(&o);
	free(ran);
	free(odd);
}

Test(try, an_upper_layer_past_max_bytes_is_killed_while_it_grows)
{
	const char *opts[] = {"--max-bytes", "1000000", "--timeout", "60", NULL};
	struct ts_out o;
	cJSON *rec = try_run_unchanged(&o, opts, "head -c 4000000 /dev/zero > big; exec sleep 60");
	cr_assert_not_null(rec, "%s", o.err);
	cr_assert_eq(o.status, 125, "%s", o.out);
	cr_assert_str_eq(jx_str(rec, "cause"), "TRIAL_UPPER_OVER_LIMIT");
	cr_assert_not(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(rec, "timed_out")),
		      "killed while it grew, not at its timeout");
	char *up = xasprintf("%s/trials/%s/upper", st, jx_str(rec, "id"));
	cr_assert_neq(access(up, F_OK), 0, "the layer went");
	cJSON_Delete(rec);
	ts_out_free(&o);
	free(up);
}

Test(try, what_it_leaves_in_its_temp_dir_goes_with_it)
{
	struct ts_out o;
	cJSON *rec = try_run_unchanged(&o, NULL, "printf 'x\\n' > \"$TMPDIR/leak\" && echo \"$TMPDIR\"");
	cr_assert_not_null(rec, "%s", o.err);
	cr_assert_str_eq(jx_str(rec, "status"), "done");
	const char *tmp = jx_str(rec, "stdout_tail");
	cr_assert(tmp && *tmp == '/', "%s", o.out);
	cr_assert_eq(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(rec, "effect")), 0, "the temp dir is no effect");
	/* neither the trial's temp dir nor the scope's shared one (BELAY_SANDBOX_TMP_BASE) keeps it */
	cr_assert_neq(ts_sh("ls -d %s/belay-trial-* > /dev/null 2>&1", dir), 0, "the trial's temp dir is gone");
	cr_assert_neq(ts_sh("ls %s/belay-tmp-*/leak > /dev/null 2>&1", dir), 0, "nothing lands in the shared temp dir");
	cJSON_Delete(rec);
	ts_out_free(&o);
}

Test(try, the_launcher_refuses_a_mirror_it_cannot_mount_by_name_and_promptly)
{
	/* an upper layer and a work dir on two filesystems: overlayfs refuses the mount; the
	 * launcher's overlay stage must refuse by name (and exit, also in a sanitizer build) */
	char *up = fs_join(dir, "upper"), *work = fs_join(outside, "work"), *err = fs_join(dir, "launch.err");
	cr_assert_eq(ts_sh("mkdir -p %s %s", up, work), 0);
	int rc = ts_sh("cd %s && timeout 30 %s/belay-launch __launch --scope %s --tmp %s --net deny --status-fd 3 "
		       "--overlay-lower %s --overlay-upper %s --overlay-work %s -- /bin/sh sh -c 'touch ran' 3<>/dev/null 2>%s",
		       ws, BELAY_BUILD_DIR, ws, dir, ws, up, work, err);
	size_t n;
	char *text = ts_read_file(err, &n);
	cr_assert_eq(rc, 2, "refused, not run and not hung (rc %d): %s", rc, text);
	cr_assert(strstr(text, "refusing to run unsandboxed: overlay: cannot mount the mirror"), "%s", text);
	char *ran = fs_join(ws, "ran");
	cr_assert_neq(access(ran, F_OK), 0);
	free(text);
	free(ran);
	free(up);
	free(work);
	free(err);
}

Test(try, a_state_dir_that_cannot_hold_the_upper_layer_runs_nothing)
{
	/* ramfs has no user xattrs (as tmpfs before Linux 6.6): mounted over a state dir in a user
	 * and mount namespace of the test's own */
	char *rst = fs_join(dir, "ramfs-state"), *err = fs_join(dir, "try.err"), *rcf = fs_join(dir, "try.rc");
	cr_assert_eq(ts_sh("mkdir -p %s", rst), 0);
	int sh = ts_sh("cd %s && unshare -Urm sh -c 'mount -t ramfs none %s && %s=%s %s try --state %s -- /bin/sh -c \"touch ran\" "
		       "> /dev/null 2> %s; echo $? > %s'",
		       ws, rst, "BELAY_SANDBOX_TMP_BASE", dir, BELAY_BIN, rst, err, rcf);
	cr_assert_eq(sh, 0, "unshare -Urm and a ramfs mount (user namespaces)");
	size_t n;
	char *rc = ts_read_file(rcf, &n), *text = ts_read_file(err, &n);
	cr_assert_str_eq(rc, "126\n", "nothing ran: %s", text);
	cr_assert(strstr(text, "TRIAL_NO_OVERLAY") && strstr(text, "user extended attributes"), "named: %s", text);
	char *ran = fs_join(ws, "ran");
	cr_assert_neq(access(ran, F_OK), 0, "no fallback to the real tree");
	free(ran);
	free(rc);
	free(text);
	free(rst);
	free(err);
	free(rcf);
}

Test(try, a_command_that_is_not_there_runs_nothing_and_keeps_nothing)
{
	const char *argv[] = {BELAY_BIN, "try", "--state", st, "--", "belay-no-such-command", NULL};
	const char *env[] = {tmpbase, NULL};
	struct ts_out o;
	cr_assert_eq(ts_run(argv, env, ws, NULL, 0, 60, &o), 0);
	cr_assert_eq(o.status, 126, "%s", o.err);
	cr_assert(strstr(o.err, "TRIAL_NO_COMMAND") && strstr(o.err, "belay-no-such-command"), "%s", o.err);
	cr_assert_neq(ts_sh("ls -d %s/trials/trial-* > /dev/null 2>&1", st), 0, "nothing kept");
	cr_assert_neq(ts_sh("ls -d %s/belay-trial-* > /dev/null 2>&1", dir), 0, "no temp dir left");
	ts_out_free(&o);
}
