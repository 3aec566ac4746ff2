/* sandbox_decide.c - the supervisor's decisions on files, other processes, locks, the
 * terminal and the calls no tool server needs (supervisor thread). Each decider resolves
 * its arguments in the server's own view (sandbox_resolve.c, sandbox_view.c) and answers
 * A_CONTINUE, or refuses and names the call (sb_refuse); a call it cannot decide (an
 * unreadable argument, a path it cannot resolve) is refused, never let through. */
#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "common/jsonx.h"
#include "sandbox/sandbox_resolve.h"
#include "sandbox/sandbox_uapi.h"
#include "sandbox/sandbox_supervisor_internal.h"

/* O_TMPFILE includes O_DIRECTORY's bit: it is set only when all of its bits are. */
#define IS_TMPFILE(fl) (((fl) & O_TMPFILE) == O_TMPFILE)

#define A(i) (c->req->data.args[i])
#define I32(i) ((int)(int32_t)(uint32_t)c->req->data.args[i])

/*==== paths ====*/

enum intent { READ, WRITE };
/* What a call needs of its path before the kernel would even check permission: a call that
 * will fail anyway (EEXIST, ENOENT, ENOTDIR) is left to the kernel, so the sandbox never
 * turns "exists" into "denied" (mkdir -p relies on EEXIST). */
enum need { NEED_ANY = 0, NEED_ABSENT, NEED_PRESENT };

static int view_stat(const struct call *c, const char *res, struct stat *st, int follow)
{
	if (c->s->root_fd >= 0)
		return fstatat(c->s->root_fd, res[1] ? res + 1 : ".", st, follow ? 0 : AT_SYMLINK_NOFOLLOW);
	char p[PATH_MAX + 48];
	if ((size_t)snprintf(p, sizeof p, "/proc/%d/root%s", (int)c->req->pid, strcmp(res, "/") ? res : "") >= sizeof p)
		return -1;
	return follow ? stat(p, st) : lstat(p, st);
}

/* The read of a path the kernel can find: where it lands, resolved by the kernel itself in
 * the server's view (one openat2 beneath its root instead of a walk). 0 with res filled; -1
 * when the fast way does not apply (a missing entry, /proc, an error): walk instead. */
static int read_fast(struct call *c, int dirfd, const char *raw, int follow, char *res, size_t n)
{
	if (c->s->root_fd < 0)
		return -1;
	char abs[PATH_MAX * 2];
	if (raw[0] == '/') {
		if ((size_t)snprintf(abs, sizeof abs, "%s", raw) >= sizeof abs)
			return -1;
	} else {
		char base[PATH_MAX];
		if (sandbox_base(c->req->pid, dirfd, base, sizeof base) != SB_PATH ||
		    (size_t)snprintf(abs, sizeof abs, "%s/%s", base, raw) >= sizeof abs)
			return -1;
	}
	/* /proc/self is the server's, not ours: the walk maps it. */
	const char *q = abs;
	while (*q == '/')
		q++;
	if (!strncmp(q, "proc", 4) && (q[4] == '/' || !q[4]))
		return -1;
	struct open_how how = {.flags = O_PATH | O_CLOEXEC | (follow ? 0 : O_NOFOLLOW),
			       .resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS};
	int fd = (int)syscall(SYS_openat2, c->s->root_fd, abs, &how, sizeof how);
	if (fd < 0)
		return -1;
	char link[40];
	snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
	ssize_t len = readlink(link, res, n - 1);
	close(fd);
	if (len <= 0 || (size_t)len >= n - 1 || res[0] != '/')
		return -1;
	res[len] = '\0';
	return 0;
}

static int path_state_ok(const struct call *c, const char *res, enum need need)
{
	struct stat st;
	if (need == NEED_ANY)
		return 1;
	if (need == NEED_PRESENT)
		return view_stat(c, res, &st, 0) == 0;
	/* NEED_ABSENT: the entry must not exist and its parent directory must. */
	if (view_stat(c, res, &st, 0) == 0)
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
	return view_stat(c, parent, &st, 1) == 0 && S_ISDIR(st.st_mode);
}

static void add_as_given(cJSON *rec, const char *key, const char *raw, const char *res)
{
	if (!raw[0] || (res && !strcmp(raw, res)))
		return;
	char k2[32];
	snprintf(k2, sizeof k2, "%s_as_given", key);
	if (!cJSON_GetObjectItemCaseSensitive(rec, k2))
		cJSON_AddItemToObject(rec, k2, jx_bytes(raw, strlen(raw)));
}

/* 1 when the caller has a controlling terminal (field 7 of /proc/PID/stat, tty_nr). */
static int has_ctty(const struct call *c)
{
	char path[64], line[1024];
	snprintf(path, sizeof path, "/proc/%d/stat", (int)c->req->pid);
	FILE *f = fopen(path, "re");
	if (!f)
		return 1;
	int tty = 1;
	if (fgets(line, sizeof line, f)) {
		const char *p = strrchr(line, ')'); /* comm may hold spaces and parentheses */
		if (p && sscanf(p + 1, " %*c %*d %*d %*d %d", &tty) != 1)
			tty = 1;
	}
	fclose(f);
	return tty != 0;
}

/* One path argument: read it, resolve it in the server's view, decide. */
static int check_path(struct call *c, int dirfd, uint64_t addr, int follow, int empty_is_fd, const char *flags,
		      const char *key, enum need need, enum intent in)
{
	char raw[PATH_MAX], res[PATH_MAX];
	if (addr == 0) {
		raw[0] = '\0';
		if (!empty_is_fd)
			return A_CONTINUE; /* a NULL pointer: the kernel answers EFAULT */
	} else {
		int r = sb_read_str(c->req->pid, addr, raw, sizeof raw);
		if (r == -EFAULT)
			return sb_refuse(c, EFAULT, "unreadable");
		if (r == -ENAMETOOLONG) {
			add_as_given(sb_denial(c, "path_too_long"), key, raw, NULL);
			c->err = ENAMETOOLONG;
			return A_REFUSE;
		}
	}
	enum sb_resolved k;
	if (in == READ && raw[0] && read_fast(c, dirfd, raw, follow, res, sizeof res) == 0)
		k = SB_PATH;
	else
		k = sandbox_resolve(c->req->pid, c->s->root_fd, dirfd, raw, follow, empty_is_fd, res, sizeof res);
	if (k == SB_UNKNOWN) {
		c->unresolved = 1;
		add_as_given(sb_denial(c, "unresolved"), key, raw, NULL);
		if (flags && !cJSON_GetObjectItemCaseSensitive(c->rec, "flags"))
			cJSON_AddStringToObject(c->rec, "flags", flags);
		c->err = EACCES;
		return A_REFUSE;
	}
	if (k == SB_SPECIAL)
		return A_CONTINUE; /* a pipe, socket or anonymous inode, never a tree entry */
	enum sb_zone z = sb_zone_of(c, res, NULL);
	int hidden = sb_hides(c, z, res);
	if (in == READ && !hidden)
		return A_CONTINUE;
	if (in == WRITE && (z == SB_ZONE_RW || z == SB_ZONE_DEVICE)) {
		sb_note_write(c, key, res);
		return A_CONTINUE;
	}
	if (in == WRITE && !strcmp(res, "/dev/tty") && !has_ctty(c)) {
		/* No controlling terminal (the sandbox's session has none): what the kernel says. */
		c->err = ENXIO;
		c->val = 0;
		return A_REPLY;
	}
	if (!hidden && !path_state_ok(c, res, need))
		return A_CONTINUE; /* the kernel answers EEXIST / ENOENT itself */
	cJSON *rec = sb_denial(c, hidden ? "hidden" : sandbox_path_under(res, "/proc") ? "proc" : "outside_scope");
	cJSON_AddStringToObject(rec, key, res);
	add_as_given(rec, key, raw, res);
	if (flags && !cJSON_GetObjectItemCaseSensitive(rec, "flags"))
		cJSON_AddStringToObject(rec, "flags", flags);
	/* A hidden location is not there, as far as the server can tell. */
	c->err = hidden ? ENOENT : EACCES;
	return A_REFUSE;
}

static void flags_text(uint64_t fl, char *out, size_t n)
{
	out[0] = '\0';
	const struct {
		uint64_t bit;
		const char *name;
	} names[] = {{O_WRONLY, "O_WRONLY"}, {O_RDWR, "O_RDWR"},     {O_CREAT, "O_CREAT"},       {O_EXCL, "O_EXCL"},
		     {O_TRUNC, "O_TRUNC"},   {O_APPEND, "O_APPEND"}, {O_TMPFILE, "O_TMPFILE"}, {O_NOFOLLOW, "O_NOFOLLOW"},
		     {O_PATH, "O_PATH"}};
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
		if ((fl & names[i].bit) == names[i].bit) {
			if (out[0])
				strncat(out, "|", n - strlen(out) - 1);
			strncat(out, names[i].name, n - strlen(out) - 1);
		}
	if (!out[0])
		snprintf(out, n, "O_RDONLY");
}

static int decide_open_flags(struct call *c, int dirfd, uint64_t addr, uint64_t flags)
{
	char fl[128];
	flags_text(flags, fl, sizeof fl);
	int write = (flags & (O_WRONLY | O_RDWR | O_CREAT | O_TRUNC)) != 0 || IS_TMPFILE(flags);
	int excl = (flags & O_CREAT) && (flags & O_EXCL);
	int follow = !(flags & O_NOFOLLOW) && !excl;
	enum need need = excl ? NEED_ABSENT : (flags & O_CREAT) ? NEED_ANY : NEED_PRESENT;
	return check_path(c, dirfd, addr, follow, 0, fl, "path", need, write ? WRITE : READ);
}

static int d_open(struct call *c)
{
	return decide_open_flags(c, AT_FDCWD, A(0), A(1));
}

static int d_creat(struct call *c)
{
	return decide_open_flags(c, AT_FDCWD, A(0), O_CREAT | O_WRONLY | O_TRUNC);
}

static int d_openat(struct call *c)
{
	return decide_open_flags(c, I32(0), A(1), A(2));
}

static int d_openat2(struct call *c)
{
	struct open_how how;
	memset(&how, 0, sizeof how);
	size_t sz = A(3) < sizeof how ? A(3) : sizeof how;
	if (sz && sb_read_mem(c->req->pid, A(2), &how, sz) != 0)
		return sb_refuse(c, EFAULT, "unreadable");
	return decide_open_flags(c, I32(0), A(1), how.flags);
}

static int d_mkdir_like(struct call *c) /* mkdir, mknod: path first; symlink: path second */
{
	return check_path(c, AT_FDCWD, !strcmp(c->op, "symlink") ? A(1) : A(0), 0, 0, NULL, "path", NEED_ABSENT, WRITE);
}

static int d_mkdirat_like(struct call *c) /* mkdirat, mknodat */
{
	return check_path(c, I32(0), A(1), 0, 0, NULL, "path", NEED_ABSENT, WRITE);
}

static int d_symlinkat(struct call *c)
{
	return check_path(c, I32(1), A(2), 0, 0, NULL, "path", NEED_ABSENT, WRITE);
}

static int d_path0(struct call *c) /* the path-first calls on an existing entry */
{
	static const char *const follows[] = {"chmod", "chown", "truncate", "utime", "utimes", "setxattr", "removexattr", NULL};
	int follow = 0;
	for (const char *const *f = follows; *f; f++)
		follow |= !strcmp(c->op, *f);
	return check_path(c, AT_FDCWD, A(0), follow, 0, NULL, "path", NEED_PRESENT, WRITE);
}

static int d_futimesat(struct call *c)
{
	return check_path(c, I32(0), A(1), 1, 0, NULL, "path", NEED_PRESENT, WRITE);
}

static int d_unlinkat(struct call *c)
{
	return check_path(c, I32(0), A(1), 0, 0, NULL, "path", NEED_PRESENT, WRITE);
}

static int d_fchmodat_like(struct call *c) /* fchmodat, fchmodat2, fchownat */
{
	uint64_t flags = !strcmp(c->op, "fchownat") ? A(4) : !strcmp(c->op, "fchmodat2") ? A(3) : 0;
	return check_path(c, I32(0), A(1), !(flags & AT_SYMLINK_NOFOLLOW), !!(flags & AT_EMPTY_PATH), NULL, "path",
			  NEED_PRESENT, WRITE);
}

static int d_utimensat(struct call *c) /* a NULL path means the fd itself (futimens) */
{
	return check_path(c, I32(0), A(1), !(A(3) & AT_SYMLINK_NOFOLLOW), 1, NULL, "path", NEED_PRESENT, WRITE);
}

static int d_fd_write(struct call *c) /* fchmod, fchown, fsetxattr, fremovexattr */
{
	return check_path(c, I32(0), 0, 1, 1, NULL, "path", NEED_PRESENT, WRITE);
}

static int d_xattrat(struct call *c) /* setxattrat, removexattrat */
{
	return check_path(c, I32(0), A(1), !(A(2) & AT_SYMLINK_NOFOLLOW), !!(A(2) & AT_EMPTY_PATH), NULL, "path",
			  NEED_PRESENT, WRITE);
}

static int d_rename_link(struct call *c)
{
	const char *op = c->op;
	int isat = strcmp(op, "rename") && strcmp(op, "link"), islink = !strcmp(op, "link") || !strcmp(op, "linkat");
	int follow_old = !strcmp(op, "linkat") && (A(4) & AT_SYMLINK_FOLLOW);
	/* link needs a free target name; rename may replace one. Both need the source. Both
	 * paths are checked and named, whichever refuses. */
	int x = check_path(c, isat ? I32(0) : AT_FDCWD, isat ? A(1) : A(0), follow_old, 0, NULL, "path", NEED_PRESENT, WRITE);
	int y = check_path(c, isat ? I32(2) : AT_FDCWD, isat ? A(3) : A(1), 0, 0, NULL, "to",
			   islink ? NEED_ABSENT : NEED_ANY, WRITE);
	return x == A_REFUSE || y == A_REFUSE ? A_REFUSE : A_CONTINUE;
}

/* An fd the call acts on: where it points, and whether that is writable. */
static int check_fd(struct call *c, int fd, int err, const char *reason)
{
	char res[PATH_MAX];
	enum sb_resolved k = sandbox_resolve(c->req->pid, c->s->root_fd, fd, "", 0, 1, res, sizeof res);
	if (k == SB_SPECIAL)
		return A_CONTINUE;
	if (k == SB_UNKNOWN) {
		cJSON_AddNumberToObject(sb_denial(c, "unresolved"), "fd", fd);
		c->err = err;
		return A_REFUSE;
	}
	enum sb_zone z = sb_zone_of(c, res, NULL);
	if (z == SB_ZONE_RW || z == SB_ZONE_DEVICE)
		return A_CONTINUE;
	cJSON_AddStringToObject(sb_denial(c, reason), "path", res);
	c->err = err;
	return A_REFUSE;
}

/*==== locks and leases ====*/

static int d_flock(struct call *c)
{
	if (A(1) & LOCK_UN)
		return A_CONTINUE;
	return check_fd(c, I32(0), EACCES, "lock_outside_scope");
}

static int d_fcntl(struct call *c)
{
	unsigned cmd = (unsigned)A(1);
	if (cmd == F_SETLEASE) {
		/* A lease stalls every other opener for up to lease-break-time: refused wherever
		 * the file is (a decision on the command alone cannot be raced). */
		if ((unsigned)A(2) == F_UNLCK)
			return A_CONTINUE;
		cJSON *rec = sb_denial(c, "lease");
		cJSON_AddStringToObject(rec, "cmd", "F_SETLEASE");
		char res[PATH_MAX];
		if (sandbox_resolve(c->req->pid, c->s->root_fd, I32(0), "", 0, 1, res, sizeof res) == SB_PATH)
			cJSON_AddStringToObject(rec, "path", res);
		c->err = EACCES;
		return A_REFUSE;
	}
	struct flock fl;
	if (sb_read_mem(c->req->pid, A(2), &fl, sizeof fl) != 0)
		return sb_refuse(c, EFAULT, "unreadable");
	if (fl.l_type == F_UNLCK)
		return A_CONTINUE;
	int rc = check_fd(c, I32(0), EACCES, "lock_outside_scope");
	if (rc == A_REFUSE)
		cJSON_AddStringToObject(c->rec, "cmd", cmd == F_SETLK ? "F_SETLK" : cmd == F_SETLKW ? "F_SETLKW"
							: cmd == F_OFD_SETLK ? "F_OFD_SETLK" : "F_OFD_SETLKW");
	return rc;
}

/*==== ioctl ====*/

static int d_ioctl(struct call *c)
{
	unsigned req = (unsigned)A(1);
	if (req == TIOCSTI || req == TIOCLINUX) {
		cJSON_AddStringToObject(sb_denial(c, "terminal_injection"), "request", req == TIOCSTI ? "TIOCSTI" : "TIOCLINUX");
		c->err = EPERM;
		return A_REFUSE;
	}
	int rc = check_fd(c, I32(0), EPERM, "outside_scope");
	if (rc == A_REFUSE)
		cJSON_AddStringToObject(c->rec, "request", req == FS_IOC_FSSETXATTR ? "FS_IOC_FSSETXATTR" : "FS_IOC_SETFLAGS");
	return rc;
}

/*==== other processes ====*/

enum tstate { T_INSIDE, T_OUTSIDE, T_ABSENT };

static enum tstate ns_state(const struct call *c, const char *link)
{
	char ns[64];
	ssize_t n = readlink(link, ns, sizeof ns - 1);
	if (n < 0)
		return errno == ENOENT || errno == ESRCH ? T_ABSENT : T_OUTSIDE;
	ns[n] = '\0';
	return strcmp(ns, c->s->userns) ? T_OUTSIDE : T_INSIDE;
}

/* A pid as the caller names it (in its own pid namespace, which its /proc counts in). */
static enum tstate target(const struct call *c, long long pid)
{
	if (pid == 0)
		return T_INSIDE;
	char link[96];
	snprintf(link, sizeof link, "/proc/%d/root/proc/%lld/ns/user", (int)c->req->pid, pid);
	return ns_state(c, link);
}

/* The process a pidfd of the caller's refers to; -2 when the fd is not a pidfd. */
static long long pidfd_target(const struct call *c, int fd)
{
	char path[64], line[128];
	snprintf(path, sizeof path, "/proc/%d/fdinfo/%d", (int)c->req->pid, fd);
	FILE *f = fopen(path, "re");
	long long target = -2;
	if (!f)
		return -2;
	while (fgets(line, sizeof line, f))
		if (sscanf(line, "Pid: %lld", &target) == 1)
			break;
	fclose(f);
	return target;
}

static int refuse_target(struct call *c, enum tstate t, long long pid)
{
	cJSON_AddNumberToObject(sb_denial(c, t == T_ABSENT ? "not_in_sandbox" : "outside_sandbox"), "target_pid", (double)pid);
	c->err = t == T_ABSENT ? ESRCH : EPERM;
	return A_REFUSE;
}

/* A call that acts on another process: allowed on the sandbox's own processes only. */
static int check_target(struct call *c, long long pid)
{
	enum tstate t = target(c, pid);
	return t == T_INSIDE ? A_CONTINUE : refuse_target(c, t, pid);
}

/* A pidfd argument (pidfd_getfd, process_madvise, pidfd_send_signal). */
static int check_pidfd(struct call *c, int fd, int sig)
{
	long long g = pidfd_target(c, fd);
	if (g == -2 || g <= 0)
		return A_CONTINUE; /* not a pidfd (EBADF, EINVAL) or the process is gone (ESRCH) */
	char link[64];
	snprintf(link, sizeof link, "/proc/%lld/ns/user", g);
	enum tstate t = ns_state(c, link);
	if (t != T_OUTSIDE)
		return A_CONTINUE;
	cJSON *rec = sb_denial(c, "outside_sandbox");
	cJSON_AddNumberToObject(rec, "target_pid", (double)g);
	if (sig >= 0)
		cJSON_AddNumberToObject(rec, "signal", sig);
	c->err = EPERM;
	return A_REFUSE;
}

static int check_signal(struct call *c, long long pid, int sig)
{
	/* Process groups and -1 reach the sandbox's own processes only: it has a session and a
	 * pid namespace of its own (and Landlock's signal scope). */
	if (pid <= 0)
		return A_CONTINUE;
	enum tstate t = target(c, pid);
	if (t != T_OUTSIDE)
		return A_CONTINUE; /* inside, or no such process (the kernel answers ESRCH) */
	cJSON *rec = sb_denial(c, "outside_sandbox");
	cJSON_AddNumberToObject(rec, "target_pid", (double)pid);
	cJSON_AddNumberToObject(rec, "signal", sig);
	c->err = EPERM;
	return A_REFUSE;
}

static int d_kill(struct call *c) /* kill, tkill, rt_sigqueueinfo */
{
	return check_signal(c, I32(0), I32(1));
}

static int d_tgkill(struct call *c) /* tgkill, rt_tgsigqueueinfo */
{
	return check_signal(c, I32(0), I32(2));
}

static int d_pidfd_send_signal(struct call *c)
{
	return check_pidfd(c, I32(0), I32(1));
}

static int d_pidfd_first(struct call *c) /* pidfd_getfd, process_madvise */
{
	return check_pidfd(c, I32(0), -1);
}

static int d_pid_first(struct call *c) /* prlimit64 (setting), sched_set*, process_vm_*, migrate/move_pages, pidfd_open */
{
	return check_target(c, I32(0));
}

static int d_ptrace(struct call *c)
{
	if (A(0) == 0) /* PTRACE_TRACEME: the parent (inside) traces us */
		return A_CONTINUE;
	return check_target(c, I32(1));
}

static int d_kcmp(struct call *c)
{
	int rc = check_target(c, I32(0));
	return rc == A_CONTINUE ? check_target(c, I32(1)) : rc;
}

/* setpriority(which, who) and ioprio_set(which, who): a process, a group, or a user. */
static int check_who(struct call *c, int which_process, int which_group, int which_user)
{
	int which = I32(0);
	long long who = I32(1);
	if (which == which_user) {
		/* Every process of a user id: refused (nothing a tool server needs). */
		cJSON_AddNumberToObject(sb_denial(c, "every_process_of_a_user"), "target_uid", (double)who);
		c->err = EPERM;
		return A_REFUSE;
	}
	if (which == which_process)
		return check_target(c, who);
	if (which == which_group) {
		enum tstate t = target(c, who);
		return t == T_OUTSIDE ? refuse_target(c, t, who) : A_CONTINUE; /* a group may outlive its leader */
	}
	return A_CONTINUE; /* the kernel answers EINVAL */
}

static int d_setpriority(struct call *c)
{
	return check_who(c, PRIO_PROCESS, PRIO_PGRP, PRIO_USER);
}

static int d_ioprio_set(struct call *c)
{
	return check_who(c, 1 /* IOPRIO_WHO_PROCESS */, 2 /* IOPRIO_WHO_PGRP */, 3 /* IOPRIO_WHO_USER */);
}

void sb_decide_register(struct sandbox_supervisor *s)
{
	static const struct {
		const char *name;
		sb_decider fn;
	} table[] = {
		{"open", d_open},
		{"creat", d_creat},
		{"openat", d_openat},
		{"openat2", d_openat2},
		{"mkdir", d_mkdir_like},
		{"mknod", d_mkdir_like},
		{"symlink", d_mkdir_like},
		{"mkdirat", d_mkdirat_like},
		{"mknodat", d_mkdirat_like},
		{"symlinkat", d_symlinkat},
		{"rmdir", d_path0},
		{"unlink", d_path0},
		{"truncate", d_path0},
		{"chmod", d_path0},
		{"chown", d_path0},
		{"lchown", d_path0},
		{"utime", d_path0},
		{"utimes", d_path0},
		{"setxattr", d_path0},
		{"lsetxattr", d_path0},
		{"removexattr", d_path0},
		{"lremovexattr", d_path0},
		{"futimesat", d_futimesat},
		{"unlinkat", d_unlinkat},
		{"fchmodat", d_fchmodat_like},
		{"fchmodat2", d_fchmodat_like},
		{"fchownat", d_fchmodat_like},
		{"utimensat", d_utimensat},
		{"fchmod", d_fd_write},
		{"fchown", d_fd_write},
		{"fsetxattr", d_fd_write},
		{"fremovexattr", d_fd_write},
		{"setxattrat", d_xattrat},
		{"removexattrat", d_xattrat},
		{"rename", d_rename_link},
		{"renameat", d_rename_link},
		{"renameat2", d_rename_link},
		{"link", d_rename_link},
		{"linkat", d_rename_link},
		{"flock", d_flock},
		{"fcntl", d_fcntl},
		{"ioctl", d_ioctl},
		{"kill", d_kill},
		{"tkill", d_kill},
		{"rt_sigqueueinfo", d_kill},
		{"tgkill", d_tgkill},
		{"rt_tgsigqueueinfo", d_tgkill},
		{"pidfd_send_signal", d_pidfd_send_signal},
		{"pidfd_getfd", d_pidfd_first},
		{"process_madvise", d_pidfd_first},
		{"prlimit64", d_pid_first},
		{"sched_setaffinity", d_pid_first},
		{"sched_setscheduler", d_pid_first},
		{"sched_setparam", d_pid_first},
		{"sched_setattr", d_pid_first},
		{"process_vm_readv", d_pid_first},
		{"process_vm_writev", d_pid_first},
		{"migrate_pages", d_pid_first},
		{"move_pages", d_pid_first},
		{"ptrace", d_ptrace},
		{"pidfd_open", d_pid_first},
		{"kcmp", d_kcmp},
		{"setpriority", d_setpriority},
		{"ioprio_set", d_ioprio_set},
	};
	for (size_t i = 0; i < sizeof table / sizeof table[0]; i++)
		sb_register(s, table[i].name, table[i].fn);
	/* Newer than libseccomp's tables (x86_64 numbers; sandbox_filter.c traps them). */
#ifdef __x86_64__
	s->by_nr[452] = d_fchmodat_like, s->name_by_nr[452] = "fchmodat2";
	s->by_nr[463] = d_xattrat, s->name_by_nr[463] = "setxattrat";
	s->by_nr[465] = d_xattrat, s->name_by_nr[465] = "removexattrat";
#endif
}
