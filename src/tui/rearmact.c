/* rearmact.c - the console's rearm after a protected-file alert (rearmact.h). */
#include "tui/rearmact.h"

#include <stdlib.h>

#include "common/xalloc.h"
#include "hook/hook_tamper.h"

struct rearmact {
	char *scope, *state_dir, *home;
};

struct rearmact *rearmact_new(const char *scope, const char *state_dir, const char *home)
{
	struct rearmact *a = xcalloc(1, sizeof *a);
	a->scope = xstrdup(scope);
	a->state_dir = xstrdup(state_dir);
	a->home = home ? xstrdup(home) : NULL;
	return a;
}

void rearmact_free(void *arg)
{
	struct rearmact *a = arg;
	if (!a)
		return;
	free(a->scope);
	free(a->state_dir);
	free(a->home);
	free(a);
}

void rearmact_run(void *arg, struct cqueue *q)
{
	struct rearmact *a = arg;
	struct err e = {0};
	cJSON *was = NULL, *rec = NULL;
	if (hook_tamper_rearm_project(a->scope, a->home, a->state_dir, &was, &rec, &e) != 0) {
		cqueue_post(q, cevent_log(2, "rearm %s: %s", a->scope, e.msg));
	} else {
		char *s = hook_tamper_rearm_summary(was, rec);
		cqueue_post(q, cevent_log(0, "%s: %s", a->scope, s));
		free(s);
	}
	cJSON_Delete(was);
	cJSON_Delete(rec);
}
