/* sandbox_confine.c - the launcher's last stage before the server runs, in the pid
 * namespace's first process: no_new_privs, Landlock (every write right the ABI knows,
 * granted only on the writable zones of the view; TCP denied under `deny`; signals and
 * abstract unix sockets scoped to the sandbox), an empty capability set, and the seccomp
 * filter whose notifications the supervisor answers. Single-threaded. */
#include <errno.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "sandbox/landlock.h"
#include "sandbox/sandbox_filter.h"
#include "sandbox/sandbox_launch_internal.h"
#include "sandbox/sandbox_testswitch.h"

#ifndef SECCOMP_IOCTL_NOTIF_SET_FLAGS
#define SECCOMP_IOCTL_NOTIF_SET_FLAGS _IOW('!', 4, uint64_t)
#endif
#define SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP (1UL << 0)

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
	if (l->off & SB_OFF_LANDLOCK)
		return 0;
	int abi = ll_abi();
	if (abi < 0)
		return launch_refuse(l, "landlock", "Landlock is not available on this kernel (the ABI probe failed)");
	if (abi < 6)
		return launch_refuse(l, "landlock",
				     "kernel Landlock ABI %d lacks signal and abstract-socket scoping (needs 6)", abi);
	uint64_t fs = ll_fs_write_rights(abi);
	struct ll_ruleset_attr ra = {
		.handled_access_fs = fs,
		.handled_access_net = l->deny ? (LL_NET_BIND_TCP | LL_NET_CONNECT_TCP) : 0,
		.scoped = LL_SCOPE_ABSTRACT_UNIX_SOCKET | LL_SCOPE_SIGNAL,
	};
	int rfd = (int)syscall(__NR_landlock_create_ruleset, &ra, sizeof ra, 0);
	if (rfd < 0)
		return launch_refuse(l, "landlock", "cannot create a ruleset: %s", strerror(errno));
	/* A server on the sandbox's loopback: bind on its one port; connect stays denied on all. */
	if (l->deny && l->loopback_port) {
		struct ll_net_port_attr np = {.allowed_access = LL_NET_BIND_TCP, .port = l->loopback_port};
		if (syscall(__NR_landlock_add_rule, rfd, LL_RULE_NET_PORT, &np, 0) != 0) {
			int err = errno;
			close(rfd);
			return launch_refuse(l, "landlock", "cannot allow bind on port %u: %s", l->loopback_port,
					     strerror(err));
		}
	}
	/* Write rights beneath the writable zones, file rights on the devices: exactly the
	 * view the supervisor decides by. */
	for (size_t i = 0; i < l->view.n; i++) {
		const struct sb_zone_ent *z = &l->view.z[i];
		if (z->kind != SB_ZONE_RW && z->kind != SB_ZONE_DEVICE)
			continue;
		int r = add_path_rule(rfd, z->path, z->kind == SB_ZONE_RW ? fs : ll_file_rights(abi));
		if (r && !(z->kind == SB_ZONE_DEVICE && (r == -ENOENT || r == -ENXIO))) {
			close(rfd);
			return launch_refuse(l, "landlock", "cannot grant %s: %s", z->path, strerror(-r));
		}
	}
	unsigned flags = abi >= 7 ? LL_RESTRICT_SELF_LOG_NEW_EXEC_ON : 0;
	if (syscall(__NR_landlock_restrict_self, rfd, flags) != 0) {
		int err = errno;
		close(rfd);
		return launch_refuse(l, "landlock", "restrict_self failed: %s", strerror(err));
	}
	close(rfd);
	buf_printf(&l->layers,
		   "\"landlock\":{\"abi\":%d,\"fs_write\":true,\"tcp\":%s,\"scopes\":[\"signal\",\"abstract_unix_socket\"]",
		   abi, l->deny ? "\"denied\"" : "\"allowed\"");
	if (l->deny && l->loopback_port)
		buf_printf(&l->layers, ",\"tcp_bind_port\":%u", l->loopback_port);
	buf_puts(&l->layers, "},");
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
			return launch_refuse(l, "capabilities", "cannot drop capability %d from the bounding set: %s", c,
					     strerror(errno));
	prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0);
	struct __user_cap_header_struct hdr = {.version = _LINUX_CAPABILITY_VERSION_3, .pid = 0};
	struct __user_cap_data_struct data[2];
	memset(data, 0, sizeof data);
	if (syscall(SYS_capset, &hdr, data) != 0)
		return launch_refuse(l, "capabilities", "cannot clear capabilities: %s", strerror(errno));
	buf_puts(&l->layers, "\"capabilities\":\"none\",");
	return 0;
}

static int setup_seccomp(struct launch *l, int *notify_fd)
{
	struct err e = {0};
	struct sandbox_filter_opts fo = {.trap_reads = l->secrets_present, .no_traps = !!(l->off & SB_OFF_SUPERVISOR)};
	scmp_filter_ctx ctx = sandbox_filter_build(&fo, &e);
	if (!ctx)
		return launch_refuse(l, "seccomp", "%s", e.msg);
	int rc = seccomp_load(ctx);
	if (rc) {
		seccomp_release(ctx);
		return launch_refuse(l, "seccomp", "cannot load the filter: %s", strerror(-rc));
	}
	*notify_fd = seccomp_notify_fd(ctx);
	seccomp_release(ctx); /* keeps the loaded filter and the listener fd */
	if (*notify_fd < 0)
		return launch_refuse(l, "seccomp", "the kernel gave no notification listener");
	int sync = ioctl(*notify_fd, SECCOMP_IOCTL_NOTIF_SET_FLAGS, SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP) == 0;
	buf_printf(&l->layers,
		   "\"seccomp\":{\"arch\":\"native-only\",\"supervisor\":%s,\"sync_wake_up\":%s,\"reads_trapped\":%s},",
		   fo.no_traps ? "false" : "true", sync ? "true" : "false", fo.trap_reads ? "true" : "false");
	return 0;
}

int launch_confine(struct launch *l, int *notify_fd)
{
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
		return launch_refuse(l, "no_new_privs", "%s", strerror(errno));
	buf_puts(&l->layers, "\"no_new_privs\":true,");
	if (setup_landlock(l) || drop_capabilities(l) || setup_seccomp(l, notify_fd))
		return 2;
	return 0;
}
