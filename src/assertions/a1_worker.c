/* a1_worker.c - a long-lived bounded reader serving requests over a socketpair (a1_worker.h).
 *
 * Responsibility: the worker's fork, its loop and limits, the request and answer framing, the
 * parent's watch of each request (CPU since it began, wall clock, resident memory growth) and
 * the kill, the restart of a worker found dead; nothing of what is read. */
#include "assertions/a1_worker.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "common/timeutil.h"

#define SLICE_MS 20	     /* how often the parent looks at the worker */
#define OUT_MAX (256u << 20) /* an answer longer than this is not an answer */
#define END_MARK 0xffffffffu /* the frame length that closes an answer */

static void put32(unsigned char *p, uint32_t v)
{
	p[0] = (unsigned char)v;
	p[1] = (unsigned char)(v >> 8);
	p[2] = (unsigned char)(v >> 16);
	p[3] = (unsigned char)(v >> 24);
}

static uint32_t get32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* ---- the worker (in the child) ---- */

static int read_full(int fd, void *p, size_t n)
{
	char *c = p;
	while (n) {
		ssize_t r = read(fd, c, n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return -1;
		c += r;
		n -= (size_t)r;
	}
	return 0;
}

static void close_from(int lo)
{
	if (close_range((unsigned)lo, ~0u, 0) == 0)
		return;
	long max = sysconf(_SC_OPEN_MAX);
	for (long i = lo; i < (max > 0 && max < 65536 ? max : 65536); i++)
		close((int)i);
}

static void __attribute__((noreturn)) worker_main(int fd, a1_worker_serve_fn serve, pid_t parent)
{
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != parent)
		_exit(0); /* the parent (its forking thread) is already gone */
	if (fd != 0) {
		dup2(fd, 0);
		close(fd);
	}
	int null = open("/dev/null", O_RDWR);
	if (null >= 0 && null != 2) {
		dup2(null, 1);
		dup2(null, 2); /* an allocation that fails aborts with a line; it is not belay's to print */
	}
	close_from(3); /* a long-lived child must not hold another child's pipe open */
	sigset_t none;
	sigemptyset(&none);
	for (int s = 1; s < NSIG; s++)
		if (s != SIGKILL && s != SIGSTOP)
			signal(s, SIG_DFL); /* belay's handlers are not the worker's */
	signal(SIGINT, SIG_IGN);     /* a terminal's ^C is for belay; the worker ends with it (EOF) */
	signal(SIGQUIT, SIG_IGN);
	sigprocmask(SIG_SETMASK, &none, NULL);
	struct rlimit core = {0, 0};
	setrlimit(RLIMIT_CORE, &core);
	struct a1_bound_chan ch = {0, 1};
	for (;;) {
		unsigned char h[12];
		if (read_full(0, h, sizeof h))
			_exit(0); /* the parent closed its end, or is gone */
		uint32_t n = get32(h), ms = get32(h + 4), mib = get32(h + 8);
		struct rlimit as;
		if (getrlimit(RLIMIT_AS, &as) == 0 && as.rlim_cur != as.rlim_max) {
			as.rlim_cur = as.rlim_max; /* the last request's limit is not this one's */
			setrlimit(RLIMIT_AS, &as);
		}
		char *req = n ? malloc(n) : NULL;
		if ((n && !req) || (n && read_full(0, req, n)))
			_exit(4);
		a1_bound_limit_self(ms, mib);
		serve(req, n, &ch);
		free(req);
		unsigned char end[4];
		put32(end, END_MARK);
		if (write(0, end, 4) != 4)
			_exit(3);
	}
}

/* ---- the parent ---- */

static void reap(pid_t pid, int *st)
{
	while (waitpid(pid, st, 0) < 0 && errno == EINTR)
		;
}

/* Ends w's worker; *st its wait status (may be NULL). Under w->mu. */
static void stop_locked(struct a1_worker *w, int kill_it, int *st)
{
	int s = 0;
	if (!w->pid)
		return;
	close(w->fd);
	w->fd = -1;
	if (kill_it)
		kill(w->pid, SIGKILL);
	reap(w->pid, &s);
	w->pid = 0;
	if (st)
		*st = s;
}

static int start_locked(struct a1_worker *w, struct err *e)
{
	int sv[2];
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0)
		return err_set(e, -errno, "cannot make a socket for the bounded reader: %s", strerror(errno));
	pid_t parent = getpid();
	pid_t pid = fork();
	if (pid < 0) {
		int rc = -errno;
		close(sv[0]);
		close(sv[1]);
		return err_set(e, rc, "cannot fork the bounded reader: %s", strerror(-rc));
	}
	if (pid == 0) {
		close(sv[0]);
		worker_main(sv[1], w->serve, parent);
	}
	close(sv[1]);
	w->pid = pid;
	w->fd = sv[0];
	w->born_rss = a1_bound_statm(pid, 1);
	w->started++;
	return 0;
}

static int send_all(int fd, const void *p, size_t n)
{
	const char *c = p;
	while (n) {
		ssize_t k = send(fd, c, n, MSG_NOSIGNAL);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return -1;
		c += k;
		n -= (size_t)k;
	}
	return 0;
}

/* Moves the whole frames of raw (from *at) to out; 1 once the end mark is read, -1 when the
 * answer is too long. */
static int take_frames(struct buf *raw, size_t *at, struct buf *out, size_t start)
{
	while (raw->len - *at >= 4) {
		uint32_t k = get32((const unsigned char *)raw->p + *at);
		if (k == END_MARK) {
			*at += 4;
			return 1;
		}
		if (raw->len - *at - 4 < k)
			break;
		buf_append(out, raw->p + *at + 4, k);
		*at += 4 + (size_t)k;
		if (out->len - start > OUT_MAX)
			return -1;
	}
	return 0;
}

/* One request to the running worker. Returns 1 when it ended without being stopped at a bound
 * before any of the answer arrived, or at any point killed by a SIGKILL not ours (worth one
 * more try with a new worker, the answer anew), else 0. */
static int exchange(struct a1_worker *w, const void *req, size_t n, struct buf *out, size_t start,
		    struct a1_bound_result *res)
{
	pid_t pid = w->pid;
	unsigned long cpu0 = a1_bound_cpu_ms(pid);
	size_t rss0 = a1_bound_statm(pid, 1), cap = rss0 + ((size_t)res->mib << 20);
	unsigned char h[12];
	put32(h, (uint32_t)n);
	put32(h + 4, res->ms);
	put32(h + 8, res->mib);
	if (send_all(w->fd, h, sizeof h) || (n && send_all(w->fd, req, n))) {
		stop_locked(w, 1, NULL); /* EPIPE: it was gone already */
		res->end = A1_BOUND_DIED;
		return 1;
	}
	uint64_t deadline = time_mono_ns() + (3ull * res->ms + 1000) * 1000000ull; /* a worker starved of CPU */
	struct buf raw = {0};
	size_t at = 0;
	int done = 0, eof = 0, killed = 0;
	while (!done && !eof && !killed) {
		struct pollfd pf = {.fd = w->fd, .events = POLLIN};
		int r = poll(&pf, 1, SLICE_MS);
		if (r < 0 && errno != EINTR) {
			res->end = A1_BOUND_DIED;
			killed = 1;
			break;
		}
		if (r > 0) {
			buf_reserve(&raw, 65536);
			ssize_t k = read(w->fd, raw.p + raw.len, raw.cap - raw.len);
			if (k < 0 && (errno == EINTR || errno == EAGAIN))
				continue;
			if (k <= 0) {
				eof = 1;
				break;
			}
			raw.len += (size_t)k;
			int t = take_frames(&raw, &at, out, start);
			if (t < 0) {
				res->end = A1_BOUND_DIED;
				killed = 1;
				break;
			}
			if (t > 0) {
				done = 1;
				break;
			}
			if (raw.len - at > OUT_MAX) { /* a frame announced longer than any answer */
				res->end = A1_BOUND_DIED;
				killed = 1;
				break;
			}
			if (at > (1u << 20)) { /* keep what is left of raw small */
				memmove(raw.p, raw.p + at, raw.len - at);
				raw.len -= at;
				at = 0;
			}
		}
		if (time_mono_ns() > deadline || (r == 0 && a1_bound_cpu_ms(pid) > cpu0 + res->ms)) {
			res->end = A1_BOUND_TIME;
			killed = 1;
		} else if (r == 0 && rss0 && a1_bound_statm(pid, 1) > cap) {
			res->end = A1_BOUND_MEMORY;
			killed = 1;
		}
	}
	int again = 0;
	if (done && at == raw.len) {
		res->end = A1_BOUND_DONE;
	} else if (done) {
		res->end = A1_BOUND_DIED; /* bytes past the end mark: not an answer; not this worker again */
		stop_locked(w, 1, NULL);
	} else if (killed) {
		stop_locked(w, 1, NULL);
	} else {
		int st = 0;
		stop_locked(w, 0, &st); /* it closed its end: it is ending */
		res->end = a1_bound_ended(st, &res->signal);
		if (res->end == A1_BOUND_DONE) /* it exited 0 without an answer */
			res->end = A1_BOUND_DIED;
		/* a SIGKILL not ours: its forking thread ended (PDEATHSIG; another thread's request may
		 * be half answered then), or the OOM killer - worth one more try, the answer anew */
		int theirs = res->signal == SIGKILL;
		if (theirs)
			res->end = A1_BOUND_DIED;
		again = res->end == A1_BOUND_DIED && (out->len == start || theirs);
	}
	buf_free(&raw);
	return again;
}

int a1_worker_call(struct a1_worker *w, const void *req, size_t n, struct buf *out, struct a1_bound_result *res,
		   struct err *e)
{
	struct timespec until;
	clock_gettime(CLOCK_MONOTONIC, &until);
	until.tv_nsec += A1_WORKER_WAIT_MS * 1000000l;
	until.tv_sec += until.tv_nsec / 1000000000l;
	until.tv_nsec %= 1000000000l;
	if (pthread_mutex_clocklock(&w->mu, CLOCK_MONOTONIC, &until))
		return A1_WORKER_BUSY;
	memset(res, 0, sizeof *res);
	a1_bound_limits(&res->ms, &res->mib);
	size_t start = out->len;
	int rc = 0;
	for (int attempt = 0;; attempt++) {
		if (w->pid && w->born_rss && a1_bound_statm(w->pid, 1) > w->born_rss + ((size_t)A1_WORKER_MAX_HOLD_MIB << 20))
			stop_locked(w, 1, NULL); /* grown too much over its life: a new one */
		if (!w->pid && (rc = start_locked(w, e)) < 0)
			break;
		unsigned ms = res->ms, mib = res->mib;
		memset(res, 0, sizeof *res);
		res->ms = ms;
		res->mib = mib;
		if (!exchange(w, req, n, out, start, res) || attempt)
			break;
		out->len = start;
	}
	pthread_mutex_unlock(&w->mu);
	return rc;
}

void a1_worker_forget(struct a1_worker *w)
{
	pthread_mutex_lock(&w->mu);
	if (w->pid) {
		struct a1_bound_result res = {0};
		struct buf out = {0};
		a1_bound_limits(&res.ms, &res.mib);
		exchange(w, NULL, 0, &out, 0, &res); /* a worker that does not answer is ended there */
		buf_free(&out);
	}
	pthread_mutex_unlock(&w->mu);
}

void a1_worker_stop(struct a1_worker *w)
{
	pthread_mutex_lock(&w->mu);
	stop_locked(w, 1, NULL);
	pthread_mutex_unlock(&w->mu);
}

pid_t a1_worker_pid(struct a1_worker *w, unsigned long *started)
{
	pthread_mutex_lock(&w->mu);
	pid_t p = w->pid;
	if (started)
		*started = w->started;
	pthread_mutex_unlock(&w->mu);
	return p;
}
