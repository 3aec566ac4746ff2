/* sandbox_supervisor.c - seccomp user-notification supervisor (own thread per contained
 * server): the handshake with the launcher, one answer per trapped call, and reaping.
 * See sandbox_supervisor.h. The deciders live in sandbox_decide.c and sandbox_net.c.
 *
 * The thread runs with no capabilities (dropped at its start, for this thread only), so
 * what it resolves and performs for a contained process it does with no more rights than
 * that process's user; it blocks every signal. After every read of the caller's memory or
 * /proc it checks SECCOMP_IOCTL_NOTIF_ID_VALID, so what it names belongs to the call still
 * waiting; a call it cannot decide is refused and named, never let through. */
#include "sandbox/sandbox_supervisor.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <poll.h>
#include <pthread.h>
#include <seccomp.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "common/jsonx.h"
#include "common/timeutil.h"
#include "common/xalloc.h"
#include "sandbox/sandbox_filter.h"
#include "sandbox/sandbox_supervisor_internal.h"
#include "sandbox/sandbox_testswitch.h"

/*==== helpers shared with the deciders ====*/

int sb_read_mem(pid_t pid, uint64_t addr, void *out, size_t n)
{
	struct iovec local = {out, n}, remote = {(void *)(uintptr_t)addr, n};
	ssize_t r = process_vm_readv(pid, &local, 1, &remote, 1, 0);
	return r == (ssize_t)n ? 0 : -EFAULT;
}

int sb_read_str(pid_t pid, uint64_t addr, char *out, size_t cap)
{
	size_t got = 0;
	while (got < cap - 1) {
		/* Never read across a page boundary in one go: the next page may be unmapped. */
		size_t page_left = 4096 - ((addr + got) & 4095);
		size_t want = cap - 1 - got < page_left ? cap - 1 - got : page_left;
		struct iovec local = {out + got, want}, remote = {(void *)(uintptr_t)(addr + got), want};
		ssize_t r = process_vm_readv(pid, &local, 1, &remote, 1, 0);
		if (r <= 0)
			return -EFAULT;
		void *nul = memchr(out + got, '\0', (size_t)r);
		if (nul)
			return 0;
		got += (size_t)r;
	}
	out[cap - 1] = '\0';
	return -ENAMETOOLONG; /* longer than PATH_MAX */
}

void sb_register(struct sandbox_supervisor *s, const char *name, sb_decider fn)
{
	int nr = seccomp_syscall_resolve_name(name);
	if (nr < 0 || nr >= SB_MAX_NR)
		return; /* not on this architecture */
	s->by_nr[nr] = fn;
	s->name_by_nr[nr] = name;
}

enum sb_zone sb_zone_of(const struct call *c, const char *path, const char **at)
{
	return sandbox_view_zone(&c->s->view, path, at);
}

int sb_hides(const struct call *c, enum sb_zone z, const char *res)
{
	(void)c;
	struct stat st;
	return (z == SB_ZONE_HIDDEN || z == SB_ZONE_HIDDEN_FILE) && lstat(res, &st) == 0;
}

int sb_still_waiting(const struct call *c)
{
	return seccomp_notify_id_valid(c->s->listener, c->req->id) == 0;
}

int sb_take_fd(struct call *c, int fd)
{
	int pidfd = (int)syscall(SYS_pidfd_open, c->req->pid, 0);
	if (pidfd < 0)
		return -errno;
	if (!sb_still_waiting(c)) { /* the pid may belong to another process by now */
		close(pidfd);
		return -ESRCH;
	}
	int dup = (int)syscall(SYS_pidfd_getfd, pidfd, fd, 0);
	int err = errno;
	close(pidfd);
	return dup >= 0 ? dup : -err;
}

void sb_note_write(struct call *c, const char *key, const char *res)
{
	if ((!c->s->o.report_writes && !c->s->o.on_write) || c->nw == 2 || !sandbox_path_under(res, c->s->scope))
		return;
	snprintf(c->wpath[c->nw], PATH_MAX, "%s", res);
	c->wkey[c->nw] = key;
	c->nw++;
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

cJSON *sb_denial(struct call *c, const char *reason)
{
	if (!c->rec)
		c->rec = record_base(c->s, c->req, c->op);
	if (reason && !cJSON_GetObjectItemCaseSensitive(c->rec, "reason"))
		cJSON_AddStringToObject(c->rec, "reason", reason);
	return c->rec;
}

cJSON *sb_another_denial(struct call *c, const char *reason)
{
	if (!c->rec)
		return sb_denial(c, reason);
	cJSON *f = record_base(c->s, c->req, c->op);
	if (reason)
		cJSON_AddStringToObject(f, "reason", reason);
	if (!c->more)
		c->more = cJSON_CreateArray();
	cJSON_AddItemToArray(c->more, f);
	return f;
}

int sb_refuse(struct call *c, int err, const char *reason)
{
	sb_denial(c, reason);
	c->err = err;
	return A_REFUSE;
}

void sb_attempt(struct call *c, const char *family, const char *address)
{
	cJSON *f = record_base(c->s, c->req, c->op);
	cJSON_AddStringToObject(f, "family", family);
	cJSON_AddStringToObject(f, "address", address);
	cJSON_AddStringToObject(f, "outcome", "allowed");
	c->s->o.post(c->s->o.ctx, "network_attempt", f);
}

static const char *errno_name(int err)
{
	switch (err) {
	case EPERM: return "EPERM";
	case EACCES: return "EACCES";
	case ECONNREFUSED: return "ECONNREFUSED";
	case ENOENT: return "ENOENT";
	case ESRCH: return "ESRCH";
	case EFAULT: return "EFAULT";
	case ENAMETOOLONG: return "ENAMETOOLONG";
	default: return strerror(err);
	}
}

static void post_denial(struct sandbox_supervisor *s, cJSON *f, int err)
{
	cJSON_AddStringToObject(f, "errno", errno_name(err));
	cJSON_AddStringToObject(f, "layer", "supervisor");
	cJSON_AddStringToObject(f, "source", "seccomp-unotify");
	cJSON_AddBoolToObject(f, "inferred", 0);
	s->o.post(s->o.ctx, "denial", f);
}

/* Posts what a call let through may write (before the kernel runs it, so a replay has every
 * record of a call by the time the call returns). */
static void post_write_intent(struct sandbox_supervisor *s, const struct call *c)
{
	int is_link = !strcmp(c->op, "link") || !strcmp(c->op, "linkat");
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
	cJSON_AddStringToObject(f, "op", c->op);
	cJSON_AddNumberToObject(f, "pid", c->req->pid);
	for (int i = 0; i < c->nw; i++)
		cJSON_AddItemToObject(f, c->wkey[i], jx_bytes(c->wpath[i], strlen(c->wpath[i])));
	if (c->unresolved)
		cJSON_AddBoolToObject(f, "unresolved", 1);
	s->o.post(s->o.ctx, "write_intent", f);
}

/*==== one trapped call ====*/

static void handle(struct sandbox_supervisor *s, struct seccomp_notif *req, struct seccomp_notif_resp *resp)
{
	int nr = req->data.nr;
	struct call c = {.s = s, .req = req, .err = EACCES};
	sb_decider fn = nr >= 0 && nr < SB_MAX_NR ? s->by_nr[nr] : NULL;
	c.op = fn ? s->name_by_nr[nr] : sandbox_syscall_name(nr);
	/* Anything on the trap list without a decider would undo a layer: refuse and name it. */
	enum answer ans = fn ? (enum answer)fn(&c) : (enum answer)sb_refuse(&c, EPERM, "not_permitted");
	/* The arguments we read must belong to the call still waiting (not a recycled pid). */
	if (!sb_still_waiting(&c)) {
		cJSON_Delete(c.rec);
		cJSON_Delete(c.more);
		return;
	}
	memset(resp, 0, sizeof *resp);
	resp->id = req->id;
	if (ans == A_REFUSE) {
		resp->error = -c.err;
		if (c.rec)
			post_denial(s, c.rec, c.err);
		cJSON *it = c.more ? c.more->child : NULL;
		while (it) {
			cJSON *next = it->next;
			cJSON_DetachItemViaPointer(c.more, it);
			post_denial(s, it, c.err);
			it = next;
		}
		cJSON_Delete(c.more);
	} else if (ans == A_REPLY) {
		cJSON_Delete(c.rec);
		cJSON_Delete(c.more);
		resp->error = c.err ? -c.err : 0;
		resp->val = c.err ? 0 : c.val;
	} else {
		cJSON_Delete(c.rec);
		cJSON_Delete(c.more);
		if (s->test_delay_ms && c.nw) /* test builds: a write let through, decided late */
			nanosleep(&(struct timespec){s->test_delay_ms / 1000, (s->test_delay_ms % 1000) * 1000000L}, NULL);
		if (s->o.on_write) {
			int moved = !strncmp(sandbox_syscall_name(req->data.nr), "rename", 6);
			for (int i = 0; i < c.nw; i++)
				s->o.on_write(s->o.write_ctx, c.wpath[i], moved);
		}
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

/* One message from the launcher within the deadline: its length, 0 at end of file, -1. */
static ssize_t next_message(struct sandbox_supervisor *s, char *msg, size_t cap, uint64_t deadline)
{
	for (;;) {
		uint64_t now = time_mono_ns();
		int left = now >= deadline ? 0 : (int)((deadline - now) / 1000000);
		struct pollfd p[2] = {{s->o.sock, POLLIN, 0}, {s->wake[0], POLLIN, 0}};
		int r = poll(p, 2, left);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0 || p[1].revents)
			return -1;
		ssize_t n = recv(s->o.sock, msg, cap - 1, 0);
		if (n < 0 && errno == EINTR)
			continue;
		if (n >= 0)
			msg[n] = '\0';
		return n;
	}
}

/* The view from the launcher's report, and an fd for each writable zone in the server's
 * own mount namespace (connects the supervisor performs resolve beneath them). */
static void take_view(struct sandbox_supervisor *s, const cJSON *layers)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(layers, "view");
	for (int k = 0; k < 5; k++) {
		const cJSON *a = cJSON_GetObjectItemCaseSensitive(v, sandbox_zone_keys[k]), *it;
		cJSON_ArrayForEach(it, a)
			if (cJSON_IsString(it) && it->valuestring[0] == '/')
				sandbox_view_add(&s->view, it->valuestring, (enum sb_zone)k);
	}
	/* Whatever the report said, the scope, the temp dir and the cache are the writable zones. */
	sandbox_view_add(&s->view, s->scope, SB_ZONE_RW);
	sandbox_view_add(&s->view, s->tmp, SB_ZONE_RW);
	if (s->cache)
		sandbox_view_add(&s->view, s->cache, SB_ZONE_RW);
	char *rp = xasprintf("/proc/%d/root", (int)s->init_pid);
	s->root_fd = open(rp, O_PATH | O_DIRECTORY | O_CLOEXEC);
	free(rp);
	s->zone_fd = xcalloc(s->view.n, sizeof *s->zone_fd);
	for (size_t i = 0; i < s->view.n; i++) {
		s->zone_fd[i] = -1;
		if (s->view.z[i].kind != SB_ZONE_RW)
			continue;
		char *p = xasprintf("/proc/%d/root%s", (int)s->init_pid, s->view.z[i].path);
		s->zone_fd[i] = open(p, O_PATH | O_DIRECTORY | O_CLOEXEC);
		free(p);
	}
}

/* Waits for the launcher's reports and takes the listener. 0 when containment is ready. */
static int handshake(struct sandbox_supervisor *s)
{
	size_t cap = 1 << 17;
	char *msg = xmalloc(cap);
	uint64_t deadline = time_mono_ns() + 30000000000ull;
	int rc = -1;
	cJSON *layers = NULL;
	for (;;) {
		ssize_t n = next_message(s, msg, cap, deadline);
		if (n < 0) {
			post_status(s, 0, "launcher", "the launcher did not report within 30 s", NULL);
			goto out;
		}
		if (n == 0) {
			post_status(s, 0, "launcher", "the launcher exited before containment was installed", NULL);
			goto out;
		}
		if (strncmp(msg, "fail ", 5) == 0) {
			char *tab = strchr(msg + 5, '\t');
			if (tab)
				*tab = '\0';
			post_status(s, 0, msg + 5, tab ? tab + 1 : "unknown failure", NULL);
			goto out;
		}
		int pid = 0;
		if (sscanf(msg, "init %d", &pid) == 1 && pid > 0) {
			s->init_pid = pid;
			continue;
		}
		break;
	}
	int remote_fd = -1, off = 0;
	if (!s->init_pid || sscanf(msg, "ready %d %n", &remote_fd, &off) != 1 || remote_fd < 0) {
		post_status(s, 0, "launcher", "malformed report from the launcher", NULL);
		goto out;
	}
	layers = cJSON_Parse(msg + off);
	int pidfd = (int)syscall(SYS_pidfd_open, s->init_pid, 0);
	s->listener = pidfd < 0 ? -1 : (int)syscall(SYS_pidfd_getfd, pidfd, remote_fd, 0);
	int err = errno;
	s->init_pidfd = pidfd;
	if (s->listener < 0) {
		char why[160];
		snprintf(why, sizeof why, "cannot take the notification listener: %s", strerror(err));
		post_status(s, 0, "supervisor", why, layers);
		layers = NULL;
		goto out;
	}
	fcntl(s->listener, F_SETFD, FD_CLOEXEC);
	char link[64];
	snprintf(link, sizeof link, "/proc/%d/ns/user", (int)s->init_pid);
	ssize_t ln = readlink(link, s->userns, sizeof s->userns - 1);
	s->userns[ln > 0 ? ln : 0] = '\0';
	take_view(s, layers);
	s->private_netns = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(layers, "network_namespace"));
	if (layers)
		cJSON_AddStringToObject(layers, "userns", s->userns);
	atomic_store(&s->ready, 1);
	post_status(s, 1, NULL, NULL, layers);
	layers = NULL;
	rc = send(s->o.sock, "go", 2, MSG_NOSIGNAL) == 2 ? 0 : -1;
out:
	cJSON_Delete(layers);
	free(msg);
	return rc;
}

/* This thread only: no signals, no capabilities. */
static void restrict_thread(void)
{
	sigset_t all;
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, NULL);
	struct __user_cap_header_struct hdr = {.version = _LINUX_CAPABILITY_VERSION_3, .pid = 0};
	struct __user_cap_data_struct data[2];
	memset(data, 0, sizeof data);
	(void)syscall(SYS_capset, &hdr, data);
}

static void *supervisor_main(void *arg)
{
	struct sandbox_supervisor *s = arg;
	restrict_thread();
	if (handshake(s) != 0) {
		/* A launcher waiting for "go" reads end-of-file instead, refuses and exits 2:
		 * the server never runs, and the session sees its exit rather than waiting. */
		shutdown(s->o.sock, SHUT_RDWR);
		return NULL;
	}
	struct seccomp_notif *req = NULL;
	struct seccomp_notif_resp *resp = NULL;
	if (seccomp_notify_alloc(&req, &resp) != 0) {
		/* Cannot answer: end the sandbox rather than leave its calls waiting forever. */
		syscall(SYS_pidfd_send_signal, s->init_pidfd, SIGKILL, NULL, 0);
		return NULL;
	}
#ifdef BELAY_TEST_SWITCHES
	const char *d = getenv(SB_TEST_DELAY_ENV);
	long ms = d ? strtol(d, NULL, 10) : 0;
	s->test_delay_ms = ms > 0 && ms <= 10000 ? ms : 0;
#endif
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

static void free_supervisor(struct sandbox_supervisor *s)
{
	for (size_t i = 0; s->zone_fd && i < s->view.n; i++)
		if (s->zone_fd[i] >= 0)
			close(s->zone_fd[i]);
	free(s->zone_fd);
	if (s->init_pidfd >= 0)
		close(s->init_pidfd);
	if (s->root_fd >= 0)
		close(s->root_fd);
	sandbox_view_free(&s->view);
	free(s->scope);
	free(s->tmp);
	free(s->cache);
	free(s);
}

int sandbox_supervisor_start(const struct sandbox_supervisor_opts *o, struct sandbox_supervisor **out)
{
	struct sandbox_supervisor *s = xcalloc(1, sizeof *s);
	s->o = *o;
	s->scope = xstrdup(o->scope);
	s->tmp = xstrdup(o->tmp);
	s->cache = o->cache ? xstrdup(o->cache) : NULL;
	s->listener = -1;
	s->init_pidfd = -1;
	s->root_fd = -1;
	sb_decide_register(s);
	sb_net_register(s);
	if (pipe2(s->wake, O_CLOEXEC) != 0) {
		int err = errno;
		close(o->sock);
		free_supervisor(s);
		return -err;
	}
	int rc = pthread_create(&s->thread, NULL, supervisor_main, s);
	if (rc) {
		close(o->sock);
		close(s->wake[0]);
		close(s->wake[1]);
		free_supervisor(s);
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
	/* The pid namespace's first process takes every other one with it. */
	if (s->init_pidfd >= 0 && syscall(SYS_pidfd_send_signal, s->init_pidfd, SIGKILL, NULL, 0) == 0) {
		++*killed;
		if (filter_unused(s->listener, 50))
			return 1;
	}
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
	free_supervisor(s);
}
