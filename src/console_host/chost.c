/* chost.c - the console's engine thread: unix-socket listener, one run per `belay connect`
 * (the agent's stdio fds are passed over the socket), intents from the UI through a
 * mailbox + uv_async, events to the UI through a cqueue. See chost.h.
 *
 * Must not: block the loop (runner_free joins a store writer, so it runs on the threadpool),
 * print, touch curses. */
#include "console_host/chost.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>
#include <uv.h>

#include "common/buf.h"
#include "common/err.h"
#include "common/fsutil.h"
#include "common/jsonx.h"
#include "common/osuser.h"
#include "common/paths.h"
#include "common/sockpeer.h"
#include "common/xalloc.h"
#include "proxy/loop_slice.h"
#include "run/runner.h"
#include "pkgexec/pkgexec.h"

enum { C_HELLO, C_RUN, C_DONE };

struct conn {
	struct chost *h;
	int fd;
	uv_poll_t poll;
	int polling;
	struct buf in;
	int fds[2];
	int nfds;
	int state;
	int gone;             /* the connect process went away */
	struct runner *runner;
	char *run;            /* run id (owned copy, for intents) */
	char **argv;          /* owned */
	char *cwd;            /* owned */
	int resolving;        /* a launcher-style server is being resolved on the threadpool */
	struct pkgexec_plan plan;
	struct err plan_err;
	int plan_rc;
	uv_work_t work;
	struct conn *next;
};

enum { I_RESOLVE, I_STOP_RUN, I_STOP_ALL };

struct intent {
	int kind;
	char *run;
	uint64_t hold;
	int answer; /* enum admission_answer */
	struct intent *next;
};

struct chost {
	struct chost_cfg cfg;
	char **server; /* owned copy of cfg.server */
	char *scope, *policy_file, *state_dir, *trace_dir, *socket_path;
	uv_loop_t loop;
	uv_async_t async;
	uv_poll_t lpoll;
	int lfd;
	int listening;
	pthread_t thread;
	pthread_mutex_t mu;
	struct intent *intents, **itail;
	struct conn *conns;
	int stopping;
	atomic_int live;
};

static char *xstrdup_opt(const char *s)
{
	return s ? xstrdup(s) : NULL;
}

static char **argv_dup(char *const *argv)
{
	if (!argv || !argv[0])
		return NULL;
	size_t n = 0;
	while (argv[n])
		n++;
	char **out = xcalloc(n + 1, sizeof *out);
	for (size_t i = 0; i < n; i++)
		out[i] = xstrdup(argv[i]);
	return out;
}

static void argv_free(char **argv)
{
	for (char **a = argv; a && *a; a++)
		free(*a);
	free(argv);
}

static void post(struct chost *h, struct cevent *ev)
{
	cqueue_post(h->cfg.events, ev);
}

char *chost_default_socket(void)
{
	return paths_console_socket();
}

/* The socket's directory: created 0700, and refused unless it is ours and private. */
static int private_dir(const char *sock, struct err *e)
{
	char *dir = xstrdup(sock);
	char *slash = strrchr(dir, '/');
	int rc = 0;
	if (slash && slash != dir) {
		*slash = '\0';
		if (mkdir(dir, 0700) != 0 && errno != EEXIST)
			rc = err_set(e, -errno, "cannot create %s: %s", dir, strerror(errno));
		if (!rc)
			rc = sockpeer_dir_check(sock, e);
	}
	free(dir);
	return rc;
}

static int listen_on(const char *path, int check_dir, int *out, struct err *e)
{
	struct sockaddr_un a = {.sun_family = AF_UNIX};
	if (strlen(path) >= sizeof a.sun_path)
		return err_set(e, BELAY_EINVAL, "socket path too long: %s", path);
	strcpy(a.sun_path, path);
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		return err_set(e, -errno, "socket: %s", strerror(errno));
	struct stat st;
	if (lstat(path, &st) == 0) {
		if (!S_ISSOCK(st.st_mode)) {
			close(fd);
			return err_set(e, BELAY_EEXIST, "%s exists and is not a socket", path);
		}
		int probe = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
		int live = probe >= 0 && connect(probe, (struct sockaddr *)&a, sizeof a) == 0;
		if (probe >= 0)
			close(probe);
		if (live) {
			close(fd);
			return err_set(e, BELAY_EEXIST, "another console is listening at %s (use --socket PATH)", path);
		}
		unlink(path); /* stale: left by a console that did not exit cleanly */
	}
	mode_t old = umask(0177);
	int rc = bind(fd, (struct sockaddr *)&a, sizeof a);
	umask(old);
	if (rc != 0 || chmod(path, 0600) != 0 || listen(fd, 64) != 0) {
		int err = errno;
		close(fd);
		return err_set(e, -err, "cannot listen on %s: %s", path, strerror(err));
	}
	/* between the check of the directory and now, the path could have been swapped for
	 * someone else's socket: it must lead to ours */
	if ((rc = sockpeer_bound_check(path, check_dir, e)) != 0) {
		close(fd);
		return rc;
	}
	*out = fd;
	return 0;
}

int chost_bind(const char *path, int check_dir, int *fd, struct err *e)
{
	int rc = check_dir ? private_dir(path, e) : 0;
	return rc ? rc : listen_on(path, check_dir, fd, e);
}

/*==== connections ====*/

static void send_line(int fd, cJSON *obj)
{
	char *s = cJSON_PrintUnformatted(obj);
	size_t n = strlen(s);
	char *line = xmalloc(n + 1);
	memcpy(line, s, n);
	line[n] = '\n';
	ssize_t w = send(fd, line, n + 1, MSG_NOSIGNAL | MSG_DONTWAIT);
	(void)w; /* a gone peer is noticed by the poll */
	free(line);
	cJSON_free(s);
	cJSON_Delete(obj);
}

static void send_error(struct conn *c, const char *msg)
{
	cJSON *o = cJSON_CreateObject();
	cJSON_AddFalseToObject(o, "ok");
	cJSON_AddStringToObject(o, "error", msg);
	send_line(c->fd, o);
}

static void conn_unlink(struct conn *c)
{
	for (struct conn **pp = &c->h->conns; *pp; pp = &(*pp)->next)
		if (*pp == c) {
			*pp = c->next;
			break;
		}
}

static void conn_free(struct conn *c)
{
	for (int i = 0; i < c->nfds; i++)
		if (c->fds[i] >= 0)
			close(c->fds[i]);
	buf_free(&c->in);
	argv_free(c->argv);
	free(c->cwd);
	free(c->run);
	pkgexec_plan_free(&c->plan);
	free(c);
}

static void maybe_finish(struct chost *h);

static void on_poll_closed(uv_handle_t *hd)
{
	struct conn *c = hd->data;
	struct chost *h = c->h;
	close(c->fd);
	c->fd = -1;
	if (!c->runner && !c->resolving) {
		conn_unlink(c);
		conn_free(c);
		maybe_finish(h);
	}
	/* else: freed after runner_free (work_done) */
}

static void conn_close(struct conn *c)
{
	if (c->polling) {
		c->polling = 0;
		uv_poll_stop(&c->poll);
		uv_close((uv_handle_t *)&c->poll, on_poll_closed);
	}
}

/* Threadpool: finishing the run's indexing may wait for the last batch. */
static void free_work(uv_work_t *w)
{
	struct conn *c = w->data;
	runner_free(c->runner);
}

static void free_done(uv_work_t *w, int status)
{
	(void)status;
	struct conn *c = w->data;
	struct chost *h = c->h;
	c->runner = NULL;
	post(h, cevent_new(CE_RUN_COMMITTED, c->run)); /* the last batch is in */
	if (c->fd < 0) {
		conn_unlink(c);
		conn_free(c);
		maybe_finish(h);
	}
}

static void on_run_ended(void *ctx, struct runner *r, int code)
{
	struct conn *c = ctx;
	struct chost *h = c->h;
	(void)r;
	c->state = C_DONE;
	atomic_fetch_sub(&h->live, 1);
	struct cevent *ev = cevent_new(CE_RUN_ENDED, c->run);
	ev->a = code;
	post(h, ev);
	if (c->fd >= 0) {
		cJSON *o = cJSON_CreateObject();
		cJSON_AddNumberToObject(o, "exit", code);
		send_line(c->fd, o);
	}
	conn_close(c);
	c->work.data = c;
	if (uv_queue_work(&h->loop, &c->work, free_work, free_done) != 0) {
		free_work(&c->work);
		free_done(&c->work, 0);
	}
}

static void on_run_hold(void *ctx, struct runner *r, uint64_t hold, int64_t seq, const char *tool, const cJSON *plan,
			const cJSON *trial)
{
	struct conn *c = ctx;
	(void)r;
	post(c->h, cevent_hold(c->run, hold, seq, tool, plan, trial));
}

/* Store writer thread. */
static void on_run_committed(void *ctx, struct runner *r)
{
	struct conn *c = ctx;
	post(c->h, cevent_new(CE_RUN_COMMITTED, runner_run_id(r)));
}

static void on_run_alert(void *ctx, struct runner *r, const char *reason, const char *text)
{
	struct conn *c = ctx;
	(void)r;
	struct cevent *ev = cevent_new(CE_RUN_ALERT, c->run);
	ev->text = xstrdup(text);
	ev->json = cJSON_CreateObject();
	cJSON_AddStringToObject(ev->json, "reason", reason);
	post(c->h, ev);
}

static void on_run_report(void *ctx, const char *msg)
{
	struct conn *c = ctx;
	post(c->h, cevent_log(2, "%s", msg));
}

static void launch_run(struct conn *c);

static void refuse_run(struct conn *c, const char *why)
{
	if (c->fd >= 0)
		send_error(c, why);
	post(c->h, cevent_log(2, "a connection could not start its run: %s", why));
	conn_close(c);
}

/* Threadpool: the launcher's package manager runs here. */
static void resolve_work(uv_work_t *w)
{
	struct conn *c = w->data;
	struct pkgexec_opts po = {.cwd = c->cwd, .stderr_fd = c->h->cfg.server_stderr_fd};
	c->plan_rc = pkgexec_resolve(c->argv, &po, &c->plan, &c->plan_err);
}

static void resolve_done(uv_work_t *w, int status)
{
	struct conn *c = w->data;
	c->resolving = 0;
	if (!c->polling) {
		/* The connect process went away (or the console stops) meanwhile: nothing to run
		 * for. Its poll handle is closed, or closing (then on_poll_closed frees it). */
		if (c->fd < 0) {
			struct chost *h = c->h;
			conn_unlink(c);
			conn_free(c);
			maybe_finish(h);
		}
		return;
	}
	if (status != 0 || c->plan_rc)
		refuse_run(c, status ? "the resolution was cancelled" : c->plan_err.msg);
	else if (c->h->stopping)
		refuse_run(c, "the console is stopping");
	else
		launch_run(c);
}

static void start_run(struct conn *c, const char *line, size_t len)
{
	struct chost *h = c->h;
	cJSON *hello = cJSON_ParseWithLength(line, len);
	char msg[700];
	long long v = 0;
	if (!cJSON_IsObject(hello) || !jx_int(hello, "v", 1, 1, &v)) {
		cJSON_Delete(hello);
		send_error(c, "malformed hello (expected one JSON object with \"v\": 1)");
		conn_close(c);
		return;
	}
	if (cJSON_GetObjectItemCaseSensitive(hello, "hook")) {
		/* an agent's hook event: someone else's protocol on this socket */
		int fd = h->cfg.adopt ? dup(c->fd) : -1;
		if (fd >= 0) {
			size_t head = len + 1;
			h->cfg.adopt(h->cfg.other_ctx, fd, hello, c->in.p + head, c->in.len - head);
		}
		cJSON_Delete(hello);
		conn_close(c); /* the adopter holds its own descriptor of the connection */
		return;
	}
	if (c->nfds != 2) {
		cJSON_Delete(hello);
		snprintf(msg, sizeof msg, "the hello must carry the agent's stdin and stdout (got %d descriptor(s))",
			 c->nfds);
		send_error(c, msg);
		conn_close(c);
		return;
	}
	const cJSON *srv = cJSON_GetObjectItemCaseSensitive(hello, "server");
	if (cJSON_IsArray(srv) && cJSON_GetArraySize(srv) > 0) {
		int n = cJSON_GetArraySize(srv), i = 0;
		c->argv = xcalloc((size_t)n + 1, sizeof *c->argv);
		for (const cJSON *a = srv->child; a; a = a->next) {
			if (!cJSON_IsString(a)) {
				cJSON_Delete(hello);
				send_error(c, "\"server\" must be an array of strings");
				conn_close(c);
				return;
			}
			c->argv[i++] = xstrdup(a->valuestring);
		}
	} else {
		c->argv = argv_dup(h->server);
	}
	if (!c->argv) {
		cJSON_Delete(hello);
		send_error(c, "no server to run: the console was started without one and the connection names none "
			      "(belay connect [SOCKET] -- SERVER...)");
		conn_close(c);
		return;
	}
	/* The server runs where the agent is, unless that is outside a contained workspace. */
	const char *cwd = jx_str(hello, "cwd");
	struct stat st;
	if (cwd && cwd[0] == '/' && stat(cwd, &st) == 0 && S_ISDIR(st.st_mode) &&
	    (!h->scope || fs_is_under(cwd, h->scope)))
		c->cwd = xstrdup(cwd);
	else if (h->scope)
		c->cwd = xstrdup(h->scope);
	cJSON_Delete(hello);
	/* npx & co.: fetched outside the sandbox first (pkgexec.h), which takes seconds: on the
	 * threadpool, so that the other runs keep flowing. */
	if (h->scope && pkgexec_is_launcher(c->argv)) {
		c->resolving = 1;
		c->work.data = c;
		if (uv_queue_work(&h->loop, &c->work, resolve_work, resolve_done) == 0)
			return;
		c->resolving = 0;
		resolve_work(&c->work);
		if (c->plan_rc) {
			refuse_run(c, c->plan_err.msg);
			return;
		}
	}
	launch_run(c);
}

static void launch_run(struct conn *c)
{
	struct chost *h = c->h;
	char msg[700];
	struct endpoint *cin = NULL, *cout = NULL;
	int rc = endpoint_open_fd(&h->loop, c->fds[0], 1, &cin);
	if (rc == 0) {
		c->fds[0] = -1;
		rc = endpoint_open_fd(&h->loop, c->fds[1], 1, &cout);
		if (rc == 0)
			c->fds[1] = -1;
	}
	if (rc) {
		if (cin)
			endpoint_close(cin);
		snprintf(msg, sizeof msg, "cannot use the agent's stdio: %s", uv_strerror(rc));
		send_error(c, msg);
		conn_close(c);
		return;
	}
	struct runner_cfg rc_cfg = {
		.server = c->argv,
		.cwd = c->cwd,
		.scope = h->scope,
		.net = h->cfg.net,
		.expose = h->cfg.expose,
		.mode = h->cfg.mode,
		.policy_file = h->policy_file,
		.state_dir = h->state_dir,
		.trace_dir = h->trace_dir,
		.approvals = 1,
		/* no spinning: the UI thread renders as the turns stream, and a loop that spins takes
		 * the CPU it needs (bench_console: the paired p99 went from x1.06 to x2.4; with the
		 * spin yielding, the paired phase's late calls doubled: docs/CONSOLE.md) */
		.no_spin = 1,
		.stderr_fd = h->cfg.server_stderr_fd,
		.resolved = c->plan.argv ? &c->plan : NULL,
		.trial = h->cfg.trial,
		.trial_ctx = h->cfg.trial_ctx,
		.ended = on_run_ended,
		.hold = on_run_hold,
		.committed = on_run_committed,
		.report = on_run_report,
		.alert = on_run_alert,
		.ctx = c,
	};
	struct err e = {0};
	if (runner_start(&h->loop, &rc_cfg, cin, cout, &c->runner, &e) != 0) {
		c->runner = NULL;
		send_error(c, e.msg);
		post(h, cevent_log(2, "a connection could not start its run: %s", e.msg));
		conn_close(c);
		return;
	}
	c->state = C_RUN;
	atomic_fetch_add(&h->live, 1);
	c->run = xstrdup_opt(runner_run_id(c->runner));
	struct cevent *ev = cevent_new(CE_RUN_STARTED, c->run);
	ev->trace = xstrdup_opt(runner_trace_path(c->runner));
	post(h, ev);
	cJSON *o = cJSON_CreateObject();
	cJSON_AddTrueToObject(o, "ok");
	if (c->run)
		cJSON_AddStringToObject(o, "run", c->run);
	if (runner_trace_path(c->runner))
		cJSON_AddStringToObject(o, "trace", runner_trace_path(c->runner));
	send_line(c->fd, o);
	buf_free(&c->in);
}

static void on_conn_readable(uv_poll_t *p, int status, int events)
{
	struct conn *c = p->data;
	(void)events;
	char data[4096];
	union {
		struct cmsghdr h;
		char b[CMSG_SPACE(4 * sizeof(int))];
	} cm;
	struct iovec iov = {.iov_base = data, .iov_len = sizeof data};
	struct msghdr m = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = cm.b, .msg_controllen = sizeof cm.b};
	ssize_t n = status < 0 ? -1 : recvmsg(c->fd, &m, MSG_CMSG_CLOEXEC | MSG_DONTWAIT);
	if (n < 0 && status >= 0 && (errno == EAGAIN || errno == EINTR))
		return;
	for (struct cmsghdr *h = n >= 0 ? CMSG_FIRSTHDR(&m) : NULL; h; h = CMSG_NXTHDR(&m, h)) {
		if (h->cmsg_level != SOL_SOCKET || h->cmsg_type != SCM_RIGHTS)
			continue;
		int k = (int)((h->cmsg_len - CMSG_LEN(0)) / sizeof(int));
		int *fds = (int *)CMSG_DATA(h);
		for (int i = 0; i < k; i++) {
			if (c->nfds < 2 && c->state == C_HELLO)
				c->fds[c->nfds++] = fds[i];
			else
				close(fds[i]);
		}
	}
	if (n <= 0) {
		/* The connect process is gone: a run it started is stopped. */
		c->gone = 1;
		if (c->state == C_RUN && c->runner)
			runner_terminate(c->runner);
		conn_close(c);
		return;
	}
	if (c->state != C_HELLO)
		return; /* nothing else is expected from connect */
	buf_append(&c->in, data, (size_t)n);
	char *nl = memchr(c->in.p, '\n', c->in.len);
	if (!nl) {
		if (c->in.len > CHOST_HELLO_MAX) {
			send_error(c, "hello too long");
			conn_close(c);
		}
		return;
	}
	start_run(c, c->in.p, (size_t)(nl - c->in.p));
}

static void on_listen_readable(uv_poll_t *p, int status, int events)
{
	struct chost *h = p->data;
	(void)events;
	if (status < 0)
		return;
	for (;;) {
		int fd = accept4(h->lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (fd < 0)
			return;
		struct err pe = {0};
		if (sockpeer_check(fd, h->cfg.allow_root, NULL, &pe) != 0) {
			/* refused by name: the peer is told, the console logs it */
			char why[600];
			snprintf(why, sizeof why, "belay: refused: %s", pe.msg);
			cJSON *o = cJSON_CreateObject();
			cJSON_AddFalseToObject(o, "ok");
			cJSON_AddStringToObject(o, "error", why);
			send_line(fd, o);
			post(h, cevent_log(1, "refused a connection to the console's socket: %s", pe.msg));
			close(fd);
			continue;
		}
		struct conn *c = xcalloc(1, sizeof *c);
		c->h = h;
		c->fd = fd;
		c->fds[0] = c->fds[1] = -1;
		c->next = h->conns;
		h->conns = c;
		c->poll.data = c;
		if (uv_poll_init(&h->loop, &c->poll, fd) != 0) {
			conn_unlink(c);
			close(fd);
			conn_free(c);
			continue;
		}
		c->polling = 1;
		uv_poll_start(&c->poll, UV_READABLE | UV_DISCONNECT, on_conn_readable);
	}
}

/*==== intents and shutdown ====*/

static void maybe_finish(struct chost *h)
{
	if (!h->stopping || h->conns)
		return;
	if (!uv_is_closing((uv_handle_t *)&h->async))
		uv_close((uv_handle_t *)&h->async, NULL);
}

static struct conn *find_run(struct chost *h, const char *run)
{
	for (struct conn *c = h->conns; c; c = c->next)
		if (c->run && run && !strcmp(c->run, run))
			return c;
	return NULL;
}

static void on_async(uv_async_t *a)
{
	struct chost *h = a->data;
	pthread_mutex_lock(&h->mu);
	struct intent *list = h->intents;
	h->intents = NULL;
	h->itail = &h->intents;
	pthread_mutex_unlock(&h->mu);
	while (list) {
		struct intent *it = list;
		list = it->next;
		struct conn *c = it->run ? find_run(h, it->run) : NULL;
		if (it->kind == I_RESOLVE) {
			char *user = os_user_name();
			char *by = xasprintf("%s (console)", user);
			int rc = c && c->runner && c->state == C_RUN ? runner_resolve(c->runner, it->hold, it->answer, by)
								     : BELAY_ENOTFOUND;
			if (!c && h->cfg.resolve) { /* a hook run's hold: its host answers (and tells the UI) */
				if (h->cfg.resolve(h->cfg.other_ctx, it->run, it->hold, it->answer, by) != 0) {
					struct cevent *ev = cevent_new(CE_HOLD_DONE, it->run);
					ev->a = (int64_t)it->hold;
					ev->b = CE_HOLD_GONE; /* no longer held (the hold's time ran out, or its run ended) */
					post(h, ev);
				}
				free(by);
				free(user);
				free(it->run);
				free(it);
				continue;
			}
			free(by);
			free(user);
			struct cevent *ev = cevent_new(CE_HOLD_DONE, it->run);
			ev->a = (int64_t)it->hold;
			ev->b = rc == 0 ? it->answer : rc == BELAY_EINVAL ? CE_HOLD_NO_TRIAL : CE_HOLD_GONE;
			post(h, ev);
		} else if (it->kind == I_STOP_RUN) {
			if (c && c->runner && c->state == C_RUN)
				runner_terminate(c->runner);
		} else if (!h->stopping) {
			h->stopping = 1;
			if (h->listening) {
				h->listening = 0;
				uv_poll_stop(&h->lpoll);
				uv_close((uv_handle_t *)&h->lpoll, NULL);
			}
			for (struct conn *k = h->conns; k; k = k->next) {
				if (k->runner && k->state == C_RUN)
					runner_terminate(k->runner);
				else if (k->state == C_HELLO)
					conn_close(k);
			}
			maybe_finish(h);
		}
		free(it->run);
		free(it);
	}
}

static void intent(struct chost *h, int kind, const char *run, uint64_t hold, int answer)
{
	struct intent *it = xcalloc(1, sizeof *it);
	it->kind = kind;
	it->run = xstrdup_opt(run);
	it->hold = hold;
	it->answer = answer;
	pthread_mutex_lock(&h->mu);
	*h->itail = it;
	h->itail = &it->next;
	pthread_mutex_unlock(&h->mu);
	uv_async_send(&h->async);
}

static void *host_main(void *arg)
{
	struct chost *h = arg;
	/* This thread forwards every run's frames while the UI thread draws beside it: a short
	 * slice (--slice-us; none by default, proxy/loop_slice.h) lets it take the CPU from the
	 * drawing when a frame arrives. */
	struct loop_slice slice;
	if (h->cfg.slice_us && loop_slice_set(h->cfg.slice_us, &slice) != 0)
		post(h, cevent_log(1, "the engine thread keeps the kernel's scheduler slice (--slice-us %u): %s",
				   h->cfg.slice_us, slice.why));
	uv_run(&h->loop, UV_RUN_DEFAULT);
	close(h->lfd);
	h->lfd = -1;
	return NULL;
}

/* Frees h with the configuration it copied (the loop and the thread are the caller's). */
static void host_free(struct chost *h)
{
	argv_free(h->server);
	free(h->scope);
	free(h->policy_file);
	free(h->state_dir);
	free(h->trace_dir);
	free(h->socket_path);
	free(h);
}

int chost_start(const struct chost_cfg *cfg, struct chost **out, struct err *e)
{
	*out = NULL;
	struct chost *h = xcalloc(1, sizeof *h);
	h->cfg = *cfg;
	h->server = argv_dup(cfg->server);
	h->scope = xstrdup_opt(cfg->scope);
	h->policy_file = xstrdup_opt(cfg->policy_file);
	h->state_dir = xstrdup_opt(cfg->state_dir);
	h->trace_dir = xstrdup_opt(cfg->trace_dir);
	h->socket_path = cfg->socket_path ? xstrdup(cfg->socket_path) : chost_default_socket();
	h->lfd = -1;
	/* The default path is a well-known name: its directory must be ours alone, or someone
	 * could have put a socket there first. A path the operator chose is theirs to judge. */
	int rc = chost_bind(h->socket_path, !cfg->socket_path, &h->lfd, e);
	if (rc)
		goto fail;
	pthread_mutex_init(&h->mu, NULL);
	h->itail = &h->intents;
	uv_loop_init(&h->loop);
	uv_async_init(&h->loop, &h->async, on_async);
	h->async.data = h;
	uv_poll_init(&h->loop, &h->lpoll, h->lfd);
	h->lpoll.data = h;
	uv_poll_start(&h->lpoll, UV_READABLE, on_listen_readable);
	h->listening = 1;
	if ((rc = pthread_create(&h->thread, NULL, host_main, h)) != 0) {
		rc = err_set(e, -rc, "cannot start the console's engine thread");
		uv_close((uv_handle_t *)&h->async, NULL);
		uv_close((uv_handle_t *)&h->lpoll, NULL);
		uv_run(&h->loop, UV_RUN_DEFAULT);
		uv_loop_close(&h->loop);
		pthread_mutex_destroy(&h->mu);
		close(h->lfd);
		unlink(h->socket_path);
		goto fail;
	}
	*out = h;
	return 0;
fail:
	host_free(h);
	return rc;
}

const char *chost_socket(const struct chost *h)
{
	return h->socket_path;
}

void chost_resolve(struct chost *h, const char *run, uint64_t hold, enum admission_answer answer)
{
	intent(h, I_RESOLVE, run, hold, (int)answer);
}

void chost_stop_run(struct chost *h, const char *run)
{
	intent(h, I_STOP_RUN, run, 0, 0);
}

int chost_live_runs(struct chost *h)
{
	return atomic_load(&h->live);
}

void chost_stop(struct chost *h)
{
	if (!h)
		return;
	intent(h, I_STOP_ALL, NULL, 0, 0);
	pthread_join(h->thread, NULL);
	uv_loop_close(&h->loop);
	pthread_mutex_destroy(&h->mu);
	while (h->intents) {
		struct intent *it = h->intents;
		h->intents = it->next;
		free(it->run);
		free(it);
	}
	unlink(h->socket_path);
	host_free(h);
}
