/* sandbox_net.c - the supervisor's decisions on sockets (supervisor thread).
 *
 * socket() and socketpair(): under --network deny only unix stream and seqpacket sockets
 * and netlink route queries (in the sandbox's own network namespace) are made; datagram
 * unix sockets are refused too, because a datagram send picks its destination per message
 * from memory the server can change after the supervisor has read it. Under allow, inet
 * sockets (not raw ones) and unix sockets of any type; every other family is refused. A
 * server given a loopback port (sandbox_loopback.c) may also make inet and inet6 stream
 * sockets under deny, and bind them to that one port on a loopback or wildcard address of
 * the sandbox's own network namespace; any other bind, and every inet connect, is refused
 * and named as under deny.
 *
 * connect() on a unix socket is never let through on the strength of what the supervisor
 * read: it reads the address once, resolves it in the server's view, and if the socket is
 * one the server may reach (inside a writable zone, or a listening abstract name of the
 * sandbox's own network namespace) performs the connect itself, on the server's own socket
 * (taken with pidfd_getfd), to the very inode it resolved (opened beneath the zone with
 * RESOLVE_BENEATH). Anything else is refused and named. With no datagram sockets, the
 * address of a send on the sockets that remain is ignored or an error, so sendto, sendmsg
 * and sendmmsg are checked (every element) and named, and let through when inside. */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/netlink.h>
#include <linux/openat2.h>
#include <netinet/in.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <unistd.h>

#include "common/jsonx.h"
#include "sandbox/sandbox_resolve.h"
#include "sandbox/sandbox_supervisor_internal.h"

#define A(i) (c->req->data.args[i])
#define I32(i) ((int)(int32_t)(uint32_t)c->req->data.args[i])
#ifndef UIO_MAXIOV
#define UIO_MAXIOV 1024
#endif

static const char *family_name(int d, char *buf, size_t n)
{
	static const struct {
		int af;
		const char *name;
	} names[] = {{AF_UNIX, "unix"},       {AF_INET, "inet"},     {AF_INET6, "inet6"}, {AF_NETLINK, "netlink"},
		     {AF_PACKET, "packet"},   {AF_VSOCK, "vsock"},   {AF_BLUETOOTH, "bluetooth"}, {AF_ALG, "alg"},
		     {AF_CAN, "can"},         {AF_TIPC, "tipc"},     {AF_RDS, "rds"},     {AF_KCM, "kcm"},
		     {AF_XDP, "xdp"},         {AF_QIPCRTR, "qipcrtr"}, {AF_SMC, "smc"},   {AF_APPLETALK, "appletalk"},
		     {AF_AX25, "ax25"},       {AF_X25, "x25"},       {AF_IPX, "ipx"},     {AF_KEY, "key"},
		     {AF_LLC, "llc"},         {AF_IB, "ib"},         {AF_MPLS, "mpls"},   {AF_NFC, "nfc"},
		     {AF_IEEE802154, "ieee802154"}, {AF_CAIF, "caif"}, {AF_PPPOX, "pppox"}};
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
		if (names[i].af == d)
			return names[i].name;
	snprintf(buf, n, "family-%d", d);
	return buf;
}

static const char *type_name(int t)
{
	switch (t) {
	case SOCK_STREAM: return "stream";
	case SOCK_DGRAM: return "dgram";
	case SOCK_RAW: return "raw";
	case SOCK_RDM: return "rdm";
	case SOCK_SEQPACKET: return "seqpacket";
	case SOCK_PACKET: return "packet";
	default: return "other";
	}
}

/*==== socket(), socketpair() ====*/

static int family_allowed(const struct call *c, int d, int t, int proto, int pair)
{
	if (d == AF_UNIX)
		return !c->s->o.deny_network || t == SOCK_STREAM || t == SOCK_SEQPACKET;
	if (pair)
		return 0;
	if (d == AF_NETLINK)
		return proto == NETLINK_ROUTE; /* addresses and routes of the (sandbox's) network stack */
	if (d == AF_INET || d == AF_INET6)
		return c->s->o.deny_network ? c->s->o.loopback_port && t == SOCK_STREAM && (proto == 0 || proto == 6)
					    : t != SOCK_RAW && t != SOCK_PACKET;
	return 0;
}

static int decide_family(struct call *c, int pair)
{
	int d = I32(0), t = I32(1) & 0xf, proto = I32(2);
	if (family_allowed(c, d, t, proto, pair))
		return A_CONTINUE;
	char buf[32];
	const char *reason = d == AF_UNIX ? "datagram_unix" : (d == AF_INET || d == AF_INET6) && c->s->o.deny_network
								? "network_denied" : "family_denied";
	cJSON *rec = sb_denial(c, reason);
	cJSON_AddStringToObject(rec, "family", family_name(d, buf, sizeof buf));
	cJSON_AddStringToObject(rec, "type", type_name(t));
	cJSON_AddNumberToObject(rec, "protocol", proto);
	c->err = EACCES;
	return A_REFUSE;
}

static int d_socket(struct call *c)
{
	return decide_family(c, 0);
}

static int d_socketpair(struct call *c)
{
	return decide_family(c, 1);
}

/*==== addresses ====*/

enum akind { AK_NONE, AK_PATH, AK_ABSTRACT, AK_INET, AK_OTHER };

struct addr {
	struct sockaddr_storage ss;
	socklen_t len;
	enum akind kind;
	const char *family;
	char text[PATH_MAX + 16];
};

/* Reads a socket address once: 0, or -1 when it cannot be read. */
static int read_addr(struct call *c, uint64_t ptr, uint64_t len, struct addr *a)
{
	memset(a, 0, sizeof *a);
	a->family = "other";
	if (ptr == 0 || len == 0) {
		a->kind = AK_NONE;
		return 0;
	}
	a->len = (socklen_t)(len > sizeof a->ss ? sizeof a->ss : len);
	if (sb_read_mem(c->req->pid, ptr, &a->ss, a->len) != 0)
		return -1;
	a->kind = AK_OTHER;
	if (a->ss.ss_family == AF_INET && a->len >= sizeof(struct sockaddr_in)) {
		const struct sockaddr_in *in = (const void *)&a->ss;
		char t[INET_ADDRSTRLEN];
		inet_ntop(AF_INET, &in->sin_addr, t, sizeof t);
		snprintf(a->text, sizeof a->text, "%s:%u", t, ntohs(in->sin_port));
		a->kind = AK_INET;
		a->family = "inet";
	} else if (a->ss.ss_family == AF_INET6 && a->len >= sizeof(struct sockaddr_in6)) {
		const struct sockaddr_in6 *in6 = (const void *)&a->ss;
		char t[INET6_ADDRSTRLEN];
		inet_ntop(AF_INET6, &in6->sin6_addr, t, sizeof t);
		snprintf(a->text, sizeof a->text, "[%s]:%u", t, ntohs(in6->sin6_port));
		a->kind = AK_INET;
		a->family = "inet6";
	} else if (a->ss.ss_family == AF_UNIX) {
		const struct sockaddr_un *un = (const void *)&a->ss;
		size_t plen = a->len > offsetof(struct sockaddr_un, sun_path) ? a->len - offsetof(struct sockaddr_un, sun_path) : 0;
		if (plen > 0 && un->sun_path[0] == '\0') {
			snprintf(a->text, sizeof a->text, "@%.*s", (int)(plen - 1), un->sun_path + 1);
			a->kind = AK_ABSTRACT;
			a->family = "unix-abstract";
		} else if (plen > 0) {
			snprintf(a->text, sizeof a->text, "%.*s", (int)strnlen(un->sun_path, plen), un->sun_path);
			a->kind = a->text[0] ? AK_PATH : AK_OTHER;
			a->family = "unix";
		}
	}
	return 0;
}

/* 1 if an abstract unix socket called `name` ("@...") listens in pid's network namespace. */
static int abstract_listening(pid_t pid, const char *name)
{
	char path[64], line[512];
	snprintf(path, sizeof path, "/proc/%d/net/unix", (int)pid);
	FILE *f = fopen(path, "re");
	if (!f)
		return 0;
	int found = 0;
	size_t nl = strlen(name);
	while (!found && fgets(line, sizeof line, f)) {
		line[strcspn(line, "\n")] = '\0';
		size_t ll = strlen(line);
		/* The path is the last column. */
		if (ll > nl && strcmp(line + ll - nl, name) == 0 && line[ll - nl - 1] == ' ')
			found = 1;
	}
	fclose(f);
	return found;
}

static cJSON *addr_denial(struct call *c, const char *reason, const struct addr *a, const char *resolved, int index)
{
	cJSON *rec = index < 0 ? sb_denial(c, reason) : sb_another_denial(c, reason);
	cJSON_AddStringToObject(rec, "family", a->family);
	cJSON_AddStringToObject(rec, "address", resolved ? resolved : a->text);
	if (resolved && strcmp(resolved, a->text))
		cJSON_AddItemToObject(rec, "address_as_given", jx_bytes(a->text, strlen(a->text)));
	if (index >= 0)
		cJSON_AddNumberToObject(rec, "index", index);
	return rec;
}

/* Where a pathname address points in the server's view: SB_PATH with res filled, else a
 * refusal was recorded (the answer in *ans). */
static int resolve_addr(struct call *c, const struct addr *a, int follow, char *res, size_t n, int index, int *ans)
{
	enum sb_resolved k = sandbox_resolve(c->req->pid, c->s->root_fd, AT_FDCWD, a->text, follow, 0, res, n);
	if (k == SB_PATH)
		return 0;
	addr_denial(c, "unresolved", a, NULL, index);
	c->err = EACCES;
	*ans = A_REFUSE;
	return -1;
}

/* A socket in a hidden location: not there for the server (ENOENT). Named when it is
 * really there on the host, except the name-service cache, which libc asks on its own for
 * every user or host lookup (on hosts that run nscd: naming it would name every `ls -l`). */
static int hidden_socket(struct call *c, const struct addr *a, const char *res, int index)
{
	c->err = ENOENT;
	if (!sb_hides(c, SB_ZONE_HIDDEN, res) || !strcmp(res, "/run/nscd/socket")) {
		c->val = 0;
		return A_REPLY;
	}
	addr_denial(c, "hidden", a, res, index);
	return A_REFUSE;
}

/* The destination of a send (sendto, or one element of sendmsg/sendmmsg). */
static int check_dest(struct call *c, const struct addr *a, int index)
{
	int deny = c->s->o.deny_network, ans = A_CONTINUE;
	char res[PATH_MAX];
	switch (a->kind) {
	case AK_PATH: {
		if (resolve_addr(c, a, 1, res, sizeof res, index, &ans))
			return ans;
		enum sb_zone z = sb_zone_of(c, res, NULL);
		if (z == SB_ZONE_RW)
			return A_CONTINUE;
		if (z == SB_ZONE_HIDDEN || z == SB_ZONE_HIDDEN_FILE)
			return hidden_socket(c, a, res, index);
		if (!deny) {
			sb_attempt(c, a->family, res);
			return A_CONTINUE;
		}
		addr_denial(c, "outside_scope", a, res, index);
		c->err = EACCES;
		return A_REFUSE;
	}
	case AK_ABSTRACT:
		if (deny && c->s->private_netns && abstract_listening(c->req->pid, a->text))
			return A_CONTINUE;
		addr_denial(c, deny ? "not_listening_in_sandbox" : "abstract_socket", a, NULL, index);
		c->err = deny ? ECONNREFUSED : EPERM;
		return A_REFUSE;
	case AK_INET:
		if (!deny) {
			sb_attempt(c, a->family, a->text);
			return A_CONTINUE;
		}
		addr_denial(c, "network_denied", a, NULL, index);
		c->err = EACCES;
		return A_REFUSE;
	default:
		return A_CONTINUE; /* no address, or one the kernel refuses itself */
	}
}

static int d_sendto(struct call *c)
{
	struct addr a;
	if (read_addr(c, A(4), A(5), &a) != 0)
		return sb_refuse(c, EFAULT, "unreadable");
	return check_dest(c, &a, -1);
}

static int d_sendmsg(struct call *c)
{
	struct msghdr mh;
	struct addr a;
	if (sb_read_mem(c->req->pid, A(1), &mh, sizeof mh) != 0 ||
	    read_addr(c, (uint64_t)(uintptr_t)mh.msg_name, mh.msg_namelen, &a) != 0)
		return sb_refuse(c, EFAULT, "unreadable");
	return check_dest(c, &a, -1);
}

static int d_sendmmsg(struct call *c)
{
	/* The kernel sends at most UIO_MAXIOV messages of a vector: every one is checked. */
	unsigned vlen = (unsigned)A(2) > UIO_MAXIOV ? UIO_MAXIOV : (unsigned)A(2);
	if (vlen == 0)
		return A_CONTINUE;
	static __thread struct mmsghdr v[UIO_MAXIOV];
	if (sb_read_mem(c->req->pid, A(1), v, vlen * sizeof *v) != 0)
		return sb_refuse(c, EFAULT, "unreadable");
	int refused = 0, err = 0;
	for (unsigned i = 0; i < vlen; i++) {
		struct addr a;
		if (read_addr(c, (uint64_t)(uintptr_t)v[i].msg_hdr.msg_name, v[i].msg_hdr.msg_namelen, &a) != 0) {
			cJSON_AddNumberToObject(sb_another_denial(c, "unreadable"), "index", i);
			c->err = EFAULT;
		} else if (check_dest(c, &a, (int)i) != A_REFUSE) {
			continue;
		}
		if (!refused)
			err = c->err;
		refused++;
	}
	if (!refused)
		return A_CONTINUE;
	c->err = err;
	return A_REFUSE;
}

/*==== bind ====*/

/* The server's own loopback port, on a loopback or wildcard address (its network namespace
 * has nothing but lo). */
static int loopback_bind(const struct call *c, const struct addr *a)
{
	unsigned port = c->s->o.loopback_port;
	if (!port)
		return 0;
	if (a->ss.ss_family == AF_INET) {
		const struct sockaddr_in *in = (const void *)&a->ss;
		uint32_t ip = ntohl(in->sin_addr.s_addr);
		return ntohs(in->sin_port) == port && (ip == INADDR_ANY || (ip >> 24) == 127);
	}
	const struct sockaddr_in6 *in6 = (const void *)&a->ss;
	return ntohs(in6->sin6_port) == port &&
	       (IN6_IS_ADDR_UNSPECIFIED(&in6->sin6_addr) || IN6_IS_ADDR_LOOPBACK(&in6->sin6_addr));
}

static int d_bind(struct call *c)
{
	struct addr a;
	if (read_addr(c, A(1), A(2), &a) != 0)
		return sb_refuse(c, EFAULT, "unreadable");
	char res[PATH_MAX];
	int ans = A_CONTINUE;
	if (a.kind == AK_PATH) {
		/* Binding creates the socket file. */
		if (resolve_addr(c, &a, 0, res, sizeof res, -1, &ans))
			return ans;
		enum sb_zone z = sb_zone_of(c, res, NULL);
		if (z == SB_ZONE_RW) {
			sb_note_write(c, "path", res);
			return A_CONTINUE;
		}
		int hidden = z == SB_ZONE_HIDDEN || z == SB_ZONE_HIDDEN_FILE;
		addr_denial(c, hidden ? "hidden" : "outside_scope", &a, res, -1);
		c->err = hidden ? ENOENT : EACCES;
		return A_REFUSE;
	}
	if (a.kind == AK_INET && c->s->o.deny_network) {
		if (loopback_bind(c, &a))
			return A_CONTINUE;
		addr_denial(c, "network_denied", &a, NULL, -1);
		c->err = EACCES;
		return A_REFUSE;
	}
	return A_CONTINUE; /* abstract names: the sandbox's own (network namespace, Landlock) */
}

/*==== connect ====*/

/* connect() on the server's own socket, here; the socket's wait for a full listener
 * backlog is bounded (2 s), since this thread answers every other call too. */
static int perform_connect(struct call *c, int sock, const void *sa, socklen_t len)
{
	int fl = fcntl(sock, F_GETFL);
	struct timeval old, bound = {2, 0};
	socklen_t ol = sizeof old;
	int bounded = fl >= 0 && !(fl & O_NONBLOCK) && getsockopt(sock, SOL_SOCKET, SO_SNDTIMEO, &old, &ol) == 0 &&
		      ((old.tv_sec == 0 && old.tv_usec == 0) || old.tv_sec >= 2) &&
		      setsockopt(sock, SOL_SOCKET, SO_SNDTIMEO, &bound, sizeof bound) == 0;
	int rc = connect(sock, sa, len);
	c->err = rc == 0 ? 0 : errno;
	c->val = 0;
	if (bounded)
		setsockopt(sock, SOL_SOCKET, SO_SNDTIMEO, &old, sizeof old);
	return A_REPLY;
}

/* A pathname socket inside a writable zone: opened beneath the zone (a symlink swapped in
 * since the resolution cannot lead out of it), then connected through its fd. */
static int connect_beneath(struct call *c, int sock, const struct addr *a, const char *res)
{
	const char *at = NULL;
	sb_zone_of(c, res, &at);
	int root = -1;
	for (size_t i = 0; at && i < c->s->view.n; i++)
		if (c->s->view.z[i].path == at)
			root = c->s->zone_fd[i];
	if (root < 0) {
		addr_denial(c, "unresolved", a, res, -1);
		c->err = EACCES;
		return A_REFUSE;
	}
	const char *rel = res + strlen(at);
	while (*rel == '/')
		rel++;
	struct open_how how = {.flags = O_PATH | O_CLOEXEC | O_NOFOLLOW, .resolve = RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS};
	int fd = (int)syscall(SYS_openat2, root, *rel ? rel : ".", &how, sizeof how);
	if (fd < 0) {
		if (errno == EXDEV || errno == ELOOP) {
			addr_denial(c, "unresolved", a, res, -1);
			c->err = EACCES;
			return A_REFUSE;
		}
		c->err = errno; /* ENOENT, ENOTDIR...: what the kernel would have said */
		c->val = 0;
		return A_REPLY;
	}
	struct sockaddr_un un = {.sun_family = AF_UNIX};
	snprintf(un.sun_path, sizeof un.sun_path, "/proc/self/fd/%d", fd);
	int rc = perform_connect(c, sock, &un, sizeof un);
	close(fd);
	return rc;
}

static int connect_unix(struct call *c, int sock, const struct addr *a)
{
	int deny = c->s->o.deny_network, ans = A_CONTINUE;
	char res[PATH_MAX];
	switch (a->kind) {
	case AK_PATH: {
		if (resolve_addr(c, a, 1, res, sizeof res, -1, &ans))
			return ans;
		enum sb_zone z = sb_zone_of(c, res, NULL);
		if (z == SB_ZONE_RW)
			return connect_beneath(c, sock, a, res);
		if (z == SB_ZONE_HIDDEN || z == SB_ZONE_HIDDEN_FILE)
			return hidden_socket(c, a, res, -1);
		if (!deny) {
			/* Allowed anyway: the kernel connects, as the server (its own credentials). */
			sb_attempt(c, a->family, res);
			return A_CONTINUE;
		}
		addr_denial(c, "outside_scope", a, res, -1);
		c->err = EACCES;
		return A_REFUSE;
	}
	case AK_ABSTRACT:
		/* Under deny the network namespace keeps the abstract namespace private to the
		 * sandbox: a name listening there belongs to the sandbox and may be reached (the
		 * socket looks names up in its own namespace, so connecting it here is the same);
		 * any other name is the host's (or nobody's) and the kernel would answer
		 * ECONNREFUSED, which we answer too, naming the attempt. Under allow only
		 * Landlock's scope separates the two, so every connect is refused by name. */
		if (deny && c->s->private_netns && abstract_listening(c->req->pid, a->text))
			return perform_connect(c, sock, &a->ss, a->len);
		addr_denial(c, deny ? "not_listening_in_sandbox" : "abstract_socket", a, NULL, -1);
		c->err = deny ? ECONNREFUSED : EPERM;
		return A_REFUSE;
	default:
		/* Any other address on a unix socket: the kernel judges our copy of it. */
		return perform_connect(c, sock, &a->ss, a->len);
	}
}

static int d_connect(struct call *c)
{
	int deny = c->s->o.deny_network;
	int sock = sb_take_fd(c, I32(0));
	if (sock < 0) {
		if (sock == -EBADF) {
			c->err = EBADF;
			return A_REPLY;
		}
		return sb_refuse(c, EACCES, "cannot_inspect_socket");
	}
	int domain = -1, rc;
	socklen_t dl = sizeof domain;
	struct addr a;
	if (getsockopt(sock, SOL_SOCKET, SO_DOMAIN, &domain, &dl) != 0) {
		c->err = errno; /* ENOTSOCK */
		rc = A_REPLY;
	} else if (read_addr(c, A(1), A(2), &a) != 0) {
		rc = sb_refuse(c, EFAULT, "unreadable");
	} else if (A(2) > sizeof a.ss) {
		c->err = EINVAL;
		rc = A_REPLY;
	} else if (domain == AF_UNIX) {
		rc = connect_unix(c, sock, &a);
	} else if (domain == AF_INET || domain == AF_INET6) {
		if (!deny) {
			if (a.kind == AK_INET)
				sb_attempt(c, a.family, a.text);
			rc = A_CONTINUE;
		} else {
			addr_denial(c, "network_denied", &a, NULL, -1);
			c->err = EACCES;
			rc = A_REFUSE;
		}
	} else if (deny) {
		/* Under deny nothing but a unix socket connects: an fd swapped between our look
		 * and the kernel's could otherwise turn into one. */
		char buf[32];
		cJSON_AddStringToObject(sb_denial(c, "family_denied"), "family", family_name(domain, buf, sizeof buf));
		c->err = EACCES;
		rc = A_REFUSE;
	} else {
		rc = A_CONTINUE;
	}
	close(sock);
	return rc;
}

void sb_net_register(struct sandbox_supervisor *s)
{
	sb_register(s, "socket", d_socket);
	sb_register(s, "socketpair", d_socketpair);
	sb_register(s, "connect", d_connect);
	sb_register(s, "bind", d_bind);
	sb_register(s, "sendto", d_sendto);
	sb_register(s, "sendmsg", d_sendmsg);
	sb_register(s, "sendmmsg", d_sendmmsg);
}
