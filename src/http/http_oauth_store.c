/* http_oauth_store.c - belay's OAuth authorization with one upstream, on disk (http_oauth_store.h). */
#include "http/http_oauth_store.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "common/buf.h"
#include "common/fsutil.h"
#include "common/hash.h"
#include "common/jsonx.h"
#include "common/xalloc.h"

static char *store_file(const char *state_dir, const char *upstream, const char *ext)
{
	uint8_t h[SHA256_LEN];
	char hex[2 * SHA256_LEN + 1];
	sha256(upstream, strlen(upstream), h);
	hex_encode(h, SHA256_LEN, hex);
	hex[16] = 0;
	return xasprintf("%s/http/%s.%s", state_dir, hex, ext);
}

char *http_oauth_store_path(const char *state_dir, const char *upstream)
{
	return store_file(state_dir, upstream, "oauth");
}

char *http_oauth_store_log_path(const char *state_dir, const char *upstream)
{
	return store_file(state_dir, upstream, "oauth.log");
}

static char *dup_or_null(const cJSON *o, const char *k)
{
	const char *s = jx_str(o, k);
	return s && *s ? xstrdup(s) : NULL;
}

int http_oauth_store_load(const char *state_dir, const char *upstream, struct http_oauth_tok *t, struct err *e)
{
	memset(t, 0, sizeof *t);
	char *p = http_oauth_store_path(state_dir, upstream);
	struct buf b = {0};
	struct err re = {0};
	int rc = fs_read_file(p, 1 << 20, &b, &re);
	if (rc) {
		rc = rc == -ENOENT ? err_set(e, -ENOENT, "belay holds no OAuth authorization for this server")
				   : err_set(e, rc, "%s: %s", p, re.msg);
		free(p);
		buf_free(&b);
		return rc;
	}
	cJSON *o = cJSON_ParseWithLength(b.p ? b.p : "", b.len);
	buf_free(&b);
	const char *up = o ? jx_str(o, "upstream") : NULL;
	if (!up || strcmp(up, upstream) || !jx_str(o, "token_endpoint") || !jx_str(o, "client_id") ||
	    !jx_str(o, "access_token")) {
		cJSON_Delete(o);
		rc = err_set(e, BELAY_EINVAL, "%s is not an OAuth authorization belay wrote for this server", p);
		free(p);
		return rc;
	}
	free(p);
	t->upstream = xstrdup(up);
	t->resource = dup_or_null(o, "resource");
	t->issuer = dup_or_null(o, "issuer");
	t->token_endpoint = dup_or_null(o, "token_endpoint");
	t->client_id = dup_or_null(o, "client_id");
	t->client_secret = dup_or_null(o, "client_secret");
	t->access_token = dup_or_null(o, "access_token");
	t->refresh_token = dup_or_null(o, "refresh_token");
	t->scope = dup_or_null(o, "scope");
	long long v = 0;
	if (jx_int(o, "expires_at", 0, (long long)1 << 40, &v) == 1)
		t->expires_at = v;
	if (jx_int(o, "lifetime", 0, (long long)1 << 40, &v) == 1)
		t->lifetime = v;
	cJSON_Delete(o);
	return 0;
}

static void put(cJSON *o, const char *k, const char *v)
{
	if (v)
		cJSON_AddStringToObject(o, k, v);
}

int http_oauth_store_save(const char *state_dir, const struct http_oauth_tok *t, struct err *e)
{
	char *dir = fs_join(state_dir, "http");
	int rc = fs_mkdir_p(dir, 0700, e);
	free(dir);
	if (rc)
		return rc;
	cJSON *o = cJSON_CreateObject();
	put(o, "upstream", t->upstream);
	put(o, "resource", t->resource);
	put(o, "issuer", t->issuer);
	put(o, "token_endpoint", t->token_endpoint);
	put(o, "client_id", t->client_id);
	put(o, "client_secret", t->client_secret);
	put(o, "access_token", t->access_token);
	put(o, "refresh_token", t->refresh_token);
	put(o, "scope", t->scope);
	cJSON_AddNumberToObject(o, "expires_at", (double)t->expires_at);
	cJSON_AddNumberToObject(o, "lifetime", (double)t->lifetime);
	char *text = jx_print(o);
	cJSON_Delete(o);
	char *p = http_oauth_store_path(state_dir, t->upstream);
	rc = fs_write_file_atomic(p, text, strlen(text), 0600, e);
	explicit_bzero(text, strlen(text));
	free(text);
	free(p);
	return rc;
}

void http_oauth_store_free(struct http_oauth_tok *t)
{
	char **f[] = {&t->upstream, &t->resource, &t->issuer, &t->token_endpoint, &t->client_id,
		      &t->client_secret, &t->access_token, &t->refresh_token, &t->scope};
	for (size_t i = 0; i < sizeof f / sizeof *f; i++) {
		free(*f[i]);
		*f[i] = NULL;
	}
}
