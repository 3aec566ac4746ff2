/* sandbox_filter.c - builds the contained server's seccomp filter (launcher process only,
 * before exec). See sandbox_filter.h. */
#include "sandbox/sandbox_filter.h"
#include "sandbox/sandbox_uapi.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>

/* Calls always handed to the supervisor. */
static const char *const notify_always[] = {
	/* paths (open and openat: below) */
	"openat2", "creat", "mkdir", "mkdirat", "rmdir", "unlink", "unlinkat", "rename", "renameat",
	"renameat2", "link", "linkat", "symlink", "symlinkat", "mknod", "mknodat", "truncate", "chmod", "fchmod",
	"fchmodat", "chown", "lchown", "fchown", "fchownat", "utime", "utimes", "utimensat", "futimesat", "setxattr",
	"lsetxattr", "fsetxattr", "removexattr", "lremovexattr", "fremovexattr",
	/* network: families, addresses */
	"socket", "socketpair", "connect", "bind", "sendmsg", "sendmmsg",
	/* signals */
	"kill", "tkill", "tgkill", "rt_sigqueueinfo", "rt_tgsigqueueinfo", "pidfd_send_signal",
	/* other processes by pid */
	"setpriority", "sched_setaffinity", "sched_setscheduler", "sched_setparam", "sched_setattr", "ioprio_set",
	"ptrace", "process_vm_readv", "process_vm_writev", "pidfd_open", "pidfd_getfd", "kcmp", "process_madvise", "migrate_pages",
	"move_pages",
	/* locks */
	"flock",
	/* what could undo the mount, namespace or capability layers, or has no place here */
	"mount", "umount2", "pivot_root", "chroot", "mount_setattr", "move_mount", "open_tree", "fsopen", "fsconfig",
	"fsmount", "fspick", "unshare", "setns", "init_module", "finit_module", "delete_module", "kexec_load",
	"kexec_file_load", "bpf", "keyctl", "add_key", "request_key", "perf_event_open", "open_by_handle_at",
	"userfaultfd", "sethostname", "setdomainname", NULL,
};

/* Syscalls newer than libseccomp 2.5.4's tables, by x86_64 number. */
static const struct {
	int nr;
	const char *name;
} newer[] = {
	{452, "fchmodat2"}, {463, "setxattrat"}, {465, "removexattrat"}, {467, "open_tree_attr"},
};

static const char *const enosys[] = {"io_uring_setup", "io_uring_enter", "io_uring_register", "clone3", NULL};


/* ioctl requests and fcntl commands the supervisor decides (everything else runs). */
static const unsigned long trapped_ioctls[] = {TIOCSTI, TIOCLINUX, FS_IOC_SETFLAGS, FS_IOC32_SETFLAGS,
					       FS_IOC_FSSETXATTR};
static const unsigned long trapped_fcntls[] = {F_SETLEASE, F_SETLK, F_SETLKW, F_OFD_SETLK, F_OFD_SETLKW};

const char *sandbox_syscall_name(int nr)
{
	for (size_t i = 0; i < sizeof newer / sizeof newer[0]; i++)
		if (newer[i].nr == nr)
			return newer[i].name;
	char *n = seccomp_syscall_resolve_num_arch(SCMP_ARCH_NATIVE, nr);
	static __thread char buf[64];
	snprintf(buf, sizeof buf, "%s", n ? n : "unknown");
	free(n);
	return buf;
}

static int add(scmp_filter_ctx ctx, uint32_t action, const char *name, struct err *e)
{
	int nr = seccomp_syscall_resolve_name(name);
	if (nr == __NR_SCMP_ERROR)
		return 0; /* not on this architecture */
	int rc = seccomp_rule_add(ctx, action, nr, 0);
	if (rc)
		return err_set(e, BELAY_ESANDBOX, "seccomp rule for %s: %s", name, strerror(-rc));
	return 0;
}

/* NOTIFY `name` when argument `arg`'s low 32 bits equal one of vals. */
static int add_eq32(scmp_filter_ctx ctx, int nr, const char *name, unsigned arg, const unsigned long *vals, size_t n,
		    struct err *e)
{
	for (size_t i = 0; i < n; i++) {
		struct scmp_arg_cmp c = {.arg = arg, .op = SCMP_CMP_MASKED_EQ, .datum_a = 0xffffffffUL, .datum_b = vals[i]};
		int rc = seccomp_rule_add_array(ctx, SCMP_ACT_NOTIFY, nr, 1, &c);
		if (rc)
			return err_set(e, BELAY_ESANDBOX, "seccomp rule for %s: %s", name, strerror(-rc));
	}
	return 0;
}

scmp_filter_ctx sandbox_filter_build(const struct sandbox_filter_opts *o, struct err *e)
{
	scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
	if (!ctx) {
		err_set(e, BELAY_ESANDBOX, "seccomp_init failed");
		return NULL;
	}
	int rc = seccomp_attr_set(ctx, SCMP_FLTATR_ACT_BADARCH, SCMP_ACT_KILL_PROCESS);
	if (rc) {
		err_set(e, BELAY_ESANDBOX, "seccomp: cannot set the bad-architecture action: %s", strerror(-rc));
		goto fail;
	}
	/* No_new_privs is set by the launcher itself (it needs it for Landlock too). */
	seccomp_attr_set(ctx, SCMP_FLTATR_CTL_NNP, 0);
	for (const char *const *n = enosys; *n; n++)
		if (add(ctx, SCMP_ACT_ERRNO(ENOSYS), *n, e))
			goto fail;
	if (o->no_traps) {
		/* Test builds: the supervisor still gets a listener (one call nobody makes). */
		if (add(ctx, SCMP_ACT_NOTIFY, "kexec_load", e))
			goto fail;
		return ctx;
	}
	for (const char *const *n = notify_always; *n; n++)
		if (add(ctx, SCMP_ACT_NOTIFY, *n, e))
			goto fail;
	for (size_t i = 0; i < sizeof newer / sizeof newer[0]; i++) {
#ifdef __x86_64__
		if (seccomp_rule_add(ctx, SCMP_ACT_NOTIFY, newer[i].nr, 0) != 0) {
			err_set(e, BELAY_ESANDBOX, "seccomp rule for %s failed", newer[i].name);
			goto fail;
		}
#endif
	}
	if (o->trap_reads) {
		if (add(ctx, SCMP_ACT_NOTIFY, "open", e) || add(ctx, SCMP_ACT_NOTIFY, "openat", e))
			goto fail;
	} else {
		/* open/openat only when they may write: any of these flag bits set. */
		static const unsigned long wflags[] = {O_WRONLY, O_RDWR, O_CREAT, O_TRUNC, O_TMPFILE};
		for (size_t i = 0; i < sizeof wflags / sizeof wflags[0]; i++) {
			int r1 = seccomp_rule_add(ctx, SCMP_ACT_NOTIFY, SCMP_SYS(openat), 1,
						  SCMP_A2(SCMP_CMP_MASKED_EQ, wflags[i], wflags[i]));
			int r2 = 0;
#ifdef __NR_open
			r2 = seccomp_rule_add(ctx, SCMP_ACT_NOTIFY, SCMP_SYS(open), 1,
					      SCMP_A1(SCMP_CMP_MASKED_EQ, wflags[i], wflags[i]));
#endif
			if (r1 || r2) {
				err_set(e, BELAY_ESANDBOX, "seccomp rule for open/openat failed");
				goto fail;
			}
		}
	}
	if (add_eq32(ctx, SCMP_SYS(ioctl), "ioctl", 1, trapped_ioctls, sizeof trapped_ioctls / sizeof trapped_ioctls[0],
		     e) ||
	    add_eq32(ctx, SCMP_SYS(fcntl), "fcntl", 1, trapped_fcntls, sizeof trapped_fcntls / sizeof trapped_fcntls[0],
		     e))
		goto fail;
	/* sendto only with a destination address (a connected socket's send is not an attempt);
	 * prlimit64 only when it sets a limit (reading one is getrlimit, called everywhere). */
	if (seccomp_rule_add(ctx, SCMP_ACT_NOTIFY, SCMP_SYS(sendto), 1, SCMP_A4(SCMP_CMP_NE, 0)) != 0 ||
	    seccomp_rule_add(ctx, SCMP_ACT_NOTIFY, SCMP_SYS(prlimit64), 1, SCMP_A2(SCMP_CMP_NE, 0)) != 0) {
		err_set(e, BELAY_ESANDBOX, "seccomp rule for sendto/prlimit64 failed");
		goto fail;
	}
	/* clone with any namespace flag. */
	static const unsigned long nsflags[] = {CLONE_NEWUSER, CLONE_NEWNS,  CLONE_NEWNET,   CLONE_NEWPID,
						 CLONE_NEWUTS,  CLONE_NEWIPC, CLONE_NEWCGROUP};
	for (size_t i = 0; i < sizeof nsflags / sizeof nsflags[0]; i++) {
		if (seccomp_rule_add(ctx, SCMP_ACT_NOTIFY, SCMP_SYS(clone), 1,
				     SCMP_A0(SCMP_CMP_MASKED_EQ, nsflags[i], nsflags[i])) != 0) {
			err_set(e, BELAY_ESANDBOX, "seccomp rule for clone failed");
			goto fail;
		}
	}
	return ctx;
fail:
	seccomp_release(ctx);
	return NULL;
}
