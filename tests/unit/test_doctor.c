/* test_doctor.c - `belay doctor` names what is wrong with its fix and exits 1, and says
 * everything is fine (exit 0) once fixed: a state directory open to others, a database
 * that is not one, agent configurations that do not parse or start a belay that is not
 * there, and ones made by `belay snippet` (which must pass, TOML read by python3's tomllib).
 * The whole run (sandbox layers included) passes on this machine. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/fsutil.h"
#include "common/jsonx.h"
#include "common/xalloc.h"
#include "tsupport.h"

static char *dir, *home, *state, *sock;

static void setup(void)
{
	dir = ts_tmpdir("doctor");
	home = fs_join(dir, "home");
	state = fs_join(dir, "state");
	sock = fs_join(dir, "run/console.sock");
	ts_sh("mkdir -p %s/.codex %s/.cursor %s/.codeium/windsurf %s && chmod 700 %s", home, home, home, state, state);
}

static void teardown(void)
{
	ts_rmtree(dir);
	free(dir), free(home), free(state), free(sock);
}

TestSuite(doctor, .init = setup, .fini = teardown, .timeout = 180);

/* Runs doctor --json [--check NAME]; returns the exit status and the findings. */
static int doctor(const char *check, cJSON **findings)
{
	char h[600];
	snprintf(h, sizeof h, "HOME=%s", home);
	const char *env[] = {h, NULL};
	const char *argv[] = {BELAY_BIN, "doctor", "--json", "--state", state, "--socket", sock, check ? "--check" : NULL,
			      check, NULL};
	struct ts_out o;
	cr_assert_eq(ts_run(argv, env, dir, NULL, 0, 120, &o), 0);
	*findings = cJSON_CreateArray();
	for (char *l = o.out, *nl; l && *l; l = nl ? nl + 1 : NULL) {
		nl = strchr(l, '\n');
		if (nl)
			*nl = '\0';
		cJSON *j = cJSON_Parse(l);
		cr_assert_not_null(j, "each line is JSON: %s", l);
		cJSON_AddItemToArray(*findings, j);
	}
	int st = o.status;
	ts_out_free(&o);
	return st;
}

/* The finding whose "what" contains s (and status st, unless NULL). */
static const cJSON *finding(const cJSON *all, const char *s, const char *st)
{
	for (const cJSON *f = all->child; f; f = f->next)
		if (strstr(jx_str(f, "what"), s) && (!st || !strcmp(jx_str(f, "status"), st)))
			return f;
	char *t = jx_print(all);
	cr_assert_fail("no finding '%s' (%s) in %s", s, st ? st : "any", t);
	return NULL;
}

static void put(const char *rel, const char *text)
{
	char *p = fs_join(home, rel);
	ts_write_file(p, text, strlen(text));
	free(p);
}

Test(doctor, names_each_problem_with_its_fix_and_passes_once_fixed)
{
	/* Problems. */
	cr_assert_eq(ts_sh("chmod 755 %s", state), 0);
	char *db = fs_join(state, "belay.db");
	ts_write_file(db, "this is not a database, just bytes to fail the check", 52);
	put(".cursor/mcp.json", "{\"mcpServers\": {\"belay\": {\"command\": \"belay\", \"args\": [\"connect\"]}},,}");
	put(".codeium/windsurf/mcp_config.json",
	      "{\"mcpServers\": {\"b\": {\"command\": \"/nonexistent/bin/belay\", \"args\": [\"connect\"]}}}");
	cJSON *f;
	cr_assert_eq(doctor("dirs", &f), 1, "a failing check exits 1");
	const cJSON *x = finding(f, "is mode 0755: others can reach it", "fail");
	cr_assert(strstr(jx_str(x, "fix"), "chmod 700"), "with its fix");
	cJSON_Delete(f);
	cr_assert_eq(doctor("store", &f), 1);
	finding(f, "not a readable SQLite database", "fail");
	cJSON_Delete(f);
	cr_assert_eq(doctor("agents", &f), 1);
	finding(f, ".cursor/mcp.json does not parse", "fail");
	x = finding(f, "/nonexistent/bin/belay, which does not exist", "fail");
	cr_assert(strstr(jx_str(x, "fix"), "belay snippet windsurf"), "%s", jx_str(x, "fix"));
	cJSON_Delete(f);

	/* Fixed: what belay snippet writes passes, TOML and JSON alike. */
	cr_assert_eq(ts_sh("chmod 700 %s && rm -f %s", state, db), 0);
	struct ts_out o;
	const char *a1[] = {BELAY_BIN, "snippet", "codex", "--socket", sock, NULL};
	cr_assert_eq(ts_run(a1, NULL, NULL, NULL, 0, 30, &o), 0);
	put(".codex/config.toml", o.out);
	ts_out_free(&o);
	const char *a2[] = {BELAY_BIN, "snippet", "cursor", "--socket", sock, NULL};
	cr_assert_eq(ts_run(a2, NULL, NULL, NULL, 0, 30, &o), 0);
	put(".cursor/mcp.json", o.out);
	ts_out_free(&o);
	char *ws = fs_join(home, ".codeium/windsurf/mcp_config.json");
	unlink(ws);
	free(ws);
	cr_assert_eq(doctor("agents", &f), 0);
	finding(f, ".codex/config.toml: server \"belay\" runs this belay (connect", "ok");
	finding(f, ".cursor/mcp.json: server \"belay\" runs this belay (connect", "ok");
	cJSON_Delete(f);
	/* The whole doctor on this machine: containment works here, nothing fails. */
	int st = doctor(NULL, &f);
	char *t = jx_print(f);
	cr_assert_eq(st, 0, "%s", t);
	finding(f, "landlock", "ok");
	finding(f, "no database yet", "ok");
	free(t);
	cJSON_Delete(f);
	free(db);
}

Test(doctor, warns_of_a_contained_server_installed_where_the_sandbox_does_not_look)
{
	/* Issue 35: a server installed under /tmp (or /dev/shm) dies contained: the script,
	 * named on the command line, stays in view, what lies beside it does not. */
	char *cfg = xasprintf("{\"mcpServers\": {\"tmpsrv\": {\"command\": \"%s\", \"args\": [\"proxy\", \"--state\", \"%s\", "
			      "\"--scope\", \"%s\", \"--\", \"node\", \"/tmp/belay-t35-srv/dist/index.js\"]}, "
			      "\"shown\": {\"command\": \"%s\", \"args\": [\"proxy\", \"--state\", \"%s\", \"--scope\", \"%s\", "
			      "\"--expose\", \"/dev/shm\", \"--\", \"node\", \"/dev/shm/srv/index.js\"]}}}",
			      BELAY_BIN, state, home, BELAY_BIN, state, home);
	put(".cursor/mcp.json", cfg);
	cJSON *f;
	doctor("agents", &f);
	const cJSON *x = finding(f, "/tmp/belay-t35-srv/dist/index.js", "warn");
	cr_assert(strstr(jx_str(x, "what"), "tmpsrv"), "%s", jx_str(x, "what"));
	cr_assert(strstr(jx_str(x, "fix"), "--expose /tmp/belay-t35-srv"), "%s", jx_str(x, "fix"));
	/* an exposed one is not warned about */
	for (const cJSON *g = f->child; g; g = g->next)
		cr_assert_null(strstr(jx_str(g, "what"), "/dev/shm/srv"), "%s", jx_str(g, "what"));
	cJSON_Delete(f);
	free(cfg);
}
