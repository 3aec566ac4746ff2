/* doctor_exec.c - running a helper and reading its output, for checks that ask another
 * program (belay sandbox check, python3's TOML parser). See doctor_internal.h. */
#include "doctor/doctor_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

int doctor_exec(const char *const *argv, const char *in, struct buf *out)
{
	int o[2], i[2];
	if (pipe2(o, O_CLOEXEC) != 0)
		return -errno;
	if (pipe2(i, O_CLOEXEC) != 0) {
		int rc = -errno;
		close(o[0]);
		close(o[1]);
		return rc;
	}
	posix_spawn_file_actions_t fa;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, i[0], 0);
	posix_spawn_file_actions_adddup2(&fa, o[1], 1);
	posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
	pid_t pid;
	int rc = posix_spawnp(&pid, argv[0], &fa, NULL, (char *const *)argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	close(i[0]);
	close(o[1]);
	if (rc != 0) {
		close(i[1]);
		close(o[0]);
		return -rc; /* posix_spawnp's errno */
	}
	size_t left = in ? strlen(in) : 0, off = 0;
	if (!left) {
		close(i[1]);
		i[1] = -1;
	}
	char b[4096];
	for (;;) {
		struct pollfd p[2] = {{.fd = o[0], .events = POLLIN}, {.fd = i[1], .events = POLLOUT}};
		if (poll(p, i[1] >= 0 ? 2 : 1, -1) < 0 && errno != EINTR)
			break;
		if (i[1] >= 0 && (p[1].revents & (POLLOUT | POLLERR | POLLHUP))) {
			ssize_t n = write(i[1], in + off, left);
			if (n > 0) {
				off += (size_t)n;
				left -= (size_t)n;
			}
			if (n <= 0 || !left) {
				close(i[1]);
				i[1] = -1;
			}
		}
		if (p[0].revents & (POLLIN | POLLHUP | POLLERR)) {
			ssize_t n = read(o[0], b, sizeof b);
			if (n < 0 && errno == EINTR)
				continue;
			if (n <= 0)
				break;
			buf_append(out, b, (size_t)n);
		}
	}
	if (i[1] >= 0)
		close(i[1]);
	close(o[0]);
	int st;
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	buf_cstr(out);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}
