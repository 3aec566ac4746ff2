/* runidx.c - builds the run view (runs, frames, turns, denials) from trace lines. See
 * runidx.h. Turns are paired with the same model as `belay trace show` and `belay verify`,
 * so turn N here is turn N there.
 *
 * Must not: print; hold a fact the trace does not. Threads: the caller's, one at a time. */
#include "index/runidx.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf.h"
#include "common/hash.h"
#include "common/jsonx.h"
#include "common/timeutil.h"
#include "common/xalloc.h"
#include "mcp/model.h"
#include "mcp/rpc_msg.h"
#include "trace/trace_reader.h"
#include "store/store.h"

#define ARGS_MAX 200 /* bytes of an arguments summary */

struct open_turn {
	int turn;
	enum ex_status status;
	int64_t resp_seq;
};

struct runidx {
	struct store *st;
	char *run;
	struct model m;
	struct open_turn *open;
	size_t nopen, capopen;
	/* the run row, written by runidx_flush */
	int64_t indexed_bytes, records, skipped, frames, denials, net, capture_errors;
	int64_t hook_turns; /* turns of a hook run (hook records; not frames) */
	char *started, *ended, *writer, *argv, *cwd, *state_dir, *scope, *network, *exit_signal;
	char *agent, *session; /* a hook run's agent and session */
	char *http_upstream, *http_listener; /* an HTTP run's server URL and belay's listener */
	int64_t pid, exit_status, workspace_writes;
	int has_pid, has_exit_status, has_workspace_writes;
};

char *runidx_run_id(const char *trace_path)
{
	const char *base = strrchr(trace_path, '/');
	base = base ? base + 1 : trace_path;
	size_t n = strlen(base);
	if (n > 6 && strcmp(base + n - 6, ".jsonl") == 0)
		n -= 6;
	return xstrndup(base, n);
}

static void set_str(char **dst, const char *v)
{
	free(*dst);
	*dst = v ? xstrdup(v) : NULL;
}

static void set_json(char **dst, const cJSON *v)
{
	free(*dst);
	*dst = v ? jx_print(v) : NULL;
}

int runidx_begin(struct store *st, const char *run_id, const char *trace_path, struct runidx **out, struct err *e)
{
	*out = NULL;
	sqlite3_stmt *q;
	int rc = store_stmt(st, "DELETE FROM runs WHERE id = ?1", &q, e);
	if (rc)
		return rc;
	store_bind_text(st, q, 1, run_id, e);
	if ((rc = store_step_done(st, q, e, "cannot drop the previous run view")) != 0)
		return rc;
	if ((rc = store_stmt(
		 st, "INSERT INTO runs(id, trace_path, indexed_bytes, records, skipped) VALUES (?1, ?2, 0, 0, 0)", &q,
		 e)) != 0)
		return rc;
	store_bind_text(st, q, 1, run_id, e);
	store_bind_text(st, q, 2, trace_path, e);
	if ((rc = store_step_done(st, q, e, "cannot add the run")) != 0)
		return rc;
	struct runidx *ix = xcalloc(1, sizeof *ix);
	ix->st = st;
	ix->run = xstrdup(run_id);
	model_init_latest_frame(&ix->m); /* each frame is looked at once, as it is added */
	*out = ix;
	return 0;
}

void runidx_free(struct runidx *ix)
{
	if (!ix)
		return;
	model_free(&ix->m);
	free(ix->open);
	char **strs[] = {&ix->run,   &ix->started, &ix->ended,	 &ix->writer,	   &ix->argv,  &ix->cwd,
			 &ix->state_dir, &ix->scope,	   &ix->network, &ix->exit_signal, &ix->agent, &ix->session,
			 &ix->http_upstream, &ix->http_listener};
	for (size_t i = 0; i < sizeof strs / sizeof strs[0]; i++)
		free(*strs[i]);
	free(ix);
}

int runidx_flush(struct runidx *ix, struct err *e)
{
	struct store *st = ix->st;
	sqlite3_stmt *q;
	int rc = store_stmt(
	    st,
	    "UPDATE runs SET indexed_bytes = ?2, records = ?3, skipped = ?4, started = ?5, ended = ?6, "
	    "writer = ?7, server_argv = ?8, server_cwd = ?9, server_pid = ?10, state_dir = ?11, scope = ?12, "
	    "network = ?13, exit_status = ?14, exit_signal = ?15, frames = ?16, turns = ?17, denials = ?18, "
	    "network_attempts = ?19, capture_errors = ?20, agent = ?21, session = ?22, workspace_writes = ?23, "
	    "http_upstream = ?24, http_listener = ?25 WHERE id = ?1",
	    &q, e);
	if (rc)
		return rc;
	store_bind_text(st, q, 1, ix->run, e);
	store_bind_i64(st, q, 2, ix->indexed_bytes, e);
	store_bind_i64(st, q, 3, ix->records, e);
	store_bind_i64(st, q, 4, ix->skipped, e);
	store_bind_text(st, q, 5, ix->started, e);
	store_bind_text(st, q, 6, ix->ended, e);
	store_bind_text(st, q, 7, ix->writer, e);
	store_bind_text(st, q, 8, ix->argv, e);
	store_bind_text(st, q, 9, ix->cwd, e);
	if (ix->has_pid)
		store_bind_i64(st, q, 10, ix->pid, e);
	store_bind_text(st, q, 11, ix->state_dir, e);
	store_bind_text(st, q, 12, ix->scope, e);
	store_bind_text(st, q, 13, ix->network, e);
	if (ix->has_exit_status)
		store_bind_i64(st, q, 14, ix->exit_status, e);
	store_bind_text(st, q, 15, ix->exit_signal, e);
	store_bind_i64(st, q, 16, ix->frames, e);
	store_bind_i64(st, q, 17, (int64_t)ix->m.nturns + ix->hook_turns, e);
	store_bind_i64(st, q, 18, ix->denials, e);
	store_bind_i64(st, q, 19, ix->net, e);
	store_bind_i64(st, q, 20, ix->capture_errors, e);
	store_bind_text(st, q, 21, ix->agent, e);
	store_bind_text(st, q, 22, ix->session, e);
	if (ix->has_workspace_writes)
		store_bind_i64(st, q, 23, ix->workspace_writes, e);
	store_bind_text(st, q, 24, ix->http_upstream, e);
	store_bind_text(st, q, 25, ix->http_listener, e);
	return store_step_done(st, q, e, "cannot update the run");
}

/*==== records ====*/

static void on_server(struct runidx *ix, const cJSON *o)
{
	const char *phase = jx_str(o, "phase");
	if (!phase)
		return;
	long long v;
	if (!strcmp(phase, "start")) {
		set_json(&ix->argv, cJSON_GetObjectItemCaseSensitive(o, "argv"));
		set_json(&ix->cwd, cJSON_GetObjectItemCaseSensitive(o, "cwd"));
		set_str(&ix->state_dir, jx_str(o, "state_dir"));
		if (jx_int(o, "pid", 0, INT_MAX, &v)) {
			ix->pid = v;
			ix->has_pid = 1;
		}
		const cJSON *sb = cJSON_GetObjectItemCaseSensitive(o, "sandbox");
		if (cJSON_IsObject(sb)) {
			if (!ix->scope)
				set_str(&ix->scope, jx_str(sb, "scope"));
			if (!ix->network)
				set_str(&ix->network, jx_str(sb, "network"));
		}
	} else if (!strcmp(phase, "exit")) {
		if (jx_int(o, "exit_status", INT_MIN, INT_MAX, &v)) {
			ix->exit_status = v;
			ix->has_exit_status = 1;
		}
		set_str(&ix->exit_signal, jx_str(o, "signal_name"));
		long long w;
		if (jx_int(o, "workspace_writes", 0, LLONG_MAX, &w)) {
			ix->workspace_writes = w;
			ix->has_workspace_writes = 1;
		}
	}
}

static int on_denial(struct runidx *ix, uint64_t off, int64_t seq, const char *kind, const cJSON *o, struct err *e)
{
	struct store *st = ix->st;
	sqlite3_stmt *q;
	int rc =
	    store_stmt(st,
		       "INSERT INTO denials(run, seq, off, kind, op, target, family, errno, outcome, comm, turn_seq) "
		       "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)",
		       &q, e);
	if (rc)
		return rc;
	const char *target = jx_str(o, "path");
	if (!target)
		target = jx_str(o, "address");
	const char *to = jx_str(o, "to");
	char *both = target && to ? xasprintf("%s -> %s", target, to) : NULL;
	store_bind_text(st, q, 1, ix->run, e);
	store_bind_i64(st, q, 2, seq, e);
	store_bind_i64(st, q, 3, (int64_t)off, e);
	store_bind_text(st, q, 4, kind, e);
	store_bind_text(st, q, 5, jx_str(o, "op"), e);
	store_bind_text(st, q, 6, both ? both : target ? target : to, e);
	store_bind_text(st, q, 7, jx_str(o, "family"), e);
	store_bind_text(st, q, 8, jx_str(o, "errno"), e);
	store_bind_text(st, q, 9, jx_str(o, "outcome"), e);
	store_bind_text(st, q, 10, jx_str(o, "comm"), e);
	long long ts;
	if (jx_int(o, "turn_seq", 0, LLONG_MAX, &ts))
		store_bind_i64(st, q, 11, ts, e);
	free(both);
	return store_step_done(st, q, e, "cannot index a denial");
}

/* A gate_decision or approval record: onto the turn whose request it names. */
static int on_gate(struct runidx *ix, const char *kind, const cJSON *o, struct err *e)
{
	long long rs;
	if (!jx_int(o, "request_seq", 0, LLONG_MAX, &rs))
		return 0; /* names no request: nothing to attach it to */
	struct store *st = ix->st;
	sqlite3_stmt *q;
	int rc;
	if (!strcmp(kind, "gate_decision")) {
		rc = store_stmt(st,
				"UPDATE turns SET decision = ?3, outcome = ?4, decided_by = ?5, plan = ?6 "
				"WHERE run = ?1 AND req_seq = ?2",
				&q, e);
		if (rc)
			return rc;
		const cJSON *pj = cJSON_GetObjectItemCaseSensitive(o, "plan");
		char *plan = pj ? jx_print(pj) : NULL;
		store_bind_text(st, q, 3, jx_str(o, "decision"), e);
		store_bind_text(st, q, 4, jx_str(o, "outcome"), e);
		store_bind_text(st, q, 5, jx_str(o, "decided_by"), e);
		store_bind_text(st, q, 6, plan, e);
		free(plan);
	} else {
		rc = store_stmt(st, "UPDATE turns SET approval = ?3 WHERE run = ?1 AND req_seq = ?2", &q, e);
		if (rc)
			return rc;
		/* "applied": a person applied the effect of the call's trial instead (docs/TRY.md) */
		store_bind_text(st, q, 3,
				cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(o, "approved")) ? "approved"
				: jx_str(o, "applied_trial")					  ? "applied"
												  : "refused",
				e);
	}
	store_bind_text(st, q, 1, ix->run, e);
	store_bind_i64(st, q, 2, rs, e);
	return store_step_done(st, q, e, "cannot index a gate decision");
}

/*==== frames and turns ====*/

/* Cuts the heap string s to at most max bytes without splitting a UTF-8 sequence and
 * appends "..." when it cut. Returns s (possibly moved). */
static char *cut_utf8(char *s, size_t max)
{
	size_t n = strlen(s);
	if (n <= max)
		return s;
	size_t cut = max;
	while (cut > 0 && ((unsigned char)s[cut] & 0xC0) == 0x80)
		cut--;
	s = xrealloc(s, cut + 4);
	memcpy(s + cut, "...", 4);
	return s;
}

/* Compact JSON of v cut at ARGS_MAX bytes. */
static char *summary(const cJSON *v)
{
	if (!v)
		return NULL;
	char *s = jx_print(v);
	return cut_utf8(s, ARGS_MAX);
}

static const char *gate_of(const cJSON *h, const char **handle, const char **cause)
{
	*handle = *cause = NULL;
	const char *status = h ? jx_str(h, "status") : NULL;
	if (!status || !strcmp(status, "absent"))
		return "absent";
	if (!strcmp(status, "present")) {
		*handle = jx_str(h, "handle");
		return cJSON_GetObjectItemCaseSensitive(h, "shared_from_seq") ? "shared" : "captured";
	}
	if (!strcmp(status, "unrestorable")) {
		*cause = jx_str(h, "cause");
		return *cause && !strcmp(*cause, "UNRESTORABLE_CONCURRENT_TURN") ? "concurrent" : "unrestorable";
	}
	return "unrestorable";
}

static int insert_turn(struct runidx *ix, const struct exchange *x, const struct rpc_msg *msg, const cJSON *handle,
		       struct err *e)
{
	struct store *st = ix->st;
	sqlite3_stmt *q;
	int rc = store_stmt(st,
			    "INSERT INTO turns(run, turn, req_seq, method, tool, args, t_req, status, gate, handle, "
			    "handle_cause) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)",
			    &q, e);
	if (rc)
		return rc;
	const char *h, *cause;
	const char *gate = gate_of(handle, &h, &cause);
	char *args = x->req_item < msg->n ? summary(msg->items[x->req_item].arguments) : NULL;
	store_bind_text(st, q, 1, ix->run, e);
	store_bind_i64(st, q, 2, x->turn, e);
	store_bind_i64(st, q, 3, x->req_seq, e);
	store_bind_text(st, q, 4, x->method, e);
	store_bind_text(st, q, 5, x->tool, e);
	store_bind_text(st, q, 6, args, e);
	store_bind_text(st, q, 7, x->t_req, e);
	store_bind_text(st, q, 8, x->status == EX_UNTRACKED ? "untracked" : ex_status_name(x->status), e);
	store_bind_text(st, q, 9, gate, e);
	store_bind_text(st, q, 10, h, e);
	store_bind_text(st, q, 11, cause, e);
	free(args);
	return store_step_done(st, q, e, "cannot index a turn");
}

/* "rpc <code>: <message>" or "tool error: <first text>" from the reply item, or NULL. */
static char *error_of(const struct exchange *x, const struct rpc_item *it)
{
	if (x->protocol_error) {
		const char *m = it ? jx_str(it->error, "message") : NULL;
		char *s = xasprintf("rpc %d: %s", x->error_code, m ? m : "");
		return cut_utf8(s, 160);
	}
	if (x->tool_error) {
		const cJSON *content = it ? cJSON_GetObjectItemCaseSensitive(it->result, "content") : NULL;
		const cJSON *first = cJSON_IsArray(content) ? content->child : NULL;
		const char *text = first ? jx_str(first, "text") : NULL;
		char *s = xasprintf("tool error: %s", text ? text : "");
		for (char *p = s; *p; p++)
			if (*p == '\n' || *p == '\r' || *p == '\t')
				*p = ' ';
		return cut_utf8(s, 160);
	}
	return NULL;
}

/* belay's own answer in the server's place: "belay (server_exited): <its message>". */
static char *belay_error_of(const struct exchange *x, const struct rpc_item *it)
{
	const char *m = it ? jx_str(it->error, "message") : NULL;
	if (!m && it && cJSON_IsObject(it->result)) {
		const cJSON *content = cJSON_GetObjectItemCaseSensitive(it->result, "content");
		m = cJSON_IsArray(content) && content->child ? jx_str(content->child, "text") : NULL;
	}
	char *s = xasprintf("belay (%s): %s", x->belay_reason, m ? m : "");
	for (char *p = s; *p; p++)
		if (*p == '\n' || *p == '\r' || *p == '\t')
			*p = ' ';
	return cut_utf8(s, 160);
}

static int update_turn(struct runidx *ix, const struct exchange *x, const struct rpc_item *reply, struct err *e)
{
	struct store *st = ix->st;
	sqlite3_stmt *q;
	int rc = store_stmt(st,
			    "UPDATE turns SET resp_seq = ?3, t_resp = ?4, latency_us = ?5, status = ?6, error = ?7 "
			    "WHERE run = ?1 AND turn = ?2",
			    &q, e);
	if (rc)
		return rc;
	char *err = x->status == EX_ANSWERED_BY_BELAY ? belay_error_of(x, reply)
		    : x->resp_seq >= 0		      ? error_of(x, reply)
						      : NULL;
	store_bind_text(st, q, 1, ix->run, e);
	store_bind_i64(st, q, 2, x->turn, e);
	if (x->status == EX_ANSWERED_BY_BELAY) {
		/* The reply the client got, which belay made: the status says it is not the server's. */
		store_bind_i64(st, q, 3, x->belay_seq, e);
		store_bind_text(st, q, 4, x->t_belay, e);
		int64_t ns = time_iso_diff_ns(x->t_req, x->t_belay);
		if (ns != INT64_MIN)
			store_bind_i64(st, q, 5, ns / 1000, e);
	} else if (x->resp_seq >= 0) {
		store_bind_i64(st, q, 3, x->resp_seq, e);
		store_bind_text(st, q, 4, x->t_resp, e);
		int64_t lat = exchange_latency_us(x);
		if (lat >= 0)
			store_bind_i64(st, q, 5, lat, e);
	}
	store_bind_text(st, q, 6, ex_status_name(x->status), e);
	store_bind_text(st, q, 7, err, e);
	free(err);
	return store_step_done(st, q, e, "cannot update a turn");
}

static int on_frame(struct runidx *ix, uint64_t off, size_t line_len, int64_t seq, const cJSON *o, struct err *e)
{
	const char *dir = jx_str(o, "dir"), *raw = jx_str(o, "raw");
	if (!dir || (strcmp(dir, "c2s") && strcmp(dir, "s2c")) || !raw)
		return err_set(e, BELAY_ECORRUPT, "frame seq %lld has no valid dir or raw", (long long)seq);
	struct buf b = {0};
	if (base64_decode(raw, strlen(raw), &b) != 0) {
		buf_free(&b);
		return err_set(e, BELAY_ECORRUPT, "frame seq %lld: raw is not base64", (long long)seq);
	}
	int truncated = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(o, "truncated"));
	long long total = 0;
	if (!jx_int(o, "len", 0, (long long)1 << 60, &total))
		total = (long long)b.len;
	int d = !strcmp(dir, "s2c");
	struct rpc_msg msg;
	if (truncated) {
		/* Over the cap: paired by the envelope read from the whole frame. */
		const cJSON *env = cJSON_GetObjectItemCaseSensitive(o, "envelope");
		rpc_msg_from_envelope(cJSON_IsObject(env) || cJSON_IsArray(env) ? cJSON_Duplicate(env, 1) : NULL, &msg);
	} else {
		rpc_msg_parse(b.p ? b.p : "", b.len, 0, &msg);
	}
	const char *t_in = jx_str(o, "t_in");
	size_t before = ix->m.nturns;
	const char *origin = jx_str(o, "origin");
	size_t fi = origin && !strcmp(origin, "belay") && d
			    ? model_add_belay(&ix->m, seq, t_in, &msg, b.len,
					      jx_str(o, "belay_reason") ? jx_str(o, "belay_reason") : "unknown", (size_t)seq)
			    : model_add_parsed(&ix->m, seq, d, t_in, &msg, b.len, (size_t)total, truncated, (size_t)seq);
	buf_free(&b);
	ix->frames++;

	struct store *st = ix->st;
	sqlite3_stmt *q;
	int rc = store_stmt(st,
			    "INSERT INTO frames(run, seq, off, len, dir, bytes, truncated, rpc, batch, method) "
			    "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
			    &q, e);
	if (rc)
		goto out;
	const struct model_frame *f = &ix->m.frames[fi];
	store_bind_text(st, q, 1, ix->run, e);
	store_bind_i64(st, q, 2, seq, e);
	store_bind_i64(st, q, 3, (int64_t)off, e);
	store_bind_i64(st, q, 4, (int64_t)line_len, e);
	store_bind_text(st, q, 5, dir, e);
	store_bind_i64(st, q, 6, total, e);
	store_bind_i64(st, q, 7, truncated, e);
	store_bind_text(st, q, 8, rpc_kind_name((enum rpc_kind)f->kind), e);
	store_bind_i64(st, q, 9, f->batch, e);
	store_bind_text(st, q, 10, f->method, e);
	if ((rc = store_step_done(st, q, e, "cannot index a frame")) != 0)
		goto out;

	/* New turns start with this frame. */
	const cJSON *handle = cJSON_GetObjectItemCaseSensitive(o, "state_handle");
	for (size_t k = before; k < ix->m.nturns && rc == 0; k++) {
		const struct exchange *x = &ix->m.ex[ix->m.turns[k]];
		if ((rc = insert_turn(ix, x, &msg, handle, e)) != 0)
			break;
		if (x->status == EX_UNTRACKED)
			continue;
		if (ix->nopen == ix->capopen) {
			ix->capopen = ix->capopen ? ix->capopen * 2 : 16;
			ix->open = xrealloc(ix->open, ix->capopen * sizeof *ix->open);
		}
		ix->open[ix->nopen++] = (struct open_turn){x->turn, x->status, x->resp_seq};
	}
	/* Turns this frame answered or cancelled. */
	for (size_t i = 0; i < ix->nopen && rc == 0;) {
		struct open_turn *ot = &ix->open[i];
		const struct exchange *x = &ix->m.ex[ix->m.turns[ot->turn]];
		if (x->status == ot->status && x->resp_seq == ot->resp_seq) {
			i++;
			continue;
		}
		const struct rpc_item *reply = x->resp_frame == fi && x->resp_item < msg.n ? &msg.items[x->resp_item]
					       : x->belay_frame == fi && x->belay_item < msg.n ? &msg.items[x->belay_item]
											       : NULL;
		if ((rc = update_turn(ix, x, reply, e)) != 0)
			break;
		ot->status = x->status;
		ot->resp_seq = x->resp_seq;
		if (x->resp_seq >= 0 || x->status == EX_ANSWERED_BY_BELAY) /* answered (also after a cancel): final */
			ix->open[i] = ix->open[--ix->nopen];
		else
			i++;
	}
out:
	rpc_msg_free(&msg);
	return rc;
}

/*==== hook runs (docs/HOOKS.md) ====*/

static void on_agent_session(struct runidx *ix, const cJSON *o)
{
	const char *ph = jx_str(o, "phase");
	if (!ph || strcmp(ph, "start"))
		return;
	set_str(&ix->agent, jx_str(o, "agent"));
	set_str(&ix->session, jx_str(o, "session"));
	set_str(&ix->state_dir, jx_str(o, "state_dir"));
	set_str(&ix->scope, jx_str(o, "root"));
	if (jx_str(o, "network"))
		set_str(&ix->network, jx_str(o, "network"));
	cJSON *argv = cJSON_CreateArray();
	cJSON_AddItemToArray(argv, cJSON_CreateString(jx_str(o, "agent") ? jx_str(o, "agent") : "agent"));
	set_json(&ix->argv, argv);
	cJSON_Delete(argv);
	set_json(&ix->cwd, cJSON_GetObjectItemCaseSensitive(o, "root"));
}

/* The tool's arguments in a hook record's payload, summarised. */
static char *hook_args(const cJSON *o)
{
	cJSON *p = trace_hook_payload(o);
	if (!p)
		return NULL;
	const cJSON *in = cJSON_GetObjectItemCaseSensitive(p, "tool_input");
	char *s = NULL;
	if (in)
		s = summary(in);
	else if (cJSON_IsObject(p)) {
		cJSON *flat = cJSON_CreateObject();
		static const char *const keys[] = {"command", "file_path", "tool_name", NULL};
		for (int i = 0; keys[i]; i++)
			if (jx_str(p, keys[i]))
				cJSON_AddStringToObject(flat, keys[i], jx_str(p, keys[i]));
		s = summary(flat);
		cJSON_Delete(flat);
	}
	cJSON_Delete(p);
	return s;
}

/* The frame index row of a hook record: its payload is shown like a frame's bytes. */
static int hook_frame_row(struct runidx *ix, uint64_t off, size_t line_len, int64_t seq, const char *dir,
			  const cJSON *o, struct err *e)
{
	struct store *st = ix->st;
	sqlite3_stmt *q;
	int rc = store_stmt(st,
			    "INSERT INTO frames(run, seq, off, len, dir, bytes, truncated, rpc, batch, method) "
			    "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, 'hook', 0, ?8)",
			    &q, e);
	if (rc)
		return rc;
	long long total = 0;
	jx_int(o, "len", 0, (long long)1 << 60, &total);
	store_bind_text(st, q, 1, ix->run, e);
	store_bind_i64(st, q, 2, seq, e);
	store_bind_i64(st, q, 3, (int64_t)off, e);
	store_bind_i64(st, q, 4, (int64_t)line_len, e);
	store_bind_text(st, q, 5, dir, e);
	store_bind_i64(st, q, 6, total, e);
	store_bind_i64(st, q, 7, cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(o, "truncated")), e);
	store_bind_text(st, q, 8, jx_str(o, "event"), e);
	return store_step_done(st, q, e, "cannot index a hook record");
}

static int hook_insert_turn(struct runidx *ix, int turn, int64_t seq, const cJSON *o, int answered, struct err *e)
{
	struct store *st = ix->st;
	sqlite3_stmt *q;
	int rc = store_stmt(st,
			    "INSERT INTO turns(run, turn, req_seq, method, tool, args, t_req, status, gate, handle, "
			    "handle_cause, resp_seq, t_resp, latency_us, error, post_handle, post_cause) "
			    "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17)",
			    &q, e);
	if (rc)
		return rc;
	const char *h, *cause, *ph = NULL, *pcause = NULL;
	const char *gate = gate_of(cJSON_GetObjectItemCaseSensitive(o, "state_handle"), &h, &cause);
	if (!strcmp(gate, "captured") && cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(o, "state_handle"), "concurrent_with"))
		gate = "concurrent";
	gate_of(cJSON_GetObjectItemCaseSensitive(o, "post_state"), &ph, &pcause);
	char *args = hook_args(o);
	const char *error = jx_str(o, "error");
	char *err = error ? cut_utf8(xasprintf("tool error: %s", error), 160) : NULL;
	store_bind_text(st, q, 1, ix->run, e);
	store_bind_i64(st, q, 2, turn, e);
	store_bind_i64(st, q, 3, seq, e);
	store_bind_text(st, q, 4, jx_str(o, "event") ? jx_str(o, "event") : "hook", e);
	store_bind_text(st, q, 5, jx_str(o, "tool"), e);
	store_bind_text(st, q, 6, args, e);
	store_bind_text(st, q, 7, jx_str(o, "t_in"), e);
	store_bind_text(st, q, 8, answered ? "answered" : "unanswered", e);
	store_bind_text(st, q, 9, gate, e);
	store_bind_text(st, q, 10, h, e);
	store_bind_text(st, q, 11, cause, e);
	if (answered) { /* a call seen once (no pre event): no latency to tell */
		store_bind_i64(st, q, 12, seq, e);
		store_bind_text(st, q, 13, jx_str(o, "t_in"), e);
	}
	store_bind_text(st, q, 15, err, e);
	store_bind_text(st, q, 16, ph, e);
	store_bind_text(st, q, 17, pcause, e);
	free(args);
	free(err);
	return store_step_done(st, q, e, "cannot index a hook turn");
}

static int hook_answer_turn(struct runidx *ix, int turn, int64_t seq, const cJSON *o, struct err *e)
{
	struct store *st = ix->st;
	sqlite3_stmt *q;
	/* the latency is the time between the pre and the post event */
	int rc = store_stmt(st, "SELECT t_req FROM turns WHERE run = ?1 AND turn = ?2", &q, e);
	if (rc)
		return rc;
	store_bind_text(st, q, 1, ix->run, e);
	store_bind_i64(st, q, 2, turn, e);
	char t_req[ISO_TS_LEN] = "";
	if (sqlite3_step(q) == SQLITE_ROW && sqlite3_column_text(q, 0))
		snprintf(t_req, sizeof t_req, "%s", (const char *)sqlite3_column_text(q, 0));
	sqlite3_reset(q);
	int64_t lat = *t_req && jx_str(o, "t_in") ? time_iso_diff_ns(t_req, jx_str(o, "t_in")) : INT64_MIN;
	rc = store_stmt(st,
			"UPDATE turns SET resp_seq = ?3, t_resp = ?4, status = 'answered', error = ?5, "
			"post_handle = ?6, post_cause = ?7, latency_us = ?8 WHERE run = ?1 AND turn = ?2",
			&q, e);
	if (rc)
		return rc;
	if (lat != INT64_MIN && lat >= 0)
		store_bind_i64(st, q, 8, lat / 1000, e);
	const char *ph, *pcause;
	gate_of(cJSON_GetObjectItemCaseSensitive(o, "post_state"), &ph, &pcause);
	const char *error = jx_str(o, "error");
	char *err = error ? cut_utf8(xasprintf("tool error: %s", error), 160) : NULL;
	for (char *p = err; p && *p; p++)
		if (*p == '\n' || *p == '\r' || *p == '\t')
			*p = ' ';
	store_bind_text(st, q, 1, ix->run, e);
	store_bind_i64(st, q, 2, turn, e);
	store_bind_i64(st, q, 3, seq, e);
	store_bind_text(st, q, 4, jx_str(o, "t_in"), e);
	store_bind_text(st, q, 5, err, e);
	store_bind_text(st, q, 6, ph, e);
	store_bind_text(st, q, 7, pcause, e);
	free(err);
	return store_step_done(st, q, e, "cannot index a hook response");
}

static int on_hook(struct runidx *ix, uint64_t off, size_t line_len, int64_t seq, const cJSON *o, struct err *e)
{
	const char *phase = jx_str(o, "phase");
	long long turn = -1;
	jx_int(o, "turn", 0, INT_MAX, &turn);
	if (!phase || turn < 0 || !strcmp(phase, "event"))
		return 0; /* session, prompt and stop events: records of the run, no turn */
	if (!strcmp(phase, "retired")) {
		/* refused in the agent: no post event will come */
		struct store *st = ix->st;
		sqlite3_stmt *q;
		int rc = store_stmt(st,
				    "UPDATE turns SET status = 'cancelled', error = 'refused in the agent (no post event)' "
				    "WHERE run = ?1 AND turn = ?2 AND resp_seq IS NULL",
				    &q, e);
		if (rc)
			return rc;
		store_bind_text(st, q, 1, ix->run, e);
		store_bind_i64(st, q, 2, turn, e);
		return store_step_done(st, q, e, "cannot retire a hook turn");
	}
	int request = !strcmp(phase, "request"), single = !strcmp(phase, "single");
	int rc = hook_frame_row(ix, off, line_len, seq, request || single ? "c2s" : "s2c", o, e);
	if (rc)
		return rc;
	if (request || single) {
		ix->hook_turns++;
		return hook_insert_turn(ix, (int)turn, seq, o, single, e);
	}
	return hook_answer_turn(ix, (int)turn, seq, o, e);
}

int runidx_line(struct runidx *ix, uint64_t off, const char *line, size_t len, struct err *e)
{
	if (len == 0 || line[len - 1] != '\n')
		return err_set(e, BELAY_ECORRUPT, "a trace line must end with a newline");
	ix->indexed_bytes = (int64_t)(off + len);
	if (len == 1)
		return 0;
	cJSON *o = cJSON_ParseWithLength(line, len - 1);
	const cJSON *v = o ? cJSON_GetObjectItemCaseSensitive(o, "v") : NULL;
	const char *kind = o ? jx_str(o, "kind") : NULL;
	if (!cJSON_IsObject(o) || !cJSON_IsNumber(v) || !kind) {
		cJSON_Delete(o);
		return err_set(e, BELAY_ECORRUPT, "the line at byte %llu is not a trace record",
			       (unsigned long long)off);
	}
	ix->records++;
	int rc = 0;
	long long seq = -1;
	jx_int(o, "seq", 0, LLONG_MAX, &seq);
	if ((int)v->valuedouble != 1 || !trace_kind_known(kind)) {
		ix->skipped++;
	} else if (!strcmp(kind, "frame")) {
		rc = on_frame(ix, off, len, seq, o, e);
	} else if (!strcmp(kind, "connection_window")) {
		const char *ph = jx_str(o, "phase");
		if (ph && !strcmp(ph, "open")) {
			set_str(&ix->started, jx_str(o, "t_in"));
			set_str(&ix->writer, jx_str(o, "writer"));
		} else if (ph && !strcmp(ph, "close")) {
			set_str(&ix->ended, jx_str(o, "t_in"));
		}
	} else if (!strcmp(kind, "server")) {
		on_server(ix, o);
	} else if (!strcmp(kind, "sandbox")) {
		if (jx_str(o, "scope"))
			set_str(&ix->scope, jx_str(o, "scope"));
		if (jx_str(o, "network"))
			set_str(&ix->network, jx_str(o, "network"));
	} else if (!strcmp(kind, "denial") || !strcmp(kind, "network_attempt")) {
		if (!strcmp(kind, "denial"))
			ix->denials++;
		else
			ix->net++;
		rc = on_denial(ix, off, seq, kind, o, e);
	} else if (!strcmp(kind, "capture_error")) {
		ix->capture_errors++;
	} else if (!strcmp(kind, "gate_decision") || !strcmp(kind, "approval")) {
		rc = on_gate(ix, kind, o, e);
	} else if (!strcmp(kind, "agent_session")) {
		on_agent_session(ix, o);
	} else if (!strcmp(kind, "hook")) {
		rc = on_hook(ix, off, len, seq, o, e);
	} else if (!strcmp(kind, "http")) {
		const char *ev = jx_str(o, "event");
		if (ev && !strcmp(ev, "run")) { /* the server is a URL (docs/HTTP.md), never a command */
			set_str(&ix->http_upstream, jx_str(o, "upstream"));
			set_str(&ix->http_listener, jx_str(o, "listener"));
		}
	}
	cJSON_Delete(o);
	return rc;
}

/*==== a whole file ====*/

/* Feeds the lines of f (positioned at byte off) to the indexer; with whole_only, stops
 * before a last line without its newline. */
static int feed(struct runidx *ix, FILE *f, const char *abs, uint64_t off, int whole_only, struct err *e)
{
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;
	int rc = 0;
	while ((n = getline(&line, &cap, f)) > 0) {
		if (whole_only && line[n - 1] != '\n')
			break;
		if ((rc = runidx_line(ix, off, line, (size_t)n, e)) != 0) {
			err_wrap(e, "%s", abs);
			break;
		}
		off += (uint64_t)n;
	}
	free(line);
	return rc;
}

int runidx_index_file(struct store *st, const char *trace_path, char **run_id, struct err *e)
{
	if (run_id)
		*run_id = NULL;
	/* The strict read names anything wrong before a row changes. */
	struct trace *t = NULL;
	int rc = trace_read(trace_path, &t, e);
	if (rc == 0)
		rc = trace_validate(t, e);
	trace_free(t);
	if (rc)
		return rc;
	char *abs = realpath(trace_path, NULL);
	if (!abs)
		return err_set(e, BELAY_ENOTFOUND, "cannot resolve %s", trace_path);
	FILE *f = fopen(abs, "re");
	if (!f) {
		rc = err_set(e, BELAY_ENOTFOUND, "cannot open %s", abs);
		free(abs);
		return rc;
	}
	char *id = runidx_run_id(abs);
	struct runidx *ix = NULL;
	if ((rc = store_begin(st, e)) != 0)
		goto out;
	if ((rc = runidx_begin(st, id, abs, &ix, e)) != 0)
		goto fail;
	/* whole lines only: a last line cut mid-line was named by trace_read, the lines before
	 * are the run */
	if ((rc = feed(ix, f, abs, 0, 1, e)) != 0)
		goto fail;
	if ((rc = runidx_flush(ix, e)) != 0)
		goto fail;
	if ((rc = store_commit(st, e)) != 0)
		goto out;
	if (run_id) {
		*run_id = id;
		id = NULL;
	}
	goto out;
fail:
	store_rollback(st);
out:
	runidx_free(ix);
	fclose(f);
	free(abs);
	free(id);
	return rc;
}

/*==== catching up with a growing hook run ====*/

/* Loads the run row's totals into a fresh indexer (a hook run resumed: its records are
 * self-contained, so nothing but these totals carries over between lines). */
static int resume(struct store *st, const char *run_id, struct runidx **out, uint64_t *from, struct err *e)
{
	sqlite3_stmt *q;
	int rc = store_stmt(st,
			    "SELECT indexed_bytes, records, skipped, frames, turns, denials, network_attempts, "
			    "capture_errors, started, ended, writer, server_argv, server_cwd, state_dir, scope, network, "
			    "agent, session FROM runs WHERE id = ?1 AND agent IS NOT NULL",
			    &q, e);
	if (rc)
		return rc;
	store_bind_text(st, q, 1, run_id, e);
	if (sqlite3_step(q) != SQLITE_ROW) {
		sqlite3_reset(q);
		return BELAY_ENOTFOUND;
	}
	struct runidx *ix = xcalloc(1, sizeof *ix);
	ix->st = st;
	ix->run = xstrdup(run_id);
	model_init_latest_frame(&ix->m);
	*from = (uint64_t)sqlite3_column_int64(q, 0);
	ix->indexed_bytes = sqlite3_column_int64(q, 0);
	ix->records = sqlite3_column_int64(q, 1);
	ix->skipped = sqlite3_column_int64(q, 2);
	ix->frames = sqlite3_column_int64(q, 3);
	ix->hook_turns = sqlite3_column_int64(q, 4);
	ix->denials = sqlite3_column_int64(q, 5);
	ix->net = sqlite3_column_int64(q, 6);
	ix->capture_errors = sqlite3_column_int64(q, 7);
	char **strs[] = {&ix->started, &ix->ended, &ix->writer, &ix->argv, &ix->cwd, &ix->state_dir,
			 &ix->scope,   &ix->network, &ix->agent, &ix->session};
	for (int i = 0; i < 10; i++) {
		const unsigned char *t = sqlite3_column_text(q, 8 + i);
		*strs[i] = t ? xstrdup((const char *)t) : NULL;
	}
	sqlite3_reset(q);
	*out = ix;
	return 0;
}

int runidx_catch_up(struct store *st, const char *trace_path, char **run_id, struct err *e)
{
	if (run_id)
		*run_id = NULL;
	char *abs = realpath(trace_path, NULL);
	if (!abs)
		return err_set(e, BELAY_ENOTFOUND, "cannot resolve %s", trace_path);
	char *id = runidx_run_id(abs);
	struct runidx *ix = NULL;
	uint64_t from = 0;
	int rc = store_begin(st, e);
	FILE *f = NULL;
	if (rc)
		goto out;
	rc = resume(st, id, &ix, &from, e);
	if (rc == BELAY_ENOTFOUND) {
		from = 0;
		rc = runidx_begin(st, id, abs, &ix, e);
	}
	if (rc)
		goto fail;
	f = fopen(abs, "re");
	if (!f || fseeko(f, (off_t)from, SEEK_SET) != 0) {
		rc = err_set(e, BELAY_ENOTFOUND, "cannot read %s from byte %llu", abs, (unsigned long long)from);
		goto fail;
	}
	/* a last line still being written is left to the next catch-up */
	if ((rc = feed(ix, f, abs, from, 1, e)) != 0)
		goto fail;
	if ((rc = runidx_flush(ix, e)) != 0)
		goto fail;
	rc = store_commit(st, e);
	if (rc == 0 && run_id) {
		*run_id = id;
		id = NULL;
	}
	goto out;
fail:
	store_rollback(st);
out:
	if (f)
		fclose(f);
	runidx_free(ix);
	free(abs);
	free(id);
	return rc;
}
