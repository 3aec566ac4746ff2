/* chttp.h - `belay console --http URL`: the console hosts belay's HTTP listener for URL
 * (docs/HTTP.md). The listener is belay-http (the belay binary links no network client),
 * run as a child with --console: it writes each run's trace into trace_dir (which the
 * console's follower tails into the store, so the runs stream in like headless ones), says
 * on its stdout where it listens and which calls it holds, and takes the console's answers
 * to them on its stdin. The console owns the only write end of that stdin: when the console
 * quits or dies, belay-http sees its end and stops (no orphan).
 *
 * With a server command belay-http starts that server itself, contained (its --contain), and
 * ends it when it ends.
 *
 * Holds: each call belay-http holds is posted as a CE_HOLD on its run (the run id of its
 * trace) with a hold id of this host's; chttp_resolve sends the person's answer for it, and
 * the CE_HOLD_DONE is posted when belay-http says how the hold ended.
 *
 * Must not: print, touch curses. Threads: one of its own (it waits for the child and reads
 * its output); chttp_resolve from any thread; start, url and stop from the owner. */
#ifndef BELAY_CONSOLE_HOST_CHTTP_H
#define BELAY_CONSOLE_HOST_CHTTP_H
#include <stdint.h>

#include "common/err.h"
#include "console_host/cevent.h"

struct chttp;

struct chttp_cfg {
	const char *upstream;	 /* the server's URL (http:// or https://) */
	/* a local server belay-http starts contained (`belay console --http URL --scope DIR --
	 * SERVER...`; server NULL: a server at the URL runs elsewhere): it listens at upstream's
	 * port on its sandbox's own loopback, under network deny (docs/HTTP.md) */
	char *const *server;	 /* NULL-terminated (borrowed) */
	const char *scope;	 /* its writes confined here */
	char *const *expose;	 /* --expose paths, NULL-terminated (may be NULL) */
	const char *state_dir;	 /* belay-http's --state (its stable URL and approval key live there) */
	const char *trace_dir;	 /* where its runs' traces go (the console follows it) */
	const char *policy_file; /* --policy (may be NULL) */
	int enforce;		 /* --mode enforce: calls the gate asks about are held */
	int log_fd;		 /* its stderr lines go here (-1: dropped) */
	struct cqueue *events;	 /* borrowed: CE_HOLD, CE_HOLD_DONE, CE_LOG */
};

/* Starts belay-http and waits until it listens (or ends: its last words are the error).
 * BELAY_ENOTFOUND when belay-http is neither next to belay nor on PATH. */
int chttp_start(const struct chttp_cfg *cfg, struct chttp **out, struct err *e);
/* The URL agents are to use (http://127.0.0.1:PORT/SECRET/mcp); borrowed, fixed once started. */
const char *chttp_url(const struct chttp *c);
/* The person's answer (enum admission_answer: 0 refuse, 1 approve) to hold `hold` of run
 * `run`: 0 when it is one of this host's holds (the answer is sent), -1 when not. */
int chttp_resolve(struct chttp *c, const char *run, uint64_t hold, int answer);
/* Ends belay-http (its stdin closed: every held call refused, every run's trace closed) and
 * waits for it. */
void chttp_stop(struct chttp *c);

#endif
