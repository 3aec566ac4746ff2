/* sandbox_supervisor.h - the proxy-side half of containment: a thread that takes the
 * contained server's seccomp notification listener from the launcher (pidfd_getfd) and
 * answers every trapped call. It refuses writes outside the scope and temp dir, network
 * attempts under `deny`, signals to processes outside the sandbox and calls that could undo
 * containment, and records each refusal with the exact operation and path or address, from
 * the syscall arguments the kernel handed over (never from the server's stderr text).
 * Allowed network attempts are recorded too. The kernel layers (Landlock, read-only mounts,
 * the network namespace) still enforce everything the supervisor lets through. */
#ifndef BELAY_ENGINE_SANDBOX_SUPERVISOR_H
#define BELAY_ENGINE_SANDBOX_SUPERVISOR_H
#include <cjson/cJSON.h>
#include <stdatomic.h>
#include <stdint.h>
#include <sys/types.h>

struct sandbox_supervisor;

/* Thread-safe sink for what the supervisor observes. kind is "sandbox" (status: fields has
 * "ok" and either "layers" or "layer"+"error"), "denial" or "network_attempt". Takes fields. */
typedef void (*sandbox_post_fn)(void *ctx, const char *kind, cJSON *fields);

struct sandbox_supervisor_opts {
	int sock;                 /* our end of the status channel (taken) */
	pid_t launcher_pid;
	const char *scope, *tmp;  /* realpaths */
	int deny_network;
	_Atomic int64_t *turn_seq; /* the tools/call in flight (-1 when none); may be NULL */
	sandbox_post_fn post;
	void *ctx;
};

int sandbox_supervisor_start(const struct sandbox_supervisor_opts *o, struct sandbox_supervisor **out);
/* Stops the thread (if still running), joins it and frees. Safe to call once. */
void sandbox_supervisor_stop(struct sandbox_supervisor *s);

#endif
