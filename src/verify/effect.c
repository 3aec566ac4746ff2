/* effect.c - what a replay did to its scratch workspace, and a replay's signature for the
 * nondeterminism check. See verify_internal.h. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "common/buf.h"
#include "common/fsutil.h"
#include "common/hash.h"
#include "common/jcs.h"
#include "common/jsonx.h"
#include "common/xalloc.h"
#include "verify/equiv.h"
#include "verify/verify_internal.h"

/* check_scratch: 1 when the scratch hashes as the pre-state does (recomputed from its
 * manifest, so a wrong recorded hash cannot hide a wrong scratch). */
int effect_scratch_matches(struct worker *w, const char *handle)
{
	char have[SNAP_TREE_HASH_LEN], want[SNAP_TREE_HASH_LEN];
	struct err e = {0};
	return snap_tree_hash_dir(w->sc.ws, have, &e) == 0 && snap_tree_hash_handle(w->st, handle, want, &e) == 0 &&
	       !strcmp(have, want);
}

/* The effect of a replay: every path the call changed, added or removed, relative to the
 * pre-state `handle`. From the dirty set (the supervisor's write intents and inotify's
 * events, restricted diff) unless the options or the replay say that set cannot be trusted:
 * then from the full diff (*why_full says why). Records the effect in the scratch so the
 * next prepare undoes it. NULL (scratch invalidated) when neither diff could be made. */
cJSON *effect_of(struct vctx *c, struct worker *w, const char *handle, const struct replay_result *rr, int live,
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
	else if (!live && !rr->contained_gone)
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
	if (!live && !rr->contained_gone)
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
char *effect_signature(const char *reply, size_t len, const cJSON *effect, const struct fold_root *roots)
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
int effect_clock_drift(const char *recorded, size_t rlen, const char *replay_sig, const struct fold_root *roots)
{
	char *rec_sig = effect_signature(recorded, rlen, NULL, roots);
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


/* The present pre-state handle of turn k, or NULL. */
static const char *present_handle(const struct vctx *c, size_t k)
{
	const struct exchange *x = &c->m.ex[c->m.turns[k]];
	const struct trace_record *r = plan_frame_rec(c, x->req_frame);
	const cJSON *h = r ? r->state_handle : NULL;
	const char *st = h ? jx_str(h, "status") : NULL;
	return st && !strcmp(st, "present") ? jx_str(h, "handle") : NULL;
}

#define CLOCK_TEXT_MAX ((size_t)1 << 20) /* larger files are compared by hash only */

static int in_list(const cJSON *paths, const char *p)
{
	for (const cJSON *it = paths ? paths->child : NULL; it; it = it->next)
		if (cJSON_IsString(it) && !strcmp(it->valuestring, p))
			return 1;
	return 0;
}

/* 1 when the recorded post-state's file `rec_path` (in `next`) and the replay's file
 * `rep_path` hold the same text but for clock readings that moved forward since the
 * recording (a writer that stamps the time), or the same bytes when `equal_too`: both read as
 * text, classified as replies are (equiv.h). */
static int clock_only(struct worker *w, const char *next, const char *rec_path, const char *rep_path, int equal_too)
{
	struct buf rec = {0}, rep = {0};
	struct err e = {0};
	char *at = xasprintf("%s/%s", w->sc.ws, rep_path);
	int clock = 0;
	if (snap_read_file(w->st, next, rec_path, &rec, &e) == 0 && fs_read_file(at, CLOCK_TEXT_MAX, &rep, &e) == 0 &&
	    rec.len <= CLOCK_TEXT_MAX) {
		if (rec.len == rep.len && (!rec.len || !memcmp(rec.p, rep.p, rec.len))) {
			clock = equal_too;
		} else if (!memchr(rec.p ? rec.p : "", 0, rec.len) && !memchr(rep.p ? rep.p : "", 0, rep.len)) {
			const char *texts[2] = {buf_cstr(&rec), buf_cstr(&rep)};
			const char *axis = equiv_classify(texts, 2);
			clock = axis && !strcmp(axis, "RESULT_NONDETERMINISTIC_CLOCK");
		}
	}
	free(at);
	buf_free(&rec);
	buf_free(&rep);
	return clock;
}

/* 1 when two paths differ only in a clock reading that moved forward (rec first). */
static int path_clock_only(const char *rec, const char *rep)
{
	const char *texts[2] = {rec, rep};
	const char *axis = equiv_classify(texts, 2);
	return axis && !strcmp(axis, "RESULT_NONDETERMINISTIC_CLOCK");
}

/* Pairs each file only the recording has with one only the replay has when their names and
 * contents differ only in later clock readings (a log or backup named by the time):
 * pair[i] = the index of i's partner, else SIZE_MAX. */
static void pair_clock_names(struct worker *w, const char *next, const struct snap_diff *d, const cJSON *opaths,
			     size_t *pair)
{
	for (size_t i = 0; i < d->n; i++)
		pair[i] = SIZE_MAX;
	for (size_t i = 0; i < d->n; i++) {
		if (d->items[i].kind != SNAP_DIFF_REMOVED || in_list(opaths, d->items[i].path))
			continue;
		for (size_t j = 0; j < d->n; j++)
			if (d->items[j].kind == SNAP_DIFF_ADDED && pair[j] == SIZE_MAX && !in_list(opaths, d->items[j].path) &&
			    path_clock_only(d->items[i].path, d->items[j].path) &&
			    clock_only(w, next, d->items[i].path, d->items[j].path, 1)) {
				pair[i] = j;
				pair[j] = i;
				break;
			}
	}
}

enum effect_rec effect_vs_record(struct vctx *c, struct worker *w, size_t k, const char *handle, const cJSON *effect,
				 char *why, size_t n)
{
	const struct exchange *x = &c->m.ex[c->m.turns[k]];
	if (k + 1 >= c->m.nturns) {
		snprintf(why, n, "no later pre-state was recorded (the session's last call)");
		return EFFECT_REC_UNKNOWN;
	}
	const struct exchange *y = &c->m.ex[c->m.turns[k + 1]];
	const char *next = present_handle(c, k + 1);
	if (!next) {
		snprintf(why, n, "the next call has no pre-state");
		return EFFECT_REC_UNKNOWN;
	}
	/* Only a call that ran alone: answered before the next began, every earlier one too. */
	int alone = x->resp_seq >= 0 && x->resp_seq < y->req_seq;
	for (size_t j = 0; j < k && alone; j++) {
		const struct exchange *z = &c->m.ex[c->m.turns[j]];
		alone = z->resp_seq >= 0 && z->resp_seq < x->req_seq;
	}
	if (!alone) {
		snprintf(why, n, "the call overlapped another, so the next pre-state is not its own effect");
		return EFFECT_REC_UNKNOWN;
	}
	const struct trace_record *r = plan_frame_rec(c, y->req_frame);
	const cJSON *oc = r ? cJSON_GetObjectItemCaseSensitive(r->state_handle, "outside_changes") : NULL;
	const cJSON *opaths = oc ? cJSON_GetObjectItemCaseSensitive(oc, "paths") : NULL;
	if ((r && cJSON_GetObjectItemCaseSensitive(r->state_handle, "outside_detection")) ||
	    (oc && cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(oc, "count")) > cJSON_GetArraySize(opaths))) {
		snprintf(why, n, "changes made outside the sandbox before the next call are not all named");
		return EFFECT_REC_UNKNOWN;
	}
	/* The paths either side changed: the replay's effect and the recorded delta. */
	struct snap_paths ps = {0};
	struct snap_diff d = {0};
	struct err e = {0};
	int whole = 0, incomplete = 0;
	if (snap_delta(w->st, handle, next, &ps, &whole, &e) != 0) {
		snprintf(why, n, "the recorded delta cannot be read: %s", e.msg);
		snap_paths_free(&ps);
		return EFFECT_REC_UNKNOWN;
	}
	for (const cJSON *it = effect ? effect->child : NULL; it; it = it->next) {
		struct buf b = {0};
		if (jx_bytes_decode(cJSON_GetObjectItemCaseSensitive(it, "path"), &b) == 0)
			snap_paths_add(&ps, b.p ? b.p : "", b.len, 0);
		buf_free(&b);
	}
	snap_paths_sort(&ps);
	int rc = snap_diff_handle_paths(w->st, next, w->sc.ws, &ps, &d, &incomplete, &e);
	snap_paths_free(&ps);
	if (rc != 0 || incomplete) {
		snprintf(why, n, "the replay's post-state cannot be compared with the next pre-state%s%s", rc ? ": " : "",
			 rc ? e.msg : " (hard links)");
		if (rc == 0)
			snap_diff_free(&d);
		return EFFECT_REC_UNKNOWN;
	}
	/* What differs between the recorded post-state and the replay's, but times and what
	 * someone outside the sandbox changed. */
	struct buf b = {0}, clocked = {0};
	int diffs = 0, nclock = 0;
	size_t *pair = xcalloc(d.n ? d.n : 1, sizeof *pair);
	pair_clock_names(w, next, &d, opaths, pair);
	for (size_t i = 0; i < d.n; i++) {
		const struct snap_diff_item *it = &d.items[i];
		if (in_list(opaths, it->path))
			continue;
		if (pair[i] != SIZE_MAX) {
			if (it->kind == SNAP_DIFF_REMOVED) {
				if (nclock < 8)
					buf_printf(&clocked, "%s%s (the replay's %s)", nclock ? ", " : "", it->path,
						   d.items[pair[i]].path);
				nclock++;
			}
			continue;
		}
		int real = it->kind != SNAP_DIFF_CHANGED, content = 0;
		for (size_t f = 0; f < it->nfields && !real; f++) {
			if (!strcmp(it->fields[f], "size") || !strcmp(it->fields[f], "content"))
				content = 1;
			else
				real = strcmp(it->fields[f], "mtime_ns") != 0;
		}
		if (!real && !content)
			continue;
		if (!real && clock_only(w, next, it->path, it->path, 0)) {
			if (nclock < 8)
				buf_printf(&clocked, "%s%s", nclock ? ", " : "", it->path);
			nclock++;
			continue;
		}
		if (diffs < 8) {
			buf_printf(&b, "%s%s (", diffs ? ", " : "", it->path);
			if (it->kind == SNAP_DIFF_ADDED)
				buf_puts(&b, "only the replay has it)");
			else if (it->kind == SNAP_DIFF_REMOVED)
				buf_puts(&b, "only the recording has it)");
			else {
				for (size_t f = 0, m = 0; f < it->nfields; f++)
					if (strcmp(it->fields[f], "mtime_ns"))
						buf_printf(&b, "%s%s", m++ ? " " : "", it->fields[f]);
				buf_puts(&b, " differs)");
			}
		}
		diffs++;
	}
	free(pair);
	snap_diff_free(&d);
	if (diffs) {
		snprintf(why, n, "%s%s", buf_cstr(&b), diffs > 8 ? ", ..." : "");
		buf_free(&b);
		buf_free(&clocked);
		return EFFECT_REC_DIFFERS;
	}
	buf_free(&b);
	if (nclock) {
		snprintf(why, n, "what the recording wrote, but for clock readings later than the recording's in the "
			 "content or name of %s%s",
			 buf_cstr(&clocked), nclock > 8 ? ", ..." : "");
		buf_free(&clocked);
		return EFFECT_REC_CLOCK;
	}
	buf_free(&clocked);
	snprintf(why, n, "the same as the recording");
	return EFFECT_REC_SAME;
}

cJSON *effect_digests(const char *ws, const cJSON *effect)
{
	cJSON *out = cJSON_CreateObject();
	for (const cJSON *it = effect ? effect->child : NULL; it; it = it->next) {
		struct buf rel = {0}, data = {0};
		if (jx_bytes_decode(cJSON_GetObjectItemCaseSensitive(it, "path"), &rel) != 0 || !rel.len ||
		    memchr(rel.p, '\0', rel.len)) {
			buf_free(&rel);
			continue;
		}
		char *rels = buf_take(&rel);
		char *abs = fs_join(ws, rels);
		struct stat sb;
		struct err e = {0};
		if (lstat(abs, &sb) == 0 && S_ISREG(sb.st_mode) && fs_read_file(abs, (size_t)64 << 20, &data, &e) == 0) {
			char h[72];
			sha256_tagged(data.p ? data.p : "", data.len, h);
			cJSON_AddStringToObject(out, rels, h);
		} else {
			cJSON_AddNullToObject(out, rels);
		}
		buf_free(&data);
		free(abs);
		free(rels);
	}
	return out;
}

int effect_digests_differ(const cJSON *a, const cJSON *b)
{
	for (const cJSON *x = a ? a->child : NULL; x; x = x->next) {
		const cJSON *y = b ? cJSON_GetObjectItemCaseSensitive(b, x->string) : NULL;
		if (cJSON_IsString(x) && cJSON_IsString(y) && strcmp(x->valuestring, y->valuestring))
			return 1;
	}
	return 0;
}
