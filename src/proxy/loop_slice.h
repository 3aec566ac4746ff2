/* loop_slice.h - a short scheduler slice for the thread that forwards frames.
 *
 * Linux's fair scheduler (EEVDF) lets a thread that is woken take the CPU from the one
 * running only when its virtual deadline comes first. With the default slice (1.4 ms on
 * this two-CPU machine) a woken forwarding thread can wait most of a slice behind whatever
 * holds its CPU: the console's UI thread drawing, a Node server's garbage collector, a CPU
 * hog beside the agent. Since Linux 6.12 a normal thread may ask for a shorter slice
 * (sched_setattr, sched_runtime for SCHED_OTHER): its deadlines come sooner, so it runs soon
 * after it is woken. Its share of the CPU does not change - the slice sets how soon and how
 * often it runs, not for how long in all - so nobody is starved by it.
 *
 * loop_slice_set asks for it on the calling thread, keeping its policy and nice value, with
 * SCHED_FLAG_RESET_ON_FORK: nothing the thread starts afterwards inherits the slice (the MCP
 * server belay spawns, the trace writer's and the index's threads get the kernel's
 * default). A thread under another policy (SCHED_BATCH, SCHED_IDLE, real-time: someone chose
 * it) or at a negative nice value (which reset-on-fork would take from the server) is left
 * alone. Where the kernel does not take a slice (before 6.12, or a seccomp
 * filter refusing the call) nothing changes and the result says why; it is never an error
 * that stops the proxy. No state: the caller keeps the result for its stats.
 *
 * Not asked by default (--slice-us asks): it helps where the forwarding thread shares its
 * CPU with CPU-bound threads, and costs where it does not (a preemption on a small virtual
 * machine is a trip through the host; the figures: docs/PERFORMANCE.md, "Sixth pass"). */
#ifndef BELAY_PROXY_LOOP_SLICE_H
#define BELAY_PROXY_LOOP_SLICE_H
#include <stddef.h>
#include <sys/types.h>

#define LOOP_SLICE_MIN_US 100u /* the kernel's shortest */
#define LOOP_SLICE_MAX_US 100000u /* the kernel's longest */

struct loop_slice {
	unsigned asked_us; /* 0: nothing asked (the kernel's default kept) */
	unsigned was_us;   /* the thread's slice before (0: the kernel does not say) */
	unsigned now_us;   /* after, read back (0: the kernel does not say) */
	int applied;       /* the kernel runs the thread with the slice asked for */
	char why[160];     /* when not applied: why not */
};

/* Asks for a slice of `us` microseconds (LOOP_SLICE_MIN_US..LOOP_SLICE_MAX_US; 0 asks for
 * nothing) on the calling thread. Fills *out; returns 0 when applied (or nothing was asked),
 * else a negative errno or BELAY_E* code with out->why set. */
int loop_slice_set(unsigned us, struct loop_slice *out);

/* A command line's --slice-us: 0 (the kernel's default kept) or LOOP_SLICE_MIN_US..
 * LOOP_SLICE_MAX_US, digits only. 0 and *us set, or BELAY_EUSAGE. */
int loop_slice_parse(const char *text, unsigned *us);

/* The slice of thread `tid` (0: the caller) in microseconds, or 0 when the kernel does not
 * say (before 6.12, or no such thread). */
unsigned loop_slice_of(pid_t tid);

/* One line for the stats: "100 us (kernel default 1400 us)", "kernel default (not asked)",
 * "not applied: WHY". */
void loop_slice_describe(const struct loop_slice *s, char *buf, size_t n);

#endif
