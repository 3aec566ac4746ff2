/* hook_helper.c - the resident helper and its start on demand. See hook_helper.h. */
#include "hook/hook_helper.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "common/child.h"
#include "common/hash.h"
#include "common/paths.h"
#include "common/timeutil.h"
#include "common/xalloc.h"
#include "hook/hook_client.h"
#include "hook/hook_host.h"
#include "console_host/chost.h"

#define START_WAIT_MS 3000u
#define IDLE_DEFAULT_MS (10u * 60u * 1000u)


static int helper_wanted(void)
{
	const char *v = getenv("BELAY_HOOKD");
	return !(v && !strcmp(v, "0"));
}

/* Starts `belay __hookd` detached: its own session, stdio on /dev/null, nothing else
 * inherited (every belay descriptor is close-on-exec). */
static int start_helper(const struct hook_request *rq, const char *sock)
{
	if (!rq->belay)
		return BELAY_ENOTFOUND;
	/* its log (refused connections, late indexing errors): STATE/hookd.log */
	char *log = xasprintf("%s/hookd.log", rq->state_dir);
	char *argv[] = {(char *)rq->belay, "__hookd", "--state", (char *)rq->state_dir, "--socket", (char *)sock, NULL};
	struct err e = {0};
	int rc = child_detach(argv, NULL, log, &e);
	free(log);
	return rc;
}

int hook_helper_send(const struct hook_request *rq, unsigned timeout_ms, struct hook_reply *rp, struct err *e)
{
	if (!helper_wanted())
		return 0;
	char *sock = hook_helper_socket(rq->state_dir);
	int r = hook_wire_send(sock, rq, timeout_ms, rp, e);
	if (r == 0 && start_helper(rq, sock) == 0) {
		uint64_t t0 = time_mono_ns();
		unsigned nap_us = 500;
		while (r == 0 && time_mono_ns() - t0 < (uint64_t)START_WAIT_MS * 1000000u) {
			struct timespec ts = {0, (long)nap_us * 1000};
			nanosleep(&ts, NULL);
			if (nap_us < 20000)
				nap_us *= 2;
			r = hook_wire_send(sock, rq, timeout_ms, rp, e);
		}
	}
	free(sock);
	return r;
}

/* The helper's log is its stderr (STATE/hookd.log when started on demand). */
static void helper_log(void *ctx, const char *msg)
{
	(void)ctx;
	char ts[32];
	time_t now = time(NULL);
	struct tm tm;
	strftime(ts, sizeof ts, "%Y-%m-%dT%H:%M:%SZ", gmtime_r(&now, &tm));
	dprintf(2, "%s belay __hookd: %s\n", ts, msg);
}

static volatile sig_atomic_t stop_helper;

static void on_term(int sig)
{
	(void)sig;
	stop_helper = 1;
}

int hook_helper_main(int argc, char **argv)
{
	const char *state = NULL, *sock = NULL;
	for (int i = 1; i + 1 < argc; i += 2) {
		if (!strcmp(argv[i], "--state"))
			state = argv[i + 1];
		else if (!strcmp(argv[i], "--socket"))
			sock = argv[i + 1];
	}
	if (!state || !sock)
		return 2;
	const char *idle_s = getenv("BELAY_HOOKD_IDLE_MS");
	unsigned long idle_ms = idle_s && *idle_s ? strtoul(idle_s, NULL, 10) : IDLE_DEFAULT_MS;
	signal(SIGHUP, SIG_IGN);
	struct sigaction sa = {.sa_handler = on_term};
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	struct hook_observer obs = {.log = helper_log};
	struct hook_host *h = hook_host_new(&obs);
	struct err e = {0};
	if (hook_host_listen(h, sock, &e) != 0) {
		hook_host_free(h);
		return e.code == BELAY_EEXIST ? 0 : 1; /* another helper serves already */
	}
	struct stat mine;
	if (stat(sock, &mine) != 0) {
		hook_host_free(h);
		return 1;
	}
	while (!stop_helper) {
		struct timespec ts = {0, 200 * 1000000L};
		nanosleep(&ts, NULL);
		struct stat now;
		if (stat(sock, &now) != 0 || now.st_ino != mine.st_ino)
			break; /* removed or taken over: someone else serves now */
		if (hook_host_busy(h) == 0 && time_mono_ns() - hook_host_idle_since(h) > (uint64_t)idle_ms * 1000000u)
			break;
	}
	hook_host_free(h);
	struct stat now;
	if (stat(sock, &now) == 0 && now.st_ino == mine.st_ino)
		unlink(sock);
	return 0;
}
