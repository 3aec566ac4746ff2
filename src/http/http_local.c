/* http_local.c - a local HTTP server contained by belay-http (http_local.h). */
#include "http/http_local.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sys/socket.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "common/fsutil.h"
#include "common/jsonx.h"
#include "common/paths.h"
#include "common/timeutil.h"
#include "common/xalloc.h"
#include "proxy/env_filter.h"
#include "proxy/env_seal.h"
#include "proxy/server_env.h"
#include "sandbox/sandbox.h"
#include "sandbox/sandbox_supervisor.h"

extern char **environ;

struct http_local {
	struct http_local_cfg cfg;
	unsigned port;
	pid_t pid; /* the launcher */
	int conn;  /* the connector socket */
	struct sandbox_supervisor *sup;
	struct sandbox_spec spec; /* kept while the server runs (its temp dir is held) */
	int have_spec;
	pthread_t watcher;
	int watching;
	pthread_mutex_t mu; /* everything below, and the connector's use */
	pthread_cond_t cond;
	int status_seen, status_ok, exited, stopping;
	char status_msg[512];
};

/* The port of a loopback URL, or 0 (e said why). */
static unsigned loopback_port(const char *url, struct err *e)
{
	const char *h = NULL;
	if (!strncmp(url, "http://", 7))
		h = url + 7;
	if (!h) {
		err_set(e, BELAY_EUSAGE, "a server belay starts is spoken to as http://127.0.0.1:PORT/PATH, not '%s'",
			url);
		return 0;
	}
	static const char *const hosts[] = {"127.0.0.1:", "localhost:", "[::1]:"};
	const char *p = NULL;
	for (size_t i = 0; i < 3 && !p; i++)
		if (!strncmp(h, hosts[i], strlen(hosts[i])))
			p = h + strlen(hosts[i]);
	if (!p) {
		err_set(e, BELAY_EUSAGE,
			"a server belay starts listens on its sandbox's own loopback: its URL is "
			"http://127.0.0.1:PORT/PATH "
			"(or localhost, [::1]), not '%s'",
			url);
		return 0;
	}
	char *end;
	long v = strtol(p, &end, 10);
	if (end == p || v < 1 || v > 65535 || (*end && *end != '/')) {
		err_set(e, BELAY_EUSAGE,
			"the server's URL '%s' needs the port it listens on (http://127.0.0.1:PORT/PATH)", url);
		return 0;
	}
	return (unsigned)v;
}

static void on_post(void *ctx, const char *kind, cJSON *fields)
{
	struct http_local *l = ctx;
	if (!strcmp(kind, "sandbox")) {
		pthread_mutex_lock(&l->mu);
		if (!l->status_seen) {
			l->status_seen = 1;
			l->status_ok = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(fields, "ok"));
			if (!l->status_ok)
				snprintf(l->status_msg, sizeof l->status_msg, "%s: %s",
					 jx_str(fields, "layer") ? jx_str(fields, "layer") : "?",
					 jx_str(fields, "error") ? jx_str(fields, "error") : "?");
			else
				cJSON_AddNumberToObject(fields, "loopback_port", l->port);
		}
		pthread_cond_broadcast(&l->cond);
		pthread_mutex_unlock(&l->mu);
	}
	if (l->cfg.post)
		l->cfg.post(l->cfg.ctx, kind, fields);
	else
		cJSON_Delete(fields);
}

static void *watch_main(void *arg)
{
	struct http_local *l = arg;
	int st = 0;
	while (waitpid(l->pid, &st, 0) < 0 && errno == EINTR)
		;
	pthread_mutex_lock(&l->mu);
	l->exited = 1;
	int stopping = l->stopping;
	pthread_cond_broadcast(&l->cond);
	pthread_mutex_unlock(&l->mu);
	if (!stopping && l->cfg.ended)
		l->cfg.ended(l->cfg.ctx, st);
	return NULL;
}

static int connector(struct http_local *l, char what)
{
	pthread_mutex_lock(&l->mu);
	int fd = l->conn >= 0 ? sandbox_connector_socket(l->conn, what) : -EPIPE;
	pthread_mutex_unlock(&l->mu);
	return fd;
}

int http_local_connect(void *local)
{
	return connector(local, 'c');
}

int http_local_socket(void *local, int family)
{
	return connector(local, family == AF_INET6 ? '6' : '4');
}

unsigned http_local_port(const struct http_local *l)
{
	return l->port;
}

/* Waits (under l->mu) until pred or the deadline (monotonic ns); 1 if pred holds. */
static int wait_until(struct http_local *l, int (*pred)(struct http_local *), uint64_t deadline)
{
	while (!pred(l)) {
		uint64_t now = time_mono_ns();
		if (now >= deadline)
			return 0;
		struct timespec ts;
		clock_gettime(CLOCK_REALTIME, &ts);
		uint64_t step = deadline - now > 100000000u ? 100000000u : deadline - now;
		ts.tv_nsec += (long)step;
		ts.tv_sec += ts.tv_nsec / 1000000000L;
		ts.tv_nsec %= 1000000000L;
		pthread_cond_timedwait(&l->cond, &l->mu, &ts);
	}
	return 1;
}

static int status_or_exit(struct http_local *l)
{
	return l->status_seen || l->exited;
}

static int exited(struct http_local *l)
{
	return l->exited;
}

static int spawn(struct http_local *l, struct spawn_plan *sp, struct err *e)
{
	int hi_chan = fcntl(sp->extra_fd, F_DUPFD_CLOEXEC, 10), hi_conn = fcntl(sp->connector_fd, F_DUPFD_CLOEXEC, 10);
	posix_spawn_file_actions_t fa;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_adddup2(&fa, 2, 1); /* the server's own output goes to belay's stderr */
	posix_spawn_file_actions_adddup2(&fa, hi_chan, 3);
	posix_spawn_file_actions_adddup2(&fa, hi_conn, 4);
	posix_spawnattr_t sa;
	posix_spawnattr_init(&sa);
	sigset_t none, def;
	sigemptyset(&none);
	sigemptyset(&def);
	sigaddset(&def, SIGPIPE);
	posix_spawnattr_setsigmask(&sa, &none);
	posix_spawnattr_setsigdefault(&sa, &def);
	posix_spawnattr_setflags(&sa, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
	int rc = hi_chan < 0 || hi_conn < 0 ? errno : posix_spawn(&l->pid, sp->file, &fa, &sa, sp->args, sp->env);
	posix_spawn_file_actions_destroy(&fa);
	posix_spawnattr_destroy(&sa);
	if (hi_chan >= 0)
		close(hi_chan);
	if (hi_conn >= 0)
		close(hi_conn);
	if (rc)
		return err_set(e, -rc, "cannot start the sandbox launcher %s: %s", sp->file, strerror(rc));
	return 0;
}

/* The server's start, as a stdio run's `server` record has it (what verify starts again),
 * with "transport": "http" and the URL it listens on inside its sandbox. */
static cJSON *start_record(const struct http_local *l, const char *exe, const struct spawn_plan *sp)
{
	cJSON *f = cJSON_CreateObject();
	cJSON_AddStringToObject(f, "phase", "start");
	cJSON *argv = cJSON_AddArrayToObject(f, "argv");
	for (char *const *a = l->cfg.argv; *a; a++)
		cJSON_AddItemToArray(argv, jx_bytes(*a, strlen(*a)));
	cJSON_AddItemToObject(f, "exe", jx_bytes(exe, strlen(exe)));
	char *cwd = getcwd(NULL, 0);
	if (cwd)
		cJSON_AddItemToObject(f, "cwd", jx_bytes(cwd, strlen(cwd)));
	else
		cJSON_AddNullToObject(f, "cwd");
	free(cwd);
	cJSON_AddNumberToObject(f, "pid", l->pid);
	cJSON *names = cJSON_AddArrayToObject(f, "env_names");
	for (char **e = environ; *e; e++) {
		const char *eq = strchr(*e, '=');
		cJSON_AddItemToArray(names, jx_bytes(*e, eq ? (size_t)(eq - *e) : strlen(*e)));
	}
	cJSON *envrec = server_env_record(environ);
	cJSON_AddItemToObject(f, "env", envrec);
	if (l->cfg.state_dir) {
		char seal[ENV_SEAL_LEN];
		struct err se = {0};
		if (env_seal_make(l->cfg.state_dir, envrec, seal, &se) == 0)
			cJSON_AddStringToObject(f, "env_seal", seal);
		char *sd = realpath(l->cfg.state_dir, NULL);
		cJSON_AddStringToObject(f, "state_dir", sd ? sd : l->cfg.state_dir);
		free(sd);
	}
	cJSON_AddStringToObject(f, "transport", "http");
	cJSON_AddStringToObject(f, "url", l->cfg.upstream);
	sandbox_describe(sp->priv, f);
	return f;
}

static void plan_free(struct spawn_plan *sp)
{
	for (char **p = sp->args; p && *p; p++)
		free(*p);
	free(sp->args);
	for (char **p = sp->env; p && *p; p++)
		free(*p);
	free(sp->env);
	free(sp->file);
	if (sp->priv)
		sandbox_spawn_free(sp->priv);
}

int http_local_start(const struct http_local_cfg *cfg, struct http_local **out, struct err *e)
{
	*out = NULL;
	enum sandbox_network net = SANDBOX_NET_DENY;
	if (cfg->network && sandbox_parse_network(cfg->network, &net, e))
		return BELAY_EUSAGE;
	if (net != SANDBOX_NET_DENY)
		return err_set(
		    e, BELAY_EUSAGE,
		    "--network allow with a server belay starts over HTTP is refused: its port would be on the "
		    "host's loopback, where any local program reaches it around belay (unrecorded); it runs "
		    "under deny, listening on its sandbox's own loopback");
	unsigned port = loopback_port(cfg->upstream, e);
	if (!port)
		return BELAY_EUSAGE;
	if (!cfg->argv || !cfg->argv[0])
		return err_set(e, BELAY_EUSAGE, "no server command given");
	char *exe = fs_which(cfg->argv[0]);
	if (!exe)
		return err_set(e, BELAY_ENOTFOUND, "cannot find the server %s", cfg->argv[0]);
	struct sandbox_spec spec;
	int rc = sandbox_spec_init(&spec, cfg->scope, net, e);
	if (rc) {
		free(exe);
		return rc;
	}
	spec.hide = cfg->state_dir ? realpath(cfg->state_dir, NULL) : NULL;
	for (char *const *x = cfg->expose; rc == 0 && x && *x; x++)
		rc = sandbox_spec_expose(&spec, *x, e);
	spec.loopback_port = port;
	spec.connector = 1;
	char *launcher = paths_sibling_exe("belay");
	struct spawn_plan sp = {0};
	sp.extra_fd = sp.connector_fd = -1;
	if (rc == 0 && !launcher)
		rc = err_set(e, BELAY_ENOTFOUND,
			     "the belay executable (the sandbox's launcher) is not next to belay-http "
			     "or on PATH");
	if (rc == 0) {
		/* The launcher runs with belay's environment less what loads code; the server's comes
		 * on the sandbox's channel, applied inside (as for a stdio server: session_spawn.c). */
		size_t ne = 0, k = 0;
		while (environ[ne])
			ne++;
		char **lenv = xcalloc(ne + 1, sizeof *lenv);
		for (size_t i = 0; i < ne; i++) {
			const char *eq = strchr(environ[i], '=');
			if (!eq || !env_filter_refused_name(environ[i], (size_t)(eq - environ[i])))
				lenv[k++] = xstrdup(environ[i]);
		}
		rc = sandbox_prepare_spawn(&spec, launcher, exe, cfg->argv, environ, &sp, e);
		sp.env = lenv; /* after: sandbox_prepare_spawn leaves it alone */
	}
	free(launcher);
	struct http_local *l = xcalloc(1, sizeof *l);
	l->cfg = *cfg;
	l->port = port;
	l->conn = -1;
	pthread_mutex_init(&l->mu, NULL);
	pthread_cond_init(&l->cond, NULL);
	if (rc == 0)
		rc = spawn(l, &sp, e);
	if (rc == 0) {
		cJSON *start = start_record(l, exe, &sp);
		if (cfg->post)
			cfg->post(cfg->ctx, "server", start);
		else
			cJSON_Delete(start);
		l->conn = sandbox_spawn_take_connector(sp.priv);
		struct sandbox_supervisor_opts so = {
		    .sock = sandbox_spawn_take_channel(sp.priv),
		    .launcher_pid = l->pid,
		    .scope = sandbox_spawn_scope(sp.priv),
		    .tmp = sandbox_spawn_tmp(sp.priv),
		    .deny_network = 1,
		    .loopback_port = port,
		    .post = on_post,
		    .ctx = l,
		};
		pthread_create(&l->watcher, NULL, watch_main, l);
		l->watching = 1;
		if (sandbox_supervisor_start(&so, &l->sup) != 0) {
			kill(l->pid, SIGKILL);
			rc = err_set(e, BELAY_ESANDBOX, "cannot start the sandbox supervisor");
		}
	}
	plan_free(&sp);
	free(exe);
	l->spec = spec;
	l->have_spec = 1;
	if (rc) {
		http_local_stop(l);
		return rc;
	}
	/* every layer in place, or the launcher's refusal */
	uint64_t wait_ns = (uint64_t)(cfg->wait_s ? cfg->wait_s : 60) * 1000000000u;
	pthread_mutex_lock(&l->mu);
	int seen = wait_until(l, status_or_exit, time_mono_ns() + wait_ns);
	int ok = l->status_seen && l->status_ok;
	char msg[512];
	snprintf(msg, sizeof msg, "%s", l->status_msg);
	pthread_mutex_unlock(&l->mu);
	if (!ok) {
		rc = err_set(e, BELAY_ESANDBOX, "refusing to run the server unsandboxed: %s",
			     !seen    ? "the sandbox did not report"
			     : msg[0] ? msg
				      : "the launcher ended before it reported");
		http_local_stop(l);
		return rc;
	}
	/* its port answers through the connector */
	uint64_t deadline = time_mono_ns() + wait_ns;
	for (;;) {
		int fd = http_local_connect(l);
		if (fd >= 0) {
			close(fd);
			break;
		}
		pthread_mutex_lock(&l->mu);
		wait_until(l, exited, time_mono_ns() + 50000000u); /* a pause between tries, cut short by an exit */
		int gone = l->exited;
		pthread_mutex_unlock(&l->mu);
		if (gone || time_mono_ns() >= deadline) {
			rc = err_set(e, BELAY_EREFUSED,
				     "the server %s did not listen on port %u of its sandbox's loopback%s",
				     cfg->argv[0], port, gone ? " (it ended)" : " in time");
			http_local_stop(l);
			return rc;
		}
	}
	*out = l;
	return 0;
}

void http_local_stop(struct http_local *l)
{
	if (!l)
		return;
	pthread_mutex_lock(&l->mu);
	l->stopping = 1;
	if (l->watching && !l->exited && l->pid > 0) {
		kill(l->pid, SIGTERM); /* the launcher passes it on to the server */
		if (!wait_until(l, exited, time_mono_ns() + 5000000000u))
			kill(l->pid, SIGKILL);
	}
	pthread_mutex_unlock(&l->mu);
	if (l->sup) {
		int killed = 0;
		sandbox_supervisor_reap(l->sup, 2000, &killed);
		sandbox_supervisor_stop(l->sup);
	}
	if (l->watching)
		pthread_join(l->watcher, NULL);
	if (l->conn >= 0)
		close(l->conn);
	if (l->have_spec)
		sandbox_spec_done(&l->spec);
	pthread_mutex_destroy(&l->mu);
	pthread_cond_destroy(&l->cond);
	free(l);
}
