/* trace_pool.c - the trace writer's serialiser pool: lines of a large batch made in
 * parallel, a few records ahead of the one being written (trace_rec.h has the contract). */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/timeutil.h"
#include "trace/trace_rec.h"

#define LOOKAHEAD(p) ((size_t)(p)->nthreads * 4 + 4)

static int failed(const struct trace_pool *p)
{
	return __atomic_load_n(p->failed, __ATOMIC_RELAXED) != 0;
}

void trace_pool_init(struct trace_pool *p, const char *observation_point, const int *failed_flag)
{
	memset(p, 0, sizeof *p);
	pthread_mutex_init(&p->mu, NULL);
	pthread_cond_init(&p->work, NULL);
	pthread_cond_init(&p->ready, NULL);
	p->observation_point = observation_point;
	p->failed = failed_flag;
}

static void *pool_main(void *arg)
{
	struct trace_pool *p = arg;
	struct buf canon = {0};
	pthread_setname_np(pthread_self(), "belay-tpool");
	pthread_mutex_lock(&p->mu);
	for (;;) {
		while (!p->quit && (p->next >= p->njobs || p->next >= p->limit)) {
			p->idle++;
			pthread_cond_wait(&p->work, &p->mu);
			p->idle--;
		}
		if (p->quit)
			break;
		struct trace_rec *r = p->jobs[p->next++];
		r->claimed = 1;
		if (p->nspare > 0)
			r->line = p->spare[--p->nspare];
		pthread_mutex_unlock(&p->mu);
		if (!failed(p)) /* after a failure the writer only counts the rest */
			trace_line_append(&r->line, r, p->observation_point, &canon);
		pthread_mutex_lock(&p->mu);
		r->done = 1;
		if (p->writer_waits)
			pthread_cond_signal(&p->ready);
	}
	pthread_mutex_unlock(&p->mu);
	buf_free(&canon);
	return NULL;
}

/* On first use, so a proxy that only ever sees small messages never has the threads. */
int trace_pool_start(struct trace_pool *p)
{
	if (p->started)
		return p->nthreads;
	p->started = 1;
	long cores = sysconf(_SC_NPROCESSORS_ONLN);
	int want = cores < 2 ? 2 : cores > TRACE_POOL_MAX_THREADS ? TRACE_POOL_MAX_THREADS : (int)cores;
	int n = 0;
	while (n < want && pthread_create(&p->threads[n], NULL, pool_main, p) == 0)
		n++;
	pthread_mutex_lock(&p->mu); /* trace_writer_stats reads it from the owner's thread */
	p->nthreads = n;
	pthread_mutex_unlock(&p->mu);
	return n;
}

void trace_pool_destroy(struct trace_pool *p)
{
	pthread_mutex_lock(&p->mu);
	p->quit = 1;
	pthread_cond_broadcast(&p->work);
	pthread_mutex_unlock(&p->mu);
	for (int i = 0; i < p->nthreads; i++)
		pthread_join(p->threads[i], NULL);
	while (p->nspare > 0)
		buf_free(&p->spare[--p->nspare]);
	pthread_mutex_destroy(&p->mu);
	pthread_cond_destroy(&p->work);
	pthread_cond_destroy(&p->ready);
}

void trace_pool_publish(struct trace_pool *p, struct trace_rec **recs, size_t m)
{
	pthread_mutex_lock(&p->mu);
	p->jobs = recs;
	p->njobs = m;
	p->next = 0;
	p->limit = LOOKAHEAD(p);
	pthread_cond_broadcast(&p->work);
	pthread_mutex_unlock(&p->mu);
}

/* Every job was claimed (the writer takes what is left) and is done. */
void trace_pool_end(struct trace_pool *p)
{
	pthread_mutex_lock(&p->mu);
	p->jobs = NULL;
	p->njobs = p->next = 0;
	pthread_mutex_unlock(&p->mu);
}

uint64_t trace_pool_cpu_ns(struct trace_pool *p)
{
	pthread_mutex_lock(&p->mu); /* nthreads is set by the thread that started them */
	int n = p->nthreads;
	pthread_t t[TRACE_POOL_MAX_THREADS];
	memcpy(t, p->threads, sizeof t);
	pthread_mutex_unlock(&p->mu);
	uint64_t ns = 0;
	for (int i = 0; i < n; i++)
		ns += time_thread_cpu_ns(&t[i]);
	return ns;
}

struct buf *trace_pool_line(struct trace_pool *p, struct trace_rec **batch, size_t i, struct buf *canon)
{
	struct trace_rec *r = batch[i];
	pthread_mutex_lock(&p->mu);
	/* Lines are serialised at most a few records ahead of the one written, so their
	 * buffers come back to be reused (and a batch's lines are not all held at once). */
	p->limit = i + 1 + LOOKAHEAD(p);
	if (p->idle > 0 && p->next < p->njobs && (p->limit - p->next >= LOOKAHEAD(p) / 2 || p->limit >= p->njobs))
		pthread_cond_signal(&p->work);
	if (!r->claimed) {
		/* Unclaimed means no later record is claimed either: take this one. */
		r->claimed = 1;
		p->next = i + 1;
		if (p->nspare > 0)
			r->line = p->spare[--p->nspare];
		pthread_mutex_unlock(&p->mu);
		if (!failed(p))
			trace_line_append(&r->line, r, p->observation_point, canon);
		return &r->line;
	}
	while (!r->done) {
		p->writer_waits = 1;
		pthread_cond_wait(&p->ready, &p->mu);
		p->writer_waits = 0;
	}
	pthread_mutex_unlock(&p->mu);
	return &r->line;
}

void trace_pool_recycle(struct trace_pool *p, struct buf *line)
{
	if (line->cap == 0 || line->cap > ((size_t)4 << 20))
		return;
	pthread_mutex_lock(&p->mu);
	if (p->nspare < (int)(sizeof p->spare / sizeof p->spare[0])) {
		buf_reset(line);
		p->spare[p->nspare++] = *line;
		*line = (struct buf){0};
	}
	pthread_mutex_unlock(&p->mu);
}

