/* hook_host.c - serving hook connections on threads of their own. See hook_host.h. */
#include "hook/hook_host.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/socket.h>
#include <unistd.h>

#include "common/buf.h"
#include "common/fsutil.h"
#include "common/jsonx.h"
#include "common/sockpeer.h"
#include "common/timeutil.h"
#include "common/xalloc.h"
#include "console_host/chost.h"

#define REQUEST_MAX ((size_t)512 << 20)
#define REQUEST_READ_MS 30000 /* the client sends everything at once */

struct hook_host {
	struct hook_ctx *ctx;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	int busy;
	_Atomic uint64_t idle_since;
	int lfd;
	int stop_pipe[2];
	pthread_t listener;
	int listening;
	void (*log)(void *ctx, const char *msg); /* the observer's, or NULL */
	void *log_ctx;
};

struct conn {
	struct hook_host *h;
	int fd;
	size_t len;
	struct buf in;
};

struct hook_host *hook_host_new(const struct hook_observer *obs)
{
	struct hook_host *h = xcalloc(1, sizeof *h);
	h->ctx = hook_ctx_new(1, obs);
	if (obs) {
		h->log = obs->log;
		h->log_ctx = obs->ctx;
	}
	pthread_mutex_init(&h->mu, NULL);
	pthread_cond_init(&h->cv, NULL);
	h->lfd = -1;
	h->stop_pipe[0] = h->stop_pipe[1] = -1;
	atomic_store(&h->idle_since, time_mono_ns());
	return h;
}

static void reply(int fd, cJSON *o)
{
	char *s = jx_print(o);
	size_t n = strlen(s);
	s = xrealloc(s, n + 2);
	s[n] = '\n';
	fs_write_all(fd, s, n + 1);
	free(s);
	cJSON_Delete(o);
}

static void refuse(int fd, const char *why)
{
	cJSON *o = cJSON_CreateObject();
	cJSON_AddFalseToObject(o, "ok");
	cJSON_AddStringToObject(o, "error", why);
	reply(fd, o);
}

/* Reads the rest of the request (bounded in time: the client writes it all at once). */
static int read_request(struct conn *c)
{
	uint64_t deadline = time_mono_ns() + (uint64_t)REQUEST_READ_MS * 1000000u;
	while (c->in.len < c->len) {
		uint64_t now = time_mono_ns();
		if (now >= deadline)
			return -1;
		struct pollfd p = {.fd = c->fd, .events = POLLIN};
		int n = poll(&p, 1, (int)((deadline - now) / 1000000u) + 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			continue;
		char tmp[65536];
		size_t want = c->len - c->in.len < sizeof tmp ? c->len - c->in.len : sizeof tmp;
		ssize_t r = read(c->fd, tmp, want);
		if (r < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (r <= 0)
			return -1;
		buf_append(&c->in, tmp, (size_t)r);
	}
	return 0;
}

static void *serve(void *arg)
{
	struct conn *c = arg;
	struct hook_host *h = c->h;
	/* From here on the event is ours: the client must not take it elsewhere. */
	static const char taken[] = "{\"taken\":true}\n";
	fs_write_all(c->fd, taken, sizeof taken - 1);
	if (read_request(c) != 0) {
		refuse(c->fd, "the hook request did not arrive whole");
	} else {
		cJSON *o = cJSON_ParseWithLength(c->in.p ? c->in.p : "", c->in.len);
		struct hook_request rq;
		struct buf payload = {0};
		struct err e = {0};
		if (hook_request_from_json(o, &rq, &payload, &e) != 0) {
			refuse(c->fd, e.msg);
		} else {
			struct hook_reply rp;
			hook_handle(h->ctx, &rq, &rp);
			cJSON *r = cJSON_CreateObject();
			cJSON_AddTrueToObject(r, "ok");
			cJSON_AddNumberToObject(r, "exit", rp.exit_code);
			cJSON_AddStringToObject(r, "out", buf_cstr(&rp.out));
			cJSON_AddStringToObject(r, "err", buf_cstr(&rp.err));
			if (rp.run)
				cJSON_AddStringToObject(r, "run", rp.run);
			if (rp.trace)
				cJSON_AddStringToObject(r, "trace", rp.trace);
			reply(c->fd, r);
			/* the agent has its answer: the store catches up off its wait */
			hook_index(h->ctx, &rq, &rp);
			hook_reply_free(&rp);
		}
		buf_free(&payload);
		cJSON_Delete(o);
	}
	close(c->fd);
	buf_free(&c->in);
	free(c);
	pthread_mutex_lock(&h->mu);
	h->busy--;
	atomic_store(&h->idle_since, time_mono_ns());
	pthread_cond_broadcast(&h->cv);
	pthread_mutex_unlock(&h->mu);
	return NULL;
}

void hook_host_adopt(struct hook_host *h, int fd, size_t len, const char *rest, size_t rest_len)
{
	/* the connection may have come non-blocking from a listener: serve it blocking */
	int fl = fcntl(fd, F_GETFL);
	if (fl >= 0)
		fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
	if (len > REQUEST_MAX || rest_len > len) {
		refuse(fd, "the hook request is too large");
		close(fd);
		return;
	}
	struct conn *c = xcalloc(1, sizeof *c);
	c->h = h;
	c->fd = fd;
	c->len = len;
	buf_append(&c->in, rest, rest_len);
	pthread_mutex_lock(&h->mu);
	h->busy++;
	pthread_mutex_unlock(&h->mu);
	pthread_t t;
	pthread_attr_t at;
	pthread_attr_init(&at);
	pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED);
	if (pthread_create(&t, &at, serve, c) != 0)
		serve(c); /* no thread to be had: serve it here */
	pthread_attr_destroy(&at);
}

/* The hello line of a connection: peeked at until its newline is there, then read exactly
 * (so nothing of the request after it is consumed). */
static int read_hello(int fd, size_t *len)
{
	char line[512];
	uint64_t deadline = time_mono_ns() + 5000000000ull;
	for (;;) {
		struct pollfd p = {.fd = fd, .events = POLLIN};
		uint64_t now = time_mono_ns();
		if (now >= deadline || poll(&p, 1, (int)((deadline - now) / 1000000u) + 1) <= 0)
			return -1;
		ssize_t r = recv(fd, line, sizeof line - 1, MSG_PEEK);
		if (r < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (r <= 0)
			return -1;
		char *nl = memchr(line, '\n', (size_t)r);
		if (!nl) {
			if ((size_t)r >= sizeof line - 1)
				return -1; /* no hello is that long */
			struct timespec ts = {0, 200000}; /* the rest of the line is on its way */
			nanosleep(&ts, NULL);
			continue;
		}
		size_t n = (size_t)(nl - line) + 1;
		if (read(fd, line, n) != (ssize_t)n)
			return -1;
		line[n - 1] = '\0';
		cJSON *o = cJSON_Parse(line);
		long long v = 0;
		int ok = cJSON_IsObject(o) && cJSON_GetObjectItemCaseSensitive(o, "hook") &&
			 jx_int(o, "len", 0, (long long)REQUEST_MAX, &v);
		cJSON_Delete(o);
		*len = (size_t)v;
		return ok ? 0 : -1;
	}
}

static void *listen_main(void *arg)
{
	struct hook_host *h = arg;
	for (;;) {
		struct pollfd p[2] = {{.fd = h->lfd, .events = POLLIN}, {.fd = h->stop_pipe[0], .events = POLLIN}};
		if (poll(p, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		if (p[1].revents)
			break;
		int fd = accept4(h->lfd, NULL, NULL, SOCK_CLOEXEC);
		if (fd < 0)
			continue;
		size_t len = 0;
		struct err pe = {0};
		if (sockpeer_check(fd, 0, NULL, &pe) != 0) {
			/* refused by name, before anything of the request is read */
			char why[600];
			snprintf(why, sizeof why, "belay: refused: %s", pe.msg);
			refuse(fd, why);
			close(fd);
			if (h->log) {
				snprintf(why, sizeof why, "the hook helper refused a connection: %s", pe.msg);
				h->log(h->log_ctx, why);
			}
			continue;
		}
		if (read_hello(fd, &len) != 0) {
			close(fd);
			continue;
		}
		hook_host_adopt(h, fd, len, NULL, 0);
	}
	return NULL;
}

int hook_host_listen(struct hook_host *h, const char *path, struct err *e)
{
	int rc = chost_bind(path, 1, &h->lfd, e);
	if (rc)
		return rc;
	if (pipe2(h->stop_pipe, O_CLOEXEC) != 0 || pthread_create(&h->listener, NULL, listen_main, h) != 0) {
		close(h->lfd);
		h->lfd = -1;
		unlink(path);
		return err_set(e, -errno, "cannot start listening on %s", path);
	}
	h->listening = 1;
	return 0;
}

int hook_host_busy(struct hook_host *h)
{
	pthread_mutex_lock(&h->mu);
	int b = h->busy;
	pthread_mutex_unlock(&h->mu);
	return b;
}

uint64_t hook_host_idle_since(struct hook_host *h)
{
	return atomic_load(&h->idle_since);
}

void hook_host_free(struct hook_host *h)
{
	if (!h)
		return;
	if (h->listening) {
		if (write(h->stop_pipe[1], "x", 1) != 1) {
			/* the listener polls the pipe; a failed write leaves it to the close below */
		}
		pthread_join(h->listener, NULL);
	}
	if (h->lfd >= 0)
		close(h->lfd);
	for (int i = 0; i < 2; i++)
		if (h->stop_pipe[i] >= 0)
			close(h->stop_pipe[i]);
	pthread_mutex_lock(&h->mu);
	while (h->busy > 0)
		pthread_cond_wait(&h->cv, &h->mu);
	pthread_mutex_unlock(&h->mu);
	hook_ctx_free(h->ctx);
	pthread_mutex_destroy(&h->mu);
	pthread_cond_destroy(&h->cv);
	free(h);
}
