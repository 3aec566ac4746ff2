/* ts_ipc.h - the host's SysV IPC and POSIX message queue, as the containment tests aim at
 * them (issue 30, class 2): a shared memory segment, a message queue and a POSIX queue of the
 * test process, and a key for a segment the contained side creates, which must not outlive
 * the sandbox. The contained side is `belay __probe ipc ...` and `belay __probe ipc-leave`
 * (src/cli/cmd_sandbox.c). */
#ifndef BELAY_TESTS_TS_IPC_H
#define BELAY_TESTS_TS_IPC_H
#include <sys/types.h>

struct ts_ipc {
	int shm, msq;  /* the test's segment and queue (IPC_PRIVATE, 0600) */
	int leave_key; /* the key the contained side creates a segment with */
	char mq[64];   /* the test's POSIX queue, "/belay-test-<pid>" */
};

/* What got through. */
struct ts_ipc_reached {
	int shm;      /* the segment was written */
	int msg;      /* a message arrived on the queue */
	int mq;       /* a message arrived on the POSIX queue */
	int leftover; /* the segment made inside still exists */
};

/* Makes them (asserting). */
void ts_ipc_make(struct ts_ipc *x);
/* The shell commands that aim at them from inside (new string): BELAY __probe ipc ... and
 * BELAY __probe ipc-leave KEY. */
char *ts_ipc_script(const struct ts_ipc *x, const char *belay);
/* What got through since ts_ipc_make or the last call (resets: the segment emptied, the
 * queues drained, a leftover removed). */
void ts_ipc_check(struct ts_ipc *x, struct ts_ipc_reached *r);
/* Removes them. */
void ts_ipc_free(struct ts_ipc *x);

#endif
