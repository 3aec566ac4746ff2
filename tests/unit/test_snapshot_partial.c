/* test_snapshot_partial.c - work proportional to the changes: snap_delta between the
 * snapshots of a lineage, snap_restore_paths moving a directory from one pre-state to the
 * next and undoing a replay's changes, and snap_diff_handle_paths equal to the full diff.
 * Every incrementally prepared directory is compared, by BTH-2 tree hash, with a fresh full
 * restore of the same snapshot, for many consecutive turns of a random but seeded workload
 * (files, directories, renames, hardlinks, symlinks, chmod with special bits, chown, xattrs,
 * mtimes, truncation, kind changes, rm -rf). Negative controls show the comparison would
 * catch a forgotten path. */
#include <criterion/criterion.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "common/fsutil.h"
#include "common/jsonx.h"
#include "common/xalloc.h"
#include "snapshot/snapshot.h"
#include "torture.h"
#include "ts_snap.h"
#include "tsupport.h"

static char *base, *ws, *state;
static struct snap_store *st;
static struct snapshotter *sn;

static void setup(void)
{
	ts_snap_setup("snappart", &base, &ws, &state, &st);
}

static void teardown(void)
{
	ts_snap_teardown(&sn, &st, base, ws, state);
}

TestSuite(partial, .init = setup, .fini = teardown, .timeout = 300);

/*==== a seeded workload that also reports what a write-intent observer would see ====*/

struct mut {
	const char *root;
	uint64_t s;
	struct snap_paths *dirty; /* may be NULL */
	int counter;
	int allow_links;          /* create new hardlinks (a dirty set is unusable after one) */
};

static unsigned rnd(struct mut *m, unsigned n)
{
	m->s ^= m->s << 13;
	m->s ^= m->s >> 7;
	m->s ^= m->s << 17;
	return (unsigned)(m->s % n);
}

static void dirty(struct mut *m, const char *rel, int tree)
{
	if (m->dirty)
		cr_assert_eq(snap_paths_add(m->dirty, rel, strlen(rel), tree), 0, "unclean path %s", rel);
}

struct ents {
	char **v;
	size_t n;
};

static void list_rec(const char *root, const char *rel, struct ents *out)
{
	char *p = rel ? fs_join(root, rel) : xstrdup(root);
	DIR *d = opendir(p);
	cr_assert_not_null(d, "opendir %s", p);
	struct dirent *de;
	while ((de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		char *r = rel ? fs_join(rel, de->d_name) : xstrdup(de->d_name);
		out->v = xrealloc(out->v, (out->n + 1) * sizeof *out->v);
		out->v[out->n++] = r;
		char *full = fs_join(root, r);
		struct stat sb;
		if (lstat(full, &sb) == 0 && S_ISDIR(sb.st_mode))
			list_rec(root, r, out);
		free(full);
	}
	closedir(d);
	free(p);
}

static void ents_free(struct ents *e)
{
	for (size_t i = 0; i < e->n; i++)
		free(e->v[i]);
	free(e->v);
}

static char *full(struct mut *m, const char *rel)
{
	return fs_join(m->root, rel);
}

static int kind_of(struct mut *m, const char *rel)
{
	char *p = full(m, rel);
	struct stat sb;
	int k = lstat(p, &sb) != 0 ? 0 : S_ISDIR(sb.st_mode) ? 'd' : S_ISREG(sb.st_mode) ? 'f' : S_ISLNK(sb.st_mode) ? 'l' : '?';
	free(p);
	return k;
}

/* rm -rf, reporting every entry removed (as unlinkat/rmdir calls would be). */
static void rm_rf(struct mut *m, const char *rel)
{
	if (kind_of(m, rel) == 'd') {
		struct ents sub = {0};
		char *p = full(m, rel);
		chmod(p, 0755);
		free(p);
		list_rec(m->root, rel, &sub);
		for (size_t i = sub.n; i-- > 0;) {
			char *q = full(m, sub.v[i]);
			struct stat sb;
			if (lstat(q, &sb) == 0) {
				if (S_ISDIR(sb.st_mode))
					cr_assert_eq(rmdir(q), 0, "rmdir %s: %s", q, strerror(errno));
				else
					cr_assert_eq(unlink(q), 0, "unlink %s", q);
				dirty(m, sub.v[i], 0);
			}
			free(q);
		}
		ents_free(&sub);
		p = full(m, rel);
		cr_assert_eq(rmdir(p), 0, "rmdir %s: %s", p, strerror(errno));
		free(p);
	} else {
		char *p = full(m, rel);
		cr_assert_eq(unlink(p), 0, "unlink %s", p);
		free(p);
	}
	dirty(m, rel, 0);
}

/* A fresh name inside an existing directory (or the root). */
static char *new_name(struct mut *m, const struct ents *all)
{
	const char *dir = NULL;
	for (int tries = 0; tries < 8 && !dir; tries++) {
		if (all->n == 0 || rnd(m, 3) == 0)
			break;
		const char *c = all->v[rnd(m, (unsigned)all->n)];
		if (kind_of(m, c) == 'd')
			dir = c;
	}
	static const char *const stems[] = {"n", "-dash", "sp ace", "Z", "a.b"};
	char leaf[64];
	snprintf(leaf, sizeof leaf, "%s%d", stems[rnd(m, 5)], m->counter++);
	return dir ? fs_join(dir, leaf) : xstrdup(leaf);
}

static void set_mtime(struct mut *m, const char *rel, int64_t ns)
{
	char *p = full(m, rel);
	struct timespec ts[2] = {{0, UTIME_OMIT}, {ns / 1000000000LL, ns % 1000000000LL}};
	cr_assert_eq(utimensat(AT_FDCWD, p, ts, AT_SYMLINK_NOFOLLOW), 0, "utimensat %s", p);
	free(p);
}

static void write_file(struct mut *m, const char *rel, int append)
{
	char *p = full(m, rel);
	int fd = open(p, O_WRONLY | O_CREAT | (append ? O_APPEND : O_TRUNC) | O_NOFOLLOW, 0644);
	if (fd < 0 && errno == EACCES && chmod(p, 0644) == 0) /* a read-only file, not root */
		fd = open(p, O_WRONLY | O_CREAT | (append ? O_APPEND : O_TRUNC) | O_NOFOLLOW, 0644);
	cr_assert_geq(fd, 0, "open %s: %s", p, strerror(errno));
	char body[128];
	int n = snprintf(body, sizeof body, "content %u of %s\n", rnd(m, 1000000), rel);
	cr_assert_eq(write(fd, body, (size_t)n), n);
	close(fd);
	free(p);
	dirty(m, rel, 0);
}

/* One random operation. */
static void mutate_once(struct mut *m)
{
	struct ents all = {0};
	list_rec(m->root, NULL, &all);
	const char *pick = all.n ? all.v[rnd(m, (unsigned)all.n)] : NULL;
	int k = pick ? kind_of(m, pick) : 0;
	char *p = pick ? full(m, pick) : NULL;
	unsigned op = rnd(m, 16);
	switch (op) {
	case 0: { /* a new file */
		char *n = new_name(m, &all);
		write_file(m, n, 0);
		free(n);
		break;
	}
	case 1: /* rewrite or append (through whichever name of a hardlink group) */
		if (k == 'f')
			write_file(m, pick, rnd(m, 2));
		break;
	case 2: { /* a new directory, sometimes with a file in it */
		char *n = new_name(m, &all);
		char *q = full(m, n);
		cr_assert_eq(mkdir(q, 0755), 0, "mkdir %s", q);
		dirty(m, n, 0);
		if (rnd(m, 2)) {
			char *f = fs_join(n, "inner.txt");
			write_file(m, f, 0);
			free(f);
		}
		free(q);
		free(n);
		break;
	}
	case 3: /* rm -rf */
		if (pick)
			rm_rf(m, pick);
		break;
	case 4: { /* rename to a new name (directories move with their subtree) */
		if (!pick)
			break;
		char *n = new_name(m, &all);
		if (!strncmp(n, pick, strlen(pick)) && (n[strlen(pick)] == '/' || !n[strlen(pick)])) {
			free(n);
			break; /* into itself */
		}
		char *q = full(m, n);
		cr_assert_eq(rename(p, q), 0, "rename %s %s: %s", p, q, strerror(errno));
		dirty(m, pick, 1);
		dirty(m, n, 1);
		free(q);
		free(n);
		break;
	}
	case 5: /* rename a file over another file */
		if (k == 'f') {
			const char *o = all.v[rnd(m, (unsigned)all.n)];
			if (strcmp(o, pick) && kind_of(m, o) == 'f') {
				char *q = full(m, o);
				cr_assert_eq(rename(p, q), 0);
				dirty(m, pick, 1);
				dirty(m, o, 1);
				free(q);
			}
		}
		break;
	case 6: { /* a symlink */
		char *n = new_name(m, &all);
		char *q = full(m, n);
		cr_assert_eq(symlink(pick ? pick : "nowhere", q), 0);
		dirty(m, n, 0);
		free(q);
		free(n);
		break;
	}
	case 7: /* a hardlink */
		if (k == 'f' && m->allow_links) {
			char *n = new_name(m, &all);
			char *q = full(m, n);
			cr_assert_eq(link(p, q), 0, "link %s %s: %s", p, q, strerror(errno));
			dirty(m, pick, 0);
			dirty(m, n, 0);
			free(q);
			free(n);
		}
		break;
	case 8: /* chmod, special bits included */
		if (k == 'f' || k == 'd') {
			/* directories stay usable for a non-root owner */
			static const mode_t fmodes[] = {0600, 0644, 0755, 04755, 02750, 01777, 0444, 0700};
			static const mode_t dmodes[] = {0700, 0755, 02750, 01777};
			cr_assert_eq(chmod(p, k == 'f' ? fmodes[rnd(m, 8)] : dmodes[rnd(m, 4)]), 0);
			dirty(m, pick, 0);
		}
		break;
	case 9: /* chown (as root) */
		if (pick && geteuid() == 0) {
			cr_assert_eq(lchown(p, 1000 + rnd(m, 3), 1000 + rnd(m, 3)), 0);
			dirty(m, pick, 0);
		}
		break;
	case 10: /* xattrs: set or remove */
		if (k == 'f' || k == 'd') {
			char name[32], val[32];
			snprintf(name, sizeof name, "user.k%u", rnd(m, 3));
			snprintf(val, sizeof val, "v%u", rnd(m, 100));
			if (rnd(m, 3) == 0)
				removexattr(p, name);
			else
				setxattr(p, name, val, strlen(val), 0); /* EACCES on a read-only file when not root */
			dirty(m, pick, 0);
		}
		break;
	case 11: /* mtime */
		if (pick) {
			set_mtime(m, pick, 1600000000000000000LL + (int64_t)rnd(m, 1000000) * 1000003);
			dirty(m, pick, 0);
		}
		break;
	case 12: /* truncate */
		if (k == 'f') {
			cr_assert_eq(truncate(p, rnd(m, 3) ? 3 : 70000), 0);
			dirty(m, pick, 0);
		}
		break;
	case 13: /* kind change: a file becomes a directory, a directory a file */
		if (k == 'f' || k == 'l') {
			rm_rf(m, pick);
			cr_assert_eq(mkdir(p, 0750), 0);
		} else if (k == 'd') {
			rm_rf(m, pick);
			write_file(m, pick, 0);
		}
		break;
	case 14: /* a deep new subtree at once */
		if (!pick || k == 'd') {
			char *n = new_name(m, &all);
			char *a = fs_join(n, "x"), *b = fs_join(a, "y.txt");
			char *q = full(m, n), *qa = full(m, a);
			cr_assert_eq(mkdir(q, 0755), 0);
			cr_assert_eq(mkdir(qa, 0700), 0);
			dirty(m, n, 0);
			dirty(m, a, 0);
			write_file(m, b, 0);
			free(q);
			free(qa);
			free(a);
			free(b);
			free(n);
		}
		break;
	default: /* symlink replaced by a file, or a file by a symlink */
		if (k == 'l') {
			rm_rf(m, pick);
			write_file(m, pick, 0);
		} else if (k == 'f') {
			rm_rf(m, pick);
			cr_assert_eq(symlink("elsewhere", p), 0);
		}
		break;
	}
	free(p);
	ents_free(&all);
}

static void mutate(struct mut *m, int ops)
{
	for (int i = 0; i < ops; i++)
		mutate_once(m);
}

/*==== helpers ====*/

static char *capture(char tree_hash[SNAP_TREE_HASH_LEN])
{
	cJSON *h = snapshotter_capture(sn);
	char *txt = jx_print(h);
	cr_assert_str_eq(jx_str(h, "status"), "present", "%s", txt);
	char *handle = xstrdup(jx_str(h, "handle"));
	if (tree_hash)
		snprintf(tree_hash, SNAP_TREE_HASH_LEN, "%s", jx_str(h, "tree_hash"));
	free(txt);
	cJSON_Delete(h);
	return handle;
}

static void hash_of(const char *dir, char out[SNAP_TREE_HASH_LEN])
{
	struct err e = {0};
	cr_assert_eq(snap_tree_hash_dir(dir, out, &e), 0, "%s", e.msg);
}

/* The hash of a fresh full restore of handle. */
static void full_restore_hash(const char *handle, char out[SNAP_TREE_HASH_LEN])
{
	char *d = fs_join(base, "fresh");
	ts_rmtree(d);
	struct err e = {0};
	struct snap_restore_opts ro = {.allow_name_hazards = 1};
	cr_assert_eq(snap_restore(st, handle, d, &ro, &e), 0, "%s", e.msg);
	hash_of(d, out);
	ts_rmtree(d);
	free(d);
}

static void diff_paths(const struct snap_diff *d, struct snap_paths *out)
{
	for (size_t i = 0; i < d->n; i++)
		cr_assert_eq(snap_paths_add(out, d->items[i].path, d->items[i].path_len, 0), 0);
}

static char *diff_text(const struct snap_diff *d)
{
	cJSON *j = snap_diff_json(d);
	char *s = jx_print(j);
	cJSON_Delete(j);
	return s;
}

static void start(unsigned torture_flags)
{
	torture_build(ws, torture_flags);
	struct err e = {0};
	cr_assert_eq(snapshotter_open(st, ws, &sn, &e), 0, "%s", e.msg);
}

/*==== tests ====*/

Test(partial, paths_are_validated_sorted_root_first_and_merged)
{
	struct snap_paths ps = {0};
	cr_assert_eq(snap_paths_add(&ps, "b/c", 3, 0), 0);
	cr_assert_eq(snap_paths_add(&ps, "-x", 2, 0), 0);
	cr_assert_eq(snap_paths_add(&ps, ".", 1, 0), 0);
	cr_assert_eq(snap_paths_add(&ps, "b/c", 3, 1), 0);
	cr_assert_eq(snap_paths_add(&ps, "b", 1, 0), 0);
	cr_assert_neq(snap_paths_add(&ps, "../x", 4, 0), 0);
	cr_assert_neq(snap_paths_add(&ps, "/abs", 4, 0), 0);
	cr_assert_neq(snap_paths_add(&ps, "a//b", 4, 0), 0);
	cr_assert_neq(snap_paths_add(&ps, "a/./b", 5, 0), 0);
	cr_assert_neq(snap_paths_add(&ps, "a/", 2, 0), 0);
	cr_assert_neq(snap_paths_add(&ps, "", 0, 0), 0);
	snap_paths_sort(&ps);
	cr_assert_eq(ps.n, 4);
	cr_assert_str_eq(ps.v[0], ".");
	cr_assert_str_eq(ps.v[1], "-x");
	cr_assert_str_eq(ps.v[2], "b");
	cr_assert_str_eq(ps.v[3], "b/c");
	cr_assert_eq(ps.tree[3], 1);
	snap_paths_free(&ps);
}

/* A scratch moved from each pre-state to the next by delta + partial restore is, turn after
 * turn, identical to a fresh full restore; so is one moved backwards and one that also undoes
 * a replay's changes first. */
Test(partial, a_scratch_follows_the_lineage_turn_after_turn)
{
	start(TORTURE_FOREIGN_OWNER);
	enum { TURNS = 30 };
	char *h[TURNS];
	char th[TURNS][SNAP_TREE_HASH_LEN];
	struct mut m = {.root = ws, .s = 0x9e3779b97f4a7c15ull, .allow_links = 1};
	for (int t = 0; t < TURNS; t++) {
		h[t] = capture(th[t]);
		mutate(&m, 1 + (int)rnd(&m, 6));
	}
	char *sc = fs_join(base, "scratch");
	struct err e = {0};
	struct snap_restore_opts ro = {.allow_name_hazards = 1};
	cr_assert_eq(snap_restore(st, h[0], sc, &ro, &e), 0, "%s", e.msg);
	struct mut rep = {.root = sc, .s = 12345, .allow_links = 1};
	for (int t = 1; t < TURNS; t++) {
		/* a replay changed the scratch: its exact changes are undone with the delta */
		struct snap_paths dirty = {0};
		rep.dirty = &dirty;
		mutate(&rep, 1 + (int)rnd(&rep, 5));
		struct snap_diff eff;
		cr_assert_eq(snap_diff_handle_dir(st, h[t - 1], sc, &eff, &e), 0, "%s", e.msg);
		struct snap_paths u = {0};
		diff_paths(&eff, &u);
		snap_diff_free(&eff);
		snap_paths_free(&dirty);
		struct snap_paths d;
		int whole = -1;
		cr_assert_eq(snap_delta(st, h[t - 1], h[t], &d, &whole, &e), 0, "%s", e.msg);
		cr_assert_eq(whole, 0, "one lineage: never a whole-tree diff");
		for (size_t i = 0; i < d.n; i++)
			snap_paths_add(&u, d.v[i], strlen(d.v[i]), 0);
		snap_paths_sort(&u);
		cr_assert_eq(snap_restore_paths(st, h[t], sc, &u, NULL, &e), 0, "turn %d: %s", t, e.msg);
		char now[SNAP_TREE_HASH_LEN], fresh[SNAP_TREE_HASH_LEN];
		hash_of(sc, now);
		full_restore_hash(h[t], fresh);
		cr_assert_str_eq(fresh, th[t], "turn %d: a full restore reproduces the capture", t);
		cr_assert_str_eq(now, fresh, "turn %d: the incrementally prepared scratch differs from a full restore", t);
		snap_paths_free(&d);
		snap_paths_free(&u);
	}
	/* backwards, in big steps */
	for (int t = TURNS - 1; t >= 5; t -= 5) {
		struct snap_paths d;
		int whole;
		const char *from = t == TURNS - 1 ? h[TURNS - 1] : h[t + 5];
		cr_assert_eq(snap_delta(st, from, h[t - 5], &d, &whole, &e), 0, "%s", e.msg);
		cr_assert_eq(snap_restore_paths(st, h[t - 5], sc, &d, NULL, &e), 0, "%s", e.msg);
		char now[SNAP_TREE_HASH_LEN];
		hash_of(sc, now);
		cr_assert_str_eq(now, th[t - 5], "back to turn %d", t - 5);
		snap_paths_free(&d);
	}
	for (int t = 0; t < TURNS; t++)
		free(h[t]);
	free(sc);
}

/* The diff restricted to what a write-intent observer reported equals the full diff, for
 * many random replays; undoing exactly its paths brings the scratch back. */
Test(partial, the_restricted_diff_equals_the_full_diff)
{
	start(TORTURE_FOREIGN_OWNER | TORTURE_NON_UTF8);
	char th[SNAP_TREE_HASH_LEN];
	char *h = capture(th);
	char *sc = fs_join(base, "scratch");
	struct err e = {0};
	struct snap_restore_opts ro = {.allow_name_hazards = 1};
	cr_assert_eq(snap_restore(st, h, sc, &ro, &e), 0, "%s", e.msg);
	for (int round = 0; round < 80; round++) {
		struct snap_paths dirty = {0};
		struct mut m = {.root = sc, .s = 777 + (uint64_t)round * 7919, .dirty = &dirty, .counter = round * 100, .allow_links = 1};
		mutate(&m, 1 + round % 11);
		struct snap_diff whole, part;
		int incomplete = -1;
		cr_assert_eq(snap_diff_handle_dir(st, h, sc, &whole, &e), 0, "%s", e.msg);
		cr_assert_eq(snap_diff_handle_paths(st, h, sc, &dirty, &part, &incomplete, &e), 0, "%s", e.msg);
		char *a = diff_text(&whole), *b = diff_text(&part);
		cr_assert_eq(incomplete, 0, "round %d", round);
		cr_assert_str_eq(b, a, "round %d: restricted diff differs from the full diff", round);
		free(a);
		free(b);
		struct snap_paths u = {0};
		diff_paths(&part, &u);
		snap_paths_sort(&u);
		cr_assert_eq(snap_restore_paths(st, h, sc, &u, NULL, &e), 0, "round %d: %s", round, e.msg);
		char now[SNAP_TREE_HASH_LEN];
		hash_of(sc, now);
		cr_assert_str_eq(now, th, "round %d: the undo left the scratch different", round);
		snap_diff_free(&whole);
		snap_diff_free(&part);
		snap_paths_free(&u);
		snap_paths_free(&dirty);
	}
	free(h);
	free(sc);
}

/* Negative controls: a forgotten path is caught by the comparison with a full restore, and a
 * write through a hardlink the dirty set did not name is found through the group. */
Test(partial, a_forgotten_change_is_caught_and_groups_are_followed)
{
	start(0);
	char th[SNAP_TREE_HASH_LEN];
	char *h = capture(th);
	char *sc = fs_join(base, "scratch");
	struct err e = {0};
	struct snap_restore_opts ro = {.allow_name_hazards = 1};
	cr_assert_eq(snap_restore(st, h, sc, &ro, &e), 0, "%s", e.msg);
	/* two files changed, the undo told about one */
	cr_assert_eq(ts_sh("echo x >> '%s/regular.txt' && echo y >> '%s/nested/child.txt'", sc, sc), 0);
	struct snap_paths one = {0};
	snap_paths_add(&one, "regular.txt", 11, 0);
	cr_assert_eq(snap_restore_paths(st, h, sc, &one, NULL, &e), 0, "%s", e.msg);
	char now[SNAP_TREE_HASH_LEN];
	hash_of(sc, now);
	cr_assert_str_neq(now, th, "a forgotten change must show in the tree hash");
	snap_paths_add(&one, "nested/child.txt", 16, 0);
	cr_assert_eq(snap_restore_paths(st, h, sc, &one, NULL, &e), 0, "%s", e.msg);
	hash_of(sc, now);
	cr_assert_str_eq(now, th);
	snap_paths_free(&one);

	/* a write through one name of a group: the dirty set names only that name */
	cr_assert_eq(ts_sh("echo more >> '%s/nested/hardlink_b.txt'", sc), 0);
	struct snap_paths d = {0};
	snap_paths_add(&d, "nested/hardlink_b.txt", 21, 0);
	struct snap_diff whole, part;
	int incomplete;
	cr_assert_eq(snap_diff_handle_dir(st, h, sc, &whole, &e), 0);
	cr_assert_eq(snap_diff_handle_paths(st, h, sc, &d, &part, &incomplete, &e), 0, "%s", e.msg);
	char *a = diff_text(&whole), *b = diff_text(&part);
	cr_assert(strstr(a, "hardlink_a.txt"), "%s", a);
	cr_assert_str_eq(b, a);
	cr_assert_eq(incomplete, 0);
	free(a);
	free(b);
	snap_diff_free(&whole);
	snap_diff_free(&part);
	snap_paths_free(&d);

	/* a hardlink whose other name the dirty set does not know: incomplete, never wrong */
	char *x = fs_join(base, "outside");
	char *in = fs_join(sc, "regular.txt");
	cr_assert_eq(link(in, x), 0);
	struct snap_paths d2 = {0};
	snap_paths_add(&d2, "regular.txt", 11, 0);
	cr_assert_eq(snap_diff_handle_paths(st, h, sc, &d2, &part, &incomplete, &e), 0, "%s", e.msg);
	cr_assert_eq(incomplete, 1, "a name outside the closure makes the restricted diff incomplete");
	snap_diff_free(&part);
	snap_paths_free(&d2);
	unlink(x);
	free(x);
	free(in);
	free(h);
	free(sc);
}

/* A directory removed and recreated, a directory replaced by a symlink to the outside, and a
 * read-only directory: the undo never follows the symlink and restores the modes. */
Test(partial, replaced_directories_and_symlinks_are_undone_without_following)
{
	start(0);
	char th[SNAP_TREE_HASH_LEN];
	char *h = capture(th);
	char *sc = fs_join(base, "scratch"), *outside = fs_join(base, "outside");
	cr_assert_eq(mkdir(outside, 0755), 0);
	struct err e = {0};
	struct snap_restore_opts ro = {.allow_name_hazards = 1};
	cr_assert_eq(snap_restore(st, h, sc, &ro, &e), 0, "%s", e.msg);
	cr_assert_eq(ts_sh("cd '%s' && rm -rf nested && mkdir nested && echo new > nested/child.txt && "
			   "rm -rf empty_dir && ln -s '%s' empty_dir && chmod 0555 sticky_dir",
			   sc, outside),
		     0);
	struct snap_diff d;
	cr_assert_eq(snap_diff_handle_dir(st, h, sc, &d, &e), 0, "%s", e.msg);
	struct snap_paths u = {0};
	diff_paths(&d, &u);
	snap_paths_sort(&u);
	snap_diff_free(&d);
	cr_assert_eq(snap_restore_paths(st, h, sc, &u, NULL, &e), 0, "%s", e.msg);
	char now[SNAP_TREE_HASH_LEN];
	hash_of(sc, now);
	cr_assert_str_eq(now, th);
	DIR *o = opendir(outside);
	int n = 0;
	struct dirent *de;
	while ((de = readdir(o)))
		n++;
	closedir(o);
	cr_assert_eq(n, 2, "nothing was written through the symlink");
	snap_paths_free(&u);
	free(h);
	free(sc);
	free(outside);
}

/* A default ACL on the destination replaces the umask for new entries: a restore must still
 * give every file its recorded mode (it may not trust the create mode there). */
static int set_default_acl(const char *dirpath)
{
	/* posix_acl_xattr: u32 version 2, then {u16 tag, u16 perm, u32 id}: user::rwx,
	 * group::---, other::--- (tags ACL_USER_OBJ 1, ACL_GROUP_OBJ 4, ACL_OTHER 0x20) */
	unsigned char v[4 + 3 * 8] = {2, 0, 0, 0};
	const unsigned short tags[3] = {0x01, 0x04, 0x20}, perms[3] = {7, 0, 0};
	for (int i = 0; i < 3; i++) {
		v[4 + i * 8] = (unsigned char)tags[i];
		v[4 + i * 8 + 2] = (unsigned char)perms[i];
		memset(v + 4 + i * 8 + 4, 0xff, 4); /* ACL_UNDEFINED_ID */
	}
	return setxattr(dirpath, "system.posix_acl_default", v, sizeof v, 0);
}

Test(partial, a_default_acl_on_the_destination_does_not_change_restored_modes)
{
	start(0);
	char *h = capture(NULL);
	char *d = fs_join(base, "acl");
	cr_assert_eq(mkdir(d, 0755), 0);
	if (set_default_acl(d) != 0)
		cr_skip_test("no POSIX ACLs here: %s", strerror(errno));
	struct err e = {0};
	struct snap_restore_opts ro = {.allow_name_hazards = 1};
	cr_assert_eq(snap_restore(st, h, d, &ro, &e), 0, "%s", e.msg);
	struct stat sb;
	char *f = fs_join(d, "regular.txt"), *g = fs_join(d, "nested/child.txt");
	cr_assert_eq(stat(f, &sb), 0);
	cr_assert_eq(sb.st_mode & 07777, 0644, "full restore: mode %o", sb.st_mode & 07777);
	cr_assert_eq(stat(g, &sb), 0);
	cr_assert_eq(sb.st_mode & 07777, 0644, "full restore, nested: mode %o", sb.st_mode & 07777);
	/* a directory the partial restore recreates inherits the ACL: its files keep their modes */
	cr_assert_eq(ts_sh("rm -rf '%s/nested'", d), 0);
	struct snap_paths p = {0};
	snap_paths_add(&p, "nested", 6, 0);
	cr_assert_eq(snap_restore_paths(st, h, d, &p, NULL, &e), 0, "%s", e.msg);
	cr_assert_eq(stat(g, &sb), 0);
	cr_assert_eq(sb.st_mode & 07777, 0644, "partial restore: mode %o", sb.st_mode & 07777);
	snap_paths_free(&p);
	free(f);
	free(g);
	free(d);
	free(h);
}

/* Issue 34 (2): a server may hold a workspace file open (an SQLite database). Restoring a path
 * whose content already equals the pre-state's must not replace the file: its inode stays
 * (metadata put back in place); only a file whose content differs is written anew. */
static ino_t ino_of(const char *dir, const char *rel)
{
	char *p = fs_join(dir, rel);
	struct stat sb;
	cr_assert_eq(lstat(p, &sb), 0, "%s", p);
	free(p);
	return sb.st_ino;
}

Test(partial, a_file_whose_content_is_the_pre_states_keeps_its_inode)
{
	start(0);
	ts_sh("printf 'the same bytes\\n' > '%s/held.db' && chmod 0644 '%s/held.db' && printf 'before\\n' > '%s/changed.txt'",
	      ws, ws, ws);
	char th[SNAP_TREE_HASH_LEN];
	char *h = capture(th);
	char *sc = fs_join(base, "scratch");
	struct err e = {0};
	struct snap_restore_opts ro = {.allow_name_hazards = 1};
	cr_assert_eq(snap_restore(st, h, sc, &ro, &e), 0, "%s", e.msg);
	/* the replay: touches held.db's metadata only (mode, mtime; an open handle keeps it),
	 * rewrites changed.txt */
	cr_assert_eq(ts_sh("cd '%s' && chmod 0600 held.db && touch -d @1000 held.db && printf 'after\\n' > changed.txt", sc), 0);
	ino_t held = ino_of(sc, "held.db"), changed = ino_of(sc, "changed.txt");
	struct snap_paths u = {0};
	cr_assert_eq(snap_paths_add(&u, "held.db", 7, 0), 0);
	cr_assert_eq(snap_paths_add(&u, "changed.txt", 11, 0), 0);
	snap_paths_sort(&u);
	cr_assert_eq(snap_restore_paths(st, h, sc, &u, NULL, &e), 0, "%s", e.msg);
	char now[SNAP_TREE_HASH_LEN];
	hash_of(sc, now);
	cr_assert_str_eq(now, th, "the restore reproduces the pre-state, metadata included");
	cr_assert_eq(ino_of(sc, "held.db"), held, "a file already holding the pre-state's bytes was replaced");
	char *cp = fs_join(sc, "changed.txt");
	size_t len;
	char *text = ts_read_file(cp, &len);
	cr_assert_str_eq(text, "before\n");
	(void)changed;
	free(text);
	free(cp);
	snap_paths_free(&u);
	free(h);
	free(sc);
}
