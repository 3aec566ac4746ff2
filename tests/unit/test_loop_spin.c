/* test_loop_spin.c - spin, then block (proxy/loop_spin.h): the window rule on its own, then
 * a libuv loop forwarding to a peer thread over a socketpair - answers that come at once are
 * caught inside windows, answers that take far longer than the maximum open none, a maximum
 * of 0 never spins, a client's next request gets a quarter of the maximum, a spinning loop
 * gives its CPU to a thread that wants it - and `belay proxy` spinning (none with
 * --spin-us 0) and refusing what is not a number in range. */
#include <criterion/criterion.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include <uv.h>

#include "common/xalloc.h"
#include "proxy/loop_spin.h"
#include "ts_belay.h"

#define US 1000u

static void fill(uint32_t *g, unsigned n, uint32_t v)
{
	for (unsigned i = 0; i < n; i++)
		g[i] = v;
}

Test(loop_spin, the_window_rule)
{
	uint32_t g[LOOP_SPIN_SAMPLES];
	fill(g, LOOP_SPIN_SAMPLES, 100 * US);
	/* too few gaps yet: no window */
	cr_expect_eq(loop_spin_window(g, LOOP_SPIN_MIN_SAMPLES - 1, 1000 * US), 0);
	cr_expect_eq(loop_spin_window(g, 0, 1000 * US), 0);
	/* twice the 90th percentile */
	cr_expect_eq(loop_spin_window(g, LOOP_SPIN_MIN_SAMPLES, 1000 * US), 200 * US);
	cr_expect_eq(loop_spin_window(g, LOOP_SPIN_SAMPLES, 1000 * US), 200 * US);
	/* at most the maximum; none at all with a maximum of 0 */
	cr_expect_eq(loop_spin_window(g, LOOP_SPIN_SAMPLES, 150 * US), 150 * US);
	cr_expect_eq(loop_spin_window(g, LOOP_SPIN_SAMPLES, 0), 0);
	/* the slow tail sets the window, in whatever order the gaps came */
	for (unsigned i = 0; i < LOOP_SPIN_SAMPLES; i++)
		g[i] = (i % 5 == 0) ? 300 * US : 50 * US; /* 7 of 32 slow: the 90th percentile is slow */
	uint64_t w = loop_spin_window(g, LOOP_SPIN_SAMPLES, 10000 * US);
	cr_expect_eq(w, 600 * US, "%llu", (unsigned long long)w);
	for (unsigned i = 0; i < LOOP_SPIN_SAMPLES; i++)
		g[i] = i < 29 ? 50 * US : 300 * US; /* 3 of 32 slow: the 90th percentile is fast */
	cr_expect_eq(loop_spin_window(g, LOOP_SPIN_SAMPLES, 10000 * US), 100 * US);
	g[0] = 1000 * US; /* the slowest first: 4 of 32 slow, the 90th percentile is 300 us */
	for (unsigned i = 1; i < LOOP_SPIN_SAMPLES; i++)
		g[i] = i < 29 ? 50 * US : 300 * US;
	cr_expect_eq(loop_spin_window(g, LOOP_SPIN_SAMPLES, 10000 * US), 600 * US);
	/* answers that usually take longer than the maximum: the loop sleeps */
	for (unsigned i = 0; i < LOOP_SPIN_SAMPLES; i++)
		g[i] = i < 16 ? 50 * US : 5000 * US;
	cr_expect_eq(loop_spin_window(g, LOOP_SPIN_SAMPLES, 1000 * US), 0, "median 5 ms > 1 ms");
	for (unsigned i = 0; i < LOOP_SPIN_SAMPLES; i++)
		g[i] = i < 17 ? 50 * US : 5000 * US;
	cr_expect_eq(loop_spin_window(g, LOOP_SPIN_SAMPLES, 1000 * US), 1000 * US, "median fast, tail slow");
	/* more gaps than remembered read as the remembered ones */
	uint32_t big[LOOP_SPIN_SAMPLES * 2];
	fill(big, LOOP_SPIN_SAMPLES * 2, 10 * US);
	cr_expect_eq(loop_spin_window(big, LOOP_SPIN_SAMPLES * 2, 1000 * US), 20 * US);
}

/* A peer thread answers every byte at once, or after delay_us (every answer, or with
 * slow_every N only every Nth); the loop sends the next byte as each
 * answer arrives, opening a window after each send, as the proxy does. */
struct rig {
	uv_loop_t loop;
	uv_poll_t poll;
	struct loop_spin sp;
	int fd, peer_fd;
	unsigned delay_us, slow_every, left;
	enum loop_spin_wait what; /* the direction the windows wait in */
};

static void *peer_main(void *arg)
{
	struct rig *r = arg;
	char c;
	for (unsigned k = 1; read(r->peer_fd, &c, 1) == 1; k++) {
		if (r->delay_us && (!r->slow_every || k % r->slow_every == 0)) {
			struct timespec ts = {r->delay_us / 1000000u, (long)(r->delay_us % 1000000u) * 1000L};
			nanosleep(&ts, NULL);
		}
		if (write(r->peer_fd, &c, 1) != 1)
			break;
	}
	return NULL;
}

static void send_one(struct rig *r)
{
	cr_assert_eq(write(r->fd, "x", 1), 1);
	loop_spin_open(&r->sp, r->what);
}

static void on_readable(uv_poll_t *p, int status, int events)
{
	struct rig *r = p->data;
	(void)events;
	cr_assert_eq(status, 0);
	char c;
	cr_assert_eq(read(r->fd, &c, 1), 1);
	loop_spin_input(&r->sp, r->what);
	if (--r->left)
		send_one(r);
	else
		uv_poll_stop(p);
}

static struct loop_spin_stats round_trips_waiting(enum loop_spin_wait what, unsigned max_us, unsigned delay_us,
						  unsigned slow_every, unsigned n)
{
	struct rig r = {.delay_us = delay_us, .slow_every = slow_every, .left = n, .what = what};
	int sv[2];
	cr_assert_eq(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	r.fd = sv[0];
	r.peer_fd = sv[1];
	pthread_t th;
	cr_assert_eq(pthread_create(&th, NULL, peer_main, &r), 0);
	uv_loop_init(&r.loop);
	loop_spin_init(&r.loop, &r.sp, max_us);
	uv_poll_init(&r.loop, &r.poll, r.fd);
	r.poll.data = &r;
	uv_poll_start(&r.poll, UV_READABLE, on_readable);
	send_one(&r);
	uv_run(&r.loop, UV_RUN_DEFAULT);
	struct loop_spin_stats st = r.sp.st;
	loop_spin_close(&r.sp, NULL);
	uv_close((uv_handle_t *)&r.poll, NULL);
	uv_run(&r.loop, UV_RUN_DEFAULT);
	cr_expect_eq(uv_loop_close(&r.loop), 0);
	shutdown(r.fd, SHUT_RDWR);
	pthread_join(th, NULL);
	close(r.fd);
	close(r.peer_fd);
	return st;
}

static struct loop_spin_stats round_trips(unsigned max_us, unsigned delay_us, unsigned slow_every, unsigned n)
{
	return round_trips_waiting(LOOP_SPIN_REPLY, max_us, delay_us, slow_every, n);
}

Test(loop_spin, answers_at_once_are_caught_inside_windows)
{
	/* the largest maximum: an answer from a thread that replies at once is caught unless the
	 * machine stalls the thread for over a tenth of a second */
	struct loop_spin_stats st = round_trips(LOOP_SPIN_MAX_US, 0, 0, 200);
	cr_expect_eq(st.skipped, LOOP_SPIN_MIN_SAMPLES, "windows open once there are enough gaps");
	cr_expect_eq(st.windows + st.skipped, 200);
	cr_expect_eq(st.caught + st.expired, st.windows, "every window ends, one way or the other");
	cr_expect_gt(st.caught, st.windows / 2, "caught %llu of %llu", (unsigned long long)st.caught,
		     (unsigned long long)st.windows);
	cr_expect_gt(st.spun_ns, 0);
}

Test(loop_spin, slow_answers_open_no_window)
{
	/* 20 ms answers against a 1 ms maximum: the loop sleeps every time */
	struct loop_spin_stats st = round_trips(1000, 20000, 0, 20);
	cr_expect_eq(st.windows, 0);
	cr_expect_eq(st.skipped, 20);
	cr_expect_eq(st.spun_ns, 0);
}

Test(loop_spin, a_window_runs_out_and_the_loop_sleeps)
{
	/* one answer in four takes 30 ms: the median is fast, so windows open at the 5 ms
	 * maximum, and every slow answer outlasts its window */
	struct loop_spin_stats st = round_trips(5000, 30000, 4, 60);
	cr_expect_gt(st.windows, 0);
	cr_expect_geq(st.expired, (st.windows - 4) / 4, "expired %llu of %llu", (unsigned long long)st.expired,
		      (unsigned long long)st.windows);
	cr_expect_eq(st.caught + st.expired, st.windows);
	/* each expired window spun its whole length, and no more than that */
	cr_expect_geq(st.spun_ns, st.expired * 5000ull * 1000u);
	cr_expect_lt(st.spun_ns, st.windows * 5000ull * 1000u + 1000000000ull);
}

Test(loop_spin, a_clients_next_request_gets_a_quarter_of_the_maximum)
{
	/* 2 ms gaps against an 8 ms maximum: the server's reply is worth a window, the client's
	 * next request (2 ms maximum, and every gap longer than that) is not */
	struct loop_spin_stats reply = round_trips_waiting(LOOP_SPIN_REPLY, 8000, 2000, 0, 20);
	cr_expect_eq(reply.windows, 20 - LOOP_SPIN_MIN_SAMPLES);
	struct loop_spin_stats req = round_trips_waiting(LOOP_SPIN_REQUEST, 8000, 2000, 0, 20);
	cr_expect_eq(req.windows, 0);
	cr_expect_eq(req.skipped, 20);
}

Test(loop_spin, a_maximum_of_zero_never_spins)
{
	struct loop_spin_stats st = round_trips(0, 0, 0, 50);
	cr_expect_eq(st.windows, 0);
	cr_expect_eq(st.skipped, 0, "nothing is even considered");
	cr_expect_eq(st.spun_ns, 0);
}

/* A thread that wants the CPU the loop spins on gets it: a busy thread pinned to the loop's
 * CPU runs through a 100 ms window while the loop takes almost none of it (without the
 * yield the two share that CPU about evenly). */
static atomic_int busy_go, busy_stop;
static int busy_cpu;
static uint64_t busy_cpu_ns;

static uint64_t thread_cpu_ns(void)
{
	struct timespec t;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

static void pin_to(int cpu)
{
	cpu_set_t set;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	cr_assert_eq(pthread_setaffinity_np(pthread_self(), sizeof set, &set), 0);
}

static void *busy_main(void *arg)
{
	(void)arg;
	pin_to(busy_cpu);
	while (!atomic_load(&busy_go))
		sched_yield();
	uint64_t c0 = thread_cpu_ns();
	while (!atomic_load(&busy_stop))
		;
	busy_cpu_ns = thread_cpu_ns() - c0;
	return NULL;
}

Test(loop_spin, a_spinning_loop_gives_its_cpu_to_a_thread_that_wants_it)
{
	cpu_set_t allowed;
	cr_assert_eq(sched_getaffinity(0, sizeof allowed, &allowed), 0);
	for (busy_cpu = 0; !CPU_ISSET(busy_cpu, &allowed); busy_cpu++)
		;
	pin_to(busy_cpu);
	uv_loop_t loop;
	uv_loop_init(&loop);
	struct loop_spin sp;
	loop_spin_init(&loop, &sp, LOOP_SPIN_MAX_US);
	/* answers have taken 50 ms: the next window is the 100 ms maximum */
	fill(sp.gaps[LOOP_SPIN_REPLY], LOOP_SPIN_SAMPLES, 50000 * US);
	sp.ngaps[LOOP_SPIN_REPLY] = LOOP_SPIN_SAMPLES;
	pthread_t th;
	cr_assert_eq(pthread_create(&th, NULL, busy_main, NULL), 0);
	struct timespec settle = {0, 20000000};
	nanosleep(&settle, NULL); /* the busy thread is up, pinned, waiting */
	atomic_store(&busy_go, 1);
	uint64_t c0 = thread_cpu_ns();
	loop_spin_open(&sp, LOOP_SPIN_REPLY);
	uv_run(&loop, UV_RUN_DEFAULT); /* only the window is active: returns when it runs out */
	uint64_t spun_cpu = thread_cpu_ns() - c0;
	atomic_store(&busy_stop, 1);
	pthread_join(th, NULL);
	cr_expect_eq(sp.st.windows, 1);
	cr_expect_eq(sp.st.expired, 1, "nothing came: the window ran out");
	/* the yields are counted: the busy thread's turns were most of the window */
	cr_expect_gt(sp.st.gave_way, 0);
	cr_expect_gt(sp.st.gave_way_ns, sp.st.spun_ns * 8 / 10, "gave way %.1f ms of %.1f ms spun",
		     (double)sp.st.gave_way_ns / 1e6, (double)sp.st.spun_ns / 1e6);
	cr_expect_gt(busy_cpu_ns, 4 * spun_cpu, "the busy thread ran %.1f ms, the spinning loop %.1f ms",
		     (double)busy_cpu_ns / 1e6, (double)spun_cpu / 1e6);
	loop_spin_close(&sp, NULL);
	uv_run(&loop, UV_RUN_DEFAULT);
	cr_expect_eq(uv_loop_close(&loop), 0);
}

Test(loop_spin, the_cli_refuses_a_bad_window)
{
	static const char *const bad[] = {"x", "-1", "100001", "", "5us"};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		struct ts_out o;
		ts_belay(&o, NULL, "proxy", "--no-trace", "--spin-us", bad[i], "--", "true", NULL);
		cr_expect_eq(o.status, 2, "--spin-us '%s': exit %d", bad[i], o.status);
		cr_expect(strstr(o.err, "--spin-us must be a whole number of microseconds from 0 to 100000"), "%s",
			  o.err);
		ts_out_free(&o);
	}
	struct ts_out o;
	ts_belay(&o, NULL, "proxy", "--no-trace", "--spin-us", "0", "--", "true", NULL);
	cr_expect_eq(o.status, 0, "%s", o.err);
	ts_out_free(&o);
}

/* The proxy spins: a session of quick requests through `belay proxy` opens windows (the
 * largest maximum, so that a slow machine still counts as quick), and --spin-us 0 none. */
static unsigned long long proxy_windows(const char *spin, unsigned long long *skipped)
{
	char *ws = ts_tmpdir("loop-spin");
	const char *argv[] = {BELAY_BIN, "proxy", "--no-trace", "--spin-us", spin, "--", BELAY_BUILD_DIR "/belay-demo-server",
			      "all", ws, NULL};
	enum { N = 40 };
	char *own[N];
	const char *lines[N + 3];
	lines[0] = "{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-06-18\","
		   "\"capabilities\":{},\"clientInfo\":{\"name\":\"ts\",\"version\":\"1\"}}}";
	lines[1] = "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}";
	for (int i = 0; i < N; i++) {
		own[i] = xasprintf("{\"jsonrpc\":\"2.0\",\"id\":%d,\"method\":\"tools/list\",\"params\":{}}", i + 1);
		lines[i + 2] = own[i];
	}
	lines[N + 2] = NULL;
	static const char *const env[] = {"BELAY_PROXY_STATS=1", NULL};
	struct ts_out o;
	cr_assert_eq(ts_mcp_session(argv, env, lines, 60, &o), 0, "%s", o.err);
	const char *at = strstr(o.err, "belay: spin: ");
	cr_assert(at, "no spin line: %s", o.err);
	unsigned long long windows = 0;
	const char *sk = strstr(at, " ms spun, ");
	cr_assert(sscanf(at, "belay: spin: %llu window(s)", &windows) == 1 && sk &&
		      sscanf(sk, " ms spun, %llu chunk(s)", skipped) == 1,
		  "%s", at);
	ts_out_free(&o);
	for (int i = 0; i < N; i++)
		free(own[i]);
	ts_rmtree(ws);
	free(ws);
	return windows;
}

Test(loop_spin, the_proxy_spins_unless_told_not_to)
{
	unsigned long long skipped = 0;
	cr_expect_gt(proxy_windows("100000", &skipped), 20, "skipped %llu", skipped);
	cr_expect_eq(proxy_windows("0", &skipped), 0);
	cr_expect_eq(skipped, 0, "--spin-us 0 considers nothing");
}
