/* pkgexec_py.c - the Python family (uvx, uv tool run, pipx run): pip installs wheels only
 * (--only-binary=:all:, so no package code runs at install: an sdist's setup.py would) into
 * belay's own directory, and the program is the console_scripts entry point of that name,
 * run by the same python3 with the directory first on its path. See pkgexec.h. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/buf.h"
#include "common/fsutil.h"
#include "common/jsonx.h"
#include "common/xalloc.h"
#include "pkgexec/pkgexec.h"

/* NAME = module:attr under [console_scripts] of one entry_points.txt; 1 when found. */
static int entry_in(const char *path, const char *cmd, char *mod, size_t mn, char *attr, size_t an)
{
	FILE *f = fopen(path, "r");
	if (!f)
		return 0;
	char line[1024];
	int in = 0, found = 0;
	while (!found && fgets(line, sizeof line, f)) {
		line[strcspn(line, "\r\n")] = '\0';
		char *s = line;
		while (*s == ' ' || *s == '\t')
			s++;
		if (*s == '[') {
			in = !strncmp(s, "[console_scripts]", 17);
			continue;
		}
		char *eq = strchr(s, '=');
		if (!in || !eq)
			continue;
		char *ke = eq;
		while (ke > s && (ke[-1] == ' ' || ke[-1] == '\t'))
			ke--;
		if ((size_t)(ke - s) != strlen(cmd) || strncmp(s, cmd, (size_t)(ke - s)))
			continue;
		char *v = eq + 1;
		while (*v == ' ' || *v == '\t')
			v++;
		char *extras = strchr(v, '[');
		if (extras)
			*extras = '\0';
		char *colon = strchr(v, ':');
		if (!colon)
			continue;
		*colon = '\0';
		char *a = colon + 1;
		for (char *t = v + strlen(v); t > v && (t[-1] == ' ' || t[-1] == '\t'); t--)
			t[-1] = '\0';
		while (*a == ' ')
			a++;
		for (char *t = a + strlen(a); t > a && (t[-1] == ' ' || t[-1] == '\t'); t--)
			t[-1] = '\0';
		snprintf(mod, mn, "%s", v);
		snprintf(attr, an, "%s", a);
		found = 1;
	}
	fclose(f);
	return found;
}

/* The entry point `cmd` among the installed distributions of site; *dist names its
 * .dist-info (new string). */
static int find_entry(const char *site, const char *cmd, char *mod, size_t mn, char *attr, size_t an, char **dist)
{
	DIR *d = opendir(site);
	if (!d)
		return 0;
	struct dirent *de;
	int found = 0;
	while (!found && (de = readdir(d))) {
		size_t n = strlen(de->d_name);
		if (n < 11 || strcmp(de->d_name + n - 10, ".dist-info"))
			continue;
		char *ep = xasprintf("%s/%s/entry_points.txt", site, de->d_name);
		if (entry_in(ep, cmd, mod, mn, attr, an)) {
			found = 1;
			*dist = xstrndup(de->d_name, n - 10);
		}
		free(ep);
	}
	closedir(d);
	return found;
}

/* A JSON string literal, which Python reads as the same string. New string. */
static char *py_str(const char *s)
{
	cJSON *v = cJSON_CreateString(s);
	char *t = jx_print(v);
	cJSON_Delete(v);
	return t;
}

int pkgexec_py(const struct pkgexec_req *rq, const struct pkgexec_opts *o, const char *root, struct pkgexec_plan *out,
	       struct err *e)
{
	char *python = fs_which("python3");
	if (!python)
		return err_set(e, BELAY_ENOTFOUND, "%s needs python3 to install %s, and python3 is not on PATH", rq->tool,
			       rq->specs[0]);
	/* --only-binary keeps pip from building what it finds on an index, not what it is handed:
	 * a path or URL must be a wheel, or its build code would run here, uncontained. */
	for (int i = 0; i < rq->nspecs; i++) {
		const char *sp = rq->specs[i];
		size_t n = strlen(sp);
		int located = strchr(sp, '/') || sp[0] == '.' || strstr(sp, "://") || !strncmp(sp, "git+", 4);
		if (located && (n < 4 || strcmp(sp + n - 4, ".whl"))) {
			free(python);
			return err_set(e, BELAY_EREFUSED,
				       "%s: %s is not a wheel: belay installs Python packages from wheels only (a source "
				       "distribution's build code would run outside the sandbox)",
				       rq->tool, sp);
		}
	}
	char *cwd = o->cwd ? xstrdup(o->cwd) : getcwd(NULL, 0);
	struct buf key = {0};
	buf_puts(&key, "pip-v1");
	char *specs[16];
	for (int i = 0; i < rq->nspecs; i++) {
		const char *sp = rq->specs[i];
		specs[i] = (!strncmp(sp, "./", 2) || !strncmp(sp, "../", 3)) && cwd ? fs_join(cwd, sp) : xstrdup(sp);
		buf_printf(&key, "\n%s", specs[i]);
	}
	char *dir = pkgexec_dir(root, "pip", buf_cstr(&key));
	buf_free(&key);
	char *site = fs_join(dir, "site");
	const char *source = pkgexec_is_ready(dir) ? "reused" : "installed";
	int rc = 0;
	if (!strcmp(source, "installed")) {
		/* uv's index setup, which pip does not read (pip's own it reads itself) */
		char **uvargs = NULL;
		if (strncmp(rq->tool, "pipx", 4) && !(uvargs = pkgexec_uv_pip_args(cwd, e))) {
			err_wrap(e, "%s", rq->tool);
			rc = e->code;
		}
		char *tmp = xasprintf("%s.tmp-%d", dir, (int)getpid());
		char *tsite = fs_join(tmp, "site"), *cache = fs_join(root, "pip-cache");
		fs_remove_tree(tmp);
		if (!rc)
			rc = fs_mkdir_p(tsite, 0700, e);
		if (!rc) {
			const char *argv[40];
			int k = 0;
			argv[k++] = python;
			argv[k++] = "-m";
			argv[k++] = "pip";
			argv[k++] = "install";
			argv[k++] = "--only-binary=:all:"; /* wheels only: no setup.py runs, uncontained */
			argv[k++] = "--no-input";
			argv[k++] = "--disable-pip-version-check";
			argv[k++] = "--root-user-action=ignore";
			argv[k++] = "--quiet";
			argv[k++] = "--cache-dir";
			argv[k++] = cache;
			argv[k++] = "--target";
			argv[k++] = tsite;
			for (char **a = uvargs; a && *a && k < 30; a++)
				argv[k++] = *a;
			for (int i = 0; i < rq->nspecs; i++)
				argv[k++] = specs[i];
			argv[k] = NULL;
			static const char *const env[] = {"PIP_ONLY_BINARY=:all:", "PIP_ROOT_USER_ACTION=ignore", NULL};
			char *doing = xasprintf("installing %s with pip (wheels only, no install code)", specs[0]);
			char *failed = xasprintf("pip could not install %s", specs[0]);
			rc = pkgexec_install(rq, o, (char *const *)argv, env, doing, failed, tmp, dir, NULL, e);
			free(doing);
			free(failed);
		} else {
			fs_remove_tree(tmp);
		}
		free(tmp);
		free(tsite);
		free(cache);
		pkgexec_uv_pip_args_free(uvargs);
	}
	char mod[256], attr[256], *dist = NULL;
	if (!rc && !find_entry(site, rq->cmd, mod, sizeof mod, attr, sizeof attr, &dist))
		rc = err_set(e, BELAY_ENOTFOUND, "%s: no installed package provides a program named %s", rq->tool, rq->cmd);
	if (!rc) {
		/* python3 -c: the entry point, with the install first on sys.path and the
		 * program's name as argv[0], as its console script would have it. */
		char *qs = py_str(site), *qm = py_str(mod), *qa = py_str(attr), *qc = py_str(rq->cmd);
		char *code = xasprintf("import importlib, sys; sys.path.insert(0, %s); sys.argv[0] = %s; "
				       "f = importlib.import_module(%s)\n"
				       "for p in %s.split('.'): f = getattr(f, p)\n"
				       "sys.exit(f())",
				       qs, qc, qm, qa);
		size_t nargs = 0;
		while (rq->args[nargs])
			nargs++;
		out->argv = xcalloc(nargs + 4, sizeof *out->argv);
		out->argv[0] = xstrdup(python);
		out->argv[1] = xstrdup("-c");
		out->argv[2] = code;
		for (size_t i = 0; i < nargs; i++)
			out->argv[3 + i] = xstrdup(rq->args[i]);
		cJSON_free(qs);
		cJSON_free(qm);
		cJSON_free(qa);
		cJSON_free(qc);
		out->launch = cJSON_CreateObject();
		cJSON *pkgs = cJSON_AddArrayToObject(out->launch, "packages");
		cJSON *p = cJSON_CreateObject();
		cJSON_AddStringToObject(p, "spec", specs[0]);
		/* "name-version" of its .dist-info */
		char *dash = strrchr(dist, '-');
		if (dash) {
			*dash = '\0';
			cJSON_AddStringToObject(p, "name", dist);
			cJSON_AddStringToObject(p, "version", dash + 1);
		} else {
			cJSON_AddStringToObject(p, "name", dist);
		}
		cJSON_AddItemToArray(pkgs, p);
		char *ep = xasprintf("%s:%s", mod, attr);
		cJSON_AddStringToObject(out->launch, "entry", ep);
		free(ep);
		cJSON_AddStringToObject(out->launch, "dir", dir);
		cJSON_AddStringToObject(out->launch, "source", source);
	}
	for (int i = 0; i < rq->nspecs; i++)
		free(specs[i]);
	free(dist);
	free(site);
	free(dir);
	free(cwd);
	free(python);
	return rc;
}
