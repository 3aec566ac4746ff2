/* loop_spin.c - spin, then block (loop_spin.h). */
#include "proxy/loop_spin.h"
#include <sched.h>
#include <string.h>
#include "common/timeutil.h"

/* At most LOOP_SPIN_SAMPLES values, sorted once per window: an insertion sort (qsort's
 * merge sort and its calls through a pointer were 1% of the loop's samples). */
static void sort_u32(uint32_t *v, unsigned n)
{
	for (unsigned i = 1; i < n; i++) {
		uint32_t x = v[i];
		unsigned j = i;
		for (; j > 0 && v[j - 1] > x; j--)
			v[j] = v[j - 1];
		v[j] = x;
	}
}

uint64_t loop_spin_window(const uint32_t *gaps, unsigned n, uint64_t max_ns)
{
	if (n < LOOP_SPIN_MIN_SAMPLES || !max_ns)
		return 0;
	if (n > LOOP_SPIN_SAMPLES)
		n = LOOP_SPIN_SAMPLES;
	uint32_t s[LOOP_SPIN_SAMPLES];
	memcpy(s, gaps, n * sizeof *s);
	sort_u32(s, n);
	if (s[n / 2] > max_ns)
		return 0;
	uint64_t p90 = s[(n * 9) / 10], w = 2 * p90;
	return w < max_ns ? w : max_ns;
}

static void end_window(struct loop_spin *sp, uint64_t now, int caught)
{
	sp->st.spun_ns += now - sp->t0;
	if (caught)
		sp->st.caught++;
	else
		sp->st.expired++;
	sp->t0 = 0;
	uv_idle_stop(&sp->idle);
}

static void idle_cb(uv_idle_t *h)
{
	struct loop_spin *sp = (struct loop_spin *)h; /* idle is the first member */
	uint64_t now = time_mono_ns();
	if (!sp->t0)
		return;
	if (now - sp->t0 >= sp->len_ns) {
		end_window(sp, now, 0);
		return;
	}
	/* whoever else is waiting for this CPU runs first (loop_spin.h) */
	sched_yield();
	uint64_t took = time_mono_ns() - now;
	if (took > LOOP_SPIN_GAVE_WAY_NS) {
		sp->st.gave_way++;
		sp->st.gave_way_ns += took;
	}
}

void loop_spin_init(uv_loop_t *loop, struct loop_spin *sp, unsigned max_us)
{
	memset(sp, 0, sizeof *sp);
	uv_idle_init(loop, &sp->idle);
	if (max_us > LOOP_SPIN_MAX_US)
		max_us = LOOP_SPIN_MAX_US;
	sp->max_ns = (uint64_t)max_us * 1000u;
}

void loop_spin_open(struct loop_spin *sp, enum loop_spin_wait what)
{
	if (!sp->max_ns)
		return;
	uint64_t now = time_mono_ns();
	sp->sent[what] = now ? now : 1;
	/* a client's next request is worth a quarter of the wait for a server's reply: one
	 * sent on a clock (an agent's pace, a test's 1,000 calls a second) comes late in the
	 * gap, and spinning through the gap would take the CPU its sender needs */
	uint64_t max = what == LOOP_SPIN_REQUEST ? sp->max_ns / 4 : sp->max_ns;
	uint64_t len = loop_spin_window(sp->gaps[what], sp->ngaps[what], max);
	if (!len) {
		sp->st.skipped++;
		return;
	}
	if (sp->t0) { /* more went out inside the window: it starts again from now */
		sp->st.spun_ns += now - sp->t0;
	} else {
		sp->st.windows++;
		uv_idle_start(&sp->idle, idle_cb);
	}
	sp->t0 = now ? now : 1;
	sp->len_ns = len;
}

void loop_spin_input(struct loop_spin *sp, enum loop_spin_wait answers)
{
	if (!sp->max_ns)
		return;
	uint64_t now = time_mono_ns();
	if (sp->sent[answers]) {
		uint64_t gap = now - sp->sent[answers];
		sp->gaps[answers][sp->next[answers]] = gap > UINT32_MAX ? UINT32_MAX : (uint32_t)gap;
		sp->next[answers] = (sp->next[answers] + 1) % LOOP_SPIN_SAMPLES;
		if (sp->ngaps[answers] < LOOP_SPIN_SAMPLES)
			sp->ngaps[answers]++;
		sp->sent[answers] = 0;
	}
	if (sp->t0)
		end_window(sp, now, 1);
}

void loop_spin_close(struct loop_spin *sp, uv_close_cb cb)
{
	if (sp->t0)
		end_window(sp, time_mono_ns(), 0);
	uv_close((uv_handle_t *)&sp->idle, cb);
}
