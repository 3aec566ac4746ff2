/* cmodel.c - the console's cache of the store's run view, verdicts and labels, refreshed
 * incrementally. See cmodel.h.
 *
 * Must not: write to the store (the connection is only ever read), touch curses. */
#include "tui/cmodel.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/buf.h"
#include "common/fsutil.h"
#include "common/jsonx.h"
#include "common/xalloc.h"
#include "corpus/corpus.h"
#include "index/runq.h"
#include "index/runrows.h"
#include "index/statedb.h"
#include "index/verdict_store.h"
#include "store/store.h"

#define ARGS_SHOWN 160 /* bytes of an arguments summary kept per turn */

static void copy_to(char *dst, size_t n, const char *s)
{
	snprintf(dst, n, "%s", s ? s : "");
}

const char *cm_v_word(enum cm_v v)
{
	switch (v) {
	case CMV_PASS: return "PASS";
	case CMV_WARN: return "WARN";
	case CMV_UNVERIFIED: return "UNVERIFIED";
	case CMV_FAIL: return "FAIL";
	case CMV_NOT_COVERED: return "NOT_COVERED";
	default: return "-";
	}
}

enum cm_v cm_v_parse(const char *s)
{
	if (!s)
		return CMV_NONE;
	static const char *w[] = {"PASS", "WARN", "UNVERIFIED", "FAIL", "NOT_COVERED"};
	for (int i = 0; i < 5; i++)
		if (!strcmp(s, w[i]))
			return (enum cm_v)i;
	return CMV_NONE;
}

int cm_open(struct cmodel *m, const char *state_dir, struct err *e)
{
	memset(m, 0, sizeof *m);
	return statedb_open(state_dir, &m->st, e);
}

static void turn_free(struct cm_turn *t)
{
	free(t->tool);
	free(t->args);
	free(t->error);
	free(t->handle);
	free(t->handle_cause);
}

static void run_free(struct cm_run *r)
{
	cm_holds_clear(r); /* first: it clears the marks on the turns */
	for (size_t i = 0; i < r->nturns; i++)
		turn_free(cm_turn_at(r, i));
	for (size_t b = 0; b < r->nblocks; b++)
		free(r->turn_blocks[b]);
	free(r->turn_blocks);
	for (size_t i = 0; i < r->ndenials; i++) {
		struct cm_denial *d = &r->denials[i];
		free(d->op);
		free(d->target);
		free(d->err);
		free(d->outcome);
		free(d->comm);
	}
	free(r->denials);
	cJSON_Delete(r->runv);
	free(r->id);
	free(r->trace);
	free(r->server);
	free(r->typed);
	free(r->scope);
	free(r->network);
	free(r->state_dir);
	free(r);
}

void cm_close(struct cmodel *m)
{
	for (size_t i = 0; i < m->nruns; i++)
		run_free(m->runs[i]);
	free(m->runs);
	store_close(m->st);
	memset(m, 0, sizeof *m);
}

struct cm_run *cm_find(struct cmodel *m, const char *id)
{
	for (size_t i = 0; i < m->nruns; i++)
		if (!strcmp(m->runs[i]->id, id))
			return m->runs[i];
	return NULL;
}

struct cm_run *cm_add(struct cmodel *m, const char *id, const char *trace)
{
	struct cm_run *r = cm_find(m, id);
	if (r) {
		if (trace && !r->trace)
			r->trace = xstrdup(trace);
		return r;
	}
	r = xcalloc(1, sizeof *r);
	r->id = xstrdup(id);
	r->trace = trace ? xstrdup(trace) : NULL;
	m->runs = xrealloc(m->runs, (m->nruns + 1) * sizeof *m->runs);
	m->runs[m->nruns++] = r;
	m->gen++;
	return r;
}

/* "node server.js /ws" from a JSON argv (items that are not strings shown as '?'). */
static char *argv_display(const char *json)
{
	cJSON *a = json ? cJSON_Parse(json) : NULL;
	struct buf b = {0};
	for (const cJSON *it = cJSON_IsArray(a) ? a->child : NULL; it; it = it->next) {
		if (b.len)
			buf_putc(&b, ' ');
		buf_puts(&b, cJSON_IsString(it) ? it->valuestring : "?");
	}
	cJSON_Delete(a);
	return b.len ? buf_take(&b) : NULL;
}

void cm_read_typed(struct cm_run *r)
{
	if (r->typed_read || !r->trace)
		return;
	int fd = open(r->trace, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
	if (fd < 0)
		return;
	struct buf b = {0};
	char chunk[65536];
	ssize_t n;
	size_t scanned = 0;
	int lines = 0;
	while (b.len < (1u << 20) && (n = read(fd, chunk, sizeof chunk)) > 0) {
		buf_append(&b, chunk, (size_t)n);
		/* whole lines only; the start record comes right after the connection opens */
		char *nl;
		while (!r->typed_read && (nl = memchr(b.p + scanned, '\n', b.len - scanned))) {
			cJSON *o = cJSON_ParseWithLength(b.p + scanned, (size_t)(nl - (b.p + scanned)));
			const char *kind = jx_str(o, "kind"), *phase = jx_str(o, "phase");
			if (kind && !strcmp(kind, "server") && phase && !strcmp(phase, "start")) {
				const cJSON *given = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(o, "launch"), "given");
				if (cJSON_IsArray(given)) {
					char *s = jx_print(given);
					free(r->typed);
					r->typed = argv_display(s);
					free(s);
				}
				r->typed_read = 1;
			}
			cJSON_Delete(o);
			scanned = (size_t)(nl - b.p) + 1;
			if (++lines >= 16)
				r->typed_read = 1; /* it comes second: a trace without one is not read again */
		}
		if (r->typed_read)
			break;
	}
	if (b.len >= (1u << 20))
		r->typed_read = 1; /* not there: not looked for again */
	close(fd);
	buf_free(&b);
}

static void fill_run(struct cm_run *r, const struct runrows_run *row)
{
	free(r->trace);
	r->trace = row->trace_path ? xstrdup(row->trace_path) : NULL;
	copy_to(r->started, sizeof r->started, row->started);
	copy_to(r->ended, sizeof r->ended, row->ended);
	free(r->server);
	r->server = argv_display(row->server_argv);
	if (!r->server && row->http_upstream) /* a run over HTTP: its server is a URL (docs/HTTP.md) */
		r->server = row->http_listener ? xasprintf("%s via %s", row->http_upstream, row->http_listener)
					       : xstrdup(row->http_upstream);
	free(r->scope);
	r->scope = row->scope ? xstrdup(row->scope) : NULL;
	free(r->network);
	r->network = row->network ? xstrdup(row->network) : NULL;
	r->has_exit = row->has_exit;
	r->exit_status = row->exit_status;
	copy_to(r->exit_signal, sizeof r->exit_signal, row->exit_signal);
	r->frames = row->frames;
	r->denial_count = row->denials;
	r->network_attempts = row->network_attempts;
	r->capture_errors = row->capture_errors;
	free(r->state_dir);
	r->state_dir = row->state_dir ? xstrdup(row->state_dir) : NULL;
}

static int load_run(void *ctx, const struct runrows_run *row)
{
	struct cmodel *m = ctx;
	if (row->health_check) {
		m->health_checks++;
		return 0;
	}
	fill_run(cm_add(m, row->id, NULL), row);
	return 0;
}

int cm_load_runs(struct cmodel *m, struct err *e)
{
	m->health_checks = 0;
	int rc = runrows_runs(m->st, load_run, m, e);
	if (rc)
		return rc;
	for (size_t i = 0; i < m->nruns; i++) {
		struct cm_run *r = m->runs[i];
		if ((rc = cm_refresh(m, r, e)) != 0 || (rc = cm_reload_verdicts(m, r, e)) != 0 ||
		    (rc = cm_reload_labels(m, r, e)) != 0)
			return rc;
	}
	return 0;
}

/*==== turns ====*/

static void count(struct cm_run *r, enum cm_v old, enum cm_v now)
{
	r->counts[(int)old + 1]--;
	r->counts[(int)now + 1]++;
}

struct cm_turn *cm_turn_append(struct cm_run *r)
{
	if (r->nturns == r->nblocks * CM_TURN_BLOCK) {
		r->turn_blocks = xrealloc(r->turn_blocks, (r->nblocks + 1) * sizeof *r->turn_blocks);
		r->turn_blocks[r->nblocks++] = xmalloc(CM_TURN_BLOCK * sizeof(struct cm_turn));
	}
	struct cm_turn *t = cm_turn_at(r, r->nturns++);
	memset(t, 0, sizeof *t);
	t->v = t->a1 = t->a2 = t->rc = CMV_NONE;
	return t;
}

struct cm_turn *cm_turn_by_seq(struct cm_run *r, int64_t seq)
{
	size_t lo = 0, hi = r->nturns;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (cm_turn_at(r, mid)->req_seq < seq)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < r->nturns && cm_turn_at(r, lo)->req_seq == seq ? cm_turn_at(r, lo) : NULL;
}

static char *args_display(const char *s)
{
	if (!s)
		return NULL;
	size_t n = strlen(s);
	if (n <= ARGS_SHOWN)
		return xstrdup(s);
	size_t cut = ARGS_SHOWN;
	while (cut > 0 && ((unsigned char)s[cut] & 0xC0) == 0x80)
		cut--;
	char *o = xmalloc(cut + 4);
	memcpy(o, s, cut);
	memcpy(o + cut, "...", 4);
	return o;
}

static char *dup_or_null(const char *s)
{
	return s ? xstrdup(s) : NULL;
}

static void fill_turn(struct cm_turn *t, const struct runrows_turn *row)
{
	t->turn = row->turn;
	t->req_seq = row->req_seq;
	t->resp_seq = row->resp_seq;
	free(t->tool);
	t->tool = dup_or_null(row->tool);
	free(t->args);
	t->args = args_display(row->args);
	copy_to(t->t_req, sizeof t->t_req, row->t_req);
	t->latency_us = row->latency_us;
	const char *st = row->status;
	t->call = !st                         ? CMC_PENDING
		  : !strcmp(st, "answered")   ? CMC_ANSWERED
		  : !strcmp(st, "cancelled")  ? CMC_CANCELLED
		  : !strcmp(st, "untracked")  ? CMC_UNTRACKED
		  : !strcmp(st, "answered-by-belay") ? CMC_BY_BELAY
					      : CMC_PENDING;
	free(t->error);
	t->error = dup_or_null(row->error);
	copy_to(t->prestate, sizeof t->prestate, row->gate);
	free(t->handle);
	t->handle = dup_or_null(row->handle);
	free(t->handle_cause);
	t->handle_cause = dup_or_null(row->handle_cause);
	copy_to(t->decision, sizeof t->decision, row->decision);
	copy_to(t->outcome, sizeof t->outcome, row->outcome);
	copy_to(t->approval, sizeof t->approval, row->approval);
	/* Answered (also after a cancel) or untracked: the row is final. A refused call is
	 * answered by belay itself. */
	t->final = t->resp_seq >= 0 || t->call == CMC_UNTRACKED;
}

static int add_turn(void *ctx, const struct runrows_turn *row)
{
	struct cm_run *r = ctx;
	size_t k = (size_t)row->turn;
	if (k < r->nturns) {
		if (!cm_turn_at(r, k)->final) {
			fill_turn(cm_turn_at(r, k), row);
			r->gen++;
		}
		return 0;
	}
	if (k != r->nturns)
		return 0; /* a gap cannot happen: turns are inserted in order */
	struct cm_turn *t = cm_turn_append(r);
	fill_turn(t, row);
	r->counts[0]++;
	/* A held call the store now shows: keep the mark until the hold is answered. */
	for (size_t i = 0; i < r->nholds; i++)
		if (r->holds[i].seq == t->req_seq)
			t->hold = r->holds[i].id;
	r->gen++;
	return 0;
}

static int refresh_turns(struct cmodel *m, struct cm_run *r, struct err *e)
{
	/* Rows from the first one that may still change: new turns and open ones. */
	int rc = runrows_turns(m->st, r->id, (int64_t)r->first_open, add_turn, r, e);
	if (rc)
		return rc;
	while (r->first_open < r->nturns && cm_turn_at(r, r->first_open)->final)
		r->first_open++;
	return 0;
}

static int add_denial(void *ctx, const struct runrows_denial *row)
{
	struct cm_run *r = ctx;
	if (r->ndenials == r->capdenials) {
		r->capdenials = r->capdenials ? r->capdenials * 2 : 64;
		r->denials = xrealloc(r->denials, r->capdenials * sizeof *r->denials);
	}
	struct cm_denial *d = &r->denials[r->ndenials++];
	memset(d, 0, sizeof *d);
	d->seq = row->seq;
	copy_to(d->kind, sizeof d->kind, row->kind);
	d->op = dup_or_null(row->op);
	d->target = dup_or_null(row->target);
	d->err = dup_or_null(row->err);
	d->outcome = dup_or_null(row->outcome);
	d->comm = dup_or_null(row->comm);
	d->turn_seq = row->turn_seq;
	d->turn = -1;
	struct cm_turn *t = d->turn_seq >= 0 ? cm_turn_by_seq(r, d->turn_seq) : NULL;
	if (t) {
		d->turn = t->turn;
		if (!strcmp(d->kind, "denial"))
			t->denials++;
	}
	r->gen++;
	return 0;
}

static int refresh_denials(struct cmodel *m, struct cm_run *r, struct err *e)
{
	return runrows_denials(m->st, r->id, r->ndenials ? r->denials[r->ndenials - 1].seq : -1, add_denial, r, e);
}

static int refill_run(void *ctx, const struct runrows_run *row)
{
	fill_run(ctx, row);
	return 0;
}

int cm_refresh(struct cmodel *m, struct cm_run *r, struct err *e)
{
	int rc = runrows_run(m->st, r->id, refill_run, r, e);
	if (rc || (rc = refresh_turns(m, r, e)) != 0 || (rc = refresh_denials(m, r, e)) != 0)
		return rc;
	m->gen++;
	return 0;
}

/*==== verdicts ====*/

static enum cm_v axis_worst(const cJSON *subs, const char *axis, int *nc, char *cause, size_t ncause)
{
	enum cm_v w = CMV_NONE;
	int rank_w = -1;
	*nc = 0;
	cause[0] = '\0';
	/* FAIL > UNVERIFIED > WARN > PASS; NOT_COVERED only when nothing else was checked. */
	static const int rank[] = {[CMV_PASS] = 0, [CMV_WARN] = 1, [CMV_UNVERIFIED] = 2, [CMV_FAIL] = 3};
	int only_nc = 0;
	for (const cJSON *s = cJSON_IsArray(subs) ? subs->child : NULL; s; s = s->next) {
		const char *ax = jx_str(s, "axis");
		if (!ax || strcmp(ax, axis))
			continue;
		enum cm_v v = cm_v_parse(jx_str(s, "status"));
		if (v == CMV_NOT_COVERED) {
			*nc = 1;
			only_nc = 1;
			continue;
		}
		if (v == CMV_NONE)
			continue;
		if (rank[v] > rank_w) {
			rank_w = rank[v];
			w = v;
			copy_to(cause, ncause, jx_str(s, "cause"));
		}
	}
	if (w == CMV_NONE && only_nc)
		return CMV_NOT_COVERED;
	return w;
}

void cm_apply_verdict(struct cm_run *r, int turn, const cJSON *v, int provisional)
{
	if (turn < 0 || (size_t)turn >= r->nturns)
		return;
	struct cm_turn *t = cm_turn_at(r, turn);
	enum cm_v old = t->v;
	t->v = cm_v_parse(jx_str(v, "status"));
	copy_to(t->cause, sizeof t->cause, jx_str(v, "cause"));
	const cJSON *subs = cJSON_GetObjectItemCaseSensitive(v, "verdicts");
	t->a1 = axis_worst(subs, "A1", &t->a1_nc, t->a1_cause, sizeof t->a1_cause);
	t->a2 = axis_worst(subs, "A2", &t->a2_nc, t->a2_cause, sizeof t->a2_cause);
	t->provisional = provisional;
	if (!provisional)
		t->verifying = 0;
	count(r, old, t->v);
	r->gen++;
}

void cm_apply_recheck(struct cm_run *r, int turn, const cJSON *v, int provisional)
{
	if (turn < 0 || (size_t)turn >= r->nturns)
		return;
	struct cm_turn *t = cm_turn_at(r, turn);
	t->rc = v ? cm_v_parse(jx_str(v, "status")) : CMV_NONE;
	copy_to(t->rc_cause, sizeof t->rc_cause, v ? jx_str(v, "cause") : NULL);
	t->rc_provisional = v && provisional;
	if (!provisional)
		t->verifying = 0;
	r->gen++;
}

int cm_reload_verdicts(struct cmodel *m, struct cm_run *r, struct err *e)
{
	cJSON *arr = NULL;
	int rc = verdict_store_latest(m->st, r->id, -1, &arr, e);
	if (rc)
		return rc;
	cJSON_Delete(r->runv);
	r->runv = NULL;
	for (const cJSON *v = arr ? arr->child : NULL; v; v = v->next) {
		long long turn;
		if (jx_int(v, "turn", 0, 1 << 30, &turn)) {
			cm_apply_verdict(r, (int)turn, v, 0);
		} else if (jx_int(v, "turn", VERDICT_TURN_CENSUS, VERDICT_TURN_TRAJECTORY, &turn)) {
			if (!r->runv)
				r->runv = cJSON_CreateArray();
			cJSON_AddItemToArray(r->runv, cJSON_Duplicate(v, 1));
		}
	}
	cJSON_Delete(arr);
	/* The re-checks made since: one superseded by a later verdict is gone. */
	if ((rc = verdict_store_rechecks(m->st, r->id, -1, &arr, e)) != 0)
		return rc;
	for (size_t i = 0; i < r->nturns; i++)
		cm_apply_recheck(r, (int)i, NULL, 0);
	for (const cJSON *v = arr ? arr->child : NULL; v; v = v->next) {
		long long turn;
		if (jx_int(v, "turn", 0, 1 << 30, &turn))
			cm_apply_recheck(r, (int)turn, v, 0);
	}
	cJSON_Delete(arr);
	/* A job that ended leaves no provisional or pending mark behind. */
	for (size_t i = 0; i < r->nturns; i++) {
		if (cm_turn_at(r, i)->provisional || cm_turn_at(r, i)->verifying) {
			cm_turn_at(r, i)->verifying = 0;
			if (cm_turn_at(r, i)->provisional) {
				/* saved verdicts replaced it above; one that was not saved is dropped */
				cm_turn_at(r, i)->provisional = 0;
			}
		}
	}
	r->gen++;
	m->gen++;
	return 0;
}

/* The one verdict of a latest-per-turn query for a single turn (taken from arr), or NULL. */
static cJSON *only_one(int rc, cJSON *arr)
{
	cJSON *first = rc == 0 && arr && arr->child ? cJSON_DetachItemFromArray(arr, 0) : NULL;
	cJSON_Delete(arr);
	return first;
}

cJSON *cm_verdict_full(struct cmodel *m, const struct cm_run *r, int turn)
{
	cJSON *arr = NULL;
	struct err e = {0};
	int rc = verdict_store_latest(m->st, r->id, turn, &arr, &e);
	return only_one(rc, arr);
}

cJSON *cm_recheck_full(struct cmodel *m, const struct cm_run *r, int turn)
{
	cJSON *arr = NULL;
	struct err e = {0};
	int rc = verdict_store_rechecks(m->st, r->id, turn, &arr, &e);
	return only_one(rc, arr);
}

/*==== labels and holds ====*/

void cm_set_label(struct cm_run *r, int turn, const char *label)
{
	if (turn < 0 || (size_t)turn >= r->nturns)
		return;
	copy_to(cm_turn_at(r, turn)->label, sizeof cm_turn_at(r, turn)->label, label);
	r->gen++;
}

static void on_turn_label(void *ctx, int turn, const char *label, int miss)
{
	struct cm_run *r = ctx;
	cm_set_label(r, turn, label);
	if (turn >= 0 && (size_t)turn < r->nturns)
		cm_turn_at(r, turn)->label_miss = miss;
}

int cm_reload_labels(struct cmodel *m, struct cm_run *r, struct err *e)
{
	for (size_t i = 0; i < r->nturns; i++) { /* a deleted case takes its label with it */
		cm_turn_at(r, i)->label[0] = '\0';
		cm_turn_at(r, i)->label_miss = 0;
	}
	r->gen++;
	struct corpus *c = corpus_borrow(m->st, NULL); /* the corpus's query, on this connection */
	int rc = corpus_turn_labels(c, r->id, on_turn_label, r, e);
	corpus_close(c);
	return rc;
}

static char *dup_str(const cJSON *o, const char *key)
{
	const char *s = o ? jx_str(o, key) : NULL;
	return s ? xstrdup(s) : NULL;
}

void cm_hold_add(struct cm_run *r, uint64_t id, int64_t seq, const char *tool, const cJSON *plan, const cJSON *trial)
{
	r->holds = xrealloc(r->holds, (r->nholds + 1) * sizeof *r->holds);
	struct cm_hold *h = &r->holds[r->nholds++];
	memset(h, 0, sizeof *h);
	h->id = id;
	h->seq = seq;
	h->tool = tool ? xstrdup(tool) : NULL;
	const cJSON *args = plan ? cJSON_GetObjectItemCaseSensitive(plan, "arguments") : NULL;
	if (args) {
		cJSON *p = cJSON_Duplicate(plan, 1);
		cJSON_DeleteItemFromObjectCaseSensitive(p, "arguments");
		h->plan = jx_print(p);
		h->args = jx_print(args);
		cJSON_Delete(p);
	} else {
		h->plan = plan ? jx_print(plan) : NULL;
	}
	h->trial_id = dup_str(trial, "id");
	h->trial_brief = dup_str(trial, "brief");
	h->trial_error = h->trial_id ? NULL : dup_str(trial, "error");
	struct cm_turn *t = cm_turn_by_seq(r, seq);
	if (t)
		t->hold = id;
	r->gen++;
}

void cm_hold_drop(struct cm_run *r, uint64_t id)
{
	for (size_t i = 0; i < r->nholds; i++) {
		if (r->holds[i].id != id)
			continue;
		struct cm_turn *t = cm_turn_by_seq(r, r->holds[i].seq);
		if (t)
			t->hold = 0;
		free(r->holds[i].tool);
		free(r->holds[i].plan);
		free(r->holds[i].args);
		free(r->holds[i].trial_id);
		free(r->holds[i].trial_brief);
		free(r->holds[i].trial_error);
		r->holds[i] = r->holds[--r->nholds];
		r->gen++;
		return;
	}
}

void cm_holds_clear(struct cm_run *r)
{
	while (r->nholds)
		cm_hold_drop(r, r->holds[0].id);
	free(r->holds);
	r->holds = NULL;
}

int cm_frame_bytes(struct cmodel *m, const struct cm_run *r, int64_t seq, struct buf *out, cJSON **meta,
		   struct err *e)
{
	if (meta)
		*meta = NULL;
	if (!r->trace)
		return err_set(e, BELAY_ENOTFOUND, "the run has no trace");
	struct runrows_frame f;
	int rc = runrows_frame(m->st, r->id, seq, &f, e);
	if (rc)
		return rc;
	long long off = f.off, len = f.len;
	if (meta) {
		*meta = cJSON_CreateObject();
		cJSON_AddStringToObject(*meta, "dir", f.dir);
		cJSON_AddNumberToObject(*meta, "bytes", (double)f.bytes);
		cJSON_AddBoolToObject(*meta, "truncated", f.truncated);
		cJSON_AddNumberToObject(*meta, "off", (double)off);
	}
	cJSON *rec = NULL;
	rc = runq_frame_record(r->trace, off, len, out, meta ? &rec : NULL, e);
	if (rc == 0 && meta) {
		cJSON *h = cJSON_DetachItemFromObjectCaseSensitive(rec, "state_handle");
		if (h)
			cJSON_AddItemToObject(*meta, "state_handle", h);
		const char *hr = jx_str(rec, "hash_raw"), *t = jx_str(rec, "t_in");
		if (hr)
			cJSON_AddStringToObject(*meta, "hash_raw", hr);
		if (t)
			cJSON_AddStringToObject(*meta, "t_in", t);
		if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(rec, "origin")) || jx_str(rec, "origin"))
			cJSON_AddStringToObject(*meta, "origin", jx_str(rec, "origin") ? jx_str(rec, "origin") : "?");
	}
	cJSON_Delete(rec);
	return rc;
}
