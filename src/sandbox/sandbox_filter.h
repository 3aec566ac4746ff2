/* sandbox_filter.h - the seccomp filter of a contained server, built with libseccomp.
 *
 * Native architecture only (any other architecture, including x32 on x86_64, kills the
 * process). Write-intent filesystem calls, network address calls, signals, and the calls
 * that could undo the other layers (mount family, namespaces, module loading, bpf, keys)
 * are sent to the supervisor (SCMP_ACT_NOTIFY), which names every refusal. io_uring and
 * clone3 fail with ENOSYS (hidden features, not denials: runtimes fall back silently). */
#ifndef BELAY_SANDBOX_SANDBOX_FILTER_H
#define BELAY_SANDBOX_SANDBOX_FILTER_H
#include <seccomp.h>

#include "common/err.h"

/* Returns a new filter context (caller releases), or NULL with e filled. */
scmp_filter_ctx sandbox_filter_build(struct err *e);
/* The syscall name for a number on the native architecture (static storage). */
const char *sandbox_syscall_name(int nr);

#endif
