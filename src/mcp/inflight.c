/* inflight.c - the ledger of waiting client requests. See inflight.h. */
#include "mcp/inflight.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/jsonx.h"
#include "common/xalloc.h"
#include "mcp/model.h"
#include "mcp/rpc_peek.h"

void inflight_init(struct inflight *f)
{
	memset(f, 0, sizeof *f);
	strmap_init(&f->by_id);
}

void inflight_free(struct inflight *f)
{
	for (size_t i = 0; i < f->nslots; i++)
		free(f->ids[i]);
	free(f->ids);
	free(f->free_slots);
	strmap_free(&f->by_id);
	memset(f, 0, sizeof *f);
}

static void add(struct inflight *f, const struct rpc_id *id, const char *text, size_t n)
{
	if (!rpc_id_trackable(id))
		return;
	int64_t old;
	if (strmap_get(&f->by_id, id->key, &old)) {
		/* A client reusing a waiting id: one answer is owed either way. */
		return;
	}
	size_t slot;
	if (f->nfree) {
		slot = f->free_slots[--f->nfree];
	} else {
		if (f->nslots == f->capslots) {
			f->capslots = f->capslots ? f->capslots * 2 : 16;
			f->ids = xrealloc(f->ids, f->capslots * sizeof *f->ids);
		}
		slot = f->nslots++;
	}
	/* A slot holds the id text behind its 8-byte arrival number (the drain is oldest first). */
	char *s = xmalloc(sizeof(uint64_t) + n + 1);
	uint64_t a = ++f->arrivals;
	memcpy(s, &a, sizeof a);
	memcpy(s + sizeof a, text, n);
	s[sizeof a + n] = '\0';
	f->ids[slot] = s;
	strmap_put(&f->by_id, id->key, (int64_t)slot);
}

static void retire(struct inflight *f, const struct rpc_id *id)
{
	int64_t slot;
	if (!rpc_id_trackable(id) || !strmap_get(&f->by_id, id->key, &slot))
		return;
	strmap_del(&f->by_id, id->key);
	free(f->ids[slot]);
	f->ids[slot] = NULL;
	if (f->nfree == f->capfree) {
		f->capfree = f->capfree ? f->capfree * 2 : 16;
		f->free_slots = xrealloc(f->free_slots, f->capfree * sizeof *f->free_slots);
	}
	f->free_slots[f->nfree++] = (size_t)slot;
}

/* The slow path: every element of a parsed frame. */
static void parsed(struct inflight *f, int dir, const char *data, size_t len)
{
	struct rpc_msg m;
	rpc_msg_parse(data, len, 0, &m);
	for (int i = 0; i < m.n; i++) {
		const struct rpc_item *it = &m.items[i];
		if (dir == DIR_C2S && it->kind == RPC_REQUEST) {
			char *t = jx_print(cJSON_GetObjectItemCaseSensitive(it->node, "id"));
			add(f, &it->id, t, strlen(t));
			cJSON_free(t);
		} else if (dir == DIR_C2S && it->kind == RPC_NOTIFICATION && !strcmp(it->method, "notifications/cancelled")) {
			retire(f, &it->cancel_of);
		} else if (dir == DIR_S2C && it->kind == RPC_RESPONSE) {
			retire(f, &it->id);
		}
	}
	rpc_msg_free(&m);
}

void inflight_frame(struct inflight *f, int dir, const char *data, size_t len, int truncated)
{
	if (truncated)
		return;
	struct rpc_peek p;
	if (rpc_peek(data, len, &p) != RPC_PEEK_OK) {
		parsed(f, dir, data, len);
		return;
	}
	if (dir == DIR_C2S && p.kind == RPC_REQUEST)
		add(f, &p.id, p.id_text, p.id_len);
	else if (dir == DIR_C2S && p.kind == RPC_NOTIFICATION && !strcmp(p.method, "notifications/cancelled"))
		parsed(f, dir, data, len); /* its target is inside params */
	else if (dir == DIR_S2C && p.kind == RPC_RESPONSE)
		retire(f, &p.id);
}

size_t inflight_count(const struct inflight *f)
{
	return strmap_count(&f->by_id);
}

static int by_arrival(const void *a, const void *b)
{
	uint64_t x, y;
	memcpy(&x, *(char *const *)a, sizeof x);
	memcpy(&y, *(char *const *)b, sizeof y);
	return x < y ? -1 : x > y;
}

void inflight_drain(struct inflight *f, void (*fn)(void *ctx, const char *id_json), void *ctx)
{
	/* Taken out first: fn's own replies come back through inflight_frame. */
	size_t n = 0;
	char **list = xcalloc(f->nslots + 1, sizeof *list);
	for (size_t i = 0; i < f->nslots; i++)
		if (f->ids[i]) {
			list[n++] = f->ids[i];
			f->ids[i] = NULL;
		}
	f->nslots = f->nfree = 0;
	strmap_free(&f->by_id);
	strmap_init(&f->by_id);
	qsort(list, n, sizeof *list, by_arrival);
	for (size_t i = 0; i < n; i++) {
		fn(ctx, list[i] + sizeof(uint64_t));
		free(list[i]);
	}
	free(list);
}
