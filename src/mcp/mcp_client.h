/* mcp_client.h - a small MCP client on a libuv loop, speaking newline-delimited JSON-RPC
 * over one endpoint (typically a socketpair into a session). verify's replay drives it with
 * recorded frames; the demo's scripted agent drives it with its own requests.
 *
 * Loop thread only. Responses are matched by typed id (so 1 and "1" differ). Requests the
 * server sends (roots/list, sampling/createMessage, ...) go to on_request, whose returned
 * object is sent back as the response. Each awaited reply has a timeout; when the server
 * goes away, every waiting callback runs with status UV_EOF. */
#ifndef BELAY_MCP_MCP_CLIENT_H
#define BELAY_MCP_MCP_CLIENT_H
#include <cjson/cJSON.h>
#include <stddef.h>
#include <uv.h>

#include "mcp/endpoint.h"
#include "mcp/rpc_msg.h"

struct mcp_client;

/* status: 0 = answered (line/msg set), UV_ETIMEDOUT, UV_EOF (the server went away). line is
 * the reply's raw bytes (borrowed); msg its parse (borrowed, NULL if unparseable). */
typedef void (*mcp_reply_cb)(void *ctx, struct mcp_client *c, int status, const char *line, size_t len,
			     const cJSON *msg);
/* Returns the response to send (a JSON-RPC object, taken) or NULL for "method not found". */
typedef cJSON *(*mcp_request_cb)(void *ctx, struct mcp_client *c, const cJSON *request);
typedef void (*mcp_notify_cb)(void *ctx, struct mcp_client *c, const cJSON *notification);

struct mcp_client_hooks {
	mcp_request_cb on_request;
	mcp_notify_cb on_notify;
	void *ctx;
};

/* Takes ownership of ep. */
struct mcp_client *mcp_client_new(uv_loop_t *loop, struct endpoint *ep, const struct mcp_client_hooks *h);
/* Sends raw bytes (a '\n' is appended). With await_id (trackable), cb runs with the reply to
 * that id; otherwise cb (may be NULL) runs once the bytes are queued. Returns 0 or an error. */
int mcp_client_send_raw(struct mcp_client *c, const char *bytes, size_t len, const struct rpc_id *await_id,
			unsigned timeout_ms, mcp_reply_cb cb, void *ctx);
/* Sends {"jsonrpc":"2.0","id":N,"method":...,"params":...} with a fresh numeric id. */
int mcp_client_request(struct mcp_client *c, const char *method, cJSON *params, unsigned timeout_ms, mcp_reply_cb cb,
		       void *ctx);
int mcp_client_notify(struct mcp_client *c, const char *method, cJSON *params);
/* Ends the conversation: half-closes, fails waiting callbacks with UV_EOF, frees c after its
 * handles closed. */
void mcp_client_close(struct mcp_client *c);

#endif
