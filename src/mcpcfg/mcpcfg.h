/* mcpcfg.h - the MCP server configuration of each agent client belay knows (Claude Code,
 * Cursor, VS Code, Codex, Windsurf, Zed, Gemini CLI): where the client reads it, and the one place that
 * writes the snippet which makes a client start belay as a stdio server. `belay snippet`,
 * the console's `:snippet` and docs/CONSOLE.md all come from mcpcfg_snippet; `belay doctor`
 * reads the installed files back with mcpcfg_entries.
 *
 * A snippet carries everything an agent-spawned server needs on its command line (the
 * absolute path of belay, the console's socket or --state): an agent starts servers with a
 * minimal environment, so nothing set in the user's shell (BELAY_STATE_DIR) reaches them.
 *
 * Must not: write any client's configuration (snippets are printed; the user pastes them),
 * run a client. Threads: any; no state. */
#ifndef BELAY_MCPCFG_MCPCFG_H
#define BELAY_MCPCFG_MCPCFG_H
#include <cjson/cJSON.h>

#include "common/buf.h"
#include "common/err.h"

enum mcpcfg_client {
	MCPC_CLAUDE_CODE = 0, /* .mcp.json (project) */
	MCPC_CLAUDE_CLI,      /* `claude mcp add` */
	MCPC_CURSOR,          /* ~/.cursor/mcp.json or .cursor/mcp.json */
	MCPC_VSCODE,          /* .vscode/mcp.json: "servers", "type": "stdio" */
	MCPC_CODEX,           /* ~/.codex/config.toml: [mcp_servers.NAME] */
	MCPC_WINDSURF,        /* ~/.codeium/windsurf/mcp_config.json */
	MCPC_ZED,             /* ~/.config/zed/settings.json: "context_servers" */
	MCPC_GEMINI,          /* .gemini/settings.json or ~/.gemini/settings.json: "mcpServers"; Gemini CLI
			       * names tools mcp_<server>_<tool> and splits at the first '_', so a
			       * server name must not hold one (mcpcfg_name_ok) */
	MCPC_COUNT
};

enum mcpcfg_format { MCPF_JSON = 0, MCPF_TOML, MCPF_SHELL };

struct mcpcfg_info {
	const char *id;    /* what `belay snippet ID` takes: "claude-code", "codex", ... */
	const char *title; /* "Claude Code (.mcp.json in the project)" */
	enum mcpcfg_format format;
	const char *key;   /* the JSON object (or TOML table) holding the servers: "mcpServers" */
	/* Where the client reads it: "~/" is the home directory, anything else is relative to
	 * the project directory. NULL-terminated; empty for the shell form. */
	const char *files[3];
};

const struct mcpcfg_info *mcpcfg_info(enum mcpcfg_client c);
/* The client named id (an mcpcfg_info id), or -1. */
int mcpcfg_parse(const char *id);
/* 1 when client c can call a server by this name (Gemini CLI: no '_'), else 0 with *why. */
int mcpcfg_name_ok(enum mcpcfg_client c, const char *name, const char **why);

/* Appends to out the snippet that makes client c start argv[0] argv[1..] (argv[0] should be
 * an absolute path) as the stdio server `name`. JSON and TOML are complete documents of
 * their file (merge them into an existing one by hand); the shell form is one command line,
 * quoted for a POSIX shell. Ends with a newline. */
void mcpcfg_snippet(enum mcpcfg_client c, const char *name, const char *const *argv, struct buf *out);

/* The same for a server the client reaches over HTTP at url (belay's HTTP listener: `belay
 * proxy --http`, docs/HTTP.md): each client's own form ("type": "http" and "url", Windsurf's
 * "serverUrl", Gemini CLI's "httpUrl", Codex's url =, `claude mcp add --transport http`). */
void mcpcfg_snippet_url(enum mcpcfg_client c, const char *name, const char *url, struct buf *out);

/* The argv of a snippet that connects an agent to the console listening at socket_path,
 * belay being `belay` (absolute path). Borrowed strings; out must hold 4 pointers. */
void mcpcfg_connect_argv(const char *belay, const char *socket_path, const char *out[4]);

/* One server of an installed configuration. */
struct mcpcfg_entry {
	char *name;
	char *command;  /* NULL when the entry has none (a URL server) */
	char **args;    /* NULL-terminated */
};

/* Reads the servers of a parsed configuration document (the JSON of a JSON file, or the
 * JSON form of a TOML file) of client c: 0 with the entries in *out and their number in *n (mcpcfg_entries_free), or a named
 * error when the document does not have the shape the client reads. A document without the
 * servers key has no entries (not an error). */
int mcpcfg_entries(enum mcpcfg_client c, const cJSON *doc, struct mcpcfg_entry **out, size_t *n, struct err *e);
void mcpcfg_entries_free(struct mcpcfg_entry *v, size_t n);

/* Parses a JSON configuration file's text as the clients do: line and block comments (VS
 * Code and Zed allow them) and trailing commas are accepted. NULL when it is not JSON. */
cJSON *mcpcfg_parse_json(const char *text, size_t len);

#endif
