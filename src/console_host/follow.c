/* follow.c - tails the traces of a directory into the store (see follow.h). Polls every
 * 200 ms: a trace is a file named *.jsonl; only whole lines are indexed, so a line being
 * written is picked up on a later pass. Each trace gets a store writer (the same indexer
 * as live proxying) fed from the file instead of the trace writer's tap.
 *
 * A last line that stays without its newline is named in the log (a killed writer or a full
 * disk); the lines before it are the run.
 *
 * Must not: print, write to a trace, index a partial line. */
#include "console_host/follow.h"

#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "common/buf.h"
#include "common/fsutil.h"
#include "common/timeutil.h"
#include "common/xalloc.h"
#include "index/runidx.h"
#include "index/store_writer.h"

struct follow;

#define CUT_PASSES 25 /* 5 s of 200 ms passes */

struct tailed {
	struct follow *f;
	char *path, *run;
	uint64_t off;          /* bytes indexed (whole lines) */
	struct store_writer *sw;
	int closed;            /* saw connection_window close */
	uint64_t tail;         /* bytes after the last whole line, at the last pass */
	int still;             /* passes the tail stayed the same */
	struct tailed *next;
};

struct follow {
	char *dir, *state_dir;
	struct cqueue *q;
	pthread_t thread;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	int stopping;
	struct tailed *traces;
};

/* Store writer threads. */
static void on_report(void *ctx, const char *msg)
{
	struct tailed *t = ctx;
	cqueue_post(t->f->q, cevent_log(2, "follow: %s", msg));
}

static void on_committed(void *ctx)
{
	struct tailed *t = ctx;
	cqueue_post(t->f->q, cevent_new(CE_RUN_COMMITTED, t->run));
}

/* Reads what was appended to t since last time and feeds its whole lines. Returns 1 when
 * something was fed. */
static int pump(struct follow *f, struct tailed *t)
{
	FILE *fp = fopen(t->path, "re");
	if (!fp)
		return 0;
	if (fseeko(fp, (off_t)t->off, SEEK_SET) != 0) {
		fclose(fp);
		return 0;
	}
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;
	int fed = 0;
	while ((n = getline(&line, &cap, fp)) > 0) {
		if (line[n - 1] != '\n')
			break; /* still being written */
		store_writer_tap(t->sw, t->off, line, (size_t)n);
		t->off += (uint64_t)n;
		fed = 1;
		if (strstr(line, "\"kind\":\"connection_window\"") && strstr(line, "\"phase\":\"close\""))
			t->closed = 1;
	}
	free(line);
	/* A tail that stays without its newline is named once (it is indexed if it completes):
	 * a writer that was killed mid-line or ran out of disk, or a very slow one. */
	struct stat sb;
	uint64_t tail = fstat(fileno(fp), &sb) == 0 && (uint64_t)sb.st_size > t->off ? (uint64_t)sb.st_size - t->off : 0;
	t->still = tail && tail == t->tail ? t->still + 1 : 0;
	t->tail = tail;
	if (t->still == CUT_PASSES)
		cqueue_post(f->q, cevent_log(1,
					     "follow: %s: its last line has had no newline for %d s (%llu byte(s)): the "
					     "writer was killed mid-line or the disk filled (or it is still writing it); "
					     "indexed up to the line before",
					     t->path, CUT_PASSES / 5, (unsigned long long)tail));
	fclose(fp);
	return fed;
}

static void scan(struct follow *f)
{
	DIR *d = opendir(f->dir);
	if (!d)
		return;
	struct dirent *de;
	while ((de = readdir(d))) {
		size_t n = strlen(de->d_name);
		if (n <= 6 || strcmp(de->d_name + n - 6, ".jsonl") != 0)
			continue;
		char *path = fs_join(f->dir, de->d_name);
		struct tailed *t = f->traces;
		while (t && strcmp(t->path, path) != 0)
			t = t->next;
		if (t) {
			free(path);
			continue;
		}
		t = xcalloc(1, sizeof *t);
		t->f = f;
		t->path = path;
		t->run = runidx_run_id(path);
		struct store_writer_opts o = {.report = on_report, .committed = on_committed, .ctx = t};
		t->sw = store_writer_new(f->state_dir, &o);
		struct err e = {0};
		if (store_writer_start(t->sw, path, &e) != 0)
			cqueue_post(f->q, cevent_log(2, "follow: %s: %s", path, e.msg));
		t->next = f->traces;
		f->traces = t;
		struct cevent *ev = cevent_new(CE_RUN_STARTED, t->run);
		ev->trace = xstrdup(path);
		cqueue_post(f->q, ev);
	}
	closedir(d);
}

/* One look at the directory and every trace in it. */
static void pass(struct follow *f)
{
	scan(f);
	for (struct tailed *t = f->traces; t; t = t->next) {
		if (!t->sw)
			continue;
		int was_closed = t->closed;
		pump(f, t);
		if (t->closed && !was_closed) {
			/* The run is over: finish its indexing, then say so. */
			store_writer_close(t->sw, NULL);
			t->sw = NULL;
			cqueue_post(f->q, cevent_new(CE_RUN_COMMITTED, t->run));
			cqueue_post(f->q, cevent_new(CE_RUN_ENDED, t->run));
		}
	}
}

static void *follow_main(void *arg)
{
	struct follow *f = arg;
	pthread_mutex_lock(&f->mu);
	while (!f->stopping) {
		pthread_mutex_unlock(&f->mu);
		pass(f);
		pthread_mutex_lock(&f->mu);
		struct timespec until;
		time_realtime_after(200u * 1000 * 1000, &until);
		if (!f->stopping)
			pthread_cond_timedwait(&f->cv, &f->mu, &until);
	}
	pthread_mutex_unlock(&f->mu);
	/* A last look: what the writers wrote as they stopped (the console's own HTTP listener
	 * closes its runs' traces just before the follower stops) is indexed too. */
	pass(f);
	return NULL;
}

int follow_start(const char *dir, const char *state_dir, struct cqueue *events, struct follow **out, struct err *e)
{
	*out = NULL;
	struct stat st;
	if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode))
		return err_set(e, BELAY_ENOTFOUND, "--follow: %s is not a directory", dir);
	struct follow *f = xcalloc(1, sizeof *f);
	f->dir = xstrdup(dir);
	f->state_dir = xstrdup(state_dir);
	f->q = events;
	pthread_mutex_init(&f->mu, NULL);
	pthread_cond_init(&f->cv, NULL);
	int rc = pthread_create(&f->thread, NULL, follow_main, f);
	if (rc) {
		free(f->dir);
		free(f->state_dir);
		free(f);
		return err_set(e, -rc, "cannot start the follower thread");
	}
	*out = f;
	return 0;
}

void follow_stop(struct follow *f)
{
	if (!f)
		return;
	pthread_mutex_lock(&f->mu);
	f->stopping = 1;
	pthread_cond_signal(&f->cv);
	pthread_mutex_unlock(&f->mu);
	pthread_join(f->thread, NULL);
	while (f->traces) {
		struct tailed *t = f->traces;
		f->traces = t->next;
		store_writer_close(t->sw, NULL);
		free(t->path);
		free(t->run);
		free(t);
	}
	pthread_mutex_destroy(&f->mu);
	pthread_cond_destroy(&f->cv);
	free(f->dir);
	free(f->state_dir);
	free(f);
}
