/* bench_http_relay.c - the C relay floor of bench_http: what the second HTTP hop itself costs.
 *
 *   bench_http_relay UPSTREAM_URL      (http://127.0.0.1:PORT/...; prints "PORT\n" on stdout)
 *
 * Listens on a free loopback port; every connection accepted gets one connection of its own
 * to UPSTREAM_URL's host and port, and the bytes are forwarded both ways unchanged from one
 * epoll loop: one read and one write per chunk, TCP_NODELAY on both sides, no parsing,
 * recording or gating (an HTTP/1.1 request passes as it came, Host header included: the
 * bench's servers do not check it). What it adds over a direct connection is the least any
 * process between the client and the server adds: per round trip two more loopback socket
 * hops, their wake-ups and copies, which no work inside an HTTP proxy can remove; a proxy
 * that also parses the requests and answers (tests/peers/http-relay.mjs, belay-http) pays
 * that on top. Ends at SIGTERM or SIGINT. */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include "common/xalloc.h"
#include "common/xalloc_cjson.h"

/* one side of a forwarded connection: its socket, and the socket its bytes go to */
struct side {
	int fd;
	struct side *peer;
	int eof; /* read its end */
};

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

static void nodelay(int fd)
{
	int one = 1;
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
}

static void side_close(int ep, struct side *s)
{
	struct side *o = s->peer;
	epoll_ctl(ep, EPOLL_CTL_DEL, s->fd, NULL);
	epoll_ctl(ep, EPOLL_CTL_DEL, o->fd, NULL);
	close(s->fd);
	close(o->fd);
	free(o);
	free(s);
}

int main(int argc, char **argv)
{
	xalloc_cjson_install();
	if (argc != 2 || strncmp(argv[1], "http://", 7)) {
		fprintf(stderr, "usage: bench_http_relay http://HOST:PORT/PATH\n");
		return 2;
	}
	signal(SIGPIPE, SIG_IGN);
	const char *hp = argv[1] + 7, *colon = strchr(hp, ':');
	if (!colon) {
		fprintf(stderr, "bench_http_relay: the upstream URL needs a port: %s\n", argv[1]);
		return 2;
	}
	char host[64];
	snprintf(host, sizeof host, "%.*s", (int)(colon - hp), hp);
	struct sockaddr_in up = {.sin_family = AF_INET, .sin_port = htons((uint16_t)atoi(colon + 1))};
	if (inet_pton(AF_INET, host, &up.sin_addr) != 1) {
		fprintf(stderr, "bench_http_relay: the upstream host must be an IPv4 address: %s\n", host);
		return 2;
	}
	int ls = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	struct sockaddr_in me = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	socklen_t mlen = sizeof me;
	if (ls < 0 || bind(ls, (struct sockaddr *)&me, sizeof me) || listen(ls, 64) ||
	    getsockname(ls, (struct sockaddr *)&me, &mlen)) {
		perror("bench_http_relay: listen");
		return 1;
	}
	printf("%u\n", ntohs(me.sin_port));
	fflush(stdout);
	int ep = epoll_create1(EPOLL_CLOEXEC);
	struct epoll_event le = {.events = EPOLLIN, .data.ptr = NULL};
	epoll_ctl(ep, EPOLL_CTL_ADD, ls, &le);
	static char chunk[256 * 1024];
	static struct side gone; /* marks a stale event */
	for (;;) {
		struct epoll_event ev[32];
		int n = epoll_wait(ep, ev, 32, -1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return 1;
		for (int i = 0; i < n; i++) {
			struct side *s = ev[i].data.ptr;
			if (s == &gone)
				continue;
			if (!s) { /* a new client: its own upstream connection */
				int c = accept4(ls, NULL, NULL, SOCK_CLOEXEC);
				if (c < 0)
					continue;
				int u = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
				if (u < 0 || connect(u, (struct sockaddr *)&up, sizeof up) != 0) {
					close(c);
					if (u >= 0)
						close(u);
					continue;
				}
				nodelay(c);
				nodelay(u);
				struct side *a = xcalloc(1, sizeof *a), *b = xcalloc(1, sizeof *b);
				a->fd = c, b->fd = u;
				a->peer = b, b->peer = a;
				struct epoll_event ea = {.events = EPOLLIN, .data.ptr = a};
				struct epoll_event eb = {.events = EPOLLIN, .data.ptr = b};
				epoll_ctl(ep, EPOLL_CTL_ADD, c, &ea);
				epoll_ctl(ep, EPOLL_CTL_ADD, u, &eb);
				continue;
			}
			ssize_t r = read(s->fd, chunk, sizeof chunk);
			if (r < 0 && (errno == EINTR || errno == EAGAIN))
				continue;
			if (r > 0 && write_all(s->peer->fd, chunk, (size_t)r) == 0)
				continue;
			if (r == 0 && !s->peer->eof) { /* a half close passes on; the other way goes on */
				s->eof = 1;
				shutdown(s->peer->fd, SHUT_WR);
				epoll_ctl(ep, EPOLL_CTL_DEL, s->fd, NULL);
				continue;
			}
			/* both ends read, or an error: the pair is done (and a later event of this
			 * batch for either side is stale) */
			for (int k = i + 1; k < n; k++)
				if (ev[k].data.ptr == s || ev[k].data.ptr == s->peer)
					ev[k].data.ptr = &gone;
			side_close(ep, s);
		}
	}
}
