/* cmd_sandbox.c - `belay sandbox check`: proves each containment layer on this machine by
 * using it (a write inside allowed; a write, a chmod, a connect and a signal outside refused
 * AND recorded by name; this check's SysV shared memory and message queue out of reach; a
 * snapshot round trip identical), prints a table of facts, and exits
 * non-zero if containment is unavailable. Also the hidden `belay __probe` used as the
 * contained side of the checks (so they need nothing but belay itself). */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <mqueue.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ipc.h>
#include <sys/msg.h>
#include <sys/shm.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "cli/cli.h"
#include "common/fsutil.h"
#include "common/jsonx.h"
#include "common/paths.h"
#include "common/xalloc.h"
#include "sandbox/landlock.h"
#include "sandbox/sandbox.h"
#include "proxy/sandbox_run.h"
#include "snapshot/snapshot.h"

/* belay __probe connect HOST PORT | signal PID | ipc SHMID MSQID [MQNAME] | ipc-leave KEY: one
 * contained action, reported on stdout (exit 0 when it reached what it aimed at). */
int cmd_probe(int argc, char **argv)
{
	if (argc == 4 && !strcmp(argv[1], "connect")) {
		int fd = socket(AF_INET, SOCK_STREAM, 0);
		struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)atoi(argv[3]))};
		inet_pton(AF_INET, argv[2], &a.sin_addr);
		int rc = fd < 0 ? -1 : connect(fd, (void *)&a, sizeof a);
		printf("connect %s\n", rc == 0 ? "OK" : strerror(errno));
		return rc == 0 ? 0 : 1;
	}
	if (argc == 3 && !strcmp(argv[1], "signal")) {
		int rc = kill(atoi(argv[2]), 0);
		printf("signal %s\n", rc == 0 ? "OK" : strerror(errno));
		return rc == 0 ? 0 : 1;
	}
	if ((argc == 4 || argc == 5) && !strcmp(argv[1], "ipc")) {
		/* an outside process's SysV segment and queue by id, and its POSIX queue by name */
		void *m = shmat(atoi(argv[2]), NULL, 0);
		if (m != (void *)-1) {
			memcpy(m, "escaped", 8);
			shmdt(m);
		}
		printf("ipc shm %s\n", m != (void *)-1 ? "OK" : strerror(errno));
		struct {
			long type;
			char text[8];
		} msg = {1, "escaped"};
		int rc = msgsnd(atoi(argv[3]), &msg, sizeof msg.text, IPC_NOWAIT);
		printf("ipc msg %s\n", rc == 0 ? "OK" : strerror(errno));
		int ok = m == (void *)-1 && rc != 0;
		if (argc == 5) {
			mqd_t q = mq_open(argv[4], O_WRONLY | O_NONBLOCK);
			rc = q == (mqd_t)-1 ? -1 : mq_send(q, "escaped", 8, 0);
			printf("ipc mq %s\n", rc == 0 ? "OK" : strerror(errno));
			if (q != (mqd_t)-1)
				mq_close(q);
			ok &= rc != 0;
		}
		return ok ? 1 : 0;
	}
	if (argc == 3 && !strcmp(argv[1], "ipc-leave")) {
		/* a segment that would outlive the sandbox if its IPC namespace were the host's */
		int id = shmget((key_t)strtol(argv[2], NULL, 0), 4096, IPC_CREAT | 0600);
		printf("ipc-leave %s\n", id >= 0 ? "OK" : strerror(errno));
		return id >= 0 ? 0 : 1;
	}
	return cli_fail("__probe: connect HOST PORT | signal PID | ipc SHMID MSQID [MQNAME] | ipc-leave KEY");
}

static const struct cli_opt check_opts[] = {
	{"scope", 's', 0, "DIR", "prove the layers on this directory (default: a scratch one)"},
	{"network", 'n', 0, "deny|allow", "the network policy to prove (default deny)"},
	{"state", 'S', 0, "DIR", "the state directory whose snapshot store the round trip uses (default: a scratch one)"},
	CLI_OPT_END,
};

static const struct cli_cmd sandbox_check = {
	.name = "sandbox check",
	.summary = "prove each containment layer on this machine by using it",
	.synopsis = "[--scope DIR] [--network deny|allow] [--state DIR]",
	.about = "A write inside allowed; a write, a chmod, a connect and a signal outside refused and recorded by "
		 "name; a snapshot round trip identical. Prints what it found.",
	.opts = check_opts,
};

const struct cli_cmd cli_sandbox = {
	.name = "sandbox",
	.summary = "check that containment works on this machine (sandbox check)",
	.subs = (const struct cli_cmd *const[]){&sandbox_check, NULL},
	.notes = "Exit status: 0 when containment is available, 1 when a layer is missing or not enforcing, 2 on "
		 "usage errors.",
};

struct row {
	int problems;
};

static void row(struct row *r, const char *what, int ok, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
static void row(struct row *r, const char *what, int ok, const char *fmt, ...)
{
	char msg[600];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	printf("  %-16s %-8s %s\n", what, ok > 0 ? "ok" : ok == 0 ? "PROBLEM" : "fact", msg);
	if (ok == 0)
		r->problems++;
}

static const cJSON *find_record(const cJSON *recs, const char *kind, const char *op, const char *key, const char *value)
{
	for (const cJSON *o = recs->child; o; o = o->next) {
		if (strcmp(jx_str(o, "kind"), kind))
			continue;
		if (op && (!jx_str(o, "op") || strcmp(jx_str(o, "op"), op)))
			continue;
		const char *v = key ? jx_str(o, key) : NULL;
		if (!key || (v && !strcmp(v, value)))
			return o;
	}
	return NULL;
}

static int snapshot_round_trip(const char *state, char *msg, size_t n)
{
	struct err e = {0};
	char *dir = fs_mkdtemp_in(fs_scratch_base(), "belay-check-snap-", &e);
	if (!dir) {
		snprintf(msg, n, "%s", e.msg);
		return 0;
	}
	char *ws = fs_join(dir, "ws"), *back = fs_join(dir, "restored");
	mkdir(ws, 0755);
	char *f = fs_join(ws, "file.txt"), *sub = fs_join(ws, "empty"), *ln = fs_join(ws, "link"), *hl = fs_join(ws, "hard");
	FILE *fp = fopen(f, "w");
	int ok = 0;
	if (fp) {
		fputs("belay snapshot probe\n", fp);
		fclose(fp);
	}
	mkdir(sub, 0750);
	if (symlink("file.txt", ln) || link(f, hl)) {
		snprintf(msg, n, "cannot build the probe tree: %s", strerror(errno));
		goto out;
	}
	chmod(f, 0640);
	struct snap_store *st = NULL;
	struct snapshotter *sn = NULL;
	if (snap_store_open(state, ws, &st, &e) || snapshotter_open(st, ws, &sn, &e)) {
		snprintf(msg, n, "%s", e.msg);
		snap_store_close(st);
		goto out;
	}
	cJSON *h = snapshotter_capture(sn);
	const char *handle = jx_str(h, "handle"), *tree = jx_str(h, "tree_hash");
	char after[SNAP_TREE_HASH_LEN] = "", restored[SNAP_TREE_HASH_LEN] = "";
	if (!handle || !tree) {
		snprintf(msg, n, "capture failed: %s", jx_str(h, "detail") ? jx_str(h, "detail") : "?");
	} else {
		/* Mutate, then restore the captured pre-state elsewhere and compare. */
		fp = fopen(f, "a");
		if (fp) {
			fputs("mutated\n", fp);
			fclose(fp);
		}
		unlink(ln);
		rmdir(sub);
		snap_tree_hash_dir(ws, after, &e);
		if (snap_restore(st, handle, back, NULL, &e) || snap_tree_hash_dir(back, restored, &e))
			snprintf(msg, n, "restore failed: %s", e.msg);
		else if (strcmp(restored, tree) || !strcmp(after, tree))
			snprintf(msg, n, "restored tree hash %s differs from the captured %s", restored, tree);
		else {
			snprintf(msg, n, "capture, mutate, restore: tree hash identical (%.24s...)", tree);
			ok = 1;
		}
	}
	cJSON_Delete(h);
	snapshotter_free(sn);
	snap_store_close(st);
out:
	fs_remove_tree(dir);
	free(dir);
	free(ws);
	free(back);
	free(f);
	free(sub);
	free(ln);
	free(hl);
	return ok;
}

int cmd_sandbox(int argc, char **argv)
{
	if (argc < 2 || strcmp(argv[1], "check")) {
		int help = argc >= 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"));
		cli_help(&cli_sandbox, help ? stdout : stderr);
		return help ? 0 : EXIT_USAGE;
	}
	struct cli_parse P;
	cli_parse_init(&sandbox_check, &P, 0);
	const char *scope = NULL, *network = "deny", *state = NULL;
	int c;
	optind = 2;
	opterr = 0;
	while ((c = cli_getopt(&P, argc, argv)) != -1) {
		switch (c) {
		case 's': scope = optarg; break;
		case 'n': network = optarg; break;
		case 'S': state = optarg; break;
		case 'h': cli_help(&cli_sandbox, stdout); return 0;
		default: return cli_fail("sandbox check: unknown or incomplete option '%s'", argv[optind - 1]);
		}
	}
	struct err e = {0};
	enum sandbox_network net;
	if (sandbox_parse_network(network, &net, &e))
		return cli_fail("sandbox check: %s", e.msg);
	/* Not on /dev/shm or /tmp: the sandbox replaces those with private ones, and the
	 * "outside" directory must be in its view for the write to be refused there. */
	char *probe = fs_mkdtemp_in(access("/var/tmp", W_OK) == 0 ? "/var/tmp" : fs_scratch_base(), "belay-check-", &e);
	if (!probe)
		return cli_fail("sandbox check: %s", e.msg);
	chmod(probe, 0755);
	char *ws = scope ? xstrdup(scope) : fs_join(probe, "ws");
	char *outside = fs_join(probe, "outside");
	mkdir(ws, 0755);
	mkdir(outside, 0755);
	struct sandbox_spec spec;
	char *tmp = fs_join(probe, "tmp");
	mkdir(tmp, 0700);
	/* A scope of our own gets a temp dir that goes with it; a real scope gets its real one. */
	if (scope ? sandbox_spec_init(&spec, ws, net, &e) : sandbox_spec_init_tmp(&spec, ws, tmp, net, &e)) {
		free(tmp);
		fs_remove_tree(probe);
		return cli_fail("sandbox check: %s", e.msg);
	}
	/* The probes are belay itself: its directory stays in view (read-only) even where the
	 * sandbox hides what lies around it (a build tree under /dev/shm, say). */
	const char *self = paths_self_exe();
	char *selfdir = xstrdup(self);
	char *slash = strrchr(selfdir, '/');
	if (slash && slash != selfdir)
		*slash = '\0';
	sandbox_spec_expose(&spec, selfdir, NULL);
	free(selfdir);
	struct row r = {0};
	struct utsname u;
	uname(&u);
	printf("belay sandbox check\n");
	row(&r, "kernel", -1, "%s %s %s", u.sysname, u.release, u.machine);
	int abi = ll_abi();
	row(&r, "landlock", abi >= 6, abi < 0 ? "unavailable on this kernel" : "ABI %d%s", abi,
	    abi >= 6 ? " (writes, TCP, signal and abstract-socket scopes)" : " (needs 6 for signal scoping)");
	row(&r, "user", -1, "uid %d (%s)", (int)geteuid(), geteuid() ? "unprivileged: user namespaces" : "root");

	/* One contained run exercises every layer; the supervisor must name each refusal. */
	int lfd = socket(AF_INET, SOCK_STREAM, 0);
	struct sockaddr_in la = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	socklen_t ll = sizeof la;
	bind(lfd, (void *)&la, sizeof la);
	listen(lfd, 4);
	getsockname(lfd, (void *)&la, &ll);
	char *inside = fs_join(spec.scope, ".belay-check-inside"), *escaped = fs_join(outside, "escaped"),
	     *victim = fs_join(outside, "victim");
	FILE *vf = fopen(victim, "w");
	if (vf)
		fclose(vf);
	chmod(victim, 0644);
	char port[16], pid[16];
	snprintf(port, sizeof port, "%d", ntohs(la.sin_port));
	snprintf(pid, sizeof pid, "%d", (int)getpid());
	/* A SysV shared memory segment and message queue of this check's, for the contained side
	 * to write into and send on (by id: a key names nothing in another IPC namespace). */
	int shm = shmget(IPC_PRIVATE, 4096, IPC_CREAT | 0600), msq = msgget(IPC_PRIVATE, IPC_CREAT | 0600);
	char *script = xasprintf("echo in > '%s'; echo out > '%s'; chmod 600 '%s'; '%s' __probe connect 127.0.0.1 %s; "
				 "'%s' __probe signal %s; '%s' __probe ipc %d %d; exit 0",
				 inside, escaped, victim, self, port, self, pid, self, shm, msq);
	char *argv2[] = {"/bin/sh", "-c", script, NULL};
	struct sandbox_run_result res;
	int rc = sandbox_run(&spec, self, argv2, spec.scope, 20000, &res, &e);
	if (rc) {
		row(&r, "containment", 0, "cannot start a contained command: %s", e.msg);
	} else {
		const cJSON *sb = find_record(res.records, "sandbox", NULL, NULL, NULL);
		if (!sb || !cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(sb, "ok"))) {
			row(&r, "containment", 0, "refused to start: %s: %s", sb ? jx_str(sb, "layer") : "launcher",
			    sb ? jx_str(sb, "error") : "no report");
		} else {
			const cJSON *ly = cJSON_GetObjectItemCaseSensitive(sb, "layers");
			row(&r, "namespaces", 1, "user%s%s%s, read-only mounts outside the scope, private /tmp and /dev/shm, "
			    "%d host location(s) hidden",
			    cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(ly, "ipc_namespace")) ? " + ipc" : "",
			    cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(ly, "network_namespace")) ? " + network" : "",
			    cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(ly, "pid_namespace")) ? " + pid" : "",
			    cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(ly, "hidden")));
			struct stat st;
			row(&r, "write inside", stat(inside, &st) == 0, "%s %s", stat(inside, &st) == 0 ? "allowed:" : "FAILED:", inside);
			const cJSON *d = find_record(res.records, "denial", NULL, "path", escaped);
			int escaped_present = stat(escaped, &st) == 0;
			row(&r, "write outside", !escaped_present && d != NULL, "%s%s",
			    escaped_present ? "SUCCEEDED - NOT ENFORCING: " : d ? "refused and recorded: " : "refused but NOT recorded: ",
			    escaped);
			d = find_record(res.records, "denial", NULL, "path", victim);
			stat(victim, &st);
			row(&r, "chmod outside", (st.st_mode & 0777) == 0644 && d, "%s%s",
			    (st.st_mode & 0777) != 0644 ? "SUCCEEDED - NOT ENFORCING: " : d ? "refused and recorded: " : "refused but NOT recorded: ",
			    victim);
			char addr[64];
			snprintf(addr, sizeof addr, "127.0.0.1:%s", port);
			int connected = strstr(res.out.p ? res.out.p : "", "connect OK") != NULL;
			if (net == SANDBOX_NET_DENY) {
				/* Refused where it starts: no inet socket is made under deny. */
				d = find_record(res.records, "denial", "connect", "address", addr);
				if (!d)
					d = find_record(res.records, "denial", "socket", "family", "inet");
				row(&r, "network", !connected && d, "%s%s (a live loopback listener)",
				    connected ? "CONNECTED - NOT ENFORCING: " : d ? "refused and recorded: " : "refused but NOT recorded: ",
				    addr);
			} else {
				d = find_record(res.records, "network_attempt", "connect", "address", addr);
				row(&r, "network", connected && d, "allowed%s: %s", d ? " and recorded" : " but NOT recorded", addr);
			}
			d = find_record(res.records, "denial", "kill", NULL, NULL);
			int signalled = strstr(res.out.p ? res.out.p : "", "signal OK") != NULL;
			/* In a pid namespace of its own, no process outside has a pid the server could name. */
			int unreachable = !signalled && !d && strstr(res.out.p ? res.out.p : "", "signal No such process") &&
					  cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(ly, "pid_namespace"));
			row(&r, "signal", !signalled && (d || unreachable), "%spid %s (this check)",
			    signalled ? "DELIVERED - NOT ENFORCING: "
			    : d	      ? "refused and recorded: "
			    : unreachable ? "out of reach (own pid namespace): "
					  : "refused but NOT recorded: ",
			    pid);
			/* SysV IPC (and POSIX message queues) of its own: the check's segment and queue
			 * cannot be named from inside. */
			int wrote = 0, sent = 0;
			void *m = shm >= 0 ? shmat(shm, NULL, SHM_RDONLY) : (void *)-1;
			if (m != (void *)-1) {
				wrote = !memcmp(m, "escaped", 8);
				shmdt(m);
			}
			struct {
				long type;
				char text[8];
			} got;
			sent = msq >= 0 && msgrcv(msq, &got, sizeof got.text, 0, IPC_NOWAIT) >= 0;
			int own_ipc = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(ly, "ipc_namespace"));
			row(&r, "ipc", shm >= 0 && msq >= 0 && !wrote && !sent && own_ipc, "%sSysV shared memory %d, message queue %d (this check's)%s",
			    shm < 0 || msq < 0 ? "NOT CHECKED (cannot make them here): "
			    : wrote || sent    ? "REACHED - NOT ENFORCING: "
			    : own_ipc	       ? "out of reach (own IPC namespace): "
					       : "not reached, but no IPC namespace: ",
			    shm, msq, jx_str(ly, "mqueue") && !strcmp(jx_str(ly, "mqueue"), "private") ? "; /dev/mqueue its own" : "");
		}
		sandbox_run_result_free(&res);
	}
	close(lfd);
	if (shm >= 0)
		shmctl(shm, IPC_RMID, NULL);
	if (msq >= 0)
		msgctl(msq, IPC_RMID, NULL);
	char *state_dir = state ? xstrdup(state) : fs_join(probe, "state");
	char msg[600];
	int snap_ok = snapshot_round_trip(state_dir, msg, sizeof msg);
	row(&r, "snapshot", snap_ok, "%s", msg);
	printf("  %-16s %-8s %s (writable, snapshotted)\n", "scope", "", spec.scope);
	printf("  %-16s %-8s %s (writable, not snapshotted; the server's TMPDIR)\n", "", "", spec.tmpdir);
	unlink(inside);
	fs_remove_tree(probe);
	free(state_dir);
	free(script);
	free(inside);
	free(escaped);
	free(victim);
	free(outside);
	free(ws);
	free(tmp);
	free(probe);
	sandbox_spec_done(&spec);
	if (r.problems) {
		printf("belay: containment is NOT available here (%d problem(s) above)\n", r.problems);
		return 1;
	}
	printf("belay: containment available; every refusal above was recorded by name\n");
	return 0;
}
