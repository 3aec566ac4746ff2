/* admission.c - the admission step's object: its capture callback, the effect gate's mode and
 * context. What the step does on the client-to-server path is session_admission.c. */
#include <stdlib.h>
#include <string.h>

#include "common/paths.h"
#include "common/xalloc.h"
#include "gate/gate.h"
#include "proxy/admission.h"

struct admission *admission_new(cJSON *(*capture)(void *ctx), void *ctx, void (*free_ctx)(void *ctx))
{
	struct admission *g = xcalloc(1, sizeof *g);
	g->capture = capture;
	g->capture_ctx = ctx;
	g->free_ctx = free_ctx;
	return g;
}

void admission_free(struct admission *g)
{
	if (!g)
		return;
	if (g->free_ctx)
		g->free_ctx(g->capture_ctx);
	gate_policy_free(g->policy);
	free(g->root);
	free(g->home);
	free(g->state_dir);
	free(g->config_dir);
	free(g->policy_file);
	free(g);
}

void admission_set_policy(struct admission *g, enum admission_mode mode, struct gate_policy *policy, const char *root,
			  const char *state_dir, const char *policy_file)
{
	g->mode = mode;
	gate_policy_free(g->policy);
	g->policy = policy;
	free(g->root);
	free(g->state_dir);
	free(g->home);
	g->root = root ? xstrdup(root) : NULL;
	g->state_dir = state_dir ? xstrdup(state_dir) : NULL;
	const char *home = getenv("HOME");
	g->home = home && *home ? xstrdup(home) : NULL;
	free(g->config_dir);
	free(g->policy_file);
	g->config_dir = paths_config_dir();
	g->policy_file = policy_file ? realpath(policy_file, NULL) : NULL;
	if (policy_file && !g->policy_file)
		g->policy_file = xstrdup(policy_file);
}

int admission_parse_mode(const char *s, enum admission_mode *out)
{
	if (!strcmp(s, "audit"))
		*out = ADMISSION_AUDIT;
	else if (!strcmp(s, "enforce"))
		*out = ADMISSION_ENFORCE;
	else if (!strcmp(s, "off"))
		*out = ADMISSION_OFF;
	else
		return -1;
	return 0;
}
