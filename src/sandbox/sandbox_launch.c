/* sandbox_launch.c - the launcher stage of a contained server, run as
 *   belay __launch --scope DIR --tmp DIR --net deny|allow --status-fd N [--hide DIR]
 *                  [--conceal PATH]... [--secret PATH]... [--expose PATH]... [--pin PATH]... [--cache DIR]
 *                  [--server-env channel|inherit] [--loopback PORT [--connector-fd N]]
 *                  [--overlay-lower DIR --overlay-upper DIR --overlay-work DIR] -- EXE ARGV0 [ARGS...]
 * between fork and exec (libuv cannot run code in the child, so belay re-executes itself).
 *
 * Three processes, single-threaded each:
 *   - the launcher (belay's child) closes every inherited fd but stdio and the status
 *     channel, creates a user namespace (the caller's uid/gid mapped to themselves), a mount
 *     namespace (sandbox_mounts.c), an IPC namespace (SysV shared memory, message queues and
 *     semaphores, POSIX message queues: none of the host's in reach, none left behind), a
 *     network namespace (deny) and a pid namespace, and forks
 *   - the pid namespace's first process ("init"), which mounts that namespace's /proc,
 *     starts a session of its own (no controlling terminal), installs no_new_privs,
 *     Landlock, an empty capability set and the seccomp filter (sandbox_confine.c), hands
 *     the filter's listener to the supervisor, and forks
 *   - the server, which execs EXE.
 * With --loopback (under deny) the launcher also brings `lo` up in the network namespace and
 * forks the connector (sandbox_loopback.c) before it makes the pid namespace; the server may
 * then bind that one TCP port (Landlock, seccomp) and connect nowhere.
 * Init reaps orphans and passes signals on to the server; when the server ends it reports
 * the wait status to the launcher and exits, which ends every process in the namespace.
 * The launcher passes belay's signals on to init and ends the way the server ended (the
 * same exit code, or the same signal). If belay dies the launcher dies (parent-death
 * signal), and init with it.
 *
 * The launcher runs with belay's own environment. With --server-env channel, the server's
 * environment (a recorded one, for a replay) arrives first on the status channel as a sealed
 * memfd, and init applies it just before it starts the server, every layer in place: no
 * variable of it (LD_PRELOAD, GCONV_PATH, ...) ever reaches a process outside the sandbox.
 *
 * Each step names itself; if any fails the failing process reports the layer on the status
 * channel and on stderr and exits 2 without exec: the server never runs bare. */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/xalloc.h"

extern char **environ;
#include "sandbox/sandbox.h"
#include "sandbox/sandbox_cache.h"
#include "sandbox/sandbox_launch_internal.h"
#include "sandbox/sandbox_testswitch.h"

int launch_refuse(struct launch *l, const char *layer, const char *fmt, ...)
{
	char msg[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	fprintf(stderr, "belay: refusing to run unsandboxed: %s: %s\n", layer, msg);
	if (l->status_fd >= 0) {
		char line[700];
		int n = snprintf(line, sizeof line, "fail %s\t%s", layer, msg);
		(void)!write(l->status_fd, line, (size_t)n);
	}
	return 2;
}

static int write_file(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	ssize_t n = write(fd, text, strlen(text));
	int rc = n == (ssize_t)strlen(text) ? 0 : -errno;
	close(fd);
	return rc;
}

static int setup_namespaces(struct launch *l)
{
	uid_t uid = geteuid();
	gid_t gid = getegid();
	int net = l->deny && !(l->off & SB_OFF_NETNS), pid = !(l->off & SB_OFF_PIDNS), ipc = !(l->off & SB_OFF_IPCNS);
	/* With a loopback port the pid namespace comes after `lo` and the connector (which must
	 * not be its first process): unshared on its own, below. */
	int later_pid = pid && l->loopback_port;
	int flags = CLONE_NEWUSER | CLONE_NEWNS | (ipc ? CLONE_NEWIPC : 0) | (net ? CLONE_NEWNET : 0) |
		    (pid && !later_pid ? CLONE_NEWPID : 0);
	if (unshare(flags) != 0)
		return launch_refuse(l, "namespaces", "unshare(user + mount%s%s%s) failed: %s", ipc ? " + ipc" : "",
				     net ? " + network" : "", pid ? " + pid" : "", strerror(errno));
	l->ipcns = ipc;
	char map[64];
	int rc = write_file("/proc/self/setgroups", "deny");
	if (rc == 0) {
		snprintf(map, sizeof map, "%u %u 1", (unsigned)uid, (unsigned)uid);
		rc = write_file("/proc/self/uid_map", map);
	}
	if (rc == 0) {
		snprintf(map, sizeof map, "%u %u 1", (unsigned)gid, (unsigned)gid);
		rc = write_file("/proc/self/gid_map", map);
	}
	if (rc)
		return launch_refuse(l, "user-namespace", "cannot write the uid/gid map: %s", strerror(-rc));
	if (l->loopback_port && launch_loopback(l))
		return 2;
	if (later_pid && unshare(CLONE_NEWPID) != 0)
		return launch_refuse(l, "namespaces", "unshare(pid) failed: %s", strerror(errno));
	buf_printf(&l->layers, "\"user_namespace\":true,\"ipc_namespace\":%s,\"network_namespace\":%s,\"pid_namespace\":%s,",
		   ipc ? "true" : "false", net ? "true" : "false", pid ? "true" : "false");
	return 0;
}

/* The signals the launcher and init pass on (blocked, and taken with sigwaitinfo). */
static void relay_set(sigset_t *set)
{
	sigemptyset(set);
	static const int sigs[] = {SIGTERM, SIGINT, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2, SIGCHLD};
	for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++)
		sigaddset(set, sigs[i]);
}

/* Passes the relayed signals on to child and waits for it to end (reaping any other child
 * meanwhile: init adopts orphans); returns its wait status. Signals blocked (relay_set). */
static int relay_until_gone(pid_t child)
{
	sigset_t set;
	relay_set(&set);
	for (;;) {
		siginfo_t si;
		int sig = sigwaitinfo(&set, &si);
		if (sig < 0)
			continue;
		if (sig != SIGCHLD) {
			kill(child, sig);
			continue;
		}
		int st;
		pid_t w;
		while ((w = waitpid(-1, &st, WNOHANG)) > 0)
			if (w == child)
				return st;
	}
}

/* Ends this process the way a child ended (the same code, or the same signal). */
static _Noreturn void end_like(int status)
{
	if (WIFSIGNALED(status)) {
		int sig = WTERMSIG(status);
		struct rlimit no_core = {0, 0};
		setrlimit(RLIMIT_CORE, &no_core);
		signal(sig, SIG_DFL);
		sigset_t s;
		sigemptyset(&s);
		sigaddset(&s, sig);
		sigprocmask(SIG_UNBLOCK, &s, NULL);
		raise(sig);
		_exit(128 + sig);
	}
	_exit(WIFEXITED(status) ? WEXITSTATUS(status) : 2);
}

/* The pid namespace's first process. Never returns. */
static _Noreturn void init_main(struct launch *l, int sync_fd, int report_fd, const sigset_t *saved)
{
	char c;
	while (read(sync_fd, &c, 1) < 0 && errno == EINTR)
		; /* end of file: the launcher has told the supervisor who we are */
	close(sync_fd);
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (setsid() < 0)
		_exit(launch_refuse(l, "session", "cannot start a session of its own: %s", strerror(errno)));
	int notify_fd = -1;
	if (launch_proc(l) || launch_confine(l, &notify_fd))
		_exit(2);
	/* Hand the listener to the supervisor (it takes it with pidfd_getfd: sendmsg is trapped
	 * now) and wait for it to be ready before running anything that could be trapped. */
	buf_puts(&l->layers, "\"view\":");
	sandbox_view_to_text(&l->view, &l->layers);
	buf_putc(&l->layers, '}');
	struct buf msg = {0};
	buf_printf(&msg, "ready %d %s", notify_fd, l->layers.p);
	if (write(l->status_fd, msg.p, msg.len) != (ssize_t)msg.len)
		_exit(launch_refuse(l, "supervisor", "cannot report to the supervisor: %s", strerror(errno)));
	buf_free(&msg);
	char ack[8];
	ssize_t r = read(l->status_fd, ack, sizeof ack);
	if (r != 2 || memcmp(ack, "go", 2) != 0)
		_exit(launch_refuse(l, "supervisor", "the supervisor did not take the listener"));
	close(l->status_fd);
	close(notify_fd);
	/* posix_spawn: the server starts in our place on this CPU (vfork-like), not behind a
	 * scheduler's debit for a new task; its signal mask is the one belay gave us. */
	if (l->server_env) {
		clearenv();
		for (char **p = l->server_env; *p; p++)
			if (putenv(*p) != 0)
				_exit(launch_refuse(l, "launcher", "cannot set the server's environment"));
	}
	setenv("TMPDIR", l->tmp, 1);
	setenv("TMP", l->tmp, 1);
	setenv("TEMP", l->tmp, 1);
	if (l->cache)
		sandbox_cache_setenv(l->cache);
	posix_spawnattr_t sa;
	posix_spawnattr_init(&sa);
	posix_spawnattr_setsigmask(&sa, saved);
	posix_spawnattr_setflags(&sa, POSIX_SPAWN_SETSIGMASK);
	pid_t server;
	int rc = posix_spawn(&server, l->argv[0], NULL, &sa, l->argv + 1, environ);
	posix_spawnattr_destroy(&sa);
	if (rc != 0) {
		fprintf(stderr, "belay: cannot exec %s inside the sandbox: %s\n", l->argv[0], strerror(rc));
		int st = 127 << 8;
		(void)!write(report_fd, &st, sizeof st);
		_exit(0);
	}
	int st = relay_until_gone(server);
	(void)!write(report_fd, &st, sizeof st);
	_exit(0); /* every other process of the namespace ends with us */
}

static int parse(struct launch *l, int argc, char **argv)
{
	int i = 1;
	l->conceal = xcalloc((size_t)argc + 1, sizeof *l->conceal);
	l->secret = xcalloc((size_t)argc + 1, 1);
	l->expose = xcalloc((size_t)argc + 1, sizeof *l->expose);
	l->pin = xcalloc((size_t)argc + 1, sizeof *l->pin);
	for (; i < argc; i++) {
		if (!strcmp(argv[i], "--"))
			break;
		if (i + 1 >= argc)
			return launch_refuse(l, "launcher", "option %s needs a value", argv[i]);
		const char *v = argv[++i];
		if (!strcmp(argv[i - 1], "--scope"))
			l->scope = v;
		else if (!strcmp(argv[i - 1], "--tmp"))
			l->tmp = v;
		else if (!strcmp(argv[i - 1], "--net"))
			l->net = v;
		else if (!strcmp(argv[i - 1], "--status-fd"))
			l->status_fd = atoi(v);
		else if (!strcmp(argv[i - 1], "--hide"))
			l->hide = v;
		else if (!strcmp(argv[i - 1], "--server-env"))
			l->server_env_mode = v;
		else if (!strcmp(argv[i - 1], "--cache"))
			l->cache = *v ? v : NULL;
		else if (!strcmp(argv[i - 1], "--conceal") || !strcmp(argv[i - 1], "--secret")) {
			l->secret[l->nconceal] = !strcmp(argv[i - 1], "--secret");
			l->conceal[l->nconceal++] = v;
		}
		else if (!strcmp(argv[i - 1], "--expose"))
			l->expose[l->nexpose++] = v;
		else if (!strcmp(argv[i - 1], "--pin"))
			l->pin[l->npin++] = v;
		else if (!strcmp(argv[i - 1], "--overlay-lower"))
			l->ov_lower = v;
		else if (!strcmp(argv[i - 1], "--overlay-upper"))
			l->ov_upper = v;
		else if (!strcmp(argv[i - 1], "--overlay-work"))
			l->ov_work = v;
		else if (!strcmp(argv[i - 1], "--loopback"))
			l->loopback_port = (unsigned)atoi(v);
		else if (!strcmp(argv[i - 1], "--connector-fd"))
			l->connector_fd = atoi(v);
		else
			return launch_refuse(l, "launcher", "unknown option %s", argv[i - 1]);
	}
	if (i >= argc - 2 || !l->scope || !l->tmp || !l->net || (strcmp(l->net, "deny") && strcmp(l->net, "allow")) ||
	    l->status_fd < 3 || (l->ov_upper && (!l->ov_lower || !l->ov_work)) || l->loopback_port > 65535 ||
	    (l->connector_fd >= 0 && (l->connector_fd <= l->status_fd || !l->loopback_port)))
		return launch_refuse(l, "launcher", "usage: belay __launch --scope DIR --tmp DIR --net deny|allow "
						    "--status-fd N [--hide DIR] [--conceal PATH]... [--secret PATH]... [--expose PATH]... "
						    "[--cache DIR] -- EXE ARGV0 [ARGS...]");
	if (l->server_env_mode && strcmp(l->server_env_mode, "channel") && strcmp(l->server_env_mode, "inherit"))
		return launch_refuse(l, "launcher", "--server-env is channel or inherit");
	l->argv = argv + i + 1;
	l->deny = !strcmp(l->net, "deny");
	return 0;
}

/* --server-env channel: the first message on the status channel carries a sealed memfd of
 * NAME=VALUE entries, each ended by a NUL. Read whole, before any inherited fd is closed. */
static int receive_env(struct launch *l)
{
	char tag[4] = "";
	struct iovec iov = {tag, sizeof tag};
	union {
		struct cmsghdr h;
		char b[CMSG_SPACE(sizeof(int))];
	} u;
	memset(&u, 0, sizeof u);
	struct msghdr m = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = u.b, .msg_controllen = sizeof u.b};
	ssize_t r;
	while ((r = recvmsg(l->status_fd, &m, MSG_CMSG_CLOEXEC)) < 0 && errno == EINTR)
		;
	struct cmsghdr *c = r == (ssize_t)sizeof tag ? CMSG_FIRSTHDR(&m) : NULL;
	int fd = -1;
	if (c && c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS && c->cmsg_len == CMSG_LEN(sizeof(int)))
		memcpy(&fd, CMSG_DATA(c), sizeof fd);
	if (fd < 0 || memcmp(tag, "env", 4) != 0) {
		if (fd >= 0)
			close(fd);
		return launch_refuse(l, "launcher", "the server's environment did not arrive on the channel");
	}
	struct stat st;
	int seals = fcntl(fd, F_GET_SEALS);
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || seals < 0 || !(seals & F_SEAL_WRITE) ||
	    st.st_size > (off_t)64 << 20) {
		close(fd);
		return launch_refuse(l, "launcher", "the server's environment is not a sealed file of at most 64 MiB");
	}
	size_t n = (size_t)st.st_size, got = 0;
	char *block = xmalloc(n + 1);
	while (got < n) {
		ssize_t k = pread(fd, block + got, n - got, (off_t)got);
		if (k <= 0)
			break;
		got += (size_t)k;
	}
	close(fd);
	if (got != n || (n && block[n - 1] != '\0')) {
		free(block);
		return launch_refuse(l, "launcher", "the server's environment cannot be read whole");
	}
	block[n] = '\0';
	size_t count = 0;
	for (size_t i = 0; i < n; i++)
		count += block[i] == '\0';
	l->server_env = xcalloc(count + 1, sizeof *l->server_env);
	size_t k = 0;
	for (size_t i = 0; i < n; i += strlen(block + i) + 1)
		if (strchr(block + i, '=') && block[i] != '=')
			l->server_env[k++] = block + i;
	l->server_env_block = block;
	return 0;
}

/* Test builds only: the layers BELAY_TEST_LAYERS_OFF turns off (named in the record). */
static void test_switch(struct launch *l)
{
#ifdef BELAY_TEST_SWITCHES
	const char *off = getenv(SB_TEST_LAYERS_ENV);
	if (off && *off) {
		for (int b = 0; sb_layer_names[b]; b++) {
			const char *n = sb_layer_names[b], *p = off;
			size_t len = strlen(n);
			while ((p = strstr(p, n)) != NULL) {
				if ((p == off || p[-1] == ',') && (p[len] == '\0' || p[len] == ','))
					l->off |= 1u << b;
				p += len;
			}
		}
		buf_puts(&l->layers, "\"test_layers_off\":[");
		int first = 1;
		for (int b = 0; sb_layer_names[b]; b++)
			if (l->off & (1u << b)) {
				buf_printf(&l->layers, "%s\"%s\"", first ? "" : ",", sb_layer_names[b]);
				first = 0;
			}
		buf_puts(&l->layers, "],");
	}
	unsetenv(SB_TEST_LAYERS_ENV);
#else
	(void)l;
#endif
}

int sandbox_launch_main(int argc, char **argv)
{
	struct launch l = {.status_fd = -1, .connector_fd = -1};
	buf_puts(&l.layers, "{");
	if (parse(&l, argc, argv))
		return 2;
	if (l.server_env_mode && !strcmp(l.server_env_mode, "channel") && receive_env(&l))
		return 2;
	/* Nothing but stdio and the status channel goes on into the sandbox. */
	if (l.status_fd > 3)
		close_range(3, (unsigned)l.status_fd - 1, 0);
	if (l.connector_fd > l.status_fd + 1)
		close_range((unsigned)l.status_fd + 1, (unsigned)l.connector_fd - 1, 0);
	close_range((unsigned)(l.connector_fd > l.status_fd ? l.connector_fd : l.status_fd) + 1, ~0U, 0);
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	test_switch(&l);
	/* Once a pid namespace is unshared, a refusal ends with _exit: a normal exit runs atexit
	 * work, and LeakSanitizer's (sanitizer builds) forks a tracer that becomes the new
	 * namespace's init and cannot trace us: the launcher would spin there instead of
	 * refusing. */
	if (setup_namespaces(&l) || launch_overlay(&l) || launch_mounts(&l))
		_exit(2);
	int sync[2], report[2];
	if (pipe2(sync, O_CLOEXEC) != 0 || pipe2(report, O_CLOEXEC) != 0)
		_exit(launch_refuse(&l, "launcher", "cannot make pipes: %s", strerror(errno)));
	sigset_t set, saved;
	relay_set(&set);
	sigprocmask(SIG_BLOCK, &set, &saved);
	pid_t init = fork();
	if (init < 0)
		_exit(launch_refuse(&l, "pid-namespace", "cannot start the namespace's first process: %s",
				    strerror(errno)));
	if (init == 0) {
		close(sync[1]);
		close(report[0]);
		init_main(&l, sync[0], report[1], &saved);
	}
	close(sync[0]);
	close(report[1]);
	char msg[32];
	int n = snprintf(msg, sizeof msg, "init %d", (int)init);
	if (write(l.status_fd, msg, (size_t)n) != n) {
		kill(init, SIGKILL);
		_exit(launch_refuse(&l, "supervisor", "cannot report to the supervisor: %s", strerror(errno)));
	}
	close(l.status_fd);
	l.status_fd = -1;
	close(sync[1]); /* init goes on */
	buf_free(&l.layers);
	sandbox_view_free(&l.view);
	free(l.conceal);
	free(l.secret);
	free(l.expose);
	free(l.server_env);
	free(l.server_env_block);
	free(l.pin);
	int status = relay_until_gone(init), server_status;
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0 &&
	    read(report[0], &server_status, sizeof server_status) == (ssize_t)sizeof server_status)
		end_like(server_status);
	end_like(status);
}
