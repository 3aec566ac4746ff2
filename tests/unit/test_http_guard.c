/* test_http_guard.c - who may use belay's HTTP listener (src/http/http_guard.c: Host, Origin,
 * the secret path), what of a header or URL may be recorded (http_hdr.c), and the stable
 * listener of an upstream (http_listen.c). */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "common/xalloc.h"
#include "http/http_guard.h"
#include "http/http_hdr.h"
#include "http/http_listen.h"
#include "tsupport.h"

Test(http_guard, host_must_name_the_loopback_listener)
{
	cr_assert(http_guard_host("127.0.0.1:4000", 4000));
	cr_assert(http_guard_host("localhost:4000", 4000));
	cr_assert(http_guard_host("LOCALHOST:4000", 4000));
	cr_assert(http_guard_host("[::1]:4000", 4000));
	cr_assert(!http_guard_host(NULL, 4000), "no Host header");
	cr_assert(!http_guard_host("127.0.0.1:4001", 4000), "another port");
	cr_assert(!http_guard_host("127.0.0.1", 4000), "no port");
	cr_assert(!http_guard_host("evil.example:4000", 4000), "a rebinding page's own name");
	cr_assert(!http_guard_host("127.0.0.1:4000.evil.example", 4000));
	cr_assert(!http_guard_host("127.0.0.1:40000", 4000));
}

Test(http_guard, origin_when_sent_must_be_the_listeners_own)
{
	cr_assert(http_guard_origin(NULL, 4000), "a non-browser client sends none");
	cr_assert(http_guard_origin("http://127.0.0.1:4000", 4000));
	cr_assert(http_guard_origin("http://localhost:4000", 4000));
	cr_assert(!http_guard_origin("null", 4000), "a sandboxed page");
	cr_assert(!http_guard_origin("https://evil.example", 4000));
	cr_assert(!http_guard_origin("http://evil.example:4000", 4000));
	cr_assert(!http_guard_origin("http://127.0.0.1:4001", 4000));
	cr_assert(!http_guard_origin("", 4000));
}

Test(http_guard, routes_under_the_secret_only)
{
	const char *sec = "0123456789abcdef0123456789abcdef";
	char tok[HTTP_GUARD_TOKEN_HEX + 1] = {0};
	cr_assert_eq(http_guard_route("/0123456789abcdef0123456789abcdef/mcp", sec, tok), HTTP_ROUTE_MCP);
	cr_assert_eq(http_guard_route("/0123456789abcdef0123456789abcdef/m/00112233445566778899aabb", sec, tok),
		     HTTP_ROUTE_MESSAGE);
	cr_assert_str_eq(tok, "00112233445566778899aabb");
	cr_assert_eq(http_guard_route("/mcp", sec, tok), HTTP_ROUTE_SECRET);
	cr_assert_eq(http_guard_route("/", sec, tok), HTTP_ROUTE_SECRET);
	cr_assert_eq(http_guard_route("", sec, tok), HTTP_ROUTE_SECRET);
	cr_assert_eq(http_guard_route("/0123456789abcdef0123456789abcdee/mcp", sec, tok), HTTP_ROUTE_SECRET,
		     "one digit off");
	cr_assert_eq(http_guard_route("/0123456789abcdef0123456789abcdefX/mcp", sec, tok), HTTP_ROUTE_SECRET,
		     "a longer secret");
	cr_assert_eq(http_guard_route("/0123456789abcdef0123456789abcdef", sec, tok), HTTP_ROUTE_UNKNOWN);
	cr_assert_eq(http_guard_route("/0123456789abcdef0123456789abcdef/mcp/x", sec, tok), HTTP_ROUTE_UNKNOWN);
	cr_assert_eq(http_guard_route("/0123456789abcdef0123456789abcdef/m/0011", sec, tok), HTTP_ROUTE_UNKNOWN);
	cr_assert_eq(http_guard_route("/0123456789abcdef0123456789abcdef/m/00112233445566778899aabX", sec, tok),
		     HTTP_ROUTE_UNKNOWN);
}

Test(http_guard, random_secrets_differ)
{
	char a[HTTP_GUARD_SECRET_HEX + 1], b[HTTP_GUARD_SECRET_HEX + 1];
	cr_assert_eq(http_guard_random_hex(a, HTTP_GUARD_SECRET_HEX), 0);
	cr_assert_eq(http_guard_random_hex(b, HTTP_GUARD_SECRET_HEX), 0);
	cr_assert_eq(strlen(a), HTTP_GUARD_SECRET_HEX);
	cr_assert_str_neq(a, b);
}

Test(http_hdr, credentials_are_hashed_facts_are_not)
{
	cr_assert(http_hdr_credential("Authorization", "Bearer x"));
	cr_assert(http_hdr_credential("cookie", "a=b"));
	cr_assert(http_hdr_credential("Set-Cookie", "a=b"));
	cr_assert(http_hdr_credential("X-Api-Key", "k"));
	cr_assert(http_hdr_credential("X-Auth-Token", "k"), "a token-like name");
	cr_assert(http_hdr_credential("X-Custom", "ghp_0123456789abcdefghijklmnopqrstuvwxyz"), "a token-like value");
	cr_assert(!http_hdr_credential("Mcp-Session-Id", "abc"), "recorded as a fact");
	cr_assert(!http_hdr_credential("MCP-Protocol-Version", "2025-06-18"));
	cr_assert(!http_hdr_credential("Accept", "text/event-stream"));
	cJSON *a = cJSON_CreateArray();
	http_hdr_add_credential(a, "Authorization", "Bearer hunter2");
	char *s = cJSON_PrintUnformatted(a);
	cr_assert(!strstr(s, "hunter2"), "%s", s);
	cr_assert(strstr(s, "\"name\":\"Authorization\",\"sha256\":\"sha256:"), "%s", s);
	free(s);
	cJSON_Delete(a);
}

Test(http_hdr, hop_by_hop_headers)
{
	cr_assert(http_hdr_hop("Connection"));
	cr_assert(http_hdr_hop("transfer-encoding"));
	cr_assert(http_hdr_hop("Host"));
	cr_assert(!http_hdr_hop("Mcp-Session-Id"));
	cr_assert(!http_hdr_hop("Authorization"), "credentials pass through");
}

Test(http_hdr, urls_lose_userinfo_and_query)
{
	char *u = http_hdr_redact_url("https://user:pw@mcp.example.com:8443/v1/mcp?api_key=SECRET#frag");
	cr_assert(!strstr(u, "SECRET") && !strstr(u, "pw"), "%s", u);
	cr_assert(!strncmp(u, "https://mcp.example.com:8443/v1/mcp?sha256:", 43), "%s", u);
	free(u);
	u = http_hdr_redact_url("http://127.0.0.1:3001/mcp");
	cr_assert_str_eq(u, "http://127.0.0.1:3001/mcp");
	free(u);
	u = http_hdr_redact_url("http://h");
	cr_assert_str_eq(u, "http://h");
	free(u);
}

Test(http_listen, one_stable_url_per_upstream)
{
	char *dir = ts_tmpdir("http-listen");
	struct http_listen a, b, c;
	struct err e = {0};
	cr_assert_eq(http_listen_load(dir, "http://127.0.0.1:3001/mcp", &a, &e), 0, "%s", e.msg);
	cr_assert(a.port >= 20000 && a.port < 40000, "%u", a.port);
	cr_assert_eq(http_listen_load(dir, "http://127.0.0.1:3001/mcp", &b, &e), 0, "%s", e.msg);
	cr_assert_eq(a.port, b.port, "a restart keeps the port");
	cr_assert_str_eq(a.secret, b.secret, "and the secret");
	cr_assert_eq(http_listen_load(dir, "http://127.0.0.1:3002/mcp", &c, &e), 0, "%s", e.msg);
	cr_assert_str_neq(a.secret, c.secret, "another upstream, another secret");
	/* a moved port is kept */
	b.port = 31111;
	cr_assert_eq(http_listen_save(dir, "http://127.0.0.1:3001/mcp", &b, &e), 0);
	cr_assert_eq(http_listen_load(dir, "http://127.0.0.1:3001/mcp", &a, &e), 0);
	cr_assert_eq(a.port, 31111);
	/* the file is the user's alone */
	char *cmd = xasprintf("test \"$(stat -c %%a %s/http/*.listen | sort -u)\" = 600", dir);
	cr_assert_eq(ts_sh("%s", cmd), 0, "listener files must be 0600");
	free(cmd);
	ts_rmtree(dir);
	free(dir);
}

Test(http_hdr, endpoints_resolve_and_stay_on_the_servers_origin)
{
	char *u = http_hdr_resolve("http://127.0.0.1:3001/sse", "/message?sessionId=abc");
	cr_assert_str_eq(u, "http://127.0.0.1:3001/message?sessionId=abc");
	free(u);
	u = http_hdr_resolve("http://h:1/a/b/sse?x=1", "message?s=2");
	cr_assert_str_eq(u, "http://h:1/a/b/message?s=2");
	free(u);
	u = http_hdr_resolve("http://h:1", "message");
	cr_assert_str_eq(u, "http://h:1/message");
	free(u);
	u = http_hdr_resolve("http://h:1/sse", "https://elsewhere.example/m");
	cr_assert_str_eq(u, "https://elsewhere.example/m");
	cr_assert(!http_hdr_same_origin(u, "http://h:1/sse"), "another origin");
	free(u);
	cr_assert(http_hdr_same_origin("http://H:1/message", "http://h:1/sse"));
	cr_assert(!http_hdr_same_origin("http://h:2/message", "http://h:1/sse"));
	cr_assert(!http_hdr_same_origin("https://h:1/message", "http://h:1/sse"));
	cr_assert(!http_hdr_same_origin("http://h:1.evil/m", "http://h:1/sse"));
}
