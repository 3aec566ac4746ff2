/* http_guard.c - the listener's admission of a request (http_guard.h). */
#include "http/http_guard.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <sys/random.h>

#include "common/hash.h"

static int loopback_hostport(const char *s, size_t n, unsigned port)
{
	static const char *const hosts[] = {"127.0.0.1", "localhost", "[::1]"};
	char want[64];
	for (size_t i = 0; i < sizeof hosts / sizeof *hosts; i++) {
		int k = snprintf(want, sizeof want, "%s:%u", hosts[i], port);
		if ((size_t)k == n && !strncasecmp(s, want, n))
			return 1;
	}
	return 0;
}

int http_guard_host(const char *host, unsigned port)
{
	return host && loopback_hostport(host, strlen(host), port);
}

int http_guard_origin(const char *origin, unsigned port)
{
	if (!origin)
		return 1;
	if (strncasecmp(origin, "http://", 7))
		return 0;
	return loopback_hostport(origin + 7, strlen(origin + 7), port);
}

enum http_route http_guard_route(const char *path, const char *secret, char *token)
{
	size_t sl = strlen(secret);
	if (path[0] != '/' || strlen(path + 1) < sl)
		return HTTP_ROUTE_SECRET;
	unsigned char diff = 0;
	for (size_t i = 0; i < sl; i++)
		diff |= (unsigned char)(path[1 + i] ^ secret[i]);
	if (diff || (path[1 + sl] != '/' && path[1 + sl] != 0))
		return HTTP_ROUTE_SECRET;
	const char *rest = path + 1 + sl;
	if (!strcmp(rest, "/mcp"))
		return HTTP_ROUTE_MCP;
	if (!strncmp(rest, "/m/", 3) && strlen(rest + 3) == HTTP_GUARD_TOKEN_HEX &&
	    strspn(rest + 3, "0123456789abcdef") == HTTP_GUARD_TOKEN_HEX) {
		memcpy(token, rest + 3, HTTP_GUARD_TOKEN_HEX + 1);
		return HTTP_ROUTE_MESSAGE;
	}
	return HTTP_ROUTE_UNKNOWN;
}

int http_guard_random_hex(char *out, size_t n)
{
	unsigned char raw[64];
	size_t need = (n + 1) / 2;
	if (need > sizeof raw)
		return -EINVAL;
	size_t got = 0;
	while (got < need) {
		ssize_t r = getrandom(raw + got, need - got, 0);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		got += (size_t)r;
	}
	char hex[130];
	hex_encode(raw, need, hex);
	memcpy(out, hex, n);
	out[n] = 0;
	return 0;
}
