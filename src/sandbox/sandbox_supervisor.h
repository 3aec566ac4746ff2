/* sandbox_supervisor.h - the proxy-side half of containment: a thread that takes the
 * contained server's seccomp notification listener from the launcher (pidfd_getfd) and
 * answers every trapped call. It refuses writes outside the scope and temp dir, network
 * attempts under `deny`, signals to processes outside the sandbox and calls that could undo
 * containment, and records each refusal with the exact operation and path or address, from
 * the syscall arguments the kernel handed over (never from the server's stderr text).
 * Allowed network attempts are recorded too. The kernel layers (Landlock, read-only mounts,
 * the network namespace) still enforce everything the supervisor lets through. */
#ifndef BELAY_SANDBOX_SANDBOX_SUPERVISOR_H
#define BELAY_SANDBOX_SANDBOX_SUPERVISOR_H
#include <cjson/cJSON.h>
#include <stdatomic.h>
#include <stdint.h>
#include <sys/types.h>

struct sandbox_supervisor;

/* Thread-safe sink for what the supervisor observes. kind is "sandbox" (status: fields has
 * "ok" and either "layers" or "layer"+"error"), "denial", "network_attempt", or with
 * report_writes "write_intent" (see below). Takes fields. */
typedef void (*sandbox_post_fn)(void *ctx, const char *kind, cJSON *fields);

struct sandbox_supervisor_opts {
	int sock;                 /* our end of the status channel (taken) */
	pid_t launcher_pid;
	const char *scope, *tmp;  /* realpaths */
	const char *cache;        /* realpath of the writable cache (sandbox_cache.h), or NULL */
	int deny_network;
	_Atomic int64_t *turn_seq; /* the tools/call in flight (-1 when none); may be NULL */
	/* Opt-in (verification replays; off for proxying): also post a "write_intent" record for
	 * every write-intent call let through that names a path inside the scope:
	 *   {"op":"openat","pid":N,"path":"/abs/resolved"[,"to":"/abs/resolved"]}
	 * ("to": the second path of rename and link calls; only paths inside the scope are given),
	 * {"op":...,"pid":N,"unresolved":true} when a path argument could not be read or
	 * resolved, {"op":"link"|"linkat",...} for every hard link attempt wherever it points
	 * (a name outside the scope would let writes reach a scope inode unseen), and once
	 * {"overflow":true} after SANDBOX_MAX_WRITE_INTENTS records, after which nothing more is
	 * reported. Paths are resolved as the supervisor sees them when the call traps; see
	 * docs/THREAT_MODEL.md for what that can miss. */
	int report_writes;
	sandbox_post_fn post;
	void *ctx;
};
#define SANDBOX_MAX_WRITE_INTENTS 100000

int sandbox_supervisor_start(const struct sandbox_supervisor_opts *o, struct sandbox_supervisor **out);
/* Makes sure no contained process outlives its session. A task that still uses the
 * sandbox's seccomp filter keeps the listener from reporting POLLHUP; if it does not report
 * it, every process of the sandbox's user namespace is sent SIGKILL (repeatedly, so that
 * children forked meanwhile go too) until it does or wait_ms pass. Returns 1 when every
 * contained process is gone (or none was ever started), 0 when some may remain; *killed
 * counts the SIGKILLs sent. Call from the session's thread before sandbox_supervisor_stop. */
int sandbox_supervisor_reap(struct sandbox_supervisor *s, unsigned wait_ms, int *killed);
/* Stops the thread (if still running), joins it and frees. Safe to call once. */
void sandbox_supervisor_stop(struct sandbox_supervisor *s);

#endif
