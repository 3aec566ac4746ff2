/* sandbox_launch.c - the launcher stage of a contained server, run as
 *   belay __launch --scope DIR --tmp DIR --net deny|allow --status-fd N [--hide DIR]
 *                  [--cache DIR] -- EXE ARGV0 [ARGS...]
 * between fork and exec (libuv cannot run code in the child, so belay re-executes itself).
 *
 * Single-threaded, runs in the child only. Installs, in order: a user namespace (always;
 * with the caller's uid/gid mapped to themselves), a mount namespace in which everything is
 * read-only except the scope, the private temp dir and the cache (sandbox_cache.h), a network
 * namespace (deny), no_new_privs,
 * Landlock (writes, TCP, signal and abstract-socket scopes), an empty capability bounding set,
 * and the seccomp filter whose notifications the supervisor in the proxy handles. Each step
 * names itself; if any fails the launcher reports the layer on the status channel and on
 * stderr, and exits 2 without exec: the server never runs bare. */
#include <errno.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <net/if.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "common/buf.h"
#include "sandbox/landlock.h"
#include "sandbox/sandbox.h"
#include "sandbox/sandbox_cache.h"
#include "sandbox/sandbox_filter.h"
#include "sandbox/sandbox_resolve.h"

#ifndef SECCOMP_IOCTL_NOTIF_SET_FLAGS
#define SECCOMP_IOCTL_NOTIF_SET_FLAGS _IOW('!', 4, uint64_t)
#endif
#define SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP (1UL << 0)

struct launch {
	const char *scope, *tmp, *net, *hide, *cache;
	int status_fd;
	char *const *argv; /* argv[0] = exe path, argv[1..] = the server's argv */
	int deny;
	struct buf layers; /* JSON object body describing what was installed */
};

static __attribute__((format(printf, 3, 4))) int refuse(struct launch *l, const char *layer, const char *fmt, ...)
{
	char msg[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	fprintf(stderr, "belay: refusing to run unsandboxed: %s: %s\n", layer, msg);
	if (l->status_fd >= 0) {
		char line[700];
		int n = snprintf(line, sizeof line, "fail %s\t%s", layer, msg);
		(void)!write(l->status_fd, line, (size_t)n);
	}
	buf_free(&l->layers); /* a refusal ends the launcher */
	return 2;
}

static int write_file(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	ssize_t n = write(fd, text, strlen(text));
	int rc = n == (ssize_t)strlen(text) ? 0 : -errno;
	close(fd);
	return rc;
}

static int setup_namespaces(struct launch *l)
{
	uid_t uid = geteuid();
	gid_t gid = getegid();
	int flags = CLONE_NEWUSER | CLONE_NEWNS | (l->deny ? CLONE_NEWNET : 0);
	if (unshare(flags) != 0)
		return refuse(l, "namespaces", "unshare(user%s + mount) failed: %s", l->deny ? " + network" : "",
			      strerror(errno));
	char map[64];
	int rc = write_file("/proc/self/setgroups", "deny");
	if (rc == 0) {
		snprintf(map, sizeof map, "%u %u 1", (unsigned)uid, (unsigned)uid);
		rc = write_file("/proc/self/uid_map", map);
	}
	if (rc == 0) {
		snprintf(map, sizeof map, "%u %u 1", (unsigned)gid, (unsigned)gid);
		rc = write_file("/proc/self/gid_map", map);
	}
	if (rc)
		return refuse(l, "user-namespace", "cannot write the uid/gid map: %s", strerror(-rc));
	buf_printf(&l->layers, "\"user_namespace\":true,\"network_namespace\":%s,", l->deny ? "true" : "false");
	return 0;
}

/* Everything read-only but the scope and the temp dir: refuses chmod/chown/utimes/xattr
 * outside the scope, which Landlock cannot. */
static int setup_mounts(struct launch *l)
{
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0)
		return refuse(l, "mount-namespace", "cannot make mounts private: %s", strerror(errno));
	const char *roots[] = {l->scope, l->tmp, l->cache};
	int nroots = l->cache && *l->cache ? 3 : 2;
	for (int i = 0; i < nroots; i++)
		if (mount(roots[i], roots[i], NULL, MS_BIND | MS_REC, NULL) != 0)
			return refuse(l, "mount-namespace", "cannot bind %s: %s", roots[i], strerror(errno));
	/* belay's own state (traces, snapshots, the approval key) vanishes under an empty tmpfs. */
	struct stat hs;
	if (l->hide && *l->hide && stat(l->hide, &hs) == 0 && S_ISDIR(hs.st_mode)) {
		if (mount("belay-hidden", l->hide, "tmpfs", MS_NOSUID | MS_NODEV | MS_NOEXEC, "size=4k,mode=0500") != 0)
			return refuse(l, "mount-namespace", "cannot hide %s: %s", l->hide, strerror(errno));
		buf_puts(&l->layers, "\"state_hidden\":true,");
	}
	/* Under deny, the host's name-service cache vanishes too: nscd answers hosts lookups
	 * from outside the network namespace, a way around it; and libc asks it on its own for
	 * every user lookup (bash without HOME, ls -l), which the supervisor would refuse as a
	 * connect outside the scope - on hosts that run nscd only. Hidden, libc falls back to
	 * its files as on a host without nscd, and the sandbox behaves the same everywhere. */
	if (l->deny && stat("/run/nscd", &hs) == 0 && S_ISDIR(hs.st_mode)) {
		if (mount("belay-hidden", "/run/nscd", "tmpfs", MS_NOSUID | MS_NODEV | MS_NOEXEC, "size=4k,mode=0500") != 0)
			return refuse(l, "mount-namespace", "cannot hide the name-service cache /run/nscd: %s", strerror(errno));
		buf_puts(&l->layers, "\"name_service_cache_hidden\":true,");
	}
	struct mount_attr ro = {.attr_set = MOUNT_ATTR_RDONLY};
	if (mount_setattr(AT_FDCWD, "/", AT_RECURSIVE, &ro, sizeof ro) != 0)
		return refuse(l, "mount-namespace", "cannot make the filesystem read-only: %s", strerror(errno));
	struct mount_attr rw = {.attr_clr = MOUNT_ATTR_RDONLY};
	for (int i = 0; i < nroots; i++)
		if (mount_setattr(AT_FDCWD, roots[i], AT_RECURSIVE, &rw, sizeof rw) != 0)
			return refuse(l, "mount-namespace", "cannot make %s writable: %s", roots[i], strerror(errno));
	/* The cwd still points at the directory under the new bind mount: enter it again. */
	char cwd[4096];
	if (getcwd(cwd, sizeof cwd) && chdir(cwd) != 0)
		return refuse(l, "mount-namespace", "cannot re-enter the working directory %s: %s", cwd, strerror(errno));
	buf_puts(&l->layers, "\"read_only_mounts\":true,");
	return 0;
}

static int add_path_rule(int rfd, const char *path, uint64_t rights)
{
	int fd = open(path, O_PATH | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	struct ll_path_beneath_attr pb = {.allowed_access = rights, .parent_fd = fd};
	int rc = syscall(__NR_landlock_add_rule, rfd, LL_RULE_PATH_BENEATH, &pb, 0) == 0 ? 0 : -errno;
	close(fd);
	return rc;
}

static int setup_landlock(struct launch *l)
{
	int abi = ll_abi();
	if (abi < 0)
		return refuse(l, "landlock", "Landlock is not available on this kernel (the ABI probe failed)");
	if (abi < 6)
		return refuse(l, "landlock", "kernel Landlock ABI %d lacks signal and abstract-socket scoping (needs 6)",
			      abi);
	uint64_t fs = ll_fs_write_rights(abi);
	struct ll_ruleset_attr ra = {
		.handled_access_fs = fs,
		.handled_access_net = l->deny ? (LL_NET_BIND_TCP | LL_NET_CONNECT_TCP) : 0,
		.scoped = LL_SCOPE_ABSTRACT_UNIX_SOCKET | LL_SCOPE_SIGNAL,
	};
	int rfd = (int)syscall(__NR_landlock_create_ruleset, &ra, sizeof ra, 0);
	if (rfd < 0)
		return refuse(l, "landlock", "cannot create a ruleset: %s", strerror(errno));
	int rc = add_path_rule(rfd, l->scope, fs);
	if (rc == 0)
		rc = add_path_rule(rfd, l->tmp, fs);
	if (rc == 0 && l->cache && *l->cache)
		rc = add_path_rule(rfd, l->cache, fs);
	if (rc) {
		close(rfd);
		return refuse(l, "landlock", "cannot add the write roots: %s", strerror(-rc));
	}
	for (const char *const *d = sandbox_devices; *d; d++) {
		int r = add_path_rule(rfd, *d, ll_file_rights(abi));
		if (r && r != -ENOENT && r != -ENXIO) {
			close(rfd);
			return refuse(l, "landlock", "cannot grant %s: %s", *d, strerror(-r));
		}
	}
	unsigned flags = abi >= 7 ? LL_RESTRICT_SELF_LOG_NEW_EXEC_ON : 0;
	if (syscall(__NR_landlock_restrict_self, rfd, flags) != 0) {
		int err = errno;
		close(rfd);
		return refuse(l, "landlock", "restrict_self failed: %s", strerror(err));
	}
	close(rfd);
	buf_printf(&l->layers, "\"landlock\":{\"abi\":%d,\"fs_write\":true,\"tcp\":%s,\"scopes\":[\"signal\",\"abstract_unix_socket\"]},",
		   abi, l->deny ? "\"denied\"" : "\"allowed\"");
	return 0;
}

static int drop_capabilities(struct launch *l)
{
	int last = 40;
	FILE *f = fopen("/proc/sys/kernel/cap_last_cap", "re");
	if (f) {
		if (fscanf(f, "%d", &last) != 1)
			last = 40;
		fclose(f);
	}
	for (int c = 0; c <= last; c++)
		if (prctl(PR_CAPBSET_DROP, c, 0, 0, 0) != 0 && errno != EINVAL)
			return refuse(l, "capabilities", "cannot drop capability %d from the bounding set: %s", c,
				      strerror(errno));
	prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0);
	struct __user_cap_header_struct hdr = {.version = _LINUX_CAPABILITY_VERSION_3, .pid = 0};
	struct __user_cap_data_struct data[2];
	memset(data, 0, sizeof data);
	if (syscall(SYS_capset, &hdr, data) != 0)
		return refuse(l, "capabilities", "cannot clear capabilities: %s", strerror(errno));
	buf_puts(&l->layers, "\"capabilities\":\"none\",");
	return 0;
}

static int setup_seccomp(struct launch *l, int *notify_fd)
{
	struct err e = {0};
	scmp_filter_ctx ctx = sandbox_filter_build(&e);
	if (!ctx)
		return refuse(l, "seccomp", "%s", e.msg);
	int rc = seccomp_load(ctx);
	if (rc) {
		seccomp_release(ctx);
		return refuse(l, "seccomp", "cannot load the filter: %s", strerror(-rc));
	}
	*notify_fd = seccomp_notify_fd(ctx);
	seccomp_release(ctx); /* keeps the loaded filter and the listener fd */
	if (*notify_fd < 0)
		return refuse(l, "seccomp", "the kernel gave no notification listener");
	int sync = ioctl(*notify_fd, SECCOMP_IOCTL_NOTIF_SET_FLAGS, SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP) == 0;
	buf_printf(&l->layers, "\"seccomp\":{\"arch\":\"native-only\",\"supervisor\":true,\"sync_wake_up\":%s}",
		   sync ? "true" : "false");
	return 0;
}

int sandbox_launch_main(int argc, char **argv)
{
	struct launch l = {.status_fd = -1};
	int i = 1;
	for (; i < argc; i++) {
		if (!strcmp(argv[i], "--"))
			break;
		if (i + 1 >= argc)
			return refuse(&l, "launcher", "option %s needs a value", argv[i]);
		if (!strcmp(argv[i], "--scope"))
			l.scope = argv[++i];
		else if (!strcmp(argv[i], "--tmp"))
			l.tmp = argv[++i];
		else if (!strcmp(argv[i], "--net"))
			l.net = argv[++i];
		else if (!strcmp(argv[i], "--status-fd"))
			l.status_fd = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--hide"))
			l.hide = argv[++i];
		else if (!strcmp(argv[i], "--cache"))
			l.cache = argv[++i];
		else
			return refuse(&l, "launcher", "unknown option %s", argv[i]);
	}
	if (i >= argc - 2 || !l.scope || !l.tmp || !l.net || (strcmp(l.net, "deny") && strcmp(l.net, "allow")))
		return refuse(&l, "launcher", "usage: belay __launch --scope DIR --tmp DIR --net deny|allow "
					      "--status-fd N -- EXE ARGV0 [ARGS...]");
	l.argv = argv + i + 1;
	l.deny = !strcmp(l.net, "deny");
	buf_puts(&l.layers, "{");

	int notify_fd = -1;
	if (setup_namespaces(&l) || setup_mounts(&l))
		return 2;
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
		return refuse(&l, "no_new_privs", "%s", strerror(errno));
	buf_puts(&l.layers, "\"no_new_privs\":true,");
	if (setup_landlock(&l) || drop_capabilities(&l) || setup_seccomp(&l, &notify_fd))
		return 2;
	buf_puts(&l.layers, "}");

	/* Hand the listener to the supervisor (it takes it with pidfd_getfd: sendmsg is trapped
	 * now) and wait for it to be ready before running anything that could be trapped. */
	char msg[4096];
	int n = snprintf(msg, sizeof msg, "ready %d %s", notify_fd, l.layers.p);
	if (n >= (int)sizeof msg || write(l.status_fd, msg, (size_t)n) != n)
		return refuse(&l, "supervisor", "cannot report to the supervisor: %s", strerror(errno));
	char ack[8];
	ssize_t r = read(l.status_fd, ack, sizeof ack);
	if (r != 2 || memcmp(ack, "go", 2) != 0)
		return refuse(&l, "supervisor", "the supervisor did not take the listener");
	close(l.status_fd);
	close(notify_fd);
	buf_free(&l.layers);
	setenv("TMPDIR", l.tmp, 1);
	setenv("TMP", l.tmp, 1);
	setenv("TEMP", l.tmp, 1);
	if (l.cache && *l.cache)
		sandbox_cache_setenv(l.cache);
	execv(l.argv[0], l.argv + 1);
	fprintf(stderr, "belay: cannot exec %s inside the sandbox: %s\n", l.argv[0], strerror(errno));
	return 127;
}
