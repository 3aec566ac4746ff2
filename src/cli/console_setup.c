/* console_setup.c - starts and stops the engine side of the console (see console_setup.h).
 * Order matters: everything that can be refused (options, invariants, theme names are
 * checked by the UI) is checked before the socket listens. */
#include "cli/console_setup.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "common/fsutil.h"
#include "common/paths.h"
#include "common/xalloc.h"
#include "sandbox/sandbox.h"
#include "proxy/admission.h"
#include "run/httpcmd.h"
#include "gate/gate.h"
#include "console_host/cevent.h"
#include "console_host/chost.h"
#include "console_host/chttp.h"
#include "console_host/follow.h"
#include "hook/hook_console.h"
#include "console_host/jobs.h"
#include "index/runidx.h"
#include "index/runq.h"
#include "index/statedb.h"
#include "store/store.h"
#include "trial/trial_route.h"
#include "tui/theme.h"

/* A hold on a run that is not one of the host's connections: belay-http's (--http), else a
 * hook run's (chost_cfg.resolve; its other_ctx is the setup, for both callbacks). Host thread. */
static int other_resolve(void *ctx, const char *run, uint64_t hold, int answer, const char *by)
{
	struct console_setup *cs = ctx;
	if (cs->http_host && chttp_resolve(cs->http_host, run, hold, answer) == 0)
		return 0;
	return cs->hooks ? hook_console_resolve(cs->hooks, run, hold, answer, by) : -1;
}

/* An agent's hook connection on the console's socket (chost_cfg.adopt): the hooks' host's. */
static void other_adopt(void *ctx, int fd, const cJSON *hello, const char *rest, size_t rest_len)
{
	struct console_setup *cs = ctx;
	hook_console_adopt(cs->hooks, fd, hello, rest, rest_len);
}

void console_setup_init(struct console_setup *cs)
{
	memset(cs, 0, sizeof *cs);
	cs->log_fd = -1;
	cs->ui.force_depth = -1;
}

/* --open: a trace file is indexed into the store; otherwise it names a run already there. */
static int resolve_open(struct console_setup *cs, struct err *e)
{
	struct store *st = NULL;
	int rc = statedb_open(cs->state_dir, &st, e);
	if (rc)
		return rc;
	struct stat sb;
	if (stat(cs->open, &sb) == 0 && S_ISREG(sb.st_mode)) {
		rc = runidx_index_file(st, cs->open, &cs->open_run, e);
		if (rc)
			err_wrap(e, "--open");
	} else {
		int found = runq_run_exists(st, cs->open, e);
		rc = found < 0 ? found : 0;
		if (rc == 0) {
			if (!found)
				rc = err_set(e, BELAY_ENOTFOUND,
					     "--open: '%s' is neither a trace file nor a run in %s (belay runs lists them)",
					     cs->open, cs->state_dir);
			else
				cs->open_run = xstrdup(cs->open);
		}
	}
	store_close(st);
	return rc;
}

static int open_log(struct console_setup *cs, struct err *e)
{
	char *dir = fs_join(cs->state_dir, "logs");
	int rc = fs_mkdir_p(dir, 0700, e);
	if (rc) {
		free(dir);
		return rc;
	}
	char name[96];
	time_t now = time(NULL);
	struct tm tm;
	gmtime_r(&now, &tm);
	strftime(name, sizeof name, "console-%Y%m%dT%H%M%SZ", &tm);
	char file[160];
	snprintf(file, sizeof file, "%s-%d.stderr.log", name, (int)getpid());
	cs->log_path = fs_join(dir, file);
	free(dir);
	cs->log_fd = open(cs->log_path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
	if (cs->log_fd < 0)
		return err_set(e, BELAY_EINVAL, "cannot open %s for the servers' stderr", cs->log_path);
	return 0;
}

int console_setup_start(struct console_setup *cs, struct err *e)
{
	enum sandbox_network net = SANDBOX_NET_DENY;
	int contained = cs->scope && *cs->scope;
	/* --http URL -- SERVER...: belay-http starts the server, contained (as belay proxy does) */
	int http_local = cs->http && cs->server && cs->server[0];
	if (http_local && !contained)
		return err_set(e, BELAY_EUSAGE,
			       "--http URL with a server command starts that server contained: give --scope DIR too "
			       "(belay console --http http://127.0.0.1:PORT/mcp --scope DIR -- SERVER_CMD)");
	if (http_local && httpcmd_check_network(cs->network, e))
		return BELAY_EUSAGE;
	if (cs->network && !contained)
		return err_set(e, BELAY_EUSAGE, "--network needs --scope (an uncontained server is not network-restricted)");
	if (cs->network && sandbox_parse_network(cs->network, &net, e))
		return BELAY_EUSAGE;
	if (cs->expose && cs->expose[0] && !contained)
		return err_set(e, BELAY_EUSAGE, "--expose needs --scope (an uncontained server sees everything)");
	enum admission_mode mode = ADMISSION_AUDIT;
	if (cs->mode && admission_parse_mode(cs->mode, &mode))
		return err_set(e, BELAY_EUSAGE, "--mode must be audit or enforce, not '%s'", cs->mode);
	int depth = -1;
	if (cs->colors) {
		if (!strcmp(cs->colors, "256"))
			depth = DEPTH_256;
		else if (!strcmp(cs->colors, "8"))
			depth = DEPTH_8;
		else if (!strcmp(cs->colors, "mono"))
			depth = DEPTH_MONO;
		else
			return err_set(e, BELAY_EUSAGE, "--colors must be 256, 8 or mono, not '%s'", cs->colors);
	}
	/* What a connecting agent would otherwise be the first to hit: checked now, by name. */
	if (contained) {
		struct stat sb;
		char *real = realpath(cs->scope, NULL);
		int bad = !real || stat(real, &sb) != 0 || !S_ISDIR(sb.st_mode);
		int root = real && !strcmp(real, "/");
		free(real);
		if (bad)
			return err_set(e, BELAY_EUSAGE, "--scope %s: not an existing directory", cs->scope);
		if (root)
			return err_set(e, BELAY_EUSAGE, "--scope /: refusing / as a scope (it would make everything writable)");
	}
	if (cs->server && cs->server[0] && !strchr(cs->server[0], '/')) {
		char *found = fs_which(cs->server[0]);
		if (!found)
			return err_set(e, BELAY_EUSAGE, "the server command '%s' is not on PATH", cs->server[0]);
		free(found);
	} else if (cs->server && cs->server[0] && access(cs->server[0], X_OK) != 0) {
		return err_set(e, BELAY_EUSAGE, "the server command %s is not an executable file", cs->server[0]);
	}
	if (cs->policy_file) {
		struct gate_policy *gp = NULL;
		if (gate_policy_load(cs->policy_file, &gp, e) != 0)
			return err_wrap(e, "--policy");
		gate_policy_free(gp);
	}
	if (cs->invariants && policy_load(&cs->policy, cs->invariants, e) != 0)
		return err_wrap(e, "--invariants");
	policy_add_defaults(&cs->policy);
	cs->state_dir = paths_state_dir(cs->state);
	int rc = paths_ensure_state_dir(cs->state_dir, e);
	if (rc)
		return rc;
	struct store *st = NULL;
	if ((rc = statedb_open(cs->state_dir, &st, e)) != 0) /* migrations run once, here */
		return rc;
	store_close(st);
	if (cs->open && (rc = resolve_open(cs, e)) != 0)
		return rc;
	if ((rc = open_log(cs, e)) != 0)
		return rc;
	cs->events = cqueue_new();
	if (cs->http) {
		if (strncmp(cs->http, "http://", 7) && strncmp(cs->http, "https://", 8))
			return err_set(e, BELAY_EUSAGE, "--http must be an http:// or https:// URL, not '%s'", cs->http);
		/* belay-http writes its runs' traces where the console follows them: --follow's
		 * directory, else a directory of its own beside the console's traces */
		cs->http_traces = cs->follow ? xstrdup(cs->follow)
			: cs->trace_dir ? fs_join(cs->trace_dir, "http")
					: fs_join(cs->state_dir, "traces/http");
		if ((rc = fs_mkdir_p(cs->http_traces, 0700, e)) != 0)
			return rc;
		struct chttp_cfg tc = {.upstream = cs->http,
				       .server = http_local ? cs->server : NULL,
				       .scope = http_local ? cs->scope : NULL,
				       .expose = http_local ? cs->expose : NULL,
				       .state_dir = cs->state_dir,
				       .trace_dir = cs->http_traces,
				       .policy_file = cs->policy_file,
				       .enforce = mode == ADMISSION_ENFORCE,
				       .log_fd = cs->log_fd,
				       .events = cs->events};
		if ((rc = chttp_start(&tc, &cs->http_host, e)) != 0)
			return rc;
		if (!cs->follow)
			cs->follow = cs->http_traces;
	}
	if (cs->open_run) {
		struct store *ost = NULL;
		struct err oe = {0};
		long long tail = statedb_open(cs->state_dir, &ost, &oe) == 0 ? runq_unindexed_bytes(ost, cs->open_run) : -1;
		store_close(ost);
		if (tail > 0)
			cqueue_post(cs->events, cevent_log(1,
							   "--open: the trace's last %lld byte(s) are a line cut mid-line (the "
							   "writer was killed or the disk filled): shown up to the line before",
							   tail));
	}
	/* Listen unless only browsing a finished run. */
	if (!cs->open || cs->server || cs->listen_without_server || cs->http) {
		/* the server of --http URL -- SERVER is belay-http's: `belay connect` names its own */
		struct chost_cfg hc = {.server = http_local ? NULL : cs->server,
				       .scope = contained ? cs->scope : NULL,
				       .net = net,
				       .expose = cs->expose,
				       .mode = mode,
				       .policy_file = cs->policy_file,
				       .state_dir = cs->state_dir,
				       .trace_dir = cs->trace_dir,
				       .socket_path = cs->socket,
				       .server_stderr_fd = cs->log_fd,
				       .slice_us = cs->slice_us,
				       .allow_root = cs->allow_root,
				       .events = cs->events,
				       /* agents' hook events on the same socket (docs/HOOKS.md) */
				       .adopt = other_adopt,
				       .resolve = other_resolve};
		cs->hooks = hook_console_new(cs->events, cs->state_dir);
		hc.other_ctx = cs;
		/* enforce mode, contained: a call whose only unknown effect is a local program is
		 * tried in a mirror first and held with the trial's report (docs/TRY.md) */
		if (mode == ADMISSION_ENFORCE && contained && !cs->no_trial) {
			cs->trials = trial_route_new(cs->scope, cs->state_dir, paths_self_exe(), 0);
			hc.trial = trial_route_run;
			hc.trial_ctx = cs->trials;
		}
		if ((rc = chost_start(&hc, &cs->host, e)) != 0)
			return rc;
	}
	if (cs->follow && (rc = follow_start(cs->follow, cs->state_dir, cs->events, &cs->follower, e)) != 0)
		return rc;
	cs->jobs = jobs_start(cs->state_dir, &cs->policy, cs->events);
	cs->ui.host = cs->host;
	cs->ui.events = cs->events;
	cs->ui.jobs = cs->jobs;
	cs->ui.state_dir = cs->state_dir;
	cs->ui.invariants = cs->invariants;
	cs->ui.theme = cs->theme;
	cs->ui.force_depth = depth;
	cs->ui.force_ascii = cs->ascii;
	cs->ui.no_mouse = cs->no_mouse;
	cs->ui.socket_path = cs->host ? chost_socket(cs->host) : NULL;
	cs->ui.follow_dir = cs->follow;
	cs->ui.http_url = chttp_url(cs->http_host);
	cs->ui.focus_run = cs->open_run;
	cs->ui.server_log = cs->log_path;
	cs->ui.enforce = mode == ADMISSION_ENFORCE && (cs->host || cs->http_host);
	return 0;
}

void console_setup_done(struct console_setup *cs)
{
	chost_stop(cs->host);
	chttp_stop(cs->http_host); /* every held call refused, every run's trace closed (the follower,
				    * stopped below, indexes their last lines) */
	trial_route_free(cs->trials); /* no run is left to try anything */
	hook_console_free(cs->hooks);
	follow_stop(cs->follower);
	jobs_stop(cs->jobs);
	cqueue_free(cs->events);
	policy_free(&cs->policy);
	if (cs->log_fd >= 0)
		close(cs->log_fd);
	free(cs->state_dir);
	free(cs->log_path);
	free(cs->open_run);
	free(cs->http_traces);
	memset(cs, 0, sizeof *cs);
	cs->log_fd = -1;
}
