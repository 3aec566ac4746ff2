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

#include "cli/cli.h"
#include "common/buf.h"
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
	CLI_OPT_END,
};

const struct cli_cmd cli_snippet = {
	.name = "snippet",
	.summary = "print the MCP configuration that makes an agent client (Claude Code, Cursor, VS Code, Codex, "
		   "Windsurf, Zed, Gemini CLI) start belay",
	.synopsis = "[CLIENT] [options] [-- SERVER_CMD [ARGS...]]",
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
	const char *sock, *name, *command, *state, *scope;
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
		case 'h': cli_help(&cli_snippet, stdout); return 0;
		default:
			return cli_fail("snippet: unknown or incomplete option '%s' (belay snippet --help)", argv[optind - 1]);
		}
	}
	return -1;
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
