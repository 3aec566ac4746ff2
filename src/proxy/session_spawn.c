/* session_spawn.c - what the session actually spawns: the server as given, or (with a
 * sandbox) belay itself as a launcher that contains and then execs the server. */
#include <stdlib.h>
#include <string.h>

extern char **environ;

#include "common/jsonx.h"
#include "proxy/env_filter.h"
#include "common/xalloc.h"
#include "sandbox/sandbox.h"
#include "proxy/session_internal.h"

int session_prepare_spawn(struct session *s, const char *exe, struct spawn_plan *sp, struct err *e)
{
	memset(sp, 0, sizeof *sp);
	sp->extra_fd = -1;
	/* Contained: the launcher runs with belay's own environment less every variable that
	 * loads code (env_filter.h), and the server's - recorded or belay's own - goes to it on
	 * the sandbox's channel, applied inside (sandbox.h). Never the other way round: an
	 * LD_PRELOAD would run in the launcher, before any layer is in place. */
	if (s->o.sandbox) {
		char *const *server_env = s->o.env ? s->o.env : environ;
		size_t ne = 0, k = 0;
		while (environ[ne])
			ne++;
		sp->env = xcalloc(ne + 1, sizeof *sp->env);
		for (size_t i = 0; i < ne; i++) {
			const char *eq = strchr(environ[i], '=');
			if (!eq || !env_filter_refused_name(environ[i], (size_t)(eq - environ[i])))
				sp->env[k++] = xstrdup(environ[i]);
		}
		return sandbox_prepare_spawn(s->o.sandbox, s->o.launcher, exe, s->o.argv, server_env, sp, e);
	}
	if (s->o.env) {
		size_t ne = 0;
		while (s->o.env[ne])
			ne++;
		sp->env = xcalloc(ne + 1, sizeof *sp->env);
		for (size_t i = 0; i < ne; i++)
			sp->env[i] = xstrdup(s->o.env[i]);
	}
	size_t n = 0;
	while (s->o.argv[n])
		n++;
	sp->file = xstrdup(exe);
	sp->args = xcalloc(n + 1, sizeof *sp->args);
	for (size_t i = 0; i < n; i++)
		sp->args[i] = xstrdup(s->o.argv[i]);
	return 0;
}

void session_spawn_describe(const struct spawn_plan *sp, cJSON *record)
{
	if (sp->priv)
		sandbox_describe(sp->priv, record);
	else
		cJSON_AddNullToObject(record, "sandbox");
}

void session_spawn_done(struct spawn_plan *sp)
{
	free(sp->file);
	for (char **a = sp->args; a && *a; a++)
		free(*a);
	free(sp->args);
	for (char **a = sp->env; a && *a; a++)
		free(*a);
	free(sp->env);
	if (sp->priv)
		sandbox_spawn_free(sp->priv);
	memset(sp, 0, sizeof *sp);
}
