/* test_hook_sockets.c - belay's own sockets (issue 30, class 7): the console's (chost.c,
 * `belay connect`) and the hook helper's (hook_host.c, `belay __hookd`) serve the user who
 * runs belay and nobody else, and belay's clients hand nothing to a listener that is not
 * the user's own. Each attack is played for real: another uid is a forked child that drops
 * to `nobody` with setresuid (root only: skipped, with the reason, otherwise), and the
 * filesystem's own protection (0700 directory, 0600 socket) is opened on purpose so that the
 * check under test is the only thing in the way. */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/sockpeer.h"
#include "common/xalloc.h"
#include "console_host/cevent.h"
#include "console_host/chost.h"
#include "hook/hook_host.h"
#include "hook/hook_wire.h"
#include "tsupport.h"

static char dir[128];

static void setup(void)
{
	signal(SIGPIPE, SIG_IGN); /* a peer that hangs up is an answer, not a crash */
	snprintf(dir, sizeof dir, "/tmp/belay-socktest-XXXXXX");
	cr_assert(mkdtemp(dir));
}

static void teardown(void)
{
	ts_rmtree(dir);
}

TestSuite(hook_sockets, .init = setup, .fini = teardown, .timeout = 120);

static uid_t nobody_uid(void)
{
	struct passwd *pw = getpwnam("nobody");
	return pw ? pw->pw_uid : 65534;
}

#define NEED_ROOT()                                                                                           \
	do {                                                                                                  \
		if (geteuid() != 0)                                                                           \
			cr_skip_test("another uid is needed: run as root (the test drops a child to nobody)"); \
	} while (0)

/* Drops the calling (forked) process to nobody for good. */
static void become_nobody(void)
{
	uid_t u = nobody_uid();
	if (setgroups(0, NULL) != 0 || setresgid(65534, 65534, 65534) != 0 || setresuid(u, u, u) != 0)
		_exit(99);
}

static int dial_raw(const char *path)
{
	struct sockaddr_un a = {.sun_family = AF_UNIX};
	snprintf(a.sun_path, sizeof a.sun_path, "%s", path);
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&a, sizeof a) != 0)
		return -1;
	return fd;
}

/* As nobody: connects to path, sends line, and writes what came back (up to EOF, bounded)
 * into out_path. Returns the child's exit status (0 connected, 98 could not connect). */
static int as_nobody_talk(const char *path, const char *line, const char *out_path)
{
	pid_t pid = fork();
	cr_assert(pid >= 0);
	if (pid == 0) {
		int out = open(out_path, O_WRONLY | O_CREAT | O_TRUNC, 0666);
		become_nobody();
		int fd = dial_raw(path);
		if (fd < 0)
			_exit(98);
		if (line && write(fd, line, strlen(line)) < 0) {
			/* hung up on before the line went: what follows is whatever came back */
		}
		char buf[4096];
		for (;;) {
			struct pollfd p = {.fd = fd, .events = POLLIN};
			if (poll(&p, 1, 30000) <= 0)
				break;
			ssize_t n = read(fd, buf, sizeof buf);
			if (n <= 0)
				break;
			if (write(out, buf, (size_t)n) < 0)
				break;
		}
		_exit(0);
	}
	int st;
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static char *slurp(const char *path)
{
	size_t len;
	char *s = ts_read_file(path, &len);
	return s ? s : xstrdup("");
}

/* Opens the filesystem's protection of a socket: what stops another uid is then the check. */
static void open_up(const char *sock_dir, const char *sock)
{
	cr_assert_eq(chmod(sock_dir, 0711), 0);
	cr_assert_eq(chmod(sock, 0666), 0);
}

Test(hook_sockets, another_uid_is_refused_by_name_by_the_console)
{
	NEED_ROOT();
	chmod(dir, 0711);
	char *sdir = xasprintf("%s/c", dir), *sock = xasprintf("%s/console.sock", sdir), *out = xasprintf("%s/out", dir);
	cr_assert_eq(mkdir(sdir, 0700), 0);
	struct cqueue *q = cqueue_new();
	struct chost_cfg cfg = {.socket_path = sock, .server_stderr_fd = -1, .events = q};
	struct chost *h = NULL;
	struct err e = {0};
	cr_assert_eq(chost_start(&cfg, &h, &e), 0, "%s", e.msg);
	open_up(sdir, sock);
	int st = as_nobody_talk(sock, "{\"v\":1,\"pid\":1,\"cwd\":\"/\"}\n", out);
	cr_assert_eq(st, 0, "nobody could not even connect (status %d): the test proves nothing", st);
	char *got = slurp(out);
	char want[64];
	snprintf(want, sizeof want, "uid %u", (unsigned)nobody_uid());
	cr_expect(strstr(got, "\"ok\":false") && strstr(got, "refused") && strstr(got, want),
		  "the other uid is told it is refused, by uid: '%s'", got);
	/* and the console logs it */
	int logged = 0;
	for (int i = 0; i < 300 && !logged; i++) {
		struct cevent *ev = cqueue_take(q);
		if (!ev) {
			usleep(10000);
			continue;
		}
		logged = ev->kind == CE_LOG && ev->text && strstr(ev->text, "refused") && strstr(ev->text, want);
		cevent_free(ev);
	}
	cr_expect(logged, "the refusal is in the console's log");
	free(got);
	chost_stop(h);
	cqueue_free(q);
	free(sdir);
	free(sock);
	free(out);
}

static char logged_msg[1024];
static void log_to(void *ctx, const char *msg)
{
	(void)ctx;
	snprintf(logged_msg, sizeof logged_msg, "%s", msg);
}

Test(hook_sockets, another_uid_is_refused_by_name_by_the_hook_helper)
{
	NEED_ROOT();
	chmod(dir, 0711);
	char *sdir = xasprintf("%s/h", dir), *sock = xasprintf("%s/hookd-x.sock", sdir), *out = xasprintf("%s/out", dir);
	cr_assert_eq(mkdir(sdir, 0700), 0);
	struct hook_observer obs = {.log = log_to};
	struct hook_host *h = hook_host_new(&obs);
	struct err e = {0};
	cr_assert_eq(hook_host_listen(h, sock, &e), 0, "%s", e.msg);
	open_up(sdir, sock);
	int st = as_nobody_talk(sock, "{\"v\":1,\"hook\":1,\"len\":2,\"state\":\"/x\"}\n{}", out);
	cr_assert_eq(st, 0, "nobody could not even connect (status %d)", st);
	char *got = slurp(out);
	char want[64];
	snprintf(want, sizeof want, "uid %u", (unsigned)nobody_uid());
	cr_expect(strstr(got, "\"ok\":false") && strstr(got, "refused") && strstr(got, want),
		  "the other uid is told it is refused, by uid: '%s'", got);
	cr_expect(!strstr(got, "taken"), "the event was not taken: '%s'", got);
	hook_host_free(h);
	cr_expect(strstr(logged_msg, "refused") && strstr(logged_msg, want), "the helper logs it: '%s'", logged_msg);
	free(got);
	free(sdir);
	free(sock);
	free(out);
}

/* A handler that takes any hook event and lets the call through: what a listener put in
 * belay's place would answer. Serves one connection. */
static void fake_handler(int lfd)
{
	int c = accept(lfd, NULL, NULL);
	if (c < 0)
		_exit(1);
	char buf[65536];
	for (;;) { /* the whole request (the client shuts its side down after it) */
		struct pollfd p = {.fd = c, .events = POLLIN};
		if (poll(&p, 1, 5000) <= 0 || read(c, buf, sizeof buf) <= 0)
			break;
	}
	static const char ans[] = "{\"taken\":true}\n{\"ok\":true,\"exit\":0,\"out\":\"\",\"err\":\"\"}\n";
	if (write(c, ans, sizeof ans - 1) < 0)
		_exit(1);
	close(c);
	_exit(0);
}

static int listen_at(const char *path)
{
	struct sockaddr_un a = {.sun_family = AF_UNIX};
	snprintf(a.sun_path, sizeof a.sun_path, "%s", path);
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof a) != 0 || listen(fd, 4) != 0)
		return -1;
	return fd;
}

static int send_event(const char *sock, struct hook_reply *rp)
{
	const char *payload = "{\"hook_event_name\":\"PreToolUse\",\"session_id\":\"s\",\"tool_name\":\"Bash\","
			      "\"tool_input\":{\"command\":\"rm -rf ~\"}}";
	struct hook_request rq = {.agent = HA_CLAUDE_CODE, .mode = ADMISSION_ENFORCE, .state_dir = dir,
				  .trace_dir = dir, .payload = payload, .len = strlen(payload), .hold_ms = 1000};
	struct err e = {0};
	memset(rp, 0, sizeof *rp);
	return hook_wire_send(sock, &rq, 10000, rp, &e);
}

/* The hook client must not hand an event to a listener in a directory another uid controls
 * (the socket path replaced: a /tmp/belay-UID made first by someone else). */
Test(hook_sockets, a_hook_event_is_not_handed_to_a_listener_of_another_uid)
{
	NEED_ROOT();
	cr_assert_eq(chmod(dir, 0777), 0);
	char *fdir = xasprintf("%s/belay-victim", dir), *sock = xasprintf("%s/hookd-x.sock", fdir);
	int ready[2];
	cr_assert_eq(pipe(ready), 0);
	pid_t pid = fork();
	cr_assert(pid >= 0);
	if (pid == 0) {
		become_nobody();
		if (mkdir(fdir, 0777) != 0 || chmod(fdir, 0777) != 0)
			_exit(2);
		int lfd = listen_at(sock);
		if (lfd < 0 || chmod(sock, 0777) != 0)
			_exit(3);
		if (write(ready[1], "r", 1) != 1)
			_exit(4);
		fake_handler(lfd);
	}
	close(ready[1]);
	char r;
	cr_assert_eq(read(ready[0], &r, 1), 1, "the other uid's listener did not start");
	close(ready[0]);
	struct hook_reply rp;
	int got = send_event(sock, &rp);
	cr_expect_eq(got, 0, "the event went to another uid's listener, which let the call through (exit %d)",
		     rp.exit_code);
	if (got == 1)
		hook_reply_free(&rp);
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	free(fdir);
	free(sock);
}

/* The same with the directory made to look like ours (root's, 0700) but the listener still
 * another uid's: the listener's own credentials decide. */
Test(hook_sockets, a_listener_of_another_uid_in_our_directory_gets_no_event)
{
	NEED_ROOT();
	cr_assert_eq(chmod(dir, 0777), 0);
	char *fdir = xasprintf("%s/d", dir), *sock = xasprintf("%s/hookd-x.sock", fdir);
	cr_assert_eq(mkdir(fdir, 0777), 0);
	cr_assert_eq(chmod(fdir, 0777), 0);
	int ready[2];
	cr_assert_eq(pipe(ready), 0);
	pid_t pid = fork();
	cr_assert(pid >= 0);
	if (pid == 0) {
		become_nobody();
		int lfd = listen_at(sock);
		if (lfd < 0 || chmod(sock, 0777) != 0)
			_exit(3);
		if (write(ready[1], "r", 1) != 1)
			_exit(4);
		fake_handler(lfd);
	}
	close(ready[1]);
	char r;
	cr_assert_eq(read(ready[0], &r, 1), 1);
	close(ready[0]);
	cr_assert_eq(chmod(fdir, 0700), 0);
	struct hook_reply rp;
	int got = send_event(sock, &rp);
	cr_expect_eq(got, 0, "the event went to another uid's listener (exit %d)", rp.exit_code);
	if (got == 1)
		hook_reply_free(&rp);
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	free(fdir);
	free(sock);
}

/* Without another uid: a socket directory open to others is refused by the client too. */
Test(hook_sockets, a_hook_event_is_not_handed_over_in_a_directory_open_to_others)
{
	char *fdir = xasprintf("%s/open", dir), *sock = xasprintf("%s/hookd-x.sock", fdir);
	cr_assert_eq(mkdir(fdir, 0700), 0);
	cr_assert_eq(chmod(fdir, 0777), 0);
	int lfd = listen_at(sock);
	cr_assert(lfd >= 0);
	pid_t pid = fork();
	cr_assert(pid >= 0);
	if (pid == 0)
		fake_handler(lfd);
	close(lfd);
	struct hook_reply rp;
	int got = send_event(sock, &rp);
	cr_expect_eq(got, 0, "the event went to a listener in a directory anyone can change (exit %d)", rp.exit_code);
	if (got == 1)
		hook_reply_free(&rp);
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	free(fdir);
	free(sock);
}

/* `belay connect` hands the agent's pipes to no listener of another uid. */
Test(hook_sockets, belay_connect_refuses_a_listener_of_another_uid)
{
	NEED_ROOT();
	cr_assert_eq(chmod(dir, 0777), 0);
	char *sock = xasprintf("%s/fake.sock", dir);
	int ready[2];
	cr_assert_eq(pipe(ready), 0);
	pid_t pid = fork();
	cr_assert(pid >= 0);
	if (pid == 0) {
		become_nobody();
		int lfd = listen_at(sock);
		if (lfd < 0 || chmod(sock, 0777) != 0)
			_exit(3);
		if (write(ready[1], "r", 1) != 1)
			_exit(4);
		int c = accept(lfd, NULL, NULL);
		static const char ok[] = "{\"ok\":true,\"run\":\"stolen\"}\n{\"exit\":0}\n";
		if (c >= 0 && write(c, ok, sizeof ok - 1) < 0)
			_exit(1);
		sleep(2);
		_exit(0);
	}
	close(ready[1]);
	char r;
	cr_assert_eq(read(ready[0], &r, 1), 1);
	close(ready[0]);
	const char *argv[] = {BELAY_BIN, "connect", sock, NULL};
	struct ts_out o;
	ts_run(argv, NULL, dir, "", 0, 30, &o);
	cr_expect_neq(o.status, 0, "connect used another uid's listener: %s", o.err);
	char want[64];
	snprintf(want, sizeof want, "uid %u", (unsigned)nobody_uid());
	cr_expect(strstr(o.err, "refused") && strstr(o.err, want), "named: %s", o.err);
	ts_out_free(&o);
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	free(sock);
}

/* After a bind, a path that was replaced by someone else's socket no longer passes. */
Test(hook_sockets, a_socket_replaced_after_bind_is_noticed)
{
	char *sdir = xasprintf("%s/r", dir), *sock = xasprintf("%s/console.sock", sdir);
	cr_assert_eq(mkdir(sdir, 0700), 0);
	int mine = listen_at(sock);
	cr_assert(mine >= 0);
	struct err e = {0};
	cr_expect_eq(sockpeer_bound_check(sock, 1, &e), 0, "%s", e.msg);
	/* another process (ours, or anyone who could write there) puts its socket in its place */
	int ready[2];
	cr_assert_eq(pipe(ready), 0);
	pid_t pid = fork();
	if (pid == 0) {
		unlink(sock);
		int lfd = listen_at(sock);
		if (lfd < 0 || write(ready[1], "r", 1) != 1)
			_exit(3);
		pause();
		_exit(0);
	}
	close(ready[1]);
	char r;
	cr_assert_eq(read(ready[0], &r, 1), 1);
	close(ready[0]);
	e = (struct err){0};
	cr_expect_eq(sockpeer_bound_check(sock, 1, &e), BELAY_EREFUSED);
	cr_expect(strstr(e.msg, "replaced"), "%s", e.msg);
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	close(mine);
	free(sdir);
	free(sock);
}
