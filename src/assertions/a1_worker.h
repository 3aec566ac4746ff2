/* a1_worker.h - a long-lived bounded reader: one forked child (belay's own code, no exec) that
 * serves readings of hostile input one request at a time, each request bounded as a
 * one-shot a1_bound_run child is (a1_bound.h), so that what the reader remembers between
 * requests (Kotlin: recent sides' trees and facts, a1_kotlin_facts.c) survives and each call
 * does not pay a fork.
 *
 * The worker is forked on first use from the calling thread. It closes every descriptor but
 * its end of a socketpair (fd 0) and /dev/null (fd 2) - a long-lived child must not hold
 * another child's pipe open - asks for SIGKILL when its parent dies (PR_SET_PDEATHSIG; it
 * fires when the THREAD that forked it ends, so a worker found dead is started again, below;
 * until the next call finds it, a worker so ended is an unreaped child of belay's),
 * and serves: a request is the bytes the caller gives plus the bounds of this call; before
 * serve runs, the worker sets its soft RLIMIT_CPU to the CPU time it has used plus the bound
 * and its soft RLIMIT_AS to what it holds plus the memory bound (not under AddressSanitizer,
 * as a1_bound.c); serve answers with a1_bound_send (each send one frame of the socket's
 * stream); then an end mark. At its socket's end of file the worker exits.
 *
 * The parent watches each request as a1_bound_run watches its child: every 20 ms without an
 * answer, the CPU time the worker has spent since the request began (/proc/PID/stat), the
 * wall clock (three times the CPU bound and a second) and its resident memory past what it
 * held when the request began plus the bound; past any, it SIGKILLs and reaps the worker
 * (the next call starts a new one) and the result names the bound, *out holding the frames
 * that arrived before. A worker that ended without the end mark before anything of the
 * answer arrived (an EPIPE on the request), or that a SIGKILL not the parent's ended at any
 * point (its forking thread ended: PDEATHSIG, maybe while another thread's request was half
 * answered), is started again and the request sent once more, *out cut back to what it held;
 * one that ended otherwise is A1_BOUND_DIED (or TIME / MEMORY by its signal, as
 * a1_bound_run). A worker whose resident memory grew past A1_WORKER_MAX_HOLD_MIB
 * since it started is replaced before the next request. The parent writes with MSG_NOSIGNAL:
 * a dead worker is never a SIGPIPE.
 *
 * Threads: any. One request at a time per worker (a mutex): a call that finds the worker busy
 * waits at most A1_WORKER_WAIT_MS (a few benign files' time) and then returns A1_WORKER_BUSY,
 * the caller reading in a one-shot a1_bound_run child instead (a hostile file can hold the
 * worker for its whole bound; a benign file must not queue behind it for that long). The worker itself is single-threaded; serve runs
 * only there and may keep state in its own statics (they are the child's copy).
 * Must not: print; leave a child behind (EOF, PDEATHSIG, a1_worker_stop, and every kill is
 * reaped). */
#ifndef BELAY_ASSERTIONS_A1_WORKER_H
#define BELAY_ASSERTIONS_A1_WORKER_H
#include <pthread.h>
#include <stddef.h>
#include <sys/types.h>

#include "assertions/a1_bound.h"
#include "common/buf.h"
#include "common/err.h"

#define A1_WORKER_BUSY 1	     /* a1_worker_call: another thread's request is being served */
#define A1_WORKER_WAIT_MS 50	     /* how long a call waits for another thread's request */
#define A1_WORKER_MAX_HOLD_MIB 512u /* a worker grown by more than this is replaced */

/* In the worker: one request's bytes (n == 0: forget what you remember), answered through ch. */
typedef void (*a1_worker_serve_fn)(const char *req, size_t n, struct a1_bound_chan *ch);

struct a1_worker {
	pthread_mutex_t mu;
	a1_worker_serve_fn serve;
	pid_t pid;	   /* 0: none running */
	int fd;		   /* the parent's end of the socketpair */
	size_t born_rss;   /* its resident bytes after its first request */
	unsigned long started; /* workers started (tests) */
};

#define A1_WORKER_INIT(fn) {PTHREAD_MUTEX_INITIALIZER, (fn), 0, -1, 0, 0}

/* Sends req (n > 0 bytes) to w's worker (started when none runs) and appends what serve sent to
 * *out. 0 with *res filled (as a1_bound_run); A1_WORKER_BUSY when another thread holds w;
 * < 0 (errno of socketpair / fork) when no worker could be started, *e set. */
int a1_worker_call(struct a1_worker *w, const void *req, size_t n, struct buf *out, struct a1_bound_result *res,
		   struct err *e);

/* Tells a running worker to forget what it remembers (serve with n == 0); waits for it (blocks
 * while another thread's request is served). Nothing when none runs. */
void a1_worker_forget(struct a1_worker *w);

/* Ends the worker (closes its socket, SIGKILLs it, reaps it); the next call starts a new one. */
void a1_worker_stop(struct a1_worker *w);

/* The running worker's pid (0: none) and how many were started: for tests. */
pid_t a1_worker_pid(struct a1_worker *w, unsigned long *started);

#endif
