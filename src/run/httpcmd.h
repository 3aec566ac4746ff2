/* httpcmd.h - belay-http's command line, as `belay proxy --http` (which execs it) and the
 * console's listener (console_host/chttp.c, which runs it as a child) both build it: the
 * upstream URL, where its state and traces go, the gate's options and, for a local server
 * belay starts, `--contain SCOPE [--network deny] [--expose PATH]... -- SERVER...`
 * (docs/HTTP.md, "Contained local servers").
 *
 * Ownership: the strings of the struct are borrowed; the argv returned is new, every string
 * in it too (httpcmd_free). Threads: any. Must not: print; httpcmd_argv checks nothing (the
 * callers refuse bad options by name first). */
#ifndef BELAY_RUN_HTTPCMD_H
#define BELAY_RUN_HTTPCMD_H
#include "common/err.h"

struct httpcmd {
	const char *upstream;	  /* the server's URL */
	const char *listen, *idle, *hold; /* --listen PORT, --idle-timeout S, --hold S (NULL: its defaults) */
	const char *state, *policy, *trace_dir; /* NULL: not given (trace_dir "" too) */
	int no_index, enforce, console;		/* --no-index, --enforce, --console */
	/* a local server belay starts contained (server NULL: a server at a URL) */
	const char *scope, *network; /* network NULL: belay-http's default (deny) */
	char *const *expose;	     /* NULL-terminated (may be NULL) */
	char *const *server;	     /* NULL-terminated */
};

/* A local server belay starts over HTTP runs under network deny, listening on its sandbox's
 * own loopback: `network` (the --network given; NULL: none) is refused by name when it is
 * anything else (its port would be on the host's loopback, reachable around belay). */
int httpcmd_check_network(const char *network, struct err *e);

/* belay-http's argv (argv[0] = bin), NULL-terminated. */
char **httpcmd_argv(const char *bin, const struct httpcmd *h);
void httpcmd_free(char **argv);

#endif
