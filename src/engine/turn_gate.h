/* turn_gate.h - what the proxy does with a tools/call before the server may see it:
 * capture the workspace's pre-state (and, with an effect-plan policy, decide whether the
 * call may run at all). One turn_gate serves one session; the session owns and frees it.
 *
 * The capture runs on a libuv worker thread while the loop keeps forwarding server output;
 * the call's bytes, and every client byte after them, wait until it returns. */
#ifndef BELAY_ENGINE_TURN_GATE_H
#define BELAY_ENGINE_TURN_GATE_H
#include <cjson/cJSON.h>

struct turn_gate {
	/* Captures the pre-state on a worker thread. Returns a state_handle object
	 * ({"status":"present",...} or {"status":"unrestorable","cause":...}); never NULL.
	 * One call at a time per gate. */
	cJSON *(*capture)(void *ctx);
	void *capture_ctx;
	void (*free_ctx)(void *ctx); /* releases capture_ctx when the session ends (may be NULL) */
	/* Optional, worker thread: runs once when the session starts (e.g. the first full walk
	 * of the workspace), so the first call does not pay for it. Captures wait for it. */
	void (*warm)(void *ctx);
};

/* A gate with the given capture function; the session takes ownership. */
struct turn_gate *turn_gate_new(cJSON *(*capture)(void *ctx), void *ctx, void (*free_ctx)(void *ctx));
void turn_gate_free(struct turn_gate *g);

#endif
