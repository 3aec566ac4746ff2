/* http_oauth_login.h - belay authorizes itself with an OAuth-protected MCP server on the
 * user's behalf (belay is the OAuth client; the agent never sees a token: docs/HTTP.md,
 * docs/THREAT_MODEL.md). The flow of the MCP authorization specification:
 *
 *   1. the server's 401 names its protected-resource metadata (WWW-Authenticate
 *      resource_metadata=...), else .well-known/oauth-protected-resource is tried; the
 *      metadata's `resource` must be the server's own URL; it names the authorization server;
 *      the scope asked for is cfg.scope, else the challenge's `scope`, else the metadata's
 *      scopes_supported;
 *   2. the authorization server's metadata (RFC 8414, then OpenID discovery); PKCE S256 must
 *      be offered;
 *   3. a client: the one given (cfg.client_id), else registered dynamically (RFC 7591) as a
 *      public client with the loopback redirect URI;
 *   4. authorization code with PKCE S256 and RFC 8707's `resource` = the server's resource:
 *      the user opens the printed URL (cfg.open_url tries a browser), approves, and the
 *      browser is redirected to http://127.0.0.1:PORT/callback, where this call waits (the
 *      `state` must match; anything else is answered 400 and ignored);
 *   5. the code is exchanged (with the verifier) for tokens, kept by http_oauth_store.
 *
 * Every request and response is logged without its secrets (http_oauth_net.h).
 *
 * Threads: the caller's, which it blocks until the flow ends (at most cfg.timeout_s waiting
 * for the browser). Must not: print (cfg.say does). */
#ifndef BELAY_HTTP_HTTP_OAUTH_LOGIN_H
#define BELAY_HTTP_HTTP_OAUTH_LOGIN_H

#include "common/err.h"

struct http_oauth_login_cfg {
	const char *upstream;	   /* the MCP server's URL */
	const char *state_dir;	   /* where the tokens and the flow's log go */
	const char *client_id;	   /* a client registered by hand; NULL: dynamic registration */
	const char *client_secret; /* its secret, if it has one; NULL: none */
	const char *scope;	   /* NULL: the 401's scope, else the metadata's scopes_supported */
	unsigned redirect_port;	   /* the loopback redirect's port; 0: any free one */
	unsigned timeout_s;	   /* how long to wait for the browser's redirect */
	/* A line for the user (the URL to open, what was saved). */
	void (*say)(void *ctx, const char *line);
	/* Try to open the URL in a browser (may be NULL). */
	void (*open_url)(void *ctx, const char *url);
	void *ctx;
};

/* Runs the flow; 0 once the tokens are saved. */
int http_oauth_login(const struct http_oauth_login_cfg *c, struct err *e);

#endif
