/* http_guard.h - who may use belay's HTTP listener, decided per request before anything is
 * forwarded or recorded: the Host header must name the loopback listener itself (a DNS
 * rebinding page sends its own host name), an Origin, when sent, must be the listener's
 * own (a web page's fetch carries its site's), and the path must start with the listener's
 * secret (another local user can reach any loopback port, but cannot read the secret from
 * the agent's configuration). The paths belay serves under the secret:
 *   /SECRET/mcp          the upstream URL itself (Streamable HTTP, or the old transport's
 *                        event stream)
 *   /SECRET/m/TOKEN      the old transport's message endpoint, as belay rewrote it in the
 *                        stream's `endpoint` event (TOKEN names the stream)
 * Anything else is refused by name.
 *
 * Pure, thread-safe. */
#ifndef BELAY_HTTP_HTTP_GUARD_H
#define BELAY_HTTP_HTTP_GUARD_H
#include <stddef.h>

/* Listener secrets and stream tokens are this many hex digits. */
#define HTTP_GUARD_SECRET_HEX 32
#define HTTP_GUARD_TOKEN_HEX 24

enum http_route {
	HTTP_ROUTE_MCP,	    /* /SECRET/mcp */
	HTTP_ROUTE_MESSAGE, /* /SECRET/m/TOKEN (token copied out) */
	HTTP_ROUTE_SECRET,  /* the secret is missing or wrong */
	HTTP_ROUTE_UNKNOWN, /* right secret, a path belay does not serve */
};

/* 1 when the Host header (may be NULL: refused) names this listener: 127.0.0.1, localhost
 * or [::1], with the listener's port. */
int http_guard_host(const char *host, unsigned port);
/* 1 when an Origin header (NULL: none sent, allowed) is this listener's own origin. */
int http_guard_origin(const char *origin, unsigned port);
/* The route of a request path (without its query). token needs HTTP_GUARD_TOKEN_HEX + 1
 * bytes; it is filled for HTTP_ROUTE_MESSAGE. The secret is compared in constant time. */
enum http_route http_guard_route(const char *path, const char *secret, char *token);
/* Fills out (n hex digits and a NUL) from the kernel's random source. 0 or a negative errno. */
int http_guard_random_hex(char *out, size_t n);

#endif
