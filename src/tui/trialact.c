/* trialact.c - a trial's apply or discard for the console (trialact.h). */
#include "tui/trialact.h"

#include <stdlib.h>
#include <string.h>

#include "common/xalloc.h"
#include "trial/trial.h"

struct trialact {
	char *state_dir, *id, *launcher;
	int apply;
};

struct trialact *trialact_new(const char *state_dir, const char *id, const char *launcher, int apply)
{
	struct trialact *a = xcalloc(1, sizeof *a);
	a->state_dir = xstrdup(state_dir);
	a->id = xstrdup(id);
	a->launcher = launcher ? xstrdup(launcher) : NULL;
	a->apply = apply;
	return a;
}

void trialact_free(void *arg)
{
	struct trialact *a = arg;
	if (!a)
		return;
	free(a->state_dir);
	free(a->id);
	free(a->launcher);
	free(a);
}

void trialact_run(void *arg, struct cqueue *q)
{
	struct trialact *a = arg;
	struct err e = {0};
	struct cevent *ev = cevent_new(CE_TRIAL, NULL);
	ev->json = cJSON_CreateObject();
	cJSON_AddStringToObject(ev->json, "trial", a->id);
	cJSON_AddStringToObject(ev->json, "action", a->apply ? "apply" : "discard");
	int rc, touched = 0;
	if (a->apply) {
		struct trial_apply_result r;
		memset(&r, 0, sizeof r);
		rc = trial_apply(a->state_dir, a->id, a->launcher, &r, &e);
		touched = r.before[0] != '\0'; /* the recover point is taken just before the first write */
		if (touched)
			cJSON_AddStringToObject(ev->json, "before", r.before);
		char *undo = r.recover_trace ? xasprintf("belay recover apply %s:0 --yes --state %s", r.recover_trace, a->state_dir) : NULL;
		if (undo)
			cJSON_AddStringToObject(ev->json, "undo", undo);
		if (rc == 0)
			ev->text = xasprintf("applied %s: %zu path(s); recover point %s%s%s", a->id, r.paths, r.before,
					     undo ? "; undo: " : "", undo ? undo : "");
		free(undo);
		trial_apply_result_free(&r);
	} else {
		rc = trial_discard(a->state_dir, a->id, &e);
		if (rc == 0)
			ev->text = xasprintf("discarded %s: its effect is gone, the record stays", a->id);
	}
	if (rc) {
		/* Refused before the recover point: every check comes first, nothing changed. Else
		 * no claim about the workspace beyond what the message says (a partial apply names
		 * its undo). */
		ev->a = rc == BELAY_EREFUSED && !touched ? 1 : 2;
		ev->text = xasprintf("%s %s %s: %s%s", a->apply ? "apply" : "discard", ev->a == 1 ? "refused" : "failed",
				     a->id, e.msg, ev->a == 1 ? " (nothing changed)" : "");
	}
	cqueue_post(q, ev);
}
