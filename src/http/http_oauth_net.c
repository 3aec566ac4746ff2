/* http_oauth_net.c - the OAuth flow's requests, logged without secrets (http_oauth_net.h). */
#include "http/http_oauth_net.h"

#include <curl/curl.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include <strings.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "common/buf.h"
#include "common/fsutil.h"
#include "common/hash.h"
#include "common/jsonx.h"
#include "common/secret.h"
#include "common/timeutil.h"
#include "common/xalloc.h"
#include "http/http_hdr.h"

#define NET_MAX_BODY (1u << 20)

static const char *const secret_fields[] = {"code", "code_verifier", "state", "access_token", "refresh_token",
					    "id_token", "client_secret", "registration_access_token", "password",
					    "assertion", NULL};

static int secret_field(const char *name, const char *value)
{
	for (const char *const *s = secret_fields; *s; s++)
		if (!strcasecmp(*s, name))
			return 1;
	return value && secret_value_like(value, strlen(value));
}

static cJSON *hashed(const char *value)
{
	char h[72];
	sha256_tagged(value, strlen(value), h);
	cJSON *o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "sha256", h);
	return o;
}

/* A copy of a JSON object whose secret members are hashed (one level; nested objects as a
 * whole only when their name is a secret's). */
static cJSON *redacted(const cJSON *o)
{
	if (!cJSON_IsObject(o))
		return o ? cJSON_Duplicate(o, 1) : NULL;
	cJSON *r = cJSON_CreateObject();
	for (const cJSON *m = o->child; m; m = m->next) {
		if (cJSON_IsString(m) && secret_field(m->string, m->valuestring))
			cJSON_AddItemToObject(r, m->string, hashed(m->valuestring));
		else if (!cJSON_IsString(m) && secret_field(m->string, NULL))
			cJSON_AddStringToObject(r, m->string, "(not a string: dropped)");
		else
			cJSON_AddItemToObject(r, m->string, cJSON_Duplicate(m, 1));
	}
	return r;
}

/* The log open for appending `add` bytes, locked; rotated to LOG.1 first when they would take
 * it past HTTP_OAUTH_LOG_MAX. Another process may have rotated it while this one waited for
 * the lock: the path then names a newer file, opened in turn. -1 when it cannot be opened. */
static int log_open(const char *log, size_t add)
{
	for (int tries = 0; tries < 4; tries++) {
		int fd = open(log, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
		if (fd < 0)
			return -1;
		struct stat fst, pst;
		if (flock(fd, LOCK_EX) != 0 || fstat(fd, &fst) != 0) {
			close(fd);
			return -1;
		}
		if (stat(log, &pst) != 0 || pst.st_ino != fst.st_ino || pst.st_dev != fst.st_dev) {
			close(fd); /* rotated away while this one waited */
			continue;
		}
		if (fst.st_size == 0 || (uint64_t)fst.st_size + add <= HTTP_OAUTH_LOG_MAX)
			return fd;
		char *old = xasprintf("%s.1", log);
		int moved = rename(log, old);
		free(old);
		close(fd);
		if (moved != 0)
			return -1;
	}
	return -1;
}

static void log_line(const char *log, cJSON *line)
{
	if (!log) {
		cJSON_Delete(line);
		return;
	}
	char ts[ISO_TS_LEN];
	time_now_iso8601(ts);
	cJSON_AddStringToObject(line, "time", ts);
	struct buf b = {0};
	jx_print_buf(line, &b);
	buf_putc(&b, '\n');
	cJSON_Delete(line);
	int fd = log_open(log, b.len);
	if (fd >= 0) {
		(void)fs_write_all(fd, b.p, b.len);
		close(fd); /* and its lock */
	}
	buf_free(&b);
}

void http_oauth_net_note(const char *log, const char *step, cJSON *fields)
{
	cJSON *line = redacted(fields);
	cJSON_Delete(fields);
	cJSON *out = cJSON_CreateObject();
	cJSON_AddStringToObject(out, "step", step);
	for (cJSON *m = line->child; m;) {
		cJSON *next = m->next;
		cJSON_AddItemToObject(out, m->string, cJSON_DetachItemViaPointer(line, m));
		m = next;
	}
	cJSON_Delete(line);
	log_line(log, out);
}

void http_oauth_resp_free(struct http_oauth_resp *r)
{
	cJSON_Delete(r->json);
	free(r->www_authenticate);
	memset(r, 0, sizeof *r);
}

struct sink {
	struct buf body;
	int over;
	char *www;
};

static size_t on_body(char *p, size_t sz, size_t n, void *ctx)
{
	struct sink *s = ctx;
	if (s->body.len + n > NET_MAX_BODY) {
		s->over = 1;
		return 0;
	}
	buf_append(&s->body, p, sz * n);
	return sz * n;
}

static size_t on_header(char *p, size_t sz, size_t n, void *ctx)
{
	struct sink *s = ctx;
	size_t len = sz * n;
	if (len > 17 && !strncasecmp(p, "www-authenticate:", 17)) {
		const char *v = p + 17;
		size_t vl = len - 17;
		while (vl && (*v == ' ' || *v == '\t'))
			v++, vl--;
		while (vl && (v[vl - 1] == '\r' || v[vl - 1] == '\n' || v[vl - 1] == ' '))
			vl--;
		free(s->www);
		s->www = xstrndup(v, vl);
	}
	return len;
}

/* One request; `sent` (taken) is what the log says was sent. */
static int exchange(const char *log, const char *step, const char *method, const char *url, const char *ctype,
		    const char *body, cJSON *sent, struct http_oauth_resp *r, struct err *e)
{
	memset(r, 0, sizeof *r);
	struct sink s = {0};
	char errbuf[CURL_ERROR_SIZE] = {0};
	CURL *h = curl_easy_init();
	struct curl_slist *hdrs = curl_slist_append(NULL, "Accept: application/json");
	char *ct = NULL;
	if (ctype) {
		ct = xasprintf("Content-Type: %s", ctype);
		hdrs = curl_slist_append(hdrs, ct);
	}
	curl_easy_setopt(h, CURLOPT_URL, url);
	curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(h, CURLOPT_ERRORBUFFER, errbuf);
	curl_easy_setopt(h, CURLOPT_HTTPHEADER, hdrs);
	curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, on_body);
	curl_easy_setopt(h, CURLOPT_WRITEDATA, &s);
	curl_easy_setopt(h, CURLOPT_HEADERFUNCTION, on_header);
	curl_easy_setopt(h, CURLOPT_HEADERDATA, &s);
	curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR, "http,https");
	curl_easy_setopt(h, CURLOPT_FOLLOWLOCATION, 0L);
	curl_easy_setopt(h, CURLOPT_TIMEOUT, 30L);
	curl_easy_setopt(h, CURLOPT_USERAGENT, "belay");
	if (body) {
		curl_easy_setopt(h, CURLOPT_POSTFIELDS, body);
		curl_easy_setopt(h, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)strlen(body));
	}
	CURLcode cc = curl_easy_perform(h);
	curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &r->status);
	curl_easy_cleanup(h);
	curl_slist_free_all(hdrs);
	free(ct);

	cJSON *line = cJSON_CreateObject();
	cJSON_AddStringToObject(line, "step", step);
	cJSON_AddStringToObject(line, "method", method);
	char *ru = http_hdr_redact_url(url);
	cJSON_AddStringToObject(line, "url", ru);
	free(ru);
	if (sent)
		cJSON_AddItemToObject(line, "sent", sent);
	int rc = 0;
	if (cc != CURLE_OK && !(cc == CURLE_WRITE_ERROR && s.over)) {
		cJSON_AddStringToObject(line, "error", errbuf[0] ? errbuf : curl_easy_strerror(cc));
		rc = err_set(e, -ECONNREFUSED, "%s %s: %s", method, url, errbuf[0] ? errbuf : curl_easy_strerror(cc));
	} else {
		cJSON_AddNumberToObject(line, "status", (double)r->status);
		r->json = s.over ? NULL : cJSON_ParseWithLength(s.body.p ? s.body.p : "", s.body.len);
		if (r->json)
			cJSON_AddItemToObject(line, "got", redacted(r->json));
		else
			cJSON_AddNumberToObject(line, "got_bytes", (double)s.body.len);
		if (s.www) {
			cJSON *w = cJSON_CreateObject();
			char *rm = http_oauth_net_www_param(s.www, "resource_metadata");
			if (rm) {
				char *rr = http_hdr_redact_url(rm);
				cJSON_AddStringToObject(w, "resource_metadata", rr);
				free(rr);
				free(rm);
			}
			cJSON_AddItemToObject(line, "www_authenticate", w);
		}
		r->www_authenticate = s.www;
		s.www = NULL;
	}
	log_line(log, line);
	free(s.www);
	buf_free(&s.body);
	return rc;
}

int http_oauth_net_get(const char *log, const char *step, const char *url, struct http_oauth_resp *r, struct err *e)
{
	return exchange(log, step, "GET", url, NULL, NULL, NULL, r, e);
}

int http_oauth_net_form(const char *log, const char *step, const char *url, const char *const *form,
			struct http_oauth_resp *r, struct err *e)
{
	struct buf b = {0};
	cJSON *sent = cJSON_CreateObject();
	for (size_t i = 0; form[i]; i += 2) {
		if (!form[i + 1])
			continue;
		char *k = curl_easy_escape(NULL, form[i], 0), *v = curl_easy_escape(NULL, form[i + 1], 0);
		buf_printf(&b, "%s%s=%s", b.len ? "&" : "", k, v);
		curl_free(k);
		curl_free(v);
		if (secret_field(form[i], form[i + 1]))
			cJSON_AddItemToObject(sent, form[i], hashed(form[i + 1]));
		else
			cJSON_AddStringToObject(sent, form[i], form[i + 1]);
	}
	int rc = exchange(log, step, "POST", url, "application/x-www-form-urlencoded", b.p ? b.p : "", sent, r, e);
	if (b.p)
		explicit_bzero(b.p, b.len);
	buf_free(&b);
	return rc;
}

int http_oauth_net_json(const char *log, const char *step, const char *url, const cJSON *body,
			struct http_oauth_resp *r, struct err *e)
{
	char *text = jx_print(body);
	int rc = exchange(log, step, "POST", url, "application/json", text, redacted(body), r, e);
	free(text);
	return rc;
}

static char *str_or_null(const cJSON *o, const char *k)
{
	const char *s = jx_str(o, k);
	return s && *s ? xstrdup(s) : NULL;
}

int http_oauth_net_grant(const char *log, const char *step, struct http_oauth_tok *t, const char *const *grant,
			 struct err *e)
{
	const char *form[32];
	size_t k = 0;
	for (size_t i = 0; grant[i] && k < 24; i += 2)
		form[k++] = grant[i], form[k++] = grant[i + 1];
	form[k++] = "client_id", form[k++] = t->client_id;
	form[k++] = "client_secret", form[k++] = t->client_secret;
	form[k++] = "resource", form[k++] = t->resource;
	form[k] = NULL;
	struct http_oauth_resp r;
	int rc = http_oauth_net_form(log, step, t->token_endpoint, form, &r, e);
	if (rc)
		return rc;
	const char *at = r.json ? jx_str(r.json, "access_token") : NULL;
	if (r.status != 200 || !at || !*at) {
		const char *code = r.json ? jx_str(r.json, "error") : NULL;
		const char *desc = r.json ? jx_str(r.json, "error_description") : NULL;
		rc = err_set(e, BELAY_EREFUSED, "the authorization server refused the %s grant (HTTP %ld%s%s%s%s)",
			     grant[1] ? grant[1] : "token", r.status, code ? ": " : "", code ? code : "",
			     desc ? ", " : "", desc ? desc : "");
		http_oauth_resp_free(&r);
		return rc;
	}
	free(t->access_token);
	t->access_token = xstrdup(at);
	char *rt = str_or_null(r.json, "refresh_token");
	if (rt) {
		free(t->refresh_token);
		t->refresh_token = rt;
	}
	char *scope = str_or_null(r.json, "scope");
	if (scope) {
		free(t->scope);
		t->scope = scope;
	}
	long long ttl = 0;
	if (jx_int(r.json, "expires_in", 0, (long long)1 << 32, &ttl) == 1) {
		t->lifetime = ttl;
		t->expires_at = (long long)time(NULL) + ttl;
	} else {
		t->lifetime = 0;
		t->expires_at = 0;
	}
	http_oauth_resp_free(&r);
	return 0;
}

char *http_oauth_net_www_param(const char *header, const char *name)
{
	size_t nl = strlen(name);
	for (const char *p = header; p && *p; p++) {
		if (strncasecmp(p, name, nl) || (p != header && !strchr(" ,\t", p[-1])))
			continue;
		const char *v = p + nl;
		while (*v == ' ')
			v++;
		if (*v != '=')
			continue;
		v++;
		while (*v == ' ')
			v++;
		if (*v == '"') {
			const char *end = strchr(v + 1, '"');
			return end ? xstrndup(v + 1, (size_t)(end - v - 1)) : NULL;
		}
		return xstrndup(v, strcspn(v, " ,"));
	}
	return NULL;
}
