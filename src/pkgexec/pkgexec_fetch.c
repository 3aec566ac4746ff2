/* pkgexec_fetch.c - one fetch per install directory, run to completion detached, with later
 * starts attaching to it. See pkgexec_install in pkgexec.h.
 *
 * The lock is flock(2) on <dir>.lock: held by the fetching process for as long as it runs,
 * released by the kernel when it ends however it ends. The fetcher is a child in a session of
 * its own (an agent that kills belay's process group does not kill it); it writes its result
 * (0 or the message) to <dir>.result for whoever waits. Leftover <dir>.tmp-* directories are
 * removed by the next holder of the lock: whoever made them is gone. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "common/buf.h"
#include "common/fsutil.h"
#include "common/timeutil.h"
#include "common/xalloc.h"
#include "pkgexec/pkgexec.h"

static unsigned env_seconds(const char *name, unsigned dflt)
{
	const char *v = getenv(name);
	char *end;
	long n = v && *v ? strtol(v, &end, 10) : -1;
	return v && *v && !*end && n >= 0 && n <= 86400 ? (unsigned)n : dflt;
}

/* Removes <dir>.tmp-* (the lock is ours: their fetches are gone). */
static void remove_leftovers(const char *dir)
{
	char *parent = xstrdup(dir), *slash = strrchr(parent, '/');
	if (!slash) {
		free(parent);
		return;
	}
	*slash = '\0';
	const char *name = slash + 1;
	size_t nl = strlen(name);
	DIR *d = opendir(parent);
	for (struct dirent *de; d && (de = readdir(d));)
		if (!strncmp(de->d_name, name, nl) && !strncmp(de->d_name + nl, ".tmp-", 5)) {
			char *p = fs_join(parent, de->d_name);
			fs_remove_tree(p);
			free(p);
		}
	if (d)
		closedir(d);
	free(parent);
}

static void write_result(const char *path, const char *msg)
{
	struct err e = {0};
	(void)fs_write_file_atomic(path, msg, strlen(msg), 0600, &e);
}

static char *read_result(const char *path)
{
	struct buf b = {0};
	struct err e = {0};
	if (fs_read_file(path, 4096, &b, &e) != 0) {
		buf_free(&b);
		return NULL;
	}
	return buf_take(&b);
}

static void kill_group(int sig)
{
	(void)sig;
	kill(0, SIGKILL);
}

/* The detached fetcher: runs the installer, commits, writes the result; exits. */
static void fetcher(const struct pkgexec_req *rq, const struct pkgexec_opts *o, char *const *argv,
		    const char *const *env, const char *failed, const char *tmp, const char *dir, const char *result,
		    const char *secret)
{
	setsid();
	signal(SIGPIPE, SIG_IGN); /* the agent's end of stderr may be gone */
	signal(SIGALRM, kill_group);
	alarm(env_seconds("BELAY_FETCH_LIMIT_S", 600));
	char last[400];
	int st = pkgexec_run_tool(argv, env, o->stderr_fd, last, sizeof last);
	struct err e = {0};
	int rc = 0;
	if (st < 0) /* it did not start: last says why */
		rc = err_set(&e, BELAY_ENOTFOUND, "%s: %s%s%s", rq->tool, failed, last[0] ? ": " : "", last);
	else if (st != 0)
		rc = err_set(&e, BELAY_ENOTFOUND, "%s: %s (exit %d)%s%s", rq->tool, failed, st, last[0] ? ": " : "", last);
	if (!rc) {
		char *mark = fs_join(tmp, ".belay-ready");
		rc = fs_write_file_atomic(mark, "", 0, 0600, &e);
		free(mark);
	}
	if (rc)
		fs_remove_tree(tmp);
	else
		rc = pkgexec_commit(tmp, dir, &e);
	if (secret)
		unlink(secret);
	write_result(result, rc ? e.msg : "");
	_exit(rc ? 1 : 0);
}

/* Waits for another process's fetch of dir: 1 when it ended (lock taken: *fd holds it), 0
 * when wait_s passed first. */
static int wait_for_lock(int fd, unsigned wait_s)
{
	uint64_t until = time_mono_ns() + (uint64_t)wait_s * 1000000000ull;
	for (;;) {
		if (flock(fd, LOCK_EX | LOCK_NB) == 0)
			return 1;
		if (errno != EWOULDBLOCK && errno != EINTR)
			return flock(fd, LOCK_EX) == 0; /* no non-blocking lock here: wait */
		if (time_mono_ns() >= until)
			return 0;
		struct timespec ts = {0, 200 * 1000000L};
		nanosleep(&ts, NULL);
	}
}

int pkgexec_install(const struct pkgexec_req *rq, const struct pkgexec_opts *o, char *const *argv,
		    const char *const *env, const char *doing, const char *failed, const char *tmp, const char *dir,
		    const char *secret, struct err *e)
{
	char *lockpath = xasprintf("%s.lock", dir), *result = xasprintf("%s.result", dir);
	int rc = 0, fetched = 0;
	int fd = open(lockpath, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (fd < 0) {
		rc = err_set(e, -errno, "%s: cannot open the fetch lock %s: %s", rq->tool, lockpath, strerror(errno));
		goto out;
	}
	if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
		unsigned wait_s = env_seconds("BELAY_FETCH_WAIT_S", 45);
		if (o->stderr_fd >= 0) {
			char note[700];
			int n = snprintf(note, sizeof note, "belay: %s: another belay is fetching into %s; waiting up to %u s\n",
					 rq->tool, dir, wait_s);
			(void)!write(o->stderr_fd, note, n > 0 && (size_t)n < sizeof note ? (size_t)n : 0);
		}
		if (!wait_for_lock(fd, wait_s)) {
			rc = err_set(e, BELAY_ETIMEOUT,
				     "%s: still fetching: another belay started fetching into %s and has not finished within %u "
				     "s (BELAY_FETCH_WAIT_S); it goes on by itself: try again shortly",
				     rq->tool, dir, wait_s);
			goto out;
		}
		if (pkgexec_is_ready(dir))
			goto out; /* the other fetch finished it */
		/* it failed (or died): fetch again, ourselves */
	} else if (pkgexec_is_ready(dir)) {
		goto out;
	}
	remove_leftovers(dir);
	unlink(result);
	if (o->stderr_fd >= 0) {
		char note[700];
		int n = snprintf(note, sizeof note, "belay: %s: %s into %s\n", rq->tool, doing, dir);
		(void)!write(o->stderr_fd, note, n > 0 && (size_t)n < sizeof note ? (size_t)n : 0);
	}
	fetched = 1;
	pid_t pid = fork();
	if (pid < 0) {
		rc = err_set(e, -errno, "%s: cannot start the fetch: %s", rq->tool, strerror(errno));
		goto out;
	}
	if (pid == 0)
		fetcher(rq, o, argv, env, failed, tmp, dir, result, secret); /* holds the lock (fd) until it ends */
	close(fd);
	fd = -1;
	int st;
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	char *msg = read_result(result);
	if (!pkgexec_is_ready(dir))
		rc = err_set(e, BELAY_ENOTFOUND, "%s", msg && *msg ? msg : "the fetch ended without a result");
	free(msg);
out:
	if (!fetched)
		fs_remove_tree(tmp); /* prepared for a fetch another belay made */
	if (secret)
		unlink(secret);
	if (fd >= 0)
		close(fd);
	free(lockpath);
	free(result);
	return rc;
}
