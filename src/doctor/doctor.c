/* doctor.c - the report and the runner of `belay doctor` (see doctor.h). */
#include "doctor/doctor.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/err.h"
#include "common/xalloc.h"

void doctor_add(struct doctor_report *r, const char *check, enum doctor_status st, const char *fix, const char *fmt, ...)
{
	if (r->n == r->cap) {
		r->cap = r->cap ? r->cap * 2 : 32;
		r->v = xrealloc(r->v, r->cap * sizeof *r->v);
	}
	struct doctor_finding *f = &r->v[r->n++];
	memset(f, 0, sizeof *f);
	f->check = check;
	f->status = st;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(f->what, sizeof f->what, fmt, ap);
	va_end(ap);
	snprintf(f->fix, sizeof f->fix, "%s", fix ? fix : "");
}

void doctor_report_free(struct doctor_report *r)
{
	free(r->v);
	memset(r, 0, sizeof *r);
}

enum doctor_status doctor_worst(const struct doctor_report *r)
{
	enum doctor_status w = DOCTOR_OK;
	for (size_t i = 0; i < r->n; i++)
		if (r->v[i].status > w)
			w = r->v[i].status;
	return w;
}

const char *doctor_status_name(enum doctor_status s)
{
	return s == DOCTOR_OK ? "ok" : s == DOCTOR_WARN ? "warn" : "FAIL";
}

int doctor_run(const struct doctor_ctx *c, const char *only, struct doctor_report *r)
{
	int ran = 0;
	for (const struct doctor_check *k = doctor_checks; k->name; k++) {
		if (only && strcmp(only, k->name))
			continue;
		k->run(c, r);
		ran++;
	}
	return only && !ran ? BELAY_ENOTFOUND : 0;
}
