/* effect.c - what a replay did to its scratch workspace, and a replay's signature for the
 * nondeterminism check. See verify_internal.h. */
#include <stdlib.h>
#include <string.h>

#include "common/buf.h"
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

