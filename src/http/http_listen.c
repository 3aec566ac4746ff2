/* http_listen.c - the stable port and secret of an upstream (http_listen.h). */
#include "http/http_listen.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf.h"
#include "common/fsutil.h"
#include "common/hash.h"
#include "common/xalloc.h"

static char *listen_path(const char *state_dir, const char *upstream)
{
	uint8_t h[SHA256_LEN];
	char hex[2 * SHA256_LEN + 1];
	sha256(upstream, strlen(upstream), h);
	hex_encode(h, SHA256_LEN, hex);
	hex[16] = 0;
	return xasprintf("%s/http/%s.listen", state_dir, hex);
}

int http_listen_save(const char *state_dir, const char *upstream, const struct http_listen *l, struct err *e)
{
	char *dir = fs_join(state_dir, "http");
	int rc = fs_mkdir_p(dir, 0700, e);
	free(dir);
	if (rc)
		return rc;
	char *p = listen_path(state_dir, upstream), line[128];
	int n = snprintf(line, sizeof line, "%u %s\n", l->port, l->secret);
	rc = fs_write_file_atomic(p, line, (size_t)n, 0600, e);
	free(p);
	return rc;
}

int http_listen_load(const char *state_dir, const char *upstream, struct http_listen *out, struct err *e)
{
	char *p = listen_path(state_dir, upstream);
	struct buf b = {0};
	struct err re = {0};
	memset(out, 0, sizeof *out);
	if (fs_read_file(p, 4096, &b, &re) == 0) {
		char secret[HTTP_GUARD_SECRET_HEX + 2] = {0};
		unsigned port = 0;
		if (sscanf(buf_cstr(&b), "%u %33s", &port, secret) == 2 && port > 0 && port < 65536 &&
		    strlen(secret) == HTTP_GUARD_SECRET_HEX && strspn(secret, "0123456789abcdef") == HTTP_GUARD_SECRET_HEX) {
			out->port = port;
			memcpy(out->secret, secret, sizeof out->secret);
			buf_free(&b);
			free(p);
			return 0;
		}
	}
	buf_free(&b);
	free(p);
	uint8_t h[SHA256_LEN];
	sha256(upstream, strlen(upstream), h);
	out->port = 20000 + (((unsigned)h[0] << 8 | h[1]) % 20000);
	int rc = http_guard_random_hex(out->secret, HTTP_GUARD_SECRET_HEX);
	if (rc)
		return err_set(e, rc, "cannot draw a listener secret");
	return http_listen_save(state_dir, upstream, out, e);
}
