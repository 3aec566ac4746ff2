/* http_hdr.h - what of an HTTP header or URL may reach a trace (and the URL helpers the
 * proxy needs: resolving the old transport's endpoint, comparing origins). Credentials (Authorization,
 * Proxy-Authorization, Cookie, Set-Cookie, and any header whose name or value looks like a
 * token: common/secret.h) are recorded only by name and the SHA-256 of their value; the
 * MCP facts (Mcp-Session-Id, MCP-Protocol-Version, Content-Type, Last-Event-ID) in clear;
 * nothing else. An upstream URL is recorded without its user information and with its
 * query replaced by the query's hash (hosted servers put API keys there).
 *
 * Pure, thread-safe; every returned string is new (the caller frees it). */
#ifndef BELAY_HTTP_HTTP_HDR_H
#define BELAY_HTTP_HTTP_HDR_H
#include <cjson/cJSON.h>
#include <stddef.h>

/* 1 when the header (name, value) is a credential: recorded only by name and hash. */
int http_hdr_credential(const char *name, const char *value);
/* 1 for a hop-by-hop header a proxy must not forward (Connection, Keep-Alive,
 * Transfer-Encoding, TE, Trailer, Upgrade, Proxy-Connection), or one belay sets itself
 * (Host, Content-Length). */
int http_hdr_hop(const char *name);
/* Adds {"name": NAME, "sha256": "sha256:HEX"} to arr (a JSON array). */
void http_hdr_add_credential(cJSON *arr, const char *name, const char *value);
/* The URL as it may be recorded: scheme://host[:port]/path, userinfo dropped, a query or
 * fragment replaced by "?sha256:HEX" of what it held. */
char *http_hdr_redact_url(const char *url);
/* ref (an absolute URL, an absolute path or a relative one: the old transport's `endpoint`
 * event) resolved against base. */
char *http_hdr_resolve(const char *base, const char *ref);
/* 1 when both URLs have the same scheme://host[:port] (compared without case). */
int http_hdr_same_origin(const char *a, const char *b);

#endif
