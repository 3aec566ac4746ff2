/* cmd_http.c - `belay http login URL`: belay authorizes itself with an OAuth-protected MCP
 * server on the user's behalf (belay is the OAuth client: docs/HTTP.md, docs/THREAT_MODEL.md).
 * The flow runs in belay-http (src/http/http_oauth_login.h), which this command runs in its
 * place: the belay binary links no network client (tests/unit/test_verify.c). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/cli_spec.h"

static const struct cli_opt login_opts[] = {
	CLI_OPT_STATE,
	{"client-id", 'c', 0, "ID",
	 "a client registered with the authorization server by hand (its redirect URI "
	 "http://127.0.0.1:PORT/callback, PORT given with --redirect-port; a client secret comes from "
	 "BELAY_OAUTH_CLIENT_SECRET); default: belay registers itself (dynamic client registration, RFC 7591)"},
	{"redirect-port", 'p', 0, "PORT",
	 "the loopback port the browser is redirected to with the authorization code (default any free one)"},
	{"scope", 'S', 0, "SCOPE", "the scopes to ask for (default the server's scopes_supported)"},
	{"timeout", 'T', 0, "SECONDS", "how long to wait for the browser (default 300)"},
	{"no-browser", 'B', 0, NULL, "only print the URL to open (default: also try xdg-open when there is a display)"},
	CLI_OPT_END,
};

static const struct cli_cmd spec_http_login = {
	.name = "http login",
	.summary = "authorize belay with an OAuth-protected MCP server (belay keeps the tokens; the agent never sees one)",
	.synopsis = "[options] URL",
	.about = "Runs the MCP authorization flow with the server at URL: its protected-resource metadata, its "
		 "authorization server's metadata, a client (registered dynamically unless --client-id), then the "
		 "authorization code with PKCE (S256) and the server's resource (RFC 8707). belay prints the URL to "
		 "open in a browser and waits on 127.0.0.1 for the redirect; the tokens are kept in "
		 "STATE/http/HASH.oauth (0600) and `belay proxy --http URL` adds them to every request it forwards, "
		 "refreshing them when they expire. Each step is logged, without its secrets, in "
		 "STATE/http/HASH.oauth.log (docs/HTTP.md).",
	.opts = login_opts,
};

const struct cli_cmd cli_http = {
	.name = "http",
	.summary = "MCP servers over HTTP: belay's OAuth authorization with them (login)",
	.about = "belay records servers spoken to over HTTP with `belay proxy --http URL` (docs/HTTP.md). A server "
		 "protected by OAuth is authorized once with `belay http login URL`: belay is the OAuth client and "
		 "keeps the tokens; the agent authenticates to belay's listener with its secret URL only.",
	.subs = (const struct cli_cmd *const[]){&spec_http_login, NULL},
};

static int http_login(int argc, char **argv)
{
	struct cli_parse P;
	cli_parse_init(&spec_http_login, &P, 0);
	const char *state = NULL, *client_id = NULL, *redirect_port = NULL, *scope = NULL, *timeout = NULL;
	int no_browser = 0, c;
	optind = 1;
	opterr = 0;
	while ((c = cli_getopt(&P, argc, argv)) != -1) {
		switch (c) {
		case 's': state = optarg; break;
		case 'c': client_id = optarg; break;
		case 'p': redirect_port = optarg; break;
		case 'S': scope = optarg; break;
		case 'T': timeout = optarg; break;
		case 'B': no_browser = 1; break;
		case 'h': cli_help(&spec_http_login, stdout); return 0;
		default:
			return cli_fail("http login: unknown or incomplete option '%s' (belay http login --help)",
					argv[optind - 1]);
		}
	}
	if (optind != argc - 1)
		return cli_fail("http login: give the server's URL (belay http login --help)");
	const char *url = argv[optind];
	if (strncmp(url, "http://", 7) && strncmp(url, "https://", 8))
		return cli_fail("http login: the server's URL must be http:// or https://, not '%s'", url);
	if (redirect_port && !cli_long_in(redirect_port, 0, 65535))
		return cli_fail("http login: --redirect-port must be a port from 0 to 65535, not '%s'", redirect_port);
	if (timeout && !cli_long_in(timeout, 1, 86400))
		return cli_fail("http login: --timeout must be a whole number of seconds from 1 to 86400, not '%s'", timeout);
	char *bin = cli_belay_http("http login");
	if (!bin)
		return EXIT_USAGE;
	const char *args[20];
	int k = 0;
	args[k++] = bin;
	args[k++] = "--upstream";
	args[k++] = url;
	args[k++] = "--login";
	if (state)
		args[k++] = "--state", args[k++] = state;
	if (client_id)
		args[k++] = "--client-id", args[k++] = client_id;
	if (redirect_port)
		args[k++] = "--redirect-port", args[k++] = redirect_port;
	if (scope)
		args[k++] = "--scope", args[k++] = scope;
	if (timeout)
		args[k++] = "--timeout", args[k++] = timeout;
	if (no_browser)
		args[k++] = "--no-browser";
	args[k] = NULL;
	fflush(NULL);
	execv(bin, (char *const *)args);
	int en = errno;
	free(bin);
	return cli_fail("http login: cannot run belay-http: %s", strerror(en));
}

int cmd_http(int argc, char **argv)
{
	if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		cli_help(&cli_http, argc < 2 ? stderr : stdout);
		return argc < 2 ? EXIT_USAGE : 0;
	}
	if (!strcmp(argv[1], "login"))
		return http_login(argc - 1, argv + 1);
	return cli_fail("http: unknown subcommand '%s' (belay http --help)", argv[1]);
}
