/* witness.h - the paths the contained processes of a session were let write, as the sandbox's
 * supervisor saw them, collected between two pre-state captures. A capture compares what
 * changed in the workspace with what was witnessed: a change nobody contained made was made
 * by someone else (another belay's server, the user, the agent's own tools) while the session
 * ran, so the calls in flight then may have seen it (verify: WORKSPACE_CHANGED_OUTSIDE).
 *
 * Threads: witness_note runs on the supervisor thread, witness_take on the capture's worker
 * thread (where it also reads /proc for files held open for writing: witness_set_root); a
 * mutex makes them safe. The session owns the witness. Bounded: past
 * WITNESS_MAX paths it only remembers that it overflowed (and then cannot tell an outside
 * change from an inside one). */
#ifndef BELAY_PROXY_WITNESS_H
#define BELAY_PROXY_WITNESS_H
#include <stddef.h>

#define WITNESS_MAX 65536

struct witness;

struct witness *witness_new(const char *scope);
void witness_free(struct witness *w);
/* A write (create, remove, rename, chmod, truncate, link...) at the absolute, resolved path
 * `path` was let through; paths outside the scope are ignored. tree: a directory moved with
 * its subtree. Callable from any thread. */
void witness_note(struct witness *w, const char *path, int tree);
/* The same for a callback shaped as the supervisor's (ctx is the witness). */
void witness_note_cb(void *ctx, const char *path, int tree);

/* What was witnessed since the last take, relative to the scope, emptied. *overflow is set
 * when more than WITNESS_MAX paths were noted (the set is then incomplete). */
struct witnessed {
	char **paths; /* owned, sorted */
	unsigned char *tree;
	size_t n;
	int overflow;
};
void witness_take(struct witness *w, struct witnessed *out);
/* The contained tree's first process (the server's pid; 0: none). Each take then also counts
 * as written every file in the scope that a process of the tree holds open for writing, or
 * has mapped shared and writable (/proc/PID/fd, fdinfo, maps): a server writes through a
 * descriptor it opened before the turn (an SQLite database) without an open the supervisor
 * would see. Limit: a change someone else made to such a file meanwhile is then taken as the
 * server's. Any thread. */
void witness_set_root(struct witness *w, int pid);
/* How many writes in the scope were noted since witness_new, all takes included (0 for NULL). */
unsigned long long witness_noted(struct witness *w);
void witnessed_free(struct witnessed *ws);
/* 1 when a change at `path` (relative) is explained by what was witnessed: the path itself,
 * an ancestor noted as a moved tree, or - for a directory - a witnessed entry directly in it
 * (creating or removing an entry changes the directory's mtime). */
int witnessed_explains(const struct witnessed *ws, const char *path, int is_dir);

#endif
