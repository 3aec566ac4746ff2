/* session_gate.c - the turn gate on the client-to-server path (loop thread; captures run
 * on libuv worker threads).
 *
 * Without a gate, session.c forwards client chunks as read. With one, client bytes are
 * forwarded line by line, in order, through a queue: a tools/call line is a barrier that
 * holds itself and everything after it until its pre-state has been captured, so no byte of
 * a tools/call reaches the server first. A partial line is held until its newline (at end of
 * stream it is flushed unexamined). Server output keeps flowing meanwhile.
 *
 * Concurrency: a tools/call that arrives while others are unanswered cannot get a clean
 * pre-state by capturing now. If every outstanding call declared readOnlyHint: true (in the
 * latest tools/list the server sent), the last captured pre-state still holds, conditional
 * on those calls really being read-only: the handle says so ("depends_on_read_only") and
 * verify checks it. Otherwise the handle is UNRESTORABLE_CONCURRENT_TURN. A client's
 * notifications/cancelled retires its call; a response retires it (server-originated
 * requests never do). A tools/call without a usable id is captured but never retired. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/jsonx.h"
#include "common/strmap.h"
#include "common/xalloc.h"
#include "engine/model.h"
#include "engine/rpc_msg.h"
#include "engine/session_internal.h"
#include "engine/turn_gate.h"

struct turn_gate *turn_gate_new(cJSON *(*capture)(void *ctx), void *ctx, void (*free_ctx)(void *ctx))
{
	struct turn_gate *g = xcalloc(1, sizeof *g);
	g->capture = capture;
	g->capture_ctx = ctx;
	g->free_ctx = free_ctx;
	return g;
}

void turn_gate_free(struct turn_gate *g)
{
	if (!g)
		return;
	if (g->free_ctx)
		g->free_ctx(g->capture_ctx);
	free(g);
}

/*==== per-session state ====*/

enum item_state { IT_READY = 0, IT_CAPTURE, IT_CAPTURING };

/* A later call whose pre-state is this capture's (it overlaps only read-only calls). */
struct sharer {
	struct sharer *next;
	struct trace_rec *rec;
	cJSON *deps; /* request seqs of the read-only calls it depends on */
};

struct item {
	struct item *next;
	struct sharer *sharers;
	char *data;
	size_t len;
	enum item_state state;
	struct trace_rec *rec; /* the deferred frame record of a barrier */
	int64_t seq;
	cJSON *handle; /* result of the capture */
};

struct outstanding {
	int64_t seq;
	int read_only; /* the tool declared readOnlyHint: true */
	int untracked; /* no usable id: never retired */
};

struct gate_state {
	struct buf pend;       /* bytes of the incomplete line */
	const char *chunk;     /* the chunk being framed */
	size_t fwd_start;      /* offset in chunk of the next unqueued byte */
	struct item *head, **tail, *last;
	uv_work_t work;
	struct item *working;  /* the item whose capture runs */
	struct item *pending;  /* the latest capture not yet returned (queued or running) */
	struct strmap ledger;  /* "idkey" -> index into out[] */
	struct outstanding *out;
	size_t nout, capout;
	size_t untracked_n;
	struct strmap list_reqs; /* tools/list request ids awaiting their response */
	cJSON *tools;            /* tool name -> annotations, from the latest tools/list result */
	cJSON *last_handle;      /* the most recent captured pre-state */
	int64_t last_handle_seq;
	int closing;
	int warming;      /* the warm-up job runs; captures wait */
	uv_work_t warm_work;
};

static struct gate_state *gs(struct session *s)
{
	if (!s->gate_state) {
		struct gate_state *g = xcalloc(1, sizeof *g);
		g->tail = &g->head;
		strmap_init(&g->ledger);
		strmap_init(&g->list_reqs);
		g->last_handle_seq = -1;
		s->gate_state = g;
	}
	return s->gate_state;
}

/*==== the ledger ====*/

static void ledger_add(struct gate_state *g, const char *key, int64_t seq, int read_only)
{
	if (g->nout == g->capout) {
		g->capout = g->capout ? g->capout * 2 : 16;
		g->out = xrealloc(g->out, g->capout * sizeof *g->out);
	}
	g->out[g->nout] = (struct outstanding){seq, read_only, key == NULL};
	if (key)
		strmap_put(&g->ledger, key, (int64_t)g->nout);
	else
		g->untracked_n++;
	g->nout++;
}

static size_t ledger_count(struct gate_state *g)
{
	return strmap_count(&g->ledger) + g->untracked_n;
}

static void update_turn_seq(struct session *s, struct gate_state *g)
{
	/* The most recent outstanding call is the one a denial is attributed to. */
	int64_t best = -1;
	for (size_t i = 0; i < g->ledger.cap; i++)
		if (strmap_live(&g->ledger, i) && g->out[g->ledger.slots[i].val].seq > best)
			best = g->out[g->ledger.slots[i].val].seq;
	for (size_t i = 0; i < g->nout; i++)
		if (g->out[i].untracked && g->out[i].seq > best)
			best = g->out[i].seq;
	atomic_store(&s->turn_seq, best);
}

static void retire(struct session *s, struct gate_state *g, const struct rpc_id *id)
{
	if (!rpc_id_trackable(id))
		return;
	if (strmap_del(&g->ledger, id->key))
		update_turn_seq(s, g);
}

static int declared_read_only(struct gate_state *g, const char *tool)
{
	if (!g->tools || !tool)
		return 0;
	const cJSON *ann = cJSON_GetObjectItemCaseSensitive(g->tools, tool);
	return ann && cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(ann, "readOnlyHint"));
}

/*==== the forward queue ====*/

static void start_capture(struct session *s, struct gate_state *g);

static void flush(struct session *s)
{
	struct gate_state *g = gs(s);
	while (g->head && g->head->state == IT_READY) {
		struct item *it = g->head;
		g->head = it->next;
		if (!g->head) {
			g->tail = &g->head;
			g->last = NULL;
		}
		if (it->seq >= 0)
			update_turn_seq(s, g);
		session_forward_c2s(s, it->data, it->len);
		free(it);
	}
	if (g->head && g->head->state == IT_CAPTURE && !g->working && !g->warming)
		start_capture(s, g);
}

static void enqueue(struct gate_state *g, char *data, size_t len, enum item_state st, struct trace_rec *rec, int64_t seq)
{
	/* Consecutive plain lines merge into one write. */
	struct item *last = g->last;
	if (st == IT_READY && last && last->state == IT_READY && last->seq < 0 && seq < 0) {
		last->data = xrealloc(last->data, last->len + len);
		memcpy(last->data + last->len, data, len);
		last->len += len;
		free(data);
		return;
	}
	struct item *it = xcalloc(1, sizeof *it);
	it->data = data;
	it->len = len;
	it->state = st;
	it->rec = rec;
	it->seq = seq;
	*g->tail = it;
	g->tail = &it->next;
	g->last = it;
	if (st == IT_CAPTURE)
		g->pending = it;
}

static void capture_work(uv_work_t *w)
{
	struct session *s = w->data;
	struct gate_state *g = s->gate_state;
	g->working->handle = s->gate->capture(s->gate->capture_ctx);
}

static void capture_done(uv_work_t *w, int status)
{
	struct session *s = w->data;
	struct gate_state *g = s->gate_state;
	struct item *it = g->working;
	g->working = NULL;
	if (g->pending == it)
		g->pending = NULL;
	if (g->closing) {
		/* The session ended meanwhile: the trace already named these calls' causes. */
		for (struct sharer *sh = it->sharers; sh;) {
			struct sharer *n = sh->next;
			cJSON_Delete(sh->deps);
			free(sh);
			sh = n;
		}
		cJSON_Delete(it->handle);
		free(it->data);
		free(it);
		session_unref(s);
		return;
	}
	cJSON *h = it->handle;
	it->handle = NULL;
	if (!h || status != 0) {
		cJSON_Delete(h);
		h = cJSON_CreateObject();
		cJSON_AddStringToObject(h, "status", "unrestorable");
		cJSON_AddStringToObject(h, "cause", "UNRESTORABLE_SNAPSHOT_FAILED");
		cJSON_AddStringToObject(h, "detail", status ? "the capture was cancelled" : "the capture returned nothing");
		cJSON_AddStringToObject(h, "source", "turn-gate");
	}
	const char *st = jx_str(h, "status");
	if (st && !strcmp(st, "present")) {
		cJSON_Delete(g->last_handle);
		g->last_handle = cJSON_Duplicate(h, 1);
		g->last_handle_seq = it->seq;
	}
	/* Calls that overlapped only read-only calls share this pre-state, conditionally. */
	for (struct sharer *sh = it->sharers; sh;) {
		struct sharer *n = sh->next;
		cJSON *hh = cJSON_Duplicate(h, 1);
		cJSON_AddNumberToObject(hh, "shared_from_seq", (double)it->seq);
		cJSON_AddItemToObject(hh, "depends_on_read_only", sh->deps);
		if (s->tw && sh->rec)
			trace_writer_set_handle(s->tw, sh->rec, hh);
		else
			cJSON_Delete(hh);
		free(sh);
		sh = n;
	}
	it->sharers = NULL;
	if (s->tw && it->rec)
		trace_writer_set_handle(s->tw, it->rec, h);
	else
		cJSON_Delete(h);
	it->rec = NULL;
	it->state = IT_READY;
	session_unref(s);
	flush(s);
}

static void start_capture(struct session *s, struct gate_state *g)
{
	struct item *it = g->head;
	it->state = IT_CAPTURING;
	g->working = it;
	g->work.data = s;
	s->open_handles++; /* the session lives until the capture returns */
	if (uv_queue_work(s->loop, &g->work, capture_work, capture_done) != 0) {
		it->handle = NULL;
		capture_done(&g->work, -1);
	}
}

/*==== classifying client frames ====*/

static cJSON *concurrent_handle(struct gate_state *g, int batch)
{
	cJSON *h = cJSON_CreateObject();
	cJSON_AddStringToObject(h, "status", "unrestorable");
	cJSON_AddStringToObject(h, "cause", "UNRESTORABLE_CONCURRENT_TURN");
	char detail[300];
	if (batch) {
		snprintf(detail, sizeof detail,
			 "one frame carried %d tools/call requests; one frame has one pre-state", batch);
	} else {
		size_t n = ledger_count(g);
		snprintf(detail, sizeof detail,
			 "forwarded while %zu other call(s) were unanswered%s, not all declared readOnlyHint: true", n,
			 g->untracked_n ? " (including a call without an id, whose end is never signalled)" : "");
	}
	cJSON_AddStringToObject(h, "detail", detail);
	cJSON_AddStringToObject(h, "source", "turn-gate");
	return h;
}

/* The last pre-state, reused because only read-only-declared calls ran since it. */
static cJSON *shared_handle(struct gate_state *g)
{
	cJSON *h = cJSON_Duplicate(g->last_handle, 1);
	cJSON_DeleteItemFromObjectCaseSensitive(h, "shared_from_seq");
	cJSON_DeleteItemFromObjectCaseSensitive(h, "depends_on_read_only");
	cJSON_AddNumberToObject(h, "shared_from_seq", (double)g->last_handle_seq);
	cJSON *deps = cJSON_AddArrayToObject(h, "depends_on_read_only");
	for (size_t i = 0; i < g->ledger.cap; i++)
		if (strmap_live(&g->ledger, i))
			cJSON_AddItemToArray(deps, cJSON_CreateNumber((double)g->out[g->ledger.slots[i].val].seq));
	return h;
}

static int all_outstanding_read_only(struct gate_state *g)
{
	if (g->untracked_n)
		return 0;
	for (size_t i = 0; i < g->ledger.cap; i++)
		if (strmap_live(&g->ledger, i) && !g->out[g->ledger.slots[i].val].read_only)
			return 0;
	return 1;
}

static void on_client_frame(void *ctx, const char *data, size_t len, size_t total, int truncated, size_t end)
{
	struct session *s = ctx;
	struct gate_state *g = gs(s);
	/* The line's bytes: what was held plus this chunk up to the newline. */
	struct buf line = g->pend;
	memset(&g->pend, 0, sizeof g->pend);
	buf_append(&line, g->chunk + g->fwd_start, end - g->fwd_start);
	g->fwd_start = end;

	struct rpc_msg m;
	rpc_msg_parse(data, len, truncated, &m);
	int calls = 0;
	const struct rpc_item *call = NULL;
	for (int i = 0; i < m.n; i++) {
		const struct rpc_item *it = &m.items[i];
		if (it->kind == RPC_REQUEST && !strcmp(it->method, "tools/call")) {
			calls++;
			call = it;
		} else if (it->kind == RPC_REQUEST && !strcmp(it->method, "tools/list") && rpc_id_trackable(&it->id)) {
			strmap_put(&g->list_reqs, it->id.key, 1);
		} else if (it->kind == RPC_NOTIFICATION && !strcmp(it->method, "notifications/cancelled")) {
			retire(s, g, &it->cancel_of);
		}
	}
	size_t n = line.len;
	char *bytes = buf_take(&line);
	if (calls == 0) {
		session_record_frame(s, DIR_C2S, data, len, total, truncated, NULL, NULL);
		enqueue(g, bytes, n, IT_READY, NULL, -1);
	} else if (calls == 1 && ledger_count(g) > 0 && all_outstanding_read_only(g) && g->pending) {
		/* Overlapping read-only calls whose pre-state is still being captured: share it. */
		struct sharer *sh = xcalloc(1, sizeof *sh);
		sh->deps = cJSON_CreateArray();
		for (size_t i = 0; i < g->ledger.cap; i++)
			if (strmap_live(&g->ledger, i))
				cJSON_AddItemToArray(sh->deps, cJSON_CreateNumber((double)g->out[g->ledger.slots[i].val].seq));
		int64_t seq = session_record_frame(s, DIR_C2S, data, len, total, truncated, NULL, &sh->rec);
		sh->next = g->pending->sharers;
		g->pending->sharers = sh;
		ledger_add(g, rpc_id_trackable(&call->id) ? call->id.key : NULL, seq, declared_read_only(g, call->tool));
		enqueue(g, bytes, n, IT_READY, NULL, seq);
	} else if (calls > 1 || ledger_count(g) > 0) {
		/* Overlapping: no clean capture possible now. */
		cJSON *h = calls == 1 && all_outstanding_read_only(g) && g->last_handle ? shared_handle(g)
										       : concurrent_handle(g, calls > 1 ? calls : 0);
		int64_t seq = session_record_frame(s, DIR_C2S, data, len, total, truncated, h, NULL);
		for (int i = 0; i < m.n; i++) {
			const struct rpc_item *it = &m.items[i];
			if (it->kind == RPC_REQUEST && !strcmp(it->method, "tools/call"))
				ledger_add(g, rpc_id_trackable(&it->id) ? it->id.key : NULL, seq,
					   declared_read_only(g, it->tool));
		}
		enqueue(g, bytes, n, IT_READY, NULL, seq);
	} else {
		struct trace_rec *rec = NULL;
		int64_t seq = session_record_frame(s, DIR_C2S, data, len, total, truncated, NULL, &rec);
		ledger_add(g, rpc_id_trackable(&call->id) ? call->id.key : NULL, seq, declared_read_only(g, call->tool));
		enqueue(g, bytes, n, IT_CAPTURE, rec, seq);
	}
	rpc_msg_free(&m);
}

void session_gate_c2s_chunk(struct session *s, char *data, size_t n)
{
	struct gate_state *g = gs(s);
	g->chunk = data;
	g->fwd_start = 0;
	framer_feed(&s->fr[DIR_C2S], data, n, on_client_frame, s);
	buf_append(&g->pend, data + g->fwd_start, n - g->fwd_start);
	g->chunk = NULL;
	free(data);
	flush(s);
}

void session_gate_c2s_eof(struct session *s)
{
	if (!s->gate)
		return;
	struct gate_state *g = gs(s);
	/* A partial line at end of stream goes out unexamined (no invented turn). */
	if (g->pend.len) {
		size_t n = g->pend.len;
		enqueue(g, buf_take(&g->pend), n, IT_READY, NULL, -1);
	}
	flush(s);
}

void session_gate_s2c_frame(struct session *s, const char *data, size_t len, int truncated)
{
	if (!s->gate || truncated)
		return;
	struct gate_state *g = gs(s);
	/* Only responses matter here; skip the parse for frames that cannot be one. */
	if (!memmem(data, len, "\"result\"", 8) && !memmem(data, len, "\"error\"", 7))
		return;
	struct rpc_msg m;
	rpc_msg_parse(data, len, 0, &m);
	for (int i = 0; i < m.n; i++) {
		const struct rpc_item *it = &m.items[i];
		if (it->kind != RPC_RESPONSE || it->method || !rpc_id_trackable(&it->id))
			continue;
		retire(s, g, &it->id);
		if (strmap_del(&g->list_reqs, it->id.key) && cJSON_IsObject(it->result)) {
			const cJSON *tools = cJSON_GetObjectItemCaseSensitive(it->result, "tools");
			if (cJSON_IsArray(tools)) {
				cJSON_Delete(g->tools);
				g->tools = cJSON_CreateObject();
				for (const cJSON *t = tools->child; t; t = t->next) {
					const char *name = jx_str(t, "name");
					const cJSON *ann = cJSON_GetObjectItemCaseSensitive(t, "annotations");
					if (name && !cJSON_GetObjectItemCaseSensitive(g->tools, name))
						cJSON_AddItemToObject(g->tools, name,
								      cJSON_IsObject(ann) ? cJSON_Duplicate(ann, 1)
											  : cJSON_CreateObject());
				}
			}
		}
	}
	rpc_msg_free(&m);
}

int session_gate_blocks_reading(struct session *s)
{
	if (!s->gate || !s->gate_state)
		return 0;
	/* While a capture holds the queue, stop reading more than a bounded backlog. */
	struct gate_state *g = s->gate_state;
	size_t queued = 0;
	for (struct item *it = g->head; it; it = it->next)
		queued += it->len;
	return queued > ((size_t)8 << 20);
}

static void warm_work(uv_work_t *w)
{
	struct session *s = w->data;
	s->gate->warm(s->gate->capture_ctx);
}

static void warm_done(uv_work_t *w, int status)
{
	struct session *s = w->data;
	struct gate_state *g = s->gate_state;
	(void)status;
	g->warming = 0;
	if (!g->closing)
		flush(s);
	session_unref(s);
}

void session_gate_started(struct session *s)
{
	if (!s->gate || !s->gate->warm)
		return;
	struct gate_state *g = gs(s);
	g->warming = 1;
	g->warm_work.data = s;
	s->open_handles++;
	if (uv_queue_work(s->loop, &g->warm_work, warm_work, warm_done) != 0) {
		g->warming = 0;
		s->open_handles--;
	}
}

void session_gate_finish(struct session *s)
{
	if (!s->gate_state)
		return;
	struct gate_state *g = s->gate_state;
	g->closing = 1;
	/* Held bytes are dropped with the dead server; unresolved captures are named by the
	 * trace writer at close. */
	for (struct item *it = g->head; it;) {
		struct item *next = it->next;
		if (it != g->working) {
			for (struct sharer *sh = it->sharers; sh;) {
				struct sharer *nx = sh->next;
				cJSON_Delete(sh->deps);
				free(sh);
				sh = nx;
			}
			free(it->data);
			free(it);
		}
		it = next;
	}
	g->head = NULL;
	g->tail = &g->head;
	g->last = NULL;
	g->pending = g->working;
}

void session_gate_free(struct session *s)
{
	struct gate_state *g = s->gate_state;
	if (g) {
		buf_free(&g->pend);
		strmap_free(&g->ledger);
		strmap_free(&g->list_reqs);
		free(g->out);
		cJSON_Delete(g->tools);
		cJSON_Delete(g->last_handle);
		free(g);
		s->gate_state = NULL;
	}
	turn_gate_free(s->gate);
	s->gate = NULL;
}
