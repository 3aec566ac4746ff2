/* http_oauth_login.c - belay's OAuth authorization flow with one MCP server (http_oauth_login.h). */
#include "http/http_oauth_login.h"

#include <arpa/inet.h>
#include <curl/curl.h>
#include <errno.h>
#include <stdarg.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "common/buf.h"
#include "common/fsutil.h"
#include "common/hash.h"
#include "common/jsonx.h"
#include "common/xalloc.h"
#include "http/http_oauth_net.h"
#include "http/http_oauth_store.h"

struct flow {
	const struct http_oauth_login_cfg *c;
	char *log;
	char *resource, *as_url;
	char *auth_ep, *token_ep, *reg_ep, *issuer;
	char *scope;
	char *client_id, *client_secret;
	int lfd;
	unsigned port;
	char *redirect_uri;
	char verifier[64], challenge[64], state[40];
};

static void say(struct flow *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void say(struct flow *f, const char *fmt, ...)
{
	if (!f->c->say)
		return;
	struct buf b = {0};
	va_list ap;
	va_start(ap, fmt);
	buf_vprintf(&b, fmt, ap);
	va_end(ap);
	f->c->say(f->c->ctx, buf_cstr(&b));
	buf_free(&b);
}

/* scheme://host[:port] of url (new string). */
static char *origin_of(const char *url)
{
	const char *h = strstr(url, "://");
	h = h ? h + 3 : url;
	return xstrndup(url, (size_t)(h - url) + strcspn(h, "/?#"));
}

/* The path of url without query, "" for "/" or none (new string). */
static char *path_of(const char *url)
{
	const char *h = strstr(url, "://");
	h = h ? h + 3 : url;
	const char *p = h + strcspn(h, "/?#");
	size_t n = strcspn(p, "?#");
	while (n && p[n - 1] == '/')
		n--;
	return xstrndup(p, n);
}

static int same_resource(const char *a, const char *b)
{
	size_t la = strcspn(a, "#"), lb = strcspn(b, "#");
	while (la && a[la - 1] == '/')
		la--;
	while (lb && b[lb - 1] == '/')
		lb--;
	return la == lb && !strncmp(a, b, la);
}

static void b64url(const uint8_t *in, size_t n, char *out, size_t cap)
{
	struct buf b = {0};
	base64_encode(in, n, &b);
	size_t k = 0;
	for (size_t i = 0; i < b.len && k + 1 < cap; i++) {
		char ch = b.p[i];
		if (ch == '=')
			break;
		out[k++] = ch == '+' ? '-' : ch == '/' ? '_' : ch;
	}
	out[k] = 0;
	buf_free(&b);
}

static int fill_random(void *p, size_t n, struct err *e)
{
	if (getrandom(p, n, 0) != (ssize_t)n)
		return err_set(e, -errno ? -errno : -EIO, "cannot draw random bytes for the OAuth flow");
	return 0;
}

/* 1. the protected resource's metadata: resource and authorization server */
static int discover_resource(struct flow *f, struct err *e)
{
	const char *up = f->c->upstream;
	struct http_oauth_resp r;
	int rc = http_oauth_net_get(f->log, "probe", up, &r, e);
	if (rc)
		return rc;
	char *prm = r.www_authenticate ? http_oauth_net_www_param(r.www_authenticate, "resource_metadata") : NULL;
	/* the scope the challenge names comes first (the MCP specification's scope selection) */
	char *challenge_scope = r.www_authenticate ? http_oauth_net_www_param(r.www_authenticate, "scope") : NULL;
	long probe_status = r.status;
	http_oauth_resp_free(&r);
	char *origin = origin_of(up), *path = path_of(up);
	char *tries[3] = {prm, xasprintf("%s/.well-known/oauth-protected-resource%s", origin, path),
			  *path ? xasprintf("%s/.well-known/oauth-protected-resource", origin) : NULL};
	cJSON *meta = NULL;
	for (int i = 0; i < 3 && !meta; i++) {
		if (!tries[i])
			continue;
		if (http_oauth_net_get(f->log, "resource_metadata", tries[i], &r, e) == 0 && r.status == 200 &&
		    cJSON_IsObject(r.json)) {
			meta = r.json;
			r.json = NULL;
		}
		http_oauth_resp_free(&r);
	}
	for (int i = 0; i < 3; i++)
		free(tries[i]);
	if (meta) {
		const char *res = jx_str(meta, "resource");
		cJSON *as = cJSON_GetObjectItemCaseSensitive(meta, "authorization_servers");
		cJSON *as0 = cJSON_IsArray(as) ? cJSON_GetArrayItem(as, 0) : NULL;
		if (!res || !same_resource(res, up)) {
			rc = err_set(e, BELAY_EREFUSED,
				     "the server's protected-resource metadata names the resource '%s', not %s: belay "
				     "does not authorize for another resource than the server's own",
				     res ? res : "(none)", up);
		} else if (!cJSON_IsString(as0)) {
			rc = err_set(e, BELAY_EINVAL, "the server's protected-resource metadata names no authorization server");
		} else {
			f->resource = xstrdup(res);
			f->as_url = xstrdup(as0->valuestring);
			cJSON *sc = cJSON_GetObjectItemCaseSensitive(meta, "scopes_supported");
			if (!f->c->scope && challenge_scope) {
				f->scope = challenge_scope;
				challenge_scope = NULL;
			} else if (!f->c->scope && cJSON_IsArray(sc)) {
				struct buf s = {0};
				for (cJSON *x = sc->child; x; x = x->next)
					if (cJSON_IsString(x))
						buf_printf(&s, "%s%s", s.len ? " " : "", x->valuestring);
				f->scope = s.len ? buf_take(&s) : NULL;
				buf_free(&s);
			}
		}
		cJSON_Delete(meta);
	} else if (probe_status == 401) {
		/* no metadata (an older server): the server's origin is its authorization server */
		f->resource = xstrdup(up);
		f->as_url = xstrdup(origin);
	} else {
		rc = err_set(e, BELAY_EREFUSED,
			     "%s answered %ld without asking for authorization and publishes no protected-resource "
			     "metadata: it does not use OAuth",
			     up, probe_status);
	}
	if (!rc && f->c->scope)
		f->scope = xstrdup(f->c->scope);
	else if (!rc && !f->scope && challenge_scope) {
		f->scope = challenge_scope;
		challenge_scope = NULL;
	}
	free(challenge_scope);
	free(origin);
	free(path);
	return rc;
}

/* https, or http to this machine's loopback (OAuth 2.1: codes and tokens never cross a network
 * in clear) */
static int secure_url(const char *u)
{
	if (!strncasecmp(u, "https://", 8))
		return 1;
	if (strncasecmp(u, "http://", 7))
		return 0;
	const char *h = u + 7;
	static const char *const loop[] = {"127.0.0.1", "localhost", "[::1]", NULL};
	for (const char *const *l = loop; *l; l++) {
		size_t n = strlen(*l);
		if (!strncasecmp(h, *l, n) && (h[n] == ':' || h[n] == '/' || !h[n]))
			return 1;
	}
	return 0;
}

/* 2. the authorization server's metadata */
static int discover_server(struct flow *f, struct err *e)
{
	char *origin = origin_of(f->as_url), *path = path_of(f->as_url);
	char *tries[4] = {xasprintf("%s/.well-known/oauth-authorization-server%s", origin, path),
			  xasprintf("%s/.well-known/openid-configuration%s", origin, path),
			  *path ? xasprintf("%s%s/.well-known/openid-configuration", origin, path) : NULL, NULL};
	cJSON *meta = NULL;
	for (int i = 0; i < 3 && !meta; i++) {
		if (!tries[i])
			continue;
		struct http_oauth_resp r;
		if (http_oauth_net_get(f->log, "server_metadata", tries[i], &r, e) == 0 && r.status == 200 &&
		    cJSON_IsObject(r.json)) {
			meta = r.json;
			r.json = NULL;
		}
		http_oauth_resp_free(&r);
	}
	for (int i = 0; i < 3; i++)
		free(tries[i]);
	free(origin);
	free(path);
	if (!meta)
		return err_set(e, BELAY_ENOTFOUND, "the authorization server %s publishes no metadata (RFC 8414)", f->as_url);
	int rc = 0;
	const char *ae = jx_str(meta, "authorization_endpoint"), *te = jx_str(meta, "token_endpoint");
	const char *re = jx_str(meta, "registration_endpoint"), *iss = jx_str(meta, "issuer");
	cJSON *pk = cJSON_GetObjectItemCaseSensitive(meta, "code_challenge_methods_supported");
	int s256 = 0;
	for (cJSON *m = cJSON_IsArray(pk) ? pk->child : NULL; m; m = m->next)
		s256 |= cJSON_IsString(m) && !strcmp(m->valuestring, "S256");
	if (!ae || !te)
		rc = err_set(e, BELAY_EINVAL, "the authorization server's metadata lacks its authorization or token endpoint");
	else if (!secure_url(ae) || !secure_url(te) || (re && !secure_url(re)))
		rc = err_set(e, BELAY_EREFUSED,
			     "the authorization server's endpoints are not https (nor on this machine's loopback): belay "
			     "sends no code or token over a network in clear");
	else if (!s256)
		rc = err_set(e, BELAY_EREFUSED,
			     "the authorization server does not offer PKCE with S256, which the MCP authorization "
			     "specification requires: belay does not authorize without it");
	else {
		f->auth_ep = xstrdup(ae);
		f->token_ep = xstrdup(te);
		f->reg_ep = re ? xstrdup(re) : NULL;
		f->issuer = xstrdup(iss ? iss : f->as_url);
	}
	cJSON_Delete(meta);
	return rc;
}

/* the loopback redirect's socket */
static int listen_redirect(struct flow *f, struct err *e)
{
	f->lfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (f->lfd < 0)
		return err_set(e, -errno, "socket: %s", strerror(errno));
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)f->c->redirect_port)};
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	int one = 1;
	setsockopt(f->lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
	if (bind(f->lfd, (struct sockaddr *)&a, sizeof a) || listen(f->lfd, 8))
		return err_set(e, -errno, "cannot listen on 127.0.0.1:%u for the authorization's redirect: %s",
			       f->c->redirect_port, strerror(errno));
	socklen_t al = sizeof a;
	getsockname(f->lfd, (struct sockaddr *)&a, &al);
	f->port = ntohs(a.sin_port);
	f->redirect_uri = xasprintf("http://127.0.0.1:%u/callback", f->port);
	return 0;
}

/* 3. the client */
static int client(struct flow *f, struct err *e)
{
	if (f->c->client_id) {
		f->client_id = xstrdup(f->c->client_id);
		f->client_secret = f->c->client_secret ? xstrdup(f->c->client_secret) : NULL;
		return 0;
	}
	if (!f->reg_ep)
		return err_set(e, BELAY_EREFUSED,
			       "the authorization server offers no dynamic client registration: register belay with "
			       "it by hand (redirect URI http://127.0.0.1:PORT/callback) and pass --client-id "
			       "(and --redirect-port PORT)");
	cJSON *b = cJSON_CreateObject();
	cJSON_AddStringToObject(b, "client_name", "belay");
	cJSON *ru = cJSON_AddArrayToObject(b, "redirect_uris");
	cJSON_AddItemToArray(ru, cJSON_CreateString(f->redirect_uri));
	cJSON *gt = cJSON_AddArrayToObject(b, "grant_types");
	cJSON_AddItemToArray(gt, cJSON_CreateString("authorization_code"));
	cJSON_AddItemToArray(gt, cJSON_CreateString("refresh_token"));
	cJSON *rt = cJSON_AddArrayToObject(b, "response_types");
	cJSON_AddItemToArray(rt, cJSON_CreateString("code"));
	cJSON_AddStringToObject(b, "token_endpoint_auth_method", "none");
	if (f->scope)
		cJSON_AddStringToObject(b, "scope", f->scope);
	struct http_oauth_resp r;
	int rc = http_oauth_net_json(f->log, "register", f->reg_ep, b, &r, e);
	cJSON_Delete(b);
	if (rc)
		return rc;
	const char *id = r.json ? jx_str(r.json, "client_id") : NULL;
	if ((r.status != 200 && r.status != 201) || !id || !*id) {
		const char *code = r.json ? jx_str(r.json, "error") : NULL;
		rc = err_set(e, BELAY_EREFUSED, "the authorization server refused belay's registration (HTTP %ld%s%s)",
			     r.status, code ? ": " : "", code ? code : "");
	} else {
		f->client_id = xstrdup(id);
		const char *cs = jx_str(r.json, "client_secret");
		f->client_secret = cs && *cs ? xstrdup(cs) : NULL;
	}
	http_oauth_resp_free(&r);
	return rc;
}

static char *query_param(const char *query, const char *name)
{
	size_t nl = strlen(name);
	for (const char *p = query; p && *p;) {
		size_t n = strcspn(p, "&");
		if (n > nl && !strncmp(p, name, nl) && p[nl] == '=') {
			int outlen = 0;
			char *v = curl_easy_unescape(NULL, p + nl + 1, (int)(n - nl - 1), &outlen);
			char *r = v ? xstrndup(v, (size_t)outlen) : NULL;
			curl_free(v);
			return r;
		}
		p += n + (p[n] == '&');
	}
	return NULL;
}

static void answer(int fd, int status, const char *text)
{
	char *resp = xasprintf("HTTP/1.1 %d %s\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: %zu\r\n"
			       "Cache-Control: no-store\r\nConnection: close\r\n\r\n%s",
			       status, status == 200 ? "OK" : status == 404 ? "Not Found" : "Bad Request", strlen(text),
			       text);
	ssize_t w = write(fd, resp, strlen(resp));
	(void)w;
	free(resp);
}

/* 4. waits for the browser's redirect; *code (new string) once it came with our state */
static int wait_code(struct flow *f, char **code, struct err *e)
{
	time_t until = time(NULL) + (f->c->timeout_s ? f->c->timeout_s : 300);
	for (;;) {
		time_t left = until - time(NULL);
		if (left <= 0)
			return err_set(e, BELAY_ETIMEOUT,
				       "no authorization came back within %u s (the browser is redirected to %s once "
				       "the server's page was approved)",
				       f->c->timeout_s, f->redirect_uri);
		struct pollfd pf = {.fd = f->lfd, .events = POLLIN};
		if (poll(&pf, 1, (int)(left > 1000 ? 1000000 : left * 1000)) <= 0)
			continue;
		int fd = accept4(f->lfd, NULL, NULL, SOCK_CLOEXEC);
		if (fd < 0)
			continue;
		struct timeval tv = {.tv_sec = 5};
		setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
		char req[8192];
		size_t got = 0;
		while (got < sizeof req - 1) {
			ssize_t n = read(fd, req + got, sizeof req - 1 - got);
			if (n <= 0)
				break;
			got += (size_t)n;
			req[got] = 0;
			if (strstr(req, "\r\n\r\n") || strstr(req, "\n\n"))
				break;
		}
		req[got] = 0;
		char *line_end = strpbrk(req, "\r\n");
		if (line_end)
			*line_end = 0;
		if (strncmp(req, "GET /callback", 13) || (req[13] != '?' && req[13] != ' ')) {
			answer(fd, 404, "belay: this port only takes the authorization's redirect to /callback\n");
			close(fd);
			continue;
		}
		char *sp = strchr(req + 4, ' ');
		if (sp)
			*sp = 0;
		const char *q = req[13] == '?' ? req + 14 : "";
		char *st = query_param(q, "state"), *c = query_param(q, "code"), *err = query_param(q, "error");
		char *desc = query_param(q, "error_description");
		int ours = st && !strcmp(st, f->state);
		cJSON *n = cJSON_CreateObject();
		cJSON_AddBoolToObject(n, "state_matches", ours);
		if (c)
			cJSON_AddStringToObject(n, "code", c);
		if (err)
			cJSON_AddStringToObject(n, "error", err);
		http_oauth_net_note(f->log, "redirect", n);
		int rc = 1;
		if (!ours) {
			answer(fd, 400, "belay: this redirect is not of the authorization belay is waiting for (its state "
					"differs); ignored\n");
		} else if (err || !c) {
			answer(fd, 400, "belay: the authorization was not granted; see belay's terminal\n");
			rc = err_set(e, BELAY_EREFUSED, "the authorization server did not grant the authorization: %s%s%s",
				     err ? err : "no code", desc ? ": " : "", desc ? desc : "");
		} else {
			answer(fd, 200, "belay is authorized. You can close this page.\n");
			*code = c;
			c = NULL;
			rc = 0;
		}
		close(fd);
		free(st);
		free(c);
		free(err);
		free(desc);
		if (rc <= 0)
			return rc;
	}
}

static void flow_free(struct flow *f)
{
	free(f->log);
	free(f->resource);
	free(f->as_url);
	free(f->auth_ep);
	free(f->token_ep);
	free(f->reg_ep);
	free(f->issuer);
	free(f->scope);
	free(f->client_id);
	free(f->client_secret);
	free(f->redirect_uri);
	if (f->lfd >= 0)
		close(f->lfd);
	explicit_bzero(f->verifier, sizeof f->verifier);
}

static void add_param(struct buf *b, const char *name, const char *value)
{
	if (!value)
		return;
	char *v = curl_easy_escape(NULL, value, 0);
	buf_printf(b, "&%s=%s", name, v);
	curl_free(v);
}

int http_oauth_login(const struct http_oauth_login_cfg *c, struct err *e)
{
	struct flow f = {.c = c, .lfd = -1};
	char *dir = xasprintf("%s/http", c->state_dir);
	int rc = fs_mkdir_p(dir, 0700, e);
	free(dir);
	if (rc)
		return rc;
	f.log = http_oauth_store_log_path(c->state_dir, c->upstream);
	http_oauth_net_note(f.log, "login", cJSON_CreateObject());
	char *code = NULL;
	uint8_t rnd[32];
	if ((rc = discover_resource(&f, e)) || (rc = discover_server(&f, e)) || (rc = listen_redirect(&f, e)) ||
	    (rc = client(&f, e)) || (rc = fill_random(rnd, sizeof rnd, e)))
		goto out;
	b64url(rnd, sizeof rnd, f.verifier, sizeof f.verifier);
	uint8_t h[SHA256_LEN];
	sha256(f.verifier, strlen(f.verifier), h);
	b64url(h, sizeof h, f.challenge, sizeof f.challenge);
	if ((rc = fill_random(rnd, 16, e)))
		goto out;
	hex_encode(rnd, 16, f.state);
	explicit_bzero(rnd, sizeof rnd);

	struct buf url = {0};
	buf_printf(&url, "%s%sresponse_type=code", f.auth_ep, strchr(f.auth_ep, '?') ? "&" : "?");
	add_param(&url, "client_id", f.client_id);
	add_param(&url, "redirect_uri", f.redirect_uri);
	add_param(&url, "code_challenge", f.challenge);
	add_param(&url, "code_challenge_method", "S256");
	add_param(&url, "state", f.state);
	add_param(&url, "resource", f.resource);
	add_param(&url, "scope", f.scope);
	cJSON *n = cJSON_CreateObject();
	cJSON_AddStringToObject(n, "authorization_endpoint", f.auth_ep);
	cJSON_AddStringToObject(n, "client_id", f.client_id);
	cJSON_AddStringToObject(n, "redirect_uri", f.redirect_uri);
	cJSON_AddStringToObject(n, "resource", f.resource);
	if (f.scope)
		cJSON_AddStringToObject(n, "scope", f.scope);
	cJSON_AddStringToObject(n, "code_challenge_method", "S256");
	cJSON_AddStringToObject(n, "state", f.state);
	http_oauth_net_note(f.log, "authorize", n);
	say(&f, "belay: to authorize belay with %s, open this URL in a browser:", c->upstream);
	say(&f, "%s", buf_cstr(&url));
	say(&f, "belay: waiting for the browser's redirect to %s", f.redirect_uri);
	if (c->open_url)
		c->open_url(c->ctx, buf_cstr(&url));
	buf_free(&url);
	if ((rc = wait_code(&f, &code, e)))
		goto out;

	struct http_oauth_tok t = {
		.upstream = xstrdup(c->upstream),
		.resource = xstrdup(f.resource),
		.issuer = xstrdup(f.issuer),
		.token_endpoint = xstrdup(f.token_ep),
		.client_id = xstrdup(f.client_id),
		.client_secret = f.client_secret ? xstrdup(f.client_secret) : NULL,
	};
	const char *grant[] = {"grant_type", "authorization_code", "code", code, "code_verifier", f.verifier,
			       "redirect_uri", f.redirect_uri, NULL};
	rc = http_oauth_net_grant(f.log, "token", &t, grant, e);
	if (!rc)
		rc = http_oauth_store_save(c->state_dir, &t, e);
	if (!rc) {
		char *p = http_oauth_store_path(c->state_dir, c->upstream);
		cJSON *s = cJSON_CreateObject();
		cJSON_AddStringToObject(s, "saved", p);
		cJSON_AddBoolToObject(s, "has_refresh_token", t.refresh_token != NULL);
		cJSON_AddNumberToObject(s, "expires_in", (double)t.lifetime);
		http_oauth_net_note(f.log, "saved", s);
		say(&f, "belay: authorized; the tokens are in %s (0600), read only by belay-http", p);
		free(p);
	}
	http_oauth_store_free(&t);
out:
	if (code) {
		explicit_bzero(code, strlen(code));
		free(code);
	}
	if (rc) {
		cJSON *x = cJSON_CreateObject();
		cJSON_AddStringToObject(x, "error", e->msg);
		http_oauth_net_note(f.log, "failed", x);
	}
	flow_free(&f);
	return rc;
}
