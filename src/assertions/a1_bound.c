/* a1_bound.c - a reading of hostile input in a child bounded in memory and time (a1_bound.h).
 *
 * Responsibility: the fork, the child's limits, the pipe back, the parent's watch (wall clock,
 * the child's resident memory) and the kill; nothing of what is read. */
#include "assertions/a1_bound.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/timeutil.h"

#if defined(__SANITIZE_ADDRESS__)
#define A1_BOUND_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define A1_BOUND_ASAN 1
#endif
#endif
#ifndef A1_BOUND_ASAN
#define A1_BOUND_ASAN 0
#endif

#define SLICE_MS 20	     /* how often the parent looks at the child's memory */
#define OUT_MAX (256u << 20) /* an answer longer than this is not an answer */

static unsigned env_uint(const char *name, unsigned dflt)
{
	const char *v = getenv(name);
	char *end;
	if (!v || !*v)
		return dflt;
	errno = 0;
	unsigned long n = strtoul(v, &end, 10);
	return errno || *end || n == 0 || n > 3600000ul ? dflt : (unsigned)n;
}

size_t a1_bound_statm(pid_t pid, int k)
{
	char path[64], line[128];
	if (pid)
		snprintf(path, sizeof path, "/proc/%d/statm", (int)pid);
	else
		snprintf(path, sizeof path, "/proc/self/statm");
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	ssize_t n = read(fd, line, sizeof line - 1);
	close(fd);
	if (n <= 0)
		return 0;
	line[n] = 0;
	unsigned long v[2] = {0, 0};
	if (sscanf(line, "%lu %lu", &v[0], &v[1]) != 2)
		return 0;
	return (size_t)v[k] * (size_t)sysconf(_SC_PAGESIZE);
}

unsigned long a1_bound_cpu_ms(pid_t pid)
{
	char path[64], line[1024];
	snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	ssize_t n = read(fd, line, sizeof line - 1);
	close(fd);
	if (n <= 0)
		return 0;
	line[n] = 0;
	const char *p = strrchr(line, ')'); /* the name may hold spaces and parentheses */
	unsigned long ut = 0, st = 0;
	if (!p || sscanf(p + 1, " %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %lu %lu", &ut, &st) != 2)
		return 0;
	long hz = sysconf(_SC_CLK_TCK);
	return hz > 0 ? (ut + st) * 1000ul / (unsigned long)hz : 0;
}

static int write_all(int fd, const char *p, size_t n)
{
	while (n) {
		ssize_t w = write(fd, p, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

void a1_bound_send(struct a1_bound_chan *ch, const void *p, size_t n)
{
	if (ch->framed) {
		while (n) { /* a frame: its length, then its bytes (a1_worker.c reads them) */
			size_t k = n > A1_BOUND_FRAME_MAX ? A1_BOUND_FRAME_MAX : n;
			unsigned char h[4] = {(unsigned char)k, (unsigned char)(k >> 8), (unsigned char)(k >> 16),
					      (unsigned char)(k >> 24)};
			if (write_all(ch->fd, (const char *)h, 4) || write_all(ch->fd, p, k))
				_exit(3);
			p = (const char *)p + k;
			n -= k;
		}
		return;
	}
	if (write_all(ch->fd, p, n))
		_exit(3); /* the parent is gone or gave up */
}

void a1_bound_limits(unsigned *ms, unsigned *mib)
{
	*ms = env_uint("BELAY_A1_PARSE_MS", A1_BOUND_MS);
	*mib = env_uint("BELAY_A1_PARSE_MIB", A1_BOUND_MIB);
}

void a1_bound_limit_self(unsigned ms, unsigned mib)
{
	struct rlimit old, now;
	struct rusage ru;
	if (!getrusage(RUSAGE_SELF, &ru) && !getrlimit(RLIMIT_CPU, &old)) {
		rlim_t used = (rlim_t)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) + 1; /* a started second counts */
		now.rlim_cur = used + (ms + 999) / 1000;
		now.rlim_max = old.rlim_max;
		if (old.rlim_max == RLIM_INFINITY || now.rlim_cur <= old.rlim_max)
			setrlimit(RLIMIT_CPU, &now);
	}
	size_t have = a1_bound_statm(0, 0);
	if (!A1_BOUND_ASAN && have && !getrlimit(RLIMIT_AS, &old)) {
		now.rlim_cur = have + ((size_t)mib << 20);
		now.rlim_max = old.rlim_max;
		if (old.rlim_max == RLIM_INFINITY || now.rlim_cur <= old.rlim_max)
			setrlimit(RLIMIT_AS, &now);
	}
}

enum a1_bound_end a1_bound_ended(int st, int *sig)
{
	*sig = 0;
	if (WIFEXITED(st) && WEXITSTATUS(st) == 0)
		return A1_BOUND_DONE;
	if (!WIFSIGNALED(st))
		return A1_BOUND_DIED;
	*sig = WTERMSIG(st);
	return *sig == SIGXCPU || *sig == SIGKILL   ? A1_BOUND_TIME
	       : *sig == SIGABRT && !A1_BOUND_ASAN ? A1_BOUND_MEMORY /* an allocation refused */
						   : A1_BOUND_DIED;
}

static void __attribute__((noreturn))
child(int fd, void (*fn)(void *, struct a1_bound_chan *), void *ctx, unsigned ms, unsigned mib)
{
	int null = open("/dev/null", O_WRONLY | O_CLOEXEC);
	if (null >= 0)
		dup2(null, 2); /* an allocation that fails aborts with a line; it is not belay's to print */
	struct rlimit core = {0, 0}, cpu = {(ms + 999) / 1000, (ms + 999) / 1000 + 1};
	setrlimit(RLIMIT_CORE, &core);
	setrlimit(RLIMIT_CPU, &cpu);
	if (!A1_BOUND_ASAN) {
		size_t have = a1_bound_statm(0, 0);
		struct rlimit as = {have + ((size_t)mib << 20), have + ((size_t)mib << 20)};
		if (have)
			setrlimit(RLIMIT_AS, &as);
	}
	struct a1_bound_chan ch = {fd, 0};
	fn(ctx, &ch);
	_exit(0);
}

static void reap(pid_t pid, int *st)
{
	while (waitpid(pid, st, 0) < 0 && errno == EINTR)
		;
}

int a1_bound_run(void (*fn)(void *ctx, struct a1_bound_chan *ch), void *ctx, struct buf *out,
		 struct a1_bound_result *res, struct err *e)
{
	unsigned ms, mib;
	a1_bound_limits(&ms, &mib);
	memset(res, 0, sizeof *res);
	res->ms = ms;
	res->mib = mib;
	int p[2];
	if (pipe2(p, O_CLOEXEC) < 0)
		return err_set(e, -errno, "cannot make a pipe for the bounded reading: %s", strerror(errno));
	size_t base = a1_bound_statm(0, 1), cap = base + ((size_t)mib << 20);
	pid_t pid = fork();
	if (pid < 0) {
		int rc = -errno;
		close(p[0]);
		close(p[1]);
		return err_set(e, rc, "cannot fork the bounded reading: %s", strerror(-rc));
	}
	if (pid == 0) {
		close(p[0]);
		child(p[1], fn, ctx, ms, mib);
	}
	close(p[1]);
	uint64_t deadline = time_mono_ns() + (3ull * ms + 1000) * 1000000ull; /* a child starved of CPU */
	size_t start = out->len;
	int eof = 0, killed = 0;
	while (!eof && !killed) {
		struct pollfd pf = {.fd = p[0], .events = POLLIN};
		int r = poll(&pf, 1, SLICE_MS);
		if (r < 0 && errno != EINTR)
			break;
		if (r > 0) {
			buf_reserve(out, 65536);
			ssize_t n = read(p[0], out->p + out->len, out->cap - out->len);
			if (n < 0 && (errno == EINTR || errno == EAGAIN))
				continue;
			if (n <= 0) {
				eof = 1;
				break;
			}
			out->len += (size_t)n;
			if (out->len - start > OUT_MAX) {
				res->end = A1_BOUND_DIED;
				killed = 1;
				break;
			}
		}
		if (time_mono_ns() > deadline || (r == 0 && a1_bound_cpu_ms(pid) > ms)) {
			res->end = A1_BOUND_TIME;
			killed = 1;
		} else if (r == 0 && base && a1_bound_statm(pid, 1) > cap) {
			res->end = A1_BOUND_MEMORY;
			killed = 1;
		}
	}
	if (!eof && !killed)
		res->end = A1_BOUND_DIED, killed = 1; /* poll failed */
	if (killed)
		kill(pid, SIGKILL);
	close(p[0]);
	int st = 0;
	reap(pid, &st);
	if (!killed)
		res->end = a1_bound_ended(st, &res->signal);
	return 0;
}

const char *a1_bound_why(const struct a1_bound_result *res, char *buf, size_t cap)
{
	switch (res->end) {
	case A1_BOUND_DONE:
		snprintf(buf, cap, "read within its bounds");
		break;
	case A1_BOUND_TIME:
		snprintf(buf, cap, "the parser was stopped at its bound of %u ms of CPU time", res->ms);
		break;
	case A1_BOUND_MEMORY:
		snprintf(buf, cap, "the parser was stopped at its bound of %u MiB of memory", res->mib);
		break;
	default:
		if (res->signal)
			snprintf(buf, cap, "the parser's process ended on signal %d", res->signal);
		else
			snprintf(buf, cap, "the parser's process ended without an answer");
	}
	return buf;
}
