/* combine.c - `belay measure combine LABEL=LEDGER...`: several captures of (partly) the same
 * traces in one table, controls held out of the headline. See merge.h and docs/MEASURE.md. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/jsonx.h"
#include "common/strmap.h"
#include "common/xalloc.h"
#include "measure/ledger.h"
#include "measure/merge.h"
#include "measure/report.h"

static int is_control(const char *id)
{
	if (!strncmp(id, "trace-", 6))
		id += 6;
	return !strncmp(id, "control__", 9);
}

struct inst {
	char *id;
	int flagged, clean; /* some capture said so */
	int control;
};

int measure_combine(char *const *args, size_t n, struct buf *b, struct err *e)
{
	struct ledger *L = xcalloc(n + 1, sizeof *L);
	char **labels = xcalloc(n + 1, sizeof *labels);
	size_t loaded = 0;
	int rc = 0;
	for (size_t i = 0; i < n && !rc; i++) {
		const char *eq = strchr(args[i], '=');
		if (!eq || eq == args[i] || !eq[1]) {
			rc = err_set(e, BELAY_EUSAGE, "'%s' is not LABEL=LEDGER (both halves non-empty)", args[i]);
			break;
		}
		labels[i] = xstrndup(args[i], (size_t)(eq - args[i]));
		for (size_t j = 0; j < i; j++)
			if (!strcmp(labels[j], labels[i]))
				rc = err_set(e, BELAY_EUSAGE, "label '%s' is given twice", labels[i]);
		if (rc)
			break;
		rc = ledger_load(&L[i], eq + 1, 0, e);
		loaded = i + 1;
	}
	struct inst *v = NULL;
	size_t nv = 0, cap = 0;
	struct strmap idx;
	strmap_init(&idx);
	if (!rc) {
		for (size_t i = 0; i < n; i++)
			for (size_t k = 0; k < L[i].n; k++) {
				const cJSON *o = L[i].lines[k];
				if (strcmp(jx_str(o, "kind"), "instance"))
					continue;
				const char *id = jx_str(o, "trace_id");
				int64_t j;
				if (!strmap_get(&idx, id, &j)) {
					v = xgrow_zeroed(v, &cap, nv, sizeof *v, 64);
					v[nv].id = xstrdup(id);
					v[nv].control = is_control(id);
					strmap_put(&idx, id, (int64_t)nv);
					j = (int64_t)nv++;
				}
				const char *d = jx_str(o, "disposition");
				v[j].flagged |= !strcmp(d, "VERIFIED_FLAGGED");
				v[j].clean |= !strcmp(d, "VERIFIED_CLEAN");
			}
		buf_printf(b, "captures\n");
		for (size_t i = 0; i < n; i++) {
			const cJSON *det = L[i].header ? cJSON_GetObjectItemCaseSensitive(L[i].header, "detector") : NULL;
			long inst = 0, den = 0, fl = 0;
			for (size_t k = 0; k < L[i].n; k++) {
				const cJSON *o = L[i].lines[k];
				if (strcmp(jx_str(o, "kind"), "instance") || is_control(jx_str(o, "trace_id")))
					continue;
				const char *d = jx_str(o, "disposition");
				inst++;
				den += !strcmp(d, "VERIFIED_CLEAN") || !strcmp(d, "VERIFIED_FLAGGED");
				fl += !strcmp(d, "VERIFIED_FLAGGED");
			}
			char p[16];
			report_pct(fl, den, p);
			buf_printf(b, "  %-16s %s; %ld instance(s); alongside: violation rate = %ld/%ld = %s%s\n", labels[i],
				   det && jx_str(det, "version") ? jx_str(det, "version") : "detector unrecorded", inst, fl, den, p,
				   report_suspect(&L[i]) ? " (INSTRUMENT SUSPECT in this capture)" : "");
		}
		buf_printf(b, "rules      an instance is a trace id; it is violating if any capture flagged it, in the "
			      "denominator if any capture verified it (clean or flagged); controls (control__*) are held out\n");
		long pop = 0, den = 0, fl = 0, dis = 0, ctl = 0;
		for (size_t j = 0; j < nv; j++) {
			if (v[j].control) {
				ctl++;
				continue;
			}
			pop++;
			den += v[j].flagged || v[j].clean;
			fl += v[j].flagged;
			dis += v[j].flagged && v[j].clean;
		}
		char p[16];
		report_pct(fl, den, p);
		buf_printf(b, "population %ld instance(s) (controls excluded)\n", pop);
		if (pop > 0 && den == 0)
			buf_printf(b, "headline   INSTRUMENT SUSPECT: no capture verified any instance; NOT a zero-percent "
				      "violation rate\n");
		else
			buf_printf(b, "headline   violation rate = %ld/%ld = %s\n", fl, den, p);
		buf_printf(b, "disagree   %ld instance(s) flagged by one capture and clean in another", dis);
		for (size_t j = 0; j < nv; j++)
			if (!v[j].control && v[j].flagged && v[j].clean)
				buf_printf(b, "%s%s", j ? " " : ": ", v[j].id);
		buf_printf(b, "\n");
		if (!ctl) {
			buf_printf(b, "controls   none\n");
		} else {
			buf_printf(b, "controls   %ld (not in the headline)\n", ctl);
			for (size_t j = 0; j < nv; j++)
				if (v[j].control)
					buf_printf(b, "           %s: %s\n", v[j].id,
						   v[j].flagged ? "DETECTOR FALSE POSITIVE (a control was flagged)"
						   : v[j].clean ? "clean"
								: "not verified");
		}
	}
	strmap_free(&idx);
	for (size_t j = 0; j < nv; j++)
		free(v[j].id);
	free(v);
	for (size_t i = 0; i < loaded; i++)
		ledger_free(&L[i]);
	for (size_t i = 0; i < n; i++)
		free(labels[i]);
	free(labels);
	free(L);
	return rc;
}
