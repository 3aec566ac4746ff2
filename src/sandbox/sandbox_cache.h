/* sandbox_cache.h - the writable cache a contained process gets, decided once for every
 * containment (the proxy's and the console's servers): <paths_cache_dir()>/sandbox/
 * <network>-<hash of the scope and the network policy>, one per scope AND network policy
 * (a file one contained run plants there - a bytecode file, a package - is found only by
 * later runs of the same scope with the same policy, never by another scope's or by the
 * same scope's with the network opened), created 0700 (and its parent) and refused unless
 * it is a real directory of ours. Replays get a throwaway one in their scratch
 * (src/verify/scratch.c), trials none. Inside the sandbox it is writable like the
 * scope (bind mount, Landlock rule, the supervisor's write roots) but never snapshotted,
 * and tools find it through their usual variables (sandbox_cache_vars): npm, pip, uv, yarn,
 * go, Python's bytecode and anything that honours XDG_CACHE_HOME.
 *
 * Everything else outside the scope and the private temp dir stays read-only: the user's
 * own ~/.npm or ~/.cache/pip are never written by a contained process (a cache it poisoned
 * would be read uncontained later). What a contained process leaves in this cache is seen
 * by later contained processes only; belay's own package resolution (src/pkgexec) keeps its
 * npm cache beside it, not in it.
 *
 * sandbox_cache_prepare: any thread. sandbox_cache_setenv: the launcher only (it uses
 * nothing but libc, for the small belay-launch binary). */
#ifndef BELAY_SANDBOX_SANDBOX_CACHE_H
#define BELAY_SANDBOX_SANDBOX_CACHE_H
#include "common/err.h"

struct sandbox_spec;

/* Creates (or adopts) the cache of spec's scope and network policy (both must be set) and
 * sets spec->cache to it (owned by the spec). */
int sandbox_cache_prepare(struct sandbox_spec *spec, struct err *e);
/* The variables a contained process gets, each {name, subdirectory of the cache} ("" for the
 * cache itself); a {NULL, NULL} pair ends the list. */
extern const char *const sandbox_cache_vars[][2];
/* Sets every variable of sandbox_cache_vars to its place under cache. Launcher, before exec. */
void sandbox_cache_setenv(const char *cache);

#endif
