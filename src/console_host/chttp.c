/* chttp.c - the console's HTTP listener, belay-http as a child (chttp.h). Its stdout and
 * stderr share one pipe (child.h): a line starting with '{' is one of its --console events,
 * any other its stderr (to the log, and its own reports to the console's log too). */
#include "console_host/chttp.h"

#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "common/buf.h"
#include "common/child.h"
#include "common/jsonx.h"
#include "common/paths.h"
#include "common/xalloc.h"
#include "index/runidx.h"
#include "run/httpcmd.h"

/* How long belay-http may take to listen before the console gives up on it (a contained
 * server it starts is set up and listening first). */
#define CHTTP_START_S 120

struct hold {
	uint64_t n; /* the console's hold id */
	char *run;
	char id[48]; /* belay-http's approval id */
	struct hold *next;
};

struct chttp {
	struct chttp_cfg cfg;
	char **argv;
	int in_w; /* the write end of belay-http's stdin: ours only (close-on-exec) */
	int in_r;
	pthread_t thread;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	int listening, ended, status;
	char *url;
	struct buf line;    /* a line of its output being gathered (the thread's) */
	char last[512];	    /* its last stderr line (under mu) */
	struct hold *holds; /* (under mu) */
	uint64_t next_hold;
};

static void on_event(struct chttp *c, const cJSON *ev)
{
	const char *what = jx_str(ev, "event");
	if (!what)
		return;
	if (!strcmp(what, "listening") && jx_str(ev, "url")) {
		pthread_mutex_lock(&c->mu);
		if (!c->url)
			c->url = xstrdup(jx_str(ev, "url"));
		c->listening = 1;
		pthread_cond_broadcast(&c->cv);
		pthread_mutex_unlock(&c->mu);
	} else if (!strcmp(what, "hold") && jx_str(ev, "trace") && jx_str(ev, "approval_id")) {
		struct hold *h = xcalloc(1, sizeof *h);
		h->run = runidx_run_id(jx_str(ev, "trace"));
		snprintf(h->id, sizeof h->id, "%s", jx_str(ev, "approval_id"));
		long long seq = -1;
		jx_int(ev, "request_seq", 0, INT64_MAX, &seq);
		pthread_mutex_lock(&c->mu);
		h->n = ++c->next_hold;
		h->next = c->holds;
		c->holds = h;
		pthread_mutex_unlock(&c->mu);
		struct cevent *ce = cevent_hold(h->run, h->n, seq, jx_str(ev, "tool"),
						cJSON_GetObjectItemCaseSensitive(ev, "plan"), NULL);
		ce->trace = xstrdup(jx_str(ev, "trace"));
		cqueue_post(c->cfg.events, ce);
	} else if (!strcmp(what, "hold_done") && jx_str(ev, "approval_id")) {
		const char *outcome = jx_str(ev, "outcome");
		pthread_mutex_lock(&c->mu);
		struct hold **ph = &c->holds, *h = NULL;
		for (; *ph; ph = &(*ph)->next)
			if (!strcmp((*ph)->id, jx_str(ev, "approval_id"))) {
				h = *ph;
				*ph = h->next;
				break;
			}
		pthread_mutex_unlock(&c->mu);
		if (!h)
			return;
		struct cevent *ce = cevent_new(CE_HOLD_DONE, h->run);
		ce->a = (int64_t)h->n;
		/* approved: went on; refused by the person; else its time ran out or its client left */
		ce->b = outcome && !strncmp(outcome, "forwarded", 9)		      ? 1
			: outcome && !strcmp(outcome, "refused (refused while held)") ? 0
										      : CE_HOLD_GONE;
		cqueue_post(c->cfg.events, ce);
		free(h->run);
		free(h);
	}
}

static void on_line(struct chttp *c, const char *l, size_t n)
{
	if (!n)
		return;
	if (l[0] == '{') {
		cJSON *ev = cJSON_ParseWithLength(l, n);
		if (cJSON_IsObject(ev))
			on_event(c, ev);
		cJSON_Delete(ev);
		return;
	}
	if (c->cfg.log_fd >= 0) {
		ssize_t w = write(c->cfg.log_fd, l, n);
		w = w >= 0 ? write(c->cfg.log_fd, "\n", 1) : w;
		(void)w;
	}
	pthread_mutex_lock(&c->mu);
	snprintf(c->last, sizeof c->last, "%.*s", (int)(n < sizeof c->last ? n : sizeof c->last - 1), l);
	pthread_mutex_unlock(&c->mu);
	/* its own reports (not the per-run lines, nor the hold's line: the console says it; nor
	 * that it started its contained server: the runs' title says so, and the bottom line keeps
	 * the URL agents use) */
	static const char pfx[] = "belay: http: ", started[] = "belay: http: started ";
	if (n > sizeof pfx - 1 && !memcmp(l, pfx, sizeof pfx - 1) && !memmem(l, n, "holding the call", 16) &&
	    !(n > sizeof started - 1 && !memcmp(l, started, sizeof started - 1)))
		cqueue_post(c->cfg.events,
			    cevent_log(1, "http listener: %.*s", (int)(n - (sizeof pfx - 1)), l + sizeof pfx - 1));
}

static void on_output(void *ctx, const char *p, size_t n)
{
	struct chttp *c = ctx;
	buf_append(&c->line, p, n);
	size_t start = 0;
	for (size_t i = 0; i < c->line.len; i++)
		if (c->line.p[i] == '\n') {
			on_line(c, c->line.p + start, i - start);
			start = i + 1;
		}
	if (start) {
		memmove(c->line.p, c->line.p + start, c->line.len - start);
		c->line.len -= start;
	}
	if (c->line.len > (1u << 20)) /* no line of its is that long: drop it */
		c->line.len = 0;
}

static void *run(void *arg)
{
	struct chttp *c = arg;
	struct child_spec sp = CHILD_SPEC_INIT;
	sp.argv = c->argv;
	sp.in_fd = c->in_r;
	sp.out = CHILD_CAPTURE;
	sp.err = CHILD_CAPTURE;
	sp.out_cap = 1; /* everything goes through on_output */
	sp.on_output = on_output;
	sp.ctx = c;
	struct buf out = {0};
	struct child_result res = {0};
	struct err e = {0};
	int rc = child_run(&sp, &out, &res, &e);
	buf_free(&out);
	if (c->line.len)
		on_line(c, c->line.p, c->line.len);
	pthread_mutex_lock(&c->mu);
	c->ended = 1;
	c->status = rc < 0 ? -1 : res.status;
	if (rc < 0)
		snprintf(c->last, sizeof c->last, "cannot run belay-http: %.400s", e.msg);
	int was_listening = c->listening, stopping = c->in_w < 0;
	/* every hold is over with it */
	struct hold *h = c->holds;
	c->holds = NULL;
	pthread_cond_broadcast(&c->cv);
	pthread_mutex_unlock(&c->mu);
	for (struct hold *n; h; h = n) {
		n = h->next;
		struct cevent *ce = cevent_new(CE_HOLD_DONE, h->run);
		ce->a = (int64_t)h->n;
		ce->b = CE_HOLD_GONE;
		cqueue_post(c->cfg.events, ce);
		free(h->run);
		free(h);
	}
	if (was_listening && !stopping) /* it ended while the console runs */
		cqueue_post(c->cfg.events,
			    cevent_log(2, "the HTTP listener ended (status %d): %s", c->status, c->last));
	return NULL;
}

static void free_c(struct chttp *c)
{
	httpcmd_free(c->argv);
	for (struct hold *h = c->holds, *n; h; h = n) {
		n = h->next;
		free(h->run);
		free(h);
	}
	buf_free(&c->line);
	free(c->url);
	pthread_mutex_destroy(&c->mu);
	pthread_cond_destroy(&c->cv);
	free(c);
}

int chttp_start(const struct chttp_cfg *cfg, struct chttp **out, struct err *e)
{
	*out = NULL;
	char *bin = paths_sibling_exe("belay-http");
	if (!bin)
		return err_set(e, BELAY_ENOTFOUND,
			       "--http: belay-http is not installed next to belay or on PATH (it is built with belay)");
	struct chttp *c = xcalloc(1, sizeof *c);
	c->cfg = *cfg;
	c->in_w = c->in_r = -1;
	pthread_mutex_init(&c->mu, NULL);
	pthread_cond_init(&c->cv, NULL);
	struct httpcmd hc = {.upstream = cfg->upstream,
			     .state = cfg->state_dir,
			     .trace_dir = cfg->trace_dir,
			     .no_index = 1, /* the console's follower indexes the traces */
			     .console = 1,
			     .enforce = cfg->enforce,
			     .policy = cfg->policy_file,
			     .scope = cfg->scope,
			     .network = cfg->server ? "deny" : NULL,
			     .expose = cfg->expose,
			     .server = cfg->server};
	char **v = httpcmd_argv(bin, &hc);
	free(bin);
	c->argv = v;
	int p[2];
	if (pipe2(p, O_CLOEXEC) != 0) {
		free_c(c);
		return err_set(e, BELAY_EINVAL, "--http: cannot make a pipe for belay-http");
	}
	c->in_r = p[0];
	c->in_w = p[1];
	if (pthread_create(&c->thread, NULL, run, c) != 0) {
		close(p[0]);
		close(p[1]);
		free_c(c);
		return err_set(e, BELAY_EINVAL, "--http: cannot start a thread for belay-http");
	}
	struct timespec until;
	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += CHTTP_START_S;
	pthread_mutex_lock(&c->mu);
	while (!c->listening && !c->ended)
		if (pthread_cond_timedwait(&c->cv, &c->mu, &until) != 0)
			break;
	int ok = c->listening && !c->ended;
	char last[512];
	snprintf(last, sizeof last, "%s", c->last[0] ? c->last : "no word from it");
	int status = c->status, ended = c->ended;
	pthread_mutex_unlock(&c->mu);
	if (!ok) {
		chttp_stop(c); /* its stdin closed: it stops if it still runs */
		if (ended)
			return err_set(e, BELAY_EINVAL, "--http: belay-http ended (status %d): %s", status, last);
		return err_set(e, BELAY_EINVAL, "--http: belay-http did not listen within %d s: %s", CHTTP_START_S,
			       last);
	}
	*out = c;
	return 0;
}

const char *chttp_url(const struct chttp *c)
{
	return c ? c->url : NULL;
}

int chttp_resolve(struct chttp *c, const char *run, uint64_t hold, int answer)
{
	if (!c || !run)
		return -1;
	char line[96] = "";
	if (answer == 2) { /* "apply its trial's effect": an HTTP call has no trial, and stays held */
		pthread_mutex_lock(&c->mu);
		int ours = 0;
		for (struct hold *h = c->holds; h; h = h->next)
			ours |= h->n == hold && !strcmp(h->run, run);
		pthread_mutex_unlock(&c->mu);
		if (!ours)
			return -1;
		struct cevent *ce = cevent_new(CE_HOLD_DONE, run);
		ce->a = (int64_t)hold;
		ce->b = CE_HOLD_NO_TRIAL;
		cqueue_post(c->cfg.events, ce);
		return 0;
	}
	pthread_mutex_lock(&c->mu);
	for (struct hold *h = c->holds; h; h = h->next)
		if (h->n == hold && !strcmp(h->run, run)) {
			/* ADMISSION_APPROVE, or ADMISSION_REFUSE */
			snprintf(line, sizeof line, "%s %s\n", answer == 1 ? "approve" : "refuse", h->id);
			break;
		}
	/* under the lock: chttp_stop does not close the descriptor meanwhile; a line under
	 * PIPE_BUF is written whole, and belay-http reads its stdin all along */
	size_t n = strlen(line);
	int rc = line[0] && c->in_w >= 0 && write(c->in_w, line, n) == (ssize_t)n ? 0 : -1;
	pthread_mutex_unlock(&c->mu);
	return rc;
}

void chttp_stop(struct chttp *c)
{
	if (!c)
		return;
	pthread_mutex_lock(&c->mu);
	int fd = c->in_w;
	c->in_w = -1;
	pthread_mutex_unlock(&c->mu);
	if (fd >= 0)
		close(fd); /* belay-http sees the end of its stdin and stops */
	pthread_join(c->thread, NULL);
	if (c->in_r >= 0)
		close(c->in_r);
	free_c(c);
}
