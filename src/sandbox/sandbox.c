/* sandbox.c - the contained-server spec (scope, private temp dir, network policy) and how
 * a session spawns through the launcher. Loop thread. See sandbox.h and sandbox_launch.c. */
#include "sandbox/sandbox.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include "common/fsutil.h"
#include "common/hash.h"
#include "common/xalloc.h"
#include "sandbox/sandbox_conceal.h"

struct sandbox_spawn {
	int parent_sock, child_sock;
	char *scope, *tmp, *hide, *cache;
	char *ov_lower, *ov_upper, *ov_work; /* the trial overlay, or NULL */
	char **expose; /* NULL-terminated copies */
	char **pin;    /* read-only paths inside the scope (NULL-terminated copies) */
	int deny;
	unsigned loopback_port;
	int conn_parent, conn_child; /* the connector socket's ends, or -1 */
};

static char **strv_dup(char *const *v)
{
	size_t n = 0;
	while (v && v[n])
		n++;
	char **out = xcalloc(n + 1, sizeof *out);
	for (size_t i = 0; i < n; i++)
		out[i] = xstrdup(v[i]);
	return out;
}

static void strv_free(char **v)
{
	for (char **p = v; p && *p; p++)
		free(*p);
	free(v);
}

int sandbox_parse_network(const char *s, enum sandbox_network *out, struct err *e)
{
	if (!strcmp(s, "deny") || !strcmp(s, "deny-all"))
		*out = SANDBOX_NET_DENY;
	else if (!strcmp(s, "allow") || !strcmp(s, "allow-all"))
		*out = SANDBOX_NET_ALLOW;
	else
		return err_set(e, BELAY_EUSAGE, "unknown network policy '%s' (use deny or allow)", s);
	return 0;
}

/* The private temp dir: <tmp>/belay-tmp-<16 hex of sha256(scope)>, 0700, ours, not a link. */
static int prepare_tmpdir(const char *scope, char **out, int *lock, struct err *e)
{
	uint8_t d[SHA256_LEN];
	char hex[SHA256_HEX_LEN + 1];
	sha256(scope, strlen(scope), d);
	hex_encode(d, 8, hex);
	const char *base = getenv("BELAY_SANDBOX_TMP_BASE");
	if (!base || !*base)
		base = "/tmp";
	char *rbase = realpath(base, NULL);
	if (!rbase)
		return err_set(e, -errno, "temp base %s: %s", base, strerror(errno));
	char *path = xasprintf("%s/belay-tmp-%s", rbase, hex);
	free(rbase);
	/* Several runs of one scope share the dir; each holds a shared flock on it, and the last
	 * one out removes it when empty (under an exclusive lock). A dir removed between our
	 * mkdir and our lock is made again. */
	int fd = -1;
	struct stat st, ps;
	for (int tries = 0; tries < 5 && fd < 0; tries++) {
		if (mkdir(path, 0700) != 0 && errno != EEXIST) {
			int rc = err_set(e, -errno, "cannot create the sandbox temp dir %s: %s", path, strerror(errno));
			free(path);
			return rc;
		}
		fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0 && errno == ENOENT)
			continue;
		if (fd < 0 || flock(fd, LOCK_SH) != 0 || fstat(fd, &st) != 0) {
			if (fd >= 0)
				close(fd);
			fd = -1;
			break; /* refused below */
		}
		if (lstat(path, &ps) != 0 || ps.st_ino != st.st_ino || ps.st_dev != st.st_dev) {
			close(fd);
			fd = -1;
		}
	}
	if (fd < 0 || !S_ISDIR(st.st_mode) || st.st_uid != geteuid()) {
		int rc = err_set(e, BELAY_EREFUSED,
				 "refusing the sandbox temp dir %s: it is not a real directory owned by us", path);
		if (fd >= 0)
			close(fd);
		free(path);
		return rc;
	}
	if ((st.st_mode & 07777) != 0700) {
		int rc = err_set(e, BELAY_EREFUSED, "refusing the sandbox temp dir %s: mode %04o, not 0700", path,
				 (unsigned)(st.st_mode & 07777));
		close(fd);
		free(path);
		return rc;
	}
	*lock = fd + 1;
	*out = path;
	return 0;
}

int sandbox_spec_init(struct sandbox_spec *sp, const char *scope, enum sandbox_network net, struct err *e)
{
	memset(sp, 0, sizeof *sp);
	char *real = realpath(scope, NULL);
	if (!real)
		return err_set(e, -errno, "scope %s: %s", scope, strerror(errno));
	struct stat st;
	if (stat(real, &st) != 0 || !S_ISDIR(st.st_mode)) {
		free(real);
		return err_set(e, BELAY_EINVAL, "scope %s is not a directory", scope);
	}
	if (strcmp(real, "/") == 0) {
		free(real);
		return err_set(e, BELAY_EREFUSED, "refusing / as a scope (it would make everything writable)");
	}
	int rc = prepare_tmpdir(real, &sp->tmpdir, &sp->tmp_lock, e);
	if (rc) {
		free(real);
		return rc;
	}
	sp->scope = real;
	sp->network = net;
	return 0;
}

int sandbox_spec_init_tmp(struct sandbox_spec *sp, const char *scope, const char *tmpdir, enum sandbox_network net,
			  struct err *e)
{
	memset(sp, 0, sizeof *sp);
	char *real = realpath(scope, NULL), *rtmp = realpath(tmpdir, NULL);
	struct stat st;
	int rc = 0;
	if (!real || !rtmp)
		rc = err_set(e, -errno, "scope %s or temp dir %s: %s", scope, tmpdir, strerror(errno));
	else if (lstat(rtmp, &st) != 0 || !S_ISDIR(st.st_mode) || st.st_uid != geteuid() || (st.st_mode & 07777) != 0700)
		rc = err_set(e, BELAY_EREFUSED, "refusing the temp dir %s: not a 0700 directory owned by us", rtmp);
	else if (fs_is_under(rtmp, real))
		rc = err_set(e, BELAY_EREFUSED, "the temp dir %s lies inside the scope %s", rtmp, real);
	if (rc) {
		free(real);
		free(rtmp);
		return rc;
	}
	sp->scope = real;
	sp->tmpdir = rtmp;
	sp->network = net;
	return 0;
}

void sandbox_spec_done(struct sandbox_spec *sp)
{
	if (sp->tmp_lock) {
		int fd = sp->tmp_lock - 1;
		if (sp->tmpdir && flock(fd, LOCK_EX | LOCK_NB) == 0)
			rmdir(sp->tmpdir); /* the last user: gone if empty, kept (with its files) if not */
		close(fd);
	}
	free(sp->scope);
	free(sp->tmpdir);
	free(sp->hide);
	strv_free(sp->expose);
	strv_free(sp->pin);
	free(sp->cache);
	free(sp->overlay_lower);
	free(sp->overlay_upper);
	free(sp->overlay_work);
	memset(sp, 0, sizeof *sp);
}

/* overlayfs takes its layers as one option string: ',' ':' '\\' and '=' in a path would be
 * read as separators (refused rather than escaped). */
static int overlay_dir(const char *what, const char *path, char **out, struct err *e)
{
	char *real = realpath(path, NULL);
	struct stat st;
	if (!real || stat(real, &st) != 0 || !S_ISDIR(st.st_mode)) {
		free(real);
		return err_set(e, BELAY_EINVAL, "the overlay's %s %s is not a directory", what, path);
	}
	if (strpbrk(real, ",:\\=")) {
		int rc = err_set(e, BELAY_EREFUSED, "the overlay's %s %s has a ',', ':', '=' or '\\' in its path", what, real);
		free(real);
		return rc;
	}
	*out = real;
	return 0;
}

int sandbox_spec_overlay(struct sandbox_spec *sp, const char *lower, const char *upper, const char *work, struct err *e)
{
	char *lo = NULL, *up = NULL, *wk = NULL;
	int rc = overlay_dir("lower layer", lower ? lower : sp->scope, &lo, e);
	if (rc == 0)
		rc = overlay_dir("upper layer", upper, &up, e);
	if (rc == 0)
		rc = overlay_dir("work dir", work, &wk, e);
	if (rc == 0 && (fs_is_under(up, sp->scope) || fs_is_under(wk, sp->scope) || fs_is_under(sp->scope, up)))
		rc = err_set(e, BELAY_EREFUSED, "the overlay's upper layer %s overlaps the scope %s", up, sp->scope);
	if (rc) {
		free(lo);
		free(up);
		free(wk);
		return rc;
	}
	free(sp->overlay_lower);
	free(sp->overlay_upper);
	free(sp->overlay_work);
	sp->overlay_lower = lo;
	sp->overlay_upper = up;
	sp->overlay_work = wk;
	return 0;
}

int sandbox_spec_expose(struct sandbox_spec *sp, const char *path, struct err *e)
{
	char *real = realpath(path, NULL);
	if (!real)
		return err_set(e, BELAY_ENOTFOUND, "--expose %s: %s", path, strerror(errno));
	if (!strcmp(real, "/")) {
		free(real);
		return err_set(e, BELAY_EUSAGE, "--expose / would undo every hidden location; name one");
	}
	size_t n = 0;
	while (sp->expose && sp->expose[n])
		n++;
	sp->expose = xrealloc(sp->expose, (n + 2) * sizeof *sp->expose);
	sp->expose[n] = real;
	sp->expose[n + 1] = NULL;
	return 0;
}

int sandbox_spec_pin(struct sandbox_spec *sp, const char *path, struct err *e)
{
	char *real = realpath(path, NULL);
	if (!real)
		return err_set(e, BELAY_ENOTFOUND, "cannot keep %s read-only: %s", path, strerror(errno));
	if (!fs_is_under(real, sp->scope) || !strcmp(real, sp->scope)) {
		/* outside the scope: read-only to the sandbox anyway; the scope itself: not a pin */
		free(real);
		return 0;
	}
	size_t n = 0;
	while (sp->pin && sp->pin[n])
		n++;
	sp->pin = xrealloc(sp->pin, (n + 2) * sizeof *sp->pin);
	sp->pin[n] = real;
	sp->pin[n + 1] = NULL;
	return 0;
}

/* The belay-launch executable next to `launcher` (the belay binary) when there is one: the
 * same launcher code without belay's libraries to load. Else belay itself. New string. */
static char *launcher_exe(const char *launcher)
{
	const char *slash = strrchr(launcher, '/');
	if (slash) {
		char *cand = xasprintf("%.*s/belay-launch", (int)(slash - launcher), launcher);
		struct stat sb;
		if (stat(cand, &sb) == 0 && S_ISREG(sb.st_mode) && access(cand, X_OK) == 0)
			return cand;
		free(cand);
	}
	return xstrdup(launcher);
}

/* The server's environment into a sealed memfd, sent on the channel (SCM_RIGHTS) for the
 * launcher to read first: NAME=VALUE entries, each ended by a NUL. */
static int send_env(int sock, char *const *env, struct err *e)
{
	int fd = memfd_create("belay-server-env", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	if (fd < 0)
		return err_set(e, -errno, "cannot hand the server its environment: memfd_create: %s", strerror(errno));
	int rc = 0;
	for (char *const *p = env; rc == 0 && *p; p++)
		if (fs_write_all(fd, *p, strlen(*p) + 1) != 0)
			rc = err_set(e, -errno, "cannot hand the server its environment: %s", strerror(errno));
	if (rc == 0 && fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE | F_SEAL_SEAL) != 0)
		rc = err_set(e, -errno, "cannot seal the server's environment: %s", strerror(errno));
	if (rc == 0) {
		char tag[4] = "env";
		struct iovec iov = {tag, sizeof tag};
		union {
			struct cmsghdr h;
			char b[CMSG_SPACE(sizeof(int))];
		} u;
		memset(&u, 0, sizeof u);
		struct msghdr m = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = u.b, .msg_controllen = sizeof u.b};
		struct cmsghdr *c = CMSG_FIRSTHDR(&m);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(c), &fd, sizeof fd);
		if (sendmsg(sock, &m, MSG_NOSIGNAL) != (ssize_t)sizeof tag)
			rc = err_set(e, -errno, "cannot hand the server its environment: %s", strerror(errno));
	}
	close(fd);
	return rc;
}

int sandbox_prepare_spawn(const struct sandbox_spec *spec, const char *launcher, const char *exe,
			  char *const *argv, char *const *env, struct spawn_plan *sp, struct err *e)
{
	if (spec->loopback_port && spec->network != SANDBOX_NET_DENY)
		return err_set(e, BELAY_EUSAGE,
			       "a server listening on the sandbox's loopback needs --network deny: under allow its port "
			       "would be on the host's loopback, reachable by any local program around belay");
	int cv[2] = {-1, -1};
	if (spec->loopback_port && spec->connector && socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, cv) != 0)
		return err_set(e, -errno, "cannot create the connector socket: %s", strerror(errno));
	int sv[2];
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) != 0) {
		int en = errno;
		if (cv[0] >= 0) {
			close(cv[0]);
			close(cv[1]);
		}
		return err_set(e, -en, "cannot create the supervisor channel: %s", strerror(en));
	}
	if (env) {
		int rc = send_env(sv[0], env, e);
		if (rc) {
			close(sv[0]);
			close(sv[1]);
			if (cv[0] >= 0) {
				close(cv[0]);
				close(cv[1]);
			}
			return rc;
		}
	}
	struct sandbox_spawn *p = xcalloc(1, sizeof *p);
	p->loopback_port = spec->loopback_port;
	p->conn_parent = cv[0];
	p->conn_child = cv[1];
	p->hide = spec->hide ? xstrdup(spec->hide) : NULL;
	p->cache = spec->cache ? xstrdup(spec->cache) : NULL;
	p->parent_sock = sv[0];
	p->child_sock = sv[1];
	p->scope = xstrdup(spec->scope);
	p->tmp = xstrdup(spec->tmpdir);
	p->deny = spec->network == SANDBOX_NET_DENY;
	p->expose = strv_dup(spec->expose);
	p->pin = strv_dup(spec->pin);
	if (spec->overlay_upper) {
		p->ov_lower = xstrdup(spec->overlay_lower ? spec->overlay_lower : spec->scope);
		p->ov_upper = xstrdup(spec->overlay_upper);
		p->ov_work = xstrdup(spec->overlay_work);
	}
	size_t nsock = 0;
	char **conceal = sandbox_conceal_list(p->expose, &nsock);
	size_t n = 0, nc = 0, nx = 0, npin = 0;
	while (argv[n])
		n++;
	while (conceal[nc])
		nc++;
	while (p->expose[nx])
		nx++;
	while (p->pin[npin])
		npin++;
	const char *fixed[] = {"belay", "__launch", "--scope", spec->scope, "--tmp", spec->tmpdir, "--net",
			       p->deny ? "deny" : "allow", "--status-fd", "3", "--hide", p->hide ? p->hide : "",
			       "--cache", p->cache ? p->cache : "", "--server-env", env ? "channel" : "inherit"};
	size_t nf = sizeof fixed / sizeof fixed[0], k = 0;
	sp->args = xcalloc(nf + 6 + 4 + 2 * (nc + nx + npin) + 2 + n + 1, sizeof *sp->args);
	for (size_t i = 0; i < nf; i++)
		sp->args[k++] = xstrdup(fixed[i]);
	if (p->loopback_port) {
		sp->args[k++] = xstrdup("--loopback");
		sp->args[k++] = xasprintf("%u", p->loopback_port);
		if (p->conn_child >= 0) {
			sp->args[k++] = xstrdup("--connector-fd");
			sp->args[k++] = xstrdup("4");
		}
	}
	if (p->ov_upper) {
		const char *ov[] = {"--overlay-lower", p->ov_lower, "--overlay-upper", p->ov_upper, "--overlay-work", p->ov_work};
		for (size_t i = 0; i < 6; i++)
			sp->args[k++] = xstrdup(ov[i]);
	}
	for (size_t i = 0; i < nc; i++) {
		sp->args[k++] = xstrdup(i < nsock ? "--conceal" : "--secret");
		sp->args[k++] = xstrdup(conceal[i]);
	}
	for (size_t i = 0; i < nx; i++) {
		sp->args[k++] = xstrdup("--expose");
		sp->args[k++] = xstrdup(p->expose[i]);
	}
	for (size_t i = 0; i < npin; i++) {
		sp->args[k++] = xstrdup("--pin");
		sp->args[k++] = xstrdup(p->pin[i]);
	}
	sp->args[k++] = xstrdup("--");
	sp->args[k++] = xstrdup(exe);
	for (size_t i = 0; i < n; i++)
		sp->args[k++] = xstrdup(argv[i]);
	sandbox_conceal_free(conceal);
	sp->file = launcher_exe(launcher);
	sp->extra_fd = sv[1];
	sp->connector_fd = p->conn_child;
	sp->priv = p;
	return 0;
}

int sandbox_spawn_take_channel(void *priv)
{
	struct sandbox_spawn *p = priv;
	close(p->child_sock);
	p->child_sock = -1;
	int fd = p->parent_sock;
	p->parent_sock = -1;
	return fd;
}

const char *sandbox_spawn_scope(const void *priv)
{
	return ((const struct sandbox_spawn *)priv)->scope;
}

const char *sandbox_spawn_tmp(const void *priv)
{
	return ((const struct sandbox_spawn *)priv)->tmp;
}

const char *sandbox_spawn_cache(const void *priv)
{
	return ((const struct sandbox_spawn *)priv)->cache;
}

int sandbox_spawn_denies_network(const void *priv)
{
	return ((const struct sandbox_spawn *)priv)->deny;
}

unsigned sandbox_spawn_loopback_port(const void *priv)
{
	return ((const struct sandbox_spawn *)priv)->loopback_port;
}

int sandbox_spawn_take_connector(void *priv)
{
	struct sandbox_spawn *p = priv;
	if (p->conn_child >= 0)
		close(p->conn_child);
	p->conn_child = -1;
	int fd = p->conn_parent;
	p->conn_parent = -1;
	return fd;
}

int sandbox_connector_socket(int connector, char what)
{
	if (send(connector, &what, 1, MSG_NOSIGNAL) != 1)
		return -errno;
	int32_t code = 0;
	struct iovec iov = {&code, sizeof code};
	union {
		struct cmsghdr h;
		char b[CMSG_SPACE(sizeof(int))];
	} u;
	memset(&u, 0, sizeof u);
	struct msghdr m = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = u.b, .msg_controllen = sizeof u.b};
	ssize_t r;
	while ((r = recvmsg(connector, &m, MSG_CMSG_CLOEXEC)) < 0 && errno == EINTR)
		;
	if (r == 0)
		return -EPIPE;
	if (r != (ssize_t)sizeof code)
		return r < 0 ? -errno : -EPROTO;
	struct cmsghdr *h = CMSG_FIRSTHDR(&m);
	int fd = -1;
	if (h && h->cmsg_level == SOL_SOCKET && h->cmsg_type == SCM_RIGHTS && h->cmsg_len == CMSG_LEN(sizeof(int)))
		memcpy(&fd, CMSG_DATA(h), sizeof fd);
	if (code != 0 || fd < 0) {
		if (fd >= 0)
			close(fd);
		return code > 0 ? -code : -EPROTO;
	}
	return fd;
}

void sandbox_describe(const void *priv, cJSON *record)
{
	const struct sandbox_spawn *p = priv;
	cJSON *o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "scope", p->scope);
	cJSON_AddStringToObject(o, "tmpdir", p->tmp);
	cJSON_AddStringToObject(o, "network", p->deny ? "deny" : "allow");
	if (p->expose[0]) {
		cJSON *x = cJSON_CreateArray();
		for (char **q = p->expose; *q; q++)
			cJSON_AddItemToArray(x, cJSON_CreateString(*q));
		cJSON_AddItemToObject(o, "expose", x);
	}
	if (p->pin[0]) {
		cJSON *x = cJSON_CreateArray();
		for (char **q = p->pin; *q; q++)
			cJSON_AddItemToArray(x, cJSON_CreateString(*q));
		cJSON_AddItemToObject(o, "read_only", x);
	}
	if (p->cache)
		cJSON_AddStringToObject(o, "cache", p->cache);
	if (p->loopback_port)
		cJSON_AddNumberToObject(o, "loopback_port", p->loopback_port);
	if (p->ov_upper) {
		cJSON *ov = cJSON_AddObjectToObject(o, "overlay");
		cJSON_AddStringToObject(ov, "lower", p->ov_lower);
		cJSON_AddStringToObject(ov, "upper", p->ov_upper);
	}
	cJSON_AddItemToObject(record, "sandbox", o);
}

void sandbox_spawn_free(void *priv)
{
	struct sandbox_spawn *p = priv;
	if (p->parent_sock >= 0)
		close(p->parent_sock);
	if (p->child_sock >= 0)
		close(p->child_sock);
	if (p->conn_parent >= 0)
		close(p->conn_parent);
	if (p->conn_child >= 0)
		close(p->conn_child);
	free(p->scope);
	free(p->tmp);
	free(p->hide);
	strv_free(p->expose);
	strv_free(p->pin);
	free(p->cache);
	free(p->ov_lower);
	free(p->ov_upper);
	free(p->ov_work);
	free(p);
}
