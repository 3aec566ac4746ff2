/* a1_cache.h - A1's memory of test-file sides already read, so a side is read once per
 * process however many turns judge it (a task's pre-state is the pre side of every turn's
 * A1 check; a file a turn leaves unchanged is the same bytes again).
 *
 * An entry is one side's facts (the judge's own struct, read-only once stored) and, when the
 * side parsed, its tree (handed out as copies: the next side is parsed incrementally against
 * it). Key: SHA-256 over the judge's kind ("go", "rust", "java"), the grammar's ABI version
 * (ts_language_version) and the side's full bytes, with the byte count compared as well; the
 * grammar and the reader are compiled into this process, so the same key always means the
 * same facts - no hit is ever stale.
 *
 * Bounded: at most A1_CACHE_MAX_ENTRIES entries and A1_CACHE_MAX_COST bytes of estimated
 * memory; the least recently used unreferenced entry goes first. A side larger than the
 * whole bound is read but not kept.
 *
 * Threads: any; one mutex guards the table. An entry handed out (a1_cache_get / a1_cache_put)
 * stays alive until its reference is released, even if evicted or cleared meanwhile.
 * Memory: the cache owns the facts and the tree it stores; a caller owns the tree copies it
 * is given and releases every reference. Failure: none reported (out of memory is fatal). */
#ifndef BELAY_ASSERTIONS_A1_CACHE_H
#define BELAY_ASSERTIONS_A1_CACHE_H
#include <stddef.h>
#include <tree_sitter/api.h>

#define A1_CACHE_MAX_ENTRIES 64
#define A1_CACHE_MAX_COST (96u << 20)

struct a1_cache_ref; /* opaque: a held entry */

struct a1_cache_key {
	unsigned char h[32];
	size_t len;
};

/* The key of `text` (len bytes; NULL = an absent side) read by `kind` with `lang`'s grammar. */
void a1_cache_key(struct a1_cache_key *k, const char *kind, const TSLanguage *lang, const char *text, size_t len);

/* The entry for `k`, held: its facts (read-only) into *facts and, when want_tree and the
 * side parsed, a new copy of its tree into *tree (the caller deletes it; else NULL). NULL when
 * nothing is stored under `k`. */
struct a1_cache_ref *a1_cache_get(const struct a1_cache_key *k, const void **facts, TSTree **tree, int want_tree);

/* Stores `facts` (taken; freed with free_facts when the entry goes) and a copy of `tree`
 * (may be NULL; not taken) under `k`, `bytes` the side's size. Returns the entry, held. When
 * an equal key was stored meanwhile, or `k` is NULL (a side the judge refused: a parse that
 * timed out might not next time, so refusals are never remembered), the facts are kept in a
 * held entry of their own all the same, freed on release. */
struct a1_cache_ref *a1_cache_put(const struct a1_cache_key *k, void *facts, void (*free_facts)(void *),
				  const TSTree *tree, size_t bytes);

/* `r` as it is when the facts it holds are whole; when they are `partial` (a lazy reading's:
 * only the tree is of use), NULL, with `r` released, *facts NULL and *tree (when given) deleted
 * and NULL. */
struct a1_cache_ref *a1_cache_whole(struct a1_cache_ref *r, int partial, const void **facts, TSTree **tree);

/* Releases a reference (NULL: nothing). */
void a1_cache_release(struct a1_cache_ref *r);

/* Forgets every entry (held ones live on until released), then calls each a1_cache_on_clear
 * hook. For the bench and tests. */
void a1_cache_clear(void);

/* fn (at most 4 of them; the same fn once) is called by every a1_cache_clear, outside the
 * cache's mutex: a reader that remembers sides elsewhere (Kotlin's worker, a1_worker.h)
 * forgets them too. */
void a1_cache_on_clear(void (*fn)(void));

/* Lookups that hit and entries stored since the process started (tests, the bench). */
void a1_cache_stats(unsigned long *hits, unsigned long *stores);

#endif
