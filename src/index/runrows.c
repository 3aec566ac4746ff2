/* runrows.c - the run view row by row. See runrows.h. */
#include "index/runrows.h"

#include <sqlite3.h>
#include <stdio.h>
#include <string.h>

#include "index/runq.h"
#include "store/store.h"

static const char *text(sqlite3_stmt *q, int i)
{
	return (const char *)sqlite3_column_text(q, i);
}

static int64_t i64_or(sqlite3_stmt *q, int i, int64_t none)
{
	return sqlite3_column_type(q, i) == SQLITE_NULL ? none : sqlite3_column_int64(q, i);
}

#define RUN_COLS                                                                                                 \
	"id, trace_path, started, ended, server_argv, scope, network, exit_status, exit_signal, frames, denials, " \
	"network_attempts, capture_errors, state_dir, " RUNQ_HEALTH_CHECK_SQL ", http_upstream, http_listener"

static void fill_run(sqlite3_stmt *q, struct runrows_run *r)
{
	r->id = text(q, 0);
	r->trace_path = text(q, 1);
	r->started = text(q, 2);
	r->ended = text(q, 3);
	r->server_argv = text(q, 4);
	r->scope = text(q, 5);
	r->network = text(q, 6);
	r->has_exit = sqlite3_column_type(q, 7) != SQLITE_NULL;
	r->exit_status = sqlite3_column_int(q, 7);
	r->exit_signal = text(q, 8);
	r->frames = sqlite3_column_int64(q, 9);
	r->denials = sqlite3_column_int64(q, 10);
	r->network_attempts = sqlite3_column_int64(q, 11);
	r->capture_errors = sqlite3_column_int64(q, 12);
	r->state_dir = text(q, 13);
	r->health_check = sqlite3_column_int(q, 14);
	r->http_upstream = text(q, 15);
	r->http_listener = text(q, 16);
}

/* Steps q to the end, calling each(q) per row; resets q whatever happens. */
static int walk(struct store *st, sqlite3_stmt *q, int (*each)(sqlite3_stmt *, void *), void *arg, const char *what,
		struct err *e)
{
	int rc, stop = 0;
	while ((rc = sqlite3_step(q)) == SQLITE_ROW)
		if ((stop = each(q, arg)) != 0)
			break;
	if (stop) {
		sqlite3_reset(q);
		return stop;
	}
	int done = rc == SQLITE_DONE;
	int out = done ? 0 : store_fail(st, e, what);
	sqlite3_reset(q);
	return out;
}

struct run_walk {
	runrows_run_cb cb;
	void *ctx;
};

static int each_run(sqlite3_stmt *q, void *arg)
{
	struct run_walk *w = arg;
	struct runrows_run r;
	fill_run(q, &r);
	return w->cb(w->ctx, &r);
}

int runrows_runs(struct store *st, runrows_run_cb cb, void *ctx, struct err *e)
{
	sqlite3_stmt *q;
	int rc = store_stmt(st, "SELECT " RUN_COLS " FROM runs r ORDER BY started, id", &q, e);
	if (rc)
		return rc;
	struct run_walk w = {cb, ctx};
	return walk(st, q, each_run, &w, "cannot list the runs", e);
}

int runrows_run(struct store *st, const char *run, runrows_run_cb cb, void *ctx, struct err *e)
{
	sqlite3_stmt *q;
	int rc = store_stmt(st, "SELECT " RUN_COLS " FROM runs r WHERE id = ?1", &q, e);
	if (rc || (rc = store_bind_text(st, q, 1, run, e)) != 0)
		return rc;
	struct run_walk w = {cb, ctx};
	return walk(st, q, each_run, &w, "cannot read the run", e);
}

struct turn_walk {
	runrows_turn_cb cb;
	void *ctx;
};

static int each_turn(sqlite3_stmt *q, void *arg)
{
	struct turn_walk *w = arg;
	struct runrows_turn t = {
		.turn = sqlite3_column_int(q, 0),
		.req_seq = sqlite3_column_int64(q, 1),
		.resp_seq = i64_or(q, 2, -1),
		.tool = text(q, 3),
		.args = text(q, 4),
		.t_req = text(q, 5),
		.latency_us = i64_or(q, 6, -1),
		.status = text(q, 7),
		.error = text(q, 8),
		.gate = text(q, 9),
		.handle = text(q, 10),
		.handle_cause = text(q, 11),
		.decision = text(q, 12),
		.outcome = text(q, 13),
		.approval = text(q, 14),
	};
	return w->cb(w->ctx, &t);
}

int runrows_turns(struct store *st, const char *run, int64_t from_turn, runrows_turn_cb cb, void *ctx,
		  struct err *e)
{
	sqlite3_stmt *q;
	int rc = store_stmt(st,
			    "SELECT turn, req_seq, resp_seq, tool, args, t_req, latency_us, status, error, gate, handle, "
			    "handle_cause, decision, outcome, approval FROM turns WHERE run = ?1 AND turn >= ?2 ORDER BY turn",
			    &q, e);
	if (rc || (rc = store_bind_text(st, q, 1, run, e)) != 0 || (rc = store_bind_i64(st, q, 2, from_turn, e)) != 0)
		return rc;
	struct turn_walk w = {cb, ctx};
	return walk(st, q, each_turn, &w, "cannot read the turns", e);
}

struct denial_walk {
	runrows_denial_cb cb;
	void *ctx;
};

static int each_denial(sqlite3_stmt *q, void *arg)
{
	struct denial_walk *w = arg;
	struct runrows_denial d = {
		.seq = sqlite3_column_int64(q, 0),
		.kind = text(q, 1),
		.op = text(q, 2),
		.target = text(q, 3),
		.err = text(q, 4),
		.outcome = text(q, 5),
		.comm = text(q, 6),
		.turn_seq = i64_or(q, 7, -1),
	};
	return w->cb(w->ctx, &d);
}

int runrows_denials(struct store *st, const char *run, int64_t after_seq, runrows_denial_cb cb, void *ctx,
		    struct err *e)
{
	sqlite3_stmt *q;
	int rc = store_stmt(st,
			    "SELECT seq, kind, op, target, errno, outcome, comm, turn_seq FROM denials "
			    "WHERE run = ?1 AND seq > ?2 ORDER BY seq",
			    &q, e);
	if (rc || (rc = store_bind_text(st, q, 1, run, e)) != 0 || (rc = store_bind_i64(st, q, 2, after_seq, e)) != 0)
		return rc;
	struct denial_walk w = {cb, ctx};
	return walk(st, q, each_denial, &w, "cannot read the denials", e);
}

int runrows_frame(struct store *st, const char *run, int64_t seq, struct runrows_frame *out, struct err *e)
{
	sqlite3_stmt *q;
	int rc = store_stmt(st, "SELECT off, len, dir, bytes, truncated FROM frames WHERE run = ?1 AND seq = ?2", &q, e);
	if (rc || (rc = store_bind_text(st, q, 1, run, e)) != 0 || (rc = store_bind_i64(st, q, 2, seq, e)) != 0)
		return rc;
	rc = sqlite3_step(q);
	if (rc != SQLITE_ROW) {
		int out_rc = rc == SQLITE_DONE ? err_set(e, BELAY_ENOTFOUND, "no frame with seq %lld in the store", (long long)seq)
					       : store_fail(st, e, "cannot read the frame index");
		sqlite3_reset(q);
		return out_rc;
	}
	out->off = sqlite3_column_int64(q, 0);
	out->len = sqlite3_column_int64(q, 1);
	snprintf(out->dir, sizeof out->dir, "%s", text(q, 2) ? text(q, 2) : "?");
	out->bytes = sqlite3_column_int64(q, 3);
	out->truncated = sqlite3_column_int(q, 4);
	sqlite3_reset(q);
	return 0;
}
