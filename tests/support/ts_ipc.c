/* ts_ipc.c - see ts_ipc.h. */
#include "ts_ipc.h"

#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <mqueue.h>
#include <stdio.h>
#include <string.h>
#include <sys/ipc.h>
#include <sys/msg.h>
#include <sys/shm.h>
#include <unistd.h>

#include "common/xalloc.h"

void ts_ipc_make(struct ts_ipc *x)
{
	memset(x, 0, sizeof *x);
	x->shm = shmget(IPC_PRIVATE, 4096, IPC_CREAT | 0600);
	cr_assert_geq(x->shm, 0, "shmget: %s", strerror(errno));
	x->msq = msgget(IPC_PRIVATE, IPC_CREAT | 0600);
	cr_assert_geq(x->msq, 0, "msgget: %s", strerror(errno));
	x->leave_key = 0x62000000 | (getpid() & 0xffffff);
	snprintf(x->mq, sizeof x->mq, "/belay-test-%d", (int)getpid());
	struct mq_attr a = {.mq_maxmsg = 4, .mq_msgsize = 16};
	mq_unlink(x->mq);
	mqd_t q = mq_open(x->mq, O_CREAT | O_EXCL | O_RDWR, 0600, &a);
	cr_assert_neq(q, (mqd_t)-1, "mq_open %s: %s", x->mq, strerror(errno));
	mq_close(q);
}

char *ts_ipc_script(const struct ts_ipc *x, const char *belay)
{
	return xasprintf("'%s' __probe ipc %d %d %s; '%s' __probe ipc-leave %d", belay, x->shm, x->msq, x->mq, belay,
			 x->leave_key);
}

void ts_ipc_check(struct ts_ipc *x, struct ts_ipc_reached *r)
{
	memset(r, 0, sizeof *r);
	char *m = shmat(x->shm, NULL, 0);
	cr_assert_neq(m, (void *)-1, "shmat: %s", strerror(errno));
	r->shm = !memcmp(m, "escaped", 8);
	memset(m, 0, 4096);
	shmdt(m);
	struct {
		long type;
		char text[16];
	} got;
	while (msgrcv(x->msq, &got, sizeof got.text, 0, IPC_NOWAIT) >= 0)
		r->msg = 1;
	mqd_t q = mq_open(x->mq, O_RDONLY | O_NONBLOCK);
	cr_assert_neq(q, (mqd_t)-1, "mq_open %s: %s", x->mq, strerror(errno));
	char buf[16];
	while (mq_receive(q, buf, sizeof buf, NULL) >= 0)
		r->mq = 1;
	mq_close(q);
	int left = shmget(x->leave_key, 0, 0);
	r->leftover = left >= 0;
	if (left >= 0)
		shmctl(left, IPC_RMID, NULL);
}

void ts_ipc_free(struct ts_ipc *x)
{
	shmctl(x->shm, IPC_RMID, NULL);
	msgctl(x->msq, IPC_RMID, NULL);
	mq_unlink(x->mq);
	int left = shmget(x->leave_key, 0, 0);
	if (left >= 0)
		shmctl(left, IPC_RMID, NULL);
}
