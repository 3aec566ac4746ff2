/* mcpcfg.c - agent clients' MCP configurations: the table, the snippets, reading installed
 * ones back. See mcpcfg.h. */
#include "mcpcfg/mcpcfg.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/xalloc.h"

static const struct mcpcfg_info clients[MCPC_COUNT] = {
	[MCPC_CLAUDE_CODE] = {"claude-code", "Claude Code (.mcp.json in the project)", MCPF_JSON, "mcpServers",
			      {".mcp.json", NULL}},
	[MCPC_CLAUDE_CLI] = {"claude-code-cli", "Claude Code (a shell: claude mcp add)", MCPF_SHELL, NULL, {NULL}},
	[MCPC_CURSOR] = {"cursor", "Cursor (~/.cursor/mcp.json, or .cursor/mcp.json in the project)", MCPF_JSON,
			 "mcpServers", {"~/.cursor/mcp.json", ".cursor/mcp.json", NULL}},
	[MCPC_VSCODE] = {"vscode", "VS Code (.vscode/mcp.json in the project)", MCPF_JSON, "servers",
			 {".vscode/mcp.json", NULL}},
	[MCPC_CODEX] = {"codex", "Codex (~/.codex/config.toml)", MCPF_TOML, "mcp_servers",
			{"~/.codex/config.toml", NULL}},
	[MCPC_WINDSURF] = {"windsurf", "Windsurf (~/.codeium/windsurf/mcp_config.json)", MCPF_JSON, "mcpServers",
			   {"~/.codeium/windsurf/mcp_config.json", NULL}},
	[MCPC_ZED] = {"zed", "Zed (~/.config/zed/settings.json)", MCPF_JSON, "context_servers",
		      {"~/.config/zed/settings.json", NULL}},
	[MCPC_GEMINI] = {"gemini-cli", "Gemini CLI (.gemini/settings.json, or ~/.gemini/settings.json)",
			 MCPF_JSON, "mcpServers", {".gemini/settings.json", "~/.gemini/settings.json", NULL}},
};

const struct mcpcfg_info *mcpcfg_info(enum mcpcfg_client c)
{
	return (unsigned)c < MCPC_COUNT ? &clients[c] : NULL;
}

int mcpcfg_parse(const char *id)
{
	for (int i = 0; i < MCPC_COUNT; i++)
		if (!strcmp(id, clients[i].id))
			return i;
	return -1;
}

int mcpcfg_name_ok(enum mcpcfg_client c, const char *name, const char **why)
{
	*why = NULL;
	if (c == MCPC_GEMINI && strchr(name, '_')) {
		*why = "Gemini CLI calls a server's tools mcp_<server>_<tool> and reads the server's name up to the first "
		       "'_': a name with '_' finds no server";
		return 0;
	}
	return 1;
}

void mcpcfg_connect_argv(const char *belay, const char *socket_path, const char *out[4])
{
	out[0] = belay;
	out[1] = "connect";
	out[2] = socket_path;
	out[3] = NULL;
}

/*==== writing ====*/

static void json_str(struct buf *b, const char *s)
{
	cJSON *j = cJSON_CreateString(s);
	char *t = cJSON_PrintUnformatted(j);
	buf_puts(b, t);
	cJSON_free(t);
	cJSON_Delete(j);
}

static void json_snippet(enum mcpcfg_client c, const char *name, const char *const *argv, struct buf *b)
{
	buf_printf(b, "{\n  \"%s\": {\n    ", clients[c].key);
	json_str(b, name);
	buf_puts(b, ": {\n");
	if (c == MCPC_VSCODE)
		buf_puts(b, "      \"type\": \"stdio\",\n");
	if (c == MCPC_ZED)
		buf_puts(b, "      \"source\": \"custom\",\n");
	buf_puts(b, "      \"command\": ");
	json_str(b, argv[0]);
	buf_puts(b, ",\n      \"args\": [");
	for (size_t i = 1; argv[i]; i++) {
		if (i > 1)
			buf_puts(b, ", ");
		json_str(b, argv[i]);
	}
	buf_puts(b, "]");
	if (c == MCPC_ZED)
		buf_puts(b, ",\n      \"env\": {}");
	buf_puts(b, "\n    }\n  }\n}\n");
}

/* A TOML basic string. */
static void toml_str(struct buf *b, const char *s)
{
	buf_putc(b, '"');
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if (*p == '"' || *p == '\\')
			buf_printf(b, "\\%c", *p);
		else if (*p == '\n')
			buf_puts(b, "\\n");
		else if (*p == '\t')
			buf_puts(b, "\\t");
		else if (*p < 0x20 || *p == 0x7f)
			buf_printf(b, "\\u%04x", *p);
		else
			buf_putc(b, (char)*p);
	}
	buf_putc(b, '"');
}

/* A TOML key: bare when it is only A-Za-z0-9_-, else quoted. */
static void toml_key(struct buf *b, const char *s)
{
	int bare = *s != '\0';
	for (const char *p = s; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') || *p == '_' ||
		      *p == '-'))
			bare = 0;
	if (bare)
		buf_puts(b, s);
	else
		toml_str(b, s);
}

static void toml_snippet(const char *name, const char *const *argv, struct buf *b)
{
	buf_puts(b, "[mcp_servers.");
	toml_key(b, name);
	buf_puts(b, "]\ncommand = ");
	toml_str(b, argv[0]);
	buf_puts(b, "\nargs = [");
	for (size_t i = 1; argv[i]; i++) {
		if (i > 1)
			buf_puts(b, ", ");
		toml_str(b, argv[i]);
	}
	buf_puts(b, "]\n");
}

/* One word for a POSIX shell: as is when it holds nothing special, else single-quoted. */
static void sh_word(struct buf *b, const char *s)
{
	int plain = *s != '\0';
	for (const char *p = s; *p; p++)
		if (!strchr("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_@%+=:,./-", *p))
			plain = 0;
	if (plain) {
		buf_puts(b, s);
		return;
	}
	buf_putc(b, '\'');
	for (const char *p = s; *p; p++) {
		if (*p == '\'')
			buf_puts(b, "'\\''");
		else
			buf_putc(b, *p);
	}
	buf_putc(b, '\'');
}

void mcpcfg_snippet(enum mcpcfg_client c, const char *name, const char *const *argv, struct buf *out)
{
	switch (clients[c].format) {
	case MCPF_JSON: json_snippet(c, name, argv, out); break;
	case MCPF_TOML: toml_snippet(name, argv, out); break;
	case MCPF_SHELL:
		buf_puts(out, "claude mcp add ");
		sh_word(out, name);
		buf_puts(out, " --");
		for (size_t i = 0; argv[i]; i++) {
			buf_putc(out, ' ');
			sh_word(out, argv[i]);
		}
		buf_putc(out, '\n');
		break;
	}
}

/* The key under which each client takes a server's URL (an MCP server over HTTP). */
static const char *url_key(enum mcpcfg_client c)
{
	switch (c) {
	case MCPC_WINDSURF: return "serverUrl";
	case MCPC_GEMINI: return "httpUrl";
	default: return "url";
	}
}

void mcpcfg_snippet_url(enum mcpcfg_client c, const char *name, const char *url, struct buf *out)
{
	switch (clients[c].format) {
	case MCPF_JSON:
		buf_printf(out, "{\n  \"%s\": {\n    ", clients[c].key);
		json_str(out, name);
		buf_puts(out, ": {\n");
		if (c == MCPC_VSCODE || c == MCPC_CLAUDE_CODE)
			buf_puts(out, "      \"type\": \"http\",\n");
		if (c == MCPC_ZED)
			buf_puts(out, "      \"source\": \"custom\",\n");
		buf_printf(out, "      \"%s\": ", url_key(c));
		json_str(out, url);
		buf_puts(out, "\n    }\n  }\n}\n");
		break;
	case MCPF_TOML:
		buf_puts(out, "[mcp_servers.");
		toml_key(out, name);
		buf_puts(out, "]\nurl = ");
		toml_str(out, url);
		buf_puts(out, "\n");
		break;
	case MCPF_SHELL:
		buf_puts(out, "claude mcp add --transport http ");
		sh_word(out, name);
		buf_putc(out, ' ');
		sh_word(out, url);
		buf_putc(out, '\n');
		break;
	}
}

/*==== reading ====*/

/* The index of the first byte at or after i that is neither a blank nor inside a comment;
 * n when none; SIZE_MAX inside an unterminated block comment. */
static size_t skip_blank(const char *s, size_t i, size_t n)
{
	while (i < n) {
		if (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r') {
			i++;
		} else if (s[i] == '/' && i + 1 < n && s[i + 1] == '/') {
			while (i < n && s[i] != '\n')
				i++;
		} else if (s[i] == '/' && i + 1 < n && s[i + 1] == '*') {
			const char *end = memmem(s + i + 2, n - i - 2, "*/", 2);
			if (!end)
				return SIZE_MAX;
			i = (size_t)(end - s) + 2;
		} else {
			break;
		}
	}
	return i;
}

cJSON *mcpcfg_parse_json(const char *text, size_t len)
{
	/* Comments and trailing commas out, strings untouched. (Not cJSON_Minify: it takes the
	 * closing quote of "C:\\" for an escaped one and then strips blanks inside strings.) */
	char *s = xstrndup(text, len);
	size_t n = strlen(s), w = 0;
	int in_str = 0;
	for (size_t r = 0; r < n; r++) {
		char ch = s[r];
		if (in_str) {
			if (ch == '\\' && r + 1 < n) {
				s[w++] = ch;
				ch = s[++r];
			} else if (ch == '"') {
				in_str = 0;
			}
		} else if (ch == '"') {
			in_str = 1;
		} else if (ch == '/' && r + 1 < n && (s[r + 1] == '/' || s[r + 1] == '*')) {
			size_t next = skip_blank(s, r, n);
			if (next == SIZE_MAX) {
				free(s);
				return NULL; /* an unterminated comment */
			}
			r = next - 1;
			ch = ' ';
		} else if (ch == ',') {
			size_t next = skip_blank(s, r + 1, n);
			if (next < n && (s[next] == '}' || s[next] == ']'))
				continue;
		}
		s[w++] = ch;
	}
	s[w] = '\0';
	cJSON *j = cJSON_Parse(s);
	free(s);
	return j;
}

void mcpcfg_entries_free(struct mcpcfg_entry *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(v[i].name);
		free(v[i].command);
		for (char **a = v[i].args; a && *a; a++)
			free(*a);
		free(v[i].args);
	}
	free(v);
}

int mcpcfg_entries(enum mcpcfg_client c, const cJSON *doc, struct mcpcfg_entry **out, size_t *n, struct err *e)
{
	*out = NULL;
	*n = 0;
	const char *key = clients[c].key;
	if (!key)
		return err_set(e, BELAY_EINVAL, "%s keeps no configuration file", clients[c].id);
	if (!cJSON_IsObject(doc))
		return err_set(e, BELAY_EINVAL, "the file is not a JSON object");
	const cJSON *servers = cJSON_GetObjectItemCaseSensitive(doc, key);
	if (!servers)
		return 0;
	if (!cJSON_IsObject(servers))
		return err_set(e, BELAY_EINVAL, "\"%s\" is not an object of servers", key);
	size_t cap = (size_t)cJSON_GetArraySize(servers);
	struct mcpcfg_entry *v = xcalloc(cap ? cap : 1, sizeof *v);
	size_t k = 0;
	/* An error names x->name, so it is set before the entries are freed. */
	for (const cJSON *s = servers->child; s; s = s->next, k++) {
		struct mcpcfg_entry *x = &v[k];
		x->name = xstrdup(s->string ? s->string : "");
		if (!cJSON_IsObject(s)) {
			int rc = err_set(e, BELAY_EINVAL, "server \"%s\" is not an object", x->name);
			mcpcfg_entries_free(v, k + 1);
			return rc;
		}
		const cJSON *cmd = cJSON_GetObjectItemCaseSensitive(s, "command");
		const cJSON *args = cJSON_GetObjectItemCaseSensitive(s, "args");
		if (cmd && !cJSON_IsString(cmd)) {
			int rc = err_set(e, BELAY_EINVAL, "server \"%s\": \"command\" is not a string", x->name);
			mcpcfg_entries_free(v, k + 1);
			return rc;
		}
		if (args && !cJSON_IsArray(args)) {
			int rc = err_set(e, BELAY_EINVAL, "server \"%s\": \"args\" is not an array", x->name);
			mcpcfg_entries_free(v, k + 1);
			return rc;
		}
		x->command = cmd ? xstrdup(cmd->valuestring) : NULL;
		x->args = xcalloc((size_t)cJSON_GetArraySize(args) + 1, sizeof *x->args);
		size_t i = 0;
		for (const cJSON *a = args ? args->child : NULL; a; a = a->next) {
			if (!cJSON_IsString(a)) {
				int rc = err_set(e, BELAY_EINVAL, "server \"%s\": an argument is not a string", x->name);
				mcpcfg_entries_free(v, k + 1);
				return rc;
			}
			x->args[i++] = xstrdup(a->valuestring);
		}
	}
	*out = v;
	*n = k;
	return 0;
}
