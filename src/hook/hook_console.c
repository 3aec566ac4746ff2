/* hook_console.c - hook events hosted by the console. See hook_console.h. */
#include "hook/hook_console.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "common/jsonx.h"
#include "common/timeutil.h"
#include "common/xalloc.h"
#include "hook/hook_host.h"
#include "console_host/cevent.h"

struct held {
	uint64_t id;
	char *run;
	int answered, answer; /* enum admission_answer */
	char *by;
	struct held *next;
};

struct hook_console {
	struct cqueue *q;
	char *state_dir;
	struct hook_host *host;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	uint64_t next_hold;
	struct held *held;
	int closing;
};

static int hold(void *ctx, const char *run, int64_t seq, const char *tool, const cJSON *plan, const cJSON *trial,
		unsigned timeout_ms, char **by)
{
	struct hook_console *hc = ctx;
	*by = NULL;
	struct held h = {.run = xstrdup(run)};
	pthread_mutex_lock(&hc->mu);
	h.id = ++hc->next_hold;
	h.next = hc->held;
	hc->held = &h;
	pthread_mutex_unlock(&hc->mu);
	cqueue_post(hc->q, cevent_hold(run, h.id, seq, tool, plan, trial));
	struct timespec deadline;
	time_realtime_after((uint64_t)timeout_ms * 1000000u, &deadline);
	pthread_mutex_lock(&hc->mu);
	while (!h.answered && !hc->closing)
		if (pthread_cond_timedwait(&hc->cv, &hc->mu, &deadline) == ETIMEDOUT)
			break;
	for (struct held **pp = &hc->held; *pp; pp = &(*pp)->next)
		if (*pp == &h) {
			*pp = h.next;
			break;
		}
	pthread_mutex_unlock(&hc->mu);
	int got = h.answered ? h.answer : -1;
	struct cevent *done = cevent_new(CE_HOLD_DONE, run);
	done->a = (int64_t)h.id;
	done->b = got;
	cqueue_post(hc->q, done);
	*by = h.by;
	free(h.run);
	return got;
}

static void changed(void *ctx, const char *run, const char *trace, int what)
{
	struct hook_console *hc = ctx;
	struct cevent *ev = cevent_new(what == 0 ? CE_RUN_STARTED : what == 2 ? CE_RUN_ENDED : CE_RUN_COMMITTED, run);
	if (what == 0)
		ev->trace = trace ? xstrdup(trace) : NULL;
	cqueue_post(hc->q, ev);
	if (what == 2) /* an ended run's last rows are in: one more look */
		cqueue_post(hc->q, cevent_new(CE_RUN_COMMITTED, run));
}

static void log_msg(void *ctx, const char *msg)
{
	struct hook_console *hc = ctx;
	cqueue_post(hc->q, cevent_log(2, "%s", msg));
}

struct hook_console *hook_console_new(struct cqueue *events, const char *state_dir)
{
	struct hook_console *hc = xcalloc(1, sizeof *hc);
	hc->q = events;
	hc->state_dir = realpath(state_dir, NULL);
	if (!hc->state_dir)
		hc->state_dir = xstrdup(state_dir);
	pthread_mutex_init(&hc->mu, NULL);
	pthread_cond_init(&hc->cv, NULL);
	struct hook_observer obs = {.hold = hold, .changed = changed, .log = log_msg, .ctx = hc};
	hc->host = hook_host_new(&obs);
	return hc;
}

void hook_console_adopt(void *ctx, int fd, const cJSON *hello, const char *rest, size_t rest_len)
{
	struct hook_console *hc = ctx;
	long long len = 0;
	const char *state = jx_str(hello, "state");
	char *real = state ? realpath(state, NULL) : NULL;
	int ours = real && !strcmp(real, hc->state_dir);
	free(real);
	/* another state dir's runs are not this console's to show: not taken, so the hook goes on
	 * to the helper or handles the event itself */
	if (!ours || !jx_int(hello, "len", 0, 1LL << 40, &len)) {
		close(fd);
		return;
	}
	hook_host_adopt(hc->host, fd, (size_t)len, rest, rest_len);
}

int hook_console_resolve(void *ctx, const char *run, uint64_t id, int answer, const char *by)
{
	struct hook_console *hc = ctx;
	int found = -1;
	pthread_mutex_lock(&hc->mu);
	for (struct held *h = hc->held; h; h = h->next)
		if (h->id == id && run && !strcmp(h->run, run) && !h->answered) {
			h->answered = 1;
			h->answer = answer;
			h->by = by ? xstrdup(by) : NULL;
			found = 0;
		}
	pthread_cond_broadcast(&hc->cv);
	pthread_mutex_unlock(&hc->mu);
	return found;
}

void hook_console_free(struct hook_console *hc)
{
	if (!hc)
		return;
	pthread_mutex_lock(&hc->mu);
	hc->closing = 1;
	pthread_cond_broadcast(&hc->cv);
	pthread_mutex_unlock(&hc->mu);
	hook_host_free(hc->host);
	pthread_mutex_destroy(&hc->mu);
	pthread_cond_destroy(&hc->cv);
	free(hc->state_dir);
	free(hc);
}
