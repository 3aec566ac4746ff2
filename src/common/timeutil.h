/* timeutil.h - wall-clock stamps for records and monotonic clocks for measurement. */
#ifndef BELAY_COMMON_TIMEUTIL_H
#define BELAY_COMMON_TIMEUTIL_H
#include <pthread.h>
#include <stdint.h>
#include <time.h>

#define ISO_TS_LEN 40
/* "2026-11-29T17:36:16.123456+00:00" (UTC, microseconds) for the given realtime ts. */
void time_iso8601(const struct timespec *ts, char out[ISO_TS_LEN]);
void time_now_iso8601(char out[ISO_TS_LEN]);
/* "20261129T173616Z" (compact, for file names). */
void time_compact_utc(char out[24]);
/* Parses time_iso8601's format back; returns 0 or BELAY_EINVAL. */
int time_parse_iso8601(const char *s, struct timespec *out);
uint64_t time_mono_ns(void);
/* CPU time a thread of this process has used so far (0: the calling thread), in ns; 0
 * when it cannot be read. */
uint64_t time_thread_cpu_ns(const pthread_t *t);
/* The CLOCK_REALTIME time ns nanoseconds from now: the deadline pthread_cond_timedwait
 * takes for a wait of ns. */
void time_realtime_after(uint64_t ns, struct timespec *out);
/* Nanoseconds between two iso8601 stamps (b - a), or INT64_MIN if either is unreadable or
 * they are too far apart for an int64_t of nanoseconds. */
int64_t time_iso_diff_ns(const char *a, const char *b);

#endif
