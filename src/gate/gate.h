/* gate.h - belay's effect gate: what a shell command or an MCP tool call will do, as an
 * effect plan, and the decision that follows from it (allow, allow_flagged, ask, deny).
 *
 * Pure and thread-safe: classification never performs I/O (no file reads, no PATH lookups,
 * no symlink resolution: paths are resolved lexically against the context), holds no
 * global mutable state, and may run concurrently on any thread. The only I/O in this
 * module is gate_policy_load reading the policy file. Command-name allowlists do not
 * exist: effects come from the grammar of the command line and from a table of known
 * command semantics; anything not understood is `indeterminate`, which asks. */
#ifndef BELAY_GATE_GATE_H
#define BELAY_GATE_GATE_H
#include <cjson/cJSON.h>
#include <stddef.h>

#include "common/err.h"

enum gate_decision { GATE_ALLOW, GATE_ALLOW_FLAGGED, GATE_ASK, GATE_DENY };

/* Kinds of effect. Each kind maps to exactly one decision (see effect_kind_decision and
 * docs/GATE.md); the plan's decision is the strictest over its effects. */
enum effect_kind {
	EK_FS_READ,	       /* reads a path inside the workspace root             allow */
	EK_FS_READ_OUTSIDE,    /* reads a path outside the root (not a secret)       allow */
	EK_FS_WRITE,	       /* creates/modifies a path inside the root            allow_flagged */
	EK_FS_DESTROY,	       /* deletes/destructively rewrites inside the root     allow_flagged */
	EK_FS_WRITE_OUTSIDE,   /* writes outside the root (incl. /tmp)               ask */
	EK_FS_DESTROY_OUTSIDE, /* deletes outside the root                           ask */
	EK_SECRET_READ,	       /* reads credentials, keys, .env, belay's state       ask */
	EK_SECRET_WRITE,       /* writes credentials or shell start-up files         ask */
	EK_GIT_REF_LOCAL,      /* moves local refs (commit, branch, checkout -b)     allow_flagged */
	EK_GIT_REF_REMOTE,     /* changes a remote (push, push --delete)             ask */
	EK_GIT_DESTRUCTIVE,    /* may lose history or uncommitted work, or edits .git ask */
	EK_PROC_SPAWN,	       /* runs a known local program / background job        allow_flagged */
	EK_PROC_SIGNAL,	       /* signals other processes (kill, pkill)              ask */
	EK_PROC_PRIVILEGE,     /* runs with elevated privilege (sudo, doas, su)      ask */
	EK_NET_READ,	       /* network fetch without payload                      allow */
	EK_NET_LOCAL,	       /* sends to a loopback service                        allow_flagged */
	EK_NET_SEND,	       /* mutating request or payload to a remote host       ask */
	EK_NET_SECRET,	       /* sends a secret (auth header, key file, .env)       ask */
	EK_NET_ACQUIRE,	       /* downloads and runs third-party code (npx, install) ask */
	EK_SYSTEM,	       /* changes machine state (services, mounts, clock)    ask */
	EK_CONTROL_WRITE,      /* writes belay's own state, approvals or policy      deny */
	EK_INDETERMINATE,      /* cannot be known before running                     ask */
	EK__COUNT
};

struct gate_ctx {
	const char *root;		  /* workspace root, absolute (required) */
	const char *cwd;		  /* working directory; NULL = root; relative = against root */
	const char *home;		  /* the user's home for ~ and $HOME; NULL = unknown */
	const char *state_dir;		  /* belay's state directory (writes: deny; reads: secret) */
	const char *const *control_paths; /* more belay-owned paths, NULL-terminated; may be NULL */
	/* Optional: the paths above prepared once by gate_env_new (from these same values), for
	 * a caller that classifies many calls in one context (the proxy's session); NULL = they
	 * are prepared on every call. */
	const struct gate_env *env;
	/* The server runs on another machine (a server spoken to over HTTP, src/http): a tool's
	 * path, command and working-directory arguments name things on that machine, not
	 * effects here. Each is planned as a remote effect, resource "remote:VALUE": a read over
	 * the network when the argument only reads or the tool is declared read-only, a change
	 * somewhere else (EK_NET_SEND, ask) otherwise. Nothing is resolved against root. */
	int remote;
};

/* root, home, state_dir and control_paths of ctx resolved once (ctx->env and cwd are not
 * used). Owned by the caller; valid while it lives, independent of ctx's strings. */
struct gate_env;
struct gate_env *gate_env_new(const struct gate_ctx *ctx);
void gate_env_free(struct gate_env *e);

struct gate_effect {
	enum effect_kind kind;
	const char *resource; /* a path, host, ref or description */
	const char *evidence; /* the command words (or tool argument) that produced it */
	const char *why;      /* one sentence */
	int local;            /* indeterminate only: a repository-local program whose effect cannot be
			       * known before running (Makefile recipes, a package.json script, a
			       * program by path inside the root): what a contained trial answers */
};

struct effect_plan; /* opaque: effects, completeness, reasons, decision */

/* Classifies a shell command line (bash/POSIX syntax). Never NULL; caller frees with
 * effect_plan_free. cmd need not be NUL-terminated. */
struct effect_plan *gate_plan_command(const char *cmd, size_t len, const struct gate_ctx *ctx);

/* The policy for tool calls: which arguments carry shell commands, argv arrays, paths. */
struct gate_policy;
/* Loads a JSON policy file. On error returns a negative code and e names the JSON path of
 * the problem ("$.tools[2].glob: ..."). *out is owned by the caller (gate_policy_free). */
int gate_policy_load(const char *path, struct gate_policy **out, struct err *e);
/* The same from a string (tests, embedding); `origin` names it in errors. */
int gate_policy_parse(const char *json, size_t len, const char *origin, struct gate_policy **out, struct err *e);
/* The built-in defaults (static; never freed). */
const struct gate_policy *gate_policy_default(void);
void gate_policy_free(struct gate_policy *p);

/* Classifies one tools/call from its arguments and the tool's annotations (the tool's
 * `annotations` object from tools/list, or NULL). p NULL = defaults. Never NULL. */
struct effect_plan *gate_plan_tool_call(const struct gate_policy *p, const char *tool, const cJSON *arguments,
					const cJSON *annotations, const struct gate_ctx *ctx);

/* Adds an effect found outside the gate's lexical view (the hook's identity check of
 * belay's protected files, src/hook/hook_protect.h) to a finished plan, and decides again:
 * the decision only rises. Strings are copied. */
void effect_plan_amend(struct effect_plan *plan, enum effect_kind k, const char *resource, const char *evidence,
		       const char *why);

enum gate_decision effect_plan_decision(const struct effect_plan *plan);
/* 1 when every effect is known ("complete"), 0 when some are indeterminate ("partial"). */
int effect_plan_complete(const struct effect_plan *plan);
size_t effect_plan_count(const struct effect_plan *plan);
/* Borrowed; valid until effect_plan_free. i < effect_plan_count. */
const struct gate_effect *effect_plan_effect(const struct effect_plan *plan, size_t i);
/* 1 when a contained trial (docs/TRY.md) could answer the plan: it holds at least one
 * unknown local effect (gate_effect.local) and nothing else but reads, writes and deletions
 * inside the root and known local programs: never a write outside, the network, a secret,
 * another indeterminate effect or a policy floor. The gate's decision is not changed by it
 * (it stays ask); audit mode records it as would_try. */
int effect_plan_trial_eligible(const struct effect_plan *plan);
/* The one command line the plan was built from (a tool call's shell or argv argument, or
 * gate_plan_command's input) and its directory (*cwd, absolute, or NULL when the call gave
 * none). NULL when there was none or more than one: then there is nothing single to try.
 * Borrowed; valid until effect_plan_free. */
const char *effect_plan_command(const struct effect_plan *plan, const char **cwd);
/* Human-readable reasons for the decision. Borrowed. */
size_t effect_plan_reason_count(const struct effect_plan *plan);
const char *effect_plan_reason(const struct effect_plan *plan, size_t i);
/* {"decision","completeness","incomplete":[..],"reasons":[..],"effects":[{"kind","resource",
 * "evidence","decision","why"}]}. Caller owns the result. */
cJSON *effect_plan_json(const struct effect_plan *plan);
void effect_plan_free(struct effect_plan *plan);

const char *gate_decision_name(enum gate_decision d);
const char *effect_kind_name(enum effect_kind k);
enum gate_decision effect_kind_decision(enum effect_kind k);

#endif
