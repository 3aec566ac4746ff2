/* test_sandbox_layers.c - each containment layer proven alone. The escape tests pass as long
 * as the first layer that refuses holds, which hides the others; here every layer runs with
 * all the others turned off (the test-only switch, BELAY_TEST_LAYERS_OFF, compiled only into
 * test builds: src/sandbox/sandbox_testswitch.h), so weakening any single one (Landlock's
 * write rules widened to /, the network namespace dropped, unlinkat taken out of the seccomp
 * filter...) fails a test here. A control with every layer off shows that each vector does
 * escape when nothing refuses it, so each test has something to catch.
 *
 * Vectors, against files in DIR/out prepared afresh for each run:
 *   write a new file, O_TRUNC, unlink, rmdir, mkdir, rename over, chmod;
 *   TCP to a live loopback listener of this test; a signal to this test process;
 *   an abstract unix socket this test listens on; a read of a credential store;
 *   this test's SysV shared memory segment and message queue (by id) and POSIX message
 *   queue (by name), and a SysV segment made inside that must not outlive the sandbox. */
#include <criterion/criterion.h>
#include <errno.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "sandbox_harness.h"
#include "ts_ipc.h"

TestSuite(layers, .init = sbx_setup, .fini = sbx_teardown, .timeout = 90);

#ifdef BELAY_TEST_SWITCHES /* the helpers and tests below need the layer switch */
static const char *const all_layers[] = {"mounts", "netns", "landlock", "supervisor", "pidns", "ipcns", NULL};

static volatile sig_atomic_t got_signal;

static void on_usr1(int sig)
{
	(void)sig;
	got_signal++;
}

struct targets {
	int tcp, tcp_port, abstract;
	char abstract_name[64];
	char *home;
	struct ts_ipc ipc;
};

static void prepare(struct targets *t)
{
	ts_sh("cd %s && rm -rf new newdir emptydir && printf data > t && printf data > u && printf data > r && "
	      "printf data > c && chmod 0644 c && mkdir emptydir", out);
	ts_sh("printf m > %s/movable", ws);
	if (!t->home) {
		t->home = p(dir, "home");
		ts_sh("mkdir -p %s/.ssh && echo SSH-SECRET > %s/.ssh/id_ed25519", t->home, t->home);
		t->tcp = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
		struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
		cr_assert_eq(bind(t->tcp, (void *)&a, sizeof a), 0);
		listen(t->tcp, 16);
		socklen_t l = sizeof a;
		getsockname(t->tcp, (void *)&a, &l);
		t->tcp_port = ntohs(a.sin_port);
		t->abstract = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0);
		struct sockaddr_un u = {.sun_family = AF_UNIX};
		snprintf(t->abstract_name, sizeof t->abstract_name, "belay-layers-%d", (int)getpid());
		memcpy(u.sun_path + 1, t->abstract_name, strlen(t->abstract_name));
		cr_assert_eq(bind(t->abstract, (void *)&u,
				  (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + strlen(t->abstract_name))),
			     0);
		listen(t->abstract, 16);
		signal(SIGUSR1, on_usr1);
		ts_ipc_make(&t->ipc);
	}
	got_signal = 0;
}

static int drained(int fd)
{
	int n = 0, c;
	while ((c = accept(fd, NULL, NULL)) >= 0) {
		n++;
		close(c);
	}
	return n;
}

/* What got through, by vector. */
struct escaped {
	int write, trunc, unlink, rmdir, mkdir, rename, chmod, tcp, signal, abstract, secret;
	struct ts_ipc_reached ipc;
};

static int content_is(const char *name, const char *want)
{
	char *f = p(out, name);
	size_t len = 0;
	char *c = ts_read_file(f, &len);
	int same = c && len == strlen(want) && !memcmp(c, want, len);
	free(c);
	free(f);
	return same;
}

static int exists(const char *name)
{
	char *f = p(out, name);
	struct stat st;
	int e = lstat(f, &st) == 0;
	free(f);
	return e;
}

/* Runs every vector with only `on` left on (NULL: every layer off). */
static void attempt(const char *on, struct targets *t, struct escaped *x, struct run *r)
{
	prepare(t);
	char off[128] = "";
	for (const char *const *l = all_layers; *l; l++)
		if (!on || strcmp(*l, on)) {
			if (off[0])
				strcat(off, ",");
			strcat(off, *l);
		}
	char *env_off = xasprintf("BELAY_TEST_LAYERS_OFF=%s", off), *env_home = xasprintf("HOME=%s", t->home);
	char *ipc = ts_ipc_script(&t->ipc, BELAY_BIN);
	const char *env[] = {env_off, env_home, NULL};
	char *script = xasprintf(
		"echo x > ../out/new; (: > ../out/t); rm -f ../out/u; rmdir ../out/emptydir; mkdir ../out/newdir; "
		"mv movable ../out/r; chmod 0600 ../out/c; "
		"python3 -c \"\n"
		"import socket, os\n"
		"try:\n"
		"    socket.create_connection(('127.0.0.1', %d), 2); print('TCP_REACHED')\n"
		"except OSError: pass\n"
		"try:\n"
		"    s = socket.socket(socket.AF_UNIX); s.connect('\\0%s'); print('ABSTRACT_REACHED')\n"
		"except OSError: pass\n"
		"try:\n"
		"    os.kill(%d, 10); print('SIGNAL_SENT')\n"
		"except OSError: pass\n"
		"\"; cat \"$HOME/.ssh/id_ed25519\"; %s; true",
		t->tcp_port, t->abstract_name, (int)getpid(), ipc);
	struct sbx_opts o = {.env = env};
	sbx_run(script, &o, r);
	usleep(50000); /* a signal in flight */
	const cJSON *tl = cJSON_GetObjectItemCaseSensitive(layers_of(r->t), "test_layers_off");
	if (!tl)
		dump(r);
	cr_assert(cJSON_IsArray(tl), "the trace names the layers the test switch turned off");
	cr_assert_eq(cJSON_GetArraySize(tl), on ? 5 : 6);
	memset(x, 0, sizeof *x);
	x->write = exists("new");
	x->trunc = !content_is("t", "data");
	x->unlink = !exists("u");
	x->rmdir = !exists("emptydir");
	x->mkdir = exists("newdir");
	x->rename = content_is("r", "m");
	char *c = p(out, "c");
	struct stat st;
	x->chmod = stat(c, &st) == 0 && (st.st_mode & 0777) != 0644;
	free(c);
	x->tcp = drained(t->tcp) > 0;
	x->abstract = drained(t->abstract) > 0;
	x->signal = got_signal > 0;
	x->secret = strstr(r->o.out, "SSH-SECRET") != NULL;
	ts_ipc_check(&t->ipc, &x->ipc);
	free(ipc);
	free(script);
	free(env_off);
	free(env_home);
}

static void done(struct targets *t)
{
	close(t->tcp);
	close(t->abstract);
	free(t->home);
	ts_ipc_free(&t->ipc);
}

#define FILE_VECTORS(x) ((x).write + (x).trunc + (x).unlink + (x).rmdir + (x).mkdir + (x).rename)

static void assert_files_refused(const struct escaped *x, const char *layer)
{
	cr_assert(!x->write, "%s alone: a new file was written outside", layer);
	cr_assert(!x->trunc, "%s alone: O_TRUNC went through", layer);
	cr_assert(!x->unlink, "%s alone: unlink went through", layer);
	cr_assert(!x->rmdir, "%s alone: rmdir went through", layer);
	cr_assert(!x->mkdir, "%s alone: mkdir went through", layer);
	cr_assert(!x->rename, "%s alone: rename over went through", layer);
}


Test(layers, with_every_layer_off_every_vector_escapes)
{
	struct targets t = {0};
	struct escaped x;
	struct run r;
	attempt(NULL, &t, &x, &r);
	if (FILE_VECTORS(x) != 6 || !x.chmod || !x.tcp || !x.abstract || !x.signal || !x.secret)
		dump(&r);
	cr_assert_eq(FILE_VECTORS(x), 6, "every file vector works when nothing refuses it");
	cr_assert(x.chmod && x.tcp && x.abstract && x.signal && x.secret,
		  "chmod %d tcp %d abstract %d signal %d secret %d", x.chmod, x.tcp, x.abstract, x.signal, x.secret);
	cr_assert(x.ipc.shm && x.ipc.msg && x.ipc.mq && x.ipc.leftover, "shm %d msg %d mq %d leftover %d", x.ipc.shm,
		  x.ipc.msg, x.ipc.mq, x.ipc.leftover);
	cr_assert_eq(count_kind(r.t, "denial"), 0);
	run_free(&r);
	done(&t);
}

Test(layers, read_only_mounts_alone)
{
	struct targets t = {0};
	struct escaped x;
	struct run r;
	attempt("mounts", &t, &x, &r);
	assert_files_refused(&x, "mounts");
	cr_assert(!x.chmod, "mounts alone: chmod outside went through");
	cr_assert(!x.secret, "mounts alone: the credential store was readable");
	cr_assert_eq(count_kind(r.t, "denial"), 0, "nothing else named it");
	run_free(&r);
	done(&t);
}

Test(layers, landlock_alone)
{
	struct targets t = {0};
	struct escaped x;
	struct run r;
	attempt("landlock", &t, &x, &r);
	assert_files_refused(&x, "landlock");
	cr_assert(!x.tcp, "landlock alone: TCP connect went through");
	cr_assert(!x.abstract, "landlock alone: the host's abstract socket was reached");
	cr_assert(!x.signal, "landlock alone: the signal reached a process outside");
	run_free(&r);
	done(&t);
}

Test(layers, supervisor_alone)
{
	struct targets t = {0};
	struct escaped x;
	struct run r;
	attempt("supervisor", &t, &x, &r);
	assert_files_refused(&x, "supervisor");
	cr_assert(!x.chmod && !x.tcp && !x.abstract && !x.signal && !x.secret,
		  "supervisor alone: chmod %d tcp %d abstract %d signal %d secret %d", x.chmod, x.tcp, x.abstract, x.signal,
		  x.secret);
	/* ... and names each refusal. */
	char *nw = p(out, "new"), *u = p(out, "u"), *e = p(out, "emptydir"), *nd = p(out, "newdir"), *rr = p(out, "r"),
	     *c = p(out, "c"), *key = xasprintf("%s/.ssh/id_ed25519", t.home);
	if (!find_denial(r.t, "unlinkat", "path", u) || !find_denial(r.t, "kill", NULL, NULL))
		dump(&r);
	cr_assert_not_null(find_denial(r.t, "openat", "path", nw));
	cr_assert_not_null(find_denial(r.t, "unlinkat", "path", u));
	cr_assert_not_null(find_denial(r.t, "rmdir", "path", e));
	cr_assert_not_null(find_denial(r.t, "mkdir", "path", nd));
	cr_assert_not_null(find_denial(r.t, NULL, "to", rr));
	cr_assert_not_null(find_denial(r.t, "fchmodat", "path", c));
	cr_assert_not_null(find_denial(r.t, "socket", "family", "inet"));
	cr_assert_not_null(find_denial(r.t, "kill", NULL, NULL));
	cr_assert_not_null(find_denial(r.t, "connect", "family", "unix-abstract"));
	cr_assert_not_null(find_denial(r.t, "openat", "path", key));
	run_free(&r);
	free(nw);
	free(u);
	free(e);
	free(nd);
	free(rr);
	free(c);
	free(key);
	done(&t);
}

Test(layers, network_namespace_alone)
{
	struct targets t = {0};
	struct escaped x;
	struct run r;
	attempt("netns", &t, &x, &r);
	cr_assert(!x.tcp, "the network namespace alone: TCP connect went through");
	cr_assert(!x.abstract, "the network namespace alone: the host's abstract socket was reached");
	run_free(&r);
	done(&t);
}

Test(layers, ipc_namespace_alone)
{
	struct targets t = {0};
	struct escaped x;
	struct run r;
	attempt("ipcns", &t, &x, &r);
	if (x.ipc.shm || x.ipc.msg || x.ipc.mq || x.ipc.leftover)
		dump(&r);
	cr_assert(!x.ipc.shm, "the IPC namespace alone: an outside SysV segment was written");
	cr_assert(!x.ipc.msg, "the IPC namespace alone: a message reached an outside SysV queue");
	cr_assert(!x.ipc.mq, "the IPC namespace alone: a message reached an outside POSIX queue");
	cr_assert(!x.ipc.leftover, "the IPC namespace alone: a segment made inside outlived the sandbox");
	cr_assert(strstr(r.o.out, "ipc shm ") && strstr(r.o.out, "ipc-leave OK"), "the probes ran: %s", r.o.out);
	run_free(&r);
	done(&t);
}

Test(layers, pid_namespace_alone)
{
	struct targets t = {0};
	struct escaped x;
	struct run r;
	attempt("pidns", &t, &x, &r);
	cr_assert(!x.signal, "the pid namespace alone: the signal reached a process outside");
	run_free(&r);
	done(&t);
}

#else

Test(layers, needs_the_test_switch)
{
	cr_skip_test("built without BELAY_TEST_SWITCHES (Debug builds and scripts/test.sh have it)");
}

#endif
