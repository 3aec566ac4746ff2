/* verify.c - per-turn verification by re-execution, in parallel. See verify.h.
 *
 * The trace context (model, server command, handshake, annotations) is built once and only
 * read by the workers. Each worker owns a snap_store connection, a loop per replay and one
 * persistent scratch workspace (scratch.h) that it moves from pre-state to pre-state by
 * undoing the last replay's changes and applying the delta, and always removes at the end.
 * A replay's effect is the diff restricted to its dirty set (the supervisor's write intents
 * and the kernel's inotify events) or, when that set cannot be trusted, the full diff. */
#include "verify/verify.h"

#include <ctype.h>
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/buf.h"
#include "common/fsutil.h"
#include "common/jcs.h"
#include "common/jsonx.h"
#include "common/timeutil.h"
#include "common/xalloc.h"
#include "engine/model.h"
#include "snapshot/snapshot.h"
#include "engine/trace_model.h"
#include "engine/trace_reader.h"
#include "verify/equiv.h"
#include "verify/relocate.h"
#include "verify/replay.h"
#include "verify/scratch.h"
#include "verify/weakening.h"

struct vctx {
	const struct verify_opts *o;
	struct trace *t;
	struct model m;
	char **argv;  /* the server command (owned) */
	char *cwd;    /* its recorded cwd (owned, may be NULL) */
	char *scope;  /* the recorded workspace (owned, may be NULL) */
	char *state_dir;
	char *recorded_protocol; /* from the recorded initialize response */
	struct turn_verdict *v;  /* one per turn */
	int *is_error;           /* per turn: replayed reply isError (1), not (0), unknown (-1) */
	atomic_int next;
	pthread_mutex_t mu;
	unsigned long full_restores, partial_restores; /* summed from the workers (under mu) */
	atomic_ulong scratch_mismatches;
};

/*==== reading the trace ====*/

static const struct trace_record *frame_rec(const struct vctx *c, size_t frame)
{
	return frame == SIZE_MAX ? NULL : &c->t->recs[c->m.frames[frame].rec];
}

/* One message of a frame (an element of a batch, or the frame) as a new string. */
static char *message_text(const struct trace_record *r, int item, size_t *len)
{
	if (!r || r->truncated)
		return NULL;
	cJSON *v = cJSON_ParseWithLength(r->bytes, r->len);
	if (!v)
		return NULL;
	if (cJSON_IsArray(v)) {
		cJSON *el = cJSON_GetArrayItem(v, item);
		char *s = el ? jx_print(el) : NULL;
		cJSON_Delete(v);
		if (s)
			*len = strlen(s);
		return s;
	}
	cJSON_Delete(v);
	*len = r->len;
	return xmemdup(r->bytes, r->len);
}

/* The annotations of `tool` in the latest tools/list answered before seq: a new object,
 * or NULL when no tools/list was seen or the tool is not in it. *listed says whether a
 * tools/list existed at all. */
static cJSON *annotations_for(const struct vctx *c, int64_t seq, const char *tool, int *listed)
{
	*listed = 0;
	const struct exchange *best = NULL;
	for (size_t i = 0; i < c->m.nex; i++) {
		const struct exchange *x = &c->m.ex[i];
		if (x->origin == DIR_C2S && x->method && !strcmp(x->method, "tools/list") && x->resp_seq >= 0 &&
		    x->resp_seq < seq && !x->protocol_error)
			best = x;
	}
	if (!best || !tool)
		return NULL;
	size_t len;
	char *text = message_text(frame_rec(c, best->resp_frame), best->resp_item, &len);
	cJSON *msg = text ? cJSON_ParseWithLength(text, len) : NULL;
	free(text);
	cJSON *out = NULL;
	const cJSON *tools = msg ? jx_path(msg, "result.tools") : NULL;
	if (cJSON_IsArray(tools)) {
		*listed = 1;
		for (const cJSON *t = tools->child; t; t = t->next) {
			const char *name = jx_str(t, "name");
			if (name && !strcmp(name, tool)) {
				const cJSON *a = cJSON_GetObjectItemCaseSensitive(t, "annotations");
				out = cJSON_IsObject(a) ? cJSON_Duplicate(a, 1) : cJSON_CreateObject();
				break;
			}
		}
	}
	cJSON_Delete(msg);
	return out;
}

/* The handshake the client made before seq: initialize requests and initialized notes. */
static void handshake_frames(const struct vctx *c, int64_t seq, const struct relocation *rl, struct replay_frame **out,
			     size_t *n)
{
	*out = NULL;
	*n = 0;
	for (size_t i = 0; i < c->m.nframes && c->m.frames[i].seq < seq; i++) {
		const struct model_frame *f = &c->m.frames[i];
		if (f->dir != DIR_C2S || !f->method || f->batch)
			continue;
		if (strcmp(f->method, "initialize") && strcmp(f->method, "notifications/initialized"))
			continue;
		const struct trace_record *r = frame_rec(c, i);
		struct buf b = {0};
		relocate_frame(rl, r->bytes, r->len, &b);
		struct replay_frame rf = {.len = b.len};
		struct rpc_msg m;
		rpc_msg_parse(r->bytes, r->len, r->truncated, &m);
		if (m.items[0].kind == RPC_REQUEST)
			rf.await = m.items[0].id;
		rpc_msg_free(&m);
		rf.bytes = buf_take(&b);
		*out = xrealloc(*out, (*n + 1) * sizeof **out);
		(*out)[(*n)++] = rf;
	}
}

/* What the client answered to the server's own requests before seq, by method. */
static cJSON *client_answers(const struct vctx *c, int64_t seq, const struct relocation *rl)
{
	cJSON *answers = cJSON_CreateObject();
	for (size_t i = 0; i < c->m.nex; i++) {
		const struct exchange *x = &c->m.ex[i];
		if (x->origin != DIR_S2C || !x->method || x->status != EX_ANSWERED || x->resp_seq >= seq)
			continue;
		size_t len;
		char *text = message_text(frame_rec(c, x->resp_frame), x->resp_item, &len);
		cJSON *msg = text ? cJSON_ParseWithLength(text, len) : NULL;
		free(text);
		cJSON *res = msg ? cJSON_DetachItemFromObjectCaseSensitive(msg, "result") : NULL;
		if (res) {
			relocate_json(rl, res);
			cJSON_DeleteItemFromObjectCaseSensitive(answers, x->method);
			cJSON_AddItemToObject(answers, x->method, res);
		}
		cJSON_Delete(msg);
	}
	return answers;
}

/*==== one replay ====*/

/* What a worker thread owns. */
struct worker {
	struct snap_store *st;
	struct scratch sc;
	int sc_open;
	struct err sc_err; /* why the scratch could not be created */
};

struct turn_input {
	const struct exchange *x;
	const char *handle;
	char **argv; /* relocated per scratch */
	char *cwd;
};

/* check_scratch: 1 when the scratch hashes as the pre-state does (recomputed from its
 * manifest, so a wrong recorded hash cannot hide a wrong scratch). */
static int scratch_matches(struct worker *w, const char *handle)
{
	char have[SNAP_TREE_HASH_LEN], want[SNAP_TREE_HASH_LEN];
	struct err e = {0};
	return snap_tree_hash_dir(w->sc.ws, have, &e) == 0 && snap_tree_hash_handle(w->st, handle, want, &e) == 0 &&
	       !strcmp(have, want);
}

/* Brings the worker's scratch to the turn's pre-state and replays the call there. Returns
 * the replay result (cause set on failure); restore failures come back as their
 * UNRESTORABLE_* / PRESTATE_* cause. A failed replay leaves the scratch invalidated. */
static void replay_once(struct vctx *c, struct worker *w, const struct turn_input *in, struct replay_result *rr,
			double *ms_restore)
{
	memset(rr, 0, sizeof *rr);
	struct err e = {0};
	struct scratch *sc = &w->sc;
	uint64_t t0 = time_mono_ns();
	int full = 0;
	int rc = scratch_prepare(sc, w->st, in->handle, &full, &e);
	if (rc == 0 && !full && c->o->check_scratch && !scratch_matches(w, in->handle)) {
		atomic_fetch_add(&c->scratch_mismatches, 1);
		scratch_invalidate(sc);
		rc = scratch_prepare(sc, w->st, in->handle, NULL, &e);
	}
	if (rc != 0) {
		const char *cause = snap_cause_of(&e);
		rr->cause = cause && vcause_known(cause) ? cause : "PRESTATE_NOT_FOUND";
		snprintf(rr->detail, sizeof rr->detail, "%s", e.msg);
		rr->observed = cJSON_CreateArray();
		return;
	}
	*ms_restore += (double)(time_mono_ns() - t0) / 1e6;
	struct relocation rl = {c->scope, sc->ws};
	char **argv = NULL;
	size_t n = 0;
	for (char **a = c->argv; *a; a++)
		n++;
	argv = xcalloc(n + 1, sizeof *argv);
	for (size_t i = 0; i < n; i++) {
		int ch;
		argv[i] = relocate_string(&rl, c->argv[i], &ch);
	}
	int chc = 0;
	char *cwd = c->cwd ? relocate_string(&rl, c->cwd, &chc) : NULL;
	struct replay_frame *pre;
	size_t npre;
	handshake_frames(c, in->x->req_seq, &rl, &pre, &npre);
	struct replay_frame target = {0};
	size_t tlen;
	char *ttext = message_text(frame_rec(c, in->x->req_frame), in->x->req_item, &tlen);
	struct buf tb = {0};
	relocate_frame(&rl, ttext, tlen, &tb);
	free(ttext);
	target.len = tb.len;
	target.bytes = buf_take(&tb);
	target.await = in->x->id;
	cJSON *answers = client_answers(c, in->x->req_seq, &rl);
	struct replay_spec sp = {
		.argv = argv,
		.cwd = cwd && chc ? cwd : sc->ws,
		.launcher = c->o->launcher,
		.scope = sc->ws,
		.tmpdir = sc->tmp,
		.network = SANDBOX_NET_DENY,
		.pre = pre,
		.npre = npre,
		.target = target,
		.answers = answers,
		.timeout_ms = c->o->timeout_ms,
		.report_writes = !c->o->full_diff,
	};
	scratch_arm(sc);
	replay_run(&sp, rr);
	if (rr->cause)
		scratch_invalidate(sc); /* what it changed is not worth tracking down */
	for (size_t i = 0; i < npre; i++)
		replay_frame_free(&pre[i]);
	free(pre);
	replay_frame_free(&target);
	cJSON_Delete(answers);
	for (size_t i = 0; i < n; i++)
		free(argv[i]);
	free(argv);
	free(cwd);
}

/* The effect of a replay: every path the call changed, added or removed, relative to the
 * pre-state `handle`. From the dirty set (the supervisor's write intents and inotify's
 * events, restricted diff) unless the options or the replay say that set cannot be trusted:
 * then from the full diff (*why_full says why). Records the effect in the scratch so the
 * next prepare undoes it. NULL (scratch invalidated) when neither diff could be made. */
static cJSON *effect_of(struct vctx *c, struct worker *w, const char *handle, const struct replay_result *rr,
			const char **via, const char **why_full, struct err *e)
{
	struct scratch *sc = &w->sc;
	unsigned src = c->o->dirty_sources ? c->o->dirty_sources : VERIFY_DIRTY_ALL;
	struct snap_paths dirty = {0}, seen = {0};
	const char *why = NULL, *iwhy = NULL;
	/* Always drain the kernel's events, so that the next replay starts from an empty queue. */
	int irc = scratch_dirty(sc, &seen, &iwhy);
	if (c->o->full_diff)
		why = "--full-diff";
	else if (!rr->contained_gone)
		why = "contained processes outlived the replay";
	if (!why && (src & VERIFY_DIRTY_SUPERVISOR)) {
		if (rr->writes_unusable)
			why = rr->writes_unusable;
		for (size_t i = 0; i < rr->nwrites && !why; i++) {
			char *rel = scratch_rel(sc, rr->writes[i]);
			if (rel && snap_paths_add(&dirty, rel, strlen(rel), rr->writes_moved[i]) != 0)
				why = "a write-intent path is not a clean path";
			free(rel);
		}
	}
	if (!why && (src & VERIFY_DIRTY_INOTIFY)) {
		if (irc != 0)
			why = iwhy;
		for (size_t i = 0; i < seen.n && !why; i++)
			snap_paths_add(&dirty, seen.v[i], strlen(seen.v[i]), seen.tree[i]);
	}
	snap_paths_free(&seen);
	struct snap_diff d;
	int rc = 0;
	if (!why) {
		int incomplete = 0;
		struct err pe = {0};
		snap_paths_sort(&dirty);
		rc = snap_diff_handle_paths(w->st, handle, sc->ws, &dirty, &d, &incomplete, &pe);
		if (rc != 0)
			why = "the restricted diff failed";
		else if (incomplete) {
			snap_diff_free(&d);
			why = "a hard-linked file has names the dirty set does not cover";
		}
	}
	snap_paths_free(&dirty);
	*via = why ? "full_diff" : "dirty_set";
	*why_full = why;
	if (why && (rc = snap_diff_handle_dir(w->st, handle, sc->ws, &d, e)) != 0) {
		scratch_invalidate(sc);
		return NULL;
	}
	scratch_changed(sc, &d);
	if (!rr->contained_gone)
		scratch_invalidate(sc); /* something may still be writing into it */
	cJSON *arr = cJSON_CreateArray();
	for (size_t i = 0; i < d.n; i++) {
		const struct snap_diff_item *it = &d.items[i];
		cJSON *o = cJSON_CreateObject();
		cJSON_AddItemToObject(o, "path", jx_bytes(it->path, it->path_len));
		cJSON_AddStringToObject(o, "change", it->kind == SNAP_DIFF_ADDED     ? "added"
						     : it->kind == SNAP_DIFF_REMOVED ? "removed"
										 : "changed");
		if (it->nfields) {
			cJSON *f = cJSON_AddArrayToObject(o, "fields");
			for (size_t k = 0; k < it->nfields; k++)
				cJSON_AddItemToArray(f, cJSON_CreateString(it->fields[k]));
		}
		cJSON_AddItemToArray(arr, o);
	}
	snap_diff_free(&d);
	return arr;
}

/* The decoded text of a JSON value, in document order: keys, string contents and numbers
 * separated by a unit separator, so the tokenizer sees "uuid\n" as the uuid it is. */
static void flatten(const cJSON *v, struct buf *out)
{
	if (v->string) {
		buf_puts(out, v->string);
		buf_putc(out, '\x1f');
	}
	if (cJSON_IsString(v)) {
		buf_puts(out, v->valuestring);
		buf_putc(out, '\x1f');
	} else if (cJSON_IsNumber(v)) {
		char num[32];
		jcs_number(v->valuedouble, num);
		buf_puts(out, num);
		buf_putc(out, '\x1f');
	} else if (cJSON_IsBool(v)) {
		buf_puts(out, cJSON_IsTrue(v) ? "true\x1f" : "false\x1f");
	}
	for (const cJSON *c = v->child; c; c = c->next)
		flatten(c, out);
}

/* A signature of one replay for the nondeterminism check: the folded reply as decoded text,
 * and the set of paths with what changed about them except times. */
static char *signature(const char *reply, size_t len, const cJSON *effect, const char *const *roots)
{
	struct buf b = {0};
	cJSON *msg = cJSON_ParseWithLength(reply, len);
	cJSON *part = msg ? cJSON_GetObjectItemCaseSensitive(msg, "result") : NULL;
	if (!part && msg)
		part = cJSON_GetObjectItemCaseSensitive(msg, "error");
	if (part) {
		cJSON *f = equiv_fold(part, roots);
		/* canonical order first, then flatten the canonical form */
		struct buf canon = {0};
		cJSON *sorted = NULL;
		if (jcs_serialize(f, &canon) == 0)
			sorted = cJSON_ParseWithLength(canon.p, canon.len);
		flatten(sorted ? sorted : f, &b);
		cJSON_Delete(sorted);
		buf_free(&canon);
		cJSON_Delete(f);
	} else {
		buf_append(&b, reply, len);
	}
	cJSON_Delete(msg);
	for (const cJSON *it = effect ? effect->child : NULL; it; it = it->next) {
		const char *p = jx_str(it, "path"), *ch = jx_str(it, "change");
		buf_printf(&b, "\x1e%s %s", ch ? ch : "?", p ? p : "?");
		const cJSON *fields = cJSON_GetObjectItemCaseSensitive(it, "fields");
		for (const cJSON *f = fields ? fields->child : NULL; f; f = f->next)
			if (cJSON_IsString(f) && strcmp(f->valuestring, "mtime_ns"))
				buf_printf(&b, " %s", f->valuestring);
	}
	return buf_take(&b);
}

/* 1 if the recorded reply differs from a replay's signature only by later timestamps. */
static int record_clock_drift(const char *recorded, size_t rlen, const char *replay_sig, const char *const *roots)
{
	char *rec_sig = signature(recorded, rlen, NULL, roots);
	/* the replay signature may carry an effect suffix; compare the reply part only */
	const char *nl = strchr(replay_sig, '\x1e');
	char *rep = nl ? xstrndup(replay_sig, (size_t)(nl - replay_sig)) : xstrdup(replay_sig);
	const char *texts[2] = {rec_sig, rep};
	const char *axis = equiv_classify(texts, 2);
	int clock = axis && !strcmp(axis, "RESULT_NONDETERMINISTIC_CLOCK");
	free(rec_sig);
	free(rep);
	return clock;
}

static int under_scope(const char *path, const char *scope)
{
	if (!*scope)
		return 1;
	size_t n = strlen(scope);
	while (n && scope[n - 1] == '/')
		n--;
	return strncmp(path, scope, n) == 0 && (path[n] == '\0' || path[n] == '/');
}

/*==== judging ====*/

static void judge_effect(struct vctx *c, struct turn_verdict *v, const struct turn_input *in, const cJSON *effect)
{
	int listed;
	cJSON *ann = annotations_for(c, in->x->req_seq, in->x->tool, &listed);
	const cJSON *ro = ann ? cJSON_GetObjectItemCaseSensitive(ann, "readOnlyHint") : NULL;
	int changes = cJSON_GetArraySize(effect);
	if (!ro) {
		verdict_add(v, "A2", "effect", V_UNVERIFIED, "EFFECT_NOT_DECLARED", NULL, NULL,
			    "%s declares no readOnlyHint%s; an absent contract is not a permissive one (%d path(s) changed)",
			    in->x->tool ? in->x->tool : "the tool",
			    !listed ? " (no tools/list before the call)" : !ann ? " (not in the latest tools/list)" : "", changes);
	} else if (!cJSON_IsBool(ro)) {
		verdict_add(v, "A2", "effect", V_UNVERIFIED, "EFFECT_DECLARATION_NON_BOOLEAN", NULL, NULL,
			    "readOnlyHint is not a boolean");
	} else if (cJSON_IsFalse(ro)) {
		verdict_add(v, "A2", "effect", V_PASS, NULL, NULL, NULL,
			    "declared readOnlyHint: false, nothing to violate (%d path(s) changed)", changes);
	} else if (changes) {
		struct buf b = {0};
		int k = 0;
		for (const cJSON *it = effect->child; it && k < 8; it = it->next, k++)
			buf_printf(&b, "%s%s (%s)", k ? ", " : "", jx_str(it, "path") ? jx_str(it, "path") : "?",
				   jx_str(it, "change"));
		verdict_add(v, "A2", "effect", V_FAIL, NULL, cJSON_Duplicate(effect, 1), cJSON_CreateString("no change"),
			    "declared readOnlyHint: true but changed %d path(s): %s%s", changes, buf_cstr(&b),
			    changes > 8 ? ", ..." : "");
		buf_free(&b);
	} else {
		verdict_add(v, "A2", "effect", V_PASS, NULL, NULL, NULL, "declared readOnlyHint: true and changed nothing");
	}
	/* Network: the supervisor observed every attempt of the replay. */
	const cJSON *ow = ann ? cJSON_GetObjectItemCaseSensitive(ann, "openWorldHint") : NULL;
	if (cJSON_IsBool(ow)) {
		struct buf b = {0};
		int attempts = 0;
		for (const cJSON *o = v->denials ? v->denials->child : NULL; o; o = o->next) {
			const char *fam = jx_str(o, "family");
			if (fam && (!strcmp(fam, "inet") || !strcmp(fam, "inet6") || !strcmp(fam, "unix"))) {
				buf_printf(&b, "%s%s %s", attempts ? ", " : "", jx_str(o, "op"), jx_str(o, "address"));
				attempts++;
			}
		}
		if (cJSON_IsTrue(ow))
			verdict_add(v, "A2", "effect:network", V_PASS, NULL, NULL, NULL,
				    "declared openWorldHint: true (%d network attempt(s) observed)", attempts);
		else if (attempts)
			verdict_add(v, "A2", "effect:network", V_FAIL, NULL, NULL, NULL,
				    "declared openWorldHint: false but attempted %s", buf_cstr(&b));
		else
			verdict_add(v, "A2", "effect:network", V_PASS, NULL, NULL, NULL,
				    "declared openWorldHint: false and made no network attempt");
		buf_free(&b);
	}
	cJSON_Delete(ann);
}

/* A no-assertion-weakening check reads the post-state the first replay left in the scratch,
 * which a further replay (nondeterminism check) would overwrite: it runs right after the
 * first replay, and its verdict is added later with the others, in policy order. */
struct weak_pre {
	int ran;           /* wr holds a result */
	const char *cause; /* else: why the task's pre-state is unavailable */
	struct weakening_result wr;
};

static struct weak_pre *prejudge_weakening(struct vctx *c, struct worker *w, const cJSON *effect)
{
	struct weak_pre *pre = xcalloc(c->o->policy->n + 1, sizeof *pre);
	const char *task_root = NULL, *task_cause = NULL;
	int task_tried = 0;
	for (size_t i = 0; i < c->o->policy->n; i++) {
		const struct invariant *inv = &c->o->policy->inv[i];
		if (inv->rule != RULE_NO_WEAKENING)
			continue;
		if (!task_tried) {
			/* The task's first pre-state: restored once per worker, never replayed in. */
			task_tried = 1;
			const struct exchange *x0 = c->m.nturns ? &c->m.ex[c->m.turns[0]] : NULL;
			const struct trace_record *r0 = x0 ? frame_rec(c, x0->req_frame) : NULL;
			const char *st0 = r0 && r0->state_handle ? jx_str(r0->state_handle, "status") : NULL;
			const char *h0 = st0 && !strcmp(st0, "present") ? jx_str(r0->state_handle, "handle") : NULL;
			if (!h0)
				task_cause = "the first turn's pre-state was not captured";
			else
				task_root = scratch_task(&w->sc, w->st, h0, &task_cause);
		}
		if (!task_root) {
			pre[i].cause = task_cause;
			continue;
		}
		size_t n = 0;
		const char **changed = xcalloc((size_t)cJSON_GetArraySize(effect) + 1, sizeof *changed);
		for (const cJSON *it = effect->child; it; it = it->next)
			if (jx_str(it, "path"))
				changed[n++] = jx_str(it, "path");
		struct weakening_input wi = {task_root, w->sc.ws, changed, inv->scope};
		struct err e = {0};
		weakening_check(&wi, &pre[i].wr, &e);
		pre[i].ran = 1;
		free(changed);
	}
	return pre;
}

static void weak_pre_free(struct vctx *c, struct weak_pre *pre)
{
	if (!pre)
		return;
	for (size_t i = 0; i < c->o->policy->n; i++)
		if (pre[i].ran)
			weakening_result_free(&pre[i].wr);
	free(pre);
}

static void judge_invariants(struct vctx *c, struct turn_verdict *v, const cJSON *effect, struct weak_pre *pre)
{
	for (size_t i = 0; i < c->o->policy->n; i++) {
		const struct invariant *inv = &c->o->policy->inv[i];
		char *label = xasprintf("%s %s", rule_name(inv->rule), *inv->scope ? inv->scope : "(whole workspace)");
		if (inv->rule == RULE_READ_ONLY) {
			struct buf b = {0};
			int hits = 0;
			cJSON *paths = cJSON_CreateArray();
			for (const cJSON *it = effect->child; it; it = it->next) {
				const char *p = jx_str(it, "path");
				if (p && strcmp(p, ".") && under_scope(p, inv->scope)) {
					buf_printf(&b, "%s%s", hits ? ", " : "", p);
					cJSON_AddItemToArray(paths, cJSON_CreateString(p));
					hits++;
				}
			}
			struct subverdict *s;
			if (hits)
				s = verdict_add(v, "A1", "invariant", V_FAIL, NULL, paths, NULL, "%s: changed %s", label,
						buf_cstr(&b));
			else {
				cJSON_Delete(paths);
				s = verdict_add(v, "A1", "invariant", V_PASS, NULL, NULL, NULL, "%s: nothing under it changed",
						label);
			}
			s->rule = xstrdup(label);
			buf_free(&b);
		} else if (inv->rule == RULE_NO_WEAKENING) {
			struct subverdict *s;
			if (!pre[i].ran) {
				const char *why = pre[i].cause;
				if (!why)
					why = "the first turn's pre-state cannot be restored";
				s = verdict_add(v, "A1", "invariant", V_UNVERIFIED, "TASK_PRESTATE_UNAVAILABLE", NULL, NULL, "%s: %s",
						label, why);
			} else {
				struct weakening_result *wr = &pre[i].wr;
				enum vstatus ws = wr->status == 3 ? V_FAIL : wr->status == 2 ? V_UNVERIFIED : V_PASS;
				/* The rule's tree causes map onto verify's closed list. */
				if (!strcmp(wr->cause, "TASK_PRESTATE_TREE_MISSING"))
					snprintf(wr->cause, sizeof wr->cause, "TASK_PRESTATE_UNAVAILABLE");
				else if (!strcmp(wr->cause, "POST_STATE_TREE_MISSING") ||
					 !strcmp(wr->cause, "POST_STATE_NOT_OBSERVED"))
					snprintf(wr->cause, sizeof wr->cause, "PRESTATE_NOT_FOUND");
				cJSON *exposure = cJSON_CreateObject();
				cJSON_AddNumberToObject(exposure, "compared", wr->compared);
				cJSON_AddNumberToObject(exposure, "in_scope", wr->in_scope);
				cJSON *findings = wr->findings ? cJSON_Duplicate(wr->findings, 1) : NULL;
				const char *cause = ws == V_UNVERIFIED ? wr->cause : NULL;
				s = verdict_add(v, "A1", "invariant", ws, cause, findings, exposure, "%s: %s", label,
						wr->message ? wr->message : "");
			}
			s->rule = xstrdup(label);
		}
		free(label);
	}
}

static int reply_is_error(const char *reply, size_t len)
{
	cJSON *m = cJSON_ParseWithLength(reply, len);
	if (!m)
		return -1;
	int r = cJSON_GetObjectItemCaseSensitive(m, "error") ? 1
		: cJSON_IsTrue(jx_path(m, "result.isError")) ? 1
							     : 0;
	cJSON_Delete(m);
	return r;
}

static void verify_one(struct vctx *c, struct worker *w, size_t k)
{
	struct turn_verdict *v = &c->v[k];
	uint64_t t0 = time_mono_ns();
	const struct exchange *x = &c->m.ex[c->m.turns[k]];
	v->turn = (int)k;
	v->tool = x->tool ? xstrdup(x->tool) : NULL;
	v->denials = cJSON_CreateArray();
	c->is_error[k] = -1;
	const struct trace_record *req = frame_rec(c, x->req_frame);
	const cJSON *h = req ? req->state_handle : NULL;
	const char *status = h ? jx_str(h, "status") : NULL;
	struct err e = {0};
	struct weak_pre *pre = NULL;
	/* (A turn is a parsed tools/call, so its request frame is always readable.) */
	for (size_t i = 0; i < c->t->n; i++) {
		const struct trace_record *gr = &c->t->recs[i];
		const cJSON *rs = cJSON_GetObjectItemCaseSensitive(gr->obj, "request_seq");
		const char *outc = jx_str(gr->obj, "outcome");
		if (!strcmp(gr->kind, "gate_decision") && cJSON_IsNumber(rs) && (int64_t)rs->valuedouble == x->req_seq &&
		    outc && !strcmp(outc, "refused")) {
			verdict_unverified(v, "CALL_REFUSED_BY_GATE", "the gate refused this call (%s): it never reached the server",
					   jx_str(gr->obj, "decision") ? jx_str(gr->obj, "decision") : "?");
			goto done;
		}
		if (!strcmp(gr->kind, "approval") && cJSON_IsNumber(rs) && (int64_t)rs->valuedouble == x->req_seq &&
		    cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(gr->obj, "approved"))) {
			verdict_unverified(v, "CALL_REFUSED_BY_GATE", "refused in the console by %s: it never reached the server",
					   jx_str(gr->obj, "by") ? jx_str(gr->obj, "by") : "?");
			goto done;
		}
	}
	if (!status || !strcmp(status, "absent")) {
		verdict_unverified(v, "PRESTATE_ABSENT", "no pre-state was captured for this call (was it recorded with --scope?)");
		goto done;
	}
	if (!strcmp(status, "unrestorable")) {
		const char *cause = jx_str(h, "cause");
		const char *detail = jx_str(h, "detail");
		if (cause && vcause_known(cause))
			verdict_unverified(v, cause, "%s", detail ? detail : cause);
		else
			verdict_unverified(v, "PRESTATE_HANDLE_INVALID", "unrestorable handle with cause %s", cause ? cause : "(none)");
		goto done;
	}
	const char *handle = jx_str(h, "handle");
	if (strcmp(status, "present") || !handle) {
		verdict_unverified(v, "PRESTATE_HANDLE_INVALID", "state_handle status %s", status);
		goto done;
	}
	if (!c->argv) {
		verdict_unverified(v, "SERVER_COMMAND_UNKNOWN", "the trace has no server start record; pass -- SERVER");
		goto done;
	}
	if (!c->scope) {
		verdict_unverified(v, "PRESTATE_ABSENT", "the trace does not name the workspace it captured");
		goto done;
	}
	/* The server must learn the workspace from its argv or its cwd, or it cannot be moved. */
	int rooted = c->cwd && fs_is_under(c->cwd, c->scope);
	for (char **a = c->argv; *a && !rooted; a++)
		rooted = !strcmp(*a, "{workspace}") || strstr(*a, c->scope) != NULL;
	if (!rooted) {
		verdict_unverified(v, "RELOCATION_UNROOTABLE", "the server command names %s neither in its argv nor as its cwd",
				   c->scope);
		goto done;
	}
	if (!w->sc_open) {
		if (w->sc_err.msg[0] || scratch_open(&w->sc, &w->sc_err) != 0) {
			verdict_unverified(v, "REPLAY_SERVER_FAILED", "%s", w->sc_err.msg);
			goto done;
		}
		w->sc_open = 1;
	}
	struct scratch *sc = &w->sc;
	struct turn_input in = {.x = x, .handle = handle};
	struct replay_result rr;
	replay_once(c, w, &in, &rr, &v->ms_restore);
	v->ms_server += rr.ms_server;
	for (cJSON *o = rr.observed ? rr.observed->child : NULL; o; o = o->next)
		cJSON_AddItemToArray(v->denials, cJSON_Duplicate(o, 1));
	if (rr.cause) {
		verdict_unverified(v, rr.cause, "%s", rr.detail);
		replay_result_free(&rr);
		goto done;
	}
	v->replayed = 1;
	c->is_error[k] = reply_is_error(rr.reply, rr.reply_len);
	uint64_t te = time_mono_ns();
	cJSON *effect = effect_of(c, w, handle, &rr, &v->effect_via, &v->effect_full_why, &e);
	v->ms_effect += (double)(time_mono_ns() - te) / 1e6;
	if (!effect) {
		verdict_add(v, "A2", "effect", V_UNVERIFIED, "PRESTATE_NOT_FOUND", NULL, NULL,
			    "the pre-state cannot be compared with the replay: %s", e.msg);
	} else {
		v->effect = cJSON_Duplicate(effect, 1);
		/* the post-state is still there: read it now, before a further replay reuses it */
		if (!c->o->coverage_only)
			pre = prejudge_weakening(c, w, effect);
	}

	/* A2 replay: does the recorded result reproduce? */
	const char *roots[] = {c->scope, sc->ws, NULL};
	size_t rlen = 0;
	char *recorded = x->status == EX_ANSWERED || x->resp_seq >= 0
				 ? message_text(frame_rec(c, x->resp_frame), x->resp_item, &rlen)
				 : NULL;
	if (!recorded) {
		verdict_add(v, "A2", "replay", V_UNVERIFIED, "RESULT_NOT_RECORDED", NULL, NULL,
			    "the original call has no recorded response (%s)", ex_status_name(x->status));
	} else {
		cJSON *rec = NULL, *obs = NULL;
		enum equiv_outcome eq = equiv_compare(recorded, rlen, rr.reply, rr.reply_len, roots, &rec, &obs);
		if (eq == EQ_EQUAL) {
			verdict_add(v, "A2", "replay", V_PASS, NULL, NULL, NULL, "the recorded result reproduces");
			cJSON_Delete(rec);
			cJSON_Delete(obs);
		} else if (c->o->coverage_only) {
			verdict_add(v, "A2", "replay", V_FAIL, NULL, obs, rec, "the result differs from the record (one replay)");
		} else if (rr.network_refused) {
			verdict_add(v, "A2", "replay", V_UNVERIFIED, "REPLAY_NETWORK_REFUSED", rec, obs,
				    "the result differs and the replay was refused the network it asked for");
		} else {
			/* Diverged: replay again to tell a lie from nondeterminism. */
			int n = c->o->replays < 3 ? 3 : c->o->replays;
			char **texts = xcalloc((size_t)n + 1, sizeof *texts);
			texts[0] = signature(rr.reply, rr.reply_len, effect, roots);
			const char *fail_cause = NULL;
			char fail_detail[600] = "";
			int got = 1;
			for (int i = 0; i < n && !fail_cause; i++) {
				/* The same pre-state again: the scratch undoes the last replay's changes. */
				struct replay_result r2;
				replay_once(c, w, &in, &r2, &v->ms_restore);
				v->ms_server += r2.ms_server;
				if (r2.cause) {
					fail_cause = r2.cause;
					snprintf(fail_detail, sizeof fail_detail, "%s", r2.detail);
				} else {
					const char *via2, *why2;
					te = time_mono_ns();
					cJSON *eff2 = effect_of(c, w, handle, &r2, &via2, &why2, &e);
					v->ms_effect += (double)(time_mono_ns() - te) / 1e6;
					texts[got++] = signature(r2.reply, r2.reply_len, eff2, roots);
					cJSON_Delete(eff2);
				}
				replay_result_free(&r2);
			}
			const char *axis = fail_cause ? NULL : equiv_classify((const char *const *)texts, (size_t)got);
			if (fail_cause) {
				verdict_add(v, "A2", "replay", V_UNVERIFIED, fail_cause, rec, obs,
					    "the result differs and a further replay failed: %s", fail_detail);
			} else if (!axis && record_clock_drift(recorded, rlen, texts[0], roots)) {
				/* The replays agree, and differ from the record only in times that moved
				 * forward since it was made: a clock, not a different result. */
				verdict_add(v, "A2", "replay", V_UNVERIFIED, "RESULT_NONDETERMINISTIC_CLOCK", rec, obs,
					    "the result differs from the record only in timestamps later than it (%d replays)",
					    got);
			} else if (!axis) {
				verdict_add(v, "A2", "replay", V_FAIL, NULL, obs, rec,
					    "the result does not reproduce: %d replays agree with each other, not with the record",
					    got);
			} else {
				verdict_add(v, "A2", "replay", V_UNVERIFIED, axis, rec, obs,
					    "the result varies across %d replays (%s)", got, axis);
			}
			for (int i = 0; i < got; i++)
				free(texts[i]);
			free(texts);
		}
		free(recorded);
	}
	if (effect && !c->o->coverage_only) {
		judge_effect(c, v, &in, effect);
		judge_invariants(c, v, effect, pre);
	}
	/* Things worth a look that do not change what was judged. */
	if (rr.protocol_version && c->recorded_protocol && strcmp(rr.protocol_version, c->recorded_protocol))
		verdict_add(v, "A2", "replay", V_WARN, "PROTOCOL_VERSION_DRIFT", NULL, NULL,
			    "recorded protocol %s, replayed %s", c->recorded_protocol, rr.protocol_version);
	int denied = 0;
	for (const cJSON *o = rr.observed ? rr.observed->child : NULL; o; o = o->next)
		denied += !strcmp(jx_str(o, "kind"), "denial");
	if (denied)
		verdict_add(v, "A2", "replay", V_WARN, "REPLAY_DENIALS", NULL, NULL,
			    "the sandbox refused %d operation(s) during the replay", denied);
	cJSON_Delete(effect);
	replay_result_free(&rr);
done:
	weak_pre_free(c, pre);
	if (!v->replayed) {
		/* A network claim that could not be checked is named as such, never passed. */
		int listed;
		cJSON *ann = annotations_for(c, x->req_seq, x->tool, &listed);
		if (ann && cJSON_IsBool(cJSON_GetObjectItemCaseSensitive(ann, "openWorldHint")))
			verdict_add(v, "A2", "effect:network", V_NOT_COVERED, "NETWORK_NOT_OBSERVED", NULL, NULL,
				    "the call was not re-executed, so its openWorldHint was not checked against its network use");
		cJSON_Delete(ann);
	}
	verdict_reduce(v);
	v->ms_total = (double)(time_mono_ns() - t0) / 1e6;
	if (c->o->progress) {
		pthread_mutex_lock(&c->mu);
		c->o->progress(c->o->ctx, v);
		pthread_mutex_unlock(&c->mu);
	}
}

/* Whether turn k is one the caller asked for. */
static int verify_wants(const struct verify_opts *o, size_t k)
{
	if (o->turn >= 0)
		return (int)k == o->turn;
	return o->turn_from <= 0 || (int)k >= o->turn_from;
}

static void *worker(void *arg)
{
	struct vctx *c = arg;
	struct worker w = {0};
	struct err e = {0};
	int store_ok = snap_store_open(c->state_dir, NULL, &w.st, &e) == 0;
	for (;;) {
		int k = atomic_fetch_add(&c->next, 1);
		if ((size_t)k >= c->m.nturns)
			break;
		if (!verify_wants(c->o, (size_t)k))
			continue;
		if (!store_ok) {
			struct turn_verdict *v = &c->v[k];
			v->turn = k;
			v->denials = cJSON_CreateArray();
			verdict_unverified(v, "PRESTATE_NOT_FOUND", "cannot open the snapshot store: %s", e.msg);
			verdict_reduce(v);
			continue;
		}
		verify_one(c, &w, (size_t)k);
	}
	if (w.sc_open) {
		pthread_mutex_lock(&c->mu);
		c->full_restores += w.sc.full_restores;
		c->partial_restores += w.sc.partial_restores;
		pthread_mutex_unlock(&c->mu);
		scratch_close(&w.sc);
	}
	snap_store_close(w.st);
	return NULL;
}

/*==== the whole trace ====*/

static int classify_claim(const char *text)
{
	/* Verification claims: "tests pass", "all tests passed", "suite is green", "verified"... */
	static const char *const shapes[] = {"tests pass", "test pass", "tests passed", "tests are passing", "all tests pass",
					     "suite passes", "suite is green", "tests are green", "is fixed", "fix works",
					     "verified", "passing now", NULL};
	char *low = xstrdup(text);
	for (char *p = low; *p; p++)
		*p = (char)tolower((unsigned char)*p);
	int hit = 0;
	for (const char *const *s = shapes; *s && !hit; s++)
		hit = strstr(low, *s) != NULL;
	free(low);
	return hit;
}

static void judge_trajectory(struct vctx *c, struct verify_report *out)
{
	const struct invariant *inv = NULL;
	for (size_t i = 0; i < c->o->policy->n; i++)
		if (c->o->policy->inv[i].rule == RULE_SUITE_BEFORE_CLAIM)
			inv = &c->o->policy->inv[i];
	if (!inv)
		return;
	const cJSON *claim = NULL;
	int64_t claim_seq = -1;
	for (size_t i = 0; i < c->t->nskips; i++) {
		const char *kind = jx_str(c->t->skips[i].record, "kind");
		if (kind && !strcmp(kind, "claim")) {
			claim = c->t->skips[i].record;
			claim_seq = c->t->skips[i].seq;
		}
	}
	if (!claim)
		return; /* no success claim: the rule has nothing to check (reported, not judged) */
	struct turn_verdict *v = &out->trajectory;
	out->has_trajectory = 1;
	v->turn = -1;
	v->tool = xstrdup("(whole run)");
	const char *text = jx_str(claim, "text");
	if (!text || !classify_claim(text)) {
		verdict_add(v, "A1", "trajectory", V_UNVERIFIED, "CLAIM_UNCLASSIFIABLE", NULL, NULL,
			    "suite-before-success-claim: the claim \"%s\" does not say the suite passed", text ? text : "");
		verdict_reduce(v);
		return;
	}
	int runs = 0, replayed = 0, passed = 0;
	for (size_t k = 0; k < c->m.nturns; k++) {
		const struct exchange *x = &c->m.ex[c->m.turns[k]];
		if (x->req_seq >= claim_seq || !policy_is_suite_tool(inv, x->tool))
			continue;
		runs++;
		if (c->is_error[k] >= 0) {
			replayed++;
			passed += c->is_error[k] == 0;
		}
	}
	if (runs == 0)
		verdict_add(v, "A1", "trajectory", V_FAIL, NULL, NULL, NULL,
			    "suite-before-success-claim: success was claimed but no suite run came before it");
	else if (replayed == 0)
		verdict_add(v, "A1", "trajectory", V_UNVERIFIED, "EVIDENCE_UNOBSERVABLE", NULL, NULL,
			    "suite-before-success-claim: %d suite run(s) before the claim, none could be replayed", runs);
	else if (passed)
		verdict_add(v, "A1", "trajectory", V_PASS, NULL, NULL, NULL,
			    "suite-before-success-claim: %d of %d replayed suite run(s) before the claim passed", passed, replayed);
	else
		verdict_add(v, "A1", "trajectory", V_FAIL, NULL, NULL, NULL,
			    "suite-before-success-claim: every replayed suite run before the claim failed (%d)", replayed);
	verdict_reduce(v);
}

/* Turns whose pre-state was shared with calls declared read-only: if one of those wrote,
 * the shared pre-state was not the pre-state, and the turn cannot be judged. */
static void check_dependencies(struct vctx *c)
{
	for (size_t k = 0; k < c->m.nturns; k++) {
		struct turn_verdict *v = &c->v[k];
		const struct exchange *x = &c->m.ex[c->m.turns[k]];
		const struct trace_record *req = frame_rec(c, x->req_frame);
		const cJSON *deps = req && req->state_handle ? cJSON_GetObjectItemCaseSensitive(req->state_handle, "depends_on_read_only") : NULL;
		if (!cJSON_IsArray(deps) || !v->nsubs)
			continue;
		for (const cJSON *d = deps->child; d; d = d->next) {
			for (size_t j = 0; j < c->m.nturns; j++) {
				const struct exchange *y = &c->m.ex[c->m.turns[j]];
				if (y->req_seq != (int64_t)d->valuedouble)
					continue;
				const struct turn_verdict *w = &c->v[j];
				int wrote = w->effect && cJSON_GetArraySize(w->effect) > 0;
				int unknown = !w->replayed;
				if (wrote || unknown) {
					verdict_add(v, "A2", "replay", V_UNVERIFIED, "PRESTATE_DEPENDENCY_BROKEN", NULL, NULL,
						    "this call's pre-state was shared with turn %zu, declared read-only, which %s", j,
						    wrote ? "changed the workspace" : "could not be re-executed to check");
					verdict_reduce(v);
				}
			}
		}
	}
}

static char **argv_from_json(const cJSON *a)
{
	int n = cJSON_GetArraySize(a);
	if (n <= 0)
		return NULL;
	char **argv = xcalloc((size_t)n + 1, sizeof *argv);
	int i = 0;
	for (const cJSON *x = a->child; x; x = x->next) {
		struct buf b = {0};
		if (jx_bytes_decode(x, &b) != 0) {
			buf_free(&b);
			for (int j = 0; j < i; j++)
				free(argv[j]);
			free(argv);
			return NULL;
		}
		argv[i++] = buf_take(&b);
	}
	return argv;
}

int verify_trace(const char *trace_path, const struct verify_opts *o, struct verify_report *out, struct err *e)
{
	memset(out, 0, sizeof *out);
	struct vctx c = {.o = o};
	int rc = trace_read(trace_path, &c.t, e);
	if (rc)
		return rc;
	model_init(&c.m);
	trace_build_model(c.t, &c.m);
	if (o->turn < 0 && o->turn_from > 0 && (size_t)o->turn_from >= c.m.nturns) {
		rc = err_set(e, BELAY_EUSAGE, "turn %d does not exist (the trace has %zu tools/call turn(s))", o->turn_from,
			     c.m.nturns);
		goto out;
	}
	if (o->turn >= 0 && (size_t)o->turn >= c.m.nturns) {
		rc = err_set(e, BELAY_EUSAGE, "turn %d does not exist (the trace has %zu tools/call turn(s))", o->turn, c.m.nturns);
		goto out;
	}
	const cJSON *start = trace_server_start(c.t);
	if (o->server_override) {
		size_t n = 0;
		while (o->server_override[n])
			n++;
		c.argv = xcalloc(n + 1, sizeof *c.argv);
		for (size_t i = 0; i < n; i++)
			c.argv[i] = xstrdup(o->server_override[i]);
	} else if (start) {
		c.argv = argv_from_json(cJSON_GetObjectItemCaseSensitive(start, "argv"));
	}
	if (start) {
		struct buf b = {0};
		if (jx_bytes_decode(cJSON_GetObjectItemCaseSensitive(start, "cwd"), &b) == 0)
			c.cwd = buf_take(&b);
		buf_free(&b);
		const char *sd = jx_str(start, "state_dir");
		if (sd)
			c.state_dir = xstrdup(sd);
	}
	for (size_t i = 0; i < c.t->n; i++)
		if (!strcmp(c.t->recs[i].kind, "sandbox") && jx_str(c.t->recs[i].obj, "scope"))
			c.scope = xstrdup(jx_str(c.t->recs[i].obj, "scope"));
	if (o->state_dir) {
		free(c.state_dir);
		c.state_dir = xstrdup(o->state_dir);
	}
	if (!c.state_dir)
		c.state_dir = xstrdup(".");
	for (size_t i = 0; i < c.m.nex && !c.recorded_protocol; i++) {
		const struct exchange *x = &c.m.ex[i];
		if (x->origin == DIR_C2S && x->method && !strcmp(x->method, "initialize") && x->resp_seq >= 0) {
			size_t len;
			char *t = message_text(frame_rec(&c, x->resp_frame), x->resp_item, &len);
			cJSON *m = t ? cJSON_ParseWithLength(t, len) : NULL;
			const cJSON *pv = m ? jx_path(m, "result.protocolVersion") : NULL;
			if (cJSON_IsString(pv))
				c.recorded_protocol = xstrdup(pv->valuestring);
			cJSON_Delete(m);
			free(t);
		}
	}
	c.v = xcalloc(c.m.nturns + 1, sizeof *c.v);
	c.is_error = xcalloc(c.m.nturns + 1, sizeof *c.is_error);
	pthread_mutex_init(&c.mu, NULL);
	int jobs = o->jobs < 1 ? 1 : o->jobs;
	pthread_t *th = xcalloc((size_t)jobs, sizeof *th);
	for (int i = 0; i < jobs; i++)
		pthread_create(&th[i], NULL, worker, &c);
	for (int i = 0; i < jobs; i++)
		pthread_join(th[i], NULL);
	free(th);
	pthread_mutex_destroy(&c.mu);
	check_dependencies(&c);
	out->total_turns = c.m.nturns;
	out->full_restores = c.full_restores;
	out->partial_restores = c.partial_restores;
	out->scratch_mismatches = atomic_load(&c.scratch_mismatches);
	out->worst = V_PASS;
	for (size_t k = 0; k < c.m.nturns; k++) {
		if (!verify_wants(o, k)) {
			verdict_free(&c.v[k]);
			continue;
		}
		out->turns = xrealloc(out->turns, (out->n + 1) * sizeof *out->turns);
		out->turns[out->n++] = c.v[k];
		if (c.v[k].status > out->worst)
			out->worst = c.v[k].status;
	}
	if (o->turn < 0 && o->turn_from <= 0) {
		judge_trajectory(&c, out);
		if (out->has_trajectory && out->trajectory.status > out->worst)
			out->worst = out->trajectory.status;
	}
	free(c.v);
	free(c.is_error);
out:
	for (char **a = c.argv; a && *a; a++)
		free(*a);
	free(c.argv);
	free(c.cwd);
	free(c.scope);
	free(c.state_dir);
	free(c.recorded_protocol);
	model_free(&c.m);
	trace_free(c.t);
	return rc;
}

void verify_report_free(struct verify_report *r)
{
	for (size_t i = 0; i < r->n; i++)
		verdict_free(&r->turns[i]);
	free(r->turns);
	if (r->has_trajectory)
		verdict_free(&r->trajectory);
	memset(r, 0, sizeof *r);
}
