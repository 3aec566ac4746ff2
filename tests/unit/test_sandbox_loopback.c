/* test_sandbox_loopback.c - a contained server given a loopback port (sandbox_spec's
 * loopback_port; src/sandbox/sandbox_loopback.c, docs/THREAT_MODEL.md): it binds and listens
 * on that port of the sandbox's own `lo`, and reaches nothing else — not a listener of this
 * test on the host's loopback, not another port, not even its own port by connect — with
 * every layer on, and with each of the three layers that stand between it and the host's
 * network alone (the supervisor, Landlock, the network namespace; the test-only switch
 * BELAY_TEST_LAYERS_OFF, src/sandbox/sandbox_testswitch.h). A control with every layer off
 * shows the host listener is reachable when nothing refuses. Runs the contained side through
 * sandbox_run (the launcher and supervisor a proxied server gets). */
#include <criterion/criterion.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "common/fsutil.h"
#include "common/jsonx.h"
#include "common/xalloc.h"
#include "proxy/sandbox_run.h"
#include "sandbox/sandbox.h"
#include "ts_net.h"
#include "tsupport.h"

static char *dir, *ws, *tmp;
static int host_fd;
static unsigned host_port;

static void setup(void)
{
	struct err e = {0};
	const char *b = getenv("BELAY_TEST_VISIBLE_BASE");
	dir = fs_mkdtemp_in(b && *b ? b : "/var/tmp", "belay-test-loopback-", &e);
	cr_assert_not_null(dir, "%s", e.msg);
	ws = fs_join(dir, "ws");
	tmp = fs_join(dir, "tmp");
	fs_mkdir_p(ws, 0755, NULL);
	fs_mkdir_p(tmp, 0700, NULL);
	host_fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	cr_assert_eq(bind(host_fd, (void *)&a, sizeof a), 0);
	listen(host_fd, 16);
	socklen_t l = sizeof a;
	getsockname(host_fd, (void *)&a, &l);
	host_port = ntohs(a.sin_port);
}

static void teardown(void)
{
	close(host_fd);
	ts_rmtree(dir);
	free(dir);
	free(ws);
	free(tmp);
}

TestSuite(loopback, .init = setup, .fini = teardown, .timeout = 90);

static int host_reached(void)
{
	int n = 0, c;
	while ((c = accept(host_fd, NULL, NULL)) >= 0) {
		n++;
		close(c);
	}
	return n;
}

struct outcome {
	int bind_ok, other_bind_ok, host_ok, self_ok, host_reached;
	struct sandbox_run_result res;
};

/* The server's side: bind its port and listen, then try another port, the host's listener
 * and its own port by connect. `off`: the layers the test switch turns off (NULL: none). */
static void attempt(const char *network, const char *off, struct outcome *o)
{
	unsigned port = ts_free_port(), other = ts_free_port();
	if (other == port)
		other = port + 1;
	char *script = xasprintf("import socket\n"
				 "s = socket.socket(socket.AF_INET6)\n"
				 "try:\n"
				 "    s.bind(('::', %u)); s.listen(4); print('BIND_OK')\n"
				 "except OSError as e: print('BIND_FAILED', e)\n"
				 "try:\n"
				 "    t = socket.socket(); t.bind(('127.0.0.1', %u)); print('OTHER_BIND_OK')\n"
				 "except OSError as e: print('OTHER_BIND_REFUSED', e)\n"
				 "try:\n"
				 "    socket.create_connection(('127.0.0.1', %u), 2); print('HOST_OK')\n"
				 "except OSError as e: print('HOST_REFUSED', e)\n"
				 "try:\n"
				 "    socket.create_connection(('127.0.0.1', %u), 2); print('SELF_OK')\n"
				 "except OSError as e: print('SELF_REFUSED', e)\n",
				 port, other, host_port, port);
	struct sandbox_spec spec;
	struct err e = {0};
	enum sandbox_network net = SANDBOX_NET_DENY;
	cr_assert_eq(sandbox_parse_network(network, &net, &e), 0);
	cr_assert_eq(sandbox_spec_init_tmp(&spec, ws, tmp, net, &e), 0, "%s", e.msg);
	spec.loopback_port = port;
	if (off)
		setenv("BELAY_TEST_LAYERS_OFF", off, 1);
	else
		unsetenv("BELAY_TEST_LAYERS_OFF");
	char *argv[] = {"python3", "-c", script, NULL};
	memset(o, 0, sizeof *o);
	int rc = sandbox_run(&spec, BELAY_BIN, argv, spec.scope, 120000, &o->res, &e);
	unsetenv("BELAY_TEST_LAYERS_OFF");
	sandbox_spec_done(&spec);
	free(script);
	cr_assert_eq(rc, 0, "%s", e.msg);
	const char *out = o->res.out.p ? o->res.out.p : "";
	o->bind_ok = strncmp(out, "BIND_OK", 7) == 0;
	o->other_bind_ok = strstr(out, "OTHER_BIND_OK") != NULL;
	o->host_ok = strstr(out, "HOST_OK") != NULL;
	o->self_ok = strstr(out, "SELF_OK") != NULL;
	o->host_reached = host_reached();
	cr_log_info("layers off: %s; output:\n%s", off ? off : "none", out);
}

static const cJSON *denial(const struct outcome *o, const char *op, const char *address)
{
	const cJSON *r;
	cJSON_ArrayForEach(r, o->res.records)
	{
		const char *k = jx_str(r, "kind"), *rop = jx_str(r, "op"), *a = jx_str(r, "address");
		if (k && !strcmp(k, "denial") && rop && !strcmp(rop, op) && a && !strcmp(a, address))
			return r;
	}
	return NULL;
}

Test(loopback, the_server_listens_on_its_port_and_reaches_nothing_else_named)
{
	struct outcome o;
	attempt("deny", NULL, &o);
	cr_assert(o.bind_ok, "the server could not listen on its loopback port (exit %d): %s", o.res.exit_code, o.res.out.p);
	cr_assert(!o.other_bind_ok, "another port could be bound");
	cr_assert(!o.host_ok && !o.host_reached, "the host's loopback listener was reached");
	cr_assert(!o.self_ok, "a connect to its own port went through");
	char addr[32];
	snprintf(addr, sizeof addr, "127.0.0.1:%u", host_port);
	const cJSON *d = denial(&o, "connect", addr);
	cr_assert_not_null(d, "the connect to the host's port is named");
	cr_assert_str_eq(jx_str(d, "reason"), "network_denied");
	sandbox_run_result_free(&o.res);
}

Test(loopback, refused_by_name_under_network_allow)
{
	struct sandbox_spec spec;
	struct err e = {0};
	cr_assert_eq(sandbox_spec_init_tmp(&spec, ws, tmp, SANDBOX_NET_ALLOW, &e), 0, "%s", e.msg);
	spec.loopback_port = ts_free_port();
	struct spawn_plan sp = {0};
	char *argv[] = {"true", NULL};
	cr_assert_neq(sandbox_prepare_spawn(&spec, BELAY_BIN, "/bin/true", argv, NULL, &sp, &e), 0);
	cr_assert(strstr(e.msg, "needs --network deny") && strstr(e.msg, "host's loopback"), "%s", e.msg);
	sandbox_spec_done(&spec);
}

#ifdef BELAY_TEST_SWITCHES
Test(loopback, with_every_layer_off_the_host_is_reached)
{
	struct outcome o;
	attempt("deny", "mounts,netns,landlock,supervisor,pidns,ipcns", &o);
	cr_assert(o.host_ok && o.host_reached, "control: nothing refused, yet the host listener was not reached");
	cr_assert(o.other_bind_ok, "control: another port could not be bound");
	sandbox_run_result_free(&o.res);
}

Test(loopback, supervisor_alone)
{
	struct outcome o;
	attempt("deny", "mounts,netns,landlock,pidns,ipcns", &o);
	cr_assert(o.bind_ok, "the supervisor alone refused the server's own port");
	cr_assert(!o.host_ok && !o.host_reached, "the supervisor alone: the host's listener was reached");
	cr_assert(!o.other_bind_ok, "the supervisor alone: another port was bound");
	sandbox_run_result_free(&o.res);
}

Test(loopback, landlock_alone)
{
	struct outcome o;
	attempt("deny", "mounts,netns,supervisor,pidns,ipcns", &o);
	cr_assert(o.bind_ok, "Landlock alone refused the server's own port");
	cr_assert(!o.host_ok && !o.host_reached, "Landlock alone: the host's listener was reached");
	cr_assert(!o.other_bind_ok, "Landlock alone: another port was bound");
	cr_assert(!o.self_ok, "Landlock alone: a connect to its own port went through");
	sandbox_run_result_free(&o.res);
}

Test(loopback, network_namespace_alone)
{
	struct outcome o;
	attempt("deny", "mounts,landlock,supervisor,pidns,ipcns", &o);
	cr_assert(o.bind_ok, "the network namespace alone: the server could not listen (lo down?)");
	cr_assert(!o.host_ok && !o.host_reached, "the network namespace alone: the host's listener was reached");
	cr_assert(o.self_ok, "the network namespace alone: lo is up, so its own port answers");
	sandbox_run_result_free(&o.res);
}
#endif
