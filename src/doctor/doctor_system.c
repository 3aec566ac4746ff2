/* doctor_system.c - the machine: the containment layers proved by `belay sandbox check`
 * (run as a child, its rows read back), and the kernel features they rest on. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "common/fsutil.h"
#include "common/xalloc.h"
#include "doctor/doctor.h"
#include "doctor/doctor_internal.h"

#define LANDLOCK_NEEDED 6

void doctor_check_sandbox(const struct doctor_ctx *c, struct doctor_report *r)
{
	struct err e = {0};
	char *scratch = fs_mkdtemp_in(fs_scratch_base(), "belay-doctor-", &e);
	if (!scratch) {
		doctor_add(r, "sandbox", DOCTOR_FAIL, "make the temp directory writable (TMPDIR, /dev/shm or /tmp)",
			   "cannot make a scratch directory to probe containment in: %s", e.msg);
		return;
	}
	const char *argv[] = {c->self, "sandbox", "check", "--state", scratch, NULL};
	struct buf out = {0};
	int st = doctor_exec(argv, NULL, &out);
	fs_remove_tree(scratch);
	free(scratch);
	if (st < 0) {
		doctor_add(r, "sandbox", DOCTOR_FAIL, "reinstall belay", "cannot run %s sandbox check", c->self);
		buf_free(&out);
		return;
	}
	/* Rows: "  LAYER  ok|PROBLEM|fact  message". */
	int rows = 0;
	for (char *line = out.p, *nl; line && *line; line = nl ? nl + 1 : NULL) {
		nl = strchr(line, '\n');
		if (nl)
			*nl = '\0';
		char layer[64], verdict[16];
		int at = 0;
		if (sscanf(line, " %63s %15s %n", layer, verdict, &at) != 2 || !at)
			continue;
		int ok = !strcmp(verdict, "ok"), problem = !strcmp(verdict, "PROBLEM");
		if (!ok && !problem)
			continue;
		rows++;
		doctor_add(r, "sandbox", ok ? DOCTOR_OK : DOCTOR_FAIL,
			   ok ? "" : "see docs/THREAT_MODEL.md for what this layer needs (belay sandbox check shows it)",
			   "%s: %s", layer, line + at);
	}
	if (!rows)
		doctor_add(r, "sandbox", DOCTOR_FAIL, "run belay sandbox check to see why",
			   "belay sandbox check printed no layer (exit %d)", st);
	else if (st != 0 && doctor_worst(r) != DOCTOR_FAIL)
		doctor_add(r, "sandbox", DOCTOR_FAIL, "run belay sandbox check to see why",
			   "belay sandbox check exited %d: containment is not available", st);
	buf_free(&out);
}

static int read_int(const char *path, long *v)
{
	FILE *f = fopen(path, "re");
	if (!f)
		return -1;
	int ok = fscanf(f, "%ld", v) == 1;
	fclose(f);
	return ok ? 0 : -1;
}

void doctor_check_kernel(const struct doctor_ctx *c, struct doctor_report *r)
{
	(void)c;
	struct utsname u;
	if (uname(&u) == 0)
		doctor_add(r, "kernel", DOCTOR_OK, "", "Linux %s (%s)", u.release, u.machine);
	long abi = syscall(SYS_landlock_create_ruleset, NULL, 0, 1UL /* LANDLOCK_CREATE_RULESET_VERSION */);
	if (abi < 0)
		doctor_add(r, "kernel", DOCTOR_FAIL,
			   "boot a kernel with Landlock enabled (CONFIG_SECURITY_LANDLOCK=y and \"landlock\" in lsm=)",
			   "Landlock is not available");
	else
		doctor_add(r, "kernel", abi >= LANDLOCK_NEEDED ? DOCTOR_OK : DOCTOR_FAIL,
			   abi >= LANDLOCK_NEEDED ? "" : "upgrade to a kernel with Landlock ABI 6 or later (Linux 6.12+)",
			   "Landlock ABI %ld (belay needs %d)", abi, LANDLOCK_NEEDED);
	FILE *f = fopen("/proc/sys/kernel/seccomp/actions_avail", "re");
	char acts[256] = "";
	if (f) {
		if (!fgets(acts, sizeof acts, f))
			acts[0] = '\0';
		fclose(f);
	}
	acts[strcspn(acts, "\n")] = '\0';
	doctor_add(r, "kernel", strstr(acts, "user_notif") ? DOCTOR_OK : DOCTOR_FAIL,
		   strstr(acts, "user_notif") ? "" : "a kernel with seccomp user notification (Linux 5.0+, CONFIG_SECCOMP_FILTER)",
		   "seccomp actions: %s", acts[0] ? acts : "(unknown: /proc/sys/kernel/seccomp/actions_avail unreadable)");
	long v;
	if (read_int("/proc/sys/user/max_user_namespaces", &v) == 0)
		doctor_add(r, "kernel", v > 0 ? DOCTOR_OK : DOCTOR_FAIL,
			   v > 0 ? "" : "sysctl -w user.max_user_namespaces=15000",
			   "user namespaces: at most %ld", v);
	if (geteuid() != 0 && read_int("/proc/sys/kernel/unprivileged_userns_clone", &v) == 0 && v == 0)
		doctor_add(r, "kernel", DOCTOR_FAIL, "sysctl -w kernel.unprivileged_userns_clone=1",
			   "unprivileged user namespaces are disabled");
	if (read_int("/proc/sys/kernel/apparmor_restrict_unprivileged_userns", &v) == 0 && v == 1)
		doctor_add(r, "kernel", geteuid() ? DOCTOR_WARN : DOCTOR_OK,
			   geteuid() ? "sysctl -w kernel.apparmor_restrict_unprivileged_userns=0, or an AppArmor profile for belay" : "",
			   "AppArmor restricts unprivileged user namespaces");
}
