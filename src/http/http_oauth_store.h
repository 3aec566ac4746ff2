/* http_oauth_store.h - what belay keeps of its OAuth authorization with one upstream (belay is
 * the OAuth client: docs/HTTP.md, docs/THREAT_MODEL.md): STATE/http/<sha256 of the URL, 16
 * hex>.oauth, one JSON object, 0600, written whole and atomically (a rename). It holds the
 * upstream and its resource (RFC 8707), the authorization server's issuer and token endpoint,
 * the client belay registered (client_id, and client_secret when the server gave one), the
 * access token, its expiry and the refresh token. No keyring: Debian servers run none, and
 * belay-http must refresh tokens unattended; the file is as private as the listener's secret
 * beside it (STATE/http/<hash>.listen). Nothing else belay writes holds these values: the
 * flow's log (STATE/http/<hash>.oauth.log) names them and their SHA-256 only.
 *
 * Threads: any; the struct is the caller's (no locking here). */
#ifndef BELAY_HTTP_HTTP_OAUTH_STORE_H
#define BELAY_HTTP_HTTP_OAUTH_STORE_H

#include "common/err.h"

struct http_oauth_tok {
	char *upstream, *resource;	    /* the server's URL; the resource tokens are bound to */
	char *issuer, *token_endpoint;	    /* the authorization server */
	char *client_id, *client_secret;    /* client_secret may be NULL (a public client) */
	char *access_token, *refresh_token; /* refresh_token may be NULL */
	char *scope;			    /* may be NULL */
	long long expires_at;		    /* unix seconds; 0: not said */
	long long lifetime;		    /* the last token's expires_in, seconds; 0: not said */
};

/* STATE/http/<hash>.oauth and the flow's log STATE/http/<hash>.oauth.log (new strings). */
char *http_oauth_store_path(const char *state_dir, const char *upstream);
char *http_oauth_store_log_path(const char *state_dir, const char *upstream);
/* Reads the file: 0 with *t filled; -ENOENT when belay holds no authorization for upstream;
 * BELAY_EINVAL when the file is not belay's. */
int http_oauth_store_load(const char *state_dir, const char *upstream, struct http_oauth_tok *t, struct err *e);
/* Writes it (0600, atomically; STATE/http made 0700). */
int http_oauth_store_save(const char *state_dir, const struct http_oauth_tok *t, struct err *e);
void http_oauth_store_free(struct http_oauth_tok *t);

#endif
