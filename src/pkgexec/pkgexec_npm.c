/* pkgexec_npm.c - the npm family (npx, npm exec, pnpm dlx, yarn dlx): a package installed in
 * the project, or one npm installs with --ignore-scripts into belay's own directory; then
 * the program its package.json "bin" names, as npx picks it. See pkgexec.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/buf.h"
#include "common/fsutil.h"
#include "common/jsonx.h"
#include "common/xalloc.h"
#include "pkgexec/pkgexec.h"

/* A registry spec "@scope/name@range" or "name@range": its name and range (either may come
 * back empty). 0 when the spec is a path, URL, git or GitHub reference instead. */
static int registry_spec(const char *spec, char *name, size_t nn, const char **range)
{
	static const char *const other[] = {"file:", "http:", "https:", "git:", "git+", "github:", "gitlab:",
					    "bitbucket:", "npm:", NULL};
	if (spec[0] == '.' || spec[0] == '/' || spec[0] == '~')
		return 0;
	for (int i = 0; other[i]; i++)
		if (!strncmp(spec, other[i], strlen(other[i])))
			return 0;
	size_t n = strlen(spec);
	if ((n > 4 && !strcmp(spec + n - 4, ".tgz")) || (n > 7 && !strcmp(spec + n - 7, ".tar.gz")))
		return 0;
	const char *at = strchr(spec + (spec[0] == '@'), '@');
	size_t len = at ? (size_t)(at - spec) : n;
	const char *slash = memchr(spec, '/', len);
	if (spec[0] != '@' && slash)
		return 0; /* user/repo: GitHub */
	if (len == 0 || len >= nn)
		return 0;
	memcpy(name, spec, len);
	name[len] = '\0';
	*range = at ? at + 1 : "";
	return 1;
}

static cJSON *read_json(const char *path)
{
	struct buf b = {0};
	cJSON *j = fs_read_file(path, (size_t)16 << 20, &b, NULL) == 0 ? cJSON_ParseWithLength(b.p, b.len) : NULL;
	buf_free(&b);
	return j;
}

/* The project's own install of name, from cwd upwards: its node_modules dir (new string). */
static char *local_install(const char *cwd, const char *name, const char *range)
{
	char *d = realpath(cwd, NULL);
	while (d) {
		char *pj = xasprintf("%s/node_modules/%s/package.json", d, name);
		cJSON *j = read_json(pj);
		free(pj);
		const char *v = jx_str(j, "version");
		int ok = j && (!*range || (v && !strcmp(v, range)));
		cJSON_Delete(j);
		if (ok) {
			char *nm = fs_join(d, "node_modules");
			free(d);
			return nm;
		}
		char *slash = strrchr(d, '/');
		if (!slash || slash == d) {
			free(d);
			return NULL;
		}
		*slash = '\0';
	}
	return NULL;
}

/* The program of package `name` (in node_modules nm) that npx runs: its only bin, or the one
 * named after the package. Returns the file (new string) or NULL with e set. */
static char *package_bin(const char *nm, const char *name, struct err *e)
{
	char *pj = xasprintf("%s/%s/package.json", nm, name);
	cJSON *j = read_json(pj);
	free(pj);
	if (!j) {
		err_set(e, BELAY_ENOTFOUND, "the package %s is not in %s", name, nm);
		return NULL;
	}
	const cJSON *bin = cJSON_GetObjectItemCaseSensitive(j, "bin");
	const char *unscoped = name[0] == '@' && strchr(name, '/') ? strchr(name, '/') + 1 : name;
	const char *rel = NULL;
	if (cJSON_IsString(bin)) {
		rel = bin->valuestring;
	} else if (cJSON_IsObject(bin) && cJSON_GetArraySize(bin) == 1 && cJSON_IsString(bin->child)) {
		rel = bin->child->valuestring;
	} else if (cJSON_IsObject(bin)) {
		rel = jx_str(bin, unscoped);
		if (!rel) {
			struct buf names = {0};
			for (const cJSON *c = bin->child; c; c = c->next)
				buf_printf(&names, "%s%s", names.len ? ", " : "", c->string);
			err_set(e, BELAY_EINVAL,
				"the package %s has several programs (%s) and none is named after it: name one "
				"(npx -p %s PROGRAM)",
				name, buf_cstr(&names), name);
			buf_free(&names);
			cJSON_Delete(j);
			return NULL;
		}
	}
	if (!rel) {
		err_set(e, BELAY_EINVAL, "the package %s has no program to run (no \"bin\" in its package.json)", name);
		cJSON_Delete(j);
		return NULL;
	}
	char *p = xasprintf("%s/%s/%s", nm, name, rel);
	char *real = realpath(p, NULL);
	if (!real)
		err_set(e, BELAY_ENOTFOUND, "the program %s of the package %s is missing", p, name);
	free(p);
	cJSON_Delete(j);
	return real;
}

/* A program any installed package provides: node_modules/.bin/NAME. */
static char *named_bin(const char *nm, const char *cmd, struct err *e)
{
	char *p = xasprintf("%s/.bin/%s", nm, cmd);
	char *real = strchr(cmd, '/') ? NULL : realpath(p, NULL);
	if (!real)
		err_set(e, BELAY_ENOTFOUND, "none of the packages provides a program named %s", cmd);
	free(p);
	return real;
}

static void add_package(cJSON *pkgs, const char *nm, const char *spec, const char *name)
{
	char *pj = xasprintf("%s/%s/package.json", nm, name);
	cJSON *j = read_json(pj);
	free(pj);
	cJSON *o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "spec", spec);
	cJSON_AddStringToObject(o, "name", name);
	if (jx_str(j, "version"))
		cJSON_AddStringToObject(o, "version", jx_str(j, "version"));
	cJSON_AddItemToArray(pkgs, o);
	cJSON_Delete(j);
}

/* A path spec relative to the server's cwd made absolute (npm would take it from ours). */
static char *absolute_spec(const char *spec, const char *cwd)
{
	if (!strncmp(spec, "./", 2) || !strncmp(spec, "../", 3) || !strcmp(spec, ".") || !strcmp(spec, ".."))
		return fs_join(cwd, spec);
	if (spec[0] == '~' && spec[1] == '/' && getenv("HOME"))
		return fs_join(getenv("HOME"), spec + 2);
	return xstrdup(spec);
}

static int install(const struct pkgexec_req *rq, const struct pkgexec_opts *o, const char *root, char **specs,
		   char **prefix, int *reused, struct err *e)
{
	/* The request's identity: its specs (a local file by path, size and mtime) and flags. */
	struct buf key = {0};
	buf_puts(&key, "npm-v1");
	for (int i = 0; i < rq->nflags; i++)
		buf_printf(&key, "\n%s", rq->npm_flags[i]);
	for (int i = 0; i < rq->nspecs; i++) {
		struct stat st;
		if (specs[i][0] == '/' && stat(specs[i], &st) == 0)
			buf_printf(&key, "\n%s %lld %lld", specs[i], (long long)st.st_size, (long long)st.st_mtime);
		else
			buf_printf(&key, "\n%s", specs[i]);
	}
	char *dir = pkgexec_dir(root, "npm", buf_cstr(&key));
	buf_free(&key);
	int rc = 0;
	*reused = pkgexec_is_ready(dir);
	if (*reused) {
		*prefix = dir;
		return 0;
	}
	if (rq->no_install) {
		free(dir);
		return err_set(e, BELAY_ENOTFOUND, "%s --no: %s is not installed in the project", rq->tool, specs[0]);
	}
	char *npm = fs_which("npm");
	if (!npm) {
		free(dir);
		return err_set(e, BELAY_ENOTFOUND, "%s needs npm to fetch %s, and npm is not on PATH", rq->tool, specs[0]);
	}
	char *tmp = xasprintf("%s.tmp-%d", dir, (int)getpid());
	fs_remove_tree(tmp);
	char *cache = fs_join(root, "npm-cache");
	char *pj = fs_join(tmp, "package.json");
	/* the registry setup npm would use without belay, its safe keys only (pkgexec_npmrc.c):
	 * private to this install (tokens), never inside what contained servers read */
	char *rcfile = xasprintf("%s/npmrc-%d", root, (int)getpid());
	char *rc_opt = xasprintf("--userconfig=%s", rcfile);
	char *here = o->cwd ? NULL : getcwd(NULL, 0);
	rc = fs_mkdir_p(tmp, 0700, e);
	if (!rc)
		rc = fs_write_file_atomic(pj, "{\"private\":true}\n", 17, 0600, e);
	if (!rc)
		rc = pkgexec_npmrc_write(npm, o->cwd ? o->cwd : here, tmp, rcfile, e);
	free(here);
	if (!rc) {
		const char *argv[48];
		int k = 0;
		char *cache_opt = xasprintf("--cache=%s", cache);
		argv[k++] = npm;
		argv[k++] = "install";
		argv[k++] = "--prefix";
		argv[k++] = tmp;
		argv[k++] = "--ignore-scripts"; /* never a package's scripts, uncontained */
		argv[k++] = "--no-audit";
		argv[k++] = "--no-fund";
		argv[k++] = "--no-update-notifier";
		argv[k++] = "--loglevel=warn";
		argv[k++] = cache_opt;
		argv[k++] = rc_opt;
		argv[k++] = "--globalconfig=/dev/null";
		for (int i = 0; i < rq->nflags; i++)
			argv[k++] = rq->npm_flags[i];
		for (int i = 0; i < rq->nspecs; i++)
			argv[k++] = specs[i];
		argv[k] = NULL;
		/* Also for the npm that a git dependency's preparation would start. */
		static const char *const env[] = {"npm_config_ignore_scripts=true", NULL};
		char *doing = xasprintf("fetching %s with npm (install scripts off)", specs[0]);
		char *failed = xasprintf("npm could not fetch %s", specs[0]);
		rc = pkgexec_install(rq, o, (char *const *)argv, env, doing, failed, tmp, dir, rcfile, e);
		free(doing);
		free(failed);
		free(cache_opt);
	} else {
		fs_remove_tree(tmp);
	}
	unlink(rcfile);
	free(rcfile);
	free(rc_opt);
	free(pj);
	free(cache);
	free(tmp);
	free(npm);
	if (rc) {
		free(dir);
		return rc;
	}
	*prefix = dir;
	return 0;
}

int pkgexec_npm(const struct pkgexec_req *rq, const struct pkgexec_opts *o, const char *root, struct pkgexec_plan *out,
		struct err *e)
{
	char *cwd = o->cwd ? xstrdup(o->cwd) : getcwd(NULL, 0);
	char *specs[16];
	for (int i = 0; i < rq->nspecs; i++)
		specs[i] = absolute_spec(rq->specs[i], cwd ? cwd : "/");
	char name[256] = "";
	const char *range = "";
	int reg = registry_spec(specs[0], name, sizeof name, &range);
	char *nm = NULL, *prefix = NULL, *entry = NULL;
	const char *source = "local";
	int rc = 0;
	/* As npx: a package the project already has is used as it is. */
	if (rq->nspecs == 1 && reg && cwd)
		nm = local_install(cwd, name, range);
	if (!nm) {
		int reused = 0;
		if ((rc = install(rq, o, root, specs, &prefix, &reused, e)) != 0)
			goto out;
		source = reused ? "reused" : "installed";
		nm = fs_join(prefix, "node_modules");
		if (!reg) {
			/* A path or URL: the name is what npm saved it as. */
			char *pj = fs_join(prefix, "package.json");
			cJSON *j = read_json(pj);
			free(pj);
			const cJSON *deps = cJSON_GetObjectItemCaseSensitive(j, "dependencies");
			if (deps && deps->child && deps->child->string)
				snprintf(name, sizeof name, "%s", deps->child->string);
			cJSON_Delete(j);
			if (!name[0]) {
				rc = err_set(e, BELAY_EINVAL, "%s: npm installed %s under no name", rq->tool, specs[0]);
				goto out;
			}
		}
	}
	entry = rq->cmd ? named_bin(nm, rq->cmd, e) : package_bin(nm, name, e);
	if (!entry) {
		rc = e ? e->code : BELAY_EINVAL;
		goto out;
	}
	/* The program runs itself (#!) or is a script for node. */
	char head[2] = {0};
	FILE *f = fopen(entry, "rb");
	if (f) {
		if (fread(head, 1, 2, f) != 2)
			head[0] = '\0';
		fclose(f);
	}
	int shebang = head[0] == '#' && head[1] == '!';
	size_t nargs = 0;
	while (rq->args[nargs])
		nargs++;
	out->argv = xcalloc(nargs + 3, sizeof *out->argv);
	size_t k = 0;
	if (!shebang)
		out->argv[k++] = xstrdup("node");
	out->argv[k++] = xstrdup(entry);
	for (size_t i = 0; i < nargs; i++)
		out->argv[k++] = xstrdup(rq->args[i]);
	out->launch = cJSON_CreateObject();
	cJSON *pkgs = cJSON_AddArrayToObject(out->launch, "packages");
	if (rq->cmd) {
		for (int i = 0; i < rq->nspecs; i++) {
			char n2[256];
			const char *r2;
			if (registry_spec(specs[i], n2, sizeof n2, &r2))
				add_package(pkgs, nm, specs[i], n2);
			else if (i == 0)
				add_package(pkgs, nm, specs[i], name);
		}
	} else {
		add_package(pkgs, nm, specs[0], name);
	}
	cJSON_AddStringToObject(out->launch, "entry", entry);
	cJSON_AddStringToObject(out->launch, "dir", prefix ? prefix : nm);
	cJSON_AddStringToObject(out->launch, "source", source);
out:
	for (int i = 0; i < rq->nspecs; i++)
		free(specs[i]);
	free(entry);
	free(nm);
	free(prefix);
	free(cwd);
	return rc;
}
