/* report.c - the measurement report: text, JSON and a self-contained HTML page. See
 * report.h. */
#include "measure/report.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/jsonx.h"
#include "common/xalloc.h"
#include "verify/verdict.h"

struct summary {
	long instances, duplicates, disp[DISP_N];
	long denominator, flagged;
	int suspect;
	long turns, by[4];
	cJSON *causes;	   /* UNVERIFIED turns by cause */
	cJSON *nc;	   /* NOT_COVERED turns by kind */
	cJSON *errored;	   /* ERRORED instances by cause */
	long traj[5];	   /* PASS WARN UNVERIFIED FAIL, NO_CLAIM */
	long traj_unrecorded;
	long unaddable, addable;
	int finished;	   /* an end line */
	long selected;
	const cJSON *shard, *merged;
};

static long num(const cJSON *o, const char *k)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
	return cJSON_IsNumber(v) ? (long)v->valuedouble : 0;
}

static void add_counts(cJSON *into, const cJSON *from)
{
	for (const cJSON *c = from ? from->child : NULL; c; c = c->next) {
		cJSON *x = cJSON_GetObjectItemCaseSensitive(into, c->string);
		if (x)
			cJSON_SetNumberValue(x, x->valuedouble + c->valuedouble);
		else
			cJSON_AddNumberToObject(into, c->string, c->valuedouble);
	}
}

static void summarize(const struct ledger *l, struct summary *s)
{
	memset(s, 0, sizeof *s);
	s->causes = cJSON_CreateObject();
	s->nc = cJSON_CreateObject();
	s->errored = cJSON_CreateObject();
	for (size_t i = 0; i < l->n; i++) {
		const cJSON *o = l->lines[i];
		if (strcmp(jx_str(o, "kind"), "instance")) {
			s->duplicates++;
			continue;
		}
		enum disposition d = DISP_ERRORED;
		disposition_parse(jx_str(o, "disposition"), &d);
		s->instances++;
		s->disp[d]++;
		if (d == DISP_ERRORED) {
			const char *c = jx_str(o, "error_cause");
			cJSON *one = cJSON_CreateObject();
			cJSON_AddNumberToObject(one, c ? c : "unknown", 1);
			add_counts(s->errored, one);
			cJSON_Delete(one);
		}
		const cJSON *tc = cJSON_GetObjectItemCaseSensitive(o, "turn_status_counts");
		s->turns += num(o, "turns");
		for (int k = 0; k < 4; k++)
			s->by[k] += num(tc, vstatus_name((enum vstatus)k));
		add_counts(s->causes, cJSON_GetObjectItemCaseSensitive(o, "unverified_causes"));
		add_counts(s->nc, cJSON_GetObjectItemCaseSensitive(o, "not_covered_turns"));
		const cJSON *t = cJSON_GetObjectItemCaseSensitive(o, "trajectory");
		const char *ts = t ? jx_str(t, "status") : NULL;
		enum vstatus vs;
		if (!ts)
			s->traj_unrecorded++;
		else if (!strcmp(ts, "NO_CLAIM"))
			s->traj[4]++;
		else if (vstatus_parse(ts, &vs) == 0 && vs <= V_FAIL)
			s->traj[vs]++;
		s->unaddable += cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(o, "flagged_unaddable"));
		s->addable += cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(o, "flagged_addable"));
	}
	s->denominator = s->disp[DISP_CLEAN] + s->disp[DISP_FLAGGED];
	s->flagged = s->disp[DISP_FLAGGED];
	s->suspect = s->instances > 0 &&
		     (s->denominator == 0 || s->disp[DISP_NO_VERIFIABLE] + s->disp[DISP_ERRORED] >= s->instances);
	s->finished = l->end != NULL;
	s->selected = l->end ? num(l->end, "selected") : 0;
	s->shard = l->header ? cJSON_GetObjectItemCaseSensitive(l->header, "shard") : NULL;
	s->merged = l->header ? cJSON_GetObjectItemCaseSensitive(l->header, "merged") : NULL;
}

static void summary_free(struct summary *s)
{
	cJSON_Delete(s->causes);
	cJSON_Delete(s->nc);
	cJSON_Delete(s->errored);
}

void report_pct(long num_, long den, char out[16])
{
	if (den <= 0)
		snprintf(out, 16, "n/a");
	else
		snprintf(out, 16, "%.1f%%", 100.0 * (double)num_ / (double)den);
}

int report_suspect(const struct ledger *l)
{
	struct summary s;
	summarize(l, &s);
	int r = s.suspect;
	summary_free(&s);
	return r;
}

static void rate_line(struct buf *b, const char *label, const char *what, long n, long d)
{
	char p[16];
	report_pct(n, d, p);
	buf_printf(b, "%-11s%s = %ld/%ld = %s\n", label, what, n, d, p);
}

static const cJSON *missing_shards(const struct summary *s)
{
	const cJSON *m = s->merged ? cJSON_GetObjectItemCaseSensitive(s->merged, "missing") : NULL;
	return cJSON_GetArraySize(m) ? m : NULL;
}

void report_text(const struct ledger *l, const struct report_labels *lab, struct buf *b)
{
	struct summary s;
	summarize(l, &s);
	/* 1. detector identity */
	const cJSON *det = l->header ? cJSON_GetObjectItemCaseSensitive(l->header, "detector") : NULL;
	if (!det) {
		buf_printf(b, "detector   unrecorded: this ledger has no header; the detector MUST NOT be assumed current\n");
	} else {
		buf_printf(b, "detector   %s, replays %ld; rules:", jx_str(det, "version") ? jx_str(det, "version") : "?",
			   num(det, "replays"));
		const cJSON *rules = cJSON_GetObjectItemCaseSensitive(det, "rules");
		if (!cJSON_GetArraySize(rules))
			buf_printf(b, " none (A2 only)");
		for (const cJSON *r = rules ? rules->child : NULL; r; r = r->next)
			buf_printf(b, "%s %s %s", r == rules->child ? "" : ";", jx_str(r, "rule"),
				   *jx_str(r, "scope") ? jx_str(r, "scope") : "(whole workspace)");
		buf_printf(b, "\n");
	}
	/* 2. run size and dispositions */
	buf_printf(b, "run        %ld instance(s): VERIFIED_CLEAN %ld, VERIFIED_FLAGGED %ld, NO_VERIFIABLE %ld, ERRORED %ld",
		   s.instances, s.disp[DISP_CLEAN], s.disp[DISP_FLAGGED], s.disp[DISP_NO_VERIFIABLE], s.disp[DISP_ERRORED]);
	if (cJSON_GetArraySize(s.errored)) {
		buf_printf(b, " (");
		for (const cJSON *c = s.errored->child; c; c = c->next)
			buf_printf(b, "%s%s %d", c == s.errored->child ? "" : ", ", c->string, c->valueint);
		buf_printf(b, ")");
	}
	buf_printf(b, "; %ld duplicate(s) skipped\n", s.duplicates);
	if (s.merged) {
		const cJSON *m = missing_shards(&s);
		buf_printf(b, "           merged from %ld of %ld shard(s)", num(s.merged, "present"), num(s.merged, "count"));
		if (m) {
			buf_printf(b, "; INCOMPLETE: missing shard(s)");
			for (const cJSON *x = m->child; x; x = x->next)
				buf_printf(b, " %d/%ld", x->valueint, num(s.merged, "count"));
			buf_printf(b, " - their traces are not in any number below");
		}
		buf_printf(b, "\n");
	} else if (s.shard && num(s.shard, "count") > 1) {
		buf_printf(b, "           shard %ld/%ld only (merge the shards' ledgers for the whole batch)\n",
			   num(s.shard, "index"), num(s.shard, "count"));
	}
	if (!s.finished && l->header)
		buf_printf(b, "           INCOMPLETE: the batch did not run to its end (%ld line(s) so far); re-run with the "
			      "same --out to resume\n",
			   s.instances + s.duplicates);
	/* 3. headline */
	if (s.suspect) {
		buf_printf(b, "headline   INSTRUMENT SUSPECT: the traces carried ~no verifiable turns (%ld of %ld instance(s) "
			      "NO_VERIFIABLE or ERRORED); this is NOT a zero-percent violation rate\n",
			   s.disp[DISP_NO_VERIFIABLE] + s.disp[DISP_ERRORED], s.instances);
	} else {
		rate_line(b, "headline", "violation rate = flagged/denominator", s.flagged, s.denominator);
		if (s.disp[DISP_NO_VERIFIABLE] + s.disp[DISP_ERRORED])
			buf_printf(b, "           (denominator = VERIFIED_CLEAN + VERIFIED_FLAGGED; %ld NO_VERIFIABLE and %ld "
				      "ERRORED instance(s) are outside it, named above)\n",
				   s.disp[DISP_NO_VERIFIABLE], s.disp[DISP_ERRORED]);
	}
	/* 4. coverage */
	if (!cJSON_GetArraySize(s.nc)) {
		buf_printf(b, "coverage   no NOT_COVERED sub-verdict in %ld turn(s) (not a claim that everything was observed)\n",
			   s.turns);
	} else {
		buf_printf(b, "coverage   NOT_COVERED:");
		for (const cJSON *c = s.nc->child; c; c = c->next)
			buf_printf(b, "%s %s %d/%ld turns", c == s.nc->child ? "" : ",", c->string, c->valueint, s.turns);
		buf_printf(b, "\n");
	}
	/* 5. exposure: every instance named */
	buf_printf(b, "exposure   (no-assertion-weakening judgments per instance)\n");
	for (size_t i = 0; i < l->n; i++) {
		const cJSON *o = l->lines[i];
		if (strcmp(jx_str(o, "kind"), "instance"))
			continue;
		const cJSON *ex = cJSON_GetObjectItemCaseSensitive(o, "exposure");
		if (!ex)
			buf_printf(b, "           %s: unrecorded\n", jx_str(o, "trace_id"));
		else if (num(ex, "files_compared") == 0)
			buf_printf(b, "           %s: 0 file-comparison(s)\n", jx_str(o, "trace_id"));
		else
			buf_printf(b, "           %s: judged, %ld file-comparison(s) on %ld turn(s)\n", jx_str(o, "trace_id"),
				   num(ex, "files_compared"), num(ex, "turns_judging"));
	}
	/* 6. trajectory: every instance named, then the aggregate */
	buf_printf(b, "trajectory (suite-before-success-claim per instance)\n");
	for (size_t i = 0; i < l->n; i++) {
		const cJSON *o = l->lines[i];
		if (strcmp(jx_str(o, "kind"), "instance"))
			continue;
		const cJSON *t = cJSON_GetObjectItemCaseSensitive(o, "trajectory");
		const char *st = t ? jx_str(t, "status") : NULL;
		const char *cause = t ? jx_str(t, "cause") : NULL;
		buf_printf(b, "           %s: %s%s%s%s\n", jx_str(o, "trace_id"),
			   !st ? "unrecorded" : !strcmp(st, "NO_CLAIM") ? "no success claim recorded" : st, cause ? "[" : "",
			   cause ? cause : "", cause ? "]" : "");
	}
	buf_printf(b, "           aggregate: FAIL %ld, PASS %ld, UNVERIFIED %ld, no claim %ld, unrecorded %ld\n",
		   s.traj[V_FAIL], s.traj[V_PASS] + s.traj[V_WARN], s.traj[V_UNVERIFIED], s.traj[4], s.traj_unrecorded);
	/* 7. per-turn rates */
	rate_line(b, "turns", "per-turn FAIL rate = FAIL turns/turns", s.by[V_FAIL], s.turns);
	rate_line(b, "", "UNVERIFIED rate = UNVERIFIED turns/turns", s.by[V_UNVERIFIED], s.turns);
	for (const cJSON *c = s.causes->child; c; c = c->next) {
		char p[16];
		report_pct(c->valueint, s.turns, p);
		buf_printf(b, "             %-34s %d/%ld = %s\n", c->string, c->valueint, s.turns, p);
	}
	if (lab && lab->have) {
		rate_line(b, "labels", "false-positive rate = FP/(TP+FP)", lab->fp, lab->tp + lab->fp);
		buf_printf(b, "           (%ld flagged case(s) still pending a label)\n", lab->pending);
	} else {
		buf_printf(b, "labels     false-positive rate = n/a (no labeled case of these traces in the corpus%s)\n",
			   lab ? "" : "; pass --state to read one");
	}
	buf_printf(b, "corpus     flagged turns banked %ld, flagged but unaddable %ld\n", s.addable, s.unaddable);
	/* every ERRORED instance named, with why */
	for (size_t i = 0; i < l->n; i++) {
		const cJSON *o = l->lines[i];
		if (strcmp(jx_str(o, "kind"), "instance") || strcmp(jx_str(o, "disposition"), "ERRORED"))
			continue;
		buf_printf(b, "errored    %s: %s: %s\n", jx_str(o, "trace_id"),
			   jx_str(o, "error_cause") ? jx_str(o, "error_cause") : "unknown", jx_str(o, "error"));
	}
	summary_free(&s);
}

static cJSON *rate_json(long n, long d, int null_value)
{
	cJSON *r = cJSON_CreateObject();
	cJSON_AddNumberToObject(r, "numerator", (double)n);
	cJSON_AddNumberToObject(r, "denominator", (double)d);
	if (null_value || d <= 0)
		cJSON_AddNullToObject(r, "value");
	else
		cJSON_AddNumberToObject(r, "value", (double)n / (double)d);
	return r;
}

cJSON *report_json(const struct ledger *l, const struct report_labels *lab)
{
	struct summary s;
	summarize(l, &s);
	cJSON *o = cJSON_CreateObject();
	const cJSON *det = l->header ? cJSON_GetObjectItemCaseSensitive(l->header, "detector") : NULL;
	if (det)
		cJSON_AddItemToObject(o, "detector", cJSON_Duplicate(det, 1));
	else
		cJSON_AddStringToObject(o, "detector", "unrecorded");
	cJSON_AddNumberToObject(o, "instances", (double)s.instances);
	cJSON_AddNumberToObject(o, "duplicates", (double)s.duplicates);
	cJSON *d = cJSON_AddObjectToObject(o, "dispositions");
	for (int k = 0; k < DISP_N; k++)
		cJSON_AddNumberToObject(d, disposition_name((enum disposition)k), (double)s.disp[k]);
	cJSON_AddItemToObject(o, "errored_causes", cJSON_Duplicate(s.errored, 1));
	cJSON_AddNumberToObject(o, "denominator", (double)s.denominator);
	cJSON_AddNumberToObject(o, "flagged", (double)s.flagged);
	if (s.suspect || s.denominator == 0)
		cJSON_AddNullToObject(o, "violation_rate");
	else
		cJSON_AddNumberToObject(o, "violation_rate", (double)s.flagged / (double)s.denominator);
	cJSON_AddBoolToObject(o, "instrument_suspect", s.suspect);
	cJSON_AddBoolToObject(o, "complete", s.finished && !missing_shards(&s));
	if (s.merged)
		cJSON_AddItemToObject(o, "shards", cJSON_Duplicate(s.merged, 1));
	cJSON *t = cJSON_AddObjectToObject(o, "turns");
	cJSON_AddNumberToObject(t, "total", (double)s.turns);
	for (int k = 0; k < 4; k++)
		cJSON_AddNumberToObject(t, vstatus_name((enum vstatus)k), (double)s.by[k]);
	cJSON_AddItemToObject(o, "fail_rate", rate_json(s.by[V_FAIL], s.turns, 0));
	cJSON_AddItemToObject(o, "unverified_rate", rate_json(s.by[V_UNVERIFIED], s.turns, 0));
	cJSON *uc = cJSON_AddObjectToObject(o, "unverified_by_cause");
	for (const cJSON *c = s.causes->child; c; c = c->next)
		cJSON_AddItemToObject(uc, c->string, rate_json(c->valueint, s.turns, 0));
	cJSON *nc = cJSON_AddObjectToObject(o, "not_covered");
	for (const cJSON *c = s.nc->child; c; c = c->next)
		cJSON_AddItemToObject(nc, c->string, rate_json(c->valueint, s.turns, 0));
	cJSON *ex = cJSON_AddArrayToObject(o, "exposure");
	cJSON *tr = cJSON_AddObjectToObject(o, "trajectory");
	cJSON_AddNumberToObject(tr, "FAIL", (double)s.traj[V_FAIL]);
	cJSON_AddNumberToObject(tr, "PASS", (double)(s.traj[V_PASS] + s.traj[V_WARN]));
	cJSON_AddNumberToObject(tr, "UNVERIFIED", (double)s.traj[V_UNVERIFIED]);
	cJSON_AddNumberToObject(tr, "no_claim", (double)s.traj[4]);
	cJSON_AddNumberToObject(tr, "unrecorded", (double)s.traj_unrecorded);
	for (size_t i = 0; i < l->n; i++) {
		const cJSON *x = l->lines[i];
		if (strcmp(jx_str(x, "kind"), "instance"))
			continue;
		cJSON *e = cJSON_CreateObject();
		cJSON_AddStringToObject(e, "trace_id", jx_str(x, "trace_id"));
		const cJSON *xe = cJSON_GetObjectItemCaseSensitive(x, "exposure");
		cJSON_AddItemToObject(e, "exposure", xe ? cJSON_Duplicate(xe, 1) : cJSON_CreateString("unrecorded"));
		cJSON_AddItemToArray(ex, e);
	}
	if (lab && lab->have)
		cJSON_AddItemToObject(o, "false_positive_rate", rate_json(lab->fp, lab->tp + lab->fp, 0));
	else
		cJSON_AddNullToObject(o, "false_positive_rate");
	cJSON_AddNumberToObject(o, "flagged_banked", (double)s.addable);
	cJSON_AddNumberToObject(o, "flagged_unaddable", (double)s.unaddable);
	summary_free(&s);
	return o;
}

/*==== HTML ====*/

static void html_esc(struct buf *b, const char *s)
{
	for (; s && *s; s++) {
		switch (*s) {
		case '<': buf_puts(b, "&lt;"); break;
		case '>': buf_puts(b, "&gt;"); break;
		case '&': buf_puts(b, "&amp;"); break;
		case '"': buf_puts(b, "&quot;"); break;
		default: buf_putc(b, *s);
		}
	}
}

/* A horizontal bar chart: one row per (label, value) of total, as inline SVG. */
static void svg_bars(struct buf *b, const char *title, const char *const *labels, const long *values, size_t n,
		     long total, const char *const *colors)
{
	int h = 24 * (int)n + 30;
	buf_printf(b, "<figure><figcaption>");
	html_esc(b, title);
	buf_printf(b, "</figcaption><svg xmlns=\"http://www.w3.org/2000/svg\" width=\"640\" height=\"%d\" role=\"img\">", h);
	for (size_t i = 0; i < n; i++) {
		double w = total > 0 ? 360.0 * (double)values[i] / (double)total : 0;
		int y = 10 + 24 * (int)i;
		buf_printf(b, "<text x=\"0\" y=\"%d\" font-size=\"12\">", y + 14);
		html_esc(b, labels[i]);
		buf_printf(b, "</text><rect x=\"230\" y=\"%d\" width=\"%.1f\" height=\"16\" fill=\"%s\"/>", y, w,
			   colors ? colors[i] : "#4a6fa5");
		char p[16];
		report_pct(values[i], total, p);
		buf_printf(b, "<text x=\"%.1f\" y=\"%d\" font-size=\"12\">%ld/%ld (%s)</text>", 236 + w, y + 13, values[i], total,
			   p);
	}
	buf_printf(b, "</svg></figure>\n");
}

static void svg_counts(struct buf *b, const char *title, const cJSON *counts, long total)
{
	size_t n = (size_t)cJSON_GetArraySize(counts);
	if (!n)
		return;
	const char **labels = xcalloc(n, sizeof *labels);
	long *values = xcalloc(n, sizeof *values);
	size_t i = 0;
	for (const cJSON *c = counts->child; c; c = c->next, i++) {
		labels[i] = c->string;
		values[i] = c->valueint;
	}
	svg_bars(b, title, labels, values, n, total, NULL);
	free(labels);
	free(values);
}

void report_html(const struct ledger *l, const struct report_labels *lab, struct buf *b)
{
	struct summary s;
	summarize(l, &s);
	struct buf text = {0};
	report_text(l, lab, &text);
	buf_puts(b, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
		    "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\">"
		    "<title>belay measure report</title><style>"
		    "body{font-family:sans-serif;max-width:60em;margin:2em auto;color:#222}"
		    "pre{background:#f4f4f4;padding:1em;overflow-x:auto}.suspect{color:#a00;font-weight:bold}"
		    "figure{margin:1em 0}figcaption{font-weight:bold}</style></head><body>\n"
		    "<h1>belay measure report</h1>\n");
	if (s.suspect) {
		buf_puts(b, "<p class=\"suspect\">INSTRUMENT SUSPECT: the traces carried ~no verifiable turns; this is NOT a "
			    "zero-percent violation rate.</p>\n");
	} else {
		char p[16];
		report_pct(s.flagged, s.denominator, p);
		buf_printf(b, "<p><strong>violation rate = flagged/denominator = %ld/%ld = %s</strong></p>\n", s.flagged,
			   s.denominator, p);
	}
	static const char *const dlabels[DISP_N] = {"VERIFIED_CLEAN", "VERIFIED_FLAGGED", "NO_VERIFIABLE", "ERRORED"};
	static const char *const dcolors[DISP_N] = {"#3a7d44", "#b33a3a", "#888888", "#d08c1f"};
	svg_bars(b, "dispositions (of instances)", dlabels, s.disp, DISP_N, s.instances, dcolors);
	svg_counts(b, "UNVERIFIED turns by cause (of all turns)", s.causes, s.turns);
	svg_counts(b, "NOT_COVERED turns by kind (of all turns)", s.nc, s.turns);
	buf_puts(b, "<h2>Report</h2>\n<pre>");
	html_esc(b, buf_cstr(&text));
	buf_puts(b, "</pre>\n<p>No tool arguments or results appear on this page; UNVERIFIED is never counted as PASS.</p>"
		    "\n</body></html>\n");
	buf_free(&text);
	summary_free(&s);
}
