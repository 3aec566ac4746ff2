/* chost.h - the console's engine side: a thread with its own event loop that listens on a
 * unix socket and turns every `belay connect` into one run (runner.h: contained, gated,
 * recorded, indexed), reporting to the UI through a cqueue and taking its intents
 * (approve, refuse, stop) through a mailbox. The UI never touches the loop.
 *
 * The connect protocol (one stream connection per agent):
 *   connect -> host: one line of JSON {"v":1,"pid":N,"cwd":"...","server":[...]?} sent with
 *                    SCM_RIGHTS carrying the agent's stdin and stdout (in that order);
 *   host -> connect: {"ok":true,"run":"ID","trace":"PATH"} or {"ok":false,"error":"..."};
 *   host -> connect: {"exit":N} when the server has exited (N mirrors its status).
 * The host then reads and writes the agent's pipes itself, so the console adds no hop to
 * the agent's calls. If the connect process goes away, the run is stopped.
 *
 * Must not: touch curses, print. Threads: chost_* from the UI thread; hooks run on the host
 * thread or store writer threads and only post events. */
#ifndef BELAY_CONSOLE_HOST_CHOST_H
#define BELAY_CONSOLE_HOST_CHOST_H
#include <cjson/cJSON.h>
#include <stddef.h>
#include <stdint.h>

#include "common/err.h"
#include "sandbox/sandbox.h"
#include "proxy/admission.h"
#include "console_host/cevent.h"

#define CHOST_HELLO_MAX 65536

struct chost;

struct chost_cfg {
	char *const *server;      /* default server for connections that name none (may be NULL) */
	const char *scope;        /* contain every server (NULL: uncontained) */
	enum sandbox_network net;
	char *const *expose;      /* --expose paths (borrowed for the host's life; may be NULL) */
	enum admission_mode mode;
	const char *policy_file;
	const char *state_dir;    /* NULL: the default state dir */
	const char *trace_dir;    /* NULL: STATE/traces */
	const char *socket_path;  /* NULL: chost_default_socket() */
	int server_stderr_fd;     /* where servers' stderr goes (-1: discarded) */
	int allow_root;           /* root may connect too (belay console --allow-root); else only our uid */
	unsigned slice_us;        /* the engine thread's scheduler slice (proxy/loop_slice.h; 0: the kernel's) */
	struct cqueue *events;    /* borrowed: where events go */
	/* Other protocols on the same socket (may be NULL): a hello carrying "hook" (an agent's
	 * hook event, hook_client.h) is handed over with the connection (fd taken) and the bytes
	 * read after the hello line. Host thread; must not block. */
	void (*adopt)(void *ctx, int fd, const cJSON *hello, const char *rest, size_t rest_len);
	/* The operator's answer (enum admission_answer) to a hold on a run that is not one of this
	 * host's connections (a hook run): 0, or -1 when nothing with that id is held; it posts
	 * the CE_HOLD_DONE itself. Host thread. */
	int (*resolve)(void *ctx, const char *run, uint64_t hold, int answer, const char *by);
	void *other_ctx;
	/* Contained trials (enforce mode with a scope; runner_cfg.trial): a call the gate asks
	 * about whose plan is only an unknown local effect is tried in a mirror first and held
	 * with the trial's report. The context stays the caller's and outlives the host. NULL:
	 * no trials. */
	cJSON *(*trial)(void *ctx, const char *command, const char *cwd);
	void *trial_ctx;
};

/* The default socket: paths_console_socket() (common/paths.h; never from the environment,
 * so that an agent-spawned `belay connect` finds it). New string. */
char *chost_default_socket(void);
/* Binds and listens on a unix socket at path (0600, non-blocking): a live listener already
 * there is BELAY_EEXIST, a stale socket file is replaced. check_dir: the directory is
 * created 0700 and refused unless it is ours and closed to others (for well-known paths).
 * After listening, the path must still lead to this process's socket (sockpeer.h): one
 * replaced meanwhile is BELAY_EREFUSED and nothing listens. */
int chost_bind(const char *path, int check_dir, int *fd, struct err *e);
/* Creates the socket's directory (0700, must be ours and private), binds and listens
 * (0600), and starts the host thread. A connection from another uid (or from root unless
 * cfg.allow_root) is answered {"ok":false,"error":"belay: refused: ..."} naming its uid,
 * closed, and logged (a CE_LOG event). A live console already on that path is
 * BELAY_EEXIST; a stale socket file is replaced. */
int chost_start(const struct chost_cfg *cfg, struct chost **out, struct err *e);
const char *chost_socket(const struct chost *h); /* borrowed */
/* Intents (queued; the outcome comes back as events). */
/* answer: ADMISSION_APPROVE, ADMISSION_REFUSE, or ADMISSION_APPLIED once the caller has applied
 * the held call's trial (its CE_HOLD_DONE's b is the answer, or -1 gone / -2 no trial). */
void chost_resolve(struct chost *h, const char *run, uint64_t hold, enum admission_answer answer);
void chost_stop_run(struct chost *h, const char *run);
/* Number of runs still live (approximate: read without the loop). */
int chost_live_runs(struct chost *h);
/* Stops listening, stops every run, waits for them to end (bounded by the kill grace),
 * joins the thread, removes the socket and frees h. */
void chost_stop(struct chost *h);

#endif
