/* pkgexec_npmrc.c - the registry setup npm would use without belay, for belay's own npm.
 *
 * belay's npm runs with --prefix (its own install directory), which makes npm read its global
 * configuration from <that prefix>/etc/npmrc and ignore the project's .npmrc: a registry
 * mirror, a CA file, a proxy or a token the user set up there would be dropped. So the three
 * files npm would read without belay - the global one of the user's npm (asked of npm itself,
 * in a neutral directory), the user's (~/.npmrc or npm_config_userconfig) and the project's
 * (<the project root npm would find from the server's cwd>/.npmrc) - are read here, and only
 * the keys that say where and how to fetch are kept, in that order (a later file wins, as in
 * npm): registry and scoped registries, CA (cafile, ca), strict-ssl, proxies and auth. Keys
 * that move files or run things (cache, prefix, globalconfig, userconfig, script-shell,
 * node-options, git, ignore-scripts, ...) stay belay's. belay's npm then reads that file as
 * its user configuration and nothing as its global one. The project's file is the agent's to
 * write: it is hostile, and what it may say is exactly this list. */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/buf.h"
#include "common/fsutil.h"
#include "common/xalloc.h"
#include "pkgexec/pkgexec.h"

extern char **environ;

#define RC_MAX ((size_t)1 << 20)

int pkgexec_npmrc_allowed(const char *key, size_t n)
{
	static const char *const plain[] = {"registry", "cafile", "ca", "ca[]", "strict-ssl", "proxy", "https-proxy",
					    "http-proxy", "noproxy", "no-proxy", "cert", "key", "_auth", "_authToken",
					    "username", "_password", "email", "always-auth", NULL};
	static const char *const nerfed[] = {"_authToken", "_auth", "username", "_password", "email", "certfile",
					     "keyfile", "always-auth", NULL};
	for (const char *const *p = plain; *p; p++)
		if (strlen(*p) == n && !memcmp(*p, key, n))
			return 1;
	/* @scope:registry */
	if (n > 10 && key[0] == '@' && !memcmp(key + n - 9, ":registry", 9) && !memchr(key, '/', n))
		return 1;
	/* //host/path/:_authToken and the other per-registry credentials */
	if (n > 3 && key[0] == '/' && key[1] == '/') {
		const char *colon = NULL;
		for (size_t i = 0; i < n; i++)
			if (key[i] == ':')
				colon = key + i;
		if (colon)
			for (const char *const *p = nerfed; *p; p++)
				if (strlen(*p) == (size_t)(key + n - colon - 1) && !memcmp(*p, colon + 1, strlen(*p)))
					return 1;
	}
	return 0;
}

int pkgexec_npm_env_allowed(const char *entry)
{
	if (strncasecmp(entry, "npm_config_", 11))
		return 1;
	const char *k = entry + 11, *eq = strchr(k, '=');
	size_t n = eq ? (size_t)(eq - k) : strlen(k);
	char key[256];
	if (n >= sizeof key)
		return 0;
	/* npm reads npm_config_https_proxy as https-proxy; scoped and per-registry keys cannot
	 * be spelled in the environment in a way npm maps back, so they are not kept */
	for (size_t i = 0; i < n; i++)
		key[i] = k[i] == '_' && i > 0 ? '-' : (char)tolower((unsigned char)k[i]);
	key[n] = '\0';
	if (!strcmp(key, "_authtoken"))
		return 1;
	return key[0] != '@' && key[0] != '/' && pkgexec_npmrc_allowed(key, n);
}

/* Appends the allowed root-level lines of one npmrc text to out. */
static void keep_allowed(const char *text, size_t len, const char *origin, struct buf *out)
{
	const char *p = text, *end = text + len;
	int in_section = 0, kept = 0;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *stop = nl ? nl : end;
		const char *a = p, *b = stop;
		p = nl ? nl + 1 : end;
		while (a < b && isspace((unsigned char)*a))
			a++;
		while (b > a && isspace((unsigned char)b[-1]))
			b--;
		if (a == b || *a == ';' || *a == '#')
			continue;
		if (*a == '[') {
			in_section = 1; /* npm reads no section of an npmrc */
			continue;
		}
		if (in_section || memchr(a, '\0', (size_t)(b - a)))
			continue;
		const char *eq = memchr(a, '=', (size_t)(b - a));
		if (!eq)
			continue;
		const char *ke = eq;
		while (ke > a && isspace((unsigned char)ke[-1]))
			ke--;
		if (!pkgexec_npmrc_allowed(a, (size_t)(ke - a)))
			continue;
		if (!kept++)
			buf_printf(out, "; from %s\n", origin);
		buf_append(out, a, (size_t)(b - a));
		buf_putc(out, '\n');
	}
}

/* npm's project root from cwd: the nearest directory up holding package.json or
 * node_modules, else cwd itself. New string. */
static char *local_prefix(const char *cwd)
{
	char *d = xstrdup(cwd);
	for (;;) {
		struct stat st;
		char *pj = fs_join(d, "package.json"), *nm = fs_join(d, "node_modules");
		int found = stat(pj, &st) == 0 || stat(nm, &st) == 0;
		free(pj);
		free(nm);
		if (found)
			return d;
		char *slash = strrchr(d, '/');
		if (!slash || slash == d)
			break;
		*slash = '\0';
	}
	free(d);
	return xstrdup(cwd);
}

/* 1 for npm_config_prefix, _globalconfig and _userconfig (any case): where npm's own
 * configuration files are, which belay must know to read them. */
static int names_a_config_file(const char *entry)
{
	static const char *const keys[] = {"prefix=", "globalconfig=", "userconfig=", NULL};
	if (strncasecmp(entry, "npm_config_", 11))
		return 0;
	for (const char *const *k = keys; *k; k++)
		if (!strncasecmp(entry + 11, *k, strlen(*k)))
			return 1;
	return 0;
}

static char **environ_filtered(const char *const *extra, int with_locations)
{
	size_t ne = 0, nx = 0;
	while (environ[ne])
		ne++;
	while (extra && extra[nx])
		nx++;
	char **v = xcalloc(ne + nx + 1, sizeof *v);
	size_t k = 0;
	for (size_t i = 0; i < ne; i++)
		if (pkgexec_npm_env_allowed(environ[i]) || (with_locations && names_a_config_file(environ[i])))
			v[k++] = environ[i];
	for (size_t i = 0; i < nx; i++)
		v[k++] = (char *)extra[i];
	return v;
}

/* The environment belay's npm gets: ours without the npm_config_* keys it must not take. */
char **pkgexec_npm_environ(const char *const *extra)
{
	return environ_filtered(extra, 0);
}

/* `npm config get globalconfig userconfig` in dir: the two paths npm would read (new
 * strings, NULL when npm did not say). */
static void ask_npm(const char *npm, const char *dir, char **global, char **user)
{
	*global = *user = NULL;
	int pfd[2];
	if (pipe2(pfd, O_CLOEXEC) != 0)
		return;
	posix_spawn_file_actions_t fa;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_adddup2(&fa, pfd[1], 1);
	posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
	posix_spawn_file_actions_addchdir_np(&fa, dir);
	char *const argv[] = {(char *)npm, "config", "get", "globalconfig", "userconfig", NULL};
	char **envp = environ_filtered(NULL, 1); /* where the files are: the user's own setting */
	pid_t pid;
	int rc = posix_spawn(&pid, npm, &fa, NULL, argv, envp);
	posix_spawn_file_actions_destroy(&fa);
	free(envp);
	close(pfd[1]);
	struct buf out = {0};
	if (rc == 0) {
		char tmp[4096];
		ssize_t r;
		while (out.len < 65536 && ((r = read(pfd[0], tmp, sizeof tmp)) > 0 || (r < 0 && errno == EINTR)))
			if (r > 0)
				buf_append(&out, tmp, (size_t)r);
		int st;
		while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
			;
	}
	close(pfd[0]);
	const char *s = buf_cstr(&out);
	for (const char *l = s; l && *l;) {
		const char *nl = strchr(l, '\n');
		size_t n = nl ? (size_t)(nl - l) : strlen(l);
		if (n > 13 && !strncmp(l, "globalconfig=", 13) && !*global)
			*global = xstrndup(l + 13, n - 13);
		else if (n > 11 && !strncmp(l, "userconfig=", 11) && !*user)
			*user = xstrndup(l + 11, n - 11);
		l = nl ? nl + 1 : NULL;
	}
	buf_free(&out);
}

int pkgexec_npmrc_write(const char *npm, const char *cwd, const char *neutral_dir, const char *path, struct err *e)
{
	char *global, *user;
	ask_npm(npm, neutral_dir, &global, &user);
	char *proj_dir = cwd ? local_prefix(cwd) : NULL;
	char *project = proj_dir ? fs_join(proj_dir, ".npmrc") : NULL;
	const char *files[3] = {global, user, project};
	const char *names[3] = {"the global configuration", "the user configuration", "the project configuration"};
	struct buf out = {0};
	buf_puts(&out, "; belay: the registry, CA, proxy and auth keys of npm's own configuration files\n");
	for (int i = 0; i < 3; i++) {
		if (!files[i] || files[i][0] != '/')
			continue;
		struct buf b = {0};
		struct err le = {0};
		struct stat st;
		if (stat(files[i], &st) == 0 && S_ISREG(st.st_mode) && fs_read_file(files[i], RC_MAX, &b, &le) == 0) {
			char *origin = xasprintf("%s, %s", names[i], files[i]);
			keep_allowed(b.p ? b.p : "", b.len, origin, &out);
			free(origin);
		}
		buf_free(&b);
	}
	int rc = fs_write_file_atomic(path, out.p, out.len, 0600, e);
	buf_free(&out);
	free(global);
	free(user);
	free(proj_dir);
	free(project);
	return rc;
}
