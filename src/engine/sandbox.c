/* sandbox.c - containment; the real implementation lands with issue 3. Until then a
 * scope is refused by name, never ignored. */
#include "engine/sandbox.h"

#include <stdio.h>
#include <string.h>

#include "engine/session_internal.h"

int sandbox_spec_init(struct sandbox_spec *sp, const char *scope, enum sandbox_network net, struct err *e)
{
	(void)sp;
	(void)scope;
	(void)net;
	return err_set(e, BELAY_ESANDBOX, "containment is not available in this build");
}

void sandbox_spec_done(struct sandbox_spec *sp)
{
	(void)sp;
}

int sandbox_parse_network(const char *s, enum sandbox_network *out, struct err *e)
{
	if (!strcmp(s, "deny") || !strcmp(s, "deny-all"))
		*out = SANDBOX_NET_DENY;
	else if (!strcmp(s, "allow") || !strcmp(s, "allow-all"))
		*out = SANDBOX_NET_ALLOW;
	else
		return err_set(e, BELAY_EUSAGE, "unknown network policy '%s' (use deny or allow)", s);
	return 0;
}

int sandbox_prepare_spawn(const struct sandbox_spec *spec, const char *launcher, const char *exe,
			  char *const *argv, struct session_spawn *sp, struct err *e)
{
	(void)spec;
	(void)launcher;
	(void)exe;
	(void)argv;
	(void)sp;
	return err_set(e, BELAY_ESANDBOX, "containment is not available in this build");
}

void sandbox_describe(const void *priv, cJSON *record)
{
	(void)priv;
	(void)record;
}

void sandbox_spawn_free(void *priv)
{
	(void)priv;
}

int sandbox_launch_main(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	fprintf(stderr, "belay: refusing to run unsandboxed: containment is not available in this build\n");
	return 2;
}
