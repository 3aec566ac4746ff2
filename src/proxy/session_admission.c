/* session_admission.c - the admission step on the client-to-server path (loop thread; captures run
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

#include "common/err.h"
#include "common/jsonx.h"
#include "common/paths.h"
#include "common/strmap.h"
#include "common/xalloc.h"
#include "proxy/approvals.h"
#include "mcp/model.h"
#include "gate/gate.h"
#include "mcp/rpc_msg.h"
#include "mcp/rpc_peek.h"
#include "proxy/session_internal.h"
#include "proxy/admission.h"

/*==== per-session state ====*/

enum item_state { IT_READY = 0, IT_CAPTURE, IT_CAPTURING, IT_HELD, IT_TRYING };

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
	/* a held call (IT_HELD): what to do when the console answers */
	uint64_t hold;
	cJSON *id;     /* the request id, for the refusal */
	char *tool;
	char call_key[72];
	/* a call tried first (IT_TRYING): its plan, the command and directory tried, and the
	 * trial's result (worker thread) */
	struct effect_plan *plan;
	char *cmd, *cwd;
	cJSON *trial;
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
	int passthrough;       /* the chunk went to the server whole, before framing (can_pass_through) */
	struct item *head, **tail, *last;
	uv_work_t work;
	struct item *working;  /* the item whose capture runs */
	struct item *pending;  /* the latest capture not yet returned (queued or running) */
	struct strmap ledger;  /* "idkey" -> index into out[] */
	struct outstanding *out;
	size_t nout, capout;
	size_t untracked_n;
	int64_t untracked_max; /* the latest call without an id (those are never retired), or -1 */
	struct strmap list_reqs; /* tools/list request ids awaiting their response */
	cJSON *tools;            /* tool name -> annotations, from the latest tools/list result */
	cJSON *last_handle;      /* the most recent captured pre-state */
	int64_t last_handle_seq;
	int shared_said; /* the workspace_shared record was written */
	int closing;
	int warming;      /* the warm-up job runs; captures wait */
	uint64_t next_hold;
	struct effect_plan *decision_plan; /* the decision of the call being recorded */
	const char *decision_outcome;
	char decision_by[200];
	int64_t last_call_seq;
	uv_work_t warm_work;
	struct item *trying; /* the call whose trial runs (one at a time) */
	uv_work_t trial_work;
	/* The classification context's paths, resolved on the first call (not on every one),
	 * and the strings they were made from (the session's own: they do not change) */
	struct gate_env *env;
	const char *env_from[6];
};

static struct gate_state *gs(struct session *s)
{
	if (!s->gate_state) {
		struct gate_state *g = xcalloc(1, sizeof *g);
		g->tail = &g->head;
		strmap_init(&g->ledger);
		strmap_init(&g->list_reqs);
		g->last_handle_seq = -1;
		g->untracked_max = -1;
		s->gate_state = g;
	}
	return s->gate_state;
}

/* Frees a queue item that is no longer queued nor worked on. */
static void item_free(struct item *it)
{
	cJSON_Delete(it->id);
	cJSON_Delete(it->trial);
	effect_plan_free(it->plan);
	free(it->cmd);
	free(it->cwd);
	free(it->tool);
	free(it->data);
	free(it);
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
	else {
		g->untracked_n++;
		if (seq > g->untracked_max)
			g->untracked_max = seq;
	}
	g->nout++;
}

static size_t ledger_count(struct gate_state *g)
{
	return strmap_count(&g->ledger) + g->untracked_n;
}

static void update_turn_seq(struct session *s, struct gate_state *g)
{
	/* The most recent outstanding call is the one a denial is attributed to. */
	/* O(outstanding calls): the ledger holds only those (deleted slots are reclaimed). */
	int64_t best = g->untracked_max;
	for (size_t i = 0; i < g->ledger.cap; i++)
		if (strmap_live(&g->ledger, i) && g->out[g->ledger.slots[i].val].seq > best)
			best = g->out[g->ledger.slots[i].val].seq;
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
		session_forward_c2s(s, it->data, it->len); /* takes the bytes */
		it->data = NULL;
		item_free(it); /* an approved held call keeps its id, tool and trial until it goes */
	}
	if (!g->head && s->shutdown_pending)
		session_shutdown_server_input(s);
	if (g->head && g->head->state == IT_CAPTURE && !g->working && !g->warming) {
		if (s->gate->capture) {
			start_capture(s, g);
		} else {
			/* No pre-state capture configured (an effect gate without a scope). */
			struct item *it = g->head;
			if (s->tw && it->rec)
				trace_writer_set_handle(s->tw, it->rec, NULL);
			it->rec = NULL;
			it->state = IT_READY;
			if (g->pending == it)
				g->pending = NULL;
			flush(s);
		}
	}
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
		item_free(it);
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
	if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(h, "workspace_shared")) && !g->shared_said) {
		/* Another belay records this workspace too: say so once (the observers tell the user). */
		g->shared_said = 1;
		cJSON *f = cJSON_CreateObject();
		cJSON_AddStringToObject(f, "what", "another belay is recording this workspace");
		cJSON_AddNumberToObject(f, "since_request_seq", (double)it->seq);
		session_record(s, "workspace_shared", f);
	}
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

/*==== the effect gate ====*/

/* A tool error result for request `id`: `text` as its one content item, `gate` (taken, may
 * be NULL) as its _meta["belay/gate"]; sent through belay's one path for its own replies. */
static void reply_tool_error(struct session *s, const cJSON *id, const char *text, cJSON *gate)
{
	cJSON *m = cJSON_CreateObject();
	cJSON_AddStringToObject(m, "jsonrpc", "2.0");
	cJSON_AddItemToObject(m, "id", cJSON_Duplicate(id, 1));
	cJSON *r = cJSON_AddObjectToObject(m, "result");
	cJSON *content = cJSON_AddArrayToObject(r, "content");
	cJSON *c = cJSON_CreateObject();
	cJSON_AddStringToObject(c, "type", "text");
	cJSON_AddStringToObject(c, "text", text);
	cJSON_AddItemToArray(content, c);
	cJSON_AddBoolToObject(r, "isError", 1);
	if (gate)
		cJSON_AddItemToObject(cJSON_AddObjectToObject(r, "_meta"), "belay/gate", gate);
	char *bytes = jx_print(m);
	session_reply_client(s, SESSION_REPLY_GATE_REFUSED, bytes, strlen(bytes));
	cJSON_free(bytes);
	cJSON_Delete(m);
}

/* The refusal a client gets instead of the call's result: a tool error that says what was
 * refused, why, and how to approve it once. */
static void refuse_to_client(struct session *s, const cJSON *id, const char *tool, const struct effect_plan *plan,
			     const char *approval_id, const char *by, const cJSON *trial)
{
	struct buf text = {0};
	buf_printf(&text, "belay refused the call to %s", tool ? tool : "this tool");
	if (by)
		buf_printf(&text, " (%s)", by);
	buf_puts(&text, ".");
	for (size_t i = 0; plan && i < effect_plan_reason_count(plan); i++)
		buf_printf(&text, "\n- %s", effect_plan_reason(plan, i));
	const char *brief = trial ? jx_str(trial, "brief") : NULL, *terr = trial ? jx_str(trial, "error") : NULL;
	const char *tid = trial ? jx_str(trial, "id") : NULL;
	if (brief)
		buf_printf(&text, "\n\n%s", brief);
	else if (terr)
		buf_printf(&text, "\n\nbelay could not try the command in a mirror of the workspace first: %s", terr);
	if (approval_id) {
		buf_printf(&text, "\nTo allow this exact call once, a person outside the sandbox runs:\n  belay approve %s\n"
			   "and the call is sent again unchanged.", approval_id);
		if (tid)
			buf_printf(&text, "\nTo apply the effect the trial had instead (conflict-checked; `belay recover` "
				   "undoes it), a person runs:\n  belay try apply %s", tid);
	} else if (!by) {
		buf_puts(&text, "\nThis call is never allowed (it writes belay's own control files).");
	}
	cJSON *bm = cJSON_CreateObject();
	cJSON_AddStringToObject(bm, "decision", plan ? gate_decision_name(effect_plan_decision(plan)) : "ask");
	if (approval_id)
		cJSON_AddStringToObject(bm, "approval_id", approval_id);
	if (tid)
		cJSON_AddStringToObject(bm, "trial_id", tid);
	else if (terr)
		cJSON_AddStringToObject(bm, "trial_error", terr);
	if (plan)
		cJSON_AddItemToObject(bm, "plan", effect_plan_json(plan));
	reply_tool_error(s, id, buf_cstr(&text), bm);
	buf_free(&text);
}

static void record_decision(struct session *s, int64_t seq, const char *tool, const struct effect_plan *plan,
			    const char *outcome, const char *approval_id, const char *by)
{
	cJSON *f = cJSON_CreateObject();
	cJSON_AddNumberToObject(f, "request_seq", (double)seq);
	if (tool)
		cJSON_AddStringToObject(f, "tool", tool);
	cJSON_AddStringToObject(f, "mode", s->gate->mode == ADMISSION_ENFORCE ? "enforce" : "audit");
	cJSON_AddStringToObject(f, "decision", gate_decision_name(effect_plan_decision(plan)));
	cJSON_AddStringToObject(f, "outcome", outcome);
	if (approval_id)
		cJSON_AddStringToObject(f, "approval_id", approval_id);
	cJSON_AddStringToObject(f, "decided_by", by ? by : "policy");
	/* audit mode: a plan that is only an unknown local effect would be tried in a mirror
	 * (docs/TRY.md); nothing is run for it */
	if (s->gate->mode == ADMISSION_AUDIT && effect_plan_trial_eligible(plan))
		cJSON_AddBoolToObject(f, "would_try", 1);
	cJSON_AddItemToObject(f, "plan", effect_plan_json(plan));
	session_record(s, "gate_decision", f);
}

/*==== contained trials of held calls (docs/TRY.md) ====*/

static void trial_work(uv_work_t *w)
{
	struct session *s = w->data;
	struct gate_state *g = s->gate_state;
	struct item *it = g->trying;
	it->trial = s->gate->trial(s->gate->trial_ctx, it->cmd, it->cwd);
}

/* Unlinks a queued item (found by pointer). */
static void unqueue(struct gate_state *g, struct item *it)
{
	struct item **pp = &g->head, *prev = NULL;
	for (; *pp && *pp != it; prev = *pp, pp = &(*pp)->next)
		;
	if (!*pp)
		return;
	*pp = it->next;
	if (g->tail == &it->next)
		g->tail = pp;
	if (g->last == it)
		g->last = prev;
}

static void next_trial(struct session *s, struct gate_state *g);

/* The held call's arguments as the agent sent them (params.arguments of its frame), added
 * to the plan JSON on_hold gets, so the person deciding sees the request, not only its plan. */
static void held_arguments(cJSON *pj, const char *frame, size_t len)
{
	cJSON *req = frame ? cJSON_ParseWithLength(frame, len) : NULL;
	cJSON *params = req ? cJSON_GetObjectItemCaseSensitive(req, "params") : NULL;
	cJSON *args = params ? cJSON_DetachItemFromObjectCaseSensitive(params, "arguments") : NULL;
	if (args)
		cJSON_AddItemToObject(pj, "arguments", args);
	cJSON_Delete(req);
}

/* Loop thread: the trial is over. Its report is recorded and goes with the refusal (and
 * its approval id), or with the hold; then the next waiting call's trial starts. */
static void trial_done(uv_work_t *w, int status)
{
	struct session *s = w->data;
	struct gate_state *g = s->gate_state;
	struct item *it = g->trying;
	g->trying = NULL;
	if (g->closing) {
		item_free(it); /* the session ended meanwhile; the trial itself is kept on disk */
		session_unref(s);
		return;
	}
	cJSON *res = it->trial;
	if (!res || status != 0) {
		cJSON_Delete(res);
		res = cJSON_CreateObject();
		cJSON_AddStringToObject(res, "error", "TRIAL_NO_SANDBOX: the trial was cancelled before it ran");
	}
	it->trial = res;
	/* the trial's fields (admission.h), with the call it tried */
	cJSON *f = cJSON_Duplicate(res, 1);
	cJSON_AddNumberToObject(f, "request_seq", (double)it->seq);
	if (it->tool)
		cJSON_AddStringToObject(f, "tool", it->tool);
	if (!cJSON_GetObjectItemCaseSensitive(f, "command"))
		cJSON_AddStringToObject(f, "command", it->cmd);
	session_record(s, "trial", f);
	struct admission *tg = s->gate;
	if (tg->on_hold) {
		/* Held for the console with the trial's report: run the call, apply the trial's
		 * effect instead, or refuse (session_admission_resolve). */
		it->state = IT_HELD;
		record_decision(s, it->seq, it->tool, it->plan, "held", NULL, NULL);
		cJSON *pj = effect_plan_json(it->plan);
		held_arguments(pj, it->data, it->len);
		tg->on_hold(tg->hold_ctx, s, it->hold, it->seq, it->tool, pj, res);
		cJSON_Delete(pj);
		next_trial(s, g);
		session_unref(s);
		return;
	}
	unqueue(g, it);
	if (s->tw && it->rec)
		trace_writer_set_handle(s->tw, it->rec, NULL);
	char aid[48];
	int with_id = tg->approvals != NULL;
	if (with_id)
		approvals_request(tg->approvals, it->call_key, it->tool, aid);
	record_decision(s, it->seq, it->tool, it->plan, "refused", with_id ? aid : NULL, NULL);
	if (it->id)
		refuse_to_client(s, it->id, it->tool, it->plan, with_id ? aid : NULL, NULL, res);
	struct rpc_id rid;
	rpc_id_from_json(it->id, &rid);
	retire(s, g, &rid);
	item_free(it);
	next_trial(s, g);
	session_unref(s);
	flush(s);
}

/* Queues a call that waits (held for the console, or tried first) at the queue's tail, with
 * what its refusal needs. Takes *bytes. */
static struct item *queue_waiting(struct gate_state *g, const struct rpc_item *call, enum item_state st, const char *key,
				  struct trace_rec *rec, int64_t seq, char **bytes, size_t n)
{
	struct item *it = xcalloc(1, sizeof *it);
	it->data = *bytes;
	it->len = n;
	it->state = st;
	it->rec = rec;
	it->seq = seq;
	it->hold = ++g->next_hold;
	it->id = cJSON_Duplicate(call->node ? cJSON_GetObjectItemCaseSensitive(call->node, "id") : NULL, 1);
	it->tool = call->tool ? xstrdup(call->tool) : NULL;
	snprintf(it->call_key, sizeof it->call_key, "%s", key);
	*g->tail = it;
	g->tail = &it->next;
	g->last = it;
	*bytes = NULL;
	return it;
}

/* Starts the trial of it (IT_TRYING, not yet tried); one runs at a time per session. */
static void run_trial(struct session *s, struct gate_state *g, struct item *it)
{
	g->trying = it;
	g->trial_work.data = s;
	s->open_handles++; /* the session lives until the trial returns */
	if (uv_queue_work(s->loop, &g->trial_work, trial_work, trial_done) != 0)
		trial_done(&g->trial_work, -1);
}

/* The next call waiting for its trial (queued IT_TRYING, never tried), if no trial runs. */
static void next_trial(struct session *s, struct gate_state *g)
{
	if (g->trying || g->closing)
		return;
	for (struct item *it = g->head; it; it = it->next)
		if (it->state == IT_TRYING && !it->trial) {
			run_trial(s, g, it);
			return;
		}
}

/* Queues the call as IT_TRYING; its trial starts now, or after the one that runs (in
 * arrival order). Takes plan and *bytes. */
static void start_trial(struct session *s, struct gate_state *g, const struct rpc_item *call, struct effect_plan *plan,
			const char *key, struct trace_rec *rec, int64_t seq, char **bytes, size_t n)
{
	const char *cwd = NULL;
	const char *cmd = effect_plan_command(plan, &cwd);
	struct item *it = queue_waiting(g, call, IT_TRYING, key, rec, seq, bytes, n);
	it->cmd = xstrdup(cmd);
	it->cwd = cwd ? xstrdup(cwd) : NULL;
	it->plan = plan;
	next_trial(s, g);
}

static struct effect_plan *classify(struct session *s, struct gate_state *g, const struct rpc_item *call)
{
	struct admission *tg = s->gate;
	const cJSON *ann = g->tools && call->tool ? cJSON_GetObjectItemCaseSensitive(g->tools, call->tool) : NULL;
	/* The same control files `belay gate explain` names (the trace may live outside the
	 * state dir with --trace-dir). */
	const char *ctrl[4];
	int nc = 0;
	if (s->trace_path)
		ctrl[nc++] = s->trace_path;
	if (tg->config_dir)
		ctrl[nc++] = tg->config_dir;
	if (tg->policy_file)
		ctrl[nc++] = tg->policy_file;
	ctrl[nc] = NULL;
	struct gate_ctx ctx = {.root = tg->root ? tg->root : "/", .cwd = NULL, .home = tg->home,
			       .state_dir = tg->state_dir, .control_paths = ctrl};
	const char *from[6] = {ctx.root, ctx.home, ctx.state_dir, ctrl[0], nc > 1 ? ctrl[1] : NULL, nc > 2 ? ctrl[2] : NULL};
	if (!g->env || memcmp(from, g->env_from, sizeof from) != 0) {
		gate_env_free(g->env);
		g->env = gate_env_new(&ctx);
		memcpy(g->env_from, from, sizeof from);
	}
	ctx.env = g->env;
	return gate_plan_tool_call(tg->policy ? tg->policy : gate_policy_default(), call->tool, call->arguments, ann, &ctx);
}

/* Audit mode's decision on a call that goes on whatever it is (recorded by the caller). */
static void audit_decide(struct session *s, struct gate_state *g, const struct rpc_item *call)
{
	struct effect_plan *plan = classify(s, g, call);
	g->decision_plan = plan;
	g->decision_outcome = effect_plan_decision(plan) >= GATE_ASK ? "forwarded (audit)" : "forwarded";
}

/* The effect gate's verdict on one call. Returns 1 when the call goes on (to the capture and
 * the server), 0 when it was refused or is held (its bytes are then owned by the gate). */
static int gate_call(struct session *s, struct gate_state *g, const struct rpc_item *call, const char *data, size_t len,
		     size_t total, int truncated, char **bytes, size_t n)
{
	struct admission *tg = s->gate;
	struct effect_plan *plan = classify(s, g, call);
	enum gate_decision d = effect_plan_decision(plan);
	char key[72], aid[48], by[128];
	/* (audit mode never comes here: audit_decide, after the bytes are written) */
	if (d == GATE_ALLOW || d == GATE_ALLOW_FLAGGED) {
		g->decision_plan = plan; /* recorded after the frame, below */
		g->decision_outcome = "forwarded";
		return 1;
	}
	approvals_call_key(call->tool, call->arguments, key); /* (canonical JSON and SHA-256: only when asked) */
	if (d == GATE_ASK && tg->approvals && approvals_take(tg->approvals, key, aid, by)) {
		g->decision_plan = plan;
		g->decision_outcome = "forwarded (approved once)";
		snprintf(g->decision_by, sizeof g->decision_by, "%s (approval %s)", by, aid);
		return 1;
	}
	int64_t seq;
	if (d == GATE_ASK && tg->trial && effect_plan_trial_eligible(plan) && effect_plan_command(plan, NULL)) {
		/* Tried first in a mirror: the call and everything after it wait for the trial (then
		 * it is refused with the trial's report, or held with it for the console). Trials
		 * run one at a time, in arrival order. */
		struct trace_rec *rec = NULL;
		seq = session_record_frame(s, DIR_C2S, data, len, total, truncated, NULL, &rec);
		record_decision(s, seq, call->tool, plan, "trying", NULL, NULL);
		ledger_add(g, rpc_id_trackable(&call->id) ? call->id.key : NULL, seq, declared_read_only(g, call->tool));
		start_trial(s, g, call, plan, key, rec, seq, bytes, n);
		return 0;
	}
	if (d == GATE_ASK && tg->on_hold) {
		/* Held for the console: the call and everything after it wait for a key. */
		struct trace_rec *rec = NULL;
		seq = session_record_frame(s, DIR_C2S, data, len, total, truncated, NULL, &rec);
		record_decision(s, seq, call->tool, plan, "held", NULL, NULL);
		struct item *it = queue_waiting(g, call, IT_HELD, key, rec, seq, bytes, n);
		ledger_add(g, rpc_id_trackable(&call->id) ? call->id.key : NULL, seq, declared_read_only(g, call->tool));
		cJSON *pj = effect_plan_json(plan);
		if (call->arguments)
			cJSON_AddItemToObject(pj, "arguments", cJSON_Duplicate(call->arguments, 1));
		tg->on_hold(tg->hold_ctx, s, it->hold, seq, call->tool, pj, NULL);
		cJSON_Delete(pj);
		effect_plan_free(plan);
		return 0;
	}
	/* Refused: the server never sees it; the client hears why and how to approve. */
	seq = session_record_frame(s, DIR_C2S, data, len, total, truncated, NULL, NULL);
	if (d == GATE_ASK && tg->approvals)
		approvals_request(tg->approvals, key, call->tool, aid);
	int with_id = d == GATE_ASK && tg->approvals;
	record_decision(s, seq, call->tool, plan, "refused", with_id ? aid : NULL, NULL);
	const cJSON *idv = call->node ? cJSON_GetObjectItemCaseSensitive(call->node, "id") : NULL;
	if (idv)
		refuse_to_client(s, idv, call->tool, plan, with_id ? aid : NULL, NULL, NULL);
	effect_plan_free(plan);
	free(*bytes);
	*bytes = NULL;
	return 0;
}

/* A client frame the gate has nothing to do with: no tools/call or tools/list request and
 * no cancellation, read with rpc_peek (no tree). The gate then skips the parse: a full
 * cJSON parse of every (64 KiB) frame on the forwarding thread cost more than forwarding it
 * (docs/PERFORMANCE.md, "Where the time goes"). Anything rpc_peek is unsure of is parsed. */
static int gate_ignores(const char *data, size_t len, int truncated)
{
	struct rpc_peek p;
	if (truncated || rpc_peek(data, len, &p) != RPC_PEEK_OK)
		return 0;
	if (p.kind == RPC_REQUEST)
		return strcmp(p.method, "tools/call") != 0 && strcmp(p.method, "tools/list") != 0;
	if (p.kind == RPC_NOTIFICATION)
		return strcmp(p.method, "notifications/cancelled") != 0;
	return 1;
}

/* Queues a line's bytes for the server - or, passing through, leaves them in the chunk that
 * is written whole after framing (the frame's seq is then the one flush would update). */
static void queue_line(struct session *s, struct gate_state *g, char *bytes, size_t n, int64_t seq)
{
	if (!g->passthrough) {
		enqueue(g, bytes, n, IT_READY, NULL, seq);
		return;
	}
	if (seq >= 0)
		update_turn_seq(s, g);
}

/* Records the decision on the call whose frame was recorded last (g->last_call_seq). */
static void record_pending_decision(struct session *s, struct gate_state *g, const struct rpc_item *call)
{
	if (!g->decision_plan)
		return;
	record_decision(s, g->last_call_seq, call ? call->tool : NULL, g->decision_plan, g->decision_outcome, NULL,
			g->decision_by[0] ? g->decision_by : NULL);
	effect_plan_free(g->decision_plan);
	g->decision_plan = NULL;
	g->decision_by[0] = '\0';
}

static void on_client_frame(void *ctx, const char *data, size_t len, size_t total, int truncated, size_t end)
{
	struct session *s = ctx;
	struct gate_state *g = gs(s);
	int pass = g->passthrough;
	/* The line's bytes: what was held plus this chunk up to the newline (passing through:
	 * none, the chunk goes to the server as it is). */
	struct buf line = {0};
	if (!pass) {
		line = g->pend;
		memset(&g->pend, 0, sizeof g->pend);
		buf_append(&line, g->chunk + g->fwd_start, end - g->fwd_start);
		g->fwd_start = end;
	}

	struct rpc_msg m = {0};
	if (!gate_ignores(data, len, truncated))
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
	char *bytes = pass ? NULL : buf_take(&line);
	/* Audit mode: the decision changes nothing that is forwarded, so the call is classified
	 * after its bytes were handed to the server (below, after flush; passing through, the
	 * whole chunk was written before it was framed); enforce mode decides first (fail
	 * closed: nothing of a refused call may reach the server). */
	int classify_after = calls == 1 && s->gate->mode == ADMISSION_AUDIT;
	if (calls == 1 && s->gate->mode != ADMISSION_OFF && !classify_after &&
	    !gate_call(s, g, call, data, len, total, truncated, &bytes, n)) {
		rpc_msg_free(&m);
		return;
	}
	if (calls == 0) {
		session_record_frame(s, DIR_C2S, data, len, total, truncated, NULL, NULL);
		queue_line(s, g, bytes, n, -1);
	} else if (calls == 1 && ledger_count(g) > 0 && all_outstanding_read_only(g) && g->pending) {
		/* Overlapping read-only calls whose pre-state is still being captured: share it. */
		struct sharer *sh = xcalloc(1, sizeof *sh);
		sh->deps = cJSON_CreateArray();
		for (size_t i = 0; i < g->ledger.cap; i++)
			if (strmap_live(&g->ledger, i))
				cJSON_AddItemToArray(sh->deps, cJSON_CreateNumber((double)g->out[g->ledger.slots[i].val].seq));
		int64_t seq = session_record_frame(s, DIR_C2S, data, len, total, truncated, NULL, &sh->rec);
		g->last_call_seq = seq;
		sh->next = g->pending->sharers;
		g->pending->sharers = sh;
		ledger_add(g, rpc_id_trackable(&call->id) ? call->id.key : NULL, seq, declared_read_only(g, call->tool));
		queue_line(s, g, bytes, n, seq);
	} else if (calls > 1 || ledger_count(g) > 0) {
		/* Overlapping: no clean capture possible now. */
		cJSON *h = calls == 1 && all_outstanding_read_only(g) && g->last_handle ? shared_handle(g)
										       : concurrent_handle(g, calls > 1 ? calls : 0);
		int64_t seq = session_record_frame(s, DIR_C2S, data, len, total, truncated, h, NULL);
		g->last_call_seq = seq;
		for (int i = 0; i < m.n; i++) {
			const struct rpc_item *it = &m.items[i];
			if (it->kind == RPC_REQUEST && !strcmp(it->method, "tools/call"))
				ledger_add(g, rpc_id_trackable(&it->id) ? it->id.key : NULL, seq,
					   declared_read_only(g, it->tool));
		}
		queue_line(s, g, bytes, n, seq);
	} else if (pass) {
		/* No capture to wait for (passing through needs none): its pre-state is absent, as
		 * flush would set it. */
		int64_t seq = session_record_frame(s, DIR_C2S, data, len, total, truncated, NULL, NULL);
		g->last_call_seq = seq;
		ledger_add(g, rpc_id_trackable(&call->id) ? call->id.key : NULL, seq, declared_read_only(g, call->tool));
		queue_line(s, g, bytes, n, seq);
	} else {
		struct trace_rec *rec = NULL;
		int64_t seq = session_record_frame(s, DIR_C2S, data, len, total, truncated, NULL, &rec);
		g->last_call_seq = seq;
		ledger_add(g, rpc_id_trackable(&call->id) ? call->id.key : NULL, seq, declared_read_only(g, call->tool));
		enqueue(g, bytes, n, IT_CAPTURE, rec, seq);
	}
	if (classify_after) {
		/* The frame is recorded (its seq is taken) and queued: write it (unless it waits
		 * for a capture or for calls queued before it), then classify. The decision is
		 * recorded right after the frame, as in enforce mode: nothing is recorded between. */
		if (!pass)
			flush(s);
		audit_decide(s, g, call);
	}
	record_pending_decision(s, g, call);
	rpc_msg_free(&m);
}

/* Whether a chunk can go to the server whole, as read, before its frames are examined: the
 * gate can hold nothing back (audit or off, no pre-state to capture), nothing waits in its
 * queue and no partial line is held. */
static int can_pass_through(struct session *s, struct gate_state *g)
{
	return s->gate->mode != ADMISSION_ENFORCE && !s->gate->capture && !g->head && !g->pend.len;
}

int session_admission_can_pass(struct session *s)
{
	return !s->gate || can_pass_through(s, gs(s));
}

void session_admission_c2s_chunk(struct session *s, char *data, size_t n)
{
	struct gate_state *g = gs(s);
	if (can_pass_through(s, g)) {
		/* No copies of the lines: the chunk is written as it came, then its frames are
		 * recorded (and calls classified) from it - off the round trip's path. */
		int rc = session_forward_c2s_early(s, data, n);
		g->passthrough = 1;
		framer_feed(&s->fr[DIR_C2S], data, n, on_client_frame, s);
		g->passthrough = 0;
		session_forward_c2s_done(s, data, n, rc); /* takes data */
		if (s->shutdown_pending)
			session_shutdown_server_input(s);
		return;
	}
	g->chunk = data;
	g->fwd_start = 0;
	framer_feed(&s->fr[DIR_C2S], data, n, on_client_frame, s);
	buf_append(&g->pend, data + g->fwd_start, n - g->fwd_start);
	g->chunk = NULL;
	free(data);
	flush(s);
}

void session_admission_c2s_eof(struct session *s)
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

void session_admission_s2c_frame(struct session *s, const char *data, size_t len, int truncated)
{
	if (!s->gate)
		return;
	struct gate_state *g = gs(s);
	struct rpc_msg m;
	if (truncated) {
		/* Over the cap: its envelope, read from all of it, still names the call it answers
		 * (else that call would stay outstanding and overlap every later one). */
		rpc_msg_from_envelope(framer_envelope(&s->fr[DIR_S2C]), &m);
	} else {
		/* Only responses matter here; skip the parse for frames that cannot be one. */
		if (!memmem(data, len, "\"result\"", 8) && !memmem(data, len, "\"error\"", 7))
			return;
		/* A response with no "method" anywhere whose id is not a tools/list's: only its id
		 * matters, and rpc_peek reads it without parsing the (often large) result. */
		struct rpc_peek p;
		if (rpc_peek(data, len, &p) == RPC_PEEK_OK && !memmem(data, len, "\"method\"", 8)) {
			if (p.kind != RPC_RESPONSE || !rpc_id_trackable(&p.id))
				return;
			if (!strmap_get(&g->list_reqs, p.id.key, NULL)) {
				retire(s, g, &p.id);
				return;
			}
		}
		rpc_msg_parse(data, len, 0, &m);
	}
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

/* The answer of a held call whose trial's effect a person applied instead of running it:
 * a tool error (the server never produced a result, so belay cannot hand the agent one) that
 * says so, with the trial's report. */
static void reply_applied(struct session *s, const struct item *it, const char *by)
{
	const char *tid = jx_str(it->trial, "id"), *brief = jx_str(it->trial, "brief");
	struct buf text = {0};
	buf_printf(&text,
		   "belay did not run the call to %s: %s applied to the workspace, instead, the effect its command had "
		   "when belay ran it once in a disposable mirror of the workspace (trial %s). The workspace now holds "
		   "that effect (conflict-checked; a recover point was taken first, and `belay recover` undoes it); "
		   "the command itself did not run again.",
		   it->tool ? it->tool : "this tool", by ? by : "the operator", tid);
	if (brief)
		buf_printf(&text, "\n\nThe trial's report, from before the effect was applied:\n%s", brief);
	cJSON *bm = cJSON_CreateObject();
	cJSON_AddStringToObject(bm, "decision", "ask");
	cJSON_AddStringToObject(bm, "outcome", "applied_instead");
	cJSON_AddStringToObject(bm, "trial_id", tid);
	reply_tool_error(s, it->id, buf_cstr(&text), bm);
	buf_free(&text);
}

int session_admission_resolve(struct session *s, uint64_t hold, enum admission_answer answer, const char *by)
{
	struct gate_state *g = s->gate_state;
	if (!g || g->closing)
		return BELAY_ENOTFOUND;
	struct item **pp = &g->head, *it = NULL, *prev = NULL;
	for (; *pp; prev = *pp, pp = &(*pp)->next)
		if ((*pp)->state == IT_HELD && (*pp)->hold == hold) {
			it = *pp;
			break;
		}
	if (!it)
		return BELAY_ENOTFOUND;
	if (answer == ADMISSION_APPLIED && !jx_str(it->trial, "id"))
		return BELAY_EINVAL; /* nothing was tried for it: there is no effect to have applied */
	int approve = answer == ADMISSION_APPROVE;
	cJSON *f = cJSON_CreateObject();
	cJSON_AddNumberToObject(f, "request_seq", (double)it->seq);
	if (it->tool)
		cJSON_AddStringToObject(f, "tool", it->tool);
	cJSON_AddBoolToObject(f, "approved", approve);
	if (answer == ADMISSION_APPLIED)
		cJSON_AddStringToObject(f, "applied_trial", jx_str(it->trial, "id"));
	cJSON_AddStringToObject(f, "by", by ? by : "console");
	session_record(s, "approval", f);
	if (approve) {
		/* Approved once: now it gets its pre-state and goes to the server. */
		it->state = IT_CAPTURE;
		if (!g->pending)
			g->pending = it;
	} else {
		*pp = it->next;
		if (g->tail == &it->next)
			g->tail = pp;
		if (g->last == it)
			g->last = prev;
		if (s->tw && it->rec)
			trace_writer_set_handle(s->tw, it->rec, NULL);
		char why[200];
		snprintf(why, sizeof why, "refused in the console by %s", by ? by : "the operator");
		if (it->id && answer == ADMISSION_APPLIED)
			reply_applied(s, it, by);
		else if (it->id)
			refuse_to_client(s, it->id, it->tool, NULL, NULL, why, it->trial);
		struct rpc_id rid;
		rpc_id_from_json(it->id, &rid);
		retire(s, g, &rid);
		item_free(it);
	}
	flush(s);
	return 0;
}

int session_admission_has_queued(struct session *s)
{
	return s->gate_state && ((struct gate_state *)s->gate_state)->head != NULL;
}

int session_admission_blocks_reading(struct session *s)
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

void session_admission_started(struct session *s)
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

cJSON *session_admission_final_state(struct session *s)
{
	if (!s->gate || !s->gate->capture)
		return NULL;
	struct gate_state *g = gs(s);
	if (g->working || g->warming) {
		/* The store's snapshotter is busy on a worker thread: do not race it. */
		cJSON *h = cJSON_CreateObject();
		cJSON_AddStringToObject(h, "status", "unrestorable");
		cJSON_AddStringToObject(h, "cause", "UNRESTORABLE_SNAPSHOT_FAILED");
		cJSON_AddStringToObject(h, "detail", "a capture was still running when the server exited");
		cJSON_AddStringToObject(h, "source", "turn-gate");
		return h;
	}
	return s->gate->capture(s->gate->capture_ctx);
}

void session_admission_finish(struct session *s)
{
	if (!s->gate_state)
		return;
	struct gate_state *g = s->gate_state;
	g->closing = 1;
	/* Held bytes are dropped with the dead server; unresolved captures are named by the
	 * trace writer at close. */
	for (struct item *it = g->head; it;) {
		struct item *next = it->next;
		if (it != g->working && it != g->trying) {
			for (struct sharer *sh = it->sharers; sh;) {
				struct sharer *nx = sh->next;
				cJSON_Delete(sh->deps);
				free(sh);
				sh = nx;
			}
			item_free(it);
		}
		it = next;
	}
	g->head = NULL;
	g->tail = &g->head;
	g->last = NULL;
	g->pending = g->working;
}

void session_admission_free(struct session *s)
{
	struct gate_state *g = s->gate_state;
	if (g) {
		buf_free(&g->pend);
		strmap_free(&g->ledger);
		strmap_free(&g->list_reqs);
		free(g->out);
		cJSON_Delete(g->tools);
		cJSON_Delete(g->last_handle);
		gate_env_free(g->env);
		free(g);
		s->gate_state = NULL;
	}
	admission_free(s->gate);
	s->gate = NULL;
}
