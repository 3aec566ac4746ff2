/* tsupport.c - see tsupport.h. */
#include "tsupport.h"

#include <criterion/criterion.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "common/fsutil.h"
#include "common/xalloc.h"
#include "trace/trace_reader.h"

static char *tmpdir_in(const char *base, const char *tag)
{
	char *prefix = xasprintf("belay-test-%s-", tag);
	struct err e;
	char *d = fs_mkdtemp_in(base, prefix, &e);
	free(prefix);
	if (!d)
		FATAL("%s", e.msg);
	return d;
}

char *ts_tmpdir(const char *tag)
{
	return tmpdir_in(fs_scratch_base(), tag);
}

char *ts_outside_dir(const char *tag)
{
	return tmpdir_in("/var/tmp", tag);
}

void ts_rmtree(const char *path)
{
	if (path)
		fs_remove_tree(path);
}

static void append(char **buf, size_t *len, const char *p, size_t n)
{
	*buf = xrealloc(*buf, *len + n + 1);
	memcpy(*buf + *len, p, n);
	*len += n;
	(*buf)[*len] = '\0';
}

pid_t ts_spawn(const char *const *argv, const char *const *env, const char *cwd, struct ts_out *o, int fds[3])
{
	memset(o, 0, sizeof *o);
	o->out = xcalloc(1, 1);
	o->err = xcalloc(1, 1);
	int pin[2], pout[2], perr[2];
	if (pipe2(pin, O_CLOEXEC) || pipe2(pout, O_CLOEXEC) || pipe2(perr, O_CLOEXEC))
		return -1;
	pid_t pid = fork();
	if (pid == 0) {
		dup2(pin[0], 0);
		dup2(pout[1], 1);
		dup2(perr[1], 2);
		signal(SIGPIPE, SIG_DFL);
		if (cwd && chdir(cwd) != 0)
			_exit(126);
		for (const char *const *e = env; e && *e; e++)
			putenv((char *)*e);
		execvp(argv[0], (char *const *)argv);
		_exit(127);
	}
	close(pin[0]);
	close(pout[1]);
	close(perr[1]);
	if (pid < 0) {
		close(pin[1]);
		close(pout[0]);
		close(perr[0]);
		return -1;
	}
	fds[0] = pin[1];
	fds[1] = pout[0];
	fds[2] = perr[0];
	return pid;
}

int ts_read_some(int fd, char **buf, size_t *len)
{
	char tmp[65536];
	ssize_t n = read(fd, tmp, sizeof tmp);
	if (n <= 0)
		return 0;
	append(buf, len, tmp, (size_t)n);
	return 1;
}

void ts_reap(pid_t pid, struct ts_out *o)
{
	int st = 0;
	waitpid(pid, &st, 0);
	o->status = o->timed_out ? -1 : WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

int ts_run(const char *const *argv, const char *const *env, const char *cwd, const char *in, size_t in_len,
	   int timeout_s, struct ts_out *o)
{
	int fd[3];
	pid_t pid = ts_spawn(argv, env, cwd, o, fd);
	if (pid < 0)
		return -1;
	fcntl(fd[0], F_SETFL, O_NONBLOCK);
	size_t off = 0;
	int in_open = 1, out_open = 1, err_open = 1;
	if (in_len == 0) {
		close(fd[0]);
		in_open = 0;
	}
	struct timespec t0;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (out_open || err_open) {
		struct pollfd fds[3];
		int nf = 0, iin = -1, iout = -1, ierr = -1;
		if (in_open) {
			fds[nf] = (struct pollfd){fd[0], POLLOUT, 0};
			iin = nf++;
		}
		if (out_open) {
			fds[nf] = (struct pollfd){fd[1], POLLIN, 0};
			iout = nf++;
		}
		if (err_open) {
			fds[nf] = (struct pollfd){fd[2], POLLIN, 0};
			ierr = nf++;
		}
		struct timespec now;
		clock_gettime(CLOCK_MONOTONIC, &now);
		long elapsed = (now.tv_sec - t0.tv_sec) * 1000 + (now.tv_nsec - t0.tv_nsec) / 1000000;
		if (elapsed > timeout_s * 1000L) {
			kill(pid, SIGKILL);
			o->timed_out = 1;
			break;
		}
		int r = poll(fds, (nfds_t)nf, 200);
		if (r < 0 && errno != EINTR)
			break;
		if (iin >= 0 && fds[iin].revents) {
			ssize_t w = write(fd[0], in + off, in_len - off);
			if (w > 0)
				off += (size_t)w;
			if ((w < 0 && errno != EAGAIN) || off == in_len) {
				close(fd[0]);
				in_open = 0;
			}
		}
		if (iout >= 0 && fds[iout].revents)
			out_open = ts_read_some(fd[1], &o->out, &o->out_len);
		if (ierr >= 0 && fds[ierr].revents)
			err_open = ts_read_some(fd[2], &o->err, &o->err_len);
	}
	if (in_open)
		close(fd[0]);
	close(fd[1]);
	close(fd[2]);
	ts_reap(pid, o);
	return 0;
}

void ts_out_free(struct ts_out *o)
{
	free(o->out);
	free(o->err);
	memset(o, 0, sizeof *o);
}

char *ts_read_file(const char *path, size_t *len)
{
	struct buf b = {0};
	struct err e;
	if (fs_read_file(path, (size_t)1 << 34, &b, &e) != 0) {
		buf_free(&b);
		return NULL;
	}
	if (len)
		*len = b.len;
	return buf_take(&b);
}

void ts_write_file(const char *path, const char *data, size_t len)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0 || fs_write_all(fd, data, len) != 0)
		FATAL("cannot write %s", path);
	close(fd);
}

char *ts_find_trace(const char *dir)
{
	DIR *d = opendir(dir);
	if (!d)
		return NULL;
	char *found = NULL;
	int n = 0;
	struct dirent *de;
	while ((de = readdir(d)) != NULL) {
		if (strncmp(de->d_name, "trace-", 6) == 0 && strstr(de->d_name, ".jsonl")) {
			free(found);
			found = fs_join(dir, de->d_name);
			n++;
		}
	}
	closedir(d);
	if (n != 1) {
		free(found);
		return NULL;
	}
	return found;
}

char *ts_peers(void)
{
	char *p = xasprintf("%s/tests/peers/node_modules", BELAY_SOURCE_DIR);
	char *probe = xasprintf("%s/@modelcontextprotocol/sdk/package.json", p);
	int ok = access(probe, R_OK) == 0;
	free(probe);
	if (!ok) {
		free(p);
		return NULL;
	}
	/* Named by its real path: a contained server sees the host's /tmp and /dev/shm only at the
	 * paths its command line names, so a worktree there whose node_modules is a link to a
	 * checkout elsewhere must name the checkout's. */
	char *real = realpath(p, NULL);
	if (real) {
		free(p);
		p = real;
	}
	return p;
}

int ts_sh(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *cmd = xvasprintf(fmt, ap);
	va_end(ap);
	int st = system(cmd);
	free(cmd);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

size_t ts_expected_frames(const char *s, size_t n, struct buf *joined)
{
	size_t count = 0, start = 0;
	for (size_t i = 0; i < n; i++) {
		if (s[i] != '\n')
			continue;
		size_t len = i - start;
		if (!(len == 0 || (len == 1 && s[start] == '\r'))) {
			buf_append(joined, s + start, len);
			buf_putc(joined, '\n');
			count++;
		}
		start = i + 1;
	}
	return count;
}

void ts_trace_frames(const char *trace_path, int dir_wanted, struct buf *joined, size_t *count)
{
	struct trace *t = NULL;
	struct err e = {0};
	if (trace_read(trace_path, &t, &e) != 0 || trace_validate(t, &e) != 0)
		FATAL("trace %s: %s", trace_path, e.msg);
	*count = 0;
	for (size_t i = 0; i < t->n; i++) {
		if (!t->recs[i].is_frame || t->recs[i].dir != dir_wanted)
			continue;
		buf_append(joined, t->recs[i].bytes, t->recs[i].len);
		buf_putc(joined, '\n');
		(*count)++;
	}
	trace_free(t);
}

/* A random stream: JSON lines, garbage, big lines, CRLF, blanks, maybe no final newline. */
void ts_random_stream(struct buf *b, unsigned seed, size_t approx)
{
	srand(seed);
	while (b->len < approx) {
		switch (rand() % 8) {
		case 0:
		case 1:
			buf_printf(b, "{\"jsonrpc\":\"2.0\",\"id\":%d,\"method\":\"tools/call\",\"params\":{\"n\":%d.5e3,"
				      "\"s\":\"\\u00e9\\n\"}}\n",
				   rand(), rand() % 100);
			break;
		case 2:
			buf_printf(b, "{\"b\":  [1, 2 , {\"k\" :null}] }\r\n");
			break;
		case 3: {
			size_t n = (size_t)(rand() % 300);
			for (size_t i = 0; i < n; i++)
				buf_putc(b, (char)(rand() % 256));
			break;
		}
		case 4:
			buf_puts(b, rand() % 2 ? "\n" : "\r\n");
			break;
		case 5: {
			size_t n = (size_t)(rand() % (2 << 20));
			buf_puts(b, "{\"big\":\"");
			buf_reserve(b, n);
			memset(b->p + b->len, 'x', n);
			b->len += n;
			buf_puts(b, "\"}\n");
			break;
		}
		case 6:
			buf_puts(b, "{\"nan\":NaN,\"dup\":1,\"dup\":2}\n");
			break;
		default:
			buf_puts(b, "\xc3\x28 invalid utf-8\n");
		}
	}
	if (rand() % 2)
		buf_puts(b, "{\"unterminated\":true}");
}

int ts_golden_update(const char *var)
{
	const char *v = getenv(var);
	int on = v && *v && strcmp(v, "0") != 0;
	if (on && getenv("BELAY_CI") && *getenv("BELAY_CI"))
		cr_assert_fail("%s is set under CI (BELAY_CI): goldens are never rewritten by CI; unset %s", var, var);
	return on;
}

void ts_golden_rewritten(const char *var, const char *what)
{
	/* not fatal: the rest of the test (its other sizes) is rewritten in the same run */
	cr_expect(0, "%s rewrote %s instead of checking it: review the diff, then run again without %s", var, what, var);
}
