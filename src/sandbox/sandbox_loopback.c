/* sandbox_loopback.c - a contained server that listens on its own loopback (docs/HTTP.md,
 * "Contained local servers"; docs/THREAT_MODEL.md). Launcher process, single-threaded.
 *
 * In the sandbox's own network namespace (made by the launcher under `deny`), `lo` is down
 * and nothing else exists. launch_loopback brings `lo` up (SIOCSIFFLAGS, with the
 * namespace's CAP_NET_ADMIN, before any confinement) and, when the caller handed a connector
 * socket (--connector-fd), forks the connector: a single-threaded process of the launcher,
 * in that network namespace but outside the server's Landlock domain and seccomp filter
 * (forked before either exists, and before the pid namespace), with no capability left and
 * no_new_privs. Its only work: for each byte belay writes on the connector socket, make a
 * TCP socket in the namespace and send it back with SCM_RIGHTS (or an errno without a
 * descriptor): for 'c', connected to 127.0.0.1:PORT (then [::1]:PORT); for '4' or '6', an
 * inet or inet6 stream socket not yet connected, which belay's HTTP client connects itself
 * (a socket stays in the network namespace it was made in, so that connect reaches the
 * sandbox's loopback, where only the server's port can be listening: libcurl 7.88, Debian
 * 12's, cannot take a socket already connected, curl/curl#10626). It reads nothing but that
 * byte. It ends when belay closes its end, or with the launcher (parent-death signal). */
#include <arpa/inet.h>
#include <errno.h>
#include <linux/capability.h>
#include <net/if.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#include "sandbox/sandbox_launch_internal.h"
#include "sandbox/sandbox_testswitch.h"

static int lo_up(struct launch *l)
{
	int s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (s < 0)
		return launch_refuse(l, "loopback", "cannot make a socket to bring lo up: %s", strerror(errno));
	struct ifreq ifr;
	memset(&ifr, 0, sizeof ifr);
	strncpy(ifr.ifr_name, "lo", IFNAMSIZ - 1);
	int rc = ioctl(s, SIOCGIFFLAGS, &ifr);
	if (rc == 0 && !(ifr.ifr_flags & IFF_UP)) {
		ifr.ifr_flags |= IFF_UP | IFF_RUNNING;
		rc = ioctl(s, SIOCSIFFLAGS, &ifr);
	}
	int en = errno;
	close(s);
	if (rc != 0)
		return launch_refuse(l, "loopback", "cannot bring lo up in the sandbox's network namespace: %s",
				     strerror(en));
	return 0;
}

/* One connected socket to the server's port, or -errno. */
static int connect_port(unsigned port)
{
	struct sockaddr_in in4 = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
	in4.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	struct sockaddr_in6 in6 = {.sin6_family = AF_INET6, .sin6_port = htons((uint16_t)port)};
	in6.sin6_addr = in6addr_loopback;
	int en = ECONNREFUSED;
	for (int i = 0; i < 2; i++) {
		int s = socket(i ? AF_INET6 : AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
		if (s < 0) {
			en = errno;
			continue;
		}
		int rc = i ? connect(s, (struct sockaddr *)&in6, sizeof in6)
			   : connect(s, (struct sockaddr *)&in4, sizeof in4);
		if (rc == 0)
			return s;
		en = errno;
		close(s);
	}
	return -en;
}

static _Noreturn void connector_main(int cfd, unsigned port)
{
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	close_range(0, (unsigned)cfd - 1, 0);
	close_range((unsigned)cfd + 1, ~0U, 0);
	prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
	struct __user_cap_header_struct hdr = {.version = _LINUX_CAPABILITY_VERSION_3, .pid = 0};
	struct __user_cap_data_struct data[2];
	memset(data, 0, sizeof data);
	if (syscall(SYS_capset, &hdr, data) != 0)
		_exit(2);
	for (;;) {
		char c;
		ssize_t r = recv(cfd, &c, 1, 0);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			_exit(0);
		int s = c == 'c'	       ? connect_port(port)
			: c == '4' || c == '6' ? socket(c == '4' ? AF_INET : AF_INET6, SOCK_STREAM | SOCK_CLOEXEC, 0)
					       : -EINVAL;
		if (s == -1 && c != 'c')
			s = -errno;
		int32_t code = s < 0 ? -s : 0;
		struct iovec iov = {&code, sizeof code};
		union {
			struct cmsghdr h;
			char b[CMSG_SPACE(sizeof(int))];
		} u;
		memset(&u, 0, sizeof u);
		struct msghdr m = {.msg_iov = &iov, .msg_iovlen = 1};
		if (s >= 0) {
			m.msg_control = u.b;
			m.msg_controllen = sizeof u.b;
			struct cmsghdr *h = CMSG_FIRSTHDR(&m);
			h->cmsg_level = SOL_SOCKET;
			h->cmsg_type = SCM_RIGHTS;
			h->cmsg_len = CMSG_LEN(sizeof(int));
			memcpy(CMSG_DATA(h), &s, sizeof s);
		}
		ssize_t w = sendmsg(cfd, &m, MSG_NOSIGNAL);
		if (s >= 0)
			close(s);
		if (w < 0)
			_exit(0);
	}
}

int launch_loopback(struct launch *l)
{
	if (!l->loopback_port)
		return 0;
	if (!l->deny)
		return launch_refuse(l, "loopback",
				     "a server listening on the sandbox's loopback needs --network deny "
				     "(under allow its port would be on the host's loopback)");
	int netns = !(l->off & SB_OFF_NETNS);
	if (netns && lo_up(l))
		return 2;
	int connector = l->connector_fd >= 0;
	if (connector) {
		pid_t pid = fork();
		if (pid < 0)
			return launch_refuse(l, "loopback", "cannot start the connector: %s", strerror(errno));
		if (pid == 0)
			connector_main(l->connector_fd, l->loopback_port);
		close(l->connector_fd);
		l->connector_fd = -1;
	}
	buf_printf(&l->layers, "\"loopback\":{\"port\":%u,\"lo_up\":%s,\"connector\":%s},", l->loopback_port,
		   netns ? "true" : "false", connector ? "true" : "false");
	return 0;
}
