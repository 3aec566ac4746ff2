/* cmd_console.c - `belay console`: the live console. The engine (a socket listener that
 * turns each `belay connect` into a contained, recorded run) and the UI run in this one
 * process; see src/host/chost.h and src/tui/console.h. Also --follow (traces written by
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
#include "host/cevent.h"
#include "host/chost.h"
#include "host/follow.h"
#include "index/runidx.h"
#include "index/statedb.h"
#include "store/store.h"
#include "tui/console.h"

static const char console_usage[] =
	"usage: belay console [options] [-- SERVER_CMD [ARGS...]]\n"
	"\n"
	"The live console. Agents connect with `belay connect` as their MCP server command;\n"
	"each connection is one run of SERVER_CMD (contained with --scope), recorded and shown\n"
	"live: turns, denials, gate decisions, verdicts. Keys: press ? inside.\n"
	"\n"
	"  --scope DIR           contain every server, writes confined to DIR\n"
	"  --network deny|allow  network for contained servers (default deny)\n"
	"  --expose PATH         keep PATH in contained servers' view (read-only) although it is\n"
	"                        hidden by default (a credential store, a socket directory); repeatable\n"
	"  --mode audit|enforce  effect gate: audit records plans (default); enforce holds calls\n"
	"                        that ask for approval in the console (y approves, x refuses)\n"
	"  --policy FILE         the gate's tool-call policy (docs/GATE.md)\n"
	"  --invariants FILE     A1 invariants for verifying from the console (docs/VERDICTS.md)\n"
	"  --state DIR           belay's state directory (default $XDG_STATE_HOME/belay)\n"
	"  --trace-dir DIR       where runs' traces go (default STATE/traces)\n"
	"  --socket PATH         listen here (default /run/user/UID/belay/console.sock, or\n"
	"                        /tmp/belay-UID/console.sock without /run/user/UID)\n"
	"  --follow DIR          also show traces that headless `belay proxy` processes write in DIR\n"
	"  --open RUN|TRACE      browse a finished run (no listening unless SERVER_CMD is given)\n"
	"  --theme NAME          dark (default), light, mono, or a file in ~/.config/belay/themes\n"
	"  --colors 256|8|mono   force a colour depth (NO_COLOR is honoured)\n"
	"  --ascii               ASCII symbols only\n"
	"  --events              no screen: print the engine's events as JSON lines\n";

static volatile sig_atomic_t stop_events;

static void on_stop_signal(int sig)
{
	(void)sig;
	stop_events = 1;
}

static const char *kind_name(enum cevent_kind k)
{
	static const char *names[] = {"run_started", "run_committed", "run_ended", "hold", "hold_done", "verdict",
				      "recheck",     "verdicts",      "labeled",   "job",  "log",       "run_alert"};
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
	static const struct option opts[] = {
		{"scope", required_argument, NULL, 'S'},      {"network", required_argument, NULL, 'N'},
		{"mode", required_argument, NULL, 'M'},       {"policy", required_argument, NULL, 'P'},
		{"invariants", required_argument, NULL, 'i'}, {"state", required_argument, NULL, 's'},
		{"trace-dir", required_argument, NULL, 't'},  {"socket", required_argument, NULL, 'k'},
		{"follow", required_argument, NULL, 'f'},     {"open", required_argument, NULL, 'o'},
		{"theme", required_argument, NULL, 'T'},      {"colors", required_argument, NULL, 'c'},
		{"ascii", no_argument, NULL, 'a'},            {"events", no_argument, NULL, 'e'},
		{"expose", required_argument, NULL, 'X'},     {"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	struct console_setup cs;
	console_setup_init(&cs);
	int c;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+h", opts, NULL)) != -1) {
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
		case 'o': cs.open = optarg; break;
		case 'T': cs.theme = optarg; break;
		case 'c': cs.colors = optarg; break;
		case 'a': cs.ascii = 1; break;
		case 'e': cs.events_only = 1; break;
		case 'h': free(cs.expose); fputs(console_usage, stdout); return 0;
		default:
			free(cs.expose);
			return cli_fail("console: unknown or incomplete option '%s' (belay console --help)", argv[optind - 1]);
		}
	}
	if (optind < argc)
		cs.server = argv + optind;
	/* Screen codes written into a pipe help nobody: say so before anything starts. */
	if (!cs.events_only && (!isatty(STDOUT_FILENO) || !isatty(STDIN_FILENO)))
		return cli_fail("console: %s is not a terminal: the console draws a screen, so run it in a terminal "
				"(--events prints what it would show as JSON lines instead)",
				!isatty(STDOUT_FILENO) ? "stdout" : "stdin");
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
