/* http_upstream_fd.h - an upstream reached through sockets someone else connects: a server
 * contained by belay listens on the loopback of its own network namespace, which belay
 * cannot enter; the sandbox's connector (src/sandbox/sandbox_loopback.c) makes each
 * connection inside it and hands the socket over (docs/HTTP.md, "Contained local servers").
 * libcurl then uses that socket instead of opening one (CURLOPT_OPENSOCKETFUNCTION). The
 * socket comes unconnected, made in the sandbox's network namespace, and libcurl connects it
 * to the URL as usual: a socket's connect happens in the namespace it was made in. (Handing
 * libcurl a connected socket, CURL_SOCKOPT_ALREADY_CONNECTED, fails in libcurl 7.88, Debian
 * 12's: it connects again and takes EISCONN as a failure, curl/curl#10626.)
 *
 * Threads: http_upstream_fd_use on the thread that sets up the easy handle; connect() is
 * called by libcurl on the upstream thread (http_proxy.h), one call at a time there. */
#ifndef BELAY_HTTP_HTTP_UPSTREAM_FD_H
#define BELAY_HTTP_HTTP_UPSTREAM_FD_H
#include <curl/curl.h>

struct http_upstream_fd {
	/* A stream socket of `family` for libcurl to connect to the upstream, or -errno (the
	 * transfer then fails as an unreachable upstream). NULL: libcurl makes its own. */
	int (*socket)(void *ctx, int family);
	void *ctx;
};

/* Makes the easy handle take its sockets from u (borrowed: must outlive the handle). */
void http_upstream_fd_use(CURL *h, const struct http_upstream_fd *u);

#endif
