/* sandbox_launch_internal.h - what the stages of the launcher share (sandbox_launch.c: the
 * processes and the handshake; sandbox_mounts.c: the filesystem view; sandbox_confine.c:
 * no_new_privs, Landlock, capabilities, seccomp). Launcher process only, single-threaded. */
#ifndef BELAY_SANDBOX_SANDBOX_LAUNCH_INTERNAL_H
#define BELAY_SANDBOX_SANDBOX_LAUNCH_INTERNAL_H
#include "common/buf.h"
#include "sandbox/sandbox_view.h"

struct launch {
	const char *scope, *tmp, *net, *hide;
	const char *cache;    /* the writable per-user cache (sandbox_cache.h), or NULL */
	const char *ov_lower, *ov_upper, *ov_work; /* a trial's overlay at the scope, or NULL */
	const char **conceal; /* candidate locations to hide (NULL-terminated) */
	char *secret;         /* per candidate: 1 for a credential store (--secret), 0 for a socket dir */
	int secrets_present;  /* some credential store exists (and is hidden): reads are trapped to name it */
	const char **expose;  /* locations kept visible, read-only, inside hidden ones */
	const char **pin;     /* paths inside the scope kept read-only (--pin) */
	size_t nconceal, nexpose, npin;
	int status_fd;
	const char *server_env_mode; /* "channel": the server's environment comes on status_fd; "inherit" */
	char **server_env;  /* the server's environment (NAME=VALUE, NULL-terminated), or NULL: ours */
	char *server_env_block; /* what server_env points into */
	char *const *argv; /* argv[0] = exe path, argv[1..] = the server's argv */
	int deny;
	unsigned off;      /* SB_OFF_* (test builds only; 0 otherwise) */
	struct buf layers; /* JSON object body describing what was installed */
	struct sandbox_view view; /* what the server sees (built by the mount stage) */
	int private_dirs;  /* /tmp and /dev/shm are private tmpfs mounts */
	int devpts;        /* /dev/pts is a private devpts instance (and /dev/ptmx its ptmx) */
	int ipcns;         /* an IPC namespace of its own (SysV IPC, POSIX message queues) */
	unsigned loopback_port; /* the server may listen on this TCP port of the sandbox's lo (0: none) */
	int connector_fd;  /* belay's connector socket (sandbox_loopback.c), or -1 */
};

/* Prints the refusal, reports it on the status channel and returns 2. */
int launch_refuse(struct launch *l, const char *layer, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* A trial's overlay at the scope's path (first, before the view is built); 0 without one. */
int launch_overlay(struct launch *l);
/* The mount namespace view (in the launcher, after unshare, before the fork). */
int launch_mounts(struct launch *l);
/* A fresh, read-only /proc for the pid namespace (in its first process). */
int launch_proc(struct launch *l);
/* With --loopback: `lo` up in the sandbox's network namespace and, with --connector-fd,
 * the connector forked (sandbox_loopback.c). In the launcher, after the user and network
 * namespaces, before the pid namespace and any confinement. */
int launch_loopback(struct launch *l);
/* no_new_privs, Landlock, an empty capability set, the seccomp filter: its listener in
 * *notify_fd. (In the pid namespace's first process, after launch_proc.) */
int launch_confine(struct launch *l, int *notify_fd);

#endif
