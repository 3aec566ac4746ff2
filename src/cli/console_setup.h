/* console_setup.h - what `belay console` and `belay demo` both start before the UI: the
 * state dir and store (migrated once, up front), the invariants, the event queue, the
 * engine host (listening socket), the follower, the background jobs, and the servers'
 * stderr log. Everything is validated before anything starts. */
#ifndef BELAY_CLI_CONSOLE_SETUP_H
#define BELAY_CLI_CONSOLE_SETUP_H
#include "common/err.h"
#include "tui/console.h"
#include "verify/policy.h"

struct console_setup {
	/* options (borrowed strings) */
	char *const *server;
	const char *scope, *network, *mode, *policy_file, *invariants, *state, *trace_dir, *socket;
	const char *follow, *open, *theme, *colors;
	const char *http; /* --http URL: host belay's HTTP listener for URL (console_host/chttp.h) */
	char **expose; /* --expose paths, NULL-terminated (owned array of borrowed strings) */
	int ascii, events_only, listen_without_server, no_trial;
	int no_mouse; /* --no-mouse */
	int allow_root; /* --allow-root: root may connect to the socket too */
	unsigned slice_us; /* the engine thread's scheduler slice (proxy/loop_slice.h; 0: the kernel's) */
	/* started */
	char *state_dir, *log_path, *open_run;
	int log_fd;
	struct policy policy;
	struct cqueue *events;
	struct chost *host;
	struct hook_console *hooks; /* agents' hook events, hosted on the console's socket */
	struct trial_route *trials;  /* the gate's trials of held calls (enforce mode, contained; may be NULL) */
	struct follow *follower;
	struct chttp *http_host; /* belay-http, for --http */
	char *http_traces;       /* where it writes traces (the followed directory; owned) */
	struct jobs *jobs;
	struct console_opts ui;
};

void console_setup_init(struct console_setup *cs);
int console_setup_start(struct console_setup *cs, struct err *e);
/* Stops everything started (the host's runs included) and frees. */
void console_setup_done(struct console_setup *cs);

#endif
