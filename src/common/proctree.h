/* proctree.h - what a process tree holds open: the tree from a root process (its descendants
 * through /proc/PID/task/TID/children, breadth first, bounded) and, for each process, the
 * files it has open (/proc/PID/fd, with the access mode from /proc/PID/fdinfo) and the files
 * it has mapped (/proc/PID/maps, with the mapping's permissions). Used where belay must know
 * what a contained server may write through without a new open (proxy/witness) and what a
 * replayed server would not see replaced under it (verify/held).
 *
 * Reads /proc only; any thread; no allocation the caller sees. Paths that are not absolute
 * (sockets, pipes, anonymous memory) and files deleted since they were opened are skipped.
 * A process that ends during the walk is simply not there. */
#ifndef BELAY_COMMON_PROCTREE_H
#define BELAY_COMMON_PROCTREE_H
#include <stddef.h>

struct proctree_file {
	const char *path; /* absolute; valid during the callback only */
	int mapped;       /* 1: a mapping (maps), 0: an open descriptor (fd) */
	int writable;     /* fd: opened for writing (O_WRONLY/O_RDWR); map: 'w' permission */
	int shared;       /* map: a shared mapping ('s'); always 0 for a descriptor */
};

typedef void (*proctree_file_cb)(void *ctx, const struct proctree_file *f);

/* Every file each process of the tree from root holds, to cb. Returns 0 when the whole tree
 * was read, -1 when it could not be (root gone, or more than max_procs processes: those past
 * the bound are not read). */
int proctree_files(int root, size_t max_procs, proctree_file_cb cb, void *ctx);

#endif
