/* approvals.c - approval ids, the key, the socket listener and the approve client. */
#include "proxy/approvals.h"

#include <errno.h>
#include <fcntl.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "common/buf.h"
#include "common/err.h"
#include "common/fsutil.h"
#include "common/hash.h"
#include "common/jcs.h"
#include "common/strmap.h"
#include "common/xalloc.h"

struct pending {
	char id[48];
	char call_key[72];
	char tool[128];
	int approved;
	char by[128];
};

struct approvals {
	uv_loop_t *loop;
	uv_pipe_t server;
	char *sock_path;
	uint8_t key[32];
	struct pending *p;
	size_t n, cap;
	char sandbox_userns[64];
	int closing;
};

static int load_key(const char *state_dir, uint8_t key[32], struct err *e)
{
	char *path = fs_join(state_dir, "approval.key");
	int rc = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd >= 0) {
		struct stat st;
		if (fstat(fd, &st) != 0 || st.st_uid != geteuid() || (st.st_mode & 077) || read(fd, key, 32) != 32)
			rc = err_set(e, BELAY_EREFUSED, "refusing %s: it must be a 32-byte file, ours, mode 0600", path);
		close(fd);
	} else if (errno == ENOENT) {
		if (getrandom(key, 32, 0) != 32) {
			rc = err_set(e, -errno, "getrandom: %s", strerror(errno));
		} else {
			fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
			if (fd < 0 || fs_write_all(fd, key, 32) != 0)
				rc = err_set(e, -errno, "cannot create %s: %s", path, strerror(errno));
			if (fd >= 0)
				close(fd);
		}
	} else {
		rc = err_set(e, -errno, "cannot open %s: %s", path, strerror(errno));
	}
	free(path);
	return rc;
}

static void mac_hex(const uint8_t key[32], const char *id, char out[SHA256_HEX_LEN + 1])
{
	uint8_t mac[EVP_MAX_MD_SIZE];
	unsigned int len = 0;
	HMAC(EVP_sha256(), key, 32, (const unsigned char *)id, strlen(id), mac, &len);
	hex_encode(mac, 32, out);
}

void approvals_call_key(const char *tool, const cJSON *arguments, char out[72])
{
	struct buf b = {0};
	buf_puts(&b, tool ? tool : "");
	buf_putc(&b, '\0');
	if (!arguments || jcs_serialize(arguments, &b) != 0)
		buf_puts(&b, "null");
	sha256_tagged(b.p, b.len, out);
	buf_free(&b);
}

/*==== the listener ====*/

struct conn {
	uv_pipe_t pipe;
	struct approvals *a;
	struct buf in;
};

static void conn_closed(uv_handle_t *h)
{
	struct conn *c = h->data;
	buf_free(&c->in);
	free(c);
}

static void write_done(uv_write_t *w, int status)
{
	(void)status;
	free(w->data);
	free(w);
}

static void reply_and_close(struct conn *c, const char *text)
{
	uv_write_t *w = xcalloc(1, sizeof *w);
	char *copy = xstrdup(text);
	w->data = copy;
	uv_buf_t b = uv_buf_init(copy, (unsigned)strlen(copy));
	if (uv_write(w, (uv_stream_t *)&c->pipe, &b, 1, write_done) != 0) {
		free(copy);
		free(w);
	}
	uv_close((uv_handle_t *)&c->pipe, conn_closed);
}

/* The peer must be our user and outside the sandbox. */
static const char *peer_problem(struct conn *c)
{
	int fd;
	if (uv_fileno((uv_handle_t *)&c->pipe, &fd) != 0)
		return "no peer";
	struct ucred cr;
	socklen_t l = sizeof cr;
	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cr, &l) != 0)
		return "cannot identify the peer";
	if (cr.uid != geteuid())
		return "the peer is another user";
	/* Every belay sandbox is a user namespace of its own: a peer that does not share ours
	 * (this sandbox's, or any other's) is not a person at a terminal outside. */
	char link[64], ns[64], self[64];
	snprintf(link, sizeof link, "/proc/%d/ns/user", (int)cr.pid);
	ssize_t n = readlink(link, ns, sizeof ns - 1), m = readlink("/proc/self/ns/user", self, sizeof self - 1);
	if (n < 0 || m < 0)
		return "cannot see the peer's namespaces";
	ns[n] = '\0';
	self[m] = '\0';
	if (c->a->sandbox_userns[0] && !strcmp(ns, c->a->sandbox_userns))
		return "the peer runs inside the sandbox";
	if (strcmp(ns, self))
		return "the peer runs in another user namespace (a sandbox)";
	return NULL;
}

static void conn_read(uv_stream_t *s, ssize_t n, const uv_buf_t *b)
{
	struct conn *c = s->data;
	if (n > 0)
		buf_append(&c->in, b->base, (size_t)n);
	free(b->base);
	char *nl = c->in.p ? memchr(c->in.p, '\n', c->in.len) : NULL;
	if (n < 0 && !nl) {
		uv_close((uv_handle_t *)&c->pipe, conn_closed);
		return;
	}
	if (!nl) {
		if (c->in.len > 512)
			reply_and_close(c, "refused: request too long\n");
		return;
	}
	uv_read_stop(s);
	*nl = '\0';
	char id[48] = "", mac[80] = "";
	const char *problem = peer_problem(c);
	if (problem) {
		char msg[160];
		snprintf(msg, sizeof msg, "refused: %s\n", problem);
		reply_and_close(c, msg);
		return;
	}
	if (sscanf(c->in.p, "%47s %79s", id, mac) != 2) {
		reply_and_close(c, "refused: malformed request\n");
		return;
	}
	char want[SHA256_HEX_LEN + 1];
	mac_hex(c->a->key, id, want);
	if (CRYPTO_memcmp(want, mac, SHA256_HEX_LEN + 1) != 0 || strlen(mac) != SHA256_HEX_LEN) {
		reply_and_close(c, "refused: the approval is not signed with this state directory's key\n");
		return;
	}
	int cpid = 0;
	struct ucred cr;
	socklen_t l = sizeof cr;
	int fd;
	if (uv_fileno((uv_handle_t *)&c->pipe, &fd) == 0 && getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cr, &l) == 0)
		cpid = cr.pid;
	char by[128];
	snprintf(by, sizeof by, "belay approve (pid %d, uid %d)", cpid, (int)geteuid());
	if (approvals_grant(c->a, id, by) != 0) {
		reply_and_close(c, "unknown: no call is waiting for that approval id here\n");
		return;
	}
	reply_and_close(c, "approved\n");
}

static void alloc_cb(uv_handle_t *h, size_t s, uv_buf_t *b)
{
	(void)h;
	(void)s;
	b->base = xmalloc(512);
	b->len = 512;
}

static void on_conn(uv_stream_t *server, int status)
{
	struct approvals *a = server->data;
	if (status < 0)
		return;
	struct conn *c = xcalloc(1, sizeof *c);
	c->a = a;
	uv_pipe_init(a->loop, &c->pipe, 0);
	c->pipe.data = c;
	if (uv_accept(server, (uv_stream_t *)&c->pipe) != 0) {
		uv_close((uv_handle_t *)&c->pipe, conn_closed);
		return;
	}
	uv_read_start((uv_stream_t *)&c->pipe, alloc_cb, conn_read);
}

int approvals_open(uv_loop_t *loop, const char *state_dir, struct approvals **out, struct err *e)
{
	struct approvals *a = xcalloc(1, sizeof *a);
	a->loop = loop;
	int rc = fs_mkdir_p(state_dir, 0700, e);
	if (!rc)
		rc = load_key(state_dir, a->key, e);
	char *dir = fs_join(state_dir, "approvals");
	if (!rc)
		rc = fs_mkdir_p(dir, 0700, e);
	if (rc) {
		free(dir);
		free(a);
		return rc;
	}
	a->sock_path = xasprintf("%s/%d.sock", dir, (int)getpid());
	free(dir);
	unlink(a->sock_path);
	uv_pipe_init(loop, &a->server, 0);
	a->server.data = a;
	mode_t old = umask(0077);
	rc = uv_pipe_bind(&a->server, a->sock_path);
	umask(old);
	if (rc == 0)
		rc = uv_listen((uv_stream_t *)&a->server, 8, on_conn);
	if (rc) {
		err_set(e, rc, "cannot listen on %s: %s", a->sock_path, uv_strerror(rc));
		uv_close((uv_handle_t *)&a->server, NULL);
		free(a->sock_path);
		a->sock_path = NULL;
		a->closing = 1;
		*out = a; /* freed by approvals_close after the loop ran the close */
		return rc;
	}
	*out = a;
	return 0;
}

void approvals_set_sandbox(struct approvals *a, const char *userns)
{
	if (a)
		snprintf(a->sandbox_userns, sizeof a->sandbox_userns, "%s", userns ? userns : "");
}

void approvals_request(struct approvals *a, const char *call_key, const char *tool, char id_out[48])
{
	uint8_t rnd[8];
	char hex[17];
	if (getrandom(rnd, sizeof rnd, 0) != (ssize_t)sizeof rnd)
		FATAL("getrandom failed");
	hex_encode(rnd, sizeof rnd, hex);
	snprintf(id_out, 48, "%d-%s", (int)getpid(), hex);
	if (a->n == a->cap) {
		a->cap = a->cap ? a->cap * 2 : 8;
		a->p = xrealloc(a->p, a->cap * sizeof *a->p);
	}
	struct pending *p = &a->p[a->n++];
	memset(p, 0, sizeof *p);
	snprintf(p->id, sizeof p->id, "%s", id_out);
	snprintf(p->call_key, sizeof p->call_key, "%s", call_key);
	snprintf(p->tool, sizeof p->tool, "%s", tool ? tool : "");
}

int approvals_grant(struct approvals *a, const char *id, const char *by)
{
	for (size_t i = 0; i < a->n; i++)
		if (!strcmp(a->p[i].id, id)) {
			a->p[i].approved = 1;
			snprintf(a->p[i].by, sizeof a->p[i].by, "%s", by);
			return 0;
		}
	return BELAY_ENOTFOUND;
}

int approvals_take(struct approvals *a, const char *call_key, char id_out[48], char by_out[128])
{
	for (size_t i = 0; i < a->n; i++)
		if (a->p[i].approved && !strcmp(a->p[i].call_key, call_key)) {
			snprintf(id_out, 48, "%s", a->p[i].id);
			snprintf(by_out, 128, "%s", a->p[i].by);
			a->p[i] = a->p[--a->n]; /* one shot */
			return 1;
		}
	return 0;
}

int approvals_take_id(struct approvals *a, const char *id, char by_out[128])
{
	for (size_t i = 0; i < a->n; i++)
		if (a->p[i].approved && !strcmp(a->p[i].id, id)) {
			snprintf(by_out, 128, "%s", a->p[i].by);
			a->p[i] = a->p[--a->n]; /* one shot */
			return 1;
		}
	return 0;
}

static void server_closed(uv_handle_t *h)
{
	struct approvals *a = h->data;
	free(a->p);
	free(a);
}

void approvals_close(struct approvals *a)
{
	if (!a)
		return;
	if (a->sock_path) {
		unlink(a->sock_path);
		free(a->sock_path);
		uv_close((uv_handle_t *)&a->server, server_closed);
		return;
	}
	free(a->p);
	free(a);
}

/*==== the approve client ====*/

int approvals_send(const char *state_dir, const char *id, char *reply, size_t n, struct err *e)
{
	int pid = 0;
	char hex[32];
	if (sscanf(id, "%d-%16[0-9a-f]", &pid, hex) != 2 || pid <= 0 || strlen(hex) != 16)
		return err_set(e, BELAY_EUSAGE, "'%s' is not an approval id (expected PID-16HEX)", id);
	uint8_t key[32];
	int rc = load_key(state_dir, key, e);
	if (rc)
		return rc;
	char mac[SHA256_HEX_LEN + 1];
	mac_hex(key, id, mac);
	char *path = xasprintf("%s/approvals/%d.sock", state_dir, pid);
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	struct sockaddr_un a = {.sun_family = AF_UNIX};
	snprintf(a.sun_path, sizeof a.sun_path, "%s", path);
	if (connect(fd, (void *)&a, sizeof a) != 0) {
		rc = err_set(e, BELAY_ENOTFOUND, "no belay proxy %d is waiting for approvals (%s: %s)", pid, path,
			     strerror(errno));
		close(fd);
		free(path);
		return rc;
	}
	char line[160];
	int len = snprintf(line, sizeof line, "%s %s\n", id, mac);
	if (fs_write_all(fd, line, (size_t)len) != 0) {
		close(fd);
		free(path);
		return err_set(e, -EIO, "cannot send the approval");
	}
	ssize_t got = read(fd, reply, n - 1);
	close(fd);
	free(path);
	reply[got > 0 ? got : 0] = '\0';
	reply[strcspn(reply, "\n")] = '\0';
	if (!strncmp(reply, "approved", 8))
		return 0;
	if (!strncmp(reply, "unknown", 7))
		return err_set(e, BELAY_ENOTFOUND, "%s", reply);
	return err_set(e, BELAY_EREFUSED, "%s", reply[0] ? reply : "the proxy gave no answer");
}
