/* cmd_console.c - `belay console`: the live console. The engine (a socket listener that
 * turns each `belay connect` into a contained, recorded run) and the UI run in this one
 * process; see src/console_host/chost.h and src/tui/console.h. Also --follow (traces written by
 * headless proxies) and --open (browse a finished run). `--events` runs the engine side
 * without a screen and prints its events as JSON lines (for scripts and tests). */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <locale.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/console_setup.h"
#include "common/fsutil.h"
#include "common/paths.h"
#include "common/xalloc.h"
#include "proxy/loop_slice.h"
#include "console_host/cevent.h"
#include "console_host/chost.h"
#include "console_host/chttp.h"
#include "console_host/follow.h"
#include "index/runidx.h"
#include "index/statedb.h"
#include "store/store.h"
#include "tui/console.h"

static const struct cli_opt console_opts[] = {
	{"scope", 'S', 0, "DIR", "contain every server, writes confined to DIR"},
	{"network", 'N', 0, "deny|allow", "network for contained servers (default deny)"},
	{"expose", 'X', 0, "PATH",
	 "keep PATH in contained servers' view (read-only) although it is hidden by default (a credential store, "
	 "a socket directory); repeatable"},
	{"mode", 'M', 0, "audit|enforce",
	 "effect gate: audit records plans (default); enforce holds calls that ask for approval in the console "
	 "(y approves, x refuses; A applies the effect a call's trial had instead)"},
	{"no-trial", 'n', 0, NULL,
	 "enforce mode: hold a call whose only unknown effect is a local program (make, a project script) without "
	 "trying its command in a disposable mirror of the workspace first (docs/TRY.md)"},
	{"policy", 'P', 0, "FILE", "the gate's tool-call policy (docs/GATE.md)"},
	{"invariants", 'i', 0, "FILE", "A1 invariants for verifying from the console (docs/VERDICTS.md)"},
	CLI_OPT_STATE,
	{"trace-dir", 't', 0, "DIR", "where runs' traces go (default STATE/traces)"},
	{"socket", 'k', 0, "PATH", "listen here (default /run/user/UID/belay/console.sock, or /tmp/belay-UID/console.sock without /run/user/UID)"},
	{"allow-root", 'R', 0, NULL,
	 "let root connect to the console's socket too (by default only your own uid may; others are refused by "
	 "name and logged)"},
	{"follow", 'f', 0, "DIR", "also show traces that headless `belay proxy` processes write in DIR"},
	{"http", 'H', 0, "URL",
	 "also host belay's HTTP listener for the MCP server at URL (belay-http, stopped with the console): agents "
	 "configured with the listener's URL (shown at the bottom; belay snippet CLIENT --http URL writes it) are "
	 "recorded, shown live and, with --mode enforce, their held calls answered with y and x (docs/HTTP.md). With "
	 "--scope DIR and a SERVER_CMD, a local server in an HTTP mode (URL http://127.0.0.1:PORT/mcp): belay "
	 "starts it contained, listening on its sandbox's own loopback (network deny only), and stops it with the "
	 "console"},
	{"open", 'o', 0, "RUN|TRACE", "browse a finished run (no listening unless SERVER_CMD is given)"},
	{"theme", 'T', 0, "NAME", "dark (default), light, mono, or a file in ~/.config/belay/themes"},
	{"colors", 'c', 0, "256|8|mono", "force a colour depth (NO_COLOR is honoured)"},
	{"ascii", 'a', 0, NULL, "ASCII symbols only"},
	{"no-mouse", 'm', 0, NULL,
	 "leave mouse reporting off (the wheel, clicks; also BELAY_MOUSE=off in the environment): the terminal's "
	 "own selection then works without its modifier key"},
	{"events", 'e', 0, NULL, "no screen: print the engine's events as JSON lines"},
	{"slice-us", 'L', 0, "US",
	 "the scheduler slice the engine thread asks for, so that it forwards a frame soon after it arrives "
	 "although the UI thread is drawing (Linux 6.12+; from 100 to 100000; default 0, the kernel's own: on a "
	 "lightly loaded virtual machine the extra preemptions cost more than they save; docs/PERFORMANCE.md)"},
	CLI_OPT_END,
};

const struct cli_cmd cli_console = {
	.name = "console",
	.summary = "the live console: runs, turns, denials and verdicts as they happen",
	.synopsis = "[options] [-- SERVER_CMD [ARGS...]]\n[options] --http URL [--scope DIR -- SERVER_CMD [ARGS...]]",
	.about = "The live console. Agents connect with `belay connect` as their MCP server command; each "
		 "connection is one run of SERVER_CMD (contained with --scope), recorded and shown live: turns, "
		 "denials, gate decisions, verdicts. It needs a terminal of 80x24 or more. Keys: press ? inside, "
		 "or see belay keys.\n\n"
		 "Everything an agent would hit first is checked at start (a scope that is not a directory, a "
		 "server not on PATH, a bad --policy) and refused with its reason.",
	.opts = console_opts,
};

static volatile sig_atomic_t stop_events;

static void on_stop_signal(int sig)
{
	(void)sig;
	stop_events = 1;
}

static const char *kind_name(enum cevent_kind k)
{
	static const char *names[] = {"run_started", "run_committed", "run_ended", "hold", "hold_done", "verdict",
				      "recheck",     "verdicts",      "labeled",   "job",  "log",       "run_alert",
				      "trial",       "corpus"};
	_Static_assert(sizeof names / sizeof names[0] == CE_KINDS, "one name per console event kind");
	return (size_t)k < sizeof names / sizeof names[0] ? names[k] : "?";
}

/* --events: the engine side without a screen. */
static int print_events(struct cqueue *q)
{
	struct sigaction sa = {.sa_handler = on_stop_signal};
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	while (!stop_events) {
		struct pollfd p = {.fd = cqueue_fd(q), .events = POLLIN};
		if (poll(&p, 1, 200) <= 0)
			continue;
		for (struct cevent *ev = cqueue_take(q), *n; ev; ev = n) {
			n = ev->next;
			ev->next = NULL;
			cJSON *o = cJSON_CreateObject();
			cJSON_AddStringToObject(o, "event", kind_name(ev->kind));
			if (ev->run)
				cJSON_AddStringToObject(o, "run", ev->run);
			if (ev->trace)
				cJSON_AddStringToObject(o, "trace", ev->trace);
			cJSON_AddNumberToObject(o, "a", (double)ev->a);
			cJSON_AddNumberToObject(o, "b", (double)ev->b);
			if (ev->text)
				cJSON_AddStringToObject(o, "text", ev->text);
			if (ev->json)
				cJSON_AddItemToObject(o, "json", cJSON_Duplicate(ev->json, 1));
			char *s = cJSON_PrintUnformatted(o);
			printf("%s\n", s);
			fflush(stdout);
			cJSON_free(s);
			cJSON_Delete(o);
			cevent_free(ev);
		}
	}
	return 0;
}

int cmd_console(int argc, char **argv)
{
	struct cli_parse P;
	cli_parse_init(&cli_console, &P, 1);
	struct console_setup cs;
	console_setup_init(&cs);
	int c;
	optind = 1;
	opterr = 0;
	while ((c = cli_getopt(&P, argc, argv)) != -1) {
		switch (c) {
		case 'S': cs.scope = optarg; break;
		case 'N': cs.network = optarg; break;
		case 'X': cli_push(&cs.expose, optarg); break;
		case 'M': cs.mode = optarg; break;
		case 'P': cs.policy_file = optarg; break;
		case 'i': cs.invariants = optarg; break;
		case 's': cs.state = optarg; break;
		case 't': cs.trace_dir = optarg; break;
		case 'k': cs.socket = optarg; break;
		case 'f': cs.follow = optarg; break;
		case 'H': cs.http = optarg; break;
		case 'o': cs.open = optarg; break;
		case 'T': cs.theme = optarg; break;
		case 'c': cs.colors = optarg; break;
		case 'a': cs.ascii = 1; break;
		case 'm': cs.no_mouse = 1; break;
		case 'e': cs.events_only = 1; break;
		case 'n': cs.no_trial = 1; break;
		case 'R': cs.allow_root = 1; break;
		case 'L':
			if (loop_slice_parse(optarg, &cs.slice_us) != 0) {
				free(cs.expose);
				return cli_fail("console: --slice-us must be 0 or a whole number of microseconds from %u to %u, "
						"not '%s'",
						LOOP_SLICE_MIN_US, LOOP_SLICE_MAX_US, optarg);
			}
			break;
		case 'h': free(cs.expose); cli_help(&cli_console, stdout); return 0;
		default:
			free(cs.expose);
			return cli_fail("console: unknown or incomplete option '%s' (belay console --help)", argv[optind - 1]);
		}
	}
	if (optind < argc)
		cs.server = argv + optind;
	/* Screen codes written into a pipe help nobody: say so before anything starts. */
	if (!cs.events_only && (!isatty(STDOUT_FILENO) || !isatty(STDIN_FILENO))) {
		free(cs.expose);
		return cli_fail("console: %s is not a terminal: the console draws a screen, so run it in a terminal "
				"(--events prints what it would show as JSON lines instead)",
				!isatty(STDOUT_FILENO) ? "stdout" : "stdin");
	}
	struct err e = {0};
	setlocale(LC_ALL, "");
	char **expose = cs.expose; /* console_setup_done clears cs */
	if (console_setup_start(&cs, &e) != 0) {
		console_setup_done(&cs);
		free(expose);
		return cli_fail("console: %s", e.msg);
	}
	int rc = 0;
	if (cs.events_only) {
		if (cs.host)
			fprintf(stderr, "belay: console listening at %s\n", chost_socket(cs.host));
		if (cs.http_host)
			fprintf(stderr, "belay: console's HTTP listener at %s for %s\n", chttp_url(cs.http_host), cli_safe(cs.http));
		print_events(cs.events);
	} else if ((rc = console_run(&cs.ui, &e)) != 0) {
		console_setup_done(&cs);
		free(expose);
		return cli_fail("console: %s", e.msg);
	}
	console_setup_done(&cs);
	free(expose);
	return 0;
}
