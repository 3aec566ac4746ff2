/* test_child.c - the one child-process runner (src/common/child.h): stdin from bytes (more
 * than a pipe holds, so a runner that writes before it reads deadlocks), bounded capture,
 * merged streams, a timeout that kills the child's whole process group, exit codes and
 * signals, a child that never reads its stdin (no SIGPIPE for belay), cwd, environment,
 * and a detached start that outlives its caller. */
#include <criterion/criterion.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "common/buf.h"
#include "common/child.h"
#include "common/err.h"
#include "common/fsutil.h"
#include "tsupport.h"

/* a runner that waits past a timeout fails here instead of hanging the suite */
TestSuite(child, .timeout = 60);

static int run_sh(const char *script, struct child_spec *sp, struct buf *out, struct child_result *res)
{
	char *argv[] = {"/bin/sh", "-c", (char *)script, NULL};
	sp->argv = argv;
	struct err e = {0};
	int rc = child_run(sp, out, res, &e);
	cr_assert_eq(rc, 0, "child_run: %s", e.msg);
	return rc;
}

Test(child, stdin_bytes_larger_than_a_pipe_come_back_whole)
{
	size_t n = 1u << 20;
	char *in = malloc(n);
	for (size_t i = 0; i < n; i++)
		in[i] = (char)('a' + i % 26);
	struct child_spec sp = CHILD_SPEC_INIT;
	sp.in = in;
	sp.in_len = n;
	sp.out = CHILD_CAPTURE;
	struct buf out = {0};
	struct child_result res;
	run_sh("cat", &sp, &out, &res);
	cr_assert_eq(res.status, 0);
	cr_assert_eq(out.len, n);
	cr_assert(!memcmp(out.p, in, n));
	cr_assert(!res.truncated && !res.timed_out && !res.in_short);
	buf_free(&out);
	free(in);
}

Test(child, capture_is_bounded_and_says_so)
{
	struct child_spec sp = CHILD_SPEC_INIT;
	sp.out = CHILD_CAPTURE;
	sp.out_cap = 1000;
	struct buf out = {0};
	struct child_result res;
	run_sh("head -c 300000 /dev/zero", &sp, &out, &res);
	cr_assert_eq(res.status, 0, "the rest is read and dropped, the child is not blocked: %d", res.status);
	cr_assert_eq(out.len, 1000);
	cr_assert(res.truncated);
	buf_free(&out);
}

static void count_bytes(void *ctx, const char *p, size_t n)
{
	(void)p;
	*(size_t *)ctx += n;
}

Test(child, both_streams_captured_interleaved_and_streamed_to_a_callback)
{
	size_t seen = 0;
	struct child_spec sp = CHILD_SPEC_INIT;
	sp.out = CHILD_CAPTURE;
	sp.err = CHILD_CAPTURE;
	sp.on_output = count_bytes;
	sp.ctx = &seen;
	struct buf out = {0};
	struct child_result res;
	run_sh("echo one; echo two >&2; echo three", &sp, &out, &res);
	cr_assert_str_eq(out.p, "one\ntwo\nthree\n");
	cr_assert_eq(seen, out.len);
	buf_free(&out);
}

Test(child, stderr_alone_to_null_stdout_kept)
{
	struct child_spec sp = CHILD_SPEC_INIT;
	sp.out = CHILD_CAPTURE;
	struct buf out = {0};
	struct child_result res;
	run_sh("echo out; echo err >&2", &sp, &out, &res);
	cr_assert_str_eq(out.p, "out\n");
	buf_free(&out);
}

Test(child, exit_codes_and_signals)
{
	struct child_spec sp = CHILD_SPEC_INIT;
	struct child_result res;
	run_sh("exit 3", &sp, NULL, &res);
	cr_assert_eq(res.status, 3);
	run_sh("kill -TERM $$", &sp, NULL, &res);
	cr_assert_eq(res.status, 128 + SIGTERM);
}

Test(child, a_missing_program_is_enoent)
{
	char *argv[] = {"/nonexistent/belay-no-such-program", NULL};
	struct child_spec sp = CHILD_SPEC_INIT;
	sp.argv = argv;
	struct child_result res;
	struct err e = {0};
	cr_assert_eq(child_run(&sp, NULL, &res, &e), -ENOENT);
	cr_assert(strstr(e.msg, "belay-no-such-program"), "%s", e.msg);
	char *argv2[] = {"belay-no-such-program-on-path", NULL};
	sp.argv = argv2;
	sp.search_path = 1;
	cr_assert_eq(child_run(&sp, NULL, &res, &e), -ENOENT);
}

Test(child, a_child_that_never_reads_stdin_is_no_sigpipe_for_us)
{
	size_t n = 4u << 20;
	char *in = calloc(1, n);
	struct child_spec sp = CHILD_SPEC_INIT;
	sp.in = in;
	sp.in_len = n;
	struct child_result res;
	run_sh("exit 0", &sp, NULL, &res); /* this process would die of SIGPIPE here */
	cr_assert_eq(res.status, 0);
	cr_assert(res.in_short, "4 MiB cannot all have been taken by a child that read none");
	sigset_t pending;
	sigpending(&pending);
	cr_assert(!sigismember(&pending, SIGPIPE), "a SIGPIPE was left pending");
	free(in);
}

static int alive(pid_t pid)
{
	return kill(pid, 0) == 0;
}

Test(child, the_timeout_kills_the_whole_process_group)
{
	char dir[] = "/tmp/belay-test-child-XXXXXX";
	cr_assert(mkdtemp(dir));
	char script[512];
	/* a grandchild in the background, its pid written down, then the shell waits */
	snprintf(script, sizeof script, "sleep 300 & echo $! > %s/pid; echo started; wait", dir);
	struct child_spec sp = CHILD_SPEC_INIT;
	sp.out = CHILD_CAPTURE;
	sp.timeout_ms = 300;
	struct buf out = {0};
	struct child_result res;
	run_sh(script, &sp, &out, &res);
	cr_assert(res.timed_out);
	cr_assert_eq(res.status, 128 + SIGKILL);
	cr_assert_str_eq(out.p, "started\n", "output before the timeout is kept: %s", out.p);
	char pidpath[600];
	snprintf(pidpath, sizeof pidpath, "%s/pid", dir);
	char *pidtxt = ts_read_file(pidpath, NULL);
	cr_assert(pidtxt);
	pid_t gc = (pid_t)atoi(pidtxt);
	/* the grandchild is killed with the group; it is reaped by init (or a subreaper):
	 * wait for it to be gone, generously */
	for (int i = 0; i < 2000 && alive(gc); i++) {
		struct timespec ts = {0, 5000000};
		nanosleep(&ts, NULL);
	}
	cr_assert(!alive(gc), "the background grandchild %d outlived the timeout", (int)gc);
	free(pidtxt);
	buf_free(&out);
	unlink(pidpath);
	rmdir(dir);
}

Test(child, the_timeout_holds_after_the_output_ended)
{
	/* it closes its stdout at once and goes on: the runner is done reading, not waiting */
	struct child_spec sp = CHILD_SPEC_INIT;
	sp.out = CHILD_CAPTURE;
	sp.err = CHILD_CAPTURE;
	sp.timeout_ms = 300;
	struct buf out = {0};
	struct child_result res;
	run_sh("echo bye; exec >/dev/null 2>&1; sleep 300", &sp, &out, &res);
	cr_assert(res.timed_out, "waited for a child past its timeout");
	cr_assert_eq(res.status, 128 + SIGKILL);
	cr_assert_str_eq(out.p, "bye\n");
	buf_free(&out);
}

Test(child, no_timeout_no_group_of_its_own)
{
	struct child_spec sp = CHILD_SPEC_INIT;
	sp.out = CHILD_CAPTURE;
	struct buf out = {0};
	struct child_result res;
	run_sh("ps -o pgid= -p $$", &sp, &out, &res);
	cr_assert_eq(atoi(out.p), (int)getpgrp(), "the child left the caller's group: %s", out.p);
	buf_free(&out);
}

Test(child, cwd_environment_and_stdin_descriptor)
{
	char *envp[] = {"BELAY_CHILD_TEST=seen", "PATH=/usr/bin:/bin", NULL};
	FILE *f = tmpfile();
	fputs("from a descriptor\n", f);
	rewind(f);
	struct child_spec sp = CHILD_SPEC_INIT;
	sp.out = CHILD_CAPTURE;
	sp.envp = envp;
	sp.cwd = "/usr";
	sp.in_fd = fileno(f);
	struct buf out = {0};
	struct child_result res;
	run_sh("pwd; echo \"$BELAY_CHILD_TEST ${HOME:-nohome}\"; cat", &sp, &out, &res);
	cr_assert_str_eq(out.p, "/usr\nseen nohome\nfrom a descriptor\n");
	buf_free(&out);
	fclose(f);
}

Test(child, detach_outlives_the_caller_in_its_own_session)
{
	char dir[] = "/tmp/belay-test-child-XXXXXX";
	cr_assert(mkdtemp(dir));
	char log[600], script[900];
	snprintf(log, sizeof log, "%s/log", dir);
	/* it reports its cwd, whether it leads its session, and its parent (init or a subreaper,
	 * never us) to stderr, which is the log */
	snprintf(script, sizeof script,
		 "echo \"cwd=$(pwd) sid=$(ps -o sid= -p $$ | tr -d ' ') pid=$$ ppid=$(ps -o ppid= -p $$ | tr -d ' ')\" >&2");
	char *argv[] = {"/bin/sh", "-c", script, NULL};
	struct err e = {0};
	cr_assert_eq(child_detach(argv, NULL, log, &e), 0, "%s", e.msg);
	char *txt = NULL;
	for (int i = 0; i < 2000; i++) {
		free(txt);
		txt = ts_read_file(log, NULL);
		if (txt && strchr(txt, '\n'))
			break;
		struct timespec ts = {0, 5000000};
		nanosleep(&ts, NULL);
	}
	cr_assert(txt && strchr(txt, '\n'), "the detached program wrote nothing to its log");
	int sid = 0, pid = 0, ppid = 0;
	cr_assert(strstr(txt, "cwd=/ "), "%s", txt);
	cr_assert_eq(sscanf(strstr(txt, "sid="), "sid=%d pid=%d ppid=%d", &sid, &pid, &ppid), 3, "%s", txt);
	cr_assert_neq(sid, (int)getsid(0), "still in our session: %s", txt);
	cr_assert_neq(ppid, (int)getpid(), "still our child: %s", txt);
	struct stat st;
	cr_assert_eq(stat(log, &st), 0);
	cr_assert_eq(st.st_mode & 0777, 0600);
	free(txt);
	unlink(log);
	rmdir(dir);
}
