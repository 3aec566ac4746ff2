/* trial_watch.c - the bound on a running trial's upper layer (--max-bytes): a thread that
 * measures the upper layer every 200 ms while the command runs and, once it holds more than
 * the bound, kills the trial's launcher (SIGKILL; the pid namespace's processes die with it,
 * by their parent-death signal). The launcher is found among this process's children by its
 * command line, which names the trial's upper layer. See trial_watch.h. */
#include "trial/trial_watch.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "common/xalloc.h"

#define WATCH_MS 200

/* Bytes the files below dirfd occupy (whiteouts and directories count nothing). */
static uint64_t usage(int dirfd, int depth)
{
	if (depth > 256)
		return 0;
	int fd = dup(dirfd);
	DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
	if (!d) {
		if (fd >= 0)
			close(fd);
		return 0;
	}
	rewinddir(d);
	uint64_t n = 0;
	struct dirent *de;
	while ((de = readdir(d)) != NULL) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		struct stat st;
		if (fstatat(dirfd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0)
			continue;
		if (S_ISREG(st.st_mode))
			n += (uint64_t)st.st_blocks * 512u;
		else if (S_ISDIR(st.st_mode)) {
			int c = openat(dirfd, de->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
			if (c >= 0) {
				n += usage(c, depth + 1);
				close(c);
			}
		}
	}
	closedir(d);
	return n;
}

/* Whether pid's command line holds the argument pair "--overlay-upper UPPER". */
static int is_launcher(pid_t pid, const char *upper)
{
	char path[64], buf[8192];
	snprintf(path, sizeof path, "/proc/%d/cmdline", (int)pid);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	ssize_t n = read(fd, buf, sizeof buf - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	for (char *p = buf; p < buf + n; p += strlen(p) + 1)
		if (!strcmp(p, "--overlay-upper") && p + strlen(p) + 1 < buf + n && !strcmp(p + strlen(p) + 1, upper))
			return 1;
	return 0;
}

/* Kills this process's children that are the trial's launcher. Returns how many. */
static int kill_launcher(const char *upper)
{
	DIR *d = opendir("/proc/self/task");
	int killed = 0;
	struct dirent *de;
	while (d && (de = readdir(d)) != NULL) {
		if (de->d_name[0] == '.')
			continue;
		char path[300];
		snprintf(path, sizeof path, "/proc/self/task/%s/children", de->d_name);
		FILE *f = fopen(path, "re");
		int pid;
		while (f && fscanf(f, "%d", &pid) == 1)
			if (is_launcher(pid, upper) && kill(pid, SIGKILL) == 0)
				killed++;
		if (f)
			fclose(f);
	}
	if (d)
		closedir(d);
	return killed;
}

static void *watch_main(void *arg)
{
	struct trial_watch *w = arg;
	pthread_mutex_lock(&w->mu);
	while (!w->stop) {
		struct timespec until;
		clock_gettime(CLOCK_MONOTONIC, &until);
		until.tv_nsec += WATCH_MS * 1000000L;
		if (until.tv_nsec >= 1000000000L) {
			until.tv_sec++;
			until.tv_nsec -= 1000000000L;
		}
		pthread_cond_timedwait(&w->cv, &w->mu, &until);
		if (w->stop)
			break;
		pthread_mutex_unlock(&w->mu);
		int fd = open(w->upper, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		uint64_t n = fd >= 0 ? usage(fd, 0) : 0;
		if (fd >= 0)
			close(fd);
		int over = n > w->max_bytes && kill_launcher(w->upper) > 0;
		pthread_mutex_lock(&w->mu);
		if (n > w->peak)
			w->peak = n;
		if (over) {
			w->tripped = 1;
			break;
		}
	}
	pthread_mutex_unlock(&w->mu);
	return NULL;
}

int trial_watch_start(struct trial_watch *w, const char *upper, uint64_t max_bytes)
{
	memset(w, 0, sizeof *w);
	w->upper = xstrdup(upper);
	w->max_bytes = max_bytes;
	pthread_mutex_init(&w->mu, NULL);
	pthread_condattr_t ca;
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&w->cv, &ca);
	pthread_condattr_destroy(&ca);
	int rc = pthread_create(&w->thread, NULL, watch_main, w);
	w->running = rc == 0;
	return rc ? -rc : 0;
}

int trial_watch_stop(struct trial_watch *w)
{
	if (w->running) {
		pthread_mutex_lock(&w->mu);
		w->stop = 1;
		pthread_cond_signal(&w->cv);
		pthread_mutex_unlock(&w->mu);
		pthread_join(w->thread, NULL);
	}
	pthread_mutex_destroy(&w->mu);
	pthread_cond_destroy(&w->cv);
	free(w->upper);
	int tripped = w->tripped;
	w->upper = NULL;
	w->running = 0;
	return tripped;
}
