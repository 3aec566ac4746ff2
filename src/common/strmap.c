/* strmap.c - open addressing with linear probing and tombstones (FNV-1a hashing). */
#include "common/strmap.h"

#include <stdlib.h>
#include <string.h>

#include "common/xalloc.h"

static char tombstone_key;
#define TOMBSTONE (&tombstone_key)

uint64_t strmap_hash(const char *s)
{
	uint64_t h = 1469598103934665603ull;
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ull;
	return h;
}

void strmap_init(struct strmap *m)
{
	memset(m, 0, sizeof *m);
}

void strmap_free(struct strmap *m)
{
	for (size_t i = 0; i < m->cap; i++)
		if (m->slots[i].key && m->slots[i].key != TOMBSTONE)
			free(m->slots[i].key);
	free(m->slots);
	memset(m, 0, sizeof *m);
}

static void grow(struct strmap *m)
{
	struct strmap old = *m;
	/* Doubles only when the live keys need it: a table full of deleted slots (a map that
	 * churns, like the proxy's outstanding calls) is rehashed at its size instead. */
	size_t cap = 16;
	while ((old.live + 1) * 2 > cap)
		cap *= 2;
	m->cap = cap;
	m->slots = xcalloc(m->cap, sizeof *m->slots);
	m->used = m->live = 0;
	for (size_t i = 0; i < old.cap; i++) {
		char *k = old.slots[i].key;
		if (!k || k == TOMBSTONE)
			continue;
		size_t j = strmap_hash(k) & (m->cap - 1);
		while (m->slots[j].key)
			j = (j + 1) & (m->cap - 1);
		m->slots[j] = old.slots[i];
		m->used++;
		m->live++;
	}
	free(old.slots);
}

static struct strmap_slot *find(const struct strmap *m, const char *key)
{
	if (!m->cap)
		return NULL;
	size_t j = strmap_hash(key) & (m->cap - 1);
	for (size_t n = 0; n < m->cap; n++) {
		struct strmap_slot *s = &m->slots[j];
		if (!s->key)
			return NULL;
		if (s->key != TOMBSTONE && strcmp(s->key, key) == 0)
			return s;
		j = (j + 1) & (m->cap - 1);
	}
	return NULL;
}

void strmap_put(struct strmap *m, const char *key, int64_t val)
{
	struct strmap_slot *s = find(m, key);
	if (s) {
		s->val = val;
		return;
	}
	if ((m->used + 1) * 4 >= m->cap * 3)
		grow(m);
	size_t j = strmap_hash(key) & (m->cap - 1);
	while (m->slots[j].key && m->slots[j].key != TOMBSTONE)
		j = (j + 1) & (m->cap - 1);
	if (!m->slots[j].key)
		m->used++;
	m->slots[j].key = xstrdup(key);
	m->slots[j].val = val;
	m->live++;
}

int strmap_get(const struct strmap *m, const char *key, int64_t *val)
{
	struct strmap_slot *s = find(m, key);
	if (!s)
		return 0;
	if (val)
		*val = s->val;
	return 1;
}

int strmap_del(struct strmap *m, const char *key)
{
	struct strmap_slot *s = find(m, key);
	if (!s)
		return 0;
	free(s->key);
	s->key = TOMBSTONE;
	m->live--;
	return 1;
}

size_t strmap_count(const struct strmap *m)
{
	return m->live;
}

int strmap_live(const struct strmap *m, size_t i)
{
	return m->slots[i].key && m->slots[i].key != TOMBSTONE;
}
