/* rpc_peek.h - the top-level members of a JSON-RPC frame that the proxy needs for every
 * frame it forwards (request, response or notification; the id; the method), read without
 * building a tree: member values are skipped, not parsed. On the forwarding path a full
 * parse of every (64 KiB) frame would cost more than forwarding it.
 *
 * It answers only for a single JSON object whose member names need no unescaping, and says
 * RPC_PEEK_UNSURE for anything else (a batch, an escaped name, a malformed object, a
 * truncated copy): the caller then parses the frame with rpc_msg_parse (rpc_msg.h), whose
 * classification this is - "result" or "error" present: a response; "method" (a string)
 * and "id" present: a request; "method" alone: a notification - with the first occurrence
 * of a member winning, as in cJSON. The id is typed and keyed as rpc_id_from_json does.
 * Skipped values are checked for balance only and UTF-8 is not checked, so a frame that
 * rpc_msg_parse calls unparseable (a bad token deep inside a value, invalid UTF-8) may still
 * be classified here, as a JavaScript client reading it would; bytes after the object are
 * ignored, as cJSON does.
 *
 * Pure; any thread. */
#ifndef BELAY_MCP_RPC_PEEK_H
#define BELAY_MCP_RPC_PEEK_H
#include <stddef.h>

#include "mcp/rpc_msg.h"

enum rpc_peek_answer { RPC_PEEK_UNSURE = 0, RPC_PEEK_OK = 1 };

struct rpc_peek {
	enum rpc_kind kind;   /* RPC_REQUEST, RPC_RESPONSE, RPC_NOTIFICATION or RPC_UNKNOWN */
	struct rpc_id id;
	const char *id_text;  /* the id's JSON text in the frame (borrowed), NULL when absent */
	size_t id_len;
	char method[64];      /* the method when it is a string of fewer than 64 bytes, else "" */
	int method_long;      /* the method is a string of 64 bytes or more (method[] is empty) */
};

/* Reads data[0..len). Returns RPC_PEEK_OK with *p filled, or RPC_PEEK_UNSURE. */
int rpc_peek(const char *data, size_t len, struct rpc_peek *p);

#endif
