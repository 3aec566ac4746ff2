/* replay.h - re-executes one recorded call against a fresh, contained server.
 *
 * Runs on the calling thread with a private libuv loop: starts a session (the same engine as
 * `belay proxy`: sandboxed, recorded) whose client side is an mcp_client replaying the
 * recorded handshake and then the call, answering the server's own requests (roots/list,
 * sampling/...) with what the original client answered. Time-bounded: a server that hangs
 * or dies is a named cause, never a hang. Denials and network attempts the supervisor saw
 * during the replay are returned. Thread-safe as long as each thread runs its own replay. */
#ifndef BELAY_VERIFY_REPLAY_H
#define BELAY_VERIFY_REPLAY_H
#include <cjson/cJSON.h>
#include <stddef.h>

#include "engine/rpc_msg.h"
#include "sandbox/sandbox.h"

struct replay_frame {
	char *bytes; /* owned, without '\n' */
	size_t len;
	struct rpc_id await; /* a request: wait for its response; else RPC_ID_ABSENT */
};

struct replay_spec {
	char *const *argv;   /* server argv (already relocated) */
	const char *cwd;     /* server cwd (already relocated) */
	const char *launcher; /* the belay binary (sandbox launcher) */
	const char *scope;   /* the restored workspace */
	const char *tmpdir;  /* the server's private temp dir */
	enum sandbox_network network;
	struct replay_frame *pre; /* handshake frames, in order */
	size_t npre;
	struct replay_frame target;
	const cJSON *answers; /* {"roots/list": result, ...} for the server's own requests */
	unsigned timeout_ms;  /* per awaited reply */
	const char *trace_path; /* where the replay session records (NULL: nowhere) */
	int report_writes;    /* collect the write intents the supervisor lets through */
};

struct replay_result {
	const char *cause;   /* NULL when the target was answered, else a REPLAY_* cause */
	char detail[600];
	char *reply;         /* the target's response line (owned) */
	size_t reply_len;
	cJSON *observed;     /* denials and network attempts during the replay (owned array) */
	int network_refused; /* the replay asked for the network and was refused */
	char *protocol_version; /* negotiated in the replayed initialize (owned, may be NULL) */
	double ms_server;    /* wall time of the session */
	/* With report_writes: the resolved absolute paths inside the scope that the contained
	 * processes were let write (create, remove, rename, chmod, ...), in arrival order, and
	 * whether that set can be trusted to name every change. */
	char **writes;          /* owned */
	unsigned char *writes_moved; /* per path: a rename source or target (its subtree moved) */
	size_t nwrites;
	const char *writes_unusable; /* NULL, or why not: a path unresolved, a hard link, too many */
	int contained_gone;     /* no contained process outlived the session (sandbox_end) */
};

int replay_run(const struct replay_spec *sp, struct replay_result *out);
void replay_result_free(struct replay_result *r);
void replay_frame_free(struct replay_frame *f);

#endif
