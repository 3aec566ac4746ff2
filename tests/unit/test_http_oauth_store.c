/* test_http_oauth_store.c - the parts of belay's OAuth client that need no server: the token
 * file (src/http/http_oauth_store.c: 0600, bound to its upstream), the flow's log without
 * secrets (http_oauth_net.c: secret fields by name and hash only), the WWW-Authenticate
 * parameter a 401 names its metadata with, and the listener's token source (http_oauth.c: no
 * file, no header; a fresh token as it is; a refused one refreshed, and a refresh that cannot
 * be done named with `belay http login`). The whole flow against a real server is
 * tests/unit/test_http_oauth.c. */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "common/buf.h"
#include "common/fsutil.h"
#include "common/hash.h"
#include "common/xalloc.h"
#include "http/http_oauth.h"
#include "http/http_oauth_net.h"
#include "http/http_oauth_store.h"
#include "tsupport.h"

static char *dir;

static void setup(void)
{
	dir = ts_tmpdir("http-oauth-store");
}

static void teardown(void)
{
	ts_rmtree(dir);
	free(dir);
}

TestSuite(http_oauth_store, .init = setup, .fini = teardown);

#define UP "https://mcp.example.com/mcp"

static void save(const char *access, long long expires_at, const char *refresh, const char *token_endpoint)
{
	struct http_oauth_tok t = {
		.upstream = UP,
		.resource = UP,
		.issuer = "https://auth.example.com/",
		.token_endpoint = (char *)token_endpoint,
		.client_id = "belay-client",
		.access_token = (char *)access,
		.refresh_token = (char *)refresh,
		.expires_at = expires_at,
		.lifetime = 3600,
	};
	struct err e = {0};
	cr_assert_eq(http_oauth_store_save(dir, &t, &e), 0, "%s", e.msg);
}

Test(http_oauth_store, the_token_file_is_0600_bound_to_its_upstream_and_reads_back)
{
	struct http_oauth_tok t;
	struct err e = {0};
	cr_assert_eq(http_oauth_store_load(dir, UP, &t, &e), -ENOENT, "no login yet");
	save("access-1", 1234567890, "refresh-1", "https://auth.example.com/token");
	char *p = http_oauth_store_path(dir, UP);
	struct stat st;
	cr_assert_eq(stat(p, &st), 0);
	cr_assert_eq(st.st_mode & 0777, 0600, "mode %o", st.st_mode & 0777);
	cr_assert_eq(http_oauth_store_load(dir, UP, &t, &e), 0, "%s", e.msg);
	cr_assert_str_eq(t.access_token, "access-1");
	cr_assert_str_eq(t.refresh_token, "refresh-1");
	cr_assert_str_eq(t.client_id, "belay-client");
	cr_assert_str_eq(t.resource, UP);
	cr_assert_eq(t.expires_at, 1234567890);
	cr_assert_null(t.client_secret, "a public client has none");
	http_oauth_store_free(&t);
	/* another upstream's file name is another file; a file naming another upstream is refused */
	char *other = http_oauth_store_path(dir, "https://other.example.com/mcp");
	cr_assert_str_neq(other, p);
	cr_assert_eq(ts_sh("cp %s %s", p, other), 0);
	cr_assert_eq(http_oauth_store_load(dir, "https://other.example.com/mcp", &t, &e), BELAY_EINVAL);
	free(other);
	free(p);
}

Test(http_oauth_store, the_flows_log_holds_secrets_by_name_and_hash_only)
{
	char *log = http_oauth_store_log_path(dir, UP);
	cr_assert_eq(ts_sh("mkdir -p %s/http", dir), 0);
	cJSON *f = cJSON_CreateObject();
	cJSON_AddStringToObject(f, "code", "the-code-4b1d");
	cJSON_AddStringToObject(f, "code_verifier", "the-verifier-77aa");
	cJSON_AddStringToObject(f, "state", "the-state-0c0c");
	cJSON_AddStringToObject(f, "access_token", "the-access-9e9e");
	cJSON_AddStringToObject(f, "refresh_token", "the-refresh-5f5f");
	cJSON_AddStringToObject(f, "client_secret", "the-secret-3d3d");
	cJSON_AddStringToObject(f, "whatever", "ghp_abcdefghijklmnopqrstuvwxyz0123456789");
	cJSON_AddStringToObject(f, "client_id", "belay-client");
	http_oauth_net_note(log, "token", f);
	size_t len = 0;
	char *text = ts_read_file(log, &len);
	cr_assert_not_null(text);
	const char *never[] = {"the-code-4b1d", "the-verifier-77aa", "the-state-0c0c", "the-access-9e9e",
			       "the-refresh-5f5f", "the-secret-3d3d", "ghp_abcdefghij"};
	for (size_t i = 0; i < sizeof never / sizeof *never; i++) {
		cr_assert_null(strstr(text, never[i]), "%s reached the log: %s", never[i], text);
		char h[72];
		const char *v = i == 6 ? "ghp_abcdefghijklmnopqrstuvwxyz0123456789" : never[i];
		sha256_tagged(v, strlen(v), h);
		cr_assert(strstr(text, h), "the log names %s by its hash: %s", never[i], text);
	}
	cr_assert(strstr(text, "\"client_id\":\"belay-client\""), "what is not secret is in clear: %s", text);
	cr_assert(strstr(text, "\"step\":\"token\""), "%s", text);
	struct stat st;
	cr_assert_eq(stat(log, &st), 0);
	cr_assert_eq(st.st_mode & 0777, 0600);
	free(text);
	free(log);
}

/* The log of a long-lived upstream's refreshes does not grow without end: past
 * HTTP_OAUTH_LOG_MAX it moves to LOG.1 (the one before that dropped), nothing written lost. */
Test(http_oauth_store, the_flows_log_is_rotated_past_its_bound_and_keeps_one_generation)
{
	char *log = http_oauth_store_log_path(dir, UP);
	char *old = xasprintf("%s.1", log);
	cr_assert_eq(ts_sh("mkdir -p %s/http", dir), 0);
	size_t lines = 0, i;
	for (i = 0; i < 40000; i++) {
		cJSON *f = cJSON_CreateObject();
		cJSON_AddNumberToObject(f, "n", (double)i);
		cJSON_AddStringToObject(f, "pad", "refresh of a token for a server the agent uses every day");
		http_oauth_net_note(log, "refresh", f);
		struct stat st;
		cr_assert_eq(stat(log, &st), 0);
		cr_assert_leq(st.st_size, HTTP_OAUTH_LOG_MAX + 4096, "the log grew past its bound: %lld bytes",
			      (long long)st.st_size);
		cr_assert_eq(st.st_mode & 0777, 0600);
		if (!stat(old, &st))
			cr_assert_eq(st.st_mode & 0777, 0600);
	}
	/* both generations: the newest lines whole, in order, the last one written present */
	size_t n0 = 0, n1 = 0;
	char *t0 = ts_read_file(log, &n0), *t1 = ts_read_file(old, &n1);
	cr_assert_not_null(t1, "%llu notes (> %d bytes) and no %s", (unsigned long long)i, HTTP_OAUTH_LOG_MAX, old);
	cr_assert_not_null(t0);
	for (const char *p = t0; *p; p++)
		lines += *p == '\n';
	for (const char *p = t1; *p; p++)
		lines += *p == '\n';
	cr_assert(strstr(t0, "\"n\":39999,"), "the last note is not in the log");
	cr_assert_eq(t0[n0 - 1], '\n');
	cr_assert_eq(t1[n1 - 1], '\n');
	/* the older generation ends where the newer begins */
	const char *first = strstr(t0, "\"n\":");
	long k0 = strtol(first + 4, NULL, 10);
	char *want = xasprintf("\"n\":%ld,", k0 - 1);
	cr_assert(strstr(t1, want), "a note between the generations was lost (%s)", want);
	cr_assert_lt(lines, (size_t)40000, "nothing was dropped: the log was never rotated twice");
	cr_assert_eq(ts_sh("ls %s/http | grep -c oauth.log | grep -qx 2", dir), 0, "more than two generations");
	free(want), free(t0), free(t1), free(old), free(log);
}

Test(http_oauth_store, www_authenticate_names_the_metadata)
{
	char *v = http_oauth_net_www_param("Bearer error=\"invalid_token\", error_description=\"Missing\", "
					   "resource_metadata=\"https://mcp.example.com/.well-known/oauth-protected-resource/mcp\"",
					   "resource_metadata");
	cr_assert_str_eq(v, "https://mcp.example.com/.well-known/oauth-protected-resource/mcp");
	free(v);
	v = http_oauth_net_www_param("Bearer resource_metadata=https://a.example/m, scope=\"x\"", "resource_metadata");
	cr_assert_str_eq(v, "https://a.example/m", "unquoted");
	free(v);
	cr_assert_null(http_oauth_net_www_param("Bearer xresource_metadata=\"https://evil.example/\"", "resource_metadata"),
		       "another parameter's name ending alike");
	cr_assert_null(http_oauth_net_www_param("Bearer realm=\"x\"", "resource_metadata"));
}

Test(http_oauth_store, the_listener_adds_a_fresh_token_and_refreshes_a_refused_one)
{
	struct http_oauth *o = http_oauth_new(dir, UP);
	char *value = NULL;
	int refreshed = 0;
	struct err e = {0};
	cr_assert_eq(http_oauth_bearer(o, &value, &refreshed, &e), 0);
	cr_assert_null(value, "no login: no header");
	/* a login while the listener runs is taken at the next request */
	save("access-1", (long long)time(NULL) + 3600, "refresh-1", "http://127.0.0.1:1/token");
	cr_assert_eq(http_oauth_bearer(o, &value, &refreshed, &e), 0, "%s", e.msg);
	cr_assert_str_eq(value, "Bearer access-1");
	cr_assert_eq(refreshed, 0);
	/* the server refused it: the next request refreshes first; here the token endpoint is
	 * unreachable, and the error names the command that mends it */
	http_oauth_rejected(o, value);
	free(value);
	cr_assert_neq(http_oauth_bearer(o, &value, &refreshed, &e), 0);
	cr_assert_null(value);
	cr_assert(strstr(e.msg, "belay http login " UP), "%s", e.msg);
	/* an expired token with no refresh token: the same */
	save("access-2", 1000, NULL, "http://127.0.0.1:1/token");
	struct err e2 = {0};
	cr_assert_neq(http_oauth_bearer(o, &value, &refreshed, &e2), 0);
	cr_assert(strstr(e2.msg, "belay http login"), "%s", e2.msg);
	http_oauth_free(o);
}
