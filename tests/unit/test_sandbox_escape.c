/* test_sandbox_escape.c - the hostile cases of issue 11 against the whole sandbox: pathname
 * unix sockets outside the scope (unresolvable links, races on the address and on the cwd,
 * sends with addresses of their own, every element of a vector), socket families, the
 * terminal, processes outside the sandbox, locks and leases, hidden host sockets and
 * credential stores (and --expose), the calls the kernel used to refuse unnamed, and the
 * file vectors unlink, rmdir, mkdir, rename-over and O_TRUNC. Each is refused and recorded
 * by name (or, where nothing outside can be reached at all, shown to reach nothing). */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sandbox_harness.h"

#define FIXTURE(name) BELAY_BUILD_DIR "/tests/fixture_" name

TestSuite(escape, .init = sbx_setup, .fini = sbx_teardown, .timeout = 120);

static void contained(const char *script, struct run *r)
{
	sbx_run(script, NULL, r);
}

static void expect_denial(struct run *r, const char *op, const char *key, const char *value, const char *what)
{
	const cJSON *d = find_denial(r->t, op, key, value);
	if (!d)
		dump(r);
	cr_assert_not_null(d, "%s: no %s denial naming %s=%s", what, op ? op : "any", key ? key : "-", value ? value : "-");
	cr_assert_str_eq(jx_str(d, "source"), "seccomp-unotify");
	cr_assert(jx_str(d, "reason"), "%s: the denial names its reason", what);
}

/* A listening unix socket; returns the fd (the caller closes and unlinks). */
static int listen_at(const char *path)
{
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0);
	struct sockaddr_un a = {.sun_family = AF_UNIX};
	snprintf(a.sun_path, sizeof a.sun_path, "%s", path);
	unlink(path);
	cr_assert_eq(bind(fd, (void *)&a, sizeof a), 0, "bind %s: %s", path, strerror(errno));
	chmod(path, 0777);
	cr_assert_eq(listen(fd, 4096), 0);
	return fd;
}

/* Connections that reached a listener (drains its queue). */
static int accepted(int fd)
{
	int n = 0, c;
	while ((c = accept(fd, NULL, NULL)) >= 0) {
		n++;
		close(c);
	}
	return n;
}

/*==== pathname unix sockets ====*/

Test(escape, a_link_the_supervisor_cannot_resolve_is_refused_not_let_through)
{
	/* A symlink inside the scope whose target is at the kernel's length limit: the kernel
	 * follows it to a live socket outside; the supervisor cannot read it whole, so it must
	 * refuse (and name) the connect rather than let it through. */
	char *sock = p(out, "o.sock");
	int l = listen_at(sock);
	char target[4096];
	size_t pre = sizeof target - 1 - strlen(sock);
	target[0] = '/';
	for (size_t i = 1; i < pre; i++)
		target[i] = '/';
	strcpy(target + pre, sock);
	cr_assert_eq(strlen(target), 4095);
	char *link = p(ws, "long");
	cr_assert_eq(symlink(target, link), 0, "%s", strerror(errno));
	struct run r;
	contained("python3 -c \"import socket; s=socket.socket(socket.AF_UNIX); s.connect('long'); print('CONNECTED')\"", &r);
	cr_assert_null(strstr(r.o.out, "CONNECTED"), "the connect went through: %s", r.o.out);
	cr_assert_eq(accepted(l), 0, "the outside socket was reached");
	const cJSON *d = find_denial(r.t, "connect", NULL, NULL);
	if (!d)
		dump(&r);
	cr_assert_not_null(d);
	cr_assert_str_eq(jx_str(d, "reason"), "unresolved");
	run_free(&r);
	close(l);
	free(link);
	free(sock);
}

/* The fixture runs as the server itself (its directory, in the build tree, stays in view). */
static void race(const char *mode, const char *const *server, const char *outside_sock)
{
	int l = listen_at(outside_sock);
	struct run r;
	struct sbx_opts o = {.timeout_s = 110, .server = server};
	sbx_run(NULL, &o, &r);
	int reached = accepted(l);
	int connected = 0, refused = 0;
	const char *line = strstr(r.o.out, "connected=");
	cr_assert_not_null(line, "the fixture ran (%s): %s %s", mode, r.o.out, r.o.err);
	sscanf(line, "connected=%d refused=%d", &connected, &refused);
	cr_assert_eq(reached, 0, "%s race: %d connects reached the socket outside the scope", mode, reached);
	/* Both sides of the race were hit: connects inside went through (performed by the
	 * supervisor), connects outside were refused. */
	cr_assert_gt(connected, 0, "%s: %s", mode, r.o.out);
	cr_assert_gt(refused, 0, "%s: %s", mode, r.o.out);
	cr_assert_not_null(find_denial(r.t, "connect", "address", outside_sock), "%s: the refusals are named", mode);
	run_free(&r);
	close(l);
	unlink(outside_sock);
}

Test(escape, a_thread_racing_the_address_cannot_reach_outside)
{
	char *in = p(ws, "in.sock"), *o = p(out, "o.sock");
	const char *server[] = {FIXTURE("race_connect"), "path", in, o, "3000", NULL};
	race("address", server, o);
	free(in);
	free(o);
}

Test(escape, a_thread_racing_the_cwd_cannot_reach_outside)
{
	char *d = p(ws, "d"), *o = p(out, "x.sock");
	mkdir(d, 0755);
	const char *server[] = {FIXTURE("race_connect"), "cwd", d, out, "x.sock", "3000", NULL};
	race("cwd", server, o);
	free(d);
	free(o);
}

Test(escape, sends_with_their_own_address_are_checked_to_the_last_element)
{
	/* 100 messages, only the 100th addressed outside: every element is checked (not the
	 * first 64), the call is refused and the element is named by index. */
	char *in = p(ws, "v.sock"), *o = p(out, "o.sock");
	int l = listen_at(o);
	const char *server[] = {FIXTURE("vector_send"), in, o, "100", "99", NULL};
	struct run r;
	struct sbx_opts opts = {.server = server};
	sbx_run(NULL, &opts, &r);
	cr_assert(strstr(r.o.out, "sendmmsg=-1 errno=13"), "sendmmsg refused with EACCES: %s %s", r.o.out, r.o.err);
	cr_assert(strstr(r.o.out, "sendto=-1 errno=13"), "sendto refused with EACCES: %s", r.o.out);
	const cJSON *d = find_denial(r.t, "sendmmsg", "address", o);
	if (!d)
		dump(&r);
	cr_assert_not_null(d);
	cr_assert_eq(cJSON_GetObjectItem(d, "index")->valueint, 99);
	expect_denial(&r, "sendto", "address", o, "sendto");
	cr_assert_eq(accepted(l), 0);
	run_free(&r);
	close(l);
	free(in);
	free(o);
}

Test(escape, datagram_unix_sockets_and_other_families_are_refused_at_socket)
{
	struct run r;
	contained("python3 -c \"\n"
		  "import socket\n"
		  "for fam, typ, proto in [(socket.AF_UNIX, socket.SOCK_DGRAM, 0), (40, socket.SOCK_STREAM, 0),\n"
		  "        (17, socket.SOCK_RAW, 0), (16, socket.SOCK_RAW, 9), (31, socket.SOCK_STREAM, 3),\n"
		  "        (socket.AF_INET6, socket.SOCK_STREAM, 0)]:\n"
		  "    try:\n"
		  "        socket.socket(fam, typ, proto); print('MADE', fam)\n"
		  "    except OSError as e:\n"
		  "        print('REFUSED', fam, e.errno)\n"
		  "try:\n"
		  "    socket.socketpair(socket.AF_UNIX, socket.SOCK_DGRAM); print('MADE pair')\n"
		  "except OSError as e:\n"
		  "    print('REFUSED pair', e.errno)\n"
		  "socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, 0); print('ROUTE_OK')\n"
		  "socket.socketpair(); print('PAIR_OK')\n"
		  "\"",
		  &r);
	cr_assert_null(strstr(r.o.out, "MADE"), "%s %s", r.o.out, r.o.err);
	cr_assert(strstr(r.o.out, "ROUTE_OK") && strstr(r.o.out, "PAIR_OK"), "route queries and stream pairs work: %s %s",
		  r.o.out, r.o.err);
	expect_denial(&r, "socket", "reason", "datagram_unix", "a datagram unix socket");
	expect_denial(&r, "socketpair", "reason", "datagram_unix", "a datagram socket pair");
	static const char *const fams[] = {"vsock", "packet", "bluetooth", "inet6", NULL};
	for (const char *const *f = fams; *f; f++)
		expect_denial(&r, "socket", "family", *f, *f);
	int netlink_audit = 0;
	for (size_t i = 0; i < r.t->n; i++) {
		const cJSON *o = r.t->recs[i].obj;
		if (!strcmp(r.t->recs[i].kind, "denial") && jx_str(o, "family") && !strcmp(jx_str(o, "family"), "netlink"))
			netlink_audit += cJSON_GetObjectItem(o, "protocol")->valueint == 9;
	}
	cr_assert_eq(netlink_audit, 1, "netlink beyond route queries is refused by name");
	run_free(&r);
}

/*==== the terminal ====*/

Test(escape, the_terminal_is_out_of_reach_and_tiocsti_is_named)
{
	/* belay started from a terminal: the server has a session of its own, no controlling
	 * terminal, and a devpts without the user's terminals; TIOCSTI on a pty of its own is
	 * refused by name; nothing reaches the user's terminal. */
	struct run r;
	const char *prefix[] = {"python3", BELAY_SOURCE_DIR "/tests/fixtures/with_ctty.py", NULL};
	struct sbx_opts o = {.prefix = prefix};
	sbx_run("python3 -c \"\n"
		"import os, fcntl, termios\n"
		"try:\n"
		"    os.open('/dev/tty', os.O_RDWR); print('TTY_OPEN')\n"
		"except OSError as e:\n"
		"    print('TTY', e.errno)\n"
		"pts = os.environ.get('BELAY_TEST_PTS', '')\n"
		"print('PTS_VISIBLE' if pts and os.path.exists(pts) else 'PTS_ABSENT')\n"
		"print('SID', os.getsid(0))\n"
		"m, s = os.openpty()\n"
		"try:\n"
		"    fcntl.ioctl(s, termios.TIOCSTI, b'x'); print('TIOCSTI_OK')\n"
		"except OSError as e:\n"
		"    print('TIOCSTI', e.errno)\n"
		"for fd in (0, 1, 2):\n"
		"    print('ISATTY', fd, os.isatty(fd))\n"
		"\"; tty; echo tty=$?",
		&o, &r);
	cr_assert(strstr(r.o.err, "TERMINAL_INPUT="), "the terminal wrapper ran: %s", r.o.err);
	cr_assert(strstr(r.o.out, "TTY 6"), "no controlling terminal (ENXIO): %s", r.o.out);
	cr_assert(strstr(r.o.out, "PTS_ABSENT"), "the user's terminal is not in view: %s", r.o.out);
	cr_assert(strstr(r.o.out, "SID 1"), "the server's session is the sandbox's own: %s", r.o.out);
	cr_assert(strstr(r.o.out, "TIOCSTI 1"), "TIOCSTI is refused with EPERM: %s %s", r.o.out, r.o.err);
	cr_assert(strstr(r.o.out, "tty=1"), "%s", r.o.out);
	cr_assert_null(strstr(r.o.out, "ISATTY 0 True"));
	cr_assert(strstr(r.o.err, "TERMINAL_INPUT=b''"), "nothing reached the user's terminal: %s", r.o.err);
	expect_denial(&r, "ioctl", "request", "TIOCSTI", "TIOCSTI");
	run_free(&r);
}

/*==== processes outside the sandbox ====*/

static void read_limits(pid_t pid, char *buf, size_t n)
{
	char path[64];
	snprintf(path, sizeof path, "/proc/%d/limits", (int)pid);
	size_t len = 0;
	char *c = ts_read_file(path, &len);
	snprintf(buf, n, "%s", c ? c : "");
	free(c);
}

Test(escape, processes_outside_are_out_of_reach_and_attempts_are_named)
{
	pid_t victim = fork();
	if (victim == 0) {
		execlp("sleep", "sleep", "60", (char *)NULL);
		_exit(127);
	}
	char before[4096], after[4096];
	usleep(100000);
	read_limits(victim, before, sizeof before);
	char *s = xasprintf("prlimit --pid %d --cpu=0 --fsize=0; echo prlimit=$?; "
			    "prlimit --pid %d --fsize=0; echo self_prlimit=$?; "
			    "python3 -c \"\n"
			    "import os\n"
			    "for name, f in [('prio', lambda: os.setpriority(os.PRIO_PROCESS, %d, 19)),\n"
			    "                ('user', lambda: os.setpriority(os.PRIO_USER, os.getuid(), 19)),\n"
			    "                ('affinity', lambda: os.sched_setaffinity(%d, {0})),\n"
			    "                ('kill', lambda: os.kill(%d, 9))]:\n"
			    "    try:\n"
			    "        f(); print(name, 'DONE')\n"
			    "    except OSError as e:\n"
			    "        print(name, e.errno)\n"
			    "\"; kill -9 -1; echo killall=$?",
			    (int)victim, (int)getpid(), (int)victim, (int)victim, (int)victim);
	struct run r;
	contained(s, &r);
	read_limits(victim, after, sizeof after);
	cr_assert_eq(kill(victim, 0), 0, "the outside process is alive");
	cr_assert_str_eq(before, after, "its limits are unchanged");
	cr_assert_null(strstr(r.o.out, "DONE"), "%s", r.o.out);
	cr_assert(strstr(r.o.out, "prlimit=1") && strstr(r.o.out, "self_prlimit=1"), "%s %s", r.o.out, r.o.err);
	char v[16];
	snprintf(v, sizeof v, "%d", (int)victim);
	const cJSON *d = find_denial(r.t, "prlimit64", NULL, NULL);
	if (!d)
		dump(&r);
	cr_assert_not_null(d, "prlimit64 on a pid outside is named");
	cr_assert_eq(cJSON_GetObjectItem(d, "target_pid")->valueint, (int)victim);
	cr_assert_str_eq(jx_str(d, "reason"), "not_in_sandbox");
	expect_denial(&r, "setpriority", "reason", "not_in_sandbox", "setpriority of a pid outside");
	expect_denial(&r, "setpriority", "reason", "every_process_of_a_user", "setpriority of a whole user");
	expect_denial(&r, "sched_setaffinity", "reason", "not_in_sandbox", "sched_setaffinity of a pid outside");
	kill(victim, SIGKILL);
	waitpid(victim, NULL, 0);
	run_free(&r);
	free(s);
}

Test(escape, calls_the_kernel_refused_unnamed_are_named)
{
	/* Item 8 of issue 11: each of these used to be refused by the kernel with nothing in the
	 * trace. */
	char *dangling = p(ws, "dangling"), *target = p(out, "through-link"), *victim = p(out, "victim");
	cr_assert_eq(symlink("../out/through-link", dangling), 0);
	char *s = xasprintf("python3 -c \"\n"
			    "import ctypes, os\n"
			    "libc = ctypes.CDLL(None, use_errno=True)\n"
			    "def call(name, *a):\n"
			    "    r = libc.syscall(*a)\n"
			    "    print(name, r, ctypes.get_errno())\n"
			    "call('perf_event_open', 298, ctypes.create_string_buffer(128), 0, -1, -1, 0)\n"
			    "call('open_by_handle_at', 304, -100, ctypes.create_string_buffer(128), 0)\n"
			    "call('userfaultfd', 323, 0)\n"
			    "call('sethostname', 170, b'pwned', 5)\n"
			    "call('ptrace_attach', 101, 16, %d, 0, 0)\n"
			    "call('process_vm_writev', 311, %d, 0, 0, 0, 0, 0)\n"
			    "call('kcmp', 312, %d, os.getpid(), 0, 0, 0)\n"
			    "call('pidfd_open', 434, %d, 0)\n"
			    "\"; echo 1000 > /proc/self/oom_score_adj; echo x > dangling; chattr +A %s; "
			    "mount -t tmpfs none /mnt; true",
			    (int)getppid(), (int)getppid(), (int)getppid(), (int)getppid(), victim);
	struct run r;
	contained(s, &r);
	static const char *const ops[] = {"perf_event_open", "open_by_handle_at", "userfaultfd", "sethostname",
					  "ptrace", "process_vm_writev", "kcmp", "pidfd_open", "mount", NULL};
	for (const char *const *op = ops; *op; op++)
		expect_denial(&r, *op, NULL, NULL, *op);
	expect_denial(&r, "openat", "reason", "proc", "a write under /proc");
	expect_denial(&r, "openat", "path", target, "a create through a symlink pointing outside");
	struct stat st;
	cr_assert_neq(lstat(target, &st), 0);
	if (!system("command -v chattr >/dev/null 2>&1"))
		expect_denial(&r, "ioctl", "request", "FS_IOC_SETFLAGS", "an inode flag outside the scope");
	run_free(&r);
	free(s);
	free(dangling);
	free(target);
	free(victim);
}

/*==== locks and leases ====*/

Test(escape, leases_and_locks_outside_the_scope_are_refused)
{
	char *victim = p(out, "victim");
	char *s = xasprintf("python3 -c \"\n"
			    "import fcntl, os\n"
			    "fd = os.open('%s', os.O_RDONLY)\n"
			    "for name, f in [('lease', lambda: fcntl.fcntl(fd, fcntl.F_SETLEASE, fcntl.F_RDLCK)),\n"
			    "                ('flock', lambda: fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)),\n"
			    "                ('lockf', lambda: fcntl.lockf(fd, fcntl.LOCK_SH | fcntl.LOCK_NB))]:\n"
			    "    try:\n"
			    "        f(); print(name, 'TAKEN')\n"
			    "    except OSError as e:\n"
			    "        print(name, e.errno)\n"
			    "inside = os.open('mine.lock', os.O_RDWR | os.O_CREAT)\n"
			    "fcntl.flock(inside, fcntl.LOCK_EX); fcntl.lockf(inside, fcntl.LOCK_EX); print('INSIDE_OK')\n"
			    "\"",
			    victim);
	struct run r;
	contained(s, &r);
	cr_assert_null(strstr(r.o.out, "TAKEN"), "%s %s", r.o.out, r.o.err);
	cr_assert(strstr(r.o.out, "INSIDE_OK"), "locks inside the scope work: %s %s", r.o.out, r.o.err);
	expect_denial(&r, "fcntl", "cmd", "F_SETLEASE", "a lease");
	expect_denial(&r, "flock", "path", victim, "flock outside");
	expect_denial(&r, "fcntl", "cmd", "F_SETLK", "a record lock outside");
	/* An outside writer is not held up. */
	int fd = open(victim, O_WRONLY | O_APPEND | O_NONBLOCK);
	cr_assert_geq(fd, 0, "%s", strerror(errno));
	close(fd);
	run_free(&r);
	free(s);
	free(victim);
}

/*==== hidden host locations ====*/

static char *fake_home(void)
{
	char *home = p(dir, "home");
	ts_sh("mkdir -p %s/.ssh %s/.aws %s/.docker %s/.kube %s/.config/gh && "
	      "echo SSH-SECRET > %s/.ssh/id_ed25519 && echo AWS-SECRET > %s/.aws/credentials && "
	      "echo NETRC-SECRET > %s/.netrc && echo DOCKER-SECRET > %s/.docker/config.json && "
	      "echo KUBE-SECRET > %s/.kube/config && echo GH-SECRET > %s/.config/gh/hosts.yml && "
	      "echo plain > %s/notes.txt",
	      home, home, home, home, home, home, home, home, home, home, home, home);
	return home;
}

static int hidden_has(const struct run *r, const char *path)
{
	const cJSON *h = cJSON_GetObjectItemCaseSensitive(layers_of(r->t), "hidden"), *it;
	cJSON_ArrayForEach(it, h)
		if (cJSON_IsString(it) && !strcmp(it->valuestring, path))
			return 1;
	return 0;
}

Test(escape, credential_stores_are_hidden_named_and_exposable)
{
	char *home = fake_home();
	char *env_home = xasprintf("HOME=%s", home);
	const char *env[] = {env_home, NULL};
	const char *script = "for f in .ssh/id_ed25519 .aws/credentials .netrc .docker/config.json .kube/config "
			     ".config/gh/hosts.yml notes.txt; do cat \"$HOME/$f\"; done; ls -a \"$HOME/.ssh\"; "
			     "echo key >> \"$HOME/.ssh/authorized_keys\"; true";
	struct run r;
	struct sbx_opts o = {.env = env};
	sbx_run(script, &o, &r);
	cr_assert_null(strstr(r.o.out, "SECRET"), "a credential reached the server: %s", r.o.out);
	cr_assert(strstr(r.o.out, "plain"), "the rest of the home directory is readable: %s %s", r.o.out, r.o.err);
	static const char *const stores[] = {".ssh", ".aws", ".netrc", ".docker/config.json", ".kube", ".config/gh", NULL};
	for (const char *const *s = stores; *s; s++) {
		char *path = p(home, *s);
		cr_assert(hidden_has(&r, path), "the sandbox record names %s as hidden", path);
		free(path);
	}
	char *key = p(home, ".ssh/id_ed25519"), *netrc = p(home, ".netrc"), *ak = p(home, ".ssh/authorized_keys");
	expect_denial(&r, "openat", "path", key, "a read of a hidden key");
	expect_denial(&r, "openat", "path", netrc, "a read of a hidden file");
	expect_denial(&r, "openat", "path", ak, "a write into a hidden directory");
	struct stat st;
	cr_assert_neq(stat(ak, &st), 0);
	run_free(&r);
	/* --expose keeps one in view (read-only); the others stay hidden. */
	char *aws = p(home, ".aws");
	const char *args[] = {"--expose", aws, NULL};
	struct sbx_opts o2 = {.env = env, .proxy_args = args};
	sbx_run("cat \"$HOME/.aws/credentials\"; cat \"$HOME/.ssh/id_ed25519\"; echo x > \"$HOME/.aws/new\"; true", &o2, &r);
	cr_assert(strstr(r.o.out, "AWS-SECRET"), "the exposed store is readable: %s %s", r.o.out, r.o.err);
	cr_assert_null(strstr(r.o.out, "SSH-SECRET"));
	cr_assert(!hidden_has(&r, aws) && hidden_has(&r, key) == 0, "the record says what is hidden");
	char *ssh = p(home, ".ssh");
	cr_assert(hidden_has(&r, ssh));
	char *awsnew = p(home, ".aws/new");
	cr_assert_neq(stat(awsnew, &st), 0, "exposed is read-only");
	run_free(&r);
	free(awsnew);
	free(ssh);
	free(aws);
	free(key);
	free(netrc);
	free(ak);
	free(env_home);
	free(home);
}

Test(escape, host_socket_directories_are_hidden)
{
	/* A daemon's socket in the host's /tmp, and one in $XDG_RUNTIME_DIR: neither is in view. */
	char *tsock = xasprintf("/tmp/belay-test-escape-%d.sock", (int)getpid());
	char *xdg = p(dir, "xdg");
	mkdir(xdg, 0700);
	char *xsock = p(xdg, "bus");
	int l1 = listen_at(tsock), l2 = listen_at(xsock);
	char *env_xdg = xasprintf("XDG_RUNTIME_DIR=%s", xdg);
	const char *env[] = {env_xdg, NULL};
	char *s = xasprintf("python3 -c \"\n"
			    "import socket\n"
			    "for path in ['%s', '%s']:\n"
			    "    try:\n"
			    "        socket.socket(socket.AF_UNIX).connect(path); print('REACHED', path)\n"
			    "    except OSError as e:\n"
			    "        print('ABSENT', e.errno)\n"
			    "\"",
			    tsock, xsock);
	struct run r;
	struct sbx_opts o = {.env = env};
	sbx_run(s, &o, &r);
	cr_assert_null(strstr(r.o.out, "REACHED"), "%s", r.o.out);
	cr_assert_eq(accepted(l1) + accepted(l2), 0);
	cr_assert(hidden_has(&r, xdg), "$XDG_RUNTIME_DIR is hidden and named");
	expect_denial(&r, "connect", "address", xsock, "a connect to a hidden socket");
	run_free(&r);
	close(l1);
	close(l2);
	unlink(tsock);
	unlink(xsock);
	free(env_xdg);
	free(s);
	free(tsock);
	free(xsock);
	free(xdg);
}

/*==== files: unlink, rmdir, mkdir, rename-over, O_TRUNC ====*/

Test(escape, unlink_rmdir_mkdir_rename_over_and_truncate_outside)
{
	char *empty = p(out, "emptydir"), *newdir = p(out, "newdir"), *victim = p(out, "victim");
	mkdir(empty, 0755);
	struct run r;
	contained("rm -f ../out/victim; rmdir ../out/emptydir; mkdir ../out/newdir; mv movable ../out/victim; "
		  ": > ../out/victim; true",
		  &r);
	assert_victim_intact();
	struct stat st;
	cr_assert_eq(stat(empty, &st), 0, "rmdir outside");
	cr_assert_neq(stat(newdir, &st), 0, "mkdir outside");
	expect_denial(&r, "unlinkat", "path", victim, "unlink");
	expect_denial(&r, "rmdir", "path", empty, "rmdir");
	expect_denial(&r, "mkdir", "path", newdir, "mkdir");
	expect_denial(&r, NULL, "to", victim, "rename over");
	expect_denial(&r, "openat", "flags", "O_WRONLY|O_CREAT|O_TRUNC", "O_TRUNC");
	run_free(&r);
	free(empty);
	free(newdir);
	free(victim);
}

Test(escape, fds_belay_inherited_do_not_reach_the_server)
{
	/* An fd belay was started with (the agent's, say) is closed before the server runs. */
	char *victim = p(out, "victim");
	int fd0 = open(victim, O_RDWR | O_APPEND);
	cr_assert_geq(fd0, 0);
	int fd = fcntl(fd0, F_DUPFD, 200); /* inherited: no close-on-exec */
	close(fd0);
	char *s = xasprintf("python3 -c \"\nimport os\ntry:\n    os.write(%d, b'pwned'); print('rc=0')\n"
			    "except OSError as e:\n    print('rc=%%d' %% e.errno)\n\"",
			    fd);
	struct run r;
	contained(s, &r);
	close(fd);
	free(s);
	assert_victim_intact();
	cr_assert(strstr(r.o.out, "rc=") && !strstr(r.o.out, "rc=0"), "%s %s", r.o.out, r.o.err);
	run_free(&r);
	free(victim);
}

/*==== what belay started ends with the run ====*/

static int alive_with_arg(const char *arg)
{
	char cmd[256];
	/* [s]leep: the pattern does not match the shell that runs pgrep. */
	snprintf(cmd, sizeof cmd, "pgrep -f -- '[s]leep %s' >/dev/null", arg);
	return system(cmd) == 0;
}

Test(escape, processes_the_server_leaves_behind_end_with_it)
{
	/* A daemonised child (its own session, reparented to the sandbox's init) does not
	 * outlive the server: the pid namespace ends with its first process. */
	char *tag = xasprintf("%d.4321", 300 + (int)(getpid() % 1000));
	char *s = xasprintf("setsid sleep %s < /dev/null > /dev/null 2>&1 & sleep 0.2; echo started", tag);
	struct run r;
	contained(s, &r);
	cr_assert(strstr(r.o.out, "started"), "%s %s", r.o.out, r.o.err);
	int alive = 1;
	for (int i = 0; i < 50 && alive; i++) {
		alive = alive_with_arg(tag);
		if (alive)
			usleep(20000);
	}
	cr_assert(!alive, "the daemonised child outlived the run");
	run_free(&r);
	free(s);
	free(tag);
}
