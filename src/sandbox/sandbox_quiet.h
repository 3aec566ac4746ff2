/* sandbox_quiet.h - proof that a contained server's process tree is quiet: no thread of it
 * can run before a given time unless something outside the tree writes to it.
 *
 * A replay waits after each reply for the server to be quiet for a window (late writes
 * belong to their own turn). When the proof holds, whatever waiting out that window would
 * have observed is already observed, so the wait can end now. The proof reads /proc: every
 * thread of every process under the root is asleep (state S) in a wait the kernel ends only
 * on input — an untimed epoll/poll/select/futex/signal/child wait, or a blocking read — or in
 * a timed one that cannot expire before the deadline (the thread ran after the `since`
 * sample, so its wait began after it); no process holds a timerfd, an io_uring or a POSIX
 * timer; and a second pass finds the same threads with the same run counters (nobody ran
 * while the first pass read). Anything else, or anything unreadable, is "not proven" with a
 * reason: the caller then keeps waiting. Known gap: an interval timer (alarm, setitimer) is
 * not visible in /proc (docs/VERDICTS.md).
 *
 * Input from outside the tree: the caller must know none can come (the replay sends nothing
 * while it settles and runs servers with the network denied; every socket peer is then in
 * the tree or the caller itself).
 *
 * Ownership: a sample belongs to the caller (sandbox_quiet_sample_free). Threads: any; no
 * state is shared. Must not: print, signal or trace the processes. */
#ifndef BELAY_SANDBOX_SANDBOX_QUIET_H
#define BELAY_SANDBOX_SANDBOX_QUIET_H
#include <stdint.h>
#include <sys/types.h>

struct sandbox_quiet_sample;

/* Every thread of the tree under `root` (root included) with its run counters, read at
 * *at_ns (CLOCK_MONOTONIC, taken before the first read). NULL when the tree cannot be read. */
struct sandbox_quiet_sample *sandbox_quiet_sample_take(pid_t root, uint64_t *at_ns);
void sandbox_quiet_sample_free(struct sandbox_quiet_sample *s);

/* 1 when proven that no thread of the tree under `root` can run before `until_ns` without
 * outside input, given `since` (taken at since_ns, before the input the tree last got); 0
 * otherwise, with *why (static text) saying what stood in the way. */
int sandbox_quiet_proven(pid_t root, const struct sandbox_quiet_sample *since, uint64_t since_ns,
			 uint64_t until_ns, const char **why);

/* 1 when some thread of the tree under `root` is runnable, in an uninterruptible sleep, or
 * waiting for a seccomp supervisor's answer (/proc's wchan: it goes on once answered, e.g. an
 * open for writing belay's supervisor decides) - it will run without any input: a timer that
 * fired and woke it, work it has not finished; 0 when every thread sleeps otherwise or is
 * stopped or dead, -1 when the tree cannot be read. A window that ends by the clock must not
 * end on 1: on a loaded machine a woken thread can wait for a CPU, and a held syscall for the
 * supervisor, longer than the window lasts. A thread whose wchan cannot be read is taken by
 * its state letter alone. *why (static text) names what was seen on 1 or -1. */
int sandbox_quiet_runnable(pid_t root, const char **why);

#endif
