/* ts_net.h - loopback ports and the processes a test starts: a free port chosen at run
 * time, waiting until something listens (a condition, never a sleep), and a record of the
 * pids a test started so its teardown ends them even after a failed assertion. */
#ifndef BELAY_TESTS_TS_NET_H
#define BELAY_TESTS_TS_NET_H
#include <sys/types.h>

/* A loopback TCP port free when asked (bound and released). */
unsigned ts_free_port(void);
/* A connected socket to 127.0.0.1:port, or -1. */
int ts_try_connect(unsigned port);
/* Waits until something listens on 127.0.0.1:port, at most `seconds` (then the test fails). */
void ts_wait_listening(unsigned port, int seconds);

/* The test started pid (at most 32 at a time); ts_untrack once it was reaped; ts_reap_tracked
 * (in teardown) SIGKILLs and reaps every one still there. */
void ts_track(pid_t pid);
void ts_untrack(pid_t pid);
void ts_reap_tracked(void);

#endif
