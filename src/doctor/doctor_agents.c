/* doctor_agents.c - the agent clients' MCP configurations installed on this machine (the
 * files src/mcpcfg knows, in the home directory and the project directory, and Claude
 * Code's ~/.claude.json where `claude mcp add` writes): each must parse, and each server
 * that starts belay must start THIS belay (its command resolves to it), with a console
 * snippet naming the socket in use and a proxy snippet naming its --state. Reads only. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/embedded.h"
#include "common/fsutil.h"
#include "common/jsonx.h"
#include "common/xalloc.h"
#include "doctor/doctor.h"
#include "doctor/doctor_internal.h"
#include "sandbox/sandbox_conceal.h"
#include "mcpcfg/mcpcfg.h"

/* cJSON of a TOML text, via python3's tomllib (the embedded helper); NULL and why. */
static cJSON *toml_doc(const char *text, char *why, size_t n)
{
	const struct embedded_file *h = embedded_find("doctor/toml2json.py");
	char *py = fs_which("python3");
	if (!h || !py) {
		snprintf(why, n, "python3 is not on PATH (it reads TOML for this check)");
		free(py);
		return NULL;
	}
	const char *argv[] = {py, "-I", "-B", "-c", h->data, NULL};
	struct buf out = {0};
	int st = doctor_exec(argv, text, &out);
	free(py);
	cJSON *j = st == 0 && out.p ? cJSON_Parse(out.p) : NULL;
	buf_free(&out);
	cJSON *doc = j ? cJSON_DetachItemFromObjectCaseSensitive(j, "ok") : NULL;
	if (!doc)
		snprintf(why, n, "%s", j && jx_str(j, "error") ? jx_str(j, "error") : "python3 could not read it");
	cJSON_Delete(j);
	return doc;
}

static int is_belay(const char *cmd)
{
	const char *base = strrchr(cmd, '/');
	base = base ? base + 1 : cmd;
	return !strcmp(base, "belay");
}

/* `belay proxy ... -- SERVER...`: a path of the server's command line under /tmp or
 * /dev/shm (private inside the sandbox) or a concealed location stays in view itself, but
 * what lies beside it (a script's modules) does not: the server dies at start. */
static void check_hidden_paths(struct doctor_report *r, const char *file, const struct mcpcfg_entry *x)
{
	const char *scope = NULL;
	char **expose = xcalloc(1, sizeof *expose);
	size_t nx = 0;
	char **a = x->args + 1;
	for (; *a && strcmp(*a, "--"); a++) {
		const char *v = a[1];
		if ((!strcmp(*a, "--scope") || !strcmp(*a, "-S")) && v)
			scope = v;
		else if (!strncmp(*a, "--scope=", 8))
			scope = *a + 8;
		if (((!strcmp(*a, "--expose") || !strcmp(*a, "-X")) && v) || !strncmp(*a, "--expose=", 9)) {
			const char *p = (*a)[2] == 'e' && (*a)[8] == '=' ? *a + 9 : v;
			char *real = realpath(p, NULL);
			expose = xrealloc(expose, (nx + 2) * sizeof *expose);
			expose[nx++] = real ? real : xstrdup(p);
			expose[nx] = NULL;
		}
	}
	if (!scope && !getenv("BELAY_SANDBOX_SCOPE"))
		a = NULL; /* uncontained: it sees the host's /tmp */
	for (; a && *a; a++) {
		if ((*a)[0] != '/')
			continue;
		char *hider = sandbox_conceal_hider(*a, scope, expose);
		if (!hider)
			continue;
		size_t hl = strlen(hider);
		const char *rest = *a + hl + ((*a)[hl] == '/');
		size_t first = strcspn(rest, "/");
		char *dir = rest[first] == '/' ? xstrndup(*a, (size_t)(rest - *a) + first) : xstrdup(*a);
		char fix[700];
		snprintf(fix, sizeof fix, "install the server outside %s, or add --expose %s before the --", hider, dir);
		doctor_add(r, "agents", DOCTOR_WARN, fix,
			   "%s: server \"%s\" runs %s, under %s, which the contained server does not see: the path itself "
			   "stays in view, what lies beside it (its modules) does not, and it dies at start",
			   file, x->name, *a, hider);
		free(dir);
		free(hider);
	}
	for (size_t i = 0; i < nx; i++)
		free(expose[i]);
	free(expose);
}

static void check_entry(const struct doctor_ctx *c, struct doctor_report *r, const char *file, const char *client,
			const struct mcpcfg_entry *x)
{
	if (!x->command || !is_belay(x->command))
		return;
	char fix[600];
	const char *why;
	int k = mcpcfg_parse(client);
	if (k >= 0 && !mcpcfg_name_ok((enum mcpcfg_client)k, x->name, &why)) {
		snprintf(fix, sizeof fix, "rename it without '_' (belay snippet %s --name NAME)", client);
		doctor_add(r, "agents", DOCTOR_FAIL, fix, "%s: server \"%s\": %s", file, x->name, why);
	}
	snprintf(fix, sizeof fix, "belay snippet %s prints the entry with this belay's absolute path", client);
	char *found = strchr(x->command, '/') ? xstrdup(x->command) : fs_which(x->command);
	char *real = found ? realpath(found, NULL) : NULL, *self = realpath(c->self, NULL);
	if (!real) {
		doctor_add(r, "agents", DOCTOR_FAIL, fix, "%s: server \"%s\" runs %s, which %s", file, x->name, x->command,
			   strchr(x->command, '/') ? "does not exist" : "is not on PATH (agents may not search yours)");
	} else if (!self || strcmp(real, self)) {
		doctor_add(r, "agents", DOCTOR_WARN, fix, "%s: server \"%s\" runs %s, another belay than this one (%s)", file,
			   x->name, real, c->self);
	} else {
		const char *sub = x->args && x->args[0] ? x->args[0] : "";
		if (!strcmp(sub, "connect")) {
			const char *sock = x->args[1] && x->args[1][0] != '-' ? x->args[1] : NULL;
			if (!sock)
				doctor_add(r, "agents", DOCTOR_WARN, fix,
					   "%s: server \"%s\" runs belay connect without a socket: it finds the console only "
					   "where its default is the same as yours",
					   file, x->name);
			else if (strcmp(sock, c->socket_path))
				doctor_add(r, "agents", DOCTOR_WARN, "point it at the socket your console listens on",
					   "%s: server \"%s\" connects to %s, not to %s", file, x->name, sock, c->socket_path);
			else
				doctor_add(r, "agents", DOCTOR_OK, "", "%s: server \"%s\" runs this belay (connect %s)", file,
					   x->name, sock);
		} else if (!strcmp(sub, "proxy")) {
			int state = 0;
			for (char **a = x->args; *a; a++)
				state |= !strcmp(*a, "--state");
			doctor_add(r, "agents", state ? DOCTOR_OK : DOCTOR_WARN,
				   state ? "" : "add --state DIR: an agent-spawned proxy sees no BELAY_STATE_DIR of your shell",
				   "%s: server \"%s\" runs this belay (proxy%s)", file, x->name, state ? ", with --state" : "");
			check_hidden_paths(r, file, x);
		} else {
			doctor_add(r, "agents", DOCTOR_OK, "", "%s: server \"%s\" runs this belay (%s)", file, x->name, sub);
		}
	}
	free(found);
	free(real);
	free(self);
}

static void check_doc(const struct doctor_ctx *c, struct doctor_report *r, enum mcpcfg_client k, const char *file,
		      const cJSON *doc)
{
	struct mcpcfg_entry *v = NULL;
	size_t n = 0;
	struct err e = {0};
	if (mcpcfg_entries(k, doc, &v, &n, &e) != 0) {
		doctor_add(r, "agents", DOCTOR_FAIL, "fix the file by hand; belay snippet shows the shape its client reads",
			   "%s: %s", file, e.msg);
		return;
	}
	for (size_t i = 0; i < n; i++)
		check_entry(c, r, file, mcpcfg_info(k)->id, &v[i]);
	mcpcfg_entries_free(v, n);
}

static char *where(const struct doctor_ctx *c, const char *rel)
{
	if (!strncmp(rel, "~/", 2))
		return c->home ? fs_join(c->home, rel + 2) : NULL;
	return c->project_dir ? fs_join(c->project_dir, rel) : NULL;
}

void doctor_check_agents(const struct doctor_ctx *c, struct doctor_report *r)
{
	size_t before = r->n;
	int files = 0;
	for (int k = 0; k < MCPC_COUNT; k++) {
		const struct mcpcfg_info *in = mcpcfg_info((enum mcpcfg_client)k);
		for (int f = 0; in->files[f]; f++) {
			char *path = where(c, in->files[f]);
			struct buf t = {0};
			struct err e = {0};
			if (!path || access(path, F_OK) != 0 || fs_read_file(path, 8 << 20, &t, &e) != 0) {
				if (path && access(path, F_OK) == 0)
					doctor_add(r, "agents", DOCTOR_FAIL, "check its permissions", "%s: %s", path, e.msg);
				free(path);
				buf_free(&t);
				continue;
			}
			files++;
			buf_cstr(&t);
			char why[300] = "not JSON";
			cJSON *doc = in->format == MCPF_TOML ? toml_doc(t.p, why, sizeof why) : mcpcfg_parse_json(t.p, t.len);
			if (!doc)
				doctor_add(r, "agents", in->format == MCPF_TOML && strstr(why, "python3") ? DOCTOR_WARN : DOCTOR_FAIL,
					   in->format == MCPF_TOML && strstr(why, "python3")
						   ? "install python3 (3.11 or later) to let doctor read it"
						   : "fix the syntax; the client cannot read this file either",
					   "%s does not parse: %s", path, why);
			else
				check_doc(c, r, (enum mcpcfg_client)k, path, doc);
			cJSON_Delete(doc);
			buf_free(&t);
			free(path);
		}
	}
	/* Claude Code's own file: user-scope servers at the top, local-scope ones per project. */
	char *cj = c->home ? fs_join(c->home, ".claude.json") : NULL;
	struct buf t = {0};
	struct err e = {0};
	if (cj && access(cj, F_OK) == 0 && fs_read_file(cj, 64 << 20, &t, &e) == 0) {
		files++;
		cJSON *doc = cJSON_ParseWithLength(t.p ? t.p : "", t.len);
		if (!doc) {
			doctor_add(r, "agents", DOCTOR_FAIL, "fix the syntax; Claude Code cannot read it either",
				   "%s does not parse", cj);
		} else {
			check_doc(c, r, MCPC_CLAUDE_CODE, cj, doc);
			const cJSON *p = c->project_dir ? cJSON_GetObjectItemCaseSensitive(
								  cJSON_GetObjectItemCaseSensitive(doc, "projects"), c->project_dir)
							: NULL;
			if (p)
				check_doc(c, r, MCPC_CLAUDE_CODE, cj, p);
		}
		cJSON_Delete(doc);
	}
	buf_free(&t);
	free(cj);
	if (r->n == before)
		doctor_add(r, "agents", DOCTOR_OK, "",
			   files ? "no agent configuration starts belay (%d file(s) read; belay snippet CLIENT prints one)"
				 : "no agent configuration found (%d files; belay snippet CLIENT prints one)",
			   files);
}
