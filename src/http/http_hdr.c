/* http_hdr.c - headers and URLs as they may be recorded (http_hdr.h). */
#include "http/http_hdr.h"

#include <string.h>
#include <strings.h>

#include "common/buf.h"
#include "common/hash.h"
#include "common/secret.h"
#include "common/xalloc.h"

static const char *const credential_names[] = {
	"authorization", "proxy-authorization", "cookie", "set-cookie", "x-api-key", "api-key", NULL,
};

/* Facts recorded in clear although a name heuristic would call them secret. */
static const char *const fact_names[] = {"mcp-session-id", "mcp-protocol-version", "content-type", "last-event-id",
					 NULL};

static int in(const char *const *list, const char *name)
{
	for (; *list; list++)
		if (!strcasecmp(*list, name))
			return 1;
	return 0;
}

int http_hdr_credential(const char *name, const char *value)
{
	if (in(credential_names, name))
		return 1;
	if (in(fact_names, name))
		return 0;
	return secret_name_like(name) || (value && secret_value_like(value, strlen(value)));
}

int http_hdr_hop(const char *name)
{
	static const char *const hop[] = {"connection", "keep-alive", "transfer-encoding", "te", "trailer", "upgrade",
					  "proxy-connection", "host", "content-length", NULL};
	return in(hop, name);
}

void http_hdr_add_credential(cJSON *arr, const char *name, const char *value)
{
	char h[72];
	sha256_tagged(value ? value : "", value ? strlen(value) : 0, h);
	cJSON *o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "name", name);
	cJSON_AddStringToObject(o, "sha256", h);
	cJSON_AddItemToArray(arr, o);
}

char *http_hdr_redact_url(const char *url)
{
	struct buf b = {0};
	const char *p = strstr(url, "://");
	const char *host = p ? p + 3 : url;
	if (p)
		buf_append(&b, url, (size_t)(host - url));
	const char *path = host + strcspn(host, "/?#");
	const char *at = memchr(host, '@', (size_t)(path - host));
	if (at)
		host = at + 1; /* user:password@ dropped */
	buf_append(&b, host, (size_t)(path - host));
	size_t pl = strcspn(path, "?#");
	buf_append(&b, path, pl);
	if (path[pl]) {
		char h[72];
		sha256_tagged(path + pl + 1, strlen(path + pl + 1), h);
		buf_printf(&b, "?%s", h);
	}
	return buf_take(&b);
}

char *http_hdr_resolve(const char *base, const char *ref)
{
	if (strstr(ref, "://"))
		return xstrdup(ref);
	const char *host = strstr(base, "://");
	host = host ? host + 3 : base;
	const char *path = host + strcspn(host, "/?#");
	if (ref[0] == '/')
		return xasprintf("%.*s%s", (int)(path - base), base, ref);
	size_t pl = strcspn(path, "?#");
	const char *slash = NULL;
	for (const char *s = path; s < path + pl; s++)
		if (*s == '/')
			slash = s;
	size_t keep = slash ? (size_t)(slash + 1 - base) : (size_t)(path - base);
	return xasprintf("%.*s%s%s", (int)keep, base, slash ? "" : "/", ref);
}

int http_hdr_same_origin(const char *a, const char *b)
{
	const char *ha = strstr(a, "://"), *hb = strstr(b, "://");
	if (!ha || !hb)
		return 0;
	size_t la = (size_t)(ha + 3 - a) + strcspn(ha + 3, "/?#"), lb = (size_t)(hb + 3 - b) + strcspn(hb + 3, "/?#");
	return la == lb && !strncasecmp(a, b, la);
}
