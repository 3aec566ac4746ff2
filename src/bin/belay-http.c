/* belay-http.c - the HTTP recording proxy as its own executable (what `belay proxy --http
 * URL` runs): src/http/ linked with libmicrohttpd and libcurl, which the belay binary does
 * not link (its verdict code stays free of network clients; tests/unit/test_verify.c).
 *
 *   belay-http --upstream URL [--listen PORT] [--state DIR] [--trace-dir DIR] [--no-index]
 *              [--idle-timeout SECONDS] [--policy FILE] [--enforce] [--hold SECONDS] [--console]
 *   belay-http --upstream URL [--state DIR] --print-url
 *   belay-http --upstream http://127.0.0.1:PORT/PATH --contain DIR [--network deny] [--expose PATH]...
 *              [the options above] -- SERVER [ARGS...]
 *
 * With a server command, belay-http starts that server itself, contained (http_local.h):
 * in belay's sandbox under network deny, listening on PORT of its sandbox's own loopback,
 * reached only through the sandbox's connector; its sandbox records (the layers, every
 * denial) go into the runs' traces. Its stable URL is keyed by the scope, the command and
 * the URL. It ends when the server ends (exit 1).
 *   belay-http --upstream URL [--state DIR] --login [--client-id ID] [--redirect-port PORT]
 *              [--scope SCOPE] [--timeout SECONDS] [--no-browser]
 *   belay-http --bridge URL [--connector-fd N]
 *
 * --bridge speaks to the MCP server at URL as a stdio server would be spoken to
 * (http_bridge.h): JSON-RPC messages one per line on stdin, each POSTed; every message of the
 * answers one per line on stdout; it exits when stdin has ended and the transfers are done
 * (0), or 1 naming what failed. With --connector-fd, its sockets come from that contained
 * server's sandbox connector (sandbox.h), inherited as descriptor N: what verify's replay of
 * a contained run starts (src/proxy/session.c). It ends with its parent (SIGKILL).
 *
 * --print-url prints the upstream's stable URL (made and saved on first use) on stdout and
 * exits without listening: what `belay snippet CLIENT --http URL` writes into a configuration.
 * --login authorizes belay with an OAuth-protected upstream (http_oauth_login.h: what `belay
 * http login URL` runs): it prints the URL to open on stdout, tries a browser when a display
 * is there (xdg-open) unless --no-browser, waits for the redirect on 127.0.0.1, keeps the
 * tokens in STATE/http (0600) and exits 0, or 1 naming what failed. A client secret of a
 * client registered by hand comes from BELAY_OAUTH_CLIENT_SECRET (never argv). When belay
 * holds tokens for the upstream, the listener adds them to every upstream request (http_oauth.h).
 * Listens on 127.0.0.1 only: on PORT, or on the upstream's stable port (http_listen.h; when
 * another program holds it, on a free one, saved as the new stable port). Prints the URL an
 * agent is to use, "belay: listening on http://127.0.0.1:PORT/SECRET/mcp", then one line per
 * run opened and closed, on stderr. Ends on SIGINT, SIGTERM or SIGHUP (every run's trace is
 * closed). Exit 0, 1 when it cannot listen or record, 2 on usage errors.
 *
 * --console: run by `belay console --http URL` (src/console_host/chttp.h), which owns both
 * ends of its stdin and stdout. Its stdout is JSON lines: {"event": "listening", "url"}
 * once, then each held call's {"event": "hold", ...} and {"event": "hold_done",
 * ...} (http_proxy_cfg.hold_event). Its stdin takes "approve ID" and "refuse ID" lines (the
 * console's y and x on a held call); at its end (the console quit, or died) it stops as on
 * SIGTERM, so it never outlives the console. */
#include <curl/curl.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <sys/prctl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/buf.h"
#include "common/child.h"
#include "common/fsutil.h"
#include "common/jsonx.h"
#include "common/paths.h"
#include "common/termsafe.h"
#include "common/xalloc.h"
#include "common/xalloc_cjson.h"
#include "gate/gate.h"
#include "http/http_bridge.h"
#include "http/http_listen.h"
#include "http/http_local.h"
#include "http/http_prestate.h"
#include "http/http_oauth.h"
#include "http/http_oauth_login.h"
#include "http/http_proxy.h"

static pthread_mutex_t out_mu = PTHREAD_MUTEX_INITIALIZER;

static void say(const char *fmt, const char *a)
{
	pthread_mutex_lock(&out_mu);
	fprintf(stderr, fmt, a);
	fflush(stderr);
	pthread_mutex_unlock(&out_mu);
}

static void on_report(void *ctx, const char *msg)
{
	(void)ctx;
	say("belay: http: %s\n", msg);
}

static void on_run(void *ctx, const char *what, const char *path)
{
	(void)ctx;
	say(!strcmp(what, "open") ? "belay: recording to %s\n" : "belay: closed %s\n", path);
}

/* The contained server's sandbox records go to the proxy once it runs; before, they wait. */
static pthread_mutex_t sink_mu = PTHREAD_MUTEX_INITIALIZER;
static struct http_proxy *sink;
static cJSON *early; /* [[kind, fields]...] posted before the proxy started */

static void to_proxy(const char *kind, cJSON *fields)
{
	if (!strcmp(kind, "sandbox") || !strcmp(kind, "server"))
		http_proxy_record_every_run(sink, kind, fields);
	else
		http_proxy_record(sink, kind, fields);
}

static void on_sandbox(void *ctx, const char *kind, cJSON *fields)
{
	(void)ctx;
	pthread_mutex_lock(&sink_mu);
	if (sink) {
		to_proxy(kind, fields);
	} else {
		if (!early)
			early = cJSON_CreateArray();
		cJSON *pair = cJSON_CreateArray();
		cJSON_AddItemToArray(pair, cJSON_CreateString(kind));
		cJSON_AddItemToArray(pair, fields);
		cJSON_AddItemToArray(early, pair);
	}
	pthread_mutex_unlock(&sink_mu);
	if (!strcmp(kind, "denial"))
		say("belay: http: the contained server was refused: %s\n", jx_str(fields, "reason") ? jx_str(fields, "reason") : "?");
}

static void set_sink(struct http_proxy *p)
{
	pthread_mutex_lock(&sink_mu);
	sink = p;
	cJSON *it, *list = p ? early : NULL;
	cJSON_ArrayForEach(it, list)
	{
		to_proxy(cJSON_GetArrayItem(it, 0)->valuestring, cJSON_DetachItemFromArray(it, 1));
	}
	cJSON_Delete(early);
	early = NULL;
	pthread_mutex_unlock(&sink_mu);
}

static volatile int server_status = -1;

static void on_server_end(void *ctx, int status)
{
	(void)ctx;
	server_status = status;
	kill(getpid(), SIGTERM); /* main's sigwait */
}

/* --console: one JSON line on stdout. */
static void emit(const cJSON *ev)
{
	char *line = cJSON_PrintUnformatted(ev);
	pthread_mutex_lock(&out_mu);
	printf("%s\n", line);
	fflush(stdout);
	pthread_mutex_unlock(&out_mu);
	cJSON_free(line);
}

static void on_hold(void *ctx, const cJSON *ev)
{
	(void)ctx;
	emit(ev);
}

/* --console: the console's answers on stdin, one per line; its end stops belay-http. */
static void *console_in(void *arg)
{
	struct http_proxy *p = arg;
	char line[256];
	while (fgets(line, sizeof line, stdin)) {
		char verb[16], id[48];
		if (sscanf(line, "%15s %47s", verb, id) != 2)
			continue;
		if (!strcmp(verb, "approve") || !strcmp(verb, "refuse"))
			http_proxy_answer(p, id, !strcmp(verb, "approve"), "the console");
	}
	kill(getpid(), SIGTERM); /* taken by the main thread's sigwait */
	return NULL;
}

static void login_say(void *ctx, const char *line)
{
	(void)ctx;
	struct buf safe = {0};
	termsafe_append(&safe, line, strlen(line), 0);
	printf("%s\n", buf_cstr(&safe));
	fflush(stdout);
	buf_free(&safe);
}

/* A browser, when there is a display to show it on (the URL holds no secret: PKCE's
 * challenge and the state, which only match this flow's redirect). */
static void login_open(void *ctx, const char *url)
{
	(void)ctx;
	const char *d = getenv("DISPLAY"), *w = getenv("WAYLAND_DISPLAY");
	if ((!d || !*d) && (!w || !*w))
		return;
	char *bin = fs_which("xdg-open");
	if (!bin)
		return;
	char *const argv[] = {bin, (char *)url, NULL};
	struct err e = {0};
	if (child_detach(argv, NULL, NULL, &e) == 0)
		printf("belay: asked xdg-open to show it\n");
	free(bin);
}

static int login(const char *upstream, const char *sd, const char *client_id, const char *scope, long redirect_port,
		 long timeout, int no_browser)
{
	curl_global_init(CURL_GLOBAL_DEFAULT);
	struct http_oauth_login_cfg c = {
		.upstream = upstream,
		.state_dir = sd,
		.client_id = client_id,
		.client_secret = client_id ? getenv("BELAY_OAUTH_CLIENT_SECRET") : NULL,
		.scope = scope,
		.redirect_port = (unsigned)redirect_port,
		.timeout_s = (unsigned)timeout,
		.say = login_say,
		.open_url = no_browser ? NULL : login_open,
	};
	struct err e = {0};
	int rc = http_oauth_login(&c, &e);
	if (rc) {
		struct buf safe = {0};
		termsafe_append(&safe, e.msg, strlen(e.msg), 0);
		fprintf(stderr, "belay: http login: %s\n", buf_cstr(&safe));
		buf_free(&safe);
	}
	curl_global_cleanup();
	return rc ? 1 : 0;
}

static int usage(const char *why);

/* --bridge: stdin and stdout to the server at url (http_bridge.h). */
static int run_bridge(const char *url, int connector_fd, int other)
{
	if (other)
		return usage("--bridge takes no --upstream and no server command");
	if (strncmp(url, "http://", 7))
		return usage("--bridge must be an http:// URL");
	/* it ends with whoever started it, never orphaned on a server's stream */
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() == 1)
		return 1;
	signal(SIGPIPE, SIG_IGN);
	curl_global_init(CURL_GLOBAL_DEFAULT);
	struct http_bridge_cfg c = {.url = url, .in_fd = 0, .out_fd = 1, .connector = connector_fd};
	struct err e = {0};
	int rc = http_bridge_run(&c, &e);
	if (rc)
		fprintf(stderr, "belay-http: bridge: %s\n", e.msg);
	curl_global_cleanup();
	if (connector_fd >= 0)
		close(connector_fd);
	return rc ? 1 : 0;
}

static int usage(const char *why)
{
	fprintf(stderr, "belay-http: %s\nusage: belay-http --upstream URL [--listen PORT] [--state DIR] "
			"[--trace-dir DIR] [--no-index] [--idle-timeout SECONDS] [--policy FILE] [--enforce] [--hold SECONDS] [--console] [--print-url]\n"
			"       belay-http --upstream URL [--state DIR] --login [--client-id ID] [--redirect-port PORT] "
			"[--scope SCOPE] [--timeout SECONDS] [--no-browser]\n"
			"       belay-http --upstream http://127.0.0.1:PORT/PATH --contain DIR [--network deny] [--expose PATH]... "
			"[options] -- SERVER [ARGS...]\n"
			"       belay-http --bridge URL [--connector-fd N]\n",
		why);
	return 2;
}

int main(int argc, char **argv)
{
	xalloc_cjson_install();
	const char *upstream = NULL, *state = NULL, *trace_dir = NULL, *policy_file = NULL;
	const char *client_id = NULL, *scope = NULL, *contain = NULL, *network = NULL, *bridge = NULL;
	long port = -1, connector_fd = -1, idle = 600, hold = 50, redirect_port = 0, timeout = 300;
	int no_index = 0, print_url = 0, enforce = 0, do_login = 0, no_browser = 0, console = 0;
	/* held in statics: what the early returns leave is still reachable, not a leak */
	static char **expose;
	static struct buf key;
	char **server = NULL;
	expose = xcalloc((size_t)argc + 1, sizeof *expose);
	size_t nexpose = 0;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		char *end;
		if (!strcmp(a, "--")) {
			server = argv + i + 1;
			break;
		}
		if (!strcmp(a, "--no-index")) {
			no_index = 1;
			continue;
		}
		if (!strcmp(a, "--print-url")) {
			print_url = 1;
			continue;
		}
		if (!strcmp(a, "--enforce")) {
			enforce = 1;
			continue;
		}
		if (!strcmp(a, "--console")) {
			console = 1;
			continue;
		}
		if (!strcmp(a, "--login")) {
			do_login = 1;
			continue;
		}
		if (!strcmp(a, "--no-browser")) {
			no_browser = 1;
			continue;
		}
		if (!v)
			return usage("an option lacks its value");
		i++;
		if (!strcmp(a, "--upstream")) {
			upstream = v;
		} else if (!strcmp(a, "--bridge")) {
			bridge = v;
		} else if (!strcmp(a, "--connector-fd")) {
			connector_fd = strtol(v, &end, 10);
			if (!*v || *end || connector_fd < 3 || connector_fd > 1023)
				return usage("--connector-fd must be a descriptor from 3 to 1023");
		} else if (!strcmp(a, "--state")) {
			state = v;
		} else if (!strcmp(a, "--trace-dir")) {
			trace_dir = v;
		} else if (!strcmp(a, "--client-id")) {
			client_id = v;
		} else if (!strcmp(a, "--scope")) {
			scope = v;
		} else if (!strcmp(a, "--redirect-port")) {
			redirect_port = strtol(v, &end, 10);
			if (!*v || *end || redirect_port < 0 || redirect_port > 65535)
				return usage("--redirect-port must be a port from 0 to 65535");
		} else if (!strcmp(a, "--timeout")) {
			timeout = strtol(v, &end, 10);
			if (!*v || *end || timeout < 1 || timeout > 86400)
				return usage("--timeout must be a whole number of seconds from 1 to 86400");
		} else if (!strcmp(a, "--policy")) {
			policy_file = v;
		} else if (!strcmp(a, "--contain")) {
			contain = v;
		} else if (!strcmp(a, "--network")) {
			network = v;
		} else if (!strcmp(a, "--expose")) {
			expose[nexpose++] = (char *)v;
		} else if (!strcmp(a, "--listen")) {
			port = strtol(v, &end, 10);
			if (!*v || *end || port < 0 || port > 65535)
				return usage("--listen must be a port from 0 to 65535");
		} else if (!strcmp(a, "--hold")) {
			hold = strtol(v, &end, 10);
			if (!*v || *end || hold < 0 || hold > 3600)
				return usage("--hold must be a whole number of seconds from 0 to 3600");
		} else if (!strcmp(a, "--idle-timeout")) {
			idle = strtol(v, &end, 10);
			if (!*v || *end || idle < 0 || idle > 86400 * 7)
				return usage("--idle-timeout must be a whole number of seconds (0: never)");
		} else {
			return usage("unknown option");
		}
	}
	if (bridge)
		return run_bridge(bridge, (int)connector_fd, upstream || server);
	if (connector_fd >= 0)
		return usage("--connector-fd goes with --bridge");
	if (!upstream || (strncmp(upstream, "http://", 7) && strncmp(upstream, "https://", 8)))
		return usage("--upstream must be an http:// or https:// URL");
	if (server && (!*server || !contain))
		return usage("a server belay starts needs --contain DIR and its command after --");
	if (!server && (contain || network || nexpose))
		return usage("--contain, --network and --expose contain a server belay starts (after --)");

	struct err e = {0};
	struct gate_policy *policy = NULL;
	if (policy_file && gate_policy_load(policy_file, &policy, &e) != 0) {
		fprintf(stderr, "belay: http: %s\n", e.msg);
		return 2;
	}
	char *sd = paths_state_dir(state);
	if (paths_ensure_state_dir(sd, &e) != 0) {
		fprintf(stderr, "belay: http: %s\n", e.msg);
		free(sd);
		return 1;
	}
	if (do_login) {
		int lrc = login(upstream, sd, client_id, scope, redirect_port, timeout, no_browser);
		gate_policy_free(policy);
		free(sd);
		return lrc;
	}
	char *td = trace_dir && *trace_dir ? xstrdup(trace_dir) : fs_join(sd, "traces");
	/* a server belay starts: its stable URL is its own (scope, command, URL), not the URL's,
	 * which every such server on the same inside port would share */
	buf_puts(&key, upstream);
	if (server) {
		char *rs = realpath(contain, NULL);
		buf_printf(&key, "\nlocal\n%s", rs ? rs : contain);
		free(rs);
		for (char **a = server; *a; a++)
			buf_printf(&key, "\n%s", *a);
	}
	struct http_listen l;
	if (http_listen_load(sd, buf_cstr(&key), &l, &e) != 0) {
		fprintf(stderr, "belay: http: %s\n", e.msg);
		free(sd);
		free(td);
		return 1;
	}

	if (print_url) {
		printf("http://127.0.0.1:%u/%s/mcp\n", l.port, l.secret);
		free(sd);
		free(td);
		return fflush(stdout) == 0 ? 0 : 1;
	}

	/* the signals are taken by sigwait below, in this thread only */
	sigset_t sigs;
	sigemptyset(&sigs);
	sigaddset(&sigs, SIGINT);
	sigaddset(&sigs, SIGTERM);
	sigaddset(&sigs, SIGHUP);
	pthread_sigmask(SIG_BLOCK, &sigs, NULL);
	signal(SIGPIPE, SIG_IGN);

	struct http_local *local = NULL;
	if (server) {
		struct http_local_cfg lc = {
			.upstream = upstream,
			.scope = contain,
			.network = network,
			.argv = server,
			.expose = expose,
			.state_dir = sd,
			.post = on_sandbox,
			.ended = on_server_end,
		};
		if (http_local_start(&lc, &local, &e) != 0) {
			fprintf(stderr, "belay: http: %s\n", e.msg);
			set_sink(NULL);
			free(sd);
			free(td);
			buf_free(&key);
			free(expose);
			return e.code == BELAY_EUSAGE ? 2 : 1;
		}
		say("belay: http: started %s contained (its sandbox's loopback)\n", server[0]);
	}
	char *root = server ? realpath(contain, NULL) : NULL;
	struct http_prestate *pre = NULL;
	if (server && http_prestate_open(sd, contain, &pre, &e) != 0) {
		fprintf(stderr, "belay: http: no pre-states: %s\n", e.msg);
		free(root);
		http_local_stop(local);
		free(sd);
		free(td);
		buf_free(&key);
		free(expose);
		return 1;
	}
	struct http_oauth *oauth = http_oauth_new(sd, upstream);
	struct http_proxy_cfg cfg = {
		.upstream_fd = {.socket = local ? http_local_socket : NULL, .ctx = local},
		.prestate = pre ? http_prestate_capture : NULL,
		.prestate_ctx = pre,
		.local_root = root,
		.upstream = upstream,
		.port = port >= 0 ? (unsigned)port : l.port,
		.secret = l.secret,
		.trace_dir = td,
		.state_dir = sd,
		.no_index = no_index,
		.idle_s = (unsigned)idle,
		.policy = policy,
		.enforce = enforce,
		.hold_s = (unsigned)hold,
		.oauth = oauth,
		.report = on_report,
		.run_event = on_run,
		.hold_event = console ? on_hold : NULL,
	};
	struct http_proxy *p = NULL;
	int rc = http_proxy_start(&cfg, &p, &e);
	if (rc == -EADDRINUSE && port < 0) {
		/* another program holds the stable port: take a free one and keep it from now on */
		cfg.port = 0;
		rc = http_proxy_start(&cfg, &p, &e);
		if (rc == 0) {
			l.port = http_proxy_port(p);
			struct err se = {0};
			if (http_listen_save(sd, buf_cstr(&key), &l, &se) != 0)
				fprintf(stderr, "belay: http: %s\n", se.msg);
		}
	}
	if (rc != 0) {
		fprintf(stderr, "belay: http: %s\n", e.msg);
		http_local_stop(local);
		http_prestate_close(pre);
		free(root);
		http_oauth_free(oauth);
		free(sd);
		free(td);
		buf_free(&key);
		free(expose);
		return 1;
	}
	if (local)
		set_sink(p);
	char *url = xasprintf("http://127.0.0.1:%u/%s/mcp", http_proxy_port(p), l.secret);
	struct buf safe = {0};
	termsafe_append(&safe, upstream, strlen(upstream), 0);
	pthread_mutex_lock(&out_mu);
	fprintf(stderr, "belay: listening on %s for %s\n", url, buf_cstr(&safe));
	fflush(stderr);
	pthread_mutex_unlock(&out_mu);
	buf_free(&safe);
	if (console) {
		cJSON *ev = cJSON_CreateObject();
		cJSON_AddStringToObject(ev, "event", "listening");
		cJSON_AddStringToObject(ev, "url", url);
		emit(ev);
		cJSON_Delete(ev);
		pthread_t t;
		if (pthread_create(&t, NULL, console_in, p) == 0)
			pthread_detach(t);
	}
	free(url);
	int sig = 0;
	sigwait(&sigs, &sig);
	http_proxy_stop(p);
	http_local_stop(local); /* after the proxy: no transfer asks the connector any more */
	http_prestate_close(pre);
	free(root);
	buf_free(&key);
	free(expose);
	if (server_status != -1) {
		say("belay: http: the contained server ended (%s)\n",
		    WIFEXITED(server_status) ? "its exit" : "a signal");
		http_oauth_free(oauth);
		gate_policy_free(policy);
		free(sd);
		free(td);
		return 1;
	}
	http_oauth_free(oauth);
	gate_policy_free(policy);
	free(sd);
	free(td);
	return 0;
}
