/* test_timeutil.c - ISO-8601 stamps (common/timeutil.h): time_iso8601 caches the part to
 * the second per thread, so stamps in the same second, in the next one, going back in time
 * and on several threads must each still read exactly as gmtime and printf would write them,
 * and parse back to the same microsecond. */
#include <criterion/criterion.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "common/timeutil.h"

static void reference(const struct timespec *ts, char out[ISO_TS_LEN])
{
	struct tm tm;
	gmtime_r(&ts->tv_sec, &tm);
	snprintf(out, ISO_TS_LEN, "%04d-%02d-%02dT%02d:%02d:%02d.%06d+00:00", (tm.tm_year + 1900) % 10000,
		 (tm.tm_mon + 1) % 100, tm.tm_mday % 100, tm.tm_hour % 100, tm.tm_min % 100, tm.tm_sec % 100,
		 (int)(ts->tv_nsec / 1000) % 1000000);
}

static void check(time_t sec, long nsec)
{
	struct timespec ts = {sec, nsec}, back;
	char got[ISO_TS_LEN], want[ISO_TS_LEN];
	time_iso8601(&ts, got);
	reference(&ts, want);
	cr_assert_str_eq(got, want, "%lld.%09ld", (long long)sec, nsec);
	cr_assert_eq(time_parse_iso8601(got, &back), 0, "%s does not parse", got);
	cr_assert(back.tv_sec == sec && back.tv_nsec == nsec / 1000 * 1000, "%s parses to another time", got);
}

static void *many(void *arg)
{
	time_t base = *(const time_t *)arg;
	for (int i = 0; i < 20000; i++) /* seconds on, and back, and on; micro- and nanoseconds */
		check(base + (i % 7 == 3 ? -(i % 5) : i / 3), (long)((unsigned)i * 7919u * 104729u % 1000000000u));
	return NULL;
}

Test(timeutil, stamps_read_as_gmtime_writes_them_in_every_second_and_on_every_thread)
{
	const long edge[] = {0, 1, 999, 1000, 999999, 1000000, 999999999};
	const time_t secs[] = {0, 1, 59, 86399, 86400, 951782400 /* 2000-02-29 */, 1798761599, 2147483647,
			       2147483648LL, 253402300799LL /* 9999-12-31T23:59:59 */};
	for (size_t i = 0; i < sizeof secs / sizeof secs[0]; i++)
		for (size_t j = 0; j < sizeof edge / sizeof edge[0]; j++)
			check(secs[i], edge[j]);
	time_t bases[3] = {1764620000, 1000000000, 4102444800LL};
	pthread_t t[3];
	for (int i = 0; i < 3; i++)
		cr_assert_eq(pthread_create(&t[i], NULL, many, &bases[i]), 0);
	for (int i = 0; i < 3; i++)
		pthread_join(t[i], NULL);
}

/* Works until this thread has run 30 ms of CPU (however long a busy machine takes to give
 * it that: bounded by 10 minutes of wall time), then reports its CPU time. */
static void *spin(void *arg)
{
	volatile unsigned long x = 0;
	uint64_t start = time_thread_cpu_ns(NULL), give_up = time_mono_ns() + 600 * 1000000000ull;
	while (time_thread_cpu_ns(NULL) - start < 30 * 1000000ull && time_mono_ns() < give_up)
		for (int i = 0; i < 10000; i++)
			x++;
	*(uint64_t *)arg = time_thread_cpu_ns(NULL);
	return NULL;
}

Test(timeutil, a_threads_cpu_time_is_what_it_spent_working)
{
	/* the proxy's `cpu:` line: the calling thread's time, and another live thread's */
	uint64_t before = time_thread_cpu_ns(NULL), own = 0;
	spin(&own);
	cr_assert_gt(own, before + 10 * 1000000ull, "30 ms of spinning counted %llu ns", (unsigned long long)(own - before));
	pthread_t self = pthread_self();
	cr_assert_geq(time_thread_cpu_ns(&self), own);
	uint64_t theirs = 0;
	pthread_t t;
	cr_assert_eq(pthread_create(&t, NULL, spin, &theirs), 0);
	pthread_join(t, NULL);
	cr_assert_gt(theirs, 10 * 1000000ull);
	cr_assert_lt(time_thread_cpu_ns(NULL), own + 25 * 1000000ull, "another thread's work was counted as ours");
}
