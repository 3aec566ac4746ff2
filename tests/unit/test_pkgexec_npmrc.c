/* test_pkgexec_npmrc.c - issue 35 (1): belay's npm (outside the sandbox, scripts off, its
 * own --prefix) resolves a launcher package with the registry setup npm would use without
 * belay: the global configuration of the user's npm prefix, the user's ~/.npmrc (an auth
 * token there), the project's .npmrc - but only the keys that say where and how to fetch
 * (registry, scoped registries, CA, proxies, auth). A registry on loopback
 * (tests/fixtures/tiny_registry.py) serves one packed package; the user's and the machine's
 * npm configuration are never touched (a private prefix and userconfig per test). */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <signal.h>
#include <sys/wait.h>
#include <dirent.h>
#include <unistd.h>

#include "common/fsutil.h"
#include "common/jsonx.h"
#include "common/xalloc.h"
#include "pkgexec/pkgexec.h"
#include "tsupport.h"

static char *dir, *ws, *prefix, *userrc, *log_path;
static pid_t reg_pid = -1;
static int reg_in = -1, port;

static void setup(void)
{
	dir = ts_outside_dir("npmrc");
	ws = fs_join(dir, "ws");
	prefix = fs_join(dir, "npm-prefix");
	userrc = fs_join(dir, "user-npmrc");
	log_path = fs_join(dir, "registry.log");
	ts_sh("mkdir -p '%s' '%s/etc' && : > '%s'", ws, prefix, userrc);
	char *cache = fs_join(dir, "belay-cache");
	setenv("BELAY_CACHE_DIR", cache, 1);
	free(cache);
	/* the user's npm, as this test's user has it: a private prefix and user config */
	setenv("npm_config_prefix", prefix, 1);
	setenv("npm_config_userconfig", userrc, 1);
	unsetenv("npm_config_registry");
	unsetenv("NPM_CONFIG_REGISTRY");
	setenv("npm_config_fetch_retries", "0", 1);
	setenv("npm_config_update_notifier", "false", 1);
}

static void teardown(void)
{
	if (reg_pid > 0) {
		close(reg_in);
		int st;
		waitpid(reg_pid, &st, 0);
		reg_pid = -1;
	}
	ts_rmtree(dir);
	free(dir);
	free(ws);
	free(prefix);
	free(userrc);
	free(log_path);
}

TestSuite(npmrc, .init = setup, .fini = teardown, .timeout = 180);

static void registry(const char *name, const char *token)
{
	char *py = xasprintf("%s/tests/fixtures/tiny_registry.py", BELAY_SOURCE_DIR);
	const char *argv[] = {"python3", "-B", py, name, "1.0.0", log_path, token, NULL};
	struct ts_out o;
	int fds[3];
	reg_pid = ts_spawn(argv, NULL, dir, &o, fds);
	cr_assert_gt(reg_pid, 0);
	reg_in = fds[0];
	char *buf = NULL;
	size_t len = 0;
	while (!buf || !strchr(buf, '\n'))
		cr_assert(ts_read_some(fds[1], &buf, &len), "the registry did not start");
	port = atoi(buf);
	free(buf);
	close(fds[1]);
	close(fds[2]);
	ts_out_free(&o);
	free(py);
}

/* pkgexec_resolve of `npx -y SPEC` from the workspace: 0 or the error (message in e). */
static int resolve(const char *spec, struct pkgexec_plan *plan, struct err *e)
{
	char *const argv[] = {"npx", "-y", (char *)spec, NULL};
	struct pkgexec_opts o = {.cwd = ws, .stderr_fd = -1};
	memset(plan, 0, sizeof *plan);
	return pkgexec_resolve(argv, &o, plan, e);
}

static void write_rc(const char *path, const char *fmt, int p)
{
	char *text = xasprintf(fmt, p, p);
	ts_write_file(path, text, strlen(text));
	free(text);
}

/* The registry for `name`, named by the global configuration of the user's npm prefix. */
static void registry_in_global_config(const char *name)
{
	registry(name, NULL);
	char *g = fs_join(prefix, "etc/npmrc");
	write_rc(g, "registry=http://127.0.0.1:%d/\n", port);
	free(g);
}

static char *registry_log(void)
{
	size_t len;
	char *t = ts_read_file(log_path, &len);
	return t ? t : xstrdup("");
}

Test(npmrc, the_global_configuration_of_the_users_npm_prefix_names_the_registry)
{
	registry("belay-tiny-35", NULL);
	char *g = fs_join(prefix, "etc/npmrc");
	write_rc(g, "registry=http://127.0.0.1:%d/\n", port);
	struct pkgexec_plan plan;
	struct err e = {0};
	int rc = resolve("belay-tiny-35@1.0.0", &plan, &e);
	char *l = registry_log();
	cr_assert_eq(rc, 0, "npx through belay ignored the global npmrc of the user's prefix: %s (registry saw: %s)", e.msg, l);
	cr_assert(strstr(l, "GET /belay-tiny-35 authorised"), "%s", l);
	cr_assert(strstr(plan.argv[plan.argv[1] ? 1 : 0], "bin.js") || strstr(jx_print(plan.launch), "belay-tiny-35"), "%s",
		  jx_print(plan.launch));
	pkgexec_plan_free(&plan);
	free(l);
	free(g);
}

Test(npmrc, the_projects_npmrc_names_the_registry)
{
	registry("belay-tiny-35b", NULL);
	char *p = fs_join(ws, ".npmrc");
	write_rc(p, "registry=http://127.0.0.1:%d/\n", port);
	struct pkgexec_plan plan;
	struct err e = {0};
	int rc = resolve("belay-tiny-35b@1.0.0", &plan, &e);
	char *l = registry_log();
	cr_assert_eq(rc, 0, "npx through belay ignored the project's .npmrc: %s (registry saw: %s)", e.msg, l);
	pkgexec_plan_free(&plan);
	free(l);
	free(p);
}

Test(npmrc, an_auth_token_of_the_users_npmrc_reaches_the_registry)
{
	registry("@belay/tiny-35c", "s3cret-token");
	char *g = fs_join(prefix, "etc/npmrc");
	write_rc(g, "@belay:registry=http://127.0.0.1:%d/\n", port);
	write_rc(userrc, "//127.0.0.1:%d/:_authToken=s3cret-token\n", port);
	struct pkgexec_plan plan;
	struct err e = {0};
	int rc = resolve("@belay/tiny-35c@1.0.0", &plan, &e);
	char *l = registry_log();
	cr_assert_eq(rc, 0, "%s (registry saw: %s)", e.msg, l);
	cr_assert_null(strstr(l, "unauthorised"), "%s", l);
	pkgexec_plan_free(&plan);
	free(l);
	free(g);
}

Test(npmrc, keys_that_move_files_or_run_things_stay_belays)
{
	/* a project .npmrc and the environment that would move npm's cache (and with it what
	 * belay's npm writes) elsewhere: belay's own cache is used, neither place is created */
	registry("belay-tiny-35d", NULL);
	char *elsewhere = fs_join(dir, "agent-cache"), *env_cache = fs_join(dir, "env-cache");
	char *p = fs_join(ws, ".npmrc");
	char *text = xasprintf("registry=http://127.0.0.1:%d/\ncache=%s\nprefix=%s/p\nglobalconfig=%s/g\n", port, elsewhere,
			       dir, dir);
	ts_write_file(p, text, strlen(text));
	setenv("npm_config_cache", env_cache, 1);
	struct pkgexec_plan plan;
	struct err e = {0};
	int rc = resolve("belay-tiny-35d@1.0.0", &plan, &e);
	cr_assert_eq(rc, 0, "%s", e.msg);
	struct stat st;
	cr_assert_neq(stat(elsewhere, &st), 0, "the project's cache= was honoured");
	cr_assert_neq(stat(env_cache, &st), 0, "the environment's npm_config_cache was honoured");
	char *pp = xasprintf("%s/p", dir);
	cr_assert_neq(stat(pp, &st), 0, "the project's prefix= was honoured");
	pkgexec_plan_free(&plan);
	free(pp);
	free(text);
	free(p);
	free(elsewhere);
	free(env_cache);
}

Test(npmrc, which_keys_are_taken)
{
	static const char *const yes[] = {"registry", "@acme:registry", "cafile", "ca", "ca[]", "strict-ssl", "proxy",
					  "https-proxy", "noproxy", "//npm.acme.example/:_authToken",
					  "//npm.acme.example/path/:username", "//h/:certfile", NULL};
	static const char *const no[] = {"cache", "prefix", "globalconfig", "userconfig", "script-shell", "node-options",
					 "git", "ignore-scripts", "onload-script", "init-module", "//h/:cache", "@acme:cache",
					 "registryx", "@a/b:registry", "", NULL};
	for (const char *const *k = yes; *k; k++)
		cr_expect(pkgexec_npmrc_allowed(*k, strlen(*k)), "%s should be taken", *k);
	for (const char *const *k = no; *k; k++)
		cr_expect(!pkgexec_npmrc_allowed(*k, strlen(*k)), "%s must stay belay's", *k);
	cr_expect(pkgexec_npm_env_allowed("npm_config_registry=http://x/"));
	cr_expect(pkgexec_npm_env_allowed("NPM_CONFIG_HTTPS_PROXY=http://p:3128/"));
	cr_expect(pkgexec_npm_env_allowed("npm_config_strict_ssl=false"));
	cr_expect(pkgexec_npm_env_allowed("PATH=/usr/bin"));
	cr_expect(!pkgexec_npm_env_allowed("npm_config_script_shell=/tmp/evil"));
	cr_expect(!pkgexec_npm_env_allowed("NPM_CONFIG_NODE_OPTIONS=--require=/tmp/evil.js"));
	cr_expect(!pkgexec_npm_env_allowed("npm_config_git=/tmp/evil"));
	cr_expect(!pkgexec_npm_env_allowed("npm_config_cache=/elsewhere"));
}

/*==== issue 35 (3): a slow first fetch, an agent that stops waiting, a retry ====*/

/* The one install directory under belay's cache, once ready (waits up to 90 s); new string. */
static char *ready_dir(int wait)
{
	char *base = fs_join(dir, "belay-cache/pkgexec");
	for (int i = 0; i < 900; i++) {
		DIR *d = opendir(base);
		for (struct dirent *de; d && (de = readdir(d));) {
			if (strncmp(de->d_name, "npm-", 4) || strchr(de->d_name, '.'))
				continue;
			char *p = xasprintf("%s/%s/.belay-ready", base, de->d_name);
			struct stat st;
			int ok = stat(p, &st) == 0;
			free(p);
			if (ok) {
				char *r = xasprintf("%s/%s", base, de->d_name);
				closedir(d);
				free(base);
				return r;
			}
		}
		if (d)
			closedir(d);
		if (!wait)
			break;
		usleep(100 * 1000);
	}
	free(base);
	return NULL;
}

static int count(const char *hay, const char *needle)
{
	int n = 0;
	for (const char *p = hay; (p = strstr(p, needle)); p++)
		n++;
	return n;
}

/* Waits (up to 60 s) until the registry log holds needle. */
static void wait_log(const char *needle)
{
	for (int i = 0; i < 600; i++) {
		char *l = registry_log();
		int hit = strstr(l, needle) != NULL;
		free(l);
		if (hit)
			return;
		usleep(100 * 1000);
	}
	cr_assert_fail("the registry never saw %s", needle);
}

/* A child resolving spec, as a belay started by the agent would. */
static pid_t resolve_in_child(const char *spec)
{
	pid_t pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0) {
		struct pkgexec_plan plan;
		struct err e = {0};
		_exit(resolve(spec, &plan, &e) == 0 ? 0 : 1);
	}
	return pid;
}

Test(npmrc, a_fetch_the_agent_stopped_waiting_for_finishes_and_the_next_start_reuses_it)
{
	setenv("TINY_REGISTRY_DELAY_S", "3", 1);
	registry_in_global_config("belay-tiny-35e");
	pid_t first = resolve_in_child("belay-tiny-35e@1.0.0");
	wait_log("GET /belay-tiny-35e/-/");
	kill(first, SIGKILL); /* the agent gave up and killed belay mid-fetch */
	int st;
	waitpid(first, &st, 0);
	char *d = ready_dir(1);
	cr_assert_not_null(d, "the fetch did not go on after belay was killed");
	struct pkgexec_plan plan;
	struct err e = {0};
	cr_assert_eq(resolve("belay-tiny-35e@1.0.0", &plan, &e), 0, "%s", e.msg);
	cr_assert_str_eq(jx_str(plan.launch, "source"), "reused", "%s", jx_print(plan.launch));
	char *l = registry_log();
	cr_assert_eq(count(l, "GET /belay-tiny-35e/-/"), 1, "fetched once: %s", l);
	free(l);
	pkgexec_plan_free(&plan);
	free(d);
}

Test(npmrc, a_retry_attaches_to_the_fetch_under_way)
{
	setenv("TINY_REGISTRY_DELAY_S", "3", 1);
	registry_in_global_config("belay-tiny-35f");
	pid_t first = resolve_in_child("belay-tiny-35f@1.0.0");
	wait_log("GET /belay-tiny-35f/-/");
	setenv("BELAY_FETCH_WAIT_S", "120", 1);
	struct pkgexec_plan plan;
	struct err e = {0};
	cr_assert_eq(resolve("belay-tiny-35f@1.0.0", &plan, &e), 0, "%s", e.msg);
	int st;
	waitpid(first, &st, 0);
	cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0, "the first start failed");
	char *l = registry_log();
	cr_assert_eq(count(l, "GET /belay-tiny-35f/-/"), 1, "the retry did not fetch again: %s", l);
	free(l);
	pkgexec_plan_free(&plan);
}

Test(npmrc, a_retry_that_cannot_wait_longer_says_still_fetching)
{
	setenv("TINY_REGISTRY_DELAY_S", "4", 1);
	registry_in_global_config("belay-tiny-35g");
	pid_t first = resolve_in_child("belay-tiny-35g@1.0.0");
	wait_log("GET /belay-tiny-35g/-/");
	setenv("BELAY_FETCH_WAIT_S", "0", 1);
	struct pkgexec_plan plan;
	struct err e = {0};
	cr_assert_neq(resolve("belay-tiny-35g@1.0.0", &plan, &e), 0);
	cr_assert_eq(e.code, BELAY_ETIMEOUT, "%d %s", e.code, e.msg);
	cr_assert(strstr(e.msg, "still fetching") && strstr(e.msg, "try again"), "%s", e.msg);
	int st;
	waitpid(first, &st, 0);
	cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0, "the first start failed");
}
