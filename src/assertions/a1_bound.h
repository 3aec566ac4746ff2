/* a1_bound.h - one reading of hostile input run in a child process bounded in memory and time:
 * for a grammar whose parser can loop or grow without end on a crafted file (tree-sitter-kotlin
 * 1.1.0: a scanner loop on `class T { @Test fun f() {} }\n@`, gigabytes on others), where
 * tree-sitter's own timeout does not reach (it is checked between parse steps, not inside the
 * external scanner) and nothing bounds memory.
 *
 * a1_bound_run forks; the child (belay's own code, no exec) sets RLIMIT_AS to what it holds
 * plus the memory bound (not under AddressSanitizer, whose shadow mapping the limit would
 * break) and RLIMIT_CPU, sends its stderr to /dev/null, runs fn - which sends its answer over
 * a pipe (a1_bound_send) - then _exit(0)s. The parent reads them while it waits, and every
 * 20 ms without an answer looks at the child: past its CPU bound, past the wall bound (three
 * times the CPU bound and a second: a child starved of CPU), or once its resident memory
 * exceeds the parent's plus the bound (the check that also holds under AddressSanitizer), it
 * SIGKILLs the child. Reaped always.
 * What fn sends is the facts the judge needs, never a tree (a1_java_wire.h).
 *
 * The bounds are A1_BOUND_* unless BELAY_A1_PARSE_MS / BELAY_A1_PARSE_MIB (positive integers)
 * set them for this call.
 *
 * Threads: any; blocks the calling thread until the child is reaped. The child of a threaded
 * process runs only fn (which must use nothing another thread may have held locked at the
 * fork but malloc, which glibc keeps usable there). Must not: print; leave a child behind. */
#ifndef BELAY_ASSERTIONS_A1_BOUND_H
#define BELAY_ASSERTIONS_A1_BOUND_H
#include <stddef.h>
#include <sys/types.h>

#include "common/buf.h"
#include "common/err.h"

#define A1_BOUND_MS 10000u /* CPU time of one side's reading */
#define A1_BOUND_MIB 256u  /* memory it may add to what the process already holds */

enum a1_bound_end {
	A1_BOUND_DONE = 0, /* fn returned; *out holds what it sent */
	A1_BOUND_TIME,	   /* killed at the CPU or wall bound */
	A1_BOUND_MEMORY,   /* killed at the memory bound, or it ended failing to allocate */
	A1_BOUND_DIED,	   /* ended otherwise (a signal, an exit that was not 0, a short answer) */
};

struct a1_bound_result {
	enum a1_bound_end end;
	unsigned ms;  /* the bound it ran under (CPU ms) */
	unsigned mib; /* the memory bound */
	int signal;   /* the signal that ended it, else 0 */
};

/* The child's end of the pipe (only fn, in the child, has one). `framed`: a1_worker.h's
 * worker, whose every send is a frame of its length (up to A1_BOUND_FRAME_MAX) and bytes. */
struct a1_bound_chan {
	int fd;
	int framed;
};
#define A1_BOUND_FRAME_MAX (1u << 30)

/* In the child: sends n bytes to the parent at once (so that what was sent before a bound
 * stops the child still arrives). A pipe that cannot be written ends the child. */
void a1_bound_send(struct a1_bound_chan *ch, const void *p, size_t n);

/* Runs fn(ctx, ch) in a bounded child; every byte it sent is appended to *out, whether it ended
 * well (res->end A1_BOUND_DONE) or not (then *out holds what arrived before the end: the caller
 * trusts only whole frames of it). 0 with *res filled once the child ran; < 0 (errno of pipe /
 * fork) when it could not be started, *e set. */
int a1_bound_run(void (*fn)(void *ctx, struct a1_bound_chan *ch), void *ctx, struct buf *out,
		 struct a1_bound_result *res, struct err *e);

/* One line of why a child did not answer: "stopped at its bound of 256 MiB" (no trailing dot). */
const char *a1_bound_why(const struct a1_bound_result *res, char *buf, size_t cap);

/* ---- shared with a1_worker.c ---- */

/* The bounds of this call: A1_BOUND_* or BELAY_A1_PARSE_MS / _MIB. */
void a1_bound_limits(unsigned *ms, unsigned *mib);
/* Field k (0: size, 1: resident) of /proc/PID/statm (pid 0: this process) in bytes; 0 unread. */
size_t a1_bound_statm(pid_t pid, int k);
/* CPU time (user + system) process pid has used, in ms; 0 unread. */
unsigned long a1_bound_cpu_ms(pid_t pid);
/* In a child: soft RLIMIT_CPU to the CPU time used so far plus ms, soft RLIMIT_AS to what it
 * holds plus mib MiB (not under AddressSanitizer); hard limits as they were. */
void a1_bound_limit_self(unsigned ms, unsigned mib);
/* How a child with wait status st ended, by a1_bound_run's reading; *sig its signal or 0. */
enum a1_bound_end a1_bound_ended(int st, int *sig);

#endif
