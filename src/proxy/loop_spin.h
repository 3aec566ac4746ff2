/* loop_spin.h - spin, then block: after the proxy forwards a chunk, its loop keeps polling
 * without sleeping for a short window, so that the answer it expects next (the server's
 * reply to a request, the client's next request after a reply) is read as it arrives rather
 * than after a sleeping thread is woken. On a small virtual machine that wake-up is most of
 * what a process in the middle adds to a round trip (bench_proxy's relay floor); a window
 * that catches the answer removes it, at the price of the CPU spun.
 *
 * The window adapts to what it waits for: each direction keeps the last LOOP_SPIN_SAMPLES
 * gaps between a forwarded chunk and the next input, and the window is twice their 90th
 * percentile, at most the maximum - or none at all when their median is longer than the
 * maximum (an agent thinking for seconds between calls, a server that takes milliseconds:
 * the loop sleeps as before). The wait for a client's next request gets a quarter of the
 * maximum: requests sent on a clock come late in their gap, and spinning through it would
 * take the CPU the sender needs. So the CPU spun is at most the maximum per forwarded chunk,
 * and only while answers come that fast.
 *
 * A spinning loop never keeps a CPU that another thread is waiting for: each turn of the
 * spin yields (sched_yield), so a peer's own threads (a Node server's garbage collector and
 * compiler run beside its main thread) run first and the loop spins only on time that
 * nobody else wants. A yield that gave the CPU away is counted (st.gave_way).
 *
 * The window is a libuv idle handle: while it is active the loop's poll phase does not
 * block, and every other handle (timers, the trace writer's wake-ups, signals) runs as
 * usual. Loop thread only. Ownership: the caller embeds the struct and closes the handle
 * (loop_spin_close) before freeing it. */
#ifndef BELAY_PROXY_LOOP_SPIN_H
#define BELAY_PROXY_LOOP_SPIN_H
#include <stdint.h>
#include <uv.h>

#define LOOP_SPIN_DEFAULT_US 400u /* the default maximum window */
#define LOOP_SPIN_MAX_US 100000u
#define LOOP_SPIN_SAMPLES 32    /* gaps remembered per direction */
#define LOOP_SPIN_MIN_SAMPLES 8 /* no window before this many */

/* What a window waits for. */
enum loop_spin_wait {
	LOOP_SPIN_REPLY = 0,   /* a request went to the server: its answer */
	LOOP_SPIN_REQUEST = 1, /* an answer went to the client: its next request */
};

struct loop_spin_stats {
	uint64_t windows; /* opened */
	uint64_t caught;  /* ended by input arriving inside the window */
	uint64_t expired; /* ended by the window running out (the loop then blocks) */
	uint64_t spun_ns; /* wall time spent inside windows */
	uint64_t skipped; /* forwarded chunks after which no window opened (too few or too long gaps) */
	uint64_t gave_way;    /* yields inside windows that let another thread run first */
	uint64_t gave_way_ns; /* wall time those yields took */
};

/* A yield that takes longer than this let another thread run (the call alone takes ~1 us). */
#define LOOP_SPIN_GAVE_WAY_NS 20000u

struct loop_spin {
	uv_idle_t idle;
	uint64_t max_ns;    /* 0: never spins */
	uint64_t t0;        /* when the open window opened; 0 when none is open */
	uint64_t len_ns;    /* the open window's length */
	uint64_t sent[2];   /* per loop_spin_wait: when its chunk was forwarded (0: answered) */
	uint32_t gaps[2][LOOP_SPIN_SAMPLES]; /* ns, capped at UINT32_MAX */
	unsigned ngaps[2], next[2];
	struct loop_spin_stats st;
};

void loop_spin_init(uv_loop_t *loop, struct loop_spin *sp, unsigned max_us);
/* A chunk was forwarded and `what` is expected next: maybe open a window. */
void loop_spin_open(struct loop_spin *sp, enum loop_spin_wait what);
/* A chunk arrived; answers is what it is (a client's chunk answers LOOP_SPIN_REQUEST, a
 * server's LOOP_SPIN_REPLY). Ends the open window. */
void loop_spin_input(struct loop_spin *sp, enum loop_spin_wait answers);
/* Ends any open window and closes the handle (cb may be NULL; handle->data is the caller's). */
void loop_spin_close(struct loop_spin *sp, uv_close_cb cb);

/* The window rule, pure: for the n most recent gaps (ns, any order), the window to spin
 * (ns; 0: none) - none below LOOP_SPIN_MIN_SAMPLES or when the median passes max_ns; else
 * twice the 90th percentile, at most max_ns. */
uint64_t loop_spin_window(const uint32_t *gaps, unsigned n, uint64_t max_ns);

#endif
