/* http_bridge.h - an MCP server spoken to over HTTP, as a stdio server (`belay-http --bridge
 * URL`): what verify's replay of a contained local server's run starts as the server side of
 * its session (src/proxy/session.c; docs/HTTP.md, "Verifying a contained run").
 *
 * JSON-RPC messages come in on in_fd, one per line; each is POSTed to the URL by libcurl, a
 * transfer of its own, all of them at once on one thread (curl multi): the answer to a
 * server's request (sampling, elicitation, roots) is POSTed while the call that asked still
 * waits on its stream. Every message of an answer goes to out_fd as one line: a JSON body
 * whole (when it is JSON-RPC: an error page is not a message), an event stream event by
 * event as it comes (sse_parse.h). A 202 or 204 has none. The Mcp-Session-Id a response
 * gave, and the protocolVersion of initialize's result, go with every later request; once
 * initialize gave a session, the session's GET stream is opened (the server's requests and
 * notifications that belong to no call).
 *
 * Sockets: with a connector (the contained server's sandbox's, sandbox.h), each transfer's
 * socket is made in the sandbox's network namespace (http_upstream_fd.h), and the first
 * request waits until the server's port answers (a server just started may not listen yet:
 * tried every 20 ms for up to a minute, the replay's own deadlines end it sooner). Without
 * one (-1), libcurl's own sockets. Never a proxy from the environment.
 *
 * http_bridge_run blocks until in_fd ends and every transfer has ended (the GET stream ends
 * with the server), or out_fd is closed. It owns nothing it was given (the caller closes the
 * descriptors). Threads: the calling thread only; curl_global_init is the caller's. */
#ifndef BELAY_HTTP_HTTP_BRIDGE_H
#define BELAY_HTTP_HTTP_BRIDGE_H
#include "common/err.h"

struct http_bridge_cfg {
	const char *url; /* http://HOST:PORT/PATH */
	int in_fd, out_fd;
	int connector; /* the sandbox's connector socket, or -1 */
};

/* 0 when in_fd ended and the transfers are done; BELAY_EINVAL for a URL that is not http://,
 * or another error (e filled) when libcurl cannot be set up. */
int http_bridge_run(const struct http_bridge_cfg *c, struct err *e);

#endif
