/* bench_console.c - the live console under load, against `belay proxy` in the same run.
 * Prints figures and whether each goal was met; it is not a test (nothing here asserts).
 *
 *   bench_console [--seconds 60] [--rate 1000] [--turns 100000] [--keys 200]
 *                 [--paired-seconds 30] [--belay PATH] [--plain-proxy] [--keep] [--slice-us US]
 *                 [--search-mb 10] [--search-only]
 *
 * The agent is this program: newline-delimited JSON-RPC over pipes (initialize,
 * notifications/initialized, tools/list, then tools/call "echo"), one call at a time, to
 *   A  belay proxy --mode audit --state S1 --trace-dir T1 -- bench_echo_server
 *   B  belay connect SOCK, into `belay console --state S2 --socket SOCK -- bench_echo_server`
 *      running in a pseudo-terminal (120x40, TERM=xterm-256color, LANG=C.UTF-8) whose
 *      output is read and thrown away as fast as it comes, so the console really renders
 *      and never waits on the terminal.
 * and, as the baseline of phase 1, the same calls straight to bench_echo_server (what this
 * machine's scheduling does to the pacing and the tail with nothing in between).
 * The console gates every call in audit mode (its default), so A runs the proxy with
 * --mode audit too; --plain-proxy adds a run of the proxy without a gate (its default).
 * Nothing is contained (no --scope): the figures are the proxy path, trace, gate and store,
 * not snapshots.
 *
 * Phase 0: in this process, the console's UI code on a 120x40 canvas: a turn whose response
 *          is about --search-mb MiB (0: skip) of items, once in structuredContent and once as
 *          one JSON string in content[0].text (then shown parsed, p); the time of each key of a
 *          typed search, its Enter (folded JSON holding a match opened), a search with many
 *          matches, n/N and j, each with its redraw. --search-only stops after it.
 * Phase 1: one second of warm-up, then --rate calls per second for --seconds seconds, paced
 *          on an absolute schedule (a call that is due is sent as soon as the previous one
 *          is answered); each call's round trip is measured (median, p99, max, and the median
 *          of each sixth of the run: a call that costs more as the run grows shows there).
 *          Direct, A and B in turn, same pacing; for B also the console's UI thread's CPU time.
 * Phase 2: B only: unpaced (8 in flight) until the run has --turns turns; then waits for the
 *          store to hold them all and the screen to go quiet.
 * Phase 3: B only, the run still open: keys written to the console's terminal, each after
 *          the screen has been quiet for 40 ms (the stream has stopped: a redraw for new turns
 *          could not be told from the key's); the time from the write to the first byte of
 *          screen output after it (the redraw) is the key's response time, next to the UI
 *          thread's CPU time and run-queue wait over the same span (schedstat). The cycle moves
 *          the focus (g j j k <pgdn> <pgdn> G k), opens a turn and goes back (Enter q),
 *          types the filter /tool:x and leaves it with Esc; every key changes the screen.
 *          (Between cycles, unmeasured: / Ctrl-U Enter clears the filter, G goes to the end.)
 * Phase 4: the first run ended, a new run through the console (it still shows the first) and
 *          a new proxy, both from zero turns, get one call each per slot at --rate for
 *          --paired-seconds (0: skip), the order alternating: both see the same moments of
 *          the machine, which the one-after-the-other comparison of phase 1 cannot promise
 *          on a shared machine.
 * Memory: VmHWM (peak RSS) of the console at the end of each phase and of the proxy.
 * Each timed run prints the share of the CPU the host took meanwhile (steal, /proc/stat):
 * on a shared host it sets the tail and the late calls, and such a run is not a quiet
 * machine's. --slice-us US is passed to both belay proxy and belay console (0: the kernel's
 * own slice for their forwarding threads, the A/B of proxy/loop_slice.h).
 *
 * Scratch files live in /dev/shm/belay-bench-console-XXXXXX (removed unless --keep). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <sqlite3.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "bench_util.h"
#include "common/buf.h"
#include "common/fsutil.h"
#include "common/xalloc.h"
#include "common/xalloc_cjson.h"
#include "tui/cmodel.h"
#include "tui/detail.h"
#include "tui/keymap.h"
#include "tui/ui.h"
#include "tui/ui_internal.h"

#define GOAL_RATIO 1.10 /* connect / proxy latency */
#define GOAL_KEY_MS 16.0
#define QUIET_MS 40      /* the screen is idle after this long without output */
#define REDRAW_WAIT_MS 2000
#define IO_TIMEOUT_MS 30000

static char scratch[PATH_MAX];
static int keep_scratch;
static const char *slice_arg; /* --slice-us for belay proxy and belay console (NULL: their default) */
static pid_t kids[8];
static int nkids;

static double now_us(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e6 + (double)t.tv_nsec / 1e3;
}

static int rm_one(const char *p, const struct stat *sb, int flag, struct FTW *f)
{
	(void)sb;
	(void)flag;
	(void)f;
	remove(p);
	return 0;
}

static void cleanup(void)
{
	for (int i = 0; i < nkids; i++)
		if (kids[i] > 0) {
			kill(kids[i], SIGKILL);
			waitpid(kids[i], NULL, 0);
			kids[i] = 0;
		}
	if (scratch[0] && !keep_scratch)
		nftw(scratch, rm_one, 16, FTW_DEPTH | FTW_PHYS);
	scratch[0] = '\0';
}

/* /proc/loadavg's three averages: other work on the machine skews every figure here. */
static void print_load(const char *when)
{
	char buf[128] = "?";
	FILE *f = fopen("/proc/loadavg", "r");
	if (f) {
		if (!fgets(buf, sizeof buf, f))
			snprintf(buf, sizeof buf, "?");
		fclose(f);
	}
	buf[strcspn(buf, "\n")] = '\0';
	printf("  load average %s: %.*s\n", when, (int)strcspn(buf, "/") - 2, buf);
	fflush(stdout);
}

static void die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
static void die(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fprintf(stderr, "bench_console: ");
	vfprintf(stderr, fmt, ap);
	fprintf(stderr, "\n");
	va_end(ap);
	if (scratch[0])
		fprintf(stderr, "bench_console: children's stderr is in %s/*.stderr (kept)\n", scratch), keep_scratch = 1;
	cleanup();
	exit(1);
}

/* snprintf into a path buffer; a path that does not fit is fatal. */
static void fmt_path(char *out, size_t n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void fmt_path(char *out, size_t n, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int m = vsnprintf(out, n, fmt, ap);
	va_end(ap);
	if (m < 0 || (size_t)m >= n)
		die("path too long: %s...", out);
}

static void track(pid_t p)
{
	if (nkids < (int)(sizeof kids / sizeof kids[0]))
		kids[nkids++] = p;
}

static void untrack(pid_t p)
{
	for (int i = 0; i < nkids; i++)
		if (kids[i] == p)
			kids[i] = 0;
}

/* Waits for pid up to ms, then SIGKILLs it; returns its wait status. */
static int reap(pid_t pid, int ms)
{
	int st = 0;
	for (int waited = 0; waited < ms; waited += 10) {
		if (waitpid(pid, &st, WNOHANG) == pid) {
			untrack(pid);
			return st;
		}
		usleep(10000);
	}
	kill(pid, SIGKILL);
	waitpid(pid, &st, 0);
	untrack(pid);
	return st;
}

/*==== /proc ====*/

static long proc_kb(pid_t pid, const char *field)
{
	char path[64], line[256];
	snprintf(path, sizeof path, "/proc/%d/status", (int)pid);
	FILE *f = fopen(path, "r");
	long v = -1;
	size_t n = strlen(field);
	while (f && fgets(line, sizeof line, f))
		if (!strncmp(line, field, n) && line[n] == ':')
			v = atol(line + n + 1);
	if (f)
		fclose(f);
	return v;
}

/* utime + stime of every thread of pid, in seconds. */
static double proc_cpu(pid_t pid)
{
	char path[64], buf[1024];
	snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
	FILE *f = fopen(path, "r");
	if (!f)
		return -1;
	size_t n = fread(buf, 1, sizeof buf - 1, f);
	fclose(f);
	buf[n] = '\0';
	char *p = strrchr(buf, ')');
	unsigned long long ut = 0, stt = 0;
	if (!p || sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu", &ut, &stt) != 2)
		return -1;
	return (double)(ut + stt) / (double)sysconf(_SC_CLK_TCK);
}

/* This program's own CPU time (the agent, and the terminal reader thread), in seconds. */
static double self_cpu(void)
{
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	return (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 + (double)ru.ru_stime.tv_sec +
	       (double)ru.ru_stime.tv_usec / 1e6;
}

/* The main thread's (the console's UI thread's) time on a CPU and time waiting for one, in
 * ms, from /proc/PID/task/PID/schedstat. */
static int proc_sched(pid_t pid, double *run_ms, double *wait_ms)
{
	char path[64];
	snprintf(path, sizeof path, "/proc/%d/task/%d/schedstat", (int)pid, (int)pid);
	FILE *f = fopen(path, "r");
	unsigned long long run = 0, wait = 0;
	int ok = f && fscanf(f, "%llu %llu", &run, &wait) == 2;
	if (f)
		fclose(f);
	*run_ms = (double)run / 1e6;
	*wait_ms = (double)wait / 1e6;
	return ok ? 0 : -1;
}

/*==== the agent's end of a child over pipes ====*/

struct agent {
	pid_t pid;
	int in, out;
	char buf[1 << 16];
	size_t have;
	long next_id;
};

static void agent_start(struct agent *a, char **argv, const char *err_name)
{
	int pi[2], po[2];
	if (pipe2(pi, O_CLOEXEC) || pipe2(po, O_CLOEXEC))
		die("pipe: %s", strerror(errno));
	char errpath[PATH_MAX];
	fmt_path(errpath, sizeof errpath, "%s/%s.stderr", scratch, err_name);
	a->pid = fork();
	if (a->pid < 0)
		die("fork: %s", strerror(errno));
	if (a->pid == 0) {
		dup2(pi[0], 0);
		dup2(po[1], 1);
		int fd = open(errpath, O_WRONLY | O_CREAT | O_TRUNC, 0600);
		if (fd >= 0)
			dup2(fd, 2);
		execv(argv[0], argv);
		_exit(127);
	}
	track(a->pid);
	close(pi[0]);
	close(po[1]);
	a->in = pi[1];
	a->out = po[0];
	a->have = 0;
	a->next_id = 1;
}

static void write_all(int fd, const char *p, size_t n)
{
	int rc = fs_write_all(fd, p, n);
	if (rc)
		die("write to a child: %s", strerror(-rc));
}

/* The id of the next reply line (-1 for a line without a numeric id). Dies on EOF/timeout. */
static long read_reply(struct agent *a)
{
	for (;;) {
		char *nl = memchr(a->buf, '\n', a->have);
		if (nl) {
			*nl = '\0';
			long id = -1;
			char *p = strstr(a->buf, "\"id\":");
			if (p)
				id = strtol(p + 5, NULL, 10);
			size_t len = (size_t)(nl - a->buf) + 1;
			memmove(a->buf, a->buf + len, a->have - len);
			a->have -= len;
			return id;
		}
		if (a->have == sizeof a->buf)
			die("a reply line longer than %zu bytes", sizeof a->buf);
		struct pollfd p = {.fd = a->out, .events = POLLIN};
		int r = poll(&p, 1, IO_TIMEOUT_MS);
		if (r == 0)
			die("no reply within %d s", IO_TIMEOUT_MS / 1000);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			die("poll: %s", strerror(errno));
		}
		ssize_t n = read(a->out, a->buf + a->have, sizeof a->buf - a->have);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			die("the child closed its output (see its stderr)");
		a->have += (size_t)n;
	}
}

static void send_call(struct agent *a, long id)
{
	char req[256];
	int m = snprintf(req, sizeof req,
			 "{\"jsonrpc\":\"2.0\",\"id\":%ld,\"method\":\"tools/call\",\"params\":{\"name\":\"echo\","
			 "\"arguments\":{\"text\":\"turn %ld\"}}}\n",
			 id, id);
	write_all(a->in, req, (size_t)m);
}

static void request(struct agent *a, const char *method, const char *params)
{
	char req[512];
	long id = a->next_id++;
	int m = snprintf(req, sizeof req, "{\"jsonrpc\":\"2.0\",\"id\":%ld,\"method\":\"%s\",\"params\":%s}\n", id, method,
			 params);
	write_all(a->in, req, (size_t)m);
	while (read_reply(a) != id)
		;
}

static void mcp_handshake(struct agent *a)
{
	request(a, "initialize",
		"{\"protocolVersion\":\"2025-06-18\",\"capabilities\":{},"
		"\"clientInfo\":{\"name\":\"bench_console\",\"version\":\"1\"}}");
	static const char note[] = "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n";
	write_all(a->in, note, sizeof note - 1);
	request(a, "tools/list", "{}");
}

/* One call, answered; its round trip in microseconds. */
static double one_call(struct agent *a)
{
	long id = a->next_id++;
	double t0 = now_us();
	send_call(a, id);
	while (read_reply(a) != id)
		;
	return now_us() - t0;
}

/*==== phase 1: paced calls ====*/

struct lat {
	double *us;
	size_t n;
	double seconds;   /* wall time of the measured calls */
	size_t late;      /* calls sent more than one period after they were due */
	double max_behind_ms;
};

static void ts_add_ns(struct timespec *t, long long ns)
{
	long long v = (long long)t->tv_nsec + ns;
	t->tv_sec += (time_t)(v / 1000000000LL);
	t->tv_nsec = (long)(v % 1000000000LL);
}

static void lat_init(struct lat *L, size_t n)
{
	L->us = malloc(n * sizeof *L->us);
	L->n = n;
	L->late = 0;
	L->max_behind_ms = 0;
}

/* `rate` calls per second to a for `seconds` seconds on an absolute schedule; with b, each
 * slot also sends one call to b, the order alternating slot by slot (a paired comparison:
 * both see the same moment of the machine). L and Lb (measure) get the round trips. */
static void paced2(struct agent *a, struct agent *b, int seconds, int rate, struct lat *L, struct lat *Lb,
		   int measure)
{
	size_t n = (size_t)seconds * (size_t)rate;
	long long period = 1000000000LL / rate;
	if (measure) {
		lat_init(L, n);
		if (b)
			lat_init(Lb, n);
	}
	struct timespec start;
	clock_gettime(CLOCK_MONOTONIC, &start);
	double t_start = now_us();
	for (size_t i = 0; i < n; i++) {
		struct timespec due = start;
		ts_add_ns(&due, (long long)i * period);
		while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &due, NULL) == EINTR)
			;
		double behind = now_us() - ((double)due.tv_sec * 1e6 + (double)due.tv_nsec / 1e3);
		double us, usb = 0;
		if (b && i % 2) {
			usb = one_call(b);
			us = one_call(a);
		} else {
			us = one_call(a);
			if (b)
				usb = one_call(b);
		}
		if (measure) {
			L->us[i] = us;
			if (b)
				Lb->us[i] = usb;
			if (behind > (double)period / 1e3)
				L->late++;
			if (behind / 1e3 > L->max_behind_ms)
				L->max_behind_ms = behind / 1e3;
		}
	}
	if (measure) {
		L->seconds = (now_us() - t_start) / 1e6;
		if (b) {
			Lb->seconds = L->seconds;
			Lb->late = L->late;
			Lb->max_behind_ms = L->max_behind_ms;
		}
	}
}

static void paced(struct agent *a, int seconds, int rate, struct lat *L, int measure)
{
	paced2(a, NULL, seconds, rate, L, NULL, measure);
}

/*==== statistics ====*/

static int cmp_d(const void *x, const void *y)
{
	double a = *(const double *)x, b = *(const double *)y;
	return a < b ? -1 : a > b;
}

struct stats {
	double med, p99, p999, max, mean;
	size_t n;
};

static struct stats summarize(const double *v, size_t n)
{
	struct stats s = {0};
	if (!n)
		return s;
	double *c = malloc(n * sizeof *c), sum = 0;
	memcpy(c, v, n * sizeof *c);
	qsort(c, n, sizeof *c, cmp_d);
	for (size_t i = 0; i < n; i++)
		sum += c[i];
	s.n = n;
	s.med = n % 2 ? c[n / 2] : (c[n / 2 - 1] + c[n / 2]) / 2;
	s.p99 = c[(size_t)((double)(n - 1) * 0.99)];
	s.p999 = c[(size_t)((double)(n - 1) * 0.999)];
	s.max = c[n - 1];
	s.mean = sum / (double)n;
	free(c);
	return s;
}

/*==== the console's terminal ====*/

struct pty {
	int fd;
	pid_t pid;
	pthread_t th;
	int reading;
	atomic_int stop;
	atomic_ullong bytes;
	_Atomic double last_us; /* when output last arrived */
};

static void *pty_reader(void *arg)
{
	struct pty *t = arg;
	char buf[1 << 16];
	while (!atomic_load(&t->stop)) {
		struct pollfd p = {.fd = t->fd, .events = POLLIN};
		if (poll(&p, 1, 50) <= 0)
			continue;
		ssize_t n = read(t->fd, buf, sizeof buf);
		if (n < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (n <= 0)
			break; /* EIO: the console closed its terminal */
		atomic_fetch_add(&t->bytes, (unsigned long long)n);
		atomic_store(&t->last_us, now_us());
	}
	return NULL;
}

static void pty_read_start(struct pty *t)
{
	atomic_store(&t->stop, 0);
	if (pthread_create(&t->th, NULL, pty_reader, t) != 0)
		die("cannot start the terminal reader thread");
	t->reading = 1;
}

static void pty_read_stop(struct pty *t)
{
	if (!t->reading)
		return;
	atomic_store(&t->stop, 1);
	pthread_join(t->th, NULL);
	t->reading = 0;
}

/* Waits (the reader thread running) until no output came for quiet_ms; returns when it was
 * quiet, or -1 after timeout_ms. */
static double pty_wait_quiet(struct pty *t, int quiet_ms, int timeout_ms)
{
	double t0 = now_us();
	for (;;) {
		double now = now_us(), last = atomic_load(&t->last_us);
		if (now - last >= quiet_ms * 1e3)
			return last;
		if (now - t0 > timeout_ms * 1e3)
			return -1;
		usleep(5000);
	}
}

static void console_start(struct pty *t, char **argv)
{
	int m = posix_openpt(O_RDWR | O_NOCTTY);
	if (m < 0 || grantpt(m) || unlockpt(m))
		die("cannot open a pseudo-terminal: %s", strerror(errno));
	fcntl(m, F_SETFD, FD_CLOEXEC);
	char *sn = ptsname(m);
	if (!sn)
		die("ptsname: %s", strerror(errno));
	char slave[PATH_MAX];
	snprintf(slave, sizeof slave, "%s", sn);
	struct winsize ws = {.ws_row = 40, .ws_col = 120};
	if (ioctl(m, TIOCSWINSZ, &ws) != 0)
		die("TIOCSWINSZ: %s", strerror(errno));
	char cfg[PATH_MAX];
	fmt_path(cfg, sizeof cfg, "%s/config", scratch);
	pid_t pid = fork();
	if (pid < 0)
		die("fork: %s", strerror(errno));
	if (pid == 0) {
		setsid();
		int s = open(slave, O_RDWR);
		if (s < 0)
			_exit(126);
		ioctl(s, TIOCSCTTY, 0);
		dup2(s, 0);
		dup2(s, 1);
		dup2(s, 2);
		if (s > 2)
			close(s);
		setenv("TERM", "xterm-256color", 1);
		setenv("LANG", "C.UTF-8", 1);
		setenv("LC_ALL", "C.UTF-8", 1);
		setenv("XDG_CONFIG_HOME", cfg, 1); /* no user keymap or theme */
		unsetenv("NO_COLOR");
		unsetenv("LINES");
		unsetenv("COLUMNS");
		execv(argv[0], argv);
		_exit(127);
	}
	track(pid);
	t->fd = m;
	t->pid = pid;
	atomic_store(&t->bytes, 0);
	atomic_store(&t->last_us, now_us());
}

/*==== the store ====*/

static long long store_turns(const char *state)
{
	char db[PATH_MAX];
	fmt_path(db, sizeof db, "file:%s/belay.db?mode=ro", state);
	sqlite3 *h = NULL;
	long long n = -1;
	if (sqlite3_open_v2(db, &h, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, NULL) == SQLITE_OK) {
		sqlite3_busy_timeout(h, 2000);
		sqlite3_stmt *q = NULL;
		if (sqlite3_prepare_v2(h, "SELECT count(*) FROM turns", -1, &q, NULL) == SQLITE_OK &&
		    sqlite3_step(q) == SQLITE_ROW)
			n = sqlite3_column_int64(q, 0);
		sqlite3_finalize(q);
	}
	sqlite3_close(h);
	return n;
}

/*==== phase 3: keys ====*/

struct key {
	const char *name, *bytes;
};

static const struct key cycle[] = {
	{"g", "g"},	{"j", "j"},	 {"j", "j"}, {"k", "k"},     {"<pgdn>", "\033[6~"}, {"<pgdn>", "\033[6~"},
	{"G", "G"},	{"k", "k"},	 {"Enter", "\r"}, {"q", "q"}, {"/", "/"},	     {"t", "t"},
	{"o", "o"},	{"o", "o"},	 {"l", "l"}, {":", ":"},     {"x", "x"},	     {"Esc", "\033"},
};
#define CYCLE_LEN (sizeof cycle / sizeof cycle[0])

/* Not measured: after each cycle the filter is cleared whatever Esc left behind (/, Ctrl-U,
 * Enter) and the focus goes back to the last turn (G; a filter that matched nothing left it
 * on the first), so the next cycle starts where the first one did. */
static const char *const reset_keys[] = {"/", "\025", "\r", "G"};

/* Reads and discards the terminal's output until none came for quiet_ms. */
static void drain_quiet(int fd, int quiet_ms)
{
	char buf[1 << 16];
	for (;;) {
		struct pollfd p = {.fd = fd, .events = POLLIN};
		int r = poll(&p, 1, quiet_ms);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return;
		if (read(fd, buf, sizeof buf) <= 0)
			return;
	}
}

/* Writes a key whose redraw is not measured, then lets the screen settle. */
static void tap(int fd, const char *bytes)
{
	drain_quiet(fd, QUIET_MS);
	write_all(fd, bytes, strlen(bytes));
	drain_quiet(fd, 2 * QUIET_MS);
}

/* The time from writing the key to the first output after it (-1: none within the wait), and
 * to the last output of the burst that followed (*all_ms); the UI thread's CPU time and
 * run-queue wait over the same span (*cpu_ms, *wait_ms: a slow key that mostly waited for
 * a CPU was slowed by other work on the machine, not by the console). */
static double press(int fd, pid_t ui, const char *bytes, double *all_ms, double *cpu_ms, double *wait_ms)
{
	drain_quiet(fd, QUIET_MS);
	char buf[1 << 16];
	double r0, w0, r1, w1;
	proc_sched(ui, &r0, &w0);
	double t0 = now_us();
	write_all(fd, bytes, strlen(bytes));
	struct pollfd p = {.fd = fd, .events = POLLIN};
	int r;
	while ((r = poll(&p, 1, REDRAW_WAIT_MS)) < 0 && errno == EINTR)
		;
	if (r <= 0) {
		*all_ms = -1;
		return -1;
	}
	double first = now_us(), last = first;
	if (read(fd, buf, sizeof buf) <= 0)
		die("the console closed its terminal");
	for (;;) {
		while ((r = poll(&p, 1, QUIET_MS)) < 0 && errno == EINTR)
			;
		if (r <= 0)
			break;
		if (read(fd, buf, sizeof buf) <= 0)
			break;
		last = now_us();
	}
	*all_ms = (last - t0) / 1e3;
	proc_sched(ui, &r1, &w1);
	*cpu_ms = r1 - r0;
	*wait_ms = w1 - w0;
	return (first - t0) / 1e3;
}

struct keyres {
	double *first, *all, *cpu, *wait;
	int *kind; /* index into cycle */
	size_t n, missing;
};

static void keys_run(struct pty *t, int presses, struct keyres *K)
{
	/* Whole cycles: at least `presses` keys. */
	int cycles = (presses + (int)CYCLE_LEN - 1) / (int)CYCLE_LEN;
	size_t cap = (size_t)cycles * CYCLE_LEN;
	K->first = calloc(cap, sizeof *K->first);
	K->all = calloc(cap, sizeof *K->all);
	K->kind = calloc(cap, sizeof *K->kind);
	K->cpu = calloc(cap, sizeof *K->cpu);
	K->wait = calloc(cap, sizeof *K->wait);
	K->n = 0;
	K->missing = 0;
	for (int c = 0; c < cycles; c++) {
		for (size_t i = 0; i < CYCLE_LEN; i++) {
			double all, cpu, wait;
			double ms = press(t->fd, t->pid, cycle[i].bytes, &all, &cpu, &wait);
			if (ms < 0) {
				K->missing++;
				fprintf(stderr, "bench_console: no redraw after key %s (cycle %d)\n", cycle[i].name, c);
				continue;
			}
			K->first[K->n] = ms;
			K->all[K->n] = all;
			K->cpu[K->n] = cpu;
			K->wait[K->n] = wait;
			K->kind[K->n] = (int)i;
			K->n++;
		}
		for (size_t i = 0; i < sizeof reset_keys / sizeof reset_keys[0]; i++)
			tap(t->fd, reset_keys[i]);
	}
}

/*==== runs ====*/

struct run_result {
	const char *label;
	struct lat lat;
	struct stats st;
	double cpu_s;          /* the belay process's CPU over phase 1 */
	double bench_cpu_s;    /* this program's CPU over phase 1 */
	long hwm_kb, rss_kb;   /* of the belay process at the end of phase 1 */
	double steal_pct;      /* the share of the CPU the host took meanwhile (-1: unknown) */
};

static struct stats summarize(const double *v, size_t n);

/* Medians of consecutive slices of the run: does a call cost more as the run grows? */
static void print_slices(const struct lat *L)
{
	int k = 6;
	size_t per = L->n / (size_t)k;
	if (per < 100)
		return;
	printf("    median by sixth of the run:");
	for (int i = 0; i < k; i++)
		printf(" %.1f", summarize(L->us + (size_t)i * per, per).med);
	printf(" us\n");
}

static void print_lat(const struct run_result *r)
{
	printf("  %-22s %6zu calls in %5.1f s (%4.0f/s, %zu late, worst %5.1f ms behind)  median %6.1f  p99 %7.1f  "
	       "p99.9 %7.1f  max %8.1f us\n    CPU: belay %.1f s, this bench %.1f s; belay peak RSS %.1f MiB; host steal "
	       "%.1f%%\n",
	       r->label, r->lat.n, r->lat.seconds, (double)r->lat.n / r->lat.seconds, r->lat.late, r->lat.max_behind_ms,
	       r->st.med, r->st.p99, r->st.p999, r->st.max, r->cpu_s, r->bench_cpu_s, (double)r->hwm_kb / 1024,
	       r->steal_pct);
	print_slices(&r->lat);
	fflush(stdout);
}

/* belay proxy [--mode audit] with its own state directory scratch/STATE, initialized. */
static struct agent *proxy_start(const char *belay, const char *echo, const char *state, int gate)
{
	char s1[PATH_MAX], t1[PATH_MAX];
	fmt_path(s1, sizeof s1, "%s/%s", scratch, state);
	fmt_path(t1, sizeof t1, "%s/traces", s1);
	char *argv[16] = {(char *)belay, "proxy", "--state", s1, "--trace-dir", t1};
	int n = 6;
	if (gate) {
		argv[n++] = "--mode";
		argv[n++] = "audit";
	}
	if (slice_arg) {
		argv[n++] = "--slice-us";
		argv[n++] = (char *)slice_arg;
	}
	argv[n++] = "--";
	argv[n++] = (char *)echo;
	argv[n] = NULL;
	struct agent *a = calloc(1, sizeof *a);
	agent_start(a, argv, state);
	mcp_handshake(a);
	return a;
}

/* Closes the agent's end: the run ends and the child exits. */
static void agent_finish(struct agent *a, const char *what)
{
	close(a->in);
	char tmp[4096];
	while (read(a->out, tmp, sizeof tmp) > 0)
		;
	close(a->out);
	int st = reap(a->pid, 30000);
	if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
		fprintf(stderr, "bench_console: %s ended with status 0x%x\n", what, st);
	free(a);
}

/* Phase 1 for one agent: a second of warm-up, then the paced calls; the agent is finished. */
static void run_paced(struct agent *a, int seconds, int rate, const char *what, struct run_result *R)
{
	paced(a, 1, rate, NULL, 0); /* warm-up */
	double c0 = proc_cpu(a->pid);
	double s0 = self_cpu();
	struct bench_cpu k0 = bench_cpu_now();
	paced(a, seconds, rate, &R->lat, 1);
	R->steal_pct = bench_steal_pct(k0, bench_cpu_now());
	R->cpu_s = proc_cpu(a->pid) - c0;
	R->bench_cpu_s = self_cpu() - s0;
	R->hwm_kb = proc_kb(a->pid, "VmHWM");
	R->rss_kb = proc_kb(a->pid, "VmRSS");
	R->st = summarize(R->lat.us, R->lat.n);
	agent_finish(a, what);
	print_lat(R);
}

static void run_proxy(const char *belay, const char *echo, int seconds, int rate, int gate, struct run_result *R)
{
	run_paced(proxy_start(belay, echo, gate ? "S1" : "S0", gate), seconds, rate, "belay proxy", R);
}

/* The baseline: the same calls to the echo server with nothing in between (what this
 * machine's scheduling does to the pacing and the tail by itself; "CPU: belay" is the
 * server's). */
static void run_direct(const char *echo, int seconds, int rate, struct run_result *R)
{
	char *argv[] = {(char *)echo, NULL};
	struct agent *a = calloc(1, sizeof *a);
	agent_start(a, argv, "direct");
	mcp_handshake(a);
	run_paced(a, seconds, rate, "bench_echo_server", R);
}

struct console_result {
	struct run_result p1;
	long hwm_kb[3], rss_kb[3];
	long long turns;
	double p2_seconds, p2_rate, store_lag_s, screen_lag_s;
	double ui_cpu_p1_ms, ui_wait_p1_ms; /* the UI thread over phase 1 (schedstat) */
	unsigned long long screen_bytes_p1;
	struct keyres keys;
	struct run_result pair_p, pair_c; /* phase 4 */
};

static void run_console(const char *belay, const char *echo, int seconds, int rate, long long turns, int presses,
			int paired_s, struct console_result *C)
{
	char s2[PATH_MAX], sock[PATH_MAX];
	fmt_path(s2, sizeof s2, "%s/S2", scratch);
	fmt_path(sock, sizeof sock, "%s/console.sock", scratch);
	char *cargv[] = {(char *)belay, "console", "--state", s2, "--socket", sock, "--", (char *)echo, NULL, NULL, NULL};
	if (slice_arg) {
		cargv[6] = "--slice-us";
		cargv[7] = (char *)slice_arg;
		cargv[8] = "--";
		cargv[9] = (char *)echo;
	}
	struct pty t = {0};
	console_start(&t, cargv);
	pty_read_start(&t);
	char *aargv[] = {(char *)belay, "connect", "--wait", "10", sock, NULL};
	struct agent *a = calloc(1, sizeof *a);
	agent_start(a, aargv, "connect");
	mcp_handshake(a);

	/* Phase 1. */
	paced(a, 1, rate, NULL, 0);
	double c0 = proc_cpu(t.pid);
	unsigned long long b0 = atomic_load(&t.bytes);
	C->p1.label = "belay connect+console";
	double s0 = self_cpu(), ur0, uw0, ur1, uw1;
	proc_sched(t.pid, &ur0, &uw0);
	struct bench_cpu k0 = bench_cpu_now();
	paced(a, seconds, rate, &C->p1.lat, 1);
	C->p1.steal_pct = bench_steal_pct(k0, bench_cpu_now());
	proc_sched(t.pid, &ur1, &uw1);
	C->ui_cpu_p1_ms = ur1 - ur0;
	C->ui_wait_p1_ms = uw1 - uw0;
	C->p1.cpu_s = proc_cpu(t.pid) - c0;
	C->p1.bench_cpu_s = self_cpu() - s0;
	C->screen_bytes_p1 = atomic_load(&t.bytes) - b0;
	C->p1.hwm_kb = C->hwm_kb[0] = proc_kb(t.pid, "VmHWM");
	C->p1.rss_kb = C->rss_kb[0] = proc_kb(t.pid, "VmRSS");
	C->p1.st = summarize(C->p1.lat.us, C->p1.lat.n);
	print_lat(&C->p1);
	printf("    of which the UI thread (refreshes from the store, redraws) %.2f s on a CPU, %.2f s waiting for one\n",
	       C->ui_cpu_p1_ms / 1e3, C->ui_wait_p1_ms / 1e3);

	/* Phase 2: unpaced, 8 in flight, until the run has `turns` turns. */
	long long have = (long long)(seconds + 1) * rate;
	long long todo = turns > have ? turns - have : 0;
	double t0 = now_us();
	long long sent = 0, got = 0;
	while (got < todo) {
		while (sent < todo && sent - got < 8) {
			send_call(a, a->next_id++);
			sent++;
		}
		if (read_reply(a) >= 0)
			got++;
	}
	double t_last_reply = now_us();
	C->p2_seconds = (t_last_reply - t0) / 1e6;
	C->p2_rate = C->p2_seconds > 0 ? (double)todo / C->p2_seconds : 0;
	for (;;) {
		C->turns = store_turns(s2);
		if (C->turns >= turns)
			break;
		if (now_us() - t_last_reply > 120e6)
			die("the store holds %lld of %lld turns two minutes after the last reply", C->turns, turns);
		usleep(20000);
	}
	C->store_lag_s = (now_us() - t_last_reply) / 1e6;
	double quiet = pty_wait_quiet(&t, 500, 120000);
	if (quiet < 0)
		die("the console's screen did not go quiet within two minutes of the last turn");
	C->screen_lag_s = (quiet - t_last_reply) / 1e6;
	C->hwm_kb[1] = proc_kb(t.pid, "VmHWM");
	C->rss_kb[1] = proc_kb(t.pid, "VmRSS");
	printf("  phase 2: %lld more calls unpaced in %.1f s (%.0f/s); the store held all %lld turns %.2f s after the "
	       "last reply, the screen was quiet %.2f s after it\n",
	       todo, C->p2_seconds, C->p2_rate, C->turns, C->store_lag_s, C->screen_lag_s);
	fflush(stdout);

	/* Phase 3: keys, the run still open. */
	pty_read_stop(&t);
	keys_run(&t, presses, &C->keys);
	C->hwm_kb[2] = proc_kb(t.pid, "VmHWM");
	C->rss_kb[2] = proc_kb(t.pid, "VmRSS");

	/* The agent leaves (the run ends). */
	pty_read_start(&t);
	agent_finish(a, "belay connect");

	/* Phase 4: a new run through the console and a new proxy, called alternately. */
	if (paired_s > 0) {
		struct agent *px = proxy_start(belay, echo, "S3", 1), *cx = calloc(1, sizeof *cx);
		agent_start(cx, aargv, "connect-paired");
		mcp_handshake(cx);
		paced2(px, cx, 1, rate, NULL, NULL, 0);
		C->pair_p.label = "paired: belay proxy";
		C->pair_c.label = "paired: connect+console";
		double pc0 = proc_cpu(px->pid), cc0 = proc_cpu(t.pid), s0p = self_cpu();
		struct bench_cpu k2 = bench_cpu_now();
		paced2(px, cx, paired_s, rate, &C->pair_p.lat, &C->pair_c.lat, 1);
		C->pair_p.steal_pct = C->pair_c.steal_pct = bench_steal_pct(k2, bench_cpu_now());
		C->pair_p.cpu_s = proc_cpu(px->pid) - pc0;
		C->pair_c.cpu_s = proc_cpu(t.pid) - cc0;
		C->pair_p.bench_cpu_s = C->pair_c.bench_cpu_s = self_cpu() - s0p;
		C->pair_p.hwm_kb = proc_kb(px->pid, "VmHWM");
		C->pair_c.hwm_kb = proc_kb(t.pid, "VmHWM");
		C->pair_p.st = summarize(C->pair_p.lat.us, C->pair_p.lat.n);
		C->pair_c.st = summarize(C->pair_c.lat.us, C->pair_c.lat.n);
		agent_finish(px, "belay proxy (paired)");
		agent_finish(cx, "belay connect (paired)");
		printf("\nPhase 4: paired - a new proxy and a new run through the console, one call to each per "
		       "slot, order alternating\n");
		print_lat(&C->pair_p);
		print_lat(&C->pair_c);
	}

	/* The console is stopped. */
	kill(t.pid, SIGTERM);
	int st = reap(t.pid, 30000);
	if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
		fprintf(stderr, "bench_console: belay console ended with status 0x%x\n", st);
	pty_read_stop(&t);
	close(t.fd);
}

static const char *met(int ok)
{
	return ok ? "met" : "MISSED";
}

/*==== phase 0: search inside a large response (in this process) ====*/

/* A tools/call reply of about `mb` MiB: structuredContent.items (objects of id, name, size,
 * tags) and, when as_text, the same items as one JSON string in content[0].text (what most
 * MCP servers send). */
static char *big_reply(int mb, int as_text, size_t *items_out)
{
	struct buf items = {0};
	size_t i = 0;
	buf_putc(&items, '[');
	while (items.len < (size_t)mb * 1024 * 1024) {
		buf_printf(&items, "%s{\"id\":\"item-%zu\",\"name\":\"Item number %zu of the catalog\",\"size\":%zu,"
				   "\"tags\":[\"red\",\"blue\",\"tag-%zu\"]}",
			   i ? "," : "", i, i, i * 17, i % 97);
		i++;
	}
	buf_putc(&items, ']');
	buf_cstr(&items);
	*items_out = i;
	cJSON *root = cJSON_CreateObject(), *result = cJSON_AddObjectToObject(root, "result");
	cJSON_AddStringToObject(root, "jsonrpc", "2.0");
	cJSON_AddNumberToObject(root, "id", 7);
	cJSON *content = cJSON_AddArrayToObject(result, "content"), *t = cJSON_CreateObject();
	cJSON_AddStringToObject(t, "type", "text");
	cJSON_AddStringToObject(t, "text", as_text ? items.p : "the items are in structuredContent");
	cJSON_AddItemToArray(content, t);
	if (!as_text) {
		cJSON *sc = cJSON_AddObjectToObject(result, "structuredContent");
		cJSON_AddItemToObject(sc, "items", cJSON_Parse(items.p));
	}
	char *s = cJSON_PrintUnformatted(root);
	cJSON_Delete(root);
	buf_free(&items);
	return s;
}

struct sfix {
	struct cmodel m;
	struct keymap km;
	struct ui u;
	struct canvas c;
};

static void sfix_open(struct sfix *F, const char *reply)
{
	memset(F, 0, sizeof *F);
	struct err e = {0};
	if (keymap_load(&F->km, &e) != 0)
		die("keys: %s", e.msg);
	struct cm_run *r = cm_add(&F->m, "bench-run", "/nonexistent");
	struct cm_turn *t = cm_turn_append(r);
	t->turn = 0;
	t->req_seq = 1;
	t->resp_seq = 2;
	t->call = CMC_ANSWERED;
	ui_init(&F->u, &F->m, &F->km, NULL);
	ui_resize(&F->u, 120, 40);
	ui_focus_run(&F->u, r->id);
	struct detail *d = &F->u.det;
	d->run = xstrdup(r->id);
	d->turn = 0;
	d->resp = cJSON_Parse(reply);
	if (!d->resp)
		die("the reply does not parse");
	tdoc_nl(&d->tab[TAB_RESPONSE]);
	tdoc_add(&d->tab[TAB_RESPONSE], ROLE_TITLE, "response");
	detail_render_json(d);
	F->u.det_loaded = 1;
	F->u.tab = TAB_RESPONSE;
	F->u.view = VIEW_DETAIL;
	F->u.depth = 1;
	canvas_init(&F->c, 120, 40);
}

static void sfix_close(struct sfix *F)
{
	canvas_free(&F->c);
	ui_free(&F->u);
	keymap_free(&F->km);
	cm_close(&F->m);
}

static double thread_cpu_ms(void)
{
	struct timespec t;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

static double last_cpu; /* the CPU time of the last timed() */

/* A key or command and the redraw after it, in ms (what the UI thread spends before the
 * screen can change); its CPU time in last_cpu (the wall figure, less what a loaded machine
 * kept it waiting). */
static double timed(struct sfix *F, int key, const char *cmd)
{
	double t0 = now_us(), c0 = thread_cpu_ms();
	if (cmd)
		ui_command(&F->u, cmd);
	else
		ui_key(&F->u, key);
	ui_draw(&F->u, &F->c);
	last_cpu = thread_cpu_ms() - c0;
	return (now_us() - t0) / 1e3;
}

static void search_case(int mb, int as_text)
{
	size_t nitems;
	char *reply = big_reply(mb, as_text, &nitems);
	size_t len = strlen(reply);
	struct sfix F;
	double t0 = now_us();
	sfix_open(&F, reply);
	double open_ms = (now_us() - t0) / 1e3;
	double first_draw = timed(&F, K_RESIZE, NULL);
	printf("  %s: %.1f MiB, %zu items, %zu document lines; parse + render %.1f ms, first draw %.1f ms\n",
	       as_text ? "the items as one JSON string in content[0].text" : "the items in structuredContent",
	       (double)len / (1024 * 1024), nitems, F.u.det.tab[TAB_RESPONSE].n, open_ms, first_draw);
	if (as_text) {
		double p = timed(&F, 'p', NULL);
		printf("    p (JSON inside the string, parsed): %.1f ms, %zu document lines\n", p, F.u.det.tab[TAB_RESPONSE].n);
	}
	/* What the console does while no key waits (between opening the turn and the first key):
	 * the shown document's text made ready for a search, a step at a time. */
	double idle_ms = 0, idle_max = 0, idle_cpu = 0, idle_cpu_max = 0;
	int nidle = 0;
	for (int more = 1; more; nidle++) {
		double t = now_us(), c = thread_cpu_ms();
		more = ui_search_idle(&F.u);
		double ms = (now_us() - t) / 1e3, cms = thread_cpu_ms() - c;
		idle_ms += ms;
		idle_max = ms > idle_max ? ms : idle_max;
		idle_cpu += cms;
		idle_cpu_max = cms > idle_cpu_max ? cms : idle_cpu_max;
	}
	printf("    while idle, made ready for a search: %.1f ms (CPU %.1f) in %d steps, the longest %.2f ms (CPU %.2f)\n",
	       idle_ms, idle_cpu, nidle, idle_max, idle_cpu_max);
	/* Typing a search (each key searches what is shown and redraws), then Enter (opens folded
	 * JSON holding a match, searches, redraws), then n and N. */
	const char *word = "item-30000\"";
	double typing[32], tcpu[32];
	size_t nt = 0;
	typing[nt] = timed(&F, '/', NULL);
	tcpu[nt++] = last_cpu;
	for (const char *c = word; *c && nt < 32; c++) {
		typing[nt] = timed(&F, (unsigned char)*c, NULL);
		tcpu[nt++] = last_cpu;
	}
	double enter = timed(&F, K_ENTER, NULL), enter_cpu = last_cpu;
	char cnt[64];
	ui_search_bar(&F.u, cnt, sizeof cnt);
	struct stats ts = summarize(typing, nt), tc = summarize(tcpu, nt);
	printf("    typing /%s: median %.2f ms, max %.2f ms a key (CPU: median %.2f, max %.2f); Enter %.2f ms (CPU %.2f) (%s)\n",
	       word, ts.med, ts.max, tc.med, tc.max, enter, enter_cpu, cnt);
	double enter2 = timed(&F, 0, "search item-3");
	ui_search_bar(&F.u, cnt, sizeof cnt);
	printf("    :search item-3 (many matches, folds opened): %.1f ms (CPU %.1f) (%s)\n", enter2, last_cpu, cnt);
	double steps[40], scpu[40];
	for (int i = 0; i < 40; i++) {
		steps[i] = timed(&F, i % 4 == 3 ? 'N' : 'n', NULL);
		scpu[i] = last_cpu;
	}
	struct stats ss = summarize(steps, 40), sc = summarize(scpu, 40);
	printf("    n/N: median %.2f ms, max %.2f ms (CPU max %.2f) (goal %.0f ms: %s)\n", ss.med, ss.max, sc.max, GOAL_KEY_MS,
	       met(sc.max <= GOAL_KEY_MS));
	double j[20];
	for (int i = 0; i < 20; i++)
		j[i] = timed(&F, 'j', NULL);
	struct stats sj = summarize(j, 20);
	printf("    j in that document: median %.2f ms, max %.2f ms\n", sj.med, sj.max);
	sfix_close(&F);
	free(reply);
}

static void search_run(int mb)
{
	printf("\nSearch inside a response (in this process: the UI's own code, a 120x40 canvas, no terminal), each "
	       "figure a key or command and the redraw after it\n");
	search_case(mb, 0);
	search_case(mb, 1);
}

/*==== keys at N turns, in this process ====*/

/* The phase 3 key cycle on a run of `turns` turns held in memory as the console holds them
 * (each as the echo calls make: tool echo, arguments {"text":"turn N"}, answered, verified
 * or not), each key with the redraw after it: wall and the thread's own CPU time (what the
 * console's UI code costs, whatever else the machine does). */
static void keys_inproc(long long turns)
{
	struct sfix F;
	memset(&F, 0, sizeof F);
	struct err e = {0};
	if (keymap_load(&F.km, &e) != 0)
		die("keys: %s", e.msg);
	char st[PATH_MAX];
	fmt_path(st, sizeof st, "%s/inproc-state", scratch);
	if (cm_open(&F.m, st, &e) != 0) /* an empty store: Enter opens a turn it does not hold */
		die("store: %s", e.msg);
	struct cm_run *r = cm_add(&F.m, "bench-run", "/nonexistent");
	for (long long i = 0; i < turns; i++) {
		struct cm_turn *t = cm_turn_append(r);
		char a[64];
		snprintf(a, sizeof a, "{\"text\":\"turn %lld\"}", i);
		t->turn = (int)i;
		t->req_seq = 2 * i + 1;
		t->resp_seq = 2 * i + 2;
		t->tool = xstrdup("echo");
		t->args = xstrdup(a);
		t->call = CMC_ANSWERED;
		t->final = 1;
		t->rc = CMV_NONE;
		t->v = t->a1 = t->a2 = i % 7 ? CMV_NONE : CMV_PASS;
		r->counts[(int)t->v + 1]++;
	}
	ui_init(&F.u, &F.m, &F.km, NULL);
	ui_resize(&F.u, 120, 40);
	ui_focus_run(&F.u, r->id);
	canvas_init(&F.c, 120, 40);
	ui_draw(&F.u, &F.c);
	enum { ROUNDS = 5 };
	size_t nk = CYCLE_LEN;
	double wall[CYCLE_LEN][ROUNDS], cpu[CYCLE_LEN][ROUNDS];
	for (int round = 0; round < ROUNDS; round++) {
		for (size_t i = 0; i < nk; i++) {
			const char *b = cycle[i].bytes;
			int key = b[0] == '\033' && b[1] ? K_PGDN : b[0] == '\033' ? K_ESC : b[0] == '\r' ? K_ENTER : (unsigned char)b[0];
			double t0 = now_us(), c0 = thread_cpu_ms();
			ui_key(&F.u, key);
			ui_draw(&F.u, &F.c);
			cpu[i][round] = thread_cpu_ms() - c0;
			wall[i][round] = (now_us() - t0) / 1e3;
		}
		/* as phase 3 resets: the filter cleared, the focus on the last turn */
		ui_key(&F.u, '/');
		ui_key(&F.u, K_C('u'));
		ui_key(&F.u, K_ENTER);
		ui_key(&F.u, 'G');
		ui_draw(&F.u, &F.c);
	}
	printf("\nKeys at %lld turns in this process (the UI's own code and a redraw on a 120x40 canvas, no terminal), "
	       "%d rounds of the phase 3 cycle, ms: wall median max | this thread's CPU median max\n",
	       turns, ROUNDS);
	double worst_cpu = 0, worst_wall = 0;
	for (size_t i = 0; i < nk; i++) {
		struct stats sw = summarize(wall[i], ROUNDS), sc = summarize(cpu[i], ROUNDS);
		printf("  %-2zu %-8s %7.2f %7.2f | %7.2f %7.2f\n", i + 1, cycle[i].name, sw.med, sw.max, sc.med, sc.max);
		worst_cpu = sc.max > worst_cpu ? sc.max : worst_cpu;
		worst_wall = sw.max > worst_wall ? sw.max : worst_wall;
	}
	printf("  every key: wall max %.2f ms, CPU max %.2f ms (goal %.0f ms: %s)\n", worst_wall, worst_cpu, GOAL_KEY_MS,
	       met(worst_cpu <= GOAL_KEY_MS));
	canvas_free(&F.c);
	ui_free(&F.u);
	keymap_free(&F.km);
	cm_close(&F.m);
}

/*==== report ====*/


static void report_keys(const struct keyres *K, long long turns)
{
	/* Per key, then all keys, then all but Esc (curses waits ESCDELAY after a lone Esc to
	 * tell it from the start of an escape sequence). */
	printf("\nKey response, 120x40 terminal, %lld turns in the open run, ms: from the key's write to the first "
	       "byte of the redraw,\nto the end of the redraw; the UI thread's CPU time and its wait for a CPU over "
	       "the same span\n",
	       turns);
	printf("  %-14s %6s  %28s | %15s | %15s | %s\n", "key", "", "first byte: median   p99   max", "end: median max",
	       "UI CPU: med max", "CPU wait max");
	const char *names[] = {"g", "j", "k", "<pgdn>", "G", "Enter", "q", "/", "typing tool:x", "Esc"};
	for (size_t ni = 0; ni < sizeof names / sizeof names[0]; ni++) {
		double *f = malloc(K->n * sizeof *f), *a = malloc(K->n * sizeof *a), *c = malloc(K->n * sizeof *c),
		       *w = malloc(K->n * sizeof *w);
		size_t m = 0;
		for (size_t i = 0; i < K->n; i++) {
			const char *kn = cycle[K->kind[i]].name;
			int typing = K->kind[i] >= 11 && K->kind[i] <= 16;
			if (ni == 8 ? typing : (!typing && !strcmp(kn, names[ni]))) {
				f[m] = K->first[i];
				a[m] = K->all[i];
				c[m] = K->cpu[i];
				w[m] = K->wait[i];
				m++;
			}
		}
		struct stats s = summarize(f, m), sa = summarize(a, m), sc = summarize(c, m), sw = summarize(w, m);
		printf("  %-14s n=%4zu  %11.2f %6.2f %6.2f | %6.2f %7.2f | %6.2f %7.2f | %7.2f\n", names[ni], m, s.med, s.p99,
		       s.max, sa.med, sa.max, sc.med, sc.max, sw.max);
		free(f);
		free(a);
		free(c);
		free(w);
	}
	size_t worst = 0;
	for (size_t i = 1; i < K->n; i++)
		if (K->first[i] > K->first[worst])
			worst = i;
	if (K->n)
		printf("  slowest: %s after %.2f ms; the UI thread ran %.2f ms and waited %.2f ms for a CPU meanwhile\n",
		       cycle[K->kind[worst]].name, K->first[worst], K->cpu[worst], K->wait[worst]);
}

int main(int argc, char **argv)
{
	xalloc_cjson_install();
	int seconds = 60, rate = 1000, presses = 200, plain = 0, paired_s = 30, search_mb = 10, search_only = 0;
	long long keys_inproc_turns = 100000;
	long long turns = 100000;
	const char *belay_arg = NULL;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--seconds") && i + 1 < argc)
			seconds = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--rate") && i + 1 < argc)
			rate = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--turns") && i + 1 < argc)
			turns = atoll(argv[++i]);
		else if (!strcmp(argv[i], "--keys") && i + 1 < argc)
			presses = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--belay") && i + 1 < argc)
			belay_arg = argv[++i];
		else if (!strcmp(argv[i], "--paired-seconds") && i + 1 < argc)
			paired_s = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--plain-proxy"))
			plain = 1;
		else if (!strcmp(argv[i], "--keep"))
			keep_scratch = 1;
		else if (!strcmp(argv[i], "--slice-us") && i + 1 < argc)
			slice_arg = argv[++i];
		else if (!strcmp(argv[i], "--search-mb") && i + 1 < argc)
			search_mb = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--search-only"))
			search_only = 1;
		else if (!strcmp(argv[i], "--inproc-turns") && i + 1 < argc)
			keys_inproc_turns = atoll(argv[++i]);
		else {
			fprintf(stderr,
				"usage: bench_console [--seconds 60] [--rate 1000] [--turns 100000] [--keys 200] "
				"[--paired-seconds 30] [--belay PATH] [--plain-proxy] [--keep] [--slice-us US] [--search-mb 10] "
				"[--inproc-turns 100000] [--search-only]\n");
			return 2;
		}
	}
	if (seconds < 1 || rate < 1 || rate > 1000000 || presses < 1)
		die("--seconds, --rate and --keys must be positive");
	signal(SIGPIPE, SIG_IGN);

	/* belay and the echo server are built next to this program (--belay overrides belay). */
	char self[PATH_MAX], dir[PATH_MAX], belay[PATH_MAX], echo[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
	if (n <= 0)
		die("cannot find this program's directory");
	self[n] = '\0';
	snprintf(dir, sizeof dir, "%s", self);
	*strrchr(dir, '/') = '\0';
	if (belay_arg)
		fmt_path(belay, sizeof belay, "%s", belay_arg);
	else
		fmt_path(belay, sizeof belay, "%s/belay", dir);
	fmt_path(echo, sizeof echo, "%s/bench_echo_server", dir);
	if (access(belay, X_OK) || access(echo, X_OK))
		die("need %s and %s (build them first)", belay, echo);

	snprintf(scratch, sizeof scratch, "/dev/shm/belay-bench-console-XXXXXX");
	if (!mkdtemp(scratch))
		die("mkdtemp: %s", strerror(errno));
	char cfg[PATH_MAX];
	fmt_path(cfg, sizeof cfg, "%s/config", scratch);
	mkdir(cfg, 0700);

	printf("bench_console: %d s at %d tools/call per second (after 1 s of warm-up), one call at a time; "
	       "%lld turns before the keys; %d key presses\n",
	       seconds, rate, turns, presses);
	printf("  belay %s, %ld CPU(s) online, nothing pinned; servers uncontained (no --scope): the proxy path, "
	       "trace, audit gate and store, not snapshots\n",
	       belay, sysconf(_SC_NPROCESSORS_ONLN));
	print_load("at the start");
	if (search_mb > 0)
		search_run(search_mb);
	if (keys_inproc_turns > 0)
		keys_inproc(keys_inproc_turns);
	if (search_only) {
		cleanup();
		return 0;
	}
	printf("  scratch %s\n\nPhase 1: paced round trips (agent -> belay -> bench_echo_server -> back)\n", scratch);
	fflush(stdout);

	struct run_result D = {.label = "direct (no belay)"}, P = {.label = "belay proxy --mode audit"},
			  P0 = {.label = "belay proxy (no gate)"};
	run_direct(echo, seconds, rate, &D);
	run_proxy(belay, echo, seconds, rate, 1, &P);
	if (plain)
		run_proxy(belay, echo, seconds, rate, 0, &P0);
	struct console_result C = {0};
	run_console(belay, echo, seconds, rate, turns, presses, paired_s, &C);

	/* The table. */
	double rmed = C.p1.st.med / P.st.med, rp99 = C.p1.st.p99 / P.st.p99;
	struct stats ks = summarize(C.keys.first, C.keys.n);
	double *noesc = malloc((C.keys.n + 1) * sizeof *noesc);
	size_t nn = 0;
	for (size_t i = 0; i < C.keys.n; i++)
		if (strcmp(cycle[C.keys.kind[i]].name, "Esc"))
			noesc[nn++] = C.keys.first[i];
	struct stats kn = summarize(noesc, nn);
	free(noesc);
	struct stats kc = summarize(C.keys.cpu, C.keys.n), kw = summarize(C.keys.wait, C.keys.n);
	print_load("at the end");
	report_keys(&C.keys, C.turns);
	printf("\nMemory (peak RSS, VmHWM)\n");
	printf("  belay proxy --mode audit, end of phase 1 (%d turns):     %7.1f MiB\n", (seconds + 1) * rate,
	       (double)P.hwm_kb / 1024);
	printf("  belay console, end of phase 1 (%d turns):                %7.1f MiB (RSS now %.1f)\n", (seconds + 1) * rate,
	       (double)C.hwm_kb[0] / 1024, (double)C.rss_kb[0] / 1024);
	printf("  belay console, end of phase 2 (%lld turns):             %7.1f MiB (RSS now %.1f)\n", C.turns,
	       (double)C.hwm_kb[1] / 1024, (double)C.rss_kb[1] / 1024);
	printf("  belay console, end of phase 3 (after %zu keys):           %7.1f MiB (RSS now %.1f)\n", C.keys.n,
	       (double)C.hwm_kb[2] / 1024, (double)C.rss_kb[2] / 1024);
	long long dturns = C.turns - (long long)(seconds + 1) * rate;
	if (dturns > 0)
		printf("  growth from phase 1 to phase 2: %.0f bytes per turn\n",
		       (double)(C.hwm_kb[1] - C.hwm_kb[0]) * 1024 / (double)dturns);
	printf("  screen output during phase 1: %.1f MiB (%.0f KiB/s)\n", (double)C.screen_bytes_p1 / 1048576,
	       (double)C.screen_bytes_p1 / 1024 / C.p1.lat.seconds);

	printf("\nSummary                                      figure              goal        result\n");
	printf("  latency connect/proxy, median (in turn)    %6.1f / %6.1f us  x%.3f  <= x%.2f   %s\n", C.p1.st.med,
	       P.st.med, rmed, GOAL_RATIO, met(rmed <= GOAL_RATIO));
	printf("  latency connect/proxy, p99 (in turn)       %6.1f / %6.1f us  x%.3f  <= x%.2f   %s\n", C.p1.st.p99,
	       P.st.p99, rp99, GOAL_RATIO, met(rp99 <= GOAL_RATIO));
	if (C.pair_p.lat.n) {
		double qmed = C.pair_c.st.med / C.pair_p.st.med, qp99 = C.pair_c.st.p99 / C.pair_p.st.p99;
		printf("  latency connect/proxy, median (paired)     %6.1f / %6.1f us  x%.3f  <= x%.2f   %s\n",
		       C.pair_c.st.med, C.pair_p.st.med, qmed, GOAL_RATIO, met(qmed <= GOAL_RATIO));
		printf("  latency connect/proxy, p99 (paired)        %6.1f / %6.1f us  x%.3f  <= x%.2f   %s\n",
		       C.pair_c.st.p99, C.pair_p.st.p99, qp99, GOAL_RATIO, met(qp99 <= GOAL_RATIO));
	}
	if (plain)
		printf("  (proxy without a gate: median %.1f us, p99 %.1f us)\n", P0.st.med, P0.st.p99);
	printf("  pacing held (proxy, console)               %zu / %zu late calls (direct, no belay: %zu)\n", P.lat.late,
	       C.p1.lat.late, D.lat.late);
	/* "A key press is answered within 16 ms": every press, so the worst one decides. */
	printf("  key response, all %4zu keys, max           %6.2f ms (p99 %6.2f)   <= %.0f ms    %s\n", ks.n, ks.max,
	       ks.p99, GOAL_KEY_MS, met(ks.max <= GOAL_KEY_MS && !C.keys.missing));
	printf("  key response, %4zu keys but Esc, max       %6.2f ms (p99 %6.2f)   <= %.0f ms    %s\n", kn.n, kn.max,
	       kn.p99, GOAL_KEY_MS, met(kn.max <= GOAL_KEY_MS && !C.keys.missing));
	/* The UI thread's own CPU time per key: what the console costs, apart from waiting for a
	 * CPU on a loaded machine (the wall figures above include that, and the bench's own wait). */
	printf("  key response, UI thread's CPU per key, max  %6.2f ms (median %4.2f) <= %.0f ms    %s  (its CPU wait: max %.2f ms)\n",
	       kc.max, kc.med, GOAL_KEY_MS, met(kc.max <= GOAL_KEY_MS), kw.max);
	if (C.keys.missing)
		printf("  keys without any redraw within %d ms: %zu (MISSED)\n", REDRAW_WAIT_MS, C.keys.missing);
	printf("  console peak RSS with %lld turns          %7.1f MiB\n", C.turns, (double)C.hwm_kb[2] / 1024);
	printf("  host steal: direct %.1f%%, proxy %.1f%%, console %.1f%%, paired %.1f%% of the CPU (a quiet host: ~0)\n",
	       D.steal_pct, P.steal_pct, C.p1.steal_pct, C.pair_p.lat.n ? C.pair_p.steal_pct : -1.0);
	fflush(stdout);
	free(P.lat.us);
	free(P0.lat.us);
	free(C.p1.lat.us);
	free(C.pair_p.lat.us);
	free(C.pair_c.lat.us);
	free(C.keys.first);
	free(C.keys.all);
	free(C.keys.kind);
	free(C.keys.cpu);
	free(C.keys.wait);
	cleanup();
	return 0;
}
