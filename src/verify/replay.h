/* replay.h - re-executes recorded client messages against a fresh, contained server.
 *
 * Runs on the calling thread with a private libuv loop: starts a session (the same engine as
 * `belay proxy`: sandboxed, recorded) whose client side is an mcp_client that sends the
 * recorded steps in order, waits for each awaited reply, and answers the server's own
 * requests (roots/list, sampling/createMessage, elicitation/create, ping) from the record
 * (answers.h). Time-bounded: a server that hangs or dies is a named cause, never a hang.
 *
 * Two shapes, one engine:
 *   - an isolated replay (hooks NULL): the handshake, then one target call; the result holds
 *     the target's reply and everything observed during the session (denials, network
 *     attempts, write intents), and the server is shut down after the reply;
 *   - a session replay (hooks set): every step of a recorded session on one warm server.
 *     hooks->before runs before each step is sent (a turn restores its pre-state there);
 *     hooks->after runs once a turn step has been answered and the sandbox has been quiet
 *     for a moment (writes the server makes just after its reply belong to the call), with
 *     the step's own reply and observations in the result, which are reset afterwards.
 * A refused connection the recorded call made ends the replay at once (replay_frame.dests):
 * it is never waited out to a timeout or to the server's exit.
 * Thread-safe as long as each thread runs its own replay. */
#ifndef BELAY_VERIFY_REPLAY_H
#define BELAY_VERIFY_REPLAY_H
#include <cjson/cJSON.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "mcp/rpc_msg.h"
#include "sandbox/sandbox.h"

struct answers;

struct replay_frame {
	char *bytes; /* owned, without '\n' */
	size_t len;
	struct rpc_id await; /* a request: wait for its response; else RPC_ID_ABSENT */
	int turn;            /* session replays: the turn this step is (>= 0), or -1 */
	/* A turn step's (the isolated target's): where the recorded call reached the network,
	 * the addresses of its recorded network_attempt records of family inet or inet6, as an
	 * array of {"family", "address"} (owned, NULL: none). While this step's reply is awaited
	 * (isolated: from the start), a refusal of a network use to one of them (a denial naming
	 * that address, or of a socket of that family, refused before it had a destination)
	 * ends the replay at once with REPLAY_NETWORK_REFUSED naming the address: the call's
	 * state lives outside the workspace. Entries with "held": true are connections the
	 * server made before the call, in no call (at its start), which the call may have used
	 * without connecting again: refused, they end the replay the same way. Other refusals
	 * are only observed. */
	cJSON *dests;
};

struct replay_result;
struct sandbox_quiet_sample;

/* The running server's tree and the sample of it taken before the last step reached it (the
 * `since` of sandbox_quiet_proven), for a hook that must know the server is quiet. */
struct replay_quiet {
	int pid;
	const struct sandbox_quiet_sample *since; /* NULL: nothing sent yet, or no proof possible */
	uint64_t since_ns;
};

struct replay_hooks {
	/* Before step i is sent. q: the running server (NULL: none), with what proves it quiet
	 * now (sandbox_quiet.h; q->since NULL when its quiet cannot be proven: no pid namespace,
	 * the network allowed, the window always waited out). Returns 0, or -1 to end the
	 * session replay here. */
	int (*before)(void *ctx, size_t i, const struct replay_quiet *q);
	/* After turn step i: r holds its reply (or r->cause) and what was observed since it was
	 * sent. Borrowed; reset when after returns. */
	void (*after)(void *ctx, size_t i, struct replay_result *r);
	void *ctx;
};

struct replay_spec {
	char *const *argv;   /* server argv (already relocated) */
	const char *cwd;     /* server cwd (already relocated) */
	char *const *env;    /* server environment (NULL: verify's own) */
	const char *launcher; /* the belay binary (sandbox launcher) */
	const char *scope;   /* the restored workspace */
	const char *tmpdir;  /* the server's private temp dir */
	const char *cache;   /* the server's writable cache (sandbox_cache.h; empty), or NULL */
	enum sandbox_network network;
	/* A contained local server over HTTP: its URL inside its sandbox (the port it listens on
	 * there); the session drives it through belay-http --bridge (http/http_bridge.h). NULL: stdio. */
	const char *http_url;
	struct replay_frame *pre; /* isolated: the handshake frames, in order; session: every step */
	size_t npre;
	struct replay_frame target; /* isolated only */
	struct answers *answers;    /* the record's answers to the server's requests (may be NULL) */
	const struct replay_hooks *hooks; /* NULL: an isolated replay */
	unsigned timeout_ms;  /* per awaited reply */
	const char *trace_path; /* where the replay session records (NULL: nowhere) */
	int report_writes;    /* collect the write intents the supervisor lets through */
	int settle_wait;      /* always wait the quiet window out after a reply, never end it
	                       * early on a proof that the server is quiet (sandbox_quiet.h) */
	atomic_int *cancel;   /* may be NULL; set: the replay ends within ~0.1 s with cause
	                       * REPLAY_CANCELLED (its server terminated and reaped) - verify
	                       * never judges such a result (verify_opts.cancel) */
};

struct replay_result {
	const char *cause;   /* NULL when the target (step) was answered, else a REPLAY_* cause */
	char detail[600];
	char *reply;         /* the target's (step's) response line (owned) */
	size_t reply_len;
	cJSON *observed;     /* denials and network attempts (owned array) */
	int network_refused; /* the replay asked for the network and was refused */
	char *protocol_version; /* negotiated in the replayed initialize (owned, may be NULL) */
	double ms_server;    /* wall time of the session (isolated) or of the step */
	double ms_settle;    /* the quiet window after the reply */
	int settle_proven;   /* it ended early: the server was proven quiet to its end */
	/* With report_writes: the resolved absolute paths inside the scope that the contained
	 * processes were let write (create, remove, rename, chmod, ...), in arrival order, and
	 * whether that set can be trusted to name every change. */
	char **writes;          /* owned */
	unsigned char *writes_moved; /* per path: a rename source or target (its subtree moved) */
	size_t nwrites;
	const char *writes_unusable; /* NULL, or why not: a path unresolved, a hard link, too many */
	int contained_gone;     /* no contained process outlived the session (sandbox_end) */
	size_t answers_missing; /* server requests the record had no answer for */
	char answer_missing_method[64]; /* the first of them ("" when none) */
};

int replay_run(const struct replay_spec *sp, struct replay_result *out);
void replay_result_free(struct replay_result *r);
void replay_frame_free(struct replay_frame *f);

#endif
