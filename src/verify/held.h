/* held.h - the workspace files a running replayed server holds: every path below the scratch
 * workspace that a process of the server's tree has an open descriptor on (/proc/PID/fd, any
 * access mode) or has mapped (/proc/PID/maps, any mapping). The in-order replay asks before
 * it restores a turn's pre-state under the running server (verify/inorder.c): a held file that
 * must change is rewritten in place, never replaced by a new inode the server would not see.
 *
 * Reads /proc only; any thread; the result belongs to the caller (held_free). */
#ifndef BELAY_VERIFY_HELD_H
#define BELAY_VERIFY_HELD_H
#include <stddef.h>

struct held {
	char **rel;             /* paths relative to ws (owned), no repeats */
	unsigned char *mapped;  /* per path: 1 when some process has it mapped */
	size_t n;
};

/* Collects what the tree under `root` holds below `ws` (an absolute path, as the server sees
 * it). Returns 0, or -1 when the tree could not be read whole (root gone, over 4096
 * processes): the caller then cannot know what is held. */
int held_collect(int root, const char *ws, struct held *out);
void held_free(struct held *h);

#endif
