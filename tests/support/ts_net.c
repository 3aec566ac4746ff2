/* ts_net.c - loopback ports and started processes for tests (ts_net.h). */
#include "ts_net.h"

#include <arpa/inet.h>
#include <criterion/criterion.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

unsigned ts_free_port(void)
{
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	socklen_t n = sizeof a;
	cr_assert_eq(bind(fd, (struct sockaddr *)&a, sizeof a), 0);
	cr_assert_eq(getsockname(fd, (struct sockaddr *)&a, &n), 0);
	close(fd);
	return ntohs(a.sin_port);
}

int ts_try_connect(unsigned port)
{
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port),
				.sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	if (connect(fd, (struct sockaddr *)&a, sizeof a) == 0)
		return fd;
	close(fd);
	return -1;
}

void ts_wait_listening(unsigned port, int seconds)
{
	time_t until = time(NULL) + seconds;
	for (;;) {
		int fd = ts_try_connect(port);
		if (fd >= 0) {
			close(fd);
			return;
		}
		cr_assert(time(NULL) < until, "nothing listens on %u", port);
		poll(NULL, 0, 50);
	}
}

static pid_t started[32];

void ts_track(pid_t pid)
{
	for (int i = 0; i < 32; i++)
		if (!started[i]) {
			started[i] = pid;
			return;
		}
}

void ts_untrack(pid_t pid)
{
	for (int i = 0; i < 32; i++)
		if (started[i] == pid)
			started[i] = 0;
}

void ts_reap_tracked(void)
{
	for (int i = 0; i < 32; i++)
		if (started[i] > 0) {
			kill(started[i], SIGKILL);
			waitpid(started[i], NULL, 0);
			started[i] = 0;
		}
}
