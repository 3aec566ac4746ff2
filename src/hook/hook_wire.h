/* hook_wire.h - what a `belay hook` process and a resident handler (the console, the
 * helper) say to each other, and where they find each other. Self-contained (common and
 * cJSON only), so the small hook client (belay-hook) can speak it without belay's other
 * libraries.
 *
 * The wire (one connection per event, over a unix socket of the same uid):
 *   hook -> host: {"v":1,"hook":1,"len":N,"state":"<state dir>"}\n then N bytes: hook_request_json
 *   host -> hook: {"taken":true}\n as soon as it has the connection (before that, a closed
 *                 connection means nothing was taken: the event goes elsewhere), then
 *                 {"ok":true,"exit":N,"out":"...","err":"...","run":"..."}\n
 *                 or {"ok":false,"error":"..."}\n
 *
 *
 * Must not: print. Threads: any. */
#ifndef BELAY_HOOK_HOOK_WIRE_H
#define BELAY_HOOK_HOOK_WIRE_H
#include <cjson/cJSON.h>
#include <stddef.h>

#include "common/buf.h"
#include "common/err.h"
#include "proxy/admission.h"
#include "hook/hook_event.h"
#include "sandbox/sandbox.h"

#define HOOK_HOLD_MS_DEFAULT 60000u /* the longest belay waits for the operator */
#define HOOK_REPLY_SLACK_MS 30000u  /* beyond the hold bound, for the handler's own work */

/* What one hook process asks (also what it sends a resident handler, as JSON). */
struct hook_request {
	enum hook_agent agent;
	enum admission_mode mode;  /* ADMISSION_AUDIT or ADMISSION_ENFORCE */
	int contain;               /* rewrite shell commands to run under `belay exec` */
	enum sandbox_network net;  /* the contained shell's network */
	const char *root;          /* the project root (--root), or NULL: from the event */
	const char *project_dir;   /* $CLAUDE_PROJECT_DIR, or NULL */
	const char *home;          /* $HOME, or NULL */
	const char *state_dir;     /* resolved */
	const char *trace_dir;     /* resolved */
	const char *policy_file;   /* the tool-call policy for mcp__* tools, or NULL */
	const char *belay;         /* absolute path of belay (for the contained shell) */
	unsigned hold_ms;          /* how long a held call may wait for the operator */
	int no_trial;              /* enforce mode: never try a shell command in a mirror first */
	const char *payload;       /* the agent's bytes on stdin */
	size_t len;
};

struct hook_reply {
	struct buf out, err; /* the hook's stdout and stderr */
	int exit_code;
	char *run, *trace;   /* the run the event went into (owned, may be NULL) */
	int new_run, ended;  /* the event started the run / closed it */
};
void hook_reply_free(struct hook_reply *rp);

/* The request as one JSON object, and back (strings in *rq borrowed from `o`). */
cJSON *hook_request_json(const struct hook_request *rq);
int hook_request_from_json(const cJSON *o, struct hook_request *rq, struct buf *payload, struct err *e);

/* A connection to the unix socket at path (close-on-exec), or -1 when nothing listens or
 * when the place is not the user's own (sockpeer.h: the directory must be ours and 0700,
 * the listener our uid): an event is never handed to someone else's listener. e (may be
 * NULL) names a refusal. */
int hook_wire_connect(const char *path, struct err *e);
/* Sends rq to the handler listening at path. Returns 1 answered (rp filled), 0 nobody
 * listens there or it did not take the event (nothing was recorded: the event may go
 * elsewhere), -1 the handler took it and failed (e names why). */
int hook_wire_send(const char *path, const struct hook_request *rq, unsigned timeout_ms, struct hook_reply *rp,
		   struct err *e);
/* The deny form of rq's event (its name read from the payload), naming cause. */
void hook_wire_failure(const struct hook_request *rq, const char *cause, struct hook_reply *rp);

/* The helper's socket for a state directory (new string): beside the console's socket,
 * hookd-<digest of the state dir>.sock. */
char *hook_helper_socket(const char *state_dir);

#endif
