/* test_sandbox_quiet.c - the proof that a process tree is quiet (sandbox/sandbox_quiet.h),
 * against real processes put in known states: waits for input only are quiet; a sleep, a
 * busy loop, a timerfd, a POSIX timer, a short timeout, a timeout that began before the
 * sample, and a busy grandchild are not, each with its reason; a busy thread is runnable. */
#include <criterion/criterion.h>
#include <pthread.h>
#include <seccomp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/syscall.h>
#include <sys/timerfd.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "sandbox/sandbox_quiet.h"

#define MS 1000000ull

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static int ready_fd = -1;

/* Tells the parent that this process is about to block (called once, by whichever process
 * of the child's tree sets up last). */
static void ready_now(void)
{
	if (write(ready_fd, "r", 1) != 1)
		_exit(3);
	close(ready_fd);
}

/* A child that runs body(arg); the parent waits until the body says it is about to block,
 * then gives it a moment to get there. */
static pid_t child(void (*body)(int), int arg)
{
	int p[2];
	cr_assert_eq(pipe(p), 0);
	pid_t pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0) {
		setpgid(0, 0); /* its own group: reap kills its children too */
		close(p[0]);
		ready_fd = p[1];
		body(arg);
		_exit(0);
	}
	close(p[1]);
	char c;
	cr_assert_eq(read(p[0], &c, 1), 1);
	close(p[0]);
	usleep(50 * 1000);
	return pid;
}

static void reap(pid_t pid)
{
	kill(-pid, SIGKILL);
	waitpid(pid, NULL, 0);
}

static void reads_a_pipe(int unused)
{
	(void)unused;
	int p[2];
	if (pipe(p) != 0)
		_exit(2);
	char c;
	ready_now();
	for (;;)
		if (read(p[0], &c, 1) < 0)
			_exit(2);
}

static void sleeps(int unused)
{
	(void)unused;
	ready_now();
	for (;;)
		sleep(100);
}

static void spins(int unused)
{
	(void)unused;
	ready_now();
	for (volatile unsigned long i = 0;; i++)
		;
}

/* epoll_wait with the given timeout (ms; -1: none) on an empty set, forever. */
static void epoll_waits(int timeout)
{
	int ep = epoll_create1(0);
	struct epoll_event ev;
	ready_now();
	for (;;)
		epoll_wait(ep, &ev, 1, timeout);
}

static void epoll_with_timerfd(int unused)
{
	(void)unused;
	int tfd = timerfd_create(CLOCK_MONOTONIC, 0);
	struct itimerspec it = {.it_value = {.tv_sec = 60}};
	timerfd_settime(tfd, 0, &it, NULL);
	int ep = epoll_create1(0);
	struct epoll_event ev = {.events = EPOLLIN, .data.fd = tfd};
	epoll_ctl(ep, EPOLL_CTL_ADD, tfd, &ev);
	ready_now();
	for (;;)
		epoll_wait(ep, &ev, 1, -1);
}

static void posix_timer(int unused)
{
	(void)unused;
	signal(SIGUSR1, SIG_IGN);
	timer_t t;
	struct sigevent se = {.sigev_notify = SIGEV_SIGNAL, .sigev_signo = SIGUSR1};
	timer_create(CLOCK_MONOTONIC, &se, &t);
	struct itimerspec it = {.it_value = {.tv_sec = 60}};
	timer_settime(t, 0, &it, NULL);
	reads_a_pipe(0);
}

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;

static void *cond_waiter(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&mu);
	for (;;)
		pthread_cond_wait(&cv, &mu);
	return NULL;
}

static void threads_wait(int unused)
{
	(void)unused;
	pthread_t t[3];
	for (int i = 0; i < 3; i++)
		pthread_create(&t[i], NULL, cond_waiter, NULL);
	epoll_waits(-1);
}

static void parent_of_spinner(int unused)
{
	(void)unused;
	if (fork() == 0)
		spins(0);
	int st;
	for (;;)
		wait(&st);
}

static void parent_of_reader(int unused)
{
	(void)unused;
	if (fork() == 0)
		reads_a_pipe(0);
	int st;
	for (;;)
		wait(&st);
}

/* The proof for a tree whose `since` sample was taken now (nothing ran since: timed waits
 * cannot be bounded), with a window of `window_ms`. */
static int proven_now(pid_t pid, uint64_t window_ms, const char **why)
{
	uint64_t at;
	struct sandbox_quiet_sample *s = sandbox_quiet_sample_take(pid, &at);
	cr_assert_not_null(s);
	int ok = sandbox_quiet_proven(pid, s, at, now_ns() + window_ms * MS, why);
	sandbox_quiet_sample_free(s);
	return ok;
}

static void expect_quiet(void (*body)(int), int arg, const char *what)
{
	pid_t pid = child(body, arg);
	const char *why = NULL;
	/* the last of its threads may still be on its way to its wait (a loaded machine) */
	int ok = 0;
	for (int i = 0; i < 60 && !ok; i++)
		if (!(ok = proven_now(pid, 30, &why)))
			usleep(50 * 1000);
	cr_expect(ok, "%s should be proven quiet: %s", what, why ? why : "");
	reap(pid);
}

static void expect_not_quiet(void (*body)(int), int arg, const char *what, const char *reason)
{
	pid_t pid = child(body, arg);
	const char *why = NULL;
	int proven = proven_now(pid, 30, &why);
	/* it may still be on its way from ready_now to the state under test (a loaded machine) */
	for (int i = 0; i < 60 && !proven && why && strstr(why, "running") && !strstr(reason, "running"); i++) {
		usleep(50 * 1000);
		proven = proven_now(pid, 30, &why);
	}
	cr_expect_not(proven, "%s must not be proven quiet", what);
	cr_expect(why && strstr(why, reason), "%s: the reason should say '%s': %s", what, reason, why ? why : "(none)");
	reap(pid);
}

Test(sandbox_quiet, waits_for_input_only_are_quiet)
{
	expect_quiet(reads_a_pipe, 0, "a blocking read");
	expect_quiet(epoll_waits, -1, "an untimed epoll_wait");
	expect_quiet(threads_wait, 0, "untimed condition waits beside an untimed epoll_wait");
	expect_quiet(parent_of_reader, 0, "a parent waiting for a reading child");
}

Test(sandbox_quiet, sleeps_spins_and_timers_are_not)
{
	expect_not_quiet(sleeps, 0, "a sleep", "not a wait for input");
	expect_not_quiet(spins, 0, "a busy loop", "running");
	expect_not_quiet(epoll_with_timerfd, 0, "a timerfd in the epoll set", "timerfd");
	expect_not_quiet(posix_timer, 0, "a POSIX timer", "POSIX timer");
	expect_not_quiet(parent_of_spinner, 0, "a busy grandchild", "running");
}

/* A timed wait counts only when the thread is known to have started it after the sample,
 * and only when it cannot expire inside the window. */
Test(sandbox_quiet, timed_waits_are_bounded_from_the_sample)
{
	/* the sample predates the wait: a 10 s epoll_wait that began after it is quiet for 30 ms */
	uint64_t at;
	struct sandbox_quiet_sample *before = sandbox_quiet_sample_take(getpid(), &at);
	cr_assert_not_null(before);
	pid_t pid = child(epoll_waits, 10000);
	const char *why = NULL;
	/* the child is not in `before` (it did not exist): it ran after the sample */
	struct sandbox_quiet_sample *s0 = sandbox_quiet_sample_take(pid, &at);
	cr_assert_not_null(s0);
	sandbox_quiet_sample_free(s0);
	int ok = 0;
	for (int i = 0; i < 60 && !ok; i++) /* until it is in its wait (a loaded machine) */
		if (!(ok = sandbox_quiet_proven(pid, before, at, now_ns() + 30 * MS, &why)))
			usleep(50 * 1000);
	cr_expect(ok, "%s", why ? why : "");
	/* ... but not for a window that reaches past its timeout */
	cr_expect_not(sandbox_quiet_proven(pid, before, at, at + 20000 * MS, &why));
	cr_expect(why && strstr(why, "may expire"), "%s", why ? why : "(none)");
	/* a sample taken while it already waited cannot bound when the wait began */
	cr_expect_not(proven_now(pid, 30, &why));
	cr_expect(why && strstr(why, "timeout set before"), "%s", why ? why : "(none)");
	sandbox_quiet_sample_free(before);
	reap(pid);
	/* a 10 ms timeout restarts inside any 30 ms window */
	before = sandbox_quiet_sample_take(getpid(), &at);
	pid = child(epoll_waits, 10);
	cr_expect_not(sandbox_quiet_proven(pid, before, at, now_ns() + 30 * MS, &why));
	sandbox_quiet_sample_free(before);
	reap(pid);
}

Test(sandbox_quiet, a_tree_that_cannot_be_read_is_not_proven)
{
	pid_t pid = fork();
	if (pid == 0)
		_exit(0);
	waitpid(pid, NULL, 0);
	uint64_t at;
	cr_expect_null(sandbox_quiet_sample_take(pid, &at), "a gone process has no sample");
	const char *why = NULL;
	cr_expect_not(sandbox_quiet_proven(pid, NULL, 0, now_ns(), &why));
	cr_expect(why && strstr(why, "cannot be read"), "%s", why ? why : "(none)");
}

/* A supervisor that never answers: a grandchild's getppid waits on it in an interruptible
 * sleep (as a server's open for writing waits on belay's supervisor); ready once the
 * notification has reached the supervisor, i.e. the grandchild is in that wait. */
static void held_by_supervisor(int unused)
{
	(void)unused;
	scmp_filter_ctx c = seccomp_init(SCMP_ACT_ALLOW);
	if (!c || seccomp_rule_add(c, SCMP_ACT_NOTIFY, SCMP_SYS(getppid), 0) != 0 || seccomp_load(c) != 0)
		_exit(4);
	int fd = seccomp_notify_fd(c);
	pid_t g = fork();
	if (g == 0) {
		syscall(SYS_getppid);
		_exit(0);
	}
	struct seccomp_notif *req = NULL;
	struct seccomp_notif_resp *resp = NULL;
	if (g < 0 || fd < 0 || seccomp_notify_alloc(&req, &resp) != 0 || seccomp_notify_receive(fd, req) != 0)
		_exit(5);
	ready_now();
	for (;;)
		pause();
}

/* A window over by the clock while a thread of the server waits for belay's supervisor to
 * decide a syscall (an open for writing: the thread sleeps, interruptibly, in the seccomp
 * notification) must not end: once answered it goes on to write (the liar that wrote after
 * its reply read PASS beside two CPU hogs: its writer was held there, not runnable). */
Test(sandbox_quiet, a_thread_held_by_the_supervisor_can_still_run)
{
	const char *why = NULL;
	pid_t pid = child(held_by_supervisor, 0);
	int rc = sandbox_quiet_runnable(pid, &why);
	cr_expect_eq(rc, 1, "a thread waiting for the supervisor's answer: %d (%s)", rc, why ? why : "none");
	cr_expect(why && strstr(why, "supervisor"), "%s", why ? why : "(none)");
	const char *pwhy = NULL;
	cr_expect_not(sandbox_quiet_proven(pid, NULL, 0, 0, &pwhy), "proven quiet while held: it is not");
	reap(pid);
}

/* A window that ends by the clock asks whether anything can still run: a busy thread (or a
 * busy grandchild) is runnable, a tree of sleepers is not, a gone tree cannot be read. */
Test(sandbox_quiet, runnable_threads_are_named)
{
	const char *why = NULL;
	pid_t pid = child(spins, 0);
	cr_expect_eq(sandbox_quiet_runnable(pid, &why), 1);
	cr_expect(why && strstr(why, "runnable"), "%s", why ? why : "(none)");
	reap(pid);
	pid = child(parent_of_spinner, 0);
	cr_expect_eq(sandbox_quiet_runnable(pid, &why), 1, "a busy grandchild");
	reap(pid);
	pid = child(threads_wait, 0);
	int rc = 1;
	for (int i = 0; i < 60 && rc != 0; i++) /* until every thread is in its wait (a loaded machine) */
		if ((rc = sandbox_quiet_runnable(pid, &why)) != 0)
			usleep(50 * 1000);
	cr_expect_eq(rc, 0, "sleepers: %s", why ? why : "");
	reap(pid);
	pid = fork();
	if (pid == 0)
		_exit(0);
	waitpid(pid, NULL, 0);
	cr_expect_eq(sandbox_quiet_runnable(pid, &why), -1);
	cr_expect(why && strstr(why, "cannot be read"), "%s", why ? why : "(none)");
}
