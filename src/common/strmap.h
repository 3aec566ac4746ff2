/* strmap.h - open-addressing hash map from string keys to int64 values. Keys are copied
 * (the map owns them). Used for request ledgers and indexes. */
#ifndef BELAY_COMMON_STRMAP_H
#define BELAY_COMMON_STRMAP_H
#include <stddef.h>
#include <stdint.h>

struct strmap_slot {
	char *key; /* NULL = empty; TOMBSTONE = deleted */
	int64_t val;
};

struct strmap {
	struct strmap_slot *slots;
	size_t cap, used, live;
};

void strmap_init(struct strmap *m);
void strmap_free(struct strmap *m);
/* Sets key -> val (insert or overwrite). */
void strmap_put(struct strmap *m, const char *key, int64_t val);
/* Returns 1 and *val when present. */
int strmap_get(const struct strmap *m, const char *key, int64_t *val);
/* Returns 1 if a key was removed. */
int strmap_del(struct strmap *m, const char *key);
size_t strmap_count(const struct strmap *m);
/* Iteration: for (size_t i = 0; i < m->cap; i++) if (strmap_live(m, i)) ... */
int strmap_live(const struct strmap *m, size_t i);
/* FNV-1a of a C string: the map's hash, for callers' own tables too. */
uint64_t strmap_hash(const char *s);

#endif
