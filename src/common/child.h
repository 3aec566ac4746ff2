/* child.h - the one way belay runs another program to completion or starts one detached:
 * argv (searched on PATH or not), an environment, a working directory; stdin from bytes,
 * from a descriptor or /dev/null; stdout captured (bounded), streamed to a callback, passed
 * on or dropped; stderr likewise or merged into stdout; a timeout that kills the child's
 * whole process group; reaped always. child_detach starts a program that outlives its
 * caller (its own session, reparented to init at once, stdio on /dev/null or a log).
 *
 * Not for: a contained server (sandbox/: its launcher stage links nothing of common/) nor a
 * process on the event loop (proxy/: uv_spawn), nor a fork that runs belay's own code
 * (pkgexec_fetch's fetcher). Those are the remaining spawn sites, each for its reason.
 *
 * Threads: any; child_run blocks the calling thread until the child is reaped. It blocks
 * SIGPIPE on that thread while it writes stdin (a child that exits early is not a SIGPIPE
 * of belay) and consumes one it caused. Every descriptor belay opens is close-on-exec, so
 * the child inherits only its stdio. Must not: print (errors are returned in *e). */
#ifndef BELAY_COMMON_CHILD_H
#define BELAY_COMMON_CHILD_H
#include <stddef.h>

#include "common/buf.h"
#include "common/err.h"

enum child_stream {
	CHILD_NULL = 0,   /* /dev/null */
	CHILD_CAPTURE,    /* into *out; stdout and stderr both captured share one pipe (interleaved
			   * as written) */
	CHILD_INHERIT,    /* the caller's own descriptor */
	CHILD_TO_FD,      /* the descriptor in fd_out / fd_err */
};

struct child_spec {
	char *const *argv;      /* argv[0]: a path, or a name looked up on PATH when search_path */
	char *const *envp;      /* NULL: the caller's environment */
	const char *cwd;        /* NULL: the caller's */
	int search_path;
	const void *in;         /* stdin: these bytes through a pipe ... */
	size_t in_len;
	int in_fd;              /* ... or this descriptor (>= 0; set -1 for none); neither: /dev/null */
	enum child_stream out, err;
	int fd_out, fd_err;     /* for CHILD_TO_FD */
	size_t out_cap;         /* CHILD_CAPTURE keeps at most this many bytes (0: no bound); the rest is
				 * read and dropped, result->truncated set */
	/* Called with each chunk of a captured stream as it arrives (whether kept or not). */
	void (*on_output)(void *ctx, const char *p, size_t n);
	void *ctx;
	unsigned timeout_ms;    /* 0: none, and the child stays in the caller's process group (a ^C
				 * at the terminal reaches it). Else the child leads a process group
				 * of its own, which gets SIGKILL at the timeout: result->timed_out */
};

struct child_result {
	int status;    /* the exit code, or 128 + the signal that ended it */
	int timed_out; /* killed at the timeout */
	int truncated; /* captured output exceeded out_cap */
	int in_short;  /* the child stopped reading stdin before all of spec->in was written */
};

/* A spec with everything defaulted: /dev/null stdio, no stdin descriptor, no timeout. */
#define CHILD_SPEC_INIT {.in_fd = -1, .fd_out = -1, .fd_err = -1}

/* Runs spec to completion. 0 with *res filled once the child was started and reaped (a
 * non-zero exit is not an error here); < 0 when it could not be started (errno of the spawn,
 * a missing program is -ENOENT) or read. out may be NULL unless a stream is CHILD_CAPTURE;
 * it is NUL-terminated on return. */
int child_run(const struct child_spec *spec, struct buf *out, struct child_result *res, struct err *e);

/* Starts argv detached: a new session, a grandchild of the caller (reparented to init before
 * this returns), cwd "/", stdin and stdout on /dev/null, stderr appended to log_path
 * (O_NOFOLLOW, 0600) or /dev/null. Returns once the intermediate child is reaped: 0, or < 0
 * when that fork failed. Whether the program itself started is not known here (an exec that
 * fails ends the grandchild with 127). */
int child_detach(char *const *argv, char *const *envp, const char *log_path, struct err *e);

#endif
