/* http_bridge.h - a contained server spoken to over HTTP, as the stdio side of a session
 * (a verification replay of a contained local server's run: docs/HTTP.md). The session
 * writes JSON-RPC messages, one per line, to in_fd; the bridge POSTs each to the server's
 * URL over a socket the sandbox's connector connected inside the sandbox's network namespace
 * (sandbox_connector_socket 'c': only the server's loopback port is reachable there) and
 * writes every message of the answer to out_fd, one per line: a JSON body whole, an event
 * stream event by event as it comes. A 202 has none. The Mcp-Session-Id and the protocol
 * version the initialize answer gave go with every later request.
 *
 * A minimal HTTP/1.1 client of belay's own (one request per connection, Content-Length or
 * chunked bodies, `text/event-stream` parsed by lines), not a network library: the belay
 * binary links none (tests/unit/test_verify.c), and it reaches nothing but the sandbox's own
 * loopback. Each request runs on a thread of its own, so that the answer to a server's
 * request (sampling, elicitation, roots) is POSTed while the call that asked waits on its
 * stream; lines to out_fd are written whole, one at a time.
 *
 * Threads: http_bridge_start returns at once; the bridge's threads own in_fd, out_fd and
 * connector (closed when the session closes in_fd and every request has ended, or when the
 * sandbox is gone). */
#ifndef BELAY_PROXY_HTTP_BRIDGE_H
#define BELAY_PROXY_HTTP_BRIDGE_H
#include "common/err.h"

/* url: http://127.0.0.1|localhost|[::1]:PORT/PATH (the server's URL inside its sandbox). */
int http_bridge_start(int in_fd, int out_fd, int connector, const char *url, struct err *e);

#endif
