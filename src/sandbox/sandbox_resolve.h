/* sandbox_resolve.h - where a sandboxed process's path argument really points, in that
 * process's own view of the filesystem (its mount namespace: the hidden directories, the
 * private /tmp, its own /proc). Used by the supervisor thread to decide and name calls.
 * Resolution walks the path one component at a time under /proc/PID/root, follows symlinks
 * in existing components as the kernel would, maps /proc/self and /proc/thread-self to the
 * process (by its pid in its own pid namespace), and keeps a missing tail lexically. */
#ifndef BELAY_SANDBOX_SANDBOX_RESOLVE_H
#define BELAY_SANDBOX_SANDBOX_RESOLVE_H
#include <stddef.h>
#include <sys/types.h>

enum sb_resolved {
	SB_PATH = 0,    /* out holds an absolute path (the process's view) */
	SB_SPECIAL = 1, /* an object without a path (pipe:[..], socket:[..], anon_inode:..) */
	SB_UNKNOWN = 2, /* cannot be determined (process gone, loop, too long, unreadable link) */
};

/* Resolves `path` relative to `dirfd` (AT_FDCWD or an fd number) of process `pid` (a pid
 * in the supervisor's pid namespace). An empty path with `empty_is_fd` resolves the fd
 * itself (the *at(..., AT_EMPTY_PATH) forms and the f* calls). `root` is an O_PATH fd of
 * the process's root directory (every process of a sandbox shares one: chroot and
 * pivot_root are refused), or -1 to look it up through /proc/PID/root each time. */
enum sb_resolved sandbox_resolve(pid_t pid, int root, int dirfd, const char *path, int follow_last, int empty_is_fd,
				 char *out, size_t outsz);
/* The directory a relative path of pid's starts from (its cwd, or dirfd), as it sees it:
 * SB_PATH with out filled, SB_SPECIAL (not a directory of the tree), SB_UNKNOWN. */
enum sb_resolved sandbox_base(pid_t pid, int dirfd, char *out, size_t outsz);

/* The pid of `pid` in its own (innermost) pid namespace, or -1. */
pid_t sandbox_ns_pid(pid_t pid);

#endif
