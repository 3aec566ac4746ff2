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
 * write: it is hostile, and what it may say is exactly this list. For `yarn dlx`, yarn's own
 * fetch settings (.yarnrc.yml of the user and of the project) are translated into the same
 * keys, or refused by name when they cannot be (per-scope registries). */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/buf.h"
#include "common/child.h"
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

/* npm answers `config get` in well under a second; one that hangs is not waited for. */
#define NPM_CONFIG_TIMEOUT_MS 30000u

/* `npm config get globalconfig userconfig` in dir: the two paths npm would read (new
 * strings, NULL when npm did not say). */
static void ask_npm(const char *npm, const char *dir, char **global, char **user)
{
	*global = *user = NULL;
	char *const argv[] = {(char *)npm, "config", "get", "globalconfig", "userconfig", NULL};
	char **envp = environ_filtered(NULL, 1); /* where the files are: the user's own setting */
	struct child_spec sp = CHILD_SPEC_INIT;
	sp.argv = argv;
	sp.envp = envp;
	sp.cwd = dir;
	sp.out = CHILD_CAPTURE;
	sp.out_cap = 65536;
	sp.timeout_ms = NPM_CONFIG_TIMEOUT_MS;
	struct buf out = {0};
	struct child_result res;
	struct err e = {0};
	if (child_run(&sp, &out, &res, &e) < 0 || res.timed_out)
		out.len = 0; /* npm did not say */
	free(envp);
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

/* A YAML scalar on one line (quoted or bare), into out. 0 when it is not one. */
static int yaml_scalar(const char *v, size_t n, struct buf *out)
{
	while (n && isspace((unsigned char)*v))
		v++, n--;
	while (n && isspace((unsigned char)v[n - 1]))
		n--;
	if (n >= 2 && (v[0] == '"' || v[0] == '\'') && v[n - 1] == v[0]) {
		v++;
		n -= 2;
	} else if (!n || *v == '[' || *v == '{' || *v == '|' || *v == '>' || *v == '&' || *v == '*') {
		return 0;
	}
	if (memchr(v, '\n', n) || memchr(v, '\0', n))
		return 0;
	buf_append(out, v, n);
	return 1;
}

/* Yarn's own fetch settings in a .yarnrc.yml, as npmrc lines: npmRegistryServer (registry),
 * httpProxy, httpsProxy, caFilePath (cafile), enableStrictSsl (strict-ssl) and npmAuthToken
 * (for the registry named). Top-level one-line scalars only; per-scope or per-registry
 * settings (npmScopes, npmRegistries) are refused by name rather than dropped. */
static int yarnrc_translate(const char *text, size_t len, const char *origin, struct buf *out, struct err *e)
{
	static const struct {
		const char *yarn, *npm;
	} keys[] = {{"npmRegistryServer", "registry"}, {"httpProxy", "proxy"},	       {"httpsProxy", "https-proxy"},
		    {"caFilePath", "cafile"},	       {"enableStrictSsl", "strict-ssl"}, {NULL, NULL}};
	struct buf token = {0}, registry = {0};
	int kept = 0, rc = 0, lineno = 0;
	for (const char *p = text, *end = text + len; p < end && rc == 0;) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *a = p, *b = nl ? nl : end;
		p = nl ? nl + 1 : end;
		lineno++;
		if (a < b && (*a == ' ' || *a == '\t' || *a == '#' || *a == '-'))
			continue; /* nested, a comment, a list item */
		const char *colon = memchr(a, ':', (size_t)(b - a));
		if (!colon)
			continue;
		size_t kn = (size_t)(colon - a);
		if ((kn == 9 && !memcmp(a, "npmScopes", 9)) || (kn == 13 && !memcmp(a, "npmRegistries", 13))) {
			rc = err_set(e, BELAY_EINVAL,
				     "%s line %d: %.*s is not translated for belay's npm: refusing rather than fetching from "
				     "another registry (set the registry in .npmrc, or run the package yourself)",
				     origin, lineno, (int)kn, a);
			break;
		}
		struct buf v = {0};
		if (kn == 12 && !memcmp(a, "npmAuthToken", 12)) {
			if (yaml_scalar(colon + 1, (size_t)(b - colon - 1), &v))
				buf_append(&token, v.p, v.len);
		} else {
			for (int i = 0; keys[i].yarn; i++)
				if (strlen(keys[i].yarn) == kn && !memcmp(a, keys[i].yarn, kn) &&
				    yaml_scalar(colon + 1, (size_t)(b - colon - 1), &v)) {
					if (!kept++)
						buf_printf(out, "; from %s\n", origin);
					buf_printf(out, "%s=%s\n", keys[i].npm, buf_cstr(&v));
					if (!strcmp(keys[i].npm, "registry")) {
						buf_reset(&registry);
						buf_append(&registry, v.p, v.len);
					}
				}
		}
		buf_free(&v);
	}
	if (rc == 0 && token.len) {
		/* the token belongs to the registry named: //HOST/PATH/:_authToken */
		const char *r = registry.len ? buf_cstr(&registry) : "https://registry.yarnpkg.com";
		const char *sl = strstr(r, "//");
		const char *hostpath = sl ? sl : r;
		size_t hl = strlen(hostpath);
		buf_printf(out, "%.*s%s:_authToken=%s\n", (int)hl, hostpath, hl && hostpath[hl - 1] == '/' ? "" : "/",
			   buf_cstr(&token));
	}
	buf_free(&token);
	buf_free(&registry);
	return rc;
}

int pkgexec_npmrc_write(const char *npm, const char *cwd, const char *neutral_dir, int yarn, const char *path,
			struct err *e)
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
	int rc = 0;
	/* yarn dlx: yarn's own settings (the user's, then the project's) come last: they win */
	for (int i = 0; yarn && i < 2 && rc == 0; i++) {
		const char *home = getenv("HOME");
		char *yp = i == 0 ? (home ? fs_join(home, ".yarnrc.yml") : NULL) : (proj_dir ? fs_join(proj_dir, ".yarnrc.yml") : NULL);
		struct buf b = {0};
		struct err le = {0};
		struct stat st;
		if (yp && stat(yp, &st) == 0 && S_ISREG(st.st_mode) && fs_read_file(yp, RC_MAX, &b, &le) == 0)
			rc = yarnrc_translate(b.p ? b.p : "", b.len, yp, &out, e);
		buf_free(&b);
		free(yp);
	}
	if (rc == 0)
		rc = fs_write_file_atomic(path, out.p, out.len, 0600, e);
	buf_free(&out);
	free(global);
	free(user);
	free(proj_dir);
	free(project);
	return rc;
}
