/* gpath.h - where a path lies relative to the workspace, and what touching it means:
 * inside or outside the root, a secret (credentials, keys, .env, shell start-up files),
 * git metadata, or belay's own control files. Lexical only: no symlink resolution, no
 * stat, no I/O. Internal to src/gate; thread-safe (no state beyond the caller's). */
#ifndef BELAY_GATE_GPATH_H
#define BELAY_GATE_GPATH_H
#include "gate/arena.h"
#include "gate/gate.h"

struct gpath_env {
	const char *root;     /* normalised absolute */
	const char *home;     /* normalised absolute or NULL */
	const char **control; /* normalised absolute; state dir first */
	size_t ncontrol;
	const char **secret_dirs; /* locations whose contents are secret (home-based, /etc/...) */
	size_t nsecret_dirs;
};

/* Fills g from ctx; strings live in `a`. Relative ctx paths resolve against the root. */
void gpath_env_init(struct gpath_env *g, struct arena *a, const struct gate_ctx *ctx);

enum gpath_access {
	GPA_META,    /* names and attributes only (ls, stat, find without actions) */
	GPA_READ,    /* contents */
	GPA_WRITE,   /* create / modify */
	GPA_DESTROY, /* delete or destructively replace */
};

struct gpath_target {
	const char *path;	/* absolute, normalised; may contain glob characters for patterns */
	const char *scope;	/* absolute directory (or file) that contains every affected path */
	unsigned wild : 1;	/* several paths under scope (a glob or "anything under") */
	unsigned dotwild : 1;	/* the wildcard may match dot entries (.git, .env, ..) */
	unsigned recursive : 1; /* the operation descends into directories */
	unsigned descends : 1;	/* find-style traversal: reaches every subdirectory, dot ones too */
};

/* Classifies one access. Returns 0 when it is no effect at all (/dev/null, /dev/stdout,
 * /dev/fd/N...), else 1 with *kind and a static *why. */
int gpath_classify(const struct gpath_env *g, const struct gpath_target *t, enum gpath_access acc,
		   enum effect_kind *kind, const char **why);

/* Lexical normalisation of `p` resolved against absolute `cwd` (ignored when p is
 * absolute): collapses //, . and .. (never above /). Returns an arena string. */
char *gpath_resolve(struct arena *a, const char *cwd, const char *p, size_t plen);
/* 1 when `path` is `dir` or lies beneath it (component-aligned). */
int gpath_under(const char *path, const char *dir);
/* 1 when the path (or pattern) names a secret for this access. */
int gpath_is_secret(const struct gpath_env *g, const char *path, enum gpath_access acc);
/* 1 for paths that are not files: /dev/null, /dev/std*, /dev/fd/N, /dev/tty, /proc/self/fd/N. */
int gpath_is_pseudo(const char *path);

#endif
