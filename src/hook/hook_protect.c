/* hook_protect.c - belay's protected files by identity. See hook_protect.h and docs/HOOKS.md
 * ("What belay protects"). */
#include "hook/hook_protect.h"

#include <errno.h>
#include <glob.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/fsutil.h"
#include "common/paths.h"
#include "common/xalloc.h"
#include "hook/hook_plan.h"

static void add(struct hook_protect *p, const char *path, enum hook_protect_role role)
{
	for (size_t i = 0; i < p->n; i++)
		if (!strcmp(p->v[i].path, path))
			return;
	p->v = xrealloc(p->v, (p->n + 1) * sizeof *p->v);
	p->v[p->n].path = xstrdup(path);
	p->v[p->n++].role = role;
}

struct hook_protect *hook_protect_new(const char *root, const char *home, const char *state_dir, const char *belay)
{
	struct hook_protect *p = xcalloc(1, sizeof *p);
	char **cfgs = hook_plan_agent_configs(root, home);
	for (char **c = cfgs; *c; c++)
		add(p, *c, HP_CONFIG);
	hook_plan_free_paths(cfgs);
	const char *exe = belay ? belay : paths_self_exe();
	if (exe && exe[0] == '/') {
		add(p, exe, HP_PROGRAM);
		const char *slash = strrchr(exe, '/');
		char *client = xasprintf("%.*s/belay-hook", (int)(slash - exe), exe);
		if (access(client, F_OK) == 0)
			add(p, client, HP_PROGRAM);
		free(client);
	}
	if (state_dir && state_dir[0] == '/')
		add(p, state_dir, HP_STATE);
	return p;
}

void hook_protect_free(struct hook_protect *p)
{
	if (!p)
		return;
	for (size_t i = 0; i < p->n; i++)
		free(p->v[i].path);
	free(p->v);
	free(p);
}

const char *hook_protect_role_name(enum hook_protect_role r)
{
	switch (r) {
	case HP_CONFIG: return "hook configuration";
	case HP_PROGRAM: return "hook program";
	case HP_STATE: return "belay's state directory";
	}
	return "?";
}

/*==== identities ====*/

/* A path as the kernel reaches it: the realpath of its directory and its last name (the file
 * itself need not exist; a symbolic link as the last name is followed when it resolves).
 * NULL when its directory does not resolve (ENOENT: nothing there can be reached), *err set
 * for any other failure. */
static char *canonical(const char *path, int *err)
{
	*err = 0;
	char *real = realpath(path, NULL);
	if (real)
		return real;
	if (errno != ENOENT && errno != ENOTDIR) {
		*err = errno;
		return NULL;
	}
	const char *slash = strrchr(path, '/');
	if (!slash || !slash[1])
		return NULL;
	char *dir = slash == path ? xstrdup("/") : xstrndup(path, (size_t)(slash - path));
	char *rdir = realpath(dir, NULL);
	if (!rdir && errno != ENOENT && errno != ENOTDIR)
		*err = errno;
	free(dir);
	if (!rdir)
		return NULL;
	char *out = xasprintf("%s/%s", strcmp(rdir, "/") ? rdir : "", slash + 1);
	free(rdir);
	return out;
}

struct ident {
	const struct hook_protect_file *f;
	char *canon; /* NULL: its directory does not exist */
	int exists;
	dev_t dev;
	ino_t ino;
};

struct checker {
	struct ident *id;
	size_t n;
	const char *hit_path;     /* the protected file reached */
	const char *hit_how;      /* static */
	int unresolved;
	char *unresolved_why;     /* owned */
};

/* 1 when `dir` is a proper ancestor of `path` (both canonical). */
static int holds(const char *dir, const char *path)
{
	size_t n = strlen(dir);
	if (!strcmp(dir, "/"))
		return path[0] == '/' && path[1];
	return !strncmp(path, dir, n) && path[n] == '/';
}

/* One concrete path a plan writes (destroy: or deletes / replaces with all it holds;
 * from_glob: a pattern's match, not a path the command named). */
static int check_path(struct checker *k, const char *path, int destroy, int from_glob)
{
	struct stat st;
	int have = stat(path, &st) == 0;
	if (!have && errno != ENOENT && errno != ENOTDIR && errno != ELOOP) {
		k->unresolved = 1;
		free(k->unresolved_why);
		k->unresolved_why = xasprintf("cannot stat %s: %s", path, strerror(errno));
		return 0;
	}
	int err;
	char *canon = canonical(path, &err);
	if (!canon && err) {
		k->unresolved = 1;
		free(k->unresolved_why);
		k->unresolved_why = xasprintf("cannot resolve %s: %s", path, strerror(err));
		return 0;
	}
	int hit = 0;
	for (size_t i = 0; i < k->n && !hit; i++) {
		const struct ident *d = &k->id[i];
		if (have && d->exists && st.st_dev == d->dev && st.st_ino == d->ino) {
			hit = 1;
			k->hit_how = strcmp(path, d->f->path) ? "is (through a hard or symbolic link, or a linked "
							       "directory on the way) the same file as"
							     : "is";
		} else if (canon && d->canon && !strcmp(canon, d->canon)) {
			hit = 1;
			k->hit_how = "names, through a link,";
		} else if (canon && d->canon && d->exists && (destroy || d->f->role == HP_STATE) && holds(canon, d->canon)) {
			hit = 1;
			k->hit_how = destroy ? "deletes or replaces a directory that holds" : "writes inside";
		}
		if (hit)
			k->hit_path = d->f->path;
	}
	/* A write to a directory that holds a protected file: what lands beneath it is not in
	 * the plan (an archive extracted there, a recursive copy or rsync into it, git
	 * rewriting the tracked files of the worktree on stash, switch, checkout BRANCH, merge,
	 * pull or apply). A pattern that reaches the directory itself (an extraction's "DIR/.*")
	 * is refused; a directory the command names asks: belay cannot tell from here whether
	 * the archive, the source tree or the other commit carries the protected file. */
	for (size_t i = 0; i < k->n && !hit && !destroy && have && S_ISDIR(st.st_mode) && canon; i++) {
		const struct ident *d = &k->id[i];
		if (!d->exists || !d->canon || !holds(canon, d->canon))
			continue;
		if (from_glob) {
			hit = 1;
			k->hit_how = "writes into a directory (whatever an archive or a copy puts there) that holds";
			k->hit_path = d->f->path;
		} else if (!k->unresolved) {
			k->unresolved = 1;
			free(k->unresolved_why);
			k->unresolved_why =
			    xasprintf("it writes beneath %s (an archive, a recursive copy, or git rewriting tracked files), "
				      "which holds belay's %s %s",
				      path, hook_protect_role_name(d->f->role), d->f->path);
		}
	}
	free(canon);
	return hit;
}

static int has_glob(const char *s)
{
	return strpbrk(s, "*?[") != NULL;
}

static int kind_writes(enum effect_kind k, int *destroy)
{
	*destroy = k == EK_FS_DESTROY || k == EK_FS_DESTROY_OUTSIDE;
	return k == EK_FS_WRITE || k == EK_FS_DESTROY || k == EK_FS_WRITE_OUTSIDE || k == EK_FS_DESTROY_OUTSIDE ||
	       k == EK_SECRET_WRITE;
}

/* One resource of the plan: a path, or a pattern expanded against the filesystem as it is
 * now ("DIR/STAR-STAR/REST", a traversal of DIR, is DIR as a whole). */
static int check_resource(struct checker *k, const char *res, int destroy)
{
	if (strlen(res) >= 200 && !strcmp(res + strlen(res) - 3, "...")) {
		k->unresolved = 1;
		free(k->unresolved_why);
		k->unresolved_why = xasprintf("a path too long for the gate's plan (%.60s...)", res);
		return 0;
	}
	const char *star2 = strstr(res, "/**");
	if (star2) {
		char *dir = star2 == res ? xstrdup("/") : xstrndup(res, (size_t)(star2 - res));
		int hit = check_path(k, dir, 1, 0);
		free(dir);
		return hit;
	}
	if (!has_glob(res))
		return check_path(k, res, destroy, 0);
	glob_t g;
	memset(&g, 0, sizeof g);
	int rc = glob(res, GLOB_NOSORT | GLOB_ERR, NULL, &g);
	int hit = 0;
	if (rc == GLOB_NOMATCH) {
		globfree(&g);
		return 0;
	}
	if (rc != 0) {
		k->unresolved = 1;
		free(k->unresolved_why);
		k->unresolved_why = xasprintf("cannot expand %s against the filesystem (%s)", res,
					      rc == GLOB_ABORTED ? "a directory it reads is unreadable" : "out of memory");
		globfree(&g);
		return 0;
	}
	for (size_t i = 0; i < g.gl_pathc && !hit; i++) {
		/* "DIR/.*" matches DIR itself and its parent too: not entries written there */
		const char *base = strrchr(g.gl_pathv[i], '/');
		base = base ? base + 1 : g.gl_pathv[i];
		if (!strcmp(base, ".") || !strcmp(base, ".."))
			continue;
		hit = check_path(k, g.gl_pathv[i], destroy, 1);
	}
	globfree(&g);
	return hit;
}

enum hook_protect_verdict hook_protect_check(const struct hook_protect *p, const struct effect_plan *plan,
					     const char *cwd, char **resource, struct buf *why)
{
	*resource = NULL;
	struct checker k = {0};
	k.id = xcalloc(p->n + 1, sizeof *k.id);
	for (size_t i = 0; i < p->n; i++) {
		struct ident *d = &k.id[k.n++];
		struct stat st;
		d->f = &p->v[i];
		if (stat(d->f->path, &st) == 0) {
			d->exists = 1;
			d->dev = st.st_dev;
			d->ino = st.st_ino;
		}
		int err;
		d->canon = canonical(d->f->path, &err);
	}
	enum hook_protect_verdict v = HOOK_PROTECT_CLEAR;
	struct stat cst;
	if (cwd && stat(cwd, &cst) != 0) {
		*resource = xstrdup(cwd);
		buf_printf(why, "the call's working directory %s cannot be read (%s): belay cannot tell what its paths "
				"reach",
			   cwd, strerror(errno));
		v = HOOK_PROTECT_UNRESOLVED;
	}
	for (size_t i = 0; v != HOOK_PROTECT_HIT && i < effect_plan_count(plan); i++) {
		const struct gate_effect *e = effect_plan_effect(plan, i);
		int destroy;
		if (!kind_writes(e->kind, &destroy) || !e->resource || e->resource[0] != '/')
			continue;
		k.unresolved = 0;
		if (check_resource(&k, e->resource, destroy)) {
			free(*resource);
			*resource = xstrdup(e->resource);
			buf_reset(why);
			buf_printf(why, "%s %s belay's %s %s", e->resource, k.hit_how,
				   hook_protect_role_name(HP_CONFIG), k.hit_path);
			for (size_t j = 0; j < p->n; j++)
				if (!strcmp(p->v[j].path, k.hit_path) && p->v[j].role != HP_CONFIG) {
					buf_reset(why);
					buf_printf(why, "%s %s belay's %s %s", e->resource, k.hit_how,
						   hook_protect_role_name(p->v[j].role), k.hit_path);
				}
			v = HOOK_PROTECT_HIT;
		} else if (k.unresolved && v == HOOK_PROTECT_CLEAR) {
			*resource = xstrdup(e->resource);
			buf_printf(why, "%s: belay cannot tell whether it reaches its protected files", k.unresolved_why);
			v = HOOK_PROTECT_UNRESOLVED;
		}
	}
	for (size_t i = 0; i < k.n; i++)
		free(k.id[i].canon);
	free(k.id);
	free(k.unresolved_why);
	return v;
}
