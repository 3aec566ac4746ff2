/* loop_slice.c - a short scheduler slice for the forwarding thread. See loop_slice.h.
 *
 * glibc (2.36) wraps neither sched_setattr nor sched_getattr, and <linux/sched/types.h>
 * clashes with <sched.h>: the calls go through syscall(2) with the kernel's structure,
 * declared here in its first published size (SCHED_ATTR_SIZE_VER0, 48 bytes), which every
 * kernel that has the calls accepts. */
#include "proxy/loop_slice.h"

#include <errno.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "common/err.h"

struct loop_slice_attr {
	uint32_t size;
	uint32_t sched_policy;
	uint64_t sched_flags;
	int32_t sched_nice;
	uint32_t sched_priority;
	uint64_t sched_runtime; /* for SCHED_OTHER since 6.12: the slice, ns */
	uint64_t sched_deadline;
	uint64_t sched_period;
};

#define LOOP_SLICE_RESET_ON_FORK 0x01ull /* SCHED_FLAG_RESET_ON_FORK */

static int get_attr(pid_t tid, struct loop_slice_attr *a)
{
	memset(a, 0, sizeof *a);
	return syscall(SYS_sched_getattr, tid, a, (unsigned)sizeof *a, 0u) == 0 ? 0 : -errno;
}

unsigned loop_slice_of(pid_t tid)
{
	struct loop_slice_attr a;
	if (get_attr(tid, &a) != 0 || a.sched_policy != SCHED_OTHER)
		return 0;
	return (unsigned)(a.sched_runtime / 1000u);
}

int loop_slice_set(unsigned us, struct loop_slice *out)
{
	memset(out, 0, sizeof *out);
	out->asked_us = us;
	struct loop_slice_attr a;
	int rc = get_attr(0, &a);
	if (rc) {
		snprintf(out->why, sizeof out->why, "sched_getattr: %s", strerror(-rc));
		return rc;
	}
	out->was_us = a.sched_policy == SCHED_OTHER ? (unsigned)(a.sched_runtime / 1000u) : 0;
	out->now_us = out->was_us;
	if (us == 0)
		return 0;
	if (us < LOOP_SLICE_MIN_US || us > LOOP_SLICE_MAX_US) {
		snprintf(out->why, sizeof out->why, "%u us is outside %u..%u", us, LOOP_SLICE_MIN_US, LOOP_SLICE_MAX_US);
		return BELAY_EINVAL;
	}
	if (a.sched_policy != SCHED_OTHER) {
		snprintf(out->why, sizeof out->why, "the thread runs under scheduling policy %u, left as it is",
			 (unsigned)a.sched_policy);
		return BELAY_EREFUSED;
	}
	if (a.sched_nice < 0) {
		/* reset-on-fork would start the server at nice 0, not at the nice it was given */
		snprintf(out->why, sizeof out->why,
			 "the thread runs at nice %d, which the server it starts would lose; left as it is",
			 (int)a.sched_nice);
		return BELAY_EREFUSED;
	}
	struct loop_slice_attr want = {
		.size = sizeof want,
		.sched_policy = SCHED_OTHER,
		.sched_flags = LOOP_SLICE_RESET_ON_FORK,
		.sched_nice = a.sched_nice, /* keep what `nice belay ...` asked for */
		.sched_runtime = (uint64_t)us * 1000u,
	};
	if (syscall(SYS_sched_setattr, 0, &want, 0u) != 0) {
		rc = -errno;
		snprintf(out->why, sizeof out->why, "sched_setattr: %s", strerror(errno));
		return rc;
	}
	out->now_us = loop_slice_of(0);
	if (out->now_us != us) {
		/* Before 6.12 the kernel takes the call but keeps no slice for a normal thread:
		 * put the flags back as they were. */
		a.size = sizeof a;
		(void)syscall(SYS_sched_setattr, 0, &a, 0u);
		snprintf(out->why, sizeof out->why, "this kernel keeps no slice for a normal thread (Linux 6.12 and later do)");
		return BELAY_EREFUSED;
	}
	out->applied = 1;
	return 0;
}

int loop_slice_parse(const char *text, unsigned *us)
{
	unsigned long v = 0;
	if (!*text || strlen(text) > 6)
		return BELAY_EUSAGE;
	for (const char *c = text; *c; c++) {
		if (*c < '0' || *c > '9')
			return BELAY_EUSAGE;
		v = v * 10 + (unsigned long)(*c - '0');
	}
	if (v != 0 && (v < LOOP_SLICE_MIN_US || v > LOOP_SLICE_MAX_US))
		return BELAY_EUSAGE;
	*us = (unsigned)v;
	return 0;
}

void loop_slice_describe(const struct loop_slice *s, char *buf, size_t n)
{
	if (s->applied)
		snprintf(buf, n, "%u us (kernel default %u us)", s->now_us, s->was_us);
	else if (!s->asked_us)
		snprintf(buf, n, "kernel default %u us (not asked)", s->was_us);
	else
		snprintf(buf, n, "not applied: %s", s->why);
}
