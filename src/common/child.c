/* child.c - running a program to completion, or detached. See child.h. */
#include "common/child.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "common/timeutil.h"

extern char **environ;

static void close_fd(int *fd)
{
	if (*fd >= 0) {
		close(*fd);
		*fd = -1;
	}
}

/* The file actions that give the child its stdio. */
static void stdio_actions(const struct child_spec *sp, posix_spawn_file_actions_t *fa, int in_r, int cap_w)
{
	if (in_r >= 0)
		posix_spawn_file_actions_adddup2(fa, in_r, 0);
	else if (sp->in_fd >= 0)
		posix_spawn_file_actions_adddup2(fa, sp->in_fd, 0);
	else
		posix_spawn_file_actions_addopen(fa, 0, "/dev/null", O_RDONLY, 0);
	const enum child_stream how[2] = {sp->out, sp->err};
	const int fd_to[2] = {sp->fd_out, sp->fd_err};
	for (int i = 0; i < 2; i++) {
		int target = i + 1;
		switch (how[i]) {
		case CHILD_NULL: posix_spawn_file_actions_addopen(fa, target, "/dev/null", O_WRONLY, 0); break;
		case CHILD_CAPTURE: posix_spawn_file_actions_adddup2(fa, cap_w, target); break;
		case CHILD_TO_FD: posix_spawn_file_actions_adddup2(fa, fd_to[i], target); break;
		case CHILD_INHERIT: break;
		}
	}
	if (sp->cwd)
		posix_spawn_file_actions_addchdir_np(fa, sp->cwd);
}

static void keep(const struct child_spec *sp, struct buf *out, struct child_result *res, const char *p, size_t n)
{
	if (sp->on_output)
		sp->on_output(sp->ctx, p, n);
	if (!out)
		return;
	size_t take = n;
	if (sp->out_cap && out->len + take > sp->out_cap) {
		take = out->len < sp->out_cap ? sp->out_cap - out->len : 0;
		res->truncated = 1;
	}
	if (take)
		buf_append(out, p, take);
}

static int remaining_ms(uint64_t deadline)
{
	if (!deadline)
		return -1;
	uint64_t now = time_mono_ns();
	if (now >= deadline)
		return 0;
	uint64_t ms = (deadline - now + 999999u) / 1000000u;
	return ms > 60000 ? 60000 : (int)ms;
}

/* Feeds stdin and drains the capture pipe until both are done or the deadline (0: none)
 * passes. */
static void pump(const struct child_spec *sp, pid_t pid, uint64_t deadline, int *in_w, int *cap_r, struct buf *out,
		 struct child_result *res)
{
	const char *in = sp->in;
	size_t off = 0;
	char b[8192];
	while (*in_w >= 0 || *cap_r >= 0) {
		struct pollfd p[2];
		int np = 0, ic = -1, iw = -1;
		if (*cap_r >= 0) {
			p[np] = (struct pollfd){.fd = *cap_r, .events = POLLIN};
			ic = np++;
		}
		if (*in_w >= 0) {
			p[np] = (struct pollfd){.fd = *in_w, .events = POLLOUT};
			iw = np++;
		}
		int wait = remaining_ms(deadline);
		if (wait == 0) {
			/* the timeout: the whole group goes; what it wrote so far is kept */
			kill(-pid, SIGKILL);
			res->timed_out = 1;
			res->in_short = sp->in && off < sp->in_len;
			close_fd(in_w);
			close_fd(cap_r);
			return;
		}
		int n = poll(p, (nfds_t)np, wait);
		if (n < 0 && errno != EINTR)
			break;
		if (n <= 0)
			continue;
		if (iw >= 0 && p[iw].revents) {
			ssize_t w = write(*in_w, in + off, sp->in_len - off);
			if (w > 0)
				off += (size_t)w;
			if ((w < 0 && errno != EINTR && errno != EAGAIN) || off == sp->in_len)
				close_fd(in_w); /* all written, or the child stopped reading */
		}
		if (ic >= 0 && p[ic].revents) {
			ssize_t r = read(*cap_r, b, sizeof b);
			if (r < 0 && (errno == EINTR || errno == EAGAIN))
				continue;
			if (r <= 0)
				close_fd(cap_r);
			else
				keep(sp, out, res, b, (size_t)r);
		}
	}
	close_fd(in_w);
	close_fd(cap_r);
	if (sp->in && off < sp->in_len)
		res->in_short = 1;
}

int child_run(const struct child_spec *sp, struct buf *out, struct child_result *res, struct err *e)
{
	*res = (struct child_result){0};
	int in_p[2] = {-1, -1}, cap_p[2] = {-1, -1};
	int capture = sp->out == CHILD_CAPTURE || sp->err == CHILD_CAPTURE;
	int feed = sp->in != NULL;
	if ((feed && pipe2(in_p, O_CLOEXEC) != 0) || (capture && pipe2(cap_p, O_CLOEXEC) != 0)) {
		int rc = err_set(e, -errno, "cannot run %s: pipe: %s", sp->argv[0], strerror(errno));
		close_fd(&in_p[0]);
		close_fd(&in_p[1]);
		return rc;
	}
	/* SIGPIPE blocked on this thread while stdin is written; the child gets the mask the
	 * caller had, and SIGPIPE at its default (belay may ignore it; the child must not inherit
	 * that). */
	sigset_t pipe_only, old;
	sigemptyset(&pipe_only);
	sigaddset(&pipe_only, SIGPIPE);
	pthread_sigmask(SIG_BLOCK, &pipe_only, &old);

	posix_spawn_file_actions_t fa;
	posix_spawn_file_actions_init(&fa);
	stdio_actions(sp, &fa, in_p[0], cap_p[1]);
	posix_spawnattr_t sa;
	posix_spawnattr_init(&sa);
	short flags = POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF;
	if (sp->timeout_ms) {
		flags |= POSIX_SPAWN_SETPGROUP;
		posix_spawnattr_setpgroup(&sa, 0);
	}
	posix_spawnattr_setflags(&sa, flags);
	posix_spawnattr_setsigmask(&sa, &old);
	posix_spawnattr_setsigdefault(&sa, &pipe_only);
	pid_t pid;
	char *const *envp = sp->envp ? sp->envp : environ;
	int rc = sp->search_path ? posix_spawnp(&pid, sp->argv[0], &fa, &sa, sp->argv, envp)
				 : posix_spawn(&pid, sp->argv[0], &fa, &sa, sp->argv, envp);
	posix_spawn_file_actions_destroy(&fa);
	posix_spawnattr_destroy(&sa);
	close_fd(&in_p[0]);
	close_fd(&cap_p[1]);
	if (rc != 0) {
		close_fd(&in_p[1]);
		close_fd(&cap_p[0]);
		pthread_sigmask(SIG_SETMASK, &old, NULL);
		return err_set(e, -rc, "cannot run %s: %s", sp->argv[0], strerror(rc));
	}
	if (feed && sp->in_len == 0)
		close_fd(&in_p[1]);
	else if (feed) /* a write takes what the pipe holds, never waits for the child to read it all */
		fcntl(in_p[1], F_SETFL, fcntl(in_p[1], F_GETFL) | O_NONBLOCK);
	uint64_t deadline = sp->timeout_ms ? time_mono_ns() + (uint64_t)sp->timeout_ms * 1000000u : 0;
	pump(sp, pid, deadline, &in_p[1], &cap_p[0], out, res);

	/* a SIGPIPE our write caused is consumed here, never delivered */
	struct timespec zero = {0, 0};
	while (sigtimedwait(&pipe_only, NULL, &zero) > 0)
		;
	pthread_sigmask(SIG_SETMASK, &old, NULL);

	int st = 0;
	/* Its output may have ended before it did (it closed its stdout, or never had one): the
	 * timeout holds until it is reaped. */
	while (deadline && !res->timed_out) {
		pid_t w = waitpid(pid, &st, WNOHANG);
		if (w == pid)
			goto reaped;
		if (w < 0 && errno != EINTR)
			break;
		if (remaining_ms(deadline) == 0) {
			kill(-pid, SIGKILL);
			res->timed_out = 1;
			break;
		}
		struct timespec nap = {0, 5 * 1000 * 1000};
		nanosleep(&nap, NULL);
	}
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
reaped:
	res->status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
	if (out)
		buf_cstr(out);
	return 0;
}

int child_detach(char *const *argv, char *const *envp, const char *log_path, struct err *e)
{
	pid_t pid = fork();
	if (pid < 0)
		return err_set(e, -errno, "cannot start %s: fork: %s", argv[0], strerror(errno));
	if (pid == 0) {
		/* the first child: a session of its own, then the program as its child, so that it
		 * is nobody's child and is reparented to init at once */
		setsid();
		pid_t p2 = fork();
		if (p2 != 0)
			_exit(p2 < 0 ? 1 : 0);
		int fd = open("/dev/null", O_RDWR | O_CLOEXEC);
		if (fd >= 0) {
			dup2(fd, 0);
			dup2(fd, 1);
			dup2(fd, 2);
		}
		if (log_path) {
			int lfd = open(log_path, O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
			if (lfd >= 0)
				dup2(lfd, 2);
		}
		if (chdir("/") != 0)
			_exit(1);
		execve(argv[0], argv, envp ? envp : environ);
		_exit(127);
	}
	int st;
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	return 0;
}
