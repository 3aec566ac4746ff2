/* sandbox_quiet.c - proof that a contained process tree is quiet. See sandbox_quiet.h. */
#include "sandbox/sandbox_quiet.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/futex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "common/xalloc.h"

#define QUIET_MAX_THREADS 4096

struct qthread {
	pid_t pid, tid;
	unsigned long long run_ns, slices;
};

struct sandbox_quiet_sample {
	struct qthread *t;
	size_t n, cap;
};

static uint64_t mono_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Reads a small /proc file into buf (NUL-terminated). Returns its length or -1. */
static ssize_t read_small(const char *path, char *buf, size_t cap)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	ssize_t n = read(fd, buf, cap - 1);
	close(fd);
	if (n < 0)
		return -1;
	buf[n] = '\0';
	return n;
}

static int add_thread(struct sandbox_quiet_sample *s, pid_t pid, pid_t tid)
{
	if (s->n == QUIET_MAX_THREADS)
		return -1;
	if (s->n == s->cap) {
		s->cap = s->cap ? s->cap * 2 : 32;
		s->t = xrealloc(s->t, s->cap * sizeof *s->t);
	}
	s->t[s->n++] = (struct qthread){.pid = pid, .tid = tid};
	return 0;
}

/* Lists the threads of pid and, through each thread's children, of every descendant.
 * A process that exits meanwhile simply drops out (the second pass sees the change). */
static int walk(struct sandbox_quiet_sample *s, pid_t pid, int depth)
{
	if (depth > 64)
		return -1;
	char path[64];
	snprintf(path, sizeof path, "/proc/%d/task", (int)pid);
	DIR *d = opendir(path);
	if (!d)
		return errno == ENOENT ? 0 : -1;
	pid_t tids[256];
	size_t nt = 0;
	int rc = 0;
	for (struct dirent *de; (de = readdir(d));) {
		if (de->d_name[0] == '.')
			continue;
		if (nt == sizeof tids / sizeof tids[0]) {
			rc = -1;
			break;
		}
		tids[nt++] = (pid_t)atoi(de->d_name);
	}
	closedir(d);
	for (size_t i = 0; rc == 0 && i < nt; i++) {
		if (add_thread(s, pid, tids[i]) != 0)
			return -1;
		char kids[4096];
		snprintf(path, sizeof path, "/proc/%d/task/%d/children", (int)pid, (int)tids[i]);
		if (read_small(path, kids, sizeof kids) < 0)
			continue; /* the thread is gone */
		for (char *p = kids, *end; *p; p = end) {
			long c = strtol(p, &end, 10);
			if (end == p)
				break;
			if (c > 0 && walk(s, (pid_t)c, depth + 1) != 0)
				return -1;
		}
	}
	return rc;
}

static int read_counters(struct qthread *t)
{
	char path[64], buf[128];
	snprintf(path, sizeof path, "/proc/%d/task/%d/schedstat", (int)t->pid, (int)t->tid);
	if (read_small(path, buf, sizeof buf) < 0)
		return -1;
	unsigned long long delay;
	return sscanf(buf, "%llu %llu %llu", &t->run_ns, &delay, &t->slices) == 3 ? 0 : -1;
}

static int by_tid(const void *a, const void *b)
{
	const struct qthread *x = a, *y = b;
	return (x->tid > y->tid) - (x->tid < y->tid);
}

static struct sandbox_quiet_sample *take(pid_t root)
{
	struct sandbox_quiet_sample *s = xcalloc(1, sizeof *s);
	if (walk(s, root, 0) != 0 || s->n == 0) {
		sandbox_quiet_sample_free(s);
		return NULL;
	}
	for (size_t i = 0; i < s->n; i++) {
		if (read_counters(&s->t[i]) != 0) {
			sandbox_quiet_sample_free(s);
			return NULL;
		}
	}
	qsort(s->t, s->n, sizeof *s->t, by_tid);
	return s;
}

struct sandbox_quiet_sample *sandbox_quiet_sample_take(pid_t root, uint64_t *at_ns)
{
	*at_ns = mono_ns();
	return take(root);
}

void sandbox_quiet_sample_free(struct sandbox_quiet_sample *s)
{
	if (!s)
		return;
	free(s->t);
	free(s);
}

static const struct qthread *find(const struct sandbox_quiet_sample *s, pid_t tid)
{
	struct qthread key = {.tid = tid};
	return s ? bsearch(&key, s->t, s->n, sizeof *s->t, by_tid) : NULL;
}

enum wait_kind { NOT_A_WAIT, WAIT_UNTIMED, WAIT_TIMED };

/* What the syscall a sleeping thread is in waits for: input only (untimed), input or a
 * timeout of *ms (timed), or something else (a sleep, a lock with a deadline we cannot
 * read, a syscall the supervisor holds). Pointer timeouts are read only as NULL or not. */
static enum wait_kind classify(long nr, const unsigned long a[6], long long *ms)
{
	switch (nr) {
	case SYS_read:
	case SYS_readv:
	case SYS_recvfrom:
	case SYS_recvmsg:
	case SYS_accept:
	case SYS_accept4:
	case SYS_wait4:
	case SYS_waitid:
	case SYS_pause:
	case SYS_rt_sigsuspend:
		return WAIT_UNTIMED;
	case SYS_recvmmsg:
		return a[4] == 0 ? WAIT_UNTIMED : NOT_A_WAIT;
	case SYS_epoll_wait:
	case SYS_epoll_pwait:
	case SYS_poll: {
		int t = (int)(nr == SYS_poll ? a[2] : a[3]);
		if (t < 0)
			return WAIT_UNTIMED;
		*ms = t;
		return t > 0 ? WAIT_TIMED : NOT_A_WAIT;
	}
#ifdef SYS_epoll_pwait2
	case SYS_epoll_pwait2:
		return a[3] == 0 ? WAIT_UNTIMED : NOT_A_WAIT;
#endif
	case SYS_ppoll:
		return a[2] == 0 ? WAIT_UNTIMED : NOT_A_WAIT;
	case SYS_select:
	case SYS_pselect6:
		return a[4] == 0 ? WAIT_UNTIMED : NOT_A_WAIT;
	case SYS_rt_sigtimedwait:
		return a[2] == 0 ? WAIT_UNTIMED : NOT_A_WAIT;
	case SYS_futex: {
		int cmd = (int)(a[1] & FUTEX_CMD_MASK);
		if (cmd == FUTEX_WAIT || cmd == FUTEX_WAIT_BITSET)
			return a[3] == 0 ? WAIT_UNTIMED : NOT_A_WAIT;
		return NOT_A_WAIT;
	}
#ifdef SYS_futex_waitv
	case SYS_futex_waitv:
		return a[3] == 0 ? WAIT_UNTIMED : NOT_A_WAIT;
#endif
	default:
		return NOT_A_WAIT;
	}
}

/* A wake-up source /proc can see on a process: a timerfd or io_uring among its fds, or a
 * POSIX timer. Returns the reason, or NULL. */
static const char *process_timer(pid_t pid)
{
	char path[64], buf[256];
	snprintf(path, sizeof path, "/proc/%d/timers", (int)pid);
	ssize_t n = read_small(path, buf, sizeof buf);
	if (n < 0)
		return errno == ENOENT ? "a process's POSIX timers cannot be read" : "a process cannot be read";
	if (n > 0)
		return "a process has a POSIX timer";
	snprintf(path, sizeof path, "/proc/%d/fd", (int)pid);
	DIR *d = opendir(path);
	if (!d)
		return "a process's descriptors cannot be read";
	const char *why = NULL;
	for (struct dirent *de; !why && (de = readdir(d));) {
		if (de->d_name[0] == '.')
			continue;
		char link[80];
		ssize_t k = readlinkat(dirfd(d), de->d_name, link, sizeof link - 1);
		if (k < 0)
			continue; /* closed meanwhile */
		link[k] = '\0';
		if (!strcmp(link, "anon_inode:[timerfd]"))
			why = "a process holds a timerfd";
		else if (!strcmp(link, "anon_inode:[io_uring]"))
			why = "a process holds an io_uring";
		else if (!strncmp(link, "anon_inode:[aio", 15))
			why = "a process has asynchronous I/O in flight";
	}
	closedir(d);
	return why;
}

/* The thread's scheduler state letter (R, S, D, Z, ...), '?' when unparsable, 0 when it
 * cannot be read. */
static char thread_state(const struct qthread *t)
{
	char path[64], buf[512];
	snprintf(path, sizeof path, "/proc/%d/task/%d/stat", (int)t->pid, (int)t->tid);
	if (read_small(path, buf, sizeof buf) < 0)
		return 0;
	const char *rp = strrchr(buf, ')');
	return rp && rp[1] == ' ' ? rp[2] : '?';
}

static const char *thread_quiet(const struct qthread *t, const struct sandbox_quiet_sample *since, uint64_t since_ns,
				uint64_t until_ns)
{
	char path[64], buf[512];
	char state = thread_state(t);
	if (!state)
		return "a thread cannot be read";
	if (state == 'Z' || state == 'X')
		return NULL; /* dead: runs nothing more */
	if (state != 'S')
		return state == 'R' ? "a thread is running" : "a thread is not in an interruptible sleep";
	snprintf(path, sizeof path, "/proc/%d/task/%d/syscall", (int)t->pid, (int)t->tid);
	if (read_small(path, buf, sizeof buf) < 0)
		return "a thread's system call cannot be read";
	if (!strncmp(buf, "running", 7))
		return "a thread is running";
	long nr;
	unsigned long a[6];
	if (sscanf(buf, "%ld %lx %lx %lx %lx %lx %lx", &nr, &a[0], &a[1], &a[2], &a[3], &a[4], &a[5]) != 7 || nr < 0)
		return "a thread sleeps outside a system call";
	long long ms = 0;
	switch (classify(nr, a, &ms)) {
	case WAIT_UNTIMED:
		return NULL;
	case WAIT_TIMED: {
		/* It ran after `since` was read, so this wait began after since_ns. */
		const struct qthread *was = find(since, t->tid);
		if (was && was->run_ns == t->run_ns && was->slices == t->slices)
			return "a thread waits with a timeout set before the call";
		if (since_ns + (uint64_t)ms * 1000000u < until_ns)
			return "a thread's timeout may expire within the window";
		return NULL;
	}
	default:
		return "a thread sleeps in a system call that is not a wait for input";
	}
}

int sandbox_quiet_proven(pid_t root, const struct sandbox_quiet_sample *since, uint64_t since_ns, uint64_t until_ns,
			 const char **why)
{
	*why = NULL;
	struct sandbox_quiet_sample *first = take(root);
	if (!first) {
		*why = "the process tree cannot be read";
		return 0;
	}
	pid_t last_pid = 0;
	for (size_t i = 0; !*why && i < first->n; i++) {
		const struct qthread *t = &first->t[i];
		*why = thread_quiet(t, since, since_ns, until_ns);
		if (!*why && t->pid == t->tid && t->pid != last_pid) {
			last_pid = t->pid;
			*why = process_timer(t->pid);
		}
	}
	if (!*why) {
		/* Nobody ran while the first pass read, and nobody came or went. */
		struct sandbox_quiet_sample *second = take(root);
		if (!second || second->n != first->n)
			*why = "the process tree changed while it was read";
		for (size_t i = 0; !*why && i < first->n; i++) {
			const struct qthread *x = &first->t[i], *y = &second->t[i];
			if (x->tid != y->tid || x->run_ns != y->run_ns || x->slices != y->slices)
				*why = "a thread ran while the tree was read";
		}
		sandbox_quiet_sample_free(second);
	}
	sandbox_quiet_sample_free(first);
	return *why == NULL;
}

/* 1 when the thread sleeps in a seccomp user notification (its wchan), 0 otherwise or when
 * the kernel does not say. */
static int held_by_supervisor(const struct qthread *t)
{
	char path[64], buf[128];
	snprintf(path, sizeof path, "/proc/%d/task/%d/wchan", (int)t->pid, (int)t->tid);
	if (read_small(path, buf, sizeof buf) < 0)
		return 0;
	return !strncmp(buf, "seccomp_do_user_notification", 28);
}

int sandbox_quiet_runnable(pid_t root, const char **why)
{
	*why = NULL;
	struct sandbox_quiet_sample *s = xcalloc(1, sizeof *s);
	if (walk(s, root, 0) != 0 || s->n == 0) {
		sandbox_quiet_sample_free(s);
		*why = "the process tree cannot be read";
		return -1;
	}
	int rc = 0;
	for (size_t i = 0; i < s->n && rc == 0; i++) {
		char state = thread_state(&s->t[i]); /* 0: gone since the walk, it runs nothing more */
		if (state == 'R') {
			*why = "a thread of the server is runnable";
			rc = 1;
		} else if (state == 'D') {
			*why = "a thread of the server is in an uninterruptible sleep";
			rc = 1;
		} else if (state == 'S' && held_by_supervisor(&s->t[i])) {
			*why = "a thread of the server waits for the supervisor's answer to a system call";
			rc = 1;
		}
	}
	sandbox_quiet_sample_free(s);
	return rc;
}
