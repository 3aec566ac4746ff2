/* console.h - the live console's UI thread: the terminal, the views, keys, and the event
 * loop that drains the engine's events (cevent.h), reads the store, and sends intents back
 * (chost.h, jobs.h). Rendering happens once per loop iteration, only when something changed.
 *
 * Must not: block on the engine or on a job (verify, corpus) - those run on their own
 * threads; write to the store. Threads: console_run blocks the calling (main) thread. */
#ifndef BELAY_TUI_CONSOLE_H
#define BELAY_TUI_CONSOLE_H
#include "common/err.h"

struct chost;
struct cqueue;
struct jobs;

struct console_opts {
	struct chost *host;          /* live runs (NULL: browsing only) */
	struct cqueue *events;       /* what the engine side reports */
	struct jobs *jobs;           /* background verify and corpus work */
	const char *state_dir;       /* the store, snapshots, corpus (resolved) */
	const char *invariants;      /* A1 policy file for verifying (NULL: the defaults) */
	const char *theme;           /* NULL: "dark" */
	int force_depth;             /* -1: detect */
	int force_ascii;
	int no_mouse;                /* leave mouse reporting off (also BELAY_MOUSE=off) */
	const char *socket_path;     /* shown with the connection snippet (NULL: none) */
	const char *follow_dir;      /* shown in the status line when following */
	const char *http_url;        /* the HTTP listener the console hosts (belay console --http; NULL: none) */
	const char *focus_run;       /* open this run first (may be NULL) */
	const char *server_log;      /* where servers' stderr goes (shown in the log) */
	int enforce;                 /* the console's runs are gated in enforce mode (title bar) */
	/* The live demo: called once the UI is up (on the UI thread); it starts the scripted
	 * agent on a thread of its own. NULL otherwise. */
	void (*demo_start)(void *ctx);
	void *demo_ctx;
	int demo;                    /* demo mode: verify the run when it ends, focus the story */
};

/* Runs the console until the operator quits. Returns 0, or an error (a terminal that
 * cannot be used, a broken theme or keymap) before the screen was taken over. */
int console_run(const struct console_opts *o, struct err *e);

#endif
