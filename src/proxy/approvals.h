/* approvals.h - one-shot approvals for calls the gate held back, and who may give them.
 *
 * A refused call gets an approval id "<proxy pid>-<16 hex>" bound to the exact call (tool and
 * canonical arguments). A human approves it from outside the sandbox with `belay approve ID`,
 * which proves it may by an HMAC over the id keyed with <state>/approval.key (0600) — a file
 * the sandboxed server cannot read (the launcher mounts an empty tmpfs over the state dir) —
 * and delivers it over <state>/approvals/<pid>.sock, whose peer must not be inside a sandbox
 * (its user namespace is checked). The next identical call is then forwarded once.
 *
 * Loop thread only (the listener runs on the proxy's loop). */
#ifndef BELAY_PROXY_APPROVALS_H
#define BELAY_PROXY_APPROVALS_H
#include <cjson/cJSON.h>
#include <stddef.h>
#include <uv.h>

#include "common/err.h"

struct approvals;

/* Opens the registry: loads (or creates) the key and listens on the socket. `sandbox_userns`
 * is filled later (approvals_set_sandbox) so peers inside it are refused. */
int approvals_open(uv_loop_t *loop, const char *state_dir, struct approvals **out, struct err *e);
/* The user namespace id of the sandbox ("user:[4026...]"): peers in it are refused. */
void approvals_set_sandbox(struct approvals *a, const char *userns);
/* A hash that binds an approval to one call: tool + RFC 8785 canonical arguments. */
void approvals_call_key(const char *tool, const cJSON *arguments, char out[72]);
/* Registers a refused call; writes its new id to id_out (48 bytes). */
void approvals_request(struct approvals *a, const char *call_key, const char *tool, char id_out[48]);
/* 1 (and consumes the approval) if this exact call was approved once; *id_out names it. */
int approvals_take(struct approvals *a, const char *call_key, char id_out[48], char by_out[128]);
/* 1 (and consumes the approval) if the call given id was approved: a held call waits for
 * its own id (two identical calls held at once are two approvals). */
int approvals_take_id(struct approvals *a, const char *id, char by_out[128]);
/* Marks a pending id approved in-process (the console's key). Returns 0 or BELAY_ENOTFOUND if unknown. */
int approvals_grant(struct approvals *a, const char *id, const char *by);
void approvals_close(struct approvals *a);

/* The client side (`belay approve ID`): proves knowledge of the key and asks the proxy that
 * issued ID. Returns 0 approved, BELAY_ENOTFOUND unknown id, other negatives on failure. */
int approvals_send(const char *state_dir, const char *id, char *reply, size_t n, struct err *e);

#endif
