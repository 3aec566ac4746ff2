/* http_oauth.h - belay-http's side of belay's OAuth authorization with its upstream (belay is
 * the OAuth client, http_oauth_login.h; the agent authenticates to belay with the listener's
 * secret and never holds a token): the Authorization header belay adds to every upstream
 * request, from the tokens `belay http login URL` kept (http_oauth_store.h), refreshed with
 * the refresh token when the access token expires or the server refused it — the new tokens
 * are saved at once, so a restarted belay-http goes on with them. The file is read again when
 * it changed (a login while belay-http runs takes effect at the next request).
 *
 * Threads: any listener thread, at once (one mutex; a refresh blocks the other callers until
 * it is done, so one refresh serves them all). Must not: print; log a token (the refresh's
 * exchange goes to the flow's log, hashed: http_oauth_net.h). */
#ifndef BELAY_HTTP_HTTP_OAUTH_H
#define BELAY_HTTP_HTTP_OAUTH_H

#include "common/err.h"

struct http_oauth;

/* A handle for upstream's tokens under state_dir (there may be none yet). */
struct http_oauth *http_oauth_new(const char *state_dir, const char *upstream);
void http_oauth_free(struct http_oauth *o);

/* The Authorization header's value for the next upstream request ("Bearer TOKEN", new string
 * in *value), refreshing first when the token has expired (or expires within a quarter of its
 * lifetime) or was refused. 0 with *value NULL when belay holds no authorization for this
 * upstream; *refreshed is 1 when a refresh happened. < 0 when a needed refresh failed (e
 * names `belay http login`). */
int http_oauth_bearer(struct http_oauth *o, char **value, int *refreshed, struct err *e);
/* The upstream answered 401 to a request that carried `value`: the next call refreshes. */
void http_oauth_rejected(struct http_oauth *o, const char *value);

#endif
