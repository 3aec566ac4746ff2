/* bench_relay.c - the floor of any proxy that runs as a process of its own between the agent
 * and its server: bench_proxy's "relay floor" rows run it in belay's place.
 *
 *   bench_relay SERVER_CMD [ARGS...]
 *
 * Starts the server with its stdin and stdout on socketpairs (as libuv, hence belay, does;
 * stderr inherited) and forwards bytes both ways unchanged from one epoll loop: one read and
 * one write per chunk, no framing, parsing, recording or gating. What it adds over a direct
 * connection is the two extra hops every round trip makes through one more process (two
 * wake-ups and four copies through the kernel), which no work inside belay can remove. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/xalloc_cjson.h"

static int write_all(int fd, const char *p, size_t n)
{
	while (n > 0) {
		ssize_t w = write(fd, p, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

int main(int argc, char **argv)
{
	xalloc_cjson_install();
	if (argc < 2) {
		fprintf(stderr, "usage: bench_relay SERVER_CMD [ARGS...]\n");
		return 2;
	}
	signal(SIGPIPE, SIG_IGN);
	int in[2], out[2];
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, in) || socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, out))
		return 1;
	pid_t pid = fork();
	if (pid < 0)
		return 1;
	if (pid == 0) {
		dup2(in[1], 0);
		dup2(out[1], 1);
		execvp(argv[1], argv + 1);
		_exit(127);
	}
	close(in[1]);
	close(out[1]);
	int ep = epoll_create1(EPOLL_CLOEXEC);
	struct epoll_event a = {.events = EPOLLIN, .data.fd = 0}, b = {.events = EPOLLIN, .data.fd = out[0]};
	if (epoll_ctl(ep, EPOLL_CTL_ADD, 0, &a) || epoll_ctl(ep, EPOLL_CTL_ADD, out[0], &b))
		return 1;
	static char buf[1 << 16];
	int open_ends = 2;
	while (open_ends > 0) {
		struct epoll_event evs[2];
		int n = epoll_wait(ep, evs, 2, -1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return 1;
		for (int i = 0; i < n; i++) {
			int from = evs[i].data.fd, to = from == 0 ? in[0] : 1;
			ssize_t r = read(from, buf, sizeof buf);
			if (r < 0 && (errno == EINTR || errno == EAGAIN))
				continue;
			if (r <= 0 || write_all(to, buf, (size_t)r) != 0) {
				epoll_ctl(ep, EPOLL_CTL_DEL, from, NULL);
				if (from == 0)
					shutdown(in[0], SHUT_WR); /* the client ended: so does the server's input */
				else
					close(1); /* the server's output ended: so does the client's */
				open_ends--;
			}
		}
	}
	int st = 0;
	waitpid(pid, &st, 0);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 1;
}
