/* trial_watch.h - enforcing --max-bytes while a trial runs (trial_watch.c). Internal to
 * src/trial. The watch runs on a thread of its own; start and stop on the caller's. */
#ifndef BELAY_TRIAL_TRIAL_WATCH_H
#define BELAY_TRIAL_TRIAL_WATCH_H
#include <pthread.h>
#include <stdint.h>

struct trial_watch {
	char *upper;
	uint64_t max_bytes;
	uint64_t peak;  /* the most the upper held at a measurement */
	int tripped;    /* the bound was passed and the launcher killed */
	int stop, running;
	pthread_t thread;
	pthread_mutex_t mu;
	pthread_cond_t cv;
};

/* Starts watching `upper` (the trial's upper layer); 0 or -errno. */
int trial_watch_start(struct trial_watch *w, const char *upper, uint64_t max_bytes);
/* Stops the watch; returns 1 when it killed the trial for passing the bound. */
int trial_watch_stop(struct trial_watch *w);

#endif
