/* model.h - the derived view of a run: frames, request/response exchanges and turns.
 *
 * Pure and incremental: the live proxy/console and the offline trace reader feed the same
 * frames in seq order and get the same exchanges. Pairing keys on (direction the request
 * travelled, typed id), so client and server id spaces never collide and 1 != "1".
 * Requests in a batch pair individually. A client's notifications/cancelled retires its
 * request (status CANCELLED). A response with no open request, or a second response to an
 * answered one, gets its own exchange (ORPHAN / DUPLICATE) instead of overwriting.
 * A "turn" is an exchange whose method is tools/call; turn N is the N-th, in request order.
 * A frame over the recording cap is fed as its envelope (rpc_msg_from_envelope): it pairs
 * like the whole frame would, and its exchange says which side was truncated.
 *
 * A reply belay made on the server's behalf (a frame recorded with "origin": "belay": the
 * gate's refusal, an error for a server that is gone or a recording that failed) is never
 * taken for the server's: it closes its request as ANSWERED_BY_BELAY with belay_* set, and
 * resp_seq stays -1 (the server's response was not recorded). */
#ifndef BELAY_MCP_MODEL_H
#define BELAY_MCP_MODEL_H
#include <cjson/cJSON.h>
#include <stddef.h>
#include <stdint.h>

#include "common/strmap.h"
#include "mcp/rpc_msg.h"

enum { DIR_C2S = 0, DIR_S2C = 1 };

enum ex_status {
	EX_UNANSWERED = 0,
	EX_ANSWERED,
	EX_CANCELLED,  /* retired by notifications/cancelled without a reply (yet) */
	EX_ORPHAN,     /* a response without a request */
	EX_DUPLICATE,  /* a second response to an answered request */
	EX_UNTRACKED,  /* a request whose id cannot be tracked (null, boolean, container) */
	EX_ANSWERED_BY_BELAY, /* belay answered on the server's behalf (belay_reason says why) */
};

struct model_frame {
	int64_t seq;
	int dir;
	char t_in[40];
	size_t len, total;
	int truncated;
	int kind;          /* enum rpc_kind of the frame (first item for batches) */
	int batch;         /* number of items when the frame was a batch, else 0 */
	char *method;      /* first item's method, owned */
	size_t rec;        /* index of the record in the source (trace record index or live id) */
	int from_belay;    /* a reply belay made ("origin": "belay") */
};

struct exchange {
	int origin;             /* DIR_C2S: the client asked; DIR_S2C: the server asked */
	struct rpc_id id;
	char *method, *tool;    /* owned */
	char *traceparent;      /* owned, may be NULL */
	int64_t req_seq, resp_seq;   /* -1 when none */
	size_t req_frame, resp_frame; /* indexes into frames (SIZE_MAX when none) */
	int req_item, resp_item;      /* index inside a batch frame */
	enum ex_status status;
	int protocol_error;     /* the response carried "error" */
	int error_code;
	int tool_error;         /* result.isError == true */
	int req_truncated, resp_truncated; /* that frame was over the recording cap: paired by its
					    * envelope, its bytes only partly recorded */
	int64_t cancel_seq;     /* seq of the notifications/cancelled, -1 when none */
	char t_req[40], t_resp[40];
	int turn;               /* turn index for tools/call, else -1 */
	/* ANSWERED_BY_BELAY: belay's reply (the server's response fields above stay empty) */
	int64_t belay_seq;      /* -1 when none */
	size_t belay_frame;
	int belay_item;
	char belay_reason[24];  /* e.g. "server_exited" (session.h) */
	char t_belay[40];
};

struct model {
	struct model_frame *frames;
	size_t nframes, capframes;
	struct exchange *ex;
	size_t nex, capex;
	size_t *turns; /* exchange index of each turn */
	size_t nturns, capturns;
	struct strmap pending; /* "o:<origin>:<idkey>" -> exchange index */
	size_t gaps;           /* unreadable frames: unparseable, or truncated without an envelope */
	size_t truncated;      /* frames over the recording cap (paired by their envelope when
				* they have one) */
	/* Set by model_init_latest_frame: frames[] holds only the frame just added (its index
	 * is always 0, and an exchange's req_frame/resp_frame are valid only while theirs is
	 * the latest). For a reader that looks at each frame once (the run index): a run's
	 * frames then cost nothing in memory. */
	int latest_frame_only;
};

void model_init(struct model *m);
void model_init_latest_frame(struct model *m);
void model_free(struct model *m);
/* Feeds one frame (seq order). data[0..len) is the recorded copy. `rec` is the caller's
 * own handle to the frame (kept in model_frame.rec). Returns the frame's index. */
size_t model_add_frame(struct model *m, int64_t seq, int dir, const char *t_in, const char *data, size_t len,
		       size_t total, int truncated, size_t rec);
/* Same with an already-parsed message (saves a parse on the live path). */
size_t model_add_parsed(struct model *m, int64_t seq, int dir, const char *t_in, const struct rpc_msg *msg,
			size_t len, size_t total, int truncated, size_t rec);
/* A reply belay made on the server's behalf (an s2c frame with "origin": "belay" and its
 * "belay_reason", which is copied). */
size_t model_add_belay(struct model *m, int64_t seq, const char *t_in, const struct rpc_msg *msg, size_t len,
		       const char *reason, size_t rec);
const char *ex_status_name(enum ex_status s);
/* Latency of an answered exchange in microseconds, or -1. */
int64_t exchange_latency_us(const struct exchange *x);

#endif
