/* test_snapshot.c - fidelity of snapshot -> mutate -> restore on the torture tree, with an
 * ablation per restore step (each must break the round trip, naming the field it loses),
 * and the BTH-2 tree hash: stable, identical across builds, and moved by every
 * single-field mutation (with the diff naming exactly that field).
 *
 * Negative control: SNAP_TEST_SKIP=<bits> makes the round-trip tests restore with those
 * ablation bits, and they must then fail (see docs/SNAPSHOTS.md, "Testing the tests"). */
#include <criterion/criterion.h>
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
#include "tsupport.h"

static char *base;

static void setup(void)
{
	base = ts_tmpdir("snap");
}

static void teardown(void)
{
	ts_rmtree(base);
	free(base);
}

TestSuite(snapshot, .init = setup, .fini = teardown, .timeout = 120);

static char *sub(const char *name)
{
	return fs_join(base, name);
}

static char *mkws(const char *name, unsigned flags)
{
	char *ws = sub(name);
	cr_assert_eq(mkdir(ws, 0700), 0);
	torture_build(ws, flags);
	return ws;
}

static unsigned env_skip(void)
{
	const char *s = getenv("SNAP_TEST_SKIP");
	return s ? (unsigned)strtoul(s, NULL, 0) : 0;
}

static void hash_dir(const char *dir, char out[SNAP_TREE_HASH_LEN])
{
	struct err e = {0};
	cr_assert_eq(snap_tree_hash_dir(dir, out, &e), 0, "%s", e.msg);
	cr_assert_eq(strncmp(out, "BTH-2:sha256:", 13), 0, "%s", out);
}

/* Captures ws into a store under base/state; returns the handle (new string). */
static char *capture(const char *ws, struct snap_store **stp, char tree_hash[SNAP_TREE_HASH_LEN])
{
	struct err e = {0};
	char *state = sub("state");
	struct snap_store *st = NULL;
	cr_assert_eq(snap_store_open(state, ws, &st, &e), 0, "%s", e.msg);
	struct snapshotter *s = NULL;
	cr_assert_eq(snapshotter_open(st, ws, &s, &e), 0, "%s", e.msg);
	cJSON *h = snapshotter_capture(s);
	char *txt = jx_print(h);
	cr_assert_str_eq(jx_str(h, "status"), "present", "%s", txt);
	cr_assert_str_eq(jx_str(h, "backend"), "cas-v1");
	cr_assert_str_eq(jx_str(h, "walk"), "full");
	cJSON *gaps = cJSON_GetObjectItem(h, "fidelity_gaps");
	cr_assert_eq(cJSON_GetArraySize(gaps), 3, "%s", txt);
	char *handle = xstrdup(jx_str(h, "handle"));
	snprintf(tree_hash, SNAP_TREE_HASH_LEN, "%s", jx_str(h, "tree_hash"));
	free(txt);
	cJSON_Delete(h);
	snapshotter_free(s);
	free(state);
	*stp = st;
	return handle;
}

/* The standard mutation (sandbox-spec §5) plus more: the restore must not read the live tree. */
static void mutate(const char *ws)
{
	cr_assert_eq(ts_sh("cd '%s' && printf rewritten > regular.txt && chmod 0711 setuid.bin && "
			   "touch -d @1 nested && rm relative.link && ln -s somewhere-else.txt relative.link && "
			   "rm -r empty_dir nested/hardlink_b.txt && setfattr -x user.belay.torture xattred.txt",
			   ws),
		     0);
}

Test(snapshot, torture_fixture_is_what_it_claims)
{
	char *ws = mkws("ws", 0);
	struct stat sb;
	char *p = fs_join(ws, "sparse.bin");
	cr_assert_eq(stat(p, &sb), 0);
	cr_assert_eq(sb.st_size, 1048576);
	cr_assert_lt(sb.st_blocks * 512, sb.st_size, "sparse.bin has no hole");
	free(p);
	p = fs_join(ws, "setuid.bin");
	cr_assert_eq(stat(p, &sb), 0);
	cr_assert_eq(sb.st_mode & 07777, 04711);
	free(p);
	p = fs_join(ws, "nested/hardlink_b.txt");
	cr_assert_eq(stat(p, &sb), 0);
	cr_assert_eq(sb.st_nlink, 2);
	free(p);
	p = fs_join(ws, "xattred.txt");
	char v[128];
	cr_assert_gt(getxattr(p, "user.belay.torture", v, sizeof v), 0);
	free(p);
	p = fs_join(ws, torture_cafe_nfd);
	cr_assert_eq(lstat(p, &sb), 0);
	cr_assert_eq(sb.st_mtim.tv_sec % 1, 0);
	free(p);
	free(ws);
}

Test(snapshot, tree_hash_is_stable_and_identical_across_builds)
{
	char *a = mkws("a", TORTURE_NON_UTF8), *b = mkws("b", TORTURE_NON_UTF8);
	char h1[SNAP_TREE_HASH_LEN], h2[SNAP_TREE_HASH_LEN], h3[SNAP_TREE_HASH_LEN];
	hash_dir(a, h1);
	for (int i = 0; i < 5; i++) {
		hash_dir(a, h2);
		cr_assert_str_eq(h1, h2, "rehash moved");
	}
	hash_dir(b, h3); /* other root, other inodes, built later */
	cr_assert_str_eq(h1, h3);
	struct snap_diff d;
	struct err e = {0};
	cr_assert_eq(snap_diff_dirs(a, b, &d, &e), 0, "%s", e.msg);
	cr_assert_eq(d.n, 0);
	snap_diff_free(&d);
	free(a);
	free(b);
}

static void round_trip(unsigned flags, int allow_hazards)
{
	char *ws = mkws("ws", flags);
	char before[SNAP_TREE_HASH_LEN], recorded[SNAP_TREE_HASH_LEN], stored[SNAP_TREE_HASH_LEN];
	char after[SNAP_TREE_HASH_LEN];
	hash_dir(ws, before);
	struct snap_store *st;
	char *handle = capture(ws, &st, recorded);
	cr_assert_str_eq(recorded, before, "the incremental hash differs from a fresh hash of the same tree");
	struct err e = {0};
	cr_assert_eq(snap_tree_hash_handle(st, handle, stored, &e), 0, "%s", e.msg);
	cr_assert_str_eq(stored, before, "the manifest does not hash like the tree it records");
	mutate(ws);
	hash_dir(ws, after);
	cr_assert_str_neq(after, before);
	char *dest = sub("restored");
	struct snap_restore_opts o = {.skip = env_skip(), .allow_name_hazards = allow_hazards};
	cr_assert_eq(snap_restore(st, handle, dest, &o, &e), 0, "%s", e.msg);
	struct snap_diff d;
	cr_assert_eq(snap_diff_handle_dir(st, handle, dest, &d, &e), 0, "%s", e.msg);
	cJSON *dj = snap_diff_json(&d);
	char *dtxt = jx_print(dj);
	cr_assert_eq(d.n, 0, "restored tree differs: %s", dtxt);
	free(dtxt);
	cJSON_Delete(dj);
	snap_diff_free(&d);
	hash_dir(dest, after);
	cr_assert_str_eq(after, before, "restored tree hashes differently");
	/* the content of every file came back, sparse file included */
	struct stat sb;
	char *p = fs_join(dest, "sparse.bin");
	cr_assert_eq(stat(p, &sb), 0);
	cr_assert_eq(sb.st_size, 1048576);
	free(p);
	snap_store_close(st);
	free(dest);
	free(handle);
	free(ws);
}

Test(snapshot, torture_round_trip_is_identical)
{
	round_trip(TORTURE_FOREIGN_OWNER, 0);
}

Test(snapshot, torture_round_trip_with_a_non_utf8_name_when_hazards_are_waived)
{
	round_trip(TORTURE_NON_UTF8 | TORTURE_FOREIGN_OWNER, 1);
}

Test(snapshot, a_non_utf8_name_is_refused_at_restore_without_touching_dest)
{
	char *ws = mkws("ws", TORTURE_NON_UTF8);
	struct snap_store *st;
	char th[SNAP_TREE_HASH_LEN];
	char *handle = capture(ws, &st, th);
	char *dest = sub("dest");
	struct err e = {0};
	cr_assert_eq(snap_restore(st, handle, dest, NULL, &e), BELAY_EREFUSED);
	cr_assert_str_eq(snap_cause_of(&e), "UNRESTORABLE_INVALID_UTF8_NAME", "%s", e.msg);
	cr_assert(strstr(e.msg, "caf\xe9.bin"), "%s", e.msg);
	struct stat sb;
	cr_assert_eq(lstat(dest, &sb), -1, "dest was created");
	snap_store_close(st);
	free(dest);
	free(handle);
	free(ws);
}

/*==== ablations ====*/

struct ablation {
	unsigned skip;
	const char *path;  /* an entry the ablated restore must get wrong */
	const char *field; /* the field it must differ in (NULL: the entry is missing) */
};

static void ablate(const struct ablation *ab)
{
	char *ws = mkws("ws", TORTURE_FOREIGN_OWNER);
	char th[SNAP_TREE_HASH_LEN], got[SNAP_TREE_HASH_LEN];
	struct snap_store *st;
	char *handle = capture(ws, &st, th);
	char *dest = sub("ablated");
	struct err e = {0};
	struct snap_restore_opts o = {.skip = ab->skip};
	cr_assert_eq(snap_restore(st, handle, dest, &o, &e), 0, "%s", e.msg);
	hash_dir(dest, got);
	cr_assert_str_neq(got, th, "skipping step 0x%x still restored an identical tree: the check has no teeth",
			  ab->skip);
	struct snap_diff d;
	cr_assert_eq(snap_diff_handle_dir(st, handle, dest, &d, &e), 0, "%s", e.msg);
	int found = 0;
	for (size_t i = 0; i < d.n; i++) {
		if (strcmp(d.items[i].path, ab->path) != 0)
			continue;
		if (!ab->field) {
			found = d.items[i].kind == SNAP_DIFF_REMOVED;
			continue;
		}
		for (size_t k = 0; k < d.items[i].nfields; k++)
			if (strcmp(d.items[i].fields[k], ab->field) == 0)
				found = 1;
	}
	cJSON *dj = snap_diff_json(&d);
	char *txt = jx_print(dj);
	cr_assert(found, "skip 0x%x: expected %s to differ in %s; diff: %s", ab->skip, ab->path,
		  ab->field ? ab->field : "(presence)", txt);
	free(txt);
	cJSON_Delete(dj);
	snap_diff_free(&d);
	snap_store_close(st);
	free(dest);
	free(handle);
	free(ws);
}

Test(snapshot, ablation_hardlinks)
{
	ablate(&(struct ablation){SNAP_SKIP_HARDLINKS, "nested/hardlink_b.txt", "link_group"});
}
Test(snapshot, ablation_special_modes)
{
	ablate(&(struct ablation){SNAP_SKIP_SPECIAL_MODES, "setuid.bin", "perm"});
}
Test(snapshot, ablation_special_modes_on_directories)
{
	ablate(&(struct ablation){SNAP_SKIP_SPECIAL_MODES, "sticky_dir", "perm"});
}
Test(snapshot, ablation_xattrs)
{
	ablate(&(struct ablation){SNAP_SKIP_XATTRS, "xattred.txt", "xattr:user.belay.torture"});
}
Test(snapshot, ablation_xattrs_on_directories)
{
	ablate(&(struct ablation){SNAP_SKIP_XATTRS, "nested", "xattr:user.belay.dir"});
}
Test(snapshot, ablation_dir_mtimes)
{
	ablate(&(struct ablation){SNAP_SKIP_DIR_MTIMES, "nested/deeper", "mtime_ns"});
}
Test(snapshot, ablation_file_mtimes)
{
	ablate(&(struct ablation){SNAP_SKIP_FILE_MTIMES, "regular.txt", "mtime_ns"});
}
Test(snapshot, ablation_symlink_mtimes)
{
	ablate(&(struct ablation){SNAP_SKIP_FILE_MTIMES, "dangling.link", "mtime_ns"});
}
Test(snapshot, ablation_symlink_targets)
{
	ablate(&(struct ablation){SNAP_SKIP_SYMLINKS, "absolute.link", "kind"});
}
Test(snapshot, ablation_empty_dirs)
{
	ablate(&(struct ablation){SNAP_SKIP_EMPTY_DIRS, "empty_dir", NULL});
}
Test(snapshot, ablation_ownership)
{
	if (geteuid() != 0)
		cr_skip_test("needs root to create a foreign-owned entry");
	ablate(&(struct ablation){SNAP_SKIP_OWNERSHIP, "owned.txt", "uid"});
}

/*==== the hash moves on every single-field mutation ====*/

struct mutation {
	const char *name;
	const char *sh;    /* run inside the tree */
	const char *path;  /* the entry whose field must differ */
	const char *field; /* NULL: the entry must be missing */
};

static const struct mutation mutations[] = {
	{"mode bit", "chmod 0643 mode642.bin", "mode642.bin", "perm"},
	{"setuid dropped", "chmod 0711 setuid.bin", "setuid.bin", "perm"},
	{"xattr value", "setfattr -n user.belay.torture -v other xattred.txt", "xattred.txt", "xattr:user.belay.torture"},
	{"xattr dropped", "setfattr -x user.belay.torture xattred.txt", "xattred.txt", "xattr:user.belay.torture"},
	{"symlink retarget", "rm relative.link && ln -s mode642.bin relative.link", "relative.link", "target"},
	{"content byte", "printf 'X' | dd of=regular.txt bs=1 seek=3 conv=notrunc status=none", "regular.txt",
	 "content"},
	{"hardlink broken", "cp nested/hardlink_b.txt x && mv x nested/hardlink_b.txt", "hardlink_a.txt", "link_group"},
	{"empty dir removed", "rmdir empty_dir", "empty_dir", NULL},
};

static void stamp_back(const char *ws, const char *rel, const struct stat *sb)
{
	char *p = fs_join(ws, rel);
	struct timespec ts[2] = {sb->st_atim, sb->st_mtim};
	cr_assert_eq(utimensat(AT_FDCWD, p, ts, AT_SYMLINK_NOFOLLOW), 0, "%s", p);
	free(p);
}

static void check_mutation(const struct mutation *m)
{
	char *ws = mkws("m", 0);
	char h0[SNAP_TREE_HASH_LEN], h1[SNAP_TREE_HASH_LEN];
	hash_dir(ws, h0);
	/* neutralise parent-mtime confounds: put the stamps back after the mutation */
	struct stat root, nested, entry;
	char *np = fs_join(ws, "nested"), *ep = fs_join(ws, m->path);
	cr_assert_eq(lstat(ws, &root), 0);
	cr_assert_eq(lstat(np, &nested), 0);
	int had = lstat(ep, &entry) == 0;
	cr_assert_eq(ts_sh("cd '%s' && %s", ws, m->sh), 0, "%s", m->name);
	stamp_back(ws, ".", &root);
	stamp_back(ws, "nested", &nested);
	if (had && m->field && access(ep, F_OK) == 0) {
		stamp_back(ws, m->path, &entry);
		if (strcmp(m->path, "hardlink_a.txt") == 0) {
			struct stat b;
			char *bp = fs_join(ws, "nested/hardlink_b.txt");
			lstat(bp, &b);
			stamp_back(ws, "nested/hardlink_b.txt", &entry);
			free(bp);
		}
	}
	hash_dir(ws, h1);
	cr_assert_str_neq(h0, h1, "%s did not move the tree hash", m->name);
	char *ref = mkws("ref", 0);
	struct snap_diff d;
	struct err e = {0};
	cr_assert_eq(snap_diff_dirs(ref, ws, &d, &e), 0, "%s", e.msg);
	cJSON *dj = snap_diff_json(&d);
	char *txt = jx_print(dj);
	int found = 0;
	for (size_t i = 0; i < d.n; i++) {
		if (strcmp(d.items[i].path, m->path) != 0)
			continue;
		if (!m->field)
			found = d.items[i].kind == SNAP_DIFF_REMOVED;
		else
			for (size_t k = 0; k < d.items[i].nfields; k++)
				found |= strcmp(d.items[i].fields[k], m->field) == 0;
	}
	cr_assert(found, "%s: diff does not name %s %s: %s", m->name, m->path, m->field ? m->field : "", txt);
	/* and nothing else than the mutated entry (and its hardlink partner) */
	for (size_t i = 0; i < d.n; i++)
		cr_assert(strcmp(d.items[i].path, m->path) == 0 || strstr(d.items[i].path, "hardlink_"),
			  "%s: unexpected difference at %s: %s", m->name, d.items[i].path, txt);
	free(txt);
	cJSON_Delete(dj);
	snap_diff_free(&d);
	ts_rmtree(ws);
	ts_rmtree(ref);
	free(ws);
	free(ref);
	free(np);
	free(ep);
}

Test(snapshot, every_single_field_mutation_moves_the_hash)
{
	for (size_t i = 0; i < sizeof mutations / sizeof *mutations; i++)
		check_mutation(&mutations[i]);
}

Test(snapshot, one_nanosecond_of_mtime_moves_the_hash)
{
	char *ws = mkws("ns", 0);
	char h0[SNAP_TREE_HASH_LEN], h1[SNAP_TREE_HASH_LEN];
	hash_dir(ws, h0);
	char *p = fs_join(ws, "nested/deeper/leaf.txt");
	struct stat sb;
	cr_assert_eq(lstat(p, &sb), 0);
	struct timespec ts[2] = {sb.st_atim, sb.st_mtim};
	ts[1].tv_nsec += 1;
	cr_assert_eq(utimensat(AT_FDCWD, p, ts, AT_SYMLINK_NOFOLLOW), 0);
	hash_dir(ws, h1);
	cr_assert_str_neq(h0, h1);
	/* atime churn alone does not move it */
	ts[1].tv_nsec -= 1;
	ts[0].tv_sec += 1000;
	cr_assert_eq(utimensat(AT_FDCWD, p, ts, AT_SYMLINK_NOFOLLOW), 0);
	hash_dir(ws, h1);
	cr_assert_str_eq(h0, h1, "atime moved the hash");
	free(p);
	free(ws);
}

Test(snapshot, nfd_name_bytes_are_kept)
{
	char *ws = mkws("nfd", 0);
	struct snap_store *st;
	char th[SNAP_TREE_HASH_LEN];
	char *handle = capture(ws, &st, th);
	struct buf b = {0};
	struct err e = {0};
	cr_assert_eq(snap_read_file(st, handle, torture_cafe_nfd, &b, &e), 0, "%s", e.msg);
	cr_assert_str_eq(b.p, "nfd-named\n");
	b.len = 0;
	cr_assert_eq(snap_read_file(st, handle, "caf\xc3\xa9", &b, &e), BELAY_ENOTFOUND, "the NFC name must not exist");
	buf_free(&b);
	snap_store_close(st);
	free(handle);
	free(ws);
}
