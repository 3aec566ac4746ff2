/* sandbox_supervisor.c - seccomp user-notification supervisor (own thread per contained
 * server). See sandbox_supervisor.h. Reads the sandboxed process's memory with
 * process_vm_readv and checks SECCOMP_IOCTL_NOTIF_ID_VALID after every read, so the
 * arguments it names belong to the call still waiting. */
#include "sandbox/sandbox_supervisor.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/openat2.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <seccomp.h>
#include <stdatomic.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <dirent.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "common/jsonx.h"
#include "common/timeutil.h"
#include "common/xalloc.h"
#include "sandbox/sandbox_filter.h"
#include "sandbox/sandbox_resolve.h"

struct sandbox_supervisor {
	struct sandbox_supervisor_opts o;
	char *scope, *tmp, *cache; /* cache may be NULL: then it ends the roots */
	const char *roots[4];
	pthread_t thread;
	int wake[2];
	int listener;
	char userns[64]; /* the sandbox's user namespace, for membership checks */
	int started;
	_Atomic int ready;      /* listener and userns are set (release by the thread) */
	unsigned long nintents; /* write_intent records posted (supervisor thread only) */
	int overflowed;
};

/*==== reading the caller's memory ====*/

static int read_mem(pid_t pid, uint64_t addr, void *out, size_t n)
{
	struct iovec local = {out, n}, remote = {(void *)(uintptr_t)addr, n};
	ssize_t r = process_vm_readv(pid, &local, 1, &remote, 1, 0);
	return r == (ssize_t)n ? 0 : -1;
}

static int read_str(pid_t pid, uint64_t addr, char *out, size_t cap)
{
	size_t got = 0;
	while (got < cap - 1) {
		/* Never read across a page boundary in one go: the next page may be unmapped. */
		size_t page_left = 4096 - ((addr + got) & 4095);
		size_t want = cap - 1 - got < page_left ? cap - 1 - got : page_left;
		struct iovec local = {out + got, want}, remote = {(void *)(uintptr_t)(addr + got), want};
		ssize_t r = process_vm_readv(pid, &local, 1, &remote, 1, 0);
		if (r <= 0)
			return -1;
		void *nul = memchr(out + got, '\0', (size_t)r);
		if (nul)
			return 0;
		got += (size_t)r;
	}
	return -1; /* longer than PATH_MAX */
}

/*==== recording ====*/

static cJSON *record_base(struct sandbox_supervisor *s, const struct seccomp_notif *req, const char *op)
{
	cJSON *f = cJSON_CreateObject();
	cJSON_AddStringToObject(f, "op", op);
	cJSON_AddNumberToObject(f, "pid", req->pid);
	char path[64], comm[64] = "";
	snprintf(path, sizeof path, "/proc/%d/comm", (int)req->pid);
	FILE *cf = fopen(path, "re");
	if (cf) {
		if (fgets(comm, sizeof comm, cf))
			comm[strcspn(comm, "\n")] = '\0';
		fclose(cf);
	}
	cJSON_AddStringToObject(f, "comm", comm);
	int64_t turn = s->o.turn_seq ? atomic_load(s->o.turn_seq) : -1;
	if (turn >= 0)
		cJSON_AddNumberToObject(f, "turn_seq", (double)turn);
	else
		cJSON_AddNullToObject(f, "turn_seq");
	return f;
}

static void post_denial(struct sandbox_supervisor *s, cJSON *f, int err)
{
	cJSON_AddStringToObject(f, "errno", err == EPERM          ? "EPERM"
					    : err == EACCES       ? "EACCES"
					    : err == ECONNREFUSED ? "ECONNREFUSED"
								  : strerror(err));
	cJSON_AddStringToObject(f, "layer", "supervisor");
	cJSON_AddStringToObject(f, "source", "seccomp-unotify");
	cJSON_AddBoolToObject(f, "inferred", 0);
	s->o.post(s->o.ctx, "denial", f);
}

static void flags_text(uint64_t fl, char *out, size_t n)
{
	out[0] = '\0';
	const struct {
		uint64_t bit;
		const char *name;
	} names[] = {{O_WRONLY, "O_WRONLY"}, {O_RDWR, "O_RDWR"},   {O_CREAT, "O_CREAT"},   {O_EXCL, "O_EXCL"},
		     {O_TRUNC, "O_TRUNC"},   {O_APPEND, "O_APPEND"}, {020000000, "O_TMPFILE"}, {O_NOFOLLOW, "O_NOFOLLOW"}};
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
		if ((fl & names[i].bit) == names[i].bit) {
			if (out[0])
				strncat(out, "|", n - strlen(out) - 1);
			strncat(out, names[i].name, n - strlen(out) - 1);
		}
	if (!out[0])
		snprintf(out, n, "O_RDONLY");
}

/*==== decisions ====*/

enum answer { A_CONTINUE, A_REFUSE };

struct call {
	struct sandbox_supervisor *s;
	const struct seccomp_notif *req;
	int err; /* errno to refuse with */
	/* write intents let through (report_writes): resolved paths inside the scope */
	char wpath[2][PATH_MAX];
	const char *wkey[2];
	int nw;
	int unresolved; /* a path argument could not be read or resolved */
};

/* Notes an allowed write-intent path for the write_intent record (inside the scope only). */
static void note_write(struct call *c, const char *key, const char *res)
{
	if (!c->s->o.report_writes || c->nw == 2)
		return;
	const char *scope = c->s->scope;
	size_t n = strlen(scope);
	if (!(n == 1 && scope[0] == '/') && !(strncmp(res, scope, n) == 0 && (res[n] == '\0' || res[n] == '/')))
		return;
	snprintf(c->wpath[c->nw], PATH_MAX, "%s", res);
	c->wkey[c->nw] = key;
	c->nw++;
}

/* What a call needs of its path before the kernel would even check permission: a call that
 * will fail anyway (EEXIST, ENOENT, ENOTDIR) is left to the kernel, so the sandbox never
 * turns "exists" into "denied" (mkdir -p relies on EEXIST). */
enum need { NEED_ANY = 0, NEED_ABSENT, NEED_PRESENT };

static int path_state_ok(const char *res, enum need need)
{
	struct stat st;
	if (need == NEED_ANY)
		return 1;
	if (need == NEED_PRESENT)
		return lstat(res, &st) == 0;
	/* NEED_ABSENT: the entry must not exist and its parent directory must. */
	if (lstat(res, &st) == 0)
		return 0;
	char parent[PATH_MAX];
	snprintf(parent, sizeof parent, "%s", res);
	char *slash = strrchr(parent, '/');
	if (!slash)
		return 0;
	if (slash == parent)
		slash[1] = '\0';
	else
		*slash = '\0';
	return stat(parent, &st) == 0 && S_ISDIR(st.st_mode);
}

static enum answer check_path_need(struct call *c, const char *op, int dirfd, uint64_t addr, int follow,
				   int empty_is_fd, const char *flags, cJSON **rec, const char *key, enum need need);

/* One path argument: resolve it and decide. On refusal fills the record. */
static enum answer check_path(struct call *c, const char *op, int dirfd, uint64_t addr, int follow, int empty_is_fd,
			      const char *flags, cJSON **rec, const char *key)
{
	return check_path_need(c, op, dirfd, addr, follow, empty_is_fd, flags, rec, key, NEED_PRESENT);
}

static enum answer check_path_need(struct call *c, const char *op, int dirfd, uint64_t addr, int follow,
				   int empty_is_fd, const char *flags, cJSON **rec, const char *key, enum need need)
{
	char raw[PATH_MAX], res[PATH_MAX];
	if (addr == 0) {
		raw[0] = '\0';
		if (!empty_is_fd)
			return A_CONTINUE; /* the kernel answers EFAULT */
	} else if (read_str(c->req->pid, addr, raw, sizeof raw) != 0) {
		c->unresolved = 1;
		return A_CONTINUE; /* unreadable: the kernel decides (and faults) */
	}
	enum sb_resolved k = sandbox_resolve(c->req->pid, dirfd, raw, follow, empty_is_fd, res, sizeof res);
	if (k == SB_UNKNOWN)
		c->unresolved = 1;
	if (k != SB_PATH)
		return A_CONTINUE; /* SB_SPECIAL: a pipe, socket or anonymous inode, never a tree entry */
	if (sandbox_write_verdict(res, c->s->roots) != SB_DENY) {
		note_write(c, key, res);
		return A_CONTINUE;
	}
	if (!path_state_ok(res, need))
		return A_CONTINUE; /* the kernel answers EEXIST / ENOENT itself */
	if (!*rec)
		*rec = record_base(c->s, c->req, op);
	cJSON_AddStringToObject(*rec, key, res);
	if (strcmp(raw, res) != 0 && raw[0]) {
		char k2[32];
		snprintf(k2, sizeof k2, "%s_as_given", key);
		cJSON_AddItemToObject(*rec, k2, jx_bytes(raw, strlen(raw)));
	}
	if (flags)
		cJSON_AddStringToObject(*rec, "flags", flags);
	c->err = EACCES;
	return A_REFUSE;
}

static int in_sandbox(struct sandbox_supervisor *s, pid_t pid)
{
	char link[64], ns[64];
	snprintf(link, sizeof link, "/proc/%d/ns/user", (int)pid);
	ssize_t n = readlink(link, ns, sizeof ns - 1);
	if (n < 0)
		return -1;
	ns[n] = '\0';
	return strcmp(ns, s->userns) == 0;
}

static void address_text(const struct sockaddr_storage *ss, socklen_t len, char *out, size_t n, const char **family)
{
	out[0] = '\0';
	*family = "other";
	if (ss->ss_family == AF_INET && len >= sizeof(struct sockaddr_in)) {
		const struct sockaddr_in *in = (const void *)ss;
		char a[INET_ADDRSTRLEN];
		inet_ntop(AF_INET, &in->sin_addr, a, sizeof a);
		snprintf(out, n, "%s:%u", a, ntohs(in->sin_port));
		*family = "inet";
	} else if (ss->ss_family == AF_INET6 && len >= sizeof(struct sockaddr_in6)) {
		const struct sockaddr_in6 *in6 = (const void *)ss;
		char a[INET6_ADDRSTRLEN];
		inet_ntop(AF_INET6, &in6->sin6_addr, a, sizeof a);
		snprintf(out, n, "[%s]:%u", a, ntohs(in6->sin6_port));
		*family = "inet6";
	} else if (ss->ss_family == AF_UNIX) {
		const struct sockaddr_un *un = (const void *)ss;
		size_t plen = len > offsetof(struct sockaddr_un, sun_path) ? len - offsetof(struct sockaddr_un, sun_path) : 0;
		if (plen > 0 && un->sun_path[0] == '\0') {
			snprintf(out, n, "@%.*s", (int)(plen - 1), un->sun_path + 1);
			*family = "unix-abstract";
		} else {
			snprintf(out, n, "%.*s", (int)strnlen(un->sun_path, plen), un->sun_path);
			*family = "unix";
		}
	}
}

/* 1 if an abstract unix socket called `name` ("@...") exists in pid's network namespace. */
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

/* 1 unless `path` is missing from pid's own view of the filesystem: the sandbox's mount
 * namespace hides some host directories under empty tmpfs mounts, which the supervisor's
 * resolution (in belay's namespace) does not see. */
static int seen_by(pid_t pid, const char *path)
{
	char in[PATH_MAX + 32];
	struct stat st;
	if ((size_t)snprintf(in, sizeof in, "/proc/%d/root%s", (int)pid, path) >= sizeof in)
		return 1;
	return lstat(in, &st) == 0 || errno != ENOENT;
}

/* A socket address argument (connect, bind, sendto, sendmsg). */
static enum answer check_addr(struct call *c, const char *op, uint64_t addr, uint64_t len, cJSON **rec)
{
	struct sockaddr_storage ss;
	memset(&ss, 0, sizeof ss);
	if (addr == 0 || len == 0)
		return A_CONTINUE;
	if (len > sizeof ss)
		len = sizeof ss;
	if (read_mem(c->req->pid, addr, &ss, (size_t)len) != 0)
		return A_CONTINUE;
	char text[PATH_MAX + 16];
	const char *family;
	address_text(&ss, (socklen_t)len, text, sizeof text, &family);
	int is_bind = !strcmp(op, "bind");
	if (!strcmp(family, "unix")) {
		/* A pathname socket: binding creates a file; connecting reaches whoever listens. */
		char res[PATH_MAX];
		enum sb_resolved k = sandbox_resolve(c->req->pid, AT_FDCWD, text, !is_bind, 0, res, sizeof res);
		if (k != SB_PATH) {
			c->unresolved |= is_bind && k == SB_UNKNOWN;
			return A_CONTINUE;
		}
		if (sandbox_write_verdict(res, c->s->roots) != SB_DENY) {
			if (is_bind)
				note_write(c, "path", res); /* binding creates the socket file */
			return A_CONTINUE;
		}
		if (!is_bind && !seen_by(c->req->pid, res))
			return A_CONTINUE; /* hidden in the sandbox's mounts (nscd, belay's state): ENOENT */
		if (!is_bind && !c->s->o.deny_network) {
			cJSON *f = record_base(c->s, c->req, op);
			cJSON_AddStringToObject(f, "family", family);
			cJSON_AddStringToObject(f, "address", res);
			cJSON_AddStringToObject(f, "outcome", "allowed");
			c->s->o.post(c->s->o.ctx, "network_attempt", f);
			return A_CONTINUE;
		}
		*rec = record_base(c->s, c->req, op);
		cJSON_AddStringToObject(*rec, "family", family);
		cJSON_AddStringToObject(*rec, "address", res);
		c->err = EACCES;
		return A_REFUSE;
	}
	if (!strcmp(family, "unix-abstract")) {
		/* Under deny the network namespace keeps the abstract namespace private to the
		 * sandbox: a name listening there belongs to the sandbox and may be reached; any
		 * other name is the host's (or nobody's) and the kernel would answer
		 * ECONNREFUSED, which we answer too, naming the attempt. Under allow only
		 * Landlock's scope separates the two, so every connect is refused by name. */
		if (is_bind)
			return A_CONTINUE;
		if (c->s->o.deny_network && abstract_listening(c->req->pid, text))
			return A_CONTINUE;
		*rec = record_base(c->s, c->req, op);
		cJSON_AddStringToObject(*rec, "family", family);
		cJSON_AddStringToObject(*rec, "address", text);
		c->err = c->s->o.deny_network ? ECONNREFUSED : EPERM;
		return A_REFUSE;
	}
	if (strcmp(family, "inet") && strcmp(family, "inet6"))
		return A_CONTINUE;
	if (!c->s->o.deny_network) {
		if (!is_bind) {
			cJSON *f = record_base(c->s, c->req, op);
			cJSON_AddStringToObject(f, "family", family);
			cJSON_AddStringToObject(f, "address", text);
			cJSON_AddStringToObject(f, "outcome", "allowed");
			c->s->o.post(c->s->o.ctx, "network_attempt", f);
		}
		return A_CONTINUE;
	}
	*rec = record_base(c->s, c->req, op);
	cJSON_AddStringToObject(*rec, "family", family);
	cJSON_AddStringToObject(*rec, "address", text);
	c->err = EACCES;
	return A_REFUSE;
}

static enum answer check_msghdr(struct call *c, const char *op, uint64_t msgp, cJSON **rec)
{
	struct msghdr mh;
	if (read_mem(c->req->pid, msgp, &mh, sizeof mh) != 0)
		return A_CONTINUE;
	return check_addr(c, op, (uint64_t)(uintptr_t)mh.msg_name, mh.msg_namelen, rec);
}

static enum answer check_signal(struct call *c, const char *op, int64_t target, int sig, cJSON **rec)
{
	if (target <= 0)
		return A_CONTINUE; /* process groups: Landlock's signal scope decides */
	if (in_sandbox(c->s, (pid_t)target) != 0)
		return A_CONTINUE; /* inside, or gone (the kernel answers ESRCH) */
	*rec = record_base(c->s, c->req, op);
	cJSON_AddNumberToObject(*rec, "target_pid", (double)target);
	cJSON_AddNumberToObject(*rec, "signal", sig);
	c->err = EPERM;
	return A_REFUSE;
}

static int pidfd_target(pid_t pid, int fd)
{
	char path[64], line[128];
	snprintf(path, sizeof path, "/proc/%d/fdinfo/%d", (int)pid, fd);
	FILE *f = fopen(path, "re");
	int target = -1;
	if (!f)
		return -1;
	while (fgets(line, sizeof line, f))
		if (sscanf(line, "Pid: %d", &target) == 1)
			break;
	fclose(f);
	return target;
}

static enum answer decide(struct call *c, cJSON **rec)
{
	const struct seccomp_notif *req = c->req;
	const __u64 *a = req->data.args;
	const char *op = sandbox_syscall_name(req->data.nr);
	char fl[96];
	int at = AT_FDCWD;
#define NAME(x) (!strcmp(op, x))
	if (NAME("open") || NAME("creat") || NAME("openat")) {
		int isat = NAME("openat");
		uint64_t flags = NAME("creat") ? (O_CREAT | O_WRONLY | O_TRUNC) : isat ? a[2] : a[1];
		flags_text(flags, fl, sizeof fl);
		int excl = (flags & O_CREAT) && (flags & O_EXCL);
		int follow = !(flags & O_NOFOLLOW) && !excl;
		enum need need = excl ? NEED_ABSENT : (flags & O_CREAT) ? NEED_ANY : NEED_PRESENT;
		return check_path_need(c, op, isat ? (int)a[0] : at, isat ? a[1] : a[0], follow, 0, fl, rec, "path", need);
	}
	if (NAME("openat2")) {
		struct open_how how;
		memset(&how, 0, sizeof how);
		size_t sz = a[3] < sizeof how ? a[3] : sizeof how;
		if (read_mem(req->pid, a[2], &how, sz) != 0)
			return A_CONTINUE;
		if (!(how.flags & (O_WRONLY | O_RDWR | O_CREAT | O_TRUNC | 020000000)))
			return A_CONTINUE;
		flags_text(how.flags, fl, sizeof fl);
		return check_path(c, op, (int)a[0], a[1], !(how.flags & O_NOFOLLOW), 0, fl, rec, "path");
	}
	if (NAME("mkdir") || NAME("mknod") || NAME("symlink"))
		return check_path_need(c, op, at, a[NAME("symlink") ? 1 : 0], 0, 0, NULL, rec, "path", NEED_ABSENT);
	if (NAME("rmdir") || NAME("unlink") || NAME("truncate") || NAME("chmod") || NAME("chown") || NAME("lchown") ||
	    NAME("utime") || NAME("utimes") || NAME("setxattr") || NAME("lsetxattr") || NAME("removexattr") ||
	    NAME("lremovexattr")) {
		int follow = NAME("chmod") || NAME("chown") || NAME("truncate") || NAME("utime") || NAME("utimes") ||
			     NAME("setxattr") || NAME("removexattr");
		return check_path(c, op, at, a[0], follow, 0, NULL, rec, "path");
	}
	if (NAME("mkdirat") || NAME("mknodat"))
		return check_path_need(c, op, (int)a[0], a[1], 0, 0, NULL, rec, "path", NEED_ABSENT);
	if (NAME("futimesat"))
		return check_path(c, op, (int)a[0], a[1], 1, 0, NULL, rec, "path");
	if (NAME("unlinkat"))
		return check_path(c, op, (int)a[0], a[1], 0, 0, NULL, rec, "path");
	if (NAME("symlinkat"))
		return check_path_need(c, op, (int)a[1], a[2], 0, 0, NULL, rec, "path", NEED_ABSENT);
	if (NAME("fchmodat") || NAME("fchmodat2") || NAME("fchownat")) {
		uint64_t flags = NAME("fchownat") ? a[4] : NAME("fchmodat2") ? a[3] : 0;
		return check_path(c, op, (int)a[0], a[1], !(flags & AT_SYMLINK_NOFOLLOW), !!(flags & AT_EMPTY_PATH), NULL,
				  rec, "path");
	}
	if (NAME("utimensat")) /* a NULL path means the fd itself (futimens) */
		return check_path(c, op, (int)a[0], a[1], !(a[3] & AT_SYMLINK_NOFOLLOW), 1, NULL, rec, "path");
	if (NAME("fchmod") || NAME("fchown") || NAME("fsetxattr") || NAME("fremovexattr"))
		return check_path(c, op, (int)a[0], 0, 1, 1, NULL, rec, "path");
	if (NAME("setxattrat") || NAME("removexattrat"))
		return check_path(c, op, (int)a[0], a[1], !(a[2] & AT_SYMLINK_NOFOLLOW), !!(a[2] & AT_EMPTY_PATH), NULL,
				  rec, "path");
	if (NAME("rename") || NAME("link") || NAME("renameat") || NAME("renameat2") || NAME("linkat")) {
		int isat = !NAME("rename") && !NAME("link"), islink = NAME("link") || NAME("linkat");
		int follow_old = NAME("linkat") && (a[4] & AT_SYMLINK_FOLLOW);
		/* link needs a free target name; rename may replace one. Both need the source. */
		enum answer x = check_path(c, op, isat ? (int)a[0] : at, isat ? a[1] : a[0], follow_old, 0, NULL, rec, "path");
		enum answer y = check_path_need(c, op, isat ? (int)a[2] : at, isat ? a[3] : a[1], 0, 0, NULL, rec, "to",
						islink ? NEED_ABSENT : NEED_ANY);
		return x == A_REFUSE || y == A_REFUSE ? A_REFUSE : A_CONTINUE;
	}
	if (NAME("connect") || NAME("bind"))
		return check_addr(c, op, a[1], a[2], rec);
	if (NAME("sendto"))
		return check_addr(c, op, a[4], a[5], rec);
	if (NAME("sendmsg"))
		return check_msghdr(c, op, a[1], rec);
	if (NAME("sendmmsg")) {
		unsigned vlen = (unsigned)a[2] > 64 ? 64 : (unsigned)a[2];
		for (unsigned i = 0; i < vlen; i++)
			if (check_msghdr(c, op, a[1] + (uint64_t)i * sizeof(struct mmsghdr), rec) == A_REFUSE)
				return A_REFUSE;
		return A_CONTINUE;
	}
	if (NAME("kill") || NAME("tkill"))
		return check_signal(c, op, (int64_t)(int32_t)a[0], (int)a[1], rec);
	if (NAME("tgkill"))
		return check_signal(c, op, (int64_t)(int32_t)a[0], (int)a[2], rec);
	if (NAME("rt_sigqueueinfo"))
		return check_signal(c, op, (int64_t)(int32_t)a[0], (int)a[1], rec);
	if (NAME("rt_tgsigqueueinfo"))
		return check_signal(c, op, (int64_t)(int32_t)a[0], (int)a[2], rec);
	if (NAME("pidfd_send_signal"))
		return check_signal(c, op, pidfd_target(req->pid, (int)a[0]), (int)a[1], rec);
	/* Everything else on the trap list would undo a layer: refuse and name it. */
	*rec = record_base(c->s, req, op);
	c->err = EPERM;
	return A_REFUSE;
#undef NAME
}

/* Posts what a call let through may write (before the kernel runs it, so a replay has every
 * record of a call by the time the call returns). */
static void post_write_intent(struct sandbox_supervisor *s, const struct call *c)
{
	const char *op = sandbox_syscall_name(c->req->data.nr);
	int is_link = !strcmp(op, "link") || !strcmp(op, "linkat");
	if (!c->nw && !c->unresolved && !is_link)
		return;
	if (s->overflowed)
		return;
	if (++s->nintents > SANDBOX_MAX_WRITE_INTENTS) {
		s->overflowed = 1;
		cJSON *f = cJSON_CreateObject();
		cJSON_AddBoolToObject(f, "overflow", 1);
		s->o.post(s->o.ctx, "write_intent", f);
		return;
	}
	cJSON *f = cJSON_CreateObject();
	cJSON_AddStringToObject(f, "op", op);
	cJSON_AddNumberToObject(f, "pid", c->req->pid);
	for (int i = 0; i < c->nw; i++)
		cJSON_AddItemToObject(f, c->wkey[i], jx_bytes(c->wpath[i], strlen(c->wpath[i])));
	if (c->unresolved)
		cJSON_AddBoolToObject(f, "unresolved", 1);
	s->o.post(s->o.ctx, "write_intent", f);
}

static void handle(struct sandbox_supervisor *s, struct seccomp_notif *req, struct seccomp_notif_resp *resp)
{
	struct call c = {.s = s, .req = req, .err = EACCES};
	cJSON *rec = NULL;
	enum answer ans = decide(&c, &rec);
	/* The arguments we read must belong to the call still waiting (not a recycled pid). */
	if (seccomp_notify_id_valid(s->listener, req->id) != 0) {
		cJSON_Delete(rec);
		return;
	}
	memset(resp, 0, sizeof *resp);
	resp->id = req->id;
	if (ans == A_REFUSE) {
		resp->error = -c.err;
		post_denial(s, rec, c.err);
	} else {
		cJSON_Delete(rec);
		if (s->o.report_writes)
			post_write_intent(s, &c);
		resp->flags = SECCOMP_USER_NOTIF_FLAG_CONTINUE;
	}
	seccomp_notify_respond(s->listener, resp); /* ENOENT: the caller died meanwhile */
}

/*==== the thread ====*/

static void post_status(struct sandbox_supervisor *s, int ok, const char *layer, const char *msg, cJSON *layers)
{
	cJSON *f = cJSON_CreateObject();
	cJSON_AddBoolToObject(f, "ok", ok);
	if (ok) {
		cJSON_AddItemToObject(f, "layers", layers ? layers : cJSON_CreateObject());
	} else {
		cJSON_AddStringToObject(f, "layer", layer);
		cJSON_AddStringToObject(f, "error", msg);
		cJSON_Delete(layers);
	}
	cJSON_AddStringToObject(f, "scope", s->scope);
	cJSON_AddStringToObject(f, "tmpdir", s->tmp);
	cJSON_AddStringToObject(f, "network", s->o.deny_network ? "deny" : "allow");
	s->o.post(s->o.ctx, "sandbox", f);
}

/* Waits for the launcher's report and takes the listener. 0 when containment is ready. */
static int handshake(struct sandbox_supervisor *s)
{
	char msg[4096];
	struct pollfd p[2] = {{s->o.sock, POLLIN, 0}, {s->wake[0], POLLIN, 0}};
	if (poll(p, 2, 30000) <= 0 || p[1].revents) {
		post_status(s, 0, "launcher", "the launcher did not report within 30 s", NULL);
		return -1;
	}
	ssize_t n = read(s->o.sock, msg, sizeof msg - 1);
	if (n <= 0) {
		post_status(s, 0, "launcher", "the launcher exited before containment was installed", NULL);
		return -1;
	}
	msg[n] = '\0';
	if (strncmp(msg, "fail ", 5) == 0) {
		char *tab = strchr(msg + 5, '\t');
		if (tab)
			*tab = '\0';
		post_status(s, 0, msg + 5, tab ? tab + 1 : "unknown failure", NULL);
		return -1;
	}
	int remote_fd = -1, off = 0;
	if (sscanf(msg, "ready %d %n", &remote_fd, &off) != 1 || remote_fd < 0) {
		post_status(s, 0, "launcher", "malformed report from the launcher", NULL);
		return -1;
	}
	cJSON *layers = cJSON_Parse(msg + off);
	int pidfd = (int)syscall(SYS_pidfd_open, s->o.launcher_pid, 0);
	s->listener = pidfd < 0 ? -1 : (int)syscall(SYS_pidfd_getfd, pidfd, remote_fd, 0);
	int err = errno;
	if (pidfd >= 0)
		close(pidfd);
	if (s->listener < 0) {
		char why[160];
		snprintf(why, sizeof why, "cannot take the notification listener: %s", strerror(err));
		post_status(s, 0, "supervisor", why, layers);
		return -1;
	}
	fcntl(s->listener, F_SETFD, FD_CLOEXEC);
	char link[64];
	snprintf(link, sizeof link, "/proc/%d/ns/user", (int)s->o.launcher_pid);
	ssize_t ln = readlink(link, s->userns, sizeof s->userns - 1);
	s->userns[ln > 0 ? ln : 0] = '\0';
	if (layers)
		cJSON_AddStringToObject(layers, "userns", s->userns);
	atomic_store(&s->ready, 1);
	post_status(s, 1, NULL, NULL, layers);
	if (write(s->o.sock, "go", 2) != 2)
		return -1;
	return 0;
}

static void *supervisor_main(void *arg)
{
	struct sandbox_supervisor *s = arg;
	if (handshake(s) != 0) {
		/* A launcher waiting for "go" reads end-of-file instead, refuses and exits 2:
		 * the server never runs, and the session sees its exit rather than waiting. */
		shutdown(s->o.sock, SHUT_RDWR);
		return NULL;
	}
	struct seccomp_notif *req = NULL;
	struct seccomp_notif_resp *resp = NULL;
	if (seccomp_notify_alloc(&req, &resp) != 0)
		return NULL;
	for (;;) {
		struct pollfd p[2] = {{s->listener, POLLIN, 0}, {s->wake[0], POLLIN, 0}};
		if (poll(p, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		if (p[1].revents)
			break;
		if (p[0].revents & (POLLHUP | POLLERR))
			break; /* every contained process is gone */
		if (!(p[0].revents & POLLIN))
			continue;
		memset(req, 0, sizeof *req);
		if (seccomp_notify_receive(s->listener, req) != 0)
			continue; /* ENOENT: the caller was interrupted */
		handle(s, req, resp);
	}
	seccomp_notify_free(req, resp);
	return NULL;
}

int sandbox_supervisor_start(const struct sandbox_supervisor_opts *o, struct sandbox_supervisor **out)
{
	struct sandbox_supervisor *s = xcalloc(1, sizeof *s);
	s->o = *o;
	s->scope = xstrdup(o->scope);
	s->tmp = xstrdup(o->tmp);
	s->cache = o->cache ? xstrdup(o->cache) : NULL;
	s->roots[0] = s->scope;
	s->roots[1] = s->tmp;
	s->roots[2] = s->cache;
	s->roots[3] = NULL;
	s->listener = -1;
	if (pipe2(s->wake, O_CLOEXEC) != 0) {
		int err = errno;
		close(o->sock);
		free(s->scope);
		free(s->tmp);
		free(s->cache);
		free(s);
		return -err;
	}
	int rc = pthread_create(&s->thread, NULL, supervisor_main, s);
	if (rc) {
		close(o->sock);
		close(s->wake[0]);
		close(s->wake[1]);
		free(s->scope);
		free(s->tmp);
		free(s->cache);
		free(s);
		return -rc;
	}
	s->started = 1;
	*out = s;
	return 0;
}

/* 1 when no task uses the filter any more (the listener reports POLLHUP). */
static int filter_unused(int listener, int timeout_ms)
{
	struct pollfd p = {listener, 0, 0};
	int r;
	do
		r = poll(&p, 1, timeout_ms);
	while (r < 0 && errno == EINTR);
	return r > 0 && (p.revents & POLLHUP);
}

/* SIGKILLs every process whose user namespace is the sandbox's; returns how many. */
static int kill_contained(const char *userns)
{
	DIR *d = opendir("/proc");
	if (!d)
		return 0;
	int n = 0;
	struct dirent *de;
	while ((de = readdir(d)) != NULL) {
		char *end;
		long pid = strtol(de->d_name, &end, 10);
		if (*end || pid <= 1)
			continue;
		char link[64], ns[64];
		snprintf(link, sizeof link, "/proc/%ld/ns/user", pid);
		ssize_t len = readlink(link, ns, sizeof ns - 1);
		if (len <= 0)
			continue;
		ns[len] = '\0';
		if (!strcmp(ns, userns) && kill((pid_t)pid, SIGKILL) == 0)
			n++;
	}
	closedir(d);
	return n;
}

int sandbox_supervisor_reap(struct sandbox_supervisor *s, unsigned wait_ms, int *killed)
{
	*killed = 0;
	/* Without a completed handshake the server was never told to start: the launcher (our
	 * child, already reaped) was the only contained process. */
	if (!s || !atomic_load(&s->ready) || s->listener < 0 || !s->userns[0])
		return 1;
	if (filter_unused(s->listener, 0))
		return 1;
	uint64_t deadline = time_mono_ns() + (uint64_t)wait_ms * 1000000ull;
	for (;;) {
		*killed += kill_contained(s->userns);
		if (filter_unused(s->listener, 20))
			return 1;
		if (time_mono_ns() >= deadline)
			return 0;
	}
}

void sandbox_supervisor_stop(struct sandbox_supervisor *s)
{
	if (!s)
		return;
	if (s->started) {
		(void)!write(s->wake[1], "x", 1);
		pthread_join(s->thread, NULL);
	}
	if (s->listener >= 0)
		close(s->listener);
	close(s->o.sock);
	close(s->wake[0]);
	close(s->wake[1]);
	free(s->scope);
	free(s->tmp);
	free(s->cache);
	free(s);
}
