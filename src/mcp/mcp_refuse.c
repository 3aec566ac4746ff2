/* mcp_refuse.c - JSON-RPC errors for every request of a client belay cannot serve
 * (mcp_refuse.h). */
#include "mcp/mcp_refuse.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/buf.h"
#include "common/xalloc.h"
#include "mcp/rpc_peek.h"

static int write_all(int fd, const char *p, size_t n)
{
	while (n) {
		ssize_t w = write(fd, p, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

/* The error answer to one request line; -1 when out_fd failed. */
static int answer(int out_fd, const char *line, size_t len, const char *error_json)
{
	struct rpc_peek pk;
	if (rpc_peek(line, len, &pk) != RPC_PEEK_OK || pk.kind != RPC_REQUEST || !pk.id_text)
		return 0;
	struct buf b = {0};
	buf_puts(&b, "{\"jsonrpc\":\"2.0\",\"id\":");
	buf_append(&b, pk.id_text, pk.id_len);
	buf_puts(&b, ",\"error\":");
	buf_puts(&b, error_json);
	buf_puts(&b, "}\n");
	int rc = write_all(out_fd, b.p, b.len);
	buf_free(&b);
	return rc ? -1 : 1;
}

long mcp_refuse_requests(int in_fd, int out_fd, const char *reason, const char *message)
{
	cJSON *err = cJSON_CreateObject();
	cJSON_AddNumberToObject(err, "code", MCP_REFUSE_CODE);
	cJSON_AddStringToObject(err, "message", message ? message : "belay cannot serve this client");
	cJSON *belay = cJSON_AddObjectToObject(cJSON_AddObjectToObject(err, "data"), "belay");
	cJSON_AddStringToObject(belay, "reason", reason ? reason : "refused");
	char *error_json = cJSON_PrintUnformatted(err);
	cJSON_Delete(err);
	struct buf line = {0};
	long answered = 0;
	int dropping = 0;
	char chunk[65536];
	for (;;) {
		ssize_t n = read(in_fd, chunk, sizeof chunk);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		for (ssize_t i = 0; i < n; i++) {
			if (chunk[i] != '\n') {
				if (!dropping && line.len < MCP_REFUSE_LINE_MAX)
					buf_putc(&line, chunk[i]);
				else
					dropping = 1;
				continue;
			}
			int rc = dropping ? 0 : answer(out_fd, line.p, line.len, error_json);
			buf_reset(&line);
			dropping = 0;
			if (rc < 0) {
				answered = -1;
				goto out;
			}
			answered += rc;
		}
	}
	if (line.len && !dropping) { /* a last request without its newline */
		int rc = answer(out_fd, line.p, line.len, error_json);
		answered = rc < 0 ? -1 : answered + rc;
	}
out:
	buf_free(&line);
	free(error_json);
	return answered;
}
