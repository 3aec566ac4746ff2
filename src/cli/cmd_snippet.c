/* cmd_snippet.c - `belay snippet [CLIENT]`: the MCP configuration that makes an agent client
 * start belay, printed for the user to paste (src/mcpcfg writes it; the console's :snippet
 * and docs/CONSOLE.md show the same text). Without `--`, the snippet connects to a console
 * (`belay connect SOCKET`); with `-- SERVER...` it runs a headless `belay proxy` with its
 * --state (and --scope) spelled out, since an agent-spawned server sees none of the user's
 * shell variables. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "common/buf.h"
#include "common/child.h"
#include "common/fsutil.h"
#include "common/paths.h"
#include "common/xalloc.h"
#include "console_host/chost.h"
#include "mcpcfg/mcpcfg.h"

static const struct cli_opt snippet_opts[] = {
	{"socket", 'k', 0, "PATH", "the console's socket (default: the console's default socket)"},
	{"name", 'n', 0, "NAME", "the server's name in the client (default belay)"},
	{"command", 'c', 0, "PATH", "the belay to run (default: this belay's absolute path)"},
	{"state", 's', 0, "DIR",
	 "with -- SERVER_CMD: the proxy's state directory (default: the one belay uses now, written out)"},
	{"scope", 'S', 0, "DIR", "with -- SERVER_CMD: contain the server, writes confined to DIR"},
	{"http", 'H', 0, "URL",
	 "a server the client reaches over HTTP at URL: the snippet points the client at belay's listener for it "
	 "(its stable URL, with the listener's secret; start the listener with `belay proxy --http URL`, "
	 "docs/HTTP.md)"},
	CLI_OPT_END,
};

const struct cli_cmd cli_snippet = {
	.name = "snippet",
	.summary = "print the MCP configuration that makes an agent client (Claude Code, Cursor, VS Code, Codex, "
		   "Windsurf, Zed, Gemini CLI) start belay",
	.synopsis = "[CLIENT] [options] [-- SERVER_CMD [ARGS...]]\n[CLIENT] [options] --http URL",
	.about = "Prints the MCP server configuration that makes CLIENT start belay: claude-code (.mcp.json), "
		 "claude-code-cli (claude mcp add), cursor, vscode, codex, windsurf, zed, gemini-cli (its project "
		 "or user settings.json; a server name there must not contain '_'). Without CLIENT, every one, "
		 "each under a comment line naming the file it goes in.\n\n"
		 "The snippet connects to a console (belay connect SOCKET); with -- SERVER_CMD it runs a headless "
		 "recording proxy of that server instead. Paths are absolute: agents start servers with a minimal "
		 "environment (no BELAY_STATE_DIR, no XDG_RUNTIME_DIR).",
	.opts = snippet_opts,
};

struct sopts {
	const char *sock, *name, *command, *state, *scope, *http;
};

/* getopt_long over argv from optind; -1 when parsing goes on, else the exit status. */
static int take_opts(int argc, char **argv, struct sopts *o)
{
	struct cli_parse P;
	cli_parse_init(&cli_snippet, &P, 1);
	int c;
	while ((c = cli_getopt(&P, argc, argv)) != -1) {
		switch (c) {
		case 'k': o->sock = optarg; break;
		case 'n': o->name = optarg; break;
		case 'c': o->command = optarg; break;
		case 's': o->state = optarg; break;
		case 'S': o->scope = optarg; break;
		case 'H': o->http = optarg; break;
		case 'h': cli_help(&cli_snippet, stdout); return 0;
		default:
			return cli_fail("snippet: unknown or incomplete option '%s' (belay snippet --help)", argv[optind - 1]);
		}
	}
	return -1;
}

/* belay-http next to this belay (or on PATH) prints the upstream's stable listener URL
 * (src/http/http_listen.h owns it). New string, or NULL with *why set. */
static char *listener_url(const char *upstream, const char *state, const char **why)
{
	char *bin = NULL;
	const char *self = paths_self_exe();
	if (self && strrchr(self, '/')) {
		char *dir = xstrndup(self, (size_t)(strrchr(self, '/') - self));
		bin = fs_join(dir, "belay-http");
		free(dir);
		if (access(bin, X_OK) != 0) {
			free(bin);
			bin = NULL;
		}
	}
	if (!bin && !(bin = fs_which("belay-http"))) {
		*why = "belay-http is not installed next to belay or on PATH";
		return NULL;
	}
	const char *args[] = {bin, "--upstream", upstream, "--print-url", state ? "--state" : NULL, state, NULL};
	struct child_spec spec = CHILD_SPEC_INIT;
	spec.argv = (char *const *)args;
	spec.out = CHILD_CAPTURE;
	spec.err = CHILD_INHERIT; /* belay-http names its own failure */
	spec.out_cap = 4096;
	spec.timeout_ms = 30000;
	struct buf b = {0};
	struct child_result res = {0};
	struct err ce = {0};
	int rc = child_run(&spec, &b, &res, &ce);
	free(bin);
	if (rc < 0 || res.status != 0 || b.len < 8) {
		buf_free(&b);
		*why = rc < 0 ? "belay-http could not be started" : "belay-http could not make the listener's URL (its message is above)";
		return NULL;
	}
	b.len = strcspn(buf_cstr(&b), "\n");
	return buf_take(&b);
}

int cmd_snippet(int argc, char **argv)
{
	struct sopts o = {.name = "belay"};
	optind = 1;
	opterr = 0;
	int rc = take_opts(argc, argv, &o);
	if (rc >= 0)
		return rc;
	int only = -1;
	if (optind < argc && strcmp(argv[optind - 1], "--") != 0) {
		if ((only = mcpcfg_parse(argv[optind])) < 0)
			return cli_fail("snippet: unknown client '%s' (claude-code, claude-code-cli, cursor, vscode, codex, "
					"windsurf, zed, gemini-cli)",
					argv[optind]);
		optind++;
		if ((rc = take_opts(argc, argv, &o)) >= 0) /* options may follow the client */
			return rc;
	}
	const char *sock = o.sock, *name = o.name, *command = o.command, *state = o.state, *scope = o.scope;
	char **server = NULL;
	if (o.http) {
		if (optind < argc)
			return cli_fail("snippet: --http points the client at a server over HTTP: give no server command too");
		if (sock || scope || command)
			return cli_fail("snippet: --socket, --scope and --command do not go with --http");
		if (strncmp(o.http, "http://", 7) && strncmp(o.http, "https://", 8))
			return cli_fail("snippet: --http needs an http:// or https:// URL, not '%s'", o.http);
		if (!*name)
			return cli_fail("snippet: --name must not be empty");
		const char *why;
		if (only >= 0 && !mcpcfg_name_ok((enum mcpcfg_client)only, name, &why))
			return cli_fail("snippet: --name %s: %s", name, why);
		char *url = listener_url(o.http, state, &why);
		if (!url)
			return cli_fail("snippet: %s", why);
		struct buf out = {0};
		for (int i = 0; i < MCPC_COUNT; i++) {
			if (only >= 0 && i != only)
				continue;
			const struct mcpcfg_info *in = mcpcfg_info((enum mcpcfg_client)i);
			if (only < 0)
				buf_printf(&out, "%s# %s\n", i ? "\n" : "", in->title);
			if (!mcpcfg_name_ok((enum mcpcfg_client)i, name, &why)) {
				buf_printf(&out, "# (none: %s)\n", why);
				continue;
			}
			mcpcfg_snippet_url((enum mcpcfg_client)i, name, url, &out);
		}
		fwrite(out.p, 1, out.len, stdout);
		fprintf(stderr, "belay: the client reaches the server through belay's listener; start it with: belay proxy "
				"--http %s%s%s (it keeps this URL)\n",
			o.http, state ? " --state " : "", state ? state : "");
		buf_free(&out);
		free(url);
		return 0;
	}
	if (optind < argc) {
		if (strcmp(argv[optind - 1], "--") != 0)
			return cli_fail("snippet: unexpected argument '%s' (the server command goes after --)", argv[optind]);
		server = argv + optind;
	}
	if (!server && (state || scope))
		return cli_fail("snippet: --state and --scope belong to a proxy snippet (-- SERVER_CMD ...); a console "
				"snippet needs only the socket");
	if (server && sock)
		return cli_fail("snippet: --socket belongs to a console snippet (without -- SERVER_CMD)");
	if (!*name)
		return cli_fail("snippet: --name must not be empty");
	const char *why;
	if (only >= 0 && !mcpcfg_name_ok((enum mcpcfg_client)only, name, &why))
		return cli_fail("snippet: --name %s: %s", name, why);
	char *self = command ? xstrdup(command) : xstrdup(paths_self_exe());
	char *def_sock = NULL, *state_dir = NULL, *scope_abs = NULL;
	const char **args;
	size_t nargs = 0;
	if (!server) {
		if (!sock)
			sock = def_sock = chost_default_socket();
		args = xcalloc(4, sizeof *args);
		mcpcfg_connect_argv(self, sock, args);
	} else {
		size_t n = 0;
		while (server[n])
			n++;
		args = xcalloc(n + 8, sizeof *args);
		state_dir = paths_state_dir(state);
		if (state_dir[0] != '/') {
			char *abs = realpath(state_dir, NULL);
			if (!abs) {
				free(self);
				free(args);
				free(state_dir);
				return cli_fail("snippet: --state %s: not an existing directory (a snippet needs an absolute path)",
						state);
			}
			free(state_dir);
			state_dir = abs;
		}
		args[nargs++] = self;
		args[nargs++] = "proxy";
		args[nargs++] = "--state";
		args[nargs++] = state_dir;
		if (scope) {
			if (!(scope_abs = realpath(scope, NULL))) {
				free(self);
				free(args);
				free(state_dir);
				return cli_fail("snippet: --scope %s: not an existing directory", scope);
			}
			args[nargs++] = "--scope";
			args[nargs++] = scope_abs;
		}
		args[nargs++] = "--";
		for (size_t i = 0; i < n; i++)
			args[nargs++] = server[i];
		args[nargs] = NULL;
	}
	struct buf out = {0};
	for (int i = 0; i < MCPC_COUNT; i++) {
		if (only >= 0 && i != only)
			continue;
		const struct mcpcfg_info *in = mcpcfg_info((enum mcpcfg_client)i);
		if (only < 0)
			buf_printf(&out, "%s# %s\n", i ? "\n" : "", in->title);
		if (!mcpcfg_name_ok((enum mcpcfg_client)i, name, &why)) {
			buf_printf(&out, "# (none: %s)\n", why);
			continue;
		}
		mcpcfg_snippet((enum mcpcfg_client)i, name, args, &out);
	}
	fwrite(out.p, 1, out.len, stdout);
	buf_free(&out);
	free(args);
	free(self);
	free(def_sock);
	free(state_dir);
	free(scope_abs);
	return 0;
}
