/* http_oauth_net.h - the requests of belay's OAuth flow (http_oauth_login.h) and of its token
 * refreshes (http_oauth.h), each logged without its secrets: one JSON line per exchange
 * appended to the flow's log (STATE/http/<hash>.oauth.log, 0600; http_oauth_store.h) with the
 * step, method, URL (http_hdr_redact_url), what was sent, the status and what came back. A
 * field that is a secret by name (code, code_verifier, state, access_token, refresh_token,
 * id_token, client_secret, registration_access_token) or looks like one (common/secret.h) is
 * logged as {"sha256": "sha256:HEX"} only. A line that would take the log past
 * HTTP_OAUTH_LOG_MAX bytes first moves it to LOG.1 (replacing the one before): at most two
 * generations, ~2 MiB, whatever the number of refreshes; appends are serialised by flock.
 *
 * Threads: any (each call uses its own libcurl easy handle; curl_global_init must have run,
 * as belay-http's main does). Blocks for up to 30 s per request. Must not: print. */
#ifndef BELAY_HTTP_HTTP_OAUTH_NET_H
#define BELAY_HTTP_HTTP_OAUTH_NET_H
#include <cjson/cJSON.h>

#include "common/err.h"
#include "http/http_oauth_store.h"

#define HTTP_OAUTH_LOG_MAX (1 << 20)

struct http_oauth_resp {
	long status;
	cJSON *json;		/* the body when it is JSON, else NULL */
	char *www_authenticate; /* the header when the server sent one, else NULL */
};
void http_oauth_resp_free(struct http_oauth_resp *r);

/* GET url (Accept: application/json). 0 once the server answered (any status); < 0 when it
 * could not be reached. log may be NULL (nothing logged). */
int http_oauth_net_get(const char *log, const char *step, const char *url, struct http_oauth_resp *r,
		       struct err *e);
/* POST url with a form (NULL-terminated name, value pairs; a NULL value skips the pair). */
int http_oauth_net_form(const char *log, const char *step, const char *url, const char *const *form,
			struct http_oauth_resp *r, struct err *e);
/* POST url with a JSON body (dynamic client registration). */
int http_oauth_net_json(const char *log, const char *step, const char *url, const cJSON *body,
			struct http_oauth_resp *r, struct err *e);

/* A token grant at t->token_endpoint: the pairs of `grant` (grant_type and its own fields)
 * plus client_id, client_secret (when t has one) and resource; on success t's access token,
 * expiry, scope and (when the server sent one) refresh token are replaced. An error names the
 * status and the server's `error` code. */
int http_oauth_net_grant(const char *log, const char *step, struct http_oauth_tok *t, const char *const *grant,
			 struct err *e);

/* A log line of the flow's own (no request): {"step": step, fields...} (fields taken; their
 * secret-named members hashed). */
void http_oauth_net_note(const char *log, const char *step, cJSON *fields);
/* The value of auth-param `name` in a WWW-Authenticate header (resource_metadata="..."), new
 * string, or NULL. */
char *http_oauth_net_www_param(const char *header, const char *name);

#endif
