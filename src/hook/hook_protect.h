/* hook_protect.h - belay's protected files, by identity rather than by spelling: the hook
 * configuration of every agent (in the project and the home), the hook programs the
 * installed commands run (belay, belay-hook) and belay's state directory (approvals, keys,
 * traces). The gate (pure, lexical) already refuses what names them; this is the check that
 * looks at the filesystem: every path an effect plan writes or deletes is expanded (globs,
 * against the directories as they are now) and stat'ed, and one that is the same file as a
 * protected one (st_dev + st_ino: a hard link, a symbolic link, a linked directory on the
 * way), or a directory holding one when the effect deletes or replaces it wholesale, is a
 * hit. A path or pattern it cannot resolve (an unreadable directory, a clipped resource) is
 * unresolved, which asks: never a silent pass.
 *
 * Must not: print, write. Threads: any (a set is read-only once made). */
#ifndef BELAY_HOOK_HOOK_PROTECT_H
#define BELAY_HOOK_HOOK_PROTECT_H
#include <stddef.h>

#include "common/buf.h"
#include "gate/gate.h"

enum hook_protect_role {
	HP_CONFIG,  /* an agent's hook configuration: content recorded */
	HP_PROGRAM, /* a program the installed hook command runs: identity, size and mtime */
	HP_STATE,   /* belay's state directory: identity */
};

struct hook_protect_file {
	char *path; /* absolute, as named (owned) */
	enum hook_protect_role role;
};

struct hook_protect {
	struct hook_protect_file *v;
	size_t n;
};

/* The set for a project root (NULL: none), home (NULL: none), state directory and the
 * belay program (NULL: this process's; the hook client beside it is added when present).
 * Paths need not exist. Never NULL. */
struct hook_protect *hook_protect_new(const char *root, const char *home, const char *state_dir, const char *belay);
void hook_protect_free(struct hook_protect *p);
const char *hook_protect_role_name(enum hook_protect_role r);

enum hook_protect_verdict {
	HOOK_PROTECT_CLEAR,      /* no written or deleted path reaches a protected file */
	HOOK_PROTECT_UNRESOLVED, /* some path could not be resolved: ask */
	HOOK_PROTECT_HIT,        /* a protected file is written, deleted or replaced: deny */
};

/* Checks every writing effect of the plan (fs writes and deletions inside and outside the
 * root, secret writes) against the set. cwd: the call's working directory (NULL: unknown);
 * one that cannot be stat'ed is unresolved. On a hit or an unresolved path, *resource (a
 * new string) names the plan's resource and *why (appended) says what it reaches. */
enum hook_protect_verdict hook_protect_check(const struct hook_protect *p, const struct effect_plan *plan,
					     const char *cwd, char **resource, struct buf *why);

#endif
