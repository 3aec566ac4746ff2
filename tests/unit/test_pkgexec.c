/* test_pkgexec.c - launcher-style servers under containment (src/pkgexec), driven by the
 * real SDK client, offline from any registry:
 *   - `npx -y TARBALL` of the pinned server-filesystem (a registry-free tarball of the
 *     installed peer: tests/peers/pack-offline.mjs, its dependencies bundled, plus install
 *     scripts that would leave a mark): npm fetches it with scripts off (no mark), the
 *     installed entry point runs contained and serves the client; `npm exec` and `pnpm dlx`
 *     for the same package reuse that install (pnpm itself is not needed: npm resolves);
 *   - `npx NAME` in a project that has the package: its own install, nothing fetched;
 *   - `uvx --from WHEEL`: pip installs the wheel (wheels only), the console script runs
 *     contained (a write outside the scope is refused and recorded); a source distribution
 *     is refused before pip runs (its setup.py never runs);
 *   - options belay cannot honour are refused by name; npm inside the sandbox writes its
 *     cache in the sandbox cache, not ~/.npm (no "sudo chown" failure).
 * What it proves: the npx path works contained by design with no registry and no install
 * script; what it does not: a fetch from registry.npmjs.org (the same npm command with the
 * registry in reach; see docs/THREAT_MODEL.md for the commands). */
#include <criterion/criterion.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/fsutil.h"
#include "common/jsonx.h"
#include "common/xalloc.h"
#include "trace/trace_model.h"
#include "trace/trace_reader.h"
#include "ts_belay.h"
#include "ts_life.h"
#include "tsupport.h"

static char *dir, *peers, *cache, *cache_env;

static void setup(void)
{
	peers = ts_peers();
	cr_assert_not_null(peers, "npm test peers missing: run scripts/setup.sh (npm ci in tests/peers)");
	dir = ts_tmpdir("pkgexec");
	cache = fs_join(dir, "cache");
	cache_env = xasprintf("BELAY_CACHE_DIR=%s", cache);
}

static void teardown(void)
{
	ts_rmtree(dir);
	free(dir);
	free(peers);
	free(cache);
	free(cache_env);
}

TestSuite(pkgexec, .init = setup, .fini = teardown, .timeout = 300);

/* The server-start record of the one trace in tdir (a duplicate, caller deletes). */
static cJSON *server_start(const char *tdir)
{
	char *path = ts_find_trace(tdir);
	cr_assert_not_null(path, "one trace in %s", tdir);
	struct trace *t = NULL;
	struct err e = {0};
	cr_assert_eq(trace_read(path, &t, &e), 0, "%s", e.msg);
	cJSON *s = cJSON_Duplicate(trace_server_start(t), 1);
	cr_assert_not_null(s);
	trace_free(t);
	free(path);
	return s;
}

/* Runs the client (mode) against `belay proxy --scope ws ... -- launcher...` with the
 * registry out of reach; returns the client's JSON and the trace's server-start record. */
static cJSON *through_launcher(const char *mode, const char *ws, const char *cwd, const char *const *launcher,
			       const char *tag, const char *extra_opt, const char *extra_val, cJSON **start,
			       struct ts_out *o)
{
	char *tdir = xasprintf("%s/tr-%s", dir, tag), *st = fs_join(dir, "st");
	const char *server[32];
	int k = 0;
	server[k++] = BELAY_BIN;
	server[k++] = "proxy";
	server[k++] = "--scope";
	server[k++] = ws;
	server[k++] = "--state";
	server[k++] = st;
	server[k++] = "--trace-dir";
	server[k++] = tdir;
	server[k++] = "--";
	for (const char *const *a = launcher; *a; a++)
		server[k++] = *a;
	server[k] = NULL;
	/* A first fetch counts against the client's wait for initialize: a generous one here. */
	const char *opts[] = {"--cwd", cwd, "--ws", ws, "--timeout", "150000", "--env", cache_env, "--env",
			      "npm_config_offline=true", "--env", "npm_config_registry=http://127.0.0.1:9/", "--env",
			      "PIP_NO_INDEX=1", extra_opt, extra_val, NULL};
	cJSON *doc = ts_life_client(NULL, mode, opts, server, o);
	*start = server_start(tdir);
	free(tdir);
	free(st);
	return doc;
}

static const char *launch_str(const cJSON *start, const char *path)
{
	return ts_life_str(cJSON_GetObjectItemCaseSensitive(start, "launch"), path);
}

Test(pkgexec, npx_npm_exec_and_pnpm_dlx_of_a_registry_free_tarball_run_contained_with_scripts_off)
{
	char *ws = fs_join(dir, "ws"), *tgz = fs_join(dir, "server-filesystem.tgz"), *mark = fs_join(dir, "SCRIPT-RAN");
	fs_mkdir_p(ws, 0700, NULL);
	cr_assert_eq(ts_sh("node %s/tests/peers/pack-offline.mjs @modelcontextprotocol/server-filesystem %s --marker %s >/dev/null",
			   BELAY_SOURCE_DIR, tgz, mark),
		     0);
	struct ts_out o;
	cJSON *start;
	const char *npx[] = {"npx", "-y", tgz, ws, NULL};
	cJSON *doc = through_launcher("fs", ws, ws, npx, "npx", NULL, NULL, &start, &o);
	char *all = cJSON_PrintUnformatted(doc);
	cr_assert(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(doc, "connected")), "%s\n%s", all, o.err);
	cr_assert(strstr(all, "hello"), "the server wrote and read in the workspace: %s", all);
	cr_assert_neq(access(mark, F_OK), 0, "no install script ran");
	cr_assert(strstr(o.err, "belay: npx: fetching"), "%s", o.err);
	/* What ran, contained: the installed entry point, recorded with where it came from. */
	cr_assert_str_eq(launch_str(start, "tool"), "npx");
	cr_assert_str_eq(launch_str(start, "source"), "installed");
	cr_assert_str_eq(launch_str(start, "install_scripts"), "not run");
	const cJSON *pkg = cJSON_GetArrayItem(jx_path(start, "launch.packages"), 0);
	cr_assert_str_eq(jx_str(pkg, "name"), "@modelcontextprotocol/server-filesystem");
	cr_assert_str_eq(jx_str(pkg, "version"), "2026.8.31");
	const char *argv0 = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(start, "argv"), 0)->valuestring;
	char *pkgroot = fs_join(cache, "pkgexec");
	cr_assert(fs_is_under(argv0, pkgroot), "%s runs from belay's install (%s)", argv0, pkgroot);
	cr_assert(strstr(argv0, "@modelcontextprotocol/server-filesystem/dist/index.js"), "%s", argv0);
	cr_assert(cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(start, "sandbox")), "contained");
	char *sbcache = fs_join(cache, "sandbox");
	/* one cache per scope and network policy, beneath <cache>/sandbox (sandbox_cache.h) */
	cr_assert(fs_is_under(ts_life_str(start, "sandbox.cache"), sbcache), "%s", ts_life_str(start, "sandbox.cache"));
	cJSON_Delete(doc);
	cJSON_Delete(start);
	ts_out_free(&o);
	free(all);

	/* The same package through npm exec and pnpm dlx: the install is reused. */
	const char *npm_exec[] = {"npm", "exec", "--yes", "--package", tgz, "--", "mcp-server-filesystem", ws, NULL};
	const char *pnpm_dlx[] = {"pnpm", "dlx", "--package=", NULL, NULL, NULL};
	char *pkg_opt = xasprintf("--package=%s", tgz);
	pnpm_dlx[2] = pkg_opt;
	pnpm_dlx[3] = "mcp-server-filesystem";
	pnpm_dlx[4] = ws;
	const char *const *forms[] = {npm_exec, pnpm_dlx};
	const char *tags[] = {"npm-exec", "pnpm-dlx"}, *tools[] = {"npm exec", "pnpm dlx"};
	for (int i = 0; i < 2; i++) {
		doc = through_launcher("fs", ws, ws, forms[i], tags[i], NULL, NULL, &start, &o);
		all = cJSON_PrintUnformatted(doc);
		cr_assert(strstr(all, "hello"), "%s: %s\n%s", tags[i], all, o.err);
		cr_assert_str_eq(launch_str(start, "tool"), tools[i]);
		cr_assert_str_eq(launch_str(start, "source"), "reused", "%s", tags[i]);
		cr_assert_null(strstr(o.err, "fetching"), "%s fetched again: %s", tags[i], o.err);
		cJSON_Delete(doc);
		cJSON_Delete(start);
		ts_out_free(&o);
		free(all);
	}
	cr_assert_neq(access(mark, F_OK), 0, "no install script ran");
	free(pkg_opt);
	free(sbcache);
	free(pkgroot);
	free(ws);
	free(tgz);
	free(mark);
}

Test(pkgexec, npx_in_a_project_that_has_the_package_uses_it_as_installed)
{
	char *ws = fs_join(dir, "ws"), *proj = fs_join(dir, "project"), *nm = fs_join(proj, "node_modules");
	fs_mkdir_p(ws, 0700, NULL);
	fs_mkdir_p(proj, 0700, NULL);
	cr_assert_eq(symlink(peers, nm), 0);
	struct ts_out o;
	cJSON *start;
	const char *npx[] = {"npx", "@modelcontextprotocol/server-filesystem", ws, NULL};
	cJSON *doc = through_launcher("fs", ws, proj, npx, "local", NULL, NULL, &start, &o);
	char *all = cJSON_PrintUnformatted(doc);
	cr_assert(strstr(all, "hello"), "%s\n%s", all, o.err);
	cr_assert_str_eq(launch_str(start, "source"), "local");
	cr_assert_null(strstr(o.err, "fetching"), "%s", o.err);
	char *real = realpath(peers, NULL);
	const char *argv0 = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(start, "argv"), 0)->valuestring;
	cr_assert(fs_is_under(argv0, real), "%s is the project's own install", argv0);
	cJSON_Delete(doc);
	cJSON_Delete(start);
	ts_out_free(&o);
	free(all);
	free(real);
	free(ws);
	free(proj);
	free(nm);
}

Test(pkgexec, uvx_of_a_wheel_runs_contained_and_a_source_distribution_is_refused)
{
	char *ws = fs_join(dir, "ws"), *py = fs_join(dir, "py"), *mark = fs_join(dir, "SETUP-RAN");
	fs_mkdir_p(ws, 0700, NULL);
	cr_assert_eq(ts_sh("python3 %s/tests/fixtures/make_wheel.py %s %s", BELAY_SOURCE_DIR, py, mark), 0);
	char *whl = fs_join(py, "belay_echo_mcp-1.0.0-py3-none-any.whl"), *sdist = fs_join(py, "belay_echo_mcp-1.0.0.tar.gz");
	/* On the root disk: the host's /tmp and /dev/shm are private tmpfs mounts inside the
	 * sandbox, where a write succeeds and is lost. */
	char *outside = xasprintf("/var/tmp/belay-test-pkgexec-outside-%d.txt", (int)getpid());
	unlink(outside);
	struct ts_out o;
	cJSON *start;
	const char *uvx[] = {"uvx", "--from", whl, "belay-echo-mcp", NULL};
	cJSON *doc = through_launcher("calls", ws, ws, uvx, "uvx", "--write", outside, &start, &o);
	char *all = cJSON_PrintUnformatted(doc);
	cr_assert(strstr(all, "Echo: hi"), "%s\n%s", all, o.err);
	cr_assert(strstr(all, "could not write"), "the write outside the scope was refused: %s", all);
	cr_assert_neq(access(outside, F_OK), 0);
	cr_assert_str_eq(launch_str(start, "tool"), "uvx");
	cr_assert_str_eq(launch_str(start, "entry"), "belay_echo_mcp:main");
	const cJSON *pkg = cJSON_GetArrayItem(jx_path(start, "launch.packages"), 0);
	cr_assert_str_eq(jx_str(pkg, "version"), "1.0.0");
	cJSON_Delete(doc);
	cJSON_Delete(start);
	ts_out_free(&o);
	free(all);

	/* A source distribution would run its setup.py to be built: refused before pip runs. */
	char *st = fs_join(dir, "st");
	const char *argv[] = {BELAY_BIN, "proxy", "--scope", ws, "--state", st, "--", "uvx", "--from", sdist,
			      "belay-echo-mcp", NULL};
	const char *env[] = {cache_env, "PIP_NO_INDEX=1", NULL};
	cr_assert_eq(ts_run(argv, env, ws, NULL, 0, 60, &o), 0);
	cr_assert_eq(o.status, 2, "%s", o.err);
	cr_assert(strstr(o.err, "is not a wheel: belay installs Python packages from wheels only"), "%s", o.err);
	cr_assert_neq(access(mark, F_OK), 0, "setup.py never ran");
	ts_out_free(&o);
	free(st);
	free(outside);
	free(whl);
	free(sdist);
	free(py);
	free(mark);
	free(ws);
}

Test(pkgexec, what_cannot_be_honoured_is_refused_by_name)
{
	char *ws = fs_join(dir, "ws"), *st = fs_join(dir, "st");
	fs_mkdir_p(ws, 0700, NULL);
	const char *argv[] = {BELAY_BIN, "proxy", "--scope", ws, "--state", st, "--", "npx", "-c", "echo hi", NULL};
	const char *env[] = {cache_env, NULL};
	struct ts_out o;
	cr_assert_eq(ts_run(argv, env, ws, NULL, 0, 60, &o), 0);
	cr_assert_eq(o.status, 2, "%s", o.err);
	cr_assert(strstr(o.err, "npx option -c cannot be honoured under containment"), "%s", o.err);
	ts_out_free(&o);
	free(ws);
	free(st);
}

/* Runs argv with its stdin kept open until it exits (a client that stays connected: the
 * proxy then never stops the server for a closed input, however slow the server is). */
static void run_connected(const char *const *argv, const char *const *env, const char *cwd, struct ts_out *o)
{
	int fds[3];
	pid_t pid = ts_spawn(argv, env, cwd, o, fds);
	cr_assert_gt(pid, 0);
	int out_open = 1, err_open = 1;
	while (out_open || err_open) {
		struct pollfd p[2] = {{fds[1], out_open ? POLLIN : 0, 0}, {fds[2], err_open ? POLLIN : 0, 0}};
		if (poll(p, 2, 120 * 1000) <= 0)
			break;
		if (p[0].revents)
			out_open = ts_read_some(fds[1], &o->out, &o->out_len);
		if (p[1].revents)
			err_open = ts_read_some(fds[2], &o->err, &o->err_len);
	}
	close(fds[0]);
	close(fds[1]);
	close(fds[2]);
	ts_reap(pid, o);
}

Test(pkgexec, npm_inside_the_sandbox_writes_the_sandbox_cache_not_home)
{
	/* npm contained (network allowed, as for `belay proxy --network allow -- npx ...`):
	 * its cache is the sandbox cache; the user's ~/.npm is never written (it is read-only
	 * there, and npm failed on it with a misleading "sudo chown" hint). */
	char *ws = fs_join(dir, "ws"), *st = fs_join(dir, "st"), *home = fs_join(dir, "home"), *tdir = fs_join(dir, "tr");
	char *dotnpm = fs_join(home, ".npm");
	fs_mkdir_p(ws, 0700, NULL);
	fs_mkdir_p(dotnpm, 0700, NULL);
	char *tgz = fs_join(ws, "pkg.tgz"); /* in view: the host's /dev/shm is hidden from the server */
	cr_assert_eq(ts_sh("mkdir -p %s/p/package && printf '{\"name\":\"belay-t\",\"version\":\"1.0.0\"}' > "
			   "%s/p/package/package.json && tar czf %s -C %s/p package",
			   dir, dir, tgz, dir),
		     0);
	char *script = xasprintf("npm config get cache; npm cache add %s --offline && echo CACHED", tgz);
	char *home_env = xasprintf("HOME=%s", home);
	const char *argv[] = {BELAY_BIN, "proxy", "--scope", ws, "--network", "allow", "--state", st, "--trace-dir", tdir,
			      "--", "sh", "-c", script, NULL};
	const char *env[] = {cache_env, home_env, NULL};
	struct ts_out o;
	run_connected(argv, env, ws, &o);
	/* npm config get cache: <cache>/sandbox/<policy>-<hash>/npm (one cache per scope and policy) */
	char *sbroot = xasprintf("%s/sandbox/allow-", cache);
	const char *at = strstr(o.out, sbroot), *nl = at ? strchr(at, '\n') : NULL;
	cr_assert(at && nl && nl - at > 4 && !strncmp(nl - 4, "/npm", 4), "npm's cache inside is the sandbox's: %s\n%s",
		  o.out, o.err);
	char *npmcache = xstrndup(at, (size_t)(nl - at));
	free(sbroot);
	cr_assert(strstr(o.out, "CACHED"), "%s\n%s", o.out, o.err);
	cr_assert_null(strstr(o.err, "sudo chown"), "%s", o.err);
	char *cacache = fs_join(npmcache, "_cacache");
	struct stat sb;
	cr_assert_eq(stat(cacache, &sb), 0, "the sandbox cache holds npm's content");
	char *listing = ts_tree_listing(dotnpm);
	cr_assert_str_eq(listing, "", "~/.npm untouched: %s", listing);
	free(listing);
	free(cacache);
	free(npmcache);
	ts_out_free(&o);
	free(script);
	free(home_env);
	free(tgz);
	free(dotnpm);
	free(home);
	free(tdir);
	free(ws);
	free(st);
}

Test(pkgexec, a_package_that_cannot_be_fetched_answers_the_agents_initialize_with_the_cause)
{
	/* Issue 35: a launcher whose package cannot be fetched (the registry, on loopback,
	 * refuses the connection) used to end belay with status 2 and the reason only on its
	 * stderr, which agents hide; the agent's initialize waited for nothing. Now belay
	 * answers it with an error naming the package and the cause, and records it. */
	char *ws = fs_join(dir, "ws"), *st = fs_join(dir, "st"), *tdir = fs_join(dir, "tr");
	fs_mkdir_p(ws, 0700, NULL);
	const char *server[] = {BELAY_BIN, "proxy",	   "--scope", ws, "--state", st, "--trace-dir", tdir, "--",
				"npx",	   "-y",	   "belay-no-such-package-35", NULL};
	const char *opts[] = {"--cwd", ws, "--timeout", "150000", "--env", cache_env, "--env",
			      "npm_config_registry=http://127.0.0.1:1/", "--env", "npm_config_fetch_retries=0", NULL};
	struct ts_out o;
	cJSON *doc = ts_life_client(NULL, "start", opts, server, &o);
	char *all = cJSON_PrintUnformatted(doc);
	cr_assert(cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(doc, "connected")), "%s", all);
	const cJSON *err = cJSON_GetObjectItemCaseSensitive(doc, "connect_error");
	cr_assert_eq(ts_life_num(err, "code"), -32000, "belay's answer, not the SDK's timeout or a closed pipe: %s\n%s",
		     all, o.err);
	cr_assert_str_eq(ts_life_str(err, "data.belay.reason"), "server_not_started", "%s", all);
	const char *msg = ts_life_str(err, "message");
	cr_assert(strstr(msg, "belay-no-such-package-35"), "the message names the package: %s", msg);
	cr_assert(strstr(msg, "npm could not fetch"), "and the cause: %s", msg);
	cr_assert(strstr(msg, "ECONNREFUSED"), "npm's line that says why, not its last one: %s", msg);
	cr_assert(strstr(o.err, "belay: the MCP server could not start"), "%s", o.err);
	/* The trace holds the request and belay's answer in the server's place. */
	char *path = ts_find_trace(tdir);
	cr_assert_not_null(path, "a trace in %s", tdir);
	struct trace *t = NULL;
	struct err e = {0};
	cr_assert_eq(trace_read(path, &t, &e), 0, "%s", e.msg);
	cr_assert_eq(trace_validate(t, &e), 0, "%s", e.msg);
	int answered = 0;
	for (size_t i = 0; i < t->n; i++)
		if (t->recs[i].belay_reason && !strcmp(t->recs[i].belay_reason, "server_not_started"))
			answered++;
	cr_assert_eq(answered, 1, "initialize answered by belay in the trace");
	cr_assert(strstr(ts_life_str(trace_server_start(t), "not_started"), "belay-no-such-package-35"),
		  "the start record says why the server never ran");
	trace_free(t);
	free(path);
	free(all);
	cJSON_Delete(doc);
	ts_out_free(&o);
	free(ws);
	free(st);
	free(tdir);
}
