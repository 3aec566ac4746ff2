/* detail.c - loads and renders the turn detail's tabs (see detail.h).
 *
 * Must not: write anything; fail the whole view because one part is unreadable (each tab
 * says what it could not read and why). */
#include "tui/detail.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "common/buf.h"
#include "common/fsutil.h"
#include "common/jsonx.h"
#include "common/xalloc.h"
#include "snapshot/snapshot.h"
#include "tui/argdiff.h"
#include "tui/glyphs.h"
#include "tui/look.h"
#include "tui/runv.h"
#include "tui/diffview.h"
#include "tui/trialdoc.h"


static const char *tab_names[TAB_COUNT] = {"request", "response", "diff", "denials", "snapshot", "raw"};
static const char *tab_titles[TAB_COUNT] = {"Request", "Response", "Effect diff", "Denials", "Snapshot", "Raw frames"};

const char *dtab_name(enum dtab t)
{
	return tab_names[t];
}

const char *dtab_title(enum dtab t)
{
	return tab_titles[t];
}

int dtab_parse(const char *s)
{
	for (int i = 0; i < TAB_COUNT; i++)
		if (!strcasecmp(s, tab_names[i]))
			return i;
	return -1;
}

void detail_free(struct detail *d)
{
	free(d->run);
	cJSON_Delete(d->req);
	cJSON_Delete(d->resp);
	cJSON_Delete(d->sent[0]);
	cJSON_Delete(d->sent[1]);
	cJSON_Delete(d->verdict);
	cJSON_Delete(d->recheck);
	cJSON_Delete(d->runv);
	jfold_free(&d->fold[0]);
	jfold_free(&d->fold[1]);
	tdoc_free(&d->head);
	for (int i = 0; i < TAB_COUNT; i++)
		tdoc_free(&d->tab[i]);
	memset(d, 0, sizeof *d);
}

static void reset(struct detail *d)
{
	detail_free(d);
	tdoc_init(&d->head);
	for (int i = 0; i < TAB_COUNT; i++)
		tdoc_init(&d->tab[i]);
}

/*==== the verdict summary ====*/

/* A sub-verdict's label: its check ("replay"), qualified when the verdict has more than one
 * row of that axis and check (A2 replay says whether the result reproduces, and whether the
 * sandbox refused anything while it ran): by its cause less the check's own prefix
 * ("replay: denials" for REPLAY_DENIALS), "result" when it has none. */
static void sub_label(const cJSON *subs, const cJSON *s, char *out, size_t n)
{
	const char *axis = jx_str(s, "axis"), *kind = jx_str(s, "kind");
	snprintf(out, n, "%s", kind ? kind : "?");
	int same = 0;
	for (const cJSON *o = subs->child; o && kind; o = o->next) {
		const char *oa = jx_str(o, "axis"), *ok = jx_str(o, "kind");
		same += ok && !strcmp(ok, kind) && ((!oa && !axis) || (oa && axis && !strcmp(oa, axis)));
	}
	if (same < 2)
		return;
	const char *cause = jx_str(s, "cause");
	char q[48] = "result";
	if (cause) {
		size_t kl = strlen(kind);
		if (!strncasecmp(cause, kind, kl) && cause[kl] == '_')
			cause += kl + 1;
		snprintf(q, sizeof q, "%s", cause);
		for (char *p = q; *p; p++)
			*p = *p == '_' ? ' ' : (char)tolower((unsigned char)*p);
	}
	snprintf(out, n, "%s: %s", kind, q);
}

static void verdict_line(struct tdoc *h, enum cm_v v, const char *label)
{
	tdoc_add(h, ROLE_DIM, label);
	tdoc_addf(h, look_v_role(v), "%s %s", look_v_glyph(v), look_v_word(v));
}

void detail_render_head(struct detail *d, const struct cm_turn *t)
{
	struct tdoc *h = &d->head;
	tdoc_clear(h);
	if (!t)
		return;
	if (t->hold) {
		tdoc_nl(h);
		tdoc_addf(h, ROLE_GATE_HELD, "%s HELD: y lets it run once, x refuses it; nothing moves until then", glyph(G_HELD));
	}
	tdoc_nl(h);
	tdoc_add(h, ROLE_DIM, "verdict ");
	tdoc_addf(h, look_v_role(t->v), "%s %s", look_v_glyph(t->v), t->v == CMV_NONE ? "not verified" : look_v_word(t->v));
	if (t->cause[0])
		tdoc_addf(h, look_v_role(t->v), " %s", t->cause);
	if (t->v != CMV_NONE) {
		verdict_line(h, t->a1, "   A1 ");
		verdict_line(h, t->a2, "   A2 ");
	}
	if (t->verifying || t->provisional)
		tdoc_addf(h, ROLE_V_PENDING, "  %s verifying", glyph(G_VERIFYING));
	if (t->label[0] && t->label_miss)
		tdoc_addf(h, ROLE_LABEL, "  [missed: true-positive --miss]");
	else if (t->label[0])
		tdoc_addf(h, ROLE_LABEL, "  [%s]", t->label);
	if (t->v != CMV_NONE) {
		/* What the two axes are, one line each (docs/VERDICTS.md). */
		tdoc_nl(h);
		tdoc_add(h, ROLE_DIM, "  A1 = the invariants of your policy (e.g. no test assertion weakened)");
		tdoc_nl(h);
		tdoc_add(h, ROLE_DIM, "  A2 = a replay of the call agrees with its record and its declarations");
	}
	const cJSON *subs = d->verdict ? cJSON_GetObjectItemCaseSensitive(d->verdict, "verdicts") : NULL;
	/* The worst rows first (FAIL, UNVERIFIED, WARN, NOT_COVERED, PASS), each rank in the
	 * verdict's order: a FAIL is never below the fold. */
	static const enum cm_v rank[] = {CMV_FAIL, CMV_UNVERIFIED, CMV_WARN, CMV_NOT_COVERED, CMV_PASS, CMV_NONE};
	size_t nsubs = cJSON_IsArray(subs) ? (size_t)cJSON_GetArraySize(subs) : 0;
	for (size_t k = 0; k < nsubs * (sizeof rank / sizeof *rank); k++) {
		const cJSON *s = cJSON_GetArrayItem(subs, (int)(k % nsubs));
		enum cm_v v = cm_v_parse(jx_str(s, "status"));
		if (v != rank[k / nsubs])
			continue;
		tdoc_nl(h);
		char label[64];
		sub_label(subs, s, label, sizeof label);
		tdoc_addf(h, ROLE_DIM, "  %s %-14s ", jx_str(s, "axis") ? jx_str(s, "axis") : "?", label);
		tdoc_addf(h, look_v_role(v), "%s %s", look_v_glyph(v), look_v_word(v));
		const char *cause = jx_str(s, "cause");
		if (cause)
			tdoc_addf(h, look_v_role(v), " %s:", cause);
		const char *msg = jx_str(s, "message");
		if (msg && *msg)
			tdoc_addf(h, ROLE_NORMAL, " %s", msg);
	}
	if (t->rc != CMV_NONE) {
		/* Replay-from-here: its own kind of result, beside the verdict above. */
		tdoc_nl(h);
		tdoc_addf(h, ROLE_DIM, "re-check %s ", glyph(G_RECHECK));
		tdoc_addf(h, look_v_role(t->rc), "%s %s%s%s", look_v_glyph(t->rc), look_v_word(t->rc), t->rc_cause[0] ? " " : "",
			  t->rc_cause);
		tdoc_add(h, ROLE_DIM, t->rc_provisional ? "  (running) " : "  ");
		tdoc_add(h, ROLE_DIM, "replay from here: the result comparison only; the verdict above stands");
		const cJSON *rsubs = d->recheck ? cJSON_GetObjectItemCaseSensitive(d->recheck, "verdicts") : NULL;
		for (const cJSON *s = cJSON_IsArray(rsubs) ? rsubs->child : NULL; s; s = s->next) {
			const char *msg = jx_str(s, "message");
			if (msg && *msg) {
				tdoc_nl(h);
				tdoc_addf(h, ROLE_DIM, "  %s %-14s %s", jx_str(s, "axis") ? jx_str(s, "axis") : "?",
					  jx_str(s, "kind") ? jx_str(s, "kind") : "?", msg);
			}
		}
	}
	if (!d->verdict && t->v == CMV_NONE && !t->hold) {
		tdoc_nl(h);
		tdoc_add(h, ROLE_DIM, "  not verified yet: v verifies this turn (replay from its pre-state + invariants)");
	}
	runv_detail(h, d->runv);
	if (t->error) {
		tdoc_nl(h);
		tdoc_addf(h, ROLE_CALL_ERROR, "  %s", t->error);
	}
}

/*==== request / response / raw ====*/

static void frame_header(struct tdoc *doc, const char *what, int64_t seq, const cJSON *meta)
{
	tdoc_nl(doc);
	const char *dir = jx_str(meta, "dir");
	tdoc_addf(doc, ROLE_TITLE, "%s %s", dir && !strcmp(dir, "s2c") ? glyph(G_S2C) : glyph(G_C2S), what);
	tdoc_addf(doc, ROLE_DIM, "  seq %lld", (long long)seq);
	long long bytes;
	if (jx_int(meta, "bytes", 0, 1LL << 60, &bytes))
		tdoc_addf(doc, ROLE_DIM, ", %lld bytes", bytes);
	if (jx_str(meta, "t_in"))
		tdoc_addf(doc, ROLE_DIM, ", %s", jx_str(meta, "t_in"));
	if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(meta, "truncated")))
		tdoc_add(doc, ROLE_ERROR, ", TRUNCATED in the trace (the frame was forwarded whole)");
	if (jx_str(meta, "origin"))
		tdoc_addf(doc, ROLE_GATE_DENY, ", sent by %s, not the server", jx_str(meta, "origin"));
}

/* The bytes exactly, with anything unprintable escaped (so nothing can drive the terminal). */
static void raw_bytes(struct tdoc *doc, const char *p, size_t n)
{
	tdoc_nl(doc);
	struct buf b = {0};
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)p[i];
		if (c == '\\')
			buf_puts(&b, "\\\\");
		else if (c < 0x20 || c == 0x7f)
			buf_printf(&b, "\\x%02x", c);
		else
			buf_putc(&b, (char)c); /* UTF-8 passes; canvas replaces invalid sequences */
	}
	tdoc_addn(doc, ROLE_NORMAL, b.p ? b.p : "", b.len);
	buf_free(&b);
}

static cJSON *load_frame(struct cmodel *m, struct cm_run *r, int64_t seq, const char *what, struct tdoc *tab,
			 struct tdoc *raw, cJSON **meta_out)
{
	struct buf b = {0};
	cJSON *meta = NULL;
	struct err e = {0};
	if (cm_frame_bytes(m, r, seq, &b, &meta, &e) != 0) {
		tdoc_nl(tab);
		tdoc_addf(tab, ROLE_ERROR, "cannot read the %s: %s", what, e.msg);
		tdoc_nl(raw);
		tdoc_addf(raw, ROLE_ERROR, "cannot read the %s: %s", what, e.msg);
		buf_free(&b);
		return NULL;
	}
	frame_header(raw, what, seq, meta);
	if (jx_str(meta, "hash_raw")) {
		tdoc_nl(raw);
		tdoc_addf(raw, ROLE_DIM, "  %s (checked)", jx_str(meta, "hash_raw"));
	}
	raw_bytes(raw, b.p ? b.p : "", b.len);
	tdoc_nl(raw);
	frame_header(tab, what, seq, meta);
	cJSON *j = cJSON_ParseWithLength(b.p ? b.p : "", b.len);
	if (!j) {
		tdoc_nl(tab);
		tdoc_add(tab, ROLE_ERROR, "not JSON; the raw tab shows the bytes");
	}
	buf_free(&b);
	if (meta_out)
		*meta_out = meta;
	else
		cJSON_Delete(meta);
	return j;
}

#define PARSED_NOTE (-2)

int detail_parse_strings(struct detail *d, int tab)
{
	cJSON **root = tab == 0 ? &d->req : &d->resp;
	if (!*root)
		return 0;
	int n = -1;
	struct jfold f = {0};
	if (d->sent[tab]) { /* back to the frame as sent */
		cJSON_Delete(*root);
		*root = d->sent[tab];
		d->sent[tab] = NULL;
	} else {
		cJSON *copy = cJSON_Duplicate(*root, 1);
		n = jsonview_parse_strings(copy, &f);
		if (!n) {
			cJSON_Delete(copy);
			jfold_free(&f);
			return 0;
		}
		d->sent[tab] = *root;
		*root = copy;
	}
	jfold_free(&d->fold[tab]); /* the nodes are numbered anew */
	d->fold[tab] = f;
	detail_render_json(d);
	return n;
}

void detail_render_json(struct detail *d)
{
	for (int i = 0; i < 2; i++) {
		struct tdoc *t = &d->tab[i];
		/* Keep the header lines (up to the first JSON line, tagged >= 0, or the note that JSON
		 * inside strings is shown parsed, tagged PARSED_NOTE). */
		size_t keep = 0;
		while (keep < t->n && t->lines[keep].tag < 0 && t->lines[keep].tag != PARSED_NOTE)
			keep++;
		while (t->n > keep) {
			struct tline *l = &t->lines[--t->n];
			for (int k = 0; k < l->n; k++)
				free(l->sp[k].text);
			free(l->sp);
		}
		t->gen++; /* lines were taken off */
		cJSON *j = i == 0 ? d->req : d->resp;
		if (j && d->sent[i]) {
			tdoc_nl(t);
			t->lines[t->n - 1].tag = PARSED_NOTE;
			tdoc_add(t, ROLE_V_WARN, "JSON inside strings is shown parsed, not as sent (p shows it as sent)");
		}
		if (j)
			jsonview_render(t, j, &d->fold[i]);
	}
}

void detail_refold(struct detail *d)
{
	jsonview_update(&d->tab[0], d->req, &d->fold[0]);
	jsonview_update(&d->tab[1], d->resp, &d->fold[1]);
}

/*==== effect diff ====*/

static void load_diff(struct detail *d, struct cm_run *r, const struct cm_turn *t)
{
	struct tdoc *doc = &d->tab[TAB_DIFF];
	if (!t->handle) {
		tdoc_nl(doc);
		tdoc_addf(doc, ROLE_ERROR, "no pre-state was captured for this turn (%s%s%s): its effect cannot be shown",
			  t->prestate, t->handle_cause ? ": " : "", t->handle_cause ? t->handle_cause : "");
		return;
	}
	/* The next pre-state captured after this call was answered shows what it changed. */
	const struct cm_turn *next = NULL;
	for (size_t k = (size_t)t->turn + 1; k < r->nturns; k++) {
		const struct cm_turn *n = cm_turn_at(r, k);
		if (n->handle && (t->resp_seq < 0 || n->req_seq > t->resp_seq) && strcmp(n->handle, t->handle)) {
			next = n;
			break;
		}
		if (n->handle && t->resp_seq >= 0 && n->req_seq > t->resp_seq)
			break; /* same handle: nothing changed before the next call */
	}
	struct snap_store *st = NULL;
	struct err e = {0};
	if (!r->state_dir || snap_store_open(r->state_dir, NULL, &st, &e) != 0) {
		tdoc_nl(doc);
		tdoc_addf(doc, ROLE_ERROR, "cannot open the snapshot store%s%s", r->state_dir ? ": " : "",
			  r->state_dir ? e.msg : " (the run names no state dir)");
		return;
	}
	struct snap_diff df = {0};
	int rc;
	tdoc_nl(doc);
	if (next) {
		tdoc_addf(doc, ROLE_TITLE, "what changed in the workspace from this turn's pre-state to turn %d's", next->turn);
		rc = snap_diff_handles(st, t->handle, next->handle, &df, &e);
	} else if (r->scope) {
		tdoc_addf(doc, ROLE_TITLE, "no later pre-state: the workspace now against this turn's pre-state");
		tdoc_nl(doc);
		tdoc_add(doc, ROLE_DIM, "(it includes any change made after this turn)");
		rc = snap_diff_handle_dir(st, t->handle, r->scope, &df, &e);
	} else {
		tdoc_add(doc, ROLE_DIM, "no later pre-state and no workspace to compare with");
		snap_store_close(st);
		return;
	}
	if (rc) {
		tdoc_nl(doc);
		tdoc_addf(doc, ROLE_ERROR, "cannot compute the diff: %s", e.msg);
	} else if (!df.n) {
		tdoc_nl(doc);
		tdoc_add(doc, ROLE_DIM, "no file was added, removed or changed");
	}
	if (rc == 0)
		diffview_render(doc, st, t->handle, next ? next->handle : NULL, r->scope, &df);
	snap_diff_free(&df);
	snap_store_close(st);
	/* What the replay observed, when a verify ran. */
	const cJSON *eff = d->verdict ? cJSON_GetObjectItemCaseSensitive(d->verdict, "effect") : NULL;
	if (cJSON_IsArray(eff)) {
		tdoc_nl(doc);
		tdoc_nl(doc);
		tdoc_add(doc, ROLE_TITLE, "the replay (from the same pre-state) changed:");
		if (!eff->child) {
			tdoc_nl(doc);
			tdoc_add(doc, ROLE_DIM, "  nothing");
		}
		for (const cJSON *x = eff->child; x; x = x->next) {
			/* {"path" (text, or bytes as jx_bytes writes them), "change", "fields"} */
			tdoc_nl(doc);
			const char *k = jx_str(x, "change");
			struct buf p = {0};
			if (jx_bytes_decode(cJSON_GetObjectItemCaseSensitive(x, "path"), &p) != 0)
				buf_puts(&p, "(a path that cannot be read)");
			tdoc_addf(doc, ROLE_DIFF_META, "  %-8s %s", k ? k : "changed", buf_cstr(&p));
			buf_free(&p);
			const cJSON *f = cJSON_GetObjectItemCaseSensitive(x, "fields");
			if (cJSON_IsArray(f) && f->child) {
				tdoc_add(doc, ROLE_DIM, "  (");
				for (const cJSON *y = f->child; y; y = y->next)
					tdoc_addf(doc, ROLE_DIM, "%s%s", cJSON_IsString(y) ? y->valuestring : "?", y->next ? ", " : "");
				tdoc_add(doc, ROLE_DIM, ")");
			}
		}
	}
}

/*==== denials, snapshot ====*/

static void load_denials(struct detail *d, const struct cm_run *r, const struct cm_turn *t)
{
	struct tdoc *doc = &d->tab[TAB_DENIALS];
	size_t n = 0;
	tdoc_nl(doc);
	tdoc_add(doc, ROLE_TITLE, "recorded while this call ran");
	for (size_t i = 0; i < r->ndenials; i++) {
		const struct cm_denial *x = &r->denials[i];
		if (x->turn != t->turn)
			continue;
		n++;
		tdoc_nl(doc);
		tdoc_addf(doc, !strcmp(x->kind, "denial") ? ROLE_DENIAL : ROLE_DIM, "  %s %-8s %-14s ", glyph(G_DENIAL),
			  x->err ? x->err : x->outcome ? x->outcome : "", x->op ? x->op : "?");
		tdoc_addf(doc, ROLE_NORMAL, "%s", x->target ? x->target : "");
		if (x->comm)
			tdoc_addf(doc, ROLE_DIM, "  (%s)", x->comm);
	}
	if (!n) {
		tdoc_nl(doc);
		tdoc_add(doc, ROLE_DIM, "  none");
	}
	const cJSON *rd = d->verdict ? cJSON_GetObjectItemCaseSensitive(d->verdict, "denials") : NULL;
	if (cJSON_IsArray(rd) && rd->child) {
		tdoc_nl(doc);
		tdoc_nl(doc);
		tdoc_add(doc, ROLE_TITLE, "observed in the replay");
		for (const cJSON *x = rd->child; x; x = x->next) {
			tdoc_nl(doc);
			const char *tg = jx_str(x, "path") ? jx_str(x, "path") : jx_str(x, "address");
			tdoc_addf(doc, ROLE_DENIAL, "  %s %-8s %-14s ", glyph(G_DENIAL), jx_str(x, "errno") ? jx_str(x, "errno") : "",
				  jx_str(x, "op") ? jx_str(x, "op") : "?");
			tdoc_addf(doc, ROLE_NORMAL, "%s", tg ? tg : "");
		}
	}
}

static void load_snapshot(struct detail *d, const struct cm_turn *t, const cJSON *req_meta)
{
	struct tdoc *doc = &d->tab[TAB_SNAPSHOT];
	const cJSON *h = req_meta ? cJSON_GetObjectItemCaseSensitive(req_meta, "state_handle") : NULL;
	tdoc_nl(doc);
	tdoc_addf(doc, ROLE_TITLE, "pre-state: %s", t->prestate[0] ? t->prestate : "?");
	if (!h) {
		tdoc_nl(doc);
		tdoc_add(doc, ROLE_DIM, "the request record carries no state handle");
		return;
	}
	const char *status = jx_str(h, "status");
	if (status && !strcmp(status, "absent")) {
		tdoc_nl(doc);
		tdoc_add(doc, ROLE_DIM, "no snapshot was attempted (the run had no --scope); this never means \"failed\"");
	}
	static const char *fields[] = {"handle", "cause", "detail", "source", "tree_hash", "backend", "walk", NULL};
	for (int i = 0; fields[i]; i++)
		if (jx_str(h, fields[i])) {
			tdoc_nl(doc);
			tdoc_addf(doc, ROLE_DIM, "%-12s", fields[i]);
			tdoc_addf(doc, !strcmp(fields[i], "cause") ? ROLE_V_UNVERIFIED : ROLE_NORMAL, "%s", jx_str(h, fields[i]));
		}
	static const char *nums[] = {"files", "bytes", "changed", "shared_from_seq", NULL};
	for (int i = 0; nums[i]; i++) {
		long long v;
		if (jx_int(h, nums[i], 0, 1LL << 62, &v)) {
			tdoc_nl(doc);
			tdoc_addf(doc, ROLE_DIM, "%-12s", nums[i]);
			tdoc_addf(doc, ROLE_NORMAL, "%lld", v);
		}
	}
	const cJSON *gaps = cJSON_GetObjectItemCaseSensitive(h, "fidelity_gaps");
	tdoc_nl(doc);
	tdoc_add(doc, ROLE_DIM, "fidelity    ");
	if (!cJSON_IsArray(gaps) || !gaps->child)
		tdoc_add(doc, ROLE_NORMAL, "no gaps recorded");
	for (const cJSON *g = cJSON_IsArray(gaps) ? gaps->child : NULL; g; g = g->next) {
		char *s = jx_print(g);
		tdoc_nl(doc);
		tdoc_addf(doc, ROLE_V_WARN, "  gap: %s", s);
		free(s);
	}
	const cJSON *deps = cJSON_GetObjectItemCaseSensitive(h, "depends_on_read_only");
	if (cJSON_IsArray(deps) && deps->child) {
		char *s = jx_print(deps);
		tdoc_nl(doc);
		tdoc_addf(doc, ROLE_DIM, "shared with read-only calls at seq %s", s);
		free(s);
	}
}

/*==== loading ====*/

void detail_load(struct detail *d, struct cmodel *m, struct cm_run *r, int turn)
{
	reset(d);
	d->run = xstrdup(r->id);
	d->turn = turn;
	if (turn < 0 || (size_t)turn >= r->nturns)
		return;
	struct cm_turn *t = cm_turn_at(r, turn);
	d->verdict = cm_verdict_full(m, r, turn);
	d->recheck = cm_recheck_full(m, r, turn);
	d->runv = r->runv ? cJSON_Duplicate(r->runv, 1) : NULL;
	cJSON *req_meta = NULL;
	d->req = load_frame(m, r, t->req_seq, "request", &d->tab[TAB_REQUEST], &d->tab[TAB_RAW], &req_meta);
	if (t->resp_seq >= 0) {
		d->resp = load_frame(m, r, t->resp_seq, "response", &d->tab[TAB_RESPONSE], &d->tab[TAB_RAW], NULL);
	} else {
		tdoc_nl(&d->tab[TAB_RESPONSE]);
		tdoc_add(&d->tab[TAB_RESPONSE], ROLE_CALL_PENDING,
			 t->call == CMC_CANCELLED ? "cancelled by the client; no response"
			 : r->live		   ? "no response yet"
						   : "no response: the run ended with this call unanswered");
	}
	detail_render_json(d);
	load_diff(d, r, t);
	load_denials(d, r, t);
	load_snapshot(d, t, req_meta);
	cJSON_Delete(req_meta);
	detail_render_head(d, t);
}

void detail_load_hold(struct detail *d, const struct cm_run *r, const struct cm_hold *h, const struct tm_trial *trial,
		      const char *state_dir)
{
	reset(d);
	d->run = xstrdup(r->id);
	d->turn = -1;
	d->hold = h->id;
	tdoc_nl(&d->head);
	tdoc_addf(&d->head, ROLE_GATE_HELD, "%s HELD: %s waits for you", glyph(G_HELD), h->tool ? h->tool : "the call");
	/* The raw arguments on every tab (the request tab has them as a tree). */
	tdoc_nl(&d->head);
	tdoc_add(&d->head, ROLE_DIM, "  arguments ");
	tdoc_add(&d->head, h->args ? ROLE_NORMAL : ROLE_ERROR, h->args ? h->args : "not known to the console");
	tdoc_nl(&d->head);
	if (h->trial_id)
		tdoc_add(&d->head, ROLE_NORMAL,
			 "  y lets it run once, A applies the effect its trial had instead, x refuses it (the agent is told "
			 "which); nothing moves until then");
	else
		tdoc_add(&d->head, ROLE_NORMAL, "  y lets it run once, x refuses it (the agent is told why); nothing moves until then");
	struct tdoc *doc = &d->tab[TAB_REQUEST];
	/* What is asked, first: the arguments as the agent sent them, then why the gate asks. */
	tdoc_nl(doc);
	if (h->args)
		tdoc_add(doc, ROLE_TITLE, "the request: its arguments as the agent sent them, then the effect plan");
	else
		tdoc_add(doc, ROLE_ERROR, "the request's arguments are not known to the console (the effect plan follows)");
	tdoc_nl(doc);
	tdoc_add(doc, ROLE_DIM, "(z or Space on a line folds or unfolds it: long strings start folded)");
	if (h->trial_brief) {
		tdoc_nl(doc);
		tdoc_add(doc, ROLE_TITLE, "tried first in a disposable mirror (diff tab: the trial in full)");
		tdoc_text(doc, ROLE_NORMAL, h->trial_brief);
		tdoc_nl(doc);
	} else if (h->trial_error) {
		tdoc_nl(doc);
		tdoc_addf(doc, ROLE_ERROR, "it could not be tried in a mirror first: %s", h->trial_error);
		tdoc_nl(doc);
	}
	cJSON *plan = h->plan ? cJSON_Parse(h->plan) : NULL, *args = h->args ? cJSON_Parse(h->args) : NULL;
	d->req = cJSON_CreateObject();
	cJSON_AddItemToObject(d->req, "arguments", args ? args : cJSON_CreateNull());
	cJSON_AddItemToObject(d->req, "effect plan (why the gate asks)", plan ? plan : cJSON_CreateNull());
	detail_render_json(d);
	for (int i = 1; i < TAB_COUNT; i++) {
		if (i == TAB_DIFF && trial) {
			trialdoc_build(&d->tab[i], state_dir, trial);
			continue;
		}
		if (i == TAB_DIFF && !h->trial_id && args && argdiff_render(&d->tab[i], r->scope, args)) {
			tdoc_nl(&d->tab[i]);
			tdoc_nl(&d->tab[i]);
			tdoc_add(&d->tab[i], ROLE_DIM, "the call has not run: it is held before the server sees it");
			continue;
		}
		tdoc_nl(&d->tab[i]);
		tdoc_add(&d->tab[i], ROLE_DIM, "the call has not run: it is held before the server sees it");
		if (i == TAB_DIFF && h->trial_id)
			tdoc_addf(&d->tab[i], ROLE_DIM, " (its trial %s: T lists the trials)", h->trial_id);
	}
}
