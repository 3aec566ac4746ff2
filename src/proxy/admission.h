/* admission.h - what the proxy does with a tools/call before the server may see it:
 * capture the workspace's pre-state (and, with an effect-plan policy, decide whether the
 * call may run at all). One admission serves one session; the session owns and frees it.
 *
 * The capture runs on a libuv worker thread while the loop keeps forwarding server output;
 * the call's bytes, and every client byte after them, wait until it returns. */
#ifndef BELAY_PROXY_ADMISSION_H
#define BELAY_PROXY_ADMISSION_H
#include <cjson/cJSON.h>
#include <stdint.h>

struct session;
struct gate_policy;
struct approvals;

enum admission_mode { ADMISSION_OFF = 0, ADMISSION_AUDIT, ADMISSION_ENFORCE };

struct admission {
	/* Captures the pre-state on a worker thread. Returns a state_handle object
	 * ({"status":"present",...} or {"status":"unrestorable","cause":...}); never NULL.
	 * One call at a time per gate. */
	cJSON *(*capture)(void *ctx);
	void *capture_ctx;
	void (*free_ctx)(void *ctx); /* releases capture_ctx when the session ends (may be NULL) */
	/* Optional, worker thread: runs once when the session starts (e.g. the first full walk
	 * of the workspace), so the first call does not pay for it. Captures wait for it. */
	void (*warm)(void *ctx);

	/* The effect gate (src/gate): every tools/call is classified into an effect plan before
	 * its capture. AUDIT records the plan; ENFORCE also refuses `deny` and `ask` (or holds
	 * `ask` for on_hold, when set). */
	enum admission_mode mode;
	struct gate_policy *policy;    /* owned; NULL = the built-in defaults */
	char *root, *home, *state_dir; /* owned: the classification context */
	/* owned, may be NULL: more of belay's own control files - the user's config dir (keys,
	 * themes, gate policy) and the --policy file; a write to them is denied */
	char *config_dir, *policy_file;
	struct approvals *approvals;   /* borrowed: one-shot approvals (may be NULL) */
	/* Interactive approval (the console): called on the loop thread for a held call; the
	 * answer comes back through session_admission_resolve. plan is borrowed for the call (the
	 * effect plan's JSON plus "arguments": the call's arguments as the agent sent them); trial
	 * (borrowed, may be NULL) is the report of the trial the call had first (the `trial`
	 * record's fields, or {"error": ...}), when the trial route below took it. */
	void (*on_hold)(void *ctx, struct session *s, uint64_t hold, int64_t seq, const char *tool, const cJSON *plan,
			const cJSON *trial);
	void *hold_ctx;
	/* Contained trials (docs/TRY.md), enforce mode only: a call the gate asks about whose
	 * plan is only an unknown local effect has its command run once in a mirror of the
	 * workspace first (cwd absolute or NULL: the workspace). Worker thread; one trial at a
	 * time per session. Returns the fields of a `trial` trace record (the trial record with
	 * "brief", text for the agent and the approver, and the command line as "command"), or
	 * {"error": "CAUSE: ..."} when nothing could be tried; never NULL.
	 * The call waits meanwhile; the trial's report then goes with its refusal, or, when
	 * on_hold is set, with the held call (then answerable with ADMISSION_APPLIED). NULL: no
	 * trials. */
	cJSON *(*trial)(void *ctx, const char *command, const char *cwd);
	void *trial_ctx;
};

/* Sets the effect gate's mode and context (strings copied; policy taken; policy_file, the
 * file it came from, may be NULL). */
void admission_set_policy(struct admission *g, enum admission_mode mode, struct gate_policy *policy, const char *root,
			  const char *state_dir, const char *policy_file);
int admission_parse_mode(const char *s, enum admission_mode *out);
/* The operator's answer to a held call. */
enum admission_answer {
	ADMISSION_REFUSE = 0,  /* refused: the agent is told by whom */
	ADMISSION_APPROVE = 1, /* approved once: the call gets its pre-state and goes to the server */
	/* The person applied the effect the call's trial had (trial_apply, done by the caller
	 * before answering) instead of running it: the server never sees the call and the agent
	 * gets a refusal that says the effect was applied, with the trial's report. */
	ADMISSION_APPLIED = 2,
};
/* The console's answer to a held call (loop thread). Returns 0; BELAY_ENOTFOUND when nothing
 * with that id is held; BELAY_EINVAL for ADMISSION_APPLIED on a call that had no trial
 * (nothing is changed). */
int session_admission_resolve(struct session *s, uint64_t hold, enum admission_answer answer, const char *by);

/* A gate with the given capture function; the session takes ownership. */
struct admission *admission_new(cJSON *(*capture)(void *ctx), void *ctx, void (*free_ctx)(void *ctx));
void admission_free(struct admission *g);

#endif
