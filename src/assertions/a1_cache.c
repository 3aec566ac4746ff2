/* a1_cache.c - A1's memory of test-file sides already read (a1_cache.h). */
#include "assertions/a1_cache.h"

#include <pthread.h>
#include <stdint.h>
#include <string.h>

#include "common/hash.h"
#include "common/xalloc.h"

struct a1_cache_ref {
	struct a1_cache_key key;
	void *facts;
	void (*free_facts)(void *);
	TSTree *tree;
	size_t cost;
	unsigned refs;	    /* holders, the table included */
	int listed;	    /* in the table */
	unsigned long used; /* tick of the last use */
};

static pthread_mutex_t a1_cache_mu = PTHREAD_MUTEX_INITIALIZER;
static struct a1_cache_ref *a1_cache_tab[A1_CACHE_MAX_ENTRIES];
static size_t a1_cache_n, a1_cache_cost;
static unsigned long a1_cache_tick, a1_cache_hits, a1_cache_stores;

void a1_cache_key(struct a1_cache_key *k, const char *kind, const TSLanguage *lang, const char *text, size_t len)
{
	struct sha256_ctx *c = sha256_new();
	uint32_t abi = lang ? ts_language_version(lang) : 0;
	unsigned char present = text != NULL;
	sha256_update(c, kind, strlen(kind) + 1);
	sha256_update(c, &abi, sizeof abi);
	sha256_update(c, &present, 1);
	if (text && len)
		sha256_update(c, text, len);
	sha256_final(c, k->h);
	k->len = text ? len : 0;
}

static int a1_cache_same(const struct a1_cache_key *a, const struct a1_cache_key *b)
{
	return a->len == b->len && !memcmp(a->h, b->h, sizeof a->h);
}

/* Called with the mutex held; frees when no holder is left. */
static void a1_cache_unref(struct a1_cache_ref *r)
{
	if (--r->refs)
		return;
	if (r->free_facts)
		r->free_facts(r->facts);
	if (r->tree)
		ts_tree_delete(r->tree);
	free(r);
}

static void a1_cache_unlist(size_t i)
{
	struct a1_cache_ref *r = a1_cache_tab[i];
	a1_cache_tab[i] = a1_cache_tab[--a1_cache_n];
	a1_cache_cost -= r->cost;
	r->listed = 0;
	a1_cache_unref(r);
}

struct a1_cache_ref *a1_cache_get(const struct a1_cache_key *k, const void **facts, TSTree **tree, int want_tree)
{
	struct a1_cache_ref *hit = NULL;
	pthread_mutex_lock(&a1_cache_mu);
	for (size_t i = 0; i < a1_cache_n && !hit; i++)
		if (a1_cache_same(&a1_cache_tab[i]->key, k))
			hit = a1_cache_tab[i];
	if (hit) {
		hit->refs++;
		hit->used = ++a1_cache_tick;
		a1_cache_hits++;
	}
	pthread_mutex_unlock(&a1_cache_mu);
	if (tree)
		*tree = hit && want_tree && hit->tree ? ts_tree_copy(hit->tree) : NULL;
	*facts = hit ? hit->facts : NULL;
	return hit;
}

struct a1_cache_ref *a1_cache_put(const struct a1_cache_key *k, void *facts, void (*free_facts)(void *),
				  const TSTree *tree, size_t bytes)
{
	struct a1_cache_ref *r = xcalloc(1, sizeof *r);
	if (k)
		r->key = *k;
	r->facts = facts;
	r->free_facts = free_facts;
	r->tree = tree ? ts_tree_copy(tree) : NULL;
	/* the facts and a tree-sitter tree of a side: measured at ~10-20 bytes per source byte */
	r->cost = bytes * 24 + 4096;
	r->refs = 1;
	pthread_mutex_lock(&a1_cache_mu);
	int dup = 0;
	for (size_t i = 0; k && i < a1_cache_n && !dup; i++)
		dup = a1_cache_same(&a1_cache_tab[i]->key, k);
	if (k && !dup && r->cost <= A1_CACHE_MAX_COST) {
		/* make room: the least recently used entries first */
		while (a1_cache_n &&
		       (a1_cache_n == A1_CACHE_MAX_ENTRIES || a1_cache_cost + r->cost > A1_CACHE_MAX_COST)) {
			size_t old = 0;
			for (size_t i = 1; i < a1_cache_n; i++)
				if (a1_cache_tab[i]->used < a1_cache_tab[old]->used)
					old = i;
			a1_cache_unlist(old);
		}
		r->refs++;
		r->listed = 1;
		r->used = ++a1_cache_tick;
		a1_cache_tab[a1_cache_n++] = r;
		a1_cache_cost += r->cost;
		a1_cache_stores++;
	}
	pthread_mutex_unlock(&a1_cache_mu);
	return r;
}

struct a1_cache_ref *a1_cache_whole(struct a1_cache_ref *r, int partial, const void **facts, TSTree **tree)
{
	if (!r || !partial)
		return r;
	a1_cache_release(r);
	*facts = NULL;
	if (tree && *tree)
		ts_tree_delete(*tree);
	if (tree)
		*tree = NULL;
	return NULL;
}

void a1_cache_release(struct a1_cache_ref *r)
{
	if (!r)
		return;
	pthread_mutex_lock(&a1_cache_mu);
	a1_cache_unref(r);
	pthread_mutex_unlock(&a1_cache_mu);
}

static void (*a1_cache_hooks[4])(void);
static size_t a1_cache_nhooks;

void a1_cache_on_clear(void (*fn)(void))
{
	pthread_mutex_lock(&a1_cache_mu);
	int dup = 0;
	for (size_t i = 0; i < a1_cache_nhooks; i++)
		dup |= a1_cache_hooks[i] == fn;
	if (!dup && a1_cache_nhooks < sizeof a1_cache_hooks / sizeof *a1_cache_hooks)
		a1_cache_hooks[a1_cache_nhooks++] = fn;
	pthread_mutex_unlock(&a1_cache_mu);
}

void a1_cache_clear(void)
{
	pthread_mutex_lock(&a1_cache_mu);
	while (a1_cache_n)
		a1_cache_unlist(a1_cache_n - 1);
	size_t n = a1_cache_nhooks;
	pthread_mutex_unlock(&a1_cache_mu);
	for (size_t i = 0; i < n; i++)
		a1_cache_hooks[i](); /* outside the mutex: a hook may wait (a1_worker_forget) */
}

void a1_cache_stats(unsigned long *hits, unsigned long *stores)
{
	pthread_mutex_lock(&a1_cache_mu);
	*hits = a1_cache_hits;
	*stores = a1_cache_stores;
	pthread_mutex_unlock(&a1_cache_mu);
}
