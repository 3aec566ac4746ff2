/* doctor_hooks.c - belay's hooks installed in agents' own configurations (belay init): for
 * every agent file in the project and the home directory that holds belay's entries, each
 * event belay needs has one, it runs this belay inside the fail-closed wrapper, under a
 * timeout longer than belay's longest wait (hook_install_check, src/hook). Reads only. */
#include <stdio.h>
#include <string.h>

#include "common/jsonx.h"
#include "doctor/doctor.h"
#include "hook/hook_status.h"

void doctor_check_hooks(const struct doctor_ctx *c, struct doctor_report *r)
{
	cJSON *arr = hook_doctor_checks(c->project_dir, c->home, c->self);
	int n = 0;
	for (cJSON *a = arr ? arr->child : NULL; a; a = a->next, n++) {
		const char *agent = jx_str(a, "agent"), *path = jx_str(a, "path"), *scope = jx_str(a, "scope");
		char fix[300];
		snprintf(fix, sizeof fix, "belay init %s%s rewrites belay's entries (foreign hooks are kept)", agent ? agent : "AGENT",
			 scope && !strcmp(scope, "global") ? " --global" : "");
		if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(a, "ok"))) {
			long long entries = 0;
			jx_int(a, "entries", 0, 1000, &entries);
			doctor_add(r, "hooks", DOCTOR_OK, "", "%s: %lld %s hook(s) run this belay, fail closed, under a timeout",
				   path, entries, agent);
			continue;
		}
		cJSON *probs = cJSON_GetObjectItemCaseSensitive(a, "problems");
		for (cJSON *p = probs ? probs->child : NULL; p; p = p->next)
			doctor_add(r, "hooks", DOCTOR_FAIL, fix, "%s (%s): %s", path, agent,
				   cJSON_IsString(p) ? p->valuestring : "?");
		if (!cJSON_GetArraySize(probs))
			doctor_add(r, "hooks", DOCTOR_FAIL, fix, "%s (%s): not usable", path, agent);
	}
	if (!n)
		doctor_add(r, "hooks", DOCTOR_OK, "", "no agent has belay's hooks installed (belay init AGENT installs them)");
	cJSON_Delete(arr);
}
