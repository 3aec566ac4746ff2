/* sandbox_resolve.h - where a sandboxed process's path argument really points, and whether
 * the sandbox lets it write there. Used by the supervisor thread to name denials exactly.
 * Resolution follows symlinks in existing components (as the kernel would), maps
 * /proc/self and /proc/thread-self to the process, and keeps a missing tail lexically. */
#ifndef BELAY_SANDBOX_SANDBOX_RESOLVE_H
#define BELAY_SANDBOX_SANDBOX_RESOLVE_H
#include <stddef.h>
#include <sys/types.h>

enum sb_resolved {
	SB_PATH = 0,    /* out holds an absolute path */
	SB_SPECIAL = 1, /* an object without a path (pipe:[..], socket:[..], anon_inode:..) */
	SB_UNKNOWN = 2, /* cannot be determined (process gone, loop, too long) */
};

/* Resolves `path` relative to `dirfd` (AT_FDCWD or an fd number) of process `pid`. An empty
 * path with `empty_is_fd` resolves the fd itself (the *at(..., AT_EMPTY_PATH) forms). */
enum sb_resolved sandbox_resolve(pid_t pid, int dirfd, const char *path, int follow_last, int empty_is_fd,
				 char *out, size_t outsz);

/* The fixed set of devices a contained process may write (also granted by Landlock). */
extern const char *const sandbox_devices[];

enum sb_verdict { SB_ALLOW = 0, SB_DENY = 1, SB_KERNEL = 2 };

/* Whether a resolved path is writable under roots (NULL-terminated list of realpaths).
 * Paths under /proc are left to the kernel (SB_KERNEL). */
enum sb_verdict sandbox_write_verdict(const char *path, const char *const *roots);

#endif
