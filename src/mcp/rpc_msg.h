/* rpc_msg.h - reads a copy of one frame as JSON-RPC: kind, typed id, method, tool name,
 * cancellation target, progress token, W3C trace context. Never used to produce bytes
 * that are forwarded. Classification is structural, as in the earlier harness: an object
 * with "result" or "error" is a response; "method" + "id" a request; "method" alone a
 * notification; an array a batch (its elements are classified one by one). */
#ifndef BELAY_MCP_RPC_MSG_H
#define BELAY_MCP_RPC_MSG_H
#include <cjson/cJSON.h>
#include <stddef.h>

enum rpc_kind {
	RPC_UNPARSEABLE = 0, /* not JSON, invalid UTF-8, or truncated */
	RPC_REQUEST,
	RPC_RESPONSE,
	RPC_NOTIFICATION,
	RPC_UNKNOWN, /* JSON, but none of the shapes (e.g. a scalar) */
};

enum rpc_id_type { RPC_ID_ABSENT = 0, RPC_ID_NULL, RPC_ID_NUMBER, RPC_ID_STRING, RPC_ID_OTHER };

/* A typed id. key is a printable, type-tagged identity: "n:1", "s:abc". Ids of type
 * OTHER (booleans, containers) and NULL/ABSENT are untrackable. */
struct rpc_id {
	enum rpc_id_type type;
	char key[96];
};

struct rpc_item {
	enum rpc_kind kind;
	struct rpc_id id;
	const char *method;      /* borrowed from the tree */
	const char *tool;        /* params.name of a tools/call */
	cJSON *params;           /* borrowed */
	cJSON *arguments;        /* params.arguments of a tools/call */
	cJSON *result;           /* borrowed */
	cJSON *error;            /* borrowed */
	struct rpc_id cancel_of; /* notifications/cancelled params.requestId */
	const char *traceparent; /* params._meta.traceparent or _meta.traceparent */
	cJSON *node;             /* the message object itself */
};

struct rpc_msg {
	cJSON *root;  /* owned parse tree, NULL when unparseable */
	int is_batch; /* the frame was a JSON array */
	int n;
	struct rpc_item *items; /* owned array; n entries (1 for a non-batch frame) */
	const char *why;        /* for RPC_UNPARSEABLE: a short cause */
	int truncated;          /* a frame over the recording cap: root is its envelope, not the
				 * message (only what envscan.h keeps; never the recorded result) */
};

/* Parses a copy of the frame. truncated frames are never parsed. Always fills m. */
void rpc_msg_parse(const char *data, size_t len, int truncated, struct rpc_msg *m);
/* A frame over the cap, from its envelope (taken; see envscan.h and the "envelope" of
 * docs/TRACE_FORMAT.md): the same items as the whole frame would give for kind, id, method,
 * tool, cancellation target, error code and isError. NULL or a malformed envelope gives
 * one RPC_UNPARSEABLE item, as a truncated frame always gave. */
void rpc_msg_from_envelope(cJSON *envelope, struct rpc_msg *m);
void rpc_msg_free(struct rpc_msg *m);
/* Fills an rpc_id from a JSON id value (NULL = absent). */
void rpc_id_from_json(const cJSON *v, struct rpc_id *id);
int rpc_id_trackable(const struct rpc_id *id);
const char *rpc_kind_name(enum rpc_kind k);

#endif
