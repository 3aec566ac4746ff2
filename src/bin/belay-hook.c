/* belay-hook - the small hook client: what `belay init` installs as the agents' hook
 * command when it sits next to belay. It speaks only the wire (hook_wire.h): it hands the
 * event to a running console or resident helper and writes their answer, so an event costs
 * a small process and a round trip, not belay's start-up (its libraries: SQLite, ICU,
 * ncurses, libuv, libseccomp). Whenever no resident handler takes the event, or anything is
 * unusual (an option it does not pass on, a payload that is not UTF-8), it execs
 * `belay hook` with the same arguments and the same bytes on stdin, which does everything
 * itself (and starts the helper). A handler that took the event and failed is answered with
 * the deny form, as `belay hook` would.
 *
 *   belay-hook claude-code|cursor|codex|gemini-cli [the options of `belay hook`] */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "common/buf.h"
#include "common/fsutil.h"
#include "common/jsonx.h"
#include "common/paths.h"
#include "common/xalloc.h"
#include "common/xalloc_cjson.h"
#include "hook/hook_answer.h"
#include "hook/hook_wire.h"

#define STDIN_MAX ((size_t)256 << 20)

/* `belay hook` with our arguments and the event on stdin (a memfd holding the bytes). */
static int exec_belay(int argc, char **argv, const struct buf *in)
{
	char self[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
	if (n <= 0)
		return -1;
	self[n] = '\0';
	char *slash = strrchr(self, '/');
	if (!slash)
		return -1;
	*slash = '\0';
	char *belay = xasprintf("%s/belay", self);
	int fd = memfd_create("belay-hook-event", 0);
	if (fd < 0 || fs_write_all(fd, in->p ? in->p : "", in->len) != 0 || lseek(fd, 0, SEEK_SET) != 0 ||
	    dup2(fd, 0) < 0) {
		free(belay);
		return -1;
	}
	close(fd);
	char **av = xcalloc((size_t)argc + 2, sizeof *av);
	av[0] = belay;
	av[1] = "hook";
	for (int i = 1; i < argc; i++)
		av[i + 1] = argv[i];
	execv(belay, av);
	fprintf(stderr, "belay-hook: cannot run %s (%s): the call is refused\n", belay, strerror(errno));
	free(av);
	free(belay);
	return -1;
}

static void reply_out(const struct hook_reply *rp)
{
	if (rp->out.len)
		fs_write_all(1, rp->out.p, rp->out.len);
	if (rp->err.len)
		fs_write_all(2, rp->err.p, rp->err.len);
}

int main(int argc, char **argv)
{
	xalloc_cjson_install();
	struct buf in = {0};
	struct err e = {0};
	if (fs_read_fd(0, STDIN_MAX, &in, &e) != 0) {
		/* what could be read is passed on: belay names the failure in the agent's form */
		return exec_belay(argc, argv, &in) == 0 ? 0 : 2;
	}
	struct hook_request rq = {.mode = ADMISSION_AUDIT, .hold_ms = HOOK_HOLD_MS_DEFAULT};
	const char *state = NULL, *trace_dir = getenv("BELAY_TRACE_DIR"), *sock = NULL;
	int ok = argc >= 2 && hook_agent_parse(argv[1], &rq.agent) == 0;
	const char *local = getenv("BELAY_HOOK_LOCAL");
	if (local && *local && strcmp(local, "0"))
		ok = 0;
	for (int i = 2; ok && i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		if (!strcmp(a, "--mode") && v && (!strcmp(v, "audit") || !strcmp(v, "enforce"))) {
			rq.mode = !strcmp(v, "enforce") ? ADMISSION_ENFORCE : ADMISSION_AUDIT;
			i++;
		} else if (!strcmp(a, "--contain")) {
			rq.contain = 1;
		} else if (!strcmp(a, "--no-trial")) {
			rq.no_trial = 1;
		} else if (!strcmp(a, "--network") && v && (!strcmp(v, "deny") || !strcmp(v, "allow"))) {
			rq.net = !strcmp(v, "allow") ? SANDBOX_NET_ALLOW : SANDBOX_NET_DENY;
			i++;
		} else if (!strcmp(a, "--root") && v) {
			rq.root = v;
			i++;
		} else if (!strcmp(a, "--state") && v) {
			state = v;
			i++;
		} else if (!strcmp(a, "--trace-dir") && v) {
			trace_dir = v;
			i++;
		} else if (!strcmp(a, "--policy") && v) {
			rq.policy_file = v;
			i++;
		} else if (!strcmp(a, "--socket") && v) {
			sock = v;
			i++;
		} else if (!strcmp(a, "--hold") && v) {
			char *end;
			double s = strtod(v, &end);
			ok = !*end && s >= 0 && s <= 3600;
			rq.hold_ms = (unsigned)(s * 1000);
			i++;
		} else {
			ok = 0; /* --local, --help, anything else: belay's own answer */
		}
	}
	char *root = ok && rq.root ? realpath(rq.root, NULL) : NULL;
	char *pol = ok && rq.policy_file ? realpath(rq.policy_file, NULL) : NULL;
	if ((rq.root && !root) || (rq.policy_file && !pol) || !utf8_valid(in.p ? in.p : "", in.len))
		ok = 0;
	if (!ok)
		return exec_belay(argc, argv, &in) == 0 ? 0 : 2;
	char *sd = paths_state_dir(state);
	char *td = trace_dir && *trace_dir ? xstrdup(trace_dir) : fs_join(sd, "traces");
	char self[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
	self[n > 0 ? n : 0] = '\0';
	char *slash = strrchr(self, '/');
	char *belay = slash ? xasprintf("%.*s/belay", (int)(slash - self), self) : NULL;
	rq.root = root;
	rq.policy_file = pol;
	rq.state_dir = sd;
	rq.trace_dir = td;
	rq.project_dir = getenv("CLAUDE_PROJECT_DIR");
	rq.home = getenv("HOME");
	rq.belay = belay;
	rq.payload = in.p ? in.p : "";
	rq.len = in.len;
	unsigned timeout = rq.hold_ms + HOOK_REPLY_SLACK_MS;
	struct hook_reply rp = {0};
	char *console = sock ? NULL : paths_console_socket();
	int r = hook_wire_send(sock ? sock : console, &rq, timeout, &rp, &e);
	const char *hookd = getenv("BELAY_HOOKD");
	if (r == 0 && !sock && !(hookd && !strcmp(hookd, "0"))) {
		char *hs = hook_helper_socket(sd);
		r = hook_wire_send(hs, &rq, timeout, &rp, &e);
		free(hs);
	}
	int code;
	if (r == 1) {
		reply_out(&rp);
		code = rp.exit_code;
	} else if (r < 0) {
		hook_wire_failure(&rq, e.msg, &rp);
		reply_out(&rp);
		code = rp.exit_code;
	} else {
		/* nobody resident took it: belay does (and starts the helper for the next one) */
		code = exec_belay(argc, argv, &in) == 0 ? 0 : 2;
	}
	hook_reply_free(&rp);
	free(console);
	free(sd);
	free(td);
	free(root);
	free(pol);
	free(belay);
	buf_free(&in);
	return code;
}
