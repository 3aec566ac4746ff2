/* httpcmd.c - belay-http's command line (httpcmd.h). */
#include "run/httpcmd.h"

#include <stdlib.h>
#include <string.h>

#include "common/xalloc.h"

int httpcmd_check_network(const char *network, struct err *e)
{
	if (!network || !*network || !strcmp(network, "deny") || !strcmp(network, "deny-all"))
		return 0;
	return err_set(e, BELAY_EUSAGE,
		       "--network %s with a server belay starts over HTTP is refused: its port would be on the host's "
		       "loopback, where any local program reaches it around belay; it runs under deny, listening on its "
		       "sandbox's own loopback (docs/HTTP.md)",
		       network);
}

static void add(char **v, int *k, const char *opt, const char *val)
{
	v[(*k)++] = xstrdup(opt);
	if (val)
		v[(*k)++] = xstrdup(val);
}

char **httpcmd_argv(const char *bin, const struct httpcmd *h)
{
	size_t n = 32;
	for (char *const *x = h->expose; h->server && x && *x; x++)
		n += 2;
	for (char *const *x = h->server; x && *x; x++)
		n++;
	char **v = xcalloc(n, sizeof *v);
	int k = 0;
	v[k++] = xstrdup(bin);
	add(v, &k, "--upstream", h->upstream);
	if (h->listen)
		add(v, &k, "--listen", h->listen);
	if (h->idle)
		add(v, &k, "--idle-timeout", h->idle);
	if (h->state)
		add(v, &k, "--state", h->state);
	if (h->trace_dir && *h->trace_dir)
		add(v, &k, "--trace-dir", h->trace_dir);
	if (h->no_index)
		add(v, &k, "--no-index", NULL);
	if (h->console)
		add(v, &k, "--console", NULL);
	if (h->policy)
		add(v, &k, "--policy", h->policy);
	if (h->enforce)
		add(v, &k, "--enforce", NULL);
	if (h->hold)
		add(v, &k, "--hold", h->hold);
	if (h->server) {
		add(v, &k, "--contain", h->scope);
		if (h->network)
			add(v, &k, "--network", h->network);
		for (char *const *x = h->expose; x && *x; x++)
			add(v, &k, "--expose", *x);
		add(v, &k, "--", NULL);
		for (char *const *x = h->server; *x; x++)
			v[k++] = xstrdup(*x);
	}
	v[k] = NULL;
	return v;
}

void httpcmd_free(char **argv)
{
	for (char **a = argv; a && *a; a++)
		free(*a);
	free(argv);
}
