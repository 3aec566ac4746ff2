/* sandbox_supervisor_internal.h - what the supervisor's files share: the supervisor itself
 * (sandbox_supervisor.c: thread, handshake, answers, reaping), one trapped call being
 * decided, and the deciders (sandbox_decide.c: files, processes, everything else;
 * sandbox_net.c: sockets, addresses, and the connects it performs itself).
 * Supervisor thread only, except where sandbox_supervisor.h says otherwise. */
#ifndef BELAY_SANDBOX_SANDBOX_SUPERVISOR_INTERNAL_H
#define BELAY_SANDBOX_SANDBOX_SUPERVISOR_INTERNAL_H
#include <cjson/cJSON.h>
#include <limits.h>
#include <seccomp.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

#include "sandbox/sandbox_supervisor.h"
#include "sandbox/sandbox_view.h"

#define SB_MAX_NR 1024 /* syscall numbers the dispatch table covers */

struct call;
typedef int (*sb_decider)(struct call *c);

struct sandbox_supervisor {
	struct sandbox_supervisor_opts o;
	char *scope, *tmp, *cache; /* cache: NULL for none */
	pthread_t thread;
	int wake[2];
	int listener;
	pid_t init_pid;  /* the pid namespace's first process (the launcher's child) */
	int init_pidfd;  /* a pidfd of it (signals cannot reach a recycled pid), or -1 */
	int root_fd;     /* O_PATH of the sandbox's root directory (its mount namespace's view), or -1 */
	char userns[64]; /* the sandbox's user namespace, for membership checks */
	int started;
	_Atomic int ready;      /* listener and userns are set (release by the thread) */
	unsigned long nintents; /* write_intent records posted (supervisor thread only) */
	int overflowed;
	long test_delay_ms; /* test builds only: sandbox_testswitch.h */
	struct sandbox_view view; /* the server's filesystem view (from the launcher) */
	int private_netns;        /* the sandbox has a network namespace of its own */
	int *zone_fd;             /* per view zone: an O_PATH fd of a writable zone in that view, or -1 */
	sb_decider by_nr[SB_MAX_NR];
	const char *name_by_nr[SB_MAX_NR];
};

enum answer {
	A_CONTINUE, /* the kernel runs the call */
	A_REFUSE,   /* refused with c->err; c->rec (and c->more) are the denial records */
	A_REPLY,    /* performed by the supervisor: the call returns c->val, or fails with c->err */
};

struct call {
	struct sandbox_supervisor *s;
	const struct seccomp_notif *req;
	const char *op; /* the syscall's name */
	int err;        /* errno to refuse or fail with */
	long long val;  /* A_REPLY's return value */
	cJSON *rec;     /* the denial record being filled (NULL until a refusal) */
	cJSON *more;    /* further denial records of the same call (a vector's elements) */
	/* write intents let through (report_writes): resolved paths inside the scope */
	char wpath[2][PATH_MAX];
	const char *wkey[2];
	int nw;
	int unresolved; /* a path argument could not be read or resolved */
};

/* The denial record for this call (created on first use), with the reason named. */
cJSON *sb_denial(struct call *c, const char *reason);
/* A further denial record of the same call (a vector's next element), or the first. */
cJSON *sb_another_denial(struct call *c, const char *reason);
/* Posts a network_attempt record (allowed under --network allow). */
void sb_attempt(struct call *c, const char *family, const char *address);
/* Refuses with errno err and reason, returning A_REFUSE. */
int sb_refuse(struct call *c, int err, const char *reason);

/* Reading the caller's memory: 0, or -EFAULT unreadable, -ENAMETOOLONG (strings) longer
 * than cap - 1. */
int sb_read_mem(pid_t pid, uint64_t addr, void *out, size_t n);
int sb_read_str(pid_t pid, uint64_t addr, char *out, size_t cap);

/* The zone of a path in the server's view (see sandbox_view.h). */
enum sb_zone sb_zone_of(const struct call *c, const char *path, const char **at);
/* 1 when zone z hides what res names from the server: a hidden location that exists on
 * the host (what is absent from both views is simply absent, not hidden). */
int sb_hides(const struct call *c, enum sb_zone z, const char *res);
/* 1 when the call is still waiting (its pid has not been reused): check after pidfd_open. */
int sb_still_waiting(const struct call *c);
/* An fd of the caller's, duplicated into this process (pidfd_getfd): >= 0, or -errno. */
int sb_take_fd(struct call *c, int fd);
/* Notes an allowed write-intent path for the write_intent record (inside the scope only). */
void sb_note_write(struct call *c, const char *key, const char *res);

/* Fills the dispatch table (sandbox_decide.c and sandbox_net.c). */
void sb_decide_register(struct sandbox_supervisor *s);
void sb_net_register(struct sandbox_supervisor *s);
void sb_register(struct sandbox_supervisor *s, const char *name, sb_decider fn);

#endif
