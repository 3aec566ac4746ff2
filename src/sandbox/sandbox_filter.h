/* sandbox_filter.h - the seccomp filter of a contained server, built with libseccomp.
 *
 * Native architecture only (any other architecture, including x32 on x86_64, kills the
 * process). Sent to the supervisor (SCMP_ACT_NOTIFY), which decides and names each: every
 * open that may write, and every open at all when a credential store is hidden (a read of
 * it is named), the calls that carry a write path,
 * a socket address, a socket family or a signal target; the calls that reach another
 * process by pid (prlimit64 with a new limit, setpriority, sched_set*, ioprio_set, ptrace,
 * process_vm_readv/writev, pidfd_open, pidfd_getfd, kcmp, process_madvise, migrate_pages, move_pages);
 * locks and leases (flock; fcntl's F_SETLK, F_SETLKW, F_OFD_SETLK(W), F_SETLEASE); the terminal and inode-flag
 * ioctls (TIOCSTI, TIOCLINUX, FS_IOC_SETFLAGS, FS_IOC_FSSETXATTR); and the calls that could
 * undo the other layers or have no business in a tool server (mount family, namespaces,
 * modules, bpf, keyrings, perf_event_open, open_by_handle_at, userfaultfd, sethostname).
 * Integer arguments are compared on their low 32 bits, as the kernel reads them. io_uring
 * and clone3 fail with ENOSYS (hidden features, not denials: runtimes fall back silently). */
#ifndef BELAY_SANDBOX_SANDBOX_FILTER_H
#define BELAY_SANDBOX_SANDBOX_FILTER_H
#include <seccomp.h>

#include "common/err.h"

struct sandbox_filter_opts {
	int trap_reads; /* every open, not only those that may write (to name reads of hidden stores) */
	int no_traps;   /* test builds only (sandbox_testswitch.h): nothing goes to the supervisor */
};

/* Returns a new filter context (caller releases), or NULL with e filled. */
scmp_filter_ctx sandbox_filter_build(const struct sandbox_filter_opts *o, struct err *e);
/* The syscall name for a number on the native architecture (static storage). */
const char *sandbox_syscall_name(int nr);

#endif
