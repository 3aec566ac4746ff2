/* timeutil.c - ISO-8601 stamps (UTC, microseconds) and monotonic time. */
#include "common/timeutil.h"

#include <stdio.h>
#include <string.h>

#include "common/err.h"

void time_iso8601(const struct timespec *ts, char out[ISO_TS_LEN])
{
	/* The date and time to the second, formatted once per second per thread (the trace
	 * writer stamps every record) */
	static __thread time_t last = (time_t)-1;
	static __thread char head[ISO_TS_LEN];
	static __thread size_t head_len;
	if (ts->tv_sec != last || !head_len) {
		struct tm tm;
		gmtime_r(&ts->tv_sec, &tm);
		int n = snprintf(head, sizeof head, "%04d-%02d-%02dT%02d:%02d:%02d", (tm.tm_year + 1900) % 10000,
				 (tm.tm_mon + 1) % 100, tm.tm_mday % 100, tm.tm_hour % 100, tm.tm_min % 100, tm.tm_sec % 100);
		head_len = (size_t)n;
		last = ts->tv_sec;
	}
	memcpy(out, head, head_len);
	char *p = out + head_len;
	int us = (int)(ts->tv_nsec / 1000) % 1000000;
	if (us < 0)
		us = 0;
	*p++ = '.';
	for (int i = 5; i >= 0; i--, us /= 10)
		p[i] = (char)('0' + us % 10);
	memcpy(p + 6, "+00:00", 7);
}

void time_now_iso8601(char out[ISO_TS_LEN])
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	time_iso8601(&ts, out);
}

void time_compact_utc(char out[24])
{
	time_t now = time(NULL);
	struct tm tm;
	gmtime_r(&now, &tm);
	strftime(out, 24, "%Y%m%dT%H%M%SZ", &tm);
}

int time_parse_iso8601(const char *s, struct timespec *out)
{
	struct tm tm;
	memset(&tm, 0, sizeof tm);
	int us = 0, n = 0;
	if (sscanf(s, "%4d-%2d-%2dT%2d:%2d:%2d.%6d+00:00%n", &tm.tm_year, &tm.tm_mon, &tm.tm_mday, &tm.tm_hour,
		   &tm.tm_min, &tm.tm_sec, &us, &n) != 7 ||
	    s[n] != '\0')
		return BELAY_EINVAL;
	tm.tm_year -= 1900;
	tm.tm_mon -= 1;
	out->tv_sec = timegm(&tm);
	out->tv_nsec = (long)us * 1000;
	return 0;
}

uint64_t time_mono_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

uint64_t time_thread_cpu_ns(const pthread_t *t)
{
	clockid_t id = CLOCK_THREAD_CPUTIME_ID;
	struct timespec ts;
	if ((t && pthread_getcpuclockid(*t, &id) != 0) || clock_gettime(id, &ts) != 0)
		return 0;
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

void time_realtime_after(uint64_t ns, struct timespec *out)
{
	clock_gettime(CLOCK_REALTIME, out);
	out->tv_sec += (time_t)(ns / 1000000000u);
	out->tv_nsec += (long)(ns % 1000000000u);
	if (out->tv_nsec >= 1000000000L) {
		out->tv_sec++;
		out->tv_nsec -= 1000000000L;
	}
}

int64_t time_iso_diff_ns(const char *a, const char *b)
{
	struct timespec ta, tb;
	if (!a || !b || time_parse_iso8601(a, &ta) || time_parse_iso8601(b, &tb))
		return INT64_MIN;
	int64_t ds = (int64_t)tb.tv_sec - ta.tv_sec;
	if (ds > INT64_MAX / 1000000000 - 1 || ds < INT64_MIN / 1000000000 + 1)
		return INT64_MIN; /* ~292 years or more apart: not a number of nanoseconds */
	return ds * 1000000000 + (tb.tv_nsec - ta.tv_nsec);
}
