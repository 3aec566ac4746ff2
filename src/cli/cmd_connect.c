/* cmd_connect.c - `belay connect [SOCKET] [-- SERVER...]`: what an agent launches as its MCP
 * server to reach a running `belay console`. It hands its stdin and stdout to the console
 * over the unix socket (SCM_RIGHTS), so the agent's bytes go straight to the console's
 * engine with no extra hop, then waits for the run to end and exits with the server's
 * status. See src/console_host/chost.h for the protocol. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "cli/cli.h"
#include "common/buf.h"
#include "common/jsonx.h"
#include "common/paths.h"
#include "common/sockpeer.h"
#include "common/xalloc.h"
#include "console_host/chost.h"
#include "mcp/mcp_refuse.h"

static const struct cli_opt connect_opts[] = {
	{"wait", 'w', 0, "SECONDS", "wait this long for a console to appear (default 0)"},
	CLI_OPT_END,
};

const struct cli_cmd cli_connect = {
	.name = "connect",
	.summary = "connect an agent's MCP stdio to a running console (the agent's server command)",
	.synopsis = "[--wait SECONDS] [SOCKET] [-- SERVER_CMD [ARGS...]]",
	.about = "Connects this process's stdin/stdout (an agent's MCP server pipes) to a running `belay "
		 "console`, which records, contains and shows the run. Without SOCKET it looks where the console "
		 "listens by default, derived from the uid alone (agents pass their servers a minimal environment): "
		 "/run/user/UID/belay/console.sock, then /tmp/belay-UID/console.sock. Without SERVER_CMD the console runs the server it was started with. Exits with the "
		 "server's status.",
	.opts = connect_opts,
};

/* No run for the agent: says why on stderr (cli_fail) and, when the agent pipes its MCP
 * messages in (stdin is no terminal), answers each of its requests with a JSON-RPC error
 * saying the same, until it closes its end. Returns EXIT_USAGE. */
static int refuse_agent(const char *reason, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int refuse_agent(const char *reason, const char *fmt, ...)
{
	struct buf b = {0};
	va_list ap;
	va_start(ap, fmt);
	buf_vprintf(&b, fmt, ap);
	va_end(ap);
	int rc = cli_fail("%s", buf_cstr(&b));
	if (!isatty(0)) {
		char *msg = xasprintf("belay %s", buf_cstr(&b));
		mcp_refuse_requests(0, 1, reason, msg);
		free(msg);
	}
	buf_free(&b);
	return rc;
}

/* Connects to the first of paths[0..n) that answers, trying them all until wait_s has
 * passed; *used is the one. On failure names every place it looked. */
static int dial(char *const *paths, int n, int check_dir, double wait_s, int *out, const char **used)
{
	for (int i = 0; i < n; i++)
		if (strlen(paths[i]) >= sizeof ((struct sockaddr_un *)0)->sun_path)
			return cli_fail("connect: socket path too long: %s", paths[i]);
	struct timespec t0;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	int errs[PATHS_CONSOLE_SOCKETS + 1];
	for (;;) {
		int retry = 0;
		for (int i = 0; i < n; i++) {
			/* a well-known place must be the user's own, and whatever listens must be
			 * the user's (common/sockpeer.h): the agent's pipes go to nobody else */
			int fd = -1;
			struct err e = {0};
			if (sockpeer_dial(paths[i], check_dir, 0, &fd, &e) == 0) {
				*out = fd;
				*used = paths[i];
				return 0;
			}
			if (e.code == BELAY_EREFUSED)
				return refuse_agent("console_refused", "connect: refused to use %s: %s", paths[i], e.msg);
			errs[i] = e.code < 0 && e.code > -4096 ? -e.code : EINVAL;
			retry |= errs[i] == ENOENT || errs[i] == ECONNREFUSED;
		}
		struct timespec t;
		clock_gettime(CLOCK_MONOTONIC, &t);
		double el = (double)(t.tv_sec - t0.tv_sec) + (double)(t.tv_nsec - t0.tv_nsec) / 1e9;
		if (el >= wait_s || !retry)
			break;
		struct timespec d = {0, 100 * 1000 * 1000};
		nanosleep(&d, NULL);
	}
	struct buf b = {0};
	for (int i = 0; i < n; i++)
		buf_printf(&b, "%s%s (%s)", i ? ", nor at " : "", paths[i], strerror(errs[i]));
	int rc = refuse_agent("console_unavailable", "connect: no console is listening at %s; start one with `belay console`%s",
			      buf_cstr(&b), n > 1 ? ", or give its socket: belay connect SOCKET" : "");
	buf_free(&b);
	return rc;
}

/* Reads one line from fd into b (without the newline); 0, or -1 at EOF before a line. */
static int read_line(int fd, struct buf *b)
{
	buf_reset(b);
	char c;
	for (;;) {
		ssize_t n = read(fd, &c, 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		if (c == '\n')
			return 0;
		buf_putc(b, c);
		if (b->len > CHOST_HELLO_MAX)
			return -1;
	}
}

int cmd_connect(int argc, char **argv)
{
	const char *path = NULL;
	double wait_s = 0;
	char **server = NULL;
	for (int i = 1; i < argc; i++) /* a server's command line follows "--", options or not */
		if (!strcmp(argv[i], "--")) {
			server = argv + i + 1;
			argc = i;
			break;
		}
	struct cli_parse P;
	cli_parse_init(&cli_connect, &P, 0);
	int c;
	optind = 1;
	opterr = 0;
	while ((c = cli_getopt(&P, argc, argv)) != -1) {
		if (c == 'h') {
			cli_help(&cli_connect, stdout);
			return 0;
		} else if (c == 'w') {
			char *end;
			wait_s = strtod(optarg, &end);
			if (*end || !*optarg || wait_s < 0)
				return cli_fail("connect: --wait takes a number of seconds, not '%s'", optarg);
		} else {
			return cli_fail("connect: unknown or incomplete option '%s' (belay connect --help)", argv[optind - 1]);
		}
	}
	if (optind < argc)
		path = argv[optind++];
	if (optind < argc)
		return cli_fail("connect: one socket only (did you forget `--` before the server command?)");
	if (server && !server[0])
		return cli_fail("connect: `--` must be followed by a server command");
	/* Without a socket: the console's default places (common/paths.h), never the
	 * environment's, which an agent does not pass on. */
	char *cands[PATHS_CONSOLE_SOCKETS];
	int ncand = 0;
	if (path)
		cands[ncand++] = xstrdup(path);
	else
		ncand = paths_console_sockets(cands);
	int fd = -1;
	int rc = dial(cands, ncand, !path, wait_s, &fd, &path);
	char *def = NULL;
	if (rc == 0)
		def = xstrdup(path);
	for (int k = 0; k < ncand; k++)
		free(cands[k]);
	if (rc)
		return rc;
	path = def;

	cJSON *hello = cJSON_CreateObject();
	cJSON_AddNumberToObject(hello, "v", 1);
	cJSON_AddNumberToObject(hello, "pid", (double)getpid());
	char *cwd = getcwd(NULL, 0);
	if (cwd)
		cJSON_AddStringToObject(hello, "cwd", cwd);
	free(cwd);
	if (server) {
		cJSON *a = cJSON_AddArrayToObject(hello, "server");
		for (char **s = server; *s; s++)
			cJSON_AddItemToArray(a, cJSON_CreateString(*s));
	}
	char *text = cJSON_PrintUnformatted(hello);
	cJSON_Delete(hello);
	struct buf line = {0};
	buf_puts(&line, text);
	buf_putc(&line, '\n');
	cJSON_free(text);

	int fds[2] = {0, 1};
	union {
		struct cmsghdr h;
		char b[CMSG_SPACE(sizeof fds)];
	} cm;
	memset(&cm, 0, sizeof cm);
	struct iovec iov = {.iov_base = line.p, .iov_len = line.len};
	struct msghdr m = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = cm.b, .msg_controllen = sizeof cm.b};
	struct cmsghdr *h = CMSG_FIRSTHDR(&m);
	h->cmsg_level = SOL_SOCKET;
	h->cmsg_type = SCM_RIGHTS;
	h->cmsg_len = CMSG_LEN(sizeof fds);
	memcpy(CMSG_DATA(h), fds, sizeof fds);
	/* The descriptors travel with the first byte; the rest of a long hello follows. */
	size_t off = 0;
	while (off < line.len) {
		ssize_t n = off == 0 ? sendmsg(fd, &m, MSG_NOSIGNAL) : send(fd, line.p + off, line.len - off, MSG_NOSIGNAL);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			rc = refuse_agent("console_unavailable", "connect: cannot talk to the console at %s: %s", path, strerror(errno));
			buf_free(&line);
			free(def);
			return rc;
		}
		off += (size_t)n;
	}
	buf_free(&line);

	struct buf reply = {0};
	if (read_line(fd, &reply) != 0) {
		rc = refuse_agent("console_unavailable", "connect: the console at %s closed the connection without an answer", path);
		buf_free(&reply);
		free(def);
		return rc;
	}
	cJSON *r = cJSON_ParseWithLength(reply.p, reply.len);
	if (!cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(r, "ok"))) {
		const char *why = jx_str(r, "error");
		rc = refuse_agent("console_refused", "connect: the console refused: %s", why ? why : "malformed answer");
		cJSON_Delete(r);
		buf_free(&reply);
		free(def);
		return rc;
	}
	fprintf(stderr, "belay: connected to the console at %s: run %s\n", path,
		jx_str(r, "run") ? jx_str(r, "run") : "(not recorded)");
	cJSON_Delete(r);
	/* The console holds the agent's pipes now; ours must not keep them open, or the agent
	 * would never see the end of the server's output. */
	int null = open("/dev/null", O_RDWR | O_CLOEXEC);
	if (null >= 0) {
		dup2(null, 0);
		dup2(null, 1);
		close(null);
	}
	int code = 1;
	if (read_line(fd, &reply) == 0) {
		cJSON *x = cJSON_ParseWithLength(reply.p, reply.len);
		long long v;
		if (jx_int(x, "exit", 0, 255, &v))
			code = (int)v;
		cJSON_Delete(x);
	} else {
		fprintf(stderr, "belay: connect: the console went away before the server exited\n");
	}
	buf_free(&reply);
	close(fd);
	free(def);
	return code;
}
