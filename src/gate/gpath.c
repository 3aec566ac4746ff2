/* gpath.c - lexical path classification for the gate (see gpath.h).
 *
 * Responsible for the tables of secret names and locations, and for the order in which a
 * write is judged: belay's control files, then secrets, then git metadata, then outside
 * the root, then destruction of the root itself. Must not touch the filesystem: a symlink
 * inside the workspace pointing outside is not seen (documented in docs/GATE.md). */
#include "gate/gpath.h"

#include <ctype.h>
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/xalloc.h"
char *gpath_resolve(struct arena *a, const char *cwd, const char *p, size_t plen)
{
	size_t cl = (plen && p[0] == '/') || !cwd ? 0 : strlen(cwd);
	char *out = arena_alloc(a, cl + plen + 3);
	size_t o = 0;
	/* components are copied one at a time; ".." pops the last one */
	const char *srcs[2] = {cl ? cwd : "", p};
	size_t lens[2] = {cl, plen};
	out[o++] = '/';
	for (int s = 0; s < 2; s++) {
		const char *q = srcs[s], *end = q + lens[s];
		while (q < end) {
			while (q < end && *q == '/')
				q++;
			if (q >= end)
				break;
			const char *t = q;
			while (t < end && *t != '/')
				t++;
			size_t n = (size_t)(t - q);
			if (n == 1 && q[0] == '.') {
				/* skip */
			} else if (n == 2 && q[0] == '.' && q[1] == '.') {
				if (o > 1) {
					o--; /* drop trailing '/' */
					while (o > 1 && out[o - 1] != '/')
						o--;
				}
			} else {
				memcpy(out + o, q, n);
				o += n;
				out[o++] = '/';
			}
			q = t;
		}
	}
	if (o > 1)
		o--; /* no trailing slash except for "/" */
	out[o] = '\0';
	return out;
}

int gpath_under(const char *path, const char *dir)
{
	if (!path || !dir)
		return 0;
	size_t dl = strlen(dir);
	if (dl == 1 && dir[0] == '/')
		return path[0] == '/';
	return strncmp(path, dir, dl) == 0 && (path[dl] == '\0' || path[dl] == '/');
}

int gpath_is_pseudo(const char *path)
{
	if (strncmp(path, "/dev/", 5) != 0 && strncmp(path, "/proc/", 6) != 0)
		return 0;
	static const char *const exact[] = {"/dev/null", "/dev/stdout", "/dev/stderr",	"/dev/stdin", "/dev/tty",
					    "/dev/zero", "/dev/random", "/dev/urandom", "/dev/full",  NULL};
	for (int i = 0; exact[i]; i++)
		if (strcmp(path, exact[i]) == 0)
			return 1;
	if (strncmp(path, "/dev/fd/", 8) == 0 || strncmp(path, "/proc/self/fd/", 14) == 0)
		return 1;
	return 0;
}

static void add_loc(struct arena *a, const char ***arr, size_t *n, const char *path)
{
	const char **na = arena_grow(a, (void *)*arr, *n, *n + 1, sizeof *na);
	na[(*n)++] = path;
	*arr = na;
}

struct gate_env {
	struct arena a;
	struct gpath_env g;
};

struct gate_env *gate_env_new(const struct gate_ctx *ctx)
{
	struct gate_env *e = xcalloc(1, sizeof *e);
	arena_init(&e->a);
	struct gate_ctx c = *ctx;
	c.env = NULL;
	gpath_env_init(&e->g, &e->a, &c);
	return e;
}

void gate_env_free(struct gate_env *e)
{
	if (!e)
		return;
	arena_free(&e->a);
	free(e);
}

void gpath_env_init(struct gpath_env *g, struct arena *a, const struct gate_ctx *ctx)
{
	if (ctx->env) { /* prepared once: its strings live in its own arena, as long as it does */
		*g = ctx->env->g;
		return;
	}
	memset(g, 0, sizeof *g);
	const char *root = ctx->root && *ctx->root ? ctx->root : "/nonexistent-workspace";
	g->root = gpath_resolve(a, "/", root, strlen(root));
	g->home = ctx->home && *ctx->home ? gpath_resolve(a, g->root, ctx->home, strlen(ctx->home)) : NULL;
	if (ctx->state_dir && *ctx->state_dir)
		add_loc(a, &g->control, &g->ncontrol,
			gpath_resolve(a, g->root, ctx->state_dir, strlen(ctx->state_dir)));
	for (const char *const *c = ctx->control_paths; c && *c; c++)
		if (**c)
			add_loc(a, &g->control, &g->ncontrol, gpath_resolve(a, g->root, *c, strlen(*c)));
	static const char *const home_secret[] = {".ssh",
						  ".aws",
						  ".gnupg",
						  ".kube",
						  ".docker/config.json",
						  ".config/gh",
						  ".config/gcloud",
						  ".azure",
						  ".oci",
						  ".netrc",
						  ".git-credentials",
						  ".npmrc",
						  ".pypirc",
						  ".password-store",
						  ".vault-token",
						  ".terraform.d/credentials.tfrc.json",
						  ".cargo/credentials",
						  ".cargo/credentials.toml",
						  ".pgpass",
						  NULL};
	if (g->home)
		for (int i = 0; home_secret[i]; i++)
			add_loc(a, &g->secret_dirs, &g->nsecret_dirs,
				gpath_resolve(a, g->home, home_secret[i], strlen(home_secret[i])));
	static const char *const sys_secret[] = {
	    "/etc/shadow", "/etc/gshadow", "/etc/sudoers", "/etc/sudoers.d", "/etc/ssh", "/root", NULL};
	for (int i = 0; sys_secret[i]; i++)
		add_loc(a, &g->secret_dirs, &g->nsecret_dirs, sys_secret[i]);
}

/* "word" match of needle inside s (case-insensitive): not preceded by a letter, and
 * followed (after an optional plural 's') by a non-letter or the end. */
static int has_word(const char *s, size_t n, const char *needle)
{
	size_t nl = strlen(needle);
	int first = needle[0];
	for (size_t i = 0; i + nl <= n; i++) {
		if (tolower((unsigned char)s[i]) != first || strncasecmp(s + i, needle, nl) != 0)
			continue;
		if (i > 0 && isalpha((unsigned char)s[i - 1]))
			continue;
		size_t j = i + nl;
		if (j < n && tolower((unsigned char)s[j]) == 's')
			j++;
		if (j < n && isalpha((unsigned char)s[j]))
			continue;
		return 1;
	}
	return 0;
}

static int ends_with_ci(const char *s, size_t n, const char *suf)
{
	size_t sl = strlen(suf);
	return n >= sl && strncasecmp(s + n - sl, suf, sl) == 0;
}

static int eq_ci(const char *s, size_t n, const char *lit)
{
	return tolower((unsigned char)s[0]) == tolower((unsigned char)lit[0]) && strlen(lit) == n &&
	       strncasecmp(s, lit, n) == 0;
}

/* A basename that holds credentials wherever it lives. */
static int secret_name(const char *b, size_t n, enum gpath_access acc)
{
	static const char *const names[] = {".netrc",	  "_netrc",  ".npmrc",	  ".pypirc",	     ".git-credentials",
					    ".pgpass",	  ".my.cnf", ".htpasswd", "authorized_keys", ".vault-token",
					    "master.key", ".envrc",  "shadow",	  "gshadow",	     NULL};
	for (int i = 0; names[i]; i++)
		if (eq_ci(b, n, names[i]))
			return 1;
	/* .env and .env.* except templates that by convention hold no values */
	if (eq_ci(b, n, ".env"))
		return 1;
	if (n > 5 && strncasecmp(b, ".env.", 5) == 0) {
		static const char *const tmpl[] = {"example", "sample", "template", "dist", "defaults", "schema", NULL};
		for (int i = 0; tmpl[i]; i++)
			if (eq_ci(b + 5, n - 5, tmpl[i]))
				return 0;
		return 1;
	}
	/* private keys: id_rsa, id_ed25519_sk, id_ecdsa-github (not the .pub halves) */
	if (n >= 5 && strncmp(b, "id_", 3) == 0 && !ends_with_ci(b, n, ".pub") &&
	    (strncmp(b + 3, "rsa", 3) == 0 || strncmp(b + 3, "dsa", 3) == 0 || strncmp(b + 3, "ecdsa", 5) == 0 ||
	     strncmp(b + 3, "ed25519", 7) == 0))
		return 1;
	static const char *const exts[] = {".pem",	".key",	 ".p12",     ".pfx", ".jks",
					   ".keystore", ".kdbx", ".tfstate", ".ppk", NULL};
	for (int i = 0; memchr(b, '.', n) && exts[i]; i++)
		if (ends_with_ci(b, n, exts[i]))
			return 1;
	if (has_word(b, n, "secret") || has_word(b, n, "credential"))
		return 1;
	(void)acc;
	return 0;
}

int gpath_is_secret(const struct gpath_env *g, const char *path, enum gpath_access acc)
{
	if (acc == GPA_META)
		return 0;
	size_t n = strlen(path);
	const char *b = strrchr(path, '/');
	b = b ? b + 1 : path;
	size_t bn = (size_t)(path + n - b);
	int is_pub = ends_with_ci(b, bn, ".pub") || strncasecmp(b, "known_hosts", 11) == 0;
	int may_be_in_secret_dir =
	    (g->home && gpath_under(path, g->home)) || !strncmp(path, "/etc/", 5) || !strncmp(path, "/root", 5);
	for (size_t i = 0; may_be_in_secret_dir && i < g->nsecret_dirs; i++) {
		if (gpath_under(path, g->secret_dirs[i])) {
			if (is_pub && (acc == GPA_READ))
				return 0;
			return 1;
		}
	}
	/* ~/.ssh style components anywhere (another user's home, a copied dotfile tree) */
	static const char *const comps[] = {"/.ssh/", "/.aws/", "/.gnupg/", "/.password-store/", NULL};
	for (int i = 0; strstr(path, "/.") && comps[i]; i++)
		if (strstr(path, comps[i]) && !(is_pub && acc == GPA_READ))
			return 1;
	if (strncmp(path, "/proc/", 6) == 0 && (ends_with_ci(path, n, "/environ") || ends_with_ci(path, n, "/mem")))
		return 1;
	if (g->home) {
		/* shell start-up files in the home directory run on every login: persistence, and
		 * they often export tokens */
		static const char *const rc[] = {".bashrc",
						 ".bash_profile",
						 ".bash_login",
						 ".bash_logout",
						 ".profile",
						 ".zshrc",
						 ".zprofile",
						 ".zshenv",
						 ".zlogin",
						 ".kshrc",
						 ".cshrc",
						 ".tcshrc",
						 ".config/fish/config.fish",
						 NULL};
		size_t hl = strlen(g->home);
		if (gpath_under(path, g->home) && path[hl] == '/')
			for (int i = 0; rc[i]; i++)
				if (strcmp(path + hl + 1, rc[i]) == 0)
					return 1;
	}
	if (secret_name(b, bn, acc))
		return 1;
	/* directories named secrets/ or credentials/ below the root (or home): the root's own
	 * name never counts, or a project called "secret-santa" would make every read ask */
	size_t start = 0;
	if (gpath_under(path, g->root))
		start = strlen(g->root);
	else if (g->home && gpath_under(path, g->home))
		start = strlen(g->home);
	for (const char *c = path + start; c < b;) {
		while (c < b && *c == '/')
			c++;
		const char *e = c;
		while (e < b && *e != '/')
			e++;
		if (e > c && (has_word(c, (size_t)(e - c), "secret") || has_word(c, (size_t)(e - c), "credential")))
			return 1;
		c = e;
	}
	return 0;
}

/* 1 when the path has a ".git" component (any repository's metadata). */
static int git_component(const char *path)
{
	const char *q = path;
	while ((q = strstr(q, "/.git")) != NULL) {
		if (q[5] == '\0' || q[5] == '/')
			return 1;
		q += 5;
	}
	return 0;
}

static int under_any(const char *path, const char *const *dirs, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (gpath_under(path, dirs[i]))
			return 1;
	return 0;
}

/* 1 when the access reaches `target` (a path at or below the target's scope). A glob
 * without dot matching reaches only entries whose first component below the scope is not
 * hidden: `rm -rf ~/STAR` cannot touch ~/.local. */
static int reaches(const struct gpath_target *t, const char *scope, const char *target)
{
	if (!gpath_under(target, scope))
		return 0;
	if (!t->recursive && !t->wild && !t->descends)
		return 0;
	if (t->descends || t->dotwild || !t->wild)
		return 1;
	size_t sl = strlen(scope);
	const char *rest = target + (sl == 1 ? 1 : sl);
	while (*rest == '/')
		rest++;
	return *rest != '.';
}

static int reaches_any(const struct gpath_target *t, const char *scope, const char *const *dirs, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (reaches(t, scope, dirs[i]))
			return 1;
	return 0;
}

/* 1 when a glob pattern can name one of `paths` itself (fnmatch, '/' matched only by '/',
 * a leading '.' only by a '.' unless the wildcard may match dot entries). */
static int pattern_names_any(const struct gpath_target *t, const char *const *paths, size_t n)
{
	int flags = FNM_PATHNAME | (t->dotwild ? 0 : FNM_PERIOD);
	for (size_t i = 0; i < n; i++)
		if (fnmatch(t->path, paths[i], flags) == 0)
			return 1;
	return 0;
}

int gpath_classify(const struct gpath_env *g, const struct gpath_target *t, enum gpath_access acc,
		   enum effect_kind *kind, const char **why)
{
	const char *path = t->path, *scope = t->scope ? t->scope : t->path;
	if (!t->wild && gpath_is_pseudo(path))
		return 0;
	int inside = gpath_under(scope, g->root);
	int under_control = under_any(scope, g->control, g->ncontrol);
	/* a recursive read or delete of a directory that contains belay's state reaches it; a
	 * recursive copy *into* such a directory only creates its own subtree */
	int covers_control = reaches_any(t, scope, g->control, g->ncontrol);
	if (acc == GPA_META || acc == GPA_READ) {
		if (under_control && acc == GPA_READ) {
			*kind = EK_SECRET_READ;
			*why = "reads belay's own state (approvals, traces, policy)";
			return 1;
		}
		if (acc == GPA_READ && gpath_is_secret(g, path, acc)) {
			*kind = EK_SECRET_READ;
			*why = "reads a credential, key, .env or shell start-up file";
			return 1;
		}
		if (acc == GPA_READ && (t->recursive || t->descends) &&
		    reaches_any(t, scope, (const char *const *)g->secret_dirs, g->nsecret_dirs)) {
			*kind = EK_SECRET_READ;
			*why = "reads recursively through a directory that holds credentials";
			return 1;
		}
		if (covers_control && acc == GPA_READ) {
			*kind = EK_SECRET_READ;
			*why = "reads recursively through a directory that holds belay's own state";
			return 1;
		}
		*kind = inside ? EK_FS_READ : EK_FS_READ_OUTSIDE;
		*why = inside ? "reads inside the workspace" : "reads outside the workspace root";
		return 1;
	}
	int destroy = acc == GPA_DESTROY;
	/* a wildcard write that can expand to a control file writes it (sed -i on .claude/STAR.json) */
	int glob_control = t->wild && (pattern_names_any(t, g->control, g->ncontrol) || (t->descends && covers_control));
	if (under_control || (destroy && covers_control) || glob_control) {
		*kind = EK_CONTROL_WRITE;
		*why = "writes belay's own state, approvals or policy";
		return 1;
	}
	if (gpath_is_secret(g, path, acc)) {
		*kind = EK_SECRET_WRITE;
		*why = "writes a credential, key, .env or shell start-up file";
		return 1;
	}
	if (git_component(path) || git_component(scope)) {
		*kind = EK_GIT_DESTRUCTIVE;
		*why = "modifies git metadata directly (.git)";
		return 1;
	}
	if (!inside) {
		if (destroy && reaches(t, scope, g->root)) {
			*kind = EK_FS_DESTROY_OUTSIDE;
			*why = "deletes a directory that contains the whole workspace";
			return 1;
		}
		*kind = destroy ? EK_FS_DESTROY_OUTSIDE : EK_FS_WRITE_OUTSIDE;
		*why =
		    destroy ? "deletes or overwrites outside the workspace root" : "writes outside the workspace root";
		return 1;
	}
	if (destroy && strcmp(scope, g->root) == 0 && ((t->recursive && !t->wild) || (t->wild && t->dotwild))) {
		*kind = EK_GIT_DESTRUCTIVE;
		*why = "deletes the workspace root with its .git directory";
		return 1;
	}
	*kind = destroy ? EK_FS_DESTROY : EK_FS_WRITE;
	*why = destroy ? "deletes or overwrites inside the workspace (restorable from belay's snapshot)"
		       : "writes inside the workspace (restorable from belay's snapshot)";
	return 1;
}
