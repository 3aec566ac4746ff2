/* sandbox_supervisor.h - the proxy-side half of containment: a thread that takes the
 * contained server's seccomp notification listener from the pid namespace's init
 * (pidfd_getfd) and answers every trapped call, deciding in the server's own view of the
 * filesystem (sandbox_view.h, sandbox_resolve.h). It refuses writes outside the writable
 * zones, reads of hidden credential stores, network attempts under `deny`, socket families
 * and datagram sockets that cannot be checked, calls on processes outside the sandbox,
 * leases, locks outside the scope, terminal injection and the calls that could undo
 * containment; it refuses and names any call it cannot decide (an unreadable argument, an
 * unresolvable path); and it performs unix-socket connects itself, on the server's socket,
 * so that what it checked is what connects. Each refusal is recorded with the exact
 * operation, reason and path or address, from the syscall arguments the kernel handed over
 * (never from the server's stderr); allowed network attempts are recorded too. The kernel
 * layers (Landlock, read-only and hidden mounts, the namespaces) still enforce everything
 * the supervisor lets through. docs/THREAT_MODEL.md has the table of decisions. */
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
	pid_t launcher_pid;       /* belay's child (the launcher); the listener comes from its child */
	const char *scope, *tmp;  /* realpaths */
	const char *cache;        /* realpath of the writable cache (sandbox_cache.h), or NULL */
	int deny_network;
	/* Under deny: the server may make TCP sockets (inet, inet6) and bind this port on a
	 * loopback or wildcard address of its own network namespace (0: no TCP at all).
	 * Connects stay refused. */
	unsigned loopback_port;
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
	/* Optional, supervisor thread: every path inside the scope a write-intent call let
	 * through names (tree: a rename's source or target, its subtree moved), for the proxy's
	 * check of changes nobody contained made (proxy/witness.h). No record is written. */
	void (*on_write)(void *ctx, const char *path, int tree);
	void *write_ctx;
	sandbox_post_fn post;
	void *ctx;
};
#define SANDBOX_MAX_WRITE_INTENTS 100000

int sandbox_supervisor_start(const struct sandbox_supervisor_opts *o, struct sandbox_supervisor **out);
/* Makes sure no contained process outlives its session. A task that still uses the
 * sandbox's seccomp filter keeps the listener from reporting POLLHUP; if it does not report
 * it, the pid namespace's init is sent SIGKILL (which ends every process of the namespace),
 * then every process of the sandbox's user namespace (repeatedly, so that children forked
 * meanwhile go too) until it does or wait_ms pass. Returns 1 when every
 * contained process is gone (or none was ever started), 0 when some may remain; *killed
 * counts the SIGKILLs sent. Call from the session's thread before sandbox_supervisor_stop. */
int sandbox_supervisor_reap(struct sandbox_supervisor *s, unsigned wait_ms, int *killed);
/* Stops the thread (if still running), joins it and frees. Safe to call once. */
void sandbox_supervisor_stop(struct sandbox_supervisor *s);

#endif
